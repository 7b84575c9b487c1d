"""Charts for the Manifolds page: the maps (the lab's map component), the 3-D input (the lab's 3-D view)
and the bars (the lab's bar chart).

Every 2-D map goes through :func:`app.ui.map.draw` (or :meth:`MapTools.draw`): one colour
(:func:`colour`: the true coordinate on a colour bar, or the label in a legend), the selection
ringed, and a map drawn again under its key glides from the one on screen. The 3-D input
(:func:`input_view`) keeps the angle it was turned to while B or the inspected point change its marks.
"""

from __future__ import annotations

import functools

import numpy as np
import plotly.colors as pcolors
import streamlit as st

from app.services import selection as sel
from app.ui import bars as lab_bars
from app.ui import map as lab_map
from app.ui import view3d as lab_view3d

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
    return _viridis()[steps]


@functools.cache
def _viridis() -> np.ndarray:
    """Viridis in 256 steps as RGB bytes (built once: Plotly samples a scale in Python, point by point)."""
    table = np.array([pcolors.unlabel_rgb(c) for c in pcolors.sample_colorscale("Viridis", list(np.linspace(0, 1, 256)))])
    return table.round().astype(np.uint8)


def _hex_rgb(colour: str) -> list[int]:
    return [int(colour[i : i + 2], 16) for i in (1, 3, 5)]


def _rounded(Q: np.ndarray, extent: float) -> np.ndarray:
    """Coordinates to four significant digits of the cloud's extent: far below a pixel, short in JSON."""
    digits = max(0, 4 - int(np.floor(np.log10(extent))))
    return np.round(Q.astype(np.float64), digits)


def input_view(where, P3, colour, categorical: bool, point: int, nbrs, *, key: str, segments=None, shown=None,
               height: int = 440, selected=None) -> dict:
    """The input in rotatable 3-D (the lab's 3-D view): the points, the inspected one (black) and its neighbours
    (red), optionally the kNN graph and the points selected on a map (ringed).

    ``P3`` is the points' first three coordinates (zeros below three), ``shown`` the indices of the points drawn
    (all when None); the inspected point and its neighbours are always drawn. A canvas of our own rather than
    deck.gl: deck.gl rebuilt its WebGL scene for each new B (45-60 ms of browser time without a GPU); the view
    keeps the angle it was turned to while its marks change.
    """
    P = np.asarray(P3, dtype=np.float64)
    centre = (P.max(axis=0) + P.min(axis=0)) / 2 if len(P) else np.zeros(3)
    extent = float(np.linalg.norm(np.ptp(P, axis=0))) if len(P) else 1.0
    Q = _rounded(P - centre, extent or 1.0)
    keep = np.arange(len(P)) if shown is None else np.asarray(shown)
    every = rgb(colour, categorical)
    shade = np.tile(_hex_rgb(lab_map.PALETTE[0]), (len(keep), 1)) if every is None else every[keep]
    nbrs = np.asarray(nbrs, dtype=np.int64)
    marks = []
    if selected is not None and len(selected):
        rows = np.asarray(selected, dtype=np.int64)
        marks.append(lab_view3d.mark(rows, Q[rows], name="selection", color="rgba(33,37,41,0.8)", size=4,
                                     outline=True))
    marks += [lab_view3d.mark(nbrs, Q[nbrs], name="neighbours", color=NEIGHBOUR, size=4.5),
              lab_view3d.mark([point], Q[[point]], name="point", color=POINT, size=6.5)]
    edges = None
    if segments is not None:
        S = _rounded(np.asarray(segments, dtype=np.float64) - centre, extent or 1.0)
        edges = np.hstack([S[0::3], S[1::3]])
    return lab_view3d.draw(where, Q[keep], shade, key=key, ids=keep, marks=marks, segments=edges, height=height)


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
    """The tooltip's field: each point's colour value (its label, or its coordinate, which the map writes to three
    significant digits)."""
    if values is None:
        return {}
    values = np.asarray(values)
    if rows is not None:
        values = values[np.asarray(rows)]
    if values.dtype.kind in "fiu":  # numbers: the map writes them with three significant digits
        return {label: values.astype(np.float64)}
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
