"""Chart builders for the Foundations page: arrays and tables in, Plotly figures (curves, bars, histograms,
heatmaps) and the maps' layers for the lab's map component (:mod:`app.ui.map`) out.

Numbers go out as float32 when they fit (half the bytes of float64 in Plotly's
binary arrays); values beyond float32's range (uploads of 1e306 or 1e-300)
keep float64.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from app.ui import bars, charts
from app.ui import map as lab_map

#: above this many points a line is drawn with WebGL
WEBGL_POINTS = 500
#: up to this many points a line shows a marker at each
MARKED_POINTS = 80


def compact(values) -> np.ndarray:
    """``values`` as float32 when every finite value keeps its magnitude there, else as float64."""
    a = np.asarray(values, dtype=np.float64)
    finite = np.abs(a[np.isfinite(a)])
    nonzero = finite[finite > 0]
    if nonzero.size and (nonzero.max() > 1e37 or nonzero.min() < 1e-30):
        return a
    return a.astype(np.float32)


# ------------------------------------------------------------------ PCA


def pca_cloud(points, eigen, greedy, variances, *, title: str, height: int = 480) -> go.Figure:
    """The 3-D cloud with its first two components: eigenvector arrows, and the greedy directions' tips."""
    pts = compact(points)
    fig = go.Figure(go.Scatter3d(x=pts[:, 0], y=pts[:, 1], z=pts[:, 2], mode="markers", name="points",
                                 marker=dict(size=2.5, color="#adb5bd")))
    # arrows scaled for display: 2.5 standard deviations of the first component, the second shorter
    length = 2.5 * float(np.sqrt(variances[0]))
    for i in range(min(2, len(eigen))):
        scale = length * (1 if i == 0 else 0.7)
        v = np.asarray(eigen[i]) * scale
        fig.add_trace(go.Scatter3d(x=[0, v[0]], y=[0, v[1]], z=[0, v[2]], mode="lines",
                                   name=f"PC{i + 1} (eigenvector)", line=dict(color=charts.PALETTE[1], width=8)))
        g = np.asarray(greedy[i]) * scale  # the greedy direction's tip, which lands on the eigenvector's
        fig.add_trace(go.Scatter3d(x=[g[0]], y=[g[1]], z=[g[2]], mode="markers", name=f"PC{i + 1} (greedy)",
                                   marker=dict(color=charts.PALETTE[0], size=7, symbol="diamond")))
    fig.update_layout(scene=dict(aspectmode="data", xaxis_title="x", yaxis_title="y", zaxis_title="z"))
    return charts.layout(fig, title, height)


#: The axis pairs of the side views: x-y, x-z, y-z.
SIDE_VIEWS = ((0, 1), (0, 2), (1, 2))
#: One colour per principal component on the side views (PC1, PC2, PC3).
PC_COLOURS = [charts.PALETTE[1], charts.PALETTE[0], charts.PALETTE[3]]
#: The arrows' lengths, in standard deviations of the points along each arrow's own component: an arrow ends where
#: the cloud thins out along it (and in a view where it would still reach past the points it is shortened to end
#: inside them: see :func:`fit_inside`). PC1's standard deviation would send a small component's arrow far past
#: the points once one feature is rescaled.
ARROW_SDS = 2.0
#: The most components drawn as arrows.
ARROWS = 3
#: The share of the points' extent from the centre that an arrow's tip may reach in a side view.
ARROW_ROOM = 0.95


def fit_inside(tips, points) -> float:
    """The factor (at most 1) that brings every tip, drawn from the origin, inside the points' range on each axis
    (to :data:`ARROW_ROOM` of it): the map frames the points, so an arrow past them would run off the panel."""
    tips = np.asarray(tips, dtype=np.float64).reshape(-1, 2)
    P = np.asarray(points, dtype=np.float64)
    lo, hi = np.minimum(P.min(axis=0), 0.0), np.maximum(P.max(axis=0), 0.0)
    factor = 1.0
    for tip in tips:
        for j in range(2):
            room = ARROW_ROOM * (hi[j] if tip[j] > 0 else -lo[j])
            if abs(tip[j]) > 0 and room > 0:
                factor = min(factor, room / abs(tip[j]))
    return factor


