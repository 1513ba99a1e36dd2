"""The report's sdcMicro risk block and domain table (and the figure of differences by
domain), built from :class:`~synthguard.evaluation.survey_blocks.SurveyBlocks` under the
report's safety rules:

* a domain with fewer than ``min_cell`` confidential records is suppressed whole (neither its
  label nor its estimates are printed; the table says how many were);
* a proportion whose level has fewer than ``min_cell`` confidential records in the domain, and
  a quantile with fewer than ``min_cell`` values on either side of it, print as "–";
* estimates are rounded to 3 significant figures (:func:`~synthguard.report.safety.format_number`),
  labels go through the :class:`~synthguard.report.safety.Redactor`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from synthguard.report.safety import Redactor, format_number

__all__ = ["domain_figure", "domain_table", "sdcmicro_table", "survey_context"]

MAX_DOMAIN_ROWS = 80
MAX_FIGURE_ROWS = 40


def sdcmicro_table(blocks: Any, redactor: Redactor) -> dict[str, Any] | None:
    """Rows: the data and each release; columns: the sdcMicro measures. Plus the SUDA2
    contributions of each key variable."""
    if blocks is None or not len(blocks.risk):
        return None
    risk = blocks.risk
    header = ["individual risk (mean)", "expected re-identifications", "share risk > 0.1",
              "weights"]
    cols = ["global_risk", "expected_reid", "share_risk_above_0_1", "weighted"]
    if "suda_share" in risk:
        header += ["share with an MSU (SUDA2)", "max DIS-SUDA"]
        cols += ["suda_share", "max_dis"]
    for c in risk.columns:
        if c.startswith("l_distinct:"):
            t = c.split(":", 1)[1]
            header += [f"distinct l of {redactor.label(t)}", f"share l < 2 ({redactor.label(t)})"]
            cols += [c, f"l_below_2:{t}"]
    rows = []
    for name, r in risk.iterrows():
        cells = []
        for c in cols:
            v = r.get(c)
            if c == "weighted":
                cells.append("yes" if bool(v) else "no")
            elif v is None or (isinstance(v, float) and not np.isfinite(v)):
                cells.append("–")
            else:
                cells.append(format_number(v, 3))
        rows.append({"name": str(name), "cells": cells})
    contrib = None
    if len(blocks.contributions):
        c = blocks.contributions
        contrib = {
            "header": [str(x) for x in c.columns],
            "rows": [{"name": redactor.label(str(k)),
                      "cells": [format_number(v, 3) for v in row]} for k, row in c.iterrows()],
        }
    return {"header": header, "rows": rows, "contributions": contrib}


def _suppressed(table: pd.DataFrame, conf: pd.DataFrame, by: list[str],
                min_cell: int) -> np.ndarray:
    """True where a row's estimates may not be printed (see the module docstring)."""
    hide = table["n_conf"].to_numpy() < min_cell
    stat = table["statistic"].astype(str).to_numpy()
    lookups: dict[str, dict[tuple[str, ...], int]] = {}
    for i, (_, r) in enumerate(table.iterrows()):
        if hide[i]:
            continue
        if stat[i] == "proportion":
            v = str(r["variable"])
            if v not in lookups:
                counts = conf[[*by, v]].dropna().astype(str).value_counts()
                lookups[v] = {(k if isinstance(k, tuple) else (k,)): int(c)
                              for k, c in counts.items()}
            key = (*(str(r[b]) for b in by), str(r["level"]))
            hide[i] = lookups[v].get(key, 0) < min_cell
        elif stat[i].startswith("q"):
            p = float(stat[i][1:]) / 100.0
            n = float(r["n_conf"])
            hide[i] = n * p < min_cell or n * (1 - p) < min_cell
    return hide


def _domain_label(r: pd.Series, by: list[str]) -> str:
    return " × ".join(str(r[b]) for b in by) if by else "all"


