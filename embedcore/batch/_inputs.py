"""Input files of the batch steps: which files, which format, and their partitions as Dask reads them.

Paths are checked on the driver before any work is sent to a cluster, so a
missing file or a file in the wrong format stops with one sentence at once.
A path may be a file, a directory (its files of the right kind, sorted by
name) or a glob pattern; a URL (``s3://...``) is passed to Dask unchecked.
"""

from __future__ import annotations

import glob
import hashlib
import io
import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass

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


def _line_at(data: bytes, position: int) -> int:
    """The line (from 1) holding byte ``position`` of ``data``."""
    return data.count(b"\n", 0, position) + 1


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
                raise BatchError(f"{path}, line {_line_at(head, e.start)}: byte {head[e.start]:#04x} is not "
                                 "UTF-8 text; save the file as UTF-8.") from None


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
                raise BatchError(f"{p}, line {_line_at(head, e.start)}: byte {head[e.start]:#04x} is not "
                                 "UTF-8 text; save the file as UTF-8.") from None
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


# --------------------------------------------------------------------------- partitions the workers read themselves


def _open(path: str, compression: str | None = None):
    import fsspec

    return fsspec.open(path, "rb", compression=compression).open()


def _size(path: str) -> int:
    if _is_url(path):
        import fsspec

        fs, p = fsspec.core.url_to_fs(path)
        return int(fs.size(p))
    return os.path.getsize(path)


def _compression(path: str) -> str | None:
    return {".gz": "gzip", ".bz2": "bz2", ".xz": "xz", ".zst": "zstd"}.get(split_compression(path)[1])


def line_start(f, offset: int) -> int:
    """The first position at or after ``offset`` where a line starts (0, or just after a newline)."""
    if offset <= 0:
        return 0
    f.seek(offset - 1)
    pos = offset - 1
    while True:
        chunk = f.read(65536)
        if not chunk:
            return pos
        i = chunk.find(b"\n")
        if i >= 0:
            return pos + i + 1
        pos += len(chunk)


def lines_before(path: str, position: int) -> int:
    """Newlines in ``path`` before byte ``position`` (so the line holding it is this plus one)."""
    n, done = 0, 0
    with _open(path) as f:
        while done < position:
            chunk = f.read(min(1 << 22, position - done))
            if not chunk:
                break
            n += chunk.count(b"\n")
            done += len(chunk)
    return n


