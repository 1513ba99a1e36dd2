"""Safeguards applied to every implicate before it is released (private by default).

Sequential CART draws observed donor values, so without care a synthetic release hands out
real people: records unique in the confidential file come back whole, and the largest and
smallest values of a column (the richest household, a value that a query ``x >= max``
isolates) are released exactly. synthpop offers the remedies after the fact, in ``sdc()``
(Nowok, Raab & Dibben 2016; Raab, Nowok & Dibben 2017, "Guidelines for producing useful
synthetic data"): ``rm.replicated.uniques`` and ``bottom.top.coding``. The
:class:`~synthguard.synthesis.Synthesizer` applies both by default, inside the draw:

**Tails** (:func:`tail_thresholds`). For each numeric column it synthesizes, the *tail
values* are those a one-sided query isolates at most ``k`` confidential records with:
``{v : #{x_i >= v} <= k}`` at the top and ``{v : #{x_i <= v} <= k}`` at the bottom
(``k = 5`` by default: with distinct values, the 5 largest and the 5 smallest). Synthetic
values are bottom/top coded, as synthpop's ``bottom.top.coding``: every synthetic value above
the top threshold ``T`` becomes ``T``, every value below the bottom threshold ``B`` becomes
``B``, with

    T = round_down(u, 2 significant digits),  u = the largest value that is not a tail value,
    B = round_up(l, 2 significant digits),    l = the smallest value that is not a tail value,

rounded (never finer than 1 for integer-valued columns) so the thresholds are round numbers
rather than a real record's value, and ``T <= u`` and ``B >= l`` so no tail value can be
released. A value held by more than ``k`` records at the extreme (the zeros of
``capital_gain``, a public top code such as 99,999) is not a tail value: a query for it
isolates nobody, and it is left alone. We code rather than smooth the tails: coding keeps
the draws' distribution below ``T`` untouched, costs utility only in the ``k``-record tails,
and gives the guarantee exactly, whatever the method that drew the values. A column that a
``passive:of=`` lookup reads is coded at the nearest values the data hold inside ``[B, T]``
(:func:`snap_to_values`), so the derived column keeps a value for every released one.

**Replicated uniques** (:class:`UniqueGuard`). A synthetic record identical, on every
released column (synthesized and kept), to a record unique in the confidential data on those
columns is a real person released (synthpop's ``replicated.uniques``). synthpop removes such
records (``sdc(rm.replicated.uniques = TRUE)``). Removal, and redrawing whole records until
they differ, both condition the release on "not a real unique", and the records that
replicate uniques are not a random subset: on the CE sample they sit in the largest cells
(urban, white, no children), and removing them moved those shares by 1 to 4 points (pMSE
ratio 0.8 -> 5.5). By default (``"redraw"``) the synthesizer therefore changes only the
values that make the record real: the numeric CART values of the record are kernel-smoothed
within the leaf they were drawn from (Gaussian noise with the leaf's Silverman bandwidth,
point masses kept exact, range and precision kept; :meth:`CartMethod.smooth_values
<synthguard.synthesis.methods.CartMethod.smooth_values>`), up to ``MAX_REDRAW_ROUNDS``
times; its categorical values, and so every categorical distribution, stay as drawn. A
record that still replicates a unique (no numeric CART column, or only point masses) is
then redrawn whole, with smoothing, up to ``MAX_REDRAW_ROUNDS`` times, and removed if it
still does. In partial synthesis such a record is not removed: its synthesized values are
suppressed (set missing, local suppression as in sdcMicro's ``localSuppression``), so the
release keeps every confidential row in order and record-level risk stays computable. This
keeps ``n``, and so full-synthesis inference and partial synthesis' row alignment with the
kept columns. Uniques are found by hashing rows
(:func:`~synthguard.synthesis.diagnostics.hash_rows`) and ``searchsorted`` into the sorted
hashes of the confidential uniques: O(n log n), never pairwise.

Each implicate's counts are kept in a :class:`SafeguardReport` (``result.safeguards``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from synthguard._display import Summarized, cell_count, cell_share, cell_value
from synthguard.errors import ParameterError
from synthguard.synthesis.diagnostics import hash_rows

__all__ = [
    "MAX_REDRAW_ROUNDS",
    "REPLICATED_UNIQUES",
    "SafeguardReport",
    "UniqueGuard",
    "apply_tail_coding",
    "snap_to_values",
    "tail_thresholds",
]

#: What to do with synthetic records that replicate a confidential unique.
REPLICATED_UNIQUES = ("redraw", "remove", "keep")
#: Redraw rounds before a row that still replicates a unique is removed.
MAX_REDRAW_ROUNDS = 10


def _round_sig(x: float, digits: int, up: bool, integer: bool) -> float:
    """``x`` rounded down (``up=False``) or up to ``digits`` significant digits; to a step of
    at least 1 when ``integer``."""
    if x == 0 or not math.isfinite(x):
        return x
    e = math.floor(math.log10(abs(x))) - (digits - 1)
    if integer:
        e = max(e, 0)
    step = 10.0**e
    q = x / step
    # a value already on the grid (up to float error) stays
    r = round(q)
    if abs(q - r) <= 1e-9 * max(1.0, abs(q)):
        q = r
    q = math.ceil(q) if up else math.floor(q)
    out = q * step
    return round(out, -e) if e < 0 else out


def tail_thresholds(values: np.ndarray, k: int) -> tuple[float | None, float | None]:
    """Bottom and top coding thresholds ``(B, T)`` that keep the ``k``-record tails of
    ``values`` out of a release (see the module docstring); ``None`` for a tail with no
    value a query isolates at most ``k`` records with (or ``k = 0``).

    Missing values are ignored. The thresholds are round numbers (2 significant digits; whole
    numbers for integer-valued columns) between the tails and the rest of the values.
    """
    x = np.asarray(values, dtype=float)
    x = np.sort(x[~np.isnan(x)])
    n = len(x)
    if k <= 0 or n <= k:
        return None, None
    integer = bool(np.all(x == np.round(x)))
    lo = hi = None
    # top: tail values v have #{x >= v} <= k, i.e. v > x[n-k-1]; u = x[n-k-1]
    u = float(x[n - k - 1])
    if x[-1] > u:
        hi = _round_sig(u, 2, up=False, integer=integer)
    low = float(x[k])  # bottom: tail values v < x[k]; l = x[k]
    if x[0] < low:
        lo = _round_sig(low, 2, up=True, integer=integer)
    if lo is not None and hi is not None and lo > hi:
        # rounding crossed over a narrow middle: code at the nearest non-tail values instead
        lo, hi = low, u
    return lo, hi


def snap_to_values(values: np.ndarray, lower: float | None,
                   upper: float | None) -> tuple[float | None, float | None]:
    """Tail thresholds moved onto values the data hold: ``T`` down to the largest value
    ``<= T``, ``B`` up to the smallest value ``>= B`` (both outside the tails, since ``T <= u``
    and ``B >= l``). For a column that a ``passive:of=`` lookup reads, whose released values
    must be keys of the lookup table."""
    x = np.asarray(values, dtype=float)
    x = np.unique(x[~np.isnan(x)])
    if upper is not None:
        upper = float(x[np.searchsorted(x, upper, side="right") - 1])
    if lower is not None:
        lower = float(x[np.searchsorted(x, lower, side="left")])
    return lower, upper


def apply_tail_coding(values: np.ndarray, lower: float | None, upper: float | None) -> int:
    """Bottom/top code ``values`` in place at ``lower`` / ``upper``; the number of values
    changed (missing values are left alone)."""
    n = 0
    if upper is not None:
        above = values > upper
        n += int(np.count_nonzero(above))
        values[above] = upper
    if lower is not None:
        below = values < lower
        n += int(np.count_nonzero(below))
        values[below] = lower
    return n


def check_safeguard_params(replicated_uniques: Any, extremes: Any) -> tuple[str, int]:
    """Validate the synthesizer's ``replicated_uniques`` and ``extremes`` parameters."""
    if replicated_uniques not in REPLICATED_UNIQUES:
        raise ParameterError(
            f"parameter 'replicated_uniques': expected one of {', '.join(REPLICATED_UNIQUES)}"
        )
    if extremes is None:
        return str(replicated_uniques), 0
    if isinstance(extremes, bool) or not isinstance(extremes, int | np.integer) or extremes < 0:
        raise ParameterError(
            "parameter 'extremes': expected a non-negative integer (records per tail whose "
            "values are never released; 0 or None releases them)"
        )
    return str(replicated_uniques), int(extremes)


