"""Chart builders for the Text page: tables and arrays in, Plotly figures (and the LSA plane's map) out.

Terms and document openings come from the corpus (an upload too): in Plotly's hover text and labels
they are escaped here (:func:`app.ui.text.html_escape`), and :func:`app.ui.plots.show` escapes the data
fields. The lab's map writes text as text: it gets them as they are.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from app.ui import charts, lines
from app.ui import map as lab_map
from app.ui.text import html_escape

P = charts.PALETTE
#: The LSA plane's axes through 0.
AXIS_COLOUR = "#ced4da"


def _r(values, digits: int = 5):
    return np.round(np.asarray(values, dtype=np.float64), digits)


#: The colour of a count in the slice of the matrix, at full strength (the largest count of the slice).
COUNT_RGB = (24, 100, 171)


def counts_table(table: pd.DataFrame):
    """The dense slice of the document-term matrix as a table: each count written in its cell on a blue as
    deep as the count (the slice's largest at full strength), 0 left blank and white. A table rather than a
    Plotly heatmap: the browser draws it in a fraction of the time, so moving the slice stays quick."""
    z = table.to_numpy()
    top = max(int(z.max(initial=0)), 1)
    css = {}
    for v in np.unique(z):
        if v <= 0:
            css[v] = ""
            continue
        a = 0.15 + 0.85 * float(v) / top
        css[v] = (f"background-color: rgba({COUNT_RGB[0]}, {COUNT_RGB[1]}, {COUNT_RGB[2]}, {a:.2f}); "
                  f"color: {'white' if a > 0.55 else '#212529'}")
    styles = pd.DataFrame([[css[v] for v in row] for row in z], index=table.index, columns=table.columns)
    return table.style.apply(lambda _: styles, axis=None).format(lambda v: "" if v == 0 else f"{v:d}")


def zipf(where, table: pd.DataFrame, title: str, key: str) -> dict:
    """Corpus count and document frequency against rank, log-log, as the lab's line chart (no Plotly on the
    page's first screen)."""
    # at most 500 ranks spaced evenly on the log axis the curve is read on: every rank at the head, thinner in
    # the tail (329 of Lee's 7,381), the shape unchanged
    rows = np.unique(np.round(np.geomspace(1, max(len(table), 1), 500)).astype(np.int64)) - 1
    t = table.iloc[rows[rows < len(table)]]
    terms = [str(w) for w in t["term"]]
    curves = [lines.series(t["rank"], t[col], name=name, color=P[i], text=terms)
              for i, (col, name) in enumerate((("count", "count in the corpus"), ("documents", "documents holding it")))]
    return lines.draw(where, curves, key=key, title=title, x_title="rank of the term", y_title="count", log_x=True,
                      log_y=True, height=340)


def idf_curves(curves: pd.DataFrame, n: int, marked: pd.DataFrame | None, title: str) -> go.Figure:
    """ln(n/df) and scikit-learn's ln((1+n)/(1+df)) + 1 against df, the shown document's terms marked."""
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=curves["df"], y=_r(curves["plain"]), mode="lines", name="ln(n / df) (ours)",
                             line=dict(color=P[0], width=2)))
    fig.add_trace(go.Scatter(x=curves["df"], y=_r(curves["smooth"]), mode="lines",
                             name="ln((1 + n) / (1 + df)) + 1 (scikit-learn)", line=dict(color=P[1], width=2)))
    if marked is not None and len(marked):
        fig.add_trace(go.Scatter(x=marked["df"], y=_r(marked["idf = ln(n/df)"]), mode="markers",
                                 name="this document's terms (hover for the term)",
                                 text=[html_escape(t) for t in marked["term"]],
                                 hovertemplate="%{text}: df %{x}, idf %{y:.3f}<extra></extra>",
                                 marker=dict(color=P[2], size=8)))
    fig.update_xaxes(type="log", title=f"document frequency df (of n = {n:,})")
    fig.update_yaxes(title="idf")
    return charts.layout(fig, title, height=400)


