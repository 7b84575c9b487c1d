"""Chart builders for the Sets page: arrays and tables in, Plotly figures out.

What goes over the wire is kept small: coordinates as float32 (Plotly sends
numpy arrays as typed binary), bucket codes and counts as small integers,
every item once, all hyperplanes of a partitioning as one trace, and WebGL
markers once a map has more than a few hundred items.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from app.ui import charts
from app.ui.text import html_escape

#: Above this many items a map is drawn with WebGL (Scattergl); below, SVG starts faster.
WEBGL_POINTS = 500


def _f32(values) -> np.ndarray:
    """Floats for the wire: float32 keeps 7 significant digits, far below a pixel, in half the bytes."""
    return np.asarray(values, dtype=np.float32)


def _small_int(values) -> np.ndarray:
    """Non-negative integers in the smallest type that holds them (1 or 2 bytes for bucket codes)."""
    values = np.asarray(values)
    top = int(values.max()) if values.size else 0
    return values.astype(np.uint8 if top < 2**8 else np.uint16 if top < 2**16 else np.uint32)


def _compact_grid(z) -> np.ndarray:
    """A heatmap's values: small integers when they are whole counts, float32 otherwise."""
    z = np.asarray(z, dtype=np.float64)
    if z.size and np.all(z >= 0) and np.all(z == np.round(z)) and z.max() < 2**16:
        return _small_int(z.astype(np.int64))
    return _f32(z)


def _scatter(n: int):
    return go.Scattergl if n > WEBGL_POINTS else go.Scatter


def _ranges(coords: np.ndarray):
    x, y = coords[:, 0], coords[:, 1]
    pad_x = (x.max() - x.min()) * 0.05 + 1e-9
    pad_y = (y.max() - y.min()) * 0.05 + 1e-9
    return (float(x.min() - pad_x), float(x.max() + pad_x)), (float(y.min() - pad_y), float(y.max() + pad_y))


def _axes(fig: go.Figure, coords: np.ndarray, axis_titles: tuple[str, str]) -> tuple:
    xr, yr = _ranges(coords)
    fig.update_xaxes(range=xr, title=axis_titles[0], zeroline=False)
    fig.update_yaxes(range=yr, title=axis_titles[1], zeroline=False, scaleanchor="x", scaleratio=1)
    return xr, yr


def plane_lines(lines, xr, yr) -> go.Scatter | None:
    """Every hyperplane of a partitioning as one dashed trace (segments split by gaps), hover naming each."""
    xs, ys, names = [], [], []
    for i, (a, b, c) in enumerate(lines):
        seg = charts.clip_line(float(a), float(b), float(c), xr, yr)
        if seg is None:
            continue
        (xa, ya), (xb, yb) = seg
        xs += [xa, xb, None]
        ys += [ya, yb, None]
        names += [f"hyperplane {i}"] * 2 + [None]
    if not xs:
        return None
    return go.Scatter(x=xs, y=ys, mode="lines", name="hyperplanes", text=names, hoverinfo="text",
                      line=dict(color="#212529", width=1.5, dash="dash"), showlegend=False)


def bucket_map(coords, codes, names: list[str], lines, *, K: int, partition: int, occupied: int,
               projected: bool) -> go.Figure:
    """Items coloured by their bucket in one partitioning, with its hyperplanes dashed.

    Buckets take the palette's colours in order; while there are no more occupied
    buckets than colours each bucket is a legend entry (click to hide it), beyond
    that one trace carries every item and the hover names the bucket. Every item
    carries its row first in its customdata (for selections).
    """
    coords = _f32(coords)
    codes = np.asarray(codes)
    used = np.unique(codes)
    rank = np.searchsorted(used, codes)
    text = np.array([html_escape(n) for n in names], dtype=object)
    scatter = _scatter(len(coords))
    fig = go.Figure()
    marker = dict(size=8, line=dict(width=0.5, color="white"))
    if used.size <= len(charts.PALETTE):
        for j, bucket in enumerate(used):
            m = codes == bucket
            fig.add_trace(scatter(x=coords[m, 0], y=coords[m, 1], mode="markers", name=f"bucket {bucket}",
                                  marker=dict(marker, color=charts.PALETTE[j]), text=text[m],
                                  customdata=np.flatnonzero(m).astype(np.int32),
                                  hovertemplate="%{text}<br>" + f"bucket {bucket}<extra></extra>"))
    else:
        n = len(charts.PALETTE)
        # the palette as a stepped colour scale: one byte per item instead of a colour string
        steps = [[edge, c] for i, c in enumerate(charts.PALETTE) for edge in (i / n, (i + 1) / n)]
        fig.add_trace(scatter(x=coords[:, 0], y=coords[:, 1], mode="markers", name="items", showlegend=False,
                              marker=dict(marker, color=_small_int(rank % n), colorscale=steps, cmin=-0.5,
                                          cmax=n - 0.5, showscale=False),
                              text=text, customdata=np.column_stack([np.arange(len(codes)), codes]).astype(np.int32),
                              hovertemplate="%{text}<br>bucket %{customdata[1]}<extra></extra>"))
    xr, yr = _axes(fig, coords, ("PC 1", "PC 2") if projected else ("x", "y"))
    planes = plane_lines(lines, xr, yr)
    if planes is not None:
        fig.add_trace(planes)
    title = f"Items coloured by their bucket in partitioning {partition} ({occupied:,} of {2**K:,} buckets occupied)"
    return charts.layout(fig, title, 460)


