"""Cached EMDE computations for the Sets page, one cache per pipeline stage.

Every cached function takes the data's :class:`~app.services.data.DataRef`
and the parameters of its own stage, and loads the data itself, so a cache
entry is found by what identifies the data and the stage, in every session.
The hyperplanes depend only on K, N, the offsets, the item vectors and the
seed: the stages that draw buckets or check additivity use the raw count
sketch of those (:func:`raw`), and a change of weighting or normalisation
does not redo them.

Settings that take long (a large N on many items, Word2Vec vectors not yet
trained) are computed only when asked (:func:`pending`, :func:`compute`) and
kept for every session; cheap ones are computed as the controls move.
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

#: The (K, N) settings the benchmark compares with the one-hot and mean-vector baselines: the post's grid.
GRID: tuple[tuple[int, int], ...] = core.SEED_GRID
#: The regularisation strengths every benchmark row searches (the same for every encoding).
C_GRID = core.PROTOCOL_C_GRID
#: The width experiment: a fixed budget of N x 2**K buckets, and the Ks compared (K=7 is the authors' advice).
WIDTH_BUDGET, WIDTH_KS = core.WIDTH_BUDGET, core.WIDTH_KS
#: The item vectors a sketch can be built on: the data's own, or Word2Vec trained on the sets.
VECTORS = ("data", "word2vec")
#: Above this K a sketch keeps only the occupied buckets: 2**K columns per partitioning would be mostly empty.
FIXED_MAX_K = 12
#: The sidebar's largest K and N.
MAX_K, MAX_N = core.MAX_OCCUPIED_HYPERPLANES, 2000
#: The values the N slider steps through: fine where N is small, the post's 1000 and 2000 at the end.
N_STEPS = (1, 2, 3, 4, 6, 8, 10, 12, 16, 20, 24, 30, 32, 48, 64, 100, 128, 200, 256, 500, 1000, MAX_N)
#: Estimated seconds above which a setting waits for its button instead of following the sliders.
LIVE_SECONDS = 0.25
#: Estimated non-zeros of every set's sketch above which a setting is refused (about 12 bytes each).
MAX_SKETCH_NONZEROS = 40_000_000
#: Cells of a sketch heatmap at most (the first partitionings that fit are drawn).
HEATMAP_CELLS = 60_000
#: Partitionings the K-and-N statistics use at most: they are means over partitionings, more only adds digits.
STATS_PARTITIONS = 64
#: Buckets shown in the additivity heatmap at most (the first ones either set touches).
ADDITIVITY_COLUMNS = 80
#: Finished benchmark tables, shared by every session (the rows are also cached one by one).
_BENCHMARKS = shared.store("sets.benchmark", max_entries=16)
#: Benchmark rows of uploaded sketches, by the data and the upload's digest.
_UPLOADED_ROWS = shared.store("sets.uploaded_rows", max_entries=32)
#: Word2Vec item vectors, by the data (trained once, for every session).
_WORD2VEC = shared.store("sets.word2vec", max_entries=8)
#: Heavy settings someone has computed: their fitted models and sketches, for every session.
_HEAVY = shared.store("sets.heavy", max_entries=6)


class Setting(NamedTuple):
    """Everything that shapes a sketch besides the data."""

    K: int
    N: int
    offsets: str = "data"
    weighting: str = "counts"
    norm: str | None = None
    scope: str = "row"
    drop: bool = False  # keep only the occupied buckets (a variable width)
    vectors: str = "data"  # "data" or "word2vec"

    def geometry(self) -> Setting:
        """The raw count setting of the same hyperplanes: no weighting, no normalisation."""
        return Setting(self.K, self.N, self.offsets, drop=self.drop, vectors=self.vectors)


def setting(K: int, N: int, offsets: str, weighting: str, norm: str, scope: str, drop: bool = False,
            vectors: str = "data") -> Setting:
    """The sketch setting of the sidebar's controls (``norm="none"`` is no normalisation).

    Above :data:`FIXED_MAX_K` only occupied buckets are kept, whatever ``drop`` says.
    """
    return Setting(int(K), int(N), offsets, weighting, None if norm == "none" else norm, scope,
                   bool(drop) or int(K) > FIXED_MAX_K, vectors)


# ------------------------------------------------------------------ data and fitted models


@st.cache_resource(max_entries=8, show_spinner=False)
def item_sets(ref: DataRef):
    """The item vectors and sets ``ref`` names (shared, never mutated)."""
    return data_service.load(ref)


@st.cache_resource(max_entries=8, show_spinner=False)
def weights(ref: DataRef):
    """The sparse set-by-item weight matrix (shared, never mutated)."""
    return item_sets(ref).weight_matrix()


def _trained_word2vec(ref: DataRef) -> np.ndarray:
    data = item_sets(ref)
    return core.word2vec_item_vectors(data.items, data.sets, random_state=ref.seed)


def vectors_of(ref: DataRef, vectors: str = "data") -> np.ndarray:
    """The item vectors a sketch is built on: the data's own, or Word2Vec trained on the sets (kept for all)."""
    if vectors == "data":
        return item_sets(ref).vectors
    got = _WORD2VEC.get(ref)
    if got is None:
        got = _trained_word2vec(ref)
        _WORD2VEC.put(ref, got)
    return got


