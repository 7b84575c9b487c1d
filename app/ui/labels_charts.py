"""Chart builders for the trained label-embedding experiment: tables in, Plotly figures out."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from app.ui import charts


def precision(table: pd.DataFrame) -> go.Figure:
    """Test precision at 1, 3, 5 (and the chosen k), one group of bars per model."""
    cols = [c for c in table.columns if c.startswith("test P@")]
    fig = go.Figure()
    for i, (_, row) in enumerate(table.iterrows()):
        fig.add_trace(go.Bar(x=[c.removeprefix("test ") for c in cols], y=[row[c] for c in cols],
                             name=f"{row['model']} ({row['outputs']} outputs)", marker_color=charts.PALETTE[i],
                             text=[f"{row[c]:.3f}" for c in cols], textposition="outside"))
    fig.update_yaxes(title="share of the top labels that are true", range=[0, 1.05])
    return charts.layout(fig, "Precision at top k on the clean test rows", 380, barmode="group")


def robustness(curve: pd.DataFrame, top_k: int, current: float) -> go.Figure:
    """Test precision at ``top_k`` against the share of corrupted training labels, for every run so far."""
    fig = go.Figure()
    for i, (model, part) in enumerate(curve.groupby("model", sort=False)):
        part = part.sort_values("share")
        fig.add_trace(go.Scatter(x=part["share"], y=part["precision"], mode="lines+markers", name=model,
                                 line=dict(color=charts.PALETTE[i], width=2), marker=dict(size=8)))
    fig.add_vline(x=current, line=dict(color="#868e96", dash="dot"))
    fig.update_xaxes(title="share of training labels swapped for wrong ones", range=[-0.03, 0.63], dtick=0.1)
    fig.update_yaxes(title=f"test precision at {top_k}", rangemode="tozero")
    return charts.layout(fig, f"Label noise: test precision at {top_k} at each share run so far", 380)


def tuning(table: pd.DataFrame, top_k: int, chosen: dict) -> go.Figure:
    """Validation precision at ``top_k`` of every penalty tried, per model; the chosen one ringed."""
    col = f"validation P@{top_k}"
    fig = go.Figure()
    for i, (model, part) in enumerate(table.groupby("model", sort=False)):
        fig.add_trace(go.Scatter(x=part["alpha"], y=part[col], mode="lines+markers", name=model,
                                 line=dict(color=charts.PALETTE[i], width=2)))
        best = part[part["alpha"] == chosen[model]]
        fig.add_trace(go.Scatter(x=best["alpha"], y=best[col], mode="markers", showlegend=False, hoverinfo="skip",
                                 marker=dict(size=16, symbol="circle-open", color=charts.PALETTE[i],
                                             line=dict(width=2))))
    fig.update_xaxes(title="penalty α (log scale)", type="log", dtick=1, exponentformat="power")
    fig.update_yaxes(title=f"validation precision at {top_k}")
    return charts.layout(fig, "Tuning: each model's penalty chosen on held-out training rows (ringed)", 380)
