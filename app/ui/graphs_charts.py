"""Chart builders for the Graphs page: positions, vectors and tables in, Plotly figures out.

Node names come from people's files: hover text and labels are escaped here
(:func:`app.ui.text.html_escape`), and :func:`app.ui.plots.show` escapes the
data fields Plotly would read as HTML.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from app.ui import charts
from app.ui.text import html_escape

#: Up to this many nodes every node carries its name on the drawing (above, on hover only) and the chart is SVG.
LABELLED_NODES = 40
SVG_NODES = 300
#: Marker symbols of a known grouping (the karate club's two clubs).
SYMBOLS = ["circle", "square", "diamond", "triangle-up", "cross", "x"]
SIDE_COLOURS = [charts.PALETTE[0], charts.PALETTE[1]]


def _f32(values) -> np.ndarray:
    return np.asarray(values, dtype=np.float32)


def _short(name: str, n: int = 12) -> str:
    return name if len(name) <= n else name[: n - 1] + "…"


def graph(pos: np.ndarray, edges: tuple, names: list[str], labels, legend: list[str], *, cut_edges=None,
          groups=None, ring=None, title: str = "", height: int = 460, colours=None,
          cut_label: str = "cut edges") -> go.Figure:
    """The graph at fixed positions: grey edges, the cut edges in red, nodes coloured by ``labels``
    (indices into ``legend``), shaped by their known group, and ``ring`` (node indices) circled."""
    n = len(names)
    scatter = go.Scatter if n <= SVG_NODES else go.Scattergl
    fig = go.Figure()
    fig.add_trace(scatter(x=edges[0], y=edges[1], mode="lines", line=dict(color="#ced4da", width=1),
                          hoverinfo="skip", name="edges", showlegend=False))
    if cut_edges is not None and len(cut_edges[0]):
        fig.add_trace(scatter(x=cut_edges[0], y=cut_edges[1], mode="lines", hoverinfo="skip", name=cut_label,
                              line=dict(color="#e03131", width=1.5, dash="dot")))
    colours = colours or charts.PALETTE
    labels = np.asarray(labels)
    symbols = None
    if groups is not None:
        kinds = list(dict.fromkeys(groups))
        symbols = np.array([SYMBOLS[kinds.index(g) % len(SYMBOLS)] for g in groups])
    hover = [html_escape(v) for v in names]
    for j, label in enumerate(legend):
        m = labels == j
        if not m.any():
            continue
        idx = np.flatnonzero(m)
        text = [html_escape(_short(names[i])) for i in idx] if n <= LABELLED_NODES else None
        fig.add_trace(scatter(
            x=_f32(pos[m, 0]), y=_f32(pos[m, 1]), mode="markers+text" if text else "markers", name=label,
            text=text, textposition="middle center", textfont=dict(size=9, color="white"),
            hovertext=[hover[i] + (f"<br>{html_escape(groups[i])}" if groups is not None else "") for i in idx],
            hoverinfo="text", customdata=idx.astype(np.int32),
            marker=dict(size=18 if text else 9, color=colours[j % len(colours)], line=dict(width=1, color="white"),
                        symbol=None if symbols is None else symbols[m].tolist())))
    if groups is not None:
        for kind in dict.fromkeys(groups):  # legend entries for the shapes
            fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name=str(kind),
                                     marker=dict(size=10, color="#868e96", symbol=symbols[list(groups).index(kind)])))
    if ring is not None and len(ring):
        ring = np.asarray(ring)
        fig.add_trace(go.Scatter(x=_f32(pos[ring, 0]), y=_f32(pos[ring, 1]), mode="markers", hoverinfo="skip",
                                 name="on the other side from their club" if groups is not None else "marked",
                                 marker=dict(size=28, symbol="circle-open", color="#e03131", line=dict(width=2.5))))
    lo, hi = pos.min(axis=0), pos.max(axis=0)
    pad = 0.06 * max(float((hi - lo).max()), 1e-9)
    fig.update_xaxes(visible=False, range=[float(lo[0] - pad), float(hi[0] + pad)])
    # no fixed aspect ratio: a force layout's proportions mean nothing, and a square box would leave the plot
    # a strip in a wide column with its legend far below
    fig.update_yaxes(visible=False, range=[float(lo[1] - pad), float(hi[1] + pad)])
    fig = charts.layout(fig, title, height)
    fig.update_layout(legend=dict(y=-0.02, yanchor="top"))
    return fig


def sorted_vector(table: pd.DataFrame, thresholds: dict[str, float], title: str, y_title: str) -> go.Figure:
    """The Fiedler vector sorted, one bar per node, with each split's threshold as a line (ties share one)."""
    n = len(table)
    names = [html_escape(v) for v in table["name"]]
    fig = go.Figure(go.Bar(x=np.arange(1, n + 1), y=_f32(table["value"]), marker_color=charts.PALETTE[7],
                           hovertext=names, hovertemplate="%{hovertext}<br>value %{y:.4f}<extra></extra>",
                           name="nodes"))
    at: dict[float, list[str]] = {}
    for label, t in thresholds.items():
        at.setdefault(round(float(t), 12), []).append(label)
    order = list(thresholds)
    for t, labels in sorted(at.items()):
        colour = charts.PALETTE[2 + order.index(labels[0])]  # the same colour as the split's mark on the sweep
        # a line trace rather than an annotated hline: the legend names it, and labels of near lines cannot collide
        fig.add_trace(go.Scatter(x=[0.5, n + 0.5], y=[t, t], mode="lines", name=f"{' = '.join(labels)} (threshold {t:.3g})",
                                 line=dict(color=colour, dash="dash", width=1.5), hoverinfo="skip"))
    fig.update_xaxes(title="nodes, sorted by their value", range=[0.5, n + 0.5])
    fig.update_yaxes(title=y_title)
    fig.update_traces(showlegend=False, selector=dict(type="bar"))
    return charts.layout(fig, title, 420, bargap=0.1)


