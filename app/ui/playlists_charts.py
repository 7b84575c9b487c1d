"""What the Playlists page draws: its song maps with the lab's map component, and Plotly for its curves and bars.

Every map of songs (the learned map, the map aligned to the true one, the live map while the model
learns, a song's next songs, a sampled playlist, the tags) goes through :mod:`app.ui.map`; every
song is drawn, as many as were uploaded. The maps' builders return the keyword arguments of
:func:`app.ui.map.draw` (so the song map can go through :class:`app.ui.selection.MapTools`) or draw
in a place they are given. Song ids and tags are passed as plain text: the component shows them as
typed.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from app.ui import map as lab_map
from app.ui import plots
from app.ui.charts import PALETTE, bars, layout

_FAINT = "#ced4da"
_INK = "#212529"
#: Arrows drawn to a song's likeliest next songs.
NEXT_ARROWS = 10


def _f32(values) -> np.ndarray:
    return np.asarray(values, dtype=np.float32)


def first_tags(tags) -> np.ndarray:
    """Each song's first tag ("untagged" for none): what colours a song map."""
    return np.array([t.split(", ")[0] if t else "untagged" for t in tags], dtype=object)


def sizes(plays) -> np.ndarray:
    """Point sizes (radius, px) growing with the square root of plays."""
    plays = np.asarray(plays, dtype=np.float64)
    return 2.5 + 6.0 * np.sqrt(plays / max(float(plays.max()) if plays.size else 1.0, 1.0))


def song_map_style(table: pd.DataFrame) -> dict:
    """The song map's look, as :func:`app.ui.map.draw` keywords: coloured by first tag (a legend), sized by plays,
    labelled with the songs' ids (the most played first), tags and plays in the tooltip."""
    return dict(
        color=lab_map.categories(first_tags(table["tags"]), title="first tag"),
        size=sizes(table["plays"]), labels=table["song"].tolist(), label_priority=_f32(table["plays"]),
        hover={"tags": [t or "-" for t in table["tags"]], "plays": table["plays"].tolist()},
        title="The learned song map (size: plays; colour: first tag)", height=520)


def truth_map(where, alignment, *, key: str = "pl.map.truth") -> None:
    """The learned map aligned to the true one (``alignment``: aligned points, true points, disparity and the
    songs both models know): each song's true point (grey) joined to its learned point (orange), labelled
    with its id at the learned point."""
    aligned, true_points, disparity, songs = alignment
    n = len(aligned)
    songs = [str(s) for s in songs]
    xy = np.vstack([np.asarray(true_points, dtype=np.float64), np.asarray(aligned, dtype=np.float64)])
    which = np.repeat(np.array(["true", "learned (aligned)"], dtype=object), n)
    lab_map.draw(where, xy, key=key, ids=[f"true {s}" for s in songs] + songs,
                 color=lab_map.categories(which, names=["true", "learned (aligned)"], colors=["#adb5bd", PALETTE[1]]),
                 labels=[""] * n + songs, size=3.5,
                 edges=[lab_map.edges(np.column_stack([np.arange(n), np.arange(n) + n]), name="error",
                                      color="rgba(134,142,150,0.5)")],
                 hover={"song": songs + songs}, align=False, height=520,
                 title=f"Learned map aligned to the true one (Procrustes disparity {disparity:.3f})")


def curve_chart(curve, *, title: str = "Training curve", height: int = 300) -> go.Figure:
    """Log-likelihood per transition after each accepted step."""
    curve = _f32(curve)
    fig = go.Figure(go.Scatter(x=np.arange(len(curve), dtype=np.int32), y=curve, mode="lines",
                               name="training log-likelihood", line=dict(color=PALETTE[0], width=2)))
    fig.update_xaxes(title="accepted step")
    fig.update_yaxes(title="nats per transition")
    return layout(fig, title, height)


def live(where_map, where_curve, frame, curve, songs: pd.DataFrame, *, key: str = "pl.map.live",
         curve_key: str = "pl.chart.live_curve") -> None:
    """One frame of training as it runs: the song map so far in ``where_map`` (the same element every frame:
    the points glide from the last frame, not aligned to it) and the training ``curve`` in ``where_curve``.

    ``songs`` has the training songs in the model's order (song, plays, tags)."""
    style = song_map_style(songs)
    style.update(title=f"Training: iteration {frame.iteration}, log-likelihood {frame.log_likelihood:.4f}",
                 height=460)
    lab_map.draw(where_map, frame.xy, key=key, ids=style["labels"], align=False, glide_ms=250, **style)
    plots.show(where_curve, curve_chart(curve, title="Training curve", height=460 + 60), key=curve_key)


