"""Risk-weighted Bayesian synthesis (Hu, Savitsky & Williams).

Weighted pseudo-posterior models registered as synthesis methods (``bayes_norm``,
``bayes_mixture``, ``bayes_negbin``), MCMC diagnostics, risk weights (marginal and
pairwise) and survey weights, the end-to-end :class:`RiskWeightedSynthesizer`, and the
comparison of releases (risk profiles, whack-a-mole, ECDF utility, estimates).
"""

from synthguard.bayes.compare import ReleaseComparison, compare_releases
from synthguard.bayes.mcmc import MCMCDiagnostics, effective_sample_size
from synthguard.bayes.models import BayesMixture, BayesNegBin, BayesNorm
from synthguard.bayes.weights import (
    RiskWeights,
    combine_weights,
    normalize_survey_weights,
    risk_weights,
)
from synthguard.bayes.workflow import RiskWeightedSynthesizer

__all__ = [
    "BayesMixture",
    "BayesNegBin",
    "BayesNorm",
    "MCMCDiagnostics",
    "ReleaseComparison",
    "RiskWeightedSynthesizer",
    "RiskWeights",
    "combine_weights",
    "compare_releases",
    "effective_sample_size",
    "normalize_survey_weights",
    "risk_weights",
]
