"""Propensity models for the discriminant measures: an unpenalised logistic regression fitted
by iteratively reweighted least squares (the maximum-likelihood fit R's ``glm`` gives), and
scikit-learn trees (CART, histogram gradient boosting)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

__all__: list[str] = []

#: Most levels a categorical column may have for the logistic propensity model, which gives each
#: level an indicator column: at 10,000 levels the IRLS fit took over 150 s. Above it the model
#: is refused with a message (CART splits on level codes and has no such limit).
MAX_ONEHOT_LEVELS = 1000


def check_onehot_levels(frames: list[Any], schema: Any, columns: list[str]) -> None:
    """Refuse a categorical column with more than :data:`MAX_ONEHOT_LEVELS` levels over
    ``frames`` for the logistic model (the message names the column, never a count)."""
    import pandas as pd

    wide = [c for c in columns if not schema[c].is_numeric
            and pd.concat([f[c] for f in frames], ignore_index=True).nunique(dropna=False)
            > MAX_ONEHOT_LEVELS]
    if wide:
        from synthguard.errors import ParameterError

        raise ParameterError(
            f"model 'logistic': column(s) {', '.join(map(str, wide))} have more than "
            f"{MAX_ONEHOT_LEVELS} levels, one indicator each would make the fit unbounded; use "
            "model='cart' (no indicators), group the levels, or leave the column out with "
            "columns="
        )


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


def fit_logistic(X: np.ndarray, y: np.ndarray, max_iter: int = 30, tol: float = 1e-8,
                 sample_weight: np.ndarray | None = None) -> LogisticFit:
    """Maximum likelihood by Newton-Raphson (IRLS) with step halving. Under (quasi-)separation
    the fit stops after ``max_iter`` steps with propensities close to 0 or 1, which is what the
    discriminant measures need; ``converged`` is then False. ``sample_weight``: case weights
    ``s_i`` of the log-likelihood ``Σ s_i (y_i η_i - log(1 + e^η_i))`` (R ``glm``'s
    ``weights``)."""
    from scipy.special import expit

    X1 = _with_intercept(np.asarray(X, dtype=float))
    p = X1.shape[1]
    beta = np.zeros(p)
    sw = np.ones(X1.shape[0]) if sample_weight is None else np.asarray(sample_weight, float)
    ybar = float(np.clip(np.average(y, weights=sw), 1e-12, 1 - 1e-12))
    beta[0] = np.log(ybar / (1 - ybar))
    ridge = 1e-10 * X1.shape[0]

    def loglik(b: np.ndarray) -> float:
        eta = X1 @ b
        return float(np.sum(sw * (y * eta - np.logaddexp(0.0, eta))))

    ll = loglik(beta)
    converged = False
    H = np.eye(p)
    for _ in range(max_iter):
        mu = expit(X1 @ beta)
        w = sw * mu * (1.0 - mu)
        grad = X1.T @ (sw * (y - mu))
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
    w = sw * mu * (1.0 - mu)
    H = (X1 * w[:, None]).T @ X1 + ridge * np.eye(p)
    cov = np.linalg.pinv(H)
    return LogisticFit(beta, cov, design_rank(X), converged)


def predict_logistic(fit: LogisticFit, X: np.ndarray) -> np.ndarray:
    from scipy.special import expit

    return expit(_with_intercept(np.asarray(X, dtype=float)) @ fit.coef)


class HistCART:
    """A single classification tree grown by scikit-learn's histogram tree grower.

    One boosting iteration from the constant start ``logit(ȳ)`` with learning rate 1 and no
    regularisation: every row has the same hessian ``ȳ(1-ȳ)``, so the split gain is the
    reduction in the sum of squares of ``y``, which for a 0/1 outcome is the reduction in Gini
    impurity — CART's criterion (Breiman et al. 1984) — on numeric variables binned into at most
    255 quantile bins and categorical variables split natively. The leaf value is
    ``(ȳ_leaf - ȳ)/(ȳ(1-ȳ))``, so the leaf proportion ``ȳ_leaf`` is recovered exactly from the
    raw prediction. Much faster than ``DecisionTreeClassifier`` on 10^5 rows.
    """

    def __init__(self, seed: int, categorical: np.ndarray | None = None, **params: Any) -> None:
        from sklearn.ensemble import HistGradientBoostingClassifier

        kw: dict[str, Any] = {
            "max_depth": 10, "min_samples_leaf": 20, "max_leaf_nodes": None,
        }
        kw.update(params)
        if categorical is not None and categorical.any():
            kw["categorical_features"] = categorical
        self._hgb = HistGradientBoostingClassifier(
            max_iter=1, learning_rate=1.0, l2_regularization=0.0, early_stopping=False,
            random_state=seed, **kw,
        )
        self.ybar_ = 0.5

    def fit(self, X: np.ndarray, y: np.ndarray,
            sample_weight: np.ndarray | None = None) -> HistCART:
        """With ``sample_weight`` the start is the weighted share and every gain and leaf
        value weighted, so a leaf's value recovers its weighted share of synthetic rows."""
        self.ybar_ = float(np.average(y, weights=sample_weight))
        self._hgb.fit(X, y, sample_weight=sample_weight)
        return self

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        c = self.ybar_
        raw = np.asarray(self._hgb.decision_function(X), dtype=float)
        p = c + c * (1.0 - c) * (raw - np.log(c / (1.0 - c)))
        p = np.clip(p, 0.0, 1.0)
        return np.column_stack([1.0 - p, p])


