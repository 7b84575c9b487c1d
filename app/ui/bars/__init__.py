"""The lab's bar chart: a few bars that move with a control, drawn by :func:`draw`.

Plotly draws a bar chart in the browser in 40-80 ms (its axes measure every tick and bar label
and then lay the chart out again to fit them); on a page where a slider redraws two such charts
that was most of what the person waited for. This component (Components v2, no iframe; ``bars.js``
on top of the pure ``logic.js`` in this folder and the DOM it shares with the line chart in
``app/ui/chart``, sent inline, no build step) draws the same
bars on a plain canvas in a few milliseconds: a linear or log value axis, a value over each bar
when they all fit, category labels thinned so that none overlaps the next, highlighted bars in
their own colour and striped (a second channel beside the colour), and a tooltip with the label, the value and the page's own fields. A screen reader
hears the chart's title (or what its bars measure) and a description written from the values (the
highest, the lowest, every value when there are 12 bars or fewer); the arrow keys walk the bars, each
announced and outlined, and T shows them as a table. Charts that explain rather than respond (heatmaps,
curves with many traces) stay with Plotly.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from app.ui import canvas
from app.ui.layout import main_height

HERE = Path(__file__).parent
#: The lab's bar colour and its highlight (the map's first two palette colours).
COLOUR, HIGHLIGHT = "#3b5bdb", "#e8590c"


_COMPONENT = canvas.component("embedding_lab.bars", HERE, "bars.js", base=canvas.CHART_BASE)


def spec(labels, values, *, key: str, title: str = "", y_title: str = "", log_y: bool = False,
         text_format: str | None = "{:.3f}", highlight=None, hover: dict | None = None, height: int = 320,
         rules=(), rule_legend: bool = False) -> dict:
    """What the browser is sent for one chart (see :func:`draw`)."""
    labels = [str(v) for v in labels]
    vals = [float(v) for v in np.asarray(values, dtype=np.float64).ravel()]
    if len(vals) != len(labels):
        raise ValueError(f"{len(labels)} labels for {len(vals)} values.")
    colours = [HIGHLIGHT if highlight is not None and highlight(lab) else COLOUR for lab in labels]
    data = {
        "chartId": key, "labels": labels, "values": [v if math.isfinite(v) else None for v in vals],
        "text": None if text_format is None else [text_format.format(v) for v in vals], "colors": colours,
        "title": title, "yTitle": y_title, "logY": bool(log_y), "height": main_height(key, int(height)),
        "hover": [{"name": str(k), "values": [str(v) for v in vs]} for k, vs in (hover or {}).items()],
        "rules": [{"y": float(r[0]), "label": str(r[1]), "color": str(r[2]) if len(r) > 2 else "#495057"}
                  for r in rules],
        "ruleLegend": bool(rule_legend),
    }
    data["sig"] = canvas.signature(data)
    return data


def draw(where, labels, values, *, key: str, title: str = "", y_title: str = "", log_y: bool = False,
         text_format: str | None = "{:.3f}", highlight=None, hover: dict | None = None, height: int = 320,
         rules=(), rule_legend: bool = False) -> dict:
    """Bars of ``values`` (one per label) in ``where`` (a container or column; None: here).

    ``log_y`` puts the values on a log axis (values at or below 0 sit on its bottom); ``text_format``
    writes each value over its bar (None: no value text); ``highlight(label)`` picks the bars drawn in
    the highlight colour, with white stripes; ``hover`` maps a field name to one value per bar for the tooltip; ``rules`` are
    (y, label) or (y, label, colour) drawn as dotted lines across the chart (a threshold), labelled on the line
    or, with ``rule_legend``, in a row above the chart (for lines among the bars). Returns the data sent, as
    tests read it.
    """
    data = spec(labels, values, key=key, title=title, y_title=y_title, log_y=log_y, text_format=text_format,
                highlight=highlight, hover=hover, height=height, rules=rules, rule_legend=rule_legend)
    canvas.mount(_COMPONENT, where, key=key, data=data)
    return data
