"""Systematic sampling of donors within groups: each draw uniform, the group's draws balanced."""

from __future__ import annotations

import numpy as np

__all__ = ["systematic_positions"]


def systematic_positions(leaf: np.ndarray, size: np.ndarray,
                          rng: np.random.Generator) -> np.ndarray:
    """For each row, a donor position ``0 .. size[leaf] - 1`` in its leaf: the ``m`` rows of a
    leaf of ``s`` donors, in a random order ``r = 0 .. m - 1``, take ``floor((r + u) s / m)``
    with one ``u ~ U(0, 1)`` per leaf (systematic sampling; Madow & Madow 1944; Cochran 1977,
    ch. 8). As ``(r + u) / m`` is uniform on ``[0, 1)``, each row's donor is uniform over its
    leaf, as an independent draw; together the rows of a leaf take its sorted donors at evenly
    spaced ranks."""
    n = len(leaf)
    order = np.lexsort((rng.random(n), leaf))
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
