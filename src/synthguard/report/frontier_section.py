"""The report's risk–utility frontier: one point per configuration a sweep tried.

:func:`frontier_figure` draws disclosure risk (y) against utility (x), one point per
configuration (green: passes every threshold; orange: fails one), the Pareto frontier joined,
the chosen configuration ringed and the thresholds of both axes drawn as dashed lines.
:func:`frontier_context` is what :func:`synthguard.report.build_report` renders as the
section "Risk–utility frontier": the figure, the gate's verdict, and the table of every
configuration's measures with the thresholds it failed.

It reads a sweep result by its fields (``table``, ``chosen``, ``risk_metric``,
``utility_metric``, ``thresholds``, ``verdict``; :class:`synthguard.pipeline.SweepResult`),
so the report does not import the pipeline. Everything printed is a setting tried, a limit
or a measure of a release (rates, ratios, overlaps): no confidential value. Configuration
labels pass through the report's redactor all the same (a parameter may name a category
level).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from synthguard.evaluation.metrics import METRICS
from synthguard.evaluation.thresholds import pmse_ratio_words

__all__ = ["axis_reading", "frontier_context", "frontier_figure"]

#: Columns of the frontier table, in order, when measured.
_SHOWN = ("pmse_ratio", "ci_overlap", "singling_out_risk", "singling_out_multivariate_risk",
          "replicated_uniques", "repu", "disco", "linkability_risk", "inference_risk")


def frontier_figure(result: Any) -> Any:
    """Risk against utility, one point per configuration; the Pareto frontier joined, the
    chosen configuration ringed, the thresholds on both axes drawn (matplotlib Figure, Agg)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    t = result.table
    rm, um = result.risk_metric, result.utility_metric
    fig = Figure(figsize=(6.4, 4.2))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    if rm not in t or um not in t:
        ax.text(0.5, 0.5, "not measured", ha="center", va="center")
        return fig
    x, y = t[um].to_numpy(float), t[rm].to_numpy(float)
    passed = t["passed"].to_numpy(bool)
    for mask, color, lab in ((passed, "#1b9e77", "passes every threshold"),
                             (~passed, "#d95f02", "fails a threshold")):
        if mask.any():
            ax.scatter(x[mask], y[mask], c=color, zorder=3, label=lab)
    front = t["pareto"].to_numpy(bool) & np.isfinite(x) & np.isfinite(y)
    if front.any():
        order = np.argsort(x[front])
        ax.plot(x[front][order], y[front][order], color="#555555", lw=1, zorder=2,
                label="Pareto frontier")
    for i, (xi, yi) in enumerate(zip(x, y)):
        if np.isfinite(xi) and np.isfinite(yi):
            ax.annotate(str(i + 1), (xi, yi), fontsize=7, xytext=(4, 3),
                        textcoords="offset points")
    if result.chosen is not None:
        i = list(t.index).index(result.chosen)
        ax.scatter([x[i]], [y[i]], s=220, facecolors="none", edgecolors="black", lw=1.5,
                   zorder=4, label=f"chosen (#{i + 1})")
    for th in result.thresholds:
        if th.metric == rm:
            ax.axhline(th.limit, color="#d95f02", ls="--", lw=1)
        elif th.metric == um:
            ax.axvline(th.limit, color="#d95f02", ls="--", lw=1)
    ax.set_xlabel(METRICS[um].label + axis_reading(um))
    if METRICS[um].goal == "target" and METRICS[um].target:
        ax.axvline(float(METRICS[um].target or 1.0), color="#1b9e77", ls=":", lw=1)
        if np.all(x[np.isfinite(x)] > 0) and np.isfinite(x).any():
            ax.set_xscale("log")  # 0.25 and 4 equally far from the ideal 1
    ax.set_ylabel(METRICS[rm].label + " risk (lower is safer)")
    ax.set_title("Risk–utility frontier: one point per configuration (numbers: table rows)",
                 fontsize=9)
    ax.legend(fontsize=7, loc="best")
    fig.tight_layout()
    return fig


