"""Vectors held in one column, as sentence-transformers and Hugging Face datasets write them.

A Parquet list, large-list or fixed-size-list column of numbers; a CSV or TSV
column whose cells are ``"[0.1, 0.2, ...]"``; JSON lines (one object per line)
whose field is a list of numbers. The list column becomes ``X``, every other
column becomes metadata, aligned with the rows kept. A row whose list is
missing (null, empty, an empty cell) is dropped and counted like a row with a
missing value; lists of different lengths are an error naming the column, the
first row that differs and both lengths. The dimension is not capped: a list
is held only by the budgets on the whole file's bytes.

Cells of text are parsed without ``eval``: the bracketed numbers of every
cell are joined and read by NumPy in one call (the fallback, for a cell with
``null`` or a word in it, splits them with pandas and names the cell).
"""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from . import budgets
from .files import decode_bytes, plural, quote, text_lines
from .results import NA_TOKENS, DataError, VectorData
from .text import drop_invalid_rows, unique_names

#: A cell opening a bracketed list of numbers (or an empty list).
_LIST_START = re.compile(r"^\s*\[\s*(?:[-+]?(?:\d|\.\d|nan\b|inf)|\])", re.I)
#: A JSON field whose value is a list opening with a number: ``"embedding": [0.1``.
JSON_LIST_FIELD = re.compile(r'"((?:[^"\\]|\\.)*)"\s*:\s*\[\s*[-+]?(?:\d|\.\d)')


@dataclass
class Columns:
    """A file's columns by kind: ``list`` (lengths, values), ``number`` (float64) or ``text`` (str or None).

    Examples
    --------
    >>> cols = Columns(2)
    >>> cols.add("title", "text", ["a", "b"])
    >>> cols.names, cols.kinds
    (['title'], ['text'])
    """

    n: int
    names: list[str] = field(default_factory=list)
    kinds: list[str] = field(default_factory=list)
    data: list = field(default_factory=list)

    def add(self, name: str, kind: str, values) -> None:
        self.names.append(name)
        self.kinds.append(kind)
        self.data.append(values)


def looks_like_lists(cells) -> bool:
    """Whether a column of text holds bracketed lists of numbers (judged on its first 20 filled cells).

    Examples
    --------
    >>> looks_like_lists(["[0.1, 0.2]", None, "[1e-3, -2]"]), looks_like_lists(["[a]", "[b]"])
    (True, False)
    """
    seen = 0
    for cell in cells:
        if cell is None or (isinstance(cell, float) and np.isnan(cell)):
            continue
        text = str(cell).strip()
        if not text or text.lower() in NA_TOKENS:
            continue
        if not (_LIST_START.match(text) and text.endswith("]")):
            return False
        seen += 1
        if seen >= 20:
            break
    return seen > 0


def _row(j: int, line_no: np.ndarray | None) -> str:
    """Row ``j`` (0-based) as a message names it: 1-based, with its line when that differs."""
    if line_no is None or int(line_no[j]) == j + 1:
        return f"row {j + 1}"
    return f"row {j + 1} (line {int(line_no[j])})"


