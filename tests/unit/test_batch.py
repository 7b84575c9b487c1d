"""The batch steps on a two-worker LocalCluster give what the in-memory estimators give on the whole data.

Data are split into several partitions (Parquet files, CSV and text blocks);
every result is compared with the estimator fitted or applied in memory:
EMDE sketches byte for byte, vocabulary and co-occurrence counts exactly,
word vectors and category kernels to the last bit where the arithmetic is
the same. Then the manifest's resume rules, and the command line's errors.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import scipy.sparse as sp

from embedcore import batch
from embedcore.batch import BatchError
from embedcore.batch._outputs import staging_dir
from embedcore.emde import EMDE, sets_to_matrix
from embedcore.io import DataError
from embedcore.spectral import (
    SpectralCategoryEncoder,
    category_distributions,
    wasserstein_distances,
)
from embedcore.words import PMIWordVectors, build_vocabulary, cooccurrence, tokenize

# dask's Parquet reader calls a pandas method pandas 3.1 deprecates; not ours to change
pytestmark = pytest.mark.filterwarnings("ignore:The inplace keyword in DataFrame.reset_index")




def same(A, B) -> bool:
    """Two sparse matrices with the same shape and the same stored values everywhere."""
    A, B = sp.csr_array(A), sp.csr_array(B)
    return A.shape == B.shape and (A != B).nnz == 0 and np.array_equal(A.toarray(), B.toarray())


# --------------------------------------------------------------------------- sets and sketches


@pytest.fixture(scope="module")
def basket_data(tmp_path_factory):
    """600 sets (some empty, with repeats) over 300 named items, as 4 Parquet files and as one CSV."""
    rng = np.random.default_rng(1)
    X = rng.standard_normal((300, 6))
    sizes = rng.integers(0, 9, size=600)
    sets = [rng.integers(0, 300, size=k).tolist() for k in sizes]
    weights = [np.round(rng.uniform(0.5, 3, size=len(s)), 2).tolist() for s in sets]
    root = tmp_path_factory.mktemp("baskets")
    (root / "parquet").mkdir()
    for k in range(4):
        rows = slice(150 * k, 150 * (k + 1))
        pq.write_table(pa.table({"items": pa.array(sets[rows], pa.list_(pa.int64())),
                                 "w": pa.array(weights[rows], pa.list_(pa.float64()))}),
                       root / "parquet" / f"part{k}.parquet")
    names = np.array([f"item{i}" for i in range(300)], dtype=object)
    pd.DataFrame({"items": [",".join(names[s]) for s in sets],
                  "w": [" ".join(map(str, w)) for w in weights]}).to_csv(root / "sets.csv", index=False)
    return X, sets, weights, names, root


def test_parquet_sketches_equal_sketch_of_the_whole_data(client, basket_data, tmp_path):
    X, sets, _, _, root = basket_data
    emde = EMDE(n_hyperplanes=5, n_partitions=8, random_state=3).fit(X)
    run = batch.sketch(emde, str(root / "parquet"), str(tmp_path / "out"), client=client, progress=False)
    assert run.computed == 4 and run.skipped == 0
    S = batch.read_sketches(str(tmp_path / "out"))
    assert same(S, emde.sketch(sets_to_matrix(sets, 300)))
    # the same sketches as the set-of-vectors form, on each set's item vectors
    by_vectors = emde.sketch_vectors([X[s] for s in sets])
    assert np.allclose(S.toarray(), by_vectors.toarray())


def test_csv_named_items_with_weights_and_normalisation(client, basket_data, tmp_path):
    X, sets, weights, names, root = basket_data
    emde = EMDE(n_hyperplanes=4, n_partitions=6, norm="l2", drop_empty=True, random_state=0).fit(X)
    run = batch.sketch(emde, str(root / "sets.csv"), str(tmp_path / "out"), weights="w", item_names=names,
                       blocksize=4000, shard_format="parquet", client=client, progress=False)
    assert run.manifest["input"]["n_partitions"] >= 3
    S = batch.read_sketches(str(tmp_path / "out"))
    assert same(S, emde.sketch(sets_to_matrix(sets, 300, weights)))


def test_manifest_lists_partitions_shapes_parameters_seed_and_versions(client, basket_data, tmp_path):
    X, sets, _, _, root = basket_data
    emde = EMDE(n_hyperplanes=3, n_partitions=4, random_state=7).fit(X)
    batch.sketch(emde, str(root / "parquet"), str(tmp_path / "out"), client=client, progress=False)
    m = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert m["complete"] and m["shape"] == [600, 4 * 2**3] and m["rows"] == 600
    assert [p["rows"] for p in m["partitions"].values()] == [150] * 4
    for p in m["partitions"].values():  # every shard's size and checksum, as written
        shard = (tmp_path / "out" / p["file"]).read_bytes()
        assert p["file_bytes"] == len(shard) and p["sha256"] == hashlib.sha256(shard).hexdigest()
    assert sorted(os.listdir(tmp_path)) == ["out"]  # the staging directory became the output
    assert m["model"]["random_state"] == 7 and m["model"]["params"]["n_hyperplanes"] == 3
    assert {"dask", "distributed", "numpy", "scipy"} <= set(m["versions"])
    assert list(m["partitions"]) == ["0", "1", "2", "3"]


def test_the_model_is_sent_to_the_workers_once(client, basket_data, tmp_path, monkeypatch):
    X, _, _, _, root = basket_data
    emde = EMDE(n_hyperplanes=3, n_partitions=4, random_state=0).fit(X)
    calls = []
    real = type(client).scatter

    def counting(self, data, *args, **kwargs):
        calls.append(type(data).__name__)
        return real(self, data, *args, **kwargs)

    monkeypatch.setattr(type(client), "scatter", counting)
    batch.sketch(emde, str(root / "parquet"), str(tmp_path / "out"), client=client, progress=False)
    assert calls == ["_Model"]


def _interrupt(out) -> str:
    """Turn a finished output back into the staging directory an interrupted run leaves (for resume tests)."""
    stage = staging_dir(str(out))
    os.rename(out, stage)
    m = json.loads(open(os.path.join(stage, "manifest.json")).read())
    m["complete"] = False
    with open(os.path.join(stage, "manifest.json"), "w") as f:
        json.dump(m, f)
    return stage


def test_a_rerun_skips_finished_partitions_and_computes_missing_ones(client, basket_data, tmp_path):
    X, sets, _, _, root = basket_data
    emde = EMDE(n_hyperplanes=4, n_partitions=5, random_state=1).fit(X)
    out = tmp_path / "out"
    batch.sketch(emde, str(root / "parquet"), str(out), client=client, progress=False)
    stage = _interrupt(out)
    m = json.loads(open(os.path.join(stage, "manifest.json")).read())
    # partition 1 listed as done: replace its shard by a marker the rerun must leave alone
    marker = sp.csr_array(np.full((150, emde.n_features_out_), 7.0, dtype=np.float32))
    buf = io.BytesIO()
    sp.save_npz(buf, marker)
    with open(os.path.join(stage, m["partitions"]["1"]["file"]), "wb") as f:
        f.write(buf.getvalue())
    m["partitions"]["1"].update(file_bytes=len(buf.getvalue()), sha256=hashlib.sha256(buf.getvalue()).hexdigest())
    # partition 2 not listed (as after a crash): it must be computed again
    del m["partitions"]["2"]
    with open(os.path.join(stage, "manifest.json"), "w") as f:
        json.dump(m, f)
    with pytest.raises(BatchError, match="its run was interrupted"):
        batch.read_sketches(str(out))
    with pytest.raises(BatchError, match="1 of 4 partitions are not sketched yet"):
        batch.read_sketches(stage)
    run = batch.sketch(emde, str(root / "parquet"), str(out), client=client, progress=False)
    assert (run.computed, run.skipped) == (1, 3) and not os.path.exists(stage)
    S = batch.read_sketches(str(out))
    ref = emde.sketch(sets_to_matrix(sets, 300))
    assert same(S[150:300], marker)
    assert same(S[:150], ref[:150]) and same(S[300:], ref[300:])


def test_a_shard_missing_or_changed_is_refused_and_a_staged_one_computed_again(client, basket_data, tmp_path):
    X, sets, _, _, root = basket_data
    emde = EMDE(n_hyperplanes=4, n_partitions=5, random_state=1).fit(X)
    out = tmp_path / "out"
    batch.sketch(emde, str(root / "parquet"), str(out), client=client, progress=False)
    shard = (out / "part-00003.npz").read_bytes()
    (out / "part-00003.npz").write_bytes(shard[:-1] + bytes([shard[-1] ^ 1]))
    with pytest.raises(BatchError, match="part-00003.npz is not the shard its manifest lists"):
        batch.read_sketches(str(out))
    os.remove(out / "part-00003.npz")
    with pytest.raises(BatchError, match="part-00003.npz is listed in the manifest but missing"):
        batch.read_sketches(str(out))
    (out / "part-00003.npz").write_bytes(shard)
    (out / "part-00009.npz").write_bytes(shard)
    with pytest.raises(BatchError, match=r"holds shards its manifest does not list \(part-00009.npz\)"):
        batch.read_sketches(str(out))
    os.remove(out / "part-00009.npz")
    stage = _interrupt(out)
    os.remove(os.path.join(stage, "part-00003.npz"))
    run = batch.sketch(emde, str(root / "parquet"), str(out), client=client, progress=False)
    assert (run.computed, run.skipped) == (1, 3)
    assert same(batch.read_sketches(str(out)), emde.sketch(sets_to_matrix(sets, 300)))


def test_an_existing_output_is_refused_unless_overwritten(client, basket_data, tmp_path):
    X, sets, _, _, root = basket_data
    out = str(tmp_path / "out")
    batch.sketch(EMDE(n_hyperplanes=4, n_partitions=5, random_state=1).fit(X), str(root / "parquet"),
                 out, client=client, progress=False)
    other = EMDE(n_hyperplanes=4, n_partitions=5, random_state=2).fit(X)
    with pytest.raises(BatchError, match="out already exists; choose another output, or replace it"):
        batch.sketch(other, str(root / "parquet"), out, client=client, progress=False)
    run = batch.sketch(other, str(root / "parquet"), out, overwrite=True, client=client, progress=False)
    assert run.computed == 4 and sorted(os.listdir(tmp_path)) == ["out"]
    assert same(batch.read_sketches(out), other.sketch(sets_to_matrix(sets, 300)))
    # a staged run of another model is discarded, not mixed in
    _interrupt(tmp_path / "out")
    third = EMDE(n_hyperplanes=4, n_partitions=5, random_state=3).fit(X)
    run = batch.sketch(third, str(root / "parquet"), out, client=client, progress=False)
    assert (run.computed, run.skipped, run.discarded) == (4, 0, 4)
    assert same(batch.read_sketches(out), third.sketch(sets_to_matrix(sets, 300)))


def test_unknown_items_stop_the_run_or_are_skipped_and_counted(client, tmp_path):
    X = np.random.default_rng(0).standard_normal((3, 2))
    pd.DataFrame({"items": ["a b", "b zz c", "zz"]}).to_csv(tmp_path / "s.csv", index=False)
    emde = EMDE(n_hyperplanes=2, n_partitions=3, random_state=0).fit(X)
    with pytest.raises(BatchError, match="Item 'zz' .*has no vector"):
        batch.sketch(emde, str(tmp_path / "s.csv"), None, item_names=["a", "b", "c"], client=client, progress=False)
    run = batch.sketch(emde, str(tmp_path / "s.csv"), None, item_names=["a", "b", "c"], unknown="skip",
                       client=client, progress=False)
    assert run.manifest["partitions"]["0"]["unknown_items"] == 2 and run.rows == 3


def test_random_sets_are_drawn_per_partition_from_the_seed(client, tmp_path):
    X = np.random.default_rng(0).standard_normal((50, 3))
    emde = EMDE(n_hyperplanes=3, n_partitions=4, random_state=0).fit(X)
    src = batch.RandomSets(1000, n_items=50, partition_size=300, sizes=(0, 6), seed=5)
    batch.sketch(emde, src, str(tmp_path / "out"), client=client, progress=False)
    W = sp.vstack([src.batch(p).matrix(50) for p in range(src.n_partitions)], format="csr")
    assert W.shape[0] == 1000
    assert same(batch.read_sketches(str(tmp_path / "out")), emde.sketch(W))


def test_a_large_partition_is_the_in_memory_sketch_byte_for_byte(tmp_path):
    """A partition past the size at which EMDE.sketch could use threads: its shard holds emde.sketch's bytes."""
    from embedcore.batch.sketches import _Model, _sketch_task

    X = np.random.default_rng(0).standard_normal((2000, 5))
    emde = EMDE(n_hyperplanes=5, n_partitions=8, norm="l2", random_state=0, n_jobs=2).fit(X)
    src = batch.RandomSets(30_000, n_items=2000, partition_size=30_000, sizes=(0, 20), seed=1)
    part = src.batch(0)
    W = part.matrix(2000)
    assert W.nnz > 200_000
    sets = [part.items[a:b].tolist() for a, b in zip(part.offsets[:-1], part.offsets[1:])]
    for name in ("data", "indices", "indptr"):  # the partition's matrix is the in-memory one
        assert getattr(W, name).tobytes() == getattr(sets_to_matrix(sets, 2000), name).tobytes(), name
    entry = _sketch_task(0, _Model(emde, None, "error"), src.parser, 0, str(tmp_path), "npz", False)
    shard, ref = sp.load_npz(tmp_path / entry["file"]), emde.sketch(W)
    for name in ("data", "indices", "indptr"):
        a, b = getattr(shard, name), getattr(ref, name)
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes(), name


