"""No page draws a scatter map with Plotly: every page, every tab, in Chromium, has no Plotly scatter
trace of more than 200 markers (maps of items are drawn by the lab's map component, app/ui/map).

Plotly stays for explanatory charts (spectra, curves, bars, heatmaps), whose scatter traces are lines or a
handful of marked points. Each page is opened, then each of its tabs (the pages' tabs are lazy: a tab runs
when opened, so each is clicked and the app waited on), nested tabs included; on every view the
markers of each scatter trace are counted: SVG points drawn (``.scatterlayer .point``) and, for
WebGL traces too, the points of the plot's own data (``_fullData``). The server and Chromium are
started as in test_browser.py.
"""

from __future__ import annotations

import pytest

from app.pages import PAGES
from tests.e2e.test_browser import assert_no_exception, browser, server, wait_idle  # noqa: F401 (fixtures)

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

#: The tabs shown in the main area: their text, their group (the labels of the tab list they are in) and
#: whether they are open.
TABS = """() => [...document.querySelectorAll('[data-testid="stMain"] [role="tab"]')]
  .filter((t) => t.offsetParent !== null)
  .map((t) => ({text: t.innerText.trim(), open: t.getAttribute('aria-selected') === 'true',
                group: [...t.closest('[role="tablist"]').querySelectorAll('[role="tab"]')].map((s) => s.innerText.trim()).join(' | ')}))"""


def _big(page, where: str) -> list[str]:
    return [f"{where}: chart {s['chart']!r}, trace {s['trace']!r} ({s['type']}, {s['mode']}) draws {s['markers']:,} markers"
            for s in page.evaluate(SCATTERS) if s["markers"] > LIMIT]


def settle(page) -> None:
    """Charts and maps draw a moment after the script is idle: wait until every Plotly chart has its data
    and the set of lab maps holds still."""
    page.wait_for_function("""() => [...document.querySelectorAll('.js-plotly-plot')].every((gd) => gd._fullData)""",
                           timeout=60_000)
    keys = None
    for _ in range(10):
        page.wait_for_timeout(300)
        now = page.evaluate("() => Object.keys(window.__labMaps || {}).sort().join()")
        if now == keys:
            return
        keys = now


def views(page, url: str, spec, query: str = ""):
    """Open ``spec``'s page (of the app at ``url``, with URL ``query`` parameters), then each of its tabs in turn
    (nested ones as they appear), waiting for the app after each; yields where the page is each time ("first
    view", or the open tabs, outer first)."""
    page.goto(f"{url}/{'' if spec.default else spec.url}" + (f"?{query}" if query else ""))
    wait_idle(page)
    assert_no_exception(page, spec.url)
    settle(page)
    yield "first view"
    seen: set[tuple[str, str]] = set()
    for _ in range(60):
        tabs = page.evaluate(TABS)
        seen |= {(t["group"], t["text"]) for t in tabs if t["open"]}
        todo = [t for t in tabs if (t["group"], t["text"]) not in seen]
        if not todo:
            return
        t = todo[0]
        seen.add((t["group"], t["text"]))
        page.get_by_role("tab", name=t["text"], exact=True).first.click()
        page.wait_for_timeout(300)
        wait_idle(page)
        where = "tab " + " > ".join(x["text"] for x in page.evaluate(TABS) if x["open"])
        assert_no_exception(page, f"{spec.url}, {where}")
        settle(page)
        yield where


@pytest.mark.parametrize("spec", PAGES, ids=[p.url for p in PAGES])
def test_no_plotly_scatter_of_more_than_200_markers(server, browser, spec):
    url, _ = server
    page = browser.new_page(viewport={"width": 1440, "height": 1000})
    found: list[str] = []
    try:
        for where in views(page, url, spec):
            found += _big(page, f"page {spec.url}, {where}")
    finally:
        page.close()
    found = list(dict.fromkeys(found))
    assert not found, "Plotly scatter maps left (draw them with app.ui.map):\n" + "\n".join(found)
