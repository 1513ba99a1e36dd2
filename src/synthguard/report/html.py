"""Build the self-contained HTML risk–utility report from an :class:`Evaluation`.

One file, no network: CSS is inline, figures are base64 PNG ``<img>`` elements, there is
no script. Every number and label taken from the confidential data passes through
:mod:`synthguard.report.safety` (rounded statistics, ranges for extremes, suppressed
small cells); figures follow the rules of :mod:`synthguard.report.figures`.
"""

from __future__ import annotations

import datetime as _dt
import importlib.metadata
import os
import platform
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
import numpy as np
import pandas as pd

from synthguard.evaluation import Evaluation
from synthguard.evaluation.metrics import METRICS
from synthguard.report import figures as F
from synthguard.report.attacks_section import attacks_table, safeguards_table
from synthguard.report.constraints_section import constraint_table
from synthguard.report.dp_section import DPReleaseInfo, accuracy_context, ledgers_context
from synthguard.report.frontier_section import frontier_context
from synthguard.report.household_section import household_context
from synthguard.report.narrative import glossary, release_story, verdict_line
from synthguard.report.safety import (
    Redactor,
    format_number,
    record_range,
    round_sig,
)
from synthguard.report.sections import (
    attribute_table,
    correlation_differences,
    detail_table,
    disclosure_table,
    importance_of,
    regression_table,
    univariate_table,
)
from synthguard.report.survey_sections import survey_context
from synthguard.report.utility_tables_section import add_utility_tables_figure
from synthguard.risk.profile import risk_profile

__all__ = ["Figure", "build_report", "write_report"]

_VERSIONED = ("numpy", "pandas", "scipy", "scikit-learn", "statsmodels", "matplotlib", "opendp")


@dataclass(frozen=True)
class Figure:
    """One embedded figure: ``png`` is base64 text, ``caption`` says what it shows."""

    id: str
    title: str
    png: str
    caption: str = ""


def _versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for pkg in ("synthguard", *_VERSIONED):
        try:
            out[pkg] = importlib.metadata.version(pkg)
        except importlib.metadata.PackageNotFoundError:
            out[pkg] = "not installed"
    return out


def _env() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("synthguard.report", "templates"),
        autoescape=jinja2.select_autoescape(["html"]),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def _fig(figs: list[Figure], fid: str, title: str, fig: Any, caption: str = "") -> None:
    if fig is None:
        return
    figs.append(Figure(fid, title, F.to_png(fig), caption))


#: Summary table -> the metric sections it shows (the attacks' risks join the risk table).
_TABLE_SECTIONS = {"utility": ("utility",), "risk": ("risk", "attacks")}


def _summary_tables(ev: Evaluation, count: Callable[[int], str]) -> list[dict[str, Any]]:
    """The summary as two tables that fit a page: utility measures and risk measures.

    Each table lists only the measures computed for some release, and repeats the release's
    name and verdict so that each can be read (and printed) alone. A measure a new section
    adds to :data:`METRICS` joins the table of its ``section``.
    """
    table = ev.to_frame()
    tables = []
    for section, title in (("utility", "Utility"), ("risk", "Disclosure risk")):
        shown = [m for m in METRICS if METRICS[m].section in _TABLE_SECTIONS[section]
                 and METRICS[m].summary and m in table.columns and table[m].notna().any()]
        rows = []
        for name, r in ev.releases.items():
            cells = []
            for m in shown:
                v = r.metrics.get(m)
                failed = any(c.passed is False and c.threshold.metric == m for c in r.checks)
                cells.append({"text": format_number(v, 3), "failed": failed})
            word, _ = verdict_line(r)
            rows.append({"name": name, "kind": r.kind, "m": r.m, "n_rows": count(r.n_rows),
                         "cells": cells, "verdict": word})
        tables.append({"id": f"summary-{section}", "title": title, "section": section,
                       "header": [METRICS[m].label for m in shown], "metrics": shown,
                       "rows": rows})
    return tables


