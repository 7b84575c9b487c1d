"""Selections on maps, the inspected point, and a pinned embedding: their state, and what they compute.

A box, a lasso or a click on a map (:mod:`app.ui.map`) reaches the server as the
point indices it chose (:func:`on_map_select`). What a person chose is kept in
session state under the page's prefix (``"words.selection"``), as the ids of the
items, next to what identifies the items drawn (the page's ``data`` key): a
rerun that keeps the items (another B, another window) keeps the selection, one
that changes them (another data set, seed or sample) drops it. A chart redrawn
with a new figure forgets its own selection, so this state is the one the page
reads.

A pinned embedding is just its ids and coordinates, with a line saying which
setting made it; the comparison with the current one (neighbour overlap at k,
Procrustes disparity) is computed by :mod:`embedcore.compare` on the items both hold.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

from embedcore.compare import common_neighbours, compare_embeddings, point_neighbours

#: The map's mouse modes, as the radio shows them, and the map component's mode for each.
MODES = {"select a box": "box", "select a lasso": "lasso", "click a point": "click"}


@dataclass(frozen=True)
class Selection:
    """The items chosen on a page's map (their ids, in the order they were drawn) and the inspected one."""

    data: Any
    ids: tuple = ()
    point: Any = None


@dataclass(frozen=True)
class Pinned:
    """An embedding kept to compare the next one with: ids, coordinates and what made it."""

    data: Any
    ids: np.ndarray
    coords: np.ndarray
    label: str


def _plain(value):
    """A numpy scalar as a Python one: ids are compared and stored as plain values."""
    return value.item() if isinstance(value, np.generic) else value


def selection(page: str, data) -> Selection:
    """The page's selection for the items ``data`` identifies (empty when they changed)."""
    key = f"{page}.selection"
    found = st.session_state.get(key)
    if not isinstance(found, Selection) or found.data != data:
        found = Selection(data)
        st.session_state[key] = found
    return found


def _store(page: str, value: Selection) -> None:
    st.session_state[f"{page}.selection"] = value


def select(page: str, data, ids, indices, *, dragged: bool = True) -> None:
    """Record a selection (``dragged``: a box or a lasso) or a clicked point on the map
    drawn with ``ids``."""
    ids = np.asarray(ids, dtype=object)
    indices = [i for i in indices if 0 <= i < len(ids)]
    current = selection(page, data)
    if dragged:
        current = replace(current, ids=tuple(_plain(ids[i]) for i in sorted(indices)))
    elif indices:
        current = replace(current, point=_plain(ids[indices[0]]))
    else:  # a double click or a click beside the points: Plotly's "deselect"
        current = replace(current, ids=())
    _store(page, current)


def on_map_select(page: str, data, ids, whole_page=False, fragments=()):
    """The map component's ``on_select``: its event (``{"kind": "box" | "lasso" | "click" | "clear",
    "indices": [...]}``) becomes the page's selection or its inspected point; then what runs again is
    :func:`rerun_for` the event (a map inside a fragment: see there)."""

    def handle(event: dict) -> None:
        kind = event.get("kind")
        indices = [int(i) for i in event.get("indices") or [] if isinstance(i, (int, float)) and float(i).is_integer()]
        select(page, data, ids, indices, dragged=kind != "click")
        rerun_for(kind, whole_page, fragments)

    return handle


def rerun_scope(kind: str, whole_page=False, fragments=()):
    """What a selection event of ``kind`` runs again, from a callback of a map (or of a Clear button) drawn
    inside a fragment, whose own rerun would be that fragment alone: ``"app"`` (the whole page) when
    ``whole_page`` (a bool, or a function asked now: whether the page marks the selection elsewhere too),
    or for a click when ``fragments`` are named (the inspected point, which the page reads elsewhere);
    else the list of ``fragments`` (the keys of the fragments that draw the selection, the map's among
    them); None when neither is given (the interaction's own rerun).

    >>> rerun_scope("box", False, ("a", "b")), rerun_scope("click", False, ("a",)), rerun_scope("box", lambda: True, ("a",))
    (['a', 'b'], 'app', 'app')
    >>> rerun_scope("box") is None
    True
    """
    if (whole_page() if callable(whole_page) else whole_page) or (fragments and kind == "click"):
        return "app"
    return list(fragments) if fragments else None


