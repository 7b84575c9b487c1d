"""Chart builders for the Manifolds page: arrays in, Plotly figures out.

Coordinates and colours go out as float32 (Plotly sends arrays as typed
binary; float32 halves the bytes and is far below a pixel). Scatter plots of
points use WebGL (Scattergl, Scatter3d).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from app.ui import charts
from app.ui.text import html_escape

#: Up to this many points the 2-D map is SVG: Streamlit rebuilds a chart whose figure changed, and a new WebGL
#: context costs more than drawing this many SVG markers (in headless Chromium, 1,500 points: about 0.2 s
#: against 0.6 s). Beyond it, WebGL.
SVG_POINTS = 2000
NEIGHBOUR = "#e03131"
POINT = "#000000"


def _f32(a) -> np.ndarray:
    return np.asarray(a, dtype=np.float32)


def colours(values, categorical: bool) -> tuple[np.ndarray | None, str]:
    """Marker colours and colour scale: a continuous coordinate on Spectral, categories as codes on Turbo."""
    if values is None:
        return None, "Spectral"
    if categorical:
        return pd.factorize(np.asarray(values))[0].astype(np.int16), "Turbo"
    return _f32(values), "Spectral"


def input_3d(P3, dims: int, colour, categorical: bool, colour_label: str, point: int, nbrs,
             segments=None, shown=None) -> go.Figure:
    """The input in rotatable 3-D: the points, the inspected one and its neighbours, optionally the kNN graph.

    ``P3`` is the points' first three coordinates (zeros below three), ``dims`` the data's dimension,
    ``shown`` the indices of the points drawn (all when None); the inspected point and its neighbours
    are always drawn.
    """
    c, scale = colours(colour, categorical)
    P = _f32(P3)
    cloud = P if shown is None else P[shown]
    if c is not None and shown is not None:
        c = c[shown]
    nbrs = np.asarray(nbrs)
    fig = go.Figure()
    fig.add_trace(go.Scatter3d(x=cloud[:, 0], y=cloud[:, 1], z=cloud[:, 2], mode="markers", hoverinfo="skip",
                               name="points" if shown is None else f"{len(cloud):,} of {len(P):,} points",
                               marker=dict(size=2.5, color=c, colorscale=scale, showscale=False)))
    if segments is not None:
        S = _f32(segments)
        fig.add_trace(go.Scatter3d(x=S[:, 0], y=S[:, 1], z=S[:, 2], mode="lines", name="kNN graph",
                                   line=dict(color="rgba(60,60,60,0.25)", width=1), hoverinfo="skip"))
    fig.add_trace(go.Scatter3d(x=P[nbrs, 0], y=P[nbrs, 1], z=P[nbrs, 2], mode="markers", name="neighbours",
                               customdata=nbrs.astype(np.int32), hovertemplate="point %{customdata}<extra></extra>",
                               marker=dict(size=5, color=NEIGHBOUR)))
    fig.add_trace(go.Scatter3d(x=P[[point], 0], y=P[[point], 1], z=P[[point], 2], mode="markers",
                               name=f"point {point}", hovertemplate=f"point {point}<extra></extra>",
                               marker=dict(size=8, color=POINT, symbol="diamond")))
    # No axes: the input's coordinates mean nothing to LLE, and the axes' text and grids are half the cost of
    # building the scene (about 0.55 s against 1.1 s in headless Chromium), paid again at every change of B.
    hidden = dict(visible=False)
    fig.update_layout(scene=dict(aspectmode="data", xaxis=hidden, yaxis=hidden, zaxis=hidden), showlegend=True)
    note = "" if dims <= 3 else f" (first 3 of {dims} dimensions)"
    return charts.layout(fig, f"Input in 3-D{note}, coloured by {html_escape(colour_label)}", 480)


def map_2d(Y, colour, categorical: bool, point: int, nbrs, B: int) -> go.Figure:
    """The LLE map with the inspected point and its neighbours; every trace carries the point index
    as customdata, so a click on any of them selects that point."""
    c, scale = colours(colour, categorical)
    Y = _f32(Y)
    nbrs = np.asarray(nbrs)
    points = go.Scatter if len(Y) <= SVG_POINTS else go.Scattergl
    fig = go.Figure()
    fig.add_trace(points(x=Y[:, 0], y=Y[:, 1], mode="markers", name="points", showlegend=False,
                         marker=dict(size=5, color=c, colorscale=scale),
                         customdata=np.arange(len(Y), dtype=np.int32),
                         hovertemplate="point %{customdata}<extra></extra>"))
    fig.add_trace(go.Scatter(x=Y[nbrs, 0], y=Y[nbrs, 1], mode="markers", name="neighbours",
                             customdata=nbrs.astype(np.int32), hovertemplate="point %{customdata}<extra></extra>",
                             marker=dict(size=9, color="rgba(0,0,0,0)", line=dict(color=NEIGHBOUR, width=2))))
    fig.add_trace(go.Scatter(x=Y[[point], 0], y=Y[[point], 1], mode="markers", name=f"point {point}",
                             customdata=np.array([point], dtype=np.int32),
                             hovertemplate="point %{customdata}<extra></extra>",
                             marker=dict(size=12, color=POINT, symbol="diamond")))
    return charts.layout(fig, f"LLE in 2-D (B={B}); click a point to inspect it", 480)


def weights(nbrs, w, point: int) -> go.Figure:
    """The weights that rebuild a point from its neighbours."""
    return charts.bars([f"#{j}" for j in nbrs], np.asarray(w), y_title="weight", text_format="{:.2f}",
                       title=f"Weights rebuilding point {point} (they sum to {float(np.sum(w)):.3f})")


def eigenvalues(vals) -> go.Figure:
    """The bottom eigenvalues of M on a log scale, the two that give the map highlighted."""
    vals = np.asarray(vals)
    return charts.bars([f"λ{i}" for i in range(len(vals))], np.maximum(vals, 1e-16),
                       title="Bottom eigenvalues of M (log scale)", y_title="eigenvalue", text_format="{:.1e}",
                       log_y=True, highlight=lambda lab: lab in ("λ1", "λ2"))


def small_multiples(panels: list[tuple[str, np.ndarray | None]], colour, categorical: bool, *, cols: int = 3,
                    title: str | None = None, height: int = 620) -> go.Figure:
    """Maps side by side, each titled: ``panels`` is (title, coords or None for an empty panel).

    Axes are laid out by hand (``make_subplots`` costs a tenth of a second per grid).
    """
    c, scale = colours(colour, categorical)
    rows = max(1, -(-len(panels) // cols))
    gap_x, gap_y = 0.04, 0.1 if rows <= 2 else 0.08
    width = (1 - gap_x * (cols - 1)) / cols
    tall = (1 - gap_y * (rows - 1)) / rows
    fig = go.Figure()
    annotations = []
    for i, (label, coords) in enumerate(panels):
        r, col = divmod(i, cols)
        x0 = col * (width + gap_x)
        y1 = 1 - r * (tall + gap_y)
        suffix = "" if i == 0 else str(i + 1)
        fig.layout[f"xaxis{suffix}"] = dict(domain=[max(0.0, x0), min(1.0, x0 + width)], anchor=f"y{suffix}",
                                            showticklabels=False)
        fig.layout[f"yaxis{suffix}"] = dict(domain=[max(0.0, y1 - tall), min(1.0, y1)], anchor=f"x{suffix}",
                                            showticklabels=False)
        annotations.append(dict(text=label, x=x0 + width / 2, y=y1, xref="paper", yref="paper", xanchor="center",
                                yanchor="bottom", showarrow=False, font=dict(size=13)))
        if coords is not None:
            E = _f32(coords)
            fig.add_trace(go.Scattergl(x=E[:, 0], y=E[:, 1], mode="markers", showlegend=False, hoverinfo="skip",
                                       xaxis=f"x{suffix}", yaxis=f"y{suffix}",
                                       marker=dict(size=3, color=c, colorscale=scale)))
    fig.update_layout(annotations=annotations)
    charts.layout(fig, title, height)
    if title is None:
        fig.update_layout(margin=dict(t=30))  # room for the first row's titles
    return fig


def quality_map(Y, recall, k: int, name: str) -> go.Figure:
    """A map coloured by each point's neighbour recall@k (red: the map lost its neighbours)."""
    return charts.item_scatter(_f32(Y), color=_f32(recall), color_label=f"recall@{k}", colorscale="RdYlGn",
                               title=f"{html_escape(name)}: share of each point's {k} true neighbours kept in the map",
                               height=520)