def vectors_label(ref: DataRef, vectors: str) -> str:
    """How the page and the benchmark name a kind of item vectors."""
    if vectors == "word2vec":
        return "Word2Vec"
    return "PMI-SVD" if ref.source == "newsgroup_words" else "as given"


def _model(ref: DataRef, s: Setting) -> EMDE:
    model = EMDE(n_hyperplanes=s.K, n_partitions=s.N, offsets=s.offsets, weighting=s.weighting, norm=s.norm,
                 norm_scope=s.scope, drop_empty=s.drop, random_state=ref.seed, n_jobs=threads.JOBS)
    return model.fit(vectors_of(ref, s.vectors), sets=weights(ref) if s.weighting == "tfidf" else None)


@st.cache_resource(max_entries=24, show_spinner=False)
def _fit(ref: DataRef, s: Setting) -> tuple[EMDE, float]:
    heavy = _HEAVY.get((ref, s))
    if heavy is not None:
        return heavy["model"], heavy["fit_seconds"]
    t0 = time.perf_counter()
    model = _model(ref, s)
    return model, time.perf_counter() - t0


def fitted(ref: DataRef, s: Setting) -> EMDE:
    """A fitted EMDE for one data set and setting (shared, never mutated)."""
    return _fit(ref, s)[0]


def raw(ref: DataRef, s: Setting) -> EMDE:
    """The raw count EMDE of the setting's hyperplanes: the same planes as every weighting and norm."""
    return fitted(ref, s.geometry())


@st.cache_resource(max_entries=12, show_spinner=False)
def _sketch(ref: DataRef, s: Setting):
    heavy = _HEAVY.get((ref, s))
    if heavy is not None:
        return heavy["sketches"], heavy["sketch_seconds"]
    t0 = time.perf_counter()
    S = fitted(ref, s).sketch(weights(ref))
    return S, time.perf_counter() - t0


def sketches(ref: DataRef, s: Setting):
    """Every set's sketch: a sparse (n_sets x columns) array (shared, never mutated)."""
    return _sketch(ref, s)[0]


# ------------------------------------------------------------------ what waits for a button


@st.cache_data(max_entries=64, show_spinner=False)
def estimate(ref: DataRef, s: Setting) -> dict:
    """Rough seconds and sketch non-zeros of a setting, from the sizes alone (nothing is fitted).

    The planes cost ``n_items * N * K * d`` multiply-adds; the sketches hold
    at most one non-zero per set, partitioning and distinct item, and at most
    ``min(2**K, n_items)`` per set and partitioning. The rates were measured on this
    machine's bundled data; the figure only decides what waits for a button.
    """
    data = item_sets(ref)
    W = weights(ref)
    n, d = data.vectors.shape
    if s.vectors == "word2vec":
        d = 50
    # a set's block in one partitioning has at most one non-zero per distinct item and per bucket
    per_set = np.minimum(np.diff(W.indptr), min(2**min(s.K, 40), n))
    nonzeros = s.N * int(per_set.sum())
    seconds = 3e-9 * n * s.N * s.K * d + 4e-8 * nonzeros + 1e-7 * n * s.N
    return {"seconds": float(seconds), "nonzeros": int(nonzeros)}


