"""category_codes looks each distinct value up once: the codes equal looking up every row in
the levels (the definition), for text, numbers, categories, mixed objects and missing values."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthguard.utility._inputs import category_codes


def _by_rows(series, levels):
    lv = list(levels)
    index = pd.Index(lv, dtype="object")
    out = []
    for s in series:
        codes = index.get_indexer(s.astype("object").to_numpy()).astype(np.int64)
        codes[codes < 0] = len(lv)
        out.append(codes)
    return out


def _series(kind: int, n: int, rng: np.random.Generator) -> pd.Series:
    if kind == 0:
        return pd.Series(rng.choice(["a", "b", None], n))
    if kind == 1:
        return pd.Series(rng.choice(["a", "b", "c"], n)).astype("string[pyarrow]")
    if kind == 2:
        s = pd.Series(rng.integers(0, 4, n).astype(float))
        s[rng.random(n) < 0.2] = np.nan
        return s
    if kind == 3:
        return pd.Series(pd.Categorical(rng.choice(["x", "y", None], n),
                                        categories=["y", "x", "z"]))
    if kind == 4:
        return pd.Series(rng.choice(np.array([1, 1.0, True, "1", None, 2], dtype=object), n),
                         dtype=object)
    return pd.Series(rng.integers(0, 5, n))


@pytest.mark.parametrize("kind", range(6))
def test_category_codes_equal_looking_up_every_row(kind):
    rng = np.random.default_rng(kind)
    for _ in range(20):
        s = _series(kind, int(rng.integers(0, 300)), rng)
        series = [s, s.iloc[::-1].reset_index(drop=True)]
        for levels in (["a", "b"], [1, 2, "1"], [0.0, 1.0, 3.0], ["x", "z"], []):
            codes, n_levels, lv = category_codes(series, levels)
            assert n_levels == len(levels) + 1 and lv == levels
            for got, want in zip(codes, _by_rows(series, levels), strict=True):
                np.testing.assert_array_equal(got, want)
        codes, _, lv = category_codes(series, None)  # levels by first appearance
        for got, want in zip(codes, _by_rows(series, lv), strict=True):
            np.testing.assert_array_equal(got, want)
