"""Per-variable synthesis methods, one per module; importing this package registers them.

Built-in methods: ``sample``, ``norm``, ``normrank``, ``logreg``, ``polyreg``, ``cart``.
"""

from synthguard.synthesis.methods.base import SynthesisMethod, check_weights
from synthguard.synthesis.methods.norm import NormMethod
from synthguard.synthesis.methods.normrank import NormRankMethod
from synthguard.synthesis.methods.sample import SampleMethod

__all__ = [
    "NormMethod",
    "NormRankMethod",
    "SampleMethod",
    "SynthesisMethod",
    "check_weights",
]
