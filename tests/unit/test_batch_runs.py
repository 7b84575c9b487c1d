"""The batch steps as a data engineer runs them: worker processes, interruptions, wrong addresses, bad files.

Every step runs on a LocalCluster of two worker *processes* (so models,
partitions and results are pickled between processes) on data spanning
several partitions per worker, and equals the in-memory estimator. A run
interrupted by Ctrl-C (SIGINT to the command's process group, in a
subprocess) leaves an output every reader refuses; running the command
again finishes it (sketches and document vectors resume, the counting
steps start over) and the result is again the in-memory one.
"""

from __future__ import annotations

import http.server
import json
import os
import signal
import socket
import socketserver
import subprocess
import sys
import threading
import time

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import scipy.sparse as sp

from embedcore import batch
from embedcore.batch import BatchError, SchedulerError
from embedcore.batch._inputs import _parquet_spans
from embedcore.batch._outputs import staging_dir
from embedcore.emde import EMDE, sets_to_matrix
from embedcore.io import DataError
from embedcore.spectral import SpectralCategoryEncoder
from embedcore.words import PMIWordVectors

pytestmark = pytest.mark.filterwarnings("ignore:The inplace keyword in DataFrame.reset_index")


@pytest.fixture
def processes():
    """Two worker processes of the test's own (one thread each), as the command line starts them."""
    with batch.cluster(workers=2, processes=True, memory_limit="1GB", quiet=True) as c:
        yield c


def same(A, B) -> bool:
    A, B = sp.csr_array(A), sp.csr_array(B)
    return A.shape == B.shape and (A != B).nnz == 0


def _sets_file(path, n_sets: int, n_items: int, seed: int = 0, row_group_size: int | None = None):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(0, 12, n_sets)
    flat = rng.integers(0, n_items, int(sizes.sum()))
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int32)
    table = pa.table({"items": pa.ListArray.from_arrays(pa.array(offsets), pa.array(flat))})
    pq.write_table(table, path, row_group_size=row_group_size)
    return [flat[a:b].tolist() for a, b in zip(offsets[:-1], offsets[1:])]


def _corpus(path, copies: int = 1) -> list[str]:
    from embedcore.datasets import load_corpus

    lines = load_corpus("lee").documents[:300] * copies
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return [ln for ln in lines if ln.strip()]


def _table(path, n: int = 20_000) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    cats = rng.choice([f"c{i:02d}" for i in range(12)], n)
    frame = pd.DataFrame({"cat": cats, "y": np.round(rng.normal([int(c[1:]) % 4 for c in cats], 1.0), 1)})
    frame.to_parquet(path, row_group_size=n)  # one row group: the partitions are its row ranges
    return frame


# --------------------------------------------------------------------------- partitions


def test_one_large_parquet_row_group_is_split_and_small_ones_merged(tmp_path):
    _sets_file(tmp_path / "one.parquet", 10_000, 50)
    assert _parquet_spans(str(tmp_path / "one.parquet"), 3000) == [(0, 2500), (2500, 5000), (5000, 7500),
                                                                   (7500, 10_000)]
    assert _parquet_spans(str(tmp_path / "one.parquet"), None) == [(0, 10_000)]
    _sets_file(tmp_path / "many.parquet", 1000, 50, row_group_size=100)
    assert _parquet_spans(str(tmp_path / "many.parquet"), 250) == [(0, 200), (200, 400), (400, 600), (600, 800),
                                                                   (800, 1000)]
    src = batch.TableSets(str(tmp_path / "one.parquet"), partition_rows=1000)
    assert src.n_partitions == 10 and src.describe()["partition_rows"] == 1000


# --------------------------------------------------------------------------- every step on worker processes


