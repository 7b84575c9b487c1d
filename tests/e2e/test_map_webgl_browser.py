"""The lab's map draws many points through WebGL 2, and they look as the CPU draws them.

The one-map fixture app (tests/e2e/map_app.py, ``color=category``: four clusters, each its colour and mark)
is opened at 100,000 and 1,000,000 points in headless Chromium, whose WebGL 2 is software (SwiftShader). The
map's state says which renderer drew the points; the screenshot's pixel at a point's place on the page is its
cluster's colour laid over white at the map's opacity, for points that no other point, label or title comes near;
a cluster hidden from the legend leaves white where its points were; a pan draws them at their new places; a
hovered point's tooltip names it; the GPU's picture is near the CPU's, pixel for pixel; a lost WebGL context hands
the points to the CPU until it comes back; and under GL_ABOVE points the CPU draws them.

The view is zoomed into the sparse halo round the clusters (set on the page: a map this dense has no point
alone on the screen at its fitted view). Screenshots go to tests/.artifacts/screenshots/.
"""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image
from scipy.spatial import cKDTree

from tests.conftest import ARTIFACTS, ROOT
from tests.e2e import map_app
from tests.e2e.test_browser import assert_no_exception, browser, streamlit_server, wait_idle  # noqa: F401 (fixtures)
from tests.e2e.test_map_browser import wait_drawn

SHOTS = ARTIFACTS / "screenshots"
KEY = map_app.KEY
GL_ABOVE = 20000
OPACITY = 0.85  # app.ui.map.draw's default, which the fixture keeps
RADIUS = 5.0  # its default size: a mark's radius in pixels
#: What the map drew, lean (no coordinate of every point: a million of them are tens of megabytes), with the page
#: positions of the points `idx`.
LEAN = """([key, idx]) => { const m = window.__labMaps[key], s = m.state();
  return { renderer: s.renderer, reused: s.reused, n: s.n, canvas: s.canvas, view: s.view, legend: s.legend,
           hidden: s.hidden, frames: s.frames, gliding: s.gliding, labels: s.labels.map((l) => l.box),
           axes: s.axes.map((a) => a.box), xy: idx.map((i) => s.screen(i)) }; }"""
#: The view moved on the page (as a pan or a zoom leaves it), the map drawn at once.
SET_VIEW = """([key, view]) => { const m = window.__labMaps[key]; m.view = view; m.auto = false; m.draw(); }"""
#: A view of the halo at the lower left, away from the four clusters, at `scale` pixels a unit.
HALO = (-9.0, -7.0)


@pytest.fixture(scope="module")
def fixture_app():
    with streamlit_server(ROOT / "tests" / "e2e" / "map_app.py", "map_webgl_app.log") as (url, _):
        yield url


def open_map(browser, url: str, n: int, mode: str = "pan"):
    page = browser.new_page(viewport={"width": 1440, "height": 1000})
    # the GPU path whatever draws it: on a software WebGL (this machine's) the map would keep its points on the CPU
    page.add_init_script("window.__labMapForceGL = true")
    page.goto(f"{url}/?n={n}&mode={mode}&color=category", timeout=120_000)
    wait_idle(page, timeout_ms=300_000)
    wait_drawn(page, KEY, timeout_ms=300_000)
    page.locator("canvas.lab-canvas").first.scroll_into_view_if_needed()
    page.wait_for_timeout(300)
    assert_no_exception(page, f"map fixture n={n}")
    return page


def lean(page, idx=()) -> dict:
    s = page.evaluate(LEAN, [KEY, [int(i) for i in idx]])
    s["xy"] = np.array(s["xy"], dtype=np.float64).reshape(-1, 2)
    return s


def zoom_to_halo(page, scale: float) -> dict:
    page.evaluate(SET_VIEW, [KEY, {"cx": HALO[0], "cy": HALO[1], "s": scale}])
    return lean(page)


def canvas_shot(page, s: dict, name: str) -> np.ndarray:
    """The map's canvas as on the screen, RGB, one pixel a CSS pixel (the page's device pixel ratio is 1)."""
    x, y, w, h = s["canvas"]
    png = page.screenshot(clip={"x": x, "y": y, "width": w, "height": h})
    SHOTS.mkdir(parents=True, exist_ok=True)
    (SHOTS / f"{name}.png").write_bytes(png)
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)