def parse_list_cells(cells, name: str, column: str, line_no: np.ndarray | None = None):
    """Bracketed lists of numbers in cells of text, as the lengths of every row's list and all their numbers.

    Numbers are separated by commas (``[0.1, 0.2]``, JSON) or by whitespace
    (``[0.1 0.2]``, NumPy's own printing). A missing cell is a length of -1,
    an empty list ``[]`` a length of 0; a ``null`` or ``nan`` inside a list is NaN.

    Returns
    -------
    lengths : ndarray of int64
    values : ndarray of float64
        The numbers of every list, in row order.

    Raises
    ------
    DataError
        For a cell that is not a list of numbers, naming its row, its column and the value.

    Examples
    --------
    >>> lengths, values = parse_list_cells(["[0.5, 1]", "", "[2, -3e-1]"], "v.csv", "embedding")
    >>> lengths.tolist(), values.tolist()
    ([2, -1, 2], [0.5, 1.0, 2.0, -0.3])
    >>> parse_list_cells(["[1, 2]", "[3, two]"], "v.csv", "embedding")
    Traceback (most recent call last):
    ...
    embedcore.exceptions.DataError: v.csv, row 2, column 'embedding': 'two' is not a number; each cell of a list \
column holds numbers in brackets, such as [0.1, 0.2]. Fix the cell or delete the row.
    """
    # per cell only what is cheap (20,000 cells), the numbers of all cells in one parse
    texts = [None if c is None or (isinstance(c, float) and c != c) else str(c).strip() for c in cells]
    missing = np.fromiter((t is None or (len(t) <= 10 and t.lower() in NA_TOKENS) for t in texts), bool, len(texts))
    rows = np.flatnonzero(~missing)
    inner = []
    for j in rows:
        t = texts[j]
        if t[0] != "[" or t[-1] != "]":
            raise DataError(f"{name}, {_row(j, line_no)}, column {quote(column)}: {quote(t, 40)} is not a list of "
                            "numbers in brackets, as the column's other cells are. Write it as [0.1, 0.2, ...] or "
                            "leave the cell empty.")
        inner.append(t[1:-1])
    for k, c in enumerate(inner):
        if "[" in c or "..." in c:
            j = int(rows[k])
            if "[" in c:
                raise DataError(f"{name}, {_row(j, line_no)}, column {quote(column)}: a list inside a list "
                                f"({quote(texts[j], 40)}); each cell holds one vector, a flat list of numbers.")
            if "..." in c:
                raise DataError(f"{name}, {_row(j, line_no)}, column {quote(column)}: the list is shortened with "
                                "'...', as NumPy prints a long array, so its numbers are not all in the file. Write "
                                "each vector whole (vector.tolist(), or save the table as Parquet).")
    comma = any("," in c for c in inner)
    if comma:
        counts = np.fromiter((c.count(",") + 1 if c and not c.isspace() else 0 for c in inner), np.int64, len(inner))
        numbers = ",".join(c for c, k in zip(inner, counts) if k).replace("\n", " ").replace(",", "\n")
    else:  # NumPy's printing: numbers between spaces, lines wrapped
        counts = np.fromiter((len(c.split()) for c in inner), np.int64, len(inner))
        numbers = "\n".join(" ".join(inner).split())
    values = _numbers(numbers, int(counts.sum()), (rows, counts), name, column, line_no)
    lengths = np.full(len(texts), -1, dtype=np.int64)
    lengths[rows] = counts
    return lengths, values


def _numbers(text: str, total: int, cells: tuple[np.ndarray, np.ndarray], name: str, column: str,
             line_no: np.ndarray | None) -> np.ndarray:
    """Numbers on lines of their own, parsed by pandas' C parser at once; ``null`` and ``nan`` are NaN."""
    if total == 0:
        return np.empty(0)
    col = pd.read_csv(io.StringIO(text), header=None, names=[0], engine="c", skip_blank_lines=False,
                      quoting=csv.QUOTE_NONE, na_values=["none", "None", "NONE", "-"], keep_default_na=True)[0]
    if len(col) != total:
        raise DataError(f"{name}, column {quote(column)}: cannot split its lists into numbers (found {len(col):,} "
                        f"instead of {total:,}). Write each cell as [0.1, 0.2, ...].")
    if col.dtype.kind in "fiub":
        return col.to_numpy(np.float64)
    tokens = col.astype(object).where(col.notna(), "").astype(str).str.strip()
    values = pd.to_numeric(tokens, errors="coerce").to_numpy(np.float64)
    wrong = np.isnan(values) & ~tokens.str.lower().isin(NA_TOKENS).to_numpy()
    if wrong.any():
        k = int(np.flatnonzero(wrong)[0])
        j = int(np.repeat(*cells)[k])  # the row of the k-th number
        raise DataError(f"{name}, {_row(j, line_no)}, column {quote(column)}: {quote(tokens.iloc[k], 40)} is not a "
                        "number; each cell of a list column holds numbers in brackets, such as [0.1, 0.2]. Fix the "
                        "cell or delete the row.")
    return values


