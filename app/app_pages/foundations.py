import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from app.services import data as data_service
from app.services import foundations as svc
from app.ui import charts, plots
from app.ui.controls import ranged_select_slider
from app.ui.sidebar import data_source
from embedcore import linear

st.title("Foundations: the linear algebra under every embedding")
st.markdown(
    """
Every page in the lab rests on a few ideas from linear algebra. Here each is an experiment
with its own knob: change it and the chart answers. Sections: **PCA** (and why you
standardise), **PCA versus Johnson-Lindenstrauss**, **random projections**, **SVD**,
**autoencoders** and **feature hashing**.
"""
)
seed = data_service.seed()
source, vdata = data_source("vectors", "found", default="digits")
st.sidebar.caption("The sidebar data set feeds the PCA-vs-JL and JL sections (as an alternative to the news "
                   "articles) and the SVD section (as an alternative to the photo).")
tabs = st.tabs(["PCA", "PCA vs JL", "Johnson-Lindenstrauss", "SVD", "Autoencoders", "Feature hashing"])

# ------------------------------------------------------------------ PCA
with tabs[0]:
    st.markdown(
        "PCA finds orthogonal directions of largest variance. **Greedily**: take the unit vector of largest "
        "variance, then the largest orthogonal to it, and so on. **By eigenvectors**: the top eigenvectors of "
        "XᵀX (X centred). The two agree. Because variance depends on units, one feature measured in "
        "millimetres instead of metres (×1000) captures the first component on its own: standardise first.")
    st.latex(r"z_1 = \arg\max_{\lVert z\rVert = 1} \operatorname{Var}(Xz),\qquad X^\top X z_i = \lambda_i z_i")
    c1, c2, c3 = st.columns(3)
    feature = c1.selectbox("Feature to rescale", ["x", "y", "z"], index=2, key="found.pca_feature")
    log_scale = c2.slider("log10(scale factor)", 0.0, 3.0, 0.0, 0.25, key="found.pca_scale",
                          help="Multiply the chosen feature by 10^this.")
    do_std = c3.checkbox("Standardise first", key="found.pca_std")
    X = svc.cloud(seed).copy()
    j = "xyz".index(feature)
    X[:, j] *= 10**log_scale
    Xp = linear.standardize(X) if do_std else X - X.mean(axis=0)
    comps_e, var_e = linear.eigen_pca(Xp, 3)
    comps_g, _ = linear.greedy_pca(Xp, 3, random_state=seed)
    fig = go.Figure(go.Scatter3d(x=Xp[:, 0], y=Xp[:, 1], z=Xp[:, 2], mode="markers", name="points",
                                 marker=dict(size=2.5, color="#adb5bd")))
    length = 2.5 * np.sqrt(var_e[0])
    for i in range(2):
        for comps, name, color, dash in ((comps_e, "eigen", charts.PALETTE[1], "solid"),
                                         (comps_g, "greedy", charts.PALETTE[0], "dash")):
            v = comps[i] * length * (1 if i == 0 else 0.7)
            if name == "eigen":
                fig.add_trace(go.Scatter3d(x=[0, v[0]], y=[0, v[1]], z=[0, v[2]], mode="lines",
                                           name=f"PC{i + 1} (eigenvector)", line=dict(color=color, width=8)))
            else:  # the greedy direction's tip, which lands on the eigenvector's
                fig.add_trace(go.Scatter3d(x=[v[0]], y=[v[1]], z=[v[2]], mode="markers",
                                           name=f"PC{i + 1} (greedy)", marker=dict(color=color, size=7, symbol="diamond")))
    fig.update_layout(scene=dict(aspectmode="data", xaxis_title="x", yaxis_title="y", zaxis_title="z"))
    left, right = st.columns([3, 2])
    plots.show(left, charts.layout(fig, "The cloud with the first two components, eigen and greedy", 480),
                      key="found.chart.pca")
    share = var_e / var_e.sum()
    plots.show(right, charts.bars(["PC1", "PC2", "PC3"], share, title="Explained variance ratio", y_title="share",
                                   height=300), key="found.chart.pca_var")
    angle = float(np.degrees(np.arccos(min(1.0, abs(comps_e[0, j])))))
    right.metric(f"angle between PC1 and the {feature} axis", f"{angle:.1f}°")
    right.metric("greedy vs eigen PC1 (|cosine|)", f"{abs(comps_e[0] @ comps_g[0]):.6f}")
    st.caption("Misleading: arrows are scaled for display; without standardisation the axes' units decide what "
               "'largest variance' means. Greedy and eigen arrows overlap exactly; their signs are arbitrary.")

