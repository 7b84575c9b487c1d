"""Sketches made by the batch step, handed back as files: read, checked against the sets, and the step's input made.

The sketch step (:func:`~embedcore.batch.sketch`, ``python -m embedcore
sketch``) writes a directory: ``manifest.json`` and one shard per partition.
Someone who ran it elsewhere hands the lab its files, in one of these forms:

* the output directory zipped (``python -m zipfile -c sketches.zip sketches/``);
* ``manifest.json`` and its shards uploaded together;
* ``.npz`` shards alone (several are stacked in file-name order, which is
  partition order for the step's ``part-00000.npz`` names);
* the Sets page's own ``.npz`` download, or a dense numeric ``.npy``.

With a manifest, every shard is checked against it (rows, width, all
partitions present); without one, only what the files hold can be checked.
:func:`check_for_sets` then checks the sketches against the sets they are
meant to describe. Nothing is ever unpickled: ``.npy`` and ``.npz`` are read
with ``allow_pickle=False``, and a file holding Python objects is refused.

:func:`sketch_input` goes the other way: item vectors and sets in the files
the command reads, and the command that reproduces a given EMDE.
"""

from __future__ import annotations

import io
import json
import os
import zipfile
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ..emde import stack_rows
from ._cluster import BatchError
from ._outputs import MANIFEST
from .sketch_reading import parse_manifest, stack_shards

__all__ = ["SketchFiles", "read_sketch_files", "check_for_sets", "SketchInput", "sketch_input", "items_npy", "sets_csv",
           "needs_weights", "sketch_command", "MAX_UNPACKED"]

#: Most bytes a zip may unpack to (its own header says how many): sketches of this size are far beyond a page.
MAX_UNPACKED = 2**29
_FORMS = ("give the sketch step's output: its directory zipped, manifest.json with its shards, or .npz shards")


class SketchFiles(NamedTuple):
    """Sketches read from files: the matrix, the manifest (if one came with them) and what was read.

    Examples
    --------
    >>> buffer = io.BytesIO()
    >>> sp.save_npz(buffer, sp.csr_array(np.array([[1.0, 0, 2], [0, 3, 0]])))
    >>> got = read_sketch_files([("part-00000.npz", buffer.getvalue())])
    >>> got.sketches.shape, got.form, got.manifest, got.label
    ((2, 3), '1 .npz file without a manifest', None, 'uploaded sketches')
    """

    sketches: sp.csr_array
    manifest: dict | None
    form: str  # for a person: "a zipped output directory (manifest and 4 .npz shards)"
    params: dict  # K, N, seed, offsets, weighting, norm, drop_empty when the files say; {} otherwise

    @property
    def label(self) -> str:
        """The benchmark's name for these sketches, from checked numbers only (never text from a file)."""
        K, N = self.params.get("K"), self.params.get("N")
        return f"uploaded sketches K={K} N={N}" if K and N else "uploaded sketches"


def _whole(v) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _params_of_manifest(body: dict) -> dict:
    p = body.get("model", {}).get("params", {})
    p = p if isinstance(p, dict) else {}
    out = {"K": _whole(p.get("n_hyperplanes")), "N": _whole(p.get("n_partitions")),
           "seed": _whole(body["model"].get("random_state")), "drop_empty": p.get("drop_empty") is True,
           "n_items": _whole(body["model"].get("n_items")), "n_features_in": _whole(body["model"].get("n_features_in"))}
    return {k: v for k, v in out.items() if v is not None}


