"""What reading one file may cost, and the checks that hold a file to it before the expensive read.

Every number a reader holds a file to lives here. A workbook and a Parquet
file say how big they are in their metadata (a ZIP member's uncompressed
size, a sheet's cell references, a Parquet footer's rows, columns and byte
counts); those are read first, cheaply, and a file past a budget is refused
with a message naming its numbers and the budget, before anything pads a
sparse sheet or decodes a wide table. What metadata cannot say (a reader's
peak memory, its time) is held by :mod:`embedcore.io.contained`, which reads
in a process of its own with :data:`READ_MEMORY` and :data:`READ_SECONDS`.
"""

from __future__ import annotations

import io
import re
import zipfile

from ..exceptions import DataError

#: Memory one read may take on top of the reader process it runs in (bytes).
READ_MEMORY = 2 * 2**30
#: Wall-clock time one read may take (seconds).
READ_SECONDS = 60.0
#: Cells of a sheet's used range (rows x columns, from the first cell to the farthest one that exists).
MAX_SHEET_CELLS = 4_000_000
#: Uncompressed bytes of a sheet's XML inside an .xlsx (a ZIP member's declared size, which zipfile enforces).
MAX_SHEET_XML = 400 * 2**20
#: Uncompressed bytes of an .xlsx's shared strings (every text cell's text, once).
MAX_SHARED_STRINGS_XML = 100 * 2**20
#: Uncompressed bytes of an .ods's content.xml (odfpy holds all of it as objects, about 30 times its size).
MAX_ODS_XML = 40 * 2**20
#: Columns of a Parquet table or a sheet (each Parquet column costs its readers bookkeeping of its own:
#: 5 rows x 100,000 columns took over 9 GB to decode). A text file's columns are held only by memory.
MAX_COLUMNS = 20_000
#: Uncompressed bytes of a Parquet table's data, from its row groups.
MAX_TABLE_BYTES = 1 * 2**30
#: Characters in one cell of a table (a label, a title, a document).
MAX_CELL_CHARS = 100_000


def _gb(n: float) -> str:
    return f"{n / 2**30:.1f} GB" if n >= 2**30 else f"{n / 2**20:,.0f} MB"


def zip_member_sizes(data: bytes, name: str) -> dict[str, int]:
    """The declared uncompressed size of every member of a ZIP container (a workbook), by member name.

    zipfile stops a member at its declared size, so these are upper bounds on what reading it can inflate to.

    Examples
    --------
    >>> import io, zipfile
    >>> box = io.BytesIO()
    >>> with zipfile.ZipFile(box, "w", zipfile.ZIP_DEFLATED) as z:
    ...     z.writestr("xl/worksheets/sheet1.xml", "0" * 10_000)
    >>> zip_member_sizes(box.getvalue(), "book.xlsx")
    {'xl/worksheets/sheet1.xml': 10000}
    """
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as box:
            return {info.filename: info.file_size for info in box.infolist()}
    except (zipfile.BadZipFile, ValueError, OSError) as err:
        raise DataError(f"{name} is named as a workbook but is not a readable ZIP container ({str(err)[:80]}). "
                        "Open it in a spreadsheet and save it again, or save the sheet as CSV.") from None


def check_workbook_members(data: bytes, name: str, ext: str) -> None:
    """Refuse a workbook whose sheet, shared strings or content XML would inflate past its budget.

    Only the ZIP directory is read. An ``.xls`` (not a ZIP container) has nothing to check here.

    Examples
    --------
    >>> import io, zipfile
    >>> box = io.BytesIO()
    >>> with zipfile.ZipFile(box, "w", zipfile.ZIP_DEFLATED) as z:
    ...     z.writestr("xl/sharedStrings.xml", b"<si><t>a</t></si>" * 7_000_000)
    >>> check_workbook_members(box.getvalue(), "bomb.xlsx", ".xlsx")
    Traceback (most recent call last):
    ...
    embedcore.exceptions.DataError: bomb.xlsx holds 113 MB of shared strings (the text of its cells) once unpacked; \
the lab reads workbooks with up to 100 MB. Save the sheet as CSV, or remove unused text.
    """
    if ext not in (".xlsx", ".xlsm", ".ods"):
        return
    sizes = zip_member_sizes(data, name)
    if ext == ".ods":
        size = sizes.get("content.xml", 0)
        if size > MAX_ODS_XML:
            raise DataError(f"{name} holds {_gb(size)} of sheet content once unpacked; the lab reads .ods files with "
                            f"up to {_gb(MAX_ODS_XML)}. Save the sheet as CSV or .xlsx and upload that.")
        return
    strings = sum(v for k, v in sizes.items() if k.lower().endswith("sharedstrings.xml"))
    if strings > MAX_SHARED_STRINGS_XML:
        raise DataError(f"{name} holds {_gb(strings)} of shared strings (the text of its cells) once unpacked; the lab "
                        f"reads workbooks with up to {_gb(MAX_SHARED_STRINGS_XML)}. Save the sheet as CSV, or remove "
                        "unused text.")
    sheets = {k: v for k, v in sizes.items() if k.startswith("xl/worksheets/") and k.endswith(".xml")}
    big = {k: v for k, v in sheets.items() if v > MAX_SHEET_XML}
    if big:
        member, size = max(big.items(), key=lambda kv: kv[1])
        raise DataError(f"{name}: its sheet {member.rsplit('/', 1)[-1]} is {_gb(size)} of XML once unpacked; the lab "
                        f"reads sheets of up to {_gb(MAX_SHEET_XML)}. Save the sheet as CSV and upload that.")


