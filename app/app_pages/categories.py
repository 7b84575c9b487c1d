import json

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from app.services import categories as svc
from app.services import data as data_service
from app.ui import charts, plots
from app.ui.controls import ranged_slider
from app.ui.sidebar import data_source
from app.ui.text import html_escape, md_escape
from embedcore import spectral

st.title("Categories: spectral encoding")
st.markdown(
    """
One-hot encoding says every category is equally unlike every other; an ordinal code invents
an order. **Spectral encoding** starts from a *similarity* between category values (given,
or learned by comparing the distribution of a target within each value), builds the graph
whose nodes are the values, and keeps the smoothest eigenvectors of its normalised
Laplacian as a short dense code: alike values get alike numbers. The same eigenvectors
**cluster** the categories: the second one (the *Fiedler vector*) orders them so that a
single threshold cuts the graph where it is thinnest.
"""
)
st.latex(
    r"A_{ij} = e^{-\gamma\, d(p_i, p_j)}\ (i \ne j),\quad A_{ii} = 0,\quad L = I - D^{-1/2} A D^{-1/2},\quad "
    r"L u_k = \lambda_k u_k,\quad 0 = \lambda_1 \le \lambda_2 \le \dots \le 2"
)
st.caption(
    "d: 1-Wasserstein distance or symmetric KL divergence between the target's distributions p_i "
    "within two category values; D: the diagonal of degrees; the code of value i is (u_2(i), ..., u_{k+1}(i)), "
    "with k chosen at the largest gap in the spectrum. When the graph has several connected components, "
    "the indicators of all components but the first come before u_2 in the code."
)

seed = data_service.seed()
sb = st.sidebar
DEFAULTS = {"tips": ("day", "tip"), "gapminder": ("country", "lifeExp"), "wind": ("direction", "frequency")}
kind = sb.radio("Similarity", ["learned from a table", "given matrix"], key="cat.kind", horizontal=True,
                help="Learn the kernel from a table's target, or use a bundled precomputed matrix.")

frame = None
if kind == "given matrix":
    from embedcore import datasets

    ids = [d.id for d in datasets.datasets_of_kind("graph")]
    gid = sb.selectbox("Matrix", ids, format_func=lambda i: datasets.DATASETS[i].title, key="cat.graph")
    graph = data_service.bundled(gid, seed)
    labels, base = graph.labels, graph.matrix
    st.caption(md_escape(graph.description))
    key = f"graph:{gid}"
    uses_gamma = graph.kind == "distance"
    counts = None
else:
    source, table = data_source("table", "cat", default="tips")
    frame = table.frame
    cat_cols = [c for c in frame.columns if frame[c].dtype.kind not in "fiub" or frame[c].nunique() <= 30]
    num_cols = [c for c in frame.columns if frame[c].dtype.kind in "fiu"]
    if not cat_cols or not num_cols:
        st.error("This table needs a categorical column and a numeric target column; it has "
                 f"{len(cat_cols)} categorical and {len(num_cols)} numeric. Upload another table.")
        st.stop()
    dc, dt = DEFAULTS.get(source, (cat_cols[0], num_cols[-1]))
    column = sb.selectbox("Categorical column", cat_cols, index=cat_cols.index(dc) if dc in cat_cols else 0,
                          key=f"cat.column.{source}")
    targets = [c for c in num_cols if c != column]
    if not targets:
        st.error(f"No numeric column is left as a target once '{md_escape(column)}' is the category. "
                 "Upload a table with a numeric target.")
        st.stop()
    target = sb.selectbox("Numeric target", targets, index=targets.index(dt) if dt in targets else 0,
                          key=f"cat.target.{source}")
    kernel = sb.radio("Kernel", ["wasserstein", "kl"], key="cat.kernel", horizontal=True,
                      help="1-Wasserstein distance between the target's distributions, or the symmetric "
                      "KL divergence of their smoothed histograms.")
    transform = sb.radio("Target transform", ["none", "log1p"], key="cat.transform", horizontal=True,
                         help="log(1 + y) tames a skewed target, as the article does for sales.")
    clean = frame.dropna(subset=[column, target])
    if len(clean) < len(frame):
        st.info(f"{len(frame) - len(clean):,} rows with a missing category or target are left out.")
    n_levels = clean[column].astype(str).nunique()
    if n_levels > 2000:
        st.error(f"'{md_escape(column)}' has {n_levels:,} distinct values; the page draws up to 2,000. "
                 "Pick a column with fewer values.")
        st.stop()
    if n_levels < 3:
        st.error(f"'{md_escape(column)}' has {n_levels} distinct value(s); a graph needs at least 3 to say anything.")
        st.stop()
    data_key = data_service.source_key(source)
    try:
        labels, base, counts = svc.distances(data_key, column, target, kernel,
                                             None if transform == "none" else transform, _frame=clean)
    except ValueError as err:
        st.error(f"Cannot learn a kernel from '{md_escape(column)}' and '{md_escape(target)}': {md_escape(err)}")
        st.stop()
    key = f"{data_key}:{column}:{target}:{kernel}:{transform}"
    uses_gamma = True

