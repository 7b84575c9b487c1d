"""Vectors: CSV/TSV, word2vec text, .npy (never unpickled), Parquet, JSON lines, Embedding Projector pairs.

Vectors held in one column (a Parquet list column, a CSV/TSV column of ``"[0.1, 0.2]"`` cells, a JSON
field holding a list) are read by :mod:`.list_columns`."""

from __future__ import annotations

import io
import re
from typing import Any

import numpy as np
import pandas as pd

from . import list_columns
from .results import DataError, VectorData, vector_rows
from .files import decode_bytes, file_extension, text_lines, sniff_binary, source_bytes, quote
from .text import number_cells, drop_invalid_rows, find_header, sample_lines, text_grid, typed_columns, unique_names

_W2V_HEADER = re.compile(r"^\s*(\d+)\s+(\d+)\s*$")
#: Numbers past which a Parquet table's float32 columns are kept as float32 (smaller tables are read as float64,
#: as every other format is).
FLOAT32_CELLS = 10_000_000
#: Extensions of JSON lines: one object per line.
_JSON_LINES = (".jsonl", ".ndjson")


def read_vectors(
    source: Any,
    filename: str | None = None,
    *,
    metadata: Any = None,
    metadata_filename: str | None = None,
    on_invalid: str = "drop",
    max_rows: int | None = None,
    seed: int = 0,
) -> VectorData:
    """Read a matrix of vectors with optional per-row metadata.

    Accepted formats: CSV/TSV/whitespace tables with or without a header line
    (non-numeric columns become metadata), ``.npy`` (real numbers or True/False;
    complex numbers are refused, pickles never loaded), the word2vec text format (``word v1 v2 ...``
    with an optional ``count dim`` first line), Parquet, JSON lines (``.jsonl``, ``.ndjson``: one
    object per line), and the Embedding Projector pair (a vectors TSV with no header plus
    ``metadata``, a TSV with a header).

    Vectors may also be held in one column, as sentence-transformers and
    Hugging Face datasets write them: a Parquet list (or fixed-size list)
    column, a CSV/TSV column of ``"[0.1, 0.2, ...]"`` cells, a JSON field
    holding a list. That column is then ``X`` and every other column,
    numeric ones included, metadata; a row whose list is missing is dropped
    and counted, lists of different lengths are an error naming the row.

    Parameters
    ----------
    source, filename : file path, bytes or file-like, and the name to report.
    metadata, metadata_filename : the Embedding Projector metadata file, if any.
    on_invalid : ``"drop"`` rows with missing/infinite values (and say so) or ``"error"``.
    max_rows : larger files are sampled at random to this many rows, with a notice (default: by the table's
        width, :func:`~embedcore.io.results.vector_rows`: 200,000 rows of wide vectors, up to 1,000,000 of narrow).
    seed : seed of that sample.

    Examples
    --------
    >>> v = read_vectors(b"x,y,name\\n1,2,a\\n3,4,b\\n", "points.csv")
    >>> v.X.shape, list(v.meta["name"])
    ((2, 2), ['a', 'b'])
    >>> v = read_vectors(b'title,embedding\\na,"[0.1, 0.2, 0.3]"\\nb,"[0.4, 0.5, 0.6]"\\n', "e.csv")
    >>> v.X.shape, list(v.meta["title"])
    ((2, 3), ['a', 'b'])
    """
    if on_invalid not in ("drop", "error"):
        raise DataError(f"on_invalid must be 'drop' or 'error', not {on_invalid!r}.")
    data, name = source_bytes(source, filename)
    ext = file_extension(name)
    if ext == ".npy" or (data.startswith(b"\x93NUMPY") and ext not in (".csv", ".tsv", ".txt")):
        result = _read_npy(data, name, on_invalid)
    elif ext == ".parquet" or (data.startswith(b"PAR1") and ext not in (".csv", ".tsv", ".txt")):
        result = _read_parquet_vectors(data, name, on_invalid)
    elif ext in _JSON_LINES or (ext not in (".csv", ".tsv", ".tab", ".vec", ".w2v")
                                and data.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] == b"{"):
        result = list_columns.read_json_lines(data, name, on_invalid)
    else:
        notices: list[str] = []
        text = decode_bytes(data, name, "a CSV/TSV or word2vec text file", notices)
        result = _read_vector_text(text, name, on_invalid)
        result.notices[:0] = notices
    if metadata is not None:
        _attach_projector_metadata(result, metadata, metadata_filename)
    limit = vector_rows(result.X.shape[1]) if max_rows is None else max_rows
    idx = sample_lines(len(result.X), limit, seed, result, "rows")
    if idx is not None:
        result.X = result.X[idx]
        if result.meta is not None:
            result.meta = result.meta.iloc[idx].reset_index(drop=True)
    return result


