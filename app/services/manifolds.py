"""Cached stages for the Manifolds page: data, the kNN graph once at the largest B,
LLE once per (B, reg), each comparison method once per data set."""

from __future__ import annotations

import numpy as np
import streamlit as st

from app.services import data as data_service
from embedcore import datasets
from embedcore.manifold import lle_from_neighbors, lle_input_problem, nearest_neighbors, rescale_for_distances
from embedcore.maps import embed
from embedcore.metrics import neighbor_recall, trustworthiness

GENERATORS = {
    "swiss_roll": datasets.make_swiss_roll,
    "s_curve": datasets.make_s_curve,
    "severed_sphere": datasets.make_severed_sphere,
    "swiss_hole": datasets.make_swiss_hole,
}
MAX_B = 60


def input_problem(vdata) -> str | None:
    """Why these vectors cannot be this page's data, or None."""
    return lle_input_problem(vdata.X)


@st.cache_data(max_entries=8, show_spinner=False)
def rescaled(data_key: str, _X=None):
    """The points, scaled by a power of two if their magnitude would overflow distances."""
    return rescale_for_distances(_X)


@st.cache_data(max_entries=12, show_spinner=False)
def generated(kind: str, n: int, noise: float, seed: int):
    return GENERATORS[kind](n_samples=n, noise=noise, seed=seed)


@st.cache_data(max_entries=8, show_spinner=False)
def knn(data_key: str, max_k: int, _X=None):
    return nearest_neighbors(_X, max_k)


@st.cache_data(max_entries=48, show_spinner=False)
def lle(data_key: str, B: int, reg: float, seed: int, _X=None, _neighbors=None):
    out = lle_from_neighbors(_X, _neighbors[:, :B], 2, reg, random_state=seed, n_eigenvalues=8)
    out["trustworthiness"] = trustworthiness(_X, out["embedding"], min(10, len(_X) // 2 - 1))
    del out["M"]
    return out


@st.cache_data(max_entries=64, show_spinner=False)
def method_map(data_key: str, method: str, seed: int, _X=None):
    result = embed(_X, method, random_state=seed)
    k = min(10, len(_X) // 2 - 1)
    return {"coords": result.coords, "seconds": result.seconds,
            "trustworthiness": trustworthiness(_X, result.coords, k),
            "recall": neighbor_recall(_X, result.coords, k, per_point=True)}


def is_cached_method(data_key: str, method: str, seed: int) -> bool:
    return st.session_state.get(f"man.done.{data_key}.{method}.{seed}", False)


def mark_cached(data_key: str, method: str, seed: int) -> None:
    st.session_state[f"man.done.{data_key}.{method}.{seed}"] = True


@st.cache_data(max_entries=32, show_spinner=False)
def recall(data_key: str, which: str, k: int, _X=None, _Y=None):
    return neighbor_recall(_X, _Y, k, per_point=True)
