"""Cached experiments for the Foundations page, shared by every session.

Each function takes what identifies its input and the parameters of its own
stage, and loads the data itself. A section's matrix is named by a
:class:`~app.services.data.DataRef` (the sidebar data set) or by
:data:`NEWS` or :data:`PHOTO` (the bundled matrices). Arrays that only feed
other cached functions are held once in ``st.cache_resource`` and never
mutated; what a page draws comes from ``st.cache_data``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd
import streamlit as st

from app.services import data as data_service
from app.services import shared
from app.services.data import DataRef
from app.services.reproduce import Recipe
from embedcore import foundations as linear

#: TF-IDF rows of the 300 Lee news articles (7,168 words)
NEWS = "news"
#: scikit-learn's sample photo in grey levels
PHOTO = "photo"
#: what a section's matrix can be
Matrix = DataRef | str

#: the digits every autoencoder trains on (64 pixels, standardised), whatever the sidebar shows
DIGITS = DataRef("vectors", "digits", 0)
#: the JL section measures random pairs of rows: larger data sets are sampled to this many rows first
JL_MAX_ROWS = 3000
#: the largest k the JL section offers, and how many random pairs it measures
JL_MAX_K = 2000
JL_PAIRS = 4000
#: rows and columns of a rank-k reconstruction drawn as a heatmap
SVD_ROWS = 300
SVD_COLS = 1000
#: the widths the hashing experiment measures
HASH_WIDTHS = (8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096)


# ------------------------------------------------------------------ the matrices


@st.cache_resource(max_entries=1, show_spinner=False)
def _news():
    return linear.news_counts()


@st.cache_resource(max_entries=1, show_spinner=False)
def _photo() -> np.ndarray:
    return linear.grey_photo()


@st.cache_resource(max_entries=8, show_spinner=False)
def _standardized(ref: DataRef) -> np.ndarray:
    return linear.standardise(data_service.load(ref).X)


def _raw(matrix: Matrix) -> np.ndarray:
    """The matrix as it is: the photo, or the sidebar data's vectors."""
    return _photo() if matrix == PHOTO else data_service.load(matrix).X


def _scaled(matrix: Matrix) -> np.ndarray:
    """The matrix the distance experiments use: the news TF-IDF rows, or the sidebar data standardised."""
    return _news()[1] if matrix == NEWS else _standardized(matrix)


def _problem(X: np.ndarray) -> str | None:
    """Why distances and directions cannot be compared on ``X``, or None."""
    if len(X) < 2:
        return "The data set has a single row: there are no distances to compare. Pick another data set."
    if not np.isfinite(X).all():
        return "The data set holds values too large to compare. Pick another data set."
    if not np.ptp(X, axis=0).any():
        return ("Every row of the data set is the same point: there are no distances to compare. "
                "Pick another data set.")
    return None


# ------------------------------------------------------------------ PCA


@st.cache_resource(max_entries=4, show_spinner=False)
def _cloud(seed: int) -> np.ndarray:
    return linear.correlated_cloud(400, random_state=seed)


@st.cache_data(max_entries=64, show_spinner=False)
def pca_scaling(seed: int, feature: int, log10_scale: float, standardise: bool) -> linear.ScalingPCA:
    """PCA of the 3-D cloud (seeded) with one feature rescaled, by eigenvectors and greedily."""
    return linear.scaling_experiment(_cloud(seed), feature, log10_scale, standardise=standardise,
                                     random_state=seed)


@st.cache_data(max_entries=64, show_spinner=False)
def pca_scores(seed: int, feature: int, log10_scale: float, standardise: bool) -> np.ndarray:
    """The cloud's points as PCA sees them (x, y, z) and their scores on the first two components (n, 5)."""
    pca = pca_scaling(seed, feature, log10_scale, standardise)
    return np.column_stack([pca.points, pca.points @ pca.eigen[:2].T])


@st.cache_data(max_entries=64, show_spinner=False)
def pca_facts(seed: int, feature: int, log10_scale: float, standardise: bool) -> dict:
    """The PCA tab's figures: the rescaled feature and its factor, PC1's angle to that feature's axis (now and
    before the rescaling), PC1's loading on it and share of the variance, and the largest angle any component
    turned through the rescaling."""
    now = pca_scaling(seed, feature, log10_scale, standardise)
    before = pca_scaling(seed, feature, 0.0, standardise)
    return {"feature": "xyz"[feature], "factor": float(10.0**log10_scale), "angle": float(now.angle_deg),
            "angle_before": float(before.angle_deg), "loading": float(abs(now.eigen[0][feature])),
            "share": float(now.explained[0]), "moved": float(linear.line_angles_deg(now.eigen, before.eigen).max())}


