"""The map on screen, remembered per map key, and a new map aligned to it (for app.ui.map).

A map redrawn under the same key with new coordinates of the same items is turned, mirrored,
scaled and shifted onto the one drawn last (:func:`embedcore.compare.align_to`, fitted on the
items both hold), so the points glide only as far as the setting moved them. The sidebar's
"Align redrawn maps" switch (:data:`ALIGN_KEY`) turns it off.
"""

from __future__ import annotations

import hashlib

import numpy as np
import streamlit as st

from embedcore.compare import align_to

#: The session-state switch (drawn in the shared sidebar) that turns alignment to the map on screen off.
ALIGN_KEY = "global.align_maps"


def _store(key: str) -> str:
    return f"{key}.__drawn"


def aligned(key: str, xy, ids=None) -> np.ndarray:
    """``xy`` aligned to the map last drawn under ``key`` (when the switch is on and they share at least 3
    items, matched by ``ids``, or row by row when neither map has ids); what is drawn is remembered."""
    xy = np.asarray(xy, dtype=np.float64)
    previous = st.session_state.get(_store(key))
    digest = hashlib.sha1(np.ascontiguousarray(xy).tobytes()).hexdigest()
    same = st.session_state.get(_store(key) + ".in")
    if (previous is not None and same is not None and same[0] == digest and same[1] == st.session_state.get(ALIGN_KEY, True)
            and (ids is None) == (previous[0] is None) and len(previous[1]) == len(xy)
            and (ids is None or np.array_equal(np.asarray(ids, dtype=object), previous[0]))):
        return previous[1]  # the map on screen drawn again (a colour, a search): as it was aligned then
    out = xy
    if previous is not None and st.session_state.get(ALIGN_KEY, True):
        prev_ids, prev_xy = previous
        if ids is None and prev_ids is None and len(prev_xy) == len(xy):
            out, _ = align_to(xy, prev_xy)
        elif ids is not None and prev_ids is not None:
            try:
                out, _ = align_to(xy, prev_xy, list(ids), list(prev_ids))
            except ValueError:  # repeated ids: nothing to match by
                out = xy
        if not np.isfinite(out).all():
            out = xy
    remember(key, out, ids)
    st.session_state[_store(key) + ".in"] = (digest, st.session_state.get(ALIGN_KEY, True))
    return out


def remember(key: str, xy, ids=None) -> None:
    """Note ``xy`` as the map on screen under ``key`` (what the next map drawn there is aligned to)."""
    st.session_state[_store(key)] = (None if ids is None else np.asarray(ids, dtype=object),
                                     np.asarray(xy, dtype=np.float64))
    st.session_state.pop(_store(key) + ".in", None)  # what it was aligned from is no longer known


def forget(key: str) -> None:
    """Forget the map drawn under ``key``: the next one is drawn as its method returned it."""
    st.session_state.pop(_store(key), None)
    st.session_state.pop(_store(key) + ".in", None)
