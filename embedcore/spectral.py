"""Spectral encoding of categorical features, and spectral clustering of the same graph.

A categorical column's values become the nodes of a graph whose edge weights
say how alike two values are (a kernel, given or learned from the data). The
normalised graph Laplacian ``L = I - D^{-1/2} A D^{-1/2}`` has eigenvalues in
[0, 2]; its eigenvectors with small eigenvalues vary slowly over the graph, so
alike values get alike coordinates. Keeping the smooth eigenvectors below the
largest gap in the spectrum gives each value a short dense code.

Learned kernels compare, for every pair of category values, the distribution
of a numeric target within each value: a symmetric Kullback-Leibler
divergence of smoothed histograms, or the 1-Wasserstein distance. The
affinity is ``exp(-gamma * distance)`` with a zero diagonal.
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy.linalg import eigh, eigvalsh
from scipy.sparse.linalg import eigsh
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils import check_array
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.extmath import svd_flip
from sklearn.utils.validation import check_is_fitted, check_random_state, validate_data

from ._sparse import offsets_of

__all__ = [
    "normalized_laplacian",
    "laplacian_spectrum",
    "n_connected_components",
    "connected_components",
    "code_columns",
    "CodeChoice",
    "choose_code",
    "eigengap",
    "gamma_sweep",
    "candidate_columns",
    "complete_rows",
    "median_distance",
    "category_distributions",
    "wasserstein_distances",
    "wasserstein_from_counts",
    "symmetric_kl_distances",
    "symmetric_kl_from_counts",
    "category_histograms",
    "smoothed_distributions",
    "one_hot_kernel",
    "all_alike_kernel",
    "order_distances",
    "path_spectrum",
    "spectral_code",
    "kernel_from_distances",
    "category_frequencies",
    "SpectralCategoryEncoder",
    "fiedler_vector",
    "fiedler_order",
    "fiedler_sweep",
    "lowest_conductance_cut",
    "spectral_clusters",
    "compare_category_encodings",
]

_DENSE_LIMIT = 1500  # up to this many nodes a full dense eigendecomposition is cheap


def _labels(n: int, labels) -> list[str]:
    return [str(v) for v in labels] if labels is not None else [str(i) for i in range(n)]


def _check_affinity(A, labels=None):
    """Validate a symmetric, non-negative affinity matrix; return it and its degrees."""
    is_sparse = sp.issparse(A)
    if is_sparse:
        A = sp.csr_array(A, dtype=np.float64)
    else:
        A = np.asarray(A, dtype=np.float64)
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError(f"The affinity matrix must be square (categories x categories); got shape {A.shape}.")
    n = A.shape[0]
    names = _labels(n, labels)
    values = A.data if is_sparse else A
    if not np.all(np.isfinite(values)):
        raise ValueError("The affinity matrix has NaN or infinite entries; every pair needs a finite similarity.")
    if (values < 0).any():
        if is_sparse:
            coo = A.tocoo()
            k = int(np.flatnonzero(coo.data < 0)[0])
            i, j = int(coo.row[k]), int(coo.col[k])
        else:
            i, j = (int(v) for v in np.argwhere(A < 0)[0])
        raise ValueError(
            f"The affinity between {names[i]!r} and {names[j]!r} is {A[i, j]:g}; affinities must be >= 0 "
            "(a similarity, not a correlation). Shift or clip them first."
        )
    asym = abs(A - A.T)
    worst = asym.max() if not is_sparse else (asym.max() if asym.nnz else 0.0)
    scale = max(float(abs(A).max()) if (not is_sparse or A.nnz) else 1.0, 1e-300)
    if worst > 1e-8 * scale:
        if is_sparse:
            asym = asym.toarray()
        i, j = (int(v) for v in np.unravel_index(np.argmax(asym), asym.shape))
        raise ValueError(
            f"The affinity matrix is not symmetric: A[{names[i]!r}, {names[j]!r}] = {A[i, j]:g} but "
            f"A[{names[j]!r}, {names[i]!r}] = {A[j, i]:g}. Use (A + A.T) / 2."
        )
    degree = np.asarray(A.sum(axis=1)).ravel()
    return A, degree


def _inv_sqrt(degree: np.ndarray) -> np.ndarray:
    """``d^{-1/2}``, and 0 for an isolated node (degree 0)."""
    out = np.zeros_like(degree, dtype=np.float64)
    np.divide(1.0, np.sqrt(degree), out=out, where=degree > 0)
    return out


def connected_components(A, labels=None) -> list[list[str]]:
    """The graph's connected components as lists of category names, largest first.

    An isolated category (no similarity to any other, e.g. when a large gamma
    makes every affinity underflow to 0) is a component on its own.

    Examples
    --------
    >>> A = np.array([[0, 1.0, 0], [1.0, 0, 0], [0, 0, 0]])
    >>> connected_components(A, ["mon", "tue", "sun"])
    [['mon', 'tue'], ['sun']]
    """
    A, _ = _check_affinity(A, labels)
    names = _labels(A.shape[0], labels)
    comp = _component_labels(A)
    groups = [np.flatnonzero(comp == c) for c in range(comp.max() + 1)]
    groups.sort(key=lambda g: (-len(g), g[0]))
    return [[names[i] for i in g] for g in groups]


def _component_labels(A) -> np.ndarray:
    from scipy.sparse.csgraph import connected_components as cc

    graph = sp.csr_array(A) if sp.issparse(A) else sp.csr_array(np.asarray(A) > 0)
    return cc(graph, directed=False)[1]


def normalized_laplacian(A, labels=None):
    """``I - D^{-1/2} A D^{-1/2}`` of a symmetric non-negative affinity matrix (dense or sparse).

    An isolated node (degree 0) gets a zero row and column, as in
    ``scipy.sparse.csgraph.laplacian``: it is a connected component of its
    own, with its own zero eigenvalue.

    Examples
    --------
    >>> normalized_laplacian(np.array([[0.0, 1.0], [1.0, 0.0]]))
    array([[ 1., -1.],
           [-1.,  1.]])
    """
    A, degree = _check_affinity(A, labels)
    inv_sqrt = _inv_sqrt(degree)
    n = A.shape[0]
    eye = (degree > 0).astype(np.float64)
    if sp.issparse(A):
        Dm = sp.dia_array((inv_sqrt[None, :], [0]), shape=(n, n))
        return sp.csr_array(sp.dia_array((eye[None, :], [0]), shape=(n, n)) - Dm @ A @ Dm)
    return np.diag(eye) - inv_sqrt[:, None] * A * inv_sqrt[None, :]


def laplacian_spectrum(A, n_components: int | None = None, labels=None, random_state=0):
    """Eigenvalues (ascending) and eigenvectors (columns) of the normalised Laplacian.

    With ``n_components=None`` every eigenpair is returned (dense solver).
    Otherwise only the ``n_components`` smallest: a dense symmetric solver for
    small graphs, and for large ones Lanczos iterations (``eigsh``) on the
    normalised adjacency ``D^{-1/2} A D^{-1/2}``, whose largest eigenvalues are
    ``1 - `` the Laplacian's smallest; that converges fast where the
    Laplacian's bottom is crowded.

    When the graph has several connected components, the zero eigenvalue is
    repeated and any basis of its eigenspace is valid; the one returned is the
    components' indicators (``D^{1/2} 1_C``, normalised, largest component
    first), so each of those eigenvectors says "in this component or not".
    """
    A, degree = _check_affinity(A, labels)
    n = A.shape[0]
    k = n if n_components is None else int(n_components)
    if not 1 <= k <= n:
        raise ValueError(f"n_components must be between 1 and the number of categories ({n}); got {n_components}.")
    inv_sqrt = _inv_sqrt(degree)
    isolated = (degree <= 0).astype(np.float64)
    if k == n or n <= _DENSE_LIMIT or k >= n // 3:
        dense = A.toarray() if sp.issparse(A) else A
        L = np.diag(1.0 - isolated) - inv_sqrt[:, None] * dense * inv_sqrt[None, :]
        L = (L + L.T) / 2
        vals, vecs = eigh(L, subset_by_index=[0, k - 1]) if k < n else eigh(L)
    else:
        # an isolated node gets 1 on the diagonal of S, i.e. a zero eigenvalue of L
        if sp.issparse(A):
            Dm = sp.dia_array((inv_sqrt[None, :], [0]), shape=(n, n))
            S = Dm @ A @ Dm + sp.dia_array((isolated[None, :], [0]), shape=(n, n))
        else:
            S = inv_sqrt[:, None] * A * inv_sqrt[None, :] + np.diag(isolated)
        v0 = check_random_state(random_state).uniform(-1, 1, n)
        mu, vecs = eigsh(S, k=k, which="LA", v0=v0, tol=1e-10)
        vals = 1.0 - mu
        order = np.argsort(vals)
        vals, vecs = vals[order], vecs[:, order]
    vals = np.clip(vals, 0.0, 2.0)
    n_zero = n_connected_components(vals)
    if n_zero > 1:
        comp = _component_labels(A)
        sizes = np.bincount(comp)
        if len(sizes) == n_zero or (n_zero == vals.size and len(sizes) >= n_zero):
            rank = sorted(range(len(sizes)), key=lambda c: (-sizes[c], np.flatnonzero(comp == c)[0]))
            root = np.sqrt(np.where(degree > 0, degree, 1.0))
            for j, c in enumerate(rank[:n_zero]):
                ind = np.where(comp == c, root, 0.0)
                vecs[:, j] = ind / np.linalg.norm(ind)
    # deterministic signs: the largest-magnitude entry of each eigenvector is positive
    vecs, _ = svd_flip(vecs, None)
    return vals, vecs


def n_connected_components(eigenvalues, tol: float = 1e-8) -> int:
    """Connected components of the graph: the multiplicity of the Laplacian's zero eigenvalue.

    Examples
    --------
    >>> n_connected_components([0.0, 1e-12, 0.7, 1.3])
    2
    """
    return int(np.sum(np.asarray(eigenvalues) < tol))


def code_columns(eigenvalues, n_components="eigengap", keep_trivial: bool = False) -> list[int]:
    """Which eigenvectors (column indices, ascending eigenvalue) make the spectral code.

    The first eigenvector, ``D^{1/2} 1``, says nothing about the categories (it
    only reflects degrees) and is collinear with a linear model's intercept:
    it is dropped unless ``keep_trivial``. When the graph has several connected
    components, the zero eigenvalue's eigenvectors are the components'
    indicators: they carry which component a category is in, so all but the
    first are kept (with the intercept they determine the first). Then come
    ``n_components`` non-trivial eigenvectors (``"eigengap"``: those below the
    largest gap), as many as the graph has.

    Examples
    --------
    >>> code_columns([0.0, 0.57, 1.09, 1.26, 1.27, 1.31, 1.51])
    [1]
    >>> code_columns([0.0, 0.0, 0.4, 1.6], n_components=1)
    [1, 2]
    >>> code_columns([0.0, 0.0, 0.0], keep_trivial=True)
    [0, 1, 2]
    """
    vals = np.asarray(eigenvalues, dtype=np.float64)
    n = vals.size
    n_zero = max(n_connected_components(vals), 1)
    k = eigengap(vals) if isinstance(n_components, str) else int(n_components)
    k = max(0, min(k, n - n_zero))
    if n_zero == 1:
        k = max(k, 1) if n > 1 else 0
    return list(range(0 if keep_trivial else 1, n_zero)) + list(range(n_zero, n_zero + k)) or [0]


def eigengap(eigenvalues, max_k: int | None = None, tol: float = 1e-8) -> int:
    """How many non-trivial eigenvectors to keep: those below the largest gap.

    The zero eigenvalues (one per connected component) are trivial and skipped;
    among the next ``max_k + 1`` eigenvalues, the largest difference between
    neighbours marks the gap.

    Examples
    --------
    >>> eigengap([0.0, 0.57, 1.09, 1.26, 1.27, 1.31, 1.51])
    1
    """
    ev = np.sort(np.asarray(eigenvalues, dtype=np.float64))
    start = n_connected_components(ev, tol)
    rest = ev[start:]
    if rest.size <= 1:
        return int(rest.size)
    if max_k is None:
        max_k = max(1, rest.size // 2)
    window = rest[: max_k + 1]
    return int(np.argmax(np.diff(window)) + 1)


class CodeChoice(NamedTuple):
    """The spectral code chosen from a spectrum, with what a reader needs to see why.

    Attributes
    ----------
    columns : list of int
        Eigenvector columns (ascending eigenvalue) that make the code, as :func:`code_columns`.
    n_connected : int
        Connected components: how many eigenvalues are zero.
    eigengap_k : int
        Non-trivial eigenvectors below the largest gap, as :func:`eigengap`.
    gap_after : int or None
        The largest gap lies between eigenvalues ``gap_after`` and ``gap_after + 1``
        (counted from 1); None when no eigenvalue follows it.
    """

    columns: list[int]
    n_connected: int
    eigengap_k: int
    gap_after: int | None


def choose_code(eigenvalues, n_components="eigengap", keep_trivial: bool = False) -> CodeChoice:
    """Choose the code's eigenvectors and report the components and the gap behind the choice.

    Parameters
    ----------
    eigenvalues : array-like
        The normalised Laplacian's spectrum, ascending.
    n_components : "eigengap" or int
        Non-trivial eigenvectors to keep (see :func:`code_columns`).
    keep_trivial : bool
        Also keep the first eigenvector.

    Returns
    -------
    CodeChoice

    Examples
    --------
    >>> choose_code([0.0, 0.57, 1.09, 1.26, 1.27, 1.31, 1.51])
    CodeChoice(columns=[1], n_connected=1, eigengap_k=1, gap_after=2)
    >>> choose_code([0.0, 0.0, 0.4, 1.6], n_components=1).columns
    [1, 2]
    """
    vals = np.asarray(eigenvalues, dtype=np.float64)
    n_cc = n_connected_components(vals)
    k_gap = eigengap(vals)
    gap_at = max(n_cc, 1) + k_gap
    return CodeChoice(code_columns(vals, n_components, keep_trivial), n_cc, k_gap,
                      gap_at if gap_at < vals.size else None)


def gamma_sweep(D, gamma: float, factors=(0.01, 0.1, 1.0, 10.0, 100.0)) -> pd.DataFrame:
    """The Laplacian's spectrum of ``exp(-gamma * f * D)`` for each factor ``f``.

    Shows what γ does to the spectrum: a small γ bunches every eigenvalue but
    the first near ``n/(n-1)``, a large one spreads them over [0, 2] and, once
    affinities underflow, adds a zero per component the graph falls into.

    Returns
    -------
    DataFrame
        One row per (factor, eigenvalue): columns ``factor``, ``index``
        (1-based, ascending) and ``eigenvalue``.

    Examples
    --------
    >>> D = np.array([[0.0, 1.0, 2.0], [1.0, 0.0, 1.0], [2.0, 1.0, 0.0]])
    >>> sweep = gamma_sweep(D, 1.0, factors=(1.0, 1000.0))
    >>> sweep.groupby("factor")["eigenvalue"].apply(lambda v: int((v < 1e-8).sum())).tolist()
    [1, 3]
    """
    frames = []
    for f in factors:
        A = kernel_from_distances(D, gamma * f)
        L = normalized_laplacian(A)
        vals = np.clip(eigvalsh((L + L.T) / 2), 0.0, 2.0)
        frames.append(pd.DataFrame({"factor": float(f), "index": np.arange(1, vals.size + 1), "eigenvalue": vals}))
    return pd.concat(frames, ignore_index=True)


def candidate_columns(frame: pd.DataFrame, max_levels: int = 30) -> tuple[list[str], list[str]]:
    """A table's columns that can be the category and those that can be the target.

    A category is any non-numeric column, or a numeric one with at most
    ``max_levels`` distinct values (a party size, a year); a target is any
    integer or real column.

    Examples
    --------
    >>> frame = pd.DataFrame({"day": ["Mon", "Sat"], "size": [2, 3], "tip": [1.5, 3.25]})
    >>> candidate_columns(frame)
    (['day', 'size', 'tip'], ['size', 'tip'])
    """
    cats = [c for c in frame.columns if frame[c].dtype.kind not in "fiub" or frame[c].nunique() <= max_levels]
    nums = [c for c in frame.columns if frame[c].dtype.kind in "fiu"]
    return cats, nums


def complete_rows(frame: pd.DataFrame, column: str, target: str) -> tuple[pd.DataFrame, int, int]:
    """The rows with both a category and a target: (those rows, how many were left out, distinct values).

    Examples
    --------
    >>> frame = pd.DataFrame({"day": ["Mon", None, "Sat", "Mon"], "tip": [1.0, 2.0, None, 3.0]})
    >>> rows, dropped, levels = complete_rows(frame, "day", "tip")
    >>> len(rows), dropped, levels
    (2, 2, 1)
    """
    clean = frame.dropna(subset=[column, target])
    return clean, len(frame) - len(clean), int(clean[column].astype(str).nunique())


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


# --------------------------------------------------------------------------- learned kernels


def category_distributions(categories, target, transform: str | None = None):
    """Group a numeric target by category: (category values, sorted target arrays).

    ``transform="log1p"`` applies ``log(1 + y)`` first (for skewed, non-negative targets).
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

    from ._numba_kernels import pairwise_quantile_w1

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