def make_tree(
    model: str, params: dict[str, Any], seed: int, categorical: np.ndarray | None = None
) -> Any:
    if model == "cart":
        return HistCART(seed, categorical, **params)
    if model == "rf":
        from sklearn.ensemble import RandomForestClassifier

        rkw: dict[str, Any] = {"n_estimators": 100, "min_samples_leaf": 5,
                               "max_features": "sqrt", "oob_score": True, "n_jobs": 1}
        rkw.update(params)
        return RandomForestClassifier(random_state=seed, **rkw)
    from sklearn.ensemble import HistGradientBoostingClassifier

    hkw: dict[str, Any] = {"max_iter": 100, "early_stopping": False}
    if categorical is not None and categorical.any():
        hkw["categorical_features"] = categorical
    hkw.update(params)
    return HistGradientBoostingClassifier(random_state=seed, **hkw)


class NullLogistic:
    """Logistic fits of permuted labels on one design: a fixed-Hessian (chord) Newton iteration,
    finished by Newton-Raphson where it is slow.

    Under the permutation null the labels are independent of ``X``, so every fitted propensity
    stays close to the share ``c`` of synthetic rows and the Fisher information at the fit is
    close to its value at ``β = (logit c, 0, ..., 0)``, ``H₀ = c(1-c) X₁ᵀ S X₁`` (``X₁ = [1,
    X]``, ``S`` the case weights). ``X₁ᵀ S X₁`` does not depend on the labels: it is formed and
    decomposed once, and each permuted fit iterates ``β ← β + H₀⁻¹ X₁ᵀ S (y - μ(β))``: two
    products of the design with a vector per step (the design held sparse when it is mostly
    zeros, as one-hot designs are) instead of IRLS's ``N p²`` weighted Gram matrix. The fixed
    point is the maximum-likelihood fit IRLS finds (the score is zero there); the iteration
    contracts by about ``max |μ_i(1-μ_i) / (c(1-c)) - 1|`` a step (the chord method, Ortega &
    Rheinboldt 1970, sec. 7.1; for ``c = ½``, ``H₀`` is Böhning & Lindsay's 1988 bound on the
    Hessian). A fit not converged after :attr:`max_chord` steps — a level held by a few rows
    that all carry one label, whose coefficient grows without bound — goes on from there by
    Newton-Raphson with :func:`fit_logistic`'s step halving and stopping rules.

    ``predict(y)`` returns the fitted propensities of every row for labels ``y``.
    """

    max_chord = 25
    tol = 1e-10  # largest change of a linear predictor at convergence of the chord steps

    def __init__(self, X: np.ndarray, sample_weight: np.ndarray | None = None) -> None:
        X1 = _with_intercept(np.asarray(X, dtype=float))
        self.sw = None if sample_weight is None else np.asarray(sample_weight, float)
        self.n, self.p = X1.shape
        if np.count_nonzero(X1) < 0.3 * X1.size:
            from scipy import sparse

            self.X1: Any = sparse.csr_matrix(X1)
            self.X1t: Any = self.X1.T.tocsr()
            self.sparse = True
        else:
            self.X1, self.X1t, self.sparse = X1, X1.T, False
        g = self._gram(np.ones(self.n) if self.sw is None else self.sw)
        # pseudo-inverse from the eigen-decomposition of the scaled Gram matrix: directions in
        # the null space of X₁ move no prediction
        d = np.sqrt(np.clip(np.diag(g), 1e-300, None))
        ev, vec = np.linalg.eigh(g / np.outer(d, d))
        keep = ev > ev.max() * g.shape[0] * 1e-10
        self._ginv = (vec[:, keep] / ev[keep]) @ vec[:, keep].T / np.outer(d, d)
        self.newton_finishes = 0

    def _gram(self, w: np.ndarray) -> np.ndarray:
        if self.sparse:
            return np.asarray((self.X1t.multiply(w) @ self.X1).toarray())
        return np.asarray((self.X1 * w[:, None]).T @ self.X1)

    def predict(self, y: np.ndarray) -> np.ndarray:
        from scipy.special import expit

        X1, X1t, sw = self.X1, self.X1t, self.sw
        ybar = float(np.clip(np.average(y, weights=sw), 1e-12, 1 - 1e-12))
        beta = np.zeros(self.p)
        beta[0] = np.log(ybar / (1 - ybar))
        eta = np.full(self.n, beta[0])
        scale = 1.0 / (ybar * (1.0 - ybar))
        ll = _loglik(eta, y, sw)
        for it in range(self.max_chord):
            r = y - expit(eta)
            step = self._ginv @ (X1t @ (r if sw is None else r * sw)) * scale
            d_eta = X1 @ step
            ll_new = _loglik(eta + d_eta, y, sw)
            if ll_new < ll - 1e-10 * (abs(ll) + 1.0):  # beyond rounding
                break  # the fixed Hessian overshoots here: Newton from the last point
            beta, eta, ll = beta + step, eta + d_eta, ll_new
            change = np.max(np.abs(d_eta))
            if change < self.tol:
                return np.asarray(expit(eta))
            if it >= 9 and change > 1e-3:
                break  # stalled (a separated level): the contraction alone is ~1e-6 by now
        self.newton_finishes += 1
        return self._newton(beta, y)

    def _newton(self, beta: np.ndarray, y: np.ndarray, max_iter: int = 30,
                tol: float = 1e-8) -> np.ndarray:
        """:func:`fit_logistic`'s Newton-Raphson loop from ``beta``."""
        from scipy.special import expit

        X1, X1t = self.X1, self.X1t
        sw = np.ones(self.n) if self.sw is None else self.sw
        ridge = 1e-10 * self.n * np.eye(self.p)
        ll = _loglik(X1 @ beta, y, self.sw)
        for _ in range(max_iter):
            mu = expit(X1 @ beta)
            H = self._gram(sw * mu * (1.0 - mu)) + ridge
            grad = X1t @ (sw * (y - mu))
            try:
                step = np.linalg.solve(H, grad)
            except np.linalg.LinAlgError:
                step = np.linalg.lstsq(H, grad, rcond=None)[0]
            t = 1.0
            while True:
                new = beta + t * step
                ll_new = _loglik(X1 @ new, y, self.sw)
                if ll_new >= ll - 1e-12 or t < 1e-4:
                    break
                t /= 2.0
            beta, ll_old, ll = new, ll, ll_new
            if np.max(np.abs(t * step)) < tol or abs(ll - ll_old) < tol * (abs(ll) + 1.0):
                break
        return np.asarray(expit(X1 @ beta))


def _loglik(eta: np.ndarray, y: np.ndarray, sw: np.ndarray | None) -> float:
    terms = y * eta - np.logaddexp(0.0, eta)
    return float(np.sum(terms if sw is None else sw * terms))