def test_threads_are_no_part_of_the_model_and_a_task_sketches_on_one():
    from embedcore.batch.sketches import _Model, model_identity

    X = np.random.default_rng(0).standard_normal((50, 4))
    a = EMDE(n_hyperplanes=3, n_partitions=4, random_state=0).fit(X)
    b = EMDE(n_hyperplanes=3, n_partitions=4, random_state=0, n_jobs=2).fit(X)
    assert model_identity(a) == model_identity(b) and "n_jobs" not in model_identity(b)["params"]
    worker = _Model(b, None, "error").emde
    assert worker.n_jobs is None and b.n_jobs == 2 and worker.hyperplanes_ is b.hyperplanes_


class _FailsOnce:
    """A parser whose first attempt at each partition dies as a lost worker would."""

    def __init__(self, inner, folder):
        self.inner, self.folder = inner, folder

    def __call__(self, raw, model, part):
        mark = os.path.join(self.folder, f"tried-{part}")
        if not os.path.exists(mark):
            open(mark, "w").close()
            raise RuntimeError("worker lost")
        return self.inner(raw, model, part)


def test_a_failed_task_is_retried_and_nothing_is_lost(client, basket_data, tmp_path):
    X, sets, _, _, root = basket_data
    emde = EMDE(n_hyperplanes=3, n_partitions=4, random_state=0).fit(X)
    source = batch.TableSets(str(root / "parquet"))
    source.parser = _FailsOnce(source.parser, str(tmp_path))
    run = batch.sketch(emde, source, str(tmp_path / "out"), retries=1, client=client, progress=False)
    assert run.computed == 4 and len(list(tmp_path.glob("tried-*"))) == 4
    assert same(batch.read_sketches(str(tmp_path / "out")), emde.sketch(sets_to_matrix(sets, 300)))


