"""Run the guide's Python blocks at build time (markdown-exec), notebook-style.

The hooks give every plain ```python block of a hand-written page the options
``exec="on" session=<page> source="above"`` (:func:`mark_blocks`), so the pages stay
ordinary Markdown a reader can copy from, and every block of a page runs in one namespace, in
order, in a temporary folder of its own. What a block shows under its source comes from that
run:

* what it prints;
* the value of each expression statement that is not None (as a notebook does), after the
  expression's own text when the block shows more than one, so ``gaussian_sigma(...)`` on a
  line of its own shows the σ it computes;
* every matplotlib figure it leaves open, as an inline SVG image (then closed);
* every warning it raises (and the page's own filters let through), as a line
  ``⚠ WarningClass: message``, except that a
  ``FutureWarning`` or ``DeprecationWarning`` from synthguard (an old parameter name) fails the
  build, so the pages keep up with the API.

A block that raises fails the strict build, with its traceback in the log.
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
_folders: dict[str, str] = {}
_filters: dict[str, list[Any]] = defaultdict(list)
_NOT_SHOWN = ("print", "display")


def _is_artist(value: Any) -> bool:
    items = value if isinstance(value, list | tuple) and value else [value]
    return all(type(v).__module__.startswith("matplotlib") for v in items)


def _show_value(value: Any, text: str, out: io.StringIO, several: bool) -> None:
    if value is None or _is_artist(value):
        return
    shown = repr(value)
    if several:
        out.write(f"{text}  →  {shown}\n" if "\n" not in shown else f"{text}\n{shown}\n")
    else:
        out.write(shown + "\n")


def _transform(code: str) -> tuple[str, str]:
    """(code that runs, code that is shown): top-level expressions get displayed."""
    tree = ast.parse(code)
    shown = [n for n in tree.body if isinstance(n, ast.Expr) and not (
        isinstance(n.value, ast.Call) and isinstance(n.value.func, ast.Name)
        and n.value.func.id in _NOT_SHOWN) and not isinstance(n.value, ast.Constant)]
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
    namespace["__docs_show__"] = lambda v, t, s: _show_value(v, t, out, s)
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
    body = f'<pre class="sg-output"><code>{html.escape(text.rstrip())}</code></pre>' \
        if text.strip() else ""
    return body + _figures_html()


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


def mark_blocks(markdown: str, session: str) -> str:
    """Give each plain ```python block of a page the options that execute it in the page's
    session; a block reading ../shared/data stays unexecuted (with a note) when that folder
    is absent, as on a fresh clone."""

    def mark(match: re.Match[str]) -> str:
        body = match.group(1)
        if "../shared/data" in body and not SHARED_DATA.exists():
            return (match.group(0) + "\n\n!!! note \"Not run in this build\"\n"
                    "    It reads `../shared/data/`, which this checkout does not have.\n")
        return f'```python exec="on" session="{session}" source="above"\n{body}```'

    return _FENCE.sub(mark, markdown)
