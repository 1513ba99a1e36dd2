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
from typing import Any, ClassVar

import dask
import numpy as np
import pandas as pd

from synthguard._dask.partitions import as_dask, is_dask
from synthguard._random import RandomState
from synthguard.dp import queries as _queries
from synthguard.dp.queries import DPResult
from synthguard.dp.sensitivity import (
    count_sensitivity,
    histogram_sensitivity,
    sum_sensitivity,
)
from synthguard.dp.synthesizers import mst as _mst
from synthguard.dp.synthesizers._base import DPSynthesizer
from synthguard.dp.synthesizers.result import DPSyntheticData
from synthguard.errors import DataError, ParameterError
from synthguard.risk._patterns import check_columns
from synthguard.scale._dp_fit import (
    _Drawer,
    domain_builder,
    refuse_data_levels,
    sample_on_workers,
)

__all__ = [
    "MSTSynthesizer",
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


def _pair_tables(
    part: pd.DataFrame, build: Any, cols: list[str], sizes: dict[str, int]
) -> dict[tuple[str, ...], np.ndarray]:
    """Exact 1-way and 2-way counts of one partition, coded by the public domain."""
    if len(part) == 0:
        return {}
    _, codes = build(part)
    out: dict[tuple[str, ...], np.ndarray] = {}
    for c in cols:
        out[(c,)] = np.bincount(codes[c], minlength=sizes[c])
    for a, b in itertools.combinations(cols, 2):
        flat = codes[a].astype(np.int64) * sizes[b] + codes[b]
        out[(a, b)] = np.bincount(flat, minlength=sizes[a] * sizes[b])
    return out


class MSTSynthesizer(_mst.MSTSynthesizer):
    """MST (McKenna, Miklau & Sheldon 2021) fitted on a Dask DataFrame: every 1- and 2-way
    marginal it can read is counted by Dask in one pass (per partition, summed in integers on
    the client), then :class:`synthguard.dp.MSTSynthesizer` measures, selects and estimates
    exactly as on pandas (noise drawn once on the client, the ledger charged once). Same
    parameters; the domain must be public (``categories=``/``bins=``): a domain read from the
    data would differ between partitions. With the same seed the release equals the pandas
    release. Pandas input takes the pandas path.
    """

    #: rows drawn per partition by :meth:`sample` after a Dask fit
    partition_rows: int = 1_000_000
    #: what a worker needs to draw records (:class:`_Drawer`)
    _draw_fields: ClassVar[tuple[str, ...]] = ("_tree", "_cond", "mapping_", "domain_")

    def fit(self, data: Any) -> DPSynthesizer:
        self.fitted_on_dask_ = is_dask(data)
        if not is_dask(data):
            self._tables = None
            return super().fit(data)
        refuse_data_levels(self)

        build = domain_builder(self)
        head = data.head(100, npartitions=-1)
        domain, _ = build(head)
        cols = list(domain.columns)
        sizes = dict(zip(cols, domain.sizes))
        parts = data[cols].to_delayed()
        blocks = dask.compute(*[dask.delayed(_pair_tables)(p, build, cols, sizes) for p in parts])
        tables: dict[tuple[str, ...], np.ndarray] = {}
        for block in blocks:
            for key, counts in block.items():
                tables[key] = tables[key] + counts if key in tables else counts
        self._tables = tables
        try:
            return super().fit(head)
        finally:
            self._tables = None

    def sample(self, *, m: int = 1, n: int | None = None, random_state: RandomState = None,
               partition_rows: int | None = None) -> DPSyntheticData:
        """Draw ``m`` synthetic data sets of ``n`` rows (default: the noisy record count).

        After a fit on pandas, :meth:`synthguard.dp.MSTSynthesizer.sample`. After a fit on Dask
        the implicates are *lazy* Dask DataFrames: each partition of at most ``partition_rows``
        rows (default :attr:`partition_rows`, one million) is drawn on a worker from the fitted
        model (the tree's conditional tables, a few kilobytes sent with each task), so the
        client never holds the records; ``to_parquet`` then writes them from the workers.
        Post-processing of the noisy measurements: no privacy is spent.

        Seeds: implicate ``i`` draws from child ``i`` of ``SeedSequence(seed).spawn(m)`` as on
        pandas; with ``k > 1`` partitions, partition ``j`` draws from that child's
        ``spawn(k)[j]`` (rows split as ``numpy.array_split``). The same seed, ``n`` and
        ``partition_rows`` give the same release; with one partition it is the pandas release.
        """
        if not getattr(self, "fitted_on_dask_", False):
            return super().sample(m=m, n=n, random_state=random_state)
        return sample_on_workers(
            self, _Drawer.of(self), m=m, n=n, random_state=random_state,
            partition_rows=self.partition_rows if partition_rows is None else partition_rows)

    def _counts(
        self, codes: dict[str, np.ndarray], cols: tuple[str, ...], sizes: tuple[int, ...]
    ) -> np.ndarray:
        tables = getattr(self, "_tables", None)
        if tables is None:
            return super()._counts(codes, cols, sizes)
        if cols in tables:
            return tables[cols]
        a, b = cols  # the other order of a counted pair
        return tables[(b, a)].reshape(sizes[1], sizes[0]).T.ravel()
