"""Chart builders for the Playlists page: tables and arrays in, Plotly figures out.

Song maps of more than :data:`GL_POINTS` songs are drawn with WebGL (Scattergl),
smaller ones as SVG (cheaper to set up than a WebGL context); coordinates are sent as float32
(Plotly ships numpy arrays as typed binary data: half the bytes of float64, and
seven significant digits are far below a pixel). Text that comes from a file
(song ids, tags) is escaped here before it reaches a hover label.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from app.ui.charts import PALETTE, bars, layout
from app.ui.text import html_escape

_FAINT = "#dee2e6"
_INK = "#212529"
#: Above this many points a map is drawn with WebGL.
GL_POINTS = 500


def _scatter(n: int):
    return go.Scattergl if n > GL_POINTS else go.Scatter


def _f32(values) -> np.ndarray:
    return np.asarray(values, dtype=np.float32)


def _square(fig: go.Figure) -> go.Figure:
    fig.update_yaxes(scaleanchor="x")
    return fig


def _background(table: pd.DataFrame, *, hover: bool = False):
    """Every song as a faint point (the map under a path, a song's successors or the tags)."""
    return _scatter(len(table))(x=_f32(table["x"]), y=_f32(table["y"]), mode="markers", name="songs",
                        marker=dict(size=6, color=_FAINT),
                        text=[html_escape(s) for s in table["song"]] if hover else None,
                        hoverinfo="text" if hover else "skip")


def live_map(xy, curve, iteration: int, log_likelihood: float, height: int = 420) -> go.Figure:
    """Training as it runs: the song map (plain points, no hover) next to the training curve, in one figure
    (it is redrawn about three times a second, and one chart is half the browser's work of two)."""
    xy = np.asarray(xy)
    y = xy[:, 1] if xy.shape[1] > 1 else np.zeros(len(xy))
    curve = _f32(curve)
    fig = go.Figure()
    fig.add_trace(_scatter(len(xy))(x=_f32(xy[:, 0]), y=_f32(y), mode="markers", hoverinfo="skip", name="songs",
                                    marker=dict(size=6, color=PALETTE[0]), showlegend=False))
    fig.add_trace(go.Scatter(x=np.arange(len(curve), dtype=np.int32), y=curve, mode="lines", name="log-likelihood",
                             line=dict(color=PALETTE[1], width=2), xaxis="x2", yaxis="y2", showlegend=False))
    fig.update_layout(
        xaxis=dict(domain=[0.0, 0.56]), yaxis=dict(scaleanchor="x"),
        xaxis2=dict(domain=[0.66, 1.0], anchor="y2", title="accepted step"),
        yaxis2=dict(anchor="x2", title="log-likelihood per transition (nats)"))
    return layout(fig, f"Training: iteration {iteration}, log-likelihood {log_likelihood:.4f} "
                       "(left: the song map; right: the training curve)", height)


def _song_traces(table: pd.DataFrame, **axes) -> list:
    """The learned map: one trace per first tag, points sized by plays, each carrying its row as customdata."""
    sizes = 6 + 14 * np.sqrt(table["plays"].to_numpy() / max(int(table["plays"].max()), 1))
    first = np.array([t.split(", ")[0] if t else "untagged" for t in table["tags"]], dtype=object)
    hover = np.array([f"{html_escape(s)}<br>tags: {html_escape(t) or '-'}<br>plays: {p}"
                      for s, t, p in zip(table["song"], table["tags"], table["plays"])], dtype=object)
    x, y = _f32(table["x"]), _f32(table["y"])
    scatter = _scatter(len(table))
    traces = []
    for i, tag in enumerate(sorted(set(first))):
        m = first == tag
        traces.append(scatter(
            x=x[m], y=y[m], mode="markers", name=html_escape(tag), text=hover[m], hoverinfo="text",
            customdata=np.flatnonzero(m).astype(np.int32),
            marker=dict(size=_f32(sizes[m]), color=PALETTE[i % len(PALETTE)], line=dict(width=0.5, color="white")),
            **axes))
    return traces


def _alignment_traces(aligned, true_points, **axes) -> list:
    """True points, the learned ones aligned onto them, and a line from each to its match."""
    aligned, true_points = _f32(aligned), _f32(true_points)
    seg = np.full((len(aligned) * 3, 2), np.nan, dtype=np.float32)
    seg[0::3], seg[1::3] = true_points, aligned
    scatter = _scatter(len(aligned))
    return [
        scatter(x=seg[:, 0], y=seg[:, 1], mode="lines", line=dict(color="#ced4da", width=1), name="error",
                hoverinfo="skip", **axes),
        scatter(x=true_points[:, 0], y=true_points[:, 1], mode="markers", name="true",
                marker=dict(size=6, color="#adb5bd"), **axes),
        scatter(x=aligned[:, 0], y=aligned[:, 1], mode="markers", name="learned (aligned)",
                marker=dict(size=6, color=PALETTE[1]), **axes),
    ]


def song_map(table: pd.DataFrame, *, alignment=None, curve=None, height: int = 560) -> go.Figure:
    """The learned song map (left) beside the same map aligned to the true one (``alignment``: aligned points,
    true points, disparity) or, without a true model, the training ``curve`` (right).

    One figure with two panels: one chart for the browser to build when the model changes.
    """
    fig = go.Figure(_song_traces(table))
    if alignment is not None:
        aligned, true_points, disparity = alignment
        fig.add_traces(_alignment_traces(aligned, true_points, xaxis="x2", yaxis="y2"))
        right = f"Learned map aligned to the true one (Procrustes disparity {disparity:.3f})"
        y2, x2_title = dict(anchor="x2", scaleanchor="x2"), ""
    else:
        curve = _f32(curve)
        fig.add_trace(go.Scatter(x=np.arange(len(curve), dtype=np.int32), y=curve, mode="lines+markers",
                                 name="training log-likelihood", line=dict(color=PALETTE[0], width=2),
                                 xaxis="x2", yaxis="y2"))
        right = "Training curve"
        y2, x2_title = dict(anchor="x2", title="nats per transition"), "accepted step"
    fig.update_layout(xaxis=dict(domain=[0.0, 0.47]), yaxis=dict(scaleanchor="x"),
                      xaxis2=dict(domain=[0.53, 1.0], anchor="y2", title=x2_title), yaxis2=y2)
    for x, text in ((0.0, "The learned song map (size: plays; colour: first tag)"), (0.53, right)):
        fig.add_annotation(x=x, y=1.0, xref="paper", yref="paper", xanchor="left", yanchor="bottom", yshift=8,
                           text=f"<b>{text}</b>", showarrow=False, font=dict(size=14))
    layout(fig, None, height)
    fig.update_layout(margin=dict(l=10, r=10, t=40, b=30))
    return fig


def next_song_map(table: pd.DataFrame, view: dict, position: int, height: int = 500) -> go.Figure:
    """Every song coloured by its probability of coming next; the song itself marked, with its exit point
    and an arrow from entry to exit in the dual model."""
    song = table["song"].iloc[position]
    fig = go.Figure(_scatter(len(table))(
        x=_f32(table["x"]), y=_f32(table["y"]), mode="markers", name="songs",
        marker=dict(size=8, color=_f32(view["proba"]), colorscale="YlOrRd", showscale=True,
                    colorbar=dict(title=dict(text="P(next)"))),
        text=[html_escape(s) for s in table["song"]], hoverinfo="text"))
    if view["dual"]:
        u, v = view["entry"], view["exit"]
        fig.add_annotation(x=float(v[0]), y=float(v[1]), ax=float(u[0]), ay=float(u[1]), xref="x", yref="y",
                           axref="x", ayref="y", showarrow=True, arrowhead=3, arrowwidth=2, arrowcolor=_INK)
        fig.add_trace(go.Scatter(x=[float(v[0])], y=[float(v[1])], mode="markers", name="exit point v",
                                 marker=dict(size=12, symbol="x", color=_INK)))
    fig.add_trace(go.Scatter(x=[float(table["x"].iloc[position])], y=[float(table["y"].iloc[position])],
                             mode="markers", name=f"{html_escape(song)} (entry)",
                             marker=dict(size=14, symbol="diamond", color=_INK)))
    return layout(_square(fig), f"Where playback goes after {html_escape(song)}", height)


def playlist_path(table: pd.DataFrame, positions, songs: list[str], height: int = 480) -> go.Figure:
    """A sampled playlist drawn as a numbered path over the map."""
    positions = np.asarray(positions)
    fig = go.Figure(_background(table))
    fig.add_trace(go.Scatter(
        x=_f32(table["x"].to_numpy()[positions]), y=_f32(table["y"].to_numpy()[positions]),
        mode="lines+markers+text", text=[str(k + 1) for k in range(len(positions))], textposition="top center",
        line=dict(color=PALETTE[1], width=2), marker=dict(size=9), name="playlist",
        hovertext=[html_escape(s) for s in songs], hoverinfo="text"))
    return layout(_square(fig), "A sampled playlist as a path on the map", height)


def likelihood_bars(table: pd.DataFrame) -> go.Figure:
    """Held-out log-likelihood per model, this model highlighted."""
    return bars(table["model"], table["held-out log-likelihood"],
                title="Average log-probability per held-out transition (higher is better)", y_title="nats",
                horizontal=True, highlight=lambda m: m.startswith("LME"))


def tag_map(table: pd.DataFrame, tags: list[str], tag_xy, new_point=None, height: int = 500) -> go.Figure:
    """Tag points over the songs, and where a new song with the chosen tags lands."""
    tag_xy = np.asarray(tag_xy)
    fig = go.Figure(_background(table))
    fig.add_trace(go.Scatter(x=_f32(tag_xy[:, 0]), y=_f32(tag_xy[:, 1]), mode="markers+text",
                             text=[html_escape(t) for t in tags], textposition="top center",
                             marker=dict(size=12, symbol="square", color=PALETTE[2]), name="tags"))
    if new_point is not None:
        fig.add_trace(go.Scatter(x=[float(new_point[0])], y=[float(new_point[1])], mode="markers", name="new song",
                                 marker=dict(size=16, symbol="star", color=PALETTE[1])))
    return layout(_square(fig), "Tag points, and where a new song with the chosen tags lands", height)


def cold_start_bars(table: pd.DataFrame) -> go.Figure:
    """Held-out log-likelihood of the cold-start songs per placement, the tags' mean highlighted."""
    return bars(table["placement"], table["held-out log-likelihood"],
                title=f"Average log-probability per transition touching a held-out song "
                      f"({int(table['transitions'].iloc[0]):,} transitions; higher is better)",
                y_title="nats", horizontal=True, highlight=lambda p: p.startswith("tags"))
