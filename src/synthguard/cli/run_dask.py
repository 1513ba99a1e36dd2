"""``synthguard run PLAN --dask TARGET``: a plan's releases made and measured on Dask.

The plan's ``data.path`` may be a Parquet folder or a glob of CSV files. Each release is made
by :mod:`synthguard.scale` and written by the workers as a release folder (implicates as
Parquet folders, a manifest) under ``<output>/releases/``; the evaluation is
:func:`synthguard.evaluation.on_dask.evaluate` and the report the same HTML report, written to
``<output>/<report file>``. What runs on Dask:

* ``method: synthesis`` -> :func:`synthguard.scale.synthesize` (strata on workers, or models
  fitted on a seeded sample and drawn per partition);
* ``method: sdc`` with the steps ``topcode`` / ``bottomcode`` (``at`` or ``percentile``),
  ``add_noise``, ``pram`` and ``swap`` (within ``strata``) -> the :mod:`synthguard.sdc` steps;
* ``method: dp`` with ``synthesizer: mst``, ``aim`` or ``stratified`` ->
  :class:`synthguard.scale.MSTSynthesizer`, :class:`synthguard.scale.AIMSynthesizer` or
  :class:`synthguard.scale.StratifiedSynthesizer`, charging the plan's ledger once.

Anything else (another method or step, ``start:``, a holdout, the
attacks, regression formulas, constraints) is refused before anything is made, each with the
release or field and its line in the plan (exit 2).

Every release is written as soon as it is made, a DP release right after its charge (with
``ledger.csv``); a run failing after a charge keeps the DP releases paid for in
``<output>/releases/``, says so on stderr and still exits non-zero.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
import numpy as np

__all__ = ["run_on_dask"]

#: DP synthesizers of a plan that run on Dask (classes of synthguard.scale)
DP_ON_DASK = ("mst", "aim", "stratified")

#: SDC steps of a plan that run on Dask, and the parameters each may not take there
SDC_ON_DASK: dict[str, tuple[str, ...]] = {"topcode": (), "bottomcode": (), "add_noise": (),
               "pram": (), "swap": ()}


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
                (name, kwargs), = step.items()
                if name not in SDC_ON_DASK:
                    problems.append(
                        f"{_where(plan, *base, 'steps')}: step {i + 1} '{name}' is not "
                        f"available with --dask (Dask runs {', '.join(SDC_ON_DASK)})")
                    continue
                bad = [k for k in SDC_ON_DASK[name] if (kwargs or {}).get(k) is not None]
                if bad:
                    problems.append(
                        f"{_where(plan, *base, 'steps')}: step {i + 1} '{name}': "
                        f"'{bad[0]}' is a statistic of all records; with --dask give the "
                        f"public value as 'at'")
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
    from synthguard import scale

    params = dict(spec.params)
    if spec.method == "synthesis":
        params.pop("n_jobs", None)
        res = scale.synthesize(data, random_state=seed, **params)
        return res.kind, list(res.implicates), {
            "seed": res.seed, "methods": dict(res.methods), "kept": tuple(res.kept),
            "details": {"dask": res.provenance()}}
    if spec.method == "sdc":
        return _sdc(spec, data, seed)
    name = str(params["synthesizer"])
    cls = {"mst": scale.MSTSynthesizer, "aim": scale.AIMSynthesizer,
           "stratified": scale.StratifiedSynthesizer}[name]
    model = cls(**{k: v for k, v in params.items() if k not in ("synthesizer", "m", "n")},
                ledger=ledger)
    fitted = model.fit(data)
    release = (fitted or model).sample(n=params.get("n"), m=int(params.get("m", 1)),
                                       random_state=np.random.default_rng(seed))
    # lazy implicates: drawn per partition on the workers when they are written
    return "dp", list(release.implicates), {
        "seed": None, "details": {"method": name, "dp": release.dp}}


def _write(folder: Path, spec: Any, kind: str, implicates: list[Any], facts: dict[str, Any],
           columns_in: list[str], plan_seed: int, ledger: Any, quiet: bool) -> list[str]:
    """Write one release folder: the implicates (Parquet folders, written by the workers) and
    its manifest. Returns the implicates' names."""
    from synthguard.cli._dask import dask_progress
    from synthguard.data.manifest import LEDGER_RECORD, ReleaseManifest, write_manifest
    from synthguard.scale.progress import compute

    folder.mkdir()
    names = [f"{spec.name}_{i}.parquet" for i in range(1, len(implicates) + 1)]
    pending = [f.to_parquet(str(folder / n), write_index=False, compute=False)
               for f, n in zip(implicates, names, strict=True)]
    with dask_progress(f"release '{spec.name}' on Dask", quiet) as progress:
        compute(*pending, progress=progress)
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
                   out: Path) -> None:
    """A run failed: keep the DP releases whose budget is spent (moved into ``releases/``, the
    others removed) and say so on stderr; a charge whose release could not be written is
    said too. Nothing else is kept."""
    import shutil

    from synthguard.data.manifest import replace_folder

    if paid:
        for entry in stage.iterdir():
            if entry.name not in paid:
                shutil.rmtree(entry, ignore_errors=True) if entry.is_dir() else entry.unlink()
        replace_folder(stage, releases_dir)
        click.echo(f"note: the run failed after the privacy budget was spent; the DP "
                   f"release(s) {', '.join(repr(n) for n in paid)} are kept in "
                   f"'{releases_dir}' (ledger '{out / 'ledger.json'}'); the other releases "
                   f"and the report were not written", err=True)
    else:
        shutil.rmtree(stage, ignore_errors=True)
    if charged is not None:
        click.echo(f"note: the privacy budget of release '{charged}' is charged in "
                   f"'{out / 'ledger.json'}' but its records could not be written", err=True)


