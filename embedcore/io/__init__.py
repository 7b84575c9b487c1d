"""Parsing and validation of every file a person can give the lab.

Every reader accepts a path, raw bytes, or a file-like object with ``read`` or
``getvalue`` (such as Streamlit's ``UploadedFile``), and raises exactly one
exception type, :class:`DataError`, whose message names the file, the line or
column and the offending value, and says what to change.

Nothing is dropped or shortened silently: every reader returns its result
with ``notices`` (sentences for a person) and ``dropped`` (reason -> count).

The package splits the work by kind of file: ``results`` (result types and
:class:`DataError`), ``files`` (bytes to text: sources, size limit, encodings, spreadsheets), ``text`` (the grid of typed
fields every text reader shares), ``vectors``, ``sets`` (sets, playlists, song tags),
``tables`` (tables and documents), ``item_sets``, ``matrices`` (affinity matrices), ``kinds`` (which kind of
data a file holds) and ``uploads`` (one upload, a file or a pair, read as a kind).
"""

from __future__ import annotations

from .arrays import as_arrays
from .item_sets import read_item_sets
from .kinds import explain_kind, guess_kind
from .matrices import AffinityData, read_affinity_matrix
from .results import (
    MAX_BYTES,
    MAX_VECTOR_ROWS,
    MAX_POINT_ROWS,
    MAX_VECTOR_CELLS,
    vector_rows,
    DataError,
    DocumentData,
    ItemSets,
    PlaylistData,
    SetData,
    TableData,
    VectorData,
)
from .sets import read_playlists, read_sets, read_song_tags
from .tables import read_documents, read_table
from .uploads import read_upload, upload_digest
from .vectors import read_vectors

__all__ = [
    "DataError",
    "VectorData",
    "SetData",
    "PlaylistData",
    "TableData",
    "DocumentData",
    "ItemSets",
    "read_vectors",
    "read_sets",
    "read_playlists",
    "read_table",
    "read_documents",
    "read_item_sets",
    "read_song_tags",
    "read_affinity_matrix",
    "AffinityData",
    "MAX_BYTES",
    "MAX_VECTOR_ROWS",
    "MAX_POINT_ROWS",
    "MAX_VECTOR_CELLS",
    "vector_rows",
    "guess_kind",
    "explain_kind",
    "read_upload",
    "upload_digest",
    "as_arrays",
]
