"""The Maps page's computations, cached: a person's vectors (the columns she chose, every row up to a sample
size), their map by a chosen method, its trustworthiness and its labelled clusters.

Keys are the data's reference, the chosen columns, the rows (all, or the ids of an isolated selection), the
method and its settings: a colour, a search or a filter change none of them, so they redraw without computing.
"""

from __future__ import annotations

import hashlib
import re
import time
from typing import NamedTuple

import numpy as np
import pandas as pd
import streamlit as st

from app.services import data as data_service
from app.services import live, reproduce
from app.services.shared import store
from embedcore import compare, explore, maps, metrics
from embedcore.exceptions import DataError
from embedcore.manifold import rescale_for_distances, sample_indices

#: Rows Isomap and LLE map at most (the exact neighbours of 100,000 rows of 64 numbers take 40 s before either
#: starts, and LLE's eigenproblem two minutes more; Isomap's paths come from landmarks past 3,000); a larger
#: table is mapped on a seeded sample of this many, and the page says so. PCA and given coordinates draw every row
#: the file gave.
SAMPLE = 20_000
#: Rows t-SNE (openTSNE's FFT gradients and approximate neighbours) and UMAP map at most, live.
LIVE_SAMPLE = 100_000
#: The map drawn from two of the table's own columns (an x and a y computed beforehand).
GIVEN = "Given x, y"
#: The methods offered, by what the page calls them, and each one's settings with (low, default, high, step).
#: A setting given as a list is a choice among its values (the first is the default).
METHODS = {
    "PCA": ("pca", {}),
    GIVEN: ("given", {}),
    "t-SNE": ("tsne", {"perplexity": (5.0, 30.0, 100.0, 1.0), "exaggeration": (1.0, 1.0, 4.0, 0.5),
                       "init": ["pca", "random"]}),
    "UMAP": ("umap", {"n_neighbors": (2, 15, 100, 1), "min_dist": (0.0, 0.1, 0.99, 0.01),
                      "init": ["spectral", "pca", "random"]}),
    "Isomap": ("isomap", {"n_neighbors": (3, 12, 60, 1)}),
    "LLE": ("lle", {"n_neighbors": (3, 12, 60, 1)}),
}
#: The setting a sweep varies for each method, and the values it maps at (with the map's own value, each capped by
#: what the rows allow).
SWEEPS = {"t-SNE": ("perplexity", (5.0, 15.0, 30.0, 50.0, 100.0)), "UMAP": ("n_neighbors", (5, 10, 15, 30, 50))}
#: How distances between rows are measured: as they are, or between the rows scaled to length 1 (cosine).
METRICS = ("euclidean", "cosine")
#: The colour choice that colours each point by its neighbour recall (the vectors' neighbours kept on the map).
RECALL = "(neighbour recall)"
#: Neighbours for trustworthiness and recall.
TRUST_K = 10
#: t-SNE's threads: one, as on the Words page (on a busy two-core server a two-thread gradient waits on itself).
TSNE_JOBS = 1
#: Finished t-SNE maps, shared by every session; a session's live run and what it stopped at.
TSNE_MAPS = store("maps.tsne", max_entries=16)
LIVE = live.LiveMaps("maps", TSNE_MAPS)
#: Points past which trustworthiness is computed on a seeded sample (it compares every pair's ranks).
TRUST_SAMPLE = 5_000
#: Rows past which neighbour recall finds the vectors' neighbours approximately (NN-descent: 7 s instead of 46 s
#: on 100,000 x 64), and the rows of the sample its exact figure is checked on.
RECALL_EXACT = 20_000
RECALL_CHECK = 2_000


class Table(NamedTuple):
    """The vectors and their metadata as the page uses them: the chosen columns of every kept row."""

    X: np.ndarray
    meta: pd.DataFrame
    columns: list[str]
    all_columns: list[str]
    rows: np.ndarray  # positions in the file's rows, after the sample
    total: int  # rows the file gave


def usable(data) -> str | None:
    """Why an upload cannot be mapped here (None when it can)."""
    if data.X.shape[0] < 3:
        return f"it holds {data.X.shape[0]} vector(s); a map needs at least 3 rows."
    if data.X.shape[1] < 2:
        return "its vectors have one number each; a map needs at least 2 columns of numbers."
    return None


