"""A plan run on Dask: :func:`synthguard.pipeline.run_plan` with ``dask=``.

The plan's ``data.path`` may be a Parquet folder or a glob of CSV files. Each release is made
from the Dask frame and written by the workers as a release folder (implicates as Parquet
folders, a manifest) under ``<output>/releases/``; the evaluation and the HTML report follow,
as without Dask (the report to ``<output>/<report file>``, the table to
``<output>/evaluation.csv``). What runs on Dask:

* ``method: synthesis`` (strata on workers, or models fitted on a seeded sample and drawn per
  partition);
* ``method: sdc`` with the steps ``topcode`` / ``bottomcode`` (``at`` or ``percentile``),
  ``add_noise``, ``pram`` and ``swap`` (within ``strata``);
* ``method: dp`` with ``synthesizer: mst``, ``aim`` or ``stratified``, charging the plan's
  ledger once.

The functions that make them are the rooms' own, which take a Dask frame (the steps and
synthesizers with a Dask path are named in :mod:`synthguard.pipeline.dask_adapter`). Anything
else (another method or step, ``start:``, a holdout, the attacks, regression formulas, constraints) is refused before
anything is made, each with the release or field and its line in the plan
(:class:`~synthguard.errors.PlanError`).

Every release is written as soon as it is made, a DP release right after its charge (with
``ledger.csv``); a run failing after a charge keeps the DP releases paid for in
``<output>/releases/`` and the exception raised carries a note (``note: ...``, Python's
``add_note``) that says so.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from synthguard.pipeline.dask_adapter import DP_ON_DASK, SDC_ON_DASK

__all__ = ["check_plan_on_dask", "run_plan_on_dask", "sdc_on_dask"]

Progress = Callable[[str, int, int], None]


def _where(plan: Any, *path: str) -> str:
    line = plan.lines.get(".".join(path)) if hasattr(plan, "lines") else None
    return f"{plan.source}" + (f", line {line}" if line else "") + f", {'.'.join(path)}"


def check_plan_on_dask(plan: Any) -> None:
    """Raise a PlanError listing every part of ``plan`` the Dask path does not run."""
    from synthguard.errors import PlanError

    problems = []
    if plan.data_path is None:
        problems.append(f"{_where(plan, 'data')}: --dask reads data.path (a Parquet folder or "
                        f"a glob of CSV files), not a bundled dataset")
    for field, given in (("holdout", plan.holdout), ("evaluation.attacks", plan.attacks),
                         ("evaluation.formulas", plan.formulas),
                         ("evaluation.constraints", plan.constraints)):
        if given:
            problems.append(f"{_where(plan, *field.split('.'))}: not available with --dask; "
                            f"remove it or run without --dask")
    for spec in plan.releases:
        base = ("releases", spec.name)
        if spec.method == "synthesis":
            for key in ("start", "constraints", "transforms", "sweep"):
                if key in spec.params:
                    problems.append(f"{_where(plan, *base, key)}: '{key}' is not available "
                                    f"with --dask")
        elif spec.method == "sdc":
            for i, step in enumerate(spec.params.get("steps", [])):
                (name, _), = step.items()
                if name not in SDC_ON_DASK:
                    problems.append(
                        f"{_where(plan, *base, 'steps')}: step {i + 1} '{name}' is not "
                        f"available with --dask (Dask runs {', '.join(SDC_ON_DASK)})")
        elif spec.method == "dp":
            if str(spec.params.get("synthesizer", "")) not in DP_ON_DASK:
                problems.append(f"{_where(plan, *base, 'synthesizer')}: only 'mst', 'aim' "
                                f"and 'stratified' run with --dask (synthguard.scale."
                                f"MSTSynthesizer, AIMSynthesizer, StratifiedSynthesizer)")
            if spec.params.get("domain_from_data"):
                problems.append(f"{_where(plan, *base, 'domain_from_data')}: not available "
                                f"with --dask; declare the public levels")
        else:
            problems.append(f"{_where(plan, *base, 'method')}: method '{spec.method}' is not "
                            f"available with --dask (Dask runs synthesis, sdc and dp with mst, "
                            f"aim or stratified)")
    if problems:
        raise PlanError("the plan cannot run on Dask:\n" + "\n".join(problems))


def _make(spec: Any, data: Any, seed: int, ledger: Any) -> tuple[str, list[Any], dict[str, Any]]:
    """The release ``spec`` made on Dask: (kind, implicates as Dask frames, manifest facts)."""
    from synthguard.pipeline import dask_adapter

    params = dict(spec.params)
    if spec.method == "synthesis":
        params.pop("n_jobs", None)
        res = dask_adapter.synthesize(data, random_state=seed, **params)
        return res.kind, list(res.implicates), {
            "seed": res.seed, "methods": dict(res.methods), "kept": tuple(res.kept),
            "details": {"dask": res.provenance()}}
    if spec.method == "sdc":
        return _sdc(spec, data, seed)
    name = str(params["synthesizer"])
    cls = dask_adapter.dp_synthesizer(name)
    model = cls(**{k: v for k, v in params.items() if k not in ("synthesizer", "m", "n")},
                ledger=ledger)
    fitted = model.fit(data)
    release = (fitted or model).sample(n=params.get("n"), m=int(params.get("m", 1)),
                                       random_state=np.random.default_rng(seed))
    # lazy implicates: drawn per partition on the workers when they are written
    return "dp", list(release.implicates), {
        "seed": None, "details": {"method": name, "dp": release.dp}}


def _write(folder: Path, spec: Any, kind: str, implicates: list[Any], facts: dict[str, Any],
           columns_in: list[str], plan_seed: int, ledger: Any,
           progress: Progress | None) -> list[str]:
    """Write one release folder: the implicates (Parquet folders, written by the workers) and
    its manifest. Returns the implicates' names."""
    from synthguard.data.manifest import LEDGER_RECORD, ReleaseManifest, write_manifest
    from synthguard.scale.progress import compute

    folder.mkdir()
    names = [f"{spec.name}_{i}.parquet" for i in range(1, len(implicates) + 1)]
    pending = [f.to_parquet(str(folder / n), write_index=False, compute=False)
               for f, n in zip(implicates, names, strict=True)]
    stage = f"release '{spec.name}' on Dask"
    compute(*pending, progress=None if progress is None else
            (lambda done, total: progress(stage, done, total)))
    columns = [str(c) for c in implicates[0].columns]
    spent = None
    record = None
    if kind == "dp" and ledger is not None:
        s = ledger.spent
        spent = {"epsilon": s.epsilon, "delta": s.delta, "rho": s.rho}
        if hasattr(ledger, "write_record"):  # travels with the folder (issue 31)
            ledger.write_record(folder / LEDGER_RECORD)
            record = LEDGER_RECORD
    write_manifest(folder, ReleaseManifest(
        kind=kind, implicates=tuple(names), seed=facts.get("seed"),
        methods=facts.get("methods", {}), kept=facts.get("kept", ()),
        columns=tuple(columns), dropped=tuple(c for c in columns_in if c not in columns),
        ledger="../../ledger.json" if kind == "dp" else None, spent=spent,
        details={"plan method": spec.method, "plan seed": plan_seed,
                 **facts.get("details", {})}, ledger_record=record))
    return names


