import streamlit as st

from app.services import data as data_service
from app.services import foundations as svc
from app.services import reproduce
from app.services import selection as picked
from app.ui import foundations_charts as fc
from app.ui import map as lab_map
from app.ui import plots, share, tour
from app.ui.controls import ranged_select_slider, ranged_slider
from app.ui.layout import instrument, main_chart, page_header, tab_sections, theory
from app.ui.selection import MapTools
from app.ui.sidebar import data_source
from app.ui.text import equations

TABS = ["PCA", "Standardising new data", "PCA vs JL", "Johnson-Lindenstrauss", "SVD", "Autoencoders", "Feature hashing"]
#: the sidebar's data set feeds three tabs only: its box says so, and a line under it says what the open tab shows
DATA_LABEL = "Data set (PCA vs JL, JL and SVD tabs)"
ON_SHOW = {"PCA": "a synthetic 3-D cloud of 400 correlated Gaussian points, not the data set above",
           "Standardising new data": "the digits, whatever the data set above",
           "Autoencoders": "the digits, whatever the data set above",
           "Feature hashing": "the word counts of 300 news articles, whatever the data set above"}
ON_SHOW_CHOSEN = "the data set above or the tab's own, as the tab's Data or Matrix choice says"
SIDEBAR_STANDARDISED = "the sidebar data set (standardised)"
NEWS = "news TF-IDF (300 documents)"
PHOTO = "scikit-learn's sample photo"


#: every control of the sections with its first value (buttons are not controls: they cannot be set)
DEFAULTS = {"found.pca_feature": "z", "found.pca_scale": 0.0, "found.pca_std": False, "found.pca_3d": False,
            "found.batch_size": 10, "found.batch_kind": "random",
            "found.pvj_data": SIDEBAR_STANDARDISED, "found.jl_data": NEWS, "found.jl_eps": 0.3,
            "found.jl_kind": "orthonormal", "found.svd_data": PHOTO, "found.svd_center": True, "found.ae_k": 4,
            "found.ae_noise": 1.0, "found.cae_lambda": 0.1, "found.hash_w": 256}
#: controls whose first value depends on the data (set where they are drawn)
DATA_RANGED = ("found.pvj_k", "found.jl_k", "found.svd_k")


def keep_controls() -> None:
    """Keep the sections' control values while their tab is closed.

    A closed lazy tab draws nothing, and Streamlit forgets the state of a
    widget that was not drawn; writing each value back through the Session
    State API keeps it, and a slider whose range follows the matrix (the
    rank) keeps its value instead of starting over at its minimum. Each widget
    also declares its value here as its own default: Streamlit drops a link's
    value that equals the widget's default, so a widget whose default differed
    from this one would turn ``?found.pca_feature=x`` into z without a word.
    """
    for key, first in DEFAULTS.items():
        st.session_state[key] = st.session_state.get(key, first)
    for key in DATA_RANGED:
        if key in st.session_state:
            st.session_state[key] = st.session_state[key]


# Each section is a fragment: its own controls rerun it alone, not the page around it.


def pca_theory() -> None:
    st.markdown(
        "PCA finds orthogonal directions of largest variance. **Greedily**: take the unit vector of largest "
        "variance, then the largest orthogonal to it, and so on. **By eigenvectors**: the top eigenvectors of "
        "XᵀX (X centred). The two agree. Because variance depends on units, one feature measured in "
        "millimetres instead of metres (×1000) captures the first component on its own: standardise first.")
    st.latex(r"z_1 = \arg\max_{\lVert z\rVert = 1} \operatorname{Var}(Xz),\qquad X^\top X z_i = \lambda_i z_i")


