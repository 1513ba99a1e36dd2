"""Exact k-nearest-neighbour distances for mixed data, blocked on categorical patterns.

One KD-tree over one-hot encoded categoricals degrades badly (dozens of dimensions, almost all
distances tied). The distance is instead split by a set of *blocked* categorical columns: the
reference records are grouped by their combination of blocked values, and the distance from
query q to a record of group g is ``combine(t, m)`` where m is the number of blocked columns
on which q and g differ and t is the distance on the remaining columns (numeric columns and
unblocked categoricals), found with a small KD-tree (ball tree for hamming) per group.
``combine`` is increasing in t and in m, so ``combine(0, m)`` bounds every record of g from
below. For every query pattern the groups are visited in increasing m and the search stops as
soon as this bound reaches the k-th best distance found: exact, and in practice only the groups
at a mismatch or two are ever searched. The search runs in rounds of increasing m; in each
round every reference group is queried once, with all still-open queries at that distance. Blocked columns are chosen greedily (fewest levels
first) while the reference has at most ``max(1, n / 8)`` and at most 4096 groups.

Memory is O(n + m); no n x m distance matrix is formed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from synthguard.risk._encoding import Encoded, onehot
from synthguard.risk.blocks.frequencies import group_rows as _group_rows

if TYPE_CHECKING:  # imported where used: `import synthguard` stays fast
    from sklearn.neighbors import BallTree, KDTree

__all__ = ["nearest"]

_MAX_GROUPS = 4096


def _group_ids(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Ids of equal rows of non-negative codes, numbered in order of first appearance, and
    the distinct rows in that order (integer arithmetic on the codes,
    :func:`~synthguard.risk.uniqueness._group_rows`: no tuple per row)."""
    if codes.shape[1] == 0:
        return np.zeros(codes.shape[0], dtype=np.int64), np.zeros((1, 0), dtype=np.int64)
    ids = _group_rows(codes)
    first = np.unique(ids, return_index=True)[1]  # ids count 0, 1, ... by first appearance
    return ids, np.asarray(codes[first], dtype=np.int64).reshape(len(first), codes.shape[1])


