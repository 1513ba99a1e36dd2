"""What the unique guard does with a partially synthetic record it cannot fix by redrawing.

In partial synthesis the kept columns are the confidential values, and with many kept columns
nearly every record is unique on them (on Adult with 12 kept columns, ``fnlwgt`` alone makes
most records unique). Such a record *replicates its unique* whenever its synthesized values
come out equal to its own confidential ones, and with point masses (``capital_gain = 0``,
``capital_loss = 0``, ``income = <=50K``) they mostly do: 70 % of the rows of Adult as first
drawn, 35 % still after the redraw rounds of :class:`~synthguard.synthesis.safeguards.UniqueGuard`.
Redrawing the synthesized values until they differ would force rare values on the common
records. What is left is what to change in those records (``partial_uniques``):

``"synthesize"`` (the default)
    Synthesize the record's *riskiest kept value* too, extending the synthesized set for
    those records only (as the selective multiple imputation of keys, SMIKe, of Little, Liu &
    Raghunathan 2004, replaces the key values of the records at risk): the kept column that isolates most confidential records
    on its own (records unique on it alone; then most distinct values) is drawn anew from a
    CART model of it on the other kept and strata columns, fitted on the confidential data
    and smoothed as the redraws are (:meth:`CartMethod.smooth_values
    <synthguard.synthesis.methods.CartMethod.smooth_values>`), up to
    :data:`~synthguard.synthesis.safeguards.MAX_REDRAW_ROUNDS` times per column, over the
    :data:`MAX_KEPT_COLUMNS` riskiest kept columns (the intruder's ``uniques_on`` keys
    first). The synthesized values stay as drawn, and the record no longer carries the
    confidential values that identify it.
``"coarsen"``
    Round the riskiest numeric kept value of those records to 2 significant digits (1 if it
    already was round), as global recoding does for a whole column (Hundepool et al. 2012,
    sec. 3.4.2), here for the records at risk only; kept categorical columns are not coarsened.
``"suppress"``
    Set the synthesized values of those records missing (local suppression, as sdcMicro's
    ``localSuppression``; synthguard's only behaviour until the option existed).

A record that still replicates a unique after its kept values were changed is suppressed, and
its kept values restored. ``benchmarks/partial_guard.py`` measures the three on Adult with 12
kept columns; the figures that chose the default are in ``docs/synthesis.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from synthguard.errors import ParameterError

__all__ = ["MAX_KEPT_COLUMNS", "PARTIAL_UNIQUES", "KeptModels", "coarsen_values",
           "rank_kept_columns"]

#: What to do with a partially synthetic record that still replicates a unique.
PARTIAL_UNIQUES = ("synthesize", "coarsen", "suppress")
#: Kept columns, riskiest first, whose values may be changed in such a record.
MAX_KEPT_COLUMNS = 2


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
