"""Ready for a lecture, in Chromium: every topic page's first screen at 1440x900 holds its chart under little
prose with a sidebar that fits the window, presentation mode and a phone's width behave, and every step of
every tour opens, sets its controls and can be opened again from its link.

Screenshots are saved under tests/.artifacts/lecture/ (first screens, presentation, phone, every tour step).
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import pytest

from app.pages import PAGES
from app.services.tours import TOURS
from app.ui.tour import step_link
from tests.conftest import ARTIFACTS
from tests.e2e.test_browser import assert_no_exception, browser, server, wait_idle  # noqa: F401  (fixtures)

TOPIC_PAGES = [p for p in PAGES if p.section != "Lab"]
SHOTS = ARTIFACTS / "lecture"

#: What the first screen shows, measured in the page: the top of the first chart or map drawn (Plotly, the lab's
#: map in its shadow root, the 3-D view) and the height of the tallest chart that starts on the screen, the words
#: of visible prose above the fold (headings, paragraphs and captions; not labels, figures, tabs or formulas), the
#: sidebar's content height, the body text's size, whether the sidebar is open, and the page's scroll width.
MEASURE = """() => {
  const vh = window.innerHeight;
  const main = document.querySelector('[data-testid="stMain"]');
  const deep = (root, sel, out = []) => {
    out.push(...root.querySelectorAll(sel));
    for (const e of root.querySelectorAll('*')) if (e.shadowRoot) deep(e.shadowRoot, sel, out);
    return out;
  };
  const charts = deep(main, '.stPlotlyChart, canvas, [data-testid="stDeckGlJsonChart"]')
    .map(e => e.getBoundingClientRect()).filter(r => r.width > 50 && r.height > 50);
  let words = 0;
  const walker = document.createTreeWalker(main, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const el = walker.currentNode.parentElement;
    if (!el || el.closest('.stPlotlyChart, .katex, button, [role="tab"], [data-testid="stMetric"], '
        + '[data-testid="stWidgetLabel"], [data-baseweb], svg, details:not([open]) > :not(summary)')) continue;
    const r = el.getBoundingClientRect();
    if (r.height === 0 || r.bottom <= 0 || r.top >= vh) continue;
    const style = getComputedStyle(el);
    if (style.visibility === 'hidden' || style.display === 'none') continue;
    words += (walker.currentNode.textContent.match(/[A-Za-z][A-Za-z'-]*/g) || []).length;
  }
  const bar = document.querySelector('[data-testid="stSidebar"]');
  const content = document.querySelector('[data-testid="stSidebarContent"]');
  const p = main.querySelector('[data-testid="stMarkdownContainer"] p');
  const rect = bar ? bar.getBoundingClientRect() : null;
  return {
    top: charts.length ? Math.min(...charts.map(r => r.top)) : null,
    mainHeight: Math.max(0, ...charts.filter(r => r.top < vh).map(r => r.height)),
    height: vh,
    words,
    sidebarContent: content ? content.scrollHeight : null,
    sidebarOpen: !!rect && rect.width > 10 && rect.right > 10,
    bodyPx: p ? parseFloat(getComputedStyle(p).fontSize) : null,
    scrollWidth: document.documentElement.scrollWidth,
    width: window.innerWidth,
  };
}"""


def _open(browser, url: str, width: int = 1440, height: int = 900):
    page = browser.new_page(viewport={"width": width, "height": height})
    page.goto(url)
    wait_idle(page)
    return page


def _measure(page, with_chart: bool = True) -> dict:
    """The first screen once its first chart is drawn (maps draw a moment after the script is idle)."""
    if with_chart:
        page.wait_for_function(f"({MEASURE})().top !== null", timeout=60_000)
    # a map the run sends last can be drawn a moment after the first chart: measured once the first screen has
    # held still (three equal readings 0.4 s apart, at most 20 s)
    last, same = None, 0
    for _ in range(50):
        page.wait_for_timeout(400)
        m = page.evaluate(MEASURE)
        same = same + 1 if m == last else 0
        last = m
        if same >= 2:
            break
    return last


@pytest.mark.parametrize("spec", TOPIC_PAGES, ids=[p.url for p in TOPIC_PAGES])
def test_first_screen_is_the_instrument(server, browser, spec):
    url, _ = server
    page = _open(browser, f"{url}/{spec.url}")
    try:
        assert_no_exception(page, spec.url)
        m = _measure(page)
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"first-screen-{spec.url}.png"))
        print(f"\n{spec.url}: chart top {m['top']:.0f} px, {m['words']} words above the fold, "
              f"sidebar {m['sidebarContent']} px")
        assert m["top"] < 700, f"{spec.url}: the first chart starts at {m['top']:.0f} px"
        assert m["words"] <= 120, f"{spec.url}: {m['words']} words of prose above the fold"
        assert m["sidebarOpen"] and m["sidebarContent"] <= 900, f"{spec.url}: sidebar {m['sidebarContent']} px"
        # a formula on the first screen is whole, not cut at its column's edge (wider ones scroll in their box)
        cut = page.evaluate("""() => [...document.querySelectorAll('[data-testid="stMain"] .katex-display')]
          .filter(e => { const r = e.getBoundingClientRect(); return r.height > 0 && r.top < innerHeight; })
          .filter(e => e.scrollWidth > e.clientWidth + 1).map(e => [e.clientWidth, e.scrollWidth])""")
        assert not cut, f"{spec.url}: formulas on the first screen wider than their column: {cut}"
    finally:
        page.close()


@pytest.mark.parametrize("spec", TOPIC_PAGES, ids=[p.url for p in TOPIC_PAGES])
def test_presentation_mode(server, browser, spec):
    url, _ = server
    page = _open(browser, f"{url}/{spec.url}?present=1")
    try:
        assert_no_exception(page, spec.url)
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        try:  # a map takes its height when the browser draws it, a moment after the script is idle
            page.wait_for_function(f"({MEASURE})().mainHeight >= 0.55 * innerHeight", timeout=30_000)
        except PlaywrightTimeout:
            pass  # measured and reported below
        m = _measure(page)
        page.screenshot(path=str(SHOTS / f"presentation-{spec.url}.png"))
        assert not m["sidebarOpen"], f"{spec.url}: the sidebar is open in presentation mode"
        # the main chart takes most of the screen: at least 55% of the window's height
        print(f"\n{spec.url}: main chart {m['mainHeight']:.0f} px of {m['height']} (top {m['top']:.0f} px)")
        assert m["mainHeight"] >= 0.55 * m["height"], f"{spec.url}: main chart {m['mainHeight']:.0f} px"
        assert m["bodyPx"] >= 20, f"{spec.url}: body text {m['bodyPx']} px"
        assert "present=1" in page.url  # the mode stays in the address, so a shared link opens in it
    finally:
        page.close()


@pytest.mark.parametrize("spec", TOPIC_PAGES, ids=[p.url for p in TOPIC_PAGES])
def test_phone_width(server, browser, spec):
    url, _ = server
    page = _open(browser, f"{url}/{spec.url}", 390, 844)
    try:
        assert_no_exception(page, spec.url)
        m = _measure(page, with_chart=False)
        page.screenshot(path=str(SHOTS / f"phone-{spec.url}.png"))
        assert not m["sidebarOpen"], f"{spec.url}: the sidebar covers the page at 390 px"
        assert m["scrollWidth"] <= m["width"], f"{spec.url}: the page scrolls sideways ({m['scrollWidth']} px)"
        # the first Plotly chart's toolbar, shown on hover (a tap on a phone), stays clear of its title
        chart = page.locator(".stPlotlyChart:has(.gtitle)").first
        if chart.count():
            chart.scroll_into_view_if_needed()
            chart.hover()
            page.wait_for_selector(".stPlotlyChart .modebar", timeout=10_000)
            bar, title = page.evaluate(TOOLBAR_AND_TITLE)
            assert bar["bottom"] <= title["top"], f"{spec.url}: the chart toolbar {bar} covers its title {title}"
    finally:
        page.close()


#: The first titled Plotly chart's toolbar (its modebar) and title, as rectangles.
TOOLBAR_AND_TITLE = """() => {
  const chart = [...document.querySelectorAll('.stPlotlyChart')].find(c => c.querySelector('.gtitle'));
  const box = e => { const r = e.getBoundingClientRect(); return {top: r.top, bottom: r.bottom}; };
  return [box(chart.querySelector('.modebar')), box(chart.querySelector('.gtitle'))];
}"""


def _panel(page, prefix: str):
    return page.locator(f'.st-key-lab_tour_{prefix.replace(".", "_")}')


def _on_step(page, spec, index: int) -> None:
    """The tour panel shows step ``index``, its controls hold the step's settings, and the URL names them."""
    steps = TOURS[spec.key]
    step = steps[index - 1]
    panel = _panel(page, spec.key)
    page.wait_for_function(
        "([sel, text]) => { const e = document.querySelector(sel); return e && e.innerText.includes(text); }",
        arg=[f'.st-key-lab_tour_{spec.key.replace(".", "_")}', f"Tour {index}/{len(steps)}: {step.title}"],
        timeout=120_000)
    wait_idle(page)
    assert_no_exception(page, f"{spec.url} step {index}")
    # the page says when its controls differ from the step's settings: they must not
    assert "You have changed a setting" not in panel.inner_text(), f"{spec.url} step {index}"
    params = parse_qs(urlparse(page.url).query)
    assert params.get(f"{spec.key}.tour") == [str(index)], page.url
    # a control an earlier step moved and this one does not name is back at its default, in the browser too
    # (a value the browser still showed would come back at its next run): so it is not in the address
    others = {k for s in steps for k in s.settings} - set(step.settings) - {f"{spec.key}.tab"}
    assert not others & set(params), f"{spec.url} step {index}: {sorted(others & set(params))} in {page.url}"
    # a setting of the link the page could not take would be named above the page
    assert page.locator('[data-testid="stAlert"]', has_text="is not possible here").count() == 0
    # Previous and Next are whole words ("Previ…" in two columns of the narrow panel)
    cut = page.evaluate("""(sel) => [...document.querySelectorAll(sel + ' button')].filter((b) =>
        [...b.querySelectorAll('*')].some((e) => e.scrollWidth > e.clientWidth + 1)).map((b) => b.innerText)""",
                        f'.st-key-lab_tour_{spec.key.replace(".", "_")}')
    assert not cut, f"{spec.url} step {index}: buttons cut short: {cut}"


@pytest.mark.parametrize("spec", TOPIC_PAGES, ids=[p.url for p in TOPIC_PAGES])
def test_every_tour_step_in_the_browser(server, browser, spec):
    url, _ = server
    steps = TOURS[spec.key]
    page = _open(browser, f"{url}/{spec.url}")
    try:
        _panel(page, spec.key).get_by_role("button", name="Start the tour").click()
        for index in range(1, len(steps) + 1):
            if index > 1:
                _panel(page, spec.key).get_by_role("button", name="Next").click()
            _on_step(page, spec, index)
            page.screenshot(path=str(SHOTS / f"tour-{spec.url}-{index}.png"))
        # a step's link, opened afresh, restores that step (every step's link: tests/app/test_tours.py)
        fresh = _open(browser, f"{url}/{spec.url}{step_link(spec.key, len(steps))}")
        try:
            _on_step(fresh, spec, len(steps))
        finally:
            fresh.close()
    finally:
        page.close()


def _slider_value(page, label: str) -> str:
    return page.locator('[data-testid="stSlider"]', has_text=label).locator(
        '[data-testid="stSliderThumbValue"]').inner_text().strip()


def test_reset_in_the_browser(server, browser):
    """Reset puts the control the person sees back, and the browser does not send the old value at the next run."""
    url, _ = server
    page = _open(browser, f"{url}/manifolds{step_link('man', 1)}")  # B = 5
    try:
        _on_step(page, next(p for p in TOPIC_PAGES if p.key == "man"), 1)
        assert _slider_value(page, "B: neighbours") == "5"
        page.locator('[data-testid="stSidebar"]').get_by_role("button", name="Reset").click()
        page.wait_for_function("() => !location.search.includes('man.')", timeout=60_000)
        wait_idle(page)
        assert _slider_value(page, "B: neighbours") == "12"
        page.get_by_text("Draw the neighbourhood graph").click()  # another run: B must stay at 12
        page.wait_for_function("() => location.search.includes('man.graph')", timeout=60_000)
        wait_idle(page)
        assert _slider_value(page, "B: neighbours") == "12" and "man.B" not in page.url
    finally:
        page.close()


#: Where a tour step's figure is at a projector's size: the first chart of the tab the step opens (else of the page)
#: with the charts beside it in its row, as one rectangle; the bottom of the tour's sticky bar; the type of every
#: map drawn (its canvas labels and ticks, its legend, its title).
PROJECTOR = """(tab) => {
  const deep = (root, sel, out = []) => {
    out.push(...root.querySelectorAll(sel));
    for (const e of root.querySelectorAll('*')) if (e.shadowRoot) deep(e.shadowRoot, sel, out);
    return out;
  };
  const main = document.querySelector('[data-testid="stMain"]');
  let root = main;
  if (tab) {
    const t = [...main.querySelectorAll('[role="tab"]')].find(e => e.innerText.trim() === tab);
    if (!t || t.getAttribute('aria-selected') !== 'true') return {error: `tab ${tab} is not open`};
    root = document.getElementById(t.getAttribute('aria-controls'));
  }
  const figs = [];
  for (const e of deep(root, '.stPlotlyChart, canvas')) {
    const r = e.getBoundingClientRect();
    if (r.width < 50 || r.height < 50 || e.closest('[data-testid="stDataFrame"]')) continue;
    const host = (e.getRootNode && e.getRootNode().host) || e;
    if (!figs.includes(host)) figs.push(host);
  }
  if (!figs.length) return {error: 'no chart'};
  figs.sort((a, b) => a.getBoundingClientRect().top - b.getBoundingClientRect().top);
  const first = figs[0].getBoundingClientRect();
  const rs = figs.map(f => f.getBoundingClientRect()).filter(r => r.top < first.bottom && r.bottom > first.top);
  const bar = main.querySelector('[class*="st-key-lab_tour_"]').getBoundingClientRect();
  const maps = Object.values(window.__labMaps || {}).filter(m => m.box && m.box.isConnected).map(m => {
    const s = m.state();
    return {font: parseFloat(s.font), legend: s.legendFont, title: s.titleFont};
  });
  return {top: Math.min(...rs.map(r => r.top)), bottom: Math.max(...rs.map(r => r.bottom)),
          left: Math.min(...rs.map(r => r.left)), right: Math.max(...rs.map(r => r.right)),
          bar: [bar.top, bar.bottom], height: innerHeight, width: innerWidth, maps};
}"""


def _figure_in_view(page, where: str, tab: str | None) -> dict:
    """The step's figure once it is whole under the tour's bar (waited for up to 30 s while it draws and the page
    scrolls it into view); fails with what it measured otherwise."""
    m = None
    for _ in range(100):
        m = page.evaluate(PROJECTOR, tab)
        if "error" not in m and m["top"] >= m["bar"][1] - 1 and m["bottom"] <= m["height"] + 1:
            page.wait_for_timeout(300)
            again = page.evaluate(PROJECTOR, tab)
            if again == m:
                return m
        page.wait_for_timeout(300)
    raise AssertionError(f"{where}: the figure is not whole under the tour bar at 1280 x 720: {m}")


@pytest.mark.parametrize("spec", TOPIC_PAGES, ids=[p.url for p in TOPIC_PAGES])
def test_projector_layout_keeps_every_steps_figure_in_view(server, browser, spec):
    """At a projector's 1280 x 720 in presentation mode: the page's main picture, and then each tour step's figure
    reached by Next (and by Previous), is whole inside the window under the tour's bar, and the maps' type is at
    least 18 px."""
    url, _ = server
    steps = TOURS[spec.key]
    page = _open(browser, f"{url}/{spec.url}?present=1", 1280, 720)
    try:
        assert_no_exception(page, spec.url)
        _figure_in_view(page, f"{spec.url} first screen", None)
        page.screenshot(path=str(SHOTS / f"projector-{spec.url}.png"))
        _panel(page, spec.key).get_by_role("button", name="Start the tour").click()
        for index in range(1, len(steps) + 1):
            if index > 1:
                _panel(page, spec.key).get_by_role("button", name="Next").click()
            _on_step(page, spec, index)
            tab = next((str(v) for k, v in steps[index - 1].settings.items() if k.endswith(".tab")), None)
            m = _figure_in_view(page, f"{spec.url} step {index}", tab)
            assert m["left"] >= 0 and m["right"] <= m["width"] + 1, f"{spec.url} step {index}: {m}"
            for drawn in m["maps"]:
                assert min(drawn.values()) >= 18, f"{spec.url} step {index}: map type {drawn}"
            page.screenshot(path=str(SHOTS / f"projector-{spec.url}-{index}.png"))
        _panel(page, spec.key).get_by_role("button", name="Previous").click()
        _on_step(page, spec, len(steps) - 1)
        tab = next((str(v) for k, v in steps[-2].settings.items() if k.endswith(".tab")), None)
        _figure_in_view(page, f"{spec.url} back to step {len(steps) - 1}", tab)
    finally:
        page.close()
