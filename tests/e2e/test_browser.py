"""Browser layer: the real server, every page in headless Chromium, no exception element.

Chromium comes from Debian's package (``/usr/bin/chromium``), driven by Playwright;
screenshots are saved under tests/.artifacts/screenshots/.
"""

from __future__ import annotations

import html
import os
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from app.pages import PAGES
from tests.conftest import APP, ARTIFACTS, ROOT
from tests.serving import wait_healthy

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def streamlit_server(app: Path, log_name: str, *options: str, started: list | None = None):
    """``streamlit run app`` on a free port, until its /_stcore/health answers: yields (url, start time).

    ``options`` go to ``streamlit run`` (``"--server.disconnectedSessionTTL", "5"``); the process is appended to
    ``started`` when a list is given (to measure its memory, say)."""
    port = _free_port()
    t0 = time.perf_counter()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    log = open(ARTIFACTS / log_name, "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(app), "--server.port", str(port),
         "--server.headless", "true", "--browser.gatherUsageStats", "false", *options],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
    )
    if started is not None:
        started.append(proc)
    url = f"http://127.0.0.1:{port}"
    try:
        problem = wait_healthy(url, proc)
        if problem:
            pytest.fail(f"{app.name}: {problem}; see {log.name}")
        yield url, t0
    finally:
        proc.terminate()
        proc.wait(timeout=20)
        log.close()


@pytest.fixture(scope="module")
def server():
    with streamlit_server(APP, "server.log") as found:
        yield found


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium package (tests/run.sh does).")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield b
        b.close()


def wait_idle(page, timeout_ms: int = 180_000) -> None:
    """Wait until the app has connected, run its script, and stopped running."""
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]', timeout=timeout_ms)
    page.wait_for_selector('[data-testid="stMain"] h1', timeout=timeout_ms)
    # A rerun may start just after the first (query params, fragments): settle.
    page.wait_for_timeout(300)
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]', timeout=timeout_ms)


def assert_no_exception(page, where: str) -> None:
    exceptions = page.locator('[data-testid="stException"]')
    assert exceptions.count() == 0, f"{where}: {exceptions.first.inner_text()}"


@pytest.mark.parametrize("spec", PAGES, ids=[p.url for p in PAGES])
def test_page_in_browser(server, browser, spec):
    url, t0 = server
    page = browser.new_page(viewport={"width": 1440, "height": 1000})
    try:
        page.goto(f"{url}/{'' if spec.default else spec.url}")
        wait_idle(page)
        if spec.default:
            # The first page of the module: the server was started just for it.
            # a figure to read, not a limit: wall-clock times belong in tests/benchmarks
            print(f"\nserver start to Home rendered: {time.perf_counter() - t0:.2f} s")
        assert_no_exception(page, spec.url)
        shots = ARTIFACTS / "screenshots"
        shots.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(shots / f"{spec.url}.png"), full_page=True)
    finally:
        page.close()


#: Found in the page only if text from a file was rendered as markup: bold, an image, a script link.
MARKUP_PROBE = """() => {
  const found = [];
  for (const e of document.querySelectorAll('b, strong')) {
    if (e.textContent === 'x!' || e.textContent === 'bold') found.push('bold ' + e.textContent);
  }
  for (const t of document.querySelectorAll('tspan')) {
    if (t.textContent === 'x!' && (t.getAttribute('style') || '').includes('bold')) found.push('chart bold x!');
  }
  for (const i of document.querySelectorAll('img')) {
    if ((i.getAttribute('src') || '').includes('127.0.0.1:9')) found.push('image ' + i.src);
  }
  for (const a of document.querySelectorAll('a')) {
    if ((a.getAttribute('href') || '').startsWith('javascript:')) found.push('script link');
  }
  return found;
}"""


@pytest.mark.parametrize("upload", ["table-3-categories", "text-25-words", "playlists-markup"])
def test_upload_through_the_real_uploader_reaches_every_page(server, browser, upload):
    """A file dropped on the sidebar's uploader in Chromium: every page renders, nothing from it becomes markup."""
    from tests.app.uploads import MARKUP, UPLOADS

    url, _ = server
    page = browser.new_page(viewport={"width": 1440, "height": 1000})
    try:
        page.goto(f"{url}/data")
        wait_idle(page)
        files = [{"name": n, "mimeType": "text/plain", "buffer": b} for n, b in UPLOADS[upload]]
        page.locator('[data-testid="stSidebar"] input[type="file"]').set_input_files(files)
        page.wait_for_selector('[data-testid="stSidebar"] [data-testid="stFileChip"]', timeout=30_000)
        wait_idle(page)
        for spec in PAGES:
            # navigate inside the session (a new URL would start a new session without the upload)
            page.locator(f'[data-testid="stSidebarNav"] a[href$="/{"" if spec.default else spec.url}"]').first.click()
            page.wait_for_timeout(200)
            wait_idle(page)
            assert_no_exception(page, spec.url)
            assert page.evaluate(MARKUP_PROBE) == [], spec.url
            if upload == "playlists-markup" and spec.url == "playlists":
                # the ids are on the page, shown as typed: the next-songs tab names the chosen song
                page.get_by_role("tab", name="A song's next songs").click()
                page.wait_for_timeout(200)
                wait_idle(page)
                assert_no_exception(page, spec.url)
                assert page.evaluate(MARKUP_PROBE) == [], spec.url
                html_text = page.content()
                assert any(html.escape(m, quote=False) in html_text for m in MARKUP), "no song id on the page"
        page.screenshot(path=str(ARTIFACTS / "screenshots" / f"upload-{upload}.png"), full_page=True)
    finally:
        page.close()