@st.fragment
def pca_section(seed: int) -> None:
    c1, c2, c3 = st.columns(3)
    feature = c1.selectbox("Feature to rescale", ["x", "y", "z"], index=2, key="found.pca_feature", bind="query-params")
    log_scale = c2.slider("log10(scale factor)", 0.0, 3.0, step=0.25, key="found.pca_scale",
                          help="Multiply the chosen feature by 10^this.", bind="query-params")
    standardise = c3.checkbox("Standardise first", key="found.pca_std", bind="query-params")
    rotatable = c3.toggle("Rotatable 3-D view", key="found.pca_3d",
                          help="The cloud in 3-D instead of seen along each axis; it takes longer to redraw.",
                          bind="query-params")
    pca = svc.pca_scaling(seed, "xyz".index(feature), float(log_scale), bool(standardise))
    if rotatable:
        left, right = st.columns([3, 2])
        numbers = right
        plots.show(left, fc.pca_cloud(pca.points, pca.eigen, pca.greedy, pca.variances,
                                      title="The cloud with the first two components, eigen and greedy"),
                   key="found.chart.pca")
    else:  # the side views select: a box in one rings the same points in all three
        scores = svc.pca_scores(seed, "xyz".index(feature), float(log_scale), bool(standardise))
        tools = MapTools("found", seed, range(len(pca.points)), pca.points[:, :2], space=pca.points, name="pca")
        st.markdown("**The cloud seen along each axis, with its principal components (eigenvector arrows, greedy "
                    "tips)**")
        # the three views are the main picture; narrow, so not as tall as a single chart in presentation mode
        main_chart("found.map.xy", "found.map.xz", "found.map.yz", height=520)
        for col, key, (xy, layers) in zip(st.columns(3), ("found.map.xy", "found.map.xz", "found.map.yz"),
                                          fc.pca_side_views(pca.points, pca.eigen, pca.greedy, pca.variances)):
            tools.draw(col, key, xy, **layers)
        right, numbers = st.columns([3, 2])
    fc.explained_variance(right, pca.explained, key="found.chart.pca_var")
    numbers.metric(f"angle between PC1 and the {feature} axis", f"{pca.angle_deg:.1f}°")
    numbers.metric("greedy vs eigen PC1 (|cosine|)", f"{pca.agreement:.6f}")
    with st.expander("Theory: PCA greedily and by its eigenvectors", icon=":material/school:"):
        pca_theory()
        st.caption("Misleading: arrows are scaled for display (in the side views each reaches two standard "
                   "deviations along its component, shortened where it would pass the cloud's edge in that view); "
                   "without standardisation the axes' units decide what "
                   "'largest variance' means. The greedy directions' tips (diamonds) land on the eigenvector arrows' "
                   "tips; their signs are arbitrary.")
    if not rotatable:

        def along_the_components(rows) -> None:
            st.caption("Where the selection sits: its range on each feature and on the first two components")
            st.dataframe(picked.spread(scores, rows, ["x", "y", "z", "PC1", "PC2"]), hide_index=True,
                         key="found.selected_where", height=240)

        tools.panel(along_the_components, file_name="selected_points.csv",
                    extra={"z": pca.points[:, 2], "PC1": scores[:, 3], "PC2": scores[:, 4]})
        st.caption("The map of a clicked point is the x-y view: its nearest neighbours in 3-D next to its nearest "
                   "there show what the view hides.")


#: what the test batch is drawn from, by the name its radio shows
BATCHES = {"random": "a random sample of the new digits", "one": f"only the digit {svc.BATCH_DIGIT} (a shifted mean)"}


