"""The headline numbers of the comparison table: name, direction, range and where they come from.

Every number in the report's summary table is read from the result of
:func:`synthguard.utility.evaluate_utility` or :func:`synthguard.risk.evaluate_risk`
(never recomputed here), so the report prints what the library returns. Each
metric states its goal (SDMetrics' convention): ``"min"`` when lower is better
(risk, pMSE ratio), ``"max"`` when higher is better (CI overlap). A threshold on a
``"min"`` metric is an upper limit, on a ``"max"`` metric a lower limit.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["METRICS", "Metric", "extract_metric"]


@dataclass(frozen=True)
class Metric:
    """One headline number.

    Attributes
    ----------
    name : key in the comparison table and in ``thresholds``.
    label : column title in the report.
    section : ``"utility"``, ``"risk"`` or ``"attacks"`` (which bundle it is read from; the
        attacks' is a :class:`~synthguard.risk.ReleaseAttacks`, computed on request).
    goal : ``"min"`` (lower is better) or ``"max"`` (higher is better).
    lower, upper : the range of the measure (None: unbounded).
    paths : attribute paths tried in order on the bundle (``"pmse.ratio"``); ``mean:a.*.b``
        averages attribute ``b`` over the values of the mapping ``a`` (per variable, per
        formula).
    description : one line for the report's glossary, with the source.
    """

    name: str
    label: str
    section: str
    goal: str
    lower: float | None
    upper: float | None
    paths: tuple[str, ...]
    description: str


METRICS: dict[str, Metric] = {
    m.name: m
    for m in [
        Metric(
            "pmse_ratio", "pMSE ratio", "utility", "min", 0.0, None,
            ("pmse.ratio", "discriminant.ratio", "pmse_ratio"),
            "pMSE over its null expectation; near 1 means the release is hard to tell from the "
            "data (Snoke et al. 2018)",
        ),
        Metric(
            "specks", "SPECKS", "utility", "min", 0.0, 1.0,
            ("pmse.specks", "discriminant.specks", "specks"),
            "Kolmogorov–Smirnov distance between the propensity scores of the two groups "
            "(Bowen et al. 2021)",
        ),
        Metric(
            "auc", "AUC", "utility", "min", 0.0, 1.0,
            ("pmse.auc", "discriminant.auc", "auc"),
            "area under the ROC curve of the discriminating model; 0.5 is no better than chance",
        ),
        Metric(
            "correlation_mae", "corr. MAE", "utility", "min", 0.0, 2.0,
            ("correlation.mae", "correlation_fit.mae", "correlation_mae"),
            "mean absolute difference of the pairwise correlations (the course's correlation fit)",
        ),
        Metric(
            "kway_tv", "3-way TV (random)", "utility", "min", 0.0, 1.0,
            ("kway.tv", "kway_marginal.tv", "kway_tv"),
            "average total-variation distance over random 3-way marginals (NIST 2018 challenge)",
        ),
        *[Metric(
            f"tv_{k}way", f"{k}-way TV", "utility", "min", 0.0, 1.0, (f"tv_{k}way",),
            f"mean total-variation distance over all {k}-way marginals (up to 500), the "
            "workload error DP synthesizers minimise (McKenna et al. 2022; "
            "synthguard.report.workload_error)",
        ) for k in (1, 2, 3)],
        Metric(
            "ecdf_umax", "ECDF U_max", "utility", "min", 0.0, 1.0,
            ("mean:ecdf.*.u_max", "ecdf_umax"),
            "largest absolute ECDF difference, averaged over numeric variables (Woo et al. 2009)",
        ),
        Metric(
            "ci_overlap", "CI overlap", "utility", "max", None, 1.0,
            ("mean:regressions.*.mean_overlap", "ci_overlap"),
            "mean overlap of the 95% intervals of the regression coefficients (Snoke et al. 2018); "
            "1 for identical intervals, negative when they do not overlap (−1: a gap as wide "
            "as the intervals)",
        ),
        Metric(
            "mean_identification_risk", "mean IR", "risk", "min", 0.0, 1.0,
            ("identification.mean", "identification_risk.mean", "mean_identification_risk"),
            "mean record-level identification risk IR_i (Hu, Savitsky & Williams, eq. 1)",
        ),
        Metric(
            "max_identification_risk", "max IR", "risk", "min", 0.0, 1.0,
            ("identification.max", "identification_risk.max", "max_identification_risk"),
            "largest record-level identification risk (Hu, Savitsky & Williams, eq. 1)",
        ),
        Metric(
            "expected_match_risk", "exp. matches (count)", "risk", "min", 0.0, None,
            ("match.expected_match_risk", "matching.expected_match_risk",
             "expected_match_risk"),
            "expected number of records an intruder matches correctly (Reiter & Mitra 2009)",
        ),
        Metric(
            "true_match_rate", "true match", "risk", "min", 0.0, 1.0,
            ("match.true_match_rate", "matching.true_match_rate", "true_match_rate"),
            "share of records matched uniquely and correctly (Reiter & Mitra 2009)",
        ),
        Metric(
            "attribute_excess", "attribute excess", "risk", "min", -1.0, 1.0,
            ("attribute.max_excess", "attribute_excess"),
            "largest gain in the intruder's accuracy predicting a target from the keys with the "
            "release, over the holdout (or the marginal) baseline",
        ),
        Metric(
            "membership_auc", "membership AUC", "risk", "min", 0.0, 1.0,
            ("membership.auc", "membership_inference.auc", "membership_auc"),
            "AUC of the distance-threshold membership attack; 0.5 is guessing",
        ),
        Metric(
            "exact_copies", "exact copies", "risk", "min", 0.0, 1.0,
            ("distance.exact_copy_share", "dcr.exact_copy_share", "distance_to_closest_record."
             "exact_copy_share", "exact_copies"),
            "share of released records identical to a confidential record",
        ),
        Metric(
            "replicated_uniques", "replicated uniques", "risk", "min", 0.0, 1.0,
            ("disclosure.replicated_uniques", "replicated_uniques"),
            "share of confidential records unique on all released columns and released exactly "
            "once (synthpop's replicated uniques, removed by sdc(rm.replicated.uniques))",
        ),
        Metric(
            "repu", "repU", "risk", "min", 0.0, 1.0,
            ("disclosure.repu", "repu"),
            "share of confidential records unique on the keys and unique on them in the release "
            "(replicated uniques, Raab, Nowok & Dibben; compare UiO of the data)",
        ),
        Metric(
            "disco", "DiSCO", "risk", "min", 0.0, 1.0,
            ("disclosure.disco", "disco"),
            "largest share over the targets of confidential records whose target the release "
            "discloses from the keys, correctly (Disclosive in Synthetic, Correct Original; "
            "Raab, Nowok & Dibben)",
        ),
        Metric(
            "closer_to_data", "closer to data", "risk", "min", 0.0, 1.0,
            ("distance.share_closer_to_conf", "dcr.share_closer_to_conf",
             "distance_to_closest_record.share_closer_to_conf", "closer_to_data"),
            "share of released records closer to the training data than to the holdout; about "
            "the training data's share of the pooled training and holdout records, "
            "n_train / (n_train + n_holdout), when nothing was memorized",
        ),
        Metric(
            "singling_out_risk", "singling out", "attacks", "min", 0.0, 1.0,
            ("singling_out_risk",),
            "anonymeter's univariate singling-out risk: queries on one column that isolate one "
            "record of the release, their success on the training data beyond that on the "
            "holdout, (attack − control) / (1 − control) (Giomi et al. 2023); needs a holdout",
        ),
        Metric(
            "singling_out_multivariate_risk", "singling out (3 col.)", "attacks", "min", 0.0,
            1.0, ("singling_out_multivariate_risk",),
            "anonymeter's multivariate singling-out risk, queries on 3 columns (Giomi et al. "
            "2023); needs a holdout",
        ),
        Metric(
            "linkability_risk", "linkability", "attacks", "min", 0.0, 1.0,
            ("linkability_risk",),
            "anonymeter's linkability risk: the keys and the other columns, held in two files, "
            "joined through the nearest released record (Giomi et al. 2023); needs a holdout",
        ),
        Metric(
            "inference_risk", "inference", "attacks", "min", 0.0, 1.0,
            ("inference_risk",),
            "anonymeter's attribute-inference risk, largest over the targets: each target "
            "guessed from the keys as that of the nearest released record (Giomi et al. 2023); "
            "needs a holdout",
        ),
    ]
}


def _resolve(obj: Any, path: str) -> Any:
    cur = obj
    for part in path.split("."):
        if cur is None:
            return None
        if isinstance(cur, dict):
            cur = cur.get(part)
        else:
            cur = getattr(cur, part, None)
    return cur


def _as_float(v: Any) -> float | None:
    if v is None or isinstance(v, bool):
        return None
    if isinstance(v, int | float | np.integer | np.floating):
        f = float(v)
        return f if np.isfinite(f) else None
    return None


def extract_metric(bundle: Any, metric: Metric) -> float | None:
    """The value of ``metric`` in a utility or risk result, or None when the result lacks it."""
    if bundle is None:
        return None
    for path in metric.paths:
        if path.startswith("mean:") and ".*." in path:
            head, tail = path[5:].split(".*.", 1)
            holder = _resolve(bundle, head)
            items = list(holder.values()) if isinstance(holder, dict) else (
                list(holder) if isinstance(holder, list | tuple) else [])
            vals = [f for f in (_as_float(_resolve(it, tail)) for it in items) if f is not None]
            if vals:
                return float(np.mean(vals))
            continue
        if path.startswith("mean:"):
            v = _resolve(bundle, path[5:])
            if isinstance(v, pd.Series | pd.DataFrame | np.ndarray | list | tuple):
                arr = pd.to_numeric(pd.Series(np.ravel(np.asarray(v, dtype=object))),
                                    errors="coerce").to_numpy(dtype=float)
                arr = arr[np.isfinite(arr)]
                if arr.size:
                    return float(arr.mean())
            continue
        v = _resolve(bundle, path)
        if callable(v) and not isinstance(v, type):
            continue
        f = _as_float(v)
        if f is not None:
            return f
    return None


MetricFn = Callable[[Any], float | None]
