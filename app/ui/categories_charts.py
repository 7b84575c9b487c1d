"""Chart builders for the Categories page: tables and arrays in, Plotly figures out.

Numbers go to the browser as float32 (Plotly sends NumPy arrays as typed binary): seven
significant digits are far below what a heatmap cell or a bar can show.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from app.ui import bars as lab_bars
from app.ui import heatmap as lab_heatmap
from app.ui import charts
from app.ui.text import html_escape

#: Category names longer than this are cut on axes and labels (the full name is in the tables).
SHORT = 14
#: Eigenvectors drawn as bars (the first of those kept).
BARS = 4
ENCODINGS = ("one-hot", "ordinal", "spectral")


#: Up to this many points a curve marks each one; beyond, it is a plain line.
MARKED_POINTS = 60


def _marked(n: int) -> str:
    return "lines+markers" if n <= MARKED_POINTS else "lines"


def _f32(values) -> np.ndarray:
    return np.asarray(values, dtype=np.float32)


def short_labels(labels) -> list[str]:
    """Names cut to :data:`SHORT` characters, kept distinct (a category axis merges equal names)."""
    out, seen = [], set()
    for lab in labels:
        s = lab if len(lab) <= SHORT else lab[: SHORT - 1] + "…"
        base, n = s, 2
        while s in seen:
            s = f"{base} ({n})"
            n += 1
        seen.add(s)
        out.append(s)
    return out


def heatmaps(where, view: dict, *, key: str) -> dict:
    """The affinity (left) and the normalised Laplacian (right), in the order the service gave them, as two panels
    of the lab's heatmap (a canvas, no Plotly: it redraws at every γ), the category names down the left serving
    both. The Laplacian's colours span ±``view["lmax"]`` (its largest off-diagonal |L|), centred on 0."""
    lmax = view["lmax"]
    limits = {"zmid": 0.0} if lmax is None else {"zmin": -lmax, "zmax": lmax}
    return lab_heatmap.draw(where, [lab_heatmap.panel(view["A"], title="Affinity A", scale="Blues"),
                                    lab_heatmap.panel(view["L"], title="Normalised Laplacian L", scale="RdBu",
                                                      **limits)],
                            view["names"], key=key, height=480)


def spectrum(table: pd.DataFrame, gap_after: int | None, eigengap_k: int, total: int | None = None) -> go.Figure:
    """The eigenvalues, the kept ones in orange, the largest gap shaded; ``total``: the graph's eigenvalues when
    ``table`` holds only the smallest (the title says so)."""
    vals = table["eigenvalue"].to_numpy()
    n = len(vals)
    colours = [charts.PALETTE[1] if k else charts.PALETTE[0] for k in table["kept"]]
    fig = go.Figure(go.Scatter(x=table["index"].to_numpy(), y=_f32(vals), mode=_marked(n), name="eigenvalue",
                               marker=dict(size=9, color=colours)))
    if gap_after is not None:
        fig.add_vrect(x0=gap_after + 0.1, x1=gap_after + 0.9, fillcolor="#ffd43b", opacity=0.35, line_width=0,
                      annotation_text="largest gap" + _gap_says(int(np.count_nonzero(table["kept"])), eigengap_k))
    pad = 0.5 + 0.03 * n  # a fixed range: the gap's label does not stretch the axis to negative indices
    fig.update_xaxes(title="index (ascending)", dtick=1 if n <= 20 else None, range=[1 - pad, n + pad])
    top = max(2.0, vals.max() + 0.05) if n < 8 else vals.max() + 0.1
    fig.update_yaxes(title="eigenvalue of L", range=[-0.05, float(top)])
    title = "The spectrum: kept eigenvalues in orange"
    if total is not None and total > n:
        title = f"The smallest {n} of {total:,} eigenvalues: kept in orange"
    return charts.layout(fig, title, 380)


def _gap_says(n_kept: int, eigengap_k: int) -> str:
    """What a spectrum's title says of its largest gap, given how many eigenvalues are coloured as kept: "keep k"
    when the code keeps what the gap suggests, else only the suggestion (the code was chosen otherwise)."""
    return f": keep {eigengap_k}" if n_kept == eigengap_k else f" suggests {eigengap_k}"


