"""The data steward's report of a DP tables release: ledger, ε for a board, allocation, rule,
accuracy by table or hierarchy level, what was suppressed, and (when run) the database
reconstruction attack on the release.

The accuracy numbers compare the release with the confidential tables: they are **not**
covered by the privacy ledger and the page says so at the top; share the release folder, not
this page. Everything else on it (ledger, allocation, rule, suppressed-cell counts, which are
computed from the noisy release) is public.
"""

from __future__ import annotations

import datetime as _dt
import html
import os
from pathlib import Path
from typing import Any

import pandas as pd

from synthguard.dp.board import epsilon_table

__all__ = ["board_rows", "build_tables_report", "write_tables_report"]

_CSS = ("body{font-family:system-ui,sans-serif;max-width:70rem;margin:2rem auto;padding:0 1rem}"
        "table{border-collapse:collapse;margin:.5rem 0 1.5rem}td,th{border:1px solid #ccc;"
        "padding:.2rem .5rem;text-align:right}th{background:#f3f3f3}td:first-child,"
        "th:first-child{text-align:left}.warn{background:#fff3cd;padding:.6rem;border:1px "
        "solid #e0c060}")


def board_rows(ledger: Any) -> dict[str, Any] | None:
    """The ε table of a ledger for the main report's ledger section (columns, text rows), or
    None when there is nothing to show or the ledger cannot be read."""
    try:
        t = epsilon_table(ledger)
    except Exception:
        return None
    if len(t) <= 1:
        return None
    def num(v: float, fmt: str) -> str:  # a NOT DP line has no ε: a dash, not 'nan'
        return "–" if v != v else format(v, fmt)

    rows = [[str(r["label"]), num(r["epsilon"], ".4g"), num(r["delta"], ".3g"),
             num(r["e^epsilon"], ".4g"), str(r["meaning"])] for r in t.to_dict("records")]
    return {"columns": ["label", "ε", "δ", "e^ε", "what it means"], "rows": rows}


def _table(frame: pd.DataFrame, digits: int = 4) -> str:
    return frame.to_html(index=False, escape=True, float_format=lambda v: f"{v:.{digits}g}",
                         border=0, na_rep="—")


def build_tables_report(*, title: str, ledger: Any, allocation: pd.DataFrame,
                        rule_text: str, released: dict[str, pd.DataFrame],
                        accuracy: pd.DataFrame | None, notes: list[str] | tuple[str, ...] = (),
                        provenance: dict[str, str] | None = None,
                        max_rows: int = 60, reconstruction: Any = None,
                        reconstruction_error: str | None = None) -> str:
    """The report as one HTML string (see the module docstring).

    ``reconstruction``: a :class:`~synthguard.dp.tables.ReconstructionResult` (the
    Dinur–Nissim attack run on the release and on the same tables without noise) for its
    section; ``reconstruction_error``: why it was asked for and not computed."""
    esc = html.escape
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>{esc(title)}</title>"
             f"<style>{_CSS}</style></head><body><h1>{esc(title)}</h1>"]
    parts.append("<p class='warn'>The released tables are covered by the privacy ledger "
                 "below. <b>This page is not</b>: its accuracy section compares them with the "
                 "confidential tables. Share the release folder, keep this page internal.</p>")
    for n in notes:
        parts.append(f"<p class='warn'>{esc(n)}</p>")
    parts.append("<h2 id='dp'>Privacy ledger</h2><pre>" + esc(ledger.summary()) + "</pre>")
    parts.append("<h2 id='epsilon'>What the budget means</h2>"
                 "<p>Each charge as a factor on an attacker's odds (e<sup>ε</sup>) and in "
                 "words; zCDP lines converted at the ledger's δ (Canonne, Kamath &amp; Steinke "
                 "2020).</p>" + _table(epsilon_table(ledger)))
    parts.append("<h2 id='allocation'>Budget allocation</h2>" + _table(allocation))
    parts.append("<h2 id='rule'>Intervals, reliability and suppression</h2><p>"
                 + esc(rule_text) + "</p>")
    rows = []
    for name, f in released.items():
        row = {"table": name, "cells": len(f)}
        for col in ("reliable", "suppressed", "structural_zero"):
            if col in f:
                row[col] = int(f[col].sum())
        rows.append(row)
    parts.append("<h2 id='tables'>Released tables</h2>" + _table(pd.DataFrame(rows)))
    for name, f in released.items():
        shown = f.head(max_rows)
        more = (f"; the first {max_rows} of {len(f)} rows are shown, the CSV holds all"
                if len(f) > max_rows else "")
        parts.append(f"<h3>{esc(name)}</h3><p>Noisy values with their intervals and flags, as "
                     f"released (— = suppressed){esc(more)}.</p>" + _table(shown, 6))
    if accuracy is not None:
        parts.append("<h2 id='accuracy'>Accuracy against the confidential tables (internal)"
                     "</h2><p>MAE, MNE (mean numeric error: signed, positive when cells are "
                     "overstated on average), RMSE, MAPE (% over cells with a true count &gt; 0), CV (% = "
                     "100·RMSE / mean true count), TAES (total absolute error of shares within "
                     "each unit, 0–2); Abowd et al. 2022.</p>" + _table(accuracy))
    if reconstruction is not None or reconstruction_error is not None:
        parts.append(_reconstruction_section(reconstruction, reconstruction_error))
    prov = {"generated": _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
            **(provenance or {})}
    parts.append("<h2 id='provenance'>Provenance</h2><table>" + "".join(
        f"<tr><th>{esc(k)}</th><td>{esc(str(v))}</td></tr>" for k, v in prov.items())
        + "</table></body></html>")
    return "\n".join(parts)


def _reconstruction_section(result: Any, error: str | None) -> str:
    """The database-reconstruction attack (Dinur & Nissim 2003; the Census's 2010 experiment,
    Abowd et al. 2022): share of confidential records rebuilt exactly from the released
    tables, from the same tables without noise, and by a random guess from one-way margins."""
    esc = html.escape
    head = ("<h2 id='reconstruction'>Reconstruction attack (internal)</h2><p>An attacker "
            "rebuilds records as the non-negative integer table whose margins are closest to "
            "the released counts (an integer programme, as in the Census's 2010 experiment; "
            "Dinur &amp; Nissim 2003, Abowd et al. 2022) and the share of confidential records "
            "it matches exactly is counted. The same attack on the tables without noise shows "
            "what the noise protects; a random guess from the one-way margins is the floor.</p>")
    if result is None:
        return head + f"<p class='warn'>Not computed: {esc(error or '')}</p>"
    frame = result.to_frame().reset_index()
    frame["reconstructed_share"] = [f"{100 * v:.1f} %" for v in frame["reconstructed_share"]]
    frame.columns = ["reconstructed from", "records matched exactly"]
    cols = ", ".join(str(c) for c in result.columns)
    return (head + f"<p>Columns: {esc(cols)}; {int(result.n_blocks)} block(s).</p>"
            + _table(frame))


def write_tables_report(path: str | os.PathLike[str], **kwargs: Any) -> Path:
    """Build the report and write it atomically to ``path``."""
    p = Path(path)
    text = build_tables_report(**kwargs)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(f".{p.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, p)
    return p
