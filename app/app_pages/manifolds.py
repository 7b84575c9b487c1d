import json

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st
from plotly.subplots import make_subplots

from app.services import data as data_service
from app.services import manifolds as svc
from app.ui import charts, plots
from app.ui.sidebar import data_source
from app.ui.text import html_escape, md_escape
from embedcore.maps import METHODS

st.title("Manifolds: Locally Linear Embedding")
st.markdown(
    """
**LLE** assumes a curved surface is flat when seen up close. It writes every point as a
weighted average of its **B** nearest neighbours, then looks for 2-D points that the
*same* weights rebuild. The weights capture the local geometry (angles, proportions)
and know nothing about where the surface sits in space, so the sheet can be unrolled.
With too few neighbours the neighbourhoods stop overlapping and the map **tears** into
pieces; with too many, neighbourhoods reach across folds of the sheet and the map
**folds** onto itself.
"""
)
st.latex(
    r"\min_W \sum_i \Big\lVert x_i - \sum_{j \in N_B(i)} W_{ij} x_j \Big\rVert^2 \ \text{s.t.}\ \sum_j W_{ij} = 1"
)
st.latex(
    r"\min_{Y^\top Y = I} \sum_i \Big\lVert y_i - \sum_j W_{ij} y_j \Big\rVert^2 = \operatorname{tr}(Y^\top M Y),"
    r"\qquad M = (I - W)^\top (I - W)"
)
st.caption("The embedding is the bottom eigenvectors of M after the constant one (eigenvalue 0); the sum of the "
           "kept eigenvalues is the reconstruction error the 2-D points attain.")

seed = data_service.seed()
sb = st.sidebar
source, vdata = data_source("vectors", "man", default="swiss_roll", usable=svc.input_problem)
color_label = "t"
if source in svc.GENERATORS:
    n = sb.slider("Points", 300, 5000, 1500, 100, key="man.n", help="Sample size of the generated manifold.")
    noise = sb.slider("Noise", 0.0, 1.0, 0.0, 0.05, key="man.noise", help="Gaussian noise added to every coordinate.")
    vdata = svc.generated(source, n, noise, seed)
    data_key = f"{source}:{n}:{noise}:{seed}"
else:
    data_key = data_service.source_key(source)
    if len(vdata.X) > 5000:
        rng = np.random.default_rng(seed)
        keep = np.sort(rng.choice(len(vdata.X), 5000, replace=False))
        st.info(f"The data has {len(vdata.X):,} points; this page uses a random sample of 5,000 (seed {seed}).")
        vdata = type(vdata)(vdata.name, X=vdata.X[keep],
                            meta=None if vdata.meta is None else vdata.meta.iloc[keep].reset_index(drop=True),
                            columns=vdata.columns)
        data_key += f":sample{seed}"
X = svc.rescaled(data_key, _X=vdata.X)
colour = None
if vdata.meta is not None and vdata.meta.shape[1]:
    color_label = str(vdata.meta.columns[0])
    colour = vdata.meta.iloc[:, 0].to_numpy()
categorical_colour = colour is not None and colour.dtype.kind not in "fiu"

B = sb.slider("B: neighbours", 3, min(svc.MAX_B, len(X) - 1), min(12, len(X) - 1), key="man.B", bind="query-params",
              help="How many nearest neighbours rebuild each point.")
reg_exp = sb.slider("log10(reg)", -6.0, 0.0, -3.0, 0.5, key="man.reg",
                    help="Regularisation of each neighbourhood's Gram matrix, relative to its trace. Needed when B "
                    "exceeds the dimension; large values pull the weights towards 1/B.")
reg = float(10**reg_exp)