def _npz(raw: bytes, name: str) -> tuple[sp.csr_array, dict]:
    """An .npz of one sparse matrix: scipy's ``save_npz`` (a shard) or the Sets page's download (with params)."""
    if not raw.startswith(b"PK"):  # an .npz is a zip archive
        raise BatchError(f"{name} is not a readable .npz file (it is not a zip archive of arrays); {_FORMS}.")
    try:
        with np.load(io.BytesIO(raw), allow_pickle=False) as z:
            keys = set(z.files)
            if {"data", "indices", "indptr", "shape"} <= keys:
                fmt = z["format"].item() if "format" in keys else b"csr"
                fmt = fmt.decode() if isinstance(fmt, bytes) else str(fmt)
                if fmt not in ("csr", "csc"):
                    raise BatchError(f"{name} holds a sparse matrix in {fmt!r} form; save it as CSR.")
                kind = sp.csr_array if fmt == "csr" else sp.csc_array
                S = kind((z["data"], z["indices"], z["indptr"]), shape=tuple(int(v) for v in z["shape"]))
                params = json.loads(str(z["params"])) if "params" in keys else {}
            elif {"row", "col", "data", "shape"} <= keys:
                S = sp.coo_array((z["data"], (z["row"], z["col"])), shape=tuple(int(v) for v in z["shape"]))
                params = {}
            else:
                raise BatchError(f"{name} holds the arrays {', '.join(sorted(keys)) or 'none'}, not a sparse matrix; "
                                 f"{_FORMS}.")
        S = sp.csr_array(S)
        S.check_format(full_check=True)
    except BatchError:
        raise
    except ValueError as e:
        if "pickle" in str(e).lower() or "object arrays" in str(e).lower():
            raise BatchError(f"{name} holds pickled Python objects, which the lab never loads; {_FORMS}.") from None
        raise BatchError(f"{name} is not a sparse sketch matrix ({' '.join(str(e).split())[:120]}).") from None
    except (OSError, zipfile.BadZipFile, KeyError, TypeError, json.JSONDecodeError):
        raise BatchError(f"{name} is not a readable .npz file; {_FORMS}.") from None
    if not isinstance(params, dict):
        params = {}
    known = {"K": _whole(params.get("K")), "N": _whole(params.get("N")), "seed": _whole(params.get("seed"))}
    return S, {k: v for k, v in known.items() if v is not None}


def _npy(raw: bytes, name: str) -> sp.csr_array:
    if not raw.startswith(b"\x93NUMPY"):
        raise BatchError(f"{name} is not a .npy array (it lacks the .npy header; the lab never unpickles a file); "
                         f"{_FORMS}.")
    try:
        X = np.load(io.BytesIO(raw), allow_pickle=False)
    except ValueError as e:
        if "pickle" in str(e).lower() or "object arrays" in str(e).lower():
            raise BatchError(f"{name} holds pickled Python objects, which the lab never loads; {_FORMS}.") from None
        raise BatchError(f"{name} is not a numeric .npy array ({' '.join(str(e).split())[:120]}).") from None
    except (OSError, EOFError):
        raise BatchError(f"{name} is not a readable .npy file; {_FORMS}.") from None
    if not isinstance(X, np.ndarray) or X.ndim != 2 or X.dtype.kind not in "fiub":
        raise BatchError(f"{name} holds a {getattr(X, 'dtype', '?')} array of shape {getattr(X, 'shape', '?')}; "
                         "features are a 2-D numeric array, one row per set.")
    return sp.csr_array(X.astype(np.float64))


def _unzip(raw: bytes, name: str) -> dict[str, bytes]:
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as z:
            infos = [i for i in z.infolist() if not i.is_dir() and not os.path.basename(i.filename).startswith(".")
                     and "__MACOSX" not in i.filename]
            total = sum(i.file_size for i in infos)
            if total > MAX_UNPACKED:
                raise BatchError(f"{name} unpacks to {total / 2**20:,.0f} MB; the lab takes sketches up to "
                                 f"{MAX_UNPACKED / 2**20:,.0f} MB. Score larger sketches outside the page.")
            return {i.filename: z.read(i) for i in infos}
    except zipfile.BadZipFile:
        raise BatchError(f"{name} is not a zip file; {_FORMS}.") from None


