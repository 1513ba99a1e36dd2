"""``sample``: draw from the observed marginal of the target, ignoring the predictors.

Also home of the small input checks every built-in method shares
(:func:`_check_fit_data`, :func:`_check_draw_data`), so each method validates
its inputs the same way and with the same messages.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from synthguard._random import check_random_state
from synthguard.errors import MethodError
from synthguard.synthesis.methods._systematic import systematic_positions
from synthguard.synthesis.methods.base import SynthesisMethod, check_weights
from synthguard.synthesis.registry import register_method

__all__ = ["SampleMethod"]


def _design_dtype(method: SynthesisMethod) -> np.dtype[np.floating[Any]]:
    """The floating type the method works on (its ``design_dtype``, float64 by default)."""
    return np.dtype(getattr(type(method), "design_dtype", np.float64))


def _all_finite(X: np.ndarray) -> bool:
    """Whether every entry of the 2-D float array ``X`` is finite.

    Checked on the column minima and maxima (NaN propagates through both, an infinity is an
    extreme), so a large design needs no ``n x p`` boolean temporary.
    """
    if X.size == 0:
        return True
    return bool(np.isfinite(X.min(axis=0)).all() and np.isfinite(X.max(axis=0)).all())


def _check_fit_data(
    method: SynthesisMethod, X: np.ndarray, y: np.ndarray
) -> tuple[np.ndarray, np.ndarray, bool]:
    """Validate ``fit`` inputs; return ``(X, y, categorical)``.

    ``X`` comes back in the method's ``design_dtype`` (float64 unless the method declares
    float32; no copy when it already is), ``y`` as float64 (numeric) or int64 codes.

    The kind of the target follows the method contract: an integer (or boolean) ``y`` holds
    category codes ``0..K-1``, a floating ``y`` is numeric. Inputs are never modified.
    """
    name = method.name or type(method).__name__
    X = np.asarray(X)
    y = np.asarray(y)
    if X.ndim != 2:
        raise MethodError(
            f"method '{name}': predictors X must be a 2-D array (n records x p predictors), "
            f"got {X.ndim} dimension(s); use X.reshape(-1, 1) for one predictor or "
            "np.empty((n, 0)) for none"
        )
    if y.ndim != 1:
        raise MethodError(
            f"method '{name}': target y must be a 1-D array, got {y.ndim} dimension(s)"
        )
    if X.shape[0] != y.shape[0]:
        raise MethodError(
            f"method '{name}': X has {X.shape[0]} rows but y has {y.shape[0]} entries; "
            "pass one row of predictors per record"
        )
    if y.shape[0] == 0:
        raise MethodError(f"method '{name}': no records to fit; the target has no observed values")
    if not (np.issubdtype(X.dtype, np.number) or X.dtype == bool):
        raise MethodError(
            f"method '{name}': predictors X must be numeric (encode categorical predictors as dummies)"
        )
    X = np.asarray(X, dtype=_design_dtype(method))
    if not _all_finite(X):
        raise MethodError(f"method '{name}': predictors X contain missing or infinite values")
    if y.dtype == bool or np.issubdtype(y.dtype, np.integer):
        categorical = True
        y = y.astype(np.int64, copy=False)
        if np.any(y < 0):
            raise MethodError(
                f"method '{name}': categorical target codes must be 0..K-1; found negative codes"
            )
    elif np.issubdtype(y.dtype, np.floating):
        categorical = False
        y = np.asarray(y, dtype=np.float64)
        if not np.all(np.isfinite(y)):
            raise MethodError(f"method '{name}': target y contains missing or infinite values")
    else:
        raise MethodError(
            f"method '{name}': target y must be float64 (numeric) or int64 codes (categorical), "
            f"got dtype {y.dtype}"
        )
    kind = "categorical" if categorical else "numeric"
    if kind not in method.target_kinds:
        raise MethodError(
            f"method '{name}' cannot synthesize a {kind} target (it handles "
            f"{', '.join(sorted(method.target_kinds))}); choose another method for this column"
        )
    return X, y, categorical


def _check_draw_data(method: SynthesisMethod, X: np.ndarray, n_predictors: int) -> np.ndarray:
    """Validate the predictors given to ``draw``; return them as a 2-D array of the method's
    ``design_dtype`` (no copy when they already are)."""
    name = method.name or type(method).__name__
    X = np.asarray(X)
    if X.ndim != 2 or X.shape[1] != n_predictors:
        raise MethodError(
            f"method '{name}': draw needs X with {n_predictors} predictor column(s) as in fit, "
            f"got shape {X.shape}"
        )
    X = np.asarray(X, dtype=_design_dtype(method))
    if not _all_finite(X):
        raise MethodError(f"method '{name}': predictors X contain missing or infinite values")
    return X


def _draw_index_from_weights(g: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
    """Indices drawn with replacement with probabilities proportional to ``g`` (inverse CDF)."""
    cdf = np.cumsum(g)
    idx = np.searchsorted(cdf, rng.random(size) * cdf[-1], side="right")
    return np.minimum(idx, len(g) - 1)


@register_method("sample")
class SampleMethod(SynthesisMethod):
    """Draw synthetic values from the observed marginal distribution of the target.

    Each synthetic value is a confidential value picked uniformly at random (with
    replacement; with ``draws="systematic"`` the picks of one draw are balanced); the
    predictors are ignored. With ``bayesian_bootstrap=True`` the
    method is *proper*: at every call of :meth:`draw` it first draws record weights
    ``g ~ Dirichlet(1, ..., 1)`` and then picks record ``i`` with probability ``g_i``
    (the Bayesian bootstrap of Rubin 1981), so each implicate reflects the uncertainty
    of the marginal itself.

    Numeric targets (float64) and categorical targets (int64 codes) are both handled;
    a categorical draw only produces codes observed in the data.

    Parameters
    ----------
    bayesian_bootstrap : bool, default False
        Draw from a Bayesian bootstrap of the observed values rather than from the
        observed values with equal probabilities.
    draws : {"random", "systematic"}, default "systematic"
        ``"random"``: each value an independent uniform pick (synthpop's ``syn.sample``).
        ``"systematic"``: each value is still a uniform pick, but the ``m`` values of one draw
        take the sorted confidential values at ranks ``floor((r + u) n / m)``, ``r = 0 ..
        m - 1`` in random order, one ``u ~ U(0, 1)`` (systematic sampling; Cochran 1977,
        ch. 8), so the drawn marginal matches the data's up to the spacing ``n / m``
        instead of varying as a bootstrap sample does (on diamonds the first column's
        Kolmogorov-Smirnov distance). Ignored with ``bayesian_bootstrap``.

    Attributes
    ----------
    values_ : ndarray
        The confidential target values (confidential: a fitted method holds real data).
    n_predictors_ : int
        Number of predictor columns seen in ``fit`` (ignored, but checked in ``draw``).

    References
    ----------
    Rubin, D. B. (1981). The Bayesian bootstrap. *Annals of Statistics* 9(1), 130-134.
    Nowok, Raab & Dibben (2016), synthpop: ``syn.sample``.

    Examples
    --------
    >>> import numpy as np
    >>> from synthguard.synthesis.methods import SampleMethod
    >>> m = SampleMethod().fit(np.empty((4, 0)), np.array([0, 0, 1, 2]))
    >>> out = m.draw(np.empty((1000, 0)), np.random.default_rng(0))
    >>> sorted(set(out.tolist()))
    [0, 1, 2]
    """

    supports_weights = False

    def __init__(self, *, bayesian_bootstrap: bool = False, draws: str = "systematic") -> None:
        self.bayesian_bootstrap = bayesian_bootstrap
        self.draws = draws

    def fit(
        self, X: np.ndarray, y: np.ndarray, weights: np.ndarray | None = None,
        *, rng: np.random.Generator | None = None,
    ) -> SampleMethod:
        """Store the observed target values; ``X`` is only checked."""
        X, y, categorical = _check_fit_data(self, X, y)
        check_weights(self.name, weights, len(y), self.supports_weights)
        self.values_ = y.copy()
        self.categorical_ = categorical
        self.n_predictors_ = X.shape[1]
        return self

    def draw(self, X: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """One value per row of ``X``, drawn from the (Bayesian-bootstrapped) marginal."""
        self._check_fitted("values_")
        X = _check_draw_data(self, X, self.n_predictors_)
        rng = check_random_state(rng)
        n_obs, size = len(self.values_), X.shape[0]
        idx: np.ndarray
        if self.bayesian_bootstrap:
            # Dirichlet(1, ..., 1) weights are independent standard exponentials divided by
            # their sum; the normalisation happens inside the inverse-CDF draw.
            g = rng.standard_exponential(n_obs)
            idx = _draw_index_from_weights(g, size, rng)
        elif getattr(self, "draws", "random") == "systematic":
            # the rows take the sorted values at evenly spaced ranks, each row's value uniform
            pos = systematic_positions(np.zeros(size, dtype=np.int64), np.array([n_obs]), rng)
            return np.sort(self.values_)[pos]
        else:
            idx = np.asarray(rng.integers(0, n_obs, size=size))
        return self.values_[idx]
