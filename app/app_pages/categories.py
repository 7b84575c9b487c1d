import json

import streamlit as st

from app.services import categories as svc
from app.services import data as data_service
from app.services import reproduce
from app.ui import categories_charts as cat_charts
from app.ui import comparison, plots, share, tour
from app.ui.controls import ranged_slider
from app.ui.layout import chart_height, instrument, lazy_tabs, page_header, theory
from app.ui.selection import MapTools
from app.ui.sidebar import data_source
from app.ui.text import equations, md_escape

page_header("Categories: spectral encoding",
            "Spectral encoding codes each category by the smooth eigenvectors of a similarity graph over the "
            "categories: alike categories get alike numbers, and the gap in the spectrum says how many numbers "
            "the code needs.", "cat")


def intro() -> None:
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
    equations(
        st,
        r"A_{ij} = e^{-\gamma\, d(p_i, p_j)}\ (i \ne j),\quad A_{ii} = 0,\quad L = I - D^{-1/2} A D^{-1/2}",
        r"L u_k = \lambda_k u_k,\quad 0 = \lambda_1 \le \lambda_2 \le \dots \le 2",
    )
    st.caption(
        "d: 1-Wasserstein distance or symmetric KL divergence between the target's distributions p_i "
    "within two category values; D: the diagonal of degrees; the code of value i is (u_2(i), ..., u_{k+1}(i)), "
    "with k chosen at the largest gap in the spectrum. When the graph has several connected components, "
        "the indicators of all components but the first come before u_2 in the code."
    )


seed = data_service.seed()
main, knobs = instrument("cat")
sb = knobs
# The article's weekday matrix first: its spectrum has a gap and its code a shape on the first screen.
kind = sb.radio("Similarity", ["learned from a table", "given matrix", "from the command line"], index=1, key="cat.kind",
                help="Learn the kernel from a table's target, use a bundled precomputed matrix or your own, or open "
                "what python -m embedcore category-kernel learned from a table too big for memory.",
                bind="query-params")

if kind == "given matrix":
    with st.expander("Your own similarity: upload an affinity matrix", icon=":material/upload_file:"):
        st.markdown(
            "A CSV (or TSV) with the category names across the first line and down the first column, and in every "
            "other cell how alike the two categories are: a number ≥ 0, larger for more alike, 0 for not at all "
            "(`pandas.DataFrame.to_csv` of a square frame writes this). The columns may list the names in another "
            "order; they are matched by name. A matrix that is not symmetric is replaced by (A + Aᵀ) / 2 and the "
            f"diagonal is set to 0, each with a note. {svc.MIN_LEVELS} to {svc.MAX_LEVELS:,} categories."
        )
        matrix_file = st.file_uploader("Affinity matrix", type=["csv", "tsv", "txt"], key="cat.matrix_file",
                                       help="Read on this page only (the sidebar's Your data is for tables).")
    digest = svc.matrix_upload(matrix_file)
    problem = svc.matrix_problem(digest) if digest is not None else None
    if problem is not None:
        st.error(f"Your affinity matrix cannot be used: {md_escape(problem)}")
    titles = svc.matrix_options(digest)
    if st.session_state.get("cat.graph") not in (None, *titles):
        del st.session_state["cat.graph"]
    if "upload" in titles and st.session_state.get("cat.seen_matrix") != digest:
        st.session_state["cat.graph"] = "upload"  # a new matrix is what the person wants to see: show it once
    st.session_state["cat.seen_matrix"] = digest
    gid = sb.selectbox("Matrix", list(titles), format_func=titles.__getitem__, key="cat.graph", bind="query-params")
    graph = svc.Graph(svc.matrix_ref(gid, digest))
    if graph.uploaded_matrix:
        for notice in svc.matrix_notices(digest):
            st.info(md_escape(notice))
