"""Cached access to bundled data sets and to the person's upload.

The only place pages get data from. Cached functions take hashable
primitives (a data-set id, an upload digest, a seed); the upload's bytes are
passed unhashed next to their digest.
"""

from __future__ import annotations

import contextlib
import threading
import weakref
from collections import Counter, OrderedDict
from dataclasses import dataclass
from typing import NamedTuple

import streamlit as st

from app.services import heap
from embedcore import datasets, io
from embedcore.io import contained, explain_kind, guess_kind

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
            upload = _held(Upload(names, blobs, io.upload_digest(names, blobs), kind=""))
        st.session_state[f"{key}_ids"], st.session_state[key] = ids, upload
    return st.session_state.get(key)


def page_upload(key: str, digest: str, what: str) -> Upload:
    """The page's kept upload with this digest; LookupError saying ``what`` must be uploaded again otherwise."""
    upload = st.session_state.get(key)
    if upload is None or upload.digest != digest:
        raise LookupError(f"{what} this view was made from is no longer loaded: upload it again.")
    return upload


#: Bytes the parse cache may hold (results kept pickled, as our reader's child sent them).
PARSE_CACHE_BYTES = 1 * 2**30


class ByteCache:
    """A least-recently-used map of bytes values, bounded by their total length, safe across sessions' threads.

    A value longer than the whole budget is not kept. ``forget(digest)`` drops every entry whose key
    holds that upload digest.
    """

    def __init__(self, max_bytes: int):
        self.max_bytes = max_bytes
        self._items: OrderedDict = OrderedDict()
        self._lock = threading.Lock()
        self.nbytes = 0

    def get(self, key):
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
            return value

    def put(self, key, value: bytes) -> None:
        with self._lock:
            if key in self._items:
                self.nbytes -= len(self._items.pop(key))
            if len(value) > self.max_bytes:
                return
            self._items[key] = value
            self.nbytes += len(value)
            while self.nbytes > self.max_bytes:
                self.nbytes -= len(self._items.popitem(last=False)[1])

    def forget(self, digest: str) -> int:
        with self._lock:
            gone = [k for k in self._items if digest in k]
            for k in gone:
                self.nbytes -= len(self._items.pop(k))
        return len(gone)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self.nbytes = 0

    def __len__(self) -> int:
        return len(self._items)


#: Each upload read as each kind (and its guessed kind), by (kind, digest, seed).
PARSED = ByteCache(PARSE_CACHE_BYTES)
_reading: dict = {}  # key -> lock: one read of a file at a time, whichever sessions ask for it
_reading_lock = threading.Lock()
_live: Counter = Counter()  # digest -> uploads held by sessions


def _upload_gone(digest: str) -> None:
    """An Upload left its last session: its parsed results go, and the freed memory goes back to the system."""
    _live[digest] -= 1
    if _live[digest] <= 0:
        del _live[digest]
        if PARSED.forget(digest):
            heap.give_back()


def _held(upload: Upload) -> Upload:
    _live[upload.digest] += 1
    weakref.finalize(upload, _upload_gone, upload.digest)
    return upload


def _contained(key, fn, *args, what: str, progress: str | None) -> bytes:
    """The pickled result of ``fn(*args)`` read in a contained child (embedcore.io.contained), cached by bytes.

    A refusal is cached too, so a file that needs more than the limits is not read again at every rerun.
    """
    payload = PARSED.get(key)
    if payload is not None:
        return payload
    with _reading_lock:
        lock = _reading.setdefault(key, threading.Lock())
    with lock:
        payload = PARSED.get(key)
        if payload is None:
            waiting = st.spinner(progress, show_time=True) if progress else contextlib.nullcontext()
            with waiting:
                try:
                    payload = contained.run_pickled(fn, *args, what=what)
                except io.DataError as err:
                    payload = b"!" + str(err).encode()
            PARSED.put(key, payload)
    with _reading_lock:
        _reading.pop(key, None)
    return payload


def _what(names) -> str:
    return " + ".join(names)[:80]


def make_upload(files) -> Upload | None:
    if not files:
        return None
    files = list(files)
    names = tuple(f.name for f in files)
    blobs = tuple(bytes(f.getvalue()) for f in files)
    digest = io.upload_digest(names, blobs)
    payload = _contained(("guess", digest), explain_kind, names, blobs, what=_what(names),
                         progress=f"Looking at {_what(names)} ({sum(map(len, blobs)) / 2**20:,.1f} MB)…")
    if payload[:1] == b"!":
        kind, reason = "table", payload[1:].decode()
    else:
        kind, reason = contained.loads(payload)
    return _held(Upload(names, blobs, digest, kind, reason))


@st.cache_data(max_entries=16, show_spinner=False)
def bundled(dataset_id: str, seed: int = 0):
    """A bundled data set by id."""
    return datasets.load(dataset_id, seed=seed)


def parse_upload(kind: str, digest: str, _upload: Upload, seed: int = 0, progress: bool = False):
    """Read the upload as ``kind``: returns (result, None) or (None, error message).

    The read runs in a contained child (no file can take the server's memory or time with it) and its
    result is cached by bytes; ``progress`` shows a spinner while a read is under way (pages' own
    threads pass False).
    """
    label = _what(_upload.names)
    shown = f"Reading {label} as {kind} ({sum(map(len, _upload.blobs)) / 2**20:,.1f} MB)…" if progress else None
    payload = _contained((kind, digest, seed), io.read_upload, kind, _upload.names, _upload.blobs, seed,
                         what=label, progress=shown)
    if payload[:1] == b"!":
        return None, payload[1:].decode()
    return contained.loads(payload), None


parse_upload.clear = PARSED.clear  # type: ignore[attr-defined]

# the reader server imports its readers (about 2 s) while the first visitor looks around, not when she uploads
threading.Thread(target=contained.warm, name="lab-readers", daemon=True).start()


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
