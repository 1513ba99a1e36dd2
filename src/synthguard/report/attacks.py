"""The anonymeter attacks in an evaluation: run them honestly, and their table in the report.

:func:`run_attacks` is what :func:`synthguard.report.evaluate` calls for each release when
``attacks=True``: :func:`synthguard.risk.release_attacks` with the evaluation's holdout as the
control set. The protocol is Giomi et al.'s (2023): the control must be records the
synthesizer never saw. Two cases are refused and reported as *not computed*, with the reason,
rather than given a number that looks like a risk:

* no holdout: the attack rate alone mixes what the release leaks with what any release of the
  population teaches;
* a holdout at least half of whose records (as distinct rows) are also training records: it
  is the training data again (a path given twice, a holdout drawn from the training file), the
  control rate is then the attack rate and the risk 0 whatever the release.

:func:`attacks_table` is the report's table: per release and attack, the risk with its
interval and the success rates of the attack, of random guessing (baseline) and of the attack
on the holdout (control). Rates are shares of attacks, never counts of records.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from synthguard._display import cell_count
from synthguard.report.safety import safe_error
from synthguard.risk.release_attacks import NO_CONTROL, ReleaseAttacks, release_attacks

if TYPE_CHECKING:
    from synthguard.report.evaluate import Evaluation
    from synthguard.report.safety import Redactor

__all__ = ["attacks_table", "run_attacks", "safeguards_table"]

def _shared_share(conf: pd.DataFrame, holdout: pd.DataFrame) -> tuple[float, float]:
    """``(h, t)``: the share of holdout records whose row (on the shared columns) is also a
    training row, and the share of training records whose row another training record repeats.

    ``t`` is the leave-one-out estimate of ``h`` for a holdout drawn from the same population
    as the training data but never seen by the synthesizer (natural twins: on coarse
    categorical data most records have one); a holdout made of training records has ``h = 1``.
    """
    cols = [c for c in conf.columns if c in holdout.columns]
    if not cols or holdout.empty or conf.empty:
        return 0.0, 0.0
    c = conf[cols].astype(object)
    sizes = c.groupby(cols, dropna=False, observed=True).size().rename("_n").reset_index()
    twin = float((sizes["_n"] * (sizes["_n"] > 1)).sum()) / len(c)
    h = holdout[cols].astype(object).merge(sizes, on=cols, how="left")
    return float(h["_n"].notna().mean()), twin


def _repeats_training(conf: pd.DataFrame, holdout: pd.DataFrame) -> bool:
    """Whether the holdout is taken for training records: more of its records are found in
    the training data than halfway between what the data's natural twins explain (``t``) and
    all of them, i.e. ``h > (1 + t) / 2`` (a random holdout of Adult repeats about 1% of
    the training rows; one of coarse categorical data most of them, as the training records
    repeat each other)."""
    h, t = _shared_share(conf, holdout)
    return h > (1.0 + t) / 2.0


ATTACKS_PART = "anonymeter attacks"


def run_attacks(
    conf: pd.DataFrame,
    implicates: Sequence[pd.DataFrame],
    holdout: pd.DataFrame | None,
    keys: Sequence[str],
    targets: Sequence[str],
    rng: np.random.Generator,
    errors: dict[str, str],
    runner: Callable[..., Any] | None = None,
    n_attacks: int = 500,
) -> ReleaseAttacks | None:
    """The release's attacks, or None with the reason in ``errors`` (see the module doc).

    ``runner(fn, *args, **kwargs)`` calls the attacks (the evaluation collects their warnings
    with it)."""
    if holdout is None:
        errors[ATTACKS_PART] = NO_CONTROL
        return None
    if _repeats_training(conf, holdout):
        errors[ATTACKS_PART] = (
            "the holdout repeats the training records (most of its rows are among them), so it "
            "cannot be the control set of records the synthesizer never saw; pass the records "
            "set aside before synthesis"
        )
        return None
    call = runner or (lambda fn, *a, **k: fn(*a, **k))
    try:
        return call(release_attacks, conf, list(implicates), holdout, keys=list(keys),  # type: ignore[no-any-return]
                    targets=list(targets), n_attacks=n_attacks, random_state=rng)
    except Exception as e:  # recorded, not fatal: the report says what is missing
        errors[ATTACKS_PART] = safe_error(e)
        return None


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
