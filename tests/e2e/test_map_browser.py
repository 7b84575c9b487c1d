"""The lab's map in Chromium, driven by the real mouse: what a person draws is what comes back.

A one-map fixture app (tests/e2e/map_app.py) draws known points; the tests drag a box and a lasso and
click a point, and check the indices the app received (written into the page as JSON, and drawn as the
map's selection) against the points whose coordinates lie inside, computed here from the same data.
They hover a point for its tooltip, zoom with the wheel and reset, read the label boxes the map drew
(none overlapping, at least 12 px), check that both axes share one scale, and that a redraw of the same
items glides to the Procrustes-aligned coordinates (or to the raw ones with "Align redrawn maps" off).
The last test does the same on the Manifolds page after a change of B.

The server and Chromium are started as in test_browser.py; screenshots go to tests/.artifacts/screenshots/.
"""

from __future__ import annotations

import io
import json
import re

import numpy as np
import pytest

from app.pages import PAGES
from embedcore.compare import align_to
from tests.conftest import ARTIFACTS, ROOT
from tests.e2e import map_app
from tests.e2e.test_browser import assert_no_exception, browser, server, streamlit_server, wait_idle  # noqa: F401 (fixtures)

SHOTS = ARTIFACTS / "screenshots"
KEY = map_app.KEY
#: A margin in pixels: no point lies this close to the edge of a drawn box or lasso, so the float32
#: coordinates and the mouse's whole-pixel positions cannot decide whether it is inside.
MARGIN = 0.25

#: Records the font of every text drawn on a map's canvas, by text (the last font it was drawn in).
FONT_PROBE = """(() => {
  const fill = CanvasRenderingContext2D.prototype.fillText;
  window.__labFonts = new Map();
  CanvasRenderingContext2D.prototype.fillText = function (text, ...rest) {
    if (this.canvas && this.canvas.classList && this.canvas.classList.contains('lab-canvas'))
      window.__labFonts.set(String(text), this.font);
    return fill.call(this, text, ...rest);
  };
})();"""

#: The map's state (see map.js), with every point's position on the page (viewport pixels).
STATE = """(key) => {
  const m = window.__labMaps[key], s = m.state();
  const screen = Array.from({length: s.n}, (_, i) => s.screen(i));
  delete s.screen;
  return {...s, pagexy: screen, selected: [...m.frame.selected].sort((a, b) => a - b),
          fonts: s.labels.map((l) => (window.__labFonts && window.__labFonts.get(l.text)) || null)};
}"""


@pytest.fixture(scope="module")
def fixture_app():
    """The fixture app served by `streamlit run`, its URL."""
    with streamlit_server(ROOT / "tests" / "e2e" / "map_app.py", "map_app.log") as (url, _):
        yield url


# ------------------------------------------------------------------ helpers


def wait_drawn(page, key: str, frames: int = 1, timeout_ms: int = 120_000) -> None:
    """Wait until the map ``key`` has drawn at least ``frames`` frames and is not gliding."""
    page.wait_for_function(
        """([key, frames]) => { const m = window.__labMaps && window.__labMaps[key];
             if (!m) return false; const s = m.state(); return s.frames >= frames && !s.gliding; }""",
        arg=[key, frames], timeout=timeout_ms)


def live_run_ended(page, pause_ms: int = 400) -> None:
    """Wait until the page's live t-SNE has ended (its Stop button is gone), the app idle after each look."""
    for _ in range(900):
        wait_idle(page, timeout_ms=300_000)
        if page.get_by_role("button", name="Stop").count() == 0:
            return
        page.wait_for_timeout(pause_ms)
    raise AssertionError("the live t-SNE did not end")


def state(page, key: str = KEY) -> dict:
    s = page.evaluate(STATE, key)
    s["pagexy"] = np.array(s["pagexy"], dtype=np.float64).reshape(-1, 2)
    s["xy"] = np.column_stack([s["x"], s["y"]]).astype(np.float64)
    return s


def open_map(browser, url: str, n: int, mode: str):
    page = browser.new_page(viewport={"width": 1440, "height": 1000})
    page.add_init_script(FONT_PROBE)
    page.goto(f"{url}/?n={n}&mode={mode}")
    wait_idle(page)
    wait_drawn(page, KEY)
    page.locator("canvas.lab-canvas").first.scroll_into_view_if_needed()
    page.wait_for_timeout(200)
    return page


def event(page) -> dict | None:
    return json.loads(page.locator(".st-key-fixture_event").inner_text().strip())


