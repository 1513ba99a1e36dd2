"""Generalisation (global recoding, coarsening): replace values by coarser categories.

Course book ch. 1, "Generalization: aggregating variables into larger units (e.g.,
reporting state rather than zip code)"; sdcMicro's ``globalRecode`` (numeric bins) and
``groupAndRename`` (recode map). A hierarchy is a list of recode maps applied in turn
(ZIP → county → state); ``level`` says how many steps to climb.

Bins and maps are public choices of the agency and must not be derived from the
confidential data (data-dependent break points would themselves disclose).
The method is deterministic; each distinct value is recoded once and the result is
broadcast with its integer codes, O(n).
"""

from __future__ import annotations

import numbers
from collections.abc import Hashable, Mapping, Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd

from synthguard.data._backend import dask_backend, is_dask_collection
from synthguard.errors import DataError, ParameterError
from synthguard.sdc._common import check_columns, check_frame, codes, float_values, numeric_columns
from synthguard.sdc.result import ProtectedData

__all__ = ["generalize"]


@dask_backend
def generalize(
    data: pd.DataFrame,
    column: str,
    bins: Sequence[float] | None = None,
    mapping: Mapping[Hashable, Hashable] | None = None,
    *,
    hierarchy: Sequence[Mapping[Hashable, Hashable]] | None = None,
    level: int | None = None,
    labels: Sequence[Hashable] | None = None,
    right: bool = True,
    unmapped: Literal["error", "keep", "missing"] = "error",
) -> ProtectedData:
    """Coarsen ``column`` with explicit bins, a recode map, or a level of a hierarchy.

    Give exactly one of ``bins``, ``mapping`` or ``hierarchy``.

    Parameters
    ----------
    data : confidential DataFrame (not mutated), pandas or Dask. On Dask every partition is
        recoded by this function (equal to the pandas release row for row); ``data`` and
        ``changes`` are Dask frames, the numbers of levels counted over all partitions.
    column : the column to coarsen.
    bins : increasing edges :math:`b_0 < b_1 < \\dots < b_m` for a numeric column; a value
        :math:`x` goes to interval :math:`(b_{j-1}, b_j]` (``right=True``, first interval
        closed on the left) or :math:`[b_{j-1}, b_j)` (``right=False``, last closed on the
        right). Values outside :math:`[b_0, b_m]` raise: widen the edges (use ``-inf`` /
        ``inf``) or top-code first.
    mapping : recode map ``{old value: new value}``; several old values may map to one.
    hierarchy : a list of recode maps, finest first (``[zip_to_county, county_to_state]``).
    level : with ``hierarchy``, how many maps to apply (1 ..len(hierarchy); default all).
    labels : with ``bins``, one label per interval (default: interval notation).
    right : with ``bins``, which side of the intervals is closed.
    unmapped : with a map, what to do with values the map does not list: ``"error"``
        (default), ``"keep"`` them, or make them ``"missing"``.

    Returns
    -------
    ProtectedData
        The column is replaced by an ordered categorical (bins) or the recoded values;
        ``changes`` marks cells whose released value differs from the original;
        ``params`` holds ``n_levels_before`` and ``n_levels_after``.

    Raises
    ------
    ParameterError
        None or several of bins/mapping/hierarchy; bad edges or labels; a level outside
        the hierarchy; values outside the bins or missing from the map (the count of
        records, never the values).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"age": [5, 17, 18, 64, 80]})
    >>> out = generalize(df, "age", bins=[0, 17, 64, 120], labels=["child", "adult", "senior"])
    >>> out.data["age"].tolist()
    ['child', 'child', 'adult', 'adult', 'senior']
    >>> zip_to_county = {"10001": "NY", "10002": "NY", "07030": "Hudson"}
    >>> county_to_state = {"NY": "New York", "Hudson": "New Jersey"}
    >>> z = pd.DataFrame({"zip": ["10001", "07030", "10002"]})
    >>> generalize(z, "zip", hierarchy=[zip_to_county, county_to_state], level=2).data[
    ...     "zip"].tolist()
    ['New York', 'New Jersey', 'New York']
    """
    if is_dask_collection(data):  # record by record: the pandas step on every partition
        from synthguard.sdc._on_dask.steps import generalized

        return generalized(generalize, data, column, dict(
            bins=bins, mapping=mapping, hierarchy=hierarchy, level=level, labels=labels,
            right=right, unmapped=unmapped))
    data = check_frame(data)
    (column,) = check_columns(data, [column], "column")
    given = [name for name, v in (("bins", bins), ("mapping", mapping), ("hierarchy", hierarchy))
             if v is not None]
    if len(given) != 1:
        raise ParameterError(
            "generalize: give exactly one of parameters 'bins', 'mapping' or 'hierarchy'"
        )
    if unmapped not in ("error", "keep", "missing"):
        raise ParameterError("parameter 'unmapped': expected 'error', 'keep' or 'missing'")
    s = data[column]
    params: dict[str, Any] = {"column": column}
    if bins is not None:
        new = _apply_bins(data, column, bins, labels, right)
        params.update(bins=list(bins), right=right, labels=None if labels is None else list(labels))
        changed = s.notna().to_numpy()
    else:
        if labels is not None:
            raise ParameterError("parameter 'labels': only used with 'bins'")
        if hierarchy is not None:
            maps = list(hierarchy)
            if not maps or not all(isinstance(m, Mapping) for m in maps):
                raise ParameterError(
                    "parameter 'hierarchy': expected a non-empty list of mappings, finest first"
                )
            if level is None:
                level = len(maps)
            if (
                isinstance(level, bool)
                or not isinstance(level, numbers.Integral)
                or not 1 <= int(level) <= len(maps)
            ):
                raise ParameterError(
                    f"parameter 'level': expected an integer from 1 to {len(maps)} "
                    f"(the number of maps in 'hierarchy')"
                )
            maps = maps[: int(level)]
            params.update(level=int(level), n_hierarchy_levels=len(hierarchy))
        else:
            if not isinstance(mapping, Mapping):
                raise ParameterError("parameter 'mapping': expected a dict {old: new}")
            if level is not None:
                raise ParameterError("parameter 'level': only used with 'hierarchy'")
            maps = [mapping]
        new, changed = _apply_maps(s, column, maps, unmapped)
        params.update(unmapped=unmapped)
    params["n_levels_before"] = int(s.nunique(dropna=True))
    params["n_levels_after"] = int(new.nunique(dropna=True))
    out = data.copy()
    out[column] = new
    changes = pd.DataFrame(False, index=out.index, columns=out.columns)
    changes[column] = changed
    return ProtectedData(data=out, changes=changes, method="generalize", params=params)


