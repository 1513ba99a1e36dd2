"""A column as its distinct values and their counts, and numpy's statistics of such a
multiset computed without building it.

Many measures read a column only through the multiset of its values: its kind
(:func:`synthguard.data.infer_schema`), level counts, percentiles, moments, ECDFs. On data too
big for one process (:mod:`synthguard.scale`) the workers count the values and the client
holds one entry per *distinct* value (:class:`ValueCounts`), never one per record. The
functions here give what numpy gives on the expanded values, to the bit:

* :func:`quantiles_from_counts`: ``numpy.quantile(x, q)`` (method ``"linear"``, Hyndman & Fan
  1996 definition 7) from the two order statistics around each position, read from the
  cumulative counts;
* :func:`sum_of_runs`: ``numpy.add.reduce(numpy.repeat(values, lengths))`` (so ``numpy.sum``
  and ``numpy.mean``) for float64, reproducing numpy's pairwise summation
  (``numpy/_core/src/umath/loops_utils.h.src``, ``pairwise_sum``) over the runs of equal
  values.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["ValueCounts", "quantiles_from_counts", "sum_of_runs"]


@dataclass(frozen=True, eq=False)
class ValueCounts:
    """The multiset of a column's values: each distinct value once, with how often it occurs.

    Attributes
    ----------
    values : the distinct values (missing values included, as their own entries) in the
        column's dtype, named as the column; a categorical column keeps its categories, also
        those that do not occur.
    counts : int64 array, how many records hold each value (every count > 0).
    """

    values: pd.Series
    counts: np.ndarray

    @classmethod
    def of(cls, s: pd.Series) -> ValueCounts:
        """The value counts of a pandas Series (missing values counted)."""
        if isinstance(s.dtype, np.dtype) and s.dtype.kind in "biuf":  # numpy numbers: sort
            arr = s.to_numpy()
            nan = np.isnan(arr) if arr.dtype.kind == "f" else np.zeros(arr.shape, dtype=bool)
            u, c = np.unique(arr[~nan], return_counts=True)
            n_nan = int(nan.sum())
            if n_nan:
                u, c = np.append(u, arr[nan][:1]), np.append(c, n_nan)
            return cls(pd.Series(u, name=s.name, dtype=s.dtype), c.astype(np.int64))
        vc = s.value_counts(dropna=False, sort=False)
        keep = vc.to_numpy() > 0  # a categorical's categories that do not occur
        values = pd.Series(vc.index[keep], name=s.name)
        if values.dtype != s.dtype:  # the index keeps the dtype; should it not, restore it
            try:
                values = values.astype(s.dtype)
            except (TypeError, ValueError):
                pass
        return cls(values, vc.to_numpy(dtype=np.int64)[keep])

    @property
    def name(self) -> Any:
        return self.values.name

    @property
    def dtype(self) -> Any:
        return self.values.dtype

    @property
    def n(self) -> int:
        """Number of records."""
        return int(self.counts.sum())

    def missing(self) -> np.ndarray:
        """Which entries are missing values."""
        return np.asarray(self.values.isna(), dtype=bool)

    @property
    def n_missing(self) -> int:
        return int(self.counts[self.missing()].sum())

    def present(self) -> ValueCounts:
        """The non-missing values and their counts."""
        ok = ~self.missing()
        return ValueCounts(self.values[ok].reset_index(drop=True), self.counts[ok])

    def expand(self) -> pd.Series:
        """The values themselves, one per record (each distinct value repeated): O(records)
        memory, for small data and tests."""
        idx = np.repeat(np.arange(self.counts.size), self.counts)
        return self.values.iloc[idx].reset_index(drop=True)


def quantiles_from_counts(values: np.ndarray, counts: np.ndarray, q: np.ndarray) -> np.ndarray:
    """``numpy.quantile(x, q)`` (method ``"linear"``) of the multiset ``x`` holding each of
    the sorted distinct ``values`` ``counts`` times, without building ``x``.

    With ``n = Σ counts`` the position of ``q`` is ``h = (n - 1) q``; the order statistics
    ``x_(⌊h⌋)`` and ``x_(⌊h⌋+1)`` (0-based) are found in the cumulative counts and
    interpolated with ``γ = h - ⌊h⌋`` as numpy does: ``a + (b - a) γ``, or ``b - (b - a)(1 - γ)``
    when ``γ ≥ 0.5`` (Hyndman & Fan 1996, definition 7); so the result is numpy's to the bit.
    """
    q = np.asarray(q, dtype=np.float64)
    n = int(np.sum(counts))
    if n == 0:
        return np.full(q.shape, np.nan)
    cum = np.cumsum(counts)
    virtual = (n - 1) * q
    prev = np.floor(virtual)
    nxt = prev + 1
    above = virtual >= n - 1  # numpy takes the last value, index -1, and keeps -1 in γ
    prev[above] = -1
    nxt[above] = -1
    below = virtual < 0
    prev[below] = 0
    nxt[below] = 0
    gamma = virtual - prev.astype(np.intp)
    pos = [np.where(i < 0, n + i, i).astype(np.int64) for i in (prev, nxt)]
    a = values[np.searchsorted(cum, pos[0], side="right")]
    b = values[np.searchsorted(cum, pos[1], side="right")]
    diff = b - a
    out = a + diff * gamma
    np.subtract(b, diff * (1 - gamma), out=out, where=gamma >= 0.5)
    return out


def order_statistic(values: np.ndarray, counts: np.ndarray, k: int) -> Any:
    """The ``k``-th smallest (0-based) of the multiset: ``numpy.sort(x)[k]``."""
    return values[int(np.searchsorted(np.cumsum(counts), k, side="right"))]


# ------------------------------------------------------------------ numpy's pairwise sum
#: numpy's ``PW_BLOCKSIZE``: blocks of at most this many values are summed with 8 accumulators
_BLOCK = 128
#: mixed leaves (blocks holding more than one run) evaluated per numpy pass
_LEAVES_PER_PASS = 8192


def _leaf_sums(v: np.ndarray, n: int) -> np.ndarray:
    """numpy's ``pairwise_sum`` of each row of ``v`` (shape ``(k, n)``, ``n <= 128``): fewer
    than 8 values added in order from 0.0; else 8 accumulators over strided values,
    combined as ``((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))``, then the rest in
    order. Element-wise float64 additions, as the C loop's."""
    if n < 8:
        res = np.zeros(v.shape[0])
        for i in range(n):
            res = res + v[:, i]
        return res
    r = v[:, :8].copy()
    m = n - n % 8
    for i in range(8, m, 8):
        r += v[:, i:i + 8]
    res = ((r[:, 0] + r[:, 1]) + (r[:, 2] + r[:, 3])) + ((r[:, 4] + r[:, 5]) + (r[:, 6] + r[:, 7]))
    for i in range(m, n):
        res = res + v[:, i]
    return res


