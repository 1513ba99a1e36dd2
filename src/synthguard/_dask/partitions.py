"""Partition plumbing shared by the Dask measures: inputs as Dask frames, global row numbers,
pattern hashes and the shuffle that brings every pattern's rows into one partition.

Exactness rests on one property: rows whose key values are equal (as the pandas path's
:class:`~synthguard.risk._patterns.PatternEncoder` matches them) get the same hash, so after a
hash shuffle every pattern lies whole in one partition, in every data set shuffled the same way.
Unequal values may share a hash (a collision only puts two patterns in the same partition,
where the block algorithm tells them apart again), so the hash only needs to be *coarser* than
equality: numbers (of any dtype, also inside object columns) are hashed as float64 with -0.0
folded onto 0.0, other values by their ``str``, and every missing value (NaN, None, NA, NaT) to
one constant.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd

from synthguard._dask import HASH, ROW
from synthguard._dask.hashing import pattern_hash
from synthguard.data import as_implicates
from synthguard.errors import DataError

__all__ = [
    "HASH",
    "ROW",
    "as_dask",
    "as_dask_implicates",
    "collect_rows",
    "is_dask",
    "pattern_hash",
    "shuffle_by_keys",
    "with_row_numbers",
]

def is_dask(obj: Any) -> bool:
    """Whether ``obj`` is a Dask DataFrame."""
    return isinstance(obj, dd.DataFrame)


def as_dask(frame: Any, *, name: str, npartitions: int = 1) -> dd.DataFrame:
    """A Dask DataFrame (pandas frames are wrapped in ``npartitions`` partitions)."""
    if is_dask(frame):
        return frame
    if isinstance(frame, pd.DataFrame):
        return dd.from_pandas(frame, npartitions=max(1, min(npartitions, len(frame) or 1)))
    raise DataError(
        f"{name}: expected a pandas or Dask DataFrame, got {type(frame).__name__}; read the "
        "data with dask.dataframe.read_parquet or pass a DataFrame"
    )


def as_dask_implicates(release: Any, *, name: str = "synthetic") -> list[dd.DataFrame]:
    """The implicates of a release as Dask DataFrames: a Dask frame, a list of (pandas or Dask)
    frames, or anything :func:`synthguard.data.as_implicates` accepts."""
    if is_dask(release):
        return [release]
    items = getattr(release, "implicates", release)
    if isinstance(items, list | tuple) and items and all(is_dask(f) for f in items):
        return list(items)
    if isinstance(items, list | tuple) and any(is_dask(f) for f in items):
        return [as_dask(f, name=f"{name} implicate {i}") for i, f in enumerate(items)]
    return [as_dask(f, name=name) for f in as_implicates(release, name=name)]


def _add_rows(df: pd.DataFrame, start: int) -> pd.DataFrame:
    out = df.copy(deep=False)
    out[ROW] = np.arange(start, start + len(df), dtype=np.int64)
    return out


def with_row_numbers(frame: dd.DataFrame) -> tuple[dd.DataFrame, int]:
    """``frame`` with a column of global row numbers 0..n-1 (its row order across partitions)
    and n. Costs one pass over the (already projected) columns to learn partition lengths.

    The partitions are fixed first (``to_delayed``: those of the optimized graph) and both the
    lengths and the numbering read those: dask-expr may fuse a projected Parquet read into
    fewer partitions in one graph than in another (``map_partitions(len)`` of four files read
    as two), which numbered rows past the lengths learned."""
    parts = frame.to_delayed()
    lengths = np.asarray(dask.compute(*[dask.delayed(len)(p) for p in parts]), dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    meta = frame._meta.assign(**{ROW: np.zeros(0, dtype=np.int64)})
    out = dd.from_delayed([dask.delayed(_add_rows)(p, int(o))
                           for p, o in zip(parts, offsets[:-1], strict=True)],
                          meta=meta, verify_meta=False)
    return out, int(offsets[-1])


def _add_hash(df: pd.DataFrame, keys: tuple[str, ...]) -> pd.DataFrame:
    out = df.copy(deep=False)
    out[HASH] = pattern_hash(df, keys)
    return out


def shuffle_by_keys(frame: dd.DataFrame, keys: Sequence[str], npartitions: int) -> dd.DataFrame:
    """Hash-shuffle ``frame`` so that all rows with equal key values share a partition; two
    frames shuffled with the same ``npartitions`` put a pattern in the same partition number.
    Without keys everything goes to one partition (one pattern)."""
    if not keys:
        return frame.repartition(npartitions=1)
    meta = frame._meta.assign(**{HASH: np.zeros(0, dtype=np.uint64)})
    hashed = frame.map_partitions(_add_hash, tuple(keys), meta=meta)
    return hashed.shuffle(on=HASH, npartitions=npartitions)


def collect_rows(result: pd.DataFrame, n: int) -> tuple[pd.DataFrame, np.ndarray]:
    """Put per-row results (with the row-number column) back into row order 0..n-1; returns
    the ordered frame and checks that every row came back once."""
    rows = result[ROW].to_numpy(dtype=np.int64)
    ok = rows.shape[0] == n and (n == 0 or (rows.min() >= 0 and rows.max() < n))
    if ok and n:
        ok = bool((np.bincount(rows, minlength=n) == 1).all())
    if not ok:
        raise DataError(
            "the partitioned computation lost or duplicated rows; the input changed while it "
            "was read (re-run it on data that does not change)"
        )
    order = np.empty(n, dtype=np.int64)
    order[rows] = np.arange(n, dtype=np.int64)
    return result.iloc[order], order
