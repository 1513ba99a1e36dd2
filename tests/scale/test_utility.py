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
    got = scale_utility.ecdf_utility(
        dd.from_pandas(conf, npartitions=5),
        [dd.from_pandas(s, npartitions=2) for s in syn],
        "income",
    )
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
