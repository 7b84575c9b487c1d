"""In the browser: a control change to the app idle again, and each page's first visit, next to the Home floor.

`python -m tests.benchmarks.bench_browser [page ...]` from the project root (pages by url, e.g.
``words manifolds``; none means every page). The table is printed and written to
tests/.artifacts/bench_browser.txt; :func:`run` returns harness Results for tests/benchmarks/run.py.

The real server (``streamlit run``) and headless Chromium driven by Playwright, started as
tests/e2e/test_browser.py does; the server runs without a file watcher, so what is timed is the code
as loaded at start. What is timed, always from inside the page:

* **a control change to idle**: ``t0`` is ``performance.now()`` taken by a capturing listener when
  the key or pointer event that changes the control is dispatched; the end is the first idle moment
  of the browser (``requestIdleCallback``) after the app's ``data-test-script-state`` (on
  ``[data-testid="stApp"]``, watched by a MutationObserver) last went back to ``notRunning``: the
  charts that the run's last messages brought are drawn by then. The state must have gone to
  ``running`` after ``t0`` and stayed idle for :data:`QUIET_S` (so a second rerun, e.g. from a query
  parameter, is included) with no spinner left. If no run starts within :data:`NO_RUN_S`, the sample ends at that check and is flagged
  "no rerun seen".
* **the floor**: on Home, the sidebar's "Random seed" gets a new value (typed, then Enter): a rerun
  that draws nothing. Every control is reported as a ratio to it (budget :data:`CONTROL_BUDGET`).
* **a first visit**: once the server is warm (it has served Home and Data in a warm-up session),
  each page is reached from another page through the sidebar navigation link, in a fresh browser
  context (a new session), timed from the click to idle, or to the moment every Plotly chart and
  3-D view on the page has drawn when that is later (a chart library still loading can leave the
  browser idle). Budget :data:`FIRST_VISIT_BUDGET_S`.

Controls are found by their visible label (exact text), in the sidebar first, then the main area,
so the benchmark survives layout changes; a control that is not found is reported as such. A control of a
mode the page does not open in is timed on the page opened with URL query parameters that choose it. Every
repetition moves a control to a value this server has not rendered before (sliders step away from
the default, one step per repetition; a radio with too few options is preceded by an untimed change
of the seed), so no cache flatters the figure. First visits are timed before any control moves.
"""

from __future__ import annotations

import math
import os
import re
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from app.pages import PAGES, PageSpec
from tests.benchmarks.harness import Result
from tests.conftest import APP, ARTIFACTS, ROOT
from tests.e2e.test_browser import CHROMIUM, CHROMIUM_ARGS

REPEATS = 3
RUN_TIMEOUT_S = 120  # one control change or page visit, to idle
LOAD_TIMEOUT_S = 180  # an untimed page load (the first one may import and compute a lot)
NO_RUN_S = 2.0  # no rerun started this long after the event: the change is counted as done then
IDLE_WAIT_S = 1.0  # after a run, how long the browser may stay busy drawing before the sample is cut
FIRST_VISIT_IDLE_WAIT_S = 5.0  # the same for a first visit, which also loads and starts the page's chart libraries
QUIET_S = 0.5  # idle this long after a run before the app counts as idle (a second rerun is included)
CONTROL_BUDGET = 2.5  # a control change to idle, as a multiple of the Home floor
FIRST_VISIT_BUDGET_S = 2.0
LARGE_MAP_BUDGET = 4.0  # a control change on a 20,000-point map
TSNE_BUDGET = 1.3  # the Words t-SNE map opened, drawn live, against the same openTSNE call alone
VIEWPORT = {"width": 1440, "height": 1000}
REPORT = ARTIFACTS / "bench_browser.txt"
SERVER_LOG = ARTIFACTS / "bench_browser_server.log"
SEED_LABEL = "Random seed"
#: A one-chart app (its own server): the seed +1 there redraws one 1,500-point map and nothing else.
MAP_FLOOR_APP = Path(__file__).with_name("map_floor_app.py")
WARM_UP_PAGE = "data"  # with Home, what the server has served before first visits are timed


@dataclass(frozen=True)
class Control:
    label: str  # the visible label, exactly (for a "box": the map's chart key)
    kind: str  # "slider", "radio", "select" or "box" (a box dragged on a map: the selection)
    section: str = ""  # a tab (or other section switch) to open first, by its visible name
    new_seed_first: bool = False  # too few values to stay new: raise the seed (untimed) before each change
    before: tuple[str, str] | None = None  # (a slider's label, a key pressed on it) first, untimed: ("Points", "End")
    budget: float = CONTROL_BUDGET
    query: str = ""  # the page opened with these URL query parameters (controls bound to the URL), untimed
    key: str = ""  # a slider moved by this key instead of one arrow step (PageUp: a jump of a tenth of its range)