def weights_bars(table: pd.DataFrame, title: str) -> go.Figure:
    """Per term of the document: our tf·idf at unit length next to scikit-learn's."""
    terms = [html_escape(t) for t in table["term"]]
    fig = go.Figure()
    fig.add_trace(go.Bar(y=terms, x=_r(table["ours, unit length"]), orientation="h", name="ours: tf · ln(n/df)",
                         marker_color=P[0]))
    fig.add_trace(go.Bar(y=terms, x=_r(table["sklearn tf-idf"]), orientation="h",
                         name="scikit-learn: f · smooth idf", marker_color=P[1]))
    fig.update_yaxes(autorange="reversed", type="category")
    fig.update_xaxes(title="weight (document vectors scaled to length 1)")
    return charts.layout(fig, title, height=max(320, 22 * len(table) + 140), barmode="group")


def merge_ops(info: dict, title: str) -> go.Figure:
    """The merge's comparisons and multiplications against |a| + |b| and the dense dot's V multiplications."""
    labels = ["merge: comparisons", "merge: multiplications", "|a| + |b|", "dense dot: V multiplications"]
    values = [info["steps"], info["matches"], info["|a|"] + info["|b|"], info["vocabulary"]]
    return charts.bars(labels, values, title=title, y_title="operations (log scale)", text_format="{:,}",
                       log_y=True, horizontal=True, height=300)


def merge_scatter(table: pd.DataFrame, chosen: tuple[int, int] | None, title: str) -> go.Figure:
    """Comparisons against |a| + |b| over random pairs, under the line steps = |a| + |b|."""
    fig = go.Figure()
    x, y = table["|a| + |b|"].to_numpy(), table["steps"].to_numpy()
    hi = float(max(x.max(), 1)) if len(x) else 1.0
    fig.add_trace(go.Scatter(x=[0, hi], y=[0, hi], mode="lines", name="steps = |a| + |b|",
                             line=dict(color="#868e96", dash="dot")))
    fig.add_trace(go.Scattergl(x=x, y=y, mode="markers", name="random pairs of documents",
                               marker=dict(color=P[0], size=6, opacity=0.6),
                               text=[f"documents {a} and {b}" for a, b in zip(table["a"], table["b"])],
                               hovertemplate="%{text}<br>|a| + |b| = %{x}, steps %{y}<extra></extra>"))
    if chosen is not None:
        fig.add_trace(go.Scatter(x=[chosen[0]], y=[chosen[1]], mode="markers", name="the pair above",
                                 marker=dict(color=P[1], size=13, symbol="diamond")))
    fig.update_xaxes(title="|a| + |b| (stored entries of the two rows)", rangemode="tozero")
    fig.update_yaxes(title="comparisons made by the merge", rangemode="tozero")
    return charts.layout(fig, title, height=400)


def growth_curves(table: pd.DataFrame, column: str, y_title: str, title: str, log_y: bool = False) -> go.Figure:
    """One line per n: ``column`` against the tokens read."""
    fig = go.Figure()
    for i, (n, sub) in enumerate(table.groupby("n")):
        fig.add_trace(go.Scatter(x=sub["tokens"], y=_r(sub[column], 4), mode="lines+markers",
                                 name=f"n = {n}", line=dict(color=P[i % len(P)], width=2), marker=dict(size=5)))
    fig.update_xaxes(title="tokens read (documents in a random order)")
    fig.update_yaxes(title=y_title, type="log" if log_y else None)
    return charts.layout(fig, title, height=400)


def collisions(table: pd.DataFrame, bits: int | None, title: str) -> go.Figure:
    """Measured share of colliding terms against the uniform hash's expectation, per b; the chosen b marked."""
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=table["bits"], y=_r(table["expected colliding share"]), mode="lines",
                             name="expected 1 − (1 − 1/m)^(V−1)", line=dict(color="#868e96", width=2, dash="dot")))
    fig.add_trace(go.Scatter(x=table["bits"], y=_r(table["colliding share"]), mode="markers+lines",
                             name="measured", line=dict(color=P[0], width=2)))
    row = table[table["bits"] == bits]
    if bits is not None and len(row):
        fig.add_trace(go.Scatter(x=row["bits"], y=_r(row["colliding share"]), mode="markers", name=f"b = {bits}",
                                 marker=dict(color=P[1], size=14, symbol="diamond")))
    fig.update_xaxes(title="b (m = 2^b buckets)", dtick=2)
    fig.update_yaxes(title="share of terms sharing their bucket", range=[0, 1.02])
    return charts.layout(fig, title, height=380)


