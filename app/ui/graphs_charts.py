"""Chart builders for the Graphs page: positions, vectors and tables in, Plotly figures (bars, curves,
spectra) and the graph's maps for the lab's map component (:mod:`app.ui.map`) out.

Node names come from people's files: on Plotly charts hover text is escaped here
(:func:`app.ui.text.html_escape`), and :func:`app.ui.plots.show` escapes the data
fields Plotly would read as HTML; the map component writes names as plain text, so
they go to it unescaped.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from app.ui import bars, charts, lines
from app.ui import map as lab_map

#: Up to this many eigenvalues a spectrum is SVG, above WebGL.
SVG_NODES = 300
#: The marks of a known grouping's members on the graph map (the karate club's two clubs): a ring, then
#: shapes the map fills, so they are translucent to keep the node's colour readable through them.
SHAPES = [("circle", "#495057"), ("square", "rgba(73,80,87,0.3)"), ("diamond", "rgba(73,80,87,0.3)"),
          ("x", "#495057"), ("star", "rgba(73,80,87,0.3)")]
SIDE_COLOURS = [charts.PALETTE[0], charts.PALETTE[1]]


#: Up to this many points a curve marks each one; beyond, it is a plain line.
MARKED_POINTS = 200


def _f32(values) -> np.ndarray:
    return np.asarray(values, dtype=np.float32)


def _short(name: str, n: int = 12) -> str:
    return name if len(name) <= n else name[: n - 1] + "…"


def graph(pos: np.ndarray, pairs, names: list[str], labels, legend: list[str], *, cut_edges=None,
          groups=None, ring=None, title: str = "", height: int = 460, colours=None,
          cut_label: str = "cut edges") -> dict:
    """The graph at fixed positions, as :func:`app.ui.map.draw` takes it: grey edges (``pairs``, node indices),
    the cut edges dashed red, nodes coloured by ``labels`` (indices into ``legend``) and named, each known
    group (the karate club's clubs) marked by a shape around its members, and ``ring`` (node indices) ringed red.
    Not aligned: the layout is the same for every split, only the colours change."""
    names = [str(v) for v in names]
    short = [_short(v, 16) for v in names]
    hover = {}
    if short != names:
        hover["node"] = names
    layers = []
    if groups is not None:
        groups = [str(g) for g in groups]
        hover["group"] = groups
        for k, kind in enumerate(dict.fromkeys(groups)):
            members = [i for i, g in enumerate(groups) if g == kind]
            shape, colour = SHAPES[k % len(SHAPES)]
            layers.append(lab_map.ring(members, name=kind, color=colour, shape=shape, size=9, width=1.3))
    if ring is not None and len(ring):
        layers.append(lab_map.ring(ring, name="on the other side from their club" if groups is not None else "marked",
                                   color="#e03131", size=12, width=2.5))
    lines = [lab_map.edges(pairs, name="edges", color="rgba(134,142,150,0.55)", width=1.0)]
    if cut_edges is not None and len(cut_edges):
        lines.append(lab_map.edges(cut_edges, name=cut_label, color="#e03131", width=1.8, dash=True))
    return dict(color=lab_map.categories(np.asarray(labels, dtype=np.int64), names=list(legend),
                                         colors=list(colours or charts.PALETTE)),
                labels=short, hover=hover, rings=layers, edges=lines, size=6.5, opacity=0.95, align=False,
                title=title, height=height, shrink=True)


def sorted_vector(where, table: pd.DataFrame, thresholds: dict[str, float], title: str, y_title: str,
                  key: str) -> dict:
    """The Fiedler vector sorted, one lab bar per node, with each split's threshold as a dotted line in the
    split's colour (ties share one)."""
    at: dict[float, list[str]] = {}
    for label, t in thresholds.items():
        at.setdefault(round(float(t), 12), []).append(label)
    order = list(thresholds)
    rules = [(t, f"{' = '.join(labels)} ({t:.3g})", charts.PALETTE[2 + order.index(labels[0])])
             for t, labels in sorted(at.items())]
    names = [str(v) for v in table["name"]]
    return bars.draw(where, names, table["value"].to_numpy(), key=key, title=title, y_title=y_title,
                     text_format=None, hover={"rank": [str(i + 1) for i in range(len(names))]}, rules=rules,
                     rule_legend=True, height=420)


def sweep_profile(where, table: pd.DataFrame, marks: dict[str, tuple[int, float]], title: str, key: str) -> dict:
    """Conductance of every prefix of the sorted vector (the lab's line chart), with each split's cut marked in
    its colour (rules that cut at the same place share one mark)."""
    cond = table["conductance"].to_numpy()[:-1]
    names = [str(v) for v in table["name"]][: len(cond)]
    curves = [lines.series(np.arange(1, len(cond) + 1), cond, name="conductance of the prefix",
                           color=charts.GREY, markers=len(cond) <= MARKED_POINTS, size=5,
                           text=[f"first {i + 1} nodes, up to {n}" for i, n in enumerate(names)], legend=False)]
    at: dict[int, list[str]] = {}
    for label, (size, _) in marks.items():
        at.setdefault(size, []).append(label)
    order = list(marks)
    for size, labels in at.items():
        curves.append(lines.series([size], [marks[labels[0]][1]], name=" = ".join(labels), lines=False, markers=True,
                                   size=13, color=charts.PALETTE[2 + order.index(labels[0])]))
    return lines.draw(where, curves, key=key, title=title, x_title="cut after this many nodes (in Fiedler order)",
                      y_title="conductance", y_zero=True, height=380)


def quotient_histogram(quotients: np.ndarray, lam2: float, lam_max: float, title: str) -> go.Figure:
    fig = go.Figure(go.Histogram(x=_f32(quotients), nbinsx=40, marker_color=charts.PALETTE[5], name="random vectors"))
    fig.add_vline(x=lam2, line=dict(color=charts.PALETTE[1], width=2.5), annotation_text="λ₂ (Fiedler)",
                  annotation_position="top right")
    fig.add_vline(x=lam_max, line=dict(color="#868e96", dash="dot"), annotation_text="λ_max",
                  annotation_position="top left")
    fig.update_xaxes(title="Rayleigh quotient")
    fig.update_yaxes(title="random vectors")
    return charts.layout(fig, title, 380, showlegend=False)


def turn(where, profile: pd.DataFrame, angle: float, quotient: float, lam2: float, names, fiedler: np.ndarray,
         turned: np.ndarray) -> tuple[dict, dict]:
    """What turning by ``angle`` does, as two lab line charts side by side in ``where``: left, the quotient
    against the angle with this angle marked and λ₂ dashed; right, the Fiedler vector and the turned vector,
    nodes in Fiedler order. Canvas charts: each move of the angle redraws both in a few milliseconds."""
    order = np.argsort(fiedler, kind="stable")
    nodes = [str(names[i]) for i in order]
    x = np.arange(1, len(order) + 1)
    marked = len(x) <= MARKED_POINTS
    left, right = where.columns(2)
    curve = lines.draw(left, [
        lines.series(profile["angle"], profile["quotient"], name="R(x) against the angle", color=charts.PALETTE[0],
                     width=2.5),
        lines.series([angle], [quotient], name=f"your turn: {angle:g}°", lines=False, markers=True, size=13,
                     color=charts.PALETTE[1])],
        key="graphs.chart.turn", title=f"The quotient, x turned {angle:g}°",
        x_title="angle away from the Fiedler vector (degrees)", y_title="Rayleigh quotient",
        hlines=[lines.rule(lam2, f"λ₂ = {lam2:.4g}", color="#212529")], height=400)
    vectors = lines.draw(right, [
        lines.series(x, fiedler[order], name="Fiedler vector", color=charts.PALETTE[0], markers=marked, size=5,
                     text=nodes),
        lines.series(x, turned[order], name="turned vector", color=charts.PALETTE[1], lines=not marked,
                     markers=marked, size=6, text=nodes)],
        key="graphs.chart.turned", title="The Fiedler vector and the turned vector",
        x_title="nodes, sorted by the Fiedler vector", y_title="value", y_zero=True, height=400)
    return curve, vectors


def spectrum(values: np.ndarray, title: str, y_title: str, colour: str) -> go.Figure:
    """Every eigenvalue, ascending; λ₂ marked."""
    n = len(values)
    idx = np.arange(1, n + 1)
    scatter = go.Scatter if n <= SVG_NODES else go.Scattergl
    fig = go.Figure(scatter(x=idx, y=_f32(values), mode="markers" if n <= MARKED_POINTS else "lines",
                            marker=dict(size=6, color=colour), line=dict(color=colour),
                            name="eigenvalues", hovertemplate="λ%{x} = %{y:.4f}<extra></extra>"))
    if n > 1:
        fig.add_trace(go.Scatter(x=[2], y=[float(values[1])], mode="markers+text", text=[f"λ₂ = {values[1]:.3g}"],
                                 textposition="top right", name="λ₂",
                                 marker=dict(size=14, symbol="star", color=charts.PALETTE[1])))
    fig.update_xaxes(title="index (ascending)")
    fig.update_yaxes(title=y_title, rangemode="tozero")
    return charts.layout(fig, title, 360, showlegend=False)


def vectors_scatter(names, x_un: np.ndarray, x_no: np.ndarray, degree: np.ndarray, title: str) -> tuple:
    """Each node's value in the two Fiedler vectors (each scaled to unit length), coloured by degree: the
    coordinates and what :func:`app.ui.map.draw` takes (the axes mean something: not aligned)."""
    a, b = x_un / np.linalg.norm(x_un), x_no / np.linalg.norm(x_no)
    names = [str(v) for v in names]
    axes = [lab_map.line(1, 0, 0, color="#adb5bd", width=1), lab_map.line(0, 1, 0, color="#adb5bd", width=1)]
    return np.column_stack([a, b]), dict(
        color=lab_map.continuous(np.asarray(degree, dtype=np.float64), title="degree"),
        labels=[_short(v, 16) for v in names], label_priority=np.abs(a) + np.abs(b),
        hover={"D − A": [f"{v:.4f}" for v in a], "normalised": [f"{v:.4f}" for v in b]}, lines=axes, size=6,
        align=False, x_title="Fiedler vector of D − A", y_title="of the normalised L (D^-1/2 u₂)", title=title,
        height=420)
