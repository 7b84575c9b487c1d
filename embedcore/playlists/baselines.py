"""What LME is measured against: uniform, unigram and Witten-Bell bigram models of the next song."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .data import check_playlists, scored_transitions, song_index, transition_counts

__all__ = ["BaselineScores", "baseline_log_likelihoods"]


class BaselineScores(NamedTuple):
    """Average log-probability per held-out transition of the three baselines (:func:`baseline_log_likelihoods`).

    Attributes
    ----------
    uniform : float
        Every song alike: ``-ln S``.
    unigram : float
        Each song by how often it is a transition's target.
    bigram : float
        Each song's successor counts, interpolated with the unigram (Witten-Bell).

    Examples
    --------
    >>> baseline_log_likelihoods([["a", "b", "c"]], [["a", "b"]])._fields
    ('uniform', 'unigram', 'bigram')
    """

    uniform: float
    unigram: float
    bigram: float


def baseline_log_likelihoods(train, test) -> BaselineScores:
    """Average log-probability per test transition of uniform, unigram and Witten-Bell bigram models.

    The song set is that of the training playlists (:func:`song_index`, the songs an LME
    fitted on ``train`` knows), and the test transitions scored are those between two of
    them (:func:`scored_transitions`): the same transitions and songs an LME is scored on.
    Uniform is exactly ``-ln S``; unigram counts how often each song is a transition's
    target (add-one smoothed); the bigram interpolates each song's successor counts with
    the unigram, weighting the unigram by how many distinct successors it has
    (Witten-Bell), and falls back to the unigram for songs never left. A song may follow
    itself in all three, as in the LME. With no test transition to score, every value is nan.

    Examples
    --------
    >>> base = baseline_log_likelihoods([["a", "b", "c"], ["b", "c", "a"]], [["a", "b", "c"]])
    >>> round(base.uniform, 4), bool(base.bigram > base.uniform)
    (-1.0986, True)
    """
    train = check_playlists(train)
    songs = song_index(train)
    S = len(songs)
    held = scored_transitions(test, songs)
    if held.n_scored == 0:
        return BaselineScores(float("nan"), float("nan"), float("nan"))
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
    return BaselineScores(float(-np.log(S)), float((T.data * np.log(uni[T.col])).sum() / n_test),
                          float((T.data * np.log(wb)).sum() / n_test))
