"""A million points on the Maps page, in Chromium: a Parquet of x, y, a topic and a title (a map computed
beforehand, the size of people's tables) dropped on the uploader, drawn as given, every row, through WebGL 2; a
hovered point named, a box selected and counted as the points inside it, and a searched title found, framed and
named."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tests.conftest import ARTIFACTS
from tests.e2e.test_browser import assert_no_exception, browser, server, wait_idle  # noqa: F401 (fixtures)
from tests.e2e.test_maps_browser import MAP, _choose, _drag_box, _settle, _widget

N = 1_000_000
TOPICS = [f"topic {k}" for k in range(12)]


@pytest.fixture(scope="module")
def million(tmp_path_factory):
    rng = np.random.default_rng(0)
    c = rng.integers(0, len(TOPICS), N)
    xy = rng.normal(scale=10, size=(len(TOPICS), 2))[c] + rng.normal(size=(N, 2))
    frame = pd.DataFrame({"x": xy[:, 0].astype(np.float32), "y": xy[:, 1].astype(np.float32),
                          "topic": np.array(TOPICS, dtype=object)[c], "title": [f"item {i}" for i in range(N)]})
    path = tmp_path_factory.mktemp("million") / "points.parquet"
    frame.to_parquet(path, index=False)
    return path, frame


def test_a_million_given_points_are_drawn_and_answer_a_hover_a_box_and_a_search(server, browser, million):  # noqa: F811
    url, _ = server
    path, frame = million
    page = browser.new_page(viewport={"width": 1440, "height": 1000}, accept_downloads=True)
    try:
        page.goto(f"{url}/maps")
        wait_idle(page)
        page.add_style_tag(content='[data-testid="stHeader"] { visibility: hidden; }')
        page.locator('[data-testid="stSidebar"] input[type="file"]').first.set_input_files(str(path))
        _settle(page, f"m.frame.n === {N}", timeout_ms=300_000)
        assert_no_exception(page, "maps: a million points")
        drawn = page.evaluate(f"""() => {{ const m = {MAP}, s = m.state();
            return {{n: s.n, renderer: s.renderer, soft: s.softwareGL, title: m.frame.title}}; }}""")
        # WebGL 2 draws them where a GPU does; a WebGL that the CPU emulates leaves them to the pixel loop
        assert drawn["n"] == N and drawn["renderer"] == ("canvas" if drawn["soft"] else "webgl2"), drawn
        assert drawn["title"].startswith(f"Given x, y map of {N:,} rows"), drawn
        _choose(page, "Labels and search", "title")
        _settle(page, f"m.frame.n === {N} && m.frame.labels && m.frame.labels.some((t) => t && t.startsWith('item'))")

        # a hover over a point whose title was sent names it; the point is where its x and y put it
        point = page.evaluate(f"""() => {{ const m = {MAP}, s = m.state(), f = m.frame;
            const r = m.canvas.getBoundingClientRect();
            let best = -1;
            for (let i = 0; i < f.n && best < 0; i++) {{
              if (!f.labels[i]) continue;
              const [x, y] = s.screen(i);
              if (x > r.left + 60 && x < r.right - 60 && y > r.top + 60 && y < r.bottom - 60) best = i; }}
            const [x, y] = s.screen(best);
            return {{i: best, x, y, label: f.labels[best], fx: f.x[best], fy: f.y[best]}}; }}""")
        assert point["i"] >= 0
        assert point["fx"] == pytest.approx(frame["x"][point["i"]], abs=1e-4)
        page.mouse.move(point["x"], point["y"])
        tip = page.locator(".lab-tip")
        tip.wait_for(state="visible", timeout=10_000)
        text = tip.inner_text()
        # the point under the pointer, or one drawn on the same pixel (a million points overlap): a title, a topic
        hovered = page.evaluate(f"{MAP}.hover")
        assert text.splitlines()[0] == frame["title"][hovered] or text.splitlines()[0] == f"#{hovered}", text
        assert abs(page.evaluate(f"{MAP}.state().screen({hovered})[0]") - point["x"]) < 6
        assert f"topic: {frame['topic'][hovered]}" in text, text
        page.mouse.move(5, 5)

        # a box: the selection is every point inside it, counted again from the coordinates
        _drag_box(page, 0.45, 0.35, 0.6, 0.6)
        _settle(page, f"m.frame.n === {N} && m.frame.selected.size > 0", timeout_ms=300_000)
        chosen = page.evaluate(f"{MAP}.frame.selected.size")
        assert 1_000 < chosen < N
        assert page.get_by_role("button", name=f"Isolate the selection ({chosen:,} rows)").count() == 1
        page.get_by_role("button", name="Clear the selection").first.click()
        _settle(page, f"m.frame.n === {N} && m.frame.selected.size === 0", timeout_ms=300_000)

        # a search for one title among a million: counted, ringed, framed, and the point named on the map
        hit = 654_321
        search = _widget(page, "stTextInput", "Search").locator("input").first
        search.fill(f"item {hit}")
        search.press("Enter")
        _settle(page, f"m.frame.focus && m.frame.focus.length === 1 && m.frame.focus[0] === {hit}",
                timeout_ms=300_000)
        assert page.locator('[data-testid="stMetric"]', has_text="search matches").first.inner_text().split()[-1] == "1"
        found = page.evaluate(f"""() => {{ const m = {MAP}, s = m.state();
            return {{label: m.frame.labels[{hit}], drawn: s.labels.map((l) => l.i)}}; }}""")
        assert found["label"] == f"item {hit}" and hit in found["drawn"], found
        ARTIFACTS.joinpath("screenshots").mkdir(parents=True, exist_ok=True)
        page.locator(".st-key-maps-map").first.screenshot(path=str(ARTIFACTS / "screenshots" / "maps-million.png"))
        assert_no_exception(page, "maps: a million points, searched")

        # zoomed in on a point whose title was not sent: once the view rests, every point in it has its title
        search.fill("")
        search.press("Enter")
        _settle(page, f"m.frame.n === {N} && !m.frame.focus", timeout_ms=300_000)
        spot = page.evaluate(f"""() => {{ const m = {MAP}, s = m.state(), f = m.frame;
            const r = m.canvas.getBoundingClientRect();
            for (let i = 0; i < f.n; i++) {{
              if (f.labels[i]) continue;
              const [x, y] = s.screen(i);
              if (Math.abs(x - (r.left + r.width / 2)) < r.width / 4 && Math.abs(y - (r.top + r.height / 2)) < r.height / 4)
                return {{i, x, y}}; }}
            return null; }}""")
        assert spot is not None
        page.mouse.move(spot["x"], spot["y"])
        for _ in range(8):
            page.mouse.wheel(0, -400)
            page.wait_for_timeout(40)
        in_view = f"""() => {{ const m = {MAP}, f = m.frame, v = m.view, hw = m.w / 2 / v.s, hh = m.h / 2 / v.s;
            let shown = 0, bare = 0;
            for (let i = 0; i < f.n; i++) {{
              if (Math.abs(f.x[i] - v.cx) <= hw && Math.abs(f.y[i] - v.cy) <= hh) {{ shown++; if (!f.labels[i]) bare++; }} }}
            return {{shown, bare, spot: f.labels[{spot["i"]}]}}; }}"""
        page.wait_for_function(f"() => ({in_view})().bare === 0", polling=500, timeout=120_000)
        seen = page.evaluate(in_view)
        assert 0 < seen["shown"] < 20_000 and seen["spot"] == frame["title"][spot["i"]], seen
        assert_no_exception(page, "maps: a million points, zoomed in")

        # the export: every row with its columns and where the map drew it
        button = page.get_by_role("button", name="Table with the map (.parquet)")
        button.scroll_into_view_if_needed()
        with page.expect_download(timeout=300_000) as found:
            button.click()
        out = pd.read_parquet(found.value.path())
        assert len(out) == N and {"title", "topic", "map_x", "map_y"} <= set(out.columns)
        np.testing.assert_allclose(out["map_x"].to_numpy()[::997], frame["x"].to_numpy()[::997], rtol=1e-5, atol=1e-5)
    finally:
        page.close()


def test_a_map_whose_browser_lost_its_arrays_asks_for_them_and_draws(server, browser, tmp_path):  # noqa: F811
    """60,000 given points: a colour change names the unchanged coordinates by digest. With the browser's store
    emptied first (as when it let them go), the map asks for them whole, the page sends them, and the map is drawn
    with the new colours; the store then holds them again."""
    url, _ = server
    rng = np.random.default_rng(5)
    n = 60_000
    frame = pd.DataFrame({"x": rng.normal(size=n).astype(np.float32), "y": rng.normal(size=n).astype(np.float32),
                          "topic": rng.choice(["a", "b", "c"], n)})
    path = tmp_path / "sixty.parquet"
    frame.to_parquet(path, index=False)
    page = browser.new_page(viewport={"width": 1440, "height": 1000})
    try:
        page.goto(f"{url}/maps")
        wait_idle(page)
        page.locator('[data-testid="stSidebar"] input[type="file"]').first.set_input_files(str(path))
        _settle(page, f"m.frame.n === {n} && m.frame.color.kind === 'category'", timeout_ms=300_000)
        held = page.evaluate("() => window.__labBlobs.held.size")
        assert held >= 2  # x and y at least
        page.evaluate("() => { window.__labBlobs.held.clear(); window.__labBlobs.chars = 0; }")
        _choose(page, "Colour by", "(none)")
        _settle(page, f"m.frame.n === {n} && m.frame.color.kind === 'single'", timeout_ms=300_000)
        drawn = page.evaluate(f"() => {{ const f = {MAP}.frame; return {{x: Array.from(f.x.slice(0, 5)), "
                              "held: window.__labBlobs.held.size}; }")
        np.testing.assert_allclose(drawn["x"], frame["x"][:5], rtol=1e-6)
        assert drawn["held"] >= 2
        assert_no_exception(page, "maps: arrays asked for again")
    finally:
        page.close()