#: The live controls timed on each page (by PageSpec.url); Home gives the floor.
CONTROLS: dict[str, list[Control]] = {
    "data": [Control("Bundled data set", "select")],
    "sets": [Control("K: hyperplanes per partitioning", "slider"), Control("N: partitionings", "slider")],
    # the page opens on a given matrix without γ: γ is timed on the table it learns a kernel from
    "categories": [Control("log10(γ × typical distance)", "slider",
                           query="cat.kind=learned+from+a+table&cat.article_gamma=false")],
    # A step of B shows a map solved ahead (B one and two steps either side, while a map is on screen); a jump
    # (PageUp: six steps) is solved on the spot, and is timed too.
    "manifolds": [Control("B: neighbours", "slider"), Control("B: neighbours", "slider", key="PageUp"),
                  Control("man.map.lle", "box"),
                  Control("B: neighbours", "slider", section="Pin this map"),
                  # the budget's 20,000 points (the Points slider's end is 100,000, where every B is an 8 s solve)
                  Control("B: neighbours", "slider", query="man.n=20000", budget=LARGE_MAP_BUDGET),
                  Control("B: neighbours", "slider", query="man.n=20000", budget=LARGE_MAP_BUDGET, key="PageUp")],
    "words": [Control("Window", "slider"), Control("Dimensions", "slider", section="More settings"),
              Control("words.map", "box")],
    "playlists": [Control("Model", "radio", new_seed_first=True)],
    "foundations": [Control("Rank k", "slider", section="SVD")],
    "graphs": [Control("Split", "radio", new_seed_first=True),
               Control("Turn away from the Fiedler vector (degrees)", "slider", section="Rayleigh quotient")],
    "text": [Control("Documents shown", "slider"), Control("Bucket bits b (m = 2^b)", "slider", section="Feature hashing"),
             Control("Concepts k", "slider", section="LSA")],
}

#: Installed in every page before the app's scripts: the script-state log and the event stamp.
PROBE_JS = """
(() => {
  const IDLE_WAIT_MS = %d;
  if (window.__bench) return;
  const b = window.__bench = {log: [], t0: null, armed: false, spinnerSeen: false, idleWait: IDLE_WAIT_MS};
  const ATTR = 'data-test-script-state';
  const note = (s) => {
    const last = b.log[b.log.length - 1];
    if (!s || (last && last.s === s)) return;
    const entry = {t: performance.now(), s};
    b.log.push(entry);
    // The run's end as the user sees it: the browser idle again, the charts the last messages brought drawn.
    // (at most IDLE_WAIT_MS later: a page that never idles is cut there, and the sample says so)
    if (s !== 'running') requestIdleCallback((d) => { entry.idle = performance.now(); entry.busy = d.didTimeout; },
                                            {timeout: b.idleWait});
  };
  // The state attribute changes on the app's element; a page switch can also put a new element in its place
  // (its state set as it is created, which is no attribute change), so added nodes are checked too.
  // A quick run can go to 'running' and back before the observer is called: each change's new value is the
  // next change's old value (the last one's is the value now), so no state is missed.
  new MutationObserver((records) => {
    records.forEach((r, k) => {
      if (r.type === 'attributes' && r.attributeName === ATTR) {
        const next = records.slice(k + 1).find((q) => q.type === 'attributes' && q.target === r.target);
        note(next ? next.oldValue : r.target.getAttribute(ATTR));
      } else if (r.type === 'childList' && r.addedNodes.length) {
        const app = document.querySelector('[data-testid="stApp"]');
        if (app) note(app.getAttribute(ATTR));
      }
    });
  }).observe(document, {attributes: true, attributeOldValue: true, attributeFilter: [ATTR], childList: true,
                        subtree: true});
  // Every message from the server, with the moment the browser was idle after it: a run quick enough that
  // the app never shows 'running' (both states land in one render) still ends at its last message.
  b.messages = [];
  const Socket = window.WebSocket;
  window.WebSocket = function (...args) {
    const ws = new Socket(...args);
    ws.addEventListener('message', () => {
      const m = {t: performance.now()};
      b.messages.push(m);
      requestIdleCallback(() => { m.idle = performance.now(); }, {timeout: b.idleWait});
    });
    return ws;
  };
  window.WebSocket.prototype = Socket.prototype;
  Object.assign(window.WebSocket, {CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3});
  // When, after the stamped event's run has ended, every Plotly chart and deck.gl view on the page has drawn:
  // a chart library loading for a first visit can leave the browser idle before its charts are drawn.
  const chartsDrawn = () =>
    [...document.querySelectorAll('[data-testid="stPlotlyChart"]')].every((p) => p.querySelector('.main-svg')) &&
    [...document.querySelectorAll('[data-testid="stDeckGlJsonChart"]')].every((d) => d.querySelector('canvas'));
  setInterval(() => {
    if (b.t0 == null || b.chartsAt != null) return;
    const app = document.querySelector('[data-testid="stApp"]');
    if (!app || app.getAttribute(ATTR) !== 'notRunning') return;
    // the run has ended: a 'running' state after the event and an idle one after it, or (a page switch shown
    // without one) the new page's title in place
    const after = b.log.filter((e) => e.t >= b.t0), first = after.findIndex((e) => e.s === 'running');
    const h1 = document.querySelector('[data-testid="stMain"] h1');
    const ended = (first >= 0 && after.slice(first + 1).some((e) => e.s !== 'running')) ||
      (first < 0 && b.titleFrom != null && h1 && h1.textContent !== b.titleFrom);
    if (ended && chartsDrawn()) b.chartsAt = performance.now();
  }, 20);
  const stamp = () => { if (b.armed) { b.t0 = performance.now(); b.armed = false; } };
  for (const type of ['keydown', 'pointerdown', 'mousedown', 'pointerup']) window.addEventListener(type, stamp, true);
  b.arm = (titleFrom = null) => {
    b.armed = true; b.t0 = null; b.spinnerSeen = false; b.titleFrom = titleFrom; b.titleSeen = null; b.titleIdle = null;
    b.chartsAt = null;
  };
})();
"""
PROBE_JS = PROBE_JS.replace("IDLE_WAIT_MS = %d", f"IDLE_WAIT_MS = {round(IDLE_WAIT_S * 1000)}")