elif kind == "from the command line":
    files = st.sidebar.file_uploader("Output of category-kernel", type=["npz", "zip", "csv", "json"],
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
    st.sidebar.caption("The table for the downstream test (the one the kernel was learned from):")
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
    sb = knobs.expander("Kernel and target", icon=":material/tune:")
    kernel = sb.radio("Kernel", ["wasserstein", "kl"], key="cat.kernel", horizontal=True,
                      help="1-Wasserstein distance between the target's distributions, or the symmetric "
                      "KL divergence of their smoothed histograms.", bind="query-params")
    kl_bins, kl_smoothing = svc.KL_BINS, svc.KL_SMOOTHING
    if kernel == "kl":
        kl_bins = sb.slider("KL: histogram bins", 4, 100, svc.KL_BINS, key="cat.kl_bins", bind="query-params",
                            help="Equal bins over the whole target's range; each category's values are counted in "
                            "them. More bins see finer differences but leave each bin fewer rows.")
        kl_smoothing = sb.select_slider("KL: smoothing (added to every bin)", svc.SMOOTHING_STEPS,
                                        svc.KL_SMOOTHING, key="cat.kl_smoothing", bind="query-params",
                                        help="Keeps every probability above 0 (log 0 is infinite). More smoothing "
                                        "pulls every histogram, most of all a rare category's, towards flat.")
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
    graph = svc.Graph(ref, column, target, kernel, None if transform == "none" else transform,
                      bins=kl_bins, smoothing=float(kl_smoothing))
    sb = knobs

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
        article = base.reference_gamma is not None and sb.checkbox(
            f"The article's γ = {base.reference_gamma:g}", value=True, key="cat.article_gamma", bind="query-params",
            help="The γ the matrix's source used; untick to set γ with the slider below.")
        rel = sb.slider("log10(γ × typical distance)", -3.0, 3.0, 0.0, 0.1, key="cat.log_gamma",
                        bind="query-params", disabled=article,
                        help="γ sets how fast similarity falls with distance. 0 means γ = 1 / (median distance); "
                        "each step of 1 multiplies γ by 10.")
        gamma = base.reference_gamma if article else svc.gamma(graph, rel)
        sb.caption(f"γ = {gamma:.4g} (median distance {svc.typical_distance(graph):.4g})")
    ncomp_mode = sb.radio("Components", ["eigengap", "fixed"], key="cat.ncomp_mode", horizontal=True,
                          help="Keep the eigenvectors below the largest gap, or a number you choose.",
                          bind="query-params")
    n_fixed = sb.slider("Number of components", 1, max(1, min(10, n_labels - 1)), min(2, max(1, n_labels - 1)),
                        key="cat.n_fixed", disabled=ncomp_mode == "eigengap", bind="query-params")
    keep_trivial = knobs.checkbox("Keep the trivial eigenvector", key="cat.keep_trivial",
                               help="The first eigenvector only reflects the degrees; trees can use it, linear "
                               "models find it collinear with the intercept.", bind="query-params")
    n_comp = "eigengap" if ncomp_mode == "eigengap" else n_fixed
unit_rows = knobs.checkbox("Scale each category's code to length 1", key="cat.row_norm", bind="query-params",
                        help="Divide each category's row of kept eigenvectors by its length, so only its direction "
                        "counts. The columns are eigenvectors of length 1 already.")



def controls_text() -> None:
    st.markdown("**What the controls change, and how the pictures can mislead**")
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
* **KL: histogram bins and smoothing** (KL kernel only). Each category's target is counted in
  the same B equal bins, and s is added to every bin before dividing:
  p_i(b) = (n_i(b) + s) / (n_i + B·s). More bins see finer differences, but with few rows per
  category most bins are empty and the smoothing decides them; more smoothing pulls every
  histogram (a rare category's most) towards flat, so divergences shrink (the γ slider is set
  relative to their median, so it follows). The Target histograms tab draws exactly these p_i.
* **Scale each code to length 1.** The full matrix of eigenvectors is orthogonal, so each
  category's whole row has length 1; keeping k columns shortens the rows by different amounts
  (a category the kept eigenvectors barely touch lands near 0). Dividing each row by its length
  puts every category on the unit sphere, as spectral clustering does before k-means (Ng, Jordan
  and Weiss). With a code of width 1 this leaves only the sign: ±1. Columns need no such step:
  each is an eigenvector of length 1 already.
* **Your own matrix** (given matrix): any similarity you trust (business rules, co-purchases,
  distances turned into similarities) goes in as A, and the page treats it like the bundled ones.
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
first_spectrum, first_codes = main.columns(2)
cols = main.columns(5)
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
    main.warning(f"The graph has fallen apart into {n_cc} connected components ({n_cc} zero eigenvalues): {shown}"
               f"{'; …' if len(parts) > 6 else ''}. Their indicator vectors join the code (all but the first: "
               "with an intercept they fix it), so categories in different components stay apart. Lower γ to "
               "connect them.")


@st.fragment
def affinity_and_laplacian(graph, gamma):
    order_by = st.radio("Order the categories", ["as given", "by the Fiedler vector"],
                        index=1, key="cat.order", horizontal=True,
                        help="Sorting by the second eigenvector puts alike categories next to each other, so the "
                        "graph's blocks show up along the diagonal.", bind="query-params")
    view = svc.heatmaps(graph, gamma, order_by != "as given")
    cat_charts.heatmaps(st, view, key="cat.chart.heatmaps")
    st.caption("The Laplacian's colour scale spans its off-diagonal entries (the diagonal is 1 and saturates), "
               "so the negative similarities between categories stay visible.")
    if view["shown"] < view["total"]:
        st.caption(f"Drawn: {view['shown']} of the {view['total']:,} categories, evenly spaced along the order "
                   f"(one in {view['total'] / view['shown']:.1f}), rows and columns alike; a block of alike "
                   "categories keeps its share of the diagonal. The colour range is that of the whole matrix.")
    rows = svc.rows_used(graph)
    if rows is not None:
        st.caption(f"Learned from {rows[0]:,} rows; the rarest value has {rows[1]} rows, the most common {rows[2]}.")


@st.fragment
def downstream_test(graph, gamma, n_comp, keep_trivial, seed, unit_rows):
    if st.button("Run the downstream test", key="cat.run_bench", type="primary"):
        bar = st.progress(0.0, text="starting")
        try:
            svc.run_downstream(graph, gamma, n_comp, keep_trivial, seed,
                               lambda f, t: bar.progress(f, text=f"done: {t}"), normalize=unit_rows)
        except ValueError as err:
            st.error(md_escape(err))
        bar.empty()
    result = svc.downstream_result(graph, gamma, n_comp, keep_trivial, seed, unit_rows)
    if result is not None:
        table = svc.downstream_table(result)
        st.caption(f"Protocol: {result.protocol}")
        st.dataframe(table, hide_index=True, key="cat.bench_table")
        plots.show(st, cat_charts.downstream(table), key="cat.chart.bench")
        st.dataframe(comparison.differences_table(result), hide_index=True, key="cat.bench_differences")
        st.caption("How to read it: the target encoding is the supervised baseline, a category's mean target "
                   "learned (cross-fitted) inside the training rows, one column like the spectral code. The spectral "
                   "code is 'better' only where the interval of its difference excludes 0. γ is chosen inside each "
                   "training fold as a multiple of 1 / (median distance between the training rows' categories); a "
                   "choice still on the grid's edge after widening is named under 'on the grid's edge'.")


@st.fragment
def clusters(graph, gamma, seed, most):
    n_clusters = ranged_slider("Clusters", 2, most, 2, key="cat.clusters",
                               why="splitting 3 categories into 3 clusters would say nothing", bind="query-params")
    st.dataframe(svc.clusters(graph, gamma, n_clusters, seed), hide_index=True, key="cat.clusters_table")


@st.fragment
def target_histograms(graph, gamma):
    if not graph.learned:
        st.info("The histograms are those of a target within each category: pick *learned from a table* to see "
                "what a learned kernel compares. A given matrix has no target behind it.")
        return
    scale = (f"as log(1 + {md_escape(graph.target)})" if graph.transform == "log1p" else "as it is")
    how = ("the symmetric KL divergence of these smoothed histograms" if graph.kernel == "kl" else
           "the 1-Wasserstein distance, the area between the two CDFs (the histograms are drawn only to show the "
           "shapes; Wasserstein uses the sorted values themselves, no bins)")
    st.markdown(f"The kernel compares each category's distribution of **{md_escape(graph.target)}**, {scale}, by "
                f"{how}. Two categories whose rows below look alike get a large affinity on the right.")
    if graph.kernel == "kl":
        st.latex(r"p_i(b) = \frac{n_i(b) + s}{n_i + B s},\qquad D_{ij} = \sum_{b=1}^{B} \Big[p_i(b)\log\frac{p_i(b)}"
                 r"{p_j(b)} + p_j(b)\log\frac{p_j(b)}{p_i(b)}\Big],\qquad A_{ij} = e^{-\gamma D_{ij}}")
        st.caption("n_i(b): rows of category i in bin b, n_i its rows, B the bins and s the smoothing (sidebar).")
    else:
        st.latex(r"W_1(i, j) = \int \lvert F_i(x) - F_j(x) \rvert\, dx,\qquad A_{ij} = e^{-\gamma W_1(i, j)}")
        st.caption("F_i: the share of category i's rows at or below x (its empirical CDF).")
    view = svc.target_histograms(graph, gamma)
    c1, c2 = st.columns(2)
    plots.show(c1, cat_charts.histogram_heatmap(view), key="cat.chart.hists")
    plots.show(c2, cat_charts.kernel_beside(view), key="cat.chart.hist_kernel")
    st.caption("Both in the Fiedler order, so categories with alike histograms sit together on the left and form "
               "a block on the right." + (f" Drawn: {view['shown']} of the {view['total']:,} categories, evenly "
               "spaced along that order." if view["shown"] < view["total"] else ""))
    which = st.radio("Compare two categories", svc.PAIRS, key="cat.pair", horizontal=True, bind="query-params",
                     help="The pair with the largest affinity at this γ, one with the median affinity, or the "
                     "pair with the smallest.")
    pair = svc.pair_view(graph, gamma, which)
    a, b = (md_escape(n) for n in pair["names"])
    st.markdown(f"**{a}** and **{b}**: distance d = {pair['distance']:.4g}, affinity A = "
                f"e^(−γ·d) = {pair['affinity']:.4g}.")
    c1, c2 = st.columns(2)
    plots.show(c1, cat_charts.pair_histograms(pair), key="cat.chart.pair_hist")
    plots.show(c2, cat_charts.pair_cdfs(pair), key="cat.chart.pair_cdf")
    pooled = svc.pooled_histograms(graph)
    st.markdown("**Which scale?** The article looks at the whole target first: sales are very skewed, so it compares "
                "log(1 + sales) instead. A long tail on the raw scale puts most rows of every category in the "
                "first bins, and a few large values then decide the distances. The sidebar's *Target transform* "
                "picks the scale; the kernel's is in orange.")
    c1, c2 = st.columns(2)
    raw, log = cat_charts.pooled_histograms(pooled)
    plots.show(c1, raw, key="cat.chart.pooled_raw")
    if log is not None:
        plots.show(c2, log, key="cat.chart.pooled_log")
    else:
        c2.info("log(1 + target) needs every target value above −1.")
    st.caption("How it can mislead: a category with few rows has a ragged histogram (and, for KL, one the smoothing "
               "flattens), so its distances are noise as much as signal; the row counts are in the legend above.")


@st.fragment
def special_cases():
    st.markdown(
        "Two everyday encodings are spectral encodings of particular kernels. **One-hot** says no category is like "
        "another: K(i, j) = 1 only for i = j. The graph then has no edges, L = 0, every eigenvalue is 0 and every "
        "vector is an eigenvector; picking the components' indicators as the basis gives exactly one-hot (the page "
        "drops the first column, as dummy coding does). Read the other way, as *every pair equally alike* "
        "(K = 1 − I, the complete graph), the spectrum is 0 and then n/(n−1) repeated: no gap, and any rotation of "
        "those eigenvectors is as good, so the code is whatever the solver happened to return. **Label encoding** "
        "(0, 1, 2, … in the categories' order) puts Monday twice as far from Wednesday as from Tuesday and Sunday "
        "six times as far from Monday: it matches the kernel exp(−γ|i − j|). As γ grows that kernel becomes the "
        "path Mon–Tue–…–Sun, whose eigenvectors are cosines of the order (times √d_i, which pulls in the two "
        "ends, where a category has one neighbour instead of two): u₂ divided by √d_i is monotone along the order, "
        "the label encoding bent into a cosine, and the next eigenvectors are its higher harmonics."
    )
    st.latex(r"K = I:\ L = 0;\qquad K = \mathbf{1}\mathbf{1}^\top - I:\ L = \tfrac{nI - \mathbf{1}\mathbf{1}^"
             r"\top}{n-1},\ \lambda \in \{0, \tfrac{n}{n-1}\}")
    st.latex(r"K_{ij} = e^{-\gamma|i-j|} \xrightarrow{\gamma\to\infty} \text{path}:\quad "
             r"\lambda_k = 1 - \cos\tfrac{\pi k}{n-1},\quad u_k(i) \propto \sqrt{d_i}\,\cos\tfrac{\pi k i}{n-1},"
             r"\quad k = 0, \dots, n-1")
    c1, c2, c3 = st.columns([2, 1, 1])
    case = c1.radio("Encoding as a kernel", svc.SPECIAL_CASES, key="cat.special", bind="query-params",
                    help="One-hot's identity, the complete graph (every pair alike), or label encoding's "
                    "exp(-γ|i - j|) over the categories' order.")
    n = c2.slider("Categories", 3, 30, 7, key="cat.special_n", bind="query-params",
                  help="7 are the days of the week, as in the article; otherwise c1 .. cn in their order.")
    log_gamma = c3.slider("log10 γ (label encoding)", -1.0, 1.5, 0.0, 0.1, key="cat.special_gamma",
                          bind="query-params", disabled=case != svc.SPECIAL_CASES[2],
                          help="How fast similarity falls along the order: at γ = 10 only neighbours count.")
    view = svc.special_case(case, n, float(10**log_gamma))
    c1, c2 = st.columns(2)
    plots.show(c1, cat_charts.special_kernel(view), key="cat.chart.special_kernel")
    plots.show(c2, cat_charts.special_spectrum(view), key="cat.chart.special_spectrum")
    plots.show(st, cat_charts.special_vectors(view), key="cat.chart.special_vectors")
    if case == svc.SPECIAL_CASES[0]:
        st.markdown(f"All {n} eigenvalues are 0 ({view['n_zero']} connected components: no category is joined to "
                    f"another) and the largest off-diagonal |L| is {view['L_offdiag_max']:g}. The code below is "
                    "one-hot without its first column.")
    elif case == svc.SPECIAL_CASES[1]:
        rest = view["eigenvalues"][1:]
        st.markdown(f"λ₁ = 0, then {n - 1} eigenvalues between {rest.min():.6f} and {rest.max():.6f} (n/(n−1) = "
                    f"{n / (n - 1):.6f}): the differences are rounding, so the 'largest gap' the eigengap rule finds "
                    f"(here after {view['eigengap_k']} eigenvector(s)) is noise, and so are the eigenvectors drawn.")
    else:
        path = view["path"]
        agree = ", ".join(f"u{c + 1}: {v:.4f}" for c, v in zip(view["shown"], path["agreement"]))
        monotone = "is" if view["fiedler_monotone"] else "is not"
        st.markdown(f"At γ = {10**log_gamma:.3g}: |⟨u_k, path's u_k⟩| = {agree} (1 is the same vector). The "
                    f"eigenvalues differ from the path's by up to {path['max_eigenvalue_gap']:.3g}: the far pairs "
                    f"still add weight, but the shapes are the cosines already. D^(−1/2) u₂ {monotone} monotone "
                    "along the order.")
    st.caption("The spectral code (eigengap choice) of this kernel:")
    st.dataframe(view["code"], hide_index=True, key="cat.special_code")
    st.caption("How it can mislead: when eigenvalues are equal the eigenvectors are not defined one by one, only the "
               "space they span; a picture of them shows one arbitrary basis of it. The label-encoding kernel "
               "assumes the order is right and that neighbours are equally alike everywhere along it.")


# The first screen: the spectrum with its gap, and every category at its first two code numbers.
first_table, first_gap, first_k = svc.spectrum_view(graph, gamma, n_comp, keep_trivial)
cat_charts.spectrum_bars(first_spectrum, first_table, first_gap, first_k, n_labels, key="cat.chart.first_spectrum",
                         height=chart_height(380))
first_code = svc.codes(graph, gamma, n_comp, keep_trivial, unit_rows)
first_map = {"title": "Categories placed by their code (first two kept eigenvectors)"}
if first_code.table.shape[1] < 3:  # a code of width 1 is a line: place the categories by two eigenvectors
    first_code = svc.codes(graph, gamma, 2, keep_trivial, unit_rows)
    first_map["title"] = "Categories at the first two eigenvectors"
first_map = {**cat_charts.code_map(first_code.table, first_code.eigenvalues), **first_map,
             "height": chart_height(380)}
MapTools("cat", graph, first_code.table["category"], cat_charts.code_xy(first_code.table), noun="category",
         id_name="category", name="first").draw(first_codes, "cat.map.first", **first_map)
with main:
    theory_box = theory(key="cat.theory")
with theory_box:
    if theory_box.open:  # written only while open: every γ redraws the page
        intro()
        controls_text()

tabs = lazy_tabs(["Affinity and Laplacian", "Target histograms", "Spectrum", "Eigenvectors", "γ sweep",
                  "Downstream test", "Clustering", "One-hot and label encoding", "Download"], key="cat.tab")
(t_affinity, t_hist, t_spectrum, t_vectors, t_sweep, t_downstream, t_clusters, t_special, t_download) = tabs

with t_affinity:
    if t_affinity.open:
        affinity_and_laplacian(graph, gamma)

with t_hist:
    if t_hist.open:
        target_histograms(graph, gamma)

with t_spectrum:
    if t_spectrum.open:
        table, gap_after, k_gap = svc.spectrum_view(graph, gamma, n_comp, keep_trivial)
        plots.show(st, cat_charts.spectrum(table, gap_after, k_gap, n_labels), key="cat.chart.spectrum")
        if len(table) < n_labels:
            st.caption(f"The page computes the smallest {len(table)} of the {n_labels:,} eigenvalues: every zero, "
                       f"then the {svc.EIGENGAP_WINDOW + 1} after them that the eigengap rule compares (it looks for "
                       f"the largest gap among at most {svc.EIGENGAP_WINDOW} past the zeros; a code wider than that is "
                       "no longer short). Every code, cut and cluster on the page uses only these.")
        st.dataframe(table, hide_index=True, height=220, key="cat.eigen_table")
        printed = svc.reference_spectrum(graph)
        if not printed.empty:
            with st.expander(f"The article's spectrum at γ = {base.reference_gamma:g}"):
                st.latex(rf"A_{{ij}} = e^{{-{base.reference_gamma:g}\, D_{{ij}}}},\quad "
                         r"L = I - D^{-1/2} A D^{-1/2} = U \Lambda U^\top")
                st.dataframe(printed, hide_index=True, key="cat.article_spectrum",
                             column_config={"difference": st.column_config.NumberColumn(format="%.1e")})
                st.caption(f"At the article's γ (ticked beside the γ slider) the page's eigenvalues match the ones "
                           f"it printed to within {printed['difference'].max():.1e}: one 0, a gap, then a cluster near 1.25.")

with t_vectors:
    if t_vectors.open:
        code = svc.codes(graph, gamma, n_comp, keep_trivial, unit_rows)
        if unit_rows:
            st.latex(r"x_i = \frac{(u_{c_1}(i), \dots, u_{c_k}(i))}{\lVert (u_{c_1}(i), \dots, u_{c_k}(i)) "
                     r"\rVert}")
            st.caption("Each category's code divided by its length (the kept columns c₁ … c_k): the bars and the map "
                       "show these unit-length rows.")
        plots.show(st, cat_charts.eigenvector_bars(code.table, code.eigenvalues, unit_rows), key="cat.chart.vectors")
        tools = MapTools("cat", graph, code.table["category"], cat_charts.code_xy(code.table),
                         space=cat_charts.code_space(code.table), noun="category", id_name="category", name="codes")
        tools.draw(st, "cat.map.codes", **cat_charts.code_map(code.table, code.eigenvalues))

        def how_alike(rows) -> None:
            st.caption("How alike they are: mean affinity at this γ")
            st.dataframe(svc.selection_affinity(graph, gamma, tuple(rows.tolist())), hide_index=True,
                         key="cat.selected_affinity")

        tools.panel(how_alike, file_name="selected_categories.csv")
        if tools.view is not None:
            st.caption("The original space is the whole code (every kept eigenvector); the map shows the first two.")

with t_sweep:
    if t_sweep.open:
        if gamma is None:
            st.info("This matrix is a given affinity: there is no γ to sweep. Pick the liquor KL distances or a table.")
        else:
            sweep = svc.gamma_sweep(graph, gamma)
            plots.show(st, cat_charts.gamma_sweep(sweep, n_labels), key="cat.chart.sweep")
            drawn = sweep.groupby("factor").size()
            if drawn.max() < n_labels:
                count = str(drawn.min()) if drawn.min() == drawn.max() else f"{drawn.min()} to {drawn.max()}"
                st.caption(f"Each spectrum is the smallest {count} of the {n_labels:,} eigenvalues (every zero, then "
                           f"the {svc.EIGENGAP_WINDOW + 1} after them, as in the Spectrum tab).")
            st.caption("Small γ: one zero, the rest bunched near n/(n-1). Large γ: the spectrum spreads over [0, 2] "
                       "and, when affinities underflow, extra zeros appear as the graph splits. The useful γ shows a "
                       "few small eigenvalues, then a gap.")

with t_downstream:
    if t_downstream.open:
        if graph.from_file and not graph.labelled:
            st.info(f"The downstream test needs the table the kernel was learned from, with the columns "
                    f"'{md_escape(graph.column)}' and '{md_escape(graph.target)}': choose it under Data set in the "
                    "sidebar (a bundled table, or your upload under Your data).")
        elif not graph.labelled:
            st.info("The downstream test needs a table with a target; pick 'learned from a table'.")
        else:
            how = ("one-hot, ordinal and target encoding refitted inside each fold, spectral with the command's "
                   "kernel" if graph.from_file else "one-hot, ordinal, target encoding or spectral, each learned "
                   "inside each training fold; the spectral code keeps the page's kernel, eigenvector choice and "
                   "normalisation, its γ is chosen in the fold")
            st.markdown("Held-out R² (5 folds, shuffled with the seed) of a random forest and of ridge "
                        f"regression predicting **{md_escape(graph.target)}** from **{md_escape(graph.column)}** "
                        f"({how}) plus the table's other numeric columns.")
            if graph.from_file:
                st.caption("The command's kernel was learned once from every row, the test folds' targets included, "
                           "so its score is optimistic next to the page's own encoder, which is learned again inside "
                           "each training fold.")
            downstream_test(graph, gamma, n_comp, keep_trivial, seed, unit_rows)

with t_clusters:
    if t_clusters.open:
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

with t_special:
    if t_special.open:
        special_cases()

with t_download:
    if t_download.open:
        code = svc.codes(graph, gamma, n_comp, keep_trivial, unit_rows)
        encoding_csv, affinity_csv = svc.download_files(graph, gamma, n_comp, keep_trivial, unit_rows)
        if graph.from_file:
            params = svc.kernel_manifest(graph)
        else:
            params = {"similarity": kind, "gamma": gamma, "components": code.columns, "keep_trivial": keep_trivial,
                      "seed": seed}
        params["rows to unit length"] = unit_rows
        if graph.learned:
            params.update(column=graph.column, target=graph.target, kernel=graph.kernel, transform=transform)
            if graph.kernel == "kl":
                params.update(bins=graph.bins, smoothing=graph.smoothing)
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
            st.code(svc.command_line(graph, gamma, n_comp, keep_trivial), language=None, wrap_lines=True)
            if unit_rows:
                st.caption("The command writes the codes as the eigenvectors give them; scale each row to length 1 "
                           "afterwards (divide it by its length) to get the codes shown here.")

if tour.current("cat") is not None:  # what the tour's sentence says, measured on the graph and code on show
    tour.tell("cat", **svc.tour_facts(graph, gamma, n_comp, keep_trivial, unit_rows))

share.panel("categories", None if graph.from_file else reproduce.lazy(
    lambda: svc.recipe(graph, gamma, n_comp, keep_trivial, unit_rows)),
    uploaded=graph.data.source.startswith("upload:"),
    what="A kernel from the command line is reproduced by its own command: its manifest (in the zip you "
    "uploaded) holds the settings." if graph.from_file else "the distances (or affinity), eigenvalues and codes "
    "shown, with the category names")
