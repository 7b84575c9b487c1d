"""Cold start measured: songs kept out of training, placed by their tags, at the centre or at random."""

from __future__ import annotations

import copy
from itertools import chain

import numpy as np
import pandas as pd
from sklearn.utils.validation import check_random_state

from .data import check_playlists, scored_transitions, song_index, tag_matrix
from .model import LME

__all__ = ["cold_start_scores"]

#: The placements compared, in the order of the table.
PLACEMENTS = ("tags' mean", "at 0", "random")


def _pairs_touching(playlists, songs, held) -> list[list]:
    """The transitions of ``playlists`` between two of ``songs`` with at least one end in ``held``, as pairs."""
    runs = scored_transitions(playlists, songs).playlists
    lengths = np.fromiter(map(len, runs), dtype=np.int64, count=len(runs))
    flat = np.fromiter(chain.from_iterable(runs), dtype=object, count=int(lengths.sum()))
    ends = np.cumsum(lengths) - 1
    # transition i goes from flat[i] to flat[i + 1] unless i ends a run
    inside = np.ones(max(flat.size - 1, 0), dtype=bool)
    inside[ends[:-1]] = False
    hit = pd.Index(held).get_indexer(flat) >= 0
    keep = np.flatnonzero(inside & (hit[:-1] | hit[1:]))
    return [[flat[i], flat[i + 1]] for i in keep.tolist()]


def _with_songs(model: LME, songs, points: np.ndarray) -> LME:
    """A copy of ``model`` with ``songs`` added at ``points`` (entry and exit both there)."""
    out = copy.deepcopy(model)
    out.songs_ = model.songs_.append(pd.Index(list(songs), dtype=object))
    entry = np.vstack([model.entry_, points])
    exit_ = entry if model.model == "single" else np.vstack([model.exit_, points])
    out._set_state(entry, exit_, model.tag_embedding_, model.log_likelihood_curve_)
    return out


def cold_start_scores(playlists, tags: dict | None, *, held_share: float = 0.1, tag_weight: float = 0.01,
                      model: str = "single", n_components: int = 2, reg: float = 0.001, max_iter: int = 300,
                      z_approx: int | None = None, random_state=None) -> pd.DataFrame:
    """Held-out log-likelihood of songs never seen in training, placed three ways.

    A seeded share of the tagged songs is removed from training (each playlist is cut at them,
    as :func:`.scored_transitions` cuts held-out playlists at unknown songs). :class:`.LME` with
    tags is fitted on the rest, then every held-out song is added to the model

    * at its tags' mean, ``u_new = (1/|tags|) sum_t a_t`` (:meth:`LME.tag_position`; tags no
      training song carries are skipped, and a song left with none falls at 0),
    * at 0, the centre of the map,
    * at a random point, Gaussian with the spread of the trained points in each dimension,

    and the transitions that touch a held-out song (the other end known to the model) are
    scored by :meth:`LME.log_likelihood`, Z summing over every song, the added ones included.

    Parameters
    ----------
    playlists : list of lists of song ids
    tags : dict
        Song id -> list of tags; required (cold start places a song by its tags).
    held_share : float, default=0.1
        Share of the tagged songs held out, in (0, 1).
    tag_weight, model, n_components, reg, max_iter, z_approx
        Passed to :class:`.LME`.
    random_state : int, RandomState or None
        Draws the held-out songs, seeds the training and the random placement.

    Returns
    -------
    DataFrame
        One row per placement: ``placement``, ``held-out log-likelihood`` (nats per transition),
        ``transitions`` (how many were scored) and ``held-out songs``.

    Examples
    --------
    >>> from embedcore.playlists import make_planted_playlists
    >>> playlists, truth = make_planted_playlists(60, 400, 8, n_tags=6, random_state=0)
    >>> table = cold_start_scores(playlists, truth.song_tags_, held_share=0.2, max_iter=100, random_state=0)
    >>> list(table["placement"])
    ["tags' mean", 'at 0', 'random']
    """
    if not tags or not any(len(t) for t in tags.values()):
        raise ValueError("Cold start places a new song by its tags, and these playlists have none. "
                         "Choose a data set with tags (the planted sets, the Les Miserables walks) or upload a "
                         "tag file with the playlists.")
    if not 0 < held_share < 1:
        raise ValueError(f"held_share must be between 0 and 1 (exclusive), got {held_share}.")
    playlists = check_playlists(playlists)
    rng = check_random_state(random_state)
    songs = song_index(playlists)
    tagged = songs[[len(tags.get(s, ())) > 0 for s in songs]]
    n_held = int(round(held_share * len(tagged)))
    if n_held < 1 or n_held >= len(songs) - 1:
        raise ValueError(f"A share of {held_share} of the {len(tagged):,} tagged songs holds out {n_held}; "
                         "choose a share that holds out at least one song and leaves two to train on.")
    held = pd.Index(tagged[np.sort(rng.choice(len(tagged), n_held, replace=False))])
    train = scored_transitions(playlists, songs.difference(held, sort=False)).playlists
    if not train:
        raise ValueError("Without the held-out songs no playlist keeps a transition; hold out a smaller share.")
    seed = int(rng.randint(2**31 - 1))
    lme = LME(model=model, n_components=n_components, reg=reg, max_iter=max_iter, tag_weight=tag_weight,
              z_approx=z_approx, random_state=seed).fit(train, tags=tags)
    pairs = _pairs_touching(playlists, lme.songs_.append(held), held)
    if not pairs:
        raise ValueError("No transition joins a held-out song to a song the model knows; hold out another share.")

    tm = tag_matrix(held, tags)
    cols = lme.tags_.get_indexer(tm.tags)
    known = cols >= 0
    weights = tm.matrix.toarray()[:, known]
    weights /= np.maximum(weights.sum(axis=1, keepdims=True), 1e-300)  # skipped tags: renormalise over the rest
    at_tags = weights @ lme.tag_embedding_[cols[known]]
    spread = lme.embedding_.std(axis=0)
    at_random = lme.embedding_.mean(axis=0) + spread * rng.standard_normal((n_held, lme.embedding_.shape[1]))
    placed = dict(zip(PLACEMENTS, (at_tags, np.zeros_like(at_tags), at_random)))
    scores = [_with_songs(lme, held, points).log_likelihood(pairs) for points in placed.values()]
    return pd.DataFrame({"placement": list(PLACEMENTS), "held-out log-likelihood": scores,
                         "transitions": len(pairs), "held-out songs": n_held})
