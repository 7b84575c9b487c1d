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
