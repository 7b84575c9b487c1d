"""Spectral category encodings learned from the target of a table larger than memory.

:class:`~embedcore.spectral.SpectralCategoryEncoder` compares, for every
pair of category values, the target's distribution within each: by the
1-Wasserstein distance of the empirical distributions, or by the symmetric
KL divergence of histograms on a common grid of equal bins over the pooled
range. Both need only counts, and counts of partitions add up:

* Wasserstein: how often each (category, target value) pair occurs. By
  default a first pass finds the pooled range and a second counts each
  category's values in ``value_bins`` (1,024) equal bins over it, on the
  workers: each value moves to its bin's centre, which changes any distance
  by at most one bin width, and what is gathered is at most categories x
  bins pairs however many rows there are. A target of whole numbers
  spanning no more values than there are bins is counted exactly, and
  ``value_bins=None`` counts every distinct value exactly: the summed counts
  are then the CDFs on the pooled support that the in-memory ``"cdf"``
  computation uses, so the distances are the same numbers.
* KL: a first pass finds the pooled minimum and maximum (the grid), a
  second counts each category's values per bin: the same histograms.

Either way a partial sum holding more than ``max_pairs`` distinct pairs is
refused on the worker, before it is gathered. The driver then fits the
encoder from the summed counts
(:meth:`SpectralCategoryEncoder.from_statistics
<embedcore.spectral.SpectralCategoryEncoder.from_statistics>`), as
:func:`embedcore.batch.word_vectors` fits word vectors from counts.
"""

from __future__ import annotations

import io
import json
import os
import zipfile
from dataclasses import dataclass, field
from numbers import Integral, Real

import numpy as np
import pandas as pd

from ..io import DataError
from ._cluster import BatchError, bounded_sum, check_setting, current_client, refusals, tree_sum
from ._inputs import Part, fingerprint, open_table, table_parts

__all__ = ["CategoryStatistics", "CategoryKernel", "category_statistics", "category_kernel", "check_kernel_params",
           "write_category_kernel", "read_category_kernel", "table_csv"]


@dataclass
class CategoryStatistics:
    """Per-partition statistics of a (category, target) table; they add up over partitions.

    ``pairs`` counts (category, key) pairs, where the key is the target value
    or its bin; ``low``/``high`` are the target's range.

    Examples
    --------
    Two partitions' statistics add up: counts of the same pair are summed, the ranges joined.

    >>> first = CategoryStatistics(pd.Series([2, 1], index=pd.MultiIndex.from_tuples([("Mon", 1.0), ("Tue", 2.0)])),
    ...                            low=1.0, high=2.0, rows=3)
    >>> second = CategoryStatistics(pd.Series([1], index=pd.MultiIndex.from_tuples([("Mon", 1.0)])),
    ...                             low=1.0, high=1.0, rows=1)
    >>> both = first + second
    >>> both.pairs.to_dict(), both.rows, (both.low, both.high)
    ({('Mon', 1.0): 3, ('Tue', 2.0): 1}, 4, (1.0, 2.0))
    """

    pairs: pd.Series
    low: float = np.inf
    high: float = -np.inf
    rows: int = 0
    dropped: int = 0
    sources: list = field(default_factory=list)
    whole: bool = True  # every target value is a whole number

    def __add__(self, other: CategoryStatistics) -> CategoryStatistics:
        pairs = pd.concat([self.pairs, other.pairs]).groupby(level=[0, 1], sort=False).sum()
        return CategoryStatistics(pairs, min(self.low, other.low), max(self.high, other.high),
                                  self.rows + other.rows, self.dropped + other.dropped,
                                  whole=self.whole and other.whole)


#: Most distinct (category, value) pairs summed and sent to the driver (about 50 bytes each there).
MAX_PAIRS = 20_000_000
#: Equal bins over the target's range that a Wasserstein kernel counts values in unless told to count exactly.
VALUE_BINS = 1024


def _distinct_pairs(stats: CategoryStatistics) -> int:
    return len(stats.pairs)


def _too_many_pairs(n: int, limit: int) -> str:
    return (f"The table has more than {limit:,} distinct (category, target value) pairs, too many to gather and "
            "compare exactly; round the target into bins (--value-bins, value_bins).")


def _edges(low: float, high: float, bins: int) -> np.ndarray:
    """The histogram grid :func:`embedcore.spectral.symmetric_kl_distances` uses on the pooled range."""
    if high <= low:
        high = low + 1.0
    return np.linspace(low, high, bins + 1)


def _bin(y: np.ndarray, edges: np.ndarray) -> np.ndarray:
    return np.clip(np.searchsorted(edges, y, side="right") - 1, 0, len(edges) - 2)


def _at(part, row: int) -> str:
    return part.where(row) if isinstance(part, Part) else f"Partition {part}, row {row + 1} of the partition"


