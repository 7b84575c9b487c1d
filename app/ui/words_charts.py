"""Chart builders for the Words page: tables and arrays in, Plotly figures out."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from app.ui import charts
from app.ui.text import html_escape

#: Above this many words the map shows markers only: labels would cover each other.
LABELLED_WORDS = 300


def _r(values, digits: int = 4):
    """Coordinates rounded for the wire: four decimals are far below a pixel."""
    return np.round(np.asarray(values, dtype=np.float64), digits)


def spectrum(table: pd.DataFrame, k80: int | None) -> tuple[go.Figure, go.Figure]:
    """Singular values, and the cumulative energy with the 80% mark."""
    sv = charts.lines(table, "k", {"singular value": "σ_k"}, title="Singular values", y_title="σ")
    energy = charts.lines(table, "k", {"energy": "cumulative energy"}, hline=0.8, hline_label="80%", vline=k80,
                          vline_label=f"80% at k={k80}" if k80 else "",
                          title="Cumulative energy (share of the whole PMI matrix)", y_title="share")
    return sv, energy


def word_map(Y, points: pd.DataFrame, *, colour_by: str, title: str, highlight: str | None = None) -> go.Figure:
    """The words at their map positions, hover showing each word's nearest words in the full space; each point
    carries its row as customdata (for selections)."""
    words = points["word"].tolist()
    labelled = len(words) <= LABELLED_WORDS
    freq = points["count"].to_numpy()
    fig = go.Figure(go.Scattergl(
        x=_r(Y[:, 0]), y=_r(Y[:, 1]), mode="markers+text" if labelled else "markers", name="words",
        customdata=np.arange(len(words), dtype=np.int32), showlegend=False,
        text=[html_escape(w) for w in words] if labelled else None, textposition="top center", textfont=dict(size=9),
        hovertext=[f"<b>{html_escape(w)}</b> ({f:,})<br>near: {html_escape(h)}"
                   for w, f, h in zip(words, freq, points["near"])], hoverinfo="text",
        marker=dict(size=6, color=_r(points["colour"], 3), colorscale="Viridis" if colour_by == "frequency" else "Turbo",
                    showscale=colour_by == "frequency",
                    colorbar=dict(title=dict(text="log10 count")) if colour_by == "frequency" else None)))
    if highlight is not None and highlight in words:
        i = words.index(highlight)
        fig.add_trace(go.Scatter(x=_r(Y[[i], 0]), y=_r(Y[[i], 1]), mode="markers+text", text=[html_escape(highlight)],
                                 textposition="bottom center", showlegend=False, customdata=[i],
                                 marker=dict(size=18, symbol="circle-open", color="#e03131", line=dict(width=3))))
    return charts.layout(fig, title, 640)


def evaluation(table: pd.DataFrame) -> go.Figure:
    fig = go.Figure()
    for j, col in enumerate(["wordsim353 ρ", "simlex999 ρ"]):
        fig.add_trace(go.Bar(x=table["method"], y=table[col], name=col, marker_color=charts.PALETTE[j]))
    return charts.layout(fig, "Spearman correlation with human similarity judgements", 360)


def document_map(table: pd.DataFrame) -> go.Figure:
    fig = go.Figure(go.Scattergl(
        x=_r(table["x"]), y=_r(table["y"]), mode="markers",
        marker=dict(size=7, color=_r(np.log10(table["words"].to_numpy() + 1), 3), colorscale="Viridis",
                    showscale=True, colorbar=dict(title=dict(text="log10 words"))),
        hovertext=[html_escape(t) for t in table["text"]], hoverinfo="text"))
    return charts.layout(fig, "Documents as M·W (tf-idf weights), PCA to 2-D; hover to read", 460)


def label_plane(plane, names: list[str]) -> go.Figure:
    fig = go.Figure(go.Scatter(x=_r(plane[:, 0]), y=_r(plane[:, 1]), mode="markers+text", text=names,
                               textposition="top center", marker=dict(size=10, color=charts.PALETTE[0])))
    return charts.layout(fig, "Labels on the first two embedding dimensions", 460)