# ------------------------------------------------------------------ standardising new data

#: the share of the digits held out as new data, and the test-batch sizes offered
TEST_SHARE = 0.3
BATCH_SIZES = (1, 2, 5, 10, 20, 50, 100, 200, 500)
#: the digit of the one-digit batch drawn on the map
BATCH_DIGIT = 3
#: principal components the classifier works in
BATCH_COMPONENTS = 10
#: each accuracy of the table is measured on at least this many new rows (more batches of a small size)
BATCH_MIN_ROWS = 500


class BatchSplit(NamedTuple):
    model: linear.BatchModel  # standardisation, PCA and class means fitted on the training digits
    X_test: np.ndarray  # the held-out digits (raw pixels) and their labels
    y_test: np.ndarray
    y_train: np.ndarray


@st.cache_resource(max_entries=4, show_spinner=False)
def _batch_split(seed: int) -> BatchSplit:
    data = data_service.load(DIGITS)
    y = data.meta["label"].to_numpy().astype(int)
    train, test = linear.split_rows(y, TEST_SHARE, random_state=seed)
    model = linear.fit_batch_model(data.X[train], y[train], n_components=BATCH_COMPONENTS)
    return BatchSplit(model, data.X[test], y[test], y[train])


@st.cache_data(max_entries=8, show_spinner=False)
def batch_table(seed: int, one_digit: bool) -> pd.DataFrame:
    """Accuracy with the training statistics and with the batch's own, for every batch size."""
    split = _batch_split(seed)
    return linear.batch_experiment(split.model, split.X_test, split.y_test, BATCH_SIZES, one_class=one_digit,
                                   min_rows=BATCH_MIN_ROWS, random_state=seed)


class BatchView(NamedTuple):
    train: np.ndarray  # training scores on PC1 and PC2 (n, 2)
    train_labels: np.ndarray
    right: np.ndarray  # the batch placed with the training statistics (m, 2)
    wrong: np.ndarray  # the batch placed with its own statistics (m, 2)
    accuracy: tuple  # (training statistics, batch statistics) on this batch
    rows: int  # rows in the batch (a one-digit batch has at most as many as the digit has)
    test_rows: int  # rows held out


@st.cache_data(max_entries=64, show_spinner=False)
def batch_view(seed: int, size: int, one_digit: bool) -> BatchView:
    """One seeded batch of new digits placed both ways (the first two components) and scored both ways."""
    split = _batch_split(seed)
    idx = linear.draw_batch(split.y_test, size, one_class=BATCH_DIGIT if one_digit else None, random_state=seed)
    model, X, y = split.model, split.X_test[idx], split.y_test[idx]
    right, wrong = linear.place_batch(model, X, "training"), linear.place_batch(model, X, "batch")
    accuracy = tuple(float((linear.predict_batch(model, Z) == y).mean()) for Z in (right, wrong))
    return BatchView(model.scores[:, :2], split.y_train, right[:, :2], wrong[:, :2], accuracy, len(idx),
                     len(split.y_test))


# ------------------------------------------------------------------ PCA versus JL


class PcaVsJl(NamedTuple):
    table: pd.DataFrame | None  # one row per k: reconstruction error and distortion of both maps
    ks: tuple  # the k measured
    problem: str | None  # why there is nothing to compare, or None


@st.cache_data(max_entries=16, show_spinner=False)
def pca_vs_jl(matrix: Matrix, seed: int) -> PcaVsJl:
    """PCA against a Gaussian JL map for k up to the matrix's rank limit (news TF-IDF or sidebar data, standardised)."""
    X = _scaled(matrix)
    problem = _problem(X)
    if problem:
        return PcaVsJl(None, (), problem)
    ks = linear.k_grid(min(X.shape))
    return PcaVsJl(linear.pca_vs_jl(X, list(ks), random_state=seed), ks, None)


