"""``ctree``: a conditional inference tree; synthetic values are drawn from leaf donors."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from synthguard.errors import ParameterError
from synthguard.synthesis.methods._tree import NOMINAL, Tree
from synthguard.synthesis.methods.base import check_weights
from synthguard.synthesis.methods.cart import CartMethod, _kind_codes
from synthguard.synthesis.methods.sample import _check_fit_data
from synthguard.synthesis.registry import register_method

__all__ = ["CtreeMethod", "linear_test", "split_statistic"]

#: Nominal split variables with at most this many levels in a node are split by trying every
#: subset of the levels (partykit's exhaustive search); beyond it, on an ordering of them.
MAX_EXHAUSTIVE_LEVELS = 10


def _pinv_rank(a: np.ndarray) -> tuple[np.ndarray, int]:
    """Moore-Penrose inverse and rank of the symmetric matrix ``a`` (eigenvalues below
    ``max(eig) * size * eps`` count as zero)."""
    w, v = np.linalg.eigh(a)
    tol = max(float(w.max(initial=0.0)), 0.0) * a.shape[0] * np.finfo(float).eps * 10
    keep = w > tol
    inv = (v[:, keep] / w[keep]) @ v[:, keep].T
    return inv, int(keep.sum())


def _influence(y: np.ndarray, categorical: bool) -> np.ndarray:
    """``h(y)``: the value (numeric target) or the indicators of the classes (categorical)."""
    if not categorical:
        return y.astype(np.float64)[:, None]
    classes = np.unique(y)
    return (y[:, None] == classes[None, :]).astype(np.float64)


def linear_test(g: np.ndarray, h: np.ndarray) -> tuple[float, int]:
    """The quadratic test statistic of independence of ``g(X)`` and ``h(Y)`` and its degrees
    of freedom (Strasser & Weber 1999; Hothorn, Hornik & Zeileis 2006, sec. 3).

    With ``n`` records, ``T = sum_i g_i h_i'`` (p x q), conditional mean ``mu = s E(h)'`` with
    ``s = sum_i g_i``, ``E(h) = (1/n) sum_i h_i``, and covariance ``V(h) (x) W``, ``V(h) =
    (1/n) sum_i (h_i - E(h))(h_i - E(h))'``, ``W = (n sum_i g_i g_i' - s s') / (n - 1)``:
    ``c = vec(T - mu)' (V(h) (x) W)^+ vec(T - mu) = tr((T - mu)' W^+ (T - mu) V(h)^+)``,
    asymptotically chi-square with ``rank(V(h)) rank(W)`` degrees of freedom.
    """
    n = g.shape[0]
    if n < 2:
        return 0.0, 0
    eh = h.mean(axis=0)
    hc = h - eh
    v = hc.T @ hc / n
    s = g.sum(axis=0)
    w = (n * (g.T @ g) - np.outer(s, s)) / (n - 1)
    d = g.T @ h - np.outer(s, eh)
    w_inv, rw = _pinv_rank(w)
    v_inv, rv = _pinv_rank(v)
    df = rw * rv
    if df == 0:
        return 0.0, 0
    return float(np.sum((w_inv @ d) * (d @ v_inv))), df


class _NodeTest:
    """:func:`linear_test` of each predictor against one node's target, in closed form and
    without building ``g`` or ``h``.

    The columns of ``T - mu`` sum to zero over a nominal predictor's levels (``g`` sums to 1)
    and its rows over a categorical target's classes (``h`` sums to 1), so they lie in the
    ranges of ``W = (n diag(c) - c c') / (n - 1)`` and ``V(h) = diag(pi) - pi pi'``, where any
    generalised inverse gives the same quadratic form: ``diag(c)^-1 (n - 1) / n`` and
    ``diag(pi)^-1``, of ranks ``L - 1`` and ``K - 1`` (``c`` the level counts, ``pi`` the
    class shares present in the node). With a nominal predictor and a categorical target the
    statistic is Pearson's chi-square times ``(n - 1) / n``."""

    def __init__(self, y: np.ndarray, categorical: bool) -> None:
        self.n = len(y)
        self.cls: np.ndarray | None = None
        self.y: np.ndarray | None = None
        if categorical:
            classes, self.cls = np.unique(y, return_inverse=True)
            self.q = len(classes)
            self.pi = np.bincount(self.cls, minlength=self.q) / self.n
            self.rv = self.q - 1
        else:
            self.q = 1
            self.y = y.astype(np.float64)
            self.mean = float(self.y.mean())
            self.var = float(np.mean((self.y - self.mean) ** 2))
            self.rv = int(self.var > 1e-12 * max(1.0, self.mean**2))

    def _vq(self, d: np.ndarray) -> np.ndarray:
        """``d V(h)^+ d'`` for each row of ``d`` (rows: q-vectors)."""
        if self.cls is not None:
            return np.sum(d * d / self.pi[None, :], axis=1)
        return d[:, 0] ** 2 / self.var

    def _sums(self, codes: np.ndarray | None, x: np.ndarray | None,
              width: int) -> np.ndarray:
        if self.cls is not None:
            if codes is not None:
                t = np.bincount(codes * self.q + self.cls, minlength=width * self.q)
                return t.reshape(width, self.q).astype(np.float64)
            return np.bincount(self.cls, weights=x, minlength=self.q)[None, :]
        assert self.y is not None
        if codes is not None:
            return np.bincount(codes, weights=self.y, minlength=width)[:, None]
        return np.array([[float(x @ self.y)]])  # type: ignore[operator]

    def eh(self) -> np.ndarray:
        return self.pi if self.cls is not None else np.array([self.mean])

    def ordered(self, x: np.ndarray) -> tuple[float, int]:
        """Numeric or ordinal ``x``: ``g = x``."""
        if self.rv == 0:
            return 0.0, 0
        x = x.astype(np.float64)
        n, sx = self.n, float(x.sum())
        w = (n * float(x @ x) - sx * sx) / (n - 1)
        if w <= 1e-12 * max(1.0, float(x @ x)):
            return 0.0, 0
        d = self._sums(None, x, 1) - sx * self.eh()[None, :]
        return float(self._vq(d)[0] / w), self.rv

    def nominal(self, x: np.ndarray) -> tuple[float, int]:
        """Nominal ``x`` (codes): ``g`` the indicators of the levels present."""
        codes = x.astype(np.int64)
        width = int(codes.max()) + 1
        cnt = np.bincount(codes, minlength=width).astype(np.float64)
        present = cnt > 0
        levels = int(present.sum())
        if self.rv == 0 or levels < 2:
            return 0.0, 0
        t = self._sums(codes, None, width)[present]
        cnt = cnt[present]
        d = t - cnt[:, None] * self.eh()[None, :]
        stat = float(np.sum(self._vq(d) / cnt)) * (self.n - 1) / self.n
        return stat, (levels - 1) * self.rv


def split_statistic(t_left: np.ndarray, n_left: np.ndarray, h: np.ndarray) -> np.ndarray:
    """The quadratic two-sample statistic of each candidate split (Hothorn et al. 2006, sec.
    3.2): ``g = 1{x in A}`` gives ``T = t_left`` (the sum of ``h`` over the left records,
    one row per split), ``mu = n_L E(h)`` and covariance ``V(h) n_L (n - n_L) / (n - 1)``, so
    ``c = (T - mu)' V(h)^+ (T - mu) (n - 1) / (n_L (n - n_L))``."""
    n = h.shape[0]
    eh = h.mean(axis=0)
    hc = h - eh
    v_inv, _ = _pinv_rank(hc.T @ hc / n)
    d = t_left - n_left[:, None] * eh[None, :]
    nl = n_left.astype(np.float64)
    return np.einsum("ij,jk,ik->i", d, v_inv, d) * (n - 1) / (nl * (n - nl))


@register_method("ctree")
class CtreeMethod(CartMethod):
    """Conditional inference tree (Hothorn, Hornik & Zeileis 2006); each synthetic value is a
    donor from its leaf, as ``cart``'s (synthpop's ``syn.ctree``, which calls partykit).

    The tree separates *which* variable to split on from *where*: at each node,

    1. for every predictor ``X_j`` the independence of ``X_j`` and the target ``Y`` among the
       node's records is tested with the quadratic linear statistic of Strasser & Weber (1999)
       (:func:`linear_test`): ``g(X_j)`` is the value of a numeric or ordinal predictor
       (its code, for ordinal levels) or the indicators of a nominal one's levels; ``h(Y)`` the
       value of a numeric target or the indicators of a categorical one's classes. Its
       asymptotic chi-square p-value ``p_j`` is adjusted for the ``m`` predictors tested as
       partykit's ``testtype = "Bonferroni"`` does: ``1 - (1 - p_j)^m``;
    2. if the smallest adjusted p-value is not below ``1 - mincriterion`` (default 0.9, as
       synthpop's ``syn.ctree``: the 10% level), or the node has fewer than ``min_samples_split`` records, the node is a
       leaf (no pruning is needed: the tests stop the growth);
    3. otherwise the predictor with the smallest p-value is split in two where the two-sample
       statistic :func:`split_statistic` is largest, among splits leaving at least
       ``min_samples_leaf`` records on each side: ``x <= c`` at an observed value ``c`` of a
       numeric or ordinal predictor; a subset of the levels of a nominal one (every subset up
       to :data:`MAX_EXHAUSTIVE_LEVELS` levels present in the node; beyond, for a numeric or
       two-class target the levels ordered by their mean ``h``, which contains the best
       subset (Breiman et al. 1984, Thm 4.5, as the statistic is the between-group sum of
       squares), and for more classes ordered by their first principal-component score).
       Levels absent from the node, and codes never seen, go to the larger child. If the
       chosen predictor has no such split the node is a leaf.

    The asymptotic p-values are those of partykit's ``ctree(testtype = "Bonferroni",
    teststat = "quadratic")``; the defaults are synthpop's for ``ctree`` (``minbucket = 5``,
    ``mincriterion = 0.9``; partykit's own ``mincriterion`` is 0.95). Drawing (leaf donors,
    ``smoothing``, point masses, leaf diagnostics) is :class:`CartMethod`'s. Unlike CART,
    the split variable is chosen without the bias towards predictors with many possible
    splits.

    Parameters
    ----------
    mincriterion : float, default 0.9
        ``1 - `` the significance level a split must reach (partykit's ``mincriterion``).
    min_samples_leaf : int, default 5
        Minimum records in each child (partykit's ``minbucket``; synthpop's 5).
    min_samples_split : int, default 20
        Minimum records in a node for it to be tested (partykit's ``minsplit``).
    max_depth : int or None, default None
        Maximum depth (partykit's ``maxdepth``; None: no cap).
    smoothing : {False, "density", True}, default False
        Kernel-smooth numeric draws within leaves, as ``cart``'s.
    point_mass : float, default 0.01
        Share of the records a value must hold to be drawn unsmoothed, as ``cart``'s.

    Attributes
    ----------
    tree_ : synthguard.synthesis.methods._tree.Tree or None
        The fitted tree (None without predictors).
    p_values_ : list of tuple
        Per split node, in growth order: ``(node, feature, adjusted p-value)``.
    donors_ : ndarray
        The confidential target values sorted by leaf (confidential).

    Examples
    --------
    >>> import numpy as np
    >>> from synthguard.synthesis.methods import CtreeMethod
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=(200, 2))
    >>> y = np.where(x[:, 1] > 0, 10.0, 0.0) + rng.normal(size=200)
    >>> m = CtreeMethod().fit(x, y)
    >>> int(m.tree_.feature[0])  # the root splits on the predictor y depends on
    1
    """

    # partykit's test needs no cost-complexity pruning nor binning
    max_bins = None
    adjust = False

    def __init__(
        self,
        *,
        mincriterion: float = 0.9,
        min_samples_leaf: int = 5,
        min_samples_split: int = 20,
        max_depth: int | None = None,
        smoothing: bool | str = False,
        point_mass: float = 0.01,
    ) -> None:
        self.mincriterion = mincriterion
        self.min_samples_leaf = min_samples_leaf
        self.min_samples_split = min_samples_split
        self.max_depth = max_depth
        self.smoothing = smoothing
        self.point_mass = point_mass

    def _check_ctree_params(self) -> None:
        name = self.name
        m = self.mincriterion
        if isinstance(m, bool) or not isinstance(m, int | float) or not 0 <= m < 1:
            raise ParameterError(f"method '{name}': parameter 'mincriterion' must be in [0, 1)")
        for key in ("min_samples_leaf", "min_samples_split"):
            v = getattr(self, key)
            if isinstance(v, bool) or not isinstance(v, int | np.integer) or v < 1:
                raise ParameterError(f"method '{name}': parameter '{key}' must be an integer >= 1")
        d = self.max_depth
        if d is not None and (isinstance(d, bool) or not isinstance(d, int | np.integer) or d < 0):
            raise ParameterError(f"method '{name}': parameter 'max_depth' must be None or >= 0")
        if self.smoothing not in (False, True, "density", "", None, "none"):
            raise ParameterError(f"method '{name}': parameter 'smoothing' must be 'density' or False")
        if not (isinstance(self.point_mass, int | float) and self.point_mass > 0):
            raise ParameterError(f"method '{name}': parameter 'point_mass' must be > 0")

    def fit(
        self,
        X: np.ndarray,
        y: np.ndarray,
        weights: np.ndarray | None = None,
        *,
        rng: np.random.Generator | None = None,
        kinds: Sequence[str] | None = None,
    ) -> CtreeMethod:
        """Grow the conditional inference tree and group the confidential values by leaf
        (``rng`` is not used). ``kinds`` as :meth:`CartMethod.fit`'s."""
        self._check_ctree_params()
        X, y, categorical = _check_fit_data(self, X, y)
        check_weights(self.name, weights, len(y), self.supports_weights)
        n, p = X.shape
        self.categorical_ = categorical
        self.n_predictors_ = p
        kind_codes = _kind_codes(self.name, kinds, p, X)
        self.kinds_ = kind_codes
        self.layout_ = "dummies" if kinds is None else "codes"
        self.bin_edges_: list[np.ndarray | None] = [None] * p
        self.p_values_: list[tuple[int, int, float]] = []
        if p > 0:
            tree, node = self._grow(np.asarray(X, dtype=np.float64), y, kind_codes, categorical)
            n_nodes = tree.node_count
        else:
            tree, node, n_nodes = None, np.zeros(n, dtype=np.int64), 1
        self.tree_ = tree
        self._index_donors(y, node, n_nodes, categorical)
        return self

    def _index_donors(self, y: np.ndarray, node: np.ndarray, n_nodes: int,
                      categorical: bool) -> None:
        """The donor tables :class:`CartMethod`'s draws read: values sorted by leaf (and by
        value within a leaf), each leaf's start, size and distinct values."""
        n = len(y)
        order = np.lexsort((y, node))
        node_sorted = node[order]
        held = y if not categorical else y.astype(np.min_scalar_type(-int(y.max()) - 1))
        self.donors_ = held[order]
        start = np.flatnonzero(np.r_[True, node_sorted[1:] != node_sorted[:-1]])
        self.slopes_ = None
        self.donor_fit_ = None
        self.leaf_scale_ = None
        self.leaf_start_ = start
        self.leaf_size_ = np.diff(np.r_[start, n])
        self.leaf_node_ = node_sorted[start]
        self.n_leaves_ = len(start)
        lookup = np.full(n_nodes, -1, dtype=np.int64)
        lookup[self.leaf_node_] = np.arange(self.n_leaves_)
        self.node_to_leaf_ = lookup
        donors = self.donors_
        changes = donors[1:] != donors[:-1]
        inside = np.ones(n, dtype=bool)
        inside[start] = False
        step = np.r_[False, changes] & inside
        self.leaf_distinct_ = 1 + np.add.reduceat(step.astype(np.int32), start).astype(np.int64)
        self.smoothed_ = self.smoothing in (True, "density") and not categorical
        if not categorical:
            self._fit_smoothing(y)

    # ------------------------------------------------------------------ growing

    def _grow(self, X: np.ndarray, y: np.ndarray, kinds: np.ndarray,
              categorical: bool) -> tuple[Tree, np.ndarray]:
        n, p = X.shape
        width = max([int(X[:, j].max()) + 1 for j in range(p) if kinds[j] == NOMINAL] or [1])
        feature: list[int] = []
        threshold: list[float] = []
        level_row: list[int] = []
        unseen_left: list[bool] = []
        left: list[int] = []
        right: list[int] = []
        sizes: list[int] = []
        level_sets: list[np.ndarray] = []

        def add(size: int) -> int:
            feature.append(-1)
            threshold.append(np.nan)
            level_row.append(-1)
            unseen_left.append(True)
            left.append(-1)
            right.append(-1)
            sizes.append(size)
            return len(feature) - 1

        node_of = np.zeros(n, dtype=np.int64)
        stack = [(add(n), np.arange(n), 0)]
        while stack:
            t, idx, depth = stack.pop()
            node_of[idx] = t
            split = self._split(X[idx], y[idx], kinds, categorical, depth)
            if split is None:
                continue
            j, go, cut, levels_left, p_adj = split
            self.p_values_.append((t, j, p_adj))
            li, ri = idx[go], idx[~go]
            feature[t] = j
            if levels_left is None:
                threshold[t] = cut
            else:
                level_row[t] = len(level_sets)
                unseen_left[t] = len(li) >= len(ri)
                row = np.full(width, unseen_left[t], dtype=bool)
                row[: len(levels_left)] = levels_left
                level_sets.append(row)
            left[t] = add(len(li))
            right[t] = add(len(ri))
            stack.append((right[t], ri, depth + 1))
            stack.append((left[t], li, depth + 1))
        table = np.array(level_sets, dtype=bool) if level_sets else np.zeros((1, width), bool)
        tree = Tree(
            feature=np.asarray(feature, dtype=np.int64),
            threshold=np.asarray(threshold, dtype=np.float64),
            level_row=np.asarray(level_row, dtype=np.int64),
            unseen_left=np.asarray(unseen_left, dtype=bool),
            left=np.asarray(left, dtype=np.int64),
            right=np.asarray(right, dtype=np.int64),
            n=np.asarray(sizes, dtype=np.int64),
            risk=np.zeros(len(feature)),
            left_levels=table,
        )
        return tree, node_of

    def _split(
        self, X: np.ndarray, y: np.ndarray, kinds: np.ndarray, categorical: bool, depth: int,
    ) -> tuple[int, np.ndarray, float, np.ndarray | None, float] | None:
        """The node's split: (feature, left mask, threshold, left level mask, adjusted p) or
        None for a leaf."""
        n, p = X.shape
        leaf = int(self.min_samples_leaf)
        max_depth = self.max_depth
        min_split = 20 if self.min_samples_split is None else int(self.min_samples_split)
        if n < max(min_split, 2 * leaf) or (
                max_depth is not None and depth >= int(max_depth)):
            return None
        if np.all(y == y[0]):
            return None
        from scipy.special import chdtrc  # lazy: the method registry imports no SciPy

        test = _NodeTest(y, categorical)
        log_q = np.zeros(p)  # log(1 - p_j)
        for j in range(p):
            stat, df = test.nominal(X[:, j]) if kinds[j] == NOMINAL else test.ordered(X[:, j])
            p_j = float(chdtrc(df, stat)) if df > 0 else 1.0
            log_q[j] = np.log1p(-p_j) if p_j < 1.0 else -np.inf
        # Bonferroni as partykit: 1 - (1 - p_j)^m, in logs for tiny p-values
        adj = -np.expm1(p * log_q)
        j = int(np.argmin(adj))
        if not adj[j] < 1.0 - float(self.mincriterion):
            return None
        x = X[:, j]
        h = _influence(y, categorical)
        if kinds[j] == NOMINAL:
            found = _nominal_split(x, h, leaf, test)
            if found is None:
                return None
            levels_left, go = found
            return j, go, np.nan, levels_left, float(adj[j])
        found_cut = _ordered_split(x, h, leaf, test)
        if found_cut is None:
            return None
        return j, x <= found_cut, found_cut, None, float(adj[j])


def _two_sample(t_left: np.ndarray, n_left: np.ndarray, h: np.ndarray,
                test: _NodeTest | None) -> np.ndarray:
    """:func:`split_statistic`, with the node's closed-form ``V(h)^+`` when ``test`` is given."""
    if test is None:
        return split_statistic(t_left, n_left, h)
    if test.rv == 0:
        return np.zeros(len(n_left))
    n = h.shape[0]
    nl = n_left.astype(np.float64)
    d = t_left - nl[:, None] * test.eh()[None, :]
    return test._vq(d) * (n - 1) / (nl * (n - nl))


def _ordered_split(x: np.ndarray, h: np.ndarray, leaf: int,
                   test: _NodeTest | None = None) -> float | None:
    """The observed value ``c`` maximising the two-sample statistic of ``x <= c``, with at
    least ``leaf`` records on each side (the smallest such ``c`` on ties)."""
    n = len(x)
    order = np.argsort(x, kind="stable")
    xs = x[order]
    last = np.flatnonzero(np.r_[xs[1:] != xs[:-1], False])  # last position of each value
    n_left = last + 1
    ok = (n_left >= leaf) & (n - n_left >= leaf)
    if not ok.any():
        return None
    csum = np.cumsum(h[order], axis=0)
    stat = _two_sample(csum[last[ok]], n_left[ok], h, test)
    return float(xs[last[ok][int(np.argmax(stat))]])


def _nominal_split(x: np.ndarray, h: np.ndarray, leaf: int, test: _NodeTest | None = None
                   ) -> tuple[np.ndarray, np.ndarray] | None:
    """The subset of the levels of ``x`` (codes) maximising the two-sample statistic, with at
    least ``leaf`` records on each side: ``(left mask over codes 0..max, rows going left)``.
    Levels absent from the node go with the larger child."""
    levels, inv, cnt = np.unique(x, return_inverse=True, return_counts=True)
    k = len(levels)
    if k < 2:
        return None
    sums = np.stack([np.bincount(inv, weights=h[:, c], minlength=k)
                     for c in range(h.shape[1])], axis=1)
    n = len(x)
    if k <= MAX_EXHAUSTIVE_LEVELS:
        # every subset containing the last level's complement: masks 1 .. 2^(k-1) - 1 over
        # the first k - 1 levels (each split once, the last level always on the right)
        masks = np.arange(1, 2 ** (k - 1))
        member = ((masks[:, None] >> np.arange(k - 1)[None, :]) & 1).astype(bool)
        member = np.c_[member, np.zeros(len(masks), dtype=bool)]
    else:
        if h.shape[1] <= 2:
            score = sums[:, -1] / cnt
        else:
            prop = sums / cnt[:, None]
            centred = prop - (cnt @ prop) / cnt.sum()
            _, _, vt = np.linalg.svd(centred * np.sqrt(cnt)[:, None], full_matrices=False)
            score = prop @ vt[0]
        rank = np.argsort(score, kind="stable")
        member = np.zeros((k - 1, k), dtype=bool)
        for i in range(k - 1):
            member[i, rank[: i + 1]] = True
    n_left = member.astype(np.int64) @ cnt
    ok = (n_left >= leaf) & (n - n_left >= leaf)
    if not ok.any():
        return None
    member, n_left = member[ok], n_left[ok]
    stat = _two_sample(member.astype(np.float64) @ sums, n_left, h, test)
    best = member[int(np.argmax(stat))]
    left_codes = levels[best].astype(np.int64)
    larger_left = bool(best @ cnt >= n - best @ cnt)
    mask = np.full(int(levels.max()) + 1, larger_left, dtype=bool)
    mask[levels.astype(np.int64)] = best
    return mask, np.isin(x, left_codes)
