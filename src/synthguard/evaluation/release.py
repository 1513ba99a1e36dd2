"""Measure one release: utility, disclosure risk, record-level risk, attacks, the headline
metrics (:data:`~synthguard.evaluation.metrics.METRICS`) and the threshold checks.

A measure that cannot be computed is recorded in ``errors`` (a message that quotes no data
value) and never stops the others. Every random measure draws from the release's own
Generator, in the order utility, risk, attacks, workload error.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from synthguard import risk as _risk
from synthguard import utility as _utility
from synthguard.errors import safe_error
from synthguard.evaluation.attacks import run_attacks
from synthguard.evaluation.constraints import METRIC as CONSTRAINT_METRIC
from synthguard.evaluation.kinds import (
    RECORD_LEVEL,
    aligned,
    is_sample,
    kind_of,
    why_undefined,
)
from synthguard.evaluation.metrics import METRICS, extract_metric
from synthguard.evaluation.notes import Notes
from synthguard.evaluation.options import NEEDS_TARGET, Setting
from synthguard.evaluation.record_risk import record_risk
from synthguard.evaluation.results import ReleaseEvaluation
from synthguard.evaluation.thresholds import FULL_ONLY, check_thresholds, full_only_lower
from synthguard.evaluation.workload_error import workload_metrics
from synthguard.risk.rare_released import rare_released

__all__ = ["measure_release"]


@dataclass
class _Work:
    """One release being measured: its implicates, kind, the columns it shares with the
    data, and what was found so far."""

    name: str
    release: Any
    implicates: list[pd.DataFrame]
    kind: str
    common: list[str]
    rng: np.random.Generator
    aligned: bool
    notes: Notes = field(default_factory=Notes)
    errors: dict[str, str] = field(default_factory=dict)
    inapplicable: set[str] = field(default_factory=set)


def measure_release(
    s: Setting, name: str, release: Any, implicates: list[pd.DataFrame],
    rng: np.random.Generator, checked: Any, households: Any = None,
) -> ReleaseEvaluation:
    """Utility, risk, metrics and threshold checks of one release (its ``implicates``);
    ``households``: the household measures of every release
    (:class:`~synthguard.evaluation.households.HouseholdEvaluation`), or None."""
    t0 = time.perf_counter()
    kind = kind_of(release, implicates, s.conf, s.kinds.get(name))
    common = [c for c in s.conf.columns if all(c in df.columns for df in implicates)]
    w = _Work(name, release, implicates, kind, common, rng, aligned(kind, implicates, s.conf))
    conf_u = s.conf if len(common) == s.conf.shape[1] else s.conf[common]
    rel_arg = _release_argument(s, w)
    utility = _measure_utility(s, w, conf_u, rel_arg)
    lacking = [c for c in (*s.keys, *s.targets) if c not in common]
    if lacking:
        w.errors["risk"] = (
            f"the release lacks the key or target column(s) {', '.join(lacking)}; the "
            f"disclosure-risk measures need them"
        )
    risk = None if lacking else _measure_risk(s, w)
    per_record = None if lacking else _record_level(s, w, risk)
    attack_result = None
    if s.attacks and not lacking:
        attack_result = run_attacks(conf_u, implicates, s.holdout, s.keys, s.targets, rng,
                                    w.errors, w.notes.run, n_attacks=s.n_attacks)
    bundles = {"utility": utility, "risk": risk, "attacks": attack_result}
    metrics = _metrics(s, w, bundles, conf_u, checked, per_record)
    if households is not None:  # replicated households and the household utility measures
        metrics.update(households.metrics(name))
        w.errors.update(households.not_computed(name))
    why = why_undefined(kind, implicates, s.conf, s.holdout)
    if "identification risk" in w.inapplicable:
        reason = w.errors.get("identification risk") or "not defined for this release"
        for m in RECORD_LEVEL:  # the specific reason (a sample, a categorical target)
            why[m] = reason
    not_applicable = frozenset(why)
    if kind != "full" and "identification risk" not in w.inapplicable:
        # rows that stand for records: a record-level figure missing is not computed (a
        # threshold on it fails), never "not applicable"
        not_applicable = not_applicable - RECORD_LEVEL
    if kind == "protected":
        not_applicable = not_applicable | s.synthetic_only
        why.update(dict.fromkeys(s.synthetic_only, "a measure of synthetic releases: a "
                                 "protected release publishes the confidential records "
                                 "themselves"))
    if kind != "full":
        rows_are_records = FULL_ONLY & s.defaulted
        not_applicable = not_applicable | rows_are_records
        for m in rows_are_records:
            why.setdefault(m, "its rows are the confidential records, so that a record is in "
                              "the file is no secret the release keeps")
    if checked is not None and metrics.get(CONSTRAINT_METRIC) is None:
        not_applicable = not_applicable | {CONSTRAINT_METRIC}  # lacks every constrained column
        why[CONSTRAINT_METRIC] = "the release has none of the constrained columns"
    checks = full_only_lower(
        check_thresholds(s.thresholds, metrics, not_applicable, why), kind, s.defaulted)
    safeguards = _safeguards(release, w)  # before the notes are collected: it adds one
    return ReleaseEvaluation(
        name=name, kind=kind, m=len(implicates), n_rows=len(implicates[0]),
        utility=utility, risk=risk, metrics=metrics, record_risk=per_record,
        errors=w.errors, checks=checks,
        seconds=time.perf_counter() - t0, notes=tuple(w.notes.messages),
        inapplicable=frozenset(w.inapplicable), attacks=attack_result,
        safeguards=safeguards,
    )


def _safeguards(release: Any, w: _Work) -> Any:
    """What the synthesizer's safeguards did: the release's own report (made in this session)
    or the record its folder's manifest keeps (``details["safeguards"]``, counts under the
    small-cell rule). What a partial guard changed or blanked in the rows is said in a note,
    so the measures above are read knowing it."""
    sg: Any = getattr(release, "safeguards", None)
    if sg is None:
        details = getattr(getattr(release, "manifest", None), "details", None)
        stored = details.get("safeguards") if isinstance(details, dict) else None
        sg = stored if isinstance(stored, dict) else None
    text = sg.get("partial") if isinstance(sg, dict) else (
        sg.partial_summary() if hasattr(sg, "partial_summary") else None)
    if isinstance(text, str) and text:
        note = f"the release's unique guard: {text.removeprefix('partial synthesis ')}"
        if note not in w.notes.messages:
            w.notes.messages.append(note)
    return sg


def _release_argument(s: Setting, w: _Work) -> Any:
    """What the utility measures get: the release itself, the protected file as its one
    implicate, or the implicates cut to the columns they share with the data."""
    rel_arg: Any = w.release if not isinstance(w.release, tuple) else list(w.release)
    if w.kind == "protected" and not hasattr(w.release, "implicates"):
        rel_arg = w.implicates  # a single "implicate": the protected file itself
    conf = s.conf
    if len(w.common) < conf.shape[1]:  # a note: the measures run on the columns it has
        w.inapplicable.add("columns")
        w.errors["columns"] = (
            f"the release lacks {conf.shape[1] - len(w.common)} column(s) of the data "
            f"({', '.join(c for c in conf.columns if c not in w.common)}); utility is "
            f"measured on the others"
        )
        rel_arg = [df[w.common] for df in w.implicates]
    return rel_arg


def _combining_rule(kind: str, m: int) -> str:
    """The combining rule for a release kind: one protected file is the data masked, analysed
    as it is (Karr et al. 2006), where a synthesis rule would widen its intervals by sqrt(2)."""
    if kind == "protected" and m == 1:
        return "none"
    return "full" if kind == "full" else "partial"


def _measure_utility(s: Setting, w: _Work, conf_u: pd.DataFrame, rel_arg: Any) -> Any:
    """:func:`synthguard.utility.evaluate_utility`, read at call time (so a replaced
    function, a plug-in or a test, is the one called) with the documented arguments; when
    the regressions fail, the rest is kept."""
    utility_fn: Callable[..., Any] | None = _utility.evaluate_utility
    if utility_fn is None:
        return None
    u_kw: dict[str, Any] = dict(schema=s.schema.subset(w.common), random_state=w.rng,
                                method=_combining_rule(w.kind, len(w.implicates)))
    if s.weights is not None:  # survey-weighted univariate, ECDF and pMSE
        u_kw["weights"] = s.weights
    try:
        return w.notes.run(utility_fn, conf_u, rel_arg, formulas=list(s.formulas) or None,
                           **u_kw)
    except Exception as e:
        w.errors["utility"] = safe_error(e)
        if not s.formulas:
            return None
    try:  # the regressions may be what failed: keep the rest
        utility = w.notes.run(utility_fn, conf_u, rel_arg, formulas=None, **u_kw)
        w.errors["regression"] = w.errors.pop("utility")
        return utility
    except Exception:
        return None


def _measure_risk(s: Setting, w: _Work) -> Any:
    """:func:`synthguard.risk.evaluate_risk` (read at call time), exact, with DCR and
    membership on samples when the release is large; the record-level parts dropped when the
    release's rows do not stand for confidential records."""
    risk_fn: Callable[..., Any] | None = _risk.evaluate_risk
    risk = None
    if risk_fn is not None:
        try:
            risk = w.notes.run(
                risk_fn, s.conf, w.implicates, list(s.keys), list(s.targets),
                holdout=s.holdout, radius=s.radius, schema=s.schema, random_state=w.rng,
                max_records=s.max_distance_records, aligned=w.aligned,
            )
        except Exception as e:
            w.errors["risk"] = safe_error(e)
            if w.aligned:  # the record-level part (e.g. a target with missing values) may be
                try:      # what failed: keep the measures that do not pair rows with records
                    risk = w.notes.run(
                        risk_fn, s.conf, w.implicates, list(s.keys), list(s.targets),
                        holdout=s.holdout, radius=s.radius, schema=s.schema,
                        random_state=w.rng, max_records=s.max_distance_records, aligned=False,
                    )
                    w.errors["identification risk"] = w.errors.pop("risk")
                except Exception:
                    pass
    if risk is not None and not w.aligned and dataclasses.is_dataclass(risk):
        # rows of a fully synthetic release do not stand for confidential records, even
        # when their number is the same: record-level identification and matching do not
        # apply (Hu, Savitsky & Williams, eq. 1 needs each record's own released value)
        fields = {f.name for f in dataclasses.fields(risk)}
        drop = {k: None for k in ("identification", "confidential_identification", "match")
                if k in fields}
        if drop:
            risk = dataclasses.replace(risk, **drop)  # type: ignore[type-var]
    for note in getattr(risk, "notes", ()) or ():
        if w.aligned and isinstance(note, str) and note.startswith("identification risk and"):
            continue  # the fallback above: its reason is in errors, not "fully synthetic"
        if isinstance(note, str) and note not in w.notes.messages:
            w.notes.messages.append(note)
    return risk