_CELL_COLUMN = re.compile(rb"<(?:[A-Za-z_][\w.-]*:)?c\b[^>]*?\sr=\"([A-Z]{1,3})[0-9]")
_CELL_ROW = re.compile(rb"<(?:[A-Za-z_][\w.-]*:)?c\b[^>]*?\sr=\"[A-Z]{1,3}([0-9]{1,7})\"")
_ROW_REF = re.compile(rb"<(?:[A-Za-z_][\w.-]*:)?row\b[^>]*?\sr=\"([0-9]{1,7})\"")
_CHUNK = 8 * 2**20


def _column_number(letters: bytes) -> int:
    n = 0
    for ch in letters:
        n = n * 26 + ch - 64
    return n


def _extent(block: bytes, rows: int, cols: int) -> tuple[int, int]:
    letters = set(_CELL_COLUMN.findall(block))
    if letters:
        cols = max(cols, max(map(_column_number, letters)))
    numbers = set(_CELL_ROW.findall(block)) | set(_ROW_REF.findall(block))
    if numbers:
        rows = max(rows, max(map(int, numbers)))
    return rows, cols


def column_letters(n: int) -> str:
    """A 1-based column number as a spreadsheet writes it.

    Examples
    --------
    >>> column_letters(1), column_letters(28), column_letters(16_384)
    ('A', 'AB', 'XFD')
    """
    out = ""
    while n:
        n, r = divmod(n - 1, 26)
        out = chr(65 + r) + out
    return out


def sheet_extent(data: bytes, member: str) -> tuple[int, int]:
    """Rows and columns a sheet reaches: the farthest cell reference in its XML, streamed in chunks.

    Examples
    --------
    >>> import io, zipfile
    >>> box = io.BytesIO()
    >>> sheet = '<sheetData><row r="1"><c r="A1"><v>1</v></c></row><row r="9"><c r="AB9"/></row></sheetData>'
    >>> with zipfile.ZipFile(box, "w") as z:
    ...     z.writestr("xl/worksheets/sheet1.xml", sheet)
    >>> sheet_extent(box.getvalue(), "xl/worksheets/sheet1.xml")
    (9, 28)
    """
    rows = cols = 0
    tail = b""
    with zipfile.ZipFile(io.BytesIO(data)) as box, box.open(member) as stream:
        while True:
            chunk = stream.read(_CHUNK)
            if not chunk:
                break
            # a tag cut at the chunk's end is read whole with the next chunk
            cut = chunk.rfind(b"<")
            block, tail = tail + chunk[:cut], chunk[cut:]
            rows, cols = _extent(block, rows, cols)
        rows, cols = _extent(tail, rows, cols)
    return rows, cols


def first_sheet_member(data: bytes) -> str | None:
    """The ZIP member holding an .xlsx's first sheet (as its workbook orders them), or None.

    Examples
    --------
    >>> import io
    >>> import pandas as pd
    >>> book = io.BytesIO()
    >>> with pd.ExcelWriter(book) as writer:
    ...     pd.DataFrame({"a": [1]}).to_excel(writer, sheet_name="first")
    ...     pd.DataFrame({"b": [2]}).to_excel(writer, sheet_name="second")
    >>> first_sheet_member(book.getvalue()), first_sheet_member(b"a,b")
    ('xl/worksheets/sheet1.xml', None)
    """
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as box:
            names = set(box.namelist())
            sheets = sorted((n for n in names if n.startswith("xl/worksheets/sheet") and n.endswith(".xml")),
                            key=lambda n: (len(n), n))
            rels = "xl/_rels/workbook.xml.rels"
            if "xl/workbook.xml" in names and rels in names and box.getinfo("xl/workbook.xml").file_size < 2**22 \
                    and box.getinfo(rels).file_size < 2**22:
                book = box.read("xl/workbook.xml")
                first = re.search(rb"<(?:\w+:)?sheet\b[^>]*?\b(?:\w+:)?id=\"([^\"]+)\"", book)
                if first:
                    target = re.search(rb"<Relationship\b[^>]*?Id=\"" + re.escape(first.group(1)) +
                                       rb"\"[^>]*?Target=\"([^\"]+)\"", box.read(rels))
                    if not target:
                        target = re.search(rb"<Relationship\b[^>]*?Target=\"([^\"]+)\"[^>]*?Id=\"" +
                                           re.escape(first.group(1)) + rb"\"", box.read(rels))
                    if target:
                        path = target.group(1).decode("utf-8", "replace").lstrip("/")
                        path = path if path.startswith("xl/") else "xl/" + path
                        if path in names:
                            return path
            return sheets[0] if sheets else None
    except (zipfile.BadZipFile, ValueError, OSError, KeyError):
        return None


