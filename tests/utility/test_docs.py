"""The snippets of docs/utility.md run as written."""

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "utility.md"


@pytest.mark.slow
def test_tutorial_runs():
    if not DOC.is_file():
        pytest.skip("docs/utility.md not found")
    code = "\n".join(re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S))
    namespace: dict = {}
    exec(compile(code, str(DOC), "exec"), namespace)
    assert namespace["fit"].mae == pytest.approx(0.3)
    assert namespace["reg"].table.set_index("term").loc["Income", "conf_lower"] == pytest.approx(
        0.05716009, abs=1e-8
    )
