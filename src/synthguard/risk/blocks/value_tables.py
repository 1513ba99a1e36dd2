"""Shuffle-free identification risk for one numeric target: a pattern dictionary and value
tables instead of moving the records.

With one target, record i's ball count is ``#{h : pattern_h = p_i, a_i <= y_h <= b_i}`` (the
closed ends ``a_i``, ``b_i`` of :class:`synthguard.risk._balls.Balls`), which only needs, per
pattern, the sorted distinct target values of the counted data with their multiplicities. When
the patterns are few (the key variables of a risk study have a handful of levels each) these
fit in one worker's memory although the records do not. So, instead of hash-shuffling every
record (the cost that dominated the Dask risk), three passes that move only small tables:

1. **Patterns** (:func:`conf_pass`): each confidential partition is encoded with the pandas
   path's :class:`~synthguard.risk._patterns.PatternEncoder`; it returns its distinct key
   combinations in first-appearance order, their sizes and its (pattern, value, count) table.
   The client encodes the concatenated combinations once more (:func:`global_patterns`):
   the codes are then global and numbered by first appearance in the file, as the pandas
   encoder numbers them.
2. **Tables** (:func:`release_pass`): each partition of an implicate is mapped onto the global
   patterns (rows of unseen patterns get -1, as ``PatternEncoder.transform``) and returns its
   row count per pattern and its (pattern, value, count) table; tables are merged on a worker
   (:func:`merge_tables`).
3. **Records**: each confidential partition, with the rows of every implicate that carry the
   same row numbers (:func:`aligned_slice`: partitions need not coincide), counts every ball
   in the merged table (:func:`count_in_table`) and applies the pandas path's expressions.

Integer counts do not depend on where they are made and every per-record expression is the
pandas one, so the results equal :func:`synthguard.risk.identification_risk` bit for bit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from synthguard.risk._common import target_matrix
from synthguard.risk._patterns import PatternEncoder, _combine

__all__ = [
    "ConfPart",
    "ValueTable",
    "aligned",
    "conf_pass",
    "count_in_table",
    "global_patterns",
    "merge_tables",
    "nan_missing",
    "release_pass",
]

#: Up to this many patterns, counts are one sorted search per pattern; beyond, one search
#: on integer keys ``pattern * K + rank``.
LOOP_PATTERNS = 4096


def nan_missing(frame: pd.DataFrame, keys: Sequence[str]) -> pd.DataFrame:
    """Text key columns with every missing value as NaN. Dask turns object columns into
    strings whose missing value is ``pd.NA``, which the pattern encoder would not match with
    the NaN of a categorical or object column of another data set (pandas' own text columns
    use NaN)."""
    out = frame
    for k in keys:
        s = frame[k]
        if isinstance(s.dtype, pd.StringDtype) and s.dtype.na_value is pd.NA and s.hasnans:
            if out is frame:
                out = frame.copy(deep=False)
            out[k] = s.astype(object).where(s.notna(), np.nan)
    return out


@dataclass(frozen=True, eq=False)
class ValueTable:
    """Distinct (pattern, value) pairs sorted by pattern then value, with their counts."""

    pattern: np.ndarray  # int64 (T,)
    value: np.ndarray  # float64 (T,)
    count: np.ndarray  # int64 (T,)

    @property
    def size(self) -> int:
        return int(self.pattern.shape[0])

    @classmethod
    def of(cls, pattern: np.ndarray, value: np.ndarray) -> ValueTable:
        """The table of rows with a pattern (>= 0) and a finite value."""
        ok = (pattern >= 0) & np.isfinite(value)
        return _aggregate(pattern[ok], value[ok] + 0.0, np.ones(int(ok.sum()), dtype=np.int64))


def _aggregate(pattern: np.ndarray, value: np.ndarray, count: np.ndarray) -> ValueTable:
    if pattern.size == 0:
        return ValueTable(np.zeros(0, np.int64), np.zeros(0), np.zeros(0, np.int64))
    npat = int(pattern.max()) + 1
    if npat <= LOOP_PATTERNS:  # group by pattern, then sort each group's values
        o = np.argsort(pattern.astype(np.int16 if npat < 2**15 else np.int32), kind="stable")
        bounds = np.concatenate([[0], np.cumsum(np.bincount(pattern, minlength=npat))])
        v, c = value[o], count[o]
        pats, vals, cnts = [], [], []
        for pi in np.flatnonzero(np.diff(bounds)):
            seg = slice(bounds[pi], bounds[pi + 1])
            u, inv = np.unique(v[seg], return_inverse=True)
            pats.append(np.full(u.shape[0], pi, dtype=np.int64))
            vals.append(u)
            cnts.append(np.bincount(inv.ravel(), weights=c[seg], minlength=u.shape[0]))
        return ValueTable(
            np.concatenate(pats), np.concatenate(vals), np.concatenate(cnts).astype(np.int64)
        )
    o = np.lexsort((value, pattern))
    sp, sv, sc = pattern[o], value[o], count[o]
    new = np.ones(sp.shape[0], dtype=bool)
    new[1:] = (sp[1:] != sp[:-1]) | (sv[1:] != sv[:-1])
    starts = np.flatnonzero(new)
    return ValueTable(sp[starts], sv[starts], np.add.reduceat(sc, starts))


def merge_tables(*tables: ValueTable) -> ValueTable:
    """One table summing the counts of several."""
    if len(tables) == 1:
        return tables[0]
    return _aggregate(
        np.concatenate([t.pattern for t in tables]),
        np.concatenate([t.value for t in tables]),
        np.concatenate([t.count for t in tables]),
    )


def count_in_table(
    table: ValueTable, pattern: np.ndarray, a: np.ndarray, b: np.ndarray, n_patterns: int
) -> np.ndarray:
    """``sum of counts over table rows with pattern = pattern[i] and a[i] <= value <= b[i]``
    for every query i (0 when the interval is empty), exactly."""
    cum = np.concatenate([[0], np.cumsum(table.count)])
    lo = np.empty(pattern.shape[0], dtype=np.int64)
    hi = np.empty(pattern.shape[0], dtype=np.int64)
    if n_patterns <= LOOP_PATTERNS:
        bounds = np.searchsorted(table.pattern, np.arange(n_patterns + 1), side="left")
        order = np.argsort(pattern, kind="stable")
        qb = np.concatenate([[0], np.cumsum(np.bincount(pattern, minlength=n_patterns))])
        for p in np.flatnonzero(np.diff(qb)):
            q = order[qb[p] : qb[p + 1]]
            s, e = bounds[p], bounds[p + 1]
            seg = table.value[s:e]
            lo[q] = s + np.searchsorted(seg, a[q], side="left")
            hi[q] = s + np.searchsorted(seg, b[q], side="right")
    else:
        # one sorted integer key per (pattern, value): ranks preserve the order of floats
        ranks, inv = np.unique(np.concatenate([table.value, a, b]), return_inverse=True)
        k = np.int64(ranks.shape[0] + 1)
        t, n = table.size, pattern.shape[0]
        keys = table.pattern * k + inv[:t]
        lo = np.searchsorted(keys, pattern * k + inv[t : t + n], side="left")
        hi = np.searchsorted(keys, pattern * k + inv[t + n :], side="right")
    return np.maximum(cum[hi] - cum[lo], 0)


# ---------------------------------------------------------------------- pass 1: patterns
def local_patterns(part: pd.DataFrame, keys: Sequence[str]) -> tuple[np.ndarray, pd.DataFrame]:
    """Pattern codes of a partition's rows, numbered by first appearance, and the first row
    of each pattern (missing key values made NaN): the equality of
    :class:`~synthguard.risk._patterns.PatternEncoder` (``pd.factorize`` per key column, a
    missing value is a value), without converting whole text columns."""
    n = len(part)
    if not keys:
        return np.zeros(n, dtype=np.int64), pd.DataFrame(index=range(min(n, 1)))
    col_codes, cards = [], []
    for k in keys:
        c, u = pd.factorize(part[k], use_na_sentinel=False)
        col_codes.append(np.asarray(c, dtype=np.int64))
        cards.append(len(u))
    codes = np.asarray(pd.factorize(_combine(col_codes, cards))[0], dtype=np.int64)
    # codes are numbered by first appearance: the running maximum rises exactly there
    first = np.flatnonzero(np.diff(np.maximum.accumulate(codes), prepend=-1) > 0)
    return codes, nan_missing(part[list(keys)].iloc[first].reset_index(drop=True), keys)


@dataclass(frozen=True, eq=False)
class ConfPart:
    """What one confidential partition tells the client: its length, its distinct key
    combinations (first-appearance order) with their sizes, the number of non-finite target
    values, and (for the confidential risk) its value table in local pattern codes."""

    n: int
    uniques: pd.DataFrame
    sizes: np.ndarray
    n_bad: int
    codes: np.ndarray  # local pattern code per row
    y: np.ndarray  # target per row
    index: pd.Index
    table: ValueTable | None  # in local codes


def conf_pass(part: pd.DataFrame, keys: list[str], target: str, with_table: bool) -> ConfPart:
    codes, uniques = local_patterns(part, keys)
    y = part[target].to_numpy(dtype=np.float64, na_value=np.nan)
    bad = int(np.sum(~np.isfinite(y)))
    return ConfPart(
        n=len(part),
        uniques=uniques,
        sizes=np.bincount(codes, minlength=len(uniques)),
        n_bad=bad,
        codes=codes,
        y=y,
        index=part.index,
        table=ValueTable.of(codes, y) if with_table and not bad else None,
    )


def global_patterns(parts: Sequence[tuple[pd.DataFrame, np.ndarray]], keys: list[str]) -> tuple[
    PatternEncoder, np.ndarray, list[np.ndarray]
]:
    """From every partition's (distinct key combinations, their sizes): the encoder of all
    distinct key combinations (codes in order of first appearance in the file), every
    pattern's size, and per partition the global code of each local one."""
    frames = [u for u, _ in parts]
    combos = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=keys)
    first_fit = PatternEncoder.fit(combos, keys)
    first = np.unique(first_fit.codes, return_index=True)[1]
    enc = PatternEncoder.fit(combos.iloc[np.sort(first)].reset_index(drop=True), keys)
    sizes = np.zeros(enc.n_patterns, dtype=np.int64)
    local_to_global = []
    start = 0
    for u, size in parts:
        codes = first_fit.codes[start : start + len(u)]
        start += len(u)
        # first_fit numbers combos by first appearance, which is enc's numbering too
        local_to_global.append(codes)
        np.add.at(sizes, codes, size)
    return enc, sizes, local_to_global


