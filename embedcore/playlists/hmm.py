"""A hidden Markov model of playlists: the baseline the LME lecture sets against the embedding.

A playlist walks through K hidden states; each state emits songs from a
distribution of its own:

    P(p, z) = pi(z_1) * prod_j a(z_j | z_(j-1)) * prod_j b(p_j | z_j)

That is K - 1 + K (K - 1) + K (S - 1) free parameters, O(K^2) + O(|S| K),
against a probability table's O(|S|^2) and an LME's 2 |S| d. The states are
learned by Baum-Welch (expectation-maximisation), the forward and backward
passes run for all playlists at once (a loop over positions, none over
playlists). The next-song probability ``P(p_j | p_1..p_(j-1))`` is the forward
pass's normaliser at position j, so the model is scored on exactly the
transitions an LME is scored on: the average log-probability of each song
given the songs before it in its playlist. Unlike the LME it sees the whole
prefix, not the last song only; its weakness is that b(s | z) must be
estimated for every song from the few plays each has.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.base import BaseEstimator, _fit_context
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted, check_random_state

from .._params import keep_parameters
from .data import check_playlists, song_index

__all__ = ["PlaylistHMM", "hmm_parameter_count"]


def hmm_parameter_count(n_states: int, n_songs: int) -> int:
    """Free parameters of an HMM with K states over S songs: (K - 1) + K (K - 1) + K (S - 1).

    Examples
    --------
    >>> hmm_parameter_count(10, 200)
    2089
    """
    K, S = int(n_states), int(n_songs)
    return (K - 1) + K * (K - 1) + K * (S - 1)


def _padded(playlists, songs: pd.Index) -> tuple[np.ndarray, np.ndarray]:
    """(N, T) song indices and a mask of real positions, T the longest playlist."""
    lengths = np.fromiter(map(len, playlists), dtype=np.int64, count=len(playlists))
    T = int(lengths.max())
    flat = songs.get_indexer(pd.Index([s for p in playlists for s in p], dtype=object))
    if (flat < 0).any():
        raise ValueError("A playlist holds a song the model never saw in training; score held-out playlists "
                         "through scored_transitions(test, model.songs_).playlists.")
    mask = np.arange(T)[None, :] < lengths[:, None]
    X = np.zeros((len(playlists), T), dtype=np.int64)
    X[mask] = flat
    return X, mask


def _forward(X, mask, start, trans, emit) -> tuple[np.ndarray, np.ndarray]:
    """Scaled forward pass: alpha (N, T, K), each row a distribution, and c (N, T) with c_t = P(x_t | x_<t)."""
    N, T = X.shape
    K = len(start)
    alpha = np.empty((N, T, K))
    c = np.ones((N, T))
    a = start[None, :] * emit[:, X[:, 0]].T
    c[:, 0] = a.sum(axis=1)
    alpha[:, 0] = a / c[:, :1]
    for t in range(1, T):
        a = (alpha[:, t - 1] @ trans) * emit[:, X[:, t]].T
        live = mask[:, t]
        c[live, t] = a[live].sum(axis=1)
        alpha[:, t] = np.where(live[:, None], a / c[:, t:t + 1], alpha[:, t - 1])
    return alpha, c


def _backward(X, mask, c, trans, emit) -> np.ndarray:
    """Scaled backward pass (N, T, K), matching :func:`_forward`'s scaling; 1 at and after each playlist's end."""
    N, T = X.shape
    beta = np.ones((N, T, trans.shape[0]))
    for t in range(T - 2, -1, -1):
        live = mask[:, t + 1]
        b = ((emit[:, X[:, t + 1]].T * beta[:, t + 1]) @ trans.T) / c[:, t + 1:t + 2]
        beta[:, t] = np.where(live[:, None], b, 1.0)
    return beta


class PlaylistHMM(BaseEstimator):
    """A hidden Markov model of playlists, trained by Baum-Welch.

    Parameters
    ----------
    n_states : K, the hidden states
    max_iter : the most Baum-Welch rounds
    tol : stop when the training log-likelihood per song rises by less than this
    smoothing : a pseudo-count added to every (state, song) emission and every state transition, so no
        song is impossible in any state
    random_state : seeds the start (random transitions, emissions near the songs' frequencies)

    Attributes
    ----------
    songs_ : pd.Index, the training songs (the order of the emission columns)
    start_ : (K,), P(z_1)
    transition_ : (K, K), a(z' | z) in row z
    emission_ : (K, S), b(s | z) in row z
    log_likelihood_curve_ : the training log-likelihood per song after each round
    n_iter_ : the rounds run

    Examples
    --------
    >>> playlists = [["a", "b", "a", "b"], ["c", "d", "c", "d"]] * 20
    >>> hmm = PlaylistHMM(n_states=4, random_state=0).fit(playlists)
    >>> bool(hmm.log_likelihood([["a", "b", "a"]]) > np.log(0.9))
    True
    """

    _parameter_constraints: dict = {
        "n_states": [Interval(Integral, 1, None, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "smoothing": [Interval(Real, 0, None, closed="neither")],
        "random_state": ["random_state"],
    }

    def __init__(self, *, n_states: int = 8, max_iter: int = 100, tol: float = 1e-4, smoothing: float = 0.01,
                 random_state=None):
        keep_parameters(self, locals())

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, playlists, y=None):
        """Learn the start, transition and emission probabilities from ``playlists`` (lists of song ids)."""
        playlists = check_playlists(playlists, estimator=self)
        songs = song_index(playlists)
        X, mask = _padded(playlists, songs)
        K, S = self.n_states, len(songs)
        rng = check_random_state(self.random_state)
        plays = np.bincount(X[mask], minlength=S).astype(np.float64)
        start = rng.dirichlet(np.ones(K))
        trans = rng.dirichlet(np.ones(K), size=K)
        emit = (plays + 1.0)[None, :] * rng.uniform(0.5, 1.5, size=(K, S))
        emit /= emit.sum(axis=1, keepdims=True)
        n_songs = int(mask.sum())
        rows = np.flatnonzero(mask.ravel())
        onehot = sp.csr_array((np.ones(rows.size), (np.arange(rows.size), X.ravel()[rows])), shape=(rows.size, S))
        curve, previous = [], -np.inf
        for it in range(self.max_iter):
            alpha, c = _forward(X, mask, start, trans, emit)
            beta = _backward(X, mask, c, trans, emit)
            ll = float(np.log(c[mask]).sum() / n_songs)
            curve.append(ll)
            gamma = alpha * beta
            gamma /= gamma.sum(axis=2, keepdims=True)
            # expected transitions, summed over playlists and positions at once
            ahead = emit[:, X[:, 1:]].transpose(1, 2, 0) * beta[:, 1:] / c[:, 1:, None]  # (N, T-1, K)
            ahead *= mask[:, 1:, None]
            xi = (alpha[:, :-1].reshape(-1, K).T @ ahead.reshape(-1, K)) * trans
            start = gamma[mask[:, 0], 0].sum(axis=0) + self.smoothing  # an empty playlist starts nowhere
            start /= start.sum()
            trans = xi + self.smoothing
            trans /= trans.sum(axis=1, keepdims=True)
            emit = (onehot.T @ gamma.reshape(-1, K)[rows]).T + self.smoothing
            emit /= emit.sum(axis=1, keepdims=True)
            if ll - previous < self.tol:
                break
            previous = ll
        self.songs_, self.start_, self.transition_, self.emission_ = songs, start, trans, emit
        self.log_likelihood_curve_ = curve
        self.n_iter_ = it + 1
        return self

    @property
    def n_parameters_(self) -> int:
        """Free parameters: (K - 1) + K (K - 1) + K (S - 1)."""
        check_is_fitted(self, "emission_")
        return hmm_parameter_count(self.n_states, len(self.songs_))

    def log_likelihood(self, playlists) -> float:
        """Average natural-log probability of each song given the songs before it, over every transition.

        The first song of a playlist is not scored (an LME does not score it either). Every song
        must be known to the model; score held-out playlists through :func:`.scored_transitions`.
        """
        check_is_fitted(self, "emission_")
        playlists = check_playlists(playlists, estimator=self)
        X, mask = _padded(playlists, self.songs_)
        _, c = _forward(X, mask, self.start_, self.transition_, self.emission_)
        scored = mask.copy()
        scored[:, 0] = False
        return float(np.log(c[scored]).mean())

    def score(self, playlists, y=None) -> float:
        """The average log-likelihood per transition (:meth:`log_likelihood`)."""
        return self.log_likelihood(playlists)
