"""Locally Linear Embedding, written to be taken apart.

LLE assumes that, seen up close, a manifold is flat: each point is (almost)
a weighted average of its ``B`` nearest neighbours. It finds those weights
once, in the input space, and then looks for low-dimensional points that are
reproduced by the *same* weights. The second step is an eigenproblem: the
bottom eigenvectors of ``M = (I - W)^T (I - W)``, skipping the constant one.
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy.linalg import eigh
from scipy.sparse.linalg import LinearOperator, eigsh, splu
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    TransformerMixin,
    _fit_context,
)
from sklearn.neighbors import NearestNeighbors
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import (
    check_array,
    check_is_fitted,
    check_random_state,
    validate_data,
)

from ._params import keep_parameters

__all__ = ["LLE", "LLESolution", "LLEMap", "SweepStep", "Reconstruction", "ClosedForm",
           "nearest_neighbors", "barycenter_weights", "lle_from_neighbors",
           "rescale_for_distances", "sample_indices", "lle_with_quality",
           "lle_sweep", "reconstruction", "closed_form_weights", "neighbor_segments", "allowed_k",
           "weight_invariance"]

def rescale_for_distances(X) -> np.ndarray:
    """X scaled by a power of two when its magnitude would overflow or underflow squared distances.

    LLE's weights, its map and every neighbour ranking are unchanged by a
    uniform scale, and a power of two scales without rounding; data of
    ordinary magnitude are returned as they are.

    Examples
    --------
    >>> float(rescale_for_distances(np.array([[1e150, 0.0], [0.0, 3e150]])).max()) < 1
    True
    >>> rescale_for_distances([[1.0, 2.0]]).tolist()
    [[1.0, 2.0]]
    """
    X = np.asarray(X, dtype=np.float64)
    top = float(np.max(np.abs(X))) if X.size else 0.0
    if top == 0.0 or 1e-100 < top < 1e100:
        return X
    return np.ldexp(X, -int(np.frexp(top)[1]))


def sample_indices(n: int, max_rows: int, random_state=None) -> np.ndarray | None:
    """Sorted indices of a seeded random sample of ``max_rows`` of ``n`` rows; None when all fit.

    Examples
    --------
    >>> sample_indices(100, 10, random_state=0).tolist()
    [1, 3, 7, 17, 25, 29, 47, 58, 77, 81]
    >>> sample_indices(100, 100) is None
    True
    """
    if n <= max_rows:
        return None
    rng = np.random.default_rng(random_state)
    return np.sort(rng.choice(n, max_rows, replace=False))


def nearest_neighbors(X, n_neighbors: int, *, n_jobs: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Indices and distances of each point's ``n_neighbors`` nearest other points, nearest first.

    scikit-learn's ``NearestNeighbors.kneighbors()`` without a query leaves
    each point out of its own list, even where ties or duplicates push it
    out of first place. Duplicate points are an error: a neighbour at
    distance zero makes the local fit degenerate and LLE's picture
    meaningless there. ``n_jobs`` is the neighbour search's (None: one).

    Examples
    --------
    >>> ind, dist = nearest_neighbors(np.array([[0.0], [1.0], [3.0], [7.0]]), 2)
    >>> ind.tolist(), dist.tolist()
    ([[1, 2], [0, 2], [1, 0], [2, 1]], [[1.0, 3.0], [1.0, 2.0], [2.0, 3.0], [4.0, 6.0]])
    """
    X = check_array(X, dtype=np.float64, input_name="X")
    n = X.shape[0]
    if not isinstance(n_neighbors, Integral) or n_neighbors < 1:
        raise ValueError(f"n_neighbors must be a positive integer, got {n_neighbors!r}.")
    if n_neighbors >= n:
        raise ValueError(
            f"n_neighbors={n_neighbors} needs more points: each point has only {n - 1} others "
            f"(n_samples={n}). Use n_neighbors <= {n - 1}."
        )
    dist, ind = NearestNeighbors(n_neighbors=n_neighbors, n_jobs=n_jobs).fit(X).kneighbors()
    dup = np.flatnonzero(dist[:, 0] == 0)
    if dup.size:
        i = int(dup[0])
        raise ValueError(
            f"{dup.size} points have an exact duplicate (e.g. row {i} and row {int(ind[i, 0])}). "
            "LLE cannot weigh a point against its own copy: drop duplicates first (np.unique(X, axis=0))."
        )
    return ind, dist