# ------------------------------------------------------------------ PCA vs JL
with tabs[1]:
    st.markdown(
        "PCA picks the k directions that **reconstruct** the data best; a Johnson-Lindenstrauss map picks k "
        "random directions that **keep distances**. Left: the share of the data's energy lost when projecting "
        "(PCA wins by construction). Right: the median relative error of squared pairwise distances: PCA "
        "shrinks every distance it cannot see, while a scaled random projection is right on average.")
    which = st.radio("Data", ["the sidebar data set (standardised)", "news TF-IDF (300 documents)"],
                     key="found.pvj_data", horizontal=True)
    if which.startswith("the sidebar"):
        Xv, key = svc.standardized(data_service.source_key(source), _X=vdata.X), data_service.source_key(source)
    else:
        Xv, key = svc.corpus_counts()[1], "tfidf"
    ks = svc.k_grid(min(Xv.shape))
    table = svc.pca_vs_jl(key, ks, seed, _X=Xv)
    kmark = ranged_select_slider("Highlight k", ks, ks[min(2, len(ks) - 1)], key="found.pvj_k",
                                 why="the data have rank 2 at most")
    c1, c2 = st.columns(2)
    plots.show(c1, charts.lines(table, "k", {"pca_reconstruction": "PCA", "jl_reconstruction": "random (JL)"},
                                 title="Reconstruction error (energy lost)", y_title="share of energy", vline=kmark,
                                 vline_label=f"k={kmark}"), key="found.chart.pvj_rec")
    plots.show(c2, charts.lines(table, "k", {"pca_distortion": "PCA", "jl_distortion": "random (JL)"},
                                 title="Distance distortion", y_title="median |ratio - 1|", vline=kmark,
                                 vline_label=f"k={kmark}"), key="found.chart.pvj_dist")

# ------------------------------------------------------------------ JL
with tabs[2]:
    st.markdown(
        "Any n points can be mapped to k = O(ε⁻² log n) dimensions by a random matrix so that every squared "
        "distance stays within a factor 1 ± ε, whatever the original dimension. The data here are TF-IDF "
        "vectors of 300 news articles in thousands of dimensions.")
    st.latex(r"(1-\varepsilon)\lVert x_i - x_j\rVert^2 \le \lVert f(x_i) - f(x_j)\rVert^2 \le "
             r"(1+\varepsilon)\lVert x_i - x_j\rVert^2,\qquad k \ge \frac{4 \ln n}{\varepsilon^2/2 - \varepsilon^3/3}")
    jl_which = st.radio("Data", ["news TF-IDF (300 documents)", "the sidebar data set (standardised)"],
                        key="found.jl_data", horizontal=True)
    if jl_which.startswith("news"):
        Xt, jl_key = svc.corpus_counts()[1], "tfidf"
    else:
        jl_key = data_service.source_key(source)
        Xt = svc.standardized(jl_key, _X=vdata.X)
        if len(Xt) > 3000:
            Xt = Xt[np.random.default_rng(seed).choice(len(Xt), 3000, replace=False)]
            st.info("The data set has more than 3,000 rows; this section uses a random sample of 3,000 (seed "
                    f"{seed}).")
    c1, c2, c3 = st.columns(3)
    eps = c1.slider("ε", 0.05, 0.9, 0.3, 0.05, key="found.jl_eps")
    bound = linear.jl_min_dim(len(Xt), eps)
    k = c2.slider("k (dimensions)", 2, 2000, min(bound, 2000), key="found.jl_k",
                  help="The bound for the chosen ε is marked on the right.")
    kind = c3.radio("Matrix", ["gaussian", "sparse"], key="found.jl_kind", horizontal=True)
    ratios = svc.jl_ratios(jl_key, k, kind, seed, _X=Xt)
    within = float(np.mean(np.abs(ratios - 1) <= eps))
    m1, m2, m3 = st.columns(3)
    m1.metric("original dimensions", f"{Xt.shape[1]:,}")
    m2.metric("JL bound for this ε", f"{bound:,}")
    m3.metric("pairs within 1 ± ε", f"{within:.1%}")
    left, right = st.columns(2)
    fig = go.Figure(go.Histogram(x=ratios, nbinsx=60, marker_color=charts.PALETTE[0], name="pairs"))
    for x in (1 - eps, 1 + eps):
        fig.add_vline(x=x, line=dict(color=charts.PALETTE[1], dash="dash"))
    fig.update_xaxes(title="squared distance after / before")
    plots.show(left, charts.layout(fig, f"Distortion of 4,000 random pairs at k={k}", 380), key="found.chart.jl_hist")
    eps_grid = np.linspace(0.05, 0.95, 40)
    curve = pd.DataFrame({"eps": eps_grid, "k": [linear.jl_min_dim(len(Xt), e) for e in eps_grid]})
    fig = charts.lines(curve, "eps", {"k": "bound"}, title=f"The bound: dimensions needed for n = {len(Xt):,}", y_title="k",
                       x_title="ε", height=380)
    fig.add_trace(go.Scatter(x=[eps], y=[k], mode="markers", name="your choice",
                             marker=dict(size=12, color=charts.PALETTE[1])))
    fig.update_yaxes(type="log")
    plots.show(right, fig, key="found.chart.jl_bound")
    st.caption("The bound is a worst-case guarantee for all pairs at once; in practice far fewer dimensions keep "
               "most pairs within ε, as the histogram shows when you lower k below the bound.")

