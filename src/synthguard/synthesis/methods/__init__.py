"""Per-variable synthesis methods, one per module; importing this package registers them."""

from synthguard.synthesis.methods.base import SynthesisMethod, check_weights

__all__ = ["SynthesisMethod", "check_weights"]
