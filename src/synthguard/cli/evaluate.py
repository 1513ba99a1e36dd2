"""``synthguard evaluate conf.csv release_dir/``: measure releases on disk and write the report."""

from __future__ import annotations

import sys

import click

from synthguard.cli.run import progress_bar, warnings_to_stderr

__all__ = ["evaluate_cmd"]


_EXAMPLES = {"--schema": "Race=categorical", "--threshold": "pmse_ratio=3", "--kind": "syn=full"}


def _pairs(values: tuple[str, ...], option: str) -> dict[str, str]:
    from synthguard.errors import ParameterError

    out = {}
    for v in values:
        name, sep, val = v.partition("=")
        if not sep or not name.strip() or not val.strip():
            raise ParameterError(f"option {option}: expected NAME=VALUE, e.g. {option} "
                                 f"{_EXAMPLES.get(option, 'NAME=VALUE')}")
        out[name.strip()] = val.strip()
    return out


def _split(values: tuple[str, ...]) -> list[str]:
    return [s.strip() for v in values for s in v.split(",") if s.strip()]


@click.command("evaluate")
@click.argument("conf", type=click.Path(exists=True, dir_okay=False))
@click.argument("releases", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("--keys", "keys", multiple=True, help="Key variables (comma-separated or repeated).")
@click.option("--target", "targets", multiple=True, required=True,
              help="Target variable(s) the intruder seeks (comma-separated or repeated).")
@click.option("--holdout", type=click.Path(exists=True, dir_okay=False), default=None,
              help="Confidential records not used to make the releases.")
@click.option("--radius", type=float, default=0.2, show_default=True,
              help="Relative radius of the identification ball.")
@click.option("--formula", "formulas", multiple=True, help="Regression formula to compare.")
@click.option("--threshold", "thresholds", multiple=True,
              help="METRIC=LIMIT, e.g. max_identification_risk=0.5 (repeatable).")
@click.option("--schema", "schema", multiple=True, help="COLUMN=KIND override (repeatable).")
@click.option("--kind", "kinds", multiple=True,
              help="RELEASE=partial|full|protected (default: partial when the release has as "
                   "many rows as the data, else full).")
@click.option("--report", "report", type=click.Path(dir_okay=False), default=None,
              help="Write the HTML report here.")
@click.option("--table", "table", type=click.Path(dir_okay=False), default=None,
              help="Write the comparison table (CSV) here.")
@click.option("--min-cell", type=int, default=10, show_default=True,
              help="Category levels with fewer confidential records are never named.")
@click.option("--max-distance-records", type=int, default=10_000, show_default=True,
              help="Above this many records, DCR and the membership attack use random samples "
                   "of this size (0: every record).")
@click.option("--seed", type=int, default=None, help="Seed of the randomised measures.")
@click.option("--quiet", "-q", is_flag=True, help="Print nothing but errors.")
def evaluate_cmd(conf: str, releases: tuple[str, ...], keys: tuple[str, ...],
                 targets: tuple[str, ...], holdout: str | None, radius: float,
                 formulas: tuple[str, ...], thresholds: tuple[str, ...], schema: tuple[str, ...],
                 kinds: tuple[str, ...], report: str | None, table: str | None, min_cell: int,
                 max_distance_records: int, seed: int | None, quiet: bool) -> None:
    """Evaluate the utility and disclosure risk of RELEASES against the confidential file CONF
    and print the comparison table. A release is a data file, a folder of implicates, or a
    folder of release folders (a run's releases/ folder).

    Exit codes: 0 ok, 1 a release fails a --threshold, 2 bad input.

    \b
    Examples:
      synthguard evaluate conf.csv syn/ --keys age,sex --target income --report out.html
      synthguard evaluate conf.csv out/releases/ --keys a,b --target income \\
          --threshold max_identification_risk=0.5 --threshold pmse_ratio=3
    """
    from synthguard.data.io import read_table, write_table
    from synthguard.data.schema import validate_frame
    from synthguard.errors import ParameterError
    from synthguard.report.evaluate import evaluate
    from synthguard.report.html import write_report
    from synthguard.report.loading import read_releases

    schema_map = _pairs(schema, "--schema")
    text_ok = [c for c, k in schema_map.items() if k in ("categorical", "ordinal", "binary")]
    conf_df = validate_frame(read_table(conf), text_overrides=text_ok)
    hold_df = validate_frame(read_table(holdout), name="holdout",
                             text_overrides=text_ok) if holdout else None
    if hold_df is not None:
        lacking = [str(c) for c in conf_df.columns if c not in hold_df.columns]
        if lacking:
            raise ParameterError(f"option --holdout: the holdout lacks column(s) "
                                 f"{', '.join(lacking)} of the data; give it the same columns")
    rel = read_releases(releases)
    limits: dict[str, float] = {}
    for name, val in _pairs(thresholds, "--threshold").items():
        try:
            limits[name] = float(val)
        except ValueError:
            raise ParameterError(f"option --threshold {name}: expected a number as the limit") from None
    kind_map = _pairs(kinds, "--kind")
    stray = [k for k in kind_map if k not in rel]
    if stray:
        raise ParameterError(f"option --kind names release(s) {', '.join(stray)} that are not "
                             f"among the releases ({', '.join(rel)})")
    for name, impl in rel.items():
        kind_map.setdefault(name, "partial" if all(len(df) == len(conf_df) for df in impl) else "full")
    with warnings_to_stderr(quiet), progress_bar(quiet, "synthguard evaluate") as cb:
        ev = evaluate(
            conf_df, rel, keys=_split(keys), targets=_split(targets), holdout=hold_df,
            formulas=list(formulas) or None, thresholds=limits or None, radius=radius,
            schema=schema_map or None, random_state=seed, progress=cb,
            kinds=kind_map, max_distance_records=max_distance_records or None,
        )
    if not quiet:
        click.echo(ev.summary())
    if table:
        write_table(ev.to_frame().reset_index(), table)
    if report:
        path = write_report(ev, report, min_cell=min_cell,
                            provenance={"data": conf, "releases": ", ".join(releases)})
        if not quiet:
            click.echo(f"report: {path}")
    if not ev.passed:
        click.echo(f"releases failing their thresholds: {', '.join(ev.failed)}", err=True)
        sys.exit(1)
