"""Column coding and nearest-neighbour search shared by the anonymeter-style attacks.

Columns are numeric when pandas says so (``select_dtypes("number")``, as anonymeter), otherwise
categorical. Every frame is coded on the same columns with shared category codes; a missing
value is NaN (numeric) or code -1 (categorical).

Distance (anonymeter's Gower-like distance, Giomi et al. 2023): for numeric columns
|a - b| / R with R the column's range over the synthetic data and the queried records
together (1 when the range is 0), for categorical columns 1 when the values differ; summed over
the columns. A missing value is 0 from another missing value and 1 from any present value
(anonymeter adds 1 for two missing values and makes a missing numeric value never match; on
complete data the two agree). Ties go to the lowest synthetic row.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from synthguard.errors import DataError

__all__ = ["Coded", "code_frames", "nearest_rows", "numeric_columns"]

_BLOCK = 4_000_000  # distance-matrix elements per chunk


def numeric_columns(frame: pd.DataFrame, columns: Sequence[str]) -> list[bool]:
    out = []
    for c in columns:
        dt = frame[c].dtype
        out.append(bool(pd.api.types.is_numeric_dtype(dt) and not pd.api.types.is_bool_dtype(dt)))
    return out


@dataclass(frozen=True)
class Coded:
    """Frames coded on the same columns; ``values[i]`` is frame i as float64 (n_i, p)."""

    columns: tuple[str, ...]
    numeric: tuple[bool, ...]
    values: list[np.ndarray]  # numeric columns as values, categorical as codes (-1 missing)
    categories: list[pd.Index | None]  # per column, the categories of the codes

    def missing(self, i: int) -> np.ndarray:
        v = self.values[i]
        out = np.isnan(v)
        cat = ~np.asarray(self.numeric)
        out[:, cat] = v[:, cat] < 0
        return out


def code_frames(frames: Sequence[pd.DataFrame], columns: Sequence[str]) -> Coded:
    """Code ``frames`` on ``columns``; column types are taken from ``frames[0]`` and must agree."""
    cols = list(columns)
    kinds = numeric_columns(frames[0], cols)
    for f in frames[1:]:
        other = numeric_columns(f, cols)
        bad = [c for c, a, b in zip(cols, kinds, other) if a != b]
        if bad:
            raise DataError(
                f"columns {bad} are numeric in one data set and not in another; give them the "
                f"same type in the confidential, synthetic and control data"
            )
    sizes = [len(f) for f in frames]
    out = [np.empty((n, len(cols)), dtype=np.float64) for n in sizes]
    cats: list[pd.Index | None] = []
    for j, (c, num) in enumerate(zip(cols, kinds)):
        if num:
            for o, f in zip(out, frames):
                o[:, j] = f[c].to_numpy(dtype=np.float64, na_value=np.nan)
            cats.append(None)
        else:
            ser = pd.concat([f[c].reset_index(drop=True).astype(object) for f in frames])
            codes, uniq = pd.factorize(ser, use_na_sentinel=True)
            start = 0
            for o, n in zip(out, sizes):
                o[:, j] = codes[start : start + n]
                start += n
            cats.append(pd.Index(uniq))
    return Coded(tuple(cols), tuple(kinds), out, cats)


def nearest_rows(
    queries: np.ndarray, candidates: np.ndarray, numeric: Sequence[bool] | np.ndarray, k: int
) -> np.ndarray:
    """Indices (m, k) of the k nearest candidate rows of each query row (see module doc)."""
    num = np.asarray(numeric, dtype=bool)
    m, n = int(queries.shape[0]), int(candidates.shape[0])
    k = min(k, n)
    both = np.vstack([queries, candidates])
    scale = np.ones(queries.shape[1])
    for jn in np.flatnonzero(num):
        col = both[:, jn]
        col = col[~np.isnan(col)]
        rng = float(col.max() - col.min()) if col.size else 0.0
        scale[jn] = rng if rng > 0 else 1.0
    q = queries / np.where(num, scale, 1.0)
    c = candidates / np.where(num, scale, 1.0)
    q_miss = np.where(num, np.isnan(q), q < 0)
    c_miss = np.where(num, np.isnan(c), c < 0)
    q0 = np.where(q_miss, 0.0, q)
    c0 = np.where(c_miss, 0.0, c)
    out = np.empty((m, k), dtype=np.int64)
    step = max(1, _BLOCK // max(n, 1))
    for s in range(0, m, step):
        e = min(m, s + step)
        d = np.zeros((e - s, n))
        for j in range(queries.shape[1]):
            qm, cm = q_miss[s:e, j][:, None], c_miss[:, j][None, :]
            if num[j]:
                part = np.abs(q0[s:e, j][:, None] - c0[:, j][None, :])
            else:
                part = (q0[s:e, j][:, None] != c0[:, j][None, :]).astype(np.float64)
            d += np.where(qm | cm, (qm != cm).astype(np.float64), part)
        if k == 1:
            out[s:e, 0] = np.argmin(d, axis=1)
        else:
            out[s:e] = np.argsort(d, axis=1, kind="stable")[:, :k]
    return out