def pca_side_views(points, eigen, greedy, variances, *, axis_names: str = "xyz",
                   height: int = 360) -> list[tuple[np.ndarray, dict]]:
    """The cloud seen along each axis (x-y, x-z, y-z) with its principal components: for each view its
    coordinates and what :func:`app.ui.map.draw` takes. Each eigenvector is an arrow from the centre in its own
    colour, named PC1, PC2, PC3, :data:`ARROW_SDS` of its component's standard deviations long; the greedy
    direction's tip is a diamond of the same colour (it lands on the arrow's tip). Not aligned: the axes are the
    features. In each view an arrow that would reach past the points is shortened, with its greedy tip, to end
    inside their range (:func:`fit_inside`): the map frames the points."""
    P = np.asarray(points, dtype=np.float64)
    eigen, greedy = np.asarray(eigen, dtype=np.float64), np.asarray(greedy, dtype=np.float64)
    shown = min(ARROWS, len(eigen))
    lengths = ARROW_SDS * np.sqrt(np.maximum(np.asarray(variances, dtype=np.float64)[:shown], 0.0))[:, None]
    ends = eigen[:shown] * lengths
    greedy_ends = greedy[:min(shown, len(greedy))] * lengths[:len(greedy)]
    out = []
    for a, b in SIDE_VIEWS:
        arrows, tips = [], []
        for i in range(shown):
            fit = fit_inside([ends[i, [a, b]]] + ([greedy_ends[i, [a, b]]] if i < len(greedy_ends) else []),
                             P[:, [a, b]])
            v = ends[i] * fit
            arrows.append(lab_map.arrows([(0.0, 0.0)], [(v[a], v[b])], name=f"PC{i + 1}", color=PC_COLOURS[i],
                                         width=3.5 if i == 0 else 2.5))
            if i < len(greedy_ends):
                g = greedy_ends[i] * fit
                tips.append(lab_map.markers([g[a]], [g[b]], name=f"PC{i + 1} greedy", color=PC_COLOURS[i],
                                            shape="diamond", size=7, legend=False))
        out.append((P[:, [a, b]], dict(
            color=lab_map.single("#868e96"), size=3.5, opacity=0.7, arrows=arrows, markers=tips, align=False,
            hover={c: [f"{v:.3g}" for v in P[:, j]] for j, c in enumerate(axis_names[:P.shape[1]])},
            x_title=axis_names[a], y_title=axis_names[b], title=f"{axis_names[a]}-{axis_names[b]}",
            height=height)))
    return out


def explained_variance(where, explained, key: str) -> dict:
    """Each principal component's share of the variance, as lab bars (no Plotly on the page's first screen)."""
    labels = [f"PC{i + 1}" for i in range(len(explained))]
    return bars.draw(where, labels, [float(v) for v in explained], key=key, title="Explained variance ratio",
                     y_title="share", height=300)


# ------------------------------------------------------------------ standardising new data


#: One colour per digit: the first ten of the lab's palette (each digit has its own mark as well).
DIGIT_COLOURS = charts.PALETTE[:10]


def batch_map(train, train_labels, right, wrong, *, title: str, height: int = 460) -> tuple[np.ndarray, dict]:
    """The training digits on PC1-PC2 coloured by digit, and a batch placed two ways, an arrow from each row's
    right place to its wrong one: the coordinates and what :func:`app.ui.map.draw` takes (not aligned: the
    batch is in the same units)."""
    train = np.asarray(train, dtype=np.float64)
    labels = np.asarray(train_labels).astype(int)
    right, wrong = np.asarray(right, dtype=np.float64), np.asarray(wrong, dtype=np.float64)
    digits = sorted(set(labels.tolist()))
    moved = [lab_map.arrows([tuple(p) for p in right], [tuple(q) for q in wrong], name="moved",
                            color="rgba(73,80,87,0.7)", width=1.0)] if len(right) else []
    marks = [lab_map.markers(right[:, 0], right[:, 1], name="batch, training μ and σ", color="#212529",
                             shape="circle", size=6),
             lab_map.markers(wrong[:, 0], wrong[:, 1], name="batch, its own μ and σ", color="#e03131", shape="x",
                             size=6)]
    return train, dict(color=lab_map.categories(labels, names=digits, colors=DIGIT_COLOURS, title="training digits:"),
                       hover={"digit": labels.tolist()}, size=3, opacity=0.55, arrows=moved, markers=marks,
                       align=False, x_title="PC1 (of the training digits)", y_title="PC2", title=title, height=height)


