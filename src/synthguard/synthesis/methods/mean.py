"""``mean``: mean imputation, the course's first illustration of synthesis as imputation.

Every synthetic value is the (weighted) mean of the confidential values. It keeps the mean and
nothing else, which is its point: the course (Urban Institute, §2.3.1, the conference-ages
example) replaces missing ages by the mean to show that "using the mean to impute ... removes
useful variation and conceals information from the tails of the distribution", and that
synthesis treats the whole column as missing. Use it as a baseline to compare real methods
against, never for a release.
"""

from __future__ import annotations

import numpy as np

from synthguard.synthesis.methods.base import SynthesisMethod, check_weights
from synthguard.synthesis.methods.sample import _check_draw_data, _check_fit_data
from synthguard.synthesis.registry import register_method

__all__ = ["MeanMethod"]


@register_method("mean")
class MeanMethod(SynthesisMethod):
    """Draw the mean of the target for every record (mean imputation; a teaching baseline).

    ``draw`` returns ``ȳ_w = Σ w_i y_i / Σ w_i`` (``w_i = 1`` without weights) for every row;
    the predictors and the random generator are ignored, so the synthetic column has the
    data's mean and zero variance: the course's illustration (§2.3.1) of why synthesis draws
    from a model of the distribution rather than filling in a summary.

    Attributes
    ----------
    mean_ : float
        The (weighted) mean of the confidential target (a confidential statistic).
    n_predictors_ : int
        Number of predictor columns seen in ``fit`` (ignored, checked in ``draw``).

    Examples
    --------
    >>> import numpy as np
    >>> from synthguard.synthesis.methods import MeanMethod
    >>> m = MeanMethod().fit(np.empty((4, 0)), np.array([20.0, 30.0, 40.0, 70.0]))
    >>> m.draw(np.empty((3, 0)), np.random.default_rng(0))
    array([40., 40., 40.])
    """

    target_kinds = frozenset({"numeric"})
    supports_weights = True

    def fit(
        self, X: np.ndarray, y: np.ndarray, weights: np.ndarray | None = None,
        *, rng: np.random.Generator | None = None,
    ) -> MeanMethod:
        """Store the (weighted) mean of ``y``; ``X`` is only checked."""
        X, y, _ = _check_fit_data(self, X, y)
        w = check_weights(self.name, weights, len(y), self.supports_weights)
        self.mean_ = float(np.average(y, weights=w))
        self.n_predictors_ = X.shape[1]
        return self

    def draw(self, X: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """The fitted mean, once per row of ``X``."""
        self._check_fitted("mean_")
        X = _check_draw_data(self, X, self.n_predictors_)
        return np.full(X.shape[0], self.mean_, dtype=np.float64)
