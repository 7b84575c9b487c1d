"""Sketches of the batch step handed back as files: the round trip from the lab's sets to the command and back.

The bundled labelled sets are written in the command's input format, sketched
on a two-worker LocalCluster split into several partitions, and the output,
in every form a person can upload, reads back equal to ``EMDE.sketch`` of the
same model. Then every way an upload can be wrong, each with its message.
"""

from __future__ import annotations

import io
import json
import os
import pickle
import shlex
import zipfile

import numpy as np
import pytest
import scipy.sparse as sp

from embedcore import batch, datasets
from embedcore.batch import BatchError
from embedcore.batch.sketch_files import (
    check_for_sets,
    read_sketch_files,
    sets_csv,
    sketch_command,
    sketch_input,
)
from embedcore.emde import EMDE

# dask's Parquet reader calls a pandas method pandas 3.1 deprecates; not ours to change
pytestmark = pytest.mark.filterwarnings("ignore:The inplace keyword in DataFrame.reset_index")




def _zip(folder) -> bytes:
    """The output directory zipped as ``python -m zipfile -c out.zip out`` zips it (with the folder's name)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name in sorted(os.listdir(folder)):
            z.write(os.path.join(folder, name), os.path.join(os.path.basename(folder), name))
    return buf.getvalue()


def _files(folder) -> list[tuple[str, bytes]]:
    return [(n, open(os.path.join(folder, n), "rb").read()) for n in sorted(os.listdir(folder))]


def _same(A, B) -> bool:
    A, B = sp.csr_array(A), sp.csr_array(B)
    return A.shape == B.shape and (A != B).nnz == 0


@pytest.fixture(scope="module")
def hotdog_run(module_client, tmp_path_factory):
    """The hot dog sets (300, labelled) as the page offers them, sketched by the command it shows."""
    d = datasets.load("hotdog", seed=0)
    root = tmp_path_factory.mktemp("hotdog")
    got = sketch_input(d.vectors, d.weight_matrix(), d.labels)
    (root / "items.npy").write_bytes(got.items)
    (root / "sets.csv").write_bytes(got.sets)
    from embedcore.cli import main

    line = sketch_command(4, 16, seed=0, weighted=got.weighted).splitlines()[0]
    argv = shlex.split(line)[3:]  # after "python -m embedcore"
    argv = [str(root / a) if a in ("items.npy", "sets.csv", "sketches") else a for a in argv]
    code = main(argv + ["--blocksize", "2500", "--quiet", "--scheduler", module_client.scheduler.address])
    assert code == 0
    emde = EMDE(n_hyperplanes=4, n_partitions=16, random_state=0).fit(d.vectors)
    return d, emde.sketch(d.weight_matrix()), root / "sketches"


def test_the_command_on_the_pages_files_gives_emde_sketch_in_every_upload_form(hotdog_run):
    d, want, out = hotdog_run
    manifest = json.loads((out / "manifest.json").read_text())
    assert len(manifest["partitions"]) >= 3  # the sets were split
    for form, files in [("a zipped output directory", [("sketches.zip", _zip(out))]),
                        ("manifest.json and its shards", _files(out))]:
        got = read_sketch_files(files)
        assert _same(got.sketches, want), form
        assert got.form.startswith(form) and got.manifest["model"]["n_items"] == 200
        assert got.params["K"] == 4 and got.params["N"] == 16 and got.params["seed"] == 0
        assert got.label == "uploaded sketches K=4 N=16"
        assert check_for_sets(got, 300, 200, 2) == []
    # the shards alone, stacked in name order (partition order), without the manifest's checks
    shards = [f for f in _files(out) if f[0].endswith(".npz")]
    got = read_sketch_files(shards[::-1])
    assert _same(got.sketches, want) and got.manifest is None and got.label == "uploaded sketches"
    assert check_for_sets(got, 300, 200) == ["Without a manifest only the row count can be checked; the settings "
                                             "are not known."]


def test_weighted_sets_and_parquet_shards_round_trip(client, tmp_path):
    """Digits as ink sets, intensities as fractions: the sets file gets a weights column, and the command uses it."""
    d = datasets.load("digit_ink", seed=0)
    W = d.weight_matrix() / 16
    got = sketch_input(d.vectors, W, d.labels)
    assert got.weighted and got.sets.startswith(b"items,weights,label\n")
    (tmp_path / "items.npy").write_bytes(got.items)
    (tmp_path / "sets.csv").write_bytes(got.sets)
    items, names = batch.load_items(str(tmp_path / "items.npy"))
    assert names is None and np.array_equal(items, d.vectors)
    emde = EMDE(n_hyperplanes=3, n_partitions=8, random_state=5).fit(items)
    batch.sketch(emde, str(tmp_path / "sets.csv"), str(tmp_path / "out"), weights="weights", blocksize=60_000,
                 shard_format="parquet", client=client, progress=False)
    back = read_sketch_files([("out.zip", _zip(tmp_path / "out"))])
    assert "Parquet shards" in back.form
    assert _same(back.sketches, emde.sketch(W))
    assert check_for_sets(back, len(d.sets), len(d.items), 2) == []


def test_the_pages_own_download_and_a_dense_array_are_read_too():
    from embedcore.emde import sketches_npz

    e = EMDE(n_hyperplanes=2, n_partitions=3, random_state=0).fit(np.eye(4))
    S = e.sketch([[0, 1], [2], []])
    got = read_sketch_files([("emde_sketches.npz", sketches_npz(S, {"K": 2, "N": 3, "seed": 0, "data": "<b>"}))])
    assert _same(got.sketches, S) and got.params == {"K": 2, "N": 3, "seed": 0}
    buf = io.BytesIO()
    np.save(buf, S.toarray())
    dense = read_sketch_files([("features.npy", buf.getvalue())])
    assert _same(dense.sketches, S) and dense.form.startswith("a dense array")


def test_sets_file_of_labels_with_commas_and_quotes_reads_back_through_the_batch_reader(client, tmp_path):
    W = sp.csr_array(np.array([[1.0, 0, 2], [0, 0, 0], [0, 3, 0]]))
    (tmp_path / "sets.csv").write_bytes(sets_csv(W, ['a, "b"', "", "x\ny"]))
    e = EMDE(n_hyperplanes=2, n_partitions=3, random_state=0).fit(np.eye(3))
    run = batch.sketch(e, str(tmp_path / "sets.csv"), str(tmp_path / "out"), client=client, progress=False)
    assert run.rows == 3 and _same(batch.read_sketches(str(tmp_path / "out")), e.sketch(W))


# --------------------------------------------------------------------------- what is wrong, said plainly


@pytest.fixture(scope="module")
def small_run(module_client, tmp_path_factory):
    root = tmp_path_factory.mktemp("small")
    X = np.random.default_rng(0).standard_normal((30, 3))
    W = sp.csr_array(np.random.default_rng(1).integers(0, 2, size=(40, 30)).astype(float))
    (root / "sets.csv").write_bytes(sets_csv(W))
    emde = EMDE(n_hyperplanes=3, n_partitions=4, random_state=0).fit(X)
    batch.sketch(emde, str(root / "sets.csv"), str(root / "out"), blocksize=300, client=module_client, progress=False)
    return root / "out"


def _npy(a, **kw) -> bytes:
    buf = io.BytesIO()
    np.save(buf, a, **kw)
    return buf.getvalue()


def _edited(out, change) -> list[tuple[str, bytes]]:
    files = dict(_files(out))
    body = json.loads(files["manifest.json"])
    change(body)
    files["manifest.json"] = json.dumps(body).encode()
    return list(files.items())


@pytest.mark.parametrize("make, message", [
    (lambda out: [("pickled.npy", _npy(np.array([{"a": 1}], dtype=object), allow_pickle=True))],
     "pickled.npy holds pickled Python objects, which the lab never loads"),
    (lambda out: [("noise.zip", np.random.default_rng(0).bytes(500))], "noise.zip is not a zip file"),
    (lambda out: [("noise.npz", np.random.default_rng(0).bytes(500))], "noise.npz is not a readable .npz file"),
    (lambda out: [("pickle.npy", pickle.dumps([1, 2]))], "pickle.npy is not a .npy array (it lacks "
     "the .npy header; the lab never unpickles a file)"),
    (lambda out: [("notes.txt", b"hello")], "notes.txt is not part of a sketch output"),
    (lambda out: [("part-00000.parquet", b"PAR1")], "is a Parquet shard, which holds only its non-zeros"),
    (lambda out: [f for f in _files(out) if f[0] == "manifest.json"],
     "The manifest lists part-00000.npz, which is not among the files given"),
    (lambda out: [("empty.zip", _zip_of({"readme.txt": b"x"}))], "empty.zip holds no manifest.json"),
    (lambda out: [f for f in _files(out) if f[0] != "part-00001.npz"],
     "The manifest lists part-00001.npz, which is not among the files given"),
    (lambda out: _edited(out, lambda b: b["partitions"].pop("1")), "1 of 6 partitions are not sketched yet"),
    (lambda out: _edited(out, lambda b: b["partitions"]["0"].update(rows=5)), "holds a (8, 32) matrix but the "
     "manifest says (5, 32)"),
    (lambda out: _edited(out, lambda b: b.update(complete=False)), "The manifest does not say the run completed"),
    (lambda out: [(n, b + b"\0" if n == "part-00002.npz" else b) for n, b in _files(out)],
     "part-00002.npz is not the shard its manifest lists"),
    (lambda out: _edited(out, lambda b: b["partitions"]["3"].pop("sha256")), "The manifest has no checksum for "
     "part-00003.npz: it was written by an older version of the step"),
    (lambda out: _edited(out, lambda b: b.pop("model")), "manifest.json lacks fields the sketch step writes"),
    (lambda out: [("manifest.json", b"{not json")] + _files(out)[1:], "manifest.json is not a sketch manifest (not "
     "JSON)"),
    (lambda out: [("a.npz", _sparse_npz(np.ones((2, 3)))), ("b.npz", _sparse_npz(np.ones((2, 4))))],
     "The shards have different widths (3, 4 columns)"),
])
def test_a_bad_upload_says_what_is_wrong(small_run, make, message):
    with pytest.raises(BatchError, match=_literal(message)):
        read_sketch_files(make(small_run))


def _literal(text: str) -> str:
    import re

    return re.escape(text)


def _zip_of(files: dict) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for k, v in files.items():
            z.writestr(k, v)
    return buf.getvalue()


def _sparse_npz(a) -> bytes:
    buf = io.BytesIO()
    sp.save_npz(buf, sp.csr_array(a))
    return buf.getvalue()


@pytest.mark.parametrize("change, args, message", [
    (None, (39, 30), "The sketches have 40 rows but there are 39 sets: sketch exactly the sets this page offers"),
    (None, (40, 31), "The sketches were made with 30 item vectors but these sets draw from 31 items"),
    (lambda b: b["model"]["params"].update(n_hyperplanes=4), (40, 30),
     "The sketches are 32 columns wide, but K=4, N=4 make 64"),
    (lambda b: b.update(shape=[40, 64]), (40, 30), "The manifest says 40 x 64 but its shards hold 40 x 32"),
])
def test_sketches_that_do_not_fit_the_sets_are_refused(small_run, change, args, message):
    files = _edited(small_run, change) if change else _files(small_run)
    with pytest.raises(BatchError, match=_literal(message)):
        check_for_sets(read_sketch_files(files), *args)


def test_other_item_vectors_for_the_same_items_are_noted_and_non_finite_values_refused(small_run):
    got = read_sketch_files(_files(small_run))
    assert check_for_sets(got, 40, 30, 5) == ["They were made from 3-dimensional item vectors, and these items have 5: "
                                              "other vectors for the same items."]
    bad = np.zeros((40, 32))
    bad[3, 4] = np.nan
    with pytest.raises(BatchError, match="NaN or infinite values"):
        check_for_sets(read_sketch_files([("nan.npz", _sparse_npz(bad))]), 40, 30)


def test_a_zip_that_unpacks_beyond_the_limit_is_refused(monkeypatch):
    from embedcore.batch import sketch_files

    monkeypatch.setattr(sketch_files, "MAX_UNPACKED", 1000)
    with pytest.raises(BatchError, match="unpacks to 0 MB; the lab takes sketches up to 0 MB"):
        read_sketch_files([("big.zip", _zip_of({"manifest.json": b" " * 5000}))])


def test_a_negative_weight_stops_the_step_naming_its_set(client, tmp_path):
    (tmp_path / "s.csv").write_text("items,w\n0 1,1 2\n2,-0.5\n")
    emde = EMDE(n_hyperplanes=2, n_partitions=3, random_state=0).fit(np.eye(3))
    with pytest.raises(BatchError, match=r"Item weight -0.5 \(.*s\.csv, line 3\) is negative"):
        batch.sketch(emde, str(tmp_path / "s.csv"), None, weights="w", client=client, progress=False)
