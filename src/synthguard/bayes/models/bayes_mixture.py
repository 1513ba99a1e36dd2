"""Weighted finite mixture of normal regressions, by Hamiltonian Monte Carlo.

The synthesizer of Hu, Savitsky & Williams for CE log family income (their supplement:
a finite mixture of regressions, fitted in Stan). On the standardised scale
(:mod:`._weighted`)::

    y_i | theta   ~ sum_k pi_k N(x_i' beta_k, sigma2_k),   k = 1..K
    pi            ~ Dirichlet(dirichlet_alpha, ..., dirichlet_alpha)
    beta_k0       ~ N(0, prior_scale**2)            (intercept)
    beta_kj       ~ N(0, slope_scale**2)            (slopes; independent of sigma2_k)
    sigma2_k      ~ Inverse-Gamma(a0, b0)

Target: the pseudo posterior of eq. (4), prod_i p(y_i | theta)^{w_i} p(theta), with the
*marginal* mixture likelihood of each record raised to its weight:

    log p_w(theta | y) = sum_i w_i log sum_k pi_k N(y_i; x_i' beta_k, sigma2_k) + log p(theta).

Why not data-augmentation Gibbs. Allocating records with the unweighted probabilities
and updating theta from weighted complete-data sufficient statistics is exact only when
every weight is one: the joint ``p(theta) prod_i p(y_i|theta)^{w_i} p(z_i|y_i,theta)`` has the
right theta margin, but its theta-conditional carries the extra factor
``prod_i p(z_i|y_i,theta)^{1-w_i}``, so the weighted conjugate draw is only a proposal.
Correcting it by Metropolis–Hastings is exact but its acceptance collapses when components
overlap (measured: 0% for the coefficient block with uniform weights on n = 1000); tempered
allocations have the same problem. This module therefore samples the marginal pseudo
posterior directly, as Stan does, by HMC in unconstrained coordinates
(additive-logistic pi, beta, log sigma2) with the analytic gradient (the weighted
responsibilities w_i r_ik play the role of the weighted sufficient statistics). A few
weighted Gibbs sweeps only find a starting point. During burn-in the step size is tuned by
dual averaging (Hoffman & Gelman 2014, target acceptance 0.8) and a diagonal mass matrix
is estimated from the draws in two windows (15-35% and 35-85% of burn-in, as Stan's
warm-up); the number of leapfrog steps is drawn from 1..2 n_leapfrog. The kept draws are
exact pseudo-posterior draws whatever the tuning; ``diagnostics_`` reports how well they
mix (acceptance, step size, ESS).

Defaults: K = 3, dirichlet_alpha = 1, prior_scale = 3, slope_scale = 1, a0 = 2, b0 = 1
(weakly informative on the standardised scale, where y has weighted mean 0 and variance 1,
numeric predictors have sd 1 and 0/1 dummies are centred but not scaled: a slope of 1 is one
outcome sd per predictor sd or per category; a component with few records then cannot draw
absurd effects for rare categories, which on a log scale would explode after back-transform);
burn_in = 500, n_draws = 1000, thin = 1, n_leapfrog = 10 (about 5 s for the CE sample).
"""

from __future__ import annotations

import time

import numpy as np
from threadpoolctl import threadpool_limits

from synthguard._random import RandomState
from synthguard.bayes.mcmc import MCMCDiagnostics, effective_sample_size
from synthguard.bayes.models._weighted import (
    Standardizer,
    StoredDrawsMethod,
    check_hyper,
    prepare,
)
from synthguard.errors import MethodError
from synthguard.synthesis.registry import register_method

__all__ = ["BayesMixture"]

_LOG2PI = float(np.log(2 * np.pi))


_BLOCK = 8192


def _block(
    X1T: np.ndarray, X1: np.ndarray, y: np.ndarray, w: np.ndarray, beta: np.ndarray,
    c0: np.ndarray, h: np.ndarray,
) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
    """One block of records: sum_i w_i log sum_k pi_k N_ik, and the weighted-responsibility
    sums n_k = sum_i w_i r_ik, sum_i w_i r_ik (y_i - mu_ik) x_i and sum_i w_i r_ik (y_i - mu_ik)^2.
    Arrays are K x block, so reductions over components are elementwise."""
    resid = beta @ X1T
    np.subtract(y, resid, out=resid)
    r2 = resid * resid
    lj = r2 * h[:, None]
    lj += c0[:, None]
    top = lj.max(axis=0)
    lj -= top
    np.exp(lj, out=lj)
    tot = lj.sum(axis=0)
    ll = float(w @ (top + np.log(tot)))
    lj *= w / tot  # weighted responsibilities w_i r_ik
    nk = lj.sum(axis=1)
    r2 *= lj
    resid *= lj
    return ll, nk, resid @ X1, r2.sum(axis=1)


