"""Any reader's result as named NumPy arrays: what an export writes and a script compares."""

from __future__ import annotations

import numpy as np

from . import results as r


def _ragged(prefix: str, rows) -> dict[str, np.ndarray]:
    """Lists of strings as one flat array of values and one of row lengths."""
    rows = [list(map(str, r)) for r in rows]
    flat = [x for r in rows for x in r]
    return {f"{prefix}_values": np.array(flat, dtype=str), f"{prefix}_lengths": np.array([len(r) for r in rows])}


def as_arrays(data) -> dict[str, np.ndarray]:
    """The data a reader returned, as arrays of numbers or strings (never objects).

    Examples
    --------
    >>> import numpy as np
    >>> from embedcore.io import read_sets
    >>> out = as_arrays(read_sets(b"a b\\nc\\n", "s.txt"))
    >>> out["sets_values"].tolist(), out["sets_lengths"].tolist()
    (['a', 'b', 'c'], [2, 1])
    """
    if isinstance(data, r.VectorData):
        out = {"X": np.asarray(data.X)}
        if data.meta is not None:
            for i, col in enumerate(data.meta.columns):
                out[f"meta_{i}"] = data.meta[col].astype(str).to_numpy(dtype=str)
        return out
    if isinstance(data, r.TableData):
        return {f"column_{i}": data.frame[c].astype(str).to_numpy(dtype=str) for i, c in enumerate(data.frame.columns)}
    if isinstance(data, r.DocumentData):
        return {"documents": np.array(data.documents, dtype=str)}
    if isinstance(data, r.PlaylistData):
        return _ragged("playlists", data.playlists)
    if isinstance(data, r.ItemSets):
        out = {"items": np.array(data.items, dtype=str), "vectors": np.asarray(data.vectors), **_ragged("sets", data.sets)}
        if data.labels is not None:
            out["labels"] = np.array(data.labels, dtype=str)
        return out
    if isinstance(data, r.SetData):
        out = _ragged("sets", data.sets)
        if data.labels is not None:
            out["labels"] = np.array(data.labels, dtype=str)
        return out
    raise TypeError(f"No array form for {type(data).__name__}.")
