"""Cached stages of spectral encoding for the Categories page, shared by every session.

A :class:`Graph` names the category graph: the data (a :class:`DataRef`) and,
for a table, the column, target, kernel and transform it is learned with.
Every stage below is keyed on it plus that stage's own parameters, and loads
the data itself: distances once per graph, the affinity and spectrum once per
γ (held once per process, never copied or mutated), then small results per
view. The downstream test runs from a button; its results go to a store shared
by every session.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd
import streamlit as st

from app.services import data as data_service
from app.services.shared import store
from embedcore import spectral

#: The categorical column and the target each bundled table opens with.
DEFAULT_COLUMNS = {"tips": ("day", "tip"), "gapminder": ("country", "lifeExp"), "wind": ("direction", "frequency")}
#: The categories a table may have for the page to draw them; below the minimum a graph says nothing.
MAX_LEVELS, MIN_LEVELS = 2000, 3
#: The γ sweep: multiples of the current γ.
SWEEP_FACTORS = (0.01, 0.1, 1.0, 10.0, 100.0)
#: Results of the downstream test, shared across sessions.
RESULTS = store("cat.downstream", max_entries=32)


class Graph(NamedTuple):
    """What identifies a category graph: the data, and for a table how its distances are learned."""

    data: data_service.DataRef
    column: str | None = None
    target: str | None = None
    kernel: str | None = None
    transform: str | None = None  # None or "log1p"

    @property
    def learned(self) -> bool:
        return self.column is not None


class Base(NamedTuple):
    """The graph before γ: category names, the distances (or the affinity) and rows per category."""

    labels: list[str]
    matrix: np.ndarray
    counts: np.ndarray | None
    uses_gamma: bool
    description: str


def _frozen(*arrays):
    for a in arrays:
        if isinstance(a, np.ndarray):
            a.flags.writeable = False
    return arrays


# ---------------------------------------------------------------- the data


def graph_options() -> list[tuple[str, str]]:
    """The bundled category graphs as (id, title)."""
    return [(d.id, d.title) for d in data_service.datasets_of_kind("graph")]


@st.cache_data(max_entries=16, show_spinner=False)
def table_columns(ref: data_service.DataRef) -> tuple[list[str], list[str]]:
    """(columns that can be the category, columns that can be the target)."""
    return spectral.candidate_columns(data_service.load(ref).frame)


def default_columns(source: str, categorical: list[str], numeric: list[str]) -> tuple[str, str]:
    """The (column, target) a data set opens with."""
    return DEFAULT_COLUMNS.get(source, (categorical[0], numeric[-1]))


@st.cache_data(max_entries=32, show_spinner=False)
def table_check(ref: data_service.DataRef, column: str, target: str) -> tuple[int, int]:
    """(rows left out for a missing category or target, distinct category values)."""
    _, dropped, levels = spectral.complete_rows(data_service.load(ref).frame, column, target)
    return dropped, levels


def _complete(graph: Graph) -> pd.DataFrame:
    return spectral.complete_rows(data_service.load(graph.data).frame, graph.column, graph.target)[0]


@st.cache_resource(max_entries=16, show_spinner=False)
def base(graph: Graph) -> Base:
    """Distances learned from the table (or the bundled matrix). Raises ValueError with a readable message."""
    if not graph.learned:
        g = data_service.load(graph.data)
        (matrix,) = _frozen(np.array(g.matrix, dtype=np.float64))
        return Base([str(v) for v in g.labels], matrix, None, g.kind == "distance", g.description)
    frame = _complete(graph)
    labels, samples = spectral.category_distributions(frame[graph.column].astype(str), frame[graph.target],
                                                      graph.transform)
    if graph.kernel == "wasserstein":
        D = spectral.wasserstein_distances(samples)
    else:
        D = spectral.symmetric_kl_distances(samples)
    counts = np.array([len(s) for s in samples])
    _frozen(D, counts)
    return Base([str(v) for v in labels], D, counts, True, "")


@st.cache_data(max_entries=32, show_spinner=False)
def typical_distance(graph: Graph) -> float:
    """The median distance between categories: γ is set relative to it."""
    return spectral.median_distance(base(graph).matrix)


def gamma(graph: Graph, log_scale: float) -> float | None:
    """γ for the slider's value, ``10**s / median distance``; None when the matrix is an affinity."""
    if not base(graph).uses_gamma:
        return None
    return float(10**log_scale / typical_distance(graph))


