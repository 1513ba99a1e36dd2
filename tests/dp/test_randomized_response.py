"""Randomized response: the course's example, unbiasedness and variance, the ε-LDP link."""

from __future__ import annotations

import math

import numpy as np
import pytest

from synthguard.dp import (
    randomized_response,
    randomized_response_estimate,
    rr_epsilon,
    rr_probability,
)
from synthguard.errors import DataError, ParameterError

pytestmark = pytest.mark.filterwarnings("ignore:seeded numpy noise:synthguard.errors.PrivacyWarning")


def test_course_example():
    res = randomized_response_estimate(44166, 100000, 0.6)
    assert res.estimate == pytest.approx(20830.0)
    assert res.q == pytest.approx(0.4)
    # variance by hand: [n_v p(1-p) + (n - n_v) q(1-q)] / (p - q)^2
    nv = 20830.0
    assert res.variance == pytest.approx((nv * 0.24 + (100000 - nv) * 0.24) / 0.04)


def test_ldp_parametrisation():
    assert rr_probability(math.log(3)) == pytest.approx(0.75)
    assert rr_probability(1.0) == pytest.approx(math.e / (math.e + 1))
    assert rr_epsilon(0.75) == pytest.approx(math.log(3))
    p = rr_probability(2.0, k=5)
    assert rr_epsilon(p, k=5) == pytest.approx(2.0)


def test_binary_unbiased_with_correct_variance():
    rng = np.random.default_rng(11)
    truth = rng.random(2000) < 0.2
    nv = int(truth.sum())
    reps = [randomized_response(truth, p=0.7, random_state=rng).sum() for _ in range(600)]
    est = randomized_response_estimate(np.array(reps), truth.size, 0.7)
    theory = (nv * 0.21 + (2000 - nv) * 0.21) / 0.16
    assert abs(est.estimate.mean() - nv) < 5 * math.sqrt(theory / 600)
    assert abs(est.estimate.var(ddof=1) / theory - 1) < 5 * math.sqrt(2 / 600)
    assert abs(est.variance.mean() / theory - 1) < 0.05


def test_generalized_rr_frequencies():
    rng = np.random.default_rng(12)
    cats = ["a", "b", "c", "d"]
    truth = rng.choice(cats, size=50_000, p=[0.5, 0.3, 0.15, 0.05])
    eps = 2.0
    reported = randomized_response(truth, epsilon=eps, categories=cats, random_state=13)
    assert set(np.unique(reported)) <= set(cats)
    p = rr_probability(eps, 4)
    counts = np.array([(reported == c).sum() for c in cats])
    est = randomized_response_estimate(counts, truth.size, p, k=4)
    true_counts = np.array([(truth == c).sum() for c in cats])
    assert np.all(np.abs(est.estimate - true_counts) < 5 * est.std_error)
    assert est.estimate.sum() == pytest.approx(truth.size)
    # the empirical keep rate is p and the other categories share 1 - p evenly
    keep = (reported == truth).mean()
    assert abs(keep - p) < 5 * math.sqrt(p * (1 - p) / truth.size)


def test_opendp_path_runs():
    truth = np.array([True] * 300 + [False] * 300)
    out = randomized_response(truth, p=0.9)
    assert out.dtype == bool and abs((out == truth).mean() - 0.9) < 0.08
    out = randomized_response(["x", "y", "z"] * 50, p=0.8, categories=["x", "y", "z"])
    assert set(out) <= {"x", "y", "z"}


def test_errors():
    with pytest.raises(ParameterError, match="categories"):
        randomized_response(np.array([1, 2]), p=0.7)
    with pytest.raises(ParameterError, match="exactly one"):
        randomized_response(np.array([True]), p=0.7, epsilon=1.0)
    with pytest.raises(ParameterError):
        randomized_response(np.array([True]), p=0.5, random_state=0)
    with pytest.raises(DataError):
        randomized_response(["q"], p=0.7, categories=["a", "b"], random_state=0)
    with pytest.raises(ParameterError):
        randomized_response_estimate(10, 5, 0.7)
