"""OUE and OLH (Wang, Blocki, Li & Jha 2017): estimators and variances against brute force.

The brute-force checks enumerate every possible report (every bit vector for OUE; every hash of
the Carter–Wegman family and every hashed value for OLH) with its exact probability, run the
module's own estimator on each, and compare the exact mean and variance with the formulas.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from synthguard.dp.local_frequency import (
    LocalHashReports,
    frequency_variance,
    olh_estimate,
    olh_g,
    olh_hash,
    olh_perturb,
    oue_estimate,
    oue_perturb,
    oue_probabilities,
)
from synthguard.errors import DataError, ParameterError

pytestmark = pytest.mark.filterwarnings("ignore:seeded numpy noise:synthguard.errors.PrivacyWarning")


def test_oue_var_star_is_the_published_closed_form():
    # Wang et al. 2017, §4.3: Var* = n 4e^ε/(e^ε − 1)², the same for every k
    for eps in (0.5, 1.0, 2.0):
        p, q = oue_probabilities(eps)
        e = math.exp(eps)
        assert p == 0.5 and q == pytest.approx(1 / (e + 1))
        assert frequency_variance(1000, 0, p, q) == pytest.approx(1000 * 4 * e / (e - 1) ** 2)
        # ε-LDP: a report's probability changes by at most e^ε between two values (2 bits)
        assert math.log(p * (1 - q) / ((1 - p) * q)) == pytest.approx(eps)


def test_oue_exact_mean_and_variance_by_enumerating_every_report():
    eps, k = 0.7, 3
    codes = [0, 0, 1, 2]  # n = 4: 2^(4·3) = 4096 joint reports
    p, q = oue_probabilities(eps)
    n = len(codes)
    onehot = np.eye(k, dtype=bool)[codes]
    mean = np.zeros(k)
    second = np.zeros(k)
    for flat in itertools.product((False, True), repeat=n * k):
        bits = np.array(flat).reshape(n, k)
        prob = np.prod(np.where(onehot, np.where(bits, p, 1 - p), np.where(bits, q, 1 - q)))
        est = oue_estimate(bits, eps).estimate
        mean += prob * est
        second += prob * est**2
    nv = np.bincount(codes, minlength=k)
    np.testing.assert_allclose(mean, nv, atol=1e-10)  # unbiased
    np.testing.assert_allclose(second - mean**2, frequency_variance(n, nv, p, q), rtol=1e-10)


def test_olh_family_is_pairwise_independent_so_q_star_is_one_over_g():
    g, k = 3, 5  # 5 values need m = 2 base-3 digits: 3^2 · 3 = 27 hash functions
    hashes = [(np.array([a0, a1]), b) for a0, a1, b in itertools.product(range(g), repeat=3)]
    for v, w in itertools.combinations(range(k), 2):
        pairs = [tuple(int(olh_hash(a[None], np.array([b]), np.array([x]), g, k)[0])
                       for x in (v, w)) for a, b in hashes]
        counts = np.bincount([i * g + j for i, j in pairs], minlength=g * g)
        assert (counts == len(hashes) // (g * g)).all()  # uniform on GF(g)²


def test_olh_exact_mean_and_variance_by_enumerating_every_report():
    eps, g, k = 1.0, 3, 4
    cats = list("abcd")
    e = math.exp(eps)
    p = e / (e + g - 1)
    codes = [0, 1, 1, 3]
    # every single report (a, b, y) with its probability, per respondent; the estimator is a
    # sum over respondents, so the exact mean/variance are sums of the per-report ones
    reports = [(np.array([a0, a1]), b, y)
               for a0, a1, b, y in itertools.product(range(g), repeat=4)]
    mean, var = np.zeros(k), np.zeros(k)
    for c in codes:
        m1, m2 = np.zeros(k), np.zeros(k)
        for a, b, y in reports:
            h = int(olh_hash(a[None], np.array([b]), np.array([c]), g, k)[0])
            prob = (1 / g**3) * (p if y == h else (1 - p) / (g - 1))
            one = LocalHashReports(a=a[None], b=np.array([b]), y=np.array([y]), g=g,
                                   epsilon=eps, categories=tuple(cats))
            est = olh_estimate(one).estimate
            m1 += prob * est
            m2 += prob * est**2
        mean += m1
        var += m2 - m1**2
    nv = np.bincount(codes, minlength=k)
    np.testing.assert_allclose(mean, nv, atol=1e-10)
    np.testing.assert_allclose(var, frequency_variance(len(codes), nv, p, 1 / g), rtol=1e-10)


def test_olh_g_is_the_prime_minimizing_var_star():
    assert olh_g(1.0) == 3  # e + 1 = 3.72: g = 3 gives Var* 3.774, g = 5 gives 3.822
    assert olh_g(2.5) == 13  # e^2.5 + 1 = 13.18
    assert olh_g(0.1) == 2
    with pytest.raises(ParameterError, match="'g'"):
        olh_perturb(["a"], 1.0, ["a", "b"], g=4, random_state=0)


@pytest.mark.parametrize("oracle", ["oue", "olh"])
def test_simulated_estimates_are_unbiased_with_the_stated_variance(oracle):
    rng = np.random.default_rng(5)
    cats = ["w", "x", "y", "z", "u"]
    values = rng.choice(cats, size=3000, p=[0.5, 0.25, 0.15, 0.1, 0.0])
    nv = np.array([(values == c).sum() for c in cats])
    ests = []
    for r in range(200):
        if oracle == "oue":
            est = oue_estimate(oue_perturb(values, 1.0, cats, random_state=r), 1.0)
        else:
            est = olh_estimate(olh_perturb(values, 1.0, cats, random_state=r))
        ests.append(est.estimate)
    ests = np.array(ests)
    p, q = est.p, est.q
    true_var = frequency_variance(values.size, nv, p, q)
    se_mean = np.sqrt(true_var / len(ests))
    assert (np.abs(ests.mean(axis=0) - nv) < 4 * se_mean).all()
    # sample variance of 200 draws: relative sd about sqrt(2/199) = 10 %
    np.testing.assert_allclose(ests.var(axis=0, ddof=1), true_var, rtol=0.35)


def test_oue_bits_have_the_stated_probabilities():
    values = ["a"] * 20000
    bits = oue_perturb(values, 1.0, ["a", "b"], random_state=3)
    assert bits.shape == (20000, 2)
    p, q = oue_probabilities(1.0)
    assert abs(bits[:, 0].mean() - p) < 4 * math.sqrt(p * (1 - p) / 20000)
    assert abs(bits[:, 1].mean() - q) < 4 * math.sqrt(q * (1 - q) / 20000)


def test_opendp_path_runs_and_reports_are_well_formed():
    vals = ["a", "b", "c", "a"]
    bits = oue_perturb(vals, 1.0, ["a", "b", "c"])
    assert bits.shape == (4, 3) and bits.dtype == bool
    rep = olh_perturb(vals, 1.0, ["a", "b", "c"])
    assert rep.g == 3 and rep.a.shape == (4, 1) and ((rep.y >= 0) & (rep.y < 3)).all()


def test_bad_input_is_refused_without_echoing_values():
    with pytest.raises(DataError) as e:
        oue_perturb(["a", "secret-value"], 1.0, ["a", "b"], random_state=0)
    assert "secret-value" not in str(e.value)
    with pytest.raises(ParameterError, match="epsilon"):
        olh_perturb(["a"], 0.0, ["a", "b"], random_state=0)
    with pytest.raises(ParameterError, match="bits"):
        oue_estimate(np.array([[0, 2], [1, 0]]), 1.0)
