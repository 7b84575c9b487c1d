"""The lab's line and bar charts in Chromium, on the pages that open with them: each point and bar is drawn
where its value puts it on the chart's axes, and the mouse over a point or bar names it.

The charts register themselves in ``window.__labCharts`` by key; ``state()`` gives the drawn pixels.
"""

from __future__ import annotations

import math

import pytest

from tests.e2e.test_browser import assert_no_exception, browser, server, wait_idle  # noqa: F401 (fixtures)

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
