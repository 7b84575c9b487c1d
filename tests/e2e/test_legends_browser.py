"""Every legend drawn, on every page and tab (expanders open), in Chromium: no two entries alike, and the labels
of every map apart.

* A lab map's legend, as drawn (``window.__labMaps[key].state().legend``: each entry's name, colour and shape;
  a category's mark, a layer's ring, mark, line or arrow), and every Plotly legend (the colour and symbol Plotly
  resolved for each trace shown in it): no two entries of one legend with the same shape and colours closer than
  tests/legends.py's SAME (CIEDE2000). The Sets page's buckets read "48, 255" in one entry, the Playlists tags
  tag1 and tag6 were two oranges.
* Each map's point labels: none over another, over the axis titles or the scale bar, or over a marker's name;
  each beside its own point, or joined to it by a leader line.
* The Categories page's day map (seven days, Sat and Sun, Mon and Tue close together): every day named, no name
  over another day's mark, no day's mark on the axis titles; a screenshot.

The server and Chromium are started as in test_browser.py; screenshots go to tests/.artifacts/screenshots/.
"""

from __future__ import annotations

import numpy as np
import pytest

from app.pages import PAGES
from tests.conftest import ARTIFACTS
from tests.e2e.test_browser import browser, server, wait_idle  # noqa: F401 (fixtures)
from tests.e2e.views import open_expanders, views
from tests.legends import alike

#: Every lab map on the page: its legend as drawn, its labels (boxes in canvas pixels) with their points' places
#: and mark radii, the boxes of its axis titles, scale bar and markers' names, and every point's place and radius
#: (at most 3,000 points).
MAPS = """() => Object.entries(window.__labMaps || {}).filter(([, m]) => m.canvas.isConnected && m.frame)
  .map(([key, m]) => {
    const s = m.state(), f = m.frame, [left, top, w, h] = s.canvas, radius = (i) => (f.sizes ? f.sizes[i] : f.size);
    const at = (i) => { const [x, y] = s.screen(i); return [x - left, y - top]; };
    const points = f.n <= 3000 ? Array.from({length: f.n}, (_, i) => (!m.keep || m.keep[i]) ? [...at(i), radius(i), i] : null)
      .filter(Boolean) : [];
    return {key, legend: s.legend, size: [w, h], axes: s.axes, markerTexts: s.markerTexts, points,
            labels: s.labels.map((l) => ({...l, at: at(l.i), r: radius(l.i)}))};
  })"""

#: Every Plotly legend shown on the page: for each trace in it, its name, the colour Plotly drew it in and its
#: shape (trace type, marker symbol, line dash).
PLOTLY = """() => [...document.querySelectorAll('[data-testid="stMain"] .js-plotly-plot')]
  .filter((gd) => gd.offsetParent && gd._fullLayout && gd._fullLayout.showlegend && gd._fullData)
  .map((gd) => {
    const title = (gd._fullLayout.title && gd._fullLayout.title.text) || '', seen = new Set(), entries = [];
    for (const t of gd._fullData) {
      if (!t.showlegend || t.visible === false || !t.name) continue;
      if (t.legendgroup) { if (seen.has(t.legendgroup)) continue; seen.add(t.legendgroup); }
      const m = t.marker || {}, l = t.line || {}, mode = t.mode || '';
      const colour = typeof m.color === 'string' ? m.color : typeof l.color === 'string' ? l.color
        : Array.isArray(m.color) ? JSON.stringify(m.color) : (t.fillcolor || '');
      const shape = [t.type, mode.includes('markers') ? String(m.symbol) : '', mode.includes('lines') ? String(l.dash) : '']
        .filter(Boolean).join(' ');
      entries.push({name: String(t.name), colour, shape});
    }
    return {title: title.slice(0, 60), entries};
  })"""