#: False until the app is idle after the stamped event; then {t0, start, end, ran, runs} (start: the first run began).
DONE_JS = """
({noRunMs, quietMs}) => {
  const b = window.__bench;
  if (!b || b.t0 === null) return false;
  const now = performance.now();
  const app = document.querySelector('[data-testid="stApp"]');
  const state = app ? app.getAttribute('data-test-script-state') : null;
  if (state !== 'notRunning' && state !== 'compilationError') return false;
  const after = b.log.filter((e) => e.t >= b.t0);
  const runs = after.filter((e) => e.s === 'running').length;
  if (runs === 0 && !after.some((e) => e.s !== 'notRunning')) {
    // A page switch the app shows without a 'running' state (Home, here): done once the new page's title is
    // in place and the browser idle.
    const h1 = document.querySelector('[data-testid="stMain"] h1');
    if (b.titleFrom != null && h1 && h1.textContent !== b.titleFrom) {
      if (b.titleSeen == null) {
        b.titleSeen = now;
        requestIdleCallback(() => { b.titleIdle = performance.now(); }, {timeout: b.idleWait});
      }
      if (b.titleIdle == null || now - b.titleSeen < quietMs) return false;
      return {t0: b.t0, start: b.t0, end: b.titleIdle, ran: true, runs: 0, busy: false};
    }
    const got = b.messages.filter((m) => m.t >= b.t0);
    if (got.length) {
      const lastMsg = got[got.length - 1];
      if (now - lastMsg.t < quietMs || lastMsg.idle === undefined) return false;
      return {t0: b.t0, start: got[0].t, end: lastMsg.idle, ran: true, runs: 0, busy: false};
    }
    return now - b.t0 >= noRunMs ? {t0: b.t0, end: now, ran: false, runs: 0} : false;
  }
  const last = after[after.length - 1];
  if (now - last.t < quietMs || last.idle === undefined) return false;
  // A spinner still shown once the script is idle: the change is done when it goes.
  if (document.querySelector('[data-testid="stSpinner"]')) { b.spinnerSeen = true; return false; }
  const first = after.find((e) => e.s === 'running');
  return {t0: b.t0, start: first ? first.t : b.t0, end: b.spinnerSeen ? Math.max(last.idle, now) : last.idle, ran: true, runs,
          busy: !!last.busy};
}
"""

#: Longest a first visit waits for its charts after the run (counted as drawn then, and flagged).
CHARTS_WAIT_S = 20

#: True once a run has ended and the app has been idle for quietMs since, with a title in the main area.
#: (A title alone is not enough: it can be drawn before the script-state attribute says "running".)
SETTLED_JS = """
({quietMs}) => {
  const b = window.__bench;
  const app = document.querySelector('[data-testid="stApp"]');
  if (!b || !app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
  if (!document.querySelector('[data-testid="stMain"] h1')) return false;
  const last = b.log[b.log.length - 1];
  return !!last && last.s === 'notRunning' && performance.now() - last.t >= quietMs;
}
"""


class NotFound(Exception):
    """A control or section named by its label is not on the page (or the page did not load)."""


def _trouble(page, where: str) -> str:
    """What the page shows instead of the control: an exception's first line; a screenshot is saved."""
    shots = ARTIFACTS / "screenshots"
    shots.mkdir(parents=True, exist_ok=True)
    shot = shots / f"bench-{re.sub(r'[^A-Za-z0-9]+', '-', where).strip('-')}.png"
    try:
        page.screenshot(path=str(shot), full_page=True)
        exceptions = page.locator('[data-testid="stException"]')
        text = exceptions.first.inner_text().strip().splitlines()[0][:160] if exceptions.count() else ""
    except PlaywrightError:  # the page itself is gone: nothing more to say
        return ""
    return (f"the page shows an exception: {text}; " if text else "") + f"see {shot.relative_to(ROOT)}"


@dataclass
class Sample:
    seconds: float
    wait: float = math.nan  # from the event to the start of the first run (the widget's own delay, the request)
    ran: bool = True
    runs: int = 1
    exception: bool = False
    timeout: bool = False
    busy: bool = False  # the browser did not idle within IDLE_WAIT_S of the run's end: the sample ends there