def test_sketches_on_worker_processes_equal_the_in_memory_sketch(processes, tmp_path):
    sets = _sets_file(tmp_path / "sets.parquet", 12_000, 400)
    X = np.random.default_rng(1).standard_normal((400, 8))
    emde = EMDE(n_hyperplanes=5, n_partitions=6, norm="l2", random_state=2).fit(X)
    run = batch.sketch(emde, str(tmp_path / "sets.parquet"), str(tmp_path / "out"), partition_rows=1000,
                       client=processes, progress=False)
    assert run.computed == 12  # one file, six partitions per worker
    assert same(batch.read_sketches(str(tmp_path / "out")), emde.sketch(sets_to_matrix(sets, 400)))
    # named items and weights in CSV blocks
    names = np.array([f"i{k}" for k in range(400)], dtype=object)
    weights = [[round(0.5 + (j % 3), 1) for j in range(len(s))] for s in sets]
    pd.DataFrame({"items": [" ".join(names[s]) for s in sets],
                  "w": [" ".join(map(str, w)) for w in weights]}).to_csv(tmp_path / "sets.csv", index=False)
    run = batch.sketch(emde, str(tmp_path / "sets.csv"), str(tmp_path / "csv"), weights="w", item_names=names,
                       blocksize=60_000, client=processes, progress=False)
    assert run.computed >= 6
    assert same(batch.read_sketches(str(tmp_path / "csv")), emde.sketch(sets_to_matrix(sets, 400, weights)))


def test_the_sketch_steps_client_receives_small_metadata_and_keeps_no_futures(tmp_path):
    """The client of a sketch step stays flat whatever the number of sets: per partition only its manifest entry
    leaves the worker (the sketches go to the shard the worker writes), and no result is held on the cluster."""
    sets = _sets_file(tmp_path / "sets.parquet", 12_000, 400)
    emde = EMDE(n_hyperplanes=5, n_partitions=6, random_state=2).fit(np.random.default_rng(1).standard_normal((400, 8)))

    def handed_out(dask_worker):  # bytes of task results this worker sent to others (the client's gathers)
        return dask_worker.transfer_outgoing_bytes_total

    # one worker process: no copy of the broadcast model travels between workers to blur the count
    with batch.cluster(workers=1, processes=True, memory_limit="1GB", quiet=True) as client:
        before = sum(client.run(handed_out).values())
        run = batch.sketch(emde, str(tmp_path / "sets.parquet"), str(tmp_path / "out"), partition_rows=1000,
                           client=client, progress=False)
        sent = sum(client.run(handed_out).values()) - before
        assert run.computed == 12 and not client.futures  # every partition's future let go
    entries = run.manifest["partitions"].values()
    assert all(isinstance(v, (int, float, str)) for e in entries for v in e.values())
    assert sent > 0  # the count does see the results
    assert sent / run.computed < 4_000, f"{sent:,} bytes reached the client for {run.computed} partitions"
    assert min(e["file_bytes"] for e in entries) > 25 * 4_000  # while each partition's sketches are far bigger
    assert same(batch.read_sketches(str(tmp_path / "out")), emde.sketch(sets_to_matrix(sets, 400)))


def test_chosen_rows_are_read_from_the_shards_that_hold_them_only(client, tmp_path):
    sets = _sets_file(tmp_path / "sets.parquet", 3_000, 300)
    emde = EMDE(n_hyperplanes=4, n_partitions=5, random_state=0).fit(np.random.default_rng(0).standard_normal((300, 6)))
    out = tmp_path / "out"
    batch.sketch(emde, str(tmp_path / "sets.parquet"), str(out), partition_rows=500, client=client, progress=False)
    S = emde.sketch(sets_to_matrix(sets, 300))
    rows = [2_999, 0, 1_200, 1_200, 501, 499]  # any order, repeats, both sides of a shard's edge
    assert same(batch.read_sketches(str(out), rows=rows), S[rows])
    assert batch.read_sketches(str(out), rows=[]).shape == (0, S.shape[1])
    # a shard holding none of the rows is not read; one holding a row is checked
    (out / "part-00003.npz").write_bytes(b"changed")
    assert same(batch.read_sketches(str(out), rows=[10, 2_600]), S[[10, 2_600]])
    with pytest.raises(BatchError, match="part-00003.npz is not the shard its manifest lists"):
        batch.read_sketches(str(out), rows=[10, 1_600])
    with pytest.raises(BatchError, match=r"Row 3000 is not in the sketches, which have 3,000 rows \(0 to 2,999\)"):
        batch.read_sketches(str(out), rows=[5, 3_000])
    with pytest.raises(BatchError, match="rows must be a list of whole row numbers"):
        batch.read_sketches(str(out), rows=[0.5])