def barycenter_weights(X, neighbors: np.ndarray, reg: float = 1e-3, *, reference=None) -> np.ndarray:
    """Weights (n, B) that best rebuild each point from its neighbours, each row summing to 1.

    Row ``i`` of ``neighbors`` indexes the rows of ``reference`` (``X`` itself
    by default) that rebuild ``X[i]``: the fitted points, for new points
    placed by :meth:`LLE.transform`. Solves all ``n`` small regularised Gram
    systems ``(G + r I) w = 1`` in one batched call: ``G = Z Z^T`` with ``Z``
    the neighbours relative to the point and ``r = reg * trace(G)`` (or
    ``reg`` when the trace is 0).

    Examples
    --------
    >>> X = np.array([[0.0, 0.0], [2.0, 0.0], [0.0, 2.0]])
    >>> barycenter_weights(np.array([[1.0, 1.0]]), np.array([[1, 2]]), 1e-9, reference=X).round(6).tolist()
    [[0.5, 0.5]]
    """
    X = np.asarray(X, dtype=np.float64)
    reference = X if reference is None else np.asarray(reference, dtype=np.float64)
    n, B = neighbors.shape
    Z = reference[neighbors] - X[:, None, :]  # (n, B, d)
    G = Z @ Z.transpose(0, 2, 1)  # (n, B, B)
    trace = np.trace(G, axis1=1, axis2=2)
    R = np.where(trace > 0, reg * trace, reg)
    G[:, np.arange(B), np.arange(B)] += R[:, None]
    w = np.linalg.solve(G, np.ones((n, B, 1)))[..., 0]
    return w / w.sum(axis=1, keepdims=True)


class LLESolution(NamedTuple):
    """Every step of an LLE solved from a neighbour table (:func:`lle_from_neighbors`).

    Attributes
    ----------
    weights : sparse array of shape (n, n)
        The barycenter weights, each row summing to 1.
    M : sparse array of shape (n, n)
        ``(I - W)^T (I - W)``.
    eigenvalues : ndarray
        The bottom eigenvalues of ``M`` (the first ~ 0).
    embedding : ndarray of shape (n, n_components)
        The map: the bottom eigenvectors after the constant one.
    reconstruction_error : float
        The sum of the kept eigenvalues, the cost the map attains.

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(30, 3))
    >>> out = lle_from_neighbors(X, nearest_neighbors(X, 6)[0])
    >>> out.weights.shape, out.embedding.shape
    ((30, 30), (30, 2))
    """

    weights: sp.csr_array
    M: sp.csr_array
    eigenvalues: np.ndarray
    embedding: np.ndarray
    reconstruction_error: float


class LLEMap(NamedTuple):
    """An LLE map at one neighbourhood size with how trustworthy it is (:func:`lle_with_quality`).

    Attributes
    ----------
    weights, eigenvalues, embedding, reconstruction_error :
        As in :class:`LLESolution`.
    trustworthiness : float or None
        At ``quality_k``; None when it was not measured.
    quality_k : int or None
        The k of the trustworthiness, lowered below n/2 for small data.
    n_neighbors : int
        B, the neighbours each point is rebuilt from.

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(30, 3))
    >>> out = lle_with_quality(X, nearest_neighbors(X, 8)[0], 6, quality_k=None)
    >>> out.n_neighbors, out.trustworthiness
    (6, None)
    """

    weights: sp.csr_array
    eigenvalues: np.ndarray
    embedding: np.ndarray
    reconstruction_error: float
    trustworthiness: float | None
    quality_k: int | None
    n_neighbors: int