def check_sheet_extent(data: bytes, name: str) -> None:
    """Refuse an .xlsx whose first sheet reaches past :data:`MAX_SHEET_CELLS` (a reader would pad it whole).

    Examples
    --------
    >>> import io, zipfile
    >>> box = io.BytesIO()
    >>> with zipfile.ZipFile(box, "w") as z:
    ...     z.writestr("xl/worksheets/sheet1.xml", '<row r="1"><c r="A1"/></row><row r="1048576"><c r="XFD1048576"/></row>')
    >>> check_sheet_extent(box.getvalue(), "sparse.xlsx")
    Traceback (most recent call last):
    ...
    embedcore.exceptions.DataError: sparse.xlsx: its first sheet reaches cell XFD1048576, a range of 1,048,576 rows x \
16,384 columns (17,179,869,184 cells); the lab reads sheets of up to 4,000,000 cells. Delete the cells beyond your \
data (Ctrl+End finds the last one) or save the used range as CSV.
    """
    member = first_sheet_member(data)
    if member is None:
        return
    rows, cols = sheet_extent(data, member)
    if cols > MAX_COLUMNS or rows * cols > MAX_SHEET_CELLS:
        raise DataError(f"{name}: its first sheet reaches cell {column_letters(cols)}{rows}, a range of {rows:,} rows "
                        f"x {cols:,} columns ({rows * cols:,} cells); the lab reads sheets of up to "
                        f"{MAX_SHEET_CELLS:,} cells. Delete the cells beyond your data (Ctrl+End finds the last "
                        "one) or save the used range as CSV.")


_ODS_ROW = re.compile(rb"<table:table-row\b([^>]*?)(/?)>")
_ODS_REPEAT_ROWS = re.compile(rb"table:number-rows-repeated=\"([0-9]+)\"")
_ODS_CELL = re.compile(rb"<table:(?:covered-)?table-cell\b([^>]*?)(/?)>")
_ODS_REPEAT_COLS = re.compile(rb"table:number-columns-repeated=\"([0-9]+)\"")


def ods_extent(content: bytes) -> tuple[int, int]:
    """Rows and columns an .ods's first table fills once its repeated rows and cells are written out.

    A run of empty rows or cells (how LibreOffice writes the rest of a sheet) counts only when something
    follows it, as the reader skips a trailing run.

    Examples
    --------
    >>> row = b'<table:table-row table:number-rows-repeated="1000000"><table:table-cell office:value="1"/></table:table-row>'
    >>> ods_extent(b"<table:table>" + row + b"</table:table>")
    (1000000, 1)
    """
    start = content.find(b"<table:table ")
    start = content.find(b"<table:table>") if start < 0 else start
    end = content.find(b"</table:table>", max(start, 0))
    body = content[max(start, 0): end if end > 0 else len(content)]
    rows = cols = pending = 0
    for row in re.finditer(rb"<table:table-row\b[^>]*?(?:/>|>.*?</table:table-row>)", body, re.S):
        text = row.group(0)
        head = _ODS_ROW.match(text)
        repeat = _ODS_REPEAT_ROWS.search(head.group(1)) if head else None
        n_rows = int(repeat.group(1)) if repeat else 1
        width = filled = 0
        for cell in _ODS_CELL.finditer(text):
            rep = _ODS_REPEAT_COLS.search(cell.group(1))
            n = int(rep.group(1)) if rep else 1
            width += n
            empty = cell.group(2) == b"/" and b"value" not in cell.group(1)
            if not empty:
                filled = width
        if filled:
            rows += pending + n_rows
            pending = 0
            cols = max(cols, filled)
        else:
            pending += n_rows
    return rows, cols


