"""No near-unique value in a release: rare numeric values moved locally, rare levels redrawn.

CART, and every method that resamples observed values, hands back donor values. A value held
by one person (most of Adult's ``fnlwgt`` values, a rare capital gain, an age of 90) then
comes back exactly, and a query such as ``fnlwgt == v`` isolates that person in the
confidential file: anonymeter's univariate singling-out attack (Giomi et al. 2023) succeeds
on 70-80 % of its queries against a default CART release of Adult. :class:`RareGuard` makes
the synthesizer release no such value, by default, with ``k = 5`` (``rare_values``):

**Numeric columns.** A *rare value* is a value held by fewer than ``k`` confidential records
(at least one). Released values are compared with the rare values *at the column's precision*
(the fewest decimals, at most 8, that hold every confidential value): a draw that differs from
a rare value only by floating-point error (a back-transformed or adjusted donor) is that value.
A value that is not a confidential value at that precision (a parametric or smoothed draw that
lands between the observed values) is safe and left alone, and so are values held by ``k`` or
more records (point masses such as the zeros of ``capital_gain``, a top code, a common age): a
query for them isolates nobody. So a one-column equality query on a released value matches no
confidential record or at least ``k``.

A synthesized value equal to a rare value ``v`` (in practice a donor that CART, ``sample``
or ``pmm`` copied) is moved *within its own neighbourhood*: ``v + h e``, ``e ~ N(0, 1)``,
with ``h`` the nearest-neighbour bandwidth of ``v`` (Silverman 1986, section 5.2), the
distance from ``v`` to its ``k``-th nearest other confidential value. The draw spreads ``v``
over about ``k`` neighbours: a value in a dense region moves a little, an isolated value
(a tail) much. (The guard used to take the Silverman bandwidth of the CART leaf the
row fell in; on a skewed column such as CE's ``Expenditure`` that bandwidth is wide where
the values are dense, and smearing 83% of the values with it moved the lowest percentile
from 840 to 420 and the CART pMSE ratio from about 0.6 to about 1.9. The local bandwidth
keeps the ratio at the unguarded release's.) The draw is reflected into the bounds (the
column's declared public bounds, else its observed range; within the bottom/top coding
thresholds of the tails when they are coded) and rounded to the column's precision. A draw
that still equals a rare value after rounding is drawn again (up to ``MAX_ROUNDS`` times);
one that still does is moved to the nearest value on the column's precision grid, inside the
bounds, that is not a rare value.

How many values the guard changes is set by the method, not by the rule: a donor method
copies confidential values, so on a column whose values are nearly all distinct (CE's
``Expenditure``, Adult's ``fnlwgt``) nearly every draw is a near-unique value and must move.
A method whose draws are not copies (``norm``, or ``cart`` with ``smoothing="density"``)
leaves the guard almost nothing to do.

**Categorical columns.** A level held by fewer than ``k`` records (at least one) is released
only when it is declared public: the schema lists the column's levels (an override with
``levels``, or a whole :class:`~synthguard.data.Schema` passed by the caller), or
``public_levels`` names it. A synthetic record with an undeclared rare level is given another
level, drawn from the confidential frequencies of the levels held by ``k`` or more records
(redrawn rather than merged into an "other" level, so the release keeps the schema's levels and
every downstream tool reads it unchanged).

The counts (numeric values redrawn, moved to the grid, levels redrawn) are kept per implicate
in the :class:`~synthguard.synthesis.safeguards.SafeguardReport`. ``rare_values=0`` switches
the safeguard off. Everything a :class:`RareGuard` holds is derived from the confidential
data: it stays inside the fitted synthesizer.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from synthguard.data.schema import ColumnSchema, Schema

__all__ = ["MAX_ROUNDS", "RareGuard", "declared_levels"]

#: Redraws of a value that still equals a rare value before it is moved to the grid.
MAX_ROUNDS = 10
#: Grid steps searched on each side when moving a value off the rare values.
_MAX_STEPS = 10_000

def _decimals(values: np.ndarray, max_decimals: int = 8) -> int:
    v = values[np.isfinite(values)]
    for d in range(max_decimals):
        scaled = v * 10.0**d
        if np.all(np.abs(scaled - np.round(scaled)) <= 1e-9 * np.maximum(1.0, np.abs(scaled))):
            return d
    return max_decimals


def _in_sorted(values: np.ndarray, sorted_set: np.ndarray) -> np.ndarray:
    """Mask of ``values`` found in the sorted array ``sorted_set`` (NaN never found)."""
    if len(sorted_set) == 0:
        return np.zeros(len(values), dtype=bool)
    if len(values) < 1024:
        pos = np.searchsorted(sorted_set, values)
        pos[pos >= len(sorted_set)] = len(sorted_set) - 1
        return np.asarray(sorted_set[pos] == values)
    # many values: searched in sorted order, each search starts where the last ended (several
    # times faster than searches in random order); the mask is put back in their order
    order = np.argsort(values)
    v = values[order]
    pos = np.searchsorted(sorted_set, v)
    pos[pos >= len(sorted_set)] = len(sorted_set) - 1
    found = np.empty(len(values), dtype=bool)
    found[order] = sorted_set[pos] == v
    return found


def declared_levels(overrides: object, column: str) -> set[object] | None:
    """Levels of ``column`` the caller declared in the schema overrides (public), or None."""
    if overrides is None:
        return None
    if isinstance(overrides, Schema):
        col = overrides.columns.get(column)
        return None if col is None or col.levels is None else set(col.levels)
    if not isinstance(overrides, Mapping) or column not in overrides:
        return None
    spec = overrides[column]
    if isinstance(spec, ColumnSchema):
        return None if spec.levels is None else set(spec.levels)
    if isinstance(spec, Mapping) and spec.get("levels") is not None:
        return set(spec["levels"])
    return None


@dataclass
class _Numeric:
    rare: np.ndarray  # sorted values held by 1..k-1 confidential records
    lo: float
    hi: float
    decimals: int
    bandwidth: np.ndarray  # per rare value: distance to its k-th nearest other record

    def __post_init__(self) -> None:
        # the rare values on the precision grid (integers scaled by 10^decimals), sorted
        self.keys = np.unique(_grid(self.rare, self.decimals))

    def hits(self, values: np.ndarray) -> np.ndarray:
        """Mask of ``values`` equal to a rare value at the column's precision."""
        return _in_sorted(_grid(values, self.decimals), self.keys)

    def nearest(self, values: np.ndarray) -> np.ndarray:
        """Position in ``rare`` of the rare value each of ``values`` equals (at precision)."""
        pos = np.searchsorted(_grid(self.rare, self.decimals), _grid(values, self.decimals))
        return pos.clip(0, len(self.rare) - 1)


