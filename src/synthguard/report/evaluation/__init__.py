"""Evaluation: measure several releases against the confidential data, side by side.

:func:`evaluate` is the one call behind the report and ``synthguard run``: for each
release it calls :func:`synthguard.utility.evaluate_utility` and
:func:`synthguard.risk.evaluate_risk` once, reads the headline numbers of the comparison
table from their results (:mod:`synthguard.report.metrics`), keeps the record-level
identification risks for the violin and whack-a-mole figures, and checks the release
against the board's thresholds. The report's other modules render the result.

- :mod:`~synthguard.report.evaluation.options`: the arguments, checked into a ``Setting``;
- :mod:`~synthguard.report.evaluation.kinds`: a release's kind and row alignment;
- :mod:`~synthguard.report.evaluation.release`: the measures of one release;
- :mod:`~synthguard.report.evaluation.record_risk`: record-level identification risk;
- :mod:`~synthguard.report.evaluation.results`: ``ReleaseEvaluation`` and ``Evaluation``;
- :mod:`~synthguard.report.evaluation.run`: :func:`evaluate`.
"""

from synthguard.report.evaluation.results import (  # noqa: F401 - KINDS, Progress, Verdict: importable here
    KINDS,
    Evaluation,
    Progress,
    ReleaseEvaluation,
    Verdict,
)
from synthguard.report.evaluation.run import evaluate

__all__ = ["Evaluation", "ReleaseEvaluation", "evaluate"]
