"""Combining rules against hand computation (Reiter 2003, Reiter 2002, lecture eq. (8))."""

import warnings

import numpy as np
import pytest
from scipy import stats

from synthguard.errors import ParameterError, UtilityWarning
from synthguard.utility import combine


def test_partial_rule_by_hand():
    q = [1.0, 2.0, 3.0]
    v = [0.4, 0.5, 0.6]
    r = combine(q, v, method="partial")
    # q̄ = 2, b = 1, v̄ = 0.5, T_p = 1/3 + 0.5, ν = 2 (1 + 0.5/(1/3))^2 = 12.5
    assert r.estimate == pytest.approx(2.0)
    assert r.b_m == pytest.approx(1.0)
    assert r.v_bar == pytest.approx(0.5)
    assert r.variance == pytest.approx(1 / 3 + 0.5)
    assert r.df == pytest.approx(12.5)
    lo, hi = r.ci(0.95)
    half = stats.t.ppf(0.975, 12.5) * np.sqrt(1 / 3 + 0.5)
    assert (lo, hi) == pytest.approx((2 - half, 2 + half))
    assert r.method == "partial"


def test_full_rule_by_hand():
    r = combine([1.0, 2.0, 3.0], [0.5, 0.5, 0.5], method="full")
    # T_f = (1 + 1/3) 1 - 0.5; ν_f = 2 (1 - 0.5/(4/3))^2
    assert r.variance == pytest.approx(4 / 3 - 0.5)
    assert r.df == pytest.approx(2 * (1 - 0.375) ** 2)
    assert not r.adjusted
    lo, hi = r.ci(0.90)
    half = stats.t.ppf(0.95, 2 * 0.625**2) * np.sqrt(4 / 3 - 0.5)
    assert hi - lo == pytest.approx(2 * half)


def test_full_rule_negative_variance_uses_non_negative_alternative():
    q = [1.0, 1.1, 0.9]  # b = 0.01, so T_f = 4/3 * 0.01 - 1 < 0
    r = combine(q, [1.0, 1.0, 1.0], method="full", n=100, n_synthetic=50)
    assert r.adjusted
    assert r.variance == pytest.approx(0.5 * 1.0)  # T_f* = max(0, T_f) + (n_syn/n) v̄
    assert r.df == pytest.approx(2.0)
    r2 = combine(q, [1.0, 1.0, 1.0], method="full")  # n_syn/n taken as 1
    assert r2.variance == pytest.approx(1.0)


def test_vectorised_over_estimands_matches_loop():
    rng = np.random.default_rng(3)
    q = rng.normal(size=(5, 7))
    v = rng.uniform(0.1, 1.0, size=(5, 7))
    for method in ("partial", "full"):
        r = combine(q, v, method=method, n=10, n_synthetic=10)
        lo, hi = r.ci()
        for j in range(7):
            rj = combine(q[:, j], v[:, j], method=method, n=10, n_synthetic=10)
            assert r.variance[j] == pytest.approx(rj.variance)
            assert r.df[j] == pytest.approx(rj.df)
            assert (lo[j], hi[j]) == pytest.approx(rj.ci())


def test_identical_implicates_give_normal_reference():
    r = combine([2.0, 2.0], [1.0, 1.0], method="partial")
    assert r.variance == pytest.approx(1.0)
    assert np.isinf(r.df)
    assert r.ci(0.95) == pytest.approx((2 - 1.959964, 2 + 1.959964), abs=1e-6)


def test_one_implicate_warns_and_uses_simple_rule():
    with pytest.warns(UtilityWarning, match="one implicate"):
        r = combine([3.0], [2.0], method="partial", n=100, n_synthetic=100)
    assert r.method == "simple"
    assert r.variance == pytest.approx(2.0 * (1 + 1))  # v̄ (1/m + n_syn/n)
    assert np.isinf(r.df)


