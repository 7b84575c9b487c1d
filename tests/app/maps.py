"""The lab's map component in AppTest: what a map was sent, and selections made on it.

AppTest shows the component as an ``UnknownElement`` whose proto carries the data the
browser would get; :func:`lab_maps` decodes it (coordinates and colour arrays as numpy).
:func:`select_on_map` runs the page as if the person had drawn a box or a lasso over, or
clicked, some points: it sends the component's trigger, as the browser does, so the map's
``on_select`` callback runs, then the page.
"""

from __future__ import annotations

import base64
import json

import numpy as np
from streamlit.proto.WidgetStates_pb2 import WidgetStates
from streamlit.runtime.state.session_state import STREAMLIT_INTERNAL_KEY_PREFIX

COMPONENT = "embedding_lab.map"
BARS = "embedding_lab.bars"
HEATMAP = "embedding_lab.heatmap"
LINES = "embedding_lab.lines"
VIEW3D = "embedding_lab.view3d"


def _decode(value, dtype=np.float32):
    return np.frombuffer(base64.b64decode(_text(value)), dtype=np.dtype(dtype).newbyteorder("<"))


def _text(value):
    """The base64 text of a value a map was sent: itself, or a long array's (``{"blob": digest}``, sent whole in an
    earlier run; the app keeps the texts for the tests in :data:`app.ui.map.TEXT_OF`, as the browser would)."""
    if isinstance(value, dict):
        from app.ui import map as lab_map

        return value["b64"] if "b64" in value else lab_map.TEXT_OF[value["blob"]]
    return value


def _walk(node, name: str = COMPONENT):
    children = getattr(node, "children", None)
    if children:
        for child in children.values():
            yield from _walk(child, name)
    proto = getattr(node, "proto", None)
    if proto is not None and getattr(proto, "component_name", None) == name:
        yield node


def heatmaps(at) -> dict[str, dict]:
    """Every lab heatmap (app/ui/heatmap) the last run drew, by its key: the data sent, each panel's ``z``
    decoded to an n x n array."""
    out = {}
    for el in _walk(at._tree, HEATMAP):
        data = json.loads(el.proto.json)
        n = data["n"]
        for panel in data["panels"]:
            panel["z"] = _decode(panel["z"]).reshape(n, n)
        out[data["chartId"]] = data
    return out


def views3d(at) -> dict[str, dict]:
    """Every lab 3-D view (app/ui/view3d) the last run drew, by its key: the data sent, with the cloud decoded
    (``xyz`` n x 3, ``rgb`` n x 3, ``ids``) and ``segments`` as m x 6 (None without)."""
    out = {}
    for el in _walk(at._tree, VIEW3D):
        data = json.loads(el.proto.json)
        data["xyz"] = np.column_stack([_decode(data[c]) for c in "xyz"])
        data["rgb"] = np.frombuffer(base64.b64decode(data["rgb"]), dtype=np.uint8).reshape(-1, 3)
        data["ids"] = _decode(data["ids"], np.int32)
        data["segments"] = None if data["segments"] is None else _decode(data["segments"]).reshape(-1, 6)
        out[data["viewId"]] = data
    return out


def view3d_layer(at, layer: str) -> dict | None:
    """A layer of the page's one 3-D view as {"data": [{"i": id}, ...]}: "points" (the cloud), "graph" (one
    entry a segment), or a mark ("neighbours", "point", "selection"); None when it is not drawn."""
    views = views3d(at)
    assert len(views) == 1, "one 3-D view"
    view = next(iter(views.values()))
    if layer == "points":
        return {"data": [{"i": int(i)} for i in view["ids"]]}
    if layer == "graph":
        return None if view["segments"] is None else {"data": [{"i": k} for k in range(len(view["segments"]))]}
    found = next((m for m in view["marks"] if m["name"] == layer), None)
    return None if found is None else {"data": [{"i": i} for i in found["ids"]]}


def bar_charts(at) -> dict[str, dict]:
    """Every lab bar chart (app/ui/bars) the last run drew, by its key: the data sent (labels, values,
    text, colors, title, yTitle, logY)."""
    return {d["chartId"]: d for d in (json.loads(el.proto.json) for el in _walk(at._tree, BARS))}


def line_charts(at) -> dict[str, dict]:
    """Every lab line chart (app/ui/lines) the last run drew, by its key: the data sent (series with their x,
    y, name and text; titles, log axes, reference lines)."""
    return {d["chartId"]: d for d in (json.loads(el.proto.json) for el in _walk(at._tree, LINES))}