def _split(n: int) -> int:
    """Size of the first half of a block of ``n > 128`` values (a multiple of 8)."""
    n2 = n // 2
    return n2 - n2 % 8


def _pure_sums(v: np.ndarray, n: int, memo: dict[int, np.ndarray]) -> np.ndarray:
    """numpy's pairwise sum of ``n`` copies of each value of ``v`` (one result per value)."""
    if n not in memo:
        if n <= _BLOCK:
            memo[n] = _leaf_sums(np.broadcast_to(v[:, None], (v.size, n)), n)
        else:
            n2 = _split(n)
            memo[n] = _pure_sums(v, n2, memo) + _pure_sums(v, n - n2, memo)
    return memo[n]


def sum_of_runs(values: np.ndarray, lengths: np.ndarray) -> float:
    """``numpy.add.reduce(numpy.repeat(values, lengths))`` of float64 ``values``, to the bit,
    in memory bounded by the number of runs (times the depth of the tree), never by their
    total length.

    numpy sums a contiguous float64 array pairwise: a block of ``n > 128`` values is split
    into a first half of ``⌊n/2⌋`` rounded down to a multiple of 8 and the rest, each summed
    the same way; a block of at most 128 values is summed by :func:`_leaf_sums`; the
    reduction starts from 0.0. The same tree is walked here one level at a time over the
    blocks that hold more than one run (as vectors of block starts and sizes): a block inside
    one run of value ``v`` is the pairwise sum of ``n`` copies of ``v`` (computed once per
    size), a mixed block of at most 128 values is summed from its values, and a larger mixed
    block is split; the block sums are then added back up the tree in the same order.
    """
    values = np.asarray(values, dtype=np.float64)
    lengths = np.asarray(lengths, dtype=np.int64)
    keep = lengths > 0
    values, lengths = values[keep], lengths[keep]
    total = int(lengths.sum())
    if total == 0:
        return 0.0
    ends = np.cumsum(lengths)
    run_of: Callable[[np.ndarray], np.ndarray] = lambda pos: np.searchsorted(  # noqa: E731
        ends, pos, side="right")
    starts = np.array([0], dtype=np.int64)
    sizes = np.array([total], dtype=np.int64)
    levels: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # (sums, left, right)
    while starts.size:
        first, last = run_of(starts), run_of(starts + sizes - 1)
        sums = np.zeros(starts.size)
        pure = first == last
        for n in np.unique(sizes[pure]):
            at = np.flatnonzero(pure & (sizes == n))
            sums[at] = _pure_sums(values[first[at]], int(n), {})
        leaf = ~pure & (sizes <= _BLOCK)
        for n in np.unique(sizes[leaf]):
            at = np.flatnonzero(leaf & (sizes == n))
            for c in range(0, at.size, _LEAVES_PER_PASS):
                chunk = at[c:c + _LEAVES_PER_PASS]
                pos = starts[chunk, None] + np.arange(int(n))
                sums[chunk] = _leaf_sums(values[run_of(pos)], int(n))
        inner = np.flatnonzero(~pure & (sizes > _BLOCK))
        left = np.arange(inner.size) * 2  # children's places at the next level
        levels.append((sums, inner, left))
        n2 = sizes[inner] // 2
        n2 -= n2 % 8
        starts = np.column_stack([starts[inner], starts[inner] + n2]).ravel()
        sizes = np.column_stack([n2, sizes[inner] - n2]).ravel()
    below = np.zeros(0)
    for sums, inner, left in reversed(levels):
        if inner.size:
            sums[inner] = below[left] + below[left + 1]
        below = sums
    return float(0.0 + below[0])
