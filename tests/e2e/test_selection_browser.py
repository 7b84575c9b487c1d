"""Select, inspect, compare in Chromium: drag a box on the Words, Manifolds and Playlists maps, see and download the
table of what was selected, clear it, click a point and see both neighbour lists; a box on the LLE map is
ringed in the sweep's panels when the sweep is open.

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

def _map(key: str) -> str:
    """The map's entry in the page's registry of lab maps (by its Streamlit key)."""
    return f"window.__labMaps[{key!r}]"


def _plot_area(page, key: str):
    """The canvas of the lab map drawn under ``key`` (Streamlit's element class: dots written as dashes)."""
    area = page.locator(f".st-key-{key.replace('.', '-')} canvas.lab-overlay").first
    area.wait_for(timeout=60_000)
    area.scroll_into_view_if_needed()
    # the map the tools draw (a live t-SNE frame before it only pans), its glide over
    page.wait_for_function(f"{_map(key)} && {_map(key)}.frame.mode !== 'pan' && !{_map(key)}.anim", timeout=300_000)
    return area.bounding_box()


def _drag_box(page, key: str, x0: float, y0: float, x1: float, y1: float) -> None:
    """Drag a box over the map, corners given as shares of its width and height."""
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


def _click_point(page, key: str, i: int) -> None:
    """Choose 'click a point' above the map, then click its point ``i`` where the map drew it."""
    page.get_by_text("click a point", exact=True).first.click()
    page.wait_for_timeout(1000)
    wait_idle(page)
    _plot_area(page, key)  # scrolled into view, the glide over
    x, y = page.evaluate(f"{_map(key)}.state().screen({i})")
    page.mouse.move(x, y)
    page.wait_for_timeout(300)
    page.mouse.click(x, y)
    page.wait_for_timeout(1000)
    wait_idle(page)


def _shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


@pytest.mark.parametrize("where", ["words", "manifolds", "playlists"])
def test_select_download_clear_and_inspect_on_the_map(server, browser, where):  # noqa: F811 (fixtures)
    url, _ = server
    page = browser.new_page(viewport={"width": 1440, "height": 1000}, accept_downloads=True)
    try:
        if where == "words":
            key, noun, first_column = "words.map", "word", "word"
            page.goto(f"{url}/words")  # the page opens on its word map
            page.wait_for_timeout(300)
            wait_idle(page, timeout_ms=300_000)  # the t-SNE map is computed and drawn live
        elif where == "playlists":  # the song map and its tools are a fragment: each step reruns that tab alone
            key, noun, first_column = "pl.map.songs", "song", "song"
            page.goto(f"{url}/playlists")
            wait_idle(page, timeout_ms=300_000)  # the first model trains
        else:
            key, noun, first_column = "man.map.lle", "point", "id"
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

        _click_point(page, key, 5)
        _shot(page, f"inspect-{where}")
        assert_no_exception(page, where)
        assert page.get_by_text("nearest neighbours", exact=False).count() >= 1
        assert page.get_by_text("In the original space", exact=True).count() == 1
        assert page.get_by_text("On the map", exact=True).count() >= 1
        page.wait_for_function(f"{_map(key)}.frame.rings.some(r => r.name.startsWith({noun + ' '!r}))",
                               timeout=30_000)  # the clicked point is marked on the map
    finally:
        page.close()


def _selected_sizes(page) -> dict[str, int]:
    return page.evaluate("() => Object.fromEntries(Object.entries(window.__labMaps)"
                         ".map(([k, m]) => [k, m.frame.selected.size]))")


def test_a_box_on_the_lle_map_is_ringed_in_the_sweep_opened_by_a_link(server, browser):  # noqa: F811 (fixtures)
    """The LLE map sits in a fragment that a box reruns with the 3-D view and the list; with the sweep open
    (here from a link), the box runs the whole page, so every sweep panel rings it too, and Clear clears them."""
    url, _ = server
    page = browser.new_page(viewport={"width": 1440, "height": 1000})
    try:
        page.goto(f"{url}/manifolds?man.tab=Neighbourhood+sweep")
        wait_idle(page)
        page.wait_for_function("Object.keys(window.__labMaps).filter(k => k.startsWith('man.map.sweep.')).length == 6",
                               timeout=120_000)
        _drag_box(page, "man.map.lle", 0.25, 0.25, 0.75, 0.75)
        sizes = _selected_sizes(page)
        n = _selected_count(page, "point")
        assert n > 0 and sizes["man.map.lle"] == n
        assert len(sizes) == 7 and all(v == n for v in sizes.values()), sizes  # the LLE map and 6 sweep panels
        page.get_by_role("button", name="Clear the selection").click()
        page.wait_for_timeout(300)
        wait_idle(page)
        assert set(_selected_sizes(page).values()) == {0}
        assert_no_exception(page, "manifolds")
    finally:
        page.close()
