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
from dataclasses import dataclass, field
from typing import Any

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd

from synthguard._dask.counts import counted, exact_schema, value_counts
from synthguard._dask.partitions import as_dask, as_dask_implicates
from synthguard._random import RandomState, resolve_seed
from synthguard.data import Schema
from synthguard.data.counts import quantiles_from_counts
from synthguard.errors import DataError, ParameterError
from synthguard.utility._inputs import category_codes, numeric_counts, numeric_values
from synthguard.utility._on_dask.measures import columns_of as _columns
from synthguard.utility.marginals import KWayMarginalScore

__all__ = [
    "ORDERS",
    "kway_marginal_score_dask",
    "marginal_scores",
    "quantiles_from_counts",
    "workload_error",
]

ORDERS = (1, 2, 3)

#: Fewest partition rows for which counting cells by ``np.unique`` (a sort) replaces
#: ``np.bincount`` over a domain of this many cells or more.
_BINCOUNT_CELLS = 1 << 20
#: Most cells of dense tables a partition keeps to sum smaller sets from (8 bytes each).
_DENSE_KEPT = 1 << 24

Cells = tuple[np.ndarray, np.ndarray]  # sorted cell indices, their counts


# ---------------------------------------------------------------------- coding
@dataclass(frozen=True, eq=False)
class Coding:
    """How each compared column becomes integer codes ``0 .. sizes[c] - 1``: bin edges of a
    numeric column (the last code: missing), levels of a categorical one (the last code:
    missing or unknown)."""

    columns: tuple[str, ...]
    edges: dict[str, np.ndarray] = field(default_factory=dict)
    levels: dict[str, list[Any]] = field(default_factory=dict)

    def size(self, column: str) -> int:
        if column in self.edges:
            return int(self.edges[column].size) + 2
        return len(self.levels[column]) + 1

    def codes(self, part: pd.DataFrame, column: str) -> np.ndarray:
        """The codes of one partition's column, as the pandas path codes the whole column
        (:func:`synthguard.utility.marginals._bin_codes`, ``category_codes``)."""
        if column in self.edges:
            v = numeric_values(part[column], column)
            code = np.searchsorted(self.edges[column], v, side="right").astype(np.int64)
            code[np.isnan(v)] = self.size(column) - 1
            return code
        return category_codes([part[column]], self.levels[column])[0][0]


def _distinct(part: pd.DataFrame, columns: Sequence[str]) -> list[list[Any]]:
    """Each column's distinct non-missing values in order of first appearance."""
    out = []
    for c in columns:
        vals = pd.unique(part[c].dropna())
        out.append([v.item() if isinstance(v, np.generic) else v for v in vals])
    return out


def first_levels(frames: Sequence[dd.DataFrame], columns: Sequence[str]) -> list[list[list[Any]]]:
    """Per frame and column, the distinct non-missing values in order of first appearance
    (each partition's, in partition order): what ``pd.unique`` gives on the whole column."""
    if not columns:
        return [[] for _ in frames]
    tasks = [[dask.delayed(_distinct)(p, list(columns)) for p in f[list(columns)].to_delayed()]
             for f in frames]
    got = dask.compute(*tasks)
    return [[_in_order(p[j] for p in parts) for j in range(len(columns))] for parts in got]


def _in_order(lists: Any) -> list[Any]:
    """The distinct values of ``lists`` in order of first appearance."""
    seen: dict[Any, None] = {}
    for values in lists:
        for v in values:
            seen.setdefault(v, None)
    return list(seen)


def pooled_first_levels(frames: Sequence[dd.DataFrame],
                        columns: Sequence[str]) -> dict[str, list[Any]]:
    """Per column, the distinct values of all ``frames`` in order of first appearance (the
    data's first, then each implicate's): the levels the pandas functions code a column
    without declared levels by."""
    per_frame = first_levels(frames, columns)
    return {c: _in_order(lv[j] for lv in per_frame) for j, c in enumerate(columns)}


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
def _cell_index(codes: dict[str, np.ndarray], sizes: dict[str, int], chosen: Sequence[str],
                n: int) -> np.ndarray:
    """The pandas path's joint cell index ``((c_1 · s_2 + c_2) · s_3 + c_3) …``."""
    idx = np.zeros(n, dtype=np.int64)
    for c in chosen:
        idx = idx * sizes[c] + codes[c]
    return idx


def _count(idx: np.ndarray, domain: int | None) -> Cells:
    if domain is not None and domain <= max(_BINCOUNT_CELLS, 2 * idx.size):
        bc = np.bincount(idx, minlength=domain)
        nz = np.flatnonzero(bc)
        return nz.astype(np.int64), bc[nz].astype(np.int64)
    cells, cnt = np.unique(idx, return_counts=True)
    return cells.astype(np.int64), cnt.astype(np.int64)


def _domain(sizes: dict[str, int], chosen: Sequence[str]) -> int | None:
    d = 1
    for c in chosen:
        d *= sizes[c]
    return d if d < 2**62 else None  # a larger product wraps the int64 index: sort instead