def pending(ref: DataRef, s: Setting) -> str | None:
    """What a setting still needs computed before the page can draw it (None: nothing, or cheap enough)."""
    if s.vectors == "word2vec" and ref not in _WORD2VEC:
        return "Word2Vec item vectors, trained on these sets"
    if (ref, s) in _HEAVY:
        return None
    cost = estimate(ref, s)
    if cost["seconds"] <= LIVE_SECONDS:
        return None
    return f"the sketches for K={s.K}, N={s.N} (about {cost['seconds']:.0f} s)" if cost["seconds"] >= 1 else \
        f"the sketches for K={s.K}, N={s.N} (under a second)"


def too_large(ref: DataRef, s: Setting) -> str | None:
    """Why a setting is refused (its sketches would not fit the server's memory), or None."""
    cost = estimate(ref, s)
    if cost["nonzeros"] <= MAX_SKETCH_NONZEROS:
        return None
    return (f"K={s.K}, N={s.N} would give about {cost['nonzeros']:,} non-zeros in the sketches of these sets, more "
            f"than the lab keeps ({MAX_SKETCH_NONZEROS:,}); lower N (or K).")


def compute(ref: DataRef, s: Setting) -> None:
    """Compute what :func:`pending` names and keep it for every session."""
    vectors_of(ref, s.vectors)
    for each in dict.fromkeys((s, s.geometry())):  # the sketch shown and the raw one the buckets come from
        if (ref, each) in _HEAVY or estimate(ref, each)["seconds"] <= LIVE_SECONDS:
            continue
        t0 = time.perf_counter()
        model = _model(ref, each)
        t1 = time.perf_counter()
        S = model.sketch(weights(ref))
        _HEAVY.put((ref, each), {"model": model, "sketches": S, "fit_seconds": t1 - t0,
                                 "sketch_seconds": time.perf_counter() - t1})


# ------------------------------------------------------------------ the header


def big_number(n: int) -> str:
    """A count as the header shows it: with thousands separators below ten million, then as ``1.1e9``.

    >>> big_number(4096), big_number(2**30), big_number(3 * 10**13)
    ('4,096', '1.1e9', '3e13')
    """
    if n < 10**7:
        return f"{n:,}"
    mantissa, exponent = f"{n:.2g}".split("e")
    return f"{mantissa}e{int(exponent)}"


def share_text(part: int, whole: int) -> str:
    """A share as a percentage, or in scientific notation when it is below a thousandth.

    >>> share_text(119, 256), share_text(79, 2**30)
    ('46.5%', 'a share of 7.4e-08')
    """
    share = part / whole if whole else 0.0
    return f"{100 * share:.3g}%" if share >= 1e-3 else f"a share of {share:.1e}"


@st.cache_data(max_entries=64, show_spinner=False)
def summary(ref: DataRef, s: Setting) -> dict:
    """The figures above the tabs: items, sets, sketch width, occupied buckets, fit + sketch time."""
    data = item_sets(ref)
    fit_s = _fit(ref, s)[1]
    sketch_s = _sketch(ref, s)[1]
    model = fitted(ref, s)
    return {
        "items": len(data.items),
        "sets": len(data.sets),
        "width": s.N * 2**s.K,
        "occupied": core.occupied_buckets(model),
        "columns": int(model.n_features_out_),
        "milliseconds": (fit_s + sketch_s) * 1000,
        "description": data.description,
        "dimensions": int(vectors_of(ref, s.vectors).shape[1]),
        "vectors": vectors_label(ref, s.vectors),
        "unused": int((np.asarray(weights(ref).sum(axis=0)).ravel() == 0).sum()),
    }


# ------------------------------------------------------------------ 1. buckets


@st.cache_resource(max_entries=8, show_spinner=False)
def _view(ref: DataRef, vectors: str) -> core.ItemView:
    return core.item_view(vectors_of(ref, vectors))


@st.cache_data(max_entries=8, show_spinner=False)
def item_map(ref: DataRef, vectors: str = "data") -> dict:
    """The items on a plane (their PCA plane above two dimensions), with their names."""
    data = item_sets(ref)
    view = _view(ref, vectors)
    return {"coords": view.coords, "names": list(map(str, data.items)), "projected": view.projected,
            "dimensions": int(vectors_of(ref, vectors).shape[1])}


