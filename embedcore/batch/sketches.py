"""EMDE sketches of sets read from Parquet or CSV partitions, written as shards with a manifest.

An :class:`~embedcore.emde.EMDE` is fitted in memory on the item vectors (a
million items fit); the sets, tens of millions of them, stay on disk. The
fitted model is sent once to every worker; each task reads one partition of
the sets, sketches it with the model's own ``sketch`` and writes the
sparse sketches as one shard. A JSON manifest lists every finished
partition with its shape, its shard's size and SHA-256, the model's
parameters, seed and fingerprint, the input's fingerprint and the library
versions.

The output is built in ``.OUT.partial`` beside ``OUT`` and renamed to
``OUT`` when every partition is in (see :mod:`embedcore.batch._outputs`);
run the step again after an interruption and only the partitions missing
from the staged manifest are computed. :func:`~embedcore.batch.sketch_reading.read_sketches` refuses an
unfinished run, a shard whose size or checksum differs from the manifest's
and a shard the manifest does not list.

Sets are a column of item-id lists: text with ids separated by spaces or
commas (``"3 17 42"``), or a Parquet list column. Ids are positions in the
item vectors (0, 1, ...) or, when the items have names, the names. An
optional weights column has one weight per item in the same layout.
"""

from __future__ import annotations

import copy
import hashlib
import os
import time
import uuid
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pandas as pd
import scipy.sparse as sp

from .._sparse import kept_offsets, narrow, offsets_of, ragged_to_csr
from ._cluster import BatchError, current_client, let_go, refusals, run_tasks, versions
from ._inputs import Part, fingerprint, open_table, table_parts
from ._outputs import (
    MANIFEST,
    ShardedOutput,
    sha256_of,
)
from .sketch_reading import FORMAT, read_sketches  # noqa: F401  (read_sketches: the examples read the output)

__all__ = ["SetBatch", "TableSets", "RandomSets", "SketchRun", "sketch", "MANIFEST"]

#: Sets per partition of a Parquet file unless told otherwise (a 1M-set file is 10 tasks, not one).
PARTITION_ROWS = 100_000


@dataclass
class SetBatch:
    """One partition of sets: ``items[offsets[i]:offsets[i+1]]`` are set ``i``'s item positions.

    Examples
    --------
    >>> b = SetBatch(np.array([0, 3, 3, 4]), np.array([0, 2, 2, 1]))
    >>> b.matrix(3).toarray()
    array([[1., 0., 2.],
           [0., 0., 0.],
           [0., 1., 0.]])
    """

    offsets: np.ndarray
    items: np.ndarray
    weights: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def matrix(self, n_items: int) -> sp.csr_array:
        """The (sets x items) weight matrix, built as :func:`embedcore.emde.sets_to_matrix` builds it."""
        return ragged_to_csr(self.offsets, self.items, n_items, self.weights)


# --------------------------------------------------------------------------- parsing a partition


def _arrow(series: pd.Series):
    import pyarrow as pa

    arr = pa.array(series.array) if hasattr(series.array, "__arrow_array__") else \
        pa.array(series.to_numpy(dtype=object), from_pandas=True)
    return arr.combine_chunks() if isinstance(arr, pa.ChunkedArray) else arr