# --------------------------------------------------------------------------- special cases


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


def spectral_code(eigenvectors, columns, normalize: bool = False) -> np.ndarray:
    """The code: the kept eigenvector columns, with each row (category) scaled to unit length if ``normalize``.

    The full eigenvector matrix is orthogonal, so each category's row of it
    has length 1; keeping only some columns shortens the rows by different
    amounts. Normalising puts every category back on the unit sphere, so only
    the direction of its code counts (the step Ng, Jordan and Weiss add
    before k-means). The columns need no normalising: each is an eigenvector
    of unit length, and dropping others does not change that. A category
    whose kept entries are all 0 keeps a zero code.

    Examples
    --------
    >>> U = np.array([[0.6, 0.8], [0.8, -0.6]])
    >>> spectral_code(U, [1], normalize=True).tolist()
    [[1.0], [-1.0]]
    """
    from sklearn.preprocessing import normalize as unit_rows

    code = np.asarray(eigenvectors, dtype=np.float64)[:, list(columns)]
    return unit_rows(code) if normalize else code


def category_frequencies(values, categories) -> np.ndarray:
    """Each category's share of ``values`` (uniform when none of them occurs).

    The weights of the mean code :class:`SpectralCategoryEncoder` gives a
    value it did not see in ``fit``; a batch run gives them from its counts.

    Examples
    --------
    >>> category_frequencies(["a", "b", "a", "z"], ["a", "b", "c"])
    array([0.66666667, 0.33333333, 0.        ])
    """
    idx = pd.Index(categories).get_indexer(np.asarray(values, dtype=object).ravel())
    counts = np.bincount(idx[idx >= 0], minlength=len(categories)).astype(np.float64)
    total = counts.sum()
    return counts / total if total else np.full(len(categories), 1.0 / len(categories))


