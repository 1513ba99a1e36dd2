"""bayes_mixture: HMC on the weighted mixture pseudo posterior against a grid integral
(K = 1) and the duplication identity (K = 2)."""

import numpy as np
import pytest
from scipy.special import logsumexp

from synthguard.bayes import BayesMixture
from synthguard.bayes.models.bayes_mixture import _Target
from synthguard.errors import MethodError


def test_gradient_matches_finite_differences():
    rng = np.random.default_rng(0)
    n = 30
    X1 = np.column_stack([np.ones(n), rng.normal(size=n)])
    t = _Target(X1, rng.normal(size=n), rng.uniform(size=n), 3, 1.0, np.array([9.0, 1.0]), 2.0, 1.0)
    th = rng.normal(scale=0.5, size=2 + 6 + 3)
    _, g = t(th)
    num = np.array([(t(th + e)[0] - t(th - e)[0]) / 2e-6 for e in np.eye(th.size) * 1e-6])
    np.testing.assert_allclose(g, num, rtol=1e-5, atol=1e-6)


def test_one_component_matches_grid_integral_of_weighted_posterior():
    rng = np.random.default_rng(1)
    y = rng.normal(1.0, 0.8, size=40)
    w = rng.uniform(0.1, 1.0, size=40)
    m = BayesMixture(
        n_components=1, standardize=False, burn_in=300, n_draws=1500, random_state=2
    ).fit(np.zeros((40, 0)), y, weights=w)
    b = np.linspace(0.0, 2.0, 401)
    ls = np.linspace(-2.0, 1.0, 401)
    B, LS = np.meshgrid(b, ls, indexing="ij")
    S2 = np.exp(LS)
    ll = (w * (-0.5 * LS[..., None] - 0.5 * (y - B[..., None]) ** 2 / S2[..., None])).sum(-1)
    logp = ll - 0.5 * B**2 / 9.0 - 2.0 * LS - 1.0 / S2  # N(0, 3^2) and IG(2, 1) in log s2
    pw = np.exp(logp - logsumexp(logp))
    draws = {"beta": m.draws_["beta"][:, 0, 0], "log_s2": np.log(m.draws_["sigma2"][:, 0])}
    for key, G in (("beta", B), ("log_s2", LS)):
        mean = (pw * G).sum()
        sd = np.sqrt((pw * (G - mean) ** 2).sum())
        x = draws[key]
        from synthguard.bayes import effective_sample_size

        ess = effective_sample_size(x)
        assert abs(x.mean() - mean) < 4 * sd / np.sqrt(ess), key
        assert x.std() == pytest.approx(sd, rel=0.15), key


def _summaries(m):
    d = m.draws_
    mean = (d["pi"] * d["beta"][:, :, 0]).sum(1)
    var = (d["pi"] * (d["sigma2"] + d["beta"][:, :, 0] ** 2)).sum(1) - mean**2
    return np.column_stack([mean, var])


def test_half_weights_on_duplicated_data_equal_unweighted_posterior():
    # prod_i p(y_i)^{1/2} p(y_i)^{1/2} = prod_i p(y_i): the same pseudo posterior, so the
    # label-free summaries must agree within Monte Carlo error.
    rng = np.random.default_rng(3)
    y = np.concatenate([rng.normal(-1.5, 0.6, 25), rng.normal(1.5, 0.6, 15)])
    X = np.zeros((y.size, 0))
    kw = {"n_components": 2, "burn_in": 300, "n_draws": 800}
    a = BayesMixture(random_state=4, **kw).fit(X, y)
    b = BayesMixture(random_state=5, **kw).fit(
        np.zeros((2 * y.size, 0)), np.tile(y, 2), weights=np.full(2 * y.size, 0.5)
    )
    from synthguard.bayes import effective_sample_size

    sa, sb = _summaries(a), _summaries(b)
    for j in range(2):
        se = np.sqrt(
            sa[:, j].var() / effective_sample_size(sa[:, j])
            + sb[:, j].var() / effective_sample_size(sb[:, j])
        )
        assert abs(sa[:, j].mean() - sb[:, j].mean()) < 4 * se
        # ignoring the weights would shrink the spread by 1/sqrt(2), about 29%
        assert sb[:, j].std() == pytest.approx(sa[:, j].std(), rel=0.2)


