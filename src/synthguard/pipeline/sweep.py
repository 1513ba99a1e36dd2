"""A risk–utility sweep over a synthesizer's knobs, its frontier, and the gate that picks.

A steward who tries settings one at a time never sees the trade-off. :func:`sweep` makes one
release per configuration of a grid (the cartesian product of the values given per
:class:`~synthguard.Synthesizer` parameter), each fitted on the same training part, and
measures every one the same way against the same holdout (records no configuration saw):
pMSE ratio, CI overlap of the formulas, replicated uniques, repU, DiSCO and, with
``attacks=True`` (the default), anonymeter's univariate and multivariate singling-out risks
with the holdout as control (Giomi et al. 2023); :mod:`synthguard.pipeline.gate_measures`.
The result is a tidy table, one row per configuration.

**Frontier.** A configuration is on the Pareto frontier when no other is at least as good on
both axes (risk: ``risk_metric``, default the univariate singling-out risk; utility:
``utility_metric``, default the pMSE ratio, lower better) and better on one.
:func:`synthguard.report.frontier_section.frontier_figure` draws it.

**Gate.** :mod:`synthguard.pipeline.gate`: among the configurations that pass every threshold
(the evaluation's defaults, the gate's multivariate singling-out limit, and ``thresholds``),
the most useful is ``chosen``; when none passes, the verdict names the closest and what it
failed by how much.

**Fits reused.** Configurations that differ only in the draw's settings
(:data:`DRAW_SETTINGS`: ``m``, the near-unique guard ``rare_values``, ``extremes``,
``replicated_uniques``, ``uniques_on``, ``public_levels``) share one fit of the column models:
the second and later get a copy of the fitted synthesizer whose parameters are resolved again
(:func:`synthguard.synthesis.params.resolve_plan`, no model fitted), which draws value for
value what a fresh fit with the same seeds would (a test checks it). The others are fitted
anew. Each distinct fit gets its own seed (spawned from ``random_state`` in
the order the fits first appear in the grid), each configuration its own draw and measurement
seeds, so a configuration's row does not depend on which other configurations are run after
it.
"""

from __future__ import annotations

import copy
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
from synthguard.evaluation.metrics import METRICS, utility_loss
from synthguard.evaluation.thresholds import Threshold, pmse_ratio_words
from synthguard.pipeline.gate import GateDecision, decide, failures, gate_thresholds
from synthguard.pipeline.gate_measures import ATTACK_ONLY, SWEEP_METRICS, measure_release
from synthguard.synthesis import Synthesizer
from synthguard.synthesis.encoding import to_working
from synthguard.synthesis.params import resolve_plan

__all__ = [
    "DRAW_SETTINGS", "SweepResult", "expand_grid", "pareto_front", "sweep", "with_draw_settings",
]

Progress = Callable[[str, int, int], None]

DRAW_SETTINGS: frozenset[str] = frozenset({
    "m", "rare_values", "extremes", "replicated_uniques", "uniques_on", "public_levels"})
"""Synthesizer parameters that change only the draw (the release safeguards), not the fitted
column models: configurations differing in these alone share one fit."""


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


