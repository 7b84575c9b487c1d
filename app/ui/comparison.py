"""Showing a comparison made by the lab's protocol (embedcore.evaluation): what was done, what each side chose,
held-out scores with their intervals, and what the differences allow one to say."""

from __future__ import annotations

import math

import pandas as pd
import plotly.graph_objects as go

from app.ui import plots
from app.ui.charts import PALETTE, layout


def interval_text(mean: float, low: float, high: float, digits: int = 3) -> str:
    """``0.512 [0.401, 0.623]``; the interval left out when there is none.

    >>> interval_text(0.5, 0.4, 0.6), interval_text(0.5, float("nan"), float("nan"))
    ('0.500 [0.400, 0.600]', '0.500')
    """
    if not (math.isfinite(low) and math.isfinite(high)):
        return f"{mean:.{digits}f}"
    return f"{mean:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"


def sides_table(result, score: str = "held-out score") -> pd.DataFrame:
    """One row per side: chosen setting, how often, the grid, edge flags and the held-out score with its interval."""
    s = result.sides
    return pd.DataFrame({
        "side": s["side"],
        f"{score} [95% interval]": [interval_text(m, lo, hi) for m, lo, hi in zip(s["held-out"], s["low"], s["high"])],
        "chosen setting (most folds)": s["chosen"],
        "chosen in": s["chosen in"],
        "grid searched": s["grid"],
        "on the grid's edge": s["edge"].replace("", "no"),
    })


def differences_table(result) -> pd.DataFrame:
    """One row per compared pair: the paired difference with its interval and the verdict."""
    d = result.differences
    return pd.DataFrame({"comparison": [f"{a} − {b}" for a, b in zip(d["a"], d["b"])],
                         "difference [95% interval]": [interval_text(m, lo, hi)
                                                       for m, lo, hi in zip(d["difference"], d["low"], d["high"])],
                         "verdict": d["verdict"]})


def intervals_chart(result, *, title: str, y_title: str, height: int = 380) -> go.Figure:
    """Each side's held-out mean with its interval as an error bar."""
    s = result.sides
    fig = go.Figure(go.Scatter(
        x=s["side"], y=s["held-out"], mode="markers", marker=dict(size=11, color=PALETTE[0]),
        error_y=dict(type="data", symmetric=False, array=(s["high"] - s["held-out"]).fillna(0),
                     arrayminus=(s["held-out"] - s["low"]).fillna(0)),
        customdata=s["chosen"], hovertemplate="%{x}<br>%{y:.3f}<br>chosen: %{customdata}<extra></extra>"))
    fig.update_yaxes(title=y_title)
    fig.update_xaxes(type="category")
    return layout(fig, title, height)


def show(where, result, *, key: str, score: str, what: str) -> None:
    """The protocol, the sides' table, the chart of intervals and the differences, in ``where``."""
    where.caption(f"Protocol: {result.protocol}")
    where.dataframe(sides_table(result, score), hide_index=True, key=f"{key}.sides")
    plots.show(where, intervals_chart(result, title=f"{what}: held-out {score} with 95% intervals", y_title=score),
               key=f"{key}.chart")
    where.dataframe(differences_table(result), hide_index=True, key=f"{key}.differences")
