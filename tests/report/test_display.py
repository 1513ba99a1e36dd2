"""Results read well in Python: print() shows the summary, notebooks get HTML, the verdicts are
attributes, dir(synthguard) lists public names (issue 11, item 7)."""

from __future__ import annotations

import ast
import pathlib

import pandas as pd

import synthguard
from synthguard._display import Summarized
from synthguard.report import evaluate


def test_print_evaluation_is_its_summary(conf, releases):
    ev = evaluate(conf, releases, keys=["region", "sex"], targets="income", random_state=5,
                  kinds={"shuffled": "partial", "topcoded": "protected"},
                  thresholds={"max_identification_risk": 0.5})
    assert str(ev) == ev.summary()
    assert "topcoded" in ev.failed
    assert len(repr(ev)) < 300 and f"failed: {', '.join(ev.failed)}" in repr(ev)
    html = ev._repr_html_()
    assert "<table" in html and "topcoded: FAIL" in html
    # verdict is an attribute like ev.failed; the old call still works
    top = ev["topcoded"]
    assert isinstance(top.verdict, str) and top.verdict.startswith("topcoded: FAIL")
    assert top.verdict() == top.verdict
    assert isinstance(ev.failed, list) and ev.failed == [r.name for r in ev if not r.passed]
    assert top.verdict in str(top) and str(top) == top.summary()
    assert len(repr(top)) < 120
    # the comparison table is indexed by release name
    frame = ev.to_frame()
    assert frame.index.name == "release" and list(frame.index) == ["shuffled", "topcoded"]
    assert frame.loc["topcoded", "passed"] == False  # noqa: E712


def test_synthetic_data_prints_its_summary(conf):
    syn = synthguard.synthesize(conf[["region", "sex", "income"]], m=1, random_state=1)
    assert str(syn) == syn.summary() and "synthesized" in str(syn)
    assert "<pre>" in syn._repr_html_() or "<table" in syn._repr_html_()


def test_every_result_with_a_summary_prints_it():
    # every class in the package that has summary() gets __str__ from Summarized (or its own)
    missing = []
    root = pathlib.Path(synthguard.__file__).parent
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                methods = {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
                bases = {getattr(b, "id", getattr(b, "attr", "")) for b in node.bases}
                if "summary" in methods and "__str__" not in methods and "Summarized" not in bases:
                    missing.append(f"{path.relative_to(root)}:{node.name}")
    assert missing == []


def test_summarized_mixin_escapes_html():
    class R(Summarized):
        def summary(self) -> str:
            return "a < b & c"

    assert str(R()) == "a < b & c"
    assert R()._repr_html_() == "<pre>a &lt; b &amp; c</pre>"


def test_dir_shows_only_public_names():
    names = dir(synthguard)
    assert set(synthguard.__all__) <= set(names)
    assert not [n for n in names if n.startswith("_") and n != "__version__"]
    assert "importlib" not in names and "Any" not in names and "annotations" not in names
    for room in ("data", "risk", "utility", "synthesis"):
        assert room in names and getattr(synthguard, room).__name__ == f"synthguard.{room}"
    assert isinstance(synthguard.load_dataset("ce"), pd.DataFrame)
