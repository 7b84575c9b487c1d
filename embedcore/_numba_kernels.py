"""Compiled loops for the few places where no vectorised form exists."""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True)
def _w1_pair(a, b):
    """1-Wasserstein distance of two sorted samples: walk their quantile steps together.

    Quantile levels are counted in units of 1 / (na * nb): a's steps end at
    multiples of nb, b's at multiples of na, so every comparison is exact.
    """
    na, nb = a.size, b.size
    i = 0
    j = 0
    prev = 0
    ra = nb
    rb = na
    total = 0.0
    while i < na and j < nb:
        nxt = ra if ra < rb else rb
        total += (nxt - prev) * abs(a[i] - b[j])
        prev = nxt
        if ra == nxt:
            i += 1
            ra += nb
        if rb == nxt:
            j += 1
            rb += na
    return total / (na * nb)


@numba.njit(parallel=True, cache=True)
def pairwise_quantile_w1(flat, starts):
    """Upper triangle of all-pairs W1; sample k is flat[starts[k]:starts[k+1]], sorted.

    Rows r and n-1-r go to the same task so every task has the same number of pairs.
    """
    n = starts.size - 1
    out = np.zeros((n, n))
    for r in numba.prange((n + 1) // 2):
        for side in range(2):
            rr = np.int64(r)  # prange indices are unsigned; keep the arithmetic in int64
            i = rr if side == 0 else n - 1 - rr
            if side == 1 and i == rr:
                continue  # the middle row of an odd n
            a = flat[starts[i] : starts[i + 1]]
            for j in range(i + 1, n):
                out[i, j] = _w1_pair(a, flat[starts[j] : starts[j + 1]])
    return out


@numba.njit(cache=True)
def _sq_dist(X, i, j):
    d = 0.0
    for q in range(X.shape[1]):
        diff = X[i, q] - X[j, q]
        d += diff * diff
    return d


@numba.njit(cache=True)
def stable_ranks(X, rows, starts, cols):
    """Rank of point ``cols[c]`` among the others by distance from ``rows[r]``, for c in
    ``starts[r]:starts[r + 1]``: one plus the points nearer, and among the equally near those of
    a lower index (a stable sort's order). One pass over the points per row, no sort."""
    out = np.ones(cols.size, dtype=np.int64)
    n = X.shape[0]
    for r in range(rows.size):
        i = rows[r]
        s, e = starts[r], starts[r + 1]
        t = np.empty(e - s)
        for c in range(s, e):
            t[c - s] = _sq_dist(X, i, cols[c])
        for m in range(n):
            if m == i:
                continue
            d = _sq_dist(X, i, m)
            for c in range(s, e):
                if d < t[c - s] or (d == t[c - s] and m < cols[c]):
                    out[c] += 1
    return out
