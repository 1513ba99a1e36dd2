"""Helpers of the gallery pages (docs/gallery/), importable there as ``synthguard_docs``.

* :func:`report_figures` shows figures of a written ``report.html`` on the page: the very PNGs
  the report embeds, copied out by their ``<figure id=...>``, so what a gallery page shows is
  what the release board reads. An id the report lacks fails the build (the report changed;
  update the page).
* :func:`thumbnail` turns a gallery page's first report figure into the index's thumbnail
  (called by the hooks after the build); a page that drew none (its data absent) gets a card
  that says so.
"""

from __future__ import annotations

import base64
import io
import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["ReportFigures", "placeholder_png", "report_figures", "thumbnail"]

_FIGURE = re.compile(r'<figure id="(?P<id>[^"]+)">(?P<body>.*?)</figure>', re.S)
_IMG = re.compile(r'<img alt="(?P<alt>[^"]*)" src="data:image/png;base64,(?P<png>[^"]+)"')
_TITLE = re.compile(r"<h3>(.*?)</h3>", re.S)
_CAPTION = re.compile(r"<figcaption>(.*?)</figcaption>", re.S)
_PAGE_FIGURE = re.compile(
    r'<figure class="sg-report-figure"[^>]*><img [^>]*src="data:image/png;base64,([^"]+)"')
THUMB_SIZE = (360, 220)


@dataclass(frozen=True)
class ReportFigures:
    """Figures copied from a report; shown as HTML by the page executor (``_repr_html_``)."""

    figures: tuple[tuple[str, str, str, str], ...]   # (id, title, caption, base64 png)

    def _repr_html_(self) -> str:
        parts = []
        for fid, title, caption, png in self.figures:
            text = f"<strong>{title}.</strong> {caption}" if caption and caption != title \
                else f"<strong>{title}</strong>"
            parts.append(
                f'<figure class="sg-report-figure" data-report-id="{fid}">'
                f'<img alt="{title}" '
                f'src="data:image/png;base64,{png}"><figcaption>{text}</figcaption></figure>')
        return '<div class="sg-report-figures">' + "".join(parts) + "</div>"

    def __repr__(self) -> str:
        return f"ReportFigures({', '.join(f[0] for f in self.figures)})"


def report_figures(report: str | Path, *ids: str) -> ReportFigures:
    """The figures ``ids`` (``fig-frontier``, ``fig-discrimination``, ``fig-regression``,
    ``fig-violin``...) of the report at ``report``, in that order."""
    text = Path(report).read_text(encoding="utf-8")
    found = {m["id"]: m["body"] for m in _FIGURE.finditer(text)}
    missing = [i for i in ids if i not in found]
    if missing:
        raise LookupError(f"{report}: no figure {', '.join(missing)} in the report "
                          f"(it has {', '.join(found) or 'none'})")
    out = []
    for fid in ids:
        body = found[fid]
        img = _IMG.search(body)
        if img is None:
            raise LookupError(f"{report}: figure {fid} has no embedded PNG")
        title = _TITLE.search(body)
        caption = _CAPTION.search(body)
        out.append((fid, title[1] if title else img["alt"],
                    caption[1].strip() if caption else "", img["png"]))
    return ReportFigures(tuple(out))


def _png(image) -> bytes:
    buf = io.BytesIO()
    image.save(buf, format="PNG", optimize=True)
    return buf.getvalue()


def placeholder_png(text: str) -> bytes:
    """A thumbnail-sized grey card with ``text`` (a page whose data this build lacks)."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", THUMB_SIZE, (236, 239, 241))
    draw = ImageDraw.Draw(image)
    y = THUMB_SIZE[1] // 2 - 8 * len(text.splitlines())
    for line in text.splitlines():
        width = draw.textlength(line)
        draw.text(((THUMB_SIZE[0] - width) / 2, y), line, fill=(69, 90, 100))
        y += 16
    return _png(image)


def thumbnail(page_html: str) -> bytes | None:
    """A PNG thumbnail of the first report figure of a built gallery page (None: it has none)."""
    from PIL import Image

    match = _PAGE_FIGURE.search(page_html)
    if match is None:
        return None
    image = Image.open(io.BytesIO(base64.b64decode(match[1]))).convert("RGB")
    image.thumbnail(THUMB_SIZE)
    canvas = Image.new("RGB", THUMB_SIZE, (255, 255, 255))
    canvas.paste(image, ((THUMB_SIZE[0] - image.width) // 2, (THUMB_SIZE[1] - image.height) // 2))
    return _png(canvas)
