"""LLE against scikit-learn's on the same swiss rolls; the comparison panel on the default roll."""

from __future__ import annotations

import time

from scipy.spatial import procrustes
from sklearn.datasets import make_swiss_roll
from sklearn.manifold import LocallyLinearEmbedding

from embedcore.manifold import LLE
from embedcore.maps import METHODS, embed
from embedcore.metrics import trustworthiness
from tests.benchmarks.harness import Result, best_of


def run() -> list[Result]:
    results = []
    for n in (5_000, 20_000):
        X, _ = make_swiss_roll(n, random_state=0)
        ours_model, ref_model = {}, {}
        ours = best_of(lambda: ours_model.setdefault("m", LLE(n_neighbors=12, random_state=0).fit(X)), repeat=1)
        ref = best_of(lambda: ref_model.setdefault("m", LocallyLinearEmbedding(n_neighbors=12, random_state=0).fit(X)), repeat=1)
        disparity = procrustes(ours_model["m"].embedding_, ref_model["m"].embedding_)[2]
        err_o, err_r = ours_model["m"].reconstruction_error_, ref_model["m"].reconstruction_error_
        results.append(Result(f"LLE swiss roll n={n:,}, B=12", ours, "sklearn LocallyLinearEmbedding", ref,
                              f"Procrustes disparity {disparity:.1e}; errors {err_o:.3e} vs {err_r:.3e}"))
    X, _ = make_swiss_roll(1500, random_state=0)
    t = time.perf_counter()
    notes = []
    for m in METHODS:
        one = time.perf_counter()
        r = embed(X, m, random_state=0, n_jobs=2)  # the threads the app gives a map (app/services/threads.py)
        notes.append(f"{m} {time.perf_counter() - one:.1f}s T={trustworthiness(X, r.coords, 10):.3f}")
    results.append(Result("comparison panel, 9 methods, 1,500-point roll", time.perf_counter() - t, "", None,
                          "; ".join(notes) + " (limit 30 s; includes UMAP's first-call compilation)"))
    return results
