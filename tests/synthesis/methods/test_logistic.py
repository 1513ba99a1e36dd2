"""``logreg`` and ``polyreg``: logistic fits against statsmodels, and draws from their probabilities."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import statsmodels.api as sm

from synthguard.errors import MethodError, ParameterError
from synthguard.synthesis.methods.logreg import LogRegMethod
from synthguard.synthesis.methods.polyreg import PolyRegMethod


@pytest.fixture(scope="module")
def binary():
    # Predictors on very different scales (the fit standardises them internally).
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 3)) * [1.0, 100.0, 0.1] + [0.0, 3000.0, 1.0]
    eta = -29.7 + X @ [0.8, 0.01, -5.0]
    y = (rng.random(400) < 1 / (1 + np.exp(-eta))).astype(np.int64)
    return X, y


def test_unpenalized_logreg_matches_statsmodels_logit(binary):
    X, y = binary
    ref = sm.Logit(y, sm.add_constant(X)).fit(disp=0, tol=1e-12)
    m = LogRegMethod(ridge=0).fit(X, y)
    np.testing.assert_allclose(m.coef_, ref.params, atol=1e-4)


def test_default_tiny_ridge_is_close_to_maximum_likelihood(binary):
    # The penalty (ridge / 2) ||b_std||^2 moves the estimates by about ridge / (n p (1 - p))
    # relative to their standardised size: well under 1e-3 relative here.
    X, y = binary
    ref = sm.Logit(y, sm.add_constant(X)).fit(disp=0, tol=1e-12)
    m = LogRegMethod().fit(X, y)
    np.testing.assert_allclose(m.coef_, ref.params, rtol=1e-3)


def test_polyreg_probabilities_match_statsmodels_mnlogit():
    rng = np.random.default_rng(1)
    n = 600
    X = np.column_stack([rng.normal(size=n), rng.integers(0, 2, n)])
    logits = np.column_stack([np.zeros(n), 0.5 + X @ [1.0, -0.5], -0.3 + X @ [-0.8, 1.0]])
    prob = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    y = (rng.random(n)[:, None] > np.cumsum(prob, axis=1)).sum(axis=1).astype(np.int64)
    ref = sm.MNLogit(y, sm.add_constant(X)).fit(disp=0, method="newton", tol=1e-12)
    m = PolyRegMethod(ridge=0).fit(X, y)
    grid = np.array([[-1.0, 0.0], [0.0, 1.0], [2.0, 1.0]])
    np.testing.assert_allclose(m.predict_proba(grid), ref.predict(sm.add_constant(grid)), atol=1e-5)
    assert m.coef_.shape == (3, 3)


def test_draw_frequencies_follow_fitted_probabilities():
    rng = np.random.default_rng(2)
    n = 500
    x = rng.normal(size=(n, 1))
    y = np.digitize(x[:, 0] + rng.logistic(size=n), [-1.0, 1.0]).astype(np.int64)
    m = PolyRegMethod().fit(x, y)
    n_draw = 20_000
    x0 = np.full((n_draw, 1), 0.3)
    out = m.draw(x0, np.random.default_rng(3))
    p = m.predict_proba(x0[:1])[0]
    for k in range(3):
        # 4 binomial standard errors.
        assert abs(np.mean(out == k) - p[k]) < 4 * np.sqrt(p[k] * (1 - p[k]) / n_draw)


def test_unobserved_level_is_never_drawn():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(300, 1))
    y = np.where(x[:, 0] + rng.normal(size=300) > 0, 4, 0).astype(np.int64)  # codes 1..3 unseen
    m = PolyRegMethod().fit(x, y)
    np.testing.assert_array_equal(m.classes_, [0, 4])
    out = m.draw(rng.normal(size=(5000, 1)) * 3, np.random.default_rng(5))
    assert set(np.unique(out)) == {0, 4}


def test_no_predictors_gives_observed_shares():
    y = np.repeat(np.array([0, 1, 2], dtype=np.int64), [20, 50, 30])
    m = PolyRegMethod().fit(np.empty((100, 0)), y)
    np.testing.assert_allclose(m.predict_proba(np.empty((2, 0))), [[0.2, 0.5, 0.3]] * 2)
    lr = LogRegMethod().fit(np.empty((10, 0)), np.r_[np.zeros(8), np.ones(2)].astype(np.int64))
    np.testing.assert_allclose(lr.coef_, [np.log(2 / 8)])


def test_complete_separation_stays_finite_and_draws_the_separated_levels():
    x = np.arange(100.0)[:, None]
    y = (x[:, 0] > 50).astype(np.int64)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # converges without warnings thanks to the ridge
        m = LogRegMethod().fit(x, y)
    assert m.converged_ and np.all(np.isfinite(m.coef_))
    # The fitted boundary -b0 / b1 lies between the two groups.
    assert 50 < -m.coef_[0] / m.coef_[1] < 51
    out = m.draw(np.array([[0.0], [20.0], [80.0], [99.0]]), np.random.default_rng(6))
    np.testing.assert_array_equal(out, [0, 0, 1, 1])


def test_logreg_refuses_more_than_two_codes_and_bad_params():
    x = np.zeros((10, 1))
    with pytest.raises(MethodError, match="polyreg"):
        LogRegMethod().fit(x, np.arange(10, dtype=np.int64) % 3)
    with pytest.raises(ParameterError, match="ridge"):
        PolyRegMethod(ridge=-1.0).fit(x, np.arange(10, dtype=np.int64) % 2)
