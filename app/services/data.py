"""Cached access to bundled data sets and to the person's upload.

The only place pages get data from. Cached functions take hashable
primitives (a data-set id, an upload digest, a seed); the upload's bytes are
passed unhashed next to their digest.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import NamedTuple

import streamlit as st

from embedcore import datasets, io
from embedcore.io import guess_kind

#: How each kind of data is read from an upload.
READERS = {
    "vectors": "read_vectors",
    "item_sets": "read_item_sets",
    "sets": "read_sets",
    "playlists": "read_playlists",
    "table": "read_table",
    "documents": "read_documents",
}
KIND_LABELS = {
    "vectors": "Vectors (CSV, TSV, .npy, word2vec, Embedding Projector pair)",
    "item_sets": "Item vectors + sets (two files)",
    "sets": "Sets of items (one set per line)",
    "playlists": "Playlists (one per line)",
    "table": "Table (CSV, TSV, Parquet)",
    "documents": "Text (one document per line)",
}


#: The kinds of upload a page of each kind switches to on its own; other readable uploads are listed, not chosen.
ACCEPTS = {
    "vectors": {"vectors", "table"},
    "table": {"table", "vectors"},
    "documents": {"documents"},
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

    @property
    def label(self) -> str:
        return " + ".join(self.names)


def make_upload(files) -> Upload | None:
    if not files:
        return None
    files = list(files)
    names = tuple(f.name for f in files)
    blobs = tuple(bytes(f.getvalue()) for f in files)
    h = hashlib.sha1()
    for n, b in zip(names, blobs):
        h.update(n.encode())
        h.update(b)
    return Upload(names, blobs, h.hexdigest(), guess_kind(names, blobs))


@st.cache_data(max_entries=16, show_spinner=False)
def bundled(dataset_id: str, seed: int = 0):
    """A bundled data set by id."""
    return datasets.load(dataset_id, seed=seed)


def _split_projector_pair(upload: Upload):
    """Two files: the one whose name mentions 'meta' is the projector metadata."""
    meta = [i for i, n in enumerate(upload.names) if "meta" in n.lower()]
    if len(upload.names) != 2 or len(meta) != 1:
        raise io.DataError(
            f"Got {len(upload.names)} files ({upload.label}). Upload one file, or an Embedding "
            "Projector pair: a vectors TSV and a metadata TSV whose name contains 'metadata'."
        )
    m = meta[0]
    v = 1 - m
    return (upload.blobs[v], upload.names[v]), (upload.blobs[m], upload.names[m])


def _read_tagged_playlists(upload: Upload, seed: int):
    """Playlists plus a song-tag file: the file whose name contains 'tag' holds the tags."""
    tagged = [i for i, n in enumerate(upload.names) if "tag" in n.lower()]
    if len(tagged) != 1:
        raise io.DataError(
            f"Got two files ({upload.label}). To add tags to playlists, upload the playlists and a tag file "
            "whose name contains 'tag' (one song per line: song<TAB>tag1,tag2)."
        )
    t = tagged[0]
    result = io.read_playlists(upload.blobs[1 - t], upload.names[1 - t], seed=seed)
    tags = io.read_song_tags(upload.blobs[t], upload.names[t])
    songs = {s for p in result.playlists for s in p}
    used = {s: v for s, v in tags.items() if s in songs}
    if not used:
        raise io.DataError(
            f"None of the {len(tags):,} songs in {upload.names[t]} appears in the playlists (e.g. "
            f"{next(iter(tags))!r}). The tag file must use the playlists' song ids."
        )
    result.tags = used
    unused = len(tags) - len(used)
    result.notices.append(f"{len(used):,} of {len(songs):,} songs have tags"
                          + (f"; {unused:,} tagged song{' never appears' if unused == 1 else 's never appear'} "
                             "in a playlist and " + ("is" if unused == 1 else "are") + " ignored."
                             if unused else "."))
    return result


def _read_item_sets(upload: Upload, seed: int):
    """Two files, item vectors and sets, in either order: the one that reads as vectors is the items."""
    if len(upload.names) != 2:
        raise io.DataError(
            f"Sets of items need two files uploaded together: the item vectors (a CSV/TSV or "
            f"word2vec file whose first text column names the items) and the sets (one per line). "
            f"Got {len(upload.names)} ({upload.label})."
        )
    first_error = None
    for v, s in ((0, 1), (1, 0)):
        try:
            return io.read_item_sets(upload.blobs[v], upload.blobs[s], upload.names[v], upload.names[s], seed=seed)
        except io.DataError as err:
            first_error = first_error or err
    raise first_error


@st.cache_data(max_entries=32, show_spinner=False)
def parse_upload(kind: str, digest: str, _upload: Upload, seed: int = 0):
    """Read the upload as ``kind``: returns (result, None) or (None, error message)."""
    try:
        if kind == "item_sets":
            return _read_item_sets(_upload, seed), None
        if kind == "playlists" and len(_upload.names) == 2:
            return _read_tagged_playlists(_upload, seed), None
        if kind == "vectors" and len(_upload.names) > 1:
            (vb, vn), (mb, mn) = _split_projector_pair(_upload)
            return io.read_vectors(vb, vn, metadata=mb, metadata_filename=mn, seed=seed), None
        if len(_upload.names) > 1:
            raise io.DataError(
                f"Got {len(_upload.names)} files; only vectors (an Embedding Projector pair), item sets "
                "(vectors + sets) and playlists (playlists + tags) take two. Upload one file for this kind of data."
            )
        reader = getattr(io, READERS[kind])
        return reader(_upload.blobs[0], _upload.names[0], seed=seed), None
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
