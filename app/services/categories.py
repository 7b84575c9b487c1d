"""Cached stages of spectral encoding for the Categories page, shared by every session.

A :class:`Graph` names the category graph: the data (a :class:`DataRef`) and,
for a table, the column, target, kernel and transform it is learned with.
Every stage below is keyed on it plus that stage's own parameters, and loads
the data itself: distances once per graph, the affinity and spectrum once per
γ (held once per process, never copied or mutated), then small results per
view. The downstream test runs from a button; its results go to a store shared
by every session.

A kernel learned by ``python -m embedcore category-kernel`` (uploaded as the
``.npz`` it writes, read by :func:`embedcore.batch.read_category_kernel`) is a
graph too: its distances, γ and code settings come from the file, and the
table it was learned from, when the page has it, gives the downstream test.
"""

from __future__ import annotations

import shlex
import textwrap
from typing import NamedTuple

import numpy as np
import pandas as pd
import streamlit as st

from app.services import data as data_service
from app.services import reproduce
from app.services.reproduce import Recipe
from app.services.shared import store
from app.services.threads import JOBS
from embedcore import spectral
from embedcore.batch.categories import read_category_kernel, table_csv
from embedcore.io import DataError, read_affinity_matrix

#: The categorical column and the target each bundled table opens with.
DEFAULT_COLUMNS = {"tips": ("day", "tip"), "gapminder": ("country", "lifeExp"), "wind": ("direction", "frequency")}
#: The categories a table may have for the page to draw them; below the minimum a graph says nothing.
MAX_LEVELS, MIN_LEVELS = 2000, 3
#: The γ sweep: multiples of the current γ.
SWEEP_FACTORS = (0.01, 0.1, 1.0, 10.0, 100.0)
#: Results of the downstream test, shared across sessions.
RESULTS = store("cat.downstream", max_entries=32)
#: The data kind of an uploaded ``category-kernel`` output, and where a session keeps it.
KERNEL_KIND = "category-kernel"
_UPLOAD = "cat.kernel_upload"
#: The data kind of an affinity matrix uploaded on the page, and where a session keeps it.
MATRIX_KIND = "affinity"
_MATRIX_UPLOAD = "cat.matrix_upload"
#: The KL kernel's histogram settings by default (those of SpectralCategoryEncoder and the command line).
KL_BINS, KL_SMOOTHING = 32, 0.5
#: The smoothing values the page offers.
SMOOTHING_STEPS = (0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0)
#: Bins of the histograms drawn for a kernel that compares no histograms (Wasserstein compares CDFs).
SHOWN_BINS = 32
#: The eigengap rule compares at most this many eigenvalues past the zeros (so the page computes only those).
EIGENGAP_WINDOW = spectral.EIGENGAP_WINDOW
#: Rows (and columns) a heatmap of the categories draws at most: past it, categories evenly spaced along the order.
HEATMAP_MAX = 300


class Graph(NamedTuple):
    """What identifies a category graph: the data, and for a table how its distances are learned."""

    data: data_service.DataRef
    column: str | None = None
    target: str | None = None
    kernel: str | None = None
    transform: str | None = None  # None or "log1p"
    table: data_service.DataRef | None = None  # a command-line kernel's table, when the page has it
    bins: int = KL_BINS  # the KL kernel's histogram bins (the defaults for any other kernel)
    smoothing: float = KL_SMOOTHING  # added to every bin of the KL kernel's histograms

    @property
    def learned(self) -> bool:
        """Learned on this page from a table's target."""
        return self.column is not None and not self.from_file

    @property
    def from_file(self) -> bool:
        """Learned by ``python -m embedcore category-kernel`` and uploaded."""
        return self.data.kind == KERNEL_KIND

    @property
    def uploaded_matrix(self) -> bool:
        """An affinity matrix uploaded on the page."""
        return self.data.kind == MATRIX_KIND

    @property
    def labelled(self) -> bool:
        """The page has the rows with the target: the downstream test can run."""
        return self.learned or self.table is not None


class Base(NamedTuple):
    """The graph before γ: category names, the distances (or the affinity) and rows per category."""

    labels: list[str]
    matrix: np.ndarray
    counts: np.ndarray | None
    uses_gamma: bool
    description: str
    reference_gamma: float | None = None  # the γ the bundled matrix's source used
    reference_eigenvalues: tuple[float, ...] = ()  # the spectrum the source printed at that γ


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
    table = graph.table if graph.from_file else graph.data
    return spectral.complete_rows(data_service.load(table).frame, graph.column, graph.target)[0]


@st.cache_resource(max_entries=16, show_spinner=False)
def _distributions(data: data_service.DataRef, column: str, target: str, transform: str | None):
    frame = spectral.complete_rows(data_service.load(data).frame, column, target)[0]
    labels, samples = spectral.category_distributions(frame[column].astype(str), frame[target], transform)
    _frozen(*samples)
    return labels, samples


def distributions(graph: Graph, transform: str | None | bool = False):
    """(category values, each one's sorted target values) behind a learned kernel (read-only, shared).

    ``transform``: the graph's own (False) or another, e.g. None for the target as it is.
    """
    return _distributions(graph.data, graph.column, graph.target, graph.transform if transform is False else transform)


