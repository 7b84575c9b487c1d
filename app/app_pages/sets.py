import io
import json
import time

import numpy as np
import pandas as pd
import scipy.sparse as sp
import streamlit as st

from app.services import data as data_service
from app.services import sets as svc
from app.ui import charts, plots
from app.ui.controls import ranged_number, ranged_slider
from app.ui.sidebar import data_source
from app.ui.text import html_escape, md_escape

st.title("Sets: EMDE sketches")
st.markdown(
    """
**EMDE** (Efficient Manifold Density Estimator) turns a *set* of vectors (a user's items, a
document's words, an image's ink) into one fixed-width vector. It cuts the item space with
**K** random hyperplanes, which carve it into up to 2<sup>K</sup> regions (*buckets*), and
does this **N** times independently. Each item is coded by the bucket it falls in, in every
partitioning; a set is the sum of its items' codes. The result, the *sketch*, is a histogram
of the set over coarse, overlapping regions: an estimate of where in the space the set is dense.
""",
    unsafe_allow_html=True,
)
st.latex(
    r"c_p(x) = \sum_{k=0}^{K-1} 2^k\,[\,v_{pk}\cdot x > b_{pk}\,],\qquad "
    r"s(A) = \sum_{x \in A} w_x\, \bigoplus_{p=1}^{N} e_{c_p(x)} \in \mathbb{R}^{N\cdot 2^K}"
)
st.caption(
    "v: random Gaussian directions; b: offsets that put each plane through a random item; "
    "e_c: the one-hot vector of bucket c; ⊕: concatenation over the N partitionings. "
    "Because s is a sum over a set's items, pooling two sets as a multiset (every item of both counted) "
    "sums their sketches: s(A ⊎ B) = s(A) + s(B). For a plain union, where a shared item counts once, "
    "that holds only when A and B share no item."
)

# ------------------------------------------------------------------ controls
seed = data_service.seed()
source, data = data_source("item_sets", "sets", default="hotdog")
sb = st.sidebar
K = sb.slider("K: hyperplanes per partitioning", 1, 12, 4, key="sets.K", bind="query-params",
              help="More planes, smaller buckets: finer detail, but fewer items share a bucket.")
N = sb.slider("N: partitionings", 1, 64, 16, key="sets.N", bind="query-params",
              help="More independent cuts: a smoother, more reliable estimate; width grows linearly.")
offsets = sb.radio("Plane offsets", ["data", "quantile"], key="sets.offsets", horizontal=True,
                   help="data: each plane passes through a random item. quantile: at a random 5-95% "
                   "quantile of the items' projections.")
weighting = sb.selectbox("Weighting", ["counts", "binary", "tfidf"], key="sets.weighting",
                         help="counts: repeats (and given weights) add up; binary: presence only; "
                         "tfidf: counts times how rare the item is across sets.")
norm = sb.selectbox("Normalisation", ["none", "l1", "l2", "max"], index=0, key="sets.norm",
                    help="Scale each sketch so sets of different sizes compare.")
scope = sb.radio("Normalise", ["row", "partition"], key="sets.scope", horizontal=True,
                 help="The whole sketch at once, or each partitioning's block on its own.")
norm_arg = None if norm == "none" else norm

with st.expander("What the controls change, and how the pictures can mislead"):
    st.markdown(
        """
* **K** sets the bucket size. K=1 splits the space in two; each extra plane can halve every
  bucket. With many planes and few items most buckets are empty and the sketch becomes a
  one-hot code of the items, which no longer uses the geometry.
* **N** repeats the cut. One partitioning puts dissimilar items together by bad luck; over
  many partitionings near items still share most buckets while far items rarely do.
* **Offsets** decide where cuts fall; both choices keep every plane inside the data.
* **Weighting and normalisation** act on the set's counts before and after summing.
* *Misleading pictures.* For items with more than two dimensions the map is a PCA
  projection: the dashed lines are where each hyperplane cuts the PCA plane, and an item
  that sits off that plane can lie on the other side of the real hyperplane, so colours may
  cross a line. The density view shows one draw of random planes; change the seed to see
  how much of the picture is luck. Additivity holds for raw sketches; normalised ones are
  rescaled sums.
"""
    )

t0 = time.perf_counter()
emde = svc.emde_for(source, seed, K=K, N=N, offsets=offsets, weighting=weighting, norm=norm_arg, scope=scope)
W = data.weight_matrix()
S = emde.transform(W)
sketch_ms = (time.perf_counter() - t0) * 1000
view = svc.map_for(source, seed)
coords = view["coords"]

