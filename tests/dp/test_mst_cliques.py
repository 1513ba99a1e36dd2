"""MST with user-chosen 1-, 2- and 3-way marginals (course §8.5.5, the NIST entry; issue 36)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthguard.dp import PrivacyLedger
from synthguard.dp.conversion import epsilon_to_rho
from synthguard.dp.synthesizers import MSTSynthesizer
from synthguard.errors import ParameterError

pytestmark = pytest.mark.filterwarnings(
    "ignore:seeded numpy noise:synthguard.errors.PrivacyWarning")

CATS = {"a": [0, 1], "b": [0, 1], "c": [0, 1], "d": [0, 1, 2]}


def _xor_data(n: int = 4000, seed: int = 0) -> pd.DataFrame:
    """c = a XOR b (90 % of rows): every pair is independent, the triple is not."""
    rng = np.random.default_rng(seed)
    a, b = rng.integers(0, 2, n), rng.integers(0, 2, n)
    flip = rng.random(n) < 0.1
    c = np.where(flip, 1 - (a ^ b), a ^ b)
    return pd.DataFrame({"a": a, "b": b, "c": c, "d": rng.integers(0, 3, n)})


def _tv3(df: pd.DataFrame, rel: pd.DataFrame) -> float:
    """Total-variation distance between the (a, b, c) tables of two frames."""
    p = df.groupby(["a", "b", "c"]).size() / len(df)
    q = rel.astype(int).groupby(["a", "b", "c"]).size() / len(rel)
    return 0.5 * float(p.sub(q, fill_value=0.0).abs().sum())


def _fit(seed: int, **kw):
    return MSTSynthesizer(epsilon=2.0, delta=1e-6, categories=CATS, iters=300,
                          random_state=seed, **kw).fit(_xor_data())


def test_ledger_charged_exactly_the_budget_as_rho():
    ledger = PrivacyLedger(epsilon=2.0, delta=1e-6)
    syn = MSTSynthesizer(epsilon=2.0, delta=1e-6, categories=CATS, iters=100,
                         cliques=[("a", "b", "c")], ledger=ledger, random_state=1)
    syn.fit(_xor_data())
    rho = epsilon_to_rho(2.0, 1e-6)
    assert syn.rho_ == pytest.approx(rho)
    assert ledger.spent.rho == pytest.approx(rho)
    assert ledger.spent.epsilon == pytest.approx(2.0)
    # ρ/2 over the 4 one-way marginals and ρ/2 over the one chosen clique: Σ 1/(2σ²) = ρ
    s1, sc = syn.sigmas_
    assert 4 / (2 * s1**2) + 1 / (2 * sc**2) == pytest.approx(rho)


def test_three_way_clique_kept_better_than_the_tree():
    df = _xor_data()
    tree = _fit(3).sample(random_state=5).implicates[0]
    chosen = _fit(3, cliques=[("a", "b", "c"), ("c", "d")]).sample(random_state=5).implicates[0]
    # a tree of pairs makes (a, b, c) nearly independent (TV ≈ 0.4 from the XOR table)
    assert _tv3(df, tree) > 0.25
    assert _tv3(df, chosen) < 0.05


def test_seeds_reproduce_and_provenance_names_the_cliques():
    r1 = _fit(7, cliques=[("a", "b", "c")]).sample(m=2, random_state=4)
    r2 = _fit(7, cliques=[("a", "b", "c")]).sample(m=2, random_state=4)
    for x, y in zip(r1.implicates, r2.implicates):
        pd.testing.assert_frame_equal(x, y)
    assert r1.provenance["cliques"] == [["a", "b", "c"]]


def test_bad_cliques_refused_before_any_charge():
    ledger = PrivacyLedger(epsilon=2.0, delta=1e-6)
    for bad in ([("a", "zz")], [("a",)], "abc", []):
        with pytest.raises(ParameterError, match="cliques"):
            MSTSynthesizer(epsilon=2.0, delta=1e-6, categories=CATS, cliques=bad,
                           ledger=ledger, random_state=1).fit(_xor_data(200))
    assert ledger.spent.rho == 0.0
