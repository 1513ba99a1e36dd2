"""``nested``: a child column drawn within its synthesized parent (region within country)."""

from __future__ import annotations

from typing import Any

import numpy as np

from synthguard._random import check_random_state
from synthguard.errors import MethodError
from synthguard.synthesis.methods.base import check_weights
from synthguard.synthesis.methods.columns import ColumnsMethod, GroupKeys, split_names
from synthguard.synthesis.registry import register_method

__all__ = ["NestedMethod"]


@register_method("nested")
class NestedMethod(ColumnsMethod):
    """Draw the child column from the confidential records that share the synthetic parent.

    For a synthetic record whose parent takes value ``p``, the child is a confidential child
    value drawn at random from the records with parent ``p`` (with probability proportional to
    their weights when weights are given). The release therefore never pairs a child with a
    parent it does not belong to (a region with another country's name), and the child's
    distribution within each parent is the confidential one (synthpop's ``nested``, Nowok,
    Raab & Dibben 2016; it allocates "to subcategories by random sampling within groups").

    Parameters
    ----------
    parent : str or list of str, optional
        The parent column(s) (``"country"``, or ``"country+region"`` for a child within
        both). Default: the first predictor (synthpop's rule), which is the column's first
        predictor in the predictor matrix (the first column visited, by default).

    Notes
    -----
    Weights: record ``i`` is drawn with probability ``w_i / W_p`` within its parent ``p``, so
    a weight of 0 never draws the record and an integer weight ``k`` draws it as ``k`` copies
    would (the same draws, seed for seed). A parent value never seen in the fitting data (or
    whose records all have weight 0) has no children to draw from and raises in :meth:`draw`.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from synthguard.synthesis.methods import NestedMethod
    >>> X = pd.DataFrame({"country": pd.Categorical(["A", "A", "B"])})
    >>> m = NestedMethod(parent="country").fit(X, np.array([0, 1, 2]))
    >>> m.draw(pd.DataFrame({"country": pd.Categorical(["B", "B"], categories=["A", "B"])}),
    ...        np.random.default_rng(0)).tolist()
    [2, 2]
    """

    supports_weights = True

    def __init__(self, *, parent: str | list[str] | None = None) -> None:
        self.parent = parent

    def fit(
        self, X: Any, y: np.ndarray, weights: np.ndarray | None = None,
        *, rng: np.random.Generator | None = None,
    ) -> NestedMethod:
        """Group the confidential child values by parent."""
        y = np.asarray(y)
        w = check_weights(self.name, weights, len(y), self.supports_weights)
        if self.parent is None:
            X = self._check_frame(X, [])
            if X.shape[1] == 0:
                raise MethodError(
                    "method 'nested': the column has no predictor to nest in; name the parent, "
                    "e.g. 'nested:parent=country'"
                )
            names = [str(X.columns[0])]
        else:
            names = split_names(self.parent, "parent", self.name)
            X = self._check_frame(X, names)
        self.categorical_ = bool(y.dtype == bool or np.issubdtype(y.dtype, np.integer))
        keys = GroupKeys(X, names)
        k = keys(X)
        order = np.argsort(k, kind="stable")
        ks = k[order]
        first = np.flatnonzero(np.r_[True, ks[1:] != ks[:-1]]) if len(ks) else np.array([], int)
        weight = np.ones(len(y)) if w is None else w
        self.names_ = names
        self.keys_ = keys
        self.group_keys_ = ks[first]
        self.group_start_ = first
        self.values_ = y[order].copy()
        self.cum_weight_ = np.cumsum(weight[order])
        return self

    def draw(self, X: Any, rng: np.random.Generator) -> np.ndarray:
        """One child value per row of ``X``, from the confidential records of its parent."""
        self._check_fitted("values_")
        X = self._check_frame(X, self.names_)
        rng = check_random_state(rng)
        k = self.keys_(X)
        g = np.searchsorted(self.group_keys_, k)
        g = np.minimum(g, max(len(self.group_keys_) - 1, 0))
        if len(k) and not (self.group_keys_[g] == k).all():
            raise MethodError(
                f"method 'nested': some drawn values of {', '.join(repr(c) for c in self.names_)}"
                f" have no records in the data to draw the child from; synthesize the parent "
                f"with a method that draws observed values (sample, cart) or use 'cart' here"
            )
        cw = self.cum_weight_
        start = self.group_start_[g]
        end = np.r_[self.group_start_[1:], len(cw)][g]
        before = np.where(start > 0, cw[np.maximum(start - 1, 0)], 0.0)
        total = cw[end - 1] - before if len(k) else np.zeros(0)
        if np.any(total <= 0):
            raise MethodError(
                "method 'nested': a drawn parent has only records of weight 0 in the data, so "
                "there is no child to draw; give those records a positive weight"
            )
        target = before + rng.random(len(k)) * total
        idx = np.searchsorted(cw, target, side="right")
        idx = np.clip(idx, start, end - 1)
        out = self.values_[idx]
        return out.astype(np.int64) if self.categorical_ else out.astype(np.float64)
