"""``--drop COL[,COL]`` for the commands that read a confidential file (evaluate, protect, dp).

The columns are removed right after the file is read, before anything else looks at it, as
``synthesize --drop`` and a plan's ``drop:`` do: identifiers (record numbers, ids, names) that
must not be released, measured or used as predictors.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["drop_columns", "drop_option"]


def drop_option(help_text: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The ``--drop`` option (repeatable, comma-separated), passed as ``drop``."""
    return click.option("--drop", "drop", multiple=True, metavar="COL[,COL]", help=help_text)


def split_drop(values: tuple[str, ...]) -> list[str]:
    return [c.strip() for v in values for c in v.split(",") if c.strip()]


def drop_columns(df: pd.DataFrame, values: tuple[str, ...] | list[str], what: str = "the data",
                 required: bool = True) -> pd.DataFrame:
    """``df`` without the ``--drop`` columns. A name not in ``df`` is bad input when
    ``required`` (the confidential file), skipped otherwise (a release that never had it)."""
    from synthguard.errors import ParameterError

    cols = split_drop(tuple(values)) if not isinstance(values, list) else values
    if not cols:
        return df
    unknown = [c for c in cols if c not in df.columns]
    if unknown and required:
        raise ParameterError(f"option --drop: column(s) {', '.join(unknown)} are not in "
                             f"{what}; name columns of the file")
    present = [c for c in cols if c in df.columns]
    return df.drop(columns=present) if present else df