gamma = None
if uses_gamma:
    typical = svc.typical_distance(base)
    rel = sb.slider("log10(γ × typical distance)", -3.0, 3.0, 0.0, 0.1, key="cat.log_gamma",
                    bind="query-params",
                    help="γ sets how fast similarity falls with distance. 0 means γ = 1 / (median distance); "
                    "each step of 1 multiplies γ by 10.")
    gamma = float(10**rel / typical)
    sb.caption(f"γ = {gamma:.4g} (median distance {typical:.4g})")
ncomp_mode = sb.radio("Components", ["eigengap", "fixed"], key="cat.ncomp_mode", horizontal=True,
                      help="Keep the eigenvectors below the largest gap, or a number you choose.")
n_fixed = sb.slider("Number of components", 1, max(1, min(10, len(labels) - 1)), min(2, max(1, len(labels) - 1)),
                    key="cat.n_fixed", disabled=ncomp_mode == "eigengap")
keep_trivial = sb.checkbox("Keep the trivial eigenvector", key="cat.keep_trivial",
                           help="The first eigenvector only reflects the degrees; trees can use it, linear models "
                           "find it collinear with the intercept.")

with st.expander("What the controls change, and how the pictures can mislead"):
    st.markdown(
        """
* **γ** is the knob this page is about. Large γ makes every value unlike every other: each
  keeps only its nearest neighbours, the spectrum spreads out over [0, 2] with many
  eigenvalues near 0 (loosely joined groups) and near 2 (isolated pairs), and once the
  affinities underflow to 0 the graph falls apart (one zero eigenvalue per component).
  Small γ makes them all alike (one eigenvalue 0, the rest near n/(n-1), no structure). Useful codes live in between: watch the gap in the spectrum.
* **Kernel** changes how two target distributions are compared; Wasserstein looks at how far
  mass must move, KL at how much the histograms overlap (blind to how far apart bins are).
* **Components / eigengap** chooses the code's width; **keep trivial** adds the first
  eigenvector.
* *Misleading pictures.* Eigenvectors are defined up to sign (flips between runs mean
  nothing) and, when eigenvalues are nearly equal, up to rotation: a small γ change can swap
  them. A gap found in a spectrum of a handful of categories can be luck. A learned kernel
  only knows the target: values that behave alike on it are "similar" even if they mean
  different things, and rare values have noisy distributions.
"""
    )

try:
    A, L, vals, vecs = svc.spectrum(key, gamma, _base=base)
except ValueError as err:
    st.error(f"{md_escape(err)}")
    st.stop()

n_cc = spectral.n_connected_components(vals)
k_gap = spectral.eigengap(vals)
kept = spectral.code_columns(vals, "eigengap" if ncomp_mode == "eigengap" else n_fixed, keep_trivial)
k = len([i for i in kept if i >= n_cc])
codes = vecs[:, kept]

cols = st.columns(5)
cols[0].metric("categories", len(labels))
cols[1].metric("connected components", n_cc)
cols[2].metric("suggested k (eigengap)", k_gap)
cols[3].metric("code width", len(kept))
cols[4].metric("λ₂ of the normalised L", f"{vals[1]:.3f}",
               help="0 exactly when the graph is disconnected; small when it nearly splits in two. (The "
               "'algebraic connectivity' is the same eigenvalue of the unnormalised L = D - A.)")
if n_cc > 1:
    parts = svc.components(key, gamma, _A=A, _labels=labels)
    shown = "; ".join("{" + ", ".join(md_escape(c) for c in part[:8]) + (", …" if len(part) > 8 else "") + "}"
                      for part in parts[:6])
    st.warning(f"The graph has fallen apart into {n_cc} connected components ({n_cc} zero eigenvalues): {shown}"
               f"{'; …' if len(parts) > 6 else ''}. Their indicator vectors join the code (all but the first: "
               "with an intercept they fix it), so categories in different components stay apart. Lower γ to "
               "connect them.")

tabs = st.tabs(["Affinity and Laplacian", "Spectrum", "Eigenvectors", "γ sweep", "Downstream test",
                "Clustering", "Download"])
short = [lab if len(lab) <= 14 else lab[:13] + "…" for lab in labels]