def overlaps(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def covers(box, x, y, r) -> bool:
    """Whether a box covers part of the disc of radius r at (x, y)."""
    qx, qy = min(max(x, box[0]), box[2]), min(max(y, box[1]), box[3])
    return (qx - x) ** 2 + (qy - y) ** 2 < r * r - 1e-9


def label_problems(m: dict, where: str) -> list[str]:
    """A map's labels over one another, over its axis titles, scale bar or markers' names, off the canvas, or
    away from their points without a leader line."""
    out, labels, what = [], m["labels"], f"{where}: map {m['key']}"
    for k, a in enumerate(labels):
        for b in labels[k + 1:]:
            if overlaps(a["box"], b["box"]):
                out.append(f"{what}: labels {a['text']!r} and {b['text']!r} overlap")
        for kept in m["axes"] + m["markerTexts"]:
            if overlaps(a["box"], kept["box"]):
                out.append(f"{what}: label {a['text']!r} over {kept['text']!r}")
        w, h = m["size"]
        x0, y0, x1, y1 = a["box"]
        if x0 < -1e-6 or y0 < -1e-6 or x1 > w + 1e-6 or y1 > h + 1e-6:
            out.append(f"{what}: label {a['text']!r} off the canvas")
        x, y = a["at"]
        dx, dy = max(x0 - x, 0, x - x1), max(y0 - y, 0, y - y1)
        if not a["leader"] and (dx > a["near"] + 0.01 or dy > a["near"] + 0.01):
            out.append(f"{what}: label {a['text']!r} {max(dx, dy):.1f} px from its point, no leader line")
    return out


@pytest.mark.parametrize("spec", PAGES, ids=[p.url for p in PAGES])
def test_no_legend_has_two_entries_alike_and_map_labels_are_apart(server, browser, spec):
    url, _ = server
    page = browser.new_page(viewport={"width": 1440, "height": 1000})
    found: list[str] = []
    maps, charts = set(), 0
    try:
        for where in views(page, url, spec):
            where = f"page {spec.url}, {where}"
            open_expanders(page)
            for m in page.evaluate(MAPS):
                maps.add(m["key"])
                same = alike(m["legend"])
                if same:
                    found.append(f"{where}: map {m['key']}: legend entries alike: {same[:4]}")
                found += label_problems(m, where)
            for chart in page.evaluate(PLOTLY):
                charts += 1
                if not all(e["colour"] for e in chart["entries"]):
                    found.append(f"{where}: chart {chart['title']!r}: a legend entry's colour not read: {chart['entries']}")
                same = alike(chart["entries"])
                if same:
                    found.append(f"{where}: chart {chart['title']!r}: legend entries alike: {same[:4]}")
    finally:
        page.close()
    print(f"\n{spec.url}: maps {sorted(maps)}, {charts} Plotly legends read")
    found = list(dict.fromkeys(found))
    assert not found, "\n".join(found[:40])


def test_the_categories_day_map_names_every_day_beside_it_and_off_the_axes(server, browser):
    """The first map of the Categories page (the article's weekday matrix): Sat and Sun, Mon and Tue lie close;
    each day is named, no name covers another day's mark or another name, no mark lies on an axis title."""
    url, _ = server
    key = "cat.map.first"
    page = browser.new_page(viewport={"width": 1440, "height": 1000})
    try:
        page.goto(f"{url}/categories")
        wait_idle(page)
        page.wait_for_function("(k) => window.__labMaps && window.__labMaps[k] && window.__labMaps[k].frame", arg=key,
                               timeout=120_000)
        page.wait_for_timeout(600)
        m = next(m for m in page.evaluate(MAPS) if m["key"] == key)
        names = page.evaluate("(k) => window.__labMaps[k].frame.labels", key)
        named = [v for v in names if v]
        assert len(named) >= 7 or any(" · " in v for v in named), names
        assert sorted(lab["text"] for lab in m["labels"]) == sorted(named), "a day is not named"
        assert not label_problems(m, "categories")
        marks = {int(i): (x, y, r) for x, y, r, i in m["points"]}
        for lab in m["labels"]:
            for i, (x, y, r) in marks.items():
                assert i == lab["i"] or not covers(lab["box"], x, y, r), f"{lab['text']!r} covers {names[i]!r}'s mark"
        for i, (x, y, r) in marks.items():
            for kept in m["axes"]:
                assert not covers(kept["box"], x, y, r), f"{names[i]!r}'s mark on {kept['text']!r}"
        # the names sit beside their days: none pushed away while there is room
        assert np.mean([not lab["leader"] for lab in m["labels"]]) >= 0.5
        shots = ARTIFACTS / "screenshots"
        shots.mkdir(parents=True, exist_ok=True)
        page.locator(f".st-key-{key.replace('.', '-')}").first.screenshot(path=str(shots / "categories-day-map.png"))
    finally:
        page.close()
