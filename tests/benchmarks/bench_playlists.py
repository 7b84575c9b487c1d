"""LME at the scale of the paper's small yes.com split (3,000 songs, 130,000 training transitions), a training
step on 20,000 songs with the approximate Z against the exact one, and the tag matrix at 20,000 songs."""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import scipy.sparse as sp

from embedcore.playlists import (
    LME,
    Transitions,
    baseline_log_likelihoods,
    exact_objective,
    make_planted_playlists,
    song_index,
    split_playlists,
    tag_matrix,
    transition_counts,
)
from tests.benchmarks.harness import Result, best_of


def _tag_matrix_song_by_song(songs: pd.Index, tags: dict) -> sp.csr_array:
    """The reference: the tag matrix built one song at a time, one look-up per song and per tag."""
    names = pd.Index(sorted({t for ts in tags.values() for t in ts}))
    rows, cols = [], []
    for s, ts in tags.items():
        i = songs.get_indexer([s])[0]
        if i < 0:
            continue
        for t in ts:
            rows.append(i)
            cols.append(names.get_loc(t))
    T = sp.csr_array((np.ones(len(rows)), (rows, cols)), shape=(len(songs), len(names)))
    return sp.csr_array(T / np.maximum(np.asarray(T.sum(axis=1)).ravel(), 1)[:, None])


def run() -> list[Result]:
    playlists, truth = make_planted_playlists(3000, 18000, 9, model="single", random_state=0)
    train, test = split_playlists(playlists, 1 / 9, random_state=0)
    n_train = sum(len(p) - 1 for p in train)
    t = time.perf_counter()
    lme = LME(model="single", max_iter=3000, random_state=0).fit(train)
    seconds = time.perf_counter() - t
    base = baseline_log_likelihoods(train, test)
    note = (f"{n_train:,} transitions; {lme.n_iter_} iterations, {lme.n_iter_ / seconds:.1f} it/s "
            f"({1000 * seconds / lme.n_iter_:.0f} ms each); held-out {lme.log_likelihood(test):.3f} vs true model "
            f"{truth.log_likelihood(test):.3f}, bigram {base.bigram:.3f}, uniform "
            f"{base.uniform:.3f} (limit 60 s)")
    results = [Result("LME single, 3,000 songs, to convergence", seconds, "", None, note)]

    t = time.perf_counter()
    big, truth = make_planted_playlists(20000, 40000, 9, model="single", n_tags=30, random_state=1)
    results.append(Result("planted playlists, 20,000 songs x 40,000 of 9", time.perf_counter() - t, "", None,
                          "one 20,000 x 20,000 float64 array (3.2 GB) at its peak"))
    songs = song_index(big)
    ours = best_of(lambda: tag_matrix(songs, truth.song_tags_))
    loop = best_of(lambda: _tag_matrix_song_by_song(songs, truth.song_tags_))
    same = (tag_matrix(songs, truth.song_tags_).matrix != _tag_matrix_song_by_song(songs, truth.song_tags_)).nnz == 0
    results.append(Result("LME tag matrix, 20,000 songs, 30 tags", ours, "one song at a time", loop,
                          f"the same matrix: {same}"))

    # Large song sets: seconds per step with the approximate Z against the exact one. The exact Z is refused
    # above 10,000 songs, so its step is timed on the objective itself (one evaluation per step).
    t = time.perf_counter()
    approx = LME(model="single", max_iter=20, init="random", z_approx=500, random_state=0).fit(big)
    per_step = (time.perf_counter() - t) / max(approx.n_iter_, 1)
    transitions = Transitions.from_counts(transition_counts(big, songs))
    U = 0.5 * np.random.RandomState(0).standard_normal((len(songs), 2))
    exact = best_of(lambda: exact_objective(U, U, transitions), repeat=2)
    results.append(Result("LME step, 20,000 songs, z_approx=500", per_step, "exact Z step", exact,
                          "kernel terms per step: 20,000 x ~1,500 (near, successors, landmarks) instead of 20,000 x 20,000"))
    return results
