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


def tab_sections(sections: dict, key: str, where=None) -> None:
    """Lazy tabs named by ``sections``' keys, each drawn by its value (a function of no arguments) when open."""
    tabs = lazy_tabs(list(sections), key=key, where=where)
    for tab, draw in zip(tabs, sections.values()):
        with tab:
            if tab.open:
                draw()


# ------------------------------------------------------------------ the first screen

#: Session key of the sidebar's presentation-mode toggle (``?present=1`` in the URL).
PRESENT = "global.present"


def presenting() -> bool:
    """True in presentation mode: sidebar and theory collapsed, larger type, the tour's buttons prominent."""
    return bool(st.session_state.get(PRESENT))


def page_header(title: str, sentence: str, prefix: str | None = None) -> None:
    """The page's title and the one sentence that says what it shows; a tour step named in the URL is applied here,
    before the page draws its controls."""
    from app.ui import tour

    st.title(title)
    st.markdown(sentence)
    if prefix is not None:
        tour.follow_link(prefix)


def instrument(prefix: str | None = None, ratio: tuple[float, float] = (3, 1)):
    """The first screen's two columns: the main map or chart (left), and the page's tour over the controls that
    matter most (right); in presentation mode the tour is a bar above both. Returns ``(chart, controls)``."""
    from app.ui import tour

    st.session_state[MAIN_CHART] = ()  # the first chart this run draws is the page's main chart
    if prefix is not None and presenting():  # a bar across the page that stays in view (see tour.panel)
        tour.panel(prefix, st, presenting=True)
    chart, controls = st.columns(list(ratio), gap="medium")
    if prefix is not None and not presenting():  # the tour first: above the controls that matter most
        tour.panel(prefix, controls)
    return chart, controls.container()


def theory(title: str = "Theory: the formulas, what each control changes, how the picture can mislead",
           key: str | None = None):
    """The expander directly under the main chart that holds the page's longer text and formulas (collapsed).

    With a ``key`` it is opened by a rerun and says whether it is open (``.open``): a page whose controls redraw
    it often writes the text only while it is open, so a rerun does not send it again unseen."""
    if key is None:
        return st.expander(title, icon=":material/school:", expanded=False)
    return st.expander(title, icon=":material/school:", expanded=False, key=key, on_change="rerun")


def chart_height(default: int) -> int:
    """A chart's height: as designed, or most of a projector's screen in presentation mode."""
    return max(default, PRESENT_HEIGHT) if presenting() else default


#: A main chart's height in presentation mode: over half of a 900 px window, and whole in a projector's 720 px
#: under the browser's top bar and the tour's sticky bar (a map fits itself to the window when it is shorter).
PRESENT_HEIGHT = 500

#: How much larger the canvas components draw their type (labels, ticks, legends, titles) in presentation mode:
#: 12 px becomes 18 px, readable from the back of a room.
PRESENT_TYPE = 1.5

#: Session key of the keys of the page's main chart (the first drawn after :func:`instrument`, or named by
#: :func:`main_chart`); a fragment's rerun keeps it.
MAIN_CHART = "lab.main_chart"


def main_chart(*keys: str, height: int = PRESENT_HEIGHT) -> None:
    """Name the charts that together make the page's main picture (a row of views), before they are drawn, and
    their height in presentation mode (a row of three narrow views is best kept lower)."""
    st.session_state[MAIN_CHART] = tuple(keys)
    st.session_state[MAIN_CHART + ".height"] = int(height)


def main_height(key: str | None, default: int) -> int:
    """The height of the chart drawn under ``key``: in presentation mode the page's main chart (the first chart
    drawn after :func:`instrument`) takes :data:`PRESENT_HEIGHT`; every other chart keeps ``default``.
    :func:`app.ui.plots.show` and :func:`app.ui.map.draw` ask it, so no page sizes its main chart itself."""
    if not presenting() or key is None or MAIN_CHART not in st.session_state:
        return default
    claimed = st.session_state[MAIN_CHART]
    if not claimed:
        main_chart(key)
        claimed = (key,)
    return max(default, st.session_state.get(MAIN_CHART + ".height", PRESENT_HEIGHT)) if key in claimed else default


