"""The API reference reads the project's ``name : description`` items as descriptions
(docs/_tools/prose_items.py): griffe's numpy parser alone puts the prose in the Type column."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import griffe
import pytest

ROOT = Path(__file__).resolve().parents[2]


def _load():
    spec = importlib.util.spec_from_file_location(
        "_synthguard_docs_prose_items", ROOT / "docs" / "_tools" / "prose_items.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


prose = _load()

DOC = """Summary.

Parameters
----------
conf : confidential data, one row per record.
keys, targets : the intruder's knowledge
    (see the risk page).
m : int, default 5
    number of implicates.
kind : {"a", "b"}
    which.
seed : int or None
    the seed.

Raises
------
ParameterError : when the keys are not columns.
"""


@pytest.mark.parametrize("text, is_type", [
    ("int", True), ("str or None", True), ("array-like", True), ('{"a", "b"}', True),
    ("float, optional", True), ("int, default 5", True), ("list of str", True),
    ("Mapping[str, float]", True), ("pandas.DataFrame", True),
    ("confidential data, one row per record.", False),
    ("the fitted :class:`~synthguard.synthesis.Synthesizer`.", False),
    ("number of implicates L (default 20, as the paper).", False),
])
def test_reads_as_type(text, is_type):
    assert prose.reads_as_type(text) is is_type


def _params(doc: str, parent: griffe.Function | None = None) -> dict:
    sections = griffe.Docstring(doc, parent=parent).parse("numpy")
    (params,) = [s for s in sections if s.kind.value == "parameters"]
    return {p.name: (p.annotation, p.description) for p in params.value}


def test_prose_item_becomes_description_and_types_stay():
    before = _params(DOC)
    assert before["conf"][0] == "confidential data, one row per record."  # the defect
    after = _params(prose.rewrite(DOC))
    assert after["conf"] == (None, "confidential data, one row per record.")
    assert after["keys"][1] == after["targets"][1] == "the intruder's knowledge\n(see the risk page)."
    assert str(after["m"][0]) == "int" and after["m"][1] == "number of implicates."
    assert str(after["seed"][0]) == "int or None"
    assert after["kind"][1] == "which."


def test_only_numpy_item_sections_are_rewritten():
    out = prose.rewrite(DOC)
    assert "ParameterError : when the keys are not columns." in out  # Raises: not an item list
    assert out.startswith("Summary.\n\nParameters\n----------\nconf\n    confidential data")


def test_type_falls_back_to_the_signature_annotation():
    code = 'def f(conf: "pd.DataFrame"):\n    """S.\n\n    Parameters\n    ----------\n' \
           '    conf : confidential data.\n    """\n'
    ext = griffe.load_extensions(prose.ProseItems)
    module = griffe.visit("m", filepath=Path("m.py"), code=code, extensions=ext,
                          docstring_parser=griffe.Parser.numpy)
    (section,) = [s for s in module["f"].docstring.parsed if s.kind.value == "parameters"]
    (param,) = section.value
    assert str(param.annotation) == "pd.DataFrame" and param.description == "confidential data."