def axis_reading(metric: str) -> str:
    """How to read a utility axis, by the metric's goal: ``" (≈ 1 is ideal; …)"`` for a
    target such as the pMSE ratio, never "lower is better" for it."""
    m = METRICS[metric]
    if m.goal == "max":
        return " (higher is better)"
    if m.goal == "min":
        return " (lower is better)"
    return (f" (≈ {m.target:g} is ideal; far below: closer to the data than a fresh sample, "
            f"far above: less useful)")


def _cell(v: Any) -> str:
    try:
        f = float(v)
    except (TypeError, ValueError):
        return "–"
    return f"{f:.3g}" if np.isfinite(f) else "–"


def _leaves(v: Any) -> list[Any]:
    if isinstance(v, Mapping):
        return [x for item in v.values() for x in _leaves(item)]
    if isinstance(v, list | tuple):
        return [x for item in v for x in _leaves(item)]
    return [v]


def _settings_only(frontier: Any) -> bool:
    """True when every swept value is a number, a flag or empty: the labels then print
    settings only (``rare_values=5``), which the redactor would take for a category code."""
    configs = getattr(frontier, "configurations", None)
    if not configs:
        return False
    return all(v is None or isinstance(v, bool | int | float)
               for params in configs.values() for v in _leaves(dict(params)))


def _chosen_pmse_words(frontier: Any, released: bool) -> str | None:
    """The chosen configuration's pMSE ratio in words when it is far from 1."""
    t = frontier.table
    label = frontier.chosen if frontier.chosen is not None else getattr(frontier, "closest", None)
    if label is None or "pmse_ratio" not in t.columns:
        return None
    words = pmse_ratio_words(float(t.loc[label, "pmse_ratio"]))
    return None if words is None else f"{'Chosen' if released else 'Closest'} configuration: {words}"


def frontier_context(frontier: Any, scrub: Any, to_png: Any) -> dict[str, Any]:
    """The template's ``frontier`` block (None without a sweep). ``scrub`` redacts text (a
    swept value that is text, e.g. a public level, may name a category level; labels made of
    numbers only are settings and printed as they are), ``to_png`` encodes the figure."""
    if frontier is None:
        return {"frontier": None}
    if _settings_only(frontier):
        def scrub(text: Any) -> str:
            return str(text)
    t = frontier.table
    shown = [m for m in _SHOWN if m in t.columns]
    released = getattr(frontier, "released", None)
    if released is None:
        released = frontier.chosen is not None
    verdict = frontier.verdict
    if frontier.chosen is not None and not released:
        verdict += ("; but the chosen release fails its full evaluation (see the Summary), so "
                    "nothing was released")
    rows = []
    for i, (label, row) in enumerate(t.iterrows(), start=1):
        rows.append({
            "n": i,
            "label": scrub(str(label)),
            "chosen": label == frontier.chosen and released,
            "cells": [_cell(row[m]) for m in shown],
            "pareto": bool(row.get("pareto", False)),
            "passed": bool(row["passed"]),
            "failed": scrub(str(row.get("failed", "") or "")),
        })
    return {"frontier": {
        "png": to_png(frontier_figure(frontier)),
        "header": [METRICS[m].label for m in shown],
        "rows": rows,
        "verdict": scrub(verdict),
        "released": released,
        "risk": METRICS[frontier.risk_metric].label,
        "utility": METRICS[frontier.utility_metric].label,
        "utility_reading": (", the one closest to its ideal: " + axis_reading(
            frontier.utility_metric).strip(" ()")
            if METRICS[frontier.utility_metric].goal == "target" else ""),
        "pmse_words": _chosen_pmse_words(frontier, released),
        "thresholds": "; ".join(th.describe() for th in frontier.thresholds) or "none",
        "seconds": f"{getattr(frontier, 'seconds', 0.0):.0f}",
    }}