@dataclass(frozen=True)
class Part:
    """One partition of an input file, read by the task that uses it (no data passes through the driver).

    ``kind`` "parquet": rows ``start:stop`` of the file; "csv" and "text":
    the whole lines starting in bytes ``start:stop`` (``stop`` -1: the whole
    file, for compressed files). ``header``: a CSV partition after the first
    is read with the file's header line in front.
    """

    path: str
    kind: str
    start: int
    stop: int
    sep: str = ","

    @property
    def name(self) -> str:
        return os.path.basename(self.path) or self.path

    # ---- text lines (CSV and corpus blocks)
    def _bytes(self) -> tuple[bytes, int]:
        """The partition's bytes and the byte where they start in the file."""
        if self.stop < 0:
            with _open(self.path, _compression(self.path)) as f:
                return f.read(), 0
        with _open(self.path) as f:
            a = line_start(f, self.start)
            b = line_start(f, self.stop)
            if b <= a:
                return b"", a
            f.seek(a)
            return f.read(b - a), a

    def line_of(self, block_start: int, block: bytes, position: int) -> int:
        """File line (from 1) of byte ``position`` of ``block``, which starts at ``block_start`` in the file."""
        return lines_before(self.path, block_start) + block[:position].count(b"\n") + 1

    def lines(self) -> list[str]:
        """The partition's lines as text (each with its newline); a byte that is not UTF-8 is an error."""
        raw, at = self._bytes()
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise BatchError(f"{self.path}, line {self.line_of(at, raw, e.start)}: byte {raw[e.start]:#04x} is not "
                             "UTF-8 text; save the file as UTF-8.") from None
        return text.splitlines(keepends=True)

    # ---- tables
    def table(self, columns: Sequence[str]):
        """The partition's ``columns`` as a pandas DataFrame (pyarrow types for Parquet, text for CSV)."""
        import pandas as pd

        if self.kind == "parquet":
            import pyarrow.parquet as pq

            try:
                with _open(self.path) as f:
                    pf = pq.ParquetFile(f)
                    meta, first = pf.metadata, 0
                    groups, offset = [], None
                    for g in range(meta.num_row_groups):
                        n = meta.row_group(g).num_rows
                        if first < self.stop and first + n > self.start:
                            groups.append(g)
                            offset = first if offset is None else offset
                        first += n
                    t = self._rows(pf, groups, offset, list(columns)) if groups else \
                        pf.schema_arrow.empty_table().select(list(columns))
            except (OSError, ValueError) as e:
                raise BatchError(f"Cannot read {self.path} as Parquet: {str(e).splitlines()[0]}") from None
            return t.to_pandas(types_mapper=pd.ArrowDtype)
        raw, at = self._bytes()
        header = b""
        if at > 0:
            with _open(self.path) as f:
                header = f.readline()
        try:
            frame = pd.read_csv(io.BytesIO(header + raw), sep=self.sep, dtype=str, keep_default_na=False,
                                na_values=[""], encoding="utf-8")
            missing = [c for c in columns if c not in frame.columns]
            if missing:
                raise BatchError(f"{self.path} has no column {missing[0]!r}.")
            return frame[list(columns)]
        except pd.errors.EmptyDataError:
            return pd.DataFrame({c: pd.Series([], dtype=object) for c in columns})
        except pd.errors.ParserError as e:
            text = " ".join(str(e).split())
            m = re.search(r"line (\d+)", text)
            reason = re.sub(r"^Error tokenizing data\. C error: ", "", text)
            if m:
                line = int(m.group(1)) + (lines_before(self.path, at) - (1 if header else 0))
                reason = re.sub(r" in line \d+", "", reason).rstrip(".")
                raise BatchError(f"{self.path}, line {line}: {reason} (a separator or quote out of place?).") from None
            raise BatchError(f"Cannot read {self.path} as CSV near line {lines_before(self.path, at) + 1}: "
                             f"{reason}") from None
        except UnicodeDecodeError as e:
            pos = e.start - len(header)
            raise BatchError(f"{self.path}, line {self.line_of(at, raw, max(pos, 0))}: not UTF-8 text; save the "
                             "file as UTF-8.") from None
        except BatchError:
            raise
        except ValueError as e:
            raise BatchError(f"Cannot read {self.path} as CSV: {' '.join(str(e).split())}") from None

    def _rows(self, pf, groups: list[int], offset: int, columns: list[str]):
        """Rows ``start:stop`` of the row groups ``groups`` (the first starting at row ``offset``), decoded in
        batches and no further than ``stop``: a partition early in a large row group reads only its head."""
        import pyarrow as pa

        pieces, at = [], offset
        for b in pf.iter_batches(batch_size=min(65_536, max(1024, self.stop - self.start)), row_groups=groups,
                                 columns=columns):
            lo, hi = max(self.start, at), min(self.stop, at + b.num_rows)
            if hi > lo:
                pieces.append(b.slice(lo - at, hi - lo))
            at += b.num_rows
            if at >= self.stop:
                break
        return pa.Table.from_batches(pieces) if pieces else pf.schema_arrow.empty_table().select(columns)

    def where(self, row: int) -> str:
        """Where row ``row`` of this partition is in its file, for a message: ``sets.csv, line 12``."""
        if self.kind == "parquet":
            return f"{self.path}, row {self.start + row + 1}"
        raw, at = self._bytes()
        lines = raw.split(b"\n")
        skip = 1 if at == 0 else 0  # the header line
        seen = -1
        for i, ln in enumerate(lines):
            if i < skip or not ln.strip():
                continue
            seen += 1
            if seen == row:
                return f"{self.path}, line {lines_before(self.path, at) + i + 1}"
        return f"{self.path}, row {row + 1} of the block at byte {at}"


