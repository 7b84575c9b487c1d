"""The batch steps as a user runs them: real input files, real outputs, checked against the in-memory path.

EMDE: ``BENCH_SETS`` sets (default 1 million; 1 to 19 items each) over
200,000 items in 64 dimensions, K=10, N=30, written to ONE Parquet file
the way pyarrow writes it by default (one row group for a million rows).
The reference is ``EMDE.sketch`` of every set in memory (the file read and
turned into a matrix first, not timed; the transform uses every core). The
step then reads the file partition by partition (``--partition-rows``
100,000: ten row ranges of the one row group), sketches on a LocalCluster
of 1 and then 2 worker processes, and writes ``.npz`` shards with their
manifest; the timed span is the step alone (cluster start excluded). A
random sample of 20,000 written rows is read back with
``read_sketches(out, rows=...)`` (one shard at a time, each checksum
verified) and must equal the in-memory sketches exactly; the in-memory
reference keeps only those rows, so the client's peak during a step is the
step's own.

PMI (when ``BENCH_TOKENS`` > 0, default 20 million): a generated corpus
(Zipf over 100,000 made-up words, 10 to 40 words a line) in one text file;
``PMIWordVectors.fit`` in memory against :func:`embedcore.batch.word_vectors`
on 1 and 2 workers (counting on the workers, PPMI + SVD on this machine),
written with :func:`publish_word2vec` and read back with its check; the
vectors must equal the in-memory fit's up to each dimension's sign.

Peak memory: every worker's resident set sampled while the step runs, and
this process's (the client, which also holds the model and, for PMI, the
summed counts and the SVD); for the sketches also this process's peak while
the sample is read back and checked. Wall-clock speed-up on a machine shared with
other work says as much about the neighbours as about Dask: the workers'
CPU time and the load average are printed next to it.

Run: ``python -m tests.benchmarks.run bench_batch``;
``BENCH_SETS=10000000 BENCH_TOKENS=0 python -m tests.benchmarks.run bench_batch`` for 10M sets
(above 2M sets the in-memory sketch of the sample alone is the reference, its rows read from the
file a row group at a time), ``BENCH_SETS=0`` for the word vectors alone.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import threading
import time

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import scipy.sparse as sp

from embedcore import batch
from embedcore.emde import EMDE
from embedcore.words import PMIWordVectors
from tests.benchmarks.harness import Result

N_SETS = int(os.environ.get("BENCH_SETS", 1_000_000))
N_TOKENS = int(os.environ.get("BENCH_TOKENS", 20_000_000))
N_ITEMS, DIM, K, N = 200_000, 64, 10, 30
PARTITION_ROWS = 100_000
SIZES = (1, 19)
SAMPLE = 20_000
N_TYPES = 100_000


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


class Usage:
    """Peak resident memory of this process and of every worker, and the workers' CPU seconds, while a step runs."""

    def __init__(self, client=None, every: float = 0.2):
        import psutil

        self.client, self.every = client, every
        self.me = psutil.Process()
        self.client_peak, self.worker_peak, self.cpu = self.me.memory_info().rss, {}, {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _sample(self):
        self.client_peak = max(self.client_peak, self.me.memory_info().rss)
        if self.client is None:
            return

        def usage():  # defined here so that it travels by value to the workers
            import psutil

            p = psutil.Process()
            t = p.cpu_times()
            return p.memory_info().rss, t.user + t.system

        for worker, (rss, cpu) in self.client.run(usage).items():
            self.worker_peak[worker] = max(self.worker_peak.get(worker, 0), rss)
            self.cpu.setdefault(worker, [cpu, cpu])[1] = cpu

    def _loop(self):
        while not self._stop.is_set():
            try:
                self._sample()
            except Exception:  # noqa: BLE001  (the cluster is closing)
                return
            self._stop.wait(self.every)

    def __enter__(self):
        self._sample()
        self.client_start = self.client_peak
        self._start, self._load = time.perf_counter(), os.getloadavg()[0]
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self._sample()
        self.seconds = time.perf_counter() - self._start
        self.load = max(self._load, os.getloadavg()[0])

    def note(self) -> str:
        workers = max(self.worker_peak.values()) / 2**20 if self.worker_peak else 0
        cpu = sum(b - a for a, b in self.cpu.values())
        grew = (self.client_peak - self.client_start) / 2**20
        return (f"peak RSS client {self.client_peak / 2**20:,.0f} MB ({grew:+,.0f} MB from its start), per worker "
                f"{workers:,.0f} MB; workers used "
                f"{cpu / self.seconds:.2f} cores (load average up to {self.load:.1f} on {os.cpu_count()} cores)")


# --------------------------------------------------------------------------- EMDE sketches


def _write_sets(path: str, n_sets: int, seed: int = 1) -> None:
    """``n_sets`` sets in one Parquet file, written a million rows at a time (pyarrow's default row groups)."""
    writer = None
    try:
        for start in range(0, n_sets, 1_000_000):
            n = min(1_000_000, n_sets - start)
            rng = np.random.default_rng([seed, start])
            sizes = rng.integers(SIZES[0], SIZES[1] + 1, size=n)
            offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int32)
            items = rng.integers(0, N_ITEMS, size=int(offsets[-1]))
            table = pa.table({"items": pa.ListArray.from_arrays(pa.array(offsets), pa.array(items))})
            writer = writer or pq.ParquetWriter(path, table.schema)
            writer.write_table(table)
    finally:
        if writer is not None:
            writer.close()