def rerun_for(kind: str, whole_page=False, fragments=()) -> None:
    """Run again what :func:`rerun_scope` says (nothing: the interaction's own rerun)."""
    scope = rerun_scope(kind, whole_page, fragments)
    if scope is not None:
        st.rerun(scope)


def clear(page: str, whole_page=False, fragments=()) -> None:
    """Forget the selection (the inspected point stays), and have the maps drawn anew without it (the Clear
    button's callback; ``whole_page`` and ``fragments`` as in :func:`rerun_scope`)."""
    found = st.session_state.get(f"{page}.selection")
    if isinstance(found, Selection):
        _store(page, replace(found, ids=()))
    rerun_for("clear", whole_page, fragments)


def forget_point(page: str) -> None:
    found = st.session_state.get(f"{page}.selection")
    if isinstance(found, Selection):
        _store(page, replace(found, point=None))


def inspect_point(page: str, data, point_id) -> None:
    """Make ``point_id`` the inspected item (from a number box or a table, not the map)."""
    _store(page, replace(selection(page, data), point=_plain(point_id)))


def positions(ids, chosen) -> np.ndarray:
    """Where the ``chosen`` ids are among ``ids`` (those still drawn), in ``ids``' order."""
    if not len(chosen):
        return np.zeros(0, dtype=np.int64)
    pos = pd.Index(list(ids)).get_indexer(list(chosen))
    return np.sort(pos[pos >= 0])


def position(ids, point_id) -> int | None:
    if point_id is None:
        return None
    found = positions(ids, [point_id])
    return int(found[0]) if found.size else None


# ------------------------------------------------------------------ tables


def table(ids, labels, coords, rows, extra: dict | None = None, id_name: str = "id",
          label_name: str = "label") -> pd.DataFrame:
    """The selected rows: id, label, map coordinates and any ``extra`` columns (arrays over every point)."""
    rows = np.asarray(rows, dtype=np.int64)
    coords = np.asarray(coords, dtype=np.float64)
    out = {id_name: np.asarray(ids, dtype=object)[rows]}
    if labels is not None:
        out[label_name] = np.asarray(labels, dtype=object)[rows]
    out["x"], out["y"] = coords[rows, 0].round(5), coords[rows, 1].round(5)
    for name, values in (extra or {}).items():
        out[name] = np.asarray(values)[rows]
    return pd.DataFrame(out)


def to_csv(frame: pd.DataFrame) -> str:
    return frame.to_csv(index=False)


# ------------------------------------------------------------------ one point's neighbours


def neighbours(X, Y, i: int, k: int, ids, labels=None, id_name: str = "id", label_name: str = "label") -> dict:
    """Point ``i``'s k nearest neighbours in the original space ``X`` and on the map ``Y``, as two tables
    (id, label, distance, whether it is in the other list); O(n) per space, so not cached."""
    nb = point_neighbours(X, Y, i, k)
    ids = np.asarray(ids, dtype=object)
    names = None if labels is None else np.asarray(labels, dtype=object)

    def side(idx, dist, both):
        frame = pd.DataFrame({id_name: ids[idx]})
        if names is not None:
            frame[label_name] = names[idx]
        frame["distance"] = np.round(dist, 4)
        frame["in both"] = both
        return frame

    return {"point": int(i), "k": nb.map.size, "data": side(nb.data, nb.data_distance, nb.in_map),
            "map": side(nb.map, nb.map_distance, nb.in_data), "recall": nb.recall,
            "data_idx": nb.data, "map_idx": nb.map, "shared": nb.shared}


def largest_k(n: int, most: int = 30) -> int:
    return max(1, min(most, n - 1))


# ------------------------------------------------------------------ pin and compare


def pinned(page: str, data) -> Pinned | None:
    """The page's pinned embedding, if it was made from these data."""
    found = st.session_state.get(f"{page}.pinned")
    if isinstance(found, Pinned) and found.data == data:
        return found
    return None


def pin(page: str, data, ids, coords, label: str) -> None:
    ids = np.array([_plain(i) for i in ids], dtype=object)
    coords = np.array(coords, dtype=np.float64)
    coords.flags.writeable = False
    st.session_state[f"{page}.pinned"] = Pinned(data, ids, coords, label)


def unpin(page: str) -> None:
    st.session_state.pop(f"{page}.pinned", None)


