"""Differentially private counts, sums, histograms and marginals of Dask data.

The exact statistic is computed by Dask (per-partition counts, summed on the client in
integers), then calibrated, charged to the ledger *once* and perturbed *once* on the client by
the same code as the pandas queries (``synthguard.dp.queries``: OpenDP's samplers for releases,
the seeded numpy path for simulation). Partitioning cannot change a count, so the counts
before noise equal the pandas counts exactly, and with the same ``random_state`` the noisy
release equals the pandas release. The privacy guarantee is the pandas query's: the
neighbouring relation and sensitivity do not depend on how the records are partitioned
(McSherry 2009's parallel composition is not used: there is one measurement).

Categories are public: they are given by the caller, never read from the data (levels read
from the data would reveal which cells are non-empty).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

import dask
import numpy as np
import pandas as pd

from synthguard._dask.partitions import as_dask
from synthguard._random import RandomState
from synthguard.dp import queries as _queries
from synthguard.dp.queries import DPResult
from synthguard.dp.sensitivity import (
    count_sensitivity,
    histogram_sensitivity,
    sum_sensitivity,
)
from synthguard.errors import DataError, ParameterError
from synthguard.risk._patterns import check_columns

__all__ = [
    "dp_count",
    "dp_histogram",
    "dp_marginal",
    "dp_sum",
    "marginal_counts",
]


def _domain(columns: Sequence[str], categories: Mapping[str, Sequence[Any]]) -> list[pd.Index]:
    lacking = [c for c in columns if c not in categories]
    if lacking:
        raise ParameterError(
            f"parameter 'categories': give the public levels of every column; lacking: {lacking}"
        )
    out = []
    for c in columns:
        idx = pd.Index(list(categories[c]))
        if idx.has_duplicates or len(idx) == 0:
            raise ParameterError(
                f"parameter 'categories': column '{c}' needs a non-empty list of distinct levels"
            )
        out.append(idx)
    return out


def _block_counts(part: pd.DataFrame, columns: list[str], levels: list[pd.Index]) -> np.ndarray:
    """Counts of one partition over the product of the public levels (C order)."""
    sizes = [len(lev) for lev in levels]
    flat = np.zeros(len(part), dtype=np.int64)
    for c, lev, k in zip(columns, levels, sizes):
        codes = lev.get_indexer(pd.Index(part[c].astype(object)))
        if (codes < 0).any():
            raise DataError(
                f"column '{c}': values outside the public 'categories' (or missing values); "
                "add the levels or recode the values (a public rule) first"
            )
        flat = flat * k + codes
    return np.bincount(flat, minlength=int(np.prod(sizes)))


def marginal_counts(
    data: Any, columns: Sequence[str], categories: Mapping[str, Sequence[Any]]
) -> np.ndarray:
    """Exact (not private) counts of ``data`` over the public levels of ``columns``, one array
    axis per column in the order given. Computed per partition and summed: a confidential
    statistic, the input of :func:`dp_marginal`."""
    cols = list(columns)
    if not cols:
        raise ParameterError("parameter 'columns': name at least one column")
    levels = _domain(cols, categories)
    frame = as_dask(data, name="data")
    check_columns(frame._meta, cols, name="data", role="marginal")
    parts = frame[cols].to_delayed()
    blocks = dask.compute(*[dask.delayed(_block_counts)(p, cols, levels) for p in parts])
    total = np.zeros(int(np.prod([len(lev) for lev in levels])), dtype=np.int64)
    for b in blocks:
        total += b
    return total.reshape([len(lev) for lev in levels])


def dp_marginal(
    data: Any,
    columns: Sequence[str],
    *,
    categories: Mapping[str, Sequence[Any]],
    epsilon: float,
    ledger: Any = None,
    label: str | None = None,
    relation: str = "add_remove",
    mechanism: str = "laplace",
    delta: float = 0.0,
    random_state: RandomState = None,
) -> DPResult:
    """DP contingency table of ``columns`` over their public levels: every cell, zeros
    included, with one noise draw per cell. One record touches one cell, so the table has the
    histogram's sensitivity (Δ₁ = Δ₂ = 1 add/remove; Δ₁ = 2, Δ₂ = √2 replace) and costs ε once
    (the course's parallel composition over cells; Dwork & Roth 2014, §3.3). The value is a
    Series indexed by the product of the levels."""
    counts = marginal_counts(data, columns, categories)
    sens = histogram_sensitivity(relation)  # type: ignore[arg-type]
    noisy, scale, src = _queries._release(
        counts.ravel().astype(float),
        sens,
        query="marginal",
        epsilon=epsilon,
        delta=delta,
        mechanism=mechanism,
        ledger=ledger,
        label=label or f"marginal {' x '.join(columns)}",
        random_state=random_state,
    )
    levels = _domain(list(columns), categories)
    if len(levels) == 1:
        index: pd.Index = levels[0]
    else:
        index = pd.MultiIndex.from_tuples(list(itertools.product(*levels)), names=list(columns))
    value = pd.Series(noisy, index=index, name="count")
    return DPResult(value, "marginal", mechanism, float(epsilon), float(delta), scale, sens, src)


def dp_histogram(
    data: Any,
    column: str,
    *,
    categories: Sequence[Any],
    epsilon: float,
    ledger: Any = None,
    label: str | None = None,
    relation: str = "add_remove",
    mechanism: str = "laplace",
    delta: float = 0.0,
    random_state: RandomState = None,
) -> DPResult:
    """DP histogram of one column (:func:`synthguard.dp.dp_histogram` on Dask): the counts of
    every public category, computed by Dask, noised once on the client."""
    res = dp_marginal(
        data,
        [column],
        categories={column: categories},
        epsilon=epsilon,
        ledger=ledger,
        label=label or "histogram",
        relation=relation,
        mechanism=mechanism,
        delta=delta,
        random_state=random_state,
    )
    value = res.value.copy()
    value.index = pd.Index(list(categories))
    return DPResult(
        value,
        "histogram",
        res.mechanism,
        res.epsilon,
        res.delta,
        res.scale,
        res.sensitivity,
        res.noise,
    )


def dp_count(
    data: Any,
    *,
    where: str | None = None,
    epsilon: float,
    ledger: Any = None,
    label: str | None = None,
    relation: str = "add_remove",
    mechanism: str = "laplace",
    delta: float = 0.0,
    random_state: RandomState = None,
) -> DPResult:
    """DP count (:func:`synthguard.dp.dp_count` on Dask): the number of rows, or of True values
    of the boolean column ``where``. Sensitivity 1; Laplace scale 1/ε."""
    frame = as_dask(data, name="data")
    if where is None:
        true = float(frame.shape[0].compute())
    else:
        check_columns(frame._meta, [where], name="data", role="boolean")
        if not pd.api.types.is_bool_dtype(frame._meta[where].dtype):
            raise ParameterError(f"parameter 'where': column '{where}' must be boolean")
        true = float(frame[where].sum().compute())
    sens = count_sensitivity(relation)  # type: ignore[arg-type]
    return _scalar(true, sens, "count", epsilon, delta, mechanism, ledger, label, random_state)


def _scalar(
    true: float,
    sens: Any,
    query: str,
    epsilon: float,
    delta: float,
    mechanism: str,
    ledger: Any,
    label: str | None,
    random_state: RandomState,
) -> DPResult:
    """One statistic computed by Dask, noised once on the client by the pandas path's
    ``_release`` (the ledger charged once)."""
    noisy, scale, src = _queries._release(
        np.array([float(true)]),
        sens,
        query=query,
        epsilon=epsilon,
        delta=delta,
        mechanism=mechanism,
        ledger=ledger,
        label=label,
        random_state=random_state,
    )
    return DPResult(
        noisy[0].item(), query, mechanism, float(epsilon), float(delta), scale, sens, src
    )


def dp_sum(
    data: Any,
    column: str,
    *,
    lower: float,
    upper: float,
    epsilon: float,
    ledger: Any = None,
    label: str | None = None,
    relation: str = "add_remove",
    mechanism: str = "laplace",
    delta: float = 0.0,
    random_state: RandomState = None,
) -> DPResult:
    """DP sum of ``column`` clipped to public bounds (:func:`synthguard.dp.dp_sum` on Dask).
    Sensitivity max(|L|, |U|) (add/remove) or U − L (replace). The clipped sum is a float
    sum in partition order, which may differ from numpy's pairwise sum in the last bits."""
    frame = as_dask(data, name="data")
    check_columns(frame._meta, [column], name="data", role="sum")
    sens = sum_sensitivity(lower, upper, relation)  # type: ignore[arg-type]
    col = frame[column].astype("float64")
    missing, total = dask.compute(col.isna().any(), col.clip(lower, upper).sum())
    if missing:
        raise DataError(
            f"column '{column}': missing values; drop or impute them (a public rule) first"
        )
    return _scalar(total, sens, "sum", epsilon, delta, mechanism, ledger, label, random_state)
