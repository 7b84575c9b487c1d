import json

import streamlit as st

from app.services import categories as svc
from app.services import data as data_service
from app.services import reproduce
from app.ui import categories_charts as cat_charts
from app.ui import plots, share
from app.ui.controls import ranged_slider
from app.ui.layout import lazy_tabs
from app.ui.selection import MapTools
from app.ui.sidebar import data_source
from app.ui.text import md_escape

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
kind = sb.radio("Similarity", ["learned from a table", "given matrix", "from the command line"], key="cat.kind",
                help="Learn the kernel from a table's target, use a bundled precomputed matrix, or open what "
                "python -m embedcore category-kernel learned from a table too big for memory.", bind="query-params")

if kind == "given matrix":
    titles = dict(svc.graph_options())
    gid = sb.selectbox("Matrix", list(titles), format_func=titles.__getitem__, key="cat.graph", bind="query-params")
    graph = svc.Graph(data_service.ref("graph", gid))
elif kind == "from the command line":
    files = sb.file_uploader("Output of category-kernel", type=["npz", "zip", "csv", "json"],
                             accept_multiple_files=True, key="cat.kernel_files",
                             help="codes.csv.npz alone, or with codes.csv and codes.csv.json, or a .zip of them.")
    digest = svc.kernel_upload(files)
    if digest is None:
        st.info(
            "**Open a kernel learned on the command line.** `python -m embedcore category-kernel TABLE --column C "
            "--target T --out codes.csv` learns the kernel and codes of a table too big for memory (see the README's "
            "*Beyond one machine*); it writes `codes.csv`, `codes.csv.json` and `codes.csv.npz`. Upload "
            "`codes.csv.npz` in the sidebar (alone, with the other two, or all three in a `.zip`): the page shows its "
            "kernel, spectrum and codes, and runs the downstream test on the table chosen under Data set. To try it, "
            "pick *learned from a table*: its Download tab gives the table and the command that learns the same kernel."
        )
        st.stop()
    problem = svc.kernel_problem(digest)
    if problem is not None:
        st.error(md_escape(problem))
        st.stop()
    sb.caption("The table for the downstream test (the one the kernel was learned from):")
    source, _ = data_source("table", "cat", default="tips")
    graph = svc.kernel_graph(digest, data_service.ref("table", source))
else:
    source, _ = data_source("table", "cat", default="tips")
    ref = data_service.ref("table", source)
    cat_cols, num_cols = svc.table_columns(ref)
    if not cat_cols or not num_cols:
        st.error("This table needs a categorical column and a numeric target column; it has "
                 f"{len(cat_cols)} categorical and {len(num_cols)} numeric. Upload another table.")
        st.stop()
    dc, dt = svc.default_columns(source, cat_cols, num_cols)
    column = sb.selectbox("Categorical column", cat_cols, index=cat_cols.index(dc) if dc in cat_cols else 0,
                          key=f"cat.column.{source}", bind="query-params")
    targets = [c for c in num_cols if c != column]
    if not targets:
        st.error(f"No numeric column is left as a target once '{md_escape(column)}' is the category. "
                 "Upload a table with a numeric target.")
        st.stop()
    target = sb.selectbox("Numeric target", targets, index=targets.index(dt) if dt in targets else 0,
                          key=f"cat.target.{source}", bind="query-params")
    kernel = sb.radio("Kernel", ["wasserstein", "kl"], key="cat.kernel", horizontal=True,
                      help="1-Wasserstein distance between the target's distributions, or the symmetric "
                      "KL divergence of their smoothed histograms.", bind="query-params")
    transform = sb.radio("Target transform", ["none", "log1p"], key="cat.transform", horizontal=True,
                         help="log(1 + y) tames a skewed target, as the article does for sales.", bind="query-params")
    dropped, n_levels = svc.table_check(ref, column, target)
    if dropped:
        st.info(f"{dropped:,} rows with a missing category or target are left out.")
    if n_levels > svc.MAX_LEVELS:
        st.error(f"'{md_escape(column)}' has {n_levels:,} distinct values; the page draws up to {svc.MAX_LEVELS:,}. "
                 "Pick a column with fewer values.")
        st.stop()
    if n_levels < svc.MIN_LEVELS:
        st.error(f"'{md_escape(column)}' has {n_levels} distinct value(s); a graph needs at least "
                 f"{svc.MIN_LEVELS} to say anything.")
        st.stop()
    graph = svc.Graph(ref, column, target, kernel, None if transform == "none" else transform)