def test_zero_weight_removes_record_and_diagnostics():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(50, 1))
    y = X[:, 0] + rng.normal(size=50)
    w = np.ones(50)
    w[:5] = 0
    kw = {"burn_in": 60, "n_draws": 40, "random_state": 7}
    a = BayesMixture(**kw).fit(X, y, weights=w)
    b = BayesMixture(**kw).fit(X[5:], y[5:])
    # the pseudo likelihood sees exactly the same records (HMC trajectories are chaotic, so
    # rounding-level differences in the standardisation do not give bit-equal chains)
    for u, v in zip(a.data_, b.data_, strict=True):
        np.testing.assert_allclose(u, v, rtol=1e-12, atol=1e-12)
    d = a.diagnostics_
    assert (d.n_draws, d.burn_in, d.thin) == (40, 60, 1)
    assert set(d.ess) == {"log_pseudo_posterior", "mean_at_xbar", "var_at_xbar"}
    assert 0 < d.acceptance["hmc"] <= 1


def test_same_generator_same_implicate_even_on_a_second_pass():
    rng = np.random.default_rng(8)
    X = rng.normal(size=(40, 1))
    y = X[:, 0] + rng.normal(size=40)
    m1 = BayesMixture(burn_in=40, n_draws=20).fit(X, y, rng=np.random.default_rng(1))
    m2 = BayesMixture(burn_in=40, n_draws=20).fit(X, y, rng=np.random.default_rng(1))
    first = [m1.draw(X, np.random.default_rng(s)) for s in range(4)]
    again = [m1.draw(X, np.random.default_rng(s)) for s in range(4)]
    other = [m2.draw(X, np.random.default_rng(s)) for s in reversed(range(4))][::-1]
    for u, v, w in zip(first, again, other, strict=True):
        np.testing.assert_array_equal(u, v)
        np.testing.assert_array_equal(u, w)
    assert not np.array_equal(first[0], first[1])


def test_bad_parameters():
    with pytest.raises(MethodError):
        BayesMixture(n_components=0).fit(np.zeros((3, 0)), np.arange(3.0))
    with pytest.raises(MethodError):
        BayesMixture(prior_scale=-1).fit(np.zeros((3, 0)), np.arange(3.0))


def test_negligible_weights_give_back_the_prior():
    # With every weight 1e-9 the pseudo posterior is the prior: pi ~ Dirichlet(alpha),
    # log sigma2 with mean log b0 - digamma(a0) and variance trigamma(a0), beta_k0 ~ N(0, 3^2).
    # This checks the priors and the Jacobians of the unconstrained coordinates.
    from scipy.special import digamma, polygamma

    from synthguard.bayes import effective_sample_size

    y = np.array([0.3, -1.0, 2.0, 0.5, 1.1])
    m = BayesMixture(n_components=3, dirichlet_alpha=2.0, standardize=False, burn_in=300,
                     n_draws=2000, random_state=9).fit(np.zeros((5, 0)), y, weights=np.full(5, 1e-9))
    d = m.draws_
    checks = [
        (d["pi"][:, 0], 1 / 3, np.sqrt(2 / (9 * 7))),
        (np.log(d["sigma2"][:, 1]), -digamma(2.0), np.sqrt(polygamma(1, 2.0))),
        (d["beta"][:, 2, 0], 0.0, 3.0),
    ]
    for x, mean, sd in checks:
        assert abs(x.mean() - mean) < 4 * sd / np.sqrt(effective_sample_size(x))
        assert x.std() == pytest.approx(sd, rel=0.15)
