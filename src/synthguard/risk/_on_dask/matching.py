"""Match rates on Dask (:func:`synthguard.risk.match_rates`): a hash shuffle on the exactly
matched columns puts every candidate of a record in the record's partition, where
:func:`synthguard.risk.blocks.match_block` counts them as the pandas path does."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import dask.dataframe as dd
import numpy as np

from synthguard._dask.partitions import as_dask, collect_rows
from synthguard.data import Schema
from synthguard.risk import blocks
from synthguard.risk import matching as _matching
from synthguard.risk._on_dask.common import prepare, prepare_implicates

__all__ = ["match_parts"]


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


def match_parts(
    conf: Any,
    synthetic: Any,
    *,
    columns: list[str],
    radius: float | Mapping[str, float],
    relative: bool,
    inclusive: bool,
    schema: Schema | Mapping[str, Any] | None,
    npartitions: int | None,
) -> dict[str, Any]:
    """Every record's candidates c_i and own match T_i per implicate, the radii and the index
    of Dask data for :func:`synthguard.risk.match_rates`, which checks the arguments and
    assembles the result. Candidates of record i are released rows of its pattern (the
    exactly matched columns) inside its box, so a hash shuffle on the exactly matched columns
    puts all of them in record i's partition, where
    :func:`synthguard.risk.blocks.match_block` counts them."""
    conf = as_dask(conf, name="conf")
    exact, near, radii = _split_columns(conf, columns, radius, schema)
    shuffled, n, parts = prepare(conf, columns, exact, npartitions)
    impls = prepare_implicates(synthetic, columns, exact, n, parts)
    r = np.array([radii[c] for c in near]) if near else None
    out = dd.map_partitions(
        blocks.match_block, shuffled, *impls, exact=exact, near=near, r=r, relative=relative,
        inclusive=inclusive, meta=blocks.match_meta(conf._meta.index, len(impls)),
        align_dataframes=False,
    )
    res, _ = collect_rows(out.compute(), n)
    cand = np.zeros((n, len(impls)), dtype=np.int64)
    own = np.zeros((n, len(impls)), dtype=bool)
    for li in range(len(impls)):
        cand[:, li] = res[f"cand{li}"].to_numpy(dtype=np.int64)
        own[:, li] = res[f"own{li}"].to_numpy(dtype=bool)
    return {"candidates": cand, "own": own, "radius": radii, "index": res.index}
