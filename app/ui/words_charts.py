"""Chart builders for the Words page: tables and arrays in, Plotly figures and map styles out."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from app.ui import charts
from app.ui import map as lab_map

#: The ring around the highlighted word.
HIGHLIGHT = "#e03131"


def spectrum(table: pd.DataFrame, k80: int | None) -> go.Figure:
    """Singular values (left) and their cumulative energy with the 80% mark (right), as two panels of one
    figure: a new Dimensions or Window redraws one chart in the browser, not two, which halves what the
    redraw costs there (each Plotly chart lays out its own axes and text)."""
    k = table["k"].to_numpy()
    energy = table["energy"].to_numpy(dtype=np.float64)
    grid = "#e9ecef"
    traces = [
        go.Scatter(x=k, y=table["singular value"].to_numpy(dtype=np.float64), mode="lines", name="σ_k",
                   line=dict(color=charts.PALETTE[0], width=2), hovertemplate="k = %{x}: σ = %{y:.4g}<extra></extra>"),
        go.Scatter(x=k, y=energy, mode="lines", name="cumulative energy", xaxis="x2", yaxis="y2",
                   line=dict(color=charts.PALETTE[1], width=2),
                   hovertemplate="k = %{x}: %{y:.1%} of the energy<extra></extra>"),
    ]
    top = float(energy.max()) if energy.size else 1.0
    annotations = [dict(text="80%", xref="x2 domain", x=0.0, yref="y2", y=0.8, showarrow=False, xanchor="left",
                        yanchor="bottom", font=dict(color="#868e96"))]
    if k80 is not None:
        traces.append(go.Scatter(x=[k80, k80], y=[0.0, max(top, 0.8)], mode="lines", xaxis="x2", yaxis="y2",
                                 name=f"80% at k={k80}", line=dict(color="#868e96", dash="dot", width=1.5),
                                 hoverinfo="skip"))
        annotations.append(dict(text=f"80% at k={k80}", xref="x2", x=k80, yref="y2 domain", y=1.0, showarrow=False,
                                xanchor="left", yanchor="top", font=dict(color="#868e96")))
    # the layout handed to the constructor whole: Plotly's update_layout walks every key path and took most
    # of the time this figure costs to build
    return go.Figure(traces, layout=dict(
        title=dict(text="Singular values σ_k (left) and their cumulative energy, the share of the whole PMI "
                        "matrix (right)", x=0.0, xanchor="left", font=dict(size=15)),
        height=360, margin=dict(l=10, r=10, t=50, b=30), showlegend=False,
        xaxis=dict(domain=[0.0, 0.45], title=dict(text="k"), gridcolor=grid),
        yaxis=dict(title=dict(text="σ"), gridcolor=grid),
        xaxis2=dict(domain=[0.55, 1.0], anchor="y2", title=dict(text="k"), gridcolor=grid),
        yaxis2=dict(anchor="x2", title=dict(text="share"), rangemode="tozero", gridcolor=grid),
        shapes=[dict(type="line", xref="x2 domain", x0=0, x1=1, yref="y2", y0=0.8, y1=0.8,
                     line=dict(color="#868e96", dash="dot"))],
        annotations=annotations))


def word_map_style(points: pd.DataFrame, *, colour_by: str, highlight: str | None = None) -> dict:
    """How the word map draws its words (arguments of :func:`app.ui.map.draw`): each word labelled, the
    frequent ones first as room allows; coloured by log10 count or by cluster; the tooltip giving the
    count and the five nearest words; the highlighted word ringed and always labelled."""
    words = points["word"].astype(str).tolist()
    freq = points["count"].to_numpy()
    if colour_by == "frequency":
        colour = lab_map.continuous(points["colour"].to_numpy(dtype=np.float64), title="log10 count")
    else:
        codes = points["colour"].to_numpy().astype(np.int64)
        colour = lab_map.categories(codes, names=[f"cluster {c + 1}" for c in range(int(codes.max()) + 1)],
                                    title="cluster")
    rings, always = [], []
    if highlight is not None and highlight in words:
        i = words.index(highlight)
        always = [i]
        rings = [lab_map.ring([i], name=highlight, color=HIGHLIGHT, size=11, width=3)]
    return {"labels": words, "label_priority": freq.astype(np.float64), "always_label": always,
            "color": colour, "rings": rings, "size": 5.0,
            "hover": {"count": [f"{int(f):,}" for f in freq], "near": points["near"].astype(str).tolist()}}


def evaluation(table: pd.DataFrame) -> go.Figure:
    fig = go.Figure()
    for j, col in enumerate(["wordsim353 ρ", "simlex999 ρ"]):
        fig.add_trace(go.Bar(x=table["method"], y=table[col], name=col, marker_color=charts.PALETTE[j]))
    return charts.layout(fig, "Spearman correlation with human similarity judgements", 360)


def document_map_style(table: pd.DataFrame) -> dict:
    """The document map's colour (log10 of each document's length) and tooltip (its opening)."""
    return {"color": lab_map.continuous(np.log10(table["words"].to_numpy() + 1), title="log10 words"),
            "hover": {"words": [f"{int(w):,}" for w in table["words"]], "text": table["text"].astype(str).tolist()},
            "size": 5.0, "x_title": "PC 1", "y_title": "PC 2"}


def label_plane_style(names: list[str]) -> dict:
    """The labels on the first two embedding dimensions: every label named, none over another."""
    return {"labels": list(names), "ids": list(names), "size": 7.0, "color": lab_map.single(charts.PALETTE[0]),
            "x_title": "dimension 1", "y_title": "dimension 2"}
