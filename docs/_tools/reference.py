"""The API reference, generated from each public subpackage's ``__all__``.

One page per package (``reference/<dotted name>.md``) holding one mkdocstrings directive per
name of its ``__all__``, in ``__all__`` order, so a name added to a package appears in the
reference without anyone editing the docs. ``tests/docs/test_reference.py`` imports this file
to check every public name has a docstring and a place on a page.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import inspect
import pkgutil
from dataclasses import dataclass

ROOT_PACKAGE = "synthguard"


@dataclass(frozen=True)
class ReferencePage:
    """One generated page: the package, the names it documents and the page's Markdown."""

    package: str
    names: tuple[str, ...]

    @property
    def path(self) -> str:
        return f"reference/{self.package}.md"

    @property
    def markdown(self) -> str:
        module = importlib.import_module(self.package)
        doc = (module.__doc__ or "").strip()
        summary = doc.split("\n\n")[0].replace("\n", " ") if doc else ""
        summary = _roles().convert(summary, _roles().resolver(self.package))
        lines = [f"# `{self.package}`", ""]
        if summary:
            lines += [summary, ""]
        lines += ["Public names (its `__all__`): "
                  + ", ".join(f"[`{n}`](#{object_path(self.package, n)})" for n in self.names), ""]
        for name in self.names:
            lines += [f"::: {object_path(self.package, name)}", "    options:",
                      "      heading_level: 2", ""]
        return "\n".join(lines)


def _roles():
    """docs/_tools/roles.py (Sphinx roles as links or code), loaded once by its file path."""
    import sys
    from pathlib import Path

    key = "_synthguard_docs_roles"
    if key not in sys.modules:
        spec = importlib.util.spec_from_file_location(key, Path(__file__).with_name("roles.py"))
        module = importlib.util.module_from_spec(spec)
        sys.modules[key] = module
        spec.loader.exec_module(module)
    return sys.modules[key]


@functools.cache
def object_path(package: str, name: str) -> str:
    """The dotted path mkdocstrings reads ``package.name`` from.

    A name the package binds in its namespace is documented where the user imports it
    (``synthguard.dp.laplace``); a name it imports lazily through a module ``__getattr__``
    (``synthguard.Synthesizer``) is invisible to static analysis, so its defining module's
    path is used. So is the path of a function named like its package's submodule
    (``synthguard.risk.disclosure``), which static analysis would read as the module. Cached: the first look decides, before a lazy import binds the name.
    """
    module = importlib.import_module(package)
    shadows_submodule = importlib.util.find_spec(f"{package}.{name}") is not None
    if name in vars(module) and (not shadows_submodule or inspect.ismodule(vars(module)[name])):
        return f"{package}.{name}"
    obj = getattr(module, name)
    return f"{obj.__module__}.{obj.__qualname__}"


def public_packages() -> list[str]:
    """The root package and every subpackage whose dotted name has no part starting with '_'."""
    root = importlib.import_module(ROOT_PACKAGE)
    found = [ROOT_PACKAGE]
    for info in pkgutil.walk_packages(root.__path__, ROOT_PACKAGE + "."):
        if info.ispkg and not any(p.startswith("_") for p in info.name.split(".")):
            found.append(info.name)
    return sorted(found)


def reference_pages() -> list[ReferencePage]:
    """A page for every public package with an ``__all__``."""
    pages = []
    for package in public_packages():
        module = importlib.import_module(package)
        names = getattr(module, "__all__", None)
        if names:
            pages.append(ReferencePage(package, tuple(names)))
    return pages
