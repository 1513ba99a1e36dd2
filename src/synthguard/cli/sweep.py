"""``synthguard sweep plan.yaml``: try every setting of a plan's swept release, release the one
the gate picks."""

from __future__ import annotations

import sys
from typing import Any

import click

from synthguard.cli._render import EXIT_THRESHOLD_FAILED, progress_bar, warnings_to_stderr

__all__ = ["sweep_cmd"]


@click.command("sweep")
@click.argument("plan", type=click.Path(dir_okay=False))
@click.option("--out", "output", type=click.Path(file_okay=False), default=None,
              help="Output folder (overrides the plan's 'output').")
@click.option("--force", is_flag=True,
              help="Replace the releases of an earlier run in the output folder (otherwise "
                   "refused, before anything is made).")
@click.option("--n-attacks", type=click.IntRange(min=1), default=500, show_default=True,
              help="Queries per singling-out attack (anonymeter's default 500; fewer is faster "
                   "and noisier).")
@click.option("--quiet", "-q", is_flag=True,
              help="Print nothing but errors and the verdict.")
def sweep_cmd(plan: str, output: str | None, force: bool, n_attacks: int, quiet: bool) -> None:
    """Sweep PLAN's release: make one release per configuration of its 'sweep:' grid, measure
    each against the plan's holdout, and release the most useful configuration that passes
    every threshold (the gate). Writes the chosen release folder, sweep.csv (one row per
    configuration), frontier.png and the report with its risk–utility frontier.

    \b
    In the plan, under a synthesis release:
      sweep:
        rare_values: [0, 5, 10]
        extremes: [0, 5]

    \b
    Exit codes:
      0  a configuration passed every threshold and was released
      1  no configuration passed (each one's failed thresholds are printed), or the chosen
         one failed its full evaluation; nothing released
      2  bad input (a plan without exactly one 'sweep:', unreadable data, an output folder
         holding an earlier run's releases without --force)

    \b
    Examples:
      synthguard init adult.csv --out plan.yaml     # then add 'sweep:' to the release
      synthguard sweep plan.yaml
      synthguard sweep plan.yaml --out sweep_out --force --n-attacks 200
    """
    from dataclasses import replace
    from pathlib import Path

    from synthguard.pipeline.plan import load_plan
    from synthguard.pipeline.sweep_run import run_sweep

    p = load_plan(plan)
    if output is not None:
        p = replace(p, output=Path(output))
    n = next((_grid_size(s.params["sweep"]) for s in p.releases if "sweep" in s.params), 0)
    others = [s.name for s in p.releases if "sweep" not in s.params]
    if others and not quiet:
        click.echo(f"note: only the swept release is made; {', '.join(others)} "
                   f"{'is' if len(others) == 1 else 'are'} not (make them with `synthguard run` "
                   f"from a plan without the sweep)", err=True)
    with warnings_to_stderr(quiet), progress_bar(quiet, f"synthguard sweep ({n} configurations)"
                                                 ) as cb:
        result = run_sweep(p, progress=cb, force=force, n_attacks=n_attacks)
    s = result.sweep
    if not quiet:
        click.echo(s.table[[c for c in ("pmse_ratio", "ci_overlap", "singling_out_risk",
                                        "singling_out_multivariate_risk", "replicated_uniques",
                                        "disco", "rare_values_released", "extremes_released",
                                        "seconds") if c in s.table]]
                   .to_string(float_format=lambda v: f"{v:.3g}"))
        click.echo("gate:")
        for line in s.decision.lines:
            click.echo(f"  {line}")
        for line in s.reading_lines():
            click.echo(line)
        click.echo(f"sweep table: {result.table_path}")
        click.echo(f"frontier figure: {result.figure_path}")
        click.echo(f"report: {result.report_path}")
    if result.released:
        click.echo(result.verdict)
        return
    click.echo(result.verdict, err=True)
    sys.exit(EXIT_THRESHOLD_FAILED)


def _grid_size(grid: Any) -> int:
    from synthguard.pipeline.sweep import expand_grid

    try:
        return len(expand_grid(grid))
    except Exception:  # the sweep itself reports a bad grid
        return 0
