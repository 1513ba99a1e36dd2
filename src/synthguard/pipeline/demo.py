"""The demo's last step: several releases of the bundled CE sample, measured, in one report.

:func:`build_demo_report` runs a plan (the same one :data:`DEMO_PLAN` shows as YAML) on
the bundled Consumer Expenditure sample: a partially synthetic release (CART), the CE
practice of top-coding income, a risk-weighted release (Hu, Savitsky & Williams'
pairwise weights) and a differentially private release (MST on Private-PGM over public
bins, McKenna, Miklau & Sheldon 2021), each made only when its module is installed, and
last a fully synthetic release with the synthesizer's private defaults (no replicated
uniques, no extreme values; :mod:`synthguard.synthesis.safeguards`).

The thresholds are the board's: identification risk at most 0.5 where it applies (releases
whose rows align with the data), pMSE ratio at most 10 and no record identical to a
confidential one. The partial releases fail on identification risk (the kept keys plus an
income near the true one single people out), top coding on every count, DP on utility; the
private full synthesis passes, with its utility shown next to theirs.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import os
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from synthguard.pipeline.pipeline import PipelineResult, run_plan
from synthguard.pipeline.plan import Plan

__all__ = ["build_demo_report", "demo_plan", "demo_report_step"]

_KEYS = ["UrbanRural", "Race", "KidsCount"]
# public bins (not read from the data): the DP release needs a finite public domain
_INCOME_BINS = [-1e6, 0, 10_000, 20_000, 30_000, 40_000, 60_000, 80_000, 100_000, 150_000,
                200_000, 300_000, 1e7]
_EXPENDITURE_BINS = [0, 2_000, 4_000, 6_000, 8_000, 10_000, 15_000, 20_000, 30_000, 50_000, 1e7]


def _available(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


def demo_plan(out_dir: str | os.PathLike[str], *, m: int = 5, seed: int = 20240101
              ) -> dict[str, Any]:
    """The demo's plan as a Python mapping (``Plan.from_dict`` validates it)."""
    releases: dict[str, Any] = {
        "synthetic": {"method": "synthesis", "m": m, "keep": _KEYS,
                      "methods": {"Income": "cart", "Expenditure": "cart"}},
        "topcoded": {"method": "sdc", "steps": [{"topcode": {"column": "Income",
                                                             "percentile": 94}}]},
    }
    plan: dict[str, Any] = {
        # KidsCount as a category: it is a key, and a slope on it would extrapolate on the
        # log scale of the risk-weighted model (as examples/risk_weighted_ce.py explains)
        "data": {"dataset": "ce", "schema": {"UrbanRural": "categorical", "Race": "categorical",
                                             "KidsCount": "categorical"}},
        "seed": seed,
        "output": str(out_dir),
        "holdout": 0.1,
        "releases": releases,
        "evaluation": {
            "keys": _KEYS, "targets": ["Income"], "radius": 0.2,
            "formulas": ["Expenditure ~ Income + KidsCount"],
            "thresholds": {"max_identification_risk": 0.5, "pmse_ratio": 10,
                           "exact_copies": 0.0},
        },
        "report": {"title": "synthguard demo: release options for the CE sample"},
    }
    if _available("synthguard.bayes"):
        releases["risk_weighted"] = {
            "method": "risk_weighted", "model": "bayes_mixture", "kind": "pairwise", "m": m,
            "transform": "signed_log", "predictors": _KEYS,
        }
    if _available("synthguard.dp"):
        plan["privacy"] = {"epsilon": 1.0, "delta": 1e-6}
        releases["dp"] = {
            "method": "dp", "synthesizer": "mst", "epsilon": 1.0, "delta": 1e-6, "m": m,
            "categories": {"UrbanRural": [1, 2], "Race": [1, 2, 3, 4, 5, 6],
                           "KidsCount": list(range(8))},
            "bins": {"Income": _INCOME_BINS, "Expenditure": _EXPENDITURE_BINS},
        }
    # last: full synthesis with the private defaults, the release that passes
    releases["private_full"] = {"method": "synthesis", "m": m}
    return plan


def build_demo_report(
    out_dir: str | os.PathLike[str],
    *,
    m: int = 5,
    seed: int = 20240101,
    progress: Callable[[str, int, int], None] | None = None,
) -> PipelineResult:
    """Make the demo's releases of the CE sample, evaluate them and write the report.

    Writes to ``out_dir`` (releases, evaluation table, ledger, plan, ``report.html``) and
    returns the :class:`~synthguard.pipeline.pipeline.PipelineResult`; its ``report_path``
    is the report. The demo's privacy ledger is started afresh on each run: the data are
    public and the budget is illustrative (a real ledger is kept across runs).
    """
    out = Path(out_dir)
    ledger = out / "ledger.json"
    if ledger.exists():
        ledger.unlink()
    # the plan's own 'output:' must stay inside its folder; the demo's folder is the caller's
    # choice, like `synthguard run --out`
    spec = {k: v for k, v in demo_plan(out.resolve(), m=m, seed=seed).items() if k != "output"}
    plan = dataclasses.replace(Plan.from_dict(spec, source="demo plan"), output=out.resolve())
    return run_plan(plan, progress=progress, force=True)  # the demo replaces its last run


def demo_report_step(ctx: Any) -> None:
    """The report step of ``synthguard demo`` (appended to ``synthguard.cli.demo.STEPS``).

    ``ctx`` is the demo's context: it gives ``out``, ``seed``, ``quiet``, ``files`` and
    ``echo``. Writes the report under ``<out>/report/`` and says where it is.
    """
    from synthguard.errors import SynthguardWarning

    ctx.echo("")
    ctx.echo("Release options for the CE sample: making, measuring and reporting them ...")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", SynthguardWarning)
        result = build_demo_report(Path(ctx.out) / "report", seed=int(ctx.seed))
    for w in caught:
        if not issubclass(w.category, SynthguardWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    ctx.files.append(result.report_path)
    ev = result.evaluation
    table = ev.to_frame()
    shown = [c for c in ("pmse_ratio", "ci_overlap", "kway_tv", "exact_copies",
                         "max_identification_risk")
             if c in table and table[c].notna().any()]
    ctx.echo(table[["kind", "m", *shown]].to_string(float_format=lambda v: f"{v:.3g}"))
    for r in ev:
        ctx.echo("  " + str(r.verdict))
    passing = [r.name for r in ev if r.passed]
    ctx.echo("Releases that meet every threshold: " + (", ".join(passing) if passing else "none"))
    n_warn = sum(issubclass(w.category, SynthguardWarning) for w in caught)
    if n_warn:
        ctx.echo(f"  ({n_warn} disclosure/privacy warning(s) while making the releases; "
                 f"see the report's notes)")
    ctx.echo(f"Report (open it in a browser): {result.report_path.resolve()}")
