"""``synthguard datasets``: list the bundled data sets."""

from __future__ import annotations

import click

from synthguard.data.datasets import list_datasets


@click.command("datasets")
def datasets_cmd() -> None:
    """List the data sets bundled with synthguard (name, description, licence).

    \b
    Example:
      synthguard datasets
    """
    table = list_datasets()
    for name, row in table.iterrows():
        click.echo(f"{name:<18} {row['description']}  [{row['licence']}]")
