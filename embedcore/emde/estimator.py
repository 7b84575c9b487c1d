"""EMDE, the estimator: random hyperplanes cut the item space, a set becomes the sum of its items' bucket codes (see :mod:`embedcore.emde`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from numbers import Integral

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin, _fit_context, clone
from sklearn.utils._param_validation import Interval, Options, StrOptions
from sklearn.utils.validation import (
    check_array,
    check_is_fitted,
    check_random_state,
    validate_data,
)

from .._params import keep_parameters
from .._sparse import (
    flat_weights,
    flatten,
    index_dtype,
    narrow,
    offsets_of,
    ragged_to_csr,
    stack_rows,
)

#: Largest K of a fixed-width sketch: 2**24 columns per partitioning is already far beyond any useful sketch.
MAX_HYPERPLANES = 24
#: Largest K with ``drop_empty``: codes stay exact in float64 products (2**53) and every
#: (partitioning, code) pair fits one int64 key for N up to 2**14.
MAX_OCCUPIED_HYPERPLANES = 48
#: Largest sketch width N * 2**K (columns of a sparse matrix; 2**31 is scipy's index limit).
MAX_WIDTH = 2**30
_CHUNK = 16_384  # rows projected at once: bounds memory to CHUNK x N*K floats


def as_vectors(X, name: str = "X") -> np.ndarray:
    """Item vectors as scikit-learn checks them: 2-D, numeric (not complex), finite, at least 1 x 1.

    Examples
    --------
    >>> as_vectors([[1, 2]]).dtype, as_vectors([[1, 2]]).shape
    (dtype('float64'), (1, 2))
    """
    return check_array(X, dtype=np.float64, input_name=name)


def sketch_row(emde, sketch) -> np.ndarray:
    """One sketch of a fitted :class:`EMDE` (a row of :meth:`EMDE.sketch`, sparse or dense) as a flat array.

    Examples
    --------
    >>> emde = EMDE(n_hyperplanes=2, n_partitions=2, random_state=0).fit([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    >>> sketch_row(emde, emde.sketch([[0, 1, 1]])).tolist()  # N * 2**K = 8 columns, three items in each block
    [1.0, 0.0, 0.0, 2.0, 0.0, 3.0, 0.0, 0.0]
    """
    check_is_fitted(emde, "item_sketches_")
    s = np.asarray(sketch.toarray() if sp.issparse(sketch) else sketch, dtype=np.float64).ravel()
    if s.size != emde.n_features_out_:
        raise ValueError(f"The sketch has {s.size} values; this EMDE makes {emde.n_features_out_}.")
    return s


def _row_parallel_product(A: sp.csr_array, B: sp.csr_array, n_jobs: int | None = None,
                          min_nnz: int = 200_000) -> sp.csr_array:
    """``A @ B`` with row blocks of ``A`` multiplied on ``n_jobs`` threads (joblib's meaning: None is one).

    scipy's sparse product runs without the GIL, so blocks of rows run in
    parallel; small products are done in one piece. Each row of the product
    depends only on its row of ``A``, so the bytes do not depend on ``n_jobs``.
    """
    from joblib import effective_n_jobs

    n_jobs = effective_n_jobs(n_jobs)
    if n_jobs == 1 or A.nnz < min_nnz or A.shape[0] < 2 * n_jobs:
        return narrow(sp.csr_array(A @ B))
    from concurrent.futures import ThreadPoolExecutor

    bounds = np.linspace(0, A.shape[0], n_jobs + 1).astype(int)
    with ThreadPoolExecutor(n_jobs) as pool:
        parts = list(pool.map(lambda ab: sp.csr_array(A[ab[0] : ab[1]] @ B), zip(bounds[:-1], bounds[1:])))
    return narrow(stack_rows(parts, B.shape[1]))


def sets_to_matrix(sets, n_items: int, weights=None) -> sp.csr_array:
    """Sets of item indices (lists) -> sparse (n_sets x n_items) count matrix.

    Repeated items add up. ``weights``, if given, has one list of weights
    per set, aligned with the items. Built without a Python loop over sets
    (:func:`embedcore._sparse.ragged_to_csr`).

    Examples
    --------
    >>> sets_to_matrix([[0, 2, 2], [], [1]], 3).toarray()
    array([[1., 0., 2.],
           [0., 0., 0.],
           [0., 1., 0.]])
    """
    offsets, flat = flatten(sets)
    flat = np.fromiter(flat, dtype=np.float64, count=len(flat))
    cols = flat.astype(np.int64)
    if (cols != flat).any():  # 2.5 is no item, and a cast would quietly make it item 2
        bad = flat[cols != flat][0]
        raise ValueError(f"Item index {float(bad):g} is not a whole number; sets hold item positions "
                         f"0..{n_items - 1}.")
    if cols.size and (cols.min() < 0 or cols.max() >= n_items):
        bad = int(cols[(cols < 0) | (cols >= n_items)][0])
        raise ValueError(f"Item index {bad} is out of range: there are {n_items} items (0..{n_items - 1}).")
    data = None if weights is None else flat_weights(weights, offsets)
    return ragged_to_csr(offsets, cols, n_items, data)


class EMDE(TransformerMixin, BaseEstimator):
    """Efficient Manifold Density Estimator: sparse sketches of sets of vectors.

    ``fit`` draws the hyperplanes from the item vectors; ``transform`` gives
    any vectors' item sketches (their bucket indicators: ``N`` ones in
    ``N * 2**K`` columns); :meth:`sketch` sums the fitted items' sketches
    into set sketches, from a set-by-item weight matrix. For sets of item
    names in a :class:`~sklearn.pipeline.Pipeline`, use :class:`EMDEVectorizer`.

    Parameters
    ----------
    n_hyperplanes : int, default=7
        K, hyperplanes per partitioning; each partitioning has ``2**K`` buckets.
    n_partitions : int, default=16
        N, independent partitionings; the sketch has ``N * 2**K`` columns.
    offsets : {"data", "quantile"}, default="data"
        Where hyperplanes cut: through a random item, or at a random quantile
        (5%-95%) of the items' projections (see the module docstring).
    weighting : {"counts", "binary", "tfidf"}, default="counts"
        How :meth:`sketch` weights a set's items before summing: as given
        (repeats and weights count), presence only, or counts times the
        inverse document frequency of each item learned from ``sets`` at fit.
    norm : {None, "l1", "l2", "max"}, default=None
        Normalisation of each set sketch.
    norm_scope : {"row", "partition"}, default="row"
        Normalise the whole sketch, or each partitioning's block separately.
    drop_empty : bool, default=False
        Keep only buckets that hold at least one fitted item (a variable
        width, as CountVectorizer gives) instead of the fixed ``N * 2**K``.
        The columns are then found from the items' codes alone, never from
        the ``2**K`` grid, so K may go up to 48 (the post's K=30, N=1): the
        width is at most ``N * n_items`` whatever K is.
    dtype : {np.float32, np.float64}, default=np.float32
        Type of the sketch values, whatever the input's type. Counts are exact
        in float32 up to 2**24 per bucket, and half the memory of float64
        makes large products faster.
    n_jobs : int or None, default=None
        Threads for :meth:`sketch`'s sparse product, in blocks of sets
        (None: one, unless in a ``joblib.parallel_config`` context; -1:
        every core). The sketches are the same bytes whatever the number.
    random_state : int, RandomState or None
        Seed for the hyperplanes; the same seed gives the same bytes.

    Attributes
    ----------
    hyperplanes_ : ndarray of shape (N * K, d)
        Unit-free normals, partitioning ``p`` in rows ``p*K .. p*K+K-1``.
    offsets_ : ndarray of shape (N * K,)
        The plane of row ``j`` is ``hyperplanes_[j] . x = offsets_[j]``.
    item_codes_ : ndarray of shape (n_items, N)
        Bucket of every fitted item in every partitioning.
    item_sketches_ : sparse array of shape (n_items, n_features_out_)
        ``transform`` of the fitted items: what :meth:`sketch` sums.
    columns_ : ndarray of int64
        Fixed-width column index ``p * 2**K + code`` of every output column,
        ascending (all ``N * 2**K`` of them unless ``drop_empty``, then the
        occupied ones only).
    idf_ : ndarray of shape (n_items,) or None
    n_features_in_ : int
        Dimensions of the item vectors.
    n_items_ : int
        Fitted items: the columns of the weight matrices :meth:`sketch` takes.

    Examples
    --------
    >>> items = np.array([[0.2, -0.4, 0.15], [0.7, -1.2, 2.56], [0.9, 0.1, 0.04]])
    >>> emde = EMDE(n_hyperplanes=3, n_partitions=2, random_state=0).fit(items)
    >>> emde.transform(items).sum(axis=1).tolist()  # one bucket per partitioning
    [2.0, 2.0, 2.0]
    >>> S = emde.sketch([[0, 1], [2], [1, 1, 1]])  # sets of item positions
    >>> S.shape, S.sum(axis=1).tolist()
    ((3, 16), [4.0, 2.0, 6.0])
    """

    # The upper bounds of K and N are checked in fit, where the message can say how many buckets they make.
    _parameter_constraints: dict = {
        "n_hyperplanes": [Interval(Integral, 1, None, closed="left")],
        "n_partitions": [Interval(Integral, 1, None, closed="left")],
        "offsets": [StrOptions({"data", "quantile"})],
        "weighting": [StrOptions({"counts", "binary", "tfidf"})],
        "norm": [StrOptions({"l1", "l2", "max"}), None],
        "norm_scope": [StrOptions({"row", "partition"})],
        "drop_empty": ["boolean"],
        "dtype": [Options(type, {np.float32, np.float64})],
        "n_jobs": [None, Integral],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        *,
        n_hyperplanes: int = 7,
        n_partitions: int = 16,
        offsets: str = "data",
        weighting: str = "counts",
        norm: str | None = None,
        norm_scope: str = "row",
        drop_empty: bool = False,
        dtype=np.float32,
        n_jobs: int | None = None,
        random_state=None,
    ):
        keep_parameters(self, locals())

    # ------------------------------------------------------------------ fitting

    def _check_width(self) -> None:
        K, N = self.n_hyperplanes, self.n_partitions
        if self.drop_empty:
            if K > MAX_OCCUPIED_HYPERPLANES:
                raise ValueError(
                    f"K={K} is too many hyperplanes even for a sketch of occupied buckets; K must be <= "
                    f"{MAX_OCCUPIED_HYPERPLANES} (beyond about log2 of the item count every item has a bucket "
                    "of its own, and the sketch is a one-hot code of the items)."
                )
            if N * 2**K > 2**62:
                raise ValueError(
                    f"N * 2**K = {N} * 2**{K} does not fit the 64-bit column keys of occupied buckets; "
                    "lower K or N."
                )
            return
        if K > MAX_HYPERPLANES:
            raise ValueError(
                f"K={K} would make 2**{K} = {2**K:,} buckets per partitioning; "
                f"K must be <= {MAX_HYPERPLANES} for a fixed-width sketch. Set drop_empty=True to keep only the "
                f"buckets some item occupies (K up to {MAX_OCCUPIED_HYPERPLANES}), or spend the budget on more "
                "partitionings (N) instead."
            )
        if N * 2**K > MAX_WIDTH:
            raise ValueError(
                f"N * 2**K = {N} * {2**K:,} = {N * 2**K:,} columns is too wide (limit {MAX_WIDTH:,}); "
                "lower K or N, or set drop_empty=True to keep only the occupied buckets."
            )

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, *, sets=None):
        """Draw the hyperplanes from the item vectors ``X`` (n_items x d).

        ``sets`` (a sparse set-by-item matrix or lists of item indices) is
        needed only for ``weighting="tfidf"``, to learn the item frequencies.
        """
        self._check_width()
        X = validate_data(self, X, dtype=np.float64)
        rng = check_random_state(self.random_state)
        K, N = self.n_hyperplanes, self.n_partitions
        n, d = X.shape
        self.n_items_ = n
        normals = rng.standard_normal((N * K, d))
        if self.offsets == "data":
            picks = rng.randint(0, n, size=N * K)
            offsets = np.einsum("jd,jd->j", normals, X[picks])
        else:
            q = rng.uniform(0.05, 0.95, size=N * K)
            proj = np.sort(X @ normals.T, axis=0)  # (n, N*K), each column sorted
            pos = q * (n - 1)
            lo = np.floor(pos).astype(np.int64)
            hi = np.minimum(lo + 1, n - 1)
            cols = np.arange(N * K)
            frac = pos - lo
            offsets = (1 - frac) * proj[lo, cols] + frac * proj[hi, cols]
        self.hyperplanes_ = normals
        self.offsets_ = offsets
        self._powers = (1 << np.arange(K, dtype=np.int64)).astype(np.float64)
        self.item_codes_ = self._codes(X)
        if self.drop_empty:
            # the occupied (partitioning, code) pairs, found from the codes alone: no 2**K grid is ever made
            self.columns_ = np.unique(self._keys(self.item_codes_))
        else:
            self.columns_ = np.arange(N * 2**K, dtype=np.int64)
        self.item_sketches_ = self._one_hot(self.item_codes_)
        self.idf_ = None
        if self.weighting == "tfidf":
            if sets is None:
                raise ValueError(
                    "weighting='tfidf' learns item frequencies from the sets: call fit(items, sets=W)."
                )
            W = self._weights_matrix(sets, apply_weighting=False)
            df = np.asarray((W > 0).sum(axis=0)).ravel()
            # smooth idf as scikit-learn's TfidfTransformer does
            self.idf_ = np.log((1 + W.shape[0]) / (1 + df)) + 1.0
        return self

    # ------------------------------------------------------------------ codes and item sketches

    @property
    def n_features_out_(self) -> int:
        return int(self.columns_.size)

    def bucket_codes(self, X) -> np.ndarray:
        """Bucket of every vector in every partitioning: int array (n, N) in [0, 2**K).

        Bit ``k`` of the code is 1 when the vector lies on the positive side
        (``v . x > c``) of the partitioning's ``k``-th hyperplane.
        """
        check_is_fitted(self, "hyperplanes_")
        return self._codes(validate_data(self, X, dtype=np.float64, reset=False))

    def _codes(self, X: np.ndarray) -> np.ndarray:
        K, N = self.n_hyperplanes, self.n_partitions
        codes = np.empty((X.shape[0], N), dtype=np.int64)
        for start in range(0, X.shape[0], _CHUNK):  # bounded memory, not a loop over items
            block = X[start : start + _CHUNK]
            bits = (block @ self.hyperplanes_.T > self.offsets_).reshape(-1, N, K)
            codes[start : start + _CHUNK] = bits @ self._powers
        return codes

    def _keys(self, codes: np.ndarray) -> np.ndarray:
        """Fixed-width column ``p * 2**K + code`` of each code (int64: exact for N * 2**K <= 2**62)."""
        return codes + np.arange(codes.shape[1], dtype=np.int64) * (1 << self.n_hyperplanes)

    def column_index(self, codes: np.ndarray) -> np.ndarray:
        """Output column of every (vector, partitioning) code, -1 where the bucket has no column.

        ``codes`` is an (n, N) array from :meth:`bucket_codes`. Without
        ``drop_empty`` every bucket has a column; with it, only the buckets
        some fitted item occupies.
        """
        check_is_fitted(self, "columns_")
        keys = self._keys(np.asarray(codes, dtype=np.int64))
        if not self.drop_empty:
            return keys
        at = np.searchsorted(self.columns_, keys)
        found = at < self.columns_.size
        found[found] = self.columns_[at[found]] == keys[found]
        return np.where(found, at, -1)

    def _one_hot(self, codes: np.ndarray) -> sp.csr_array:
        """Rows of ones at each code's output column (a partitioning whose bucket has no column gives none)."""
        n, N = codes.shape
        cols = self.column_index(codes).ravel()
        keep = cols >= 0
        index = index_dtype(max(n * N, self.columns_.size))
        indptr = np.concatenate([[0], np.cumsum(keep.reshape(n, N).sum(axis=1))]).astype(index)
        return sp.csr_array((np.ones(int(keep.sum()), dtype=self.dtype), cols[keep].astype(index), indptr),
                            shape=(n, self.columns_.size))

    def transform(self, X) -> sp.csr_array:
        """Item sketches of vectors ``X`` (n x d): sparse (n, n_features_out_), a 1 in each partitioning's bucket.

        These are the bucket codes as indicators, before any weighting or
        normalisation (those act on sets: see :meth:`sketch`). With
        ``drop_empty``, a vector in a bucket no fitted item occupies loses
        that partitioning's one (the column does not exist).
        """
        check_is_fitted(self, "item_sketches_")
        return self._one_hot(self.bucket_codes(X))

    def partition_of_column(self) -> np.ndarray:
        """The partitioning each output column belongs to."""
        check_is_fitted(self, "hyperplanes_")
        return self.columns_ // 2**self.n_hyperplanes

    # ------------------------------------------------------------------ set sketches

    def _weights_matrix(self, W, apply_weighting: bool = True) -> sp.csr_array:
        if sp.issparse(W) or (isinstance(W, np.ndarray) and W.ndim == 2 and W.dtype != object):
            W = sp.csr_array(check_array(W, accept_sparse="csr", dtype=np.float64, ensure_min_samples=0,
                                         input_name="sets"))
        else:
            W = sets_to_matrix(list(W), self.n_items_)
        if W.shape[1] != self.n_items_:
            raise ValueError(
                f"The weight matrix has {W.shape[1]} columns, but EMDE was fitted on "
                f"{self.n_items_} items: columns must be the fitted items, in order."
            )
        if W.nnz and W.data.min() < 0:
            j = int(np.flatnonzero(W.data < 0)[0])
            row = int(np.searchsorted(W.indptr, j, side="right") - 1)
            raise ValueError(
                f"Set {row} gives item {int(W.indices[j])} the weight {W.data[j]:g}; a sketch is a histogram "
                "of the set, so weights must be >= 0."
            )
        W = narrow(W.astype(self.dtype))
        if not apply_weighting:
            return W
        if self.weighting == "binary":
            W = W.copy()
            W.data = (W.data != 0).astype(np.float64)
        elif self.weighting == "tfidf":
            W = W @ sp.dia_array((self.idf_[None, :].astype(self.dtype), [0]), shape=(self.n_items_, self.n_items_))
        return narrow(sp.csr_array(W))

    def sketch(self, sets) -> sp.csr_array:
        """Sketches of sets of the fitted items: sparse (n_sets, n_features_out_).

        ``sets`` is a (n_sets x n_items) weight matrix, sparse or a dense
        numeric array, whose columns are the fitted items in order (weights
        finite and >= 0), or a list of item-position lists (repeats count).
        Computed as one sparse product ``weights @ item_sketches_``, then
        normalised as ``norm`` says; an empty set gives a zero row.
        """
        check_is_fitted(self, "item_sketches_")
        S = _row_parallel_product(self._weights_matrix(sets), self.item_sketches_, self.n_jobs)
        return self._normalise(S)

    def sketch_vectors(self, sets: Sequence, weights: Sequence | None = None) -> sp.csr_array:
        """Sketches of sets given as their vectors: each an (m_i x d) array, m_i may be 0.

        The vectors need not be fitted items. ``weights``, if given, has one
        array of m_i weights (finite, >= 0) per set.
        """
        check_is_fitted(self, "item_sketches_")
        d = self.n_features_in_
        arrays = []
        for i, s in enumerate(sets):
            a = np.asarray(s)
            if a.size == 0:
                a = np.empty((0, d))
            elif a.ndim != 2:
                raise ValueError(f"Set {i} has shape {a.shape}; give each set as a 2-D array, one vector per row.")
            arrays.append(a)
        sizes = np.fromiter(map(len, arrays), dtype=np.int64, count=len(arrays))
        X = np.concatenate(arrays) if arrays else np.empty((0, d))
        one_hot = self.transform(X) if len(X) else sp.csr_array((0, self.n_features_out_), dtype=self.dtype)
        if weights is None:
            w = np.ones(len(X))
        else:
            w = np.concatenate([np.asarray(x, dtype=np.float64).ravel() for x in weights]) if len(weights) else np.ones(0)
            if w.size != len(X):
                raise ValueError(f"Got {w.size} weights for {len(X)} vectors; give one weight per vector.")
            w = check_array(w[None, :], ensure_min_features=0, input_name="weights").ravel()
            if (w < 0).any():
                raise ValueError("Weights must be >= 0: a sketch is a histogram of the set.")
        # set i holds the vectors offsets[i]..offsets[i+1]-1 of X, with their weights
        owner = narrow(ragged_to_csr(offsets_of(sizes), np.arange(len(X)), len(X), w).astype(self.dtype))
        return self._normalise(sp.csr_array(owner @ one_hot))

    def _normalise(self, S: sp.csr_array) -> sp.csr_array:
        if self.norm is None or S.nnz == 0:
            return S
        S = S.copy()
        S.sum_duplicates()
        rows = np.repeat(np.arange(S.shape[0]), np.diff(S.indptr))
        if self.norm_scope == "partition":
            N = self.n_partitions
            group = rows * N + self.partition_of_column()[S.indices]
            n_groups = S.shape[0] * N
        else:
            group, n_groups = rows, S.shape[0]
        v = S.data
        if self.norm == "l1":
            scale = np.bincount(group, np.abs(v), minlength=n_groups)
        elif self.norm == "l2":
            scale = np.sqrt(np.bincount(group, v * v, minlength=n_groups))
        else:
            scale = np.zeros(n_groups)
            np.maximum.at(scale, group, np.abs(v))
        scale[scale == 0] = 1.0
        S.data = (v / scale[group]).astype(self.dtype)
        return S

    # ------------------------------------------------------------------ reading a sketch

    def decode(self, sketch, X=None, *, smoothing: float = 1e-3) -> np.ndarray:
        """Score vectors by the density a sketch assigns to their buckets.

        In each partitioning the sketch's block is turned into a distribution
        over buckets (L1-normalised); a vector's score is the geometric mean,
        over partitionings, of the (smoothed) probability of the bucket it
        falls in. High scores mark the regions the set is dense in. Without
        ``X`` the fitted items are scored, from their stored codes (no
        projection again: at N=2000 that is most of the work).
        """
        s = np.abs(sketch_row(self, sketch))
        part = self.partition_of_column()
        totals = np.bincount(part, s, minlength=self.n_partitions)
        totals[totals == 0] = 1.0
        probs = s / totals[part]
        if X is None:
            # a fitted item's sketch holds its N columns, one per partitioning; logs are taken only where the set
            # has weight (every other bucket adds log(smoothing)), then gathered through those columns
            delta = np.zeros(probs.size)
            hit = probs > 0
            delta[hit] = np.log(probs[hit] + smoothing) - np.log(smoothing)
            cols = self.item_sketches_.indices.reshape(self.n_items_, self.n_partitions)
            total = self.n_partitions * np.log(smoothing) + delta[cols].sum(axis=1)
            return np.exp(total / self.n_partitions)
        cols = self.column_index(self.bucket_codes(X))  # (n, N); -1: a bucket no fitted item occupies
        vals = np.where(cols >= 0, probs[np.maximum(cols, 0)], 0.0) if probs.size else np.zeros(cols.shape)
        return np.exp(np.log(vals + smoothing).mean(axis=1))

    def get_feature_names_out(self, input_features=None) -> np.ndarray:
        """``p{partition}_b{bucket}`` for every output column."""
        check_is_fitted(self, "columns_")
        B = 2**self.n_hyperplanes
        return np.array([f"p{c // B}_b{c % B}" for c in self.columns_], dtype=object)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = False
        # the output's type is the dtype parameter, whatever the input's: only that one is kept
        tags.transformer_tags.preserves_dtype = [np.dtype(self.dtype).name]
        return tags


class EMDEVectorizer(TransformerMixin, BaseEstimator):
    """A drop-in for CountVectorizer/TfidfVectorizer on lists of item names, built on EMDE.

    Parameters
    ----------
    item_vectors : mapping of item name -> vector
        The embedding of every item a set may contain.
    emde : EMDE, optional
        The sketch's settings, as an unfitted :class:`EMDE` (cloned by
        ``fit``; None: ``EMDE()``). Its ``weighting="tfidf"`` learns item
        frequencies from the sets passed to ``fit``. In a pipeline or a grid
        search its settings are ``emde__n_hyperplanes`` and so on.
    unknown : {"error", "skip"}, default="error"
        What to do with an item that has no vector: stop with a message naming
        it, or skip it and count it in ``n_unknown_`` (and ``unknown_items_``).

    Attributes
    ----------
    emde_ : EMDE
        The fitted model that sketches the sets.
    vocabulary_index_ : pandas Index
        The item names, in the order of the fitted items.

    Examples
    --------
    >>> vecs = {"chorizo": [0.2, -0.4, 0.15], "banana": [0.7, -1.2, 2.56], "sourdough": [0.9, 0.1, 0.04]}
    >>> v = EMDEVectorizer(item_vectors=vecs, emde=EMDE(n_hyperplanes=3, n_partitions=2, random_state=0))
    >>> X = v.fit_transform([["chorizo", "banana"], ["sourdough"], ["banana"] * 3])
    >>> X.sum(axis=1).tolist()
    [4.0, 2.0, 6.0]
    """

    _parameter_constraints: dict = {
        "item_vectors": [Mapping, None],
        "emde": [EMDE, None],
        "unknown": [StrOptions({"error", "skip"})],
    }

    def __init__(self, *, item_vectors: Mapping[str, Sequence[float]] | None = None, emde: EMDE | None = None,
                 unknown: str = "error"):
        keep_parameters(self, locals())

    def _indices(self, X) -> sp.csr_array:
        if isinstance(X, str):
            raise ValueError("Pass a list of sets (each a list of item names), not a single string.")
        offsets, flat = flatten(list(X))
        idx = self.vocabulary_index_.get_indexer(flat) if flat else np.empty(0, dtype=np.int64)
        missing = idx < 0
        if missing.any() and self.unknown == "error":
            j = int(np.flatnonzero(missing)[0])
            set_no = int(np.searchsorted(offsets, j, side="right") - 1)
            raise ValueError(
                f"Item {flat[j]!r} (in set {set_no}) has no vector; {int(missing.sum())} item "
                "occurrences are unknown. Add their vectors, or use unknown='skip' to leave them out."
            )
        W = ragged_to_csr(offsets, idx, len(self.vocabulary_index_))  # unknown items (-1) are left out
        self.n_unknown_ = int(missing.sum())
        self.unknown_items_ = sorted(set(pd.Index(flat)[missing])) if missing.any() else []
        return W

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Learn the item index and hyperplanes (and, for tf-idf, item frequencies) from sets ``X``."""
        if self.item_vectors is None or len(self.item_vectors) == 0:
            raise ValueError("EMDEVectorizer needs item_vectors: a mapping from item name to vector.")
        names = list(self.item_vectors)
        self.vocabulary_index_ = pd.Index(names)
        if not self.vocabulary_index_.is_unique:
            raise ValueError("item_vectors has repeated item names.")
        # no cast here: EMDE.fit checks the vectors (numeric, not complex, finite)
        vectors = np.vstack([np.atleast_1d(np.asarray(self.item_vectors[k])) for k in names])
        self.emde_ = EMDE() if self.emde is None else clone(self.emde)
        sets = self._indices(X) if self.emde_.weighting == "tfidf" else None
        self.emde_.fit(vectors, sets=sets)
        return self

    def transform(self, X) -> sp.csr_array:
        """Sketch each set of item names."""
        check_is_fitted(self, "emde_")
        return self.emde_.sketch(self._indices(X))

    def get_feature_names_out(self, input_features=None) -> np.ndarray:
        check_is_fitted(self, "emde_")
        return self.emde_.get_feature_names_out()

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.two_d_array = False
        tags.input_tags.string = True
        return tags


# --------------------------------------------------------------------------- analysis helpers
