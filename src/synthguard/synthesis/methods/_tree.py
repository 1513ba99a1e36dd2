"""The tree behind ``cart``: rpart's splits and cost-complexity pruning, grown in numpy and
scikit-learn.

What it does as rpart (Therneau & Atkinson, "An introduction to recursive partitioning using
the RPART routines"), which synthpop's ``syn.cart`` uses:

* **nominal predictors split on subsets of their levels.** At every node the levels present
  are ordered by the node's mean response (regression, or the share of the second class for
  a two-class target) and the best split between consecutive levels in that order is the
  best of all ``2^(L-1) - 1`` subset splits (Breiman et al. 1984, Theorem 4.5; Fisher 1958).
  For a target of three or more classes no such order is exact; the levels are ordered by
  their scores on the first principal component of the node's level-by-class proportions
  (weighted by the level counts), the heuristic of Coppersmith, Hong & Hosking (1999). Levels
  absent from a node go, at draw time, to its larger child (rpart sends them down by
  surrogates or to the majority side);
* **ordinal predictors split on their order** (``level <= l``), numeric ones on thresholds
  (midpoints between consecutive observed values);
* **growth**: a node is split if it has at least ``min_split`` records, both children get
  at least ``min_leaf``, the split lowers the lack of fit at all, and the node's risk
  exceeds ``alpha`` (rpart's stopping rule);
* **cost-complexity pruning**: with ``alpha = cp * R(root)`` the tree is cut back to the
  smallest subtree minimising ``R(T) + alpha |leaves(T)|`` (Breiman et al. 1984, ch. 3),
  as rpart's ``partition`` does when a node's complexity ``(R(t) - R(T_t)) / (|T_t| - 1)``
  is at most ``alpha``. ``R`` is rpart's risk: the sum of squared deviations for a
  regression tree, the number of misclassified records for a classification tree (whose
  splits maximise the decrease of ``n * Gini``, as rpart's default).

Speed: nodes of at least ``exact_min`` records are split here (per node, per predictor, a
histogram of the node's values in one ``bincount``); each smaller node is handed to
scikit-learn's tree, grown once on that node's records with each nominal predictor replaced
by its levels' rank in the node's order (Breiman's order taken at the hand-over node, not
re-taken below it), and its nodes are copied into this tree. ``exact_min=0`` splits every
node here (exact rpart subset splits throughout; slow on large files).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["Tree", "grow_tree"]

NUMERIC, ORDINAL, NOMINAL = 0, 1, 2


@dataclass
class Tree:
    """A binary tree in arrays; node 0 is the root, children have larger ids than parents.

    ``feature[t] < 0`` marks a leaf. A numeric or ordinal split sends ``x <= threshold[t]``
    left; a nominal split sends code ``c`` left when ``left_levels[level_row[t], c]`` (codes
    beyond the table's width go to ``unseen_left[t]``).
    """

    feature: np.ndarray
    threshold: np.ndarray
    level_row: np.ndarray
    unseen_left: np.ndarray
    left: np.ndarray
    right: np.ndarray
    n: np.ndarray
    risk: np.ndarray
    left_levels: np.ndarray

    @property
    def node_count(self) -> int:
        return len(self.feature)

    def apply(self, X: np.ndarray) -> np.ndarray:
        """The leaf (node id) each row of ``X`` reaches.

        Rows descend one level per pass, all at once: each pass reads every row's value of
        its node's feature with one gather from the flattened (Fortran-ordered) ``X``,
        compares it with the node's threshold, and, for rows at nominal splits, looks their
        codes up in one flattened table of the splits' left level sets (a last column for
        codes never seen in fitting). The node's two children sit side by side in one table
        (``2 t``: right, ``2 t + 1``: left), so a row's next node is one gather at ``2 t +
        go``; node ids are kept doubled, so the per-node arrays are read at ``2 t`` without a
        multiplication. A leaf is its own child: rows that reach one stay there, and rows
        are dropped from the passes in batches (when a quarter of them sit at leaves), not
        at every pass.
        """
        m = X.shape[0]
        out = np.zeros(m, dtype=np.int64)
        if m == 0 or self.feature[0] < 0:
            return out
        flat = np.asfortranarray(X).ravel(order="F")  # a view for a Fortran-ordered X
        feature = self.feature
        at_leaf = feature < 0
        k = len(feature)
        ids = np.arange(k, dtype=np.int64)
        # indexed by 2 t (and 2 t + 1 for the children): every per-node array repeated twice
        child = np.empty(2 * k, dtype=np.int64)
        child[0::2] = 2 * np.where(at_leaf, ids, self.right)
        child[1::2] = 2 * np.where(at_leaf, ids, self.left)
        leaf2 = np.repeat(at_leaf, 2)
        offset = np.repeat(np.where(at_leaf, 0, feature).astype(np.int64) * m, 2)
        threshold = np.repeat(self.threshold, 2)  # NaN at leaves and nominal splits
        nominal = self.level_row >= 0
        tflat = base = None
        width = self.left_levels.shape[1]
        if nominal.any():
            # row r of the level table, code c -> tflat[r * (width + 1) + c]; c = width: unseen
            table = np.zeros((self.left_levels.shape[0], width + 1), dtype=bool)
            table[:, :width] = self.left_levels
            row = np.where(nominal, self.level_row, 0)
            table[row[nominal], width] = self.unseen_left[nominal]
            tflat = table.ravel()
            base = np.repeat(row * (width + 1), 2)
        nominal2 = np.repeat(nominal, 2)
        rows = np.arange(m, dtype=np.int64)
        node = np.zeros(m, dtype=np.int64)  # 2 x the node id
        while True:
            x = flat[offset[node] + rows]
            go = x <= threshold[node]  # NaN threshold (leaf, nominal split): False
            if tflat is not None and base is not None:
                at = np.flatnonzero(nominal2[node])
                if len(at):
                    c = x[at]
                    code = np.where((c >= 0) & (c < width), c, width).astype(np.int64)
                    go[at] = tflat[base[node[at]] + code]
            node += go
            node = child[node]
            done = leaf2[node]
            n_done = int(np.count_nonzero(done))
            if n_done == len(node):
                out[rows] = node // 2
                return out
            if 4 * n_done >= len(node):
                out[rows[done]] = node[done] // 2
                keep = ~done
                rows, node = rows[keep], node[keep]


@dataclass
class _Builder:
    feature: list[int] = field(default_factory=list)
    threshold: list[float] = field(default_factory=list)
    level_row: list[int] = field(default_factory=list)
    unseen_left: list[bool] = field(default_factory=list)
    left: list[int] = field(default_factory=list)
    right: list[int] = field(default_factory=list)
    n: list[int] = field(default_factory=list)
    risk: list[float] = field(default_factory=list)
    # blocks of rows of the nominal splits' level table: (go[rows, levels], unseen[rows])
    level_sets: list[tuple[np.ndarray, np.ndarray]] = field(default_factory=list)
    n_level_rows: int = 0

    def nominal(self, node: int, j: int, go: np.ndarray, unseen_left: bool) -> None:
        """Make ``node`` a subset split of nominal predictor ``j`` (``go``: level -> left)."""
        self.feature[node] = j
        self.level_row[node] = self.add_level_rows(go[None, :], np.array([unseen_left]))
        self.unseen_left[node] = unseen_left

    def add_level_rows(self, go: np.ndarray, unseen: np.ndarray) -> int:
        """Append rows to the level table; return the first row's number."""
        first = self.n_level_rows
        self.level_sets.append((go, unseen))
        self.n_level_rows += len(go)
        return first

    def add(self, n: int, risk: float) -> int:
        self.feature.append(-1)
        self.threshold.append(np.nan)
        self.level_row.append(-1)
        self.unseen_left.append(True)
        self.left.append(-1)
        self.right.append(-1)
        self.n.append(n)
        self.risk.append(risk)
        return len(self.feature) - 1

    def finish(self, width: int) -> Tree:
        table = np.zeros((max(self.n_level_rows, 1), max(width, 1)), dtype=bool)
        i = 0
        for go, unseen in self.level_sets:
            rows = slice(i, i + len(go))
            table[rows, : go.shape[1]] = go
            table[rows, go.shape[1]:] = unseen[:, None]  # codes never seen when fitting
            i += len(go)
        return Tree(
            feature=np.asarray(self.feature, dtype=np.int64),
            threshold=np.asarray(self.threshold, dtype=np.float64),
            level_row=np.asarray(self.level_row, dtype=np.int64),
            unseen_left=np.asarray(self.unseen_left, dtype=bool),
            left=np.asarray(self.left, dtype=np.int64),
            right=np.asarray(self.right, dtype=np.int64),
            n=np.asarray(self.n, dtype=np.int64),
            risk=np.asarray(self.risk, dtype=np.float64),
            left_levels=table,
        )


