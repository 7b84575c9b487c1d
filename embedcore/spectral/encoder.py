"""SpectralCategoryEncoder: each category value coded by the smooth eigenvectors of its kernel's normalised Laplacian, kept up to the eigengap."""

from __future__ import annotations

from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from .graph import eigengap, laplacian_spectrum, n_connected_components
from .._params import keep_parameters
from .kernels import (
    category_distributions,
    kernel_from_distances,
    median_distance,
    symmetric_kl_distances,
    symmetric_kl_from_counts,
    wasserstein_distances,
    wasserstein_from_counts,
)


def code_columns(eigenvalues, n_components="eigengap", keep_trivial: bool = False,
                 n_nodes: int | None = None) -> list[int]:
    """Which eigenvectors (column indices, ascending eigenvalue) make the spectral code.

    The first eigenvector, ``D^{1/2} 1``, says nothing about the categories (it
    only reflects degrees) and is collinear with a linear model's intercept:
    it is dropped unless ``keep_trivial``. When the graph has several connected
    components, the zero eigenvalue's eigenvectors are the components'
    indicators: they carry which component a category is in, so all but the
    first are kept (with the intercept they determine the first). Then come
    ``n_components`` non-trivial eigenvectors (``"eigengap"``: those below the
    largest gap), as many as the graph has. ``n_nodes``: the graph's size when
    ``eigenvalues`` holds only its smallest ones (:func:`.graph.code_spectrum`).

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
    n = vals.size if n_nodes is None else int(n_nodes)
    n_zero = max(n_connected_components(vals), 1)
    k = eigengap(vals, n_nodes=n) if isinstance(n_components, str) else int(n_components)
    k = max(0, min(k, n - n_zero))
    if n_zero == 1:
        k = max(k, 1) if n > 1 else 0
    return list(range(0 if keep_trivial else 1, n_zero)) + list(range(n_zero, n_zero + k)) or [0]


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

    Examples
    --------
    >>> choose_code([0.0, 0.0, 0.4, 1.6]).n_connected
    2
    """

    columns: list[int]
    n_connected: int
    eigengap_k: int
    gap_after: int | None