def _after_failure(stage: Path, releases_dir: Path, paid: list[str], charged: str | None,
                   out: Path) -> list[str]:
    """A run failed: keep the DP releases whose budget is spent (moved into ``releases/``, the
    others removed); returns the notes that say so, and that a charge's release could not be
    written. Nothing else is kept."""
    import shutil

    from synthguard.data.manifest import replace_folder

    notes = []
    if paid:
        for entry in stage.iterdir():
            if entry.name not in paid:
                shutil.rmtree(entry, ignore_errors=True) if entry.is_dir() else entry.unlink()
        replace_folder(stage, releases_dir)
        notes.append(f"note: the run failed after the privacy budget was spent; the DP "
                     f"release(s) {', '.join(repr(n) for n in paid)} are kept in "
                     f"'{releases_dir}' (ledger '{out / 'ledger.json'}'); the other releases "
                     f"and the report were not written")
    else:
        shutil.rmtree(stage, ignore_errors=True)
    if charged is not None:
        notes.append(f"note: the privacy budget of release '{charged}' is charged in "
                     f"'{out / 'ledger.json'}' but its records could not be written")
    return notes


#: the input's row number, kept while a step shuffles the records by stratum
_ORDER = "_synthguard_order"


def _sdc(spec: Any, data: Any, seed: int) -> tuple[str, list[Any], dict[str, Any]]:
    """An sdc release on Dask, its steps in the plan's order (:func:`sdc_on_dask`). Step ``i``
    draws from the ``i``-th child of ``SeedSequence(seed)``. A random step that depends on the
    other records (``add_noise``: the column's standard deviation; ``swap``: the partners)
    without ``strata`` treats each input partition as a stratum, which a ``note:`` says.
    """
    steps = [next(iter(step.items())) for step in spec.params["steps"]]
    per_partition = []
    run: list[tuple[str, dict[str, Any]]] = []
    for i, (name, kwargs) in enumerate(steps):
        kw = dict(kwargs or {})
        if name not in ("topcode", "bottomcode"):
            kw["random_state"] = int(np.random.SeedSequence(seed).spawn(i + 1)[i]
                                     .generate_state(1, dtype=np.uint32)[0])
        if name == "pram":
            kw.pop("strata", None)
        if name in ("add_noise", "pram") and not kw.get("strata"):
            per_partition.append(f"step {i + 1} '{name}'")
        run.append((name, kw))
    current = sdc_on_dask(data, run)
    notes = ([f"release '{spec.name}': {', '.join(per_partition)} without strata: on Dask "
              f"each partition draws from its own generator (noise scaled by the whole "
              f"column's standard deviation), so the release depends on the partitioning; "
              f"give 'strata' to add_noise for one that does not"]
             if per_partition else [])
    return "protected", [current], {"seed": seed, "notes": notes, "details": {
        "steps": [name for name, _ in steps],
        "strata": {f"step {i + 1}": list(_strata(kw)) for i, (_, kw) in enumerate(steps)
                   if _strata(kw)}}}