def spectrum_bars(where, table: pd.DataFrame, gap_after: int | None, eigengap_k: int, total: int | None = None, *,
                  key: str, height: int = 380) -> dict:
    """The first screen's spectrum as the lab's bar chart (a canvas, no Plotly): one bar per eigenvalue, the kept
    ones in orange, the largest gap named in the title. It moves with every γ, so it is drawn in a few
    milliseconds instead of Plotly's redraw; the Spectrum tab keeps the Plotly chart with the gap shaded."""
    labels = [f"λ{i}" for i in table["index"]]
    kept = dict(zip(labels, table["kept"].astype(bool)))
    n = len(labels)
    n_kept = sum(kept.values())  # the title counts the bars it colours
    title = f"Eigenvalues of L, {n_kept} kept in orange"
    if total is not None and total > n:
        title = f"The smallest {n} of {total:,} eigenvalues, {n_kept} kept in orange"
    if gap_after is not None:
        title += f"; largest gap after λ{gap_after}" + _gap_says(n_kept, eigengap_k)
    return lab_bars.draw(where, labels, table["eigenvalue"].to_numpy(), key=key, title=title,
                         y_title="eigenvalue of L", text_format="{:.3f}", highlight=kept.__getitem__, height=height)


def eigenvector_bars(table: pd.DataFrame, eigenvalues: list[float], unit_rows: bool = False) -> go.Figure:
    """The first :data:`BARS` kept eigenvectors, one bar per category (each category's row scaled to length 1
    when ``unit_rows``)."""
    names = short_labels(table["category"])
    fig = go.Figure()
    for j, (col, lam) in enumerate(list(zip(table.columns[1:], eigenvalues))[:BARS]):
        fig.add_trace(go.Bar(x=names, y=_f32(table[col]), name=f"{col} (λ={lam:.3f})", marker_color=charts.PALETTE[j]))
    fig.update_layout(barmode="group")
    title = "Kept eigenvectors, one bar per category"
    if unit_rows:
        title += ", each category's row scaled to length 1"
    return charts.layout(fig, title, 380)


def code_space(table: pd.DataFrame) -> np.ndarray:
    """Every category's whole code (one column per kept eigenvector)."""
    return table.iloc[:, 1:].to_numpy(dtype=np.float64)


def code_xy(table: pd.DataFrame) -> np.ndarray:
    """Where the code map puts each category: its first two code columns (the second 0 when there is one)."""
    codes = code_space(table)
    return codes[:, :2] if codes.shape[1] > 1 else np.column_stack([codes[:, 0], np.zeros(len(codes))])


def _subscript(text: str) -> str:
    return text.translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))


def code_labels(names, xy, *, longest: int = 24) -> list[str]:
    """Each category's label on the code map: its name (cut to ``longest`` characters); categories that share
    one place (equal codes) are named together on the first of them, "Fri · Sat · Thur", the others unlabelled,
    so no name hides another."""
    xy = np.asarray(xy, dtype=np.float64)
    names = [str(v) for v in names]
    out = [v if len(v) <= longest else v[: longest - 1] + "…" for v in names]
    if len(xy) < 2:
        return out
    extent = float(np.ptp(xy, axis=0).max()) or 1.0
    # the same place, to a millionth of the map's extent
    keys = np.round((xy - xy.min(axis=0)) / (extent * 1e-6)).astype(np.int64)
    _, first, group = np.unique(keys, axis=0, return_index=True, return_inverse=True)
    group = group.ravel()
    for g in np.flatnonzero(np.bincount(group) > 1):
        members = np.flatnonzero(group == g)
        head = first[g]
        out[head] = " · ".join(names[i] for i in members)
        for i in members:
            if i != head:
                out[i] = ""
    return out


def code_map(table: pd.DataFrame, eigenvalues=None) -> dict:
    """Categories placed by their first two code columns (the second axis is 0 when there is one), named: what
    :func:`app.ui.map.draw` takes."""
    cols = list(table.columns[1:])
    names = [str(v) for v in table["category"]]
    xy = code_xy(table)
    labels = code_labels(names, xy)
    lams = list(eigenvalues or [])

    def axis(j: int) -> str:
        if j >= len(cols):
            return "(one code column: all at 0)"
        sub = _subscript(str(cols[j]).lstrip("u"))
        return f"u{sub}, eigenvector {str(cols[j]).lstrip('u')}" + (f" (λ = {lams[j]:.3g})" if j < len(lams) else "")

    hover = {"category": names} if labels != names else None
    return dict(labels=labels, hover=hover, size=7, x_title=axis(0), y_title=axis(1), height=460,
                title="Categories placed by their code (first two kept eigenvectors)")


