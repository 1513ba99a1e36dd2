"""The SDC tutorial's snippets run and print what the text says."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "sdc.md"


def test_tutorial_runs(capsys):
    if not DOC.exists():
        pytest.skip("docs/sdc.md not present")
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)
    assert len(blocks) >= 10
    ns: dict[str, object] = {}
    for block in blocks:
        exec(compile(block, str(DOC), "exec"), ns)
    out = capsys.readouterr().out
    # CE practice: about 6% of incomes top-coded (307 of 5133 at the 94th percentile)
    assert "307 6.0%" in out
    assert "['NY', 'NY', 'NY', 'NJ']" in out
