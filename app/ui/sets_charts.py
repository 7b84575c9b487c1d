"""Chart builders for the Sets page: arrays and tables in, Plotly figures (heatmaps, curves, bars) and the
item maps' layers for the lab's map component (:mod:`app.ui.map`) out.

What goes over the wire is kept small: heatmap values as float32 or small integers
(Plotly sends numpy arrays as typed binary); the maps send float32 coordinates, bucket
codes as int32 and each hyperplane as three numbers.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from app.ui import charts
from app.ui import map as lab_map

#: A set with at most this many items has every item labelled on the density map.
LABELLED_MEMBERS = 12


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


def _points(n: int) -> dict:
    """Point size and opacity for a map of ``n`` items: smaller and lighter as they crowd."""
    return dict(size=5.5 if n <= 500 else 4.0 if n <= 2000 else 3.0, opacity=0.85 if n <= 500 else 0.7)


def bucket_colours(codes) -> dict:
    """Each item's bucket as the map's colour: one legend entry per occupied bucket, no two alike (the lab's
    palette, then its marks: :func:`app.ui.map.categories`); past the 72 pairs there are, the largest buckets keep
    their own and the rest share one grey "others" entry (the tooltip names each item's bucket)."""
    codes = np.asarray(codes)
    used = np.unique(codes)
    rank = np.searchsorted(used, codes)
    return lab_map.categories(rank, names=[f"bucket {b}" for b in used],
                              title=f"{used.size:,} buckets:" if used.size > lab_map.palette.distinct() else None)


def bucket_map(codes, names: list[str], lines, *, K: int, partition: int, occupied: int, projected: bool) -> dict:
    """The item map coloured by each item's bucket in one partitioning, with its hyperplanes dashed: what
    :func:`app.ui.map.draw` takes. Not aligned to the map drawn before: the hyperplanes are in the items'
    coordinates as given."""
    codes = np.asarray(codes)
    planes = [lab_map.line(a, b, c, color="#212529", width=1.3, dash=True)
              for a, b, c in np.asarray(lines, dtype=np.float64).reshape(-1, 3)]
    # the planes' legend entry: a named line would be written on the map, over the items' labels
    legend = [lab_map.markers([], [], name=f"hyperplanes ({len(planes)}, dashed)", color="#212529")] if planes else []
    return dict(color=bucket_colours(codes), labels=names, hover={"bucket": codes.tolist()}, lines=planes,
                markers=legend,
                align=False, **_points(len(codes)), x_title="PC 1" if projected else "x", y_title="PC 2" if projected else "y",
                title=f"Items coloured by their bucket in partitioning {partition} ({occupied:,} of {2**K:,} "
                      "buckets occupied)", height=460)


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


def density_map(density, members, names: list[str]) -> dict:
    """The density a sketch implies on every item, the set's own items ringed: what :func:`app.ui.map.draw`
    takes."""
    density = np.asarray(density, dtype=np.float64)
    members = np.asarray(members, dtype=np.int64)
    return dict(color=lab_map.continuous(density, scale="plasma", title="density"), labels=names,
                label_priority=density, hover={"density": [f"{v:.3g}" for v in density]}, **_points(len(density)),
                rings=[lab_map.ring(members, name="in the set", color="#e03131", size=8, width=2,
                                    label=members.size <= LABELLED_MEMBERS)] if members.size else [], title="The density the sketch implies (decode), the set's items ringed", height=460)


def additivity_heatmap(table: pd.DataFrame, touched: int) -> go.Figure:
    """s(A), s(B) and s(A+B) bucket by bucket, as three rows."""
    title = f"Raw counts in the {len(table)} buckets either set touches" + (
        f" (first {len(table)} of {touched})" if touched > len(table) else "")
    return charts.heatmap(_compact_grid(table.T.to_numpy()), x=list(table.index), y=list(table.columns),
                          colorscale="Blues", title=title, x_title="bucket", y_title="", height=260)


def bucket_sharing(stats: pd.DataFrame, K: int) -> tuple[dict, dict]:
    """How often near and random pairs share a bucket as K grows, and the share of empty buckets: the arguments of
    two :func:`app.ui.lines.draw` calls (the lab's canvas line chart, drawn without waiting for Plotly's library),
    the sidebar's K marked on both."""
    from app.ui import lines

    k = stats["K"].to_numpy()
    mark = [lines.rule(K, f"K={K}")]
    share = {"curves": [lines.series(k, stats["near_share"], name="near pairs (5 nearest neighbours)",
                                     color=charts.PALETTE[0], markers=True),
                        lines.series(k, stats["far_share"], name="random pairs", color=charts.PALETTE[1],
                                     markers=True)],
             "title": "How often two items share a bucket", "x_title": "K", "y_title": "share of partitionings",
             "y_zero": True, "vlines": mark}
    empty = {"curves": [lines.series(k, stats["empty_fraction"], name="empty buckets", color=charts.PALETTE[0],
                                     markers=True)],
             "title": "Empty buckets", "x_title": "K", "y_title": "fraction of 2^K", "y_zero": True, "vlines": mark}
    return share, empty


def benchmark_bars(table: pd.DataFrame) -> go.Figure:
    """Held-out accuracy of every encoding with its 95% interval, EMDE's rows (in the lab or uploaded) highlighted,
    the rows tied with the best in a lighter shade of their colour.

    With an ``item vectors`` column, each bar names the vectors it was built on.
    """
    names = table["features"]
    if "item vectors" in table:
        names = [f if v in ("none", "items.npy") else f"{f} · {v}" for f, v in zip(table["features"],
                                                                                   table["item vectors"])]
    emde = [n.startswith(("EMDE", "uploaded sketches")) for n in names]
    tied = table["vs best"].isin(["best", "tied with the best"]) if "vs best" in table else [True] * len(table)
    colors = [(charts.PALETTE[1] if e else charts.PALETTE[0]) + ("ff" if t else "66") for e, t in zip(emde, tied)]
    fig = go.Figure(go.Bar(
        y=list(names), x=table["accuracy"], orientation="h", marker_color=colors,
        text=[f"{a:.3f}" for a in table["accuracy"]],
        error_x=dict(type="data", symmetric=False, array=(table["high"] - table["accuracy"]).clip(lower=0),
                     arrayminus=(table["accuracy"] - table["low"]).clip(lower=0)),
        customdata=np.column_stack([table["low"], table["high"], table.get("vs best", pd.Series([""] * len(table)))]),
        hovertemplate="%{y}<br>accuracy %{x:.4f} [%{customdata[0]:.4f}, %{customdata[1]:.4f}]<br>%{customdata[2]}"
                      "<extra></extra>"))
    fig.update_yaxes(autorange="reversed", type="category")
    fig.update_xaxes(title="held-out accuracy (95% interval)")
    return charts.layout(fig, "Held-out accuracy, best first (faded: below the best beyond the interval)",
                         max(360, 24 * len(names) + 100))


#: Headings of the K and N table (its columns keep their names for code and downloads).
STATS_COLUMNS = {
    "near_share": "near pairs sharing a bucket",
    "far_share": "random pairs sharing a bucket",
    "empty_fraction": "share of the 2^K buckets empty",
}