def test_word_and_document_vectors_on_worker_processes_equal_the_in_memory_fit(processes, tmp_path):
    docs = _corpus(tmp_path / "corpus.txt")
    params = dict(window=3, min_count=2, n_components=10, random_state=0)
    ref = PMIWordVectors(**params).fit(docs)
    counts = batch.count_corpus(str(tmp_path / "corpus.txt"), window=3, min_count=2, blocksize=8000,
                                client=processes, progress=False)
    assert counts.n_partitions >= 8
    wv = batch.vectors_from_counts(counts, **params)
    assert list(wv.words_) == list(ref.words_) and same(wv.pmi_, ref.pmi_)
    signs = np.sign((wv.vectors_ * ref.vectors_).sum(axis=0))
    assert np.array_equal(wv.vectors_ * signs, ref.vectors_)
    manifest = batch.document_vectors(str(tmp_path / "corpus.txt"), ref, str(tmp_path / "docs"), weighting="tfidf",
                                      dtype=np.float64, blocksize=8000, client=processes, progress=False)
    assert len(manifest["partitions"]) >= 8 and manifest["rows"] == len(docs) and manifest["complete"]
    assert np.array_equal(batch.read_document_vectors(str(tmp_path / "docs")), ref.transform(docs, weighting="tfidf"))


def test_category_kernel_on_worker_processes_equals_the_in_memory_encoder(processes, tmp_path):
    frame = _table(tmp_path / "t.parquet")
    ref = SpectralCategoryEncoder(gamma=0.8).fit(frame[["cat"]], frame["y"])
    ck = batch.category_kernel(str(tmp_path / "t.parquet"), "cat", "y", gamma=0.8, partition_rows=2000,
                               value_bins=None, client=processes, progress=False)
    assert np.array_equal(ck.affinity, ref.affinity_[0]) and np.array_equal(ck.embedding, ref.embedding_[0])
    binned = batch.category_kernel(str(tmp_path / "t.parquet"), "cat", "y", gamma=0.8, partition_rows=2000,
                                   client=processes, progress=False)  # the default: 1,024 bins, on the workers
    width = (frame["y"].max() - frame["y"].min()) / 1024
    assert binned.params["bin_width"] == pytest.approx(width, rel=1e-12)
    assert 0 < np.abs(binned.distances - ck.distances).max() <= width
    kl = batch.category_kernel(str(tmp_path / "t.parquet"), "cat", "y", kernel="kl", gamma=0.8, partition_rows=2000,
                               client=processes, progress=False)
    ref = SpectralCategoryEncoder(kernel="kl", gamma=0.8).fit(frame[["cat"]], frame["y"])
    assert np.array_equal(kl.affinity, ref.affinity_[0])
    with pytest.raises(BatchError, match="more than 40 distinct \\(category, target value\\) pairs"):
        batch.category_kernel(str(tmp_path / "t.parquet"), "cat", "y", partition_rows=2000, max_pairs=40,
                              client=processes, progress=False)


# --------------------------------------------------------------------------- Ctrl-C in the middle of a step


