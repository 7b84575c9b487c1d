"""Cached stages for the Manifolds page, each keyed on what identifies the points and that stage's parameters.

The points once per data set (a :class:`Points`: the DataRef, and for a
generated manifold its size and noise), the neighbour table once at the
largest B, LLE once per (B, reg), the sweep once per reg, recall once per
(map, k). The seed is part of the DataRef, so every stage that draws at
random is keyed on it. All of it is shared by every session.

The other map methods run only from a button (t-SNE and UMAP take seconds);
their maps go to a store shared across sessions, where the page looks them up
without starting them: a second visitor with the same data and seed sees them.
t-SNE runs in a background thread (:class:`MethodRun`) whose latest layout the
page draws while it optimises.

The page works on up to :data:`SAMPLE` points; the sweep and the other methods
(Isomap's geodesic matrix, Hessian LLE, t-SNE) on a seeded sample of
:data:`HEAVY_POINTS` of them (:func:`heavy_rows`).
"""

from __future__ import annotations

import json
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pandas as pd
import streamlit as st

from app.services import ahead, threads, workers
from app.services import data as data_service
from app.services.reproduce import Recipe
from app.services.shared import store
from embedcore import datasets
from embedcore.compare import align_to
from embedcore.manifold import (
    LLEMap,
    SweepStep,
    allowed_k,
    closed_form_weights,
    lle_sweep,
    lle_with_quality,
    nearest_neighbors,
    neighbor_segments,
    reconstruction,
    rescale_for_distances,
    sample_indices,
    weight_invariance,
)
from embedcore.maps import METHODS, embed, largest_perplexity, method_defaults
from embedcore.metrics import DataRanks, far_neighbours, neighbour_recall, order_kept, trustworthiness

GENERATORS = {
    "swiss_roll": datasets.make_swiss_roll,
    "s_curve": datasets.make_s_curve,
    "severed_sphere": datasets.make_severed_sphere,
    "swiss_hole": datasets.make_swiss_hole,
}
#: The largest B offered; the neighbour table is computed once this wide.
MAX_B = 60
#: Most points the page works on (larger data are sampled with the seed): LLE at 100,000 points of a 3-D manifold
#: (B <= 13, :data:`LLE_BUDGET`) takes about 11 s and 0.8 GB; the comparison stays on :data:`HEAVY_POINTS`.
SAMPLE = 100_000
#: Points past which B's neighbours are not solved ahead (:func:`solve_ahead`): each solve is seconds of a core and
#: tens of MB held.
AHEAD_POINTS = 20_000
#: Points of a larger upload the page draws first (a seeded sample; the Points control raises it up to
#: :data:`SAMPLE`): the generated swiss roll's default size, so an upload's first map costs what the roll's does.
FIRST_SAMPLE = 1500
#: Fewer points than this leave LLE nothing to compare: the bottom of M is all there is.
MIN_POINTS = 10
#: The sweep's neighbourhood sizes: LLE tearing (small B), unrolling and folding (large B).
SWEEP_B = (3, 6, 9, 12, 20, 40)
#: LLE's matrix M = (I - W)^T (I - W) holds about n B^2 entries: B is capped so that n B^2 stays within what
#: 5,000 points at B = 60 cost (at 20,000 points B <= 30: LLE in about 3 s and 0.4 GB instead of 10 s and 0.85 GB).
LLE_BUDGET = 5000 * MAX_B**2
#: Most points of the sweep and of the method comparison (a seeded sample beyond): six LLEs with their
#: trustworthiness, Isomap's n x n geodesic distances and Hessian LLE grow too fast with n.
HEAVY_POINTS = 5000
#: Most points drawn in the rotatable 3-D view (a seeded sample beyond; every point is still in LLE and the map).
SHOWN_3D = 1500
#: The quality measures' k in titles and tables.
QUALITY_K = 10
#: Title of every map method, in the order the comparison shows them.
METHOD_TITLES = {"pca": "PCA", "lle": "LLE (ours)", "modified": "Modified LLE", "hessian": "Hessian LLE",
                 "ltsa": "LTSA", "isomap": "Isomap", "spectral": "Laplacian eigenmaps", "tsne": "t-SNE (openTSNE)",
                 "umap": "UMAP"}
