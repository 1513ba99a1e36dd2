"""Utility of a release: general measures (univariate, ECDF, correlation fit, pMSE and friends,
k-way marginals) and analysis-specific ones (combining rules over implicates, interval
overlap, SSO, regression and statistic comparisons, Ripley's K and L of point locations,
survey-weighted estimates by domain) and household-level ones (household size, composition,
within-household associations, household totals, at-risk-of-poverty rate).

Every result is a frozen dataclass with its headline numbers as attributes, ``to_frame()``
and ``summary()``; ``metrics`` (class attribute) states each number's direction and range.
"""

from synthguard.utility._metric import MetricInfo
from synthguard.utility.combining import CombinedEstimate, combine
from synthguard.utility.correlation import CorrelationFit, correlation_fit
from synthguard.utility.discriminant import PMSEResult, pmse
from synthguard.utility.domains import DomainEstimates, domain_estimates
from synthguard.utility.ecdf import ECDFUtility, ecdf_utility
from synthguard.utility.evaluate import UtilityEvaluation, evaluate_utility
from synthguard.utility.household_utility import HouseholdUtility, household_utility
from synthguard.utility.marginals import KWayMarginalScore, kway_marginal_score
from synthguard.utility.mutual_information import MutualInformationFit, mutual_information_fit
from synthguard.utility.nist_scores import (
    NISTClassificationScore,
    NISTRegressionScore,
    gini_index,
    nist_classification_score,
    nist_regression_score,
)
from synthguard.utility.overlap import SSOResult, ci_overlap, posterior_overlap, sso
from synthguard.utility.pmse_pairs import PairsPMSE, pmse_pairs
from synthguard.utility.poverty import PovertyRate, at_risk_of_poverty
from synthguard.utility.regression import RegressionComparison, compare_regression
from synthguard.utility.spatial import RipleyComparison, compare_ripley, ripley_k
from synthguard.utility.statistics import StatisticsComparison, compare_statistics
from synthguard.utility.tab import UtilityTab, utility_tab
from synthguard.utility.tables import UtilityTables, utility_tables
from synthguard.utility.univariate import UnivariateComparison, univariate

__all__ = [
    "CombinedEstimate",
    "CorrelationFit",
    "DomainEstimates",
    "ECDFUtility",
    "HouseholdUtility",
    "KWayMarginalScore",
    "MetricInfo",
    "MutualInformationFit",
    "NISTClassificationScore",
    "NISTRegressionScore",
    "PMSEResult",
    "PairsPMSE",
    "PovertyRate",
    "RegressionComparison",
    "RipleyComparison",
    "SSOResult",
    "StatisticsComparison",
    "UnivariateComparison",
    "UtilityEvaluation",
    "UtilityTab",
    "UtilityTables",
    "at_risk_of_poverty",
    "ci_overlap",
    "combine",
    "compare_regression",
    "compare_ripley",
    "compare_statistics",
    "correlation_fit",
    "domain_estimates",
    "ecdf_utility",
    "evaluate_utility",
    "gini_index",
    "household_utility",
    "kway_marginal_score",
    "mutual_information_fit",
    "nist_classification_score",
    "nist_regression_score",
    "pmse",
    "pmse_pairs",
    "posterior_overlap",
    "ripley_k",
    "sso",
    "univariate",
    "utility_tab",
    "utility_tables",
]