def domain_table(blocks: Any, conf: pd.DataFrame, redactor: Redactor,
                 count: Callable[[int], str] = lambda n: f"{n:,}") -> dict[str, Any] | None:
    """The domain table: one row per (domain, variable, statistic) with the data's estimate
    and its standard error, and per release the estimate, the difference and the CI overlap."""
    if blocks is None or not blocks.domains:
        return None
    names = list(blocks.domains)
    by = list(blocks.by)
    first = blocks.domains[names[0]].table
    hide = _suppressed(first, conf, by, redactor.min_cell)
    small_domains = int(first.loc[first["n_conf"] < redactor.min_cell].drop_duplicates(
        by).shape[0]) if by else 0
    rows = []
    shown = np.flatnonzero(first["n_conf"].to_numpy() >= redactor.min_cell)
    for i in shown[:MAX_DOMAIN_ROWS]:
        r = first.iloc[i]
        stat = r["statistic"] if r["statistic"] != "proportion" else f"share {r['level']}"
        cells = [redactor.label(_domain_label(r, by)), redactor.label(str(r["variable"])),
                 redactor.label(str(stat)), count(int(r["n_conf"]))]
        if hide[i]:
            cells += ["–", "–"]
        else:
            cells += [format_number(r["conf_estimate"], 3), format_number(r["conf_se"], 2)]
        for n in names:
            t = blocks.domains[n].table.iloc[i]
            if hide[i]:
                cells += ["–", "–", "–"]
            else:
                cells += [format_number(t["syn_estimate"], 3), format_number(t["difference"], 2),
                          format_number(t["overlap_snoke"], 2)]
        rows.append(cells)
    header = [" × ".join(by) if by else "domain", "variable", "statistic", "records",
              "data", "SE"]
    for n in names:
        header += [f"{n}", f"{n} − data", f"{n} CI overlap"]
    return {
        "header": header,
        "rows": rows,
        "small_domains": small_domains,
        "more": max(0, len(shown) - MAX_DOMAIN_ROWS),
        "weights": blocks.weights or "none (unweighted)",
        "design": ", ".join(f"{k} {v}" for k, v in (("strata", blocks.strata),
                                                     ("clusters", blocks.clusters)) if v)
        or "no strata or clusters",
    }


def domain_figure(blocks: Any, conf: pd.DataFrame, redactor: Redactor,
                  colors: Mapping[str, str]) -> Any:
    """Standardised differences ``(release − data) / SE(data)`` by domain, sorted, one dot per
    release; at most :data:`MAX_FIGURE_ROWS` rows (the largest differences of the first
    release); suppressed rows left out. The band marks ±1.96."""
    from synthguard.report.figures import _figure

    if blocks is None or not blocks.domains:
        return None
    names = list(blocks.domains)
    by = list(blocks.by)
    first = blocks.domains[names[0]].table
    hide = _suppressed(first, conf, by, redactor.min_cell)
    diffs = pd.DataFrame({n: pd.to_numeric(blocks.domains[n].table["std_difference"],
                                           errors="coerce").to_numpy() for n in names})
    labels = []
    for _, r in first.iterrows():
        stat = r["statistic"] if r["statistic"] != "proportion" else f"{r['level']}"
        labels.append(redactor.label(f"{_domain_label(r, by)} · {r['variable']} {stat}"))
    diffs.index = labels
    diffs = diffs[~hide]
    diffs = diffs[np.isfinite(diffs[names[0]])]
    if diffs.empty:
        return None
    diffs = diffs.loc[diffs[names[0]].abs().sort_values(ascending=False).index[:MAX_FIGURE_ROWS]]
    diffs = diffs.sort_values(names[0])
    fig = _figure(7.0, 1.2 + 0.18 * len(diffs))
    ax = fig.subplots()
    y = np.arange(len(diffs))
    ax.axvspan(-1.96, 1.96, color="#eeeeee", zorder=0)
    ax.axvline(0.0, color="grey", lw=0.8)
    for n in names:
        ax.scatter(diffs[n], y, s=14, color=colors.get(n), label=n, zorder=2)
    ax.set_yticks(y, [str(s)[:48] for s in diffs.index], fontsize=6)
    ax.set_xlabel("(release − data) / SE of the data's estimate", fontsize=8)
    ax.tick_params(axis="x", labelsize=7)
    if len(names) > 1:
        ax.legend(fontsize=7, loc="lower right")
    return fig


def survey_context(ev: Any, redactor: Redactor, colors: Mapping[str, str],
                   count: Callable[[int], str]) -> dict[str, Any]:
    """What the report's templates ``survey_risk.html`` and ``survey_domains.html`` need:
    ``sdcmicro`` (or None), ``domains`` (or None) and ``domain_png`` (the figure, or None)."""
    from synthguard.report.figures import to_png

    blocks = getattr(ev, "survey", None)
    fig = domain_figure(blocks, ev.conf, redactor, colors)
    return {
        "sdcmicro": sdcmicro_table(blocks, redactor),
        "domains": domain_table(blocks, ev.conf, redactor, count),
        "domain_png": to_png(fig) if fig is not None else None,
    }
