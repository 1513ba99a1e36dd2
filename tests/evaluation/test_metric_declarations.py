"""Each headline metric is declared once, on the project's one registry type: METRICS reads
the registry, and a metric read from a result class takes that class's direction and range."""

from __future__ import annotations

import math

import pytest

from synthguard._registry import Registry, all_registries
from synthguard.errors import ParameterError
from synthguard.evaluation import METRICS, Metric, register_metric
from synthguard.evaluation.metrics import metric_registry, path
from synthguard.evaluation.thresholds import parse_thresholds
from synthguard.utility import MetricInfo
from synthguard.utility.discriminant import PMSEResult
from synthguard.utility.household_associations import HouseholdAssociations
from synthguard.utility.household_composition import HouseholdComposition
from synthguard.utility.household_size import HouseholdSize
from synthguard.utility.household_totals import HouseholdTotals
from synthguard.utility.poverty import PovertyComparison

GOAL = {"minimize": "min", "maximize": "max", "target": "target"}

#: headline metric -> the result-class declaration it is read from
DECLARED: dict[str, MetricInfo] = {
    "pmse_ratio": PMSEResult.metrics["ratio"],
    "auc": PMSEResult.metrics["auc"],
    "household_size_tv": HouseholdSize.metrics["tv"],
    "household_composition_tv": HouseholdComposition.metrics["tv"],
    "partner_age_corr_diff": HouseholdAssociations.metrics["partner_corr_diff"],
    "children_age_corr_diff": HouseholdAssociations.metrics["children_corr_diff"],
    "household_totals_ks": HouseholdTotals.metrics["ks"],
    "poverty_rate_diff": PovertyComparison.metrics["diff"],
}


def _bound(x: float) -> float | None:
    return None if math.isinf(x) else x


@pytest.mark.parametrize("name", sorted(DECLARED))
def test_a_metric_takes_its_result_class_declaration(name):
    m, info = METRICS[name], DECLARED[name]
    assert m.goal == GOAL[info.goal]
    assert (m.lower, m.upper) == (_bound(info.min_value), _bound(info.max_value))
    assert m.target == (info.target if info.goal == "target" else None)


def test_metrics_is_the_registry_read_as_a_mapping():
    assert isinstance(metric_registry, Registry)
    assert all_registries()["synthguard.metrics"] is metric_registry
    assert list(METRICS) == metric_registry.available()
    assert all(METRICS[n] is metric_registry.get(n) for n in METRICS)
    with pytest.raises(KeyError):
        METRICS["no_such_metric"]
    with pytest.raises(ParameterError, match="unknown metric 'no_such_metric'"):
        metric_registry.get("no_such_metric")


def test_registering_through_the_registry_reaches_the_thresholds():
    m = Metric("toy_specks", "toy SPECKS", "utility", "min", 0.0, 1.0, path("pmse.specks"), "d")
    with pytest.raises(ParameterError, match="unknown metric"):
        parse_thresholds({"toy_specks": 0.2})
    metric_registry.register("toy_specks", m)
    try:
        assert METRICS["toy_specks"] is m
        (t,) = parse_thresholds({"toy_specks": 0.2})
        assert (t.metric, t.bound, t.limit) == ("toy_specks", "max", 0.2)
    finally:
        del METRICS["toy_specks"]
    assert "toy_specks" not in METRICS and "toy_specks" not in metric_registry.available()


def test_a_metric_is_registered_under_its_own_name_only():
    m = Metric("toy_auc", "toy AUC", "utility", "min", 0.0, 1.0, path("pmse.auc"), "d")
    with pytest.raises(ParameterError, match="its own name"):
        metric_registry.register("other_name", m)
    with pytest.raises(ParameterError, match="expected a Metric"):
        register_metric("auc")  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="already registered"):
        register_metric(Metric("auc", "AUC", "utility", "min", 0.0, 1.0, path("pmse.auc"), "d"))