def _margin(dense: np.ndarray, over: Sequence[str], sizes: dict[str, int],
            chosen: Sequence[str]) -> Cells:
    """The cells of ``chosen`` summed from the dense counts of the set ``over`` ⊇ ``chosen``
    (its index in ``over``'s order): integer sums, the table counting would give."""
    table = dense.reshape([sizes[c] for c in over])
    drop = tuple(i for i, c in enumerate(over) if c not in chosen)
    kept = [c for c in over if c in chosen]
    table = table.sum(axis=drop) if drop else table
    flat = np.transpose(table, [kept.index(c) for c in chosen]).ravel()
    nz = np.flatnonzero(flat)
    return nz.astype(np.int64), flat[nz].astype(np.int64)


def partition_cells(part: pd.DataFrame, plan: Coding,
                    sets: Sequence[tuple[str, ...]]) -> tuple[int, list[Cells]]:
    """One partition's row count and, for every column set, its cells and their counts.

    A set with a requested superset whose cells fit a dense table (at most
    ``_BINCOUNT_CELLS``; at most ``_DENSE_KEPT`` cells kept in all) is summed from that table
    instead of counted from the rows again: the 1- and 2-way tables of a workload come from
    its 3-way tables, exactly."""
    n = len(part)
    used = sorted({c for s in sets for c in s}, key=plan.columns.index)
    codes = {c: plan.codes(part, c) for c in used}
    sizes = {c: plan.size(c) for c in used}
    dense: dict[tuple[str, ...], np.ndarray] = {}
    room = _DENSE_KEPT
    out: list[Cells | None] = [None] * len(sets)
    for i in sorted(range(len(sets)), key=lambda i: -len(sets[i])):  # supersets first
        chosen = sets[i]
        over = next((d for d in dense if len(d) > len(chosen) and set(chosen) <= set(d)), None)
        if over is not None:
            out[i] = _margin(dense[over], over, sizes, chosen)
            continue
        domain = _domain(sizes, chosen)
        idx = _cell_index(codes, sizes, chosen, n)
        if domain is not None and domain <= min(_BINCOUNT_CELLS, room) and len(chosen) > 1:
            table = dense[tuple(chosen)] = np.bincount(idx, minlength=domain)
            room -= domain
            nz = np.flatnonzero(table)
            out[i] = (nz.astype(np.int64), table[nz].astype(np.int64))
        else:
            out[i] = _count(idx, domain)
    return n, [c for c in out if c is not None]


def _sum_cells(tables: Sequence[Cells]) -> Cells:
    if len(tables) == 1:
        return tables[0]
    cells = np.concatenate([t[0] for t in tables])
    cnt = np.concatenate([t[1] for t in tables])
    o = np.argsort(cells, kind="stable")
    sc = cells[o]
    if sc.size == 0:
        return sc, cnt[o]
    starts = np.flatnonzero(np.concatenate([[True], sc[1:] != sc[:-1]]))
    return sc[starts], np.add.reduceat(cnt[o], starts)


def merge_cells(*parts: tuple[int, list[Cells]]) -> tuple[int, list[Cells]]:
    """The sum of several partitions' (row count, cell counts per set)."""
    if len(parts) == 1:
        return parts[0]
    n = sum(p[0] for p in parts)
    return n, [_sum_cells([p[1][i] for p in parts]) for i in range(len(parts[0][1]))]


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
        tasks.append(_tree(parts, merge_cells) if parts else (0, [_count(
            np.zeros(0, np.int64), 1) for _ in sets]))
    return list(dask.compute(*tasks))


def _aligned(tables: Sequence[Cells]) -> list[np.ndarray]:
    """The count arrays of several tables over the sorted cells that occur in any of them
    (the layout of ``np.unique`` over the concatenated cell indices of the pandas path)."""
    allcells = np.unique(np.concatenate([t[0] for t in tables]))
    out = []
    for cells, cnt in tables:
        full = np.zeros(allcells.size, dtype=np.int64)
        full[np.searchsorted(allcells, cells)] = cnt
        out.append(full)
    return out


# ---------------------------------------------------------------------- inputs
def _inputs(conf: Any, synthetic: Any, schema: Schema | None,
            columns: Sequence[str] | None) -> tuple[dd.DataFrame, list[dd.DataFrame], Schema,
                                                    list[str]]:
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
    return conf, imps, schema, cols


def _check_rows(counted: Sequence[tuple[int, list[Cells]]]) -> None:
    if counted[0][0] == 0:
        raise DataError("conf: the data has no rows")
    for i, (n, _) in enumerate(counted[1:]):
        if n == 0:
            raise DataError(f"synthetic: implicate {i} has no rows")


def _kway_draws(cols: list[str], k: int, n_draws: int,
                rng: np.random.Generator) -> list[tuple[str, ...]]:
    return [tuple(cols[i] for i in np.sort(rng.choice(len(cols), size=k, replace=False)))
            for _ in range(n_draws)]


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


