"""Page layout pieces that decide what runs: lazy tabs.

A tab group made here runs only its open tab; the others draw nothing and
compute nothing until they are opened. The open tab lives in the URL, so a
link opens the same tab.
"""

from __future__ import annotations

import streamlit as st

#: Every lazy tab group drawn in this process: key -> labels (the tests open each tab from it).
GROUPS: dict[str, tuple[str, ...]] = {}


def lazy_tabs(labels: list[str], key: str, where=None):
    """``st.tabs`` whose hidden tabs do not run: test ``tab.open`` before drawing into a tab.

    The open tab is kept in session state under ``key`` and in the URL.
    """
    GROUPS[key] = tuple(labels)
    if key in st.session_state and st.session_state[key] not in labels:
        del st.session_state[key]  # a link or an old session named a tab this page no longer has
    return (where or st).tabs(labels, key=key, on_change="rerun", bind="query-params")


def tab_sections(sections: dict, key: str) -> None:
    """Lazy tabs named by ``sections``' keys, each drawn by its value (a function of no arguments) when open."""
    tabs = lazy_tabs(list(sections), key=key)
    for tab, draw in zip(tabs, sections.values()):
        with tab:
            if tab.open:
                draw()
