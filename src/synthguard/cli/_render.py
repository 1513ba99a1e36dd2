"""How every command renders: exit codes, warnings and progress on stderr, the problems an
evaluation found and its verdict (the exit code).

The command modules import these; this module imports no command (no cycle among the CLI's
modules: tests/cli/test_cli_imports.py).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping
from contextlib import contextmanager
from typing import Any

import click

__all__ = ["EXIT_BAD_INPUT", "EXIT_NOT_COMPUTED", "EXIT_OK", "EXIT_THRESHOLD_FAILED",
           "exit_with_verdict", "line", "progress_bar", "report_problems",
           "warnings_to_stderr"]

EXIT_OK = 0
"""Exit code 0: everything asked for was computed and every release passed."""
EXIT_THRESHOLD_FAILED = 1
"""Exit code 1: a release failed a threshold of the gate."""
EXIT_BAD_INPUT = 2
"""Exit code 2: bad input (a synthguard error naming what to fix); nothing was written."""
EXIT_NOT_COMPUTED = 3
"""Exit code 3: a measure asked for could not be computed (``evaluate``, ``run``)."""


def _package(filename: str) -> str:
    """The package a warning came from, by its file (``site-packages/<package>/...``)."""
    parts = filename.replace("\\", "/").split("/")
    for marker in ("site-packages", "dist-packages"):
        if marker in parts and parts.index(marker) + 1 < len(parts):
            return parts[parts.index(marker) + 1].removesuffix(".py")
    return "python"


#: Other libraries' warnings whose text is known to hold no data, and what to say instead:
#: (package, pattern of the message, line with the pattern's groups).
_KNOWN_FOREIGN = (
    ("distributed", re.compile(r"Sending large graph of size ([0-9.]+ [KMGT]?i?B)"),
     "Dask sent a large task graph ({0}) to the scheduler; this can slow the run, not change "
     "its results"),
)


def _show_foreign(message: Any, category: type[Warning], filename: str, lineno: int,
                  file: Any = None, line: str | None = None) -> None:
    """One line for another library's warning: its type and package, no source path, and no
    message (it may quote the data, as ``safe_error`` withholds other libraries' errors),
    except for the few messages known to hold none (:data:`_KNOWN_FOREIGN`), said in our
    words."""
    package = _package(filename)
    for pkg, pattern, text in _KNOWN_FOREIGN:
        found = pattern.match(str(message)) if package == pkg else None
        if found:
            click.echo(f"warning: {text.format(*found.groups())}", err=True)
            return
    click.echo(f"warning: {category.__name__} from {package} (details withheld: "
               "the message may quote data)", err=True)


def _silent(*args: Any, **kwargs: Any) -> None:
    return None


@contextmanager
def warnings_to_stderr(quiet: bool,
                       fix: str = "rerun with --strip or --na-values") -> Any:
    """Show synthguard's warnings as one ``warning: ...`` line each on stderr (none when quiet);
    other libraries' warnings as one line naming their type and package. The warning filters
    still apply (an ``error`` filter raises, ``ignore`` hides).

    Advice about how the data file was read (:class:`~synthguard.errors.InputWarning`:
    spaces around names or levels, missing-value codes; ``--strip``, ``--na-values``) is
    printed the moment the file is read, before any work, so the user can stop and rerun
    instead of waiting for a release made from misread data; the end of the run recalls it
    in one line that says how to ``fix`` it. Other warnings are printed when the command
    ends (after any progress bar).
    """
    import warnings

    from synthguard.errors import InputWarning, SynthguardWarning

    caught: list[warnings.WarningMessage] = []
    seen: set[str] = set()
    early: list[str] = []

    def show(message: Any, category: type[Warning], filename: str, lineno: int,
             file: Any = None, line: str | None = None) -> None:
        if issubclass(category, InputWarning):
            msg = f"warning: {message}"
            if not quiet and msg not in seen:
                click.echo(msg, err=True)
                early.append(msg)
            seen.add(msg)
            return
        caught.append(warnings.WarningMessage(message, category, filename, lineno, file, line))

    with warnings.catch_warnings():
        warnings.simplefilter("always", SynthguardWarning)
        warnings.showwarning = show
        try:
            yield
        finally:
            for w in caught:
                if issubclass(w.category, SynthguardWarning):
                    msg = f"warning: {w.message}"
                    if not quiet and msg not in seen:
                        click.echo(msg, err=True)
                    seen.add(msg)
                else:
                    with warnings.catch_warnings():
                        warnings.showwarning = _silent if quiet else _show_foreign
                        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
            if early:
                click.echo(f"warning: the data file drew {len(early)} warning(s) when it was "
                           f"read (printed first, above); if they apply, {fix}", err=True)


@contextmanager
def progress_bar(quiet: bool, label: str) -> Any:
    """A ``progress(stage, done, total)`` callback drawing a click progress bar on stderr
    (None when ``quiet``). A call with another total, or fewer done (a new pass: a run on
    Dask counts each release's tasks, then the evaluation's), starts a new bar."""
    if quiet:
        yield None
        return
    state: dict[str, Any] = {"bar": None, "done": 0, "total": None}

    def callback(stage: str, done: int, total: int) -> None:
        bar = state["bar"]
        if bar is not None and (total != state["total"] or done < state["done"]):
            bar.__exit__(None, None, None)
            bar, state["done"] = None, 0
        state["total"] = total
        if bar is None:
            bar = click.progressbar(length=total, label=label, file=sys.stderr,
                                    show_pos=True, item_show_func=lambda s: s)
            bar.__enter__()
            state["bar"] = bar
        bar.update(done - state["done"], current_item=stage)
        state["done"] = done

    try:
        yield callback
    finally:
        if state["bar"] is not None:
            state["bar"].__exit__(None, None, None)


def line(text: str) -> str:
    """One terminal line: no newlines (a message that spans lines is joined)."""
    return " ".join(str(text).split())


def report_problems(ev: Any, quiet: bool) -> None:
    """Print every warning and every measure not computed that the report shows, one line
    each on stderr (warnings only when not quiet)."""
    if not quiet:
        for note in ev.data_notes:
            click.echo(line(f"warning: data: {note}"), err=True)
        for r in ev:
            for note in r.notes:
                click.echo(line(f"warning: release '{r.name}': {note}"), err=True)
            for part, why in r.errors.items():  # shown in the report, but not a failure
                if part in r.inapplicable:
                    click.echo(line(f"note: release '{r.name}': {part}: {why}"), err=True)
    for where, part, why in ev.not_computed:
        who = "data" if where == "data" else f"release '{where}'"
        click.echo(line(f"not computed: {who}: {part}: {why}"), err=True)


def exit_with_verdict(ev: Any, unread_ledgers: Mapping[str, str] | None = None) -> None:
    """Exit 1 when a release failed a threshold, 3 when a requested measure could not be
    computed or a DP release's privacy ledger could not be read, 0 otherwise (see the
    helps)."""
    status = ev.status
    if status == "failed":
        click.echo(f"releases failing their thresholds: {', '.join(ev.failed)}", err=True)
        sys.exit(EXIT_THRESHOLD_FAILED)
    if status == "incomplete" or unread_ledgers:
        n = len(ev.not_computed) + len(unread_ledgers or {})
        click.echo(f"incomplete: {n} requested measure(s) could not be computed (listed above)",
                   err=True)
        sys.exit(EXIT_NOT_COMPUTED)