def wait_event(page, before) -> dict:
    """The selection event shown by the app once it differs from ``before``."""
    page.wait_for_function(
        """(before) => { const e = document.querySelector('.st-key-fixture_event');
             return e && e.innerText.trim() !== before; }""", arg=json.dumps(before), timeout=60_000)
    wait_idle(page)
    wait_drawn(page, KEY)
    return event(page)


def screen_of(s: dict, xy: np.ndarray) -> np.ndarray:
    """Page pixels of data points ``xy``, by the equal-scale map fitted to the points the page drew."""
    a, b, scale = fit_screen(s)
    return np.column_stack([a + scale * xy[:, 0], b - scale * xy[:, 1]])


def fit_screen(s: dict):
    """(a, b, scale) with page x = a + scale x, page y = b - scale y, fitted over every drawn point."""
    xy, pxy = s["xy"], s["pagexy"]
    ax = np.polyfit(xy[:, 0], pxy[:, 0], 1)
    ay = np.polyfit(xy[:, 1], pxy[:, 1], 1)
    return ax[1], ay[1], ax[0]


def in_polygon(poly: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Even-odd point-in-polygon of many points (rows of ``pts``) in a polygon (rows of ``poly``)."""
    x, y = pts[:, 0][:, None], pts[:, 1][:, None]
    x0, y0 = poly[:, 0][None, :], poly[:, 1][None, :]
    x1, y1 = np.roll(poly[:, 0], -1)[None, :], np.roll(poly[:, 1], -1)[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        cross = ((y0 > y) != (y1 > y)) & (x < (x1 - x0) * (y - y0) / (y1 - y0) + x0)
    return cross.sum(axis=1) % 2 == 1


def edge_distance(poly: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Each point's distance to the nearest edge of the closed polygon."""
    a, b = poly, np.roll(poly, -1, axis=0)
    ab = b - a
    t = np.clip(((pts[:, None, :] - a[None]) * ab[None]).sum(-1) / (ab**2).sum(-1)[None], 0, 1)
    nearest = a[None] + t[..., None] * ab[None]
    return np.sqrt(((pts[:, None, :] - nearest) ** 2).sum(-1)).min(axis=1)


def clear_of_points(shape: np.ndarray, pxy: np.ndarray, canvas, want: int) -> np.ndarray:
    """``shape`` (a polygon in pixels, around 0) moved to a whole-pixel place in the canvas, the first of a
    fixed sequence where no point lies within MARGIN of its edges and at least ``want`` points lie inside."""
    left, top, w, h = canvas
    rng = np.random.default_rng(0)
    for _ in range(2000):
        poly = np.round(shape + [left + w * rng.uniform(0.3, 0.7), top + h * rng.uniform(0.3, 0.7)])
        if edge_distance(poly, pxy).min() > MARGIN and in_polygon(poly, pxy).sum() >= want:
            return poly
    raise AssertionError("no place for the shape clear of every point")


def isolated_point(pxy: np.ndarray, canvas, room: float = 24.0) -> int:
    """A point at least ``room`` pixels from every other point and from the canvas's edges."""
    left, top, w, h = canvas
    d = np.sqrt(((pxy[:, None] - pxy[None]) ** 2).sum(-1))
    np.fill_diagonal(d, np.inf)
    inside = (pxy[:, 0] > left + room) & (pxy[:, 0] < left + w - room) & (pxy[:, 1] > top + room) & (
        pxy[:, 1] < top + h - room)
    ok = np.flatnonzero((d.min(axis=1) > room) & inside)
    assert ok.size, "no isolated point to click"
    return int(ok[0])


def check_labels(page, s: dict, names: list[str]) -> None:
    """The labels the map drew: each its own point's, next to it, none overlapping another, all on the
    canvas, drawn at 12 px or more, and the text (in the font it was drawn in) inside its box."""
    labels = s["labels"]
    left, top, w, h = s["canvas"]
    boxes = np.array([lab["box"] for lab in labels]).reshape(-1, 4)
    for lab in labels:
        assert lab["text"] == names[lab["i"]]
    x0, y0, x1, y1 = (boxes[:, k] for k in range(4))
    over = (x0[:, None] < x1[None]) & (x0[None] < x1[:, None]) & (y0[:, None] < y1[None]) & (y0[None] < y1[:, None])
    np.fill_diagonal(over, False)
    pairs = np.argwhere(np.triu(over))
    assert not len(pairs), f"{len(pairs)} overlapping labels, e.g. {[labels[k]['text'] for k in pairs[0]]}"
    assert (x0 >= 0).all() and (y0 >= 0).all() and (x1 <= w).all() and (y1 <= h).all()
    assert (y1 - y0 >= 12).all()
    # each label next to its own point (past its mark by the gap at most), or joined to it by a leader line
    own = s["pagexy"][[lab["i"] for lab in labels]] - [left, top]
    dx = np.maximum.reduce([x0 - own[:, 0], np.zeros(len(own)), own[:, 0] - x1])
    dy = np.maximum.reduce([y0 - own[:, 1], np.zeros(len(own)), own[:, 1] - y1])
    near = np.array([lab["near"] for lab in labels]) + 0.001
    led = np.array([bool(lab["leader"]) for lab in labels], dtype=bool)
    assert (((dx <= near) & (dy <= near)) | led).all()
    # drawn at 12 px or more, and no wider than the box kept free for it (its text starts 1 px in)
    for lab, font in zip(labels, s["fonts"]):
        assert font, f"label {lab['text']!r} was not seen drawn"
        size = float(font.split("px")[0].split()[-1])
        assert size >= 12, f"label {lab['text']!r} drawn at {size} px"
    widths = page.evaluate("""(pairs) => { const c = document.createElement('canvas').getContext('2d');
        return pairs.map(([text, font]) => { c.font = font; return c.measureText(text).width; }); }""",
                           [[lab["text"], font] for lab, font in zip(labels, s["fonts"])])
    too_wide = [lab["text"] for lab, tw in zip(labels, widths) if 1 + tw > lab["box"][2] - lab["box"][0] + 1e-6]
    assert not too_wide, f"{len(too_wide)} labels drawn wider than their box, e.g. {too_wide[:3]}"


def shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


# ------------------------------------------------------------------ drawing, scales, labels


@pytest.mark.parametrize("n", [300, 2000])
def test_the_map_draws_the_points_at_one_scale_with_labels_that_do_not_overlap(fixture_app, browser, n):
    page = open_map(browser, fixture_app, n, "box")
    try:
        assert_no_exception(page, f"map fixture n={n}")
        s = state(page)
        assert s["n"] == n
        # the points drawn are the app's points (float32 on the way)
        np.testing.assert_allclose(s["xy"], map_app.points(n, 0), rtol=1e-6, atol=1e-6)
        # one scale on both axes: read off where the points landed on the page, not only what the map says
        assert s["scale"][0] == s["scale"][1]
        sx = np.polyfit(s["xy"][:, 0], s["pagexy"][:, 0], 1)[0]
        sy = -np.polyfit(s["xy"][:, 1], s["pagexy"][:, 1], 1)[0]
        assert sx == pytest.approx(sy, rel=1e-9) and sx == pytest.approx(s["scale"][0], rel=1e-9)
        assert np.abs(screen_of(s, s["xy"]) - s["pagexy"]).max() < 1e-6
        # every point is on the canvas
        left, top, w, h = s["canvas"]
        assert ((s["pagexy"][:, 0] >= left) & (s["pagexy"][:, 0] <= left + w)).all()
        assert ((s["pagexy"][:, 1] >= top) & (s["pagexy"][:, 1] <= top + h)).all()

        assert len(s["labels"]) >= 40, f"only {len(s['labels'])} labels drawn"
        check_labels(page, s, map_app.labels(n))
        shot(page, f"map-fixture-{n}")
    finally:
        page.close()


# ------------------------------------------------------------------ selection with the mouse


def test_a_box_drawn_with_the_mouse_selects_exactly_the_points_inside(fixture_app, browser):
    n = 2000
    page = open_map(browser, fixture_app, n, "box")
    try:
        s = state(page)
        pxy = screen_of(s, map_app.points(n, 0))  # the app's data, placed by the map's one scale
        box = clear_of_points(np.array([[-150, -90], [150, -90], [150, 90], [-150, 90]], float), pxy, s["canvas"], 50)
        (ax, ay), (bx, by) = box[0], box[2]
        expected = np.flatnonzero((pxy[:, 0] >= ax) & (pxy[:, 0] <= bx) & (pxy[:, 1] >= ay) & (pxy[:, 1] <= by))
        page.mouse.move(bx, by)  # drawn from the bottom-right corner: either order selects the same
        page.mouse.down()
        page.mouse.move((ax + bx) / 2, (ay + by) / 2, steps=5)
        page.mouse.move(ax, ay, steps=5)
        page.mouse.up()
        got = wait_event(page, None)
        assert got["kind"] == "box"
        assert got["indices"] == expected.tolist()
        after = state(page)
        assert after["selected"] == expected.tolist(), "the map does not ring the selection"
        check_labels(page, after, map_app.labels(n))  # the selected points' labels still clear
        # the selection is labelled first (placement order), as room allows; after the point under the mouse,
        # which is always labelled (the drag started on the box's corner, a point may lie within reach of it)
        hovered = page.evaluate("(k) => window.__labMaps[k].hover", KEY)
        chosen = [lab["i"] in set(expected.tolist()) for lab in after["labels"] if lab["i"] != hovered]
        assert any(chosen) and chosen == sorted(chosen, reverse=True)
        shot(page, "map-fixture-box")
    finally:
        page.close()


def test_a_concave_lasso_drawn_with_the_mouse_selects_exactly_the_points_inside(fixture_app, browser):
    n = 2000
    page = open_map(browser, fixture_app, n, "lasso")
    try:
        s = state(page)
        pxy = screen_of(s, map_app.points(n, 0))
        # a five-pointed star: concave, with points of the map in its arms and in the notches between them
        angles = np.pi / 2 + np.arange(10) * np.pi / 5
        radii = np.where(np.arange(10) % 2, 55.0, 170.0)
        shape = np.column_stack([radii * np.cos(angles), -radii * np.sin(angles)])
        poly = clear_of_points(shape, pxy, s["canvas"], 40)
        inside = in_polygon(poly, pxy)
        hull = in_polygon(np.round(np.column_stack([170 * np.cos(angles), -170 * np.sin(angles)]) + poly.mean(0)), pxy)
        assert (hull & ~inside).sum() > 0, "no point in the star's notches: the lasso would not test concavity"
        page.mouse.move(*poly[0])
        page.mouse.down()
        for v in list(poly[1:]):  # one move per corner: the path is exactly the polygon
            page.mouse.move(*v)
            page.wait_for_timeout(30)
        page.mouse.up()
        got = wait_event(page, None)
        assert got["kind"] == "lasso"
        assert got["indices"] == np.flatnonzero(inside).tolist()
        after = state(page)
        assert after["selected"] == np.flatnonzero(inside).tolist()
        check_labels(page, after, map_app.labels(n))
        shot(page, "map-fixture-lasso")
    finally:
        page.close()


def test_a_click_selects_the_point_under_the_mouse_and_a_hover_shows_its_label(fixture_app, browser):
    n = 300
    page = open_map(browser, fixture_app, n, "click")
    try:
        s = state(page)
        pxy = screen_of(s, map_app.points(n, 0))
        i = isolated_point(pxy, s["canvas"])
        x, y = np.round(pxy[i])
        page.mouse.move(x - 40, y - 40)
        page.mouse.move(x, y, steps=4)
        tip = page.locator(".lab-tip")
        tip.wait_for(state="visible", timeout=10_000)
        text = tip.inner_text()
        assert map_app.labels(n)[i] in text and f"row: {i}" in text, text
        depth = float(np.float32(map_app.depths(n)[i]))  # the colour's numbers, sent once, read by the tooltip too
        assert f"depth: {float(f'{depth:.3g}'):g}" in text, text
        page.mouse.click(x, y)
        got = wait_event(page, None)
        assert got == {"kind": "click", "indices": [i]}
        after = state(page)
        assert after["selected"] == [i]
        assert i in [lab["i"] for lab in after["labels"]], "the clicked point is not labelled"
        check_labels(page, after, map_app.labels(n))
        # the tooltip goes when the mouse leaves the point
        page.mouse.move(x + 30, y + 30)
        assert map_app.labels(n)[i] not in (tip.inner_text() if tip.is_visible() else "")
        # a click on empty canvas sends nothing
        assert np.sqrt(((pxy - [x + 16, y]) ** 2).sum(1)).min() > 8
        page.mouse.click(x + 16, y)
        page.wait_for_timeout(800)
        wait_idle(page)
        assert event(page) == {"kind": "click", "indices": [i]}
    finally:
        page.close()


def test_the_keyboard_alone_reaches_the_map_walks_its_points_inspects_selects_and_clears(fixture_app, browser):
    """Tab reaches the map (a named, described application region); an arrow goes to the nearest point in its
    direction and the live region names it; Enter inspects it (a click event); Space and two Shift + arrows
    select three points; Escape clears; + zooms; T opens the table of every point; with reduced motion a redraw
    jumps."""
    n = 300
    page = open_map(browser, fixture_app, n, "box")
    try:
        s = state(page)
        assert s["access"]["role"] == "application"
        assert s["access"]["name"] == f"{n:,} points, turn 0"
        about = s["access"]["description"]
        assert f"A map of {n} points" in about and "Colour by depth" in about and "Most points lie in the" in about
        page.keyboard.press("Tab")  # from the page: the checkbox, the slider and the map's buttons come first
        for _ in range(15):
            if page.evaluate("(k) => window.__labMaps[k].hasFocus === true", KEY):
                break
            page.keyboard.press("Tab")
        assert page.evaluate("(k) => window.__labMaps[k].hasFocus === true", KEY), "Tab never reached the map"
        names = map_app.labels(n)
        page.keyboard.press("ArrowRight")
        first = state(page)["focused"]
        assert first >= 0 and names[first] in state(page)["access"]["said"]
        page.keyboard.press("ArrowRight")
        s = state(page)
        second = s["focused"]
        assert s["x"][second] > s["x"][first], "ArrowRight went left"
        assert names[second] in s["access"]["said"] and f"of {n}" in s["access"]["said"]
        before = event(page)
        page.keyboard.press("Enter")
        got = wait_event(page, before)
        assert got == {"kind": "click", "indices": [second]}
        page.locator(f".st-key-{KEY.replace('.', '-')} .lab-stage").focus()
        page.keyboard.press("Escape")  # this app draws the clicked point as its selection: cleared first
        got = wait_event(page, got)
        assert got == {"kind": "clear", "indices": []}
        page.keyboard.press("Space")
        got = wait_event(page, got)
        assert got["kind"] == "keys" and got["indices"] == [second]
        for _ in range(2):
            page.keyboard.press("Shift+ArrowUp")
            page.wait_for_timeout(150)
        page.wait_for_function("(k) => window.__labMaps[k].frame.selected.size === 3", arg=KEY, timeout=60_000)
        wait_idle(page)
        s = state(page)
        assert len(s["selected"]) == 3 and second in s["selected"], s["selected"]
        assert "3 points selected" in s["access"]["said"]
        # the description follows (at most one new description every 3 s, while data streams in)
        page.wait_for_function("(k) => window.__labMaps[k].state().access.description.includes('The selection holds 3 points')",
                               arg=KEY, timeout=10_000)
        page.keyboard.press("Escape")
        page.wait_for_function("(k) => window.__labMaps[k].frame.selected.size === 0", arg=KEY, timeout=60_000)
        assert event(page)["kind"] == "clear"
        scale = state(page)["scale"][0]
        page.keyboard.press("+")
        assert state(page)["scale"][0] > 1.4 * scale
        page.keyboard.press("t")
        table = page.locator(f".st-key-{KEY.replace('.', '-')} .lab-table table")
        assert table.locator("tbody tr").count() == 50 and f"of {n} rows" in table.locator("caption").inner_text()
        assert page.locator(f".st-key-{KEY.replace('.', '-')} .lab-table-btn").get_attribute("aria-expanded") == "true"
        shot(page, "map-fixture-keyboard")
    finally:
        page.close()


def test_with_reduced_motion_a_redrawn_map_jumps_instead_of_gliding(fixture_app, browser):
    page = browser.new_page(viewport={"width": 1440, "height": 1000}, reduced_motion="reduce")
    try:
        page.goto(f"{fixture_app}/?n=300&mode=box")
        wait_idle(page)
        wait_drawn(page, KEY)
        page.evaluate("(k) => { const m = window.__labMaps[k]; m.__glides = 0; const u = m.update.bind(m); "
                      "m.update = (d, a) => { u(d, a); if (m.anim != null) m.__glides++; }; }", KEY)
        slider = page.get_by_role("slider", name="Turn")
        slider.focus()
        page.keyboard.press("ArrowRight")
        page.wait_for_function("(k) => window.__labMaps[k].frame.title.endsWith('turn 1')", arg=KEY, timeout=60_000)
        assert page.evaluate("(k) => window.__labMaps[k].__glides", KEY) == 0
        assert not state(page)["gliding"]
    finally:
        page.close()


def test_wheel_zoom_keeps_the_point_under_the_mouse_and_reset_restores_the_view(fixture_app, browser):
    n = 300
    page = open_map(browser, fixture_app, n, "pan")
    try:
        s0 = state(page)
        i = isolated_point(s0["pagexy"], s0["canvas"], room=12)
        x, y = np.round(s0["pagexy"][i])
        a0, b0, k0 = fit_screen(s0)
        under = np.array([[(x - a0) / k0, (b0 - y) / k0]])  # the map's point under the mouse
        page.mouse.move(x, y)
        page.mouse.wheel(0, -400)
        page.wait_for_function("([k, s]) => window.__labMaps[k].state().scale[0] > s * 1.2", arg=[KEY, s0["scale"][0]])
        s1 = state(page)
        assert s1["scale"][0] > 1.2 * s0["scale"][0]
        assert s1["scale"][0] == s1["scale"][1]
        np.testing.assert_allclose(screen_of(s1, under)[0], [x, y], atol=1e-3)
        page.mouse.wheel(0, 300)  # out again a little: a different scale, still not the fitted one
        page.wait_for_timeout(300)
        assert state(page)["scale"][0] != pytest.approx(s0["scale"][0], rel=1e-3)
        page.mouse.dblclick(*s0["pagexy"][i] + [60, 0])
        page.wait_for_function("([k, s]) => Math.abs(window.__labMaps[k].state().scale[0] / s - 1) < 1e-9",
                               arg=[KEY, s0["scale"][0]])
        np.testing.assert_allclose(state(page)["pagexy"], s0["pagexy"], atol=1e-6)
        # zoom and pan, then the Reset view button
        page.mouse.move(x, y)
        page.mouse.wheel(0, -600)
        page.mouse.down()
        page.mouse.move(x + 80, y + 40, steps=6)
        page.mouse.up()
        page.wait_for_timeout(300)
        moved = state(page)
        assert moved["scale"][0] > s0["scale"][0] and np.abs(moved["pagexy"] - s0["pagexy"]).max() > 50
        page.get_by_role("button", name="Reset view").click()
        page.wait_for_function("([k, s]) => Math.abs(window.__labMaps[k].state().scale[0] / s - 1) < 1e-9",
                               arg=[KEY, s0["scale"][0]])
        np.testing.assert_allclose(state(page)["pagexy"], s0["pagexy"], atol=1e-6)
        assert event(page) is None  # pan mode: nothing was selected
    finally:
        page.close()


# ------------------------------------------------------------------ redraws: alignment and the glide


def _turn(page, frames_before: int, title: str) -> dict:
    """Move the Turn slider one step right; the map's state once it has glided to the new frame."""
    page.locator('[data-testid="stSlider"] input[type="range"]').first.focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function("([k, t]) => window.__labMaps[k].frame.title.endsWith(t)", arg=[KEY, title], timeout=60_000)
    wait_idle(page)
    wait_drawn(page, KEY, frames_before + 1)
    return state(page)


def test_a_redraw_of_the_same_items_glides_to_the_aligned_coordinates_or_to_the_raw_ones(fixture_app, browser):
    n = 300
    page = open_map(browser, fixture_app, n, "pan")
    try:
        prev = state(page)
        np.testing.assert_allclose(prev["xy"], map_app.points(n, 0), rtol=1e-6, atol=1e-6)
        for turn in (1, 2):
            now = _turn(page, prev["frames"], f"turn {turn}")
            raw = map_app.points(n, turn)
            expected, _ = align_to(raw, prev["xy"])
            scale = np.abs(expected).max()
            np.testing.assert_allclose(now["xy"], expected, rtol=1e-4, atol=1e-4 * scale)
            # the test means something: the aligned map is neither the raw one nor the previous one
            assert np.abs(now["xy"] - raw).max() > 0.1 * scale
            assert np.abs(now["xy"] - prev["xy"]).max() > 0.01 * scale
            assert now["scale"][0] == now["scale"][1]
            prev = now
        # "Align redrawn maps" off: the map is drawn as the method returned it
        page.get_by_text("Align redrawn maps").click()
        wait_idle(page)
        wait_drawn(page, KEY, prev["frames"] + 1)
        np.testing.assert_allclose(state(page)["xy"], map_app.points(n, 2), rtol=1e-4,
                                   atol=1e-4 * np.abs(map_app.points(n, 2)).max())
        now = _turn(page, state(page)["frames"], "turn 3")
        raw = map_app.points(n, 3)
        np.testing.assert_allclose(now["xy"], raw, rtol=1e-4, atol=1e-4 * np.abs(raw).max())
        shot(page, "map-fixture-unaligned")
    finally:
        page.close()


# ------------------------------------------------------------------ the real app: Manifolds, a change of B


def test_manifolds_map_after_a_change_of_b_is_the_servers_lle_map_aligned_to_the_one_on_screen(server, browser):
    url, _ = server
    key = "man.map.lle"
    page = browser.new_page(viewport={"width": 1440, "height": 1000})
    try:
        page.goto(f"{url}/manifolds")
        wait_idle(page)
        assert_no_exception(page, "manifolds")
        try:
            wait_drawn(page, key, timeout_ms=30_000)
        except Exception:
            pytest.xfail(f"the Manifolds page does not draw its LLE map with app.ui.map yet (no map {key!r})")
        page.get_by_role("tab", name="Download").click()
        page.get_by_role("button", name="LLE coordinates (.csv)").wait_for(timeout=60_000)
        wait_idle(page)
        wait_drawn(page, key)
        slider = page.locator('[data-testid="stSlider"]').filter(
            has_text="B: neighbours").locator('input[type="range"]')
        import pandas as pd

        turned = []
        for _ in range(4):  # B one step up each time, until a step has turned or flipped LLE's map
            prev = state(page, key)
            b = int(slider.input_value()) + 1
            slider.focus()
            page.keyboard.press("ArrowRight")
            wait_drawn(page, key, prev["frames"] + 1)
            wait_idle(page)  # the download below is drawn after the map
            wait_drawn(page, key, prev["frames"] + 1)
            now = state(page, key)
            assert int(slider.input_value()) == b
            with page.expect_download() as found:
                page.get_by_role("button", name="LLE coordinates (.csv)").click()
            text = open(found.value.path(), encoding="utf-8").read()
            assert json.loads(text.splitlines()[0].lstrip("# "))["n_neighbors"] == b
            raw = pd.read_csv(io.StringIO(text), comment="#")[["y1", "y2"]].to_numpy(float)
            assert raw.shape == now["xy"].shape
            expected, _ = align_to(raw, prev["xy"])
            np.testing.assert_allclose(now["xy"], expected, rtol=1e-4, atol=1e-4 * np.abs(expected).max(),
                                       err_msg=f"B={b}: the drawn map is not the server's aligned to the one on screen")
            moved = np.abs(expected - raw).max() / np.ptp(raw, axis=0).max()
            print(f"\nB={b}: drawn vs aligned {np.abs(now['xy'] - expected).max() / np.ptp(expected, axis=0).max():.1e}, "
                  f"aligned vs LLE's own {moved:.2f} of the map's extent")
            if moved > 0.1:
                turned.append(b)
                break
        assert turned, "no step of B turned LLE's map: the alignment was not put to the test"
        shot(page, "manifolds-map-after-b")
    finally:
        page.close()


# ------------------------------------------------------------------ every map of the app

#: For each lab map on the page: its key, its points (up to 3,000 of them, evenly spaced) in data units
#: and where they are on the page.
MAPS_ON_PAGE = """() => Object.entries(window.__labMaps || {}).filter(([, m]) => m.canvas.isConnected && m.frame)
  .map(([key, m]) => { const s = m.state(), step = Math.max(1, Math.ceil(s.n / 3000)), rows = [];
    for (let i = 0; i < s.n; i += step) if (Number.isFinite(s.x[i]) && Number.isFinite(s.y[i])) rows.push([s.x[i], s.y[i], ...s.screen(i)]);
    return {key, scale: s.scale, rows, labels: s.labels, size: [s.canvas[2], s.canvas[3]]}; })"""


@pytest.mark.parametrize("spec", PAGES, ids=[p.url for p in PAGES])
def test_every_map_of_every_page_has_one_scale_on_both_axes_and_labels_apart(server, browser, spec):
    """Every lab map, on every page and tab: a unit across is as many pixels as a unit up, read off where
    its points are drawn; no two of its labels overlap, and all are on its canvas."""
    from tests.e2e.views import views

    url, _ = server
    page = browser.new_page(viewport={"width": 1440, "height": 1000})
    checked = set()
    try:
        for where in views(page, url, spec):
            for m in page.evaluate(MAPS_ON_PAGE):
                rows = np.array(m["rows"], dtype=np.float64).reshape(-1, 4)
                assert m["scale"][0] == m["scale"][1], f"{spec.url}, {where}: map {m['key']}"
                boxes = [(lab["text"], lab["box"]) for lab in m["labels"]]
                w, h = m["size"]
                clash = [(a[0], b[0]) for k, a in enumerate(boxes) for b in boxes[k + 1:]
                         if a[1][0] < b[1][2] and b[1][0] < a[1][2] and a[1][1] < b[1][3] and b[1][1] < a[1][3]]
                assert not clash, f"{spec.url}, {where}: map {m['key']}: {len(clash)} labels overlap, e.g. {clash[:3]}"
                off = [t for t, b in boxes if b[0] < 0 or b[1] < 0 or b[2] > w + 1e-6 or b[3] > h + 1e-6]
                assert not off, f"{spec.url}, {where}: map {m['key']}: labels off the canvas: {off[:3]}"
                # pixels per unit across and up, where the points spread that way (a 1-D code map does not)
                for axis, sign, name in ((0, 1, "across"), (1, -1, "up")):
                    if len(rows) >= 2 and np.ptp(rows[:, axis]) > 0:
                        got = sign * np.polyfit(rows[:, axis], rows[:, 2 + axis], 1)[0]
                        assert got == pytest.approx(m["scale"][0], rel=1e-6), (
                            f"{spec.url}, {where}: map {m['key']}: {got} px a unit {name}, the map's scale {m['scale'][0]}")
                        checked.add(m["key"])
    finally:
        page.close()
    print(f"\n{spec.url}: {len(checked)} maps checked: {sorted(checked)}")


@pytest.mark.parametrize("n", [300, 2000])
def test_words_map_labels_do_not_overlap(server, browser, n):
    """The Words page's t-SNE map of the n most frequent words, once the layout is finished: its labels
    are the words, none overlapping another, at 12 px or more."""
    url, _ = server
    key = "words.map"
    page = browser.new_page(viewport={"width": 1440, "height": 1000})
    page.add_init_script(FONT_PROBE)
    try:
        page.goto(f"{url}/words?words.map_n={n}")
        wait_idle(page)
        assert_no_exception(page, "words")
        page.wait_for_function("([k, n]) => window.__labMaps && window.__labMaps[k] && window.__labMaps[k].state().n === n",
                               arg=[key, n], timeout=300_000)
        live_run_ended(page)  # t-SNE draws its frames live; the check is on the finished map
        wait_idle(page)
        wait_drawn(page, key)
        page.locator(f".st-key-{key.replace('.', '-')} canvas.lab-canvas").first.scroll_into_view_if_needed()
        page.wait_for_timeout(300)
        s = state(page, key)
        names = page.evaluate("(k) => window.__labMaps[k].frame.labels", key)
        assert s["n"] == n and len(names) == n
        assert len(s["labels"]) >= 30, f"only {len(s['labels'])} words labelled"
        check_labels(page, s, names)
        shot(page, f"words-map-{n}")
    finally:
        page.close()


#: Every frame the Words map draws, as it arrives (polled at each animation frame): its title, the spread of
#: the frame's own coordinates (median distance from the median point) and the scale bar's text once it is still.
FRAME_RECORDER = """(() => { window.__frames = []; let last = -1;
  const tick = () => {
    const m = window.__labMaps && window.__labMaps['words.map'];
    if (m && m.frame && m.frames !== last) {
      last = m.frames;
      const f = m.frame, med = (a) => { const s = Array.from(a).sort((p, q) => p - q); return s[s.length >> 1]; };
      const cx = med(f.x), cy = med(f.y);
      const d = Array.from(f.x, (x, i) => Math.hypot(x - cx, f.y[i] - cy));
      window.__frames.push({title: f.title, spread: med(d), bar: null});
    }
    // the scale bar once the frame's glide has ended (mid-glide it is the view's, between two frames)
    if (m && m.anim == null && window.__frames.length) window.__frames[window.__frames.length - 1].bar = m.scaleText;
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
})();"""


def test_a_live_words_tsne_keeps_its_scale_from_frame_to_frame(server, browser):
    """openTSNE starts from its PCA shrunk to a standard deviation of 0.0001 and its early exaggeration shrank
    the 300 words to 1e-11 by iteration 280: drawn at that scale the map became a dot and back, its scale bar
    reading 5e-12. Every live frame is drawn at the start's scale: none is less than a third of the one before,
    and the scale bar stays within a factor of 10 of the start's."""
    url, _ = server
    # without glides each frame is drawn where it lands, so its scale bar can be read before the next one comes
    page = browser.new_page(viewport={"width": 1440, "height": 1000}, reduced_motion="reduce")
    page.add_init_script(FRAME_RECORDER)
    try:
        page.goto(f"{url}/words?words.seed=3")
        wait_idle(page)
        assert_no_exception(page, "words")
        live_run_ended(page)
        page.evaluate("() => { window.__frames.length = 0; }")  # the first run: the page may open after it began
        seed = page.get_by_label("Random seed", exact=True).and_(page.locator("input"))
        seed.fill("4")
        seed.press("Enter")
        page.get_by_role("button", name="Stop").wait_for(timeout=60_000)
        live_run_ended(page)
        page.wait_for_timeout(500)
        frames = [f for f in page.evaluate("() => window.__frames") if "iteration" in f["title"]]
        live = [f for f in frames if "PCA" not in f["title"]]
        # how many frames reach the page depends on the machine's load (the page draws the latest one at each
        # look): at least one from the early exaggeration (its first 250 iterations) and one after it
        its = [int(re.search(r"iteration (\d+)", f["title"]).group(1)) for f in live]
        assert len(live) >= 3 and min(its) <= 250 < max(its), frames
        start = next(f for f in frames if "PCA" in f["title"]) if any("PCA" in f["title"] for f in frames) else live[0]
        for before, after in zip([start] + live, live):
            assert after["spread"] >= before["spread"] / 3, (before, after)
        for f in live:
            assert start["spread"] / 10 <= f["spread"] <= start["spread"] * 10, (start, f)
            if f["bar"] is not None and start["bar"] is not None:  # a frame replaced mid-glide has no still bar
                assert float(start["bar"]) / 10 <= float(f["bar"]) <= float(start["bar"]) * 10, (start, f)
        assert sum(f["bar"] is not None for f in live) >= 2
    finally:
        page.close()
