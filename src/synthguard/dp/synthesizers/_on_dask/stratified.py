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

The records are drawn per partition on the workers
(:func:`synthguard.dp.synthesizers._on_dask.common.sample_on_workers`).
Without ``target=`` each partition draws its rows from the normalised noisy table. With
``target=`` the stratum sizes of the whole implicate are allocated first (the true sizes when
``n`` is their total, as on pandas) and row ``i`` of the stratum-sorted implicate goes to
partition ``i mod k``: every stratum keeps its size exactly, each partition draws the target of
its rows from their strata's noisy shares and shuffles them.
"""

from __future__ import annotations

from typing import Any

import dask
import numpy as np
import pandas as pd

from synthguard.dp.synthesizers._on_dask.common import (
    _Drawer,
    all_integers,
    binned_integers,
    declared_domain,
    settle_dtypes,
    tree_sum,
)

__all__ = ["StrataDrawer", "fit_stratified"]

#: sparse cell counts of the data seen so far: (cells, counts, binned column -> integer dtype)
_Cells = tuple[np.ndarray, np.ndarray, dict[str, bool]]


def _cell_counts(part: pd.DataFrame, build: Any, cols: list[str], sizes: tuple[int, ...]
                 ) -> _Cells:
    """The occupied cells of one partition and their exact counts (the pandas synthesizer's
    cell coding, :func:`synthguard.dp.synthesizers.stratified.cell_index`), and whether each
    binned column holds integers there (how the release decodes it)."""
    from synthguard.dp.synthesizers.stratified import cell_index

    if len(part) == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), {}
    domain, codes = build(part)
    cells, counts = np.unique(cell_index(codes, cols, sizes), return_counts=True)
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


class StrataDrawer(_Drawer):
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


def fit_stratified(model: Any, data: Any) -> Any:
    """Fit ``model`` (a StratifiedSynthesizer) on the Dask frame ``data``."""
    build, domain, head = declared_domain(model, data, missing=model.missing)
    cols, sizes = model._layout(domain)  # public: a table too large is refused first
    # a tree of merges on the workers: only occupied cells travel
    cells, counts, integer = tree_sum(
        [dask.delayed(_cell_counts)(p, build, cols, sizes)
         for p in data[list(domain.columns)].to_delayed()], _merge)
    total = np.zeros(int(np.prod(sizes)), dtype=np.int64)
    total[cells] = counts
    model._dask_cells = total
    try:
        model.fit(head)
    finally:
        model._dask_cells = None
    # a binned column decodes to integers only when every partition holds integers
    model.domain_ = settle_dtypes(model.domain_, integer)
    model.fitted_on_dask_ = True
    return model
