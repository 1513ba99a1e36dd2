"""``synthguard sweep plan.yaml``: sweep a plan's release, let the gate pick, release the choice.

A ``synthesis`` release of a plan may declare ``sweep:``, the grid of synthesizer settings to
try (each a list of values; the other keys of the release are shared by every
configuration)::

    holdout: 0.2
    releases:
      synthetic:
        method: synthesis
        sweep:
          rare_values: [0, 5, 10]
          extremes: [0, 5]
          method_params: [null, {income: {min_samples_leaf: 20}}]
    evaluation:
      keys: [age, sex, race, marital_status]
      targets: [income]
      attacks: true

:func:`run_sweep` reads the data and sets the holdout aside as ``synthguard run`` does, makes
and measures every configuration (:func:`synthguard.pipeline.sweep`), and the gate
(:mod:`synthguard.pipeline.gate`) picks the most useful configuration that passes every
threshold. The chosen release then gets the full evaluation of ``synthguard run`` with the
same thresholds; it is written only when that passes too::

    <output>/releases/<name>/        the chosen release folder (manifest: the configuration)
    <output>/sweep.csv               one row per configuration: settings, measures, verdict
    <output>/frontier.png            risk against utility, chosen point ringed
    <output>/report.html             the report, with the section "Risk–utility frontier"
    <output>/plan.yaml               the plan as run

When no configuration passes, nothing is released: the table, the figure and a report of the
configuration closest to passing are written, and the verdict names what it failed by how
much. ``synthguard run`` refuses a plan with a ``sweep:`` (it would make one release per
setting without choosing).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from synthguard._display import Summarized
from synthguard._random import resolve_seed, spawn
from synthguard.data.io import write_table
from synthguard.data.manifest import (
    check_release_target,
    read_manifest,
    replace_folder,
    write_manifest,
)
from synthguard.data.schema import infer_schema, validate_frame
from synthguard.errors import PlanError, SynthguardError
from synthguard.evaluation import Evaluation, evaluate
from synthguard.pipeline.pipeline import (
    _check_columns,
    _check_contained,
    _read,
    _text_overrides,
    _write_release,
    split_holdout,
)
from synthguard.pipeline.plan import Plan, ReleaseSpec, load_plan
from synthguard.pipeline.sweep import sweep
from synthguard.report.frontier_section import frontier_figure
from synthguard.report.html import write_report

__all__ = ["SweepRun", "run_sweep"]

Progress = Callable[[str, int, int], None]

def _swept(plan: Plan) -> ReleaseSpec:
    swept = [s for s in plan.releases if "sweep" in s.params]
    if len(swept) != 1:
        raise PlanError(
            f"{plan.source}: `synthguard sweep` needs exactly one release with a 'sweep:' "
            f"(found {len(swept)}); add one, e.g. sweep: {{rare_values: [0, 5]}}"
        )
    spec = swept[0]
    if spec.method != "synthesis":
        raise PlanError(f"{plan.where('releases.' + spec.name + '.sweep')}: only a synthesis "
                        f"release may be swept")
    if "start" in spec.params:
        raise PlanError(f"{plan.where('releases.' + spec.name + '.start')}: a swept release "
                        f"cannot start from another release; remove 'start'")
    if plan.attacks and plan.holdout <= 0:
        raise PlanError(f"{plan.where('holdout')}: the attacks of a sweep need a holdout (records "
                        f"no configuration sees); set holdout: 0.2, or evaluation.attacks: false")
    return spec


@dataclass(frozen=True)
class SweepRun(Summarized):
    """What ``synthguard sweep`` measured and wrote.

    Attributes
    ----------
    sweep : the :class:`~synthguard.pipeline.SweepResult` (table, decision).
    evaluation : the full evaluation of the chosen configuration (of the closest when none
        passed).
    released : True when a configuration passed the gate and its full evaluation, and was
        written.
    release_path : its release folder (None when nothing was released).
    output, report_path, table_path, figure_path : what was written.
    timings : seconds per stage.
    """

    sweep: Any
    evaluation: Evaluation
    released: bool
    release_path: Path | None
    output: Path
    report_path: Path
    table_path: Path
    figure_path: Path
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return self.released

    @property
    def verdict(self) -> str:
        """The gate's verdict, and whether the release was written."""
        s = self.sweep
        if not s.passed:
            return s.verdict + "; nothing released"
        ev = self.evaluation.releases[s.chosen]
        if not self.released:
            failed = "; ".join(c.describe() for c in ev.checks if c.passed is False)
            return (f"{s.verdict}; but its full evaluation fails ({failed}); nothing released")
        text = f"{s.verdict}; released to {self.release_path}"
        if ev.not_judged:  # a pass says nothing about these
            text += "; its full evaluation did not judge: " + "; ".join(ev.not_judged)
        return text

    def summary(self) -> str:
        return "\n".join([self.sweep.summary(), self.verdict, f"report: {self.report_path}"])


