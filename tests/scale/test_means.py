"""The comparison of means on Dask equals the pandas ``compare_statistics(..., ("mean",))``
table to rounding, whatever the partitioning, from per-partition sums."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from synthguard.errors import DataError, ParameterError
from synthguard.utility import blocks, compare_statistics

dd = pytest.importorskip("dask.dataframe")
means = pytest.importorskip("synthguard.utility._on_dask.means")

from tests.scale.conftest import perturbed, tied_frame  # noqa: E402

TEXT = ["statistic", "variable", "interval", "rule"]


def _data(n: int = 1200, seed: int = 9):
    conf = tied_frame(n, seed)
    rng = np.random.default_rng(seed)
    conf["big"] = rng.normal(1e6, 3.0, n)  # a large mean, a small spread: cancellation
    conf.loc[rng.random(n) < 0.1, "big"] = np.nan
    syn = [perturbed(conf, seed + 1), perturbed(conf, seed + 2), perturbed(conf, seed + 3)]
    syn[1]["big"] = syn[1]["big"] + rng.normal(0, 1, n)
    return conf, syn


def _same(got, expected):
    assert list(got.table.columns) == list(expected.table.columns)
    pd.testing.assert_frame_equal(got.table[TEXT], expected.table[TEXT])
    sums = ["conf_estimate", "conf_se", "conf_lower", "conf_upper", "syn_estimate"]
    np.testing.assert_allclose(got.table[sums].to_numpy(float),
                               expected.table[sums].to_numpy(float), rtol=1e-13)
    # what differences of means make (between-implicate variance, its degrees of freedom,
    # overlaps, standardized difference): a mean near 1e6 known to ~1e-10 either way, its
    # differences of ~0.1 to ~1e-9 relative, in both paths
    rest = [c for c in expected.table.columns if c not in TEXT and c not in sums]
    np.testing.assert_allclose(got.table[rest].to_numpy(float),
                               expected.table[rest].to_numpy(float), rtol=1e-7, atol=1e-8)
    assert got.mean_overlap == pytest.approx(expected.mean_overlap, rel=1e-9)
    assert got.level == expected.level


@pytest.mark.parametrize(("method", "m", "parts"), [
    ("partial", 3, (1, 1)), ("full", 3, (5, 3)), ("none", 1, (4, 7)), ("proper", 2, (2, 2)),
])
def test_means_equal_pandas_to_rounding(method, m, parts):
    conf, syn = _data()
    expected = compare_statistics(conf, syn[:m], ("mean",), method=method, random_state=0)
    got = means.compare_means(dd.from_pandas(conf, npartitions=parts[0]),
                              [dd.from_pandas(s, npartitions=parts[1]) for s in syn[:m]],
                              method=method)
    _same(got, expected)
    assert list(got.table["variable"]) == ["region", "income", "age", "big"]
    # the mean and its standard error, checked against the definition too
    x = conf["big"].dropna().to_numpy()
    row = got.table.set_index("variable").loc["big"]
    assert row["conf_estimate"] == pytest.approx(x.sum() / x.size, rel=1e-15)
    assert row["conf_se"] == pytest.approx(x.std(ddof=1) / np.sqrt(x.size), rel=1e-12)


def test_merging_partitions_is_chans_update():
    rng = np.random.default_rng(1)
    x = rng.normal(5e8, 2.0, 1000)
    parts = [blocks.partition_moments(pd.DataFrame({"x": p}), ["x"])
             for p in np.array_split(x, 7)]
    rows, acc = blocks.merge_moments(*parts)
    assert rows == 1000 and acc[0, 0] == 1000
    exact = [Fraction(v) for v in x.tolist()]
    mean = sum(exact) / len(exact)
    assert acc[0, 1] + acc[0, 2] / 1000 == pytest.approx(float(mean), rel=1e-16)
    # numpy's two-pass sum of squares to 1e-15; the naive update of sums would lose 1e-9 here
    assert acc[0, 3] == pytest.approx(float(sum((v - mean) ** 2 for v in exact)), rel=1e-13)
    empty = blocks.partition_moments(pd.DataFrame({"x": [np.nan]}), ["x"])
    assert np.array_equal(blocks.merge_moments(empty, *parts)[1], acc)


def test_bad_input():
    conf, syn = _data(50, 2)
    dconf = dd.from_pandas(conf, npartitions=2)
    with pytest.raises(ParameterError, match="method"):
        means.compare_means(dconf, syn[0], method="rubin")
    with pytest.raises(DataError, match="column 'sex': not a numeric column"):
        means.compare_means(dconf, syn[0], columns=["sex"])
    few = syn[0].assign(income=np.nan)
    with pytest.raises(DataError, match="fewer than 2 non-missing"):
        means.compare_means(dconf, few, columns=["income"])
