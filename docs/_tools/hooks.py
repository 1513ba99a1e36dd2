"""mkdocs hooks: the generated API reference, and each page's build time.

* ``on_config`` fills the nav's empty "API reference" section with one page per public package
  (docs/_tools/reference.py reads their ``__all__``); ``on_files`` adds those pages.
* Every plain ```python block of a hand-written page runs at build time
  (docs/_tools/execute.py), its output and figures shown under it.
* The gallery (docs/gallery/): its pages import ``synthguard_docs`` (docs/_tools/gallery.py)
  to show a report's figures; after the build each page's first report figure becomes its
  thumbnail on the gallery index (``gallery/thumbs/<page>.png``, a placeholder file until
  then so the index's links check), and the index's ``sg-build-time`` markers get each
  page's build time.
* Each page's build time (its executed code included), wall clock and CPU seconds of the
  build's process (what it takes on an idle machine), is printed at the end of the build, a
  table slowest first, and written to ``site/build_times.json``, so the cost of every
  executed page is visible.
* Docstring formatting is strict like the rest: griffe's "Could not parse line" and a
  bracketed term autorefs cannot resolve fail the build (write maths in a ```text block).
"""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import re
import sys
import time
from pathlib import Path

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
gallery = _load("gallery")
sys.modules["synthguard_docs"] = gallery   # what the gallery pages import

log = logging.getLogger("mkdocs.synthguard")
_starts: dict[str, float] = {}
_times: dict[str, float] = {}
_cpu_starts: dict[str, float] = {}
_cpu: dict[str, float] = {}   # CPU seconds of this process: the cost on an idle machine
_build_start = [0.0, 0.0]   # wall and CPU clocks at on_config
_gallery: dict[str, tuple[str, str]] = {}   # page src -> (its html in site/, its thumbnail)
_BUILD_TIME = re.compile(r'<span class="sg-build-time" data-page="([^"]+)">[^<]*</span>')


def on_startup(**kwargs):
    # executed pages draw figures off-screen
    os.environ.setdefault("MPLBACKEND", "Agg")
    execute.install()


def on_config(config, **kwargs):
    _build_start[0], _build_start[1] = time.perf_counter(), time.process_time()
    execute.unrun.clear()
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
    _gallery.clear()
    for f in list(files.documentation_pages()):
        uri = f.src_uri
        if uri.startswith("gallery/") and uri.count("/") == 1 and uri != "gallery/index.md":
            stem = uri.removeprefix("gallery/").removesuffix(".md")
            thumb = f"gallery/thumbs/{stem}.png"
            _gallery[uri] = (f.dest_uri, thumb)
            # replaced by the page's figure in on_post_build
            files.append(File.generated(config, thumb,
                                        content=gallery.placeholder_png("thumbnail pending")))
    return files


def on_page_markdown(markdown, page, **kwargs):
    _starts[page.file.src_uri] = time.perf_counter()
    _cpu_starts[page.file.src_uri] = time.process_time()
    if page.file.generated_by is None:  # hand-written pages: their Python blocks run
        markdown = execute.mark_blocks(markdown, page.file.src_uri.removesuffix(".md"))
    return markdown


def on_page_content(html, page, **kwargs):
    uri = page.file.src_uri
    if uri in _starts:
        _times[uri] = time.perf_counter() - _starts.pop(uri)
        _cpu[uri] = time.process_time() - _cpu_starts.pop(uri)
    return html


def _finish_gallery(site: Path) -> None:
    """Thumbnails from each gallery page's first report figure; build times on the index."""
    for dest, thumb in _gallery.values():
        page = site / dest
        png = gallery.thumbnail(page.read_text(encoding="utf-8")) if page.is_file() else None
        if png is None:
            png = gallery.placeholder_png("not run in this build:\nits data are absent")
        (site / thumb).write_bytes(png)
    index = site / "gallery" / "index.html"
    if index.is_file():
        text = index.read_text(encoding="utf-8")

        def fill(match: re.Match[str]) -> str:
            uri = match.group(1)
            secs, cpu = _times.get(uri), _cpu.get(uri)
            if uri.removesuffix(".md") in execute.unrun:
                shown = "not run in this build (its data are absent)"
            else:
                shown = "not built" if secs is None else f"{secs:.1f} s ({cpu:.1f} s of CPU)"
            return f'<span class="sg-build-time" data-page="{uri}">{shown}</span>'

        index.write_text(_BUILD_TIME.sub(fill, text), encoding="utf-8")


def on_post_build(config, **kwargs):
    total = time.perf_counter() - _build_start[0]
    site = Path(config["site_dir"])
    _finish_gallery(site)
    slow = sorted(_times.items(), key=lambda kv: -kv[1])
    width = max((len(uri) for uri, _ in slow), default=10)
    table = [f"{'page':<{width}}  wall s   CPU s",
             *(f"{uri:<{width}}  {secs:6.1f}  {_cpu.get(uri, 0.0):6.1f}" for uri, secs in slow)]
    log.info("build time per page (executed code included; CPU: this process's, the time on "
             "an idle machine), slowest first:\n%s", "\n".join(table))
    cpu_total = time.process_time() - _build_start[1]
    log.info("whole build %.1fs (%.1fs of CPU)", total, cpu_total)
    out = site / "build_times.json"
    out.write_text(json.dumps({"pages": dict(slow), "cpu": dict(_cpu), "total": total,
                               "cpu_total": cpu_total}, indent=1), encoding="utf-8")
