"""The linear-algebra foundations, written to teach: PCA two ways, random projections,
SVD energy, autoencoders and feature hashing. scikit-learn and SciPy do the heavy lifting."""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np
from sklearn.utils.extmath import svd_flip

from ._linalg import pca_basis

__all__ = [
    "pca_basis", "standardize", "eigen_pca", "greedy_pca", "jl_min_dim", "random_projection",
    "distance_distortion", "pca_vs_jl", "svd_energy", "low_rank", "train_autoencoder",
    "autoencoder_subspace", "principal_angles_deg", "hash_matrix", "hashed_inner_product_error",
    # the experiments' data
    "correlated_cloud", "grey_photo", "news_counts", "sample_rows",
    # PCA and the scaling pitfall
    "rescale_feature", "axis_angle_deg", "ScalingPCA", "scaling_experiment",
    # PCA against Johnson-Lindenstrauss
    "k_grid", "distance_pairs", "JL_BLOCK", "projection_block", "nested_random_projection",
    "prefix_distortion", "share_within", "jl_bound_curve", "PROJECTION_KINDS", "orthonormal_frame",
    "orthonormal_projection", "OrthonormalState", "extend_orthonormal", "jl_pair_failure", "jl_failure_bounds",
    "jl_seed_dim", "jl_failure_curve",
    # standardising new data
    "fit_standardiser", "standardise_with", "split_rows", "BatchModel", "fit_batch_model", "place_batch",
    "predict_batch",
    "draw_batch", "batch_experiment",
    # SVD
    "SvdLayers", "svd_layers", "rank_k", "energy_profile", "grey_uint8",
    # autoencoders
    "reconstruction_mse", "linear_autoencoder_vs_pca", "denoising_panel", "encoder_jacobian_norm",
    # feature hashing
    "inverse_sqrt_trend",
]


@functools.cache
def _blas_controller():
    import scipy.linalg  # noqa: F401  (loads SciPy's own BLAS, which L-BFGS uses, so the controller sees it)
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def _one_blas_thread(func):
    """Run ``func`` on one BLAS thread.

    These functions chain many small and medium products (an optimiser's
    steps, a QR per k, a Gram matrix's eigenvectors). On a machine whose
    cores are busy, OpenBLAS threads that wait for each other cost far more
    than they give: on a loaded two-core machine the linear autoencoder took
    7 to 11 s with two threads and 0.2 s with one, ``pca_vs_jl`` on the news
    vectors 33 s against 3 s. scikit-learn's KMeans limits BLAS the same way
    around its own loop. The limit is process-wide while it lasts, so another
    thread's products may run on one thread meanwhile; results do not change.
    """

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with _blas_controller().limit(limits=1, user_api="blas"):
            return func(*args, **kwargs)

    return wrapper


# --------------------------------------------------------------------------- the experiments' data


def correlated_cloud(n: int = 400, random_state=0) -> np.ndarray:
    """A correlated 3-D Gaussian cloud: x and y strongly related, z small and independent.

    Examples
    --------
    >>> X = correlated_cloud(2000, random_state=0)
    >>> X.shape, bool(np.corrcoef(X[:, 0], X[:, 1])[0, 1] > 0.5), bool(X[:, 2].var() < X[:, 1].var())
    ((2000, 3), True, True)
    """
    rng = np.random.default_rng(random_state)
    cov = [[3.0, 1.5, 0.0], [1.5, 2.0, 0.0], [0.0, 0.0, 0.3]]
    return rng.multivariate_normal([0, 0, 0], cov, size=n)


def grey_photo(step: int = 2) -> np.ndarray:
    """scikit-learn's sample photo ``china.jpg`` in grey levels in [0, 1], every ``step``-th pixel.

    Examples
    --------
    >>> grey_photo(4).shape
    (107, 160)
    """
    from sklearn.datasets import load_sample_image

    img = load_sample_image("china.jpg").astype(np.float64) / 255.0
    return (img @ [0.299, 0.587, 0.114])[::step, ::step]


def news_counts():
    """Word counts of the Lee news corpus (300 articles): (sparse counts, dense TF-IDF rows).

    The counts are a (documents x words) CSR matrix; the TF-IDF rows are
    scikit-learn's ``TfidfTransformer`` defaults (l2-normalised rows).
    """
    from sklearn.feature_extraction.text import CountVectorizer, TfidfTransformer

    from embedcore.datasets import load_corpus

    counts = CountVectorizer().fit_transform(load_corpus("lee").documents)
    tfidf = TfidfTransformer().fit_transform(counts).toarray()
    return counts, tfidf


def sample_rows(X, n_max: int, random_state=0) -> np.ndarray:
    """``X`` itself when it has at most ``n_max`` rows, else ``n_max`` of its rows drawn without replacement.

    Examples
    --------
    >>> sample_rows(np.arange(10).reshape(5, 2), 3, random_state=0).shape
    (3, 2)
    >>> sample_rows(np.arange(10).reshape(5, 2), 8).shape
    (5, 2)
    """
    X = np.asarray(X)
    if len(X) <= n_max:
        return X
    return X[np.random.default_rng(random_state).choice(len(X), n_max, replace=False)]


# --------------------------------------------------------------------------- PCA, two ways


def standardize(X):
    """Centre every feature and scale it to unit variance (constant features are left at 0).

    Each column is first divided by its largest magnitude (which the result
    does not depend on), so values near the ends of floating point (1e306,
    1e-300) are standardised too instead of overflowing or underflowing.

    Examples
    --------
    >>> X = np.array([[1.0, 5.0], [3.0, 5.0]])
    >>> np.round(standardize(X), 12).tolist()
    [[-1.0, 0.0], [1.0, 0.0]]
    >>> bool(np.allclose(standardize(X * 1e306), standardize(X)))
    True
    """
    X = np.asarray(X, dtype=np.float64)
    top = np.abs(X).max(axis=0) if len(X) else np.ones(X.shape[1:])
    X = X / np.where(top > 0, top, 1.0)
    sd = X.std(axis=0)
    return (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)


def eigen_pca(X, k: int):
    """PCA by eigenvectors: the top-``k`` eigenvectors of ``Xc^T Xc`` (Xc: centred X).

    Returns (components (k, d), variances (k,)), largest first, signs fixed so
    each component's largest loading is positive.
    """
    X = np.asarray(X, dtype=np.float64)
    Xc = X - X.mean(axis=0)
    k = _check_k(k, X.shape[1])
    vals, vecs = np.linalg.eigh(Xc.T @ Xc)
    order = np.argsort(vals)[::-1][:k]
    comps = svd_flip(None, vecs[:, order].T, u_based_decision=False)[1]
    return comps, vals[order] / max(len(X) - 1, 1)


def greedy_pca(X, k: int, *, n_iter: int = 500, tol: float = 1e-12, random_state=0):
    """PCA one direction at a time: the unit vector of largest variance orthogonal to those found.

    Each direction is found by power iteration on the covariance with the
    directions already found removed (deflation), which is the greedy
    definition made computable. Returns (components (k, d), variances (k,)).
    """
    X = np.asarray(X, dtype=np.float64)
    k = _check_k(k, X.shape[1])
    Xc = X - X.mean(axis=0)
    C = Xc.T @ Xc / max(len(X) - 1, 1)
    rng = np.random.default_rng(random_state)
    comps, variances = [], []
    for _ in range(k):
        z = rng.standard_normal(C.shape[0])
        for _ in range(n_iter):
            z_new = C @ z
            # stay orthogonal to the directions already taken (deflation)
            for prev in comps:
                z_new -= (z_new @ prev) * prev
            norm = np.linalg.norm(z_new)
            if norm == 0:
                break
            z_new /= norm
            if np.linalg.norm(z_new - z) < tol or np.linalg.norm(z_new + z) < tol:
                z = z_new
                break
            z = z_new
        comps.append(z)
        variances.append(float(z @ C @ z))
        C = C - variances[-1] * np.outer(z, z)
    return svd_flip(None, np.array(comps), u_based_decision=False)[1], np.array(variances)


