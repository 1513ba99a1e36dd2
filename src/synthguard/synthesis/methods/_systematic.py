"""Systematic sampling of donors within groups: each draw uniform, the group's draws balanced."""

from __future__ import annotations

import numpy as np

__all__ = ["group_then_key_order", "systematic_positions"]


def systematic_positions(leaf: np.ndarray, size: np.ndarray,
                          rng: np.random.Generator) -> np.ndarray:
    """For each row, a donor position ``0 .. size[leaf] - 1`` in its leaf: the ``m`` rows of a
    leaf of ``s`` donors, in a random order ``r = 0 .. m - 1``, take ``floor((r + u) s / m)``
    with one ``u ~ U(0, 1)`` per leaf (systematic sampling; Madow & Madow 1944; Cochran 1977,
    ch. 8). As ``(r + u) / m`` is uniform on ``[0, 1)``, each row's donor is uniform over its
    leaf, as an independent draw; together the rows of a leaf take its sorted donors at evenly
    spaced ranks."""
    n = len(leaf)
    order = group_then_key_order(leaf, rng.random(n))
    grouped = leaf[order]
    first = np.flatnonzero(np.r_[True, grouped[1:] != grouped[:-1]]) if n else np.zeros(0, int)
    counts = np.diff(np.r_[first, n])
    rank = np.arange(n) - np.repeat(first, counts)
    u = np.repeat(rng.random(len(first)), counts)
    s = size[grouped]
    pos = np.floor((rank + u) * s / np.repeat(counts, counts)).astype(np.int64)
    np.minimum(pos, s - 1, out=pos)
    out = np.empty(n, dtype=np.int64)
    out[order] = pos
    return out


def group_then_key_order(group: np.ndarray, key: np.ndarray) -> np.ndarray:
    """``np.lexsort((key, group))``: the rows ordered by ``group``, then ``key``, then position
    (``group``: non-negative integers), in two sorts that are each faster than lexsort's.

    The rows are first ordered by ``key`` (numpy's default sort, several times faster than a
    stable one on floats; when no two keys are equal, as for random draws, it is the only
    order by key, and when some are, the stable sort is used instead), then stably by
    ``group`` (a radix sort for fewer than 65,536 groups): a stable sort keeps the key order
    within a group, which is lexsort's order.
    """
    by_key = np.argsort(key)
    ks = key[by_key]
    if len(ks) > 1 and np.any(ks[1:] == ks[:-1]):
        by_key = np.argsort(key, kind="stable")
    g = group[by_key]
    if len(g) and g.max() < 1 << 16:
        g = g.astype(np.uint16)
    return by_key[np.argsort(g, kind="stable")]
