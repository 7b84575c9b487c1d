"""Chart builders for the Manifolds page: arrays in, Plotly figures (and one deck.gl view) out.

Coordinates and colours go out as float32 (Plotly sends arrays as typed
binary; float32 halves the bytes and is far below a pixel). The 3-D input is
deck.gl, which redraws its layers in place when B or the inspected point
changes; grids of maps use WebGL (Scattergl).
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import plotly.colors as pcolors
import plotly.graph_objects as go
import pydeck as pdk
from pydeck.bindings.json_tools import default_serialize

from app.ui import charts
from app.ui.selection import mark_traces
from app.ui.text import html_escape

#: Up to this many points the 2-D map is SVG: Streamlit rebuilds a chart whose figure changed, and a new WebGL
#: context costs more than drawing this many SVG markers (in headless Chromium, 1,500 points: about 0.2 s
#: against 0.6 s). Beyond it, WebGL.
SVG_POINTS = 2000
NEIGHBOUR = "#e03131"
POINT = "#000000"


def _f32(a) -> np.ndarray:
    return np.asarray(a, dtype=np.float32)


def index(n: int) -> np.ndarray:
    """Each point's index, the customdata that makes a map selectable."""
    return np.arange(n, dtype=np.int32)


def colours(values, categorical: bool) -> tuple[np.ndarray | None, str]:
    """Marker colours and colour scale: a continuous coordinate on Spectral, categories as codes on Turbo."""
    if values is None:
        return None, "Spectral"
    if categorical:
        return pd.factorize(np.asarray(values))[0].astype(np.int16), "Turbo"
    return _f32(values), "Spectral"


def _rgb(values, scale: str) -> np.ndarray:
    """Colour-scale values (or category codes) as (n, 3) RGB bytes, through a 256-step lookup table."""
    v = np.asarray(values, dtype=np.float64)
    lo, hi = float(v.min()), float(v.max())
    steps = np.clip(np.rint(255 * (v - lo) / (hi - lo if hi > lo else 1.0)), 0, 255).astype(int)
    table = np.array([pcolors.unlabel_rgb(c) for c in pcolors.sample_colorscale(scale, list(np.linspace(0, 1, 256)))])
    return table.round().astype(np.uint8)[steps]


def _hex_rgb(colour: str) -> list[int]:
    return [int(colour[i : i + 2], 16) for i in (1, 3, 5)]


def _rounded(Q: np.ndarray, extent: float) -> np.ndarray:
    """Coordinates to four significant digits of the cloud's extent: far below a pixel, short in JSON."""
    digits = max(0, 4 - int(np.floor(np.log10(extent))))
    return np.round(Q.astype(np.float64), digits)


#: A literal string for deck.gl (pydeck reads a plain string as an accessor expression).
PIXELS = pdk.types.String("pixels")


class CompactDeck(pdk.Deck):
    """A pydeck Deck whose JSON has no indentation: the data records are a third of the size."""

    def to_json(self) -> str:
        return json.dumps(self, sort_keys=True, default=default_serialize, separators=(",", ":"))


