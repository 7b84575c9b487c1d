"""Kernels between category values: distances between each value's target distribution (1-Wasserstein, symmetric KL of smoothed histograms), the affinity exp(-gamma d), and the kernels that one-hot and label encoding amount to."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
import pandas as pd
from sklearn.utils import check_array
from sklearn.utils.extmath import svd_flip

from .._sparse import offsets_of


def median_distance(D) -> float:
    """The median of the positive distances between distinct categories (1.0 when there are none).

    The page's γ is relative to it: ``γ = 10**s / median_distance(D)``.

    Examples
    --------
    >>> median_distance(np.array([[0.0, 1.0, 3.0], [1.0, 0.0, 0.0], [3.0, 0.0, 0.0]]))
    2.0
    """
    D = np.asarray(D, dtype=np.float64)
    off = D[~np.eye(len(D), dtype=bool)]
    off = off[off > 0]
    return float(np.median(off)) if off.size else 1.0


def category_distributions(categories, target, transform: str | None = None):
    """Group a numeric target by category: (category values, sorted target arrays).

    ``transform="log1p"`` applies ``log(1 + y)`` first (for skewed, non-negative targets).

    Examples
    --------
    >>> cats, samples = category_distributions(["b", "a", "b", "a"], [6.0, 2.0, 5.0, 1.0])
    >>> cats.tolist(), [s.tolist() for s in samples]
    (['a', 'b'], [[1.0, 2.0], [5.0, 6.0]])
    """
    cats = pd.Series(np.asarray(categories, dtype=object).ravel())
    # scikit-learn's conversion refuses complex and non-numeric targets instead of casting them
    y = check_array(target, ensure_2d=False, dtype=np.float64, ensure_all_finite=False, input_name="target",
                    ensure_min_samples=0).ravel()
    if len(cats) != len(y):
        raise ValueError(f"Got {len(cats)} category values but {len(y)} target values; they must pair up.")
    if not np.all(np.isfinite(y)):
        raise ValueError("The target has NaN or infinite values; drop those rows first.")
    if cats.isna().any():
        raise ValueError("The category column has missing values; fill them (e.g. 'missing') or drop those rows.")
    if transform == "log1p":
        if (y <= -1).any():
            raise ValueError("log1p needs target values > -1; this target has smaller ones.")
        y = np.log1p(y)
    elif transform is not None:
        raise ValueError(f"transform must be None or 'log1p', got {transform!r}.")
    codes, uniques = _factorize(cats)
    order = np.lexsort((y, codes))
    bounds = np.searchsorted(codes[order], np.arange(len(uniques) + 1))
    ys = y[order]
    return np.asarray(uniques, dtype=object), [ys[bounds[i] : bounds[i + 1]] for i in range(len(uniques))]


def _factorize(values: pd.Series):
    """Sorted distinct values and each value's position among them; a clear TypeError for unusable labels."""
    try:
        return pd.factorize(values, sort=True)
    except TypeError:
        kinds = sorted({type(v).__name__ for v in values})
        raise TypeError(f"Category values must be strings or numbers (each argument must be a string or a "
                        f"number, comparable with the others); got values of type {', '.join(kinds)}.") from None


def wasserstein_distances(samples: list[np.ndarray], *, method: str = "auto", n_jobs: int | None = None) -> np.ndarray:
    """Pairwise 1-Wasserstein distances between the empirical distributions of ``samples``. Exact.

    Two exact computations, chosen by their cost:

    * ``"cdf"``: the samples' counts on the sorted distinct values of all of
      them, compared by :func:`wasserstein_from_counts`: cheap when the
      target takes few distinct values (amounts, counts, ratings).
    * ``"quantile"``: ``W1(i, j) = integral_0^1 |Q_i(q) - Q_j(q)| dq``, walking
      the two sorted samples' quantile steps together (compiled with numba,
      parallel over pairs): cheap when the values are all distinct.

    ``n_jobs``: threads for either computation (None: one; -1: every core).
    The distances are the same whatever the number.

    Examples
    --------
    >>> wasserstein_distances([np.array([1.0, 2.0]), np.array([5.0, 6.0])]).tolist()
    [[0.0, 4.0], [4.0, 0.0]]
    """
    sizes = np.array([len(s) for s in samples])
    if (sizes == 0).any():
        raise ValueError(f"Category {int(np.flatnonzero(sizes == 0)[0])} has no target values.")
    n_cat = len(samples)
    pooled = np.concatenate(samples)
    support = np.unique(pooled)
    if support.size < 2:
        return np.zeros((n_cat, n_cat))
    if method == "auto":
        # measured: ~0.44 ns per (pair, support value) for cdf, ~0.8 ns per quantile step
        cdf_cost = 0.44 * n_cat * n_cat * support.size
        quantile_cost = 0.8 * n_cat * pooled.size
        method = "cdf" if cdf_cost <= quantile_cost else "quantile"
    if method == "cdf":
        owner = np.repeat(np.arange(n_cat), sizes)
        pos = np.searchsorted(support, pooled)
        counts = np.bincount(owner * support.size + pos, minlength=n_cat * support.size)
        return wasserstein_from_counts(support, counts.reshape(n_cat, support.size), n_jobs=n_jobs)
    if method == "quantile":
        flat = np.ascontiguousarray(np.concatenate([np.sort(s) for s in samples]), dtype=np.float64)
        D = _quantile_w1(flat, offsets_of(sizes), n_jobs)
        return D + D.T
    raise ValueError(f"method must be 'auto', 'cdf' or 'quantile', got {method!r}.")