def stack_lists(lengths: np.ndarray, values: np.ndarray, name: str, column: str,
                line_no: np.ndarray | None = None) -> np.ndarray:
    """Every row's list as one row of an n x d array; a missing or empty list is a row of NaN.

    Parameters
    ----------
    lengths : ndarray of int
        The length of every row's list, -1 where the list is missing.
    values : ndarray
        The numbers of all lists, in row order.
    name, column : str
        The file and the column, for messages.
    line_no : ndarray of int, optional
        The line each row starts on, named in messages when it is not the row's number.

    Raises
    ------
    DataError
        When the lists' lengths differ (the first row that differs and both lengths are named),
        or when no row has a list.

    Examples
    --------
    >>> import numpy as np
    >>> stack_lists(np.array([2, -1, 2]), np.array([1.0, 2.0, 3.0, 4.0]), "v.parquet", "embedding").tolist()
    [[1.0, 2.0], [nan, nan], [3.0, 4.0]]
    >>> stack_lists(np.array([2, 3]), np.arange(5.0), "v.parquet", "embedding")
    Traceback (most recent call last):
    ...
    embedcore.exceptions.DataError: v.parquet, column 'embedding': row 2 holds a list of 3 numbers, but row 1 holds \
2. Every vector in the column needs the same length (1 row differs).
    """
    lengths = np.asarray(lengths, dtype=np.int64)
    present = lengths > 0
    if not present.any():
        raise DataError(f"{name}, column {quote(column)}: every list is missing or empty, so there is no vector. "
                        "Fill the column with lists of numbers.")
    first = int(np.argmax(present))
    d = int(lengths[first])
    differ = np.flatnonzero(present & (lengths != d))
    if differ.size:
        j = int(differ[0])
        raise DataError(f"{name}, column {quote(column)}: {_row(j, line_no)} holds a list of "
                        f"{plural(int(lengths[j]), 'number')}, "
                        f"but {_row(first, line_no)} holds {d}. Every vector in the column needs the same length "
                        f"({plural(differ.size, 'row')} differ{'s' if differ.size == 1 else ''}).")
    values = np.asarray(values, dtype=np.float64)
    X = np.full((len(lengths), d), np.nan)
    X[present] = values.reshape(-1, d)  # a missing or empty list holds no number
    return X


def _number_text(values: np.ndarray) -> np.ndarray:
    """Numbers as labels: whole numbers without '.0', missing as None."""
    out = np.empty(len(values), dtype=object)
    for i, v in enumerate(values.tolist()):
        out[i] = None if v != v else (str(int(v)) if float(v).is_integer() and abs(v) < 2**53 else repr(v))
    return out


def assemble(columns: Columns, name: str, on_invalid: str, line_no: np.ndarray | None = None,
             unit: str = "row") -> VectorData:
    """Vectors from a file's typed columns: the first list column, or else every numeric column, as ``X``.

    The other columns become ``meta`` (numbers written as text), aligned with
    the rows kept; rows with a missing or infinite value are dropped and counted.

    Examples
    --------
    >>> import numpy as np
    >>> cols = Columns(2)
    >>> cols.add("title", "text", np.array(["a", "b"], dtype=object))
    >>> cols.add("embedding", "list", (np.array([2, -1]), np.array([0.5, 1.5])))
    >>> v = assemble(cols, "v.parquet", "drop")
    >>> v.X.tolist(), v.meta["title"].tolist(), v.dropped
    ([[0.5, 1.5]], ['a'], {'rows with a missing value': 1})
    """
    names = unique_names([str(c) for c in columns.names])
    lists = [i for i, k in enumerate(columns.kinds) if k == "list"]
    numbers = [i for i, k in enumerate(columns.kinds) if k == "number"]
    result = VectorData(name, X=np.empty((0, 0)))
    rows = np.arange(1, columns.n + 1) if line_no is None else line_no
    if lists:
        v = lists[0]
        X = stack_lists(*columns.data[v], name, names[v], line_no)
        col_names = [f"{names[v]}[{i}]" for i in range(X.shape[1])]
        if len(lists) > 1:
            shown = ", ".join(quote(names[i], 40) for i in lists)
            result.notices.append(f"{name} has {len(lists)} columns of lists of numbers ({shown}); the vectors are "
                                  f"the first, {quote(names[v], 40)}, and the others are left out.")
        if numbers:
            shown = ", ".join(quote(names[i], 40) for i in numbers[:6]) + (", ..." if len(numbers) > 6 else "")
            what = (f"numeric column {shown} is kept as a label" if len(numbers) == 1 else
                    f"{len(numbers)} numeric columns ({shown}) are kept as labels")
            result.notices.append(f"The vectors of {name} are the lists in column {quote(names[v], 40)}; its {what}.")
        meta_cols = [i for i in range(len(names)) if i not in lists]
    else:
        if not numbers:
            shown = quote(", ".join(names[:6]), 80)
            raise DataError(f"{name} has no numeric field or list of numbers (fields: {shown}). Vectors need a "
                            "list of numbers in one field, such as \"embedding\": [0.1, 0.2], or numeric fields.")
        X = np.column_stack([columns.data[i] for i in numbers]).astype(np.float64, copy=False)
        col_names = [names[i] for i in numbers]
        meta_cols = [i for i in range(len(names)) if i not in numbers]
    keep = drop_invalid_rows(X, rows, name, on_invalid, result, unit=unit)
    result.source_rows = np.flatnonzero(keep)
    result.X = np.ascontiguousarray(X[keep] if not keep.all() else X)
    if len(result.X) == 0:
        raise DataError(f"{name}: every row has a missing value, so no vector is left. Fill in the empty cells.")
    result.columns = col_names
    if meta_cols:
        meta = {}
        for i in meta_cols:
            values = columns.data[i]
            meta[names[i]] = _number_text(values[keep]) if columns.kinds[i] == "number" else \
                np.asarray(values, dtype=object)[keep]
        result.meta = pd.DataFrame(meta, dtype=object)
    return result