def batch_accuracy(table: pd.DataFrame, size: int) -> go.Figure:
    """Accuracy against batch size, both ways, with the chosen size marked."""
    fig = charts.lines(table, "size", {"training statistics": "training μ and σ",
                                       "batch statistics": "the batch's own μ and σ"},
                       title="Accuracy on new digits against batch size", y_title="accuracy", x_title="batch size",
                       log_x=True, vline=size, vline_label=f"{size}", height=380)
    fig.update_yaxes(range=[0, 1.05])
    fig.update_xaxes(tickvals=[int(v) for v in table["size"]])
    fig.update_layout(legend=dict(orientation="h", yanchor="top", y=-0.25, x=0))
    return fig


# ------------------------------------------------------------------ PCA versus JL


def pca_vs_jl_reconstruction(table: pd.DataFrame, k: int) -> go.Figure:
    return charts.lines(table, "k", {"pca_reconstruction": "PCA", "jl_reconstruction": "random (JL)"},
                        title="Reconstruction error (energy lost)", y_title="share of energy", vline=k,
                        vline_label=f"k={k}")


def pca_vs_jl_distortion(table: pd.DataFrame, k: int) -> go.Figure:
    return charts.lines(table, "k", {"pca_distortion": "PCA", "jl_distortion": "random (JL)"},
                        title="Distance distortion", y_title="median |ratio - 1|", vline=k, vline_label=f"k={k}")


# ------------------------------------------------------------------ Johnson-Lindenstrauss


def jl_histogram(ratios, eps: float, k: int, pairs: int) -> go.Figure:
    """The distortion of the random pairs, with the 1 +- eps band marked."""
    fig = go.Figure(go.Histogram(x=compact(ratios), nbinsx=60, marker_color=charts.PALETTE[0], name="pairs"))
    for x in (1 - eps, 1 + eps):
        fig.add_vline(x=x, line=dict(color=charts.PALETTE[1], dash="dash"))
    fig.update_xaxes(title="squared distance after / before")
    return charts.layout(fig, f"Distortion of {pairs:,} random pairs at k={k}", 380)


#: the column of :func:`app.services.foundations.jl_curve` with the seed's bound
SEED_BOUND = "k (all pairs, 1 - 1/n)"


def jl_bound(curve: pd.DataFrame, eps: float, k: int, n_rows: int) -> go.Figure:
    """Both bounds against eps (log scale), the seed's range of eps shaded, and the chosen (eps, k) as a point."""
    ys = {"k": "scikit-learn: all pairs with chance ≥ 1/n"}
    if SEED_BOUND in curve:
        ys[SEED_BOUND] = "δ = 1/n³ a pair: all pairs with chance ≥ 1 − 1/n"
    fig = charts.lines(curve, "eps", ys, title=f"The bound: dimensions needed for n = {n_rows:,}",
                       y_title="k", x_title="ε", height=380)
    fig.add_vrect(x0=float(curve["eps"].min()), x1=0.5, fillcolor="#e7f5ff", opacity=0.6, line_width=0, layer="below")
    fig.add_annotation(x=0.27, y=1, yref="paper", yanchor="bottom", text="the seed's range ε < 1/2",
                       showarrow=False, font=dict(size=11, color="#1864ab"))
    fig.add_trace(go.Scatter(x=[eps], y=[k], mode="markers", name="your choice",
                             marker=dict(size=12, color=charts.PALETTE[2])))
    fig.update_yaxes(type="log", dtick=1)
    fig.update_layout(legend=dict(orientation="h", yanchor="top", y=-0.22, x=0))
    return fig