def test_no_scheduler_at_the_address_is_one_clear_error():
    with pytest.raises(BatchError, match="No Dask scheduler answers at tcp://127.0.0.1:9"):
        with batch.cluster("tcp://127.0.0.1:9", timeout="1s"):
            pass


# --------------------------------------------------------------------------- word vectors


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    from embedcore.datasets import load_corpus

    tricky = ["Café l\u2019été, Zürich", "ΣΟΦΟΣ ΟΔΟΣ", "snake_case words_here", "   ",
              "Boston's Red Sox won 3-2!", "emoji \U0001F600 x\U0001D518y", "e\u0301te\u0301 café"]
    lines = load_corpus("lee").documents[:200] + tricky * 3
    root = tmp_path_factory.mktemp("corpus")
    half = len(lines) // 2
    (root / "a.txt").write_text("\n".join(lines[:half]) + "\n", encoding="utf-8")
    (root / "b.txt").write_text("\n".join(lines[half:]), encoding="utf-8")  # no final newline
    return [ln for ln in lines if ln.strip()], str(root)


def test_block_tokens_are_the_tokenizers_tokens_line_by_line(corpus):
    docs, _ = corpus
    t = batch.words.tokens_of_lines([d + "\n" for d in docs])
    assert t.words[t.codes].tolist() == [w for d in docs for w in tokenize(d)]
    assert t.n_docs == len(docs)


