"""CART's systematic draws within leaves, and the adjustment chosen by the target."""

from __future__ import annotations

import numpy as np
import pytest

from synthguard.errors import ParameterError
from synthguard.synthesis.methods import CartMethod


@pytest.fixture
def xy() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 2))
    y = np.round(10 * X[:, 0] + rng.normal(size=200), 2)
    return X, y


def test_rows_in_their_own_leaves_take_every_donor_once(xy):
    # each leaf gets as many rows as it has donors (the confidential predictors): the
    # systematic ranks floor((r + u) s / s) = r are every donor once, so the release is the
    # data's values permuted within leaves; independent draws repeat and miss donors
    X, y = xy
    m = CartMethod(adjust=False, draws="systematic").fit(X, y)
    for seed in range(3):
        out = m.draw(X, np.random.default_rng(seed))
        np.testing.assert_array_equal(np.sort(out), np.sort(y))
    iid = CartMethod(adjust=False, draws="random").fit(X, y).draw(X, np.random.default_rng(0))
    assert len(np.unique(iid)) < len(np.unique(y))


def test_class_shares_of_a_leaf_are_kept_to_one_record():
    # one leaf (no split pays: x is noise), classes 0/1/2 held 50/30/20 times; 1,000 rows
    # drawn from it hold each class 10 x its count (u shifts at most one record per class)
    rng = np.random.default_rng(2)
    y = np.repeat([0, 1, 2], [50, 30, 20]).astype(np.int64)
    X = rng.normal(size=(100, 1))
    m = CartMethod(min_samples_leaf=60, draws="systematic").fit(X, y)
    assert m.n_leaves_ == 1
    for seed in range(5):
        counts = np.bincount(m.draw(np.zeros((1000, 1)), np.random.default_rng(seed)),
                             minlength=3)
        np.testing.assert_array_equal(counts, [500, 300, 200])


def test_each_draw_is_still_uniform_over_its_leaf():
    # brute force: a single leaf of 4 donors, 3 rows per draw, 6,000 draws: each row's donor
    # is uniform (1/4 each) whatever its place
    y = np.array([1.0, 2.0, 3.0, 4.0])
    m = CartMethod(adjust=False, draws="systematic").fit(np.empty((4, 0)), y)
    rng = np.random.default_rng(3)
    out = np.array([m.draw(np.empty((3, 0)), rng) for _ in range(6000)])
    for j in range(3):
        freq = np.array([(out[:, j] == v).mean() for v in y])
        assert np.abs(freq - 0.25).max() < 4 * np.sqrt(0.25 * 0.75 / 6000)


def test_auto_adjusts_a_continuous_target_but_not_a_zero_inflated_one(xy):
    X, y = xy
    assert CartMethod().fit(X, y).adjusts_  # the default is "auto": no point mass, scaled
    assert not CartMethod(adjust=False).fit(X, y).adjusts_  # synthpop's unchanged donors
    assert CartMethod(adjust="scaled").fit(X, y).leaf_scale_ is not None
    gain = np.where(np.arange(200) < 120, 0.0, np.abs(y))  # 60% zeros: a point mass
    assert not CartMethod().fit(X, gain).adjusts_
    assert CartMethod(adjust="scaled").fit(X, gain).adjusts_  # asked for, it still adjusts
    with pytest.raises(ParameterError, match="draws"):
        CartMethod(draws="sorted").fit(X, y)


@pytest.mark.parametrize("n_groups", [1, 7, 70_000])
def test_group_then_key_order_is_lexsorts_order(n_groups):
    # the two-sort order against numpy's lexsort (the reference), with random keys (no ties)
    # and with heavily tied keys (the stable fallback), for radix-sized and larger groups
    from synthguard.synthesis.methods._systematic import group_then_key_order

    rng = np.random.default_rng(n_groups)
    for n in (0, 1, 2, 5_000):
        group = rng.integers(0, n_groups, n)
        for key in (rng.random(n), rng.integers(0, 3, n).astype(float),
                    np.repeat(0.5, n)):
            np.testing.assert_array_equal(group_then_key_order(group, key),
                                          np.lexsort((key, group)))