def _quantile_w1(flat: np.ndarray, starts: np.ndarray, n_jobs: int | None) -> np.ndarray:
    """The compiled all-pairs W1 on ``n_jobs`` threads; numba's own default would take every core."""
    import numba
    from joblib import effective_n_jobs

    from .._numba_kernels import pairwise_quantile_w1

    before = numba.get_num_threads()  # numba's thread count is the calling thread's own
    numba.set_num_threads(max(1, min(effective_n_jobs(n_jobs), numba.config.NUMBA_NUM_THREADS)))
    try:
        return pairwise_quantile_w1(flat, starts)
    finally:
        numba.set_num_threads(before)


def wasserstein_from_counts(support, counts, *, n_jobs: int | None = None) -> np.ndarray:
    """Pairwise 1-Wasserstein distances between histograms on a common sorted support.

    ``W1(i, j) = sum_t |F_i(x_t) - F_j(x_t)| (x_{t+1} - x_t)``: every row's CDF
    is its cumulative counts over its total, evaluated once on the support,
    and the pairs are weighted L1 distances between the rows. Counts add up
    over parts of the data, so per-partition counts summed give the same
    distances as the whole data (:func:`embedcore.batch.category_kernel`).

    Parameters
    ----------
    support : (t,) array, strictly increasing values
    counts : (m, t) array of non-negative counts (or weights), each row with a positive total
    n_jobs : int or None
        Threads for the pairwise distances (``sklearn.metrics.pairwise_distances``).

    Examples
    --------
    >>> wasserstein_from_counts([0.0, 1.0, 3.0], [[1, 0, 0], [0, 1, 0], [0, 0, 2]])
    array([[0., 1., 3.],
           [1., 0., 2.],
           [3., 2., 0.]])
    """
    from sklearn.metrics import pairwise_distances

    support = np.asarray(support, dtype=np.float64)
    counts = np.asarray(counts)
    if counts.ndim != 2 or counts.shape[1] != support.size:
        raise ValueError(f"counts must be (categories x {support.size} support values); got shape {counts.shape}.")
    if support.size > 1 and not (np.diff(support) > 0).all():
        raise ValueError("The support must be strictly increasing.")
    sizes = counts.sum(axis=1)
    if (counts < 0).any() or not (sizes > 0).all():
        raise ValueError("Every row of counts needs non-negative counts with a positive total.")
    if support.size < 2:
        return np.zeros((counts.shape[0], counts.shape[0]))
    cdf = np.cumsum(counts, axis=1)[:, :-1] / sizes[:, None]
    return pairwise_distances(cdf * np.diff(support)[None, :], metric="cityblock", n_jobs=n_jobs)


