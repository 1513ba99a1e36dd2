"""The rooms' import layers hold (DESIGN.md), and no string import hides a dependency.

``lint-imports`` (import-linter, contracts in pyproject.toml) also runs in ``make lint``;
running it here makes CI's ``make test`` enforce it too.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "synthguard"

#: the only places a module is imported by name: the registries' plugin loader (built-ins
#: and entry points), the safe unpickler's allow-list, and packages' lazy re-exports in
#: __init__.py
ALLOWED_STRING_IMPORTS = {
    "synthguard/_registry.py",  # the registries' plug-in loader (built-ins and entry points)
    "synthguard/synthesis/persistence.py",
    # the command line's lazy group: a subcommand's module is imported when it is run
    "synthguard/cli/_lazy.py",
}


def test_import_layers_hold(tmp_path, monkeypatch):
    cli = pytest.importorskip("importlinter.cli")
    monkeypatch.chdir(ROOT)
    code = cli.lint_imports(
        config_filename=str(ROOT / "pyproject.toml"), no_cache=True, no_logo=True
    )
    assert code == 0, "an import breaks the layers of DESIGN.md: run `lint-imports` to see which"


def test_no_string_imports_outside_the_plugin_loader_and_lazy_reexports():
    pattern = re.compile(r"\bimport_module\(|__import__\(")
    found = []
    for path in SRC.rglob("*.py"):
        rel = path.relative_to(SRC.parent).as_posix()
        if path.name == "__init__.py" or rel in ALLOWED_STRING_IMPORTS:
            continue
        if pattern.search(path.read_text(encoding="utf-8")):
            found.append(rel)
    assert found == [], f"import modules statically (or register them as plugins): {found}"


def test_a_rooms_lazy_reexports_load_only_its_own_modules():
    """A room's ``__init__.py`` may load its own submodules by name (lazy re-exports), never
    another room: lint-imports cannot see a string import, so one would hide a dependency
    (``report/__init__.py`` once loaded ``synthguard.pipeline``, a higher room, that way)."""
    pattern = re.compile(r"import_module\(\s*f?[\"']([\w.{}]+)")
    found = []
    for path in SRC.rglob("__init__.py"):
        if path.parent == SRC:  # the top-level package lazily loads every room: it is above them
            continue
        package = ".".join(path.parent.relative_to(SRC.parent).parts)
        for name in pattern.findall(path.read_text(encoding="utf-8")):
            if not name.startswith(package + "."):
                found.append(f"{package}: {name}")
    assert found == [], f"a room's __init__ loads another room by name: {found}"