@st.fragment
def standardising_section(seed: int) -> None:
    st.markdown(
        "A model fitted on standardised data lives in the coordinates that the **training** mean μ and standard "
        "deviation σ define. New rows must be moved into the same coordinates: subtract the training μ, divide "
        "by the training σ, then project onto the components Z found in training. Standardising a new batch "
        "by **its own** μ and σ looks harmless but changes the coordinates: a batch of one row lands at the "
        "origin whatever it shows, a small batch is stretched by its own noisy σ, and a batch of similar rows "
        "(here: one digit, a batch whose mean is shifted away from the training mean) is moved to the middle "
        "of the training cloud and loses exactly what made it different.")
    st.latex(r"z = Z^\top\,\frac{x - \mu_{\text{train}}}{\sigma_{\text{train}}}\quad\text{(right)},\qquad "
             r"z' = Z^\top\,\frac{x - \mu_{\text{batch}}}{\sigma_{\text{batch}}}\quad\text{(wrong)}")
    st.caption(f"The digits: {100 * (1 - svc.TEST_SHARE):.0f}% fit the standardisation, {svc.BATCH_COMPONENTS} "
               "principal components and each digit's mean there; the rest arrive as new batches and are "
               "labelled by the nearest digit mean. Both placements use the same model.")
    c1, c2 = st.columns(2)
    size = c1.select_slider("Test batch size", svc.BATCH_SIZES, DEFAULTS["found.batch_size"], key="found.batch_size", bind="query-params",
                            help="Rows standardised together; the batch's own μ and σ come from them.")
    kind = c2.radio("Test batch", list(BATCHES), format_func=lambda v: BATCHES.get(v, v),
                    key="found.batch_kind", bind="query-params",
                    help="One digit: every row of the batch shows the same digit, so the batch's mean sits far from "
                    "the training mean.")
    one = kind == "one"
    view = svc.batch_view(seed, int(size), one)
    table = svc.batch_table(seed, one)
    left, right = st.columns([3, 2])
    what = f"{view.rows} new digit{'s' if view.rows != 1 else ''}" + (f" {svc.BATCH_DIGIT}" if one else "")
    xy, layers = fc.batch_map(view.train, view.train_labels, view.right, view.wrong,
                              title=f"A batch of {what} placed both ways (first two components)")
    lab_map.draw(left, xy, key="found.map.batch", **layers)
    plots.show(right, fc.batch_accuracy(table, int(size)), key="found.chart.batch_acc")
    row = table[table["size"] == int(size)].iloc[0]
    m1, m2, m3 = st.columns(3)
    m1.metric("accuracy, training μ and σ", f"{row['training statistics']:.1%}")
    m2.metric("accuracy, the batch's own μ and σ", f"{row['batch statistics']:.1%}",
              delta=f"{100 * (row['batch statistics'] - row['training statistics']):+.1f} points")
    m3.metric("how far a row moves (× the training spread)", f"{row['displacement']:.2f}")
    st.caption(f"Accuracies over at least {svc.BATCH_MIN_ROWS} new rows in seeded batches of this size"
               + (f" (a one-digit batch holds only the held-out rows of its digit, {row['rows']:.0f} on average; "
                  "each digit in turn)" if one and row["rows"] < int(size) else (" (each digit in turn)" if one else ""))
               + f"; the batch drawn on the map scores {view.accuracy[0]:.0%} and {view.accuracy[1]:.0%}. "
               "Misleading: a large random batch has nearly the training μ and σ, so the mistake seems to do no "
               "harm; it is the same mistake at size 1 or with a skewed batch. The map shows two of the "
               f"{svc.BATCH_COMPONENTS} components the classifier uses.")


@st.fragment
def pca_vs_jl_section(ref, seed: int) -> None:
    st.markdown(
        "PCA picks the k directions that **reconstruct** the data best; a Johnson-Lindenstrauss map picks k "
        "random directions that **keep distances**. Left: the share of the data's energy lost when projecting "
        "(PCA wins by construction). Right: the median relative error of squared pairwise distances: PCA "
        "shrinks every distance it cannot see, while a scaled random projection is right on average.")
    which = st.radio("Data", [SIDEBAR_STANDARDISED, NEWS], key="found.pvj_data", horizontal=True, bind="query-params")
    result = svc.pca_vs_jl(ref if which == SIDEBAR_STANDARDISED else svc.NEWS, seed)
    if result.problem:
        st.info(result.problem)
        return
    ks = result.ks
    kmark = ranged_select_slider("Highlight k", ks, ks[min(2, len(ks) - 1)], key="found.pvj_k",
                                 why="the data have rank 2 at most", bind="query-params")
    c1, c2 = st.columns(2)
    plots.show(c1, fc.pca_vs_jl_reconstruction(result.table, kmark), key="found.chart.pvj_rec")
    plots.show(c2, fc.pca_vs_jl_distortion(result.table, kmark), key="found.chart.pvj_dist")


