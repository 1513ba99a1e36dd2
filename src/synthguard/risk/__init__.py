"""Disclosure risk of a release measured against the confidential data.

Identity: record-level identification risk within known patterns and its pairwise form
(Hu, Savitsky & Williams). See docs/risk.md.
"""

from synthguard.risk.identification import IdentificationRisk, identification_risk
from synthguard.risk.pairwise import PairwiseIdentificationRisk, pairwise_identification_risk

__all__ = [
    "IdentificationRisk",
    "PairwiseIdentificationRisk",
    "identification_risk",
    "pairwise_identification_risk",
]
