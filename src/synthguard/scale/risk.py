"""The risk measures under their ``synthguard.scale`` names: the rooms' functions themselves,
which take a pandas or a Dask DataFrame (kept so that existing code importing them from
here keeps working)."""

from __future__ import annotations

from synthguard.risk.distance import distance_to_closest_record
from synthguard.risk.identification import identification_risk
from synthguard.risk.matching import match_rates
from synthguard.risk.pairwise import pairwise_identification_risk
from synthguard.risk.uniqueness import k_anonymity

__all__ = [
    "distance_to_closest_record",
    "identification_risk",
    "k_anonymity",
    "match_rates",
    "pairwise_identification_risk",
]
