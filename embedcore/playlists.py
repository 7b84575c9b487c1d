"""Latent Markov Embedding of playlists, and the baselines it is measured against.

A playlist is a walk through songs. LME gives every song a point in a small
space and makes a transition likelier the closer the next song is:

* dual-point model: song s has an entry point ``u_s`` and an exit point ``v_s``,
  ``P(s | s') = exp(-||u_s - v_s'||^2) / Z(s')``;
* single-point model: one point per song, ``u_s = v_s`` (transitions are
  then nearly symmetric and the space is a map one can read).

``Z(s') = sum_s exp(-||u_s - v_s'||^2)`` sums over every song, ``s'`` itself
included (as in Chen et al. 2012: a song may follow itself, and in the
single-point model, at distance 0, it is always its own likeliest successor;
``exclude_self=True`` forbids it). Training maximises the average
log-likelihood per observed transition minus ``reg / S`` times the squared
lengths of all points, ``||U||^2 + ||V||^2`` (S songs; the transitions are
gathered once into a sparse song-by-song count matrix), by gradient ascent on
the exact objective. The song-by-song work is done in blocks of rows, so memory
stays bounded (about 16 MB a block) and a ``should_stop`` hook is polled between
blocks; its time still grows as S x S, so the exact Z is limited to
:data:`MAX_EXACT_Z_SONGS` songs and larger sets need the approximation (``z_approx``).
"""

from __future__ import annotations

import time
from collections.abc import Hashable, Sequence
from itertools import chain
from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted, check_random_state

from .compare import procrustes_align

__all__ = [
    "LME",
    "MAX_EXACT_Z_SONGS",
    "partition_cost",
    "transition_counts",
    "make_planted_playlists",
    "random_walk_playlists",
    "split_playlists",
    "song_index",
    "scored_transitions",
    "ScoredTransitions",
    "baseline_log_likelihoods",
    "play_counts",
    "song_tag_labels",
    "procrustes_align",
    "align_to_truth",
    "next_songs",
    "song_coordinates",
]


# --------------------------------------------------------------------------- data helpers


def _check_playlists(playlists) -> list[list]:
    if isinstance(playlists, (str, bytes)):
        raise ValueError("Pass a list of playlists (each a list of song ids), not a single string.")
    playlists = [list(p) for p in playlists]
    if not playlists:
        raise ValueError("No playlists given.")
    if all(len(p) < 2 for p in playlists):
        raise ValueError(
            "Every playlist has fewer than 2 songs, so there is no transition to learn from. "
            "A playlist needs at least two songs."
        )
    return playlists


def transition_counts(playlists, index: pd.Index) -> sp.csr_array:
    """Sparse (S x S) matrix: entry (a, b) counts transitions from song a to song b."""
    lengths = np.fromiter(map(len, playlists), dtype=np.int64, count=len(playlists))
    flat = index.get_indexer(list(chain.from_iterable(playlists)))
    if (flat < 0).any():
        missing = list(chain.from_iterable(playlists))[int(np.flatnonzero(flat < 0)[0])]
        raise ValueError(f"Song {missing!r} is not known to the model; it never appeared in training.")
    ends = np.cumsum(lengths)
    is_last = np.zeros(flat.size, dtype=bool)
    is_last[ends[lengths > 0] - 1] = True
    src = flat[:-1][~is_last[:-1]]
    dst = flat[1:][~is_last[:-1]]
    S = len(index)
    C = sp.coo_array((np.ones(src.size), (src, dst)), shape=(S, S)).tocsr()
    C.sum_duplicates()
    return C


def song_index(playlists) -> pd.Index:
    """The songs of ``playlists`` in order of first appearance: the song set an LME fitted on them has.

    Examples
    --------
    >>> list(song_index([["b", "a"], ["c"], ["a", "d"]]))
    ['b', 'a', 'c', 'd']
    """
    return pd.Index(pd.unique(pd.Series(list(chain.from_iterable(playlists)), dtype=object)))


class ScoredTransitions(NamedTuple):
    """The held-out transitions that can be scored against a training song set (see :func:`scored_transitions`)."""

    playlists: list
    """Runs of consecutive known songs (two or more): their transitions are exactly the kept ones."""
    n_scored: int
    n_left_out: int
    n_total: int


def scored_transitions(playlists, songs) -> ScoredTransitions:
    """The transitions of ``playlists`` whose two songs are both in ``songs``, and how many are not.

    A model trained on some songs has no probability for a song it never saw, so a held-out
    transition is scored only when both its songs are known. Songs are not deleted and their
    neighbours joined: in ``a -> x -> b`` with ``x`` unknown, both transitions are left out and
    ``a -> b`` (never played) is not scored. Each playlist is cut at its unknown songs into
    runs of known songs; runs of one song (no transition) are dropped. Every held-out score
    (the model's, the true model's, the baselines') is taken over these runs.

    Examples
    --------
    >>> held = scored_transitions([["a", "x", "b", "c"], ["c", "a"]], ["a", "b", "c"])
    >>> held.playlists, held.n_scored, held.n_left_out
    ([['b', 'c'], ['c', 'a']], 2, 2)
    """
    playlists = [list(p) for p in playlists]
    lengths = np.fromiter(map(len, playlists), dtype=np.int64, count=len(playlists))
    n_total = int(np.maximum(lengths - 1, 0).sum())
    flat = np.fromiter(chain.from_iterable(playlists), dtype=object, count=int(lengths.sum()))
    known = pd.Index(songs).get_indexer(flat) >= 0
    starts = np.zeros(flat.size, dtype=bool)
    starts[(np.cumsum(lengths) - lengths)[lengths > 0]] = True
    # transition i (song i to song i + 1) is kept when it stays inside one playlist and both songs are known
    kept = known[:-1] & known[1:] & ~starts[1:]
    n_scored = int(kept.sum())
    before = np.concatenate([[False], kept[:-1]])
    after = np.concatenate([kept[1:], [False]])
    first, last = np.flatnonzero(kept & ~before), np.flatnonzero(kept & ~after)
    runs = [flat[a:b + 2].tolist() for a, b in zip(first.tolist(), last.tolist())]
    return ScoredTransitions(runs, n_scored, n_total - n_scored, n_total)


