"""The measures a sweep takes of each configuration: what the gate and the frontier need.

A full :func:`synthguard.evaluation` of one Adult release (distances to closest records,
membership, every marginal, k-way scores, survey blocks, all four attacks) takes minutes on
two cores; a sweep of twelve configurations cannot afford it for each. :func:`measure_release`
computes, with the very functions the evaluation calls and the same definitions, only:

* utility: the logistic pMSE ratio (and SPECKS, AUC; Snoke et al. 2018) over the columns the
  release shares with the data, and the CI overlap of the formulas (Karr et al. 2006; the
  combining rule of the release's kind), as :func:`synthguard.utility.evaluate_utility`;
* disclosure: replicated uniques, repU and DiSCO (Raab, Nowok & Dibben), as
  :func:`synthguard.risk.release_disclosure`;
* the rare values and tail values the release hands back (:mod:`synthguard.risk.
  rare_released`): what a sweep's ``rare_values`` and ``extremes`` change;
* with ``attacks``: anonymeter's univariate and multivariate singling out on the first
  implicate with the holdout as control (Giomi et al. 2023), as
  :func:`synthguard.risk.release_attacks`; linkability and inference too when a threshold
  names them.

A threshold on any other metric (record-level identification risk, membership AUC...) is not
checked per configuration: :func:`synthguard.pipeline.sweep` lists it as deferred and
:func:`synthguard.pipeline.run_sweep` releases the chosen configuration only when its full
evaluation (:func:`synthguard.evaluation`, every threshold) passes too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from synthguard._random import RandomState, resolve_seed, spawn
from synthguard.data import as_implicates
from synthguard.errors import ParameterError, safe_error
from synthguard.evaluation.metrics import METRICS, extract_metric
from synthguard.evaluation.thresholds import (
    Threshold,
    ThresholdCheck,
    check_thresholds,
    full_only_lower,
)
from synthguard.risk.rare_released import rare_released
from synthguard.risk.release_attacks import release_attacks
from synthguard.risk.release_disclosure import release_disclosure
from synthguard.risk.singling_out import singling_out
from synthguard.utility import compare_regression, pmse

__all__ = ["ATTACK_ONLY", "SWEEP_METRICS", "check_measurable", "measure_release"]

#: Metrics a sweep measures for every configuration.
SWEEP_METRICS: tuple[str, ...] = (
    "pmse_ratio", "specks", "auc", "ci_overlap", "replicated_uniques", "repu", "disco",
    "singling_out_risk", "singling_out_multivariate_risk", "rare_values_released",
    "extremes_released",
)
#: Metrics measured only when a threshold names them (the slower attacks).
ATTACK_ONLY: tuple[str, ...] = ("linkability_risk", "inference_risk")


def check_measurable(thresholds: Sequence[Threshold]) -> None:
    """Refuse a threshold on a metric a sweep does not measure (ParameterError)."""
    known = set(SWEEP_METRICS) | set(ATTACK_ONLY)
    bad = [t.metric for t in thresholds if t.metric not in known]
    if bad:
        raise ParameterError(
            f"threshold '{bad[0]}': a sweep does not measure it for every configuration; "
            f"thresholds of a sweep may name {', '.join((*SWEEP_METRICS, *ATTACK_ONLY))} "
            f"(the chosen release's full report measures the rest)"
        )


def measure_release(
    conf: pd.DataFrame,
    release: Any,
    *,
    keys: Sequence[str],
    targets: Sequence[str],
    holdout: pd.DataFrame | None,
    thresholds: Sequence[Threshold],
    formulas: Sequence[str] | Mapping[str, str] | None = None,
    attacks: bool = True,
    n_attacks: int = 500,
    kind: str = "full",
    random_state: RandomState = None,
    defaulted: frozenset[str] = frozenset(),
) -> tuple[dict[str, float | None], tuple[ThresholdCheck, ...], dict[str, str]]:
    """The sweep's measures of one release (module doc) and its threshold checks.

    Returns
    -------
    metrics : metric name -> value (None when not computed).
    checks : one per threshold (a measure that failed to compute fails its threshold).
    errors : what could not be computed, and why (safe to print: no data value).
    """
    rng, _ = resolve_seed(random_state)
    r_util, r_att = spawn(rng, 2)
    imps = as_implicates(release)
    cols = [c for c in conf.columns if all(c in f.columns for f in imps)]
    conf_c = conf[cols]
    imps_c = [f[cols] for f in imps]
    errors: dict[str, str] = {}
    utility: dict[str, Any] = {}
    try:
        utility["pmse"] = pmse(conf_c, imps_c, "logistic", random_state=r_util)
    except Exception as e:  # recorded: its threshold then fails as not computed
        errors["pMSE"] = safe_error(e)
    fams = (dict(formulas) if isinstance(formulas, Mapping)
            else dict.fromkeys(formulas or [], "gaussian"))
    rule = "full" if kind == "full" else "partial"
    regs = {}
    for f, fam in fams.items():
        try:
            regs[f] = compare_regression(f, conf_c, imps_c, family=fam, method=rule)  # type: ignore[arg-type]
        except Exception as e:
            errors[f"regression {f}"] = safe_error(e)
    utility["regressions"] = regs
    risk: dict[str, Any] = {}
    try:
        risk["disclosure"] = release_disclosure(conf_c, imps_c, list(keys), list(targets))
    except Exception as e:
        errors["disclosure"] = safe_error(e)
    named = {t.metric for t in thresholds}
    att: Any = None
    if attacks:
        if holdout is None:
            errors["attacks"] = "no holdout: the attacks need records the synthesizer never saw"
        else:
            try:
                ctrl = holdout[cols]
                if named & set(ATTACK_ONLY):
                    att = release_attacks(conf_c, imps_c, ctrl, keys=list(keys),
                                          targets=list(targets), n_attacks=n_attacks,
                                          random_state=r_att)
                else:
                    r_uni, r_multi = spawn(r_att, 2)
                    att = {
                        "singling_out_risk": singling_out(
                            conf_c, imps_c[0], mode="univariate", n_attacks=n_attacks,
                            control=ctrl, random_state=r_uni).risk,
                        "singling_out_multivariate_risk": singling_out(
                            conf_c, imps_c[0], mode="multivariate", n_attacks=n_attacks,
                            n_cols=min(3, len(cols)), control=ctrl, random_state=r_multi).risk,
                    }
            except Exception as e:
                errors["attacks"] = safe_error(e)
    bundles = {"utility": utility, "risk": risk, "attacks": att}
    metrics: dict[str, float | None] = {}
    for name in (*SWEEP_METRICS, *ATTACK_ONLY):
        m = METRICS[name]
        try:
            v = extract_metric(bundles.get(m.section), m)
        except AttributeError:
            v = None
        metrics[name] = None if v is None or not np.isfinite(v) else float(v)
    try:  # what the rare_values and extremes settings change
        rr = rare_released(conf_c, imps_c)
        metrics["rare_values_released"] = rr.rare_values
        metrics["extremes_released"] = rr.extremes
    except Exception as e:
        errors["rare values"] = safe_error(e)
    undefined = set(ATTACK_ONLY) - named  # not asked for, so not judged
    checks = full_only_lower(check_thresholds(tuple(thresholds), metrics, frozenset(undefined)),
                             kind, defaulted)
    return metrics, checks, errors