@st.cache_resource(max_entries=16, show_spinner=False)
def base(graph: Graph) -> Base:
    """Distances learned from the table (or the bundled matrix, or the uploaded kernel). Raises ValueError."""
    if graph.from_file:
        ck = _kernel(graph.data)
        return Base([str(v) for v in ck.categories], ck.distances, ck.counts, True, _describe(ck))
    if graph.uploaded_matrix:
        m = _matrix(graph.data)
        return Base(m.labels, m.matrix, None, False, f"Your affinity matrix: {upload_matrix_label(graph.data)}, "
                    f"{len(m.labels):,} categories.")
    if not graph.learned:
        g = data_service.load(graph.data)
        (matrix,) = _frozen(np.array(g.matrix, dtype=np.float64))
        return Base([str(v) for v in g.labels], matrix, None, g.kind == "distance", g.description,
                    g.reference_gamma, tuple(g.reference_eigenvalues))
    labels, samples = distributions(graph)
    if graph.kernel == "wasserstein":
        D = spectral.wasserstein_distances(samples, n_jobs=JOBS)
    else:
        D = spectral.symmetric_kl_distances(samples, bins=graph.bins, smoothing=graph.smoothing)
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


# ---------------------------------------------------------------- a kernel from the command line


def kernel_upload(files) -> str | None:
    """Keep the uploaded ``category-kernel`` output for this session; its digest, or None when nothing is uploaded."""
    upload = data_service.keep_page_upload(_UPLOAD, files)
    return None if upload is None else upload.digest


def upload_label(digest: str) -> str:
    """The uploaded files' names, joined."""
    return " + ".join(_upload(digest).names)


def _upload(digest: str) -> data_service.Upload:
    return data_service.page_upload(_UPLOAD, digest, "The uploaded kernel")


@st.cache_resource(max_entries=4, show_spinner=False)
def _read(digest: str, _upload: data_service.Upload):
    """(the kernel, None) or (None, what is wrong with the files); read once per upload, shared by sessions."""
    try:
        ck = read_category_kernel(list(zip(_upload.names, _upload.blobs)))
    except ValueError as err:  # DataError: the reader's message says what to fix
        return None, str(err)
    for a in (ck.distances, ck.affinity, ck.eigenvalues, ck.embedding, ck.counts):
        a.flags.writeable = False
    return ck, None


def _kernel(ref: data_service.DataRef):
    ck, error = _read(ref.source.removeprefix("upload:"), _upload(ref.source.removeprefix("upload:")))
    if error is not None:
        raise ValueError(error)
    return ck


def kernel_problem(digest: str) -> str | None:
    """Why the uploaded output cannot be shown (a sentence saying what to fix), or None."""
    ck, error = _read(digest, _upload(digest))
    if error is not None:
        return error
    m, label = len(ck.categories), upload_label(digest)
    if m > MAX_LEVELS:
        return (f"{label}: the kernel has {m:,} categories; the page draws up to {MAX_LEVELS:,}. Their codes are in "
                "the codes CSV the command wrote next to it.")
    if m < MIN_LEVELS:
        return f"{label}: the kernel has {m} categories; a graph needs at least {MIN_LEVELS} to say anything."
    return None


def kernel_graph(digest: str, table: data_service.DataRef | None) -> Graph:
    """The uploaded kernel as a graph; ``table`` joins it when it has the kernel's column and target."""
    ref = data_service.DataRef(KERNEL_KIND, f"upload:{digest}", 0)
    p = _kernel(ref).params
    if table is not None and not has_columns(table, p["column"], p["target"]):
        table = None
    return Graph(ref, p["column"], p["target"], p["kernel"], p["target_transform"], table)


@st.cache_data(max_entries=16, show_spinner=False)
def has_columns(ref: data_service.DataRef, column: str, target: str) -> bool:
    """Whether the table has the category column and a numeric target column of these names."""
    frame = data_service.load(ref).frame
    return column in frame.columns and target in frame.columns and frame[target].dtype.kind in "fiu"


def kernel_settings(graph: Graph) -> tuple[float, object, bool]:
    """(γ, components, keep trivial) the command ran with."""
    ck = _kernel(graph.data)
    return float(ck.gamma), ck.params["n_components"], bool(ck.params["keep_trivial"])


def kernel_manifest(graph: Graph) -> dict:
    """The command's settings, spectrum, input and versions, as it recorded them."""
    return _kernel(graph.data).manifest


def _describe(ck) -> str:
    p = ck.params
    how = {"wasserstein": "1-Wasserstein", "kl": "symmetric KL"}[p["kernel"]]
    log = "log(1 + target), " if p["target_transform"] == "log1p" else ""
    if p.get("bin_width"):  # the command's default for a continuous target: values at their bins' centres
        log += f"counted in {p['value_bins']:,} bins of width {p['bin_width']:.3g}, "
    return (f"Learned by python -m embedcore category-kernel: '{p['column']}' compared by the {how} distance of "
            f"'{p['target']}' ({log}{ck.rows:,} rows, {ck.dropped:,} left out for a missing value), "
            f"γ = {ck.gamma:.6g}, components: {p['n_components']}, "
            f"keep trivial: {'yes' if p['keep_trivial'] else 'no'}.")


