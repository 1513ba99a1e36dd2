"""Differential privacy: vetted mechanisms, a privacy-budget ledger, randomized response, DP synthesizers.

Noise for releases comes from OpenDP's samplers (``random_state=None``, the default); a seed
selects a numpy simulation path that is not for releases and says so with a PrivacyWarning.
Every query and synthesizer charges a :class:`PrivacyLedger` before it draws noise.
"""

from synthguard.dp.accountant import (
    Budget,
    Charge,
    ParallelCharges,
    PrivacyLedger,
    pure_to_zcdp,
    zcdp_to_dp,
)
from synthguard.dp.board import epsilon_table, epsilon_words
from synthguard.dp.conversion import epsilon_to_rho, rho_to_delta, rho_to_epsilon
from synthguard.dp.local_frequency import (
    LocalHashReports,
    frequency_variance,
    olh_estimate,
    olh_perturb,
    oue_estimate,
    oue_perturb,
)
from synthguard.dp.mechanisms import (
    discrete_gaussian,
    discrete_gaussian_sigma,
    discrete_laplace,
    gaussian,
    gaussian_sigma,
    laplace,
    laplace_scale,
)
from synthguard.dp.postprocess import (
    clamp_negative,
    consistent_hierarchy,
    rescale_to_total,
    round_counts,
    simplex_projection,
)
from synthguard.dp.queries import DPResult, dp_count, dp_histogram, dp_mean, dp_quantile, dp_sum
from synthguard.dp.randomized_response import (
    RREstimate,
    randomized_response,
    randomized_response_estimate,
    rr_epsilon,
    rr_probability,
)
from synthguard.dp.sensitivity import (
    Sensitivity,
    count_sensitivity,
    histogram_sensitivity,
    mean_sensitivity,
    sum_sensitivity,
)
from synthguard.dp.session import PrivacyUnit, QueryResult, Session
from synthguard.dp.synthesizers import (
    AIMSynthesizer,
    DPSGDSynthesizer,
    DPSyntheticData,
    FieldGroupsSynthesizer,
    MSTSynthesizer,
    StratifiedSynthesizer,
)

__all__ = [
    "AIMSynthesizer",
    "Budget",
    "Charge",
    "DPResult",
    "DPSGDSynthesizer",
    "DPSyntheticData",
    "FieldGroupsSynthesizer",
    "LocalHashReports",
    "MSTSynthesizer",
    "ParallelCharges",
    "PrivacyLedger",
    "PrivacyUnit",
    "QueryResult",
    "RREstimate",
    "Sensitivity",
    "Session",
    "StratifiedSynthesizer",
    "clamp_negative",
    "consistent_hierarchy",
    "count_sensitivity",
    "discrete_gaussian",
    "discrete_gaussian_sigma",
    "discrete_laplace",
    "dp_count",
    "dp_histogram",
    "dp_mean",
    "dp_quantile",
    "dp_sum",
    "epsilon_table",
    "epsilon_to_rho",
    "epsilon_words",
    "frequency_variance",
    "gaussian",
    "gaussian_sigma",
    "histogram_sensitivity",
    "laplace",
    "laplace_scale",
    "mean_sensitivity",
    "olh_estimate",
    "olh_perturb",
    "oue_estimate",
    "oue_perturb",
    "pure_to_zcdp",
    "randomized_response",
    "randomized_response_estimate",
    "rescale_to_total",
    "rho_to_delta",
    "rho_to_epsilon",
    "round_counts",
    "rr_epsilon",
    "rr_probability",
    "simplex_projection",
    "sum_sensitivity",
    "zcdp_to_dp",
]