def _spread(some: dict, n: int) -> list[str]:
    """Text sent for some points (``index``, ``text``) as one entry per point ("" for the others)."""
    out = [""] * n
    for i, t in zip(_decode(some["index"], np.int32), some["text"]):
        out[int(i)] = t
    return out


def lab_maps(at) -> dict[str, dict]:
    """Every lab map the last run drew, by its key: the data sent, with ``xy`` (n x 2) decoded, and
    ``codes`` / ``values`` for the colour, ``proto_id`` for :func:`select_on_map`."""
    out = {}
    for el in _walk(at._tree):
        data = json.loads(el.proto.json)
        n = data["n"]
        data["xy"] = np.column_stack([_decode(data["x"]), _decode(data["y"])]) if n else np.zeros((0, 2))
        if isinstance(data.get("labels"), dict):  # past TEXT_POINTS: text for some points only, as the map spreads it
            data["text_rows"] = _decode(data["labels"]["index"], np.int32)
            data["labels"] = _spread(data["labels"], n)
        colour = data.get("color") or {}
        if colour.get("kind") == "category":
            data["codes"] = _decode(colour["codes"], np.int32)
        elif colour.get("kind") == "continuous":
            data["values"] = _decode(colour["values"])
        for layer in data.get("edges") or []:
            layer["pairs"] = _decode(layer["pairs"], np.int32).reshape(-1, 2)
        for field in (data.get("hover") or {}).get("fields") or []:
            if field.get("sameAs") == "color":  # the colour's numbers, not sent twice
                field["values"] = data["values"]
            elif field.get("sameAs") == "labels":  # the labels, not sent twice
                field["values"] = data["labels"]
            elif field.get("index") is not None:  # text for some points only
                field["values"] = _spread(field, n)
            elif field.get("codes") is not None:  # a few repeated values, sent as codes into their names
                field["values"] = [field["names"][c] for c in _decode(field["codes"], np.int32)]
            elif "numbers" in field:  # numbers sent as bytes: their values, as the tooltip reads them
                field["values"] = _decode(field["numbers"])
        data["proto_id"] = el.proto.id
        out[data["mapId"]] = data
    return out


def lab_map(at, key: str) -> dict:
    found = lab_maps(at)
    assert key in found, f"no map {key}; maps: {sorted(found)}"
    return found[key]


def select_on_map(at, key: str, indices, *, kind: str = "box", timeout: float = 120):
    """Run the page as if the person had made a ``kind`` selection (box, lasso, click, clear) of the
    points ``indices`` on the map drawn under ``key``."""
    return send_event(at, key, "select", {"kind": kind, "indices": [int(i) for i in indices]}, timeout=timeout)


def send_event(at, key: str, event: str, value, *, timeout: float = 120):
    """Run the page as if the map drawn under ``key`` had sent the trigger ``event`` with ``value``."""
    proto_id = lab_map(at, key)["proto_id"]
    trigger = f"{STREAMLIT_INTERNAL_KEY_PREFIX}_{proto_id}__events"
    states = at._tree.get_widget_states()
    kept = WidgetStates()
    for w in states.widgets:
        if w.id != trigger:
            kept.widgets.append(w)
    w = kept.widgets.add()
    w.id = trigger
    w.json_trigger_value = json.dumps([{"event": event, "value": value}])
    return at._tree._runner._run(kept, timeout=timeout)


def sent(at, key: str) -> dict:
    """What the last run sent the map ``key``, as sent (long arrays whole or by digest, nothing decoded)."""
    found = [json.loads(el.proto.json) for el in _walk(at._tree)]
    return next(d for d in found if d["mapId"] == key)


def click_on_map(at, key: str, index: int, timeout: float = 120):
    return select_on_map(at, key, [index], kind="click", timeout=timeout)


def settle(at, slot: str = "maps.map_job", timeout: float = 300):
    """Run ``at`` again until no live t-SNE (the session's job under ``slot``) runs: each time wait for the run to
    end (the event the page waits for too), then run the page as the fragment's rerun would."""
    job = at.session_state[slot] if slot in at.session_state else None
    while job is not None and not job.ended.is_set():
        assert job.wait(timeout), "t-SNE did not end"
        at.run(timeout=timeout)
        job = at.session_state[slot] if slot in at.session_state else None
    return at
