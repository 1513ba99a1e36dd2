"""The DPMPM latent-class synthesizer (Dunson & Xing 2009; course §5.1.3)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthguard.bayes import LatentClassSynthesizer
from synthguard.errors import DataError, NotFittedError, ParameterError


def _mixture(n=1500, seed=0):
    """Three latent classes; each of 4 columns shows its class's letter 80 % of the time."""
    rng = np.random.default_rng(seed)
    z = rng.integers(0, 3, n)
    cols = {}
    for j in range(4):
        other = rng.integers(0, 3, n)
        cols[f"v{j}"] = np.array(list("abc"))[np.where(rng.random(n) < 0.8, z, other)]
    return pd.DataFrame(cols)


def _tv(a, b, x, y):
    pa = pd.crosstab(a[x], a[y], normalize=True)
    pb = pd.crosstab(b[x], b[y], normalize=True).reindex_like(pa).fillna(0)
    return 0.5 * np.abs(pa - pb).to_numpy().sum()


def test_full_synthesis_keeps_the_associations_a_product_of_marginals_loses():
    df = _mixture()
    syn = LatentClassSynthesizer(burn_in=150, thin=10, random_state=1).fit(df).sample(m=2)
    assert syn.kind == "full" and syn.m == 2 and len(syn.implicates[0]) == len(df)
    independent = pd.DataFrame({c: df[c].sample(frac=1.0, random_state=i).to_numpy()
                                for i, c in enumerate(df.columns)})
    for x, y in [("v0", "v1"), ("v2", "v3")]:
        tv_lc = _tv(df, syn.implicates[0], x, y)
        assert tv_lc < 0.06 and tv_lc < 0.5 * _tv(df, independent, x, y)
    assert syn.provenance["replicated_uniques_left"] == [0, 0]
    assert syn.methods == {c: "latent_class" for c in df.columns}


def test_partial_synthesis_keeps_the_kept_columns_and_is_reproducible():
    df = _mixture(n=800)
    kw = dict(burn_in=60, thin=5, keep=["v0", "v1"])
    a = LatentClassSynthesizer(random_state=4, **kw).fit(df).sample()
    b = LatentClassSynthesizer(random_state=4, **kw).fit(df).sample()
    pd.testing.assert_frame_equal(a.implicates[0], b.implicates[0])
    out = a.implicates[0]
    pd.testing.assert_frame_equal(out[["v0", "v1"]], df[["v0", "v1"]])
    assert a.kind == "partial" and a.synthesized == ["v2", "v3"]
    # the synthesized columns follow the kept ones through the classes
    agree = (out["v2"] == out["v0"]).mean()
    assert agree > 0.45  # independent draws would agree a third of the time


def _replicated(df, syn):
    conf_counts, syn_counts = df.value_counts(), syn.value_counts()
    unique_conf = set(conf_counts[conf_counts == 1].index)
    return sum(1 for k, v in syn_counts.items() if v == 1 and k in unique_conf)


def test_replicated_uniques_are_redrawn():
    rng = np.random.default_rng(5)
    df = pd.DataFrame({c: rng.choice(list("abcde"), 400) for c in "xyz"})  # many uniques
    raw = LatentClassSynthesizer(burn_in=30, thin=2, max_redraws=0,
                                 random_state=2).fit(df).sample()
    safe = LatentClassSynthesizer(burn_in=30, thin=2, random_state=2).fit(df).sample()
    before = _replicated(df, raw.implicates[0])
    after = _replicated(df, safe.implicates[0])
    assert before > 0 and after < before
    assert after == safe.provenance["replicated_uniques_left"][0]
    assert before == raw.provenance["replicated_uniques_left"][0]


def test_bad_input_is_named():
    df = _mixture(n=100)
    with pytest.raises(NotFittedError):
        LatentClassSynthesizer().sample()
    with pytest.raises(DataError, match=r"'num'.*numtocat"):
        LatentClassSynthesizer(burn_in=1).fit(df.assign(num=np.linspace(0, 1, 100)))
    with pytest.raises(ParameterError, match="'n_classes'"):
        LatentClassSynthesizer(n_classes=1).fit(df)
    with pytest.raises(DataError, match="'zz'"):
        LatentClassSynthesizer(keep=["zz"], burn_in=1).fit(df)
