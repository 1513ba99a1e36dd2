"""``synthguard datasets``: list the bundled data sets, or write one to a file."""

from __future__ import annotations

from pathlib import Path

import click


@click.command("datasets")
@click.argument("name", required=False)
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write data set NAME to this file (.csv, .parquet, .dta, .sav) to try the "
                   "other commands on it.")
def datasets_cmd(name: str | None, out: Path | None) -> None:
    """List the data sets bundled with synthguard (name, description, licence), or write one.

    \b
    Examples:
      synthguard datasets
      synthguard datasets ce --out conf.csv
    """
    from synthguard.data.datasets import list_datasets
    from synthguard.errors import ParameterError

    if name is None:
        if out is not None:
            raise ParameterError("option --out: name the data set to write, e.g. "
                                 "synthguard datasets ce --out conf.csv")
        table = list_datasets()
        for key, row in table.iterrows():
            click.echo(f"{key:<18} {row['description']}  [{row['licence']}]")
        return
    from synthguard.data.datasets import load_dataset
    from synthguard.data.io import write_table

    df = load_dataset(name)
    if out is None:
        click.echo(df.to_csv(index=False), nl=False)
        return
    path = write_table(df, out)
    click.echo(f"wrote {name} ({len(df):,} rows, columns {', '.join(map(str, df.columns))}) "
               f"to {path}", err=True)