def _meta(data) -> pd.DataFrame:
    n = len(data.X)
    meta = data.meta.reset_index(drop=True) if data.meta is not None else pd.DataFrame(index=range(n))
    if meta.shape[1] == 0:
        meta = pd.DataFrame({"row": np.arange(1, n + 1)})
    for column in meta.columns:  # numbers a reader kept as text beside a list column colour by a bar again
        if meta[column].dtype == object:
            numbers = pd.to_numeric(meta[column], errors="coerce")
            if numbers.notna().sum() == meta[column].notna().sum() and numbers.notna().any():
                meta[column] = numbers
    return meta


@st.cache_resource(max_entries=4, show_spinner=False)
def table(ref: data_service.DataRef, columns: tuple[str, ...] | None) -> Table:
    """The chosen vector columns (None: all) of every row the file gave; the numeric columns left out join the
    metadata. Shared, not copied, by every run that asks (a 250,000 x 256 table is half a gigabyte): read only."""
    data = data_service.load(ref)
    names = [str(c) for c in (data.columns or [f"v{j + 1}" for j in range(data.X.shape[1])])]
    chosen = names if not columns else [c for c in names if c in set(columns)]
    X = data.X[:, [names.index(c) for c in chosen]] if chosen != names else data.X
    meta = _meta(data)
    for c in names:  # a number column left out of the vector is metadata: it colours, sizes and filters
        if c not in chosen and c not in meta.columns:
            meta[c] = data.X[:, names.index(c)]
    # magnitudes past 1e±100 scaled by a power of two: squared distances would overflow (no map changes)
    # a big table read as float32 (a Parquet file of float32 columns) stays so: half the server's memory (and float32
    # cannot reach the magnitudes rescale_for_distances guards against)
    X = (np.ascontiguousarray(X) if X.dtype == np.float32
         else np.ascontiguousarray(rescale_for_distances(X), dtype=np.float64))
    X.flags.writeable = False
    return Table(X, meta, chosen, names, np.arange(len(X)), len(X))


def sample_cap(method: str) -> int | None:
    """Rows ``method`` maps at most (None: every row)."""
    name = METHODS[method][0]
    return None if name in ("pca", "given") else LIVE_SAMPLE if name in ("tsne", "umap") else SAMPLE


def mapped_rows(n: int, method: str, isolated, seed: int) -> tuple[tuple[int, ...] | None, bool]:
    """The rows the map holds (positions into :func:`table`'s rows; None: all) and whether they are a sample: the
    isolated rows when there are, else a seeded sample of :func:`sample_cap` rows when the table is larger."""
    if isolated is not None:
        return isolated, False
    cap = sample_cap(method)
    keep = None if cap is None else sample_indices(n, cap, random_state=seed)
    return (None, False) if keep is None else (tuple(int(r) for r in np.sort(keep)), True)


#: How a column pair that is a map computed beforehand is named: x and y after a common prefix (umap_x, umap_y;
#: "tsne x"), or a method's name with 1 and 2 or 0 and 1 (umap1, umap2; tsne_0, tsne_1).
_XY = re.compile(r"^(.*?[ _.-]?)(x|y)$", re.I)
_MAP_PAIR = re.compile(r"^((?:umap|t-?sne|pca|mds|pc|dim|comp(?:onent)?)[ _.-]?)([0-2])$", re.I)


def _named_pair(names: list[str]) -> tuple[str, str] | None:
    low = {n.lower(): n for n in names}
    for n in names:
        m = _XY.match(n)
        if m and m.group(2).lower() == "x" and (not m.group(1) or m.group(1)[-1] in " _.-"):
            y = low.get((m.group(1) + "y").lower())
            if y is not None:
                return n, y
    for n in names:
        m = _MAP_PAIR.match(n)
        if m and m.group(2) in "01":
            y = low.get(f"{m.group(1)}{int(m.group(2)) + 1}".lower())
            if y is not None:
                return n, y
    return None


def coordinate_columns(names: list[str]) -> tuple[str, str]:
    """The two numeric columns a given map most likely is: a pair named as a map (x and y, umap_x and umap_y,
    tsne_1 and tsne_2), else the first two.

    Examples
    --------
    >>> coordinate_columns(["e0", "e1", "umap_x", "umap_y"]), coordinate_columns(["a", "TSNE-1", "tsne-2"])
    (('umap_x', 'umap_y'), ('TSNE-1', 'tsne-2'))
    >>> coordinate_columns(["v1", "v2", "box", "boy"])
    ('v1', 'v2')
    """
    return _named_pair(names) or (names[0], names[1])


