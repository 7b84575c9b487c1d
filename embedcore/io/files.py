"""Bytes to text: where a file comes from, its size limit, what kind of file its first bytes say it is,
its encoding, spreadsheets as text, and the small words every message uses (quote, plural)."""

from __future__ import annotations

import codecs
import csv
import io
import os
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from . import budgets
from .results import MAGIC, MAX_BYTES, DataError


def source_bytes(source: Any, filename: str | None) -> tuple[bytes, str]:
    """Return the raw bytes of ``source`` and a name to use in messages.

    Parameters
    ----------
    source : bytes, str, os.PathLike or file-like
        Raw bytes, a path, or an object with ``getvalue`` or ``read`` (such as an upload).
    filename : str or None
        The name to report; by default the path's or the object's own name, else ``"upload"``.

    Returns
    -------
    data : bytes
    name : str

    Raises
    ------
    DataError
        When a path is not a file, the source is larger than ``MAX_BYTES``, or no reader takes its type.

    Examples
    --------
    >>> import io
    >>> source_bytes(io.BytesIO(b"1 2\\n"), "v.txt")
    (b'1 2\\n', 'v.txt')
    >>> source_bytes(b"a b", None)
    (b'a b', 'upload')
    >>> source_bytes(3, None)
    Traceback (most recent call last):
    ...
    embedcore.exceptions.DataError: Cannot read a int; give a file path, bytes or an uploaded file.
    """
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


def file_extension(name: str) -> str:
    """The extension of a file name, lower-cased, with its dot (``""`` when there is none).

    Examples
    --------
    >>> file_extension("Points.CSV"), file_extension("data.tar.gz"), file_extension("README")
    ('.csv', '.gz', '')
    """
    return Path(name).suffix.lower()


#: Byte-order marks of the Unicode encodings other than UTF-8 (UTF-32's first: UTF-16 LE's is its prefix).
_BOMS = [
    (codecs.BOM_UTF32_LE, "utf-32", "UTF-32"),
    (codecs.BOM_UTF32_BE, "utf-32", "UTF-32"),
    (codecs.BOM_UTF16_LE, "utf-16", "UTF-16"),
    (codecs.BOM_UTF16_BE, "utf-16", "UTF-16"),
]


def sniff_binary(data: bytes) -> tuple[str, str] | None:
    """What a file's first bytes say it is, when that is not UTF-8 text.

    Returns
    -------
    tuple of (str, str) or None
        A description for messages and the extension such files carry (``""``
        when none fits), or None for bytes that may be plain text.

    Examples
    --------
    >>> sniff_binary(b"PAR1...")
    ('a Parquet file', '.parquet')
    >>> sniff_binary("a,b".encode("utf-16"))
    ('UTF-16 text', '.csv')
    >>> sniff_binary(b"a,b\\n1,2\\n") is None
    True
    """
    for magic, what, ext in MAGIC:
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


def decode_bytes(data: bytes, name: str, expected: str, notices: list[str] | None = None) -> str:
    """Bytes -> text, refusing binary content.

    UTF-8 (with or without a byte-order mark) is read, and so are UTF-16 and
    UTF-32 when they start with their byte-order mark (as Windows tools write them).
    Other bytes are read as Windows-1252 (Latin-1 where that fails), the encoding
    spreadsheets on Windows write, and a spreadsheet workbook (.xlsx, .xls, .ods)
    as the CSV text of its first sheet; either way a sentence saying so is added
    to ``notices``.

    Parameters
    ----------
    data : bytes
    name : str
        The file's name, for messages.
    expected : str
        What the reader wants, as a message names it (``"a CSV or TSV table"``).
    notices : list of str, optional
        Gets a sentence when the text was not read as UTF-8.

    Raises
    ------
    DataError
        For binary content (an image, an archive, UTF-16 without a byte-order mark).

    Examples
    --------
    >>> notices = []
    >>> decode_bytes("café\\n".encode("cp1252"), "menu.csv", "a table", notices)
    'café\\n'
    >>> print(notices[0])  # doctest: +ELLIPSIS
    menu.csv is not UTF-8 (byte 0xe9 on line 1), so it was read as Windows-1252 (cp1252). ...
    >>> decode_bytes(b"\\x89PNG....", "menu.csv", "a table")
    Traceback (most recent call last):
    ...
    embedcore.exceptions.DataError: menu.csv should be a table, but its content is a PNG image. Upload a table instead.
    """
    sheet = spreadsheet_text(data, name)
    if sheet is not None:
        text, notice = sheet
        if notices is not None:
            notices.append(notice)
        return text
    for bom, codec, label in _BOMS:
        if data.startswith(bom):
            try:
                return data.decode(codec)  # the codec reads the mark's byte order and drops it
            except UnicodeDecodeError as err:
                raise DataError(
                    f"{name} starts as {label} text, but its bytes from {err.start:,} on are not "
                    f"valid {label} ({err.reason}). Save the file again with UTF-8 encoding."
                ) from None
    found = sniff_binary(data)
    if found:
        what, ext = found
        if what.startswith("UTF-16"):
            raise DataError(
                f"{name} looks like {what}. Save it with UTF-8 encoding "
                "(in Excel: 'CSV UTF-8'; in Notepad: Save as, Encoding UTF-8)."
            )
        if ext and name.lower().endswith(ext):  # the right name, the wrong kind of data for this reader
            raise DataError(f"{name} is {what}, which cannot be read as {expected}. Upload {expected} here.")
        if ext == ".npy":
            fix = f"Rename it to {ext} if it is one."
        else:
            fix = f"Upload {expected} instead."
        raise DataError(f"{name} should be {expected}, but its content is {what}. {fix}")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        try:
            text, codec = data.decode("cp1252"), "Windows-1252 (cp1252)"
        except UnicodeDecodeError:
            text, codec = data.decode("latin-1"), "Latin-1 (ISO-8859-1)"
        if notices is not None:
            notices.append(
                f"{name} is not UTF-8 (byte 0x{data[err.start]:02x} on line {line}), so it was read as {codec}. "
                "If accented letters look wrong, save the file as UTF-8 (in Excel: 'CSV UTF-8')."
            )
    return text


