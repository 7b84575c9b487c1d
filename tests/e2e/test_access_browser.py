"""Usable without a mouse and without sight, in Chromium (WCAG 2.1 AA).

* axe-core (shipped by the axe-playwright-python package, with its MPL-2.0 licence header) runs its WCAG 2.0 and
  2.1 A and AA rules on every page and every tab, expanders open; any violation fails the test. (Streamlit's
  sectioned page list breaks the list rules; the lab's list has no sections: app/GUIDE.md, "Access".)
* On the same views every canvas component (the lab's maps, bars, lines, heatmaps and 3-D views; axe cannot
  see into a canvas) is a focusable application region with a name and a description that counts what it draws.
* On Manifolds, Words and Maps the keyboard alone reaches the map, walks to a point, inspects it (its neighbour
  lists appear), selects three points (the selection's list shows them) and clears the selection, while the
  live region names the point reached.

The walk over every view runs the other every-view checks too, so each view is opened once: no Plotly scatter
of more than 200 markers (tests/e2e/test_no_big_plotly_scatter.py), nothing cut off at 1440 px and no view
taller than tests/e2e/views.py's TALLEST.
"""

from __future__ import annotations

import os
import re

import pytest

from app.pages import PAGES
from tests.e2e.test_browser import assert_no_exception, browser, server, wait_idle  # noqa: F401 (fixtures)
from tests.e2e.test_map_browser import live_run_ended
from tests.e2e.test_no_big_plotly_scatter import big_scatters
from tests.e2e.views import cut_off, open_expanders, too_tall, views

#: axe's rules for WCAG 2.0 and 2.1, levels A and AA.
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]

#: axe's violations on the page as it is: rule, impact, how many nodes, the first node's selector and what axe
#: says to fix.
AXE_RUN = """async (tags) => {
  const r = await axe.run(document, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']});
  return r.violations.map((v) => ({id: v.id, impact: v.impact, n: v.nodes.length, target: JSON.stringify(v.nodes[0].target),
                                   fix: (v.nodes[0].failureSummary || '').replace(/\\s+/g, ' ').slice(0, 300)}));
}"""

#: Every canvas component's focusable region (they live in shadow roots): its role, name, description (the
#: text of the elements its aria-describedby names), tab index, and the element key of the component.
REGIONS = """() => {
  const out = [];
  const walk = (root) => {
    for (const e of root.querySelectorAll('*')) {
      if (e.shadowRoot) walk(e.shadowRoot);
      if (!e.matches('.lab-stage, .lab-chart-stage, .lab-heat-stage, .lab-3d-canvas, [role="application"]')) continue;
      if (!e.getBoundingClientRect().width) continue;
      const host = root.host || e;
      const holder = host.closest ? host.closest('[class*="st-key-"]') : null;
      const key = holder ? [...holder.classList].find((c) => c.startsWith('st-key-')).slice(7) : '';
      const about = (e.getAttribute('aria-describedby') || '').split(/\\s+/).filter(Boolean)
        .map((id) => { const d = root.getElementById ? root.getElementById(id) : null; return d ? d.textContent : ''; });
      const map = e.parentNode && e.parentNode.parentNode && e.parentNode.parentNode.__labMap;
      out.push({key, cls: e.className, role: e.getAttribute('role'), name: e.getAttribute('aria-label') || '',
                points: map && map.frame ? map.frame.n : null,
                about: about[0] || '', keys: about[1] || '', tabindex: e.tabIndex});
    }
  };
  walk(document);
  const seen = new Set();
  return out.filter((r) => { const k = r.key + '|' + r.cls; if (seen.has(k)) return false; seen.add(k); return true; });
}"""


def _axe_source() -> str:
    import axe_playwright_python

    return open(os.path.join(os.path.dirname(axe_playwright_python.__file__), "axe.min.js"), encoding="utf-8").read()


def axe_violations(page, where: str) -> list[str]:
    """axe's WCAG 2.1 A and AA violations on the page as it is."""
    # an element a run has not reached yet is faded (data-stale), which lowers its contrast for a moment
    page.wait_for_function("""() => !document.querySelector('[data-stale="true"]')""", timeout=60_000)
    if not page.evaluate("() => !!window.axe"):
        page.evaluate(_axe_source())
    return [f"{where}: {v['id']} ({v['impact']}, {v['n']} nodes), e.g. {v['target']}: {v['fix']}"
            for v in page.evaluate(AXE_RUN, TAGS)]


def region_problems(page, where: str) -> list[str]:
    """Every canvas component on the page: a focusable application region, named, described with a number (the
    points, bars, cells or values it draws), its keys told."""
    out = []
    for r in page.evaluate(REGIONS):
        what = f"{where}: component {r['key'] or r['cls']!r}"
        if r["role"] != "application" or r["tabindex"] != 0:
            out.append(f"{what} is not a focusable application region (role {r['role']}, tabindex {r['tabindex']})")
            continue
        if not r["name"].strip():
            out.append(f"{what} has no accessible name")
        if not re.search(r"\d", r["about"]):
            out.append(f"{what}: its description counts nothing: {r['about']!r}")
        if r["points"] is not None and f"A map of {r['points']:,} point" not in r["about"]:
            out.append(f"{what}: a map of {r['points']:,} points described as {r['about']!r}")
        if "Keys:" not in r["keys"] and "key" not in r["keys"].lower():
            out.append(f"{what}: its keys are not told: {r['keys']!r}")
    return out


