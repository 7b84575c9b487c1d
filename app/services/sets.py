"""Cached EMDE computations for the Sets page, one cache per pipeline stage."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from app.services import data as data_service
from embedcore.emde import EMDE, bucket_statistics, compare_set_encodings
from embedcore.linear import pca_basis


def item_sets(source: str, seed: int):
    """The item sets behind ``source`` (a bundled id or "upload")."""
    if source == "upload":
        up = data_service.current_upload()
        result, error = data_service.parse_upload("item_sets", up.digest, up, seed)
        if error:
            raise ValueError(error)
        return result
    return data_service.bundled(source, seed)


@st.cache_resource(max_entries=24, show_spinner=False)
def fitted_emde(data_key: str, K: int, N: int, offsets: str, weighting: str, norm: str | None,
                scope: str, seed: int, _data=None) -> EMDE:
    """A fitted EMDE for one data set and setting (shared, never mutated)."""
    emde = EMDE(n_hyperplanes=K, n_partitions=N, offsets=offsets, weighting=weighting,
                norm=norm, norm_scope=scope, random_state=seed)
    return emde.fit(_data.vectors, sets=_data.weight_matrix() if weighting == "tfidf" else None)


def emde_for(source: str, seed: int, **params) -> EMDE:
    data = item_sets(source, seed)
    return fitted_emde(data_service.source_key(source), seed=seed, _data=data, **params)


@st.cache_data(max_entries=8, show_spinner=False)
def item_map(data_key: str, seed: int, _data=None) -> dict:
    """2-D coordinates of the items (PCA when d > 2) and the basis used."""
    X = _data.vectors
    if X.shape[1] <= 2:
        coords = np.column_stack([X, np.zeros((len(X), 2 - X.shape[1]))])
        return {"coords": coords, "mean": np.zeros(X.shape[1]), "basis": np.eye(X.shape[1], 2), "pca": False}
    mean, basis, _ = pca_basis(X, 2)
    return {"coords": (X - mean) @ basis, "mean": mean, "basis": basis, "pca": True}


def map_for(source: str, seed: int) -> dict:
    return item_map(data_service.source_key(source), seed, _data=item_sets(source, seed))


@st.cache_data(max_entries=16, show_spinner=False)
def bucket_stats(data_key: str, N: int, offsets: str, seed: int, _data=None) -> pd.DataFrame:
    n = len(_data.vectors)
    top = int(min(14, max(2, np.ceil(np.log2(max(n, 2))) + 3)))
    return bucket_statistics(_data.vectors, list(range(1, top + 1)), N, offsets=offsets, random_state=seed)


def stats_for(source: str, N: int, offsets: str, seed: int) -> pd.DataFrame:
    return bucket_stats(data_service.source_key(source), N, offsets, seed, _data=item_sets(source, seed))


def run_benchmark(source: str, seed: int, grid, progress) -> pd.DataFrame:
    """Not cached through Streamlit: it reports progress; the page keeps its result."""
    data = item_sets(source, seed)
    return compare_set_encodings(data.vectors, data.weight_matrix(), data.labels, grid,
                                 random_state=seed, progress=progress)
