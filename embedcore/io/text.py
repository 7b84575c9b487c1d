"""Text to a grid of typed fields: separators, decimal commas, quoted rows, header detection,
invalid rows and sampling. Shared by every reader of tables (the bytes before that: :mod:`.files`)."""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .files import file_extension, plural, quote, text_lines
from .results import MAX_BYTES, NA_TOKENS, DataError, Parsed

# --------------------------------------------------------------------------- tables of text


#: Columns above which a table with more columns than rows is read as one long column.
#: pandas' parser spends some 15 microseconds on every column whatever its length, so a
#: single row of a million numbers takes 15 s column by column and a tenth of that as one.
_WIDE_COLUMNS = 5_000


def _is_number(cells: pd.Series) -> np.ndarray:
    return pd.to_numeric(cells, errors="coerce").notna().to_numpy() | _is_na(cells)


def _is_na(cells: pd.Series) -> np.ndarray:
    return cells.str.strip().str.lower().isin(NA_TOKENS).to_numpy()


def number_cells(cells: np.ndarray) -> np.ndarray:
    """Which cells of a 2-D array of strings are numbers or missing, in one pass over all of them.

    Examples
    --------
    >>> import numpy as np
    >>> number_cells(np.array([["x", "1.5"], ["NA", "two"]], dtype=object))
    array([[False,  True],
           [ True, False]])
    """
    flat = pd.Series(cells.ravel(), dtype=object).astype(str)
    return _is_number(flat).reshape(cells.shape)


def _fields(line: str, sep: str) -> int:
    if '"' in line:
        try:
            return len(next(csv.reader([line], delimiter=sep)))
        except (csv.Error, StopIteration):
            return line.count(sep) + 1
    return line.count(sep) + 1


def sniff_separator(name: str, lines: list[str]) -> str | None:
    """The field separator of delimited text: a tab, ';', '|' or ',', or None for runs of whitespace.

    A separator that splits every one of the first lines into the same number
    (two or more) of fields wins; a tab first, then ';' and '|' (which
    European spreadsheet exports write, with decimal commas), then ','. When
    none is that regular, the first line decides, so the reader names the line that breaks the pattern.

    Examples
    --------
    >>> sniff_separator("a.csv", ["a;b", "1,5;2", "3,25;4"]), sniff_separator("a.txt", ["the 0.1 0.2", ", 0.3 0.4"])
    (';', None)
    """
    ext = file_extension(name)
    if ext in (".tsv", ".tab"):
        return "\t"
    head = [ln for ln in lines[:30] if ln.strip()]
    if not head:
        return None
    regular = []
    for sep in ("\t", ";", "|", ","):
        if sep not in head[0]:
            continue
        counts = {_fields(ln, sep) for ln in head}
        if len(counts) == 1:
            regular.append(sep)
    if "," in regular and len(regular) > 1:
        # both split every line evenly: the comma is a decimal mark only if numbers are written so
        return regular[0] if _DECIMAL_COMMA.search("\n".join(head)) else ","
    if regular:
        return regular[0]
    first = head[0]
    if "\t" in first:
        return "\t"
    if ";" in first and "," not in first:
        return ";"
    if "," in first:
        return ","
    return None  # runs of whitespace


#: A number written with a decimal comma, as a whole cell: 3,25 or -1.234,5 (thousands with dots).
_DECIMAL_COMMA = re.compile(r"(?:^|(?<=[;\t|]))\s*[-+]?\d{1,3}(?:\.\d{3})*,\d+\s*(?=[;\t|]|$)", re.M)


