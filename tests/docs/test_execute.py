"""The executor of the guide's code blocks (docs/_tools/execute.py), without a site build.

It shows the value of each expression (the course's numbers appear on the page this way),
keeps a page's namespace and warning filters from block to block, draws open figures, and
fails the build on an old parameter name's FutureWarning.
"""

from __future__ import annotations

import importlib.util
import sys
import warnings
from pathlib import Path

import pytest

pytest.importorskip("markdown_exec", reason="the docs extra (markdown-exec) is not installed")
ROOT = Path(__file__).resolve().parents[2]


def _load():
    spec = importlib.util.spec_from_file_location(
        "_synthguard_docs_execute_test", ROOT / "docs" / "_tools" / "execute.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


execute = _load()


def _run(code: str, session: str) -> str:
    runnable, shown = execute._transform(code)
    assert shown == code
    return execute._run(runnable, session=session)


def test_expressions_show_their_values_and_sessions_persist():
    out = _run("from synthguard.dp import gaussian_sigma\n"
               "s = gaussian_sigma(1, epsilon=0.1, delta=1e-7)\nround(s, 4)\n", "t1")
    assert "57.1686" in out                      # the course's classic sigma
    out = _run("round(146 + s * -0.6264538107423324, 4)\nNone\nprint('x')\n", "t1")
    assert "110.1865" in out and "None" not in out


def test_several_expressions_are_labelled():
    out = _run("1 + 1\n2 * 3\n", "t2")
    assert "1 + 1  →  2" in out and "2 * 3  →  6" in out


def test_a_synthguard_future_warning_fails_the_block():
    code = ("import warnings\n"
            "warnings.warn('old name', FutureWarning)\n")
    with pytest.raises(execute.ExecutionError):
        _run(code, "t3")


def test_warnings_are_shown_and_page_filters_persist():
    from synthguard.errors import PrivacyWarning

    out = _run("import warnings\nfrom synthguard.errors import PrivacyWarning\n"
               "warnings.warn('seeded numpy noise, shown', PrivacyWarning)\n", "t4")
    assert "⚠ PrivacyWarning: seeded numpy noise, shown" in out
    _run("warnings.filterwarnings('ignore', 'seeded numpy noise', PrivacyWarning)\n", "t4")
    out = _run("warnings.warn('seeded numpy noise, hidden', PrivacyWarning)\n", "t4")
    assert "hidden" not in out
    with warnings.catch_warnings(record=True) as caught:  # the filter stayed in its page
        warnings.simplefilter("always")
        warnings.warn("seeded numpy noise elsewhere", PrivacyWarning, stacklevel=1)
    assert caught


def test_open_figures_are_drawn_and_closed():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = _run("import matplotlib.pyplot as plt\nfig, ax = plt.subplots()\n"
               "ax.plot([0, 1], [1, 0])\n", "t5")
    assert out.count('<div class="sg-figure"><svg') == 1
    assert "Line2D" not in out                     # an artist list is not a value to show
    assert plt.get_fignums() == []


def test_blocks_are_marked_for_their_page_and_shared_data_is_optional(monkeypatch):
    md = "text\n\n```python\nx = 1\n```\n\n```python exec=\"off\"\ny\n```\n"
    marked = execute.mark_blocks(md, "dp")
    assert '```python exec="on" session="dp" source="above"\nx = 1\n```' in marked
    assert '```python exec="off"' in marked
    monkeypatch.setattr(execute, "SHARED_DATA", ROOT / "no-such-folder")
    marked = execute.mark_blocks("```python\npd.read_csv('../shared/data/x.csv')\n```\n", "b")
    assert 'exec="on"' not in marked and "Not run in this build" in marked


def test_a_missing_shared_file_leaves_its_block_and_the_rest_of_the_page_unrun(
        monkeypatch, tmp_path):
    (tmp_path / "adult").mkdir()
    (tmp_path / "adult" / "adult_train.csv").write_text("a\n1\n")
    monkeypatch.setattr(execute, "SHARED_DATA", tmp_path)
    md = ("```python\nx = open('../shared/data/adult/adult_train.csv').read()\n```\n\n"
          "```python\nimport pandas as pd\nd = pd.read_csv('../shared/data/sd2011/SD2011.csv')\n"
          "```\n\n```python\nd.shape\n```\n")
    marked = execute.mark_blocks(md, "g")
    assert marked.count('exec="on"') == 1                      # only the block whose file exists
    assert marked.count("Not run in this build: data absent") == 1
    assert "`../shared/data/sd2011/SD2011.csv`" in marked       # the note names the missing file
    assert marked.rstrip().endswith("```python\nd.shape\n```")  # later blocks shown, not run
    assert execute.unrun["g"] == ["../shared/data/sd2011/SD2011.csv"]  # the index says so
    assert execute.missing_data("open('../shared/data/adult/adult_train.csv')") == []


def test_a_trailing_semicolon_hides_a_value_and_html_values_are_inlined():
    out = _run("x = 21\nx * 2;\nx + 1\n", "t6")
    assert out == '<pre class="sg-output"><code>22</code></pre>'
    out = _run("class Rich:\n    def _repr_html_(self):\n        return '<b>rich &amp; raw</b>'\n"
               "Rich()\n", "t6")
    assert out == "<b>rich &amp; raw</b>"


def test_printed_paths_are_relative_to_the_page_folder():
    out = _run("import os\nprint(os.path.join(os.getcwd(), 'out', 'report.html'))\n", "t7")
    assert "<code>out/report.html</code>" in out