def check_ods_extent(data: bytes, name: str) -> None:
    """Refuse an .ods whose first table, its repeated rows written out, holds more than :data:`MAX_SHEET_CELLS`.

    Examples
    --------
    >>> import io, zipfile
    >>> row = '<table:table-row table:number-rows-repeated="9000000"><table:table-cell office:value="1"/></table:table-row>'
    >>> box = io.BytesIO()
    >>> with zipfile.ZipFile(box, "w") as z:
    ...     z.writestr("content.xml", "<table:table>" + row + "</table:table>")
    >>> check_ods_extent(box.getvalue(), "rows.ods")
    Traceback (most recent call last):
    ...
    embedcore.exceptions.DataError: rows.ods: its first sheet fills 9,000,000 rows x 1 columns (9,000,000 cells) once \
its repeated rows are written out; the lab reads sheets of up to 4,000,000 cells. Delete the rows beyond your data or \
save the used range as CSV.
    """
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as box:
            content = box.read("content.xml")
    except (zipfile.BadZipFile, KeyError, ValueError, OSError):
        return  # the workbook reader says what is wrong with it
    rows, cols = ods_extent(content)
    if cols > MAX_COLUMNS or rows * cols > MAX_SHEET_CELLS:
        raise DataError(f"{name}: its first sheet fills {rows:,} rows x {cols:,} columns ({rows * cols:,} cells) once "
                        f"its repeated rows are written out; the lab reads sheets of up to {MAX_SHEET_CELLS:,} cells. "
                        "Delete the rows beyond your data or save the used range as CSV.")


def check_parquet(data: bytes, name: str) -> None:
    """Refuse a Parquet file whose footer says its table is wider, bigger or has longer cells than the budgets.

    Reads only the footer: the schema, the row count and each row group's uncompressed bytes.

    Examples
    --------
    >>> import io
    >>> import pandas as pd
    >>> box = io.BytesIO()
    >>> pd.DataFrame({"note": ["x" * 300_000]}).to_parquet(box)
    >>> check_parquet(box.getvalue(), "notes.parquet")
    Traceback (most recent call last):
    ...
    embedcore.exceptions.DataError: notes.parquet: column 'note' holds 300,052 bytes in 1 row, so a cell holds more \
than the 100,000 characters the lab takes in one cell. Shorten the text, or leave the column out.
    """
    import pyarrow.parquet as pq

    try:
        meta = pq.ParquetFile(io.BytesIO(data)).metadata
    except Exception:
        return  # the Parquet reader says what is wrong with it
    if meta.num_columns > MAX_COLUMNS:
        raise DataError(f"{name} has {meta.num_columns:,} columns; the lab reads tables of up to {MAX_COLUMNS:,} "
                        "columns. Keep the columns you need, or store a vector as one list column per row.")
    total = sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))
    if total > MAX_TABLE_BYTES:
        raise DataError(f"{name} holds {_gb(total)} of data once decoded ({meta.num_rows:,} rows x {meta.num_columns:,} "
                        f"columns); the lab reads tables of up to {_gb(MAX_TABLE_BYTES)}. Keep the columns you need or "
                        "a sample of the rows.")
    rows = max(meta.num_rows, 1)
    for j in range(meta.num_columns):
        size = sum(meta.row_group(i).column(j).total_uncompressed_size for i in range(meta.num_row_groups))
        if size / rows > MAX_CELL_CHARS:  # the mean cell is a floor of the longest
            column = meta.schema.column(j).path
            raise DataError(f"{name}: column {column!r} holds {size:,} bytes in {rows:,} row{'s' if rows > 1 else ''}, "
                            f"so a cell holds more than the {MAX_CELL_CHARS:,} characters the lab takes in one cell. "
                            "Shorten the text, or leave the column out.")


def check_cells(frame, name: str) -> None:
    """Refuse a table with a text cell longer than :data:`MAX_CELL_CHARS`, naming its row and column.

    Examples
    --------
    >>> import pandas as pd
    >>> check_cells(pd.DataFrame({"a": ["ok", "x" * 200_000]}), "t.csv")
    Traceback (most recent call last):
    ...
    embedcore.exceptions.DataError: t.csv, row 2, column 'a': 200,000 characters in one cell; the lab takes up to \
100,000. Shorten the cell, or leave the column out.
    """
    if frame is None:
        return
    for column in frame.columns:
        col = frame[column]
        if col.dtype != object and str(col.dtype) not in ("string", "str"):
            continue
        lengths = col.map(lambda v: len(v) if isinstance(v, str) else 0)
        if len(lengths) and lengths.max() > MAX_CELL_CHARS:
            row = int(lengths.to_numpy().argmax())
            raise DataError(f"{name}, row {row + 1}, column {str(column)[:80]!r}: {int(lengths.max()):,} characters in "
                            f"one cell; the lab takes up to {MAX_CELL_CHARS:,}. Shorten the cell, or leave the column out.")