with st.expander("What the controls change, and how the pictures can mislead"):
    st.markdown(
        """
* **B** is the one that matters. Watch the sweep tab: small B tears the roll into strips,
  large B short-circuits the layers and the map folds.
* **reg** stabilises the weights; very large reg makes them uniform and the map blurs.
* **Points** and **noise**: sparse samples need larger B to stay connected; noise makes
  the sheet thick, and LLE then reproduces the noise.
* *Misleading pictures.* LLE's axes have no units and may be flipped or rotated; the map
  is also normalised so that Y^T Y = I (each coordinate has a sum of squares of 1, a
  variance of 1/n, so the axes' numbers shrink as points are added), and distances across the
  map are not distances on the sheet. A smooth colour gradient (the true coordinate) says
  the order is kept, not that spacing is. Trustworthiness near 1 can hide a fold if the
  layers end up side by side; look at the colours too.
"""
    )

max_k = min(svc.MAX_B, len(X) - 1)
try:
    neighbors, _ = svc.knn(data_key, max_k, _X=X)
    result = svc.lle(data_key, B, reg, seed, _X=X, _neighbors=neighbors)
except ValueError as err:
    st.error(md_escape(err))
    st.stop()
Y = result["embedding"]

# A point picked on the embedding chart becomes the inspected point.
picked = st.session_state.get("man.chart.embedding")
if picked and picked.get("selection", {}).get("points"):
    pt = picked["selection"]["points"][0]
    idx = pt.get("point_index", pt.get("pointIndex"))
    if idx is not None and pt.get("curve_number", pt.get("curveNumber", 0)) == 0:
        st.session_state["man.point"] = int(idx)
if st.session_state.get("man.point", 0) >= len(X):
    st.session_state["man.point"] = 0

cols = st.columns(5)
cols[0].metric("points", f"{len(X):,}")
cols[1].metric("dimensions", X.shape[1])
cols[2].metric("B", B)
cols[3].metric("reconstruction error", f"{result['reconstruction_error']:.2e}")
cols[4].metric("trustworthiness (k=10)", f"{result['trustworthiness']:.4f}")

point = int(st.session_state.get("man.point", 0))
nbrs = neighbors[point, :B]
show_graph = st.checkbox("Draw the neighbourhood graph", key="man.graph",
                         help="Every point joined to its B neighbours: where edges jump between layers, LLE folds.")

if X.shape[1] >= 3:
    P3 = X[:, :3]
    axis_note = "" if X.shape[1] == 3 else f" (first 3 of {X.shape[1]} dimensions)"
else:
    P3 = np.column_stack([X, np.zeros((len(X), 3 - X.shape[1]))])
    axis_note = ""
fig3 = go.Figure()
marker = dict(size=2.5, color=colour if not categorical_colour else pd.factorize(colour)[0],
              colorscale="Spectral" if not categorical_colour else "Turbo", showscale=False)
fig3.add_trace(go.Scatter3d(x=P3[:, 0], y=P3[:, 1], z=P3[:, 2], mode="markers", marker=marker, name="points",
                            hoverinfo="skip"))
if show_graph:
    seg = np.full((len(X) * B * 3, 3), np.nan)
    seg[0::3] = P3[np.repeat(np.arange(len(X)), B)]
    seg[1::3] = P3[neighbors[:, :B].ravel()]
    fig3.add_trace(go.Scatter3d(x=seg[:, 0], y=seg[:, 1], z=seg[:, 2], mode="lines", name="kNN graph",
                                line=dict(color="rgba(60,60,60,0.25)", width=1), hoverinfo="skip"))
fig3.add_trace(go.Scatter3d(x=P3[nbrs, 0], y=P3[nbrs, 1], z=P3[nbrs, 2], mode="markers", name="neighbours",
                            marker=dict(size=5, color="#e03131")))
fig3.add_trace(go.Scatter3d(x=P3[[point], 0], y=P3[[point], 1], z=P3[[point], 2], mode="markers", name=f"point {point}",
                            marker=dict(size=8, color="#000000", symbol="diamond")))
fig3.update_layout(scene=dict(aspectmode="data"), showlegend=True)
c1, c2 = st.columns(2)
plots.show(c1, charts.layout(fig3, f"Input in 3-D{axis_note}, coloured by {html_escape(color_label)}", 480),
                key="man.chart.input")