#: the JL section's matrices, by the name its radio shows
KINDS = {"orthonormal": "orthonormal subspace × √(d/k)", "gaussian": "Gaussian / √k",
         "sparse": "sparse (scikit-learn's) / √k"}


@st.fragment
def jl_section(ref, seed: int) -> None:
    st.markdown(
        "Any n points can be mapped to k = O(ε⁻² log n) dimensions so that every squared distance stays within a "
        "factor 1 ± ε, whatever the original dimension d. The map is random and ignores the data: **project onto "
        "a random k-dimensional subspace** (k orthonormal directions) and stretch by √(d/k), because a random "
        "subspace keeps only k/d of a vector's squared length on average. A matrix of independent Gaussian "
        "entries divided by √k does the same without orthogonalising, and a sparse matrix of 0 and ±√s "
        "(Achlioptas's s = 3; scikit-learn's default here, s = √d) multiplies fastest. The data here are TF-IDF "
        "vectors of 300 news articles in thousands of dimensions.")
    equations(st, r"f(x) = \sqrt{d/k}\;Q^\top x,\quad Q^\top Q = I_k:",
              r"(1-\varepsilon)\lVert x_i - x_j\rVert^2 \le \lVert f(x_i) - f(x_j)\rVert^2 \le "
              r"(1+\varepsilon)\lVert x_i - x_j\rVert^2")
    st.markdown(
        "How large must k be? For one pair, the chance of leaving the band falls exponentially with k (the "
        "bound below, from Dasgupta and Gupta's proof, holds for all three matrices; for the very sparse one only "
        "as d grows). The statement we follow asks for 0 < ε < 1/2 and a failure chance δ = 1/n³ for each pair: "
        "there are fewer than n²/2 pairs, so all of them hold at once with chance at least 1 − 1/n. "
        "scikit-learn's `johnson_lindenstrauss_min_dim` asks only δ = 2/n², which proves that a good map exists "
        "(chance ≥ 1/n) but does not promise that this draw is one.")
    st.latex(r"P\big(\text{a pair leaves } 1 \pm \varepsilon\big) \le 2\,e^{-k(\varepsilon^2/2 - \varepsilon^3/3)/2}"
             r"\qquad P(\text{some pair leaves it}) \le \tbinom{n}{2}\, 2\,e^{-k(\varepsilon^2/2 - \varepsilon^3/3)/2}")
    st.latex(r"k \ge \frac{6 \ln n + 2 \ln 2}{\varepsilon^2/2 - \varepsilon^3/3}\;\Rightarrow\;"
             r"P(\text{all pairs hold}) \ge 1 - \tfrac{1}{n};\qquad "
             r"\text{scikit-learn: } k \ge \frac{4 \ln n}{\varepsilon^2/2 - \varepsilon^3/3}")
    which = st.radio("Data", [NEWS, SIDEBAR_STANDARDISED], key="found.jl_data", horizontal=True, bind="query-params")
    matrix = svc.NEWS if which == NEWS else ref
    info = svc.jl_data(matrix, seed)
    if info.total_rows > info.rows:
        st.info(f"The data set has more than {svc.JL_MAX_ROWS:,} rows; this section uses a random sample of "
                f"{svc.JL_MAX_ROWS:,} (seed {seed}).")
    if info.problem:
        st.info(info.problem)
        return
    c1, c2, c3 = st.columns(3)
    eps = c1.slider("ε", 0.05, 0.9, DEFAULTS["found.jl_eps"], step=0.05, key="found.jl_eps", bind="query-params",
                    help="The statement asks for ε < 1/2; the bounds' formula holds up to ε < 1.")
    bound = svc.jl_bound(info.rows, eps)
    k = ranged_slider("k (dimensions)", 2, svc.JL_MAX_K, min(max(bound, 2), svc.JL_MAX_K), key="found.jl_k",
                      where=c2, help="The bounds for the chosen ε are marked on the right.", bind="query-params")
    kind = c3.radio("Matrix", list(KINDS), format_func=lambda v: KINDS.get(v, v), key="found.jl_kind",
                    bind="query-params",
                    help="Orthonormal: the transform as the lemma states it. The first k directions of one frame serve "
                    "every k: a smaller k reads a prefix, a larger one adds directions 256 at a time (a fraction of "
                    "a second each on the news vectors, then kept for everyone).")
    used = svc.jl_usable_k(matrix, k, kind, seed)
    if used < k:
        st.info(f"A subspace of {info.columns:,} dimensions has at most {info.columns:,} orthonormal directions: "
                f"shown at k = {used:,}, where the map is a rotation and keeps every distance exactly. Lower k "
                "or pick another matrix to see a projection.")
    ratios = svc.jl_ratios(matrix, k, kind, seed)
    promise = svc.jl_guarantee(matrix, k, kind, seed, eps)
    m1, m2, m3, m4 = st.columns(4)
    m1.metric("original dimensions", f"{info.columns:,}")
    m2.metric("JL bound for this ε (scikit-learn)", f"{bound:,}")
    m3.metric("k for all pairs with chance ≥ 1 − 1/n", f"{promise.seed_k:,}")
    m4.metric("pairs within 1 ± ε", f"{1 - promise.outside:.1%}")
    left, right = st.columns(2)
    plots.show(left, fc.jl_histogram(ratios, eps, used, info.pairs), key="found.chart.jl_hist")
    plots.show(right, fc.jl_bound(svc.jl_curve(info.rows), eps, used, info.rows), key="found.chart.jl_bound")
    left, right = st.columns([3, 2])
    plots.show(left, fc.jl_failure(svc.jl_failure(info.rows, eps), used, promise.outside, eps),
               key="found.chart.jl_fail")
    right.markdown(
        f"At k = {used:,} and ε = {eps:g} the bound lets one pair fail with chance at most "
        f"**{promise.per_pair:.2g}**; for some pair of the {info.rows:,} points ({info.rows * (info.rows - 1) // 2:,} "
        "pairs) it "
        + (f"gives at most **{promise.some_pair:.2g}**" if promise.some_pair < 1 else
           "exceeds 1, so it promises nothing for all pairs at once")
        + f". Of the {info.pairs:,} pairs measured, **{promise.outside:.1%}** fell outside.")
    right.caption("Misleading: the bound is a worst case for every pair at once; in practice far fewer dimensions "
                  "keep most pairs within ε, as the histogram shows when you lower k below it. The pairs measured "
                  "are a random sample, so 0% outside says little about the rarest pair. Past ε = 1/2 the "
                  "statement no longer applies, though the formula still holds.")