# ------------------------------------------------------------------ SVD
with tabs[3]:
    st.markdown("The SVD writes a matrix as a sum of rank-one layers, largest first; keeping the top k gives the "
                "best rank-k approximation (Eckart-Young). The *energy* of the first k layers is the share of the "
                "sum of squares they keep; a common rule keeps enough for 80%.")
    st.latex(r"X = U \Sigma V^\top = \sum_i \sigma_i u_i v_i^\top,\qquad "
             r"\text{energy}(k) = \frac{\sum_{i \le k} \sigma_i^2}{\sum_i \sigma_i^2}")
    svd_which = st.radio("Matrix", ["scikit-learn's sample photo", "the sidebar data set"], key="found.svd_data",
                         horizontal=True)
    img = svc.grey_image() if svd_which.startswith("scikit") else vdata.X
    svd_key = "china" if svd_which.startswith("scikit") else data_service.source_key(source)
    c_rank, c_center = st.columns([3, 1])
    rank = c_rank.slider("Rank k", 1, max(2, min(150, min(img.shape))), min(10, min(img.shape)), key="found.svd_k")
    center = c_center.checkbox("Centre the columns first", value=True, key="found.svd_center",
                               help="Without centring, the first layer is mostly the mean brightness and "
                               "already holds about 90% of the energy.")
    s, energy, k80 = svc.svd(svd_key, center, _X=img)
    Xk, err = svc.low_rank(svd_key, rank, center, _X=img)
    c1, c2 = st.columns(2)
    curve = pd.DataFrame({"k": np.arange(1, len(s) + 1), "energy": energy})
    plots.show(c1, charts.lines(curve, "k", {"energy": "cumulative energy"}, vline=rank, vline_label=f"k={rank}",
                                 hline=0.8, hline_label=f"80% at k={k80}", title="Cumulative energy", y_title="share"),
                    key="found.chart.svd_energy")
    if svd_key == "china":
        c2.image(np.clip(Xk, 0, 1), caption=f"Rank {rank}: {100 * energy[rank - 1]:.1f}% of the energy, relative "
                 f"error {err:.3f} (image {img.shape[0]}x{img.shape[1]}, scikit-learn's sample photo)", clamp=True)
    else:
        show = min(len(img), 300)
        plots.show(c2, charts.heatmap(Xk[:show], title=f"Rank-{rank} reconstruction (first {show} rows), relative "
                                       f"error {err:.3f}", colorscale="RdBu", height=380), key="found.chart.svd_rec")
    st.caption("Misleading: 80% of the energy can still look poor, because the eye cares about edges, which live "
               "in the small layers; and energy counts the image's mean brightness, which the first layer holds.")

