"""Reading what the sketch step wrote: its manifest, checked, and its shards, each checked against the
manifest (size and SHA-256) and stacked in partition order, whole or only the rows asked for.

The step itself is :mod:`embedcore.batch.sketches`; :mod:`embedcore.batch.sketch_files` takes the same files
when they are handed to the lab as uploads.
"""

from __future__ import annotations

import io
import json
import os

import numpy as np
import pandas as pd
import scipy.sparse as sp

from .._sparse import stack_rows
from ._cluster import BatchError
from ._outputs import check_entry, manifest_file, refuse_unlisted

__all__ = ["FORMAT", "read_manifest", "read_sketches", "load_items"]

#: What a sketch manifest says it is; a reader refuses any other.
FORMAT = "embedcore-sketches/2"


def read_manifest(path: str) -> dict:
    """The manifest of a sketch run: ``path`` is its output directory or the ``manifest.json`` itself.

    Examples
    --------
    >>> import tempfile
    >>> from distributed import Client
    >>> from embedcore.batch import sketch
    >>> from embedcore.emde import EMDE
    >>> folder = tempfile.mkdtemp()
    >>> pd.DataFrame({"items": ["0 1", "1", "2 0 0"]}).to_csv(os.path.join(folder, "baskets.csv"), index=False)
    >>> emde = EMDE(n_hyperplanes=2, n_partitions=3, random_state=0).fit(np.array([[1.0, 0], [0, 1], [1, 1]]))
    >>> with Client(processes=False, n_workers=1, threads_per_worker=1, dashboard_address=None) as client:
    ...     _ = sketch(emde, os.path.join(folder, "baskets.csv"), os.path.join(folder, "out"), client=client,
    ...                progress=False)
    >>> manifest = read_manifest(os.path.join(folder, "out"))
    >>> manifest["complete"], manifest["shape"], manifest["partitions"]["0"]["file"]
    (True, [3, 12], 'part-00000.npz')
    >>> sorted(os.listdir(os.path.join(folder, "out")))
    ['manifest.json', 'part-00000.npz']
    """
    file = manifest_file(path, "sketches")
    with open(file, "rb") as f:
        return parse_manifest(f.read(), file)