@pytest.mark.parametrize("params", [
    dict(window=3, min_count=2, n_components=12, random_state=0),
    dict(context="document", min_count=3, max_vocab=400, alpha=1.0, shift=2.0, n_components=8, eig_weight=0.0,
         random_state=1),
])
def test_word_vectors_equal_the_in_memory_fit(client, corpus, params):
    docs, root = corpus
    ref = PMIWordVectors(**params).fit(docs)
    wv = batch.word_vectors(root, blocksize=6000, client=client, progress=False, **params)
    pd.testing.assert_series_equal(wv.counts_, ref.counts_)
    assert list(wv.words_) == list(ref.words_) and wv.vocabulary_ == ref.vocabulary_
    assert same(wv.cooccurrence_, ref.cooccurrence_) and same(wv.pmi_, ref.pmi_)
    assert np.array_equal(wv.singular_values_, ref.singular_values_)
    signs = np.sign((wv.vectors_ * ref.vectors_).sum(axis=0))
    assert np.array_equal(wv.vectors_ * signs, ref.vectors_)
    assert np.array_equal(wv.idf_, ref.idf_)
    assert np.allclose(wv.transform(docs[:5], weighting="tfidf"), ref.transform(docs[:5], weighting="tfidf"))


def test_weighted_counts_agree_to_rounding_and_tokens_can_be_read_twice(client, corpus):
    docs, root = corpus
    tokens = [tokenize(d) for d in docs]
    ref = cooccurrence(tokens, pd.Index(build_vocabulary(tokens, 2).index), window=4, weighted=True)
    counts = batch.count_corpus(root, window=4, weighted=True, min_count=2, blocksize=5000, keep_tokens=False,
                                client=client, progress=False)
    assert counts.n_partitions >= 4 and counts.n_documents == len(docs)
    assert counts.n_tokens == sum(len(tokenize(d)) for d in docs)
    assert np.allclose(counts.cooccurrence.toarray(), ref.toarray(), rtol=1e-12, atol=0)


