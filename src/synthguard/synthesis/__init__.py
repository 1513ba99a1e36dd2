"""Sequential synthesis: the :class:`Synthesizer`, per-variable methods and the release.

>>> from synthguard.synthesis import Synthesizer, synthesize, available_methods
"""

from synthguard.data.constraints import Constraint, check_constraints, parse_constraints
from synthguard.synthesis.diagnostics import SynthesisDiagnostics, replicated_share
from synthguard.synthesis.enforce import ConstraintReport
from synthguard.synthesis.methods.base import SynthesisMethod, check_weights
from synthguard.synthesis.persistence import load_synthesizer, save_synthesizer
from synthguard.synthesis.post_sdc import SDCApplied, apply_sdc
from synthguard.synthesis.registry import (
    available_methods,
    get_method,
    make_method,
    register_method,
)
from synthguard.synthesis.result import SyntheticData
from synthguard.synthesis.synthesizer import Synthesizer, synthesize

__all__ = [
    "Constraint",
    "ConstraintReport",
    "SDCApplied",
    "SynthesisDiagnostics",
    "SynthesisMethod",
    "Synthesizer",
    "SyntheticData",
    "apply_sdc",
    "available_methods",
    "check_constraints",
    "check_weights",
    "get_method",
    "load_synthesizer",
    "make_method",
    "parse_constraints",
    "register_method",
    "replicated_share",
    "save_synthesizer",
    "synthesize",
]