def test_errors():
    with pytest.raises(ParameterError, match="method"):
        combine([1.0, 2.0], [1.0, 1.0], method="nope")  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="same shape"):
        combine([1.0, 2.0], [1.0])
    with pytest.raises(ParameterError, match="non-negative"):
        combine([1.0, 2.0], [1.0, -1.0])
    with pytest.raises(ParameterError, match="level"):
        combine([1.0, 2.0], [1.0, 1.0]).ci(1.5)


def test_proper_rule_by_hand():
    # Raab, Nowok & Dibben (2016): T_r = v̄ (k + (1 + k)/m), k = n_syn/n, normal reference
    r = combine([1.0, 2.0, 3.0], [0.4, 0.5, 0.6], method="proper", n=100, n_synthetic=200)
    assert r.method == "proper"
    assert r.estimate == pytest.approx(2.0)
    assert r.b_m == pytest.approx(1.0)
    assert r.variance == pytest.approx(0.5 * (2 + 3 / 3))
    assert np.isinf(r.df)
    lo, hi = r.ci(0.90)
    half = stats.norm.ppf(0.95) * np.sqrt(1.5)
    assert (lo, hi) == pytest.approx((2 - half, 2 + half))
    # against the simple rule: proper adds v̄ k/m for the posterior draws of the parameters
    s = combine([1.0, 2.0, 3.0], [0.4, 0.5, 0.6], method="simple", n=100, n_synthetic=200)
    assert r.variance - s.variance == pytest.approx(0.5 * 2 / 3)


def test_proper_rule_needs_no_between_variance_for_one_implicate():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = combine([3.0], [2.0], method="proper", n=100, n_synthetic=50)
    assert r.method == "proper"
    assert r.variance == pytest.approx(2.0 * (0.5 + 1.5))
    assert np.isnan(r.b_m)


def test_proper_rule_covers_95_percent_for_posterior_predictive_synthesis():
    """Normal model, flat prior: each implicate draws (μ_l, σ²_l) from the posterior, then
    n_syn records; the estimand is the population mean. Vectorised over replications."""
    rng = np.random.default_rng(11)
    reps, n, mu, sd = 4000, 40, 3.0, 2.0
    for m, n_syn in ((2, 40), (5, 120)):
        x = rng.normal(mu, sd, size=(reps, n))
        xbar, s2 = x.mean(1), x.var(1, ddof=1)
        sig2 = s2[:, None] * (n - 1) / rng.chisquare(n - 1, size=(reps, m))
        mu_l = xbar[:, None] + np.sqrt(sig2 / n) * rng.standard_normal((reps, m))
        syn = mu_l[..., None] + np.sqrt(sig2)[..., None] * rng.standard_normal((reps, m, n_syn))
        q = syn.mean(-1).T
        v = (syn.var(-1, ddof=1) / n_syn).T
        lo, hi = combine(q, v, method="proper", n=n, n_synthetic=n_syn).ci(0.95)
        cover = np.mean((lo <= mu) & (mu <= hi))
        se = np.sqrt(0.95 * 0.05 / reps)
        assert abs(cover - 0.95) < 3.5 * se + 0.005, (m, n_syn, cover)
        # the simple rule ignores the posterior draws and under-covers here
        lo_s, hi_s = combine(q, v, method="simple", n=n, n_synthetic=n_syn).ci(0.95)
        assert np.mean((lo_s <= mu) & (mu <= hi_s)) < cover - 0.02


def test_none_rule_keeps_the_one_files_own_variance_and_refuses_implicates():
    # "none": one protected file analysed as the data, T = v (Karr et al. 2006)
    r = combine([2.5], [0.09], method="none")
    assert r.method == "none" and r.variance == pytest.approx(0.09) and r.df == np.inf
    lo, hi = r.ci(0.95)
    assert hi - lo == pytest.approx(2 * 1.959963985 * 0.3, rel=1e-9)
    with pytest.raises(ParameterError, match="'none' analyses one released file"):
        combine([1.0, 2.0], [0.1, 0.1], method="none")