def _text(v: Any) -> str:
    if isinstance(v, Mapping):
        return "{" + ", ".join(f"{k}: {_text(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list | tuple):
        return "[" + ", ".join(_text(x) for x in v) + "]"
    return str(v)


def _label(params: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={_text(v)}" for k, v in params.items())


def _fit_key(params: Mapping[str, Any]) -> str:
    return repr(sorted((k, repr(v)) for k, v in params.items() if k not in DRAW_SETTINGS))


def with_draw_settings(fitted: Synthesizer, data: pd.DataFrame,
                       settings: Mapping[str, Any]) -> Synthesizer:
    """A copy of the fitted synthesizer ``fitted`` (fitted on ``data``) with other draw
    settings (:data:`DRAW_SETTINGS`), its column models shared: the parameters are resolved
    again and the safeguards' state rebuilt from ``data``, no model is fitted."""
    bad = [k for k in settings if k not in DRAW_SETTINGS]
    if bad:
        raise ParameterError(f"with_draw_settings: {', '.join(bad)} change the fit; refit")
    twin = copy.copy(fitted)
    for k, v in settings.items():
        setattr(twin, k, v)
    plan = resolve_plan(twin, data)
    arrays = {c: to_working(plan.data[c], plan.schema[c]) for c in plan.needed}
    twin._set_plan(plan, arrays)
    return twin


@dataclass(frozen=True, eq=False)
class SweepResult(Summarized):
    """The sweep's table, frontier and the gate's decision.

    Attributes
    ----------
    table : one row per configuration (index: its label ``"param=value, ..."``): the
        parameters, the measures (:data:`~synthguard.pipeline.gate_measures.SWEEP_METRICS`),
        ``passed``, ``failed`` (the thresholds it failed, with by how much), ``n_failed``,
        ``worst_excess``, ``pareto``, ``fit_reused``, ``seconds``.
    decision : the gate's :class:`~synthguard.pipeline.gate.GateDecision`.
    configurations : label -> the synthesizer parameters swept.
    releases : label -> the release made (:class:`~synthguard.synthesis.SyntheticData`).
    errors : label -> measures that could not be computed, and why.
    risk_metric, utility_metric : the frontier's axes.
    thresholds : every threshold of the gate.
    deferred : those on metrics a sweep does not measure (e.g. record-level identification
        risk): not checked per configuration; the chosen release's full evaluation checks
        them (:func:`~synthguard.pipeline.run_sweep` releases nothing that fails one).
    released : set by :func:`~synthguard.pipeline.run_sweep`: whether the chosen release passed
        its full evaluation and was written (None: not run through it).
    train, holdout : the training part and the holdout every configuration was measured with.
    seconds : wall time of the whole sweep.
    """

    table: pd.DataFrame
    decision: GateDecision
    configurations: Mapping[str, Mapping[str, Any]] = field(repr=False)
    releases: Mapping[str, Any] = field(repr=False)
    errors: Mapping[str, Mapping[str, str]] = field(repr=False)
    risk_metric: str = "singling_out_risk"
    utility_metric: str = "pmse_ratio"
    thresholds: tuple[Threshold, ...] = ()
    deferred: tuple[Threshold, ...] = ()
    released: bool | None = None
    train: pd.DataFrame | None = field(default=None, repr=False)
    holdout: pd.DataFrame | None = field(default=None, repr=False)
    seconds: float = 0.0

    @property
    def chosen(self) -> str | None:
        """Label of the configuration the gate released (None when none passed)."""
        return self.decision.chosen

    @property
    def passed(self) -> bool:
        return self.decision.passed

    @property
    def closest(self) -> str | None:
        """When none passed, the configuration closest to passing."""
        return self.decision.closest

    @property
    def verdict(self) -> str:
        """The gate's verdict, and the thresholds left to the full evaluation."""
        if not self.deferred or self.chosen is None:
            return self.decision.verdict
        return (self.decision.verdict + "; not measured by the sweep, left to the chosen "
                "release's full evaluation: " + "; ".join(t.describe() for t in self.deferred))

    @property
    def release(self) -> Any:
        """The chosen configuration's release (None when none passed)."""
        return None if self.chosen is None else self.releases[self.chosen]

    def to_frame(self) -> pd.DataFrame:
        return self.table

    def summary(self) -> str:
        shown = [c for c in (self.utility_metric, "ci_overlap", self.risk_metric,
                             "singling_out_multivariate_risk", "replicated_uniques", "disco")
                 if c in self.table.columns]
        shown = list(dict.fromkeys(shown))
        t = self.table[[*shown, "passed", "pareto"]].rename(
            columns=lambda c: METRICS[c].label if c in METRICS else c)
        return (t.to_string(float_format=lambda v: f"{v:.3g}") + "\n"
                + "\n".join([*self.decision.lines, *self.reading_lines(), self.verdict]))

    def reading_lines(self) -> list[str]:
        """How to read the choice: the chosen (or closest) configuration's pMSE ratio in words
        when it is far from 1, and that the most useful is the ratio closest to 1."""
        words = []
        label = self.chosen if self.chosen is not None else self.closest
        if label is not None and "pmse_ratio" in self.table.columns:
            w = pmse_ratio_words(float(self.table["pmse_ratio"].astype(float)[label]))
            if w:
                words.append(f"{label}: {w}")
        if self.utility_metric in METRICS and METRICS[self.utility_metric].goal == "target":
            words.append(f"most useful: the {METRICS[self.utility_metric].label} closest to "
                         f"{METRICS[self.utility_metric].target:g} (|log ratio|), not the lowest")
        return words


def _split(data: pd.DataFrame, holdout: float | pd.DataFrame | None,
           rng: np.random.Generator) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    if isinstance(holdout, pd.DataFrame):
        return data, holdout
    if holdout is None:
        return data, None
    if isinstance(holdout, bool) or not isinstance(holdout, int | float) or not 0 < holdout < 1:
        raise ParameterError("parameter 'holdout': expected a share in (0, 1), a DataFrame of "
                             "records set aside, or None")
    perm = rng.permutation(len(data))
    cut = round(len(data) * (1 - float(holdout)))
    if cut <= 0 or cut >= len(data):
        raise DataError("holdout: the share leaves an empty part; change it")
    return (data.iloc[np.sort(perm[:cut])].reset_index(drop=True),
            data.iloc[np.sort(perm[cut:])].reset_index(drop=True))


def sweep(
    data: pd.DataFrame,
    grid: Mapping[str, Sequence[Any]],
    *,
    keys: Sequence[str],
    targets: Sequence[str],
    holdout: float | pd.DataFrame | None = 0.2,
    formulas: Sequence[str] | Mapping[str, str] | None = None,
    thresholds: Mapping[str, Any] | None = None,
    default_thresholds: bool = True,
    attacks: bool = True,
    n_attacks: int = 500,
    base: Mapping[str, Any] | None = None,
    risk_metric: str = "singling_out_risk",
    utility_metric: str = "pmse_ratio",
    random_state: RandomState = None,
    progress: Progress | None = None,
) -> SweepResult:
    """Make and measure one release per configuration of ``grid``; the gate picks the most
    useful that passes (see the module docstring).

    Parameters
    ----------
    data : the confidential data. With ``holdout`` a share, a random part of that size is set
        aside as the holdout and the rest trains every configuration; with a DataFrame,
        ``data`` is the training part and ``holdout`` the records set aside before.
    grid : synthesizer parameter -> values to try, e.g. ``{"rare_values": [0, 5],
        "method_params": [None, {"income": {"min_samples_leaf": 20}}]}``.
    keys, targets : the intruder's key variables and the sensitive targets (repU, DiSCO).
    formulas : analysts' formulas for the CI overlap, or ``{formula: family}``.
    thresholds, default_thresholds : the gate's rules (:func:`~synthguard.pipeline.gate.
        gate_thresholds`); a rule on a metric a sweep does not measure is left to the chosen
        release's full evaluation (``SweepResult.deferred``).
    attacks, n_attacks : run the singling-out attacks (needs a holdout), queries per attack.
    base : synthesizer parameters shared by every configuration (``schema``, ``drop``...).
    risk_metric, utility_metric : the frontier's axes and the gate's notion of most useful.
    random_state : seed of the split, of every fit, draw and measurement.
    progress : ``progress(stage, done, total)`` after each configuration.

    Returns
    -------
    SweepResult

    Raises
    ------
    ParameterError
        An empty grid, a parameter both in ``base`` and swept, a value the synthesizer refuses,
        an unknown metric.
    """
    t_all = time.perf_counter()
    configs = expand_grid(grid)
    for m in (risk_metric, utility_metric):
        if m not in SWEEP_METRICS:
            raise ParameterError(f"sweep metric '{m}': not measured by a sweep; use one of "
                                 f"{', '.join(SWEEP_METRICS)}")
    if not isinstance(data, pd.DataFrame):
        raise DataError("data: expected a pandas DataFrame of the confidential data")
    parsed = gate_thresholds(thresholds, attacks=attacks, default_thresholds=default_thresholds)
    measurable = set(SWEEP_METRICS) | set(ATTACK_ONLY)
    measured = tuple(t for t in parsed if t.metric in measurable)
    deferred = tuple(t for t in parsed if t.metric not in measurable)
    named = set(thresholds or {})
    defaulted = (frozenset(t.metric for t in parsed if t.metric not in named)
                 if default_thresholds else frozenset())
    if attacks and holdout is None:
        raise ParameterError("parameter 'holdout': the attacks need records the synthesizer "
                             "never saw; give a share or a DataFrame, or pass attacks=False")
    base_kw = dict(base or {})
    clash = [k for k in base_kw if k in grid]
    if clash:
        raise ParameterError(f"parameters {', '.join(clash)} are both in 'base' and swept")
    if "random_state" in grid or "random_state" in base_kw:
        raise ParameterError("parameter 'random_state' is set by the sweep's random_state; "
                             "remove it from the grid and from 'base'")
    rng, _ = resolve_seed(random_state)
    split_rng, fits_rng, *cfg_rngs = spawn(rng, 2 + len(configs))
    train, hold = _split(data, holdout, split_rng)
    fit_keys = list(dict.fromkeys(_fit_key(p) for p in configs))
    fit_seeds = dict(zip(fit_keys, spawn(fits_rng, len(fit_keys))))
    fitted: dict[str, Synthesizer] = {}
    rows: list[dict[str, Any]] = []
    releases: dict[str, Any] = {}
    errors: dict[str, dict[str, str]] = {}
    configurations: dict[str, dict[str, Any]] = {}
    for i, (params, crng) in enumerate(zip(configs, cfg_rngs)):
        label = _label(params)
        draw_rng, measure_rng = spawn(crng, 2)
        t0 = time.perf_counter()
        key = _fit_key(params)
        reused = key in fitted
        try:
            if reused:
                synth = with_draw_settings(
                    fitted[key], train, {k: v for k, v in params.items() if k in DRAW_SETTINGS})
            else:
                synth = Synthesizer(**base_kw, **params, random_state=fit_seeds[key]).fit(train)
                fitted[key] = synth
            release = synth.sample(random_state=draw_rng, diagnostics=False)
        except TypeError as e:
            raise ParameterError(f"sweep configuration {label}: not a synthesizer parameter "
                                 f"({e})") from None
        except ParameterError as e:
            raise ParameterError(f"sweep configuration {label}: {e}") from None
        metrics, checks, errs = measure_release(
            train, release, keys=keys, targets=targets, holdout=hold, thresholds=measured,
            formulas=formulas, attacks=attacks, n_attacks=n_attacks,
            kind=getattr(release, "kind", "full"), random_state=measure_rng,
            defaulted=defaulted)
        failed, worst = failures(checks)
        row: dict[str, Any] = {"configuration": label,
                               **{k: _text(v) if isinstance(v, Mapping | list | tuple) else v
                                  for k, v in params.items()}}
        row.update({k: (np.nan if v is None else v) for k, v in metrics.items()})
        row.update({"passed": all(c.passed is not False for c in checks),
                    "n_failed": len(failed), "failed": "; ".join(failed),
                    "worst_excess": worst if failed else np.nan,
                    "fit_reused": reused, "seconds": time.perf_counter() - t0})
        rows.append(row)
        releases[label] = release
        errors[label] = errs
        configurations[label] = dict(params)
        if progress is not None:
            progress(label, i + 1, len(configs))
    table = pd.DataFrame(rows).set_index("configuration")
    table = table.dropna(axis=1, how="all")
    nan = pd.Series(np.nan, index=table.index)
    risk = table[risk_metric] if risk_metric in table else nan
    util = table[utility_metric] if utility_metric in table else nan
    table["pareto"] = pareto_front(risk.to_numpy(float),
                                   utility_loss(utility_metric, util.to_numpy(float)))
    decision = decide(table, utility_metric=utility_metric, risk_metric=risk_metric)
    return SweepResult(table=table, decision=decision, configurations=configurations,
                       releases=releases, errors=errors, risk_metric=risk_metric,
                       utility_metric=utility_metric, thresholds=parsed, deferred=deferred,
                       train=train, holdout=hold, seconds=time.perf_counter() - t_all)
