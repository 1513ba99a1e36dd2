"""The measures a statistics office's release board reads beside the synthetic-data ones:
sdcMicro's risk block (individual risk, global risk, expected re-identifications, SUDA2
contributions, l-diversity) on the data and on every release, and survey-weighted domain
estimates of the targets (:func:`synthguard.utility.domain_estimates`) for every release.

:func:`survey_measures` is called by :func:`synthguard.evaluation`; the report's tables
and figure are made from its result by :mod:`synthguard.report.survey_sections`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from synthguard._display import Summarized
from synthguard.data.schema import Schema
from synthguard.errors import safe_error

__all__ = ["SurveyBlocks", "survey_measures"]

#: SUDA2 and l-diversity are skipped above this many records per data set (SUDA2 is fast,
#: but the report should not wait minutes for a block that is read as a reference).
MAX_SDC_RECORDS = 200_000


@dataclass(frozen=True)
class SurveyBlocks(Summarized):
    """sdcMicro's risk block and the domain estimates of one evaluation.

    Attributes
    ----------
    risk : one row per data set (``"data"``, then each release; a release's figures are
        means over its implicates): ``global_risk`` (mean individual risk), ``expected_reid``
        (expected re-identifications), ``share_risk_above_0_1`` (share of records whose
        individual risk exceeds 0.1), ``weighted`` (whether sampling weights were used),
        ``suda_share`` (share of records with a minimal sample unique), ``max_dis`` (highest
        DIS-SUDA score) and, for each target ``t``, ``l_distinct:t`` (the smallest distinct
        l over records) and ``l_below_2:t`` (share of records whose key class has fewer than
        two distinct values of ``t``).
    contributions : SUDA2 contribution of each key variable in percent, one column per data
        set (sdcMicro's ``attribute_contributions``).
    domains : release name → :class:`~synthguard.utility.DomainEstimates`.
    by, weights, strata, clusters, variables : the domain design.
    errors : part → why a requested domain estimate could not be computed (quotes no data
        value); they count as measures not computed.
    notes : what was left out, and sdcMicro measures that failed (the block is a reference,
        computed whenever there are keys, so its failures are notes).
    """

    risk: pd.DataFrame
    contributions: pd.DataFrame
    domains: Mapping[str, Any]
    by: tuple[str, ...]
    weights: str | None
    strata: str | None
    clusters: str | None
    variables: tuple[str, ...]
    errors: Mapping[str, str] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    def summary(self) -> str:
        lines = []
        if len(self.risk):
            cols = [c for c in ("global_risk", "expected_reid", "suda_share") if c in self.risk]
            lines.append("sdcMicro risk block:")
            lines.append(self.risk[cols].to_string(float_format=lambda v: f"{v:.4g}"))
        for name, d in self.domains.items():
            lines.append(f"{name}: {d.summary()}")
        lines.extend(f"not computed: {k}: {v}" for k, v in self.errors.items())
        return "\n".join(lines)


def _risk_row(frames: Sequence[pd.DataFrame], keys: list[str], targets: Sequence[str],
              weights: str | None, notes: list[str], where: str) -> tuple[dict[str, Any],
                                                                          pd.Series | None]:
    from synthguard.risk import individual_risk
    from synthguard.risk.evaluate import SUDA2_MAX_KEYS
    from synthguard.risk.ldiversity import l_diversity
    from synthguard.risk.suda2 import suda2

    rows: list[dict[str, Any]] = []
    contribs: list[pd.Series] = []
    for df in frames:
        w = weights if weights is not None and weights in df.columns else None
        ir = individual_risk(df, keys, weights=w)
        row: dict[str, Any] = {
            "global_risk": ir.global_risk,
            "expected_reid": ir.expected_reidentifications,
            "share_risk_above_0_1": ir.n_above(0.1) / max(ir.n, 1),
            "weighted": w is not None,
        }
        if len(df) <= MAX_SDC_RECORDS and len(keys) <= SUDA2_MAX_KEYS:
            s = suda2(df, keys)
            row["suda_share"] = s.n_with_msu / max(len(df), 1)
            row["max_dis"] = float(s.dis_score.max()) if len(df) else 0.0
            contribs.append(s.contributions.astype(float))
        if len(df) <= MAX_SDC_RECORDS:
            for t in targets:
                if t in df.columns and t not in keys:
                    ld = l_diversity(df, keys, t)
                    row[f"l_distinct:{t}"] = float(ld.l)
                    row[f"l_below_2:{t}"] = ld.violations(2) / max(len(df), 1)
        rows.append(row)
    if len(keys) > SUDA2_MAX_KEYS:
        notes.append(f"SUDA2 skipped: more than {SUDA2_MAX_KEYS} key variables")
    out: dict[str, Any] = {}
    for k in rows[0]:
        vals = [r[k] for r in rows if k in r]
        out[k] = bool(all(vals)) if k == "weighted" else float(np.mean(vals))
    contrib = pd.concat(contribs, axis=1).mean(axis=1) if contribs else None
    if weights is not None and not out["weighted"] and where != "data":
        notes.append(f"sdcMicro individual risk of release '{where}' is unweighted: it has no "
                     f"'{weights}' column")
    return out, contrib


def survey_measures(
    conf: pd.DataFrame,
    implicates: Mapping[str, list[pd.DataFrame]],
    kinds: Mapping[str, str],
    keys: Sequence[str],
    targets: Sequence[str],
    schema: Schema,
    *,
    by: Sequence[str] = (),
    weights: str | None = None,
    strata: str | None = None,
    clusters: str | None = None,
    variables: Sequence[str] | None = None,
) -> SurveyBlocks:
    """sdcMicro's risk block (when there are keys) and the domain estimates (when ``by`` or
    ``weights`` is given) of every release. Nothing here raises: a part that fails is recorded
    in ``errors`` with a message that quotes no data value.

    The domain estimates are of ``variables`` (default: the targets that are neither a
    domain nor a design column), with the release's combining rule (``"full"`` for fully
    synthetic releases, ``"partial"`` otherwise) and the median as quantile.
    """
    from synthguard.utility import domain_estimates

    errors: dict[str, str] = {}
    notes: list[str] = []
    keys_l = list(keys)
    design = {c for c in (weights, strata, clusters) if c is not None}
    risk_rows: dict[str, dict[str, Any]] = {}
    contribs: dict[str, pd.Series] = {}
    if keys_l:
        sets = {"data": [conf], **{str(n): list(v) for n, v in implicates.items()}}
        for name, frames in sets.items():
            usable = [f for f in frames if all(k in f.columns for k in keys_l)]
            if not usable:
                notes.append(f"sdcMicro risk of release '{name}' skipped: it lacks a key variable")
                continue
            try:
                row, contrib = _risk_row(usable, keys_l, list(targets), weights, notes, name)
            except Exception as e:  # a note: the block is a reference, not a requested measure
                notes.append(f"sdcMicro risk of '{name}' not computed: {safe_error(e)}")
                continue
            risk_rows[name] = row
            if contrib is not None:
                contribs[name] = contrib
    risk = pd.DataFrame.from_dict(risk_rows, orient="index")
    risk.index.name = "data set"
    contributions = pd.DataFrame(contribs)
    contributions.index.name = "key variable"

    by_t = tuple(by)
    if variables is None:
        variables = [t for t in targets if t not in by_t and t not in design]
    vars_t = tuple(variables)
    domains: dict[str, Any] = {}
    if (by_t or weights is not None) and not vars_t:
        notes.append("domain estimates skipped: every target is a domain or design column")
    elif by_t or weights is not None:
        for name, frames in implicates.items():
            method = "full" if kinds.get(name) == "full" else "partial"
            try:
                domains[str(name)] = domain_estimates(
                    conf, frames, list(vars_t), list(by_t), weights=weights, strata=strata,
                    clusters=clusters, quantiles=(0.5,), schema=schema,
                    method=method,  # type: ignore[arg-type]
                    lonely_psu="certainty",
                )
            except Exception as e:
                errors[f"domain estimates ({name})"] = safe_error(e)
    return SurveyBlocks(risk, contributions, domains, by_t, weights, strata, clusters, vars_t,
                        errors, tuple(dict.fromkeys(notes)))