def jl_failure(curve: pd.DataFrame, k: int, outside: float, eps: float) -> go.Figure:
    """The failure bounds against k (log-log), and the share of the measured pairs outside 1 +- eps at k."""
    fig = charts.lines(curve, "k", {"per pair": "bound: one pair fails", "some pair": "bound: some pair fails"},
                       title=f"Chance of leaving 1 ± {eps:g}: the bounds and the pairs measured", y_title="chance",
                       x_title="k", log_x=True, height=380)
    for trace in fig.data:
        trace.mode = "lines"
    shown = max(outside, 1e-4)  # a log axis has no 0: none outside is drawn at the floor, hollow
    fig.add_trace(go.Scatter(x=[k], y=[shown], mode="markers", name=f"measured at k={k}: {outside:.1%} outside",
                             marker=dict(size=12, color=charts.PALETTE[2],
                                         symbol="circle" if outside > 0 else "circle-open")))
    fig.update_yaxes(type="log", range=[-4.2, 0.1], dtick=1, exponentformat="power")
    fig.update_xaxes(dtick=1)
    fig.update_layout(legend=dict(orientation="h", yanchor="top", y=-0.22, x=0))
    return fig


# ------------------------------------------------------------------ SVD


def svd_energy(energy, k: int, k80: int, *, height: int = 360) -> go.Figure:
    """Cumulative energy against k, with the chosen k and the 80% mark."""
    energy = compact(energy)
    ks = np.arange(1, len(energy) + 1, dtype=np.int32)
    trace = go.Scattergl if len(energy) > WEBGL_POINTS else go.Scatter
    # a marker per layer only while they can be told apart: one path draws faster than hundreds of markers
    mode = "lines+markers" if len(energy) <= MARKED_POINTS else "lines"
    fig = go.Figure(trace(x=ks, y=energy, mode=mode, name="cumulative energy",
                          line=dict(color=charts.PALETTE[0], width=2)))
    finite = energy[np.isfinite(energy)]
    lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    # a trace rather than a shape, as charts.lines draws its marker
    fig.add_trace(go.Scatter(x=[k, k], y=[lo, hi], mode="lines+text", name=f"k={k}", text=["", f"k={k}"],
                             textposition="top right", showlegend=False, hoverinfo="skip",
                             line=dict(color="#868e96", dash="dot", width=1.5)))
    fig.add_hline(y=0.8, line=dict(color="#868e96", dash="dot"), annotation_text=f"80% at k={k80}")
    fig.update_xaxes(title="k")
    fig.update_yaxes(title="share")
    return charts.layout(fig, "Cumulative energy", height)


def svd_reconstruction(values, *, title: str, height: int = 380) -> go.Figure:
    """The first rows of a rank-k reconstruction as a heatmap."""
    return charts.heatmap(compact(values), title=title, colorscale="RdBu", height=height)


# ------------------------------------------------------------------ autoencoders


def ae_angles(angles) -> go.Figure:
    return charts.bars([f"θ{i + 1}" for i in range(len(angles))], [float(a) for a in angles],
                       title="Principal angles: linear autoencoder vs PCA subspace", y_title="degrees",
                       text_format="{:.2f}°")


def ae_digits(grid, stages, *, image_size: int = 8) -> go.Figure:
    """Rows of digit images, one row per stage (original, corrupted, reconstructions), labelled by stage."""
    fig = go.Figure(go.Heatmap(z=compact(grid), colorscale="Greys", showscale=False))
    ticks = [image_size * i + (image_size - 1) / 2 for i in range(len(stages))]
    fig.update_yaxes(autorange="reversed", tickvals=ticks, ticktext=list(stages), scaleanchor="x")
    fig.update_xaxes(showticklabels=False)
    return charts.layout(fig, "Six digits: original, corrupted, and the two reconstructions", 360)


# ------------------------------------------------------------------ feature hashing


def hashing_error(table: pd.DataFrame, w: int) -> go.Figure:
    return charts.lines(table, "width", {"rmse": "RMS error (relative to ‖x‖‖y‖)", "1/sqrt(w) trend": "1/√w",
                                         "bias": "mean error (bias)"},
                        title="Inner-product error against width", y_title="error", log_x=True, vline=w,
                        vline_label=f"w={w}")
