"""synthguard: from confidential microdata to a safe public release.

Synthesize (sequential and Bayesian synthesizers), protect (traditional SDC and
differential privacy), evaluate (utility and disclosure risk) and report.

The top-level names are the ones a user starts with; everything else lives in
its room: :mod:`synthguard.data`, :mod:`synthguard.synthesis`, :mod:`synthguard.bayes`,
:mod:`synthguard.sdc`, :mod:`synthguard.dp`, :mod:`synthguard.utility`,
:mod:`synthguard.risk`, :mod:`synthguard.evaluation`, :mod:`synthguard.report`, :mod:`synthguard.pipeline`, and the
optional Dask backend :mod:`synthguard.scale` (``pip install 'synthguard[dask]'``).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from synthguard.data.datasets import load_dataset

__version__ = "0.1.0"
"""The installed synthguard version (PEP 440), recorded in every release manifest."""

__all__ = ["Synthesizer", "__version__", "evaluate", "load_dataset", "synthesize"]

# Imported on first use so `import synthguard` stays fast: it loads no pandas, NumPy or
# scikit-learn (tests/test_lazy_imports.py); the command line starts from here.
_LAZY = {
    "load_dataset": "synthguard.data.datasets",
    "Synthesizer": "synthguard.synthesis",
    "synthesize": "synthguard.synthesis",
    "evaluate": "synthguard.evaluation",
}


# The rooms (subpackages), imported on first attribute access: `synthguard.risk.disclosure`.
_ROOMS = (
    "bayes", "data", "dp", "errors", "evaluation", "pipeline", "report", "risk", "scale", "sdc", "synthesis",
    "utility",
)


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    if name in _ROOMS:
        return importlib.import_module(f"synthguard.{name}")
    raise AttributeError(f"module 'synthguard' has no attribute '{name}'")


def __dir__() -> list[str]:
    """Only the public names: the top-level API and the rooms (no imports, no helpers)."""
    return sorted(set(__all__) | set(_ROOMS))
