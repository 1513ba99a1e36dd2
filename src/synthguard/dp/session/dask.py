"""The Session's Dask path: bounding per unit after a shuffle on the id, exact tree sums, one
noise draw on the client.

1. The rows of the query's public keys are kept and numbered 0..n−1 in partition order
   (:func:`synthguard._dask.partitions.with_row_numbers`): the positions the pandas path
   bounds by.
2. A hash shuffle on the unit's id puts every unit's rows in one partition
   (:func:`synthguard._dask.partitions.shuffle_by_keys`); each partition is bounded by
   :func:`synthguard.dp.session.bounding.bound` with the session's salts and those row
   numbers, which keeps exactly the rows the pandas path keeps (a row's priority is a hash of
   its number and the salt; a unit's kept rows depend on its own rows only).
3. Each partition computes the exact per-group sums of every aggregation
   (:func:`synthguard.dp.session.measure.sufficient`); units being whole in a partition, the
   sums over partitions (added pairwise in a tree of tasks) are the sums over the bounded
   data, count of distinct units included.
4. The client draws the noise once per sum (:func:`synthguard.dp.session.measure.release`),
   after the ledger was charged.

Only the sums, never a row, reach the client. Quantiles, regressions, privately selected keys
and estimated bounds need more than sums and are refused on Dask for now.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from synthguard.dp.session.bounding import _ID, bound
from synthguard.dp.session.spec import Aggregation
from synthguard.dp.session.unit import PrivacyUnit
from synthguard.errors import ParameterError

__all__ = ["DASK_KINDS", "check_dask_query", "dask_sums"]

DASK_KINDS = ("count", "count_distinct", "sum", "mean", "variance")


def check_dask_query(aggs: Sequence[Aggregation], public: pd.DataFrame | None) -> None:
    """Refuse what the Dask path cannot answer, before anything is charged."""
    if public is None:
        raise ParameterError("parameter 'by': on a Dask frame the keys must be public "
                             "(by={column: [levels]}); private key selection needs pandas")
    for a in aggs:
        if a.kind not in DASK_KINDS or a.estimate is not None:
            raise ParameterError(
                f"aggregation '{a.name}' ({a.kind}{', estimated bounds' if a.estimate else ''})"
                f": on a Dask frame the session answers {', '.join(DASK_KINDS)} with given "
                "bounds; compute() a pandas frame for the others")


def _partition_sums(part: pd.DataFrame, unit: PrivacyUnit, cols: list[str],
                    keys: pd.DataFrame, aggs: tuple[Aggregation, ...],
                    salts: tuple[int, int], k: int) -> dict[str, dict[str, np.ndarray]]:
    from synthguard._dask import ROW
    from synthguard.dp.session.measure import sufficient
    from synthguard.dp.session.session import _codes

    rows = part[ROW].to_numpy(dtype=np.int64)
    bounded = bound(part.drop(columns=[c for c in part.columns if c.startswith("_synthguard")]),
                    unit, cols, salts, rows=rows)
    codes = _codes(bounded, cols, keys)
    units = bounded[_ID].to_numpy()
    out = {}
    for a in aggs:
        x = None if a.column is None else bounded[a.column].to_numpy(dtype=float)
        c_a, u_a = codes, units
        if x is not None:
            keep = ~np.isnan(x)
            x, c_a, u_a = x[keep], codes[keep], units[keep]
        out[a.name] = sufficient(a, c_a, u_a, x, k, a.bounds)
    return out


def _add(a: dict[str, dict[str, np.ndarray]], b: dict[str, dict[str, np.ndarray]]
         ) -> dict[str, dict[str, np.ndarray]]:
    return {n: {s: a[n][s] + b[n][s] for s in a[n]} for n in a}


def dask_sums(data: Any, unit: PrivacyUnit, cols: list[str], keys: pd.DataFrame,
              aggs: Sequence[Aggregation], salts: tuple[int, int]
              ) -> dict[str, dict[str, np.ndarray]]:
    """The exact per-group sums of every aggregation over the bounded Dask frame ``data``
    (the query's columns, rows in its keys), added in a tree; aggregation -> sum -> array."""
    import dask

    from synthguard._dask.partitions import shuffle_by_keys, with_row_numbers

    numbered, _ = with_row_numbers(data)
    if not unit.is_row:  # every unit's rows in one partition
        numbered = shuffle_by_keys(numbered, [unit.column], max(1, data.npartitions))
    k = len(keys)
    parts = [dask.delayed(_partition_sums)(p, unit, cols, keys, tuple(aggs), salts, k)
             for p in numbered.to_delayed()]
    while len(parts) > 1:  # a tree of pairwise sums
        parts = [dask.delayed(_add)(parts[i], parts[i + 1]) if i + 1 < len(parts)
                 else parts[i] for i in range(0, len(parts), 2)]
    (total,) = dask.compute(parts[0])
    return total
