"""Presentation mode sizes the page's main chart for a projector and leaves the others as designed."""

from __future__ import annotations

import json

from app.ui import layout
from tests.conftest import open_page


def _heights(at) -> dict:
    """Each Plotly chart's height by its key, as sent to the browser."""
    out = {}
    for el in at.get("plotly_chart"):
        key = next((k for k in ("graphs.chart.vector", "graphs.chart.sweep") if k in el.proto.id), None)
        if key:
            out[key] = json.loads(el.proto.spec)["layout"].get("height")
    return out


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
