"""ECDF utility U_m, U_a against a brute-force loop over the pooled sample."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from synthguard.errors import DataError
from synthguard.utility import ecdf_utility


def brute(a, b):
    z = list(a) + list(b)
    d = []
    for zj in z:
        fa = sum(1 for x in a if x <= zj) / len(a)
        fb = sum(1 for x in b if x <= zj) / len(b)
        d.append(fa - fb)
    d = np.array(d)
    return np.max(np.abs(d)), np.mean(d**2)


values = st.lists(st.integers(-5, 5).map(float) | st.floats(-10, 10), min_size=1, max_size=40)


@settings(max_examples=60, deadline=None)
@given(values, values)
def test_matches_brute_force(a, b):
    r = ecdf_utility(a, b)
    um, ua = brute(a, b)
    assert r.u_max == pytest.approx(um, abs=1e-12)
    assert r.u_avg == pytest.approx(ua, abs=1e-12)


def test_identical_samples_zero():
    x = np.random.default_rng(0).normal(size=500)
    r = ecdf_utility(x, x[::-1].copy())
    assert r.u_max == 0.0 and r.u_avg == 0.0


def test_disjoint_samples_one():
    r = ecdf_utility([1.0, 2.0], [3.0, 4.0, 5.0])
    assert r.u_max == 1.0


def test_implicates_averaged_and_missing_dropped():
    conf = np.array([1.0, 2.0, np.nan, 3.0])
    s1, s2 = np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0, 6.0])
    r = ecdf_utility(conf, [s1, s2])
    assert r.u_max_implicates == (0.0, 1.0)
    assert r.u_max == pytest.approx(0.5)
    assert r.n_missing_conf == 1
    assert list(r.to_frame().columns) == ["u_max", "u_avg"]


def test_errors():
    with pytest.raises(DataError):
        ecdf_utility([np.nan], [1.0])
    with pytest.raises(DataError):
        ecdf_utility(np.ones((2, 2)), [1.0])