class SweepStep(NamedTuple):
    """One neighbourhood size of :func:`lle_sweep`: its map and trustworthiness, or why it failed.

    Attributes
    ----------
    n_neighbors : int
        B.
    embedding : ndarray of shape (n, 2) or None
        The map; None when this B failed.
    trustworthiness : float or None
        The map's trustworthiness; None when this B failed.
    error : str or None
        The message of a B that failed (an eigensolver that did not converge on a torn graph).

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(30, 3))
    >>> [step.n_neighbors for step in lle_sweep(X, nearest_neighbors(X, 8)[0], (4, 8, 40))]
    [4, 8]
    """

    n_neighbors: int
    embedding: np.ndarray | None
    trustworthiness: float | None
    error: str | None


class Reconstruction(NamedTuple):
    """How one point is rebuilt from its neighbours by its LLE weights (:func:`reconstruction`).

    Attributes
    ----------
    neighbors : ndarray of shape (B,)
        Its neighbours, nearest first.
    weights : ndarray of shape (B,)
        Their weights, summing to 1.
    rebuilt : ndarray of shape (d,)
        The weighted sum of the neighbours.
    error : float
        The distance from the point to its rebuilt self.
    spread : float
        The mean distance to its neighbours.
    relative : float
        ``error / spread`` (0 when the neighbours coincide with the point).

    Examples
    --------
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0], [-1.0, 0.0], [0.0, 1.0]])
    >>> ind = np.array([[1, 2], [0, 3], [0, 3], [0, 1]])
    >>> reconstruction(X, ind, barycenter_weights(X, ind, reg=1e-9), 0).relative < 1e-6
    True
    """

    neighbors: np.ndarray
    weights: np.ndarray
    rebuilt: np.ndarray
    error: float
    spread: float
    relative: float


class ClosedForm(NamedTuple):
    """One point's LLE weights by the closed form ``C^-1 1 / (1^T C^-1 1)`` (:func:`closed_form_weights`).

    Attributes
    ----------
    weights : ndarray of shape (B,)
        The weights.
    C : ndarray of shape (B, B)
        The regularised local Gram matrix.
    ridge : float
        The regulariser added to its diagonal.
    condition : float
        The condition number of the regularised ``C``.

    Examples
    --------
    >>> X = np.array([[1.0, 1.0], [0.0, 0.0], [2.0, 0.0], [0.0, 2.0]])
    >>> closed_form_weights(X, np.array([[2, 3], [0, 2], [0, 1], [0, 1]]), 0, 1e-9).C.shape
    (2, 2)
    """

    weights: np.ndarray
    C: np.ndarray
    ridge: float
    condition: float


def _inverse(M, sigma: float) -> LinearOperator:
    """``(M - sigma I)^-1`` for ARPACK's shift-invert mode, from one sparse LU factorisation.

    ``M`` is symmetric and (nearly) positive semi-definite, so the factorisation keeps the
    diagonal as pivots and orders rows and columns alike (minimum degree on ``M + M^T``):
    on 20,000 swiss-roll points at B = 13 that factors in 0.23 s with 5.6M non-zeros,
    against 0.77 s and 8.6M for the general column ordering ``eigsh`` uses by itself.
    An exactly zero pivot raises RuntimeError, as ``eigsh`` does.

    Examples
    --------
    >>> M = sp.csc_array(np.array([[2.0, -1.0], [-1.0, 2.0]]))
    >>> (_inverse(M, 0.0) @ np.array([1.0, 1.0])).round(6).tolist()
    [1.0, 1.0]
    """
    n = M.shape[0]
    A = sp.csc_array(M - sigma * sp.eye_array(n, format="csc")) if sigma else sp.csc_array(M)
    lu = splu(A, permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.0, options={"SymmetricMode": True})
    return LinearOperator((n, n), matvec=lu.solve, matmat=lu.solve, dtype=A.dtype)


