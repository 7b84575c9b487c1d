"""The objective LME maximises and its gradient, with the partition function Z exact or approximated.

With entry points ``U`` and exit points ``V`` (one row per song), a transition from song
``a`` to song ``s`` has probability ``exp(-||u_s - v_a||^2) / Z_a``, where
``Z_a = sum_s exp(-||u_s - v_a||^2)`` sums over every song (``a`` itself included unless
``exclude_self``). The parts, each usable alone:

* :func:`exact_objective` and :func:`approximate_objective`: the summed log-likelihood of
  the training transitions and its gradients, with Z exact (S x S kernel terms, in blocks of
  rows) or from a near field and landmarks (:mod:`.near_field`);
* :func:`exact_log_partition` and :func:`approximate_log_partition`: log Z alone, for scoring;
* :func:`penalise`: the average per transition, minus the length penalty and the tag prior;
* :class:`Objective`: all of it as one function of the parameters, for :func:`.gradient_ascent`.

The song-by-song work is done in blocks of rows, so memory stays bounded (about 16 MB a
block) and a ``should_stop`` hook is polled between blocks. Its time still grows as S x S,
so the exact Z is limited to :data:`MAX_EXACT_Z_SONGS` songs.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from ._blocks import BLOCK, blocks
from .near_field import NearField, near_field

__all__ = [
    "MAX_EXACT_Z_SONGS",
    "Evaluation",
    "Objective",
    "TagPrior",
    "Transitions",
    "approximate_log_partition",
    "approximate_objective",
    "exact_log_partition",
    "exact_objective",
    "PartitionCost",
    "partition_cost",
    "penalise",
    "uses_approximation",
]

#: Most songs for which Z is computed exactly. One exact step evaluates the kernel for all S x S
#: (exit, entry) pairs: at 10,000 songs 10^8 terms, where a single S x S float64 matrix would
#: already take 0.8 GB (the limit is where that reaches about 1 GB, rounded down) and a step
#: takes 1 to 2 s on two cores. Beyond it the exact Z is refused; set ``z_approx``.
MAX_EXACT_Z_SONGS = 10_000

# Above this many songs the S x S part runs in float32 (half the memory traffic); sums stay float64.
_FLOAT32_SONGS = 1000


def _dense_dtype(n_songs: int):
    return np.float32 if n_songs >= _FLOAT32_SONGS else np.float64


def uses_approximation(n_songs: int, z_approx) -> bool:
    """Whether ``z_approx`` approximates Z on ``n_songs`` songs (with ``3 * z_approx >= n_songs`` it is exact).

    Examples
    --------
    >>> uses_approximation(1000, 50), uses_approximation(100, 50), uses_approximation(1000, None)
    (True, False, False)
    """
    # with 3m >= S the near field and the landmarks cover every song anyway: Z is exact
    return z_approx is not None and 3 * int(z_approx) < n_songs


class PartitionCost(NamedTuple):
    """The work of one training step, estimated before any is done (:func:`partition_cost`).

    Attributes
    ----------
    approximate : bool
        Whether ``z_approx`` approximates Z at this size (with ``3 * z_approx >= n_songs``
        the near songs and landmarks cover every song).
    terms : int
        Kernel evaluations per step: S*S exact, about 3*S*m approximate.
    dense_bytes : int
        One S x S float64 matrix, what an exact step done densely would hold.
    work_bytes : int
        What the blocked computation holds at its peak (one block, and for the
        approximation the near field of about S*m entries at 32 bytes each).
    exact_allowed : bool
        ``n_songs <= MAX_EXACT_Z_SONGS``.

    Examples
    --------
    >>> partition_cost(100).exact_allowed, partition_cost(100).terms
    (True, 10000)
    """

    approximate: bool
    terms: int
    dense_bytes: int
    work_bytes: int
    exact_allowed: bool


def partition_cost(n_songs: int, z_approx: int | None = None) -> PartitionCost:
    """The work of one training step on ``n_songs`` songs, estimated before any is done.

    Examples
    --------
    >>> cost = partition_cost(40_000)
    >>> cost.dense_bytes / 1e9, cost.exact_allowed
    (12.8, False)
    >>> partition_cost(40_000, z_approx=50).terms
    6000000
    """
    S = int(n_songs)
    approx = uses_approximation(S, z_approx)
    terms = 3 * S * int(z_approx) if approx else S * S
    block = 8 * min(terms, BLOCK)
    return PartitionCost(approx, terms, 8 * S * S, block + (32 * S * int(z_approx) if approx else 0),
                         S <= MAX_EXACT_Z_SONGS)


def sq_dists(V, U):
    """||u_s - v_a||^2 for every exit a (rows) and entry s (columns).

    Examples
    --------
    >>> sq_dists(np.array([[0.0, 0.0], [1.0, 1.0]]), np.array([[3.0, 4.0]])).tolist()
    [[25.0], [13.0]]
    """
    D = V @ U.T
    D *= -2.0
    D += (V**2).sum(1)[:, None]
    D += (U**2).sum(1)[None, :]
    return np.maximum(D, 0.0, out=D)


class Transitions(NamedTuple):
    """The training transitions as the objective reads them, made once per fit.

    Sparse conversions cost more than the arithmetic on small song sets, so the counts'
    coordinates, their transpose and the in- and out-counts are made here, once.

    Examples
    --------
    >>> t = Transitions.from_counts(sp.csr_array(np.array([[0, 2], [1, 0]])))
    >>> t.n_total, t.n_out.tolist()
    (3.0, [2, 1])
    """

    counts: sp.csr_array
    """(S x S) transition counts, from exit song (row) to entry song (column)."""
    coo: sp.coo_array
    counts_T: sp.csc_array
    n_in: np.ndarray
    n_out: np.ndarray
    n_total: float

    @classmethod
    def from_counts(cls, counts) -> Transitions:
        """From a (S x S) count matrix, such as :func:`.transition_counts` makes.

        Examples
        --------
        >>> t = Transitions.from_counts(sp.csr_array(np.array([[0.0, 2.0], [1.0, 0.0]])))
        >>> t.n_out.tolist(), t.n_in.tolist(), t.n_total
        ([2.0, 1.0], [1.0, 2.0], 3.0)
        """
        counts = sp.csr_array(counts)
        n_out = np.asarray(counts.sum(axis=1)).ravel()
        return cls(counts, counts.tocoo(), counts.T, np.asarray(counts.sum(axis=0)).ravel(), n_out,
                   float(n_out.sum()))

    def observed(self, U, V) -> float:
        """``-sum C[a, s] ||u_s - v_a||^2``: the kernel part of the log-likelihood, Z aside."""
        Cc = self.coo
        return -float((Cc.data * ((U[Cc.col] - V[Cc.row]) ** 2).sum(axis=1)).sum())


class TagPrior(NamedTuple):
    """The tag prior: ``-(weight / S) sum_s ||x_s - (T A)_s||^2`` for x = u and x = v, A fitted to the points.

    ``T`` averages each song's tags (:func:`.tag_matrix`); the tag points A are the
    least-squares fit of the songs' mean points ``(U + V) / 2``, so each tag sits at the
    centre of its songs and the prior pulls every song towards its tags' mean.

    Examples
    --------
    >>> prior = TagPrior.build(sp.csr_array(np.array([[1.0, 0.0], [0.5, 0.5]])), 0.1)
    >>> prior.weight
    0.1
    """

    matrix: sp.csr_array
    matrix_T: sp.csc_array
    normal: np.ndarray
    """``T^T T`` plus 1e-9 on the diagonal (a tag without songs would make it singular)."""
    weight: float

    @classmethod
    def build(cls, matrix, weight: float) -> TagPrior:
        """From a (songs x tags) matrix whose rows average each song's tags, and the prior's weight.

        Examples
        --------
        >>> prior = TagPrior.build(sp.csr_array(np.array([[1.0, 0.0], [0.5, 0.5]])), 0.01)
        >>> prior.tag_points(np.array([[0.0, 0.0], [1.0, 1.0]]), np.array([[0.0, 0.0], [1.0, 1.0]])).round(6)
        array([[0., 0.],
               [2., 2.]])
        """
        TtT = (matrix.T @ matrix).toarray() if sp.issparse(matrix) else matrix.T @ matrix
        return cls(matrix, matrix.T, TtT + 1e-9 * np.eye(TtT.shape[0]), float(weight))

    def tag_points(self, U, V) -> np.ndarray:
        """The tag points A that fit the songs' mean points best (least squares)."""
        return np.linalg.solve(self.normal, self.matrix_T @ ((U + V) / 2))


