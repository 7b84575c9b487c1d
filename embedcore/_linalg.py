"""Linear-algebra helpers shared across techniques (a leaf: it imports nothing from embedcore)."""

from __future__ import annotations

import numpy as np
from sklearn.utils.extmath import svd_flip

__all__ = ["pca_basis", "check_k"]


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
