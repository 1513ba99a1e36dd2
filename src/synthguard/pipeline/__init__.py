"""Orchestration: plans, release makers, ``run``, ``init`` and the demo.

The one room that imports every maker (synthesis, bayes, sdc, dp) and the evaluation and
report, statically (DESIGN.md: the pipeline room):

* :func:`load_plan` / :func:`parse_plan` → :class:`Plan`: the YAML plan behind
  ``synthguard run``, validated against the makers' signatures;
* :func:`run_plan` → :class:`PipelineResult`: data in, releases made and measured, one
  report out;
* :func:`init_plan`: a commented plan for a data file (``synthguard init``);
* :func:`build_demo_report`: the report step of ``synthguard demo``;
* :func:`register_maker`: a new release method for plans (a plug-in's maker);
* :func:`sweep` → :class:`SweepResult`: one release per configuration of a grid, measured
  against one holdout, the risk–utility frontier and the gate's choice;
* :func:`run_sweep` → :class:`SweepRun`: a plan's ``sweep:`` run end to end (``synthguard
  sweep``): the chosen release folder, the sweep table, the frontier figure and the report.
"""

from __future__ import annotations

from synthguard.pipeline.demo import build_demo_report
from synthguard.pipeline.makers import register_maker
from synthguard.pipeline.pipeline import PipelineResult, run_plan
from synthguard.pipeline.plan import Plan, ReleaseSpec, load_plan, parse_plan
from synthguard.pipeline.scaffold import init_plan
from synthguard.pipeline.sweep import SweepResult, sweep
from synthguard.pipeline.sweep_run import SweepRun, run_sweep

__all__ = [
    "PipelineResult",
    "Plan",
    "ReleaseSpec",
    "SweepResult",
    "SweepRun",
    "build_demo_report",
    "init_plan",
    "load_plan",
    "parse_plan",
    "register_maker",
    "run_plan",
    "run_sweep",
    "sweep",
]
