"""Top and bottom coding on Dask (:func:`synthguard.sdc.topcode`, :func:`~synthguard.sdc.bottomcode`).

With a public threshold (``at=``) the coding acts record by record: every partition is
censored by the pandas function itself, so the release equals the pandas release row for row,
in the input's order. With ``percentile=`` the threshold is first computed exactly on the
workers: each partition keeps its non-missing values sorted, order statistics are found by
bisection (:func:`synthguard._dask.summary.exact_quantiles`) and numpy's linear
interpolation applied, so it equals ``numpy.percentile`` of all values. ``replacement="mean"``
(the mean of the censored values, a statistic of all partitions) is refused.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any, cast

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd

from synthguard._dask.partitions import as_dask
from synthguard._dask.summary import exact_quantiles, order_keys
from synthguard.errors import ParameterError
from synthguard.sdc.result import ProtectedData

__all__ = ["censored", "censored_frame"]


def _sorted_keys(s: pd.Series) -> np.ndarray:
    x = s.to_numpy(dtype=np.float64, na_value=np.nan)
    return np.sort(order_keys(x[~np.isnan(x)]))


def _percentile(data: dd.DataFrame, column: str, percentile: float, pandas_fn: Callable[..., Any]
                ) -> float:
    """``numpy.percentile`` of the column's non-missing values (linear interpolation, as the
    pandas path), exactly, with the values left on the workers."""
    if isinstance(percentile, bool) or not isinstance(percentile, numbers.Real):
        raise ParameterError("parameter 'percentile': expected a number in (0, 100)")
    if not 0 < float(percentile) < 100:
        raise ParameterError("parameter 'percentile': expected a number in (0, 100)")
    pandas_fn(data._meta_nonempty, column, at=0.0)  # the pandas checks (a numeric column)
    keys = list(dask.persist(*[dask.delayed(_sorted_keys)(p) for p in data[column].to_delayed()]))
    n = int(sum(dask.compute(*[dask.delayed(len)(k) for k in keys])))
    if n == 0:
        raise ParameterError(
            f"parameter 'percentile': column '{column}' has no non-missing value"
        )
    q = float(percentile) / 100  # as numpy.percentile divides
    return exact_quantiles(keys, n, [q])[q]


def censored_frame(
    pandas_fn: Callable[..., Any],
    data: Any,
    column: str,
    at: float | None,
    percentile: float | None,
    replacement: str,
) -> tuple[dd.DataFrame, float]:
    """The coded Dask frame (``pandas_fn``, the pandas topcode or bottomcode, on every
    partition) and the threshold used."""
    if replacement != "threshold":
        raise ParameterError(
            "parameter 'replacement': only 'threshold' is available on Dask (the mean of the "
            "censored values is a statistic of all partitions)"
        )
    data = as_dask(data, name="data")
    if column not in data.columns:
        pandas_fn(data._meta_nonempty, column, at=0.0)  # raises the pandas DataError
    if (at is None) == (percentile is None):
        raise ParameterError(
            f"{pandas_fn.__name__}: give exactly one of parameters 'at' (a threshold) or "
            f"'percentile'"
        )
    if percentile is not None:
        at = _percentile(data, column, percentile, pandas_fn)
    threshold = float(at)  # type: ignore[arg-type]
    meta = pandas_fn(data._meta_nonempty, column, at=threshold).data.iloc[:0]

    def code(part: pd.DataFrame) -> pd.DataFrame:
        return pandas_fn(part, column, at=threshold).data if len(part) else part

    return data.map_partitions(code, meta=meta), threshold


def censored(
    pandas_fn: Callable[..., Any],
    data: Any,
    column: str,
    at: float | None,
    percentile: float | None,
    replacement: str,
    *,
    upper: bool,
) -> ProtectedData:
    """The :class:`~synthguard.sdc.result.ProtectedData` of a Dask frame: ``data`` and
    ``changes`` are Dask frames; the counts in ``params`` are computed in one pass."""
    out, threshold = censored_frame(pandas_fn, data, column, at, percentile, replacement)
    data = as_dask(data, name="data")
    x = data[column].astype("float64")
    observed = ~x.isna()
    hit = observed & ((x > threshold) if upper else (x < threshold))
    n_hit, n_obs = (int(v) for v in dask.compute(hit.sum(), observed.sum()))

    def changed(part: pd.DataFrame) -> pd.DataFrame:
        v = part[column].to_numpy(dtype=np.float64, na_value=np.nan)
        with np.errstate(invalid="ignore"):
            h = (v > threshold) if upper else (v < threshold)
        mask = pd.DataFrame(False, index=part.index, columns=part.columns)
        mask[column] = h & ~np.isnan(v)
        return mask

    meta = pd.DataFrame({c: pd.Series(dtype=bool) for c in data.columns})
    params: dict[str, Any] = {
        "column": column,
        "at": at,
        "percentile": percentile,
        "replacement": replacement,
        "threshold": threshold,
        "n_censored": n_hit,
        "share_censored": n_hit / n_obs if n_obs else 0.0,
    }
    return ProtectedData(  # Dask frames, with the pandas frames' interface
        data=cast(pd.DataFrame, out),
        changes=cast(pd.DataFrame, data.map_partitions(changed, meta=meta)),
        method="topcode" if upper else "bottomcode", params=params,
        confidential=("threshold",) if percentile is not None else (),
    )