class Evaluation(NamedTuple):
    """The objective and its gradient at one point (what :class:`Objective` returns).

    Examples
    --------
    >>> Evaluation._fields[:3]
    ('value', 'log_likelihood', 'gradient')
    """

    value: float
    """The penalised objective, maximised."""
    log_likelihood: float
    """The average log-likelihood per training transition."""
    gradient: tuple
    """The gradient with respect to the parameters: ``(d/dU + d/dV,)`` single, ``(d/dU, d/dV)`` dual."""
    grad_entry: np.ndarray
    grad_exit: np.ndarray
    tag_points: np.ndarray | None


# --------------------------------------------------------------------------- exact Z


def _exact_rows(Vb, Ud, self_cols=None):
    """Kernel rows of the exit points ``Vb`` against every entry point: E shifted by each row's max, the
    shifts and the row sums Z (float64). ``self_cols`` (one per row) are left out of Z."""
    logits = sq_dists(Vb, Ud)
    np.negative(logits, out=logits)
    if self_cols is not None:
        logits[np.arange(len(self_cols)), self_cols] = -np.inf
    shift = logits.max(axis=1)
    logits -= shift[:, None]
    E = np.exp(logits, out=logits)  # reuse the buffer
    return E, shift, E.sum(axis=1, dtype=np.float64)


