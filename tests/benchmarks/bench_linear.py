"""The Foundations page's orthonormal JL frame on the news TF-IDF rows, against one Householder QR of the same draws."""

from __future__ import annotations

import time

import numpy as np
from threadpoolctl import threadpool_limits

from embedcore import foundations as linear
from tests.benchmarks.harness import Result

K = 2048  # eight blocks of 256: the JL section's largest k (2,000) rounded up to whole blocks


def run() -> list[Result]:
    _, X = linear.news_counts()  # 300 x 7,168
    d = X.shape[1]
    with threadpool_limits(1):  # as the page computes: one BLAS thread for both
        times, state = [], None
        for _ in range(K // linear.JL_BLOCK):
            t = time.perf_counter()
            state = linear.extend_orthonormal(X, state, random_state=0)
            times.append(time.perf_counter() - t)
        ours = np.hstack(state.XQ)
        t = time.perf_counter()
        G = np.hstack([np.random.default_rng([0, c]).standard_normal((d, linear.JL_BLOCK))
                       for c in range(K // linear.JL_BLOCK)])
        Q, R = np.linalg.qr(G)
        ref = X @ (Q * np.sign(np.diag(R)))
        ref_s = time.perf_counter() - t
        gauss = time.perf_counter()
        for c in range(K // linear.JL_BLOCK):
            linear.projection_block(X, c, random_state=0)
        gauss = time.perf_counter() - gauss
    return [Result(f"orthonormal JL frame, news rows 300 x {d:,}, k={K:,}", sum(times),
                   "one Householder QR of the draws", ref_s,
                   f"blocks of 256 from {times[0]:.2f} s to {times[-1]:.2f} s; largest difference "
                   f"{np.abs(ours - ref).max():.1e}; the Gaussian kind's 8 blocks: {gauss:.2f} s")]
