"""The lab at the size of people's embedding tables: each figure next to its reference, in one run.

``python -m tests.benchmarks.bench_scale [part ...]`` from the project root; parts are ``browser``, ``python``,
``frames``, ``tsne``, ``umap``, ``manifolds`` and ``memory`` (none: all, about 25 minutes on two cores). Not part of the test suite. The
table is printed and written to tests/.artifacts/bench_scale.txt.

* **browser** (the real server, headless Chromium, as tests/benchmarks/bench_browser.py runs them):

  - a Parquet of 1,000,000 rows (x, y, a topic, a title) uploaded on Maps, from ``set_input_files`` to the map
    drawn with every row (the upload's own transfer included), next to its budget of 20 s;
  - a 190,000 x 256 float32 Parquet (195 MB; 200,000 rows would be 205 MB, past the uploader's 200 MB) uploaded
    and mapped by PCA, likewise (budget 30 s), with the server's
    peak memory (its process and the reader's, polled every 50 ms; budget 3 GB);
  - a colour change (Colour by) on the 100,000- and 1,000,000-point maps, from the click to the browser idle
    after the run, next to the floor (a seed change on Home: a rerun that draws nothing; budgets 4x and 8x).
* **python**: box selection of 100,000 of 1,000,000 points answered by the Maps page (AppTest: the run after the
  selection event) next to the same page run without one (budget 2.5x); neighbour recall at k = 10 on
  100,000 x 64 points, approximate (NN-descent) against exact, and on a 2,000-row sample the exact figure, the
  approximate one and their difference.
* **frames**: pan and wheel-zoom frame times of the map at 100,000 and 1,000,000 points
  (tests/benchmarks/bench_map_gl.py; budgets: medians of 33 ms and 50 ms).
* **tsne**: the Maps page's live t-SNE of 100,000 x 64 uploaded rows in the browser (first frame, finished) next
  to the same openTSNE call alone (budget 1.3x; first frame within 10 s).
* **umap**: the Maps page's UMAP of 100,000 x 64 (AppTest, the page's cached computation) next to umap-learn
  alone with the same settings (budget 1.3x).
* **manifolds**: the Manifolds page's LLE of 100,000 swiss-roll points (AppTest) next to the same neighbours, LLE
  and trustworthiness called alone; landmark Isomap of 100,000 roll points (time, how well its first axis follows
  the roll, peak memory) and, at 3,000 points, against scikit-learn's full Isomap (time, Procrustes disparity).
* **memory**: what a Maps session of 100,000 x 384 float32 holds in the server (AppTest, resident memory above
  the page before the upload; budget about 1 GB), and Pin and compare on it.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd

from tests.conftest import ARTIFACTS

REPORT = ARTIFACTS / "bench_scale.txt"
TOPICS = [f"topic {k}" for k in range(12)]
#: Rows of the 256-number float32 table mapped by PCA: the most whose Parquet file the uploader takes (200 MB).
PCA_ROWS = 190_000
LINES: list[str] = []


def say(line: str = "") -> None:
    print(line, flush=True)
    LINES.append(line)


# ------------------------------------------------------------------ the files people have


def points(n: int, seed: int = 0) -> pd.DataFrame:
    """A map computed beforehand: x and y (float32) in 12 clusters, a topic and a title per row."""
    rng = np.random.default_rng(seed)
    c = rng.integers(0, len(TOPICS), n)
    xy = rng.normal(scale=10, size=(len(TOPICS), 2))[c] + rng.normal(size=(n, 2))
    return pd.DataFrame({"x": xy[:, 0].astype(np.float32), "y": xy[:, 1].astype(np.float32),
                         "topic": np.array(TOPICS, dtype=object)[c], "title": [f"item {i}" for i in range(n)]})


def vectors(n: int, d: int, seed: int = 0) -> pd.DataFrame:
    """``n`` float32 vectors of ``d`` numbers in 20 clusters, and each row's cluster as its label."""
    rng = np.random.default_rng(seed)
    c = rng.integers(0, 20, n)
    X = (rng.normal(scale=3, size=(20, d))[c] + rng.normal(size=(n, d))).astype(np.float32)
    return pd.DataFrame(X, columns=[f"e{j}" for j in range(d)]).assign(label=[f"c{k}" for k in c])


def write(frame: pd.DataFrame, path: Path) -> Path:
    # uncompressed and without dictionaries for the numbers: random floats do not shrink, and 200,000 x 256 stays
    # under the 200 MB limit so
    text = [c for c in frame.columns if frame[c].dtype == object]
    frame.to_parquet(path, index=False, compression=None, use_dictionary=text or False)
    return path