# ---------------------------------------------------------------- the spectrum


@st.cache_resource(max_entries=64, show_spinner=False)
def spectrum(graph: Graph, gamma: float | None):
    """Affinity, normalised Laplacian, eigenvalues and eigenvectors for one γ (read-only arrays)."""
    b = base(graph)
    A = b.matrix if gamma is None else spectral.kernel_from_distances(b.matrix, gamma)
    L = spectral.normalized_laplacian(A, b.labels)
    vals, vecs = spectral.laplacian_spectrum(A, labels=b.labels)
    return _frozen(A, L, vals, vecs)


@st.cache_data(max_entries=128, show_spinner=False)
def summary(graph: Graph, gamma: float | None, n_components, keep_trivial: bool) -> dict:
    """The figures above the tabs, and the components by name when the graph fell apart."""
    A, _, vals, _ = spectrum(graph, gamma)
    choice = spectral.choose_code(vals, n_components, keep_trivial)
    labels = base(graph).labels
    return {
        "categories": len(labels),
        "connected components": choice.n_connected,
        "suggested k": choice.eigengap_k,
        "code width": len(choice.columns),
        "lambda2": float(vals[1]),
        "components": spectral.connected_components(A, labels) if choice.n_connected > 1 else [],
        "clusters": min(10, len(labels) - 1),
    }


def rows_used(graph: Graph) -> tuple[int, int, int] | None:
    """(rows, rows of the rarest value, of the most common) behind a learned kernel; None for a given one."""
    counts = base(graph).counts
    return None if counts is None else (int(counts.sum()), int(counts.min()), int(counts.max()))


@st.cache_resource(max_entries=32, show_spinner=False)
def heatmaps(graph: Graph, gamma: float | None, by_fiedler: bool) -> dict:
    """The affinity and the Laplacian in the chosen order, float32 for the wire (read-only, not copied per call).

    ``lmax``: the largest off-diagonal |L| (the colour range), None when all are 0.
    """
    A, L, _, vecs = spectrum(graph, gamma)
    labels = base(graph).labels
    order = spectral.fiedler_order(A, vecs) if by_fiedler else np.arange(len(labels))
    off = float(np.abs(L - np.diag(np.diag(L))).max())
    A_o, L_o = _frozen(A[np.ix_(order, order)].astype(np.float32), L[np.ix_(order, order)].astype(np.float32))
    return {"names": [labels[i] for i in order], "A": A_o, "L": L_o, "lmax": off if off > 0 else None}


@st.cache_data(max_entries=64, show_spinner=False)
def spectrum_view(graph: Graph, gamma: float | None, n_components, keep_trivial: bool) -> tuple[pd.DataFrame, int | None, int]:
    """(eigenvalue table with the kept ones marked, the index after the largest gap or None, eigengap k)."""
    vals = spectrum(graph, gamma)[2]
    choice = spectral.choose_code(vals, n_components, keep_trivial)
    kept = np.zeros(vals.size, dtype=bool)
    kept[choice.columns] = True
    table = pd.DataFrame({"index": np.arange(1, vals.size + 1), "eigenvalue": vals.round(6), "kept": kept})
    return table, choice.gap_after, choice.eigengap_k


class Codes(NamedTuple):
    """The spectral code of every category."""

    table: pd.DataFrame  # category, then one column u<i> per kept eigenvector
    shown: pd.DataFrame  # the same, rounded for display
    columns: list[int]  # the kept eigenvectors, counted from 1
    eigenvalues: list[float]  # their eigenvalues