def check_rare_values(rare_values: Any) -> int:
    """Validate the synthesizer's ``rare_values`` parameter (None or 0: off)."""
    if rare_values is None:
        return 0
    if (isinstance(rare_values, bool) or not isinstance(rare_values, int | np.integer)
            or rare_values < 0):
        raise ParameterError(
            "parameter 'rare_values': expected a non-negative integer (values held by fewer "
            "confidential records are never released exactly; 0 or None releases them)"
        )
    return int(rare_values)


class UniqueGuard:
    """Sorted hashes of the confidential records unique on ``columns`` (working form), and,
    when ``keys`` are given, of those unique on ``keys``: a synthetic row is flagged when it
    equals a unique on either.

    Derived from confidential data: it stays inside the fitted (confidential) synthesizer.
    """

    def __init__(
        self,
        arrays: Mapping[str, np.ndarray],
        columns: Sequence[str],
        keys: Sequence[str] | None = None,
    ) -> None:
        sets = [list(columns)]
        if keys and list(keys) != list(columns):
            sets.append(list(keys))
        self.sets = [(cols, self._uniques(arrays, cols)) for cols in sets]
        self.columns = list(dict.fromkeys(c for cols in sets for c in cols))

    @staticmethod
    def _uniques(arrays: Mapping[str, np.ndarray], cols: list[str]) -> np.ndarray:
        h = np.sort(hash_rows(arrays, cols))
        if len(h) == 0:
            return h
        new = np.r_[True, h[1:] != h[:-1]]
        start = np.flatnonzero(new)
        counts = np.diff(np.r_[start, len(h)])
        return h[start[counts == 1]]

    @property
    def n_uniques(self) -> int:
        """Confidential records unique on every column (the first set)."""
        return len(self.sets[0][1])

    def replicated(self, arrays: Mapping[str, np.ndarray], rows: np.ndarray | None = None) -> np.ndarray:
        """Boolean mask: which synthetic rows (all, or ``rows``) equal a confidential unique."""
        sub = arrays if rows is None else {c: arrays[c][rows] for c in self.columns}
        out: np.ndarray | None = None
        for cols, uniques in self.sets:
            h = hash_rows(sub, cols)
            if len(uniques) == 0 or len(h) == 0:
                hit = np.zeros(len(h), dtype=bool)
            else:
                pos = np.searchsorted(uniques, h)
                pos[pos == len(uniques)] = 0
                hit = np.asarray(uniques[pos] == h)
            out = hit if out is None else out | hit
        assert out is not None
        return out


