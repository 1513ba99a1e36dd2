"""Turn a confidential frame into integer codes over a public, finite domain.

DP synthesizers work on contingency tables, so every column needs a finite list of levels
that is **public**: declared by the user (``categories=``), by a pandas Categorical dtype, or
by a schema. Levels read from the data reveal which values occur; that is allowed only with a
loud :class:`~synthguard.errors.PrivacyWarning`. Numeric columns are discretised with public
bin edges (``bins=``) or public schema bounds; without them the synthesizer refuses.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from synthguard.data.schema import Schema, infer_schema
from synthguard.errors import DataError, ParameterError, PrivacyWarning

__all__ = ["Domain", "build_domain"]


@dataclass(frozen=True)
class Domain:
    """Columns, their public levels (or bin edges), and the data as integer codes."""

    columns: tuple[str, ...]
    levels: dict[str, tuple[Any, ...]]
    edges: dict[str, np.ndarray]
    dtypes: dict[str, Any]

    @property
    def sizes(self) -> tuple[int, ...]:
        return tuple(len(self.levels[c]) for c in self.columns)

    def decode(self, codes: Mapping[str, np.ndarray], rng: np.random.Generator) -> pd.DataFrame:
        """Codes back to values; a numeric bin becomes a uniform draw inside it."""
        out: dict[str, Any] = {}
        for c in self.columns:
            k = np.asarray(codes[c], dtype=np.int64)
            if c in self.edges:
                e = self.edges[c]
                out[c] = e[k] + rng.random(k.size) * (e[k + 1] - e[k])
            else:
                lv = self.levels[c]
                vals = np.asarray(lv, dtype=object)[k]
                dtype = self.dtypes.get(c)
                if isinstance(dtype, pd.CategoricalDtype):
                    out[c] = pd.Categorical(vals, categories=dtype.categories,
                                            ordered=dtype.ordered)
                else:
                    out[c] = pd.Series(vals).infer_objects().to_numpy()
        return pd.DataFrame(out, columns=list(self.columns))


def build_domain(
    data: pd.DataFrame,
    *,
    columns: list[str] | None = None,
    categories: Mapping[str, Any] | None = None,
    bins: Mapping[str, Any] | None = None,
    schema: Schema | None = None,
    n_bins: int = 10,
    owner: str = "DP synthesizer",
) -> tuple[Domain, dict[str, np.ndarray]]:
    """Public domain and integer codes of ``data`` (see the module docstring for the rules)."""
    if not isinstance(data, pd.DataFrame) or data.empty:
        raise DataError(f"{owner}: expected a non-empty DataFrame")
    cols = list(data.columns) if columns is None else list(columns)
    missing_cols = [c for c in cols if c not in data.columns]
    if missing_cols:
        raise DataError(f"{owner}: columns not in the data: {', '.join(map(str, missing_cols))}")
    categories = dict(categories or {})
    bins = dict(bins or {})
    unknown = [c for c in (*categories, *bins) if c not in cols]
    if unknown:
        raise ParameterError(
            f"{owner}: 'categories'/'bins' name columns not synthesized: {', '.join(unknown)}"
        )
    sch = schema if schema is not None else infer_schema(data[cols])
    levels: dict[str, tuple[Any, ...]] = {}
    edges: dict[str, np.ndarray] = {}
    codes: dict[str, np.ndarray] = {}
    dtypes: dict[str, Any] = {}
    read_from_data: list[str] = []
    problems: list[str] = []
    for c in cols:
        s = data[c]
        if s.isna().any():
            problems.append(
                f"column '{c}': {int(s.isna().sum())} missing values; recode them as an "
                "explicit public level (e.g. 'missing') before DP synthesis"
            )
            continue
        dtypes[c] = s.dtype
        if c in bins:
            e = np.unique(np.asarray(bins[c], dtype=np.float64))
            if e.size < 2 or not np.all(np.isfinite(e)):
                problems.append(f"column '{c}': 'bins' needs at least two finite public edges")
                continue
            edges[c] = e
        elif c in categories:
            levels[c] = tuple(categories[c])
        elif isinstance(s.dtype, pd.CategoricalDtype):
            levels[c] = tuple(s.cat.categories)
        elif c in sch and sch[c].is_numeric:
            col = sch[c]
            if schema is None or col.lower is None or col.upper is None:
                problems.append(
                    f"column '{c}' is numeric: give public bin edges (bins={{'{c}': [...]}}) or "
                    "public lower/upper bounds in the schema; bounds are never read from the data"
                )
                continue
            edges[c] = np.linspace(float(col.lower), float(col.upper), int(n_bins) + 1)
        elif schema is not None and c in sch and sch[c].levels is not None:
            levels[c] = tuple(sch[c].levels or ())
        else:
            levels[c] = tuple(sch[c].levels or ())
            read_from_data.append(c)
        if c in edges:
            e = edges[c]
            x = pd.to_numeric(s, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
            if np.isnan(x).any():
                problems.append(
                    f"column '{c}': {int(np.isnan(x).sum())} values are not numbers but the "
                    "column has 'bins'; clean them, or give public levels instead of bins"
                )
                continue
            codes[c] = np.clip(np.searchsorted(e, x, side="right") - 1, 0, e.size - 2)
            levels[c] = tuple(range(e.size - 1))
        else:
            idx = pd.Index(levels[c]).get_indexer(s.astype(object))
            if (idx < 0).any():
                problems.append(
                    f"column '{c}': {int((idx < 0).sum())} values are not among its public levels"
                )
                continue
            codes[c] = idx.astype(np.int64)
    if problems:
        raise DataError(f"{owner}: the data cannot be put on a public domain", problems)
    if read_from_data:
        warnings.warn(
            f"{owner}: the levels of column(s) {', '.join(map(str, read_from_data))} were read "
            "from the confidential data, which reveals which values occur; declare them "
            "publicly with categories={...} or a pandas Categorical",
            PrivacyWarning,
            stacklevel=3,
        )
    return Domain(tuple(cols), levels, edges, dtypes), codes
