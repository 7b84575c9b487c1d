"""Affinity matrices: how alike every pair of categories is, one row and one column per category."""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .results import DataError, Parsed
from .files import decode_bytes, plural, source_bytes, quote

_EXPECTED = ("an affinity matrix (a CSV with the category names across the first line and down the first column, "
             "and a similarity >= 0 in every other cell)")
#: Differences between A[i, j] and A[j, i] below this share of the largest entry are rounding, not asymmetry.
_SYMMETRY_RTOL = 1e-9


@dataclass
class AffinityData(Parsed):
    """A square, symmetric, non-negative similarity matrix over named categories, with a zero diagonal.

    ``symmetrised`` says the file's matrix was not symmetric and ``(A + A^T) / 2`` is used.

    Examples
    --------
    >>> m = read_affinity_matrix(b",a,b\\na,0,1\\nb,3,0\\n", "kernel.csv")
    >>> m.labels, m.matrix.tolist(), m.symmetrised
    (['a', 'b'], [[0.0, 2.0], [2.0, 0.0]], True)
    """

    labels: list[str]
    matrix: np.ndarray
    symmetrised: bool = False


def _grid(text: str, name: str) -> tuple[np.ndarray, np.ndarray]:
    """The file's cells as strings (lines x fields) and each line's 1-based number; blank and # lines skipped."""
    lines = text.splitlines()
    keep = [i for i, ln in enumerate(lines) if ln.strip() and not ln.lstrip().startswith("#")]
    if not keep:
        raise DataError(f"{name} is empty. Upload {_EXPECTED}.")
    first = lines[keep[0]]
    sep = next((s for s in ("\t", ",", ";") if s in first), None)
    body = "\n".join(lines[i] for i in keep)
    try:
        frame = pd.read_csv(io.StringIO(body), sep=r"\s+" if sep is None else sep, header=None, dtype=str,
                            keep_default_na=False, na_filter=False, skip_blank_lines=False, engine="c",
                            quoting=csv.QUOTE_NONE if sep is None else csv.QUOTE_MINIMAL)
    except pd.errors.ParserError as err:
        found = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", str(err))
        if found:
            want, at, saw = (int(v) for v in found.groups())
            raise DataError(f"{name}, line {keep[at - 1] + 1}: {plural(saw, 'field')} where the lines above have "
                            f"{want}. Every line of a matrix has the same number of cells.") from None
        raise DataError(f"{name}: cannot read it as {_EXPECTED} ({err}).") from None
    cells = frame.to_numpy(dtype=object)
    cells = np.where(pd.isna(cells), "", cells).astype(str)
    return np.char.strip(cells), np.asarray(keep, dtype=np.int64) + 1


def _numeric(cells: np.ndarray) -> np.ndarray:
    """Each cell as a float (NaN where it is not a number)."""
    flat = pd.to_numeric(pd.Series(cells.ravel()), errors="coerce").to_numpy(dtype=np.float64)
    return flat.reshape(cells.shape)


def _layout(cells: np.ndarray, name: str) -> tuple[list[str], list[str], np.ndarray, int, bool]:
    """(row names, column names, value cells, the grid row of the first values, whether the file names them)."""
    r, c = cells.shape
    numbers = ~np.isnan(_numeric(cells))
    if r == c + 1 and numbers[1:].all():  # the names across the top only
        names = cells[0].tolist()
        return names, names, cells[1:], 1, True
    if r == c and numbers.all():  # no names at all
        names = [f"c{i + 1}" for i in range(c)]
        return names, names, cells, 0, False
    if r >= 2 and c >= 2 and ((~numbers[0]).any() or (~numbers[:, 0]).any()):
        rows, cols, values = cells[1:, 0].tolist(), cells[0, 1:].tolist(), cells[1:, 1:]
        if values.shape[0] != values.shape[1]:
            r_, c_ = values.shape
            raise DataError(f"{name}: the matrix is {r_} x {c_} ({plural(r_, 'row')} below the names, "
                            f"{plural(c_, 'column')} right of them); it must be "
                            "square, one row and one column per category.")
        return rows, cols, values, 1, True
    raise DataError(f"{name}: {plural(r, 'line')} of {plural(c, 'field')} cannot be a square matrix. Put the "
                    "category names across the first line and down the first column, and a number in every other "
                    "cell (n + 1 lines of n + 1 fields for n categories).")


def _check_names(rows: list[str], cols: list[str], name: str) -> np.ndarray:
    """The column order that matches the rows' names (DataError when the names differ)."""
    for where, names in (("first column", rows), ("first line", cols)):
        if "" in names:
            raise DataError(f"{name}: the {where} has an empty category name (name number {names.index('') + 1}). "
                            "Give every row and column a name.")
        seen = pd.Index(names)
        if not seen.is_unique:
            raise DataError(f"{name}: the {where} names {quote(seen[seen.duplicated()][0])} twice; each category gets "
                            "one row and one column.")
    only_rows = [v for v in rows if v not in set(cols)]
    only_cols = [v for v in cols if v not in set(rows)]
    if only_rows or only_cols:
        parts = []
        if only_rows:
            parts.append(f"{', '.join(repr(v) for v in only_rows[:5])}{', ...' if len(only_rows) > 5 else ''} "
                         f"name{'s' if len(only_rows) == 1 else ''} a row but no column")
        if only_cols:
            parts.append(f"{', '.join(repr(v) for v in only_cols[:5])}{', ...' if len(only_cols) > 5 else ''} "
                         f"name{'s' if len(only_cols) == 1 else ''} a column but no row")
        raise DataError(f"{name}: the names down the first column and across the first line differ: "
                        f"{'; '.join(parts)}. Use the same names for the rows and the columns.")
    return pd.Index(cols).get_indexer(rows)


