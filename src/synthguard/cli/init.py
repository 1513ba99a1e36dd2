"""``synthguard init data.csv``: write a commented example plan for a data file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from synthguard.cli._options import read_options

__all__ = ["init_cmd"]


@click.command("init")
@click.argument("data", type=click.Path(exists=True, dir_okay=False))
@read_options
@click.option("--out", "out", type=click.Path(dir_okay=False), default=None,
              help="Write the plan to this file instead of standard output.")
@click.option("--seed", type=int, default=20240101, show_default=True,
              help="Seed written into the plan.")
@click.option("--force", is_flag=True, help="Overwrite --out if it exists.")
def init_cmd(data: str, read_kw: dict[str, Any], out: str | None, seed: int, force: bool) -> None:
    """Write a commented plan for DATA: the inferred schema, guessed key variables (few-level
    demographic and geographic columns), the target (the most sensitive-looking numeric
    column), a partially and a fully synthetic release, a top-coded release, and thresholds.
    Identifier columns are left out. Every guess is marked "# guess: check". Edit it, then
    `synthguard run` it.

    \b
    Examples:
      synthguard init conf.csv > plan.yaml
      synthguard init conf.csv --out plan.yaml
      synthguard run plan.yaml
    """
    from synthguard.errors import ParameterError
    from synthguard.pipeline.scaffold import init_plan

    if out is None:
        click.echo(init_plan(data, seed=seed, read_options=read_kw), nl=False)
        return
    target = Path(out)
    if target.exists() and not force:
        raise ParameterError(f"'{target}' exists; pass --force to overwrite it")
    text = init_plan(data, plan_dir=target.parent, seed=seed, read_options=read_kw)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    click.echo(f"plan written to {target}; edit it, then: synthguard run {target}", err=True)