try:
    base = svc.base(graph)
except ValueError as err:
    if graph.learned:
        st.error(f"Cannot learn a kernel from '{md_escape(graph.column)}' and '{md_escape(graph.target)}': "
                 f"{md_escape(err)}")
    else:
        st.error(md_escape(err))
    st.stop()
if base.description:
    st.caption(md_escape(base.description))
n_labels = len(base.labels)

gamma = None
if graph.from_file:
    gamma, n_comp, keep_trivial = svc.kernel_settings(graph)
    sb.caption(f"γ = {gamma:.4g}, components: {n_comp}, keep trivial: {'yes' if keep_trivial else 'no'}, as the "
               "command ran; run it again with --gamma, --components or --keep-trivial to change them.")
else:
    if base.uses_gamma:
        rel = sb.slider("log10(γ × typical distance)", -3.0, 3.0, 0.0, 0.1, key="cat.log_gamma",
                        bind="query-params",
                        help="γ sets how fast similarity falls with distance. 0 means γ = 1 / (median distance); "
                        "each step of 1 multiplies γ by 10.")
        gamma = svc.gamma(graph, rel)
        sb.caption(f"γ = {gamma:.4g} (median distance {svc.typical_distance(graph):.4g})")
    ncomp_mode = sb.radio("Components", ["eigengap", "fixed"], key="cat.ncomp_mode", horizontal=True,
                          help="Keep the eigenvectors below the largest gap, or a number you choose.",
                          bind="query-params")
    n_fixed = sb.slider("Number of components", 1, max(1, min(10, n_labels - 1)), min(2, max(1, n_labels - 1)),
                        key="cat.n_fixed", disabled=ncomp_mode == "eigengap", bind="query-params")
    keep_trivial = sb.checkbox("Keep the trivial eigenvector", key="cat.keep_trivial",
                               help="The first eigenvector only reflects the degrees; trees can use it, linear "
                               "models find it collinear with the intercept.", bind="query-params")
    n_comp = "eigengap" if ncomp_mode == "eigengap" else n_fixed

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
    info = svc.summary(graph, gamma, n_comp, keep_trivial)
except ValueError as err:
    st.error(f"{md_escape(err)}")
    st.stop()

if graph.from_file:
    disagreement = svc.kernel_agreement(graph)
    if disagreement is not None:
        st.warning(md_escape(disagreement))

n_cc = info["connected components"]
cols = st.columns(5)
cols[0].metric("categories", info["categories"])
cols[1].metric("connected components", n_cc)
cols[2].metric("suggested k (eigengap)", info["suggested k"])
cols[3].metric("code width", info["code width"])
cols[4].metric("λ₂ of the normalised L", f"{info['lambda2']:.3f}",
               help="0 exactly when the graph is disconnected; small when it nearly splits in two. (The "
               "'algebraic connectivity' is the same eigenvalue of the unnormalised L = D - A.)")
if n_cc > 1:
    parts = info["components"]
    shown = "; ".join("{" + ", ".join(md_escape(c) for c in part[:8]) + (", …" if len(part) > 8 else "") + "}"
                      for part in parts[:6])
    st.warning(f"The graph has fallen apart into {n_cc} connected components ({n_cc} zero eigenvalues): {shown}"
               f"{'; …' if len(parts) > 6 else ''}. Their indicator vectors join the code (all but the first: "
               "with an intercept they fix it), so categories in different components stay apart. Lower γ to "
               "connect them.")


