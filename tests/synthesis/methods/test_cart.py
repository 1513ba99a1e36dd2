"""``cart``: leaf-donor draws, tree controls, smoothing and leaf diagnostics."""

from __future__ import annotations

import math

import numpy as np
import pytest

from synthguard.errors import ParameterError
from synthguard.synthesis.methods.cart import CartMethod, _silverman


def _grouped(n_per: int = 20):
    """A predictor with 4 groups; the target is constant within a group (values 10, 20, 30, 40)."""
    g = np.repeat(np.arange(4), n_per)
    X = np.column_stack([g.astype(float), np.random.default_rng(0).normal(size=len(g))])
    y = 10.0 * (g + 1)
    return X, y, g


def test_constant_in_leaf_data_reproduces_leaf_values():
    X, y, _ = _grouped()
    m = CartMethod().fit(X, y)
    out = m.draw(X, np.random.default_rng(1))
    np.testing.assert_array_equal(out, y)
    diag = m.leaf_diagnostics()
    assert list(diag.columns) == ["leaf", "size", "n_distinct", "all_identical"]
    assert diag["all_identical"].all()
    assert sorted(diag["size"]) == [20, 20, 20, 20]


def test_draws_are_uniform_over_the_leaf_donors():
    # One leaf (no predictors): every confidential record is a donor with probability 1/n.
    y = np.arange(10, dtype=float)
    m = CartMethod().fit(np.empty((10, 0)), y)
    n_draw = 50_000
    out = m.draw(np.empty((n_draw, 0)), np.random.default_rng(2))
    counts = np.bincount(out.astype(int), minlength=10)
    # Each count is Binomial(n_draw, 0.1): 4 sd.
    assert np.all(np.abs(counts - n_draw / 10) < 4 * np.sqrt(n_draw * 0.1 * 0.9))


def test_draws_come_from_the_leaf_of_the_predictors():
    rng = np.random.default_rng(3)
    n = 2000
    x = rng.uniform(size=n)
    y = np.where(x < 0.5, rng.normal(0, 1, n), rng.normal(100, 1, n))
    m = CartMethod(adjust=False).fit(x[:, None], y)
    leaf_conf = m.leaf_index(x[:, None])
    x_new = rng.uniform(size=3000)
    out = m.draw(x_new[:, None], np.random.default_rng(4))
    leaf_new = m.leaf_index(x_new[:, None])
    assert np.isin(out, y).all()
    # Every synthetic value is a confidential value from the same leaf.
    for leaf in np.unique(leaf_new)[:50]:
        assert np.isin(out[leaf_new == leaf], y[leaf_conf == leaf]).all()
    clear = np.abs(x_new - 0.5) > 0.01  # the split lies between two confidential x near 0.5
    assert np.all((out > 50)[clear] == (x_new >= 0.5)[clear])


def test_leaf_sizes_respect_min_samples_leaf_and_leaf_index_counts_them():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(3000, 3))
    y = X[:, 0] ** 2 + rng.normal(size=3000)
    for leaf_size in (5, 25):
        m = CartMethod(min_samples_leaf=leaf_size).fit(X, y)
        diag = m.leaf_diagnostics()
        assert diag["size"].min() >= leaf_size
        assert diag["size"].sum() == 3000
        np.testing.assert_array_equal(
            np.bincount(m.leaf_index(X), minlength=m.n_leaves_), diag["size"]
        )
    assert CartMethod(min_samples_leaf=25).fit(X, y).n_leaves_ < CartMethod().fit(X, y).n_leaves_


def test_cp_and_max_depth_limit_the_tree():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(1000, 2))
    y = X[:, 0] + rng.normal(size=1000)
    assert CartMethod(cp=1.0).fit(X, y).n_leaves_ == 1  # no split removes all the root's error
    assert CartMethod(max_depth=2).fit(X, y).n_leaves_ <= 4
    # A moderate cp keeps only splits that each explain at least 1% of the total variance.
    big = CartMethod(cp=0.01).fit(X, y)
    assert 2 <= big.n_leaves_ < 30


def test_n_distinct_counts_distinct_values_per_leaf():
    X, _, g = _grouped(10)
    y = np.tile(np.array([1.0, 1.0, 2.0, 3.0, 3.0, 3.0, 4.0, 5.0, 5.0, 6.0]), 4) + 100 * g
    diag = CartMethod(min_samples_leaf=10, min_samples_split=20).fit(X[:, :1], y).leaf_diagnostics()
    assert list(diag["n_distinct"]) == [6, 6, 6, 6]
    assert not diag["all_identical"].any()


def test_categorical_target_uses_a_classification_tree():
    rng = np.random.default_rng(7)
    x = rng.uniform(size=(600, 1))
    y = np.where(x[:, 0] < 0.3, 0, np.where(x[:, 0] < 0.7, 2, 5)).astype(np.int64)
    m = CartMethod(smoothing=True).fit(x, y)  # smoothing never applies to categories
    assert m.tree_ is not None and m.n_leaves_ == 3  # classes 0, 2, 5: three pure leaves
    assert m.smoothed_ is False
    out = m.draw(x, np.random.default_rng(8))
    assert out.dtype == np.int64
    np.testing.assert_array_equal(out, y)


def test_silverman_bandwidth_matches_the_rule():
    # R: bw.nrd0(c(1, 2, 3, 4, 10)): sd 3.5355, IQR 2, min(3.5355, 2 / 1.34) = 1.4925;
    # 0.9 * 1.4925 * 5^-0.2 = 0.9755.
    bw = _silverman(np.array([np.std([1, 2, 3, 4, 10], ddof=1)]), np.array([2.0]), np.array([5]))
    assert bw[0] == pytest.approx(0.9 * (2 / 1.34) * 5**-0.2)


