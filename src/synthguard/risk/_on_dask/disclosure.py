"""synthpop's repU, DiSCO and replicated uniques, and the key-variable attribute attack, on
Dask: exactly the figures of :func:`synthguard.risk.release_disclosure.release_disclosure` and
:func:`synthguard.risk.attribute_disclosure`, from counts made on the workers.

Every one of these measures reads the data only through counts of rows per combination of
column values (Raab, Nowok & Dibben 2024: the d_tq and s_tq tables of ``disclosure()``), so
no record moves:

1. **Codes.** Each partition of the data and of every implicate factorizes its columns and
   returns their distinct values in order of first appearance. The client concatenates them
   (data first, then implicate 1, 2, ..., partitions in order) and factorizes once more, as
   :func:`synthguard.risk._disclosure_tables.code_column` factorizes the stacked columns: the
   global codes are the pandas codes, numbered by first appearance, a missing value being the
   last code.
2. **Cell tables.** Each partition (read again, so no codes are held between passes) maps its
   rows to global codes and counts its distinct (keys, target) cells for every target; the
   tables are merged in a tree on the workers and the client receives one table per data set
   (one row per distinct cell: much smaller than the data when keys and targets have few
   levels). A row of codes travels packed into int64 words (mixed radix, :func:`_pack`: one
   word for the usual keys and target), which sort as the codes do. Sorted, the cells come in
   the order of the pandas path's ``np.unique`` over ``q * T + t``, so
   :func:`~synthguard.risk._disclosure_tables.cell_measures` returns the pandas figures bit
   for bit.
3. **Replicated uniques** compare rows on *every* released column, where nearly every record
   is its own cell: the distinct rows (packed words) are hash-partitioned into buckets on the
   workers (a shuffle of integers), and each bucket counts the rows unique in the data and
   released exactly once; only the counts reach the client.

The attribute attack (the course, section 3.16.1) predicts each confidential record's target
from the released records sharing its keys: the most frequent category (ties: the level
the implicate shows first) or the mean. Both follow from the same cell tables. Accuracy and
categorical measures are exact; for a numeric target the release's means are sums of the
cells' values times their counts instead of sums over rows, equal to the pandas means up to
floating-point rounding (exactly equal for integer-valued targets), and so the RMSE and the
share within tolerance.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import dask
import numpy as np
import pandas as pd

from synthguard._dask.partitions import as_dask, as_dask_implicates
from synthguard.data import Schema
from synthguard.errors import DataError, ParameterError
from synthguard.risk._check_2way import check_2way, r_labels
from synthguard.risk._common import as_list
from synthguard.risk._disclosure_tables import cell_measures
from synthguard.risk.attribute import AttributeDisclosure, Scores, attribute_result
from synthguard.risk.disclosure import (
    Disclosure,
    MultiDisclosure,
    assemble_disclosure,
    assemble_multi,
    implicate_row,
)
from synthguard.risk.release_disclosure import ReleaseDisclosure, release_result

__all__ = ["MAX_CELLS", "attribute_scores", "disclosure_measures", "release_parts"]

#: Most distinct (keys, target) cells, summed over the merged tables, brought to the client.
MAX_CELLS = 20_000_000
#: Distinct rows per bucket of the replicated-uniques shuffle (about).
_BUCKET_ROWS = 1_000_000
_MULT = np.uint64(0x9E3779B97F4A7C15)
#: Largest product of cardinalities packed into one int64 word.
_WORD = 1 << 62


# ------------------------------------------------------------------------------ row tables
def _words(cards: Sequence[int]) -> list[tuple[int, int]]:
    """How rows of codes (column j in ``0 .. cards[j] - 1``) are packed into int64 words:
    consecutive columns ``a .. b - 1`` share a word while the product of their cardinalities
    stays within :data:`_WORD` (2**62; mixed radix, the first column most significant). Packed rows compare
    as the rows do, lexicographically, so every sorted table keeps the order of the codes."""
    out: list[tuple[int, int]] = []
    a, prod = 0, 1
    for j, c in enumerate(cards):
        if j > a and prod * max(int(c), 1) > _WORD:
            out.append((a, j))
            a, prod = j, 1
        prod *= max(int(c), 1)
    out.append((a, len(cards)))
    return out


def _pack(codes: np.ndarray, cards: Sequence[int]) -> np.ndarray:
    """Rows of codes as rows of int64 words (:func:`_words`): 8 bytes per record and word
    instead of per column (one word for typical keys, targets and released columns)."""
    words = _words(cards)
    out = np.zeros((codes.shape[0], len(words)), dtype=np.int64)
    for w, (a, b) in enumerate(words):
        for j in range(a, b):
            out[:, w] = out[:, w] * int(cards[j]) + codes[:, j]
    return out


def _unpack(rows: np.ndarray, cards: Sequence[int]) -> np.ndarray:
    """The rows of codes that :func:`_pack` packed (its inverse)."""
    out = np.zeros((rows.shape[0], len(cards)), dtype=np.int64)
    for w, (a, b) in enumerate(_words(cards)):
        rest = rows[:, w].copy()
        for j in range(b - 1, a - 1, -1):
            out[:, j] = rest % int(cards[j])
            rest //= int(cards[j])
    return out


def _distinct(rows: np.ndarray, counts: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rows of an integer matrix sorted lexicographically (first column first), with
    their counts (summing ``counts`` when given)."""
    n = rows.shape[0]
    if n == 0:
        return rows, np.zeros(0, dtype=np.int64)
    if rows.shape[1] == 1:  # one word: a sort of integers
        if counts is None:
            u, cnt = np.unique(rows[:, 0], return_counts=True)
            return u[:, None], cnt.astype(np.int64)
        u, inv = np.unique(rows[:, 0], return_inverse=True)
        tot = np.bincount(inv.ravel(), weights=counts, minlength=u.size)  # exact below 2**53
        return u[:, None], np.rint(tot).astype(np.int64)
    if counts is None:
        counts = np.ones(n, dtype=np.int64)
    order = np.lexsort(rows.T[::-1]) if rows.shape[1] else np.arange(n)
    srt = rows[order]
    new = np.ones(n, dtype=bool)
    if rows.shape[1]:
        new[1:] = np.any(srt[1:] != srt[:-1], axis=1)
    else:
        new[1:] = False
    starts = np.flatnonzero(new)
    return srt[starts], np.add.reduceat(counts[order].astype(np.int64), starts)


