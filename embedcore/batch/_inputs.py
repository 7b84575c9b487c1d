"""Input files of the batch steps: which files, which format, and their partitions as Dask reads them.

Paths are checked on the driver before any work is sent to a cluster, so a
missing file or a file in the wrong format stops with one sentence at once.
A path may be a file, a directory (its files of the right kind, sorted by
name) or a glob pattern; a URL (``s3://...``) is passed to Dask unchecked.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
from collections.abc import Sequence

from ._cluster import BatchError

TABLE_EXTENSIONS = {".parquet": "parquet", ".parq": "parquet", ".pq": "parquet", ".csv": "csv", ".tsv": "csv",
                    ".txt": "csv"}
TEXT_EXTENSIONS = (".txt", ".text", "")  # in a directory; a file named on its own may have any name
COMPRESSED = (".gz", ".bz2", ".xz", ".zst")


def _is_url(path: str) -> bool:
    return "://" in path


def split_compression(path: str) -> tuple[str, str]:
    for ext in COMPRESSED:
        if path.lower().endswith(ext):
            return path[: -len(ext)], ext
    return path, ""


def expand_paths(paths: Sequence[str] | str, what: str, keep=None) -> list[str]:
    """Files named by ``paths`` (files, directories, globs), in order; ``keep(path)`` filters directory entries.

    Examples
    --------
    >>> expand_paths(["no/such/file.csv"], "sets")
    Traceback (most recent call last):
    ...
    embedcore.exceptions.BatchError: The sets file no/such/file.csv does not exist.
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    out: list[str] = []
    for raw in map(str, paths):
        if _is_url(raw):
            out.append(raw)
        elif any(c in raw for c in "*?["):
            found = sorted(p for p in glob.glob(raw) if os.path.isfile(p))
            if not found:
                raise BatchError(f"No {what} file matches {raw}.")
            out += found
        elif os.path.isdir(raw):
            found = sorted(os.path.join(raw, f) for f in os.listdir(raw)
                           if not f.startswith((".", "_")) and os.path.isfile(os.path.join(raw, f))
                           and (keep is None or keep(f)))
            if not found:
                raise BatchError(f"The directory {raw} holds no {what} files.")
            out += found
        elif not os.path.exists(raw):
            raise BatchError(f"The {what} file {raw} does not exist.")
        else:
            out.append(raw)
    if not out:
        raise BatchError(f"No {what} file given.")
    return out


def _head(path: str, n: int = 65536) -> bytes:
    if _is_url(path):
        return b""
    try:
        with open(path, "rb") as f:
            return f.read(n)
    except OSError as e:
        raise BatchError(f"Cannot read {path}: {e.strerror or e}.") from None


def table_format(paths: Sequence[str], fmt: str | None = None) -> str:
    """``"parquet"`` or ``"csv"``: given, or from the files' extensions; every file is sniffed.

    Examples
    --------
    >>> table_format(["baskets.json"])
    Traceback (most recent call last):
    ...
    embedcore.exceptions.BatchError: baskets.json is not a Parquet or CSV file; name it .parquet, .csv, .tsv or .txt.
    """
    kinds = set()
    for p in paths:
        base, _ = split_compression(p)
        ext = os.path.splitext(base)[1].lower()
        kind = fmt or TABLE_EXTENSIONS.get(ext)
        if kind not in ("parquet", "csv"):
            raise BatchError(f"{os.path.basename(p)} is not a Parquet or CSV file; name it .parquet, .csv, "
                             ".tsv or .txt.")
        kinds.add(kind)
        _sniff(p, kind)
    if len(kinds) > 1:
        raise BatchError("The input mixes Parquet and CSV files; give one kind at a time.")
    return kinds.pop()


def _sniff(path: str, kind: str) -> None:
    head = _head(path)
    if not head and not _is_url(path):
        raise BatchError(f"{path} is empty.")
    if _is_url(path) or split_compression(path)[1]:
        return
    if kind == "parquet" and not head.startswith(b"PAR1"):
        raise BatchError(f"{path} is not a Parquet file (it does not start with the bytes PAR1); "
                         "if it is CSV text, name it .csv.")
    if kind == "csv":
        if head.startswith(b"PAR1"):
            raise BatchError(f"{path} is a Parquet file; name it .parquet.")
        if b"\x00" in head:
            raise BatchError(f"{path} is not CSV text (it holds binary bytes); give a CSV or Parquet file.")
        try:
            head.decode("utf-8")
        except UnicodeDecodeError as e:
            if e.start < len(head) - 4:  # a character cut at the end of the sample is fine
                raise BatchError(f"{path} is not UTF-8 text (byte {e.start}); save it as UTF-8.") from None


def text_files(paths: Sequence[str] | str) -> list[str]:
    """Text corpus files: plain UTF-8 text, one document per line, possibly compressed."""
    def keep(name):
        return os.path.splitext(split_compression(name)[0])[1].lower() in TEXT_EXTENSIONS

    files = expand_paths(paths, "text", keep)
    for p in files:
        if _is_url(p) or split_compression(p)[1]:
            continue
        head = _head(p)
        if head.startswith(b"PAR1") or b"\x00" in head:
            raise BatchError(f"{p} is not plain text (it holds binary bytes); give UTF-8 text, one document per line.")
        try:
            head.decode("utf-8")
        except UnicodeDecodeError as e:
            if e.start < len(head) - 4:
                raise BatchError(f"{p} is not UTF-8 text (byte {e.start}); save it as UTF-8.") from None
    return files


def fingerprint(paths: Sequence[str], **settings) -> dict:
    """What identifies an input: its files (size and modification time) and the settings that split it."""
    files = []
    for p in paths:
        if _is_url(p):
            files.append({"path": p})
        else:
            st = os.stat(p)
            files.append({"path": os.path.abspath(p), "bytes": st.st_size, "mtime_ns": st.st_mtime_ns})
    body = {"files": files, **settings}
    body["sha256"] = hashlib.sha256(json.dumps(body, sort_keys=True, default=str).encode()).hexdigest()
    return body


def read_table(paths: Sequence[str], kind: str, columns: Sequence[str], blocksize: str | int | None):
    """The columns of a table as a Dask DataFrame, one partition per Parquet row group set or CSV block."""
    import dask.dataframe as dd

    columns = list(columns)
    if kind == "parquet":
        try:
            frame = dd.read_parquet(list(paths), dtype_backend="pyarrow")
        except Exception as e:  # pyarrow reports schema problems with several exception types
            raise BatchError(f"Cannot read {paths[0]} as Parquet: {str(e).splitlines()[0]}") from None
    else:
        sep = "\t" if all(split_compression(p)[0].lower().endswith(".tsv") for p in paths) else ","
        compressed = any(split_compression(p)[1] for p in paths)
        try:
            frame = dd.read_csv(list(paths), sep=sep, blocksize=None if compressed else blocksize,
                                dtype=str, keep_default_na=False, na_values=[""])
        except Exception as e:  # pandas' parser raises several types on malformed text
            raise BatchError(f"Cannot read {paths[0]} as CSV: {str(e).splitlines()[0]}") from None
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        have = ", ".join(map(str, list(frame.columns)[:8]))
        raise BatchError(f"{paths[0]} has no column {missing[0]!r} (its columns: {have}).")
    return frame[columns]
