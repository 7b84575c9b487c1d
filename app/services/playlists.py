"""Training and reading LME models for the Playlists page.

Training is interactive (live redraw, stop), so a fitted model is kept in the
session under a key of its data and settings rather than in a Streamlit cache.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st
from scipy.linalg import orthogonal_procrustes

from embedcore.playlists import (  # noqa: F401  (MAX_EXACT_Z_SONGS and partition_cost are for the page)
    LME,
    MAX_EXACT_Z_SONGS,
    ScoredTransitions,
    baseline_log_likelihoods,
    partition_cost,
    scored_transitions,
    song_index,
    split_playlists,
)


@st.cache_data(max_entries=16, show_spinner=False)
def split(data_key: str, test_size: float, seed: int, _playlists=None):
    return split_playlists(_playlists, test_size, random_state=seed)


@st.cache_data(max_entries=16, show_spinner=False)
def baselines(data_key: str, test_size: float, seed: int, _train=None, _test=None) -> dict:
    return baseline_log_likelihoods(_train, _test)


@st.cache_data(max_entries=16, show_spinner=False)
def held_out_set(data_key: str, test_size: float, seed: int, _train=None, _test=None) -> ScoredTransitions:
    """The held-out transitions between training songs: what every held-out score is taken over."""
    return scored_transitions(_test, song_index(_train))


def model_key(data_key: str, params: dict) -> str:
    return "pl.model." + data_key + "." + ".".join(f"{k}={v}" for k, v in sorted(params.items()))


def train(train_playlists, tags, params: dict, on_step, should_stop=None):
    """Fit an LME; ``on_step(model, iteration, log_likelihood)`` may return True to stop.

    ``should_stop()`` is polled between blocks of work inside every step (see ``LME.fit``).
    """
    model = LME(**params)
    return model.fit(train_playlists, tags=tags, callback=on_step, should_stop=should_stop)


def stopped_model(model: LME, iteration: int, seconds: float) -> LME:
    """The model a stopped training left behind (its last accepted step), marked with how far it got."""
    model.n_iter_ = iteration
    model.fit_seconds_ = seconds
    return model


def held_out(model: LME, held: ScoredTransitions, should_stop=None) -> float | None:
    """A model's average log-likelihood over the held-out transitions of ``held``; None when there are none."""
    return None if held.n_scored == 0 else model.log_likelihood(held.playlists, should_stop=should_stop)


def left_out_line(held: ScoredTransitions) -> str:
    """One sentence: how many held-out transitions are left out of the scores, and why."""
    if held.n_total == 0:
        return "The held-out playlists have no transition (every one has a single song), so nothing is scored."
    if held.n_left_out == 0:
        return (f"All {held.n_total:,} held-out transitions are between songs seen in training; "
                "none is left out.")
    return (f"{held.n_left_out:,} of {held.n_total:,} held-out transitions involve a song never seen in training "
            "and are left out of every score.")


def aligned_to_truth(model: LME, truth: LME):
    """The learned map rotated, reflected, scaled and shifted onto the true one (Procrustes)."""
    idx = truth.songs_.get_indexer(model.songs_)
    keep = idx >= 0
    A = model.embedding_[keep, :2]
    B = truth.embedding_[idx[keep], :2]
    A0, B0 = A - A.mean(0), B - B.mean(0)
    R, _ = orthogonal_procrustes(A0, B0)
    scale = np.trace(B0.T @ A0 @ R) / max(np.trace(A0.T @ A0), 1e-12)
    aligned = scale * A0 @ R + B.mean(0)
    disparity = float(((aligned - B) ** 2).sum() / ((B - B.mean(0)) ** 2).sum())
    return aligned, B, disparity


def song_table(model: LME, playlists, tags) -> pd.DataFrame:
    counts = pd.Series([s for p in playlists for s in p]).value_counts()
    return pd.DataFrame({
        "song": [str(s) for s in model.songs_],
        "x": model.embedding_[:, 0],
        "y": model.embedding_[:, 1] if model.embedding_.shape[1] > 1 else 0.0,
        "plays": counts.reindex(model.songs_).fillna(0).astype(int).to_numpy(),
        "tags": [", ".join(map(str, (tags or {}).get(s, []))) for s in model.songs_],
    })