def _merge(*tables: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    if len(tables) == 1:
        return tables[0]
    return _distinct(np.concatenate([t[0] for t in tables]),
                     np.concatenate([t[1] for t in tables]))


def _tree(tables: list[Any], fan: int = 8) -> Any:
    """Delayed merge of delayed tables, ``fan`` at a time."""
    while len(tables) > 1:
        tables = [dask.delayed(_merge)(*tables[i:i + fan]) for i in range(0, len(tables), fan)]
    return tables[0]


# ------------------------------------------------------------------------------ pass 1: codes
def _local(part: pd.DataFrame, cols: Sequence[str]) -> tuple[np.ndarray, list[pd.Series]]:
    """Local codes of each column (a missing value a code like any other) and the distinct
    values in order of first appearance."""
    codes = np.empty((len(part), len(cols)), dtype=np.int64)
    uniques = []
    for j, c in enumerate(cols):
        k, u = pd.factorize(part[c], use_na_sentinel=False)
        codes[:, j] = k
        uniques.append(pd.Series(u))
    return codes, uniques


def _uniques(part: pd.DataFrame, cols: Sequence[str]) -> tuple[int, list[pd.Series]]:
    return len(part), _local(part, cols)[1]


@dataclass(frozen=True)
class _Column:
    """Global codes of one column: per part (data partitions, then each implicate's) the
    global code of each local code; the labels and the missing code as ``code_column``."""

    l2g: list[np.ndarray]
    labels: tuple[str, ...]
    values: tuple[Any, ...]
    missing: int


def _global(parts: list[pd.Series], name: str) -> _Column:
    """``code_column`` (ungrouped) of the concatenation of the parts' distinct values: the
    same codes it gives the stacked columns, since first appearances keep their order."""
    kept = [p for p in parts if len(p)]
    ser = pd.concat(kept, ignore_index=True) if kept else pd.Series([], dtype=object)
    if isinstance(ser.dtype, pd.CategoricalDtype):
        ser = ser.astype(object)
    raw, uniq = pd.factorize(ser, use_na_sentinel=True)
    codes = np.asarray(raw, dtype=np.int64)
    values = list(uniq)
    labels = [str(u) for u in values]
    missing = -1
    if (codes < 0).any():
        missing = len(labels)
        codes[codes < 0] = missing
        labels.append("Missing")
        values.append(None)
    l2g, start = [], 0
    for p in parts:
        l2g.append(codes[start:start + len(p)])
        start += len(p)
    return _Column(l2g, tuple(labels), tuple(values), missing)


# --------------------------------------------------------------------------- pass 2: tables
def _bucket_of(rows: np.ndarray, n_buckets: int) -> np.ndarray:
    h = np.zeros(rows.shape[0], dtype=np.uint64)
    with np.errstate(over="ignore"):
        for j in range(rows.shape[1]):
            h = (h ^ rows[:, j].astype(np.uint64)) * _MULT
            h ^= h >> np.uint64(29)
    return (h % np.uint64(n_buckets)).astype(np.int64)


def _part_tables(
    part: pd.DataFrame, cols: Sequence[str], l2g: list[np.ndarray], cards: list[int],
    cells: list[list[int]], n_buckets: int,
) -> dict[str, Any]:
    """One partition's cell tables (one per list of column positions in ``cells``) and, with
    ``n_buckets``, its distinct full rows split into buckets; rows packed into int64 words
    (:func:`_pack`; ``cards[j]``: the number of global codes of column j)."""
    local, _ = _local(part, cols)
    codes = np.empty_like(local)
    for j in range(len(cols)):
        codes[:, j] = l2g[j][local[:, j]]
    del local
    out: dict[str, Any] = {"cells": [_distinct(_pack(codes[:, c], [cards[j] for j in c]))
                                     for c in cells]}
    if n_buckets:
        rows, cnt = _distinct(_pack(codes, cards))
        del codes
        b = _bucket_of(rows, n_buckets)
        order = np.argsort(b, kind="stable")
        cuts = np.searchsorted(b[order], np.arange(n_buckets + 1))
        out["buckets"] = [(rows[order[cuts[i]:cuts[i + 1]]], cnt[order[cuts[i]:cuts[i + 1]]])
                          for i in range(n_buckets)]
    return out


def _cells_of(out: dict[str, Any], i: int) -> tuple[np.ndarray, np.ndarray]:
    return out["cells"][i]


def _bucket(out: dict[str, Any], b: int) -> tuple[np.ndarray, np.ndarray]:
    return out["buckets"][b]


def _size(table: tuple[np.ndarray, np.ndarray]) -> int:
    return int(table[1].size)


def _replicated(conf_tables: list[tuple[np.ndarray, np.ndarray]],
                syn_tables: list[tuple[np.ndarray, np.ndarray]]) -> int:
    """Rows unique in the data that appear exactly once in the implicate, in one bucket."""
    c_rows, c_cnt = _merge(*conf_tables)
    s_rows, s_cnt = _merge(*syn_tables)
    a, b = c_rows[c_cnt == 1], s_rows[s_cnt == 1]
    if not len(a) or not len(b):
        return 0
    _, both = _distinct(np.concatenate([a, b]))
    return int(np.sum(both == 2))


# --------------------------------------------------------------------------------- the run
@dataclass
class _Tables:
    n_conf: int
    n_imps: list[int]
    keys: list[str]
    targets: list[str]
    columns: dict[str, _Column]
    #: per target, the distinct (keys, target) cells as rows of packed words (:func:`_pack`,
    #: the target code last: :func:`_keys`, :func:`_target`) sorted as the codes, and counts
    conf_cells: dict[str, tuple[np.ndarray, np.ndarray]]
    syn_cells: list[dict[str, tuple[np.ndarray, np.ndarray]]]
    syn_first: list[dict[str, np.ndarray]]  # per implicate, target -> codes in first order
    replicated: list[int] | None


def _check(conf: Any, imps: list[Any], keys: list[str], targets: list[str]) -> None:
    if not keys:
        raise ParameterError("parameter 'keys': name at least one key variable")
    if not targets:
        raise ParameterError("parameter 'targets': name at least one sensitive variable")
    both = [t for t in targets if t in keys]
    if both:
        raise ParameterError(f"parameter 'targets': {both} are also keys; a target cannot be a key")
    for name, f in [("conf", conf), *[(f"synthetic implicate {i + 1}", f)
                                      for i, f in enumerate(imps)]]:
        lacking = [c for c in (*keys, *targets) if c not in f.columns]
        if lacking:
            raise DataError(f"{name}: key/target column(s) {', '.join(lacking)} not found; "
                            f"check the names")


def _tables(conf: Any, imps: list[Any], keys: list[str], targets: list[str],
            replicated: bool) -> _Tables:
    cols = list(dict.fromkeys([*keys, *targets]))
    if replicated:
        cols += [c for c in conf.columns if c not in cols and all(c in f.columns for f in imps)]
    frames = [conf, *imps]
    # whole partitions, columns picked in the tasks: projecting a frame whose category
    # columns read_dataset categorized fails in dask-expr when the columns are reordered
    parts = [p for f in frames for p in f.to_delayed()]
    owner = [i for i, f in enumerate(frames) for _ in range(f.npartitions)]
    first = dask.compute(*[dask.delayed(_uniques)(p, cols) for p in parts])
    sizes = [0] * len(frames)
    for (n, _), i in zip(first, owner, strict=True):
        sizes[i] += n
    if sizes[0] == 0 or any(s == 0 for s in sizes[1:]):
        raise DataError("disclosure: the confidential data and every implicate need rows")
    columns = {c: _global([u[j] for _, u in first], c) for j, c in enumerate(cols)}
    del first
    pos = {c: j for j, c in enumerate(cols)}
    key_pos = [pos[k] for k in keys]
    cells = [[*key_pos, pos[t]] for t in targets]
    # at most one bucket of about _BUCKET_ROWS distinct rows per that many records
    n_buckets = max(1, -(-sum(sizes) // _BUCKET_ROWS)) if replicated else 0
    cards = [len(columns[c].labels) for c in cols]
    out = [
        dask.delayed(_part_tables)(p, cols, [columns[c].l2g[k] for c in cols], cards, cells,
                                   n_buckets)
        for k, p in enumerate(parts)
    ]
    out = list(dask.persist(*out))
    by_frame: list[list[Any]] = [[o for o, i in zip(out, owner, strict=True) if i == f]
                                 for f in range(len(frames))]
    merged = dask.persist(*[_tree([dask.delayed(_cells_of)(o, ti) for o in f_parts])
                            for f_parts in by_frame for ti in range(len(targets))])
    if sum(dask.compute(*[dask.delayed(_size)(t) for t in merged])) > MAX_CELLS:
        raise ParameterError(
            "disclosure measures: the keys and targets have too many distinct combinations "
            "for one machine's tables; group a continuous target or key first, or evaluate a "
            "sample without --dask")
    tables = dask.compute(*merged)
    per = len(targets)
    cell_tabs = [dict(zip(targets, tables[i * per:(i + 1) * per], strict=True))
                 for i in range(len(frames))]
    rep = None
    if replicated:
        rep = []
        for j in range(1, len(frames)):
            counts = [
                dask.delayed(_replicated)([dask.delayed(_bucket)(o, b) for o in by_frame[0]],
                                          [dask.delayed(_bucket)(o, b) for o in by_frame[j]])
                for b in range(n_buckets)
            ]
            rep.append(int(sum(dask.compute(*counts))))
    syn_first = []
    for j in range(1, len(frames)):
        ks = [k for k, i in enumerate(owner) if i == j]
        order = {}
        for t in targets:
            col = columns[t]
            seq = np.concatenate([col.l2g[k] for k in ks])
            _, idx = np.unique(seq, return_index=True)
            order[t] = seq[np.sort(idx)]
        syn_first.append(order)
    return _Tables(sizes[0], sizes[1:], keys, targets, columns, cell_tabs[0], cell_tabs[1:],
                   syn_first, rep)


def _target(rows: np.ndarray, card: int) -> np.ndarray:
    """The target codes of packed cell rows (the target is the last, least significant code)."""
    return rows[:, -1] % card


def _keys(rows: np.ndarray, card: int) -> np.ndarray:
    """The packed key part of cell rows, as rows that compare as the key codes do."""
    last = rows[:, -1] // card
    return last[:, None] if rows.shape[1] == 1 else np.column_stack([rows[:, :-1], last])


# ------------------------------------------------------------------------- repU and DiSCO
def _one_target(
    tab: _Tables, t: str, thresh_1way: tuple[float, float],
    thresh_2way: tuple[float, float] = (4, 80),
) -> Disclosure:
    rows, checks, checks2 = [], [], []
    kcols = [tab.columns[k] for k in tab.keys]
    tlabels = r_labels(tab.columns[t].labels, tab.columns[t].values)
    klabels = [r_labels(c.labels, c.values) for c in kcols]
    c_rows, c_cnt = tab.conf_cells[t]
    for j, syn in enumerate(tab.syn_cells):
        s_rows, s_cnt = syn[t]
        cells, at_c, at_s = _union(c_rows, s_rows)
        k = len(cells)
        d = np.zeros(k, dtype=np.int64)
        d[at_c] = c_cnt
        s = np.zeros(k, dtype=np.int64)
        s[at_s] = s_cnt
        del at_c, at_s
        card = len(tab.columns[t].labels)
        keys = _keys(cells, card)
        new_q = np.ones(k, dtype=bool)
        if k:
            new_q[1:] = np.any(keys[1:] != keys[:-1], axis=1)
        del keys
        qi = np.cumsum(new_q) - 1
        tk = _target(cells, card)
        kc = _unpack(cells, [len(c.labels) for c in kcols] + [card])[:, :-1]
        del cells
        n_t = int(tk.max()) + 1 if k else 1
        m = cell_measures(d, s, tk, qi, n_t, np.ones(k, dtype=bool), n_conf=tab.n_conf,
                          n_syn=tab.n_imps[j], denom_lim=5, exclude_ov_denom_lim=False)
        cell_keys = [kc[:, i] for i in range(kc.shape[1])]
        c2 = check_2way(  # the original records counted through their cells (weights d)
            np.asarray(m["disco_cells"]), tk, cell_keys, tk, cell_keys, tlabels, klabels,
            tab.keys, thresh_2way, conf_counts=d,
        )  # fmt: skip
        c2.insert(0, "implicate", j + 1)
        checks2.append(c2)
        row, check = implicate_row(m, tab.columns[t].labels, thresh_1way)
        rows.append(row)
        checks.append(check)
    return assemble_disclosure(rows, checks, tab.keys, t, tab.n_conf,
                               check_2way=pd.concat(checks2, ignore_index=True))


def _union(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The sorted distinct rows of two tables of sorted distinct rows, and where each row of
    ``a`` and of ``b`` lies among them."""
    if a.shape[1] == 1:  # one word: merge the two sorted runs, then binary searches
        both = np.concatenate([a[:, 0], b[:, 0]])
        both.sort(kind="stable")
        keep = np.ones(both.size, dtype=bool)
        keep[1:] = both[1:] != both[:-1]
        cells = both[keep]
        del both, keep
        return (cells[:, None], np.searchsorted(cells, a[:, 0]),
                np.searchsorted(cells, b[:, 0]))
    cells, idx = _distinct_inverse(np.concatenate([a, b]))
    return cells, idx[:len(a)], idx[len(a):]


def _distinct_inverse(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rows (lexicographic order) and each row's index among them."""
    n = rows.shape[0]
    if n == 0:
        return rows, np.zeros(0, dtype=np.int64)
    if rows.shape[1] == 1:
        u, inv = np.unique(rows[:, 0], return_inverse=True)
        return u[:, None], inv.ravel().astype(np.int64)
    order = np.lexsort(rows.T[::-1])
    srt = rows[order]
    new = np.ones(n, dtype=bool)
    new[1:] = np.any(srt[1:] != srt[:-1], axis=1)
    inv = np.empty(n, dtype=np.int64)
    inv[order] = np.cumsum(new) - 1
    return srt[new], inv


def _release_parts(tab: _Tables) -> tuple[MultiDisclosure, float]:
    results = {t: _one_target(tab, t, (50, 90)) for t in tab.targets}
    assert tab.replicated is not None
    return (assemble_multi(results, tab.keys),
            float(np.mean(np.asarray(tab.replicated) / tab.n_conf)))


# ------------------------------------------------------------------ attribute disclosure
def _by_pattern(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct key rows of sorted cells and each cell's index among them."""
    k = keys.shape[0]
    new = np.ones(k, dtype=bool)
    if k:
        new[1:] = np.any(keys[1:] != keys[:-1], axis=1)
    return keys[new], np.cumsum(new) - 1


def _lookup(patterns: np.ndarray, queries: np.ndarray) -> np.ndarray:
    """Index of each query row among the sorted distinct ``patterns`` rows, -1 if absent."""
    if not len(patterns) or not len(queries):
        return np.full(len(queries), -1, dtype=np.int64)
    if patterns.shape[1] == 1:  # one word: a binary search, no sort of the queries
        p, q = patterns[:, 0], queries[:, 0]
        at = np.minimum(np.searchsorted(p, q), len(p) - 1)
        return np.where(p[at] == q, at, -1).astype(np.int64)
    both = np.concatenate([patterns, queries])
    _, inv = _distinct_inverse(both)
    pos = np.full(int(inv.max()) + 1, -1, dtype=np.int64)
    pos[inv[:len(patterns)]] = np.arange(len(patterns))
    return pos[inv[len(patterns):]]


def _attack_cat(tab: _Tables, t: str, j: int) -> tuple[float, float]:
    """Accuracy of the release's attack and of its marginal on target ``t``."""
    miss, card = tab.columns[t].missing, len(tab.columns[t].labels)
    s_rows, s_cnt = tab.syn_cells[j][t]
    s_t = _target(s_rows, card)
    ok = s_t != miss
    if not ok.all():
        s_rows, s_cnt, s_t = s_rows[ok], s_cnt[ok], s_t[ok]
    first = tab.syn_first[j][t]
    rank = np.full(card, len(first), dtype=np.int64)
    rank[first] = np.arange(len(first))
    pats, pi = _by_pattern(_keys(s_rows, card))
    pred = np.full(len(pats), -1, dtype=np.int64)
    if len(s_rows):  # most frequent level per pattern; ties: the one the implicate shows first
        order = np.lexsort((rank[s_t], -s_cnt, pi))
        lead = np.ones(len(order), dtype=bool)
        lead[1:] = pi[order][1:] != pi[order][:-1]
        pred[pi[order][lead]] = s_t[order][lead]
    marginal = -1
    if len(s_t):
        tot = np.bincount(s_t, weights=s_cnt, minlength=len(rank))
        cand = np.flatnonzero(tot == tot.max())
        marginal = int(cand[np.argmin(rank[cand])])
    c_rows, c_cnt = tab.conf_cells[t]
    c_t = _target(c_rows, card)
    known = c_t != miss
    if not known.all():
        c_rows, c_cnt, c_t = c_rows[known], c_cnt[known], c_t[known]
    denom = int(c_cnt.sum())
    if denom == 0:
        return float("nan"), float("nan")
    at = _lookup(pats, _keys(c_rows, card))
    guess = np.where(at >= 0, pred[np.maximum(at, 0)], -1)
    guess = np.where(guess >= 0, guess, marginal)
    hit = (guess >= 0) & (guess == c_t)
    marg_hit = (marginal >= 0) & (c_t == marginal)
    return float(c_cnt[hit].sum() / denom), float(c_cnt[marg_hit].sum() / denom)


def _numbers(col: _Column) -> np.ndarray:
    return pd.to_numeric(pd.Series(col.values, dtype=object), errors="coerce").to_numpy(
        dtype=np.float64, na_value=np.nan)


def _attack_num(tab: _Tables, t: str, j: int, tol: float) -> tuple[dict[str, float], ...]:
    """RMSE and share within tolerance of the release's attack and of its marginal."""
    card = len(tab.columns[t].labels)
    value = _numbers(tab.columns[t])
    s_rows, s_cnt = tab.syn_cells[j][t]
    v = value[_target(s_rows, card)]
    ok = np.isfinite(v)
    if not ok.all():
        s_rows, s_cnt, v = s_rows[ok], s_cnt[ok], v[ok]
    pats, pi = _by_pattern(_keys(s_rows, card))
    sums = np.bincount(pi, weights=v * s_cnt, minlength=len(pats))
    cnt = np.bincount(pi, weights=s_cnt, minlength=len(pats))
    means = np.divide(sums, cnt, out=np.full(len(pats), np.nan), where=cnt > 0)
    marginal = float((v * s_cnt).sum() / s_cnt.sum()) if len(v) else float("nan")
    c_rows, c_cnt = tab.conf_cells[t]
    truth = value[_target(c_rows, card)]
    at = _lookup(pats, _keys(c_rows, card))
    pred = np.where(at >= 0, means[np.maximum(at, 0)], np.nan)
    pred = np.where(np.isnan(pred), marginal, pred)
    return (_score(truth, pred, c_cnt, tol),
            _score(truth, np.full(len(truth), marginal), c_cnt, tol))


def _score(truth: np.ndarray, pred: np.ndarray, w: np.ndarray, tol: float) -> dict[str, float]:
    ok = np.isfinite(truth) & np.isfinite(pred)
    if not ok.any():
        return {"rmse": float("nan"), "within_tolerance": float("nan")}
    err, wt = pred[ok] - truth[ok], w[ok]
    n = float(wt.sum())
    return {"rmse": float(np.sqrt(np.sum(wt * err**2) / n)),
            "within_tolerance": float(wt[np.abs(err) <= tol * np.abs(truth[ok])].sum() / n)}


def _scores(tab: _Tables, schema: Schema, tolerance: float) -> Scores:
    out: Scores = []
    for t in tab.targets:
        rel, marg = [], []
        for j in range(len(tab.syn_cells)):
            if schema[t].is_categorical:
                a, m = _attack_cat(tab, t, j)
                rel.append({"accuracy": a})
                marg.append({"accuracy": m})
            else:
                r, m2 = _attack_num(tab, t, j, tolerance)
                rel.append(r)
                marg.append(m2)
        out.append((t, rel, marg, None))
    return out


# ---------------------------------------------------------------------------- public API
def _setting(conf: Any, synthetic: Any, keys: Any, targets: Any) -> tuple[
    Any, list[Any], list[str], list[str]
]:
    conf = as_dask(conf, name="conf")
    imps = as_dask_implicates(synthetic, name="synthetic")
    keys_l = as_list(keys, name="keys")
    targets_l = as_list(targets, name="targets")
    _check(conf, imps, keys_l, targets_l)
    return conf, imps, keys_l, targets_l


def _target_schema(conf: Any, targets: list[str], schema: Schema | Mapping[str, Any] | None
                   ) -> Schema:
    if isinstance(schema, Schema) and all(t in schema.columns for t in targets):
        return schema
    from synthguard._dask.counts import exact_schema

    overrides = None
    if schema is not None:
        src = schema.columns if isinstance(schema, Schema) else schema
        overrides = {c: v for c, v in src.items() if c in targets}
    return exact_schema(conf[targets], overrides)


def release_parts(conf: Any, synthetic: Any, keys: Sequence[str], targets: Sequence[str]
                  ) -> tuple[MultiDisclosure, float]:
    """repU and DiSCO (Raab, Nowok & Dibben 2024) of ``keys`` and each target, and the mean
    share of replicated uniques on every column the release shares with ``conf``, of Dask
    data for :func:`synthguard.risk.release_disclosure`, from cell counts made on the
    workers: equal to the pandas figures bit for bit.

    Raises
    ------
    ParameterError : no keys or targets, a target among the keys, or more than
        :data:`MAX_CELLS` distinct (keys, target) cells.
    DataError : a key or target column missing, or data without rows.
    """
    conf, imps, keys_l, targets_l = _setting(conf, synthetic, keys, targets)
    return _release_parts(_tables(conf, imps, keys_l, targets_l, replicated=True))


def attribute_scores(conf: Any, synthetic: Any, keys: list[str], targets: list[str], *,
                     tolerance: float, schema: Schema | Mapping[str, Any] | None) -> Scores:
    """The key-variable attack's accuracy, RMSE and share within ``tolerance`` against the
    release's marginal, per target and implicate, of Dask data (no holdout) for
    :func:`synthguard.risk.attribute_disclosure`, from cell counts made on the workers.
    Categorical targets give the pandas figures exactly; numeric ones up to the rounding of
    the release's means (see the module)."""
    conf, imps, keys_l, targets_l = _setting(conf, synthetic, keys, targets)
    tab = _tables(conf, imps, keys_l, targets_l, replicated=False)
    return _scores(tab, _target_schema(conf, targets_l, schema), tolerance)


def disclosure_measures(conf: Any, synthetic: Any, keys: Sequence[str],
                        targets: Sequence[str], *, schema: Schema | Mapping[str, Any] | None = None,
                        tolerance: float = 0.1) -> tuple[ReleaseDisclosure, AttributeDisclosure]:
    """:func:`synthguard.risk.release_disclosure` and
    :func:`synthguard.risk.attribute_disclosure` of Dask data from one set of passes over
    the data (what :func:`synthguard.scale.evaluate` uses), assembled by the room's
    functions."""
    if not np.isfinite(tolerance) or tolerance < 0:
        raise ParameterError("parameter 'tolerance': expected a finite number >= 0")
    conf, imps, keys_l, targets_l = _setting(conf, synthetic, keys, targets)
    tab = _tables(conf, imps, keys_l, targets_l, replicated=True)
    scores = _scores(tab, _target_schema(conf, targets_l, schema), float(tolerance))
    return (release_result(*_release_parts(tab)),
            attribute_result(scores, keys_l, targets_l, float(tolerance)))
