"""``synthguard synthesize --dask``: the release made by :func:`synthguard.scale.synthesize`.

Same release folder as without ``--dask`` (implicates, ``metadata/provenance.json``,
``synthguard_manifest.json``), with each implicate a Parquet folder written by the workers
(or one CSV with ``--format csv``); the manifest's details record the Dask plan (strata on
workers, or a fit sample and per-partition draws), the blocks and the seed derivation.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

__all__ = ["synthesize_on_dask"]


def synthesize_on_dask(data: Path, out: Path, target: Any, params: dict[str, Any], *,
                       fmt: str, prefix: str, force: bool, quiet: bool,
                       na_values: list[str] | None) -> None:
    """Read DATA with Dask, synthesize on ``target`` and write the release folder ``out``."""
    from synthguard.cli._dask import dask_progress
    from synthguard.data.manifest import (
        METADATA_DIR,
        ReleaseManifest,
        release_folder,
        write_manifest,
    )
    from synthguard.scale import dask_session, read_dataset
    from synthguard.scale import synthesize as scale_synthesize

    params = dict(params)
    params.pop("n_jobs", None)  # the workers are the parallelism
    with dask_session(target):
        ddf = read_dataset(data, na_values=na_values)
        result = scale_synthesize(ddf, **params)
        with release_folder(out, force=force, inputs=[data]) as tmp:
            with dask_progress("synthesizing on Dask", quiet) as progress:
                names = result.write(tmp, prefix=prefix, fmt=fmt, progress=progress)
            (tmp / METADATA_DIR).mkdir()
            info = {"kind": result.kind, "m": result.m, "seed": result.seed,
                    "synthesized": list(result.synthesized), "kept": list(result.kept),
                    "methods": dict(result.methods), "provenance": result.provenance()}
            meta = f"{METADATA_DIR}/provenance.json"
            (tmp / meta).write_text(json.dumps(info, indent=2, default=str), encoding="utf-8")
            columns = [str(c) for c in result.implicates[0].columns]
            write_manifest(tmp, ReleaseManifest(
                kind=result.kind, implicates=tuple(names), seed=result.seed,
                methods=dict(result.methods), kept=tuple(result.kept),
                dropped=tuple(str(c) for c in ddf.columns if str(c) not in columns),
                columns=tuple(columns), metadata=(meta,),
                details={"dask": result.provenance()},
            ))
    if not quiet:
        how = (f"{result.n_blocks} strata on workers" if result.plan == "strata" else
               f"models fitted on a sample of {result.fit_rows} records, drawn in "
               f"{result.n_blocks} partitions")
        if result.safeguards is not None:
            per = "stratum" if result.plan == "strata" else "partition's draw"
            click.echo(result.safeguards.summary())
            click.echo(f"(the safeguards act within each {per}: summed over the "
                       f"{result.n_blocks} blocks)")
        click.echo(f"wrote {result.m} implicate(s) ({fmt}) to {out} with "
                   f"synthguard_manifest.json (seed {result.seed}; {how})")
