"""The comparison of means of Dask data: :func:`synthguard.utility.compare_statistics` with the
statistic ``"mean"`` (Hu, Savitsky & Williams, Table 4; the utility evaluation's
"statistics" table), from per-partition sums.

Each partition returns, for every numeric column, the number of its non-missing values ``n_p``,
the sum of their deviations ``r_p = Σ (x - c_p)`` from a centre ``c_p`` (its mean, rounded;
the mean is ``x̄_p = c_p + r_p/n_p``) and the sum of squared deviations from its mean
``M_p = Σ (x - x̄_p)²``. Partitions are merged pairwise with the update of Chan, Golub & LeVeque
(1979)::

    n = n_a + n_b,   δ = x̄_b - x̄_a = (c_b - c_a) + r_b/n_b - r_a/n_a,
    M = M_a + M_b + δ² n_a n_b / n,   r = r_a + r_b + n_b (c_b - c_a)   (centre c_a)

(numerically stable: no difference of two large sums of squares, and the centres keep the
rounding of a large mean out of δ), so the mean ``x̄ = c + r/n`` and the standard deviation
``s = √(M/(n-1))`` of all records follow without moving a record. The t
interval ``x̄ ± t_{n-1} s/√n``, the combination of the implicates
(:func:`synthguard.utility.combine`), the interval overlaps and the standardized difference
are then the pandas function's own code. Sums taken in another order than numpy's pairwise
sum agree with the pandas figures to floating-point rounding (relative error about 1e-15),
not bit for bit.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import dask
import dask.dataframe as dd
import numpy as np

from synthguard._dask.counts import exact_schema
from synthguard._dask.partitions import as_dask, as_dask_implicates
from synthguard.data import Schema
from synthguard.errors import DataError
from synthguard.utility._on_dask.marginals import _tree
from synthguard.utility._on_dask.measures import columns_of as _columns
from synthguard.utility.blocks import merge_moments, partition_moments
from synthguard.utility.statistics import (
    StatisticsComparison,
    compare_statistics,
    mean_interval,
)

__all__ = ["compare_means", "mean_parts", "moments"]


def moments(frames: Sequence[dd.DataFrame], columns: Sequence[str]) -> list[tuple[int, np.ndarray]]:
    """Per frame, its row count and, per column, ``(n, c, r, M)`` of all its non-missing
    values (one ``dask.compute``): mean ``c + r/n``, sum of squared deviations ``M``."""
    cols = list(columns)
    tasks = []
    for f in frames:
        parts = [dask.delayed(partition_moments)(p, cols) for p in f[cols].to_delayed()]
        tasks.append(_tree(parts, merge_moments) if parts else (0, np.zeros((len(cols), 4))))
    return list(dask.compute(*tasks))


def _stat(m: np.ndarray, level: float) -> tuple[float, float, float, float]:
    n = int(m[0])
    if n < 2:
        raise DataError("compare_statistics: a column has fewer than 2 non-missing values")
    return mean_interval(float(m[1] + m[2] / n), np.sqrt(m[3] / (n - 1)), n, level)


def mean_parts(
    conf: Any,
    synthetic: Any,
    *,
    columns: Sequence[str] | None,
    schema: Schema | None,
    level: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str], int, int]:
    """Per numeric column of Dask data, the confidential mean's (estimate, se, lower, upper)
    with the t interval ``x̄ ± t_{n-1} s/√n``, each implicate's mean and its variance
    (implicates x columns), the columns and the record counts, for
    :func:`synthguard.utility.compare_statistics` of the statistic ``"mean"``, from
    per-partition sums (see the module notes)."""
    conf = as_dask(conf, name="conf")
    imps = as_dask_implicates(synthetic)
    shared = _columns(conf, imps, None)
    if schema is None:
        schema = exact_schema(conf)
    shared = [c for c in shared if c in schema]
    num = list(columns) if columns is not None else schema.subset(shared).numeric()
    for c in num:
        if c not in shared or not schema[c].is_numeric:
            raise DataError(f"column '{c}': not a numeric column shared by conf and synthetic")
    if not num:
        raise DataError("compare_statistics: nothing to compare; give statistics and columns")
    got = moments([conf, *imps], num)
    if got[0][0] == 0:
        raise DataError("conf: the data has no rows")
    for i, (n, _) in enumerate(got[1:]):
        if n == 0:
            raise DataError(f"synthetic: implicate {i} has no rows")
    conf_arr = np.array([_stat(got[0][1][j], level) for j in range(len(num))], dtype=float)
    syn = [[_stat(m[1][j], level) for m in got[1:]] for j in range(len(num))]
    q = np.column_stack([np.array([s[0] for s in per]) for per in syn])
    v = np.column_stack([np.array([s[1] ** 2 for s in per]) for per in syn])
    return conf_arr, q, v, num, got[0][0], int(np.mean([m[0] for m in got[1:]]))


def compare_means(
    conf: Any,
    synthetic: Any,
    *,
    columns: Sequence[str] | None = None,
    schema: Schema | None = None,
    method: str = "partial",
    level: float = 0.95,
) -> StatisticsComparison:
    """:func:`synthguard.utility.compare_statistics` of the statistic ``"mean"`` (the
    evaluation's comparison of means; Dask or pandas frames)."""
    return compare_statistics(conf, synthetic, ("mean",), columns=columns, schema=schema,
                              method=method, level=level)  # type: ignore[arg-type]
