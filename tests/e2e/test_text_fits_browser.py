"""Every formula and chart title fits its column on a projector: on every page and every tab, with every
expander open (the theory included), in Chromium at 1280 x 800 in presentation mode (larger type, the
sidebar collapsed). The laptop's screen (1440 x 1000) is checked on the walk of
test_no_big_plotly_scatter.py.

KaTeX does not wrap display math, so a formula wider than its column scrolls in its box (assets/lab.css)
and is cut off on a projected page; a long one is given in lines of its own (app.ui.text.equations).
Plotly does not wrap a chart's title or an axis title either: one wider than the chart is clipped at its
edges. The lab's own charts and maps wrap their titles; one that still does not fit is reported too. The
server and Chromium are started as in test_browser.py.
"""

from __future__ import annotations

import pytest

from app.pages import PAGES
from tests.e2e.test_browser import browser, server  # noqa: F401 (fixtures)
from tests.e2e.views import charts_drawn, cut_off, open_expanders, views


@pytest.mark.parametrize("spec", PAGES, ids=[p.url for p in PAGES])
def test_every_formula_and_chart_title_fits_its_column_on_a_projector(server, browser, spec):
    url, _ = server
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    found: list[str] = []
    try:
        for where in views(page, url, spec, "present=1", settled=charts_drawn):
            open_expanders(page)
            found += cut_off(page, f"page {spec.url}, {where}")
    finally:
        page.close()
    found = list(dict.fromkeys(found))
    assert not found, "cut off on a projector (1280 px, presentation mode):\n" + "\n".join(found)