def pca_vs_jl_facts(matrix: Matrix, seed: int, k: int) -> dict:
    """The PCA-vs-JL figures at ``k``: the share of the energy each map loses and its median distortion (empty
    when the matrix has nothing to compare or ``k`` is not measured)."""
    result = pca_vs_jl(matrix, seed)
    if result.problem or int(k) not in result.ks:
        return {}
    row = result.table.set_index("k").loc[int(k)]
    return {"k": int(k), **{name: float(row[name]) for name in
                            ("pca_reconstruction", "jl_reconstruction", "pca_distortion", "jl_distortion")}}


# ------------------------------------------------------------------ Johnson-Lindenstrauss


class JlData(NamedTuple):
    rows: int  # rows compared (after sampling)
    total_rows: int  # rows in the data set
    columns: int
    pairs: int  # random pairs of distinct points measured
    problem: str | None


@st.cache_resource(max_entries=4, show_spinner=False)
def _jl_rows(matrix: Matrix, seed: int) -> np.ndarray:
    return linear.sample_rows(_scaled(matrix), JL_MAX_ROWS, random_state=seed)


@st.cache_resource(max_entries=4, show_spinner=False)
def _jl_pairs(matrix: Matrix, seed: int):
    return linear.distance_pairs(_jl_rows(matrix, seed), JL_PAIRS, random_state=seed)


@st.cache_resource(max_entries=32, show_spinner=False)
def _orthonormal_state(matrix: Matrix, seed: int, block: int) -> linear.OrthonormalState:
    """The random orthonormal frame up to ``block``, applied to the rows: each block extends the one before."""
    before = None if block == 0 else _orthonormal_state(matrix, seed, block - 1)
    return linear.extend_orthonormal(_jl_rows(matrix, seed), before, random_state=seed)


@st.cache_resource(max_entries=32, show_spinner=False)
def _jl_block(matrix: Matrix, kind: str, seed: int, block: int) -> np.ndarray:
    """One block of the random coordinates: a larger k adds blocks, a smaller one reads a prefix.

    Kept in float32 (the rows are standardised or TF-IDF, well inside its range): 3 MB a block at 3,000 rows.
    The orthonormal frame's block is ``sqrt(d)`` times its new vectors applied to the rows, as
    :func:`embedcore.foundations.projection_block` gives it, built on the blocks before it instead of from scratch.
    """
    X = _jl_rows(matrix, seed)
    if kind == "orthonormal":
        block_XQ = _orthonormal_state(matrix, seed, block).XQ[block]
        return (np.sqrt(X.shape[1]) * block_XQ).astype(np.float32)
    return linear.projection_block(X, block, kind=kind, random_state=seed).astype(np.float32)


@st.cache_data(max_entries=16, show_spinner=False)
def jl_data(matrix: Matrix, seed: int) -> JlData:
    """The JL section's matrix: its size, the sample taken, the pairs measured."""
    X = _jl_rows(matrix, seed)
    i, _, _ = _jl_pairs(matrix, seed)
    problem = _problem(X)
    if problem is None and not len(i):
        problem = (f"All {JL_PAIRS:,} random pairs joined a point to an identical one: there are no distances "
                   "to compare. Pick another data set or seed.")
    return JlData(len(X), len(_scaled(matrix)), X.shape[1], len(i), problem)


def jl_usable_k(matrix: Matrix, k: int, kind: str, seed: int) -> int:
    """``k``, or the data's dimension when an orthonormal frame is asked for more vectors than it has."""
    return min(int(k), jl_data(matrix, seed).columns) if kind == "orthonormal" else int(k)


