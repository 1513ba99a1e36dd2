"""Evaluate releases side by side and write the HTML risk–utility report.

* :func:`evaluate` → :class:`Evaluation`: utility and disclosure risk of several releases
  against one confidential data set, a comparison table and pass/fail per release;
* :func:`build_report` / :func:`write_report`: one self-contained HTML file that never
  prints a confidential value (:mod:`synthguard.report.safety`);
* :func:`load_plan` / :func:`run_plan`: the YAML plan behind ``synthguard run``;
  :func:`init_plan` writes a commented example plan for a data file;
* :func:`build_demo_report`: the report step of ``synthguard demo``.
"""

from __future__ import annotations

from synthguard.report.demo import build_demo_report
from synthguard.report.evaluate import Evaluation, ReleaseEvaluation, evaluate
from synthguard.report.html import build_report, write_report
from synthguard.report.metrics import METRICS, Metric
from synthguard.report.pipeline import PipelineResult, run_plan
from synthguard.report.plan import Plan, ReleaseSpec, load_plan, parse_plan
from synthguard.report.scaffold import init_plan
from synthguard.report.thresholds import Threshold, ThresholdCheck

__all__ = [
    "METRICS",
    "Evaluation",
    "Metric",
    "PipelineResult",
    "Plan",
    "ReleaseEvaluation",
    "ReleaseSpec",
    "Threshold",
    "ThresholdCheck",
    "build_demo_report",
    "build_report",
    "evaluate",
    "init_plan",
    "load_plan",
    "parse_plan",
    "run_plan",
    "write_report",
]