@st.cache_data(max_entries=64, show_spinner=False)
def codes(graph: Graph, gamma: float | None, n_components, keep_trivial: bool) -> Codes:
    """The encoding table for the current choice of eigenvectors."""
    _, _, vals, vecs = spectrum(graph, gamma)
    kept = spectral.choose_code(vals, n_components, keep_trivial).columns
    table = pd.DataFrame(vecs[:, kept], columns=[f"u{i + 1}" for i in kept])
    table.insert(0, "category", base(graph).labels)
    return Codes(table, table.round(5), [i + 1 for i in kept], [float(vals[i]) for i in kept])


@st.cache_data(max_entries=32, show_spinner=False)
def gamma_sweep(graph: Graph, gamma: float) -> pd.DataFrame:
    """Spectra at γ times each of :data:`SWEEP_FACTORS`."""
    return spectral.gamma_sweep(base(graph).matrix, gamma, SWEEP_FACTORS)


# ---------------------------------------------------------------- clustering


@st.cache_data(max_entries=32, show_spinner=False)
def fiedler(graph: Graph, gamma: float | None) -> tuple[pd.DataFrame, tuple[int, float] | None]:
    """The Fiedler sweep table and its cut of least conductance (None when no cut has one)."""
    A, _, _, vecs = spectrum(graph, gamma)
    sweep = spectral.fiedler_sweep(A, base(graph).labels, eigenvectors=vecs)
    return sweep, spectral.lowest_conductance_cut(sweep)


@st.cache_data(max_entries=64, show_spinner=False)
def clusters(graph: Graph, gamma: float | None, n_clusters: int, seed: int) -> pd.DataFrame:
    """k-way spectral clusters: one row per cluster with its categories."""
    A, _, _, vecs = spectrum(graph, gamma)
    labels = base(graph).labels
    found = spectral.spectral_clusters(A, n_clusters, labels, random_state=seed, eigenvectors=vecs)
    table = pd.DataFrame({"category": labels, "cluster": found})
    return table.groupby("cluster")["category"].apply(lambda s: ", ".join(s)).reset_index()


# ---------------------------------------------------------------- downloads


def download_files(graph: Graph, gamma: float | None, n_components, keep_trivial: bool):
    """(encoding CSV, affinity CSV) as callables: the text is made when a person clicks."""
    table = codes(graph, gamma, n_components, keep_trivial).table
    A = spectrum(graph, gamma)[0]
    labels = base(graph).labels
    return (lambda: table.to_csv(index=False),
            lambda: pd.DataFrame(A, index=labels, columns=labels).to_csv())


# ---------------------------------------------------------------- the downstream test


def _bench_key(graph: Graph, gamma, n_components, keep_trivial: bool, seed: int) -> tuple:
    return (graph, gamma, n_components, bool(keep_trivial), int(seed))


def downstream_result(graph: Graph, gamma: float | None, n_components, keep_trivial: bool,
                      seed: int) -> pd.DataFrame | None:
    """The downstream test's table (rounded for display) for these settings if anyone has run it, else None."""
    found = RESULTS.get(_bench_key(graph, gamma, n_components, keep_trivial, seed))
    return None if found is None else found.round(4)


def run_downstream(graph: Graph, gamma: float, n_components, keep_trivial: bool, seed: int,
                   progress=None) -> pd.DataFrame:
    """Cross-validate one-hot, ordinal and spectral codes; kept for every session. Raises ValueError."""
    key = _bench_key(graph, gamma, n_components, keep_trivial, seed)
    found = RESULTS.get(key)
    if found is not None:
        return found
    params = dict(kernel=graph.kernel, gamma=gamma, n_components=n_components, keep_trivial=keep_trivial,
                  target_transform=graph.transform)
    result = spectral.compare_category_encodings(_complete(graph), graph.column, graph.target,
                                                 encoder_params=params, random_state=seed, progress=progress)
    RESULTS.put(key, result)
    return result
