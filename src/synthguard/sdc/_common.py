"""Shared boundary checks and vectorised building blocks of the SDC methods (private)."""

from __future__ import annotations

import numbers
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from synthguard._params import column_list, require_columns
from synthguard.data._backend import refuse_dask
from synthguard.data.schema import Schema, infer_schema, validate_frame
from synthguard.errors import DataError, ParameterError

# pandas Categorical codes of missing values
MISSING_CODE = -1


def check_frame(data: Any) -> pd.DataFrame:
    """Cheap whole-frame checks at the boundary: a DataFrame with rows, unique column names.

    The columns a method reads are validated in full by :func:`check_columns`
    (``synthguard.data.validate_frame`` on that subset): columns a method passes through
    untouched are not scanned, which keeps every method linear in the columns it uses.
    """
    refuse_dask(data, "data", "an SDC step with a Dask path (topcode, bottomcode, add_noise, "
                "pram, swap, generalize)")
    if not isinstance(data, pd.DataFrame):
        raise DataError(
            f"data: expected a pandas DataFrame, got {type(data).__name__}; "
            f"read files with synthguard.data.read_table"
        )
    if data.shape[0] == 0 or data.shape[1] == 0:
        raise DataError("data is empty: it needs at least one row and one column")
    cols = pd.Index(data.columns)
    if cols.has_duplicates:
        raise DataError(
            "data has duplicate column names; rename them so each is unique"
        )
    return data


def as_column_list(columns: Any, param: str) -> list[str]:
    """A column name or a sequence of names, as a non-empty list without duplicates; see
    :func:`synthguard._params.column_list`."""
    if columns is None:
        raise ParameterError(f"parameter '{param}': name at least one column")
    return column_list(columns, param, required=True)


def check_columns(
    data: pd.DataFrame, columns: Any, param: str, *, as_levels: bool = True
) -> list[str]:
    """Names in ``columns`` that must all be columns of ``data``; validate those columns.

    ``as_levels``: the method treats the columns' values as levels (keys, strata, PRAM,
    recode maps), so text that looks numeric is fine and the numbers-as-text check of
    ``validate_frame`` is skipped for them (as for columns a user declares categorical).
    Methods that need numbers pass False and check kinds with :func:`numeric_columns`.
    """
    cols = as_column_list(columns, param)
    require_columns(data, cols, param)
    validate_frame(data[cols], name="data", text_overrides=cols if as_levels else ())
    return cols


def numeric_columns(data: pd.DataFrame, columns: list[str], param: str) -> Schema:
    """Check that ``columns`` are numeric or count columns by the schema; return the schema."""
    schema = infer_schema(data[columns])
    bad = [c for c in columns if not schema[c].is_numeric]
    if bad:
        raise ParameterError(
            f"parameter '{param}': columns {', '.join(map(repr, bad))} are not numeric "
            f"(schema kind {', '.join(schema.kind(c).value for c in bad)}); this method needs "
            f"numbers"
        )
    return schema


def check_probability(value: Any, param: str, *, low_open: bool = False) -> float:
    """A number in [0, 1] (or (0, 1] with ``low_open``)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ParameterError(f"parameter '{param}': expected a number between 0 and 1")
    v = float(value)
    if not np.isfinite(v) or v > 1 or v < 0 or (low_open and v == 0):
        interval = "(0, 1]" if low_open else "[0, 1]"
        raise ParameterError(f"parameter '{param}': expected a number in {interval}")
    return v


def check_positive(value: Any, param: str, *, allow_zero: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ParameterError(f"parameter '{param}': expected a positive number")
    v = float(value)
    if not np.isfinite(v) or v < 0 or (v == 0 and not allow_zero):
        raise ParameterError(
            f"parameter '{param}': expected a {'non-negative' if allow_zero else 'positive'} "
            f"finite number"
        )
    return v


def float_values(s: pd.Series) -> np.ndarray:
    """A numeric column as float64 with NaN for missing values (a copy)."""
    return np.array(s.to_numpy(dtype=float, na_value=np.nan), dtype=np.float64, copy=True)


def codes(s: pd.Series) -> tuple[np.ndarray, pd.Index]:
    """Integer codes 0..L-1 of a column's levels (missing: -1) and the levels."""
    c, uniques = pd.factorize(s, use_na_sentinel=True, sort=False)
    return c.astype(np.int64, copy=False), pd.Index(uniques)


