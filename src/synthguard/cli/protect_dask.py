"""``synthguard protect DATA --out DIR --dask TARGET``: traditional SDC on Dask
(the :mod:`synthguard.sdc` steps, given a Dask frame), written by the workers as a release folder.

Steps, in the order of the pandas command: ``--topcode`` and ``--bottomcode`` at a public value
or a percentile (computed exactly on the workers; equal to the pandas command row for row), ``--noise``, ``--swap`` and
``--rank-swap`` within ``--strata`` (one shuffle puts each stratum in one partition; stratum
``s`` of step ``i`` draws from ``SeedSequence(seed_i, spawn_key=(hash of s,))`` with ``seed_i``
the ``i``-th child of the ``--seed``'s ``SeedSequence``, so the release depends on the seed and
the data, not on the partitioning). Without ``--strata`` the noise is scaled by the whole
column's standard deviation and partition ``j`` draws from ``spawn_key=(j,)``; swapping needs
``--strata``. The
records are written in the input's order, so ``evaluate`` pairs each with its confidential
record. Local suppression, subsampling, generalization and registered ``--step``s are refused
with exit 2.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal

import click
import numpy as np

__all__ = ["protect_on_dask"]

_ORDER = "_synthguard_order"  # the input's row number, to write the records in that order


def _step_seeds(seed: int, n: int) -> list[int]:
    """One integer seed per random step: the children of ``SeedSequence(seed)``."""
    return [int(s.generate_state(1, dtype=np.uint32)[0])
            for s in np.random.SeedSequence(seed).spawn(n)]


def protect_on_dask(args: Mapping[str, Any]) -> None:
    """Protect DATA on the Dask target and write the release folder --out."""
    from synthguard import scale
    from synthguard._dask.partitions import ROW, with_row_numbers
    from synthguard.cli._dask import dask_input, dask_progress
    from synthguard.cli._drop import drop_columns
    from synthguard.cli.protect import _censor_args, _number, _one, parse_spec
    from synthguard.data.manifest import (
        METADATA_DIR,
        ReleaseManifest,
        check_release_target,
        release_folder,
        write_manifest,
    )
    from synthguard.scale.progress import compute

    a = dict(args)
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
    release: Any = drop_columns(df, a["drop"], "the data")
    columns = [str(c) for c in release.columns]
    random_steps = len(a["noise"]) + bool(a["swap_"]) + bool(a["rank_swap"])
    if strata and random_steps:  # shuffled by stratum: remember the input's order
        numbered, _ = with_row_numbers(release)
        release = numbered.rename(columns={ROW: _ORDER})
    seeds = iter(_step_seeds(seed, random_steps))
    done: list[dict[str, Any]] = []
    touched: dict[str, list[str]] = {}

    def record(name: str, cols: list[str], params: dict[str, Any]) -> None:
        done.append({"step": name, "params": params})
        for c in cols:
            touched.setdefault(c, []).append(name)

    for option, fn in (("--topcode", scale.topcode), ("--bottomcode", scale.bottomcode)):
        for spec in a[option.lstrip("-")]:
            names, arg = parse_spec(spec, option)
            at, pct = _censor_args(arg, option)
            col = _one(names, option)
            # a percentile's threshold is computed exactly on the workers; being a
            # confidential statistic, it is neither printed nor recorded
            release = fn(release, col, at=at, percentile=pct).data
            record(option.lstrip("-"), names,
                   {"column": col, "at": at} if pct is None else {"column": col,
                                                                  "percentile": pct})
    for spec in a["noise"]:
        names, arg = parse_spec(spec, "--noise")
        kind: Literal["additive", "multiplicative"] = "multiplicative" if a["multiplicative"] else "additive"
        release = scale.add_noise(release, names, kind=kind, scale=_number(arg, "--noise"),
                                  keep_variance=a["keep_variance"], strata=strata,
                                  random_state=next(seeds)).data
        record("noise", names, {"columns": names, "kind": kind, "scale": _number(arg, "--noise"),
                                "keep_variance": a["keep_variance"], "strata": strata})
    if a["swap_"]:
        names, arg = parse_spec(a["swap_"], "--swap")
        release = scale.swap(release, names, rate=_number(arg, "--swap"), strata=strata,
                             random_state=next(seeds)).data
        record("swap", names, {"columns": names, "rate": _number(arg, "--swap"),
                               "strata": strata})
    if a["rank_swap"]:
        names, arg = parse_spec(a["rank_swap"], "--rank-swap")
        release = scale.swap(release, names, method="rank", strata=strata,
                             max_rank_distance=_number(arg, "--rank-swap"),
                             random_state=next(seeds)).data
        record("rank swap", names, {"columns": names, "percent": _number(arg, "--rank-swap"),
                                    "strata": strata})
    if not done:
        raise click.UsageError("choose at least one method (see --help); with --dask: "
                               "--topcode, --bottomcode, --noise, --swap, --rank-swap")
    if _ORDER in release.columns:
        release = release.sort_values(_ORDER).drop(columns=[_ORDER])
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
            click.echo("note: without --strata the noise is scaled by the whole column's "
                       "standard deviation and each partition draws from its own seed")
        click.echo(f"wrote {out / name} (a Parquet folder) with synthguard_manifest.json "
                   f"(kind protected, seed {seed}; steps: "
                   f"{', '.join(d['step'] for d in done)})")
