"""Chart builders for the Words page: tables and arrays in, Plotly figures and map styles out."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from app.ui import bars as lab_bars
from app.ui import charts
from app.ui import map as lab_map

#: The ring around the highlighted word.
HIGHLIGHT = "#e03131"


def spectrum(left, right, table: pd.DataFrame, k80: int | None, *, key: str) -> tuple[dict, dict]:
    """Singular values (``left``) and their cumulative energy with the 80% mark (``right``), as two of the lab's
    bar charts: they redraw at every Window or Dimensions, and a canvas draws them in a few milliseconds where a
    Plotly figure's layout took most of the change. The bars up to the 80% mark are highlighted in both."""
    k = table["k"].to_numpy()
    labels = [str(int(v)) for v in k]
    kept = (lambda lab: int(lab) <= k80) if k80 is not None else None
    energy = table["energy"].to_numpy(dtype=np.float64)
    sigma = lab_bars.draw(left, labels, table["singular value"].to_numpy(dtype=np.float64), key=f"{key}.sigma",
                          title="Singular values σ_k", y_title="σ", text_format=None, highlight=kept, height=360,
                          hover={"k": labels})
    share = lab_bars.draw(right, labels, energy, key=f"{key}.energy", y_title="share", text_format=None,
                          highlight=kept, height=360, rules=[(0.8, "80%")],
                          hover={"share of the energy": [f"{v:.1%}" for v in energy]},
                          title="Cumulative share of the energy" + (f", 80% at k = {k80}" if k80 is not None else ""))
    return sigma, share


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