# --------------------------------------------------------------------------- the encoder


class SpectralCategoryEncoder(TransformerMixin, BaseEstimator):
    """Encode categorical columns by the smooth eigenvectors of a category-similarity graph.

    Parameters
    ----------
    kernel : {"wasserstein", "kl", "precomputed"}, default="wasserstein"
        How alike two category values are: learned from the target's
        distribution within each value (1-Wasserstein or symmetric KL), or
        given as ``affinity`` (a square matrix over ``categories``).
    gamma : float, default=1.0
        Kernel width: affinity ``exp(-gamma * distance)``. Not used with a
        precomputed affinity.
    n_components : "eigengap" or int, default="eigengap"
        Non-trivial eigenvectors kept per column; "eigengap" keeps those
        below the largest gap in the spectrum.
    keep_trivial : bool, default=False
        Also keep the first (constant-direction) eigenvector; harmless for
        trees, collinear with the intercept for linear models.
    normalize : bool, default=False
        Scale each category's code (its row of kept eigenvectors) to unit
        length (:func:`spectral_code`).
    target_transform : {None, "log1p"}, default=None
    bins, smoothing : histogram settings of the KL kernel.
    affinity, categories : the precomputed kernel and the category value of each of its rows.
    handle_unknown : {"mean", "error"}, default="mean"
        A value not seen in ``fit`` is encoded as the frequency-weighted mean
        of the training codes (the centre of what was seen), or is an error.
    n_jobs : int or None, default=None
        Threads for the Wasserstein distances (None: one, -1: every core).

    Attributes
    ----------
    categories_ : list of arrays, one per input column
    affinity_ : list of (m, m) arrays
    eigenvalues_ : list of arrays (the full spectrum, ascending)
    embedding_ : list of (m, k) arrays, the code of each category value
    n_components_ : list of int
    frequencies_ : list of (m,) arrays
        Each category's share of the fitted rows (:func:`category_frequencies`):
        the weights of the mean code an unseen value gets.
    n_features_in_ : int
    feature_names_in_ : array of str, when X is a DataFrame with string column names

    Input is a 2-D table of category values (strings or numbers; a
    DataFrame's columns or an array's), with a real, finite target for the
    learned kernels. Missing values, complex numbers and an empty table are
    refused; a single column is passed as a one-column table, as to
    scikit-learn's own encoders.

    Examples
    --------
    >>> days = np.array(["Mon", "Tue", "Sat", "Sun"] * 25)
    >>> tips = np.where(np.isin(days, ["Sat", "Sun"]), 5.0, 2.0) + np.tile([0.0, 0.1, 0.2, 0.3, 0.4], 20)
    >>> enc = SpectralCategoryEncoder(gamma=1.0).fit(days.reshape(-1, 1), tips)
    >>> enc.transform([["Sat"], ["Sun"], ["Mon"]]).shape
    (3, 1)
    """

    _parameter_constraints: dict = {
        "kernel": [StrOptions({"wasserstein", "kl", "precomputed"})],
        "gamma": [Interval(Real, 0, None, closed="neither")],
        "n_components": [StrOptions({"eigengap"}), Interval(Integral, 1, None, closed="left")],
        "keep_trivial": ["boolean"],
        "normalize": ["boolean"],
        "target_transform": [None, StrOptions({"log1p"})],
        "bins": [Interval(Integral, 2, None, closed="left")],
        "smoothing": [Interval(Real, 0, None, closed="neither")],
        "affinity": ["array-like", None],
        "categories": ["array-like", None],
        "handle_unknown": [StrOptions({"mean", "error"})],
        "n_jobs": [None, Integral],
    }

    def __init__(
        self,
        *,
        kernel: str = "wasserstein",
        gamma: float = 1.0,
        n_components="eigengap",
        keep_trivial: bool = False,
        normalize: bool = False,
        target_transform: str | None = None,
        bins: int = 32,
        smoothing: float = 0.5,
        affinity=None,
        categories=None,
        handle_unknown: str = "mean",
        n_jobs: int | None = None,
    ):
        self.kernel = kernel
        self.gamma = gamma
        self.n_components = n_components
        self.keep_trivial = keep_trivial
        self.normalize = normalize
        self.target_transform = target_transform
        self.bins = bins
        self.smoothing = smoothing
        self.affinity = affinity
        self.categories = categories
        self.handle_unknown = handle_unknown
        self.n_jobs = n_jobs

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.target_tags.required = self.kernel != "precomputed"
        return tags

    def _validate_table(self, X, y=None, *, reset: bool):
        """The table as a 2-D array (and the target as floats), by scikit-learn's rules plus no missing category."""
        if isinstance(X, pd.DataFrame) and X.isna().to_numpy().any():
            raise ValueError("Input X contains NaN (a missing category); fill it (e.g. 'missing') or drop those rows.")
        if sp.issparse(X):
            raise TypeError("Sparse input is not supported: pass the category columns as a dense table.")
        learned = reset and self.kernel != "precomputed"
        if learned:
            X, y = validate_data(self, X, y, dtype=None, ensure_min_samples=2, y_numeric=True)
        else:
            X = validate_data(self, X, dtype=None, reset=reset)
        if X.dtype == object and pd.isna(X).any():
            raise ValueError("Input X contains NaN or None (a missing category); fill it (e.g. 'missing') or "
                             "drop those rows.")
        return X, y

    def _column_kernel(self, col: np.ndarray, y):
        """One column's categories and affinity matrix."""
        if self.kernel == "precomputed":
            if self.affinity is None or self.categories is None:
                raise ValueError("kernel='precomputed' needs affinity= (a square matrix) and categories= "
                                 "(its row labels).")
            cats = np.asarray(self.categories, dtype=object).ravel()
            A = np.asarray(self.affinity, dtype=np.float64)
            if A.shape != (len(cats), len(cats)):
                raise ValueError(f"affinity has shape {A.shape} but there are {len(cats)} categories.")
            if not pd.Index(cats).is_unique:
                dup = pd.Index(cats)[pd.Index(cats).duplicated()][0]
                raise ValueError(f"categories= names {dup!r} twice; each row of the affinity is one category.")
            return cats, A
        cats, samples = category_distributions(col, y, self.target_transform)
        if self.kernel == "wasserstein":
            D = wasserstein_distances(samples, n_jobs=self.n_jobs)
        else:
            D = symmetric_kl_distances(samples, bins=self.bins, smoothing=self.smoothing)
        return cats, kernel_from_distances(D, self.gamma)

    def fit(self, X, y=None):
        """Learn each column's categories, kernel, spectrum and codes.

        Parameters
        ----------
        X : 2-D array-like or DataFrame of category values, (n_samples, n_features)
        y : array-like of real numbers, (n_samples,)
            The target whose distribution within each category the learned
            kernels compare; not used with ``kernel="precomputed"``.
        """
        self._validate_params()
        if self.kernel != "precomputed" and y is None:
            raise ValueError(f"{type(self).__name__} with kernel={self.kernel!r} requires y to be passed, but the "
                             "target y is None: it learns similarities from the target, so call fit(X, y).")
        X, y = self._validate_table(X, y, reset=True)
        self.categories_, self.affinity_, self.eigenvalues_, self.embedding_, self.n_components_ = [], [], [], [], []
        self.frequencies_ = []
        for j in range(X.shape[1]):
            cats, A = self._column_kernel(X[:, j], y)
            if len(cats) < 2:
                raise ValueError(f"A column has a single category ({cats[0]!r}); there is nothing to encode.")
            vals, vecs = laplacian_spectrum(A, labels=cats)
            kept = code_columns(vals, self.n_components, self.keep_trivial)
            self.categories_.append(cats)
            self.affinity_.append(A)
            self.eigenvalues_.append(vals)
            self.embedding_.append(spectral_code(vecs, kept, self.normalize))
            self.n_components_.append(len(kept))
            self.frequencies_.append(category_frequencies(X[:, j], cats))
        return self

    def transform(self, X) -> np.ndarray:
        """Codes of each row's category values, columns concatenated."""
        check_is_fitted(self, "embedding_")
        X, _ = self._validate_table(X, reset=False)
        out = []
        for j, (cats, emb, freq) in enumerate(zip(self.categories_, self.embedding_, self.frequencies_)):
            col = X[:, j]
            idx = pd.Index(cats).get_indexer(col)
            unknown = idx < 0
            if unknown.any() and self.handle_unknown == "error":
                value = col[int(np.flatnonzero(unknown)[0])]
                raise ValueError(f"Category {getattr(value, 'item', lambda: value)()!r} was not seen in fit.")
            rows = emb[np.where(unknown, 0, idx)]
            rows[unknown] = freq @ emb
            out.append(rows)
        return np.hstack(out)

    def get_feature_names_out(self, input_features=None) -> np.ndarray:
        check_is_fitted(self, "embedding_")
        if input_features is None:
            input_features = getattr(self, "feature_names_in_", [f"x{i}" for i in range(self.n_features_in_)])
        return np.array(
            [f"{name}_spectral{j}" for name, k in zip(input_features, self.n_components_) for j in range(k)],
            dtype=object,
        )