fig2 = go.Figure()
fig2.add_trace(go.Scattergl(x=Y[:, 0], y=Y[:, 1], mode="markers", name="points", showlegend=False,
                            marker=dict(size=5, color=marker["color"], colorscale=marker["colorscale"]),
                            hovertemplate="point %{pointNumber}<extra></extra>"))
fig2.add_trace(go.Scatter(x=Y[nbrs, 0], y=Y[nbrs, 1], mode="markers", name="neighbours",
                          marker=dict(size=9, color="rgba(0,0,0,0)", line=dict(color="#e03131", width=2))))
fig2.add_trace(go.Scatter(x=Y[[point], 0], y=Y[[point], 1], mode="markers", name=f"point {point}",
                          marker=dict(size=12, color="#000000", symbol="diamond")))
plots.show(c2, charts.layout(fig2, f"LLE in 2-D (B={B}); click a point to inspect it", 480),
                key="man.chart.embedding", on_select="rerun", selection_mode="points")

tabs = st.tabs(["Inside LLE", "Neighbourhood sweep", "Method comparison", "Quality", "Download"])

with tabs[0]:
    st.number_input("Point to inspect", 0, len(X) - 1, key="man.point",
                    help="Or click a point on the 2-D map.")
    w = result["weights"][[point], :].toarray().ravel()[nbrs]
    rebuilt = w @ X[nbrs]
    err = float(np.linalg.norm(X[point] - rebuilt))
    spread = float(np.linalg.norm(X[nbrs] - X[point], axis=1).mean())
    c1, c2 = st.columns(2)
    fig = charts.bars([f"#{j}" for j in nbrs], w, title=f"Weights rebuilding point {point} (they sum to {w.sum():.3f})",
                      y_title="weight", text_format="{:.2f}")
    plots.show(c1, fig, key="man.chart.weights")
    c1.caption(f"Rebuilt from its neighbours, point {point} is off by {err:.2e}, against a mean neighbour distance "
               f"of {spread:.3f} ({err / spread:.1%}). Negative weights are allowed: the point may lie outside its "
               "neighbours' hull.")
    vals = result["eigenvalues"]
    fig = charts.bars([f"λ{i}" for i in range(len(vals))], np.maximum(vals, 1e-16),
                      title="Bottom eigenvalues of M (log scale)", y_title="eigenvalue", text_format="{:.1e}", log_y=True,
                      highlight=lambda lab: lab in ("λ1", "λ2"))
    plots.show(c2, fig, key="man.chart.eigs")
    c2.caption("λ0 ≈ 0 belongs to the constant vector and is skipped; the next two (orange) give the map. When λ3 is "
               "close to λ2 a third direction is almost as good, and the 2-D map may mix them.")