def _check_kway(k: int, n_draws: int, n_bins: int) -> None:
    if k < 1:
        raise ParameterError("parameter 'k': expected at least 1 variable per marginal")
    if n_draws < 1:
        raise ParameterError("parameter 'n_draws': expected at least 1 draw")
    if n_bins < 2:
        raise ParameterError("parameter 'n_bins': expected at least 2 bins")


# ---------------------------------------------------------------------- the measures
def _kway_result(draws: list[tuple[str, ...]], tables: dict[tuple[str, ...], list[Cells]],
                 k: int, n_draws: int, n_bins: int, seed: int | None) -> KWayMarginalScore:
    rows = []
    for chosen in draws:
        full = _aligned(tables[chosen])
        p = full[0] / int(full[0].sum())
        tvs = [0.5 * float(np.abs(p - q / int(q.sum())).sum()) for q in full[1:]]
        rows.append({"variables": ", ".join(chosen), "tv": float(np.mean(tvs))})
    frame = pd.DataFrame(rows).rename_axis("draw")
    tv = float(frame["tv"].mean())
    return KWayMarginalScore(tv, 1.0 - tv, k, n_draws, n_bins, frame, seed)


def _workload_result(sets: dict[int, list[tuple[str, ...]]],
                     tables: dict[tuple[str, ...], list[Cells]]) -> dict[int, float]:
    out = {}
    for k, chosen_sets in sets.items():
        tvs = []
        for chosen in chosen_sets:
            full = _aligned(tables[chosen])
            p = full[0] / max(int(full[0].sum()), 1)
            tvs.append(np.mean([0.5 * np.abs(p - q / max(int(q.sum()), 1)).sum()
                                for q in full[1:]]))
        out[k] = float(np.mean(tvs))
    return out


def _tables(conf: dd.DataFrame, imps: list[dd.DataFrame], schema: Schema, cols: list[str],
            n_bins: int, sets: Iterable[tuple[str, ...]]) -> dict[tuple[str, ...], list[Cells]]:
    distinct = list(dict.fromkeys(sets))
    used = [c for c in cols if any(c in s for s in distinct)]
    plan = coding(conf, imps, schema, used, n_bins)
    counted = count_cells([conf, *imps], plan, distinct)
    _check_rows(counted)
    return {s: [c[1][i] for c in counted] for i, s in enumerate(distinct)}


def kway_marginal_score_dask(
    conf: Any,
    synthetic: Any,
    k: int = 3,
    n_draws: int = 100,
    *,
    n_bins: int = 10,
    schema: Schema | None = None,
    columns: list[str] | None = None,
    random_state: RandomState = None,
) -> KWayMarginalScore:
    """:func:`synthguard.utility.kway_marginal_score` (NIST 2018 challenge; mean
    ``TV = ½ Σ_cells |p - q|`` over ``n_draws`` random sets of ``k`` variables and the
    implicates) of Dask data, from exact cell counts: equal to the pandas result for the same
    ``random_state``, draws included (see the module notes).

    Parameters
    ----------
    conf, synthetic : the confidential data and the release (Dask or pandas frames; a list of
        frames for several implicates).
    k, n_draws, n_bins, columns, random_state : as in the pandas function.
    schema : column kinds (default: inferred from the whole data, exactly).

    Returns
    -------
    KWayMarginalScore

    Raises
    ------
    ParameterError
        ``k``, ``n_draws`` or ``n_bins`` out of range, or ``k`` above the number of columns.
    DataError
        No shared column, a data set without rows, a numeric column holding text.
    """
    _check_kway(k, n_draws, n_bins)
    conf, imps, schema, cols = _inputs(conf, synthetic, schema, columns)
    if k > len(cols):
        raise ParameterError(
            f"parameter 'k': {k} exceeds the {len(cols)} columns available; lower k"
        )
    rng, seed = resolve_seed(random_state)
    draws = _kway_draws(cols, k, n_draws, rng)
    tables = _tables(conf, imps, schema, cols, n_bins, draws)
    return _kway_result(draws, tables, k, n_draws, n_bins, seed)


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
    conf, imps, schema, cols = _inputs(conf, synthetic, schema, None)
    rng, _ = resolve_seed(random_state)
    sets = _workload_sets(cols, orders, max_marginals, rng)
    if not sets:
        return {}
    tables = _tables(conf, imps, schema, cols, n_bins,
                     [s for ss in sets.values() for s in ss])
    return _workload_result(sets, tables)


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
    _check_kway(k, n_draws, n_bins)
    conf, imps, schema, cols = _inputs(conf, synthetic, schema, columns)
    krng, kseed = resolve_seed(kway_random_state)
    wrng, _ = resolve_seed(workload_random_state)
    draws = _kway_draws(cols, k, n_draws, krng) if k <= len(cols) else []
    sets = _workload_sets(cols, orders, max_marginals, wrng)
    tables = _tables(conf, imps, schema, cols, n_bins,
                     [*draws, *[s for ss in sets.values() for s in ss]])
    kway = _kway_result(draws, tables, k, n_draws, n_bins, kseed) if draws else None
    return kway, _workload_result(sets, tables)
