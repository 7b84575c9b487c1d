"""The lab's line and bar charts in Chromium, on the pages that open with them: each point and bar is drawn
where its value puts it on the chart's axes, and the mouse over a point or bar names it. Then the four small
canvas components (bars, lines, heatmap, 3-D view) for keyboard and screen-reader users, in a small app of known
data that this file also is: Tab reaches each, it is named and described from its data, the keys move through it
and the live region names what they reach, and T opens its table.

The charts register themselves in ``window.__labCharts`` by key (the heatmaps in ``__labHeatmaps``, the 3-D views
in ``__lab3d``); ``state()`` gives the drawn pixels and what a screen reader is given.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from tests.conftest import ARTIFACTS
from tests.e2e.test_browser import assert_no_exception, browser, server, streamlit_server, wait_idle  # noqa: F401 (fixtures)

CHART = """(key) => { const c = window.__labCharts && window.__labCharts[key];
  return c && c.data ? {data: c.data, state: c.state()} : null; }"""


def _open(browser, url: str, key: str):
    page = browser.new_page(viewport={"width": 1440, "height": 1000})
    page.goto(url)
    wait_idle(page)
    page.wait_for_function(f"() => !!(({CHART})({key!r}))", timeout=60_000)
    assert_no_exception(page, url)
    return page


def _frac(v: float, lo: float, hi: float, log: bool) -> float:
    return (math.log10(v) - math.log10(lo)) / (math.log10(hi) - math.log10(lo)) if log else (v - lo) / (hi - lo)


def _hover_text(page, key: str, x: float, y: float) -> str:
    """Move the mouse to canvas pixel (x, y) of chart ``key``; the tooltip's text."""
    page.evaluate("(k) => window.__labCharts[k].canvas.scrollIntoView({block: 'center'})", key)
    page.wait_for_timeout(200)
    box = page.evaluate("(k) => window.__labCharts[k].canvas.getBoundingClientRect().toJSON()", key)
    page.mouse.move(box["x"] + x - 3, box["y"] + y - 3)
    page.mouse.move(box["x"] + x, box["y"] + y)
    shown = "(k) => { const t = window.__labCharts[k].tip; return t.style.display === 'block' ? t.innerText : null; }"
    page.wait_for_function(f"() => ({shown})({key!r}) !== null", timeout=5_000)
    return page.evaluate(shown, key)


def test_the_zipf_curve_is_drawn_on_its_log_axes_and_names_the_word_under_the_mouse(server, browser):
    url, _ = server
    page = _open(browser, f"{url}/text", "text.chart.zipf")
    try:
        got = page.evaluate(CHART, "text.chart.zipf")
        data, s = got["data"], got["state"]
        frame, ax, ay = s["frame"], s["axes"]["x"], s["axes"]["y"]
        assert ax["log"] and ay["log"]
        for k, series in enumerate(data["series"]):
            for i in range(0, len(series["x"]), 37):  # every point where its rank and count put it
                px, py = s["points"][k][i]
                want_x = frame["left"] + frame["plotW"] * _frac(series["x"][i], ax["lo"], ax["hi"], True)
                want_y = frame["top"] + frame["plotH"] * (1 - _frac(series["y"][i], ay["lo"], ay["hi"], True))
                assert abs(px - want_x) < 0.01 and abs(py - want_y) < 0.01
            assert frame["left"] <= min(p[0] for p in s["points"][k]) and max(p[0] for p in s["points"][k]) <= \
                frame["left"] + frame["plotW"] + 0.01
        assert s["legend"] == ["count in the corpus", "documents holding it"]
        first = s["points"][0][0]  # rank 1, the corpus's most frequent word
        text = _hover_text(page, "text.chart.zipf", first[0] + 1, first[1] + 1)
        assert text.splitlines()[0] == data["series"][0]["text"][0] == "the"
    finally:
        page.close()


