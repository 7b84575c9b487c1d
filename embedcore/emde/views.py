"""What a teacher shows of a fitted EMDE: the items on a plane, one partitioning's buckets and where its
hyperplanes cut the plane, a sketch laid out as a grid, the occupied buckets, additivity checked on two sets."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.utils.validation import (
    check_is_fitted,
)

from .estimator import EMDE, MAX_WIDTH, as_vectors, sets_to_matrix, sketch_row


class ItemView(NamedTuple):
    """A 2-D view of the items: ``coords = (X - origin) @ basis``.

    ``projected`` is True when the items have more than two dimensions and
    the view is their PCA plane; otherwise the coordinates are the items
    themselves (padded with zeros to two columns).

    Examples
    --------
    >>> item_view(np.array([[0.0, 1.0, 2.0], [1.0, 0.0, 0.0], [2.0, 2.0, 1.0]])).projected  # three dimensions: a PCA plane
    True
    """

    coords: np.ndarray
    origin: np.ndarray
    basis: np.ndarray
    projected: bool


def item_view(X) -> ItemView:
    """The plane to draw items and hyperplanes on: the items themselves up to 2-D, else their PCA plane.

    The basis always has two orthonormal (or zero) columns, so
    :func:`hyperplanes_in_view` can cut it even for one item.

    Examples
    --------
    >>> v = item_view(np.array([[1.0], [3.0]]))
    >>> v.coords.tolist(), v.projected
    ([[1.0, 0.0], [3.0, 0.0]], False)
    """
    from .._linalg import pca_basis

    X = as_vectors(X)
    d = X.shape[1]
    if d <= 2:
        basis = np.eye(d, 2)
        return ItemView(X @ basis, np.zeros(d), basis, False)
    mean, basis, _ = pca_basis(X, 2)
    if basis.shape[1] < 2:  # a single item spans no direction: pad with zero columns
        basis = np.column_stack([basis, np.zeros((d, 2 - basis.shape[1]))])
    return ItemView((X - mean) @ basis, mean, basis, True)


class PartitionView(NamedTuple):
    """One partitioning drawn on an :class:`ItemView`.

    Examples
    --------
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    >>> view = partition_view(EMDE(n_hyperplanes=2, n_partitions=1, random_state=0).fit(X), 0, item_view(X))
    >>> view.codes.shape, view.lines.shape
    ((3,), (2, 3))
    """

    codes: np.ndarray  # bucket of every item, (n_items,)
    lines: np.ndarray  # (K, 3): alpha * a + beta * b = gamma in view coordinates
    occupied: int  # buckets of this partitioning holding at least one item


def partition_view(emde: EMDE, partition: int, view: ItemView) -> PartitionView:
    """The fitted items' buckets in one partitioning, and where its hyperplanes cut ``view``.

    Examples
    --------
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    >>> emde = EMDE(n_hyperplanes=2, n_partitions=1, random_state=0).fit(X)
    >>> pv = partition_view(emde, 0, item_view(X))
    >>> pv.lines.shape, pv.occupied == len(np.unique(pv.codes))
    ((2, 3), True)
    """
    check_is_fitted(emde, "item_codes_")
    lines = hyperplanes_in_view(emde, partition, view.origin, view.basis)
    codes = emde.item_codes_[:, partition]
    return PartitionView(codes, lines, int(np.unique(codes).size))


def hyperplanes_in_view(emde: EMDE, partition: int, origin, basis) -> np.ndarray:
    """Where one partitioning's hyperplanes cut a 2-D view ``x = origin + basis @ (a, b)``.

    Returns a (K, 3) array of ``(alpha, beta, gamma)``: the cut is the line
    ``alpha * a + beta * b = gamma`` in view coordinates. In a PCA view of
    higher-dimensional items this is exact on the view plane, while items
    off the plane may lie on the other side of the true hyperplane.

    Examples
    --------
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    >>> emde = EMDE(n_hyperplanes=3, n_partitions=2, random_state=0).fit(X)
    >>> hyperplanes_in_view(emde, 1, np.zeros(2), np.eye(2)).shape
    (3, 3)
    """
    check_is_fitted(emde, "hyperplanes_")
    if not 0 <= partition < emde.n_partitions:
        raise ValueError(f"partition must be in 0..{emde.n_partitions - 1}, got {partition}.")
    K = emde.n_hyperplanes
    V = emde.hyperplanes_[partition * K : (partition + 1) * K]
    basis = np.asarray(basis, dtype=np.float64)
    offsets = emde.offsets_[partition * K : (partition + 1) * K]
    return np.column_stack([V @ basis[:, 0], V @ basis[:, 1], offsets - V @ origin])


def sketch_grid(emde: EMDE, sketch, n_rows: int | None = None) -> np.ndarray:
    """One sketch laid out as an (N, 2**K) array: a row per partitioning, a column per bucket.

    ``sketch`` is one row of :meth:`EMDE.sketch` (sparse or dense). Columns
    dropped by ``drop_empty`` come back as zeros, so every sketch of this
    EMDE has the same grid. ``n_rows`` lays out only the first partitionings.

    Examples
    --------
    >>> items = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    >>> emde = EMDE(n_hyperplanes=2, n_partitions=3, random_state=0).fit(items)
    >>> grid = sketch_grid(emde, emde.sketch([[0, 1, 1]]))
    >>> grid.shape, grid.sum(axis=1).tolist()
    ((3, 4), [3.0, 3.0, 3.0])
    """
    s = sketch_row(emde, sketch)
    N, K = emde.n_partitions, emde.n_hyperplanes
    if n_rows is not None:
        N = max(0, min(N, int(n_rows)))
    if N * 2**K > MAX_WIDTH:
        raise ValueError(f"An N x 2**K grid of {N} x 2**{K} cells is too large to lay out; use occupied_grid.")
    full = np.zeros(N * 2**K)
    keep = emde.columns_ < N * 2**K  # the columns of the partitionings laid out
    full[emde.columns_[keep]] = s[keep]
    return full.reshape(N, 2**K)


def occupied_grid(emde: EMDE, sketch) -> tuple[np.ndarray, np.ndarray]:
    """One sketch laid out over occupied buckets only: a row per partitioning, NaN past its last bucket.

    Row ``p`` holds the values of the buckets of partitioning ``p`` that
    some fitted item occupies, in the order of their codes; partitionings
    occupy different numbers of buckets (the variable width), so the rows
    are padded with NaN to the longest. Returns the (N, widest) values and
    the codes of the same cells (-1 in the padding). This is the layout
    for any K, where :func:`sketch_grid` needs ``2**K`` columns.

    Examples
    --------
    >>> items = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    >>> emde = EMDE(n_hyperplanes=30, n_partitions=2, drop_empty=True, random_state=0).fit(items)
    >>> values, codes = occupied_grid(emde, emde.sketch([[0, 1, 1]]))
    >>> values.shape[0], int(np.nansum(values))
    (2, 6)
    """
    s = sketch_row(emde, sketch)
    N = emde.n_partitions
    part = emde.partition_of_column()
    counts = np.bincount(part, minlength=N)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    slot = np.arange(part.size) - starts[part]  # rank of each column within its partitioning
    width = int(counts.max()) if counts.size else 0
    values = np.full((N, width), np.nan)
    codes = np.full((N, width), -1, dtype=np.int64)
    values[part, slot] = s
    codes[part, slot] = emde.columns_ % (1 << emde.n_hyperplanes)
    return values, codes


def occupied_buckets(emde: EMDE) -> int:
    """Buckets, over all partitionings, that hold at least one fitted item (at most ``N * 2**K``).

    Examples
    --------
    >>> X = np.array([[0.0, 0.0], [1.0, 1.0]])
    >>> occupied_buckets(EMDE(n_hyperplanes=3, n_partitions=4, random_state=0).fit(X)) <= 2 * 4
    True
    """
    check_is_fitted(emde, "item_codes_")
    N = emde.n_partitions
    return int(np.unique(emde.item_codes_ + np.arange(N) * 2**emde.n_hyperplanes).size)


def bucket_sizes(emde: EMDE) -> np.ndarray:
    """How many fitted items each occupied bucket holds, over all partitionings: one count per occupied bucket,
    partitioning by partitioning in the order of the codes (so ``bucket_sizes(e).size == occupied_buckets(e)``
    and the counts add up to ``n_items * N``).

    Examples
    --------
    >>> X = np.array([[0.0], [0.1], [0.2], [5.0]])
    >>> e = EMDE(n_hyperplanes=2, n_partitions=3, random_state=0).fit(X)
    >>> sizes = bucket_sizes(e)
    >>> int(sizes.sum()), sizes.size == occupied_buckets(e)
    (12, True)
    """
    check_is_fitted(emde, "item_codes_")
    N = emde.n_partitions
    keys = (np.asarray(emde.item_codes_, dtype=np.int64) + np.arange(N, dtype=np.int64) * 2**emde.n_hyperplanes)
    return np.unique(keys, return_counts=True)[1]


def items_told_apart(emde: EMDE) -> int:
    """Fitted items whose buckets, over all partitionings together, no other item shares: the items the sketch
    can tell from every other (two items with the same bucket in every partitioning have the same sketch).

    Examples
    --------
    >>> X = np.array([[0.0, 0.0], [0.0, 0.0], [3.0, 1.0], [-2.0, 4.0]])  # the first two are one point
    >>> items_told_apart(EMDE(n_hyperplanes=4, n_partitions=50, random_state=0).fit(X))
    2
    """
    check_is_fitted(emde, "item_codes_")
    _, inverse, counts = np.unique(np.asarray(emde.item_codes_), axis=0, return_inverse=True, return_counts=True)
    return int((counts[np.ravel(inverse)] == 1).sum())


def max_regions(n_hyperplanes: int, dimensions: int) -> int:
    """The most regions ``n_hyperplanes`` hyperplanes cut a ``dimensions``-dimensional space into (reached when
    they are in general position): the sum of C(K, i) for i = 0 .. d. It is ``2**K`` only while K <= d; past that
    most of a partitioning's ``2**K`` codes can name no region at all.

    Examples
    --------
    >>> max_regions(30, 2), max_regions(3, 5), max_regions(4, 1)
    (466, 8, 5)
    """
    from math import comb

    K, d = int(n_hyperplanes), int(dimensions)
    if K < 0 or d < 0:
        raise ValueError(f"n_hyperplanes and dimensions must be >= 0, got {K} and {d}.")
    return sum(comb(K, i) for i in range(min(K, d) + 1))


class Additivity(NamedTuple):
    """Sketches of two sets and of their pooled multiset, bucket by bucket.

    Examples
    --------
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    >>> emde = EMDE(n_hyperplanes=2, n_partitions=2, random_state=0).fit(X)
    >>> additivity(emde, sets_to_matrix([[0, 1], [1, 2]], 3), 0, 1).table.columns.tolist()
    ['s(A)', 's(B)', 's(A+B)']
    """

    max_difference: float  # max |s(A+B) - (s(A) + s(B))| over every column
    table: pd.DataFrame  # columns s(A), s(B), s(A+B); one row per bucket either set touches, named p_b


def additivity(emde: EMDE, W, a: int, b: int) -> Additivity:
    """Check ``s(A ⊎ B) = s(A) + s(B)`` for sets ``a`` and ``b`` (rows of the weight matrix ``W``).

    The pooled set is the sum of the two weight rows: a multiset, where an
    item in both sets counts twice. Exact for raw count sketches; a
    normalised EMDE rescales each side and the difference is no longer zero.

    Examples
    --------
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    >>> emde = EMDE(n_hyperplanes=2, n_partitions=2, random_state=0).fit(X)
    >>> check = additivity(emde, sets_to_matrix([[0, 1], [1, 2]], 3), 0, 1)
    >>> check.max_difference, float(check.table["s(A+B)"].sum())
    (0.0, 8.0)
    """
    check_is_fitted(emde, "item_sketches_")
    W = sp.csr_array(W) if sp.issparse(W) else sets_to_matrix(list(W), emde.n_items_)
    for name, i in (("a", a), ("b", b)):
        if not 0 <= i < W.shape[0]:
            raise ValueError(f"Set {name}={i} is out of range: there are {W.shape[0]} sets (0..{W.shape[0] - 1}).")
    rows = [sp.csr_array(emde.sketch(w)) for w in (W[[a], :], W[[b], :], W[[a], :] + W[[b], :])]
    # only the columns some side touches: a fixed-width sketch has N·2^K of them, almost all zero
    touched = np.unique(np.concatenate([r.indices[r.data != 0] for r in rows]))
    SA, SB, SAB = (r[:, touched].toarray().ravel() if touched.size else np.zeros(0) for r in rows)
    diff = float(np.abs(SAB - (SA + SB)).max()) if SAB.size else 0.0
    B = 2**emde.n_hyperplanes
    names = [f"p{c // B}_b{c % B}" for c in emde.columns_[touched]]  # as get_feature_names_out names them
    table = pd.DataFrame({"s(A)": SA, "s(B)": SB, "s(A+B)": SAB}, index=pd.Index(names, dtype=object))
    return Additivity(diff, table)


# --------------------------------------------------------------------------- files