def decimal_commas(lines: list[str], sep: str | None) -> tuple[list[str], bool]:
    """Cells written with a decimal comma (``3,25``, ``-1.234,5``) rewritten with a point, when the
    separator is not a comma and no cell holds a number with a decimal point; otherwise the lines unchanged.

    Returns
    -------
    lines : list of str
    changed : bool
        Whether any cell was rewritten (the reader then says so in a notice).

    Examples
    --------
    >>> decimal_commas(["x;y", "3,25;-1.234,5"], ";")
    (['x;y', '3.25;-1234.5'], True)
    >>> decimal_commas(["3,25;1.5"], ";")  # a decimal point elsewhere: the comma is not a decimal mark
    (['3,25;1.5'], False)
    """
    if sep in (None, ","):
        return lines, False
    head = "\n".join(lines[:50])
    if not _DECIMAL_COMMA.search(head):
        return lines, False
    e = re.escape(sep)
    point = re.compile(rf"(?:^|(?<={e}))\s*[-+]?\d*\.\d+\s*(?={e}|$)", re.M)
    if point.search(head):
        return lines, False
    cell = re.compile(rf"(?:^|(?<={e}))(\s*[-+]?)(\d{{1,3}}(?:\.\d{{3}})+|\d+),(\d+\s*)(?={e}|$)")
    fixed = [cell.sub(lambda m: m.group(1) + m.group(2).replace(".", "") + "." + m.group(3), ln) for ln in lines]
    return fixed, True


def trailing_separator(lines: list[str], sep: str | None) -> bool:
    """Every data line ends with the separator (and so does the first, or it has one field fewer).

    Examples
    --------
    >>> trailing_separator(["a;b", "1;2;", "3;4;"], ";"), trailing_separator(["a;b", "1;2"], ";")
    (True, False)
    """
    if sep is None or len(lines) < 1:
        return False
    ends = [ln.rstrip(" \r").endswith(sep) for ln in lines]
    if not all(ends[1:]) or (len(lines) == 1 and not ends[0]):
        return False
    if ends[0]:
        return True
    return _fields(lines[0], sep) + 1 == _fields(lines[1], sep)


@dataclass
class _Grid:
    """Text split into rows of equal length (blank lines removed)."""

    head: np.ndarray  # the first rows' cells as strings (every row when no limit is given)
    line_no: np.ndarray  # 1-based line on which each row starts
    sep: str | None  # None: runs of whitespace
    body: str  # the non-blank lines, joined by newlines
    notices: list[str] = None  # what was changed on the way: a trailing separator, decimal commas


def quoted_rows(lines: list[str], body: str, sep: str, n_head: int, name: str, line_no: np.ndarray):
    """Field counts, first line and (for the first ``n_head``) fields of every row of a file with quotes.

    Quotes follow csv's rules, which are also pandas': a quoted field may hold
    the separator, a doubled quote or a line break, so a row may span lines.

    Returns
    -------
    counts : ndarray of int64
        The number of fields of every row.
    starts : ndarray of int64
        The 0-based index in ``lines`` of the line each row starts on.
    head : list of list of str
        The fields of the first ``n_head`` rows.

    Raises
    ------
    DataError
        When a quote never closes; the message names the line it opens on.

    Examples
    --------
    >>> import numpy as np
    >>> lines = ['name,note', '"Ada","two', 'lines"', 'Bob,"a, b"']
    >>> counts, starts, head = quoted_rows(lines, "\\n".join(lines), ",", 3, "notes.csv", np.arange(1, 5))
    >>> counts.tolist(), starts.tolist(), head[1]
    ([2, 2, 2], [0, 1, 3], ['Ada', 'two\\nlines'])
    """
    counts, starts, head = [], [], []
    # csv's own limit (128 KiB a field) would refuse a quoted list of 16,384 numbers; a label past
    # budgets.MAX_CELL_CHARS is refused by name once read, and the file by its bytes
    csv.field_size_limit(max(csv.field_size_limit(), MAX_BYTES))
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


