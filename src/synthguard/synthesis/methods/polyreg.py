"""``polyreg``: multinomial logistic regression for a categorical target."""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import numpy as np

from synthguard._random import check_random_state
from synthguard.errors import ParameterError, SynthguardWarning
from synthguard.synthesis.methods.base import SynthesisMethod, check_weights
from synthguard.synthesis.methods.sample import _check_draw_data, _check_fit_data
from synthguard.synthesis.registry import register_method

if TYPE_CHECKING:
    from sklearn.linear_model import LogisticRegression

__all__ = ["PolyRegMethod"]

_TOL = 1e-8


def _draw_categories(prob: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One category index per row of ``prob`` (rows sum to one), by inverse CDF."""
    cdf = np.cumsum(prob, axis=1)
    u = np.asarray(rng.random(prob.shape[0]))
    idx = np.sum(cdf <= u[:, None] * cdf[:, -1:], axis=1)
    return np.minimum(idx, prob.shape[1] - 1)


@register_method("polyreg")
class PolyRegMethod(SynthesisMethod):
    """Multinomial logistic regression of a categorical target; draws from its probabilities.

    For a target with ``K`` observed levels the model is
    ``P(y = k | x) = exp(a_k + x' b_k) / sum_j exp(a_j + x' b_j)`` (for ``K = 2`` this is the
    binary logistic model with one linear predictor). It is fitted with scikit-learn's
    ``LogisticRegression`` (lbfgs) by minimising the penalised negative log-likelihood

    ``-sum_i log P(y_i | x_i) + (ridge / 2) * ||b||^2``,

    where the predictors are first standardised (centred, divided by their standard
    deviation) so the ridge acts the same whatever their units, and the intercepts are not
    penalised. The default ``ridge=1e-4`` is tiny: on data without separation the estimates
    agree with the unpenalised maximum likelihood estimates to about ``ridge / n`` relative
    (pass ``ridge=0`` for exactly unpenalised), while under complete or quasi-complete
    separation, where the maximum likelihood estimates are infinite, it keeps them finite.
    A synthetic value is drawn from the fitted probabilities at the row's predictors
    (synthpop's ``syn.polyreg``; Nowok, Raab & Dibben 2016).

    Only levels observed in the data can be drawn. A target with a single observed level
    always draws that level; with no predictors the probabilities are the observed shares.

    Parameters
    ----------
    ridge : float, default 1e-4
        L2 penalty on the standardised slopes (0 for maximum likelihood).
    max_iter : int, default 1000
        Maximum lbfgs iterations; a fit that stops there warns (SynthguardWarning).

    Attributes
    ----------
    classes_ : ndarray of int64
        The observed codes, in increasing order.
    coef_ : ndarray, shape (rows, p + 1)
        Coefficients on the original scale of the predictors, intercept first. One row (the
        log-odds of ``classes_[1]`` against ``classes_[0]``) for two observed levels; one
        row per level (the symmetric multinomial parameterisation) for more; no rows for a
        single observed level.
    converged_ : bool
        Whether lbfgs met its tolerance.

    Examples
    --------
    >>> import numpy as np
    >>> from synthguard.synthesis.methods import PolyRegMethod
    >>> y = np.repeat(np.array([0, 2, 3]), [20, 50, 30])
    >>> m = PolyRegMethod().fit(np.empty((100, 0)), y)
    >>> m.classes_.tolist(), np.round(m.predict_proba(np.empty((1, 0))), 2).tolist()
    ([0, 2, 3], [[0.2, 0.5, 0.3]])
    """

    target_kinds = frozenset({"categorical"})
    supports_weights = False

    def __init__(self, *, ridge: float = 1e-4, max_iter: int = 1000) -> None:
        self.ridge = ridge
        self.max_iter = max_iter

    def _check_target(self, y: np.ndarray) -> None:
        """Hook for subclasses restricting the target's codes."""

    def fit(
        self, X: np.ndarray, y: np.ndarray, weights: np.ndarray | None = None,
        *, rng: np.random.Generator | None = None,
    ) -> PolyRegMethod:
        """Fit the (binary or multinomial) logistic regression of ``y`` on ``X``."""
        # Imported here so that importing synthguard.synthesis stays fast.
        from sklearn.exceptions import ConvergenceWarning
        from sklearn.linear_model import LogisticRegression
        from threadpoolctl import threadpool_limits

        if not (np.isfinite(self.ridge) and self.ridge >= 0):
            raise ParameterError(f"method '{self.name}': parameter 'ridge' must be finite and >= 0")
        if int(self.max_iter) < 1:
            raise ParameterError(f"method '{self.name}': parameter 'max_iter' must be >= 1")
        X, y, _ = _check_fit_data(self, X, y)
        check_weights(self.name, weights, len(y), self.supports_weights)
        self._check_target(y)
        n, p = X.shape
        self.n_predictors_ = p
        self.classes_ = np.unique(y)
        self.converged_ = True
        self.model_: LogisticRegression | None = None
        if len(self.classes_) == 1:
            self.coef_ = np.empty((0, p + 1))
            return self
        if p == 0:
            # No predictors: the maximum likelihood probabilities are the observed shares.
            self.mean_, self.scale_ = np.zeros(0), np.ones(0)
            shares = np.bincount(np.searchsorted(self.classes_, y)) / n
            self.shares_ = shares
            logs = np.log(shares)
            rows = logs[1:] - logs[0] if len(shares) == 2 else logs - logs.mean()
            self.coef_ = np.asarray(rows, dtype=float).reshape(-1, 1)
            return self
        self.mean_ = X.mean(axis=0)
        scale = X.std(axis=0)
        self.scale_ = np.where(scale > 0, scale, 1.0)
        Xs = self._standardize(X)
        model = LogisticRegression(
            C=np.inf if self.ridge == 0 else 1.0 / self.ridge,
            tol=_TOL,
            max_iter=int(self.max_iter),
        )
        # One BLAS thread: the optimiser's many small BLAS calls otherwise spin idle threads,
        # which costs 100x on a loaded machine (0.4 s instead of 3 ms for n = 240).
        with warnings.catch_warnings(), threadpool_limits(limits=1, user_api="blas"):
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(Xs, y)
        if int(np.max(model.n_iter_)) >= int(self.max_iter):
            self.converged_ = False
            warnings.warn(
                f"method '{self.name}': the logistic fit stopped after max_iter iterations "
                "without converging (often separation: a level fully predicted by the "
                "predictors); draws use the last iterate; increase 'ridge' or 'max_iter'",
                SynthguardWarning,
                stacklevel=2,
            )
        self.model_ = model
        slopes = model.coef_ / self.scale_
        intercepts = model.intercept_ - slopes @ self.mean_
        self.coef_ = np.column_stack([intercepts, slopes])
        return self

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        """Fitted probabilities, one column per code in ``classes_``."""
        self._check_fitted("classes_")
        X = _check_draw_data(self, X, self.n_predictors_)
        if len(self.classes_) == 1:
            return np.ones((X.shape[0], 1))
        if X.shape[0] == 0:
            return np.empty((0, len(self.classes_)))
        if self.model_ is None:
            return np.broadcast_to(self.shares_, (X.shape[0], len(self.shares_)))
        return np.asarray(self.model_.predict_proba(self._standardize(X)))

    def _standardize(self, X: np.ndarray) -> np.ndarray:
        """``(X - mean) / scale`` in one new array."""
        out = X - self.mean_
        out /= self.scale_
        return out

    def draw(self, X: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """One code per row of ``X``, drawn from the fitted probabilities."""
        rng = check_random_state(rng)
        prob = self.predict_proba(X)
        if prob.shape[1] == 1:
            return np.full(prob.shape[0], self.classes_[0], dtype=np.int64)
        return self.classes_[_draw_categories(prob, rng)]