def parse_manifest(raw: bytes, where: str) -> dict:
    """A manifest's bytes, checked for what reading the shards needs; ``where`` names it in messages."""
    try:
        body = json.loads(raw.decode("utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise BatchError(f"{where} is not a sketch manifest (not JSON).") from None
    if isinstance(body, dict) and body.get("format") == "embedcore-sketches/1":
        raise BatchError(f"{where} was written by an older version of the sketch step, without checksums; run the "
                         "step again.")
    if not isinstance(body, dict) or body.get("format") != FORMAT:
        raise BatchError(f"{where} is not a sketch manifest written by embedcore.batch.")

    def count(v, least: int) -> bool:
        return isinstance(v, int) and not isinstance(v, bool) and v >= least

    model, source, parts = body.get("model"), body.get("input"), body.get("partitions")
    ok = (isinstance(model, dict) and count(model.get("n_features_out"), 1) and isinstance(source, dict)
          and count(source.get("n_partitions"), 0) and isinstance(parts, dict)
          and all(k.isdigit() and isinstance(v, dict) and count(v.get("rows"), 0) and isinstance(v.get("file"), str)
                  for k, v in parts.items()))
    if not ok:
        raise BatchError(f"{where} lacks fields the sketch step writes (model.n_features_out, input.n_partitions, "
                         "partitions with rows and file); give the manifest.json of the run unchanged.")
    return body


def _load_shard(source, name: str, entry: dict, width: int) -> sp.csr_array:
    """One shard, from a path or from its bytes, checked against its manifest entry (never unpickled)."""
    import zipfile

    data = io.BytesIO(source) if isinstance(source, bytes) else source
    try:
        if name.endswith(".npz"):
            S = sp.csr_array(sp.load_npz(data))  # np.load(allow_pickle=False) inside
        else:
            import pyarrow.parquet as pq

            t = pq.read_table(data)
            if not {"row", "column", "value"} <= set(t.column_names):
                raise BatchError(f"{name} has columns {', '.join(t.column_names)}; a sketch shard has row, column "
                                 "and value.")
            S = sp.csr_array((t["value"].to_numpy(), (t["row"].to_numpy(), t["column"].to_numpy())),
                             shape=(entry["rows"], width))
    except BatchError:
        raise
    except (ValueError, OSError, KeyError, zipfile.BadZipFile, IndexError, TypeError) as e:
        kind = "an .npz" if name.endswith(".npz") else "a Parquet"
        raise BatchError(f"{name} is not {kind} sketch shard: {' '.join(str(e).split())[:160]}.") from None
    if S.shape != (entry["rows"], width):
        raise BatchError(f"{name} holds a {S.shape} matrix but the manifest says ({entry['rows']}, {width}).")
    S.check_format(full_check=True)  # column indices within the width, row pointers in order
    return S


def _check_complete(body: dict) -> None:
    parts = body["partitions"]
    missing = [p for p in range(int(body["input"]["n_partitions"])) if str(p) not in parts]
    if missing:
        raise BatchError(f"{len(missing)} of {body['input']['n_partitions']} partitions are not sketched yet "
                         f"(first: {missing[0]}); run the sketch step again to finish them.")
    if body.get("complete") is not True:
        raise BatchError("The manifest does not say the run completed; run the sketch step again to finish it.")


def stack_shards(body: dict, fetch, *, partial: bool = False, rows=None) -> sp.csr_array:
    """The shards a manifest lists, stacked in partition order; ``fetch(file)`` gives a path or the bytes.

    ``rows`` (positions in the stacked matrix): only those rows, in the order
    given, taken from the shards that hold them one shard at a time, so the
    memory used is one shard and the rows asked for; the other shards are
    not read (nor their checksums checked).
    """
    width = int(body["model"]["n_features_out"])
    parts = body["partitions"]
    if not partial:
        _check_complete(body)
    keys = sorted(parts, key=int)
    starts = np.cumsum([0] + [parts[k]["rows"] for k in keys])
    if rows is not None:
        rows = _row_numbers(rows, int(starts[-1]))
        order = np.argsort(rows, kind="stable")
        wanted = rows[order]
    shards = []
    for i, k in enumerate(keys):
        if rows is not None:
            a, b = np.searchsorted(wanted, starts[i: i + 2])
            if a == b:
                continue
        data = fetch(parts[k]["file"])
        check_entry(parts[k]["file"], data, parts[k])
        S = _load_shard(data, parts[k]["file"], parts[k], width)
        shards.append(S if rows is None else S[wanted[a:b] - starts[i]])
    if not partial and (not isinstance(body.get("shape"), list) or body["shape"][:1] != [int(starts[-1])]):
        raise BatchError(f"The manifest's shape {body.get('shape')} does not match its partitions' {starts[-1]} rows; "
                         "give the manifest.json of the run unchanged.")
    if rows is None:
        return stack_rows(shards, width)
    return stack_rows(shards, width)[np.argsort(order)]


def _row_numbers(rows, n_rows: int) -> np.ndarray:
    """``rows`` as an int64 array of row numbers in ``0..n_rows-1``, or a message saying what is wrong."""
    r = np.asarray(rows)
    if r.ndim != 1 or (r.size and r.dtype.kind not in "iu"):
        raise BatchError(f"rows must be a list of whole row numbers, got an array of {r.dtype} with shape {r.shape}.")
    r = r.astype(np.int64)
    bad = (r < 0) | (r >= n_rows)
    if bad.any():
        raise BatchError(f"Row {int(r[bad][0])} is not in the sketches, which have {n_rows:,} rows (0 to "
                         f"{n_rows - 1:,}).")
    return r


def read_sketches(path: str, *, partial: bool = False, rows=None) -> sp.csr_array:
    """The sketches of a run as one CSR matrix: the shards stacked in partition order.

    Row ``r`` is the ``r``-th set of the input (partitions in order, rows in
    order within each). ``partial=True`` stacks the finished partitions of
    an unfinished run; otherwise a missing partition is an error. ``rows``
    (row numbers) reads only those rows, in the order given: each shard
    holding one of them is read and checked in turn and the rest of it let
    go, so a sample of a run larger than memory can be checked.

    Examples
    --------
    >>> read_sketches("no/such/dir")
    Traceback (most recent call last):
    ...
    embedcore.exceptions.BatchError: no/such/dir holds no sketches: there is no manifest.json.
    """
    body = read_manifest(path)
    folder = path if os.path.isdir(path) else os.path.dirname(path)
    if not partial:
        _check_complete(body)
    refuse_unlisted(folder, body["partitions"], "sketches")
    return stack_shards(body, lambda file: os.path.join(folder, file), partial=partial, rows=rows)


def load_items(path: str) -> tuple[np.ndarray, pd.Index | None]:
    """Item vectors for the sketch step, and their names when the file has a text column.

    ``.npy`` (a numeric 2-D array, never unpickled), Parquet (numeric
    columns are the vector, the first text column names the items), or a
    CSV/TSV/word2vec text file read as the lab reads vector uploads (up to
    its size limit; save larger ones as ``.npy`` or Parquet).

    Examples
    --------
    >>> import tempfile
    >>> folder = tempfile.mkdtemp()
    >>> with open(os.path.join(folder, "fruit.csv"), "w") as f:
    ...     _ = f.write("name,x,y\\napple,1,0\\npear,0,1\\nplum,1,1\\n")
    >>> X, names = load_items(os.path.join(folder, "fruit.csv"))
    >>> X.tolist(), names.tolist()
    ([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], ['apple', 'pear', 'plum'])
    >>> np.save(os.path.join(folder, "fruit.npy"), X)
    >>> X, names = load_items(os.path.join(folder, "fruit.npy"))  # no names: set ids are item positions
    >>> X.shape, names
    ((3, 2), None)
    """
    if not os.path.isfile(path):
        raise BatchError(f"The item vectors file {path} does not exist.")
    ext = os.path.splitext(path)[1].lower()
    if ext == ".npy":
        try:
            X = np.load(path, allow_pickle=False)
        except ValueError as e:
            raise BatchError(f"{path} is not a plain numeric .npy array ({e}).") from None
        if X.ndim != 2 or X.dtype.kind not in "fiub":
            raise BatchError(f"{path} holds a {X.dtype} array of shape {X.shape}; give a 2-D numeric array.")
        return np.asarray(X, dtype=np.float64), None
    if ext in (".parquet", ".parq", ".pq"):
        try:
            frame = pd.read_parquet(path)
        except Exception as e:  # pyarrow raises several types for a file that is not Parquet
            raise BatchError(f"Cannot read {path} as Parquet: {str(e).splitlines()[0]}") from None
        numeric = [c for c in frame.columns if frame[c].dtype.kind in "fiub"]
        text = [c for c in frame.columns if c not in numeric]
        if not numeric:
            raise BatchError(f"{path} has no numeric columns to make item vectors of.")
        names = pd.Index(frame[text[0]].astype(str).to_numpy(dtype=object), dtype=object) if text else None
        return frame[numeric].to_numpy(dtype=np.float64), names
    from ..io import MAX_BYTES, DataError, read_vectors

    if os.path.getsize(path) > MAX_BYTES:
        raise BatchError(f"{path} is over {MAX_BYTES // 2**20} MB of text; save the item vectors as .npy "
                         "or Parquet for the batch step.")
    try:
        v = read_vectors(path, max_rows=2**62, on_invalid="error")
    except DataError as e:
        raise BatchError(str(e)) from None
    names = None
    if v.meta is not None and v.meta.shape[1]:
        names = pd.Index(v.meta.iloc[:, 0].astype(str).to_numpy(dtype=object), dtype=object)
    return v.X, names