@dataclass
class Row:
    page: str
    what: str
    samples: list[Sample] = field(default_factory=list)
    kind: str = "control"  # "floor", "control" or "first visit"
    note: str = ""
    missing: str = ""  # why nothing was measured
    budget: float = CONTROL_BUDGET

    @property
    def median(self) -> float:
        ok = [s.seconds for s in self.samples if not math.isnan(s.seconds)]
        return statistics.median(ok) if ok else math.nan

    @property
    def wait(self) -> float:
        ok = [s.wait for s in self.samples if not math.isnan(s.wait)]
        return statistics.median(ok) if ok else math.nan

    def flags(self) -> str:
        out = []
        if not math.isnan(self.wait) and self.kind != "first visit":
            out.append(f"{self.wait:.2f} s of it before the run started")
        if any(not s.ran for s in self.samples):
            out.append(f"no rerun seen within {NO_RUN_S:g} s (counted as done then)")
        if any(s.runs > 1 for s in self.samples):
            out.append("two or more runs after one change")
        if any(s.timeout for s in self.samples):
            out.append(f"timed out (counted as {RUN_TIMEOUT_S} s)")
        if any(s.busy for s in self.samples):
            wait = FIRST_VISIT_IDLE_WAIT_S if self.kind == "first visit" else IDLE_WAIT_S
            out.append(f"the browser still busy {wait:g} s after a run (cut there)")
        if any(s.exception for s in self.samples):
            out.append("an exception element was shown")
        return "; ".join(out)


# ------------------------------------------------------------------ server and browser


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """`streamlit run` on a free port, headless, without usage statistics; stopped on exit."""

    def __init__(self, app: Path = APP):
        self.app = app

    def __enter__(self) -> str:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        self.log = open(SERVER_LOG, "w")
        port = _free_port()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", str(self.app), "--server.port", str(port),
             "--server.headless", "true", "--browser.gatherUsageStats", "false",
             # The code as loaded at start is what is timed: no reloads, no watcher competing for the CPU.
             "--server.fileWatcherType", "none"],
            cwd=ROOT, stdout=self.log, stderr=subprocess.STDOUT,
        )
        self.url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"the server exited with code {self.proc.returncode}; see {SERVER_LOG}")
                try:
                    with urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=1) as r:
                        if r.status == 200:
                            return self.url
                except OSError:
                    time.sleep(0.1)
            raise RuntimeError(f"the server did not answer /_stcore/health within 60 s; see {SERVER_LOG}")
        except BaseException:
            self.__exit__()
            raise

    def __exit__(self, *exc) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=20)
        self.log.close()


def _link(spec: PageSpec) -> str:
    return f'[data-testid="stSidebarNav"] a[href$="/{"" if spec.default else spec.url}"]'