@st.fragment
def svd_section(ref, seed: int) -> None:
    st.markdown("The SVD writes a matrix as a sum of rank-one layers, largest first; keeping the top k gives the "
                "best rank-k approximation (Eckart-Young). The *energy* of the first k layers is the share of the "
                "sum of squares they keep; a common rule keeps enough for 80%.")
    st.latex(r"X = U \Sigma V^\top = \sum_i \sigma_i u_i v_i^\top,\qquad "
             r"\text{energy}(k) = \frac{\sum_{i \le k} \sigma_i^2}{\sum_i \sigma_i^2}")
    which = st.radio("Matrix", [PHOTO, "the sidebar data set"], key="found.svd_data", horizontal=True,
                     bind="query-params")
    matrix = svc.PHOTO if which == PHOTO else ref
    rows, cols = svc.svd_shape(matrix)
    c_rank, c_center = st.columns([3, 1])
    rank = ranged_slider("Rank k", 1, min(150, rows, cols), min(10, rows, cols), key="found.svd_k", where=c_rank,
                         why="the matrix has a single row or column", bind="query-params")
    center = c_center.checkbox("Centre the columns first", DEFAULTS["found.svd_center"], key="found.svd_center",
                               help="Without centring, the first layer is mostly the mean brightness and "
                               "already holds about 90% of the energy.", bind="query-params")
    spectrum = svc.svd_spectrum(matrix, center)
    if spectrum.problem:
        st.info(spectrum.problem)
        return
    approx = svc.svd_rank(matrix, rank, center)
    c1, c2 = st.columns(2)
    plots.show(c1, fc.svd_energy(spectrum.energy, rank, spectrum.k80), key="found.chart.svd_energy")
    if matrix == svc.PHOTO:
        c2.image(approx.values, caption=f"Rank {rank}: {100 * approx.energy:.1f}% of the energy, relative error "
                 f"{approx.error:.3f} (image {rows}x{cols}, scikit-learn's sample photo)",
                 alt=f"The sample photo rebuilt from its first {rank} singular layers, {rows} by {cols} pixels")
    else:
        shown = f"first {approx.rows} rows" + (f", first {approx.columns:,} columns" if approx.columns < cols else "")
        plots.show(c2, fc.svd_reconstruction(approx.values, title=f"Rank-{rank} reconstruction ({shown}), relative "
                                             f"error {approx.error:.3f}"), key="found.chart.svd_rec")
    st.caption("Misleading: 80% of the energy can still look poor, because the eye cares about edges, which live "
               "in the small layers; and energy counts the image's mean brightness, which the first layer holds.")