def rescale_feature(X, feature: int, factor: float) -> np.ndarray:
    """A copy of ``X`` with column ``feature`` multiplied by ``factor`` (a change of units).

    Examples
    --------
    >>> rescale_feature(np.ones((2, 3)), 2, 1000.0).tolist()
    [[1.0, 1.0, 1000.0], [1.0, 1.0, 1000.0]]
    """
    X = np.array(X, dtype=np.float64)
    X[:, feature] *= factor
    return X


def axis_angle_deg(direction, axis: int) -> float:
    """Angle in degrees (0 to 90) between the line along ``direction`` and coordinate axis ``axis``.

    Examples
    --------
    >>> round(axis_angle_deg([1.0, 1.0, 0.0], 0), 6)
    45.0
    >>> axis_angle_deg([0.0, 0.0, -2.0], 2)
    0.0
    """
    v = np.asarray(direction, dtype=np.float64)
    cos = abs(v[axis]) / np.linalg.norm(v)
    return float(np.degrees(np.arccos(min(1.0, cos))))


class ScalingPCA(NamedTuple):
    """What PCA finds on data with one feature rescaled (see :func:`scaling_experiment`)."""

    #: the data as PCA sees them: centred, or standardised (n, d)
    points: np.ndarray
    #: components by eigenvectors (k, d), largest first
    eigen: np.ndarray
    #: components found greedily (k, d)
    greedy: np.ndarray
    #: variance along each eigen component (k,)
    variances: np.ndarray
    #: each component's share of the variance the k components hold (k,)
    explained: np.ndarray
    #: angle in degrees between the first component and the rescaled feature's axis
    angle_deg: float
    #: |cosine| between the greedy and the eigen first component (1: the same direction)
    agreement: float


def scaling_experiment(X, feature: int, log10_scale: float, *, standardise: bool = False,
                       n_components: int | None = None, random_state=0) -> ScalingPCA:
    """PCA, by eigenvectors and greedily, after multiplying one feature by ``10 ** log10_scale``.

    Variance depends on units: blow one feature up and the first component
    swings onto its axis; ``standardise=True`` (unit variance per feature)
    undoes that. ``n_components`` defaults to every feature.

    Examples
    --------
    >>> X = correlated_cloud(400, random_state=0)
    >>> scaling_experiment(X, 2, 0.0).angle_deg > 80  # z has the smallest variance
    True
    >>> scaling_experiment(X, 2, 3.0).angle_deg < 1  # in thousandths, it dominates
    True
    >>> scaling_experiment(X, 2, 3.0, standardise=True).angle_deg > 60
    True
    """
    X = rescale_feature(X, feature, 10.0 ** log10_scale)
    points = standardize(X) if standardise else X - X.mean(axis=0)
    k = X.shape[1] if n_components is None else n_components
    eigen, variances = eigen_pca(points, k)
    greedy, _ = greedy_pca(points, k, random_state=random_state)
    total = variances.sum()
    explained = variances / total if total > 0 else np.full(len(variances), np.nan)
    return ScalingPCA(points, eigen, greedy, variances, explained, axis_angle_deg(eigen[0], feature),
                      float(abs(eigen[0] @ greedy[0])))


# --------------------------------------------------------------------------- standardising new data


def fit_standardiser(X):
    """Each feature's mean and standard deviation (``(mean, scale)``; a constant feature gets scale 1).

    These are the numbers to keep: new data are standardised with them
    (:func:`standardise_with`), not with statistics of their own.

    Examples
    --------
    >>> mean, scale = fit_standardiser([[1.0, 5.0], [3.0, 5.0]])
    >>> mean.tolist(), scale.tolist()
    ([2.0, 5.0], [1.0, 1.0])
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or not len(X):
        raise ValueError(f"Standardising needs a non-empty (rows, features) matrix; got shape {X.shape}.")
    sd = X.std(axis=0)
    return X.mean(axis=0), np.where(sd > 0, sd, 1.0)


def standardise_with(X, mean, scale) -> np.ndarray:
    """``(X - mean) / scale``, feature by feature.

    Examples
    --------
    >>> standardise_with([[4.0, 1.0]], [2.0, 1.0], [2.0, 1.0]).tolist()
    [[1.0, 0.0]]
    """
    return (np.asarray(X, dtype=np.float64) - mean) / scale


def split_rows(y, test_share: float = 0.3, *, random_state=0):
    """Indices ``(train, test)``: a seeded split that keeps each class's share (scikit-learn's stratified split).

    Examples
    --------
    >>> train, test = split_rows(np.repeat([0, 1], 10), 0.3)
    >>> len(train), len(test), int(np.repeat([0, 1], 10)[test].sum())
    (14, 6, 3)
    """
    from sklearn.model_selection import train_test_split

    y = np.asarray(y)
    if not 0 < test_share < 1:
        raise ValueError(f"test_share must be between 0 and 1, got {test_share}.")
    train, test = train_test_split(np.arange(len(y)), test_size=test_share, random_state=int(random_state),
                                   stratify=y)
    return np.sort(train), np.sort(test)


class BatchModel(NamedTuple):
    """PCA and a nearest-class-mean classifier fitted on standardised training data (:func:`fit_batch_model`)."""

    #: the training data's feature means and standard deviations (1 for a constant feature)
    mean: np.ndarray
    scale: np.ndarray
    #: the top principal directions of the standardised training data (k, d)
    components: np.ndarray
    #: the training points' scores on them (n, k)
    scores: np.ndarray
    #: each class's mean score (classes, k), in the order of ``classes``
    centroids: np.ndarray
    classes: np.ndarray


def fit_batch_model(X, y, *, n_components: int = 10) -> BatchModel:
    """Standardise ``X`` with its own statistics, take its top principal directions, and each class's mean there.

    Examples
    --------
    >>> X = np.array([[0.0, 0.0], [0.1, 0.0], [4.0, 1.0], [4.1, 1.0]])
    >>> model = fit_batch_model(X, np.array([0, 0, 1, 1]), n_components=1)
    >>> predict_batch(model, place_batch(model, X)).tolist()
    [0, 0, 1, 1]
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    if len(X) != len(y):
        raise ValueError(f"X has {len(X)} rows but y has {len(y)} labels.")
    mean, scale = fit_standardiser(X)
    S = standardise_with(X, mean, scale)
    _, basis, _ = pca_basis(S, _check_k(n_components, X.shape[1]))
    scores = S @ basis  # S is centred: these are the PCA scores
    classes = np.unique(y)
    centroids = np.vstack([scores[y == c].mean(axis=0) for c in classes])
    return BatchModel(mean, scale, basis.T, scores, centroids, classes)