def sdc_on_dask(data: Any, steps: list[tuple[str, dict[str, Any]]]) -> Any:
    """Apply SDC ``steps`` (name, keywords; names of
    :data:`~synthguard.pipeline.dask_adapter.SDC_ON_DASK`) in order to the Dask frame
    ``data``; the protected frame, lazy.

    A step's ``strata`` are honoured: one shuffle puts each stratum in one partition, where
    the step runs per stratum, and the records are put back in the input's order afterwards
    (a protected release's rows stand for the confidential records, row for row), each
    stratum drawing from its own generator (``scale.sdc.stratum_generator``).
    """
    from synthguard._dask.partitions import ROW, with_row_numbers
    from synthguard.pipeline import dask_adapter

    stratified = any(kw.get("strata") for _, kw in steps)
    current = data
    if stratified:  # shuffled by stratum: remember the input's order
        numbered, _ = with_row_numbers(data)
        current = numbered.rename(columns={ROW: _ORDER})
    for name, kw in steps:
        current = dask_adapter.sdc_step(name)(current, **kw)
    if stratified:
        current = current.sort_values(_ORDER).drop(columns=[_ORDER])
    return current


def _strata(kwargs: Any) -> tuple[str, ...]:
    """The ``strata`` column(s) a step names (none: ``()``)."""
    strata = (kwargs or {}).get("strata")
    if not strata:
        return ()
    return (strata,) if isinstance(strata, str) else tuple(strata)


