"""Render an evaluation: the self-contained HTML risk–utility report.

* :func:`build_report` / :func:`write_report`: one self-contained HTML file of an
  :class:`~synthguard.evaluation.Evaluation` that never prints a confidential value
  (:mod:`synthguard.report.safety`).

The report only renders. What it renders is measured in :mod:`synthguard.evaluation`
(:func:`~synthguard.evaluation.evaluate`, the metrics and the thresholds); their names are
importable here too, as before. Plans and the demo live in :mod:`synthguard.pipeline`.
"""

from __future__ import annotations

from synthguard.evaluation import Evaluation, ReleaseEvaluation, evaluate
from synthguard.evaluation.metrics import METRICS, Metric, register_metric
from synthguard.evaluation.thresholds import Threshold, ThresholdCheck
from synthguard.report.html import build_report, write_report

__all__ = [
    "METRICS",
    "Evaluation",
    "Metric",
    "ReleaseEvaluation",
    "Threshold",
    "ThresholdCheck",
    "build_report",
    "evaluate",
    "register_metric",
    "write_report",
]
