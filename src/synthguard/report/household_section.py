"""The report's household section (``evaluate(..., household=)``): the data's household risk
(sdcMicro's ``hier_risk``), replicated households per release, and the household-level
utility measures of each release beside the data's (means over the implicates).

Counts of confidential households go through the report's count rule (``count``: fewer than
the smallest printed cell are not printed); the other figures are rates, correlations and
distances."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from synthguard.evaluation.metrics import METRICS

__all__ = ["household_context"]


def _f(v: Any, digits: int = 3) -> str:
    if v is None or not isinstance(v, int | float) or not np.isfinite(v):
        return "–"
    return f"{v:.{digits}g}"


def _pct(v: Any) -> str:
    if v is None or not isinstance(v, int | float) or not np.isfinite(v):
        return "–"
    return f"{100 * v:.2f}%"


def _mean(vals: list[Any]) -> float | None:
    kept = [float(v) for v in vals if v is not None and np.isfinite(v)]
    return float(np.mean(kept)) if kept else None


def _first(utils: list[Any], measure: str, attr: str) -> float | None:
    """The data's value (the same in every implicate's comparison)."""
    for u in utils:
        m = getattr(u, measure)
        if m is not None:
            return getattr(m, attr)  # type: ignore[no-any-return]
    return None


def _release(utils: list[Any], measure: str, attr: str) -> float | None:
    return _mean([getattr(getattr(u, measure), attr) for u in utils
                  if getattr(u, measure) is not None])


_ROWS: tuple[tuple[str, str, str, str, Callable[[Any], str]], ...] = (
    ("mean household size", "size", "mean_data", "mean_release", _f),
    ("partners' age correlation", "associations", "partner_corr_data",
     "partner_corr_release", _f),
    ("head's age x children correlation", "associations", "children_corr_data",
     "children_corr_release", _f),
    ("mean children per household", "associations", "mean_children_data",
     "mean_children_release", _f),
    ("at-risk-of-poverty rate", "poverty", "rate_data", "rate_release", _pct),
)


def household_context(ev: Any, count: Callable[[int], str]) -> dict[str, Any]:
    """The template's ``households`` block (None without ``household=``)."""
    h = getattr(ev, "households", None)
    if h is None:
        return {"households": None}
    names = [n for n in ev.releases]
    risk = None
    if h.data_risk is not None and h.data_risk.household is not None:
        hr = h.data_risk.household
        risk = {
            "key_list": ", ".join(h.data_risk.keys),
            "weighted": h.data_risk.weighted,
            "households": count(hr.n_households),
            "individual_er": _f(h.data_risk.expected_reidentifications, 4),
            "individual_pct": f"{h.data_risk.global_risk_pct:.3f}%",
            "hier_er": _f(hr.expected_reidentifications, 4),
            "hier_pct": f"{hr.global_risk_pct:.3f}%",
            "max": _f(float(hr.risk.max()) if hr.n else None, 3),
        }
    rows = []
    for label, measure, dattr, rattr, fmt in _ROWS:
        data_v = None
        cells = []
        for n in names:
            utils = h.utility.get(n) or []
            if data_v is None:
                data_v = _first(utils, measure, dattr)
            cells.append(fmt(_release(utils, measure, rattr)))
        if fmt(data_v) == "–" and all(c == "–" for c in cells):
            continue
        rows.append({"measure": label, "data": fmt(data_v), "cells": cells})
    for n in names:  # household totals: one row per variable
        for u in (h.utility.get(n) or [])[:1]:
            if u.totals is None:
                continue
            for var in u.totals.table.index:
                label = f"mean household total of {var}"
                if any(r["measure"] == label for r in rows):
                    continue
                data_v = float(u.totals.table.loc[var, "mean_data"])
                cells = [_f(_mean([float(v.totals.table.loc[var, "mean_release"])
                                   for v in (h.utility.get(m) or []) if v.totals is not None]),
                            4) for m in names]
                rows.append({"measure": label, "data": _f(data_v, 4), "cells": cells})
    headline = []
    for name in ("household_size_tv", "household_composition_tv",
                 "partner_age_corr_diff", "children_age_corr_diff", "household_totals_ks",
                 "poverty_rate_diff"):
        vals = [ev.releases[n].metrics.get(name) for n in names]
        if all(v is None for v in vals):
            continue
        headline.append({"measure": METRICS[name].label, "description": METRICS[name].description,
                         "cells": [_f(v) for v in vals]})
    replicated = []
    for n in names:
        reps = h.replicated.get(n) or []
        worst = max(reps, key=lambda r: r.count) if reps else None
        replicated.append("–" if worst is None else
                          f"{worst.count:,} of {worst.n_households:,} ({_pct(worst.share)})")
    notes = sorted({note for n in names for u in (h.utility.get(n) or []) for note in u.notes})
    errors = [f"{n}: {part}: {why}" for n, errs in h.errors.items() for part, why in errs.items()]
    return {"households": {
        "column": h.household, "names": names, "risk": risk,
        "risk_error": h.data_risk_error, "headline": headline, "rows": rows,
        "replicated": replicated, "notes": notes, "errors": errors,
    }}
