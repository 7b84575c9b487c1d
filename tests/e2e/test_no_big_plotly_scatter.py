"""No page draws a scatter map with Plotly: every page, every tab, in Chromium, has no Plotly scatter
trace of more than 200 markers (maps of items are drawn by the lab's map component, app/ui/map). The walk over
every view is tests/e2e/test_access_browser.py's, which runs these checks with its own on each view.

Plotly stays for explanatory charts (spectra, curves, bars, heatmaps), whose scatter traces are lines or a
handful of marked points. Each page is opened, then each of its tabs (the pages' tabs are lazy: a tab runs
when opened, so each is clicked and the app waited on), nested tabs included; on every view the
markers of each scatter trace are counted: SVG points drawn (``.scatterlayer .point``) and, for
WebGL traces too, the points of the plot's own data (``_fullData``). Every view is at most 6,000 px tall as it
opens (tests/e2e/views.py's TALLEST); then every expander is opened on the way (the theory too). The same walk, at
this laptop size (1440 x 900), also finds nothing cut off: no display formula wider than its column, no clipped
chart title (tests/e2e/views.py; the projector's screen is tests/e2e/test_text_fits_browser.py). Here: the first
view of every other bundled data set, at most TALLEST px. The server and Chromium are started as in
test_browser.py.
"""

from __future__ import annotations

import pytest

from app.pages import PAGES
from tests.e2e.test_browser import browser, server  # noqa: F401 (fixtures)
from embedcore import datasets
from tests.e2e.test_browser import wait_idle
from tests.e2e.views import too_tall

#: The most markers a Plotly scatter trace may draw.
LIMIT = 200

#: Every scatter trace on the page with its markers: the chart (its element key or title), the trace's
#: name and type, the markers in its data and the SVG points drawn.
SCATTERS = """() => {
  const out = [];
  for (const gd of document.querySelectorAll('[data-testid="stMain"] .js-plotly-plot')) {
    const holder = gd.closest('[class*="st-key-"]');
    const key = holder ? [...holder.classList].find((c) => c.startsWith('st-key-')).slice(7) : '';
    const layout = gd._fullLayout || {};
    const title = (layout.title && layout.title.text) || '';
    const svgCounts = new Map();
    for (const t of gd.querySelectorAll('.scatterlayer .trace')) {
      const d = t.__data__ && t.__data__[0] && t.__data__[0].trace;
      if (d) svgCounts.set(d.index, t.querySelectorAll('.point').length);
    }
    (gd._fullData || []).forEach((t, k) => {
      if (!['scatter', 'scattergl'].includes(t.type) || t.visible !== true) return;
      const mode = String(t.mode || '');
      const data = mode.includes('markers') ? (t.x || t.y || []).length : 0;
      const drawn = svgCounts.get(t.index ?? k) || 0;
      out.push({chart: key || title || 'a chart without key or title', title, trace: t.name || `trace ${k}`,
                type: t.type, mode, markers: Math.max(data, drawn)});
    });
  }
  return out;
}"""

def big_scatters(page, where: str) -> list[str]:
    """The Plotly scatter traces on the page with more than :data:`LIMIT` markers."""
    return [f"{where}: chart {s['chart']!r}, trace {s['trace']!r} ({s['type']}, {s['mode']}) draws {s['markers']:,} markers"
            for s in page.evaluate(SCATTERS) if s["markers"] > LIMIT]


#: Pages that open on a view without a data set: the link parameter that shows one.
DATA_VIEW = {"cat": "cat.kind=learned+from+a+table"}


@pytest.mark.parametrize("spec", [p for p in PAGES if p.data], ids=[p.url for p in PAGES if p.data])
def test_no_page_is_taller_than_6000_px_with_any_bundled_data(server, browser, spec):
    """Each of the page's other bundled data sets, opened by its link: the first view is at most TALLEST px (the
    default data set's every tab is measured above)."""
    url, _ = server
    page = browser.new_page(viewport={"width": 1440, "height": 900})
    tall: list[str] = []
    try:
        for d in [d for kind in spec.data for d in datasets.datasets_of_kind(kind)][1:]:
            query = "&".join(q for q in (DATA_VIEW.get(spec.key), f"{spec.key}.dataset={d.id}") if q)
            page.goto(f"{url}/{spec.url}?{query}")
            wait_idle(page)
            tall += too_tall(page, f"page {spec.url}, data set {d.id}")
    finally:
        page.close()
    assert not tall, "\n".join(tall)
