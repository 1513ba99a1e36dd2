"""The snippets of docs/synthesis.md run as they are."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "synthesis.md"


@pytest.mark.skipif(not DOC.is_file(), reason="docs not in this checkout")
def test_tutorial_snippets_run(capsys):
    code = "\n".join(re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S))
    assert "Synthesizer" in code
    namespace: dict = {}
    exec(compile(code, str(DOC), "exec"), namespace)
    assert namespace["full"].implicates[0].shape == (2000, 5)
    assert namespace["more"].m == 2
