"""Sparse-matrix building blocks shared by the estimators and the batch steps.

Sets of items, documents of words and partitions of sets all arrive as
ragged rows: row ``i`` holds ``columns[offsets[i]:offsets[i + 1]]``, the
layout of a CSR matrix's ``indptr`` and ``indices`` and of an Arrow list
column. :func:`ragged_to_csr` turns that layout into the (rows x columns)
count or weight matrix every one of them needs, so each caller builds it
the same way and gets the same bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain

import numpy as np
import scipy.sparse as sp

__all__ = ["offsets_of", "kept_offsets", "flatten", "flat_weights", "ragged_to_csr", "index_dtype", "narrow", "stack_rows"]


def offsets_of(lengths) -> np.ndarray:
    """Row lengths -> row offsets: ``[0, l0, l0 + l1, ...]`` (int64), one more than there are rows.

    Examples
    --------
    >>> offsets_of([2, 0, 1]).tolist()
    [0, 2, 2, 3]
    """
    lengths = np.asarray(lengths, dtype=np.int64)
    offsets = np.zeros(lengths.size + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return offsets


def kept_offsets(offsets, keep) -> np.ndarray:
    """The row offsets once the entries where ``keep`` is False are left out.

    Examples
    --------
    >>> kept_offsets([0, 3, 3, 5], np.array([True, False, True, True, False])).tolist()
    [0, 2, 2, 3]
    """
    return offsets_of(keep)[np.asarray(offsets, dtype=np.int64)]  # entries kept before each row's start


def flatten(lists: Sequence) -> tuple[np.ndarray, list]:
    """Lists -> (row offsets, every element in one flat list), without a Python loop over the lists.

    Examples
    --------
    >>> offsets, flat = flatten([["a", "b"], [], ["c"]])
    >>> offsets.tolist(), flat
    ([0, 2, 2, 3], ['a', 'b', 'c'])
    """
    lengths = np.fromiter(map(len, lists), dtype=np.int64, count=len(lists))
    return offsets_of(lengths), list(chain.from_iterable(lists))


def flat_weights(weights: Sequence, offsets: np.ndarray) -> np.ndarray:
    """One list of weights per set -> one float64 array, checked against the sets' ``offsets``.

    Examples
    --------
    >>> flat_weights([[0.5, 2], []], offsets_of([2, 0])).tolist()
    [0.5, 2.0]
    >>> flat_weights([[0.5], [1]], offsets_of([2, 0]))
    Traceback (most recent call last):
    ...
    ValueError: Set 0 has 2 items but 1 weights; give one weight per item.
    """
    w_offsets, flat = flatten(weights)
    if w_offsets.size != offsets.size:
        raise ValueError(f"Got {w_offsets.size - 1} lists of weights for {offsets.size - 1} sets; give one per set.")
    lengths, w_lengths = np.diff(offsets), np.diff(w_offsets)
    if (lengths != w_lengths).any():
        i = int(np.flatnonzero(lengths != w_lengths)[0])
        raise ValueError(f"Set {i} has {lengths[i]} items but {w_lengths[i]} weights; give one weight per item.")
    return np.fromiter(flat, dtype=np.float64, count=len(flat))


def ragged_to_csr(offsets, columns, n_columns: int, weights=None) -> sp.csr_array:
    """Ragged rows -> sparse (n_rows x n_columns) float64 matrix, repeats summed.

    Row ``i`` holds the entries ``offsets[i]`` to ``offsets[i + 1] - 1`` of
    ``columns`` (and of ``weights``, the values; 1 each when not given).
    A column that occurs twice in a row adds up. A negative column, as
    ``pandas.Index.get_indexer`` marks a name outside the index, is left
    out; a column ``>= n_columns`` is an error. Column indices come out
    sorted within each row, duplicates summed: the matrix
    ``scipy.sparse.coo_array((weights, (rows, columns))).tocsr()`` gives,
    built without the row-index array.

    Examples
    --------
    >>> ragged_to_csr([0, 3, 3, 5], [2, 0, 2, 1, -1], 3).toarray()
    array([[1., 0., 2.],
           [0., 0., 0.],
           [0., 1., 0.]])
    >>> ragged_to_csr([0, 2], [1, 1], 2, weights=[0.5, 2.0]).toarray()
    array([[0. , 2.5]])
    """
    offsets = np.asarray(offsets, dtype=np.int64)
    columns = np.asarray(columns)
    if columns.size and not np.issubdtype(columns.dtype, np.integer):
        raise TypeError(f"Column indices must be integers, got {columns.dtype}.")
    if offsets.ndim != 1 or offsets.size < 1 or offsets[0] != 0 or offsets[-1] != columns.size \
            or (np.diff(offsets) < 0).any():
        raise ValueError(f"offsets must rise from 0 to the number of entries ({columns.size}).")
    data = np.ones(columns.size) if weights is None else np.asarray(weights, dtype=np.float64)
    if data.shape != columns.shape:
        raise ValueError(f"Got {data.size} weights for {columns.size} entries; give one weight per entry.")
    if columns.size and columns.max() >= n_columns:
        raise ValueError(f"Column {int(columns.max())} is out of range: there are {n_columns} columns.")
    keep = columns >= 0
    if not keep.all():
        offsets = kept_offsets(offsets, keep)
        columns, data = columns[keep], data[keep]
    # copied: sum_duplicates sorts and compacts in place, and these may be the caller's arrays
    M = sp.csr_array((data, columns, offsets), shape=(offsets.size - 1, n_columns), copy=True)
    M.sum_duplicates()
    return M


def index_dtype(nnz: int):
    """The index type scipy would choose for ``nnz`` stored values: int32 while it fits."""
    return np.int32 if nnz < 2**31 - 1 else np.int64


def narrow(M: sp.csr_array) -> sp.csr_array:
    """Use 32-bit indices when they fit: scipy then multiplies with half the index traffic."""
    if M.indices.dtype != np.int32 and M.nnz < 2**31 - 1 and max(M.shape) < 2**31 - 1:
        M = sp.csr_array((M.data, M.indices.astype(np.int32), M.indptr.astype(np.int32)), shape=M.shape)
    return M


def stack_rows(parts: Sequence, width: int) -> sp.csr_array:
    """CSR blocks with ``width`` columns, one under the other, by concatenating their arrays.

    ``scipy.sparse.vstack`` checks and converts every block and takes longer
    than the products that make them; rows keep their stored order.

    Examples
    --------
    >>> a, b = sp.csr_array(np.eye(2)), sp.csr_array(np.ones((1, 2)))
    >>> stack_rows([a, b], 2).toarray()
    array([[1., 0.],
           [0., 1.],
           [1., 1.]])
    """
    if not parts:
        return sp.csr_array((0, width), dtype=np.float32)
    nnz = np.cumsum([0] + [p.nnz for p in parts])
    indptr = np.concatenate([np.zeros(1, dtype=np.int64)] +
                            [p.indptr[1:].astype(np.int64) + off for p, off in zip(parts, nnz[:-1])])
    index = index_dtype(int(nnz[-1]))
    return sp.csr_array((np.concatenate([p.data for p in parts]),
                         np.concatenate([p.indices for p in parts]).astype(index, copy=False),
                         indptr.astype(index, copy=False)), shape=(int(sum(p.shape[0] for p in parts)), width))
