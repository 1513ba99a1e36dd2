"""The synthesizer with the built-in methods (defaults: sample then cart) on the bundled data.

Tolerances come from sampling error: a synthetic mean pooled over implicates differs from the
confidential mean by about sd / sqrt(n) (a draw from the fitted conditional distributions
has the confidential variance), a standard deviation by about sd / sqrt(2 n), a share by
sqrt(p (1 - p) / n); we allow 4 of those standard errors.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthguard import load_dataset, synthesize
from synthguard.errors import ParameterError
from synthguard.synthesis import Synthesizer


@pytest.fixture(scope="module")
def penguins_release():
    df = load_dataset("penguins")
    return df, synthesize(df, m=3, random_state=20220301)


def test_defaults_are_sample_then_cart(penguins_release):
    df, res = penguins_release
    assert res.methods["species"] == "sample"
    assert set(list(res.methods.values())[1:]) == {"cart"}
    assert res.provenance["missingness_methods"]["bill_length_mm"] == "cart"
    for syn in res.implicates:
        assert syn.dtypes.to_dict() == df.dtypes.to_dict()
        for c in ["species", "island", "sex"]:
            assert set(syn[c].dropna()) <= set(df[c].dropna())


def test_penguins_moments_and_shares_within_sampling_error(penguins_release):
    df, res = penguins_release
    pooled = pd.concat(res.implicates, ignore_index=True)
    n = len(df)
    for c in ["bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g"]:
        sd = df[c].std()
        assert abs(pooled[c].mean() - df[c].mean()) < 4 * sd / np.sqrt(n), c
        assert abs(pooled[c].std() - sd) < 4 * sd / np.sqrt(2 * n), c
        p = df[c].isna().mean()
        assert abs(pooled[c].isna().mean() - p) < 4 * np.sqrt(max(p * (1 - p), 1 / n) / n), c
    for c in ["species", "island", "sex"]:
        conf = df[c].value_counts(normalize=True, dropna=False)
        syn = pooled[c].value_counts(normalize=True, dropna=False)
        for level, p in conf.items():
            got = syn.get(level, 0.0)
            assert abs(got - p) < 4 * np.sqrt(p * (1 - p) / n), (c, level)


def test_penguins_relationship_kept(penguins_release):
    # flipper length differs strongly by species (Gentoo ~ 217 mm vs Adelie ~ 190 mm)
    df, res = penguins_release
    conf = df.groupby("species")["flipper_length_mm"].mean()
    for syn in res.implicates:
        got = syn.groupby("species")["flipper_length_mm"].mean()
        assert (abs(got - conf) < 4).all()


def test_ce_partial_with_cart_keeps_columns_and_correlation():
    ce = load_dataset("ce")
    res = Synthesizer(keep=["UrbanRural", "Race", "KidsCount"], m=2,
                      random_state=7).fit(ce).sample()
    assert res.synthesized == ["Income", "Expenditure"]
    x, y = ce["Income"].to_numpy(), ce["Expenditure"].to_numpy()
    r_conf = np.corrcoef(x, y)[0, 1]
    # income and expenditure are heavy-tailed, so the normal-theory SE of r, (1 - r^2)/sqrt(n)
    # = 0.011, is too small; a bootstrap SE of r on the confidential data is the honest scale
    rng = np.random.default_rng(0)
    boot = [np.corrcoef(x[i], y[i])[0, 1] for i in rng.integers(0, len(x), (200, len(x)))]
    se = float(np.std(boot))
    rs = []
    for syn in res.implicates:
        pd.testing.assert_frame_equal(syn[res.kept], ce[res.kept])
        assert isinstance(syn["Race"].dtype, pd.CategoricalDtype)
        rs.append(np.corrcoef(syn["Income"], syn["Expenditure"])[0, 1])
    assert abs(np.mean(rs) - r_conf) < 4 * se
    leaves = res.diagnostics.columns
    assert leaves.loc["Expenditure", "n_leaves"] > 1


def test_strata_with_cart_on_ce():
    ce = load_dataset("ce")
    res = Synthesizer(strata="UrbanRural", keep=["Race"], random_state=1).fit(ce).sample()
    syn = res.implicates[0]
    pd.testing.assert_series_equal(syn["UrbanRural"], ce["UrbanRural"])
    assert res.provenance["n_strata"] == 2


def test_threads_do_not_change_the_result():
    df = load_dataset("penguins")
    a = Synthesizer(random_state=5).fit(df).sample()
    b = Synthesizer(random_state=5, n_jobs=2).fit(df).sample()
    pd.testing.assert_frame_equal(a.implicates[0], b.implicates[0])


def test_threads_over_strata_do_not_change_the_result():
    ce = load_dataset("ce")
    kw = {"strata": "UrbanRural", "keep": ["Race"], "random_state": 3}
    a = Synthesizer(**kw).fit(ce).sample(m=2)
    b = Synthesizer(n_jobs=2, **kw).fit(ce).sample(m=2)
    for x, y in zip(a.implicates, b.implicates):
        pd.testing.assert_frame_equal(x, y)
    # small strata allowed on purpose: this test is about threads, not stratum sizes
    full = {"strata": ["UrbanRural", "Race"], "n": 3000, "random_state": 4, "min_stratum_size": 0}
    a = Synthesizer(**full).fit(ce).sample()
    b = Synthesizer(n_jobs=2, **full).fit(ce).sample()
    pd.testing.assert_frame_equal(a.implicates[0], b.implicates[0])


def test_course_adelie_regression_through_the_synthesizer():
    # data README: Adelie rows with sex, bill and flipper present (146):
    # lm(bill_length_mm ~ sex) -> 37.2575, male 3.1329, residual SE 2.157 on 144 df
    df = load_dataset("penguins")
    adelie = df[df["species"].eq("Adelie")].dropna(
        subset=["sex", "bill_length_mm", "flipper_length_mm"]
    )
    assert len(adelie) == 146
    syn = Synthesizer(visit_sequence=["sex", "bill_length_mm"],
                      methods={"sex": "sample", "bill_length_mm": "norm"}).fit(adelie)
    norm = syn.blocks_[0].models[1].value.method
    np.testing.assert_allclose(norm.coef_, [37.2575, 3.1329], atol=5e-5)
    assert norm.sigma_ == pytest.approx(2.157, abs=5e-4)
    assert norm.df_resid_ == 144



def test_small_strata_are_refused_as_synthpop_does():
    ce = load_dataset("ce")
    # a continuous column as strata makes one-record strata: the release would copy the data;
    # one synthesized column -> synthpop's minimum 10 + 10 x 1 = 20
    with pytest.raises(ParameterError, match=r"strata 'Expenditure': \d+ of \d+ strata hold fewer than 20") as e:
        Synthesizer(strata="Expenditure", keep=["Race", "UrbanRural", "KidsCount"],
                    visit_sequence=["Income"], random_state=1).fit(ce)
    assert "min_stratum_size=0" in str(e.value)
    # UrbanRural x Race: stratum sizes counted by hand with pandas; 3 synthesized -> minimum 40
    sizes = ce.groupby(["UrbanRural", "Race"], observed=True).size()
    n_small = int((sizes < 40).sum())
    with pytest.raises(ParameterError, match=rf"{n_small} of {len(sizes)} strata hold fewer than 40"):
        Synthesizer(strata=["UrbanRural", "Race"], random_state=1).fit(ce)
    # allowed knowingly, and a custom minimum is applied as given
    Synthesizer(strata=["UrbanRural", "Race"], min_stratum_size=0, random_state=1).fit(ce)
    with pytest.raises(ParameterError, match="fewer than 400"):
        Synthesizer(strata="UrbanRural", min_stratum_size=400, random_state=1).fit(ce)
    with pytest.raises(ParameterError, match="min_stratum_size"):
        Synthesizer(strata="UrbanRural", min_stratum_size=-1, random_state=1).fit(ce)
