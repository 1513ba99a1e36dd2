"""The per-block kernels of the risk measures: each takes one block of records (a pandas
partition holding whole patterns) and returns per-record counts and risks.

A block is what the Dask backend hands a worker after a hash shuffle on the key variables
(:func:`synthguard._dask.partitions.shuffle_by_keys`): every pattern then lies whole in one
block, in the confidential data and in every implicate alike, so the pandas measures of this
room run on a block unchanged (confidential risk) or the same pattern encoder and ball counts
are made per implicate (release). Each block carries the records' global row numbers
(column :data:`synthguard._dask.ROW`), by which the combined result is put back in order.
The kernels import no Dask: they are plain functions of pandas frames, usable by any engine
that maps over partitions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from synthguard._dask import ROW
from synthguard.errors import SchemaError
from synthguard.risk._balls import Balls, make_balls
from synthguard.risk._common import SingletonPolicy, implicate_risk, target_matrix
from synthguard.risk._patterns import PatternEncoder
from synthguard.risk.blocks.frequencies import kanon_counts
from synthguard.risk.blocks.value_tables import nan_missing

__all__ = [
    "FIRST",
    "check_finite",
    "first_rows",
    "ident_conf_block",
    "ident_conf_counts",
    "ident_conf_meta",
    "ident_release_block",
    "ident_release_meta",
    "kanon_block",
    "kanon_meta",
    "match_block",
    "match_meta",
    "own_rows",
    "pairwise_block",
    "pairwise_counts",
    "release_counts",
]

FIRST = "_first"  # row number of the first record of the record's pattern


def first_rows(codes: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Row number of the first record (smallest row number) of every record's pattern."""
    if codes.size == 0:
        return np.zeros(0, dtype=np.int64)
    first = np.full(int(codes.max()) + 1, np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(first, codes, rows)
    return first[codes]


def own_rows(conf: pd.DataFrame, frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Position in ``frame`` of every confidential record's own released row (-1 if that row
    lies in another partition, i.e. has another pattern). A block without row numbers is the
    whole data, its implicates row-aligned with it."""
    if ROW not in conf.columns:
        return np.arange(len(conf), dtype=np.int64), np.ones(len(conf), dtype=bool)
    pos = pd.Index(frame[ROW].to_numpy()).get_indexer(conf[ROW].to_numpy())
    return np.asarray(pos, dtype=np.int64), pos >= 0


def _pattern_balls(block: pd.DataFrame, keys: list[str], targets: list[str], r: np.ndarray,
                   relative: bool, inclusive: bool
                   ) -> tuple[np.ndarray, PatternEncoder, np.ndarray, Balls]:
    """The confidential targets, the pattern encoder, every record's pattern size and the
    balls B(y_i, r) of a block."""
    y = target_matrix(block, targets, name="conf", allow_missing=False)
    enc = PatternEncoder.fit(block, keys)
    balls = make_balls(
        enc.codes, y, r, relative=relative, inclusive=inclusive, n_patterns=enc.n_patterns
    )
    return y, enc, enc.sizes()[enc.codes], balls


def ident_conf_counts(
    block: pd.DataFrame,
    *,
    keys: list[str],
    targets: list[str],
    r: np.ndarray,
    relative: bool,
    inclusive: bool,
    policy: SingletonPolicy,
) -> dict[str, np.ndarray]:
    """The identification risk IR_i^c of the confidential records of one block holding whole
    patterns (Hu, Savitsky & Williams, eq. (2))::

        IR_i^c = (|M_p| - |B_i|) / |M_p|

    with |M_p| the records of i's pattern and |B_i| those of them inside i's ball. Returns
    ``risk``, ``size`` (|M_p|), ``inside`` (|B_i|, as float) and ``pattern`` (codes in order
    of first appearance). The pandas path is this kernel on the whole data; the Dask path
    runs it on every partition of a hash shuffle on the keys."""
    y, enc, sizes, balls = _pattern_balls(block, keys, targets, r, relative, inclusive)
    inside = balls.count_inside(enc.codes, y)
    risk = (sizes - inside) / np.maximum(sizes, 1)
    single = sizes == 1
    if policy == "one":
        risk = np.where(single, 1.0, risk)
    if policy == "exclude":
        risk = np.where(single, np.nan, risk)
    return {"risk": risk, "size": sizes, "inside": inside.astype(np.float64),
            "pattern": enc.codes}


def _framed(part: pd.DataFrame, rows: np.ndarray, res: dict[str, np.ndarray]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            ROW: rows,
            FIRST: first_rows(res["pattern"], rows),
            "risk": res["risk"],
            "size": np.asarray(res["size"], dtype=np.int64),
            "inside": np.asarray(res["inside"], dtype=np.float64),
        },
        index=part.index,
    )


def ident_conf_block(part: pd.DataFrame, **kw: Any) -> pd.DataFrame:
    """:func:`ident_conf_counts` of one partition (whole patterns), with its row numbers."""
    part = part.sort_values(ROW, kind="stable")
    if len(part) == 0:
        return ident_conf_meta(part.index)
    return _framed(part, part[ROW].to_numpy(dtype=np.int64), ident_conf_counts(part, **kw))


def ident_conf_meta(index: pd.Index) -> pd.DataFrame:
    return pd.DataFrame(
        {
            ROW: np.zeros(0, np.int64),
            FIRST: np.zeros(0, np.int64),
            "risk": np.zeros(0),
            "size": np.zeros(0, np.int64),
            "inside": np.zeros(0),
        },
        index=index[:0],
    )


def release_counts(
    conf: pd.DataFrame,
    frames: Sequence[pd.DataFrame],
    *,
    exact: list[str],
    near: list[str],
    r: np.ndarray | None,
    relative: bool,
    inclusive: bool,
    allow_missing: bool,
) -> tuple[np.ndarray, Any, list[tuple[np.ndarray, np.ndarray, np.ndarray]]]:
    """For one block (whole patterns, or the whole data with row-aligned implicates): pattern
    codes and row numbers (None without the column of row numbers) of the confidential
    records and, per implicate, (members, inside, own): the implicate's rows of record i's
    pattern, those inside ball i, and whether record i's own row is among the latter: the
    counts of :func:`synthguard.risk.identification_risk` and
    :func:`synthguard.risk.match_rates` on a release (pattern encoder, ``make_balls``,
    ``count_inside``)."""
    conf = nan_missing(conf, exact)
    frames = [nan_missing(f, exact) for f in frames]
    enc = PatternEncoder.fit(conf, exact)
    rows = conf[ROW].to_numpy(dtype=np.int64) if ROW in conf.columns else None
    balls = None
    if near:
        assert r is not None
        y = target_matrix(conf, near, name="conf", allow_missing=allow_missing)
        balls = make_balls(
            enc.codes, y, r, relative=relative, inclusive=inclusive, n_patterns=enc.n_patterns
        )
    out = []
    for li, frame in enumerate(frames):
        pat = enc.transform(frame)
        members = np.bincount(pat[pat >= 0], minlength=enc.n_patterns)[enc.codes]
        pos, has = own_rows(conf, frame)
        own_pat = np.full(len(conf), -1, dtype=np.int64)
        own_pat[has] = pat[pos[has]]
        if balls is not None:
            ys = target_matrix(frame, near, name=f"synthetic implicate {li}",
                               allow_missing=True)
            inside = balls.count_inside(pat, ys)
            own_y = np.full((len(conf), len(near)), np.nan)
            if has.any():
                own_y[has] = ys[pos[has]]
            own = (own_pat == enc.codes) & balls.contains(own_y)
        else:
            inside = members
            own = own_pat == enc.codes
        out.append((members, inside, own))
    return enc.codes, rows, out


def ident_release_block(
    part: pd.DataFrame,
    *frames: pd.DataFrame,
    keys: list[str],
    targets: list[str],
    r: np.ndarray,
    relative: bool,
    inclusive: bool,
) -> pd.DataFrame:
    part = part.sort_values(ROW, kind="stable")
    if len(part) == 0:
        return ident_release_meta(part.index, len(frames))
    codes, rows, counts = release_counts(
        part,
        frames,
        exact=keys,
        near=targets,
        r=r,
        relative=relative,
        inclusive=inclusive,
        allow_missing=False,
    )
    cols: dict[str, np.ndarray] = {
        ROW: rows,
        FIRST: first_rows(codes, rows),
        "size": np.bincount(codes)[codes].astype(np.int64),
    }
    for li, (members, inside, own) in enumerate(counts):
        cols[f"risk{li}"] = implicate_risk(own, members, inside)
        cols[f"own{li}"] = own
        cols[f"inside{li}"] = inside.astype(np.int64)
    return pd.DataFrame(cols, index=part.index)


def ident_release_meta(index: pd.Index, n_impl: int) -> pd.DataFrame:
    cols: dict[str, np.ndarray] = {
        ROW: np.zeros(0, np.int64),
        FIRST: np.zeros(0, np.int64),
        "size": np.zeros(0, np.int64),
    }
    for li in range(n_impl):
        cols[f"risk{li}"] = np.zeros(0)
        cols[f"own{li}"] = np.zeros(0, dtype=bool)
        cols[f"inside{li}"] = np.zeros(0, np.int64)
    return pd.DataFrame(cols, index=index[:0])


def _cover_sums(balls: Balls, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For every record i: ``|B_i|`` and ``S_i = sum_{h in B_i} c_h`` where ``c_h`` is the number
    of balls of h's pattern containing y_h (both over the confidential records)."""
    n = balls.n
    if balls.d == 1:
        _, start, stop = balls.runs(balls.pattern, y, 0)
        inside = stop - start
        # c at each sorted position: how many runs [start_j, stop_j) cover it (difference array)
        diff = np.bincount(start, minlength=n + 1) - np.bincount(stop, minlength=n + 1)
        cover = np.cumsum(diff[:n])
        prefix = np.concatenate([[0], np.cumsum(cover)])
        return inside, prefix[stop] - prefix[start]
    if balls.d == 2:
        inside = balls.box_sums(balls.pattern, y)
        order, cover_sorted = balls.box_cover(balls.pattern, y)
        c = np.empty(n, dtype=np.int64)
        c[order] = cover_sorted
        return inside, balls.box_sums(balls.pattern, y, weights=c)
    inside = np.zeros(n, dtype=np.int64)
    cover = np.zeros(n, dtype=np.int64)
    for rec, pos, _ in balls._pairs(balls.pattern, y):
        inside += np.bincount(rec, minlength=n)
        cover += np.bincount(pos, minlength=n)
    sums = np.zeros(n, dtype=np.int64)
    for rec, pos, _ in balls._pairs(balls.pattern, y):
        sums += np.bincount(rec, weights=cover[pos], minlength=n).astype(np.int64)
    return inside, sums


def pairwise_counts(
    block: pd.DataFrame,
    *,
    keys: list[str],
    targets: list[str],
    r: np.ndarray,
    relative: bool,
    inclusive: bool,
    policy: SingletonPolicy,
) -> dict[str, np.ndarray]:
    """The normalised pairwise risk ``1 - alpha~_i`` of the records of one block holding whole
    patterns (Hu, Savitsky & Williams, eqs. (6)-(9)), without pairs::

        m * sum_{j != i} IR_ij^c = (m - 1)(m - |B_i|) - T_p + S_i

    (see :func:`synthguard.risk.pairwise_identification_risk`), divided by m (m - 1).
    Returns ``risk``, ``size`` (m), ``inside`` (|B_i|) and ``pattern``."""
    y, enc, m, balls = _pattern_balls(block, keys, targets, r, relative, inclusive)
    inside, sums = _cover_sums(balls, y)
    total = np.bincount(enc.codes, weights=inside, minlength=enc.n_patterns).astype(np.int64)
    numer = (m - 1) * (m - inside) - total[enc.codes] + sums  # = m * sum_{j != i} IR_ij^c
    single = m == 1
    risk = numer / np.where(single, 1, m * (m - 1))
    fill = {"zero": 0.0, "one": 1.0, "exclude": np.nan}[policy]
    return {"risk": np.where(single, fill, risk), "size": m, "inside": inside,
            "pattern": enc.codes}


def pairwise_block(part: pd.DataFrame, **kw: Any) -> pd.DataFrame:
    """:func:`pairwise_counts` of one partition (whole patterns), with its row numbers."""
    part = part.sort_values(ROW, kind="stable")
    if len(part) == 0:
        return ident_conf_meta(part.index)
    return _framed(part, part[ROW].to_numpy(dtype=np.int64), pairwise_counts(part, **kw))


def kanon_block(
    part: pd.DataFrame, incomplete: pd.DataFrame, fk_own: np.ndarray, *, keys: list[str]
) -> pd.DataFrame:
    """fk of the partition's complete records, and for every incomplete record the number of
    this partition's complete records compatible with it (sdcMicro's rule), both from
    :func:`~synthguard.risk.blocks.frequencies.kanon_counts` of the partition plus all
    incomplete records."""
    n_p = len(part)
    both = pd.concat([part[keys], incomplete[keys]], ignore_index=True)
    if n_p == 0:
        return kanon_meta(part.index)
    fk, _, n_classes = kanon_counts(both, keys)
    rows = np.concatenate([part[ROW].to_numpy(dtype=np.int64), incomplete[ROW].to_numpy()])
    extra = np.concatenate([fk[:n_p], fk[n_p:] - fk_own])
    kind = np.concatenate([np.zeros(n_p, dtype=np.int8), np.ones(len(incomplete), np.int8)])
    classes = np.zeros(rows.shape[0], dtype=np.int64)
    if rows.size:
        classes[0] = n_classes
    return pd.DataFrame(
        {ROW: rows, "fk": extra, "incomplete": kind, "classes": classes},
        index=part.index.append(incomplete.index),
    )


def kanon_meta(index: pd.Index) -> pd.DataFrame:
    return pd.DataFrame(
        {
            ROW: np.zeros(0, np.int64),
            "fk": np.zeros(0, np.int64),
            "incomplete": np.zeros(0, np.int8),
            "classes": np.zeros(0, np.int64),
        },
        index=index[:0],
    )


def check_finite(conf: pd.DataFrame, near: list[str]) -> None:
    """Raise :class:`SchemaError` naming the columns matched within a radius that hold a
    missing or infinite confidential value (a ball needs a centre)."""
    if not near:
        return
    bad = ~np.isfinite(conf[near].to_numpy(dtype=np.float64, na_value=np.nan))
    if bad.any():
        cols = [near[j] for j in np.flatnonzero(bad.any(axis=0))]
        raise SchemaError(
            f"conf: numeric column(s) {cols} matched within a radius have missing or "
            f"infinite values; impute them, or set their radius to 0 to match exactly"
        )


def match_block(
    part: pd.DataFrame,
    *frames: pd.DataFrame,
    exact: list[str],
    near: list[str],
    r: np.ndarray | None,
    relative: bool,
    inclusive: bool,
) -> pd.DataFrame:
    part = part.sort_values(ROW, kind="stable")
    if len(part) == 0:
        return match_meta(part.index, len(frames))
    check_finite(part, near)
    _, rows, counts = release_counts(
        part,
        frames,
        exact=exact,
        near=near,
        r=r,
        relative=relative,
        inclusive=inclusive,
        allow_missing=True,
    )
    cols: dict[str, np.ndarray] = {ROW: rows}
    for li, (_, inside, own) in enumerate(counts):
        cols[f"cand{li}"] = inside.astype(np.int64)
        cols[f"own{li}"] = own
    return pd.DataFrame(cols, index=part.index)


def match_meta(index: pd.Index, n_impl: int) -> pd.DataFrame:
    cols: dict[str, np.ndarray] = {ROW: np.zeros(0, np.int64)}
    for li in range(n_impl):
        cols[f"cand{li}"] = np.zeros(0, np.int64)
        cols[f"own{li}"] = np.zeros(0, dtype=bool)
    return pd.DataFrame(cols, index=index[:0])