def sweep_profile(table: pd.DataFrame, marks: dict[str, tuple[int, float]], title: str) -> go.Figure:
    """Conductance of every prefix of the sorted vector, with each split's cut marked."""
    cond = table["conductance"].to_numpy()[:-1]
    fig = go.Figure(go.Scatter(x=np.arange(1, len(cond) + 1), y=_f32(cond), mode="lines+markers",
                               marker=dict(size=4, color=charts.PALETTE[7]), line=dict(color=charts.PALETTE[7]),
                               name="conductance of the prefix",
                               hovertemplate="first %{x} nodes<br>conductance %{y:.4f}<extra></extra>"))
    at: dict[int, list[str]] = {}
    for label, (size, _) in marks.items():
        at.setdefault(size, []).append(label)
    order = list(marks)
    for size, labels in at.items():  # rules that cut at the same place share one mark
        label = " = ".join(labels)
        value = marks[labels[0]][1]
        fig.add_trace(go.Scatter(x=[size], y=[value], mode="markers", name=label,  # named in the legend
                                 marker=dict(size=12, color=charts.PALETTE[2 + order.index(labels[0])], line=dict(width=1, color="white")),
                                 hovertemplate=f"{label}: first %{{x}} nodes<br>conductance %{{y:.4f}}<extra></extra>"))
    fig.update_xaxes(title="cut after this many nodes (in Fiedler order)")
    fig.update_yaxes(title="conductance", rangemode="tozero")
    return charts.layout(fig, title, 380)


def rayleigh_curve(profile: pd.DataFrame, angle: float, quotient: float, lam2: float, title: str) -> go.Figure:
    fig = go.Figure(go.Scatter(x=profile["angle"], y=_f32(profile["quotient"]), mode="lines", name="R(x)",
                               line=dict(color=charts.PALETTE[0], width=2.5),
                               hovertemplate="%{x}°<br>R = %{y:.4f}<extra></extra>"))
    fig.add_trace(go.Scatter(x=[angle], y=[quotient], mode="markers", name=f"your turn: {angle:g}°",
                             marker=dict(size=14, color=charts.PALETTE[1], symbol="star")))
    fig.add_hline(y=lam2, line=dict(color="#212529", dash="dash"), annotation_text=f"λ₂ = {lam2:.4g}",
                  annotation_position="bottom right")
    fig.update_xaxes(title="angle away from the Fiedler vector (degrees)", range=[0, 90])
    fig.update_yaxes(title="Rayleigh quotient")
    return charts.layout(fig, title, 380)