def exact_log_partition(U, V, rows, *, exclude_self: bool = False, should_stop=None) -> np.ndarray:
    """log Z_a for the exit rows ``rows``, exactly, a block of rows at a time.

    Examples
    --------
    >>> U = V = np.array([[0.0, 0.0], [1.0, 0.0]])
    >>> exact_log_partition(U, V, np.array([0, 1])).round(6).tolist()  # log(1 + e^-1) for both
    [0.313262, 0.313262]
    """
    rows = np.asarray(rows)
    S = len(U)
    dense = _dense_dtype(S)  # as in training; sums in float64
    Ud, Vs = U.astype(dense), V[rows].astype(dense)
    out = np.empty(len(rows))
    for a0, a1 in blocks(len(rows), S, should_stop):
        _, shift, Z = _exact_rows(Vs[a0:a1], Ud, rows[a0:a1] if exclude_self else None)
        out[a0:a1] = shift.astype(np.float64) + np.log(Z)
    return out


def exact_objective(U, V, transitions: Transitions, *, exclude_self: bool = False, should_stop=None):
    """The summed log-likelihood of the transitions with the exact Z, and its gradients.

    With E[a, s] = exp(-||u_s - v_a||^2 - m_a) and Z_a = sum_s E[a, s]
    (m_a a row shift for stability), P = E / Z is never formed:
    d/dV_a = 2 [ (C U)_a - n_a (P U)_a ] and
    d/dU_s = -2 [ m_s U_s - (C^T V)_s ] + 2 [ q_s U_s - (P^T (n V))_s ], with q = P^T n.
    E is built a block of exit rows at a time (each row's Z needs only its own row).

    Returns
    -------
    (log_likelihood, grad_entry, grad_exit) : float, (S, k) array, (S, k) array

    Examples
    --------
    >>> C = Transitions.from_counts(sp.csr_array(np.array([[0.0, 1.0], [1.0, 0.0]])))
    >>> U = V = np.array([[0.0, 0.0], [1.0, 0.0]])
    >>> round(exact_objective(U, V, C)[0], 6)  # 2 log(e^-1 / (1 + e^-1))
    -2.626523
    """
    S, k = U.shape
    dense = _dense_dtype(S)
    Ud = U.astype(dense)
    n_out = transitions.n_out
    log_norm = np.empty(S)
    wEU = np.empty((S, k))  # rows of (n_a / Z_a) E U
    ET = np.zeros((S, k + 1))  # q = P^T n and P^T (n V), accumulated over blocks
    for a0, a1 in blocks(S, S, should_stop):
        E, shift, Z = _exact_rows(V[a0:a1].astype(dense), Ud, a0 + np.arange(a1 - a0) if exclude_self else None)
        log_norm[a0:a1] = shift.astype(np.float64) + np.log(Z)
        w = n_out[a0:a1] / Z  # rows weighted by n_a / Z_a
        wEU[a0:a1] = w[:, None] * (E @ Ud).astype(np.float64)
        wv = np.column_stack([w, w[:, None] * V[a0:a1]]).astype(dense)
        ET += E.T @ wv
    ll = transitions.observed(U, V) - float((n_out * log_norm).sum())
    gV = 2.0 * (transitions.counts @ U - wEU)
    q, PtnV = ET[:, 0], ET[:, 1:]
    gU = -2.0 * (transitions.n_in[:, None] * U - transitions.counts_T @ V) + 2.0 * (q[:, None] * U - PtnV)
    return ll, gU, gV