# --------------------------------------------------------------------------- Arrow tables (Parquet, JSON lines)


def _numeric_type(t) -> bool:
    import pyarrow as pa

    return pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_boolean(t) or pa.types.is_decimal(t)


def numeric_list_type(t) -> bool:
    """Whether an Arrow type is a list (plain, large or fixed-size) of numbers.

    Examples
    --------
    >>> import pyarrow as pa
    >>> numeric_list_type(pa.list_(pa.float32(), 64)), numeric_list_type(pa.list_(pa.string()))
    (True, False)
    """
    import pyarrow as pa

    lists = pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t)
    return bool(lists and _numeric_type(t.value_type))


def _text(values: list) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    for i, v in enumerate(values):
        out[i] = None if v is None else (v if isinstance(v, str) else
                                         json.dumps(v, default=str) if isinstance(v, (dict, list)) else str(v))
    return out


def arrow_columns(table, name: str, line_no: np.ndarray | None = None) -> Columns:
    """An Arrow table's columns typed for :func:`assemble`: lists of numbers, numbers, text.

    A text column of bracketed lists (``"[0.1, 0.2]"``) is read as a list column.

    Examples
    --------
    >>> import pyarrow as pa
    >>> table = pa.table({"title": ["a", "b"], "embedding": pa.array([[1, 2], [3, 4]], pa.list_(pa.float32(), 2))})
    >>> cols = arrow_columns(table, "v.parquet")
    >>> cols.kinds, cols.data[1][0].tolist()
    (['text', 'list'], [2, 2])
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    cols = Columns(table.num_rows)
    for fld, chunked in zip(table.schema, table.columns):
        t = fld.type
        arr = chunked.combine_chunks() if isinstance(chunked, pa.ChunkedArray) else chunked
        if numeric_list_type(t):
            lengths = pc.list_value_length(arr).to_numpy(zero_copy_only=False)
            lengths = np.where(np.isnan(lengths.astype(np.float64)), -1, lengths).astype(np.int64)
            flat = pc.cast(pc.list_flatten(arr), pa.float64())
            cols.add(fld.name, "list", (lengths, flat.to_numpy(zero_copy_only=False)))
        elif _numeric_type(t):
            cols.add(fld.name, "number", pc.cast(arr, pa.float64()).to_numpy(zero_copy_only=False))
        elif pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t):
            text = np.asarray(arr.to_pylist(), dtype=object)
            if looks_like_lists(text):
                cols.add(fld.name, "list", parse_list_cells(text, name, fld.name, line_no))
            else:
                cols.add(fld.name, "text", text)
        elif pa.types.is_null(t):
            cols.add(fld.name, "text", np.full(len(arr), None, dtype=object))
        else:
            cols.add(fld.name, "text", _text(arr.to_pylist()))
    return cols


def check_parquet_lists(meta, name: str, list_leaves: set[str]) -> None:
    """:func:`embedcore.io.budgets.check_parquet`'s budgets on a Parquet footer, a list of numbers exempt from the
    per-cell one: an embedding of 16,384 numbers is one vector, not a long text. Its bytes count in the table's.

    Examples
    --------
    >>> import io
    >>> import pyarrow as pa, pyarrow.parquet as pq
    >>> box = io.BytesIO()
    >>> pq.write_table(pa.table({"e": pa.array([[0.5] * 20_000], pa.list_(pa.float64()))}), box)
    >>> check_parquet_lists(pq.ParquetFile(box).metadata, "wide.parquet", {"e.list.element"})  # 160 kB in one cell
    """
    if meta.num_columns > budgets.MAX_COLUMNS:
        raise DataError(f"{name} has {meta.num_columns:,} columns; the lab reads tables of up to "
                        f"{budgets.MAX_COLUMNS:,} columns. Keep the columns you need, or store a vector as one list "
                        "column per row.")
    total = sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))
    if total > budgets.MAX_TABLE_BYTES:
        raise DataError(f"{name} holds {total / 2**30:.1f} GB of data once decoded ({meta.num_rows:,} rows x "
                        f"{meta.num_columns:,} columns); the lab reads tables of up to "
                        f"{budgets.MAX_TABLE_BYTES / 2**30:.1f} GB. Keep the columns you need or a sample of the rows.")
    rows = max(meta.num_rows, 1)
    for j in range(meta.num_columns):
        column = meta.schema.column(j).path
        if column in list_leaves:
            continue
        size = sum(meta.row_group(i).column(j).total_uncompressed_size for i in range(meta.num_row_groups))
        if size / rows > budgets.MAX_CELL_CHARS:
            raise DataError(f"{name}: column {column!r} holds {size:,} bytes in {rows:,} row{'s' if rows > 1 else ''}, "
                            f"so a cell holds more than the {budgets.MAX_CELL_CHARS:,} characters the lab takes in one "
                            "cell. Shorten the text, or leave the column out.")


def parquet_list_plan(data: bytes):
    """What a Parquet file's schema says about list columns, read from its footer only.

    Returns
    -------
    plan : tuple or None
        None when the file cannot be read (the table reader says why); else the
        names of its list-of-numbers columns, of its numeric columns, of the
        columns to read (index columns pandas wrote are left out) and its footer.

    Examples
    --------
    >>> import io
    >>> import pandas as pd
    >>> box = io.BytesIO()
    >>> pd.DataFrame({"title": ["a"], "embedding": [[0.1, 0.2]]}).to_parquet(box)
    >>> parquet_list_plan(box.getvalue())[:3]
    (['embedding'], [], ['title', 'embedding'])
    """
    import pyarrow.parquet as pq

    try:
        pf = pq.ParquetFile(io.BytesIO(data))
        schema = pf.schema_arrow
    except Exception:
        return None
    index = set()
    try:
        pandas_meta = schema.pandas_metadata or {}
        index = {c for c in pandas_meta.get("index_columns", []) if isinstance(c, str)}
    except Exception:
        pass
    fields = [f for f in schema if f.name not in index]
    lists = [f.name for f in fields if numeric_list_type(f.type)]
    numbers = [f.name for f in fields if _numeric_type(f.type)]
    return lists, numbers, [f.name for f in fields], pf.metadata


def read_parquet_lists(data: bytes, name: str, on_invalid: str, plan) -> VectorData:
    """A Parquet file whose vectors are in one column: its list column (or a text column of bracketed lists).

    Only the columns used are decoded: a second list column is left out unread.

    Examples
    --------
    >>> import io
    >>> import numpy as np, pandas as pd
    >>> box = io.BytesIO()
    >>> frame = pd.DataFrame({"title": ["a", "b"], "embedding": [np.array([0.1, 0.2]), np.array([0.3, 0.4])]})
    >>> frame.to_parquet(box)
    >>> v = read_parquet_lists(box.getvalue(), "e.parquet", "drop", parquet_list_plan(box.getvalue()))
    >>> v.X.tolist(), v.meta["title"].tolist(), v.columns
    ([[0.1, 0.2], [0.3, 0.4]], ['a', 'b'], ['embedding[0]', 'embedding[1]'])
    """
    import pyarrow.parquet as pq

    lists, numbers, fields, meta = plan
    leaves = {meta.schema.column(j).path for j in range(meta.num_columns)
              if any(meta.schema.column(j).path.startswith(f"{c}.") for c in lists)}
    check_parquet_lists(meta, name, leaves)
    wanted = [c for c in fields if c not in lists[1:]]  # the first list column is the vectors
    try:
        table = pq.ParquetFile(io.BytesIO(data)).read(columns=wanted, use_pandas_metadata=False)
    except Exception as err:
        raise DataError(f"{name} is a damaged Parquet file ({quote(str(err), 80)}). Save it again.") from None
    if table.num_rows == 0:
        raise DataError(f"{name} has no rows.")
    cols = arrow_columns(table, name)
    if not any(k == "list" for k in cols.kinds) and not any(k == "number" for k in cols.kinds):
        raise DataError(f"{name} has no numeric columns (columns: {quote(', '.join(fields[:6]))}). Vectors need at "
                        "least one column of numbers or a column of lists of numbers; read it as a table instead.")
    result = assemble(cols, name, on_invalid)
    if len(lists) > 1:
        shown = ", ".join(quote(c, 40) for c in lists)
        result.notices.insert(0, f"{name} has {len(lists)} columns of lists of numbers ({shown}); the vectors are "
                                 f"the first, {quote(lists[0], 40)}, and the others are left out.")
    return result


# --------------------------------------------------------------------------- JSON lines


def read_json_lines(data: bytes, name: str, on_invalid: str = "drop") -> VectorData:
    """JSON lines (one object per line): a field holding a list of numbers is the vectors, the other fields labels;
    without one, the numeric fields are the vectors, as in a CSV table.

    Examples
    --------
    >>> v = read_json_lines(b'{"title": "a", "embedding": [0.1, 0.2]}\\n{"title": "b", "embedding": [0.3, 0.4]}\\n',
    ...                     "e.jsonl")
    >>> v.X.tolist(), v.meta["title"].tolist()
    ([[0.1, 0.2], [0.3, 0.4]], ['a', 'b'])
    >>> read_json_lines(b'{"x": 1, "y": 2, "name": "p"}\\n', "p.jsonl").columns
    ['x', 'y']
    """
    notices: list[str] = []
    text = decode_bytes(data, name, "a JSON-lines file", notices)
    lines = text_lines(text)
    keep = [i for i, ln in enumerate(lines) if ln.strip()]
    if not keep:
        raise DataError(f"{name} is empty. Put one JSON object on each line, such as "
                        '{"title": "a", "embedding": [0.1, 0.2]}.')
    line_no = np.asarray(keep, dtype=np.int64) + 1
    body = "\n".join(lines[i] for i in keep).encode("utf-8")
    del lines
    cols = None
    try:
        import pyarrow as pa
        import pyarrow.json as pj

        # one block: the types are inferred from every line, and a long line never straddles two blocks
        options = pj.ReadOptions(block_size=max(len(body) + 1, 1 << 20), use_threads=False)
        table = pj.read_json(io.BytesIO(body), read_options=options)
        if table.num_rows == len(keep):
            cols = arrow_columns(table, name, line_no)
    except ImportError:
        pass
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
        pass  # mixed types or a broken line: read line by line, which names it
    if cols is None:
        cols = _json_columns(body.decode("utf-8").split("\n"), name, line_no)
    result = assemble(cols, name, on_invalid, line_no, unit="line")
    result.notices[:0] = notices
    return result


def _json_columns(lines: list[str], name: str, line_no: np.ndarray) -> Columns:
    """JSON lines parsed one by one (what Arrow refused): every broken line and non-number in a list is named."""
    records = []
    for j, ln in enumerate(lines):
        try:
            obj = json.loads(ln)
        except json.JSONDecodeError as err:
            raise DataError(f"{name}, line {line_no[j]}: not valid JSON ({err.msg} at character {err.colno}). Each "
                            'line holds one object, such as {"title": "a", "embedding": [0.1, 0.2]}.') from None
        if not isinstance(obj, dict):
            raise DataError(f"{name}, line {line_no[j]}: a JSON {type(obj).__name__.replace('dict', 'object')}, not "
                            'an object. Each line holds one object, such as {"title": "a", "embedding": [0.1, 0.2]}.')
        records.append(obj)
    keys = list(dict.fromkeys(k for r in records for k in r))
    cols = Columns(len(records))
    for key in keys:
        values = [r.get(key) for r in records]
        filled = [v for v in values if v is not None]
        if filled and all(isinstance(v, list) for v in filled):
            lengths = np.array([-1 if v is None else len(v) for v in values], dtype=np.int64)
            flat = []
            for j, v in enumerate(values):
                for x in v or ():
                    if x is not None and (isinstance(x, bool) or not isinstance(x, (int, float))):
                        raise DataError(f"{name}, line {line_no[j]}, field {quote(key)}: {quote(json.dumps(x), 40)} "
                                        "is not a number; a list field holds numbers, such as [0.1, 0.2]. Fix the "
                                        "value or delete the line.")
                    flat.append(np.nan if x is None else x)
            cols.add(key, "list", (lengths, np.asarray(flat, dtype=np.float64)))
        elif filled and all(isinstance(v, (int, float)) for v in filled):
            cols.add(key, "number", np.array([np.nan if v is None else float(v) for v in values]))
        else:
            text = _text(values)
            cols.add(key, "list" if looks_like_lists(text) else "text",
                     parse_list_cells(text, name, key, line_no) if looks_like_lists(text) else text)
    return cols