class Command:
    """``python -m embedcore ...`` in a process group of its own, its stderr collected as it comes."""

    def __init__(self, *argv):
        self.proc = subprocess.Popen([sys.executable, "-m", "embedcore", *map(str, argv)], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, start_new_session=True, cwd=os.getcwd())
        self.err = b""
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self):
        while chunk := self.proc.stderr.read1(4096):
            self.err += chunk

    def interrupt_when(self, ready, limit: float = 300) -> None:
        """Send Ctrl-C (SIGINT to the whole group, as a terminal does) once ``ready()``."""
        end = time.monotonic() + limit  # a guard against a hung command, not a timing claim
        while not ready():
            assert self.proc.poll() is None, f"the command ended before it could be interrupted: {self.lines()}"
            assert time.monotonic() < end, "the command never got to the point to interrupt"
            time.sleep(0.02)
        os.killpg(self.proc.pid, signal.SIGINT)

    def wait(self) -> int:
        code = self.proc.wait(timeout=300)
        self._reader.join(timeout=30)
        return code

    def lines(self) -> list[str]:
        text = self.err.decode("utf-8", "replace").replace("\r", "\n")
        return [ln for ln in text.splitlines() if ln.strip() and not _is_progress(ln)]


def _is_progress(line: str) -> bool:
    return "] " in line and line.split(" [")[0] in ("sketch", "count words", "count pairs", "document vectors",
                                                    "count values", "count bins", "target range")


def _listed(folder) -> int:
    """Partitions the staged manifest lists: shards the driver has taken in, not merely shards on disk (a worker
    writes its shard before the driver hears of it, so a shard on disk can still be lost to an interrupt)."""
    try:
        with open(os.path.join(folder, "manifest.json"), encoding="utf-8") as f:
            return len(json.load(f)["partitions"])
    except (OSError, ValueError, KeyError):
        return 0


def _main(*argv) -> int:
    from embedcore.cli import main

    return main([str(a) for a in argv])


def test_an_interrupted_sketch_is_refused_then_resumed_to_the_in_memory_result(client, tmp_path, capsys):
    X = np.random.default_rng(0).standard_normal((500, 8))
    np.save(tmp_path / "items.npy", X)
    sets = _sets_file(tmp_path / "sets.parquet", 40_000, 500)
    out, stage = tmp_path / "out", staging_dir(str(tmp_path / "out"))
    argv = ["sketch", tmp_path / "items.npy", tmp_path / "sets.parquet", "--out", out, "--partition-rows", "200",
            "-K", "4", "-N", "5"]
    cmd = Command(*argv, "--workers", "2")  # its own LocalCluster of worker processes, as a user runs it
    cmd.interrupt_when(lambda: _listed(stage) >= 1)
    assert cmd.wait() == 130
    lines = cmd.lines()
    kept = len(json.load(open(os.path.join(stage, "manifest.json")))["partitions"])
    # one line after the dashboard's: no traceback, from this process or a worker
    assert lines[0].startswith("dashboard: http://")
    assert lines[1:] == [f"python -m embedcore sketch: interrupted; {kept} of 200 partitions are kept in {stage}: "
                         "run the same command again to resume."]
    assert 0 < kept < 200 and not out.exists()
    with pytest.raises(BatchError, match="its run was interrupted"):
        batch.read_sketches(str(out))
    with pytest.raises(BatchError, match="partitions are not sketched yet"):
        batch.read_sketches(stage)
    from embedcore.batch.sketch_files import read_sketch_files

    staged = [(n, open(os.path.join(stage, n), "rb").read()) for n in os.listdir(stage)]
    with pytest.raises(BatchError, match="partitions are not sketched yet"):
        read_sketch_files(staged)
    capsys.readouterr()
    assert _main(*argv, "--scheduler", client.scheduler.address, "--quiet") == 0
    summary = capsys.readouterr().out
    assert f"({kept} kept from an interrupted run)" in summary and f"sketched {200 - kept} partitions" in summary
    emde = EMDE(n_hyperplanes=4, n_partitions=5, random_state=0).fit(X)
    assert same(batch.read_sketches(str(out)), emde.sketch(sets_to_matrix(sets, 500)))
    assert not os.path.exists(stage)
    assert _main(*argv, "--scheduler", client.scheduler.address, "--quiet") == 1
    assert capsys.readouterr().err.splitlines() == [
        f"python -m embedcore sketch: error: {out} already exists; choose another output, or replace it "
        "(--overwrite, overwrite=True)."]


