"""Cached EMDE computations for the Sets page, one cache per pipeline stage.

Every cached function takes the data's :class:`~app.services.data.DataRef`
and the parameters of its own stage, and loads the data itself, so a cache
entry is found by what identifies the data and the stage, in every session.
The hyperplanes depend only on K, N, the offsets and the seed: the stages
that draw buckets or check additivity use the raw count sketch of those
(:func:`raw`), and a change of weighting or normalisation does not redo them.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import NamedTuple

import pandas as pd
import streamlit as st

from app.services import data as data_service
from app.services import shared
from embedcore import emde as core
from embedcore.emde import EMDE

DataRef = data_service.DataRef

#: The (K, N) settings the benchmark compares with the one-hot and mean-vector baselines.
GRID: tuple[tuple[int, int], ...] = ((2, 16), (4, 16), (4, 64), (6, 32), (8, 32))
#: Buckets shown in the additivity heatmap at most (the first ones either set touches).
ADDITIVITY_COLUMNS = 80
#: Finished benchmark tables, shared by every session (the rows are also cached one by one).
_BENCHMARKS = shared.store("sets.benchmark", max_entries=16)


class Setting(NamedTuple):
    """Everything that shapes a sketch besides the data."""

    K: int
    N: int
    offsets: str = "data"
    weighting: str = "counts"
    norm: str | None = None
    scope: str = "row"


def setting(K: int, N: int, offsets: str, weighting: str, norm: str, scope: str) -> Setting:
    """The sketch setting of the sidebar's controls (``norm="none"`` is no normalisation)."""
    return Setting(int(K), int(N), offsets, weighting, None if norm == "none" else norm, scope)


# ------------------------------------------------------------------ data and fitted models


@st.cache_resource(max_entries=8, show_spinner=False)
def item_sets(ref: DataRef):
    """The item vectors and sets ``ref`` names (shared, never mutated)."""
    return data_service.load(ref)


@st.cache_resource(max_entries=8, show_spinner=False)
def weights(ref: DataRef):
    """The sparse set-by-item weight matrix (shared, never mutated)."""
    return item_sets(ref).weight_matrix()


@st.cache_resource(max_entries=24, show_spinner=False)
def _fit(ref: DataRef, s: Setting) -> tuple[EMDE, float]:
    t0 = time.perf_counter()
    data = item_sets(ref)
    model = EMDE(n_hyperplanes=s.K, n_partitions=s.N, offsets=s.offsets, weighting=s.weighting, norm=s.norm,
                 norm_scope=s.scope, random_state=ref.seed)
    model.fit(data.vectors, sets=weights(ref) if s.weighting == "tfidf" else None)
    return model, time.perf_counter() - t0


def fitted(ref: DataRef, s: Setting) -> EMDE:
    """A fitted EMDE for one data set and setting (shared, never mutated)."""
    return _fit(ref, s)[0]


def raw(ref: DataRef, K: int, N: int, offsets: str) -> EMDE:
    """The raw count EMDE of K, N and the offsets: the same hyperplanes as every weighting and norm."""
    return fitted(ref, Setting(int(K), int(N), offsets))


@st.cache_resource(max_entries=12, show_spinner=False)
def _sketch(ref: DataRef, s: Setting):
    t0 = time.perf_counter()
    S = fitted(ref, s).sketch(weights(ref))
    return S, time.perf_counter() - t0


def sketches(ref: DataRef, s: Setting):
    """Every set's sketch: a sparse (n_sets x N*2**K) array (shared, never mutated)."""
    return _sketch(ref, s)[0]


# ------------------------------------------------------------------ the header


@st.cache_data(max_entries=64, show_spinner=False)
def summary(ref: DataRef, s: Setting) -> dict:
    """The figures above the tabs: items, sets, sketch width, occupied buckets, fit + sketch time."""
    data = item_sets(ref)
    fit_s = _fit(ref, s)[1]
    sketch_s = _sketch(ref, s)[1]
    return {
        "items": len(data.items),
        "sets": len(data.sets),
        "width": s.N * 2**s.K,
        "occupied": core.occupied_buckets(raw(ref, s.K, s.N, s.offsets)),
        "milliseconds": (fit_s + sketch_s) * 1000,
        "description": data.description,
        "dimensions": int(data.vectors.shape[1]),
    }


# ------------------------------------------------------------------ 1. buckets


@st.cache_resource(max_entries=8, show_spinner=False)
def _view(ref: DataRef) -> core.ItemView:
    return core.item_view(item_sets(ref).vectors)


@st.cache_data(max_entries=8, show_spinner=False)
def item_map(ref: DataRef) -> dict:
    """The items on a plane (their PCA plane above two dimensions), with their names."""
    data = item_sets(ref)
    view = _view(ref)
    return {"coords": view.coords, "names": list(map(str, data.items)), "projected": view.projected,
            "dimensions": int(data.vectors.shape[1])}