# ------------------------------------------------------------------ the browser


class PeakMemory:
    """The peak resident memory of a process and its children, polled every 50 ms while in use."""

    def __init__(self, pid: int):
        import psutil

        self.proc = psutil.Process(pid)
        self.main = self.total = 0
        self._stop = threading.Event()

    def _poll(self) -> None:
        import psutil

        while not self._stop.is_set():
            try:
                main = self.proc.memory_info().rss
                total = main + sum(c.memory_info().rss for c in self.proc.children(recursive=True))
            except psutil.Error:
                main = total = 0
            self.main, self.total = max(self.main, main), max(self.total, total)
            self._stop.wait(0.05)

    def __enter__(self):
        self._thread = threading.Thread(target=self._poll, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


MAP_N = """(n) => { const m = window.__labMaps && window.__labMaps['maps.map'];
  const app = document.querySelector('[data-testid="stApp"]');
  return !!m && m.state().n === n && !m.state().gliding && app && app.getAttribute('data-test-script-state') === 'notRunning'; }"""


def upload_to_drawn(page, path: Path, n: int, timeout_s: float = 300) -> float:
    """Seconds from choosing ``path`` in the sidebar's uploader to the map drawn with ``n`` points."""
    t = time.perf_counter()
    page.locator('[data-testid="stSidebar"] input[type="file"]').first.set_input_files(str(path))
    page.wait_for_function(MAP_N, arg=n, polling=50, timeout=timeout_s * 1000)
    return time.perf_counter() - t


def choose(bench, page, label: str, option: str):
    """Pick ``option`` in the select box ``label``: timed from the click on the option to the browser idle."""
    import re

    box = bench.widget(page, "stSelectbox", label)
    box.locator("input").first.click()
    listed = page.locator('[role="option"]', has_text=re.compile(rf"^\s*{re.escape(option)}\s*$")).first
    listed.wait_for(timeout=10_000)
    return bench.timed(page, listed.click)


def browser_part(tmp: Path) -> None:
    from playwright.sync_api import sync_playwright

    from tests.benchmarks.bench_browser import PROBE_JS, VIEWPORT, Bench, Row, Server
    from tests.e2e.test_browser import CHROMIUM, CHROMIUM_ARGS

    files = {"1m": write(points(1_000_000), tmp / "points_1m.parquet"),
             "100k": write(points(100_000, 1), tmp / "points_100k.parquet"),
             # 190,000 rows: 200,000 x 256 float32 are 204.8 million bytes, past the uploader's 200 MB
             "pca": write(vectors(PCA_ROWS, 256, 2), tmp / "vectors_190k_256.parquet")}
    say(f"files: {', '.join(f'{p.name} {p.stat().st_size / 2**20:.0f} MB' for p in files.values())}")
    server = Server()
    with server as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        bench = Bench(browser, url)
        bench.warm_up()
        floor = bench.floor()
        say(f"floor (a seed change on Home, a rerun that draws nothing): median {floor.median:.3f} s")

        def fresh_maps_page():
            context = browser.new_context(viewport=VIEWPORT)
            context.add_init_script(PROBE_JS)
            page = context.new_page()
            page.goto(f"{url}/maps")
            bench.settle(page)
            return page

        for name, n, budget in (("100k", 100_000, 4.0), ("1m", 1_000_000, 8.0)):
            page = fresh_maps_page()
            with PeakMemory(server.proc.pid) as peak:
                seconds = upload_to_drawn(page, files[name], n)
            bench.settle(page)
            say(f"given x, y of {n:,} rows: upload to drawn {seconds:.2f} s (budget 20 s){'' if seconds <= 20 else '  OVER'}; "
                f"server peak {peak.main / 2**30:.2f} GB (with its reader {peak.total / 2**30:.2f} GB)")
            state = page.evaluate("() => window.__labMaps['maps.map'].state()")
            say(f"  drawn by {state.get('renderer')}, {state['n']:,} points")
            row = Row("maps", f"Colour by at {n:,} points")
            try:
                for option in ("(none)", "topic", "(none)", "topic"):
                    row.samples.append(choose(bench, page, "Colour by", option))
                ratio = row.median / floor.median
                say(f"  colour change (none <-> topic, 4 times): median {row.median:.3f} s = {ratio:.2f}x the floor "
                    f"(budget {budget:g}x){'' if ratio <= budget else '  OVER'}; {row.flags()}")
            except Exception as err:  # a control not found: said, and the run goes on
                say(f"  colour change: not measured ({err})")
            page.context.close()

        page = fresh_maps_page()
        with PeakMemory(server.proc.pid) as peak:
            seconds = upload_to_drawn(page, files["pca"], PCA_ROWS, timeout_s=600)
        say(f"PCA of {PCA_ROWS:,} x 256 float32 ({files['pca'].stat().st_size / 2**20:.0f} MB): upload to drawn "
            f"{seconds:.2f} s (budget 30 s){'' if seconds <= 30 else '  OVER'}; server peak {peak.main / 2**30:.2f} GB, "
            f"with its reader {peak.total / 2**30:.2f} GB (budget 3 GB){'' if peak.main <= 3 * 2**30 else '  OVER'}")
        page.context.close()
        browser.close()


# ------------------------------------------------------------------ the page's Python


def python_part() -> None:
    from streamlit.testing.v1 import AppTest

    from embedcore import metrics
    from tests.app.maps import lab_map, select_on_map
    from tests.conftest import APP

    frame = points(1_000_000)
    blob = frame.to_parquet(index=False)
    at = AppTest.from_file(str(APP), default_timeout=900)
    at.run()
    at.switch_page("app_pages/maps.py").run()
    at.sidebar.file_uploader[0].set_value(("points.parquet", blob, "application/octet-stream"))
    at.run()
    xy = lab_map(at, "maps.map")["xy"]
    order = np.argsort(xy[:, 0], kind="stable")
    floors, boxes = [], []
    for i in range(3):
        t = time.perf_counter()
        at.run()
        floors.append(time.perf_counter() - t)
        box = order[100_000 * (2 + i): 100_000 * (3 + i)]  # a band of the map a tenth of its points wide
        t = time.perf_counter()
        select_on_map(at, "maps.map", box.tolist(), kind="box")
        boxes.append(time.perf_counter() - t)
        assert "Isolate the selection (100,000 rows)" in [b.label for b in at.button], [b.label for b in at.button]
    f, b = statistics.median(floors), statistics.median(boxes)
    say(f"box selection of 100,000 of 1,000,000 points, the page's run: median {b:.2f} s against {f:.2f} s for the "
        f"same page run without one: {b / f:.2f}x (budget 2.5x){'' if b / f <= 2.5 else '  OVER'}")

    # 100,000 points near a 3-dimensional sheet in 64 dimensions: a PCA map keeps some neighbours, not all
    rng = np.random.default_rng(3)
    X = rng.normal(size=(100_000, 3)) * [4.0, 2.0, 1.0] @ rng.normal(size=(3, 64)) + 0.3 * rng.normal(size=(100_000, 64))
    from sklearn.decomposition import PCA

    Y = PCA(2, random_state=0).fit_transform(X)
    metrics.nearest(X[:6_000], 10, approximate=True)  # NN-descent compiled before it is timed
    t = time.perf_counter()
    approx = metrics.neighbour_recall(X, Y, 10, approximate=True)
    ta = time.perf_counter() - t
    t = time.perf_counter()
    exact = metrics.neighbour_recall(X, Y, 10)
    te = time.perf_counter() - t
    check = metrics.recall_on_sample(X, Y, 10, 2_000)
    say(f"neighbour recall@10 of a PCA map of 100,000 x 64 (a 3-D sheet): approximate {approx:.4f} in {ta:.1f} s, exact "
        f"{exact:.4f} in {te:.1f} s (difference {approx - exact:+.4f})")
    say(f"  on a 2,000-row sample: exact {check['exact']:.4f}, approximate {check['approximate']:.4f}, difference "
        f"{check['difference']:+.4f}; NN-descent found {check['found']:.1%} of the exact neighbours")


# ------------------------------------------------------------------ frames, t-SNE, UMAP


def frames_part() -> None:
    import subprocess

    out = subprocess.run([sys.executable, str(Path(__file__).with_name("bench_map_gl.py"))], capture_output=True,
                         text=True, timeout=3600)
    for line in out.stdout.splitlines():
        say(line)
    if out.returncode:
        say(f"bench_map_gl.py failed: {out.stderr.strip().splitlines()[-1:]}")


def tsne_part(tmp: Path) -> None:
    from playwright.sync_api import sync_playwright

    from app.services import explorer as svc
    from embedcore.maps import embed
    from tests.benchmarks.bench_browser import PROBE_JS, Server, VIEWPORT
    from tests.e2e.test_browser import CHROMIUM, CHROMIUM_ARGS

    data = vectors(100_000, 64, 4)
    path = write(data, tmp / "vectors_100k_64.parquet")
    with Server() as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        context = browser.new_context(viewport=VIEWPORT)
        context.add_init_script(PROBE_JS)
        page = context.new_page()
        page.goto(f"{url}/maps?maps.method=t-SNE")
        page.wait_for_function(MAP_N, arg=1797, polling=100, timeout=600_000)  # the digits' t-SNE, run to its end
        t = time.perf_counter()
        page.locator('[data-testid="stSidebar"] input[type="file"]').first.set_input_files(str(path))
        page.wait_for_function("""() => { const m = window.__labMaps && window.__labMaps['maps.map'];
            return !!m && m.state().n === 100000; }""", polling=50, timeout=600_000)
        first = time.perf_counter() - t
        page.wait_for_function("""() => { const m = window.__labMaps && window.__labMaps['maps.map'];
            return !!m && m.state().n === 100000 && /iteration [1-9]/.test(m.frame.title); }""", polling=100,
                               timeout=1_800_000)
        first_layout = time.perf_counter() - t
        page.wait_for_function(MAP_N + "", arg=100_000, polling=200, timeout=3_600_000)
        # the page's Stop (the app's header has one of its own while a run goes on)
        page.locator('[data-testid="stMain"] button', has_text="Stop").first.wait_for(state="detached",
                                                                                      timeout=3_600_000)
        done = time.perf_counter() - t
        browser.close()
    X = data.drop(columns="label").to_numpy(np.float32)
    params = svc._tsne_params(len(X), {"perplexity": 30.0, "exaggeration": 1.0, "init": "pca"})
    t = time.perf_counter()
    embed(X, "tsne", random_state=0, n_jobs=svc.TSNE_JOBS, **params)
    alone = time.perf_counter() - t
    say(f"t-SNE of 100,000 x 64 on Maps: first frame (the PCA it starts from) {first:.1f} s after the upload "
        f"(budget 10 s), first t-SNE layout {first_layout:.1f} s, finished {done:.1f} s; openTSNE alone "
        f"{alone:.1f} s: {done / alone:.2f}x (budget 1.3x){'' if done / alone <= 1.3 else '  OVER'}")


def umap_part() -> None:
    import umap
    from streamlit.testing.v1 import AppTest

    from app.services import explorer as svc
    from tests.app.maps import lab_map
    from tests.conftest import APP

    data = vectors(100_000, 64, 5)
    # numba compiles umap-learn's and pynndescent's kernels on their first call in a process: both sides timed warm
    umap.UMAP(random_state=0, n_jobs=1).fit_transform(vectors(3_000, 64, 6).drop(columns="label").to_numpy(np.float32))
    at = AppTest.from_file(str(APP), default_timeout=3600)
    at.run()
    at.switch_page("app_pages/maps.py").run()
    at.sidebar.file_uploader[0].set_value(("v.parquet", data.to_parquet(index=False), "application/octet-stream"))
    at.run()
    at.session_state["maps.method"] = "UMAP"
    t = time.perf_counter()
    at.run()
    page = time.perf_counter() - t
    assert lab_map(at, "maps.map")["n"] == 100_000
    X = data.drop(columns="label").to_numpy(np.float32)
    kw = dict(svc.METHODS["UMAP"][1])
    t = time.perf_counter()
    # what the page asks of umap-learn (embedcore.maps.embed): its defaults, seeded, on one thread
    umap.UMAP(n_neighbors=kw["n_neighbors"][1], min_dist=kw["min_dist"][1], init="spectral", random_state=0,
              n_jobs=1).fit_transform(X)
    alone = time.perf_counter() - t
    say(f"UMAP of 100,000 x 64 on Maps (the page's run): {page:.1f} s; umap-learn alone {alone:.1f} s: "
        f"{page / alone:.2f}x (budget 1.3x){'' if page / alone <= 1.3 else '  OVER'}")


def manifolds_part() -> None:
    import resource

    from scipy.spatial import procrustes
    from scipy.stats import spearmanr
    from sklearn.manifold import Isomap
    from streamlit.testing.v1 import AppTest

    from app.services import manifolds as svc
    from embedcore.datasets import make_swiss_roll
    from embedcore.isomap import landmark_isomap
    from embedcore.manifold import lle_with_quality, nearest_neighbors
    from tests.app.maps import lab_map
    from tests.conftest import APP

    n = svc.SAMPLE
    at = AppTest.from_file(str(APP), default_timeout=3600)
    at.run()
    at.switch_page("app_pages/manifolds.py").run()
    at.session_state["man.n"] = n
    t = time.perf_counter()
    at.run()
    page = time.perf_counter() - t
    assert lab_map(at, "man.map.lle")["n"] == n and not at.exception
    B = int(at.session_state["man.B"])
    X = make_swiss_roll(n).X
    t = time.perf_counter()
    ind, _ = nearest_neighbors(X, B)
    lle_with_quality(X, ind, B, 1e-3, random_state=0)
    alone = time.perf_counter() - t
    say(f"Manifolds at {n:,} points of the swiss roll, B = {B}: the page's run to its LLE map {page:.1f} s; the "
        f"neighbours, LLE and trustworthiness alone {alone:.1f} s ({page / alone:.2f}x)")
    roll = make_swiss_roll(n, seed=1)
    t = time.perf_counter()
    Y = landmark_isomap(roll.X, 10, random_state=0)
    took = time.perf_counter() - t
    rho = abs(spearmanr(Y[:, 0], roll.meta["t"])[0])
    say(f"landmark Isomap of {n:,} roll points (100 landmarks, k = 10): {took:.1f} s, rank correlation of its first "
        f"axis with the position along the roll {rho:.3f}; process peak {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20:.2f} GB "
        f"(full Isomap's path matrix alone would be {n * n * 8 / 2**30:.0f} GB)")
    small = make_swiss_roll(3000, seed=1)
    t = time.perf_counter()
    full = Isomap(n_neighbors=10).fit_transform(small.X)
    t_full = time.perf_counter() - t
    t = time.perf_counter()
    ours = landmark_isomap(small.X, 10, random_state=0)
    t_ours = time.perf_counter() - t
    say(f"  at 3,000 points: scikit-learn's full Isomap {t_full:.2f} s, landmarks {t_ours:.2f} s; Procrustes "
        f"disparity between the two maps {procrustes(full, ours)[2]:.5f}")


def memory_part(tmp: Path) -> None:
    import gc

    import psutil
    from streamlit.testing.v1 import AppTest

    from tests.app.maps import lab_map
    from tests.conftest import APP

    path = write(vectors(100_000, 384, 7), tmp / "vectors_100k_384.parquet")
    proc = psutil.Process()
    at = AppTest.from_file(str(APP), default_timeout=900)
    at.run()
    at.switch_page("app_pages/maps.py").run()
    gc.collect()
    base = proc.memory_info().rss
    at.sidebar.file_uploader[0].set_value(("v.parquet", path.read_bytes(), "application/octet-stream"))
    t = time.perf_counter()
    at.run()
    took = time.perf_counter() - t
    assert lab_map(at, "maps.map")["n"] == 100_000 and not at.exception
    at.session_state["maps.colour"] = "(none)"
    at.run()
    gc.collect()
    held = (proc.memory_info().rss - base) / 2**30
    say(f"a session of 100,000 x 384 float32 ({path.stat().st_size / 2**20:.0f} MB Parquet) mapped by PCA in {took:.1f} s "
        f"(AppTest): {held:.2f} GB held above the page before the upload, the uploaded bytes included "
        f"(budget about 1 GB){'' if held <= 1.0 else '  OVER'}")
    pin = next(b for b in at.button if b.label == "Pin this map")
    t = time.perf_counter()
    pin.click().run()
    pinned = time.perf_counter() - t
    at.session_state["maps.colour"] = "label"
    t = time.perf_counter()
    at.run()
    compared = time.perf_counter() - t
    overlap = next(m.value for m in at.metric if m.label.startswith("neighbour overlap"))
    say(f"  Pin this map: {pinned:.2f} s; the next run comparing the two (overlap {overlap}) {compared:.2f} s")


def main(argv: list[str]) -> None:
    parts = argv or ["python", "browser", "frames", "umap", "tsne", "manifolds", "memory"]
    from app.ui import map as lab_map

    lab_map.TEXT_OF = {}  # AppTest has no browser to hold a map's long arrays: tests.app.maps reads them here
    with tempfile.TemporaryDirectory() as tmp:
        for part in parts:
            say(f"== {part}")
            if part == "browser":
                browser_part(Path(tmp))
            elif part == "python":
                python_part()
            elif part == "frames":
                frames_part()
            elif part == "tsne":
                tsne_part(Path(tmp))
            elif part == "umap":
                umap_part()
            elif part == "manifolds":
                manifolds_part()
            elif part == "memory":
                memory_part(Path(tmp))
            else:
                raise SystemExit(f"unknown part {part!r}: browser, python, frames, tsne, umap, manifolds or memory")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    REPORT.write_text("\n".join(LINES) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
