"""Playlists with a known answer: sampled from a planted LME, or as random walks on a graph."""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.utils.validation import check_random_state

from ._blocks import BLOCK
from .model import LME
from .objective import sq_dists

__all__ = ["make_planted_playlists", "random_walk_playlists"]


def _transition_cdf(U, V, exclude_self: bool) -> np.ndarray:
    """Each row's cumulative P(s | a) over the songs s, in one S x S array (no other is made).

    The same arithmetic as the softmax of -||u_s - v_a||^2 taken whole, done in place a block
    of rows at a time, so the array is the only S x S allocation (3.2 GB at 20,000 songs
    rather than five such arrays and a gathered copy).
    """
    cum = sq_dists(V, U)
    np.negative(cum, out=cum)
    if exclude_self:
        np.fill_diagonal(cum, -np.inf)
    step = max(1, BLOCK // max(len(U), 1))
    for a0 in range(0, len(cum), step):
        rows = cum[a0:a0 + step]
        rows -= rows.max(axis=1, keepdims=True)
        np.exp(rows, out=rows)
        rows /= rows.sum(axis=1, keepdims=True)
        np.cumsum(rows, axis=1, out=rows)
    return cum


def _next_states(cum, state, r) -> np.ndarray:
    """Inverse-CDF draws: for walk i, the number of entries of row ``state[i]`` of ``cum`` below ``r[i]``
    (capped at the last song).

    Rows of a cumulative sum of non-negative numbers never decrease, so a binary search in
    each walk's row finds that count exactly, reading about log2(S) entries per walk instead
    of comparing a whole gathered row.
    """
    n = cum.shape[1]
    lo = np.zeros(len(state), dtype=np.int64)
    hi = np.full(len(state), n, dtype=np.int64)
    active = np.flatnonzero(lo < hi)
    while active.size:
        mid = (lo[active] + hi[active]) // 2
        below = cum[state[active], mid] < r[active]
        lo[active[below]] = mid[below] + 1
        hi[active[~below]] = mid[~below]
        active = active[lo[active] < hi[active]]
    return np.minimum(lo, n - 1)


def _region_tags(names, d) -> dict:
    """Each song's tags: its nearest centre's, and the second nearest's when that is within 1.5 times as far."""
    order = np.argsort(d, axis=1)
    labels = np.array([f"tag{t}" for t in range(d.shape[1])], dtype=object)
    first = order[:, 0]
    if d.shape[1] == 1:
        return {name: [a] for name, a in zip(names, labels[first])}
    rows, second = np.arange(len(d)), order[:, 1]
    close = d[rows, second] < 1.5 * d[rows, first]
    return {name: [a, b] if c else [a] for name, a, b, c in zip(names, labels[first], labels[second], close)}


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

    Examples
    --------
    >>> playlists, truth = make_planted_playlists(20, 5, 4, random_state=0)
    >>> len(playlists), [len(p) for p in playlists], truth.model, truth.entry_.shape
    (5, [4, 4, 4, 4, 4], 'single', (20, 2))
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
    cum = _transition_cdf(U, V, exclude_self)
    state = rng.randint(0, n_songs, size=n_playlists)
    walks = np.empty((n_playlists, length), dtype=np.int64)
    walks[:, 0] = state
    for j in range(1, length):  # one vectorised draw per position, for all playlists at once
        r = rng.uniform(size=n_playlists)
        state = _next_states(cum, state, r)
        walks[:, j] = state
    del cum
    names = np.asarray(truth.songs_, dtype=object)
    playlists = [list(names[w]) for w in walks]
    if n_tags:
        centres = scale * rng.standard_normal((n_tags, n_components))
        truth.song_tags_ = _region_tags(names, ((U[:, None, :] - centres[None]) ** 2).sum(axis=2))
    return playlists, truth


def random_walk_playlists(graph, n_playlists: int = 600, length: int = 8, random_state=None):
    """Playlists as weighted random walks on a graph (networkx): each step follows an edge
    with probability proportional to its weight.

    Examples
    --------
    >>> import networkx as nx
    >>> random_walk_playlists(nx.path_graph(4), n_playlists=3, length=4, random_state=0)
    [[0, 1, 2, 1], [3, 2, 1, 0], [1, 2, 1, 0]]
    """
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
        state = _next_states(cum, state, r)
        walks[:, j] = state
    names = np.asarray(nodes, dtype=object)
    return [list(names[w]) for w in walks]