# --------------------------------------------------------------------------- clustering


def fiedler_vector(A, eigenvectors=None) -> np.ndarray:
    """Each category's Fiedler value ``D^{-1/2} u_2`` (0 for an isolated category).

    ``u_2`` is the normalised Laplacian's second eigenvector; scaled by
    ``D^{-1/2}`` it is the relaxed solution of the normalised cut, so
    sorting by it puts alike categories next to each other.
    ``eigenvectors``: the Laplacian's eigenvectors (ascending), if already
    computed by :func:`laplacian_spectrum`.

    Examples
    --------
    >>> A = np.array([[0, 1.0, 0.1], [1.0, 0, 0.1], [0.1, 0.1, 0]])
    >>> v = fiedler_vector(A)
    >>> bool(np.sign(v[0]) == np.sign(v[1]) != np.sign(v[2]))
    True
    """
    A, degree = _check_affinity(A)
    n = A.shape[0]
    if n < 2:
        return np.zeros(n)
    vecs = eigenvectors if eigenvectors is not None else laplacian_spectrum(A, n_components=2)[1]
    return vecs[:, 1] * _inv_sqrt(degree)


def fiedler_order(A, eigenvectors=None) -> np.ndarray:
    """The categories' indices sorted by their Fiedler value (a stable sort).

    Reordering the affinity matrix by it shows the graph's blocks along the
    diagonal; a threshold along it is the sweep cut of :func:`fiedler_sweep`.

    Examples
    --------
    >>> names = ["mon", "sat", "tue", "sun"]
    >>> A = np.array([[0, 0.1, 1.0, 0], [0.1, 0, 0.1, 1.0], [1.0, 0.1, 0, 0.1], [0, 1.0, 0.1, 0]])
    >>> [names[i] for i in fiedler_order(A)]
    ['sun', 'sat', 'tue', 'mon']
    """
    return np.argsort(fiedler_vector(A, eigenvectors), kind="stable")