def next_song_map(where, table: pd.DataFrame, view: dict, position: int, *, key: str = "pl.map.next") -> None:
    """Every song coloured by its probability of coming next after the song at ``position``; arrows to the
    likeliest ones (width and opacity: probability); in the dual model the arrow from the song's entry
    point to its exit point v, and v marked."""
    proba = np.asarray(view["proba"], dtype=np.float64)
    songs = table["song"].tolist()
    xy = table[["x", "y"]].to_numpy()
    order = [int(j) for j in np.argsort(-proba, kind="stable") if j != position][:NEXT_ARROWS]
    top = proba[order].max() if order else 1.0
    share = proba[order] / max(top, 1e-300)
    arrows, markers = [], []
    if view["dual"]:
        v = np.asarray(view["exit"], dtype=np.float64)
        arrows.append(lab_map.arrows([position], [v], name="entry u → exit v", color=_INK, width=2.0))
        markers.append(lab_map.markers([v[0]], [v[1]], name="exit point v", shape="x", size=7, color=_INK))
        start = [v] * len(order)
    else:
        start = [position] * len(order)
    arrows.insert(0, lab_map.arrows(start, order, name=f"the {len(order)} likeliest next songs", color=PALETTE[1],
                                    widths=1.0 + 5.0 * share, alphas=0.25 + 0.75 * share))
    lab_map.draw(where, xy, key=key, ids=songs, labels=songs, label_priority=proba,
                 always_label=[position, *order[:3]],
                 color=lab_map.continuous(proba, scale="plasma", title="P(next)", vmin=0.0),
                 size=4.0, hover={"P(next)": [f"{p:.4f}" for p in proba]}, arrows=arrows, markers=markers,
                 rings=[lab_map.ring([position], name=f"{songs[position]} (entry)", color=_INK, shape="diamond",
                                     size=8, label=True)],
                 title=f"Where playback goes after {songs[position]}", height=500)


def playlist_path(where, table: pd.DataFrame, positions, songs: list[str], *, key: str = "pl.map.sample") -> None:
    """A sampled playlist as a numbered path over the map: an arrow from each song to the next."""
    positions = [int(p) for p in positions]
    names = table["song"].tolist()
    steps: dict[int, list[str]] = {}
    for k, p in enumerate(positions):
        steps.setdefault(p, []).append(str(k + 1))
    labels = [f"{', '.join(steps[i])}. {s}" if i in steps else "" for i, s in enumerate(names)]
    lab_map.draw(where, table[["x", "y"]].to_numpy(), key=key, ids=names, labels=labels,
                 always_label=sorted(steps), color=_FAINT, size=3.5, opacity=0.9,
                 hover={"song": names}, align=False,
                 arrows=[lab_map.arrows(positions[:-1], positions[1:], name="playlist", color=PALETTE[1], width=2.0)],
                 rings=[lab_map.ring(sorted(steps), name="in the playlist", color=PALETTE[1], shape="dot", size=4.5),
                        lab_map.ring(positions[:1], name=f"start: {songs[0]}" if songs else "start", color=_INK,
                                     shape="diamond", size=7)],
                 title="A sampled playlist as a path on the map", height=500)


def tag_map(where, table: pd.DataFrame, tags: list[str], tag_xy, new_point=None, *,
            key: str = "pl.map.tags") -> None:
    """Tag points over the songs (coloured by first tag), and where a new song with the chosen tags lands."""
    tag_xy = np.asarray(tag_xy, dtype=np.float64)
    style = song_map_style(table)
    songs = style.pop("labels")  # the tags' names are the labels here; a song's id is in its tooltip
    style.pop("label_priority")
    style["hover"] = {"song": songs, **style["hover"]}
    style.update(title="Tag points, and where a new song with the chosen tags lands", height=500, opacity=0.5)
    layers = [lab_map.markers(tag_xy[:, 0], tag_xy[:, 1], name="tags", shape="square", size=6, color="#343a40",
                              text=tags)]
    if new_point is not None:
        layers.append(lab_map.markers([new_point[0]], [new_point[1]], name="new song", shape="star", size=12,
                                      color="#000000", text=["new song"]))
    lab_map.draw(where, table[["x", "y"]].to_numpy(), key=key, ids=songs, markers=layers, align=False, **style)


def likelihood_bars(table: pd.DataFrame) -> go.Figure:
    """Held-out log-likelihood per model, this model highlighted."""
    return bars(table["model"], table["held-out log-likelihood"],
                title="Average log-probability per held-out transition (higher is better)", y_title="nats",
                horizontal=True, highlight=lambda m: m.startswith("LME"))


def cold_start_bars(table: pd.DataFrame) -> go.Figure:
    """Held-out log-likelihood of the cold-start songs per placement, the tags' mean highlighted."""
    return bars(table["placement"], table["held-out log-likelihood"],
                title=f"Average log-probability per transition touching a held-out song "
                      f"({int(table['transitions'].iloc[0]):,} transitions; higher is better)",
                y_title="nats", horizontal=True, highlight=lambda p: p.startswith("tags"))
