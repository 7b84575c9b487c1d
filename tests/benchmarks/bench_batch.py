"""The batch steps on a LocalCluster of this machine, against the in-memory path in the same run.

EMDE: 10 million sets (1 to 19 items each, about 100 million item
occurrences) over 1 million items in 100 dimensions, K=10, N=30, drawn on
the workers partition by partition from a seed (never materialised on the
driver), sketched at 1 and at 2 workers; the reference is ``EMDE.sketch``
of a 1 million-set slice in memory (all cores). Throughput is compared per
million sets. Every worker's resident memory and CPU time are sampled while
it runs: the peak memory is reported next to the partition size, and the CPU
time per million sets next to the in-memory path's, with the cores the
workers actually got (on a machine shared with other work, wall-clock
scaling with workers says as much about the neighbours as about Dask).

PMI: a generated corpus of 50 million tokens (Zipf-distributed over 100,000
word types, 10 to 40 tokens per line) counted by
:func:`embedcore.batch.count_corpus` at 1 and 2 workers, against the
in-memory counting path of ``PMIWordVectors.fit`` (tokenise every line,
:func:`build_vocabulary`, :func:`cooccurrence`) on a 5 million-token slice.

Run: ``python -m tests.benchmarks.run bench_batch`` (many minutes).
"""

from __future__ import annotations

import os
import pickle
import shutil
import tempfile
import threading
import time

import numpy as np
import pandas as pd
import scipy.sparse as sp

from embedcore import batch
from embedcore.emde import EMDE
from embedcore.words import build_vocabulary, cooccurrence, tokenize
from tests.benchmarks.harness import Result

N_SETS, N_ITEMS, DIM, K, N = 10_000_000, 1_000_000, 100, 10, 30
PARTITION = 100_000
SIZES = (1, 19)
N_SLICE, N_SMALL_PARTS, N_WRITTEN = 1_000_000, 2_000_000, 1_000_000  # in memory; in 25k-set partitions; to disk
N_TOKENS, N_TYPES, SLICE_TOKENS = 50_000_000, 100_000, 5_000_000


