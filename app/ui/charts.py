"""Pure chart builders: arrays in, Plotly figures out. No Streamlit, no computation."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from app.ui.palette import GREY, PALETTE, plotly_style  # noqa: F401 (GREY: for the pages' charts)


_ESCAPE = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})
#: Trace fields whose strings come from data (category names, item ids) and that Plotly renders as HTML.
_DATA_FIELDS = ("x", "y", "z", "labels", "ids", "parents")


def _escaped(values):
    if isinstance(values, str):
        return values.translate(_ESCAPE)
    if isinstance(values, (list, tuple, np.ndarray, pd.Index, pd.Series)):
        arr = np.asarray(values, dtype=object)
        if arr.dtype == object and any(isinstance(v, str) for v in arr.ravel()[:1000]):
            return np.vectorize(lambda v: v.translate(_ESCAPE) if isinstance(v, str) else v, otypes=[object])(arr)
    return values


def literal(fig: go.Figure) -> go.Figure:
    """The figure with data strings escaped, so Plotly shows them as typed instead of as HTML.

    Category names on axes, in heatmap labels and legend entries come from
    people's files; Plotly reads ``<b>``, ``<a href>`` and ``<br>`` in them as
    markup. Titles, hover templates and text labels are built by the pages,
    which escape what they take from data with :func:`app.ui.text.html_escape`.
    """
    for trace in fig.data:
        for name in _DATA_FIELDS:
            value = trace[name] if name in trace else None
            if value is not None:
                escaped = _escaped(value)
                if escaped is not value:  # set again only when changed: Plotly validates (copies) what it is given
                    trace[name] = escaped
        if getattr(trace, "name", None):
            trace.name = trace.name.translate(_ESCAPE)
    for axis in fig.layout:
        if axis.startswith(("xaxis", "yaxis")):
            ax = fig.layout[axis]
            for field in ("ticktext", "categoryarray"):
                if ax[field] is not None:
                    ax[field] = _escaped(list(ax[field]))
    return fig


def _held(obj) -> dict:
    """The properties a Plotly object holds (not its defaults), without copying them: its ``_props``, or a
    copy from ``to_plotly_json`` should Plotly stop keeping them there (a layout's copy holds the template)."""
    props = getattr(obj, "_props", None)
    return props if isinstance(props, dict) else (obj.to_plotly_json() if props is None else {})


def update_layout(fig: go.Figure, **props) -> go.Figure:
    """``fig.update_layout(**props)``, faster: a property the layout does not hold yet is set directly
    (nothing to merge it with), which skips Plotly's path machinery (about 5 ms a chart at every rerun);
    the rest, and names with an underscore (possibly a path such as ``xaxis_title``), go through
    ``update_layout`` as before."""
    held = _held(fig.layout)
    merge = {}
    for key, value in props.items():
        if key in held or "_" in key or value is None:
            merge[key] = value
        else:
            fig.layout[key] = value
    if merge:
        fig.update_layout(**merge)
    return fig


def update_axis(fig: go.Figure, axis: str, **props) -> go.Figure:
    """``fig.update_xaxes(**props)`` (``axis="x"``) or ``update_yaxes`` for a figure with one axis of that kind,
    setting the properties the axis does not hold yet directly, as :func:`update_layout` does; a figure with
    several (subplots) goes through Plotly's own call."""
    name = f"{axis}axis"
    held = _held(fig.layout)
    if any(k.startswith(name) and k != name for k in held):
        return getattr(fig, f"update_{axis}axes")(**props)
    current = held.get(name) or {}
    merge = {}
    for key, value in props.items():
        if key in current or "_" in key or value is None:
            merge[key] = value
        else:
            fig.layout[name][key] = value
    if merge:
        getattr(fig, f"update_{axis}axes")(**merge)
    return fig


def layout(fig: go.Figure, title: str | None = None, height: int = 420, **kw) -> go.Figure:
    return update_layout(
        fig,
        title=dict(text=title, x=0.0, xanchor="left", font=dict(size=15)) if title else None,
        height=height,
        margin=dict(l=10, r=10, t=50 if title else 10, b=30),
        # below the plot: a long legend above it would run into the title
        legend=dict(itemsizing="constant", orientation="h", yanchor="top", y=-0.2, xanchor="left", x=0.0),
        colorway=PALETTE,  # series given no colour take the lab's palette, not Plotly's or the theme's
        **kw,
    )


def clip_line(a: float, b: float, c: float, xr, yr):
    """End points of the line a*x + b*y = c inside the box xr x yr, or None."""
    pts = []
    (x0, x1), (y0, y1) = xr, yr
    if abs(b) > 1e-12:
        for x in (x0, x1):
            y = (c - a * x) / b
            if y0 - 1e-9 <= y <= y1 + 1e-9:
                pts.append((x, y))
    if abs(a) > 1e-12:
        for y in (y0, y1):
            x = (c - b * y) / a
            if x0 - 1e-9 <= x <= x1 + 1e-9:
                pts.append((x, y))
    if len(pts) < 2:
        return None
    pts = sorted(set(pts))
    return pts[0], pts[-1]


def item_scatter(
    coords: np.ndarray,
    *,
    color=None,
    color_label: str = "",
    categorical: bool = False,
    hover: list[str] | None = None,
    lines: list[tuple[float, float, float]] | None = None,
    marked: np.ndarray | None = None,
    marked_label: str = "in the set",
    title: str | None = None,
    height: int = 460,
    colorscale: str = "Viridis",
    axis_titles: tuple[str, str] = ("", ""),
) -> go.Figure:
    """Items as points, optionally coloured, with lines (hyperplanes) and marked points; each point carries
    its row as customdata (for selections)."""
    fig = go.Figure()
    x, y = coords[:, 0], coords[:, 1]
    if categorical and color is not None:
        cats = pd.Series(color).astype(str)
        for i, cat in enumerate(sorted(cats.unique(), key=lambda v: (len(v), v))):
            m = (cats == cat).to_numpy()
            colour, symbol, _ = plotly_style(i)
            fig.add_trace(go.Scattergl(
                x=x[m], y=y[m], mode="markers", name=f"{color_label} {cat}",
                marker=dict(size=8, color=colour, symbol=symbol, line=dict(width=0.5, color="white")),
                text=None if hover is None else np.asarray(hover, dtype=object)[m], hoverinfo="text",
                customdata=np.flatnonzero(m).astype(np.int32),
            ))
    else:
        fig.add_trace(go.Scattergl(
            x=x, y=y, mode="markers", name="items",
            marker=dict(size=8, color=color, colorscale=colorscale, showscale=color is not None,
                        colorbar=dict(title=dict(text=color_label)) if color is not None else None,
                        line=dict(width=0.5, color="white")),
            text=hover, hoverinfo="text", showlegend=False, customdata=np.arange(len(x), dtype=np.int32),
        ))
    pad_x = (x.max() - x.min()) * 0.05 + 1e-9
    pad_y = (y.max() - y.min()) * 0.05 + 1e-9
    xr, yr = (x.min() - pad_x, x.max() + pad_x), (y.min() - pad_y, y.max() + pad_y)
    for i, (a, b, c) in enumerate(lines or []):
        seg = clip_line(a, b, c, xr, yr)
        if seg is None:
            continue
        (xa, ya), (xb, yb) = seg
        fig.add_trace(go.Scatter(x=[xa, xb], y=[ya, yb], mode="lines", name=f"hyperplane {i}",
                                 line=dict(color="#212529", width=1.5, dash="dash"), hoverinfo="name",
                                 showlegend=False))
    if marked is not None and len(marked):
        fig.add_trace(go.Scatter(
            x=x[marked], y=y[marked], mode="markers", name=marked_label,
            marker=dict(size=14, symbol="circle-open", color="#e03131", line=dict(width=2.5)),
            hoverinfo="skip",
        ))
    update_axis(fig, "x", range=xr, title=axis_titles[0], zeroline=False)
    update_axis(fig, "y", range=yr, title=axis_titles[1], zeroline=False, scaleanchor="x", scaleratio=1)
    return layout(fig, title, height)


def heatmap(z, *, x=None, y=None, title=None, colorscale="Blues", height=360, zmid=None, zmax=None,
            x_title="", y_title="", hover="%{z:.3g}") -> go.Figure:
    """A labelled heatmap; ``zmax`` (with ``zmid=0``) clips the colour range symmetrically."""
    limits = {} if zmax is None else {"zmin": -zmax, "zmax": zmax}
    fig = go.Figure(go.Heatmap(z=z, x=x, y=y, colorscale=colorscale, zmid=zmid, **limits,
                               hovertemplate=f"{x_title} %{{x}}<br>{y_title} %{{y}}<br>{hover}<extra></extra>"))
    update_axis(fig, "x", title=x_title)
    update_axis(fig, "y", title=y_title, autorange="reversed")
    return layout(fig, title, height)


def lines(df: pd.DataFrame, x: str, ys: dict[str, str], *, title=None, vline=None, vline_label="",
          y_title="", x_title=None, height=360, log_x=False, hline=None, hline_label="") -> go.Figure:
    fig = go.Figure()
    for i, (col, label) in enumerate(ys.items()):
        colour, symbol, dash = plotly_style(i)
        fig.add_trace(go.Scatter(x=df[x], y=df[col], mode="lines+markers", name=label,
                                 line=dict(color=colour, width=2, dash=dash), marker=dict(symbol=symbol)))
    if vline is not None:
        # a trace rather than a shape: shapes and their labels misplace on log axes
        values = np.concatenate([np.asarray(df[c], dtype=float) for c in ys])
        values = values[np.isfinite(values)]
        lo, hi = (float(values.min()), float(values.max())) if values.size else (0.0, 1.0)
        fig.add_trace(go.Scatter(x=[vline, vline], y=[lo, hi], mode="lines+text", name=vline_label or "marker",
                                 text=["", vline_label], textposition="top right", showlegend=False,
                                 line=dict(color="#868e96", dash="dot", width=1.5), hoverinfo="skip"))
    if hline is not None:
        fig.add_hline(y=hline, line=dict(color="#868e96", dash="dot"), annotation_text=hline_label)
    update_axis(fig, "x", title=x_title if x_title is not None else x, type="log" if log_x else None)
    update_axis(fig, "y", title=y_title)
    return layout(fig, title, height)


def bars(labels, values, *, errors=None, title=None, y_title="", height=360, highlight=None,
         text_format="{:.3f}", horizontal=False, log_y=False) -> go.Figure:
    colors = [PALETTE[1] if highlight is not None and highlight(lab) else PALETTE[0] for lab in labels]
    text = [text_format.format(v) for v in values]
    if horizontal:
        fig = go.Figure(go.Bar(y=list(labels), x=values, orientation="h", marker_color=colors, text=text,
                               error_x=dict(type="data", array=errors) if errors is not None else None))
        update_axis(fig, "y", autorange="reversed", type="category")
        update_axis(fig, "x", title=y_title, type="log" if log_y else None)
    else:
        fig = go.Figure(go.Bar(x=list(labels), y=values, marker_color=colors, text=text,
                               error_y=dict(type="data", array=errors) if errors is not None else None))
        update_axis(fig, "y", title=y_title, type="log" if log_y else None)
        update_axis(fig, "x", type="category")
    return layout(fig, title, height)


def tuning_bars(table: pd.DataFrame, *, title: str, height: int = 420) -> go.Figure:
    """Held-out score of every setting of each method, the setting chosen on the other half outlined."""
    fig = go.Figure()
    for j, (method, sub) in enumerate(table.groupby("method", sort=False)):
        fig.add_trace(go.Bar(
            x=sub["setting"], y=sub["rho_score"], name=method, marker_color=PALETTE[j % len(PALETTE)],
            marker_line=dict(color="#212529", width=[3 if c else 0 for c in sub["chosen"]]),
            customdata=sub["rho_choose"],
            hovertemplate="%{x}<br>ρ on the scoring half %{y:.3f}<br>ρ on the choosing half %{customdata:.3f}"
                          "<extra></extra>"))
    update_axis(fig, "y", title="Spearman ρ, scoring half")
    update_axis(fig, "x", tickangle=-35)
    return layout(fig, title, height)
