"""``normrank``: regression on Blom normal scores, mapped back to the observed marginal."""

from __future__ import annotations

import numpy as np
from scipy import stats

from synthguard.synthesis.methods.normrank import NormRankMethod, _average_ranks, _normal_scores


def test_normal_scores_are_blom_scores():
    y = np.array([5.0, 1.0, 3.0, 3.0])
    # Ranks 4, 1, 2.5, 2.5; Blom (1958): Phi^{-1}((r - 3/8) / (n + 1/4)).
    expected = stats.norm.ppf((np.array([4.0, 1.0, 2.5, 2.5]) - 0.375) / 4.25)
    np.testing.assert_allclose(_normal_scores(y), expected, rtol=1e-12)


def test_draws_stay_in_the_observed_range_and_follow_the_marginal():
    rng = np.random.default_rng(0)
    y = rng.lognormal(mean=3.0, sigma=1.2, size=500)  # skewed, like income
    m = NormRankMethod().fit(np.empty((500, 0)), y)
    out = m.draw(np.empty((20_000, 0)), np.random.default_rng(1))
    assert out.min() >= y.min() and out.max() <= y.max()
    # The draws follow the observed ECDF (linearly interpolated): a two-sample KS statistic
    # has 0.1% critical value 1.95 sqrt(1/500 + 1/20000) ≈ 0.088.
    assert stats.ks_2samp(out, y).statistic < 1.95 * np.sqrt(1 / 500 + 1 / 20_000)
    # A Normal model on the original scale would put mass below zero; normrank cannot.
    assert out.min() > 0


def test_extreme_predictors_map_to_the_observed_extremes():
    x = np.linspace(-1, 1, 200)[:, None]
    y = np.exp(3 * x[:, 0]) + np.random.default_rng(2).normal(scale=0.01, size=200)
    m = NormRankMethod().fit(x, y)
    out = m.draw(np.array([[-50.0], [50.0]]), np.random.default_rng(3))
    assert out[0] == y.min() and out[1] == y.max()


def test_relationship_with_a_predictor_is_kept():
    # Spearman correlation of (x, y*) should match that of (x, y); its sampling sd is below
    # (1 - rho^2) / sqrt(n - 3) ≈ 0.01 here, so allow 0.05.
    rng = np.random.default_rng(4)
    n = 2000
    x = rng.normal(size=n)
    y = np.exp(1.0 + 0.8 * x + 0.6 * rng.normal(size=n))
    m = NormRankMethod().fit(x[:, None], y)
    out = m.draw(x[:, None], np.random.default_rng(5))
    rho_conf = stats.spearmanr(x, y).statistic
    rho_syn = stats.spearmanr(x, out).statistic
    assert abs(rho_syn - rho_conf) < 0.05


def test_proper_is_passed_to_the_inner_regression():
    rng = np.random.default_rng(6)
    x = rng.normal(size=(100, 1))
    y = rng.gamma(2.0, size=100)
    m = NormRankMethod(proper=True).fit(x, y)
    assert m.norm_.proper is True
    assert NormRankMethod().fit(x, y).norm_.proper is False


def test_average_ranks_match_scipy():
    y = np.random.default_rng(7).integers(0, 6, size=300).astype(float)
    np.testing.assert_array_equal(_average_ranks(y), stats.rankdata(y))


def test_interpolated_draws_are_rounded_to_the_datas_precision():
    # incomes recorded in whole units: linear interpolation between order statistics gives
    # fractions, which are rounded back to whole units (the range still holds)
    rng = np.random.default_rng(5)
    y = np.round(rng.lognormal(10, 0.8, 400))
    m = NormRankMethod().fit(np.empty((400, 0)), y)
    assert m.decimals_ == 0
    out = m.draw(np.empty((5000, 0)), np.random.default_rng(6))
    np.testing.assert_array_equal(out, np.round(out))
    assert out.min() >= y.min() and out.max() <= y.max()
    # the unrounded map gives fractions for almost every draw: rounding did the work
    z = m.norm_.draw_unrounded(np.empty((5000, 0)), np.random.default_rng(6))
    assert np.mean(z != np.round(z)) > 0.99
    y2 = np.round(rng.lognormal(3, 0.5, 400), 2)
    assert NormRankMethod().fit(np.empty((400, 0)), y2).decimals_ == 2