# --------------------------------------------------------------------------- approximate Z


class _FarSetup(NamedTuple):
    UL: np.ndarray  # the landmarks' entry points, in the dense dtype
    pos: np.ndarray  # each song's position among the landmarks, -1 for the others
    row_cost: float


def _far_setup(U, field: NearField) -> _FarSetup:
    S, k = U.shape
    pos = np.full(S, -1)
    pos[field.landmarks] = np.arange(len(field.landmarks))
    # U[cols] holds k numbers per near term, and a sparse term costs about four dense ones
    row_cost = 4 * (k + 1) * (field.near.nnz / max(S, 1) + len(field.landmarks))
    # the (rows, m) blocks are the bulk of the work
    return _FarSetup(U[field.landmarks].astype(_dense_dtype(S)), pos, row_cost)


def _approx_rows(U, V, a0, a1, field: NearField, far: _FarSetup, exclude_self: bool):
    """Z_a for the exit rows a0:a1 from their near field (exact terms) and the far landmarks.

    Returns E_near (sparse, rows a0:a1 by songs), E_far (rows by landmarks, scaled by r_a),
    the row shifts and Z (both shifted by them).
    """
    S = len(U)
    X, L = field.near, field.landmarks
    lo = X.indptr[a0]
    cols = X.indices[lo:X.indptr[a1]]
    indptr = X.indptr[a0:a1 + 1] - lo
    counts = np.diff(indptr)
    rows = np.repeat(np.arange(a1 - a0), counts)
    d_near = ((U[cols] - V[a0 + rows]) ** 2).sum(axis=1)
    D_far = sq_dists(V[a0:a1].astype(far.UL.dtype), far.UL)
    hit = far.pos[cols] >= 0
    in_near = np.zeros((a1 - a0, len(L)), dtype=bool)  # landmarks already summed exactly
    in_near[rows[hit], far.pos[cols[hit]]] = True
    D_far[in_near] = np.inf
    if exclude_self:
        d_near[a0 + rows == cols] = np.inf
        own = (L >= a0) & (L < a1)
        D_far[L[own] - a0, np.flatnonzero(own)] = np.inf
    far_count = np.maximum((~in_near).sum(axis=1), 1)
    r = np.maximum(S - counts, 0) / far_count
    shift = D_far.min(axis=1).astype(np.float64)
    nonempty = np.flatnonzero(counts)
    if nonempty.size:
        shift[nonempty] = np.minimum(shift[nonempty], np.minimum.reduceat(d_near, indptr[nonempty]))
    shift = np.where(np.isfinite(shift), shift, 0.0)
    E_near = sp.csr_array((np.exp(-(d_near - shift[rows])), cols, indptr), shape=(a1 - a0, S))
    D_far -= shift[:, None].astype(D_far.dtype)
    np.negative(D_far, out=D_far)
    E_far = np.exp(D_far, out=D_far)
    E_far *= r[:, None].astype(E_far.dtype)
    Z = np.asarray(E_near.sum(axis=1)).ravel() + E_far.sum(axis=1, dtype=np.float64)
    return E_near, E_far, shift, Z