def _read_npy(data: bytes, name: str, on_invalid: str) -> VectorData:
    if not data.startswith(b"\x93NUMPY"):
        found = sniff_binary(data)
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
    keep = drop_invalid_rows(X, np.arange(1, len(X) + 1), name, on_invalid, result, unit="row")
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
    alone = _one_list_column(text, name, on_invalid)
    if alone is not None:
        return alone
    nonblank = [ln for ln in text_lines(text)[:50] if ln.strip()]
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
    grid = text_grid(text, name, head_rows=50)
    line_no = grid.line_no + 1 if w2v else grid.line_no
    word_format = w2v is not None or (file_extension(name) in (".vec", ".w2v")) or word_lines(grid.head, grid.sep)
    header = False if word_format else (find_header(grid.head) or _list_header(grid.head))
    if header:
        names = unique_names(list(grid.head[0]))
        line_no = line_no[1:]
        if len(line_no) == 0:
            raise DataError(
                f"{name} has a header line ({', '.join(names[:6])}) but no data rows below it."
            )
    elif word_format:
        names = ["word"] + [f"x{i}" for i in range(grid.head.shape[1] - 1)]
    else:
        names = [f"x{i}" for i in range(grid.head.shape[1])]
    X, numeric, text_frame, textcols = typed_columns(
        grid, name, header, line_no, names, text_columns=(0,) if word_format else ()
    )
    if word_format and len(textcols) > 1:
        j = textcols[1]
        raise DataError(
            f"{name}, column {j + 1}: word2vec lines must be a word followed by numbers; "
            f"found {quote(text_frame[j].iloc[0])}."
        )
    lists = [j for j in textcols if list_columns.looks_like_lists(text_frame[j].head(20))]
    if lists and not word_format:
        cols = list_columns.Columns(len(line_no))
        for c, label in enumerate(names):
            if c in numeric:
                cols.add(label, "number", X[:, numeric.index(c)])
            elif c in lists:
                cols.add(label, "list", list_columns.parse_list_cells(text_frame[c], name, label, line_no))
            else:
                cols.add(label, "text", text_frame[c].to_numpy(object))
        result = list_columns.assemble(cols, name, on_invalid, line_no, unit="line")
        result.notices[:0] = grid.notices or []
        return result
    result = VectorData(name, X=np.empty((0, 0)))
    result.notices.extend(grid.notices or [])
    if not numeric:
        shown = quote(", ".join(names[:6]), 80)
        raise DataError(
            f"{name} has no numeric columns (columns: {shown}). Vectors need at least one column of numbers"
            + (f"; its fields were split at {'tabs' if grid.sep == chr(9) else repr(grid.sep or ' ')}, "
               "check that this is its separator." if len(names) > 1 else
               "; it reads as one column: if it is text, read it as documents.")
        )
    empty = [names[c] for j, c in enumerate(numeric) if np.isnan(X[:, j]).all()]
    if empty and len(empty) < len(numeric):
        # a column with no value at all would drop every row: leave it out and say which
        drop = np.isin(numeric, [c for c in numeric if names[c] in empty])
        X, numeric = X[:, ~drop], [c for c, d in zip(numeric, drop) if not d]
        result.notices.append(f"Column{'s' if len(empty) > 1 else ''} {quote(', '.join(empty))} of {name} "
                              f"{'have' if len(empty) > 1 else 'has'} no value in any row and "
                              f"{'are' if len(empty) > 1 else 'is'} left out.")
    most = names[numeric[int(np.argmax(np.isnan(X).sum(axis=0)))]] if X.size else ""
    keep = drop_invalid_rows(X, line_no, name, on_invalid, result)
    result.source_rows = np.flatnonzero(keep)
    X = X[keep] if not keep.all() else X
    if len(X) == 0:
        raise DataError(f"{name}: every row has a missing value, so no vector is left; column {quote(most)} "
                        "has the most. Fill in its empty cells or delete the column.")
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


def _list_header(head: np.ndarray) -> bool:
    """A first row of names above a column of bracketed lists (which find_header cannot see as numbers)."""
    if len(head) < 2 or any(list_columns.looks_like_lists([c]) for c in head[0]):
        return False
    return any(list_columns.looks_like_lists(head[1:, j]) for j in range(head.shape[1]))