class Bench:
    def __init__(self, browser, url: str):
        self.browser = browser
        self.url = url
        self.seed = 0  # the last seed used; every change takes a seed this server has not drawn with

    def new_page(self, spec: PageSpec, query: str = ""):
        """A fresh context (a new session) showing ``spec`` (with URL ``query`` parameters), idle."""
        context = self.browser.new_context(viewport=VIEWPORT)
        context.add_init_script(PROBE_JS)
        page = context.new_page()
        try:
            page.goto(f"{self.url}/{'' if spec.default else spec.url}" + (f"?{query}" if query else ""))
            self.settle(page)
        except Exception as err:
            context.close()
            raise NotFound(f"/{spec.url} did not load and become idle within {LOAD_TIMEOUT_S} s "
                           f"({type(err).__name__})") from err
        return page

    @staticmethod
    def settle(page, timeout_s: float = LOAD_TIMEOUT_S) -> None:
        try:
            page.wait_for_function(SETTLED_JS, arg={"quietMs": QUIET_S * 1000}, polling=50,
                                   timeout=timeout_s * 1000)
        except PlaywrightTimeout as err:
            raise NotFound(f"the app did not become idle within {timeout_s:g} s") from err

    @staticmethod
    def timed(page, action, new_page: bool = False) -> Sample:
        """Stamp the next input event, run ``action`` (which dispatches it) and wait until idle. ``new_page``: the
        action opens another page, which is also done when its title has replaced this one's and the browser is
        idle (a switch the app shows without a 'running' state)."""
        if new_page:
            page.evaluate("window.__bench.arm(document.querySelector('[data-testid=\"stMain\"] h1')?.textContent ?? '')")
        else:
            page.evaluate("window.__bench.arm()")
        action()
        try:
            done = page.wait_for_function(DONE_JS, arg={"noRunMs": NO_RUN_S * 1000, "quietMs": QUIET_S * 1000},
                                          polling=50, timeout=RUN_TIMEOUT_S * 1000).json_value()
        except PlaywrightTimeout:
            return Sample(float(RUN_TIMEOUT_S), timeout=True)  # a lower bound, kept in the median
        exception = page.locator('[data-testid="stException"]').count() > 0
        return Sample((done["end"] - done["t0"]) / 1000, wait=(done.get("start", done["t0"]) - done["t0"]) / 1000,
                      ran=done["ran"], runs=done["runs"], exception=exception, busy=done.get("busy", False))

    # -------------------------------------------------------------- finding controls by label

    @staticmethod
    def widget(page, testid: str, label: str, wait_s: float = 5.0):
        """The visible widget ``testid`` whose label reads ``label``: sidebar first, then the main area."""
        exact = re.compile(rf"^\s*{re.escape(label)}\s*$")
        deadline = time.monotonic() + wait_s
        while True:
            for scope in ('[data-testid="stSidebar"]', '[data-testid="stMain"]'):
                found = page.locator(f'{scope} [data-testid="{testid}"]').filter(
                    has=page.locator('[data-testid="stWidgetLabel"]', has_text=exact))
                for i in range(found.count()):
                    if found.nth(i).is_visible():
                        return found.nth(i)
            if time.monotonic() >= deadline:
                raise NotFound(f'no {testid} labelled "{label}"')
            page.wait_for_timeout(200)

    def open_section(self, page, name: str, wait_s: float = 5.0) -> None:
        """Click the tab (or a radio option, button or expander standing for one) named ``name``; untimed."""
        exact = re.compile(rf"^\s*{re.escape(name)}\s*$")
        deadline = time.monotonic() + wait_s
        while True:
            for loc in (page.get_by_role("tab", name=exact),
                        page.locator('[data-testid="stRadioOption"]', has_text=exact),
                        page.get_by_role("button", name=exact),
                        # an expander's header (its icon's name may come first)
                        page.locator('[data-testid="stExpander"] details:not([open]) > summary',
                                     has_text=re.compile(rf"{re.escape(name)}\s*$"))):
                visible = [loc.nth(i) for i in range(loc.count()) if loc.nth(i).is_visible()]
                if visible:
                    if visible[0].get_attribute("aria-selected") != "true":
                        self.timed(page, visible[0].click)  # lazy sections rerun; plain tabs do not
                    return
            if time.monotonic() >= deadline:
                raise NotFound(f'no tab or section "{name}"')
            page.wait_for_timeout(200)

    def set_seed(self, page) -> Sample:
        """Type a seed never used before into the sidebar's seed input and press Enter: timed."""
        box = self.widget(page, "stNumberInput", SEED_LABEL).locator("input").first
        self.seed += 1
        box.fill(str(self.seed))
        sample = self.timed(page, lambda: box.press("Enter"))
        if box.input_value() != str(self.seed):
            raise NotFound(f'"{SEED_LABEL}" did not take the value {self.seed}')
        return sample

    # -------------------------------------------------------------- the three kinds of measurement

    def floor(self) -> Row:
        home = next(p for p in PAGES if p.default)
        row = Row(home.url, f'"{SEED_LABEL}" +1 (a rerun that draws nothing)', kind="floor")
        try:
            page = self.new_page(home)
        except NotFound as err:
            row.missing = str(err)
            return row
        try:
            for _ in range(REPEATS):
                row.samples.append(self.set_seed(page))
            row.note = f"seeds {self.seed - REPEATS + 1}..{self.seed}"
        except NotFound as err:
            row.missing = str(err)
        finally:
            page.context.close()
        return row

    def map_floor(self, n: int = 1500) -> Row:
        """The seed +1 on :data:`MAP_FLOOR_APP` (served by this bench's url): one map of ``n`` points redrawn,
        nothing else."""
        row = Row("(reference)", f'"{SEED_LABEL}" +1 redrawing one {n:,}-point lab map', kind="reference")
        context = self.browser.new_context(viewport=VIEWPORT)
        context.add_init_script(PROBE_JS)
        page = context.new_page()
        try:
            page.goto(f"{self.url}/?n={n}")
            self.settle(page)
            for _ in range(REPEATS):
                row.samples.append(self.set_seed(page))
            row.note = "tests/benchmarks/map_floor_app.py"
        except (NotFound, PlaywrightError) as err:
            row.missing = str(err).strip().splitlines()[0]
        finally:
            context.close()
        return row

    def warm_up(self) -> None:
        home = next(p for p in PAGES if p.default)
        other = next(p for p in PAGES if p.url == WARM_UP_PAGE)
        try:
            page = self.new_page(home)
        except NotFound as err:
            print(f"warm-up: {err}", file=sys.stderr)
            return
        try:
            page.locator(_link(other)).first.click()
            page.wait_for_timeout(200)
            self.settle(page)
        except (NotFound, PlaywrightError) as err:
            print(f"warm-up: /{other.url}: {err}", file=sys.stderr)
        finally:
            page.context.close()

    def first_visit(self, spec: PageSpec) -> Row:
        start = next(p for p in PAGES if (p.url == WARM_UP_PAGE if spec.default else p.default))
        row = Row(spec.url, f"first visit, from {start.title} by the sidebar link (new session)", kind="first visit")
        try:
            page = self.new_page(start)
        except NotFound as err:
            row.missing = str(err)
            return row
        try:
            link = page.locator(_link(spec)).first
            if link.count() == 0:
                raise NotFound(f"no sidebar link to /{spec.url}")
            page.evaluate(f"window.__bench.idleWait = {round(FIRST_VISIT_IDLE_WAIT_S * 1000)}")
            sample = self.timed(page, link.click, new_page=True)
            # The visit ends when the page's charts are drawn too: the browser may idle while a chart library
            # (Plotly's is 4.7 MB) is still being fetched and evaluated for a chart below the fold.
            try:
                page.wait_for_function("window.__bench.chartsAt != null", polling=50, timeout=CHARTS_WAIT_S * 1000)
                at = page.evaluate("(window.__bench.chartsAt - window.__bench.t0) / 1000")
                counts = page.evaluate("['stPlotlyChart', 'stDeckGlJsonChart'].map((t) => "
                                       "document.querySelectorAll(`[data-testid=\"${t}\"]`).length)")
                row.note = f"{counts[0]} Plotly chart(s) and {counts[1]} deck.gl view(s) drawn at {at:.2f} s"
                sample.seconds = max(sample.seconds, at)
            except PlaywrightTimeout:
                row.note = f"a chart was not drawn within {CHARTS_WAIT_S} s of the run"
                sample.busy = True
            row.samples.append(sample)
            if spec.url == WARM_UP_PAGE or spec.default:
                row.note = "; ".join(x for x in ("served once in the warm-up", row.note) if x)
            if row.samples[-1].exception:
                row.note = "; ".join(x for x in (row.note, _trouble(page, f"{spec.url}-first-visit")) if x)
        except (NotFound, PlaywrightError) as err:
            row.missing = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        finally:
            page.context.close()
        return row

    def tsne_open(self) -> list[Row]:
        """The Words page's word map (its first picture, t-SNE computed live) redrawn at a new seed: from the Enter in
        the seed box until the finished map the selection tools draw is on the canvas, its glide over; each next
        to the same openTSNE call on the same words, without drawing, in this process (the reference). Twice:
        the first seed change beside the first call in this process (both pay one-off costs), then both again
        at another seed. The page's own first t-SNE runs when it opens, untimed, before any control."""
        rows: list[Row] = []
        spec = next(p for p in PAGES if p.url == "words")
        frames_js = "() => (window.__labMaps && window.__labMaps['words.map']) ? window.__labMaps['words.map'].state().frames : 0"
        done = ("(before) => { const m = window.__labMaps && window.__labMaps['words.map']; "
                "return !!m && m.state().frames > before && m.frame.mode !== 'pan' && !m.anim; }")
        try:
            page = self.new_page(spec)
            page.wait_for_function(done, arg=0, timeout=RUN_TIMEOUT_S * 1000, polling="raf")  # the opening t-SNE
        except (NotFound, PlaywrightError) as err:
            row = Row("words", "word map at a new seed", kind="tsne")
            row.missing = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
            return [row]
        try:
            for first in (True, False):
                row = Row("words", "word map at a new seed: t-SNE of 300 words, live, to the finished map drawn"
                          + ("" if first else " (again)"), kind="tsne")
                ref_row = Row("(reference)", "the same openTSNE call alone: the first in the benchmark's process"
                              if first else "the same openTSNE call alone, again (warm)", kind="tsne ref")
                rows += [row, ref_row]
                self.settle(page)
                before = page.evaluate(frames_js)
                self.set_seed(page)  # stamps the Enter as the start
                seed = self.seed
                page.wait_for_function(done, arg=before, timeout=RUN_TIMEOUT_S * 1000, polling="raf")
                seconds = page.evaluate("(performance.now() - window.__bench.t0) / 1000")
                frames = page.evaluate(frames_js) - before
                row.samples.append(Sample(seconds))
                row.note = f"{frames} frames drawn (the live frames and the finished map), seed {seed}"
                ref_row.samples.append(Sample(_tsne_alone(seed)))
                ref_row.note = "embedcore.maps.embed(..., 'tsne'), as the page calls it"
        except (NotFound, PlaywrightError) as err:
            rows[-2].missing = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        finally:
            page.context.close()
        return rows

    def control(self, spec: PageSpec, control: Control) -> Row:
        row = Row(spec.url, f'"{control.label}" {control.kind}' + (f" by {control.key}" if control.key else "")
                  + (f" ({control.section} tab)" if control.section else "")
                  + (f", {control.before[0]} at {control.before[1]}" if control.before else "")
                  + (f" (?{control.query})" if control.query else ""),
                  budget=control.budget)
        try:
            page = self.new_page(spec, control.query)
        except NotFound as err:
            row.missing = str(err)
            return row
        try:
            if control.section:
                self.open_section(page, control.section)
            if control.before:
                label, key = control.before
                thumb = self.widget(page, "stSlider", label).locator('input[type="range"], [role="slider"]').first
                thumb.focus()
                self.timed(page, lambda: page.keyboard.press(key))
                self.settle(page)
                row.note = f"{label}: " + (thumb.get_attribute("aria-valuetext") or thumb.get_attribute("aria-valuenow")
                                           or "")
            change = {"slider": self.slider, "radio": self.radio, "select": self.select, "box": self.box}[control.kind]
            change(page, control, row)
        except (NotFound, PlaywrightError) as err:
            first_line = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
            row.missing = "; ".join(x for x in (first_line, _trouble(page, f"{spec.url}-{control.label}")) if x)
        finally:
            page.context.close()
        return row

    def slider(self, page, control: Control, row: Row) -> None:
        thumb = self.widget(page, "stSlider", control.label).locator('input[type="range"], [role="slider"]').first
        if thumb.count() == 0:
            raise NotFound(f'"{control.label}" has no slider thumb')

        def value() -> str:
            return thumb.get_attribute("aria-valuetext") or thumb.get_attribute("aria-valuenow") or thumb.input_value()

        def number(attr: str) -> float | None:
            v = thumb.get_attribute(attr) or thumb.get_attribute(f"aria-value{attr}")
            try:
                return float(v)
            except (TypeError, ValueError):
                return None

        lo, hi, step, now = number("min"), number("max"), number("step") or 1.0, number("value")
        if now is None:
            try:
                now = float(thumb.input_value())
            except ValueError:
                now = None
        # Step away from the default, towards the side with room for every repetition.
        key = "ArrowRight"
        if None not in (lo, hi, now) and (hi - now) / step < REPEATS <= (now - lo) / step:
            key = "ArrowLeft"
        key = control.key or key
        values = [value()]
        for _ in range(REPEATS):
            thumb.focus()
            row.samples.append(self.timed(page, lambda: page.keyboard.press(key)))
            values.append(value())
        row.note = "values " + " → ".join(values)
        if len(set(values)) < len(values):
            row.note += " (a value repeated: the slider hit its end)"

    def radio(self, page, control: Control, row: Row) -> None:
        group = self.widget(page, "stRadio", control.label)
        options = group.locator('[data-testid="stRadioOption"]')
        texts = [t.strip() for t in options.all_inner_texts()]
        if len(texts) < 2:
            raise NotFound(f'"{control.label}" has fewer than two options')
        chosen = []
        for _ in range(REPEATS):
            if control.new_seed_first:
                self.set_seed(page)  # untimed here: the model about to be shown is one never drawn before
                self.settle(page)
                group = self.widget(page, "stRadio", control.label)
                options = group.locator('[data-testid="stRadioOption"]')
            selected = [i for i in range(options.count()) if options.nth(i).get_attribute("data-selected") == "true"]
            nxt = ((selected[0] if selected else -1) + 1) % len(texts)
            row.samples.append(self.timed(page, options.nth(nxt).click))
            chosen.append(texts[nxt] + (f" (seed {self.seed})" if control.new_seed_first else ""))
        row.note = "chose " + ", ".join(chosen)
        if control.new_seed_first:
            row.note += "; each after an untimed seed change"

    def box(self, page, control: Control, row: Row) -> None:
        """Drag a box on the lab map drawn under the key ``control.label``; timed from the release (the drag
        itself is the person's time). Each box is a little to the right of the last: a new selection."""
        area = page.locator(f".st-key-{control.label.replace('.', '-')} canvas.lab-overlay").first
        try:
            area.wait_for(timeout=RUN_TIMEOUT_S * 1000)
        except PlaywrightTimeout as err:
            raise NotFound(f'no map drawn under "{control.label}"') from err
        self.settle(page)  # a map drawn live (the word map's t-SNE) is on the page before its run ends
        mode = page.get_by_text("select a box", exact=True)
        if mode.count():
            mode.first.click()
            self.settle(page)
        for i in range(REPEATS):
            area.scroll_into_view_if_needed()
            b = area.bounding_box()
            page.mouse.move(b["x"] + (0.2 + 0.1 * i) * b["width"], b["y"] + 0.25 * b["height"])
            page.mouse.down()
            page.mouse.move(b["x"] + (0.5 + 0.1 * i) * b["width"], b["y"] + 0.7 * b["height"], steps=8)
            row.samples.append(self.timed(page, page.mouse.up))
        found = page.get_by_text("Selected: ", exact=False)
        row.note = found.first.inner_text() if found.count() else "no selection shown"

    def select(self, page, control: Control, row: Row) -> None:
        box = self.widget(page, "stSelectbox", control.label)
        seen = {box.locator("input").first.input_value()}
        chosen = []
        for _ in range(REPEATS):
            box = self.widget(page, "stSelectbox", control.label)
            box.locator("input").first.click()
            page.wait_for_selector('[role="option"]', timeout=10_000)
            opts = page.locator('[role="option"]')
            texts = [t.strip() for t in opts.all_inner_texts()]
            fresh = [i for i, t in enumerate(texts) if t not in seen]
            if not fresh:
                raise NotFound(f'"{control.label}" has no option left that was not shown before')
            seen.add(texts[fresh[0]])
            chosen.append(texts[fresh[0]])
            row.samples.append(self.timed(page, opts.nth(fresh[0]).click))
        row.note = "chose " + ", ".join(chosen)