def test_the_sweep_marks_its_best_cut_and_the_sorted_vector_has_a_bar_per_node(server, browser):
    url, _ = server
    page = _open(browser, f"{url}/graphs", "graphs.chart.sweep")
    try:
        page.wait_for_function(f"() => !!(({CHART})('graphs.chart.vector'))", timeout=30_000)
        sweep = page.evaluate(CHART, "graphs.chart.sweep")
        profile = sweep["data"]["series"][0]
        best = next(k for k, c in enumerate(sweep["data"]["series"]) if "best sweep cut" in c["name"])
        at = int(sweep["data"]["series"][best]["x"][0]) - 1
        assert sweep["data"]["series"][best]["y"][0] == min(profile["y"])
        # the mark is drawn on the curve's point at that cut
        assert sweep["state"]["points"][best][0] == pytest.approx(sweep["state"]["points"][0][at], abs=1e-6)
        vector = page.evaluate(CHART, "graphs.chart.vector")
        bars = vector["state"]["bars"]
        assert len(bars) == len(vector["data"]["values"]) == 34
        # a bar per node, left to right in the vector's sorted order: the lowest reaches furthest down
        assert [b["x"] for b in bars] == sorted(b["x"] for b in bars)
        lowest = min(range(34), key=lambda i: vector["data"]["values"][i])
        assert lowest == 0 and bars[0]["h"] == max(b["h"] for b in bars if vector["data"]["values"][b["i"]] < 0)
        text = _hover_text(page, "graphs.chart.vector", bars[5]["x"] + bars[5]["w"] / 2, bars[5]["y"] + 1)
        assert text.splitlines()[0].startswith(vector["data"]["labels"][5] + ":")
    finally:
        page.close()


# ---------------------------------------------------------------- keyboard and screen-reader users
# This file is also the small app those tests open: `streamlit run tests/e2e/test_charts_browser.py` draws one
# bar chart, one line chart, one heatmap and one 3-D view of the data below (the block at the end).

BARS, LINES, HEAT, VIEW = "fixture.bars", "fixture.lines", "fixture.heatmap", "fixture.view3d"
BAR_LABELS = ["alpha", "beta", "gamma", "delta", "epsilon"]
BAR_VALUES = [0.42, 1.5, -0.3, 0.9, 0.05]
STEPS = list(range(1, 9))
NAMES = ["ant", "bee", "cat", "dog"]
POINTS = 30


def near() -> list[list[float]]:
    """The heatmap's first panel: 1 on the diagonal, halving with each step away from it."""
    return [[0.5 ** abs(r - c) for c in range(len(NAMES))] for r in range(len(NAMES))]


def far() -> list[list[float]]:
    """The second panel: r - c (lowest at ant and dog, highest at dog and ant)."""
    return [[float(r - c) for c in range(len(NAMES))] for r in range(len(NAMES))]


def cloud():
    """The 3-D view's points (a helix), their ids (100, 101, ...) and colours."""
    import numpy as np

    t = np.linspace(0, 4 * np.pi, POINTS)
    return np.column_stack([np.cos(t), np.sin(t), t / 4]), np.arange(100, 100 + POINTS), \
        np.tile([[59, 91, 219]], (POINTS, 1)).astype(np.uint8)


REGISTRIES = {BARS: "__labCharts", LINES: "__labCharts", HEAT: "__labHeatmaps", VIEW: "__lab3d"}
STATE = """(reg) => { const c = window[reg[0]] && window[reg[0]][reg[1]]; return c && c.data ? c.state() : null; }"""
#: The role description of the element holding the focus, looked for through the components' shadow roots, and
#: whether it is the stage of the component under ``key``.
FOCUSED = """(reg) => { let a = document.activeElement;
  while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
  const c = window[reg[0]] && window[reg[0]][reg[1]];
  return {kind: a && a.getAttribute('aria-roledescription'), ours: !!c && a === c.stage}; }"""
#: Whether a keydown of this key on the component's stage had its default prevented (only for keys it uses).
PREVENTED = """([reg, key]) => { const c = window[reg[0]][reg[1]];
  const e = new KeyboardEvent('keydown', {key, bubbles: true, cancelable: true});
  c.stage.dispatchEvent(e); return e.defaultPrevented; }"""


def _state(page, key: str) -> dict:
    return page.evaluate(STATE, [REGISTRIES[key], key])


@pytest.fixture(scope="module")
def charts_page(browser):
    """The fixture app (this file) served by `streamlit run` and opened once, every component drawn."""
    with streamlit_server(Path(__file__), "charts_app.log") as (url, _):
        page = browser.new_page(viewport={"width": 1200, "height": 900})
        try:
            page.goto(url)
            wait_idle(page)
            for key in REGISTRIES:
                page.wait_for_function(f"(reg) => !!(({STATE})(reg))", arg=[REGISTRIES[key], key], timeout=60_000)
            assert_no_exception(page, "chart fixture")
            yield page
        finally:
            page.close()


def _tab_to(page, key: str) -> None:
    """Tab from the page's title until the component under ``key`` holds the focus."""
    page.locator('[data-testid="stMain"] h1').first.click()
    for _ in range(40):
        page.keyboard.press("Tab")
        if page.evaluate(FOCUSED, [REGISTRIES[key], key])["ours"]:
            return
    raise AssertionError(f"Tab never reached {key}")


def _press(page, key: str, keys: str) -> dict:
    page.keyboard.press(keys)
    return _state(page, key)