def gamma_sweep(sweep: pd.DataFrame, n_categories: int) -> go.Figure:
    """One spectrum per multiple of γ, the current one drawn thicker."""
    fig = go.Figure()
    for j, (factor, sub) in enumerate(sweep.groupby("factor", sort=True)):
        fig.add_trace(go.Scatter(x=sub["index"].to_numpy(), y=_f32(sub["eigenvalue"]), mode=_marked(len(sub)),
                                 name=f"γ × {factor:g}",
                                 line=dict(width=3 if factor == 1.0 else 1.5, color=charts.PALETTE[j])))
    fig.update_xaxes(title="index", dtick=1 if n_categories <= 20 else None)
    fig.update_yaxes(title="eigenvalue")
    return charts.layout(fig, "Spectra for γ a hundredth to a hundred times the current one", 420)


def fiedler_bars(sweep: pd.DataFrame) -> go.Figure:
    names = short_labels(sweep["category"])
    fig = go.Figure(go.Bar(x=names, y=_f32(sweep["fiedler"]), name="Fiedler value", marker_color=charts.PALETTE[0]))
    return charts.layout(fig, "Categories ordered by the Fiedler vector", 380)


def sweep_cut(sweep: pd.DataFrame) -> go.Figure:
    """Conductance and cut weight of the cut after each category (the last row is no cut)."""
    names = short_labels(sweep["category"])[:-1]
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=names, y=_f32(sweep["conductance"].to_numpy()[:-1]), mode=_marked(len(names)),
                             name="conductance", line=dict(color=charts.PALETTE[1])))
    fig.add_trace(go.Scatter(x=names, y=_f32(sweep["cut"].to_numpy()[:-1]), mode=_marked(len(names)), name="cut weight",
                             yaxis="y2", line=dict(color=charts.PALETTE[0], dash="dot")))
    fig.update_layout(yaxis=dict(title="conductance"), yaxis2=dict(title="cut", overlaying="y", side="right"))
    return charts.layout(fig, "Sweep cut: everything up to a category on one side", 380)


def downstream(table: pd.DataFrame) -> go.Figure:
    """Held-out R² by model, one bar group per encoding, with each score's 95% interval."""
    fig = go.Figure()
    for j, enc in enumerate(dict.fromkeys(table["encoding"])):
        sub = table[table["encoding"] == enc]
        fig.add_trace(go.Bar(x=sub["model"], y=sub["r2"], name=enc, marker_color=charts.PALETTE[j],
                             error_y=dict(type="data", symmetric=False, array=(sub["high"] - sub["r2"]).clip(lower=0),
                                          arrayminus=(sub["r2"] - sub["low"]).clip(lower=0))))
    fig.update_yaxes(title="held-out R²")
    return charts.layout(fig, "Held-out R² by model and encoding (95% intervals)", 380)


# ---------------------------------------------------------------- the target behind a learned kernel


def _scale_title(target: str, log: bool) -> str:
    return f"log(1 + {target})" if log else target


def histogram_heatmap(view: dict) -> go.Figure:
    """Each category's share of its rows per bin (one row per category, the Fiedler order of the affinity)."""
    names = short_labels(view["names"])
    edges = np.asarray(view["edges"], dtype=np.float64)
    centres = _f32((edges[:-1] + edges[1:]) / 2)
    what = "smoothed p_i(b), as KL compares them" if view["smoothed"] else "share of the category's rows"
    fig = charts.heatmap(_f32(view["shares"]), x=centres, y=names, colorscale="Viridis", height=480,
                         x_title=_scale_title(html_escape(view["target"]), view["log"]), hover="%{z:.3f}",
                         title=f"Target histograms ({view['bins']} bins): {what}")
    fig.update_xaxes(tickformat=".3~g")
    return fig


def kernel_beside(view: dict) -> go.Figure:
    """The affinity in the same order as :func:`histogram_heatmap`."""
    names = short_labels(view["names"])
    return charts.heatmap(_f32(view["A"]), x=names, y=names, title="The learned kernel A, same order",
                          colorscale="Blues", height=480)


def pooled_histograms(view: dict) -> tuple[go.Figure, go.Figure | None]:
    """The whole target as it is and as log(1 + target), as the article plots sales and log sales."""
    figs = []
    for key, log in (("raw", False), ("log", True)):
        h = view[key]
        if h is None:
            figs.append(None)
            continue
        edges = np.asarray(h["edges"], dtype=np.float64)
        kernel = (view["kernel_scale"] == "log1p") == log
        fig = go.Figure(go.Bar(x=_f32((edges[:-1] + edges[1:]) / 2), y=_f32(h["counts"]),
                               width=float(np.diff(edges)[0]), name="rows",
                               marker_color=charts.PALETTE[1] if kernel else charts.GREY))
        fig.update_xaxes(title=_scale_title(html_escape(view["target"]), log))
        fig.update_yaxes(title="rows")
        mark = " (the kernel's scale)" if kernel else ""
        figs.append(charts.layout(fig, f"All rows: {_scale_title(html_escape(view['target']), log)}{mark}, "
                                       f"skewness {h['skew']:.2f}", 300))
    return figs[0], figs[1]


