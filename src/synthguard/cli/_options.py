"""Options shared by every command that reads a data file: ``--na-values`` and ``--strip``.

Apply :func:`read_options` under a command's ``@click.command``; the command receives one
keyword ``read_kw`` to pass on: ``read_table(path, **read_kw)``. Warnings raised while the
command runs (InputWarning about spaces or missing-value codes, ...) are printed as one
``warning: ...`` line each on stderr.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import click

__all__ = ["read_kwargs", "read_options"]


def read_kwargs(na_values: tuple[str, ...] | list[str], strip: bool) -> dict[str, Any]:
    """The keywords of :func:`synthguard.data.read_table` for ``--na-values`` and ``--strip``
    (each ``--na-values`` may hold several codes separated by commas)."""
    tokens = [t for v in na_values for t in str(v).split(",") if t != ""]
    out: dict[str, Any] = {}
    if tokens:
        out["na_values"] = tokens
    if strip:
        out["strip"] = True
    return out


def read_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """Add ``--na-values CODE,CODE`` and ``--strip`` to a click command; pass ``read_kw``."""

    @functools.wraps(f)
    def wrapper(*args: Any, na_values: tuple[str, ...] = (), strip: bool = False,
                **kwargs: Any) -> Any:
        from synthguard.cli._render import warnings_to_stderr

        with warnings_to_stderr(bool(kwargs.get("quiet", False))):
            return f(*args, read_kw=read_kwargs(na_values, strip), **kwargs)

    wrapper = click.option(
        "--strip", is_flag=True,
        help="Trim spaces around column names and values (' Male' -> 'Male').")(wrapper)
    wrapper = click.option(
        "--na-values", "na_values", multiple=True, metavar="CODE,CODE",
        help="Values that mean missing in the data file, e.g. --na-values '?,-9' "
             "(besides an empty field and NA).")(wrapper)
    return wrapper