@st.fragment
def autoencoder_section(seed: int) -> None:
    st.markdown(
        "An autoencoder is a network trained to output its input through a narrow *bottleneck*; the "
        "bottleneck's activations are the embedding. With one linear layer and squared loss its best "
        "solution spans exactly PCA's subspace: the principal angles between the two go to zero. A "
        "**denoising** autoencoder sees corrupted inputs and must output the clean ones, so it learns "
        "what is signal. Data: the digits, standardised; networks are scikit-learn's MLPRegressor.")
    st.latex(r"\min_{M_1, M_2} \frac{1}{n}\sum_j \lVert x_j - \phi(x_j M_1 + b_1) M_2 - b_2 \rVert^2,\qquad "
             r"\phi = \mathrm{id} \Rightarrow \operatorname{span}(M_2^\top) = \operatorname{span}(z_1, \dots, z_k)")
    k = st.slider("Bottleneck size k", 1, 16, DEFAULTS["found.ae_k"], key="found.ae_k", bind="query-params")
    ae = svc.linear_ae(k, seed)
    c1, c2 = st.columns([2, 1])
    plots.show(c1, fc.ae_angles(ae.angles), key="found.chart.ae_angles")
    c2.metric("largest angle", f"{ae.largest:.2f}°")
    c2.metric("reconstruction MSE (standardised units)", f"{ae.mse:.3f}")
    c2.caption("Angles above zero (a degree or two at most) come from stopping the optimiser at its "
               "tolerance, not from a different answer.")
    st.markdown("**Non-linear and denoising autoencoders** (64 → k → 64 tanh layers; about 10 s to train both)")
    noise = st.slider("Corruption for training and testing (σ)", 0.0, 2.0, DEFAULTS["found.ae_noise"], step=0.25,
                      key="found.ae_noise",
                      bind="query-params")
    panel = svc.ae_panel(k, noise, seed)
    if st.button("Train both", key="found.ae_train", help="Trained once per setting on this server, then shown "
                 "to everyone who picks the same k, σ and seed."):
        with st.status("Training the autoencoders", expanded=False) as status:
            panel = svc.train_ae_panel(k, noise, seed)
            status.update(label="Trained", state="complete")
    if panel is not None:
        plots.show(st, fc.ae_digits(panel.grid, panel.stages), key="found.chart.ae_images")
        st.caption(" · ".join(f"{name}: MSE {err:.3f}" for name, err in panel.errors.items()))
    st.markdown(
        "**Contractive autoencoders.** A denoising autoencoder makes the *output* insensitive to small changes "
        "of the input. A contractive one asks the same of the *embedding*: it adds to the reconstruction loss "
        "the squared Frobenius norm of the encoder's Jacobian, the sum over every bottleneck unit z_i and "
        "every input x_h of (∂z_i/∂x_h)², weighted by λ. Directions along which the data actually vary are "
        "kept because the reconstruction needs them; every other direction is flattened, so nearby inputs "
        "get nearby codes.")
    st.latex(r"\mathcal{L}_{\text{CAE}} = \frac{1}{n}\sum_{j=1}^{n} \lVert x_j - \mathrm{ae}(x_j)\rVert^2 + "
             r"\lambda \sum_{j=1}^{n} \lVert J_z(x_j) \rVert_F^2,\qquad "
             r"\lVert J_z(x)\rVert_F^2 = \sum_{i=1}^{k}\sum_{h=1}^{d} \Big(\frac{\partial z_i}{\partial x_h}\Big)^2")
    if panel is not None and panel.sensitivity:
        c1, c2 = st.columns(2)
        for col, (name, value) in zip((c1, c2), panel.sensitivity.items()):
            col.metric(f"{name}: mean ‖J_z‖²_F of its encoder", f"{value:.3f}")
        st.caption("Measured on the clean digits for the two networks above, which were trained without the "
                   "penalty: this is the quantity a contractive autoencoder would push down. Denoising "
                   "protects the reconstruction, not necessarily the code, so its encoder need not be the "
                   "smaller of the two.")
    else:
        st.caption("Train both networks to see their encoders' ‖J_z‖²_F, the penalty a contractive "
                   "autoencoder would add.")
    with st.expander("A contractive autoencoder, trained with the penalty", expanded=True):
        st.latex(r"\frac{1}{n}\sum_{j} \lVert x_j - \mathrm{ae}(\tilde x_j)\rVert^2 + "
                 r"\frac{\lambda}{n}\sum_{j} \lVert J_z(x_j)\rVert_F^2")
        st.latex(r"z = \tanh(x W_1 + b_1) \Rightarrow \lVert J_z(x)\rVert_F^2 = "
                 r"\sum_{i=1}^{k} (1 - z_i^2)^2\, \lVert W_{1,:i}\rVert^2")
        lam = st.select_slider("Contractive weight λ", [0.0, 0.01, 0.03, 0.1, 0.3, 1.0, 3.0],
                               DEFAULTS["found.cae_lambda"], key="found.cae_lambda",
                               bind="query-params",
                               help="0 is the plain net; larger λ flattens the code more, until the "
                               "reconstruction starts to pay for it.")
        cae = svc.contractive(k, noise, lam, seed)
        if st.button("Train plain, denoising and contractive", key="found.cae_train",
                     help="Three nets of one architecture (64 → k tanh → 64 tanh → 64), a few seconds in all; "
                     "kept on this server for everyone with the same k, σ, λ and seed."):
            with st.status("Training the three autoencoders", expanded=False) as status:
                cae = svc.train_contractive(k, noise, lam, seed)
                status.update(label="Trained", state="complete")
        if cae is None:
            st.caption("Press the button to train the three nets and measure their encoders.")
        else:
            st.dataframe(cae, hide_index=True, key="found.cae_table",
                         column_config={"held-out MSE": st.column_config.NumberColumn(format="%.4f"),
                                        "mean ||J_z||_F^2": st.column_config.NumberColumn(format="%.3f")})
            st.caption(f"Same architecture, start and schedule (numpy, Adam); only the loss differs: x̃ = x for "
                       f"plain and contractive, x plus noise of σ = {noise:g} for denoising. Both scores are on a "
                       "fifth of the digits held out. The penalty pulls ‖J_z‖² down while the reconstruction "
                       "barely moves; denoising calms the encoder too, but through its reconstruction, which "
                       "pays for it.")