def conf_table(parts: Sequence[ConfPart], local_to_global: Sequence[np.ndarray]) -> ValueTable:
    """The confidential value table in global pattern codes."""
    tables: list[ValueTable] = []
    for p in parts:
        assert p.table is not None
        tables.append(p.table)
    return _aggregate(  # local codes mapped to global ones: sort again
        np.concatenate([m[t.pattern] for t, m in zip(tables, local_to_global, strict=True)]),
        np.concatenate([t.value for t in tables]),
        np.concatenate([t.count for t in tables]),
    )


def global_codes(part: pd.DataFrame, keys: list[str], enc: PatternEncoder) -> np.ndarray:
    """Global pattern codes of a partition's rows (-1 for combinations not in ``enc``): the
    partition's distinct combinations are looked up in ``enc`` as
    ``PatternEncoder.transform`` looks up a release's rows."""
    if not keys:
        return np.zeros(len(part), dtype=np.int64)
    if len(part) == 0:
        return np.zeros(0, dtype=np.int64)
    codes, uniq = local_patterns(part, keys)
    return enc.transform(uniq)[codes]


# ---------------------------------------------------------------------- pass 2: releases
@dataclass(frozen=True, eq=False)
class ReleasePart:
    n: int
    members: np.ndarray  # rows per global pattern
    table: ValueTable
    pattern: np.ndarray  # global pattern code per row (-1: not a confidential pattern)
    y: np.ndarray  # target per row