def _from_manifest(files: dict[str, bytes], manifest: str, form: str) -> SketchFiles:
    body = parse_manifest(files[manifest], os.path.basename(manifest))
    folder = os.path.dirname(manifest)
    by_base = {os.path.basename(n): n for n in files}

    def fetch(file: str) -> bytes:
        key = os.path.join(folder, file) if folder else file
        if key not in files and file not in by_base:
            raise BatchError(f"The manifest lists {file}, which is not among the files given; {_FORMS}.")
        return files[key] if key in files else files[by_base[file]]

    S = stack_shards(body, fetch)
    n = len(body["partitions"])
    kind = "Parquet" if body.get("shard_format") == "parquet" else ".npz"
    return SketchFiles(S, body, f"{form} (manifest and {n} {kind} shard{'s' * (n != 1)})", _params_of_manifest(body))


def read_sketch_files(files: Sequence[tuple[str, bytes]]) -> SketchFiles:
    """Sketches from files a person gives: ``(name, bytes)`` pairs in one of the forms of the module docstring.

    Raises :class:`~embedcore.batch.BatchError` with a sentence saying what
    is wrong and what to give instead.

    Examples
    --------
    >>> read_sketch_files([("notes.txt", b"hello")])
    Traceback (most recent call last):
    ...
    embedcore.exceptions.BatchError: notes.txt is not part of a sketch output; give the sketch step's output: \
its directory zipped, manifest.json with its shards, or .npz shards.
    """
    files = list(files)
    if not files:
        raise BatchError(f"No file given; {_FORMS}.")
    if len(files) == 1 and files[0][0].lower().endswith(".zip"):
        name = files[0][0]
        inner = _unzip(files[0][1], name)
        manifests = [n for n in inner if os.path.basename(n) == MANIFEST]
        if len(manifests) > 1:
            raise BatchError(f"{name} holds {len(manifests)} manifests ({', '.join(sorted(manifests)[:3])}); zip one "
                             "output directory.")
        if not manifests:
            raise BatchError(f"{name} holds no {MANIFEST}; zip the whole output directory of the sketch step.")
        return _from_manifest(inner, manifests[0], "a zipped output directory")
    named = dict(files)
    if len(named) != len(files):
        raise BatchError("Two of the files have the same name; give each shard once.")
    manifests = [n for n in named if n.lower().endswith(".json")]
    if len(manifests) > 1:
        raise BatchError(f"Got {len(manifests)} manifests; give the one of the run whose shards these are.")
    if manifests:
        return _from_manifest(named, manifests[0], "manifest.json and its shards")
    for n in named:
        ext = os.path.splitext(n)[1].lower()
        if ext == ".parquet":
            raise BatchError(f"{n} is a Parquet shard, which holds only its non-zeros: give manifest.json with it "
                             "(or the zipped output directory) so the rows and width are known.")
        if ext not in (".npz", ".npy"):
            raise BatchError(f"{n} is not part of a sketch output; {_FORMS}.")
    if any(n.lower().endswith(".npy") for n in named):
        if len(named) > 1:
            raise BatchError("Give one .npy array of features, or .npz shards; not several .npy files.")
        (n, raw), = named.items()
        S = _npy(raw, n)
        return SketchFiles(S, None, f"a dense array ({n}), without a manifest", {})
    read = [_npz(named[n], n) for n in sorted(named)]
    widths = {S.shape[1] for S, _ in read}
    if len(widths) > 1:
        raise BatchError(f"The shards have different widths ({', '.join(map(str, sorted(widths)))} columns); give the "
                         "shards of one run.")
    S = stack_rows([sp.csr_array(S) for S, _ in read], widths.pop())
    params = read[0][1] if len(read) == 1 else {}
    form = f"{len(read)} .npz file{'s' * (len(read) > 1)} without a manifest" + (
        " (stacked in file-name order)" if len(read) > 1 else "")
    return SketchFiles(S, None, form, params)