def _table(page, key: str):
    """The table view of the component under ``key``, once T has opened it."""
    table = page.locator(f".st-key-{key.replace('.', '-')} .lab-table table")
    table.wait_for(state="visible", timeout=5_000)
    return table


def _the_bar_chart(page) -> None:
    """Named by its title, described with every value; the arrows walk the bars, outlined and announced."""
    s = _state(page, BARS)["access"]
    assert s["role"] == "application" and s["name"] == "Fixture bars" and not s["table"]
    about = s["description"]
    assert about.startswith("5 bars of weight.") and "Highest: beta, 1.500. Lowest: gamma, -0.300." in about, about
    assert all(f"{label} {value:.3f}" in about for label, value in zip(BAR_LABELS, BAR_VALUES)), about
    _tab_to(page, BARS)
    assert page.evaluate(FOCUSED, [REGISTRIES[BARS], BARS])["kind"] == "bar chart"
    s = _press(page, BARS, "ArrowRight")
    assert s["focused"] == 0 and s["access"]["said"] == "alpha: 0.420; rank 3. Bar 1 of 5."
    s = _press(page, BARS, "ArrowRight")
    assert s["focused"] == 1 and s["access"]["said"].startswith("beta: 1.500")
    tip = page.locator(f".st-key-{BARS.replace('.', '-')} .lab-chart-tip")
    assert tip.is_visible() and tip.inner_text().splitlines()[0] == "beta: 1.500"
    # the bar reached is outlined in #1c3faa: a pixel of the outline's left side (2 px wide, 3 px left of the bar)
    bar = s["bars"][1]
    outline = """([k, x, y]) => Array.from(window.__labCharts[k].canvas.getContext('2d')
      .getImageData(Math.ceil((x - 4) * devicePixelRatio), Math.round(y * devicePixelRatio), 1, 1).data).slice(0, 3)"""
    at = [BARS, bar["x"], bar["y"] + bar["h"] / 2]
    assert page.evaluate(outline, at) == [28, 63, 170]
    assert _press(page, BARS, "End")["access"]["said"].startswith("epsilon: 0.050")
    assert _press(page, BARS, "Home")["focused"] == 0
    assert not page.evaluate(PREVENTED, [[REGISTRIES[BARS], BARS], "ArrowUp"])  # a key it leaves to the page
    assert page.evaluate(PREVENTED, [[REGISTRIES[BARS], BARS], "ArrowRight"])
    page.keyboard.press("t")
    table = _table(page, BARS)
    assert table.locator("tbody tr").count() == 5 and _state(page, BARS)["access"]["table"]
    assert table.locator("thead th").all_inner_texts() == ["bar", "weight", "rank"]
    assert table.locator("tbody tr").nth(2).inner_text().split() == ["gamma", "-0.300", "5"]
    # the table took the focus: the outline goes with it
    page.wait_for_function(f"() => window.__labCharts[{BARS!r}].hasFocus === false")
    assert page.evaluate(outline, at) != [28, 63, 170]


def _the_line_chart(page) -> None:
    """Named by its axes (it has no title); Left and Right walk a line, Down goes to the other at the same x."""
    s = _state(page, LINES)["access"]
    assert s["name"] == "Line chart of score against step"  # no title: named by its axes
    about = s["description"]
    assert "rises: 8 points, x from 1 to 8; y starts at 1 and ends at 64, rises overall; highest 64 at x 8." in about
    assert "falls: 8 points, x from 1 to 8; y starts at 9 and ends at 2, falls overall; highest 9 at x 1." in about
    _tab_to(page, LINES)
    s = _press(page, LINES, "ArrowRight")
    assert s["focused"] == {"s": 0, "i": 0} and s["access"]["said"] == "rises: step 1, score 1. Point 1 of 8."
    s = _press(page, LINES, "ArrowRight")
    assert s["access"]["said"] == "rises: step 2, score 4. Point 2 of 8."
    s = _press(page, LINES, "ArrowDown")  # the other line, at the same step
    assert s["focused"] == {"s": 1, "i": 1} and s["access"]["said"] == "falls: step 2, score 8. Point 2 of 8."
    assert _press(page, LINES, "End")["access"]["said"] == "falls: step 8, score 2. Point 8 of 8."
    assert not page.evaluate(PREVENTED, [[REGISTRIES[LINES], LINES], "PageDown"])
    page.keyboard.press("t")
    table = _table(page, LINES)
    assert table.locator("tbody tr").count() == 2 * len(STEPS)
    assert table.locator("thead th").all_inner_texts() == ["series", "step", "score"]


