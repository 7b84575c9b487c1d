"""Cached spectral-encoding stages for the Categories page: distances once per kernel,
the affinity and spectrum once per gamma."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from embedcore import spectral


@st.cache_data(max_entries=16, show_spinner=False)
def distances(data_key: str, column: str, target: str, kernel: str, transform: str | None, _frame=None):
    """(category labels, distance matrix) learned from a table."""
    labels, samples = spectral.category_distributions(_frame[column].astype(str), _frame[target], transform)
    if kernel == "wasserstein":
        D = spectral.wasserstein_distances(samples)
    else:
        D = spectral.symmetric_kl_distances(samples)
    return [str(v) for v in labels], D, np.array([len(s) for s in samples])


def typical_distance(D: np.ndarray) -> float:
    off = D[~np.eye(len(D), dtype=bool)]
    off = off[off > 0]
    return float(np.median(off)) if off.size else 1.0


@st.cache_data(max_entries=64, show_spinner=False)
def spectrum(key: str, gamma: float | None, _base=None):
    """Affinity, Laplacian and full spectrum for one gamma (None: the matrix is the affinity)."""
    A = _base if gamma is None else spectral.kernel_from_distances(_base, gamma)
    L = spectral.normalized_laplacian(A)
    vals, vecs = spectral.laplacian_spectrum(A)
    return A, L, vals, vecs


@st.cache_data(max_entries=32, show_spinner=False)
def components(key: str, gamma: float | None, _A=None, _labels=None) -> list[list[str]]:
    """The graph's connected components by category name, largest first."""
    return spectral.connected_components(_A, _labels)


@st.cache_data(max_entries=32, show_spinner=False)
def sweep_and_clusters(key: str, gamma: float | None, n_clusters: int, seed: int, _A=None, _labels=None,
                       _vecs=None):
    """Fiedler sweep and k-way clusters, reusing the spectrum computed for this gamma."""
    return (spectral.fiedler_sweep(_A, _labels, eigenvectors=_vecs),
            spectral.spectral_clusters(_A, n_clusters, _labels, random_state=seed, eigenvectors=_vecs))


def downstream(frame: pd.DataFrame, column: str, target: str, params: dict, seed: int, progress):
    return spectral.compare_category_encodings(frame, column, target, encoder_params=params,
                                               random_state=seed, progress=progress)
