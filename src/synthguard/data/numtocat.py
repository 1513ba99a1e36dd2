"""Group numeric columns into categories before synthesis (synthpop's ``numtocat.syn``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from synthguard.errors import DataError, ParameterError

__all__ = ["NumToCat", "numtocat"]


@dataclass(frozen=True)
class NumToCat:
    """``data``: the data with the grouped columns as categorical; ``breaks`` and ``levels``
    per grouped column; ``original``: the grouped columns' original values."""

    data: pd.DataFrame
    breaks: dict[str, np.ndarray]
    levels: dict[str, list[str]]
    original: pd.DataFrame


def _label(x: float) -> str:
    return f"{x:.8g}"  # R's cut(..., dig.lab = 8)


def _breaks(x: np.ndarray, groups: int, style: str) -> np.ndarray:
    if style == "quantile":  # classInt's quantile style: R's type 7 quantiles
        return np.unique(np.quantile(x, np.linspace(0.0, 1.0, groups + 1)))
    return np.unique(np.linspace(float(x.min()), float(x.max()), groups + 1))


def numtocat(
    data: pd.DataFrame,
    columns: Sequence[str] | None = None,
    *,
    groups: int | Mapping[str, int] = 5,
    style: str = "quantile",
    cont_na: Mapping[str, Sequence[Any]] | None = None,
) -> NumToCat:
    """Replace numeric columns by groups (synthpop's ``numtocat.syn``; default every numeric
    column, ``catgroups = 5``, ``style.groups = "quantile"``).

    Breaks are the ``groups + 1`` quantiles of the non-missing values (R's type 7, as
    classInt's ``"quantile"`` style) or equal-width steps from min to max (``"equal"``), with
    ties merged; values fall into left-closed groups ``[a, b)``, the last closed ``[a, b]``
    (``cut(..., right = FALSE, include.lowest = TRUE)``). As in synthpop, a quantile grouping
    that gives two groups or fewer falls back to equal widths. Missing values stay missing;
    the codes in ``cont_na`` (e.g. -8 for "not applicable") are kept as levels of their own.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"x": [1.0, 2, 3, 4, 5, 6, 7, 8, 9, 10]})
    >>> out = numtocat(df, groups=2)
    >>> out.levels["x"], out.data["x"].tolist()[:6]
    (['[1,5.5)', '[5.5,10]'], ['[1,5.5)', '[1,5.5)', '[1,5.5)', '[1,5.5)', '[1,5.5)', '[5.5,10]'])
    """
    if style not in ("quantile", "equal"):
        raise ParameterError("parameter 'style': expected 'quantile' or 'equal'")
    cols = ([c for c in data.columns if pd.api.types.is_numeric_dtype(data[c])
             and not pd.api.types.is_bool_dtype(data[c])] if columns is None else list(columns))
    bad = [c for c in cols if c not in data.columns]
    if bad:
        raise DataError(f"numtocat: column(s) {bad} are not in the data")
    text = [c for c in cols if not pd.api.types.is_numeric_dtype(data[c])]
    if text:
        raise DataError(f"numtocat: column(s) {text} are not numeric; group numeric columns")
    per = {c: int(groups[c]) if isinstance(groups, Mapping) else int(groups) for c in cols}
    if any(g < 2 for g in per.values()):
        raise ParameterError("parameter 'groups': every column needs at least 2 groups")
    out = data.copy()
    brk: dict[str, np.ndarray] = {}
    levels: dict[str, list[str]] = {}
    for c in cols:
        x = data[c].to_numpy(dtype=np.float64, na_value=np.nan)
        special = np.asarray(list((cont_na or {}).get(c, [])), dtype=np.float64)
        ok = np.isfinite(x) & ~np.isin(x, special)
        if not ok.any():
            raise DataError(f"numtocat: column '{c}' has no value to group")
        b = _breaks(x[ok], per[c], style)
        if b.size <= 3 and style == "quantile":
            b = _breaks(x[ok], per[c], "equal")
        if b.size < 2:  # a constant column: one closed group
            b = np.array([x[ok][0], x[ok][0]])
        labels = [f"[{_label(b[i])},{_label(b[i + 1])})" for i in range(b.size - 1)]
        labels[-1] = labels[-1][:-1] + "]"
        idx = np.clip(np.searchsorted(b, x[ok], side="right") - 1, 0, b.size - 2)
        col = np.full(x.shape, None, dtype=object)
        col[ok] = np.asarray(labels, dtype=object)[idx]
        for v in special:
            col[x == v] = _label(v)
        lv = labels + [_label(v) for v in special]
        out[c] = pd.Categorical(col, categories=lv)
        brk[c] = b
        levels[c] = lv
    return NumToCat(data=out, breaks=brk, levels=levels, original=data[cols].copy())
