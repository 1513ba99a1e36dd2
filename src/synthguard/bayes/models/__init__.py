"""Weighted (pseudo-posterior) Bayesian models, registered as synthesis methods.

Importing this package registers ``bayes_norm``, ``bayes_mixture`` and ``bayes_negbin``
with :func:`synthguard.synthesis.registry.register_method`. Each accepts likelihood
weights (Hu, Savitsky & Williams, eq. 4) and draws every implicate from its own
posterior draw.
"""

from synthguard.bayes.models.bayes_mixture import BayesMixture
from synthguard.bayes.models.bayes_negbin import BayesNegBin, negbin_loglik
from synthguard.bayes.models.bayes_norm import BayesNorm, NIGPosterior, nig_posterior

__all__ = ["BayesMixture", "BayesNegBin", "BayesNorm", "NIGPosterior", "negbin_loglik", "nig_posterior"]
