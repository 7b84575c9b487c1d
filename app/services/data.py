"""Cached access to bundled data sets and to the person's upload.

The only place pages get data from. Cached functions take hashable
primitives (a data-set id, an upload digest, a seed); the upload's bytes are
passed unhashed next to their digest.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import streamlit as st

from embedcore import datasets, io
from embedcore.io import explain_kind, guess_kind

KIND_LABELS = {
    "vectors": "Vectors (CSV, TSV, workbook, Parquet, .npy, word vectors, Embedding Projector pair)",
    "item_sets": "Item vectors + sets (two files)",
    "sets": "Sets of items (one set per line)",
    "playlists": "Playlists (one per line)",
    "table": "Table (CSV, TSV, workbook, Parquet)",
    "documents": "Text (one document per line)",
}
#: The kinds of data an upload can be read as (embedcore.io.read_upload), in the order the Data page lists them.
READERS = tuple(KIND_LABELS)


#: The kinds of upload a page of each kind switches to on its own; other readable uploads are listed, not chosen.
ACCEPTS = {
    "vectors": {"vectors", "table"},
    "table": {"table", "vectors"},
    "documents": {"documents"},
    "labelled_documents": {"documents"},  # bundled corpora with labels; an upload is read as plain documents
    "playlists": {"playlists"},
    "sets": {"sets", "playlists"},
    "item_sets": {"item_sets"},
}
@dataclass(frozen=True)
class Upload:
    """The files a person uploaded, with a digest that identifies their bytes."""

    names: tuple[str, ...]
    blobs: tuple[bytes, ...]
    digest: str
    kind: str = "documents"
    #: one sentence: why the upload was guessed to be ``kind``
    reason: str = ""

    @property
    def label(self) -> str:
        return " + ".join(self.names)


def keep_page_upload(key: str, files) -> Upload | None:
    """Keep the files of a page's own uploader (not the sidebar's) in the session under ``key``.

    ``files`` is one uploaded file, a list of them, or None. The bytes are read and hashed
    (:func:`embedcore.io.upload_digest`) once per upload, when the uploader's file ids change, not at every rerun.
    """
    files = [] if files is None else list(files) if isinstance(files, (list, tuple)) else [files]
    ids = tuple(getattr(f, "file_id", f.name) for f in files)
    if st.session_state.get(f"{key}_ids") != ids or (files and st.session_state.get(key) is None):
        upload = None
        if files:
            names, blobs = tuple(f.name for f in files), tuple(bytes(f.getvalue()) for f in files)
            upload = Upload(names, blobs, io.upload_digest(names, blobs), kind="")
        st.session_state[f"{key}_ids"], st.session_state[key] = ids, upload
    return st.session_state.get(key)


def page_upload(key: str, digest: str, what: str) -> Upload:
    """The page's kept upload with this digest; LookupError saying ``what`` must be uploaded again otherwise."""
    upload = st.session_state.get(key)
    if upload is None or upload.digest != digest:
        raise LookupError(f"{what} this view was made from is no longer loaded: upload it again.")
    return upload


def make_upload(files) -> Upload | None:
    if not files:
        return None
    files = list(files)
    names = tuple(f.name for f in files)
    blobs = tuple(bytes(f.getvalue()) for f in files)
    kind, reason = explain_kind(names, blobs)
    return Upload(names, blobs, io.upload_digest(names, blobs), kind, reason)


@st.cache_data(max_entries=16, show_spinner=False)
def bundled(dataset_id: str, seed: int = 0):
    """A bundled data set by id."""
    return datasets.load(dataset_id, seed=seed)


@st.cache_data(max_entries=32, show_spinner=False)
def parse_upload(kind: str, digest: str, _upload: Upload, seed: int = 0):
    """Read the upload as ``kind``: returns (result, None) or (None, error message)."""
    try:
        return io.read_upload(kind, _upload.names, _upload.blobs, seed), None
    except io.DataError as err:
        return None, str(err)


def catalogue() -> dict:
    """Every bundled data set by id (title, description, kind)."""
    return dict(datasets.DATASETS)


def datasets_of_kind(kind: str) -> list:
    """The bundled data sets a page of this kind offers, in the order it lists them."""
    return datasets.datasets_of_kind(kind)


def current_upload() -> Upload | None:
    return st.session_state.get("global.upload_obj")


def source_key(source: str) -> str:
    """A cache key for the data behind a data-source choice: an upload is keyed by its digest."""
    up = current_upload()
    return f"upload:{up.digest}" if source == "upload" and up is not None else source


def seed() -> int:
    return int(st.session_state.get("global.seed", 0))


class DataRef(NamedTuple):
    """What identifies a page's data in every cache key: its kind, the bundled id or
    ``upload:<digest>``, and the seed it was read (and sampled) with."""

    kind: str
    source: str
    seed: int


def ref(kind: str, source: str) -> DataRef:
    """The reference to the data chosen in the page's data-source box."""
    return DataRef(kind, source_key(source), seed())


def load(data: DataRef):
    """The data a reference names, read through the same caches as the data-source box."""
    if data.source.startswith("upload:"):
        up = current_upload()
        if up is None or f"upload:{up.digest}" != data.source:
            raise LookupError("The upload this view was made from is no longer loaded: upload it again.")
        result, error = parse_upload(data.kind, up.digest, up, data.seed)
        if error is not None:
            raise io.DataError(error)
        return result
    return bundled(data.source, data.seed)
