"""Results shared by every session: a bounded store for work that is drawn while it runs.

``st.cache_data`` already shares a finished result across sessions, but an
optimiser drawn live (t-SNE) runs outside it: its result goes here, under a
key made of what identifies the data and the parameters, so the next visitor
with the same settings gets the map at once.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import streamlit as st


class SharedStore:
    """A thread-safe least-recently-used dict of at most ``max_entries`` items."""

    def __init__(self, max_entries: int):
        self.max_entries = max_entries
        self._items: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key, default=None):
        with self._lock:
            if key not in self._items:
                return default
            self._items.move_to_end(key)
            return self._items[key]

    def __contains__(self, key) -> bool:
        with self._lock:
            return key in self._items

    def put(self, key, value) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.max_entries:
                self._items.popitem(last=False)


@st.cache_resource(show_spinner=False)
def store(name: str, max_entries: int = 32) -> SharedStore:
    """The store called ``name`` (one per server process)."""
    return SharedStore(max_entries)