def lle_from_neighbors(
    X, neighbors: np.ndarray, n_components: int = 2, reg: float = 1e-3,
    eigen_solver: str = "auto", random_state=None, tol: float = 1e-6, max_iter: int = 100,
    n_eigenvalues: int | None = None,
) -> LLESolution:
    """Standard LLE given the neighbour indices; returns every intermediate step (:class:`LLESolution`).

    ``eigenvalues`` holds the ``n_components + 1`` bottom ones, the first ~ 0,
    or ``n_eigenvalues`` of them when more are asked for, to show the spectrum.

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(30, 3))
    >>> ind, _ = nearest_neighbors(X, 6)
    >>> out = lle_from_neighbors(X, ind, 2)
    >>> out.embedding.shape, out.weights.sum(axis=1).round(6).tolist() == [1.0] * 30
    ((30, 2), True)
    """
    n, B = neighbors.shape
    if n_components + 1 > n:
        raise ValueError(f"n_components={n_components} needs at least {n_components + 1} points.")
    w = barycenter_weights(X, neighbors, reg)
    W = sp.csr_array((w.ravel(), neighbors.ravel(), np.arange(0, n * B + 1, B)), shape=(n, n))
    IW = sp.eye_array(n, format="csr") - W
    M = sp.csr_array(IW.T @ IW)
    k = max(n_components + 1, n_eigenvalues or 0)
    if k > n:
        raise ValueError(f"Asked for {k} eigenvectors of a {n}-point problem.")
    solver = eigen_solver
    if solver == "auto":
        solver = "arpack" if n > 200 and k < 10 else "dense"
    if solver == "arpack":
        v0 = check_random_state(random_state).uniform(-1, 1, n)
        try:
            vals, vecs = eigsh(M, k, sigma=0.0, OPinv=_inverse(M, 0.0), tol=tol, maxiter=max_iter, v0=v0)
        except RuntimeError:
            # M is exactly singular when the graph falls apart (each piece adds a zero
            # eigenvalue): shift-invert just below zero, where M - sigma*I is definite.
            try:
                shift = -1e-9 * max(float(M.diagonal().mean()), 1e-12)
                vals, vecs = eigsh(M, k, sigma=shift, OPinv=_inverse(M, shift), tol=tol, maxiter=max_iter * 10,
                                   v0=v0)
            except RuntimeError as err:
                raise ValueError(
                    f"ARPACK could not find the bottom eigenvectors ({err}). Try eigen_solver='dense', "
                    "a larger reg or more neighbours."
                ) from None
        order = np.argsort(vals)
        vals, vecs = vals[order], vecs[:, order]
    elif solver == "dense":
        vals, vecs = eigh(M.toarray(), subset_by_index=(0, k - 1))
    else:
        raise ValueError(f"eigen_solver must be 'auto', 'arpack' or 'dense', got {eigen_solver!r}.")
    # M = (I - W)^T (I - W) is positive semi-definite: a kept eigenvalue below 0 is rounding (-2.7e-17 seen)
    return LLESolution(W, M, vals, vecs[:, 1 : n_components + 1], max(0.0, float(np.sum(vals[1 : n_components + 1]))))