def text_grid(text: str, name: str, head_rows: int | None = None) -> _Grid:
    """Split text into rows of equal length and keep the first ``head_rows`` rows' cells.

    Fields are separated by tabs, commas or semicolons (decided by the file's
    extension and first line) or by runs of whitespace. In files with a
    separator, quotes group fields wherever they are; in whitespace-separated
    files (such as word2vec's) a quote is an ordinary character. Rows of
    unequal length are an error that names the first offending line.

    Returns
    -------
    grid
        Its ``head`` holds the kept rows' cells as strings, ``line_no`` the
        1-based line of every row, ``sep`` the separator (None for
        whitespace), ``body`` the non-blank lines and ``notices`` what was changed.

    Examples
    --------
    >>> grid = text_grid("x;y\\n\\n1,5;2\\n", "points.csv")
    >>> grid.head.tolist(), grid.line_no.tolist(), grid.sep, grid.notices  # doctest: +NORMALIZE_WHITESPACE
    ([['x', 'y'], ['1.5', '2']], [1, 3], ';',
     ["points.csv separates fields with ';' and writes numbers with a decimal comma (3,25); they are read as 3.25."])
    >>> text_grid("1 2\\n3\\n", "v.txt")
    Traceback (most recent call last):
    ...
    embedcore.exceptions.DataError: v.txt, line 2: 1 field, but line 1 has 2. Every row needs the same number of \
fields (1 row differs).
    """
    all_lines = text_lines(text)
    keep = [i for i, ln in enumerate(all_lines) if ln.strip()]
    if not keep:
        raise DataError(f"{name} is empty. It needs at least one row of values.")
    lines = [all_lines[i] for i in keep]
    line_no = np.asarray(keep, dtype=np.int64) + 1
    sep = sniff_separator(name, lines)
    notices = []
    if trailing_separator(lines, sep):
        lines = [ln.rstrip(" \r")[:-1] if ln.rstrip(" \r").endswith(sep) else ln for ln in lines]
        shown = "a tab" if sep == "\t" else repr(sep)
        notices.append(f"Every line of {name} ends with {shown}, as some spreadsheets write; "
                       "the empty column after it is left out.")
    lines, decimal = decimal_commas(lines, sep)
    if decimal:
        shown = "tabs" if sep == "\t" else repr(sep)
        notices.append(f"{name} separates fields with {shown} and writes numbers with a decimal comma "
                       "(3,25); they are read as 3.25.")
    body = "\n".join(lines)
    n_head = len(lines) if head_rows is None else head_rows
    if sep is None:
        counts = np.fromiter((len(ln.split()) for ln in lines), dtype=np.int64, count=len(lines))
        head = [ln.split() for ln in lines[:n_head]]
    elif '"' in body:
        counts, starts, head = quoted_rows(lines, body, sep, n_head, name, line_no)
        line_no = line_no[starts]
    else:
        counts = np.fromiter((ln.count(sep) + 1 for ln in lines), dtype=np.int64, count=len(lines))
        head = [ln.split(sep) for ln in lines[:n_head]]
    bad = np.flatnonzero(counts != counts[0])
    if bad.size:
        j = bad[0]
        raise DataError(
            f"{name}, line {line_no[j]}: {plural(counts[j], 'field')}, but line {line_no[0]} "
            f"has {counts[0]}. Every row needs the same number of fields "
            f"({plural(bad.size, 'row')} differ{'' if bad.size > 1 else 's'})."
        )
    cells = np.empty((len(head), int(counts[0])), dtype=object)
    cells[:] = head
    return _Grid(cells, line_no, sep, body, notices)


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


def typed_columns(
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

    Examples
    --------
    >>> grid = text_grid("word,x,y\\nthe,1,2\\nof,3,NA\\n", "w.csv")
    >>> X, numeric, text, textcols = typed_columns(grid, "w.csv", True, grid.line_no[1:], ["word", "x", "y"])
    >>> X.tolist(), numeric, text[0].tolist(), textcols
    ([[1.0, 2.0], [3.0, nan]], [1, 2], ['the', 'of'], [0])
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
            f"{name}, line {line_no[j]}, column {quote(names[c])}: {quote(flat.iloc[c * n + j])} is not a "
            f"number, but the column's other values are. Fix the cell or delete the row "
            f"({plural(n_bad, 'such cell')} in this column)."
        )
    X = values.reshape(k, n)[is_num].T
    in_text = np.repeat(~is_num, n)
    stripped = flat[in_text].str.strip()
    missing = (stripped == "").to_numpy() | (_is_na(stripped) & np.repeat(~forced[~is_num], n))
    strings = stripped.to_numpy(object)
    strings[missing] = None
    return X, is_num, pd.DataFrame(strings.reshape(-1, n).T)