def test_axe_and_the_component_checks_find_what_they_should(server, browser):
    """The checks are live: a caption in Streamlit's own grey and a canvas region without a name are found."""
    url, _ = server
    page = browser.new_page(viewport={"width": 1440, "height": 900})
    try:
        page.goto(f"{url}/manifolds")
        wait_idle(page)
        page.wait_for_function("() => window.__labMaps && window.__labMaps['man.map.lle']", timeout=120_000)
        assert not axe_violations(page, "manifolds")
        assert not region_problems(page, "manifolds")
        page.evaluate("""() => { for (const p of document.querySelectorAll('[data-testid="stMain"] [data-testid="stCaptionContainer"] p'))
                                   p.style.setProperty('color', '#828180', 'important'); }""")
        found = axe_violations(page, "manifolds, a caption made grey")
        assert any("color-contrast" in f for f in found), found
        page.evaluate("() => window.__labMaps['man.map.lle'].stage.removeAttribute('aria-label')")
        assert any("no accessible name" in p for p in region_problems(page, "manifolds, a name taken away"))
    finally:
        page.close()


@pytest.mark.parametrize("spec", PAGES, ids=[p.url for p in PAGES])
def test_every_view_of_every_page_passes_axe_and_names_its_charts(server, browser, spec):
    url, _ = server
    page = browser.new_page(viewport={"width": 1440, "height": 900})
    axe: list[str] = []
    regions: list[str] = []
    found: list[str] = []
    cut: list[str] = []
    tall: list[str] = []
    try:
        for where in views(page, url, spec):
            where = f"page {spec.url}, {where}"
            tall += too_tall(page, where)  # as it opens, before the expanders below
            open_expanders(page)  # the theory and every other expander: their charts and formulas too
            axe += axe_violations(page, where)
            regions += region_problems(page, where)
            found += big_scatters(page, where)
            cut += cut_off(page, where)
    finally:
        page.close()
    assert not axe, "axe-core's WCAG 2.1 AA violations:\n" + "\n".join(dict.fromkeys(axe))
    assert not regions, "canvas components a keyboard or a screen reader cannot use:\n" + "\n".join(dict.fromkeys(regions))
    assert not found, "Plotly scatter maps left (draw them with app.ui.map):\n" + "\n".join(dict.fromkeys(found))
    # on a laptop's screen: nothing cut off (tests/e2e/test_text_fits_browser.py: the projector)
    assert not cut, "cut off on a laptop (1440 px):\n" + "\n".join(dict.fromkeys(cut))
    assert not tall, "taller than two screens and a half:\n" + "\n".join(tall)


def _tab_to(page, key: str, most: int = 150) -> None:
    """Press Tab until the map ``key`` has the focus."""
    for _ in range(most):
        if page.evaluate("(k) => window.__labMaps[k].hasFocus === true", key):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"{most} presses of Tab never reached the map {key}")


def _said(page, key: str) -> str:
    return page.evaluate("(k) => window.__labMaps[k].state().access.said", key)


def _focused_label(page, key: str) -> str:
    """The label of the point the keys reached (its id when it has none)."""
    return page.evaluate("(k) => { const m = window.__labMaps[k], f = m.frame, i = m.kfocus;"
                         " return f.labels && f.labels[i] ? String(f.labels[i]) : (f.ids ? String(f.ids[i]) : String(i)); }",
                         key)


PAGES_WITH_MAPS = [
    ("manifolds", "", "man.map.lle", "points"),
    ("words", "words.map_n=300", "words.map", "words"),
    ("maps", "", "maps.map", "points"),
]


@pytest.mark.parametrize("url_path, query, key, nouns", PAGES_WITH_MAPS, ids=[p[0] for p in PAGES_WITH_MAPS])
def test_the_keyboard_alone_inspects_and_selects_on_the_pages_map(server, browser, url_path, query, key, nouns):
    url, _ = server
    page = browser.new_page(viewport={"width": 1440, "height": 900})
    try:
        page.goto(f"{url}/{url_path}" + (f"?{query}" if query else ""))
        wait_idle(page)
        assert_no_exception(page, url_path)
        page.wait_for_function("(k) => window.__labMaps && window.__labMaps[k] && window.__labMaps[k].frame",
                               arg=key, timeout=300_000)
        live_run_ended(page)  # a live t-SNE (Words) draws its frames first; the keys are tried on the finished map
        wait_idle(page)
        page.evaluate("() => document.activeElement && document.activeElement.blur()")  # from the page's start
        _tab_to(page, key)
        page.keyboard.press("ArrowRight")
        label = _focused_label(page, key)
        assert label and label in _said(page, key), (label, _said(page, key))
        page.keyboard.press("Enter")  # inspects: the neighbour lists appear
        page.get_by_text(re.compile(r"its \d+ nearest neighbours")).first.wait_for(timeout=120_000)
        wait_idle(page)
        assert label in page.get_by_text(re.compile(r"its \d+ nearest neighbours")).first.inner_text()
        _tab_to(page, key, most=1)  # the map keeps the focus through the page's run
        page.keyboard.press("Space")
        page.wait_for_function("(k) => window.__labMaps[k].frame.selected.size === 1", arg=key, timeout=120_000)
        wait_idle(page)
        for _ in range(2):
            page.keyboard.press("Shift+ArrowRight")
            page.wait_for_timeout(200)
        page.wait_for_function("(k) => window.__labMaps[k].frame.selected.size === 3", arg=key, timeout=120_000)
        wait_idle(page)
        assert page.get_by_text(re.compile(rf"Selected: 3 {nouns}")).count() >= 1
        assert "3 points selected" in _said(page, key)
        page.keyboard.press("Escape")
        page.wait_for_function("(k) => window.__labMaps[k].frame.selected.size === 0", arg=key, timeout=120_000)
        wait_idle(page)
        assert page.get_by_text(re.compile(rf"Selected: \d+ {nouns}")).count() == 0
        assert_no_exception(page, f"{url_path}, after the keys")
    finally:
        page.close()