def item_space(ref: DataRef, vectors: str = "data"):
    """The item vectors: the original space of the item map (a PCA plane above two dimensions)."""
    return vectors_of(ref, vectors)


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
def buckets(ref: DataRef, s: Setting, partition: int) -> dict:
    """One partitioning on the item map: every item's bucket, and the hyperplanes' lines on the plane."""
    pv = core.partition_view(raw(ref, s), partition, _view(ref, s.vectors))
    return {"codes": pv.codes, "lines": pv.lines, "occupied": pv.occupied}


# ------------------------------------------------------------------ 2. one set


@st.cache_data(max_entries=32, show_spinner=False)
def one_set(ref: DataRef, s: Setting, i: int) -> dict:
    """Set ``i``: its title, its sketch as an N x 2**K grid, the density it implies on every item, its items."""
    data = item_sets(ref)
    model = fitted(ref, s)
    row = sketches(ref, s)[[i], :]
    label = f" ({data.labels[i]})" if data.labels is not None else ""
    if s.drop:
        grid, codes = core.occupied_grid(model, row)
        shown = max(1, min(s.N, HEATMAP_CELLS // max(grid.shape[1], 1)))
    else:  # only the partitionings the heatmap shows are laid out
        shown = max(1, min(s.N, HEATMAP_CELLS // 2**s.K))
        grid, codes = core.sketch_grid(model, row, n_rows=shown), None
    return {
        "title": f"set {i}{label}: {len(data.sets[i])} items",
        "grid": grid[:shown],
        "codes": None if codes is None else codes[:shown],
        "partitions_shown": shown,
        "density": model.decode(row),  # the fitted items, from their stored codes
        "members": weights(ref)[[i], :].indices,
    }


# ------------------------------------------------------------------ 3. additivity


@st.cache_data(max_entries=32, show_spinner=False)
def additivity(ref: DataRef, s: Setting, a: int, b: int) -> dict:
    """Raw count sketches of sets a, b and their pooled multiset, in the buckets either touches."""
    check = core.additivity(raw(ref, s), weights(ref), a, b)
    return {"max_difference": check.max_difference, "touched": len(check.table),
            "table": check.table.iloc[:ADDITIVITY_COLUMNS]}


# ------------------------------------------------------------------ 4. K and N


def stats_partitions(N: int) -> int:
    """The partitionings the K-and-N statistics are measured with: N, at most :data:`STATS_PARTITIONS`."""
    return min(int(N), STATS_PARTITIONS)


def bucket_stats(ref: DataRef, N: int, offsets: str, vectors: str = "data") -> pd.DataFrame:
    """Bucket statistics for every K worth measuring on these items, with N partitionings (at most 64)."""
    return _bucket_stats(ref, stats_partitions(N), offsets, vectors)


@st.cache_data(max_entries=16, show_spinner=False)
def _bucket_stats(ref: DataRef, partitions: int, offsets: str, vectors: str) -> pd.DataFrame:
    """Keyed on the partitionings measured, so every N from 64 up shares one table."""
    X = vectors_of(ref, vectors)
    stats = core.bucket_statistics(X, core.statistics_grid(len(X)), partitions, offsets=offsets,
                                   random_state=ref.seed)
    return stats.round(3)


# ------------------------------------------------------------------ the tour's facts


@st.cache_data(max_entries=32, show_spinner=False)
def tour_facts(ref: DataRef, s: Setting, a: int, b: int) -> dict:
    """What the tour's sentences say, measured on this setting (plain numbers, for :func:`app.ui.tour.tell`).

    The buckets of the setting's hyperplanes: ``occupied`` of ``width``, ``per_bucket`` items per occupied bucket
    (over every partitioning), ``per_partition`` occupied buckets per partitioning, the ``largest`` bucket, the
    items ``alone`` in theirs, the items ``told_apart`` (a code no other item has), the most ``regions`` K planes
    make in the items' ``dims`` dimensions, and how often near and random pairs share a bucket (``near``,
    ``far``). Additivity of sets ``a`` and ``b``: ``max_difference`` over the ``touched`` buckets. The K and N
    tab's curves (``curve_*``): near and random pairs' sharing at the first and last K, and the K where the curves
    are furthest apart and closest.
    """
    info = summary(ref, s)
    model = raw(ref, s)
    X = vectors_of(ref, s.vectors)
    sizes = core.bucket_sizes(model)
    near, far = core.pair_sharing(model.item_codes_, core.sharing_pairs(X, random_state=ref.seed))
    check = additivity(ref, s.geometry(), a, b)
    curves = bucket_stats(ref, s.N, s.offsets, s.vectors)
    apart = curves["near_share"] - curves["far_share"]
    first, last = curves.iloc[0], curves.iloc[-1]
    return {
        "K": s.K, "N": s.N, "items": int(info["items"]), "dims": int(X.shape[1]), "width": int(info["width"]),
        "columns": int(info["columns"]), "occupied": int(sizes.size),
        "per_bucket": float(sizes.mean()), "per_partition": float(sizes.size / s.N),
        "largest": int(sizes.max()), "alone": int((sizes == 1).sum()),
        "told_apart": core.items_told_apart(model), "regions": core.max_regions(s.K, X.shape[1]),
        "near": near, "far": far,
        "add_a": int(a), "add_b": int(b), "max_difference": float(check["max_difference"]),
        "touched": int(check["touched"]),
        "curve_partitions": stats_partitions(s.N),
        "curve_k_first": int(first["K"]), "curve_k_last": int(last["K"]),
        "curve_near_first": float(first["near_share"]), "curve_near_last": float(last["near_share"]),
        "curve_far_first": float(first["far_share"]), "curve_far_last": float(last["far_share"]),
        "curve_apart_k": int(curves["K"][apart.idxmax()]), "curve_apart": float(apart.max()),
        "curve_close_k": int(curves["K"][apart.idxmin()]), "curve_close": float(apart.min()),
        "curve_always_apart": bool((apart > 0).all()),
    }


# ------------------------------------------------------------------ 5. benchmark


@st.cache_data(max_entries=8, show_spinner=False)
def classes(ref: DataRef) -> dict:
    """Whether the sets can be classified: how many labels, and the smallest class's size."""
    labels = item_sets(ref).labels
    if labels is None:
        return {"labels": 0, "smallest": 0}
    counts = pd.Series(labels).value_counts()
    return {"labels": int(counts.size), "smallest": int(counts.min())}


def vector_kinds(ref: DataRef) -> tuple[str, str]:
    """The item vectors the benchmark builds on, both learned inside each training fold when learned at all: the
    posts' PMI-SVD vectors trained again on the training posts (the data's own vectors saw every post), or the
    data's given vectors; and Word2Vec trained on the training sets."""
    return ("pmi" if ref.source == "newsgroup_words" else "given", "word2vec")


def kind_label(kind: str | None) -> str:
    """How the benchmark names a kind of item vectors."""
    return {"pmi": "PMI-SVD (in fold)", "given": "as given", "word2vec": "Word2Vec (in fold)", None: "none"}[kind]


def benchmark_jobs(ref: DataRef) -> list[tuple[tuple, str | None]]:
    """Every (encoding, item vectors) pair the benchmark scores: EMDE and the mean vector on each kind of item
    vectors, the bag of items (which uses no vectors) once."""
    encodings = [e for e in core.set_encodings(GRID) if e[0] != "one-hot"]
    return [(e, v) for v in vector_kinds(ref) for e in encodings] + [(("one-hot",), None)]


def benchmark_names() -> list[str]:
    """The encodings the benchmark compares, as its table names them."""
    return [core.encoding_name(e) for e in core.set_encodings(GRID)]


def _side_name(encoding: tuple, kind: str | None) -> str:
    name = core.encoding_name(encoding)
    return name if kind is None else f"{name} · {kind_label(kind)}"


@st.cache_resource(max_entries=4, show_spinner=False)
def _bench(ref: DataRef) -> core.SetBenchmark:
    """Item vectors and encodings per training part, shared by every row of the benchmark on these data."""
    data = item_sets(ref)
    makers = core.item_vector_makers(data.items, data.sets, data.vectors, kinds=vector_kinds(ref),
                                     random_state=ref.seed)
    return core.SetBenchmark(weights(ref), data.labels, makers, random_state=ref.seed)


def _protocol(sides, ref: DataRef, progress=None):
    from embedcore.evaluation import compare

    return compare(sides, len(item_sets(ref).labels), y=item_sets(ref).labels, n_splits=5, inner_splits=1,
                   random_state=ref.seed, bounds=(0.0, 1.0), pairs=[], progress=progress)


@st.cache_data(max_entries=256, show_spinner=False)
def _side_folds(ref: DataRef, encoding: tuple, kind: str | None) -> tuple[pd.DataFrame, str, int]:
    """One row's folds under the protocol (the same folds for every row of these data), its protocol text and its
    width on the first training fold."""
    bench = _bench(ref)
    result = _protocol([bench.side(_side_name(encoding, kind), encoding, kind)], ref)
    return result.folds, result.protocol, int(bench.features(encoding, kind, result.splits[0][0]).shape[1])


def _table(parts: list[tuple[pd.DataFrame, str, int, str, str]], ref: DataRef):
    """The benchmark's Comparison and its table: best first, ties with the best marked."""
    from embedcore.evaluation import ranking, summarise

    folds = pd.concat([p[0] for p in parts], ignore_index=True)
    splits = _splits(ref)
    result = summarise(folds, parts[0][1], splits, pairs=[], bounds=(0.0, 1.0))
    ranked = ranking(result)
    info = {p[0]["side"].iloc[0]: p[2:] for p in parts}
    table = pd.DataFrame({
        "rank": ranked["rank"], "features": [info[n][1] for n in ranked["side"]],
        "item vectors": [info[n][2] for n in ranked["side"]], "accuracy": ranked["held-out"].round(4),
        "low": ranked["low"].round(4), "high": ranked["high"].round(4), "vs best": ranked["vs best"],
        "best − this row [95% interval]": [
            "" if m == "best" else f"{d:.4f} [{lo:.4f}, {hi:.4f}]" for m, d, lo, hi in zip(
                ranked["vs best"], ranked["best minus it"], ranked["best minus it, low"], ranked["best minus it, high"])],
        "C": ranked["chosen"].str.removeprefix("C="), "chosen in": ranked["chosen in"],
        "C searched": ranked["grid"].str.split("; C in ").str[-1], "C on the grid's edge": ranked["edge"] != "",
        "dim": [info[n][0] for n in ranked["side"]]})
    return result, table


def _splits(ref: DataRef) -> list:
    from embedcore.evaluation import outer_splits

    labels = item_sets(ref).labels
    return outer_splits(len(labels), labels, 5, 1, ref.seed)


def benchmark(ref: DataRef, upload: SketchUpload | None = None) -> pd.DataFrame | None:
    """The benchmark table for these data, if any session has run it (else None).

    With an upload whose row has been scored, that row is in the table too (ranked with the rest).
    """
    found = _BENCHMARKS.get((ref, GRID))
    row = _UPLOADED_ROWS.get((ref, upload.digest)) if upload is not None else None
    if found is None:
        return None
    parts = found if row is None else [*found, row]
    return _table(parts, ref)[1]


def benchmark_protocol(ref: DataRef) -> str | None:
    """The protocol text of the benchmark on these data, once it has run."""
    found = _BENCHMARKS.get((ref, GRID))
    return None if found is None else found[0][1]


def upload_scored(ref: DataRef, upload: SketchUpload) -> bool:
    """Whether the uploaded sketches already have their benchmark row."""
    return (ref, upload.digest) in _UPLOADED_ROWS


def run_benchmark(ref: DataRef, progress: Callable[[float, str], None] | None = None,
                  upload: SketchUpload | None = None) -> pd.DataFrame:
    """Run (or finish) the benchmark under the lab's protocol: each row's folds are cached, the table is shared.

    ``progress(fraction, name)`` is called after each row; a run that is
    interrupted keeps the rows it finished for the next one. Uploaded
    sketches that fit the sets (see :func:`uploaded_sketches`) are scored
    last, on the same folds with the same C search.
    """
    jobs = benchmark_jobs(ref)
    scored = upload is not None and uploaded_sketches(ref, upload)["error"] is None
    total = len(jobs) + scored
    parts = []
    for n, (encoding, kind) in enumerate(jobs, start=1):
        folds, protocol, dim = _side_folds(ref, encoding, kind)
        parts.append((folds, protocol, dim, core.encoding_name(encoding), kind_label(kind)))
        if progress is not None:
            progress(n / total, _side_name(encoding, kind))
    _BENCHMARKS.put((ref, GRID), parts)
    if scored:
        key = (ref, upload.digest)
        if key not in _UPLOADED_ROWS:
            got = _read_upload(upload.digest, upload)[0]
            bench = _bench(ref)
            result = _protocol([bench.features_side(got.label, got.sketches)], ref)
            _UPLOADED_ROWS.put(key, (result.folds, result.protocol, bench.widths[got.label], got.label, "items.npy"))
        if progress is not None:
            progress(1.0, _UPLOADED_ROWS.get(key)[3])
    return benchmark(ref, upload)


# ------------------------------------------------------------------ 5a. the authors' advice, measured


def advice_key(ref: DataRef, what: str) -> tuple:
    return ("advice", ref, what)


def advice(ref: DataRef, what: str):
    """The width ("width") or normalisation ("norm") experiment's Comparison if any session has run it."""
    return _BENCHMARKS.get(advice_key(ref, what))


def run_advice(ref: DataRef, what: str, progress=None):
    """Measure the EMDE authors' advice on these sets under the protocol, on the first kind of item vectors:
    ``"width"``: K against N at a fixed budget of N x 2**K buckets, each K against K=7 (128 buckets a
    partitioning, the advice); ``"norm"``: L2 against max normalisation, of the whole sketch or per
    partitioning, at K=7. Kept for every session."""
    key = advice_key(ref, what)
    if key not in _BENCHMARKS:
        bench, kind = _bench(ref), vector_kinds(ref)[0]
        if what == "width":
            sides = core.width_sides(bench, kind, WIDTH_BUDGET, WIDTH_KS)
            advised = next(s.name for s in sides if s.name.startswith("K=7,"))
            pairs = [(s.name, advised) for s in sides if s.name != advised]
        else:
            sides = core.norm_sides(bench, kind)
            pairs = [(sides[0].name, sides[1].name), (sides[2].name, sides[3].name), (sides[0].name, sides[2].name)]
        from embedcore.evaluation import compare

        labels = item_sets(ref).labels
        _BENCHMARKS.put(key, compare(sides, len(labels), y=labels, n_splits=5, inner_splits=1, random_state=ref.seed,
                                     bounds=(0.0, 1.0), pairs=pairs, progress=progress))
    return _BENCHMARKS.get(key)


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
    data, W, X = item_sets(ref), weights(ref), vectors_of(ref, s.vectors)
    command = handover.sketch_command(s.K, s.N, seed=ref.seed, offsets=s.offsets, weighting=weighting,
                                      weighted=handover.needs_weights(W))
    if s.drop:  # the same occupied-bucket columns as the page's sketch
        first, _, rest = command.partition("\n")
        command = first.replace(" --out ", " --drop-empty --out ", 1) + "\n" + rest
    # written when a button is pressed, from the data cached now: the functions need no session of their own
    return CommandInput(items=lambda: handover.items_npy(X), sets=lambda: handover.sets_csv(W, data.labels),
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
    params = {"K": s.K, "N": s.N, "offsets": s.offsets, "weighting": s.weighting, "norm": norm_label,
              "norm_scope": s.scope, "drop_empty": s.drop, "item_vectors": s.vectors, "seed": ref.seed,
              "data": ref.source}

    def columns() -> list[str]:  # named only when a file is asked for: N·2^K names at the fixed width
        return [str(c) for c in model.get_feature_names_out()]

    return SketchFiles(
        npz=lambda: core.sketches_npz(S, {**params, "columns": columns()}),
        csv=lambda: core.sketches_csv(S, columns(), params),
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
    if s.vectors == "word2vec":
        vectors = f"word2vec_item_vectors(data.items, data.sets, random_state={ref.seed})  # trained on the sets"
    else:
        vectors = "data.vectors"
    code = f"""
        from embedcore.emde import EMDE, word2vec_item_vectors

        model = EMDE(n_hyperplanes={s.K}, n_partitions={s.N}, offsets={s.offsets!r}, weighting={s.weighting!r},
                     norm={s.norm!r}, norm_scope={s.scope!r}, drop_empty={s.drop}, random_state={ref.seed})
        W = data.weight_matrix()  # sets x items
        X = {vectors}
        model.fit(X, sets=W if {s.weighting!r} == "tfidf" else None)
        S = model.sketch(W).tocoo()
        result = {{"sketch_rows": S.row, "sketch_columns": S.col, "sketch_values": S.data,
                  "item_codes": np.asarray(model.item_codes_)}}
        """
    return Recipe("sets", f"EMDE sketches (K={s.K}, N={s.N})", arrays, s._asdict(), ref, code,
                  compare={"sketch_values": "close"}, rtol=1e-9, atol=1e-12)