@st.fragment
def affinity_and_laplacian(graph, gamma):
    order_by = st.radio("Order the categories", ["as given", "by the Fiedler vector"],
                        index=1, key="cat.order", horizontal=True,
                        help="Sorting by the second eigenvector puts alike categories next to each other, so the "
                        "graph's blocks show up along the diagonal.", bind="query-params")
    affinity, laplacian = cat_charts.heatmaps(svc.heatmaps(graph, gamma, order_by != "as given"))
    c1, c2 = st.columns(2)
    plots.show(c1, affinity, key="cat.chart.affinity")
    plots.show(c2, laplacian, key="cat.chart.laplacian")
    st.caption("The Laplacian's colour scale spans its off-diagonal entries (the diagonal is 1 and saturates), "
               "so the negative similarities between categories stay visible.")
    rows = svc.rows_used(graph)
    if rows is not None:
        st.caption(f"Learned from {rows[0]:,} rows; the rarest value has {rows[1]} rows, the most common {rows[2]}.")


@st.fragment
def downstream_test(graph, gamma, n_comp, keep_trivial, seed):
    if st.button("Run the downstream test", key="cat.run_bench", type="primary"):
        bar = st.progress(0.0, text="starting")
        try:
            svc.run_downstream(graph, gamma, n_comp, keep_trivial, seed,
                               lambda f, t: bar.progress(f, text=f"done: {t}"))
        except ValueError as err:
            st.error(md_escape(err))
        bar.empty()
    result = svc.downstream_result(graph, gamma, n_comp, keep_trivial, seed)
    if result is not None:
        st.dataframe(result, hide_index=True, key="cat.bench_table")
        plots.show(st, cat_charts.downstream(result), key="cat.chart.bench")


@st.fragment
def clusters(graph, gamma, seed, most):
    n_clusters = ranged_slider("Clusters", 2, most, 2, key="cat.clusters",
                               why="splitting 3 categories into 3 clusters would say nothing", bind="query-params")
    st.dataframe(svc.clusters(graph, gamma, n_clusters, seed), hide_index=True, key="cat.clusters_table")


tabs = lazy_tabs(["Affinity and Laplacian", "Spectrum", "Eigenvectors", "γ sweep", "Downstream test",
                  "Clustering", "Download"], key="cat.tab")

with tabs[0]:
    if tabs[0].open:
        affinity_and_laplacian(graph, gamma)

with tabs[1]:
    if tabs[1].open:
        table, gap_after, k_gap = svc.spectrum_view(graph, gamma, n_comp, keep_trivial)
        plots.show(st, cat_charts.spectrum(table, gap_after, k_gap), key="cat.chart.spectrum")
        st.dataframe(table, hide_index=True, height=220, key="cat.eigen_table")

with tabs[2]:
    if tabs[2].open:
        code = svc.codes(graph, gamma, n_comp, keep_trivial)
        plots.show(st, cat_charts.eigenvector_bars(code.table, code.eigenvalues), key="cat.chart.vectors")
        tools = MapTools("cat", graph, code.table["category"], cat_charts.code_xy(code.table),
                         space=cat_charts.code_space(code.table), noun="category", id_name="category", name="codes")
        tools.show(st, cat_charts.code_map(code.table), "cat.chart.codes")

        def how_alike(rows) -> None:
            st.caption("How alike they are: mean affinity at this γ")
            st.dataframe(svc.selection_affinity(graph, gamma, tuple(rows.tolist())), hide_index=True,
                         key="cat.selected_affinity")

        tools.panel(how_alike, file_name="selected_categories.csv")
        if tools.view is not None:
            st.caption("The original space is the whole code (every kept eigenvector); the map shows the first two.")

with tabs[3]:
    if tabs[3].open:
        if gamma is None:
            st.info("This matrix is a given affinity: there is no γ to sweep. Pick the liquor KL distances or a table.")
        else:
            plots.show(st, cat_charts.gamma_sweep(svc.gamma_sweep(graph, gamma), n_labels), key="cat.chart.sweep")
            st.caption("Small γ: one zero, the rest bunched near n/(n-1). Large γ: the spectrum spreads over [0, 2] "
                       "and, when affinities underflow, extra zeros appear as the graph splits. The useful γ shows a "
                       "few small eigenvalues, then a gap.")

