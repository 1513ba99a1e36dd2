"""Columns to numbers and back, for the per-variable method contract.

The sequential synthesizer holds every column of a block of records as one numpy
array in its *working form*:

* categorical, ordinal and binary columns: integer codes into the schema's levels,
  ``-1`` for a missing value (int8 up to 127 levels, to save memory on large files);
* numeric and count columns: float64 values, ``NaN`` for a missing value.

From the working form it builds

* the **design matrix** of predictors (:func:`design_matrix`): numeric predictors as they
  are, categorical predictors as 0/1 dummies with the first level dropped (treatment
  coding), no intercept. The layout depends only on the schema (its levels and whether a
  column has missing values), never on the rows at hand, so the confidential design (used
  to fit) and the synthetic design (used to draw) have the same columns. A missing
  categorical predictor is one more dummy; a missing numeric predictor becomes 0 plus a 0/1
  missingness indicator column (the "missing indicator" method, as in synthpop's handling
  of missing predictors);
* **targets** (:func:`target_codes`): float64 values for numbers, int64 codes
  ``0..K-1`` for levels, with a missing category coded ``K`` when the column has missing
  values (synthpop synthesizes a missing category like a level).

:func:`to_working` and :func:`from_working` convert a pandas column to the working form and
back to the column's original dtype (a pandas Categorical stays Categorical with its
categories; text stays text; integer counts stay integers).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd

from synthguard.data.schema import ColumnSchema, Kind

__all__ = [
    "codes_from_target",
    "design_kinds",
    "design_matrix",
    "design_width",
    "from_working",
    "n_target_levels",
    "postprocess_numeric",
    "target_codes",
    "to_working",
]


def to_working(s: pd.Series, col: ColumnSchema) -> np.ndarray:
    """The working form of column ``s``: integer codes (-1 missing; the smallest signed type
    that holds them) or float64 (NaN missing)."""
    if col.is_categorical:
        levels = list(col.levels or ())
        code_type = np.min_scalar_type(-(len(levels) + 1))  # int8 for up to 127 levels
        if isinstance(s.dtype, pd.CategoricalDtype):
            if list(s.cat.categories) == levels:
                return s.cat.codes.to_numpy(dtype=code_type)
            return np.asarray(pd.Categorical(s, categories=levels).codes, dtype=code_type)
        # the codes pd.Categorical(s, categories=levels) gives (a value not among the levels
        # and a missing value: -1), looked up once per distinct value instead of per record
        # (about 3x faster on text columns)
        codes, uniques = pd.factorize(s)
        lookup = np.append(pd.CategoricalDtype(levels).categories.get_indexer_for(uniques), -1)
        return lookup[codes].astype(code_type)
    if pd.api.types.is_numeric_dtype(s.dtype) and not isinstance(s.dtype, pd.CategoricalDtype):
        return s.to_numpy(dtype=np.float64, na_value=np.nan)
    return pd.to_numeric(s.astype("object"), errors="coerce").to_numpy(
        dtype=np.float64, na_value=np.nan
    )


def from_working(values: np.ndarray, col: ColumnSchema, dtype: Any, index: pd.Index) -> pd.Series:
    """Turn working-form ``values`` back into a Series of the original ``dtype``.

    A numeric Series may share memory with ``values`` (copy it before modifying ``values``).

    Categorical columns: codes map to the schema's levels (``-1`` to missing), so no level is
    ever invented. Numbers keep an integer dtype when the original had one and nothing is
    missing; otherwise float64.
    """
    name = col.name
    if col.is_categorical:
        codes = np.asarray(values, dtype=np.int64)
        levels = list(col.levels or ())
        if isinstance(dtype, pd.CategoricalDtype):
            if list(dtype.categories) == levels:
                cat = pd.Categorical.from_codes(codes, dtype=dtype)
                return pd.Series(cat, index=index, name=name)
            cat = pd.Categorical.from_codes(codes, categories=pd.Index(levels))
            return pd.Series(cat, index=index, name=name).astype(dtype)
        lv = np.empty(len(levels) + 1, dtype=object)
        lv[: len(levels)] = levels
        lv[-1] = None
        obj = lv[codes]  # code -1 picks the trailing None
        s = pd.Series(obj, index=index, name=name)
        missing = codes < 0
        if missing.any():
            if pd.api.types.is_bool_dtype(dtype) or pd.api.types.is_integer_dtype(dtype):
                if pd.api.types.is_extension_array_dtype(dtype):
                    return s.astype(dtype)
                return s.astype(np.float64 if not pd.api.types.is_bool_dtype(dtype) else object)
        try:
            return s.astype(dtype)
        except (TypeError, ValueError):  # pragma: no cover - exotic dtypes
            return s
    # copy=False: the Series wraps ``values`` (a DataFrame built from Series copies them
    # anyway), so converting an implicate does not hold every column twice
    vals = np.asarray(values, dtype=np.float64)
    if pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype):
        if pd.api.types.is_integer_dtype(dtype):
            if pd.api.types.is_extension_array_dtype(dtype):
                return pd.Series(vals, index=index, name=name).astype(dtype)
            if not np.isnan(vals).any():
                return pd.Series(vals.astype(dtype), index=index, name=name, copy=False)
            return pd.Series(vals, index=index, name=name, copy=False)
        return pd.Series(vals, index=index, name=name, copy=False).astype(dtype)
    return pd.Series(vals, index=index, name=name, copy=False)


def postprocess_numeric(values: np.ndarray, col: ColumnSchema) -> np.ndarray:
    """Round counts to integers and clip numbers to the schema's public bounds (in place)."""
    if col.kind is Kind.COUNT:
        np.round(values, out=values)
    if col.lower is not None or col.upper is not None:
        lo = -np.inf if col.lower is None else col.lower
        hi = np.inf if col.upper is None else col.upper
        np.clip(values, lo, hi, out=values)
        if col.kind is Kind.COUNT:
            # a fractional bound must not break integrality
            if col.lower is not None:
                values[values < col.lower] = np.ceil(col.lower)
            if col.upper is not None:
                values[values > col.upper] = np.floor(col.upper)
            np.round(values, out=values)
    return values


