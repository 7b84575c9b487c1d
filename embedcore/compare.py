"""Comparing embeddings of the same items: do neighbours survive, and is a difference only a rotation?

A map raises three questions, answered here with two measures:

* *Is this neighbourhood real?* :func:`point_neighbours` lists one point's k nearest
  neighbours in the original space next to its k nearest on the map, and which
  are in both; the share in both is that point's neighbour recall
  (:func:`embedcore.metrics.neighbour_recall` with ``per_point=True``).
* *Did a setting change the picture?* :func:`neighbour_overlap` is the same share
  between any two embeddings of the same items, per point and on average; one
  minus the average is the nearest-neighbour variation rate.
* *Or only rotate it?* :func:`procrustes` finds the rotation (or reflection),
  scale and shift that bring one embedding closest to the other, and the
  disparity that remains: 0 when the two differ by such a move alone.

Embeddings made with different settings may not hold the same items (a word
below the minimum count, a song held out); :func:`match_items` pairs the rows
of two embeddings by their ids.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

from .metrics import neighbour_recall

__all__ = [
    "NeighbourOverlap",
    "PointNeighbours",
    "Comparison",
    "neighbour_overlap",
    "procrustes",
    "procrustes_align",
    "align_to",
    "align_sequence",
    "point_neighbours",
    "match_items",
    "compare_embeddings",
    "common_neighbours",
]


def _points(X, name: str) -> np.ndarray:
    A = np.asarray(X, dtype=np.float64)
    if A.ndim == 1:
        A = A[:, None]
    if A.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array of points (one row per item), got {A.ndim} dimensions.")
    if not np.isfinite(A).all():
        raise ValueError(f"{name} holds missing or infinite coordinates; drop those rows first.")
    return A


def _check_k(k: int, n: int) -> int:
    if not 1 <= k <= n - 1:
        raise ValueError(f"k={k} neighbours needs at least k + 1 points; there are {n}, so k must be "
                         f"between 1 and {max(n - 1, 1)}.")
    return int(k)


class NeighbourOverlap(NamedTuple):
    """Per point, the share of its k nearest neighbours in one embedding that are among its k nearest in the
    other; ``mean`` over the points, ``variation`` = 1 - mean (the nearest-neighbour variation rate).

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(30, 2))
    >>> overlap = neighbour_overlap(X, 2 * X, 5)
    >>> overlap.mean, overlap.k, overlap.per_point.shape
    (1.0, 5, (30,))
    """

    per_point: np.ndarray
    mean: float
    k: int

    @property
    def variation(self) -> float:
        return 1.0 - self.mean


def neighbour_overlap(A, B, k: int = 10) -> NeighbourOverlap:
    """How many of each point's k nearest neighbours in ``A`` are also among its k nearest in ``B``.

    Rows of ``A`` and ``B`` are the same items (see :func:`match_items`); the two may
    have different dimensions. A point is not its own neighbour. The measure is
    symmetric: both lists have k members, so the shared count is the same either way.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> A = rng.normal(size=(100, 3))
    >>> neighbour_overlap(A, 2 * A + 1, k=5).mean  # a similarity keeps every neighbour
    1.0
    >>> round(neighbour_overlap(A, rng.normal(size=(100, 3)), k=5).mean, 2)  # unrelated: near k/n by chance
    0.03
    """
    A, B = _points(A, "A"), _points(B, "B")
    if len(A) != len(B):
        raise ValueError(f"A has {len(A)} items and B has {len(B)}: compare the same items (see match_items).")
    k = _check_k(k, len(A))
    per_point = np.asarray(neighbour_recall(A, B, k, per_point=True), dtype=np.float64)
    return NeighbourOverlap(per_point, float(per_point.mean()), k)


def procrustes_align(points, target):
    """``points`` rotated (or reflected), scaled and shifted onto ``target`` in the least-squares sense.

    Returns the aligned points and the disparity: the remaining squared error over
    the squared spread of ``target`` around its mean, between 0 (same shape) and 1.
    It equals the disparity of :func:`scipy.spatial.procrustes`, which standardises
    both sets first; here ``target`` keeps its units, so the aligned points can be
    drawn over it.

    Examples
    --------
    >>> square = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    >>> turned = 3 * square @ np.array([[0.0, -1.0], [1.0, 0.0]]) + 5
    >>> aligned, disparity = procrustes_align(turned, square)
    >>> np.allclose(aligned, square), round(disparity, 12)
    (True, 0.0)
    """
    from scipy.linalg import orthogonal_procrustes

    A = np.asarray(points, dtype=np.float64)
    B = np.asarray(target, dtype=np.float64)
    if A.shape != B.shape:
        raise ValueError(f"points {A.shape} and target {B.shape} must have the same shape.")
    A0, B0 = A - A.mean(0), B - B.mean(0)
    R, _ = orthogonal_procrustes(A0, B0)
    scale = np.trace(B0.T @ A0 @ R) / max(np.trace(A0.T @ A0), 1e-12)
    aligned = scale * A0 @ R + B.mean(0)
    disparity = float(((aligned - B) ** 2).sum() / max((B0**2).sum(), 1e-300))
    return aligned, disparity


def _pad(A: np.ndarray, width: int) -> np.ndarray:
    return A if A.shape[1] == width else np.hstack([A, np.zeros((len(A), width - A.shape[1]))])


def procrustes(reference, moving):
    """``moving`` aligned onto ``reference`` (rotation or reflection, scale, shift), and the disparity left.

    Like :func:`procrustes_align`, but the two may differ in dimensions: the narrower
    is padded with zero columns (a 2-D map compared with a 5-D embedding sits in
    a plane of the 5-D space), and the aligned points have the wider width.
    The disparity is symmetric: swapping the two gives the same value.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> A = rng.normal(size=(50, 2))
    >>> aligned, d = procrustes(A, -A @ [[0.0, 1.0], [1.0, 0.0]] * 4)
    >>> bool(np.allclose(aligned, A)), round(d, 12)
    (True, 0.0)
    """
    R, M = _points(reference, "reference"), _points(moving, "moving")
    if len(R) != len(M):
        raise ValueError(f"reference has {len(R)} items and moving has {len(M)}: align the same items "
                         "(see match_items).")
    if len(R) < 2:
        raise ValueError("Procrustes alignment needs at least 2 items.")
    width = max(R.shape[1], M.shape[1])
    return procrustes_align(_pad(M, width), _pad(R, width))


def align_to(moving, reference, moving_ids=None, reference_ids=None):
    """Every row of ``moving`` turned (or reflected), scaled and shifted onto ``reference``, and the disparity
    of the items both hold.

    The rotation and shift are the least-squares fit of the shared items (matched by id, or row by
    row when no ids are given); the scale gives the shared items the same spread (root mean square
    distance from their centre) as in ``reference``. The least-squares scale would shrink a map that
    fits badly, and maps aligned one after another would shrink without end. The transform is
    applied to all of ``moving``, so items new to it move with the rest. With fewer than 3 shared
    items there is nothing to fit: ``moving`` comes back as it is, with a disparity of NaN. A map
    redrawn for a new setting is aligned this way to the map on screen, so what changes is what the
    setting moved, not an arbitrary turn.

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> A = rng.normal(size=(30, 2))
    >>> B = 2 * A @ np.array([[0.0, 1.0], [-1.0, 0.0]]) + 7
    >>> aligned, d = align_to(B, A)
    >>> bool(np.allclose(aligned, A)), round(d, 12)
    (True, 0.0)
    """
    M = np.asarray(moving, dtype=np.float64)
    R = np.asarray(reference, dtype=np.float64)
    if moving_ids is None or reference_ids is None:
        n = min(len(M), len(R))
        im = ir = np.arange(n)
    else:
        ir, im = match_items(reference_ids, moving_ids)
    ok = np.isfinite(M[im]).all(1) & np.isfinite(R[ir]).all(1)
    im, ir = im[ok], ir[ok]
    if len(im) < 3 or M.shape[1] != R.shape[1]:
        return M.copy(), float("nan")
    from scipy.linalg import orthogonal_procrustes

    A, B = M[im], R[ir]
    ma, mb = A.mean(0), B.mean(0)
    A0, B0 = A - ma, B - mb
    rot, _ = orthogonal_procrustes(A0, B0)
    scale = np.sqrt((B0**2).sum() / max((A0**2).sum(), 1e-300))
    aligned = scale * (M - ma) @ rot + mb
    disparity = float(((aligned[im] - B) ** 2).sum() / max((B0**2).sum(), 1e-300))
    return aligned, disparity


class PointNeighbours(NamedTuple):
    """One point's k nearest neighbours in the original space (``data``) and on the map (``map``), nearest
    first, with their distances; ``in_map`` / ``in_data`` flag the members of each list found in the other.

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(30, 2))
    >>> found = point_neighbours(X, X, 0, 3)
    >>> found.point, bool((found.data == found.map).all()), bool(found.in_map.all())
    (0, True, True)
    """

    point: int
    data: np.ndarray
    data_distance: np.ndarray
    map: np.ndarray
    map_distance: np.ndarray
    in_map: np.ndarray
    in_data: np.ndarray

    @property
    def recall(self) -> float:
        """Share of the data neighbours kept on the map: this point's neighbour recall@k."""
        return float(self.in_map.mean())

    @property
    def shared(self) -> np.ndarray:
        """The neighbours in both lists, in the data list's order."""
        return self.data[self.in_map]


