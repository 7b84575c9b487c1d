"""The songs the approximate partition function sums exactly (the near field) and the landmarks it scales.

For an exit point ``v_a`` the kernel ``exp(-||u_s - v_a||^2)`` decays so fast that the
songs nearest to it carry almost all of ``Z_a``. The near field of ``a`` is its ``m``
nearest entry points and every song actually played after ``a``; the rest of Z is
estimated from ``m`` landmark songs drawn at random, scaled to the number of songs they
stand for (see :func:`.approximate_objective`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_random_state

from ._blocks import BLOCK, blocks

__all__ = ["NearField", "near_field"]

# Nearest-neighbour results per block of queries (a query for m neighbours costs about m).
_KNN_BLOCK = 2**16


class NearField(NamedTuple):
    """The songs each exit point sums exactly, and the landmarks that stand for the rest.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> field = near_field(rng.normal(size=(10, 2)), rng.normal(size=(10, 2)), sp.csr_array(np.eye(10, k=1)), 3,
    ...                    random_state=0)
    >>> field.near.shape, field.landmarks.size  # each exit's 3 nearest entries and its successors; 3 landmarks
    ((10, 10), 3)
    """

    near: sp.csr_array
    """(S x S) 0/1 pattern: row a marks the songs summed exactly in Z_a (sorted indices)."""
    landmarks: np.ndarray
    """Sorted song indices whose kernel terms, scaled, estimate the rest of each Z_a."""


def near_field(U, V, counts, m: int, *, random_state=None, should_stop=None) -> NearField:
    """Each exit point's ``m`` nearest entry points and its observed successors, and ``m`` random landmarks.

    Parameters
    ----------
    U, V : (S, k) arrays
        Entry and exit points.
    counts : (S x S) sparse array
        Transition counts; every song played after ``a`` joins the near field of ``a``.
    m : int
        Near songs per exit point, and landmarks (both at most S).
    random_state : int, RandomState or None
        Draws the landmarks.
    should_stop : callable or None
        Polled between blocks of queries; returning True raises :class:`.Stopped`.

    Examples
    --------
    >>> U = V = np.array([[0.0], [1.0], [2.0], [10.0]])
    >>> counts = sp.csr_array(np.array([[0, 0, 0, 1], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]))
    >>> field = near_field(U, V, counts, 2, random_state=0)
    >>> field.near.toarray().astype(int).tolist()  # song 0: its nearest two, and song 3 that followed it
    [[1, 1, 0, 1], [1, 1, 0, 0], [0, 1, 1, 0], [0, 0, 1, 1]]
    >>> len(field.landmarks)
    2
    """
    from sklearn.neighbors import NearestNeighbors

    rng = check_random_state(random_state)
    S, m = len(U), int(m)
    k = min(m, S)
    index = NearestNeighbors(n_neighbors=k).fit(U)
    follows = sp.csr_array((counts > 0).astype(np.float64))
    parts = []
    # blocks of at most _KNN_BLOCK results and 1,024 queries (a query costs ~0.4 ms in 10-D);
    # the union with the successors is taken per block too (sorted rows merge in linear time)
    for a0, a1 in blocks(S, BLOCK * max(k / _KNN_BLOCK, 1 / 1024), should_stop):
        nn = np.sort(index.kneighbors(V[a0:a1], return_distance=False), axis=1)
        near = sp.csr_array((np.ones(nn.size), nn.ravel(), np.arange(0, nn.size + 1, k)), shape=(a1 - a0, S))
        part = sp.csr_array(near + follows[a0:a1])
        part.data[:] = 1.0
        parts.append(part)
    # stacked by hand: sp.vstack takes seconds for tens of millions of entries in many blocks
    indptr = np.concatenate([[0], np.cumsum([p.nnz for p in parts])])
    row_ptr = np.concatenate([[0]] + [p.indptr[1:] + off for p, off in zip(parts, indptr[:-1])])
    X = sp.csr_array((np.ones(int(indptr[-1])), np.concatenate([p.indices for p in parts]), row_ptr),
                     shape=(S, S))
    X.has_sorted_indices = True  # each block's rows are sorted merges
    L = np.sort(rng.choice(S, size=min(m, S), replace=False))
    return NearField(X, L)
