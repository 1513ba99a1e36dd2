"""Exact ball counting within patterns: the engine of the identification risks.

A *ball* B(y_i, r) around record i's target value(s) is a product of per-target intervals
with centre y_i and half-width ``r * |y_i|`` (relative radius) or ``r`` (absolute radius),
computed in floating point as ``lo = y - h`` and ``hi = y + h``. A value v lies inside when

* strict (the default, as IdentificationRiskCalculation, Hornby & Hu 2021): ``lo < v < hi``;
* inclusive: ``lo <= v <= hi``;

and in both cases the centre itself always belongs to its ball (``v == y_i`` counts), so a
record is always close to its own confidential value. With a relative radius and ``y_i = 0``
(or a zero radius) the ball is the single point ``{y_i}``. Since ``lo <= y_i <= hi``, adding the
centre keeps each interval contiguous: it only closes an end that coincides with the centre.

Strict ends become closed ones exactly: ``v > lo`` iff ``v >= nextafter(lo, +inf)``, so every
ball is a closed interval [a_i, b_i] per target.

One target (O(n log n)), up to 2048 patterns: the data values of each pattern are sorted and
each ball's count is ``searchsorted(b_i, 'right') - searchsorted(a_i, 'left')`` with the queries
presorted by (pattern, end), one pair of calls per pattern. More patterns (e.g. keys with many
levels, mostly tiny patterns): every compared value and every interval end is mapped to an integer
code that preserves the order of floats exactly (ends get odd codes ``2k + 1`` by their rank k
among the distinct ends; a value gets ``2k + 1`` when it equals the k-th end and ``2k`` when it
falls strictly between ends k - 1 and k). Then ``pattern * K + code`` is one sortable int64
key, and the members of pattern p inside a ball form one contiguous run of the sorted keys,
found with two ``np.searchsorted`` calls. No float offsets, no per-pattern Python loop.

Two targets: runs along the first target, then a merge-sort tree over the sorted positions on
the second target's integer codes (``synthguard.risk._rangetree``): exact, O(n log^2 n).
Three or more targets: the runs are found along the most selective target (the one whose runs
are shortest in total) and the candidates in them are checked on the other targets, vectorized
in chunks. This costs O(n log n + C) where C is the total number of candidates; C is at most
the sum over patterns of |M_p|^2, so the worst case is quadratic within patterns.

Everything is written over numpy arrays for one block of rows, so a distributed engine can map
it over partitions of patterns.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from synthguard.risk._rangetree import range_sums

__all__ = ["Balls", "make_balls"]

_CHUNK = 1 << 22  # candidate pairs examined at once (about 100 MB of temporaries)
_LOOP_PATTERNS = 2048  # up to this many patterns: one sorted search per pattern


@dataclass(eq=False)
class Balls:
    """The n balls B(y_i, r) of the confidential records (n rows, d targets)."""

    pattern: np.ndarray  # int64 (n,)
    centre: np.ndarray  # float64 (n, d)
    lo: np.ndarray  # float64 (n, d)
    hi: np.ndarray  # float64 (n, d)
    lclosed: np.ndarray  # bool (n, d)
    rclosed: np.ndarray  # bool (n, d)
    n_patterns: int
    _ends: list[np.ndarray] = field(default_factory=list)  # sorted distinct ends per target
    _kmax: list[int] = field(default_factory=list)  # code range per target
    # sorted first / last key inside each ball, with the sorting order, per target
    _qa: list[tuple[np.ndarray, np.ndarray]] = field(default_factory=list)
    _qb: list[tuple[np.ndarray, np.ndarray]] = field(default_factory=list)
    _seg: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = field(default_factory=dict)
    _sorted_ends: dict[int, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    _groups: np.ndarray | None = None
    _raw: list[tuple[np.ndarray, np.ndarray]] = field(default_factory=list)  # code ranges

    @property
    def n(self) -> int:
        return int(self.pattern.shape[0])

    @property
    def d(self) -> int:
        return int(self.centre.shape[1])

    def __post_init__(self) -> None:
        # the same balls as closed intervals [a, b]: v > lo  <=>  v >= nextafter(lo, +inf)
        self.a = np.where(self.lclosed, self.lo, np.nextafter(self.lo, np.inf))
        self.b = np.where(self.rclosed, self.hi, np.nextafter(self.hi, -np.inf))
        self.use_segments = self.n_patterns <= _LOOP_PATTERNS
        self._small: np.ndarray = self.pattern.astype(_small_int(self.n_patterns))

    # ------------------------------------------------------------------ integer-code method
    def _prepare_codes(self) -> None:
        if self._ends:
            return
        n = self.n
        for t in range(self.d):
            ends, inv = _rank(np.concatenate([self.lo[:, t], self.hi[:, t]]))
            kmax = 2 * ends.shape[0] + 2
            base = self.pattern * kmax
            raw_a = 2 * inv[:n] + 1 + (~self.lclosed[:, t])
            raw_b = 2 * inv[n:] + 1 - (~self.rclosed[:, t])
            self._raw.append((raw_a, raw_b))
            qa = base + raw_a
            qb = base + raw_b
            self._ends.append(ends)
            self._kmax.append(kmax)
            # queries kept sorted (with their order) so searchsorted walks them monotonically
            oa = np.argsort(qa)
            ob = np.argsort(qb)
            self._qa.append((qa[oa], oa))
            self._qb.append((qb[ob], ob))

    def value_codes(self, values: np.ndarray, t: int) -> np.ndarray:
        """Order-preserving integer codes of ``values`` against the ends of target ``t``."""
        self._prepare_codes()
        ends = self._ends[t]
        o = np.argsort(values)
        sv = values[o]
        idx = np.searchsorted(ends, sv)
        hit = np.zeros(sv.shape[0], dtype=bool)
        inside = idx < ends.shape[0]
        hit[inside] = ends[idx[inside]] == sv[inside]
        codes = np.empty(values.shape[0], dtype=np.int64)
        codes[o] = 2 * idx.astype(np.int64) + hit
        return codes

    def _search(self, skeys: np.ndarray, t: int) -> tuple[np.ndarray, np.ndarray]:
        """Start and stop (record order) of every ball's run in the sorted data keys."""
        qa, oa = self._qa[t]
        qb, ob = self._qb[t]
        start = np.empty(self.n, dtype=np.int64)
        stop = np.empty(self.n, dtype=np.int64)
        start[oa] = np.searchsorted(skeys, qa, side="left")
        stop[ob] = np.searchsorted(skeys, qb, side="right")
        return start, np.maximum(stop, start)

    def _runs_by_codes(
        self,
        rows: np.ndarray,
        data_pattern: np.ndarray,
        data_values: np.ndarray,
        t: int,
        need_order: bool,
    ) -> tuple[np.ndarray | None, np.ndarray, np.ndarray]:
        self._prepare_codes()
        keys = data_pattern[rows] * self._kmax[t] + self.value_codes(data_values[rows, t], t)
        if need_order:
            o = np.argsort(keys)
            start, stop = self._search(keys[o], t)
            return rows[o], start, stop
        start, stop = self._search(np.sort(keys), t)
        return None, start, stop

    # ------------------------------------------------------------------ per-pattern method
    def _segments(self, t: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Record bounds per pattern, and records sorted by (pattern, a_t) and (pattern, b_t)."""
        if t not in self._seg:
            bounds = np.concatenate(
                [[0], np.cumsum(np.bincount(self.pattern, minlength=self.n_patterns))]
            )
            self._seg[t] = (
                bounds,
                _group_sort(self._small, self.a[:, t]),
                _group_sort(self._small, self.b[:, t]),
            )
            self._sorted_ends[t] = (self.a[self._seg[t][1], t], self.b[self._seg[t][2], t])
        return self._seg[t]

    def _runs_by_segments(
        self,
        rows: np.ndarray,
        data_pattern: np.ndarray,
        data_values: np.ndarray,
        t: int,
        need_order: bool,
    ) -> tuple[np.ndarray | None, np.ndarray, np.ndarray]:
        bounds, ra, rb = self._segments(t)
        a_sorted, b_sorted = self._sorted_ends[t]
        if data_pattern is self.pattern and rows.size == self.n:
            grouped = self._record_groups()  # a partially synthetic release: same patterns
            dbounds = bounds
        else:
            dp = data_pattern[rows].astype(self._small.dtype)
            grouped = rows[np.argsort(dp, kind="stable")]
            dbounds = np.concatenate([[0], np.cumsum(np.bincount(dp, minlength=self.n_patterns))])
        vals = data_values[grouped, t]
        order = np.empty_like(grouped) if need_order else None
        start_s = np.empty(self.n, dtype=np.int64)  # in (pattern, a) order
        stop_s = np.empty(self.n, dtype=np.int64)  # in (pattern, b) order
        for p in range(self.n_patterns):
            r0, r1 = bounds[p], bounds[p + 1]
            if r0 == r1:
                continue
            d0, d1 = dbounds[p], dbounds[p + 1]
            seg = vals[d0:d1]
            if order is not None:
                so = np.argsort(seg)
                zs = seg[so]
                order[d0:d1] = grouped[d0 + so]
            else:
                zs = np.sort(seg)
            start_s[r0:r1] = np.searchsorted(zs, a_sorted[r0:r1], side="left")
            start_s[r0:r1] += d0
            stop_s[r0:r1] = np.searchsorted(zs, b_sorted[r0:r1], side="right")
            stop_s[r0:r1] += d0
        start = np.empty(self.n, dtype=np.int64)
        stop = np.empty(self.n, dtype=np.int64)
        start[ra] = start_s
        stop[rb] = stop_s
        return order, start, np.maximum(stop, start)

    def _record_groups(self) -> np.ndarray:
        if self._groups is None:
            self._groups = np.argsort(self._small, kind="stable")
        return self._groups

    def contains(self, values: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        """Whether ``values[k]`` (shape (m, d)) lies in the ball of record ``rows[k]``."""
        sel = slice(None) if rows is None else rows
        lo, hi, ctr = self.lo[sel], self.hi[sel], self.centre[sel]
        lc, rc = self.lclosed[sel], self.rclosed[sel]
        ok = ((values > lo) | (lc & (values == lo))) & ((values < hi) | (rc & (values == hi)))
        ok |= values == ctr
        return np.asarray(ok.all(axis=1))

    # ------------------------------------------------------------------ runs along one target
    def runs(
        self, data_pattern: np.ndarray, data_values: np.ndarray, t: int
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Sort the data rows by (pattern, target t) and return ``(order, start, stop)``: row
        ``order[k]`` is the k-th in sorted order and the data rows of record i's pattern whose
        target t lies in i's interval are ``order[start[i]:stop[i]]``.

        Data rows with pattern -1 (not a confidential pattern) or a non-finite value on any
        target are left out."""
        rows = self._valid(data_pattern, data_values)
        method = self._runs_by_segments if self.use_segments else self._runs_by_codes
        order, start, stop = method(rows, data_pattern, data_values, t, True)
        assert order is not None
        return order, start, stop

    def _valid(self, data_pattern: np.ndarray, data_values: np.ndarray) -> np.ndarray:
        valid = data_pattern >= 0
        valid &= np.isfinite(data_values).all(axis=1)
        return np.flatnonzero(valid)

    def count_inside(self, data_pattern: np.ndarray, data_values: np.ndarray) -> np.ndarray:
        """Number of data rows of record i's pattern inside ball i, for every record i."""
        if self.d == 1:
            rows = self._valid(data_pattern, data_values)
            method = self._runs_by_segments if self.use_segments else self._runs_by_codes
            _, start, stop = method(rows, data_pattern, data_values, 0, False)
            return stop - start
        if self.d == 2:
            return self.box_sums(data_pattern, data_values)
        counts = np.zeros(self.n, dtype=np.int64)
        for rec, _, _ in self._pairs(data_pattern, data_values):
            counts += np.bincount(rec, minlength=self.n)
        return counts

    # ------------------------------------------------------------------ two targets
    def box_sums(
        self, data_pattern: np.ndarray, data_values: np.ndarray, weights: np.ndarray | None = None
    ) -> np.ndarray:
        """Two targets: sum of ``weights`` (default 1) over the data rows of record i's pattern
        inside box i, exactly, in O(n log^2 n): runs along target 0, then a merge-sort tree over
        the sorted positions on target 1's integer codes (``synthguard.risk._rangetree``)."""
        order, start, stop = self.runs(data_pattern, data_values, 0)
        self._prepare_codes()
        ycode = self.value_codes(data_values[order, 1], 1)
        ylo, yhi = self._raw[1]
        w = None if weights is None else weights[order]
        return range_sums(ycode, w, start, stop, ylo, yhi, self._kmax[1])

    def box_cover(
        self, data_pattern: np.ndarray, data_values: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Two targets, data = the records themselves: ``(order, c)`` where ``c[k]`` is the
        number of boxes containing data row ``order[k]`` (a 2-d stabbing count written as four
        signed dominance counts of the boxes' corners, each a range sum)."""
        order, start, stop = self.runs(data_pattern, data_values, 0)
        self._prepare_codes()
        m = order.shape[0]
        ycode = self.value_codes(data_values[order, 1], 1)
        ylo, yhi = self._raw[1]
        # [s <= P < e] [lo <= Y <= hi] = sum over corners (u, v) of sign [u <= P] [v <= Y]
        u = np.concatenate([start, stop, start, stop])
        v = np.concatenate([ylo, ylo, yhi + 1, yhi + 1])
        sign = np.concatenate(
            [np.ones(self.n), -np.ones(self.n), -np.ones(self.n), np.ones(self.n)]
        ).astype(np.int64)
        o = np.argsort(u, kind="stable")
        u, v, sign = u[o], v[o], sign[o]
        upto = np.searchsorted(u, np.arange(m), side="right")  # corners with u <= P
        cover = range_sums(
            v,
            sign,
            np.zeros(m, dtype=np.int64),
            upto,
            np.zeros(m, dtype=np.int64),
            ycode,
            self._kmax[1],
        )
        return order, cover

    def _pairs(
        self, data_pattern: np.ndarray, data_values: np.ndarray
    ) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """Yield chunks ``(record, sorted_position, order)`` of the pairs (i, h) with data row
        ``order[sorted_position]`` inside ball i (several targets)."""
        best = None
        for t in range(self.d):
            order, start, stop = self.runs(data_pattern, data_values, t)
            total = int((stop - start).sum())
            if best is None or total < best[0]:
                best = (total, t, order, start, stop)
        assert best is not None
        _, _, order, start, stop = best
        lens = stop - start
        ends = np.cumsum(lens)
        first = 0
        while first < self.n:
            limit = (ends[first - 1] if first else 0) + _CHUNK
            last = max(int(np.searchsorted(ends, limit, side="right")), first + 1)
            recs = np.arange(first, last)
            ln = lens[first:last]
            rec = np.repeat(recs, ln)
            if rec.size:
                offs = np.arange(rec.size) - np.repeat(np.cumsum(ln) - ln, ln)
                pos = start[rec] + offs
                ok = self.contains(data_values[order[pos]], rec)
                yield rec[ok], pos[ok], order
            first = last


def _small_int(n_patterns: int) -> type:
    """The narrowest signed integer dtype holding pattern codes (stable sorts of 8- and 16-bit
    integers are radix sorts)."""
    if n_patterns < 2**7:
        return np.int8
    if n_patterns < 2**15:
        return np.int16
    return np.int64


def _group_sort(pattern: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Order sorting by (pattern, value)."""
    o = np.argsort(values)
    return o[np.argsort(pattern[o], kind="stable")]


def _rank(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct values and the rank of every value among them (np.unique's inverse,
    without its stable sort)."""
    o = np.argsort(values)
    sv = values[o]
    new = np.empty(sv.shape[0], dtype=bool)
    new[:1] = True
    np.not_equal(sv[1:], sv[:-1], out=new[1:])
    ranks = np.cumsum(new) - 1
    inv = np.empty(sv.shape[0], dtype=np.int64)
    inv[o] = ranks
    return sv[new], inv


def make_balls(
    pattern: np.ndarray,
    values: np.ndarray,
    radius: np.ndarray,
    *,
    relative: bool,
    inclusive: bool,
    n_patterns: int,
) -> Balls:
    """Balls around ``values`` (n, d) with per-target ``radius`` (d,)."""
    half = radius[None, :] * np.abs(values) if relative else np.broadcast_to(radius, values.shape)
    lo = values - half
    hi = values + half
    lclosed = np.full(values.shape, inclusive) | (lo == values)
    rclosed = np.full(values.shape, inclusive) | (hi == values)
    return Balls(
        pattern=np.asarray(pattern, dtype=np.int64),
        centre=values,
        lo=lo,
        hi=hi,
        lclosed=lclosed,
        rclosed=rclosed,
        n_patterns=n_patterns,
    )
