"""Identity-disclosure measures on Dask, exactly equal to the pandas path.

Every measure here depends on a record only through the records of its pattern (its key
values). Identification risk with one target needs, per pattern, only the sorted target
values and is computed from small tables without moving records
(:mod:`synthguard.scale._tables`). Otherwise the data are hash-shuffled on the pattern keys (``synthguard._dask.partitions``):
each pattern then lies whole in one partition, in the confidential data and in every implicate
alike, and the *existing* per-pattern algorithms of :mod:`synthguard.risk` run on each partition
unchanged (the pandas functions themselves where the measure reads the confidential data only,
the pattern encoder and ball counts of ``synthguard.risk._balls`` where a release is involved).
Integer counts per record are the same whatever the partitioning, the per-record formula is the
same floating-point expression, and the summaries are computed once on the client over the
records in their original order: the results equal the single-machine results bit for bit.

Row order: records are numbered 0..n-1 in the order of the Dask frame's partitions (one cheap
pass to learn partition lengths), which is how implicates are aligned with the confidential
rows and how the per-record arrays are returned. The per-record arrays are brought to the
client (8 bytes per record and array: about 400 MB for 10 million records).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd

from synthguard._dask.partitions import (
    ROW,
    as_dask,
    as_dask_implicates,
    collect_rows,
    is_dask,
    shuffle_by_keys,
    with_row_numbers,
)
from synthguard.data import Schema
from synthguard.errors import DataError, DisclosureWarning, ParameterError, SchemaError
from synthguard.risk import distance as _distance
from synthguard.risk import identification as _ident
from synthguard.risk import matching as _matching
from synthguard.risk import pairwise as _pairwise
from synthguard.risk import uniqueness as _uniqueness
from synthguard.risk._balls import make_balls
from synthguard.risk._common import (
    DEFAULT_QUANTILES,
    as_list,
    check_singletons,
    implicate_risk,
    radius_vector,
    risk_summary,
    target_matrix,
    warn_singletons,
)
from synthguard.risk._encoding import check_metric, common_columns, encode_frames
from synthguard.risk._neighbours import nearest
from synthguard.risk._patterns import PatternEncoder, check_columns
from synthguard.risk.distance import DistanceToClosestRecord
from synthguard.risk.identification import IdentificationRisk
from synthguard.risk.matching import MatchRates
from synthguard.risk.pairwise import PairwiseIdentificationRisk
from synthguard.risk.uniqueness import KAnonymity, KAnonymitySummary
from synthguard.scale._ident_tables import identification_risk_by_tables
from synthguard.scale._tables import nan_missing
from synthguard.scale.risk_summary import IdentificationRiskSummary

__all__ = [
    "distance_to_closest_record",
    "identification_risk",
    "k_anonymity",
    "match_rates",
    "pairwise_identification_risk",
]

_FIRST = "_first"  # row number of the first record of the record's pattern


def _any_dask(*objs: Any) -> bool:
    for o in objs:
        if is_dask(o):
            return True
        items = getattr(o, "implicates", o)
        if isinstance(items, list | tuple) and any(is_dask(f) for f in items):
            return True
    return False


def _first_rows(codes: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Row number of the first record (smallest row number) of every record's pattern."""
    if codes.size == 0:
        return np.zeros(0, dtype=np.int64)
    first = np.full(int(codes.max()) + 1, np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(first, codes, rows)
    return first[codes]


def _pattern_codes(first: np.ndarray) -> np.ndarray:
    """Pattern codes in order of first appearance, as the pandas encoder numbers them."""
    return np.asarray(pd.factorize(first)[0], dtype=np.int64)


def _prepare(
    conf: dd.DataFrame, columns: list[str], keys: list[str], npartitions: int | None
) -> tuple[dd.DataFrame, int, int]:
    framed, n = with_row_numbers(conf[columns])
    parts = npartitions or conf.npartitions
    return shuffle_by_keys(framed, keys, parts), n, parts


def _prepare_implicates(
    synthetic: Any, columns: list[str], keys: list[str], n: int, parts: int
) -> list[dd.DataFrame]:
    out = []
    bad = []
    for li, frame in enumerate(as_dask_implicates(synthetic)):
        check_columns(frame._meta, columns, name=f"synthetic implicate {li}", role="key/target")
        framed, n_l = with_row_numbers(frame[columns])
        if n_l != n:
            bad.append(li)
        out.append(shuffle_by_keys(framed, keys, parts))
    if bad:
        raise DataError(
            f"synthetic: implicate(s) {bad} do not have as many rows as the confidential data; "
            f"partially synthetic implicates must keep the confidential rows in order"
        )
    return out


def _own_rows(conf: pd.DataFrame, frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Position in ``frame`` of every confidential record's own released row (-1 if that row
    lies in another partition, i.e. has another pattern)."""
    pos = pd.Index(frame[ROW].to_numpy()).get_indexer(conf[ROW].to_numpy())
    return np.asarray(pos, dtype=np.int64), pos >= 0


def _ball_settings(keys: Sequence[str], targets: Sequence[str], r: Any, relative: bool,
                   inclusive: bool, policy: str) -> dict[str, Any]:
    """The settings every ball-risk result records (keys, targets, radius, its kind and the
    singleton policy), in the fields :class:`IdentificationRisk` and the pairwise result use."""
    return {"keys": tuple(keys), "targets": tuple(targets),
            "radius": tuple(float(x) for x in r), "relative": relative,
            "inclusive": inclusive, "singletons": policy}


# ---------------------------------------------------------------------- identification risk
def _ident_conf_block(
    part: pd.DataFrame, *, keys: list[str], targets: list[str], **kw: Any
) -> pd.DataFrame:
    part = part.sort_values(ROW, kind="stable")
    rows = part[ROW].to_numpy(dtype=np.int64)
    if len(part) == 0:
        return _ident_conf_meta(part.index)
    res = _ident.identification_risk(part, keys=keys, quantiles=(), targets=targets, **kw)
    return pd.DataFrame(
        {
            ROW: rows,
            _FIRST: _first_rows(res.pattern, rows),
            "risk": res.per_record,
            "size": res.pattern_size.astype(np.int64),
            "inside": res.n_inside,
        },
        index=part.index,
    )


def _ident_conf_meta(index: pd.Index) -> pd.DataFrame:
    return pd.DataFrame(
        {
            ROW: np.zeros(0, np.int64),
            _FIRST: np.zeros(0, np.int64),
            "risk": np.zeros(0),
            "size": np.zeros(0, np.int64),
            "inside": np.zeros(0),
        },
        index=index[:0],
    )


def _release_counts(
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
        pos, has = _own_rows(conf, frame)
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


def _ident_release_block(
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
        return _ident_release_meta(part.index, len(frames))
    codes, rows, counts = _release_counts(
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
        _FIRST: _first_rows(codes, rows),
        "size": np.bincount(codes)[codes].astype(np.int64),
    }
    for li, (members, inside, own) in enumerate(counts):
        cols[f"risk{li}"] = implicate_risk(own, members, inside)
        cols[f"own{li}"] = own
        cols[f"inside{li}"] = inside.astype(np.int64)
    return pd.DataFrame(cols, index=part.index)


def _ident_release_meta(index: pd.Index, n_impl: int) -> pd.DataFrame:
    cols: dict[str, np.ndarray] = {
        ROW: np.zeros(0, np.int64),
        _FIRST: np.zeros(0, np.int64),
        "size": np.zeros(0, np.int64),
    }
    for li in range(n_impl):
        cols[f"risk{li}"] = np.zeros(0)
        cols[f"own{li}"] = np.zeros(0, dtype=bool)
        cols[f"inside{li}"] = np.zeros(0, np.int64)
    return pd.DataFrame(cols, index=index[:0])



def _check_ball_arguments(
    conf: Any, keys: Any, targets: Any, radius: Any, singletons: Any
) -> tuple[list[str], list[str], np.ndarray, str, bool]:
    """The checks of the pandas ball-risk functions, on the Dask frame's metadata: key and
    target lists (disjoint, at least one numeric target), the radius per target and the
    singleton policy."""
    keys_l = as_list(keys, name="keys")
    targets_l = as_list(targets, name="targets")
    if not targets_l:
        raise ParameterError("parameter 'targets': name at least one numeric target column")
    if set(keys_l) & set(targets_l):
        raise ParameterError("parameters 'keys' and 'targets': a column cannot be both")
    check_columns(conf._meta, keys_l, name="conf", role="key")
    r = radius_vector(radius, targets_l)
    policy, warn = check_singletons(singletons)
    target_matrix(conf._meta, targets_l, name="conf", allow_missing=True)
    return keys_l, targets_l, r, policy, warn

def _ident_result(
    res: dict[str, Any],
    warn: bool,
    quantiles: Sequence[float],
    keys: list[str],
    targets: list[str],
    r: np.ndarray,
    relative: bool,
    inclusive: bool,
    policy: str,
) -> IdentificationRisk:
    single = res["size"] == 1
    per_impl = res.get("per_implicate")
    return IdentificationRisk(
        **risk_summary(res["risk"], single, res["n"], warn, quantiles, "identification_risk"),
        pattern=res["pattern"],
        pattern_size=res["size"],
        n_inside=res["n_inside"],
        **_ball_settings(keys, targets, r, relative, inclusive, policy),
        n_implicates=0 if per_impl is None else int(per_impl.shape[1]),
        match_share=res.get("match_share"),
        per_implicate=per_impl,
        index=res["index"],
    )


def identification_risk(
    conf: Any,
    synthetic: Any = None,
    *,
    keys: Sequence[str],
    targets: str | Sequence[str],
    radius: float | Mapping[str, float] = 0.2,
    relative: bool = True,
    inclusive: bool = False,
    singletons: str | None = None,
    quantiles: Sequence[float] = DEFAULT_QUANTILES,
    npartitions: int | None = None,
    gather: bool = True,
    records: str | os.PathLike[str] | None = None,
) -> IdentificationRisk | IdentificationRiskSummary:
    """Record-level identification risk IR_i (Hu, Savitsky & Williams, eqs. (1)-(2)) of a
    Dask DataFrame, equal to :func:`synthguard.risk.identification_risk` bit for bit.

    The formulas, parameters and result are those of
    :func:`synthguard.risk.identification_risk`. With one target, no record moves: a pass
    over the confidential data builds the dictionary of patterns, a pass over every implicate
    its table of (pattern, target value, count), and each confidential partition counts its
    balls in those tables (:mod:`synthguard.scale._tables`); each pass reads the data once.
    With several targets, or when the patterns or value tables are too many for one worker
    (more than 2 million patterns or 20 million distinct (pattern, value) pairs), the
    confidential data and every implicate are hash-shuffled on ``keys`` into ``npartitions``
    partitions (default: ``conf``'s); each partition holds whole patterns, so the pandas
    function runs on it unchanged (confidential risk) or the same ball counts are made per
    implicate (release). Pandas inputs go straight to the pandas function (no Dask overhead
    on small files).

    Parameters
    ----------
    conf : confidential data (Dask or pandas DataFrame).
    synthetic : None, or a partially synthetic release: a Dask DataFrame, a list of them (one
        per implicate), or anything the pandas function accepts; rows aligned with ``conf``
        (same total order across partitions).
    keys, targets, radius, relative, inclusive, singletons, quantiles
        As in :func:`synthguard.risk.identification_risk`.
    npartitions : number of partitions of the shuffle.
    gather : bring the per-record arrays to the client (8 bytes per record and array) and
        return an ``IdentificationRisk`` equal to the pandas one. ``False`` keeps them on the
        workers and returns an :class:`~synthguard.scale.risk_summary.IdentificationRiskSummary`
        whose summaries are computed there, exactly (one target; with several, or when the
        shuffle is used, the arrays are gathered to compute them).
    records : a folder the per-record risk is written to as Parquet by the workers (one
        row per record, the columns of ``IdentificationRisk.to_frame()``).

    Returns
    -------
    IdentificationRisk or IdentificationRiskSummary
        ``index`` holds ``conf``'s index values in row order.
    """
    if not _any_dask(conf, synthetic):
        return _ident.identification_risk(
            conf,
            synthetic,
            keys=keys,
            targets=targets,
            radius=radius,
            relative=relative,
            inclusive=inclusive,
            singletons=singletons,
            quantiles=quantiles,
        )
    conf = as_dask(conf, name="conf")
    keys_l, targets, r, policy, warn = _check_ball_arguments(conf, keys, targets, radius,
                                                             singletons)
    if len(targets) == 1:
        fast = identification_risk_by_tables(
            conf,
            None if synthetic is None else as_dask_implicates(synthetic),
            keys=keys_l,
            target=targets[0],
            r=r,
            relative=relative,
            inclusive=inclusive,
            policy=policy,
            gather=gather,
            records=records,
            quantiles=quantiles,
        )
        if fast is not None and "summary" in fast:
            return _summary_result(fast, synthetic, warn, keys_l, targets, r, relative,
                                   inclusive, policy, records)
        if fast is not None:
            return _ident_result(fast, warn, quantiles, keys_l, targets, r, relative,
                                 inclusive, policy)
    columns = keys_l + targets
    shuffled, n, parts = _prepare(conf, columns, keys_l, npartitions)
    kw: dict[str, Any] = dict(relative=relative, inclusive=inclusive)
    if synthetic is None:
        meta = _ident_conf_meta(conf._meta.index)
        out = shuffled.map_partitions(
            _ident_conf_block,
            keys=keys_l,
            targets=targets,
            radius=radius,
            singletons=policy,
            meta=meta,
            **kw,
        )
        res, _ = collect_rows(out.compute(), n)
        sizes = res["size"].to_numpy(dtype=np.int64)
        risk = res["risk"].to_numpy(dtype=np.float64)
        n_inside = res["inside"].to_numpy(dtype=np.float64)
        match_share = per_impl = None
        n_impl = 0
    else:
        impls = _prepare_implicates(synthetic, columns, keys_l, n, parts)
        n_impl = len(impls)
        out = dd.map_partitions(
            _ident_release_block,
            shuffled,
            *impls,
            keys=keys_l,
            targets=targets,
            r=r,
            meta=_ident_release_meta(conf._meta.index, n_impl),
            align_dataframes=False,
            **kw,
        )
        res, _ = collect_rows(out.compute(), n)
        sizes = res["size"].to_numpy(dtype=np.int64)
        per_impl = np.column_stack(
            [res[f"risk{li}"].to_numpy(dtype=np.float64) for li in range(n_impl)]
        )
        tmat = np.column_stack([res[f"own{li}"].to_numpy(dtype=bool) for li in range(n_impl)])
        n_inside = np.zeros(n)
        for li in range(n_impl):
            n_inside += res[f"inside{li}"].to_numpy(dtype=np.int64)
        n_inside /= n_impl
        match_share = tmat.mean(axis=1)
        risk = per_impl.mean(axis=1)
    single = sizes == 1
    if policy == "one" and synthetic is not None:
        assert match_share is not None
        risk = np.where(single, match_share, risk)
    if policy == "exclude" and synthetic is not None:
        risk = np.where(single, np.nan, risk)
    full = IdentificationRisk(
        **risk_summary(risk, single, n, warn, quantiles, "identification_risk"),
        pattern=_pattern_codes(res[_FIRST].to_numpy(dtype=np.int64)),
        pattern_size=sizes,
        n_inside=n_inside,
        **_ball_settings(keys_l, targets, r, relative, inclusive, policy),
        n_implicates=n_impl,
        match_share=match_share,
        per_implicate=per_impl,
        index=res.index,
    )
    if records is not None:
        full.to_frame().to_parquet(os.fspath(records))
    return full if gather else _summary_of(full, records)


def _summary_of(
    res: IdentificationRisk, records: str | os.PathLike[str] | None
) -> IdentificationRiskSummary:
    return IdentificationRiskSummary(
        mean=res.mean,
        max=res.max,
        quantiles=res.quantiles,
        n=res.n,
        n_singletons=res.n_singletons,
        singleton_share=res.singleton_share,
        n_above_half=res.count_above(0.5),
        keys=res.keys,
        targets=res.targets,
        radius=res.radius,
        relative=res.relative,
        inclusive=res.inclusive,
        singletons=res.singletons,
        n_implicates=res.n_implicates,
        records=None if records is None else os.fspath(records),
    )


def _summary_result(
    res: dict[str, Any],
    synthetic: Any,
    warn: bool,
    keys: list[str],
    targets: list[str],
    r: np.ndarray,
    relative: bool,
    inclusive: bool,
    policy: str,
    records: str | os.PathLike[str] | None,
) -> IdentificationRiskSummary:
    s, n = res["summary"], res["n"]
    if warn:
        warn_singletons(s["n_single"], n, "identification_risk")
    return IdentificationRiskSummary(
        mean=s["mean"],
        max=s["max"],
        quantiles=s["quantiles"],
        n=n,
        n_singletons=s["n_single"],
        singleton_share=s["n_single"] / n if n else 0.0,
        n_above_half=s["above"],
        **_ball_settings(keys, targets, r, relative, inclusive, policy),
        n_implicates=0 if synthetic is None else len(as_dask_implicates(synthetic)),
        records=None if records is None else os.fspath(records),
    )


# ---------------------------------------------------------------------- pairwise risk
def _pairwise_block(
    part: pd.DataFrame, *, keys: list[str], targets: list[str], **kw: Any
) -> pd.DataFrame:
    part = part.sort_values(ROW, kind="stable")
    if len(part) == 0:
        return _ident_conf_meta(part.index)
    rows = part[ROW].to_numpy(dtype=np.int64)
    res = _pairwise.pairwise_identification_risk(
        part, keys=keys, quantiles=(), targets=targets, **kw
    )
    return pd.DataFrame(
        {
            ROW: rows,
            _FIRST: _first_rows(res.pattern, rows),
            "risk": res.per_record,
            "size": np.asarray(res.pattern_size, dtype=np.int64),
            "inside": np.asarray(res.n_inside, dtype=np.float64),
        },
        index=part.index,
    )


def pairwise_identification_risk(
    conf: Any,
    *,
    keys: Sequence[str],
    targets: str | Sequence[str],
    radius: float | Mapping[str, float] = 0.2,
    relative: bool = True,
    inclusive: bool = False,
    singletons: str | None = None,
    quantiles: Sequence[float] = DEFAULT_QUANTILES,
    npartitions: int | None = None,
) -> PairwiseIdentificationRisk:
    """Normalised pairwise identification risk (Hu, Savitsky & Williams, eqs. (6)-(9)) of a
    Dask DataFrame, equal to :func:`synthguard.risk.pairwise_identification_risk`.

    The measure pairs records of the same pattern only, so after a hash shuffle on ``keys``
    the pandas function runs unchanged on every partition; summaries are computed once on the
    client. Parameters and result as the pandas function; ``npartitions`` as in
    :func:`identification_risk`.
    """
    if not _any_dask(conf):
        return _pairwise.pairwise_identification_risk(
            conf,
            keys=keys,
            targets=targets,
            radius=radius,
            relative=relative,
            inclusive=inclusive,
            singletons=singletons,
            quantiles=quantiles,
        )
    keys_l, targets, r, policy, warn = _check_ball_arguments(conf, keys, targets, radius,
                                                             singletons)
    shuffled, n, _ = _prepare(conf, keys_l + targets, keys_l, npartitions)
    out = shuffled.map_partitions(
        _pairwise_block,
        keys=keys_l,
        targets=targets,
        radius=radius,
        relative=relative,
        inclusive=inclusive,
        singletons=policy,
        meta=_ident_conf_meta(conf._meta.index),
    )
    res, _ = collect_rows(out.compute(), n)
    risk = res["risk"].to_numpy(dtype=np.float64)
    m = res["size"].to_numpy(dtype=np.int64)
    single = m == 1
    return PairwiseIdentificationRisk(
        **risk_summary(risk, single, n, warn, quantiles, "pairwise_identification_risk"),
        weights=1.0 - risk,
        pattern=_pattern_codes(res[_FIRST].to_numpy(dtype=np.int64)),
        pattern_size=m,
        n_inside=res["inside"].to_numpy(dtype=np.int64),
        **_ball_settings(keys_l, targets, r, relative, inclusive, policy),
        index=res.index,
    )


# ---------------------------------------------------------------------- k-anonymity
def _kanon_block(
    part: pd.DataFrame, incomplete: pd.DataFrame, fk_own: np.ndarray, *, keys: list[str]
) -> pd.DataFrame:
    """fk of the partition's complete records, and for every incomplete record the number of
    this partition's complete records compatible with it (sdcMicro's rule), both from
    :func:`synthguard.risk.k_anonymity` on the partition plus all incomplete records."""
    n_p = len(part)
    both = pd.concat([part[keys], incomplete[keys]], ignore_index=True)
    if n_p == 0:
        return _kanon_meta(part.index)
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


def _kanon_meta(index: pd.Index) -> pd.DataFrame:
    return pd.DataFrame(
        {
            ROW: np.zeros(0, np.int64),
            "fk": np.zeros(0, np.int64),
            "incomplete": np.zeros(0, np.int8),
            "classes": np.zeros(0, np.int64),
        },
        index=index[:0],
    )


def k_anonymity(
    data: Any, keys: Sequence[str], k: int = 3, *, npartitions: int | None = None,
    gather: bool = True,
) -> KAnonymity | KAnonymitySummary:
    """Equivalence-class sizes fk (sdcMicro's rule for missing keys) of a Dask DataFrame,
    equal to :func:`synthguard.risk.k_anonymity`.

    With ``gather=False`` no record moves and nothing per record reaches the client: fk
    depends on a record only through its key combination, so the workers count the distinct
    key combinations (missing values included) in one pass and merge the tables in a tree
    (:func:`synthguard.scale.individual.individual_risk`'s table), and the client computes
    every combination's fk from that table with sdcMicro's rule
    (:func:`synthguard.risk.individual_risk.wildcard_frequencies`, weighted by the
    combinations' counts), then the summaries
    (:class:`~synthguard.risk.uniqueness.KAnonymitySummary`: the same counts, minimum and
    classes, exactly). Memory on the client: the distinct key combinations.

    With ``gather=True`` (the default) the per-record fk comes back in row order. A record
    with a missing key value is compatible with records of any value on that key
    (Templ, Kowarik & Meindl 2015), so it cannot be placed by a hash of its keys. The records
    with every key present are hash-shuffled on the keys; the (usually few) records with a
    missing key are gathered and sent to every partition. On each partition the pandas
    function counts, for the partition's complete records, their whole class (all complete
    records equal to them are in this partition) plus the compatible incomplete records, and,
    for every incomplete record, the compatible complete records of the partition. An
    incomplete record's fk is the sum of the latter over partitions plus its fk among the
    incomplete records. All integer counts: exact. Cost grows with the number of incomplete
    records times the number of partitions; they must fit in one worker's memory.
    """
    if not _any_dask(data):
        return _uniqueness.k_anonymity(data, keys, k)
    keys_l = as_list(keys, name="keys")
    if not keys_l:
        raise ParameterError("parameter 'keys': name at least one key variable")
    if isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 1:
        raise ParameterError("parameter 'k': expected an integer >= 1")
    check_columns(data._meta, keys_l, name="data", role="key")
    if not gather:
        from synthguard.scale.individual import individual_risk

        table = individual_risk(data, keys_l).combinations
        complete = np.all(table[keys_l].to_numpy(dtype=np.int64) >= 0, axis=1)
        return KAnonymitySummary.from_combinations(
            table["fk"].to_numpy(), table["count"].to_numpy(), np.asarray(complete), int(k),
            keys_l)
    framed, n = with_row_numbers(data[keys_l])
    miss = framed[keys_l].isna().any(axis=1)
    incomplete = framed[miss].compute()
    complete = framed[~miss]
    parts = npartitions or data.npartitions
    shuffled = shuffle_by_keys(complete, keys_l, parts)
    if len(incomplete):
        fk_own = _uniqueness.k_anonymity(incomplete[keys_l], keys_l, k=1).fk
    else:
        fk_own = np.zeros(0, dtype=np.int64)
    out = shuffled.map_partitions(
        _kanon_block, incomplete, fk_own, keys=keys_l, meta=_kanon_meta(data._meta.index)
    ).compute()
    n_classes = int(out["classes"].sum())
    inc = out["incomplete"].to_numpy() == 1
    fk = np.zeros(n, dtype=np.int64)
    comp_rows = out[ROW].to_numpy()[~inc]
    fk[comp_rows] = out["fk"].to_numpy()[~inc]
    inc_rows = incomplete[ROW].to_numpy(dtype=np.int64)
    fk[inc_rows] = fk_own
    np.add.at(fk, out[ROW].to_numpy()[inc], out["fk"].to_numpy()[inc])
    if comp_rows.shape[0] + inc_rows.shape[0] != n:
        raise DataError(
            "the partitioned computation lost or duplicated rows; the input changed while it "
            "was read (re-run it on data that does not change)"
        )
    all_rows = np.concatenate([comp_rows, inc_rows])
    order = np.empty(n, dtype=np.int64)
    order[all_rows] = np.arange(n, dtype=np.int64)
    index = out.index[~inc].append(incomplete.index)[order]
    below = int(np.sum(fk < k))
    return KAnonymity(
        fk=fk,
        k=int(k),
        n_below_k=below,
        share_below_k=below / n if n else 0.0,
        n_sample_uniques=int(np.sum(fk == 1)),
        min_class_size=int(fk.min()) if n else 0,
        n_classes=n_classes,
        keys=tuple(keys_l),
        index=index,
    )


# ---------------------------------------------------------------------- match rates
def _match_block(
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
        return _match_meta(part.index, len(frames))
    if near and not np.isfinite(part[near].to_numpy(dtype=np.float64, na_value=np.nan)).all():
        raise SchemaError(
            f"conf: numeric column(s) {near} matched within a radius have missing or "
            f"infinite values; impute them, or set their radius to 0 to match exactly"
        )
    _, rows, counts = _release_counts(
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


def _match_meta(index: pd.Index, n_impl: int) -> pd.DataFrame:
    cols: dict[str, np.ndarray] = {ROW: np.zeros(0, np.int64)}
    for li in range(n_impl):
        cols[f"cand{li}"] = np.zeros(0, np.int64)
        cols[f"own{li}"] = np.zeros(0, dtype=bool)
    return pd.DataFrame(cols, index=index[:0])


def _is_binary01(s: dd.Series) -> bool:
    """Whether a numeric column holds exactly the values {0, 1} (infer_schema's binary rule)."""
    nonmiss = s.dropna()
    zero = (nonmiss == 0).any()
    one = (nonmiss == 1).any()
    other = (~nonmiss.isin([0, 1])).any()
    z, o, x = dd.compute(zero, one, other)
    return bool(z and o and not x)


def _split_columns(
    conf: dd.DataFrame,
    columns: list[str],
    radius: float | Mapping[str, float],
    schema: Schema | Mapping[str, Any] | None,
) -> tuple[list[str], list[str], dict[str, float]]:
    """The pandas path's split into exact and radius columns, with infer_schema's one
    data-dependent rule for numeric columns (exactly {0, 1} is binary) evaluated by Dask."""
    exact, near, radii = _matching._split_columns(conf._meta, columns, radius, schema)
    declared = set()
    if schema is not None:
        declared = set(schema.columns if isinstance(schema, Schema) else schema)
    keep = []
    for c in near:
        if c not in declared and _is_binary01(conf[c]):
            exact.append(c)
            radii.pop(c)
        else:
            keep.append(c)
    exact = [c for c in columns if c in exact]
    return exact, keep, radii


def match_rates(
    conf: Any,
    synthetic: Any,
    *,
    keys: Sequence[str],
    targets: str | Sequence[str] | None = None,
    radius: float | Mapping[str, float] = 0.1,
    relative: bool = True,
    inclusive: bool = False,
    attacked: Sequence[int] | np.ndarray | None = None,
    schema: Schema | Mapping[str, Any] | None = None,
    npartitions: int | None = None,
) -> MatchRates:
    """Expected match risk, true and false match rates (Reiter & Mitra 2009) of a partially
    synthetic release held in Dask, equal to :func:`synthguard.risk.match_rates`.

    Candidates of record i are released rows of its pattern (the exactly matched columns)
    inside its box, so a hash shuffle on the exactly matched columns puts all of them in
    record i's partition; c_i and T_i are then the pandas path's counts. Parameters and result
    as the pandas function; ``npartitions`` as in :func:`identification_risk`.
    """
    if not _any_dask(conf, synthetic):
        return _matching.match_rates(
            conf,
            synthetic,
            keys=keys,
            targets=targets,
            radius=radius,
            relative=relative,
            inclusive=inclusive,
            attacked=attacked,
            schema=schema,
        )
    conf = as_dask(conf, name="conf")
    keys_l = as_list(keys, name="keys")
    targets_l = as_list(targets, name="targets")
    if set(keys_l) & set(targets_l):
        raise ParameterError("parameters 'keys' and 'targets': a column cannot be both")
    columns = keys_l + targets_l
    if not columns:
        raise ParameterError("parameter 'keys': name at least one column the intruder knows")
    check_columns(conf._meta, columns, name="conf", role="key/target")
    exact, near, radii = _split_columns(conf, columns, radius, schema)
    shuffled, n, parts = _prepare(conf, columns, exact, npartitions)
    impls = _prepare_implicates(synthetic, columns, exact, n, parts)
    mask = _matching._attacked_mask(attacked, n)
    r = np.array([radii[c] for c in near]) if near else None
    out = dd.map_partitions(
        _match_block,
        shuffled,
        *impls,
        exact=exact,
        near=near,
        r=r,
        relative=relative,
        inclusive=inclusive,
        meta=_match_meta(conf._meta.index, len(impls)),
        align_dataframes=False,
    )
    res, _ = collect_rows(out.compute(), n)
    rows = []
    n_impl = len(impls)
    cand = np.zeros((n, n_impl), dtype=np.int64)
    own = np.zeros((n, n_impl), dtype=bool)
    for li in range(n_impl):
        c = np.where(mask, res[f"cand{li}"].to_numpy(dtype=np.int64), 0)
        t = res[f"own{li}"].to_numpy(dtype=bool) & mask
        cand[:, li] = c
        own[:, li] = t
        unique = c == 1
        n_unique = int(unique.sum())
        rows.append(
            {  # Reiter & Mitra (2009), the summaries of synthguard.risk.match_rates
                "expected_match_risk": float(np.sum(t / np.maximum(c, 1))),
                "true_match_rate": float(np.sum(unique & t)) / n if n else float("nan"),
                "false_match_rate": (
                    float(np.sum(unique & ~t)) / n_unique if n_unique else float("nan")
                ),
                "n_unique_matches": n_unique,
            }
        )
    per = pd.DataFrame(rows, index=pd.RangeIndex(n_impl, name="implicate"))
    n_att = int(mask.sum())
    emr = float(per["expected_match_risk"].mean())
    return MatchRates(
        expected_match_risk=emr,
        expected_match_rate=emr / n_att if n_att else float("nan"),
        true_match_rate=float(per["true_match_rate"].mean()),
        false_match_rate=float(per["false_match_rate"].mean()),
        n_unique_matches=float(per["n_unique_matches"].mean()),
        candidates=cand,
        own_match=own,
        attacked=mask,
        per_implicate=per,
        keys=tuple(keys_l),
        targets=tuple(targets_l),
        radius=radii,
        index=res.index,
    )


# ---------------------------------------------------------------------- distance to closest record
def _scale_frame(
    conf: dd.DataFrame, cols: list[str], metric: str, schema: Any
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Three rows carrying conf's exact Gower scales (min, median, max of every numeric column)
    and every column's kind, inferred by :func:`synthguard.data.infer_schema`'s rules on the
    column's exact value counts (:func:`synthguard.scale.utility.column_counts`; one entry
    per distinct value on the client, never one per record). The median is ``numpy.median``'s
    (the middle order statistic, or the mean of the two middle ones); a non-numeric column's
    rows are its smallest, middle and largest values in sorted order."""
    from synthguard._dask.counts import column_counts
    from synthguard.data.counts import order_statistic
    from synthguard.data.schema import infer_schema_from_counts

    overrides: dict[str, Any] = {}
    rows: dict[str, list[Any]] = {}
    src = None if schema is None else (schema.columns if isinstance(schema, Schema) else schema)
    for c in cols:
        (vc,) = column_counts([conf], c)
        own = None if src is None or c not in src else {c: src[c]}
        kind = infer_schema_from_counts({c: vc}, overrides=own)[c]
        overrides[c] = kind
        present = vc.present()
        if present.n == 0:
            raise DataError(f"column '{c}': no value in the confidential data")
        if kind.is_numeric and metric == "gower":
            v = present.values.to_numpy(dtype=np.float64)
            ok = np.isfinite(v)
            if not ok.any():
                raise DataError(f"column '{c}': no finite value in the confidential data")
            order = np.argsort(v[ok], kind="stable")
            x, k = v[ok][order], present.counts[ok][order]
            m = int(k.sum())
            mid = [order_statistic(x, k, (m - 1) // 2), order_statistic(x, k, m // 2)]
            med = np.mean(np.array(mid[:1] if m % 2 else mid, dtype=np.float64))  # as numpy
            rows[c] = [float(x[0]), float(med), float(x[-1])]
        else:
            n = present.n
            vals = present.values
            rows[c] = [vals.iloc[0], vals.iloc[int(np.searchsorted(
                np.cumsum(present.counts), n // 2, side="right"))], vals.iloc[-1]]
    return pd.DataFrame(rows), overrides


def _nearest_two(
    scale: pd.DataFrame, ref: pd.DataFrame, query: pd.DataFrame, metric: str, overrides: Any
) -> np.ndarray:
    """Distances from ``query``'s rows to their two nearest rows of ``ref`` (inf-padded), by
    synthguard.risk's encoder and exact blocked KD-tree search, with conf's global scales."""
    out = np.full((len(query), 2), np.inf)
    if len(ref) == 0 or len(query) == 0:
        return out
    cols = list(scale.columns)
    enc = encode_frames([scale, ref[cols], query[cols]], metric=metric, schema=overrides)
    d = nearest(enc, 1, [2], k=2)
    out[:, : d.shape[1]] = d
    return out


def _merge_two(*blocks: np.ndarray) -> np.ndarray:
    return np.sort(np.hstack(blocks), axis=1)[:, :2]


def distance_to_closest_record(
    conf: Any,
    synthetic: Any,
    *,
    metric: str = "gower",
    columns: Sequence[str] | None = None,
    schema: Schema | Mapping[str, Any] | None = None,
    warn_copies: bool = True,
) -> DistanceToClosestRecord:
    """Distance to closest record and NNDR (:func:`synthguard.risk.distance_to_closest_record`)
    of Dask data, by partitioned exact nearest-neighbour search.

    The encoding's scales come from the whole confidential data (each column's min, median
    and max, and its kind, from exact value counts), so every partition is encoded exactly as
    the pandas path encodes it. For every pair (confidential partition, released partition)
    the existing exact search (``synthguard.risk._neighbours``) finds each released record's
    two nearest confidential records of that partition; the two smallest over all
    confidential partitions are the global two nearest: exact. Distances equal the pandas
    ones up to floating-point rounding of the blocked decomposition (about 1e-15).
    ``metric`` is ``'gower'`` or ``'hamming'`` (the euclidean standardization's mean and
    standard deviation are not reproduced bit for bit); no holdout comparison here.
    """
    if not _any_dask(conf, synthetic):
        return _distance.distance_to_closest_record(
            conf,
            synthetic,
            metric=metric,
            columns=columns,
            schema=schema,
            warn_copies=warn_copies,
        )
    check_metric(metric)
    if metric == "euclidean":
        raise ParameterError(
            "parameter 'metric': on Dask use 'gower' or 'hamming' (exact scales); the "
            "euclidean standardization is available on pandas data"
        )
    conf = as_dask(conf, name="conf")
    imps = as_dask_implicates(synthetic)
    cols = common_columns(conf._meta, [f._meta for f in imps], columns)
    scale, overrides = _scale_frame(conf, cols, metric, schema)
    refs = conf[cols].to_delayed()
    per_query = []
    impl_ids = []
    for li, frame in enumerate(imps):
        for q in frame[cols].to_delayed():
            blocks = [dask.delayed(_nearest_two)(scale, r, q, metric, overrides) for r in refs]
            per_query.append(dask.delayed(_merge_two)(*blocks))
            impl_ids.append(li)
    results = dask.compute(*per_query)
    d = np.vstack(results) if results else np.empty((0, 2))
    impl = (
        np.concatenate([np.full(r.shape[0], li) for r, li in zip(results, impl_ids, strict=True)])
        if results
        else np.empty(0, dtype=np.int64)
    )
    d1 = d[:, 0]
    d2 = np.where(np.isinf(d[:, 1]), d1, d[:, 1])  # one confidential record: d2 = d1
    with np.errstate(invalid="ignore", divide="ignore"):
        nndr = np.where(d2 > 0, d1 / np.where(d2 > 0, d2, 1.0), 1.0)
    exact = float(np.mean(d1 <= _distance._EXACT)) if d1.size else 0.0
    if warn_copies and exact > 0:
        warnings.warn(
            f"distance_to_closest_record: {exact:.2%} of released records are exact copies of "
            f"confidential records on the compared columns",
            DisclosureWarning,
            stacklevel=2,
        )
    return DistanceToClosestRecord(
        dcr=d1,
        nndr=nndr,
        implicate=impl,
        exact_copy_share=exact,
        median_dcr=float(np.median(d1)) if d1.size else float("nan"),
        mean_dcr=float(np.mean(d1)) if d1.size else float("nan"),
        metric=metric,
        columns=tuple(cols),
    )