cols = st.columns(5)
cols[0].metric("items", f"{len(data.items):,}")
cols[1].metric("sets", f"{len(data.sets):,}")
cols[2].metric("sketch width N·2^K", f"{N * 2**K:,}")
occupied = int((np.asarray(emde.item_sketches_.sum(axis=0)).ravel() > 0).sum())
cols[3].metric("occupied buckets", f"{occupied:,}", help="Buckets holding at least one item (the seed's variable width).")
cols[4].metric("fit + sketch", f"{sketch_ms:.0f} ms")
if data.description:
    st.caption(md_escape(data.description))

tab_buckets, tab_set, tab_add, tab_kn, tab_bench, tab_dl = st.tabs(
    ["Buckets", "A set's sketch", "Additivity", "K and N", "Benchmark", "Download"]
)

labels = np.asarray(data.labels) if data.labels is not None else None


def set_title(i: int) -> str:
    lab = f" ({data.labels[i]})" if data.labels is not None else ""
    return f"set {i}{lab}: {len(data.sets[i])} items"


# ------------------------------------------------------------------ 1. buckets
with tab_buckets:
    part = ranged_slider("Partitioning to draw", 0, N - 1, 0, key="sets.partition", why="N is 1")
    codes = emde.item_codes_[:, part]
    planes = emde.hyperplanes_in_view(part, view["mean"], view["basis"])
    hover = [f"{html_escape(name)}<br>bucket {c}" for name, c in zip(data.items, codes)]
    axis = ("PC 1", "PC 2") if view["pca"] else ("x", "y")
    fig = charts.item_scatter(coords, color=codes, color_label="bucket", categorical=True, hover=hover,
                              lines=[tuple(p) for p in planes], axis_titles=axis,
                              title=f"Items coloured by their bucket in partitioning {part} "
                                    f"({len(np.unique(codes))} of {2**K} buckets occupied)")
    plots.show(st, fig, key="sets.chart.buckets")
    if view["pca"]:
        st.caption(f"The items have {data.vectors.shape[1]} dimensions: this is their PCA view; dashed "
                   "lines are where the hyperplanes cut the view's plane.")

# ------------------------------------------------------------------ 2. one set
with tab_set:
    n_sets = len(data.sets)
    i = ranged_number("Set", 0, n_sets - 1, 0, key="sets.set", why="the data hold one set", help="Which set to look at.")
    st.caption(md_escape(set_title(i)))
    row = S[[i], :].toarray().ravel()
    full = np.zeros(N * 2**K)
    full[emde.columns_] = row
    left, right = st.columns(2)
    plots.show(left, 
        charts.heatmap(full.reshape(N, 2**K), title="The sketch: one row per partitioning",
                       x_title="bucket", y_title="partitioning", colorscale="Blues"),
        key="sets.chart.sketch")
    scores = emde.decode(S[[i], :], data.vectors)
    members = np.unique(W[[i], :].indices)
    plots.show(right, 
        charts.item_scatter(coords, color=scores, color_label="density", marked=members,
                            hover=[html_escape(n) for n in data.items], colorscale="YlOrRd",
                            title="The density the sketch implies (decode), the set's items circled"),
        key="sets.chart.density")
    st.caption("Density: the geometric mean over partitionings of the share of the set's weight in the "
               "bucket each item falls into. Items the set never contained can score high: that is the "
               "point, the sketch generalises to their neighbourhood.")

# ------------------------------------------------------------------ 3. additivity
with tab_add:
    c1, c2 = st.columns(2)
    a = ranged_number("Set A", 0, n_sets - 1, 0, key="sets.add_a", where=c1, why="the data hold one set")
    b = ranged_number("Set B", 0, n_sets - 1, min(1, n_sets - 1), key="sets.add_b", where=c2,
                      why="the data hold one set")
    raw = svc.emde_for(source, seed, K=K, N=N, offsets=offsets, weighting="counts", norm=None, scope="row")
    SA, SB = raw.transform(W[[a], :]), raw.transform(W[[b], :])
    SAB = raw.transform(W[[a], :] + W[[b], :])
    diff = float(np.abs((SAB - (SA + SB)).toarray()).max()) if SAB.nnz or SA.nnz or SB.nnz else 0.0
    st.metric("max |s(A+B) − (s(A) + s(B))|", f"{diff:g}")
    occupied_cols = np.flatnonzero((SA + SB).toarray().ravel() + SAB.toarray().ravel())
    show = occupied_cols[:80]
    df = pd.DataFrame({"s(A)": SA.toarray().ravel()[show], "s(B)": SB.toarray().ravel()[show],
                       "s(A+B)": SAB.toarray().ravel()[show]}, index=raw.get_feature_names_out()[show])
    fig = charts.heatmap(df.T.to_numpy(), x=list(df.index), y=list(df.columns), colorscale="Blues",
                         title=f"Raw counts in the {len(show)} buckets either set touches"
                               + (" (first 80)" if len(occupied_cols) > 80 else ""),
                         x_title="bucket", y_title="", height=260)
    plots.show(st, fig, key="sets.chart.additivity")
    st.caption("Raw count sketches (no weighting, no normalisation): the bottom row is the sum of the two "
               "above, bucket by bucket, so a model can sketch a growing set without revisiting its items.")