# ------------------------------------------------------------------ the whole run and its table


def _select_pages(names: list[str] | None) -> list[PageSpec]:
    if not names:
        return list(PAGES)
    out = []
    for name in names:
        n = name.lower()
        match = [p for p in PAGES if n in (p.url, p.key, p.title.lower(), p.section.lower())]
        if not match:
            raise SystemExit(f"unknown page {name!r}; pages: {' '.join(p.url for p in PAGES)}")
        out.extend(p for p in match if p not in out)
    return [p for p in PAGES if p in out]


def _tsne_alone(seed: int) -> float:
    """Seconds of the Words page's t-SNE call on its default vectors (Lee, 300 words, perplexity 30), alone."""
    from app.services import data as data_service
    from app.services import words as svc
    from embedcore.maps import embed

    ref = data_service.DataRef("documents", "lee", seed)
    params = svc.vector_params(window=5, context="window", weighted=False, min_count=3, alpha=0.75, shift=1,
                               positive=True, n_components=100, eig_weight=0.5, random_state=seed)
    X = svc.map_space(ref, params, 300)
    t = time.perf_counter()
    embed(X, "tsne", perplexity=30.0, n_iter=svc.TSNE_ITERATIONS, random_state=seed, n_jobs=svc.TSNE_JOBS)
    return time.perf_counter() - t