def _the_heatmap(page) -> None:
    """Named by its panels, described by their extremes; the arrows and Page Down move from cell to cell."""
    s = _state(page, HEAT)["access"]
    assert s["name"] == "Near and Far"
    about = s["description"]
    assert about.startswith("2 matrices over the same 4 rows and columns (ant, bee, cat and dog).")
    assert "Near: 4 by 4; lowest 0.125 at row ant, column dog; highest 1 at row ant, column ant." in about, about
    assert "Far: 4 by 4; lowest -3 at row ant, column dog; highest 3 at row dog, column ant." in about, about
    _tab_to(page, HEAT)
    s = _press(page, HEAT, "ArrowDown")
    assert s["access"]["said"] == "Near: row ant, column ant: 1. Panel 1 of 2."
    for _ in range(2):
        page.keyboard.press("ArrowRight")
    s = _press(page, HEAT, "ArrowDown")
    assert s["focused"] == {"panel": 0, "row": 1, "col": 2}
    assert s["access"]["said"] == "Near: row bee, column cat: 0.5. Panel 1 of 2."
    s = _press(page, HEAT, "PageDown")
    assert s["access"]["said"] == "Far: row bee, column cat: -1. Panel 2 of 2."
    assert not page.evaluate(PREVENTED, [[REGISTRIES[HEAT], HEAT], "x"])
    page.keyboard.press("t")
    table = _table(page, HEAT)
    assert table.locator("tbody tr").count() == 2 * len(NAMES) ** 2
    assert table.locator("thead th").all_inner_texts() == ["panel", "row", "column", "value"]


def _the_3d_view(page) -> None:
    """Named by its points and marks; the arrows turn it, + zooms, Home resets, each view announced."""
    s = _state(page, VIEW)
    assert s["access"]["name"] == "3-D view of 30 points, marking inspected and neighbours"
    about = s["access"]["description"]
    assert about.startswith(f"{POINTS} points in three dimensions.") and "Marked as inspected: point 103." in about
    assert "Marked as neighbours: 2 points, 102 and 104." in about, about
    _tab_to(page, VIEW)
    yaw = s["angles"]["yaw"]
    s = _press(page, VIEW, "ArrowRight")
    assert s["angles"]["yaw"] == pytest.approx(yaw + math.pi / 12)
    assert s["access"]["said"] == "Turned 45 degrees, tipped 20 degrees, zoom 1."
    s = _press(page, VIEW, "+")
    assert s["angles"]["zoom"] == pytest.approx(1.25) and s["access"]["said"].endswith("zoom 1.25.")
    s = _press(page, VIEW, "Home")
    assert s["angles"]["yaw"] == pytest.approx(yaw) and s["angles"]["zoom"] == 1
    assert not page.evaluate(PREVENTED, [[REGISTRIES[VIEW], VIEW], "PageDown"])
    page.keyboard.press("t")
    table = _table(page, VIEW)
    assert table.locator("tbody tr").count() == POINTS
    assert table.locator("tbody tr").nth(3).inner_text().split("\t")[-1] == "inspected"
    shots = ARTIFACTS / "screenshots"
    shots.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(shots / "charts-fixture-keyboard.png"), full_page=True)


def test_each_canvas_component_is_reached_by_tab_named_described_walked_by_the_keys_and_tabled(charts_page):
    """Tab reaches each component (an application region named for its data and described from it); its keys
    move through it and its live region names what they reach, with nothing prevented that it does not use; T
    opens its table, a row per bar, point or cell. One test, so that one server and one page serve all four."""
    for check in (_the_bar_chart, _the_line_chart, _the_heatmap, _the_3d_view):
        check(charts_page)


if __name__ == "__main__":  # what `streamlit run` executes
    import streamlit as st

    from app.ui import bars, heatmap, lines, view3d

    st.set_page_config(page_title="Chart fixture", layout="wide")
    st.title("Chart fixture")
    bars.draw(None, BAR_LABELS, BAR_VALUES, key=BARS, title="Fixture bars", y_title="weight",
              hover={"rank": [3, 1, 5, 2, 4]}, height=260)
    lines.draw(None, [lines.series(STEPS, [x * x for x in STEPS], name="rises"),
                      lines.series(STEPS, [10 - x for x in STEPS], name="falls", markers=True)],
               key=LINES, x_title="step", y_title="score", height=260)
    heatmap.draw(None, [heatmap.panel(near(), title="Near"), heatmap.panel(far(), title="Far", scale="RdBu", zmid=0)],
                 NAMES, key=HEAT, height=300)
    P, ids, rgb = cloud()
    view3d.draw(None, P, rgb, key=VIEW, ids=ids, height=300,
                marks=[view3d.mark([103], P[3:4], name="inspected", color="#e8590c", size=6),
                       view3d.mark([102, 104], P[[2, 4]], name="neighbours", color="#1c3faa", size=5, outline=True)])