def _level_scores(tab: np.ndarray, cnt: np.ndarray) -> np.ndarray:
    """Score of each level (rows of ``tab``: per-level response sums (regression, one
    column) or class counts) by which its levels are ordered for subset splits."""
    if tab.shape[1] == 1:
        return tab[:, 0] / cnt
    if tab.shape[1] == 2:
        return tab[:, 1] / cnt
    # first principal component of the class proportions, weighted by the level counts
    # (Coppersmith, Hong & Hosking 1999)
    p = tab / cnt[:, None]
    w = cnt / cnt.sum()
    centred = p - w @ p
    cov = (centred * w[:, None]).T @ centred
    _, vecs = np.linalg.eigh(cov)
    v = vecs[:, -1]
    v = v if v[np.argmax(np.abs(v))] > 0 else -v  # a fixed sign: same data, same order
    return centred @ v


def _stable_order(keys: np.ndarray, n_values: int) -> np.ndarray:
    """``np.argsort(keys, kind="stable")`` for integer ``keys`` in ``0 .. n_values - 1``:
    sorted as 8- or 16-bit integers when they fit, which numpy sorts by radix (several times
    faster than its stable sort of wider integers); a stable order is the same whatever the
    algorithm."""
    if n_values <= 1 << 8:
        keys = keys.astype(np.uint8)
    elif n_values <= 1 << 16:
        keys = keys.astype(np.uint16)
    return np.argsort(keys, kind="stable")