with tabs[1]:
    sweep_B = [b for b in (3, 6, 9, 12, 20, 40) if b < len(X)]
    fig = make_subplots(rows=2, cols=3, subplot_titles=[" "] * len(sweep_B), horizontal_spacing=0.04,
                        vertical_spacing=0.1)
    titles = []
    for i, b in enumerate(sweep_B):
        try:
            r = svc.lle(data_key, b, reg, seed, _X=X, _neighbors=neighbors)
        except ValueError as err:
            titles.append(f"B={b} · failed")
            st.warning(f"B={b}: {md_escape(err)}")
            continue
        E = r["embedding"]
        fig.add_trace(go.Scattergl(x=E[:, 0], y=E[:, 1], mode="markers", showlegend=False,
                                   marker=dict(size=3, color=marker["color"], colorscale=marker["colorscale"])),
                      row=i // 3 + 1, col=i % 3 + 1)
        titles.append(f"B={b} · T={r['trustworthiness']:.3f}")
    for ann, t in zip(fig.layout.annotations, titles):
        ann.text = t
    fig.update_xaxes(showticklabels=False)
    fig.update_yaxes(showticklabels=False)
    plots.show(st, charts.layout(fig, "LLE for several B, each titled with its trustworthiness (k=10)", 620),
                    key="man.chart.sweep")
    st.caption("Too few neighbours and the neighbourhoods stop overlapping: the map tears into pieces. Too many "
               "and they reach across the sheet's layers: the map folds. Trustworthiness drops at both ends. On the "
               "default swiss roll: torn at B = 3, unrolled around 9-12, folded at 40; other shapes break at other B.")

with tabs[2]:
    methods = list(METHODS)
    done = [m for m in methods if svc.is_cached_method(data_key, m, seed)]
    st.markdown("Every method in the lab's map interface on the same points, each titled with its fit time and "
                "trustworthiness (k=10). Computed once per data set and cached; t-SNE and UMAP take seconds.")
    if st.button("Run every method", key="man.run_all", type="primary"):
        bar = st.progress(0.0, text="starting")
        for i, m in enumerate(methods):
            bar.progress(i / len(methods), text=f"running {METHODS[m][0]} ...")
            try:
                svc.method_map(data_key, m, seed, _X=X)
                svc.mark_cached(data_key, m, seed)
            except ValueError as err:
                st.warning(f"{METHODS[m][0]}: {md_escape(err)}")
        bar.empty()
        done = [m for m in methods if svc.is_cached_method(data_key, m, seed)]
    if done:
        fig = make_subplots(rows=3, cols=3, subplot_titles=[" "] * 9, horizontal_spacing=0.04, vertical_spacing=0.08)
        titles, rows = [], []
        for i, m in enumerate(done):
            r = svc.method_map(data_key, m, seed, _X=X)
            E = r["coords"]
            fig.add_trace(go.Scattergl(x=E[:, 0], y=E[:, 1], mode="markers", showlegend=False,
                                       marker=dict(size=3, color=marker["color"], colorscale=marker["colorscale"])),
                          row=i // 3 + 1, col=i % 3 + 1)
            titles.append(f"{METHODS[m][0]} · {r['seconds']:.1f} s · T={r['trustworthiness']:.3f}")
            rows.append({"method": METHODS[m][0], "seconds": round(r["seconds"], 2),
                         "trustworthiness": round(r["trustworthiness"], 4), "recall@10": round(float(r["recall"].mean()), 4)})
        for ann, t in zip(fig.layout.annotations, titles):
            ann.text = t
        fig.update_xaxes(showticklabels=False)
        fig.update_yaxes(showticklabels=False)
        plots.show(st, charts.layout(fig, None, 900), key="man.chart.compare")
        st.dataframe(pd.DataFrame(rows), hide_index=True, key="man.compare_table")

with tabs[3]:
    maps = {"LLE (current B)": Y}
    for m in METHODS:
        if svc.is_cached_method(data_key, m, seed):
            maps[METHODS[m][0]] = svc.method_map(data_key, m, seed, _X=X)["coords"]
    which = st.selectbox("Map", list(maps), key="man.quality_map",
                         help="Run the method comparison to add every method here.")
    kq = st.slider("k", 3, 50, 10, key="man.quality_k")
    rec = svc.recall(data_key + f":{B}:{reg}", which, kq, _X=X, _Y=maps[which])
    plots.show(st, charts.item_scatter(maps[which], color=rec, color_label=f"recall@{kq}", colorscale="RdYlGn",
                                        title=f"{which}: share of each point's {kq} true neighbours kept in the map",
                                        height=520), key="man.chart.quality")
    st.caption(f"Mean recall@{kq}: {rec.mean():.3f}; {np.mean(rec < 0.5):.1%} of points keep fewer than half. Red "
               "marks where the map cannot be trusted: tears, folds and crowded centres.")

with tabs[4]:
    params = {"method": "lle", "n_neighbors": B, "reg": reg, "seed": seed, "data": source}
    if source in svc.GENERATORS:
        params.update(n_samples=len(X), noise=noise)
    out = pd.DataFrame(Y, columns=["y1", "y2"])
    if colour is not None:
        out.insert(0, color_label, colour)
    st.download_button("LLE coordinates (.csv)", "# " + json.dumps(params) + "\n" + out.to_csv(index=False),
                       "lle_coordinates.csv", "text/csv", key="man.dl")
    st.caption("The first line holds the method, its parameters and the seed as JSON.")
