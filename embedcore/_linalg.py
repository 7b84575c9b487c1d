"""Linear-algebra helpers shared across techniques (a leaf: it imports nothing from embedcore)."""

from __future__ import annotations

import functools

import numpy as np
from sklearn.utils.extmath import svd_flip

__all__ = ["pca_basis", "one_blas_thread", "check_k"]


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
    basis = svd_flip(None, vt[:k], u_based_decision=False)[1].T
    return mean, basis, s[:k] ** 2 / max(len(X) - 1, 1)


@functools.cache
def blas_controller():
    import scipy.linalg  # noqa: F401  (loads SciPy's own BLAS, which L-BFGS uses, so the controller sees it)
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def one_blas_thread(func):
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
        with blas_controller().limit(limits=1, user_api="blas"):
            return func(*args, **kwargs)

    return wrapper


def check_k(k, d):
    """``k`` as an int, when 1 <= k <= d (a number of components of d-dimensional data); else a ValueError.

    Examples
    --------
    >>> check_k(2, 3)
    2
    """
    if not 1 <= k <= d:
        raise ValueError(f"k must be between 1 and the number of features ({d}); got {k}.")
    return int(k)