def _parquet_spans(path: str, partition_rows: int | None) -> list[tuple[int, int]]:
    """Row ranges of a Parquet file: whole row groups merged up to ``partition_rows``, larger ones split evenly."""
    import pyarrow.parquet as pq

    try:
        with _open(path) as f:
            meta = pq.ParquetFile(f).metadata
    except (OSError, ValueError) as e:
        raise BatchError(f"Cannot read {path} as Parquet: {str(e).splitlines()[0]}") from None
    spans: list[tuple[int, int]] = []
    first, run = 0, None
    for g in range(meta.num_row_groups):
        n = meta.row_group(g).num_rows
        if not partition_rows:
            spans.append((first, first + n))
        elif n > partition_rows:
            if run is not None:
                spans.append(run)
                run = None
            k = -(-n // partition_rows)
            cuts = [first + (n * i) // k for i in range(k + 1)]
            spans += list(zip(cuts[:-1], cuts[1:]))
        elif run is not None and run[1] - run[0] + n <= partition_rows:
            run = (run[0], first + n)
        else:
            if run is not None:
                spans.append(run)
            run = (first, first + n)
        first += n
    if run is not None:
        spans.append(run)
    return spans or [(0, 0)]


def _block_spans(path: str, blocksize: int | None) -> list[tuple[int, int]]:
    if split_compression(path)[1] or _is_url(path) and not blocksize:
        return [(0, -1)]
    size = _size(path)
    if not blocksize or size <= blocksize:
        return [(0, size)]
    cuts = list(range(0, size, blocksize)) + [size]
    return list(zip(cuts[:-1], cuts[1:]))


def table_parts(paths: Sequence[str], kind: str, *, partition_rows: int | None = None,
                blocksize: str | int | None = "64MB") -> list[Part]:
    """The partitions of a table: Parquet row ranges (see ``partition_rows``), or CSV blocks of whole lines."""
    from dask.utils import parse_bytes

    if partition_rows is not None and partition_rows < 1:
        raise BatchError(f"partition_rows must be at least 1, got {partition_rows}.")
    parts = []
    for p in paths:
        if kind == "parquet":
            parts += [Part(p, "parquet", a, b) for a, b in _parquet_spans(p, partition_rows)]
        else:
            sep = "\t" if split_compression(p)[0].lower().endswith(".tsv") else ","
            size = parse_bytes(blocksize) if blocksize else None
            parts += [Part(p, "csv", a, b, sep) for a, b in _block_spans(p, size)]
    return parts


def text_parts(paths: Sequence[str], blocksize: str | int | None = "16MB") -> list[Part]:
    """Blocks of whole lines of text files (a compressed file is one block)."""
    from dask.utils import parse_bytes

    size = parse_bytes(blocksize) if blocksize else None
    return [Part(p, "text", a, b) for p in paths for a, b in _block_spans(p, size)]


def table_columns(paths: Sequence[str], kind: str) -> list[list[str]]:
    """Every file's column names (the Parquet schema, or the CSV header line)."""
    import pandas as pd

    out = []
    for p in paths:
        if kind == "parquet":
            import pyarrow.parquet as pq

            try:
                with _open(p) as f:
                    out.append(list(pq.ParquetFile(f).schema_arrow.names))
            except (OSError, ValueError) as e:
                raise BatchError(f"Cannot read {p} as Parquet: {str(e).splitlines()[0]}") from None
        else:
            sep = "\t" if split_compression(p)[0].lower().endswith(".tsv") else ","
            try:
                out.append([str(c) for c in pd.read_csv(p, sep=sep, nrows=0, encoding="utf-8",
                                                        compression="infer").columns])
            except (ValueError, UnicodeDecodeError) as e:
                raise BatchError(f"Cannot read the header line of {p}: {str(e).splitlines()[0]}") from None
    return out


def open_table(paths: Sequence[str] | str, what: str, columns: Sequence[str],
               format: str | None = None) -> tuple[list[str], str]:
    """The files of a table input and their format, every file checked for ``columns`` before any work starts.

    Examples
    --------
    >>> open_table("no/such/table.parquet", "table", ["cat", "y"])
    Traceback (most recent call last):
    ...
    embedcore.exceptions.BatchError: The table file no/such/table.parquet does not exist.
    """
    files = expand_paths(paths, what)
    kind = table_format(files, format)
    check_columns(files, kind, columns)
    return files, kind


def check_columns(paths: Sequence[str], kind: str, columns: Sequence[str]) -> None:
    """Every file has every column named, or a message names the file, the column and what it has."""
    for p, have in zip(paths, table_columns(paths, kind)):
        missing = [c for c in columns if c not in have]
        if missing:
            raise BatchError(f"{p} has no column {missing[0]!r} (its columns: {', '.join(have[:8])}).")
