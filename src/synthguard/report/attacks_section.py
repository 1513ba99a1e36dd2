"""The report's tables of the anonymeter attacks and of the release safeguards.

:func:`attacks_table`: per release and attack, the risk with its interval and the success
rates of the attack, of random guessing (baseline) and of the attack on the holdout
(control), as :func:`synthguard.evaluation.attacks.run_attacks` measured them. Rates are
shares of attacks, never counts of records. :func:`safeguards_table`: what the default
safeguards of each synthetic release did, counts under the small-cell rule.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from synthguard._display import cell_count
from synthguard.evaluation import Evaluation
from synthguard.report.safety import Redactor

__all__ = ["attacks_table", "safeguards_table"]


def _pct(x: float | None) -> str:
    if x is None or not np.isfinite(x):
        return "–"
    return f"{100 * x:.1f}%"


def attacks_table(ev: Evaluation, redactor: Redactor) -> dict[str, Any] | None:
    """Rows (release, attack, risk [CI], attack, baseline and control success rates)."""
    rows = []
    for name, r in ev.releases.items():
        att = getattr(r, "attacks", None)
        if att is None:
            continue
        for label, a in att.attacks():
            lo, hi = a.ci
            secret = a.details.get("secret")
            shown = f"inference of {redactor.label(str(secret))}" if secret is not None else label
            rows.append({
                "release": name,
                "cells": [shown, _pct(a.risk), f"{_pct(lo)} – {_pct(hi)}", _pct(a.attack_rate),
                          _pct(a.baseline_rate), _pct(a.control_rate),
                          "" if a.attack_beats_baseline else "no better than guessing"],
            })  # fmt: skip
    if not rows:
        return None
    return {
        "header": ["attack", "risk", "95% CI", "attack success",
                   "baseline (guessing)", "control (holdout)", ""],
        "rows": rows,
    }


_SAFEGUARD_COLUMNS = (
    ("replicated_uniques_found", "replicated uniques drawn"),
    ("redrawn", "redrawn"),
    ("removed", "removed"),
    ("suppressed", "suppressed (partial)"),
    ("kept_values_changed", "kept values changed (partial)"),
    ("replicated_uniques_released", "released"),
    ("extreme_values_coded", "extreme values coded"),
    ("rare_values_redrawn", "near-unique values redrawn"),
)


def safeguards_table(ev: Evaluation) -> dict[str, Any] | None:
    """Per synthetic release (made in this session, so its safeguards are known): what the
    default safeguards did, summed over the implicates (counts of synthetic values and
    records), and their settings (k of the extremes and of the near-unique values)."""
    rows = []
    for name, r in ev.releases.items():
        sg = getattr(r, "safeguards", None)
        if isinstance(sg, dict):  # a release folder's manifest record (counts already ruled)
            tot: dict[str, Any] = dict(sg.get("counts") or {})
            settings = {k: sg.get(k) for k in ("replicated_uniques", "extremes",
                                               "rare_values", "partial_uniques")}
        elif sg is not None and hasattr(sg, "totals"):
            tot = sg.totals()
            settings = {"replicated_uniques": sg.replicated_uniques, "extremes": sg.extremes,
                        "rare_values": getattr(sg, "rare_values", 0),
                        "partial_uniques": getattr(sg, "partial_uniques", "")}
        else:
            continue
        # the small-cell rule: a count of a few records is shown as "< 10"
        cells = [v if isinstance(v := tot.get(k, 0), str) else cell_count(v)
                 for k, _ in _SAFEGUARD_COLUMNS]
        cells.append(f"{settings['replicated_uniques']}; extremes={settings['extremes']}; "
                     f"rare_values={settings['rare_values']}"
                     + (f"; partial_uniques={settings['partial_uniques']}"
                        if settings.get("partial_uniques") else ""))
        partial = sg.get("partial") if isinstance(sg, dict) else (
            sg.partial_summary() if hasattr(sg, "partial_summary") else None)
        rows.append({"release": name, "cells": cells, "partial": partial or ""})
    if not rows:
        return None
    return {"header": [h for _, h in _SAFEGUARD_COLUMNS] + ["settings"], "rows": rows}
