"""DP synthesizers: stratified (seed 003), DPFieldGroups and MST."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from synthguard.data import as_implicates
from synthguard.data.schema import ColumnSchema, Kind, Schema
from synthguard.dp import PrivacyLedger
from synthguard.dp.synthesizers import (
    DPSyntheticData,
    FieldGroupsSynthesizer,
    MSTSynthesizer,
    StratifiedSynthesizer,
)
from synthguard.errors import (
    DataError,
    NotFittedError,
    ParameterError,
    PrivacyBudgetError,
    PrivacyWarning,
)

pytestmark = pytest.mark.filterwarnings("ignore:seeded numpy noise:synthguard.errors.PrivacyWarning")


def _data(n: int = 3000, seed: int = 0) -> tuple[pd.DataFrame, dict[str, list[str]]]:
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 3, n)
    b = (a + rng.integers(0, 2, n)) % 4
    c = (b > 1).astype(int) ^ (rng.random(n) < 0.1)
    d = rng.integers(0, 4, n)
    e = (d + (rng.random(n) < 0.2)) % 3
    df = pd.DataFrame({"a": a, "b": b, "c": c, "d": d, "e": e}).astype(str)
    # public levels include one that never occurs in the data
    cats = {"a": ["0", "1", "2", "9"], "b": ["0", "1", "2", "3"], "c": ["0", "1"],
            "d": ["0", "1", "2", "3"], "e": ["0", "1", "2"]}
    return df, cats


def _tv2(x: pd.DataFrame, y: pd.DataFrame, cats: dict[str, list[str]]) -> float:
    errs = []
    for u, v in itertools.combinations(cats, 2):
        px = pd.crosstab(x[u], x[v], normalize=True).reindex(index=cats[u], columns=cats[v],
                                                              fill_value=0)
        py = pd.crosstab(y[u], y[v], normalize=True).reindex(index=cats[u], columns=cats[v],
                                                              fill_value=0)
        errs.append(0.5 * (px - py).abs().to_numpy().sum())
    return float(np.mean(errs))


def test_stratified_noises_every_cell_including_empty_ones():
    df, cats = _data()
    syn = StratifiedSynthesizer(epsilon=1.0, categories=cats, random_state=1).fit(df)
    n_cells = int(np.prod([len(v) for v in cats.values()]))
    assert syn.n_noised_cells_ == n_cells == 4 * 4 * 2 * 4 * 3
    true = df.groupby(list(cats)).size()
    empty = n_cells - true.size
    assert empty > 0
    # an empty cell's noisy count is pure Laplace noise: nonzero almost surely
    table = syn.noisy_table()
    assert len(table) == n_cells
    merged = table.merge(true.rename("n").reset_index(), on=list(cats), how="left").fillna(0)
    noise = merged["noisy_count"] - merged["n"]
    assert (noise[merged["n"] == 0] != 0).all()
    assert abs(noise.var() / 2.0 - 1) < 0.5  # Laplace(1/ε): variance 2
    release = syn.sample(n=5000, random_state=2)
    out = as_implicates(release)[0]
    assert len(out) == 5000
    for c, lv in cats.items():
        assert set(out[c]) <= set(lv)
    assert syn.ledger_.spent.epsilon == 1.0


def test_stratified_is_reproducible_and_accurate_at_large_epsilon():
    df, cats = _data()
    r1 = StratifiedSynthesizer(epsilon=50.0, categories=cats, random_state=3).fit_sample(
        df, random_state=4)
    r2 = StratifiedSynthesizer(epsilon=50.0, categories=cats, random_state=3).fit_sample(
        df, random_state=4)
    pd.testing.assert_frame_equal(r1.implicates[0], r2.implicates[0])
    assert isinstance(r1, DPSyntheticData) and r1.noise.startswith("numpy")
    assert abs(len(r1.implicates[0]) - len(df)) < 50  # default n: the noisy total
    assert _tv2(df, r1.implicates[0], cats) < 0.05


def test_stratified_target_variant_keeps_strata_and_warns():
    df, cats = _data()
    syn = StratifiedSynthesizer(epsilon=1.0, categories=cats, target="c", random_state=5)
    with pytest.warns(PrivacyWarning, match="stratum sizes"):
        syn.fit(df)
    out = syn.sample(random_state=6).implicates[0]
    strata = ["a", "b", "d", "e"]
    true_sizes = df.groupby(strata).size()
    syn_sizes = out.groupby(strata).size()
    pd.testing.assert_series_equal(true_sizes, syn_sizes.reindex(true_sizes.index),
                                   check_dtype=False)
    assert syn.probabilities_.shape == (4 * 4 * 4 * 3, 2)
    np.testing.assert_allclose(syn.probabilities_.sum(axis=1), 1.0)


def test_refused_fit_draws_no_noise_and_stays_unfitted():
    df, cats = _data()
    ledger = PrivacyLedger(epsilon=0.5)
    rng = np.random.default_rng(9)
    before = rng.bit_generator.state
    syn = StratifiedSynthesizer(epsilon=1.0, categories=cats, ledger=ledger, random_state=rng)
    with pytest.raises(PrivacyBudgetError):
        syn.fit(df)
    assert rng.bit_generator.state == before
    with pytest.raises(NotFittedError):
        syn.sample()


def test_levels_read_from_data_need_not_dp_and_numeric_needs_public_bins():
    df, cats = _data(500)
    with pytest.raises(ParameterError, match="domain_from_data='not-dp'"):
        StratifiedSynthesizer(epsilon=1.0, random_state=0).fit(df)
    with pytest.warns(PrivacyWarning, match="NOT differentially private"):
        StratifiedSynthesizer(epsilon=1.0, domain_from_data="not-dp", random_state=0).fit(df)
    num = pd.DataFrame({"x": np.random.default_rng(0).uniform(0, 10, 200), "a": df["a"][:200]})
    with pytest.raises(ParameterError, match="public"):
        StratifiedSynthesizer(epsilon=1.0, categories={"a": cats["a"]}, random_state=0).fit(num)
    syn = StratifiedSynthesizer(epsilon=5.0, categories={"a": cats["a"]},
                                bins={"x": [0, 2.5, 5, 7.5, 10]}, random_state=0).fit(num)
    out = syn.sample(n=300, random_state=1).implicates[0]
    assert out["x"].between(0, 10).all() and out["x"].dtype.kind == "f"
    sch = Schema({"x": ColumnSchema("x", Kind.NUMERIC, lower=0.0, upper=10.0),
                  "a": ColumnSchema("a", Kind.CATEGORICAL, tuple(cats["a"]))})
    with pytest.raises(ParameterError, match="not a declaration"):
        StratifiedSynthesizer(epsilon=5.0, schema=sch, n_bins=5, random_state=0).fit(num)
    with pytest.warns(PrivacyWarning, match="NOT differentially private"):
        syn = StratifiedSynthesizer(epsilon=5.0, schema=sch, n_bins=5, domain_from_data="not-dp",
                                    random_state=0).fit(num)
    assert syn.n_noised_cells_ == 5 * 4
    with pytest.raises(DataError, match="missing"):
        StratifiedSynthesizer(epsilon=1.0, categories={"a": cats["a"]}, random_state=0).fit(
            pd.DataFrame({"a": ["0", None, "1"]}))


def test_fieldgroups_thresholds_and_ledger():
    df, cats = _data()
    ledger = PrivacyLedger(epsilon=2.0)
    syn = FieldGroupsSynthesizer(epsilon=1.0, groups=[["a", "b", "c"], ["d", "e"]],
                                 categories=cats, ledger=ledger, random_state=7).fit(df)
    assert ledger.spent.epsilon == pytest.approx(1.0)
    assert syn.group_epsilons_ == [0.5, 0.5]
    # τ = b·log10(cells), b = 1/ε_g
    assert syn.thresholds_[0] == pytest.approx(2.0 * np.log10(32))
    assert syn.thresholds_[1] == pytest.approx(2.0 * np.log10(12))
    for t, tau in zip(syn.noisy_tables_, syn.thresholds_):
        assert np.all((t == 0) | (t >= tau))
    out = syn.sample(n=1000, random_state=8).implicates[0]
    assert list(out.columns) == list(cats) and len(out) == 1000
    with pytest.raises(ParameterError, match="disjoint"):
        FieldGroupsSynthesizer(epsilon=1.0, groups=[["a"], ["a", "b"]], categories=cats,
                               random_state=0).fit(df)


def test_mst_improves_with_epsilon():
    df, cats = _data(2000)
    errors = {}
    for eps in (0.1, 10.0):
        syn = MSTSynthesizer(epsilon=eps, delta=1e-6, categories=cats, iters=1000,
                             random_state=11)
        release = syn.fit_sample(df, n=4000, random_state=12)
        out = as_implicates(release)[0]
        assert len(out) == 4000
        for c, lv in cats.items():
            assert set(out[c]) <= set(lv)
        assert len(syn.edges_) == len(cats) - 1
        errors[eps] = _tv2(df, out, cats)
    assert errors[10.0] < errors[0.1]
    assert errors[10.0] < 0.06
    assert release.provenance["rho"] > 0
    with pytest.raises(ParameterError, match="delta"):
        MSTSynthesizer(epsilon=1.0, delta=0.0, categories=cats).fit(df)


def test_mst_refuses_numeric_without_public_bins_before_charging():
    df, cats = _data(300)
    df["income"] = np.random.default_rng(0).lognormal(10, 1, len(df))
    ledger = PrivacyLedger(epsilon=1.0, delta=1e-5)
    with pytest.raises(ParameterError, match=r"no public levels declared for column.s. income"):
        MSTSynthesizer(epsilon=1.0, delta=1e-6, categories=cats, ledger=ledger).fit(df)
    assert ledger.spent.epsilon == 0.0
