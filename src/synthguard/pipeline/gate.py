"""The gate: of the configurations a sweep measured, the one release a board may publish.

A configuration **passes** when every threshold holds for it (:mod:`synthguard.report.
thresholds`: ``metric <= limit`` for a risk, ``>= limit`` for a utility where higher is better;
a measure that applies but could not be computed fails). Among the passing configurations the
gate **chooses** the most useful: the best ``utility_metric`` by its goal (by default the pMSE
ratio closest to its ideal 1, measured as ``|log ratio|``: a ratio of 0.25 is as far from 1 as
one of 4, because a ratio far below 1 means a release closer to the data than a fresh sample
from the same population, not a more useful one; :func:`synthguard.evaluation.metrics.
utility_loss`), ties broken by the lower ``risk_metric``, then by the grid's order. When none passes,
nothing is chosen and the verdict names the configuration closest to passing (fewest failed
thresholds, then the smallest relative excess ``(value - limit) / |limit|``) with each threshold
it failed and by how much.

**Thresholds of the gate.** The evaluation's documented defaults (no replicated unique, DiSCO
<= 0.15; with the attacks, singling out <= 0.05 on one column and <= 0.25 on three; see
:mod:`synthguard.evaluation.thresholds`) and, with the attacks, :data:`GATE_THRESHOLDS`:

* ``singling_out_multivariate_risk <= 0.25``: queries on three columns written from the
  release (anonymeter's multivariate singling out, Giomi et al. 2023) may isolate a person of
  the training data no more than 25 points more often than one of the holdout. It is now one
  of the evaluation's own attack thresholds (why 0.25: :mod:`synthguard.evaluation.thresholds`),
  so the full evaluation of the chosen configuration judges it by the same rule.

and always :data:`RARE_THRESHOLDS` (issue 31, N3): a sweep over ``rare_values`` and
``extremes`` used to pass every configuration, because no threshold measured what they change,
and released ``rare_values=0, extremes=0`` with a planted one-record level and the data's
largest incomes in the file. The gate now measures the share of released cells holding a value
held by fewer than 5 confidential records and the share of numeric cells beyond the data's
5-record tails (:mod:`synthguard.risk.rare_released`), and requires both to be 0, which the
default safeguards (``rare_values=5``, ``extremes=5``) guarantee. They are the gate's, not the
evaluation's defaults: a release made without those safeguards (synthpop's) is judged by the
evaluation's measures of disclosure, not refused for handing back a common-looking value.

Names and labels only: the verdict prints configuration labels (the settings tried),
threshold limits and the measures' values (rates and ratios), never a confidential value.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from synthguard._display import Summarized
from synthguard.errors import ParameterError
from synthguard.evaluation.metrics import METRICS, utility_loss
from synthguard.evaluation.thresholds import (
    ATTACK_THRESHOLDS,
    DEFAULT_THRESHOLDS,
    Threshold,
    ThresholdCheck,
    parse_thresholds,
)

__all__ = ["GATE_THRESHOLDS", "RARE_THRESHOLDS", "GateDecision", "decide", "failures", "gate_thresholds"]

#: Thresholds the gate adds to the evaluation's defaults when the attacks run (module doc).
GATE_THRESHOLDS: dict[str, float] = {
    "singling_out_multivariate_risk": ATTACK_THRESHOLDS["singling_out_multivariate_risk"]}

#: Thresholds the gate always adds: no rare value, no tail value released (module doc).
RARE_THRESHOLDS: dict[str, float] = {"rare_values_released": 0.0, "extremes_released": 0.0}


def gate_thresholds(
    thresholds: Mapping[str, Any] | None = None,
    *,
    attacks: bool = True,
    default_thresholds: bool = True,
) -> tuple[Threshold, ...]:
    """The thresholds a sweep judges every configuration by: the documented defaults (with
    the attacks, :data:`~synthguard.evaluation.thresholds.ATTACK_THRESHOLDS` and
    :data:`GATE_THRESHOLDS`), a rule in ``thresholds`` replacing the default for its metric;
    ``default_thresholds=False`` keeps ``thresholds`` alone."""
    user = dict(thresholds or {})
    parse_thresholds(user)  # the caller's rules are validated before merging
    attack_only = [m for m in user if m in METRICS and METRICS[m].section == "attacks"]
    if attack_only and not attacks:
        raise ParameterError(
            f"threshold '{attack_only[0]}': an attack's risk is measured only when the attacks "
            f"run; keep attacks on (a plan's evaluation: {{attacks: true}}) with a holdout"
        )
    defaults = {**DEFAULT_THRESHOLDS, **RARE_THRESHOLDS,
                **({**ATTACK_THRESHOLDS, **GATE_THRESHOLDS} if attacks else {})}
    merged = {**defaults, **user} if default_thresholds else user
    return parse_thresholds(merged)


def failures(checks: Sequence[ThresholdCheck]) -> tuple[list[str], float]:
    """The failed thresholds as text, each with its excess and value, e.g. ``"singling out
    ≤ 0.05 by 0.66 (0.71)"``, and the largest relative excess (1000 for a measure that could
    not be computed)."""
    out: list[str] = []
    worst = 0.0
    for c in checks:
        if c.passed is not False:
            continue
        t = c.threshold
        if c.value is None:
            out.append(f"{t.describe()} (not computed)")
            worst = max(worst, 1e3)
            continue
        excess = c.value - t.limit if t.bound == "max" else t.limit - c.value
        rel = excess / abs(t.limit) if t.limit else excess
        worst = max(worst, rel)
        out.append(f"{t.describe()} by {excess:.3g} ({c.value:.3g})")
    return out, worst


@dataclass(frozen=True)
class GateDecision(Summarized):
    """What the gate decided.

    Attributes
    ----------
    chosen : label of the configuration released; None when none passed.
    n_passed, n_configurations : how many passed, of how many measured.
    closest : when none passed, the configuration closest to passing (else None).
    utility_metric, risk_metric : the notion of most useful, and the tie-breaker.
    lines : one line per configuration: ``PASS`` or ``FAIL: <threshold> by <excess>``.
    """

    chosen: str | None
    n_passed: int
    n_configurations: int
    closest: str | None
    closest_failed: str
    utility_metric: str
    risk_metric: str
    chosen_values: Mapping[str, float]
    lines: tuple[str, ...]

    @property
    def passed(self) -> bool:
        return self.chosen is not None

    @property
    def verdict(self) -> str:
        """One line: the choice and what bound it, or why nothing passed."""
        if self.chosen is not None:
            u = METRICS[self.utility_metric].label
            r = METRICS[self.risk_metric].label
            uv = self.chosen_values.get(self.utility_metric, float("nan"))
            rv = self.chosen_values.get(self.risk_metric, float("nan"))
            return (f"chosen: {self.chosen} ({u} {uv:.3g}, {r} {rv:.3g}); the most useful of "
                    f"{self.n_passed} configuration(s) of {self.n_configurations} that pass "
                    f"every threshold")
        if self.closest is None:
            return "no configuration was measured"
        return (f"no configuration passes every threshold; the closest, {self.closest}, "
                f"failed {self.closest_failed}")

    def summary(self) -> str:
        return "\n".join([*self.lines, self.verdict])


def decide(table: pd.DataFrame, *, utility_metric: str = "pmse_ratio",
           risk_metric: str = "singling_out_risk") -> GateDecision:
    """Choose from a sweep's table (index: configuration label; columns ``passed``,
    ``n_failed``, ``failed``, ``worst_excess`` and the metrics), as the module doc says."""
    for m in (risk_metric, utility_metric):
        if m not in METRICS:
            raise ParameterError(f"gate metric '{m}': unknown; known metrics: {', '.join(METRICS)}")
    n = len(table)
    lines = tuple(
        f"{label}: " + ("PASS" if bool(row["passed"]) else f"FAIL: {row['failed']}")
        for label, row in table.iterrows()
    )
    nan = pd.Series(np.nan, index=table.index)
    util = table[utility_metric] if utility_metric in table else nan
    risk = table[risk_metric] if risk_metric in table else nan
    passing = table.index[table["passed"].astype(bool)] if n else table.index
    chosen = closest = None
    closest_failed = ""
    values: dict[str, float] = {}
    if len(passing):
        order = pd.DataFrame({"u": utility_loss(utility_metric, util[passing].astype(float)),
                              "r": risk[passing].astype(float),
                              "pos": np.arange(len(passing))}, index=passing)
        order = order.fillna({"u": np.inf, "r": np.inf})
        chosen = str(order.sort_values(["u", "r", "pos"], kind="stable").index[0])
        values = {k: float(v) for k, v in ((utility_metric, util[chosen]),
                                           (risk_metric, risk[chosen]))}
    elif n:
        score = table["n_failed"].astype(float) * 1e6 + table["worst_excess"].astype(
            float).fillna(1e5)
        closest = str(score.idxmin())
        closest_failed = str(table.loc[closest, "failed"])
    return GateDecision(chosen=chosen, n_passed=len(passing), n_configurations=n,
                        closest=closest, closest_failed=closest_failed,
                        utility_metric=utility_metric, risk_metric=risk_metric,
                        chosen_values=values, lines=lines)
