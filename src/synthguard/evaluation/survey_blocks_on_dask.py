"""The evaluation's sdcMicro block on Dask.

:func:`sdc_block` is :func:`synthguard.evaluation.survey_blocks.survey_measures`' sdcMicro block
for Dask frames: the individual risk on all records
(:func:`synthguard.risk.individual_risk` with ``gather=False``, from the key combinations'
table, exact fk); SUDA2 and l-diversity, which the pandas evaluation computes only up to
:data:`~synthguard.evaluation.survey_blocks.MAX_SDC_RECORDS` records per data set, are computed up
to that size by the pandas functions on the key and target columns brought to the client
(that many rows, never more) and skipped above it as without Dask.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import dask
import numpy as np
import pandas as pd

from synthguard.errors import safe_error
from synthguard.evaluation.survey_blocks import MAX_SDC_RECORDS, SurveyBlocks, _risk_row
from synthguard.risk.individual_risk import IndividualRiskSummary, individual_risk

__all__ = ["IndividualRiskSummary", "individual_risk", "sdc_block"]


def _pick(part: pd.DataFrame, cols: list[str]) -> pd.DataFrame:
    return part[cols]


def _columns(frame: Any, cols: list[str]) -> pd.DataFrame:
    """``frame[cols]`` on the client, the columns picked in the tasks (projecting a frame whose
    Parquet category columns were categorized fails in dask-expr)."""
    parts = dask.compute(*[dask.delayed(_pick)(p, cols) for p in frame.to_delayed()])
    return pd.concat(parts) if len(parts) > 1 else parts[0]


def _row(frames: list[Any], lengths: list[int], keys: list[str], targets: Sequence[str],
         notes: list[str], where: str) -> tuple[dict[str, Any], pd.Series | None]:
    """The sdcMicro row of one data set (means over implicates) as ``survey_blocks._risk_row``
    makes it: individual risk on Dask; SUDA2 and l-diversity from the pandas functions on the
    key and target columns of data sets of at most MAX_SDC_RECORDS records."""
    rows: list[dict[str, Any]] = []
    contribs: list[pd.Series] = []
    for f, n in zip(frames, lengths, strict=True):
        ir = individual_risk(f, keys, gather=False)
        row: dict[str, Any] = {
            "global_risk": ir.global_risk,
            "expected_reid": ir.expected_reidentifications,
            "share_risk_above_0_1": ir.n_above(0.1) / max(ir.n, 1),
            "weighted": False,
        }
        if n <= MAX_SDC_RECORDS:
            cols = [*keys, *[t for t in targets if t in f.columns and t not in keys]]
            small, contrib = _risk_row([_columns(f, cols)], keys, targets, None, notes, where)
            row.update({k: v for k, v in small.items() if k not in row})
            if contrib is not None:
                contribs.append(contrib)
        rows.append(row)
    out: dict[str, Any] = {}
    for k in rows[0]:
        vals = [r[k] for r in rows if k in r]
        out[k] = bool(all(vals)) if k == "weighted" else float(np.mean(vals))
    contrib_all = pd.concat(contribs, axis=1).mean(axis=1) if contribs else None
    return out, contrib_all


def sdc_block(conf: Any, n_conf: int, implicates: Mapping[str, Sequence[Any]],
              lengths: Mapping[str, Sequence[int]], keys: Sequence[str],
              targets: Sequence[str]) -> SurveyBlocks:
    """The evaluation's sdcMicro block (no domain estimates: ``by`` and ``weights`` are not
    taken on Dask) of ``conf`` and every release, as
    :func:`synthguard.evaluation.survey_blocks.survey_measures` makes it. A data set that fails is
    a note, as there."""
    keys_l = list(keys)
    notes: list[str] = []
    rows: dict[str, dict[str, Any]] = {}
    contribs: dict[str, pd.Series] = {}
    sets = {"data": ([conf], [n_conf]),
            **{str(k): (list(v), list(lengths[k])) for k, v in implicates.items()}}
    for name, (frames, lens) in sets.items():
        usable = [(f, n) for f, n in zip(frames, lens, strict=True)
                  if all(k in f.columns for k in keys_l)]
        if not usable:
            notes.append(f"sdcMicro risk of release '{name}' skipped: it lacks a key variable")
            continue
        try:
            row, contrib = _row([f for f, _ in usable], [n for _, n in usable], keys_l,
                                list(targets), notes, name)
        except Exception as e:
            notes.append(f"sdcMicro risk of '{name}' not computed: {safe_error(e)}")
            continue
        rows[name] = row
        if contrib is not None:
            contribs[name] = contrib
    risk = pd.DataFrame.from_dict(rows, orient="index")
    risk.index.name = "data set"
    contributions = pd.DataFrame(contribs)
    contributions.index.name = "key variable"
    return SurveyBlocks(risk, contributions, {}, (), None, None, None, (), {},
                        tuple(dict.fromkeys(notes)))
