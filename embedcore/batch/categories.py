"""Spectral category encodings learned from the target of a table larger than memory.

:class:`~embedcore.spectral.SpectralCategoryEncoder` compares, for every
pair of category values, the target's distribution within each: by the
1-Wasserstein distance of the empirical distributions, or by the symmetric
KL divergence of histograms on a common grid of equal bins over the pooled
range. Both need only counts, and counts of partitions add up:

* Wasserstein: how often each (category, target value) pair occurs. The
  summed counts are the CDFs on the pooled support that the in-memory
  ``"cdf"`` computation uses, so the distances are the same numbers. Their
  size is the number of distinct pairs: for a continuous target over a huge
  table, round it with ``value_bins`` (each value moves to its bin's centre,
  which changes any distance by at most one bin width).
* KL: a first pass finds the pooled minimum and maximum (the grid), a
  second counts each category's values per bin: the same histograms.

The driver then builds the kernel, the normalised Laplacian's spectrum and
the code with the encoder's own functions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from numbers import Integral, Real

import numpy as np
import pandas as pd

from ..spectral import symmetric_kl_from_counts, wasserstein_from_counts
from ._cluster import BatchError, current_client, refusals, tree_sum
from ._inputs import expand_paths, fingerprint, read_table, table_format

__all__ = ["CategoryStatistics", "CategoryKernel", "category_statistics", "category_kernel"]


@dataclass
class CategoryStatistics:
    """Per-partition statistics of a (category, target) table; they add up over partitions.

    ``pairs`` counts (category, key) pairs, where the key is the target value
    or its bin; ``low``/``high`` are the target's range.
    """

    pairs: pd.Series
    low: float = np.inf
    high: float = -np.inf
    rows: int = 0
    dropped: int = 0
    sources: list = field(default_factory=list)

    def __add__(self, other: CategoryStatistics) -> CategoryStatistics:
        pairs = pd.concat([self.pairs, other.pairs]).groupby(level=[0, 1], sort=False).sum()
        return CategoryStatistics(pairs, min(self.low, other.low), max(self.high, other.high),
                                  self.rows + other.rows, self.dropped + other.dropped)


def _edges(low: float, high: float, bins: int) -> np.ndarray:
    """The histogram grid :func:`embedcore.spectral.symmetric_kl_distances` uses on the pooled range."""
    if high <= low:
        high = low + 1.0
    return np.linspace(low, high, bins + 1)


def _bin(y: np.ndarray, edges: np.ndarray) -> np.ndarray:
    return np.clip(np.searchsorted(edges, y, side="right") - 1, 0, len(edges) - 2)


def _complete(frame: pd.DataFrame, column: str, target: str, transform: str | None, part: int):
    """Rows with both values, their categories and (transformed) targets, and how many rows were left out."""
    cats, raw = frame[column], frame[target]
    missing = (cats.isna() | raw.isna()).to_numpy(dtype=bool)
    cats, raw = cats[~missing], raw[~missing]
    y = pd.to_numeric(raw, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    if np.isnan(y).any():
        bad = raw.iloc[int(np.flatnonzero(np.isnan(y))[0])]
        raise BatchError(f"Partition {part}: the target {target!r} holds {bad!r}, which is not a number.")
    if not np.isfinite(y).all():
        raise BatchError(f"Partition {part}: the target {target!r} has infinite values; drop those rows first.")
    if transform == "log1p":
        if (y <= -1).any():
            raise BatchError("log1p needs target values > -1; this target has smaller ones.")
        y = np.log1p(y)
    return cats.astype(object).to_numpy(), y, int(missing.sum())


def _pair_counts(cats: np.ndarray, keys: np.ndarray) -> pd.Series:
    return pd.DataFrame({"category": cats, "key": keys}).value_counts(sort=False)


@refusals
def _statistics_task(frame, column, target, transform, edges, part) -> CategoryStatistics:
    cats, y, dropped = _complete(frame, column, target, transform, part)
    if isinstance(edges, str):  # "range": only the range and the rows per category
        keys = np.zeros(len(y))
    else:
        keys = y if edges is None else _bin(y, edges)
    low, high = (float(y.min()), float(y.max())) if y.size else (np.inf, -np.inf)
    return CategoryStatistics(_pair_counts(cats, keys), low, high, len(y), dropped)


def category_statistics(table, column: str, target: str, *, transform: str | None = None, edges=None,
                        client=None, retries: int = 2, progress: bool = True, format: str | None = None,
                        blocksize: str | int = "64MB") -> CategoryStatistics:
    """Count (category, target value) pairs, or (category, bin) pairs on ``edges``, over a partitioned table.

    ``edges="range"`` counts only rows per category (key 0), with the range.

    Rows missing the category or the target are left out and counted
    (``dropped``), as the Categories page leaves them out; a target that is
    not a number, or is infinite, is an error naming the partition.
    """
    from dask import delayed

    files = expand_paths(table, "table")
    frame = read_table(files, table_format(files, format), [column, target], blocksize)
    client = current_client(client)
    task = delayed(_statistics_task, pure=False)
    tasks = [task(p, column, target, transform, edges, i) for i, p in enumerate(frame.to_delayed())]
    label = "count values" if edges is None else "target range" if isinstance(edges, str) else "count bins"
    stats = tree_sum(client, tasks, retries=retries, progress=progress, label=label)
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

    def codes(self) -> pd.DataFrame:
        """One row per category: ``category, e1, ..., ek`` (the Categories CSV)."""
        frame = pd.DataFrame(self.embedding, columns=[f"e{j + 1}" for j in range(self.embedding.shape[1])])
        frame.insert(0, "category", self.categories)
        return frame

    def encoder(self, column: str = "category"):
        """A fitted :class:`~embedcore.spectral.SpectralCategoryEncoder` over this kernel.

        It encodes rows as the in-memory encoder fitted on the whole table
        does, unseen values included (the frequency-weighted mean code).
        """
        from ..spectral import SpectralCategoryEncoder

        enc = SpectralCategoryEncoder(kernel="precomputed", affinity=self.affinity, categories=self.categories,
                                      n_components=self.params["n_components"],
                                      keep_trivial=self.params["keep_trivial"])
        enc.fit(pd.DataFrame({column: self.categories}))
        # the fit saw each category once; the unseen-value fallback weighs them by their rows in the table
        enc.frequencies_ = [self.counts / self.counts.sum()]
        return enc

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

    The encoder's own constraints (its ``_parameter_constraints``) decide
    what it accepts; the batch form adds ``gamma="median"`` and ``value_bins``.
    """
    from sklearn.utils._param_validation import InvalidParameterError

    from ..spectral import SpectralCategoryEncoder

    if kernel not in ("wasserstein", "kl"):
        raise BatchError(f"kernel must be 'wasserstein' or 'kl', got {kernel!r}.")
    if not (gamma == "median" or (isinstance(gamma, Real) and np.isfinite(gamma) and gamma > 0)):
        raise BatchError(f"gamma must be a positive number or 'median', got {gamma!r}.")
    if value_bins is not None and (not isinstance(value_bins, Integral) or value_bins < 2):
        raise BatchError(f"value_bins must be at least 2, got {value_bins}.")
    encoder = SpectralCategoryEncoder(kernel=kernel, gamma=1.0 if gamma == "median" else gamma,
                                      n_components=n_components, bins=bins, smoothing=smoothing,
                                      target_transform=transform)
    try:
        encoder._validate_params()
    except InvalidParameterError as err:
        raise BatchError(str(err)) from None


