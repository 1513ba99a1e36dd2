"""Numeric encodings under which tree metrics give the record distances we want.

Every data set is encoded on the same columns with scales taken from one *scale* data set
(the confidential data), as two parts:

* ``num``: numeric columns, scaled (gower: ``x / (p R_j)`` with R_j the column's range, so L1
  over them is Gower's numeric part; euclidean: standardized by mean and standard deviation);
* ``cat``: categorical columns as integer codes shared by all data sets (missing is a level).

The distance between records a and b, with p columns and m(a, b) categorical mismatches:

* ``gower`` (Gower 1971): ``(1/p) [sum_numeric |a_j - b_j| / R_j + m(a, b)]``;
* ``euclidean``: ``sqrt(sum_numeric z-differences^2 + m(a, b))`` (a categorical mismatch counts
  as a one-hot pair at 1/sqrt(2));
* ``hamming``: share of the p columns that differ; numeric columns are then compared exactly
  and treated as codes;
* ``cosine``: ``1 - cos(a, b)`` of the euclidean encoding's vectors (standardized numerics,
  one-hot categoricals at 1/sqrt(2)): the angle between records, blind to their length (the
  course lists it among the distances for DCR). Two all-zero vectors are at distance 0, one
  against another at 1.

A categorical column with more than :data:`MAX_LEVELS` levels is refused for the gower and
euclidean metrics: the nearest-neighbour search one-hot encodes it, and a 10,000-level column
made a KD-tree over 10,000 dimensions (over 15 minutes and 4.6 GB). Group its levels, leave it
out with ``columns=``, or use ``metric="hamming"`` (codes, no one-hot).

A missing numeric value is placed at the column median and flagged in an extra indicator column
weighted as one full mismatch, so missing vs present always adds a mismatch. Columns whose range
(or standard deviation) is 0 get scale 1.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from synthguard.data import Schema, infer_schema
from synthguard.data._backend import refuse_dask
from synthguard.errors import DataError, ParameterError

__all__ = ["MAX_LEVELS", "METRICS", "Encoded", "common_columns", "encode_frames", "onehot"]

METRICS = ("gower", "euclidean", "hamming", "cosine")

#: Most levels a categorical column may have under the one-hot (gower, euclidean) encodings.
MAX_LEVELS = 1000


@dataclass(frozen=True)
class Encoded:
    """Encoded data sets (same order as given)."""

    num: list[np.ndarray]  # float64 (n_i, dn)
    cat: list[np.ndarray]  # int64 (n_i, dc)
    cards: list[int]  # levels of each categorical column (over all data sets)
    p: int  # number of original columns
    metric: str
    columns: tuple[str, ...]

    @property
    def mismatch_weight(self) -> float:
        """Contribution of one categorical mismatch before the metric's combination."""
        return 1.0 / self.p if self.metric in ("gower", "hamming") else 1.0


def check_metric(metric: str) -> str:
    if metric not in METRICS:
        raise ParameterError(
            "parameter 'metric': expected 'gower', 'euclidean', 'hamming' or 'cosine'")
    return metric


def common_columns(
    reference: pd.DataFrame, others: Sequence[pd.DataFrame], columns: Sequence[str] | None
) -> list[str]:
    if columns is None:
        cols = [c for c in reference.columns if all(c in f.columns for f in others)]
    else:
        cols = list(columns)
        missing = [c for c in cols if c not in reference.columns or any(c not in f for f in others)]
        if missing:
            raise DataError(
                f"columns {missing} are not in every data set; pass columns present in all"
            )
    if not cols:
        raise DataError("the data sets share no column; pass 'columns' to compare")
    return cols


def encode_frames(
    frames: Sequence[pd.DataFrame],
    *,
    metric: str,
    columns: Sequence[str] | None = None,
    schema: Schema | Mapping[str, Any] | None = None,
) -> Encoded:
    """Encode ``frames`` on their common columns; scales come from ``frames[0]``."""
    check_metric(metric)
    for f in frames:
        refuse_dask(f, "data")
    scale_frame = frames[0]
    cols = common_columns(scale_frame, frames[1:], columns)
    overrides = None
    if schema is not None:
        src = schema.columns if isinstance(schema, Schema) else schema
        overrides = {c: v for c, v in src.items() if c in cols}
    sch = infer_schema(scale_frame[cols], overrides=overrides)
    p = len(cols)
    sizes = [len(f) for f in frames]
    splits = np.cumsum(sizes)[:-1]
    num: list[list[np.ndarray]] = [[] for _ in frames]
    cat: list[list[np.ndarray]] = [[] for _ in frames]
    cards: list[int] = []
    wide: list[str] = []
    for c in cols:
        if sch[c].is_numeric and metric != "hamming":
            vals = [f[c].to_numpy(dtype=np.float64, na_value=np.nan) for f in frames]
            ref = vals[0]
            finite = ref[np.isfinite(ref)]
            if finite.size == 0:
                raise DataError(f"column '{c}': no finite value in the confidential data")
            if metric == "gower":
                spread = float(finite.max() - finite.min())
                scale = 1.0 / ((spread if spread > 0 else 1.0) * p)
                centre = float(finite.min())
                flag = 1.0 / p
            else:
                sd = float(finite.std())
                scale = 1.0 / (sd if sd > 0 else 1.0)
                centre = float(finite.mean())
                flag = 1.0
            med = float(np.median(finite))
            has_missing = any(bool((~np.isfinite(v)).any()) for v in vals)
            for b, v in zip(num, vals):
                miss = ~np.isfinite(v)
                b.append((np.where(miss, med, v) - centre) * scale)
                if has_missing:
                    b.append(miss * flag)
        else:
            ser = pd.concat([f[c].reset_index(drop=True).astype(object) for f in frames])
            codes = np.asarray(pd.factorize(ser, use_na_sentinel=False)[0], dtype=np.int64)
            cards.append(int(codes.max()) + 1 if codes.size else 1)
            if metric != "hamming" and cards[-1] > MAX_LEVELS:
                wide.append(str(c))
            for b, part in zip(cat, np.split(codes, splits)):
                b.append(part)
    if wide:
        raise DataError(
            f"column(s) {', '.join(wide)}: more than {MAX_LEVELS} levels, too many for record "
            f"distances under metric '{metric}' (each level becomes a dimension); group the "
            "levels, leave the column out with columns=, or use metric='hamming'"
        )
    return Encoded(
        num=[_stack(b, n, np.float64) for b, n in zip(num, sizes)],
        cat=[_stack(b, n, np.int64) for b, n in zip(cat, sizes)],
        cards=cards,
        p=p,
        metric=metric,
        columns=tuple(cols),
    )


def _stack(cols: list[np.ndarray], n: int, dtype: type) -> np.ndarray:
    if not cols:
        return np.empty((n, 0), dtype=dtype)
    return np.ascontiguousarray(np.column_stack(cols).astype(dtype, copy=False))


def onehot(codes: np.ndarray, cards: Sequence[int], height: float) -> np.ndarray:
    """One-hot blocks of the given height for each column of ``codes``."""
    n = codes.shape[0]
    out = np.zeros((n, int(sum(cards))))
    off = 0
    for j, k in enumerate(cards):
        out[np.arange(n), off + codes[:, j]] = height
        off += k
    return out
