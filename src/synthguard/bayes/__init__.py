"""Risk-weighted Bayesian synthesis (Hu, Savitsky & Williams): weighted pseudo-posterior
models registered as synthesis methods, MCMC diagnostics, risk and survey weights, and the
end-to-end workflow."""

from synthguard.bayes.mcmc import MCMCDiagnostics, effective_sample_size
from synthguard.bayes.models import BayesMixture, BayesNegBin, BayesNorm

__all__ = [
    "BayesMixture",
    "BayesNegBin",
    "BayesNorm",
    "MCMCDiagnostics",
    "effective_sample_size",
]
