"""The Maps page in Chromium with a data scientist's own file: 3,000 rows of 64 numbers, a title and one of 6
topics (tests/app/test_maps_page.py's ``own_table``), dropped on the sidebar's uploader as CSV and as Parquet with
the vector in one ``embedding`` list column.

What the map component drew is read from ``window.__labMaps['maps.map']``: ``state()`` (what is on the canvas)
and ``frame`` (the data it was given). One server and one browser serve both files; screenshots of each step are
saved under tests/.artifacts/screenshots/.
"""

from __future__ import annotations

import csv
import io
import re
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.app.test_maps_page import TOPICS, own_table
from tests.conftest import ARTIFACTS
from tests.e2e.test_browser import assert_no_exception, browser, server, wait_idle  # noqa: F401 (fixtures)
from tests.e2e.views import too_tall

SHOTS = ARTIFACTS / "screenshots"
KEY = "maps.map"
MAP = f"window.__labMaps[{KEY!r}]"
#: The map the tools draw (not a live t-SNE frame that only pans), its glide over.
READY = f"{MAP} && {MAP}.frame.mode !== 'pan' && !{MAP}.anim"


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    return own_table()


def _parquet_or_skip(frame: pd.DataFrame) -> bytes:
    """The table as Parquet with its vector in an ``embedding`` list column, if embedcore reads such a file."""
    out = io.BytesIO()
    pd.DataFrame({"title": frame["title"], "topic": frame["topic"],
                  "embedding": list(frame.iloc[:, 2:].to_numpy())}).to_parquet(out, index=False)
    blob = out.getvalue()
    from embedcore.io import read_vectors

    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "mine.parquet"
        path.write_bytes(blob)
        try:
            data = read_vectors(str(path))
        except Exception as err:  # noqa: BLE001 (whatever the reader says, the case cannot run)
            pytest.skip(f"the CSV file passed; the Parquet one is not tried: embedcore.io.read_vectors cannot read "
                        f"its list column yet ({type(err).__name__}: {err})")
    if data.X.shape != (len(frame), 64):
        pytest.skip(f"the CSV file passed; the Parquet one is not tried: embedcore.io.read_vectors reads its list "
                    f"column as {data.X.shape}, not "
                    f"({len(frame)}, 64)")
    return blob


def _shot(page, name: str) -> None:
    """The map with its legend (the app scrolls inside its main area, so a page screenshot shows one screen)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.locator(f".st-key-{KEY.replace('.', '-')}").first.screenshot(path=str(SHOTS / f"{name}.png"))


def _settle(page, condition: str, timeout_ms: int = 120_000) -> None:
    """Wait until the app is idle and the map satisfies ``condition`` (JS, ``m`` is the map), its glide over."""
    wait_idle(page, timeout_ms=timeout_ms)
    page.wait_for_function(f"(() => {{ const m = {MAP}; return !!m && m.frame.mode !== 'pan' && !m.anim && "
                           f"({condition}); }})()", timeout=timeout_ms)


def _widget(page, testid: str, label: str):
    exact = re.compile(rf"^\s*{re.escape(label)}\s*$")
    return page.locator(f'[data-testid="{testid}"]').filter(
        has=page.locator('[data-testid="stWidgetLabel"]', has_text=exact)).first


def _choose(page, label: str, option: str) -> None:
    """Pick ``option`` in the select box labelled ``label``."""
    box = _widget(page, "stSelectbox", label)
    box.scroll_into_view_if_needed()
    listed = page.locator('[role="option"]', has_text=re.compile(rf"^\s*{re.escape(option)}\s*$")).first
    for _ in range(5):  # a click just after a rerun (an expander opened) can land before the list can open
        wait_idle_script(page)
        box.locator("input").first.click()
        try:
            listed.wait_for(timeout=3000)
            break
        except PlaywrightTimeout:
            page.keyboard.press("Escape")
    listed.click()
    page.wait_for_timeout(300)


def wait_idle_script(page) -> None:
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]', timeout=180_000)


def _chosen(page, label: str) -> str:
    return _widget(page, "stSelectbox", label).locator("input").first.input_value() or \
        _widget(page, "stSelectbox", label).inner_text().splitlines()[-1].strip()


def _drag_box(page, x0: float, y0: float, x1: float, y1: float) -> None:
    area = page.locator(f".st-key-{KEY.replace('.', '-')} canvas.lab-overlay").first
    area.scroll_into_view_if_needed()
    page.wait_for_function(READY, timeout=60_000)
    b = area.bounding_box()
    page.mouse.move(b["x"] + x0 * b["width"], b["y"] + y0 * b["height"])
    page.mouse.down()
    page.mouse.move(b["x"] + x1 * b["width"], b["y"] + y1 * b["height"], steps=12)
    page.mouse.up()
    page.wait_for_timeout(500)


def _map(page) -> dict:
    """What the map holds: n, the points' labels, the legend, the focus, the view and each focused point."""
    return page.evaluate(f"""() => {{
      const m = {MAP}, s = m.state(), f = m.frame;
      return {{n: s.n, focus: s.focus, view: s.view, w: m.w, h: m.h, labels: f.labels ? Array.from(f.labels) : null,
               names: f.color.names || null, kind: f.color.kind, selected: [...f.selected],
               rings: f.rings.map(r => ({{name: r.name, n: (r.indices || []).length}})),
               markers: f.markers.map(g => ({{name: g.name, text: g.text || []}})),
               at: s.focus.map(i => [s.x[i], s.y[i]]), margins: s.margins}};
    }}""")


