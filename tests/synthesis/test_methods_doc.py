"""The snippets of docs/methods.md run as they are (each method's example)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "methods.md"


@pytest.mark.skipif(not DOC.is_file(), reason="docs not in this checkout")
def test_methods_page_snippets_run():
    code = "\n".join(re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S))
    namespace: dict = {}
    exec(compile(code, str(DOC), "exec"), namespace)
    assert namespace["proposed"] == {
        "education_num": "passive:of=education", "hours_per_day": "passive:of=hours"
    }