def release_pass(
    part: pd.DataFrame, keys: list[str], target: str, enc: PatternEncoder
) -> ReleasePart:
    pat = global_codes(part, keys, enc)
    ys = target_matrix(part, [target], name="synthetic implicate", allow_missing=True)[:, 0]
    return ReleasePart(
        n=len(part),
        members=np.bincount(pat[pat >= 0], minlength=enc.n_patterns),
        table=ValueTable.of(pat, ys),
        pattern=pat,
        y=ys,
    )


def release_rows(bounds: Sequence[tuple[int, int]], *parts: ReleasePart) -> tuple[
    np.ndarray, np.ndarray
]:
    """Pattern codes and targets of rows ``bounds[j]`` of ``parts[j]``, concatenated."""
    pat = [p.pattern[a:b] for (a, b), p in zip(bounds, parts, strict=True)]
    ys = [p.y[a:b] for (a, b), p in zip(bounds, parts, strict=True)]
    if len(pat) == 1:
        return pat[0], ys[0]
    return np.concatenate(pat), np.concatenate(ys)


def release_tables(*parts: ReleasePart) -> ValueTable:
    return merge_tables(*[p.table for p in parts])


# ---------------------------------------------------------------------- row alignment
def slices_for(lengths: Sequence[int], other: Sequence[int]) -> list[list[tuple[int, int, int]]]:
    """For every partition of a frame with partition ``lengths``, the pieces
    ``(partition k, start, stop)`` of a frame with partition lengths ``other`` that hold the
    same global row numbers."""
    ends = np.cumsum(other)
    starts = ends - np.asarray(other, dtype=np.int64)
    out = []
    s = 0
    for n in lengths:
        e = s + int(n)
        pieces = []
        k = int(np.searchsorted(ends, s, side="right"))
        while s < e and k < len(other):
            lo, hi = max(s, int(starts[k])), min(e, int(ends[k]))
            if hi > lo:
                pieces.append((k, lo - int(starts[k]), hi - int(starts[k])))
            k += 1
            if int(ends[k - 1]) >= e:
                break
        out.append(pieces)
        s = e
    return out


def aligned(pieces: list[tuple[int, int, int]], delayed_parts: Sequence[Any]) -> Any:
    """Delayed (pattern codes, targets) of the rows ``pieces`` of the delayed release parts."""
    import dask

    bounds = [(a, b) for _, a, b in pieces]
    return dask.delayed(release_rows, nout=2)(bounds, *[delayed_parts[k] for k, _, _ in pieces])
