"""``synthguard dp query``: statistics on demand from a queries file, per privacy unit."""

from __future__ import annotations

import os
import shutil
import time
import warnings
from pathlib import Path

import click

from synthguard.errors import PrivacyWarning

__all__ = ["query_cmd"]


@click.command("query")
@click.argument("queries", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Release folder: one CSV per query, report.html, ledger.json, release.json "
                   "(refused when it holds files, unless --force). Required unless --dry-run.")
@click.option("--ledger", "ledger_path", type=click.Path(dir_okay=False, path_type=Path),
              default=None, help="Ledger file (overrides the file's 'ledger'; default "
                                 "<queries file>.ledger.json beside it). It persists: a budget "
                                 "spent stays spent.")
@click.option("--dry-run", is_flag=True,
              help="Print each query's epsilon, noise scale and interval half-width; spend "
                   "nothing, write nothing.")
@click.option("--seed", type=int, default=None,
              help="SIMULATION ONLY: seeded numpy noise, not for release.")
@click.option("--raw-noisy", is_flag=True,
              help="Publish the raw noisy counts and sums (some negative or fractional) instead "
                   "of non-negative integers (the default: rounded and clamped at 0, intervals "
                   "clamped too; post-processing at no privacy cost). Same as the file's "
                   "'raw_noisy: true'.")
@click.option("--force", is_flag=True, help="Replace the release already in --out.")
@click.option("--quiet", "-q", is_flag=True, help="No summary on stdout.")
def query_cmd(queries: Path, out: Path | None, ledger_path: Path | None, dry_run: bool,
              seed: int | None, force: bool, quiet: bool, raw_noisy: bool = False) -> None:
    """Answer the queries of QUERIES (YAML) within its budget, charging the unit-level cost of
    each on the ledger before any noise, and write the release into OUT.

    Counts are published as non-negative integers (rounded, clamped at 0, their intervals
    clamped too) unless --raw-noisy. OUT holds one CSV per query, report.html, ledger.json and
    release.json; an OUT that holds files is refused unless --force, which replaces an earlier
    release as a whole.

    Exit codes: 0 written (or planned with --dry-run), 2 bad input, an OUT already holding
    files without --force, or a budget the queries would overspend (nothing spent, nothing
    written).

    \b
    Example queries.yaml:
      data: {path: persons.csv}
      privacy_unit: hid
      max_rows: 5
      epsilon: 1.0
      queries:
        by_sex:
          by: {sex: [Male, Female]}
          aggregations: {n: count, households: count_distinct,
                         hours: {mean: hours_per_week, bounds: [0, 100]}}
          epsilon: 0.4
    \b
      synthguard dp query queries.yaml --dry-run
      synthguard dp query queries.yaml --out release/
    """
    from dataclasses import replace

    from synthguard.data.io import read_table
    from synthguard.data.manifest import check_release_target, release_folder
    from synthguard.errors import ParameterError
    from synthguard.pipeline.dp_queries import load_queries, run_queries

    started = time.perf_counter()
    spec = load_queries(queries)
    if ledger_path is not None:
        spec = replace(spec, ledger_path=ledger_path.resolve())
    if raw_noisy:
        spec = replace(spec, raw_noisy=True)
    if out is None and not dry_run:
        raise ParameterError("option --out: give the release folder (or --dry-run)")
    if not spec.data_path.is_file():
        raise ParameterError(f"{spec.source}: data.path: file '{spec.data_path.name}' does not "
                             "exist (paths are relative to the queries file)")
    echo = (lambda s: None) if quiet else click.echo
    data = read_table(spec.data_path)
    if dry_run:
        new = not spec.ledger_path.exists()
        try:
            session, results = run_queries(spec, data, dry_run=True)
        finally:
            if new:  # a dry run leaves no ledger behind
                spec.ledger_path.unlink(missing_ok=True)
                spec.ledger_path.with_name(spec.ledger_path.name + ".lock").unlink(
                    missing_ok=True)
        for r in results:
            echo(f"query '{r.label}': epsilon={r.epsilon:.4g} (unit: {r.privacy_unit})")
            echo(r.plan.drop(columns=["privacy_unit"]).to_string(index=False))
        echo(f"total: epsilon={sum(r.epsilon for r in results):.4g}; "
             f"left on the ledger: epsilon={session.remaining.epsilon:.4g} (nothing spent)")
        return
    assert out is not None
    check_release_target(out, force=force, inputs=[spec.data_path])  # before any spending
    new_ledger = not spec.ledger_path.exists()
    with release_folder(out, force=force, inputs=[spec.data_path]) as tmp:
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", PrivacyWarning)
                session, results = run_queries(spec, data, noise_seed=seed)
        except BaseException:
            if new_ledger and not _charged(spec.ledger_path):
                spec.ledger_path.unlink(missing_ok=True)
                spec.ledger_path.with_name(spec.ledger_path.name + ".lock").unlink(
                    missing_ok=True)
            raise
        shutil.copyfile(spec.ledger_path, tmp / "ledger.json")
        from synthguard.pipeline.dp_queries_release import write_queries_release

        files = write_queries_release(
            tmp, results, session, title=f"DP statistics: {queries.name}",
            provenance={"queries file": queries.name, "release folder": str(out),
                        "noise": results[0].noise if results else "",
                        "time": f"{time.perf_counter() - started:.1f} s"},
            raw_noisy=spec.raw_noisy, ledger_ref="ledger.json", seed=seed,
            extra={"ledger_source": Path(os.path.relpath(spec.ledger_path,
                                                         out.resolve())).as_posix()})
    for w in caught:
        click.echo(f"warning: {w.message}", err=True)
    for f in files:
        echo(f"wrote {out / f}")
    echo(f"wrote {out / 'report.html'}")
    echo(str(session.ledger))


def _charged(path: Path) -> bool:
    from synthguard.dp import PrivacyLedger

    try:
        return bool(PrivacyLedger.open(path).charges)
    except Exception:
        return True  # unreadable: leave it for the user to look at
