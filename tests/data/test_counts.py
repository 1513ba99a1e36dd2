"""A column as its value counts: numpy's pairwise sum and quantiles of the multiset, to the bit,
and the schema inferred from counts equal to the schema of the data (brute force on random
data with ties and missing values)."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from synthguard.data import infer_schema
from synthguard.data.counts import (
    ValueCounts,
    order_statistic,
    quantiles_from_counts,
    sum_of_runs,
)
from synthguard.data.schema import infer_schema_from_counts
from synthguard.errors import SchemaError


def _same_float(a: float, b: float) -> bool:
    return (a == b and np.signbit(a) == np.signbit(b)) or (np.isnan(a) and np.isnan(b))


@pytest.mark.parametrize("shape", ["short", "long", "geometric", "mixed"])
def test_sum_of_runs_is_numpys_pairwise_sum_to_the_bit(shape):
    rng = np.random.default_rng({"short": 1, "long": 2, "geometric": 3, "mixed": 4}[shape])
    for _ in range(150):
        k = int(rng.integers(1, 80))
        values = rng.normal(size=k) * 10.0 ** rng.integers(-6, 7, k)
        if shape == "short":
            lengths = rng.integers(0, 6, k)
        elif shape == "long":
            lengths = rng.integers(100, 3000, k)
        elif shape == "geometric":
            lengths = rng.geometric(2e-4, k)
        else:
            lengths = np.where(rng.random(k) < 0.5, rng.integers(0, 9, k),
                               rng.integers(120, 20_000, k))
        expanded = np.repeat(values, lengths)
        assert _same_float(sum_of_runs(values, lengths), float(np.add.reduce(expanded)))
        if expanded.size:
            assert sum_of_runs(values, lengths) / expanded.size == np.mean(expanded)


def test_sum_of_runs_edge_cases():
    assert sum_of_runs(np.array([]), np.array([], dtype=np.int64)) == 0.0
    assert sum_of_runs(np.array([2.5]), np.array([0])) == 0.0
    for n in (1, 7, 8, 9, 127, 128, 129, 136, 8192, 8193, 100_003):
        for v in (0.1, -0.0, 1e300, 3.0):
            want = np.add.reduce(np.full(n, v))
            assert _same_float(sum_of_runs(np.array([v]), np.array([n])), float(want))
    # one value per run: the plain pairwise sum
    x = np.random.default_rng(5).random(10_001)
    assert sum_of_runs(x, np.ones(x.size, dtype=np.int64)) == np.sum(x)


def test_quantiles_and_order_statistics_from_counts_are_numpys():
    rng = np.random.default_rng(6)
    q = np.array([0, 0.01, 0.1, 0.25, 0.333, 0.5, 0.75, 0.9, 0.99, 1.0])
    for _ in range(100):
        x = np.round(rng.normal(size=int(rng.integers(1, 400))), int(rng.integers(0, 3)))
        values, counts = np.unique(x, return_counts=True)
        np.testing.assert_array_equal(quantiles_from_counts(values, counts, q),
                                      np.quantile(x, q))
        srt = np.sort(x)
        for k in (0, x.size // 2, x.size - 1):
            assert order_statistic(values, counts, k) == srt[k]


def _frame(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({
        "text": rng.choice(["a", "b", "c", None], n),
        "two": rng.choice(["yes", "no"], n),
        "num": np.round(rng.normal(50, 10, n), 1),
        "count": rng.integers(0, 6, n),
        "neg": rng.integers(-3, 3, n),
        "flag": rng.integers(0, 2, n),
        "fflag": rng.integers(0, 2, n).astype(float),
        "cat": pd.Categorical(rng.choice(["x", "y", "z"], n), categories=["x", "y", "z", "w"]),
        "ord": pd.Categorical(rng.choice(["lo", "hi"], n), categories=["lo", "hi"],
                              ordered=True),
        "bool": rng.random(n) < 0.3,
        "PersonID": rng.permutation(n) + 1,
        "serial": np.arange(n) * 1.0,
        "name": [f"person {i}" for i in rng.permutation(n)],
        "hh_id": rng.integers(0, max(2, n // 3), n),
        "const": np.full(n, 7.5),
    })
    df.loc[rng.random(n) < 0.1, "num"] = np.nan
    df.loc[rng.random(n) < 0.05, "fflag"] = np.nan
    df.loc[rng.random(n) < 0.05, "cat"] = np.nan
    df["numtext"] = [str(v) for v in rng.integers(0, 9, n)]
    df.loc[rng.random(n) < 0.04, "numtext"] = "n/a"
    return df


def _counts_of_parts(df: pd.DataFrame, parts: int) -> dict[str, ValueCounts]:
    """Each column's counts summed over row blocks in shuffled order, as a cluster would
    deliver them (the order of the distinct values differs from the data's)."""
    out = {}
    for c in df.columns:
        shuffled = df[c].sample(frac=1.0, random_state=1)
        cuts = np.linspace(0, len(df), parts + 1).astype(int)
        chunks = [shuffled.iloc[a:b] for a, b in itertools.pairwise(cuts)]
        total = pd.concat([ch.value_counts(dropna=False) for ch in chunks])
        total = total.groupby(level=0, dropna=False, sort=False, observed=False).sum()
        values = pd.Series(total.index, name=c).astype(df[c].dtype)
        out[c] = ValueCounts(values, total.to_numpy(dtype=np.int64))
    return out


@pytest.mark.parametrize("n,seed", [(30, 1), (400, 2), (3000, 3)])
def test_schema_from_counts_equals_the_schema_of_the_data(n, seed):
    df = _frame(n, seed)
    assert infer_schema_from_counts(_counts_of_parts(df, 3)) == infer_schema(df)
    assert infer_schema_from_counts({c: ValueCounts.of(df[c]) for c in df}) == infer_schema(df)
    overrides = {"count": "categorical", "neg": {"kind": "numeric", "lower": -5},
                 "PersonID": "count", "hh_id": "identifier", "text": "categorical",
                 "numtext": "count"}
    bad = {"numtext": "count"}
    with pytest.raises(SchemaError) as want:
        infer_schema(df, overrides=bad)
    with pytest.raises(SchemaError) as got:
        infer_schema_from_counts(_counts_of_parts(df, 2), overrides=bad)
    assert got.value.problems == want.value.problems  # the same row count in the message
    del overrides["numtext"]
    assert (infer_schema_from_counts(_counts_of_parts(df, 4), overrides=overrides)
            == infer_schema(df, overrides=overrides))


def test_value_counts_of_a_series_keep_the_dtype_and_the_multiset():
    df = _frame(500, 9)
    for c in df.columns:
        vc = ValueCounts.of(df[c])
        assert vc.dtype == df[c].dtype and vc.n == len(df)
        assert (vc.counts > 0).all() and vc.values.name == c
        back = vc.expand()
        pd.testing.assert_series_equal(
            back.value_counts(dropna=False).sort_index(),
            df[c].value_counts(dropna=False).sort_index(), check_names=False)
        assert vc.n_missing == int(df[c].isna().sum())
