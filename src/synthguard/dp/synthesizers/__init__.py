"""DP synthesizers: stratified (full noisy contingency table), DPFieldGroups, and MST on Private-PGM."""

from synthguard.dp.synthesizers._base import DPSynthesizer
from synthguard.dp.synthesizers.fieldgroups import FieldGroupsSynthesizer
from synthguard.dp.synthesizers.mst import MSTSynthesizer
from synthguard.dp.synthesizers.result import DPSyntheticData
from synthguard.dp.synthesizers.stratified import StratifiedSynthesizer

__all__ = [
    "DPSynthesizer",
    "DPSyntheticData",
    "FieldGroupsSynthesizer",
    "MSTSynthesizer",
    "StratifiedSynthesizer",
]
