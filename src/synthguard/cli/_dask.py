"""``--dask TARGET``: the shared option that runs a command on Dask (``synthguard.scale``).

``local`` / ``local:N`` starts a LocalCluster of N worker processes for the command,
``tcp://HOST:PORT`` uses a running scheduler, ``sync`` runs Dask in this process. DATA may
then be a Parquet folder or a glob of CSV files. Dask is an optional extra; without it the
option says how to install it (exit code 2). Progress comes from the Dask scheduler and is
drawn in the command's progress bar.
"""

from __future__ import annotations

import contextlib
import importlib.util
import sys
from collections.abc import Callable, Iterator
from typing import Any

import click

__all__ = ["DASK_HELP", "dask_input", "dask_option", "dask_progress", "refuse_with_dask",
           "require_dask", "require_file"]

DASK_HELP = ("Run on Dask: local[:N] (a LocalCluster of N worker processes), tcp://HOST:PORT "
             "(a running scheduler) or sync. DATA may then be a Parquet folder or a glob of "
             "CSV files (quote it). Needs pip install 'synthguard[dask]'.")

INSTALL = "pip install 'synthguard[dask]'"


def require_dask(option: str = "--dask") -> None:
    """Raise a click usage error (exit 2) when Dask or distributed is not installed."""
    missing = [m for m in ("dask", "distributed") if importlib.util.find_spec(m) is None]
    if missing:
        raise click.UsageError(
            f"{option} needs Dask ({' and '.join(missing)} not installed): {INSTALL}")


def _check(ctx: click.Context, param: click.Parameter, value: str | None) -> Any:
    if value is None:
        return None
    require_dask()
    from synthguard.errors import ParameterError
    from synthguard.scale.client import parse_dask

    try:
        return parse_dask(value)
    except ParameterError as e:
        raise click.BadParameter(str(e).removeprefix("option --dask: "),
                                 param_hint="--dask") from None


def dask_option(f: Callable[..., Any]) -> Callable[..., Any]:
    """Add ``--dask TARGET``; the command receives ``dask`` (a parsed
    :class:`~synthguard.scale.client.DaskTarget`, or None)."""
    return click.option("--dask", "dask", default=None, metavar="TARGET", callback=_check,
                        help=DASK_HELP)(f)


@contextlib.contextmanager
def dask_progress(label: str, quiet: bool) -> Iterator[Callable[[int, int], None] | None]:
    """Yield ``progress(done, total)`` drawing the scheduler's task counts in a click bar on
    stderr (None when ``quiet``)."""
    if quiet:
        yield None
        return
    state: dict[str, Any] = {"bar": None, "done": 0}
    stack = contextlib.ExitStack()

    def progress(done: int, total: int) -> None:
        bar = state["bar"]
        if bar is None:
            bar = stack.enter_context(
                click.progressbar(length=max(total, 1), label=label, file=sys.stderr))
            state["bar"] = bar
        if total and bar.length != total:
            bar.length = total
        step = done - state["done"]
        if step > 0:
            bar.update(step)
            state["done"] = done

    with stack:
        yield progress


def refuse_with_dask(dask: Any, **options: Any) -> None:
    """Refuse options the Dask path does not take (name=value pairs, truthy = given)."""
    if dask is None:
        return
    given = [name for name, value in options.items() if value]
    if given:
        raise click.UsageError(
            f"{', '.join(given)} {'is' if len(given) == 1 else 'are'} not available with "
            f"--dask; drop {'it' if len(given) == 1 else 'them'} or run without --dask")


def require_file(path: Any, what: str = "'DATA'") -> None:
    """Without ``--dask``, the input must be one data file (bad input, exit 2, otherwise): a
    folder or a glob is read by the Dask path only."""
    import os

    text = os.fspath(path)
    if os.path.isfile(text):
        return
    if os.path.isdir(text) or any(ch in text for ch in "*?["):
        raise click.BadParameter(f"'{text}' is a folder or a glob; a Parquet folder or a glob "
                                 f"of CSV files needs --dask", param_hint=what)
    raise click.BadParameter(f"File '{text}' does not exist.", param_hint=what)


def dask_input(data: Any, read_kw: dict[str, Any], target: Any, **refused: Any) -> Any:
    """For a command's Dask path: refuse the options it does not take (name=value pairs, as
    :func:`refuse_with_dask`), start the Dask session on ``target`` for the rest of the
    command (closed when the command ends) and return DATA read lazily
    (:func:`synthguard.scale.read_dataset`)."""
    refuse_with_dask(target, **refused, **{"--strip": read_kw.get("strip")})
    import warnings

    from synthguard.scale import dask_session, read_dataset

    # a command peeking at the first rows (df.head(k)) of a small first partition: Dask's
    # notice that fewer rows came back is expected, not a problem (the filters are restored
    # when the command's warning block ends: cli/_options.py)
    warnings.filterwarnings("ignore", message="Insufficient elements for `head`",
                            category=UserWarning)

    click.get_current_context().with_resource(dask_session(target))
    return read_dataset(data, na_values=read_kw.get("na_values"))