def _values(values: np.ndarray, rows: list[str], cols: list[str], line_no: np.ndarray, name: str) -> np.ndarray:
    """The cells as floats; DataError naming the first cell that is not a finite number >= 0."""
    A = _numeric(values)
    bad = np.argwhere(~np.isfinite(A) | (A < 0))
    if bad.size:
        i, j = (int(v) for v in bad[0])
        text = str(values[i, j])
        what = ("is empty" if text == "" else "is not a number" if np.isnan(A[i, j]) else
                "is not finite" if not np.isfinite(A[i, j]) else "is negative")
        fix = ("Put a similarity (a number >= 0; 0 for 'not alike at all') in every cell."
               if what != "is negative" else "Affinities are similarities, not correlations: shift or clip them to "
               ">= 0.")
        raise DataError(f"{name}, line {line_no[i]}: the cell for {quote(rows[i])} and {quote(cols[j])} "
                        f"({quote(text)}) {what}. {fix}")
    return A


def read_affinity_matrix(source: Any, filename: str | None = None) -> AffinityData:
    """Read a square similarity matrix over named categories (CSV, TSV, semicolons or spaces).

    The usual layout is a table with the category names across the first
    line and down the first column (the top-left cell is free), as
    ``pandas.DataFrame.to_csv`` writes a square frame. Two other layouts are
    read too: the names across the first line only, and no names at all
    (then the categories are called ``c1, c2, ...``, with a notice). The
    columns may list the names in another order than the rows; they are
    matched by name.

    Nothing is changed silently. A matrix that is not symmetric is replaced
    by ``(A + A^T) / 2`` and the diagonal (a category's similarity to itself,
    a self-loop of the graph) is set to 0, each with a notice. A cell that is
    empty, not a number, infinite or negative, names that differ between rows
    and columns, a repeated or empty name, a matrix that is not square or
    that has fewer than two categories raise :class:`DataError` naming it.

    Examples
    --------
    >>> m = read_affinity_matrix(b",a,b,c\\na,1,2,0\\nb,2,1,1\\nc,0,1,1\\n", "kernel.csv")
    >>> m.labels, m.matrix.tolist()
    (['a', 'b', 'c'], [[0.0, 2.0, 0.0], [2.0, 0.0, 1.0], [0.0, 1.0, 0.0]])
    >>> m.notices
    ["kernel.csv: the diagonal (each category's similarity to itself) is set to 0: the graph has no self-loops."]
    """
    data, name = source_bytes(source, filename)
    decoded: list[str] = []
    cells, line_no = _grid(decode_bytes(data, name, _EXPECTED, decoded), name)
    rows, cols, values, first_line, named = _layout(cells, name)
    result = AffinityData(name, labels=[], matrix=np.zeros((0, 0)), notices=decoded)
    if not named:
        result.notices.append(f"{name} has no category names; they are called c1 to c{len(rows)} in the file's order.")
    order = _check_names(rows, cols, name)
    if len(rows) < 2:
        raise DataError(f"{name} has one category ({quote(rows[0])}); a similarity matrix needs at least two.")
    A = _values(values, rows, cols, line_no[first_line:], name)[:, order]
    if not (order == np.arange(len(order))).all():
        result.notices.append(f"{name}: the columns list the categories in another order than the rows; they are "
                              "matched by name.")
    diff = np.abs(A - A.T)
    scale = max(float(A.max()), 1e-300)
    if diff.max() > _SYMMETRY_RTOL * scale:
        i, j = (int(v) for v in np.unravel_index(np.argmax(diff), diff.shape))
        n_pairs = int((np.triu(diff, 1) > _SYMMETRY_RTOL * scale).sum())
        result.notices.append(
            f"{name} is not symmetric ({n_pairs:,} of its pairs differ; the most: {quote(rows[i])} to {quote(rows[j])} is "
            f"{A[i, j]:g} but {quote(rows[j])} to {quote(rows[i])} is {A[j, i]:g}). The page uses (A + Aᵀ) / 2, the mean of "
            "the two directions.")
        A = (A + A.T) / 2
        result.symmetrised = True
    if np.diag(A).any():
        result.notices.append(f"{name}: the diagonal (each category's similarity to itself) is set to 0: the graph "
                              "has no self-loops.")
        np.fill_diagonal(A, 0.0)
    result.labels = [str(v) for v in rows]
    result.matrix = A
    return result
