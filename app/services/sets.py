"""Cached EMDE computations for the Sets page, one cache per pipeline stage.

Every cached function takes the data's :class:`~app.services.data.DataRef`
and the parameters of its own stage, and loads the data itself, so a cache
entry is found by what identifies the data and the stage, in every session.
The hyperplanes depend only on K, N, the offsets and the seed: the stages
that draw buckets or check additivity use the raw count sketch of those
(:func:`raw`), and a change of weighting or normalisation does not redo them.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from typing import NamedTuple

import numpy as np
import pandas as pd
import streamlit as st

from app.services import data as data_service
from app.services import shared, threads
from app.services.reproduce import Recipe
from embedcore import emde as core
from embedcore.batch import BatchError
from embedcore.batch import sketch_files as handover
from embedcore.emde import EMDE

DataRef = data_service.DataRef

#: The (K, N) settings the benchmark compares with the one-hot and mean-vector baselines.
GRID: tuple[tuple[int, int], ...] = ((2, 16), (4, 16), (4, 64), (6, 32), (8, 32))
#: Buckets shown in the additivity heatmap at most (the first ones either set touches).
ADDITIVITY_COLUMNS = 80
#: Finished benchmark tables, shared by every session (the rows are also cached one by one).
_BENCHMARKS = shared.store("sets.benchmark", max_entries=16)
#: Benchmark rows of uploaded sketches, by the data and the upload's digest.
_UPLOADED_ROWS = shared.store("sets.uploaded_rows", max_entries=32)


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
                 norm_scope=s.scope, random_state=ref.seed, n_jobs=threads.JOBS)
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


def item_space(ref: DataRef):
    """The item vectors: the original space of the item map (a PCA plane above two dimensions)."""
    return item_sets(ref).vectors


@st.cache_data(max_entries=32, show_spinner=False)
def selection_sets(ref: DataRef, rows: tuple, top: int = 15) -> dict:
    """Which sets hold the selected items and how much of each set's weight they carry (largest share first),
    and how many sets hold any of them."""
    data = item_sets(ref)
    W = weights(ref)
    cols = np.asarray(rows, dtype=np.int64)
    inside = np.asarray(W[:, cols].sum(axis=1)).ravel()
    total = np.asarray(W.sum(axis=1)).ravel()
    count = np.asarray((W[:, cols] != 0).sum(axis=1)).ravel()
    holding = np.flatnonzero(count)
    share = np.divide(inside[holding], total[holding], out=np.zeros(holding.size), where=total[holding] > 0)
    order = np.lexsort((holding, -share))[:top]
    chosen = holding[order]
    frame = pd.DataFrame({"set": chosen})
    if data.labels is not None:
        frame["label"] = np.asarray(data.labels, dtype=object)[chosen]
    frame["selected items in it"] = count[chosen]
    frame["share of its weight"] = share[order].round(4)
    return {"sets": frame, "holding": int(holding.size), "total": int(W.shape[0])}


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


def _rounded(rows) -> pd.DataFrame:
    return core.benchmark_table(rows).round({"accuracy": 4, "accuracy_std": 4, "seconds": 2})


def benchmark(ref: DataRef, upload: SketchUpload | None = None) -> pd.DataFrame | None:
    """The benchmark table for these data (rounded for display), if any session has run it (else None).

    With an upload whose row has been scored, that row is in the table too.
    """
    table = _BENCHMARKS.get((ref, GRID))
    row = _UPLOADED_ROWS.get((ref, upload.digest)) if upload is not None else None
    if table is None or row is None:
        return table
    return _rounded([*table.to_dict("records"), row])


def upload_scored(ref: DataRef, upload: SketchUpload) -> bool:
    """Whether the uploaded sketches already have their benchmark row."""
    return (ref, upload.digest) in _UPLOADED_ROWS


def run_benchmark(ref: DataRef, progress: Callable[[float, str], None] | None = None,
                  upload: SketchUpload | None = None) -> pd.DataFrame:
    """Run (or finish) the benchmark: each encoding's row is cached, the table is shared.

    ``progress(fraction, name)`` is called after each encoding; a run that
    is interrupted keeps the rows it finished for the next one. Uploaded
    sketches that fit the sets (see :func:`uploaded_sketches`) are scored
    last, with the same classifier and folds.
    """
    jobs = core.set_encodings(GRID)
    scored = upload is not None and uploaded_sketches(ref, upload)["error"] is None
    total = len(jobs) + scored
    rows = []
    for n, encoding in enumerate(jobs, start=1):
        rows.append(_encoding_row(ref, encoding))
        if progress is not None:
            progress(n / total, rows[-1]["features"])
    table = _rounded(rows)
    _BENCHMARKS.put((ref, GRID), table)
    if scored:
        key = (ref, upload.digest)
        if key not in _UPLOADED_ROWS:
            got = _read_upload(upload.digest, upload)[0]
            _UPLOADED_ROWS.put(key, core.evaluate_features(got.sketches, item_sets(ref).labels, got.label,
                                                           random_state=ref.seed))
        if progress is not None:
            progress(1.0, _UPLOADED_ROWS.get(key)["features"])
    return benchmark(ref, upload)


# ------------------------------------------------------------------ 5b. sketches made by the command line


class SketchUpload(NamedTuple):
    """The files of a sketch output a person uploaded, with a digest that identifies their bytes."""

    names: tuple[str, ...]
    blobs: tuple[bytes, ...]
    digest: str


def sketch_upload(files) -> SketchUpload | None:
    """The uploader's files as a :class:`SketchUpload` (None when there are none)."""
    files = list(files or [])
    if not files:
        return None
    names = tuple(f.name for f in files)
    blobs = tuple(bytes(f.getvalue()) for f in files)
    h = hashlib.sha1()
    for n, b in zip(names, blobs):
        h.update(n.encode())
        h.update(len(b).to_bytes(8, "little"))
        h.update(b)
    return SketchUpload(names, blobs, h.hexdigest())


