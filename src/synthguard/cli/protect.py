"""``synthguard protect``: apply traditional SDC methods to a data file and write the release."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from synthguard.cli._dask import dask_option
from synthguard.cli._drop import drop_columns, drop_option
from synthguard.cli._options import read_options

__all__ = ["parse_spec", "parse_step", "protect_cmd"]

#: the fixed order in which steps run (each acts on the previous step's release)
ORDER = ("generalize", "topcode", "bottomcode", "noise", "swap", "rank_swap", "suppress",
         "subsample")


def parse_spec(spec: str, option: str) -> tuple[list[str], str]:
    """``"region,age:0.05"`` -> ``(["region", "age"], "0.05")``; the part after the last colon."""
    cols, sep, arg = spec.rpartition(":")
    names = [c.strip() for c in cols.split(",") if c.strip()]
    if not sep or not names or not arg.strip():
        # echoes the user's own command-line text, never a data value
        raise click.BadParameter(f"expected COLUMNS:VALUE, got '{spec}'", param_hint=option)
    return names, arg.strip()


def _number(text: str, option: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise click.BadParameter(f"expected a number after ':', got '{text}'",
                                 param_hint=option) from None


def _step(option: str, spec: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
    """Run one SDC step; an error of bad input names the option as typed (the user's own
    command-line text, never a data value), e.g. ``option --topcode income:p200: ...``."""
    from synthguard.errors import DataError, ParameterError

    try:
        return fn(*args, **kwargs)
    except (ParameterError, DataError) as e:
        raise type(e)(f"option {option} {spec}: {e}") from e


def _censor_args(arg: str, option: str) -> tuple[float | None, float | None]:
    """``p94`` -> (None, 94) as (at, percentile); ``100000`` -> (100000, None)."""
    if arg.lower().startswith("p"):
        return None, _number(arg[1:], option)
    return _number(arg, option), None


def parse_step(text: str) -> tuple[str, Any, dict[str, Any]]:
    """``"topcode: {column: income, percentile: 94}"`` -> the registered SDC step's name,
    function and parameters (YAML, as a plan's ``steps:`` entry); BadParameter naming what is
    wrong (the user's own text, never a data value)."""
    import inspect

    from synthguard.data.safe_load import parse_yaml
    from synthguard.errors import ParameterError
    from synthguard.sdc.steps import SDC_STEPS

    try:
        step = parse_yaml(text, source="--step", what="a step", error=ParameterError)
    except ParameterError:
        step = None
    if not isinstance(step, dict) or len(step) != 1:
        raise click.BadParameter(f"expected 'NAME: {{PARAM: VALUE, ...}}', got '{text}'",
                                 param_hint="--step")
    (name, kwargs), = step.items()
    fn = SDC_STEPS.get(str(name), None)
    if fn is None:
        raise click.BadParameter(f"unknown SDC step '{name}'; use one of "
                                 f"{', '.join(SDC_STEPS)}", param_hint="--step")
    kwargs = {} if kwargs is None else kwargs
    if not isinstance(kwargs, dict):
        raise click.BadParameter(f"step '{name}': expected a mapping of parameters",
                                 param_hint="--step")
    params = inspect.signature(fn).parameters
    accepted = {n for i, n in enumerate(params) if i > 0 and n != "random_state"}
    var = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    unknown = [str(k) for k in kwargs if str(k) not in accepted and not var]
    if unknown:
        raise click.BadParameter(f"step '{name}': unknown parameter(s) {', '.join(unknown)}; "
                                 f"accepted: {', '.join(sorted(accepted))}", param_hint="--step")
    if "random_state" in params:
        kwargs = {**kwargs, "random_state": None}  # set from --seed when the step runs
    return str(name), fn, {str(k): v for k, v in kwargs.items()}


def _one(names: list[str], option: str) -> str:
    if len(names) != 1:
        raise click.BadParameter("name exactly one column", param_hint=option)
    return names[0]


def _write_folder(release: Any, df: Any, out: Path, data: Path, force: bool, seed: int,
                  done: list[dict[str, Any]], touched: dict[str, list[str]]) -> Path:
    """Write the release folder (protected.csv, metadata/steps.json, manifest) at once."""
    from synthguard.data.io import write_table
    from synthguard.data.manifest import (
        METADATA_DIR,
        ReleaseManifest,
        release_folder,
        write_manifest,
    )
    from synthguard.evaluation.kinds import SAMPLE_KEY

    released = [str(c) for c in release.columns]
    with release_folder(out, force=force, inputs=[data]) as tmp:
        write_table(release, tmp / "protected.csv")
        (tmp / METADATA_DIR).mkdir()
        steps_file = f"{METADATA_DIR}/steps.json"
        (tmp / steps_file).write_text(json.dumps(done, indent=2, default=str), encoding="utf-8")
        write_manifest(tmp, ReleaseManifest(
            kind="protected", implicates=("protected.csv",), seed=seed,
            methods={c: "+".join(v) for c, v in touched.items() if c in released},
            kept=tuple(c for c in released if c not in touched),
            dropped=tuple(str(c) for c in df.columns if str(c) not in released),
            columns=tuple(released), metadata=(steps_file,),
            details={"steps": [d["step"] for d in done],  # a sample: evaluate reads it
                     **({SAMPLE_KEY: True} if any(d["n_removed"] for d in done) else {})},
        ))
    return out / "protected.csv"


@click.command("protect")
@click.argument("data", type=click.Path(path_type=Path))  # a Parquet folder with --dask
@read_options
@click.option("--out", required=True, type=click.Path(path_type=Path),
              help="Release folder (protected.csv, metadata/, synthguard_manifest.json); a "
                   "name with a data extension (.csv, .parquet, .dta, ...) writes the bare "
                   "file, without a manifest.")
@click.option("--force", is_flag=True,
              help="Replace the release already in the --out folder as a whole.")
@click.option("--generalize", "generalize_", multiple=True, metavar="COL:EDGES",
              help="Bin a numeric column at the given edges, e.g. age:0,18,65,120; repeat.")
@click.option("--topcode", multiple=True, metavar="COL:VALUE|COL:pNN",
              help="Top-code at a value or percentile, e.g. income:p94; repeat.")
@click.option("--bottomcode", multiple=True, metavar="COL:VALUE|COL:pNN",
              help="Bottom-code at a value or percentile, e.g. age:16; repeat.")
@click.option("--noise", multiple=True, metavar="COLS:SCALE",
              help="Additive noise, sd = SCALE x column sd, e.g. income,expenditure:0.1.")
@click.option("--multiplicative", is_flag=True,
              help="Make --noise multiplicative (factor with mean 1 and sd SCALE).")
@click.option("--keep-variance", is_flag=True, help="Make --noise keep variances (Kim 1986).")
@click.option("--swap", "swap_", default=None, metavar="COLS:RATE",
              help="Random swapping of these columns jointly, e.g. region,age:0.05.")
@click.option("--rank-swap", default=None, metavar="COLS:PERCENT",
              help="Rank swapping of numeric columns within PERCENT of ranks, e.g. income:5.")
@click.option("--strata", "--within", "within", default=None, metavar="COL,COL",
              help="Strata for --swap, --rank-swap and --subsample (--within: its old name).")
@click.option("--suppress", "suppress_", default=None, metavar="KEYS:K",
              help="Local suppression until k-anonymity on the keys, e.g. sex,age,region:3.")
@click.option("--subsample", default=None, type=click.FloatRange(0, 1, min_open=True),
              help="Release this fraction of the records.")
@click.option("--step", "extra_steps", multiple=True, metavar="'NAME: {PARAM: VALUE}'",
              help="Any registered SDC step (synthguard.sdc.steps) with its parameters as in a "
                   "plan, e.g. --step 'topcode: {column: income, percentile: 94}'; run after the "
                   "options above, in the order given; repeat.")
@click.option("--record", "record", default=None, type=click.Path(dir_okay=False, path_type=Path),
              help="Write what each step did (counts and public parameters) as JSON.")
@click.option("--seed", default=None, type=click.IntRange(min=0),
              help="Random seed (the seed used is printed and recorded either way).")
@click.option("--quiet", "-q", is_flag=True, help="No summary.")
@drop_option("Columns left out of the release (identifiers such as record numbers); repeat or "
             "separate by commas. The manifest lists them as dropped.")
@dask_option
def protect_cmd(
    data: Path,
    read_kw: dict[str, Any],
    out: Path,
    generalize_: tuple[str, ...],
    topcode: tuple[str, ...],
    bottomcode: tuple[str, ...],
    noise: tuple[str, ...],
    multiplicative: bool,
    keep_variance: bool,
    swap_: str | None,
    rank_swap: str | None,
    within: str | None,
    suppress_: str | None,
    subsample: float | None,
    extra_steps: tuple[str, ...],
    record: Path | None,
    seed: int | None,
    force: bool,
    quiet: bool,
    drop: tuple[str, ...] = (),
    dask: Any = None,
) -> None:
    """Protect DATA with traditional disclosure control and write the release to --out.

    --out is a release folder: protected.csv, metadata/steps.json (what each step did) and
    synthguard_manifest.json (kind protected, seed, the steps per column, versions), which
    `synthguard evaluate` reads, so the release is measured as protected (its rows are the
    confidential records). A folder holding an earlier release is refused unless --force.
    An --out ending in a data extension writes that one file only (no manifest: evaluate
    then needs --kind NAME=protected).

    Exit codes: 0 written, 2 bad input (nothing written).

    Steps run in this order, each on the previous step's output: generalize, topcode,
    bottomcode, noise, swap, rank-swap, suppress, subsample, then each --step (any step of
    the SDC registry, synthguard.sdc.steps, written as in a plan). Thresholds derived from
    percentiles are confidential statistics: they are not printed, nor written to --record.

    \b
    Examples:
      synthguard protect conf.csv --out protected/ --topcode income:p94 \\
          --swap region,age:0.05 --seed 1
      synthguard protect conf.csv --out p.csv --generalize age:0,18,65,120 \\
          --suppress sex,age,region:3
      synthguard protect conf.csv --out p.csv --noise income:0.1 --keep-variance \\
          --subsample 0.5 --strata region --seed 7
    """
    import numpy as np

    from synthguard import sdc
    from synthguard.cli._dask import require_file
    from synthguard.data.io import read_table, write_table
    from synthguard.data.manifest import check_release_target

    if dask is not None:  # the same steps on Dask, written by the workers
        return _protect_on_dask(dict(locals()))

    as_folder = out.is_dir() or not out.suffix  # a name with an extension is one data file
    if as_folder:
        check_release_target(out, force=force, inputs=[data])
    parsed_steps = [parse_step(t) for t in extra_steps]  # before reading any data
    require_file(data)
    df = read_table(data, **read_kw)
    if seed is None:
        seed = int(np.random.SeedSequence().generate_state(1, dtype=np.uint32)[0])
    rng = np.random.default_rng(seed)
    strata = [c.strip() for c in within.split(",") if c.strip()] if within else None
    steps: list[tuple[str, Any]] = []
    release = drop_columns(df, drop, "the data")

    touched: dict[str, list[str]] = {}  # column -> the steps that changed it

    def apply(name: str, result: Any, columns: list[str] | None = None) -> None:
        nonlocal release
        release = result.data
        steps.append((name, result))
        for c in columns or []:
            touched.setdefault(c, []).append(name)

    for spec in generalize_:
        names, arg = parse_spec(spec, "--generalize")
        edges = [_number(e, "--generalize") for e in arg.split(",")]
        apply("generalize", _step("--generalize", spec, sdc.generalize, release,
                                  _one(names, "--generalize"), bins=edges), names)
    for spec in topcode:
        names, arg = parse_spec(spec, "--topcode")
        at, pct = _censor_args(arg, "--topcode")
        apply("topcode", _step("--topcode", spec, sdc.topcode, release,
                               _one(names, "--topcode"), at=at, percentile=pct), names)
    for spec in bottomcode:
        names, arg = parse_spec(spec, "--bottomcode")
        at, pct = _censor_args(arg, "--bottomcode")
        apply("bottomcode", _step("--bottomcode", spec, sdc.bottomcode, release,
                                  _one(names, "--bottomcode"), at=at, percentile=pct), names)
    for spec in noise:
        names, arg = parse_spec(spec, "--noise")
        apply("noise", _step(
            "--noise", spec, sdc.add_noise, release, names, kind="multiplicative" if multiplicative else "additive",
            scale=_number(arg, "--noise"), keep_variance=keep_variance, random_state=rng,
        ), names)
    if swap_:
        names, arg = parse_spec(swap_, "--swap")
        apply("swap", _step("--swap", swap_, sdc.swap, release, names,
                            rate=_number(arg, "--swap"), strata=strata, random_state=rng), names)
    if rank_swap:
        names, arg = parse_spec(rank_swap, "--rank-swap")
        apply("rank swap", _step("--rank-swap", rank_swap, sdc.swap, release, names,
                                 method="rank", strata=strata,
                                 max_rank_distance=_number(arg, "--rank-swap"),
                                 random_state=rng), names)
    if suppress_:
        names, arg = parse_spec(suppress_, "--suppress")
        k = _number(arg, "--suppress")
        if not k.is_integer():
            raise click.BadParameter("k must be a whole number", param_hint="--suppress")
        apply("suppress", _step("--suppress", suppress_, sdc.suppress, release, names,
                                k=int(k)), names)
    if subsample is not None:
        apply("subsample", _step("--subsample", str(subsample), sdc.subsample, release,
                                 subsample, strata=strata, random_state=rng))
    for name, fn, kw in parsed_steps:
        if "random_state" in kw:
            kw["random_state"] = rng
        cols = kw.get("columns", kw.get("column"))
        apply(name, _step("--step", name, fn, release, **kw),
              [cols] if isinstance(cols, str) else list(cols or []))
    if not steps:
        raise click.UsageError("choose at least one method (see --help)")
    # what each step did: counts and public parameters (percentile thresholds are withheld)
    done = [
        {
            "step": name,
            "n_changed_records": r.n_changed_records,
            "n_changed_cells": r.n_changed_cells,
            "n_removed": len(r.removed),
            "params": {k: v for k, v in r.params.items() if k not in r.confidential},
        }
        for name, r in steps
    ]
    # the record goes to a temporary file first, so an unwritable --record fails before the
    # release is written, and the two appear together
    record_tmp = None
    if record is not None:
        info = {
            "input": str(data),
            "output": str(out),
            "seed": seed,
            "steps": done,
        }
        record.parent.mkdir(parents=True, exist_ok=True)
        record_tmp = record.with_name(f".{record.name}.tmp")
        record_tmp.write_text(json.dumps(info, indent=2, default=str))
    try:
        if as_folder:
            path = _write_folder(release, df, out, data, force, seed, done, touched)
        else:
            path = write_table(release, out)
    except BaseException:
        if record_tmp is not None:
            record_tmp.unlink(missing_ok=True)
        raise
    if record is not None and record_tmp is not None:
        record_tmp.replace(record)
    if not quiet:
        for name, r in steps:
            click.echo(f"[{name}] " + r.summary().replace("\n", "\n  "))
        click.echo(f"wrote {len(release)} records to {path} (seed {seed})")


def _protect_on_dask(a: dict[str, Any]) -> None:
    """``--dask``: the steps ``--topcode``, ``--bottomcode`` (a public value or a percentile,
    computed exactly on the workers), ``--noise``, ``--swap`` and ``--rank-swap`` within
    ``--strata`` on the Dask frame (:func:`synthguard.pipeline.dask_run.sdc_on_dask`), written
    by the workers as a release folder with one Parquet implicate. Random step ``i`` draws
    from the ``i``-th child of the ``--seed``'s ``SeedSequence``; without ``--strata`` each
    partition is a stratum. Local suppression, subsampling, generalization, registered
    ``--step``s and ``--record`` are refused (exit 2)."""
    import numpy as np

    from synthguard.cli._dask import dask_input, dask_progress
    from synthguard.data.manifest import (
        METADATA_DIR,
        ReleaseManifest,
        check_release_target,
        release_folder,
        write_manifest,
    )
    from synthguard.pipeline.dask_run import sdc_on_dask
    from synthguard.scale.progress import compute

    data, out, force, quiet = a["data"], a["out"], a["force"], a["quiet"]
    if out.suffix and not out.is_dir():
        raise click.BadParameter("with --dask the release is a folder (its implicate a Parquet "
                                 "folder written by the workers); give a folder name",
                                 param_hint="--out")
    check_release_target(out, force=force, inputs=[data])
    df = dask_input(data, a["read_kw"], a["dask"], **{
        "--generalize": a["generalize_"], "--suppress": a["suppress_"],
        "--subsample": a["subsample"] is not None, "--step": a["extra_steps"],
        "--record": a["record"]})
    seed = a["seed"]
    if seed is None:
        seed = int(np.random.SeedSequence().generate_state(1, dtype=np.uint32)[0])
    strata = [c.strip() for c in a["within"].split(",") if c.strip()] if a["within"] else None
    start: Any = drop_columns(df, a["drop"], "the data")
    columns = [str(c) for c in start.columns]
    random_steps = len(a["noise"]) + bool(a["swap_"]) + bool(a["rank_swap"])
    seeds = iter(int(s.generate_state(1, dtype=np.uint32)[0])
                 for s in np.random.SeedSequence(seed).spawn(random_steps))
    steps: list[tuple[str, dict[str, Any]]] = []
    done: list[dict[str, Any]] = []
    touched: dict[str, list[str]] = {}

    def add(step: str, label: str, cols: list[str], kw: dict[str, Any],
            params: dict[str, Any]) -> None:
        steps.append((step, kw))
        done.append({"step": label, "params": params})
        for c in cols:
            touched.setdefault(c, []).append(label)

    for option in ("--topcode", "--bottomcode"):
        name = option.lstrip("-")
        for spec in a[name]:
            names, arg = parse_spec(spec, option)
            at, pct = _censor_args(arg, option)
            col = _one(names, option)
            # a percentile's threshold is computed exactly on the workers; being a
            # confidential statistic, it is neither printed nor recorded
            add(name, name, names, {"column": col, "at": at, "percentile": pct},
                {"column": col, "at": at} if pct is None else {"column": col,
                                                               "percentile": pct})
    for spec in a["noise"]:
        names, arg = parse_spec(spec, "--noise")
        kind = "multiplicative" if a["multiplicative"] else "additive"
        scale = _number(arg, "--noise")
        add("add_noise", "noise", names,
            {"columns": names, "kind": kind, "scale": scale,
             "keep_variance": a["keep_variance"], "strata": strata, "random_state": next(seeds)},
            {"columns": names, "kind": kind, "scale": scale,
             "keep_variance": a["keep_variance"], "strata": strata})
    if a["swap_"]:
        names, arg = parse_spec(a["swap_"], "--swap")
        rate = _number(arg, "--swap")
        add("swap", "swap", names, {"columns": names, "rate": rate, "strata": strata,
                                    "random_state": next(seeds)},
            {"columns": names, "rate": rate, "strata": strata})
    if a["rank_swap"]:
        names, arg = parse_spec(a["rank_swap"], "--rank-swap")
        pct_rank = _number(arg, "--rank-swap")
        add("swap", "rank swap", names,
            {"columns": names, "method": "rank", "strata": strata,
             "max_rank_distance": pct_rank, "random_state": next(seeds)},
            {"columns": names, "percent": pct_rank, "strata": strata})
    if not done:
        raise click.UsageError("choose at least one method (see --help); with --dask: "
                               "--topcode, --bottomcode, --noise, --swap, --rank-swap")
    release = sdc_on_dask(start, steps)
    name = "protected.parquet"
    with release_folder(out, force=force, inputs=[data]) as tmp:
        pending = release.to_parquet(str(tmp / name), write_index=False, compute=False)
        with dask_progress("protecting on Dask", quiet) as progress:
            compute(pending, progress=progress)
        (tmp / METADATA_DIR).mkdir()
        steps_file = f"{METADATA_DIR}/steps.json"
        (tmp / steps_file).write_text(json.dumps(done, indent=2, default=str), encoding="utf-8")
        dask_info = {"strata": strata, "npartitions": int(df.npartitions),
                     "seeds": "random step i draws from the i-th child of SeedSequence(seed); "
                              "each stratum (each partition without strata) from "
                              "SeedSequence(step seed, spawn_key=(its hash or number,))"}
        write_manifest(tmp, ReleaseManifest(
            kind="protected", implicates=(name,), seed=seed,
            methods={c: "+".join(v) for c, v in touched.items() if c in columns},
            kept=tuple(c for c in columns if c not in touched),
            dropped=tuple(str(c) for c in df.columns if str(c) not in columns),
            columns=tuple(columns), metadata=(steps_file,),
            details={"steps": [d["step"] for d in done], "dask": dask_info},
        ))
    if not quiet:
        if random_steps and not strata:
            click.echo("note: without --strata each partition is a stratum on Dask (noise "
                       "scaled by the partition's standard deviation, swap partners in the "
                       "same partition)")
        click.echo(f"wrote {out / name} (a Parquet folder) with synthguard_manifest.json "
                   f"(kind protected, seed {seed}; steps: "
                   f"{', '.join(d['step'] for d in done)})")
