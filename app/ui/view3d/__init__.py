"""The lab's 3-D view: points in space that a drag turns, drawn by :func:`draw`.

The Manifolds page shows its input in 3-D beside the LLE map, the inspected point and its B
neighbours marked, and redraws it at every B. deck.gl rebuilt its WebGL scene for each new
specification, 45-60 ms of the browser's time per change without a GPU. This component
(Components v2, no iframe; ``view3d.js`` on top of the pure ``logic.js``, both in this folder, sent
inline, no build step) projects the points orthographically on a plain canvas, farthest first,
with marks over them (always visible) and segments under them; a drag turns the view about the
vertical axis and tips it, the wheel zooms, a double-click resets, and the tooltip names the point.
The keys do the same (the arrows turn and tip it, + and - zoom, Home resets), a screen reader is told how
many points there are, how far they reach and which are marked, and T shows them as a table.
The view keeps its angle when the page sends new marks. Coordinates travel as base64 float32.
"""

from __future__ import annotations

import base64
from pathlib import Path

import numpy as np

from app.ui import canvas
from app.ui.layout import main_height

HERE = Path(__file__).parent


_COMPONENT = canvas.component("embedding_lab.view3d", HERE, "view3d.js", "view3d.css")


def _b64(values, dtype) -> str:
    return base64.b64encode(np.ascontiguousarray(values, dtype=np.dtype(dtype).newbyteorder("<")).tobytes()).decode()


def mark(ids, P, *, name: str, color: str, size: float, outline: bool = False) -> dict:
    """Points drawn over the cloud: their ids (for the tooltip), their coordinates ``P`` (len(ids) x 3, as
    given to :func:`draw`), a CSS colour and a radius in pixels; ``outline`` draws a ring instead of a disc."""
    P = np.asarray(P, dtype=np.float64).reshape(-1, 3)
    return {"name": name, "ids": [int(i) for i in ids], "xyz": [round(float(v), 5) for v in P.ravel()],
            "color": color, "size": float(size), "outline": bool(outline)}


def draw(where, P, rgb, *, key: str, ids=None, marks=(), segments=None, height: int = 440, yaw: float = 30.0,
         pitch: float = 20.0, radius: float = 2.2, title: str = "") -> dict:
    """The points ``P`` (n x 3) coloured ``rgb`` (n x 3 bytes) in ``where`` (None: here). ``ids`` name the points in
    the tooltip (default: row numbers); ``marks`` (:func:`mark`) are drawn over them, ``segments`` (m x 6: two
    ends a row) under them; ``yaw`` and ``pitch`` (degrees) are the first view's angles; ``title`` is the view's
    name for a screen reader (default: how many points it holds and what is marked). Returns the data sent."""
    P = np.asarray(P, dtype=np.float64).reshape(-1, 3)
    ids = np.arange(len(P)) if ids is None else np.asarray(ids)
    extent = float(np.linalg.norm(np.ptp(P, axis=0))) if len(P) else 1.0
    cloud = {"x": _b64(P[:, 0], np.float32), "y": _b64(P[:, 1], np.float32), "z": _b64(P[:, 2], np.float32),
             "rgb": _b64(np.asarray(rgb).reshape(-1, 3), np.uint8), "ids": _b64(ids, np.int32)}
    data = {
        "viewId": key, **cloud, "cloudSig": canvas.signature(cloud),
        "extent": extent or 1.0, "marks": list(marks), "radius": float(radius),
        "segments": None if segments is None else _b64(np.asarray(segments).reshape(-1), np.float32),
        "height": main_height(key, int(height)), "yaw": float(np.radians(yaw)), "pitch": float(np.radians(pitch)),
        "title": str(title),
    }
    data["sig"] = canvas.signature(data)
    canvas.mount(_COMPONENT, where, key=key, data=data)
    return data