def _one_list_column(text: str, name: str, on_invalid: str) -> VectorData | None:
    """A file whose every line is one bracketed list (quoted or not), under an optional name: its vectors, or None."""
    lines = text_lines(text)
    keep = [i for i, ln in enumerate(lines) if ln.strip()]
    if len(keep) < 1:
        return None

    def unquoted(line: str) -> str:
        line = line.strip()
        return line[1:-1].replace('""', '"') if len(line) >= 2 and line[0] == line[-1] == '"' else line

    first = unquoted(lines[keep[0]])
    header = not list_columns.looks_like_lists([first])
    if header and (any(sep in first for sep in ",\t;|") or len(keep) < 2):
        return None
    rows = keep[int(header):]
    head = [unquoted(lines[i]) for i in rows[:50]]
    if not all(list_columns.looks_like_lists([c]) for c in head):
        return None
    label = unique_names([first])[0] if header else "vector"
    line_no = np.asarray(rows, dtype=np.int64) + 1
    cells = [unquoted(lines[i]) for i in rows]
    cols = list_columns.Columns(len(cells))
    cols.add(label, "list", list_columns.parse_list_cells(cells, name, label, line_no))
    return list_columns.assemble(cols, name, on_invalid, line_no, unit="line")


def word_lines(head: np.ndarray, sep: str | None) -> bool:
    """Lines of a word and its numbers (GloVe, fastText .vec, word2vec text without its count line).

    Whitespace-separated, every field after the first a number on every line
    (the first line too, so a header of names is not one), and the first field
    not a number on most lines.

    Examples
    --------
    >>> import numpy as np
    >>> words = np.array([["the", "0.1", "0.2"], ["of", "-1", "3e-2"]])
    >>> word_lines(words, None), word_lines(np.array([["word", "x", "y"], ["the", "0.1", "0.2"]]), None)
    (True, False)
    """
    if sep not in (None, " ") or head.shape[1] < 3 or len(head) < 1:
        return False
    ok = number_cells(head)
    rest = ok[:, 1:].all()
    plain = pd.to_numeric(pd.Series(head[:, 1:].ravel(), dtype=object), errors="coerce").notna().all()
    return bool(rest and plain and (~ok[:, 0]).mean() >= 0.5)


def _read_parquet_vectors(data: bytes, name: str, on_invalid: str) -> VectorData:
    """A Parquet file's numeric columns as vectors and its other columns as labels."""
    from .tables import parquet_frame

    plan = list_columns.parquet_list_plan(data) if data.startswith(b"PAR1") else None
    if plan is not None and (plan[0] or not plan[1]):
        # a column of lists is the vectors; without any numeric column, a text column may hold "[0.1, ...]"
        return list_columns.read_parquet_lists(data, name, on_invalid, plan)
    frame = parquet_frame(data, name)
    numeric = [c for c in frame.columns if frame[c].dtype.kind in "biuf"]
    if not numeric:
        raise DataError(f"{name} has no numeric columns (columns: {quote(', '.join(map(str, frame.columns[:6])))}). "
                        "Vectors need at least one column of numbers; read it as a table instead.")
    # a big table stored as float32 stays float32: 200,000 x 256 is 205 MB so, 410 MB as float64, and the read
    # must fit in its memory budget with the file's bytes and the decoded table beside it
    single = len(frame) * len(numeric) >= FLOAT32_CELLS and all(frame[c].dtype == np.float32 for c in numeric)
    X = frame[numeric].to_numpy(np.float32 if single else np.float64)
    result = VectorData(name, X=X, columns=[str(c) for c in numeric])
    others = [c for c in frame.columns if c not in numeric]
    keep = drop_invalid_rows(X, np.arange(1, len(X) + 1), name, on_invalid, result, unit="row")
    result.X = np.ascontiguousarray(X if keep.all() else X[keep])
    result.source_rows = np.flatnonzero(keep)
    if len(result.X) == 0:
        raise DataError(f"{name}: every row has a missing value, so no vector is left. Fill in the empty cells.")
    if others:
        result.meta = frame.loc[keep, others].astype(object).where(frame.loc[keep, others].notna(), None)
        result.meta = result.meta.map(lambda v: None if v is None else str(v)).reset_index(drop=True)
        result.meta.columns = [str(c) for c in others]
    return result


def _attach_projector_metadata(result: VectorData, metadata: Any, metadata_filename: str | None):
    data, mname = source_bytes(metadata, metadata_filename)
    text = decode_bytes(data, mname, "a metadata TSV")
    lines = [ln for ln in text_lines(text) if ln.strip()]
    if not lines:
        raise DataError(f"{mname} is empty; it needs a header line and one line per vector.")
    if "\t" in lines[0]:
        cells = text_grid(text, mname).head
        meta = pd.DataFrame(cells[1:], columns=unique_names(list(cells[0])))
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