with tabs[0]:
    order_by = st.radio("Order the categories", ["as given", "by the Fiedler vector"],
                        index=1, key="cat.order", horizontal=True,
                        help="Sorting by the second eigenvector puts alike categories next to each other, so the "
                        "graph's blocks show up along the diagonal.")
    if order_by == "as given":
        order = np.arange(len(labels))
    else:
        order = np.argsort(vecs[:, 1] / np.sqrt(np.asarray(A.sum(axis=1)).ravel()), kind="stable")
    names_o = [short[i] for i in order]
    c1, c2 = st.columns(2)
    plots.show(c1, charts.heatmap(A[np.ix_(order, order)], x=names_o, y=names_o, title="Affinity A",
                                   colorscale="Blues", height=480), key="cat.chart.affinity")
    off = np.abs(L - np.diag(np.diag(L))).max()
    plots.show(c2, charts.heatmap(L[np.ix_(order, order)], x=names_o, y=names_o, title="Normalised Laplacian L",
                                   colorscale="RdBu", zmid=0, zmax=float(off) if off > 0 else None, height=480),
                    key="cat.chart.laplacian")
    st.caption("The Laplacian's colour scale spans its off-diagonal entries (the diagonal is 1 and saturates), "
               "so the negative similarities between categories stay visible.")
    if counts is not None:
        st.caption(f"Learned from {int(counts.sum()):,} rows; the rarest value has {int(counts.min())} rows, "
                   f"the most common {int(counts.max())}.")

with tabs[1]:
    idx = np.arange(1, len(vals) + 1)
    fig = go.Figure(go.Scatter(x=idx, y=vals, mode="markers+lines", name="eigenvalue",
                               marker=dict(size=9, color=["#e8590c" if i in kept else "#3b5bdb" for i in range(len(vals))])))
    gap_at = max(n_cc, 1) + k_gap
    if gap_at < len(vals):
        fig.add_vrect(x0=gap_at + 0.1, x1=gap_at + 0.9, fillcolor="#ffd43b", opacity=0.35, line_width=0,
                      annotation_text=f"largest gap: keep {k_gap}")
    fig.update_xaxes(title="index (ascending)", dtick=1 if len(labels) <= 20 else None)
    fig.update_yaxes(title="eigenvalue of L", range=[-0.05, max(2.0, vals.max() + 0.05) if len(vals) < 8 else vals.max() + 0.1])
    plots.show(st, charts.layout(fig, "The spectrum: kept eigenvalues in orange", 380), key="cat.chart.spectrum")
    st.dataframe(pd.DataFrame({"index": idx, "eigenvalue": vals.round(6), "kept": [i in kept for i in range(len(vals))]}),
                 hide_index=True, height=220, key="cat.eigen_table")

with tabs[2]:
    shown = kept[:4]
    fig = go.Figure()
    for j, col in enumerate(shown):
        fig.add_trace(go.Bar(x=short, y=vecs[:, col], name=f"u{col + 1} (λ={vals[col]:.3f})",
                             marker_color=charts.PALETTE[j]))
    fig.update_layout(barmode="group")
    plots.show(st, charts.layout(fig, "Kept eigenvectors, one bar per category", 380), key="cat.chart.vectors")
    xy = codes[:, :2] if codes.shape[1] >= 2 else np.column_stack([codes[:, 0], np.zeros(len(labels))])
    fig = go.Figure(go.Scatter(x=xy[:, 0], y=xy[:, 1], mode="markers+text", text=[html_escape(s) for s in short],
                               textposition="top center", marker=dict(size=10, color=charts.PALETTE[0])))
    fig.update_xaxes(title=f"u{kept[0] + 1}")
    fig.update_yaxes(title=f"u{kept[1] + 1}" if len(kept) > 1 else "")
    plots.show(st, charts.layout(fig, "Categories placed by their code (first two kept eigenvectors)", 460),
                    key="cat.chart.codes")

with tabs[3]:
    if gamma is None:
        st.info("This matrix is a given affinity: there is no γ to sweep. Pick the liquor KL distances or a table.")
    else:
        factors = [0.01, 0.1, 1.0, 10.0, 100.0]
        fig = go.Figure()
        for j, f in enumerate(factors):
            try:
                _, _, v, _ = svc.spectrum(key, gamma * f, _base=base)
            except ValueError:
                continue  # the graph fell apart at this gamma
            fig.add_trace(go.Scatter(x=np.arange(1, len(v) + 1), y=v, mode="lines+markers", name=f"γ × {f:g}",
                                     line=dict(width=3 if f == 1.0 else 1.5, color=charts.PALETTE[j])))
        fig.update_xaxes(title="index", dtick=1 if len(labels) <= 20 else None)
        fig.update_yaxes(title="eigenvalue")
        plots.show(st, charts.layout(fig, "Spectra for γ a hundredth to a hundred times the current one", 420),
                        key="cat.chart.sweep")
        st.caption("Small γ: one zero, the rest bunched near n/(n-1). Large γ: the spectrum spreads over [0, 2] "
                   "and, when affinities underflow, extra zeros appear as the graph splits. The useful γ shows a few "
                   "small eigenvalues, then a gap.")