def _read_matrix(path: str) -> sp.csr_array:
    column = pq.read_table(path, columns=["items"])["items"].combine_chunks()
    offsets = column.offsets.to_numpy().astype(np.int64)
    items = column.values.to_numpy().copy()
    return sp.csr_array((np.ones(items.size), items, offsets), shape=(len(offsets) - 1, N_ITEMS))


def _read_rows(path: str, rows: np.ndarray) -> sp.csr_array:
    """The sets at the sorted positions ``rows``, read a row group at a time (the whole file never in memory)."""
    parts, start = [], 0
    for chunk in pq.ParquetFile(path).iter_batches(batch_size=1_000_000, columns=["items"]):
        a, b = np.searchsorted(rows, [start, start + chunk.num_rows])
        picked = chunk.column(0).take(pa.array(rows[a:b] - start))
        offsets = picked.offsets.to_numpy().astype(np.int64)
        items = picked.flatten().to_numpy().copy()
        parts.append(sp.csr_array((np.ones(items.size), items, offsets - offsets[0]), shape=(b - a, N_ITEMS)))
        start += chunk.num_rows
    return sp.vstack(parts, format="csr")


def _sketch_results() -> list[Result]:
    if N_SETS <= 0:
        return []
    folder = tempfile.mkdtemp(prefix="bench_batch_")
    try:
        path = os.path.join(folder, "sets.parquet")
        _say(f"writing {N_SETS:,} sets to one Parquet file ...")
        _write_sets(path, N_SETS)
        meta = pq.ParquetFile(path).metadata
        size_mb = os.path.getsize(path) / 2**20
        X = np.random.default_rng(0).standard_normal((N_ITEMS, DIM))
        emde = EMDE(n_hyperplanes=K, n_partitions=N, random_state=0).fit(X)
        del X
        results, rates = [], {}
        samples = {w: np.sort(np.random.default_rng(w).choice(N_SETS, size=min(SAMPLE, N_SETS), replace=False))
                   for w in (1, 2)}
        in_memory = N_SETS <= 2_000_000
        if in_memory:
            W = _read_matrix(path)
            W.sum_duplicates()
            emde.set_params(n_jobs=-1)  # in memory on every core (no part of the model: the workers use one each)
            with Usage() as usage:
                t = time.perf_counter()
                S = emde.sketch(W)
                t_mem = time.perf_counter() - t
            emde.set_params(n_jobs=None)
            wanted = {w: S[rows] for w, rows in samples.items()}
            del W, S  # only the sampled rows stay: the client's peak in a step is then the step's
            rates["in memory"] = N_SETS / t_mem
            _say(f"in memory: {rates['in memory']:,.0f} sets/s")
            results.append(Result(f"EMDE sketch {N_SETS / 1e6:g}M sets, in memory", t_mem, "", None,
                                  f"{rates['in memory']:,.0f} sets/s (EMDE.sketch on a matrix in memory, every "
                                  f"core); {usage.note()}"))
        for workers in (1, 2):
            out = os.path.join(folder, f"out{workers}")
            with batch.cluster(workers=workers, processes=True, quiet=True) as client:
                client.wait_for_workers(workers)
                with Usage(client) as usage:
                    t = time.perf_counter()
                    run = batch.sketch(emde, path, out, partition_rows=PARTITION_ROWS, client=client, progress=False)
                    seconds = time.perf_counter() - t
            rates[workers] = N_SETS / seconds
            rows = samples[workers]
            with Usage() as check:
                got = batch.read_sketches(out, rows=rows)  # the shards holding them, each checksum verified
                want = wanted[workers] if in_memory else emde.sketch(_read_rows(path, rows))
                assert (got != want).nnz == 0, "written sketches differ from the in-memory ones"
            del got, want
            pa.default_memory_pool().release_unused()  # the check's Arrow buffers: the next step starts afresh
            shards = sum(os.path.getsize(os.path.join(out, f)) for f in os.listdir(out)) / 2**30
            _say(f"{workers} worker(s): {rates[workers]:,.0f} sets/s")
            ref = ("in-memory transform", N_SETS / rates["in memory"]) if in_memory else ("", None)
            results.append(Result(
                f"EMDE sketch {N_SETS / 1e6:g}M sets, {workers} worker{'s' * (workers > 1)}", seconds, *ref,
                f"{rates[workers]:,.0f} sets/s from one {size_mb:,.0f} MB Parquet file ({meta.num_row_groups} row "
                f"group{'s' * (meta.num_row_groups > 1)}, {run.computed} partitions), {shards:.2f} GB of .npz shards "
                f"written; {min(SAMPLE, N_SETS):,} sampled rows equal the in-memory sketch (client peak while reading "
                f"and checking them {check.client_peak / 2**20:,.0f} MB); {usage.note()}"))
            shutil.rmtree(out, ignore_errors=True)
        results.append(Result(f"EMDE sketch {N_SETS / 1e6:g}M sets: 2 workers against 1", 1 / rates[2], "1 worker",
                              1 / rates[1], f"2 workers {rates[2] / rates[1]:.2f}x the sets/s of 1"))
        return results
    finally:
        shutil.rmtree(folder, ignore_errors=True)