#: Workbook formats read through pandas (openpyxl, xlrd, odfpy): extension -> engine.
SPREADSHEETS = {".xlsx": "openpyxl", ".xlsm": "openpyxl", ".xls": "xlrd", ".ods": "odf"}


def spreadsheet_kind(data: bytes, name: str) -> str | None:
    """The workbook extension a file's name or first bytes say it is, or None for anything else.

    Examples
    --------
    >>> spreadsheet_kind(b"", "scores.XLSX"), spreadsheet_kind(b"\\xd0\\xcf\\x11\\xe0rest", "upload")
    ('.xlsx', '.xls')
    >>> spreadsheet_kind(b"a,b\\n", "scores.csv") is None
    True
    """
    ext = file_extension(name)
    if ext in SPREADSHEETS:
        return ext
    if data.startswith(b"\xd0\xcf\x11\xe0"):  # an OLE compound file: Excel 97-2003
        return ".xls"
    if data.startswith(b"PK\x03\x04"):
        head = data[:2000]
        if b"opendocument.spreadsheet" in head:
            return ".ods"
        if b"[Content_Types].xml" in head or b"xl/" in head:
            return ".xlsx"
    return None


def spreadsheet_text(data: bytes, name: str, max_rows: int | None = None) -> tuple[str, str] | None:
    """The first sheet of a workbook as CSV text, and a sentence naming the sheet; None when not a workbook.

    Examples
    --------
    >>> import io
    >>> import pandas as pd
    >>> book = io.BytesIO()
    >>> pd.DataFrame({"day": ["Mon", "Tue"], "tip": [1.5, 2.0]}).to_excel(book, sheet_name="tips", index=False)
    >>> text, notice = spreadsheet_text(book.getvalue(), "tips.xlsx")
    >>> print(text, notice, sep="")
    day,tip
    Mon,1.5
    Tue,2
    tips.xlsx: read its first sheet, 'tips'.
    >>> spreadsheet_text(b"day,tip\\n", "tips.csv") is None
    True
    """
    ext = spreadsheet_kind(data, name)
    if ext is None:
        return None
    engine = SPREADSHEETS[ext]
    # what the workbook says of its size, before a reader inflates or pads it
    budgets.check_workbook_members(data, name, ext)
    if max_rows is None and ext in (".xlsx", ".xlsm"):
        budgets.check_sheet_extent(data, name)
    elif max_rows is None and ext == ".ods":
        budgets.check_ods_extent(data, name)
    try:
        with warnings.catch_warnings():
            # pandas marks its xlrd engine for removal (in favour of calamine); xlrd reads .xls files today
            warnings.filterwarnings("ignore", message="The xlrd engine is deprecated")
            book = pd.ExcelFile(io.BytesIO(data), engine=engine)
            sheets = [str(s) for s in book.sheet_names]
            frame = pd.read_excel(book, sheet_name=sheets[0], header=None, dtype=object, nrows=max_rows)
    except ImportError:
        module = {"openpyxl": "openpyxl", "xlrd": "xlrd", "odf": "odfpy"}[engine]
        raise DataError(f"{name} is a {ext} workbook; reading it needs {module}: pip install {module} "
                        "(or embedding-lab[app]), or save the sheet as CSV.") from None
    except Exception as err:
        raise DataError(f"{name} is named {ext} but cannot be read as a workbook ({quote(str(err), 60)}). "
                        "Open it in a spreadsheet and save it again, or save the sheet as CSV.") from None
    frame = frame.dropna(how="all").dropna(axis=1, how="all")
    if frame.empty:
        raise DataError(f"{name}: its first sheet, {quote(sheets[0])}, is empty. Put the data on the first sheet.")
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    for row in frame.itertuples(index=False):
        writer.writerow(["" if _blank(v) else _cell(v) for v in row])
    others = f" (of {len(sheets)}; the others are not read)" if len(sheets) > 1 else ""
    return out.getvalue(), f"{name}: read its first sheet, {quote(sheets[0])}{others}."


def _blank(v) -> bool:
    return v is None or (isinstance(v, float) and np.isnan(v)) or v is pd.NaT


def _cell(v) -> str:
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e15:
        return str(int(v))
    return str(v)


def quote(text: str, limit: int = 80) -> str:
    """User text as it may appear in a message: quoted, and cut to ``limit`` characters.

    Examples
    --------
    >>> quote("abc"), quote("x" * 100, 5)
    ("'abc'", "'xxxx…'")
    """
    text = str(text)
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


def plural(n: int, word: str) -> str:
    """A count and a noun, the noun with an ``s`` unless the count is one, for messages.

    Examples
    --------
    >>> plural(1, "row"), plural(12000, "field")
    ('1 row', '12,000 fields')
    """
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def text_lines(text: str) -> list[str]:
    """The lines of a text, whichever newline (Unix, Windows or old Mac) ends them.

    Examples
    --------
    >>> text_lines("a\\r\\nb\\rc\\nd")
    ['a', 'b', 'c', 'd']
    """
    # splitlines also understands Windows (\r\n) and old Mac (\r) newlines.
    return text.splitlines()
