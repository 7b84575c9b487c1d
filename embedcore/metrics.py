"""How faithful is a map? Neighbourhood-preservation measures, per point and overall."""

from __future__ import annotations

import numpy as np
from sklearn.neighbors import NearestNeighbors

__all__ = ["trustworthiness", "continuity", "neighbor_recall", "map_quality"]

_BLOCK = 512


def _knn(X, k):
    return NearestNeighbors(n_neighbors=k + 1).fit(X).kneighbors(X, return_distance=False)[:, 1:]


def _penalty(space_a, space_b, k: int) -> np.ndarray:
    """Per point: sum over points among the k nearest in ``space_b`` but not in ``space_a``
    of (their rank in ``space_a`` - k).

    Ranks follow a stable sort of the distances (equal distances go to the lower
    index). Each block of rows is sorted once; the rank of a neighbour is where
    its distance falls in its sorted row, found for all rows in one
    ``searchsorted`` (complex numbers order by (row, distance)). O(n) memory per row.
    """
    A = np.asarray(space_a, dtype=np.float64)
    n = A.shape[0]
    nb = _knn(space_b, k)
    out = np.zeros(n)
    sq = (A**2).sum(axis=1)
    index = np.arange(n)
    for start in range(0, n, _BLOCK):
        rows = np.arange(start, min(start + _BLOCK, n))
        local = np.arange(len(rows))
        d = sq[rows, None] + sq[None, :] - 2 * A[rows] @ A.T
        d[local, rows] = np.inf  # a point is not its own neighbour
        t = np.take_along_axis(d, nb[rows], axis=1)
        S = np.sort(d, axis=1)
        ri, ci = np.nonzero(t >= S[:, k - 1 : k])  # the others rank within k
        if not ri.size:
            continue
        keyed = np.empty(S.shape, dtype=np.complex128)
        keyed.real, keyed.imag = local[:, None], S
        dist = t[ri, ci]
        key = np.empty(ri.size, dtype=np.complex128)
        key.real, key.imag = ri, dist
        keyed = keyed.ravel()
        below = np.searchsorted(keyed, key, "left") - ri * n
        rank = below + 1
        tied = np.flatnonzero(np.searchsorted(keyed, key, "right") - ri * n - below > 1)
        if tied.size > len(rows):  # many equal distances (integer data): rank the whole block stably
            order = np.argsort(d, axis=1, kind="stable")
            ranks = np.empty_like(order)
            ranks[local[:, None], order] = np.arange(1, n + 1)
            rank = ranks[ri, nb[rows[ri], ci]]
        elif tied.size:  # a stable sort puts the lower indices first among equal distances
            r, j = ri[tied], nb[rows[ri[tied]], ci[tied]]
            rank[tied] += np.count_nonzero((d[r] == dist[tied, None]) & (index < j[:, None]), axis=1)
        out[rows] = np.bincount(ri, weights=np.maximum(rank - k, 0), minlength=len(rows))
    return out


def _check(X, Y, k):
    n = len(X)
    if len(Y) != n:
        raise ValueError(f"The data has {n} points but the map has {len(Y)}.")
    if not 1 <= k < n / 2:
        raise ValueError(f"k must be between 1 and n/2 = {n / 2:g} (the measure's normalisation), got {k}.")


def trustworthiness(X, Y, k: int = 10, per_point: bool = False):
    """How far the map's neighbours were in the data (1 = every map neighbour is a true one).

    ``T = 1 - 2 / (n k (2n - 3k - 1)) * sum_i sum_{j in U_i} (r(i, j) - k)``, with ``U_i``
    the map's k nearest neighbours of i that are not among its data neighbours and
    ``r`` the rank in the data. The per-point value drops the sum over i.
    """
    _check(X, Y, k)
    n = len(X)
    t = 1.0 - 2.0 / (k * (2 * n - 3 * k - 1)) * _penalty(X, Y, k)
    return t if per_point else float(t.mean())


def continuity(X, Y, k: int = 10, per_point: bool = False):
    """Trustworthiness with the roles swapped: were the data's neighbours kept together in the map?"""
    _check(X, Y, k)
    n = len(X)
    c = 1.0 - 2.0 / (k * (2 * n - 3 * k - 1)) * _penalty(Y, X, k)
    return c if per_point else float(c.mean())


def neighbor_recall(X, Y, k: int = 10, per_point: bool = False):
    """Share of each point's k nearest data neighbours that are also its k nearest in the map."""
    if len(X) != len(Y):
        raise ValueError(f"The data has {len(X)} points but the map has {len(Y)}.")
    a, b = _knn(X, k), _knn(Y, k)
    hits = (a[:, :, None] == b[:, None, :]).any(axis=2).sum(axis=1) / k
    return hits if per_point else float(hits.mean())


def map_quality(X, Y, k: int = 10) -> dict:
    """Trustworthiness, continuity and neighbour recall@k of a map, overall."""
    return {"trustworthiness": trustworthiness(X, Y, k), "continuity": continuity(X, Y, k),
            "recall": neighbor_recall(X, Y, k)}
