"""Turn a confidential frame into integer codes over a public, finite domain.

DP synthesizers work on contingency tables, so every column needs a finite list of levels
that is **public**, declared by the user: ``categories=`` (levels) or ``bins=`` (edges of a
numeric column). Nothing read from the data counts as a declaration: not a pandas Categorical
dtype (``read_parquet`` and Stata value labels make one from the file), not a schema
(``infer_schema(df)`` lists the levels that occur), not the values themselves — a level held by
one record would otherwise appear in the domain and, through the noisy table's mass on it, in
the release. A column without a declaration is refused.

**Missing values of a numeric column** (``missing=[column, ...]``): a binned column named
there gets one more public cell after its last bin, K = number of bins, holding its missing
values; it is in the domain whether or not the data hold a missing value (so the domain stays
public), and :meth:`Domain.decode` writes it back as a missing value. A missing value in any
other column is refused (a categorical column's missing values are made a declared level
first: ``synthguard dp synthesize --missing-level``).

``domain_from_data="not-dp"`` reads the undeclared levels from the data anyway (Categorical
categories, the schema's levels and bounds, or the distinct values); the release is then **not
differentially private**: :attr:`Domain.dp` is False, the ledger lines and the result say so.

Error messages name columns and never a count or a value of the confidential data (a count of
values outside the declared levels would release that count for free).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from synthguard._params import require_columns
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
    read_from_data: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()

    @property
    def dp(self) -> bool:
        """True when every level and edge was declared public (the release can be DP)."""
        return not self.read_from_data

    @property
    def sizes(self) -> tuple[int, ...]:
        return tuple(len(self.levels[c]) for c in self.columns)

    def decode(self, codes: Mapping[str, np.ndarray], rng: np.random.Generator) -> pd.DataFrame:
        """Codes back to values; a numeric bin becomes a uniform draw inside it.

        Bins are left-closed, [e_k, e_{k+1}), the last one closed. A column whose data were
        integers gets a uniform draw among the integers of its bin, ⌈e_k⌉ … ⌈e_{k+1}⌉ − 1
        (the last bin up to ⌊e_K⌋), so an integer column stays integer (no age 34.576); a bin
        holding no integer gives its midpoint rounded. The missing cell of a column in
        ``missing`` (code K) becomes a missing value (an integer column is then pandas'
        nullable ``Int64``). Post-processing of the public edges.
        """
        out: dict[str, Any] = {}
        for c in self.columns:
            k = np.asarray(codes[c], dtype=np.int64)
            if c in self.edges:
                e = self.edges[c]
                dtype = self.dtypes.get(c)
                gone = k >= e.size - 1  # the missing cell (columns in ``missing``)
                kk = np.where(gone, 0, k)
                if dtype is not None and pd.api.types.is_integer_dtype(dtype):
                    ints = _integer_draw(e, kk, rng)
                    if c in self.missing:
                        arr = pd.array(ints, dtype="Int64")
                        arr[gone] = pd.NA
                        out[c] = arr
                    else:
                        out[c] = ints
                else:
                    out[c] = np.where(gone, np.nan, e[kk] + rng.random(k.size) * (e[kk + 1]
                                                                                 - e[kk]))
            else:
                lv = self.levels[c]
                vals = np.asarray(lv, dtype=object)[k]
                dtype = self.dtypes.get(c)
                if isinstance(dtype, pd.CategoricalDtype):
                    # the domain's levels, never the data dtype's categories (they may hold
                    # undeclared levels of the confidential file)
                    out[c] = pd.Categorical(vals, categories=pd.Index(lv),
                                            ordered=dtype.ordered)
                else:
                    out[c] = pd.Series(vals).infer_objects().to_numpy()
        return pd.DataFrame(out, columns=list(self.columns))


def _integer_draw(edges: np.ndarray, k: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniform integer inside bin ``k`` of ``edges`` (see :meth:`Domain.decode`)."""
    lo = np.ceil(edges[:-1])
    hi = np.ceil(edges[1:]) - 1.0
    hi[-1] = np.floor(edges[-1])  # the last bin is closed
    empty = hi < lo
    mid = np.round((edges[:-1] + edges[1:]) / 2.0)
    lo, hi = np.where(empty, mid, lo), np.where(empty, mid, hi)
    draw = lo[k] + np.floor(rng.random(k.size) * (hi[k] - lo[k] + 1.0))
    return np.minimum(draw, hi[k]).astype(np.int64)


NOT_DP = "not-dp"