#: the input's row number, kept while a step shuffles the records by stratum
_ORDER = "_synthguard_order"


def _sdc(spec: Any, data: Any, seed: int) -> tuple[str, list[Any], dict[str, Any]]:
    """An sdc release on Dask, its steps in the plan's order (the :mod:`synthguard.sdc` steps).

    A step's ``strata`` are honoured: one shuffle puts each stratum in one partition, where
    the step runs per stratum, and the records are put back in the input's order afterwards
    (a protected release's rows stand for the confidential records, row for row). Step ``i``
    draws from the ``i``-th child of ``SeedSequence(seed)``; each stratum from its own
    generator (``synthguard.sdc._strata.stratum_generator``). Without ``strata``,
    ``add_noise`` is scaled by the whole column's standard deviation and ``pram`` moves each
    record alone, each partition drawing from its own generator (a ``note:`` says so);
    ``swap`` needs ``strata`` on Dask. PRAM ignores ``strata`` (records move independently).
    """
    from synthguard import scale
    from synthguard._dask.partitions import ROW, with_row_numbers

    steps = [next(iter(step.items())) for step in spec.params["steps"]]
    stratified = any((kw or {}).get("strata") for _, kw in steps)
    current = data
    if stratified:  # shuffled by stratum: remember the input's order
        numbered, _ = with_row_numbers(data)
        current = numbered.rename(columns={ROW: _ORDER})
    per_partition = []
    for i, (name, kwargs) in enumerate(steps):
        kw = dict(kwargs or {})
        fn = getattr(scale, name)
        if name not in ("topcode", "bottomcode"):
            kw["random_state"] = int(np.random.SeedSequence(seed).spawn(i + 1)[i]
                                     .generate_state(1, dtype=np.uint32)[0])
        if name == "pram":
            kw.pop("strata", None)
        if name in ("add_noise", "pram") and not kw.get("strata"):
            per_partition.append(f"step {i + 1} '{name}'")
        current = fn(current, **kw).data
    if stratified:
        current = current.sort_values(_ORDER).drop(columns=[_ORDER])
    notes = ([f"release '{spec.name}': {', '.join(per_partition)} without strata: on Dask "
              f"each partition draws from its own generator (noise scaled by the whole "
              f"column's standard deviation), so the release depends on the partitioning; "
              f"give 'strata' to add_noise for one that does not"]
             if per_partition else [])
    return "protected", [current], {"seed": seed, "notes": notes, "details": {
        "steps": [name for name, _ in steps],
        "strata": {f"step {i + 1}": list(_strata(kw)) for i, (_, kw) in enumerate(steps)
                   if _strata(kw)}}}


