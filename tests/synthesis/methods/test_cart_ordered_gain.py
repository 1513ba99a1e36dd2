"""CART's split gains for a class target on an ordered predictor, from cumulative sums over
the records instead of the values-by-classes table: the same numbers, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

from synthguard.synthesis.methods._tree import _Grower


def _table_gain(x: np.ndarray, y: np.ndarray, n_classes: int):
    """The table formula: per value, class counts; gains of every threshold."""
    values = np.unique(x)
    tab = np.array([np.bincount(y[x == v], minlength=n_classes) for v in values], dtype=float)
    cnt = tab.sum(1).astype(np.int64)
    cl = np.cumsum(cnt)[:-1]
    cum = np.cumsum(tab, axis=0)[:-1]
    right = tab.sum(0) - cum
    gain = (cum * cum).sum(1) / cl + (right * right).sum(1) / (len(y) - cl)
    gain -= (tab.sum(0) @ tab.sum(0)) / len(y)
    return values, cnt, gain


@pytest.mark.parametrize("seed", range(3))
def test_ordered_class_gain_is_the_tables_bit_for_bit(seed):
    rng = np.random.default_rng(seed)
    n, n_classes = 700, 9
    x = rng.integers(0, 250, n).astype(float)  # ties: several records per value
    y = (rng.integers(0, n_classes, n) + (x > 120)) % n_classes
    g = _Grower(x[:, None], y.astype(np.int64), np.array([0]), n_classes, min_leaf=5,
                min_split=15, max_depth=None, cp=0.0, exact_min=0)
    idx = np.sort(rng.choice(n, 500, replace=False))  # a node: some of the records
    present, cnt, gain = g._ordered_class_gain(0, idx, g.y_int[idx])
    values, want_cnt, want_gain = _table_gain(x[idx], y[idx], n_classes)
    np.testing.assert_array_equal(g.values[0][present], values)
    np.testing.assert_array_equal(cnt, want_cnt)
    np.testing.assert_array_equal(gain, want_gain)  # exact: integer sums of squares


@pytest.mark.parametrize("n_values", [2, 256, 257, 65_536, 65_537, 10**6])
def test_stable_order_is_numpys_stable_argsort(n_values):
    # keys in 0 .. n_values - 1 (many ties), in 8-bit, 16-bit and wider ranges
    from synthguard.synthesis.methods._tree import _stable_order

    rng = np.random.default_rng(n_values)
    for dtype in (np.int32, np.int64):
        keys = rng.integers(0, n_values, 20_000).astype(dtype)
        keys[:3] = n_values - 1
        np.testing.assert_array_equal(_stable_order(keys, n_values),
                                      np.argsort(keys, kind="stable"))