def alone(page, n: int, s: dict, per_cluster: int = 3, room: float = 14.0) -> tuple[np.ndarray, np.ndarray]:
    """Points on the screen that no other point comes within ``room`` pixels of and no label, axis title or scale
    bar covers: up to ``per_cluster`` of each cluster, and their page positions."""
    xy = map_app.points(n, 0)
    v, (left, top, w, h) = s["view"], s["canvas"]
    page_xy = np.column_stack([left + w / 2 + (xy[:, 0] - v["cx"]) * v["s"],
                               top + h / 2 - (xy[:, 1] - v["cy"]) * v["s"]])
    inside = np.flatnonzero((page_xy[:, 0] > left + 12) & (page_xy[:, 0] < left + w - 12)
                            & (page_xy[:, 1] > top + 12) & (page_xy[:, 1] < top + h - 30))
    counts = cKDTree(xy).query_ball_point(xy[inside], room / v["s"], return_length=True)
    lonely = inside[counts == 1]
    boxes = np.array(s["labels"] + s["axes"], dtype=np.float64).reshape(-1, 4) + [left, top, left, top]
    pad = RADIUS + 2

    def covered(p):
        return bool(((boxes[:, 0] < p[0] + pad) & (boxes[:, 2] > p[0] - pad)
                     & (boxes[:, 1] < p[1] + pad) & (boxes[:, 3] > p[1] - pad)).any())

    lonely = np.array([i for i in lonely if not covered(page_xy[i])], dtype=int)
    cluster = map_app.clusters(n)
    chosen = np.concatenate([lonely[cluster[lonely] == c][:per_cluster] for c in range(len(map_app.CLUSTERS))])
    assert len(chosen) >= 2 * len(map_app.CLUSTERS), f"too few points alone on the screen: {len(chosen)}"
    got = lean(page, chosen)["xy"]
    np.testing.assert_allclose(got, page_xy[chosen], atol=0.05)  # the page draws them where the data says
    return chosen, got


def expected(colour: str) -> np.ndarray:
    rgb = np.array([int(colour[k:k + 2], 16) for k in (1, 3, 5)], dtype=float)
    return OPACITY * rgb + (1 - OPACITY) * 255


def pixel(img: np.ndarray, s: dict, p) -> np.ndarray:
    left, top = s["canvas"][:2]
    return img[int(np.floor(p[1] - top)), int(np.floor(p[0] - left))]


def check_colours(img, s, idx, pxy, n, hidden=()):
    cluster = map_app.clusters(n)
    colours = {e["category"]: e["colour"] for e in s["legend"] if "category" in e}
    for i, p in zip(idx, pxy):
        c = int(cluster[i])
        want = np.array([255.0, 255.0, 255.0]) if c in hidden else expected(colours[c])
        got = pixel(img, s, p)
        assert np.abs(got - want).max() <= 10, f"point {i} ({map_app.CLUSTERS[c]}) at {p}: {got}, not {want}"


def test_a_hundred_thousand_points_are_drawn_by_webgl_in_their_clusters_colours(fixture_app, browser):
    n = 100_000
    page = open_map(browser, fixture_app, n)
    try:
        s = lean(page)
        assert s["renderer"] == "webgl2", s["renderer"]
        assert s["n"] == n
        s = zoom_to_halo(page, 200.0)
        assert s["renderer"] == "webgl2"
        idx, pxy = alone(page, n, s)
        img = canvas_shot(page, s, "map-webgl-100k")
        check_colours(img, s, idx, pxy, n)
        # the same view drawn by the CPU: the same picture, but for the rounding of the marks' edges
        page.evaluate("(key) => { window.__labMapForceCanvas = true; window.__labMaps[key].draw(); }", KEY)
        assert lean(page)["renderer"] == "canvas"
        cpu = canvas_shot(page, s, "map-webgl-100k-cpu")
        page.evaluate("(key) => { window.__labMapForceCanvas = false; window.__labMaps[key].draw(); }", KEY)
        assert lean(page)["renderer"] == "webgl2"
        check_colours(cpu, s, idx, pxy, n)
        diff = np.abs(img - cpu).max(axis=2)
        assert diff.max() <= 64 and (diff > 0).mean() < 0.05, f"{(diff > 0).mean():.2%} differ, by up to {diff.max()}"
        assert abs(img.mean() - cpu.mean()) < 0.5
        # a lost context: the CPU draws the points until the context comes back, then the GPU again
        page.evaluate("""(k) => { window.__lose = window.__labMaps[k].glPoints.gl.getExtension('WEBGL_lose_context');
                                  window.__lose.loseContext(); }""", KEY)
        page.wait_for_function("(k) => window.__labMaps[k].state().renderer === 'canvas'", arg=KEY, timeout=30_000)
        check_colours(canvas_shot(page, s, "map-webgl-100k-lost"), s, idx, pxy, n)
        page.evaluate("() => window.__lose.restoreContext()")
        page.wait_for_function("(k) => window.__labMaps[k].state().renderer === 'webgl2'", arg=KEY, timeout=30_000)
        check_colours(canvas_shot(page, s, "map-webgl-100k-restored"), s, idx, pxy, n)
    finally:
        page.close()


