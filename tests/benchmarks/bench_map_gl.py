"""Frame times of the lab's map at 100,000 and 1,000,000 points: its WebGL 2 points against the CPU's.

``python tests/benchmarks/bench_map_gl.py`` (not part of the suite) serves the map fixture
(tests/e2e/map_app.py, coloured by cluster: four colours and four marks, a label per point) and opens it in
headless Chromium (software GL) at each size. On one page per size it times, as the median interval between
animation frames while the map is busy:

* a drag: the mouse pressed on the map, 60 small moves (one a frame), released (a pan);
* wheel zooms: 30 wheel steps (one a frame) in and out over the map;
* colour changes: the map's palette replaced and the map drawn again, once a frame, 30 times (10 at a million);
* the floor: frames with nothing to draw.

Each is timed four ways, switched on the page between runs: the CPU's points drawn every frame
(``window.__labMapForceCanvas``, the reference: how every map drew its points before WebGL), WebGL drawing every
frame anew (``window.__labMapForceGL``, ``window.__labMapRedrawEveryFrame``), WebGL moving a picture of the points
during a gesture when they took long to draw (drawn anew once the gesture pauses), and the map as it ships: WebGL
where a GPU draws it, the CPU's points (moved as pictures during a gesture) where WebGL is emulated, as it is in
this headless Chromium. ``--sizes 100000`` chooses the sizes.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.e2e.map_app import KEY  # noqa: E402
from tests.e2e.test_browser import CHROMIUM, CHROMIUM_ARGS, streamlit_server  # noqa: E402

VARIANTS = [  # (name, window flags)
    ("canvas, every frame drawn (reference)",
     {"__labMapForceCanvas": True, "__labMapForceGL": False, "__labMapRedrawEveryFrame": True}),
    ("webgl2, every frame drawn", {"__labMapForceCanvas": False, "__labMapForceGL": True, "__labMapRedrawEveryFrame": True}),
    ("webgl2, pictures moved", {"__labMapForceCanvas": False, "__labMapForceGL": True, "__labMapRedrawEveryFrame": False}),
    ("as shipped", {"__labMapForceCanvas": False, "__labMapForceGL": False, "__labMapRedrawEveryFrame": False}),
]

#: One step of a gesture a frame on the map's overlay, `count` frames: a drag's pointer moves (a slow zigzag that
#: keeps the map in view) or wheel steps (half in, half out); the frame intervals.
GESTURE = """([key, kind, count]) => new Promise((done) => {
  const o = window.__labMaps[key].overlay, r = o.getBoundingClientRect();
  const x0 = r.left + r.width / 2, y0 = r.top + r.height / 2, times = [];
  let k = 0;
  const step = (t) => {
    times.push(t);
    if (k === count) { const d = [];
      for (let j = 1; j < times.length; j++) d.push(times[j] - times[j - 1]); done(d); return; }
    if (kind === 'drag') o.dispatchEvent(new PointerEvent('pointermove', { bubbles: true, pointerId: 1,
      pointerType: 'mouse', buttons: 1, clientX: x0 + 4 * (k % 20) - 40 * (Math.floor(k / 20) % 2),
      clientY: y0 + 2 * (k % 10) }));
    else o.dispatchEvent(new WheelEvent('wheel', { bubbles: true, cancelable: true, deltaY: k < count / 2 ? -60 : 60,
      clientX: x0, clientY: y0 }));
    k++;
    requestAnimationFrame(step);
  };
  requestAnimationFrame(step);
})"""
#: Replaces the palette once a frame, `count` times, drawing the map each time; the frame intervals.
RECOLOUR = """([key, count]) => new Promise((done) => {
  const m = window.__labMaps[key], base = m.paletteRGB, times = [];
  let k = 0;
  const step = (t) => {
    times.push(t);
    if (k === count) { m.paletteRGB = base; m.draw(); const d = [];
      for (let j = 1; j < times.length; j++) d.push(times[j] - times[j - 1]); done(d); return; }
    m.paletteRGB = base.map(([r, g, b]) => [(r + 40 * (k + 1)) % 256, g, (b + 20 * k) % 256]);
    k++; m.draw(); requestAnimationFrame(step);
  };
  requestAnimationFrame(step);
})"""
#: Frames with nothing to draw: the floor.
IDLE = """(count) => new Promise((done) => { const times = [];
  const step = (t) => { times.push(t); if (times.length > count) { const d = [];
    for (let j = 1; j < times.length; j++) d.push(times[j] - times[j - 1]); done(d); }
    else requestAnimationFrame(step); };
  requestAnimationFrame(step); })"""
SETTLED = """(key) => new Promise((done) => setTimeout(() => requestAnimationFrame(() => requestAnimationFrame(() =>
  done(window.__labMaps[key].state().renderer))), 400))"""


def median(values) -> float:
    return statistics.median(values) if values else float("nan")


def open_map(browser, url: str, n: int):
    from tests.e2e.test_browser import wait_idle

    page = browser.new_page(viewport={"width": 1440, "height": 1000})
    t0 = time.perf_counter()
    page.goto(f"{url}/?n={n}&mode=pan&color=category", timeout=600_000)
    wait_idle(page, timeout_ms=600_000)
    page.wait_for_function(
        """(key) => { const m = window.__labMaps && window.__labMaps[key]; return m && !m.state().gliding; }""",
        arg=KEY, timeout=600_000)
    page.locator("canvas.lab-canvas").first.scroll_into_view_if_needed()
    page.wait_for_timeout(500)
    print(f"  {n:,} points on the page in {time.perf_counter() - t0:.1f} s", file=sys.stderr, flush=True)
    return page


def centre(page) -> tuple[float, float]:
    box = page.locator("canvas.lab-overlay").first.bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def drag(page) -> list[float]:
    """A pan: the mouse pressed on the map's middle, then one move a frame (in the page, so that each frame
    draws one step and no more), then released."""
    x, y = centre(page)
    page.mouse.move(x, y)
    page.mouse.down()
    frames = page.evaluate(GESTURE, [KEY, "drag", 60])
    page.mouse.up()
    return frames


def wheel(page) -> list[float]:
    x, y = centre(page)
    page.mouse.move(x, y)
    return page.evaluate(GESTURE, [KEY, "wheel", 30])


def run(sizes: list[int]) -> list[tuple]:
    from playwright.sync_api import sync_playwright

    rows = []
    with streamlit_server(ROOT / "tests" / "e2e" / "map_app.py", "bench_map_gl.log") as (url, _), \
            sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            for n in sizes:
                page = open_map(browser, url, n)
                floor = median(page.evaluate(IDLE, 30))
                for name, flags in VARIANTS:
                    page.evaluate("(flags) => Object.assign(window, flags)", flags)
                    page.evaluate("(key) => window.__labMaps[key].draw()", KEY)
                    drawn = page.evaluate(SETTLED, KEY)
                    d = median(drag(page))
                    page.evaluate(SETTLED, KEY)
                    z = median(wheel(page))
                    page.evaluate(SETTLED, KEY)
                    c = median(page.evaluate(RECOLOUR, [KEY, 30 if n <= 100_000 else 10]))
                    page.evaluate(SETTLED, KEY)
                    rows.append((n, name, drawn, d, z, c, floor))
                    print(f"  {n:,} {name}: drag {d:.0f} ms, wheel {z:.0f} ms, colour {c:.0f} ms", file=sys.stderr,
                          flush=True)
                page.close()
        finally:
            browser.close()
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="100000,1000000", help="comma-separated point counts")
    args = ap.parse_args()
    rows = run([int(v) for v in args.sizes.split(",")])
    print("Median interval between animation frames, ms (the floor: frames with nothing to draw)\n")
    print("| points | points drawn by | renderer | drag | wheel zoom | colour change | floor |")
    print("| ---: | --- | --- | ---: | ---: | ---: | ---: |")
    for n, name, drawn, d, z, c, floor in rows:
        print(f"| {n:,} | {name} | {drawn} | {d:.1f} | {z:.1f} | {c:.1f} | {floor:.1f} |")


if __name__ == "__main__":
    main()