@st.fragment
def hashing_section(seed: int) -> None:
    st.markdown(
        "Feature hashing maps a huge sparse vocabulary into a fixed width w without a dictionary: each word "
        "goes to bucket h(word) with a random sign s(word). Collisions add noise to inner products, but the "
        "signs make it cancel on average: the hashed inner product is unbiased and its error shrinks like "
        "1/√w. Data: word counts of 300 news articles.")
    st.latex(r"\phi(x)_b = \sum_{i:\,h(i)=b} s(i)\,x_i,\qquad \mathbb{E}\,\langle\phi(x),\phi(y)\rangle = "
             r"\langle x, y\rangle,\qquad \mathrm{error} \sim \frac{\lVert x\rVert \lVert y\rVert}{\sqrt{w}}")
    result = svc.hashing(seed)
    w = st.select_slider("Width w", svc.HASH_WIDTHS, DEFAULTS["found.hash_w"], key="found.hash_w", bind="query-params")
    plots.show(st, fc.hashing_error(result.table, w), key="found.chart.hash")
    rmse, bias = result.at[w]
    c1, c2, c3 = st.columns(3)
    c1.metric("vocabulary (original width)", f"{result.vocabulary:,}")
    c2.metric(f"RMS error at w={w}", f"{rmse:.4f}")
    c3.metric("bias", f"{bias:+.4f}")


