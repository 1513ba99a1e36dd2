"""Merge small levels of categorical columns before synthesis (synthpop's ``mergelevels.syn``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from synthguard.errors import DataError, ParameterError

__all__ = ["merge_levels"]

_NA = "NA"


def merge_levels(
    data: pd.DataFrame,
    columns: Sequence[str] | None = None,
    *,
    min_size: int = 10,
    new_label: bool = False,
    include_na: bool = False,
    by_hand: Mapping[str, Sequence[Any]] | None = None,
) -> pd.DataFrame:
    """Merge the levels held by fewer than ``min_size`` records (synthpop's ``mergelevels.syn``).

    Per column (default: every categorical, i.e. non-numeric, column): the levels with fewer
    than ``min_size`` records become one level ``"Other"`` (or, with ``new_label``, the merged
    levels' names joined by spaces); when that merged level still has fewer than ``min_size``
    records it is merged with the smallest remaining level (forcats' ``fct_lump_min`` then
    ``fct_lump_n``, as synthpop). With ``include_na`` missing values count as a level ``"NA"``
    and may be merged. ``by_hand={column: [new, old1, old2, ...]}`` merges the listed levels
    into ``new`` instead (synthpop's ``merge.byhand``), ignoring ``columns`` and ``min_size``.

    Rare levels are the values a release must not carry exactly (they single a record out);
    merging them before synthesis keeps their records in the model.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"job": ["a"] * 12 + ["b"] * 11 + ["c"] * 3 + ["d"] * 2})
    >>> merge_levels(df, min_size=5)["job"].value_counts().to_dict()
    {'a': 12, 'b': 11, 'Other': 5}
    """
    if isinstance(min_size, bool) or not isinstance(min_size, int) or min_size < 1:
        raise ParameterError("parameter 'min_size': expected a whole number of at least 1")
    out = data.copy()
    if by_hand is not None:
        for col, spec in by_hand.items():
            if col not in data.columns:
                raise DataError(f"merge_levels: column '{col}' in 'by_hand' is not in the data")
            spec = list(spec)
            if len(spec) < 2:
                raise ParameterError(f"parameter 'by_hand': column '{col}' needs the new level "
                                     "followed by the levels to merge into it")
            s = _as_text(out[col], include_na)
            present = set(s.dropna().unique())
            missing = [v for v in spec[1:] if str(v) not in present]
            if missing:
                raise DataError(f"merge_levels: {len(missing)} level(s) listed for column "
                                f"'{col}' in 'by_hand' are not among its levels")
            out[col] = s.replace({str(v): str(spec[0]) for v in spec[1:]})
        return out
    cols = ([c for c in data.columns if not pd.api.types.is_numeric_dtype(data[c])
             or isinstance(data[c].dtype, pd.CategoricalDtype)]
            if columns is None else list(columns))
    bad = [c for c in cols if c not in data.columns]
    if bad:
        raise DataError(f"merge_levels: column(s) {bad} are not in the data")
    for col in cols:
        s = _as_text(out[col], include_na)
        counts = s.value_counts()
        small = counts[counts < min_size]
        if small.empty:
            continue
        merged = list(small.index)
        big = counts[counts >= min_size].sort_values(ascending=False, kind="stable")
        if small.sum() < min_size and len(big) > 1:
            merged.append(big.index[-1])  # still too small: take the next lowest level too
        label = " ".join(str(v) for v in merged) if new_label else "Other"
        out[col] = s.where(~s.isin(merged), label)
    return out


def _as_text(s: pd.Series, include_na: bool) -> pd.Series:
    t = s.astype(object).where(s.notna(), None)
    t = t.map(lambda v: v if v is None else str(v))
    if include_na:
        t = t.fillna(_NA)
    return t