def quotient_histogram(quotients: np.ndarray, lam2: float, lam_max: float, title: str) -> go.Figure:
    fig = go.Figure(go.Histogram(x=_f32(quotients), nbinsx=40, marker_color=charts.PALETTE[5], name="random vectors"))
    fig.add_vline(x=lam2, line=dict(color=charts.PALETTE[1], width=2.5), annotation_text="λ₂ (Fiedler)",
                  annotation_position="top right")
    fig.add_vline(x=lam_max, line=dict(color="#868e96", dash="dot"), annotation_text="λ_max",
                  annotation_position="top left")
    fig.update_xaxes(title="Rayleigh quotient")
    fig.update_yaxes(title="random vectors")
    return charts.layout(fig, title, 380, showlegend=False)


def two_vectors(names, fiedler: np.ndarray, turned: np.ndarray, title: str) -> go.Figure:
    """The Fiedler vector and the turned vector, nodes in Fiedler order."""
    order = np.argsort(fiedler, kind="stable")
    hover = [html_escape(names[i]) for i in order]
    x = np.arange(1, len(order) + 1)
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=x, y=_f32(fiedler[order]), mode="lines+markers", name="Fiedler vector",
                             marker=dict(size=5), line=dict(color=charts.PALETTE[0]), hovertext=hover,
                             hovertemplate="%{hovertext}<br>%{y:.4f}<extra>Fiedler</extra>"))
    fig.add_trace(go.Scatter(x=x, y=_f32(turned[order]), mode="markers", name="turned vector",
                             marker=dict(size=6, color=charts.PALETTE[1]), hovertext=hover,
                             hovertemplate="%{hovertext}<br>%{y:.4f}<extra>turned</extra>"))
    fig.add_hline(y=0, line=dict(color="#adb5bd", width=1))
    fig.update_xaxes(title="nodes, sorted by the Fiedler vector")
    fig.update_yaxes(title="value")
    return charts.layout(fig, title, 380)


def spectrum(values: np.ndarray, title: str, y_title: str, colour: str) -> go.Figure:
    """Every eigenvalue, ascending; λ₂ marked."""
    n = len(values)
    idx = np.arange(1, n + 1)
    scatter = go.Scatter if n <= SVG_NODES else go.Scattergl
    fig = go.Figure(scatter(x=idx, y=_f32(values), mode="markers", marker=dict(size=6, color=colour),
                            name="eigenvalues", hovertemplate="λ%{x} = %{y:.4f}<extra></extra>"))
    if n > 1:
        fig.add_trace(go.Scatter(x=[2], y=[float(values[1])], mode="markers+text", text=[f"λ₂ = {values[1]:.3g}"],
                                 textposition="top right", name="λ₂",
                                 marker=dict(size=14, symbol="star", color=charts.PALETTE[1])))
    fig.update_xaxes(title="index (ascending)")
    fig.update_yaxes(title=y_title, rangemode="tozero")
    return charts.layout(fig, title, 360, showlegend=False)


def vectors_scatter(names, x_un: np.ndarray, x_no: np.ndarray, degree: np.ndarray, title: str) -> go.Figure:
    """Each node's value in the two Fiedler vectors (each scaled to unit length), coloured by degree."""
    a, b = x_un / np.linalg.norm(x_un), x_no / np.linalg.norm(x_no)
    scatter = go.Scatter if len(a) <= SVG_NODES else go.Scattergl
    fig = go.Figure(scatter(x=_f32(a), y=_f32(b), mode="markers", name="nodes",
                            marker=dict(size=8, color=_f32(degree), colorscale="Viridis", showscale=True,
                                        colorbar=dict(title=dict(text="degree"))),
                            hovertext=[html_escape(v) for v in names],
                            hovertemplate="%{hovertext}<br>D − A: %{x:.4f}<br>normalised: %{y:.4f}<extra></extra>"))
    fig.add_hline(y=0, line=dict(color="#adb5bd", width=1))
    fig.add_vline(x=0, line=dict(color="#adb5bd", width=1))
    fig.update_xaxes(title="Fiedler vector of D − A")
    fig.update_yaxes(title="of the normalised L (D^-1/2 u₂)")
    return charts.layout(fig, title, 380, showlegend=False)