def lowest_conductance_cut(sweep: pd.DataFrame) -> tuple[int, float] | None:
    """The sweep cut of least conductance: (its row in ``sweep``, the conductance), or None.

    ``sweep`` is :func:`fiedler_sweep`'s table; its last row (everything on one
    side) is no cut. None when no cut has a conductance (every side has zero
    volume, e.g. when no category is similar to any other).

    Examples
    --------
    >>> sweep = pd.DataFrame({"conductance": [0.8, 0.2, 0.5, np.nan]})
    >>> lowest_conductance_cut(sweep)
    (1, 0.2)
    """
    cond = np.asarray(sweep["conductance"], dtype=np.float64)[:-1]
    if not np.isfinite(cond).any():
        return None
    best = int(np.nanargmin(cond))
    return best, float(cond[best])


def fiedler_sweep(A, labels=None, eigenvectors=None) -> pd.DataFrame:
    """Order categories by the Fiedler vector and sweep a cut along that order.

    Returns one row per category in Fiedler order: its value of ``D^{-1/2} v_2``
    and, for the cut that puts it and everything before it on one side, the
    cut weight and the conductance ``cut / min(vol(S), vol(S'))``.
    ``eigenvectors``: the Laplacian's eigenvectors (ascending) if already
    computed by :func:`laplacian_spectrum`, to avoid solving again.
    """
    A, degree = _check_affinity(A, labels)
    dense = A.toarray() if sp.issparse(A) else A
    n = dense.shape[0]
    names = _labels(n, labels)
    fiedler = fiedler_vector(dense, eigenvectors)
    order = np.argsort(fiedler, kind="stable")
    P = dense[np.ix_(order, order)]
    deg = degree[order]
    inner = np.tril(P, -1).sum(axis=1)  # weight from each node to the nodes before it
    cut = np.cumsum(deg - 2 * inner)
    vol = np.cumsum(deg)
    total = vol[-1]
    denom = np.minimum(vol, total - vol)
    with np.errstate(divide="ignore", invalid="ignore"):
        conductance = np.where(denom > 0, cut / denom, np.nan)
    return pd.DataFrame(
        {"category": [names[i] for i in order], "fiedler": fiedler[order], "cut": cut, "conductance": conductance}
    )