def split_playlists(playlists, test_size: float = 0.2, random_state=None):
    """Split playlists (not transitions) into training and test sets."""
    if not 0 < test_size < 1:
        raise ValueError(f"test_size must be between 0 and 1, got {test_size}.")
    rng = check_random_state(random_state)
    order = rng.permutation(len(playlists))
    n_test = max(1, int(round(test_size * len(playlists))))
    test = set(order[:n_test].tolist())
    return ([p for i, p in enumerate(playlists) if i not in test], [p for i, p in enumerate(playlists) if i in test])


# --------------------------------------------------------------------------- the cost of Z

#: Most songs for which Z is computed exactly. One exact step evaluates the kernel for all S x S
#: (exit, entry) pairs: at 10,000 songs 10^8 terms, where a single S x S float64 matrix would
#: already take 0.8 GB (the limit is where that reaches about 1 GB, rounded down) and a step
#: takes 1 to 2 s on two cores. Beyond it the exact Z is refused; set ``z_approx``.
MAX_EXACT_Z_SONGS = 10_000

# Entries of song-by-song work per block: 16 MB in float32, tens of milliseconds of work, so a
# should_stop hook polled between blocks is answered well within a second.
_BLOCK = 2**22
# Nearest-neighbour results per block of queries (a query for m neighbours costs about m).
_KNN_BLOCK = 2**16
# Kernel terms per second of one training step, measured on two cores; only for estimates.
_TERMS_PER_SECOND = 5e7
# m used to score a held-out set too large for the exact Z with a model that has no z_approx.
_SCORE_M = 50


class _Stopped(Exception):
    """Raised between blocks of work when ``should_stop()`` returns True."""