@st.cache_data(max_entries=64, show_spinner=False)
def buckets(ref: DataRef, K: int, N: int, offsets: str, partition: int) -> dict:
    """One partitioning on the item map: every item's bucket, and the hyperplanes' lines on the plane."""
    pv = core.partition_view(raw(ref, K, N, offsets), partition, _view(ref))
    return {"codes": pv.codes, "lines": pv.lines, "occupied": pv.occupied}


# ------------------------------------------------------------------ 2. one set


@st.cache_data(max_entries=32, show_spinner=False)
def one_set(ref: DataRef, s: Setting, i: int) -> dict:
    """Set ``i``: its title, its sketch as an N x 2**K grid, the density it implies on every item, its items."""
    data = item_sets(ref)
    model = fitted(ref, s)
    row = sketches(ref, s)[[i], :]
    label = f" ({data.labels[i]})" if data.labels is not None else ""
    return {
        "title": f"set {i}{label}: {len(data.sets[i])} items",
        "grid": model.sketch_grid(row),
        "density": model.decode(row, data.vectors),
        "members": weights(ref)[[i], :].indices,
    }


# ------------------------------------------------------------------ 3. additivity


@st.cache_data(max_entries=32, show_spinner=False)
def additivity(ref: DataRef, K: int, N: int, offsets: str, a: int, b: int) -> dict:
    """Raw count sketches of sets a, b and their pooled multiset, in the buckets either touches."""
    check = core.additivity(raw(ref, K, N, offsets), weights(ref), a, b)
    return {"max_difference": check.max_difference, "touched": len(check.table),
            "table": check.table.iloc[:ADDITIVITY_COLUMNS]}


# ------------------------------------------------------------------ 4. K and N


@st.cache_data(max_entries=16, show_spinner=False)
def bucket_stats(ref: DataRef, N: int, offsets: str) -> pd.DataFrame:
    """Bucket statistics for every K worth measuring on these items, with N partitionings."""
    X = item_sets(ref).vectors
    stats = core.bucket_statistics(X, core.statistics_grid(len(X)), N, offsets=offsets, random_state=ref.seed)
    return stats.round(3)


# ------------------------------------------------------------------ 5. benchmark


@st.cache_data(max_entries=8, show_spinner=False)
def classes(ref: DataRef) -> dict:
    """Whether the sets can be classified: how many labels, and the smallest class's size."""
    labels = item_sets(ref).labels
    if labels is None:
        return {"labels": 0, "smallest": 0}
    counts = pd.Series(labels).value_counts()
    return {"labels": int(counts.size), "smallest": int(counts.min())}


def benchmark_names() -> list[str]:
    """The encodings the benchmark compares, as its table names them."""
    return [core.encoding_name(e) for e in core.set_encodings(GRID)]


@st.cache_data(max_entries=64, show_spinner=False)
def _encoding_row(ref: DataRef, encoding: tuple) -> dict:
    data = item_sets(ref)
    return core.evaluate_set_encoding(data.vectors, weights(ref), data.labels, encoding, random_state=ref.seed)


def benchmark(ref: DataRef) -> pd.DataFrame | None:
    """The benchmark table for these data (rounded for display), if any session has run it (else None)."""
    return _BENCHMARKS.get((ref, GRID))


def run_benchmark(ref: DataRef, progress: Callable[[float, str], None] | None = None) -> pd.DataFrame:
    """Run (or finish) the benchmark: each encoding's row is cached, the table is shared.

    ``progress(fraction, name)`` is called after each encoding; a run that
    is interrupted keeps the rows it finished for the next one.
    """
    jobs = core.set_encodings(GRID)
    rows = []
    for n, encoding in enumerate(jobs, start=1):
        rows.append(_encoding_row(ref, encoding))
        if progress is not None:
            progress(n / len(jobs), rows[-1]["features"])
    table = core.benchmark_table(rows).round({"accuracy": 4, "accuracy_std": 4, "seconds": 2})
    _BENCHMARKS.put((ref, GRID), table)
    return table


# ------------------------------------------------------------------ 6. downloads


class SketchFiles(NamedTuple):
    """The sketches as files, made only when asked for (each a function of no arguments)."""

    npz: Callable[[], bytes]
    csv: Callable[[], str]
    sets: int
    columns: int
    nonzeros: int


def sketch_files(ref: DataRef, s: Setting, norm_label: str) -> SketchFiles:
    """Every set's sketch as .npz (sparse CSR + parameters) and as CSV of the non-zeros.

    The files are written when a download button is pressed, from the
    sketches cached now: the functions need no session of their own.
    """
    S = sketches(ref, s)
    model = fitted(ref, s)
    columns = [str(c) for c in model.get_feature_names_out()]
    params = {"K": s.K, "N": s.N, "offsets": s.offsets, "weighting": s.weighting, "norm": norm_label,
              "norm_scope": s.scope, "seed": ref.seed, "data": ref.source}
    return SketchFiles(
        npz=lambda: core.sketches_npz(S, {**params, "columns": columns}),
        csv=lambda: core.sketches_csv(S, columns, params),
        sets=int(S.shape[0]), columns=int(S.shape[1]), nonzeros=int(S.nnz),
    )