def spectral_clusters(A, n_clusters: int, labels=None, random_state=0, eigenvectors=None) -> np.ndarray:
    """k-way spectral clustering: k-means on the row-normalised first ``n_clusters`` eigenvectors.

    ``eigenvectors``: as in :func:`fiedler_sweep`, reused when given.
    """
    from sklearn.cluster import KMeans
    from sklearn.preprocessing import normalize

    A, _ = _check_affinity(A, labels)
    n = A.shape[0]
    if not 1 <= n_clusters <= n:
        raise ValueError(f"n_clusters must be between 1 and the number of categories ({n}), got {n_clusters}.")
    if eigenvectors is not None:
        vecs = eigenvectors[:, :n_clusters]
    else:
        vecs = laplacian_spectrum(A, n_components=n_clusters)[1]
    rows = normalize(vecs)
    return KMeans(n_clusters=n_clusters, n_init=10, random_state=random_state).fit_predict(rows)


def compare_category_encodings(
    frame: pd.DataFrame,
    column: str,
    target: str,
    *,
    encoder_params: dict | None = None,
    cv: int = 5,
    random_state=0,
    progress=None,
    n_jobs: int | None = None,
) -> pd.DataFrame:
    """Cross-validated R^2 of a tree model and a linear model with three encodings of ``column``.

    Encodings: one-hot, ordinal (categories in sorted order) and spectral
    (:class:`SpectralCategoryEncoder` with ``encoder_params``, refitted inside
    every training fold, so the target never leaks). The table's other
    numeric columns (not the target) are passed through unchanged.
    ``n_jobs``: threads of the random forest (None: one, -1: every core).
    """
    import time

    from sklearn.compose import ColumnTransformer
    from sklearn.ensemble import RandomForestRegressor
    from sklearn.linear_model import RidgeCV
    from sklearn.model_selection import KFold, cross_val_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder, OrdinalEncoder, StandardScaler

    if column not in frame or target not in frame:
        raise ValueError(f"The table needs the columns {column!r} and {target!r}.")
    data = frame.dropna(subset=[column, target])
    others = [c for c in data.select_dtypes("number").columns if c not in (column, target)]
    data = data.dropna(subset=others)
    X = data[[column] + others].copy()
    X[column] = X[column].astype(str)
    y = data[target].to_numpy(dtype=np.float64)
    if len(data) < cv * 2:
        raise ValueError(f"Only {len(data)} complete rows: {cv}-fold cross-validation needs at least {cv * 2}.")
    encoders = {
        "one-hot": OneHotEncoder(handle_unknown="ignore"),
        "ordinal": OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1),
        "spectral": SpectralCategoryEncoder(**(encoder_params or {})),
    }
    models = {
        "random forest": lambda: RandomForestRegressor(n_estimators=100, min_samples_leaf=3, random_state=random_state,
                                                         n_jobs=n_jobs),
        "ridge": lambda: make_pipeline(StandardScaler(with_mean=False), RidgeCV(alphas=np.logspace(-3, 3, 13))),
    }
    folds = KFold(n_splits=cv, shuffle=True, random_state=random_state)
    rows, jobs = [], [(m, e) for m in models for e in encoders]
    for i, (model_name, enc_name) in enumerate(jobs):
        from sklearn.base import clone

        pre = ColumnTransformer([(enc_name, clone(encoders[enc_name]), [column])], remainder="passthrough")
        pipe = make_pipeline(pre, models[model_name]())
        t = time.perf_counter()
        scores = cross_val_score(pipe, X, y, cv=folds, scoring="r2")
        width = pre.fit(X, y).transform(X).shape[1] - len(others)
        rows.append({"model": model_name, "encoding": enc_name, "r2": float(scores.mean()),
                     "r2_std": float(scores.std()), "columns": int(width), "seconds": time.perf_counter() - t})
        if progress is not None:
            progress((i + 1) / len(jobs), f"{model_name} + {enc_name}")
    return pd.DataFrame(rows)