def _strata(kwargs: Any) -> tuple[str, ...]:
    """The ``strata`` column(s) a step names (none: ``()``)."""
    strata = (kwargs or {}).get("strata")
    if not strata:
        return ()
    return (strata,) if isinstance(strata, str) else tuple(strata)


def run_on_dask(plan_file: str, output: str | None, force: bool, quiet: bool,
                target: Any) -> None:
    """Run the plan on ``target``: make, write and measure its releases, write the report,
    print and exit as ``synthguard run`` does.

    Order: every release is written (by the workers, into a staging folder) as soon as it is
    made; a DP release's folder and ``ledger.csv`` right after its charge. When anything fails
    after a charge (a later release, the evaluation, the report), the DP releases already
    paid for are kept in ``<output>/releases/`` and a ``note:`` on stderr says so; the
    command still fails (non-zero exit). When nothing was charged, nothing is kept (a ledger
    file this run created is removed again, as without ``--dask``).
    """
    import tempfile
    from dataclasses import replace

    from synthguard.cli.evaluate import exit_with_verdict, report_problems
    from synthguard.cli.run import progress_bar, warnings_to_stderr
    from synthguard.data.io import write_table
    from synthguard.data.manifest import check_release_target, replace_folder
    from synthguard.evaluation.on_dask import evaluate
    from synthguard.pipeline.pipeline import _discard
    from synthguard.pipeline.plan import load_plan
    from synthguard.report.html import write_report
    from synthguard.scale import dask_session, read_dataset

    plan = load_plan(plan_file)
    if output is not None:
        plan = replace(plan, output=Path(output))
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
    echo = (lambda s: None) if quiet else click.echo
    with dask_session(target), warnings_to_stderr(quiet):
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
                               seed, ledger, quiet)
                if kind == "dp" and ledger is not None:
                    paid.append(spec.name)
                    charged = None
                    write_table(ledger.to_frame().reset_index(), out / "ledger.csv")
                made[spec.name] = [read_dataset(stage / spec.name / n) for n in names]
                kinds[spec.name] = "full" if kind == "dp" else kind
                echo(f"release '{spec.name}': {kind}, m = {len(names)}, written by the workers")
                for note in facts.get("notes", ()):
                    if not quiet:
                        click.echo(f"note: {note}", err=True)
            with progress_bar(quiet, "synthguard run (Dask)") as cb:
                ev = evaluate(data, made, keys=list(plan.keys), targets=list(plan.targets),
                              kinds=kinds, thresholds=dict(plan.thresholds) or None,
                              radius=plan.radius, schema=dict(plan.schema) or None,
                              random_state=seeds[-1],
                              max_distance_records=plan.max_distance_records,
                              default_thresholds=plan.default_thresholds, progress=cb)
            if ledger is not None:
                write_table(ledger.to_frame().reset_index(), out / "ledger.csv")
            (out / "provenance.json").write_text(json.dumps(
                {"plan": str(plan.source), "seed": seed, "engine": "dask"}, indent=2),
                encoding="utf-8")
            report = write_report(ev, out / plan.report_file, title=plan.title,
                                  plan_text=plan.text, ledger=ledger, min_cell=plan.min_cell,
                                  provenance={"data": str(data_path), "plan seed": str(seed),
                                              "engine": "Dask"})
        except BaseException:
            _after_failure(stage, releases_dir, paid, charged, out)
            if ledger is None or not ledger.charges:
                _discard(fresh)
            raise
        replace_folder(stage, releases_dir)
    echo(ev.summary())
    echo(f"releases: {releases_dir}")
    if ledger is not None:
        echo(f"privacy ledger: {out / 'ledger.json'}")
    echo(f"report: {report}")
    report_problems(ev, quiet)
    exit_with_verdict(ev)
