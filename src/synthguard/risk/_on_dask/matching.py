"""Match rates on Dask (:func:`synthguard.risk.match_rates`): a hash shuffle on the exactly
matched columns puts every candidate of a record in the record's partition, where
:func:`synthguard.risk.blocks.match_block` counts them as the pandas path does."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import dask.dataframe as dd
import numpy as np
import pandas as pd

from synthguard._dask.partitions import (
    as_dask,
    collect_rows,
)
from synthguard.data import Schema
from synthguard.errors import ParameterError
from synthguard.risk import blocks
from synthguard.risk import matching as _matching
from synthguard.risk._common import (
    as_list,
)
from synthguard.risk._on_dask.common import prepare, prepare_implicates
from synthguard.risk._patterns import check_columns
from synthguard.risk.matching import MatchRates

__all__ = ["match_rates_dask"]


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


def match_rates_dask(
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
    shuffled, n, parts = prepare(conf, columns, exact, npartitions)
    impls = prepare_implicates(synthetic, columns, exact, n, parts)
    mask = _matching._attacked_mask(attacked, n)
    r = np.array([radii[c] for c in near]) if near else None
    out = dd.map_partitions(
        blocks.match_block,
        shuffled,
        *impls,
        exact=exact,
        near=near,
        r=r,
        relative=relative,
        inclusive=inclusive,
        meta=blocks.match_meta(conf._meta.index, len(impls)),
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
