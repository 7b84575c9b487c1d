"""A page's guided tour: a few settings of its controls, each with a sentence on what to look at.

A step is applied by writing its settings into session state before the page draws its widgets; every
setting is a control bound to the URL, so the address then holds the step. ``<prefix>.tour`` in the URL
names the step, so a step's link opens the page on it.
"""

from __future__ import annotations

from urllib.parse import urlencode

import streamlit as st

from app.services.tours import TOURS, Step
from app.ui.layout import forget


def _param(prefix: str) -> str:
    return f"{prefix}.tour"


def step_link(prefix: str, index: int) -> str:
    """The query string that opens step ``index`` (1-based) of the page's tour.

    The step's number is enough: the page applies the step's settings when the address names it, and its
    controls then write themselves into the address as each control spells its value (a select box by the
    label it shows, a float as Streamlit formats it).
    """
    return "?" + urlencode({_param(prefix): index})


def _controls(prefix: str) -> set[str]:
    return {k for s in TOURS[prefix] for k in s.settings}


def _apply(prefix: str, index: int) -> None:
    """Put the page's controls as step ``index`` has them; a control the step does not name goes back to its default."""
    step = TOURS[prefix][index - 1]
    for key in _controls(prefix) - set(step.settings):
        forget(key)
    for key, value in step.settings.items():
        st.session_state[key] = value
    st.session_state[_param(prefix)] = index
    st.query_params[_param(prefix)] = str(index)


def follow_link(prefix: str) -> None:
    """Before the page's widgets: apply the step the URL names, once per step asked for."""
    if prefix not in TOURS:
        return
    asked = st.query_params.get(_param(prefix))
    try:
        index = int(asked) if asked is not None else None
    except ValueError:
        index = None
    if index is None or not 1 <= index <= len(TOURS[prefix]):
        if asked is not None:
            del st.query_params[_param(prefix)]
            st.session_state.pop(_param(prefix), None)
        return
    if st.session_state.get(_param(prefix)) != index:
        _apply(prefix, index)


def current(prefix: str) -> int | None:
    """The step on show (1-based), or None before the tour starts."""
    return st.session_state.get(_param(prefix))


#: Where the step's sentence goes, per session and page: filled by :func:`tell` later in the same run.
_SLOTS: dict[tuple[str, str], tuple] = {}


def _slot_key(prefix: str) -> tuple[str, str]:
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    return (ctx.session_id if ctx is not None else "", prefix)


def _facts_key(prefix: str) -> str:
    return f"{prefix}.tour_facts"


def tell(prefix: str, **facts) -> None:
    """Give the tour the numbers the page computed for the state it shows; the step's sentence is written with them
    once every fact it names is known, with a warning for any claim the facts do not bear out.

    A page calls it wherever it has computed a fact (more than once in a run is fine: the facts add up)."""
    known = st.session_state.setdefault(_facts_key(prefix), {})
    known.update(facts)
    slot = _SLOTS.get(_slot_key(prefix))
    if slot is None:
        return
    where, step = slot
    text, failing = sentence(step, known), step.failing(known)
    if text is None or failing is None:
        return
    with where.container():
        st.markdown(text)
        for says in failing:
            st.warning(f"Not so on the data shown here: {says}.", icon=":material/info:")


def sentence(step: Step, known: dict) -> str | None:
    """The step's sentence with the facts in it, text facts (a word of the person's corpus, a column's name) shown
    literally, never as Markdown; None while a fact it names is missing."""
    from app.ui.text import md_escape

    return step.filled({k: md_escape(v) if isinstance(v, str) else v for k, v in known.items()})


def facts(prefix: str) -> dict:
    """The facts the page gave the tour in its last run (the tests check each step's claims against them)."""
    return dict(st.session_state.get(_facts_key(prefix), {}))


def _leave(prefix: str) -> None:
    st.session_state.pop(_param(prefix), None)
    if _param(prefix) in st.query_params:
        del st.query_params[_param(prefix)]


def _matches(step: Step) -> bool:
    return all(st.session_state.get(k) == v for k, v in step.settings.items())


def panel(prefix: str, where=None, *, presenting: bool = False) -> None:
    """The tour box: the step's title and sentences, Previous and Next, and the step's link.

    In presentation mode it is a bar across the page that stays at the top of the window as the page scrolls
    (assets/present.css), the sentence on the left and the buttons on the right, and each step scrolls its figure
    into view under it (:mod:`app.ui.reveal`)."""
    steps = TOURS.get(prefix)
    if not steps:
        return
    where = where if where is not None else st
    _SLOTS.pop(_slot_key(prefix), None)
    box = where.container(border=True, key=f"lab_tour_{prefix.replace('.', '_')}")
    if presenting:
        row = box.container(horizontal=True, vertical_alignment="center", gap="medium")
        words, buttons = row.container(), row.container(horizontal=True, width=320)
    else:
        # one row that wraps: in a narrow column each button takes a line of its own instead of cutting its word
        words, buttons = box, None
    index = current(prefix)
    if presenting:
        from app.ui import reveal

        step = steps[index - 1] if index is not None else None
        reveal.figure(f"{prefix}:{index or 0}", tab=_tab_of(prefix, step))
    if index is None:
        words.markdown(f"**Guided tour** · {len(steps)} steps")
        words.caption(" → ".join(s.title for s in steps))
        (buttons or box).button("Start the tour", key=f"{prefix}.tour_start", icon=":material/play_arrow:",
                                type="primary", on_click=_apply, args=(prefix, 1), width="stretch")
        return
    step = steps[index - 1]
    words.markdown(f"**Tour {index}/{len(steps)}: {step.title}**")
    st.session_state[_facts_key(prefix)] = {}
    if step.needs():  # written by tell() once the page has computed what the sentence says
        _SLOTS[_slot_key(prefix)] = (words.empty(), step)
        _SLOTS[_slot_key(prefix)][0].caption("Measuring what this step shows…")
    else:
        words.markdown(step.text)
    if not _matches(step):
        words.caption("You have changed a setting since this step: Previous or Next goes back to the tour's.")
        if _param(prefix) in st.query_params:  # the address is now the person's own view, not the step
            del st.query_params[_param(prefix)]
    prev_col = next_col = buttons or box.container(horizontal=True)
    prev_col.button("Previous", key=f"{prefix}.tour_prev", icon=":material/arrow_back:", disabled=index == 1,
                    on_click=_apply, args=(prefix, index - 1), width="stretch")
    if index < len(steps):
        next_col.button("Next", key=f"{prefix}.tour_next", icon=":material/arrow_forward:", type="primary",
                        on_click=_apply, args=(prefix, index + 1), width="stretch")
    else:
        next_col.button("End", key=f"{prefix}.tour_end", icon=":material/stop:", on_click=_leave, args=(prefix,),
                        width="stretch")
    if not presenting:
        box.markdown(f"[Link to this step]({step_link(prefix, index)})")


def _tab_of(prefix: str, step: Step | None) -> str | None:
    """The tab a step opens (its figure is that tab's first chart), or None for the page's main chart."""
    if step is None:
        return None
    return next((str(v) for k, v in step.settings.items() if k.endswith(".tab")), None)
