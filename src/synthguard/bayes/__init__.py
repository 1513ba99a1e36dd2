"""Risk-weighted Bayesian synthesis (Hu, Savitsky & Williams).

Weighted pseudo-posterior models registered as synthesis methods (``bayes_norm``,
``bayes_mixture``, ``bayes_negbin``), MCMC diagnostics, risk weights (marginal and
pairwise) and survey weights, the end-to-end :class:`RiskWeightedSynthesizer`, and the
comparison of releases (risk profiles, whack-a-mole, ECDF utility, estimates).

The models load eagerly (the synthesis registry imports them); the weights, workflow and
comparison, which need :mod:`synthguard.risk` and :mod:`synthguard.utility`, load on first
use so that looking up a method stays fast.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from synthguard.bayes.mcmc import MCMCDiagnostics, effective_sample_size
from synthguard.bayes.models import BayesMixture, BayesNegBin, BayesNorm

if TYPE_CHECKING:
    from synthguard.bayes.compare import ReleaseComparison, compare_releases
    from synthguard.bayes.latent_class import LatentClassSynthesizer
    from synthguard.bayes.weights import (
        RiskWeights,
        combine_weights,
        normalize_survey_weights,
        risk_weights,
    )
    from synthguard.bayes.workflow import RiskWeightedSynthesizer

_LAZY = {
    "ReleaseComparison": "compare",
    "compare_releases": "compare",
    "RiskWeights": "weights",
    "combine_weights": "weights",
    "normalize_survey_weights": "weights",
    "risk_weights": "weights",
    "RiskWeightedSynthesizer": "workflow",
    "LatentClassSynthesizer": "latent_class",
}

__all__ = [
    "BayesMixture",
    "BayesNegBin",
    "BayesNorm",
    "LatentClassSynthesizer",
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


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        module = importlib.import_module(f"synthguard.bayes.{_LAZY[name]}")
        value = getattr(module, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'synthguard.bayes' has no attribute '{name}'")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
