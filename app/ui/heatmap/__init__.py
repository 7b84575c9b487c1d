"""The lab's heatmap: square matrices over the same rows, side by side, drawn by :func:`draw`.

A matrix that follows a slider (the Categories affinity and Laplacian at every γ) went to Plotly
as a figure of two heatmaps with their axes and colour bars; the browser spent most of a γ change
laying that figure out. This component (Components v2, no iframe; ``heatmap.js`` on top of the pure
``logic.js``, both in this folder, sent inline, no build step) paints each matrix one pixel a cell
and scales it up on a canvas without smoothing: the row names down the left serve every panel,
each panel has its colour bar and its column names, and a tooltip gives the two names and the
value. A screen reader hears each panel's size and its lowest and highest cells; the arrow keys move
from cell to cell, each announced and outlined, and T shows every cell in a table. Values travel as
base64 float32.
"""

from __future__ import annotations

import base64
import re
from pathlib import Path

import numpy as np
import plotly.colors as pcolors

from app.ui import canvas
from app.ui.layout import main_height

HERE = Path(__file__).parent


_COMPONENT = canvas.component("embedding_lab.heatmap", HERE, "heatmap.js", "heatmap.css")


def stops(scale: str) -> list[list[float]]:
    """A Plotly colour scale by name (``"Blues"``, ``"RdBu"``, ...) as [t, r, g, b] stops."""
    out = []
    for t, colour in pcolors.get_colorscale(scale):
        if colour.startswith("#"):
            rgb = [int(colour[i : i + 2], 16) for i in (1, 3, 5)]
        else:
            rgb = [round(float(v)) for v in re.findall(r"[\d.]+", colour)[:3]]
        out.append([float(t), *rgb])
    return out


def panel(z, *, title: str, scale: str = "Blues", zmin: float | None = None, zmax: float | None = None,
          zmid: float | None = None) -> dict:
    """One square matrix: its values ``z`` (n x n), its title and colour scale from ``zmin`` to ``zmax`` (default:
    the values' range, or symmetric about ``zmid`` when it is given)."""
    z = np.asarray(z, dtype=np.float64)
    finite = z[np.isfinite(z)]
    lo = float(finite.min()) if finite.size else 0.0
    hi = float(finite.max()) if finite.size else 1.0
    if zmid is not None:
        reach = max(abs(hi - zmid), abs(zmid - lo))
        lo, hi = zmid - reach, zmid + reach
    lo = lo if zmin is None else float(zmin)
    hi = hi if zmax is None else float(zmax)
    raw = np.ascontiguousarray(z, dtype=np.dtype(np.float32).newbyteorder("<")).tobytes()
    return {"title": title, "z": base64.b64encode(raw).decode(), "stops": stops(scale), "zmin": lo, "zmax": hi}


def draw(where, panels: list[dict], names, *, key: str, height: int = 480) -> dict:
    """The ``panels`` (:func:`panel`, each n x n over the rows ``names``) side by side in ``where`` (None: here).
    Returns the data sent, as tests read it."""
    names = [str(v) for v in names]
    data = {"chartId": key, "names": names, "n": len(names), "panels": list(panels),
            "height": main_height(key, int(height))}
    data["sig"] = canvas.signature(data)
    canvas.mount(_COMPONENT, where, key=key, data=data)
    return data
