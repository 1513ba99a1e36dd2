"""A weighted marginal: the per-variable model of columns the household parts do not predict.

The household size (the household table's first column) and the start columns of the
members' models (given at draw time, never drawn) need a model that takes likelihood weights
when the synthesizer has them: :class:`WeightedMarginal` draws observed values with
probability proportional to their records' weights, ``P(y = v) = sum_{i: y_i = v} w_i /
sum_i w_i`` (the weighted empirical distribution; synthpop's ``sample`` with weights).
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from synthguard.synthesis.methods.base import SynthesisMethod, check_weights

__all__ = ["WeightedMarginal"]


class WeightedMarginal(SynthesisMethod):
    """Observed values drawn with probability proportional to their weights (no predictors
    are read)."""

    name: ClassVar[str] = "weighted_marginal"
    supports_weights: ClassVar[bool] = True

    def fit(
        self, X: np.ndarray, y: np.ndarray, weights: np.ndarray | None = None,
        *, rng: np.random.Generator | None = None,
    ) -> WeightedMarginal:
        w = check_weights(self.name, weights, len(y), self.supports_weights)
        self.values_ = np.asarray(y).copy()
        p = np.ones(len(y)) if w is None else np.asarray(w, dtype=float)
        self.p_ = p / p.sum()
        return self

    def draw(self, X: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        self._check_fitted("values_")
        return self.values_[rng.choice(len(self.values_), size=len(X), p=self.p_)]
