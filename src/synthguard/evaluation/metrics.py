"""The headline numbers of the comparison table: one registry of metrics, each declared once.

Every number in the report's summary table is read from the result of
:func:`synthguard.utility.evaluate_utility` or :func:`synthguard.risk.evaluate_risk`
(never recomputed here), so the report prints what the library returns. Each
:class:`Metric` states, in one place, how it is read from its bundle (``read``, a
function), its goal (SDMetrics' convention): ``"min"`` when lower is better (risk),
``"max"`` when higher is better (CI overlap), ``"target"`` when a value is ideal (pMSE
ratio 1, AUC 0.5), and its range. The utility metrics take goal and range from the
:class:`~synthguard.utility._metric.MetricInfo` their result class declares, so the two
cannot disagree. A threshold on a ``"min"`` or ``"target"`` metric is an upper limit
by default, on a ``"max"`` metric a lower limit.

:func:`register_metric` adds a metric (a plug-in's, a test's); the comparison table, the
report's tables and glossary, thresholds (Python, CLI, plans) all read :data:`METRICS`.
A reader is strict: a measure that is absent (None) gives None, a renamed attribute raises,
so a rename cannot silently empty a column.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, MutableMapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from synthguard._registry import Registry
from synthguard.errors import ParameterError
from synthguard.utility._metric import MetricInfo
from synthguard.utility.correlation import CorrelationFit
from synthguard.utility.discriminant import PMSEResult
from synthguard.utility.ecdf import ECDFUtility
from synthguard.utility.household_associations import HouseholdAssociations
from synthguard.utility.household_composition import HouseholdComposition
from synthguard.utility.household_size import HouseholdSize
from synthguard.utility.household_totals import HouseholdTotals
from synthguard.utility.marginals import KWayMarginalScore
from synthguard.utility.poverty import PovertyComparison
from synthguard.utility.regression import RegressionComparison

__all__ = ["METRICS", "Metric", "extract_metric", "mean_of", "metric_registry", "path",
           "register_metric", "utility_loss"]

GOALS = ("min", "max", "target")
SECTIONS = ("utility", "risk", "attacks")


@dataclass(frozen=True)
class Metric:
    """One headline number.

    Attributes
    ----------
    name : key in the comparison table and in ``thresholds``.
    label : column title in the report.
    section : ``"utility"``, ``"risk"`` or ``"attacks"`` (which bundle it is read from; the
        attacks' is a :class:`~synthguard.risk.ReleaseAttacks`, computed on request).
    goal : ``"min"`` (lower is better), ``"max"`` (higher is better) or ``"target"``
        (``target`` is ideal).
    lower, upper : the range of the measure (None: unbounded).
    read : function of the bundle returning the value, None when the measure is absent
        (:func:`path`, :func:`mean_of`).
    description : one line for the report's glossary, with the source.
    target : the ideal value of a ``"target"`` metric.
    compute : for a measure the evaluation computes itself (a module of
        :mod:`synthguard.evaluation.measures`): ``compute(conf, implicates, rng)`` returns the
        value for one release (its implicates, the columns it shares with the data; ``rng`` a
        Generator of the evaluation's seed); ``read`` is then :func:`computed_by_evaluate`.
    summary : whether the report's summary tables (sized to fit a printed page) show it; a
        metric left out still appears in the evaluation's table, the report's details and
        glossary, and thresholds.
    """

    name: str
    label: str
    section: str
    goal: str
    lower: float | None
    upper: float | None
    read: Callable[[Any], Any]
    description: str
    target: float | None = None
    compute: Callable[..., Any] | None = None
    summary: bool = True

    def __post_init__(self) -> None:
        if not callable(self.read):
            raise ParameterError(
                f"metric '{self.name}': 'read' must be a function of the bundle, e.g. "
                f"path('pmse.ratio'); attribute-path tuples are no longer read"
            )
        if self.goal not in GOALS:
            raise ParameterError(f"metric '{self.name}': goal must be one of {', '.join(GOALS)}")
        if self.section not in SECTIONS:
            raise ParameterError(
                f"metric '{self.name}': section must be one of {', '.join(SECTIONS)}"
            )
        if (self.goal == "target") != (self.target is not None):
            raise ParameterError(
                f"metric '{self.name}': give 'target' exactly when the goal is 'target'"
            )

    @property
    def default_bound(self) -> str:
        """The bound a bare threshold number sets: ``"max"`` unless higher is better."""
        return "min" if self.goal == "max" else "max"


def _step(obj: Any, name: str) -> Any:
    if obj is None:
        return None
    if isinstance(obj, dict):
        return obj.get(name)
    if not hasattr(obj, name):
        raise AttributeError(
            f"{type(obj).__name__} has no attribute '{name}': a metric reads a renamed field"
        )
    return getattr(obj, name)


def path(dotted: str) -> Callable[[Any], Any]:
    """A strict reader: ``path("pmse.ratio")(bundle)`` is ``bundle.pmse.ratio``, None when a
    step is None (the measure was not computed), AttributeError when a field is missing."""
    parts = dotted.split(".")

    def read(bundle: Any) -> Any:
        cur = bundle
        for part in parts:
            cur = _step(cur, part)
        return cur

    read.__qualname__ = f"path({dotted!r})"
    return read


def mean_of(mapping: str, field: str) -> Callable[[Any], Any]:
    """A reader of the mean of ``field`` over the values of the mapping ``bundle.<mapping>``
    (per variable, per formula); None when there is none."""
    get = path(mapping)

    def read(bundle: Any) -> Any:
        holder = get(bundle)
        if not holder:
            return None
        vals = [_as_float(_step(it, field)) for it in holder.values()]
        kept = [v for v in vals if v is not None]
        return float(np.mean(kept)) if kept else None

    read.__qualname__ = f"mean_of({mapping!r}, {field!r})"
    return read


def computed_by_evaluate(bundle: Any) -> None:
    """The reader of a metric :func:`~synthguard.evaluation` computes itself (the
    workload error of evaluation/workload_error.py): nothing to read from a bundle."""
    return None


def _closer_excess(bundle: Any) -> Any:
    """``(share − b) / (1 − b)``: the closer-to-data share's excess over its no-memorization
    baseline ``b``, as a share of the largest excess possible (None when not computed)."""
    d = _step(bundle, "distance")
    share = _step(d, "share_closer_to_conf")
    base = _step(d, "baseline_share")
    if share is None or base is None or not float(base) < 1.0:
        return None
    return (float(share) - float(base)) / (1.0 - float(base))


def _bound(x: float) -> float | None:
    return None if math.isinf(x) else float(x)


def _utility(name: str, label: str, info: MetricInfo, read: Callable[[Any], Any],
             description: str) -> Metric:
    """A utility metric whose goal and range are those its result class declares."""
    goal = {"minimize": "min", "maximize": "max", "target": "target"}[info.goal]
    return Metric(name, label, "utility", goal, _bound(info.min_value), _bound(info.max_value),
                  read, description, target=info.target if goal == "target" else None)


_BUILTINS: list[Metric] = [
        _utility(
            "pmse_ratio", "pMSE ratio", PMSEResult.metrics["ratio"], path("pmse.ratio"),
            "pMSE over its null expectation; near 1 means the release is hard to tell from the "
            "data (Snoke et al. 2018)",
        ),
        _utility(
            "specks", "SPECKS", PMSEResult.metrics["specks"], path("pmse.specks"),
            "Kolmogorov–Smirnov distance between the propensity scores of the two groups "
            "(Bowen et al. 2021)",
        ),
        _utility(
            "auc", "AUC", PMSEResult.metrics["auc"], path("pmse.auc"),
            "area under the ROC curve of the discriminating model; 0.5 is no better than chance",
        ),
        _utility(
            "correlation_mae", "corr. MAE", CorrelationFit.metrics["mae"], path("correlation.mae"),
            "mean absolute difference of the pairwise correlations (the course's correlation fit)",
        ),
        _utility(
            "kway_tv", "3-way TV (random)", KWayMarginalScore.metrics["tv"], path("kway.tv"),
            "average total-variation distance over random 3-way marginals (NIST 2018 challenge)",
        ),
        *[Metric(
            f"tv_{k}way", f"{k}-way TV", "utility", "min", 0.0, 1.0, computed_by_evaluate,
            f"mean total-variation distance over all {k}-way marginals (up to 500), the "
            "workload error DP synthesizers minimise (McKenna et al. 2022; "
            "synthguard.evaluation.workload_error)",
        ) for k in (1, 2, 3)],
        _utility(
            "ecdf_umax", "ECDF U_max", ECDFUtility.metrics["u_max"], mean_of("ecdf", "u_max"),
            "largest absolute ECDF difference, averaged over numeric variables (Woo et al. 2009)",
        ),
        _utility(
            "ci_overlap", "CI overlap", RegressionComparison.metrics["mean_overlap"],
            mean_of("regressions", "mean_overlap"),
            "mean overlap of the 95% intervals of the regression coefficients (Snoke et al. 2018); "
            "1 for identical intervals, negative when they do not overlap (−1: a gap as wide "
            "as the intervals)",
        ),
        Metric(
            "mean_identification_risk", "mean IR", "risk", "min", 0.0, 1.0,
            path("identification.mean"),
            "mean record-level identification risk IR_i (Hu, Savitsky & Williams, eq. 1)",
        ),
        Metric(
            "max_identification_risk", "max IR", "risk", "min", 0.0, 1.0,
            path("identification.max"),
            "largest record-level identification risk (Hu, Savitsky & Williams, eq. 1)",
        ),
        Metric(
            "expected_match_risk", "exp. matches (count)", "risk", "min", 0.0, None,
            path("match.expected_match_risk"),
            "expected number of records an intruder matches correctly (Reiter & Mitra 2009)",
        ),
        Metric(
            "true_match_rate", "true match", "risk", "min", 0.0, 1.0,
            path("match.true_match_rate"),
            "share of records matched uniquely and correctly (Reiter & Mitra 2009)",
        ),
        Metric(
            "attribute_excess", "attribute excess", "risk", "min", -1.0, 1.0,
            path("attribute.max_excess"),
            "largest gain in the intruder's accuracy predicting a target from the keys with the "
            "release, over the holdout (or the marginal) baseline",
        ),
        Metric(
            "membership_auc", "membership AUC", "risk", "min", 0.0, 1.0,
            path("membership.auc"),
            "AUC of the distance-threshold membership attack; 0.5 is guessing",
        ),
        Metric(
            "exact_copies", "exact copies", "risk", "min", 0.0, 1.0,
            path("distance.exact_copy_share"),
            "share of released records identical to a confidential record",
        ),
        Metric(
            "replicated_uniques", "replicated uniques", "risk", "min", 0.0, 1.0,
            path("disclosure.replicated_uniques"),
            "share of confidential records unique on all released columns and released exactly "
            "once (synthpop's replicated uniques, removed by sdc(rm.replicated.uniques))",
        ),
        Metric(
            "repu", "repU", "risk", "min", 0.0, 1.0,
            path("disclosure.repu"),
            "share of confidential records unique on the keys and unique on them in the release "
            "(replicated uniques, Raab, Nowok & Dibben; compare UiO of the data)",
        ),
        Metric(
            "disco", "DiSCO", "risk", "min", 0.0, 1.0,
            path("disclosure.disco"),
            "largest share over the targets of confidential records whose target the release "
            "discloses from the keys, correctly (Disclosive in Synthetic, Correct Original; "
            "Raab, Nowok & Dibben)",
        ),
        Metric(
            "constraint_violations", "constraint violations", "risk", "min", 0.0, None,
            computed_by_evaluate,
            "records breaking a constraint every record should keep, in the worst implicate "
            "(synthguard.evaluation.constraints; a release must have none)",
        ),
        Metric(
            "replicated_households", "replicated households", "risk", "min", 0.0, 1.0,
            computed_by_evaluate,
            "share of released households whose members' records (every released column, as a "
            "multiset) equal those of a household unique in the data, in the worst implicate "
            "(with household=; synthguard.risk.replicated_households; a synthetic release must "
            "have none)",
        ),
        *[_utility(name, label, info, computed_by_evaluate, text)
          for name, label, info, text in (
            ("household_size_tv", "household size TV", HouseholdSize.metrics["tv"],
             "total variation distance of the weighted household-size distributions (with "
             "household=; synthguard.utility.household_size)"),
            ("household_composition_tv", "composition TV", HouseholdComposition.metrics["tv"],
             "total variation distance of the head's sex x age group x household size tables "
             "(synthguard.utility.household_composition)"),
            ("partner_age_corr_diff", "partners' age corr. diff",
             HouseholdAssociations.metrics["partner_corr_diff"],
             "absolute difference of the correlation of the head's and the partner's ages "
             "(needs a relationship column; synthguard.utility.household_associations)"),
            ("children_age_corr_diff", "head age x children diff",
             HouseholdAssociations.metrics["children_corr_diff"],
             "absolute difference of the correlation of the head's age and the number of "
             "children (synthguard.utility.household_associations)"),
            ("household_totals_ks", "household totals KS", HouseholdTotals.metrics["ks"],
             "largest KS distance of the weighted distributions of household totals of person "
             "variables, e.g. household income (synthguard.utility.household_totals)"),
            ("poverty_rate_diff", "poverty rate diff", PovertyComparison.metrics["diff"],
             "absolute difference of the at-risk-of-poverty rates: OECD-modified equivalised "
             "household income below 60% of its weighted median (Eurostat; "
             "synthguard.utility.poverty)"),
        )],
        Metric(
            "closer_to_data", "closer to data", "risk", "min", 0.0, 1.0,
            path("distance.share_closer_to_conf"),
            "share of released records closer to the training data than to the holdout; about "
            "the training data's share of the pooled training and holdout records, "
            "n_train / (n_train + n_holdout), when nothing was memorized",
        ),
        Metric(
            "rare_values_released", "rare values released", "risk", "min", 0.0, 1.0,
            computed_by_evaluate,
            "share of released cells holding a value held by fewer than 5 confidential records "
            "(a one-record level, a one-person income): a query for it isolates them "
            "(synthguard.risk.rare_released; what the synthesizer's rare_values changes)",
        ),
        Metric(
            "extremes_released", "tail values released", "risk", "min", 0.0, 1.0,
            computed_by_evaluate,
            "share of released numeric cells beyond the data's 5-record tails (above the 6th "
            "largest or below the 6th smallest value; synthguard.risk.rare_released; what the "
            "synthesizer's extremes changes)",
        ),
        Metric(
            "closer_to_data_excess", "closer to data, excess", "risk", "min", None, 1.0,
            _closer_excess,
            "how far the share of released records closer to the training data than to the "
            "holdout exceeds its no-memorization value b = n_train / (n_train + n_holdout), as "
            "a share of the most it can: (share − b) / (1 − b); 0 when nothing was memorized, "
            "1 for a copy of the training data, whatever the holdout's size",
        ),
        Metric(
            "singling_out_risk", "singling out", "attacks", "min", 0.0, 1.0,
            path("singling_out_risk"),
            "anonymeter's univariate singling-out risk: queries on one column that isolate one "
            "record of the release, their success on the training data beyond that on the "
            "holdout, (attack − control) / (1 − control) (Giomi et al. 2023); needs a holdout",
        ),
        Metric(
            "singling_out_multivariate_risk", "singling out (3 col.)", "attacks", "min", 0.0,
            1.0, path("singling_out_multivariate_risk"),
            "anonymeter's multivariate singling-out risk, queries on 3 columns (Giomi et al. "
            "2023); needs a holdout",
        ),
        Metric(
            "linkability_risk", "linkability", "attacks", "min", 0.0, 1.0,
            path("linkability_risk"),
            "anonymeter's linkability risk: the keys and the other columns, held in two files, "
            "joined through the nearest released record (Giomi et al. 2023); needs a holdout",
        ),
        Metric(
            "inference_risk", "inference", "attacks", "min", 0.0, 1.0,
            path("inference_risk"),
            "anonymeter's attribute-inference risk, largest over the targets: each target "
            "guessed from the keys as that of the nearest released record (Giomi et al. 2023); "
            "needs a holdout",
        ),
    ]


def _check(name: str, metric: Any) -> None:
    if not isinstance(metric, Metric):
        raise ParameterError("register_metric: expected a Metric")
    if metric.name != name:
        raise ParameterError(f"metric '{metric.name}' must be registered under its own name, "
                             f"not '{name}'")


metric_registry: Registry[Metric] = Registry(
    "metric", entry_point_group="synthguard.metrics", check=_check,
    builtins=("synthguard.evaluation.measures",))
"""The metrics, on the project's one registry type: ``register``, ``get``, ``available()``;
the measures of :mod:`synthguard.evaluation.measures` (one module each) are loaded on first
use, and a plug-in package adds metrics from a module named under the ``synthguard.metrics``
entry points. :data:`METRICS` reads it as a mapping."""

for _m in _BUILTINS:
    metric_registry.register(_m.name, _m)


class _Metrics(MutableMapping[str, Metric]):
    """:data:`METRICS`: the metric registry read (and written) as a dict name -> Metric."""

    def __getitem__(self, name: str) -> Metric:
        if name not in metric_registry:
            raise KeyError(name)
        return metric_registry.get(name)

    def __iter__(self) -> Iterator[str]:
        return iter(metric_registry.available())

    def __len__(self) -> int:
        return len(metric_registry)

    def __setitem__(self, name: str, metric: Metric) -> None:
        metric_registry.register(name, metric, overwrite=True)

    def __delitem__(self, name: str) -> None:
        if name not in metric_registry:
            raise KeyError(name)
        metric_registry.unregister(name)

    def __repr__(self) -> str:
        return f"METRICS({', '.join(self)})"


METRICS: MutableMapping[str, Metric] = _Metrics()
"""The metric registry as a mapping: name -> :class:`Metric` (label, room, goal, range, ideal,
reader), each declared once; the comparison table, the report's tables and glossary, the
thresholds (Python, CLI, plans) and the release gate read it, and :func:`register_metric`
adds to it."""


def register_metric(metric: Metric, *, overwrite: bool = False) -> Metric:
    """Add ``metric`` to :data:`METRICS` (``metric_registry.register(metric.name, metric)``):
    it joins the comparison table, its section of the report, the glossary and the thresholds
    of Python, the CLI and plans. Returns it."""
    _check(getattr(metric, "name", ""), metric)
    return metric_registry.register(metric.name, metric, overwrite=overwrite)


def _as_float(v: Any) -> float | None:
    if v is None or isinstance(v, bool):
        return None
    if isinstance(v, int | float | np.integer | np.floating):
        f = float(v)
        return f if np.isfinite(f) else None
    return None


def extract_metric(bundle: Any, metric: Metric) -> float | None:
    """The value of ``metric`` in a utility or risk result, None when the measure is absent.

    Raises AttributeError when the bundle lacks a field the metric reads (a rename)."""
    if bundle is None:
        return None
    return _as_float(metric.read(bundle))


MetricFn = Callable[[Any], float | None]


def utility_loss(metric: str, values: Any) -> np.ndarray:
    """How far each value of ``metric`` is from its ideal, lower meaning more useful: the
    value itself for a ``"min"`` metric, its negative for a ``"max"`` one, and for a
    ``"target"`` metric ``|log(value / target)|`` (``|value - target|`` when the target is 0
    or a value is not positive). So a pMSE ratio of 0.25 is as far from the ideal 1 as one of
    4, and neither beats 1.2: a ratio far below 1 means a release closer to the data than a
    fresh sample from the same population, not a more useful one. NaN stays NaN."""
    m = METRICS[metric]
    v = np.asarray(values, dtype=float)
    if m.goal == "min":
        return v
    if m.goal == "max":
        return -v
    target = float(m.target or 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        if target > 0:
            out = np.abs(np.log(np.where(v > 0, v, np.nan) / target))
            return np.where(np.isnan(v), np.nan, np.where(v > 0, out, np.inf))
        return np.abs(v - target)