def pair_histograms(view: dict) -> go.Figure:
    """Two categories' histograms on one grid, the kernel's scale."""
    edges = np.asarray(view["edges"], dtype=np.float64)
    centres = _f32((edges[:-1] + edges[1:]) / 2)
    fig = go.Figure()
    for k in range(2):
        fig.add_trace(go.Scatter(x=centres, y=_f32(view["shares"][k]), mode="lines", line_shape="hvh",
                                 name=f"{view['names'][k]} ({view['rows'][k]} rows)",
                                 line=dict(color=charts.PALETTE[k], width=2.5), fill="tozeroy"))
    fig.update_xaxes(title=_scale_title(html_escape(view["target"]), view["log"]))
    fig.update_yaxes(title="smoothed p(b)" if view["kernel"] == "kl" else "share of rows")
    return charts.layout(fig, "Their histograms" + (" (what KL compares)" if view["kernel"] == "kl" else ""), 340)


def pair_cdfs(view: dict) -> go.Figure:
    """Two categories' empirical CDFs: the 1-Wasserstein distance is the area between them."""
    fig = go.Figure()
    for k, (x, f) in enumerate(view["cdfs"]):
        fig.add_trace(go.Scatter(x=_f32(x), y=_f32(f), mode="lines", line_shape="hv",
                                 name=view["names"][k], line=dict(color=charts.PALETTE[k], width=2.5)))
    fig.update_xaxes(title=_scale_title(html_escape(view["target"]), view["log"]))
    fig.update_yaxes(title="share of rows ≤ x", range=[0, 1.02])
    note = " (Wasserstein: the area between them)" if view["kernel"] == "wasserstein" else ""
    return charts.layout(fig, "Their CDFs" + note, 340)


# ---------------------------------------------------------------- one-hot and label encoding as kernels


def special_kernel(view: dict) -> go.Figure:
    names = short_labels(view["labels"])
    return charts.heatmap(_f32(view["A"]), x=names, y=names, title="The kernel K", colorscale="Blues", height=360)


def special_spectrum(view: dict) -> go.Figure:
    """The eigenvalues, and for label encoding the path graph's beside them."""
    vals = np.asarray(view["eigenvalues"])
    idx = np.arange(1, vals.size + 1)
    fig = go.Figure(go.Scatter(x=idx, y=_f32(vals), mode=_marked(len(idx)), name="this kernel",
                               marker=dict(size=9, color=charts.PALETTE[0])))
    if view["path"] is not None:
        fig.add_trace(go.Scatter(x=idx, y=_f32(view["path"]["eigenvalues"]), mode=_marked(len(idx)),
                                 name="path graph: 1 − cos(πk/(n−1))",
                                 line=dict(dash="dot", color=charts.PALETTE[1]), marker=dict(symbol="x", size=8)))
    fig.update_xaxes(title="index (ascending)", dtick=1 if vals.size <= 20 else None)
    fig.update_yaxes(title="eigenvalue of L", range=[-0.05, 2.05])
    return charts.layout(fig, "The spectrum", 360)


def special_vectors(view: dict) -> go.Figure:
    """The first eigenvectors after u1 over the categories' order; for label encoding, the path's cosines dotted."""
    names = short_labels(view["labels"])
    fig = go.Figure()
    for j, col in enumerate(view["shown"]):
        colour = charts.PALETTE[j % len(charts.PALETTE)]
        fig.add_trace(go.Scatter(x=names, y=_f32(view["vectors"][:, j]), mode=_marked(len(names)), name=f"u{col + 1}",
                                 line=dict(color=colour, width=2.5)))
        if view["path"] is not None:
            fig.add_trace(go.Scatter(x=names, y=_f32(view["path"]["vectors"][:, j]), mode="lines",
                                     name=f"path u{col + 1} (cosine)", line=dict(color=colour, dash="dot", width=1.5)))
    fig.update_yaxes(title="entry of the eigenvector")
    return charts.layout(fig, "Eigenvectors u2, u3, … over the categories' order", 380)
