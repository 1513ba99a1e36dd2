"""``satcat``: the saturated model over the combinations of categorical predictors.

synthpop's ``syn.satcat`` (Nowok, Raab & Dibben 2016): every combination of the predictors'
values is a cell; a synthetic record takes the target of a confidential record drawn
uniformly from its own cell, so each cell's conditional distribution of the target is the
data's. It is what ``cart`` would give with a tree grown to one leaf per combination, and it
is meant for categorical predictors with few combinations. A synthetic record whose cell has
no confidential record cannot be drawn: the method refuses, as synthpop does, and points to
``catall`` (a log-linear model over the whole block) instead.
"""

from __future__ import annotations

import numpy as np

from synthguard.errors import MethodError
from synthguard.synthesis.methods.base import SynthesisMethod, check_weights
from synthguard.synthesis.methods.sample import _check_draw_data, _check_fit_data
from synthguard.synthesis.registry import register_method

__all__ = ["SatCatMethod"]


@register_method("satcat")
class SatCatMethod(SynthesisMethod):
    """Draw the target from the confidential records of the same predictor combination.

    ``draw`` maps each row of ``X`` to its cell (a combination of the predictors' values seen
    in ``fit``) and returns the target of a record drawn uniformly from that cell.

    Attributes
    ----------
    cells_ : ndarray
        The distinct predictor rows seen in ``fit`` (confidential combinations).
    donors_ : list of ndarray
        Per cell, the targets of its confidential records.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [0.0], [1.0], [1.0]])
    >>> m = SatCatMethod().fit(X, np.array([3, 3, 5, 5]))
    >>> m.draw(np.array([[1.0], [0.0]]), np.random.default_rng(0)).tolist()
    [5, 3]
    """

    supports_weights = False

    def fit(self, X: np.ndarray, y: np.ndarray, weights: np.ndarray | None = None,
            *, rng: np.random.Generator | None = None) -> SatCatMethod:
        """Group the confidential targets by predictor combination."""
        X, y, _ = _check_fit_data(self, X, y)
        check_weights(self.name, weights, len(y), self.supports_weights)
        if X.shape[1] == 0:
            cells, cell = np.zeros((1, 0)), np.zeros(len(y), dtype=np.int64)
        else:
            cells, cell = np.unique(X, axis=0, return_inverse=True)
            cell = cell.ravel()
        order = np.argsort(cell, kind="stable")
        bounds = np.searchsorted(cell[order], np.arange(len(cells) + 1))
        self.cells_ = cells
        self.donors_ = [y[order[bounds[k]:bounds[k + 1]]] for k in range(len(cells))]
        self.n_predictors_ = X.shape[1]
        return self

    def draw(self, X: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """One donor's target per row, from the row's own cell."""
        self._check_fitted("donors_")
        X = np.asarray(_check_draw_data(self, X, self.n_predictors_), dtype=self.cells_.dtype)
        n = X.shape[0]
        if self.n_predictors_ == 0:
            cell = np.zeros(n, dtype=np.int64)
        else:
            both, label = np.unique(np.vstack([self.cells_, X]), axis=0, return_inverse=True)
            label = label.ravel()
            to_cell = np.full(len(both), -1, dtype=np.int64)
            to_cell[label[: len(self.cells_)]] = np.arange(len(self.cells_))
            cell = to_cell[label[len(self.cells_):]]
            if (cell < 0).any():
                raise MethodError(
                    f"method 'satcat': {int((cell < 0).sum())} synthetic record(s) fall in "
                    "predictor combinations with no record in the data; use 'catall' for the "
                    "block, or fewer or coarser predictors")
        dtype = self.donors_[0].dtype if self.donors_ else np.float64
        out = np.empty(n, dtype=dtype)
        for k in np.unique(cell):
            rows = np.flatnonzero(cell == k)
            d = self.donors_[k]
            out[rows] = d[rng.integers(0, d.size, rows.size)]
        return out
