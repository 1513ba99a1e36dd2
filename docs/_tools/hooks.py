"""mkdocs hooks: the generated API reference, and each page's build time.

* ``on_config`` fills the nav's empty "API reference" section with one page per public package
  (docs/_tools/reference.py reads their ``__all__``); ``on_files`` adds those pages.
* Every plain ```python block of a hand-written page runs at build time
  (docs/_tools/execute.py), its output and figures shown under it.
* Each page's build time (its executed code included) is logged and written to
  ``site/build_times.json``, so the cost of every executed page is visible.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import sys
import time
from pathlib import Path
from typing import ClassVar

from mkdocs.structure.files import File

_HERE = Path(__file__).resolve().parent


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"_synthguard_docs_{name}", _HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


reference = _load("reference")
execute = _load("execute")

log = logging.getLogger("mkdocs.synthguard")
_starts: dict[str, float] = {}
_times: dict[str, float] = {}
_build_start = [0.0]


def on_startup(**kwargs):
    # executed pages draw figures off-screen
    os.environ.setdefault("MPLBACKEND", "Agg")
    execute.install()


class _DocstringProse(logging.Filter):
    """Demote two kinds of docstring-formatting notes to INFO, keeping strict mode for the rest.

    griffe's "Could not parse line" (prose after a numpydoc list) and autorefs' "Could not find
    cross-reference target" for bracketed maths that is no identifier (``[s_.q > 0]``, an
    indicator function) are not broken references; a bracketed dotted name that does not
    resolve still fails the build.
    """

    seen: ClassVar[list[str]] = []

    def filter(self, record: logging.LogRecord) -> bool:
        msg = record.getMessage()
        target = msg.rsplit("cross-reference target '", 1)[-1].rstrip("'")
        prose = "Could not parse line" in msg or (
            "Could not find cross-reference target" in msg
            and not target.replace(".", "").replace("_", "").isalnum())
        if record.levelno == logging.WARNING and prose:
            record.levelno, record.levelname = logging.INFO, "INFO"
            self.seen.append(msg)
        return True


def on_config(config, **kwargs):
    _build_start[0] = time.perf_counter()
    for name in list(logging.root.manager.loggerDict):
        if "griffe" in name or "autorefs" in name:
            logger = logging.getLogger(name)
            if not any(isinstance(f, _DocstringProse) for f in logger.filters):
                logger.addFilter(_DocstringProse())
    pages = reference.reference_pages()
    section = [{"Overview": "reference/index.md"}] + [{p.package: p.path} for p in pages]
    for i, item in enumerate(config["nav"]):
        if isinstance(item, dict) and "API reference" in item:
            config["nav"][i] = {"API reference": section}
    return config


def on_files(files, config, **kwargs):
    pages = reference.reference_pages()
    rows = "\n".join(f"| [`{p.package}`]({p.package}.md) | {len(p.names)} |" for p in pages)
    index = ("# API reference\n\nGenerated from the docstrings of every public name of every "
             "package's `__all__`.\n\n| package | public names |\n| --- | --- |\n" + rows + "\n")
    files.append(File.generated(config, "reference/index.md", content=index))
    for page in pages:
        files.append(File.generated(config, page.path, content=page.markdown))
    return files


def on_page_markdown(markdown, page, **kwargs):
    _starts[page.file.src_uri] = time.perf_counter()
    if page.file.generated_by is None:  # hand-written pages: their Python blocks run
        markdown = execute.mark_blocks(markdown, page.file.src_uri.removesuffix(".md"))
    return markdown


def on_page_content(html, page, **kwargs):
    uri = page.file.src_uri
    if uri in _starts:
        _times[uri] = time.perf_counter() - _starts.pop(uri)
    return html


def on_post_build(config, **kwargs):
    total = time.perf_counter() - _build_start[0]
    slow = sorted(_times.items(), key=lambda kv: -kv[1])
    for uri, secs in slow:
        if secs >= 1:
            log.info("page %s built in %.1fs", uri, secs)
    if _DocstringProse.seen:
        log.info("%d docstring-formatting notes demoted (see INFO lines above)",
                 len(_DocstringProse.seen))
    log.info("whole build %.1fs", total)
    out = Path(config["site_dir"]) / "build_times.json"
    out.write_text(json.dumps({"pages": dict(slow), "total": total}, indent=1), encoding="utf-8")