def approximate_log_partition(U, V, field: NearField, *, exclude_self: bool = False, should_stop=None) -> np.ndarray:
    """log Z_a for every exit row, from the near field (summed exactly) and the landmarks (scaled).

    Examples
    --------
    >>> U = V = np.array([[0.0, 0.0], [1.0, 0.0], [5.0, 0.0]])
    >>> everything = NearField(sp.csr_array(np.ones((3, 3))), np.array([0]))
    >>> np.allclose(approximate_log_partition(U, V, everything), exact_log_partition(U, V, np.arange(3)))
    True
    """
    far = _far_setup(U, field)
    out = np.empty(len(U))
    for a0, a1 in blocks(len(U), far.row_cost, should_stop):
        _, _, shift, Z = _approx_rows(U, V, a0, a1, field, far, exclude_self)
        out[a0:a1] = np.log(Z) - shift
    return out


def approximate_objective(U, V, transitions: Transitions, field: NearField, *, exclude_self: bool = False,
                          should_stop=None):
    """The summed log-likelihood with Z from a near field (summed exactly) and far landmarks, and its gradients.

    Z_a = sum_{j in X(a)} e_aj + r_a sum_{l in L minus X(a)} e_al, r_a = (S - |X(a)|) / |L minus X(a)|;
    the weights kappa (1 on X, r_a on the landmarks) replace 1 in the exact gradient
    (see :func:`exact_objective`). With every song in the near field it is the exact objective.

    Examples
    --------
    >>> C = Transitions.from_counts(sp.csr_array(np.array([[0.0, 1.0], [1.0, 0.0]])))
    >>> U = V = np.array([[0.0, 0.0], [1.0, 0.0]])
    >>> everything = NearField(sp.csr_array(np.ones((2, 2))), np.array([0]))
    >>> round(approximate_objective(U, V, C, everything)[0], 6)
    -2.626523
    """
    S, k = U.shape
    far = _far_setup(U, field)
    n_out = transitions.n_out
    log_norm = np.empty(S)
    wEU = np.empty((S, k))
    q, PtnV = np.zeros(S), np.zeros((S, k))
    far_sums = np.zeros((len(field.landmarks), k + 1))
    for a0, a1 in blocks(S, far.row_cost, should_stop):
        E_near, E_far, shift, Z = _approx_rows(U, V, a0, a1, field, far, exclude_self)
        log_norm[a0:a1] = np.log(Z) - shift
        w = n_out[a0:a1] / Z
        wEU[a0:a1] = w[:, None] * (E_near @ U + (E_far @ far.UL).astype(np.float64))
        wv = w[:, None] * V[a0:a1]
        q += E_near.T @ w
        PtnV += E_near.T @ wv
        far_sums += (E_far.T @ np.column_stack([w, wv]).astype(far.UL.dtype)).astype(np.float64)
    ll = transitions.observed(U, V) - float((n_out * log_norm).sum())
    gV = 2.0 * (transitions.counts @ U - wEU)
    gU = -2.0 * (transitions.n_in[:, None] * U - transitions.counts_T @ V) + 2.0 * (q[:, None] * U - PtnV)
    L = field.landmarks
    gU[L] += 2.0 * (far_sums[:, :1] * U[L] - far_sums[:, 1:])
    return ll, gU, gV


# --------------------------------------------------------------------------- penalties, and all of it at once