def distortion(table: pd.DataFrame, bits: int | None, title: str) -> go.Figure:
    """RMS error and bias of hashed cosines, with and without random signs, per b."""
    fig = go.Figure()
    for i, name in enumerate(("signed", "unsigned")):
        fig.add_trace(go.Scatter(x=table["bits"], y=_r(table[f"rmse ({name})"]), mode="lines+markers",
                                 name=f"RMS error, {name}", line=dict(color=P[i], width=2)))
        fig.add_trace(go.Scatter(x=table["bits"], y=_r(table[f"bias ({name})"]), mode="lines",
                                 name=f"mean error (bias), {name}", line=dict(color=P[i], width=1.5, dash="dash")))
    if bits is not None:
        fig.add_vline(x=bits, line=dict(color="#868e96", dash="dot"))
    fig.update_xaxes(title="b (m = 2^b buckets)", dtick=2)
    fig.update_yaxes(title="hashed inner product − cosine")
    return charts.layout(fig, title, height=380)


def concept_map(plot: dict, cx: int, cy: int, term_scale: str = "V_k Σ_k") -> tuple[np.ndarray, dict]:
    """Documents (coloured by their label when known) and the terms reaching furthest, in one concept plane:
    the points (documents first, then terms) and the rest of :func:`app.ui.map.draw`'s arguments. Only the
    terms are labelled, the furthest out first, none over another."""
    D, T = np.asarray(plot["documents"]), np.asarray(plot["terms"])
    terms = [str(t) for t in plot["term names"]]
    lab = plot["labels"]
    groups = ["documents"] if lab is None else sorted(set(lab))
    term_group = f"terms ({term_scale})"
    doc_group = ["documents"] * len(D) if lab is None else [str(g) for g in lab]
    reach = np.hypot(T[:, 0], T[:, 1])
    xy = np.vstack([D, T]) if len(T) else D
    style = {
        "ids": [f"document {i}" for i in range(len(D))] + [f"term {t}" for t in terms],
        "labels": [""] * len(D) + terms,
        "label_priority": np.concatenate([np.zeros(len(D)), 1.0 + reach]),
        # the groups and then the terms, each a colour and mark of the lab's palette, none alike
        "color": lab_map.categories(doc_group + [term_group] * len(T), names=groups + [term_group]),
        "size": np.concatenate([np.full(len(D), 5.0), np.full(len(T), 4.0)]),
        "hover": {"text": [str(t) for t in plot["opening"]] + [f"a term, {r:.3f} from 0" for r in reach]},
        "lines": [lab_map.line(1, 0, 0, color=AXIS_COLOUR, width=1), lab_map.line(0, 1, 0, color=AXIS_COLOUR, width=1)],
        "x_title": f"concept {cx}", "y_title": f"concept {cy}",
    }
    return xy, style


def svd_check(table: pd.DataFrame, title: str) -> go.Figure:
    """σ_i² from the SVD next to the eigenvalues of A^T A from an eigen-solver, concept by concept."""
    fig = go.Figure()
    fig.add_trace(go.Bar(x=table["concept"], y=_r(table["squared"], 6), name="σ² (from the SVD of A)",
                         marker_color=P[0]))
    fig.add_trace(go.Scatter(x=table["concept"], y=_r(table["eigenvalue of A^T A"], 6), mode="markers",
                             name="eigenvalue of A^T A (eigen-solver)",
                             marker=dict(color=P[1], size=11, symbol="diamond")))
    fig.update_xaxes(title="concept i", dtick=1 if len(table) <= 15 else 5)
    # a tick a decade when the values span several; otherwise Plotly's 1-2-5 ticks, not a label at every digit
    values = np.asarray(table["squared"], dtype=float)
    values = values[values > 0]
    span = float(np.log10(values.max() / values.min())) if values.size else 0.0
    fig.update_yaxes(title="σ_i² = λ_i", type="log", dtick=1 if span >= 1.5 else "D2", exponentformat="power")
    return charts.layout(fig, title, height=380)


def energy(values: np.ndarray, k: int | None, title: str) -> go.Figure:
    df = pd.DataFrame({"k": np.arange(1, len(values) + 1), "energy": values})
    return charts.lines(df, "k", {"energy": "share of ||A||²_F kept by the first k concepts"}, vline=k,
                        vline_label=f"k = {k}" if k else "", title=title, y_title="share", x_title="concepts k",
                        height=340)