@dataclass(frozen=True, eq=False)
class SafeguardReport(Summarized):
    """What the safeguards did to each implicate.

    Attributes
    ----------
    replicated_uniques : str
        The policy: ``"redraw"``, ``"remove"`` or ``"keep"``.
    extremes : int
        Records per tail whose values are kept out of the release (0: off).
    thresholds : dict
        Column -> ``(B, T)`` bottom and top coding thresholds (``None``: that tail is not
        coded). Round numbers, not data values.
    found : tuple of int
        Per implicate, synthetic records that replicated a confidential unique as first drawn.
    redrawn : tuple of int
        Per implicate, rows redrawn (each counted once).
    removed : tuple of int
        Per implicate, rows removed (policy ``"remove"``, or still replicating a unique after
        ``MAX_REDRAW_ROUNDS`` redraws).
    remaining : tuple of int
        Per implicate, released records that replicate a confidential unique: 0 unless the
        policy is ``"keep"``, or in partial synthesis a record whose synthesized values are
        all missing in the data too (suppressing them leaves it a copy of its unique).
    suppressed : tuple of int
        Per implicate (partial synthesis), rows whose synthesized values were set missing
        because they still replicated a unique after every redraw (or, under ``"remove"``,
        at once) and after ``partial_uniques`` changed their kept values, and no longer
        replicate it: a partial release keeps every confidential row.
    partial_uniques : str
        Partial synthesis: what changed in the rows that still replicated a unique after the
        redraws (``"synthesize"``, ``"coarsen"`` or ``"suppress"``;
        :mod:`synthguard.synthesis.partial_guard`); ``""`` for full synthesis.
    kept_changed : tuple of dict
        Per implicate (partial synthesis), kept column -> rows whose kept value was
        synthesized anew or coarsened.
    n_records : tuple of int
        Per implicate, released rows (the denominators of the shares the summary prints).
    synthesized_columns : tuple of str
        The columns synthesized (those a suppressed row has missing).
    coded : tuple of dict
        Per implicate, column -> number of synthetic values bottom/top coded.
    rare_values : int
        Values and levels held by fewer than this many confidential records are not released
        exactly (0: off; :mod:`synthguard.synthesis.rare_values`).
    rare : tuple of dict
        Per implicate, column -> number of synthetic values redrawn because they equalled a
        rare value (numeric) or an undeclared rare level (categorical).
    """

    replicated_uniques: str
    extremes: int
    thresholds: dict[str, tuple[float | None, float | None]] = field(default_factory=dict)
    found: tuple[int, ...] = ()
    redrawn: tuple[int, ...] = ()
    removed: tuple[int, ...] = ()
    remaining: tuple[int, ...] = ()
    suppressed: tuple[int, ...] = ()
    partial_uniques: str = ""
    kept_changed: tuple[dict[str, int], ...] = ()
    n_records: tuple[int, ...] = ()
    synthesized_columns: tuple[str, ...] = ()
    coded: tuple[dict[str, int], ...] = ()
    rare_values: int = 0
    rare: tuple[dict[str, int], ...] = ()

    @classmethod
    def combine(cls, reports: Sequence[SafeguardReport]) -> SafeguardReport:
        """One report for blocks synthesized apart (the strata or partitions of a Dask
        release): per implicate, the counts summed over the blocks. Each block codes its
        tails at its own thresholds, so ``thresholds`` keeps a column's only when every block
        coding it used the same; the columns coded are those of ``coded``."""
        if not reports:
            raise ParameterError("SafeguardReport.combine: expected at least one report")
        first = reports[0]
        m = max(len(r.found) for r in reports)

        def per_implicate(name: str) -> tuple[int, ...]:
            out = [0] * m
            for r in reports:
                for i, v in enumerate(getattr(r, name)):
                    out[i] += int(v)
            return tuple(out)

        def per_column(name: str) -> tuple[dict[str, int], ...]:
            out: list[dict[str, int]] = [{} for _ in range(m)]
            for r in reports:
                for i, d in enumerate(getattr(r, name)):
                    for c, v in d.items():
                        out[i][c] = out[i].get(c, 0) + int(v)
            return tuple(out)

        thresholds: dict[str, tuple[float | None, float | None]] = {}
        seen: dict[str, set[tuple[float | None, float | None]]] = {}
        for r in reports:
            for c, t in r.thresholds.items():
                seen.setdefault(c, set()).add(tuple(t))  # type: ignore[arg-type]
        for c, ts in seen.items():
            if len(ts) == 1:
                thresholds[c] = next(iter(ts))
        return cls(
            replicated_uniques=first.replicated_uniques, extremes=first.extremes,
            thresholds=thresholds, found=per_implicate("found"),
            redrawn=per_implicate("redrawn"), removed=per_implicate("removed"),
            remaining=per_implicate("remaining"), suppressed=per_implicate("suppressed"),
            partial_uniques=first.partial_uniques, kept_changed=per_column("kept_changed"),
            n_records=per_implicate("n_records"), synthesized_columns=first.synthesized_columns,
            coded=per_column("coded"), rare_values=first.rare_values, rare=per_column("rare"),
        )

    def totals(self) -> dict[str, int]:
        """Counts over every implicate (what the report and the provenance show)."""
        return {
            "replicated_uniques_found": sum(self.found),
            "redrawn": sum(self.redrawn),
            "removed": sum(self.removed),
            "suppressed": sum(self.suppressed),
            "kept_values_changed": sum(sum(d.values()) for d in self.kept_changed),
            "replicated_uniques_released": sum(self.remaining),
            "extreme_values_coded": sum(sum(d.values()) for d in self.coded),
            "rare_values_redrawn": sum(sum(d.values()) for d in self.rare),
        }

    def to_record(self) -> dict[str, Any]:
        """A JSON-ready record for the manifest and the provenance: the settings, the counts
        over every implicate and, in partial synthesis, the records whose kept values were
        changed per column. Counts below :data:`~synthguard._display.MIN_CELL` are written
        as ``"< 10"`` (the small-cell rule: a manifest travels with the release)."""
        changed: dict[str, int] = {}
        for d in self.kept_changed:
            for c, v in d.items():
                changed[c] = changed.get(c, 0) + int(v)
        out: dict[str, Any] = {
            "replicated_uniques": self.replicated_uniques,
            "extremes": self.extremes,
            "rare_values": self.rare_values,
            "released_records": sum(self.n_records),
            "counts": {k: cell_value(v) for k, v in self.totals().items()},
        }
        if self.partial_uniques:
            out["partial_uniques"] = self.partial_uniques
            out["kept_changed"] = {c: cell_value(v) for c, v in changed.items()}
            out["suppressed_columns"] = list(self.synthesized_columns)
            text = self.partial_summary()
            if text:
                out["partial"] = text
        return out

    def to_frame(self) -> pd.DataFrame:
        """One row per implicate: found, redrawn, removed, remaining, and values coded per
        column (``coded_<column>``)."""
        rows = []
        for i in range(len(self.found)):
            row: dict[str, Any] = {
                "implicate": i + 1,
                "replicated_uniques_found": self.found[i],
                "redrawn": self.redrawn[i],
                "removed": self.removed[i],
                "suppressed": self.suppressed[i] if i < len(self.suppressed) else 0,
                "replicated_uniques_released": self.remaining[i],
            }
            for c, v in (self.kept_changed[i] if i < len(self.kept_changed) else {}).items():
                row[f"kept_changed_{c}"] = v
            for c, v in (self.coded[i] if i < len(self.coded) else {}).items():
                row[f"coded_{c}"] = v
            for c, v in (self.rare[i] if i < len(self.rare) else {}).items():
                row[f"rare_{c}"] = v
            rows.append(row)
        return pd.DataFrame(rows).set_index("implicate") if rows else pd.DataFrame()

    def summary(self) -> str:
        m = len(self.found)
        if self.replicated_uniques == "keep":
            uniq = (
                f"replicated uniques kept on request: {cell_count(sum(self.remaining))} "
                f"released records replicate a confidential unique (over {m} implicates)"
            )
        else:
            uniq = (
                f"replicated uniques: {cell_count(sum(self.found))} drawn over {m} "
                f"implicates, {cell_count(sum(self.redrawn))} redrawn, "
                f"{cell_count(sum(self.removed))} removed, "
                + (f"{cell_count(sum(self.suppressed))} suppressed, "
                   if sum(self.suppressed) else "")
                + f"{cell_count(sum(self.remaining))} released"
            )
        if self.extremes:
            n_coded = sum(sum(d.values()) for d in self.coded)
            n_columns = len(set(self.thresholds) | {c for d in self.coded for c in d})
            tails = (
                f"extremes: the values of the {self.extremes} most extreme records per tail "
                f"of {n_columns} numeric columns withheld by bottom/top coding "
                f"({cell_count(n_coded)} synthetic values coded)"
            )
        else:
            tails = "extremes: not protected (extremes=0)"
        if self.rare_values:
            n_rare = sum(sum(d.values()) for d in self.rare)
            cols = sorted({c for d in self.rare for c in d})
            rare = (
                f"near-unique values: values and levels held by fewer than {self.rare_values} "
                f"confidential records never released exactly ({cell_count(n_rare)} synthetic values "
                f"redrawn" + (f", in {', '.join(cols)})" if cols else ")")
            )
        else:
            rare = "near-unique values: not protected (rare_values=0)"
        lines = [uniq]
        partial = self.partial_summary()
        if partial:
            lines.append(partial)
        return "\n".join([*lines, tails, rare])

    def partial_summary(self) -> str | None:
        """What the guard changed in a partially synthetic release, with counts and shares of
        the released records (under the small-cell rule), or None when it changed nothing."""
        if not self.partial_uniques:
            return None
        total = sum(self.n_records)
        n_supp = sum(self.suppressed)
        changed: dict[str, int] = {}
        for d in self.kept_changed:
            for c, v in d.items():
                changed[c] = changed.get(c, 0) + int(v)
        parts = []
        for c, v in changed.items():
            if v:
                how = ("synthesized anew" if self.partial_uniques == "synthesize"
                       else "coarsened to 2 significant digits")
                parts.append(f"{c}, the riskiest kept column, {how} in {cell_share(v, total)} "
                             f"released records (those unique on the kept columns)")
        if n_supp:
            cols = ", ".join(self.synthesized_columns) or "the synthesized columns"
            parts.append(f"synthesized values ({cols}) blanked (set missing) in "
                         f"{cell_share(n_supp, total)} released records that still equalled "
                         f"a confidential unique after redrawing")
        if not parts:
            return None
        return (f"partial synthesis (partial_uniques={self.partial_uniques}): "
                + "; ".join(parts))