def _choose_blocks(cat: np.ndarray, cards: list[int]) -> list[int]:
    n = cat.shape[0]
    limit = min(_MAX_GROUPS, max(1, n // 8))
    chosen: list[int] = []
    for j in np.argsort(cards, kind="stable"):
        trial = [*chosen, int(j)]
        if len(_group_ids(cat[:, trial])[1]) <= limit:
            chosen = trial
    return sorted(chosen)


def _unit_rows(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows scaled to length 1, and which rows were all zero (left at zero)."""
    norm = np.sqrt(np.einsum("ij,ij->i", x, x))
    zero = norm == 0
    return x / np.where(zero, 1.0, norm)[:, None], zero


def _nearest_cosine(enc: Encoded, ref: int, queries: list[int], k: int) -> np.ndarray:
    """Cosine distances ``1 - cos`` to the k nearest: for unit vectors u, v,
    ``|u - v|^2 = 2 (1 - cos(u, v))``, so the nearest in angle are the nearest in euclidean
    distance after scaling every record to length 1 (one KD-tree; exact). The angle couples
    all coordinates, so no categorical blocking. All-zero records (every value at the
    confidential mean, no category) have no direction: 0 to each other, 1 to any other."""
    from sklearn.neighbors import KDTree

    h = 1.0 / np.sqrt(2.0)

    def vectors(i: int) -> np.ndarray:
        return np.hstack([enc.num[i], onehot(enc.cat[i], enc.cards, h)])

    r, r_zero = _unit_rows(vectors(ref))
    q, q_zero = _unit_rows(np.vstack([vectors(i) for i in queries]))
    m = q.shape[0]
    k = min(k, r.shape[0])
    if m == 0 or k == 0:
        return np.full((m, k), np.inf)
    if r.shape[1] == 0:
        return np.zeros((m, k))
    d, idx = KDTree(r).query(q, k=k)
    out = np.minimum(np.asarray(d) ** 2 / 2.0, 1.0)
    zero_to_zero = q_zero[:, None] & r_zero[idx]
    one_zero = q_zero[:, None] ^ r_zero[idx]
    out = np.where(zero_to_zero, 0.0, np.where(one_zero, 1.0, out))
    if q_zero.any() and r_zero.any():
        # a zero query's nearest are the zero records (distance 0), then any other (1)
        n_zero = int(r_zero.sum())
        out[q_zero] = np.where(np.arange(k) < n_zero, 0.0, 1.0)
    return np.sort(out, axis=1)


def nearest(enc: Encoded, ref: int, queries: list[int], k: int) -> np.ndarray:
    """Distances (m, k) from the rows of the data sets ``queries`` (stacked) to their k nearest
    rows of data set ``ref`` (fewer columns when ``ref`` has fewer than k rows)."""
    from sklearn.neighbors import BallTree, KDTree

    if enc.metric == "cosine":
        return _nearest_cosine(enc, ref, queries, k)
    metric = enc.metric
    p = enc.p
    r_num, r_cat = enc.num[ref], enc.cat[ref]
    q_num = np.vstack([enc.num[i] for i in queries])
    q_cat = np.vstack([enc.cat[i] for i in queries])
    n_ref, m = r_cat.shape[0], q_cat.shape[0]
    k = min(k, n_ref)
    best = np.full((m, k), np.inf)
    if m == 0 or k == 0:
        return best
    blocked = _choose_blocks(r_cat, enc.cards)
    free = [j for j in range(r_cat.shape[1]) if j not in blocked]
    free_cards = [enc.cards[j] for j in free]
    if metric == "hamming":
        r_tree = r_cat[:, free].astype(np.float64)
        q_tree = q_cat[:, free].astype(np.float64)
    else:
        h = 1.0 / (2 * p) if metric == "gower" else 1.0 / np.sqrt(2.0)
        r_tree = np.hstack([r_num, onehot(r_cat[:, free], free_cards, h)])
        q_tree = np.hstack([q_num, onehot(q_cat[:, free], free_cards, h)])
    u = len(free)

    def combine(t: np.ndarray, level: int) -> np.ndarray:
        if metric == "gower":
            return t + level / p
        if metric == "euclidean":
            return np.sqrt(t * t + level)
        return (t * u + level) / p

    def lower(level: int) -> float:
        return float(combine(np.zeros(1), level)[0])

    r_gid, r_groups = _group_ids(r_cat[:, blocked])
    order = np.argsort(r_gid, kind="stable")
    bounds = np.concatenate([[0], np.cumsum(np.bincount(r_gid, minlength=len(r_groups)))])
    # map query blocked codes onto the reference groups' code space
    qb = q_cat[:, blocked]
    q_gid, q_groups = _group_ids(qb)
    q_order = np.argsort(q_gid, kind="stable")
    q_bounds = np.concatenate([[0], np.cumsum(np.bincount(q_gid, minlength=len(q_groups)))])
    trees: dict[int, KDTree | BallTree | None] = {}

    def query(g: int, rows: np.ndarray) -> np.ndarray:
        size = int(bounds[g + 1] - bounds[g])
        kk = min(k, size)
        if r_tree.shape[1] == 0:
            return np.zeros((rows.size, kk))
        if g not in trees:
            pts = r_tree[order[bounds[g] : bounds[g + 1]]]
            if metric == "hamming":
                trees[g] = BallTree(pts, metric="hamming")
            else:
                trees[g] = KDTree(pts, metric="manhattan" if metric == "gower" else "euclidean")
        tree = trees[g]
        assert tree is not None
        d, _ = tree.query(q_tree[rows], k=kk)
        return np.asarray(d)

    # level (number of blocked mismatches) between every query pattern and reference group
    levels = np.empty((len(q_groups), len(r_groups)), dtype=np.int16)
    for qg in range(len(q_groups)):
        levels[qg] = (r_groups != q_groups[qg]).sum(axis=1)
    for lv in range(int(levels.min()), int(levels.max()) + 1):
        # rounds of increasing level: search group g for the still-open queries at this level
        open_q = best[:, -1] > lower(lv)
        if not open_q.any():
            break
        qg_idx, g_idx = np.nonzero(levels == lv)
        if qg_idx.size == 0:
            continue
        # pairs (query, group) for open queries whose pattern is at this level from the group
        sizes = q_bounds[qg_idx + 1] - q_bounds[qg_idx]
        pair_g = np.repeat(g_idx, sizes)
        starts = np.repeat(q_bounds[qg_idx], sizes)
        offs = np.arange(pair_g.size) - np.repeat(np.cumsum(sizes) - sizes, sizes)
        pair_q = q_order[starts + offs]
        keep = open_q[pair_q]
        pair_g, pair_q = pair_g[keep], pair_q[keep]
        o = np.argsort(pair_g, kind="stable")
        pair_g, pair_q = pair_g[o], pair_q[o]
        cuts = np.flatnonzero(np.diff(pair_g)) + 1
        for gq, rows in zip(np.split(pair_g, cuts), np.split(pair_q, cuts)):
            if rows.size == 0:
                continue
            tot = combine(query(int(gq[0]), rows), lv)
            if tot.shape[1] < k:
                tot = np.hstack([tot, np.full((rows.size, k - tot.shape[1]), np.inf)])
            # a query appears once per group, so rows are distinct within this group
            merged = np.hstack([best[rows], tot])
            merged.sort(axis=1)
            best[rows] = merged[:, :k]
    return best
