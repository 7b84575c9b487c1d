"""Walking every view of a page in Chromium (the page, then each of its tabs, nested ones too), and the checks
of text that does not fit, shared by the browser tests that visit every page."""

from __future__ import annotations

from tests.e2e.test_browser import assert_no_exception, wait_idle

#: The tabs shown in the main area: their text, their group (the labels of the tab list they are in) and
#: whether they are open.
TABS = """() => [...document.querySelectorAll('[data-testid="stMain"] [role="tab"]')]
  .filter((t) => t.offsetParent !== null)
  .map((t) => ({text: t.innerText.trim(), open: t.getAttribute('aria-selected') === 'true',
                group: [...t.closest('[role="tablist"]').querySelectorAll('[role="tab"]')].map((s) => s.innerText.trim()).join(' | ')}))"""


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


def views(page, url: str, spec, query: str = "", settled=None):
    """Open ``spec``'s page (of the app at ``url``, with URL ``query`` parameters), then each of its tabs in turn
    (nested ones as they appear), waiting for the app after each and then for ``settled(page)`` (default
    :func:`settle`); yields where the page is each time ("first view", or the open tabs, outer first)."""
    settled = settled or settle
    page.goto(f"{url}/{'' if spec.default else spec.url}" + (f"?{query}" if query else ""))
    wait_idle(page)
    assert_no_exception(page, spec.url)
    settled(page)
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
        settled(page)
        yield where


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
#: The most a page may measure, top to bottom, at 1440 x 900: two screens and a half. Legends, lists and tables are
#: capped or scroll inside their own box, so a long upload does not make a page endless.
TALLEST = 6000
#: How tall the main area's content is, in CSS pixels (it scrolls inside its own container).
HEIGHT = """() => Math.max(...[...document.querySelectorAll('[data-testid="stMain"], [data-testid="stMainBlockContainer"]')]
  .map((e) => e.scrollHeight))"""


def too_tall(page, where: str) -> list[str]:
    """The page as it is, if it is taller than :data:`TALLEST`."""
    height = page.evaluate(HEIGHT)
    return [f"{where}: the page is {height:,} px tall (at most {TALLEST:,})"] if height > TALLEST else []


CLOSED = '[data-testid="stMain"] [data-testid="stExpander"] details:not([open]) > summary'
def charts_drawn(page) -> None:
    """Every Plotly chart has its data (a title is laid out with it); lab maps need not hold still here."""
    page.wait_for_function("""() => [...document.querySelectorAll('.js-plotly-plot')].every((gd) => gd._fullData)""",
                           timeout=60_000)


def open_expanders(page) -> None:
    """Open every closed expander in the main area (one at a time: a keyed one reruns the page)."""
    for _ in range(30):
        closed = [s for s in page.locator(CLOSED).all() if s.is_visible()]
        if not closed:
            return
        closed[0].click()
        page.wait_for_timeout(200)
        wait_idle(page)


def cut_off(page, where: str) -> list[str]:
    """What does not fit on the page as it is: display formulas wider than their column, clipped chart titles."""
    return ([f"{where}: a formula {f['wide']} px wide in a {f['box']} px box: {f['text']!r}"
             for f in page.evaluate(TOO_WIDE)]
            + [f"{where}: a chart's title clipped: {x!r}" for x in page.evaluate(CLIPPED)])