def category_kernel(table, column: str, target: str, *, kernel: str = "wasserstein", gamma="median",
                    n_components="eigengap", keep_trivial: bool = False, target_transform: str | None = None,
                    bins: int = 32, smoothing: float = 0.5, value_bins: int | None = None, client=None,
                    retries: int = 2, progress: bool = True, format: str | None = None,
                    blocksize: str | int = "64MB", n_jobs: int | None = None) -> CategoryKernel:
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
    value_bins : int, optional
        Wasserstein only: round the target to the centres of this many equal
        bins over its range first (an approximation, within one bin width).
    client, retries, progress, format, blocksize :
        As in :func:`embedcore.batch.sketch`.
    n_jobs : int or None
        Threads of this machine for the distances between categories, once
        the counts are summed (None: one, -1: every core).

    Returns
    -------
    CategoryKernel
        The same distances, affinity, spectrum and codes as the encoder
        fitted on the whole table in memory.
    """
    from ..spectral import (
        code_columns,
        kernel_from_distances,
        laplacian_spectrum,
        median_distance,
    )

    check_kernel_params(kernel, gamma, n_components, bins, smoothing, value_bins, target_transform)
    read = dict(client=current_client(client), retries=retries, progress=progress, format=format,
                blocksize=blocksize, transform=target_transform)
    grid = bins if kernel == "kl" else value_bins
    if grid is None:
        stats = category_statistics(table, column, target, **read)
        cats, support, counts = _count_table(stats)
    else:
        first = category_statistics(table, column, target, edges="range", **read)
        edges = _edges(first.low, first.high, grid)
        stats = category_statistics(table, column, target, edges=edges, **read)
        centres = (edges[:-1] + edges[1:]) / 2 if kernel == "wasserstein" else np.arange(grid, dtype=np.float64)
        cats, support, counts = _count_table(stats, centres)
        if kernel == "kl":  # every bin of the grid, occupied or not
            full = np.zeros((len(cats), grid), dtype=np.int64)
            full[:, support.astype(np.int64)] = counts
            counts = full
    if len(cats) < 2:
        raise BatchError(f"The column {column!r} has a single category ({cats[0]!r}); there is nothing to encode.")
    if kernel == "wasserstein":
        D = wasserstein_from_counts(support, counts, n_jobs=n_jobs)
    else:
        D = symmetric_kl_from_counts(counts, smoothing)
    g = 1.0 / median_distance(D) if gamma == "median" else float(gamma)
    A = kernel_from_distances(D, g)
    vals, vecs = laplacian_spectrum(A, labels=cats)
    kept = code_columns(vals, n_components, keep_trivial)
    params = dict(column=column, target=target, kernel=kernel, gamma=gamma, n_components=n_components,
                  keep_trivial=keep_trivial, target_transform=target_transform, bins=bins, smoothing=smoothing,
                  value_bins=value_bins, input=fingerprint(stats.sources))
    return CategoryKernel(cats, counts.sum(axis=1), D, g, A, vals, kept, vecs[:, kept], stats.rows, stats.dropped,
                          params)