@st.cache_data(max_entries=8, show_spinner=False)
def kernel_agreement(graph: Graph) -> str | None:
    """None when the spectrum and codes computed here from the file's kernel are the file's; else how far apart.

    The views draw the file's spectrum and codes; the heatmaps, γ sweep and clusters are computed here.
    """
    ck = _kernel(graph.data)
    _, _, vals, vecs = spectrum(graph, float(ck.gamma))
    here = vecs[:, ck.columns]
    signs = np.sign((here * ck.embedding).sum(axis=0))
    d_vals = float(np.abs(vals - ck.eigenvalues[: vals.size]).max())  # the smallest ones, for a large kernel
    d_codes = float(np.abs(here * signs - ck.embedding).max())
    if d_vals <= 1e-8 and d_codes <= 1e-6:
        return None
    return (f"The spectrum computed here from the file's kernel differs from the file's by up to {d_vals:.2g} "
            f"(eigenvalues) and {d_codes:.2g} (codes, up to sign). Nearly equal eigenvalues can swap or rotate "
            "their eigenvectors; the views show the file's spectrum and codes.")


# ---------------------------------------------------------------- an affinity matrix uploaded on the page


def matrix_upload(file) -> str | None:
    """Keep the affinity matrix uploaded on the page for this session; its digest, or None when there is none."""
    upload = data_service.keep_page_upload(_MATRIX_UPLOAD, file)
    return None if upload is None else upload.digest


def _matrix_upload(digest: str) -> data_service.Upload:
    return data_service.page_upload(_MATRIX_UPLOAD, digest, "The affinity matrix")


@st.cache_resource(max_entries=4, show_spinner=False)
def _read_matrix(digest: str, _upload: data_service.Upload):
    """(the matrix, None) or (None, what is wrong with the file); read once per upload, shared by sessions."""
    try:
        m = read_affinity_matrix(_upload.blobs[0], _upload.names[0])
    except DataError as err:
        return None, str(err)
    n = len(m.labels)
    if n > MAX_LEVELS:
        return None, f"{_upload.names[0]} has {n:,} categories; the page draws up to {MAX_LEVELS:,}."
    if n < MIN_LEVELS:
        return None, f"{_upload.names[0]} has {n} categories; a graph needs at least {MIN_LEVELS} to say anything."
    _frozen(m.matrix)
    return m, None


def matrix_problem(digest: str) -> str | None:
    """Why the uploaded matrix cannot be used (a sentence saying what to fix), or None."""
    return _read_matrix(digest, _matrix_upload(digest))[1]


def matrix_notices(digest: str) -> list[str]:
    """What reading the matrix changed (symmetrised, diagonal set to 0, names matched), one sentence each."""
    m, _ = _read_matrix(digest, _matrix_upload(digest))
    return [] if m is None else list(m.notices)


def matrix_options(digest: str | None) -> dict[str, str]:
    """The given matrices the page offers, id -> title: the bundled ones, and the upload when it reads."""
    out = dict(graph_options())
    if digest is not None and matrix_problem(digest) is None:
        out["upload"] = f"Your matrix: {_matrix_upload(digest).names[0]}"
    return out


def matrix_ref(choice: str, digest: str | None) -> data_service.DataRef:
    """The reference to the chosen matrix: a bundled graph id, or the upload's ``upload:<digest>``."""
    if choice == "upload" and digest is not None:
        return data_service.DataRef(MATRIX_KIND, f"upload:{digest}", 0)
    return data_service.ref("graph", choice)


def upload_matrix_label(ref: data_service.DataRef) -> str:
    return _matrix_upload(ref.source.removeprefix("upload:")).names[0]


def _matrix(ref: data_service.DataRef):
    digest = ref.source.removeprefix("upload:")
    m, error = _read_matrix(digest, _matrix_upload(digest))
    if error is not None:
        raise ValueError(error)
    return m


# ---------------------------------------------------------------- the spectrum


@st.cache_resource(max_entries=64, show_spinner=False)
def spectrum(graph: Graph, gamma: float | None):
    """Affinity, normalised Laplacian, eigenvalues and eigenvectors for one γ (read-only arrays).

    The eigenpairs are the smallest ones a code can use (:func:`embedcore.spectral.code_spectrum`): every one
    for up to 300 categories, else the zeros and the 51 after them; pass ``n_nodes`` (:func:`n_nodes`) when
    choosing a code from them. Only this step and the ones after it depend on γ: the distances are
    :func:`base`'s, computed once per graph.
    """
    b = base(graph)
    A = b.matrix if gamma is None else spectral.kernel_from_distances(b.matrix, gamma)
    L = spectral.normalized_laplacian(A, b.labels)
    at_least = max(_kernel(graph.data).columns, default=0) + 1 if graph.from_file else 0
    vals, vecs = spectral.code_spectrum(A, labels=b.labels, at_least=at_least)
    return _frozen(A, L, vals, vecs)


def n_nodes(graph: Graph) -> int:
    """The number of categories (the spectrum may hold only the smallest of their eigenvalues)."""
    return len(base(graph).labels)