def sketch_heatmap(grid, codes=None, *, partitions: int | None = None) -> go.Figure:
    """One set's sketch as a heatmap, a row per partitioning.

    Without ``codes`` the columns are all 2**K buckets (the fixed width). With
    ``codes`` (from an occupied-bucket grid) the columns are each
    partitioning's occupied buckets in code order, blank past its last one (the
    variable width), and the hover names the bucket's code. ``partitions`` is
    N when only the first rows are drawn.
    """
    grid = np.asarray(grid, dtype=np.float64)
    shown = grid.shape[0]
    more = f" (the first {shown} of {partitions})" if partitions and partitions > shown else ""
    if codes is None:
        return charts.heatmap(_compact_grid(grid), title=f"The sketch: one row per partitioning{more}",
                              x_title="bucket", y_title="partitioning", colorscale="Blues")
    # NaN marks the cells past a partitioning's last occupied bucket: drawn blank, not as zero
    fig = go.Figure(go.Heatmap(z=_f32(grid), colorscale="Blues", customdata=np.asarray(codes).astype(str),
                               hovertemplate="partitioning %{y}<br>bucket %{customdata}<br>%{z:.3g}<extra></extra>"))
    fig.update_xaxes(title="occupied bucket (in the order of its code)")
    fig.update_yaxes(title="partitioning", autorange="reversed", dtick=1 if shown <= 16 else None)
    return charts.layout(fig, f"The sketch over occupied buckets only: one row per partitioning{more}", 360)


def density_map(coords, density, members, names: list[str]) -> go.Figure:
    """The density a sketch implies on every item, the set's own items circled; each item carries its row
    first in its customdata."""
    coords = _f32(coords)
    members = np.asarray(members, dtype=np.int64)
    scatter = _scatter(len(coords))
    fig = go.Figure(scatter(
        x=coords[:, 0], y=coords[:, 1], mode="markers", name="items", showlegend=False,
        marker=dict(size=8, color=_f32(density), colorscale="YlOrRd", showscale=True,
                    colorbar=dict(title=dict(text="density")), line=dict(width=0.5, color="white")),
        text=[html_escape(n) for n in names],
        customdata=np.column_stack([np.arange(len(coords)), np.asarray(density, dtype=np.float64)]),
        hovertemplate="%{text}<br>density %{customdata[1]:.3g}<extra></extra>",
    ))
    if members.size:
        fig.add_trace(scatter(x=coords[members, 0], y=coords[members, 1], mode="markers", name="in the set",
                              marker=dict(size=14, symbol="circle-open", color="#e03131", line=dict(width=2.5)),
                              customdata=members.astype(np.int32), hoverinfo="skip"))
    _axes(fig, coords, ("", ""))
    return charts.layout(fig, "The density the sketch implies (decode), the set's items circled", 460)


def additivity_heatmap(table: pd.DataFrame, touched: int) -> go.Figure:
    """s(A), s(B) and s(A+B) bucket by bucket, as three rows."""
    title = f"Raw counts in the {len(table)} buckets either set touches" + (
        f" (first {len(table)} of {touched})" if touched > len(table) else "")
    return charts.heatmap(_compact_grid(table.T.to_numpy()), x=list(table.index), y=list(table.columns),
                          colorscale="Blues", title=title, x_title="bucket", y_title="", height=260)


def bucket_sharing(stats: pd.DataFrame, K: int) -> tuple[go.Figure, go.Figure]:
    """How often near and random pairs share a bucket as K grows, and the share of empty buckets."""
    share = charts.lines(stats, "K", {"near_share": "near pairs (5 nearest neighbours)", "far_share": "random pairs"},
                         title="How often two items share a bucket", y_title="share of partitionings",
                         vline=K, vline_label=f"K={K}")
    empty = charts.lines(stats, "K", {"empty_fraction": "empty buckets"}, vline=K, vline_label=f"K={K}",
                         title="Empty buckets", y_title="fraction of 2^K")
    if len(stats) and K >= stats["K"].max():  # the marker is the rightmost thing drawn: label it on its left
        for fig in (share, empty):
            fig.update_traces(textposition="top left", selector=dict(name=f"K={K}"))
    return share, empty


def benchmark_bars(table: pd.DataFrame) -> go.Figure:
    """Cross-validated accuracy of every encoding, EMDE's (in the lab or uploaded) highlighted.

    With an ``item vectors`` column, each bar names the vectors it was built on.
    """
    names = table["features"]
    if "item vectors" in table:
        names = [f if v in ("none", "items.npy") else f"{f} · {v}" for f, v in zip(table["features"],
                                                                                   table["item vectors"])]
    return charts.bars(pd.Series(names), table["accuracy"], errors=table["accuracy_std"],
                       title="Cross-validated accuracy (each encoding at its best C)", y_title="accuracy",
                       horizontal=True, height=max(360, 24 * len(names) + 100), highlight=lambda f: f.startswith(("EMDE", "uploaded sketches")))