# ------------------------------------------------------------------ 4. K and N
with tab_kn:
    stats = svc.stats_for(source, N, offsets, seed)
    c1, c2 = st.columns(2)
    plots.show(c1, charts.lines(stats, "K", {"near_share": "near pairs (5 nearest neighbours)",
                                              "far_share": "random pairs"},
                                 title="How often two items share a bucket", y_title="share of partitionings",
                                 vline=K, vline_label=f"K={K}"), key="sets.chart.share")
    plots.show(c2, charts.lines(stats, "K", {"empty_fraction": "empty buckets"}, vline=K,
                                 vline_label=f"K={K}", title="Empty buckets", y_title="fraction of 2^K"),
                    key="sets.chart.empty")
    st.dataframe(stats.round(3), hide_index=True, key="sets.stats")
    st.caption(f"Measured with N={N} partitionings and the current offsets and seed. Good sketches keep "
               "near pairs together much more often than random pairs; when the two curves meet, the "
               "buckets are too large to tell regions apart, when near pairs stop sharing, too small.")

# ------------------------------------------------------------------ 5. benchmark
with tab_bench:
    GRID = [(2, 16), (4, 16), (4, 64), (6, 32), (8, 32)]
    if labels is None or len(set(labels)) < 2:
        st.info("This data set has no labels, so there is nothing to classify. Pick a labelled data set "
                "(hot dog, digits as ink sets) or upload sets with a label column.")
    else:
        counts = pd.Series(labels).value_counts()
        if counts.min() < 5:
            st.warning(f"The smallest class has {counts.min()} sets; 5-fold cross-validation needs at least 5 "
                       "per class.")
        st.markdown(
            "Logistic regression with 5-fold cross-validation (stratified, shuffled with the seed) on "
            f"EMDE sketches for K, N in {', '.join(f'({k}, {n})' for k, n in GRID)} (L2-normalised, empty "
            "buckets dropped), against the bag of items (one-hot counts) and the mean item vector.")
        bench_key = f"sets.bench.{data_service.source_key(source)}.{seed}"
        if st.button("Run the benchmark", key="sets.run_bench", type="primary", disabled=counts.min() < 5):
            bar = st.progress(0.0, text="starting")
            st.session_state[bench_key] = svc.run_benchmark(
                source, seed, GRID, lambda f, name: bar.progress(f, text=f"done: {name}"))
            bar.empty()
        result = st.session_state.get(bench_key)
        if result is not None:
            st.dataframe(result.round({"accuracy": 4, "accuracy_std": 4, "seconds": 2}), hide_index=True,
                         key="sets.bench_table")
            plots.show(st, charts.bars(result["features"], result["accuracy"], errors=result["accuracy_std"],
                                        title="Cross-validated accuracy", y_title="accuracy", horizontal=True,
                                        highlight=lambda f: f.startswith("EMDE")), key="sets.chart.bench")

# ------------------------------------------------------------------ 6. downloads
with tab_dl:
    params = {"K": K, "N": N, "offsets": offsets, "weighting": weighting, "norm": norm, "norm_scope": scope,
              "seed": seed, "data": source, "columns": [str(c) for c in emde.get_feature_names_out()]}
    S_csr = sp.csr_array(S)
    buf = io.BytesIO()
    np.savez_compressed(buf, data=S_csr.data, indices=S_csr.indices, indptr=S_csr.indptr,
                        shape=np.array(S_csr.shape), params=np.array(json.dumps(params)))
    st.download_button("Sketches (.npz, sparse CSR + parameters)", buf.getvalue(), "emde_sketches.npz",
                       "application/octet-stream", key="sets.dl_npz")
    coo = S_csr.tocoo()
    long = pd.DataFrame({"set": coo.row, "column": np.asarray(params["columns"], dtype=object)[coo.col],
                         "value": coo.data})
    header = "# EMDE sketches, one non-zero per line; " + json.dumps({k: v for k, v in params.items() if k != "columns"}) + "\n"
    st.download_button("Sketches (.csv, non-zeros)", header + long.to_csv(index=False), "emde_sketches.csv",
                       "text/csv", key="sets.dl_csv")
    st.caption(f"{S_csr.shape[0]:,} sets x {S_csr.shape[1]:,} columns, {S_csr.nnz:,} non-zeros. Load the .npz "
               "with scipy.sparse.csr_array((f['data'], f['indices'], f['indptr']), shape=f['shape']).")
