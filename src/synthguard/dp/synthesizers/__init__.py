"""DP synthesizers: stratified (full noisy contingency table), DPFieldGroups, MST and AIM on Private-PGM, DP-SGD (Opacus, optional)."""

from synthguard.dp.synthesizers._base import DPSynthesizer
from synthguard.dp.synthesizers.aim import AIMSynthesizer
from synthguard.dp.synthesizers.dpsgd import DPSGDSynthesizer
from synthguard.dp.synthesizers.fieldgroups import FieldGroupsSynthesizer
from synthguard.dp.synthesizers.mst import MSTSynthesizer
from synthguard.dp.synthesizers.result import DPSyntheticData
from synthguard.dp.synthesizers.stratified import StratifiedSynthesizer

__all__ = [
    "AIMSynthesizer",
    "DPSGDSynthesizer",
    "DPSynthesizer",
    "DPSyntheticData",
    "FieldGroupsSynthesizer",
    "MSTSynthesizer",
    "StratifiedSynthesizer",
]
