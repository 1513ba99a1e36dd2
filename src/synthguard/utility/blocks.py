"""The per-block kernels of the utility measures: plain functions of pandas frames and count
tables (no Dask) that both backends call. The pandas path of a measure is its kernel on the
whole data; the Dask path (:mod:`synthguard.utility._on_dask`) maps the same kernel over the
partitions and combines the blocks' results with the merges here (integer cell counts add up
exactly; moments merge by Chan, Golub & LeVeque's update).

* :class:`Coding` and :func:`partition_cells`: the integer codes of compared columns (bin
  edges of numeric ones, levels of categorical ones) and the counts of every cell of the
  requested column sets in one block; :func:`merge_cells` sums blocks, :func:`aligned` lays
  several data sets' tables on the sorted cells that occur in any of them.
* :func:`distinct_values`, :func:`in_order`: distinct values in order of first appearance.
* :func:`partition_moments`, :func:`merge_moments`: count, mean and sum of squared deviations
  of every numeric column of a block, and their merge.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from synthguard.utility._inputs import category_codes, numeric_values

__all__ = [
    "Cells",
    "Coding",
    "aligned",
    "cell_index",
    "count_cells_of",
    "distinct_values",
    "domain_of",
    "in_order",
    "margin_of",
    "merge_cells",
    "merge_moments",
    "partition_cells",
    "partition_moments",
    "sum_cells",
]

#: Fewest partition rows for which counting cells by ``np.unique`` (a sort) replaces
#: ``np.bincount`` over a domain of this many cells or more.
_BINCOUNT_CELLS = 1 << 20
#: Most cells of dense tables a partition keeps to sum smaller sets from (8 bytes each).
_DENSE_KEPT = 1 << 24

Cells = tuple[np.ndarray, np.ndarray]  # sorted cell indices, their counts


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


def distinct_values(part: pd.DataFrame, columns: Sequence[str]) -> list[list[Any]]:
    """Each column's distinct non-missing values in order of first appearance."""
    out = []
    for c in columns:
        vals = pd.unique(part[c].dropna())
        out.append([v.item() if isinstance(v, np.generic) else v for v in vals])
    return out


def in_order(lists: Any) -> list[Any]:
    """The distinct values of ``lists`` in order of first appearance."""
    seen: dict[Any, None] = {}
    for values in lists:
        for v in values:
            seen.setdefault(v, None)
    return list(seen)


def cell_index(codes: dict[str, np.ndarray], sizes: dict[str, int], chosen: Sequence[str],
                n: int) -> np.ndarray:
    """The pandas path's joint cell index ``((c_1 · s_2 + c_2) · s_3 + c_3) …``."""
    idx = np.zeros(n, dtype=np.int64)
    for c in chosen:
        idx = idx * sizes[c] + codes[c]
    return idx


def count_cells_of(idx: np.ndarray, domain: int | None) -> Cells:
    if domain is not None and domain <= max(_BINCOUNT_CELLS, 2 * idx.size):
        bc = np.bincount(idx, minlength=domain)
        nz = np.flatnonzero(bc)
        return nz.astype(np.int64), bc[nz].astype(np.int64)
    cells, cnt = np.unique(idx, return_counts=True)
    return cells.astype(np.int64), cnt.astype(np.int64)


def domain_of(sizes: dict[str, int], chosen: Sequence[str]) -> int | None:
    d = 1
    for c in chosen:
        d *= sizes[c]
    return d if d < 2**62 else None  # a larger product wraps the int64 index: sort instead


def margin_of(dense: np.ndarray, over: Sequence[str], sizes: dict[str, int],
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
            out[i] = margin_of(dense[over], over, sizes, chosen)
            continue
        domain = domain_of(sizes, chosen)
        idx = cell_index(codes, sizes, chosen, n)
        if domain is not None and domain <= min(_BINCOUNT_CELLS, room) and len(chosen) > 1:
            table = dense[tuple(chosen)] = np.bincount(idx, minlength=domain)
            room -= domain
            nz = np.flatnonzero(table)
            out[i] = (nz.astype(np.int64), table[nz].astype(np.int64))
        else:
            out[i] = count_cells_of(idx, domain)
    return n, [c for c in out if c is not None]


def sum_cells(tables: Sequence[Cells]) -> Cells:
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
    return n, [sum_cells([p[1][i] for p in parts]) for i in range(len(parts[0][1]))]


def aligned(tables: Sequence[Cells]) -> list[np.ndarray]:
    """The count arrays of several tables over the sorted cells that occur in any of them
    (the layout of ``np.unique`` over the concatenated cell indices of the pandas path)."""
    allcells = np.unique(np.concatenate([t[0] for t in tables]))
    out = []
    for cells, cnt in tables:
        full = np.zeros(allcells.size, dtype=np.int64)
        full[np.searchsorted(allcells, cells)] = cnt
        out.append(full)
    return out


def partition_moments(part: pd.DataFrame, columns: Sequence[str]) -> tuple[int, np.ndarray]:
    """A partition's row count and, per column, ``(n, c, r, M)`` of its non-missing values:
    their number, a centre ``c`` (their mean rounded), ``r = Σ (x - c)`` and
    ``M = Σ (x - c - r/n)²``; the mean is ``c + r/n``."""
    out = np.zeros((len(columns), 4))
    for j, c in enumerate(columns):
        v = numeric_values(part[c], c)
        x = v[~np.isnan(v)]
        if x.size:
            centre = float(x.mean())
            d = x - centre
            r = float(d.sum())
            out[j] = (x.size, centre, r, float(((d - r / x.size) ** 2).sum()))
    return len(part), out


def merge_moments(*parts: tuple[int, np.ndarray]) -> tuple[int, np.ndarray]:
    """Partitions' moments merged by Chan, Golub & LeVeque's update (see the module notes),
    about the first partition's centre: the difference of two centres is exact (Sterbenz)
    when they are within a factor of two, so the means' difference loses nothing to the
    rounding of large means."""
    rows, acc = parts[0][0], parts[0][1].copy()
    for n_rows, b in parts[1:]:
        rows += n_rows
        na, nb = acc[:, 0], b[:, 0]
        n = na + nb
        first = na == 0  # nothing yet: take b's centre
        ca = np.where(first, b[:, 1], acc[:, 1])
        ra = np.where(first, 0.0, acc[:, 2])
        shift = b[:, 1] - ca
        with np.errstate(invalid="ignore", divide="ignore"):
            delta = shift + b[:, 2] / np.where(nb > 0, nb, 1) - ra / np.where(na > 0, na, 1)
            extra = np.where((na > 0) & (nb > 0), delta**2 * na * nb / np.where(n > 0, n, 1), 0.0)
        r = ra + np.where(nb > 0, b[:, 2] + nb * shift, 0.0)
        acc = np.column_stack([n, ca, r, acc[:, 3] + b[:, 3] + extra])
    return rows, acc
