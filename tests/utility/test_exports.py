"""synthguard.utility exports exactly the public names of issue 3 plus the result classes."""

import doctest
import importlib

import pytest

import synthguard.utility as U

ISSUE_NAMES = {
    "univariate", "ecdf_utility", "correlation_fit", "pmse", "kway_marginal_score", "combine",
    "ci_overlap", "sso", "compare_regression", "compare_statistics", "evaluate_utility",
    "domain_estimates",  # issue 22
    "utility_tab", "utility_tables",  # issue 14
    "ripley_k", "compare_ripley", "mutual_information_fit",  # issue 36
    "household_utility", "at_risk_of_poverty",  # issue 33
    "nist_regression_score", "nist_classification_score", "gini_index",  # issue 36
    "posterior_overlap", "pmse_pairs",  # issue 36
}
RESULT_CLASSES = {
    "CombinedEstimate", "CorrelationFit", "ECDFUtility", "KWayMarginalScore", "MetricInfo",
    "PMSEResult", "RegressionComparison", "SSOResult", "StatisticsComparison",
    "UnivariateComparison", "UtilityEvaluation", "DomainEstimates", "UtilityTab", "UtilityTables",
    "RipleyComparison", "MutualInformationFit",
    "HouseholdUtility", "PovertyRate",
    "NISTRegressionScore", "NISTClassificationScore", "PairsPMSE",
}


def test_all_is_exactly_the_promised_names():
    assert set(U.__all__) == ISSUE_NAMES | RESULT_CLASSES
    for name in U.__all__:
        assert hasattr(U, name)


@pytest.mark.parametrize(
    "module",
    ["ecdf", "combining", "overlap", "correlation", "tab", "tables"],
)
def test_docstring_examples_run(module):
    mod = importlib.import_module(f"synthguard.utility.{module}")
    failures, tried = doctest.testmod(mod, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert tried > 0
    assert failures == 0


@pytest.mark.parametrize(
    "cls", ["ECDFUtility", "CorrelationFit", "PMSEResult", "KWayMarginalScore", "SSOResult",
            "UnivariateComparison", "RegressionComparison", "StatisticsComparison"],
)
def test_results_state_direction_and_range(cls):
    c = getattr(U, cls)
    assert c.goal in ("minimize", "maximize", "target")
    assert c.min_value < c.max_value
    for name, info in c.metrics.items():
        assert info.name == name
        assert info.goal in ("minimize", "maximize", "target")
        assert info.min_value < info.max_value
        if info.goal == "target":
            assert info.min_value <= info.target <= info.max_value


def test_results_render_in_notebooks():
    import numpy as np

    r = U.ecdf_utility(np.arange(5.0), np.arange(5.0) + 1)
    html = r._repr_html_()
    assert "ECDF utility" in html and "<table" in html
    est = U.combine([1.0, 2.0], [1.0, 1.0])
    assert "<table" in est._repr_html_()