def combine_codes(code_columns: Sequence[np.ndarray], n: int) -> np.ndarray:
    """Dense group ids 0..G-1 of the rows of several code columns (mixed radix, re-densified).

    Missing codes (-1) form a level of their own. O(n) per column plus one
    factorisation when the radix would overflow int64.
    """
    ids = np.zeros(n, dtype=np.int64)
    size = 1
    for c in code_columns:
        c = np.asarray(c, dtype=np.int64) + 1  # missing -> 0
        width = int(c.max()) + 1 if c.size else 1
        if size * width >= 2**62:
            ids, _ = _dense(ids)
            size = int(ids.max()) + 1 if ids.size else 1
        ids = ids * width + c
        size *= width
    dense, _ = _dense(ids)
    return dense


def _dense(ids: np.ndarray) -> tuple[np.ndarray, int]:
    uniq, inv = np.unique(ids, return_inverse=True)
    return inv.astype(np.int64, copy=False).reshape(-1), int(uniq.size)


def strata_ids(data: pd.DataFrame, strata: Any, param: str = "strata") -> np.ndarray:
    """Dense stratum id of every record (all zeros when ``strata`` is None)."""
    n = data.shape[0]
    if strata is None:
        return np.zeros(n, dtype=np.int64)
    cols = check_columns(data, strata, param)
    return combine_codes([codes(data[c])[0] for c in cols], n)


def rank_within(groups: np.ndarray, key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Order of records sorted by (group, key) and each record's 0-based rank in its group.

    Returns ``(order, rank)`` where ``order`` sorts by group then key and
    ``rank[i]`` is record i's position within its group. O(n log n).
    """
    # a quicksort by key, then a stable (radix for narrow ints) sort by group: several times
    # faster than np.lexsort on floats; records with equal keys keep an arbitrary but
    # deterministic order (keys here are random uniforms, so ties do not occur in practice)
    order = np.argsort(key)
    order = sort_by_group(order, groups)
    return order, ranks_in_sorted(order, groups)


def sort_by_group(order: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Stable re-sort of ``order`` by ``groups`` (a no-op for a single group)."""
    if groups.size == 0 or groups.min() == groups.max():
        return order
    g = groups[order]
    if g.max() < 2**16 and g.min() >= 0:
        g = g.astype(np.uint16)  # numpy sorts 16-bit integers by radix sort
    return order[np.argsort(g, kind="stable")]


def ranks_in_sorted(order: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """0-based rank of every record within its group, given an order sorted by group."""
    g_sorted = groups[order]
    n = groups.size
    starts = np.ones(n, dtype=bool)
    if n:
        starts[1:] = g_sorted[1:] != g_sorted[:-1]
    start_pos = np.maximum.accumulate(np.where(starts, np.arange(n), 0))
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n) - start_pos
    return rank


def value_changed(s: pd.Series, perm: np.ndarray) -> np.ndarray:
    """True where ``s.take(perm)`` differs from ``s`` (two missing values count as equal)."""
    if pd.api.types.is_numeric_dtype(s.dtype) and not pd.api.types.is_bool_dtype(s.dtype):
        a = float_values(s)
        b = a[perm]
        return np.asarray((a != b) & ~(np.isnan(a) & np.isnan(b)), dtype=bool)
    c, _ = codes(s)
    return np.asarray(c[perm] != c, dtype=bool)


def largest_remainder(quotas: np.ndarray, total: int, caps: np.ndarray) -> np.ndarray:
    """Integers summing to ``total`` (when caps allow) proportional to ``quotas``, each <= cap.

    Hamilton's largest-remainder apportionment; ties go to the lower index.
    """
    base = np.minimum(np.floor(quotas).astype(np.int64), caps)
    short = total - int(base.sum())
    if short > 0:
        rem = np.where(base < caps, quotas - np.floor(quotas), -np.inf)
        order = np.argsort(-rem, kind="stable")
        room = caps - base
        take = np.zeros_like(base)
        # give one unit per stratum in remainder order, cycling while room remains
        while short > 0 and room.sum() > 0:
            eligible = order[room[order] > 0]
            step = eligible[:short]
            take[step] += 1
            room[step] -= 1
            short -= step.size
        base = base + take
    return base


def changed_mask(before: pd.DataFrame, after: pd.DataFrame) -> pd.DataFrame:
    """True where a cell differs (two missing values count as equal)."""
    out = pd.DataFrame(False, index=after.index, columns=after.columns)
    for c in after.columns:
        a = before[c]
        b = after[c]
        both_na = a.isna().to_numpy() & b.isna().to_numpy()
        ne = (a.astype(object).to_numpy() != b.astype(object).to_numpy()) & ~both_na
        out[c] = ne
    return out


def require_rows(data: pd.DataFrame, minimum: int, what: str) -> None:
    if data.shape[0] < minimum:
        raise DataError(f"data: {what} needs at least {minimum} records")


def label(value: Hashable) -> str:
    return repr(value)
