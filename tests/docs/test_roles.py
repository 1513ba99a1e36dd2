"""Sphinx roles in docstrings become links or code on the API pages (docs/_tools/roles.py):
mkdocstrings does not read them, and the pages showed ``:class:`` literally (issue 31)."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _load(name: str):
    key = f"_synthguard_docs_{name}"
    if key not in sys.modules:
        spec = importlib.util.spec_from_file_location(key, ROOT / "docs" / "_tools" / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[key] = module
        spec.loader.exec_module(module)
    return sys.modules[key]


roles = _load("roles")
reference = _load("reference")


def test_forms_of_a_role():
    known = {"synthguard.data.Schema": "synthguard.data.Schema"}
    convert = roles.convert
    assert convert("see :class:`~synthguard.data.Schema`.", known.get) == (
        "see [`Schema`][synthguard.data.Schema].")
    assert convert(":class:`synthguard.data.Schema`", known.get) == (
        "[`synthguard.data.Schema`][synthguard.data.Schema]")
    assert convert(":class:`the schema <synthguard.data.Schema>`", known.get) == (
        "[`the schema`][synthguard.data.Schema]")
    assert convert(":class:`!synthguard.data.Schema`", known.get) == "`synthguard.data.Schema`"
    # a target the reference does not render is code, never a link that points nowhere
    assert convert(":func:`~synthguard.nowhere.f` and :py:meth:`g`", known.get) == "`f` and `g`"


def test_targets_resolve_to_documented_headings():
    resolve = roles.resolver("synthguard.synthesis.synthesizer.Synthesizer.sample")
    # by its defining module's path, to the path the reference documents it at
    assert resolve("synthguard.data.schema.Schema") == "synthguard.data.Schema"
    # a method relative to the class whose docstring names it
    assert resolve("fit") == "synthguard.synthesis.synthesizer.Synthesizer.fit"
    assert resolve("synthguard.errors.NoSuchThing") is None


def test_no_role_survives_in_any_documented_docstring():
    """Every docstring of every documented name (and its members) is free of role markup once
    converted: the regex reads every role the project writes."""
    left = []
    for page in reference.reference_pages():
        module = importlib.import_module(page.package)
        for name in page.names:
            obj = getattr(module, name)
            docs = [inspect.getdoc(obj) or ""]
            if inspect.isclass(obj):
                docs += [getattr(v, "__doc__", None) or "" for k, v in vars(obj).items()
                         if not k.startswith("_")]
            for doc in docs:
                out = roles.convert(doc, roles.resolver(page.package))
                left += [line for line in out.splitlines() if roles.ROLE.search(line)
                         or ":class:`" in line or ":func:`" in line]
    assert not left, left[:5]
