"""The merge of two sorted sparse vectors, compiled: a two-pointer walk has no vectorised form."""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True)
def merge(ai, av, bi, bv):
    """(inner product, comparisons, shared indices) of two sparse vectors with strictly increasing indices."""
    i = 0
    j = 0
    steps = 0
    matches = 0
    total = 0.0
    while i < ai.size and j < bi.size:
        steps += 1
        if ai[i] == bi[j]:
            total += av[i] * bv[j]
            matches += 1
            i += 1
            j += 1
        elif ai[i] < bi[j]:
            i += 1
        else:
            j += 1
    return total, steps, matches


@numba.njit(cache=True)
def merge_rows(indptr, indices, data, rows_a, rows_b):
    """:func:`merge` of rows ``rows_a[k]`` and ``rows_b[k]`` of a CSR matrix, for every k."""
    m = rows_a.size
    dots = np.zeros(m)
    steps = np.zeros(m, dtype=np.int64)
    matches = np.zeros(m, dtype=np.int64)
    for k in range(m):
        a, b = rows_a[k], rows_b[k]
        dots[k], steps[k], matches[k] = merge(indices[indptr[a]:indptr[a + 1]], data[indptr[a]:indptr[a + 1]],
                                              indices[indptr[b]:indptr[b + 1]], data[indptr[b]:indptr[b + 1]])
    return dots, steps, matches