def check_for_sets(got: SketchFiles, n_sets: int, n_items: int, dimensions: int | None = None) -> list[str]:
    """Check sketches against the sets they should describe; raises :class:`BatchError`, else returns notes.

    The rows must be the sets (one each, in order). With a manifest, the
    model must have been fitted on as many items as the sets draw from (set
    ids are item positions), the width must be what K and N make
    (``N * 2**K``, fewer with ``drop_empty``) and the values finite.

    Examples
    --------
    >>> buffer = io.BytesIO()
    >>> sp.save_npz(buffer, sp.csr_array(np.array([[1.0, 0, 2], [0, 3, 0]])))
    >>> got = read_sketch_files([("part-00000.npz", buffer.getvalue())])
    >>> check_for_sets(got, n_sets=2, n_items=5)
    ['Without a manifest only the row count can be checked; the settings are not known.']
    >>> check_for_sets(got, n_sets=3, n_items=5)
    Traceback (most recent call last):
    ...
    embedcore.exceptions.BatchError: The sketches have 2 rows but there are 3 sets: sketch exactly the sets this \
page offers for download (one row per set, in their order).
    """
    S, notes = got.sketches, []
    if S.shape[0] != n_sets:
        raise BatchError(f"The sketches have {S.shape[0]:,} rows but there are {n_sets:,} sets: sketch exactly the "
                         "sets this page offers for download (one row per set, in their order).")
    if S.dtype.kind not in "fiub":
        raise BatchError(f"The sketches hold {S.dtype} values; sketches are real numbers.")
    if S.nnz and not np.isfinite(S.data).all():
        raise BatchError("The sketches hold NaN or infinite values; sketch the sets again.")
    p = got.params
    if got.manifest is not None:
        shape = got.manifest.get("shape")
        if isinstance(shape, list) and len(shape) == 2 and list(shape) != [S.shape[0], S.shape[1]]:
            raise BatchError(f"The manifest says {shape[0]} x {shape[1]} but its shards hold {S.shape[0]} x "
                             f"{S.shape[1]}; upload the shards of this manifest's run.")
        if "n_items" in p and p["n_items"] != n_items:
            raise BatchError(f"The sketches were made with {p['n_items']:,} item vectors but these sets draw from "
                             f"{n_items:,} items; sketch them with this page's items.npy (ids are item positions).")
        if "K" in p and "N" in p:
            full = p["N"] * 2 ** p["K"]
            if S.shape[1] > full or (S.shape[1] != full and not p.get("drop_empty")):
                raise BatchError(f"The sketches are {S.shape[1]:,} columns wide, but K={p['K']}, N={p['N']} make "
                                 f"{full:,}{' at most' if p.get('drop_empty') else ''}; the manifest and shards do not "
                                 "belong together.")
        if dimensions is not None and p.get("n_features_in") not in (None, dimensions):
            notes.append(f"They were made from {p['n_features_in']}-dimensional item vectors, and these items have "
                         f"{dimensions}: other vectors for the same items.")
    else:
        notes.append("Without a manifest only the row count can be checked; the settings are not known.")
    return notes


class SketchInput(NamedTuple):
    """The sets and item vectors as the sketch step reads them.

    Examples
    --------
    >>> got = sketch_input(np.eye(2), sp.csr_array(np.array([[0.5, 1.0]])), labels=["fruit"])
    >>> np.load(io.BytesIO(got.items)).tolist(), got.sets.decode().splitlines(), got.weighted
    ([[1.0, 0.0], [0.0, 1.0]], ['items,weights,label', '0 1,0.5 1.0,fruit'], True)
    """

    items: bytes  # .npy, float64, one row per item (ids in the sets are these rows' positions)
    sets: bytes  # CSV: items (positions separated by spaces), weights when not whole counts, label when given
    weighted: bool  # the command needs --weights weights


def needs_weights(W) -> bool:
    """Whether a weight matrix holds weights other than whole counts (the sets file then has a weights column).

    Examples
    --------
    >>> needs_weights(sp.csr_array(np.array([[2.0, 1.0]]))), needs_weights(sp.csr_array(np.array([[0.5, 1.0]])))
    (False, True)
    """
    data = sp.csr_array(W).data
    return not bool(np.all(data == np.round(data)) and np.all(data >= 1))


