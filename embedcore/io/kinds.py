"""Which kind of data a file holds, guessed from its name and first lines."""

from __future__ import annotations

import re

_BY_SUFFIX = {"npy": "vectors", "vec": "vectors", "w2v": "vectors", "parquet": "table"}
_EDGES = re.compile(r"^\W+|\W+$")
_WORD = re.compile(r"^[^\W\d_]+(?:['’-][^\W\d_]+)*$")


def guess_kind(names: tuple[str, ...], blobs: tuple[bytes, ...]) -> str:
    """What kind of data an upload most likely is, from its names and its first lines.

    Two files: a name with 'meta' is a projector pair (vectors), a name with
    'tag' is playlists with tags, anything else item vectors + sets. One file:
    by extension for binary formats; otherwise a delimited file with a header
    is vectors (all columns but labels numeric) or a table (a text column that
    repeats values); other text is playlists when its tokens look like ids
    (digits, underscores, or a name that says so), documents when they are words.

    Examples
    --------
    >>> guess_kind(("tips.csv",), (b"day,tip\\nMon,1\\nMon,2\\nMon,2\\nSat,3\\nSat,4\\nSat,5\\n",))
    'table'
    >>> guess_kind(("lists.txt", "song_tags.tsv"), (b"s1 s2\\n", b"s1\\trock\\n"))
    'playlists'
    """
    if len(names) > 1:
        low = [n.lower() for n in names]
        if any("meta" in n for n in low):
            return "vectors"
        if any("tag" in n for n in low):
            return "playlists"
        return "item_sets"
    name = names[0].lower()
    suffix = name.rsplit(".", 1)[-1] if "." in name else ""
    if suffix in _BY_SUFFIX:
        return _BY_SUFFIX[suffix]
    head = blobs[0][:20000].decode("utf-8", errors="replace").lstrip("\ufeff").splitlines()
    head = [ln for ln in head[:200] if ln.strip()]
    if not head:
        return "documents"
    for sep in ("\t", ","):
        widths = {len(ln.split(sep)) for ln in head[:50]}
        if len(widths) == 1 and widths.pop() >= 2 and (sep == "," or suffix in ("tsv", "tab")):
            rows = [ln.split(sep) for ln in head[1:50]] or [head[0].split(sep)]
            text_cols = [j for j in range(len(rows[0])) if not all(_is_number_text(r[j]) for r in rows)]
            if not text_cols:
                return "vectors"
            repeats = any(len({r[j] for r in rows}) < len(rows) / 2 for j in text_cols)
            return "table" if repeats and len(text_cols) < len(rows[0]) else "vectors"
    if suffix in ("csv", "tsv", "tab"):
        return "vectors"  # delimited, if ragged: the vector reader says which line to fix
    if "\t" in head[0] and all("\t" in ln for ln in head[:20]):
        return "sets"
    tokens = [t for ln in head for t in ln.replace(",", " ").split()]
    if all(_is_number_text(t) for t in tokens[1:]) and all(len(ln.split()) == 1 for ln in head):
        return "vectors"
    if any(w in name for w in ("playlist", "song", "track")):
        return "playlists"
    words = sum(bool(_WORD.match(_EDGES.sub("", t))) for t in tokens)
    return "documents" if words >= 0.7 * len(tokens) else "playlists"


def _is_number_text(cell: str) -> bool:
    """A cell that reads as a number, or an empty cell."""
    try:
        float(cell)
        return True
    except ValueError:
        return cell.strip() == ""
