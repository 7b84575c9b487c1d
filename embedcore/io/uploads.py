"""Reading what a person uploaded, one file or a pair, as one kind of data.

The app and a reproduction script outside it read uploads through the same
function, so both see the same rows (and the same seeded sample).
"""

from __future__ import annotations

import hashlib

from . import budgets
from .item_sets import read_item_sets
from .files import quote
from .results import DataError
from .sets import read_playlists, read_sets, read_song_tags
from .tables import read_documents, read_table
from .vectors import read_vectors

#: How each kind of data is read from a single file.
READERS = {
    "vectors": read_vectors,
    "item_sets": None,  # always two files
    "sets": read_sets,
    "playlists": read_playlists,
    "table": read_table,
    "documents": read_documents,
}


def upload_digest(names, blobs) -> str:
    """The SHA-1 of the files' names and bytes, in order: what identifies an upload.

    Examples
    --------
    >>> upload_digest(["a.txt"], [b"x y"])
    'ed47347e34fef0885f780298c359300b2bfcbb07'
    """
    h = hashlib.sha1()
    for name, blob in zip(names, blobs):
        h.update(name.encode())
        h.update(blob)
    return h.hexdigest()


def _label(names) -> str:
    return " + ".join(names)


def _projector_pair(names, blobs, seed: int):
    """Two files: the one whose name mentions 'meta' is the projector metadata."""
    meta = [i for i, n in enumerate(names) if "meta" in n.lower()]
    if len(names) != 2 or len(meta) != 1:
        raise DataError(
            f"Got {len(names)} files ({_label(names)}). Upload one file, or an Embedding "
            "Projector pair: a vectors TSV and a metadata TSV whose name contains 'metadata'."
        )
    m = meta[0]
    v = 1 - m
    return read_vectors(blobs[v], names[v], metadata=blobs[m], metadata_filename=names[m], seed=seed)


def _tagged_playlists(names, blobs, seed: int):
    """Playlists plus a song-tag file: the file whose name contains 'tag' holds the tags."""
    tagged = [i for i, n in enumerate(names) if "tag" in n.lower()]
    if len(tagged) != 1:
        raise DataError(
            f"Got two files ({_label(names)}). To add tags to playlists, upload the playlists and a tag file "
            "whose name contains 'tag' (one song per line: song<TAB>tag1,tag2)."
        )
    t = tagged[0]
    result = read_playlists(blobs[1 - t], names[1 - t], seed=seed)
    tags = read_song_tags(blobs[t], names[t])
    songs = {s for p in result.playlists for s in p}
    used = {s: v for s, v in tags.items() if s in songs}
    if not used:
        raise DataError(
            f"None of the {len(tags):,} songs in {names[t]} appears in the playlists (e.g. "
            f"{quote(next(iter(tags)))}). The tag file must use the playlists' song ids."
        )
    result.tags = used
    unused = len(tags) - len(used)
    result.notices.append(f"{len(used):,} of {len(songs):,} songs have tags"
                          + (f"; {unused:,} tagged song{' never appears' if unused == 1 else 's never appear'} "
                             "in a playlist and " + ("is" if unused == 1 else "are") + " ignored."
                             if unused else "."))
    return result


def _item_sets(names, blobs, seed: int):
    """Two files, item vectors and sets, in either order: the one that reads as vectors is the items."""
    if len(names) != 2:
        raise DataError(
            f"Sets of items need two files uploaded together: the item vectors (a CSV/TSV or "
            f"word2vec file whose first text column names the items) and the sets (one per line). "
            f"Got {len(names)} ({_label(names)})."
        )
    first_error = None
    for v, s in ((0, 1), (1, 0)):
        try:
            return read_item_sets(blobs[v], blobs[s], names[v], names[s], seed=seed)
        except DataError as err:
            first_error = first_error or err
    raise first_error


def read_upload(kind: str, names, blobs, seed: int = 0):
    """Read one upload (one file, or a pair where the kind takes two) as ``kind``.

    Pairs: vectors + Embedding Projector metadata, item vectors + sets, playlists + song tags.
    Raises :class:`DataError` saying what to change.

    Examples
    --------
    >>> read_upload("sets", ["baskets.txt"], [b"apple pear\\npear\\n"]).sets
    [['apple', 'pear'], ['pear']]
    >>> pair = read_upload("item_sets", ["baskets.txt", "fruit.csv"], [b"apple pear\\n", b"apple,1,0\\npear,0,1\\n"])
    >>> pair.name, pair.items  # either order: the file that reads as vectors holds the items
    ('fruit.csv + baskets.txt', ['apple', 'pear'])
    >>> read_upload("pictures", ["a.png"], [b""])
    Traceback (most recent call last):
    ...
    embedcore.exceptions.DataError: Unknown kind of data 'pictures'; one of vectors, item_sets, sets, playlists, \
table, documents.
    """
    names, blobs = list(names), list(blobs)
    if kind not in READERS:
        raise DataError(f"Unknown kind of data {kind!r}; one of {', '.join(READERS)}.")
    if kind == "item_sets":
        result = _item_sets(names, blobs, seed)
    elif kind == "playlists" and len(names) == 2:
        result = _tagged_playlists(names, blobs, seed)
    elif kind == "vectors" and len(names) > 1:
        result = _projector_pair(names, blobs, seed)
    elif len(names) != 1:
        raise DataError(
            f"Got {len(names)} files; only vectors (an Embedding Projector pair), item sets "
            "(vectors + sets) and playlists (playlists + tags) take two. Upload one file for this kind of data."
        )
    else:
        result = READERS[kind](blobs[0], names[0], seed=seed)
    for frame in (getattr(result, "frame", None), getattr(result, "meta", None)):
        budgets.check_cells(frame, result.name)
    return result
