"""The report section of a ``dp query`` release: each released value with its interval, the
noise each query got, and the ledger's unit-level charges.

Everything on this page is public: the values are differentially private (noise drawn after
the ledger was charged) and no statistic of the confidential data is shown unnoised, so no
small-cell rule applies to it. The bounding's effect on the data (how many rows were cut) is a
confidential count and is not shown.
"""

from __future__ import annotations

import datetime as _dt
import html
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from synthguard.dp.board import epsilon_table
from synthguard.report.dp_tables import _CSS, _table

__all__ = ["build_queries_report", "queries_section", "write_queries_report"]


def _values(frame: pd.DataFrame, names: list[str],
            ranks: dict[str, float] | None = None) -> pd.DataFrame:
    """Each aggregation as 'value [lower, upper]' text next to the keys; a quantile, whose
    error is in ranks, as 'value (within ±r ranks)'."""
    keys = [c for c in frame.columns if c not in names
            and not any(c in (f"{n}_lower", f"{n}_upper") for n in names)]
    out = frame[keys].copy()
    for n in names:
        lo, hi = frame[f"{n}_lower"], frame[f"{n}_upper"]
        rank = (ranks or {}).get(n)
        out[n] = [_num(v) + (f" (within ±{rank:,.0f} ranks)" if rank is not None and
                             pd.isna(a) and pd.notna(rank) else
                             "" if pd.isna(a) else f" [{_num(a)}, {_num(b)}]")
                  for v, a, b in zip(frame[n], lo, hi)]
    return out


def _num(v: float) -> str:
    """A released number as people read it: thousands whole with separators (25,576, not
    2.558e+04), smaller ones to four significant digits."""
    if pd.isna(v):
        return "NaN"
    return f"{v:,.0f}" if abs(v) >= 1000 else f"{v:.4g}"


def queries_section(results: Sequence[Any], ledger: Any) -> str:
    """The HTML section: one table per query (values with intervals), the noise plan, the
    ledger's charges with the unit each protects, and the budget in words for a board."""
    esc = html.escape
    parts = ["<section id='dp-queries'><h2>Statistics on demand</h2>"]
    if results:
        r0 = results[0]
        parts.append(f"<p>Privacy unit: <b>{esc(r0.privacy_unit)}</b>. Every charge below is "
                     "the cost per unit (all its rows together), rows beyond the bounds having "
                     "been dropped at random by the session. Intervals are "
                     f"{100 * (1 - r0.alpha):g}% intervals for the noise around the statistic "
                     "of the bounded data; a quantile's error is stated in ranks.</p>")
    for r in results:
        names = [c for c in r.frame.columns if f"{c}_lower" in r.frame.columns]
        parts.append(f"<h3>{esc(r.label)}</h3><p>epsilon {r.epsilon:.4g}, delta {r.delta:.3g}; "
                     f"keys {esc(r.keys)}; noise: {esc(r.noise)}.</p>")
        ranks = ({str(a): float(e) for a, e in zip(r.plan["aggregation"], r.plan["rank_error"])}
                 if {"aggregation", "rank_error"} <= set(r.plan.columns) else {})
        parts.append(_table(_values(r.frame, names, ranks)) if len(r.frame) else
                     "<p>No group was released.</p>")
        parts.append("<details><summary>Noise and accuracy</summary>"
                     + _table(r.plan.drop(columns=["privacy_unit"], errors="ignore"))
                     + "</details>")
    parts.append("<h3>Privacy ledger (unit-level charges)</h3><pre>"
                 + esc(ledger.summary()) + "</pre>")
    board = epsilon_table(ledger)
    unit = next((c.privacy_unit for c in ledger.charges if c.privacy_unit not in (None, "row")),
                None)
    if unit is not None and "meaning" in board:  # the odds are about one unit, not one row
        board["meaning"] = board["meaning"].str.replace(
            "any one person", f"any one unit ('{unit}', all its rows)", regex=False)
    parts.append("<h3>What the budget means</h3>" + _table(board))
    parts.append("</section>")
    return "\n".join(parts)


def build_queries_report(*, title: str, results: Sequence[Any], ledger: Any,
                         provenance: dict[str, str] | None = None) -> str:
    """A stand-alone page holding :func:`queries_section`."""
    esc = html.escape
    prov = {"generated": _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
            **(provenance or {})}
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{esc(title)}</title>"
            f"<style>{_CSS}</style></head><body><h1>{esc(title)}</h1>"
            + queries_section(results, ledger)
            + "<h2 id='provenance'>Provenance</h2><table>"
            + "".join(f"<tr><th>{esc(k)}</th><td>{esc(str(v))}</td></tr>"
                      for k, v in prov.items()) + "</table></body></html>")


def write_queries_report(path: str | os.PathLike[str], **kwargs: Any) -> Path:
    """Build the page and write it atomically to ``path``."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(f".{p.name}.tmp")
    tmp.write_text(build_queries_report(**kwargs), encoding="utf-8")
    os.replace(tmp, p)
    return p
