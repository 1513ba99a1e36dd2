"""Evaluation: measure several releases against the confidential data, side by side.

The room sits below :mod:`synthguard.report` (which only renders its result) and above the
measuring rooms (:mod:`synthguard.utility`, :mod:`synthguard.risk`).

:func:`evaluate` is the one call behind the report and ``synthguard run``: for each
release it calls :func:`synthguard.utility.evaluate_utility` and
:func:`synthguard.risk.evaluate_risk` once, reads the headline numbers of the comparison
table from their results (:mod:`synthguard.evaluation.metrics`), keeps the record-level
identification risks for the violin and whack-a-mole figures, and checks the release
against the board's thresholds. The report's other modules render the result.

- :mod:`~synthguard.evaluation.options`: the arguments, checked into a ``Setting``;
- :mod:`~synthguard.evaluation.kinds`: a release's kind and row alignment;
- :mod:`~synthguard.evaluation.release`: the measures of one release;
- :mod:`~synthguard.evaluation.record_risk`: record-level identification risk;
- :mod:`~synthguard.evaluation.results`: ``ReleaseEvaluation`` and ``Evaluation``;
- :mod:`~synthguard.evaluation.run`: :func:`evaluate`.
"""

from synthguard.evaluation.metrics import METRICS, Metric, register_metric
from synthguard.evaluation.results import (  # noqa: F401 - KINDS, Progress, Verdict: importable here
    KINDS,
    Evaluation,
    Progress,
    ReleaseEvaluation,
    Verdict,
)
from synthguard.evaluation.run import evaluate
from synthguard.evaluation.thresholds import Threshold, ThresholdCheck

__all__ = [
    "METRICS",
    "Evaluation",
    "Metric",
    "ReleaseEvaluation",
    "Threshold",
    "ThresholdCheck",
    "evaluate",
    "register_metric",
]
