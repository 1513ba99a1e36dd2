"""Identification risk of a Dask frame with one target, by pattern dictionary and value tables
(no shuffle of the records); see :mod:`synthguard.risk.blocks.value_tables` for the method and why it is
exact. :func:`identification_risk_by_tables` returns None when the patterns or the value
tables are too many for one worker, and the caller falls back to the hash shuffle."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd

from synthguard._dask.summary import exact_quantiles, exact_sum, order_keys, sum_bins
from synthguard.errors import DataError
from synthguard.risk._balls import make_balls
from synthguard.risk._common import combine_implicates, implicate_risk, target_matrix
from synthguard.risk.blocks.value_tables import (
    ConfPart,
    ReleasePart,
    ValueTable,
    aligned,
    conf_pass,
    conf_table,
    count_in_table,
    global_patterns,
    release_pass,
    release_tables,
    slices_for,
)

__all__ = ["MAX_PATTERNS", "MAX_TABLE", "identification_risk_by_tables"]

#: Most distinct key combinations (summed over partitions) the dictionary is built for.
MAX_PATTERNS = 2_000_000
#: Most (pattern, value) pairs (summed over partitions) a value table is built for.
MAX_TABLE = 20_000_000


def _conf_info(p: ConfPart) -> tuple[int, int, int, int]:
    return p.n, len(p.uniques), p.n_bad, 0 if p.table is None else p.table.size


def _uniques(p: ConfPart) -> tuple[pd.DataFrame, np.ndarray]:
    return p.uniques, p.sizes


def _release_info(p: ReleasePart) -> tuple[int, int, np.ndarray]:
    return p.n, p.table.size, p.members


def _block(
    part: ConfPart,
    l2g: np.ndarray,
    sizes: np.ndarray,
    tables: list[ValueTable],
    members: list[np.ndarray],
    *syn: tuple[np.ndarray, np.ndarray],
    n_patterns: int,
    r: np.ndarray,
    relative: bool,
    inclusive: bool,
    policy: str,
) -> dict[str, Any]:
    """Per-record risk of one confidential partition: the expressions of
    :func:`synthguard.risk.identification_risk`, with ball counts from the value tables and
    each implicate's (pattern code, target) of the partition's own rows."""
    codes = l2g[part.codes]
    y = part.y[:, None]
    n, npat = part.n, n_patterns
    balls = make_balls(codes, y, r, relative=relative, inclusive=inclusive, n_patterns=npat)
    size = sizes[codes]
    single = size == 1
    out: dict[str, Any] = {"pattern": codes, "size": size}
    if not syn:
        inside = count_in_table(tables[0], codes, balls.a[:, 0], balls.b[:, 0], npat)
        risk = (size - inside) / np.maximum(size, 1)
        if policy == "one":
            risk = np.where(single, 1.0, risk)
        out["n_inside"] = inside.astype(np.float64)
    else:
        n_impl = len(syn)
        per_impl = np.empty((n, n_impl))
        tmat = np.empty((n, n_impl), dtype=bool)
        n_inside = np.zeros(n)
        for li, (pat, ys) in enumerate(syn):
            mem = members[li][codes]
            inside = count_in_table(tables[li], codes, balls.a[:, 0], balls.b[:, 0], npat)
            t_own = (pat == codes) & balls.contains(ys[:, None])
            per_impl[:, li] = implicate_risk(t_own, mem, inside)
            tmat[:, li] = t_own
            n_inside += inside
        n_inside /= n_impl
        risk, match_share = combine_implicates(per_impl, tmat, single, policy)
        out.update(n_inside=n_inside, match_share=match_share, per_implicate=per_impl)
    if policy == "exclude":
        risk = np.where(single, np.nan, risk)
    out["risk"] = risk
    return out


def identification_risk_by_tables(
    conf: Any,
    implicates: list[Any] | None,
    *,
    keys: list[str],
    target: str,
    r: np.ndarray,
    relative: bool,
    inclusive: bool,
    policy: str,
    gather: bool = True,
    records: str | os.PathLike[str] | None = None,
    quantiles: Sequence[float] = (),
) -> dict[str, Any] | None:
    """Per-record arrays (concatenated in row order) of the identification risk, or with
    ``gather=False`` their summaries (key ``summary``, computed on the workers); the
    per-record risk written by the workers to the Parquet folder ``records`` when given.
    None when the patterns or tables exceed :data:`MAX_PATTERNS` / :data:`MAX_TABLE`."""
    cols = [*keys, target]
    conf_parts = conf[cols].to_delayed()
    first = dask.persist(
        *[dask.delayed(conf_pass)(p, keys, target, implicates is None) for p in conf_parts]
    )
    info = dask.compute(*[dask.delayed(_conf_info)(p) for p in first])
    lengths = [i[0] for i in info]
    n = int(sum(lengths))
    if sum(i[1] for i in info) > MAX_PATTERNS or sum(i[3] for i in info) > MAX_TABLE:
        return None
    if sum(i[2] for i in info):  # the pandas path's error, which names no count
        target_matrix(pd.DataFrame({target: [np.nan]}), [target], name="conf",
                      allow_missing=False)
    uniq = dask.compute(*[dask.delayed(_uniques)(p) for p in first])
    enc, sizes, l2g = global_patterns(uniq, keys)
    enc_d, sizes_d = dask.delayed(enc), dask.delayed(sizes)
    kw = dict(n_patterns=enc.n_patterns, r=r, relative=relative, inclusive=inclusive,
              policy=policy)
    tables: list[Any] = []
    members: list[np.ndarray] = []
    syn_parts: list[list[Any]] = []
    syn_slices: list[list[list[tuple[int, int, int]]]] = []
    if implicates is None:
        tables.append(dask.delayed(conf_table)(list(first), l2g))
    else:
        bad = []
        for li, frame in enumerate(implicates):
            sp = frame[cols].to_delayed()
            rel = dask.persist(*[dask.delayed(release_pass)(p, keys, target, enc_d) for p in sp])
            rinfo = dask.compute(*[dask.delayed(_release_info)(p) for p in rel])
            s_lengths = [i[0] for i in rinfo]
            if sum(s_lengths) != n:
                bad.append(li)
                continue
            if sum(i[1] for i in rinfo) > MAX_TABLE:
                return None
            members.append(np.sum([i[2] for i in rinfo], axis=0).astype(np.int64))
            tables.append(dask.delayed(release_tables)(*rel))
            syn_parts.append(list(rel))
            syn_slices.append(slices_for(lengths, s_lengths))
        if bad:
            raise DataError(
                f"synthetic: implicate(s) {bad} do not have as many rows as the confidential "
                f"data; partially synthetic implicates must keep the confidential rows in order"
            )
    if n == 0:
        return None
    blocks = []
    for j, part in enumerate(first):
        syn_j = [aligned(syn_slices[li][j], syn_parts[li]) for li in range(len(syn_parts))]
        blocks.append(dask.delayed(_block)(part, l2g[j], sizes_d, tables, members, *syn_j, **kw))
    blocks = list(dask.persist(*blocks))  # the per-record arrays stay on the workers
    out: dict[str, Any] = {"n": n}
    if records is not None:
        meta = _records_frame(_empty_block(implicates is not None), first_meta(conf))
        frames = [dask.delayed(_records_frame)(b, p) for b, p in zip(blocks, first, strict=True)]
        dd.from_delayed(frames, meta=meta, verify_meta=False).to_parquet(
            os.fspath(records), write_index=True
        )
    if not gather:
        out["summary"] = distributed_summary(blocks, quantiles)
        return out
    res = dask.compute(*blocks)
    index = dask.compute(*[dask.delayed(_index)(p) for p in first])
    out["index"] = index[0].append(list(index[1:])) if len(index) > 1 else index[0]
    for name in res[0]:
        out[name] = np.concatenate([b[name] for b in res])
    return out


def _empty_block(release: bool) -> dict[str, Any]:
    b: dict[str, Any] = {
        "pattern": np.zeros(0, np.int64),
        "size": np.zeros(0, np.int64),
        "n_inside": np.zeros(0),
        "risk": np.zeros(0),
    }
    if release:
        b["match_share"] = np.zeros(0)
    return b


def first_meta(conf: Any) -> Any:
    """An empty ConfPart carrying ``conf``'s index type, for the records' metadata."""
    return ConfPart(n=0, uniques=pd.DataFrame(), sizes=np.zeros(0, np.int64), n_bad=0,
                    codes=np.zeros(0, np.int64), y=np.zeros(0), index=conf._meta.index,
                    table=None)


def _records_frame(block: dict[str, Any], part: ConfPart) -> pd.DataFrame:
    """One partition of the per-record risk, as ``IdentificationRisk.to_frame()``."""
    out = pd.DataFrame(
        {
            "risk": block["risk"],
            "pattern": block["pattern"],
            "pattern_size": block["size"],
            "n_inside": block["n_inside"],
            "singleton": block["size"] == 1,
        },
        index=part.index,
    )
    if "match_share" in block:
        out["match_share"] = block["match_share"]
    return out


def _stats(block: dict[str, Any]) -> dict[str, Any]:
    r = block["risk"]
    v = r[~np.isnan(r)]
    return {
        "n_valid": int(v.size),
        "bins": sum_bins(v),
        "max": float(v.max()) if v.size else -np.inf,
        "n_single": int(np.sum(block["size"] == 1)),
        "above": int(np.sum(r > 0.5)),
    }


def _sorted_keys(block: dict[str, Any]) -> np.ndarray:
    r = block["risk"]
    return np.sort(order_keys(r[~np.isnan(r)]))


def distributed_summary(blocks: list[Any], quantiles: Sequence[float]) -> dict[str, Any]:
    """Mean (correctly rounded), maximum, quantiles (as ``numpy.quantile``), singletons and
    records above 0.5 of the per-record risk held by the persisted ``blocks``."""
    stats = dask.compute(*[dask.delayed(_stats)(b) for b in blocks])
    n_valid = sum(s["n_valid"] for s in stats)
    keys = list(dask.persist(*[dask.delayed(_sorted_keys)(b) for b in blocks]))
    total = exact_sum([s["bins"] for s in stats])
    return {
        "mean": float(total / n_valid) if n_valid else float("nan"),
        "max": max(s["max"] for s in stats) if n_valid else float("nan"),
        "quantiles": exact_quantiles(keys, n_valid, quantiles),
        "n_single": sum(s["n_single"] for s in stats),
        "above": sum(s["above"] for s in stats),
    }


def _index(part: ConfPart) -> pd.Index:
    return part.index
