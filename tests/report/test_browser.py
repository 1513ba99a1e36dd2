"""Render the report in headless Chromium: it loads, runs no failing script, and shows every figure.

Needs Debian's ``chromium`` (``apt-get install -y chromium``); skipped with a message when
it is absent. Run alone with ``pytest -m browser tests/report``.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from synthguard.report import evaluate, write_report

pytestmark = pytest.mark.browser

CANDIDATES = ("/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome")
FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
    "--disable-default-apps", "--disable-extensions", "--mute-audio",
]
# first thing in <head>: record every script error of the page
_LISTEN = """<script>
window.__errors = [];
window.addEventListener("error", function (e) { window.__errors.push(String(e.message)); });
</script>"""
# end of <body>: once loaded, count images that decoded (naturalWidth > 0) and script errors
_PROBE = """
<script>
window.addEventListener("load", function () {
  var imgs = Array.prototype.slice.call(document.images);
  var ok = imgs.filter(function (i) { return i.complete && i.naturalWidth > 0; }).length;
  var p = document.createElement("p");
  p.id = "probe";
  p.textContent = "images=" + imgs.length + " decoded=" + ok + " errors=" + window.__errors.length;
  document.body.appendChild(p);
});
</script>
"""


def _chromium() -> str | None:
    for c in CANDIDATES:
        path = shutil.which(c) or (c if Path(c).is_file() else None)
        if path:
            return path
    return None


@pytest.fixture(scope="module")
def chromium() -> str:
    path = _chromium()
    if path is None:
        pytest.skip("headless Chromium not found (install Debian's 'chromium' package: "
                    "apt-get install -y chromium) — browser check skipped")
    return path


def _probed(html: str) -> str:
    return html.replace("<head>", "<head>" + _LISTEN, 1).replace("</body>", _PROBE + "</body>")


def _run(chromium: str, args: list[str], profile: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [chromium, *FLAGS, f"--user-data-dir={profile}", *args],
        capture_output=True, text=True, timeout=120, check=False,
    )


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    from .conftest import make_conf, shuffled

    conf = make_conf(n=300, seed=2)
    top = conf.copy()
    top["income"] = top["income"].clip(upper=90000.0)
    ev = evaluate(conf, {"shuffled": [shuffled(conf, ["income"], s) for s in (1, 2)],
                         "topcoded": top},
                  keys=["region", "sex"], targets="income", random_state=1,
                  formulas=["spend ~ income"], thresholds={"max_identification_risk": 0.5},
                  kinds={"shuffled": "partial", "topcoded": "protected"})
    return write_report(ev, tmp_path_factory.mktemp("browser") / "report.html")


def test_report_renders_with_every_figure(chromium, report, tmp_path):
    html = report.read_text(encoding="utf-8")
    n_img = html.count("<img ")
    assert n_img >= 8
    probed = tmp_path / "probed.html"
    probed.write_text(_probed(html), encoding="utf-8")
    res = _run(chromium, ["--virtual-time-budget=10000", "--dump-dom", probed.as_uri()],
               tmp_path / "profile1")
    assert res.returncode == 0, res.stderr[-2000:]
    m = re.search(r'id="probe">images=(\d+) decoded=(\d+) errors=(\d+)<', res.stdout)
    assert m is not None, "the page did not finish loading in Chromium"
    images, decoded, errors = map(int, m.groups())
    assert images == n_img
    assert decoded == n_img, f"{n_img - decoded} figure(s) did not decode"
    assert errors == 0
    assert "Uncaught" not in res.stderr


def test_report_screenshot(chromium, report, tmp_path):
    shot = tmp_path / "report.png"
    res = _run(chromium, ["--window-size=1200,2400", f"--screenshot={shot}", report.as_uri()],
               tmp_path / "profile2")
    assert res.returncode == 0, res.stderr[-2000:]
    data = shot.read_bytes()
    assert data.startswith(b"\x89PNG") and len(data) > 20_000  # a blank page is a few kB


def test_probe_detects_a_broken_figure_and_a_script_error(chromium, report, tmp_path):
    # the check above can fail: a figure that does not decode and a throwing script are seen
    html = report.read_text(encoding="utf-8")
    broken = _probed(html.replace("</body>", '<img src="data:image/png;base64,AAAA">'
                                  "<script>null.boom();</script></body>"))
    probed = tmp_path / "broken.html"
    probed.write_text(broken, encoding="utf-8")
    res = _run(chromium, ["--virtual-time-budget=10000", "--dump-dom", probed.as_uri()],
               tmp_path / "profile3")
    m = re.search(r'id="probe">images=(\d+) decoded=(\d+) errors=(\d+)<', res.stdout)
    assert m is not None
    images, decoded, errors = map(int, m.groups())
    assert decoded == images - 1
    assert errors == 1


# end of <body>: once laid out, does every summary column (the last is the verdict) end inside
# the page, and is any figure wider than the page?
_FIT = """
<script>
window.addEventListener("load", function () {
  var width = document.documentElement.clientWidth, out = [];
  document.querySelectorAll("table.summary").forEach(function (t) {
    var cells = t.rows[0].cells, last = cells[cells.length - 1];
    out.push(t.id + ":" + cells.length + ":" + last.textContent + ":" +
             (last.getBoundingClientRect().right <= width ? "in" : "out"));
  });
  var wide = Array.prototype.filter.call(document.images, function (i) {
    return i.getBoundingClientRect().right > width + 1; }).length;
  var p = document.createElement("p");
  p.id = "fit";
  p.textContent = "width=" + width + " " + out.join(" ") + " wide_images=" + wide;
  document.body.appendChild(p);
});
</script>
"""


@pytest.mark.parametrize(("width", "printed"), [(1000, False), (700, True)])
def test_summary_columns_fit_on_screen_and_on_paper(chromium, report, tmp_path, width, printed):
    # 700 CSS px is the text width of an A4 page (210 mm less 12 mm margins; Letter is wider),
    # laid out with the print rules applied
    html = report.read_text(encoding="utf-8")
    if printed:
        html = html.replace("@media print", "@media all")
    page = tmp_path / "fit.html"
    page.write_text(html.replace("</body>", _FIT + "</body>"), encoding="utf-8")
    res = _run(chromium, [f"--window-size={width},1200", "--virtual-time-budget=10000",
                          "--dump-dom", page.as_uri()], tmp_path / "profile4")
    m = re.search(r'id="fit">width=(\d+) (.*?) wide_images=(\d+)<', res.stdout)
    assert m is not None, res.stderr[-2000:]
    tables = m.group(2).split()
    assert [t.split(":")[0] for t in tables] == ["summary-utility", "summary-risk"]
    for t in tables:
        tid, n_cols, last, where = t.split(":")
        assert last == "verdict" and int(n_cols) >= 5
        assert where == "in", f"{tid}: the verdict column is cut off at {width} px"
    assert m.group(3) == "0"


@pytest.mark.parametrize("paper", ["A4", "Letter"])
def test_printed_pdf_shows_every_summary_column(chromium, report, tmp_path, paper):
    pdftotext = shutil.which("pdftotext")
    if pdftotext is None:
        pytest.skip("pdftotext (poppler-utils) not found — printed check skipped")
    html = report.read_text(encoding="utf-8").replace(
        "@page { margin: 12mm; }", f"@page {{ size: {paper}; margin: 12mm; }}")
    page = tmp_path / "print.html"
    page.write_text(html, encoding="utf-8")
    pdf = tmp_path / "report.pdf"
    res = _run(chromium, ["--no-pdf-header-footer", f"--print-to-pdf={pdf}", page.as_uri()],
               tmp_path / "profile5")
    assert pdf.exists(), res.stderr[-2000:]
    text = subprocess.run([pdftotext, "-layout", str(pdf), "-"], capture_output=True,
                          text=True, check=True).stdout
    first = text[: text.index("Utility\n")] if "Utility\n" in text else text
    # each summary table prints its verdict column and each release's verdict
    assert first.count("verdict") == 2
    assert first.count("fail") >= 2 and "FAIL" in first
    for label in ("pMSE ratio", "SPECKS", "AUC", "mean", "max", "exact", "copies"):
        assert label in first, label
