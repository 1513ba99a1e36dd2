"""Evaluate releases side by side and write the HTML risk–utility report.

* :func:`evaluate` → :class:`Evaluation`: utility and disclosure risk of several releases
  against one confidential data set, a comparison table and pass/fail per release;
* :func:`build_report` / :func:`write_report`: one self-contained HTML file that never
  prints a confidential value (:mod:`synthguard.report.safety`).

Plans (``load_plan``, ``run_plan``, ``init_plan``) and the demo moved to
:mod:`synthguard.pipeline`; their old names here still work for one release, with a
``FutureWarning``.
"""

from __future__ import annotations

import importlib
import warnings
from typing import Any

from synthguard.report.evaluate import Evaluation, ReleaseEvaluation, evaluate
from synthguard.report.html import build_report, write_report
from synthguard.report.metrics import METRICS, Metric, register_metric
from synthguard.report.thresholds import Threshold, ThresholdCheck

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

# names that moved to synthguard.pipeline (kept here one release, with a FutureWarning)
_MOVED = {
    "PipelineResult", "Plan", "ReleaseSpec", "build_demo_report", "init_plan", "load_plan",
    "parse_plan", "run_plan",
}


def __getattr__(name: str) -> Any:
    if name in _MOVED:
        warnings.warn(
            f"synthguard.report.{name} moved to synthguard.pipeline.{name}; import it from "
            "there (the old name goes in the next release)",
            FutureWarning,
            stacklevel=2,
        )
        return getattr(importlib.import_module("synthguard.pipeline"), name)
    raise AttributeError(f"module 'synthguard.report' has no attribute '{name}'")
