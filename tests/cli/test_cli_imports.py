"""The command line's modules import each other without a cycle (issue 32), counting the
imports made inside functions, and the command group imports no command module: each is
imported by name when its command runs (cli/_lazy.py)."""

from __future__ import annotations

import ast
from pathlib import Path

import synthguard.cli

CLI = Path(synthguard.cli.__file__).parent


def _module(path: Path) -> str:
    return "synthguard.cli" if path.stem == "__init__" else f"synthguard.cli.{path.stem}"


def _edges() -> dict[str, set[str]]:
    mods = {_module(p): p for p in CLI.glob("*.py")}
    edges: dict[str, set[str]] = {m: set() for m in mods}
    for m, p in mods.items():
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            names: list[str] = []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            edges[m] |= {n for n in names if n in mods and n != m}
    return edges


def _cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One import cycle (a path that comes back to its start), or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        stack.append(m)
        for n in sorted(edges[m]):
            if state.get(n) == 1:
                return [*stack[stack.index(n):], n]
            if n not in state:
                found = visit(n)
                if found:
                    return found
        stack.pop()
        state[m] = 2
        return None

    for m in sorted(edges):
        if m not in state:
            found = visit(m)
            if found:
                return found
    return None


def test_the_cli_modules_import_each_other_without_a_cycle():
    edges = _edges()
    assert len(edges) > 10 and any(edges.values())  # the modules were read
    assert _cycle(edges) is None, " -> ".join(_cycle(edges) or [])


def test_the_cycle_finder_finds_a_cycle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_no_module_imports_a_command_twin_or_the_group():
    edges = _edges()
    assert not [m for m in edges if m.endswith("_dask") and m != "synthguard.cli._dask"]
    assert not [m for m, to in edges.items() if "synthguard.cli" in to]
    commands = {"synthguard.cli." + name for name in synthguard.cli.COMMANDS}
    assert not (edges["synthguard.cli"] & commands)


def test_every_command_of_the_table_is_found():
    from click.testing import CliRunner

    for name in synthguard.cli.COMMANDS:
        res = CliRunner().invoke(synthguard.cli.main, [name, "--help"])
        assert res.exit_code == 0, (name, res.output)
        assert "Usage:" in res.output