page_header("Foundations: linear algebra",
            "Each tab is one idea under every embedding, as an experiment: change its knob and the chart answers.",
            "found")


def intro() -> None:
    st.markdown(
        """
Every page in the lab rests on a few ideas from linear algebra. Here each is an experiment
with its own knob: change it and the chart answers. Sections: **PCA** (and why you
standardise), **standardising new data** (with the training statistics), **PCA versus
Johnson-Lindenstrauss**, **random projections**, **SVD**, **autoencoders** and **feature hashing**.
"""
    )


keep_controls()
seed = data_service.seed()
source, _ = data_source("vectors", "found", default="digits", label=DATA_LABEL)
ref = data_service.ref("vectors", source)
st.sidebar.caption(f"On show: {ON_SHOW.get(st.session_state.get('found.tab') or TABS[0], ON_SHOW_CHOSEN)}.")
main, knobs = instrument("found")
knobs.caption("The sidebar data set feeds the PCA-vs-JL and JL sections (as an alternative to the news "
                   "articles) and the SVD section (as an alternative to the photo).")
tab_sections(dict(zip(TABS, [
    lambda: pca_section(seed),
    lambda: standardising_section(seed),
    lambda: pca_vs_jl_section(ref, seed),
    lambda: jl_section(ref, seed),
    lambda: svd_section(ref, seed),
    lambda: autoencoder_section(seed),
    lambda: hashing_section(seed),
], strict=True)), key="found.tab", where=main)
with main, theory():
    intro()


def tell_the_tour() -> None:
    """The figures the tour's sentences state, for the tab on show at its controls' values."""
    state = st.session_state
    tab = state.get("found.tab") or TABS[0]
    if tab == "PCA":
        tour.tell("found", **svc.pca_facts(seed, "xyz".index(state["found.pca_feature"]),
                                           float(state["found.pca_scale"]), bool(state["found.pca_std"])))
    elif tab == "PCA vs JL" and "found.pvj_k" in state:
        matrix = ref if state["found.pvj_data"] == SIDEBAR_STANDARDISED else svc.NEWS
        tour.tell("found", **svc.pca_vs_jl_facts(matrix, seed, state["found.pvj_k"]))
    elif tab == "Johnson-Lindenstrauss" and "found.jl_k" in state:
        matrix = svc.NEWS if state["found.jl_data"] == NEWS else ref
        tour.tell("found", **svc.jl_facts(matrix, int(state["found.jl_k"]), state["found.jl_kind"], seed,
                                          float(state["found.jl_eps"])))


if tour.current("found") is not None:
    tell_the_tour()

svd_now = (svc.PHOTO if st.session_state["found.svd_data"] == PHOTO else ref, int(st.session_state.get("found.svd_k", 10)),
           bool(st.session_state["found.svd_center"]))  # read here: the download builds its zip on another thread
share.panel("foundations", reproduce.lazy(lambda: svc.recipe(ref, seed, *svd_now)), uploaded=source == "upload",
            what="the SVD section's singular values and rank-k picture (at its current settings, whichever tab "
            "is open), the PCA-vs-JL table of the sidebar data and the Standardising section's accuracy table")
