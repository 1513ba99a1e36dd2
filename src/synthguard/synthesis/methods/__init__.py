"""Per-variable synthesis methods, one per module; importing this package registers them.

Built-in methods: ``sample``, ``norm``, ``normrank``, ``logreg``, ``polyreg``, ``cart``,
``passive`` and ``nested`` (which read their predictors by name, :mod:`.columns`), ``pmm``,
``polr``, ``lognorm``, ``sqrtnorm``, ``cubertnorm``, ``rf``, ``bag``, ``catall``, ``ipf``,
``ctree``, and ``mean`` (mean imputation, a teaching baseline).
"""

from synthguard.synthesis.methods.base import SynthesisMethod, check_weights
from synthguard.synthesis.methods.cart import CartMethod
from synthguard.synthesis.methods.columns import ColumnsMethod
from synthguard.synthesis.methods.ctree import CtreeMethod
from synthguard.synthesis.methods.forest import BagMethod, RandomForestMethod, RangerMethod
from synthguard.synthesis.methods.loglinear import CatAllMethod, IPFMethod
from synthguard.synthesis.methods.logreg import LogRegMethod
from synthguard.synthesis.methods.mean import MeanMethod
from synthguard.synthesis.methods.nested import NestedMethod
from synthguard.synthesis.methods.norm import NormMethod
from synthguard.synthesis.methods.normrank import NormRankMethod
from synthguard.synthesis.methods.passive import PassiveMethod
from synthguard.synthesis.methods.pmm import PMMMethod
from synthguard.synthesis.methods.polr import PolrMethod
from synthguard.synthesis.methods.polyreg import PolyRegMethod
from synthguard.synthesis.methods.sample import SampleMethod
from synthguard.synthesis.methods.satcat import SatCatMethod
from synthguard.synthesis.methods.transformed import (
    CubeRootNormMethod,
    LogNormMethod,
    SqrtNormMethod,
)

__all__ = [
    "BagMethod",
    "CartMethod",
    "CatAllMethod",
    "ColumnsMethod",
    "CtreeMethod",
    "CubeRootNormMethod",
    "IPFMethod",
    "LogNormMethod",
    "LogRegMethod",
    "MeanMethod",
    "NestedMethod",
    "NormMethod",
    "NormRankMethod",
    "PMMMethod",
    "PassiveMethod",
    "PolrMethod",
    "PolyRegMethod",
    "RandomForestMethod",
    "RangerMethod",
    "SampleMethod",
    "SatCatMethod",
    "SqrtNormMethod",
    "SynthesisMethod",
    "check_weights",
]