def _apply_bins(
    data: pd.DataFrame,
    column: str,
    bins: Sequence[float],
    labels: Sequence[Hashable] | None,
    right: bool,
) -> pd.Series:
    numeric_columns(data, [column], "column")
    try:
        edges = np.asarray(list(bins), dtype=float)
    except (TypeError, ValueError):
        raise ParameterError("parameter 'bins': expected a sequence of numbers") from None
    if edges.ndim != 1 or edges.size < 2 or np.isnan(edges).any() or np.any(np.diff(edges) <= 0):
        raise ParameterError(
            "parameter 'bins': expected at least two strictly increasing edges"
        )
    if labels is not None and len(labels) != edges.size - 1:
        raise ParameterError(
            f"parameter 'labels': expected {edges.size - 1} labels, one per interval"
        )
    x = float_values(data[column])
    obs = ~np.isnan(x)
    outside = obs & ((x < edges[0]) | (x > edges[-1]))
    if outside.any():
        raise ParameterError(
            f"parameter 'bins': {int(outside.sum())} records of column '{column}' fall outside "
            f"the edges; widen the first/last edge (e.g. to -inf/inf) or top-code first"
        )
    if right:
        idx = np.searchsorted(edges, x, side="left") - 1
        idx[x == edges[0]] = 0
    else:
        idx = np.searchsorted(edges, x, side="right") - 1
        idx[x == edges[-1]] = edges.size - 2
    idx[~obs] = -1
    if labels is None:
        cats = pd.IntervalIndex.from_breaks(edges, closed="right" if right else "left")
        cat_labels: list[Any] = list(cats)
    else:
        cat_labels = list(labels)
    dtype = pd.CategoricalDtype(categories=cat_labels, ordered=True)
    return pd.Series(
        pd.Categorical.from_codes(idx.astype(np.int64), dtype=dtype), index=data.index, name=column
    )


def _apply_maps(
    s: pd.Series, column: str, maps: list[Mapping[Hashable, Hashable]], unmapped: str
) -> tuple[pd.Series, np.ndarray]:
    cc, uniques = codes(s)
    current: list[Any] = list(uniques)
    alive = np.ones(len(current), dtype=bool)  # False: recoded to missing
    for step, m in enumerate(maps, start=1):
        nxt: list[Any] = []
        for j, v in enumerate(current):
            if not alive[j]:
                nxt.append(v)
                continue
            if v in m:
                nxt.append(m[v])
            elif unmapped == "keep":
                nxt.append(v)
            elif unmapped == "missing":
                nxt.append(None)
                alive[j] = False
            else:
                bad_level = np.array(
                    [alive[i] and current[i] not in m for i in range(len(current))], dtype=bool
                )
                n_bad = int(bad_level[cc[cc >= 0]].sum())
                where = "parameter 'mapping'" if len(maps) == 1 else (
                    f"parameter 'hierarchy' (map {step})"
                )
                raise ParameterError(
                    f"{where}: {n_bad} records of column '{column}' hold values the map does "
                    f"not list; add them, or pass unmapped='keep' or 'missing'"
                )
        current = nxt
    new_vals = np.empty(len(current) + 1, dtype=object)
    new_vals[: len(current)] = current
    new_vals[-1] = None
    take = np.where(cc < 0, len(current), cc)
    values: pd.Series[Any] = pd.Series(new_vals[take], index=s.index, name=column)
    recoded = np.array(
        [alive[j] and not _same(current[j], uniques[j]) for j in range(len(current))] + [False]
    )
    lost = np.array([not alive[j] for j in range(len(current))] + [False])
    changed = recoded[take] | lost[take]
    kept = [v for j, v in enumerate(current) if alive[j] and v is not None]
    if kept and all(isinstance(v, str) for v in kept):
        values = values.astype("str")
    else:
        values = values.infer_objects()
    if not values.notna().any():
        raise DataError(f"column '{column}': every value became missing after recoding")
    return values, changed


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, str) != isinstance(b, str):
        return False
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False