def _lists(arr, what: str):
    """Text cells ("3 17,42") or list cells -> (offsets, flat values); a missing cell is an empty set."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type):
        arr = pc.utf8_split_whitespace(pc.replace_substring(arr, ",", " "))
    elif pa.types.is_dictionary(arr.type):
        return _lists(arr.cast(arr.type.value_type), what)
    elif not (pa.types.is_list(arr.type) or pa.types.is_large_list(arr.type)
              or pa.types.is_fixed_size_list(arr.type)):
        raise BatchError(f"The {what} column holds {arr.type} values; give text with ids separated by spaces "
                         "or commas ('3 17 42'), or a list column.")
    offsets = offsets_of(pc.list_value_length(arr).fill_null(0).to_numpy(zero_copy_only=False))
    flat = pc.list_flatten(arr)
    if flat.null_count:
        raise BatchError(f"The {what} column has a missing value inside a list; remove it or give a value.")
    return offsets, flat


def _where(offsets: np.ndarray, j: int, part) -> str:
    row = int(np.searchsorted(offsets, j, side="right") - 1)
    if isinstance(part, Part):
        return part.where(row)
    return f"partition {part}, set {row} of the partition"


class _Model:
    """What a worker needs: the fitted EMDE, the item names (if ids are names) and the unknown-item rule."""

    def __init__(self, emde, names: pd.Index | None, unknown: str):
        # a task has one core of a worker sized to the machine: sketch on one thread whatever n_jobs says
        self.emde = copy.copy(emde).set_params(n_jobs=None)
        self.names, self.unknown = names, unknown

    def positions(self, flat, offsets: np.ndarray, part: int) -> tuple[np.ndarray, np.ndarray | None]:
        """Item positions of the flat ids, and which ids to keep (None: all)."""
        import pyarrow as pa
        import pyarrow.compute as pc

        n = self.emde.n_items_
        if self.names is not None:
            idx = self.names.get_indexer(flat.cast(pa.string()).to_numpy(zero_copy_only=False))
            missing = idx < 0
            if missing.any() and self.unknown == "error":
                j = int(np.flatnonzero(missing)[0])
                raise BatchError(f"Item {flat[j].as_py()!r} ({_where(offsets, j, part)}) has no vector; "
                                 f"{int(missing.sum())} item occurrences in this partition are unknown. Add their "
                                 "vectors, or skip unknown items.")
            return idx, (~missing if missing.any() else None)
        if pa.types.is_string(flat.type) or pa.types.is_large_string(flat.type):
            try:
                flat = pc.cast(flat, pa.int64())
            except pa.ArrowInvalid:
                bad = pc.invert(pc.match_substring_regex(flat, r"^[+-]?\d+$"))
                j = int(np.flatnonzero(bad.to_numpy(zero_copy_only=False))[0])
                raise BatchError(f"Item {flat[j].as_py()!r} ({_where(offsets, j, part)}) is not an item number; "
                                 "ids must be positions in the item vectors (0, 1, ...), or give the item "
                                 "vectors with a column of names.") from None
        elif not pa.types.is_integer(flat.type):
            raise BatchError(f"Item ids of type {flat.type} cannot be item positions; give integers or names.")
        ids = flat.to_numpy(zero_copy_only=False).astype(np.int64)
        out = (ids < 0) | (ids >= n)
        if out.any():
            j = int(np.flatnonzero(out)[0])
            if self.unknown == "error":
                raise BatchError(f"Item {int(ids[j])} ({_where(offsets, j, part)}) is out of range: there are "
                                 f"{n} items (0..{n - 1}).")
            return ids, ~out
        return ids, None


class _TableParser:
    """Turns one DataFrame partition into a :class:`SetBatch` (runs on a worker)."""

    def __init__(self, column: str, weights: str | None):
        self.column, self.weights = column, weights

    def __call__(self, raw, model: _Model, part: int) -> tuple[SetBatch, int]:
        import pyarrow as pa
        import pyarrow.compute as pc

        frame = raw.table([self.column] + ([self.weights] if self.weights else [])) if isinstance(raw, Part) else raw
        part = raw if isinstance(raw, Part) else part
        offsets, flat = _lists(_arrow(frame[self.column]), repr(self.column))
        ids, keep = model.positions(flat, offsets, part)
        w = None
        if self.weights is not None:
            w_offsets, w_flat = _lists(_arrow(frame[self.weights]), repr(self.weights))
            if not np.array_equal(w_offsets, offsets):
                j = int(np.flatnonzero(np.diff(w_offsets) != np.diff(offsets))[0])
                at = part.where(j) if isinstance(part, Part) else f"Partition {part}, set {j} of the partition"
                raise BatchError(f"{at}: {int(np.diff(offsets)[j])} items but {int(np.diff(w_offsets)[j])} weights; "
                                 "give one weight per item.")
            try:
                w = pc.cast(w_flat, pa.float64()).to_numpy(zero_copy_only=False)
            except pa.ArrowInvalid:
                raise BatchError(f"{_name(part)}: the weights column {self.weights!r} holds a value that is not "
                                 "a number.") from None
            if not np.isfinite(w).all():
                j = int(np.flatnonzero(~np.isfinite(w))[0])
                raise BatchError(f"The weights column {self.weights!r} has NaN or infinite values "
                                 f"({_where(offsets, j, part)}).")
            if (w < 0).any():
                j = int(np.flatnonzero(w < 0)[0])
                raise BatchError(f"Item weight {w[j]:g} ({_where(offsets, j, part)}) is negative; a sketch is a "
                                 "histogram of the set, so weights must be >= 0.")
        dropped = 0
        if keep is not None:
            dropped = int((~keep).sum())
            offsets = kept_offsets(offsets, keep)
            ids = ids[keep]
            w = None if w is None else w[keep]
        return SetBatch(offsets, ids, w), dropped


def _name(part) -> str:
    return part.path if isinstance(part, Part) else f"Partition {part}"


# --------------------------------------------------------------------------- sources of sets


class TableSets:
    """Sets in Parquet or CSV files: partitions of ``partition_rows`` Parquet rows or ``blocksize`` CSV bytes.

    Each task reads its own partition (a range of a Parquet file's rows, or
    the whole lines starting in a byte range of a CSV file), so a single
    large file is shared among all workers.

    Examples
    --------
    >>> import tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "baskets.csv")
    >>> pd.DataFrame({"items": ["apple pear", "pear", "plum apple apple"]}).to_csv(path, index=False)
    >>> TableSets(path).n_partitions, TableSets(path, blocksize=16).n_partitions  # 39 bytes in blocks of 16
    (1, 3)
    >>> TableSets(path, column="basket")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    embedcore.exceptions.BatchError: .../baskets.csv has no column 'basket' (its columns: items).

    Parameters
    ----------
    paths : str or list of str
        Files, directories or glob patterns (all Parquet or all CSV/TSV).
    column : str, default="items"
        The column of item ids: text with ids separated by spaces or
        commas, or a list column.
    weights : str, optional
        A column with one weight per item, laid out like ``column``.
    format : {"parquet", "csv"}, optional
        Taken from the file names when not given.
    blocksize : str or int, default="64MB"
        Bytes of CSV text per partition (a compressed CSV file is one partition).
    partition_rows : int, default=100_000
        Rows per Parquet partition: row groups are merged up to it, and a
        larger row group is split into equal row ranges. None: one
        partition per row group.
    """

    def __init__(self, paths, *, column: str = "items", weights: str | None = None, format: str | None = None,
                 blocksize: str | int = "64MB", partition_rows: int | None = PARTITION_ROWS):
        self.files, self.kind = open_table(paths, "sets", [column] + ([weights] if weights else []), format)
        self.column, self.weights, self.blocksize, self.partition_rows = column, weights, blocksize, partition_rows
        self.parts = table_parts(self.files, self.kind, partition_rows=partition_rows, blocksize=blocksize)
        self.parser = _TableParser(column, weights)

    @property
    def n_partitions(self) -> int:
        return len(self.parts)

    def partitions(self) -> list:
        return list(self.parts)

    def describe(self) -> dict:
        return fingerprint(self.files, format=self.kind, column=self.column, weights=self.weights,
                           blocksize=self.blocksize if self.kind == "csv" else None,
                           partition_rows=self.partition_rows if self.kind == "parquet" else None,
                           n_partitions=self.n_partitions)


class _RandomParser:
    def __init__(self, n_sets, n_items, partition_size, sizes, seed):
        self.n_sets, self.n_items, self.partition_size, self.sizes, self.seed = \
            n_sets, n_items, partition_size, sizes, seed

    def draw(self, part: int) -> SetBatch:
        rng = np.random.default_rng([self.seed, part])
        n = min(self.partition_size, self.n_sets - part * self.partition_size)
        offsets = offsets_of(rng.integers(self.sizes[0], self.sizes[1] + 1, size=n))
        return SetBatch(offsets, rng.integers(0, self.n_items, size=int(offsets[-1])))

    def __call__(self, part: int, model: _Model, _: int) -> tuple[SetBatch, int]:
        if model.emde.n_items_ != self.n_items:
            raise BatchError(f"The random sets draw from {self.n_items} items, but the model has "
                             f"{model.emde.n_items_}.")
        return self.draw(part), 0


class RandomSets:
    """Synthetic sets drawn on the workers, partition by partition, from a seed (to try the pipeline at scale).

    Partition ``p`` holds ``partition_size`` sets (the last one the rest)
    whose sizes are uniform in ``sizes`` and whose items are uniform over
    ``n_items``; it depends only on ``(seed, p)``, so no set is ever
    materialised on the driver. :meth:`batch` gives one partition in memory.

    Examples
    --------
    >>> src = RandomSets(10, n_items=5, partition_size=4, sizes=(1, 3), seed=0)
    >>> src.n_partitions, [len(src.batch(p)) for p in range(3)]
    (3, [4, 4, 2])
    """

    def __init__(self, n_sets: int, *, n_items: int, partition_size: int = 100_000, sizes=(1, 20), seed: int = 0):
        if n_sets < 1 or partition_size < 1 or n_items < 1:
            raise BatchError("n_sets, n_items and partition_size must be positive.")
        if not 0 <= sizes[0] <= sizes[1]:
            raise BatchError(f"sizes must be (smallest, largest) with 0 <= smallest <= largest, got {sizes}.")
        self.parser = _RandomParser(int(n_sets), int(n_items), int(partition_size), tuple(sizes), int(seed))

    @property
    def n_partitions(self) -> int:
        return -(-self.parser.n_sets // self.parser.partition_size)

    def partitions(self) -> list:
        return list(range(self.n_partitions))

    def batch(self, part: int) -> SetBatch:
        """Partition ``part`` exactly as the workers draw it."""
        if not 0 <= part < self.n_partitions:
            raise BatchError(f"part must be in 0..{self.n_partitions - 1}, got {part}.")
        return self.parser.draw(part)

    def describe(self) -> dict:
        p = self.parser
        return {"generator": "RandomSets", "n_sets": p.n_sets, "n_items": p.n_items,
                "partition_size": p.partition_size, "sizes": list(p.sizes), "seed": p.seed,
                "n_partitions": self.n_partitions}


# --------------------------------------------------------------------------- one task


def _write_shard(S: sp.csr_array, path: str, shard_format: str, compress: bool) -> tuple[int, str]:
    """Write a shard (through a temporary name: a retried task never leaves half a file); its size and SHA-256."""
    import io

    buf = io.BytesIO()
    if shard_format == "npz":
        sp.save_npz(buf, S, compressed=compress)
    else:
        import pyarrow as pa
        import pyarrow.parquet as pq

        coo = S.tocoo()
        table = pa.table({"row": coo.row.astype(np.int64), "column": coo.col.astype(np.int64), "value": coo.data})
        pq.write_table(table, buf, compression="zstd" if compress else "none")
    data = buf.getvalue()
    tmp = f"{path}.{uuid.uuid4().hex}.tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)
    return len(data), sha256_of(data)


def shard_name(part: int, shard_format: str) -> str:
    """File name of partition ``part``'s shard.

    Examples
    --------
    >>> shard_name(7, "npz")
    'part-00007.npz'
    """
    return f"part-{part:05d}.{'npz' if shard_format == 'npz' else 'parquet'}"


@refusals
def _sketch_task(raw, model: _Model, parser, part: int, out_dir: str | None, shard_format: str,
                 compress: bool) -> dict:
    t = time.perf_counter()
    batch, dropped = parser(raw, model, part)
    S = narrow(sp.csr_array(model.emde.sketch(batch.matrix(model.emde.n_items_))))
    entry = {"rows": int(S.shape[0]), "nnz": int(S.nnz), "unknown_items": dropped,
             "bytes": int(S.data.nbytes + S.indices.nbytes + S.indptr.nbytes)}
    if out_dir is not None:
        entry["file"] = shard_name(part, shard_format)
        entry["file_bytes"], entry["sha256"] = _write_shard(S, os.path.join(out_dir, entry["file"]), shard_format,
                                                            compress)
    entry["seconds"] = round(time.perf_counter() - t, 4)
    return entry


# --------------------------------------------------------------------------- the manifest


def _jsonable(v):
    if isinstance(v, (bool, int, float, str)) or v is None:
        return v
    if isinstance(v, (np.integer, np.floating)):
        return v.item()
    if isinstance(v, type) and issubclass(v, np.generic):
        return np.dtype(v).name
    return repr(v)


def model_identity(emde) -> dict:
    """The fitted EMDE as a manifest records it: parameters, seed, sizes and a fingerprint of its planes.

    The fingerprint (SHA-256 of the hyperplanes, offsets, output columns,
    item codes and idf) changes whenever the sketches would. ``n_jobs`` is
    left out: threads change no sketch, so a run resumes with any number.
    """
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(emde, "item_sketches_")
    h = hashlib.sha256()
    for a in (emde.hyperplanes_, emde.offsets_, emde.columns_, emde.item_codes_, emde.idf_):
        if a is not None:
            h.update(np.ascontiguousarray(a).tobytes())
    params = {k: _jsonable(v) for k, v in sorted(emde.get_params().items()) if k != "n_jobs"}
    return {"class": f"{type(emde).__module__}.{type(emde).__name__}", "params": params,
            "random_state": params.get("random_state"), "n_items": int(emde.n_items_),
            "n_features_in": int(emde.n_features_in_), "n_features_out": int(emde.n_features_out_),
            "sha256": h.hexdigest()}


# --------------------------------------------------------------------------- the step


class SketchRun(NamedTuple):
    """What a sketch run did: the manifest (as written), partitions computed and skipped (kept from an
    interrupted run of the same input and model), seconds, and shards of another run's staging discarded.

    Examples
    --------
    A dry run (no output directory) sketches and counts, and writes nothing:

    >>> import tempfile
    >>> from distributed import Client
    >>> from embedcore.emde import EMDE
    >>> path = os.path.join(tempfile.mkdtemp(), "baskets.csv")
    >>> pd.DataFrame({"items": ["0 1", "1", "2 0 0"]}).to_csv(path, index=False)
    >>> emde = EMDE(n_hyperplanes=2, n_partitions=3, random_state=0).fit(np.array([[1.0, 0], [0, 1], [1, 1]]))
    >>> with Client(processes=False, n_workers=1, threads_per_worker=1, dashboard_address=None) as client:
    ...     run = sketch(emde, TableSets(path, blocksize=8), None, client=client, progress=False)
    >>> run.computed, run.skipped, run.rows, run.nnz, run.manifest["shape"]
    (3, 0, 3, 13, [3, 12])
    """

    manifest: dict
    computed: int
    skipped: int
    seconds: float
    discarded: int = 0

    @property
    def rows(self) -> int:
        return int(self.manifest["shape"][0])

    @property
    def nnz(self) -> int:
        return sum(v["nnz"] for v in self.manifest["partitions"].values())


def _names(item_names, n_items: int) -> pd.Index | None:
    if item_names is None:
        return None
    names = pd.Index(np.asarray(item_names, dtype=object).astype(str), dtype=object)
    if len(names) != n_items:
        raise BatchError(f"Got {len(names)} item names for {n_items} fitted items; give one name per item vector.")
    if not names.is_unique:
        raise BatchError(f"The item name {names[names.duplicated()][0]!r} is repeated; item names must be unique.")
    return names


def _source(sets, column: str, weights: str | None, format: str | None, blocksize, partition_rows):
    if hasattr(sets, "partitions") and hasattr(sets, "parser"):
        return sets
    return TableSets(sets, column=column, weights=weights, format=format, blocksize=blocksize,
                     partition_rows=partition_rows)


def sketch(emde, sets, out: str | None = None, *, column: str = "items", weights: str | None = None,
           item_names=None, unknown: str = "error", client=None, retries: int = 2, shard_format: str = "npz",
           compress: bool = False, overwrite: bool = False, progress: bool = True, format: str | None = None,
           blocksize: str | int = "64MB", partition_rows: int | None = PARTITION_ROWS,
           on_start=None) -> SketchRun:
    """Sketch every set of a partitioned table with a fitted EMDE, one shard per partition.

    Parameters
    ----------
    emde : fitted :class:`~embedcore.emde.EMDE`
        Sent to every worker once. A set's sketch is exactly
        ``emde.sketch`` of its row.
    sets : path(s) or a source
        Parquet or CSV files, a directory or a glob (see :class:`TableSets`),
        or a source such as :class:`RandomSets`.
    out : str, optional
        Output directory for the shards and ``manifest.json``, built in
        ``.OUT.partial`` beside it and renamed when complete. None sketches
        and counts without writing anything (a dry run: the manifest is
        returned, with the bytes each shard would take).
    column, weights, format, blocksize, partition_rows :
        How to read the files, as in :class:`TableSets`.
    item_names : sequence of str, optional
        The name of every fitted item, in order: ids in the sets are then
        names. Without it ids are item positions.
    unknown : {"error", "skip"}, default="error"
        An id with no vector stops the run with a message naming it, or is
        left out and counted per partition (``unknown_items``).
    client : distributed.Client, optional
        Default: the client opened most recently (see :func:`cluster`).
    retries : int, default=2
        Times a task is retried after its worker fails.
    shard_format : {"npz", "parquet"}, default="npz"
        ``scipy.sparse.save_npz`` files, or Parquet with columns row (within
        the shard), column and value.
    compress : bool, default=False
        Compress shards (smaller, several times slower to write).
    overwrite : bool, default=False
        Replace an existing ``out``; without it an existing ``out`` is
        refused. An interrupted run of the same input and model (its
        staging directory) is always resumed: finished partitions are
        skipped; one of another input or model is discarded.
    progress : bool, default=True
        A text progress bar on stderr.
    on_start : callable, optional
        Called with the partitions to compute and the staging directory
        just before the tasks are sent (the command line reports them).

    Returns
    -------
    SketchRun

    Examples
    --------
    Sets of fruit named by their vectors' text column; each sketch is the in-memory one:

    >>> import tempfile
    >>> from distributed import Client
    >>> from embedcore.emde import EMDE
    >>> folder = tempfile.mkdtemp()
    >>> pd.DataFrame({"items": ["apple pear", "pear", "plum apple apple"]}).to_csv(
    ...     os.path.join(folder, "baskets.csv"), index=False)
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    >>> emde = EMDE(n_hyperplanes=2, n_partitions=3, random_state=0).fit(X)
    >>> with Client(processes=False, n_workers=1, threads_per_worker=1, dashboard_address=None) as client:
    ...     run = sketch(emde, os.path.join(folder, "baskets.csv"), os.path.join(folder, "out"),
    ...                  item_names=["apple", "pear", "plum"], client=client, progress=False)
    >>> S = read_sketches(os.path.join(folder, "out"))
    >>> run.computed, S.shape, bool((S != emde.sketch([[0, 1], [1], [2, 0, 0]])).nnz == 0)
    (1, (3, 12), True)
    """
    t0 = time.perf_counter()
    if unknown not in ("error", "skip"):
        raise BatchError(f"unknown must be 'error' or 'skip', got {unknown!r}.")
    if shard_format not in ("npz", "parquet"):
        raise BatchError(f"shard_format must be 'npz' or 'parquet', got {shard_format!r}.")
    identity = model_identity(emde)
    names = _names(item_names, emde.n_items_)
    source = _source(sets, column, weights, format, blocksize, partition_rows)
    if source.n_partitions == 0:
        raise BatchError("The input holds no sets.")
    header = {"format": FORMAT, "input": source.describe(), "model": identity,
              "shard_format": shard_format, "compressed": bool(compress), "unknown": unknown,
              "versions": versions()}
    manifest = ShardedOutput(out, header, identity=("input", "model", "shard_format", "compressed", "unknown"),
                             overwrite=overwrite, noun="sketches")
    manifest.body["shape"] = [0, int(identity["n_features_out"])]
    done = manifest.done()
    todo = [p for p in range(source.n_partitions) if p not in done]
    if on_start is not None:
        on_start(len(todo), len(done), manifest)
    if todo:
        from dask import delayed

        client = current_client(client)
        model = client.scatter(_Model(emde, names, unknown), broadcast=True, hash=False)
        parts = source.partitions()
        task = delayed(_sketch_task, pure=False)
        tasks = [task(parts[p], model, source.parser, p, manifest.stage, shard_format, compress) for p in todo]
        try:
            run_tasks(client, tasks, retries=retries, label="sketch", progress=progress,
                      on_result=lambda i, entry: manifest.record(todo[i], entry))
        finally:
            _shape(manifest)
            manifest.save()
            let_go(client, [model])
    _shape(manifest)
    manifest.finish()
    return SketchRun(manifest.body, len(todo), len(done), time.perf_counter() - t0, manifest.discarded)


def _shape(manifest: ShardedOutput) -> None:
    body = manifest.body
    body["shape"] = [sum(v["rows"] for v in body["partitions"].values()), body["model"]["n_features_out"]]
