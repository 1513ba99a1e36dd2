"""Library error messages in command-line syntax, for ``synthguard dp synthesize``.

The library tells a Python user to pass ``bins={'age': [...]}`` or ``parameter 'max_rounds'``;
a user of the command line needs ``--bins age=E0,E1,...`` and ``option '--max-rounds'``. The
library's messages stay in Python syntax (its users are Python users) and this module rewrites
the few phrases that have a command-line spelling before the error reaches the terminal. The
error keeps its type, so exit codes do not change.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

from synthguard.errors import DataError, SynthguardError

__all__ = ["cli_message", "cli_syntax"]

# library parameter -> command-line option of `dp synthesize`
_OPTIONS = {
    "epsilon": "--epsilon", "delta": "--delta", "workload": "--workload",
    "max_rounds": "--max-rounds", "max_seconds": "--max-seconds", "columns": "--columns",
    "categories": "--levels", "bins": "--bins", "m": "--m", "n": "--n", "groups": "--group",
    "domain_from_data": "--levels-from-data", "missing": "--missing-level",
}

_REWRITES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"bins=\{'([^']*)': \[\.\.\.\]\}"), r"--bins \1=E0,E1,..."),
    (re.compile(r"categories=\{column: \[levels\]\} or bins=\{column: \[edges\]\}"),
     "--levels FILE.yaml (column: [level, ...]) or --bins COLUMN=E0,E1,..."),
    (re.compile(r"domain_from_data='not-dp'"), "--levels-from-data"),
    (re.compile(r" or lower/upper bounds in the schema"), ""),
    (re.compile(r"'categories'/'bins'"), "--levels/--bins"),
    (re.compile(r"recode them as an explicit public level \(e\.g\. 'missing'\) before DP "
                r"synthesis"),
     "release them as a public level with --missing-level missing (columns with declared "
     "levels), or leave the column out (--drop)"),
    (re.compile(r"give it a public missing cell after its last bin \(missing=\['([^']*)'\]\)"),
     r"release them as a missing cell after its last bin with --missing-level \1=missing, "
     r"or leave the column out (--drop)"),
    (re.compile(r"add the levels to the declaration"), "add them to the --levels file"),
]


def cli_message(text: str) -> str:
    """``text`` with Python-syntax hints replaced by their command-line spelling."""
    for pattern, repl in _REWRITES:
        text = pattern.sub(repl, text)

    def option(m: re.Match[str]) -> str:
        name = m.group(1)
        return f"option '{_OPTIONS[name]}'" if name in _OPTIONS else m.group(0)

    return re.sub(r"parameter '(\w+)'", option, text)


def _translated(e: SynthguardError) -> SynthguardError:
    if isinstance(e, DataError):
        head = str(e).split(":\n", 1)[0]
        new: SynthguardError = type(e)(cli_message(head), [cli_message(p) for p in e.problems])
    else:
        new = type(e)(cli_message(str(e)))
    return new


def cli_syntax(func: Callable[..., Any]) -> Callable[..., Any]:
    """Decorate a command so the synthguard errors it raises speak command-line syntax."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except SynthguardError as e:
            try:
                new = _translated(e)
            except Exception:  # an error type with another constructor: keep it as it is
                raise e from None
            raise new from e

    return wrapper
