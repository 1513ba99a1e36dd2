"""Propensity models for the discriminant measures: an unpenalised logistic regression fitted
by iteratively reweighted least squares (the maximum-likelihood fit R's ``glm`` gives), and
scikit-learn trees (CART, histogram gradient boosting)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import expit

__all__: list[str] = []


@dataclass
class LogisticFit:
    coef: np.ndarray  # (p + 1,), intercept first
    cov: np.ndarray  # inverse Fisher information at the fit
    rank: int  # rank of the design with intercept: the number k of parameters
    converged: bool


def _with_intercept(X: np.ndarray) -> np.ndarray:
    return np.hstack([np.ones((X.shape[0], 1), dtype=X.dtype), X])


def design_rank(X: np.ndarray) -> int:
    """Rank of ``[1, X]`` from the eigenvalues of its scaled Gram matrix (cheap for tall X)."""
    X1 = _with_intercept(X)
    g = X1.T @ X1
    d = np.sqrt(np.clip(np.diag(g), 1e-300, None))
    ev = np.linalg.eigvalsh(g / np.outer(d, d))
    return int(np.sum(ev > ev.max() * X1.shape[1] * 1e-10))


def fit_logistic(X: np.ndarray, y: np.ndarray, max_iter: int = 30, tol: float = 1e-8) -> LogisticFit:
    """Maximum likelihood by Newton-Raphson (IRLS) with step halving. Under (quasi-)separation
    the fit stops after ``max_iter`` steps with propensities close to 0 or 1, which is what the
    discriminant measures need; ``converged`` is then False."""
    X1 = _with_intercept(np.asarray(X, dtype=float))
    p = X1.shape[1]
    beta = np.zeros(p)
    ybar = float(np.clip(y.mean(), 1e-12, 1 - 1e-12))
    beta[0] = np.log(ybar / (1 - ybar))
    ridge = 1e-10 * X1.shape[0]

    def loglik(b: np.ndarray) -> float:
        eta = X1 @ b
        return float(np.sum(y * eta - np.logaddexp(0.0, eta)))

    ll = loglik(beta)
    converged = False
    H = np.eye(p)
    for _ in range(max_iter):
        mu = expit(X1 @ beta)
        w = mu * (1.0 - mu)
        grad = X1.T @ (y - mu)
        H = (X1 * w[:, None]).T @ X1 + ridge * np.eye(p)
        try:
            step = np.linalg.solve(H, grad)
        except np.linalg.LinAlgError:
            step = np.linalg.lstsq(H, grad, rcond=None)[0]
        t = 1.0
        while True:
            new = beta + t * step
            ll_new = loglik(new)
            if ll_new >= ll - 1e-12 or t < 1e-4:
                break
            t /= 2.0
        beta, ll_old, ll = new, ll, ll_new
        if np.max(np.abs(t * step)) < tol or abs(ll - ll_old) < tol * (abs(ll) + 1.0):
            converged = True
            break
    mu = expit(X1 @ beta)
    w = mu * (1.0 - mu)
    H = (X1 * w[:, None]).T @ X1 + ridge * np.eye(p)
    cov = np.linalg.pinv(H)
    return LogisticFit(beta, cov, design_rank(X), converged)


def predict_logistic(fit: LogisticFit, X: np.ndarray) -> np.ndarray:
    return expit(_with_intercept(np.asarray(X, dtype=float)) @ fit.coef)


def make_tree(model: str, params: dict[str, Any], seed: int) -> Any:
    if model == "cart":
        from sklearn.tree import DecisionTreeClassifier

        kw = {"max_depth": 10, "min_samples_leaf": 20}
        kw.update(params)
        return DecisionTreeClassifier(random_state=seed, **kw)
    from sklearn.ensemble import HistGradientBoostingClassifier

    kw = {"max_iter": 100, "early_stopping": False}
    kw.update(params)
    return HistGradientBoostingClassifier(random_state=seed, **kw)