def test_word2vec_output_reads_back_in_the_lab(client, corpus, tmp_path):
    from embedcore.io import read_vectors

    _, root = corpus
    wv = batch.word_vectors(root, min_count=3, n_components=6, random_state=0, client=client, progress=False)
    batch.write_word2vec(wv, str(tmp_path / "vectors.txt"))
    v = read_vectors(str(tmp_path / "vectors.txt"))
    assert list(v.meta["word"]) == list(wv.words_) and not v.notices
    assert np.array_equal(v.X.astype(np.float32), wv.vectors_.astype(np.float32))  # float32 written exactly


@pytest.mark.parametrize("weighting", ["count", "tfidf"])
def test_document_vectors_equal_the_in_memory_transform(client, corpus, tmp_path, weighting):
    docs, root = corpus
    ref = PMIWordVectors(min_count=2, n_components=8, random_state=0).fit(docs)
    manifest = batch.document_vectors(root, ref, str(tmp_path / "docs"), weighting=weighting, dtype=np.float64,
                                      blocksize=6000, client=client, progress=False)
    assert len(manifest["partitions"]) >= 4 and manifest["rows"] == len(docs)
    assert np.array_equal(batch.read_document_vectors(str(tmp_path / "docs")), ref.transform(docs, weighting=weighting))


def test_cli_word_vectors_write_tfidf_document_vectors(client, corpus, tmp_path, capsys):
    docs, root = corpus
    code, err = _cli(capsys, "word-vectors", root, "--out", str(tmp_path / "v.txt"), "--min-count", "2", "--dim", "6",
                     "--doc-vectors", str(tmp_path / "docs"), "--weighting", "tfidf", "--blocksize", "6000",
                     "--float64", "--quiet", "--scheduler", client.scheduler.address)
    assert code == 0 and err == []
    ref = PMIWordVectors(min_count=2, n_components=6, random_state=0).fit(docs)
    got = batch.read_document_vectors(str(tmp_path / "docs"))
    want = ref.transform(docs, weighting="tfidf")
    # word vectors equal the in-memory fit's up to each dimension's sign, and so do the document vectors
    flip = np.sign((got * want).sum(axis=0))
    assert got.shape == want.shape and np.allclose(got * flip, want, atol=1e-12)
    summary = json.loads((tmp_path / "v.txt.json").read_text())
    assert summary["document_vectors"]["weighting"] == "tfidf"
    code, err = _cli(capsys, "word-vectors", root, "--out", str(tmp_path / "w.txt"), "--weighting", "tfidf")
    assert code == 1 and "--weighting applies to document vectors: add --doc-vectors DIR." in err[0]


def test_word_vector_errors_name_the_fix(client, corpus, tmp_path):
    _, root = corpus
    with pytest.raises(BatchError, match="n_components=100000 needs more words"):
        batch.word_vectors(root, n_components=100_000, client=client, progress=False)
    (tmp_path / "blank.txt").write_text("\n  \n...\n")
    with pytest.raises(BatchError, match="The corpus is empty"):
        batch.word_vectors(str(tmp_path / "blank.txt"), client=client, progress=False)


# --------------------------------------------------------------------------- category kernels


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    rng = np.random.default_rng(0)
    n = 6000
    cats = rng.choice([f"c{i:02d}" for i in range(15)], n)
    mean = np.array([int(c[1:]) % 4 for c in cats])
    frame = pd.DataFrame({"cat": cats, "y": np.round(rng.normal(mean, 1.0), 1), "z": rng.gamma(2.0, 1.0, n)})
    frame.loc[::97, "y"] = np.nan
    frame.loc[::89, "cat"] = None
    root = tmp_path_factory.mktemp("table")
    (root / "parquet").mkdir()
    for k in range(3):
        frame.iloc[2000 * k: 2000 * (k + 1)].to_parquet(root / "parquet" / f"p{k}.parquet")
    frame.to_csv(root / "t.csv", index=False)
    return frame, root


