"""Plotly selection events in AppTest, sent the way the browser sends them.

AppTest has no element for a selectable Plotly chart (it is an ``UnknownElement``),
so it cannot set its value. :func:`select_on_chart` adds the chart's widget state
to the next run's widget states, as the browser does after a box, a lasso or a
click: the chart's ``on_select`` callback runs, then the page.
"""

from __future__ import annotations

import base64
import json

import numpy as np
from streamlit.proto.WidgetStates_pb2 import WidgetStates


def chart(at, key: str):
    """The Plotly chart drawn under ``key`` (its element id ends with the key)."""
    found = [el for el in at.get("plotly_chart") if el.proto.id and el.proto.id.endswith(key)]
    assert found, f"no chart {key}; charts: {[el.proto.id[-40:] for el in at.get('plotly_chart')]}"
    return found[0]


def selection_event(indices, *, box: bool = True) -> dict:
    """The event a box (or, with ``box=False``, a click) over points carrying ``indices`` as customdata makes."""
    points = [{"curve_number": 0, "point_number": i, "point_index": i, "x": 0.0, "y": 0.0, "customdata": i}
              for i in indices]
    return {"selection": {"points": points, "point_indices": list(indices),
                          "box": [{"xref": "x", "yref": "y", "x": [0, 1], "y": [0, 1]}] if box else [],
                          "lasso": []}}


def select_on_chart(at, key: str, indices, *, box: bool = True, timeout: float = 120):
    """Run the page as if the person had dragged a box over (or clicked) the points ``indices`` of a chart."""
    element = chart(at, key)
    states = at._tree.get_widget_states()
    kept = WidgetStates()
    for w in states.widgets:
        if w.id != element.proto.id:
            kept.widgets.append(w)
    w = kept.widgets.add()
    w.id = element.proto.id
    w.string_value = json.dumps(selection_event(indices, box=box))
    return at._tree._runner._run(kept, timeout=timeout)


def click_on_chart(at, key: str, index: int, timeout: float = 120):
    """Run the page as if the person had clicked the point ``index`` of a chart."""
    return select_on_chart(at, key, [index], box=False, timeout=timeout)


def event_indices_of(trace: dict) -> list[int]:
    """A trace's customdata as a list of ints (Plotly sends numpy arrays as typed binary)."""
    value = trace.get("customdata")
    if isinstance(value, dict) and "bdata" in value:
        return np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"])).tolist()
    return [int(v) for v in value]