def build_domain(
    data: pd.DataFrame,
    *,
    columns: list[str] | None = None,
    categories: Mapping[str, Any] | None = None,
    bins: Mapping[str, Any] | None = None,
    schema: Schema | None = None,
    n_bins: int = 10,
    domain_from_data: str | None = None,
    owner: str = "DP synthesizer",
    missing: Any = None,
) -> tuple[Domain, dict[str, np.ndarray]]:
    """Public domain and integer codes of ``data`` (see the module docstring for the rules)."""
    if not isinstance(data, pd.DataFrame) or data.empty:
        raise DataError(f"{owner}: expected a non-empty DataFrame")
    if domain_from_data not in (None, NOT_DP):
        raise ParameterError(
            f"{owner}: parameter 'domain_from_data': expected None (levels declared with "
            f"categories=/bins=) or '{NOT_DP}' (read them from the data; the release is not DP)"
        )
    from_data = domain_from_data == NOT_DP
    cols = list(data.columns) if columns is None else list(columns)
    require_columns(data, cols, "columns", where=f"the data given to {owner}", error=DataError)
    categories = dict(categories or {})
    bins = dict(bins or {})
    unknown = [c for c in (*categories, *bins) if c not in cols]
    if unknown:
        raise ParameterError(
            f"{owner}: 'categories'/'bins' name columns not synthesized: {', '.join(unknown)}"
        )
    missing_cols = tuple(dict.fromkeys(
        [missing] if isinstance(missing, str) else list(missing or ())))
    not_binned = [str(c) for c in missing_cols if c not in bins]
    if not_binned:
        raise ParameterError(
            f"{owner}: parameter 'missing' names column(s) without public bins: "
            f"{', '.join(not_binned)}; it adds a missing cell to a binned numeric column (a "
            "categorical column's missing values are made one of its declared levels)")
    undeclared = [c for c in cols if c not in categories and c not in bins]
    if undeclared and not from_data:
        raise ParameterError(
            f"{owner}: no public levels declared for column(s) {', '.join(map(str, undeclared))}"
            "; declare them with categories={column: [levels]} or bins={column: [edges]} (a "
            "pandas Categorical dtype, a file's value labels or a schema inferred from the data "
            f"are not a declaration), or pass domain_from_data='{NOT_DP}' to read them from the "
            "data, which makes the release NOT differentially private"
        )
    sch = schema if schema is not None else infer_schema(data[undeclared]) if undeclared else None
    levels: dict[str, tuple[Any, ...]] = {}
    edges: dict[str, np.ndarray] = {}
    codes: dict[str, np.ndarray] = {}
    dtypes: dict[str, Any] = {}
    read_from_data: list[str] = []
    problems: list[str] = []
    for c in cols:
        s = data[c]
        if s.isna().any() and c not in missing_cols:
            problems.append(
                f"column '{c}': has missing values; give it a public missing cell after its "
                f"last bin (missing=['{c}'])" if c in bins else
                f"column '{c}': has missing values; recode them as an explicit public level "
                "(e.g. 'missing') before DP synthesis"
            )
            continue
        dtypes[c] = s.dtype
        if c in missing_cols and pd.api.types.is_float_dtype(s.dtype):
            # integers read with missing values come back as floats: keep them integers
            finite = s.dropna().to_numpy(dtype=np.float64)
            if finite.size and np.all(np.isfinite(finite)) and np.all(finite == np.round(finite)):
                dtypes[c] = pd.Int64Dtype()
        if c in bins:
            e = np.unique(np.asarray(bins[c], dtype=np.float64))
            if e.size < 2 or not np.all(np.isfinite(e)):
                problems.append(f"column '{c}': 'bins' needs at least two finite public edges")
                continue
            edges[c] = e
        elif c in categories:
            levels[c] = tuple(categories[c])
            if len(set(levels[c])) != len(levels[c]) or not levels[c]:
                problems.append(f"column '{c}': 'categories' needs distinct public levels")
                continue
        else:  # domain_from_data='not-dp': read from the data
            read_from_data.append(c)
            col = sch[c] if sch is not None and c in sch else None
            if isinstance(s.dtype, pd.CategoricalDtype):
                levels[c] = tuple(s.cat.categories)
            elif col is not None and col.is_numeric:
                if col.lower is None or col.upper is None:
                    problems.append(
                        f"column '{c}' is numeric: give public bin edges (bins={{'{c}': [...]}})"
                        " or lower/upper bounds in the schema"
                    )
                    continue
                edges[c] = np.linspace(float(col.lower), float(col.upper), int(n_bins) + 1)
            elif col is not None and col.levels is not None:
                levels[c] = tuple(col.levels)
            else:
                levels[c] = tuple(pd.unique(s.astype(object)))
        if c in edges:
            e = edges[c]
            x = pd.to_numeric(s, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
            gone = s.isna().to_numpy()
            if np.isnan(x[~gone]).any():
                problems.append(
                    f"column '{c}': holds values that are not numbers but the column has 'bins'; "
                    "clean them, or give public levels instead of bins"
                )
                continue
            codes[c] = np.clip(np.searchsorted(e, np.where(gone, e[0], x), side="right") - 1,
                               0, e.size - 2)
            if c in missing_cols:  # one more public cell, K, for the missing values
                codes[c][gone] = e.size - 1
            levels[c] = tuple(range(e.size - 1 + (c in missing_cols)))
        else:
            idx = pd.Index(levels[c]).get_indexer(s.astype(object))
            if (idx < 0).any():
                problems.append(
                    f"column '{c}': holds values outside its declared public levels; add the "
                    "levels to the declaration or recode the values (a public rule) first"
                )
                continue
            codes[c] = idx.astype(np.int64)
    if problems:
        raise DataError(f"{owner}: the data cannot be put on a public domain", problems)
    if read_from_data:
        warnings.warn(
            f"{owner}: domain_from_data='{NOT_DP}': the levels or bounds of column(s) "
            f"{', '.join(map(str, read_from_data))} were read from the confidential data; "
            "the release is NOT differentially private (the ledger and the result say so)",
            PrivacyWarning,
            stacklevel=3,
        )
    return Domain(tuple(cols), levels, edges, dtypes, tuple(read_from_data),
                  tuple(c for c in missing_cols if c in cols)), codes