@st.cache_data(max_entries=64, show_spinner=False)
def jl_ratios(matrix: Matrix, k: int, kind: str, seed: int) -> np.ndarray:
    """Squared distance after / before of the random pairs, under a JL map to ``k`` dimensions.

    For the orthonormal kind ``k`` is first lowered to the data's dimension (:func:`jl_usable_k`).
    """
    k = jl_usable_k(matrix, k, kind, seed)
    i, j, d2 = _jl_pairs(matrix, seed)
    n_blocks = -(-int(k) // linear.JL_BLOCK)
    blocks = [_jl_block(matrix, kind, seed, b) for b in range(n_blocks)]
    return linear.prefix_distortion(blocks, k, i, j, d2)


def jl_within(matrix: Matrix, k: int, kind: str, seed: int, eps: float) -> float:
    """Share of the pairs whose squared distance stays within 1 +- eps."""
    return linear.share_within(jl_ratios(matrix, k, kind, seed), eps)


def jl_bound(n_rows: int, eps: float) -> int:
    """Dimensions the JL lemma asks for ``n_rows`` points at this eps."""
    return linear.jl_min_dim(n_rows, eps)


@st.cache_data(max_entries=8, show_spinner=False)
def jl_curve(n_rows: int) -> pd.DataFrame:
    """Both bounds along eps from 0.05 to 0.95: scikit-learn's (``k``) and the seed's, all pairs with 1 - 1/n."""
    curve = linear.jl_bound_curve(n_rows)
    curve["k (all pairs, 1 - 1/n)"] = [linear.jl_seed_dim(n_rows, e) for e in curve["eps"]]
    return curve


class JlGuarantee(NamedTuple):
    seed_k: int  # dimensions for all pairs within 1 +- eps with chance >= 1 - 1/n
    per_pair: float  # bound on one pair's chance to leave 1 +- eps at the chosen k
    some_pair: float  # union bound on some pair leaving it (capped at 1)
    outside: float  # share of the measured pairs outside 1 +- eps


def jl_guarantee(matrix: Matrix, k: int, kind: str, seed: int, eps: float) -> JlGuarantee:
    """What the lemma promises at (k, eps) for the section's rows, and what the measured pairs did."""
    n = jl_data(matrix, seed).rows
    k = jl_usable_k(matrix, k, kind, seed)
    per, some = linear.jl_failure_bounds(n, k, eps)
    return JlGuarantee(linear.jl_seed_dim(n, eps), float(per), float(some),
                       1.0 - jl_within(matrix, k, kind, seed, eps))


def jl_facts(matrix: Matrix, k: int, kind: str, seed: int, eps: float) -> dict:
    """The JL tab's figures: the bound for ``eps``, the pairs measured, how far the worst of them moved at ``k`` and
    at a quarter of it, and the share outside 1 +- eps there (empty when the matrix has nothing to compare)."""
    info = jl_data(matrix, seed)
    if info.problem:
        return {}
    used = jl_usable_k(matrix, k, kind, seed)
    small = max(2, used // 4)
    return {"eps": float(eps), "bound": jl_bound(info.rows, eps), "rows": info.rows, "pairs": info.pairs, "k": used,
            "worst": linear.worst_distortion(jl_ratios(matrix, used, kind, seed)), "k_small": small,
            "worst_small": linear.worst_distortion(jl_ratios(matrix, small, kind, seed)),
            "outside_small": 1.0 - jl_within(matrix, small, kind, seed, eps)}


@st.cache_data(max_entries=32, show_spinner=False)
def jl_failure(n_rows: int, eps: float) -> pd.DataFrame:
    """The failure bounds along k (per pair and for some pair of the ``n_rows`` points) at this eps."""
    return linear.jl_failure_curve(n_rows, eps, JL_MAX_K)


# ------------------------------------------------------------------ SVD


class SvdSpectrum(NamedTuple):
    shape: tuple  # rows, columns of the matrix
    energy: np.ndarray  # cumulative energy of the first k layers, k = 1 ... r
    k80: int  # the smallest k with 80% of the energy
    problem: str | None


class RankK(NamedTuple):
    values: np.ndarray  # the photo as 8-bit grey levels, or the first rows (and columns) of the reconstruction
    error: float  # relative Frobenius error of the whole matrix
    energy: float  # share of the energy kept
    rows: int  # rows and columns shown
    columns: int


@st.cache_resource(max_entries=8, show_spinner=False)
def _svd(matrix: Matrix, center: bool) -> linear.SvdLayers:
    return linear.svd_layers(_raw(matrix), center=center, rows=None if matrix == PHOTO else SVD_ROWS)


@st.cache_data(max_entries=16, show_spinner=False)
def svd_shape(matrix: Matrix) -> tuple:
    """Rows and columns of the SVD section's matrix."""
    return tuple(_raw(matrix).shape)


@st.cache_data(max_entries=16, show_spinner=False)
def svd_spectrum(matrix: Matrix, center: bool) -> SvdSpectrum:
    """The cumulative energy of the layers and the 80% mark (photo or sidebar data, columns centred or not)."""
    shape = svd_shape(matrix)
    if not np.isfinite(_raw(matrix)).all():
        return SvdSpectrum(shape, np.zeros(0), 0, "The matrix holds values too large to decompose.")
    layers = _svd(matrix, center)
    energy, k80 = linear.energy_profile(layers.s)
    if k80 == 0:
        problem = ("Every row of the matrix is the same, so centring its columns leaves all zeros: there are no "
                   "layers to show. Untick centring or pick another data set." if center else
                   "The matrix is all zeros: there are no layers to show. Pick another data set.")
        return SvdSpectrum(shape, energy, 0, problem)
    return SvdSpectrum(shape, energy, k80, None)


@st.cache_data(max_entries=64, show_spinner=False)
def svd_rank(matrix: Matrix, k: int, center: bool) -> RankK:
    """The rank-k reconstruction: the photo as an image, or the first rows of the sidebar data."""
    layers = _svd(matrix, center)
    k = min(int(k), len(layers.s))
    Xk, err = linear.rank_k(layers, k)
    energy, _ = linear.energy_profile(layers.s)
    if matrix == PHOTO:
        return RankK(linear.grey_uint8(Xk), err, float(energy[k - 1]), *Xk.shape)
    shown = Xk[:, :SVD_COLS]
    return RankK(shown, err, float(energy[k - 1]), *shown.shape)


# ------------------------------------------------------------------ autoencoders


class AePanel(NamedTuple):
    grid: np.ndarray  # six digits per row: original, corrupted, and each autoencoder's reconstruction
    stages: list  # the rows' names
    errors: dict  # each stage's MSE against the originals
    sensitivity: dict = {}  # each autoencoder's mean squared Frobenius norm of its encoder's Jacobian


@st.cache_resource(max_entries=1, show_spinner=False)
def _digits() -> np.ndarray:
    return _standardized(DIGITS)


class LinearAe(NamedTuple):
    angles: np.ndarray  # principal angles (degrees) between its decoder's subspace and PCA's, smallest first
    largest: float
    mse: float  # reconstruction error in standardised units


@st.cache_data(max_entries=48, show_spinner=False)
def linear_ae(k: int, seed: int) -> LinearAe:
    """A linear autoencoder with ``k`` units on the digits: principal angles to PCA's subspace, and its MSE."""
    angles, mse = linear.linear_autoencoder_vs_pca(_digits(), k, random_state=seed)
    return LinearAe(angles, float(angles.max()), mse)


@st.cache_resource(max_entries=8, show_spinner=False)
def _nonlinear_ae(k: int, noise: float, seed: int):
    return linear.train_autoencoder(_digits(), k, kind="nonlinear", noise=noise, max_iter=200, random_state=seed)


def _panels() -> shared.SharedStore:
    return shared.store("found.ae_panels", 32)


def ae_panel(k: int, noise: float, seed: int) -> AePanel | None:
    """The plain and denoising autoencoders' reconstructions, if anyone has trained them on this server."""
    return _panels().get((int(k), float(noise), int(seed)))


def train_ae_panel(k: int, noise: float, seed: int) -> AePanel:
    """Train the plain and the denoising autoencoder (seconds each) and keep their reconstructions for everyone."""
    models = {"plain": _nonlinear_ae(k, 0.0, seed), "denoising": _nonlinear_ae(k, noise, seed)}
    sensitivity = {name: linear.encoder_jacobian_norm(model, _digits()) for name, model in models.items()}
    panel = AePanel(*linear.denoising_panel(_digits(), models, noise, random_state=seed), sensitivity)
    _panels().put((int(k), float(noise), int(seed)), panel)
    return panel


def _contractive_results() -> shared.SharedStore:
    return shared.store("found.cae", 32)


def contractive(k: int, noise: float, penalty: float, seed: int) -> pd.DataFrame | None:
    """The plain, denoising and contractive nets' held-out scores, if anyone has trained them on this server."""
    return _contractive_results().get((int(k), float(noise), float(penalty), int(seed)))


def train_contractive(k: int, noise: float, penalty: float, seed: int) -> pd.DataFrame:
    """Train the three nets of one architecture on the digits (seconds) and keep their scores for everyone."""
    table = linear.contractive_comparison(_digits(), int(k), noise=float(noise), penalty=float(penalty),
                                          random_state=int(seed)).table
    _contractive_results().put((int(k), float(noise), float(penalty), int(seed)), table)
    return table


# ------------------------------------------------------------------ feature hashing


class Hashing(NamedTuple):
    table: pd.DataFrame  # width, bias, rmse and the 1/sqrt(w) trend
    vocabulary: int  # the words' original width
    at: dict  # width -> (rmse, bias)


@st.cache_data(max_entries=8, show_spinner=False)
def hashing(seed: int) -> Hashing:
    """Hashed inner products of the news articles' word counts against width."""
    counts, _ = _news()
    table = linear.hashed_inner_product_error(counts, list(HASH_WIDTHS), random_state=seed)
    table["1/sqrt(w) trend"] = linear.inverse_sqrt_trend(table["width"], table["rmse"].iloc[0])
    at = {int(w): (float(r), float(b)) for w, r, b in zip(table["width"], table["rmse"], table["bias"])}
    return Hashing(table, counts.shape[1], at)


# ------------------------------------------------------------------ reproduce


def recipe(ref: DataRef, seed: int, svd_matrix: Matrix, k: int, center: bool) -> Recipe:
    """The SVD section's layers and rank-k picture, PCA against JL on the sidebar data and the Standardising
    section's accuracy table, as embedcore computes them."""
    photo = svd_matrix == PHOTO
    layers = _svd(svd_matrix, center)
    k = min(int(k), len(layers.s))
    arrays = {"singular_values": layers.s, "reconstruction": np.asarray(svd_rank(svd_matrix, k, center).values),
              "error": np.array([svd_rank(svd_matrix, k, center).error])}
    table = pca_vs_jl(ref, seed).table
    if table is not None:
        arrays["pca_vs_jl"] = table.to_numpy(dtype=float)
    # the Standardising section's table, random batches then one-digit batches (size, rows, both accuracies, moved)
    arrays["batch_accuracy"] = np.vstack([batch_table(seed, one).to_numpy(dtype=float) for one in (False, True)])
    params = {"svd": {"matrix": "photo" if photo else "sidebar data", "k": k, "center": center,
                      "rows kept": None if photo else SVD_ROWS, "columns shown": None if photo else SVD_COLS},
              "pca_vs_jl": {"columns": None if table is None else list(table.columns), "seed": seed},
              "batch_accuracy": {"columns": list(batch_table(seed, False).columns), "sizes": list(BATCH_SIZES),
                                 "test share": TEST_SHARE, "components": BATCH_COMPONENTS,
                                 "min rows": BATCH_MIN_ROWS, "seed": seed,
                                 "rows": "random batches, then one-digit batches"}}
    code = f"""
        from embedcore import foundations as linear

        X = {"linear.grey_photo()" if photo else "data.X"}
        layers = linear.svd_layers(X, center={center}, rows={None if photo else SVD_ROWS})
        Xk, error = linear.rank_k(layers, {k})
        shown = {"linear.grey_uint8(Xk)" if photo else f"Xk[:, :{SVD_COLS}]"}
        result = {{"singular_values": layers.s, "reconstruction": shown, "error": np.array([error])}}
        # PCA against a Gaussian JL map on the sidebar data, standardised
        S = linear.standardise(data.X)
        if {table is not None}:
            table = linear.pca_vs_jl(S, list(linear.k_grid(min(S.shape))), random_state={seed})
            result["pca_vs_jl"] = table.to_numpy(dtype=float)
        # new digits standardised with the training statistics or their batch's own, whatever the sidebar shows
        from embedcore import datasets

        digits = datasets.load_digits()
        y = digits.meta["label"].to_numpy().astype(int)
        train, test = linear.split_rows(y, {TEST_SHARE}, random_state={seed})
        model = linear.fit_batch_model(digits.X[train], y[train], n_components={BATCH_COMPONENTS})
        result["batch_accuracy"] = np.vstack([
            linear.batch_experiment(model, digits.X[test], y[test], {list(BATCH_SIZES)}, one_class=one,
                                    min_rows={BATCH_MIN_ROWS}, random_state={seed}).to_numpy(dtype=float)
            for one in (False, True)])
        """
    return Recipe("foundations", f"rank-{k} SVD of the {'photo' if photo else 'sidebar data'} and PCA vs JL",
                  arrays, params, ref, code,
                  compare={"singular_values": "close", "reconstruction": "exact" if photo else "close",
                           "error": "close", "pca_vs_jl": "close", "batch_accuracy": "close"}, rtol=1e-6, atol=1e-9)
