"""A risk–utility sweep over a synthesizer's knobs, its frontier, and a gate that picks.

A steward who tries settings one at a time never sees the trade-off. :func:`sweep` makes one
release per configuration of a grid (the cartesian product of the values given per
:class:`~synthguard.Synthesizer` parameter), each fitted on the same training part, and
measures every one with the same :func:`synthguard.report.evaluate` against the same holdout
(records no configuration saw): pMSE ratio, CI overlap of the formulas, repU / DiSCO and, with
``attacks=True`` (the default), anonymeter's singling-out, linkability and inference risks with
the holdout as control (Giomi et al. 2023). The result is a tidy table, one row per
configuration.

**Frontier.** A configuration is on the Pareto frontier when no other is at least as good on
both axes (risk: ``risk_metric``, default the univariate singling-out risk; utility:
``utility_metric``, default the pMSE ratio, lower better) and better on one.
:func:`frontier_figure` draws risk against utility, one point per configuration, the frontier
joined, the thresholds of both axes drawn.

**Gate.** Among the configurations that pass every threshold (the evaluation's defaults plus
``thresholds``), the most useful one (best ``utility_metric``, ties to the lower risk, then to
the grid's order) is ``chosen``. When none passes, ``chosen`` is None and :attr:`SweepResult.
verdict` names, for the configuration closest to passing (fewest failed thresholds, then the
smallest relative excess), each threshold it failed and by how much.

Configurations run one after another, each from its own seed (spawned from ``random_state``),
so the table does not depend on the order in which they are run.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from synthguard._display import Summarized
from synthguard._random import RandomState, resolve_seed, spawn
from synthguard.errors import DataError, ParameterError
from synthguard.report.evaluate import evaluate
from synthguard.report.metrics import METRICS
from synthguard.synthesis import Synthesizer

__all__ = ["SweepResult", "expand_grid", "frontier_figure", "pareto_front", "sweep"]

Progress = Callable[[str, int, int], None]


def expand_grid(grid: Mapping[str, Sequence[Any]]) -> list[dict[str, Any]]:
    """Every combination of the values listed per parameter, in the grid's order (the last
    parameter varies fastest). A value that is not a list is one value."""
    if not isinstance(grid, Mapping) or not grid:
        raise ParameterError(
            "parameter 'grid': expected a mapping of synthesizer parameter to the values to "
            "try, e.g. {'rare_values': [0, 5], 'extremes': [0, 5]}"
        )
    names = list(grid)
    values = [list(v) if isinstance(v, list | tuple) else [v] for v in grid.values()]
    empty = [n for n, v in zip(names, values) if not v]
    if empty:
        raise ParameterError(f"parameter 'grid': no value to try for {', '.join(empty)}")
    return [dict(zip(names, combo)) for combo in itertools.product(*values)]


def pareto_front(risk: Sequence[float] | np.ndarray, utility: Sequence[float] | np.ndarray) -> np.ndarray:
    """Mask of the points no other point dominates (lower risk and lower utility loss both
    better; a point with a missing value is never on the front)."""
    r = np.asarray(risk, dtype=float)
    u = np.asarray(utility, dtype=float)
    ok = np.isfinite(r) & np.isfinite(u)
    out = np.zeros(len(r), dtype=bool)
    for i in np.flatnonzero(ok):
        dominated = ok & (r <= r[i]) & (u <= u[i]) & ((r < r[i]) | (u < u[i]))
        out[i] = not dominated.any()
    return out


def _label(params: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in params.items())


@dataclass(frozen=True, eq=False)
class SweepResult(Summarized):
    """The sweep's table, frontier and choice.

    Attributes
    ----------
    table : one row per configuration (index: its label ``"param=value, ..."``): the
        parameters, every headline metric computed (:data:`~synthguard.report.metrics.METRICS`),
        ``passed``, ``failed`` (the thresholds it failed, with by how much), ``pareto``,
        ``seconds``.
    chosen : label of the most useful configuration that passes every threshold; None when
        none passes.
    releases : label -> the release made (:class:`~synthguard.synthesis.SyntheticData`).
    evaluations : label -> its :class:`~synthguard.report.evaluate.Evaluation`.
    risk_metric, utility_metric : the frontier's axes.
    thresholds : the thresholds applied (the evaluation's, as parsed).
    """

    table: pd.DataFrame
    chosen: str | None
    releases: Mapping[str, Any] = field(repr=False)
    evaluations: Mapping[str, Any] = field(repr=False)
    risk_metric: str = "singling_out_risk"
    utility_metric: str = "pmse_ratio"
    thresholds: tuple[Any, ...] = ()

    @property
    def passed(self) -> bool:
        return self.chosen is not None

    @property
    def release(self) -> Any:
        """The chosen configuration's release (None when none passed)."""
        return None if self.chosen is None else self.releases[self.chosen]

    def to_frame(self) -> pd.DataFrame:
        return self.table

    @property
    def closest(self) -> str | None:
        """The failing configuration closest to passing (fewest failures, then the smallest
        relative excess); None when one passed or none was measured."""
        if self.chosen is not None or self.table.empty:
            return None
        score = self.table["n_failed"] * 1e6 + self.table["worst_excess"].fillna(1e5)
        return str(score.idxmin())

    @property
    def verdict(self) -> str:
        """One line: the choice and what bound it, or why nothing passed."""
        if self.chosen is not None:
            row = self.table.loc[self.chosen]
            u = METRICS[self.utility_metric].label
            r = METRICS[self.risk_metric].label
            n_pass = int(self.table["passed"].sum())
            return (f"chosen: {self.chosen} ({u} {row[self.utility_metric]:.3g}, {r} "
                    f"{row.get(self.risk_metric, float('nan')):.3g}); the most useful of "
                    f"{n_pass} configuration(s) of {len(self.table)} that pass every threshold")
        near = self.closest
        if near is None:
            return "no configuration was measured"
        return (f"no configuration passes every threshold; the closest, {near}, failed "
                f"{self.table.loc[near, 'failed']!s}")

    def summary(self) -> str:
        shown = [c for c in (self.utility_metric, "ci_overlap", self.risk_metric,
                             "singling_out_multivariate_risk", "replicated_uniques", "disco")
                 if c in self.table.columns]
        t = self.table[[*shown, "passed", "pareto"]].rename(
            columns=lambda c: METRICS[c].label if c in METRICS else c)
        return t.to_string(float_format=lambda v: f"{v:.3g}") + "\n" + self.verdict


def _failures(checks: Sequence[Any]) -> tuple[list[str], float]:
    """Failed thresholds as text with the excess, and the largest relative excess."""
    out, worst = [], 0.0
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


def sweep(
    data: pd.DataFrame,
    grid: Mapping[str, Sequence[Any]],
    *,
    keys: Sequence[str],
    targets: Sequence[str],
    holdout: float | pd.DataFrame = 0.2,
    formulas: Sequence[str] | None = None,
    thresholds: Mapping[str, Any] | None = None,
    attacks: bool = True,
    n_attacks: int = 500,
    base: Mapping[str, Any] | None = None,
    risk_metric: str = "singling_out_risk",
    utility_metric: str = "pmse_ratio",
    random_state: RandomState = None,
    progress: Progress | None = None,
) -> SweepResult:
    """Make and measure one release per configuration of ``grid``; pick the most useful that
    passes (see the module docstring).

    Parameters
    ----------
    data : the confidential data. With ``holdout`` a share, a random part of that size is set
        aside as the holdout and the rest trains every configuration; with a DataFrame,
        ``data`` is the training part and ``holdout`` the records set aside before.
    grid : synthesizer parameter -> values to try, e.g. ``{"rare_values": [0, 5],
        "extremes": [0, 5], "method_params": [None, {"income": {"min_leaf": 20}}]}``.
    keys, targets, formulas, thresholds, attacks, n_attacks : as in
        :func:`synthguard.report.evaluate` (the attacks use the holdout as control).
    base : synthesizer parameters shared by every configuration (``schema``, ``drop``...).
    risk_metric, utility_metric : the frontier's axes and the gate's notion of most useful
        (``utility_metric``: best by its goal).
    random_state : seed of the split, of each configuration's synthesis and evaluation.
    progress : ``progress(stage, done, total)`` after each configuration.

    Returns
    -------
    SweepResult
    """
    configs = expand_grid(grid)
    for m in (risk_metric, utility_metric):
        if m not in METRICS:
            raise ParameterError(f"sweep metric '{m}': unknown; known metrics: {', '.join(METRICS)}")
    if not isinstance(data, pd.DataFrame):
        raise DataError("data: expected a pandas DataFrame of the confidential data")
    rng, _ = resolve_seed(random_state)
    split_rng, *cfg_rngs = spawn(rng, 1 + len(configs))
    if isinstance(holdout, pd.DataFrame):
        train, hold = data, holdout
    else:
        if isinstance(holdout, bool) or not isinstance(holdout, int | float) or not 0 < holdout < 1:
            raise ParameterError("parameter 'holdout': expected a share in (0, 1) or a DataFrame")
        perm = split_rng.permutation(len(data))
        cut = round(len(data) * (1 - float(holdout)))
        if cut <= 0 or cut >= len(data):
            raise DataError("holdout: the share leaves an empty part; change it")
        train = data.iloc[np.sort(perm[:cut])]
        hold = data.iloc[np.sort(perm[cut:])]
    base_kw = dict(base or {})
    clash = [k for k in base_kw if k in grid]
    if clash:
        raise ParameterError(f"parameters {', '.join(clash)} are both in 'base' and swept")
    rows, releases, evaluations = [], {}, {}
    thresholds_used: tuple[Any, ...] = ()
    for i, (params, crng) in enumerate(zip(configs, cfg_rngs)):
        label = _label(params)
        syn_rng, ev_rng = spawn(crng, 2)
        t0 = time.perf_counter()
        try:
            release = Synthesizer(**base_kw, **params, random_state=syn_rng).fit(train).sample(
                diagnostics=False)
        except TypeError as e:
            raise ParameterError(f"sweep configuration {label}: not a synthesizer parameter "
                                 f"({e})") from None
        ev = evaluate(train, {label: release}, keys=list(keys), targets=list(targets),
                      holdout=hold, formulas=formulas, thresholds=thresholds,
                      attacks=attacks, n_attacks=n_attacks, random_state=ev_rng)
        r = ev[label]
        thresholds_used = ev.thresholds
        failed, worst = _failures(r.checks)
        row: dict[str, Any] = {"configuration": label, **{k: repr(v) if isinstance(
            v, Mapping | list) else v for k, v in params.items()}}
        row.update({k: (np.nan if v is None else v) for k, v in r.metrics.items()})
        row.update({"passed": r.passed, "n_failed": len(failed),
                    "failed": "; ".join(failed), "worst_excess": worst if failed else np.nan,
                    "seconds": time.perf_counter() - t0})
        rows.append(row)
        releases[label] = release
        evaluations[label] = ev
        if progress is not None:
            progress(f"configuration {label}", i + 1, len(configs))
    table = pd.DataFrame(rows).set_index("configuration")
    table = table.dropna(axis=1, how="all")
    risk = table[risk_metric] if risk_metric in table else pd.Series(np.nan, index=table.index)
    util = table[utility_metric] if utility_metric in table else pd.Series(np.nan,
                                                                           index=table.index)
    sign = 1.0 if METRICS[utility_metric].goal == "min" else -1.0
    table["pareto"] = pareto_front(risk.to_numpy(), (sign * util).to_numpy())
    passing = table[table["passed"]]
    chosen = None
    if not passing.empty:
        order = pd.DataFrame({"u": sign * util[passing.index], "r": risk[passing.index],
                              "pos": np.arange(len(passing))}, index=passing.index)
        order = order.fillna({"u": np.inf, "r": np.inf})
        chosen = str(order.sort_values(["u", "r", "pos"]).index[0])
    return SweepResult(table=table, chosen=chosen, releases=releases, evaluations=evaluations,
                       risk_metric=risk_metric, utility_metric=utility_metric,
                       thresholds=thresholds_used)


def frontier_figure(result: SweepResult) -> Any:
    """Risk against utility, one point per configuration; the Pareto frontier joined, the
    chosen configuration ringed, the thresholds on both axes drawn (matplotlib Figure, Agg)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    t = result.table
    rm, um = result.risk_metric, result.utility_metric
    fig = Figure(figsize=(6.0, 4.0))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    if rm not in t or um not in t:
        ax.text(0.5, 0.5, "not measured", ha="center", va="center")
        return fig
    x, y = t[um].to_numpy(float), t[rm].to_numpy(float)
    colors = np.where(t["passed"].to_numpy(bool), "#1b9e77", "#d95f02")
    ax.scatter(x, y, c=list(colors), zorder=3)
    front = t["pareto"].to_numpy(bool)
    if front.any():
        order = np.argsort(x[front])
        ax.plot(x[front][order], y[front][order], color="#555555", lw=1, zorder=2,
                label="Pareto frontier")
    for lab, xi, yi in zip(t.index, x, y):
        if np.isfinite(xi) and np.isfinite(yi):
            ax.annotate(str(lab), (xi, yi), fontsize=6, xytext=(3, 3), textcoords="offset points")
    if result.chosen is not None:
        i = list(t.index).index(result.chosen)
        ax.scatter([x[i]], [y[i]], s=180, facecolors="none", edgecolors="black", zorder=4,
                   label="chosen")
    for th in result.thresholds:
        if th.metric == rm:
            ax.axhline(th.limit, color="#d95f02", ls="--", lw=1)
        elif th.metric == um:
            ax.axvline(th.limit, color="#d95f02", ls="--", lw=1)
    ax.set_xlabel(METRICS[um].label + (" (lower is better)" if METRICS[um].goal == "min"
                                       else " (higher is better)"))
    ax.set_ylabel(METRICS[rm].label + " (lower is safer)")
    ax.set_title("Risk–utility frontier (green: passes every threshold)", fontsize=9)
    if front.any() or result.chosen is not None:
        ax.legend(fontsize=7)
    fig.tight_layout()
    return fig