def place_batch(model: BatchModel, X, statistics: str = "training") -> np.ndarray:
    """Scores (m, k) of new rows: standardised with the training statistics, or with the batch's own.

    ``statistics="batch"`` is the mistake: the batch's own mean and standard
    deviation describe the batch, not the data the model was fitted on, so
    a batch of one kind of row is moved to the middle of the training cloud
    and a batch of one row lands exactly at the origin.
    """
    if statistics not in ("training", "batch"):
        raise ValueError(f"statistics must be 'training' or 'batch', got {statistics!r}.")
    X = np.asarray(X, dtype=np.float64)
    mean, scale = (model.mean, model.scale) if statistics == "training" else fit_standardiser(X)
    return standardise_with(X, mean, scale) @ model.components.T


def predict_batch(model: BatchModel, scores) -> np.ndarray:
    """The class whose training mean is nearest to each row of ``scores``."""
    Z = np.asarray(scores, dtype=np.float64)
    d2 = ((Z[:, None, :] - model.centroids[None]) ** 2).sum(axis=2)
    return model.classes[np.argmin(d2, axis=1)]


def draw_batch(y, size: int, *, one_class=None, random_state=0) -> np.ndarray:
    """Indices of a test batch: ``size`` rows at random, or (``one_class`` set) rows of that class only.

    A one-class batch has at most as many rows as the class has.

    Examples
    --------
    >>> draw_batch(np.array([0, 1, 1, 0, 1]), 5, one_class=1).tolist()
    [1, 2, 4]
    """
    y = np.asarray(y)
    if int(size) < 1:
        raise ValueError(f"A batch needs at least one row, got size={size}.")
    pool = np.arange(len(y)) if one_class is None else np.flatnonzero(y == one_class)
    if not len(pool):
        raise ValueError(f"No test row has the class {one_class!r}.")
    rng = np.random.default_rng(random_state)
    return np.sort(rng.choice(pool, min(int(size), len(pool)), replace=False))


