"""Isomap on many points: geodesic distances to a few landmarks, not between every pair.

Isomap (Tenenbaum, de Silva and Langford, 2000) measures distances along the data: a graph joins each point to its
``k`` nearest, the shortest path through it stands for the distance along the manifold, and classical MDS lays
those distances out in the plane. Its full form keeps an n x n matrix of path lengths: 3.2 GB at 20,000 points,
80 GB at 100,000. Landmark Isomap (de Silva and Tenenbaum, 2003) keeps the paths from ``m`` landmarks only
(m x n): MDS places the landmarks from their distances among themselves, and every other point is placed by
triangulation from its distances to them,

    y = -1/2 L# (d² - mean of the landmarks' d²),

where L# holds the landmarks' leading eigenvectors divided by the roots of their eigenvalues. With the
landmarks spread over the manifold (farthest-point choice, here) it unrolls what full Isomap unrolls.

Where the k-nearest graph falls into pieces, the distance between pieces is infinite and no Isomap is defined:
:func:`landmark_isomap` says so and how many pieces there are, rather than inventing bridges.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components, dijkstra
from sklearn.neighbors import NearestNeighbors

__all__ = ["LANDMARKS", "landmark_isomap", "neighbour_graph"]

#: Landmarks used by default: their m x n paths (float32) are 40 MB at 100,000 points.
LANDMARKS = 100


def neighbour_graph(X, k: int, *, n_jobs: int | None = None) -> sp.csr_matrix:
    """Each point joined to its ``k`` nearest others, with the distance as the edge's length, both ways.

    Examples
    --------
    >>> G = neighbour_graph(np.array([[0.0], [1.0], [3.0]]), 1)
    >>> G.toarray().tolist()
    [[0.0, 1.0, 0.0], [1.0, 0.0, 2.0], [0.0, 2.0, 0.0]]
    """
    X = np.asarray(X, dtype=np.float64)
    G = NearestNeighbors(n_neighbors=k, n_jobs=n_jobs).fit(X).kneighbors_graph(mode="distance")
    return G.maximum(G.T).tocsr()


def _landmarks(G, m: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """``m`` landmarks chosen farthest-first along the graph (the first at random) and their path lengths to
    every point (m x n, float32)."""
    n = G.shape[0]
    chosen = [int(rng.integers(n))]
    paths = np.empty((m, n), dtype=np.float32)
    nearest = np.full(n, np.inf)
    for j in range(m):
        d = dijkstra(G, directed=False, indices=chosen[j])
        paths[j] = d
        nearest = np.minimum(nearest, d)
        if j + 1 < m:
            chosen.append(int(np.argmax(nearest)))
    return np.asarray(chosen), paths


def landmark_isomap(X, n_neighbors: int = 12, n_components: int = 2, *, landmarks: int = LANDMARKS,
                    random_state=None, n_jobs: int | None = None) -> np.ndarray:
    """An (n, n_components) Isomap map of ``X`` from path lengths to ``landmarks`` points.

    Raises ValueError when the ``n_neighbors``-nearest graph is in pieces (Isomap has no distance between them).

    Examples
    --------
    >>> from embedcore.datasets import make_swiss_roll
    >>> roll = make_swiss_roll(3000)
    >>> Y = landmark_isomap(roll.X, 10, random_state=0)
    >>> from scipy.stats import spearmanr
    >>> bool(abs(spearmanr(Y[:, 0], roll.meta["t"])[0]) > 0.95)
    True
    """
    X = np.asarray(X, dtype=np.float64)
    n = len(X)
    if n_neighbors >= n:
        raise ValueError(f"Isomap with {n_neighbors} neighbours needs more than {n_neighbors} points; "
                         f"these data have {n}.")
    G = neighbour_graph(X, n_neighbors, n_jobs=n_jobs)
    pieces, which = connected_components(G, directed=False)
    if pieces > 1:
        largest = int(np.bincount(which).max())
        raise ValueError(
            f"The {n_neighbors}-nearest-neighbour graph of these {n:,} points falls into {pieces:,} pieces (the "
            f"largest holds {largest:,}): Isomap's distances along the data are infinite between them. Raise the "
            "neighbours until the graph is connected, or map the pieces apart.")
    m = int(min(max(landmarks, n_components + 1), n))
    rng = np.random.default_rng(random_state)
    chosen, paths = _landmarks(G, m, rng)
    # classical MDS of the landmarks from their squared paths among themselves
    D2 = paths[:, chosen].astype(np.float64) ** 2
    D2 = (D2 + D2.T) / 2
    mean = D2.mean(axis=0)
    B = -0.5 * (D2 - mean[None, :] - mean[:, None] + mean.mean())
    vals, vecs = np.linalg.eigh(B)
    top = np.argsort(vals)[::-1][:n_components]
    vals, vecs = vals[top], vecs[:, top]
    keep = vals > 1e-12 * max(vals[0], 1e-300)
    pinv = np.zeros((n_components, m))
    pinv[keep] = (vecs[:, keep] / np.sqrt(vals[keep])).T
    # every point from its squared paths to the landmarks
    Y = -0.5 * (pinv @ (paths.astype(np.float64) ** 2 - mean[:, None])).T
    # signs as a rule fixes them: the largest entry of each axis positive
    flip = np.sign(Y[np.argmax(np.abs(Y), axis=0), np.arange(n_components)])
    return Y * np.where(flip == 0, 1.0, flip)