def test_a_hidden_cluster_leaves_white_a_pan_moves_the_points_and_a_hover_names_one(fixture_app, browser):
    n = 100_000
    page = open_map(browser, fixture_app, n)
    try:
        s = zoom_to_halo(page, 200.0)
        # hide the second cluster in the legend: its points go, the others stay
        hide = 1
        page.locator(f'.lab-legend-item[data-code="{hide}"]').first.click()
        page.wait_for_function("([k, c]) => window.__labMaps[k].state().hidden.includes(c)", arg=[KEY, hide])
        s = lean(page)
        assert s["renderer"] == "webgl2"
        idx, pxy = alone(page, n, s)
        check_colours(canvas_shot(page, s, "map-webgl-hidden"), s, idx, pxy, n, hidden=(hide,))
        # a pan with the mouse: the points are drawn anew at their new places once it stops
        x0, y0 = s["canvas"][0] + 300, s["canvas"][1] + 200
        page.mouse.move(x0, y0)
        page.mouse.down()
        page.mouse.move(x0 + 90, y0 + 50, steps=8)
        page.mouse.up()
        page.wait_for_function("(k) => !window.__labMaps[k].state().reused", arg=KEY, timeout=30_000)
        moved = lean(page)
        assert moved["renderer"] == "webgl2"
        assert moved["view"]["cx"] == pytest.approx(s["view"]["cx"] - 90 / s["view"]["s"], abs=1e-9)
        idx, pxy = alone(page, n, moved)
        check_colours(canvas_shot(page, moved, "map-webgl-panned"), moved, idx, pxy, n, hidden=(hide,))
        # the hover: a point of a shown cluster, its tooltip headed by its label (past 20,000 points the page sends
        # the labels of the most important only: a point without one is named by its number)
        sent = page.evaluate("([k, idx]) => idx.map((i) => window.__labMaps[k].frame.labels[i] ?? null)",
                             [KEY, [int(i) for i in idx]])
        shown = [(i, p, label) for i, p, label in zip(idx, pxy, sent) if map_app.clusters(n)[i] != hide]
        i, p, label = next((c for c in shown if c[2]), shown[0])
        page.mouse.move(p[0] - 30, p[1] - 30)
        page.mouse.move(p[0], p[1], steps=4)
        tip = page.locator(".lab-tip")
        tip.wait_for(state="visible", timeout=10_000)
        text = tip.inner_text()
        if label:
            assert label == map_app.labels(n)[i] and text.startswith(label), text
        else:
            assert text.startswith(f"#{i}"), text
    finally:
        page.close()


def test_under_gl_above_points_the_cpu_draws_them(fixture_app, browser):
    n = 2000
    assert n < GL_ABOVE
    page = open_map(browser, fixture_app, n)
    try:
        s = lean(page)
        assert s["renderer"] == "canvas"
    finally:
        page.close()


def test_a_million_points_are_drawn_by_webgl(fixture_app, browser):
    n = 1_000_000
    page = open_map(browser, fixture_app, n)
    try:
        assert lean(page)["renderer"] == "webgl2"
        s = zoom_to_halo(page, 600.0)
        assert s["renderer"] == "webgl2"
        idx, pxy = alone(page, n, s, per_cluster=2)
        check_colours(canvas_shot(page, s, "map-webgl-1m"), s, idx, pxy, n)
        hide = 2
        page.locator(f'.lab-legend-item[data-code="{hide}"]').first.click()
        page.wait_for_function("([k, c]) => window.__labMaps[k].state().hidden.includes(c)", arg=[KEY, hide])
        s = lean(page)
        idx, pxy = alone(page, n, s, per_cluster=2)
        check_colours(canvas_shot(page, s, "map-webgl-1m-hidden"), s, idx, pxy, n, hidden=(hide,))
    finally:
        page.close()
