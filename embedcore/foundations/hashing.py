"""Feature hashing: a random hashing matrix and the error it makes in inner products as the width grows (about 1/sqrt(width))."""

from __future__ import annotations

import numpy as np

_PRIME = 2_147_483_647  # 2**31 - 1


def hash_matrix(n_features: int, width: int, random_state=0):
    """Sparse (n_features x width) matrix with one +-1 per row: feature i goes to bucket h(i) with sign s(i).

    h and s come from seeded universal hashing ``((a i + b) mod p) mod width``.

    Examples
    --------
    >>> H = hash_matrix(5, 3, random_state=0)
    >>> H.shape, np.abs(H.toarray()).sum(axis=1).tolist()  # one signed 1 per feature
    ((5, 3), [1.0, 1.0, 1.0, 1.0, 1.0])
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

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(50, 200))
    >>> table = hashed_inner_product_error(X, [16, 64], n_pairs=200, n_seeds=2)
    >>> table["width"].tolist(), bool(table["rmse"].iloc[1] < table["rmse"].iloc[0])
    ([16, 64], True)
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