def _complete(frame: pd.DataFrame, column: str, target: str, transform: str | None, part):
    """Rows with both values, their categories and (transformed) targets, and how many rows were left out."""
    cats, raw = frame[column], frame[target]
    missing = (cats.isna() | raw.isna()).to_numpy(dtype=bool)
    kept = np.flatnonzero(~missing)
    cats, raw = cats[~missing], raw[~missing]
    y = pd.to_numeric(raw, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    if np.isnan(y).any():
        i = int(np.flatnonzero(np.isnan(y))[0])
        raise BatchError(f"{_at(part, int(kept[i]))}: the target {target!r} holds {raw.iloc[i]!r}, which is not a "
                         "number.")
    if not np.isfinite(y).all():
        i = int(np.flatnonzero(~np.isfinite(y))[0])
        raise BatchError(f"{_at(part, int(kept[i]))}: the target {target!r} is infinite; drop such rows first.")
    if transform == "log1p":
        if (y <= -1).any():
            raise BatchError("log1p needs target values > -1; this target has smaller ones.")
        y = np.log1p(y)
    return cats.astype(object).to_numpy(), y, int(missing.sum())


def _pair_counts(cats: np.ndarray, keys: np.ndarray) -> pd.Series:
    return pd.DataFrame({"category": cats, "key": keys}).value_counts(sort=False)


@refusals
def _statistics_task(part, column, target, transform, edges, number, limit=None) -> CategoryStatistics:
    frame = part.table([column, target]) if isinstance(part, Part) else part
    cats, y, dropped = _complete(frame, column, target, transform, part if isinstance(part, Part) else number)
    if isinstance(edges, str):  # "range": only the range and the rows per category
        keys = np.zeros(len(y))
    else:
        keys = y if edges is None else _bin(y, edges)
    low, high = (float(y.min()), float(y.max())) if y.size else (np.inf, -np.inf)
    pairs = _pair_counts(cats, keys)
    if limit is not None and len(pairs) > limit:
        raise BatchError(_too_many_pairs(len(pairs), limit))
    return CategoryStatistics(pairs, low, high, len(y), dropped, whole=bool((y == np.round(y)).all()))


def category_statistics(table, column: str, target: str, *, transform: str | None = None, edges=None,
                        client=None, retries: int = 2, progress: bool = True, format: str | None = None,
                        blocksize: str | int = "64MB", partition_rows: int | None = 1_000_000,
                        max_pairs: int = MAX_PAIRS) -> CategoryStatistics:
    """Count (category, target value) pairs, or (category, bin) pairs on ``edges``, over a partitioned table.

    ``edges="range"`` counts only rows per category (key 0), with the range.

    Rows missing the category or the target are left out and counted
    (``dropped``), as the Categories page leaves them out; a target that is
    not a number, or is infinite, is an error naming the file and line.

    The counts are summed on the workers; a partial sum holding more than
    ``max_pairs`` distinct pairs stops the run there, before anything that
    size reaches this process (round a continuous target: ``value_bins``).

    Examples
    --------
    >>> import tempfile
    >>> from distributed import Client
    >>> table = os.path.join(tempfile.mkdtemp(), "tips.csv")
    >>> pd.DataFrame({"day": ["Mon", "Mon", "Tue", "Sat"], "tip": [1.0, 1.0, None, 4.0]}).to_csv(table, index=False)
    >>> with Client(processes=False, n_workers=1, threads_per_worker=1, dashboard_address=None) as client:
    ...     stats = category_statistics(table, "day", "tip", client=client, progress=False)
    >>> stats.pairs.to_dict(), stats.rows, stats.dropped, (stats.low, stats.high)
    ({('Mon', 1.0): 2, ('Sat', 4.0): 1}, 3, 1, (1.0, 4.0))
    """
    from dask import delayed

    files, kind = open_table(table, "table", [column, target], format)
    parts = table_parts(files, kind, partition_rows=partition_rows, blocksize=blocksize)
    client = current_client(client)
    task = delayed(_statistics_task, pure=False)
    tasks = [task(p, column, target, transform, edges, i, max_pairs) for i, p in enumerate(parts)]
    label = "count values" if edges is None else "target range" if isinstance(edges, str) else "count bins"
    stats = tree_sum(client, tasks, retries=retries, progress=progress, label=label,
                     combine=bounded_sum(max_pairs, _distinct_pairs, _too_many_pairs))
    if stats.rows == 0:
        raise BatchError(f"No row has both a {column!r} and a {target!r} value.")
    stats.sources = files
    return stats


# --------------------------------------------------------------------------- the kernel on the driver


@dataclass
class CategoryKernel:
    """A spectral category encoding learned from a partitioned table: what the encoder's ``fit`` computes.

    Attributes
    ----------
    categories : object array, sorted (the encoder's ``categories_[0]``)
    counts : int array, rows per category
    distances : (m, m) array, Wasserstein or symmetric KL
    gamma : float, kernel width used
    affinity : (m, m) array, ``exp(-gamma * distances)`` with a zero diagonal
    eigenvalues : (m,) array, the normalised Laplacian's spectrum, ascending
    columns : list of int, the eigenvectors kept (see :func:`embedcore.spectral.code_columns`)
    embedding : (m, k) array, each category's code
    rows, dropped : rows used, rows left out for a missing value
    params : dict, the settings
    manifest : dict, what :func:`write_category_kernel` records (settings, spectrum, versions);
        filled in by :func:`read_category_kernel`

    Examples
    --------
    Weekdays with low tips and weekend days with high ones get codes of opposite signs,
    the same kernel as the encoder fitted in memory with the same width:

    >>> import tempfile
    >>> from distributed import Client
    >>> from embedcore.spectral import SpectralCategoryEncoder
    >>> frame = pd.DataFrame({"day": ["Mon", "Mon", "Tue", "Tue", "Sat", "Sat", "Sun", "Sun"],
    ...                       "tip": [1.0, 2.0, 1.0, 2.5, 4.0, 5.0, 4.5, 5.0]})
    >>> table = os.path.join(tempfile.mkdtemp(), "tips.csv")
    >>> frame.to_csv(table, index=False)
    >>> with Client(processes=False, n_workers=1, threads_per_worker=1, dashboard_address=None) as client:
    ...     ck = category_kernel(table, "day", "tip", n_components=1, value_bins=None, client=client, progress=False)
    >>> codes = ck.codes()  # an eigenvector's sign is the solver's choice: Mon is made positive to print it
    >>> codes.iloc[:, 1:] *= np.sign(codes.iloc[0, 1])
    >>> codes.round(3).values.tolist()
    [['Mon', 0.511], ['Sat', -0.489], ['Sun', -0.511], ['Tue', 0.489]]
    >>> in_memory = SpectralCategoryEncoder(gamma=ck.gamma, n_components=1).fit(frame[["day"]], frame["tip"])
    >>> bool(np.allclose(in_memory.affinity_, ck.affinity))
    True
    """

    categories: np.ndarray
    counts: np.ndarray
    distances: np.ndarray
    gamma: float
    affinity: np.ndarray
    eigenvalues: np.ndarray
    columns: list
    embedding: np.ndarray
    rows: int
    dropped: int
    params: dict
    manifest: dict = field(default_factory=dict)

    def codes(self) -> pd.DataFrame:
        """One row per category: ``category, e1, ..., ek`` (the Categories CSV)."""
        frame = pd.DataFrame(self.embedding, columns=[f"e{j + 1}" for j in range(self.embedding.shape[1])])
        frame.insert(0, "category", self.categories)
        return frame

    def encoder(self, column: str | None = None):
        """A fitted :class:`~embedcore.spectral.SpectralCategoryEncoder` over this kernel.

        It encodes rows as the in-memory encoder fitted on the whole table
        does, unseen values included (the frequency-weighted mean code).
        ``column``: the feature name it expects (default: the table's column).
        """
        from ..spectral import SpectralCategoryEncoder

        # the kernel is known; the rows per category weigh the code an unseen value gets
        return SpectralCategoryEncoder.from_statistics(
            self.categories, self.counts, kernel="precomputed", affinity=self.affinity,
            n_components=self.params["n_components"], keep_trivial=self.params["keep_trivial"],
            feature_name=column or self.params["column"])

    def summary(self) -> dict:
        """The kernel's settings and spectrum as plain JSON values."""
        return {"params": self.params, "gamma": float(self.gamma), "rows": int(self.rows),
                "dropped": int(self.dropped), "categories": [str(c) for c in self.categories],
                "counts": self.counts.tolist(), "eigenvalues": self.eigenvalues.tolist(), "columns": self.columns}


def _count_table(stats: CategoryStatistics, keys_to_values=None):
    """Sorted categories, the support, and the (categories x support) count matrix."""
    pairs = stats.pairs
    level = pairs.index.get_level_values(0)
    cats = pd.Index(level.unique()).sort_values()
    keys = pairs.index.get_level_values(1).to_numpy()
    values = keys if keys_to_values is None else keys_to_values[keys.astype(np.int64)]
    values = values.astype(np.float64)
    support = np.unique(values)
    if len(cats) * support.size > 2e8:
        raise BatchError(f"{len(cats):,} categories x {support.size:,} distinct target values is too many to "
                         "compare exactly; round the target into bins (value_bins).")
    counts = np.zeros((len(cats), support.size), dtype=np.int64)
    np.add.at(counts, (cats.get_indexer(level), np.searchsorted(support, values)), pairs.to_numpy(np.int64))
    return np.asarray(cats.to_numpy(dtype=object), dtype=object), support, counts


def check_kernel_params(kernel, gamma, n_components, bins, smoothing, value_bins, transform) -> None:
    """Refuse settings :func:`category_kernel` cannot use, before any data is read.

    The same ranges as :class:`~embedcore.spectral.SpectralCategoryEncoder`
    accepts; the batch form adds ``value_bins`` (None: count exactly).

    Examples
    --------
    >>> check_kernel_params("kl", "median", 2, 16, 0.5, None, "log1p")  # usable: nothing to say
    >>> check_kernel_params("cosine", "median", "eigengap", 32, 0.5, None, None)
    Traceback (most recent call last):
    ...
    embedcore.exceptions.BatchError: kernel must be 'wasserstein' or 'kl', got 'cosine'.
    """
    if kernel not in ("wasserstein", "kl"):
        raise BatchError(f"kernel must be 'wasserstein' or 'kl', got {kernel!r}.")
    if not (gamma == "median" or (isinstance(gamma, Real) and np.isfinite(gamma) and gamma > 0)):
        raise BatchError(f"gamma must be a positive number or 'median', got {gamma!r}.")
    if value_bins is not None and (not isinstance(value_bins, Integral) or value_bins < 2):
        raise BatchError(f"value_bins must be at least 2, got {value_bins}.")
    if n_components != "eigengap":
        check_setting("n_components", n_components, integer=True, low=1)
    check_setting("bins", bins, integer=True, low=2)
    check_setting("smoothing", smoothing, low=0, open_low=True)
    check_setting("target_transform", transform, choices=("log1p",), none=True)


def category_kernel(table, column: str, target: str, *, kernel: str = "wasserstein", gamma="median",
                    n_components="eigengap", keep_trivial: bool = False, target_transform: str | None = None,
                    bins: int = 32, smoothing: float = 0.5, value_bins: int | None = VALUE_BINS, client=None,
                    retries: int = 2, progress: bool = True, format: str | None = None,
                    blocksize: str | int = "64MB", partition_rows: int | None = 1_000_000,
                    max_pairs: int = MAX_PAIRS, n_jobs: int | None = None) -> CategoryKernel:
    """Learn a category kernel and spectral code from a partitioned table's target.

    Parameters
    ----------
    table : path(s)
        Parquet or CSV files, a directory or a glob.
    column, target : str
        The category column and the numeric target.
    kernel, n_components, keep_trivial, target_transform, bins, smoothing :
        As in :class:`~embedcore.spectral.SpectralCategoryEncoder`.
    gamma : float or "median", default="median"
        Kernel width; "median" is 1 / the median distance between categories.
    value_bins : int or None, default=1024
        Wasserstein only: count the target in this many equal bins over its
        range (found by a first pass on the workers), each value at its bin's
        centre: every distance is within one bin width, ``(max - min) /
        value_bins``, of the exact one (``params["bin_width"]``). A target of
        whole numbers spanning at most ``value_bins`` values is counted
        exactly (``bin_width`` None). None: count every distinct value
        exactly, the encoder's own numbers, at up to one pair per row.
    client, retries, progress, format, blocksize, partition_rows :
        As in :func:`embedcore.batch.sketch` (``partition_rows`` default 1,000,000).
    max_pairs : int, default=20,000,000
        Most distinct (category, value) pairs gathered; checked on the
        workers as the counts are summed (see :func:`category_statistics`).
    n_jobs : int or None
        Threads of this machine for the distances between categories, once
        the counts are summed (None: one, -1: every core).

    Returns
    -------
    CategoryKernel
        The distances, affinity, spectrum and codes of
        :meth:`SpectralCategoryEncoder.from_statistics
        <embedcore.spectral.SpectralCategoryEncoder.from_statistics>` on the
        summed counts: with exact counts, those of the encoder fitted on the
        whole table in memory.

    Examples
    --------
    >>> import tempfile
    >>> from distributed import Client
    >>> table = os.path.join(tempfile.mkdtemp(), "tips.csv")
    >>> pd.DataFrame({"day": ["Mon", "Mon", "Tue", "Tue", "Sat", "Sat", "Sun", "Sun"],
    ...               "tip": [1.0, 2.0, 1.0, 2.5, 4.0, 5.0, 4.5, 5.0]}).to_csv(table, index=False)
    >>> with Client(processes=False, n_workers=1, threads_per_worker=1, dashboard_address=None) as client:
    ...     ck = category_kernel(table, "day", "tip", value_bins=None, client=client, progress=False)
    >>> ck.categories.tolist(), ck.counts.tolist(), ck.rows
    (['Mon', 'Sat', 'Sun', 'Tue'], [2, 2, 2, 2], 8)
    >>> ck.eigenvalues.round(3).tolist(), ck.columns  # the eigengap after the second value: one code column
    ([0.0, 0.869, 1.565, 1.566], [1])
    """
    from ..spectral import SpectralCategoryEncoder, code_columns

    check_kernel_params(kernel, gamma, n_components, bins, smoothing, value_bins, target_transform)
    read = dict(client=current_client(client), retries=retries, progress=progress, format=format,
                blocksize=blocksize, transform=target_transform, partition_rows=partition_rows, max_pairs=max_pairs)
    grid, first = (bins if kernel == "kl" else value_bins), None
    if grid is not None:
        first = category_statistics(table, column, target, edges="range", **read)
        if kernel == "wasserstein" and first.whole and first.high - first.low < grid:
            grid = None  # whole numbers, no more distinct values than bins: counting them exactly costs no more
    if grid is None:
        stats = category_statistics(table, column, target, **read)
        cats, support, counts = _count_table(stats)
        width = None
    else:
        edges = _edges(first.low, first.high, grid)
        stats = category_statistics(table, column, target, edges=edges, **read)
        centres = (edges[:-1] + edges[1:]) / 2 if kernel == "wasserstein" else np.arange(grid, dtype=np.float64)
        cats, support, counts = _count_table(stats, centres)
        width = float(edges[1] - edges[0]) if kernel == "wasserstein" else None
        if kernel == "kl":  # every bin of the grid, occupied or not
            full = np.zeros((len(cats), grid), dtype=np.int64)
            full[:, support.astype(np.int64)] = counts
            counts = full
    if len(cats) < 2:
        raise BatchError(f"The column {column!r} has a single category ({cats[0]!r}); there is nothing to encode.")
    enc = SpectralCategoryEncoder.from_statistics(
        cats, counts, support if kernel == "wasserstein" else None, feature_name=column, kernel=kernel, gamma=gamma,
        n_components=n_components, keep_trivial=keep_trivial, target_transform=target_transform, bins=bins,
        smoothing=smoothing, n_jobs=n_jobs)
    kept = code_columns(enc.eigenvalues_[0], n_components, keep_trivial)
    params = dict(column=column, target=target, kernel=kernel, gamma=gamma, n_components=n_components,
                  keep_trivial=keep_trivial, target_transform=target_transform, bins=bins, smoothing=smoothing,
                  value_bins=value_bins, bin_width=width, input=fingerprint(stats.sources))
    return CategoryKernel(enc.categories_[0], counts.sum(axis=1), enc.distances_[0], enc.gammas_[0],
                          enc.affinity_[0], enc.eigenvalues_[0], kept, enc.embedding_[0], stats.rows, stats.dropped,
                          params)


# --------------------------------------------------------------------------- the files, written and read back

#: Largest output the reader opens (the lab's upload limit); a zip's members count uncompressed.
MAX_OUTPUT_BYTES = 200 * 2**20
_ARRAYS = ("categories", "counts", "distances", "affinity", "eigenvalues", "columns", "embedding", "manifest")
_WRITES = ("python -m embedcore category-kernel ... --out codes.csv writes three files: codes.csv (category, "
           "e1..ek), codes.csv.json (the settings and spectrum) and codes.csv.npz (the kernel, with everything the "
           "lab shows)")


def table_csv(frame: pd.DataFrame) -> str:
    """A table as the CSV :func:`category_kernel` (and ``python -m embedcore category-kernel``) reads.

    A header line, commas, numbers written so they read back exactly, and
    an empty cell for a missing value (which the command leaves out).

    Examples
    --------
    >>> table_csv(pd.DataFrame({"day": ["Mon", None], "tip": [1.5, 2.0]}))
    'day,tip\\nMon,1.5\\n,2.0\\n'
    """
    return frame.to_csv(index=False, lineterminator="\n")


def write_category_kernel(ck: CategoryKernel, path: str, *, versions: dict | None = None,
                          overwrite: bool = True) -> list[str]:
    """Write a learned kernel: ``path`` (codes CSV), ``path.json`` (summary) and ``path.npz`` (everything).

    The ``.npz`` alone is what the Categories page opens (with the other two,
    or a ``.zip`` of the three, it checks they belong together); it holds
    plain arrays only (categories as text), so it loads without pickle.
    Each file is written under a temporary name and renamed into place, so
    none is ever half-written; files of two runs side by side are told
    apart by :func:`read_category_kernel`. ``overwrite=False`` refuses to
    replace an existing one.

    Returns
    -------
    list of str
        The three paths written.

    Examples
    --------
    >>> import tempfile
    >>> from distributed import Client
    >>> folder = tempfile.mkdtemp()
    >>> pd.DataFrame({"day": ["Mon", "Mon", "Sat", "Sat", "Sun"], "tip": [1.0, 2.0, 4.0, 5.0, 4.5]}).to_csv(
    ...     os.path.join(folder, "tips.csv"), index=False)
    >>> with Client(processes=False, n_workers=1, threads_per_worker=1, dashboard_address=None) as client:
    ...     ck = category_kernel(os.path.join(folder, "tips.csv"), "day", "tip", client=client, progress=False)
    >>> paths = write_category_kernel(ck, os.path.join(folder, "codes.csv"))
    >>> [os.path.basename(p) for p in paths]
    ['codes.csv', 'codes.csv.json', 'codes.csv.npz']
    >>> print(open(os.path.join(folder, "codes.csv")).readline().strip())
    category,e1
    >>> back = read_category_kernel(paths[0])  # the codes CSV: the summary and kernel beside it are read too
    >>> back.categories.tolist(), bool(np.allclose(back.embedding, ck.embedding)), back.manifest["step"]
    (['Mon', 'Sat', 'Sun'], True, 'category-kernel')
    >>> write_category_kernel(ck, os.path.join(folder, "codes.csv"), overwrite=False)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    embedcore.exceptions.BatchError: ...codes.csv already exists...
    """
    from ._outputs import refuse_existing, temporary_beside

    paths = [path, path + ".json", path + ".npz"]
    refuse_existing(*paths, overwrite=overwrite)
    base = os.path.basename(path)
    manifest = {"step": "category-kernel", "complete": True, **ck.summary(), "versions": versions or {},
                "files": {"codes": base, "summary": base + ".json", "kernel": base + ".npz"}}
    tmps = [temporary_beside(p) for p in paths]
    try:
        ck.codes().to_csv(tmps[0], index=False)
        with open(tmps[1], "w", encoding="utf-8") as f:
            json.dump(manifest, f, indent=1, default=str)
        with open(tmps[2], "wb") as f:
            np.savez_compressed(f, categories=np.array([str(c) for c in ck.categories], dtype=str),
                                counts=np.asarray(ck.counts, dtype=np.int64), distances=ck.distances,
                                affinity=ck.affinity, eigenvalues=ck.eigenvalues,
                                columns=np.asarray(ck.columns, dtype=np.int64), embedding=ck.embedding,
                                manifest=np.array(json.dumps(manifest, default=str)))
        for tmp, final in zip(tmps, paths):
            os.replace(tmp, final)
    finally:
        for tmp in tmps:
            if os.path.exists(tmp):
                os.remove(tmp)
    return paths


def read_category_kernel(source) -> CategoryKernel:
    """Read back what ``python -m embedcore category-kernel`` wrote, checking that it holds together.

    Parameters
    ----------
    source : path, or a list of (file name, bytes)
        The ``.npz`` kernel file, alone or with the codes ``.csv`` and the
        ``.json`` summary of the same run, or a ``.zip`` holding them; a path
        may also be the codes CSV or a directory (the files next to it are read).

    Returns
    -------
    CategoryKernel
        The arrays and, in ``manifest``, the settings, spectrum and versions.

    Raises
    ------
    DataError
        Naming the file and what is wrong: a missing kernel file, arrays of
        the wrong shape or values, or files of different runs. Pickled
        objects are refused, never loaded.

    Examples
    --------
    A run's files read back in :func:`write_category_kernel`'s example. The codes alone
    do not hold the kernel; the message says which file to upload:

    >>> try:
    ...     read_category_kernel([("codes.csv", b"category,e1\\nMon,0.5\\n")])
    ... except DataError as err:
    ...     print(str(err).split(";")[0])
    codes.csv: the kernel file (.npz) is missing
    """
    files = _expand_zips(_named_files(source))
    kernels = [f for f in files if f[0].lower().endswith(".npz")]
    if not kernels:
        raise DataError(_no_kernel_message(files))
    if len(kernels) > 1:
        raise DataError(f"Got {len(kernels)} kernel files ({', '.join(n for n, _, _ in kernels)}); upload the output "
                        "of one run.")
    name, blob, _ = kernels[0]
    arrays = _load_kernel(name, blob)
    manifest = _manifest_of(name, arrays)
    ck = _kernel_of(name, arrays, manifest)
    for other, data, zipped in files:
        if other.lower().endswith(".json"):
            _check_summary(other, data, zipped, name, manifest)
        elif other.lower().endswith(".csv"):
            _check_codes(other, data, zipped, name, ck)
        elif not other.lower().endswith(".npz") and not zipped:
            raise DataError(f"{other} is not one of the files category-kernel writes; {_WRITES}.")
    return ck


def _named_files(source) -> list[tuple[str, bytes]]:
    """(name, bytes) of what ``source`` names."""
    if not isinstance(source, (str, os.PathLike)):
        return [(str(n), bytes(b)) for n, b in source]
    path = os.fspath(source)
    if os.path.isdir(path):
        names = sorted(os.path.join(path, n) for n in os.listdir(path) if n.lower().endswith((".npz", ".json", ".csv")))
    elif os.path.isfile(path):
        stem = path[:-4] if path.lower().endswith(".npz") else path[:-5] if path.lower().endswith(".json") else path
        names = [p for p in dict.fromkeys([path, stem, stem + ".json", stem + ".npz"]) if os.path.isfile(p)]
    else:
        raise DataError(f"{path} does not exist.")
    out = []
    for p in names:
        with open(p, "rb") as f:
            out.append((os.path.basename(p), f.read()))
    return out


def _expand_zips(files: list[tuple[str, bytes]]) -> list[tuple[str, bytes, bool]]:
    """The files with every ``.zip`` replaced by its .npz, .json and .csv members (flagged as zipped)."""
    out = []
    for name, blob in files:
        if not name.lower().endswith(".zip"):
            out.append((name, blob, False))
            continue
        try:
            with zipfile.ZipFile(io.BytesIO(blob)) as z:
                members = [m for m in z.infolist()
                           if not m.is_dir() and not os.path.basename(m.filename).startswith(".")
                           and m.filename.lower().endswith((".npz", ".json", ".csv")) and "__MACOSX" not in m.filename]
                if sum(m.file_size for m in members) > MAX_OUTPUT_BYTES:
                    raise DataError(f"{name} unpacks to more than {MAX_OUTPUT_BYTES // 2**20} MB; upload the "
                                    ".npz alone.")
                out += [(os.path.basename(m.filename), z.read(m), True) for m in members]
        except zipfile.BadZipFile:
            raise DataError(f"{name} is not a readable .zip file.") from None
    return out


def _no_kernel_message(files) -> str:
    if not files:
        return f"No file to read. {_WRITES}: upload the .npz (alone, with the others, or in a .zip)."
    names = ", ".join(n for n, _, _ in files)
    return (f"{names}: the kernel file (.npz) is missing; the codes and summary do not hold the kernel. {_WRITES}: "
            "upload the .npz (alone, with the others, or all three in a .zip).")


def _load_kernel(name: str, blob: bytes) -> dict:
    """The arrays of an .npz, never unpickling anything."""
    if not blob.startswith(b"PK\x03\x04"):  # an .npz is a zip archive of .npy files
        raise DataError(f"{name} is not a .npz file; {_WRITES}.")
    try:
        with np.load(io.BytesIO(blob), allow_pickle=False) as z:
            missing = [k for k in _ARRAYS if k not in z.files]
            if missing:
                raise DataError(f"{name} has no array {missing[0]!r}: it is not a kernel file of category-kernel "
                                f"(it holds {', '.join(z.files) or 'nothing'}).")
            return {k: z[k] for k in _ARRAYS}
    except DataError:
        raise
    except ValueError as err:
        if "pickle" in str(err).lower():
            raise DataError(f"{name} holds Python objects, which the lab never loads; category-kernel writes only "
                            "plain arrays. Write it again with the command.") from None
        raise DataError(f"{name} is not a readable .npz file ({err}).") from None
    except (zipfile.BadZipFile, OSError, EOFError):
        raise DataError(f"{name} is not a .npz file; {_WRITES}.") from None


def _manifest_of(name: str, arrays: dict) -> dict:
    raw = arrays["manifest"]
    try:
        manifest = json.loads(str(raw[()])) if raw.ndim == 0 and raw.dtype.kind == "U" else None
    except json.JSONDecodeError:
        manifest = None
    if not isinstance(manifest, dict) or manifest.get("step") != "category-kernel":
        raise DataError(f"{name}: its manifest is not that of a category-kernel run.")
    params = manifest.get("params")
    needed = ("column", "target", "kernel", "n_components", "keep_trivial", "target_transform")
    if not isinstance(params, dict) or any(k not in params for k in needed):
        raise DataError(f"{name}: its manifest lacks the settings ({', '.join(needed)}); write it again with the "
                        "command.")
    if params["kernel"] not in ("wasserstein", "kl"):
        raise DataError(f"{name}: unknown kernel {params['kernel']!r} in its manifest.")
    if not (params["n_components"] == "eigengap" or isinstance(params["n_components"], int)):
        raise DataError(f"{name}: n_components {params['n_components']!r} in its manifest is not 'eigengap' or "
                        "a number.")
    gamma = manifest.get("gamma")
    if not isinstance(gamma, (int, float)) or not np.isfinite(gamma) or gamma <= 0:
        raise DataError(f"{name}: gamma {gamma!r} in its manifest is not a positive number.")
    return manifest


def _array(name: str, arrays: dict, key: str, shape: tuple, kind: str) -> np.ndarray:
    """``arrays[key]`` checked for its shape and kind of number ("i" integers, "f" real numbers, "U" text)."""
    a = arrays[key]
    ok_kind = a.dtype.kind in ("iu" if kind == "i" else "iuf" if kind == "f" else "U")
    if a.shape != shape or not ok_kind:
        what = {"i": "integers", "f": "real numbers", "U": "text"}[kind]
        raise DataError(f"{name}: {key!r} is {' x '.join(map(str, a.shape)) or 'a scalar'} of {a.dtype}; "
                        f"it must be {' x '.join(map(str, shape))} {what} (one row per category).")
    if kind == "f" and not np.isfinite(a).all():
        raise DataError(f"{name}: {key!r} has NaN or infinite values.")
    return a.astype(np.float64) if kind == "f" else a


def _kernel_of(name: str, arrays: dict, manifest: dict) -> CategoryKernel:
    """The arrays, checked against each other and the manifest, as a CategoryKernel."""
    from ..spectral import kernel_from_distances

    cats = arrays["categories"]
    if cats.ndim != 1 or cats.dtype.kind != "U" or cats.size < 2:
        raise DataError(f"{name}: 'categories' must name at least two categories (text); it is {cats.dtype} of "
                        f"shape {cats.shape}.")
    m = cats.size
    index = pd.Index(cats)
    if not index.is_unique:
        raise DataError(f"{name}: the category {index[index.duplicated()][0]!r} is named twice.")
    if manifest.get("categories") != cats.tolist():
        raise DataError(f"{name}: its manifest names other categories than its arrays.")
    counts = _array(name, arrays, "counts", (m,), "i")
    D = _array(name, arrays, "distances", (m, m), "f")
    A = _array(name, arrays, "affinity", (m, m), "f")
    vals = _array(name, arrays, "eigenvalues", (m,), "f")
    cols = _array(name, arrays, "columns", (arrays["columns"].size,), "i")
    emb = _array(name, arrays, "embedding", (m, cols.size), "f")
    gamma = float(manifest["gamma"])
    if (counts <= 0).any() or int(counts.sum()) != manifest.get("rows"):
        raise DataError(f"{name}: the rows per category do not add up to the {manifest.get('rows')} rows its "
                        "manifest says were used.")
    if (D < 0).any() or not np.allclose(D, D.T, rtol=1e-12, atol=1e-12) or np.abs(np.diag(D)).max() > 0:
        raise DataError(f"{name}: 'distances' must be symmetric, >= 0, with zeros on the diagonal.")
    if not np.allclose(A, kernel_from_distances(D, gamma), rtol=1e-9, atol=1e-300):
        raise DataError(f"{name}: 'affinity' is not exp(-gamma * distance) at the gamma of its manifest "
                        f"({gamma:.6g}): the file was changed after the command wrote it.")
    if (np.diff(vals) < -1e-12).any() or vals.min() < -1e-9 or vals.max() > 2 + 1e-9:
        raise DataError(f"{name}: 'eigenvalues' must be ascending, in [0, 2] (a normalised Laplacian's spectrum).")
    if cols.size == 0 or (np.diff(cols) <= 0).any() or cols.min() < 0 or cols.max() >= m:
        raise DataError(f"{name}: 'columns' must be distinct eigenvector indices in ascending order, below {m}.")
    if manifest.get("columns") != cols.tolist() or not np.allclose(manifest.get("eigenvalues"), vals, atol=1e-12):
        raise DataError(f"{name}: its manifest's spectrum or kept columns differ from its arrays.")
    return CategoryKernel(np.asarray(cats.tolist(), dtype=object), counts.astype(np.int64), D, gamma, A, vals,
                          cols.tolist(), emb, int(manifest["rows"]), int(manifest.get("dropped", 0)),
                          dict(manifest["params"]), manifest)


def _check_summary(name: str, blob: bytes, zipped: bool, kernel: str, manifest: dict) -> None:
    """A .json uploaded with the kernel must be its run's summary (one of another step, in a zip, is skipped)."""
    try:
        summary = json.loads(blob.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise DataError(f"{name} is not JSON ({err}); the summary category-kernel writes is.") from None
    if not isinstance(summary, dict) or summary.get("step") != "category-kernel":
        if zipped:
            return
        raise DataError(f"{name} is not the summary of a category-kernel run; {_WRITES}.")
    for key in ("params", "gamma", "categories", "columns", "rows"):
        if summary.get(key) != manifest.get(key):
            raise DataError(f"{name} and {kernel} come from different runs (their {key} differ); upload the files "
                            "of one run.")


def _check_codes(name: str, blob: bytes, zipped: bool, kernel: str, ck: CategoryKernel) -> None:
    """A codes CSV uploaded with the kernel must hold its codes (another table, in a zip, is skipped)."""
    try:
        frame = pd.read_csv(io.BytesIO(blob), dtype={"category": str}, keep_default_na=False)
    except (ValueError, UnicodeDecodeError) as err:
        raise DataError(f"{name} is not a readable CSV file ({str(err).splitlines()[0]}).") from None
    k = ck.embedding.shape[1]
    expected = ["category"] + [f"e{j + 1}" for j in range(k)]
    if list(frame.columns[:1]) != ["category"] or not all(str(c).startswith("e") for c in frame.columns[1:]):
        if zipped:
            return
        raise DataError(f"{name} is not a codes file: its header is {', '.join(map(str, frame.columns[:6]))}, where "
                        f"category-kernel writes {', '.join(expected[:4])}{', ...' if k > 3 else ''}.")
    if list(frame.columns) != expected or len(frame) != len(ck.categories):
        raise DataError(f"{name} has {len(frame)} rows x {len(frame.columns) - 1} code columns, but {kernel} has "
                        f"{len(ck.categories)} categories x {k}: they come from different runs.")
    same = frame["category"].to_numpy(dtype=object) == np.asarray([str(c) for c in ck.categories], dtype=object)
    if not same.all():
        i = int(np.flatnonzero(~same)[0])
        raise DataError(f"{name}, row {i + 2}: category {frame['category'].iloc[i]!r} where {kernel} has "
                        f"{ck.categories[i]!r}: they come from different runs.")
    try:
        values = frame[expected[1:]].to_numpy(dtype=np.float64)
    except ValueError:
        raise DataError(f"{name}: a code is not a number.") from None
    close = np.isclose(values, ck.embedding, rtol=1e-9, atol=1e-12)
    if not close.all():
        i, j = (int(v) for v in np.argwhere(~close)[0])
        raise DataError(f"{name}: the code {expected[j + 1]} of {ck.categories[i]!r} is {values[i, j]:.6g} but "
                        f"{ck.embedding[i, j]:.6g} in {kernel}: they come from different runs.")