def given_default(names: list[str]) -> bool:
    """Whether a table most likely holds a map already: exactly two numeric columns, or a pair named as a map."""
    return len(names) == 2 or _named_pair(names) is not None


def _given_xy(ref: data_service.DataRef, x: str, y: str, rows) -> np.ndarray:
    """Columns ``x`` and ``y`` of the file, at ``rows`` (positions; None: all), as the map's coordinates."""
    data = data_service.load(ref)
    names = [str(c) for c in (data.columns or [f"v{j + 1}" for j in range(data.X.shape[1])])]
    if x not in names or y not in names:
        raise ValueError(f"the file has no numeric column {x if x not in names else y!r}.")
    xy = np.column_stack([data.X[:, names.index(x)], data.X[:, names.index(y)]]).astype(np.float64)
    xy = rescale_for_distances(xy)  # magnitudes past 1e±100 scaled by a power of two, as the vectors are
    return xy if rows is None else xy[np.asarray(rows, dtype=np.int64)]


def keep_choice(key: str, options, default) -> None:
    """Put a control back to ``default`` when the data changed and its options no longer hold its value (another
    file's columns): set, not deleted, so the browser shows the new value instead of the old one or nothing."""
    value = st.session_state.get(key)
    if value is None:
        return
    held = set(map(str, options))
    values = value if isinstance(value, (list, tuple)) else [value]
    if not all(str(v) in held for v in values):
        st.session_state[key] = default


def vector_columns(names: list[str], left_out) -> tuple[str, ...] | None:
    """The vector's columns once ``left_out`` are taken away (None: all of them, also when fewer than 2 would be
    left)."""
    kept = tuple(c for c in names if c not in set(left_out))
    return None if len(kept) == len(names) or len(kept) < 2 else kept


def first_index(columns: list[str], wanted: list[str], offset: int = 1) -> int:
    """The position (after ``offset`` leading choices) of the first of ``columns`` that is in ``wanted``; 0 if none."""
    for i, c in enumerate(columns):
        if c in wanted:
            return i + offset
    return 0


def roles(meta: pd.DataFrame) -> dict[str, list[str]]:
    """Which metadata columns colour, label and filter (:func:`embedcore.explore.column_roles`)."""
    return explore.column_roles(meta)


@st.cache_resource(max_entries=8, show_spinner=False)
def table_roles(ref: data_service.DataRef, columns: tuple[str, ...] | None) -> dict[str, list[str]]:
    """:func:`roles` of :func:`table`'s metadata, found once per table (counting a million rows' values takes a
    quarter of a second)."""
    return roles(table(ref, columns).meta)


#: The legend entry for the categories past the commonest.
OTHER = explore.OTHER
category_groups = explore.category_groups
#: Rows past which clusters are found on a seeded sample (:data:`embedcore.explore.CLUSTER_SAMPLE`).
CLUSTER_SAMPLE = explore.CLUSTER_SAMPLE
filter_rows = explore.filter_rows
largest_perplexity = maps.largest_perplexity


def search(texts, query: str, regex: bool) -> tuple[np.ndarray, str | None]:
    """Positions of the texts the search finds, and a sentence when the search cannot run (a bad pattern)."""
    if not query:
        return np.zeros(0, dtype=np.int64), None
    try:
        return explore.search(texts, query, regex=regex), None
    except DataError as err:
        return np.zeros(0, dtype=np.int64), str(err)


def _key(rows) -> str:
    return "all" if rows is None else hashlib.sha1(np.asarray(rows, dtype=np.int64).tobytes()).hexdigest()[:16]


def rows_key(rows, keep=None) -> str:
    """What identifies the rows on the map: all or an isolated set, and the filter's mask."""
    return _key(rows) + ("" if keep is None else "/" + hashlib.sha1(np.packbits(keep).tobytes()).hexdigest()[:12])


