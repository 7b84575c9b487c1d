"""What a teacher shows of a fitted EMDE: the items on a plane, one partitioning's buckets, the occupied buckets, additivity checked on two sets."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.utils.validation import (
    check_is_fitted,
)

from .estimator import EMDE, as_vectors, sets_to_matrix


class ItemView(NamedTuple):
    """A 2-D view of the items: ``coords = (X - origin) @ basis``.

    ``projected`` is True when the items have more than two dimensions and
    the view is their PCA plane; otherwise the coordinates are the items
    themselves (padded with zeros to two columns).
    """

    coords: np.ndarray
    origin: np.ndarray
    basis: np.ndarray
    projected: bool


def item_view(X) -> ItemView:
    """The plane to draw items and hyperplanes on: the items themselves up to 2-D, else their PCA plane.

    The basis always has two orthonormal (or zero) columns, so
    :meth:`EMDE.hyperplanes_in_view` can cut it even for one item.

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
    """One partitioning drawn on an :class:`ItemView`."""

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
    lines = emde.hyperplanes_in_view(partition, view.origin, view.basis)
    codes = emde.item_codes_[:, partition]
    return PartitionView(codes, lines, int(np.unique(codes).size))


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


class Additivity(NamedTuple):
    """Sketches of two sets and of their pooled multiset, bucket by bucket."""

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
