"""Weighted negative-binomial regression for counts, by slice sampling.

The synthesizer of Hu, Savitsky & Williams's simulation (section 2.4): one negative
binomial likelihood with weakly informative priors. With predictors standardised by
their weighted moments (:mod:`._weighted`; the count outcome stays on its scale)::

    y_i | beta, phi ~ NB(mean mu_i = exp(x_i' beta), dispersion phi),
                      Var(y_i) = mu_i + mu_i^2 / phi
    beta_j          ~ N(0, prior_scale**2)            (intercept included)
    log phi         ~ N(0, phi_prior_scale**2)

Pseudo posterior (eq. 4): log p_w(beta, log phi | y) = sum_i w_i log NB(y_i | mu_i, phi)
+ log prior + const, with

    log NB(y | mu, phi) = lgamma(y + phi) - lgamma(phi) - lgamma(y + 1)
                          + phi log phi + y log mu - (y + phi) log(phi + mu).

Records with identical (x_i, y_i) are collapsed into one with the summed weight (exact,
since the log likelihood is linear in the weights), so categorical predictors make the
likelihood cost depend on the number of distinct rows, not on n.

Sampler: the pseudo-posterior mode and the inverse Hessian there give an affine map
theta = mode + L u (L L' = H^-1); univariate slice sampling (Neal 2003) then updates each
coordinate of u in turn. In these whitened coordinates the target is close to N(0, I),
so coordinate-wise updates mix well; the map only reparameterises (the Jacobian is
constant), so the sampler is exact for the pseudo posterior. Defaults: burn_in = 300,
n_draws = 1000, thin = 2; ``diagnostics_`` reports the effective sample size of every
parameter (Geyer's initial monotone sequence).
"""

from __future__ import annotations

import time

import numpy as np
from threadpoolctl import threadpool_limits

from synthguard._random import RandomState
from synthguard.bayes.mcmc import MCMCDiagnostics, effective_sample_size, slice_step
from synthguard.bayes.models._weighted import (
    Standardizer,
    StoredDrawsMethod,
    check_hyper,
    prepare,
)
from synthguard.errors import ConvergenceError, DataError, MethodError
from synthguard.synthesis.registry import register_method

__all__ = ["BayesNegBin", "negbin_loglik"]


def negbin_loglik(
    y: np.ndarray, eta: np.ndarray, log_phi: float, w: np.ndarray
) -> float:
    """Weighted log likelihood sum_i w_i log NB(y_i | exp(eta_i), exp(log_phi)) (full constant)."""
    from scipy.special import gammaln  # here: registering the method does not load scipy

    phi = np.exp(log_phi)
    log_phi_mu = np.logaddexp(log_phi, eta)
    terms = (
        gammaln(y + phi) - gammaln(phi) - gammaln(y + 1.0)
        + phi * log_phi + y * eta - (y + phi) * log_phi_mu
    )
    return float(w @ terms)