class _Target:
    """Log pseudo posterior and gradient in unconstrained coordinates.

    theta = [v_1..v_{K-1}, beta (K x p1, row-major), s_1..s_K] with pi = softmax(v, 0),
    sigma2 = exp(s). Jacobians: additive-logistic prod_k pi_k, and sigma2 for each s_k.
    """

    def __init__(self, X1, y, w, K, alpha, tau2, a0, b0):  # type: ignore[no-untyped-def]
        # tau2: prior variances of the p1 coefficients (intercept first)
        self.X1, self.y, self.w = X1, y, w
        self.X1T = np.ascontiguousarray(X1.T)
        self.K, self.p1 = K, X1.shape[1]
        self.alpha, self.tau2, self.a0, self.b0 = alpha, tau2, a0, b0
        self.wsum = float(w.sum())

    def unpack(self, th: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        K, p1 = self.K, self.p1
        v = np.append(th[: K - 1], 0.0)
        top = float(v.max())
        log_pi = v - (top + float(np.log(np.exp(v - top).sum())))
        beta = th[K - 1 : K - 1 + K * p1].reshape(K, p1)
        s = th[K - 1 + K * p1 :]
        return log_pi, beta, s

    def pack(self, pi: np.ndarray, beta: np.ndarray, sigma2: np.ndarray) -> np.ndarray:
        lp = np.log(np.maximum(pi, 1e-300))
        return np.concatenate([lp[:-1] - lp[-1], beta.ravel(), np.log(sigma2)])

    def __call__(self, th: np.ndarray) -> tuple[float, np.ndarray]:
        log_pi, beta, s = self.unpack(th)
        if float(np.abs(s).max()) > 700 or float(log_pi.min()) < -700:
            return -np.inf, np.zeros_like(th)
        pi = np.exp(log_pi)
        sigma2 = np.exp(s)
        # blocks of records so the K x n temporaries stay in cache (memory traffic dominates)
        ll, nk, xr, r2s = 0.0, np.zeros(self.K), np.zeros((self.K, self.p1)), np.zeros(self.K)
        c0 = log_pi - 0.5 * (_LOG2PI + s)
        h = -0.5 / sigma2
        n = self.y.size
        for a in range(0, n, _BLOCK):
            b = min(a + _BLOCK, n)
            ll_b, nk_b, xr_b, r2_b = _block(self.X1T[:, a:b], self.X1[a:b], self.y[a:b],
                                            self.w[a:b], beta, c0, h)
            ll += ll_b
            nk += nk_b
            xr += xr_b
            r2s += r2_b
        lp = ll
        lp += float(self.alpha * log_pi.sum())
        lp -= 0.5 * float((beta**2 / self.tau2).sum())
        lp += float((-self.a0 * s - self.b0 * np.exp(-s)).sum())
        g_v = (nk - pi * self.wsum + self.alpha - self.K * self.alpha * pi)[:-1]
        g_beta = xr / sigma2[:, None] - beta / self.tau2
        g_s = -0.5 * nk + 0.5 * r2s / sigma2 - self.a0 + self.b0 * np.exp(-s)
        return lp, np.concatenate([g_v, g_beta.ravel(), g_s])


@register_method("bayes_mixture")
class BayesMixture(StoredDrawsMethod):
    """Weighted finite mixture of normal regressions (see the module docstring).

    Parameters
    ----------
    n_components : K, default 3.
    dirichlet_alpha, prior_scale, slope_scale, a0, b0 : priors (defaults 1, 3, 1, 2, 1).
    burn_in, n_draws, thin : the run: ``burn_in + n_draws * thin`` HMC iterations, of which
        every ``thin``-th after burn-in is kept. Defaults 500, 1000, 1.
    n_leapfrog : average number of leapfrog steps per iteration (default 10).
    standardize : fit on the weighted-standardised scale (default True).
    random_state : seed of the chain; None runs it from the generator ``fit`` receives
        (so the synthesizer's seed governs it), or from fresh randomness without one.

    Attributes
    ----------
    draws_ : dict
        Set when the chain has run: the kept draws, ``pi`` (S, K), ``beta`` (S, K, p+1) and
        ``sigma2`` (S, K).
    diagnostics_ : MCMCDiagnostics
        The run: HMC acceptance; ESS of the log pseudo-likelihood and of the mixture mean
        and variance at the average predictor, quantities that do not depend on the
        labelling.
    """

    target_kinds = frozenset({"numeric"})
    supports_weights = True

    def __init__(
        self,
        *,
        n_components: int = 3,
        dirichlet_alpha: float = 1.0,
        prior_scale: float = 3.0,
        slope_scale: float = 1.0,
        a0: float = 2.0,
        b0: float = 1.0,
        burn_in: int = 500,
        n_draws: int = 1000,
        thin: int = 1,
        n_leapfrog: int = 10,
        standardize: bool = True,
        random_state: RandomState = None,
    ) -> None:
        self.n_components = n_components
        self.dirichlet_alpha = dirichlet_alpha
        self.prior_scale = prior_scale
        self.slope_scale = slope_scale
        self.a0 = a0
        self.b0 = b0
        self.burn_in = burn_in
        self.n_draws = n_draws
        self.thin = thin
        self.n_leapfrog = n_leapfrog
        self.standardize = standardize
        self.random_state = random_state

    def fit(
        self, X: np.ndarray, y: np.ndarray, weights: np.ndarray | None = None,
        *, rng: np.random.Generator | None = None,
    ) -> BayesMixture:
        """Validate and store the (standardised) data; run the chain (see ``StoredDrawsMethod``)."""
        check_hyper(
            self.name, dirichlet_alpha=self.dirichlet_alpha, prior_scale=self.prior_scale,
            slope_scale=self.slope_scale, a0=self.a0, b0=self.b0,
        )
        if min(int(self.n_components), int(self.n_draws), int(self.thin), int(self.n_leapfrog)) < 1:
            raise MethodError(
                f"method '{self.name}': n_components, n_draws, thin and n_leapfrog must be "
                "positive integers"
            )
        if int(self.burn_in) < 0:
            raise MethodError(f"method '{self.name}': burn_in must be a non-negative integer")
        Xa, ya, w = prepare(self.name, X, y, weights)
        std = Standardizer.fit(Xa, ya, w, standardize=self.standardize, scale_binary=False)
        self.standardizer_ = std
        keep = w > 0  # zero-weight records do not enter the pseudo likelihood at all
        self.data_ = (std.transform(Xa[keep]), std.scale_y(ya[keep]), w[keep])
        self.n_features_in_ = Xa.shape[1]
        self._reset(rng)
        return self

    # -- the sampler -------------------------------------------------------------------
    def _start(self, target: _Target, rng: np.random.Generator) -> np.ndarray:
        """A starting point: weighted quantile groups, then 20 weighted Gibbs sweeps."""
        X1, y, w = self.data_
        n, p1 = X1.shape
        K = int(self.n_components)
        order = np.argsort(y, kind="stable")
        cw = np.cumsum(w[order]) / w.sum()
        z: np.ndarray = np.empty(n, dtype=np.int64)
        z[order] = np.minimum((cw * K).astype(np.int64), K - 1)
        pi: np.ndarray = np.full(K, 1.0 / K)
        beta = np.zeros((K, p1))
        sigma2 = np.ones(K)
        from scipy.special import logsumexp  # here: registering the method does not load scipy

        for sweep in range(21):
            if sweep:
                lj = np.log(pi) - 0.5 * np.log(sigma2) - 0.5 * (y[:, None] - X1 @ beta.T) ** 2 / sigma2
                prob = np.exp(lj - logsumexp(lj, axis=1, keepdims=True))
                z = np.minimum(np.sum(rng.random((n, 1)) > np.cumsum(prob, axis=1), axis=1), K - 1)
            for k in range(K):
                m = z == k
                wk = w[m]
                if wk.sum() <= 0:
                    continue
                Xk = X1[m]
                prec = np.diag(1.0 / target.tau2) + Xk.T @ (Xk * wk[:, None])
                beta[k] = np.linalg.solve(prec, Xk.T @ (wk * y[m]))
                sigma2[k] = max(float(wk @ (y[m] - Xk @ beta[k]) ** 2) / wk.sum(), 1e-2)
            pi = np.array([w[z == k].sum() for k in range(K)]) + self.dirichlet_alpha
            pi = pi / pi.sum()
        return target.pack(pi, beta, sigma2)

    def _run_chain(self, rng: np.random.Generator) -> None:
        # many small matrix products: BLAS threads only add contention (measured 100x slower
        # at n = 100k on a loaded 2-core machine), so the chain runs single-threaded
        with threadpool_limits(limits=1, user_api="blas"):
            self._run_chain_inner(rng)

    def _run_chain_inner(self, rng: np.random.Generator) -> None:
        t0 = time.perf_counter()
        X1, y, w = self.data_
        K = int(self.n_components)
        target = _Target(
            X1, y, w, K, float(self.dirichlet_alpha),
            np.r_[float(self.prior_scale) ** 2, np.full(X1.shape[1] - 1, float(self.slope_scale) ** 2)],
            float(self.a0), float(self.b0),
        )
        th = self._start(target, rng)
        lp, grad = target(th)
        d = th.size
        inv_mass = np.ones(d)
        # dual averaging of the step size (Hoffman & Gelman 2014, algorithm 5)
        eps = 0.1
        mu_da, h_bar, log_eps_bar, gamma, t0_da, kappa, delta = np.log(10 * eps), 0.0, 0.0, 0.05, 10.0, 0.75, 0.8
        burn = int(self.burn_in)
        window: list[np.ndarray] = []  # draws used to estimate the diagonal mass matrix
        S, thin = int(self.n_draws), int(self.thin)
        out = np.empty((S, d))
        trace = np.empty((S, 3))
        n_iter = burn + S * thin
        n_acc, n_post, s_i, n_grad = 0.0, 0, 0, 0
        for it in range(n_iter):
            n_steps = int(rng.integers(1, 2 * int(self.n_leapfrog) + 1))
            p0 = rng.standard_normal(d) / np.sqrt(inv_mass)
            th1, g1, p = th.copy(), grad.copy(), p0.copy()
            p = p + 0.5 * eps * g1
            ok = True
            for step in range(n_steps):
                th1 = th1 + eps * inv_mass * p
                lp1, g1 = target(th1)
                n_grad += 1
                if not np.isfinite(lp1):
                    ok = False
                    break
                if step < n_steps - 1:
                    p = p + eps * g1
            if ok:
                p = p + 0.5 * eps * g1
                h0 = lp - 0.5 * float(p0 @ (inv_mass * p0))
                h1 = lp1 - 0.5 * float(p @ (inv_mass * p))
                acc = float(np.exp(min(0.0, h1 - h0))) if np.isfinite(h1) else 0.0
            else:
                acc = 0.0
            if rng.random() < acc:
                th, lp, grad = th1, lp1, g1
            if it < burn:
                m = it + 1 - (int(0.35 * burn) if it >= int(0.35 * burn) else 0)
                m = m - (int(0.85 * burn) - int(0.35 * burn) if it >= int(0.85 * burn) else 0)
                h_bar = (1 - 1 / (m + t0_da)) * h_bar + (delta - acc) / (m + t0_da)
                log_eps = mu_da - np.sqrt(m) / gamma * h_bar
                eta = m ** (-kappa)
                log_eps_bar = eta * log_eps + (1 - eta) * log_eps_bar
                eps = float(np.exp(log_eps))
                # mass-matrix windows as Stan's warm-up: [15%, 35%) then [35%, 85%) of burn-in
                lo1, lo2, hi = int(0.15 * burn), int(0.35 * burn), int(0.85 * burn)
                if lo1 <= it < hi:
                    window.append(th.copy())
                if it in (lo2 - 1, hi - 1) and len(window) > 10:
                    var = np.var(np.array(window), axis=0)
                    n_w = len(window)
                    inv_mass = (n_w / (n_w + 5.0)) * var + 1e-3 * (5.0 / (n_w + 5.0))
                    mu_da, h_bar, log_eps_bar = np.log(10 * eps), 0.0, 0.0
                    window = []
                if it == burn - 1:
                    eps = float(np.exp(log_eps_bar))
            else:
                n_acc += acc
                n_post += 1
                if (it - burn) % thin == thin - 1:
                    out[s_i] = th
                    log_pi, beta, s = target.unpack(th)
                    pi = np.exp(log_pi)
                    m0 = float(pi @ beta[:, 0])
                    trace[s_i] = (lp, m0, float(pi @ (np.exp(s) + beta[:, 0] ** 2)) - m0**2)
                    s_i += 1
        pis, betas, sig = zip(*(target.unpack(t) for t in out), strict=True)
        ess = np.atleast_1d(effective_sample_size(trace))
        self.draws_ = {
            "pi": np.exp(np.array(pis)), "beta": np.array(betas), "sigma2": np.exp(np.array(sig)),
        }
        self.diagnostics_ = MCMCDiagnostics(
            n_draws=S,
            burn_in=burn,
            thin=thin,
            acceptance={"hmc": n_acc / max(n_post, 1), "step_size": eps,
                        "gradients_per_iteration": n_grad / n_iter},
            ess={"log_pseudo_posterior": ess[0], "mean_at_xbar": ess[1], "var_at_xbar": ess[2]},
            seconds=time.perf_counter() - t0,
        )

    # -- synthesis ---------------------------------------------------------------------
    def draw(self, X: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Pick an unused kept posterior draw; draw a component, then y*, for each row."""
        self._ensure_chain(rng)
        j = self._pick(rng)
        pi, beta, sigma2 = self.draws_["pi"][j], self.draws_["beta"][j], self.draws_["sigma2"][j]
        X1 = self.standardizer_.transform(X)
        comp = rng.choice(pi.size, size=X1.shape[0], p=pi / pi.sum())
        mu = np.einsum("ij,ij->i", X1, beta[comp])
        z = mu + np.sqrt(sigma2[comp]) * rng.standard_normal(X1.shape[0])
        return self.standardizer_.unscale_y(z)