def measure(pages: list[PageSpec]) -> list[Row]:
    if not Path(CHROMIUM).exists():
        raise RuntimeError(f"{CHROMIUM} is missing: install Debian's chromium package (tests/run.sh does).")
    from playwright.sync_api import sync_playwright

    rows: list[Row] = []
    with Server() as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            bench = Bench(browser, url)
            print("warming up (Home, then Data) ...", file=sys.stderr, flush=True)
            bench.warm_up()
            print("floor: seed change on Home ...", file=sys.stderr, flush=True)
            rows.append(bench.floor())
            # First visits before any control moves, so only the warm-up's pages were drawn before.
            for spec in pages:
                print(f"first visit: {spec.url} ...", file=sys.stderr, flush=True)
                rows.append(bench.first_visit(spec))
            # The Words t-SNE next: a control (the box on the word map) would run the server's first t-SNE.
            if any(spec.url == "words" for spec in pages):
                print("words: the t-SNE map opened, first and again ...", file=sys.stderr, flush=True)
                rows.extend(bench.tsne_open())
            for spec in pages:
                for control in CONTROLS.get(spec.url, []):
                    print(f"control: {spec.url} {control.label} ...", file=sys.stderr, flush=True)
                    rows.append(bench.control(spec, control))
            print("reference: one map redrawn ...", file=sys.stderr, flush=True)
            with Server(MAP_FLOOR_APP) as ref_url:
                rows.insert(1, Bench(browser, ref_url).map_floor(20000))
                rows.insert(1, Bench(browser, ref_url).map_floor(1500))
        finally:
            browser.close()
    return rows


