"""Bringing a tour step's figure into view in presentation mode: the page scrolls so the figure the step is about
(the first chart of the tab the step opens, else the page's main chart) sits whole under the tour's sticky bar.

A step is scrolled to once, when it is first shown in the browser tab; a rerun of the same step leaves the page
where the person has scrolled it.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

_COMPONENT = None


def _component():
    global _COMPONENT
    if _COMPONENT is None:
        js = (Path(__file__).parent / "reveal.js").read_text(encoding="utf-8")
        _COMPONENT = st.components.v2.component("lab_reveal", js=js)
    return _COMPONENT


def figure(step: str, tab: str | None = None, where=None) -> None:
    """Scroll the figure of ``step`` (``"<page prefix>:<step number>"``, 0 before the tour starts) into view: the
    first chart of the open tab labelled ``tab``, or the page's first chart."""
    comp = _component()
    data = {"step": step, "tab": tab}
    if where is None:
        comp(key="lab_reveal", data=data, height=0)
    else:
        with where:
            comp(key="lab_reveal", data=data, height=0)