def find_header(cells: np.ndarray) -> bool:
    """A first row is a header when it holds words above columns of numbers.

    Examples
    --------
    >>> import numpy as np
    >>> find_header(np.array([["x", "y"], ["1", "2"]])), find_header(np.array([["0", "1"], ["1", "2"]]))
    (True, False)
    """
    ok = number_cells(cells)
    if len(cells) < 2:
        return not ok[0].all()
    # No numeric columns at all: a row of distinct words is taken as a header
    # only for tables, decided by the caller.
    return bool(((ok[1:].mean(axis=0) > 0.5) & ~ok[0]).any())


def unique_names(names: list[str]) -> list[str]:
    """Column names made unique as pandas makes them (``x``, ``x.1``, ...), blank ones called ``column``.

    Examples
    --------
    >>> unique_names(["x", "x", " ", "y", ""])
    ['x', 'x.1', 'column', 'y', 'column.1']
    """
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


def drop_invalid_rows(
    values: np.ndarray,
    line_no: np.ndarray,
    name: str,
    on_invalid: str,
    result: Parsed,
    unit: str = "line",
) -> np.ndarray:
    """Return a boolean mask of rows to keep; report missing and infinite values.

    With ``on_invalid="error"`` the first such row is a :class:`DataError`
    naming its line; otherwise the rows are counted in ``result.dropped`` and
    named in a notice.

    Examples
    --------
    >>> import numpy as np
    >>> result = Parsed("v.txt")
    >>> X = np.array([[1.0, 2.0], [np.nan, 0.0], [np.inf, 1.0]])
    >>> drop_invalid_rows(X, np.array([1, 2, 3]), "v.txt", "drop", result)
    array([ True, False, False])
    >>> result.dropped
    {'rows with a missing value': 1, 'rows with an infinite value': 1}
    >>> drop_invalid_rows(X, np.array([1, 2, 3]), "v.txt", "error", result)
    Traceback (most recent call last):
    ...
    embedcore.exceptions.DataError: v.txt, line 2: a missing value. Fill it in or delete the row (1 row affected).
    """
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


def sample_lines(n: int, max_rows: int, seed: int, result: Parsed, unit: str) -> np.ndarray | None:
    """Sorted positions of a seeded sample of ``max_rows`` of ``n`` rows, or None when all fit.

    A sample is announced in ``result.notices`` and counted in ``result.dropped``.

    Examples
    --------
    >>> result = Parsed("v.txt")
    >>> sample_lines(10, 4, 0, result, "rows").tolist()
    [2, 4, 5, 7]
    >>> result.dropped, sample_lines(3, 4, 0, result, "rows")
    ({'rows left out of the sample': 6}, None)
    """
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


def sample_list_into(result: Parsed, field: str, rows: list, max_rows: int, seed: int, unit: str) -> Parsed:
    """Set ``result.<field>`` to ``rows``, or to a seeded sample of ``max_rows`` of them (with a notice).

    Examples
    --------
    >>> from embedcore.io import SetData
    >>> result = sample_list_into(SetData("s.txt", sets=[]), "sets", [["a"], ["b"], ["c"]], 2, 0, "lines")
    >>> len(result.sets), result.dropped
    (2, {'lines left out of the sample': 1})
    """
    idx = sample_lines(len(rows), max_rows, seed, result, unit)
    setattr(result, field, rows if idx is None else [rows[i] for i in idx])
    return result
