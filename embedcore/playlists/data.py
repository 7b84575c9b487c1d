"""Playlists as the model reads them: the song set, the transition counts, the tag matrix, held-out transitions."""

from __future__ import annotations

from collections.abc import Mapping
from itertools import chain
from typing import NamedTuple

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.utils.validation import check_array, check_random_state

__all__ = [
    "ScoredTransitions",
    "TagMatrix",
    "check_playlists",
    "play_counts",
    "scored_transitions",
    "song_index",
    "song_tag_labels",
    "split_playlists",
    "tag_matrix",
    "transition_counts",
]


def _is_table(playlists) -> bool:
    """A numeric or object table with one playlist per row (a 1-D object array holds ragged playlists)."""
    if isinstance(playlists, pd.DataFrame) or sp.issparse(playlists):
        return True
    return isinstance(playlists, np.ndarray) and not (playlists.ndim == 1 and playlists.dtype == object)


def check_playlists(playlists, *, estimator=None) -> list[list]:
    """The playlists as lists of song ids, or an error that says what to fix.

    A list of playlists may be ragged (each a list of hashable song ids). A table (a
    numpy array or DataFrame, one playlist per row) is validated as scikit-learn
    validates input, with :func:`sklearn.utils.check_array`: dense, real, finite, at
    least one row and two columns (a transition needs two songs). In every form a
    missing song id (None or NaN) is refused, and at least one playlist must have a
    transition.

    Examples
    --------
    >>> check_playlists([("a", "b", "c"), ["c", "a"]])
    [['a', 'b', 'c'], ['c', 'a']]
    >>> check_playlists(np.array([["a", "b"], ["b", "c"]], dtype=object))
    [['a', 'b'], ['b', 'c']]
    >>> check_playlists(np.array([[1.0], [2.0]]))
    Traceback (most recent call last):
    ...
    ValueError: Found array with 1 feature(s) (shape=(2, 1)) while a minimum of 2 is required.
    """
    if isinstance(playlists, (str, bytes)):
        raise ValueError("Pass a list of playlists (each a list of song ids), not a single string.")
    if _is_table(playlists):
        table = check_array(playlists, accept_sparse=False, dtype=None, ensure_min_features=2,
                            input_name="playlists", estimator=estimator)
        playlists = [list(p) for p in table]
    else:
        try:
            playlists = [list(p) for p in playlists]
        except TypeError:
            bad = next(p for p in playlists if not hasattr(p, "__iter__"))
            raise ValueError(f"Each playlist must be a sequence of song ids; got {type(bad).__name__} {bad!r}. "
                             "Pass a list of playlists, each a list of song ids.") from None
    if not playlists:
        raise ValueError("No playlists given.")
    lengths = np.fromiter(map(len, playlists), dtype=np.int64, count=len(playlists))
    if (lengths < 2).all():
        raise ValueError(
            "Every playlist has fewer than 2 songs, so there is no transition to learn from. "
            "A playlist needs at least two songs."
        )
    flat = np.fromiter(chain.from_iterable(playlists), dtype=object, count=int(lengths.sum()))
    missing = np.flatnonzero(pd.isna(flat))
    if missing.size:
        where = int(np.searchsorted(np.cumsum(lengths), missing[0], side="right"))
        raise ValueError(f"Playlist {where} holds a missing song id ({flat[missing[0]]!r}); every song needs an id.")
    return playlists


def transition_counts(playlists, index: pd.Index) -> sp.csr_array:
    """Sparse (S x S) matrix: entry (a, b) counts transitions from song a to song b.

    Examples
    --------
    >>> transition_counts([["a", "b", "a"], ["a", "b"]], pd.Index(["a", "b"])).toarray()
    array([[0., 2.],
           [1., 0.]])
    """
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
    try:
        return pd.Index(pd.unique(pd.Series(list(chain.from_iterable(playlists)), dtype=object)))
    except TypeError as err:  # an unhashable id: a list or a dict where a song id should be
        raise TypeError(f"Song ids must be hashable, such as strings or numbers ({err}).") from None


class TagMatrix(NamedTuple):
    """Songs by tags (see :func:`tag_matrix`).

    Examples
    --------
    >>> tm = tag_matrix(pd.Index(["a", "b"]), {"a": ["rock"], "b": ["rock", "jazz"]})
    >>> tm.tags.tolist(), tm.matrix.toarray().tolist()  # each song's row sums to 1
    (['jazz', 'rock'], [[0.0, 1.0], [0.5, 0.5]])
    """

    tags: pd.Index
    """Every tag named in the mapping, sorted."""
    matrix: sp.csr_array
    """(songs x tags); a song's row is 1 / (its number of tags) at each of its tags, so it averages them."""


def tag_matrix(songs, tags: Mapping) -> TagMatrix:
    """The tag matrix of ``songs``: each row averages the song's tags; a song without tags has an empty row.

    ``tags`` maps song id -> list of tags. Songs it names that are not in ``songs`` are
    ignored, but their tags are still in the tag list (a tag may have no song in training).
    Built without a loop over songs: the tag lists are flattened once and looked up in one call.

    Examples
    --------
    >>> tm = tag_matrix(["a", "b", "c"], {"a": ["rock", "indie"], "c": ["jazz"], "z": ["pop"]})
    >>> list(tm.tags)
    ['indie', 'jazz', 'pop', 'rock']
    >>> tm.matrix.toarray()
    array([[0.5, 0. , 0. , 0.5],
           [0. , 0. , 0. , 0. ],
           [0. , 1. , 0. , 0. ]])
    """
    songs = pd.Index(songs)
    lists = list(tags.values())
    lengths = np.fromiter(map(len, lists), dtype=np.int64, count=len(lists))
    flat = list(chain.from_iterable(lists))
    names = pd.Index(sorted(set(flat)))
    rows = np.repeat(songs.get_indexer(list(tags)), lengths)
    cols = names.get_indexer(flat)
    keep = rows >= 0
    T = sp.csr_array((np.ones(int(keep.sum())), (rows[keep], cols[keep])), shape=(len(songs), len(names)))
    counts = np.asarray(T.sum(axis=1)).ravel()
    return TagMatrix(names, sp.csr_array(T / np.maximum(counts, 1)[:, None]))


class ScoredTransitions(NamedTuple):
    """The held-out transitions that can be scored against a training song set (see :func:`scored_transitions`).

    Examples
    --------
    >>> found = scored_transitions([["a", "b", "x", "a"]], pd.Index(["a", "b"]))
    >>> found.n_scored, found.n_left_out, found.n_total  # b -> x and x -> a touch an unknown song
    (1, 2, 3)
    """

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
    """Split playlists (not transitions) into training and test sets.

    Examples
    --------
    >>> train, test = split_playlists([["a", "b"], ["b", "c"], ["c", "a"], ["a", "c"]], 0.25, random_state=0)
    >>> len(train), len(test)
    (3, 1)
    """
    if not 0 < test_size < 1:
        raise ValueError(f"test_size must be between 0 and 1, got {test_size}.")
    rng = check_random_state(random_state)
    order = rng.permutation(len(playlists))
    n_test = max(1, int(round(test_size * len(playlists))))
    test = set(order[:n_test].tolist())
    return ([p for i, p in enumerate(playlists) if i not in test], [p for i, p in enumerate(playlists) if i in test])


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
