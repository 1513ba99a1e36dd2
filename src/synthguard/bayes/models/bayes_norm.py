"""Weighted Bayesian normal linear regression with a conjugate Normal–Inverse-Gamma prior.

Model (on the standardised scale of :mod:`._weighted`, intercept included)::

    y_i | beta, sigma2 ~ N(x_i' beta, sigma2)
    beta | sigma2      ~ N(m0, sigma2 * V0),   m0 = 0, V0 = prior_scale**2 * I
    sigma2             ~ Inverse-Gamma(a0, b0)

Raising each likelihood contribution to its weight w_i (Hu, Savitsky & Williams, eq. 4)
keeps the prior conjugate; the pseudo posterior is Normal–Inverse-Gamma with the
*weighted* sufficient statistics X'WX, X'Wy, y'Wy and sum(w) in place of the usual ones:

    Lambda_n = V0^-1 + X'WX
    m_n      = Lambda_n^-1 (V0^-1 m0 + X'Wy)
    a_n      = a0 + sum(w) / 2
    b_n      = b0 + (y'Wy + m0' V0^-1 m0 - m_n' Lambda_n m_n) / 2
             = b0 + (sum_i w_i (y_i - x_i' m_n)^2 + (m_n - m0)' V0^-1 (m_n - m0)) / 2

It is sampled exactly: sigma2 ~ IG(a_n, b_n), then beta ~ N(m_n, sigma2 Lambda_n^-1).

Default hyper-parameters (weakly informative on the standardised scale, where the
outcome has weighted mean 0 and variance 1): ``prior_scale = 10`` (coefficients a priori
within about +-20 outcome standard deviations per predictor standard deviation),
``a0 = 2``, ``b0 = 1`` (prior mean of sigma2 equal to the outcome's variance; worth
2 a0 = 4 records).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from synthguard.bayes.models._weighted import Standardizer, check_hyper, prepare
from synthguard.synthesis.methods.base import SynthesisMethod
from synthguard.synthesis.registry import register_method

__all__ = ["BayesNorm", "NIGPosterior", "nig_posterior"]


@dataclass(frozen=True)
class NIGPosterior:
    """A Normal–Inverse-Gamma (pseudo) posterior: beta | sigma2 ~ N(mean, sigma2 precision^-1),
    sigma2 ~ IG(a, b)."""

    mean: np.ndarray
    precision: np.ndarray
    a: float
    b: float

    @property
    def beta_mean(self) -> np.ndarray:
        """E[beta] (= ``mean``)."""
        return self.mean

    @property
    def beta_cov(self) -> np.ndarray:
        """Cov[beta] = b / (a - 1) * precision^-1 (finite for a > 1)."""
        return self.b / (self.a - 1.0) * np.linalg.inv(self.precision)

    @property
    def sigma2_mean(self) -> float:
        """E[sigma2] = b / (a - 1) (finite for a > 1)."""
        return self.b / (self.a - 1.0)

    def draw(self, rng: np.random.Generator, size: int = 1) -> tuple[np.ndarray, np.ndarray]:
        """``size`` exact draws: ``(beta of shape (size, p), sigma2 of shape (size,))``."""
        sigma2 = self.b / rng.gamma(self.a, 1.0, size=size)
        chol = np.linalg.cholesky(self.precision)
        z = rng.standard_normal((self.mean.size, size))
        # beta = m + sigma L^-T z has covariance sigma2 (L L')^-1
        dev = np.linalg.solve(chol.T, z).T * np.sqrt(sigma2)[:, None]
        return self.mean + dev, sigma2


def nig_posterior(
    X1: np.ndarray,
    y: np.ndarray,
    w: np.ndarray,
    *,
    prior_scale: float,
    a0: float,
    b0: float,
) -> NIGPosterior:
    """The weighted NIG pseudo posterior from the design ``X1`` (intercept included).

    Prior mean m0 = 0 and V0 = prior_scale**2 I (see the module docstring for the
    formulas; Hu, Savitsky & Williams, eq. 4, with a conjugate normal likelihood).
    """
    p = X1.shape[1]
    prec0 = np.eye(p) / prior_scale**2
    xtwx = X1.T @ (X1 * w[:, None])
    xtwy = X1.T @ (w * y)
    precision = prec0 + xtwx
    mean = np.linalg.solve(precision, xtwy)
    resid = y - X1 @ mean
    a = a0 + 0.5 * float(w.sum())
    b = b0 + 0.5 * (float(w @ resid**2) + float(mean @ prec0 @ mean))
    return NIGPosterior(mean=mean, precision=precision, a=a, b=b)


@register_method("bayes_norm")
class BayesNorm(SynthesisMethod):
    """Weighted Bayesian normal regression, conjugate Normal–Inverse-Gamma prior, exact draws.

    Each :meth:`draw` takes a fresh (beta, sigma2) from the pseudo posterior and then one
    synthetic value per row (proper synthesis: every implicate from its own posterior draw).

    Parameters
    ----------
    prior_scale : prior standard deviation of each coefficient, in units of sigma
        (V0 = prior_scale**2 I). Default 10.
    a0, b0 : Inverse-Gamma prior of sigma2. Defaults 2 and 1.
    standardize : fit on the weighted-standardised scale (default True). With False
        the priors apply to the raw units.

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> X = rng.normal(size=(200, 1)); y = 1 + 2 * X[:, 0] + rng.normal(size=200)
    >>> m = BayesNorm().fit(X, y, weights=np.full(200, 0.5))
    >>> m.draw(X[:3], rng).shape
    (3,)
    """

    target_kinds = frozenset({"numeric"})
    supports_weights = True

    def __init__(
        self,
        *,
        prior_scale: float = 10.0,
        a0: float = 2.0,
        b0: float = 1.0,
        standardize: bool = True,
    ) -> None:
        self.prior_scale = prior_scale
        self.a0 = a0
        self.b0 = b0
        self.standardize = standardize

    def fit(
        self, X: np.ndarray, y: np.ndarray, weights: np.ndarray | None = None,
        *, rng: np.random.Generator | None = None,
    ) -> BayesNorm:
        """Compute the weighted NIG pseudo posterior; returns ``self``."""
        check_hyper(self.name, prior_scale=self.prior_scale, a0=self.a0, b0=self.b0)
        Xa, ya, w = prepare(self.name, X, y, weights)
        std = Standardizer.fit(Xa, ya, w, standardize=self.standardize)
        self.standardizer_ = std
        self.posterior_ = nig_posterior(
            std.transform(Xa), std.scale_y(ya), w,
            prior_scale=self.prior_scale, a0=self.a0, b0=self.b0,
        )
        self.n_features_in_ = Xa.shape[1]
        return self

    def sample_posterior(
        self, size: int, rng: np.random.Generator
    ) -> tuple[np.ndarray, np.ndarray]:
        """``size`` exact pseudo-posterior draws ``(beta, sigma2)`` on the fitting scale."""
        self._check_fitted("posterior_")
        return self.posterior_.draw(rng, size)

    def draw(self, X: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """One posterior draw of (beta, sigma2), then y* ~ N(x' beta, sigma2) per row."""
        self._check_fitted("posterior_")
        X1 = self.standardizer_.transform(X)
        beta, sigma2 = self.posterior_.draw(rng, 1)
        z = X1 @ beta[0] + np.sqrt(sigma2[0]) * rng.standard_normal(X1.shape[0])
        return self.standardizer_.unscale_y(z)
