"""Run a plan end to end: data in, releases made and measured, one report out.

:func:`run_plan` reads the data (:func:`synthguard.data.read_table` or a bundled data
set), infers the schema with the plan's overrides, sets a holdout aside, makes every
release from the rest with its own random stream spawned from the plan's seed,
evaluates them together (:func:`synthguard.evaluate`) and writes to the output folder::

    <output>/releases/<name>/<name>_<i>.csv   the implicates of each release
    <output>/evaluation.csv                    the comparison table
    <output>/ledger.json, ledger.csv           the privacy ledger (when a DP release is made)
    <output>/plan.yaml                         the plan as run
    <output>/report.html                       the report

The ledger file persists across runs: running a plan with DP releases again spends
the budget again (a new noisy release is a new disclosure), and a run that would
overspend stops before drawing any noise.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from synthguard._display import Summarized
from synthguard._random import resolve_seed, spawn
from synthguard.data.datasets import load_dataset
from synthguard.data.implicates import release_kind
from synthguard.data.io import read_table, write_table
from synthguard.data.manifest import (
    LEDGER_RECORD,
    ReleaseManifest,
    check_release_target,
    replace_folder,
    write_manifest,
)
from synthguard.data.schema import Schema, infer_schema, validate_frame
from synthguard.errors import PlanError, SynthguardError, SynthguardWarning
from synthguard.pipeline.dp_info import dp_infos, dp_manifest_details
from synthguard.pipeline.dp_queries_release import is_queries, write_queries_release
from synthguard.pipeline.dp_tables_release import is_tables, write_dp_tables
from synthguard.pipeline.makers import describe_release, make_release, release_frames
from synthguard.pipeline.plan import DP_METHODS, Plan, load_plan
from synthguard.pipeline.sweep_plan import refuse_sweeps
from synthguard.report.evaluate import Evaluation, evaluate
from synthguard.report.evaluation.kinds import sample_details
from synthguard.report.html import write_report

__all__ = ["PipelineResult", "run_plan", "split_holdout"]

Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class PipelineResult(Summarized):
    """What a run wrote and measured.

    Attributes
    ----------
    plan : the plan run.
    evaluation : the :class:`~synthguard.report.Evaluation` of the releases.
    releases : name → the release object made.
    output : the output folder.
    report_path, table_path : the HTML report and the comparison table (CSV).
    release_paths : name → files written.
    ledger_path : the ledger's JSON file, or None when no DP release was made.
    seed : the seed that reproduces the run.
    timings : seconds per stage.
    """

    plan: Plan
    evaluation: Evaluation
    releases: dict[str, Any] = field(repr=False)
    output: Path
    report_path: Path
    table_path: Path
    release_paths: dict[str, list[Path]]
    ledger_path: Path | None
    seed: int | None
    timings: dict[str, float]

    @property
    def passed(self) -> bool:
        return self.evaluation.passed

    def summary(self) -> str:
        lines = [self.evaluation.summary(), f"report: {self.report_path}"]
        lines.append("time: " + ", ".join(f"{k} {v:.1f} s" for k, v in self.timings.items()))
        return "\n".join(lines)


def split_holdout(
    data: pd.DataFrame, fraction: float, rng: np.random.Generator
) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """Split ``data`` into (training, holdout) at random; both keep their original row order
    and get a fresh 0..n-1 index. ``fraction`` 0 returns (data, None)."""
    if fraction <= 0:
        return data.reset_index(drop=True), None
    n = len(data)
    k = round(fraction * n)
    if k < 1 or n - k < 2:
        raise PlanError(
            f"holdout: a share of {fraction:g} of {n} records leaves an empty part; "
            f"change the share or drop the holdout"
        )
    mask = np.zeros(n, dtype=bool)
    mask[rng.choice(n, size=k, replace=False)] = True
    return (data.loc[~mask].reset_index(drop=True), data.loc[mask].reset_index(drop=True))


def _read(plan: Plan) -> pd.DataFrame:
    if plan.dataset is not None:
        df = load_dataset(plan.dataset)
    else:
        assert plan.data_path is not None
        df = read_table(plan.data_path, **dict(plan.read_options))
    if plan.columns is not None:
        missing = [c for c in plan.columns if c not in df.columns]
        if missing:
            raise PlanError(f"{plan.where('data.columns')}: columns {', '.join(missing)} are "
                            f"not in the data")
        df = df[list(plan.columns)]
    return df


def _check_columns(plan: Plan, data: pd.DataFrame) -> None:
    problems = []
    for field_name, cols in (("evaluation.keys", plan.keys), ("evaluation.targets", plan.targets)):
        missing = [c for c in cols if c not in data.columns]
        if missing:
            problems.append(f"{plan.where(field_name)}: columns {', '.join(missing)} are not in "
                            f"the data (columns: {', '.join(map(str, data.columns))})")
    missing = [c for c in plan.schema if c not in data.columns]
    if missing:
        problems.append(f"{plan.where('data.schema')}: columns {', '.join(missing)} are not in "
                        f"the data")
    if problems:
        raise PlanError("the plan does not fit the data:\n" + "\n".join(f"  - {p}" for p in problems))


def _text_overrides(schema: Any) -> list[str]:
    out = []
    for name, spec in dict(schema).items():
        kind = spec if isinstance(spec, str) else (spec.get("kind") if isinstance(spec, dict) else None)
        if kind in ("categorical", "ordinal", "binary"):
            out.append(str(name))
    return out


def _ledger(plan: Plan, path: Path) -> Any:
    from synthguard.dp import PrivacyLedger

    assert plan.epsilon is not None
    return PrivacyLedger(epsilon=plan.epsilon, delta=plan.delta, path=path)


def _discard(fresh: list[Path]) -> None:
    """Remove the output folder and ledger file a run created before it failed with nothing
    charged, so a corrected plan starts clean (a budget is fixed only by a real charge)."""
    for p in reversed(fresh):
        if p.is_dir():
            if not any(p.iterdir()):
                p.rmdir()
        else:
            p.unlink(missing_ok=True)
            p.with_name(p.name + ".lock").unlink(missing_ok=True)


def _manifest_kind(method: str, release: Any) -> str:
    if method == "dp":  # a domain read from the data is NOT DP, and the manifest says so
        return "dp" if getattr(release, "dp", True) else "not-dp"
    kind = release_kind(release)
    if kind is not None:
        return kind
    return "protected" if method == "sdc" else "full"


def _write_release(stage: Path, name: str, release: Any, method: str, columns: list[str],
                   ledger: Any, ledger_path: Path | None, plan_seed: int | None,
                   holdout_share: float = 0.0) -> list[Path]:
    """Write one release folder (implicates and manifest) into the staging folder. The
    manifest records the plan's seed and holdout share, from which ``synthguard evaluate``
    cuts the full data file again (:mod:`synthguard.pipeline.split`)."""
    folder = stage / name
    if is_tables(release):  # DP tables: one CSV per table and release.json
        ref = None if ledger_path is None else "../../" + ledger_path.name
        return write_dp_tables(folder, release, ref)
    if is_queries(release):  # DP statistics: one CSV per query, report.html, release.json
        ref = None if ledger_path is None else "../../" + ledger_path.name
        files = write_queries_release(
            folder, release.results, release.session, title=f"DP statistics: {name}",
            provenance={"release": name, "noise": release.results[0].noise
                        if release.results else ""},
            raw_noisy=release.raw_noisy, ledger_ref=ref,
            extra={"ledger_record": "ledger_record.json"})
        release.ledger.write_record(folder / "ledger_record.json")  # travels with the folder
        return [folder / f for f in files]
    frames = release_frames(release)
    paths = [write_table(df, folder / f"{name}_{i}.csv") for i, df in enumerate(frames, start=1)]
    released = [str(c) for c in frames[0].columns]
    methods = getattr(release, "methods", None)
    seed = getattr(release, "seed", None)
    spent = None
    record = None
    if method == "dp" and ledger is not None:
        s = ledger.spent
        spent = {"epsilon": s.epsilon, "delta": s.delta, "rho": s.rho}
        # the release's own copy of its ledger: it travels with the folder (issue 31)
        if hasattr(ledger, "write_record"):
            ledger.write_record(folder / LEDGER_RECORD)
            record = LEDGER_RECORD
    write_manifest(folder, ReleaseManifest(
        kind=_manifest_kind(method, release), implicates=tuple(p.name for p in paths),
        seed=seed if isinstance(seed, int) and not isinstance(seed, bool) else None,
        methods={str(k): str(v) for k, v in methods.items()} if isinstance(methods, dict)
        else {},
        kept=tuple(str(c) for c in getattr(release, "kept", None) or ()),
        dropped=tuple(c for c in columns if c not in released), columns=tuple(released),
        ledger=None if ledger_path is None or method != "dp" else "../../" + ledger_path.name,
        spent=spent, details={"plan method": method, "plan seed": plan_seed,
                              "plan holdout": holdout_share,
                              **dp_manifest_details(release), **sample_details(release),
                              **_safeguard_details(release)},
        ledger_record=record,
    ))
    return paths


def _safeguard_details(release: Any) -> dict[str, Any]:
    """What a synthesizer's safeguards did, for the manifest (counts under the small-cell
    rule; :meth:`SafeguardReport.to_record <synthguard.synthesis.safeguards.SafeguardReport.to_record>`)."""
    sg: Any = getattr(release, "safeguards", None)
    return {"safeguards": sg.to_record()} if hasattr(sg, "to_record") else {}


_WRITTEN = ("releases", "ledger.json", "ledger.json.lock", "ledger.csv", "evaluation.csv",
            "plan.yaml", "sweep.csv", "frontier.png")


def _check_contained(plan: Plan) -> None:
    """Every file a run writes stays inside its output folder, also for a Plan built in Python,
    and also when a symbolic link already sits where the run writes (followed, it would lead
    out of the folder)."""
    from synthguard.pipeline.plan import _simple_name, contained

    bad = [s.name for s in plan.releases if not _simple_name(s.name)]
    if bad or not _simple_name(plan.report_file):
        raise PlanError("release names and report.file must be simple names (no '/', '..' or "
                        "absolute path) so that every output stays inside the output folder")
    names = [*_WRITTEN, plan.report_file, *(f"releases/{s.name}" for s in plan.releases)]
    links = contained(plan.output, names)
    if links:
        raise PlanError(f"output folder '{plan.output}': {', '.join(links)} is a symbolic link "
                        "that leads out of the folder; remove the link or choose another "
                        "output folder")


def run_plan(plan: Plan | str | os.PathLike[str], *, progress: Progress | None = None,
             force: bool = False) -> PipelineResult:
    """Run ``plan`` (a :class:`Plan` or the path of a plan file) and write its outputs.

    Each release is a release folder with a manifest (:mod:`synthguard.data.manifest`);
    ``<output>/releases`` is written as a whole through a staging folder, so it never mixes
    two runs' files.

    Parameters
    ----------
    plan : the plan.
    progress : optional ``progress(stage, done, total)`` callback, called after every step.
    force : replace the releases of an earlier run in the output folder (refused otherwise,
        before anything is made or charged).

    Returns
    -------
    PipelineResult

    Raises
    ------
    PlanError
        The plan does not fit the data, or a release cannot be made (the message names the
        release and its line in the plan).
    ParameterError
        The output folder holds an earlier run's releases and ``force`` is not set.
    DataError, SchemaError, FileFormatError
        The data cannot be read or used.
    """
    if not isinstance(plan, Plan):
        plan = load_plan(plan)
    refuse_sweeps(plan)  # a swept release is made by synthguard sweep (pipeline/sweep_run.py)
    timings: dict[str, float] = {}
    total = len(plan.releases) + 4
    step = 0

    def tick(stage: str) -> None:
        nonlocal step
        step += 1
        if progress is not None:
            progress(stage, step, total)

    out = plan.output
    _check_contained(plan)
    releases_dir = out / "releases"
    inputs = [plan.data_path] if plan.data_path is not None else []
    check_release_target(releases_dir, force=force, inputs=inputs, option="output")
    t = time.perf_counter()
    data = _read(plan)
    _check_columns(plan, data)
    validate_frame(data, text_overrides=_text_overrides(plan.schema))
    schema: Schema = infer_schema(data, plan.schema)
    rng, seed = resolve_seed(plan.seed)
    split_rng, eval_rng, *maker_rngs = spawn(rng, 2 + len(plan.releases))
    train, holdout = split_holdout(data, plan.holdout, split_rng)
    timings["read"] = time.perf_counter() - t
    tick("read data")

    # nothing is written until every release is made and measured, except the privacy
    # ledger, which must record each charge before its noise is drawn, and the dp releases,
    # whose budget is spent: a later failure must not lose them
    ledger = None
    ledger_path = None
    fresh: list[Path] = []  # what a failed run removes again while the ledger holds no charge
    if any(s.method in DP_METHODS for s in plan.releases):
        fresh = [p for p in (out, out / "ledger.json") if not p.exists()]
        out.mkdir(parents=True, exist_ok=True)
        ledger_path = out / "ledger.json"
        ledger = _ledger(plan, ledger_path)

    releases: dict[str, Any] = {}
    release_paths: dict[str, list[Path]] = {}
    described: dict[str, str] = {}
    columns = [str(c) for c in train.columns]
    stage: Path | None = None  # the next releases/ folder, moved into place when complete

    def write(name: str, method: str) -> None:
        nonlocal stage
        if stage is None:
            out.mkdir(parents=True, exist_ok=True)
            stage = Path(tempfile.mkdtemp(dir=out, prefix=".releases.new-"))
        release_paths[name] = [
            releases_dir / name / p.name for p in _write_release(
                stage, name, releases[name], method, columns, ledger, ledger_path, seed,
                plan.holdout)]

    def paid_or_discard() -> None:
        """After a failure: a paid DP release is kept (moved into releases/), else nothing."""
        if stage is None:
            return
        if any(spec.method in DP_METHODS and spec.name in release_paths
               for spec in plan.releases):
            replace_folder(stage, releases_dir)
        else:
            shutil.rmtree(stage, ignore_errors=True)

    t = time.perf_counter()
    try:
        result = _make_and_write(plan, train, holdout, schema, seed, eval_rng, maker_rngs,
                                 ledger, releases, described, write, tick, timings, t)
    except BaseException:
        paid_or_discard()
        if ledger is not None and not ledger.charges:
            _discard(fresh)
        raise
    if stage is not None:
        replace_folder(stage, releases_dir)
    evaluation, table_path, report_path = result
    return PipelineResult(
        plan=plan, evaluation=evaluation, releases=releases, output=out,
        report_path=report_path, table_path=table_path, release_paths=release_paths,
        ledger_path=ledger_path, seed=seed, timings=timings,
    )


def _make_and_write(plan: Plan, train: pd.DataFrame, holdout: pd.DataFrame | None,
                    schema: Schema, seed: int | None, eval_rng: np.random.Generator,
                    maker_rngs: list[np.random.Generator], ledger: Any,
                    releases: dict[str, Any], described: dict[str, str],
                    write: Callable[[str, str], None], tick: Callable[[str], None],
                    timings: dict[str, float], t: float
                    ) -> tuple[Evaluation, Path, Path]:
    out = plan.output
    for spec, mrng in zip(plan.releases, maker_rngs):
        t0 = time.perf_counter()
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", SynthguardWarning)
                release = make_release(spec, train, schema, plan, mrng, ledger, releases)
        except SynthguardError as e:
            raise PlanError(f"{plan.where('releases.' + spec.name)}: release '{spec.name}' "
                            f"could not be made: {e}") from e
        for w in caught:  # shown in the report's provenance, and passed on to the caller
            if issubclass(w.category, SynthguardWarning):
                described[f"warning ({spec.name})"] = f"{w.category.__name__}: {w.message}"
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        releases[spec.name] = release
        if spec.method in DP_METHODS:  # its budget is spent: written at once, kept on failure
            write(spec.name, spec.method)
        info = describe_release(release)
        described[f"release {spec.name}"] = (
            f"{spec.method}; " + ", ".join(f"{k} {v}" for k, v in info.items())
            + f"; made in {time.perf_counter() - t0:.1f} s"
        )
        tick(f"release '{spec.name}'")
    timings["releases"] = time.perf_counter() - t

    t = time.perf_counter()
    kinds = {}
    for spec in plan.releases:
        rel = releases[spec.name]
        if isinstance(rel, pd.DataFrame) or (isinstance(rel, list | tuple)):
            kinds[spec.name] = "full" if spec.method in ("dp", "synthesis") else "protected"
    evaluation = evaluate(  # tables are not records: the microdata releases only
        train, {k: v for k, v in releases.items() if not (is_tables(v) or is_queries(v))},
        keys=list(plan.keys),
        targets=list(plan.targets), holdout=holdout,
        formulas=list(plan.formulas) or None, thresholds=dict(plan.thresholds) or None,
        radius=plan.radius, schema=schema, random_state=eval_rng, kinds=kinds,
        max_distance_records=plan.max_distance_records,
        default_thresholds=plan.default_thresholds, attacks=plan.attacks,
        constraints=plan.constraints,
    )
    timings["evaluate"] = time.perf_counter() - t
    tick("evaluate")

    t = time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    for spec in plan.releases:
        if spec.method not in DP_METHODS:
            write(spec.name, spec.method)
    table_path = out / "evaluation.csv"
    write_table(evaluation.to_frame().reset_index(), table_path)
    if ledger is not None:
        write_table(ledger.to_frame().reset_index(), out / "ledger.csv")
    (out / "plan.yaml").write_text(plan.text, encoding="utf-8")
    provenance = {
        "data": str(plan.data_path) if plan.data_path else f"bundled data set '{plan.dataset}'",
        "plan": plan.source,
        "plan seed": str(seed),
        "records (training / holdout)": f"{len(train):,} / {0 if holdout is None else len(holdout):,}",
        **described,
        **{f"time: {k}": f"{v:.1f} s" for k, v in timings.items()},
    }
    report_path = write_report(
        evaluation, out / plan.report_file, title=plan.title, plan_text=plan.text,
        ledger=ledger, provenance=provenance, min_cell=plan.min_cell,
        dp_releases=[s.name for s in plan.releases if s.method in DP_METHODS],
        dp_info=dp_infos(releases),
    )
    timings["report"] = time.perf_counter() - t
    tick("report")
    return evaluation, table_path, report_path
