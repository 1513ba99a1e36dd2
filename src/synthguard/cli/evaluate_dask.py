"""``synthguard evaluate CONF RELEASES --dask TARGET``: the evaluation on Dask
(:func:`synthguard.evaluation.on_dask.evaluate`), with the same summary, report, verdict and exit
codes as without ``--dask``.

CONF may be a Parquet folder or a glob of CSV files; a release is a release folder (its
manifest lists the implicates, Parquet folders or files), a Parquet or CSV file, or a folder
of implicate files or of release folders. Everything is read lazily; the measures run on the
Dask target. What the Dask path does not compute is printed as ``not computed: ...`` and the
command exits 3 (1 when a threshold failed), as the pandas evaluation does for a measure it
could not compute. Options the Dask path does not take (holdout, attacks, regressions, survey
design, constraints) are refused, exit 2.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import click

__all__ = ["evaluate_on_dask", "load_dask_releases"]


def load_dask_releases(paths: Iterable[str | os.PathLike[str]]) -> dict[str, Any]:
    """Release name -> :class:`~synthguard.data.loading.LoadedRelease` whose implicates are
    Dask DataFrames read lazily (:func:`synthguard.scale.read_dataset`), found as
    :func:`synthguard.data.loading.load_releases` finds them."""
    from synthguard.data.loading import (
        _LEGACY_METADATA,
        LoadedRelease,
        _data_files,
        _is_release_dir,
        _natural,
    )
    from synthguard.data.manifest import MANIFEST_NAME, read_manifest
    from synthguard.errors import FileFormatError
    from synthguard.scale import read_dataset

    out: dict[str, Any] = {}

    def add(rel: Any) -> None:
        if rel.name in out:
            raise FileFormatError(f"two releases are named '{rel.name}'; rename a file or folder")
        out[rel.name] = rel

    def folder(name: str, d: Path) -> Any:
        manifest = read_manifest(d)
        skipped: tuple[str, ...] = ()
        if manifest is not None:
            files = [d / f for f in manifest.implicates]
        else:
            found = _data_files(d)
            files = [f for f in found if not _LEGACY_METADATA.fullmatch(f.stem)]
            skipped = tuple(f.name for f in found if f not in files)
            if not files:
                raise FileFormatError(f"release folder '{d}' holds no implicates")
        return LoadedRelease(name=name, path=d, implicates=[read_dataset(f) for f in files],
                             manifest=manifest, skipped=skipped)

    for raw in paths:
        p = Path(raw)
        if not p.exists():
            raise FileFormatError(f"release path '{p}' does not exist")
        if p.is_file():
            add(LoadedRelease(name=p.stem, path=p, implicates=[read_dataset(p)]))
        elif (p / MANIFEST_NAME).is_file() or _data_files(p):
            add(folder(p.name, p))
        else:
            subdirs = sorted((d for d in p.iterdir() if _is_release_dir(d)), key=_natural)
            if not subdirs:
                raise FileFormatError(f"release folder '{p}' holds no data files or release "
                                      f"folders")
            for d in subdirs:
                add(folder(d.name, d))
    return out


def evaluate_on_dask(args: Mapping[str, Any]) -> None:
    """Evaluate RELEASES against CONF on the Dask ``target``; print and exit as
    ``synthguard evaluate`` does."""
    from synthguard.cli._dask import refuse_with_dask
    from synthguard.cli._drop import drop_columns
    from synthguard.cli.evaluate import (
        _align_columns,
        _line,
        _open_ledgers,
        _pairs,
        _resolve_kinds,
        _split,
        exit_with_verdict,
        report_problems,
    )
    from synthguard.cli.run import progress_bar, warnings_to_stderr
    from synthguard.data.io import write_table
    from synthguard.errors import ParameterError
    from synthguard.evaluation import KINDS
    from synthguard.evaluation.on_dask import evaluate
    from synthguard.report.html import write_report
    from synthguard.scale import dask_session, read_dataset

    a = dict(args)
    target, quiet, read_kw = a["dask"], a["quiet"], a["read_kw"]
    refuse_with_dask(target, **{
        "--holdout": a["holdout"], "--formula": a["formulas"], "--constraints":
        a["constraints_file"], "--by": a["by"], "--weights": a["weights"], "--strata":
        a["strata"], "--clusters": a["clusters"], "--attacks": a["attacks"],
        "--strip": read_kw.get("strip")})
    conf, releases, drop, report = a["conf"], a["releases"], a["drop"], a["report"]
    keys, targets = _split(a["keys"]), _split(a["targets"])
    schema_map = _pairs(a["schema"], "--schema")
    limits = {}
    for name, val in _pairs(a["thresholds"], "--threshold").items():
        try:
            limits[name] = float(val)
        except ValueError:
            raise ParameterError(f"option --threshold {name}: expected a number as the "
                                 f"limit") from None
    kind_map = _pairs(a["kinds"], "--kind")
    bad = [k for k, v in kind_map.items() if v not in KINDS]
    if bad:
        raise ParameterError(f"option --kind: release(s) {', '.join(bad)} have an unknown kind;"
                             f" use one of {', '.join(KINDS)}")
    echo = (lambda s: None) if quiet else click.echo
    with dask_session(target):
        conf_df = drop_columns(read_dataset(conf, na_values=read_kw.get("na_values")), drop,
                               "CONF")
        unknown = [c for c in (*keys, *targets) if c not in conf_df.columns]
        if unknown:
            raise ParameterError(f"options --keys/--target name columns that are not in the "
                                 f"data: {', '.join(unknown)}")
        loaded = load_dask_releases(releases)
        if drop:
            for r in loaded.values():
                r.implicates[:] = [drop_columns(df, drop, required=False)
                                   for df in r.implicates]
        stray = [k for k in kind_map if k not in loaded]
        if stray:
            raise ParameterError(f"option --kind names release(s) {', '.join(stray)} that are "
                                 f"not among the releases ({', '.join(loaded)})")
        rel = _align_columns(conf_df, loaded, a["common_columns"], echo)
        kinds = _resolve_kinds(loaded, kind_map, echo)
        ledger, unread = _open_ledgers(loaded, lambda s: click.echo(_line(s), err=True))
        with warnings_to_stderr(quiet):
            with progress_bar(quiet, "synthguard evaluate (Dask)") as cb:
                ev = evaluate(
                    conf_df, rel, keys=keys, targets=targets, kinds=kinds,
                    thresholds=limits or None, radius=a["radius"],
                    schema=schema_map or None, random_state=a["seed"],
                    max_distance_records=a["max_distance_records"] or None,
                    default_thresholds=not a["no_defaults"], progress=cb,
                )
            echo(ev.summary())
            for name, why in unread.items():  # the report's ledger section says the same
                echo(f"{name}: privacy ledger not read: {why}; the privacy budget this DP "
                     "release spent is unknown here (not computed), not zero")
            if a["table"]:
                write_table(ev.to_frame().reset_index(), a["table"])
            if report:
                provenance = {"data": conf, "releases": ", ".join(releases),
                              "engine": f"Dask ({_describe(target)})"}
                for name, r in loaded.items():
                    provenance[f"release {name}"] = f"{r.describe()}; evaluated as {kinds[name]}"
                    if r.manifest is not None:
                        provenance[f"release {name}"] += (
                            f"; seed {r.manifest.seed}; written {r.manifest.created} by "
                            f"synthguard {r.manifest.versions.get('synthguard', '?')}")
                path = write_report(ev, report, min_cell=a["min_cell"], ledger=ledger,
                                    provenance=provenance,
                                    dp_releases=[n for n, r in loaded.items() if r.is_dp],
                                    ledger_unread=unread)
                echo(f"report: {path}")
    report_problems(ev, quiet)
    exit_with_verdict(ev, unread)


def _describe(target: Any) -> str:
    if target.kind == "local":
        return "local cluster" + (f" of {target.n_workers} workers" if target.n_workers else "")
    if target.kind == "remote":
        return f"scheduler {target.address}"
    return "synchronous scheduler"
