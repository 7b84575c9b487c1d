"""EMDE: our vectorised sketches against the post's algorithm written plainly, in one run."""

from __future__ import annotations

import time

import numpy as np
import scipy.sparse as sp
from sklearn.feature_extraction.text import CountVectorizer

from embedcore.emde import EMDE
from tests.benchmarks.harness import Result, best_of


def reference_item_sketches(K: int, N: int, X: np.ndarray, rng: np.random.Generator) -> sp.csr_matrix:
    """The plain algorithm: a loop over partitionings, one-hot through CountVectorizer."""
    n, d = X.shape
    blocks = []
    for _ in range(N):
        normals = rng.standard_normal((K, d))
        anchors = rng.integers(n, size=K)
        proj = normals @ X.T
        offsets = proj[np.arange(K), anchors]
        bits = (proj > offsets[:, None]).T
        codes = (bits * (2 ** np.arange(K))).sum(axis=1)
        blocks.append(CountVectorizer(analyzer=lambda x: x).fit_transform(codes.reshape(n, 1)))
    return sp.hstack(blocks).tocsr()


def run() -> list[Result]:
    rng = np.random.default_rng(0)
    X = rng.standard_normal((100_000, 100))
    e = EMDE(n_hyperplanes=10, n_partitions=30, random_state=0).fit(X[:1000])
    ours = best_of(lambda: e.transform(X))
    ref = best_of(lambda: reference_item_sketches(10, 30, X, np.random.default_rng(1)), repeat=1)
    results = [Result("EMDE transform (item sketches) 100k x 100d, K=10 N=30", ours, "plain loop + CountVectorizer",
                      ref)]

    # 100,000 sets holding 1,000,000 items in total, over 100,000 fitted items.
    e = EMDE(n_hyperplanes=10, n_partitions=30, random_state=0).fit(X)
    sizes = rng.integers(1, 20, size=100_000)
    sizes = np.round(sizes * (1_000_000 / sizes.sum())).astype(int)
    rows = np.repeat(np.arange(sizes.size), sizes)
    cols = rng.integers(0, 100_000, size=rows.size)
    W = sp.csr_array((np.ones(rows.size), (rows, cols)), shape=(sizes.size, 100_000))
    t_ours = best_of(lambda: e.sketch(W))
    # Reference: the same product through the plain reference's sketches.
    plain = reference_item_sketches(10, 30, X, np.random.default_rng(1))
    t_ref = best_of(lambda: sp.csr_matrix(W) @ plain, repeat=1)
    results.append(
        Result(f"EMDE sketch 100k sets, {rows.size:,} items", t_ours, "scipy product on plain sketches", t_ref,
               "limit 0.5 s")
    )
    t = time.perf_counter()
    EMDE(n_hyperplanes=10, n_partitions=30, random_state=0).fit(X)
    results.append(Result("EMDE fit 100k x 100d, K=10 N=30", time.perf_counter() - t, "", None))
    results.extend(occupied_bucket_results(X))
    return results


def occupied_bucket_results(X: np.ndarray) -> list[Result]:
    """The post's two extremes with only occupied buckets kept, against its plain algorithm (which keeps the same)."""
    out = []
    for K, N, n in ((30, 1, 100_000), (1, 2000, 10_000)):
        Xn = X[:n]

        def ours():
            e = EMDE(n_hyperplanes=K, n_partitions=N, drop_empty=True, random_state=0).fit(Xn)
            return e.item_sketches_

        t_ours = best_of(ours)
        t_ref = best_of(lambda: reference_item_sketches(K, N, Xn, np.random.default_rng(1)), repeat=1)
        width = ours().shape[1]
        out.append(Result(f"EMDE fit + item sketches, occupied buckets only, {n:,} x 100d, K={K} N={N} "
                          f"({width:,} columns)", t_ours, "plain loop + CountVectorizer", t_ref))
    return out


# --------------------------------------------------------------------------- the post's accuracy table


def sets_benchmark(names=("hotdog", "newsgroup_words", "digit_ink"), progress=print):
    """The Sets page's benchmark on the bundled labelled data sets, under the lab's protocol.

    EMDE at the post's grid points and the mean vector, each on the data's own item vectors and on Word2Vec
    vectors trained inside each training fold, and the bag of items once; every encoding with the same
    logistic regression, the same folds and the same search over C (:func:`tests.benchmarks.results.set_benchmark`).
    Returns one ranking per data set, best first.
    """
    import pandas as pd

    from tests.benchmarks.results import set_benchmark

    tables = {}
    for name in names:
        t = time.perf_counter()
        result, ranked = set_benchmark(name)
        progress(f"{name}: {len(ranked)} encodings in {time.perf_counter() - t:.1f} s. {result.protocol}")
        tables[name] = ranked[["rank", "side", "held-out", "low", "high", "chosen", "vs best"]]
    return pd.concat(tables, names=["data"]).reset_index(level=0)


if __name__ == "__main__":
    import sys

    out = sets_benchmark(tuple(sys.argv[1:]) or ("hotdog", "newsgroup_words", "digit_ink"))
    print(out.round({"held-out": 4, "low": 4, "high": 4}).to_string(index=False))
