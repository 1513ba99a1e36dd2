"""Measure several releases against the confidential data, side by side.

The evaluation lives in :mod:`synthguard.report.evaluation` (options, kinds, one release's
measures, record-level risk, results, the :func:`evaluate` call); this module keeps its
public names importable from here.
"""

from __future__ import annotations

from synthguard.report.evaluation.results import (  # noqa: F401 - KINDS, Progress, Verdict: importable here
    KINDS,
    Evaluation,
    Progress,
    ReleaseEvaluation,
    Verdict,
)
from synthguard.report.evaluation.run import evaluate

__all__ = ["Evaluation", "ReleaseEvaluation", "evaluate"]
