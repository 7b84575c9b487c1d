"""Hostile uploads against the real server, in Chromium: it stays up, the uploader hears what happened, a second
session is served meanwhile, the server's memory stays under 3 GB and comes back after the sessions end.

The files are made at test time (tests/hostile.py) at the sizes that took servers down: a 2 KB sheet reaching
XFD1048576, sheets and shared strings inflating to 1 GiB, 5 rows x 100,000 Parquet columns, a 100 MB cell, a
million repeated .ods rows and 150 MB on one line. Times are recorded in tests/.artifacts/hostile-uploads.json,
never asserted (tests/benchmarks/RESULTS.md quotes them).
"""

from __future__ import annotations

import asyncio
import json
import threading
import time

import psutil
import pytest

from tests import hostile
from tests.conftest import APP, ARTIFACTS
from tests.e2e.test_browser import assert_no_exception, browser, streamlit_server, wait_idle  # noqa: F401
from tests.streamlit_ws import Session

#: Seconds a disconnected session is kept by this test's server (Streamlit's default is 120).
TTL = 5
#: name -> (maker, what the uploader must read: words of the refusal, or None when the file must be read)
CASES = {
    "far cell": (hostile.sparse_far_xlsx, "XFD1048576"),
    "sheet bomb": (hostile.sheet_bomb_xlsx, "of XML once unpacked"),
    "shared-strings bomb": (hostile.shared_strings_bomb_xlsx, "of shared strings"),
    "100,000 Parquet columns": (hostile.wide_parquet, "100,000 columns"),
    "100 MB cell": (hostile.long_string_parquet, "100,000 characters"),
    "a million repeated rows": (hostile.repeated_rows_ods, None),
    "deep XML": (hostile.deep_xlsx, None),
    "150 MB on one line": (hostile.one_line_text, None),
}


#: The Data page's answer to an upload: the refusal, or "Read as ...".
ANSWER = ('[data-testid="stMain"] [data-testid="stAlertContentError"], '
          '[data-testid="stMain"] [data-testid="stAlertContentSuccess"]')


class Memory(threading.Thread):
    """The server's resident memory, its children's included (the reader server and its reads), sampled 5 times a
    second: ``peak`` and ``now()``."""

    def __init__(self, pid: int):
        super().__init__(daemon=True)
        self.process = psutil.Process(pid)
        self.peak = 0
        self.running = True

    def now(self) -> int:
        total = 0
        for p in [self.process, *self.process.children(recursive=True)]:
            try:
                total += p.memory_info().rss
            except psutil.Error:
                pass
        return total

    def parts(self) -> dict:
        """Resident megabytes by process: the server, then each child by the start of its command line."""
        out = {}
        for p in [self.process, *self.process.children(recursive=True)]:
            try:
                out[f"{p.pid} {' '.join(p.cmdline())[-40:]}"] = round(p.memory_info().rss / 2**20)
            except psutil.Error:
                pass
        return out

    def run(self):
        while self.running:
            self.peak = max(self.peak, self.now())
            time.sleep(0.2)


def _second_session(url: str, out: list) -> threading.Thread:
    """Another student opening the Manifolds page while the upload is read: returns the thread, fills ``out``."""

    async def visit():
        async with await Session.connect(url) as s:
            run = await s.open("manifolds", timeout=180)
            out.append((run.seconds, run.exceptions))

    thread = threading.Thread(target=lambda: asyncio.run(visit()), daemon=True)
    thread.start()
    return thread


@pytest.fixture(scope="module")
def guarded_server():
    started: list = []
    with streamlit_server(APP, "hostile-server.log", "--server.disconnectedSessionTTL", str(TTL),
                          started=started) as (url, _):
        yield url, started[0].pid


def test_hostile_uploads_leave_the_server_serving_and_give_their_memory_back(guarded_server, browser, tmp_path):  # noqa: F811
    url, pid = guarded_server
    context = browser.new_context(viewport={"width": 1440, "height": 1000})
    page = context.new_page()
    page.goto(f"{url}/data")
    wait_idle(page)
    page.close()
    warm: list = []
    _second_session(url, warm).join(240)  # the Manifolds page once, with the processes it starts to solve
    assert warm and not warm[0][1], warm
    memory = Memory(pid)
    time.sleep(2)  # the reader server, started with the app, has imported its readers
    start, start_parts = memory.now(), memory.parts()
    memory.start()
    timings = {}
    for case, (make, says) in CASES.items():
        name, data = make()
        path = tmp_path / name
        path.write_bytes(data)
        page = context.new_page()
        page.goto(f"{url}/data")
        wait_idle(page)
        page.locator('[data-testid="stSidebar"] input[type="file"]').set_input_files(str(path))
        page.wait_for_selector('[data-testid="stSidebar"] [data-testid="stFileChip"]', timeout=120_000)
        uploaded = time.perf_counter()
        other: list = []
        visitor = _second_session(url, other)
        main = page.locator('[data-testid="stMain"]')
        # the first thing the uploader hears: a spinner naming the file, the refusal, or the result
        page.wait_for_selector(f'[data-testid="stSpinner"], {ANSWER}', timeout=120_000)
        heard = time.perf_counter() - uploaded
        page.wait_for_selector(ANSWER, timeout=180_000)
        wait_idle(page)
        done = time.perf_counter() - uploaded
        assert_no_exception(page, case)
        text = main.inner_text()
        if says is None:
            assert "Read as" in text and main.locator('[data-testid="stAlertContentError"]').count() == 0, text[:1500]
        else:
            error = main.locator('[data-testid="stAlertContentError"]').first.inner_text()
            assert says in error and name in error, error
        visitor.join(240)
        assert other and not other[0][1], (case, other)
        timings[case] = {"bytes": len(data), "heard_s": round(heard, 2), "done_s": round(done, 2),
                         "second_session_s": round(other[0][0], 2), "peak_rss_mb": round(memory.peak / 2**20)}
        page.screenshot(path=str(ARTIFACTS / "screenshots" / f"hostile-{name}.png"))
        page.close()
        path.unlink()
    context.close()
    # every session is gone once the TTL has passed; its uploads and their parsed results go with it
    deadline = time.monotonic() + TTL + 60  # the server looks for ended sessions every 10 s
    while memory.now() - start > 150 * 2**20 and time.monotonic() < deadline:
        time.sleep(1)
    memory.running = False
    after = memory.now()
    timings["memory"] = {"start_mb": round(start / 2**20), "peak_mb": round(memory.peak / 2**20),
                         "after_mb": round(after / 2**20), "start": start_parts, "after": memory.parts()}
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "hostile-uploads.json").write_text(json.dumps(timings, indent=1))
    assert memory.peak < 3 * 2**30, timings
    assert after - start < 600 * 2**20, timings
