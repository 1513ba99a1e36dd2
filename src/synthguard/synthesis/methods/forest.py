"""``rf`` and ``bag``: random forests (and bagged trees) with leaf-donor draws."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from synthguard._random import check_random_state
from synthguard.errors import MethodError
from synthguard.synthesis.methods.base import SynthesisMethod, check_weights
from synthguard.synthesis.methods.sample import _check_draw_data, _check_fit_data
from synthguard.synthesis.registry import register_method

__all__ = ["BagMethod", "RandomForestMethod", "RangerMethod"]


class _ForestMethod(SynthesisMethod):
    """A scikit-learn forest whose leaves hold donors (see :class:`RandomForestMethod`)."""

    target_kinds = frozenset({"numeric", "categorical"})
    supports_weights = True
    design_dtype: ClassVar[type[np.floating[Any]]] = np.float32
    all_features: ClassVar[bool] = False
    #: try sqrt(p) predictors per split for a regression too (ranger's mtry default)
    sqrt_features: ClassVar[bool] = False

    def __init__(
        self,
        *,
        ntree: int = 10,
        min_samples_leaf: int | None = None,
        max_features: float | str | None = None,
        random_state: int | None = None,
    ) -> None:
        self.ntree = ntree
        self.min_samples_leaf = min_samples_leaf
        self.max_features = max_features
        self.random_state = random_state

    def fit(
        self, X: np.ndarray, y: np.ndarray, weights: np.ndarray | None = None,
        *, rng: np.random.Generator | None = None,
    ) -> _ForestMethod:
        """Grow the forest; file every confidential record under its leaf in every tree."""
        from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor

        if isinstance(self.ntree, bool) or not isinstance(self.ntree, int | np.integer) or (
            self.ntree < 1
        ):
            raise MethodError(f"method '{self.name}': option 'ntree' must be a positive integer")
        X, y, categorical = _check_fit_data(self, X, y)
        w = check_weights(self.name, weights, len(y), self.supports_weights)
        if w is not None and not np.any(w > 0):
            raise MethodError(f"method '{self.name}': every weight is 0; nothing to fit")
        p = max(X.shape[1], 1)
        leaf = self.min_samples_leaf if self.min_samples_leaf is not None else (
            1 if categorical else 5)  # randomForest's nodesize defaults
        if self.all_features:
            features: Any = 1.0
        elif self.max_features is not None:
            features = self.max_features
        else:  # randomForest's mtry defaults: sqrt(p) to classify, p/3 for a regression
            features = (max(1, int(np.sqrt(p))) if categorical or self.sqrt_features
                        else max(1, p // 3))
        cls = RandomForestClassifier if categorical else RandomForestRegressor
        forest = cls(
            n_estimators=int(self.ntree), min_samples_leaf=int(leaf), max_features=features,
            bootstrap=True, n_jobs=1,
            random_state=self.random_state if self.random_state is not None else int(
                check_random_state(rng).integers(2**31 - 1)),
        )
        Xf = X if X.shape[1] else np.zeros((len(y), 1), dtype=X.dtype)
        forest.fit(Xf, y, sample_weight=w)
        leaves = forest.apply(Xf)  # n x ntree leaf ids
        weight = np.ones(len(y)) if w is None else w
        self.forest_ = forest
        self.categorical_ = categorical
        self.n_predictors_ = X.shape[1]
        # per tree: records sorted by leaf, with cumulative weights and each leaf's run
        self.order_ = np.argsort(leaves, axis=0, kind="stable").T.copy()  # ntree x n
        self.sorted_leaves_ = np.take_along_axis(leaves.T, self.order_, axis=1)
        self.cum_weight_ = np.cumsum(weight[self.order_], axis=1)
        self.values_ = y.copy()
        return self

    def draw(self, X: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """For each row, a confidential value drawn from the pooled donors of its leaves."""
        self._check_fitted("forest_")
        X = _check_draw_data(self, X, self.n_predictors_)
        rng = check_random_state(rng)
        m = X.shape[0]
        if m == 0:
            return np.empty(0, dtype=np.int64 if self.categorical_ else np.float64)
        Xf = X if X.shape[1] else np.zeros((m, 1), dtype=X.dtype)
        leaves = self.forest_.apply(Xf)  # m x ntree
        T = leaves.shape[1]
        start = np.empty((m, T), dtype=np.int64)
        stop = np.empty((m, T), dtype=np.int64)
        mass = np.empty((m, T))
        for t in range(T):
            sl, cw = self.sorted_leaves_[t], self.cum_weight_[t]
            start[:, t] = np.searchsorted(sl, leaves[:, t], side="left")
            stop[:, t] = np.searchsorted(sl, leaves[:, t], side="right")
            before = np.where(start[:, t] > 0, cw[np.maximum(start[:, t] - 1, 0)], 0.0)
            mass[:, t] = np.where(stop[:, t] > start[:, t], cw[np.maximum(stop[:, t] - 1, 0)]
                                  - before, 0.0)
        total = mass.sum(axis=1)
        if np.any(total <= 0):  # pragma: no cover - a grown leaf always holds a record
            raise MethodError(f"method '{self.name}': a leaf without donors")
        # pick a tree with probability proportional to its leaf's donor weight, then a donor
        # of that leaf proportional to its weight: one draw from the pooled donors
        target = rng.random(m) * total
        cum_mass = np.cumsum(mass, axis=1)
        t = np.minimum((cum_mass <= target[:, None]).sum(axis=1), T - 1)
        rows = np.arange(m)
        within = target - (cum_mass[rows, t] - mass[rows, t])
        s, e = start[rows, t], stop[rows, t]
        idx = np.empty(m, dtype=np.int64)
        for tree in np.unique(t):
            r = np.flatnonzero(t == tree)
            cw = self.cum_weight_[tree]
            base = np.where(s[r] > 0, cw[np.maximum(s[r] - 1, 0)], 0.0)
            pos = np.searchsorted(cw, base + within[r], side="right")
            idx[r] = self.order_[tree, np.clip(pos, s[r], e[r] - 1)]
        out = self.values_[idx]
        return out.astype(np.int64) if self.categorical_ else out.astype(np.float64)


@register_method("rf")
class RandomForestMethod(_ForestMethod):
    """A random forest; each synthetic value is a confidential donor from the row's leaves.

    ``ntree`` trees (default 10, synthpop's) are grown by scikit-learn on bootstrap samples,
    each split choosing among ``max_features`` random predictors (default as R's
    ``randomForest``: ``sqrt(p)`` to classify, ``p/3`` for a regression; leaves of at least 1
    and 5 records). For a synthetic record, the donors are the confidential records sharing
    its leaf, pooled over the trees (a record in the leaf of several trees counts once per
    tree); the synthetic value is one donor's value, drawn at random (synthpop's ``syn.rf``,
    Nowok, Raab & Dibben 2016; the forest is Breiman 2001). With weights, the forest is grown
    with them and a donor is drawn with probability proportional to its weight (a weight of 0
    is never drawn).

    Parameters
    ----------
    ntree : int, default 10
    min_samples_leaf : int, optional
        Smallest leaf (default 1 for a categorical target, 5 for a numeric one).
    max_features : int, float or str, optional
        Predictors tried at each split (scikit-learn's ``max_features``).
    random_state : int or None, default None
        Seed of the forest's bootstraps and feature draws; None: from the ``rng`` given to
        :meth:`fit` (the synthesizer's fit seed), so a release reproduces from its seeds.

    Examples
    --------
    >>> import numpy as np
    >>> from synthguard.synthesis.methods import RandomForestMethod
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 3))
    >>> y = np.round(X[:, 0] * 10)
    >>> out = RandomForestMethod().fit(X, y).draw(X[:5], rng)
    >>> bool(np.isin(out, y).all())
    True
    """


@register_method("bag")
class BagMethod(_ForestMethod):
    """Bagged trees: :class:`RandomForestMethod` with every predictor tried at every split
    (synthpop's ``syn.bag``, ``mtry = ncol(x)``)."""

    all_features = True


@register_method("ranger")
class RangerMethod(_ForestMethod):
    """A random forest with the defaults of R's ``ranger`` (Wright & Ziegler 2017), as
    synthpop's ``syn.ranger`` calls it: 500 trees, ``mtry = floor(sqrt(p))`` predictors per
    split for classification *and* regression, smallest leaf 1 (classification) or 5
    (regression), bootstrap samples. The forest is scikit-learn's (as ``rf``'s); the draw is
    ``rf``'s: a confidential donor pooled from the row's leaves over the trees (synthpop's
    ``syn.ranger`` pools them the same way). Weights as ``rf``.

    Examples
    --------
    >>> import numpy as np
    >>> from synthguard.synthesis.methods import RangerMethod
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 4))
    >>> m = RangerMethod(ntree=50).fit(X, np.round(X[:, 0] * 10), rng=rng)
    >>> m.forest_.max_features, len(m.forest_.estimators_)
    (2, 50)
    """

    sqrt_features = True

    def __init__(
        self,
        *,
        ntree: int = 500,
        min_samples_leaf: int | None = None,
        max_features: float | str | None = None,
        random_state: int | None = None,
    ) -> None:
        super().__init__(ntree=ntree, min_samples_leaf=min_samples_leaf,
                         max_features=max_features, random_state=random_state)
