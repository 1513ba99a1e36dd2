"""``synthguard protect``: apply traditional SDC methods to a data file and write the release."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
import numpy as np

from synthguard.data.io import read_table, write_table

__all__ = ["parse_spec", "protect_cmd"]

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


def _censor_args(arg: str, option: str) -> tuple[float | None, float | None]:
    """``p94`` -> (None, 94) as (at, percentile); ``100000`` -> (100000, None)."""
    if arg.lower().startswith("p"):
        return None, _number(arg[1:], option)
    return _number(arg, option), None


def _one(names: list[str], option: str) -> str:
    if len(names) != 1:
        raise click.BadParameter("name exactly one column", param_hint=option)
    return names[0]


@click.command("protect")
@click.argument("data", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--out", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="File for the protected release (format from the extension).")
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
@click.option("--within", default=None, metavar="COL,COL",
              help="Strata for --swap, --rank-swap and --subsample.")
@click.option("--suppress", "suppress_", default=None, metavar="KEYS:K",
              help="Local suppression until k-anonymity on the keys, e.g. sex,age,region:3.")
@click.option("--subsample", default=None, type=click.FloatRange(0, 1, min_open=True),
              help="Release this fraction of the records.")
@click.option("--record", "record", default=None, type=click.Path(dir_okay=False, path_type=Path),
              help="Write what each step did (counts and public parameters) as JSON.")
@click.option("--seed", default=None, type=click.IntRange(min=0),
              help="Random seed (the seed used is printed and recorded either way).")
@click.option("--quiet", is_flag=True, help="No summary.")
def protect_cmd(
    data: Path,
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
    record: Path | None,
    seed: int | None,
    quiet: bool,
) -> None:
    """Protect DATA with traditional disclosure control and write the release to --out.

    Steps run in this order, each on the previous step's output: generalize, topcode,
    bottomcode, noise, swap, rank-swap, suppress, subsample. Thresholds derived from
    percentiles are confidential statistics: they are not printed, nor written to --record.

    \b
    Examples:
      synthguard protect conf.csv --out protected.csv --topcode income:p94 \\
          --swap region,age:0.05 --seed 1
      synthguard protect conf.csv --out p.csv --generalize age:0,18,65,120 \\
          --suppress sex,age,region:3
      synthguard protect conf.csv --out p.csv --noise income:0.1 --keep-variance \\
          --subsample 0.5 --within region --seed 7
    """
    from synthguard import sdc

    df = read_table(data)
    if seed is None:
        seed = int(np.random.SeedSequence().generate_state(1, dtype=np.uint32)[0])
    rng = np.random.default_rng(seed)
    strata = [c.strip() for c in within.split(",") if c.strip()] if within else None
    steps: list[tuple[str, Any]] = []
    release = df

    def apply(name: str, result: Any) -> None:
        nonlocal release
        release = result.data
        steps.append((name, result))

    for spec in generalize_:
        names, arg = parse_spec(spec, "--generalize")
        edges = [_number(e, "--generalize") for e in arg.split(",")]
        apply("generalize", sdc.generalize(release, _one(names, "--generalize"), bins=edges))
    for spec in topcode:
        names, arg = parse_spec(spec, "--topcode")
        at, pct = _censor_args(arg, "--topcode")
        apply("topcode", sdc.topcode(release, _one(names, "--topcode"), at=at, percentile=pct))
    for spec in bottomcode:
        names, arg = parse_spec(spec, "--bottomcode")
        at, pct = _censor_args(arg, "--bottomcode")
        apply("bottomcode", sdc.bottomcode(release, _one(names, "--bottomcode"), at=at,
                                           percentile=pct))
    for spec in noise:
        names, arg = parse_spec(spec, "--noise")
        apply("noise", sdc.add_noise(
            release, names, kind="multiplicative" if multiplicative else "additive",
            scale=_number(arg, "--noise"), keep_variance=keep_variance, random_state=rng,
        ))
    if swap_:
        names, arg = parse_spec(swap_, "--swap")
        apply("swap", sdc.swap(release, names, rate=_number(arg, "--swap"), within=strata,
                               random_state=rng))
    if rank_swap:
        names, arg = parse_spec(rank_swap, "--rank-swap")
        apply("rank swap", sdc.swap(release, names, method="rank", within=strata,
                                    max_rank_distance=_number(arg, "--rank-swap"),
                                    random_state=rng))
    if suppress_:
        names, arg = parse_spec(suppress_, "--suppress")
        k = _number(arg, "--suppress")
        if not k.is_integer():
            raise click.BadParameter("k must be a whole number", param_hint="--suppress")
        apply("suppress", sdc.suppress(release, names, k=int(k)))
    if subsample is not None:
        apply("subsample", sdc.subsample(release, subsample, within=strata, random_state=rng))
    if not steps:
        raise click.UsageError("choose at least one method (see --help)")
    # the record goes to a temporary file first, so an unwritable --record fails before the
    # release is written, and the two appear together
    record_tmp = None
    if record is not None:
        info = {
            "input": str(data),
            "output": str(out),
            "seed": seed,
            "steps": [
                {
                    "step": name,
                    "n_changed_records": r.n_changed_records,
                    "n_changed_cells": r.n_changed_cells,
                    "n_removed": len(r.removed),
                    "params": {k: v for k, v in r.params.items() if k not in r.confidential},
                }
                for name, r in steps
            ],
        }
        record.parent.mkdir(parents=True, exist_ok=True)
        record_tmp = record.with_name(f".{record.name}.tmp")
        record_tmp.write_text(json.dumps(info, indent=2, default=str))
    try:
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