def _blocks(n_rows: int, row_cost: float, should_stop=None):
    """(start, stop) row ranges of about ``_BLOCK`` entries, polling ``should_stop`` before each."""
    step = max(1, int(_BLOCK // max(row_cost, 1.0)))
    for a0 in range(0, n_rows, step):
        if should_stop is not None and should_stop():
            raise _Stopped
        yield a0, min(a0 + step, n_rows)


def _uses_approx(n_songs: int, z_approx) -> bool:
    # with 3m >= S the near field and the landmarks cover every song anyway: Z is exact
    return z_approx is not None and 3 * int(z_approx) < n_songs


def partition_cost(n_songs: int, z_approx: int | None = None) -> dict:
    """The work of one training step on ``n_songs`` songs, estimated before any is done.

    Returns a dict with

    * ``approximate``: whether ``z_approx`` approximates Z at this size (with
      ``3 * z_approx >= n_songs`` the near songs and landmarks cover every song);
    * ``terms``: kernel evaluations per step, S*S exact, about 3*S*m approximate;
    * ``dense_bytes``: one S x S float64 matrix, what an exact step done densely would hold;
    * ``work_bytes``: what the blocked computation holds at its peak (one block, and for the
      approximation the near field of about S*m entries at 32 bytes each);
    * ``seconds``: a rough time per step, from a rate measured on two cores;
    * ``exact_allowed``: ``n_songs <= MAX_EXACT_Z_SONGS``.

    Examples
    --------
    >>> cost = partition_cost(40_000)
    >>> cost["dense_bytes"] / 1e9, cost["exact_allowed"]
    (12.8, False)
    >>> partition_cost(40_000, z_approx=50)["terms"]
    6000000
    """
    S = int(n_songs)
    approx = _uses_approx(S, z_approx)
    terms = 3 * S * int(z_approx) if approx else S * S
    block = 8 * min(terms, _BLOCK)
    return {
        "approximate": approx,
        "terms": terms,
        "dense_bytes": 8 * S * S,
        "work_bytes": block + (32 * S * int(z_approx) if approx else 0),
        "seconds": terms / _TERMS_PER_SECOND,
        "exact_allowed": S <= MAX_EXACT_Z_SONGS,
    }


# --------------------------------------------------------------------------- the model


def _sq_dists(V, U):
    """||u_s - v_a||^2 for every exit a (rows) and entry s (columns)."""
    D = V @ U.T
    D *= -2.0
    D += (V**2).sum(1)[:, None]
    D += (U**2).sum(1)[None, :]
    return np.maximum(D, 0.0, out=D)


def _log_probs(U, V, exclude_self: bool):
    """Row-stochastic log P[a, s] = log P(s | a) for all pairs, and its probabilities."""
    logits = -_sq_dists(V, U)
    if exclude_self:
        np.fill_diagonal(logits, -np.inf)
    m = logits.max(axis=1, keepdims=True)
    E = np.exp(logits - m)
    Z = E.sum(axis=1, keepdims=True)
    return logits - m - np.log(Z), E / Z


class LME(BaseEstimator):
    """Latent Markov Embedding of playlists, trained by gradient ascent on the exact likelihood.

    Parameters
    ----------
    n_components : int, default=2
        Dimension of the song space.
    model : {"single", "dual"}, default="single"
    reg : float, default=0.001
        The penalty's weight λ: training maximises
        ``(1/T) sum log P(p_j | p_j-1) - (reg / S) (||U||^2 + ||V||^2)`` over the T training
        transitions and S songs, the average log-likelihood per transition minus λ times the
        average over songs of ``||u_s||^2 + ||v_s||^2`` (in the single model u_s = v_s, so a
        point counts twice). It keeps rarely seen songs near the centre.
    max_iter : int, default=300
    tol : float, default=1e-5
        Stop when the average log-likelihood improves by less than this per accepted step, 5 times running.
    learning_rate : float, default=0.5
        The first step size; the step then grows by 20% after every improving step and halves
        (undoing the step) after a worse one, so its starting value hardly matters.
    exclude_self : bool, default=False
        Leave the song itself out of ``Z`` (no immediate repeats). The default keeps it, as
        the model of Chen et al. does; a single-point song is then its own likeliest successor.
    tag_weight : float, default=0.01
        With tags, the strength of the prior pulling each song to the mean of its tags' points
        (per song, against the average log-likelihood per transition; 1 already clusters songs by tag).
    init : {"lift", "random"}, default="lift"
        "random" starts from small Gaussian points. "lift" first trains in eight
        more dimensions for 30% of ``max_iter`` (room to untangle), then
        projects onto the top principal plane and continues there: a 2-D map
        trained from random points often stays folded in a poorer optimum.
    z_approx : int or None, default=None
        None computes every Z(s') exactly: S x S work per step, allowed up to
        :data:`MAX_EXACT_Z_SONGS` songs (see :func:`partition_cost`). An int m
        approximates it for large song sets with S x (3m + successors) work:
        the m songs nearest to the exit point v_s' and the songs actually
        played after s' are summed exactly (they carry almost all of Z, since
        the kernel decays as exp(-d^2)), and the rest is estimated from m
        random landmark songs scaled to their number. Choose m well above the
        effective number of next songs, exp(-log-likelihood per transition). Neighbours and
        landmarks are redrawn every 20 accepted steps (the objective is then
        re-scored, so the step rule compares like with like).
        ``log_likelihood`` reports the exact value up to the same amount of
        work (held-out sources x songs <= MAX_EXACT_Z_SONGS**2) and beyond it
        the same approximation (with m = z_approx, or 50).
    random_state : int, RandomState or None

    Attributes
    ----------
    songs_ : pandas Index of song ids (row order)
    embedding_ : (S, k) song points (single model; the entry points for dual)
    entry_, exit_ : (S, k) entry points ``u`` and exit points ``v`` (both models; equal for single)
    tags_, tag_embedding_ : the tag names and their points, when fitted with tags
    log_likelihood_curve_ : average training log-likelihood per transition after every accepted step
    n_iter_, fit_seconds_
    """

    _LIFT_DIMS = 8  # extra dimensions of the "lift" start
    _LIFT_SHARE = 0.3  # share of max_iter spent there

    def __init__(self, *, n_components: int = 2, model: str = "single", reg: float = 0.001, max_iter: int = 300,
                 tol: float = 1e-5, learning_rate: float = 0.5, exclude_self: bool = False,
                 tag_weight: float = 0.01, init: str = "lift", z_approx: int | None = None,
                 random_state=None):
        self.n_components = n_components
        self.model = model
        self.reg = reg
        self.max_iter = max_iter
        self.tol = tol
        self.learning_rate = learning_rate
        self.exclude_self = exclude_self
        self.tag_weight = tag_weight
        self.init = init
        self.z_approx = z_approx
        self.random_state = random_state

    # ------------------------------------------------------------------ objective

    def _objective(self, U, V, C, n_out, n_total, Tm=None, should_stop=None):
        """Average log-likelihood per transition minus penalties, and its gradients.

        With E[a, s] = exp(-||u_s - v_a||^2 - m_a) and Z_a = sum_s E[a, s]
        (m_a a row shift for stability), P = E / Z is never formed:
        d/dV_a = 2 [ (C U)_a - n_a (P U)_a ] and
        d/dU_s = -2 [ m_s U_s - (C^T V)_s ] + 2 [ q_s U_s - (P^T (n V))_s ], with q = P^T n.
        E is built a block of exit rows at a time (each row's Z needs only its own row).
        """
        S, k = U.shape
        # The S x S part dominates the cost; above 1,000 songs it runs in float32
        # (half the memory traffic), with every sum accumulated in float64.
        dense = np.float32 if S >= 1000 else np.float64
        Ud = U.astype(dense)
        log_norm = np.empty(S)
        wEU = np.empty((S, k))  # rows of (n_a / Z_a) E U
        ET = np.zeros((S, k + 1))  # q = P^T n and P^T (n V), accumulated over blocks
        for a0, a1 in _blocks(S, S, should_stop):
            logits = _sq_dists(V[a0:a1].astype(dense), Ud)
            np.negative(logits, out=logits)
            if self.exclude_self:
                i = np.arange(a1 - a0)
                logits[i, a0 + i] = -np.inf
            shift = logits.max(axis=1)
            logits -= shift[:, None]
            E = np.exp(logits, out=logits)  # reuse the buffer
            Z = E.sum(axis=1, dtype=np.float64)
            log_norm[a0:a1] = shift.astype(np.float64) + np.log(Z)
            w = n_out[a0:a1] / Z  # rows weighted by n_a / Z_a
            wEU[a0:a1] = w[:, None] * (E @ Ud).astype(np.float64)
            wv = np.column_stack([w, w[:, None] * V[a0:a1]]).astype(dense)
            ET += E.T @ wv
        Cc, CT, m_in = self._counts(C)
        d_obs = ((U[Cc.col] - V[Cc.row]) ** 2).sum(axis=1)
        ll = float(-(Cc.data * d_obs).sum() - (n_out * log_norm).sum())
        gV = 2.0 * (C @ U - wEU)
        q, PtnV = ET[:, 0], ET[:, 1:]
        gU = -2.0 * (m_in[:, None] * U - CT @ V) + 2.0 * (q[:, None] * U - PtnV)
        return self._finish_objective(U, V, ll, gU, gV, n_total, Tm)

    def _counts(self, C):
        """The transition counts as coordinates, their transpose and the in-counts: the same for every step of
        a fit, so they are made once (sparse conversions cost more than the arithmetic on small song sets)."""
        memo = self.__dict__.get("_counts_memo")
        if memo is None or memo[0] is not C:
            Cc = C.tocoo() if not isinstance(C, sp.coo_array) else C
            memo = (C, (Cc, C.T, np.asarray(C.sum(axis=0)).ravel()))
            self._counts_memo = memo
        return memo[1]

    def _tag_system(self, Tm):
        """For the tag prior: Tm transposed and the regularised normal matrix Tm^T Tm, made once per fit."""
        memo = self.__dict__.get("_tags_memo")
        if memo is None or memo[0] is not Tm:
            TtT = (Tm.T @ Tm).toarray() if sp.issparse(Tm) else Tm.T @ Tm
            memo = (Tm, (Tm.T, TtT + 1e-9 * np.eye(TtT.shape[0])))
            self._tags_memo = memo
        return memo[1]

    def _finish_objective(self, U, V, ll, gU, gV, n_total, Tm):
        """Divide by T (per transition), subtract (reg / S)(||U||^2 + ||V||^2) and the tag prior (tag_weight / S)."""
        A = None
        obj = ll / n_total
        gU /= n_total
        gV /= n_total
        r = self.reg
        obj -= r * ((U**2).sum() + (V**2).sum()) / len(U)
        gU -= 2 * r * U / len(U)
        gV -= 2 * r * V / len(U)
        if Tm is not None:
            # Tag points are the least-squares fit of their songs' points (so each tag sits at
            # the centre of its songs); the prior -tag_weight * ||x_s - (T A)_s||^2 then pulls
            # every song towards its tags' mean. A is optimal for U, V, so by the envelope
            # theorem the gradient needs no term through A.
            target = (U + V) / 2
            TmT, normal = self._tag_system(Tm)
            A = np.linalg.solve(normal, TmT @ target)
            mean = Tm @ A
            wt = self.tag_weight / len(U)
            dU, dV = U - mean, V - mean
            obj -= wt * ((dU**2).sum() + (dV**2).sum())
            gU -= 2 * wt * dU
            gV -= 2 * wt * dV
        return obj, ll / n_total, gU, gV, A

    def _approx_block(self, U, V, a0, a1, X, L, pos, UL):
        """Z_a for the exit rows a0:a1 from their near field (exact terms) and the far landmarks.

        Returns E_near (sparse, rows a0:a1 by songs), E_far (rows by landmarks, scaled by r_a),
        the row shifts and Z (both shifted by them).
        """
        S = len(U)
        lo = X.indptr[a0]
        cols = X.indices[lo:X.indptr[a1]]
        indptr = X.indptr[a0:a1 + 1] - lo
        counts = np.diff(indptr)
        rows = np.repeat(np.arange(a1 - a0), counts)
        d_near = ((U[cols] - V[a0 + rows]) ** 2).sum(axis=1)
        D_far = _sq_dists(V[a0:a1].astype(UL.dtype), UL)
        hit = pos[cols] >= 0
        in_near = np.zeros((a1 - a0, len(L)), dtype=bool)  # landmarks already summed exactly
        in_near[rows[hit], pos[cols[hit]]] = True
        D_far[in_near] = np.inf
        if self.exclude_self:
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

    def _approx_setup(self, U, X, L):
        S, k = U.shape
        dense = np.float32 if S >= 1000 else np.float64  # the (rows, m) blocks are the bulk of the work
        pos = np.full(S, -1)
        pos[L] = np.arange(len(L))
        # U[cols] holds k numbers per near term, and a sparse term costs about four dense ones
        row_cost = 4 * (k + 1) * (X.nnz / max(S, 1) + len(L))
        return U[L].astype(dense), pos, row_cost

    def _objective_approx(self, U, V, C, n_out, n_total, Tm, X, L, should_stop=None):
        """The objective with Z from a near field X (sparse pattern, summed exactly) and far landmarks L.

        Z_a = sum_{j in X(a)} e_aj + r_a sum_{l in L minus X(a)} e_al, r_a = (S - |X(a)|) / |L minus X(a)|;
        the weights kappa (1 on X, r_a on the landmarks) replace 1 in the exact gradient.
        """
        S, k = U.shape
        UL, pos, row_cost = self._approx_setup(U, X, L)
        log_norm = np.empty(S)
        wEU = np.empty((S, k))
        q, PtnV = np.zeros(S), np.zeros((S, k))
        far = np.zeros((len(L), k + 1))
        for a0, a1 in _blocks(S, row_cost, should_stop):
            E_near, E_far, shift, Z = self._approx_block(U, V, a0, a1, X, L, pos, UL)
            log_norm[a0:a1] = np.log(Z) - shift
            w = n_out[a0:a1] / Z
            wEU[a0:a1] = w[:, None] * (E_near @ U + (E_far @ UL).astype(np.float64))
            wv = w[:, None] * V[a0:a1]
            q += E_near.T @ w
            PtnV += E_near.T @ wv
            far += (E_far.T @ np.column_stack([w, wv]).astype(UL.dtype)).astype(np.float64)
        Cc, CT, m_in = self._counts(C)
        d_obs = ((U[Cc.col] - V[Cc.row]) ** 2).sum(axis=1)
        ll = float(-(Cc.data * d_obs).sum() - (n_out * log_norm).sum())
        gV = 2.0 * (C @ U - wEU)
        gU = -2.0 * (m_in[:, None] * U - CT @ V) + 2.0 * (q[:, None] * U - PtnV)
        gU[L] += 2.0 * (far[:, :1] * U[L] - far[:, 1:])
        return self._finish_objective(U, V, ll, gU, gV, n_total, Tm)

    def _near_field(self, U, V, C, rng, should_stop=None, m=None):
        """Songs summed exactly for each exit point: its z_approx nearest entry points and its successors."""
        from sklearn.neighbors import NearestNeighbors

        S, m = len(U), int(self.z_approx if m is None else m)
        k = min(m, S)
        index = NearestNeighbors(n_neighbors=k).fit(U)
        follows = sp.csr_array((C > 0).astype(np.float64))
        parts = []
        # blocks of at most _KNN_BLOCK results and 1,024 queries (a query costs ~0.4 ms in 10-D);
        # the union with the successors is taken per block too (sorted rows merge in linear time)
        for a0, a1 in _blocks(S, _BLOCK * max(k / _KNN_BLOCK, 1 / 1024), should_stop):
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
        return X, L

    # ------------------------------------------------------------------ fitting

    def fit(self, playlists, y=None, *, tags: dict | None = None, callback=None, should_stop=None):
        """Learn song points from playlists (lists of hashable song ids).

        ``tags`` maps song id -> list of tags (songs without tags get none).
        ``callback(model, iteration, log_likelihood)`` runs after every accepted
        step; returning True stops training, keeping the model so far.
        ``should_stop()`` is polled between blocks of the work inside a step
        (tens of milliseconds apart at any size); returning True ends training
        with the points of the last accepted step.
        """
        if self.model not in ("single", "dual"):
            raise ValueError(f"model must be 'single' or 'dual', got {self.model!r}.")
        if not isinstance(self.n_components, Integral) or self.n_components < 1:
            raise ValueError(f"n_components must be a positive integer, got {self.n_components!r}.")
        if not isinstance(self.reg, Real) or self.reg < 0:
            raise ValueError(f"reg must be >= 0, got {self.reg!r}.")
        if self.z_approx is not None and (not isinstance(self.z_approx, Integral) or self.z_approx < 1):
            raise ValueError(f"z_approx must be None or a positive integer, got {self.z_approx!r}.")
        if self.init not in ("lift", "random"):
            raise ValueError(f"init must be 'lift' or 'random', got {self.init!r}.")
        playlists = _check_playlists(playlists)
        t0 = time.perf_counter()
        songs = song_index(playlists)
        S, k = len(songs), self.n_components
        if S > MAX_EXACT_Z_SONGS and not _uses_approx(S, self.z_approx):
            cost = partition_cost(S)
            why = ("z_approx is None, so" if self.z_approx is None else
                   f"z_approx={self.z_approx} is at least a third of the songs, so")
            raise ValueError(
                f"{S:,} songs: {why} Z would be exact, {S:,} x {S:,} = {cost['terms']:.1e} kernel terms per "
                f"step (one S x S float64 matrix alone is {cost['dense_bytes'] / 1e9:.1f} GB). The exact Z "
                f"allows at most {MAX_EXACT_Z_SONGS:,} songs; set z_approx to an integer of at most "
                f"{(S - 1) // 3:,} (50 to 500 is typical) to approximate it."
            )
        self.songs_ = songs
        C = transition_counts(playlists, songs)
        n_out = np.asarray(C.sum(axis=1)).ravel()
        n_total = float(n_out.sum())
        self.n_transitions_ = int(n_total)
        rng = check_random_state(self.random_state)
        U = 0.5 * rng.standard_normal((S, k))
        V = U.copy() if self.model == "single" else U + 0.1 * rng.standard_normal((S, k))
        Tm, A = None, None
        if tags:
            self.tags_ = pd.Index(sorted({t for ts in tags.values() for t in ts}))
            where = songs.get_indexer(list(tags))  # one look-up for all songs, not one per song
            pairs = [(i, t) for i, ts in zip(where, tags.values()) if i >= 0 for t in ts]
            rows = [i for i, _ in pairs]
            cols = self.tags_.get_indexer([t for _, t in pairs])
            T = sp.csr_array((np.ones(len(rows)), (rows, cols)), shape=(S, len(self.tags_)))
            counts = np.asarray(T.sum(axis=1)).ravel()
            Tm = sp.csr_array(T / np.maximum(counts, 1)[:, None])  # rows average their tags
            A = 0.1 * rng.standard_normal((len(self.tags_), k))
        else:
            self.tags_ = None
        budget, curve, it_done = self.max_iter, [], 0
        if self.init == "lift" and self.max_iter >= 6:
            from .linear import pca_basis

            extra = self._LIFT_DIMS
            Uh = np.hstack([U, 0.5 * rng.standard_normal((S, extra))])
            Vh = Uh.copy() if self.model == "single" else np.hstack([V, Uh[:, k:]])
            Ah = None if A is None else np.hstack([A, 0.1 * rng.standard_normal((len(A), extra))])

            def project(Uh, Vh, Ah):
                stacked = np.vstack([Uh, Vh]) if self.model == "dual" else Uh
                mean, basis, _ = pca_basis(stacked, k)
                proj = [(Uh - mean) @ basis, (Vh - mean) @ basis, None if Ah is None else (Ah - mean) @ basis]
                if self.model == "single":
                    proj[1] = proj[0]
                return proj

            def lifted_callback(Uh, Vh, Ah, it, ll, curve):
                if callback is None:
                    return False
                self._set_state(*project(Uh, Vh, Ah), curve)
                return callback(self, it, ll)

            Uh, Vh, Ah, curve, it_done, stopped = self._ascend(Uh, Vh, Ah, C, n_out, n_total, Tm,
                                                               int(budget * self._LIFT_SHARE),
                                                               lifted_callback, [], 0, rng, should_stop)
            U, V, A = project(Uh, Vh, Ah)
            budget -= it_done
            if stopped:
                budget = 0
        if budget > 0:
            U, V, A, curve, it_done, _ = self._ascend(U, V, A, C, n_out, n_total, Tm, budget,
                                                      None if callback is None else
                                                      (lambda U_, V_, A_, it, ll, cv: (self._set_state(U_, V_, A_, cv),
                                                                                       callback(self, it, ll))[1]),
                                                      curve, it_done, rng, should_stop)
        self._set_state(U, V, A, curve)
        self.n_iter_ = it_done
        self.fit_seconds_ = time.perf_counter() - t0
        for memo in ("_counts_memo", "_tags_memo"):  # they hold the training data: not part of the model
            self.__dict__.pop(memo, None)
        return self

    def _ascend(self, U, V, A, C, n_out, n_total, Tm, max_iter, callback, curve, it0, rng=None, should_stop=None):
        """Gradient ascent with a self-tuning step: x1.2 after a better step, /2 (and undo) after a worse one.

        Returns the last accepted state; ``stopped`` is True when the callback or
        ``should_stop`` ended it.
        """
        approx = _uses_approx(len(U), self.z_approx)
        field = [None]

        def objective(U, V):
            if approx:
                return self._objective_approx(U, V, C, n_out, n_total, Tm, *field[0], should_stop=should_stop)
            return self._objective(U, V, C, n_out, n_total, Tm, should_stop=should_stop)

        try:
            if approx:
                field[0] = self._near_field(U, V, C, rng, should_stop)
            obj, ll, gU, gV, A = objective(U, V)
        except _Stopped:
            return U, V, A, list(curve), it0, True
        lr = float(self.learning_rate)
        accepted = 0
        curve = list(curve) + [ll]
        stalls, it, stopped = 0, it0, False
        for it in range(it0 + 1, it0 + max_iter + 1):
            if self.model == "single":
                U_new = U + lr * (gU + gV)
                V_new = U_new
            else:
                U_new, V_new = U + lr * gU, V + lr * gV
            try:
                obj_new, ll_new, gU_n, gV_n, A_n = objective(U_new, V_new)
            except _Stopped:  # this step was not finished: keep the last accepted one
                it, stopped = it - 1, True
                break
            if obj_new >= obj:
                gain = obj_new - obj
                U, V, A, obj, ll, gU, gV = U_new, V_new, A_n, obj_new, ll_new, gU_n, gV_n
                lr *= 1.2
                curve.append(ll)
                accepted += 1
                if approx and accepted % 20 == 0:  # follow the points; re-score so steps compare like with like
                    try:
                        field[0] = self._near_field(U, V, C, rng, should_stop)
                        obj, ll, gU, gV, A = objective(U, V)
                    except _Stopped:
                        stopped = True
                        break
                stalls = stalls + 1 if gain < self.tol else 0
                if callback is not None and callback(U, V, A, it, ll, curve):
                    stopped = True
                    break
                if stalls >= 5:
                    break
            else:
                lr *= 0.5
                if lr < 1e-12:
                    break
        return U, V, A, curve, it, stopped

    def _set_state(self, U, V, A, curve):
        self.entry_ = U
        self.exit_ = V
        self.embedding_ = U
        self.tag_embedding_ = A
        self.log_likelihood_curve_ = np.array(curve)

    # ------------------------------------------------------------------ using the model

    def _index(self, songs) -> np.ndarray:
        check_is_fitted(self, "entry_")
        idx = self.songs_.get_indexer(list(songs))
        if (idx < 0).any():
            bad = list(songs)[int(np.flatnonzero(idx < 0)[0])]
            raise ValueError(f"Song {bad!r} is not known to the model: it never appeared in training "
                             "(add it with add_song if it has tags).")
        return idx

    def transition_proba(self, song: Hashable) -> pd.Series:
        """P(next = s | current = song) for every song s, as a Series indexed by song id."""
        a = self._index([song])[0]
        logits = -((self.entry_ - self.exit_[a]) ** 2).sum(axis=1)
        if self.exclude_self:
            logits[a] = -np.inf
        p = np.exp(logits - logits.max())
        return pd.Series(p / p.sum(), index=self.songs_)

    def log_likelihood(self, playlists, *, should_stop=None) -> float:
        """Average natural-log probability per transition of ``playlists`` under the model.

        Every song must be known to the model. Held-out playlists with songs it never saw are
        scored through :func:`scored_transitions`, ``log_likelihood(scored_transitions(test,
        model.songs_).playlists)``, which leaves out each transition that touches one.
        Z is exact (in blocks of rows, only for the songs the transitions leave) while that is
        at most ``MAX_EXACT_Z_SONGS**2`` kernel terms, the work of one exact training step at
        the limit; beyond it Z is approximated as in training, with m = ``z_approx`` (or 50)
        and a fixed landmark draw, so the same model and playlists give the same score.
        ``should_stop()`` is polled between blocks; returning True abandons the score (nan).
        """
        playlists = _check_playlists(playlists)
        Cs = transition_counts(playlists, self.songs_)
        C = Cs.tocoo()
        U, V = self.entry_, self.exit_
        S = len(U)
        sources = np.unique(C.row)
        log_norm = np.zeros(S)
        try:
            if len(sources) * S <= MAX_EXACT_Z_SONGS**2:
                dense = np.float32 if S >= 1000 else np.float64  # as in training; sums in float64
                Ud, Vs = U.astype(dense), V[sources].astype(dense)
                for a0, a1 in _blocks(len(sources), S, should_stop):
                    logits = _sq_dists(Vs[a0:a1], Ud)
                    np.negative(logits, out=logits)
                    if self.exclude_self:
                        logits[np.arange(a1 - a0), sources[a0:a1]] = -np.inf
                    shift = logits.max(axis=1)
                    logits -= shift[:, None]
                    z = np.exp(logits, out=logits).sum(axis=1, dtype=np.float64)
                    log_norm[sources[a0:a1]] = shift.astype(np.float64) + np.log(z)
            else:
                m = min(int(self.z_approx or _SCORE_M), max(S // 3, 1))
                X, L = self._near_field(U, V, Cs, np.random.RandomState(0), should_stop, m=m)
                UL, pos, row_cost = self._approx_setup(U, X, L)
                for a0, a1 in _blocks(S, row_cost, should_stop):
                    _, _, shift, Z = self._approx_block(U, V, a0, a1, X, L, pos, UL)
                    log_norm[a0:a1] = np.log(Z) - shift
        except _Stopped:
            return float("nan")
        logp = -((U[C.col] - V[C.row]) ** 2).sum(axis=1) - log_norm[C.row]
        if self.exclude_self:
            logp[C.row == C.col] = -np.inf
        return float((C.data * logp).sum() / C.data.sum())

    def sample(self, start: Hashable, length: int, random_state=None) -> list:
        """A playlist of ``length`` songs starting at ``start``, each drawn from ``transition_proba``."""
        if length < 1:
            raise ValueError(f"length must be at least 1, got {length}.")
        rng = check_random_state(random_state)
        out = [start]
        self._index([start])
        for _ in range(length - 1):
            p = self.transition_proba(out[-1]).to_numpy()
            out.append(self.songs_[rng.choice(len(p), p=p)])
        return out

    def tag_position(self, tags: Sequence) -> np.ndarray:
        """Where a song with these tags (and no playlists) is placed: the mean of its tags' points."""
        check_is_fitted(self, "entry_")
        if self.tags_ is None:
            raise ValueError("The model was fitted without tags.")
        idx = self.tags_.get_indexer(list(tags))
        if len(idx) == 0 or (idx < 0).any():
            bad = [t for t, i in zip(tags, idx) if i < 0]
            raise ValueError(f"Unknown tags {bad}; known tags: {', '.join(map(str, self.tags_[:10]))}..."
                             if bad else "Give at least one tag.")
        return self.tag_embedding_[idx].mean(axis=0)

    def add_song(self, song: Hashable, tags: Sequence) -> LME:
        """Add a song that has tags but no playlists, placed at its tags' mean (cold start)."""
        if song in self.songs_:
            raise ValueError(f"Song {song!r} is already in the model.")
        pos = self.tag_position(tags)
        self.songs_ = self.songs_.append(pd.Index([song], dtype=object))
        entry = np.vstack([self.entry_, pos])
        exit_ = entry if self.model == "single" else np.vstack([self.exit_, pos])
        self._set_state(entry, exit_, self.tag_embedding_, self.log_likelihood_curve_)
        return self


# --------------------------------------------------------------------------- baselines


def baseline_log_likelihoods(train, test) -> dict:
    """Average log-probability per test transition of uniform, unigram and Witten-Bell bigram models.

    The song set is that of the training playlists (:func:`song_index`, the songs an LME
    fitted on ``train`` knows), and the test transitions scored are those between two of
    them (:func:`scored_transitions`): the same transitions and songs an LME is scored on.
    Uniform is exactly ``-ln S``; unigram counts how often each song is a transition's
    target (add-one smoothed); the bigram interpolates each song's successor counts with
    the unigram, weighting the unigram by how many distinct successors it has
    (Witten-Bell), and falls back to the unigram for songs never left. A song may follow
    itself in all three, as in the LME. With no test transition to score, every value is nan.
    """
    train = _check_playlists(train)
    songs = song_index(train)
    S = len(songs)
    held = scored_transitions(test, songs)
    if held.n_scored == 0:
        return dict.fromkeys(["uniform", "unigram", "bigram (Witten-Bell)"], float("nan"))
    C = transition_counts(train, songs)
    T = transition_counts(held.playlists, songs).tocoo()
    n_test = T.data.sum()
    target = np.asarray(C.sum(axis=0)).ravel() + 1.0
    uni = target / target.sum()
    n_out = np.asarray(C.sum(axis=1)).ravel()
    distinct = np.diff(C.indptr).astype(float)
    cab = np.asarray(C[T.row, T.col]).ravel()
    with np.errstate(invalid="ignore", divide="ignore"):
        wb = np.where(n_out[T.row] > 0,
                      (cab + distinct[T.row] * uni[T.col]) / (n_out[T.row] + distinct[T.row]),
                      uni[T.col])
    return {
        "uniform": float(-np.log(S)),
        "unigram": float((T.data * np.log(uni[T.col])).sum() / n_test),
        "bigram (Witten-Bell)": float((T.data * np.log(wb)).sum() / n_test),
    }


# --------------------------------------------------------------------------- reading a fitted model


def play_counts(playlists, songs) -> np.ndarray:
    """How often each of ``songs`` is played in ``playlists`` (0 for a song that never is).

    Examples
    --------
    >>> play_counts([["a", "b", "a"], ["c", "a"]], ["a", "c", "z"]).tolist()
    [3, 1, 0]
    """
    flat = list(chain.from_iterable(playlists))
    codes, uniques = pd.factorize(pd.Series(flat, dtype=object))
    counts = np.bincount(codes[codes >= 0], minlength=len(uniques))
    where = pd.Index(uniques).get_indexer(list(songs))
    return np.where(where >= 0, counts[np.maximum(where, 0)] if len(counts) else 0, 0).astype(np.int64)


def song_tag_labels(songs, tags: dict | None) -> list[str]:
    """Each song's tags as one comma-separated string ("" for a song without tags).

    Examples
    --------
    >>> song_tag_labels(["a", "b"], {"a": ["rock", "indie"]})
    ['rock, indie', '']
    """
    tags = tags or {}
    return [", ".join(map(str, tags.get(s, []))) for s in songs]


def align_to_truth(model: LME, truth: LME, n_dims: int = 2):
    """A learned map aligned to the true one, over the songs both know (see :func:`procrustes_align`).

    Returns ``(aligned, true_points, disparity)``: the learned points of the shared
    songs (first ``n_dims`` dimensions, in the learned model's song order) aligned
    onto the true points of the same songs.
    """
    check_is_fitted(model, "entry_")
    idx = truth.songs_.get_indexer(model.songs_)
    keep = idx >= 0
    learned = model.embedding_[keep, :n_dims]
    true_points = truth.embedding_[idx[keep], :n_dims]
    aligned, disparity = procrustes_align(learned, true_points)
    return aligned, true_points, disparity


def next_songs(model: LME, song: Hashable, top: int = 15) -> pd.DataFrame:
    """The ``top`` likeliest songs after ``song``, likeliest first: columns ``next song``, ``probability``.

    Ties keep the model's song order. Song ids are given as strings.
    """
    proba = model.transition_proba(song)
    order = np.argsort(-proba.to_numpy(), kind="stable")[:top]
    return pd.DataFrame({"next song": [str(s) for s in proba.index[order]],
                         "probability": proba.to_numpy()[order]})


def song_coordinates(model: LME) -> pd.DataFrame:
    """Every song's points as a table: ``song``, the entry point ``u1..uk`` and, for the dual model, ``v1..vk``."""
    check_is_fitted(model, "entry_")
    k = model.entry_.shape[1]
    out = pd.DataFrame(model.entry_, columns=[f"u{j + 1}" for j in range(k)])
    if model.model == "dual":
        out = pd.concat([out, pd.DataFrame(model.exit_, columns=[f"v{j + 1}" for j in range(k)])], axis=1)
    out.insert(0, "song", [str(s) for s in model.songs_])
    return out


# --------------------------------------------------------------------------- data


def make_planted_playlists(n_songs: int = 200, n_playlists: int = 500, length: int = 10, *, model: str = "single",
                           n_components: int = 2, scale: float = 2.0, exclude_self: bool = False,
                           n_tags: int = 0, random_state=None):
    """Playlists sampled exactly from a known LME.

    True points are Gaussian with standard deviation ``scale``; for the dual
    model exit points are shifted from entry points by a common offset plus
    noise, so transitions are asymmetric. Returns ``(playlists, truth)``
    where ``truth`` is a fitted-like LME holding the true points, and, when
    ``n_tags`` > 0, ``truth.song_tags_`` maps each song to the tags of the
    regions (nearest of ``n_tags`` random centres, and the second nearest when close) it lies in.
    """
    rng = check_random_state(random_state)
    U = scale * rng.standard_normal((n_songs, n_components))
    if model == "single":
        V = U
    elif model == "dual":
        shift = rng.standard_normal(n_components)
        V = U + scale * 0.8 * shift / np.linalg.norm(shift) + 0.5 * rng.standard_normal((n_songs, n_components))
    else:
        raise ValueError(f"model must be 'single' or 'dual', got {model!r}.")
    truth = LME(n_components=n_components, model=model, exclude_self=exclude_self)
    truth.songs_ = pd.Index([f"song{i:04d}" for i in range(n_songs)], dtype=object)
    truth.tags_ = None
    truth._set_state(U, V, None, [])
    _, P = _log_probs(U, V, exclude_self)
    cum = np.cumsum(P, axis=1)
    state = rng.randint(0, n_songs, size=n_playlists)
    walks = np.empty((n_playlists, length), dtype=np.int64)
    walks[:, 0] = state
    for j in range(1, length):  # one vectorised draw per position, for all playlists at once
        r = rng.uniform(size=n_playlists)
        state = np.minimum((cum[state] < r[:, None]).sum(axis=1), n_songs - 1)
        walks[:, j] = state
    names = np.asarray(truth.songs_, dtype=object)
    playlists = [list(names[w]) for w in walks]
    if n_tags:
        centres = scale * rng.standard_normal((n_tags, n_components))
        d = ((U[:, None, :] - centres[None]) ** 2).sum(axis=2)
        order = np.argsort(d, axis=1)
        truth.song_tags_ = {}
        for i, name in enumerate(names):
            ts = [f"tag{order[i, 0]}"]
            if d[i, order[i, 1]] < 1.5 * d[i, order[i, 0]]:
                ts.append(f"tag{order[i, 1]}")
            truth.song_tags_[name] = ts
    return playlists, truth


def random_walk_playlists(graph, n_playlists: int = 600, length: int = 8, random_state=None):
    """Playlists as weighted random walks on a graph (networkx): each step follows an edge
    with probability proportional to its weight."""
    rng = check_random_state(random_state)
    nodes = list(graph.nodes)
    index = {n: i for i, n in enumerate(nodes)}
    A = np.zeros((len(nodes), len(nodes)))
    for a, b, data in graph.edges(data=True):
        w = float(data.get("weight", 1.0))
        A[index[a], index[b]] += w
        A[index[b], index[a]] += w
    has_edges = A.sum(axis=1) > 0
    P = A / np.where(has_edges, A.sum(axis=1), 1.0)[:, None]
    cum = np.cumsum(P, axis=1)
    starts = rng.choice(np.flatnonzero(has_edges), size=n_playlists)
    walks = np.empty((n_playlists, length), dtype=np.int64)
    walks[:, 0] = starts
    state = starts
    for j in range(1, length):
        r = rng.uniform(size=n_playlists)
        state = np.minimum((cum[state] < r[:, None]).sum(axis=1), len(nodes) - 1)
        walks[:, j] = state
    names = np.asarray(nodes, dtype=object)
    return [list(names[w]) for w in walks]