# ------------------------------------------------------------------ autoencoders
with tabs[4]:
    st.markdown(
        "An autoencoder is a network trained to output its input through a narrow *bottleneck*; the "
        "bottleneck's activations are the embedding. With one linear layer and squared loss its best "
        "solution spans exactly PCA's subspace: the principal angles between the two go to zero. A "
        "**denoising** autoencoder sees corrupted inputs and must output the clean ones, so it learns "
        "what is signal. Data: the digits, standardised; networks are scikit-learn's MLPRegressor.")
    st.latex(r"\min_{M_1, M_2} \frac{1}{n}\sum_j \lVert x_j - \phi(x_j M_1 + b_1) M_2 - b_2 \rVert^2,\qquad "
             r"\phi = \mathrm{id} \Rightarrow \operatorname{span}(M_2^\top) = \operatorname{span}(z_1, \dots, z_k)")
    k_ae = st.slider("Bottleneck size k", 1, 16, 4, key="found.ae_k")
    angles, mse = svc.linear_ae(k_ae, seed)
    c1, c2 = st.columns([2, 1])
    plots.show(c1, charts.bars([f"θ{i + 1}" for i in range(len(angles))], angles,
                                title="Principal angles: linear autoencoder vs PCA subspace", y_title="degrees",
                                text_format="{:.2f}°"), key="found.chart.ae_angles")
    c2.metric("largest angle", f"{angles.max():.2f}°")
    c2.metric("reconstruction MSE (standardised units)", f"{mse:.3f}")
    c2.caption("Angles of a few degrees come from stopping the optimiser early, not from a different answer.")
    st.markdown("**Non-linear and denoising autoencoders** (64 → k → 64 tanh layers; about 10 s to train both)")
    noise = st.slider("Corruption for training and testing (σ)", 0.0, 2.0, 1.0, 0.25, key="found.ae_noise")
    run_key = f"found.ae_done.{k_ae}.{noise}.{seed}"
    if st.button("Train both", key="found.ae_train") or st.session_state.get(run_key):
        with st.status("Training the autoencoders", expanded=False) as status:
            plain = svc.nonlinear_ae(k_ae, 0.0, seed)
            denoise = svc.nonlinear_ae(k_ae, noise, seed)
            status.update(label="Trained", state="complete")
        st.session_state[run_key] = True
        X = svc.digits_standardized()
        rng = np.random.default_rng(seed)
        idx = rng.choice(len(X), 6, replace=False)
        noisy = X[idx] + noise * rng.standard_normal((6, X.shape[1]))
        rows = {"original": X[idx], "corrupted": noisy, "plain": plain.predict(noisy), "denoising": denoise.predict(noisy)}
        errs = {name: float(((v - X[idx]) ** 2).mean()) for name, v in rows.items() if name != "original"}
        grid = np.vstack([np.hstack([r.reshape(8, 8) for r in v]) for v in rows.values()])
        fig = go.Figure(go.Heatmap(z=grid, colorscale="Greys", showscale=False))
        fig.update_yaxes(autorange="reversed", tickvals=[3.5, 11.5, 19.5, 27.5], ticktext=list(rows),
                         scaleanchor="x")
        fig.update_xaxes(showticklabels=False)
        plots.show(st, charts.layout(fig, "Six digits: original, corrupted, and the two reconstructions", 360),
                        key="found.chart.ae_images")
        st.caption(" · ".join(f"{n}: MSE {e:.3f}" for n, e in errs.items()))

# ------------------------------------------------------------------ hashing
with tabs[5]:
    st.markdown(
        "Feature hashing maps a huge sparse vocabulary into a fixed width w without a dictionary: each word "
        "goes to bucket h(word) with a random sign s(word). Collisions add noise to inner products, but the "
        "signs make it cancel on average: the hashed inner product is unbiased and its error shrinks like "
        "1/√w. Data: word counts of 300 news articles.")
    st.latex(r"\phi(x)_b = \sum_{i:\,h(i)=b} s(i)\,x_i,\qquad \mathbb{E}\,\langle\phi(x),\phi(y)\rangle = "
             r"\langle x, y\rangle,\qquad \mathrm{error} \sim \frac{\lVert x\rVert \lVert y\rVert}{\sqrt{w}}")
    widths = (8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096)
    table = svc.hashing(widths, seed)
    wmark = st.select_slider("Width w", widths, value=256, key="found.hash_w")
    table["1/sqrt(w) trend"] = table["rmse"].iloc[0] * np.sqrt(widths[0] / table["width"])
    fig = charts.lines(table, "width", {"rmse": "RMS error (relative to ‖x‖‖y‖)", "1/sqrt(w) trend": "1/√w",
                                        "bias": "mean error (bias)"},
                       title="Inner-product error against width", y_title="error", log_x=True, vline=wmark,
                       vline_label=f"w={wmark}")
    plots.show(st, fig, key="found.chart.hash")
    row = table[table["width"] == wmark].iloc[0]
    counts = svc.corpus_counts()[0]
    c1, c2, c3 = st.columns(3)
    c1.metric("vocabulary (original width)", f"{counts.shape[1]:,}")
    c2.metric(f"RMS error at w={wmark}", f"{row['rmse']:.4f}")
    c3.metric("bias", f"{row['bias']:+.4f}")
