"""Spectral encoding: the learned Wasserstein kernel and the partial spectrum, against references."""

from __future__ import annotations

import time

import numpy as np
from scipy.stats import wasserstein_distance

from embedcore.spectral import category_distributions, laplacian_spectrum, wasserstein_distances
from tests.benchmarks.harness import Result, best_of

N_CAT, N_ROWS, N_REF_PAIRS = 1_000, 1_000_000, 3_000


def _data(rng, discrete: bool):
    cats = rng.integers(0, N_CAT, N_ROWS)
    centre = rng.normal(3.0, 0.6, N_CAT)[cats]
    y = np.exp(centre + rng.normal(0, 0.8, N_ROWS))  # skewed, like sales amounts
    return cats, (np.round(y) if discrete else y)


def _scenario(rng, discrete: bool) -> Result:
    cats, y = _data(rng, discrete)
    _, samples = category_distributions(cats, y)
    wasserstein_distances(samples[:3], method="quantile")  # compile the numba kernel outside the timing
    D = wasserstein_distances(samples)
    ours = best_of(lambda: wasserstein_distances(samples), repeat=3)
    # Reference: scipy's pairwise function in a loop, timed on random pairs and scaled
    # to all 499,500 pairs (the full loop would take about a minute).
    pairs = rng.choice(N_CAT, size=(N_REF_PAIRS, 2))
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    t = time.perf_counter()
    ref_vals = np.array([wasserstein_distance(samples[i], samples[j]) for i, j in pairs])
    per_pair = (time.perf_counter() - t) / len(pairs)
    err = float(np.abs(D[pairs[:, 0], pairs[:, 1]] - ref_vals).max())
    n_support = np.unique(y).size
    return Result(
        f"W1 kernel 1k categories x 1M rows, {'rounded' if discrete else 'continuous'} target",
        ours,
        "loop of scipy wasserstein_distance",
        per_pair * N_CAT * (N_CAT - 1) / 2,
        f"{n_support:,} distinct values; max |diff| {err:.1e} on {len(pairs):,} pairs; ref scaled from them",
    )


def run() -> list[Result]:
    rng = np.random.default_rng(0)
    results = [_scenario(rng, True), _scenario(rng, False)]
    # A 5,000-category affinity (a kNN-like graph of noisy similarities), 20 eigenvectors.
    n = 5_000
    pts = rng.standard_normal((n, 3))
    sq = (pts**2).sum(1)
    A = np.exp(-0.5 * np.maximum(sq[:, None] + sq[None, :] - 2 * pts @ pts.T, 0))
    np.fill_diagonal(A, 0)
    ours = best_of(lambda: laplacian_spectrum(A, n_components=20), repeat=2)
    from scipy.linalg import eigh

    def full():
        d = 1 / np.sqrt(A.sum(1))
        return eigh(np.eye(n) - d[:, None] * A * d[None, :], subset_by_index=[0, 19])

    ref = best_of(full, repeat=1)
    results.append(Result("Laplacian spectrum, 5,000 categories, 20 vectors", ours,
                          "scipy eigh (dense, subset)", ref, "limit 2 s"))
    return results