class WorkerUsage:
    """Samples every worker's resident memory and CPU time (psutil, in the worker) while a step runs.

    ``peak_mb``: the largest resident set size of any worker. ``cores``: the
    workers' CPU seconds over the wall time, the cores they actually got on
    a machine other work is also using.
    """

    def __init__(self, client, every: float = 0.2):
        self.client, self.every, self.peak, self.cpu = client, every, {}, {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _sample(self):
        def usage():  # defined here so that it travels by value to the workers
            import psutil

            p = psutil.Process()
            t = p.cpu_times()
            return p.memory_info().rss, t.user + t.system

        for worker, (rss, cpu) in self.client.run(usage).items():
            self.peak[worker] = max(self.peak.get(worker, 0), rss)
            self.cpu.setdefault(worker, [cpu, cpu])[1] = cpu

    def _loop(self):
        while not self._stop.is_set():
            try:
                self._sample()
            except Exception:  # the cluster is closing
                return
            self._stop.wait(self.every)

    def __enter__(self):
        self._sample()
        self._start, self._load = time.perf_counter(), os.getloadavg()[0]
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self._sample()
        self.seconds = time.perf_counter() - self._start
        self.load = max(self._load, os.getloadavg()[0])

    @property
    def peak_mb(self) -> float:
        return max(self.peak.values()) / 2**20

    @property
    def cpu_seconds(self) -> float:
        return sum(b - a for a, b in self.cpu.values())

    def note(self) -> str:
        return (f"workers got {self.cpu_seconds / self.seconds:.2f} cores (load average up to {self.load:.1f} "
                f"on {os.cpu_count()} cores)")


def _sketch_run(emde, n_sets: int, workers: int, partition: int, out: str | None):
    source = batch.RandomSets(n_sets, n_items=N_ITEMS, partition_size=partition, sizes=SIZES, seed=1)
    with batch.cluster(workers=workers, processes=True, quiet=True) as client:
        client.wait_for_workers(workers)
        with WorkerUsage(client) as usage:
            t = time.perf_counter()
            batch.sketch(emde, source, out, client=client, progress=False)
            seconds = time.perf_counter() - t
    return seconds, usage


def _emde_results() -> list[Result]:
    rng = np.random.default_rng(0)
    X = rng.standard_normal((N_ITEMS, DIM))
    emde = EMDE(n_hyperplanes=K, n_partitions=N, random_state=0).fit(X)
    del X
    model_mb = len(pickle.dumps(emde, protocol=5)) / 2**20
    source = batch.RandomSets(N_SETS, n_items=N_ITEMS, partition_size=PARTITION, sizes=SIZES, seed=1)
    W = sp.csr_array(sp.vstack([source.batch(p).matrix(N_ITEMS) for p in range(N_SLICE // PARTITION)],
                               format="csr"))
    t, cpu = time.perf_counter(), time.process_time()
    S = emde.sketch(W)
    mem_rate = W.shape[0] / (time.perf_counter() - t)
    t_mem = 1e6 / mem_rate  # seconds per million sets
    cpu_mem = (time.process_time() - cpu) / (W.shape[0] / 1e6)  # CPU seconds per million sets
    partition_mb = S.nnz / W.shape[0] * PARTITION * 8 / 2**20  # float32 values + int32 columns
    del S, W
    ref = f"in-memory transform, {N_SLICE / 1e6:g}M sets"
    results = []
    for workers in (1, 2):
        seconds, usage = _sketch_run(emde, N_SETS, workers, PARTITION, None)
        rate = N_SETS / seconds
        results.append(Result(
            f"EMDE sketch {N_SETS / 1e6:.0f}M sets, {workers} worker{'s' * (workers > 1)} (s per 1M sets)",
            seconds / (N_SETS / 1e6),
            ref, t_mem,
            f"{rate:,.0f} sets/s vs {mem_rate:,.0f} in memory; total {seconds:.0f} s; CPU per 1M sets "
            f"{usage.cpu_seconds / (N_SETS / 1e6):.1f} s vs {cpu_mem:.1f} s in memory "
            f"(on {cpu_mem / t_mem:.2f} cores); peak RSS per worker {usage.peak_mb:,.0f} MB with "
            f"{PARTITION // 1000}k-set partitions (~{partition_mb:,.0f} MB of sketches each), "
            f"model {model_mb:,.0f} MB; {usage.note()}"))
    seconds, usage = _sketch_run(emde, N_SMALL_PARTS, 2, PARTITION // 4, None)
    results.append(Result(f"EMDE sketch {N_SMALL_PARTS / 1e6:.0f}M sets, 2 workers, {PARTITION // 4000}k-set parts",
                          seconds / (N_SMALL_PARTS / 1e6),
                          ref, t_mem,
                          f"peak RSS per worker {usage.peak_mb:,.0f} MB with {PARTITION // 4000}k-set partitions "
                          f"(~{partition_mb / 4:,.0f} MB of sketches each): memory follows the partition size"))
    out = tempfile.mkdtemp(prefix="bench_batch_")
    try:
        seconds, usage = _sketch_run(emde, N_WRITTEN, 2, PARTITION, out)
        size = sum(os.path.getsize(os.path.join(out, f)) for f in os.listdir(out)) / 2**30
        results.append(Result(f"EMDE sketch {N_WRITTEN / 1e6:.0f}M sets to .npz shards, 2 workers",
                              seconds / (N_WRITTEN / 1e6), ref, t_mem,
                              f"{N_WRITTEN / seconds:,.0f} sets/s written; {size:.2f} GB of shards; "
                              f"peak RSS per worker {usage.peak_mb:,.0f} MB; {usage.note()}"))
    finally:
        shutil.rmtree(out, ignore_errors=True)
    return results


def _write_corpus(path: str, n_tokens: int, seed: int = 0) -> int:
    """Lines of 10 to 40 words drawn from a Zipf law over N_TYPES made-up words; returns the token count."""
    rng = np.random.default_rng(seed)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    codes = rng.integers(0, 26, size=(N_TYPES * 2, 8))
    lengths = rng.integers(2, 9, size=N_TYPES * 2)
    words = pd.unique(np.array(["".join(letters[c[:k]]) for c, k in zip(codes, lengths)], dtype=object))[:N_TYPES]
    p = 1.0 / np.arange(1, len(words) + 1)
    cdf = np.cumsum(p / p.sum())
    written = 0
    with open(path, "w", encoding="utf-8") as f:
        while written < n_tokens:
            n = min(5_000_000, n_tokens - written)
            ids = np.minimum(np.searchsorted(cdf, rng.random(n)), len(words) - 1)
            seps = np.full(n, " ", dtype=object)
            ends = np.cumsum(rng.integers(10, 41, size=n // 10 + 1))
            seps[ends[ends < n]] = "\n"
            seps[-1] = "\n"
            f.write("".join(np.char.add(words[ids].astype(str), seps.astype(str))))
            written += n
    return written


def _corpus_results() -> list[Result]:
    folder = tempfile.mkdtemp(prefix="bench_corpus_")
    try:
        path = os.path.join(folder, "corpus.txt")
        n = _write_corpus(path, N_TOKENS)
        slice_path = os.path.join(folder, "slice.txt")
        _write_corpus(slice_path, SLICE_TOKENS, seed=1)
        with open(slice_path, encoding="utf-8") as f:
            lines = f.read().splitlines()
        t, cpu = time.perf_counter(), time.process_time()
        docs = [tokenize(d) for d in lines]
        vocab = build_vocabulary(docs, 5)
        cooccurrence(docs, pd.Index(vocab.index), window=2)
        t_mem = (time.perf_counter() - t) / (SLICE_TOKENS / 1e6)
        cpu_mem = (time.process_time() - cpu) / (SLICE_TOKENS / 1e6)
        del docs
        results = []
        for workers in (1, 2):
            with batch.cluster(workers=workers, processes=True, quiet=True) as client:
                client.wait_for_workers(workers)
                with WorkerUsage(client) as usage:
                    t = time.perf_counter()
                    counts = batch.count_corpus(path, window=2, min_count=5, client=client, progress=False)
                    seconds = time.perf_counter() - t
            results.append(Result(
                f"PMI counts, {n / 1e6:.0f}M tokens, {workers} worker{'s' * (workers > 1)} (s per 1M tokens)",
                seconds / (n / 1e6), f"in-memory counts, {SLICE_TOKENS / 1e6:g}M-token slice", t_mem,
                f"{n / seconds:,.0f} tokens/s vs {1e6 / t_mem:,.0f} in memory; total {seconds:.0f} s; CPU per 1M "
                f"tokens {usage.cpu_seconds / (n / 1e6):.2f} s vs {cpu_mem:.2f} s in memory "
                f"(on {cpu_mem / t_mem:.2f} cores); "
                f"{counts.n_partitions} partitions of 16 MB; {len(counts.counts):,} words, "
                f"{counts.cooccurrence.nnz:,} pairs; peak RSS per worker {usage.peak_mb:,.0f} MB; {usage.note()}"))
        return results
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def run() -> list[Result]:
    return _emde_results() + _corpus_results()