def allowed_k(n: int, k: int = 10) -> int:
    """``k`` lowered to what neighbourhood-preservation measures allow on ``n`` points (k < n / 2).

    Examples
    --------
    >>> allowed_k(1500), allowed_k(12), allowed_k(3)
    (10, 5, 1)
    """
    return max(1, min(k, (n - 1) // 2))


def lle_with_quality(X, neighbors: np.ndarray, n_neighbors: int, reg: float = 1e-3, random_state=None,
                     n_eigenvalues: int = 8, quality_k: int | None = 10, ranks=None) -> LLEMap:
    """LLE from the first ``n_neighbors`` columns of a neighbour table, and how trustworthy its map is.

    The neighbour table is computed once at the largest B (:func:`nearest_neighbors`)
    and every B reads its first columns. Returns an :class:`LLEMap`: the steps of
    :func:`lle_from_neighbors` without ``M``, with the trustworthiness at
    ``quality_k`` (lowered below n/2 for small data: :func:`allowed_k`). With
    ``quality_k=None`` the trustworthiness is left out (None), for a caller that
    shows the map before measuring it. ``ranks``: the data's side of the measure prepared
    once (:class:`embedcore.metrics.DataRanks` of ``X``), for many maps of the same points.

    Examples
    --------
    >>> from sklearn.datasets import make_swiss_roll
    >>> X, _ = make_swiss_roll(1000, random_state=0)
    >>> ind, _ = nearest_neighbors(X, 20)
    >>> out = lle_with_quality(X, ind, 10, random_state=0)
    >>> out.embedding.shape, round(out.trustworthiness, 3)
    ((1000, 2), 0.995)
    """
    from .metrics import trustworthiness

    X = np.asarray(X, dtype=np.float64)
    neighbors = np.asarray(neighbors)
    if not 1 <= n_neighbors <= neighbors.shape[1]:
        raise ValueError(f"n_neighbors={n_neighbors} needs a neighbour table at least that wide; this one has "
                         f"{neighbors.shape[1]} columns. Compute the neighbours at the largest B first.")
    out = lle_from_neighbors(X, neighbors[:, :n_neighbors], 2, reg, random_state=random_state,
                             n_eigenvalues=min(n_eigenvalues, len(X)))
    k = None if quality_k is None else allowed_k(len(X), quality_k)
    trust = None if k is None else trustworthiness(X, out.embedding, k, ranks=ranks)
    return LLEMap(out.weights, out.eigenvalues, out.embedding, out.reconstruction_error, trust, k, int(n_neighbors))


def lle_sweep(X, neighbors: np.ndarray, values, reg: float = 1e-3, random_state=None,
              quality_k: int = 10, n_eigenvalues: int = 8) -> list[SweepStep]:
    """LLE at each neighbourhood size in ``values`` that the data allow, each with its trustworthiness.

    A B is skipped when the data have no more than B points or the neighbour
    table is narrower than B. One :class:`SweepStep` per B: its map and
    trustworthiness, or ``embedding=None`` and ``error`` (the message)
    when that B fails (an eigensolver that does not converge on a torn graph),
    so one bad B does not hide the others. Each B is solved as
    :func:`lle_with_quality` solves it (with ``n_eigenvalues``), so a B of the
    sweep draws the same map as that B on its own.

    Examples
    --------
    >>> from sklearn.datasets import make_swiss_roll
    >>> X, _ = make_swiss_roll(200, random_state=0)
    >>> ind, _ = nearest_neighbors(X, 40)
    >>> [r.n_neighbors for r in lle_sweep(X, ind, (5, 10, 500), random_state=0)]
    [5, 10]
    """
    from .metrics import DataRanks

    neighbors = np.asarray(neighbors)
    ranks = DataRanks(X) if quality_k is not None else None
    out = []
    for b in values:
        if b >= len(X) or b > neighbors.shape[1]:
            continue
        try:
            r = lle_with_quality(X, neighbors, b, reg, random_state, n_eigenvalues=n_eigenvalues,
                                 quality_k=quality_k, ranks=ranks)
        except ValueError as err:
            out.append(SweepStep(int(b), None, None, str(err)))
            continue
        out.append(SweepStep(int(b), r.embedding, r.trustworthiness, None))
    return out


def reconstruction(X, neighbors: np.ndarray, weights, i: int) -> Reconstruction:
    """How point ``i`` is rebuilt from its neighbours by its LLE weights.

    Parameters
    ----------
    X : (n, d) array, the points
    neighbors : (n, B) int array, each point's neighbours (nearest first)
    weights : sparse (n, n) array (``LLE.weights_``) or (n, B) array (:func:`barycenter_weights`)
    i : the point

    Returns
    -------
    Reconstruction
        The neighbours, their weights, the rebuilt point, its distance from the point,
        the mean distance to the neighbours and the ratio of the two.

    Examples
    --------
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0], [-1.0, 0.0], [0.0, 1.0]])
    >>> ind = np.array([[1, 2], [0, 3], [0, 3], [0, 1]])
    >>> r = reconstruction(X, ind, barycenter_weights(X, ind, reg=1e-9), 0)
    >>> r.weights.round(3).tolist(), round(r.error, 6), r.spread
    ([0.5, 0.5], 0.0, 1.0)
    """
    X = np.asarray(X, dtype=np.float64)
    n = len(X)
    if not 0 <= i < n:
        raise ValueError(f"Point {i} does not exist: the data have points 0 to {n - 1}.")
    nbrs = np.asarray(neighbors)[i]
    if sp.issparse(weights):
        w = weights[[i], :].toarray().ravel()[nbrs]
    else:
        w = np.asarray(weights, dtype=np.float64)[i]
    rebuilt = w @ X[nbrs]
    error = float(np.linalg.norm(X[i] - rebuilt))
    spread = float(np.linalg.norm(X[nbrs] - X[i], axis=1).mean())
    return Reconstruction(nbrs, w, rebuilt, error, spread, error / spread if spread > 0 else 0.0)


def closed_form_weights(X, neighbors: np.ndarray, i: int, reg: float = 1e-3) -> ClosedForm:
    """Point ``i``'s LLE weights written out as the closed form ``w = C^-1 1 / (1^T C^-1 1)``.

    ``C`` is the local Gram matrix of the point's neighbours seen from the
    point, ``C_jk = (x_i - x_j)^T (x_i - x_k)``, with the regulariser
    ``r = reg * trace(C)`` (or ``reg`` when the trace is 0) added to its
    diagonal, as :func:`barycenter_weights` adds it. Minimising ``w^T C w``
    subject to ``1^T w = 1`` with a Lagrange multiplier gives ``C w`` a
    constant vector, hence the formula. This function inverts ``C``
    explicitly, one point at a time, to check the batched solver against
    the formula; it is not how the fit computes the weights.

    Parameters
    ----------
    X : (n, d) array, the points
    neighbors : (n, B) int array, each point's neighbours
    i : the point
    reg : the regulariser, relative to the trace of ``C``

    Returns
    -------
    ClosedForm
        The weights, the regularised Gram matrix ``C``, the ``r`` added to its
        diagonal and the condition number of the regularised ``C``.

    Examples
    --------
    >>> X = np.array([[1.0, 1.0], [0.0, 0.0], [2.0, 0.0], [0.0, 2.0]])
    >>> closed_form_weights(X, np.array([[2, 3], [0, 2], [0, 1], [0, 1]]), 0, 1e-9).weights.round(6).tolist()
    [0.5, 0.5]
    """
    X = np.asarray(X, dtype=np.float64)
    n = len(X)
    if not 0 <= i < n:
        raise ValueError(f"Point {i} does not exist: the data have points 0 to {n - 1}.")
    if not reg >= 0:
        raise ValueError(f"reg must be 0 or more, got {reg}.")
    nbrs = np.asarray(neighbors)[i]
    D = X[i] - X[nbrs]  # (B, d): the point seen from each neighbour
    C = D @ D.T
    trace = float(np.trace(C))
    ridge = reg * trace if trace > 0 else reg
    C[np.diag_indices_from(C)] += ridge
    if ridge == 0 and np.linalg.matrix_rank(C) < len(C):
        raise ValueError(f"The Gram matrix of point {i}'s {len(nbrs)} neighbours is singular (more neighbours "
                         "than dimensions, or repeated points): set reg above 0.")
    ones = np.ones(len(C))
    Cinv_1 = np.linalg.inv(C) @ ones
    return ClosedForm(Cinv_1 / (ones @ Cinv_1), C, float(ridge), float(np.linalg.cond(C)))


def weight_invariance(X, n_neighbors: int, reg: float = 1e-3, *, scale: float = 5.0, shift: float = 3.0,
                      random_state=None) -> pd.DataFrame:
    """How much the LLE weights move when the input is rotated, scaled, translated, or stretched along one axis.

    The weights minimise ``||x_i - sum_j w_j x_j||^2`` with ``sum_j w_j = 1``.
    Under ``x -> s Q x + t`` (``Q`` orthogonal) every residual becomes
    ``s Q (x_i - sum_j w_j x_j)``: the sum-to-one constraint cancels ``t``,
    ``Q`` keeps lengths and ``s`` multiplies every objective by ``s^2``, so the
    minimiser is the same. The regulariser is relative to ``trace(C)``, which
    also grows by ``s^2``, so it does not break the scaling case. Stretching a
    single axis is not a similarity: it changes the weights, and serves as the
    control that the measurement can see a change.

    Parameters
    ----------
    X : (n, d) array, the points
    n_neighbors : B, the neighbours per point
    reg : the regulariser, relative to each neighbourhood's trace
    scale : the factor of the scaling (and of the one-axis stretch)
    shift : the translation's length, in units of the data's largest coordinate range
    random_state : seeds the rotation and the translation's direction

    Returns
    -------
    DataFrame
        One row per transform: ``transform``, ``neighbours kept`` (the
    share of points whose B nearest neighbours are the same set after it)
    and ``largest weight change`` (the largest absolute change of any weight,
    each point rebuilt from its original neighbours).

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(60, 3))
    >>> table = weight_invariance(X, 6, random_state=0).set_index("transform")
    >>> bool(table.loc["rotation, scaling and translation", "largest weight change"] < 1e-8)
    True
    >>> bool(table.loc["stretch of one axis (not a similarity)", "largest weight change"] > 1e-2)
    True
    """
    X = check_array(X, dtype=np.float64, input_name="X")
    if not scale > 0:
        raise ValueError(f"scale must be above 0, got {scale}.")
    rng = check_random_state(random_state)
    d = X.shape[1]
    Q, R = np.linalg.qr(rng.normal(size=(d, d)))
    Q = Q * np.sign(np.diag(R))  # a uniformly random orthogonal matrix
    direction = rng.normal(size=d)
    t = shift * float(np.ptp(X, axis=0).max()) * direction / np.linalg.norm(direction)
    stretch = np.ones(d)
    stretch[0] = scale
    transforms = {
        "rotation": X @ Q.T,
        f"scaling by {scale:g}": X * scale,
        "translation": X + t,
        "rotation, scaling and translation": scale * X @ Q.T + t,
        "stretch of one axis (not a similarity)": X * stretch,
    }
    ind, _ = nearest_neighbors(X, n_neighbors)
    before = barycenter_weights(X, ind, reg)
    base_sets = np.sort(ind, axis=1)
    rows = []
    for name, Y in transforms.items():
        moved, _ = nearest_neighbors(Y, n_neighbors)
        kept = float(np.mean(np.all(np.sort(moved, axis=1) == base_sets, axis=1)))
        change = float(np.abs(barycenter_weights(Y, ind, reg) - before).max())
        rows.append((name, kept, change))
    return pd.DataFrame(rows, columns=["transform", "neighbours kept", "largest weight change"])


def neighbor_segments(P, neighbors: np.ndarray, rows=None) -> np.ndarray:
    """The neighbour graph as one polyline: every point (or each of ``rows``) joined to each of its neighbours.

    Rows go point, neighbour, NaN (a break) for each edge, so a single line
    trace draws the whole graph: ``(len(rows) * B * 3, P.shape[1])``.

    Examples
    --------
    >>> neighbor_segments(np.array([[0.0, 0.0], [1.0, 1.0]]), np.array([[1], [0]])).tolist()
    [[0.0, 0.0], [1.0, 1.0], [nan, nan], [1.0, 1.0], [0.0, 0.0], [nan, nan]]
    >>> neighbor_segments(np.array([[0.0, 0.0], [1.0, 1.0]]), np.array([[1], [0]]), rows=[1]).tolist()
    [[1.0, 1.0], [0.0, 0.0], [nan, nan]]
    """
    P = np.asarray(P, dtype=np.float64)
    neighbors = np.asarray(neighbors)
    rows = np.arange(len(neighbors)) if rows is None else np.asarray(rows)
    B = neighbors.shape[1]
    seg = np.full((len(rows) * B * 3, P.shape[1]), np.nan)
    seg[0::3] = P[np.repeat(rows, B)]
    seg[1::3] = P[neighbors[rows].ravel()]
    return seg


class LLE(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Locally Linear Embedding (standard), with every step exposed.

    Parameters
    ----------
    n_neighbors : int, default=12
        B, the neighbours each point is rebuilt from.
    n_components : int, default=2
    reg : float, default=1e-3
        Regularisation of each local Gram matrix, relative to its trace;
        needed whenever B exceeds the input dimension.
    eigen_solver : {"auto", "arpack", "dense"}, default="auto"
        "auto" uses shift-invert ARPACK above 200 points, as scikit-learn does.
    random_state : int, RandomState or None
        Starting vector of ARPACK.
    n_jobs : int or None, default=None
        Threads of the neighbour searches (None: one). A server that runs
        several people's fits at once sets it to its share of the cores.

    Attributes
    ----------
    neighbors_ : (n, B) int array, nearest first
    neighbor_distances_ : (n, B) float array, their distances
    weights_ : sparse (n, n) array; row i holds the weights rebuilding point i, summing to 1
    M_ : sparse (n, n) array, ``(I - W)^T (I - W)``
    eigenvalues_ : the bottom ``n_components + 1`` eigenvalues of M (the first ~ 0)
    reconstruction_error_ : float, the sum of the kept eigenvalues
    embedding_ : (n, n_components) array

    Examples
    --------
    >>> from sklearn.datasets import make_swiss_roll
    >>> X, t = make_swiss_roll(400, random_state=0)
    >>> lle = LLE(n_neighbors=10, random_state=0).fit(X)
    >>> lle.embedding_.shape, bool(np.allclose(lle.weights_.sum(axis=1), 1))
    ((400, 2), True)
    """

    _parameter_constraints: dict = {
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "reg": [Interval(Real, 0, None, closed="left")],
        "eigen_solver": [StrOptions({"auto", "arpack", "dense"})],
        "random_state": ["random_state"],
        "n_jobs": [None, Integral],
    }

    def __init__(self, *, n_neighbors: int = 12, n_components: int = 2, reg: float = 1e-3,
                 eigen_solver: str = "auto", random_state=None, n_jobs: int | None = None):
        keep_parameters(self, locals())

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        X = validate_data(self, X, dtype=np.float64, ensure_min_samples=2)
        self.neighbors_, self.neighbor_distances_ = nearest_neighbors(X, self.n_neighbors, n_jobs=self.n_jobs)
        out = lle_from_neighbors(X, self.neighbors_, self.n_components, self.reg, self.eigen_solver,
                                 self.random_state)
        self.weights_, self.M_, self.eigenvalues_, self.embedding_, self.reconstruction_error_ = out
        self._fit_X = X
        self._n_features_out = self.n_components
        return self

    def fit_transform(self, X, y=None):
        return self.fit(X).embedding_

    def reconstruction(self, i: int) -> Reconstruction:
        """How fitted point ``i`` is rebuilt from its neighbours: see :func:`reconstruction`."""
        check_is_fitted(self, "weights_")
        return reconstruction(self._fit_X, self.neighbors_, self.weights_, i)

    def transform(self, X):
        """Place new points by the weights of their neighbours among the fitted points.

        Each new point gets the barycenter weights (:func:`barycenter_weights`)
        of its ``n_neighbors`` nearest fitted points, and the same weights of
        their map positions.
        """
        check_is_fitted(self, "embedding_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        ind = NearestNeighbors(n_neighbors=self.n_neighbors, n_jobs=self.n_jobs).fit(self._fit_X).kneighbors(
            X, return_distance=False)
        w = barycenter_weights(X, ind, self.reg, reference=self._fit_X)
        return np.einsum("nb,nbk->nk", w, self.embedding_[ind])