@pytest.mark.parametrize("kernel", ["wasserstein", "kl"])
@pytest.mark.parametrize("source", ["parquet", "t.csv"])
def test_category_kernel_equals_the_in_memory_encoder(client, table, kernel, source):
    frame, root = table
    clean = frame.dropna(subset=["cat", "y"])
    ref = SpectralCategoryEncoder(kernel=kernel, gamma=0.8).fit(clean[["cat"]], clean["y"])
    ck = batch.category_kernel(str(root / source), "cat", "y", kernel=kernel, gamma=0.8, blocksize=40_000,
                               value_bins=None, client=client, progress=False)
    assert ck.params["bin_width"] is None
    assert list(ck.categories) == list(ref.categories_[0])
    assert ck.rows == len(clean) and ck.dropped == len(frame) - len(clean)
    assert np.array_equal(ck.affinity, ref.affinity_[0])
    assert np.array_equal(ck.eigenvalues, ref.eigenvalues_[0])
    assert np.array_equal(ck.embedding, ref.embedding_[0])
    codes = ck.codes()
    assert list(codes.columns) == ["category"] + [f"e{j + 1}" for j in range(ck.embedding.shape[1])]


def test_continuous_target_kernel_and_encoder(client, table):
    frame, root = table
    clean = frame.dropna(subset=["cat"])
    ref = SpectralCategoryEncoder(gamma=1.5, target_transform="log1p").fit(clean[["cat"]], clean["z"])
    ck = batch.category_kernel(str(root / "parquet"), "cat", "z", gamma=1.5, target_transform="log1p",
                               value_bins=None, client=client, progress=False)
    # all values distinct: in memory W1 walks quantiles, here CDFs; the same numbers up to rounding
    assert np.allclose(ck.affinity, ref.affinity_[0], rtol=1e-12, atol=1e-15)
    probe = pd.DataFrame({"cat": ["c03", "never seen"]})
    assert np.allclose(ck.encoder().transform(probe), ref.transform(probe), atol=1e-10)
    y = np.log1p(clean["z"].to_numpy())
    exact = wasserstein_distances(category_distributions(clean["cat"], np.expm1(y), "log1p")[1])
    for value_bins in (200, None):  # None here: leave the default, 1,024 bins
        more = {} if value_bins is None else {"value_bins": value_bins}
        binned = batch.category_kernel(str(root / "parquet"), "cat", "z", gamma=1.5, target_transform="log1p",
                                       client=client, progress=False, **more)
        width = (y.max() - y.min()) / (value_bins or 1024)
        assert binned.params["bin_width"] == pytest.approx(width, rel=1e-12)
        error = np.abs(binned.distances - exact).max()
        assert 0 < error <= width  # rounded, and by no more than one bin width
    assert error < 0.05 * np.median(exact[exact > 0])  # at the default, a small part of a typical distance


def test_the_binned_default_agrees_within_a_bin_and_whole_numbers_stay_exact(client, table, tmp_path):
    frame, root = table
    clean = frame.dropna(subset=["cat", "y"])
    ref = SpectralCategoryEncoder(gamma=0.8).fit(clean[["cat"]], clean["y"])
    ck = batch.category_kernel(str(root / "parquet"), "cat", "y", gamma=0.8, client=client, progress=False)
    width = (clean["y"].max() - clean["y"].min()) / 1024
    assert ck.params["value_bins"] == 1024 and ck.params["bin_width"] == pytest.approx(width, rel=1e-12)
    exact = wasserstein_distances(category_distributions(clean["cat"], clean["y"])[1])
    assert np.abs(ck.distances - exact).max() <= width
    assert list(ck.categories) == list(ref.categories_[0]) and ck.rows == len(clean)
    # a target of whole numbers over fewer values than bins is counted exactly: the encoder's own kernel
    counts = clean.assign(y=(clean["y"] * 10).round().astype(int))
    counts.to_parquet(tmp_path / "whole.parquet")
    whole = batch.category_kernel(str(tmp_path / "whole.parquet"), "cat", "y", gamma=0.08, client=client,
                                  progress=False)
    assert whole.params["bin_width"] is None
    assert np.array_equal(whole.affinity, SpectralCategoryEncoder(gamma=0.08).fit(counts[["cat"]], counts["y"])
                          .affinity_[0])


def test_category_kernel_errors(client, table, tmp_path):
    _, root = table
    with pytest.raises(BatchError, match="has no column 'nope'"):
        batch.category_kernel(str(root / "parquet"), "nope", "y", client=client, progress=False)
    pd.DataFrame({"cat": ["a", "b"], "y": ["1.5", "lots"]}).to_csv(tmp_path / "bad.csv", index=False)
    with pytest.raises(BatchError, match="holds 'lots', which is not a number"):
        batch.category_kernel(str(tmp_path / "bad.csv"), "cat", "y", client=client, progress=False)


@pytest.fixture(scope="module")
def kernel_run(module_client, table, tmp_path_factory):
    """category-kernel run from the command line on the Parquet partitions: its output directory."""
    from embedcore.cli import main

    _, root = table
    out = tmp_path_factory.mktemp("kernel")
    assert main(["category-kernel", str(root / "parquet"), "--column", "cat", "--target", "y", "--gamma", "0.8",
                 "--value-bins", "exact", "--out", str(out / "codes.csv"), "--quiet",
                 "--scheduler", module_client.scheduler.address]) == 0
    return out