def items_npy(vectors) -> bytes:
    """Item vectors as the ``.npy`` file the sketch step reads (float64, one row per item; never pickled).

    Examples
    --------
    >>> raw = items_npy([[1, 2], [3, 4]])
    >>> raw[:6], np.load(io.BytesIO(raw), allow_pickle=False).dtype
    (b'\\x93NUMPY', dtype('float64'))
    """
    buf = io.BytesIO()
    np.save(buf, np.asarray(vectors, dtype=np.float64), allow_pickle=False)
    return buf.getvalue()


def sets_csv(W, labels=None) -> bytes:
    """A set-by-item weight matrix as the CSV the sketch step reads: ``items`` (positions), ``weights``, ``label``.

    Whole-number weights (counts) are written as repeated ids, others as a
    ``weights`` column (see :func:`needs_weights`); either way the step's
    sketches equal ``EMDE.sketch(W)`` of the same model byte for byte.

    Examples
    --------
    >>> sets_csv(sp.csr_array(np.array([[2.0, 0, 1], [0, 0, 0]])), ["a", "b"]).decode().splitlines()
    ['items,label', '0 0 2,a', ',b']
    >>> sets_csv(sp.csr_array(np.array([[0.5, 0, 1]]))).decode().splitlines()
    ['items,weights', '0 2,0.5 1.0']
    """
    W = sp.csr_array(W, dtype=np.float64)
    W.sum_duplicates()
    if not needs_weights(W):  # counts: each id repeated as often as it occurs
        counts = W.data.astype(np.int64)
        ids = np.repeat(W.indices, counts)
        sizes = np.bincount(np.repeat(np.arange(W.shape[0]), np.diff(W.indptr)), weights=counts,
                            minlength=W.shape[0]).astype(np.int64)
        frame = pd.DataFrame({"items": [" ".join(map(str, r)) for r in np.split(ids, np.cumsum(sizes)[:-1])]})
    else:
        rows = np.split(np.arange(W.nnz), W.indptr[1:-1])
        frame = pd.DataFrame({"items": [" ".join(map(str, W.indices[r])) for r in rows],
                              "weights": [" ".join(map(repr, W.data[r].tolist())) for r in rows]})
    if labels is not None:
        frame["label"] = [str(v) for v in labels]
    return frame.to_csv(index=False).encode()


def sketch_input(vectors, W, labels=None) -> SketchInput:
    """Item vectors and a set-by-item weight matrix as the files ``python -m embedcore sketch`` reads.

    Examples
    --------
    >>> got = sketch_input(np.eye(3), sp.csr_array(np.array([[2.0, 0, 1]])))
    >>> got.sets.decode().splitlines(), got.weighted
    (['items', '0 0 2'], False)
    """
    return SketchInput(items_npy(vectors), sets_csv(W, labels), needs_weights(W))


def sketch_command(K: int, N: int, *, seed: int, offsets: str = "data", weighting: str = "counts",
                   weighted: bool = False, out: str = "sketches") -> str:
    """The shell lines that sketch :func:`sketch_input`'s files and zip the output for the lab.

    Examples
    --------
    >>> print(sketch_command(4, 16, seed=0))
    python -m embedcore sketch items.npy sets.csv -K 4 -N 16 --seed 0 --out sketches
    python -m zipfile -c sketches.zip sketches
    """
    opts = [f"-K {int(K)}", f"-N {int(N)}", f"--seed {int(seed)}"]
    if offsets != "data":
        opts.append(f"--offsets {offsets}")
    if weighting == "binary":
        opts.append("--weighting binary")
    if weighted:
        opts.append("--weights weights")
    return (f"python -m embedcore sketch items.npy sets.csv {' '.join(opts)} --out {out}\n"
            f"python -m zipfile -c {out}.zip {out}")
