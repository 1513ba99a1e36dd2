"""Post-processing: clamping, rounding, rescaling and the two-level hierarchy."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from synthguard.dp import (
    clamp_negative,
    consistent_hierarchy,
    rescale_to_total,
    round_counts,
    simplex_projection,
)

floats = st.floats(-50, 50, allow_nan=False)


@settings(max_examples=60, deadline=None)
@given(st.lists(floats, min_size=1, max_size=12), st.floats(0, 100))
def test_simplex_projection_kkt(v, total):
    v = np.array(v)
    x = simplex_projection(v, total)
    assert np.all(x >= 0)
    assert x.sum() == pytest.approx(total, abs=1e-8)
    # KKT: v - x = θ on the support, v <= θ off it
    pos = x > 1e-12
    if pos.any():
        theta = (v - x)[pos]
        assert np.ptp(theta) < 1e-8
        assert np.all(v[~pos] <= theta[0] + 1e-8)


def _brute_force_hierarchy(p, c, vp, vc):
    # min (T-P)^2/vp + Σ(x_j-c_j)^2/vc s.t. Σx = T, by solving the KKT linear system
    k = c.size
    n = k + 2  # x, T, λ
    a = np.zeros((n, n))
    b = np.zeros(n)
    a[:k, :k] = np.eye(k) * 2 / vc
    a[:k, k + 1] = 1
    b[:k] = 2 * c / vc
    a[k, k] = 2 / vp
    a[k, k + 1] = -1
    b[k] = 2 * p / vp
    a[k + 1, :k] = 1
    a[k + 1, k] = -1
    sol = np.linalg.solve(a, b)
    return sol[k], sol[:k]


def test_hierarchy_matches_least_squares():
    rng = np.random.default_rng(0)
    for _ in range(20):
        k = int(rng.integers(2, 7))
        c = rng.normal(50, 10, k)
        p = c.sum() + rng.normal(0, 15)
        vp, vc = rng.uniform(0.5, 5), rng.uniform(0.5, 5)
        t, x = consistent_hierarchy(p, c, parent_variance=vp, child_variance=vc,
                                    nonnegative=False)
        t_ref, x_ref = _brute_force_hierarchy(p, c, vp, vc)
        assert t[0] == pytest.approx(t_ref)
        np.testing.assert_allclose(x, x_ref)


def test_hierarchy_groups_nonnegative_and_known_parent():
    parent = np.array([10.0, 30.0])
    children = np.array([4.0, -3.0, 8.0, 12.0, 11.0])
    groups = np.array([0, 0, 0, 1, 1])
    t, x = consistent_hierarchy(parent, children, groups, parent_known=True)
    assert np.all(x >= 0)
    np.testing.assert_allclose(np.bincount(groups, weights=x), [10.0, 30.0])
    np.testing.assert_allclose(t, [10.0, 30.0])
    np.testing.assert_allclose(x[3:], [15.5, 14.5])  # 12 + 3.5, 11 + 3.5


def test_clamp_round_rescale():
    s = pd.Series([-2.0, 3.4, 6.6], index=list("abc"))
    pd.testing.assert_series_equal(clamp_negative(s), pd.Series([0.0, 3.4, 6.6], index=list("abc")))
    assert list(round_counts(np.array([-1.2, 2.5, 3.49]))) == [0, 2, 3]
    r = round_counts(np.array([1.2, 2.3, 3.5, -1.0]), total=10)
    assert r.sum() == 10 and np.all(r >= 0)
    np.testing.assert_allclose(rescale_to_total(np.array([1.0, 3.0, -2.0]), 8), [2.0, 6.0, 0.0])
    np.testing.assert_allclose(rescale_to_total(np.array([-1.0, -3.0]), 8), [4.0, 4.0])