@register_method("bayes_negbin")
class BayesNegBin(StoredDrawsMethod):
    """Weighted Bayesian negative-binomial regression (see the module docstring).

    Parameters
    ----------
    prior_scale : prior sd of each coefficient on the log-mean scale (default 5).
    phi_prior_scale : prior sd of log phi (default 3).
    burn_in, n_draws, thin : the run (defaults 300, 1000, 2).
    standardize : standardise the predictors by their weighted moments (default True).
    random_state : seed of the chain; None runs it from the generator ``fit`` receives,
        or from fresh randomness without one.

    Attributes
    ----------
    draws_ : dict
        Set when the chain has run: the kept draws, ``beta`` (S, p+1) and ``phi`` (S,).
    diagnostics_ : MCMCDiagnostics
        The run, with ``ess`` for every parameter.
    """

    target_kinds = frozenset({"numeric"})
    supports_weights = True

    def __init__(
        self,
        *,
        prior_scale: float = 5.0,
        phi_prior_scale: float = 3.0,
        burn_in: int = 300,
        n_draws: int = 1000,
        thin: int = 2,
        standardize: bool = True,
        random_state: RandomState = None,
    ) -> None:
        self.prior_scale = prior_scale
        self.phi_prior_scale = phi_prior_scale
        self.burn_in = burn_in
        self.n_draws = n_draws
        self.thin = thin
        self.standardize = standardize
        self.random_state = random_state

    def fit(
        self, X: np.ndarray, y: np.ndarray, weights: np.ndarray | None = None,
        *, rng: np.random.Generator | None = None,
    ) -> BayesNegBin:
        """Validate and store the collapsed data; run the chain (see ``StoredDrawsMethod``)."""
        check_hyper(self.name, prior_scale=self.prior_scale, phi_prior_scale=self.phi_prior_scale)
        if int(self.n_draws) < 1 or int(self.thin) < 1 or int(self.burn_in) < 0:
            raise MethodError(
                f"method '{self.name}': n_draws and thin must be positive, burn_in non-negative"
            )
        Xa, ya, w = prepare(self.name, X, y, weights)
        if np.any(ya < 0) or np.any(ya != np.round(ya)):
            raise DataError(
                f"method '{self.name}': the target must hold non-negative whole numbers (counts); "
                "choose 'bayes_norm' for other numeric targets"
            )
        std = Standardizer.fit(Xa, ya, w, standardize=self.standardize, scale_y=False)
        self.standardizer_ = std
        keep = w > 0
        X1 = std.transform(Xa[keep])
        rows = np.column_stack([X1, ya[keep]])
        uniq, inverse = np.unique(rows, axis=0, return_inverse=True)
        wsum = np.bincount(inverse.ravel(), weights=w[keep], minlength=uniq.shape[0])
        self.data_ = (uniq[:, :-1], uniq[:, -1], wsum)
        self.n_features_in_ = Xa.shape[1]
        self._reset(rng)
        return self

    # -- posterior ----------------------------------------------------------------------
    def _log_post_and_grad(self, theta: np.ndarray) -> tuple[float, np.ndarray]:
        from scipy.special import psi

        X1, y, w = self.data_
        beta, log_phi = theta[:-1], float(theta[-1])
        eta = X1 @ beta
        phi = np.exp(log_phi)
        lpm = np.logaddexp(log_phi, eta)
        lp = negbin_loglik(y, eta, log_phi, w)
        lp -= 0.5 * float(beta @ beta) / self.prior_scale**2
        lp -= 0.5 * log_phi**2 / self.phi_prior_scale**2
        s = np.exp(eta - lpm)  # mu / (phi + mu)
        g_eta = w * (y - (y + phi) * s)
        g_beta = X1.T @ g_eta - beta / self.prior_scale**2
        inv = np.exp(-lpm)
        g_lphi = phi * float(
            w @ (psi(y + phi) - psi(phi) + log_phi + 1.0 - lpm - (y + phi) * inv)
        ) - log_phi / self.phi_prior_scale**2
        return lp, np.append(g_beta, g_lphi)

    def _log_post(self, theta: np.ndarray) -> float:
        X1, y, w = self.data_
        beta, log_phi = theta[:-1], float(theta[-1])
        lp = negbin_loglik(y, X1 @ beta, log_phi, w)
        lp -= 0.5 * float(beta @ beta) / self.prior_scale**2
        return lp - 0.5 * log_phi**2 / self.phi_prior_scale**2

    def log_posterior(self, beta: np.ndarray, log_phi: float) -> float:
        """Unnormalised log pseudo posterior at ``(beta, log_phi)`` (fitting scale)."""
        self._check_fitted("data_")
        return self._log_post(np.append(np.asarray(beta, float), log_phi))

    def _mode_and_scale(self) -> tuple[np.ndarray, np.ndarray]:
        from scipy.optimize import minimize

        X1, y, w = self.data_
        d = X1.shape[1] + 1
        theta0 = np.zeros(d)
        ybar = float(w @ y / w.sum())
        theta0[0] = np.log(ybar + 0.5)
        var = float(w @ (y - ybar) ** 2 / w.sum())
        theta0[-1] = np.log(max(ybar**2 / max(var - ybar, 1e-3), 1e-2))

        def f(t: np.ndarray) -> tuple[float, np.ndarray]:
            lp, g = self._log_post_and_grad(t)
            return -lp, -g

        res = minimize(f, theta0, jac=True, method="BFGS")
        if not np.all(np.isfinite(res.x)):
            raise ConvergenceError(
                f"method '{self.name}': the pseudo-posterior mode search failed; check the "
                "target holds counts and the predictors are not perfectly collinear"
            )
        mode = res.x
        H = np.empty((d, d))
        for j in range(d):
            h = 1e-5 * max(1.0, abs(mode[j]))
            e = np.zeros(d)
            e[j] = h
            H[j] = -(self._log_post_and_grad(mode + e)[1] - self._log_post_and_grad(mode - e)[1]) / (
                2 * h
            )
        H = 0.5 * (H + H.T)
        try:
            L = np.linalg.cholesky(np.linalg.inv(H))
        except np.linalg.LinAlgError:
            L = np.diag(1.0 / np.sqrt(np.maximum(np.abs(np.diag(H)), 1e-8)))
        return mode, L

    def _run_chain(self, rng: np.random.Generator) -> None:
        # many small matrix products: BLAS threads only add contention (measured 100x slower
        # at n = 100k on a loaded 2-core machine), so the chain runs single-threaded
        with threadpool_limits(limits=1, user_api="blas"):
            self._run_chain_inner(rng)

    def _run_chain_inner(self, rng: np.random.Generator) -> None:
        t0 = time.perf_counter()
        mode, L = self._mode_and_scale()
        d = mode.size
        n_iter = int(self.burn_in) + int(self.n_draws) * int(self.thin)
        out = np.empty((int(self.n_draws), d))
        u = np.zeros(d)
        lp = self._log_post(mode)
        evals = 0
        s = 0
        for it in range(n_iter):
            for j in range(d):
                base = u.copy()

                def logp(x: float, j: int = j, base: np.ndarray = base) -> float:
                    base[j] = x
                    return self._log_post(mode + L @ base)

                u[j], lp, k = slice_step(float(u[j]), logp, lp, 2.5, rng)
                evals += k
            if it >= self.burn_in and (it - self.burn_in) % self.thin == self.thin - 1:
                out[s] = mode + L @ u
                s += 1
        ess = effective_sample_size(out)
        names = ["intercept"] + [f"beta_{j}" for j in range(1, d - 1)] + ["log_phi"]
        self.draws_ = {"beta": out[:, :-1], "phi": np.exp(out[:, -1])}
        self.diagnostics_ = MCMCDiagnostics(
            n_draws=int(self.n_draws),
            burn_in=int(self.burn_in),
            thin=int(self.thin),
            acceptance={"slice_evals_per_update": evals / (n_iter * d)},
            ess=dict(zip(names, np.atleast_1d(ess).tolist(), strict=True)),
            seconds=time.perf_counter() - t0,
        )

    # -- synthesis ----------------------------------------------------------------------
    def draw(self, X: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Pick an unused kept draw of (beta, phi); y* ~ NB(exp(x' beta), phi) by gamma–Poisson."""
        self._ensure_chain(rng)
        j = self._pick(rng)
        beta, phi = self.draws_["beta"][j], float(self.draws_["phi"][j])
        mu = np.exp(np.clip(self.standardizer_.transform(X) @ beta, -700, 700))
        lam = rng.gamma(phi, mu / phi)
        return rng.poisson(lam).astype(float)