def _verdict(row: Row, floor: float) -> tuple[str, str]:
    """(ratio to the floor, budget check) for the table."""
    if row.missing or math.isnan(row.median):
        return "", "NOT MEASURED"
    ratio = row.median / floor if floor and not math.isnan(floor) else math.nan
    ratio_s = "" if math.isnan(ratio) else f"{ratio:.1f}x"
    if row.kind == "floor":
        return "1.0x", "(floor)"
    if row.kind == "reference":
        return ratio_s, "(reference)"
    if row.kind == "tsne ref":
        return "", "(reference)"
    if row.kind == "tsne":
        return "", f"vs the call alone: <= {TSNE_BUDGET:g}x"
    if row.kind == "first visit":
        return ratio_s, ("ok" if row.median < FIRST_VISIT_BUDGET_S else "OVER") + f" (< {FIRST_VISIT_BUDGET_S:g} s)"
    if math.isnan(ratio):
        return "", "no floor"
    return ratio_s, ("ok" if ratio <= row.budget else "OVER") + f" (<= {row.budget:g}x)"


def format_table(rows: list[Row]) -> str:
    floor = next((r.median for r in rows if r.kind == "floor"), math.nan)
    head = (f"{'page':12s} {'measured':62s} {'median':>8s} {'samples (s)':>22s} {'/floor':>7s}  "
            f"{'budget':16s} note")
    lines = [head, "-" * len(head)]
    for k, r in enumerate(rows):
        ratio, check = _verdict(r, floor)
        # a t-SNE row is set beside the reference that follows it (measured next, at the same seed)
        tsne_alone = next((q.median for q in rows[k + 1:] if q.kind == "tsne ref"), math.nan)
        if r.kind == "tsne" and not math.isnan(r.median) and not math.isnan(tsne_alone):
            times = r.median / tsne_alone
            ratio, check = f"{times:.1f}x", ("ok" if times <= TSNE_BUDGET else "OVER") + f" (<= {TSNE_BUDGET:g}x alone)"
        samples = " ".join("nan" if math.isnan(s.seconds) else f"{s.seconds:.2f}" for s in r.samples)
        med = "" if math.isnan(r.median) else f"{r.median:7.2f}s"
        note = "; ".join(x for x in (f"NOT FOUND: {r.missing}" if r.missing else "", r.note, r.flags()) if x)
        lines.append(f"{r.page:12s} {r.what[:62]:62s} {med:>8s} {samples:>22s} {ratio:>7s}  {check:16s} {note}")
    return "\n".join(lines)


def _results(rows: list[Row]) -> list[Result]:
    floor_row = next((r for r in rows if r.kind == "floor"), None)
    floor = floor_row.median if floor_row else math.nan
    out = []
    for r in rows:
        ratio, check = _verdict(r, floor)
        if r.kind == "floor":
            name, ref_name, ref = f"browser {r.page}: seed change to idle (floor)", "", None
        else:
            what = "first visit to idle" if r.kind == "first visit" else f"{r.what} to idle"
            name, ref_name, ref = f"browser {r.page}: {what}", "Home floor (seed change)", floor
        note = "; ".join(x for x in (
            f"NOT FOUND: {r.missing}" if r.missing else "",
            f"median of {len(r.samples)}" if len(r.samples) > 1 else "",
            f"{ratio} of floor" if ratio and r.kind != "floor" else "",
            check, r.flags()) if x)
        out.append(Result(name, r.median, ref_name, ref, note))
    return out


def run(pages: list[str] | None = None) -> list[Result]:
    rows = measure(_select_pages(pages))
    table = format_table(rows)
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    header = (f"Browser benchmark, {time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} cores, load {load}; "
              f"medians of {REPEATS} (first visits: 1, each in a new session)\n")
    print(header + table)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    REPORT.write_text(header + table + "\n")
    return _results(rows)


def main(argv: list[str]) -> None:
    run(argv or None)
    print(f"\nwritten to {REPORT.relative_to(ROOT)}")


if __name__ == "__main__":
    main(sys.argv[1:])