@st.cache_resource(max_entries=4, show_spinner=False)
def _read_upload(digest: str, _upload: SketchUpload):
    """The uploaded sketches read (shared, never mutated), or the sentence saying why they cannot be."""
    try:
        return handover.read_sketch_files(zip(_upload.names, _upload.blobs)), None
    except BatchError as e:
        return None, str(e)


@st.cache_data(max_entries=32, show_spinner=False)
def _checked(ref: DataRef, digest: str, _upload: SketchUpload) -> dict:
    got, error = _read_upload(digest, _upload)
    if error is not None:
        return {"error": error}
    data = item_sets(ref)
    try:
        notes = handover.check_for_sets(got, len(data.sets), len(data.items), int(data.vectors.shape[1]))
    except BatchError as e:
        return {"error": str(e)}
    S, p = got.sketches, got.params
    made = ", ".join(f"{k}={p[k]}" for k in ("K", "N") if k in p)
    if "seed" in p:
        made += f"{', ' if made else ''}seed {p['seed']}"
    return {"error": None, "label": got.label, "form": got.form, "rows": int(S.shape[0]), "columns": int(S.shape[1]),
            "nonzeros": int(S.nnz), "made": made, "notes": notes}


def uploaded_sketches(ref: DataRef, upload: SketchUpload) -> dict:
    """An uploaded sketch output checked against these sets.

    ``{"error": sentence}`` when it cannot be used; otherwise the benchmark
    name (``label``), what was read (``form``), ``rows``, ``columns``,
    ``nonzeros``, the settings it was made with (``made``, may be empty)
    and ``notes``.
    """
    return _checked(ref, upload.digest, upload)


class CommandInput(NamedTuple):
    """The sets and items in the sketch command's input format, made when a download button is pressed."""

    items: Callable[[], bytes]
    sets: Callable[[], bytes]
    command: str
    note: str | None


def command_input(ref: DataRef, s: Setting) -> CommandInput:
    """``items.npy`` and ``sets.csv`` for ``python -m embedcore sketch``, and the lines that sketch and zip them.

    The command uses the sidebar's K, N, offsets and seed, so its sketches
    are the in-app EMDE's of the same setting.
    """
    weighting = "binary" if s.weighting == "binary" else "counts"
    note = None
    if s.weighting == "tfidf":
        note = "The command line has no tf-idf weighting: the command sketches counts."
    data, W = item_sets(ref), weights(ref)
    command = handover.sketch_command(s.K, s.N, seed=ref.seed, offsets=s.offsets, weighting=weighting,
                                      weighted=handover.needs_weights(W))
    # written when a button is pressed, from the data cached now: the functions need no session of their own
    return CommandInput(items=lambda: handover.items_npy(data.vectors), sets=lambda: handover.sets_csv(W, data.labels),
                        command=command, note=note)


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


# ------------------------------------------------------------------ reproduce


def recipe(ref: DataRef, s: Setting) -> Recipe:
    """The sets' sketches (as row, column, value triplets) and the hyperplanes' bucket codes of every item, and
    the embedcore code that computes them again."""
    model = fitted(ref, s)
    S = sketches(ref, s).tocoo()
    arrays = {"sketch_rows": S.row, "sketch_columns": S.col, "sketch_values": S.data,
              "item_codes": np.asarray(model.item_codes_)}
    code = f"""
        from embedcore.emde import EMDE

        model = EMDE(n_hyperplanes={s.K}, n_partitions={s.N}, offsets={s.offsets!r}, weighting={s.weighting!r},
                     norm={s.norm!r}, norm_scope={s.scope!r}, random_state={ref.seed})
        W = data.weight_matrix()  # sets x items
        model.fit(data.vectors, sets=W if {s.weighting!r} == "tfidf" else None)
        S = model.sketch(W).tocoo()
        result = {{"sketch_rows": S.row, "sketch_columns": S.col, "sketch_values": S.data,
                  "item_codes": np.asarray(model.item_codes_)}}
        """
    return Recipe("sets", f"EMDE sketches (K={s.K}, N={s.N})", arrays, s._asdict(), ref, code,
                  compare={"sketch_values": "close"}, rtol=1e-9, atol=1e-12)