def _files(out, *names):
    return [(n, (out / n).read_bytes()) for n in names]


def test_the_kernel_files_read_back_as_the_in_memory_encoder_fits(table, kernel_run):
    frame, _ = table
    clean = frame.dropna(subset=["cat", "y"])
    ref = SpectralCategoryEncoder(gamma=0.8).fit(clean[["cat"]], clean["y"])
    zipped = kernel_run / "out.zip"
    import zipfile

    with zipfile.ZipFile(zipped, "w") as z:
        for n in ("codes.csv", "codes.csv.json", "codes.csv.npz"):
            z.write(kernel_run / n, f"run/{n}")
    sources = [str(kernel_run / "codes.csv.npz"), str(kernel_run / "codes.csv"), str(kernel_run),
               _files(kernel_run, "codes.csv.npz"), _files(kernel_run, "codes.csv", "codes.csv.json", "codes.csv.npz"),
               [("out.zip", zipped.read_bytes())]]
    for source in sources:
        ck = batch.read_category_kernel(source)
        assert list(ck.categories) == list(ref.categories_[0])
        assert np.array_equal(ck.affinity, ref.affinity_[0]) and np.array_equal(ck.eigenvalues, ref.eigenvalues_[0])
        assert np.array_equal(ck.embedding, ref.embedding_[0])
        assert ck.params["column"] == "cat" and ck.params["kernel"] == "wasserstein" and ck.gamma == 0.8
        assert ck.rows == len(clean) and ck.manifest["versions"]["numpy"] == np.__version__
        np.testing.assert_array_equal(ck.counts, clean["cat"].value_counts().sort_index().to_numpy())


def _tampered(out, **arrays) -> list:
    with np.load(out / "codes.csv.npz", allow_pickle=False) as z:
        content = {k: z[k] for k in z.files}
    content.update(arrays)
    buf = io.BytesIO()
    np.savez(buf, **{k: v for k, v in content.items() if v is not None})
    return [("codes.csv.npz", buf.getvalue())]


def _other_run(out, key, value) -> list:
    summary = json.loads((out / "codes.csv.json").read_text())
    summary[key] = value
    return [("codes.csv.json", json.dumps(summary).encode())]


@pytest.mark.parametrize("make, message", [
    (lambda out: _files(out, "codes.csv", "codes.csv.json"),
     "codes.csv, codes.csv.json: the kernel file \\(.npz\\) is missing"),
    (lambda out: [], "No file to read"),
    (lambda out: [("codes.csv.npz", b"category,e1\na,0.5\n")], "codes.csv.npz is not a .npz file"),
    (lambda out: _tampered(out, affinity=np.array([{"a": 1}], dtype=object)),
     "holds Python objects, which the lab never"),
    (lambda out: _tampered(out, affinity=None), "has no array 'affinity'"),
    (lambda out: _tampered(out, embedding=np.zeros((3, 2))), "'embedding' is 3 x 2 of float64; it must be 15 x 1"),
    (lambda out: _tampered(out, distances=np.full((15, 15), np.nan)), "'distances' has NaN or infinite values"),
    (lambda out: _tampered(out, affinity=np.ones((15, 15))), "'affinity' is not exp\\(-gamma \\* distance\\)"),
    (lambda out: _tampered(out, categories=np.array(["c00"] * 15)), "the category 'c00' is named twice"),
    (lambda out: _tampered(out, manifest=np.array("{}")), "its manifest is not that of a category-kernel run"),
    (lambda out: _files(out, "codes.csv.npz") + _other_run(out, "gamma", 2.0),
     "codes.csv.json and codes.csv.npz come from different runs \\(their gamma differ\\)"),
    (lambda out: _files(out, "codes.csv.npz")
     + [("codes.csv", (out / "codes.csv").read_bytes().replace(b"c03,", b"c03,9"))],
     "codes.csv: the code e1 of 'c03' is 9"),
    (lambda out: _files(out, "codes.csv.npz") + [("t.csv", b"cat,y\na,1\n")], "t.csv is not a codes file"),
    (lambda out: _files(out, "codes.csv.npz") * 2, "Got 2 kernel files"),
    (lambda out: _files(out, "codes.csv.npz") + [("notes.txt", b"hi")], "notes.txt is not one of the files"),
    (lambda out: [("out.zip", b"PK\x03\x04 broken")], "out.zip is not a readable .zip file"),
])
def test_a_bad_kernel_upload_says_what_is_wrong(kernel_run, make, message):
    with pytest.raises(DataError, match=message):
        batch.read_category_kernel(make(kernel_run))


