"""Distance to closest record on Dask (:func:`synthguard.risk.distance_to_closest_record`,
which checks the arguments and assembles the result): exact nearest neighbours over every
pair of partitions, with the confidential data's exact scales."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd

from synthguard._dask.partitions import as_dask, as_dask_implicates
from synthguard.data import Schema
from synthguard.errors import DataError
from synthguard.risk._encoding import common_columns
from synthguard.risk.blocks import neighbours

__all__ = ["nearest_two"]


def _scale_frame(
    conf: dd.DataFrame, cols: list[str], metric: str, schema: Any
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Three rows carrying conf's exact Gower scales (min, median, max of every numeric column)
    and every column's kind, inferred by :func:`synthguard.data.infer_schema`'s rules on the
    column's exact value counts (:func:`synthguard.scale.utility.column_counts`; one entry
    per distinct value on the client, never one per record). The median is ``numpy.median``'s
    (the middle order statistic, or the mean of the two middle ones); a non-numeric column's
    rows are its smallest, middle and largest values in sorted order."""
    from synthguard._dask.counts import column_counts
    from synthguard.data.counts import order_statistic
    from synthguard.data.schema import infer_schema_from_counts

    overrides: dict[str, Any] = {}
    rows: dict[str, list[Any]] = {}
    src = None if schema is None else (schema.columns if isinstance(schema, Schema) else schema)
    for c in cols:
        (vc,) = column_counts([conf], c)
        own = None if src is None or c not in src else {c: src[c]}
        kind = infer_schema_from_counts({c: vc}, overrides=own)[c]
        overrides[c] = kind
        present = vc.present()
        if present.n == 0:
            raise DataError(f"column '{c}': no value in the confidential data")
        if kind.is_numeric and metric == "gower":
            v = present.values.to_numpy(dtype=np.float64)
            ok = np.isfinite(v)
            if not ok.any():
                raise DataError(f"column '{c}': no finite value in the confidential data")
            order = np.argsort(v[ok], kind="stable")
            x, k = v[ok][order], present.counts[ok][order]
            m = int(k.sum())
            mid = [order_statistic(x, k, (m - 1) // 2), order_statistic(x, k, m // 2)]
            med = np.mean(np.array(mid[:1] if m % 2 else mid, dtype=np.float64))  # as numpy
            rows[c] = [float(x[0]), float(med), float(x[-1])]
        else:
            n = present.n
            vals = present.values
            rows[c] = [vals.iloc[0], vals.iloc[int(np.searchsorted(
                np.cumsum(present.counts), n // 2, side="right"))], vals.iloc[-1]]
    return pd.DataFrame(rows), overrides


def nearest_two(
    conf: Any,
    synthetic: Any,
    *,
    metric: str,
    columns: Sequence[str] | None,
    schema: Schema | Mapping[str, Any] | None,
) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Every released record's distances to its two nearest confidential records
    (inf-padded), its implicate and the compared columns, for
    :func:`synthguard.risk.distance_to_closest_record` of Dask data.

    The encoding's scales come from the whole confidential data (each column's min, median
    and max, and its kind, from exact value counts), so every partition is encoded exactly as
    the pandas path encodes it. For every pair (confidential partition, released partition)
    the kernel :func:`synthguard.risk.blocks.neighbours.nearest_two` finds each released
    record's two nearest confidential records of that partition; the two smallest over all
    confidential partitions (:func:`~synthguard.risk.blocks.neighbours.merge_two`) are the
    global two nearest: exact. Distances equal the pandas ones up to floating-point rounding
    of the blocked decomposition (about 1e-15).
    """
    conf = as_dask(conf, name="conf")
    imps = as_dask_implicates(synthetic)
    cols = common_columns(conf._meta, [f._meta for f in imps], columns)
    scale, overrides = _scale_frame(conf, cols, metric, schema)
    refs = conf[cols].to_delayed()
    per_query = []
    impl_ids = []
    for li, frame in enumerate(imps):
        for q in frame[cols].to_delayed():
            pairs = [dask.delayed(neighbours.nearest_two)(scale, r, q, metric, overrides)
                     for r in refs]
            per_query.append(dask.delayed(neighbours.merge_two)(*pairs))
            impl_ids.append(li)
    results = dask.compute(*per_query)
    d = np.vstack(results) if results else np.empty((0, 2))
    impl = (
        np.concatenate([np.full(r.shape[0], li) for r, li in zip(results, impl_ids, strict=True)])
        if results
        else np.empty(0, dtype=np.int64)
    )
    return d, impl, cols
