"""Presentation mode sizes the page's main chart for a projector and leaves the others as designed."""

from __future__ import annotations

from app.ui import layout
from tests.app.maps import bar_charts, line_charts
from tests.conftest import open_page


def _heights(at) -> dict:
    """The Graphs page's first-screen charts' heights by their keys, as sent to the browser."""
    charts = {**bar_charts(at), **line_charts(at)}
    return {k: charts[k]["height"] for k in ("graphs.chart.vector", "graphs.chart.sweep")}


def test_the_main_chart_takes_the_screen_in_presentation_mode():
    at = open_page("app_pages/graphs.py")
    before = _heights(at)
    assert before["graphs.chart.vector"] < layout.PRESENT_HEIGHT
    at.session_state[layout.PRESENT] = True
    at.run()
    assert not at.exception
    after = _heights(at)
    # the Fiedler vector, named with the cut graph as the main picture, grows; the sweep under it does not
    assert after["graphs.chart.vector"] == layout.PRESENT_HEIGHT
    assert after["graphs.chart.sweep"] == before["graphs.chart.sweep"]


def test_the_style_sheet_is_read_whatever_the_process_locale():
    """The process's locale can change under the app (in one test worker it became ASCII mid-run, and every page
    failed reading its style sheet); the sheet holds non-ASCII characters and is read as UTF-8 all the same."""
    import locale

    before = locale.setlocale(locale.LC_CTYPE)
    try:
        locale.setlocale(locale.LC_CTYPE, "C")
        assert "<style>" in layout.page_css()
    finally:
        locale.setlocale(locale.LC_CTYPE, before)
