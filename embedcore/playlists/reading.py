"""Reading a fitted model: its map aligned to the true one, the likeliest next songs, its points as a table."""

from __future__ import annotations

from collections.abc import Hashable

import numpy as np
import pandas as pd
from sklearn.utils.validation import check_is_fitted

from ..compare import procrustes_align
from .model import LME

__all__ = ["align_to_truth", "next_songs", "song_coordinates"]


def align_to_truth(model: LME, truth: LME, n_dims: int = 2):
    """A learned map aligned to the true one, over the songs both know (see :func:`procrustes_align`).

    Returns ``(aligned, true_points, disparity)``: the learned points of the shared
    songs (first ``n_dims`` dimensions, in the learned model's song order) aligned
    onto the true points of the same songs.

    Examples
    --------
    >>> from embedcore.playlists import make_planted_playlists
    >>> playlists, truth = make_planted_playlists(30, 200, 6, random_state=0)
    >>> model = LME(max_iter=50, random_state=0).fit(playlists)
    >>> aligned, true_points, disparity = align_to_truth(model, truth)
    >>> aligned.shape, true_points.shape, bool(0 <= disparity <= 1)
    ((30, 2), (30, 2), True)
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

    Examples
    --------
    >>> from embedcore.playlists import make_planted_playlists
    >>> playlists, _ = make_planted_playlists(30, 200, 6, random_state=0)
    >>> model = LME(max_iter=50, random_state=0).fit(playlists)
    >>> table = next_songs(model, "song0000", top=3)
    >>> table.columns.tolist(), bool(table["probability"].is_monotonic_decreasing)
    (['next song', 'probability'], True)
    """
    proba = model.transition_proba(song)
    order = np.argsort(-proba.to_numpy(), kind="stable")[:top]
    return pd.DataFrame({"next song": [str(s) for s in proba.index[order]],
                         "probability": proba.to_numpy()[order]})


def song_coordinates(model: LME) -> pd.DataFrame:
    """Every song's points as a table: ``song``, the entry point ``u1..uk`` and, for the dual model, ``v1..vk``.

    Examples
    --------
    >>> from embedcore.playlists import make_planted_playlists
    >>> playlists, _ = make_planted_playlists(30, 200, 6, random_state=0)
    >>> table = song_coordinates(LME(max_iter=20, random_state=0).fit(playlists))
    >>> table.columns.tolist(), len(table)
    (['song', 'u1', 'u2'], 30)
    """
    check_is_fitted(model, "entry_")
    k = model.entry_.shape[1]
    out = pd.DataFrame(model.entry_, columns=[f"u{j + 1}" for j in range(k)])
    if model.model == "dual":
        out = pd.concat([out, pd.DataFrame(model.exit_, columns=[f"v{j + 1}" for j in range(k)])], axis=1)
    out.insert(0, "song", [str(s) for s in model.songs_])
    return out
