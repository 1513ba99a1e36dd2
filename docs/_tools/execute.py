"""Run the guide's Python blocks at build time (markdown-exec), notebook-style.

The hooks give every plain ```python block of a hand-written page the options
``exec="on" session=<page> source="above"`` (:func:`mark_blocks`), so the pages stay
ordinary Markdown a reader can copy from, and every block of a page runs in one namespace, in
order, in a temporary folder of its own. What a block shows under its source comes from that
run:

* what it prints;
* the value of each expression statement that is not None and not ended by ``;`` (as a
  notebook does), after the
  expression's own text when the block shows more than one, so ``gaussian_sigma(...)`` on a
  line of its own shows the σ it computes;
* an expression's value with a ``_repr_html_`` method (as a notebook shows it), as that HTML:
  the gallery's figures copied from a report (docs/_tools/gallery.py);
* every matplotlib figure it leaves open, as an inline SVG image (then closed);
* paths under the page's temporary folder printed relative to it;
* every warning it raises (and the page's own filters let through), as a line
  ``⚠ WarningClass: message``, except that a
  ``FutureWarning`` or ``DeprecationWarning`` from synthguard (an old parameter name) fails the
  build, so the pages keep up with the API.

A block that raises fails the strict build, with its traceback in the log.

Data outside the repository: a block that reads a file under ``../shared/data/`` (the public
data beside a checkout, as CI's fresh clone has it; ``SYNTHGUARD_SHARED_DATA`` points
elsewhere) runs only when that file exists. When it does not, the block and every later block
of its page (they share its namespace) are shown unexecuted, the first under a note naming the
missing file, so the strict build passes and the page says plainly what it could not run.
"""

from __future__ import annotations

import ast
import contextlib
import html
import io
import os
import re
import tempfile
import traceback
import warnings
from collections import defaultdict
from pathlib import Path
from typing import Any

from markdown_exec import ExecutionError, base_format, code_block, formatters

ROOT = Path(__file__).resolve().parents[2]
SHARED_DATA = Path(os.environ.get("SYNTHGUARD_SHARED_DATA", ROOT.parent / "shared" / "data"))

_namespaces: dict[str, dict[str, Any]] = defaultdict(dict)
unrun: dict[str, list[str]] = {}   # page session -> the missing files that left it unrun
_folders: dict[str, str] = {}
_filters: dict[str, list[Any]] = defaultdict(list)
_NOT_SHOWN = ("print", "display")


def _is_artist(value: Any) -> bool:
    items = value if isinstance(value, list | tuple) and value else [value]
    return all(type(v).__module__.startswith("matplotlib") for v in items)


def _show_value(value: Any, text: str, out: io.StringIO, several: bool,
                html_parts: list[str] | None = None) -> None:
    if value is None or _is_artist(value):
        return
    if html_parts is not None and callable(getattr(value, "_repr_html_", None)):
        html_parts.append(value._repr_html_())
        return
    shown = repr(value)
    if several:
        out.write(f"{text}  →  {shown}\n" if "\n" not in shown else f"{text}\n{shown}\n")
    else:
        out.write(shown + "\n")


def _transform(code: str) -> tuple[str, str]:
    """(code that runs, code that is shown): top-level expressions get displayed."""
    tree = ast.parse(code)
    lines = code.splitlines()

    def silenced(node: ast.stmt) -> bool:  # a trailing ';' hides the value, as in a notebook
        rest = lines[node.end_lineno - 1][node.end_col_offset:] if node.end_lineno else ""
        return rest.lstrip().startswith(";")

    shown = [n for n in tree.body if isinstance(n, ast.Expr) and not (
        isinstance(n.value, ast.Call) and isinstance(n.value.func, ast.Name)
        and n.value.func.id in _NOT_SHOWN) and not isinstance(n.value, ast.Constant)
        and not silenced(n)]
    several = len(shown) > 1
    for node in shown:
        text = ast.get_source_segment(code, node.value) or ""
        node.value = ast.Call(
            func=ast.Name("__docs_show__", ast.Load()),
            args=[node.value, ast.Constant(" ".join(text.split())), ast.Constant(several)],
            keywords=[])
    ast.fix_missing_locations(tree)
    runnable = ast.unparse(tree).replace("../shared/data", str(SHARED_DATA))
    return runnable, code