def _grid(values: np.ndarray, decimals: int) -> np.ndarray:
    """``values`` on the precision grid: ``round(v 10^decimals)`` (NaN stays NaN)."""
    return np.round(np.asarray(values, dtype=float) * 10.0**decimals)


@dataclass
class _Categorical:
    rare: np.ndarray  # codes of undeclared levels held by 1..k-1 records
    common: np.ndarray  # codes held by >= k records
    probs: np.ndarray  # their confidential frequencies


class RareGuard:
    """What :mod:`synthguard.synthesis.rare_values` needs from the confidential data.

    Parameters
    ----------
    arrays : column -> working-form confidential values (float, NaN missing; int codes).
    schema : the fitted schema (kinds, levels, public bounds).
    columns : the synthesized columns to guard.
    k : values or levels held by fewer than ``k`` records are rare (0 or 1: off).
    public : column -> levels declared public (released even when rare).
    tails : column -> bottom/top coding thresholds (the bounds are kept within them).
    """

    def __init__(
        self,
        arrays: Mapping[str, np.ndarray],
        schema: Schema,
        columns: Iterable[str],
        k: int,
        public: Mapping[str, set[object]] | None = None,
        tails: Mapping[str, tuple[float | None, float | None]] | None = None,
    ) -> None:
        self.k = int(k)
        self.numeric: dict[str, _Numeric] = {}
        self.categorical: dict[str, _Categorical] = {}
        if self.k <= 1:
            return
        public = public or {}
        tails = tails or {}
        for c in columns:
            col = schema[c]
            a = np.asarray(arrays[c])
            if col.is_numeric:
                x = a[~np.isnan(a)].astype(float)
                if len(x) == 0:
                    continue
                vals, counts = np.unique(x, return_counts=True)
                rare = vals[counts < self.k]
                if len(rare) == 0:
                    continue
                lo = float(col.lower) if col.lower is not None else float(vals[0])
                hi = float(col.upper) if col.upper is not None else float(vals[-1])
                b, t = tails.get(c, (None, None))
                if b is not None:
                    lo = max(lo, float(b))
                if t is not None:
                    hi = min(hi, float(t))
                self.numeric[c] = _Numeric(rare, lo, hi, _decimals(vals),
                                           _knn_bandwidth(np.sort(x), rare, self.k))
            elif col.is_categorical:
                levels = list(col.levels or ())
                codes = a[a >= 0].astype(np.int64)
                counts = np.bincount(codes, minlength=len(levels))
                pub = public.get(c, set())
                rare_mask = (counts > 0) & (counts < self.k)
                rare_mask &= np.array([lv not in pub for lv in levels], dtype=bool)
                common_mask = (counts >= self.k) | (
                    (counts > 0) & np.array([lv in pub for lv in levels], dtype=bool)
                )
                if not rare_mask.any() or not common_mask.any():
                    continue
                common = np.flatnonzero(common_mask)
                w = counts[common].astype(float)
                self.categorical[c] = _Categorical(np.flatnonzero(rare_mask), common, w / w.sum())

    @property
    def active(self) -> bool:
        return bool(self.numeric or self.categorical)

    def apply(
        self,
        out: dict[str, np.ndarray],
        rng: np.random.Generator,
        rows: np.ndarray | None = None,
    ) -> dict[str, int]:
        """Redraw, in place, the rare values of ``out`` (all rows, or ``rows``); the number of
        values changed per column."""
        changed: dict[str, int] = {}
        for c, spec in self.numeric.items():
            vals = out[c] if rows is None else out[c][rows]
            hit = np.flatnonzero(spec.hits(vals))
            if len(hit) == 0:
                continue
            where = hit if rows is None else rows[hit]
            donors = vals[hit].copy()
            new = self._smooth(spec, donors, rng)
            for _ in range(MAX_ROUNDS):
                again = spec.hits(new)
                if not again.any():
                    break
                new[again] = self._smooth(spec, donors[again], rng)
            again = spec.hits(new)
            if again.any():
                new[again] = _off_rare(new[again], spec)
            out[c][where] = new
            changed[c] = len(hit)
        for c, cat in self.categorical.items():
            vals = out[c] if rows is None else out[c][rows]
            hit = np.flatnonzero(np.isin(vals, cat.rare))
            if len(hit) == 0:
                continue
            where = hit if rows is None else rows[hit]
            out[c][where] = rng.choice(cat.common, size=len(hit), p=cat.probs).astype(
                out[c].dtype
            )
            changed[c] = len(hit)
        return changed

    @staticmethod
    def _smooth(spec: _Numeric, donors: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """``v + h e`` for each rare ``v`` of ``donors`` (``h``: its nearest-neighbour
        bandwidth), reflected into the bounds and rounded to the precision."""
        h = spec.bandwidth[spec.nearest(donors)]
        new = donors + h * rng.standard_normal(len(donors))
        lo, hi = spec.lo, spec.hi
        if hi > lo:
            new = np.where(new > hi, 2 * hi - new, new)
            new = np.where(new < lo, 2 * lo - new, new)
        np.clip(new, lo, hi, out=new)
        np.round(new, spec.decimals, out=new)
        # rounding may step just outside the bounds
        step = 10.0 ** (-spec.decimals)
        new[new > hi] -= step
        new[new < lo] += step
        return np.round(new, spec.decimals)


def _knn_bandwidth(x: np.ndarray, rare: np.ndarray, k: int) -> np.ndarray:
    """For each rare value, the distance to its ``k``-th nearest other record of the sorted
    values ``x`` (its own copies count as neighbours at distance 0); 1 when ``x`` has no
    other value."""
    n = len(x)
    pos = np.searchsorted(x, rare)  # first copy of each rare value
    offsets = np.arange(-k, 2 * k + 1)
    raw = pos[:, None] + offsets[None, :]
    d = np.abs(x[np.clip(raw, 0, n - 1)] - rare[:, None])
    d[(raw < 0) | (raw >= n)] = np.inf  # beyond the ends: no neighbour
    d.sort(axis=1)
    # column 0 is the value itself (or a copy of it)
    h = d[:, min(k, d.shape[1] - 1)]
    h[~np.isfinite(h)] = 0.0
    positive = d[d > 0]
    fallback = float(positive.min()) if positive.size else 1.0
    return np.where(h > 0, h, fallback)


def _off_rare(values: np.ndarray, spec: _Numeric) -> np.ndarray:
    """Each value moved to the nearest point of the precision grid, within the bounds, that is
    not a rare value (up or down, the nearer first); half a step off the grid when none is
    within ``_MAX_STEPS`` steps (the guarantee outranks the precision)."""
    step = 10.0 ** (-spec.decimals)
    out = values.copy()
    todo = np.ones(len(values), dtype=bool)
    for j in range(1, _MAX_STEPS + 1):
        for sign in (-1.0, 1.0):
            cand = np.round(values + sign * j * step, spec.decimals)
            ok = todo & (cand >= spec.lo) & (cand <= spec.hi) & ~spec.hits(cand)
            out[ok] = cand[ok]
            todo &= ~ok
        if not todo.any():
            return out
    out[todo] = values[todo] + step / 2
    return out
