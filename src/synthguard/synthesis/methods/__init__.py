"""Per-variable synthesis methods, one per module; importing this package registers them.

Built-in methods: ``sample``, ``norm``, ``normrank``, ``logreg``, ``polyreg``, ``cart``,
``passive`` and ``nested`` (which read their predictors by name, :mod:`.columns`).
"""

from synthguard.synthesis.methods.base import SynthesisMethod, check_weights
from synthguard.synthesis.methods.cart import CartMethod
from synthguard.synthesis.methods.columns import ColumnsMethod
from synthguard.synthesis.methods.logreg import LogRegMethod
from synthguard.synthesis.methods.nested import NestedMethod
from synthguard.synthesis.methods.norm import NormMethod
from synthguard.synthesis.methods.normrank import NormRankMethod
from synthguard.synthesis.methods.passive import PassiveMethod
from synthguard.synthesis.methods.polyreg import PolyRegMethod
from synthguard.synthesis.methods.sample import SampleMethod

__all__ = [
    "CartMethod",
    "ColumnsMethod",
    "LogRegMethod",
    "NestedMethod",
    "NormMethod",
    "NormRankMethod",
    "PassiveMethod",
    "PolyRegMethod",
    "SampleMethod",
    "SynthesisMethod",
    "check_weights",
]