def test_her_own_file_as_csv_and_as_parquet(server, browser, frame):  # noqa: F811 (fixtures)
    """Both files in one test, so that one server and one browser serve them even when the suite runs on two
    workers; the Parquet file is skipped (after the CSV has passed) while embedcore cannot read its list column."""
    url, _ = server
    _explore(browser, url, frame, "csv", "mine.csv", "text/csv", frame.to_csv(index=False).encode(),
             [f"e{j}" for j in range(64)])
    # the list column's 64 numbers, named as the reader names them
    _explore(browser, url, frame, "parquet", "mine.parquet", "application/vnd.apache.parquet",
             _parquet_or_skip(frame), None, full=False)


def _explore(browser, url: str, frame: pd.DataFrame, kind: str, name: str, mime: str, blob: bytes,
             vector_columns: list[str] | None, full: bool = True) -> None:
    page = browser.new_page(viewport={"width": 1440, "height": 900}, accept_downloads=True)
    try:
        page.goto(f"{url}/maps")
        wait_idle(page)
        # Streamlit's fixed header would cover the top of an element's screenshot
        page.add_style_tag(content='[data-testid="stHeader"] { visibility: hidden; }')
        page.locator('[data-testid="stSidebar"] input[type="file"]').set_input_files(
            [{"name": name, "mimeType": mime, "buffer": blob}])
        page.wait_for_selector('[data-testid="stSidebar"] [data-testid="stFileChip"]', timeout=30_000)
        # every row of her file on the map
        _settle(page, "m.frame.n === 3000")
        assert_no_exception(page, f"maps {kind}: upload")
        assert page.evaluate(f"{MAP}.state().n") == 3000

        # coloured by topic: one legend entry per topic
        if full and _chosen(page, "Colour by") == "topic":  # the page's own choice: chosen afresh in the box
            _choose(page, "Colour by", "(none)")
            _settle(page, "m.frame.color.kind !== 'category'")
        _choose(page, "Colour by", "topic")
        _settle(page, "m.frame.color.kind === 'category'")
        drawn = _map(page)
        assert sorted(drawn["names"]) == sorted(TOPICS), drawn["names"]
        _shot(page, f"maps-{kind}-topic")
        page.screenshot(path=str(SHOTS / f"maps-{kind}-page.png"))
        assert not too_tall(page, f"maps {kind}: 3,000 titled rows coloured by topic")

        # a filter to 2 topics keeps their points and no others (the same code for both files: the CSV only)
        if full:
            page.get_by_text("Filter rows", exact=True).first.click()
            _choose(page, "Keep rows by", "topic")
            _settle(page, "m.frame.n < 3000")
            tags = _widget(page, "stMultiSelect", "Values").locator("[data-tag]")
            chips = [tags.nth(i).get_attribute("aria-label") for i in range(tags.count())]
            kept = sorted(chips)
            assert len(kept) == 2 and set(kept) <= set(TOPICS), chips
            drawn = _map(page)
            rows = frame.index[frame["topic"].isin(kept)]
            assert drawn["n"] == len(rows)
            assert sorted(drawn["labels"]) == sorted(frame["title"][rows])
            _shot(page, f"maps-{kind}-filter")
            _choose(page, "Keep rows by", "(none)")
            _settle(page, "m.frame.n === 3000")

        # a box on the map, downloaded with every column, then isolated and mapped alone
        _drag_box(page, 0.3, 0.3, 0.7, 0.7)
        _settle(page, "m.frame.selected.size > 0")
        drawn = _map(page)
        chosen = sorted(drawn["selected"])
        titles = sorted(drawn["labels"][i] for i in chosen)
        assert 3 <= len(chosen) < 3000
        label = f"Selection with every column (.csv, {len(chosen):,} rows)"
        with page.expect_download() as found:
            page.get_by_role("button", name=label).click()
        got = list(csv.reader(io.StringIO(Path(found.value.path()).read_text())))
        head, body = got[0], got[1:]
        assert head[:3] == ["row", "title", "topic"] and head[-2:] == ["map_x", "map_y"], head
        vectors = head[3:-2]
        assert len(vectors) == 64 and (vector_columns is None or vectors == vector_columns), vectors
        assert sorted(r[1] for r in body) == titles
        for r in body[:20]:  # each row's own numbers, as in her file
            i = int(r[0]) - 1
            assert r[2] == frame["topic"][i]
            assert np.allclose([float(v) for v in r[3:-2]], frame.iloc[i, 2:].to_numpy(float), atol=1e-6)
        page.get_by_role("button", name=f"Isolate the selection ({len(chosen):,} rows)").click()
        _settle(page, f"m.frame.n === {len(chosen)}")
        assert_no_exception(page, f"maps {kind}: isolate")
        assert sorted(_map(page)["labels"]) == titles
        assert page.get_by_text(f"The map holds the {len(chosen):,} isolated rows", exact=False).count() == 1
        _shot(page, f"maps-{kind}-isolated")
        page.get_by_role("button", name="Back to every row").click()
        _settle(page, "m.frame.n === 3000")

        # a title searched: ringed, focused, and the view centred on it (the label column, next, is changed to
        # the topic, where it matches nothing)
        hit = 17
        search = _widget(page, "stTextInput", "Search").locator("input").first
        search.fill(f"note {hit} on")
        search.press("Enter")
        _settle(page, f"m.frame.focus && m.frame.focus.length === 1 && m.frame.focus[0] === {hit}")
        drawn = _map(page)
        assert drawn["focus"] == [hit]
        assert any(r["name"].startswith("search") and r["n"] == 1 for r in drawn["rings"]), drawn["rings"]
        (x, y), view, room = drawn["at"][0], drawn["view"], drawn["margins"]
        # the point sits at the centre of the canvas (of what the axis titles leave of it), to a few pixels
        off_x, off_y = (x - view["cx"]) * view["s"], (view["cy"] - y) * view["s"]
        assert abs(off_x - (room["l"] - room["r"]) / 2) < 5 and abs(off_y - (room["t"] - room["b"]) / 2) < 5, (x, y, view)
        assert drawn["labels"][hit] == frame["title"][hit]
        _shot(page, f"maps-{kind}-search")

        # cluster labels, named by the topic
        _choose(page, "Labels and search", "topic")
        _settle(page, "m.frame.labels === null")  # a label column of six categories is not written by every point
        page.get_by_text("Cluster labels", exact=True).first.click()
        _settle(page, "m.frame.markers.some(g => (g.text || []).length > 0)")
        assert_no_exception(page, f"maps {kind}: clusters")
        texts = [t for g in _map(page)["markers"] for t in g["text"]]
        assert len(texts) >= 2 and {t.split(" (")[0] for t in texts} <= set(TOPICS), texts
        _shot(page, f"maps-{kind}-clusters")
        if full:
            # a click on a cluster's name selects its rows: the named topic is their commonest, with the share
            # the name gives (on PCA's map two topics overlap, and one cluster holds both)
            page.evaluate(f"{MAP}.canvas.scrollIntoView({{block: 'center'}})")
            page.wait_for_timeout(300)
            group = page.evaluate(f"{MAP}.state().groups[0]")
            x0, y0, x1, y1 = group["box"]
            page.mouse.click(x0 + 4, (y0 + y1) / 2)
            _settle(page, "m.frame.selected.size > 0")
            drawn = _map(page)
            picked = pd.Series(frame["topic"].to_numpy()[sorted(drawn["selected"])]).value_counts()
            name, share = re.fullmatch(r"(\w+) \((\d+)%\)", group["text"]).groups()
            assert picked.index[0] == name and round(100 * picked.iloc[0] / picked.sum()) == int(share), (group, picked)
            assert_no_exception(page, f"maps {kind}: a cluster selected")
            # density contours under the points
            page.get_by_text("Density contours", exact=True).first.click()
            _settle(page, f"{MAP}.state().contours.length === 3")
            assert all(c["paths"] > 0 for c in page.evaluate(f"{MAP}.state().contours"))
            _shot(page, f"maps-{kind}-contours")
            # with a selection of 1,000 rows listed, clusters and contours: still at most two screens and a half
            assert not too_tall(page, f"maps {kind}: a cluster selected")
    finally:
        page.close()