def test_interrupted_counting_steps_start_over_and_document_vectors_resume(processes, tmp_path, capsys):
    docs = _corpus(tmp_path / "corpus.txt")
    out, vectors = tmp_path / "docs", tmp_path / "v.txt"
    stage = staging_dir(str(out))
    at = processes.scheduler.address
    argv = ["word-vectors", tmp_path / "corpus.txt", "--out", vectors, "--min-count", "2", "--dim", "8",
            "--doc-vectors", out, "--blocksize", "3000", "--scheduler", at]
    counting = Command(*argv)
    counting.interrupt_when(lambda: b"count pairs [" in counting.err)
    assert counting.wait() == 130
    assert counting.lines()[-1] == ("python -m embedcore word-vectors: interrupted; no output was written: run the "
                                    "same command again to start over."), counting.err
    with pytest.raises(BatchError, match="v.txt does not exist"):
        batch.read_word_vectors(str(vectors))
    writing = Command(*argv)
    writing.interrupt_when(lambda: _listed(stage) >= 1)
    assert writing.wait() == 130
    assert writing.lines()[-1].startswith("python -m embedcore word-vectors: interrupted; ")
    assert writing.lines()[-1].endswith(f"partitions are kept in {stage}: run the same command again to resume.")
    with pytest.raises(BatchError, match="its run was interrupted"):
        batch.read_document_vectors(str(out))
    with pytest.raises(BatchError, match="is an unfinished run"):
        batch.read_document_vectors(stage)
    assert not vectors.exists()  # the word vectors are written last
    assert _main(*argv, "--quiet") == 0
    assert "kept from an interrupted run" in capsys.readouterr().out
    ref = PMIWordVectors(min_count=2, n_components=8, random_state=0).fit(docs)
    words, X = batch.read_word_vectors(str(vectors))
    assert list(words) == list(ref.words_)
    flip = np.sign((X * ref.vectors_).sum(axis=0))
    assert np.array_equal((X * flip).astype(np.float32), ref.vectors_.astype(np.float32))
    D = batch.read_document_vectors(str(out))
    want = ref.transform(docs)
    flip = np.sign((D * want).sum(axis=0))
    assert D.shape == want.shape and np.allclose(D * flip, want, atol=1e-6)

    frame = _table(tmp_path / "t.parquet", n=40_000)
    codes = tmp_path / "k" / "codes.csv"
    codes.parent.mkdir()
    argv = ["category-kernel", tmp_path / "t.parquet", "--column", "cat", "--target", "y", "--gamma", "0.8",
            "--value-bins", "exact", "--partition-rows", "200", "--out", codes, "--scheduler", at]
    cmd = Command(*argv)
    cmd.interrupt_when(lambda: b"count values [" in cmd.err)
    assert cmd.wait() == 130
    assert cmd.lines()[-1] == ("python -m embedcore category-kernel: interrupted; no output was written: run the "
                               "same command again to start over.")
    assert os.listdir(codes.parent) == []
    with pytest.raises(DataError, match="does not exist"):
        batch.read_category_kernel(str(codes) + ".npz")
    assert _main(*argv, "--quiet") == 0
    ck = batch.read_category_kernel(str(codes.parent))
    ref = SpectralCategoryEncoder(gamma=0.8).fit(frame[["cat"]], frame["y"])
    assert np.array_equal(ck.affinity, ref.affinity_[0]) and np.array_equal(ck.embedding, ref.embedding_[0])
    # a worker's address is not the scheduler's
    worker = next(iter(processes.scheduler_info()["workers"]))
    with pytest.raises(SchedulerError, match="is a Dask Worker, not a scheduler"):
        batch.check_scheduler(worker, timeout=3)


