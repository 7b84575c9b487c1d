"""The lab's line chart: a few curves that explain a page's first screen, drawn by :func:`draw`.

A page whose first screen holds one Plotly chart waits, on a first visit, for Plotly's library to load
and start: 0.35-0.45 s of script in Chromium before the chart is drawn, about half of the visit. This
component (Components v2, no iframe; ``lines.js`` on top of the pure ``logic.js``, the bar chart's
axis logic and the DOM both share in ``app/ui/chart``, sent inline, no build step) draws the same curves on a plain canvas: linear or log axes,
lines and markers, dashed reference lines with their labels, a legend, and a tooltip naming the nearest
point. A screen reader hears each curve described (its points, x range, first and last value, trend and
peak); Left and Right walk a curve's points, Up and Down switch curves, each point announced and ringed,
and T shows every point in a table. Charts read in depth (many traces, zoom, a heatmap) stay with Plotly,
further down the pages.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from app.ui import canvas
from app.ui.layout import main_height

HERE = Path(__file__).parent

_COMPONENT = canvas.component("embedding_lab.lines", HERE, "lines.js", also=(HERE.parent / "bars",),
                              base=canvas.CHART_BASE)


def _numbers(values) -> list:
    out = np.asarray(values, dtype=np.float64).ravel().tolist()
    return [v if math.isfinite(v) else None for v in out]


def series(x, y, *, name: str = "", color: str = "#3b5bdb", lines: bool = True, markers: bool = False,
           size: float = 6, width: float = 2, text=None, legend: bool = True) -> dict:
    """One curve: ``x`` and ``y`` (same length), drawn as a line and/or markers of ``size`` pixels; ``text``
    names each point in the tooltip (plain text, never HTML); ``legend`` lists ``name`` above the chart."""
    xs, ys = _numbers(x), _numbers(y)
    if len(xs) != len(ys):
        raise ValueError(f"{len(xs)} x values for {len(ys)} y values.")
    return {"name": str(name), "x": xs, "y": ys, "color": color, "lines": bool(lines), "markers": bool(markers),
            "size": float(size), "width": float(width), "legend": bool(legend and name),
            "text": None if text is None else [str(t) for t in text]}


def rule(at: float, label: str = "", *, color: str = "#495057", name: str = "") -> dict:
    """A dashed reference line at ``at`` (across the chart for :func:`draw`'s ``hlines``, up it for ``vlines``),
    labelled at its end; ``name`` also lists it in the legend."""
    return {"x": float(at), "y": float(at), "label": str(label), "color": color, "name": str(name)}


def spec(curves, *, key: str, title: str = "", x_title: str = "", y_title: str = "", log_x: bool = False,
         log_y: bool = False, y_zero: bool = False, vlines=(), hlines=(), height: int = 340) -> dict:
    """What the browser is sent for one chart (see :func:`draw`)."""
    data = {
        "chartId": key, "series": list(curves), "title": title, "xTitle": x_title, "yTitle": y_title,
        "logX": bool(log_x), "logY": bool(log_y), "yZero": bool(y_zero), "height": main_height(key, int(height)),
        "vlines": [{k: r[k] for k in ("x", "label", "color", "name")} for r in vlines],
        "hlines": [{k: r[k] for k in ("y", "label", "color", "name")} for r in hlines],
    }
    data["sig"] = canvas.signature(data)
    return data


def draw(where, curves, *, key: str, title: str = "", x_title: str = "", y_title: str = "", log_x: bool = False,
         log_y: bool = False, y_zero: bool = False, vlines=(), hlines=(), height: int = 340) -> dict:
    """The curves (:func:`series`) in ``where`` (a container or column; None: here), on log axes where asked
    (points at or below 0 are left out there); ``y_zero`` keeps 0 on a linear value axis; ``vlines`` and
    ``hlines`` are :func:`rule` s. Returns the data sent, as tests read it."""
    data = spec(curves, key=key, title=title, x_title=x_title, y_title=y_title, log_x=log_x, log_y=log_y,
                y_zero=y_zero, vlines=vlines, hlines=hlines, height=height)
    canvas.mount(_COMPONENT, where, key=key, data=data)
    return data