def _digest(coords: np.ndarray, ids: tuple) -> str:
    """What identifies a map for the comparison's cache: its coordinates' bytes and its ids, in one digest
    (Streamlit's own hashing of the arguments walks every id of a tuple one by one, at every rerun)."""
    h = hashlib.sha1(np.ascontiguousarray(coords, dtype=np.float64).tobytes())
    h.update(repr(ids).encode("utf-8", "surrogatepass"))
    return h.hexdigest()


@st.cache_data(max_entries=16, show_spinner=False)
def _compare(pinned: str, current: str, k: int, _pinned_coords: np.ndarray, _pinned_ids: tuple,
             _coords: np.ndarray, _ids: tuple) -> dict:
    """The comparison of two maps, cached by their digests (``pinned``, ``current``) and k."""
    pinned_coords, pinned_ids, coords, ids = _pinned_coords, _pinned_ids, _coords, _ids
    c = compare_embeddings(pinned_coords, coords, k, ids_a=pinned_ids, ids_b=ids)
    overlap = np.full(len(ids), np.nan, dtype=np.float32)
    overlap[c.ids] = c.overlap.per_point
    return {"overlap": overlap, "mean": c.overlap.mean, "variation": c.overlap.variation,
            "disparity": c.disparity, "shared": c.shared, "k": c.overlap.k}


def comparison(page: str, data, ids, coords, k: int) -> dict | None:
    """The current embedding against the pinned one: per-point overlap at k (NaN for items the pinned one
    lacks), its mean, the variation rate, the Procrustes disparity and how many items both hold.
    None when nothing is pinned; a message under ``"error"`` when they cannot be compared."""
    found = pinned(page, data)
    if found is None:
        return None
    ids = tuple(_plain(i) for i in ids)
    shared = len(set(ids) & set(found.ids.tolist()))
    k = min(k, shared - 1)
    if k < 1:
        return {"error": f"The pinned map and this one share {shared} item{'s' if shared != 1 else ''}: "
                         "nothing to compare.", "label": found.label}
    pinned_ids, coords = tuple(found.ids.tolist()), np.asarray(coords, dtype=np.float64)
    out = _compare(_digest(found.coords, pinned_ids), _digest(coords, ids), k, found.coords, pinned_ids, coords, ids)
    return {**out, "label": found.label}


# ------------------------------------------------------------------ summaries shared by pages


def common(X, rows, k: int, labels, limit: int = 15) -> pd.DataFrame:
    """The items most often among the selected items' k nearest in ``X`` (the selected ones left out)."""
    items, counts = common_neighbours(X, rows, k)
    keep = ~np.isin(items, rows)
    items, counts = items[keep][:limit], counts[keep][:limit]
    return pd.DataFrame({"neighbour": np.asarray(labels, dtype=object)[items], "selected items near it": counts})


def spread(X, rows, names, colour=None, colour_label: str = "colour") -> pd.DataFrame:
    """Per coordinate of ``X`` (and a numeric ``colour``, such as a manifold's true coordinate): the
    selection's range and mean against all points' range, i.e. where in the space the selection sits."""
    X = np.asarray(X, dtype=np.float64)
    names = list(names)
    if colour is not None and np.asarray(colour).dtype.kind in "fiu":
        X = np.column_stack([np.asarray(colour, dtype=np.float64), X])
        names = [colour_label] + names
    rows = np.asarray(rows, dtype=np.int64)
    chosen = X[rows]
    return pd.DataFrame({"coordinate": names, "selection min": chosen.min(0), "selection max": chosen.max(0),
                         "selection mean": chosen.mean(0), "all min": X.min(0), "all max": X.max(0)}).round(4)


def isolate(page: str, data, positions) -> None:
    """Map only these rows (positions into the page's table) until :func:`back`; a selection made on the whole
    map is cleared, as its items are no longer all drawn."""
    st.session_state[f"{page}.isolated"] = (data, tuple(int(p) for p in positions))
    st.session_state.pop(f"{page}.selection", None)


def isolated(page: str, data):
    """The rows the page maps alone (a tuple of positions), or None for every row; dropped when ``data`` changed."""
    found = st.session_state.get(f"{page}.isolated")
    return found[1] if isinstance(found, tuple) and found[0] == data else None


def back(page: str) -> None:
    """Map every row again."""
    st.session_state.pop(f"{page}.isolated", None)
    st.session_state.pop(f"{page}.selection", None)
