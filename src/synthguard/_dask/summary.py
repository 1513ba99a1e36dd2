"""Exact summaries of per-record values that stay on the workers: the correctly rounded mean,
the maximum, counts, and ``numpy.quantile``'s quantiles (method ``linear``), without
gathering the values on the client.

**Sum.** A finite float64 is ``M * 2**(e - 53)`` with an integer mantissa ``M < 2**53``
(``numpy.frexp``). Each partition splits ``M`` into 26 high and 27 low bits and sums both per
exponent with ``numpy.bincount``: every bin sum is an integer below ``2**53`` (so exact in
float64) as long as a partition holds fewer than ``2**26`` values (longer ones are summed in
chunks). The client adds the bins as Python integers: the exact sum, rounded once
(``fractions.Fraction``). The mean is therefore the correctly rounded mean, which
``numpy.mean``'s pairwise sum approximates to within a few units in the last place.

**Quantiles.** Each partition keeps its values sorted (on its worker). An order statistic of
rank k is found by bisection over the 2**64 float64 bit patterns mapped to order-preserving
integers: each round the client sends 1024 pivots and each partition returns how many of its
values lie at or below each; after at most 7 rounds the interval holds one value. The
quantile is then numpy's own formula on the two order statistics around ``(n - 1) * q``
(``numpy.lib._function_base_impl._quantile``: ``a + (b - a) * g``, or ``b - (b - a) * (1 - g)``
when ``g >= 0.5``), so it equals ``numpy.quantile`` of all values bit for bit.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import dask
import numpy as np

__all__ = ["exact_quantiles", "exact_sum", "order_keys", "sum_bins"]

_CHUNK = 1 << 25
_PIVOTS = 1024


def sum_bins(values: np.ndarray) -> dict[int, int]:
    """Exact sum of finite ``values`` as {binary exponent: integer coefficient}."""
    out: dict[int, int] = {}
    for s in range(0, values.shape[0], _CHUNK):
        v = values[s : s + _CHUNK]
        mant, exp = np.frexp(v)  # v = mant * 2**exp, 0.5 <= |mant| < 1
        m = np.rint(np.ldexp(mant, 53)).astype(np.int64)  # |m| < 2**53, exact
        e = exp.astype(np.int64) + 1100  # shifted to non-negative bins
        hi = m >> 27  # arithmetic shift: m = hi * 2**27 + lo, 0 <= lo < 2**27
        lo = m - (hi << 27)
        n_bins = int(e.max()) + 1 if e.size else 0
        shi = np.bincount(e, weights=hi.astype(np.float64), minlength=n_bins)
        slo = np.bincount(e, weights=lo.astype(np.float64), minlength=n_bins)
        for b in np.flatnonzero((shi != 0) | (slo != 0)):
            coef = (int(shi[b]) << 27) + int(slo[b])
            out[int(b) - 1100 - 53] = out.get(int(b) - 1100 - 53, 0) + coef
    return out


def exact_sum(parts: Sequence[dict[int, int]]) -> Fraction:
    """The exact sum of the values whose :func:`sum_bins` are ``parts``."""
    total = Fraction(0)
    merged: dict[int, int] = {}
    for p in parts:
        for e, c in p.items():
            merged[e] = merged.get(e, 0) + c
    for e, c in merged.items():
        total += Fraction(c) * (Fraction(2) ** e)
    return total


def order_keys(values: np.ndarray) -> np.ndarray:
    """int64 keys whose order is the order of the float64 ``values`` (no NaN; -0.0 < 0.0
    here, which only matters for equal values, whose quantile is the same)."""
    b = np.ascontiguousarray(values, dtype=np.float64).view(np.int64).copy()
    neg = b < 0
    b[neg] = np.int64(-(2**63)) - b[neg] - 1
    return b


def _from_key(k: int) -> float:
    b = k if k >= 0 else -(2**63) - k - 1
    return float(np.array([b], dtype=np.int64).view(np.float64)[0])


def _count_le(sorted_keys: np.ndarray, pivots: np.ndarray) -> np.ndarray:
    return np.searchsorted(sorted_keys, pivots, side="right").astype(np.int64)


def _order_statistics(parts: Sequence[Any], ranks: list[int]) -> dict[int, float]:
    """The values of rank k (0-based, among all values of the delayed sorted-key arrays
    ``parts``) for every k in ``ranks``, by bisection on the keys."""
    lo_hi = {k: (-(2**63), 2**63 - 1) for k in ranks}  # the value lies in [lo, hi]
    while True:
        open_ = [k for k, (lo, hi) in lo_hi.items() if lo < hi]
        if not open_:
            return {k: _from_key(lo) for k, (lo, _) in lo_hi.items()}
        pivots = {}
        for k in open_:
            lo, hi = lo_hi[k]
            step = max((hi - lo) // _PIVOTS, 1)
            steps = [lo + i * step for i in range(_PIVOTS) if lo + i * step < hi]
            pivots[k] = np.unique(np.array([*steps, hi], dtype=np.int64))
        allp = np.unique(np.concatenate(list(pivots.values())))
        counts = dask.compute(*[dask.delayed(_count_le)(p, allp) for p in parts])
        total = np.sum(counts, axis=0)
        for k in open_:
            piv = pivots[k]
            c = total[np.searchsorted(allp, piv)]
            j = int(np.searchsorted(c, k + 1, side="left"))  # first pivot with > k values
            lo, hi = lo_hi[k]
            new_hi = int(piv[j])
            new_lo = int(piv[j - 1]) + 1 if j > 0 else lo
            lo_hi[k] = (new_lo, new_hi)


def exact_quantiles(parts: Sequence[Any], n: int, qs: Sequence[float]) -> dict[float, float]:
    """``numpy.quantile`` (linear) at ``qs`` of the ``n`` values held, as sorted int64
    :func:`order_keys`, by the delayed objects ``parts``."""
    if n == 0:
        return {float(q): float("nan") for q in qs}
    q = np.asarray(qs, dtype=np.float64)
    virtual = (n - 1) * q
    prev = np.floor(virtual)
    nxt = prev + 1
    above = virtual >= n - 1
    prev[above] = n - 1
    nxt[above] = n - 1
    gamma = virtual - prev
    ranks = sorted({int(x) for x in np.concatenate([prev, nxt])})
    stats = _order_statistics(parts, ranks)
    a = np.array([stats[int(i)] for i in prev])
    b = np.array([stats[int(i)] for i in nxt])
    diff = b - a
    res = a + diff * gamma
    res = np.where(gamma >= 0.5, b - diff * (1 - gamma), res)
    return {float(x): float(v) for x, v in zip(qs, res, strict=True)}