def _figures_html() -> str:
    try:
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - matplotlib is a dependency
        return ""
    parts = []
    for num in plt.get_fignums():
        fig = plt.figure(num)
        buf = io.StringIO()
        fig.savefig(buf, format="svg", bbox_inches="tight")
        svg = buf.getvalue()
        svg = svg[svg.find("<svg"):]
        parts.append(f'<div class="sg-figure">{svg}</div>')
        plt.close(fig)
    return "\n".join(parts)


def _run(code: str, returncode: int | None = None, session: str | None = None,
         id: str | None = None, **extra: Any) -> str:
    namespace = _namespaces[session] if session else {}
    namespace.setdefault("__name__", "__docs__")
    out = io.StringIO()
    rich: list[str] = []
    namespace["__docs_show__"] = lambda v, t, s: _show_value(v, t, out, s, rich)
    folder = _folders.setdefault(session or "", tempfile.mkdtemp(prefix="synthguard-docs-"))
    here = os.getcwd()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # the page's own warning filters (set by an earlier block) stay in force
        warnings.filters[:0] = _filters[session or ""]
        before = list(warnings.filters)
        try:
            os.chdir(folder)
            with contextlib.redirect_stdout(out):
                exec(compile(code, f"<docs page {session}>", "exec"), namespace)
        except Exception as error:
            raise ExecutionError(code_block("python", traceback.format_exc())) from error
        finally:
            os.chdir(here)
            added = [f for f in warnings.filters if f not in before]
            _filters[session or ""][:0] = added
    notes = []
    for w in caught:
        name = w.category.__name__
        from_synthguard = "synthguard" in str(w.filename) or "docs page" in str(w.filename)
        if issubclass(w.category, FutureWarning | DeprecationWarning) and from_synthguard:
            raise ExecutionError(code_block(
                "text", f"{name}: {w.message}\n(update the page to the current API)"))
        if w.category.__module__.startswith("synthguard") or issubclass(w.category, UserWarning):
            notes.append(f"⚠ {name}: {w.message}")
    text = out.getvalue() + "".join(n + "\n" for n in dict.fromkeys(notes))
    # paths print as the reader would see them: relative to the page's folder, and the
    # shared data as ../shared/data
    text = text.replace(folder + os.sep, "").replace(str(SHARED_DATA), "../shared/data")
    body = f'<pre class="sg-output"><code>{html.escape(text.rstrip())}</code></pre>' \
        if text.strip() else ""
    return body + "".join(rich) + _figures_html()


def format_python(**kwargs: Any) -> Any:
    """markdown-exec's formatter of ``python`` blocks, replaced by :func:`install`."""
    kwargs["html"] = True
    return base_format(language="python", run=_run, transform_source=_transform, **kwargs)


def install() -> None:
    """Make markdown-exec run ``python`` blocks with :func:`format_python`; tables print
    whole (up to 12 columns) at the width of the page."""
    import pandas as pd

    formatters["python"] = format_python
    pd.set_option("display.width", 110)
    pd.set_option("display.max_columns", 12)


_FENCE = re.compile(r"^```python[ \t]*\n(.*?)^```[ \t]*$", re.M | re.S)
_SHARED_PATH = re.compile(r"\.\./shared/data((?:/[\w.+-]+)*)")


def missing_data(code: str) -> list[str]:
    """The ``../shared/data/...`` paths a block names that this checkout does not have."""
    missing = []
    for match in _SHARED_PATH.finditer(code):
        rel = match.group(1).lstrip("/")
        if not (SHARED_DATA / rel).exists():
            missing.append(f"../shared/data/{rel}".rstrip("/"))
    return list(dict.fromkeys(missing))


def mark_blocks(markdown: str, session: str) -> str:
    """Give each plain ```python block of a page the options that execute it in the page's
    session. A block naming a file under ../shared/data that this checkout lacks stays
    unexecuted with a note, and so does every later block of the page (module doc)."""
    skipped: list[str] = []

    def mark(match: re.Match[str]) -> str:
        body = match.group(1)
        missing = missing_data(body)
        if missing and not skipped:
            skipped.extend(missing)
            unrun[session] = list(missing)
            names = ", ".join(f"`{m}`" for m in missing)
            return (match.group(0) + "\n\n!!! warning \"Not run in this build: data absent\"\n"
                    f"    This block reads {names}, public data kept beside the repository "
                    "(see `../shared/data/README.md`), which this checkout does not have. "
                    "It and the blocks after it are shown without their output; build the "
                    "site where that folder exists to see them run.\n")
        if skipped:
            return match.group(0)
        return f'```python exec="on" session="{session}" source="above"\n{body}```'

    return _FENCE.sub(mark, markdown)
