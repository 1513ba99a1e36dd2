"""Shared input handling for the utility measures: implicates, schema, column selection."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from synthguard.data import Schema, as_implicates, infer_schema
from synthguard.data._backend import refuse_dask
from synthguard.data.counts import ValueCounts
from synthguard.errors import DataError, ParameterError

__all__: list[str] = []


def check_conf(conf: Any, name: str = "conf") -> pd.DataFrame:
    refuse_dask(conf, name)
    if not isinstance(conf, pd.DataFrame):
        raise DataError(f"{name}: expected a pandas DataFrame, got {type(conf).__name__}")
    if len(conf) == 0:
        raise DataError(f"{name}: the data has no rows")
    return conf


def resolve(
    conf: Any,
    synthetic: Any,
    schema: Schema | None = None,
    columns: Sequence[str] | None = None,
) -> tuple[pd.DataFrame, list[pd.DataFrame], Schema, list[str]]:
    """Check inputs; return conf, implicates, schema and the columns to compare.

    Columns default to those present in the confidential data and in every implicate
    (a partially synthetic release may drop none, a release of a subset keeps fewer).
    """
    conf = check_conf(conf)
    imps = as_implicates(synthetic)
    for i, df in enumerate(imps):
        if len(df) == 0:
            raise DataError(f"synthetic: implicate {i} has no rows")
    if schema is None:
        schema = infer_schema(conf)
    if columns is None:
        cols = [c for c in conf.columns if all(c in df.columns for df in imps)]
        cols = [c for c in cols if c in schema]
    else:
        cols = list(columns)
        problems = []
        for c in cols:
            if c not in conf.columns:
                problems.append(f"column '{c}' is not in the confidential data")
            for i, df in enumerate(imps):
                if c not in df.columns:
                    problems.append(f"column '{c}' is not in synthetic implicate {i}")
            if c not in schema:
                problems.append(f"column '{c}' is not in the schema")
        if problems:
            raise DataError("columns to compare are missing", problems)
    if not cols:
        raise DataError(
            "no column is shared by the confidential data and every synthetic implicate; "
            "check the column names of the release"
        )
    return conf, imps, schema, cols


def numeric_values(s: pd.Series, name: str) -> np.ndarray:
    """Float values of a numeric column (missing as NaN)."""
    try:
        return pd.to_numeric(s, errors="raise").to_numpy(dtype=float, na_value=np.nan)
    except (TypeError, ValueError):
        raise DataError(
            f"column '{name}': expected numbers; declare it categorical in the schema"
        ) from None


def numeric_counts(vc: ValueCounts, name: str) -> tuple[np.ndarray, np.ndarray, int]:
    """A numeric column's multiset as sorted distinct float values (missing values left out;
    values equal as floats merged), their counts and the number of missing values, converted
    as :func:`numeric_values` converts the column itself."""
    x = numeric_values(vc.values, name)
    nan = np.isnan(x)
    u, inv = np.unique(x[~nan], return_inverse=True)
    c = np.bincount(inv.ravel(), weights=vc.counts[~nan], minlength=u.size)
    return u, np.rint(c).astype(np.int64), int(vc.counts[nan].sum())


def level_counts(
    columns: Sequence[ValueCounts], levels: Sequence[Any]
) -> tuple[list[np.ndarray], int]:
    """The counts of every code of :func:`category_codes` (``levels``, then missing or
    unknown) in each column given as value counts: ``np.bincount`` of the codes, without them."""
    lv = list(levels)
    n_levels = len(lv) + 1
    index = pd.Index(lv, dtype="object")
    out = []
    for vc in columns:
        codes = index.get_indexer(vc.values.astype("object").to_numpy()).astype(np.int64)
        codes[codes < 0] = n_levels - 1
        tot = np.bincount(codes, weights=vc.counts, minlength=n_levels)
        out.append(np.rint(tot).astype(np.int64))
    return out, n_levels


def category_codes(
    series: Sequence[pd.Series], levels: Sequence[Any] | None
) -> tuple[list[np.ndarray], int, list[Any]]:
    """Integer codes 0..L-1 shared by several series; missing values get a level of their own
    (code L-1), as do values outside ``levels``. Returns codes, the number of codes ``L`` and
    the levels (``L - 1`` of them, in code order)."""
    if levels is None:
        seen: dict[Any, None] = {}
        for s in series:
            for v in pd.unique(s.dropna()):
                seen.setdefault(v.item() if isinstance(v, np.generic) else v, None)
        levels = list(seen)
    lv = list(levels)
    n_levels = len(lv) + 1  # + missing / unknown
    out = []
    index = pd.Index(lv, dtype="object")
    for s in series:
        # each distinct value looked up once: factorize (missing values kept as values), then
        # the levels' index of every distinct value, as looking up every row would give
        local, uniq = pd.factorize(s, use_na_sentinel=False)
        at = index.get_indexer(pd.Series(uniq).astype("object").to_numpy()).astype(np.int64)
        at[at < 0] = n_levels - 1
        out.append(at[local])
    return out, n_levels, lv


def check_level(level: float) -> float:
    if not 0.0 < float(level) < 1.0:
        raise ParameterError(
            "parameter 'level': expected a confidence level strictly between 0 and 1, e.g. 0.95"
        )
    return float(level)


def case_weights(df: pd.DataFrame, weights: str | None, where: str) -> np.ndarray | None:
    """Case weights of ``df`` from its column ``weights``, rescaled to mean 1 (so that a data
    set keeps its number of records as its total weight); None when ``weights`` is None or
    ``df`` lacks the column (a release without weights: every record counts once)."""
    if weights is None or weights not in df.columns:
        return None
    try:
        w = pd.to_numeric(df[weights], errors="raise").to_numpy(dtype=float, na_value=np.nan)
    except (TypeError, ValueError):
        raise DataError(f"{where}: weight column '{weights}' is not numeric") from None
    if not np.all(np.isfinite(w)) or np.any(w < 0) or not w.sum() > 0:
        raise DataError(
            f"{where}: weight column '{weights}' has missing, infinite or negative values, or "
            "sums to zero; give every record a non-negative weight"
        )
    return w * (w.size / w.sum())


def check_weights_column(conf: pd.DataFrame, weights: str | None) -> None:
    if weights is not None and weights not in conf.columns:
        raise DataError(
            f"parameter 'weights': column '{weights}' is not in the confidential data; name its "
            "sampling-weight column"
        )