def run_plan_on_dask(plan: Any, target: Any, *, progress: Progress | None = None,
                     force: bool = False) -> Any:
    """Run ``plan`` (a :class:`~synthguard.pipeline.plan.Plan`) on Dask: make, write and
    measure its releases and write the report. ``target`` is a Dask target (``"sync"``,
    ``"local:N"``, ``"tcp://host:port"`` or a parsed
    :class:`~synthguard.scale.client.DaskTarget`), run in a session opened for the run, or
    True to use the scheduler already set (a client the caller made).

    Order: every release is written (by the workers, into a staging folder) as soon as it is
    made; a DP release's folder and ``ledger.csv`` right after its charge. When anything fails
    after a charge (a later release, the evaluation, the report), the DP releases already
    paid for are kept in ``<output>/releases/`` and the exception carries a note saying so.
    When nothing was charged, nothing is kept (a ledger file this run created is removed
    again, as without Dask).
    """
    import contextlib
    import tempfile

    from synthguard.data.io import write_table
    from synthguard.data.manifest import check_release_target, replace_folder
    from synthguard.pipeline import dask_adapter
    from synthguard.pipeline.pipeline import PipelineResult, _discard
    from synthguard.report.html import write_report
    from synthguard.scale import dask_session, read_dataset

    check_plan_on_dask(plan)
    data_path = plan.data_path
    assert data_path is not None  # checked: a bundled dataset is refused
    out = plan.output
    releases_dir = out / "releases"
    check_release_target(releases_dir, force=force, inputs=[data_path], option="output")
    seed = plan.seed if plan.seed is not None else int(
        np.random.SeedSequence().generate_state(1, dtype=np.uint32)[0])
    seeds = [int(s.generate_state(1, dtype=np.uint32)[0])
             for s in np.random.SeedSequence(seed).spawn(len(plan.releases) + 1)]
    timings: dict[str, float] = {}
    lines: list[str] = []
    notes: list[str] = []
    session = contextlib.nullcontext() if target is True else dask_session(target)
    with session:
        t = time.perf_counter()
        na = dict(plan.read_options).get("na_values")
        data = read_dataset(data_path, na_values=na)
        if plan.columns:
            data = data[list(plan.columns)]
        columns_in = [str(c) for c in data.columns]
        ledger = None
        # what a failed run removes again while the ledger holds no charge
        fresh = [p for p in (out, out / "ledger.json") if not p.exists()]
        if any(s.method == "dp" for s in plan.releases):
            from synthguard.dp import PrivacyLedger

            out.mkdir(parents=True, exist_ok=True)
            assert plan.epsilon is not None  # the plan's privacy budget (validated)
            ledger = PrivacyLedger(epsilon=plan.epsilon, delta=plan.delta,
                                   path=out / "ledger.json")
        made: dict[str, list[Any]] = {}
        kinds: dict[str, str] = {}
        paths: dict[str, list[Path]] = {}
        paid: list[str] = []  # DP releases written: their budget is spent, they are kept
        charged: str | None = None  # a DP release charged but not (yet) written
        out.mkdir(parents=True, exist_ok=True)
        stage = Path(tempfile.mkdtemp(dir=out, prefix=".releases.new-"))
        try:
            for spec, s in zip(plan.releases, seeds, strict=False):
                before = len(ledger.charges) if ledger is not None else 0
                try:
                    kind, implicates, facts = _make(spec, data, s, ledger)
                finally:
                    if ledger is not None and len(ledger.charges) > before:
                        charged = spec.name
                names = _write(stage / spec.name, spec, kind, implicates, facts, columns_in,
                               seed, ledger, progress)
                if kind == "dp" and ledger is not None:
                    paid.append(spec.name)
                    charged = None
                    write_table(ledger.to_frame().reset_index(), out / "ledger.csv")
                made[spec.name] = [read_dataset(stage / spec.name / n) for n in names]
                paths[spec.name] = [releases_dir / spec.name / n for n in names]
                kinds[spec.name] = "full" if kind == "dp" else kind
                lines.append(f"release '{spec.name}': {kind}, m = {len(names)}, written by "
                             f"the workers")
                notes.extend(f"note: {n}" for n in facts.get("notes", ()))
            timings["releases"] = time.perf_counter() - t
            t = time.perf_counter()
            ev = dask_adapter.evaluate(
                data, made, keys=list(plan.keys), targets=list(plan.targets), kinds=kinds,
                thresholds=dict(plan.thresholds) or None, radius=plan.radius,
                schema=dict(plan.schema) or None, random_state=seeds[-1],
                max_distance_records=plan.max_distance_records,
                default_thresholds=plan.default_thresholds, progress=progress)
            timings["evaluate"] = time.perf_counter() - t
            if ledger is not None:
                write_table(ledger.to_frame().reset_index(), out / "ledger.csv")
            (out / "provenance.json").write_text(json.dumps(
                {"plan": str(plan.source), "seed": seed, "engine": "dask"}, indent=2),
                encoding="utf-8")
            report = write_report(ev, out / plan.report_file, title=plan.title,
                                  plan_text=plan.text, ledger=ledger, min_cell=plan.min_cell,
                                  provenance={"data": str(data_path), "plan seed": str(seed),
                                              "engine": "Dask"})
        except BaseException as e:
            for note in _after_failure(stage, releases_dir, paid, charged, out):
                e.add_note(note)
            if ledger is None or not ledger.charges:
                _discard(fresh)
            raise
        replace_folder(stage, releases_dir)
    return PipelineResult(
        plan=plan, evaluation=ev, releases=made, output=out, report_path=report,
        table_path=None, release_paths=paths,
        ledger_path=out / "ledger.json" if ledger is not None else None, seed=seed,
        timings=timings, lines=tuple(lines), notes=tuple(notes))
