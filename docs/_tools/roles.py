"""Sphinx roles in docstrings (``:class:`~synthguard.data.Schema```) as links or code.

The docstrings cross-reference in Sphinx's syntax, which mkdocstrings does not read: the API
pages showed ``:class:`` and ``:func:`` literally. :func:`convert` rewrites each role before
the docstring is rendered:

* to an autorefs link, ``[`Schema`][synthguard.data.Schema]``, when the target is an object
  the API reference renders with a heading of its own: a public name of a package's
  ``__all__`` (by the path it is documented at or by its defining module's path), or a
  documented method or property of such a class;
* otherwise to inline code, ``Schema``, so that nothing shows Sphinx markup and no link
  points nowhere (the build is strict: an unresolved autorefs link fails it).

Sphinx's forms are read: ``~target`` shows the last part only, ``title <target>`` shows the
title, ``!target`` is never linked; a target without a dot is looked up in the docstring's
module, then among the documented names (when one name matches). :class:`SphinxRoles` is the
griffe extension that applies it to every docstring; ``reference.py`` applies it to the
package summaries it writes.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import inspect
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import griffe

ROLE = re.compile(
    r":(?:py:)?(?P<role>class|func|meth|mod|data|attr|exc|obj|const|ref|term|doc)"
    r":`(?P<body>[^`]+)`")
_TITLED = re.compile(r"^(?P<title>.+?)\s*<(?P<target>[^<>]+)>$")


def convert(text: str, resolve: Callable[[str], str | None]) -> str:
    """``text`` with every Sphinx role as an autorefs link (``resolve(target)`` gives the
    documented identifier, or None) or as inline code."""

    def one(match: re.Match[str]) -> str:
        body = match.group("body").strip()
        titled = _TITLED.match(body)
        no_link = body.startswith("!")
        if titled:
            shown, target = titled.group("title"), titled.group("target").strip()
        else:
            target = body.lstrip("!~")
            shown = target.rsplit(".", 1)[-1] if body.lstrip("!").startswith("~") else target
        ident = None if no_link or match.group("role") in ("ref", "term", "doc") else resolve(target)
        code = f"`{shown}`"
        return f"[{code}][{ident}]" if ident else code

    return ROLE.sub(one, text)


@functools.cache
def _documented() -> tuple[dict[str, str], dict[str, list[str]]]:
    """Every identifier the API reference renders with a heading: its path -> itself, and
    each defining-module path -> the documented path; plus last name -> documented paths."""
    reference = _sibling("reference")
    object_path, reference_pages = reference.object_path, reference.reference_pages
    ids: dict[str, str] = {}
    for page in reference_pages():
        module = importlib.import_module(page.package)
        for name in page.names:
            shown = object_path(page.package, name)
            obj = getattr(module, name)
            paths = [shown]
            canonical = _canonical(obj)
            if canonical:
                paths.append(canonical)
            for p in paths:
                ids.setdefault(p, shown)
            if inspect.isclass(obj):
                for member, value in vars(obj).items():
                    if member.startswith("_") or not _has_heading(member, value):
                        continue
                    for p in paths:
                        ids.setdefault(f"{p}.{member}", f"{shown}.{member}")
    by_name: dict[str, list[str]] = {}
    for path, shown in ids.items():
        last = path.rsplit(".", 1)[-1]
        if shown not in by_name.setdefault(last, []):
            by_name[last].append(shown)
    return ids, by_name


def _sibling(name: str) -> Any:
    """A module of docs/_tools by name: the one hooks.py loaded, else loaded from its file."""
    key = f"_synthguard_docs_{name}"
    if key not in sys.modules:
        spec = importlib.util.spec_from_file_location(key, Path(__file__).with_name(f"{name}.py"))
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[key] = module
        spec.loader.exec_module(module)
    return sys.modules[key]


def _canonical(obj: Any) -> str | None:
    module, qual = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    return f"{module}.{qual}" if isinstance(module, str) and isinstance(qual, str) else None


def _has_heading(member: str, value: Any) -> bool:
    """A class member mkdocstrings renders under a heading: a method or property with a
    docstring of its own (members without one are not shown; an alias such as
    ``save = save_confidential`` is shown as an attribute, without a heading)."""
    if isinstance(value, staticmethod | classmethod):
        value = value.__func__
    if isinstance(value, property):
        return bool(value.__doc__)
    if inspect.isfunction(value):
        return value.__name__ == member and bool(value.__doc__)
    return False


def resolver(where: str) -> Callable[[str], str | None]:
    """The ``resolve`` of :func:`convert` for a docstring of the object at path ``where``: a
    target is looked up as given, then relative to ``where`` and each object and package
    enclosing it (``fit`` in a method of ``Synthesizer``), then by its name alone."""

    def resolve(target: str) -> str | None:
        ids, by_name = _documented()
        if target in ids:
            return ids[target]
        scope = where
        while scope:
            if f"{scope}.{target}" in ids:
                return ids[f"{scope}.{target}"]
            scope = scope.rsplit(".", 1)[0] if "." in scope else ""
        if "." not in target and len(by_name.get(target, [])) == 1:
            return by_name[target][0]
        return None

    return resolve


class SphinxRoles(griffe.Extension):
    """Rewrites the Sphinx roles of each docstring with :func:`convert` as it is loaded."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None and ":" in obj.docstring.value:
            obj.docstring.value = convert(obj.docstring.value, resolver(obj.path))
