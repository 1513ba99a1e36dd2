"""k-way marginals of Dask data: the NIST 2018 challenge's k-way score
(:func:`synthguard.utility.kway_marginal_score`) and the workload error by marginal order
(:func:`synthguard.evaluation.workload_error.workload_error`), equal to the pandas figures bit for
bit.

Both compare tables of relative frequencies: for a set ``S`` of k columns,
``TV_S = ½ Σ_cells |p_conf(cell) - p_syn(cell)|`` (McKenna et al. 2022; the NIST PSCR 2018
challenge scored ``2 TV``), averaged over the sets drawn (the score) or over every set of each
order (the workload error) and over the implicates. A table only needs the **count of every
cell**, an exact aggregation, so:

1. **Coding** (one ``dask.compute``): each numeric column's bin edges are the confidential
   data's quantiles at ``1/n_bins, …, (n_bins-1)/n_bins`` (linear interpolation, R's type 7),
   computed *exactly* from the column's value counts: the two order statistics around each
   quantile's position ``(n - 1) q`` are read from the cumulative counts and interpolated as
   :func:`numpy.quantile` interpolates them (:func:`quantiles_from_counts`), so the edges are
   those of the pandas path, not a sketch. Tied quantiles merge bins; a missing value is a
   bin of its own. A categorical column's levels are the schema's, or (none declared) every
   value seen, in order of first appearance in the data then in each implicate (each
   partition's distinct values, in partition order); a missing value or one outside the
   levels is a cell of its own, as :func:`synthguard.utility._inputs.category_codes` codes it.
2. **Counts** (one ``dask.compute``): every partition codes its rows exactly as the pandas
   path codes the whole column, numbers each cell of every requested column set with the
   pandas path's index ``Σ code_c · Π sizes`` and counts the cells it holds; the counts of a
   data set are summed over its partitions (a tree of merges on the workers). Only tables of
   cells that occur travel to the client, never a record.
3. The client aligns the tables on the sorted cells that occur in any data set, the order in
   which the pandas path lays them out, and evaluates the same expressions: every TV, mean
   and score equals the pandas one exactly.

Random draws (which sets the k-way score uses; which sets the workload error keeps above
``max_marginals`` per order) take the same Generator calls as the pandas functions, so the
same seed gives the same sets. This reads the confidential data: an evaluation, not a DP
release.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from typing import Any

import dask
import dask.dataframe as dd
import numpy as np

from synthguard._dask.counts import counted, exact_schema, value_counts
from synthguard._dask.partitions import as_dask, as_dask_implicates
from synthguard._random import RandomState, resolve_seed
from synthguard.data import Schema
from synthguard.data.counts import quantiles_from_counts
from synthguard.errors import DataError
from synthguard.utility._inputs import numeric_counts
from synthguard.utility._on_dask.measures import columns_of as _columns
from synthguard.utility.blocks import (
    Cells,
    Coding,
    aligned,
    count_cells_of,
    distinct_values,
    in_order,
    merge_cells,
    partition_cells,
)
from synthguard.utility.marginals import (
    KWayMarginalScore,
    check_kway,
    kway_draws,
    kway_result,
)

__all__ = [
    "ORDERS",
    "inputs",
    "marginal_scores",
    "quantiles_from_counts",
    "tables",
    "workload_error",
]

ORDERS = (1, 2, 3)

# ---------------------------------------------------------------------- coding
def first_levels(frames: Sequence[dd.DataFrame], columns: Sequence[str]) -> list[list[list[Any]]]:
    """Per frame and column, the distinct non-missing values in order of first appearance
    (each partition's, in partition order): what ``pd.unique`` gives on the whole column."""
    if not columns:
        return [[] for _ in frames]
    tasks = [[dask.delayed(distinct_values)(p, list(columns)) for p in f[list(columns)].to_delayed()]
             for f in frames]
    got = dask.compute(*tasks)
    return [[in_order(p[j] for p in parts) for j in range(len(columns))] for parts in got]


def pooled_first_levels(frames: Sequence[dd.DataFrame],
                        columns: Sequence[str]) -> dict[str, list[Any]]:
    """Per column, the distinct values of all ``frames`` in order of first appearance (the
    data's first, then each implicate's): the levels the pandas functions code a column
    without declared levels by."""
    per_frame = first_levels(frames, columns)
    return {c: in_order(lv[j] for lv in per_frame) for j, c in enumerate(columns)}


def coding(conf: dd.DataFrame, imps: Sequence[dd.DataFrame], schema: Schema,
           columns: Sequence[str], n_bins: int) -> Coding:
    """The :class:`Coding` of ``columns``: exact quantile edges of the numeric ones from the
    confidential data's value counts (:func:`synthguard.scale.utility.value_counts`, shared
    with the other measures of an evaluation), levels of the categorical ones (the schema's,
    else every value seen in the data then the implicates, in order of first appearance)."""
    numeric = [c for c in columns if schema[c].is_numeric]
    free = [c for c in columns if not schema[c].is_numeric and schema[c].levels is None]
    got = value_counts([(conf, c) for c in numeric]) if numeric else []
    probs = np.linspace(0, 1, n_bins + 1)[1:-1]
    edges = {}
    for c, cnt in zip(numeric, got, strict=True):
        x, k, _ = numeric_counts(counted(cnt, conf._meta[c].dtype, c), c)
        if len(x) == 0:
            edges[c] = np.array([])
            continue
        edges[c] = np.unique(quantiles_from_counts(x, k, probs))
    levels: dict[str, list[Any]] = {
        c: list(schema[c].levels)  # type: ignore[arg-type]
        for c in columns if c not in numeric and c not in free
    }
    if free:
        levels.update(pooled_first_levels([conf, *imps], free))
    return Coding(tuple(columns), edges, levels)


# ---------------------------------------------------------------------- counts
def _tree(items: list[Any], fn: Any, width: int = 8) -> Any:
    while len(items) > 1:
        items = [dask.delayed(fn)(*items[i:i + width]) for i in range(0, len(items), width)]
    return items[0]


def count_cells(frames: Sequence[dd.DataFrame], plan: Coding | Sequence[Coding],
                sets: Sequence[tuple[str, ...]]) -> list[tuple[int, list[Cells]]]:
    """Per frame, its row count and the cell counts of every column set (one compute); one
    coding for all frames, or one per frame."""
    plans = [plan] * len(frames) if isinstance(plan, Coding) else list(plan)
    tasks = []
    for f, plan in zip(frames, plans, strict=True):
        cols = list(plan.columns)
        parts = [dask.delayed(partition_cells)(p, plan, list(sets))
                 for p in f[cols].to_delayed()]
        tasks.append(_tree(parts, merge_cells) if parts else (0, [count_cells_of(
            np.zeros(0, np.int64), 1) for _ in sets]))
    return list(dask.compute(*tasks))


# ---------------------------------------------------------------------- inputs
def inputs(conf: Any, synthetic: Any, schema: Schema | None, columns: Sequence[str] | None
           ) -> tuple[list[dd.DataFrame], Schema, list[str]]:
    """The frames (the data, then the implicates), the schema (exact, when not given) and
    the compared columns of Dask data."""
    conf = as_dask(conf, name="conf")
    imps = as_dask_implicates(synthetic)
    cols = _columns(conf, imps, columns)
    if schema is None:
        schema = exact_schema(conf)
    if columns is None:
        cols = [c for c in cols if c in schema]
    else:
        missing = [c for c in cols if c not in schema]
        if missing:
            raise DataError("columns to compare are missing",
                            [f"column '{c}' is not in the schema" for c in missing])
    if not cols:
        raise DataError(
            "no column is shared by the confidential data and every synthetic implicate; "
            "check the column names of the release"
        )
    return [conf, *imps], schema, cols


def _check_rows(counted: Sequence[tuple[int, list[Cells]]]) -> None:
    if counted[0][0] == 0:
        raise DataError("conf: the data has no rows")
    for i, (n, _) in enumerate(counted[1:]):
        if n == 0:
            raise DataError(f"synthetic: implicate {i} has no rows")


def _workload_sets(cols: list[str], orders: Iterable[int], max_marginals: int,
                   rng: np.random.Generator) -> dict[int, list[tuple[str, ...]]]:
    out = {}
    for k in orders:
        if k > len(cols):
            continue
        sets = list(itertools.combinations(cols, k))
        if len(sets) > max_marginals:
            pick = np.sort(rng.choice(len(sets), size=max_marginals, replace=False))
            sets = [sets[i] for i in pick]
        out[int(k)] = sets
    return out


# ---------------------------------------------------------------------- the measures
def _workload_result(sets: dict[int, list[tuple[str, ...]]],
                     tables: dict[tuple[str, ...], list[Cells]]) -> dict[int, float]:
    out = {}
    for k, chosen_sets in sets.items():
        tvs = []
        for chosen in chosen_sets:
            full = aligned(tables[chosen])
            p = full[0] / max(int(full[0].sum()), 1)
            tvs.append(np.mean([0.5 * np.abs(p - q / max(int(q.sum()), 1)).sum()
                                for q in full[1:]]))
        out[k] = float(np.mean(tvs))
    return out


def tables(frames: list[dd.DataFrame], schema: Schema, cols: list[str], n_bins: int,
           sets: Iterable[tuple[str, ...]]) -> dict[tuple[str, ...], list[Cells]]:
    """Every set's cell counts in the data and each implicate (one pass over the data)."""
    distinct = list(dict.fromkeys(sets))
    used = [c for c in cols if any(c in s for s in distinct)]
    plan = coding(frames[0], frames[1:], schema, used, n_bins)
    counted = count_cells(frames, plan, distinct)
    _check_rows(counted)
    return {s: [c[1][i] for c in counted] for i, s in enumerate(distinct)}


def workload_error(
    conf: Any,
    synthetic: Any,
    *,
    orders: Sequence[int] = ORDERS,
    schema: Schema | None = None,
    n_bins: int = 10,
    max_marginals: int = 500,
    random_state: RandomState = None,
) -> dict[int, float]:
    """:func:`synthguard.evaluation.workload_error.workload_error` of Dask data: for each order k,
    the mean ``TV = ½ Σ_cells |p_conf - p_syn|`` over all k-way marginals of the shared
    columns (a seeded subset of ``max_marginals`` above that many) and the implicates
    (McKenna et al. 2022), from exact cell counts: equal to the pandas result.

    Returns ``{k: mean TV}`` for the orders not above the number of shared columns.
    """
    frames, schema, cols = inputs(conf, synthetic, schema, None)
    rng, _ = resolve_seed(random_state)
    sets = _workload_sets(cols, orders, max_marginals, rng)
    if not sets:
        return {}
    counted = tables(frames, schema, cols, n_bins, [s for ss in sets.values() for s in ss])
    return _workload_result(sets, counted)


def marginal_scores(
    conf: Any,
    synthetic: Any,
    *,
    schema: Schema | None = None,
    columns: list[str] | None = None,
    k: int = 3,
    n_draws: int = 100,
    n_bins: int = 10,
    orders: Sequence[int] = ORDERS,
    max_marginals: int = 500,
    kway_random_state: RandomState = None,
    workload_random_state: RandomState = None,
) -> tuple[KWayMarginalScore | None, dict[int, float]]:
    """:func:`kway_marginal_score` (None with fewer than ``k`` columns) and
    :func:`workload_error` in one pass over the data: the sets of both are counted together.
    Each draws from its own ``random_state``, as the two functions do."""
    check_kway(k, n_draws, n_bins)
    frames, schema, cols = inputs(conf, synthetic, schema, columns)
    krng, kseed = resolve_seed(kway_random_state)
    wrng, _ = resolve_seed(workload_random_state)
    draws = kway_draws(cols, k, n_draws, krng) if k <= len(cols) else []
    sets = _workload_sets(cols, orders, max_marginals, wrng)
    counted = tables(frames, schema, cols, n_bins,
                     [*draws, *[s for ss in sets.values() for s in ss]])
    kway = kway_result(draws, counted, k, n_draws, n_bins, kseed) if draws else None
    return kway, _workload_result(sets, counted)
