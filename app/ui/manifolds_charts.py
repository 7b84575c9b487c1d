"""Charts for the Manifolds page: the maps (the lab's map component), the 3-D input (deck.gl) and
the explanatory bars (Plotly).

Every 2-D map goes through :func:`app.ui.map.draw` (or :meth:`MapTools.draw`): one colour
(:func:`colour`: the true coordinate on a colour bar, or the label in a legend), the selection
ringed, and a map drawn again under its key glides from the one on screen. The 3-D input is
deck.gl, which redraws its layers in place when B or the inspected point changes.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import plotly.colors as pcolors
import pydeck as pdk
import streamlit as st
from pydeck.bindings.json_tools import default_serialize

from app.services import selection as sel
from app.ui import bars as lab_bars
from app.ui import map as lab_map

NEIGHBOUR = "#e03131"
POINT = "#000000"


def _f32(a) -> np.ndarray:
    return np.asarray(a, dtype=np.float32)


def rgb(values, categorical: bool) -> np.ndarray | None:
    """Each point's colour as (n, 3) RGB bytes, as the 2-D maps colour it (:func:`colour`): a category in
    the map's palette (categories in sorted order), a coordinate on viridis; None for no colour."""
    if values is None:
        return None
    values = np.asarray(values)
    if categorical:
        _, codes = np.unique(values.astype(str), return_inverse=True)
        table = np.array([_hex_rgb(c) for c in lab_map.PALETTE], dtype=np.uint8)
        return table[codes % len(table)]
    v = np.asarray(values, dtype=np.float64)
    lo, hi = float(np.nanmin(v)), float(np.nanmax(v))
    steps = np.clip(np.rint(255 * (v - lo) / (hi - lo if hi > lo else 1.0)), 0, 255).astype(int)
    table = np.array([pcolors.unlabel_rgb(c) for c in
                      pcolors.sample_colorscale("Viridis", list(np.linspace(0, 1, 256)))])
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
    """A pydeck Deck whose JSON has no indentation: the data records are a third of the size. ``spliced`` maps a
    layer's placeholder data string to the JSON of its records, written in as they are (see :func:`_cloud`)."""

    spliced: dict[str, str] = {}

    def to_json(self) -> str:
        spliced = vars(self).pop("spliced", None) or {}  # pydeck would write every attribute into the JSON
        try:
            out = json.dumps(self, sort_keys=True, default=default_serialize, separators=(",", ":"))
        finally:
            if spliced:
                self.spliced = spliced
        for placeholder, records in spliced.items():
            out = out.replace(json.dumps(placeholder), records, 1)
        return out


#: The point cloud's records as JSON, for the last few inputs: (P3, colour, shown, categorical, the arrays
#: themselves) -> JSON. The inputs are the services' shared, read-only arrays, so the same data comes back as
#: the same objects; the entry holds them, so a match by identity is a match of contents.
_CLOUDS: list[tuple[tuple, str]] = []
_CLOUD_SLOTS = 8


