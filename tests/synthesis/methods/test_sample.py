"""``sample``: draws from the observed marginal, and its Bayesian bootstrap."""

from __future__ import annotations

import numpy as np

from synthguard.synthesis.methods.sample import SampleMethod


def test_numeric_draws_are_observed_values():
    y = np.random.default_rng(0).normal(size=50)
    out = (
        SampleMethod().fit(np.empty((50, 0)), y).draw(np.empty((1000, 0)), np.random.default_rng(1))
    )
    assert np.isin(out, y).all()


def test_category_shares_within_binomial_error():
    # Observed shares 0.5, 0.3, 0.2. Each share of N draws has sd sqrt(p (1 - p) / N); 4 sd.
    y = np.repeat(np.array([0, 1, 4]), [50, 30, 20])
    n_draw = 20_000
    out = (
        SampleMethod()
        .fit(np.zeros((100, 2)), y)
        .draw(np.zeros((n_draw, 2)), np.random.default_rng(2))
    )
    for code, p in [(0, 0.5), (1, 0.3), (4, 0.2)]:
        assert abs(np.mean(out == code) - p) < 4 * np.sqrt(p * (1 - p) / n_draw)
    assert set(np.unique(out)) == {0, 1, 4}


def test_predictors_are_ignored():
    y = np.arange(20, dtype=float)
    m = SampleMethod().fit(np.zeros((20, 1)), y)
    a = m.draw(np.zeros((30, 1)), np.random.default_rng(3))
    b = m.draw(np.full((30, 1), 7.0), np.random.default_rng(3))
    np.testing.assert_array_equal(a, b)


def test_bayesian_bootstrap_adds_between_implicate_variance():
    # With Dirichlet(1,...,1) weights the level's bootstrap share S is Beta(np, n(1 - p)), so
    # Var S = p (1 - p) / (n + 1) (Rubin 1981); the share of N draws given S is binomial, so
    # in all Var = p (1 - p) [1 / (n + 1) + (1 / N) (1 - 1 / (n + 1))]. Without it: p (1 - p) / N.
    n, n_draw, n_rep, p = 40, 400, 600, 0.25
    y = np.r_[np.ones(10), np.zeros(30)].astype(np.int64)
    X = np.empty((n_draw, 0))
    rng = np.random.default_rng(4)
    bb = SampleMethod(bayesian_bootstrap=True).fit(np.empty((n, 0)), y)
    plain = SampleMethod(draws="random").fit(np.empty((n, 0)), y)
    shares_bb = np.array([bb.draw(X, rng).mean() for _ in range(n_rep)])
    shares_plain = np.array([plain.draw(X, rng).mean() for _ in range(n_rep)])
    expected_bb = p * (1 - p) * (1 / (n + 1) + (1 / n_draw) * (1 - 1 / (n + 1)))
    expected_plain = p * (1 - p) / n_draw
    # Sample variances of n_rep values: relative sd about sqrt(2 / n_rep) = 0.058; 4 of those.
    tol = 4 * np.sqrt(2 / n_rep)
    assert abs(shares_bb.var(ddof=1) / expected_bb - 1) < tol
    assert abs(shares_plain.var(ddof=1) / expected_plain - 1) < tol
    assert abs(shares_bb.mean() - p) < 4 * np.sqrt(expected_bb / n_rep)
    # a systematic draw takes each value n_draw / n = 10 times: the share is exact
    balanced = SampleMethod(draws="systematic").fit(np.empty((n, 0)), y)
    assert all(balanced.draw(X, rng).mean() == p for _ in range(20))


def test_systematic_draws_are_uniform_one_by_one_and_balanced_together():
    # 7 values drawn 3 at a time: each row's value is uniform (1/7 each, brute force over
    # 14,000 draws), and the 3 values of one draw are 3 different values (ranks floor((r+u)7/3)
    # differ by at least 2), which independent picks are only 7*6*5/7^3 = 61% of the time
    y = np.arange(7.0)
    m = SampleMethod(draws="systematic").fit(np.empty((7, 0)), y)
    rng = np.random.default_rng(0)
    draws = np.array([m.draw(np.empty((3, 0)), rng) for _ in range(14_000 // 3)])
    freq = np.bincount(draws[:, 0].astype(int), minlength=7) / len(draws)
    assert np.abs(freq - 1 / 7).max() < 4 * np.sqrt((1 / 7) * (6 / 7) / len(draws))
    assert all(len(set(d)) == 3 for d in draws)
    sorted_gaps = np.diff(np.sort(draws, axis=1), axis=1)
    assert sorted_gaps.min() >= 2


def test_bayesian_bootstrap_single_record():
    out = (
        SampleMethod(bayesian_bootstrap=True)
        .fit(np.empty((1, 0)), np.array([2.5]))
        .draw(np.empty((5, 0)), np.random.default_rng(0))
    )
    np.testing.assert_array_equal(out, 2.5)
