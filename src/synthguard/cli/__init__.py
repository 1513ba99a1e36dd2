"""The ``synthguard`` command: thin wrappers that parse, call the library and render.

Subcommands live one per module in this package and are registered below.
Exit codes (promises): 0 ok, 1 a release failed its thresholds, 2 bad input (a synthguard
error; nothing written), 3 a requested measure could not be computed (``evaluate``, ``run``).
"""

from __future__ import annotations

import gc
import sys
from typing import Any

import click

from synthguard import __version__
from synthguard.cli._lazy import LazyGroup
from synthguard.cli._render import (
    EXIT_BAD_INPUT,
    EXIT_NOT_COMPUTED,
    EXIT_OK,
    EXIT_THRESHOLD_FAILED,
)
from synthguard.cli._startup import thawed
from synthguard.errors import SynthguardError

__all__ = ["EXIT_BAD_INPUT", "EXIT_NOT_COMPUTED", "EXIT_OK", "EXIT_THRESHOLD_FAILED", "main"]

#: the subcommands: name -> "module:command", each module imported when its command runs
COMMANDS = {
    "datasets": "synthguard.cli.datasets:datasets_cmd",
    "demo": "synthguard.cli.demo:demo_cmd",
    "dp": "synthguard.cli.dp:dp_cmd",
    "evaluate": "synthguard.cli.evaluate:evaluate_cmd",
    "init": "synthguard.cli.init:init_cmd",
    "protect": "synthguard.cli.protect:protect_cmd",
    "run": "synthguard.cli.run:run_cmd",
    "sweep": "synthguard.cli.sweep:sweep_cmd",
    "synthesize": "synthguard.cli.synthesize:synthesize_cmd",
}


class _Group(LazyGroup):
    """Turns synthguard errors and unusable paths into a one-line message and exit code 2
    (no traceback)."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        # The program's entry point (the console script; CliRunner calls ``main``): when
        # the command is done the process ends, and its objects are left to the operating
        # system instead of the exit's garbage collection (cli/_startup.py)
        try:
            return super().__call__(*args, **kwargs)
        finally:
            gc.freeze()

    def invoke(self, ctx: click.Context) -> Any:
        try:
            with thawed():  # a command's start-up freezes its imports (cli/_startup.py)
                return super().invoke(ctx)
        except SynthguardError as e:
            click.echo(f"error: {e}", err=True)
            sys.exit(EXIT_BAD_INPUT)
        except OSError as e:  # a path that cannot be read or written (parent is a file, rights)
            where = f" '{e.filename}'" if e.filename else ""
            if isinstance(e, FileExistsError | NotADirectoryError):
                problem = "a file is in the way where a folder is needed"
            else:
                problem = e.strerror or type(e).__name__
            click.echo(f"error: cannot write or read{where}: {problem}; check the path and "
                       "its permissions", err=True)
            sys.exit(EXIT_BAD_INPUT)


@click.group(cls=_Group, lazy=COMMANDS,
             context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="synthguard")
def main() -> None:
    """synthguard: synthesize, protect, evaluate and report on confidential microdata.

    \b
    Exit codes: 0 ok; 1 a release failed a threshold; 2 bad input (nothing written);
    3 a requested measure could not be computed (evaluate, run).

    \b
    Examples:
      synthguard datasets
      synthguard demo --out demo_output
      synthguard synthesize conf.csv --out syn/ --m 5 --method income=cart --seed 1
    """


# --- subcommands: one module each, imported when the command runs (cli/_lazy.py); add
# yours with one line in the table above ---