def _cloud(P3, colour, categorical: bool, shown, Q, keep) -> str:
    """The JSON records of the 3-D view's points (position and colour), built once per data: a new B or point
    changes only the small layers drawn over them."""
    key = (P3, colour, shown, bool(categorical))
    for i, (k, records) in enumerate(_CLOUDS):
        if all(a is b for a, b in zip(k[:3], key[:3])) and k[3] == key[3]:
            _CLOUDS.insert(0, _CLOUDS.pop(i))
            return records
    every = rgb(colour, categorical)
    shade = np.tile(_hex_rgb(lab_map.PALETTE[0]), (len(keep), 1)) if every is None else every[keep]
    cloud = pd.DataFrame({"x": Q[keep, 0], "y": Q[keep, 1], "z": Q[keep, 2], "r": shade[:, 0], "g": shade[:, 1],
                          "b": shade[:, 2]})
    records = json.dumps(cloud.to_dict("records"), default=default_serialize, separators=(",", ":"))
    _CLOUDS.insert(0, (key, records))
    del _CLOUDS[_CLOUD_SLOTS:]
    return records


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
    placeholder = "lab:points-records"
    records = _cloud(P3, colour, categorical, shown, Q, keep)
    nbrs = np.asarray(nbrs)
    marks = pd.DataFrame({"x": Q[nbrs, 0], "y": Q[nbrs, 1], "z": Q[nbrs, 2], "i": nbrs})
    on_top = {"depthCompare": "always"}  # the marks stay visible inside the cloud
    layers = [pdk.Layer("ScatterplotLayer", placeholder, id="points", get_position=["x", "y", "z"],
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
    deck = CompactDeck(layers=layers, views=[pdk.View(type="OrbitView", controller=True)], initial_view_state=view,
                       map_style=None, tooltip={"text": "point {i}"}, height=height)
    deck.spliced = {placeholder: records}
    return deck


def weights(where, nbrs, w, point: int, *, key: str) -> dict:
    """The weights that rebuild a point from its neighbours, one bar per neighbour (the lab's bar chart)."""
    return lab_bars.draw(where, [f"#{j}" for j in nbrs], np.asarray(w), key=key, y_title="weight",
                         text_format="{:.2f}",
                         title=f"Weights rebuilding point {point} (they sum to {float(np.sum(w)):.3f})")


def eigenvalues(where, vals, *, key: str) -> dict:
    """The bottom eigenvalues of M on a log scale, the two that give the map highlighted."""
    vals = np.asarray(vals)
    return lab_bars.draw(where, [f"λ{i}" for i in range(len(vals))], np.maximum(vals, 1e-16), key=key,
                         title="Bottom eigenvalues of M (log scale)", y_title="eigenvalue", text_format="{:.1e}",
                         log_y=True, highlight=lambda lab: lab in ("λ1", "λ2"))


def colour(values, categorical: bool, label: str, rows=None) -> dict:
    """The maps' colour: the label as categories (a legend), a coordinate on a colour bar, or one colour;
    ``rows`` picks the points of a map drawn on a sample."""
    if values is None:
        return lab_map.single(lab_map.PALETTE[0])
    values = np.asarray(values)
    if rows is not None:
        values = values[np.asarray(rows)]
    if categorical:
        return lab_map.categories(values, title=label)
    return lab_map.continuous(values, scale="viridis", title=label)


def recall_colour(recall, k: int) -> dict:
    """Neighbour recall@k from red (0: the map lost every neighbour) to green (1: kept them all)."""
    return lab_map.continuous(recall, scale="rdylgn", vmin=0, vmax=1, title=f"recall@{k}")


def hover(values, label: str, rows=None) -> dict:
    """The tooltip's field: each point's colour value (its label, or its coordinate to 3 digits)."""
    if values is None:
        return {}
    values = np.asarray(values)
    if rows is not None:
        values = values[np.asarray(rows)]
    if values.dtype.kind in "fc":
        return {label: [f"{v:.3g}" for v in values.tolist()]}
    return {label: values}


def graph(pairs, B: int) -> dict:
    """The B-neighbour graph as a layer of edges under the points."""
    return lab_map.edges(pairs, name=f"{B}-neighbour graph", color="rgba(73,80,87,0.3)", width=0.8)


def draw_panel(tools, where, key: str, xy, ids=None, **kw) -> np.ndarray:
    """One more view of the items of ``tools`` (a :class:`app.ui.selection.MapTools`), without its
    inspected point: row for row with them (``ids`` None), or of the points ``ids`` (a sample of them).
    The selection is ringed on it, and a selection made on it is the page's, in the mouse mode chosen
    above the tools' map."""
    ids = tools.ids if ids is None else np.asarray(ids, dtype=object)
    chosen = sel.selection(tools.page, tools.data).ids
    return lab_map.draw(where, xy, key=key, ids=ids, mode=tools.mode, selected=sel.positions(ids, chosen),
                        on_select=sel.on_map_select(tools.page, tools.data, ids, whole_page=tools.linked), **kw)


def live_map(where, key: str, coords, ids, values, categorical: bool, label: str, *, title: str,
             glide_ms: int = 300, height: int = 380) -> np.ndarray:
    """A map redrawn in place while an optimiser runs (its frames glide into each other); it pans and
    zooms but does not select (the finished map does)."""
    ids = np.asarray(ids)
    return lab_map.draw(where, coords, key=key, ids=ids, color=colour(values, categorical, label, ids),
                        title=title, height=height, size=3, mode="pan", glide_ms=glide_ms)


def map_grid(tools, panels: list[tuple[str, str, np.ndarray | str]], *, values, categorical: bool, label: str,
             ids=None, cols: int = 3, height: int = 300) -> None:
    """Maps side by side, ``cols`` a row, each titled: ``panels`` is (key, title, coords), or (key, title,
    message) for a panel with no map. ``ids`` are the points drawn (default: all of ``tools``, row for
    row). The selection is ringed in every panel (a selection made in one shows where the same points
    land in the others)."""
    c = colour(values, categorical, label, ids)
    tip = hover(values, label, ids)
    for start in range(0, len(panels), cols):
        row = st.columns(cols)
        for col, (key, title, coords) in zip(row, panels[start:start + cols]):
            if isinstance(coords, str):
                col.markdown(f"**{title}**")
                col.caption(coords)
                continue
            draw_panel(tools, col, key, coords, ids, color=c, hover=tip, title=title, height=height, size=3)