def _record_level(s: Setting, w: _Work, risk: Any) -> np.ndarray | None:
    """IR_i of each confidential record under the release (aligned rows only), or why not."""
    if s.no_ball and w.aligned:
        w.inapplicable.add("identification risk")
        # keyed by the measure already: its text without the measure's name again
        w.errors["identification risk"] = s.no_ball.removeprefix("identification risk: ")
    elif w.aligned and "identification risk" in w.errors:
        pass  # evaluate_risk failed on it (_measure_risk): its reason is recorded
    elif w.aligned:
        try:
            return w.notes.run(  # type: ignore[no-any-return]
                record_risk, risk, s.conf, w.implicates, s.keys, s.ir_targets, s.radius
            )
        except Exception as e:
            w.errors["identification risk"] = safe_error(e)
    elif w.kind == "protected" and is_sample(w.release):
        w.inapplicable.add("identification risk")  # a sample of the records (sdc.subsample)
        w.errors["identification risk"] = (
            "not defined: the release is a sample of the confidential records, and the "
            "record-level risk pairs released row i with confidential record i"
        )
    elif w.kind in ("partial", "protected"):  # declared row for row, yet the rows do not line up
        what = "partially synthetic" if w.kind == "partial" else "protected (SDC)"
        w.errors["identification risk"] = (
            f"the release is declared {what}, so its rows are the confidential records, but "
            f"its implicates do not have as many rows as the data; evaluate it against the "
            f"confidential file it was made from (for the releases of synthguard run: the "
            f"full data file without --holdout, which is cut as the run cut it)"
        )
    else:
        w.inapplicable.add("identification risk")
        w.errors["identification risk"] = (
            "not defined: the release's records do not correspond to confidential records "
            "(fully synthetic); see distance to closest record and membership inference"
        )
    return None


