"""The gallery's helper (docs/_tools/gallery.py): figures copied out of a report, thumbnails.

The report here is a small HTML file in the layout report.html uses (``<figure id=...>`` with
an embedded PNG); the docs build runs the helper on real reports.
"""

from __future__ import annotations

import base64
import importlib.util
import io
import sys
from pathlib import Path

import pytest

PIL = pytest.importorskip("PIL.Image", reason="pillow (a matplotlib dependency) draws thumbnails")
ROOT = Path(__file__).resolve().parents[2]


def _load():
    spec = importlib.util.spec_from_file_location(
        "_synthguard_docs_gallery_test", ROOT / "docs" / "_tools" / "gallery.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


gallery = _load()


def _png(width: int, height: int, colour: tuple[int, int, int]) -> str:
    buf = io.BytesIO()
    PIL.new("RGB", (width, height), colour).save(buf, format="PNG")
    return base64.b64encode(buf.getvalue()).decode()


def _report(tmp_path: Path) -> Path:
    red, blue = _png(800, 400, (255, 0, 0)), _png(400, 400, (0, 0, 255))
    html = (f'<h2>Utility</h2><figure id="fig-a"><h3>Overall fit</h3><img alt="Overall fit" '
            f'src="data:image/png;base64,{red}"><figcaption>Bars, one per release.</figcaption>'
            f'</figure>\n<figure id="fig-var-0"><img alt="age" src="data:image/png;base64,{blue}">'
            f'<figcaption>age</figcaption></figure>')
    path = tmp_path / "report.html"
    path.write_text(html, encoding="utf-8")
    return path


def test_report_figures_are_copied_in_the_order_asked(tmp_path):
    figs = gallery.report_figures(_report(tmp_path), "fig-var-0", "fig-a")
    assert [f[0] for f in figs.figures] == ["fig-var-0", "fig-a"]
    assert figs.figures[1][1:3] == ("Overall fit", "Bars, one per release.")
    assert figs.figures[0][1] == "age"                       # no <h3>: the image's alt
    html = figs._repr_html_()
    assert html.count('<figure class="sg-report-figure"') == 2
    assert html.index('data-report-id="fig-var-0"') < html.index('data-report-id="fig-a"')


def test_a_figure_the_report_lacks_fails(tmp_path):
    with pytest.raises(LookupError, match="fig-frontier"):
        gallery.report_figures(_report(tmp_path), "fig-a", "fig-frontier")


def test_thumbnail_of_the_first_report_figure(tmp_path):
    page = gallery.report_figures(_report(tmp_path), "fig-a", "fig-var-0")._repr_html_()
    png = gallery.thumbnail("<p>text</p>" + page)
    image = PIL.open(io.BytesIO(png))
    assert image.size == gallery.THUMB_SIZE
    # the first figure (red, 2:1) is scaled to the width, centred, white bands above and below
    w, h = gallery.THUMB_SIZE
    assert image.getpixel((w // 2, h // 2)) == (255, 0, 0)
    assert image.getpixel((w // 2, 2)) == (255, 255, 255)
    assert gallery.thumbnail("<p>no figure</p>") is None
    assert PIL.open(io.BytesIO(gallery.placeholder_png("absent"))).size == gallery.THUMB_SIZE
