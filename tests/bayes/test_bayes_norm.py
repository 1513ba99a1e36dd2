"""bayes_norm: the weighted NIG pseudo posterior against a grid integral, duplication and
Monte Carlo."""

import numpy as np
import pytest
from scipy.special import logsumexp

from synthguard.bayes import BayesNorm
from synthguard.errors import DataError, MethodError, NotFittedError
from synthguard.synthesis.registry import get_method


def _data(n=40, p=2, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    y = 1.0 + X @ np.arange(1, p + 1) + rng.normal(scale=1.5, size=n)
    return X, y, rng


def test_registered_and_weighted():
    assert get_method("bayes_norm") is BayesNorm
    assert BayesNorm.supports_weights


def test_intercept_only_matches_grid_integral_of_weighted_posterior():
    # Independent check: integrate prod_i N(y_i | b, s2)^{w_i} N(b | 0, s2 c^2) IG(s2 | a0, b0)
    # numerically over (b, log s2) and compare moments with the closed form.
    rng = np.random.default_rng(5)
    y = rng.normal(3.0, 2.0, size=25)
    w = rng.uniform(0.1, 1.0, size=25)
    c, a0, b0 = 10.0, 2.0, 1.0
    post = BayesNorm(prior_scale=c, a0=a0, b0=b0, standardize=False).fit(
        np.zeros((25, 0)), y, weights=w
    ).posterior_
    b = np.linspace(-2, 8, 801)
    ls = np.linspace(-1.5, 4.0, 801)
    B, LS = np.meshgrid(b, ls, indexing="ij")
    S2 = np.exp(LS)
    ll = -0.5 * np.log(S2)[..., None] * 1.0 - 0.5 * (y - B[..., None]) ** 2 / S2[..., None]
    logp = (w * ll).sum(-1)
    logp += -0.5 * np.log(S2 * c**2) - 0.5 * B**2 / (S2 * c**2)
    logp += -(a0 + 1) * np.log(S2) - b0 / S2 + LS  # IG density times Jacobian of log s2
    pw = np.exp(logp - logsumexp(logp))
    e_b = (pw * B).sum()
    v_b = (pw * (B - e_b) ** 2).sum()
    e_s2 = (pw * S2).sum()
    assert post.beta_mean[0] == pytest.approx(e_b, rel=1e-4)
    assert post.beta_cov[0, 0] == pytest.approx(v_b, rel=1e-3)
    assert post.sigma2_mean == pytest.approx(e_s2, rel=1e-3)


def test_half_weights_equal_half_sufficient_statistics():
    X, y, _ = _data()
    post = BayesNorm(standardize=False).fit(X, y, weights=np.full(y.size, 0.5)).posterior_
    X1 = np.column_stack([np.ones(y.size), X])
    prec = np.eye(3) / 100 + 0.5 * X1.T @ X1
    mean = np.linalg.solve(prec, 0.5 * X1.T @ y)
    a = 2.0 + 0.25 * y.size
    b = 1.0 + 0.5 * (0.5 * y @ y - mean @ prec @ mean)  # b0 + (y'Wy - m'Lm)/2 with m0 = 0
    np.testing.assert_allclose(post.precision, prec, rtol=1e-12)
    np.testing.assert_allclose(post.mean, mean, rtol=1e-10)
    assert post.a == pytest.approx(a)
    assert post.b == pytest.approx(b, rel=1e-10)


@pytest.mark.parametrize("standardize", [True, False])
def test_integer_weights_equal_duplicated_records_and_zero_removes(standardize):
    X, y, rng = _data(seed=2)
    w = rng.integers(0, 4, size=y.size).astype(float)
    rep = np.repeat(np.arange(y.size), w.astype(int))
    a = BayesNorm(standardize=standardize).fit(X, y, weights=w)
    b = BayesNorm(standardize=standardize).fit(X[rep], y[rep])
    np.testing.assert_allclose(a.posterior_.mean, b.posterior_.mean, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(a.posterior_.precision, b.posterior_.precision, rtol=1e-9, atol=1e-9)
    assert a.posterior_.b == pytest.approx(b.posterior_.b, rel=1e-9)
    d1 = a.draw(X, np.random.default_rng(9))
    d2 = b.draw(X, np.random.default_rng(9))
    np.testing.assert_allclose(d1, d2, rtol=1e-9)


def test_unit_weights_reproduce_unweighted():
    X, y, _ = _data(seed=3)
    a = BayesNorm().fit(X, y, weights=np.ones(y.size)).posterior_
    b = BayesNorm().fit(X, y).posterior_
    np.testing.assert_array_equal(a.mean, b.mean)
    assert a.b == b.b


def test_exact_sampler_matches_closed_form_moments():
    X, y, rng = _data(seed=4)
    m = BayesNorm(standardize=False).fit(X, y, weights=rng.uniform(size=y.size))
    beta, s2 = m.sample_posterior(40_000, np.random.default_rng(0))
    post = m.posterior_
    se = np.sqrt(np.diag(post.beta_cov) / beta.shape[0])
    assert np.all(np.abs(beta.mean(0) - post.beta_mean) < 4 * se)
    # covariance entries: Monte Carlo sd about sqrt(2/40000) ~ 0.7% of the diagonal
    np.testing.assert_allclose(np.cov(beta.T), post.beta_cov, rtol=0.05, atol=0.03 * post.beta_cov[0, 0])
    sd_s2 = np.sqrt(post.b**2 / ((post.a - 1) ** 2 * (post.a - 2)))
    assert abs(s2.mean() - post.sigma2_mean) < 4 * sd_s2 / np.sqrt(s2.size)


def test_draws_are_proper_and_reproducible():
    X, y, _ = _data(n=200, seed=6)
    m = BayesNorm().fit(X, y)
    a = m.draw(X, np.random.default_rng(1))
    b = m.draw(X, np.random.default_rng(1))
    c = m.draw(X, np.random.default_rng(2))
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, c)
    # the synthetic values follow the fitted regression
    coef = np.linalg.lstsq(np.column_stack([np.ones(200), X]), a, rcond=None)[0]
    np.testing.assert_allclose(coef, [1, 1, 2], atol=0.6)


def test_errors():
    X, y, _ = _data()
    with pytest.raises(MethodError):
        BayesNorm().fit(X, y, weights=-np.ones(y.size))
    with pytest.raises(MethodError):
        BayesNorm().fit(X, y, weights=np.zeros(y.size))
    with pytest.raises(MethodError):
        BayesNorm(a0=0).fit(X, y)
    y2 = y.copy()
    y2[0] = np.nan
    with pytest.raises(DataError):
        BayesNorm().fit(X, y2)
    with pytest.raises(NotFittedError):
        BayesNorm().draw(X, np.random.default_rng(0))
    with pytest.raises(DataError):
        BayesNorm().fit(X, y).draw(X[:, :1], np.random.default_rng(0))