#: The Quality tab's name for the page's own LLE map at the sidebar's B and reg.
CURRENT = "current"
#: Maps computed from the comparison's buttons, shared across sessions: (Points, method) -> result.
MAPS = store("manifolds.maps", max_entries=64)
#: Methods that failed on some points: (Points, method) -> message.
FAILED = store("manifolds.failed", max_entries=64)
#: The comparison's background runs, one per Points (see :class:`MethodRun`).
RUNS = store("manifolds.runs", max_entries=8)
#: LLE maps, solved or being solved: (Points, B, reg) -> Future of an LLEMap (see :func:`lle`).
SOLVED = store("manifolds.lle", max_entries=48)
_SOLVING = threading.Lock()
#: Where B one and two steps either side of the map on screen are solved (:func:`solve_ahead`): one map at a time.
_AHEAD = ahead.pool("manifolds-ahead")
#: The solves ahead handed to the pool and maybe not started: (key, future).
_QUEUED: list = []


class Points(NamedTuple):
    """What identifies the page's points: the data (kind, source, seed) and, for a generated
    manifold, its size and noise (noise 0 for bundled data and uploads). For an upload ``n`` is the
    sample size asked for (0: every row up to :data:`SAMPLE`)."""

    data: data_service.DataRef
    n: int = 0
    noise: float = 0.0

    @property
    def seed(self) -> int:
        return self.data.seed


@dataclass(frozen=True)
class PointSet:
    """The points LLE works on (read-only), their colour and where they came from."""

    X: np.ndarray
    colour: np.ndarray | None
    colour_label: str
    categorical: bool
    rows: int  # rows in the data before sampling

    @property
    def sampled(self) -> bool:
        return self.rows > len(self.X)


def input_problem(vdata) -> str | None:
    """Why these vectors cannot give a meaningful 2-D LLE map, in words the page shows; None when they can."""
    X = np.asarray(vdata.X)
    n = X.shape[0]
    if n < MIN_POINTS:
        return (f"LLE needs at least {MIN_POINTS} points to compare neighbourhoods; these data have {n}. "
                "Upload more rows.")
    if X.ndim != 2 or X.shape[1] < 2:
        return ("LLE unrolls a surface into a plane, and these data have a single column: they are already "
                "a line. Upload at least two numeric columns.")
    distinct = len(np.unique(X, axis=0))
    if distinct < MIN_POINTS:
        return (f"These data have only {distinct} distinct point{'s' if distinct != 1 else ''} among {n} rows; "
                f"LLE needs at least {MIN_POINTS}. Drop the repeated rows or upload more varied data.")
    return None


def is_generated(source: str) -> bool:
    return source in GENERATORS


def points(ref: data_service.DataRef, n: int = 0, noise: float = 0.0) -> Points:
    """The key of the page's points: a generator's size and noise count only for generated data, the
    sample size (``n``) only for an upload."""
    if ref.source in GENERATORS:
        return Points(ref, int(n), float(noise))
    if ref.source.startswith("upload:"):
        return Points(ref, int(n))
    return Points(ref)


def sample_size(p: Points) -> int:
    """Most rows of the data the page works on: the sample asked for an upload, else :data:`SAMPLE`."""
    return min(p.n, SAMPLE) if p.n and not is_generated(p.data.source) else SAMPLE


def row_count(ref: data_service.DataRef) -> int:
    """Rows of the data before sampling (for the Points control of a large upload)."""
    return len(data_service.load(ref).X)


