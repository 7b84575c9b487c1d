"""Every formula and chart title fits its column: on every page and every tab, with every expander open
(the theory included), in Chromium, at a laptop's 1440 x 1000 and on a projector's 1280 x 800 in
presentation mode (larger type, sidebar collapsed).

KaTeX does not wrap display math, so a formula wider than its column scrolls in its box (assets/lab.css)
and is cut off on a projected page; a long one is given in lines of its own (app.ui.text.equations).
Plotly does not wrap a chart's title or an axis title either: one wider than the chart is clipped at its
edges. The lab's own charts and maps wrap their titles; one that still does not fit is reported too. The
server and Chromium are started as in test_browser.py.
"""

from __future__ import annotations

import pytest

from app.pages import PAGES
from tests.e2e.test_browser import browser, server, wait_idle  # noqa: F401 (fixtures)
from tests.e2e.test_no_big_plotly_scatter import views

#: The display formulas shown in the main area that are wider than their box: their width, the box's, the start
#: of their text.
TOO_WIDE = """() => [...document.querySelectorAll('[data-testid="stMain"] .katex-display')]
  .filter((e) => e.offsetParent !== null && e.scrollWidth > e.clientWidth + 1)
  .map((e) => ({wide: e.scrollWidth, box: e.clientWidth, text: (e.textContent || '').slice(0, 70)}))"""
#: Chart and axis titles clipped: a Plotly title or legend entry reaching past its chart, a lab chart's or map's
#: title wider than its box.
CLIPPED = """() => {
  const out = [];
  for (const gd of document.querySelectorAll('[data-testid="stMain"] .js-plotly-plot')) {
    if (!gd.offsetParent) continue;
    const r = gd.getBoundingClientRect();
    for (const t of gd.querySelectorAll('.gtitle, .g-xtitle text, .g-ytitle text, .legendtext')) {
      const b = t.getBoundingClientRect();
      if (b.width > 0 && (b.left < r.left - 1 || b.right > r.right + 1 || b.top < r.top - 1 || b.bottom > r.bottom + 1))
        out.push((t.textContent || '').slice(0, 70));
    }
  }
  for (const t of document.querySelectorAll('[data-testid="stMain"] .lab-chart-title, [data-testid="stMain"] .lab-title'))
    if (t.offsetParent && t.scrollWidth > t.clientWidth + 1) out.push(t.textContent.slice(0, 70));
  return out;
}"""
CLOSED = '[data-testid="stMain"] [data-testid="stExpander"] details:not([open]) > summary'
SCREENS = {"laptop": ({"width": 1440, "height": 1000}, ""), "projector": ({"width": 1280, "height": 800}, "present=1")}


def _open_expanders(page) -> None:
    """Open every closed expander in the main area (one at a time: a keyed one reruns the page)."""
    for _ in range(30):
        closed = [s for s in page.locator(CLOSED).all() if s.is_visible()]
        if not closed:
            return
        closed[0].click()
        page.wait_for_timeout(200)
        wait_idle(page)


@pytest.mark.parametrize("screen", list(SCREENS))
@pytest.mark.parametrize("spec", PAGES, ids=[p.url for p in PAGES])
def test_every_formula_and_chart_title_fits_its_column(server, browser, spec, screen):
    url, _ = server
    viewport, query = SCREENS[screen]
    page = browser.new_page(viewport=viewport)
    found: list[str] = []
    try:
        for where in views(page, url, spec, query):
            _open_expanders(page)
            found += [f"page {spec.url}, {where}: a formula {f['wide']} px wide in a {f['box']} px box: {f['text']!r}"
                      for f in page.evaluate(TOO_WIDE)]
            found += [f"page {spec.url}, {where}: a chart's title clipped: {t!r}" for t in page.evaluate(CLIPPED)]
    finally:
        page.close()
    found = list(dict.fromkeys(found))
    assert not found, f"cut off on a {screen} ({viewport['width']} px):\n" + "\n".join(found)