@st.cache_data(max_entries=24, show_spinner=False)
def layout(ref: data_service.DataRef, columns: tuple[str, ...] | None, rows_key: str, _rows, method: str,
           params: tuple, _progress=None) -> tuple[np.ndarray, dict]:
    """The map of the table's rows (``_rows``: positions into :func:`table`'s rows, or None for all) by ``method``
    (a key of :data:`METHODS`) with ``params`` (name, value pairs): coordinates and what the method reports.
    ``_progress(fraction, text)`` hears how far an iterative method is (UMAP's epochs)."""
    kw = dict(params)
    name = METHODS[method][0]
    if name == "given":
        return _given_xy(ref, kw["x"], kw["y"], _rows), {"params": {"x": kw["x"], "y": kw["y"]}}
    X = in_metric(_rows_X(ref, columns, _rows), kw.pop("metric", "euclidean"))
    kw = _tsne_params(len(X), kw) if name == "tsne" else kw
    if name == "tsne":
        kw["n_jobs"] = TSNE_JOBS
    if "n_neighbors" in kw:
        kw["n_neighbors"] = int(min(int(kw["n_neighbors"]), len(X) - 1))
    result = maps.embed(X, name, random_state=ref.seed, progress=_progress, **kw)
    extra = {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in result.extra.items()}
    return result.coords, {"params": result.params, **extra}


class MapFailed(Exception):
    """A method could not map these vectors; the message says what to try."""


def in_metric(X: np.ndarray, metric: str) -> np.ndarray:
    """The rows as the chosen distance sees them: as they are (euclidean), or scaled to length 1 (cosine: on unit
    rows the squared euclidean distance is 2 - 2 cos, so every method's neighbours are the cosine neighbours). A
    row of zeros stays zeros."""
    if metric == "euclidean":
        return X
    if metric != "cosine":
        raise ValueError(f"metric must be one of {', '.join(METRICS)}; got {metric!r}.")
    norms = np.linalg.norm(X, axis=1, keepdims=True)
    return X / np.where(norms > 0, norms, 1.0)


def _tsne_params(n: int, params: dict) -> dict:
    """The page's t-SNE settings as :func:`embedcore.maps.embed` takes them (the metric taken out), the perplexity
    capped by ``n``."""
    kw = {k: v for k, v in dict(params).items() if k != "metric"}
    kw["perplexity"] = min(float(kw["perplexity"]), float(maps.largest_perplexity(n)))
    return kw


def _rows_X(ref, columns, rows) -> np.ndarray:
    t = table(ref, columns)
    return t.X if rows is None else t.X[np.asarray(rows, dtype=np.int64)]


def tsne_key(ref: data_service.DataRef, columns, rows, params: dict) -> tuple:
    """What identifies a t-SNE map: the data, its columns, its rows, the settings and the seed (``ref.seed``)."""
    return ("tsne", ref, columns, _key(rows), tuple(sorted(params.items())))


def start_tsne(ref: data_service.DataRef, columns, rows, params: dict) -> live.TsneJob:
    """Start this session's live t-SNE of the rows (its frames are drawn as it runs; Stop keeps the layout)."""
    X = in_metric(_rows_X(ref, columns, rows), params.get("metric", "euclidean"))
    return LIVE.start(tsne_key(ref, columns, rows, params), X, seed=ref.seed, name="maps-tsne",
                      n_jobs=TSNE_JOBS, **_tsne_params(len(X), params))


@st.cache_data(max_entries=8, show_spinner=False)
def tsne_start(ref: data_service.DataRef, columns, rows_key: str, _rows, metric: str) -> np.ndarray:
    """The rows' first two principal components: where openTSNE starts, drawn until its first layout."""
    return maps.embed(in_metric(_rows_X(ref, columns, _rows), metric), "pca", random_state=ref.seed).coords


def compute(ref, columns, rows, method: str, params: dict, progress=None) -> tuple[np.ndarray, dict]:
    """:func:`layout`, keyed by the rows' digest (a t-SNE drawn live, finished or stopped, is taken from where its
    run left it); :class:`MapFailed` when the method cannot map these vectors (all equal, duplicated for LLE, too
    few)."""
    found = LIVE.shown(tsne_key(ref, columns, rows, params)) if method == "t-SNE" else None
    try:
        if found is not None:
            coords, seconds = found
            extra = {"params": _tsne_params(len(coords), params), "seconds": seconds}
        else:
            coords, extra = layout(ref, columns, _key(rows), None if rows is None else tuple(int(r) for r in rows),
                                   method, tuple(sorted(params.items())), progress)
    except (ValueError, np.linalg.LinAlgError, FloatingPointError) as err:
        raise MapFailed(f"{method} could not map these vectors: {err} Try another method or leave columns "
                        "out of the vector.") from None
    if not np.isfinite(coords).all():
        raise MapFailed(f"{method} gave points without a place (NaN) for these vectors, which happens when the "
                        "rows are all alike. Try PCA, or leave columns out of the vector.")
    return coords, extra


