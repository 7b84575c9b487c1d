"""Reset on every topic page: each control the page draws at its defaults is moved, then Reset puts every one
back and clears the page's settings from the URL (generated from the page registry and the widgets drawn)."""

from __future__ import annotations

import pytest

from app.pages import PAGES
from app.ui import layout
from tests.conftest import open_page

TOPIC_PAGES = [p for p in PAGES if p.section != "Lab"]
KINDS = ("slider", "select_slider", "number_input", "selectbox", "radio", "checkbox", "toggle")


def _controls(at, prefix: str) -> dict:
    """Every enabled value control of the page (key -> widget), tabs and buttons aside."""
    out = {}
    for kind in KINDS:
        for w in at.get(kind):
            if w.key and w.key.startswith(prefix + ".") and not getattr(w, "disabled", False):
                out[w.key] = w
    return out


def _other_value(w):
    """A value the control can take other than its current one (None when it has only one)."""
    kind = type(w).__name__
    if kind in ("Checkbox", "Toggle"):
        return not w.value
    if kind == "Slider":
        lo, hi = w.min, w.max
        if isinstance(w.value, (tuple, list)):
            return None
        return lo if w.value != lo else hi
    if kind == "NumberInput":
        lo = w.min if w.min is not None else w.value - 1
        return lo if w.value != lo else w.value + (w.step or 1)
    options = list(w.options)
    if kind == "SelectSlider":
        raw = [w.format_func(o) if False else o for o in options]
        return next((o for o in raw if str(o) != str(w.value)), None)
    # selectbox and radio: options are the labels shown; the raw value is one of them only without a format_func
    if str(w.value) not in options:
        return None
    return next((o for o in options if o != str(w.value)), None)


def _url(value) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def _open_link(spec, params: dict):
    """The page opened from a link holding ``params``, as a new session."""
    from streamlit.testing.v1 import AppTest

    from tests.conftest import APP

    at = AppTest.from_file(str(APP), default_timeout=120)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    return at.switch_page(spec.path).run()


@pytest.mark.parametrize("spec", TOPIC_PAGES, ids=[p.url for p in TOPIC_PAGES])
def test_reset_puts_every_control_back_and_clears_the_link(spec):
    at = open_page(spec.path)
    assert not at.exception, [e.value for e in at.exception]
    defaults = {k: w.value for k, w in _controls(at, spec.key).items()}
    assert defaults, f"{spec.url}: no control found"
    # a link that moves every control the page shows at its defaults (and opens its second tab)
    moved = {k: _url(v) for k, w in _controls(at, spec.key).items() if (v := _other_value(w)) is not None}
    tab = f"{spec.key}.tab"
    if tab in layout.GROUPS and len(layout.GROUPS[tab]) > 1:
        moved[tab] = layout.GROUPS[tab][1]
    assert len(moved) >= 2, f"{spec.url}: too few controls to move: {moved}"

    at = _open_link(spec, moved)
    assert not at.exception, [e.value for e in at.exception]
    now = _controls(at, spec.key)
    moved_controls = [k for k in moved if k in defaults and k in now and _url(now[k].value) != _url(defaults[k])]
    moved_tab = tab in moved and tab in at.session_state and at.session_state[tab] == moved[tab]  # its controls may all be in the first tab
    assert moved_controls or moved_tab, f"{spec.url}: the link moved nothing"
    assert any(k.startswith(spec.key + ".") for k in at.query_params), "the link's settings are in the URL"

    at.button(key="global.reset").click().run()
    assert not at.exception, [e.value for e in at.exception]
    now = _controls(at, spec.key)
    for key, value in defaults.items():
        assert key in now, f"{spec.url}: {key} is not drawn after the reset"
        assert now[key].value == value, f"{spec.url}: {key} is {now[key].value!r} after the reset, not {value!r}"
    assert not [k for k in at.query_params if k.startswith(spec.key + ".")], dict(at.query_params)
    if tab in layout.GROUPS and tab in at.session_state:
        assert at.session_state[tab] == layout.GROUPS[tab][0]
