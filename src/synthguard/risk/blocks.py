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
from synthguard.risk import identification as _ident
from synthguard.risk import pairwise as _pairwise
from synthguard.risk import uniqueness as _uniqueness
from synthguard.risk._balls import make_balls
from synthguard.risk._common import implicate_risk, target_matrix
from synthguard.risk._on_dask.value_tables import nan_missing
from synthguard.risk._patterns import PatternEncoder

__all__ = [
    "FIRST",
    "first_rows",
    "ident_conf_block",
    "ident_conf_meta",
    "ident_release_block",
    "ident_release_meta",
    "kanon_block",
    "kanon_meta",
    "match_block",
    "match_meta",
    "own_rows",
    "pairwise_block",
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
    lies in another partition, i.e. has another pattern)."""
    pos = pd.Index(frame[ROW].to_numpy()).get_indexer(conf[ROW].to_numpy())
    return np.asarray(pos, dtype=np.int64), pos >= 0



def ident_conf_block(
    part: pd.DataFrame, *, keys: list[str], targets: list[str], **kw: Any
) -> pd.DataFrame:
    part = part.sort_values(ROW, kind="stable")
    rows = part[ROW].to_numpy(dtype=np.int64)
    if len(part) == 0:
        return ident_conf_meta(part.index)
    res = _ident.identification_risk(part, keys=keys, quantiles=(), targets=targets, **kw)
    return pd.DataFrame(
        {
            ROW: rows,
            FIRST: first_rows(res.pattern, rows),
            "risk": res.per_record,
            "size": res.pattern_size.astype(np.int64),
            "inside": res.n_inside,
        },
        index=part.index,
    )


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
) -> tuple[np.ndarray, np.ndarray, list[tuple[np.ndarray, np.ndarray, np.ndarray]]]:
    """For one partition (whole patterns): pattern codes and row numbers of the confidential
    records and, per implicate, (members, inside, own): the implicate's rows of record i's
    pattern, those inside ball i, and whether record i's own row is among the latter. The same
    steps as :func:`synthguard.risk.identification_risk` and
    :func:`synthguard.risk.match_rates` (pattern encoder, ``make_balls``, ``count_inside``)."""
    conf = nan_missing(conf, exact)
    frames = [nan_missing(f, exact) for f in frames]
    enc = PatternEncoder.fit(conf, exact)
    rows = conf[ROW].to_numpy(dtype=np.int64)
    balls = None
    if near:
        assert r is not None
        y = target_matrix(conf, near, name="conf", allow_missing=allow_missing)
        balls = make_balls(
            enc.codes, y, r, relative=relative, inclusive=inclusive, n_patterns=enc.n_patterns
        )
    out = []
    for frame in frames:
        pat = enc.transform(frame)
        members = np.bincount(pat[pat >= 0], minlength=enc.n_patterns)[enc.codes]
        pos, has = own_rows(conf, frame)
        own_pat = np.full(len(conf), -1, dtype=np.int64)
        own_pat[has] = pat[pos[has]]
        if balls is not None:
            ys = target_matrix(frame, near, name="synthetic implicate", allow_missing=True)
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




def pairwise_block(
    part: pd.DataFrame, *, keys: list[str], targets: list[str], **kw: Any
) -> pd.DataFrame:
    part = part.sort_values(ROW, kind="stable")
    if len(part) == 0:
        return ident_conf_meta(part.index)
    rows = part[ROW].to_numpy(dtype=np.int64)
    res = _pairwise.pairwise_identification_risk(
        part, keys=keys, quantiles=(), targets=targets, **kw
    )
    return pd.DataFrame(
        {
            ROW: rows,
            FIRST: first_rows(res.pattern, rows),
            "risk": res.per_record,
            "size": np.asarray(res.pattern_size, dtype=np.int64),
            "inside": np.asarray(res.n_inside, dtype=np.float64),
        },
        index=part.index,
    )


def kanon_block(
    part: pd.DataFrame, incomplete: pd.DataFrame, fk_own: np.ndarray, *, keys: list[str]
) -> pd.DataFrame:
    """fk of the partition's complete records, and for every incomplete record the number of
    this partition's complete records compatible with it (sdcMicro's rule), both from
    :func:`synthguard.risk.k_anonymity` on the partition plus all incomplete records."""
    n_p = len(part)
    both = pd.concat([part[keys], incomplete[keys]], ignore_index=True)
    if n_p == 0:
        return kanon_meta(part.index)
    res = _uniqueness.k_anonymity(both, keys, k=1)
    fk = res.fk
    rows = np.concatenate([part[ROW].to_numpy(dtype=np.int64), incomplete[ROW].to_numpy()])
    extra = np.concatenate([fk[:n_p], fk[n_p:] - fk_own])
    kind = np.concatenate([np.zeros(n_p, dtype=np.int8), np.ones(len(incomplete), np.int8)])
    classes = np.zeros(rows.shape[0], dtype=np.int64)
    if rows.size:
        classes[0] = res.n_classes
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
    if near and not np.isfinite(part[near].to_numpy(dtype=np.float64, na_value=np.nan)).all():
        raise SchemaError(
            f"conf: numeric column(s) {near} matched within a radius have missing or "
            f"infinite values; impute them, or set their radius to 0 to match exactly"
        )
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

