"""In Chromium: change several controls on a page, copy the link from the share panel, open it in a new
browser context (a new session) and find the same control values and the same chart data."""

from __future__ import annotations

import json
import time

import pytest

from app.pages import PAGES
from tests.e2e.test_browser import assert_no_exception, browser, server, wait_idle  # noqa: F401 (fixtures)

#: How many sliders each page moves (the first ones found, sidebar first).
MOVES = 3

#: Every slider's label and value, every checkbox's and radio's state, every select box's shown value.
CONTROLS_JS = """() => {
  const out = {};
  const label = (el) => {
    const l = el.querySelector('[data-testid="stWidgetLabel"]');
    return l ? l.innerText.trim() : '?';
  };
  for (const s of document.querySelectorAll('[data-testid="stSlider"]')) {
    const t = s.querySelector('[role="slider"], input[type="range"]');
    if (t) out['slider ' + label(s)] = t.getAttribute('aria-valuenow') ?? t.value;
  }
  for (const c of document.querySelectorAll('[data-testid="stCheckbox"] input')) {
    out['checkbox ' + (c.getAttribute('aria-label') || c.closest('label').innerText.trim())] = c.checked;
  }
  for (const r of document.querySelectorAll('[data-testid="stRadio"]')) {
    const on = r.querySelector('input:checked');
    out['radio ' + label(r)] = on ? on.value : null;
  }
  for (const s of document.querySelectorAll('[data-testid="stSelectbox"]')) {
    const i = s.querySelector('input');
    out['select ' + label(s)] = i ? (i.value || i.getAttribute('aria-label') || '') : '';
  }
  return out;
}"""

#: The data of every Plotly chart on the page (first 300 values of each trace's x, y and z), and the signature of
#: every lab bar and line chart's data by its key.
CHARTS_JS = """() => [Array.from(document.querySelectorAll('.js-plotly-plot')).map((p) =>
  (p._fullData || []).map((t) => ['x', 'y', 'z'].map((k) => t[k] ? Array.from(t[k]).slice(0, 300) : null))),
  Object.entries(window.__labCharts || {}).filter(([, c]) => c.box && c.box.isConnected)
    .map(([k, c]) => [k, c.data && c.data.sig]).sort()]"""
#: True once as many Plotly charts and lab charts as expected have been drawn.
DRAWN_JS = """([n, m]) => Array.from(document.querySelectorAll('.js-plotly-plot')).filter((p) => p._fullData).length >= n
  && Object.values(window.__labCharts || {}).filter((c) => c.box && c.box.isConnected && c.data).length >= m"""


def _link(page) -> str:
    """The link the share panel's copy button gives (the panel is opened if it is closed)."""
    panel = page.locator('[data-testid="stSidebar"] [data-testid="stExpander"]', has_text="Share and reproduce")
    button = panel.get_by_role("button", name="Copy link to this view")
    if not button.is_visible():
        panel.locator("summary").first.click()
    button.click()
    field = panel.locator("input.lab-link")
    field.wait_for(state="visible")
    return field.input_value()


def _move_sliders(page) -> list[str]:
    moved = []
    try:
        page.wait_for_selector('[data-testid="stSlider"] [role="slider"], [data-testid="stSlider"] input',
                               state="visible", timeout=15_000)
    except Exception:  # noqa: BLE001  (a page without sliders: nothing to move)
        return moved
    for scope in ('[data-testid="stSidebar"]', '[data-testid="stMain"]'):
        sliders = page.locator(f'{scope} [data-testid="stSlider"]')
        for i in range(sliders.count()):
            if len(moved) >= MOVES:
                return moved
            s = sliders.nth(i)
            thumb = s.locator('[role="slider"], input[type="range"]').first
            if not s.is_visible() or thumb.get_attribute("aria-disabled") == "true" or thumb.is_disabled():
                continue
            now, top = thumb.evaluate("(e) => [e.getAttribute('aria-valuenow') ?? e.value, "
                                      "e.getAttribute('aria-valuemax') ?? e.max]")
            address = page.evaluate("window.location.href")
            thumb.focus()
            page.keyboard.press("ArrowRight" if now != top else "ArrowLeft")
            # the setting reaches the address with the rerun it starts (a section's own, for a fragment)
            page.wait_for_function("(a) => window.location.href !== a", arg=address, timeout=30_000)
            wait_idle(page)
            moved.append(s.locator('[data-testid="stWidgetLabel"]').first.inner_text().strip())
    return moved


def _choose_radio(page) -> list[str]:
    """On a page whose first view has no enabled slider: pick another option of the first radio in the main area
    (its second option, or its first when the second is the one chosen: clicking the chosen one changes nothing)."""
    radios = page.locator('[data-testid="stMain"] [data-testid="stRadio"]')
    for i in range(radios.count()):
        r = radios.nth(i)
        options = r.locator('[data-testid="stRadioOption"]')
        if not r.is_visible() or options.count() < 2:
            continue
        address = page.evaluate("window.location.href")
        other = options.nth(1)
        if other.locator("input").is_checked():
            other = options.nth(0)
        other.click()
        page.wait_for_function("(a) => window.location.href !== a", arg=address, timeout=30_000)
        wait_idle(page)
        return [r.locator('[data-testid="stWidgetLabel"]').first.inner_text().strip()]
    return []


def _controls_once_drawn(page, expected: dict, timeout_s: float = 20.0) -> dict:
    """The page's controls once they read ``expected``, or as they are when the time is up: a widget can be
    drawn a moment after the app first reports itself idle."""
    deadline = time.monotonic() + timeout_s
    while True:
        got = page.evaluate(CONTROLS_JS)
        if got == expected or time.monotonic() > deadline:
            return got
        page.wait_for_timeout(200)


@pytest.mark.parametrize("spec", [p for p in PAGES if not p.default], ids=lambda p: p.url)
def test_a_copied_link_restores_controls_and_charts(server, browser, spec):  # noqa: F811 (fixtures)
    url, _ = server
    first = browser.new_context(viewport={"width": 1440, "height": 1000})
    second = browser.new_context(viewport={"width": 1440, "height": 1000})
    try:
        page = first.new_page()
        page.goto(f"{url}/{spec.url}")
        wait_idle(page)
        moved = _move_sliders(page) or _choose_radio(page)
        assert moved or spec.url == "data", f"{spec.url}: no slider or radio to change"
        link = _link(page)
        assert link.startswith(url) and (not moved or "?" in link), link
        page.wait_for_timeout(500)  # charts draw just after the script goes idle
        controls, charts = page.evaluate(CONTROLS_JS), page.evaluate(CHARTS_JS)

        other = second.new_page()
        other.goto(link)
        wait_idle(other)
        other.wait_for_function(DRAWN_JS, arg=[len(charts[0]), len(charts[1])], timeout=60_000)
        assert_no_exception(other, spec.url)
        assert not other.locator('[data-testid="stAlert"]', has_text="is not possible here").count()
        assert _controls_once_drawn(other, controls) == controls
        assert json.dumps(other.evaluate(CHARTS_JS)) == json.dumps(charts), f"{spec.url}: the charts differ"
    finally:
        first.close()
        second.close()
