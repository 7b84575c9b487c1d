"""The linear-algebra foundations, written to teach: PCA two ways, random projections,
SVD energy, autoencoders and feature hashing. scikit-learn and SciPy do the heavy lifting."""

from __future__ import annotations

import numpy as np

__all__ = [
    "pca_basis", "standardize", "eigen_pca", "greedy_pca", "jl_min_dim", "random_projection",
    "distance_distortion", "pca_vs_jl", "svd_energy", "low_rank", "train_autoencoder",
    "autoencoder_subspace", "principal_angles_deg", "hash_matrix", "hashed_inner_product_error",
]


def pca_basis(X, n_components: int = 2):
    """Mean, the top principal directions (d x k, orthonormal columns) and their variances.

    Examples
    --------
    >>> X = np.array([[0.0, 0.0], [2.0, 0.0], [4.0, 0.1]])
    >>> mean, basis, var = pca_basis(X, 1)
    >>> np.round(np.abs(basis[:, 0]), 2).tolist()
    [1.0, 0.02]
    """
    X = np.asarray(X, dtype=np.float64)
    mean = X.mean(axis=0)
    _, s, vt = np.linalg.svd(X - mean, full_matrices=False)
    k = min(n_components, vt.shape[0])
    # a deterministic sign: the largest loading of each direction is positive
    signs = np.sign(vt[np.arange(k), np.abs(vt[:k]).argmax(axis=1)])
    basis = (vt[:k] * signs[:, None]).T
    return mean, basis, s[:k] ** 2 / max(len(X) - 1, 1)


# --------------------------------------------------------------------------- PCA, two ways


def standardize(X):
    """Centre every feature and scale it to unit variance (constant features are left at 0)."""
    X = np.asarray(X, dtype=np.float64)
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
    comps = _fix_signs(vecs[:, order].T)
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
    return _fix_signs(np.array(comps)), np.array(variances)


def _check_k(k, d):
    if not 1 <= k <= d:
        raise ValueError(f"k must be between 1 and the number of features ({d}); got {k}.")
    return int(k)


def _fix_signs(comps):
    idx = np.abs(comps).argmax(axis=1)
    return comps * np.sign(comps[np.arange(len(comps)), idx])[:, None]


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
    from sklearn.random_projection import GaussianRandomProjection, SparseRandomProjection

    if kind not in ("gaussian", "sparse"):
        raise ValueError(f"kind must be 'gaussian' or 'sparse', got {kind!r}.")
    cls = GaussianRandomProjection if kind == "gaussian" else SparseRandomProjection
    proj = cls(n_components=int(k), random_state=random_state)
    Y = proj.fit_transform(X)
    return np.asarray(Y.toarray() if hasattr(Y, "toarray") else Y)


def distance_distortion(X, Y, n_pairs: int = 5000, random_state=0) -> np.ndarray:
    """Ratios ``||y_i - y_j||^2 / ||x_i - x_j||^2`` over random pairs of distinct points."""
    X = np.asarray(X, dtype=np.float64)
    Y = np.asarray(Y, dtype=np.float64)
    rng = np.random.default_rng(random_state)
    i = rng.integers(0, len(X), n_pairs)
    j = rng.integers(0, len(X), n_pairs)
    dx = ((X[i] - X[j]) ** 2).sum(axis=1)
    keep = dx > 0
    dy = ((Y[i] - Y[j]) ** 2).sum(axis=1)
    return dy[keep] / dx[keep]


def pca_vs_jl(X, ks, *, random_state=0, n_pairs: int = 3000):
    """For each k: relative reconstruction error and distance distortion of PCA and of a Gaussian JL map.

    Reconstruction of JL: the orthogonal projection onto the random subspace
    (the best any linear decoder can do from the k random coordinates).
    """
    import pandas as pd

    X = np.asarray(X, dtype=np.float64)
    Xc = X - X.mean(axis=0)
    total = (Xc**2).sum()
    _, s, vt = np.linalg.svd(Xc, full_matrices=False)
    rng = np.random.default_rng(random_state)
    rows = []
    for k in ks:
        k = int(k)
        V = vt[:k].T
        pca_err = 1 - (s[:k] ** 2).sum() / total
        R = rng.standard_normal((X.shape[1], k)) / np.sqrt(k)
        Q, _ = np.linalg.qr(R)
        jl_err = ((Xc - Xc @ Q @ Q.T) ** 2).sum() / total
        d_pca = distance_distortion(Xc, Xc @ V, n_pairs, random_state)
        d_jl = distance_distortion(Xc, Xc @ R, n_pairs, random_state)
        rows.append({"k": k, "pca_reconstruction": pca_err, "jl_reconstruction": jl_err,
                     "pca_distortion": float(np.median(np.abs(d_pca - 1))),
                     "jl_distortion": float(np.median(np.abs(d_jl - 1)))})
    return pd.DataFrame(rows)


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


# --------------------------------------------------------------------------- autoencoders


def train_autoencoder(X, k: int, *, kind: str = "linear", noise: float = 0.0, hidden: int = 64,
                      max_iter: int = 400, random_state=0):
    """A bottleneck autoencoder (scikit-learn's MLPRegressor trained to output its input).

    kind "linear": one hidden layer of k identity units, so it can only learn
    a k-dimensional linear subspace (PCA's, at the optimum). kind "nonlinear":
    hidden -> k -> hidden tanh layers. ``noise`` > 0 trains a denoising
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
    model = MLPRegressor(hidden_layer_sizes=layers, activation="identity" if kind == "linear" else "tanh",
                         solver="adam", learning_rate_init=1e-2 if kind == "linear" else 3e-3,
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