def test_table_csv_is_read_by_the_command_as_the_page_reads_the_table(client, tmp_path):
    frame = pd.DataFrame({"size": [1, 2, 3, 2, 1, 3] * 10, "tip": np.linspace(0.5, 9.5, 60), "day": ["a"] * 60})
    frame.loc[3, "tip"] = np.nan
    (tmp_path / "t.csv").write_text(batch.table_csv(frame), encoding="utf-8")
    ck = batch.category_kernel(str(tmp_path / "t.csv"), "size", "tip", gamma=0.5, value_bins=None, client=client,
                               progress=False)
    clean = frame.dropna(subset=["tip"])
    ref = SpectralCategoryEncoder(gamma=0.5).fit(clean[["size"]].astype(str), clean["tip"])
    # all target values distinct: in memory W1 walks quantiles, here CDFs; the same numbers up to rounding
    assert list(ck.categories) == ["1", "2", "3"] and np.allclose(ck.affinity, ref.affinity_[0], rtol=1e-12)
    assert ck.dropped == 1


# --------------------------------------------------------------------------- the command line


def _cli(capsys, *argv):
    from embedcore.cli import main

    code = main(list(argv))
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    return code, err


def test_cli_sketches_on_a_given_scheduler(client, basket_data, tmp_path, capsys):
    X, sets, _, _, root = basket_data
    np.save(tmp_path / "items.npy", X)
    code, err = _cli(capsys, "sketch", str(tmp_path / "items.npy"), str(root / "parquet"), "--out",
                     str(tmp_path / "out"), "-K", "3", "-N", "5", "--seed", "4", "--quiet",
                     "--scheduler", client.scheduler.address)
    assert code == 0 and err == []
    emde = EMDE(n_hyperplanes=3, n_partitions=5, random_state=4).fit(X)
    assert same(batch.read_sketches(str(tmp_path / "out")), emde.sketch(sets_to_matrix(sets, 300)))


@pytest.mark.parametrize("argv, message", [
    (["sketch", "ITEMS", "no/such/sets.parquet", "--out", "OUT"], "The sets file no/such/sets.parquet does not exist."),
    (["sketch", "no/such/items.npy", "SETS", "--out", "OUT"],
     "The item vectors file no/such/items.npy does not exist."),
    (["sketch", "ITEMS", "ITEMS", "--out", "OUT"], "is not a Parquet or CSV file"),
    (["sketch", "ITEMS", "FAKE", "--out", "OUT"], "is not a Parquet file (it does not start with the bytes PAR1)"),
    (["sketch", "ITEMS", "SETS", "--out", "OUT", "--column", "basket"], "has no column 'basket' (its columns: items)"),
    (["word-vectors", "ITEMS", "--out", "OUT.txt"], "is not plain text"),
    (["word-vectors", "no/such/dir/", "--out", "OUT.txt"], "does not exist"),
    (["category-kernel", "SETS", "--column", "items", "--target", "y", "--out", "no/such/dir/codes.csv"],
     "The folder of --out no/such/dir/codes.csv does not exist."),
    (["category-kernel", "SETS", "--column", "items", "--target", "y", "--out", "OUT", "--value-bins", "fine"],
     "--value-bins must be a number of bins or 'exact', got 'fine'."),
    (["category-kernel", "SETS", "--column", "items", "--target", "y", "--out", "OUT", "--value-bins", "1"],
     "value_bins must be at least 2, got 1."),
])
def test_cli_bad_paths_and_formats_end_in_one_line(capsys, tmp_path, argv, message):
    np.save(tmp_path / "items.npy", np.eye(3))
    (tmp_path / "fake.parquet").write_text("items\n1 2\n")
    pd.DataFrame({"items": ["0 1"]}).to_csv(tmp_path / "sets.csv", index=False)
    files = {"ITEMS": "items.npy", "SETS": "sets.csv", "FAKE": "fake.parquet", "OUT": "out", "OUT.txt": "v.txt"}
    argv = [str(tmp_path / files[a]) if a in files else a for a in argv]
    code, err = _cli(capsys, *argv)
    assert code == 1 and len(err) == 1
    assert err[0].startswith(f"python -m embedcore {argv[0]}: error: ") and message in err[0]


def test_cli_from_a_shell_exits_non_zero_with_one_line(tmp_path):
    out = subprocess.run([sys.executable, "-m", "embedcore", "sketch", str(tmp_path / "items.npy"),
                          str(tmp_path / "missing.csv"), "--out", str(tmp_path / "out")],
                         capture_output=True, text=True, timeout=120, cwd=os.getcwd())
    assert out.returncode == 1 and out.stdout == ""
    assert out.stderr.strip().splitlines() == [
        f"python -m embedcore sketch: error: The item vectors file {tmp_path / 'items.npy'} does not exist."]
