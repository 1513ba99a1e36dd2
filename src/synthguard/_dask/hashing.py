"""Pattern hashes of rows' key values (no Dask needed: the pandas paths that seed a stratum
by its hash use them too, so a stratum draws the same on pandas and on Dask).

Equal key values (as :class:`~synthguard.risk._patterns.PatternEncoder` matches them) get the
same hash: numbers (of any dtype, also inside object columns) are hashed as float64 with -0.0
folded onto 0.0, other values by their ``str``, and every missing value (NaN, None, NA, NaT)
to one constant. Unequal values may share a hash (a 64-bit collision).
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["pattern_hash"]

_NA_HASH = np.uint64(0x9E3779B97F4A7C15)
_MIX = np.uint64(0x100000001B3)


def _unique_hashes(uniques: Any) -> np.ndarray:
    """Hashes of distinct non-missing values: numbers as float64, the rest by ``str``."""
    vals = list(uniques)
    is_num = np.array(
        [isinstance(v, numbers.Number) and not isinstance(v, complex) for v in vals], dtype=bool
    )
    out = np.empty(len(vals), dtype=np.uint64)
    if is_num.any():
        f = np.array([float(v) for v, b in zip(vals, is_num) if b], dtype=np.float64) + 0.0
        out[is_num] = pd.util.hash_array(f)
    if (~is_num).any():
        s = np.array([str(v) for v, b in zip(vals, is_num) if not b], dtype=object)
        out[~is_num] = pd.util.hash_array(s)
    return out


def _column_hash(s: pd.Series) -> np.ndarray:
    dtype = s.dtype
    if pd.api.types.is_bool_dtype(dtype) or (
        pd.api.types.is_numeric_dtype(dtype) and not isinstance(dtype, pd.CategoricalDtype)
    ):
        v = s.to_numpy(dtype=np.float64, na_value=np.nan) + 0.0
        miss = np.isnan(v)
        h = pd.util.hash_array(np.where(miss, 0.0, v))
        h[miss] = _NA_HASH
        return h
    codes, uniques = pd.factorize(s, use_na_sentinel=True)
    hu = _unique_hashes(uniques)
    out = np.full(len(s), _NA_HASH, dtype=np.uint64)
    ok = codes >= 0
    out[ok] = hu[codes[ok]]
    return out


def pattern_hash(frame: pd.DataFrame, keys: Sequence[str]) -> np.ndarray:
    """uint64 hash of every row's key values; equal key values give equal hashes."""
    h = np.zeros(len(frame), dtype=np.uint64)
    for k in keys:
        h = h * _MIX + _column_hash(frame[k])
    return h
