"""Result types and the one error every reader raises."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

#: Largest file any reader accepts; larger files are refused, never cut.
MAX_BYTES = 200 * 2**20
#: Rows above which vector files are sampled (with a notice) rather than used whole, however narrow they are.
MAX_VECTOR_ROWS = 200_000
#: Narrow tables (a map's x and y with a few more columns) keep more rows, up to this many numbers in all
#: (512 MB as float64) ...
MAX_VECTOR_CELLS = 64_000_000
#: ... and this many rows at most.
MAX_POINT_ROWS = 1_000_000


def vector_rows(width: int) -> int:
    """The rows a vector table of ``width`` numeric columns keeps whole: :data:`MAX_VECTOR_ROWS` at least,
    more while the numbers fit in :data:`MAX_VECTOR_CELLS`, never more than :data:`MAX_POINT_ROWS`.

    Examples
    --------
    >>> vector_rows(2), vector_rows(64), vector_rows(256), vector_rows(1024)
    (1000000, 1000000, 250000, 200000)
    """
    return int(min(MAX_POINT_ROWS, max(MAX_VECTOR_ROWS, MAX_VECTOR_CELLS // max(int(width), 1))))

#: Cells that mean "missing" (compared stripped and lower-cased): ours and pandas' defaults.
NA_TOKENS = frozenset(
    {"", "na", "nan", "null", "none", "n/a", "-", "#n/a", "#n/a n/a", "#na", "<na>", "-nan",
     "1.#ind", "-1.#ind", "1.#qnan", "-1.#qnan"}
)
MAGIC = [
    (b"\x93NUMPY", "a NumPy .npy file", ".npy"),
    (b"PAR1", "a Parquet file", ".parquet"),
    (b"PK\x03\x04", "a ZIP archive (an .xlsx or .npz file?)", ".zip"),
    (b"\x89PNG", "a PNG image", ".png"),
    (b"\xff\xd8\xff", "a JPEG image", ".jpg"),
    (b"%PDF", "a PDF document", ".pdf"),
    (b"\x1f\x8b", "a gzip-compressed file", ".gz"),
    (b"BZh", "a bzip2-compressed file", ".bz2"),
]


from ..exceptions import DataError  # noqa: E402  (re-exported: io's readers raise it)


# --------------------------------------------------------------------------- results


@dataclass
class Parsed:
    """What every reader's result holds: the file's ``name``, ``notices`` for a person, ``dropped`` counts.

    Nothing is left out silently: every row a reader drops or samples away is
    counted in ``dropped`` (reason -> count) and explained in ``notices``.

    Examples
    --------
    >>> from embedcore.io import read_vectors
    >>> data = read_vectors(b"1 2\\n3 nan\\n5 6\\n", "v.txt")
    >>> isinstance(data, Parsed), data.name, data.dropped
    (True, 'v.txt', {'rows with a missing value': 1})
    >>> data.notices
    ['Dropped 1 row with a missing value (line 2).']
    """

    name: str
    notices: list[str] = field(default_factory=list, kw_only=True)
    dropped: dict[str, int] = field(default_factory=dict, kw_only=True)


@dataclass
class VectorData(Parsed):
    """Vectors read from a file: ``X`` (n x d float64) and optional ``meta``.

    Examples
    --------
    >>> from embedcore.io import read_vectors
    >>> v = read_vectors(b"x,y,label\\n1,2,a\\n3,4,b\\n", "points.csv")
    >>> v.X.tolist(), v.meta["label"].tolist(), v.columns
    ([[1.0, 2.0], [3.0, 4.0]], ['a', 'b'], ['x', 'y'])
    """

    X: np.ndarray
    meta: pd.DataFrame | None = None
    columns: list[str] = field(default_factory=list)
    #: 0-based position in the file's data rows of every kept row (rows with missing
    #: values are dropped), so a second file of per-row metadata can be aligned.
    source_rows: np.ndarray | None = None


@dataclass
class SetData(Parsed):
    """Sets of item names, one per line, with optional labels.

    Examples
    --------
    >>> from embedcore.io import read_sets
    >>> s = read_sets(b"fruit\\tapple pear\\nveg\\tleek\\n", "baskets.txt")
    >>> s.sets, s.labels
    ([['apple', 'pear'], ['leek']], ['fruit', 'veg'])
    """

    sets: list[list[str]]
    labels: list[str] | None = None


@dataclass
class PlaylistData(Parsed):
    """Playlists as lists of song names, one per line (bundled sets may add tags and a true model).

    It behaves as the list of its playlists: ``len``, iteration and indexing.

    Examples
    --------
    >>> from embedcore.io import read_playlists
    >>> p = read_playlists(b"s1 s2 s3\\ns2 s4\\n", "lists.txt")
    >>> len(p), p[1], p.tags is None
    (2, ['s2', 's4'], True)
    """

    playlists: list[list[str]]
    tags: dict | None = None
    truth: Any = None
    description: str = ""
    #: Songs in the file's one playlist when it held only one (then cut into sessions if long), else None:
    #: a held-out split needs two playlists, so a page may cut it again (:func:`.sets.cut_into_sessions`).
    one_playlist: int | None = None

    def __len__(self) -> int:
        return len(self.playlists)

    def __iter__(self):
        return iter(self.playlists)

    def __getitem__(self, i):
        return self.playlists[i]


@dataclass
class ItemSets(Parsed):
    """Item vectors with sets of those items (what EMDE sketches).

    ``weights``, when given, holds one list of weights per set, aligned with
    its items (e.g. pixel intensities); otherwise every occurrence counts 1.

    Examples
    --------
    >>> import numpy as np
    >>> data = ItemSets("fruit", items=["apple", "pear"], vectors=np.eye(2), sets=[["apple", "pear", "pear"], ["pear"]])
    >>> data.weight_matrix().toarray().tolist()  # repeats add up
    [[1.0, 2.0], [0.0, 1.0]]
    """

    items: list[str]
    vectors: np.ndarray
    sets: list[list[str]]
    labels: list[str] | None = None
    weights: list[list[float]] | None = None
    description: str = ""

    def weight_matrix(self):
        """Sparse (n_sets x n_items) weights: repeats add up, given weights are used."""
        from .._sparse import flat_weights, flatten, ragged_to_csr

        offsets, flat = flatten(self.sets)
        cols = pd.Index(self.items).get_indexer(flat) if flat else np.zeros(0, dtype=np.int64)
        if (cols < 0).any():
            item = str(flat[int(np.flatnonzero(cols < 0)[0])])
            raise DataError(f"The item {item if len(item) <= 80 else item[:79] + '…'!r} of the sets is not one of the "
                            "items; every item in a set needs a vector.")
        data = None
        if self.weights is not None:
            try:
                data = flat_weights(self.weights, offsets)
            except ValueError as err:
                raise DataError(str(err)) from None
        return ragged_to_csr(offsets, cols, len(self.items), data)


@dataclass
class TableData(Parsed):
    """A table of categorical and numeric columns, as a pandas ``frame`` (numeric columns as floats).

    Examples
    --------
    >>> from embedcore.io import read_table
    >>> t = read_table(b"day,tip\\nMon,1\\nTue,2.5\\n", "tips.csv")
    >>> t.frame.to_dict("list")
    {'day': ['Mon', 'Tue'], 'tip': [1.0, 2.5]}
    """

    frame: pd.DataFrame


@dataclass
class DocumentData(Parsed):
    """Text documents, one string each (a line of the file, or a sentence of a long text).

    Examples
    --------
    >>> from embedcore.io import read_documents
    >>> read_documents(b"the cat sat\\na dog ran\\n", "pets.txt").documents
    ['the cat sat', 'a dog ran']
    """

    documents: list[str]