def choose_code(eigenvalues, n_components="eigengap", keep_trivial: bool = False,
                n_nodes: int | None = None) -> CodeChoice:
    """Choose the code's eigenvectors and report the components and the gap behind the choice.

    Parameters
    ----------
    eigenvalues : array-like
        The normalised Laplacian's spectrum, ascending.
    n_components : "eigengap" or int
        Non-trivial eigenvectors to keep (see :func:`code_columns`).
    keep_trivial : bool
        Also keep the first eigenvector.
    n_nodes : int, optional
        The graph's size when ``eigenvalues`` holds only its smallest ones
        (:func:`.graph.code_spectrum`).

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
    n = vals.size if n_nodes is None else int(n_nodes)
    n_cc = n_connected_components(vals)
    k_gap = eigengap(vals, n_nodes=n)
    gap_at = max(n_cc, 1) + k_gap
    return CodeChoice(code_columns(vals, n_components, keep_trivial, n), n_cc, k_gap,
                      gap_at if gap_at < n else None)


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


def code_agreement(code, A) -> float:
    """How well a code keeps a similarity: the rank (Spearman) correlation, over every pair of categories, between
    their affinity ``A[i, j]`` and how close their codes are (minus the Euclidean distance between the rows of
    ``code``). 1: the more alike two categories, the nearer their codes, for every pair; 0: no relation; NaN when
    either side is constant (fewer than three categories, or every affinity equal).

    Examples
    --------
    >>> A = np.array([[0, 3.0, 1.0], [3.0, 0, 2.0], [1.0, 2.0, 0]])
    >>> code_agreement(np.array([[0.0], [0.1], [0.5]]), A)
    1.0
    >>> code_agreement(np.array([[0.0], [0.5], [0.1]]), A)  # the most alike pair is the furthest apart
    -1.0
    """
    from scipy.spatial.distance import pdist
    from scipy.stats import spearmanr

    code = np.asarray(code, dtype=np.float64)
    if code.ndim == 1:
        code = code[:, None]
    A = np.asarray(A, dtype=np.float64)
    if A.shape != (len(code), len(code)):
        raise ValueError(f"A must be {len(code)} x {len(code)} (one row per category of the code), got {A.shape}.")
    i, j = np.triu_indices(len(code), 1)
    closeness, affinity = -pdist(code), A[i, j]
    if closeness.size < 2 or np.ptp(closeness) == 0 or np.ptp(affinity) == 0:
        return float("nan")
    return float(spearmanr(affinity, closeness)[0])


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


class SpectralCategoryEncoder(TransformerMixin, BaseEstimator):
    """Encode categorical columns by the smooth eigenvectors of a category-similarity graph.

    Parameters
    ----------
    kernel : {"wasserstein", "kl", "precomputed"}, default="wasserstein"
        How alike two category values are: learned from the target's
        distribution within each value (1-Wasserstein or symmetric KL), or
        given as ``affinity`` (a square matrix over ``categories``).
    gamma : float or "median", default=1.0
        Kernel width: affinity ``exp(-gamma * distance)``. ``"median"``: one
        over the median distance between a column's categories
        (:func:`median_distance`), a width that follows the distances' own
        scale. Not used with a precomputed affinity.
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
    distances_ : list of (m, m) arrays, or None for a precomputed affinity
        The distances between the categories' target distributions.
    gammas_ : list of float, or None for a precomputed affinity
        The kernel width used per column (``gamma``, or the one ``"median"`` gave).
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
        "gamma": [Interval(Real, 0, None, closed="neither"), StrOptions({"median"})],
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
        keep_parameters(self, locals())

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

    def _given_kernel(self):
        """The precomputed kernel's categories and affinity matrix, checked against each other."""
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

    def _column_distances(self, col: np.ndarray, y):
        """One column's categories and the distances between their target distributions."""
        cats, samples = category_distributions(col, y, self.target_transform)
        if self.kernel == "wasserstein":
            return cats, wasserstein_distances(samples, n_jobs=self.n_jobs)
        return cats, symmetric_kl_distances(samples, bins=self.bins, smoothing=self.smoothing)

    def _width(self, D: np.ndarray) -> float:
        """The kernel width for one column's distances."""
        return 1.0 / median_distance(D) if self.gamma == "median" else float(self.gamma)

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
        self._start_columns()
        for j in range(X.shape[1]):
            if self.kernel == "precomputed":
                cats, A = self._given_kernel()
                self._add_column(cats, A, category_frequencies(X[:, j], cats))
            else:
                cats, D = self._column_distances(X[:, j], y)
                self._add_column(cats, D, category_frequencies(X[:, j], cats), learned=True)
        return self

    @classmethod
    def from_statistics(cls, categories, counts, support=None, *, feature_name: str | None = None,
                        **params) -> SpectralCategoryEncoder:
        """A fitted encoder of one column from its categories' target counts: what ``fit`` on that table gives.

        The learned kernels need only how often each category meets each target
        value, and counts add up over parts of a table, so counts summed over
        partitions (or kept from a database query) give the encoder ``fit``
        would give on the whole table, without its rows.

        Parameters
        ----------
        categories : (m,) array-like
            The category values, in the order ``fit`` lists them (sorted).
        counts : (m, t) array-like of non-negative counts
            For ``kernel="wasserstein"``: rows per category at each value of
            ``support``. For ``kernel="kl"``: rows per category in each of the
            ``bins`` equal bins over the target's range
            (:func:`~embedcore.spectral.category_histograms`). Counts of the
            target after ``target_transform``, which is recorded as given.
            For ``kernel="precomputed"`` (with ``affinity=``, whose rows are
            ``categories``): rows per category, (m,) or (m, 1), the weights
            of the unseen-value code.
        support : (t,) array-like, strictly increasing, optional
            The target value of each column of ``counts`` (the Wasserstein kernel needs it).
        feature_name : str, optional
            The column's name, kept as ``feature_names_in_``.
        **params
            The estimator's parameters (``kernel``, ``gamma``, ``n_components``, ...).

        Returns
        -------
        SpectralCategoryEncoder
            Fitted on one column; unseen values get the mean code weighted by each
            category's rows (its row of ``counts`` summed).

        Examples
        --------
        >>> days = np.array(["Mon", "Sat", "Sun", "Tue"] * 25)
        >>> tips = np.where(np.isin(days, ["Sat", "Sun"]), 5.0, 2.0) + np.tile([0.0, 0.1, 0.2, 0.3, 0.4], 20)
        >>> support = np.unique(tips)
        >>> cats = np.unique(days)
        >>> counts = np.array([[np.sum((days == c) & (tips == v)) for v in support] for c in cats])
        >>> enc = SpectralCategoryEncoder.from_statistics(cats, counts, support, gamma=1.0)
        >>> fitted = SpectralCategoryEncoder(gamma=1.0).fit(days.reshape(-1, 1), tips)
        >>> bool(np.allclose(enc.transform([["Sat"], ["Mon"]]), fitted.transform([["Sat"], ["Mon"]])))
        True
        """
        if params.get("kernel") == "precomputed":  # the affinity's rows are the categories given
            params = dict(params, categories=categories)
        enc = cls(**params)
        enc._validate_params()
        cats = np.asarray(categories, dtype=object).ravel()
        counts = np.asarray(counts, dtype=np.float64)
        if enc.kernel == "precomputed" and counts.ndim == 1:
            counts = counts[:, None]
        if counts.ndim != 2 or counts.shape[0] != len(cats):
            raise ValueError(f"counts must have one row per category ({len(cats)}); got shape {counts.shape}.")
        if not pd.Index(cats).is_unique:
            raise ValueError(f"categories names {pd.Index(cats)[pd.Index(cats).duplicated()][0]!r} twice.")
        if not np.isfinite(counts).all() or (counts < 0).any():
            raise ValueError("counts must be finite and 0 or more.")
        totals = counts.sum(axis=1)
        if (totals == 0).any():
            raise ValueError(f"Category {cats[int(np.flatnonzero(totals == 0)[0])]!r} has no target values.")
        enc._start_columns()
        if enc.kernel == "precomputed":
            enc._add_column(cats, enc._given_kernel()[1], totals / totals.sum())
        elif enc.kernel == "wasserstein":
            if support is None:
                raise ValueError("kernel='wasserstein' needs support=: the target value each column of counts counts.")
            D = wasserstein_from_counts(support, counts, n_jobs=enc.n_jobs)
            enc._add_column(cats, D, totals / totals.sum(), learned=True)
        else:
            if counts.shape[1] != enc.bins:
                raise ValueError(f"kernel='kl' compares histograms of bins={enc.bins} bins; counts has "
                                 f"{counts.shape[1]} columns.")
            D = symmetric_kl_from_counts(counts, enc.smoothing)
            enc._add_column(cats, D, totals / totals.sum(), learned=True)
        enc.n_features_in_ = 1
        if feature_name is not None:
            enc.feature_names_in_ = np.array([feature_name], dtype=object)
        return enc

    def _start_columns(self) -> None:
        self.categories_, self.affinity_, self.eigenvalues_, self.embedding_, self.n_components_ = [], [], [], [], []
        self.frequencies_, self.distances_, self.gammas_ = [], [], []

    def _add_column(self, cats, kernel, frequencies, learned: bool = False) -> None:
        """One column's spectrum and code from its categories, each category's share of the rows, and either
        the affinity (given) or the distances the affinity is learned from (``learned``)."""
        if len(cats) < 2:
            raise ValueError(f"A column has a single category ({cats[0]!r}); there is nothing to encode.")
        D, gamma = (kernel, self._width(kernel)) if learned else (None, None)
        A = kernel_from_distances(D, gamma) if learned else kernel
        vals, vecs = laplacian_spectrum(A, labels=cats)
        kept = code_columns(vals, self.n_components, self.keep_trivial)
        self.categories_.append(cats)
        self.distances_.append(D)
        self.gammas_.append(gamma)
        self.affinity_.append(A)
        self.eigenvalues_.append(vals)
        self.embedding_.append(spectral_code(vecs, kept, self.normalize))
        self.n_components_.append(len(kept))
        self.frequencies_.append(np.asarray(frequencies, dtype=np.float64))

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