def test_smoothing_keeps_point_masses_and_never_copies_rare_constant_leaves():
    X, y, _ = _grouped(50)  # four constant leaves, each value held by 25% of the records
    n_draw = 4000
    X_new = np.repeat(np.arange(4.0), n_draw)[:, None]
    # each value is a point mass (>= 1% of the records): drawn exactly
    m = CartMethod(smoothing="density").fit(X[:, :1], y)
    np.testing.assert_array_equal(m.draw(X_new, np.random.default_rng(9)), 10.0 * (X_new[:, 0] + 1))
    # with the share rule off, constant leaves fall back to the whole target's bandwidth
    m = CartMethod(smoothing=True, point_mass=2.0).fit(X[:, :1], y)
    out = m.draw(X_new, np.random.default_rng(9))
    whole = 0.9 * min(np.std(y, ddof=1), (np.quantile(y, 0.75) - np.quantile(y, 0.25)) / 1.34)
    whole *= len(y) ** -0.2
    np.testing.assert_allclose(m.bandwidth_, whole)
    for k in range(4):
        part = out[X_new[:, 0] == k]
        # values are whole numbers (the data's precision) inside the observed range [10, 40]
        assert np.all(part == np.round(part)) and part.min() >= 10 and part.max() <= 40
    for k in (1, 2):  # inner leaves: reflection at the range does not reach them
        part = out[X_new[:, 0] == k]
        # Mean within 4 standard errors of the leaf value; sd within 4 of its standard errors
        # (rounding to integers adds 1/12 to the variance).
        assert abs(part.mean() - 10.0 * (k + 1)) < 4 * whole / np.sqrt(n_draw)
        sd = np.sqrt(whole**2 + 1 / 12)
        assert abs(part.std(ddof=1) / sd - 1) < 4 * np.sqrt(1 / (2 * n_draw))
        # a draw equals the leaf's value only when its noise rounds to 0: P(|N(0, bw)| < 1/2)
        p = math.erf(0.5 / (whole * math.sqrt(2)))
        share = np.mean(part == 10.0 * (k + 1))
        assert abs(share - p) < 4 * math.sqrt(p * (1 - p) / n_draw)


def test_smoothing_on_a_zero_inflated_column_keeps_zeros_range_and_integers():
    rng = np.random.default_rng(12)
    n = 4000
    x = rng.integers(0, 4, n).astype(float)
    gain = np.where(rng.random(n) < 0.9, 0.0, np.round(rng.lognormal(8, 1, n)))
    gain[:30] = 99999.0  # a top code held by 30 records
    m = CartMethod(smoothing="density", min_samples_leaf=50).fit(x[:, None], gain)
    assert 0.0 in m.point_masses_ and 99999.0 in m.point_masses_
    out = m.draw(np.tile(x, 5)[:, None], np.random.default_rng(1))
    assert abs(np.mean(out == 0) - np.mean(gain == 0)) < 0.01
    assert abs(np.mean(out == 99999) - np.mean(gain == 99999)) < 0.003
    assert out.min() >= 0 and out.max() <= 99999 and np.all(out == np.round(out))
    free = (out != 0) & (out != 99999)
    assert free.any() and not np.isin(out[free], gain).all()  # smoothed, not donor copies


def test_smoothing_bandwidth_per_leaf():
    rng = np.random.default_rng(10)
    x = np.repeat([0.0, 1.0], 500)
    y = np.where(x == 0, rng.normal(0, 1, 1000), rng.normal(50, 10, 1000))
    m = CartMethod(smoothing=True, point_mass=2.0).fit(x[:, None], y)
    assert m.n_leaves_ == 2
    for leaf, start, size in zip(range(2), m.leaf_start_, m.leaf_size_, strict=True):
        v = m.donors_[start : start + size]
        iqr = np.quantile(v, 0.75) - np.quantile(v, 0.25)
        expected = 0.9 * min(v.std(ddof=1), iqr / 1.34) * size**-0.2
        assert m.bandwidth_[leaf] == pytest.approx(expected)


def test_bad_parameters_raise():
    X, y, _ = _grouped()
    with pytest.raises(ParameterError, match="min_samples_leaf"):
        CartMethod(min_samples_leaf=0).fit(X, y)
    with pytest.raises(ParameterError, match="cp"):
        CartMethod(cp=-1).fit(X, y)


def test_max_bins_splits_only_at_quantile_cut_points():
    rng = np.random.default_rng(11)
    x = rng.uniform(size=(2000, 1))
    y = np.sin(6 * x[:, 0]) + 0.1 * rng.normal(size=2000)
    coarse = CartMethod(max_bins=4).fit(x, y)
    assert coarse.n_leaves_ <= 4
    edges = coarse.bin_edges_[0]
    np.testing.assert_allclose(edges, np.quantile(x[:, 0], [0.25, 0.5, 0.75]), atol=2e-3)
    # Each leaf holds whole bins: all records of a bin share a leaf, for fit and draw alike.
    bins = np.searchsorted(edges, x[:, 0], side="right")
    leaf = coarse.leaf_index(x)
    for b in range(4):
        assert len(np.unique(leaf[bins == b])) == 1
    # With at least as many bins as distinct values the tree is the exact one.
    exact = CartMethod().fit(x, y)
    fine = CartMethod(max_bins=5000).fit(x, y)
    assert fine.bin_edges_ == [None]
    np.testing.assert_array_equal(
        fine.draw(x, np.random.default_rng(12)), exact.draw(x, np.random.default_rng(12))
    )
