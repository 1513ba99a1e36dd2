"""Exact value counts of Dask columns, one entry per distinct value on the client.

Every column-wise measure (univariate statistics, ECDF distances, the schema, the scales of
the distances) depends on a column only through the multiset of its values. Dask computes
the column's value counts (an exact aggregation, missing values included); the client holds
them as :class:`~synthguard.data.counts.ValueCounts`, never one entry per record.
Within :func:`shared_value_counts` the counts are kept and reused, so an evaluation counts
each column of each data set once.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping, Sequence
from contextvars import ContextVar
from typing import Any

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd

from synthguard.data.counts import ValueCounts
from synthguard.data.schema import Schema, infer_schema_from_counts
from synthguard.errors import ParameterError

__all__ = [
    "column_counts",
    "counted",
    "exact_schema",
    "series_counts",
    "series_value_counts",
    "shared_value_counts",
    "value_counts",
    "value_sorted",
]


def counted(counts: pd.Series, dtype: Any, name: str) -> ValueCounts:
    """A column's :class:`~synthguard.data.counts.ValueCounts` from the value counts Dask
    computed (missing values included), its distinct values in the column's dtype (as the
    pandas function would see them), sorted with missing values last: one entry per distinct
    value, never one per record."""
    counts = counts[counts > 0]
    try:
        counts = counts.sort_index(na_position="last")
    except TypeError:  # mixed types: keep Dask's order (the multiset is what matters)
        pass
    values = counts.index.to_numpy(dtype=object)
    if isinstance(dtype, pd.CategoricalDtype) and dtype.categories is not None:
        ser = pd.Series(pd.Categorical(values, dtype=dtype), name=name)
    else:
        try:
            ser = pd.Series(values, name=name).astype(dtype)
        except (TypeError, ValueError):
            ser = pd.Series(values, name=name)
    return ValueCounts(ser, counts.to_numpy(dtype=np.int64))


def column_counts(frames: Sequence[dd.DataFrame], column: str) -> list[ValueCounts]:
    """Column ``column`` of every frame as its :class:`~synthguard.data.counts.ValueCounts`,
    from value counts computed by Dask (one ``dask.compute`` for all frames;
    :func:`value_counts`)."""
    counts = value_counts([(f, column) for f in frames])
    return [counted(c, f._meta[column].dtype, column) for c, f in zip(counts, frames, strict=True)]


#: value counts kept by :func:`shared_value_counts`: key -> counts, and the entries left
_SHARED: ContextVar[dict[str, Any] | None] = ContextVar("synthguard_value_counts", default=None)
#: at most this many (value, count) entries are kept in all (about 16 bytes each, plus the
#: values); the counts of a column beyond it are computed again when asked for again
SHARED_ENTRIES = 5_000_000


def _count_key(frame: dd.DataFrame, column: str) -> str:
    """The same key for the same column of the same data, however it was selected
    (``conf[column]`` and ``conf[common][column]`` read the same values)."""
    return str(frame[column].expr.simplify()._name)


@contextlib.contextmanager
def shared_value_counts() -> Iterator[None]:
    """Within the block, the exact value counts :func:`value_counts` computes (for
    :func:`value_sorted`, :func:`exact_schema`, :func:`univariate`, :func:`ecdf_utility` and
    the distance's scales) are kept and reused, up to :data:`SHARED_ENTRIES` entries: an
    evaluation counts each column of each data set once instead of once per measure."""
    token = _SHARED.set({"room": SHARED_ENTRIES, "counts": {}})
    try:
        yield
    finally:
        _SHARED.reset(token)


def value_counts(pairs: Sequence[tuple[dd.DataFrame, str]]) -> list[pd.Series]:
    """Exact value counts (missing values included) of column ``c`` of frame ``f`` for every
    pair ``(f, c)``, all in one ``dask.compute``; within :func:`shared_value_counts` the
    counts already computed are reused and the new ones kept."""
    return series_value_counts([f[c] for f, c in pairs])


def series_value_counts(series: Sequence[dd.Series]) -> list[pd.Series]:
    """:func:`value_counts` of Dask Series (the same counts are shared for ``frame[column]``
    however the series was selected)."""
    shared = _SHARED.get()
    keys = [str(s.expr.simplify()._name) for s in series] if shared is not None else []
    known = shared["counts"] if shared is not None else {}
    todo = [i for i in range(len(series)) if not keys or keys[i] not in known]
    got = dask.compute(*[series[i].value_counts(dropna=False) for i in todo]) if todo else ()
    out: list[Any] = [None] * len(series)
    for i, cnt in zip(todo, got, strict=True):
        out[i] = cnt
        if shared is not None and len(cnt) <= shared["room"]:
            known[keys[i]] = cnt
            shared["room"] -= len(cnt)
    for i in range(len(series)):
        if out[i] is None:
            out[i] = known[keys[i]]
    return out


def series_counts(series: Sequence[dd.Series]) -> list[ValueCounts]:
    """Every Dask Series as its :class:`~synthguard.data.counts.ValueCounts` (one
    ``dask.compute``; :func:`series_value_counts`)."""
    counts = series_value_counts(series)
    return [counted(c, s._meta.dtype, str(s.name)) for c, s in zip(counts, series, strict=True)]


def value_sorted(frames: Sequence[dd.DataFrame], column: str) -> list[pd.Series]:
    """Column ``column`` of every frame as a pandas Series of its values in sorted order,
    from value counts computed by Dask (one ``dask.compute`` for all frames;
    :func:`value_counts`). This builds one entry per record (O(n) memory on the client): the
    measures use :func:`column_counts` instead."""
    return [vc.expand() for vc in column_counts(frames, column)]


def exact_schema(conf: dd.DataFrame, overrides: Mapping[str, Any] | None = None) -> Schema:
    """Each column's kind inferred from the column's whole multiset of values, as
    :func:`synthguard.data.infer_schema` infers it on the pandas frame: the same rules
    (:func:`synthguard.data.schema.infer_schema_from_counts`) on exact value counts computed
    by Dask, one entry per distinct value on the client."""
    src = dict(overrides or {})
    unknown = [c for c in src if c not in conf.columns]
    if unknown:
        raise ParameterError(f"schema names column(s) {', '.join(map(str, unknown))} that are "
                             f"not in the data; check the names")
    cols = list(conf.columns)
    counts = value_counts([(conf, c) for c in cols])
    out = {}
    for c, cnt in zip(cols, counts, strict=True):  # one column's distinct values at a time
        vc = counted(cnt, conf._meta[c].dtype, c)
        out[c] = infer_schema_from_counts({c: vc}, overrides={c: src[c]} if c in src else None)[c]
    return Schema(columns=out)