@st.cache_data(max_entries=24, show_spinner=False)
def trust(ref: data_service.DataRef, columns, rows_key: str, method: str, params: tuple, _X, _Y) -> tuple[float, int]:
    """Trustworthiness at :data:`TRUST_K` of the map, on every point or a seeded sample of :data:`TRUST_SAMPLE`."""
    X, Y = np.asarray(_X), np.asarray(_Y)
    keep = sample_indices(len(X), TRUST_SAMPLE, random_state=ref.seed)
    if keep is not None:
        X, Y = X[keep], Y[keep]
    k = min(TRUST_K, max(1, (len(X) - 1) // 2 - 1))
    return float(metrics.trustworthiness(X, Y, k=k)), len(X)


@st.cache_data(max_entries=24, show_spinner=False)
def recall(ref: data_service.DataRef, columns, rows_key: str, method: str, params: tuple, _X, _Y) -> np.ndarray:
    """Each mapped point's neighbour recall at :data:`TRUST_K`: the share of its nearest rows in the vectors
    that are also its nearest on the map."""
    X, Y = np.asarray(_X), np.asarray(_Y)
    k = min(TRUST_K, len(X) - 1)
    return np.asarray(metrics.neighbour_recall(X, Y, k=k, per_point=True, approximate=len(X) > RECALL_EXACT,
                                               random_state=ref.seed), dtype=np.float64)


@st.cache_data(max_entries=24, show_spinner=False)
def recall_error(ref: data_service.DataRef, columns, rows_key: str, method: str, params: tuple, _X, _Y) -> dict | None:
    """What the approximate neighbours of :func:`recall` cost, on a seeded sample of :data:`RECALL_CHECK` rows
    (:func:`embedcore.metrics.recall_on_sample`); None when the recall was exact."""
    X, Y = np.asarray(_X), np.asarray(_Y)
    if len(X) <= RECALL_EXACT:
        return None
    return metrics.recall_on_sample(X, Y, k=min(TRUST_K, len(X) - 1), size=RECALL_CHECK, random_state=ref.seed)


@st.cache_data(max_entries=24, show_spinner=False)
def clusters(ref: data_service.DataRef, columns, rows_key: str, method: str, params: tuple, label_column: str | None,
             where: str, words: bool, _Y, _labels, _X=None) -> tuple[np.ndarray, pd.DataFrame]:
    """HDBSCAN's clusters of the map (``where`` "map") or of the vectors ``_X`` ("vectors"), each named by the
    most common value of ``label_column`` or, with ``words``, its texts' most distinctive words."""
    return explore.cluster_map(np.asarray(_Y), None if _labels is None else list(_labels),
                               space=None if where == "map" else np.asarray(_X), words=words)


def contours(Y) -> list:
    """Lines of equal density of the map as drawn (:func:`embedcore.explore.density_contours`), keyed by its
    coordinates' bytes: the same map turned onto another one on screen has its lines turned with it."""
    Y = np.ascontiguousarray(Y, dtype=np.float64)
    return _contours(hashlib.sha1(Y.tobytes()).hexdigest(), Y)


@st.cache_data(max_entries=24, show_spinner=False)
def _contours(digest: str, _Y) -> list:
    return explore.density_contours(_Y)


def sweep_values(method: str, params: dict, n: int) -> tuple[str, tuple] | None:
    """The setting a sweep of ``method`` varies on ``n`` rows and its values (the map's own among them), or None
    when the method has no sweep or the rows allow fewer than 3 values."""
    if method not in SWEEPS:
        return None
    name, base = SWEEPS[method]
    lo = METHODS[method][1][name][0]
    cap = maps.largest_perplexity(n) if name == "perplexity" else n - 1
    kind = type(base[0])
    values = sorted({kind(min(v, cap)) for v in base if lo <= min(v, cap)} | {kind(params[name])})
    return (name, tuple(values)) if len(values) >= 3 else None


def aligned_sweep(frames, at: int, drawn) -> list[np.ndarray]:
    """A sweep's maps as drawn: the one at ``at`` (the page's own setting) turned onto the map on screen, each
    other onto its neighbour (:func:`embedcore.compare.align_sequence`)."""
    return compare.align_sequence(frames, at, drawn)


def sweep_key(ref: data_service.DataRef, columns, rows, method: str, params: dict) -> tuple:
    """What identifies a sweep: everything of the map but the value of the setting it varies."""
    name = SWEEPS[method][0]
    return ("sweep", ref, columns, _key(rows), method, tuple(sorted((k, v) for k, v in params.items() if k != name)))


def sweep_map(ref: data_service.DataRef, columns, rows, method: str, params: dict, value,
              progress=None) -> np.ndarray:
    """The map at one value of the swept setting: the same cached computation as the page's own map (a t-SNE goes
    to the store its live runs fill, so moving the page's slider to a swept value draws it at once)."""
    name = SWEEPS[method][0]
    chosen = {**params, name: value}
    if method == "t-SNE" and LIVE.shown(tsne_key(ref, columns, rows, chosen)) is None:
        t = time.perf_counter()
        coords = compute(ref, columns, rows, method, chosen, progress)[0]
        TSNE_MAPS.put(tsne_key(ref, columns, rows, chosen), (coords, time.perf_counter() - t))
        return coords
    return compute(ref, columns, rows, method, chosen, progress)[0]


def recipe(ref: data_service.DataRef, columns, method: str, params: dict, isolated) -> reproduce.Recipe:
    """The map as computed (every row, the method's sample, or the isolated rows), and the embedcore code that
    computes it again."""
    t = table(ref, columns)
    rows, _ = mapped_rows(len(t.rows), method, isolated, ref.seed)
    coords, _ = compute(ref, columns, rows, method, params)
    isolated = None if isolated is None else [int(r) for r in isolated]
    name = METHODS[method][0]
    chosen = None if not columns else list(t.columns)
    metric = params.get("metric", "euclidean")
    settings = {k: v for k, v in params.items() if k != "metric"}
    cap = sample_cap(method)
    if name == "given":
        code = f"""
        from embedcore.manifold import rescale_for_distances

        names = [str(c) for c in data.columns]
        coords = np.column_stack([data.X[:, names.index({params["x"]!r})], data.X[:, names.index({params["y"]!r})]])
        coords = rescale_for_distances(coords)  # magnitudes past 1e+-100 scaled by a power of two, as the page does
        isolated = {isolated!r}  # the rows isolated on the page, or None
        result = {{"coords": coords if isolated is None else coords[isolated]}}
        """
    else:
        code = f"""
        from embedcore import maps
        from embedcore.manifold import rescale_for_distances, sample_indices

        X, names = data.X, [str(c) for c in data.columns]
        chosen = {chosen!r}  # the vector columns the page used (None: all)
        if chosen is not None:
            X = X[:, [names.index(c) for c in chosen]]
        X = rescale_for_distances(X)  # magnitudes past 1e+-100 scaled by a power of two, as the page does
        isolated = {isolated!r}  # the rows isolated on the page, or None
        if isolated is not None:
            X = X[isolated]
        elif {cap!r} is not None:  # the page's seeded sample of larger tables for this method
            keep = sample_indices(len(X), {cap!r}, random_state={ref.seed})
            X = X if keep is None else X[np.sort(keep)]
        if {metric!r} == "cosine":  # every row scaled to length 1: euclidean neighbours are then cosine neighbours
            norms = np.linalg.norm(X, axis=1, keepdims=True)
            X = X / np.where(norms > 0, norms, 1.0)
        result = {{"coords": maps.embed(np.ascontiguousarray(X, dtype=np.float64), {name!r}, random_state={ref.seed},
                                        **{settings!r}).coords}}
        """
    exact = {"pca": "columns up to sign", "isomap": "columns up to sign", "lle": "columns up to sign",
             "given": "exact"}.get(name, "close")
    return reproduce.Recipe("maps", f"{method} map", {"coords": coords}, {"method": name, **params,
                            "columns": chosen, "largest sample": cap, "isolated rows": isolated}, ref, code,
                            compare={"coords": exact}, rtol=1e-4, atol=1e-6)