with tabs[4]:
    if tabs[4].open:
        if graph.from_file and not graph.labelled:
            st.info(f"The downstream test needs the table the kernel was learned from, with the columns "
                    f"'{md_escape(graph.column)}' and '{md_escape(graph.target)}': choose it under Data set in the "
                    "sidebar (a bundled table, or your upload under Your data).")
        elif not graph.labelled:
            st.info("The downstream test needs a table with a target; pick 'learned from a table'.")
        else:
            how = ("one-hot and ordinal refitted inside each fold, spectral with the command's kernel"
                   if graph.from_file else "one-hot, ordinal or spectral with the current settings, refitted inside "
                   "each fold")
            st.markdown("Cross-validated R² (5 folds, shuffled with the seed) of a random forest and of ridge "
                        f"regression predicting **{md_escape(graph.target)}** from **{md_escape(graph.column)}** "
                        f"({how}) plus the table's other numeric columns.")
            if graph.from_file:
                st.caption("The command's kernel was learned once from every row, the test folds' targets included, "
                           "so its score is optimistic next to the page's own encoder, which is learned again inside "
                           "each training fold.")
            downstream_test(graph, gamma, n_comp, keep_trivial, seed)

with tabs[5]:
    if tabs[5].open:
        sweep, best = svc.fiedler(graph, gamma)
        c1, c2 = st.columns(2)
        plots.show(c1, cat_charts.fiedler_bars(sweep), key="cat.chart.fiedler")
        plots.show(c2, cat_charts.sweep_cut(sweep), key="cat.chart.cut")
        if best is not None:
            st.caption(f"Lowest conductance {best[1]:.3f} cutting after '{md_escape(sweep['category'].iloc[best[0]])}'.")
        else:
            st.caption("No cut has a conductance: at this γ no category has any similarity to another, so every "
                       "side of every cut has zero volume. Lower γ.")
        clusters(graph, gamma, seed, info["clusters"])

with tabs[6]:
    if tabs[6].open:
        code = svc.codes(graph, gamma, n_comp, keep_trivial)
        encoding_csv, affinity_csv = svc.download_files(graph, gamma, n_comp, keep_trivial)
        if graph.from_file:
            params = svc.kernel_manifest(graph)
        else:
            params = {"similarity": kind, "gamma": gamma, "components": code.columns, "keep_trivial": keep_trivial,
                      "seed": seed}
        if graph.learned:
            params.update(column=graph.column, target=graph.target, kernel=graph.kernel, transform=transform)
        st.download_button("Encoding table (.csv)", encoding_csv, "spectral_encoding.csv", "text/csv",
                           key="cat.dl_enc", on_click="ignore")
        st.download_button("Affinity matrix (.csv)", affinity_csv, "affinity.csv", "text/csv", key="cat.dl_aff",
                           on_click="ignore")
        st.download_button("Parameters (.json)", json.dumps(params, indent=2, default=str), "parameters.json",
                           "application/json", key="cat.dl_params", on_click="ignore")
        st.dataframe(code.shown, hide_index=True, key="cat.enc_table")
        if graph.learned:
            st.markdown("**The same kernel on the command line**, for a table too big for memory: download the table "
                        "in the command's input format and run the command below (the README's *Beyond one "
                        "machine*); then pick *from the command line* and upload the `codes.csv.npz` it writes.")
            st.download_button("Table for the command line (.csv)", svc.table_for_command(graph.data),
                               svc.table_file_name(graph.data), "text/csv", key="cat.dl_table", on_click="ignore")
            st.code(svc.command_line(graph, gamma, n_comp, keep_trivial), language="bash")

share.panel("categories", None if graph.from_file else reproduce.lazy(
    lambda: svc.recipe(graph, gamma, n_comp, keep_trivial)), uploaded=graph.data.source.startswith("upload:"),
    what="A kernel from the command line is reproduced by its own command: its manifest (in the zip you "
    "uploaded) holds the settings." if graph.from_file else "the distances (or affinity), eigenvalues and codes "
    "shown, with the category names")