with tabs[4]:
    if frame is None:
        st.info("The downstream test needs a table with a target; pick 'learned from a table'.")
    else:
        st.markdown("Cross-validated R² (5 folds, shuffled with the seed) of a random forest and of ridge regression "
                    f"predicting **{md_escape(target)}** from **{md_escape(column)}** (one-hot, ordinal or spectral "
                    "with the current settings, refitted inside each fold) plus the table's other numeric columns.")
        bench_key = f"cat.bench.{key}.{gamma}.{k}.{keep_trivial}.{seed}"
        if st.button("Run the downstream test", key="cat.run_bench", type="primary"):
            bar = st.progress(0.0, text="starting")
            params = dict(kernel=kernel, gamma=gamma, n_components="eigengap" if ncomp_mode == "eigengap" else n_fixed,
                          keep_trivial=keep_trivial, target_transform=None if transform == "none" else transform)
            try:
                st.session_state[bench_key] = svc.downstream(clean, column, target, params, seed,
                                                             lambda f, t: bar.progress(f, text=f"done: {t}"))
            except ValueError as err:
                st.error(md_escape(err))
            bar.empty()
        result = st.session_state.get(bench_key)
        if result is not None:
            st.dataframe(result.round(4), hide_index=True, key="cat.bench_table")
            fig = go.Figure()
            for j, enc in enumerate(["one-hot", "ordinal", "spectral"]):
                sub = result[result["encoding"] == enc]
                fig.add_trace(go.Bar(x=sub["model"], y=sub["r2"], error_y=dict(type="data", array=sub["r2_std"]),
                                     name=enc, marker_color=charts.PALETTE[j]))
            fig.update_yaxes(title="R²")
            plots.show(st, charts.layout(fig, "Cross-validated R² by model and encoding", 380), key="cat.chart.bench")

with tabs[5]:
    n_clusters = ranged_slider("Clusters", 2, min(10, len(labels) - 1), 2, key="cat.clusters",
                               why="splitting 3 categories into 3 clusters would say nothing")
    sweep, clusters = svc.sweep_and_clusters(key, gamma, n_clusters, seed, _A=A, _labels=labels, _vecs=vecs)
    c1, c2 = st.columns(2)
    fig = go.Figure()
    fig.add_trace(go.Bar(x=sweep["category"], y=sweep["fiedler"], name="Fiedler value", marker_color=charts.PALETTE[0]))
    plots.show(c1, charts.layout(fig, "Categories ordered by the Fiedler vector", 380), key="cat.chart.fiedler")
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=sweep["category"][:-1], y=sweep["conductance"][:-1], mode="lines+markers",
                             name="conductance", line=dict(color=charts.PALETTE[1])))
    fig.add_trace(go.Scatter(x=sweep["category"][:-1], y=sweep["cut"][:-1], mode="lines+markers", name="cut weight",
                             yaxis="y2", line=dict(color=charts.PALETTE[0], dash="dot")))
    fig.update_layout(yaxis=dict(title="conductance"), yaxis2=dict(title="cut", overlaying="y", side="right"))
    plots.show(c2, charts.layout(fig, "Sweep cut: everything up to a category on one side", 380), key="cat.chart.cut")
    cond = sweep["conductance"].to_numpy()[:-1]
    if np.isfinite(cond).any():
        best = int(np.nanargmin(cond))
        st.caption(f"Lowest conductance {cond[best]:.3f} cutting after '{md_escape(sweep['category'].iloc[best])}'.")
    else:
        st.caption("No cut has a conductance: at this γ no category has any similarity to another, so every "
                   "side of every cut has zero volume. Lower γ.")
    table = pd.DataFrame({"category": labels, "cluster": clusters})
    st.dataframe(table.groupby("cluster")["category"].apply(lambda s: ", ".join(s)).reset_index(),
                 hide_index=True, key="cat.clusters_table")

with tabs[6]:
    enc = pd.DataFrame(codes, columns=[f"u{i + 1}" for i in kept])
    enc.insert(0, "category", labels)
    params = {"similarity": kind, "gamma": gamma, "components": [i + 1 for i in kept], "keep_trivial": keep_trivial,
              "seed": seed}
    if frame is not None:
        params.update(column=column, target=target, kernel=kernel, transform=transform)
    st.download_button("Encoding table (.csv)", enc.to_csv(index=False), "spectral_encoding.csv", "text/csv",
                       key="cat.dl_enc")
    st.download_button("Affinity matrix (.csv)", pd.DataFrame(A, index=labels, columns=labels).to_csv(),
                       "affinity.csv", "text/csv", key="cat.dl_aff")
    st.download_button("Parameters (.json)", json.dumps(params, indent=2), "parameters.json", "application/json",
                       key="cat.dl_params")
    st.dataframe(enc.round(5), hide_index=True, key="cat.enc_table")