@st.cache_data(max_entries=128, show_spinner=False)
def summary(graph: Graph, gamma: float | None, n_components, keep_trivial: bool) -> dict:
    """The figures above the tabs, and the components by name when the graph fell apart."""
    A, _, vals, _ = spectrum(graph, gamma)
    if graph.from_file:
        vals = _kernel(graph.data).eigenvalues
    choice = spectral.choose_code(vals, n_components, keep_trivial, n_nodes=n_nodes(graph))
    labels = base(graph).labels
    return {
        "categories": len(labels),
        "connected components": choice.n_connected,
        "suggested k": choice.eigengap_k,
        "code width": len(_kept(graph, vals, n_components, keep_trivial)),
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

    ``lmax``: the largest off-diagonal |L| of the whole matrix (the colour range), None when all are 0. Past
    :data:`HEATMAP_MAX` categories only that many are drawn, evenly spaced along the order (:func:`drawn_rows`);
    ``shown`` and ``total`` say how many of how many.
    """
    A, L, _, vecs = spectrum(graph, gamma)
    labels = base(graph).labels
    order = spectral.fiedler_order(A, vecs) if by_fiedler else np.arange(len(labels))
    off = max(0.0, -float(L.min()))  # the diagonal is >= 0 and every other entry <= 0: the largest off-diagonal |L|
    order = order[drawn_rows(len(order))]
    A_o, L_o = _frozen(A[np.ix_(order, order)].astype(np.float32), L[np.ix_(order, order)].astype(np.float32))
    return {"names": [labels[i] for i in order], "A": A_o, "L": L_o, "lmax": off if off > 0 else None,
            "shown": len(order), "total": len(labels)}


def drawn_rows(n: int) -> np.ndarray:
    """Positions along an order of ``n`` categories that a heatmap draws: all of them up to :data:`HEATMAP_MAX`,
    else that many evenly spaced from the first to the last, so every block along the diagonal keeps its share."""
    if n <= HEATMAP_MAX:
        return np.arange(n)
    return np.unique(np.linspace(0, n - 1, HEATMAP_MAX).round().astype(np.int64))


@st.cache_data(max_entries=64, show_spinner=False)
def spectrum_view(graph: Graph, gamma: float | None, n_components, keep_trivial: bool) -> tuple[pd.DataFrame, int | None, int]:
    """(eigenvalue table with the kept ones marked, the index after the largest gap or None, eigengap k)."""
    vals = _kernel(graph.data).eigenvalues if graph.from_file else spectrum(graph, gamma)[2]
    choice = spectral.choose_code(vals, n_components, keep_trivial, n_nodes=n_nodes(graph))
    kept = np.zeros(vals.size, dtype=bool)
    kept[_kept(graph, vals, n_components, keep_trivial)] = True
    table = pd.DataFrame({"index": np.arange(1, vals.size + 1), "eigenvalue": vals.round(6), "kept": kept})
    return table, choice.gap_after, choice.eigengap_k


def reference_spectrum(graph: Graph) -> pd.DataFrame:
    """The Laplacian's eigenvalues at the source's γ beside the ones the source printed (empty when it gave none)."""
    b = base(graph)
    if b.reference_gamma is None or not b.reference_eigenvalues:
        return pd.DataFrame()
    vals = spectrum(graph, b.reference_gamma)[2]
    printed = np.asarray(b.reference_eigenvalues)
    return pd.DataFrame({"index": np.arange(1, vals.size + 1), "this page": vals.round(9),
                         "the article": printed, "difference": np.abs(vals - printed)})


def _kept(graph: Graph, vals, n_components, keep_trivial: bool) -> list[int]:
    """The eigenvectors in the code: the uploaded kernel's, or chosen from the spectrum."""
    if graph.from_file:
        return list(_kernel(graph.data).columns)
    return spectral.choose_code(vals, n_components, keep_trivial, n_nodes=n_nodes(graph)).columns


class Codes(NamedTuple):
    """The spectral code of every category."""

    table: pd.DataFrame  # category, then one column u<i> per kept eigenvector
    shown: pd.DataFrame  # the same, rounded for display
    columns: list[int]  # the kept eigenvectors, counted from 1
    eigenvalues: list[float]  # their eigenvalues


@st.cache_data(max_entries=64, show_spinner=False)
def codes(graph: Graph, gamma: float | None, n_components, keep_trivial: bool, normalize: bool = False) -> Codes:
    """The encoding table for the current choice of eigenvectors (an uploaded kernel's own codes), its rows
    scaled to unit length when ``normalize``."""
    if graph.from_file:
        ck = _kernel(graph.data)
        vals, kept = ck.eigenvalues, ck.columns
        emb = spectral.spectral_code(ck.embedding, range(len(kept)), normalize)
    else:
        _, _, vals, vecs = spectrum(graph, gamma)
        kept = spectral.choose_code(vals, n_components, keep_trivial, n_nodes=n_nodes(graph)).columns
        emb = spectral.spectral_code(vecs, kept, normalize)
    table = pd.DataFrame(emb, columns=[f"u{i + 1}" for i in kept])
    table.insert(0, "category", base(graph).labels)
    return Codes(table, table.round(5), [i + 1 for i in kept], [float(vals[i]) for i in kept])


@st.cache_data(max_entries=32, show_spinner=False)
def selection_affinity(graph: Graph, gamma: float | None, rows: tuple) -> pd.DataFrame:
    """How alike the selected categories are: their mean affinity to each other, to the other categories,
    and every pair's mean, at this γ."""
    A = np.asarray(spectrum(graph, gamma)[0], dtype=np.float64)
    n = len(A)
    chosen = np.zeros(n, dtype=bool)
    chosen[np.asarray(rows, dtype=np.int64)] = True
    off = ~np.eye(n, dtype=bool)

    def mean(mask) -> float:
        return float(A[mask].mean()) if mask.any() else float("nan")

    return pd.DataFrame({"pairs": ["within the selection", "selection to the others", "all pairs"],
                         "mean affinity": [mean(np.outer(chosen, chosen) & off), mean(np.outer(chosen, ~chosen)),
                                           mean(off)]}).round(4)


@st.cache_data(max_entries=32, show_spinner=False)
def gamma_sweep(graph: Graph, gamma: float) -> pd.DataFrame:
    """Spectra at γ times each of :data:`SWEEP_FACTORS`: past 300 categories, the smallest eigenvalues of each
    (those a code can use), as the spectrum tab shows them."""
    return spectral.gamma_sweep(base(graph).matrix, gamma, SWEEP_FACTORS, smallest=True)


# ---------------------------------------------------------------- the target behind a learned kernel

#: The pairs the histogram view compares: by rank of their affinity among all pairs.
PAIRS = ("the most alike", "a typical pair", "the least alike")


def _histogram_grid(graph: Graph, transform):
    """(edges, counts, bins) of every category's target on the scale ``transform``, on one grid."""
    _, samples = distributions(graph, transform)
    bins = graph.bins if graph.kernel == "kl" else SHOWN_BINS
    edges, counts = spectral.category_histograms(samples, bins=bins)
    return edges, counts, bins


@st.cache_data(max_entries=32, show_spinner=False)
def pooled_histograms(graph: Graph) -> dict:
    """The whole target's histogram as it is and as log(1 + target) (None when some target is <= -1)."""
    labels, samples = distributions(graph, None)
    pooled = np.concatenate(samples)
    out = {"target": graph.target, "kernel_scale": graph.transform}
    for name, values in (("raw", pooled), ("log", np.log1p(pooled) if (pooled > -1).all() else None)):
        if values is None:
            out[name] = None
            continue
        edges, counts = spectral.category_histograms([values], bins=40)
        out[name] = {"edges": edges.astype(np.float32), "counts": counts[0].astype(np.float32),
                     "skew": float(pd.Series(values).skew())}
    return out


@st.cache_data(max_entries=32, show_spinner=False)
def target_histograms(graph: Graph, gamma: float | None) -> dict:
    """Each category's histogram on the kernel's scale, in the Fiedler order of the affinity drawn beside it.

    For the KL kernel the rows are the smoothed distributions it compares; otherwise each category's share of
    its rows per bin (Wasserstein compares the CDFs, which the pair view draws).
    """
    A, _, _, vecs = spectrum(graph, gamma)
    labels = base(graph).labels
    edges, counts, bins = _histogram_grid(graph, graph.transform)
    if graph.kernel == "kl":
        shares = spectral.smoothed_distributions(counts, graph.smoothing)
    else:
        shares = counts / counts.sum(axis=1, keepdims=True)
    order = spectral.fiedler_order(A, vecs)
    order = order[drawn_rows(len(order))]
    return {"names": [labels[i] for i in order], "edges": edges.astype(np.float32),
            "shares": shares[order].astype(np.float32), "A": A[np.ix_(order, order)].astype(np.float32),
            "smoothed": graph.kernel == "kl", "bins": bins, "log": graph.transform == "log1p",
            "target": graph.target, "shown": len(order), "total": len(labels)}


def _pair(A: np.ndarray, which: str) -> tuple[int, int]:
    """The pair of distinct categories of the largest, the median or the smallest affinity (first in order)."""
    i, j = np.triu_indices(len(A), 1)
    a = A[i, j]
    order = np.argsort(-a, kind="stable")
    k = {"the most alike": order[0], "a typical pair": order[len(order) // 2], "the least alike": order[-1]}[which]
    return int(i[k]), int(j[k])


@st.cache_data(max_entries=64, show_spinner=False)
def pair_view(graph: Graph, gamma: float | None, which: str) -> dict:
    """Two categories' histograms and CDFs on the kernel's scale, with their distance and affinity."""
    A, _, _, _ = spectrum(graph, gamma)
    b = base(graph)
    i, j = _pair(np.asarray(A), which)
    edges, counts, _ = _histogram_grid(graph, graph.transform)
    if graph.kernel == "kl":
        shares = spectral.smoothed_distributions(counts[[i, j]], graph.smoothing)
    else:
        shares = counts[[i, j]] / counts[[i, j]].sum(axis=1, keepdims=True)
    _, samples = distributions(graph)
    # each CDF from 0 at the pooled minimum to 1 at the pooled maximum, so the two span the same range
    cdfs = [(np.concatenate([[edges[0]], samples[k], [edges[-1]]]).astype(np.float32),
             np.concatenate([[0.0], np.arange(1, len(samples[k]) + 1) / len(samples[k]), [1.0]]).astype(np.float32))
            for k in (i, j)]
    return {"names": [b.labels[i], b.labels[j]], "edges": edges.astype(np.float32), "shares": shares.astype(np.float32),
            "cdfs": cdfs, "distance": float(b.matrix[i, j]), "affinity": float(A[i, j]), "kernel": graph.kernel,
            "rows": (len(samples[i]), len(samples[j])), "log": graph.transform == "log1p", "target": graph.target}


# ---------------------------------------------------------------- one-hot and label encoding as kernels

#: The special cases the page draws: what each kernel says about the categories.
SPECIAL_CASES = ("one-hot: K = I", "every pair alike: K = 1 - I", "label encoding: exp(-γ|i - j|)")
_WEEK = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
#: Eigenvectors drawn for a special case (after the first).
SPECIAL_VECTORS = 4


def special_labels(n: int) -> list[str]:
    """The days of the week for 7 categories (the article's example), else c1 .. cn in their order."""
    return list(_WEEK) if n == 7 else [f"c{i + 1}" for i in range(n)]


@st.cache_data(max_entries=64, show_spinner=False)
def special_case(case: str, n: int, gamma: float) -> dict:
    """A special-case kernel over ``n`` ordered categories: its affinity, spectrum, eigenvectors and code.

    For label encoding, also the path graph's closed-form spectrum, the eigenvectors signed to agree with it,
    and how close each is (``|<u_k, p_k>|``, 1 when they are the same vector).
    """
    labels = special_labels(n)
    if case == SPECIAL_CASES[0]:
        A = spectral.one_hot_kernel(n)
    elif case == SPECIAL_CASES[1]:
        A = spectral.all_alike_kernel(n)
    else:
        A = spectral.kernel_from_distances(spectral.order_distances(n), gamma)
    L = spectral.normalized_laplacian(A)
    vals, vecs = spectral.laplacian_spectrum(A)
    choice = spectral.choose_code(vals)
    shown = list(range(1, min(n, 1 + SPECIAL_VECTORS)))
    out = {"labels": labels, "A": A.astype(np.float32), "L_offdiag_max": float(np.abs(L - np.diag(np.diag(L))).max()),
           "eigenvalues": vals, "vectors": vecs[:, shown], "shown": shown, "n_zero": choice.n_connected,
           "eigengap_k": choice.eigengap_k, "columns": choice.columns, "path": None}
    if case == SPECIAL_CASES[2]:
        p_vals, p_vecs = spectral.path_spectrum(n)
        dots = (vecs * p_vecs).sum(axis=0)
        out["vectors"] = vecs[:, shown] * np.where(dots[shown] < 0, -1.0, 1.0)
        step = np.diff(spectral.fiedler_vector(A, vecs))
        out["fiedler_monotone"] = bool((step > 0).all() or (step < 0).all())
        out["path"] = {"eigenvalues": p_vals, "vectors": p_vecs[:, shown], "agreement": np.abs(dots[shown]),
                       "max_eigenvalue_gap": float(np.abs(vals - p_vals).max())}
    table = pd.DataFrame(vecs[:, choice.columns], columns=[f"u{c + 1}" for c in choice.columns]).round(4)
    table.insert(0, "category", labels)
    out["code"] = table
    return out


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


# ---------------------------------------------------------------- the tour's facts


def _names(names) -> str:
    return ", ".join(str(n) for n in names)


@st.cache_data(max_entries=32, show_spinner=False)
def tour_facts(graph: Graph, gamma: float | None, n_components, keep_trivial: bool, normalize: bool = False) -> dict:
    """What the tour's sentences say, measured on the graph, γ and code on show (plain numbers and names, for
    :func:`app.ui.tour.tell`).

    The spectrum: ``zeros``, ``l2`` and ``l3`` (the first two past the zeros), the largest ``gap`` (after
    λ ``gap_after``), the largest ``next_gap`` after it, the ``rest_n`` eigenvalues past the gap from ``rest_lo``
    to ``rest_hi``, the eigengap's ``k``, the eigenvalues marked ``kept`` (``kept_names``) and the code's
    ``width``. The code's first column ``code_col``: the categories by sign (``negative``, ``positive``), the one
    ``nearest_zero`` and its ``nearest_value``, their ``order`` along it with the first category's side first;
    its second column ``second_col`` and ``second_order``; ``agreement`` of the code with the affinity
    (:func:`embedcore.spectral.code_agreement`) over ``pairs`` pairs. The article's spectrum (``article_diff``,
    the largest difference, and ``article_gamma``) and the γ sweep (``sweep_*``) when there are any.
    """
    labels = base(graph).labels
    table, gap_after, k = spectrum_view(graph, gamma, n_components, keep_trivial)
    vals = table["eigenvalue"].to_numpy(dtype=np.float64)
    info = summary(graph, gamma, n_components, keep_trivial)
    zeros = int(info["connected components"])
    facts = {"gamma": float("nan") if gamma is None else float(gamma), "days": len(labels), "zeros": zeros,
             "l2": float(vals[zeros]) if vals.size > zeros else float("nan"),
             "l3": float(vals[zeros + 1]) if vals.size > zeros + 1 else float("nan"), "k": int(k),
             "gap_after": 0 if gap_after is None else int(gap_after),
             "kept": int(table["kept"].sum()), "kept_names": _names(f"λ{i}" for i in table["index"][table["kept"]]),
             "width": int(info["code width"])}
    if gap_after is not None:
        after = vals[gap_after:]
        facts.update(gap=float(vals[gap_after] - vals[gap_after - 1]),
                     next_gap=float(np.diff(after).max()) if after.size > 1 else 0.0,
                     rest_n=int(after.size), rest_lo=float(after.min()), rest_hi=float(after.max()))
    code = codes(graph, gamma, n_components, keep_trivial, normalize)
    columns = list(code.table.columns[1:])
    first = code.table[columns[0]].to_numpy(dtype=np.float64)
    oriented = -first if first[0] > 0 else first  # an eigenvector's sign is arbitrary: the first category below 0
    nearest = int(np.argmin(np.abs(first)))
    facts.update(code_col=columns[0], negative=_names(np.asarray(labels)[first < 0]),
                 positive=_names(np.asarray(labels)[first > 0]), nearest_zero=str(labels[nearest]),
                 nearest_value=float(first[nearest]),
                 order=_names(np.asarray(labels)[np.argsort(oriented, kind="stable")]),
                 agreement=spectral.code_agreement(code.table[columns].to_numpy(dtype=np.float64),
                                                   spectrum(graph, gamma)[0]),
                 pairs=len(labels) * (len(labels) - 1) // 2)
    if len(columns) > 1:
        second = code.table[columns[1]].to_numpy(dtype=np.float64)
        facts.update(second_col=columns[1], second_order=_names(np.asarray(labels)[np.argsort(second, kind="stable")]))
    printed = reference_spectrum(graph)
    if not printed.empty:
        facts.update(article_diff=float(printed["difference"].max()), article_gamma=float(base(graph).reference_gamma))
    if gamma is not None:
        sweep = gamma_sweep(graph, gamma)
        by = {f: g["eigenvalue"].to_numpy(dtype=np.float64) for f, g in sweep.groupby("factor")}
        low, high = min(by), max(by)
        facts.update(sweep_low=float(low), sweep_high=float(high), sweep_n=int(by[low].size - 1),
                     sweep_low_spread=float(np.ptp(by[low][1:])), sweep_low_gap=float(np.diff(by[low][1:]).max()),
                     sweep_high_l2=float(by[high][1]), sweep_high_top=float(by[high].max()),
                     sweep_here_gap=float(np.diff(by[1.0][1:]).max()) if 1.0 in by else float("nan"))
    return facts


# ---------------------------------------------------------------- downloads


def download_files(graph: Graph, gamma: float | None, n_components, keep_trivial: bool, normalize: bool = False):
    """(encoding CSV, affinity CSV) as callables: the text is made when a person clicks."""
    table = codes(graph, gamma, n_components, keep_trivial, normalize).table
    A = spectrum(graph, gamma)[0]
    labels = base(graph).labels
    return (lambda: table.to_csv(index=False),
            lambda: pd.DataFrame(A, index=labels, columns=labels).to_csv())


def table_file_name(ref: data_service.DataRef) -> str:
    """The name the table is downloaded under: the bundled data set's id, or ``table``."""
    return f"{'table' if ref.source.startswith('upload:') else ref.source}.csv"


def table_for_command(ref: data_service.DataRef):
    """The table as ``category-kernel`` reads it (CSV), as a callable: the text is made when a person clicks."""
    return lambda: table_csv(data_service.load(ref).frame)


def command_line(graph: Graph, gamma: float, n_components, keep_trivial: bool) -> str:
    """The ``python -m embedcore category-kernel`` command that learns this page's kernel from the downloaded table.

    γ is written in full (``repr``), so the command uses the page's number exactly.
    """
    words = ["python", "-m", "embedcore", "category-kernel", table_file_name(graph.data), "--column", graph.column,
             "--target", graph.target, "--kernel", graph.kernel, "--gamma", repr(float(gamma)),
             "--components", str(n_components)]
    if graph.kernel == "kl":
        words += ["--bins", str(graph.bins), "--smoothing", repr(float(graph.smoothing))]
    else:  # every distinct target value, as the page counts them (the command bins by default)
        words += ["--value-bins", "exact"]
    words += ["--keep-trivial"] * bool(keep_trivial) + ["--log1p"] * (graph.transform == "log1p")
    return " ".join(shlex.quote(w) for w in words + ["--out", "codes.csv"])


# ---------------------------------------------------------------- the downstream test


def _bench_key(graph: Graph, n_components, keep_trivial: bool, seed: int, normalize: bool = False) -> tuple:
    # no gamma: the test chooses it inside each training fold (a command-line kernel brings its own)
    return ("protocol", graph, n_components, bool(keep_trivial), int(seed)) + (("unit rows",) if normalize else ())


def downstream_table(result) -> pd.DataFrame:
    """The downstream test as a table: one row per model and encoding, held-out R² with its interval, the
    setting chosen in most folds, whether it sat on the grid's edge, and the encoding's width."""
    s = result.sides
    model, encoding = zip(*(n.split(" + ") for n in s["side"]))
    return pd.DataFrame({"model": model, "encoding": encoding, "r2": s["held-out"].round(4),
                         "low": s["low"].round(4), "high": s["high"].round(4), "chosen": s["chosen"],
                         "chosen in": s["chosen in"], "on the grid's edge": s["edge"].replace("", "no"),
                         "columns": [result.columns[e] for e in encoding]})


def downstream_result(graph: Graph, gamma: float | None, n_components, keep_trivial: bool,
                      seed: int, normalize: bool = False):
    """The downstream test's Comparison for these settings if anyone has run it, else None (γ is chosen in
    each fold, so the page's γ does not enter)."""
    return RESULTS.get(_bench_key(graph, n_components, keep_trivial, seed, normalize))


def run_downstream(graph: Graph, gamma: float, n_components, keep_trivial: bool, seed: int,
                   progress=None, normalize: bool = False):
    """Compare one-hot, ordinal, target and spectral codes under the lab's protocol; kept for every session.
    Raises ValueError. The spectral code's γ is chosen inside each training fold, not the page's ``gamma``."""
    key = _bench_key(graph, n_components, keep_trivial, seed, normalize)
    found = RESULTS.get(key)
    if found is not None:
        return found
    if graph.from_file:  # the command's kernel, as it is: learned once from every row
        ck = _kernel(graph.data)
        params = dict(kernel="precomputed", affinity=ck.affinity, categories=[str(c) for c in ck.categories],
                      n_components=n_components, keep_trivial=keep_trivial, normalize=normalize)
    else:
        params = dict(kernel=graph.kernel, n_components=n_components, keep_trivial=keep_trivial,
                      target_transform=graph.transform, n_jobs=JOBS, normalize=normalize,
                      bins=graph.bins, smoothing=graph.smoothing)
    result = spectral.compare_category_encodings(_complete(graph), graph.column, graph.target,
                                                 encoder_params=params, random_state=seed, progress=progress,
                                                 n_jobs=JOBS)
    RESULTS.put(key, result)
    return result


# ---------------------------------------------------------------- reproduce


def recipe(graph: Graph, gamma: float | None, n_components, keep_trivial: bool, normalize: bool = False) -> Recipe:
    """The distances (or affinity), spectrum and codes shown, and the embedcore code that computes them again.

    For a graph learned from a table, a bundled matrix or an uploaded one; a kernel uploaded from the command line
    is a file already (the command's own manifest says how it was made).
    """
    if graph.from_file:
        raise ValueError("A kernel from the command line is reproduced by its command (see its manifest).")
    b = base(graph)
    A, _, vals, vecs = spectrum(graph, gamma)
    kept = spectral.choose_code(vals, n_components, keep_trivial, n_nodes=len(b.labels)).columns
    arrays = {"matrix": b.matrix, "eigenvalues": vals, "codes": spectral.spectral_code(vecs, kept, normalize),
              "categories": np.array(b.labels)}
    params = {"gamma": gamma, "n_components": n_components, "keep_trivial": keep_trivial, "columns kept": list(kept),
              "rows to unit length": normalize}
    load, files = None, None
    if graph.learned:
        params.update(column=graph.column, target=graph.target, kernel=graph.kernel, transform=graph.transform)
        if graph.kernel == "wasserstein":
            distances = "spectral.wasserstein_distances(samples)"
        else:
            params.update(bins=graph.bins, smoothing=graph.smoothing)
            distances = f"spectral.symmetric_kl_distances(samples, bins={graph.bins!r}, smoothing={graph.smoothing!r})"
        matrix_code = f"""
        frame = spectral.complete_rows(data.frame, {graph.column!r}, {graph.target!r})[0]
        labels, samples = spectral.category_distributions(frame[{graph.column!r}].astype(str),
                                                          frame[{graph.target!r}], {graph.transform!r})
        matrix = {distances}
        """
    else:
        matrix_code = """
        labels, matrix = data.labels, np.array(data.matrix, dtype=np.float64)
        """
    if graph.uploaded_matrix:
        up = _matrix_upload(graph.data.source.removeprefix("upload:"))
        files = up.names
        load = reproduce.single_file_loader(up.names[0], up.digest, "affinity matrix",
                                            "from embedcore.io import read_affinity_matrix", "read_affinity_matrix")
    affinity = "matrix" if gamma is None else f"spectral.kernel_from_distances(matrix, {gamma!r})"
    code = f"""
        from embedcore import spectral
        {textwrap.dedent(matrix_code).strip().replace(chr(10), chr(10) + ' ' * 8)}
        A = {affinity}
        vals, vecs = spectral.code_spectrum(A, labels=[str(v) for v in labels])  # the smallest eigenpairs a code uses
        kept = spectral.choose_code(vals, {n_components!r}, {keep_trivial!r}, n_nodes=len(labels)).columns
        result = {{"matrix": matrix, "eigenvalues": vals, "codes": spectral.spectral_code(vecs, kept, {normalize!r}),
                  "categories": np.array([str(v) for v in labels])}}
        """
    what = (f"{graph.kernel} kernel of {graph.column} by {graph.target}" if graph.learned else
            "your affinity matrix" if graph.uploaded_matrix else "bundled category graph")
    return Recipe("categories", f"spectral codes ({what})", arrays, params, graph.data, code,
                  compare={"matrix": "close", "eigenvalues": "close", "codes": "columns up to sign",
                           "categories": "exact"}, rtol=1e-6, atol=1e-9, load=load, files=files)
