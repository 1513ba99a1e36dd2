"""Utility on Dask: counts, shares, percentiles and ECDF distances equal the pandas figures
exactly (values rebuilt from exact value counts); moments and correlations to rounding; pMSE on
a reproducible sample."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthguard import utility
from synthguard.data import infer_schema
from synthguard.utility.correlation import cramers_v_of_table

dd = pytest.importorskip("dask.dataframe")
scale_utility = pytest.importorskip("synthguard.scale.utility")
from synthguard._dask import counts as _counts  # noqa: E402
from tests.scale.conftest import perturbed, tied_frame  # noqa: E402

EXACT = [
    "n",
    "p1",
    "p5",
    "p10",
    "p25",
    "p50",
    "p75",
    "p90",
    "p95",
    "p99",
    "share_zero",
    "share_missing",
]


def _data():
    conf = tied_frame(1500, 60)
    syn = [perturbed(conf, 61), perturbed(conf, 62)]
    return conf, syn


def test_univariate_equals_pandas():
    conf, syn = _data()
    cols = ["sex", "region", "income"]
    expected = utility.univariate(conf, syn, columns=cols)
    got = scale_utility.univariate(
        dd.from_pandas(conf, npartitions=4),
        [dd.from_pandas(s, npartitions=3) for s in syn],
        columns=cols,
    )
    e, g = expected.numeric, got.numeric
    assert list(g.index) == list(e.index)
    exact = e.index.get_level_values("statistic").isin(EXACT)
    pd.testing.assert_frame_equal(g[exact], e[exact])
    np.testing.assert_allclose(g[~exact].to_numpy(), e[~exact].to_numpy(), rtol=1e-10)
    pd.testing.assert_frame_equal(got.categorical, expected.categorical)
    assert got.max_share_difference == expected.max_share_difference


def test_ecdf_equals_pandas_exactly():
    conf, syn = _data()
    expected = utility.ecdf_utility(conf["income"], [s["income"] for s in syn])
    dsyn = [dd.from_pandas(s, npartitions=2) for s in syn]
    got = scale_utility.ecdf_utility(dd.from_pandas(conf, npartitions=5)["income"],
                                     [s["income"] for s in dsyn])
    assert got == expected
    assert got.u_max > 0 and got.n_missing_conf == 0


def test_correlation_fit_equals_pandas_to_rounding():
    conf, syn = _data()
    cols = ["region", "income", "age"]
    expected = utility.correlation_fit(conf, syn, columns=cols)
    got = scale_utility.correlation_fit(
        dd.from_pandas(conf, npartitions=3),
        [dd.from_pandas(s, npartitions=4) for s in syn],
        columns=cols,
    )
    assert got.mae == pytest.approx(expected.mae, rel=1e-9) and got.mae > 0
    assert got.rmse == pytest.approx(expected.rmse, rel=1e-9)
    np.testing.assert_allclose(
        got.difference.to_numpy(), expected.difference.to_numpy(), rtol=1e-9, atol=1e-12
    )


def _categorical_data():
    conf, syn = _data()
    rng = np.random.default_rng(70)
    for f in [conf, *syn]:
        f["flag"] = rng.integers(0, 2, len(f))  # 0/1 numbers: binary, compared by Cramér's V
        f["grade"] = rng.choice(["a", "b", "c", None], len(f), p=[0.5, 0.3, 0.15, 0.05])
    conf["grade"] = np.where(conf["sex"].isna(), None, conf["grade"])  # associated with sex
    syn[1].loc[::9, "grade"] = "d"  # a level only this implicate has
    return conf, syn


@pytest.mark.parametrize("declared", [False, True])
def test_cramers_v_equals_pandas_bit_for_bit(declared):
    conf, syn = _categorical_data()
    schema = infer_schema(conf, overrides={"grade": {"kind": "categorical",
                                                      "levels": ["a", "b"]}} if declared
                          else None)
    expected = utility.correlation_fit(conf, syn, schema=schema)
    got = scale_utility.correlation_fit(
        dd.from_pandas(conf, npartitions=3),
        [dd.from_pandas(s, npartitions=4) for s in syn],
        schema=schema,
    )
    assert expected.cramers_v_difference is not None
    assert list(got.cramers_v_difference.columns) == ["sex", "flag", "grade"]
    pd.testing.assert_frame_equal(got.cramers_v_difference, expected.cramers_v_difference)
    assert got.cramers_v_mae == expected.cramers_v_mae > 0
    # the numeric columns by Pearson, as pandas splits them (flag is not among them)
    assert list(got.difference.columns) == ["region", "income", "age"]
    assert got.mae == pytest.approx(expected.mae, rel=1e-9)
    pd.testing.assert_series_equal(got.implicates["cramers_v_mae"],
                                   expected.implicates["cramers_v_mae"])


def test_cramers_v_of_table_is_the_definition():
    tab = np.array([[10, 0, 5], [2, 8, 5], [0, 0, 0]])
    kept = tab[:2].astype(float)
    n = kept.sum()
    e = np.outer(kept.sum(1), kept.sum(0)) / n
    chi2 = ((kept - e) ** 2 / e).sum()
    assert cramers_v_of_table(tab) == pytest.approx(np.sqrt(chi2 / n), rel=1e-15)
    assert np.isnan(cramers_v_of_table(np.array([[3, 4], [0, 0]])))


def test_pmse_sample_is_reproducible_and_its_null_is_the_samples():
    conf, syn = _data()
    d, s = dd.from_pandas(conf, npartitions=3), dd.from_pandas(syn[0], npartitions=3)
    cols = ["sex", "region", "income"]
    a = scale_utility.pmse(d, s, sample_size=600, random_state=5, columns=cols)
    b = scale_utility.pmse(d, s, sample_size=600, random_state=5, columns=cols)
    c = scale_utility.pmse(d, s, sample_size=600, random_state=6, columns=cols)
    assert a.pmse == b.pmse and a.pmse != c.pmse
    # the whole data when the sample would be larger: the pandas figure itself
    full = scale_utility.pmse(d, s, sample_size=10_000, random_state=5, columns=cols)
    assert full.pmse == utility.pmse(conf, syn[0], columns=cols, random_state=5).pmse


def _random_frame(n: int, seed: int) -> pd.DataFrame:
    """Ties, zeros, missing values, text, categories and numbers."""
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({
        "grade": rng.choice(["a", "b", "c", None], n, p=[0.5, 0.3, 0.15, 0.05]),
        "region": rng.integers(0, 7, n),
        "kind": pd.Categorical(rng.choice(["x", "y"], n), categories=["x", "y", "z"]),
        "income": np.round(rng.lognormal(8, 1, n), -2) * rng.choice([1.0, 0.0], n),
        "age": rng.integers(18, 60, n).astype(float),
        "score": np.round(rng.normal(0, 1, n), 2),
    })
    df.loc[rng.random(n) < 0.1, "income"] = np.nan
    df.loc[rng.random(n) < 0.02, "age"] = np.nan
    return df


@pytest.mark.parametrize("seed", [3, 4])
def test_univariate_ecdf_and_schema_of_random_data_equal_pandas(seed):
    conf = _random_frame(2500, seed)
    syn = [_random_frame(1800, seed + 10), _random_frame(2100, seed + 20)]
    dconf = dd.from_pandas(conf, npartitions=4)
    dsyn = [dd.from_pandas(s, npartitions=3) for s in syn]
    schema = _counts.exact_schema(dconf)
    assert schema == infer_schema(conf)
    expected = utility.univariate(conf, syn, schema=schema)
    got = scale_utility.univariate(dconf, dsyn, schema=schema)
    e, g = expected.numeric, got.numeric
    exact = e.index.get_level_values("statistic").isin(EXACT)
    pd.testing.assert_frame_equal(g[exact], e[exact])
    np.testing.assert_allclose(g[~exact].to_numpy(), e[~exact].to_numpy(), rtol=1e-10)
    pd.testing.assert_frame_equal(got.categorical, expected.categorical)
    for col in ["income", "age", "score", "region"]:
        want = utility.ecdf_utility(conf[col], [s[col] for s in syn])
        assert scale_utility.ecdf_utility(dconf[col], [s[col] for s in dsyn]) == want


def test_univariate_levels_in_order_of_first_appearance_as_pandas():
    from synthguard.data import ColumnSchema, Kind

    conf, syn = _random_frame(600, 5), _random_frame(500, 6)
    syn.loc[3, "grade"] = "new"  # a level only the release shows
    schema = infer_schema(conf).with_column(ColumnSchema("grade", Kind.CATEGORICAL))
    expected = utility.univariate(conf, syn, schema=schema, columns=["grade", "region"])
    got = scale_utility.univariate(dd.from_pandas(conf, npartitions=3),
                                   dd.from_pandas(syn, npartitions=2), schema=schema,
                                   columns=["grade", "region"])
    pd.testing.assert_frame_equal(got.categorical, expected.categorical)
    first = list(dict.fromkeys([*conf["grade"].dropna(), *syn["grade"].dropna()]))
    assert list(got.categorical.loc["grade"].index) == [*first, "<missing>"]
    assert first != sorted(first)  # not the sorted order the counts come in


def test_the_client_holds_the_distinct_values_never_the_records():
    """With the counts computed (by the workers; here beforehand), the univariate comparison,
    the ECDF utility and the schema allocate on the client memory bounded by the distinct
    values: far below one float per record. Expanding the counts (what the measures did
    before) is caught by the same probe."""
    import tracemalloc

    n = 800_000
    rng = np.random.default_rng(7)
    conf = pd.DataFrame({"age": rng.integers(18, 90, n).astype(float),
                         "sex": rng.choice(["f", "m", None], n),
                         "kids": rng.poisson(1.1, n)})
    syn = conf.sample(frac=1.0, random_state=1).reset_index(drop=True)
    dconf, dsyn = dd.from_pandas(conf, npartitions=4), dd.from_pandas(syn, npartitions=4)
    record_bytes = 8 * n  # one float64 per record

    def peak(fn):
        tracemalloc.start()
        try:
            fn()
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    with _counts.shared_value_counts():
        _counts.value_counts([(f, c) for f in (dconf, dsyn) for c in conf.columns])
        schema = _counts.exact_schema(dconf)
        assert peak(lambda: _counts.exact_schema(dconf)) < record_bytes / 8
        assert peak(lambda: scale_utility.univariate(dconf, dsyn, schema=schema)) < (
            record_bytes / 8)
        assert peak(lambda: scale_utility.ecdf_utility(dconf["age"], [dsyn["age"]])) < (
            record_bytes / 8)
        assert peak(lambda: _counts.value_sorted([dconf], "age")) > record_bytes
    got = scale_utility.univariate(dconf, dsyn, schema=schema)
    assert got.numeric.loc[("age", "n"), "confidential"] == n