def _risk(tab_total: np.ndarray, m: int, sse: float | None) -> float:
    if sse is not None:
        return sse
    return float(m - tab_total.max())


class _Grower:
    def __init__(self, X: np.ndarray, y: np.ndarray, kinds: np.ndarray, n_classes: int,
                 min_leaf: int, min_split: int, max_depth: int | None, cp: float,
                 exact_min: int) -> None:
        self.X, self.y, self.kinds = X, y, kinds
        self.C = n_classes  # 0: regression
        self.min_leaf, self.min_split = min_leaf, min_split
        self.max_depth = max_depth
        self.exact_min = exact_min
        self.b = _Builder()
        self.row_node = np.zeros(len(y), dtype=np.int64)  # the node each record ends in
        p = X.shape[1]
        # dense ranks of every predictor's values (for per-node histograms)
        self.ranks: list[np.ndarray] = []
        self.values: list[np.ndarray] = []
        for j in range(p):
            if kinds[j] == NUMERIC:
                vals, inv = np.unique(X[:, j], return_inverse=True)
            else:
                inv = X[:, j].astype(np.int64)
                vals = np.arange(int(inv.max()) + 1 if len(inv) else 1, dtype=np.float64)
            self.ranks.append(inv.astype(np.int32 if len(vals) < 2**31 else np.int64))
            self.values.append(vals)
        self.width = max([len(v) for j, v in enumerate(self.values) if kinds[j] == NOMINAL],
                         default=1)
        if self.C:
            self.y_int = y.astype(np.int64)
        root_tab, root_sse = self._node_stats(np.arange(len(y)))
        # rpart's rule: a node whose risk is at most alpha is not split (pruning would
        # remove any subtree below it)
        self.alpha = cp * _risk(root_tab, len(y), root_sse)

    # -- node statistics -------------------------------------------------------------
    def _node_stats(self, idx: np.ndarray) -> tuple[np.ndarray, float | None]:
        if self.C:
            return np.bincount(self.y_int[idx], minlength=self.C).astype(np.float64), None
        yv = self.y[idx]
        return np.array([yv.sum()]), float(((yv - yv.mean()) ** 2).sum())

    # -- split search ----------------------------------------------------------------
    def _histogram(self, j: int, idx: np.ndarray, yc: np.ndarray | None,
                   yi: np.ndarray | None = None
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Levels/values present in the node, their counts and response tables (``yi``: the
        node's classes, if already gathered)."""
        r = self.ranks[j][idx]
        V = len(self.values[j])
        m = len(idx)
        if self.C and yi is None:
            yi = self.y_int[idx]
        if V <= 4 * m:
            # (numpy counts 64-bit integers several times faster than 32-bit ones)
            r64 = r.astype(np.int64)
            if self.C:
                # the value-by-class table; the values' counts are its row sums
                full = np.bincount(r64 * self.C + yi, minlength=V * self.C).reshape(V, self.C)
                cnt = full.sum(axis=1)
                present = np.flatnonzero(cnt)
                tab = full[present]
            else:
                cnt = np.bincount(r64, minlength=V)
                present = np.flatnonzero(cnt)
                tab = np.bincount(r64, weights=yc, minlength=V)[present][:, None]
            return present, cnt[present], tab.astype(np.float64)
        order = _stable_order(r, V)
        rs = r[order]
        starts = np.flatnonzero(np.r_[True, rs[1:] != rs[:-1]])
        present = rs[starts].astype(np.int64)
        cnt = np.diff(np.r_[starts, m])
        if self.C:
            assert yi is not None
            onehot = np.zeros((m, self.C))
            onehot[np.arange(m), yi[order]] = 1.0
            tab = np.add.reduceat(onehot, starts, axis=0)
        else:
            assert yc is not None
            tab = np.add.reduceat(yc[order], starts)[:, None]
        return present, cnt, tab

    def _best_split(self, idx: np.ndarray
                    ) -> tuple[float, int, np.ndarray, np.ndarray, int] | None:
        m = len(idx)
        yc = yi = None
        if self.C:
            yi = self.y_int[idx]
        else:
            yv = self.y[idx]
            yc = yv - yv.mean()  # centred: sums of squares without cancellation
        best: tuple[float, int, np.ndarray, np.ndarray, int] | None = None
        lo = self.min_leaf
        for j in range(self.X.shape[1]):
            if (yi is not None and self.kinds[j] != NOMINAL
                    and len(self.values[j]) * self.C > 8 * m):
                present, cnt, gain = self._ordered_class_gain(j, idx, yi)
                if len(present) < 2:
                    continue
                cl = np.cumsum(cnt)[:-1]
                ok = (cl >= lo) & (m - cl >= lo)
                if not ok.any():
                    continue
                gain = np.where(ok, gain, -np.inf)
                k = int(np.argmax(gain))
                g = float(gain[k])
                if best is None or g > best[0]:
                    best = (g, j, present, cnt, k)
                continue
            present, cnt, tab = self._histogram(j, idx, yc, yi)
            if len(present) < 2:
                continue
            if self.kinds[j] == NOMINAL:
                order = np.argsort(_level_scores(tab, cnt.astype(np.float64)), kind="stable")
                present, cnt, tab = present[order], cnt[order], tab[order]
            cl = np.cumsum(cnt)[:-1]
            cr = m - cl
            ok = (cl >= lo) & (cr >= lo)
            if not ok.any():
                continue
            cum = np.cumsum(tab, axis=0)[:-1]
            right = tab.sum(axis=0) - cum
            if self.C:
                gain = (cum * cum).sum(1) / cl + (right * right).sum(1) / cr
                gain -= (tab.sum(0) @ tab.sum(0)) / m
            else:
                gain = cum[:, 0] ** 2 / cl + right[:, 0] ** 2 / cr  # centred: total is 0
            gain = np.where(ok, gain, -np.inf)
            k = int(np.argmax(gain))
            g = float(gain[k])
            if best is None or g > best[0]:
                best = (g, j, present, cnt, k)
        return best

    def _ordered_class_gain(self, j: int, idx: np.ndarray, yi: np.ndarray
                            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Values present, their counts and the split gains of a numeric or ordinal
        predictor with a class target, without the values-by-classes table.

        With many values and classes (Adult's ``fnlwgt``, 20,000 values, for a 41-class
        target) that table and its cumulative sums dominate the growth. The gain needs, at
        each threshold, only ``S_L = sum_c L_c^2`` and ``sum_c R_c^2 = sum_c N_c^2 - 2
        sum_c N_c L_c + S_L`` (``L_c``, ``R_c``, ``N_c``: class counts left, right, in the
        node). Walking the records in the predictor's order, a record of class ``c`` raises
        ``S_L`` by ``2 L_c + 1`` (``L_c``: the records of its class before it) and ``sum_c
        N_c L_c`` by ``N_c``, so both are cumulative sums over the records. They are exact
        integers, as the table's sums of squared counts are, so the gains are the same
        numbers bit for bit.
        """
        m = len(idx)
        r = self.ranks[j][idx]
        order = _stable_order(r, len(self.values[j]))
        rs = r[order]
        ys = yi[order]
        last = np.flatnonzero(rs[1:] != rs[:-1])  # each value's last record (but the top's)
        present = rs[np.r_[0, last + 1]].astype(np.int64)
        cnt = np.diff(np.r_[0, last + 1, m])
        size = np.bincount(ys, minlength=self.C)
        by_class = _stable_order(ys, self.C)
        before = np.empty(m, dtype=np.int64)  # records of the same class earlier in the order
        before[by_class] = np.arange(m) - np.repeat(np.cumsum(size) - size, size)
        s_left = np.cumsum(2 * before + 1)[last]
        cross = np.cumsum(size[ys])[last]
        total_sq = size.astype(np.float64) @ size.astype(np.float64)
        s_right = int(size @ size) - 2 * cross + s_left
        cl = last + 1
        gain = s_left.astype(np.float64) / cl + s_right.astype(np.float64) / (m - cl)
        gain -= total_sq / m
        return present, cnt, gain

    # -- growth ----------------------------------------------------------------------
    def grow(self) -> Tree:
        n = len(self.y)
        tab, sse = self._node_stats(np.arange(n))
        root = self.b.add(n, _risk(tab, n, sse))
        stack = [(root, np.arange(n), 0)]
        while stack:
            node, idx, depth = stack.pop()
            self.row_node[idx] = node
            m = len(idx)
            if m < self.min_split or m < 2 * self.min_leaf:
                continue
            if self.max_depth is not None and depth >= self.max_depth:
                continue
            if self.b.risk[node] <= self.alpha:
                continue
            if m < self.exact_min:
                self._grow_sklearn(node, idx, depth)
                continue
            found = self._best_split(idx)
            if found is None:
                continue
            gain, j, present, cnt, k = found
            if not gain > 0:
                continue
            r = self.ranks[j][idx]
            left_ranks = present[: k + 1]
            if self.kinds[j] == NOMINAL:
                go = np.zeros(len(self.values[j]), dtype=bool)
                go[left_ranks] = True
                majority_left = cnt[: k + 1].sum() >= cnt[k + 1:].sum()
                absent = np.ones(len(self.values[j]), dtype=bool)
                absent[present] = False
                go[absent] = majority_left
                mask = go[r]
                self.b.nominal(node, j, go, bool(majority_left))
            else:
                vals = self.values[j]
                a, c = float(vals[present[k]]), float(vals[present[k + 1]])
                self.b.feature[node] = j
                self.b.threshold[node] = a + (c - a) / 2
                mask = r <= present[k]
            self._children(node, idx[mask], idx[~mask], depth, stack)
        return self.b.finish(self.width)

    def _children(self, node: int, li: np.ndarray, ri: np.ndarray, depth: int,
                  stack: list[tuple[int, np.ndarray, int]]) -> None:
        out = []
        for ids in (li, ri):
            tab, sse = self._node_stats(ids)
            out.append(self.b.add(len(ids), _risk(tab, len(ids), sse)))
        self.b.left[node], self.b.right[node] = out
        stack.append((out[1], ri, depth + 1))
        stack.append((out[0], li, depth + 1))

    def _grow_sklearn(self, node: int, idx: np.ndarray, depth: int) -> None:
        """Grow the subtree below ``node`` with scikit-learn; copy its nodes in."""
        from sklearn import config_context
        from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

        # float32 (the learner's type; a no-op for the synthesizer's float32 design)
        # the node's rows, Fortran-ordered: gathered from X's transpose (one copy)
        Xl = np.take(self.X.T, idx, axis=1).T.astype(np.float32, copy=False)
        yv = self.y_int[idx] if self.C else self.y[idx]
        yc = None if self.C else yv - yv.mean()
        maps: dict[int, np.ndarray] = {}
        for j in np.flatnonzero(self.kinds == NOMINAL):
            present, cnt, tab = self._histogram(int(j), idx, yc, yv if self.C else None)
            if len(present) < 2:
                continue
            order = np.argsort(_level_scores(tab, cnt.astype(np.float64)), kind="stable")
            rank = np.full(len(self.values[j]), -1.0)
            rank[present[order]] = np.arange(len(present))
            maps[int(j)] = rank
            Xl[:, j] = rank[self.ranks[j][idx]]
        depth_left = None if self.max_depth is None else self.max_depth - depth
        common = dict(min_samples_leaf=self.min_leaf, min_samples_split=max(self.min_split, 2),
                      max_depth=depth_left, random_state=0)
        tree: DecisionTreeClassifier | DecisionTreeRegressor
        if self.C:
            tree = DecisionTreeClassifier(criterion="gini", **common)  # type: ignore[arg-type]
        else:
            tree = DecisionTreeRegressor(criterion="squared_error", **common)  # type: ignore[arg-type]
        # The design is finite float32 (missing values are codes or indicators) and the
        # parameters are set here: scikit-learn's input and parameter checks, about a third
        # of the time of these small fits, are skipped; the tree grown is the same.
        with config_context(skip_parameter_validation=True):
            tree.fit(Xl, yv, check_input=False)
        t = tree.tree_
        if t.node_count == 1:
            return
        self.row_node[idx] = self._copy_sklearn(node, t, maps)[t.apply(Xl)]

    def _copy_sklearn(self, node: int, t: object, maps: dict[int, np.ndarray]) -> np.ndarray:
        """Append scikit-learn tree ``t`` (its root is ``node``) to the builder, vectorised;
        return the builder's id of each of its nodes."""
        b = self.b
        k = t.node_count  # type: ignore[attr-defined]
        ids = np.r_[node, len(b.feature) + np.arange(k - 1)].astype(np.int64)
        counts = t.n_node_samples.astype(np.int64)  # type: ignore[attr-defined]
        if self.C:
            frac = t.value[:, 0, :]  # type: ignore[attr-defined]
            # classes seen by the subtree are a subset of 0..C-1: misclassified records
            risk = counts * (1.0 - frac.max(axis=1))
        else:
            risk = t.impurity * counts  # type: ignore[attr-defined]
        cl, cr = t.children_left, t.children_right  # type: ignore[attr-defined]
        internal = cl >= 0
        feature = np.where(internal, t.feature, -1).astype(np.int64)  # type: ignore[attr-defined]
        threshold = np.where(internal, t.threshold, np.nan)  # type: ignore[attr-defined]
        left = np.where(internal, ids[np.maximum(cl, 0)], -1)
        right = np.where(internal, ids[np.maximum(cr, 0)], -1)
        level_row = np.full(k, -1, dtype=np.int64)
        unseen = np.ones(k, dtype=bool)
        larger_left = counts[np.maximum(cl, 0)] >= counts[np.maximum(cr, 0)]
        for j, rank in maps.items():
            at = np.flatnonzero(internal & (feature == j))
            if not len(at):
                continue
            go = (rank[None, :] <= threshold[at, None]) & (rank[None, :] >= 0)
            go = np.where(rank[None, :] < 0, larger_left[at, None], go)
            level_row[at] = b.add_level_rows(go, larger_left[at]) + np.arange(len(at))
            unseen[at] = larger_left[at]
            threshold[at] = np.nan
        # the subtree's root is ``node``, already in the builder: set it, append the rest
        b.feature[node], b.threshold[node] = int(feature[0]), float(threshold[0])
        b.level_row[node], b.unseen_left[node] = int(level_row[0]), bool(unseen[0])
        b.left[node], b.right[node] = int(left[0]), int(right[0])
        b.feature.extend(feature[1:].tolist())
        b.threshold.extend(threshold[1:].tolist())
        b.level_row.extend(level_row[1:].tolist())
        b.unseen_left.extend(unseen[1:].tolist())
        b.left.extend(left[1:].tolist())
        b.right.extend(right[1:].tolist())
        b.n.extend(counts[1:].tolist())
        b.risk.extend(np.asarray(risk[1:], dtype=float).tolist())
        return ids


def prune(tree: Tree, alpha: float) -> None:
    """Cost-complexity pruning in place: every node whose (pruned) subtree lowers the risk by
    at most ``alpha`` per extra leaf becomes a leaf (Breiman et al. 1984; rpart)."""
    n_nodes = tree.node_count
    internal = tree.feature >= 0
    if not internal.any():
        return
    depth = np.zeros(n_nodes, dtype=np.int64)
    frontier, d = np.array([0]), 0
    while len(frontier):
        frontier = frontier[internal[frontier]]
        frontier = np.r_[tree.left[frontier], tree.right[frontier]]
        d += 1
        depth[frontier] = d
    cost = tree.risk.copy()  # risk of the pruned subtree
    leaves = np.ones(n_nodes, dtype=np.int64)
    for d in range(int(depth.max()), -1, -1):
        at = np.flatnonzero(internal & (depth == d))
        if not len(at):
            continue
        lt, rt = tree.left[at], tree.right[at]
        sub = cost[lt] + cost[rt]
        nl = leaves[lt] + leaves[rt]
        cut = (tree.risk[at] - sub) <= alpha * (nl - 1)
        cost[at] = np.where(cut, tree.risk[at], sub)
        leaves[at] = np.where(cut, 1, nl)
        tree.feature[at[cut]] = -1


def _collapsed(tree: Tree) -> np.ndarray:
    """For each node, the node of the pruned tree its records end in (itself, or the
    ancestor that pruning made a leaf)."""
    out = np.arange(tree.node_count)
    frontier = np.array([0])
    while len(frontier):
        par = frontier[tree.left[frontier] >= 0]
        to = np.where((out[par] != par) | (tree.feature[par] < 0), out[par], -1)
        kids = []
        for child in (tree.left[par], tree.right[par]):
            out[child] = np.where(to >= 0, to, child)
            kids.append(child)
        frontier = np.concatenate(kids)
    return out


def grow_tree(X: np.ndarray, y: np.ndarray, kinds: np.ndarray, *, n_classes: int,
              min_leaf: int, min_split: int, max_depth: int | None, cp: float,
              exact_min: int) -> tuple[Tree, np.ndarray]:
    """Grow (see the module docstring) and prune a tree of ``y`` on ``X``; return it and
    the leaf each record of ``X`` falls in (``tree.apply(X)``, known from the growth).

    ``kinds[j]``: 0 numeric, 1 ordinal (codes in order), 2 nominal (codes ``0..L-1``).
    ``n_classes``: 0 for a regression tree, else the number of classes of ``y`` (codes).
    """
    g = _Grower(X, y, np.asarray(kinds, dtype=np.int64), n_classes, min_leaf, min_split,
                max_depth, cp, exact_min)
    tree = g.grow()
    prune(tree, cp * float(tree.risk[0]))
    return tree, _collapsed(tree)[g.row_node]