def category_histograms(samples: list[np.ndarray], *, bins: int = 32,
                        value_range: tuple[float, float] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Each category's values counted on one grid of ``bins`` equal bins: (bin edges, counts).

    The grid spans the pooled range of every category's values (or
    ``value_range``), so two rows of ``counts`` count the same intervals and
    can be compared bin by bin. A value on the top edge goes in the last bin.

    Returns
    -------
    edges : (bins + 1,) array
    counts : (categories, bins) array of float counts

    Examples
    --------
    >>> edges, counts = category_histograms([np.array([0.0, 0.1]), np.array([1.0])], bins=2)
    >>> edges.tolist(), counts.tolist()
    ([0.0, 0.5, 1.0], [[2.0, 0.0], [0.0, 1.0]])
    """
    if isinstance(bins, bool) or not isinstance(bins, Integral) or bins < 2:
        raise ValueError(f"bins must be a whole number of at least 2, got {bins!r}.")
    sizes = np.array([len(s) for s in samples])
    if len(samples) == 0 or (sizes == 0).any():
        raise ValueError("Every category needs at least one target value to have a histogram.")
    pooled = np.concatenate(samples).astype(np.float64)
    lo, hi = value_range if value_range is not None else (float(pooled.min()), float(pooled.max()))
    if hi <= lo:
        hi = lo + 1.0
    edges = np.linspace(lo, hi, int(bins) + 1)
    owner = np.repeat(np.arange(len(samples)), sizes)
    b = np.clip(np.searchsorted(edges, pooled, side="right") - 1, 0, int(bins) - 1)
    counts = np.bincount(owner * int(bins) + b, minlength=len(samples) * int(bins)).astype(np.float64)
    return edges, counts.reshape(len(samples), int(bins))


def smoothed_distributions(counts, smoothing: float) -> np.ndarray:
    """The probabilities the KL kernel compares: ``p_i(b) = (n_i(b) + s) / (n_i + B s)``.

    Adding ``s`` (the smoothing) to each of the ``B`` bins keeps every
    probability above 0, so ``log(p_i / p_j)`` is finite; a larger ``s`` pulls
    a rare category's histogram towards the uniform one.

    Examples
    --------
    >>> smoothed_distributions(np.array([[3.0, 0.0]]), 0.5).tolist()
    [[0.875, 0.125]]
    """
    if not isinstance(smoothing, Real) or not np.isfinite(smoothing) or smoothing <= 0:
        raise ValueError(f"smoothing must be a number > 0 (an empty bin would make the divergence infinite); "
                         f"got {smoothing!r}.")
    P = np.asarray(counts, dtype=np.float64) + float(smoothing)
    return P / P.sum(axis=1, keepdims=True)


def symmetric_kl_distances(samples: list[np.ndarray], *, bins: int = 32, smoothing: float = 0.5,
                           value_range: tuple[float, float] | None = None) -> np.ndarray:
    """Pairwise symmetric KL divergence ``KL(p_i||p_j) + KL(p_j||p_i)`` of smoothed histograms.

    Each category's values are binned on a common grid of ``bins`` equal bins
    over the pooled range (:func:`category_histograms`); ``smoothing`` is added
    to every bin count so no probability is zero (:func:`smoothed_distributions`).
    One matrix product gives all pairs:
    ``D = a_i + a_j - (P log P^T)_ij - (P log P^T)_ji`` with ``a_i = sum p_i log p_i``.

    Examples
    --------
    >>> D = symmetric_kl_distances([np.array([1.0, 2.0]), np.array([5.0, 6.0])], bins=2)
    >>> D.round(3).tolist()
    [[0.0, 2.146], [2.146, 0.0]]
    """
    if isinstance(bins, Integral) and not isinstance(bins, bool) and bins < 2:
        raise ValueError(f"bins must be at least 2, got {bins}.")
    if isinstance(smoothing, Real) and smoothing <= 0:
        raise ValueError("smoothing must be > 0: an empty bin would make the divergence infinite.")
    _, counts = category_histograms(samples, bins=bins, value_range=value_range)
    return symmetric_kl_from_counts(counts, smoothing)


def symmetric_kl_from_counts(counts: np.ndarray, smoothing: float) -> np.ndarray:
    """Symmetric KL divergence between every pair of rows of a histogram matrix (categories x bins).

    ``smoothing`` is added to every count before the rows are normalised.

    Examples
    --------
    >>> D = symmetric_kl_from_counts(np.array([[5, 0], [0, 5], [5, 0]]), 0.5)
    >>> bool(D[0, 2] == 0 and D[0, 1] > 0 and np.allclose(D, D.T))
    True
    """
    P = smoothed_distributions(counts, smoothing)
    L = np.log(P)
    a = (P * L).sum(axis=1)
    cross = P @ L.T
    D = a[:, None] + a[None, :] - cross - cross.T
    np.fill_diagonal(D, 0.0)
    return np.maximum(D, 0.0)


def kernel_from_distances(D, gamma: float) -> np.ndarray:
    """Affinity ``exp(-gamma * D)`` with a zero diagonal (no self-loops).

    Examples
    --------
    >>> kernel_from_distances(np.array([[0.0, 1.0], [1.0, 0.0]]), 2.0).round(4)
    array([[0.    , 0.1353],
           [0.1353, 0.    ]])
    """
    if not isinstance(gamma, Real) or not np.isfinite(gamma) or gamma <= 0:
        raise ValueError(f"gamma must be a positive number, got {gamma!r}.")
    D = np.asarray(D, dtype=np.float64)
    if (D < 0).any():
        raise ValueError("Distances must be >= 0.")
    K = np.exp(-gamma * D)
    np.fill_diagonal(K, 0.0)
    return K


def _check_n(n) -> int:
    if isinstance(n, bool) or not isinstance(n, Integral) or n < 2:
        raise ValueError(f"n (the number of categories) must be a whole number of at least 2, got {n!r}.")
    return int(n)


def one_hot_kernel(n: int) -> np.ndarray:
    """The kernel one-hot encoding assumes: ``K(i, j) = 1`` if ``i = j``, else 0 (the identity).

    No category is like any other, so the graph has no edges between
    categories: every node is its own connected component, ``L = 0`` and
    every eigenvalue is 0. Any orthonormal basis is then an eigenbasis;
    :func:`laplacian_spectrum` returns the components' indicators, which are
    the one-hot columns, so the spectral code is one-hot with its first
    column dropped (all of it with ``keep_trivial``).

    Examples
    --------
    >>> one_hot_kernel(3)
    array([[1., 0., 0.],
           [0., 1., 0.],
           [0., 0., 1.]])
    """
    return np.eye(_check_n(n))


def all_alike_kernel(n: int) -> np.ndarray:
    """Every pair of distinct categories equally alike: ``K(i, j) = 1`` for ``i != j`` (the complete graph).

    The other way to read one-hot's assumption. The normalised Laplacian is
    ``(n I - J) / (n - 1)``: eigenvalue 0 once (the constant direction) and
    ``n / (n - 1)`` ``n - 1`` times. With no gap after the first, any
    orthonormal basis of the rest is as good as any other: the code is
    arbitrary (a rotation the solver happens to return).

    Examples
    --------
    >>> all_alike_kernel(3)
    array([[0., 1., 1.],
           [1., 0., 1.],
           [1., 1., 0.]])
    """
    n = _check_n(n)
    return np.ones((n, n)) - np.eye(n)


def order_distances(n: int) -> np.ndarray:
    """``|i - j|``: the distance label encoding puts between the ``i``-th and ``j``-th category.

    ``kernel_from_distances(order_distances(n), gamma)`` is the kernel
    ``exp(-gamma |i - j|)`` that label encoding corresponds to.

    Examples
    --------
    >>> order_distances(3)
    array([[0., 1., 2.],
           [1., 0., 1.],
           [2., 1., 0.]])
    """
    i = np.arange(_check_n(n), dtype=np.float64)
    return np.abs(i[:, None] - i[None, :])


def path_spectrum(n: int) -> tuple[np.ndarray, np.ndarray]:
    """The normalised Laplacian's spectrum of the path ``0 - 1 - ... - (n-1)``, in closed form.

    On the path the random walk ``D^{-1} A`` averages each node's two
    neighbours (an end node has one), and ``f(i) = cos(pi k i / (n - 1))``
    satisfies ``D^{-1} A f = cos(pi k / (n - 1)) f`` at every node, ends
    included. So ``L = I - D^{-1/2} A D^{-1/2}`` has eigenvalues
    ``1 - cos(pi k / (n - 1))``, ``k = 0 .. n-1``, and eigenvectors
    ``D^{1/2} f`` (normalised). As gamma grows, ``exp(-gamma |i - j|)``
    is dominated by its nearest-neighbour terms and its spectrum tends to this.

    Returns
    -------
    eigenvalues : (n,) array, ascending
    eigenvectors : (n, n) array, columns of unit length, the largest-magnitude entry positive

    Examples
    --------
    >>> vals, vecs = path_spectrum(3)
    >>> vals.round(6).tolist()
    [0.0, 1.0, 2.0]
    """
    n = _check_n(n)
    k = np.arange(n)
    i = np.arange(n)
    f = np.cos(np.pi * np.outer(i, k) / (n - 1))
    degree = np.full(n, 2.0)
    degree[[0, -1]] = 1.0
    vecs = np.sqrt(degree)[:, None] * f
    vecs /= np.linalg.norm(vecs, axis=0, keepdims=True)
    vecs, _ = svd_flip(vecs, None)
    return 1.0 - np.cos(np.pi * k / (n - 1)), vecs