def batch_experiment(model: BatchModel, X, y, sizes, *, one_class: bool = False, n_batches: int = 20,
                     min_rows: int = 500, random_state=0):
    """Accuracy of new batches placed with the training statistics and with their own, for each batch size.

    For every size, ``n_batches`` seeded batches are drawn from ``(X, y)``,
    or more when they would hold fewer than ``min_rows`` rows in all (each
    from one class, the classes in turn, when ``one_class``); both
    placements go through the same model, so the only difference is which
    mean and standard deviation standardise the batch. Returns a DataFrame:
    ``size`` (the size asked), ``rows`` (the mean size drawn), ``training
    statistics`` and ``batch statistics`` (accuracy over all rows drawn),
    and ``displacement`` (the mean distance between a row's two placements,
    relative to the training scores' root-mean-square distance from their
    mean).
    """
    import pandas as pd

    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    spread = float(np.sqrt((model.scores ** 2).sum(axis=1).mean())) or 1.0
    rows = []
    for size in sizes:
        right = wrong = moved = drawn = 0.0
        count = max(int(n_batches), -(-int(min_rows) // int(size)))
        for b in range(count):
            cls = model.classes[b % len(model.classes)] if one_class else None
            idx = draw_batch(y, size, one_class=cls, random_state=[int(random_state), int(size), b])
            Zt, Zb = place_batch(model, X[idx], "training"), place_batch(model, X[idx], "batch")
            right += (predict_batch(model, Zt) == y[idx]).sum()
            wrong += (predict_batch(model, Zb) == y[idx]).sum()
            moved += np.linalg.norm(Zt - Zb, axis=1).sum()
            drawn += len(idx)
        rows.append({"size": int(size), "rows": drawn / count, "training statistics": right / drawn,
                     "batch statistics": wrong / drawn, "displacement": moved / drawn / spread})
    return pd.DataFrame(rows)


def _check_k(k, d):
    if not 1 <= k <= d:
        raise ValueError(f"k must be between 1 and the number of features ({d}); got {k}.")
    return int(k)


# --------------------------------------------------------------------------- Johnson-Lindenstrauss


def jl_min_dim(n_samples: int, eps: float) -> int:
    """Dimensions a random projection needs to keep all squared distances within 1 +- eps
    (scikit-learn's bound ``4 ln n / (eps^2 / 2 - eps^3 / 3)``)."""
    from sklearn.random_projection import johnson_lindenstrauss_min_dim

    if not 0 < eps < 1:
        raise ValueError(f"eps must be between 0 and 1, got {eps}.")
    return int(johnson_lindenstrauss_min_dim(n_samples, eps=eps))


def random_projection(X, k: int, kind: str = "gaussian", random_state=0):
    """Project to ``k`` dimensions with a Gaussian or sparse (Achlioptas/Li) random matrix."""
    from sklearn.random_projection import (
        GaussianRandomProjection,
        SparseRandomProjection,
    )

    if kind not in ("gaussian", "sparse"):
        raise ValueError(f"kind must be 'gaussian' or 'sparse', got {kind!r}.")
    cls = GaussianRandomProjection if kind == "gaussian" else SparseRandomProjection
    proj = cls(n_components=int(k), random_state=random_state)
    Y = proj.fit_transform(X)
    return np.asarray(Y.toarray() if hasattr(Y, "toarray") else Y)


def distance_distortion(X, Y, n_pairs: int = 5000, random_state=0) -> np.ndarray:
    """Ratios ``||y_i - y_j||^2 / ||x_i - x_j||^2`` over random pairs of distinct points."""
    Y = np.asarray(Y, dtype=np.float64)
    i, j, dx = distance_pairs(X, n_pairs, random_state)
    return ((Y[i] - Y[j]) ** 2).sum(axis=1) / dx


@_one_blas_thread
def pca_vs_jl(X, ks, *, random_state=0, n_pairs: int = 3000):
    """For each k: relative reconstruction error and distance distortion of PCA and of a Gaussian JL map.

    Reconstruction of JL: the orthogonal projection onto the random subspace
    (the best any linear decoder can do from the k random coordinates).
    Distortion: the median of ``|ratio - 1|`` over the squared-distance ratios
    of the same random pairs (:func:`distance_pairs`) for every k and both maps.

    Examples
    --------
    >>> X = standardize(correlated_cloud(300, random_state=0))
    >>> table = pca_vs_jl(X, [1, 2])
    >>> bool((table["pca_reconstruction"] <= table["jl_reconstruction"]).all())
    True
    """
    import pandas as pd

    X = np.asarray(X, dtype=np.float64)
    Xc = X - X.mean(axis=0)
    total = (Xc**2).sum()
    ks = [int(k) for k in ks]
    s2, scores = _pca_scores(Xc, max(ks, default=0))
    i, j, d2 = distance_pairs(Xc, n_pairs, random_state)
    # squared distances between the pairs in the first k principal coordinates, for every k at once
    pca_d2 = np.cumsum((scores[i] - scores[j]) ** 2, axis=1)
    rng = np.random.default_rng(random_state)
    rows = []
    for k in ks:
        pca_err = 1 - s2[:k].sum() / total
        R = rng.standard_normal((X.shape[1], k)) / np.sqrt(k)
        Q, _ = np.linalg.qr(R)
        # Q has orthonormal columns: what the projection misses is the energy outside span(Q)
        jl_err = max(total - ((Xc @ Q) ** 2).sum(), 0.0) / total
        Y = Xc @ R
        d_pca = pca_d2[:, min(k, pca_d2.shape[1]) - 1] / d2 if len(d2) else d2
        d_jl = ((Y[i] - Y[j]) ** 2).sum(axis=1) / d2
        rows.append({"k": k, "pca_reconstruction": pca_err, "jl_reconstruction": jl_err,
                     "pca_distortion": float(np.median(np.abs(d_pca - 1))) if len(d2) else np.nan,
                     "jl_distortion": float(np.median(np.abs(d_jl - 1))) if len(d2) else np.nan})
    return pd.DataFrame(rows)


def _pca_scores(Xc, k: int):
    """Eigenvalues of ``Xc^T Xc`` (largest first, every one) and the top-``k`` principal coordinates (n, k).

    Through the smaller of the two Gram matrices: the same numbers as an SVD
    of ``Xc`` for the top components, at a fraction of its cost when the
    matrix is wide (300 documents x 7,168 words).
    """
    n, d = Xc.shape
    if n <= d:
        w, U = np.linalg.eigh(Xc @ Xc.T)
        w, U = np.clip(w[::-1], 0, None), U[:, ::-1]
        scores = U[:, :k] * np.sqrt(w[:k])
    else:
        w, V = np.linalg.eigh(Xc.T @ Xc)
        w, V = np.clip(w[::-1], 0, None), V[:, ::-1]
        scores = Xc @ V[:, :k]
    return w, scores


def k_grid(limit: int) -> tuple:
    """Up to seven dimensions between 2 and ``limit`` (the data's rank limit), roughly doubling.

    Examples
    --------
    >>> k_grid(64)
    (2, 4, 8, 16, 32, 64)
    >>> k_grid(300)
    (8, 16, 32, 64, 128, 256, 300)
    >>> k_grid(1)
    (1,)
    """
    grid = sorted({k for k in (2, 4, 8, 16, 32, 64, 128, 256) if k < limit} | {int(limit)})
    return tuple(grid[-7:]) if len(grid) > 7 else tuple(grid)


def distance_pairs(X, n_pairs: int = 4000, random_state=0):
    """Random pairs of rows and their squared distances: ``(i, j, d2)``, pairs at distance 0 left out.

    The same pairs :func:`distance_distortion` draws for the same
    ``random_state``; computed in chunks, so a wide matrix never needs an
    ``n_pairs x d`` temporary.

    Examples
    --------
    >>> i, j, d2 = distance_pairs(np.eye(3), 10, random_state=0)
    >>> bool(np.all(i != j)) and set(np.round(d2, 9).tolist()) == {2.0}
    True
    """
    X = np.asarray(X, dtype=np.float64)
    rng = np.random.default_rng(random_state)
    i = rng.integers(0, len(X), n_pairs)
    j = rng.integers(0, len(X), n_pairs)
    chunk = max(1, 2**21 // max(X.shape[1], 1))
    d2 = np.concatenate([((X[i[a:a + chunk]] - X[j[a:a + chunk]]) ** 2).sum(axis=1)
                         for a in range(0, n_pairs, chunk)]) if n_pairs else np.zeros(0)
    keep = d2 > 0
    return i[keep], j[keep], d2[keep]


#: Columns of random coordinates drawn together (see :func:`projection_block`).
JL_BLOCK = 256
#: The random matrices :func:`projection_block` draws.
PROJECTION_KINDS = ("orthonormal", "gaussian", "sparse")
#: Up to this many dimensions the orthonormal frame is built in one Householder QR of the Gaussian draws; above
#: it, a block at a time from the draws' Gram matrix (see :func:`extend_orthonormal`).
_QR_DIMENSIONS = 2 * JL_BLOCK


def _check_kind(kind: str) -> None:
    if kind not in PROJECTION_KINDS:
        raise ValueError(f"kind must be one of {', '.join(map(repr, PROJECTION_KINDS))}, got {kind!r}.")


def _gaussian_slabs(d: int, blocks: int, width: int, random_state, rows: int):
    """The Gaussian draws of blocks ``0 .. blocks - 1``, ``rows`` rows at a time: ``(a, b, [slab of each block])``.

    Block ``c`` is the stream ``default_rng([random_state, c])`` read row after
    row, the same numbers :func:`projection_block` draws for ``"gaussian"``
    whatever the slab height.
    """
    rngs = [np.random.default_rng([int(random_state), c]) for c in range(blocks)]
    for a in range(0, d, rows):
        b = min(d, a + rows)
        yield a, b, [rng.standard_normal((b - a, width)) for rng in rngs]


class OrthonormalState(NamedTuple):
    """How far :func:`extend_orthonormal` has built a random orthonormal frame, applied to ``X``.

    With ``G`` the Gaussian draws so far and ``Q`` the frame, ``G = Q L^T``
    (``L`` lower triangular with a positive diagonal: Gram-Schmidt).
    """

    #: ``L``'s rows, a block at a time: block c is (its vectors, vectors up to its last)
    rows: tuple
    #: ``X Q``, a block of columns at a time (not yet scaled)
    XQ: tuple
    #: blocks of ``width`` vectors drawn so far
    blocks: int


def _lower(rows) -> np.ndarray:
    """The lower-triangular matrix whose row blocks are ``rows``."""
    n = sum(len(r) for r in rows)
    L = np.zeros((n, n))
    top = 0
    for r in rows:
        L[top:top + len(r), :r.shape[1]] = r
        top += len(r)
    return L


@_one_blas_thread
def extend_orthonormal(X, state: OrthonormalState | None = None, *, width: int = JL_BLOCK,
                       random_state=0) -> OrthonormalState:
    """Add the next ``width`` vectors of a uniformly random orthonormal frame to ``state`` (or start one).

    The frame is the Gram-Schmidt orthonormalisation of the Gaussian columns
    :func:`projection_block` draws for ``"gaussian"`` (same ``random_state``
    and ``width``), so its first k vectors span a uniformly random
    k-dimensional subspace for every k. Above :data:`_QR_DIMENSIONS`
    dimensions only the new block's products are formed: ``C = G^T G_b``
    over the draws so far and ``X G_b``; then ``L``'s new rows come from a
    triangular solve and a Cholesky factor of the Schur complement, and
    ``X Q_b = (X G_b - X Q_<b L_21^T) L_22^-T``. The draws' condition number
    stays small while the frame is well short of ``d`` vectors, where the
    Gram matrix is accurate; a frame in at most :data:`_QR_DIMENSIONS`
    dimensions is built in one Householder QR instead. An orthonormal frame
    has at most ``d`` vectors: the last block is narrower when ``d`` is not
    a multiple of ``width``.

    Examples
    --------
    >>> X = np.random.default_rng(0).standard_normal((5, 40))
    >>> state = extend_orthonormal(X, width=16)
    >>> state = extend_orthonormal(X, state, width=16)
    >>> Q = orthonormal_frame(40, 32, width=16)
    >>> bool(np.allclose(np.hstack(state.XQ), X @ Q))
    True
    """
    from scipy.linalg import solve_triangular

    X = np.asarray(X, dtype=np.float64)
    n, d = X.shape
    b = 0 if state is None else state.blocks
    start = b * width
    if start >= d:
        raise ValueError(f"An orthonormal frame in {d} dimensions has {d} vectors; block {b} would start at "
                         f"vector {start}. Ask for k <= {d}.")
    cols = min(start + width, d)
    bounds = [(c * width, min((c + 1) * width, cols)) for c in range(b + 1)]
    if d <= _QR_DIMENSIONS:
        G = np.hstack(next(_gaussian_slabs(d, b + 1, width, random_state, d))[2])[:, :cols]
        Q, R = np.linalg.qr(G)
        sign = np.where(np.diag(R) < 0, -1.0, 1.0)
        L, XQ = (R * sign[:, None]).T, X @ (Q * sign)
        return OrthonormalState(tuple(L[lo:hi, :hi] for lo, hi in bounds), tuple(XQ[:, lo:hi] for lo, hi in bounds),
                                b + 1)
    rows = max(1, 2**21 // ((b + 1) * width))
    C = np.zeros((cols, cols - start))  # the draws so far against the new block's
    XG = np.zeros((n, cols - start))
    for a, e, slabs in _gaussian_slabs(d, b + 1, width, random_state, rows):
        new = slabs[-1][:, :cols - start]
        for c, part in enumerate(slabs[:-1]):  # the earlier blocks' draws against the new ones
            C[c * width:(c + 1) * width] += part.T @ new
        C[start:] += new.T @ new
        XG += X[:, a:e] @ new
    if state is None:
        L21 = np.zeros((cols, 0))
        rest = XG
    else:
        L21 = solve_triangular(_lower(state.rows), C[:start], lower=True).T
        rest = XG - np.hstack(state.XQ) @ L21.T
    L22 = np.linalg.cholesky(C[start:] - L21 @ L21.T)
    XQ_b = solve_triangular(L22, rest.T, lower=True).T
    old_rows, old_XQ = ((), ()) if state is None else (state.rows, state.XQ)
    return OrthonormalState(old_rows + (np.hstack([L21, L22]),), old_XQ + (XQ_b,), b + 1)


@_one_blas_thread
def orthonormal_frame(d: int, k: int, *, width: int = JL_BLOCK, random_state=0) -> np.ndarray:
    """A random d x k matrix with orthonormal columns spanning a uniformly random k-dimensional subspace.

    The frame :func:`extend_orthonormal` builds (applied to the identity):
    the frame for k is the first k columns of the frame for any larger k.
    :func:`projection_block` with ``kind="orthonormal"`` gives ``sqrt(d) X``
    times it, block by block.

    Examples
    --------
    >>> Q = orthonormal_frame(50, 20, random_state=0)
    >>> Q.shape, bool(np.allclose(Q.T @ Q, np.eye(20)))
    ((50, 20), True)
    >>> bool(np.allclose(orthonormal_frame(50, 5, random_state=0), Q[:, :5]))
    True
    """
    d, k = int(d), int(k)
    if not 1 <= k <= d:
        raise ValueError(f"An orthonormal frame in {d} dimensions has 1 to {d} vectors; got k={k}.")
    state = None
    for _ in range(-(-k // width)):
        state = extend_orthonormal(np.eye(d), state, width=width, random_state=random_state)
    return np.hstack(state.XQ)[:, :k]


@_one_blas_thread
def orthonormal_projection(X, k: int, *, random_state=0) -> np.ndarray:
    """The Johnson-Lindenstrauss transform as the lemma states it: onto a random k-subspace, times sqrt(d / k).

    Projecting a d-dimensional vector onto a random k-dimensional subspace
    keeps k/d of its squared length on average; the factor ``sqrt(d / k)``
    makes every squared length, and so every squared distance, right in
    expectation. The subspace is :func:`orthonormal_frame`'s.

    Examples
    --------
    >>> X = np.random.default_rng(1).standard_normal((5, 200))
    >>> Y = orthonormal_projection(X, 200)  # k = d: a rotation, every distance kept
    >>> bool(np.allclose(np.linalg.norm(Y[0] - Y[1]), np.linalg.norm(X[0] - X[1])))
    True
    """
    X = np.asarray(X, dtype=np.float64)
    d, k = X.shape[1], int(k)
    if not 1 <= k <= d:
        raise ValueError(f"An orthonormal frame in {d} dimensions has 1 to {d} vectors; got k={k}.")
    state = None
    for _ in range(-(-k // JL_BLOCK)):  # X times the frame, without forming the d x k frame itself
        state = extend_orthonormal(X, state, random_state=random_state)
    return np.sqrt(d / k) * np.hstack(state.XQ)[:, :k]


@_one_blas_thread
def projection_block(X, block: int, *, kind: str = "gaussian", width: int = JL_BLOCK, random_state=0) -> np.ndarray:
    """Columns ``block * width`` to ``(block + 1) * width`` of ``X @ R``, unscaled.

    ``R`` has as many columns as needed, with entries of mean 0 and variance
    1: standard normal (``"gaussian"``); for ``"sparse"``, ``+-sqrt(s)`` with
    probability ``1 / (2 s)`` each and 0 otherwise, with ``s = sqrt(d)`` (Li,
    Hastie and Church's very sparse projections, the density scikit-learn's
    ``SparseRandomProjection`` chooses; Achlioptas's original has ``s = 3``);
    for ``"orthonormal"``, ``sqrt(d)`` times a uniformly random orthonormal
    frame (:func:`orthonormal_frame`), so the first k columns divided by
    ``sqrt(k)`` project onto a random k-dimensional subspace and scale by
    ``sqrt(d / k)``, the transform as Johnson and Lindenstrauss state it. An
    orthonormal frame has at most ``d`` columns: its last block is narrower
    when ``d`` is not a multiple of ``width``, and a block past ``d`` is an
    error.

    The first k columns of ``X @ R`` divided by ``sqrt(k)`` are a
    Johnson-Lindenstrauss map to k dimensions (:func:`nested_random_projection`);
    each block has a random stream of its own, so the map to k dimensions is
    the first k coordinates of the map to any larger k, and a new k needs no
    new draw (the orthonormal kind reads the streams of every block up to its
    own, to make its columns orthogonal to theirs).

    Examples
    --------
    >>> X = np.eye(4)
    >>> np.allclose(projection_block(X, 1, width=3), projection_block(X, 1, width=3))
    True
    >>> projection_block(X, 0, kind="sparse", width=5).shape
    (4, 5)
    >>> projection_block(X, 1, kind="orthonormal", width=3).shape  # a frame in 4 dimensions has 4 vectors
    (4, 1)
    """
    _check_kind(kind)
    X = np.asarray(X, dtype=np.float64)
    d = X.shape[1]
    if kind == "orthonormal":
        state = None
        for _ in range(int(block) + 1):
            state = extend_orthonormal(X, state, width=width, random_state=random_state)
        return np.sqrt(d) * state.XQ[-1]
    rng = np.random.default_rng([int(random_state), int(block)])
    out = np.zeros((len(X), width))
    rows = max(1, 2**21 // width)  # R is drawn a slab of rows at a time: never a d x width temporary
    s = np.sqrt(d)
    for a in range(0, d, rows):
        b = min(d, a + rows)
        if kind == "gaussian":
            R = rng.standard_normal((b - a, width))
        else:
            u = rng.random((b - a, width))
            R = np.where(u < 0.5 / s, np.sqrt(s), np.where(u < 1.0 / s, -np.sqrt(s), 0.0))
        out += X[:, a:b] @ R
    return out


def nested_random_projection(X, k: int, *, kind: str = "gaussian", width: int = JL_BLOCK, random_state=0):
    """A Johnson-Lindenstrauss map of ``X`` to ``k`` dimensions: the first k columns of :func:`projection_block`'s, / sqrt(k).

    Examples
    --------
    >>> X = np.random.default_rng(0).standard_normal((50, 400))
    >>> Y = nested_random_projection(X, 300, random_state=0)
    >>> Y.shape, np.allclose(nested_random_projection(X, 20, random_state=0), Y[:, :20] * np.sqrt(300 / 20))
    ((50, 300), True)
    """
    k = int(k)
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}.")
    blocks = [projection_block(X, b, kind=kind, width=width, random_state=random_state)
              for b in range(-(-k // width))]
    return np.hstack(blocks)[:, :k] / np.sqrt(k)


def prefix_distortion(blocks, k: int, i, j, d2) -> np.ndarray:
    """Squared-distance ratios of the pairs ``(i, j)`` after the map to ``k`` dimensions made from ``blocks``.

    ``blocks`` are consecutive :func:`projection_block` outputs of one
    matrix, ``(i, j, d2)`` its pairs from :func:`distance_pairs`; only the
    first ``k`` columns are read, so a change of k costs a pass over the pairs.

    Examples
    --------
    >>> X = np.random.default_rng(0).standard_normal((40, 30))
    >>> i, j, d2 = distance_pairs(X, 200)
    >>> blocks = [projection_block(X, b, width=8) for b in range(3)]
    >>> Y = nested_random_projection(X, 20, width=8)
    >>> np.allclose(prefix_distortion(blocks, 20, i, j, d2), ((Y[i] - Y[j]) ** 2).sum(axis=1) / d2)
    True
    """
    k = int(k)
    acc = np.zeros(len(i))
    left = k
    for Z in blocks:
        if left <= 0:
            break
        take = min(left, Z.shape[1])
        diff = Z[i, :take] - Z[j, :take]
        acc += np.einsum("ij,ij->i", diff, diff)
        left -= take
    if left > 0:
        raise ValueError(f"the blocks hold {k - left} columns; k={k} needs more.")
    return acc / k / d2


def share_within(ratios, eps: float) -> float:
    """Share of ratios within ``1 +- eps`` (NaN when there are none).

    Examples
    --------
    >>> share_within([0.8, 1.0, 1.5, 1.1], 0.25)
    0.75
    """
    r = np.asarray(ratios, dtype=np.float64)
    return float(np.mean(np.abs(r - 1) <= eps)) if r.size else float("nan")


def jl_bound_curve(n_samples: int, eps_grid=None):
    """The JL bound (:func:`jl_min_dim`) along a grid of eps: a DataFrame with columns ``eps`` and ``k``.

    Examples
    --------
    >>> curve = jl_bound_curve(300, [0.1, 0.5])
    >>> curve["k"].tolist() == [jl_min_dim(300, 0.1), jl_min_dim(300, 0.5)]
    True
    """
    import pandas as pd

    eps_grid = np.linspace(0.05, 0.95, 40) if eps_grid is None else np.asarray(eps_grid, dtype=np.float64)
    return pd.DataFrame({"eps": eps_grid, "k": [jl_min_dim(n_samples, e) for e in eps_grid]})


def _jl_exponent(eps) -> np.ndarray:
    eps = np.asarray(eps, dtype=np.float64)
    if np.any((eps <= 0) | (eps >= 1)):
        raise ValueError(f"eps must be between 0 and 1, got {eps}.")
    return eps**2 / 2 - eps**3 / 3


def jl_pair_failure(k, eps) -> np.ndarray:
    """The bound on the chance that one pair's squared distance leaves ``1 +- eps`` under a k-dimensional map.

    ``2 exp(-k (eps^2/2 - eps^3/3) / 2)``: Dasgupta and Gupta's tail bounds
    (the upper tail; the lower one is smaller) for the projection onto a
    random k-dimensional subspace scaled by ``sqrt(d / k)``. The same bounds
    hold for a Gaussian matrix divided by ``sqrt(k)`` (chi-squared tails) and
    for Achlioptas's +-1 and sparse matrices; for the very sparse matrix
    (``s = sqrt(d)``) only as d grows.

    Examples
    --------
    >>> float(np.round(jl_pair_failure(100, 0.5), 4))
    0.031
    """
    return np.minimum(1.0, 2.0 * np.exp(-np.asarray(k, dtype=np.float64) * _jl_exponent(eps) / 2))


def jl_failure_bounds(n_samples: int, k, eps):
    """``(per_pair, all_pairs)``: :func:`jl_pair_failure`, and the union bound over the ``n (n - 1) / 2`` pairs.

    The chance that some pair of ``n_samples`` points leaves ``1 +- eps`` is
    at most ``all_pairs`` (capped at 1).

    Examples
    --------
    >>> per, every = jl_failure_bounds(300, jl_seed_dim(300, 0.3), 0.3)
    >>> bool(per <= 300.0**-3) and bool(every < 1 / 300)
    True
    """
    per = jl_pair_failure(k, eps)
    n = int(n_samples)
    return per, np.minimum(1.0, per * n * (n - 1) / 2)


def jl_seed_dim(n_samples: int, eps: float) -> int:
    """The smallest k for which each pair fails with chance at most ``n^-3``: all pairs hold with chance >= 1 - 1/n.

    ``k >= (6 ln n + 2 ln 2) / (eps^2/2 - eps^3/3)``: the proof sketch's
    choice ``delta = 1/n^3`` made concrete with :func:`jl_pair_failure`'s
    constants; about 12 ``eps^-2 ln n`` for small eps. scikit-learn's
    :func:`jl_min_dim` (``4 ln n / (eps^2/2 - eps^3/3)``) asks each pair
    to fail with chance at most ``2 / n^2``, which leaves all pairs holding
    with chance at least ``1/n`` only: enough to show that a map exists.

    Examples
    --------
    >>> jl_seed_dim(300, 0.3), jl_min_dim(300, 0.3)
    (990, 633)
    """
    n = int(n_samples)
    if n < 2:
        raise ValueError(f"The bound needs at least 2 points, got {n}.")
    return int(np.ceil((6 * np.log(n) + 2 * np.log(2)) / _jl_exponent(eps)))


def jl_failure_curve(n_samples: int, eps: float, k_max: int, n_grid: int = 120):
    """The failure bounds along k from 1 to ``k_max`` (a DataFrame: ``k``, ``per pair``, ``some pair``).

    Examples
    --------
    >>> curve = jl_failure_curve(300, 0.3, 2000)
    >>> bool(curve["per pair"].is_monotonic_decreasing and curve["some pair"].iloc[0] == 1.0)
    True
    """
    import pandas as pd

    ks = np.unique(np.geomspace(1, max(int(k_max), 1), n_grid).round().astype(int))
    per, every = jl_failure_bounds(n_samples, ks, eps)
    return pd.DataFrame({"k": ks, "per pair": per, "some pair": every})


# --------------------------------------------------------------------------- SVD


def svd_energy(X, center: bool = False):
    """Singular values, cumulative energy (share of sum of squares) and the k that reaches 80%.

    ``center=True`` removes each column's mean first, so the energy counts
    variation rather than overall level (the first layer of an uncentred
    image is mostly its mean brightness).
    """
    X = np.asarray(X, dtype=np.float64)
    if center:
        X = X - X.mean(axis=0)
    s = np.linalg.svd(X, compute_uv=False)
    energy = np.cumsum(s**2) / np.sum(s**2)
    return s, energy, int(np.searchsorted(energy, 0.8) + 1)


def low_rank(X, k: int, center: bool = False):
    """Best rank-k approximation (truncated SVD) and its relative Frobenius error.

    With ``center=True`` the column means are removed first and added back to
    the approximation; the error is then relative to the centred matrix.
    """
    X = np.asarray(X, dtype=np.float64)
    k = _check_k(k, min(X.shape))
    mean = X.mean(axis=0) if center else np.zeros(X.shape[1])
    Xc = X - mean
    U, s, Vt = np.linalg.svd(Xc, full_matrices=False)
    Xk = (U[:, :k] * s[:k]) @ Vt[:k]
    return Xk + mean, float(np.linalg.norm(Xc - Xk) / np.linalg.norm(Xc))


class SvdLayers(NamedTuple):
    """A matrix's SVD kept for rank-k reconstructions (see :func:`svd_layers`)."""

    #: the column means removed before the SVD (zeros when not centred), (d,)
    mean: np.ndarray
    #: left singular vectors of the rows kept, (rows kept, r)
    U: np.ndarray
    #: singular values, largest first, (r,)
    s: np.ndarray
    #: right singular vectors, (r, d)
    Vt: np.ndarray


@_one_blas_thread
def svd_layers(X, *, center: bool = False, rows: int | None = None) -> SvdLayers:
    """The SVD of ``X`` (its columns centred first when ``center``), keeping ``U`` for the first ``rows`` rows only.

    Enough to rebuild any rank-k approximation of those rows (:func:`rank_k`)
    without a new decomposition, and to know its error for the whole matrix.
    The matrix is divided by its largest magnitude first and the mean and
    singular values multiplied back, so a matrix of 1e306s or 1e-300s has the
    layers of its shape rather than overflowing or underflowing.

    Examples
    --------
    >>> layers = svd_layers(np.arange(12.0).reshape(4, 3), center=True, rows=2)
    >>> layers.U.shape, layers.Vt.shape
    ((2, 3), (3, 3))
    >>> bool(np.allclose(svd_layers(np.eye(3) * 1e306).s, 1e306))
    True
    """
    X = np.asarray(X, dtype=np.float64)
    top = float(np.abs(X).max()) if X.size else 0.0
    top = top if np.isfinite(top) and top > 0 else 1.0
    X = X / top
    mean = X.mean(axis=0) if center else np.zeros(X.shape[1])
    U, s, Vt = np.linalg.svd(X - mean, full_matrices=False)
    keep = len(X) if rows is None else min(int(rows), len(X))
    return SvdLayers(mean * top, np.ascontiguousarray(U[:keep]), s * top, Vt)


def rank_k(layers: SvdLayers, k: int):
    """The best rank-k approximation of the kept rows and its relative Frobenius error on the whole matrix.

    The error comes from the singular values (Eckart-Young:
    ``sqrt(sum_{i>k} s_i^2 / sum_i s_i^2)``), scaled by the largest first so
    it neither overflows nor underflows; the mean is added back when the
    layers were centred, as in :func:`low_rank`.

    Examples
    --------
    >>> X = np.random.default_rng(0).standard_normal((6, 4))
    >>> Xk, err = rank_k(svd_layers(X), 2)
    >>> Xk_ref, err_ref = low_rank(X, 2)
    >>> bool(np.allclose(Xk, Xk_ref)) and abs(err - err_ref) < 1e-12
    True
    """
    k = _check_k(k, len(layers.s))
    Xk = (layers.U[:, :k] * layers.s[:k]) @ layers.Vt[:k] + layers.mean
    top = layers.s[0] if len(layers.s) else 0.0
    if not top > 0:
        return Xk, float("nan")
    s2 = (layers.s / top) ** 2
    return Xk, float(np.sqrt(s2[k:].sum() / s2.sum()))


def energy_profile(s, share: float = 0.8):
    """Cumulative energy of singular values ``s`` and the smallest k whose energy reaches ``share``.

    The same figures as :func:`svd_energy`, from the singular values, scaled
    so that magnitudes near the ends of floating point (1e306, 1e-300) still
    give shares. All-zero ``s`` gives NaN energy and k = 0.

    Examples
    --------
    >>> energy, k = energy_profile([3.0, 2.0, 1.0, 1.0])
    >>> np.round(energy, 3).tolist(), k
    ([0.6, 0.867, 0.933, 1.0], 2)
    >>> energy_profile([3e306, 1e306])[1]
    1
    """
    s = np.asarray(s, dtype=np.float64)
    top = s.max() if s.size else 0.0
    if not top > 0:
        return np.full(s.shape, np.nan), 0
    s2 = (s / top) ** 2
    energy = np.cumsum(s2) / s2.sum()
    return energy, int(min(np.searchsorted(energy, share) + 1, len(s)))


def grey_uint8(X) -> np.ndarray:
    """Grey levels in [0, 1] (clipped) as 8-bit pixels.

    Examples
    --------
    >>> grey_uint8([[-0.2, 0.5, 1.3]]).tolist()
    [[0, 128, 255]]
    """
    return np.rint(np.clip(np.asarray(X, dtype=np.float64), 0.0, 1.0) * 255).astype(np.uint8)


# --------------------------------------------------------------------------- autoencoders


@_one_blas_thread
def train_autoencoder(X, k: int, *, kind: str = "linear", noise: float = 0.0, hidden: int = 64,
                      max_iter: int = 400, random_state=0):
    """A bottleneck autoencoder (scikit-learn's MLPRegressor trained to output its input).

    kind "linear": one hidden layer of k identity units, so it can only learn
    a k-dimensional linear subspace (PCA's, at the optimum); it is trained by
    L-BFGS on the full batch, which gets within a degree of that subspace in a
    fraction of the time Adam's minibatches take. kind "nonlinear": hidden ->
    k -> hidden tanh layers, trained by Adam. ``noise`` > 0 trains a denoising
    autoencoder: Gaussian noise of that standard deviation (in standardised
    units) is added to the inputs while the targets stay clean.
    """
    from sklearn.neural_network import MLPRegressor

    if kind not in ("linear", "nonlinear"):
        raise ValueError(f"kind must be 'linear' or 'nonlinear', got {kind!r}.")
    X = np.asarray(X, dtype=np.float64)
    k = _check_k(k, X.shape[1])
    rng = np.random.default_rng(random_state)
    inputs = X + noise * rng.standard_normal(X.shape) if noise > 0 else X
    layers = (k,) if kind == "linear" else (hidden, k, hidden)
    if kind == "linear":
        model = MLPRegressor(hidden_layer_sizes=layers, activation="identity", solver="lbfgs", max_iter=max_iter,
                             tol=1e-7, random_state=random_state)
    else:
        model = MLPRegressor(hidden_layer_sizes=layers, activation="tanh", solver="adam", learning_rate_init=3e-3,
                             max_iter=max_iter, tol=1e-7, n_iter_no_change=30, random_state=random_state)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ConvergenceWarning: max_iter is the page's knob
        model.fit(inputs, X)
    return model


def autoencoder_subspace(model) -> np.ndarray:
    """Orthonormal basis (d, k) of the linear autoencoder's decoder: the subspace it reconstructs in."""
    W = model.coefs_[-1]  # (k, d): decoder weights
    Q, _ = np.linalg.qr(W.T)
    return Q


def principal_angles_deg(A, B) -> np.ndarray:
    """Principal angles (degrees) between the column spaces of A and B."""
    from scipy.linalg import subspace_angles

    return np.degrees(np.sort(subspace_angles(A, B)))


def reconstruction_mse(model, X, target=None) -> float:
    """Mean squared error of ``model.predict(X)`` against ``target`` (``X`` itself by default)."""
    X = np.asarray(X, dtype=np.float64)
    target = X if target is None else np.asarray(target, dtype=np.float64)
    return float(((model.predict(X) - target) ** 2).mean())


@_one_blas_thread
def linear_autoencoder_vs_pca(X, k: int, *, random_state=0):
    """Train a linear autoencoder with ``k`` units; return its principal angles to PCA's top-k subspace and its MSE.

    With one linear layer and squared loss the optimum spans PCA's subspace,
    so the angles (degrees, smallest first) measure how far the optimiser
    stopped from it.
    """
    X = np.asarray(X, dtype=np.float64)
    model = train_autoencoder(X, k, kind="linear", random_state=random_state)
    _, basis, _ = pca_basis(X, k)
    return principal_angles_deg(autoencoder_subspace(model), basis), reconstruction_mse(model, X)


def denoising_panel(X, models: dict, noise: float, *, n_show: int = 6, image_shape=(8, 8), random_state=0):
    """Corrupt ``n_show`` random rows of ``X`` and reconstruct them with each model.

    Returns ``(grid, stages, errors)``: the images side by side, one row of
    images per stage (``"original"``, ``"corrupted"``, then each model by its
    name in ``models``), the stages' names, and each stage's mean squared
    error against the originals.

    Examples
    --------
    >>> class Identity:
    ...     def predict(self, X):
    ...         return X
    >>> grid, stages, errors = denoising_panel(np.zeros((10, 4)), {"copy": Identity()}, 0.0, n_show=3,
    ...                                        image_shape=(2, 2))
    >>> grid.shape, stages, errors
    ((6, 6), ['original', 'corrupted', 'copy'], {'corrupted': 0.0, 'copy': 0.0})
    """
    X = np.asarray(X, dtype=np.float64)
    rng = np.random.default_rng(random_state)
    idx = rng.choice(len(X), n_show, replace=False)
    noisy = X[idx] + noise * rng.standard_normal((n_show, X.shape[1]))
    rows = {"original": X[idx], "corrupted": noisy, **{name: m.predict(noisy) for name, m in models.items()}}
    errors = {name: float(((v - X[idx]) ** 2).mean()) for name, v in rows.items() if name != "original"}
    grid = np.vstack([np.hstack([r.reshape(image_shape) for r in v]) for v in rows.values()])
    return grid, list(rows), errors


_DERIVATIVES = {
    "identity": lambda a: np.ones_like(a),
    "tanh": lambda a: 1.0 - a**2,
    "logistic": lambda a: a * (1.0 - a),
    "relu": lambda a: (a > 0).astype(np.float64),
}


def encoder_jacobian_norm(model, X) -> float:
    """The mean over the rows of ``||dz/dx||_F^2``: how much the bottleneck ``z`` moves when the input moves.

    ``model`` is a fitted MLPRegressor autoencoder; the bottleneck is its
    narrowest hidden layer, the encoder every layer up to it. The Jacobian
    of each row is the product of the layers' weights with the activations'
    derivatives between them, formed for all rows at once; its squared
    Frobenius norm is the contractive autoencoder's penalty (before the
    weight lambda).

    Examples
    --------
    >>> from sklearn.neural_network import MLPRegressor
    >>> X = np.random.default_rng(0).standard_normal((40, 3))
    >>> ae = MLPRegressor(hidden_layer_sizes=(2,), activation="identity", max_iter=5, random_state=0).fit(X, X)
    >>> bool(np.isclose(encoder_jacobian_norm(ae, X), (ae.coefs_[0] ** 2).sum()))
    True
    """
    X = np.asarray(X, dtype=np.float64)
    sizes = list(model.hidden_layer_sizes) if np.ndim(model.hidden_layer_sizes) else [model.hidden_layer_sizes]
    bottleneck = int(np.argmin(sizes))
    derivative = _DERIVATIVES[model.activation]
    a = X
    J = None  # (n, d, units): d(layer)/dx for every row
    for W, b in zip(model.coefs_[:bottleneck + 1], model.intercepts_[:bottleneck + 1]):
        a = _activate(model.activation, a @ W + b)
        step = W[None] * derivative(a)[:, None, :]
        J = step if J is None else J @ step
    return float((J ** 2).sum(axis=(1, 2)).mean())


def _activate(name: str, z: np.ndarray) -> np.ndarray:
    if name == "identity":
        return z
    if name == "tanh":
        return np.tanh(z)
    if name == "logistic":
        return 1.0 / (1.0 + np.exp(-z))
    if name == "relu":
        return np.maximum(z, 0.0)
    raise ValueError(f"Unknown activation {name!r}.")


# --------------------------------------------------------------------------- feature hashing


_PRIME = 2_147_483_647  # 2**31 - 1


def hash_matrix(n_features: int, width: int, random_state=0):
    """Sparse (n_features x width) matrix with one +-1 per row: feature i goes to bucket h(i) with sign s(i).

    h and s come from seeded universal hashing ``((a i + b) mod p) mod width``.
    """
    import scipy.sparse as sp

    if width < 1:
        raise ValueError(f"width must be at least 1, got {width}.")
    rng = np.random.default_rng(random_state)
    a1, b1, a2, b2 = (int(v) for v in rng.integers(1, _PRIME, 4))
    i = np.arange(n_features, dtype=np.int64)
    bucket = ((a1 * i + b1) % _PRIME) % width
    sign = np.where(((a2 * i + b2) % _PRIME) % 2 == 0, 1.0, -1.0)
    return sp.csr_array((sign, (i, bucket)), shape=(n_features, width))


def hashed_inner_product_error(X, widths, *, n_pairs: int = 2000, n_seeds: int = 5, random_state=0):
    """For each width: the error of hashed inner products relative to ||x|| ||y||, over random pairs.

    Returns a DataFrame with the mean signed error (bias, near 0: hashing is
    unbiased) and the root-mean-square error (which falls like 1/sqrt(width)).
    """
    import pandas as pd
    import scipy.sparse as sp

    X = sp.csr_array(X, dtype=np.float64)
    rng = np.random.default_rng(random_state)
    i = rng.integers(0, X.shape[0], n_pairs)
    j = rng.integers(0, X.shape[0], n_pairs)
    keep = i != j
    i, j = i[keep], j[keep]
    A, B = X[i], X[j]
    true = np.asarray(A.multiply(B).sum(axis=1)).ravel()
    norms = np.sqrt(np.asarray(A.multiply(A).sum(axis=1)).ravel() * np.asarray(B.multiply(B).sum(axis=1)).ravel())
    norms[norms == 0] = 1.0
    rows = []
    for w in widths:
        errs = []
        for s in range(n_seeds):
            H = hash_matrix(X.shape[1], int(w), random_state=random_state * 1000 + s)
            hA, hB = A @ H, B @ H
            est = np.asarray(hA.multiply(hB).sum(axis=1)).ravel()
            errs.append((est - true) / norms)
        e = np.concatenate(errs)
        rows.append({"width": int(w), "bias": float(e.mean()), "rmse": float(np.sqrt((e**2).mean()))})
    return pd.DataFrame(rows)


def inverse_sqrt_trend(widths, first: float) -> np.ndarray:
    """``first * sqrt(w_0 / w)`` along ``widths``: the 1/sqrt(w) trend through the first point.

    Examples
    --------
    >>> inverse_sqrt_trend([16, 64, 256], 0.4).tolist()
    [0.4, 0.2, 0.1]
    """
    w = np.asarray(widths, dtype=np.float64)
    return first * np.sqrt(w[0] / w)
