"""The seed-coverage page (docs/seed-coverage.md) names only what exists.

Every backticked ``synthguard.*`` name must resolve, every ``method:NAME`` must be a
registered synthesis method, and a row marked ✓ must name at least one of them: a seed row
that loses its implementation fails here.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parents[2] / "docs" / "seed-coverage.md"
NAME = re.compile(r"`(synthguard(?:\.\w+)*)`")
METHOD = re.compile(r"`method:(\w+)`")


def _rows() -> list[tuple[str, str, str]]:
    rows = []
    for line in PAGE.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 5 or cells[0] in ("§", "") or set(cells[0]) <= {"-"}:
            continue
        rows.append((cells[0] + " " + cells[1][:40], cells[2], cells[3]))
    return rows


def _resolve(dotted: str) -> object:
    """The object a public name points to: the attribute of its parent module (so
    ``synthguard.sdc.topcode`` is the function, not the module of the same name)."""
    parts = dotted.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            obj: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(dotted)


ROWS = _rows()


def test_the_page_covers_all_five_seeds():
    text = PAGE.read_text(encoding="utf-8")
    for heading in ("Course book", "DP chapter", "Lecture", "stratified DP", "risk-efficient"):
        assert heading in text
    assert len(ROWS) >= 40


@pytest.mark.parametrize(("row", "where", "status"), ROWS, ids=[r[0] for r in ROWS])
def test_every_row_names_what_exists(row, where, status):
    from synthguard.synthesis import available_methods

    assert status in ("✓", "differs", "absent"), f"{row}: unknown status {status!r}"
    names = NAME.findall(where)
    methods = METHOD.findall(where)
    for dotted in names:
        assert callable(_resolve(dotted)), f"{row}: {dotted} is not callable"
    for m in methods:
        assert m in available_methods(), f"{row}: method {m} is not registered"
    if status == "✓":
        assert names or methods, f"{row}: a ✓ row must name its implementation"
    if status == "absent":
        assert not names and not methods, f"{row}: an absent row names {names or methods}"