def _frozen(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


@st.cache_resource(max_entries=8, show_spinner=False)
def point_set(p: Points) -> PointSet:
    """The points (generated, or loaded and sampled to :func:`sample_size` with the seed), rescaled if
    their magnitude would overflow distances. Shared, never mutated."""
    if p.data.source in GENERATORS:
        vdata = GENERATORS[p.data.source](n_samples=p.n, noise=p.noise, seed=p.seed)
    else:
        vdata = data_service.load(p.data)
    X, meta, rows = vdata.X, vdata.meta, len(vdata.X)
    keep = sample_indices(rows, sample_size(p), random_state=p.seed)
    if keep is not None:
        X = X[keep]
        meta = None if meta is None else meta.iloc[keep].reset_index(drop=True)
    colour, label = None, "t"
    if meta is not None and meta.shape[1]:
        label, colour = str(meta.columns[0]), _frozen(meta.iloc[:, 0].to_numpy())
    return PointSet(_frozen(np.array(rescale_for_distances(X), dtype=np.float64)), colour, label, is_label(colour),
                    rows)


#: A whole-number column with at most this many values is a label (classes), coloured with a legend.
LABEL_VALUES = 12


def is_label(values) -> bool:
    """Whether a colour column names classes (text, or a few whole numbers such as 0/1) rather than a quantity
    drawn on a colour bar: a two-class 0/1 column on a colour bar showed its two ends and no legend."""
    if values is None:
        return False
    values = np.asarray(values)
    if values.dtype.kind not in "fiu":
        return True
    if values.dtype.kind == "f" and not np.all(np.isfinite(values) & (values == np.round(values))):
        return False
    return len(np.unique(values)) <= LABEL_VALUES


def largest_b(p: Points) -> int:
    """The largest B these points allow: each point has n - 1 others, and n B^2 stays within :data:`LLE_BUDGET`."""
    n = len(point_set(p).X)
    return max(3, min(MAX_B, n - 1, int(np.sqrt(LLE_BUDGET / n))))


def b_limit_reason(p: Points) -> str:
    """Why B stops where it does, for the slider's help."""
    n = len(point_set(p).X)
    if largest_b(p) == n - 1:
        return f"each of the {n:,} points has {n - 1:,} others"
    if largest_b(p) < MAX_B:
        return f"on {n:,} points LLE's matrix grows as n B²; B is kept to {largest_b(p)} so it stays feasible"
    return ""


@st.cache_data(max_entries=16, show_spinner=False)
def graph_pairs(p: Points, B: int) -> np.ndarray:
    """The B-neighbour graph as (m, 2) point pairs, each joined pair once (int32)."""
    ind = neighbours(p)[:, :B]
    a = np.repeat(np.arange(len(ind), dtype=np.int64), ind.shape[1])
    b = ind.ravel().astype(np.int64)
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    return np.unique(np.column_stack([lo, hi]), axis=0).astype(np.int32)


@st.cache_resource(max_entries=8, show_spinner=False)
def heavy_rows(p: Points) -> np.ndarray | None:
    """The points the sweep and the comparison use: None for all, or a seeded sample of :data:`HEAVY_POINTS`."""
    keep = sample_indices(len(point_set(p).X), HEAVY_POINTS, random_state=p.seed)
    return None if keep is None else _frozen(keep)


def heavy_ids(p: Points) -> np.ndarray:
    """The ids (rows of the page's points) of the points the sweep and the comparison use."""
    keep = heavy_rows(p)
    return np.arange(len(point_set(p).X)) if keep is None else keep


def heavy_X(p: Points) -> np.ndarray:
    keep = heavy_rows(p)
    X = point_set(p).X
    return X if keep is None else X[keep]


@st.cache_resource(max_entries=8, show_spinner=False)
def neighbours(p: Points) -> np.ndarray:
    """Each point's neighbours, nearest first, as wide as the largest B: every B reads its first columns."""
    X = point_set(p).X
    if workers.WORKERS <= 0:
        return _frozen(nearest_neighbors(X, largest_b(p))[0])
    return _frozen(workers.call(workers.neighbours, X, largest_b(p)))  # a worker's: the lock stays with the pages


def _digest(X: np.ndarray) -> str:
    """The name a worker files these points' ranks under (:func:`app.services.workers.digest`)."""
    return workers.digest(X)


def neighbours_of(p: Points, B: int, point: int) -> np.ndarray:
    """The B nearest neighbours of ``point``, nearest first (from the table: no LLE needed)."""
    return neighbours(p)[point, :B]


def _solve(X, ind, B: int, reg: float, seed: int, k: int | None, ranks, ahead: bool = False) -> LLEMap:
    """One LLE map (no Streamlit call: it also runs in the background), with its trustworthiness when ``k`` is
    given. Solved in a worker process (:mod:`app.services.workers`; ``ahead``: the low-priority one), so the
    sessions drawing meanwhile keep the interpreter: with 30 sessions moving B the server used 0.9 of its two
    cores and a change took 5 s at the median with the solves in its own threads. ``ranks`` (the data's
    side of trustworthiness) serves only a solve in this process; a worker keeps its own."""
    if workers.WORKERS <= 0:
        out = lle_with_quality(X, ind, B, reg, random_state=seed, n_eigenvalues=8, quality_k=k, ranks=ranks)
    else:
        out = workers.call(workers.lle_map, X, np.ascontiguousarray(ind[:, :B]), B, reg, seed, k,
                           _digest(X), ahead=ahead)
    _frozen(out.embedding)
    _frozen(out.eigenvalues)
    return out


def lle(p: Points, B: int, reg: float) -> LLEMap:
    """LLE at (B, reg) with its weights and bottom eigenvalues. Shared by every session, never mutated.

    Solved once: a map asked for while it is being solved (by another session, or ahead by
    :func:`solve_ahead`) is waited for, not solved again; one queued ahead that has not started is
    taken out of the queue and solved here at once. A B the data cannot give raises the
    solver's ValueError, every time it is asked for. Its trustworthiness is a separate stage
    (:func:`trust`), so the page can send the map to the browser before measuring it.
    """
    key = (p, int(B), float(reg))
    with _SOLVING:
        job = SOLVED.get(key)
        if any(q[1] is job for q in _QUEUED) and job.cancel():  # queued ahead, not started: solved here, now
            _QUEUED[:] = [q for q in _QUEUED if q[1] is not job]
            job = None
        mine = job is None
        if mine:
            job = Future()
            SOLVED.put(key, job)
    if mine:
        _give_way()
        try:
            job.set_result(_solve(point_set(p).X, neighbours(p), B, reg, p.seed, None, None))
        except ValueError as err:
            job.set_exception(err)
        except BaseException as err:  # not a property of the data: the next ask solves it again
            _forget(key, job)
            job.set_exception(err)
            raise
    return job.result()


def _give_way() -> None:
    """Cancel the solves ahead that have not started: the person jumped elsewhere, and the map asked for now is
    solved at once instead of after them (a solve already running finishes)."""
    with _SOLVING:
        queued, _QUEUED[:] = list(_QUEUED), []
    for key, job in queued:
        if job.cancel():
            _forget(key, job)


def _forget(key, job) -> None:
    with _SOLVING:
        if SOLVED.get(key) is job:
            SOLVED.put(key, None)


#: The B solved ahead around the map on screen, in this order: one step either side first, then two, so a few
#: quick steps in one direction find their maps solved even where a solve takes longer than a step. After a
#: move up (down), the two steps further up (down) go first.
AHEAD = (1, -1, 2, -2)


def solve_ahead(p: Points, B: int, reg: float, moved: int = 0) -> None:
    """Solve B ± 1 and B ± 2 (with their trustworthiness) in the background while the map at B is on screen,
    the side B just ``moved`` to first (``moved``: the last change of B, 0 if none); after a jump (PageUp moves
    B by a tenth of its range), the same jump again comes before them. Solves queued before that have not started
    are queued again in this order, or dropped when they are no longer among these.

    A step of B with the arrow keys then shows its map without waiting for the solve: at 20,000 points the
    solve takes 0.6 s, more than the time between two quick steps, and the second step ahead is what keeps
    a run of steps ahead of it; a second PageUp finds its map solved the same way. One map at a time, shared by
    every session; a B already solved, or being solved, is not solved again; any other jump waits for its solve.
    """
    X, ind, k = point_set(p).X, neighbours(p), quality_k(p)
    ranks = data_ranks(p) if workers.WORKERS <= 0 else None  # a worker keeps its own
    order = ahead_order(moved)
    _give_way()  # what was queued and has not started: queued again below in this B's order, if still wanted
    for b in (B + d for d in order):
        key = (p, int(b), float(reg))
        if not 3 <= b <= largest_b(p):
            continue
        with _SOLVING:
            if SOLVED.get(key) is not None:
                continue
            job = _AHEAD.submit(_ahead, key, X, ind, b, reg, p.seed, k, ranks)
            SOLVED.put(key, job)
            _QUEUED[:] = [q for q in _QUEUED if not q[1].done()] + [(key, job)]


def ahead_order(moved: int) -> tuple[int, ...]:
    """The changes of B solved ahead, in order, after B last changed by ``moved`` (0: no change seen).

    >>> ahead_order(0), ahead_order(1), ahead_order(-1)
    ((1, -1, 2, -2), (1, 2, -1, -2), (-1, -2, 1, 2))
    >>> ahead_order(3)  # a PageUp: the next PageUp first
    (3, 1, 2, -1, -2)
    """
    if moved == 0:
        return AHEAD
    way = 1 if moved > 0 else -1
    steps = (way, 2 * way, -way, -2 * way)
    return steps if abs(moved) <= 2 else (int(moved),) + steps


def solve_ahead_of(p: Points, B: int, reg: float) -> None:
    """:func:`solve_ahead` for this session's page: after the last change of B, its direction (and a jump) first."""
    change = ahead.moved("man.ahead_from", p, B=B)
    if workers.busy():  # other sessions wait for their solves: a class, not one person stepping B; the
        return  # four solves ahead of each change would take four times the cores from them
    if len(point_set(p).X) > AHEAD_POINTS:
        return
    solve_ahead(p, B, reg, moved=0 if change is None else int(change[1]))


def _ahead(key, *args) -> LLEMap:
    try:
        return _solve(*args, True)  # on the low-priority worker
    except ValueError:
        raise
    except BaseException:
        _forget(key, SOLVED.get(key))
        raise


#: Neighbours of the Isomap drawn on every point (:func:`isomap_all`).
ISOMAP_K = 10


class WholeIsomap(NamedTuple):
    """Isomap of every point of the page (paths from landmarks): its map, fit time and trustworthiness, or why the
    neighbour graph allows none."""

    coords: np.ndarray | None
    seconds: float
    trustworthiness: float | None
    k: int
    error: str | None = None


@st.cache_resource(max_entries=4, show_spinner="Isomap of every point: paths from 100 landmarks ...")
def isomap_all(p: Points) -> WholeIsomap:
    """Isomap of all the page's points, however many (up to :data:`SAMPLE`), from the paths to 100 landmarks
    (:func:`embedcore.isomap.landmark_isomap`): 100,000 roll points in about 6 s. Shared by every session."""
    from embedcore.isomap import landmark_isomap

    X, k = point_set(p).X, quality_k(p)
    t = time.perf_counter()
    try:
        Y = landmark_isomap(X, ISOMAP_K, random_state=p.seed)
    except ValueError as err:
        return WholeIsomap(None, time.perf_counter() - t, None, k, str(err))
    seconds = time.perf_counter() - t
    return WholeIsomap(_frozen(Y), seconds, float(trustworthiness(X, Y, k, ranks=data_ranks(p))), k)


def quality_k(p: Points) -> int:
    """The k of the page's trustworthiness: :data:`QUALITY_K`, lowered below n/2 for small data."""
    return allowed_k(len(point_set(p).X), QUALITY_K)


@st.cache_resource(max_entries=8, show_spinner=False)
def data_ranks(p: Points) -> DataRanks:
    """The points' side of trustworthiness, prepared once for every map of them (shared, never mutated)."""
    return DataRanks(point_set(p).X)


@st.cache_data(max_entries=48, show_spinner=False)
def trust(p: Points, B: int, reg: float) -> float:
    """Trustworthiness (k = :func:`quality_k`) of the LLE map at (B, reg) (measured with the map when it was
    solved ahead)."""
    out = lle(p, B, reg)
    if out.trustworthiness is not None and out.quality_k == quality_k(p):
        return out.trustworthiness
    X = point_set(p).X
    if workers.WORKERS <= 0:
        return trustworthiness(X, out.embedding, quality_k(p), ranks=data_ranks(p))
    return workers.call(workers.trust, X, out.embedding, quality_k(p), _digest(X))


#: B of the tour's "unrolled" step: the reference the other steps' trustworthiness is told against.
TOUR_B = 12


@st.cache_data(max_entries=32, show_spinner=False)
def tour_facts(p: Points, B: int, reg: float) -> dict:
    """What the tour says of the map at (B, reg), measured: its trustworthiness, how well it keeps the order of
    the colour coordinate (the position along the roll), the share of its neighbour pairs from far along the
    manifold (a fold), how many graph edges join points that far apart, and trustworthiness at
    :data:`TOUR_B` and, for noisy generated points, without the noise."""
    data, out = point_set(p), lle(p, B, reg)
    facts = {"B": int(B), "trust": trust(p, B, reg), "order": order_kept(data.colour, out.embedding),
             "folded": far_neighbours(data.colour, out.embedding, quality_k(p))}
    across = 0
    if data.colour is not None and np.asarray(data.colour).dtype.kind in "fiu" and np.ptp(data.colour) > 0:
        t = np.asarray(data.colour, dtype=np.float64)
        pairs = graph_pairs(p, B)
        across = int(np.sum(np.abs(t[pairs[:, 0]] - t[pairs[:, 1]]) > 0.25 * np.ptp(t)))
    facts["across"] = across
    facts["trust_12"] = trust(p, TOUR_B, reg) if TOUR_B <= largest_b(p) else float("nan")
    if p.noise > 0:
        facts["trust_clean"] = trust(Points(p.data, p.n, 0.0), B, reg)
    return facts


@st.cache_resource(max_entries=8, show_spinner=False)
def input_view(p: Points) -> np.ndarray:
    """The points in 3-D for the input chart: the first three columns, zeros added below three."""
    X = point_set(p).X
    P = X[:, :3] if X.shape[1] >= 3 else np.column_stack([X, np.zeros((len(X), 3 - X.shape[1]))])
    return _frozen(np.ascontiguousarray(P))


@st.cache_resource(max_entries=8, show_spinner=False)
def shown_in_3d(p: Points) -> np.ndarray | None:
    """Which points the 3-D view draws: None for all, or a seeded sample of :data:`SHOWN_3D`."""
    keep = sample_indices(len(point_set(p).X), SHOWN_3D, random_state=p.seed)
    return None if keep is None else _frozen(keep)


@st.cache_data(max_entries=16, show_spinner=False)
def graph_segments(p: Points, B: int) -> np.ndarray:
    """The B-neighbour graph of the points the 3-D view draws, as one NaN-broken polyline (float32)."""
    return neighbor_segments(input_view(p), neighbours(p)[:, :B], rows=shown_in_3d(p)).astype(np.float32)


@st.cache_data(max_entries=64, show_spinner=False)
def inspection(p: Points, B: int, reg: float, point: int) -> dict:
    """How ``point`` is rebuilt from its B neighbours by the LLE weights at (B, reg)."""
    r = reconstruction(point_set(p).X, neighbours(p)[:, :B], lle(p, B, reg).weights, point)
    return {key: getattr(r, key) for key in ("neighbors", "weights", "error", "spread", "relative")}


#: The invariance check measures at most this many points (a random sample beyond it).
INVARIANCE_POINTS = 3000


@st.cache_data(max_entries=32, show_spinner=False)
def invariance(p: Points, B: int, reg: float, scale: float, shift: float) -> tuple[pd.DataFrame, int]:
    """The LLE weights' change under rotation, scaling, translation and a one-axis stretch, and the points measured."""
    X = point_set(p).X
    rows = sample_indices(len(X), INVARIANCE_POINTS, p.seed)
    if rows is not None:
        X = X[rows]
    table = weight_invariance(X, B, reg, scale=scale, shift=shift, random_state=p.seed)
    return table, len(X)


@st.cache_data(max_entries=64, show_spinner=False)
def closed_form(p: Points, B: int, reg: float, point: int) -> dict:
    """``point``'s weights by the closed form ``C^-1 1 / (1^T C^-1 1)`` beside the weights the LLE fit used.

    ``table`` has one row per neighbour (the fit's weight, the closed form's and their difference);
    ``largest`` is the largest absolute difference, ``ridge`` the regulariser added to C's diagonal and
    ``condition`` C's condition number.
    """
    fitted = inspection(p, B, reg, point)
    cf = closed_form_weights(point_set(p).X, neighbours(p)[:, :B], point, reg)
    diff = cf.weights - fitted["weights"]
    table = pd.DataFrame({"neighbour": fitted["neighbors"], "weight in the LLE fit": fitted["weights"],
                          "closed form C⁻¹1 / 1ᵀC⁻¹1": cf.weights, "difference": diff})
    return {"table": table, "largest": float(np.abs(diff).max()), "ridge": cf.ridge, "condition": cf.condition}


@st.cache_data(max_entries=8, show_spinner="Solving LLE at each B of the sweep ...")
def sweep(p: Points, reg: float) -> list[SweepStep]:
    """LLE at each B of the sweep the data allow, with trustworthiness, or the message of a B that failed;
    on the points of :func:`heavy_rows`."""
    if heavy_rows(p) is None:
        X, table = point_set(p).X, neighbours(p)
    else:  # the sample's own neighbours
        X = heavy_X(p)
        table, _ = nearest_neighbors(X, min(MAX_B, len(X) - 1))
    out = lle_sweep(X, table, SWEEP_B, reg=reg, random_state=p.seed, quality_k=QUALITY_K)
    # every panel turned (and flipped) onto the one at the page's default B, so the panels differ by what B
    # did to the sheet, not by LLE's arbitrary signs; each keeps its own size
    maps = {r.n_neighbors: r.embedding for r in out if r.embedding is not None}
    ref = maps.get(12, next(iter(maps.values()), None))
    return [r if r.embedding is None else
            r._replace(embedding=(r.embedding if r.embedding is ref else _turned_onto(r.embedding, ref)).astype(np.float32))
            for r in out]


def _turned_onto(E: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """``E`` rotated or reflected and shifted onto ``ref`` (Procrustes), at its own size."""
    A, _ = align_to(E, ref)
    if not np.isfinite(A).all():
        return E
    centre = A.mean(axis=0)
    size = np.sqrt(((E - E.mean(axis=0)) ** 2).sum() / max(((A - centre) ** 2).sum(), 1e-300))
    return centre + size * (A - centre)


# ------------------------------------------------------------------ the other map methods


def computed_maps(p: Points) -> dict[str, dict]:
    """The methods whose map these points already have (in any session), by method, in the comparison's order.

    Each map's rows are the points of :func:`heavy_ids`."""
    found = {m: MAPS.get((p, m)) for m in METHODS}
    return {m: r for m, r in found.items() if r is not None}


def failed_maps(p: Points) -> dict[str, str]:
    """The methods that failed on these points, with their message (until one succeeds)."""
    found = {m: FAILED.get((p, m)) for m in METHODS if (p, m) not in MAPS}
    return {m: msg for m, msg in found.items() if msg is not None}


def _fit_method(X: np.ndarray, seed: int, method: str, k: int, progress=None, on_layout=None) -> dict:
    """One method's map of ``X`` with its fit time, trustworthiness and mean recall@k (no Streamlit call:
    it also runs in a background thread)."""
    params = {}
    if method == "tsne":  # it needs more than 3 x perplexity points: a small upload gets the largest it allows
        params["perplexity"] = float(min(method_defaults("tsne")["perplexity"], max(1, largest_perplexity(len(X)))))
    t = time.perf_counter()
    result = embed(X, method, random_state=seed, progress=progress, on_layout=on_layout, n_jobs=threads.JOBS,
                   **params)
    seconds = time.perf_counter() - t
    coords = _frozen(np.asarray(result.coords, dtype=np.float64))
    return {"coords": coords, "seconds": seconds, "trustworthiness": trustworthiness(X, coords, k),
            "recall": float(neighbour_recall(X, coords, k))}


def run_method(p: Points, method: str, progress=None) -> dict:
    """The map of ``method`` (on the points of :func:`heavy_ids`) with its fit time, trustworthiness and
    per-point recall; computed once, then shared."""
    found = MAPS.get((p, method))
    if found is not None:
        return found
    out = _fit_method(heavy_X(p), p.seed, method, quality_k(p), progress)
    MAPS.put((p, method), out)
    return out


class MethodRun:
    """Every method these points have no map of yet, one after another in a background thread.

    ``current`` is the method running (None once all have run), ``latest`` t-SNE's layout so far as
    ``(coords, iteration)`` (None for a method that draws nothing until it ends), ``fraction`` and
    ``text`` its progress. Finished maps go to the shared store as :func:`run_method` puts them, failures
    to :data:`FAILED`; ``done`` turns True last.
    """

    def __init__(self, p: Points, X: np.ndarray, k: int, methods):
        self.p, self.methods = p, list(methods)
        self.current: str | None = None
        self.latest: tuple[np.ndarray, int] | None = None
        self.fraction, self.text = 0.0, "starting"
        self.frames = 0
        self.done = False
        self.started = time.perf_counter()
        self._maps, self._failed = MAPS, FAILED  # looked up here: the thread makes no Streamlit call
        self._thread = threading.Thread(target=self._run, args=(X, k), daemon=True, name="manifolds-methods")
        self._thread.start()

    @property
    def running(self) -> bool:
        return not self.done

    def wait(self, seconds: float) -> bool:
        """Wait up to ``seconds`` for every method to end; True when they have."""
        self._thread.join(timeout=seconds)
        return not self._thread.is_alive()

    def _layout(self, Y, iteration: int) -> bool:
        self.latest = (np.array(Y[:, :2], dtype=np.float64), int(iteration))
        self.frames += 1
        return False

    def _run(self, X: np.ndarray, k: int) -> None:
        todo = [m for m in self.methods if (self.p, m) not in self._maps]
        for i, m in enumerate(todo):
            self.current, self.latest = m, None

            def progress(f, text, i=i):
                self.fraction, self.text = (i + min(max(f, 0.0), 1.0)) / len(todo), text

            progress(0.0, f"running {METHOD_TITLES[m]} ...")
            try:
                self._maps.put((self.p, m), _fit_method(X, self.p.seed, m, k, progress, self._layout))
            except ValueError as err:
                self._failed.put((self.p, m), str(err))
            except Exception as err:  # noqa: BLE001  (shown on the page, not lost in a thread)
                self._failed.put((self.p, m), f"{type(err).__name__}: {err}")
        self.current, self.latest = None, None
        self.done = True


_RUNS_LOCK = threading.Lock()


def start_comparison(p: Points) -> MethodRun:
    """Run every method not yet computed on these points in the background (one run per data set and
    seed, whichever session asks first: the others watch the same run)."""
    with _RUNS_LOCK:
        job = RUNS.get(p)
        if job is not None and job.running:
            return job
        job = MethodRun(p, heavy_X(p), quality_k(p), METHODS)
        RUNS.put(p, job)
        return job


def comparison_run(p: Points) -> MethodRun | None:
    """The background run computing these points' maps, while it runs."""
    job = RUNS.get(p)
    return job if job is not None and job.running else None


def comparison_table(p: Points) -> pd.DataFrame:
    """One row per computed method: fit time, trustworthiness and mean recall@10."""
    rows = [{"method": METHOD_TITLES[m], "seconds": round(r["seconds"], 2),
             "trustworthiness": round(r["trustworthiness"], 4), f"recall@{QUALITY_K}": round(r["recall"], 4)}
            for m, r in computed_maps(p).items()]
    return pd.DataFrame(rows, columns=["method", "seconds", "trustworthiness", f"recall@{QUALITY_K}"])


# ------------------------------------------------------------------ quality


def quality_choices() -> dict[str, str]:
    """The maps the Quality tab can colour, title -> map: the page's LLE at the sidebar's B, then every method."""
    return {"LLE (current B)": CURRENT, **{title: m for m, title in METHOD_TITLES.items()}}


def largest_quality_k(p: Points) -> int:
    return min(50, len(point_set(p).X) - 1)


@st.cache_data(max_entries=32, show_spinner=False)
def _recall(p: Points, which: str, k: int, lle_params: tuple | None) -> np.ndarray:
    if which == CURRENT:
        X, Y = point_set(p).X, lle(p, *lle_params).embedding
    else:
        X, Y = heavy_X(p), MAPS.get((p, which))["coords"]
    return neighbour_recall(X, Y, k, per_point=True).astype(np.float32)


def quality(p: Points, which: str, k: int, B: int, reg: float) -> dict | None:
    """Each point's neighbour recall@k on the map ``which`` (None when that map has not been computed).

    Keyed on the points (data and seed), the map (and B, reg for the page's
    own LLE) and k: a new seed or B never shows another map's recall. ``ids``
    are the points of the map (rows of the page's points), ``X`` their
    coordinates in the data.
    """
    if which == CURRENT:
        Y, params = lle(p, B, reg).embedding, (B, reg)
        ids, X = np.arange(len(Y)), point_set(p).X
    else:
        found = MAPS.get((p, which))
        if found is None:
            return None
        Y, params = found["coords"], None
        ids, X = heavy_ids(p), heavy_X(p)
    rec = _recall(p, which, k, params)
    return {"coords": Y, "recall": rec, "mean": float(rec.mean()), "below_half": float(np.mean(rec < 0.5)),
            "ids": ids, "X": X}


# ------------------------------------------------------------------ download


@st.cache_data(max_entries=8, show_spinner=False)
def coordinates_csv(p: Points, B: int, reg: float, source: str) -> str:
    """The LLE map as CSV (with the colour column when there is one), the first line the parameters as JSON."""
    pts = point_set(p)
    params = {"method": "lle", "n_neighbors": B, "reg": reg, "seed": p.seed, "data": source}
    if p.data.source in GENERATORS:
        params.update(n_samples=len(pts.X), noise=p.noise)
    out = pd.DataFrame(lle(p, B, reg).embedding, columns=["y1", "y2"])
    if pts.colour is not None:
        out.insert(0, pts.colour_label, pts.colour)
    return "# " + json.dumps(params) + "\n" + out.to_csv(index=False)


# ------------------------------------------------------------------ reproduce


def recipe(p: Points, B: int, reg: float) -> Recipe:
    """The LLE map and its eigenvalues as shown, and the embedcore code that computes them again."""
    out = lle(p, B, reg)
    params = {"method": "lle", "n_neighbors": B, "reg": reg, "seed": p.seed, "largest sample": sample_size(p)}
    load = None
    if p.data.source in GENERATORS:
        params.update(n_samples=p.n, noise=p.noise)
        maker = GENERATORS[p.data.source].__name__
        load = (f"def load_data():\n    \"\"\"The generated {p.data.source} the page drew.\"\"\"\n"
                f"    from embedcore import datasets\n\n"
                f"    return datasets.{maker}(n_samples={p.n}, noise={p.noise!r}, seed={p.seed})\n")
    code = f"""
        from embedcore.manifold import lle_with_quality, nearest_neighbors, rescale_for_distances, sample_indices

        X = data.X
        keep = sample_indices(len(X), {sample_size(p)}, random_state={p.seed})  # the page's sample of larger data
        if keep is not None:
            X = X[keep]
        X = np.array(rescale_for_distances(X), dtype=np.float64)  # a C-ordered copy, as the page holds it
        # the page finds every point's neighbours once, as many as its largest B, and each B reads the first B
        table, _ = nearest_neighbors(X, {largest_b(p)})
        out = lle_with_quality(X, table, {B}, {reg!r}, random_state={p.seed}, n_eigenvalues=8, quality_k=None)
        result = {{"embedding": out.embedding, "eigenvalues": out.eigenvalues[:3]}}
        """
    shown = {"embedding": out.embedding, "eigenvalues": out.eigenvalues[:3]}  # λ0 and the map's two
    return Recipe("manifolds", f"LLE map (B={B}, reg={reg:g})", shown, params, p.data, code,
                  compare={"embedding": "columns up to sign", "eigenvalues": "close"}, load=load)