def align_sequence(frames, anchor: int, reference=None) -> list[np.ndarray]:
    """Maps of the same rows at a sequence of settings, each aligned (:func:`align_to`) to its neighbour: the map
    at ``anchor`` onto ``reference`` (or kept as it is), then outward from it, each onto the one aligned before.
    Morphing from one to the next then shows what the setting changed, not an arbitrary turn.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> A = rng.normal(size=(20, 2))
    >>> turn = np.array([[0.0, -1.0], [1.0, 0.0]])
    >>> out = align_sequence([A @ turn, A, 3 * A @ turn.T], 1)
    >>> [bool(np.allclose(m, A)) for m in out]
    [True, True, True]
    """
    maps = [np.asarray(f, dtype=np.float64) for f in frames]
    out: list = [None] * len(maps)
    out[anchor] = maps[anchor] if reference is None else align_to(maps[anchor], reference)[0]
    for k in range(anchor + 1, len(maps)):
        out[k] = align_to(maps[k], out[k - 1])[0]
    for k in range(anchor - 1, -1, -1):
        out[k] = align_to(maps[k], out[k + 1])[0]
    return out


def _nearest(P: np.ndarray, i: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    d = np.sqrt(((P - P[i]) ** 2).sum(axis=1))
    d[i] = np.inf  # a point is not its own neighbour
    order = np.argsort(d, kind="stable")[:k]  # equal distances: the lower index first
    return order, d[order]


def point_neighbours(X, Y, i: int, k: int = 10) -> PointNeighbours:
    """Point ``i``'s k nearest neighbours in the data ``X`` and on the map ``Y``, side by side.

    Euclidean distances, computed for this one point only (O(n) per space). The share
    of the data neighbours found on the map is the point's entry of
    ``neighbour_recall(X, Y, k, per_point=True)`` wherever no two distances tie.

    Examples
    --------
    >>> X = np.array([[0.0], [1.0], [2.0], [10.0]])
    >>> Y = np.array([[0.0], [5.0], [1.0], [2.0]])
    >>> nb = point_neighbours(X, Y, 0, k=2)
    >>> nb.data.tolist(), nb.map.tolist(), nb.recall
    ([1, 2], [2, 3], 0.5)
    """
    X, Y = _points(X, "X"), _points(Y, "Y")
    if len(X) != len(Y):
        raise ValueError(f"The data has {len(X)} points but the map has {len(Y)}.")
    n = len(X)
    if not 0 <= i < n:
        raise ValueError(f"Point {i} does not exist: the points are numbered 0 to {n - 1}.")
    k = _check_k(k, n)
    data, data_d = _nearest(X, int(i), k)
    on_map, map_d = _nearest(Y, int(i), k)
    return PointNeighbours(int(i), data, data_d, on_map, map_d, np.isin(data, on_map), np.isin(on_map, data))


def match_items(ids_a, ids_b) -> tuple[np.ndarray, np.ndarray]:
    """Row positions ``(ia, ib)`` of the items both id lists hold, in ``ids_b``'s order.

    ``A[ia]`` and ``B[ib]`` are then the same items row by row. Ids are compared as
    given (a word, a song id, a point number); each list's ids must be distinct.

    Examples
    --------
    >>> match_items(["a", "b", "c"], ["c", "x", "a"])
    (array([2, 0]), array([0, 2]))
    """
    a, b = pd.Index(list(ids_a)), pd.Index(list(ids_b))
    for name, idx in (("ids_a", a), ("ids_b", b)):
        if not idx.is_unique:
            raise ValueError(f"{name} repeats {idx[idx.duplicated()][0]!r}: each item needs its own id.")
    pos = a.get_indexer(b)
    ib = np.flatnonzero(pos >= 0)
    return pos[ib], ib


class Comparison(NamedTuple):
    """Two embeddings of the same items compared: the neighbour overlap at k (per item, in ``B``'s order of
    the shared items), the Procrustes disparity, and ``A`` aligned onto ``B``.

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(30, 2))
    >>> result = compare_embeddings(X, 2 * X, 5)
    >>> result.overlap.mean, result.disparity < 1e-12
    (1.0, True)
    """

    ids: np.ndarray  # positions in B of the items both hold
    overlap: NeighbourOverlap
    disparity: float
    aligned: np.ndarray

    @property
    def shared(self) -> int:
        return len(self.ids)


def compare_embeddings(A, B, k: int = 10, ids_a=None, ids_b=None) -> Comparison:
    """Neighbour overlap at k and Procrustes disparity between embeddings ``A`` and ``B``.

    With ``ids_a`` and ``ids_b`` the rows are paired by id (:func:`match_items`) and only
    the items both hold are compared; without them, row i of each is the same item.
    ``aligned`` is ``A`` (those rows) moved onto ``B`` by :func:`procrustes`.

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> B = rng.normal(size=(60, 2))
    >>> c = compare_embeddings(B[::-1] @ [[0.0, -1.0], [1.0, 0.0]], B, k=5, ids_a=range(59, -1, -1), ids_b=range(60))
    >>> c.shared, c.overlap.mean, round(c.disparity, 12)
    (60, 1.0, 0.0)
    """
    A, B = _points(A, "A"), _points(B, "B")
    if ids_a is None and ids_b is None:
        ia = ib = np.arange(len(B))
        if len(A) != len(B):
            raise ValueError(f"A has {len(A)} items and B has {len(B)}: pass their ids to compare the shared ones.")
    elif ids_a is None or ids_b is None:
        raise ValueError("Pass the ids of both embeddings, or of neither.")
    else:
        ia, ib = match_items(ids_a, ids_b)
        if len(ids_a) != len(A) or len(ids_b) != len(B):
            raise ValueError("Each embedding needs one id per row.")
    if len(ib) < k + 1:
        raise ValueError(f"The two embeddings share {len(ib)} items; comparing {k} neighbours needs at least "
                         f"{k + 1}.")
    overlap = neighbour_overlap(A[ia], B[ib], k)
    aligned, disparity = procrustes(B[ib], A[ia])
    return Comparison(ib, overlap, disparity, aligned)


def common_neighbours(X, rows, k: int = 10, *, block: int = 256) -> tuple[np.ndarray, np.ndarray]:
    """The items that most often appear among the k nearest neighbours of the items ``rows`` in ``X``.

    Returns ``(items, counts)``, most frequent first (ties: lower index first): how
    many of the chosen items have each item among their k nearest (Euclidean; on
    unit rows that is cosine order). A chosen item can be a neighbour of another
    chosen one; the caller decides whether to show those. Distances are taken
    ``block`` chosen rows at a time, so memory stays at ``block`` x n.

    Examples
    --------
    >>> X = np.array([[0.0], [1.0], [1.5], [5.0], [6.0]])
    >>> common_neighbours(X, [0, 2], k=1)
    (array([1]), array([2]))
    """
    X = _points(X, "X")
    rows = np.asarray(rows, dtype=np.int64).ravel()
    n = len(X)
    if rows.size and not (0 <= rows.min() and rows.max() < n):
        raise ValueError(f"rows must be positions between 0 and {n - 1}.")
    k = _check_k(k, n)
    counts = np.zeros(n, dtype=np.int64)
    sq = (X**2).sum(axis=1)
    for start in range(0, rows.size, block):
        r = rows[start : start + block]
        d = sq[r, None] - 2 * X[r] @ X.T + sq[None, :]
        d[np.arange(len(r)), r] = np.inf  # an item is not its own neighbour
        top = np.argpartition(d, k - 1, axis=1)[:, :k] if k < n - 1 else np.argsort(d, axis=1)[:, :k]
        counts += np.bincount(top.ravel(), minlength=n)
    items = np.flatnonzero(counts)
    order = np.lexsort((items, -counts[items]))
    return items[order], counts[items[order]]
