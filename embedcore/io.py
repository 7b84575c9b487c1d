"""Parsing and validation of every file a person can give the lab.

Every reader accepts a path, raw bytes, or a file-like object with ``read`` or
``getvalue`` (such as Streamlit's ``UploadedFile``), and raises exactly one
exception type, :class:`DataError`, whose message names the file, the line or
column and the offending value, and says what to change.

Nothing is dropped or shortened silently: every reader returns its result
with ``notices`` (sentences for a person) and ``dropped`` (reason -> count).
"""

from __future__ import annotations

import codecs
import csv
import io
from itertools import chain
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "DataError",
    "VectorData",
    "SetData",
    "PlaylistData",
    "read_vectors",
    "read_sets",
    "read_playlists",
    "read_table",
    "read_documents",
    "read_item_sets",
    "read_song_tags",
    "ItemSets",
    "MAX_BYTES",
    "guess_kind",
    "Report",
    "describe",
]

#: Largest file any reader accepts; larger files are refused, never cut.
MAX_BYTES = 200 * 2**20
#: Rows above which vector files are sampled (with a notice) rather than used whole.
MAX_VECTOR_ROWS = 200_000

#: Cells that mean "missing" (compared stripped and lower-cased): ours and pandas' defaults.
_NA_TOKENS = frozenset(
    {"", "na", "nan", "null", "none", "n/a", "-", "#n/a", "#n/a n/a", "#na", "<na>", "-nan",
     "1.#ind", "-1.#ind", "1.#qnan", "-1.#qnan"}
)
_MAGIC = [
    (b"\x93NUMPY", "a NumPy .npy file", ".npy"),
    (b"PAR1", "a Parquet file", ".parquet"),
    (b"PK\x03\x04", "a ZIP archive (an .xlsx or .npz file?)", ".zip"),
    (b"\x89PNG", "a PNG image", ".png"),
    (b"\xff\xd8\xff", "a JPEG image", ".jpg"),
    (b"%PDF", "a PDF document", ".pdf"),
    (b"\x1f\x8b", "a gzip-compressed file", ".gz"),
    (b"BZh", "a bzip2-compressed file", ".bz2"),
]


class DataError(ValueError):
    """A file that cannot be used as given; the message says what to fix."""


# --------------------------------------------------------------------------- results


@dataclass
class _Parsed:
    name: str
    notices: list[str] = field(default_factory=list, kw_only=True)
    dropped: dict[str, int] = field(default_factory=dict, kw_only=True)


@dataclass
class VectorData(_Parsed):
    """Vectors read from a file: ``X`` (n x d float64) and optional ``meta``."""

    X: np.ndarray
    meta: pd.DataFrame | None = None
    columns: list[str] = field(default_factory=list)
    #: 0-based position in the file's data rows of every kept row (rows with missing
    #: values are dropped), so a second file of per-row metadata can be aligned.
    source_rows: np.ndarray | None = None


@dataclass
class SetData(_Parsed):
    """Sets of item names, one per line, with optional labels."""

    sets: list[list[str]]
    labels: list[str] | None = None


@dataclass
class PlaylistData(_Parsed):
    """Playlists as lists of song names, one per line (bundled sets may add tags and a true model)."""

    playlists: list[list[str]]
    tags: dict | None = None
    truth: Any = None
    description: str = ""

    def __len__(self) -> int:
        return len(self.playlists)

    def __iter__(self):
        return iter(self.playlists)

    def __getitem__(self, i):
        return self.playlists[i]


@dataclass
class ItemSets(_Parsed):
    """Item vectors with sets of those items (what EMDE sketches).

    ``weights``, when given, holds one list of weights per set, aligned with
    its items (e.g. pixel intensities); otherwise every occurrence counts 1.
    """

    items: list[str]
    vectors: np.ndarray
    sets: list[list[str]]
    labels: list[str] | None = None
    weights: list[list[float]] | None = None
    description: str = ""

    def weight_matrix(self):
        """Sparse (n_sets x n_items) weights: repeats add up, given weights are used."""
        import scipy.sparse as sp

        index = pd.Index(self.items)
        lengths = np.fromiter(map(len, self.sets), dtype=np.int64, count=len(self.sets))
        cols = index.get_indexer(list(chain.from_iterable(self.sets))) if lengths.sum() else np.zeros(0, dtype=np.int64)
        rows = np.repeat(np.arange(len(self.sets)), lengths)
        if self.weights is None:
            data = np.ones(cols.size)
        else:
            data = np.fromiter(chain.from_iterable(self.weights), dtype=np.float64, count=cols.size)
        W = sp.coo_array((data, (rows, cols)), shape=(len(self.sets), len(self.items))).tocsr()
        W.sum_duplicates()
        return W


@dataclass
class TableData(_Parsed):
    frame: pd.DataFrame


@dataclass
class DocumentData(_Parsed):
    documents: list[str]


# --------------------------------------------------------------------------- bytes