def input_3d(P3, colour, categorical: bool, point: int, nbrs, segments=None, shown=None,
             height: int = 440, selected=None) -> pdk.Deck:
    """The input in rotatable 3-D (deck.gl): the points, the inspected one (black) and its neighbours (red),
    optionally the kNN graph and the points selected on a map (ringed).

    ``P3`` is the points' first three coordinates (zeros below three), ``shown`` the indices of the
    points drawn (all when None); the inspected point and its neighbours are always drawn. deck.gl
    rather than Plotly: Streamlit rebuilds a Plotly chart whose figure changed, and a WebGL scene
    costs about half a second to build in a browser without a GPU, at every change of B; a deck.gl
    chart keeps its scene and redraws the new layers.
    """
    P = np.asarray(P3, dtype=np.float64)
    centre = (P.max(axis=0) + P.min(axis=0)) / 2
    extent = float(np.linalg.norm(np.ptp(P, axis=0))) or 1.0
    Q = _rounded(P - centre, extent)
    keep = np.arange(len(P)) if shown is None else np.asarray(shown)
    c, scale = colours(colour, categorical)
    rgb = np.tile(_hex_rgb(charts.PALETTE[0]), (len(keep), 1)) if c is None else _rgb(np.asarray(c)[keep], scale)
    cloud = pd.DataFrame({"x": Q[keep, 0], "y": Q[keep, 1], "z": Q[keep, 2], "r": rgb[:, 0], "g": rgb[:, 1],
                          "b": rgb[:, 2]})
    nbrs = np.asarray(nbrs)
    marks = pd.DataFrame({"x": Q[nbrs, 0], "y": Q[nbrs, 1], "z": Q[nbrs, 2], "i": nbrs})
    on_top = {"depthCompare": "always"}  # the marks stay visible inside the cloud
    layers = [pdk.Layer("ScatterplotLayer", cloud, id="points", get_position=["x", "y", "z"],
                        get_fill_color=["r", "g", "b"], get_radius=2.2, radius_units=PIXELS, billboard=True)]
    if segments is not None:
        S = _rounded(np.asarray(segments, dtype=np.float64) - centre, extent)
        edges = pd.DataFrame(np.hstack([S[0::3], S[1::3]]), columns=["x0", "y0", "z0", "x1", "y1", "z1"])
        layers.append(pdk.Layer("LineLayer", edges, id="graph", get_source_position=["x0", "y0", "z0"],
                                get_target_position=["x1", "y1", "z1"], get_color=[60, 60, 60, 70], get_width=1))
    if selected is not None and len(selected):
        rows = np.asarray(selected)
        layers.append(pdk.Layer(
            "ScatterplotLayer", pd.DataFrame({"x": Q[rows, 0], "y": Q[rows, 1], "z": Q[rows, 2], "i": rows}),
            id="selection", get_position=["x", "y", "z"], get_radius=4, radius_units=PIXELS, billboard=True,
            filled=False, stroked=True, get_line_color=[33, 37, 41, 200], get_line_width=1.2,
            line_width_units=PIXELS, pickable=True))
    layers += [
        pdk.Layer("ScatterplotLayer", marks, id="neighbours", get_position=["x", "y", "z"],
                  get_fill_color=_hex_rgb(NEIGHBOUR), get_radius=4.5, radius_units=PIXELS, billboard=True,
                  pickable=True, parameters=on_top),
        pdk.Layer("ScatterplotLayer", pd.DataFrame({"x": Q[[point], 0], "y": Q[[point], 1], "z": Q[[point], 2],
                                                    "i": [point]}),
                  id="point", get_position=["x", "y", "z"], get_fill_color=[0, 0, 0], get_radius=6.5,
                  radius_units=PIXELS, billboard=True, pickable=True, parameters=on_top),
    ]
    view = pdk.ViewState(target=[0, 0, 0], rotation_orbit=30, rotation_x=20,
                         zoom=float(np.log2(0.8 * height / extent)))
    return CompactDeck(layers=layers, views=[pdk.View(type="OrbitView", controller=True)], initial_view_state=view,
                    map_style=None, tooltip={"text": "point {i}"}, height=height)


def map_2d(Y, colour, categorical: bool, point: int | None, nbrs, B: int) -> go.Figure:
    """The LLE map, with the inspected point and its neighbours unless ``point`` is None (the selection tools
    then mark them); every trace carries the point index as customdata, so a click on any of them selects
    that point."""
    c, scale = colours(colour, categorical)
    Y = _f32(Y)
    points = go.Scatter if len(Y) <= SVG_POINTS else go.Scattergl
    fig = go.Figure()
    fig.add_trace(points(x=Y[:, 0], y=Y[:, 1], mode="markers", name="points", showlegend=False,
                         marker=dict(size=5, color=c, colorscale=scale),
                         customdata=np.arange(len(Y), dtype=np.int32),
                         hovertemplate="point %{customdata}<extra></extra>"))
    if point is None:
        return charts.layout(fig, f"LLE in 2-D (B={B})", 480)
    nbrs = np.asarray(nbrs)
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
                    title: str | None = None, height: int = 620, selected=None, dragmode: str | None = None
                    ) -> go.Figure:
    """Maps side by side, each titled: ``panels`` is (title, coords or None for an empty panel).

    Every point carries its index as customdata; the ``selected`` points are ringed in every panel
    (a selection made in one shows where the same points land in the others).
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
                                       xaxis=f"x{suffix}", yaxis=f"y{suffix}", customdata=index(len(E)),
                                       marker=dict(size=3, color=c, colorscale=scale)))
            if selected is not None and len(selected):
                fig.add_traces(mark_traces(E, selected, axes=dict(xaxis=f"x{suffix}", yaxis=f"y{suffix}"),
                                           legend=False))
    fig.update_layout(annotations=annotations)
    if dragmode is not None:
        fig.update_layout(dragmode=dragmode)
    charts.layout(fig, title, height)
    if title is None:
        fig.update_layout(margin=dict(t=30))  # room for the first row's titles
    return fig


def quality_map(Y, recall, k: int, name: str) -> go.Figure:
    """A map coloured by each point's neighbour recall@k (red: the map lost its neighbours)."""
    return charts.item_scatter(_f32(Y), color=_f32(recall), color_label=f"recall@{k}", colorscale="RdYlGn",
                               title=f"{html_escape(name)}: share of each point's {k} true neighbours kept in the map",
                               height=520)
