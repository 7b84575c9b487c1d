"""Latent Markov Embedding of playlists, and the baselines it is measured against.

A playlist is a walk through songs. LME gives every song a point in a small
space and makes a transition likelier the closer the next song is:

* dual-point model: song s has an entry point ``u_s`` and an exit point ``v_s``,
  ``P(s | s') = exp(-||u_s - v_s'||^2) / Z(s')``;
* single-point model: one point per song, ``u_s = v_s`` (transitions are
  then nearly symmetric and the space is a map one can read).

``Z(s') = sum_s exp(-||u_s - v_s'||^2)`` sums over every song, ``s'`` itself
included. Training maximises the log-likelihood of all observed transitions
(gathered once into a sparse song-by-song count matrix) by gradient ascent on
the exact objective, computed with dense matrix operations.
"""

from __future__ import annotations

import time
from collections.abc import Hashable, Sequence
from itertools import chain
from numbers import Integral, Real

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted, check_random_state

__all__ = [
    "LME",
    "transition_counts",
    "make_planted_playlists",
    "random_walk_playlists",
    "split_playlists",
    "baseline_log_likelihoods",
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


def split_playlists(playlists, test_size: float = 0.2, random_state=None):
    """Split playlists (not transitions) into training and test sets."""
    if not 0 < test_size < 1:
        raise ValueError(f"test_size must be between 0 and 1, got {test_size}.")
    rng = check_random_state(random_state)
    order = rng.permutation(len(playlists))
    n_test = max(1, int(round(test_size * len(playlists))))
    test = set(order[:n_test].tolist())
    return ([p for i, p in enumerate(playlists) if i not in test], [p for i, p in enumerate(playlists) if i in test])


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
    _LIFT_DIMS = 2
    _LIFT_SHARE = 1 / 3

    """Latent Markov Embedding of playlists, trained by gradient ascent on the exact likelihood.

    Parameters
    ----------
    n_components : int, default=2
        Dimension of the song space.
    model : {"single", "dual"}, default="single"
    reg : float, default=0.001
        L2 penalty on every coordinate, per transition (keeps rarely seen songs near the centre).
    max_iter : int, default=300
    tol : float, default=1e-5
        Stop when the average log-likelihood improves by less than this per accepted step, 5 times running.
    learning_rate : float, default=0.5
        The first step size; the step then grows by 20% after every improving step and halves
        (undoing the step) after a worse one, so its starting value hardly matters.
    exclude_self : bool, default=False
        Leave the song itself out of ``Z`` (no immediate repeats).
    tag_weight : float, default=0.01
        With tags, the strength of the prior pulling each song to the mean of its tags' points
        (per song, against the average log-likelihood per transition; 1 already clusters songs by tag).
    init : {"lift", "random"}, default="lift"
        "random" starts from small Gaussian points. "lift" first trains in eight
        more dimensions for 30% of ``max_iter`` (room to untangle), then
        projects onto the top principal plane and continues there: a 2-D map
        trained from random points often stays folded in a poorer optimum.
    z_approx : int or None, default=None
        None computes every Z(s') exactly: S x S work per step. An int m
        approximates it for large song sets with S x (3m + successors) work:
        the m songs nearest to the exit point v_s' and the songs actually
        played after s' are summed exactly (they carry almost all of Z, since
        the kernel decays as exp(-d^2)), and the rest is estimated from m
        random landmark songs scaled to their number. Choose m well above the
        effective number of next songs, exp(-log-likelihood per transition). Neighbours and
        landmarks are redrawn every 20 accepted steps (the objective is then
        re-scored, so the step rule compares like with like).
        ``log_likelihood`` always reports the exact value.
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

    def _objective(self, U, V, C, n_out, n_total, Tm=None):
        """Average log-likelihood per transition minus penalties, and its gradients.

        With E[a, s] = exp(-||u_s - v_a||^2 - m_a) and Z_a = sum_s E[a, s]
        (m_a a row shift for stability), P = E / Z is never formed:
        d/dV_a = 2 [ (C U)_a - n_a (P U)_a ] and
        d/dU_s = -2 [ m_s U_s - (C^T V)_s ] + 2 [ q_s U_s - (P^T (n V))_s ], with q = P^T n.
        """
        Cc = C.tocoo() if not isinstance(C, sp.coo_array) else C
        # The S x S part dominates the cost; above 1,000 songs it runs in float32
        # (half the memory traffic), with every sum accumulated in float64.
        dense = np.float32 if len(U) >= 1000 else np.float64
        logits = -_sq_dists(V.astype(dense), U.astype(dense))
        if self.exclude_self:
            np.fill_diagonal(logits, -np.inf)
        shift = logits.max(axis=1)
        E = np.exp(logits - shift[:, None], out=logits)  # reuse the buffer
        Z = E.sum(axis=1, dtype=np.float64)
        log_norm = shift.astype(np.float64) + np.log(Z)
        d_obs = ((U[Cc.col] - V[Cc.row]) ** 2).sum(axis=1)
        ll = float(-(Cc.data * d_obs).sum() - (n_out * log_norm).sum())
        w = n_out / Z  # rows weighted by n_a / Z_a
        EU = (E @ U.astype(dense)).astype(np.float64)
        gV = 2.0 * (C @ U - w[:, None] * EU)
        m_in = np.asarray(C.sum(axis=0)).ravel()
        wv = np.column_stack([w, w[:, None] * V]).astype(dense)
        ET = (E.T @ wv).astype(np.float64)  # q = P^T n and P^T (n V) in one product
        q, PtnV = ET[:, 0], ET[:, 1:]
        gU = -2.0 * (m_in[:, None] * U - C.T @ V) + 2.0 * (q[:, None] * U - PtnV)
        return self._finish_objective(U, V, ll, gU, gV, n_total, Tm)

    def _finish_objective(self, U, V, ll, gU, gV, n_total, Tm):
        """Scale to per-transition values and add the penalty and the tag prior."""
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
            TtT = (Tm.T @ Tm).toarray() if sp.issparse(Tm) else Tm.T @ Tm
            A = np.linalg.solve(TtT + 1e-9 * np.eye(TtT.shape[0]), Tm.T @ target)
            mean = Tm @ A
            wt = self.tag_weight / len(U)
            dU, dV = U - mean, V - mean
            obj -= wt * ((dU**2).sum() + (dV**2).sum())
            gU -= 2 * wt * dU
            gV -= 2 * wt * dV
        return obj, ll / n_total, gU, gV, A

    def _objective_approx(self, U, V, C, n_out, n_total, Tm, X, L):
        """The objective with Z from a near field X (sparse pattern, summed exactly) and far landmarks L.

        Z_a = sum_{j in X(a)} e_aj + r_a sum_{l in L minus X(a)} e_al, r_a = (S - |X(a)|) / |L minus X(a)|;
        the weights kappa (1 on X, r_a on the landmarks) replace 1 in the exact gradient.
        """
        S = len(U)
        rows = np.repeat(np.arange(S), np.diff(X.indptr))
        cols = X.indices
        d_near = ((U[cols] - V[rows]) ** 2).sum(axis=1)
        dense = np.float32 if S >= 1000 else np.float64  # the (S, m) block is the bulk of the work
        D_far = _sq_dists(V.astype(dense), U[L].astype(dense))
        pos = np.full(S, -1)
        pos[L] = np.arange(len(L))
        hit = pos[cols] >= 0
        in_near = np.zeros((S, len(L)), dtype=bool)  # landmarks already summed exactly
        in_near[rows[hit], pos[cols[hit]]] = True
        D_far[in_near] = np.inf
        if self.exclude_self:
            d_near = np.where(rows == cols, np.inf, d_near)
            D_far[L, np.arange(len(L))] = np.inf
        far_count = np.maximum((~in_near).sum(axis=1), 1)
        r = np.maximum(S - np.diff(X.indptr), 0) / far_count
        shift = np.minimum(D_far.min(axis=1), np.inf)
        nonempty = np.flatnonzero(np.diff(X.indptr))
        shift[nonempty] = np.minimum(shift[nonempty], np.minimum.reduceat(d_near, X.indptr[nonempty]))
        shift = np.where(np.isfinite(shift), shift, 0.0)
        E_near = sp.csr_array((np.exp(-(d_near - shift[rows])), cols, X.indptr), shape=(S, S))
        D_far -= shift[:, None].astype(dense)
        np.negative(D_far, out=D_far)
        E_far = np.exp(D_far, out=D_far)
        E_far *= r[:, None].astype(dense)
        Z = np.asarray(E_near.sum(axis=1)).ravel() + E_far.sum(axis=1, dtype=np.float64)
        Cc = C.tocoo()
        d_obs = ((U[Cc.col] - V[Cc.row]) ** 2).sum(axis=1)
        ll = float(-(Cc.data * d_obs).sum() - (n_out * (-shift + np.log(Z))).sum())
        w = n_out / Z
        gV = 2.0 * (C @ U - w[:, None] * (E_near @ U + (E_far @ U[L].astype(dense)).astype(np.float64)))
        m_in = np.asarray(C.sum(axis=0)).ravel()
        gU = -2.0 * (m_in[:, None] * U - C.T @ V)
        wv = w[:, None] * V
        gU += 2.0 * ((E_near.T @ w)[:, None] * U - E_near.T @ wv)
        far = (E_far.T @ np.column_stack([w, wv]).astype(dense)).astype(np.float64)
        gU[L] += 2.0 * (far[:, :1] * U[L] - far[:, 1:])
        return self._finish_objective(U, V, ll, gU, gV, n_total, Tm)

    def _near_field(self, U, V, C, rng):
        """Songs summed exactly for each exit point: its z_approx nearest entry points and its successors."""
        from sklearn.neighbors import NearestNeighbors

        S, m = len(U), int(self.z_approx)
        k = min(m, S)
        nn = NearestNeighbors(n_neighbors=k).fit(U).kneighbors(V, return_distance=False)
        near = sp.csr_array((np.ones(S * k), nn.ravel(), np.arange(0, S * k + 1, k)), shape=(S, S))
        X = sp.csr_array(near + (C > 0).astype(np.float64))
        X.data[:] = 1.0
        X.sort_indices()
        L = np.sort(rng.choice(S, size=min(m, S), replace=False))
        return X, L

    # ------------------------------------------------------------------ fitting

    def fit(self, playlists, y=None, *, tags: dict | None = None, callback=None):
        """Learn song points from playlists (lists of hashable song ids).

        ``tags`` maps song id -> list of tags (songs without tags get none).
        ``callback(model, iteration, log_likelihood)`` runs after every accepted
        step; returning True stops training, keeping the model so far.
        """
        if self.model not in ("single", "dual"):
            raise ValueError(f"model must be 'single' or 'dual', got {self.model!r}.")
        if not isinstance(self.n_components, Integral) or self.n_components < 1:
            raise ValueError(f"n_components must be a positive integer, got {self.n_components!r}.")
        if not isinstance(self.reg, Real) or self.reg < 0:
            raise ValueError(f"reg must be >= 0, got {self.reg!r}.")
        playlists = _check_playlists(playlists)
        t0 = time.perf_counter()
        songs = pd.Index(pd.unique(pd.Series(list(chain.from_iterable(playlists)), dtype=object)))
        self.songs_ = songs
        S, k = len(songs), self.n_components
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
            rows, cols = [], []
            for s, ts in tags.items():
                i = songs.get_indexer([s])[0]
                if i < 0 or not ts:
                    continue
                for t in ts:
                    rows.append(i)
                    cols.append(self.tags_.get_loc(t))
            T = sp.csr_array((np.ones(len(rows)), (rows, cols)), shape=(S, len(self.tags_)))
            counts = np.asarray(T.sum(axis=1)).ravel()
            Tm = sp.csr_array(T / np.maximum(counts, 1)[:, None])  # rows average their tags
            A = 0.1 * rng.standard_normal((len(self.tags_), k))
        else:
            self.tags_ = None
        if self.z_approx is not None and (not isinstance(self.z_approx, Integral) or self.z_approx < 1):
            raise ValueError(f"z_approx must be None or a positive integer, got {self.z_approx!r}.")
        if self.init not in ("lift", "random"):
            raise ValueError(f"init must be 'lift' or 'random', got {self.init!r}.")
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
                                                               lifted_callback, [], 0, rng)
            U, V, A = project(Uh, Vh, Ah)
            budget -= it_done
            if stopped:
                budget = 0
        if budget > 0:
            U, V, A, curve, it_done, _ = self._ascend(U, V, A, C, n_out, n_total, Tm, budget,
                                                      None if callback is None else
                                                      (lambda U_, V_, A_, it, ll, cv: (self._set_state(U_, V_, A_, cv),
                                                                                       callback(self, it, ll))[1]),
                                                      curve, it_done, rng)
        self._set_state(U, V, A, curve)
        self.n_iter_ = it_done
        self.fit_seconds_ = time.perf_counter() - t0
        return self

    def _ascend(self, U, V, A, C, n_out, n_total, Tm, max_iter, callback, curve, it0, rng=None):
        """Gradient ascent with a self-tuning step: x1.2 after a better step, /2 (and undo) after a worse one."""
        approx = self.z_approx is not None and 3 * self.z_approx < len(U)
        field = [self._near_field(U, V, C, rng) if approx else None]

        def objective(U, V):
            if approx:
                return self._objective_approx(U, V, C, n_out, n_total, Tm, *field[0])
            return self._objective(U, V, C, n_out, n_total, Tm)

        lr = float(self.learning_rate)
        obj, ll, gU, gV, A = objective(U, V)
        accepted = 0
        curve = list(curve) + [ll]
        stalls, it, stopped = 0, it0, False
        for it in range(it0 + 1, it0 + max_iter + 1):
            if self.model == "single":
                U_new = U + lr * (gU + gV)
                V_new = U_new
            else:
                U_new, V_new = U + lr * gU, V + lr * gV
            obj_new, ll_new, gU_n, gV_n, A_n = objective(U_new, V_new)
            if obj_new >= obj:
                gain = obj_new - obj
                U, V, A, obj, ll, gU, gV = U_new, V_new, A_n, obj_new, ll_new, gU_n, gV_n
                lr *= 1.2
                curve.append(ll)
                accepted += 1
                if approx and accepted % 20 == 0:  # follow the points; re-score so steps compare like with like
                    field[0] = self._near_field(U, V, C, rng)
                    obj, ll, gU, gV, A = objective(U, V)
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

    def log_likelihood(self, playlists) -> float:
        """Average natural-log probability per transition of ``playlists`` under the model."""
        playlists = _check_playlists(playlists)
        C = transition_counts(playlists, self.songs_).tocoo()
        logP, _ = _log_probs(self.entry_, self.exit_, self.exclude_self)
        return float((C.data * logP[C.row, C.col]).sum() / C.data.sum())

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

    The song set is every song in train or test. Uniform is exactly ``-ln S``;
    unigram counts how often each song is a transition's target (add-one
    smoothed); the bigram interpolates each song's successor counts with the
    unigram, weighting the unigram by how many distinct successors it has
    (Witten-Bell), and falls back to the unigram for songs never left.
    """
    train, test = _check_playlists(train), _check_playlists(test)
    songs = pd.Index(pd.unique(pd.Series(list(chain.from_iterable(train + test)), dtype=object)))
    S = len(songs)
    C = transition_counts(train, songs)
    T = transition_counts(test, songs).tocoo()
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
