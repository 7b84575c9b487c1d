"""Controls whose range comes from the data.

A slider's bounds often depend on the data set (the number of sets, the
columns, the categories). When the data allow a single value there is nothing
to choose: the control is replaced by a caption saying so, instead of a slider
whose ends coincide (which Streamlit refuses). A value kept in session state or
a link that falls outside the new range is clamped, with a caption saying so.
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from app.ui.text import md_escape


#: Session-state prefix of the range each ranged control was last drawn with.
_RANGES = "global.ranged"


def _clamp_state(key: str, lo, hi, label: str, where) -> None:
    value = st.session_state.get(key)
    if value is None or isinstance(value, (tuple, list)):
        return
    clamped = min(max(value, lo), hi)
    if clamped != value:
        st.session_state[key] = clamped
        where.caption(f"{md_escape(label)}: {value} is outside what these data allow ({lo} to {hi}); "
                      f"using {clamped}.")


def _ranged(widget: str, label: str, lo, hi, value, key: str, where, why: str, kwargs):
    where = where if where is not None else st
    if hi <= lo:
        where.caption(f"{md_escape(label)}: {lo} (the only possible value{': ' + why if why else ''}).")
        return lo
    _clamp_state(key, lo, hi, label, where)
    draw = getattr(where, widget)
    # A new range is a new widget to Streamlit, which would start it at its default: the value kept is assigned
    # to it again, so new data keep the setting. It is not handed over as the widget's default, which the browser
    # would then leave out of the URL (a link made after the range changed would open at the page's default).
    seen = f"{_RANGES}.{key}"
    moved = st.session_state.get(seen, (lo, hi)) != (lo, hi)
    st.session_state[seen] = (lo, hi)
    if key in st.session_state and moved:
        st.session_state[key] = st.session_state[key]
    # The page's default is the widget's own even when a value is kept: Streamlit leaves a widget's default out
    # of the URL and Reset puts the widget's default back, so both must be the page's (not the range's end).
    return draw(label, lo, hi, min(max(value, lo), hi), key=key, **kwargs)


def ranged_slider(label: str, lo, hi, value, *, key: str, where=None, why: str = "", **kwargs):
    """``st.slider`` over [lo, hi] from the data; a caption and ``lo`` when the data allow one value.

    ``value`` is clamped into the range; ``why`` completes "only one value is possible" in the caption.
    """
    return _ranged("slider", label, lo, hi, value, key, where, why, kwargs)


def ranged_number(label: str, lo: int, hi: int, value: int, *, key: str, where=None, why: str = "", **kwargs):
    """``st.number_input`` over [lo, hi] from the data, clamped; a caption when only ``lo`` is possible."""
    return _ranged("number_input", label, lo, hi, value, key, where, why, kwargs)


def ranged_select_slider(label: str, options: Sequence, value, *, key: str, where=None, why: str = "", **kwargs):
    """``st.select_slider`` over options derived from the data; a caption when there is only one."""
    where = where if where is not None else st
    options = list(options)
    if len(options) == 1:
        where.caption(f"{md_escape(label)}: {options[0]} (the only possible value{': ' + why if why else ''}).")
        return options[0]
    if key in st.session_state and st.session_state[key] not in options:
        old = st.session_state[key]
        st.session_state[key] = min(options, key=lambda o: abs(o - old)) if _numeric(old, options) else options[0]
    if value not in options:
        value = options[len(options) // 2]
    return where.select_slider(label, options, value=value, key=key, **kwargs)  # the page's default is its own


def _numeric(value, options) -> bool:
    return isinstance(value, (int, float)) and all(isinstance(o, (int, float)) for o in options)