# --------------------------------------------------------------------------- the scheduler address


@pytest.fixture
def web_server():
    """A plain HTTP server on a free port: a service that is not a Dask scheduler."""

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = socketserver.TCPServer(("127.0.0.1", 0), Quiet)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"tcp://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_a_web_server_at_the_scheduler_address_is_one_line_and_exit_status_2(web_server, tmp_path):
    np.save(tmp_path / "items.npy", np.eye(3))
    pd.DataFrame({"items": ["0 1"]}).to_csv(tmp_path / "sets.csv", index=False)
    cmd = Command("sketch", tmp_path / "items.npy", tmp_path / "sets.csv", "--out", tmp_path / "out",
                  "--scheduler", web_server)
    assert cmd.wait() == 2
    assert cmd.lines() == [f"python -m embedcore sketch: error: Something listens at {web_server} but it is not a "
                           "Dask scheduler (it said nothing instead of a Dask handshake within 3 s); check the "
                           "address and port."]
    assert not (tmp_path / "out").exists()


def test_what_answers_at_the_address_is_named(client, tmp_path):
    with pytest.raises(SchedulerError, match="Connection refused"):
        batch.check_scheduler("tcp://127.0.0.1:9", timeout=1)
    with socket.socket() as talker:  # a service that speaks first, in another protocol
        talker.bind(("127.0.0.1", 0))
        talker.listen()

        def greet():
            conn, _ = talker.accept()
            conn.sendall(b"SSH-2.0-OpenSSH_9.6\r\n")
            conn.close()

        threading.Thread(target=greet, daemon=True).start()
        with pytest.raises(SchedulerError, match="it sent 'SSH-2.0-'"):
            batch.check_scheduler(f"tcp://127.0.0.1:{talker.getsockname()[1]}", timeout=3)
    batch.check_scheduler(client.scheduler.address, timeout=5)
    (tmp_path / "scheduler.json").write_text(json.dumps({"address": client.scheduler.address}))
    with batch.cluster(scheduler_file=str(tmp_path / "scheduler.json")) as other:
        assert other.scheduler.address == client.scheduler.address
    with pytest.raises(SchedulerError, match="The scheduler file .*nope.json does not exist"):
        with batch.cluster(scheduler_file=str(tmp_path / "nope.json")):
            pass


# --------------------------------------------------------------------------- messages


def test_a_csv_parse_error_names_the_file_and_its_line(client, tmp_path):
    rows = [f'"{i} {i + 1}"' for i in range(3000)]
    rows[2499] = '"7 8",extra'  # file line 2501 (after the header)
    (tmp_path / "sets.csv").write_text("items\n" + "\n".join(rows) + "\n")
    emde = EMDE(n_hyperplanes=2, n_partitions=3, random_state=0).fit(np.random.default_rng(0).normal(size=(4000, 2)))
    with pytest.raises(BatchError, match=r"sets\.csv, line 2501: Expected 1 fields, saw 2"):
        batch.sketch(emde, str(tmp_path / "sets.csv"), None, blocksize=5000, client=client, progress=False)
    (tmp_path / "bad.csv").write_text("items\n1 2\n3 x\n")
    with pytest.raises(BatchError, match=r"Item 'x' \(.*bad\.csv, line 3\) is not an item number"):
        batch.sketch(emde, str(tmp_path / "bad.csv"), None, client=client, progress=False)
    (tmp_path / "latin.txt").write_bytes(b"good line\nsecond\ncaf\xe9 au lait\n")
    with pytest.raises(BatchError, match=r"latin\.txt, line 3: byte 0xe9 is not UTF-8 text"):
        batch.word_vectors(str(tmp_path / "latin.txt"), client=client, progress=False)
    # past the part checked before the run: found by the task that reads it, still with its file line
    (tmp_path / "later.txt").write_bytes(b"good words here\n" * 10_000 + b"caf\xe9 au lait\n")
    with pytest.raises(BatchError, match=r"later\.txt, line 10001: byte 0xe9 is not UTF-8 text"):
        batch.word_vectors(str(tmp_path / "later.txt"), blocksize=50_000, client=client, progress=False)


