"""Tables (CSV, TSV, Parquet) and text corpora (one document per line)."""

from __future__ import annotations

import io
import re
from typing import Any

import numpy as np
import pandas as pd

from ..tokens import check_word_spacing
from . import budgets
from .results import DataError, DocumentData, TableData
from .files import decode_bytes, file_extension, text_lines, source_bytes, quote, plural
from .text import find_header, number_cells, sample_lines, text_grid, typed_columns, unique_names, sample_list_into


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
    data, name = source_bytes(source, filename)
    if file_extension(name) == ".parquet" or data.startswith(b"PAR1"):
        frame = parquet_frame(data, name)
        result = TableData(name, frame=frame)
        line_no = np.arange(1, len(frame) + 1)
    else:
        notices: list[str] = []
        text = decode_bytes(data, name, "a CSV or TSV table", notices)
        grid = text_grid(text, name, head_rows=50)
        notices += grid.notices or []
        line_no = grid.line_no
        header = find_header(grid.head)
        if not header and len(grid.head) > 1:
            numeric_any = number_cells(grid.head[1:]).all(axis=0).any()
            row0 = [str(v).strip() for v in grid.head[0]]
            header = not numeric_any and len(set(row0)) == len(row0)
        if header:
            names = unique_names(list(grid.head[0]))
            line_no = line_no[1:]
            if len(line_no) == 0:
                raise DataError(f"{name} has a header line ({quote(', '.join(names[:6]))}) but no rows below it. "
                               "Add the rows, or upload the file that holds them.")
        else:
            names = [f"column{i + 1}" for i in range(grid.head.shape[1])]
        X, numeric, text_frame, _ = typed_columns(grid, name, header, line_no, names)
        frame = pd.concat([pd.DataFrame(X, columns=numeric), text_frame], axis=1)[list(range(len(names)))]
        frame.columns = names
        result = TableData(name, frame=frame, notices=notices)
    empty = [c for c in frame.columns if frame[c].isna().all()]
    if empty and len(empty) < frame.shape[1]:
        frame = frame.drop(columns=empty)
        result.notices.append(f"Column{'s' if len(empty) > 1 else ''} {quote(', '.join(map(str, empty)))} of {name} "
                              f"{'have' if len(empty) > 1 else 'has'} no value in any row and "
                              f"{'are' if len(empty) > 1 else 'is'} left out.")
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
    idx = sample_lines(len(frame), max_rows, seed, result, "rows")
    if idx is not None:
        frame = frame.iloc[idx].reset_index(drop=True)
    result.frame = frame
    return result


#: Characters above which a text on one to three lines is split into documents.
LONG_LINE = 2_000
#: Words per document when a text without sentence ends is cut into windows.
WINDOW_WORDS = 50
#: A whitespace-separated token without a letter or digit (punctuation alone is not counted).
_SYMBOL_TOKEN = re.compile(r"(?<!\S)(?=[^\s]*[^\w\s.,;:!?'\"()\[\]-])[^\w\s]+(?!\S)")
_WINDOW = re.compile(r"(?:\S+\s*){1,%d}" % WINDOW_WORDS)
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])[\"'”’)\]]*\s+")


def split_prose(text: str) -> list[str]:
    """A long text as documents: its sentences, and any sentence of more than
    :data:`WINDOW_WORDS` words cut into windows of that many.

    Examples
    --------
    >>> split_prose("One two. Three four five! Six?")
    ['One two.', 'Three four five!', 'Six?']
    """
    docs = []
    for sentence in _SENTENCE_END.split(text):
        # window by window: a sentence of 28 million words split at once would be 1.7 GB of word objects
        for window in _WINDOW.finditer(sentence):
            docs.append(" ".join(window.group().split()))
    return [d for d in docs if d]


def parquet_frame(data: bytes, name: str) -> pd.DataFrame:
    """A Parquet file's table, with unique string column names; DataError when it cannot be read.

    Examples
    --------
    >>> import io
    >>> import pandas as pd
    >>> buffer = io.BytesIO()
    >>> pd.DataFrame({"day": ["Mon", "Tue"], "tip": [1.5, 2.0]}).to_parquet(buffer)
    >>> parquet_frame(buffer.getvalue(), "tips.parquet").to_dict("list")
    {'day': ['Mon', 'Tue'], 'tip': [1.5, 2.0]}
    >>> parquet_frame(b"day,tip\\n", "t.parquet")
    Traceback (most recent call last):
    ...
    embedcore.exceptions.DataError: t.parquet is named .parquet but is not a Parquet file. Rename it to .csv or .tsv.
    """
    if not data.startswith(b"PAR1"):
        raise DataError(f"{name} is named .parquet but is not a Parquet file. Rename it to .csv or .tsv.")
    budgets.check_parquet(data, name)  # from the footer, before any column is decoded
    try:
        frame = pd.read_parquet(io.BytesIO(data))
    except ImportError:
        raise DataError(f"{name} is a Parquet file, and reading Parquet needs pyarrow, which is not installed: "
                        "pip install pyarrow (or embedding-lab[app]), or save the table as CSV.") from None
    except Exception as err:
        raise DataError(f"{name} is a damaged Parquet file ({quote(str(err), 80)}). Save it again.") from None
    if frame.empty:
        raise DataError(f"{name} has no rows.")
    frame.columns = unique_names([str(c) for c in frame.columns])
    return frame


def read_documents(
    source: Any, filename: str | None = None, *, max_documents: int = 200_000, seed: int = 0
) -> DocumentData:
    """Read plain text with one document per line (blank lines skipped and counted).

    Text in a script written without spaces between words (Chinese, Japanese,
    Thai) is refused unless it is segmented, one space between words; see
    :func:`embedcore.words.check_word_spacing`.

    Examples
    --------
    >>> docs = read_documents(b"the cat sat\\n\\na dog ran\\n", "pets.txt")
    >>> docs.documents, docs.notices
    (['the cat sat', 'a dog ran'], ['Skipped 1 blank line.'])
    """
    data, name = source_bytes(source, filename)
    notices: list[str] = []
    text = decode_bytes(data, name, "a plain text file", notices)
    lines = text_lines(text)
    docs = [ln.strip() for ln in lines if ln.strip()]
    if not docs:
        raise DataError(f"{name} is empty. Put one document (a sentence or a paragraph) on each line.")
    check_word_spacing(docs, name)
    if len(docs) <= 3 and sum(map(len, docs)) >= LONG_LINE:
        whole = len(docs)
        docs = split_prose(" ".join(docs))
        notices.append(f"{name} holds its text on {plural(whole, 'line')}; it is split into "
                       f"{len(docs):,} documents at sentence ends (or every {WINDOW_WORDS} words where "
                       "a sentence runs longer). Put one document on each line to choose the split yourself.")
    symbols = _SYMBOL_TOKEN.findall(text)
    if symbols:
        seen = list(dict.fromkeys(symbols))
        notices.append(f"{name} holds {plural(len(symbols), 'token')} made only of symbols or emoji "
                       f"(such as {', '.join(quote(t, 12) for t in seen[:4])}); words are letters and digits, "
                       "so the word and text pages leave these out.")
    result = DocumentData(name, documents=docs, notices=notices)
    skipped = sum(1 for ln in lines if not ln.strip())
    if skipped:
        result.notices.append(f"Skipped {skipped} blank line{'s' if skipped > 1 else ''}.")
    return sample_list_into(result, "documents", docs, max_documents, seed, "documents")
