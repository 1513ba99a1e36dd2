"""Sparse key-by-target tables behind :func:`synthguard.risk.disclosure`.

Every column (target and keys) is coded once over the confidential data and all implicates
together, so a level means the same thing everywhere. The key combination of a row is its
quasi-identifier q; a cell is a (q, t) pair. Only cells that occur in the confidential data or
in the implicate are built (one ``np.unique`` over ``q * T + t``), so the work is
O((N_d + N_s) log(N_d + N_s)) per implicate and no record is compared with another.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from synthguard.errors import DataError

__all__ = ["CodedColumn", "cell_measures", "code_column", "combine_codes", "implicate_measures"]

_LIMIT = 2**62


@dataclass(frozen=True)
class CodedColumn:
    """Integer codes of one column over [conf, implicate 1, ..., implicate m] stacked."""

    codes: np.ndarray  # int64, one per stacked row
    labels: tuple[str, ...]  # label of each code
    missing: int  # the code of a missing value (== len(labels) - 1 when any is missing, else -1)
    values: tuple[Any, ...]  # the value each code stands for (an interval label when grouped)
    grouped: bool


def _r_quantile_breaks(v: np.ndarray, n: int) -> np.ndarray:
    """Break points as R's ``classInt::classIntervals(v, n, style = "quantile")``."""
    u = np.unique(v)
    if u.size == 1:
        raise DataError("a column to group has a single distinct value; do not group it")
    n = min(n, u.size)
    if n == u.size:  # each distinct value its own class (classInt's "unique" style)
        d = np.diff(u)
        half = d.mean() / 2
        return np.concatenate([[u[0] - half], u[:-1] + d / 2, [u[-1] + half]])
    probs = np.arange(n + 1) * (1.0 / n)
    return np.quantile(v, probs)


def _equal_breaks(v: np.ndarray, n: int) -> np.ndarray:
    return np.linspace(v.min(), v.max(), n + 1)


def _cut(x: np.ndarray, breaks: np.ndarray) -> np.ndarray:
    """Interval index as R's ``cut(x, breaks, right = FALSE, include.lowest = TRUE)``."""
    idx = np.searchsorted(breaks, x, side="right") - 1
    return np.clip(idx, 0, breaks.size - 2)


def _interval_labels(breaks: np.ndarray) -> list[str]:
    out = []
    for i in range(breaks.size - 1):
        right = "]" if i == breaks.size - 2 else ")"
        out.append(f"[{breaks[i]:.8g},{breaks[i + 1]:.8g}{right}")
    return out


def code_column(
    parts: Sequence[pd.Series], *, ngroups: int, cont_na: Sequence[Any], name: str
) -> CodedColumn:
    """Code one column over stacked parts (``parts[0]`` the confidential data).

    Ungrouped: each distinct value is a level, missing is a level of its own. Grouped
    (``ngroups > 0`` and numeric): as synthpop's ``group_num`` -- quantile breaks of the
    confidential and all synthetic values that are neither missing nor in ``cont_na``, intervals
    closed on the left (the last also on the right), each ``cont_na`` value a level of its own;
    when the confidential data fall into fewer than 3 groups, equal-width breaks instead.
    """
    numeric = all(
        pd.api.types.is_numeric_dtype(p.dtype) and not pd.api.types.is_bool_dtype(p.dtype)
        for p in parts
    )
    if ngroups > 0 and numeric:
        vals = np.concatenate([p.to_numpy(dtype=np.float64, na_value=np.nan) for p in parts])
        miss = np.isnan(vals)
        special = np.isin(vals, np.asarray(list(cont_na), dtype=np.float64)) & ~miss
        ok = ~miss & ~special
        if not ok.any():
            raise DataError(f"column '{name}': only missing values; it cannot be grouped")
        breaks = np.unique(_r_quantile_breaks(vals[ok], ngroups))
        codes = np.full(vals.size, -1, dtype=np.int64)
        codes[ok] = _cut(vals[ok], breaks)
        # synthpop counts the levels of the grouped factor (intervals and cont_na values)
        if breaks.size - 1 + len(cont_na) < 3:
            eq = np.unique(_equal_breaks(vals[ok], ngroups))
            if eq.size >= 2:
                breaks = eq
                codes[ok] = _cut(vals[ok], breaks)
        labels = _interval_labels(breaks) if breaks.size >= 2 else [f"{breaks[0]:.8g}"]
        values: list[Any] = list(labels)
        for c in cont_na:
            hit = vals == float(c)
            codes[hit & special] = len(labels)
            labels.append(str(c))
            values.append(c)
        missing = -1
        if miss.any():
            missing = len(labels)
            codes[miss] = missing
            labels.append("Missing")
            values.append(None)
        return CodedColumn(codes, tuple(labels), missing, tuple(values), True)
    ser = pd.concat([p.reset_index(drop=True) for p in parts], ignore_index=True)
    if isinstance(ser.dtype, pd.CategoricalDtype):
        ser = ser.astype(object)
    codes_raw, uniques = pd.factorize(ser, use_na_sentinel=True)
    codes = np.asarray(codes_raw, dtype=np.int64)
    vals_l = list(uniques)
    labels = [str(u) for u in vals_l]
    missing = -1
    if (codes < 0).any():
        missing = len(labels)
        codes[codes < 0] = missing
        labels.append("Missing")
        vals_l.append(None)
    return CodedColumn(codes, tuple(labels), missing, tuple(vals_l), False)


