"""The built documentation site in headless Chromium: its search finds a page, and a tutorial
page shows its figures (issue 24).

Reads the site ``make docs`` built into ``site/`` (skipped with a message when there is none,
or without Chromium: ``apt-get install -y chromium``). The site is served over HTTP from a
thread, Chromium is driven through the DevTools protocol (tornado's WebSocket client, which the
``dask`` extra brings); the search is Material's own, run by typing the query into the URL
(``?q=``) as a shared search link does. Run alone with ``pytest -m browser tests/docs``.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import functools
import http.server
import itertools
import json
import shutil
import subprocess
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "site"
CANDIDATES = ("/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome")


@pytest.fixture(scope="module")
def chromium() -> str:
    for c in CANDIDATES:
        path = shutil.which(c) or (c if Path(c).is_file() else None)
        if path:
            return path
    pytest.skip("headless Chromium not found (install Debian's 'chromium' package: "
                "apt-get install -y chromium) — browser check skipped")


@pytest.fixture(scope="module")
def site_url():
    if not (SITE / "index.html").is_file() or not (SITE / "search").is_dir():
        pytest.skip("no built site in site/: run `make docs` first — browser check skipped")
    handler = functools.partial(_QuietHandler, directory=str(SITE))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # no request lines on stderr
        pass


@pytest.fixture(scope="module")
def devtools(chromium, tmp_path_factory):
    """A headless Chromium with a DevTools port: yields the page target's WebSocket URL."""
    pytest.importorskip("tornado.websocket", reason="tornado (the dask extra) drives Chromium")
    profile = tmp_path_factory.mktemp("chromium-profile")
    proc = subprocess.Popen(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-extensions", "--disable-background-networking", "--mute-audio",
         "--window-size=1280,1600", "--remote-debugging-port=0",
         f"--user-data-dir={profile}", "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        port_file = profile / "DevToolsActivePort"
        deadline = time.monotonic() + 60
        while not port_file.is_file() and time.monotonic() < deadline:
            time.sleep(0.2)
        if not port_file.is_file():
            pytest.fail("Chromium did not open its DevTools port within 60 s")
        port = port_file.read_text().split()[0]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list") as reply:
            targets = json.load(reply)
        page = next(t for t in targets if t["type"] == "page")
        yield page["webSocketDebuggerUrl"]
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


class _Page:
    """Just enough of the DevTools protocol: navigate, evaluate, screenshot."""

    def __init__(self, ws):
        self.ws, self.ids = ws, itertools.count(1)

    async def call(self, method: str, **params):
        msg_id = next(self.ids)
        await self.ws.write_message(json.dumps({"id": msg_id, "method": method,
                                                "params": params}))
        while True:
            reply = json.loads(await self.ws.read_message())
            if reply.get("id") == msg_id:
                if "error" in reply:
                    raise AssertionError(f"{method}: {reply['error']}")
                return reply["result"]

    async def evaluate(self, expression: str):
        result = await self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        return result["result"].get("value")

    async def wait_for(self, expression: str, timeout: float = 60.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = await self.evaluate(expression)
            if value:
                return value
            await asyncio.sleep(0.25)
        return await self.evaluate(expression)


def _drive(ws_url: str, steps):
    from tornado.websocket import websocket_connect

    async def main():
        ws = await websocket_connect(ws_url, max_message_size=64 * 1024 * 1024)
        try:
            return await steps(_Page(ws))
        finally:
            ws.close()
            # read until the close handshake ends, so the socket is closed with the loop
            with contextlib.suppress(asyncio.TimeoutError):
                while await asyncio.wait_for(ws.read_message(), 5) is not None:
                    pass

    return asyncio.run(main())


def test_search_finds_the_randomized_response_page(devtools, site_url):
    async def steps(page):
        await page.call("Page.navigate", url=f"{site_url}/index.html?q=randomized+response")
        return await page.wait_for(
            "Array.from(document.querySelectorAll('.md-search-result__item a'))"
            ".map(a => a.getAttribute('href'))")

    hrefs = _drive(devtools, steps)
    assert hrefs, "Material's search returned no result for 'randomized response'"
    pages = {urllib.parse.urlsplit(h).path for h in hrefs}
    assert "/dp.html" in pages, hrefs


def test_tutorial_page_shows_its_figures(devtools, site_url, tmp_path):
    async def steps(page):
        await page.call("Page.navigate", url=f"{site_url}/dp.html")
        await page.wait_for("document.readyState === 'complete'")
        figures = await page.evaluate(
            "Array.from(document.querySelectorAll('.sg-figure svg'))"
            ".filter(s => s.getBoundingClientRect().width > 100).length")
        await page.evaluate("document.querySelector('.sg-figure').scrollIntoView()")
        shot = await page.call("Page.captureScreenshot", format="png")
        return figures, base64.b64decode(shot["data"])

    figures, png = _drive(devtools, steps)
    out = tmp_path / "dp_figure.png"
    out.write_bytes(png)
    assert figures >= 1, "the DP tutorial's noise figure is not drawn"
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 20_000


def test_gallery_index_shows_each_page_thumbnail_and_build_time(devtools, site_url, tmp_path):
    if not (SITE / "gallery" / "index.html").is_file():
        pytest.skip("this site was built without the gallery")

    async def steps(page):
        await page.call("Page.navigate", url=f"{site_url}/gallery/index.html")
        await page.wait_for("document.readyState === 'complete' && Array.from("
                            "document.querySelectorAll('.sg-gallery img')).every(i => i.complete)")
        thumbs = await page.evaluate(
            "Array.from(document.querySelectorAll('.sg-gallery img'))"
            ".map(i => [i.getAttribute('src'), i.naturalWidth, i.naturalHeight])")
        times = await page.evaluate(
            "Array.from(document.querySelectorAll('.sg-build-time')).map(s => s.textContent)")
        await page.call("Page.navigate", url=f"{site_url}/gallery/ce.html")
        await page.wait_for("document.readyState === 'complete'")
        figures = await page.evaluate(
            "Array.from(document.querySelectorAll('.sg-report-figure img'))"
            ".filter(i => i.complete && i.naturalWidth > 300).length")
        return thumbs, times, figures

    thumbs, times, figures = _drive(devtools, steps)
    assert len(thumbs) == 5, thumbs
    assert all(w == 360 and h == 220 for _, w, h in thumbs), thumbs   # drawn by the build
    # a page whose data (../shared/data beside the clone) are absent says so instead
    assert len(times) == 5 and all(
        t.endswith("s of CPU)") or t == "not run in this build (its data are absent)"
        for t in times), times
    assert any(t.endswith("s of CPU)") for t in times)  # the CE page runs on bundled data
    assert figures == 4           # the CE page runs on bundled data: its report's figures show


def test_api_page_shows_no_sphinx_roles_and_links_them(devtools, site_url):
    """The API pages showed ``:class:`` literally (issue 31): roles render as links to the
    documented object, or as code."""

    async def steps(page):
        await page.call("Page.navigate", url=f"{site_url}/reference/synthguard.synthesis.html")
        await page.wait_for("document.readyState === 'complete'")
        text = await page.evaluate("document.querySelector('article').innerText")
        links = await page.evaluate(
            "Array.from(document.querySelectorAll('article a.autorefs'))"
            ".map(a => a.getAttribute('href'))")
        return text, links

    text, links = _drive(devtools, steps)
    for role in (":class:", ":func:", ":meth:", ":mod:", ":data:"):
        assert role not in text, role
    assert any(h and "#synthguard." in h for h in links), links[:10]


@pytest.mark.parametrize("path", ["synthesis.html", "utility.html", "risk.html"])
def test_tutorial_outputs_are_not_cut_off(devtools, site_url, path):
    """Tutorial outputs sat behind horizontal scrollbars at 1280 pixels (issue 31): no
    output block is wider than the column it is shown in."""

    async def steps(page):
        await page.call("Page.navigate", url=f"{site_url}/{path}")
        await page.wait_for("document.readyState === 'complete'")
        return await page.evaluate(
            "Array.from(document.querySelectorAll('pre.sg-output > code'))"
            ".map(c => [c.scrollWidth, c.clientWidth])")

    sizes = _drive(devtools, steps)
    if not sizes:
        pytest.skip(f"{path} shows no executed output in this build")
    cut = [s for s in sizes if s[0] > s[1] + 1]
    assert not cut, f"{len(cut)} of {len(sizes)} outputs scroll sideways: {cut[:5]}"