# ------------------------------------------------------------------ reset

#: Session keys a reset leaves alone: work running in the background, and files the person gave the page.
KEEP_ON_RESET = ("pl.job", "pl.run.stop", "words.map_job", "words.map_job.stop", "cat.matrix_file",
                 "cat.kernel_files", "graphs.edges", "sets.sketch_upload")


def reset_page(prefix: str) -> None:
    """Put every control of the page whose keys start with ``prefix.`` back to its default and clear their URL
    parameters (a button's callback: it runs before the page draws its widgets)."""
    for key in list(st.session_state):
        key = str(key)
        if key.startswith(prefix + ".") and key not in KEEP_ON_RESET and "upload" not in key:
            forget(key)
    for key in list(st.query_params):
        if key.startswith(prefix + "."):
            forget(key)


def forget(key: str) -> None:
    """Put a control back to its default: in session state, in the browser and in the URL.

    A control's default is known only to the page that draws it, so it is read from the widget Streamlit
    registered on the last run, and assigned: an assigned value is sent to the browser (a deleted one is not,
    and the browser would send its old value back at the next run) and a bound control at its default leaves
    the URL. A control not drawn on the last run (a closed tab) is dropped, so it is drawn afresh at its
    default; its URL parameter and the value the session was opened with go too.
    """
    from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

    ctx = get_script_run_ctx()
    state = getattr(getattr(ctx, "session_state", None), "_state", None)
    if state is None:
        st.session_state.pop(key, None)
        return
    params = state.query_params
    params._initial_query_params.pop(key, None)
    widget = state._key_id_mapper.get_id_from_key(key, None)
    meta = state._new_widget_state.widget_metadata.get(widget) if widget is not None else None
    if meta is not None and meta.value_type in _VALUE_TYPES:
        st.session_state[key] = meta.deserializer(None)
        return
    if meta is not None:
        return  # a button, an upload or a map's selection: nothing to put back
    params.remove_param(key)
    st.session_state.pop(key, None)


#: Widget values that can be assigned through session state (buttons and uploads cannot).
_VALUE_TYPES = {"bool_value", "int_value", "double_value", "string_value", "double_array_value",
                "int_array_value", "string_array_value"}


# ------------------------------------------------------------------ presentation mode and the sidebar's top row

_ASSETS = __import__("pathlib").Path(__file__).resolve().parents[2] / "assets"


def _sync_present() -> None:
    if st.session_state.get(PRESENT):
        st.query_params["present"] = "1"
    elif "present" in st.query_params:
        del st.query_params["present"]


def mode_and_reset(prefix: str) -> None:
    """The sidebar's first row: presentation mode (kept in the URL as ``present=1``) and reset to defaults."""
    if presenting() and st.query_params.get("present") != "1":
        st.query_params["present"] = "1"  # the page's address keeps the mode, so a shared link opens in it
    left, right = st.sidebar.columns([2.3, 1], vertical_alignment="center")
    left.toggle("Presentation", key=PRESENT, on_change=_sync_present,
                help="For a projector: the sidebar and the theory collapse, the type grows, the charts take the "
                "screen and the tour's Previous and Next stand out. Kept in the link as ?present=1.")
    if prefix not in ("home", "data"):
        right.button("Reset", key="global.reset", on_click=reset_page,
                     args=(prefix,), width="stretch",
                     help="Every control of this page back to its default, and its settings gone from the link.")


def page_css() -> str:
    """The lab's style sheet (assets/lab.css), with the presentation rules when the mode is on."""
    css = (_ASSETS / "lab.css").read_text(encoding="utf-8")
    if presenting():
        css += (_ASSETS / "present.css").read_text(encoding="utf-8")
    return f"<style>{css}</style>"