def penalise(U, V, log_likelihood: float, grad_entry, grad_exit, n_total: float, reg: float,
             tag_prior: TagPrior | None = None):
    """Divide by T (per transition), subtract (reg / S)(||U||^2 + ||V||^2) and the tag prior (weight / S).

    The gradients are changed in place. Returns ``(value, log_likelihood per transition,
    grad_entry, grad_exit, tag_points)``. The tag points are optimal for U and V, so (by the
    envelope theorem) the gradient needs no term through them.

    Examples
    --------
    >>> U = V = np.ones((2, 1))
    >>> value, ll, *_ = penalise(U, V, -4.0, np.zeros((2, 1)), np.zeros((2, 1)), 2.0, reg=0.5)
    >>> float(value), ll  # -4 / 2 - (0.5 / 2) * 4
    (-3.0, -2.0)
    """
    A = None
    S = len(U)
    obj = log_likelihood / n_total
    grad_entry /= n_total
    grad_exit /= n_total
    obj -= reg * ((U**2).sum() + (V**2).sum()) / S
    grad_entry -= 2 * reg * U / S
    grad_exit -= 2 * reg * V / S
    if tag_prior is not None:
        A = tag_prior.tag_points(U, V)
        mean = tag_prior.matrix @ A
        wt = tag_prior.weight / S
        dU, dV = U - mean, V - mean
        obj -= wt * ((dU**2).sum() + (dV**2).sum())
        grad_entry -= 2 * wt * dU
        grad_exit -= 2 * wt * dV
    return obj, log_likelihood / n_total, grad_entry, grad_exit, A


class Objective:
    """LME's training objective as a function of its parameters, for :func:`.gradient_ascent`.

    The value is the average log-likelihood per training transition minus
    ``(reg / S)(||U||^2 + ||V||^2)`` and, with tags, the tag prior. The parameters are
    ``(U,)`` for the single-point model (``V = U``) and ``(U, V)`` for the dual one.

    Parameters
    ----------
    transitions : Transitions
    model : {"single", "dual"}
    reg : float
    exclude_self : bool, default=False
    tag_prior : TagPrior or None, default=None
    z_approx : int or None, default=None
        With an int m that approximates Z on these songs (see :func:`uses_approximation`),
        Z comes from a near field of m songs and m landmarks (:func:`.near_field`), drawn by
        :meth:`refresh` with ``random_state``.
    random_state : numpy RandomState, default=None
    should_stop : callable or None, default=None
        Polled between blocks of work; returning True raises :class:`.Stopped`.

    Examples
    --------
    >>> C = Transitions.from_counts(sp.csr_array(np.array([[0.0, 1.0], [1.0, 0.0]])))
    >>> f = Objective(C, model="single", reg=0.0)
    >>> round(f((np.array([[0.0, 0.0], [1.0, 0.0]]),)).log_likelihood, 6)  # log(e^-1 / (1 + e^-1))
    -1.313262
    """

    def __init__(self, transitions: Transitions, *, model: str, reg: float, exclude_self: bool = False,
                 tag_prior: TagPrior | None = None, z_approx: int | None = None, random_state=None,
                 should_stop=None):
        self.transitions = transitions
        self.model = model
        self.reg = reg
        self.exclude_self = exclude_self
        self.tag_prior = tag_prior
        self.z_approx = z_approx
        self.random_state = random_state
        self.should_stop = should_stop
        self.approximate = uses_approximation(len(transitions.n_out), z_approx)
        self.field: NearField | None = None

    def points(self, params):
        """(U, V) from the parameters."""
        return (params[0], params[0]) if self.model == "single" else params

    def refresh(self, params) -> None:
        """Draw the near field and landmarks again around the points (the approximate objective only)."""
        if self.approximate:
            U, V = self.points(params)
            self.field = near_field(U, V, self.transitions.counts, int(self.z_approx),
                                    random_state=self.random_state, should_stop=self.should_stop)

    def __call__(self, params) -> Evaluation:
        U, V = self.points(params)
        if self.approximate:
            if self.field is None:
                self.refresh(params)
            ll, gU, gV = approximate_objective(U, V, self.transitions, self.field, exclude_self=self.exclude_self,
                                               should_stop=self.should_stop)
        else:
            ll, gU, gV = exact_objective(U, V, self.transitions, exclude_self=self.exclude_self,
                                         should_stop=self.should_stop)
        value, ll, gU, gV, A = penalise(U, V, ll, gU, gV, self.transitions.n_total, self.reg, self.tag_prior)
        gradient = (gU + gV,) if self.model == "single" else (gU, gV)
        return Evaluation(value, ll, gradient, gU, gV, A)
