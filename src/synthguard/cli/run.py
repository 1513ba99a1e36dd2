"""``synthguard run plan.yaml``: make, measure and report every release of a plan."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from synthguard.cli._dask import dask_option
from synthguard.cli._render import (
    exit_with_verdict,
    progress_bar,
    report_problems,
    warnings_to_stderr,
)

__all__ = ["run_cmd"]


def _echo(quiet: bool) -> Callable[[str], None]:
    return (lambda s: None) if quiet else click.echo


@click.command("run")
@click.argument("plan", type=click.Path(dir_okay=False))
@click.option("--out", "output", type=click.Path(file_okay=False), default=None,
              help="Output folder (overrides the plan's 'output').")
@click.option("--force", is_flag=True,
              help="Replace the releases of an earlier run in the output folder as a whole "
                   "(otherwise refused, before anything is made; the privacy ledger is kept).")
@click.option("--quiet", "-q", is_flag=True,
              help="Print nothing but errors and the measures not computed.")
@dask_option
def run_cmd(plan: str, output: str | None, force: bool, quiet: bool, dask: Any = None) -> None:
    """Run PLAN (YAML): read the data, make every release, evaluate them and write the
    releases (one release folder each, with synthguard_manifest.json), the privacy ledger and
    one HTML report to the output folder.

    \b
    Exit codes:
      0  every measure computed and every release meets the plan's thresholds
      1  a release fails a threshold
      2  bad input (a plan that does not validate, unreadable data, an output folder
         holding an earlier run's releases without --force)
      3  a requested measure could not be computed (one line each on stderr)
    When 1 and 3 both apply, the exit code is 1.

    \b
    Examples:
      synthguard init conf.csv --out plan.yaml
      synthguard run plan.yaml
      synthguard run examples/plan.yaml --out ce_output --quiet
    """
    from dataclasses import replace
    from pathlib import Path

    from synthguard.pipeline.pipeline import run_plan
    from synthguard.pipeline.plan import load_plan

    p = load_plan(plan)
    if output is not None:
        p = replace(p, output=Path(output))
    fix = "set strip: true or na_values: under data.read_options in the plan"
    label = "synthguard run" if dask is None else "synthguard run (Dask)"
    with warnings_to_stderr(quiet, fix), \
            progress_bar(quiet, label) as cb:
        try:
            result = run_plan(p, progress=cb, force=force, dask=dask)
        except BaseException as e:  # what a failed run kept (a paid DP release), said
            for note in getattr(e, "__notes__", ()):
                if str(note).startswith("note: "):
                    click.echo(note, err=True)
            raise
    echo = _echo(quiet)
    for line in result.lines:
        echo(line)
    if not quiet:
        for note in result.notes:
            click.echo(note, err=True)
    echo(result.evaluation.summary())
    for name, rel in result.releases.items():  # the report's header says the same
        if getattr(rel, "dp", True) is False:
            echo(f"{name}: NOT differentially private: its levels or bins were read from the "
                 "confidential data (domain_from_data: not-dp), so no epsilon or delta bounds "
                 "what it discloses, whatever the ledger records for it")
    echo(f"releases: {result.output / 'releases'}")
    if result.ledger_path is not None:
        echo(f"privacy ledger: {result.ledger_path}")
    echo(f"report: {result.report_path}")
    report_problems(result.evaluation, quiet)
    exit_with_verdict(result.evaluation)