def _source_bytes(source: Any, filename: str | None) -> tuple[bytes, str]:
    """Return the raw bytes of ``source`` and a name to use in messages."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        name = filename or "upload"
    elif isinstance(source, (str, os.PathLike)):
        path = Path(source)
        if not path.is_file():
            raise DataError(f"{path}: no such file. Check the path.")
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise DataError(_too_big(filename or path.name, size))
        data = path.read_bytes()
        name = filename or path.name
    elif hasattr(source, "getvalue"):
        data = bytes(source.getvalue())
        name = filename or getattr(source, "name", None) or "upload"
    elif hasattr(source, "read"):
        data = source.read()
        if isinstance(data, str):
            data = data.encode("utf-8")
        name = filename or getattr(source, "name", None) or "upload"
    else:
        raise DataError(
            f"Cannot read a {type(source).__name__}; give a file path, bytes or an uploaded file."
        )
    if len(data) > MAX_BYTES:
        raise DataError(_too_big(name, len(data)))
    return data, str(name)


def _too_big(name: str, size: int) -> str:
    return (
        f"{name} is {size / 2**20:.0f} MB; the lab reads files up to "
        f"{MAX_BYTES / 2**20:.0f} MB. Sample or split it before uploading."
    )


def _ext(name: str) -> str:
    return Path(name).suffix.lower()


#: Byte-order marks of the Unicode encodings other than UTF-8 (UTF-32's first: UTF-16 LE's is its prefix).
_BOMS = [
    (codecs.BOM_UTF32_LE, "utf-32", "UTF-32"),
    (codecs.BOM_UTF32_BE, "utf-32", "UTF-32"),
    (codecs.BOM_UTF16_LE, "utf-16", "UTF-16"),
    (codecs.BOM_UTF16_BE, "utf-16", "UTF-16"),
]


def _sniff_binary(data: bytes) -> tuple[str, str] | None:
    for magic, what, ext in _MAGIC:
        if data.startswith(magic):
            return what, ext
    for bom, _, label in _BOMS:
        if data.startswith(bom):
            return f"{label} text", ".csv"
    head = data[:4096]
    if b"\x00" in head:
        # UTF-16 without a byte-order mark: text in Latin letters has a zero in every other byte
        for order, zeros in (("little-endian", head[1::2]), ("big-endian", head[::2])):
            if zeros.count(0) > 0.4 * len(zeros) and head.count(0) < 0.7 * len(head):
                return f"UTF-16 ({order}) text without a byte-order mark", ""
        return "a binary file", ""
    return None


def _decode(data: bytes, name: str, expected: str) -> str:
    """Bytes -> text, refusing binary content and naming the first bad byte.

    UTF-8 (with or without a byte-order mark) is read, and so are UTF-16 and
    UTF-32 when they start with their byte-order mark (as Windows tools write them).
    """
    for bom, codec, label in _BOMS:
        if data.startswith(bom):
            try:
                return data.decode(codec)  # the codec reads the mark's byte order and drops it
            except UnicodeDecodeError as err:
                raise DataError(
                    f"{name} starts as {label} text, but its bytes from {err.start:,} on are not "
                    f"valid {label} ({err.reason}). Save the file again with UTF-8 encoding."
                ) from None
    found = _sniff_binary(data)
    if found:
        what, ext = found
        if what.startswith("UTF-16"):
            raise DataError(
                f"{name} looks like {what}. Save it with UTF-8 encoding "
                "(in Excel: 'CSV UTF-8'; in Notepad: Save as, Encoding UTF-8)."
            )
        fix = f"Rename it to {ext} if it is one." if ext == ".npy" else f"Upload {expected} instead."
        raise DataError(f"{name} should be {expected}, but its content is {what}. {fix}")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        raise DataError(
            f"{name}, line {line}: byte 0x{data[err.start]:02x} is not UTF-8 text. "
            "Save the file with UTF-8 encoding (in Excel: 'CSV UTF-8')."
        ) from None
    return text


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def _lines(text: str) -> list[str]:
    # splitlines also understands Windows (\r\n) and old Mac (\r) newlines.
    return text.splitlines()


# --------------------------------------------------------------------------- tables of text


#: Columns above which a table with more columns than rows is read as one long column.
#: pandas' parser spends some 15 microseconds on every column whatever its length, so a
#: single row of a million numbers takes 15 s column by column and a tenth of that as one.
_WIDE_COLUMNS = 5_000


def _is_number(cells: pd.Series) -> np.ndarray:
    return pd.to_numeric(cells, errors="coerce").notna().to_numpy() | _is_na(cells)


def _is_na(cells: pd.Series) -> np.ndarray:
    return cells.str.strip().str.lower().isin(_NA_TOKENS).to_numpy()


def _number_cells(cells: np.ndarray) -> np.ndarray:
    """Which cells of a 2-D array of strings are numbers or missing, in one pass over all of them."""
    flat = pd.Series(cells.ravel(), dtype=object).astype(str)
    return _is_number(flat).reshape(cells.shape)


def _separator(name: str, first_line: str) -> str | None:
    ext = _ext(name)
    if ext in (".tsv", ".tab"):
        return "\t"
    if "\t" in first_line:
        return "\t"
    if ext == ".csv" and ";" in first_line and "," not in first_line:
        return ";"
    if "," in first_line:
        return ","
    return None  # runs of whitespace


@dataclass
class _Grid:
    """Text split into rows of equal length (blank lines removed)."""

    head: np.ndarray  # the first rows' cells as strings (every row when no limit is given)
    line_no: np.ndarray  # 1-based line on which each row starts
    sep: str | None  # None: runs of whitespace
    body: str  # the non-blank lines, joined by newlines


def _quoted_rows(lines: list[str], body: str, sep: str, n_head: int, name: str, line_no: np.ndarray):
    """Field counts, first line and (for the first ``n_head``) fields of every row of a file with quotes.

    Quotes follow csv's rules, which are also pandas': a quoted field may hold
    the separator, a doubled quote or a line break, so a row may span lines.
    """
    counts, starts, head = [], [], []
    reader = csv.reader(io.StringIO(body), delimiter=sep)
    start = 0
    try:
        for row in reader:
            counts.append(len(row))
            starts.append(start)
            if len(head) < n_head:
                head.append(row)
            start = reader.line_num
    except csv.Error as err:
        raise DataError(
            f"{name}, line {line_no[start]}: cannot read the quoted field that starts here ({err}). "
            'Check that every opening quote (") has a closing one.'
        ) from None
    try:  # an unclosed quote runs to the end of the file, so it is always in the last row
        list(csv.reader(io.StringIO("\n".join(lines[starts[-1]:])), delimiter=sep, strict=True))
    except csv.Error as err:
        if "unexpected end of data" in str(err):
            raise DataError(
                f'{name}, line {line_no[starts[-1]]}: a quoted field opens here (") and never closes, '
                "so the rest of the file would be one cell. Close the quote or delete it."
            ) from None
    return np.asarray(counts, dtype=np.int64), np.asarray(starts, dtype=np.int64), head


def _text_grid(text: str, name: str, head_rows: int | None = None) -> _Grid:
    """Split text into rows of equal length and keep the first ``head_rows`` rows' cells.

    Fields are separated by tabs, commas or semicolons (decided by the file's
    extension and first line) or by runs of whitespace. In files with a
    separator, quotes group fields wherever they are; in whitespace-separated
    files (such as word2vec's) a quote is an ordinary character. Rows of
    unequal length are an error that names the first offending line.
    """
    all_lines = _lines(text)
    keep = [i for i, ln in enumerate(all_lines) if ln.strip()]
    if not keep:
        raise DataError(f"{name} is empty. It needs at least one row of values.")
    lines = [all_lines[i] for i in keep]
    line_no = np.asarray(keep, dtype=np.int64) + 1
    sep = _separator(name, lines[0])
    body = "\n".join(lines)
    n_head = len(lines) if head_rows is None else head_rows
    if sep is None:
        counts = np.fromiter((len(ln.split()) for ln in lines), dtype=np.int64, count=len(lines))
        head = [ln.split() for ln in lines[:n_head]]
    elif '"' in body:
        counts, starts, head = _quoted_rows(lines, body, sep, n_head, name, line_no)
        line_no = line_no[starts]
    else:
        counts = np.fromiter((ln.count(sep) + 1 for ln in lines), dtype=np.int64, count=len(lines))
        head = [ln.split(sep) for ln in lines[:n_head]]
    bad = np.flatnonzero(counts != counts[0])
    if bad.size:
        j = bad[0]
        raise DataError(
            f"{name}, line {line_no[j]}: {_plural(counts[j], 'field')}, but line {line_no[0]} "
            f"has {counts[0]}. Every row needs the same number of fields "
            f"({_plural(bad.size, 'row')} differ{'' if bad.size > 1 else 's'})."
        )
    cells = np.empty((len(head), int(counts[0])), dtype=object)
    cells[:] = head
    return _Grid(cells, line_no, sep, body)


def _read_csv(body: str, name: str, sep: str | None, **kw) -> pd.DataFrame:
    kw.setdefault("quoting", csv.QUOTE_NONE if sep is None else csv.QUOTE_MINIMAL)
    try:
        return pd.read_csv(
            io.StringIO(body), sep=r"\s+" if sep is None else sep, header=None,
            skip_blank_lines=False, engine="c", low_memory=False, **kw,
        )
    except pd.errors.ParserError as err:  # quoted fields the counter could not see
        raise DataError(f"{name}: cannot split into columns ({err}). Check quoting.") from None


_READ_NA = {"na_values": ["none", "None", "NONE", "-"], "keep_default_na": True}


def _typed_columns(
    grid: _Grid, name: str, header: bool, line_no: np.ndarray, names: list[str],
    text_columns: tuple[int, ...] = (),
) -> tuple[np.ndarray, list[int], pd.DataFrame, list[int]]:
    """Parse the rows once with pandas' C parser, then type every column it left as text.

    Returns ``(X, numeric, text, textcols)``: the numeric columns as one
    float64 array (missing -> NaN) and their positions, and the other columns
    as a frame of strings (None for missing) and theirs. A column of numbers
    with a few stray words is an error naming the first offending cell.

    A file much wider than it is long is parsed as one long column (each
    separator read as a line break) and reshaped, or, when quotes make that
    unsafe and the grid already holds every row, typed from the grid's cells;
    either way the time grows with the file's size, not with its number of columns.
    """
    n, d = len(line_no), grid.head.shape[1]
    sep = grid.sep
    forced = np.isin(np.arange(d), text_columns)
    typed, X_typed = np.zeros(d, dtype=bool), np.empty((n, 0))  # columns pandas read as numbers
    wide = d > _WIDE_COLUMNS and d > n
    data = (grid.body.split("\n", 1)[1] if header else grid.body) if wide else ""
    long_read = wide and (sep is None or '"' not in data)
    if wide and not long_read and len(grid.head) == n + header:
        cells = grid.head[int(header):]
    elif long_read:
        long = "\n".join(data.split()) if sep is None else data.replace(sep, "\n")
        # the extra newline keeps an empty last cell; names=[0] lets the first cell be empty
        col = _read_csv(long + "\n", name, sep or " ", names=[0], quoting=csv.QUOTE_NONE, **_READ_NA)[0]
        if len(col) != n * d:
            raise DataError(f"{name}: cannot split into {d} columns. Check the separators.")
        if col.dtype.kind in "fiub" and not text_columns:
            return col.to_numpy(np.float64).reshape(n, d), list(range(d)), pd.DataFrame(index=range(n)), []
        cells = col.to_numpy(object).reshape(n, d)
    else:
        frame = _read_csv(
            grid.body, name, sep, skiprows=1 if header else 0,
            dtype={c: str for c in text_columns} or None, **_READ_NA,
        )
        if frame.shape != (n, d):
            raise DataError(
                f"{name}: cannot split into {d} columns (found {frame.shape[0]:,} rows of {frame.shape[1]:,} "
                f"instead of {n:,} of {d:,}). Check the quotes and separators."
            )
        typed = np.array([dt.kind in "fiub" for dt in frame.dtypes]) & ~forced
        X_typed = frame.iloc[:, np.flatnonzero(typed)].to_numpy(np.float64)
        cells = frame.iloc[:, np.flatnonzero(~typed)].to_numpy(object)
    cols = np.flatnonzero(~typed)
    X_cells, is_num, text = _type_cells(cells, forced[cols], name, line_no, [names[c] for c in cols])
    numeric = np.sort(np.concatenate([np.flatnonzero(typed), cols[is_num]]))
    X = np.empty((n, numeric.size))
    X[:, np.searchsorted(numeric, np.flatnonzero(typed))] = X_typed
    X[:, np.searchsorted(numeric, cols[is_num])] = X_cells
    textcols = cols[~is_num].tolist()
    text.columns = textcols
    if text_columns == (0,) and (long_read or text[0].isna().any()) and (sep is None or '"' not in grid.body):
        # a word file's first field is a word as written: 'none', 'nan' or '-' is not a missing value
        first = r"^\s*(\S+)" if sep is None else f"^([^{re.escape(sep)}\n]*)"  # no line is blank
        words = re.findall(first, grid.body, flags=re.M)[int(header):]
        if len(words) == n:
            text[0] = [w.strip() or None for w in words]
    return X, numeric.tolist(), text, textcols


def _type_cells(cells: np.ndarray, forced: np.ndarray, name: str, line_no: np.ndarray, names: list[str]):
    """Decide, for all columns of a 2-D array of strings at once, which hold numbers.

    Returns the numeric columns' values, a mask of the numeric columns, and the
    text columns (stripped, None for missing) as a frame. ``forced`` columns
    are text whatever they hold.
    """
    n, k = cells.shape
    flat = pd.Series(cells.ravel(order="F"), dtype=object)  # column after column
    flat = flat.where(flat.notna(), "").astype(str)
    values = pd.to_numeric(flat, errors="coerce").to_numpy(np.float64)
    ok = (~np.isnan(values) | _is_na(flat)).reshape(k, n)
    is_num = ok.all(axis=1) & ~forced
    mostly = ~is_num & ~forced & (ok.mean(axis=1) >= 0.8) if n else np.zeros(k, dtype=bool)
    if mostly.any():
        c = int(np.flatnonzero(mostly)[0])
        j = int(np.flatnonzero(~ok[c])[0])
        n_bad = int((~ok[c]).sum())
        raise DataError(
            f"{name}, line {line_no[j]}, column '{names[c]}': {flat.iloc[c * n + j]!r} is not a "
            f"number, but the column's other values are. Fix the cell or delete the row "
            f"({_plural(n_bad, 'such cell')} in this column)."
        )
    X = values.reshape(k, n)[is_num].T
    in_text = np.repeat(~is_num, n)
    stripped = flat[in_text].str.strip()
    missing = (stripped == "").to_numpy() | (_is_na(stripped) & np.repeat(~forced[~is_num], n))
    strings = stripped.to_numpy(object)
    strings[missing] = None
    return X, is_num, pd.DataFrame(strings.reshape(-1, n).T)


def _find_header(cells: np.ndarray) -> bool:
    """A first row is a header when it holds words above columns of numbers."""
    ok = _number_cells(cells)
    if len(cells) < 2:
        return not ok[0].all()
    # No numeric columns at all: a row of distinct words is taken as a header
    # only for tables, decided by the caller.
    return bool(((ok[1:].mean(axis=0) > 0.5) & ~ok[0]).any())


def _unique_names(names: list[str]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for n in names:
        n = n.strip() or "column"
        if n in seen:
            seen[n] += 1
            n = f"{n}.{seen[n]}"
        else:
            seen[n] = 0
        out.append(n)
    return out


def _drop_invalid_rows(
    values: np.ndarray,
    line_no: np.ndarray,
    name: str,
    on_invalid: str,
    result: _Parsed,
    unit: str = "line",
) -> np.ndarray:
    """Return a boolean mask of rows to keep; report missing and infinite values."""
    missing = np.isnan(values).any(axis=1)
    infinite = np.isinf(values).any(axis=1) & ~missing
    for mask, what in ((missing, "a missing value"), (infinite, "an infinite value")):
        n = int(mask.sum())
        if not n:
            continue
        where = ", ".join(str(v) for v in line_no[mask][:5]) + (", ..." if n > 5 else "")
        if on_invalid == "error":
            raise DataError(
                f"{name}, {unit} {line_no[mask][0]}: {what}. Fill it in or delete the row "
                f"({n} row{'s' if n > 1 else ''} affected)."
            )
        result.dropped[f"rows with {what}"] = n
        result.notices.append(
            f"Dropped {n} row{'s' if n > 1 else ''} with {what} ({unit}{'s' if n > 1 else ''} {where})."
        )
    return ~(missing | infinite)


def _sample_rows(n: int, max_rows: int, seed: int, result: _Parsed, unit: str) -> np.ndarray | None:
    if n <= max_rows:
        return None
    rng = np.random.default_rng(seed)
    idx = np.sort(rng.choice(n, size=max_rows, replace=False))
    result.notices.append(
        f"The file has {n:,} {unit}; the lab uses a random sample of {max_rows:,} "
        f"(seed {seed}). The sample is drawn without replacement and keeps the file's order."
    )
    result.dropped[f"{unit} left out of the sample"] = n - max_rows
    return idx


# --------------------------------------------------------------------------- vectors


_W2V_HEADER = re.compile(r"^\s*(\d+)\s+(\d+)\s*$")


def read_vectors(
    source: Any,
    filename: str | None = None,
    *,
    metadata: Any = None,
    metadata_filename: str | None = None,
    on_invalid: str = "drop",
    max_rows: int = MAX_VECTOR_ROWS,
    seed: int = 0,
) -> VectorData:
    """Read a matrix of vectors with optional per-row metadata.

    Accepted formats: CSV/TSV/whitespace tables with or without a header line
    (non-numeric columns become metadata), ``.npy`` (real numbers or True/False;
    complex numbers are refused, pickles never loaded), the word2vec text format (``word v1 v2 ...``
    with an optional ``count dim`` first line), and the Embedding Projector
    pair (a vectors TSV with no header plus ``metadata``, a TSV with a header).

    Parameters
    ----------
    source, filename : file path, bytes or file-like, and the name to report.
    metadata, metadata_filename : the Embedding Projector metadata file, if any.
    on_invalid : ``"drop"`` rows with missing/infinite values (and say so) or ``"error"``.
    max_rows : larger files are sampled at random to this many rows, with a notice.
    seed : seed of that sample.

    Examples
    --------
    >>> v = read_vectors(b"x,y,name\\n1,2,a\\n3,4,b\\n", "points.csv")
    >>> v.X.shape, list(v.meta["name"])
    ((2, 2), ['a', 'b'])
    """
    if on_invalid not in ("drop", "error"):
        raise DataError(f"on_invalid must be 'drop' or 'error', not {on_invalid!r}.")
    data, name = _source_bytes(source, filename)
    ext = _ext(name)
    if ext == ".npy" or (data.startswith(b"\x93NUMPY") and ext not in (".csv", ".tsv", ".txt")):
        result = _read_npy(data, name, on_invalid)
    else:
        text = _decode(data, name, "a CSV/TSV or word2vec text file")
        result = _read_vector_text(text, name, on_invalid)
    if metadata is not None:
        _attach_projector_metadata(result, metadata, metadata_filename)
    idx = _sample_rows(len(result.X), max_rows, seed, result, "rows")
    if idx is not None:
        result.X = result.X[idx]
        if result.meta is not None:
            result.meta = result.meta.iloc[idx].reset_index(drop=True)
    return result


def _read_npy(data: bytes, name: str, on_invalid: str) -> VectorData:
    if not data.startswith(b"\x93NUMPY"):
        found = _sniff_binary(data)
        what = found[0] if found else f"text starting {data[:20].decode('utf-8', 'replace')!r}"
        raise DataError(
            f"{name} is named .npy but is not a NumPy file (it is {what}). "
            "Save the array with numpy.save, or rename the file to its real type (.csv, .tsv)."
        )
    try:
        arr = np.load(io.BytesIO(data), allow_pickle=False)
    except ValueError as err:
        if "pickle" in str(err).lower() or "object" in str(err).lower():
            raise DataError(
                f"{name} holds Python objects, which the lab never unpickles. "
                "Save a plain numeric array: numpy.save(path, X.astype(float))."
            ) from None
        raise DataError(f"{name} is a damaged .npy file ({err}). Save it again.") from None
    except Exception as err:  # truncated headers raise several types
        raise DataError(f"{name} is a damaged .npy file ({err}). Save it again.") from None
    _check_npy_dtype(arr, name)
    if arr.ndim == 0:
        raise DataError(
            f"{name} holds a single number, not vectors. Save an n x d array with numpy.save(path, X)."
        )
    if arr.ndim == 1:
        raise DataError(
            f"{name} is a 1-D array of {arr.shape[0]} values; the lab needs rows of vectors "
            "(n x d). Reshape it with X.reshape(-1, 1) or X.reshape(1, -1)."
        )
    if arr.ndim != 2:
        raise DataError(f"{name} has {arr.ndim} dimensions {arr.shape}; the lab needs n x d.")
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise DataError(f"{name} is empty (shape {arr.shape}). It needs at least one row and column.")
    X = np.ascontiguousarray(arr, dtype=np.float64)
    result = VectorData(name, X=X, meta=None, columns=[f"x{i}" for i in range(X.shape[1])])
    if arr.dtype.kind == "b":
        result.notices.append(f"{name} holds True/False values; they are read as 1/0.")
    keep = _drop_invalid_rows(X, np.arange(1, len(X) + 1), name, on_invalid, result, unit="row")
    result.X = X[keep]
    result.source_rows = np.flatnonzero(keep)
    if len(result.X) == 0:
        raise DataError(f"{name}: no row is left after dropping rows with missing values.")
    return result


def _check_npy_dtype(arr: np.ndarray, name: str) -> None:
    """Refuse, with what to do instead, an array whose values are not real numbers (or True/False)."""
    dt = arr.dtype
    if dt.names is not None:
        numeric = [f for f in dt.names if dt[f].kind in "biuf" and dt[f].ndim == 0]
        fix = (
            f"Save its numeric fields as one n x d array: numpy.save(path, "
            f"numpy.column_stack([arr[f] for f in {tuple(numeric)!r}]))."
            if numeric else "None of its fields is a number; save the vectors as a plain float array with numpy.save."
        )
        raise DataError(
            f"{name} holds a table with named fields ({', '.join(dt.names)}), not a plain array of numbers. {fix}"
        )
    if dt.kind == "c":
        raise DataError(
            f"{name} holds complex numbers ({dt}); the lab reads real vectors and will not drop the "
            "imaginary part silently. Save the real and imaginary parts as separate columns: "
            "numpy.save(path, np.hstack([X.real, X.imag])), or save np.abs(X) if only magnitudes matter."
        )
    if dt.kind in "US":
        raise DataError(
            f"{name} holds {'text' if dt.kind == 'U' else 'bytes'} ({dt}), not numbers; the lab needs "
            "a numeric array (float or int). If the strings are numbers, save X.astype(float) with "
            "numpy.save; labels belong in a CSV or TSV column next to the numbers."
        )
    if dt.kind in "mM":
        raise DataError(
            f"{name} holds dates or times ({dt}), not vectors. Convert them to numbers (for example "
            "seconds since a start: (X - X.min()) / np.timedelta64(1, 's')) and save with numpy.save."
        )
    if dt.kind not in "biuf":
        raise DataError(
            f"{name} holds {dt} values; the lab needs a numeric array (float or int). Save one with numpy.save."
        )


def _read_vector_text(text: str, name: str, on_invalid: str) -> VectorData:
    nonblank = [ln for ln in _lines(text)[:50] if ln.strip()]
    first = nonblank[0] if nonblank else ""
    w2v = _W2V_HEADER.match(first)
    if w2v and len(nonblank) > 1 and len(nonblank[1].split()) != int(w2v.group(2)) + 1:
        w2v = None  # two numbers on a line of a plain two-column table
    promised = None
    if w2v:
        # word2vec "count dim" line: take it off and check the promise it makes.
        promised = (int(w2v.group(1)), int(w2v.group(2)))
        text = text.split("\n", 1)[1] if "\n" in text else ""
        if not text.strip():
            raise DataError(
                f"{name} has only the word2vec header line '{first.strip()}' and no vectors."
            )
    grid = _text_grid(text, name, head_rows=50)
    line_no = grid.line_no + 1 if w2v else grid.line_no
    word_format = w2v is not None or (_ext(name) in (".vec", ".w2v"))
    header = False if word_format else _find_header(grid.head)
    if header:
        names = _unique_names(list(grid.head[0]))
        line_no = line_no[1:]
        if len(line_no) == 0:
            raise DataError(
                f"{name} has a header line ({', '.join(names[:6])}) but no data rows below it."
            )
    elif word_format:
        names = ["word"] + [f"x{i}" for i in range(grid.head.shape[1] - 1)]
    else:
        names = [f"x{i}" for i in range(grid.head.shape[1])]
    X, numeric, text_frame, textcols = _typed_columns(
        grid, name, header, line_no, names, text_columns=(0,) if word_format else ()
    )
    if word_format and len(textcols) > 1:
        j = textcols[1]
        raise DataError(
            f"{name}, column {j + 1}: word2vec lines must be a word followed by numbers; "
            f"found {text_frame[j].iloc[0]!r}."
        )
    result = VectorData(name, X=np.empty((0, 0)))
    if not numeric:
        raise DataError(
            f"{name} has no numeric columns (columns: {', '.join(names[:6])}). Vectors need "
            "at least one column of numbers."
        )
    keep = _drop_invalid_rows(X, line_no, name, on_invalid, result)
    result.source_rows = np.flatnonzero(keep)
    X = X[keep] if not keep.all() else X
    if len(X) == 0:
        raise DataError(f"{name}: every row has a missing value, so no vector is left.")
    col_names = [names[c] for c in numeric]
    meta = None
    if textcols:
        meta = text_frame.loc[keep].reset_index(drop=True)
        meta.columns = [names[c] for c in textcols]
    if promised is not None:
        n_rows = len(line_no)
        if promised != (n_rows, X.shape[1]):
            result.notices.append(
                f"The word2vec header promises {promised[0]} vectors of {promised[1]} numbers; "
                f"the file holds {n_rows} of {X.shape[1]}. The file's contents were used."
            )
    result.X = np.ascontiguousarray(X)
    result.meta = meta
    result.columns = col_names
    return result


def _attach_projector_metadata(result: VectorData, metadata: Any, metadata_filename: str | None):
    data, mname = _source_bytes(metadata, metadata_filename)
    text = _decode(data, mname, "a metadata TSV")
    lines = [ln for ln in _lines(text) if ln.strip()]
    if not lines:
        raise DataError(f"{mname} is empty; it needs a header line and one line per vector.")
    if "\t" in lines[0]:
        cells = _text_grid(text, mname).head
        meta = pd.DataFrame(cells[1:], columns=_unique_names(list(cells[0])))
    else:
        # The projector's single-column metadata has no header line.
        meta = pd.DataFrame({"label": lines})
    n_rows = len(result.X) + sum(v for k, v in result.dropped.items() if k.startswith("rows with"))
    if len(meta) != n_rows:
        raise DataError(
            f"{result.name} has {n_rows} vectors but {mname} has {len(meta)} metadata rows. "
            "The two files must have one line per vector, in the same order (plus a header "
            "line in the metadata when it has several columns)."
        )
    # keep the metadata of the vectors that were kept, and only those
    meta = meta.iloc[result.source_rows].reset_index(drop=True)
    result.meta = meta if result.meta is None else pd.concat([result.meta, meta], axis=1)


# --------------------------------------------------------------------------- sets and playlists


_ITEM_SPLIT = re.compile(r"[,\s]+")
_SET_HEADERS = {("label", "items"), ("label", "set"), ("class", "items"), ("y", "items")}


def _item_lines(data: bytes, name: str, what: str) -> tuple[list[str], list[int], int]:
    text = _decode(data, name, f"a text file of {what}")
    lines = _lines(text)
    blank = 0
    kept, numbers = [], []
    for i, ln in enumerate(lines):
        if not ln.strip() or ln.lstrip().startswith("#"):
            blank += 1
            continue
        kept.append(ln)
        numbers.append(i + 1)
    if not lines or not text.strip():
        raise DataError(f"{name} is empty. Put one of the {what} on each line.")
    return kept, numbers, blank


def _split_items(line: str) -> list[str]:
    return [t for t in _ITEM_SPLIT.split(line.strip()) if t]


def read_sets(
    source: Any, filename: str | None = None, *, max_sets: int = 500_000, seed: int = 0
) -> SetData:
    """Read sets of items, one set per line.

    Items are separated by commas or whitespace. A set may carry a label:
    ``label<TAB>item item item``; then every line needs one. A first line
    ``label<TAB>items`` is taken as a header. Lines starting with ``#`` and
    blank lines are skipped and counted.

    Examples
    --------
    >>> s = read_sets(b"fruit\\tapple pear\\nmeat\\tsalami,chorizo\\n")
    >>> s.sets, s.labels
    ([['apple', 'pear'], ['salami', 'chorizo']], ['fruit', 'meat'])
    """
    data, name = _source_bytes(source, filename)
    kept, numbers, skipped = _item_lines(data, name, "sets")
    if kept and tuple(p.strip().lower() for p in kept[0].split("\t")) in _SET_HEADERS:
        kept, numbers = kept[1:], numbers[1:]
        if not kept:
            raise DataError(f"{name} has a header line but no sets below it.")
    if not kept:
        raise DataError(f"{name} has no sets, only blank or comment lines.")
    tabbed = np.array(["\t" in ln for ln in kept])
    result = SetData(name, sets=[])
    if tabbed.any() and not tabbed.all():
        j = int(np.flatnonzero(~tabbed)[0]) if tabbed.mean() > 0.5 else int(np.flatnonzero(tabbed)[0])
        has = "has no label" if tabbed.mean() > 0.5 else "has a label (a tab)"
        raise DataError(
            f"{name}, line {numbers[j]} {has} while most lines do not agree. Either every line "
            "starts with 'label<TAB>' or none does."
        )
    if tabbed.all():
        parts = [ln.split("\t", 1) for ln in kept]
        labels = [p[0].strip() for p in parts]
        empty = [numbers[i] for i, lab in enumerate(labels) if not lab]
        if empty:
            raise DataError(f"{name}, line {empty[0]}: the label before the tab is empty.")
        sets = [_split_items(p[1]) for p in parts]
        result.labels = labels
    else:
        sets = [_split_items(ln) for ln in kept]
    n_empty = sum(1 for s in sets if not s)
    if n_empty:
        result.notices.append(f"{n_empty} set{'s are' if n_empty > 1 else ' is'} empty (a label with no items).")
    if skipped:
        result.notices.append(f"Skipped {skipped} blank or comment line{'s' if skipped > 1 else ''}.")
    idx = _sample_rows(len(sets), max_sets, seed, result, "sets")
    if idx is not None:
        sets = [sets[i] for i in idx]
        if result.labels is not None:
            result.labels = [result.labels[i] for i in idx]
    result.sets = sets
    return result


def read_playlists(
    source: Any, filename: str | None = None, *, max_playlists: int = 500_000, seed: int = 0
) -> PlaylistData:
    """Read playlists, one per line, song ids separated by commas or whitespace.

    Returns a :class:`PlaylistData`, which behaves as a list of playlists.

    Examples
    --------
    >>> p = read_playlists(b"a b c\\nc,a\\n")
    >>> list(p)
    [['a', 'b', 'c'], ['c', 'a']]
    """
    data, name = _source_bytes(source, filename)
    kept, numbers, skipped = _item_lines(data, name, "playlists")
    if not kept:
        raise DataError(f"{name} has no playlists, only blank or comment lines.")
    playlists = [_split_items(ln.replace("\t", " ")) for ln in kept]
    result = PlaylistData(name, playlists=playlists)
    short = [numbers[i] for i, p in enumerate(playlists) if len(p) < 2]
    if len(short) == len(playlists):
        raise DataError(
            f"{name}: every playlist has fewer than 2 songs, so there is no transition to learn "
            f"from (line {short[0]}). Separate songs with spaces or commas."
        )
    if short:
        result.notices.append(
            f"{len(short)} playlist{'s have' if len(short) > 1 else ' has'} a single song and no "
            f"transition (line {short[0]}{', ...' if len(short) > 1 else ''}); kept, but they add nothing."
        )
    if skipped:
        result.notices.append(f"Skipped {skipped} blank or comment line{'s' if skipped > 1 else ''}.")
    idx = _sample_rows(len(playlists), max_playlists, seed, result, "playlists")
    if idx is not None:
        result.playlists = [playlists[i] for i in idx]
    return result


def read_song_tags(source: Any, filename: str | None = None) -> dict[str, list[str]]:
    """Read song tags: one song per line, ``song<TAB>tag1,tag2`` (a space may stand for the tab).

    Tags are separated by commas, semicolons or spaces. Blank and ``#`` lines
    are skipped. A song listed twice keeps the union of its tags.

    Examples
    --------
    >>> read_song_tags(b"s1\\trock,indie\\ns2 jazz\\n")
    {'s1': ['rock', 'indie'], 's2': ['jazz']}
    """
    data, name = _source_bytes(source, filename)
    kept, numbers, _ = _item_lines(data, name, "songs with their tags")
    if not kept:
        raise DataError(f"{name} has no songs, only blank or comment lines.")
    tags: dict[str, list[str]] = {}
    for ln, no in zip(kept, numbers):
        song, sep, rest = ln.strip().partition("\t") if "\t" in ln else ln.strip().partition(" ")
        found = [t for t in re.split(r"[,;\s]+", rest.strip()) if t]
        if not found:
            raise DataError(
                f"{name}, line {no}: song {song!r} has no tags. Write the song, a tab, then its tags "
                "separated by commas (e.g. 'song1<TAB>rock,indie')."
            )
        known = tags.setdefault(song, [])
        known.extend(t for t in found if t not in known)
    return tags


# --------------------------------------------------------------------------- tables and text


def read_table(
    source: Any, filename: str | None = None, *, max_rows: int = 1_000_000, seed: int = 0
) -> TableData:
    """Read a table (CSV, TSV or Parquet) for categorical data.

    The first line is taken as a header when it holds words above numbers or
    when no column is numeric. Numeric columns become floats; a column whose
    values are numbers except for a few words is an error that names the cell.

    Examples
    --------
    >>> t = read_table(b"day,tip\\nMon,1.5\\nTue,2\\n", "tips.csv")
    >>> t.frame.dtypes["tip"].kind, t.frame.shape
    ('f', (2, 2))
    """
    data, name = _source_bytes(source, filename)
    if _ext(name) == ".parquet" or data.startswith(b"PAR1"):
        if not data.startswith(b"PAR1"):
            raise DataError(f"{name} is named .parquet but is not a Parquet file. Rename it to .csv or .tsv.")
        try:
            frame = pd.read_parquet(io.BytesIO(data))
        except Exception as err:
            raise DataError(f"{name} is a damaged Parquet file ({err}).") from None
        if frame.empty:
            raise DataError(f"{name} has no rows.")
        frame.columns = _unique_names([str(c) for c in frame.columns])
        result = TableData(name, frame=frame)
        line_no = np.arange(1, len(frame) + 1)
    else:
        text = _decode(data, name, "a CSV or TSV table")
        grid = _text_grid(text, name, head_rows=50)
        line_no = grid.line_no
        header = _find_header(grid.head)
        if not header and len(grid.head) > 1:
            numeric_any = _number_cells(grid.head[1:]).all(axis=0).any()
            row0 = [str(v).strip() for v in grid.head[0]]
            header = not numeric_any and len(set(row0)) == len(row0)
        if header:
            names = _unique_names(list(grid.head[0]))
            line_no = line_no[1:]
            if len(line_no) == 0:
                raise DataError(f"{name} has a header line ({', '.join(names[:6])}) but no rows below it.")
        else:
            names = [f"column{i + 1}" for i in range(grid.head.shape[1])]
        X, numeric, text_frame, _ = _typed_columns(grid, name, header, line_no, names)
        frame = pd.concat([pd.DataFrame(X, columns=numeric), text_frame], axis=1)[list(range(len(names)))]
        frame.columns = names
        result = TableData(name, frame=frame)
    num = frame.select_dtypes("number")
    if num.shape[1]:
        inf_rows = np.isinf(num.to_numpy(dtype=np.float64)).any(axis=1)
        if inf_rows.any():
            n = int(inf_rows.sum())
            result.dropped["rows with an infinite value"] = n
            result.notices.append(
                f"Dropped {n} row{'s' if n > 1 else ''} with an infinite value "
                f"(line {line_no[inf_rows][0]}{', ...' if n > 1 else ''})."
            )
            frame = frame.loc[~inf_rows].reset_index(drop=True)
    n_missing = int(frame.isna().any(axis=1).sum())
    if n_missing:
        result.notices.append(
            f"{n_missing} row{'s have' if n_missing > 1 else ' has'} missing cells; they are kept, "
            "and each page says how it treats them."
        )
    idx = _sample_rows(len(frame), max_rows, seed, result, "rows")
    if idx is not None:
        frame = frame.iloc[idx].reset_index(drop=True)
    result.frame = frame
    return result


def read_documents(
    source: Any, filename: str | None = None, *, max_documents: int = 200_000, seed: int = 0
) -> DocumentData:
    """Read plain text with one document per line (blank lines skipped and counted).

    Text in a script written without spaces between words (Chinese, Japanese,
    Thai) is refused unless it is segmented, one space between words; see
    :func:`embedcore.words.check_word_spacing`.
    """
    from .words import check_word_spacing

    data, name = _source_bytes(source, filename)
    text = _decode(data, name, "a plain text file")
    lines = _lines(text)
    docs = [ln.strip() for ln in lines if ln.strip()]
    if not docs:
        raise DataError(f"{name} is empty. Put one document (a sentence or a paragraph) on each line.")
    check_word_spacing(docs, name)
    result = DocumentData(name, documents=docs)
    skipped = len(lines) - len(docs)
    if skipped:
        result.notices.append(f"Skipped {skipped} blank line{'s' if skipped > 1 else ''}.")
    idx = _sample_rows(len(docs), max_documents, seed, result, "documents")
    if idx is not None:
        result.documents = [docs[i] for i in idx]
    return result


def read_item_sets(
    vectors: Any,
    sets: Any,
    vectors_filename: str | None = None,
    sets_filename: str | None = None,
    *,
    seed: int = 0,
) -> ItemSets:
    """Item vectors (named by their first text column) and sets of those items.

    Items in the sets that have no vector are left out and counted in a
    notice; a sets file none of whose items has a vector is an error.
    """
    v = read_vectors(vectors, vectors_filename, seed=seed, max_rows=MAX_VECTOR_ROWS)
    s = read_sets(sets, sets_filename, seed=seed)
    if v.meta is None or v.meta.shape[1] == 0:
        names = [str(i) for i in range(len(v.X))]
        v.notices.append(f"{v.name} has no text column, so items are named by row number (0, 1, ...).")
    else:
        names = [str(x) for x in v.meta.iloc[:, 0]]
    index = pd.Index(names)
    if not index.is_unique:
        dup = index[index.duplicated()][0]
        raise DataError(f"{v.name}: the item {dup!r} appears more than once; each item needs one vector.")
    lengths = np.fromiter(map(len, s.sets), dtype=np.int64, count=len(s.sets))
    flat = list(chain.from_iterable(s.sets))
    known = index.get_indexer(flat) >= 0 if flat else np.zeros(0, dtype=bool)
    result = ItemSets(f"{v.name} + {s.name}", items=names, vectors=v.X, sets=s.sets, labels=s.labels)
    result.notices = v.notices + s.notices
    result.dropped = {**v.dropped, **s.dropped}
    if flat and not known.any():
        raise DataError(
            f"None of the items in {s.name} (e.g. {flat[0]!r}) has a vector in {v.name} "
            f"(items there look like {names[0]!r}). The sets must use the names in the vectors' first text column."
        )
    if not known.all():
        n_bad = int((~known).sum())
        first = flat[int(np.flatnonzero(~known)[0])]
        owner = np.repeat(np.arange(len(s.sets)), lengths)
        keep_flat = np.asarray(flat, dtype=object)[known]
        result.sets = [list(a) for a in np.split(keep_flat, np.searchsorted(owner[known], np.arange(1, len(s.sets))))]
        result.dropped["item occurrences without a vector"] = n_bad
        result.notices.append(
            f"{_plural(n_bad, 'item occurrence')} in {s.name} {'have' if n_bad > 1 else 'has'} no vector "
            f"(first: {first!r}); left out."
        )
    return result


# --------------------------------------------------------------------------- reports


@dataclass
class Report:
    """What a reader made of a file, for a person to check."""

    summary: dict[str, Any]
    columns: pd.DataFrame
    preview: pd.DataFrame
    notices: list[str]
    dropped: pd.DataFrame


def _dropped_frame(result) -> pd.DataFrame:
    d = getattr(result, "dropped", {}) or {}
    return pd.DataFrame({"reason": list(d), "rows": list(d.values())})


def _items_report(kind: str, groups: list[list[str]], labels, result, n_preview: int) -> Report:
    sizes = np.fromiter((len(g) for g in groups), dtype=np.int64, count=len(groups))
    distinct = len({x for g in groups for x in g})
    summary = {
        kind: len(groups),
        "distinct items": distinct,
        "items per line (mean)": round(float(sizes.mean()), 2) if len(sizes) else 0,
        "largest": int(sizes.max()) if len(sizes) else 0,
    }
    if labels is not None:
        summary["distinct labels"] = len(set(labels))
    preview = pd.DataFrame({"items": [" ".join(g[:30]) + (" ..." if len(g) > 30 else "") for g in groups[:n_preview]]})
    if labels is not None:
        preview.insert(0, "label", labels[:n_preview])
    counts = pd.Series([x for g in groups for x in g]).value_counts().head(10)
    columns = pd.DataFrame({"most frequent item": counts.index.astype(str), "count": counts.to_numpy()})
    return Report(summary, columns, preview, list(getattr(result, "notices", [])), _dropped_frame(result))


def describe(result: Any, n_preview: int = 20) -> Report:
    """Summarise any reader's (or bundled loader's) result for the Data page."""
    if isinstance(result, VectorData):
        n, d = result.X.shape
        meta_cols = [] if result.meta is None else list(result.meta.columns)
        summary = {"rows": n, "numeric columns": d, "metadata columns": len(meta_cols)}
        col_names = result.columns or [f"x{i}" for i in range(d)]
        shown = min(d, 50)
        columns = pd.DataFrame(
            {
                "column": meta_cols + col_names[:shown],
                "type": ["text (metadata)"] * len(meta_cols) + ["number"] * shown,
                "min": [None] * len(meta_cols) + list(np.round(result.X[:, :shown].min(axis=0), 4)),
                "max": [None] * len(meta_cols) + list(np.round(result.X[:, :shown].max(axis=0), 4)),
            }
        )
        preview = pd.DataFrame(result.X[:n_preview, :shown], columns=col_names[:shown])
        if result.meta is not None:
            preview = pd.concat([result.meta.iloc[:n_preview].reset_index(drop=True), preview], axis=1)
        return Report(summary, columns, preview, list(result.notices), _dropped_frame(result))
    if isinstance(result, TableData):
        f = result.frame
        summary = {"rows": len(f), "columns": f.shape[1], "rows with missing cells": int(f.isna().any(axis=1).sum())}
        columns = pd.DataFrame(
            {
                "column": [str(c) for c in f.columns],
                "type": ["number" if f[c].dtype.kind in "fiu" else "category/text" for c in f.columns],
                "distinct values": [int(f[c].nunique()) for c in f.columns],
                "missing": [int(f[c].isna().sum()) for c in f.columns],
            }
        )
        return Report(summary, columns, f.head(n_preview), list(result.notices), _dropped_frame(result))
    if isinstance(result, DocumentData):
        lengths = np.array([len(doc.split()) for doc in result.documents])
        summary = {"documents": len(lengths), "words": int(lengths.sum()), "words per document (mean)": round(float(lengths.mean()), 1)}
        preview = pd.DataFrame({"document": [doc[:200] + (" ..." if len(doc) > 200 else "") for doc in result.documents[:n_preview]]})
        return Report(summary, pd.DataFrame(), preview, list(result.notices), _dropped_frame(result))
    if isinstance(result, SetData):
        return _items_report("sets", result.sets, result.labels, result, n_preview)
    if isinstance(result, PlaylistData):
        rep = _items_report("playlists", result.playlists, None, result, n_preview)
        rep.summary["transitions"] = int(sum(max(len(p) - 1, 0) for p in result.playlists))
        return rep
    if hasattr(result, "sets") and hasattr(result, "vectors"):  # bundled item sets
        rep = _items_report("sets", result.sets, result.labels, result, n_preview)
        rep.summary["item vector dimension"] = int(result.vectors.shape[1])
        return rep
    if hasattr(result, "matrix") and hasattr(result, "labels"):  # bundled category graphs
        m = pd.DataFrame(result.matrix, index=result.labels, columns=result.labels)
        summary = {"categories": len(result.labels), "matrix": result.kind}
        return Report(summary, pd.DataFrame(), m.reset_index(names=""), [], _dropped_frame(result))
    raise TypeError(f"Cannot describe a {type(result).__name__}.")


# --------------------------------------------------------------------------- which kind of data

_BY_SUFFIX = {"npy": "vectors", "vec": "vectors", "w2v": "vectors", "parquet": "table"}
_EDGES = re.compile(r"^\W+|\W+$")
_WORD = re.compile(r"^[^\W\d_]+(?:['’-][^\W\d_]+)*$")


def guess_kind(names: tuple[str, ...], blobs: tuple[bytes, ...]) -> str:
    """What kind of data an upload most likely is, from its names and its first lines.

    Two files: a name with 'meta' is a projector pair (vectors), a name with
    'tag' is playlists with tags, anything else item vectors + sets. One file:
    by extension for binary formats; otherwise a delimited file with a header
    is vectors (all columns but labels numeric) or a table (a text column that
    repeats values); other text is playlists when its tokens look like ids
    (digits, underscores, or a name that says so), documents when they are words.

    Examples
    --------
    >>> guess_kind(("tips.csv",), (b"day,tip\\nMon,1\\nMon,2\\nMon,2\\nSat,3\\nSat,4\\nSat,5\\n",))
    'table'
    >>> guess_kind(("lists.txt", "song_tags.tsv"), (b"s1 s2\\n", b"s1\\trock\\n"))
    'playlists'
    """
    if len(names) > 1:
        low = [n.lower() for n in names]
        if any("meta" in n for n in low):
            return "vectors"
        if any("tag" in n for n in low):
            return "playlists"
        return "item_sets"
    name = names[0].lower()
    suffix = name.rsplit(".", 1)[-1] if "." in name else ""
    if suffix in _BY_SUFFIX:
        return _BY_SUFFIX[suffix]
    head = blobs[0][:20000].decode("utf-8", errors="replace").lstrip("\ufeff").splitlines()
    head = [ln for ln in head[:200] if ln.strip()]
    if not head:
        return "documents"
    for sep in ("\t", ","):
        widths = {len(ln.split(sep)) for ln in head[:50]}
        if len(widths) == 1 and widths.pop() >= 2 and (sep == "," or suffix in ("tsv", "tab")):
            rows = [ln.split(sep) for ln in head[1:50]] or [head[0].split(sep)]
            text_cols = [j for j in range(len(rows[0])) if not all(_is_number_text(r[j]) for r in rows)]
            if not text_cols:
                return "vectors"
            repeats = any(len({r[j] for r in rows}) < len(rows) / 2 for j in text_cols)
            return "table" if repeats and len(text_cols) < len(rows[0]) else "vectors"
    if suffix in ("csv", "tsv", "tab"):
        return "vectors"  # delimited, if ragged: the vector reader says which line to fix
    if "\t" in head[0] and all("\t" in ln for ln in head[:20]):
        return "sets"
    tokens = [t for ln in head for t in ln.replace(",", " ").split()]
    if all(_is_number_text(t) for t in tokens[1:]) and all(len(ln.split()) == 1 for ln in head):
        return "vectors"
    if any(w in name for w in ("playlist", "song", "track")):
        return "playlists"
    words = sum(bool(_WORD.match(_EDGES.sub("", t))) for t in tokens)
    return "documents" if words >= 0.7 * len(tokens) else "playlists"


def _is_number_text(cell: str) -> bool:
    """A cell that reads as a number, or an empty cell."""
    try:
        float(cell)
        return True
    except ValueError:
        return cell.strip() == ""
