"""``synthguard run plan.yaml``: make, measure and report every release of a plan."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from contextlib import contextmanager
from typing import Any

import click

from synthguard.cli._dask import dask_option

__all__ = ["progress_bar", "run_cmd", "warnings_to_stderr"]


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
    (None when ``quiet``)."""
    if quiet:
        yield None
        return
    state: dict[str, Any] = {"bar": None, "done": 0}

    def callback(stage: str, done: int, total: int) -> None:
        bar = state["bar"]
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

    if dask is not None:  # --- issue 17: the Dask path (cli/run_dask.py) ---
        from synthguard.cli.run_dask import run_on_dask

        return run_on_dask(plan, output, force, quiet, dask)
    p = load_plan(plan)
    if output is not None:
        p = replace(p, output=Path(output))
    fix = "set strip: true or na_values: under data.read_options in the plan"
    with warnings_to_stderr(quiet, fix), progress_bar(quiet, "synthguard run") as cb:
        result = run_plan(p, progress=cb, force=force)
    echo = _echo(quiet)
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
    from synthguard.cli.evaluate import exit_with_verdict, report_problems

    report_problems(result.evaluation, quiet)
    exit_with_verdict(result.evaluation)
