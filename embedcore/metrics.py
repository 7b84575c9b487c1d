"""How faithful is a map? Neighbourhood-preservation measures, per point and overall.

scikit-learn's ``sklearn.manifold.trustworthiness`` gives the overall figure
only, from the full n x n distance matrix and its argsort (600 MB and 1.5 times
our time on 5,000 points); the per-point penalty below is what it lacks, and
the overall figure is its mean. The measures agree with scikit-learn's
wherever no two distances tie (tests/unit/test_manifold.py).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from sklearn.metrics import pairwise_distances_chunked
from sklearn.neighbors import KDTree, NearestNeighbors
from sklearn.utils import check_array

__all__ = ["DataRanks", "trustworthiness", "continuity", "neighbour_recall", "nearest", "recall_on_sample", "MapQuality", "map_quality", "order_kept", "far_neighbours"]

#: Megabytes of distances held at once (a block of rows of the n x n matrix): 512 rows of 5,000 points.
_WORKING_MEMORY = 20
#: Up to this many dimensions the ranks are counted with a k-d tree, only for the map neighbours outside
#: each point's k nearest (no n x n block, no sort); above it, distance blocks from BLAS are cheaper.
_DIRECT_DIMS = 16
#: How many nearest points of each are found once to rank map neighbours among (farther ones: the tree counts).
_RANKED = 96


def _knn(X, k):
    """Each point's k nearest other points: ``kneighbors()`` without a query leaves the point itself out,
    also when a duplicate ties with it."""
    return NearestNeighbors(n_neighbors=k).fit(X).kneighbors(return_distance=False)


def _penalty(space_a, space_b, k: int) -> np.ndarray:
    """Per point: sum over points among the k nearest in ``space_b`` but not in ``space_a``
    of (their rank in ``space_a`` - k).

    Ranks follow a stable sort of the distances (equal distances go to the lower
    index). scikit-learn hands over the squared distances a block of rows at a
    time (``pairwise_distances_chunked``); each block is sorted once and the rank
    of a neighbour is where its distance falls in its sorted row, found for all
    rows in one ``searchsorted`` (complex numbers order by (row, distance)).
    """
    return DataRanks(space_a).penalty(_knn(space_b, k), k)


def _penalty_blocks(A, nb, k: int) -> np.ndarray:
    """:func:`_penalty` for many dimensions, from blocks of rows of the squared distance matrix."""
    n = A.shape[0]
    index = np.arange(n)

    def block(d, start):
        rows = np.arange(start, start + len(d))
        local = np.arange(len(rows))
        d[local, rows] = np.inf  # a point is not its own neighbour
        t = np.take_along_axis(d, nb[rows], axis=1)
        S = np.sort(d, axis=1)
        ri, ci = np.nonzero(t >= S[:, k - 1 : k])  # the others rank within k
        if not ri.size:
            return np.zeros(len(rows))
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
        return np.bincount(ri, weights=np.maximum(rank - k, 0), minlength=len(rows))

    chunks = pairwise_distances_chunked(A, reduce_func=block, squared=True, working_memory=_WORKING_MEMORY)
    return np.concatenate(list(chunks))


def _row_keys(rows: np.ndarray) -> np.ndarray:
    """Each entry of ``rows`` as the complex key (row number, value), flattened row by row."""
    keys = np.empty(rows.shape, dtype=np.complex128)
    keys.real, keys.imag = np.arange(len(rows))[:, None], rows
    return keys.ravel()


class DataRanks:
    """The data's side of :func:`trustworthiness`, prepared once for every map of the same points.

    Trustworthiness ranks each map neighbour of a point among the data's distances from
    that point. With few dimensions (at most :data:`_DIRECT_DIMS`) what this needs of the
    data alone is a k-d tree and each point's :data:`_RANKED` nearest distances; neither
    changes from one map of the points to the next, so a page that redraws a map for each
    setting prepares them once (at 20,000 points the nearest distances are most of the cost).
    With more dimensions the ranks come from blocks of the distance matrix, and nothing is
    kept.

    Parameters
    ----------
    X : array-like of shape (n_points, n_features)
        The data.

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(40, 3))
    >>> ranks = DataRanks(X)
    >>> trustworthiness(X, X[:, :2], 5, ranks=ranks) == trustworthiness(X, X[:, :2], 5)
    True
    """

    def __init__(self, X):
        self.X = check_array(X, dtype=np.float64, input_name="X")
        n = len(self.X)
        self.direct = self.X.shape[1] <= _DIRECT_DIMS
        self.tree = KDTree(self.X) if self.direct else None
        self.near = self.tree.query(self.X, k=min(n, _RANKED))[0] if self.direct else None  # itself first
        self._keys = None

    def _nearest(self, k: int) -> np.ndarray:
        if self.near.shape[1] > k or self.near.shape[1] == len(self.X):
            return self.near
        return self.tree.query(self.X, k=min(len(self.X), k + 1))[0]

    def _count(self, near, ri, r) -> np.ndarray:
        """How many of row ``ri``'s nearest distances are at most ``r``, for many (row, distance) pairs at
        once: the rows are sorted, so one ``searchsorted`` over (row, distance) keys (complex numbers
        order by real part, then imaginary) finds them all."""
        width = near.shape[1]
        if near is not self.near:
            keys = _row_keys(near)
        else:
            if self._keys is None:  # kept: the prepared rows serve every map
                self._keys = _row_keys(near)
            keys = self._keys
        q = np.empty(len(ri), dtype=np.complex128)
        q.real, q.imag = ri, r
        return np.searchsorted(keys, q, "right") - ri * width

    def penalty(self, nb: np.ndarray, k: int) -> np.ndarray:
        """Per point: sum over its map neighbours ``nb`` (n, k) that are not among its k nearest in the
        data of (their rank in the data - k). See :func:`_penalty`."""
        if not self.direct:
            return _penalty_blocks(self.X, nb, k)
        A, tree = self.X, self.tree
        n = len(A)
        near = self._nearest(k)
        d = np.sqrt(((A[:, None, :] - A[nb]) ** 2).sum(axis=2))
        # A map neighbour nearer than the point's k-th nearest in the data ranks within k and costs nothing;
        # a margin of rounding: one as near as the k-th is ranked, as are ties.
        ri, ci = np.nonzero(d >= near[:, k : k + 1] * (1 - 1e-9))
        if not ri.size:
            return np.zeros(n)
        # The others are ranked by counting the points within their distance: among the point's nearest,
        # found once, or by the tree (it counts whole nodes that lie inside) for the few farther out. Counted
        # just inside and just outside that distance, the two counts differ by the neighbour alone unless
        # others are equally near; those few are ranked exactly from their row's distances, the equally near
        # ordered by index as a stable sort would.
        r = d[ri, ci]
        lo, hi = r * (1 - 1e-9), r * (1 + 1e-9)
        below = self._count(near, ri, lo)  # the point itself included
        within = self._count(near, ri, hi)
        far = np.flatnonzero(hi >= near[ri, -1])  # beyond the nearest found: the tree counts
        if far.size:
            below[far] = tree.query_radius(A[ri[far]], lo[far], count_only=True)
            within[far] = tree.query_radius(A[ri[far]], hi[far], count_only=True)
        rank = below.astype(np.int64)  # 1 + the others nearer
        for t in np.flatnonzero((within - below != 1) | (r == 0)):  # others as near: rank exactly
            i, j = ri[t], nb[ri[t], ci[t]]
            row = ((A - A[i]) ** 2).sum(axis=1)
            row[i] = np.inf
            rank[t] = 1 + np.count_nonzero(row < row[j]) + np.count_nonzero(row[:j] == row[j])
        return np.bincount(ri, weights=np.maximum(rank - k, 0), minlength=n)


def _points(X, Y):
    """The data and the map as finite 2-D float arrays of the same points (scikit-learn's check_array)."""
    X = check_array(X, dtype=np.float64, input_name="X")
    Y = check_array(Y, dtype=np.float64, input_name="Y")
    if len(Y) != len(X):
        raise ValueError(f"The data has {len(X)} points but the map has {len(Y)}.")
    return X, Y


def _check(X, Y, k):
    X, Y = _points(X, Y)
    n = len(X)
    if not 1 <= k < n / 2:
        raise ValueError(f"k must be between 1 and n/2 = {n / 2:g} (the measure's normalisation), got {k}.")
    return X, Y


def trustworthiness(X, Y, k: int = 10, per_point: bool = False, *, ranks: DataRanks | None = None):
    """How far the map's neighbours were in the data (1 = every map neighbour is a true one).

    ``T = 1 - 2 / (n k (2n - 3k - 1)) * sum_i sum_{j in U_i} (r(i, j) - k)``, with ``U_i``
    the map's k nearest neighbours of i that are not among its data neighbours and
    ``r`` the rank in the data. The per-point value drops the sum over i. ``ranks``:
    the data's side prepared once (:class:`DataRanks` of these ``X``) for many maps.

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(40, 3))
    >>> trustworthiness(X, X, 5), round(trustworthiness(X, X[:, :2], 5), 3)
    (1.0, 0.884)
    """
    X, Y = _check(X, Y, k)
    n = len(X)
    if ranks is not None and ranks.X.shape != X.shape:
        raise ValueError(f"ranks were prepared for data of shape {ranks.X.shape}, not {X.shape}.")
    penalty = _penalty(X, Y, k) if ranks is None else ranks.penalty(_knn(Y, k), k)
    t = 1.0 - 2.0 / (k * (2 * n - 3 * k - 1)) * penalty
    return t if per_point else float(t.mean())


def continuity(X, Y, k: int = 10, per_point: bool = False):
    """Trustworthiness with the roles swapped: were the data's neighbours kept together in the map?

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(40, 3))
    >>> round(continuity(X, X[:, :2], 5), 3)
    0.954
    """
    _check(X, Y, k)
    return trustworthiness(Y, X, k, per_point)


def neighbour_recall(X, Y, k: int = 10, per_point: bool = False, *, approximate: bool = False,
                     random_state: int = 0):
    """Share of each point's k nearest data neighbours that are also its k nearest in the map.

    ``approximate`` finds the data's neighbours with NN-descent (:func:`nearest`), which is what makes the
    figure affordable on 100,000 rows of hundreds of dimensions; the map's (two dimensions) are exact either
    way. :func:`recall_on_sample` measures what the approximation costs.

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(40, 3))
    >>> neighbour_recall(X, X, 5), round(neighbour_recall(X, X[:, :2], 5), 3)
    (1.0, 0.6)
    """
    X, Y = _points(X, Y)
    a = nearest(X, k, approximate=approximate, random_state=random_state)
    hits = _shared(a, nearest(Y, k), k)
    return hits if per_point else float(hits.mean())


def _shared(a: np.ndarray, b: np.ndarray, k: int) -> np.ndarray:
    """Per row, the share of ``a``'s k indices that ``b``'s row also holds."""
    return (a[:, :, None] == b[:, None, :]).any(axis=2).sum(axis=1) / k


#: Rows past which :func:`nearest` may search approximately (below it exact search costs less than NN-descent's
#: start).
APPROXIMATE_ABOVE = 5_000


def nearest(X, k: int, *, approximate: bool = False, random_state: int = 0) -> np.ndarray:
    """Each row's ``k`` nearest other rows (n x k indices, nearest first).

    In up to three dimensions (a map) a k-d tree answers exactly, on every core. Otherwise the search is exact
    (scikit-learn's), or with ``approximate`` and more than :data:`APPROXIMATE_ABOVE` rows, NN-descent's
    (pynndescent, which umap-learn brings): a graph of approximate neighbours refined from its neighbours'
    neighbours, most of the true ones at a fraction of the cost.

    Examples
    --------
    >>> X = np.array([[0.0, 0], [0, 1], [0, 3], [5, 5]])
    >>> nearest(X, 2).tolist()
    [[1, 2], [0, 2], [1, 0], [2, 1]]
    """
    X = np.asarray(X, dtype=np.float64)
    n = len(X)
    if X.shape[1] <= 3:
        from scipy.spatial import cKDTree

        if not np.isfinite(X).all() or float(np.abs(X).max(initial=0.0)) > 1e100:
            return _knn(X, k)  # distances past float64's range: scikit-learn's search copes with them
        _, found = cKDTree(X).query(X, k=k + 1, workers=-1)
    elif approximate and n > APPROXIMATE_ABOVE:
        from pynndescent import NNDescent

        # a graph of 30 neighbours finds the nearest 10 far more often than one of 11 (its search walks it)
        found = NNDescent(np.ascontiguousarray(X, dtype=np.float32), n_neighbors=max(k + 1, 30),
                          random_state=random_state, n_jobs=1, compressed=True).neighbor_graph[0][:, : k + 1]
    else:
        return _knn(X, k)
    return _without_self(np.asarray(found, dtype=np.int64), k)


def _without_self(found: np.ndarray, k: int, rows=None) -> np.ndarray:
    """Rows of k + 1 neighbours (the row itself among them, or not when duplicates tie with it) cut to the k
    others; ``rows``: which row each is (default: 0, 1, ...)."""
    rows = (np.arange(len(found)) if rows is None else np.asarray(rows))[:, None]
    # the others first, in their order (a stable sort of "is it the row itself"), then the first k of them
    order = np.argsort(found == rows, axis=1, kind="stable")
    return np.take_along_axis(found, order, axis=1)[:, :k]


def recall_on_sample(X, Y, k: int = 10, size: int = 2_000, *, random_state: int = 0) -> dict:
    """What approximate neighbours cost the recall figure: on a seeded sample of ``size`` rows, their recall with
    the data's exact neighbours (searched among every row) and with NN-descent's, and the difference.

    Returns ``{"rows": sample size, "exact": mean recall, "approximate": mean recall, "difference": approximate
    - exact, "found": the share of the exact data neighbours NN-descent found}``.

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(300, 8))
    >>> r = recall_on_sample(X, X[:, :2], 5, 100)
    >>> r["rows"], r["difference"], r["found"]
    (100, 0.0, 1.0)
    """
    X, Y = _points(X, Y)
    n = len(X)
    rows = np.arange(n) if n <= size else np.sort(np.random.default_rng(random_state).choice(n, size, replace=False))
    exact = NearestNeighbors(n_neighbors=k + 1, algorithm="brute").fit(X).kneighbors(X[rows], return_distance=False)
    exact = _without_self(np.asarray(exact, dtype=np.int64), k, rows)
    approx = nearest(X, k, approximate=True, random_state=random_state)[rows]
    on_map = nearest(Y, k)[rows]
    e, a = _shared(exact, on_map, k), _shared(approx, on_map, k)
    return {"rows": int(len(rows)), "exact": float(e.mean()), "approximate": float(a.mean()),
            "difference": float(a.mean() - e.mean()), "found": float(_shared(exact, approx, k).mean())}


class MapQuality(NamedTuple):
    """How well a map keeps neighbourhoods, overall (:func:`map_quality`); 1 is perfect for each.

    Attributes
    ----------
    trustworthiness : float
        Were the map's neighbours neighbours in the data?
    continuity : float
        Were the data's neighbours kept together in the map?
    recall : float
        The share of each point's k nearest data neighbours that are its k nearest on the map.

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(40, 3))
    >>> map_quality(X, X, 5).recall
    1.0
    """

    trustworthiness: float
    continuity: float
    recall: float


def map_quality(X, Y, k: int = 10) -> MapQuality:
    """Trustworthiness, continuity and neighbour recall@k of a map, overall.

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(40, 3))
    >>> map_quality(X, X, 5)
    MapQuality(trustworthiness=1.0, continuity=1.0, recall=1.0)
    """
    return MapQuality(trustworthiness(X, Y, k), continuity(X, Y, k), neighbour_recall(X, Y, k))


def order_kept(values, Y) -> float:
    """How well a map keeps the order of a known coordinate (the position along a swiss roll, say): the larger
    absolute Spearman rank correlation of ``values`` with either of the map's two axes.

    1 means that one axis of the map puts the points in the coordinate's order; a map that tears or folds the
    manifold mixes the order and scores low. NaN when ``values`` is not numeric or is constant.

    Examples
    --------
    >>> t = np.arange(10.0)
    >>> round(order_kept(t, np.column_stack([np.sin(t), -t ** 3])), 6)
    1.0
    """
    from scipy.stats import spearmanr

    values = np.asarray(values)
    if values.dtype.kind not in "fiu" or values.size < 3 or np.ptp(values) == 0:
        return float("nan")
    Y = np.asarray(Y, dtype=np.float64)
    best = float("nan")
    for j in range(Y.shape[1]):
        if np.ptp(Y[:, j]) == 0:
            continue
        rho = min(1.0, abs(float(spearmanr(values, Y[:, j])[0])))
        best = rho if not best >= rho else best
    return best


def far_neighbours(values, Y, k: int = 10, part: float = 0.25) -> float:
    """The share of a map's neighbour pairs (each point and its ``k`` nearest on the map) whose known coordinate
    differs by more than ``part`` of its range: points the map puts together from far along the manifold, which
    is what a fold does. NaN when ``values`` is not numeric or is constant.

    Examples
    --------
    >>> t = np.r_[np.arange(20.0), np.arange(20.0) + 100]
    >>> far_neighbours(t, np.column_stack([np.r_[np.arange(20.0), np.arange(20.0)], np.zeros(40)]), k=1)
    1.0
    """
    values = np.asarray(values)
    if values.dtype.kind not in "fiu" or values.size <= k or np.ptp(values) == 0:
        return float("nan")
    ind = _knn(np.asarray(Y, dtype=np.float64), k)
    gap = np.abs(values[:, None].astype(np.float64) - values[ind])
    return float(np.mean(gap > part * np.ptp(values)))
