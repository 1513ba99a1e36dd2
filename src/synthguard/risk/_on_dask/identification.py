"""Identification risk on Dask: the per-record arrays of
:func:`synthguard.risk.identification_risk`, which checks the arguments and assembles the
result for both backends.

With one target, no record moves (:mod:`synthguard.risk._on_dask.ident_tables`): a pass over
the confidential data builds the dictionary of patterns, a pass over every implicate its table
of (pattern, target value, count), and each confidential partition counts its balls in those
tables. Otherwise the confidential data and every implicate are hash-shuffled on the keys
into ``npartitions`` partitions, each holding whole patterns, and the kernels of
:mod:`synthguard.risk.blocks` run on every partition. Integer counts per record are the same
whatever the partitioning and the per-record formula is the same floating-point expression, so
the arrays equal the pandas arrays bit for bit.

Row order: records are numbered 0..n-1 in the order of the Dask frame's partitions, which is
how implicates are aligned with the confidential rows and how the arrays are returned
(8 bytes per record and array on the client, unless ``gather=False`` keeps them on the
workers on the one-target path).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import dask.dataframe as dd
import numpy as np

from synthguard._dask.partitions import as_dask, as_dask_implicates, collect_rows
from synthguard.risk import blocks
from synthguard.risk._common import SingletonPolicy
from synthguard.risk._on_dask.common import pattern_codes, prepare, prepare_implicates
from synthguard.risk._on_dask.ident_tables import identification_risk_by_tables
from synthguard.risk.identification import release_risk

__all__ = ["identification_parts"]


def identification_parts(
    conf: Any,
    synthetic: Any,
    *,
    keys: list[str],
    targets: list[str],
    r: np.ndarray,
    relative: bool,
    inclusive: bool,
    policy: SingletonPolicy,
    quantiles: Sequence[float],
    npartitions: int | None,
    gather: bool,
    records: str | os.PathLike[str] | None,
) -> dict[str, Any]:
    """The per-record arrays (``risk``, ``size``, ``pattern``, ``n_inside``,
    ``match_share``, ``per_implicate``, ``index``, ``n_implicates``) of the identification
    risk of Dask data, or the workers' ``summary`` and ``n`` when the one-target path keeps
    them there (``gather=False``); ``written`` when the workers wrote ``records``."""
    conf = as_dask(conf, name="conf")
    implicates = None if synthetic is None else as_dask_implicates(synthetic)
    n_impl = 0 if implicates is None else len(implicates)
    if len(targets) == 1:
        fast = identification_risk_by_tables(
            conf, implicates, keys=keys, target=targets[0], r=r, relative=relative,
            inclusive=inclusive, policy=policy, gather=gather, records=records,
            quantiles=quantiles,
        )
        if fast is not None and "summary" in fast:
            return {"summary": fast["summary"], "n": fast["n"], "n_implicates": n_impl}
        if fast is not None:
            per_impl = fast.get("per_implicate")
            return {"risk": fast["risk"], "size": fast["size"], "pattern": fast["pattern"],
                    "n_inside": fast["n_inside"], "match_share": fast.get("match_share"),
                    "per_implicate": per_impl, "index": fast["index"],
                    "n_implicates": 0 if per_impl is None else int(per_impl.shape[1]),
                    "written": records is not None}
    columns = keys + targets
    shuffled, n, parts = prepare(conf, columns, keys, npartitions)
    kw: dict[str, Any] = dict(relative=relative, inclusive=inclusive)
    if implicates is None:
        out = shuffled.map_partitions(
            blocks.ident_conf_block, keys=keys, targets=targets, r=r, policy=policy,
            meta=blocks.ident_conf_meta(conf._meta.index), **kw,
        )
        res, _ = collect_rows(out.compute(), n)
        return {"risk": res["risk"].to_numpy(dtype=np.float64),
                "size": res["size"].to_numpy(dtype=np.int64),
                "pattern": pattern_codes(res[blocks.FIRST].to_numpy(dtype=np.int64)),
                "n_inside": res["inside"].to_numpy(dtype=np.float64), "match_share": None,
                "per_implicate": None, "index": res.index, "n_implicates": 0}
    impls = prepare_implicates(implicates, columns, keys, n, parts)
    out = dd.map_partitions(
        blocks.ident_release_block, shuffled, *impls, keys=keys, targets=targets, r=r,
        meta=blocks.ident_release_meta(conf._meta.index, n_impl),
        align_dataframes=False, **kw,
    )
    res, _ = collect_rows(out.compute(), n)
    sizes = res["size"].to_numpy(dtype=np.int64)

    def stack(col: str, dtype: Any) -> np.ndarray:
        return np.column_stack([res[f"{col}{li}"].to_numpy(dtype=dtype)
                                for li in range(n_impl)])

    return {**release_risk(stack("risk", np.float64), stack("own", bool),
                           stack("inside", np.int64), sizes, policy),
            "size": sizes, "index": res.index,
            "pattern": pattern_codes(res[blocks.FIRST].to_numpy(dtype=np.int64))}
