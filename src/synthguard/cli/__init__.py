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
from synthguard.cli._startup import thawed
from synthguard.errors import SynthguardError

__all__ = ["main"]

EXIT_OK = 0
EXIT_THRESHOLD_FAILED = 1
EXIT_BAD_INPUT = 2
EXIT_NOT_COMPUTED = 3


class _Group(click.Group):
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


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
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


# --- subcommands (one module each; add yours with one import and one add_command) ---
from synthguard.cli.datasets import datasets_cmd  # noqa: E402
from synthguard.cli.demo import demo_cmd  # noqa: E402
from synthguard.cli.dp import dp_cmd  # noqa: E402
from synthguard.cli.evaluate import evaluate_cmd  # noqa: E402
from synthguard.cli.init import init_cmd  # noqa: E402
from synthguard.cli.protect import protect_cmd  # noqa: E402
from synthguard.cli.run import run_cmd  # noqa: E402
from synthguard.cli.sweep import sweep_cmd  # noqa: E402
from synthguard.cli.synthesize import synthesize_cmd  # noqa: E402

main.add_command(datasets_cmd)
main.add_command(demo_cmd)
main.add_command(synthesize_cmd)
main.add_command(evaluate_cmd)
main.add_command(init_cmd)
main.add_command(run_cmd)
main.add_command(sweep_cmd)
main.add_command(dp_cmd)
main.add_command(protect_cmd)