def _as_number(value: Any) -> float | None:
    """A computed measure's value as a float, None when it is missing or not finite."""
    if value is None or isinstance(value, bool):
        return None
    f = float(value)
    return f if np.isfinite(f) else None


def _metrics(
    s: Setting, w: _Work, bundles: dict[str, Any], conf_u: pd.DataFrame, checked: Any,
    per_record: np.ndarray | None,
) -> dict[str, float | None]:
    """The headline numbers read from the results (a metric whose field is missing is
    recorded as an error), the workload error, constraint violations and IR_i's mean/max."""
    metrics: dict[str, float | None] = {}
    for m in METRICS.values():
        if m.compute is not None:  # a measure of evaluation/measures: computed here
            try:
                metrics[m.name] = _as_number(m.compute(
                    conf_u, [df[w.common] for df in w.implicates], w.rng))
            except Exception as e:
                metrics[m.name] = None
                w.errors[m.name] = safe_error(e)
            continue
        try:
            metrics[m.name] = extract_metric(bundles.get(m.section), m)
        except Exception as e:  # a bundle without a field the metric reads: say so
            metrics[m.name] = None
            w.errors[m.name] = f"could not be read from the {m.section} result: {safe_error(e)}"
    try:  # the true workload error by marginal order (evaluation/workload_error.py)
        metrics.update(w.notes.run(workload_metrics, conf_u,
                                   [df[w.common] for df in w.implicates],
                                   s.schema.subset(w.common), w.rng))
    except Exception as e:
        w.errors["workload error"] = safe_error(e)
    if not s.targets:  # a threshold the caller set on a measure about a target: say why not
        for t in s.thresholds:
            if t.metric in NEEDS_TARGET:
                w.errors[t.metric] = ("not computed: no target was given; the threshold needs "
                                      "the variable an intruder seeks (--target, targets=)")
    try:  # what the synthesizer's rare_values and extremes change
        rr = rare_released(conf_u, [df[w.common] for df in w.implicates])
        metrics["rare_values_released"] = rr.rare_values
        metrics["extremes_released"] = rr.extremes
    except Exception as e:
        w.errors["rare values"] = safe_error(e)
    if checked is not None:
        metrics[CONSTRAINT_METRIC] = checked.violations(w.name)
    if per_record is not None:
        metrics["mean_identification_risk"] = float(np.mean(per_record))
        metrics["max_identification_risk"] = float(np.max(per_record))
    return metrics
