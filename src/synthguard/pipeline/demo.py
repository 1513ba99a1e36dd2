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

:data:`DEMO_STORY` tells a steward what each release is and which verdict the demo expects
of it, and why: the failures are the point (they show what the gate catches).
``synthguard demo`` prints it before the releases are made, checks each verdict against it
and exits 0 only when every verdict is the expected one.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import os
import textwrap
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from synthguard.pipeline.pipeline import PipelineResult, run_plan
from synthguard.pipeline.plan import Plan

__all__ = ["DEMO_STORY", "DemoRelease", "build_demo_report", "demo_plan", "demo_report_step",
           "unexpected_verdicts"]

_KEYS = ["UrbanRural", "Race", "KidsCount"]
# public bins (not read from the data): the DP release needs a finite public domain
_INCOME_BINS = [-1e6, 0, 10_000, 20_000, 30_000, 40_000, 60_000, 80_000, 100_000, 150_000,
                200_000, 300_000, 1e7]
_EXPENDITURE_BINS = [0, 2_000, 4_000, 6_000, 8_000, 10_000, 15_000, 20_000, 30_000, 50_000, 1e7]


@dataclasses.dataclass(frozen=True)
class DemoRelease:
    """One release of the demo: what it is, whether the demo expects it to pass the board's
    thresholds, and why (what a steward learns from its verdict)."""

    what: str
    passes: bool
    why: str


DEMO_STORY: dict[str, DemoRelease] = {
    "synthetic": DemoRelease(
        "Partial synthesis (CART) of Income and Expenditure; UrbanRural, Race and KidsCount "
        "kept as they are.", False,
        "the kept keys plus a synthetic income close to the true one still single people "
        "out (identification risk)."),
    "topcoded": DemoRelease(
        "The agency's usual practice: the real records, with incomes above the 94th "
        "percentile top-coded.", False,
        "every other value is published as it is, and the gate counts the copied records "
        "and the people they identify."),
    "risk_weighted": DemoRelease(
        "Partial synthesis that puts the riskiest records' incomes further from the truth "
        "(Hu, Savitsky & Williams' pairwise risk weights).", False,
        "it lowers the identification risk a little, not below the limit; a method's promise "
        "has to be measured."),
    "dp": DemoRelease(
        "Differentially private full synthesis (MST, epsilon = 1) over public bins.", False,
        "the privacy guarantee holds, but the noise makes the release too unlike the data to "
        "be useful (pMSE ratio): the gate catches useless releases too."),
    "private_full": DemoRelease(
        "Full synthesis with synthguard's private defaults (no replicated uniques, no "
        "extreme values).", True,
        "no released row stands for a person, and the release stays close to the data."),
}


def unexpected_verdicts(evaluation: Any) -> list[str]:
    """Names of the releases of ``evaluation`` whose verdict is not the one
    :data:`DEMO_STORY` expects (a release the story does not know counts as unexpected)."""
    out = []
    for r in evaluation:
        story = DEMO_STORY.get(r.name)
        if story is None or bool(r.passed) != story.passes:
            out.append(r.name)
    return out


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


def _thresholds_text(plan: dict[str, Any]) -> str:
    t = plan["evaluation"]["thresholds"]
    return (f"identification risk <= {t['max_identification_risk']:g}, pMSE ratio <= "
            f"{t['pmse_ratio']:g}, exact copies <= {t['exact_copies']:g}, and synthguard's "
            "default checks")


def demo_report_step(ctx: Any) -> None:
    """The report step of ``synthguard demo`` (appended to ``synthguard.cli.demo.STEPS``).

    ``ctx`` is the demo's context: it gives ``out``, ``seed``, ``quiet``, ``files``,
    ``unexpected`` and ``echo``. Tells the story of each release (:data:`DEMO_STORY`),
    writes the report under ``<out>/report/``, prints each verdict, says whether each is
    the expected one (the names of those that are not go to ``ctx.unexpected``), and where
    to look next.
    """
    from synthguard.errors import SynthguardWarning

    out = Path(ctx.out) / "report"
    plan = demo_plan(out, seed=int(ctx.seed))
    names = list(plan["releases"])
    width = max(len(n) for n in names)
    ctx.echo("")
    ctx.echo(f"== Part 3 of 3: {len(names)} release options for the CE sample, judged by a "
             "board's thresholds")
    ctx.echo(f"   ({_thresholds_text(plan)})")
    indent = " " * (width + 5)
    for name in names:
        story = DEMO_STORY[name]
        verdict = "PASS" if story.passes else "FAIL"
        ctx.echo(textwrap.fill(story.what, 96, initial_indent=f"   {name:<{width}}  ",
                               subsequent_indent=indent))
        ctx.echo(textwrap.fill(f"Meant to {verdict}: {story.why}", 96,
                               initial_indent=indent, subsequent_indent=indent + "  "))
    ctx.echo("Making, measuring and reporting them (about a minute) ...")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", SynthguardWarning)
        result = build_demo_report(out, seed=int(ctx.seed))
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
    unexpected = unexpected_verdicts(ev)
    ctx.unexpected.extend(unexpected)
    stopped = [r.name for r in ev if not r.passed]
    ctx.echo("")
    if not unexpected:
        ctx.echo(f"As designed: the gate stopped {len(stopped)} release(s) "
                 f"({', '.join(stopped) or 'none'}) and passed {', '.join(passing) or 'none'}.")
        ctx.echo("The failures are the point: they show what the gate catches before anything "
                 "is published.")
    for name in unexpected:
        r = ev[name]
        told = DEMO_STORY.get(name)
        expected = "no verdict" if told is None else ("PASS" if told.passes else "FAIL")
        ctx.echo(f"NOT AS DESIGNED: release '{name}' {'passed' if r.passed else 'failed'}; "
                 f"the demo expects {expected}. Its verdict line above says why.")
    report = result.report_path.resolve()
    ctx.echo("")
    ctx.echo("What to look at next:")
    ctx.echo(f"  1. The report (open it in a browser): {report}")
    ctx.echo("     Its Summary says, for each release, which threshold it fails, by how much, "
             "and what to try.")
    ctx.echo(f"  2. The plan that made these releases: {report.parent / 'plan.yaml'}")
    ctx.echo(f"     Run it yourself: synthguard run {report.parent / 'plan.yaml'} --out "
             "my_demo_run")
    ctx.echo("     (run exits 1 when a release fails a threshold, as four do here by design)")
    ctx.echo("  3. Your own data: synthguard init yourdata.csv --out plan.yaml, edit the "
             "guesses, then synthguard run plan.yaml")