# --------------------------------------------------------------------------- PMI word vectors


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


def _words_results() -> list[Result]:
    if N_TOKENS <= 0:
        return []
    folder = tempfile.mkdtemp(prefix="bench_corpus_")
    params = dict(window=2, min_count=5, max_vocab=30_000, n_components=100, random_state=0)
    try:
        path = os.path.join(folder, "corpus.txt")
        _say(f"writing a {N_TOKENS / 1e6:g}M-token corpus ...")
        n = _write_corpus(path, N_TOKENS)
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
        with Usage() as usage:
            t = time.perf_counter()
            ref = PMIWordVectors(**params).fit(lines)
            t_mem = time.perf_counter() - t
        del lines
        results = [Result(f"PMI word vectors {n / 1e6:g}M tokens, in memory", t_mem, "", None,
                          f"{n / t_mem:,.0f} tokens/s; {usage.note()}")]
        _say(f"in memory: {n / t_mem:,.0f} tokens/s")
        rates = {}
        for workers in (1, 2):
            out = os.path.join(folder, f"vectors{workers}.txt")
            with batch.cluster(workers=workers, processes=True, quiet=True) as client:
                client.wait_for_workers(workers)
                with Usage(client) as usage:
                    t = time.perf_counter()
                    counts = batch.count_corpus(path, window=2, min_count=5, max_vocab=30_000, client=client,
                                                progress=False)
                    counted = time.perf_counter() - t
                    wv = batch.vectors_from_counts(counts, **params)
                    batch.publish_word2vec(wv, out, {"step": "word-vectors", "params": params})
                    seconds = time.perf_counter() - t
            rates[workers] = n / seconds
            words, X = batch.read_word_vectors(out)
            flip = np.sign((X * ref.vectors_).sum(axis=0))
            assert list(words) == list(ref.words_), "the vocabulary differs from the in-memory fit's"
            assert np.array_equal((X * flip).astype(np.float32), ref.vectors_.astype(np.float32)), \
                "written vectors differ from the in-memory fit's"
            _say(f"{workers} worker(s): {rates[workers]:,.0f} tokens/s")
            results.append(Result(
                f"PMI word vectors {n / 1e6:g}M tokens, {workers} worker{'s' * (workers > 1)}", seconds,
                "in-memory fit", t_mem,
                f"{rates[workers]:,.0f} tokens/s; counting on the workers {counted:.1f} s, PPMI + SVD + writing on "
                f"this machine {seconds - counted:.1f} s ({counts.n_partitions} partitions, "
                f"{counts.cooccurrence.nnz:,} co-occurrence non-zeros); vectors equal the in-memory fit's; "
                f"{usage.note()}"))
        return results
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def run() -> list[Result]:
    return _sketch_results() + _words_results()