def run_sweep(plan: Plan | str | os.PathLike[str], *, progress: Progress | None = None,
              force: bool = False, n_attacks: int = 500) -> SweepRun:
    """Run the sweep a plan declares (module doc) and write its outputs.

    Raises
    ------
    PlanError
        No swept release (or more than one), a sweep that cannot run (attacks without a
        holdout), a plan that does not fit the data.
    ParameterError
        The output folder holds an earlier run's releases and ``force`` is not set; a
        configuration the synthesizer refuses.
    """
    if not isinstance(plan, Plan):
        plan = load_plan(plan)
    spec = _swept(plan)
    _check_contained(plan)
    out = plan.output
    releases_dir = out / "releases"
    inputs = [plan.data_path] if plan.data_path is not None else []
    check_release_target(releases_dir, force=force, inputs=inputs, option="output")
    timings: dict[str, float] = {}
    t = time.perf_counter()
    data = _read(plan)
    _check_columns(plan, data)
    validate_frame(data, text_overrides=_text_overrides(plan.schema))
    schema = infer_schema(data, plan.schema)
    rng, seed = resolve_seed(plan.seed)
    split_rng, sweep_rng, eval_rng = spawn(rng, 3)
    train, holdout = split_holdout(data, plan.holdout, split_rng)
    timings["read"] = time.perf_counter() - t

    t = time.perf_counter()
    grid = dict(spec.params["sweep"])
    base = {k: v for k, v in spec.params.items() if k != "sweep"}
    attacks = bool(plan.attacks)
    try:
        result = sweep(
            train, grid, keys=list(plan.keys), targets=list(plan.targets), holdout=holdout,
            formulas=list(plan.formulas) or None, thresholds=dict(plan.thresholds) or None,
            default_thresholds=plan.default_thresholds, attacks=attacks, n_attacks=n_attacks,
            # the plan's own overrides, not the schema inferred from the data: a whole Schema
            # lists every level the data hold, and the synthesizer takes listed levels as
            # declared public, releasing a one-record level (issue 31, N3)
            base={**base, "schema": dict(plan.schema)}, random_state=sweep_rng,
            progress=progress,
            risk_metric="singling_out_risk" if attacks else "disco",
        )
    except PlanError:
        raise
    except SynthguardError as e:
        raise PlanError(f"{plan.where('releases.' + spec.name + '.sweep')}: {e}") from e
    timings["sweep"] = time.perf_counter() - t

    # the full evaluation of the chosen configuration (of the closest when none passed), with
    # exactly the thresholds the gate applied
    t = time.perf_counter()
    shown = result.chosen or result.closest
    assert shown is not None
    rules: dict[str, Any] = {}
    for th in result.thresholds:
        rules.setdefault(th.metric, {})[th.bound] = th.limit
    evaluation = evaluate(
        train, {shown: result.releases[shown]}, keys=list(plan.keys),
        targets=list(plan.targets), holdout=holdout, formulas=list(plan.formulas) or None,
        thresholds=rules or None, default_thresholds=False, radius=plan.radius, schema=schema,
        random_state=eval_rng, max_distance_records=plan.max_distance_records,
        attacks=attacks, n_attacks=n_attacks, constraints=plan.constraints,
    )
    timings["evaluate"] = time.perf_counter() - t

    t = time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    released = result.passed and evaluation.passed
    release_path = None
    if released:
        stage = Path(tempfile.mkdtemp(dir=out, prefix=".releases.new-"))
        try:
            _write_release(stage, spec.name, result.release, "synthesis",
                           [str(c) for c in train.columns], None, None, seed, plan.holdout)
            _note_configuration(stage / spec.name, result.chosen)
        except BaseException:
            shutil.rmtree(stage, ignore_errors=True)
            raise
        replace_folder(stage, releases_dir)
        release_path = releases_dir / spec.name
    table_path = out / "sweep.csv"
    write_table(result.table.reset_index(), table_path)
    figure_path = out / "frontier.png"
    frontier_figure(result).savefig(figure_path, format="png", metadata={"Software": None})
    (out / "plan.yaml").write_text(plan.text, encoding="utf-8")
    provenance = {
        "data": str(plan.data_path) if plan.data_path else f"bundled data set '{plan.dataset}'",
        "plan": plan.source,
        "plan seed": str(seed),
        "records (training / holdout)": f"{len(train):,} / "
                                        f"{0 if holdout is None else len(holdout):,}",
        "swept release": spec.name,
        "configurations": str(len(result.table)),
        "released": str(release_path) if released else "nothing (no configuration passed)"
        if not result.passed else "nothing (the chosen configuration failed its full evaluation)",
        **{f"time: {k}": f"{v:.1f} s" for k, v in timings.items()},
    }
    report_path = write_report(evaluation, out / plan.report_file, title=plan.title,
                               plan_text=plan.text, provenance=provenance,
                               min_cell=plan.min_cell,
                               frontier=replace(result, released=released))
    timings["write"] = time.perf_counter() - t
    return SweepRun(sweep=result, evaluation=evaluation, released=released,
                    release_path=release_path, output=out, report_path=report_path,
                    table_path=table_path, figure_path=figure_path, timings=timings)


def _note_configuration(folder: Path, label: str | None) -> None:
    """Record in the release's manifest which configuration of the sweep it is."""
    m = read_manifest(folder)
    if m is None:  # pragma: no cover - _write_release always writes one
        return
    details = {**dict(m.details or {}), "sweep configuration": label}
    write_manifest(folder, replace(m, details=details))
