"""What the unique guard changes in a partially synthetic release (``partial_uniques``).

In partial synthesis the kept columns are the confidential values, and with many kept columns
nearly every record is unique on them (on Adult with 12 kept columns, ``fnlwgt`` alone makes
most records unique). Such a record *replicates its unique* whenever its synthesized values
come out equal to its own confidential ones, and with point masses (``capital_gain = 0``,
``capital_loss = 0``, ``income = <=50K``) they mostly do: 70 % of the rows of Adult as first
drawn. Redrawing the synthesized values until they differ forces other values on the common
records (after the redraw rounds of :class:`~synthguard.synthesis.safeguards.UniqueGuard` the
pMSE ratio was 35), and blanking the 35 % that still replicated left a release with pMSE ratio
381. The identifying part of such a record is its kept values, so that is what changes:

``"synthesize"`` (the default)
    The *riskiest kept column* (the one that isolates most confidential records on its own:
    records unique on it alone, then most distinct values; the intruder's ``uniques_on`` keys
    first) is synthesized too, for the records unique on the kept columns only: drawn anew
    from a CART model of it on the other kept and strata columns, fitted on the confidential
    data and smoothed as the redraws are (:meth:`CartMethod.smooth_values
    <synthguard.synthesis.methods.CartMethod.smooth_values>`), redrawn where it came out as
    the record's own value (up to :data:`~synthguard.synthesis.safeguards.MAX_REDRAW_ROUNDS`
    times). This is the selective multiple imputation of keys (SMIKe) of Little, Liu &
    Raghunathan (2004), which replaces the key values of the records at risk.
``"coarsen"``
    The riskiest *numeric* kept value of those records is rounded to 2 significant digits (1
    if it already was round), as global recoding (Hundepool et al. 2012, sec. 3.4.2) of the
    records at risk; with no numeric kept column nothing is coarsened.
``"suppress"``
    Nothing is changed up front; the synthesized values of the records that still replicate
    a unique after the redraws are set missing (local suppression, as sdcMicro's
    ``localSuppression``; synthguard's only behaviour until the option existed).

When an implicate, as first drawn, holds a replicated unique, the records changed are
*every* record unique on the kept columns, not only those whose synthesized values came out
as their own (an implicate that replicates none keeps its kept columns as the data's): a kept value changed only where the synthesized
values are real would tell an intruder, who knows their target's kept values, that this
record's synthesized values are real. The records that still replicate a unique afterwards
(a drawn value equal to the record's own, a unique on ``uniques_on``) go through the redraws
and, as a last resort, suppression. ``benchmarks/partial_guard.py`` measures the options on
Adult with 12 kept columns; the figures that chose the default are in ``docs/synthesis.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from synthguard.errors import ParameterError

__all__ = ["MAX_KEPT_COLUMNS", "PARTIAL_UNIQUES", "KeptModels", "coarsen_values",
           "rank_kept_columns", "unique_rows"]

#: What to do with a partially synthetic record that still replicates a unique.
PARTIAL_UNIQUES = ("synthesize", "coarsen", "suppress")
#: Kept columns, riskiest first, whose values may be changed in such a record.
MAX_KEPT_COLUMNS = 1


def check_partial_uniques(value: Any) -> str:
    """Validate the synthesizer's ``partial_uniques`` parameter."""
    if value not in PARTIAL_UNIQUES:
        raise ParameterError(
            f"parameter 'partial_uniques': expected one of {', '.join(PARTIAL_UNIQUES)}; "
            f"see synthguard.synthesis.partial_guard"
        )
    return str(value)


def rank_kept_columns(
    arrays: Mapping[str, np.ndarray], kept: Sequence[str], keys: Sequence[str] = (),
    numeric: Callable[[str], bool] | None = None,
) -> list[str]:
    """The kept columns, riskiest first: those in ``keys`` (the intruder's keys) before the
    others, then by the number of confidential records unique on the column alone, then by
    its number of distinct values (working form; missing values count as a value). With
    ``numeric``, only the columns it accepts."""
    score = []
    for i, c in enumerate(kept):
        if numeric is not None and not numeric(c):
            continue
        a = np.asarray(arrays[c])
        if a.dtype.kind == "f":
            a = np.where(np.isnan(a), np.inf, a)  # NaN as one value
        _, counts = np.unique(a, return_counts=True)
        score.append((c not in keys, -int(np.sum(counts == 1)), -len(counts), i, c))
    return [s[-1] for s in sorted(score)]


def coarsen_values(values: np.ndarray) -> np.ndarray:
    """``values`` rounded to 2 significant digits, or to 1 where that changes nothing (a value
    already round); 0 and missing values stay."""
    v = np.asarray(values, dtype=float)
    out = v.copy()
    ok = np.isfinite(v) & (v != 0)
    for digits in (2, 1):
        todo = ok & (out == v)
        if not todo.any():
            break
        x = v[todo]
        step = 10.0 ** (np.floor(np.log10(np.abs(x))) - (digits - 1))
        out[todo] = np.round(x / step) * step
    return out


def unique_rows(arrays: Mapping[str, np.ndarray], columns: Sequence[str]) -> np.ndarray:
    """Boolean mask of the records unique on ``columns`` (working form), by hashing rows
    (:func:`~synthguard.synthesis.diagnostics.hash_rows`) and counting equal hashes:
    O(n log n)."""
    from synthguard.synthesis.diagnostics import hash_rows

    h = hash_rows(arrays, list(columns))
    _, inverse, counts = np.unique(h, return_inverse=True, return_counts=True)
    return np.asarray(counts[inverse] == 1)


class KeptModels:
    """CART models of the riskiest kept columns, each on the other kept and strata columns,
    fitted on the confidential data on first use (``fit_one(column)`` returns a drawer
    ``draw(out, rows, rng) -> working values``).

    Derived from confidential data: it stays inside the fitted (confidential) synthesizer.
    """

    def __init__(self, columns: Sequence[str], fit_one: Callable[[str], Any]) -> None:
        self.columns = list(columns)
        self._fit_one = fit_one
        self.models: dict[str, Any] = {}

    def drawer(self, column: str) -> Any:
        if column not in self.models:
            self.models[column] = self._fit_one(column)
        return self.models[column]

    def fit_all(self) -> None:
        """Fit every model now (before the confidential data are let go, e.g. when saved)."""
        for c in self.columns:
            self.drawer(c)

    def __getstate__(self) -> dict[str, Any]:
        self.fit_all()
        state = dict(self.__dict__)
        state["_fit_one"] = None
        return state
