"""The examples in synthguard's docstrings run (issue 24: doctests of public docstrings in
``make test``).

Every module of the package whose source holds a ``>>>`` example is collected here, so an
example added to any module runs without registering it; the whole set takes a few seconds.
A failing example fails its module's test with doctest's report of expected vs got.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil
from pathlib import Path

import pytest

import synthguard

SRC = Path(synthguard.__file__).resolve().parent


def _modules_with_examples() -> list[str]:
    names = []
    for info in pkgutil.walk_packages(synthguard.__path__, "synthguard."):
        rel = info.name.split(".")[1:]
        path = SRC.joinpath(*rel, "__init__.py") if info.ispkg else SRC.joinpath(*rel[:-1], rel[-1] + ".py")
        if path.exists() and ">>> " in path.read_text(encoding="utf-8"):
            names.append(info.name)
    return names


MODULES = _modules_with_examples()


def test_examples_are_found():
    # the docstrings of these rooms carry examples: a collector that finds none is broken
    assert {"synthguard.dp.mechanisms", "synthguard.sdc.topcode",
            "synthguard.utility.combining", "synthguard.risk.identification"} <= set(MODULES)


@pytest.mark.parametrize("module", MODULES)
def test_docstring_examples_run(module):
    mod = importlib.import_module(module)
    runner = doctest.DocTestRunner(
        optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS, verbose=False)
    report: list[str] = []
    for test in doctest.DocTestFinder().find(mod, module):
        runner.run(test, out=report.append)
    result = runner.summarize(verbose=False)  # an example marked +SKIP is not attempted
    assert result.failed == 0, "".join(report)
