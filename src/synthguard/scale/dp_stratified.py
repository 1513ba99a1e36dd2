"""The stratified DP synthesizer on Dask: the full table counted per partition, noised once.

:class:`synthguard.dp.StratifiedSynthesizer` (the stratified-DP voting article, seed 003) reads
the data only through the exact count of every cell of the full contingency table of its
columns (with ``target=``: the same table, whose rows give the stratum sizes and the target's
counts within each stratum). Here every partition codes its records on the declared public
domain and counts the cells it holds; the counts are summed in integers (a tree of merges on the
workers, so only the occupied cells travel), so they equal the pandas counts exactly whatever
the partitioning. The pandas synthesizer's own ``_fit`` then charges the ledger **once** and
draws the noise **once**, on the client (OpenDP's samplers for a release; the seeded numpy path
only for simulation, as on pandas), clips and normalises. The privacy guarantee is the pandas
one: a record falls in one cell, so the table has l1 sensitivity 1 under add/remove neighbours,
whatever the partitioning (one measurement; no parallel composition over partitions is used).

The records are drawn per partition on the workers (:func:`synthguard.scale._dp_fit.sample_on_workers`).
Without ``target=`` each partition draws its rows from the normalised noisy table. With
``target=`` the stratum sizes of the whole implicate are allocated first (the true sizes when
``n`` is their total, as on pandas) and row ``i`` of the stratum-sorted implicate goes to
partition ``i mod k``: every stratum keeps its size exactly, each partition draws the target of
its rows from their strata's noisy shares and shuffles them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import dask
import numpy as np
import pandas as pd

from synthguard._dask.partitions import is_dask
from synthguard._random import RandomState
from synthguard.dp.synthesizers import stratified as _stratified
from synthguard.dp.synthesizers._base import DPSynthesizer
from synthguard.dp.synthesizers.result import DPSyntheticData
from synthguard.scale._dp_fit import (
    _Drawer,
    all_integers,
    binned_integers,
    declared_domain,
    sample_on_workers,
    settle_dtypes,
    tree_sum,
)

__all__ = ["StratifiedSynthesizer"]

#: sparse cell counts of the data seen so far: (cells, counts, binned column -> integer dtype)
_Cells = tuple[np.ndarray, np.ndarray, dict[str, bool]]


def _cell_counts(part: pd.DataFrame, build: Any, cols: list[str], sizes: tuple[int, ...]
                 ) -> _Cells:
    """The occupied cells of one partition and their exact counts (the pandas synthesizer's
    cell coding, :func:`synthguard.dp.synthesizers.stratified.cell_index`), and whether each
    binned column holds integers there (how the release decodes it)."""
    if len(part) == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), {}
    domain, codes = build(part)
    cells, counts = np.unique(_stratified.cell_index(codes, cols, sizes), return_counts=True)
    return cells.astype(np.int64), counts.astype(np.int64), binned_integers(domain)


def _merge(*blocks: _Cells) -> _Cells:
    """Sum sparse cell counts exactly (integers)."""
    cells = np.concatenate([b[0] for b in blocks])
    counts = np.concatenate([b[1] for b in blocks])
    integer = all_integers(*(b[2] for b in blocks))
    if cells.size == 0:
        return cells, counts, integer
    order = np.argsort(cells, kind="stable")
    cells, counts = cells[order], counts[order]
    start = np.flatnonzero(np.r_[True, cells[1:] != cells[:-1]])
    return cells[start], np.add.reduceat(counts, start), integer


class _StrataDrawer(_Drawer):
    """Draws partition ``j`` of ``k`` of a ``target=`` implicate: its share of every stratum
    (rows ``i ≡ j mod k`` of the implicate sorted by stratum), so each stratum keeps the size
    the pandas sampler gives it."""

    def draw_part(self, n: int, rng: np.random.Generator, total: int, j: int, k: int
                  ) -> pd.DataFrame:
        model = self._model
        if model.target is None:
            return self.draw(n, rng)
        bounds = np.concatenate([[0], np.cumsum(model._allocation(int(total)))])
        # rows i < x with i ≡ j (mod k): ceil((x - j) / k) for x >= 0 and 0 <= j < k
        upto = (bounds - j + k - 1) // k
        stratum = np.repeat(np.arange(bounds.size - 1), np.diff(upto))
        assert stratum.size == n
        return model.domain_.decode(model._codes_in_strata(stratum, rng), rng)


class StratifiedSynthesizer(_stratified.StratifiedSynthesizer):
    """The stratified DP synthesizer (:class:`synthguard.dp.StratifiedSynthesizer`) fitted on
    a Dask DataFrame: the count of every cell of the full table is made per partition and
    summed in integers (equal to the pandas counts), then the pandas synthesizer charges the
    ledger once and adds the noise once on the client. Same parameters; the domain must be
    public (``categories=``/``bins=``): levels read from the data would differ between
    partitions. With the same seed the noisy table equals the pandas one. Pandas input takes
    the pandas path.

    Examples
    --------
    >>> import dask.dataframe as dd  # doctest: +SKIP
    >>> syn = StratifiedSynthesizer(epsilon=1.0, categories=levels)  # doctest: +SKIP
    >>> release = syn.fit(dd.read_parquet("conf/")).sample()  # doctest: +SKIP
    >>> release.implicates[0].to_parquet("syn/")  # drawn and written by the workers  # doctest: +SKIP
    """

    #: rows drawn per partition by :meth:`sample` after a Dask fit
    partition_rows: int = 1_000_000
    #: what a worker needs to draw records: the normalised noisy table and the domain
    _draw_fields: ClassVar[tuple[str, ...]] = (
        "probabilities_", "sizes_", "order_", "target", "strata_sizes_", "domain_")

    def fit(self, data: Any) -> DPSynthesizer:
        self.fitted_on_dask_ = is_dask(data)
        self._counted: np.ndarray | None = None
        if not is_dask(data):
            return super().fit(data)
        build, domain, head = declared_domain(self, data, missing=self.missing)
        cols, sizes = self._layout(domain)  # public: a table too large is refused first
        # a tree of merges on the workers: only occupied cells travel
        cells, counts, integer = tree_sum(
            [dask.delayed(_cell_counts)(p, build, cols, sizes)
             for p in data[list(domain.columns)].to_delayed()], _merge)
        total = np.zeros(int(np.prod(sizes)), dtype=np.int64)
        total[cells] = counts
        self._counted = total
        try:
            super().fit(head)
        finally:
            self._counted = None
        # a binned column decodes to integers only when every partition holds integers
        self.domain_ = settle_dtypes(self.domain_, integer)
        return self

    def _table_counts(self, codes: dict[str, np.ndarray], cols: list[str],
                      sizes: tuple[int, ...]) -> np.ndarray:
        counted = getattr(self, "_counted", None)
        if counted is None:
            return super()._table_counts(codes, cols, sizes)
        return counted

    def sample(self, *, m: int = 1, n: int | None = None, random_state: RandomState = None,
               only: Mapping[str, Sequence[Any]] | None = None,
               balance: Sequence[str] | None = None,
               partition_rows: int | None = None) -> DPSyntheticData:
        """Draw ``m`` synthetic data sets of ``n`` rows (default: the noisy record count; with
        ``target=``, the true one).

        After a fit on pandas, :meth:`synthguard.dp.StratifiedSynthesizer.sample`. After a fit
        on Dask the implicates are *lazy* Dask DataFrames whose partitions of at most
        ``partition_rows`` rows (default :attr:`partition_rows`) are drawn on the workers from
        the normalised noisy table (see the module docstring for ``target=``); seeds as
        :func:`synthguard.scale._dp_fit.sample_on_workers`: the same seed, ``n`` and
        ``partition_rows`` give the same release, and with one partition the pandas release.
        Post-processing of the noisy table: no privacy is spent. ``only`` and ``balance``
        (chosen groups, balanced strata) draw on the client after a fit on Dask too: the
        noisy table is there.
        """
        if not getattr(self, "fitted_on_dask_", False) or only is not None or balance:
            return super().sample(m=m, n=n, random_state=random_state, only=only,
                                  balance=balance)
        return sample_on_workers(
            self, _StrataDrawer.of(self), m=m, n=n, random_state=random_state,
            partition_rows=self.partition_rows if partition_rows is None else partition_rows)
