"""Result types and the one error every reader raises."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

#: Largest file any reader accepts; larger files are refused, never cut.
MAX_BYTES = 200 * 2**20
#: Rows above which vector files are sampled (with a notice) rather than used whole.
MAX_VECTOR_ROWS = 200_000

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
    name: str
    notices: list[str] = field(default_factory=list, kw_only=True)
    dropped: dict[str, int] = field(default_factory=dict, kw_only=True)


@dataclass
class VectorData(Parsed):
    """Vectors read from a file: ``X`` (n x d float64) and optional ``meta``."""

    X: np.ndarray
    meta: pd.DataFrame | None = None
    columns: list[str] = field(default_factory=list)
    #: 0-based position in the file's data rows of every kept row (rows with missing
    #: values are dropped), so a second file of per-row metadata can be aligned.
    source_rows: np.ndarray | None = None


@dataclass
class SetData(Parsed):
    """Sets of item names, one per line, with optional labels."""

    sets: list[list[str]]
    labels: list[str] | None = None


@dataclass
class PlaylistData(Parsed):
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
class ItemSets(Parsed):
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
    frame: pd.DataFrame


@dataclass
class DocumentData(Parsed):
    documents: list[str]