def _baseline_share(ev: Evaluation) -> float | None:
    """The closer-to-data share expected with nothing memorized: n_train / (n_train + n_holdout)."""
    for r in ev.releases.values():
        d = getattr(r.risk, "distance", None) if r.risk is not None else None
        b = getattr(d, "baseline_share", None)
        if isinstance(b, int | float) and np.isfinite(b):
            return float(b)
    if ev.n_holdout:
        return ev.n_records / (ev.n_records + ev.n_holdout)
    return None


def _exact_count(n: int) -> str:
    return f"{int(n):,}"


def _rounded_count(n: int) -> str:
    """A number of confidential records in a DP report: 2 significant figures, "about"."""
    if not n:
        return "0"
    return f"about {round_sig(float(n), 2):,.0f}"


def _top_risky(ev: Evaluation, redactor: Redactor, top: int = 10) -> dict[str, Any] | None:
    """Hu, Savitsky & Williams' Table 2: the riskiest records, their target value as a range
    never narrower than a floor, or pooled as "bottom 1%" / "top 1%" (:func:`record_range`)."""
    if ev.data_risk is None:
        return None
    aligned = {n: r.record_risk for n, r in ev.releases.items() if r.record_risk is not None}
    order = np.argsort(-ev.data_risk, kind="stable")[:top]
    target = ev.targets[0]
    tv = pd.to_numeric(ev.conf[target], errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    numeric = ev.schema[target].is_numeric if target in ev.schema else True
    rows = []
    for rank, i in enumerate(order, start=1):
        rows.append({
            "rank": rank,
            "range": (record_range(float(tv[i]), tv, min_cell=redactor.min_cell) if numeric
                      else "(category withheld)"),
            "risks": [format_number(ev.data_risk[i], 2)]
            + [format_number(float(r[i]), 2) for r in aligned.values()],
        })
    return {"target": redactor.label(target), "columns": ["data", *aligned], "rows": rows}


def _risk_distribution(ev: Evaluation, count: Callable[[int], str] = _exact_count
                       ) -> list[dict[str, Any]]:
    risks: dict[str, np.ndarray] = {}
    if ev.data_risk is not None:
        risks["data"] = ev.data_risk
    risks.update({n: r.record_risk for n, r in ev.releases.items() if r.record_risk is not None})
    out = []
    for name, r in risks.items():
        p = risk_profile(r, 0.5)  # as bayes.compare_releases (risk/profile.py)
        out.append({
            "name": name,
            "mean": format_number(p.mean, 3),
            "q1": format_number(p.q25, 3), "median": format_number(p.median, 3),
            "q3": format_number(p.q75, 3), "iqr": format_number(p.iqr, 3),
            "max": format_number(p.max, 3),
            "above": count(p.n_above),
        })
    return out


def _safe_plan(text: str | None, redactor: Redactor) -> str | None:
    """The plan for print, with any line that names a small category withheld."""
    if text is None:
        return None
    out = []
    for line in text.splitlines():
        if redactor.label(line) != line:
            indent = line[: len(line) - len(line.lstrip())]
            line = f"{indent}# (line withheld: it names a category held by few records)"
        out.append(line)
    return "\n".join(out)


def build_report(
    evaluation: Evaluation,
    *,
    title: str = "synthguard risk–utility report",
    plan_text: str | None = None,
    ledger: Any = None,
    provenance: Mapping[str, Any] | None = None,
    min_cell: int = 10,
    max_variables: int = 20,
    progress: Callable[[str, int, int], None] | None = None,
    dp_releases: Iterable[str] | None = None,
    frontier: Any = None,
    dp_info: Mapping[str, DPReleaseInfo] | None = None,
    ledger_unread: Mapping[str, str] | None = None,
) -> str:
    """The report as one HTML string.

    Parameters
    ----------
    evaluation : the result of :func:`synthguard.evaluate`.
    title : page title.
    plan_text : the plan (YAML) to print under provenance.
    ledger : a ``PrivacyLedger`` (anything with ``to_frame()``) for the DP section, or a
        mapping name → ledger when the releases charged several: each is shown, then their
        total under sequential composition (:mod:`synthguard.report.dp_section`).
    provenance : extra key/value lines (data file, seed, stage timings).
    min_cell : category levels held by fewer confidential records are never named; histogram
        bins with fewer records are drawn empty.
    max_variables : per-variable figures are drawn for at most this many columns.
    progress : optional ``progress(stage, done, total)`` callback.
    dp_releases : names of the releases made with differential privacy (releases of kind
        ``"dp"`` count too). With any DP release, or a ``ledger``, the report is a *DP
        report*: its header says what the ledger covers (the releases) and what it does not
        (this report, which is computed from the confidential data without noise), and every
        number of confidential records it prints is rounded to 2 significant figures.
    ledger_unread : release name → why its privacy ledger could not be read (a moved folder
        without its ledger record, a damaged file): the ledger section says so, and never
        that no budget was spent.
    frontier : a sweep's result (:class:`synthguard.pipeline.SweepResult`): adds the section
        "Risk–utility frontier" (:mod:`synthguard.report.frontier_section`).
    dp_info : release name → :class:`~synthguard.report.dp_section.DPReleaseInfo`: the DP
        section shows each release's error before spending, after fitting and against the
        data by marginal order, and a DP start's sentence.
    """
    ev = evaluation
    frames = [ev.conf] + ([ev.holdout] if ev.holdout is not None else [])
    redactor = Redactor.from_data(frames, ev.schema, min_cell=min_cell)
    dp_names = {str(n) for n in (dp_releases or ())} | set(map(str, ledger_unread or ())) | {
        n for n, r in ev.releases.items() if r.kind == "dp"}
    dp_names |= {str(n) for n, i in (dp_info or {}).items() if i.method and not i.start}
    # a DP synthesizer whose domain was read from the data (domain_from_data='not-dp') made
    # a release that is NOT differentially private: it is never called DP (issue 31, N4)
    not_dp_names = {str(n) for n, i in (dp_info or {}).items() if not getattr(i, "dp", True)}
    dp_names -= not_dp_names
    is_dp = bool(dp_names or not_dp_names) or ledger is not None
    count = _rounded_count if is_dp else _exact_count
    exact_ns = [n for n in (ev.n_records, ev.n_holdout, ev.n_records + ev.n_holdout) if n]

    def scrub(text: Any) -> str:
        out = redactor.text(text)
        if is_dp:
            for n in sorted(exact_ns, reverse=True):
                out = re.sub(rf"(?<![\d.,]){n:,}(?![\d,]|\.\d)", count(n), out)
                out = re.sub(rf"(?<![\d.,]){n}(?![\d,]|\.\d)", count(n), out)
        return out

    names = list(ev.releases)
    colors = F.palette(names)
    impl = dict(ev.implicates)
    steps = 6
    done = 0

    def tick(stage: str) -> None:
        nonlocal done
        done += 1
        if progress is not None:
            progress(stage, done, steps)

    figs_util: list[Figure] = []
    utility_values = {n: dict(r.metrics) for n, r in ev.releases.items()}
    util_labels = {m: METRICS[m].label for m in ("pmse_ratio", "specks", "auc", "kway_tv",
                                                  "correlation_mae", "ci_overlap")}
    _fig(figs_util, "fig-discrimination", "Discrimination and overall fit",
         F.metric_bars(utility_values, util_labels, colors, reference={"auc": 0.5}),
         "pMSE ratio (≈1 is ideal), SPECKS, AUC (0.5 is ideal), 3-way marginal total variation, "
         "correlation MAE, mean CI overlap, one bar per release.")
    imp = {n: importance_of(r.utility, redactor) for n, r in ev.releases.items()}
    _fig(figs_util, "fig-importance", "Variables that drive discrimination",
         F.importance_bars(imp, colors),
         "Variable importance of the model that tells release from data; the top variables are "
         "the ones the release reproduces worst.")
    _fig(figs_util, "fig-correlation", "Correlation differences",
         F.correlation_difference(correlation_differences(ev)),
         "Release minus data correlation of each pair of numeric variables (lower triangle).")
    _fig(figs_util, "fig-cramers-v", "Association differences of categorical variables",
         F.correlation_difference(correlation_differences(ev, attr="cramers_v_difference")),
         "Release minus data Cramér's V of each pair of categorical variables (lower triangle).")
    add_utility_tables_figure(figs_util, ev, Figure, F.to_png)  # issue 14
    reg = regression_table(ev, redactor)
    _fig(figs_util, "fig-regression", "Regression coefficients across releases",
         F.regression_ci(reg, colors) if reg is not None else None,
         "Point estimates and 95% intervals of each release (combining rules over implicates). "
         "Solid line: confidential estimate; dashed: its 95% interval (Hu, Savitsky & Williams, "
         "Figure 10 style).")
    tick("utility figures")

    figs_var: list[Figure] = []
    columns = [c for c in ev.conf.columns][:max_variables]
    for c in columns:
        col = ev.schema[c] if c in ev.schema else None
        if col is not None and col.is_numeric:
            fig = F.numeric_overlay(c, ev.conf[c], impl, colors, is_count=col.kind.value == "count",
                                    min_cell=min_cell)
        else:
            fig = F.category_bars(c, ev.conf[c], impl, colors, redactor)
        _fig(figs_var, f"fig-var-{len(figs_var)}", c, fig)
    univariate = univariate_table(ev, redactor)
    tick("per-variable figures")

    figs_risk: list[Figure] = []
    risks: dict[str, np.ndarray] = {}
    if ev.data_risk is not None:
        risks["data"] = ev.data_risk
    risks.update({n: r.record_risk for n, r in ev.releases.items() if r.record_risk is not None})
    ir_limit = next((t.limit for t in ev.thresholds if t.metric == "max_identification_risk"), None)
    _fig(figs_risk, "fig-violin", "Record-level identification risk",
         F.risk_violins(risks, colors, threshold=ir_limit),
         f"Distribution of IR_i over the {count(ev.n_records)} confidential records (keys: "
         f"{', '.join(ev.keys) or 'none'}; radius {ev.radius:g}); bar: mean (Hu, Savitsky & "
         f"Williams, Figures 2 and 8 style).")
    aligned = [n for n in names if ev.releases[n].record_risk is not None]
    whack = []
    if len(aligned) >= 2:
        base = aligned[0]
        for other in aligned[1:4]:
            fig, n_up = F.whack_a_mole(ev.releases[base].record_risk,  # type: ignore[arg-type]
                                       ev.releases[other].record_risk,  # type: ignore[arg-type]
                                       base, other, threshold=ir_limit or 0.5)
            _fig(figs_risk, f"fig-whack-{other}", f"Whack-a-mole: {base} → {other}", fig,
                 f"Each record's risk under {base} (x) and {other} (y); {count(n_up)} records' risk "
                 f"rose by 0.25 or more (Hu, Savitsky & Williams, Figures 3 and 9 style).")
            whack.append((base, other, n_up))
    tick("risk figures")

    risk_labels = {m: METRICS[m].label for m in ("expected_match_risk", "true_match_rate",
                                                  "membership_auc", "exact_copies",
                                                  "closer_to_data")}
    _fig(figs_risk, "fig-risk-metrics", "Matching, membership and copies",
         F.metric_bars(utility_values, risk_labels, colors, reference={"membership_auc": 0.5}),
         "Expected match risk and true match rate (Reiter & Mitra 2009), membership-attack AUC "
         "(0.5 is guessing), share of exact copies of confidential records, share of released "
         "records closer to the training data than to the holdout (DCR).")
    dists = {}
    for n, r in ev.releases.items():
        d = getattr(r.risk, "distance", None) if r.risk is not None else None
        if d is not None and getattr(d, "dcr", None) is not None:
            dists[n] = (np.asarray(d.dcr), getattr(d, "holdout_dcr", None))
    _fig(figs_risk, "fig-dcr", "Distance to closest record",
         F.dcr_ecdf(dists, colors),
         ("ECDF of each released record's distance to its closest confidential record (solid) "
          "and of each holdout record's (dashed): a release whose records sit much closer to the "
          "data than fresh records do copies or memorizes them (the course's holdout baseline)."
          if ev.holdout is not None else
          "ECDF of each released record's distance to its closest confidential record. No "
          "holdout was given, so there is no curve of fresh records to compare with: give "
          "--holdout to see whether the release sits closer to the data than fresh records."))
    summary_tables = _summary_tables(ev, count)
    baseline = _baseline_share(ev)
    verdicts = []
    stories = []
    for n, r in ev.releases.items():
        word, text = verdict_line(r)
        verdicts.append({"name": n, "word": word, "text": text})
        stories.append(release_story(r, importance=imp.get(n), count=count, baseline=baseline,
                                     kind="dp" if n in dp_names else
                                     "not-dp" if n in not_dp_names else None))
    # notes and errors may quote a term naming a category level (a regression error's
    # C(country)[T.<level>]) or, in a DP report, the exact number of records: both withheld
    errors = [(n, part, scrub(msg)) for n, r in ev.releases.items()
              for part, msg in r.errors.items()]
    if ev.data_risk_error:
        errors.insert(0, ("data", "identification risk", scrub(ev.data_risk_error)))
    notes = [("data", scrub(msg)) for msg in ev.data_notes]
    notes += [(n, scrub(msg)) for n, r in ev.releases.items() for msg in r.notes]
    tick("tables")

    prov = {
        "generated": _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "confidential records": count(ev.n_records),
        "holdout records": count(ev.n_holdout),
        # a plan's evaluation draws from a stream spawned from the plan's seed (no seed of
        # its own to print): say which seed reproduces it
        "evaluation seed": str(ev.seed) if ev.seed is not None else (
            f"a stream spawned from the plan seed {(provenance or {})['plan seed']}"
            if "plan seed" in (provenance or {}) else "none (a numpy Generator was given)"),
        "evaluation time": f"{ev.seconds:.1f} s",
        "keys": ", ".join(ev.keys) or "none",
        "targets": ", ".join(ev.targets) or "none",
        "radius": f"{ev.radius:g}",
        "thresholds": "; ".join(t.describe() for t in ev.thresholds) or "none",
        "formulas": "; ".join(ev.formulas) or "none",
        "smallest printed cell": str(min_cell),
    }
    prov.update({scrub(k): scrub(v) for k, v in (provenance or {}).items()})
    tick("provenance")

    html = _env().get_template("report.html").render(
        title=title,
        summary_tables=summary_tables,
        verdicts=verdicts,
        stories=stories,
        baseline=None if baseline is None else format_number(baseline, 3),
        dp=bool(dp_names or not_dp_names) or (ledger is not None),
        dp_names=sorted(dp_names),
        not_dp_names=sorted(not_dp_names),
        all_passed=ev.passed,
        any_checks=bool(ev.thresholds),
        any_not_judged=any(r.not_judged for r in ev),
        errors=errors,
        notes=notes,
        utility_details=detail_table(ev, "utility", redactor),
        risk_details=detail_table(ev, "risk", redactor),
        attribute=attribute_table(ev, redactor),
        disclosure=disclosure_table(ev, redactor),
        attacks=attacks_table(ev, redactor),
        safeguards=safeguards_table(ev),
        constraints=constraint_table(getattr(ev, "constraints", None),
                                     count if is_dp else redactor.count, redactor.text),
        figs_util=figs_util,
        figs_var=figs_var,
        figs_risk=figs_risk,
        univariate=univariate,
        top_risky=_top_risky(ev, redactor),
        risk_distribution=_risk_distribution(ev, count),
        whack=whack,
        dp_ledgers=ledgers_context(ledger),
        ledger_unread=sorted((str(n), scrub(w)) for n, w in (ledger_unread or {}).items()),
        dp_accuracy=accuracy_context(ev, dict(dp_info or {})),
        provenance=prov,
        versions=_versions(),
        plan_text=_safe_plan(plan_text, redactor),
        glossary=glossary(),
        min_cell=min_cell,
        **survey_context(ev, redactor, colors, count),
        **household_context(ev, count if is_dp else redactor.count),
        **frontier_context(frontier, scrub, F.to_png),
    )
    tick("render")
    return html


def write_report(evaluation: Evaluation, path: str | os.PathLike[str], **kwargs: Any) -> Path:
    """Build the report (:func:`build_report`) and write it atomically to ``path``."""
    p = Path(path)
    html = build_report(evaluation, **kwargs)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(f".{p.name}.tmp")
    tmp.write_text(html, encoding="utf-8")
    os.replace(tmp, p)
    return p
