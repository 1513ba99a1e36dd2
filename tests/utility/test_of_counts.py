"""The value-counts entries of the univariate comparison and the ECDF utility give the pandas
functions' figures (brute force on random data with ties, zeros and missing values): counts,
shares, percentiles, U_m and U_a to the bit, moments to rounding."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthguard.data import ColumnSchema, Kind, infer_schema
from synthguard.data.counts import ValueCounts
from synthguard.errors import DataError
from synthguard.utility import ecdf_utility, univariate
from synthguard.utility.ecdf import ecdf_utility_of_counts
from synthguard.utility.univariate import univariate_of_counts

EXACT = ["n", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "share_zero",
         "share_missing"]


def _frame(n: int, rng: np.random.Generator, shift: int = 0) -> pd.DataFrame:
    df = pd.DataFrame({
        "grade": rng.choice(["a", "b", "c", None], n, p=[0.5, 0.3, 0.15, 0.05]),
        "region": rng.integers(0, 5 + shift, n),
        "income": np.round(rng.lognormal(8, 1, n), -2) * rng.choice([1.0, 0.0, -1.0], n,
                                                                     p=[0.8, 0.15, 0.05]),
        "age": rng.integers(18, 22, n).astype(float),
        "const": np.full(n, 0.1),
        "cat": pd.Categorical(rng.choice(["x", "y"], n), categories=["x", "y", "z"]),
    })
    df.loc[rng.random(n) < 0.1, "income"] = np.nan
    df.loc[rng.random(n) < 0.2, "age"] = np.nan
    return df


def _counts(df: pd.DataFrame) -> dict[str, ValueCounts]:
    return {c: ValueCounts.of(df[c]) for c in df.columns}


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_univariate_of_counts_equals_univariate(seed):
    rng = np.random.default_rng(seed)
    conf = _frame(int(rng.integers(5, 3000)), rng)
    syn = [_frame(int(rng.integers(5, 3000)), rng, shift=1) for _ in range(2)]
    schema = infer_schema(conf, overrides={"region": "categorical"})
    cols = list(conf.columns)
    expected = univariate(conf, syn, schema=schema, columns=cols)
    got = univariate_of_counts(_counts(conf), [_counts(s) for s in syn], schema=schema,
                               columns=cols)
    e, g = expected.numeric, got.numeric
    assert list(g.index) == list(e.index)
    exact = e.index.get_level_values("statistic").isin(EXACT)
    pd.testing.assert_frame_equal(g[exact], e[exact])
    np.testing.assert_allclose(g[~exact].to_numpy(), e[~exact].to_numpy(), rtol=1e-9,
                               atol=1e-12)
    assert np.isnan(g.loc[("const", "skewness"), "confidential"])  # m2 = 0, as pandas
    assert np.isnan(e.loc[("const", "skewness"), "confidential"])
    pd.testing.assert_frame_equal(got.categorical, expected.categorical)
    assert got.max_share_difference == expected.max_share_difference


def test_univariate_of_counts_takes_first_appearance_levels():
    rng = np.random.default_rng(4)
    conf, syn = _frame(300, rng), _frame(200, rng)
    schema = infer_schema(conf).with_column(ColumnSchema("grade", Kind.CATEGORICAL))
    assert schema["grade"].levels is None
    expected = univariate(conf, syn, schema=schema, columns=["grade"])
    first = list(dict.fromkeys([*conf["grade"].dropna(), *syn["grade"].dropna()]))
    got = univariate_of_counts(_counts(conf), [_counts(syn)], schema=schema,
                               columns=["grade"], levels={"grade": first})
    pd.testing.assert_frame_equal(got.categorical, expected.categorical)
    with pytest.raises(DataError, match="'grade'"):
        univariate_of_counts(_counts(conf), [_counts(syn)], schema=schema, columns=["grade"])


@pytest.mark.parametrize("seed", range(6))
def test_ecdf_utility_of_counts_equals_ecdf_utility_to_the_bit(seed):
    rng = np.random.default_rng(10 + seed)
    n = int(rng.integers(1, 20_000))
    conf = pd.Series(np.round(rng.normal(0, 3, n), int(rng.integers(0, 3))))
    conf[rng.random(n) < 0.05] = np.nan
    conf.iloc[0] = 0.5
    syn = []
    for _ in range(int(rng.integers(1, 4))):
        m = int(rng.integers(1, 20_000))
        s = pd.Series(np.round(rng.normal(0.3, 3, m), int(rng.integers(0, 3))))
        s[rng.random(m) < 0.03] = np.nan
        s.iloc[0] = 0.5
        syn.append(s)
    expected = ecdf_utility(conf, syn)
    got = ecdf_utility_of_counts(ValueCounts.of(conf), [ValueCounts.of(s) for s in syn])
    assert got == expected


def test_ecdf_utility_of_counts_refuses_empty_sides():
    empty = ValueCounts.of(pd.Series([np.nan, np.nan]))
    full = ValueCounts.of(pd.Series([1.0, 2.0]))
    with pytest.raises(DataError, match="conf_values"):
        ecdf_utility_of_counts(empty, [full])
    with pytest.raises(DataError, match=r"synthetic_values\[0\]"):
        ecdf_utility_of_counts(full, [empty])
