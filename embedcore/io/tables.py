"""Tables (CSV, TSV, Parquet) and text corpora (one document per line)."""

from __future__ import annotations

import io
from typing import Any

import numpy as np
import pandas as pd

from ..tokens import check_word_spacing
from .results import DataError, DocumentData, TableData
from .text import (
    decode_bytes,
    file_extension,
    find_header,
    text_lines,
    number_cells,
    sample_lines,
    source_bytes,
    text_grid,
    typed_columns,
    unique_names,
    sample_list_into,
)


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
        if not data.startswith(b"PAR1"):
            raise DataError(f"{name} is named .parquet but is not a Parquet file. Rename it to .csv or .tsv.")
        try:
            frame = pd.read_parquet(io.BytesIO(data))
        except ImportError:
            raise DataError(f"{name} is a Parquet file, and reading Parquet needs pyarrow, which is not installed: "
                            "pip install pyarrow (or embedding-lab[app]), or save the table as CSV.") from None
        except Exception as err:
            raise DataError(f"{name} is a damaged Parquet file ({err}).") from None
        if frame.empty:
            raise DataError(f"{name} has no rows.")
        frame.columns = unique_names([str(c) for c in frame.columns])
        result = TableData(name, frame=frame)
        line_no = np.arange(1, len(frame) + 1)
    else:
        text = decode_bytes(data, name, "a CSV or TSV table")
        grid = text_grid(text, name, head_rows=50)
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
                raise DataError(f"{name} has a header line ({', '.join(names[:6])}) but no rows below it.")
        else:
            names = [f"column{i + 1}" for i in range(grid.head.shape[1])]
        X, numeric, text_frame, _ = typed_columns(grid, name, header, line_no, names)
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
    idx = sample_lines(len(frame), max_rows, seed, result, "rows")
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
    data, name = source_bytes(source, filename)
    text = decode_bytes(data, name, "a plain text file")
    lines = text_lines(text)
    docs = [ln.strip() for ln in lines if ln.strip()]
    if not docs:
        raise DataError(f"{name} is empty. Put one document (a sentence or a paragraph) on each line.")
    check_word_spacing(docs, name)
    result = DocumentData(name, documents=docs)
    skipped = len(lines) - len(docs)
    if skipped:
        result.notices.append(f"Skipped {skipped} blank line{'s' if skipped > 1 else ''}.")
    return sample_list_into(result, "documents", docs, max_documents, seed, "documents")