def test_an_empty_corpus_or_table_says_so(client, tmp_path):
    (tmp_path / "empty.txt").write_text("")
    with pytest.raises(BatchError, match="The corpus is empty: no document has a single word."):
        batch.word_vectors(str(tmp_path / "empty.txt"), client=client, progress=False)
    (tmp_path / "empty.csv").write_text("")
    with pytest.raises(BatchError, match="empty.csv is empty"):
        batch.category_kernel(str(tmp_path / "empty.csv"), "a", "b", client=client, progress=False)


def test_word_vectors_refuse_to_gather_more_co_occurrences_than_allowed(client, tmp_path):
    _corpus(tmp_path / "corpus.txt")
    with pytest.raises(BatchError, match="The co-occurrence matrix has more than 500 non-zeros"):
        batch.word_vectors(str(tmp_path / "corpus.txt"), blocksize=8000, max_nnz=500, n_components=4,
                           client=client, progress=False)


def test_changed_or_foreign_word_vectors_are_refused(tmp_path):
    wv = PMIWordVectors(min_count=1, n_components=2, random_state=0).fit(["a b c", "b c d", "c d a"])
    batch.publish_word2vec(wv, str(tmp_path / "v.txt"), {"step": "word-vectors"})
    words, X = batch.read_word_vectors(str(tmp_path / "v.txt"))
    assert list(words) == list(wv.words_) and np.array_equal(X.astype(np.float32), wv.vectors_.astype(np.float32))
    text = (tmp_path / "v.txt").read_text()
    (tmp_path / "v.txt").write_text(text.replace("\na ", "\nz ", 1))
    with pytest.raises(BatchError, match="v.txt is not the file its summary lists"):
        batch.read_word_vectors(str(tmp_path / "v.txt"))
    os.remove(tmp_path / "v.txt.json")
    with pytest.raises(BatchError, match="has no summary v.txt.json beside it"):
        batch.read_word_vectors(str(tmp_path / "v.txt"))


def test_threads_per_worker_and_the_spill_directory_reach_the_local_cluster(tmp_path):
    with batch.cluster(workers=1, threads_per_worker=2, processes=False, local_directory=str(tmp_path),
                       quiet=True) as client:
        assert list(client.nthreads().values()) == [2]
        dirs = client.run(lambda dask_worker: dask_worker.local_directory)
        assert all(d.startswith(str(tmp_path)) for d in dirs.values())
    with pytest.raises(BatchError, match="The spill directory .*nowhere does not exist"):
        with batch.cluster(workers=1, processes=False, local_directory=str(tmp_path / "nowhere")):
            pass


def test_the_cluster_options_are_checked_before_any_work(capsys, tmp_path):
    code = _main("sketch", "items.npy", "sets.csv", "--out", tmp_path / "o", "--scheduler", "tcp://a:1",
                 "--scheduler-file", "s.json")
    assert code == 1 and capsys.readouterr().err.splitlines() == [
        "python -m embedcore sketch: error: give --scheduler or --scheduler-file, not both."]
    help_text = subprocess.run([sys.executable, "-m", "embedcore", "sketch", "--help"], capture_output=True,
                               text=True, timeout=120).stdout
    for option in ("--partition-rows", "--threads-per-worker", "--scheduler-file", "--spill-dir", "--overwrite",
                   "--connect-timeout"):
        assert option in help_text