def test_a_sweep_is_scrubbed_in_the_browser(server, browser, frame):  # noqa: F811 (fixtures)
    """t-SNE at five perplexities of 500 rows; the scrubber under the map morphs between them without the
    server: at a whole step the points are that perplexity's map, between two they are part of the way."""
    url, _ = server
    page = browser.new_page(viewport={"width": 1440, "height": 1000})
    try:
        page.goto(f"{url}/maps?maps.method=t-SNE")
        wait_idle(page)
        page.locator('[data-testid="stSidebar"] input[type="file"]').set_input_files(
            [{"name": "small.csv", "mimeType": "text/csv", "buffer": frame.head(500).to_csv(index=False).encode()}])
        _settle(page, "m.frame.n === 500 && m.frame.title.startsWith('t-SNE map')", timeout_ms=180_000)
        page.get_by_role("button", name=re.compile(r"^Sweep perplexity")).click()
        _settle(page, "!!m.frame.sweep", timeout_ms=180_000)
        assert_no_exception(page, "maps: sweep")
        state = page.evaluate(f"{MAP}.state().sweep")
        assert state["values"] == [5, 15, 30, 50, 100] and state["at"] == 2 and state["t"] is None
        scrub = page.locator(".lab-scrub-input").first
        scrub.scroll_into_view_if_needed()
        frames = page.evaluate(f"(() => {{ const w = {MAP}.frame.sweep; "
                               "return w.xs.map((x, k) => [Array.from(x), Array.from(w.ys[k])]); })()")
        requests = []
        page.on("websocket", lambda ws: ws.on("framesent", lambda payload: requests.append(payload)))
        scrub.focus()
        page.keyboard.press("End")  # to perplexity 100: that map, drawn by the browser alone
        page.wait_for_timeout(200)
        s = page.evaluate(f"{MAP}.state()")
        assert s["sweep"]["t"] == 4
        assert np.allclose(s["x"], frames[4][0], atol=1e-6) and np.allclose(s["y"], frames[4][1], atol=1e-6)
        page.evaluate(f"(() => {{ const i = {MAP}.scrubInput; i.value = '0.5'; "
                      "i.dispatchEvent(new Event('input')); })()")
        s = page.evaluate(f"{MAP}.state()")
        half = (np.array(frames[0][0]) + np.array(frames[1][0])) / 2
        assert s["sweep"]["t"] == 0.5 and np.allclose(s["x"], half, atol=1e-4)
        assert "between 5 and 15" in page.locator(".lab-scrub-value").first.inner_text()
        _shot(page, "maps-sweep")
        assert not requests  # the morph is the browser's own: nothing went to the server
    finally:
        page.close()