def combine_codes(columns: Sequence[np.ndarray]) -> np.ndarray:
    """One int64 code per row for a combination of integer code columns (exact, no collision)."""
    out = np.zeros(columns[0].shape[0], dtype=np.int64)
    span = 1
    for col in columns:
        card = int(col.max()) + 1 if col.size else 1
        if span * card >= _LIMIT:
            _, out = np.unique(out, return_inverse=True)
            out = out.astype(np.int64)
            span = int(out.max()) + 1 if out.size else 1
        out = out * card + col
        span *= card
    return out


MEASURES = (
    "uio", "uis", "uisio", "repu",
    "dorig", "dsyn", "iso", "dis", "disco", "disdio", "max_denom", "mean_denom",
    "base_capd", "capd", "caps", "dcap", "tcap",
)  # fmt: skip


def implicate_measures(
    q: np.ndarray,
    t: np.ndarray,
    n_conf: int,
    *,
    keep_cell: Any,
    denom_lim: int | None,
    exclude_ov_denom_lim: bool,
) -> dict[str, float]:
    """All measures for one implicate.

    ``q`` and ``t`` are the quasi-identifier and target codes of the confidential rows followed
    by the implicate's rows. ``keep_cell(t_k, rep_rows)`` returns a boolean mask of the cells
    kept by the exclusions (rep_rows: one stacked row index holding each cell). Besides the
    measures of :func:`cell_measures` it returns each cell's target code (``cell_target``) and
    one row holding it (``cell_rep``), for :func:`~synthguard.risk._check_2way.check_2way`.
    """
    n_syn = q.size - n_conf
    n_t = int(t.max()) + 1
    cell = q * n_t + t
    ucell, first, inv = np.unique(cell, return_index=True, return_inverse=True)
    k = ucell.size
    d = np.bincount(inv[:n_conf], minlength=k)
    s = np.bincount(inv[n_conf:], minlength=k)
    tk = ucell % n_t
    _, qi = np.unique(ucell // n_t, return_inverse=True)
    keep = np.asarray(keep_cell(tk, first), dtype=bool)
    out = cell_measures(d, s, tk, qi, n_t, keep, n_conf=n_conf, n_syn=n_syn,
                        denom_lim=denom_lim, exclude_ov_denom_lim=exclude_ov_denom_lim)
    out["cell_target"] = tk  # type: ignore[assignment]
    out["cell_rep"] = first  # type: ignore[assignment]
    return out


def cell_measures(
    d: np.ndarray,
    s: np.ndarray,
    tk: np.ndarray,
    qi: np.ndarray,
    n_t: int,
    keep: np.ndarray,
    *,
    n_conf: int,
    n_syn: int,
    denom_lim: int | None,
    exclude_ov_denom_lim: bool,
) -> dict[str, float]:
    """All measures of one implicate from its cells: ``d`` and ``s`` the confidential and
    synthetic counts of each (q, t) cell (sorted by q, then t), ``tk`` its target code, ``qi``
    the index of its q (0, 1, ... in cell order), ``keep`` the cells kept by the exclusions.
    :func:`implicate_measures` builds them from the rows; :mod:`synthguard.risk._on_dask.disclosure`
    from counts made on Dask workers."""
    k = d.size
    n_q = int(qi.max()) + 1 if k else 0
    dq = np.bincount(qi, weights=d, minlength=n_q)
    sq = np.bincount(qi, weights=s, minlength=n_q)
    # synthpop's "proportion == 1": the cell holds every record of its q (and q is not empty)
    pd1 = (d == dq[qi]) & (d > 0)
    ps1 = (s == sq[qi]) & (s > 0)
    in_s = sq[qi] > 0
    anydis = np.bincount(qi, weights=ps1, minlength=n_q)[qi] > 0

    def excluded(x: np.ndarray) -> np.ndarray:
        x = np.where(keep, x, 0)
        if exclude_ov_denom_lim and denom_lim is not None:
            x = np.where(x > denom_lim, 0, x)
        return x

    # the tables of counts one at a time (only their integer sums are read, but for d, s and
    # DiSCO): memory for a few arrays of cells, however many tables
    tables = {"d": excluded(d), "s": excluded(s), "DiSCO": excluded(d * ps1)}
    for key, make in (("did", lambda: d * pd1), ("dis", lambda: s * ps1),
                      ("iS", lambda: d * in_s), ("DiS", lambda: d * anydis),
                      ("DiSDiO", lambda: d * (ps1 & pd1))):
        tables[key] = excluded(make()).sum()
    d2, s2 = tables["d"], tables["s"]
    dq2 = np.bincount(qi, weights=d2, minlength=n_q)
    sq2 = np.bincount(qi, weights=s2, minlength=n_q)
    nd = float(n_conf)
    ns = float(n_syn)
    disco = tables["DiSCO"]
    td = np.bincount(tk, weights=d, minlength=n_t)  # target margin before exclusions (synthpop)
    with np.errstate(invalid="ignore", divide="ignore"):
        pd2 = np.where(dq2[qi] > 0, d2 / dq2[qi], 0.0)
        ps2 = np.where(sq2[qi] > 0, s2 / sq2[qi], 0.0)
        tcap_den = dq2[sq2 > 0].sum()
        out = {
            "uio": np.sum(dq2 == 1) / nd,
            "uis": np.sum(sq2 == 1) / ns,
            "uisio": np.sum((dq2 == 1) & (sq > 0)) / nd,
            "repu": np.sum((dq2 == 1) & (sq2 == 1)) / nd,
            "dorig": tables["did"].sum() / nd,
            "dsyn": tables["dis"].sum() / ns,
            "iso": tables["iS"].sum() / nd,
            "dis": tables["DiS"].sum() / nd,
            "disco": disco.sum() / nd,
            "disdio": tables["DiSDiO"].sum() / nd,
            "max_denom": float(disco.max()) if k else 0.0,
            "mean_denom": float(disco[disco > 0].mean()) if (disco > 0).any() else float("nan"),
            "base_capd": float(np.sum((td / nd) ** 2)),
            "capd": float(np.sum(pd2 * d2)) / nd,
            "caps": float(np.sum(ps2 * s2)) / ns,
            "dcap": float(np.sum(ps2 * d2)) / nd,
            "tcap": float(disco.sum() / tcap_den) if tcap_den > 0 else float("nan"),
        }
    out["by_target_level"] = np.bincount(tk, weights=disco, minlength=n_t)  # type: ignore[assignment]
    out["target_margin"] = np.bincount(tk, weights=d2, minlength=n_t)  # type: ignore[assignment]
    out["disco_cells"] = disco  # type: ignore[assignment]
    return {key: (float(v) if np.ndim(v) == 0 else v) for key, v in out.items()}


def as_value_list(value: Any) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, str) or not isinstance(value, Sequence | set | frozenset | np.ndarray):
        return [value]
    return list(value)


def cont_na_for(cont_na: Mapping[str, Any] | None, column: str) -> list[Any]:
    if not cont_na or column not in cont_na:
        return []
    return [v for v in as_value_list(cont_na[column]) if not pd.isna(v)]
