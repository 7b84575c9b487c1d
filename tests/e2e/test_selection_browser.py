"""Select, inspect, compare in Chromium: drag a box on the Words and Manifolds maps, see and download the
table of what was selected, clear it, click a point and see both neighbour lists.

The server and Chromium are started as in test_browser.py; screenshots of each step are saved under
tests/.artifacts/screenshots/.
"""

from __future__ import annotations

import csv
import io

import pytest

from tests.conftest import ARTIFACTS
from tests.e2e.test_browser import assert_no_exception, browser, server, wait_idle  # noqa: F401 (fixtures)

SHOTS = ARTIFACTS / "screenshots"

#: The pixel position of a trace's point in the page, from Plotly's own axes (WebGL points are not elements).
POINT_XY = """([key, trace, i]) => {
  const gd = document.querySelector(`.st-key-${key} .js-plotly-plot`);
  const xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis, t = gd._fullData[trace];
  const box = gd.querySelector('.nsewdrag').getBoundingClientRect();
  return [box.left + xa.l2p(t.x[i]), box.top + ya.l2p(t.y[i])];
}"""


def _plot_area(page, key: str):
    """The drag layer of the map drawn under ``key`` (Streamlit's element class, dots written as dashes)."""
    area = page.locator(f".st-key-{key} .nsewdrag").first
    area.wait_for(timeout=60_000)
    area.scroll_into_view_if_needed()
    return area.bounding_box()


def _drag_box(page, key: str, x0: float, y0: float, x1: float, y1: float) -> None:
    """Drag a box over the map's plot area, corners given as shares of its width and height."""
    b = _plot_area(page, key)
    page.mouse.move(b["x"] + x0 * b["width"], b["y"] + y0 * b["height"])
    page.mouse.down()
    page.mouse.move(b["x"] + x1 * b["width"], b["y"] + y1 * b["height"], steps=12)
    page.mouse.up()
    page.wait_for_timeout(1000)
    wait_idle(page)


def _selected_count(page, noun: str) -> int:
    text = page.get_by_text("Selected: ", exact=False).first.inner_text()
    return int(text.split(":")[1].split(noun)[0].replace(",", "").strip())


def _download(page) -> list[dict]:
    with page.expect_download() as found:
        page.get_by_role("button", name="Selection (.csv)").click()
    path = found.value.path()
    with open(path, newline="") as f:
        return list(csv.DictReader(io.StringIO(f.read())))


def _click_point(page, key: str, trace: int, i: int) -> None:
    """Choose 'click a point' above the map, then click the point ``i`` of a trace (hovered first: Plotly
    clicks the point it shows a hover label for)."""
    page.get_by_text("click a point", exact=True).first.click()
    page.wait_for_timeout(1000)
    wait_idle(page)
    _plot_area(page, key)  # scrolled into view
    x, y = page.evaluate(POINT_XY, [key, trace, i])
    page.mouse.move(x, y)
    page.wait_for_timeout(300)
    page.mouse.click(x, y)
    page.wait_for_timeout(1000)
    wait_idle(page)


def _shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


@pytest.mark.parametrize("where", ["words", "manifolds"])
def test_select_download_clear_and_inspect_on_the_map(server, browser, where):  # noqa: F811 (fixtures)
    url, _ = server
    page = browser.new_page(viewport={"width": 1440, "height": 1000}, accept_downloads=True)
    try:
        if where == "words":
            key, noun, first_column = "words-chart-map", "word", "word"
            page.goto(f"{url}/words")
            wait_idle(page)
            page.get_by_role("tab", name="Word map").click()
            page.wait_for_timeout(300)
            wait_idle(page, timeout_ms=300_000)  # the t-SNE map is computed and drawn live
        else:
            key, noun, first_column = "man-chart-embedding", "point", "id"
            page.goto(f"{url}/manifolds")
            wait_idle(page)
        assert_no_exception(page, where)

        _drag_box(page, key, 0.25, 0.25, 0.75, 0.75)
        _shot(page, f"select-{where}")
        assert_no_exception(page, where)
        n = _selected_count(page, noun)
        assert n > 0
        _shot(page, f"select-{where}")
        rows = _download(page)
        assert len(rows) == n and list(rows[0])[:1] == [first_column] and {"x", "y"} <= set(rows[0])

        page.get_by_role("button", name="Clear the selection").click()
        page.wait_for_timeout(300)
        wait_idle(page)
        assert page.get_by_text("Selected: ", exact=False).count() == 0

        _click_point(page, key, 0, 5)
        _shot(page, f"inspect-{where}")
        assert_no_exception(page, where)
        assert page.get_by_text("nearest neighbours", exact=False).count() >= 1
        assert page.get_by_text("In the original space", exact=True).count() == 1
        assert page.get_by_text("On the map", exact=True).count() >= 1
        names = page.evaluate("""(key) => document.querySelector(`.st-key-${key} .js-plotly-plot`)
                                 ._fullData.map(t => t.name)""", key)
        assert [n for n in names if n.startswith(f"{noun} ")], names  # the clicked point is marked on the map
    finally:
        page.close()
