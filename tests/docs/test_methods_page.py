"""docs/methods.md shows every registered synthesis method with an example (issue 14).

The page's Python blocks are run when the site is built (``make docs``, strict: a failing
block stops the build); this test makes sure none of the registered methods is missing from
them, so a method added to the registry without an example fails here first."""

import re
from pathlib import Path

from synthguard.synthesis import available_methods
from synthguard.synthesis.registry import get_method

PAGE = Path(__file__).resolve().parents[2] / "docs" / "methods.md"


def _builtin_methods() -> list[str]:
    # synthguard's own methods (other tests register toy methods in the same process)
    return [m for m in available_methods()
            if get_method(m).__module__.startswith("synthguard.")]


def _python_blocks() -> str:
    return "\n".join(re.findall(r"^```python\n(.*?)^```", PAGE.read_text(encoding="utf-8"),
                                flags=re.S | re.M))


def _used(name: str, code: str) -> bool:
    # a method spec in a string: "name" or "name:option=value..."
    return re.search(rf"""["']{re.escape(name)}(:[^"'\n]*)?["']""", code) is not None


def test_every_registered_method_has_an_executed_example():
    code = _python_blocks()
    builtin = _builtin_methods()
    assert {"cart", "passive", "ipf", "bayes_norm"} <= set(builtin)
    missing = [m for m in builtin if not _used(m, code)]
    assert not missing, f"docs/methods.md has no Python example for: {missing}"


def test_every_registered_method_is_in_the_overview_table():
    rows = [line for line in PAGE.read_text(encoding="utf-8").splitlines()
            if line.startswith("| `")]
    listed = {n for line in rows for n in re.findall(r"`([a-z_]+)`", line.split("|")[1])}
    assert set(_builtin_methods()) <= listed


def test_the_check_sees_a_missing_example():
    code = 'Synthesizer(methods={"a": "cart:cp=0.01", "b": "pmm"})'
    assert _used("cart", code) and _used("pmm", code)
    assert not _used("norm", code)          # "normrank" or a word in prose does not count
    assert not _used("norm", '"normrank"')
