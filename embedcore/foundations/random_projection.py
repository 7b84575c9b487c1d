"""Johnson-Lindenstrauss: random projections (orthonormal, Gaussian, sparse) built a block of vectors at a time, the distortion of distances they cause, the lemma's bounds, and PCA beside them."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


def jl_min_dim(n_samples: int, eps: float) -> int:
    """Dimensions a random projection needs to keep all squared distances within 1 +- eps
    (scikit-learn's bound ``4 ln n / (eps^2 / 2 - eps^3 / 3)``).

    Examples
    --------
    >>> jl_min_dim(300, 0.3)
    633
    """
    from sklearn.random_projection import johnson_lindenstrauss_min_dim

    if not 0 < eps < 1:
        raise ValueError(f"eps must be between 0 and 1, got {eps}.")
    return int(johnson_lindenstrauss_min_dim(n_samples, eps=eps))


def random_projection(X, k: int, kind: str = "gaussian", random_state=0):
    """Project to ``k`` dimensions with a Gaussian or sparse (Achlioptas/Li) random matrix.

    Examples
    --------
    >>> random_projection(np.ones((10, 50)), 4, random_state=0).shape
    (10, 4)
    """
    from sklearn.random_projection import (
        GaussianRandomProjection,
        SparseRandomProjection,
    )

    if kind not in ("gaussian", "sparse"):
        raise ValueError(f"kind must be 'gaussian' or 'sparse', got {kind!r}.")
    cls = GaussianRandomProjection if kind == "gaussian" else SparseRandomProjection
    proj = cls(n_components=int(k), random_state=random_state)
    Y = proj.fit_transform(X)
    return np.asarray(Y.toarray() if hasattr(Y, "toarray") else Y)


def distance_distortion(X, Y, n_pairs: int = 5000, random_state=0) -> np.ndarray:
    """Ratios ``||y_i - y_j||^2 / ||x_i - x_j||^2`` over random pairs of distinct points.

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(20, 5))
    >>> ratios = distance_distortion(X, 2 * X, n_pairs=50)
    >>> bool(np.allclose(ratios, 4.0))  # squared distances, all doubled lengths
    True
    """
    Y = np.asarray(Y, dtype=np.float64)
    i, j, dx = distance_pairs(X, n_pairs, random_state)
    return ((Y[i] - Y[j]) ** 2).sum(axis=1) / dx


def pca_vs_jl(X, ks, *, random_state=0, n_pairs: int = 3000):
    """For each k: relative reconstruction error and distance distortion of PCA and of a Gaussian JL map.

    Reconstruction of JL: the orthogonal projection onto the random subspace
    (the best any linear decoder can do from the k random coordinates).
    Distortion: the median of ``|ratio - 1|`` over the squared-distance ratios
    of the same random pairs (:func:`distance_pairs`) for every k and both maps.

    Examples
    --------
    >>> from embedcore.foundations import correlated_cloud, standardise
    >>> X = standardise(correlated_cloud(300, random_state=0))
    >>> table = pca_vs_jl(X, [1, 2])
    >>> bool((table["pca_reconstruction"] <= table["jl_reconstruction"]).all())
    True
    """
    import pandas as pd

    X = np.asarray(X, dtype=np.float64)
    Xc = X - X.mean(axis=0)
    total = (Xc**2).sum()
    ks = [int(k) for k in ks]
    s2, scores = _pca_scores(Xc, max(ks, default=0))
    i, j, d2 = distance_pairs(Xc, n_pairs, random_state)
    # squared distances between the pairs in the first k principal coordinates, for every k at once
    pca_d2 = np.cumsum((scores[i] - scores[j]) ** 2, axis=1)
    rng = np.random.default_rng(random_state)
    rows = []
    for k in ks:
        pca_err = 1 - s2[:k].sum() / total
        R = rng.standard_normal((X.shape[1], k)) / np.sqrt(k)
        Q, _ = np.linalg.qr(R)
        # Q has orthonormal columns: what the projection misses is the energy outside span(Q)
        jl_err = max(total - ((Xc @ Q) ** 2).sum(), 0.0) / total
        Y = Xc @ R
        d_pca = pca_d2[:, min(k, pca_d2.shape[1]) - 1] / d2 if len(d2) else d2
        d_jl = ((Y[i] - Y[j]) ** 2).sum(axis=1) / d2
        rows.append({"k": k, "pca_reconstruction": pca_err, "jl_reconstruction": jl_err,
                     "pca_distortion": float(np.median(np.abs(d_pca - 1))) if len(d2) else np.nan,
                     "jl_distortion": float(np.median(np.abs(d_jl - 1))) if len(d2) else np.nan})
    return pd.DataFrame(rows)


def _pca_scores(Xc, k: int):
    """Eigenvalues of ``Xc^T Xc`` (largest first, every one) and the top-``k`` principal coordinates (n, k).

    Through the smaller of the two Gram matrices: the same numbers as an SVD
    of ``Xc`` for the top components, at a fraction of its cost when the
    matrix is wide (300 documents x 7,168 words).
    """
    n, d = Xc.shape
    if n <= d:
        w, U = np.linalg.eigh(Xc @ Xc.T)
        w, U = np.clip(w[::-1], 0, None), U[:, ::-1]
        scores = U[:, :k] * np.sqrt(w[:k])
    else:
        w, V = np.linalg.eigh(Xc.T @ Xc)
        w, V = np.clip(w[::-1], 0, None), V[:, ::-1]
        scores = Xc @ V[:, :k]
    return w, scores


def k_grid(limit: int) -> tuple:
    """Up to seven dimensions between 2 and ``limit`` (the data's rank limit), roughly doubling.

    Examples
    --------
    >>> k_grid(64)
    (2, 4, 8, 16, 32, 64)
    >>> k_grid(300)
    (8, 16, 32, 64, 128, 256, 300)
    >>> k_grid(1)
    (1,)
    """
    grid = sorted({k for k in (2, 4, 8, 16, 32, 64, 128, 256) if k < limit} | {int(limit)})
    return tuple(grid[-7:]) if len(grid) > 7 else tuple(grid)


def distance_pairs(X, n_pairs: int = 4000, random_state=0):
    """Random pairs of rows and their squared distances: ``(i, j, d2)``, pairs at distance 0 left out.

    The same pairs :func:`distance_distortion` draws for the same
    ``random_state``; computed in chunks, so a wide matrix never needs an
    ``n_pairs x d`` temporary.

    Examples
    --------
    >>> i, j, d2 = distance_pairs(np.eye(3), 10, random_state=0)
    >>> bool(np.all(i != j)) and set(np.round(d2, 9).tolist()) == {2.0}
    True
    """
    X = np.asarray(X, dtype=np.float64)
    rng = np.random.default_rng(random_state)
    i = rng.integers(0, len(X), n_pairs)
    j = rng.integers(0, len(X), n_pairs)
    chunk = max(1, 2**21 // max(X.shape[1], 1))
    d2 = np.concatenate([((X[i[a:a + chunk]] - X[j[a:a + chunk]]) ** 2).sum(axis=1)
                         for a in range(0, n_pairs, chunk)]) if n_pairs else np.zeros(0)
    keep = d2 > 0
    return i[keep], j[keep], d2[keep]


#: Columns of random coordinates drawn together (see :func:`projection_block`).
JL_BLOCK = 256


#: The random matrices :func:`projection_block` draws.
PROJECTION_KINDS = ("orthonormal", "gaussian", "sparse")


#: Up to this many dimensions the orthonormal frame is built in one Householder QR of the Gaussian draws; above
#: it, a block at a time from the draws' Gram matrix (see :func:`extend_orthonormal`).
_QR_DIMENSIONS = 2 * JL_BLOCK


def _check_kind(kind: str) -> None:
    if kind not in PROJECTION_KINDS:
        raise ValueError(f"kind must be one of {', '.join(map(repr, PROJECTION_KINDS))}, got {kind!r}.")


def _gaussian_slabs(d: int, blocks: int, width: int, random_state, rows: int):
    """The Gaussian draws of blocks ``0 .. blocks - 1``, ``rows`` rows at a time: ``(a, b, [slab of each block])``.

    Block ``c`` is the stream ``default_rng([random_state, c])`` read row after
    row, the same numbers :func:`projection_block` draws for ``"gaussian"``
    whatever the slab height.
    """
    rngs = [np.random.default_rng([int(random_state), c]) for c in range(blocks)]
    for a in range(0, d, rows):
        b = min(d, a + rows)
        yield a, b, [rng.standard_normal((b - a, width)) for rng in rngs]


class OrthonormalState(NamedTuple):
    """How far :func:`extend_orthonormal` has built a random orthonormal frame, applied to ``X``.

    With ``G`` the Gaussian draws so far and ``Q`` the frame, ``G = Q L^T``
    (``L`` lower triangular with a positive diagonal: Gram-Schmidt).

    Examples
    --------
    >>> state = extend_orthonormal(np.eye(4), width=2)
    >>> state.blocks
    1
    """

    #: ``L``'s rows, a block at a time: block c is (its vectors, vectors up to its last)
    rows: tuple
    #: ``X Q``, a block of columns at a time (not yet scaled)
    XQ: tuple
    #: blocks of ``width`` vectors drawn so far
    blocks: int


def _lower(rows) -> np.ndarray:
    """The lower-triangular matrix whose row blocks are ``rows``."""
    n = sum(len(r) for r in rows)
    L = np.zeros((n, n))
    top = 0
    for r in rows:
        L[top:top + len(r), :r.shape[1]] = r
        top += len(r)
    return L


def extend_orthonormal(X, state: OrthonormalState | None = None, *, width: int = JL_BLOCK,
                       random_state=0) -> OrthonormalState:
    """Add the next ``width`` vectors of a uniformly random orthonormal frame to ``state`` (or start one).

    The frame is the Gram-Schmidt orthonormalisation of the Gaussian columns
    :func:`projection_block` draws for ``"gaussian"`` (same ``random_state``
    and ``width``), so its first k vectors span a uniformly random
    k-dimensional subspace for every k. Above :data:`_QR_DIMENSIONS`
    dimensions only the new block's products are formed: ``C = G^T G_b``
    over the draws so far and ``X G_b``; then ``L``'s new rows come from a
    triangular solve and a Cholesky factor of the Schur complement, and
    ``X Q_b = (X G_b - X Q_<b L_21^T) L_22^-T``. The draws' condition number
    stays small while the frame is well short of ``d`` vectors, where the
    Gram matrix is accurate; a frame in at most :data:`_QR_DIMENSIONS`
    dimensions is built in one Householder QR instead. An orthonormal frame
    has at most ``d`` vectors: the last block is narrower when ``d`` is not
    a multiple of ``width``.

    Examples
    --------
    >>> X = np.random.default_rng(0).standard_normal((5, 40))
    >>> state = extend_orthonormal(X, width=16)
    >>> state = extend_orthonormal(X, state, width=16)
    >>> Q = orthonormal_frame(40, 32, width=16)
    >>> bool(np.allclose(np.hstack(state.XQ), X @ Q))
    True
    """
    from scipy.linalg import solve_triangular

    X = np.asarray(X, dtype=np.float64)
    n, d = X.shape
    b = 0 if state is None else state.blocks
    start = b * width
    if start >= d:
        raise ValueError(f"An orthonormal frame in {d} dimensions has {d} vectors; block {b} would start at "
                         f"vector {start}. Ask for k <= {d}.")
    cols = min(start + width, d)
    bounds = [(c * width, min((c + 1) * width, cols)) for c in range(b + 1)]
    if d <= _QR_DIMENSIONS:
        G = np.hstack(next(_gaussian_slabs(d, b + 1, width, random_state, d))[2])[:, :cols]
        Q, R = np.linalg.qr(G)
        sign = np.where(np.diag(R) < 0, -1.0, 1.0)
        L, XQ = (R * sign[:, None]).T, X @ (Q * sign)
        return OrthonormalState(tuple(L[lo:hi, :hi] for lo, hi in bounds), tuple(XQ[:, lo:hi] for lo, hi in bounds),
                                b + 1)
    rows = max(1, 2**21 // ((b + 1) * width))
    C = np.zeros((cols, cols - start))  # the draws so far against the new block's
    XG = np.zeros((n, cols - start))
    for a, e, slabs in _gaussian_slabs(d, b + 1, width, random_state, rows):
        new = slabs[-1][:, :cols - start]
        for c, part in enumerate(slabs[:-1]):  # the earlier blocks' draws against the new ones
            C[c * width:(c + 1) * width] += part.T @ new
        C[start:] += new.T @ new
        XG += X[:, a:e] @ new
    if state is None:
        L21 = np.zeros((cols, 0))
        rest = XG
    else:
        L21 = solve_triangular(_lower(state.rows), C[:start], lower=True).T
        rest = XG - np.hstack(state.XQ) @ L21.T
    L22 = np.linalg.cholesky(C[start:] - L21 @ L21.T)
    XQ_b = solve_triangular(L22, rest.T, lower=True).T
    old_rows, old_XQ = ((), ()) if state is None else (state.rows, state.XQ)
    return OrthonormalState(old_rows + (np.hstack([L21, L22]),), old_XQ + (XQ_b,), b + 1)


def orthonormal_frame(d: int, k: int, *, width: int = JL_BLOCK, random_state=0) -> np.ndarray:
    """A random d x k matrix with orthonormal columns spanning a uniformly random k-dimensional subspace.

    The frame :func:`extend_orthonormal` builds (applied to the identity):
    the frame for k is the first k columns of the frame for any larger k.
    :func:`projection_block` with ``kind="orthonormal"`` gives ``sqrt(d) X``
    times it, block by block.

    Examples
    --------
    >>> Q = orthonormal_frame(50, 20, random_state=0)
    >>> Q.shape, bool(np.allclose(Q.T @ Q, np.eye(20)))
    ((50, 20), True)
    >>> bool(np.allclose(orthonormal_frame(50, 5, random_state=0), Q[:, :5]))
    True
    """
    d, k = int(d), int(k)
    if not 1 <= k <= d:
        raise ValueError(f"An orthonormal frame in {d} dimensions has 1 to {d} vectors; got k={k}.")
    state = None
    for _ in range(-(-k // width)):
        state = extend_orthonormal(np.eye(d), state, width=width, random_state=random_state)
    return np.hstack(state.XQ)[:, :k]


def orthonormal_projection(X, k: int, *, random_state=0) -> np.ndarray:
    """The Johnson-Lindenstrauss transform as the lemma states it: onto a random k-subspace, times sqrt(d / k).

    Projecting a d-dimensional vector onto a random k-dimensional subspace
    keeps k/d of its squared length on average; the factor ``sqrt(d / k)``
    makes every squared length, and so every squared distance, right in
    expectation. The subspace is :func:`orthonormal_frame`'s.

    Examples
    --------
    >>> X = np.random.default_rng(1).standard_normal((5, 200))
    >>> Y = orthonormal_projection(X, 200)  # k = d: a rotation, every distance kept
    >>> bool(np.allclose(np.linalg.norm(Y[0] - Y[1]), np.linalg.norm(X[0] - X[1])))
    True
    """
    X = np.asarray(X, dtype=np.float64)
    d, k = X.shape[1], int(k)
    if not 1 <= k <= d:
        raise ValueError(f"An orthonormal frame in {d} dimensions has 1 to {d} vectors; got k={k}.")
    state = None
    for _ in range(-(-k // JL_BLOCK)):  # X times the frame, without forming the d x k frame itself
        state = extend_orthonormal(X, state, random_state=random_state)
    return np.sqrt(d / k) * np.hstack(state.XQ)[:, :k]


def projection_block(X, block: int, *, kind: str = "gaussian", width: int = JL_BLOCK, random_state=0) -> np.ndarray:
    """Columns ``block * width`` to ``(block + 1) * width`` of ``X @ R``, unscaled.

    ``R`` has as many columns as needed, with entries of mean 0 and variance
    1: standard normal (``"gaussian"``); for ``"sparse"``, ``+-sqrt(s)`` with
    probability ``1 / (2 s)`` each and 0 otherwise, with ``s = sqrt(d)`` (Li,
    Hastie and Church's very sparse projections, the density scikit-learn's
    ``SparseRandomProjection`` chooses; Achlioptas's original has ``s = 3``);
    for ``"orthonormal"``, ``sqrt(d)`` times a uniformly random orthonormal
    frame (:func:`orthonormal_frame`), so the first k columns divided by
    ``sqrt(k)`` project onto a random k-dimensional subspace and scale by
    ``sqrt(d / k)``, the transform as Johnson and Lindenstrauss state it. An
    orthonormal frame has at most ``d`` columns: its last block is narrower
    when ``d`` is not a multiple of ``width``, and a block past ``d`` is an
    error.

    The first k columns of ``X @ R`` divided by ``sqrt(k)`` are a
    Johnson-Lindenstrauss map to k dimensions (:func:`nested_random_projection`);
    each block has a random stream of its own, so the map to k dimensions is
    the first k coordinates of the map to any larger k, and a new k needs no
    new draw (the orthonormal kind reads the streams of every block up to its
    own, to make its columns orthogonal to theirs).

    Examples
    --------
    >>> X = np.eye(4)
    >>> np.allclose(projection_block(X, 1, width=3), projection_block(X, 1, width=3))
    True
    >>> projection_block(X, 0, kind="sparse", width=5).shape
    (4, 5)
    >>> projection_block(X, 1, kind="orthonormal", width=3).shape  # a frame in 4 dimensions has 4 vectors
    (4, 1)
    """
    _check_kind(kind)
    X = np.asarray(X, dtype=np.float64)
    d = X.shape[1]
    if kind == "orthonormal":
        state = None
        for _ in range(int(block) + 1):
            state = extend_orthonormal(X, state, width=width, random_state=random_state)
        return np.sqrt(d) * state.XQ[-1]
    rng = np.random.default_rng([int(random_state), int(block)])
    out = np.zeros((len(X), width))
    rows = max(1, 2**21 // width)  # R is drawn a slab of rows at a time: never a d x width temporary
    s = np.sqrt(d)
    for a in range(0, d, rows):
        b = min(d, a + rows)
        if kind == "gaussian":
            R = rng.standard_normal((b - a, width))
        else:
            u = rng.random((b - a, width))
            R = np.where(u < 0.5 / s, np.sqrt(s), np.where(u < 1.0 / s, -np.sqrt(s), 0.0))
        out += X[:, a:b] @ R
    return out


def nested_random_projection(X, k: int, *, kind: str = "gaussian", width: int = JL_BLOCK, random_state=0):
    """A Johnson-Lindenstrauss map of ``X`` to ``k`` dimensions: the first k columns of :func:`projection_block`'s, / sqrt(k).

    Examples
    --------
    >>> X = np.random.default_rng(0).standard_normal((50, 400))
    >>> Y = nested_random_projection(X, 300, random_state=0)
    >>> Y.shape, np.allclose(nested_random_projection(X, 20, random_state=0), Y[:, :20] * np.sqrt(300 / 20))
    ((50, 300), True)
    """
    k = int(k)
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}.")
    blocks = [projection_block(X, b, kind=kind, width=width, random_state=random_state)
              for b in range(-(-k // width))]
    return np.hstack(blocks)[:, :k] / np.sqrt(k)


def prefix_distortion(blocks, k: int, i, j, d2) -> np.ndarray:
    """Squared-distance ratios of the pairs ``(i, j)`` after the map to ``k`` dimensions made from ``blocks``.

    ``blocks`` are consecutive :func:`projection_block` outputs of one
    matrix, ``(i, j, d2)`` its pairs from :func:`distance_pairs`; only the
    first ``k`` columns are read, so a change of k costs a pass over the pairs.

    Examples
    --------
    >>> X = np.random.default_rng(0).standard_normal((40, 30))
    >>> i, j, d2 = distance_pairs(X, 200)
    >>> blocks = [projection_block(X, b, width=8) for b in range(3)]
    >>> Y = nested_random_projection(X, 20, width=8)
    >>> np.allclose(prefix_distortion(blocks, 20, i, j, d2), ((Y[i] - Y[j]) ** 2).sum(axis=1) / d2)
    True
    """
    k = int(k)
    acc = np.zeros(len(i))
    left = k
    for Z in blocks:
        if left <= 0:
            break
        take = min(left, Z.shape[1])
        diff = Z[i, :take] - Z[j, :take]
        acc += np.einsum("ij,ij->i", diff, diff)
        left -= take
    if left > 0:
        raise ValueError(f"the blocks hold {k - left} columns; k={k} needs more.")
    return acc / k / d2


def share_within(ratios, eps: float) -> float:
    """Share of ratios within ``1 +- eps`` (NaN when there are none).

    Examples
    --------
    >>> share_within([0.8, 1.0, 1.5, 1.1], 0.25)
    0.75
    """
    r = np.asarray(ratios, dtype=np.float64)
    return float(np.mean(np.abs(r - 1) <= eps)) if r.size else float("nan")


def worst_distortion(ratios) -> float:
    """The largest ``|ratio - 1|`` of the squared-distance ratios: how far the worst pair left 1 (NaN when there
    are none).

    Examples
    --------
    >>> worst_distortion([0.8, 1.0, 1.5, 1.1])
    0.5
    """
    r = np.asarray(ratios, dtype=np.float64)
    return float(np.abs(r - 1).max()) if r.size else float("nan")


def jl_bound_curve(n_samples: int, eps_grid=None):
    """The JL bound (:func:`jl_min_dim`) along a grid of eps: a DataFrame with columns ``eps`` and ``k``.

    Examples
    --------
    >>> curve = jl_bound_curve(300, [0.1, 0.5])
    >>> curve["k"].tolist() == [jl_min_dim(300, 0.1), jl_min_dim(300, 0.5)]
    True
    """
    import pandas as pd

    eps_grid = np.linspace(0.05, 0.95, 40) if eps_grid is None else np.asarray(eps_grid, dtype=np.float64)
    return pd.DataFrame({"eps": eps_grid, "k": [jl_min_dim(n_samples, e) for e in eps_grid]})


def _jl_exponent(eps) -> np.ndarray:
    eps = np.asarray(eps, dtype=np.float64)
    if np.any((eps <= 0) | (eps >= 1)):
        raise ValueError(f"eps must be between 0 and 1, got {eps}.")
    return eps**2 / 2 - eps**3 / 3


def jl_pair_failure(k, eps) -> np.ndarray:
    """The bound on the chance that one pair's squared distance leaves ``1 +- eps`` under a k-dimensional map.

    ``2 exp(-k (eps^2/2 - eps^3/3) / 2)``: Dasgupta and Gupta's tail bounds
    (the upper tail; the lower one is smaller) for the projection onto a
    random k-dimensional subspace scaled by ``sqrt(d / k)``. The same bounds
    hold for a Gaussian matrix divided by ``sqrt(k)`` (chi-squared tails) and
    for Achlioptas's +-1 and sparse matrices; for the very sparse matrix
    (``s = sqrt(d)``) only as d grows.

    Examples
    --------
    >>> float(np.round(jl_pair_failure(100, 0.5), 4))
    0.031
    """
    return np.minimum(1.0, 2.0 * np.exp(-np.asarray(k, dtype=np.float64) * _jl_exponent(eps) / 2))


def jl_failure_bounds(n_samples: int, k, eps):
    """``(per_pair, all_pairs)``: :func:`jl_pair_failure`, and the union bound over the ``n (n - 1) / 2`` pairs.

    The chance that some pair of ``n_samples`` points leaves ``1 +- eps`` is
    at most ``all_pairs`` (capped at 1).

    Examples
    --------
    >>> per, every = jl_failure_bounds(300, jl_seed_dim(300, 0.3), 0.3)
    >>> bool(per <= 300.0**-3) and bool(every < 1 / 300)
    True
    """
    per = jl_pair_failure(k, eps)
    n = int(n_samples)
    return per, np.minimum(1.0, per * n * (n - 1) / 2)


def jl_seed_dim(n_samples: int, eps: float) -> int:
    """The smallest k for which each pair fails with chance at most ``n^-3``: all pairs hold with chance >= 1 - 1/n.

    ``k >= (6 ln n + 2 ln 2) / (eps^2/2 - eps^3/3)``: the proof sketch's
    choice ``delta = 1/n^3`` made concrete with :func:`jl_pair_failure`'s
    constants; about 12 ``eps^-2 ln n`` for small eps. scikit-learn's
    :func:`jl_min_dim` (``4 ln n / (eps^2/2 - eps^3/3)``) asks each pair
    to fail with chance at most ``2 / n^2``, which leaves all pairs holding
    with chance at least ``1/n`` only: enough to show that a map exists.

    Examples
    --------
    >>> jl_seed_dim(300, 0.3), jl_min_dim(300, 0.3)
    (990, 633)
    """
    n = int(n_samples)
    if n < 2:
        raise ValueError(f"The bound needs at least 2 points, got {n}.")
    return int(np.ceil((6 * np.log(n) + 2 * np.log(2)) / _jl_exponent(eps)))


def jl_failure_curve(n_samples: int, eps: float, k_max: int, n_grid: int = 120):
    """The failure bounds along k from 1 to ``k_max`` (a DataFrame: ``k``, ``per pair``, ``some pair``).

    Examples
    --------
    >>> curve = jl_failure_curve(300, 0.3, 2000)
    >>> bool(curve["per pair"].is_monotonic_decreasing and curve["some pair"].iloc[0] == 1.0)
    True
    """
    import pandas as pd

    ks = np.unique(np.geomspace(1, max(int(k_max), 1), n_grid).round().astype(int))
    per, every = jl_failure_bounds(n_samples, ks, eps)
    return pd.DataFrame({"k": ks, "per pair": per, "some pair": every})