def n_target_levels(col: ColumnSchema) -> int:
    """Number of target codes of a categorical column: its levels, plus one when it has missing
    values (the missing category)."""
    return len(col.levels or ()) + (1 if col.has_missing else 0)


def target_codes(values: np.ndarray, col: ColumnSchema) -> np.ndarray:
    """Target ``y`` of the method contract from working-form ``values``.

    Categorical: int64 codes ``0..K-1``, the missing category coded ``K = len(levels)``.
    Numeric: the float64 values unchanged (the synthesizer removes missing rows first).
    """
    if col.is_categorical:
        y = np.asarray(values, dtype=np.int64).copy()
        y[y < 0] = len(col.levels or ())
        return y
    return np.asarray(values, dtype=np.float64)


def codes_from_target(y: np.ndarray, col: ColumnSchema) -> np.ndarray:
    """Inverse of :func:`target_codes` for categorical columns: code ``K`` becomes -1 (missing).
    Codes come back in the working form's integer type (as :func:`to_working`)."""
    k = len(col.levels or ())
    codes = np.asarray(y).astype(np.min_scalar_type(-(k + 1)))
    codes[np.asarray(y) >= k] = -1
    return codes


def _block_width(col: ColumnSchema, layout: str = "dummies") -> int:
    if col.is_categorical and layout == "codes":
        return 1
    if col.is_categorical:
        return max(len(col.levels or ()) - 1, 0) + (1 if col.has_missing else 0)
    return 1 + (1 if col.has_missing else 0)


def design_width(
    columns: Sequence[str], schema: Mapping[str, ColumnSchema], layout: str = "dummies"
) -> int:
    """Number of design columns the predictors ``columns`` encode to."""
    return sum(_block_width(schema[c], layout) for c in columns)


def design_kinds(
    columns: Sequence[str], schema: Mapping[str, ColumnSchema], layout: str = "codes"
) -> list[str]:
    """Kind of each design column: ``"nominal"`` (categorical and binary codes),
    ``"ordinal"`` (ordinal codes) or ``"numeric"`` (numbers, missingness indicators, dummies)."""
    out: list[str] = []
    for c in columns:
        col = schema[c]
        if col.is_categorical and layout == "codes":
            out.append("ordinal" if col.kind is Kind.ORDINAL else "nominal")
        else:
            out.extend(["numeric"] * _block_width(col, layout))
    return out


def design_matrix(
    arrays: Mapping[str, np.ndarray],
    columns: Sequence[str],
    schema: Mapping[str, ColumnSchema],
    rows: np.ndarray | None = None,
    dtype: Any = np.float64,
    order: Literal["C", "F"] = "F",
    layout: str = "dummies",
) -> np.ndarray:
    """The design matrix (n x p, no intercept) of the predictors ``columns``.

    ``layout="codes"`` (for methods that split on levels, ``cart``): each categorical
    predictor is one column of its codes ``0..L-1``, a missing value coded ``L`` (a level of
    its own, after the last: for an ordinal predictor, after the highest).

    ``arrays`` maps column names to working-form arrays; ``rows`` (optional) selects rows.
    The matrix is filled column by column into one preallocated array, so encoding costs one
    n x p allocation and temporaries of one column at most. The matrix is float64 (the
    method contract) in Fortran (column-major) order: filling it column by column is then
    contiguous, and so is a tree learner's per-feature access (about 5x faster to build and
    15x faster to convert to scikit-learn's float32 than C order at 1M x 23). A method
    declaring the class attribute ``design_dtype = numpy.float32`` (tree methods, whose
    learners work in float32) gets a float32 matrix and so avoids a float64 copy.
    """
    first = arrays[columns[0]] if columns else None
    if rows is not None:
        n = len(rows)
    elif first is not None:
        n = len(first)
    else:
        n = 0
    X = np.zeros((n, design_width(columns, schema, layout)), dtype=dtype, order=order)
    j = 0
    for c in columns:
        col = schema[c]
        a = arrays[c] if rows is None else arrays[c][rows]
        if col.is_categorical and layout == "codes":
            X[:, j] = a
            if col.has_missing:
                X[a < 0, j] = len(col.levels or ())
            j += 1
        elif col.is_categorical:
            k = len(col.levels or ())
            # level l (l >= 1) -> design column j + l - 1; missing -> j + k - 1. One
            # comparison per level: its only temporary is one boolean column.
            for level in range(1, k):
                X[:, j + level - 1] = a == level
            if col.has_missing:
                X[:, j + k - 1] = a < 0
            j += _block_width(col)
        elif col.has_missing:
            miss = np.isnan(a)
            X[:, j] = np.where(miss, 0.0, a)
            X[:, j + 1] = miss
            j += 2
        else:
            X[:, j] = a
            j += 1
    return X
