"""Links that cannot raise: every bound control of every page, opened by a link holding a hostile value.

Nothing here lists a page or a control. The pages come from the registry (:data:`app.pages.PAGES`); the controls
are the ones each page really registers with Streamlit as bound to the URL (``bind="query-params"``), read from
Streamlit's own registry of bound widgets on a clean visit to the page and to each tab of its lazy tab groups
(:data:`app.ui.layout.GROUPS`). A page's view is then opened by a link that gives ALL its bound controls one
hostile value at once (one session per view and value, a non-default tab opened by the link too), and must draw
without an exception, name every control in the lab's "not possible here" warning, cut each value it shows to
80 characters, and draw what the clean visit drew (the same titles and the same bound controls: a page stopped
at a control draws none of those after it).

The check itself (what a number control refuses, a decoding that overflows, the cut) is tested without a page
at the end.
"""

from __future__ import annotations

import functools

import pytest
from streamlit.runtime.state.common import WidgetMetadata
from streamlit.runtime.state.session_state import SessionState
from streamlit.testing.v1 import AppTest

from app.pages import PAGES
from app.ui import layout
from app.ui.share import cut, guard_links, link_line, refused_link_value
from tests.conftest import APP

#: What a hostile link gives every bound control, by name.
HOSTILE = {"inf": "inf", "-inf": "-inf", "nan": "nan", "1e309": "1e309", "10,000 digits": "9" * 10_000,
           "10,000 characters": "x" * 10_000}


@pytest.fixture(autouse=True, scope="module")
def _components_scanned_once():
    """Every new AppTest scans each installed distribution for Streamlit components: about 0.09 s of CPU a
    session, three quarters of what a link opened here costs. The installed packages do not change meanwhile."""
    from streamlit.components.v2 import manifest_scanner

    with pytest.MonkeyPatch.context() as mp:
        scan = functools.cache(manifest_scanner.scan_component_manifests)
        mp.setattr(manifest_scanner, "scan_component_manifests", scan)
        yield


def _bound(at: AppTest) -> set[str]:
    """The URL keys of the controls the last run drew bound to the URL (Streamlit's registry of bound widgets)."""
    return set(at._session_state._state.query_params._bindings_by_param)


def _shown(at: AppTest) -> list[str]:
    return [t.value for t in at.title] + [h.value for h in at.header] + [h.value for h in at.subheader]


def _settled(at: AppTest) -> AppTest:
    """The page once the work it runs in the background (a live training, a word map) has ended and the page has
    taken it in: a browser reruns on its own meanwhile, AppTest does not."""
    jobs = [at.session_state[k] for k in at.session_state if getattr(at.session_state[k], "running", False)]
    for job in jobs:
        assert job.wait(180), f"{job!r} did not end"
    return at.run() if jobs else at


def _views(spec) -> list[tuple[dict, set[str], list[str]]]:
    """Each view of a page a link can open: the tab parameters that open it, the bound controls it draws, and
    its titles and headers; a tab whose controls are all drawn by a view before it is left out."""
    at = AppTest.from_file(str(APP), default_timeout=180)
    _settled(at.switch_page(spec.path).run())
    assert not at.exception, [e.value for e in at.exception]
    views = [({}, _bound(at), _shown(at))]
    todo = [({}, views[0][1])]
    while todo:
        params, keys = todo.pop(0)
        for group in sorted(keys & layout.GROUPS.keys() - params.keys()):
            for label in layout.GROUPS[group][1:]:
                opened = {**params, group: label}
                for key, value in opened.items():
                    at.session_state[key] = value
                _settled(at.run())
                assert not at.exception, (opened, [e.value for e in at.exception])
                drawn = _bound(at)
                if not drawn <= set().union(*(v[1] for v in views)):
                    views.append((opened, drawn, _shown(at)))
                    todo.append((opened, drawn - keys))
            at.session_state[group] = layout.GROUPS[group][0]  # back to the view it was opened from
    return views


def _link(path: str, params: dict) -> AppTest:
    """The page opened from a link holding ``params``, as a new session."""
    from streamlit import config

    config.set_option("client.showErrorDetails", "full")  # a failure says what went wrong
    at = AppTest.from_file(str(APP), default_timeout=180)
    for key, value in params.items():
        at.query_params[key] = value
    at.switch_page(path)
    return at.run()


@pytest.mark.parametrize("spec", PAGES, ids=[p.url for p in PAGES])
def test_no_bound_control_raises_on_a_hostile_link(spec):
    views = _views(spec)
    failures = []
    for params, keys, shown in views:
        for name, value in HOSTILE.items():
            at = _link(spec.path, {**{k: value for k in keys}, **params})
            where = f"{name} on {sorted(params.items()) or 'the first view'}"
            if at.exception:
                failures.append(f"{where}: {[e.value[:300] for e in at.exception]}")
                continue
            text = "\n".join(w.value for w in at.warning).replace("\\", "")
            missing = sorted(k for k in keys - params.keys() if f"The link's {k} = " not in text)
            if missing:
                failures.append(f"{where}: no warning names {missing}")
            if len(value) > 80 and value[:80] in text:
                failures.append(f"{where}: a warning shows more than 80 characters of the value")
            if _shown(at) != shown or not keys <= _bound(at):  # a map's selection may come when its job ends
                failures.append(f"{where}: the page drew {_shown(at)} without {sorted(keys - _bound(at))}, "
                                "which its clean visit drew")
    assert not failures, "\n".join(failures)
    print(f"{spec.url}: {len(views)} views, {len(set().union(*(v[1] for v in views)))} bound controls, "
          f"{len(views) * len(HOSTILE)} links")


def test_the_seed_and_the_upload_a_link_names_are_cut_in_their_warnings():
    at = _link("app_pages/home.py", {"seed": "9" * 10_000, "upload": "f" * 10_000})
    assert not at.exception, [e.value for e in at.exception]
    text = "\n".join(w.value for w in at.warning).replace("\\", "")
    assert f"The link's seed = '{'9' * 79}…' is not possible here" in text
    assert f"uploaded file (SHA-1 {'f' * 79}…)" in text
    assert "9" * 80 not in text and "f" * 80 not in text


# ------------------------------------------------------------------ the checks, without a page


@pytest.mark.parametrize("value", HOSTILE.values(), ids=HOSTILE.keys())
def test_a_number_control_refuses_every_hostile_value(value):
    assert refused_link_value(value, "double_value")
    assert refused_link_value([value], "double_value")


def test_what_is_refused_and_what_streamlit_checks_itself():
    for fine in ("0", "12", "-3.5", "1e-400", "1_000", ""):  # "" clears a control that may be empty
        assert not refused_link_value(fine, "double_value"), fine
    assert refused_link_value(["inf", "2"], "double_value") is False  # a repeated key: the last value is read
    assert refused_link_value(["2", "Infinity"], "double_value")
    # sliders: a number past the float range in any part; a word may be a select_slider's option
    assert refused_link_value(["1", "-1e309"], "double_array_value")
    assert refused_link_value("9" * 10_000, "double_array_value")
    assert not refused_link_value(["1", "small"], "double_array_value")
    for kind in ("bool_value", "string_value", "int_value", "string_array_value", "int_array_value"):
        assert not any(refused_link_value(v, kind) for v in HOSTILE.values()), kind


def test_every_warning_cuts_the_value_to_80_characters():
    assert cut("x" * 80) == "x" * 80
    assert cut("x" * 10_000) == "x" * 79 + "…"
    line = link_line("man.point", "9" * 10_000, "0")
    assert line == f"The link's man.point = '{'9' * 79}…' is not possible here, so 0 is used."


def _metadata(deserializer) -> WidgetMetadata:
    return WidgetMetadata("w", deserializer, lambda v: v, value_type="double_value")


def test_a_decoding_that_overflows_leaves_the_url_and_starts_at_the_default():
    guard_links()
    seed = SessionState._seed_widget_from_url
    assert getattr(seed, "lab_guarded", False), "Streamlit no longer seeds bound controls where the lab checks them"
    guard_links()
    assert SessionState._seed_widget_from_url is seed  # wrapped once per process, whoever asks again

    def overflow(value):  # a decoding no rule of the lab foresees
        if value is not None:
            raise OverflowError("cannot convert float infinity to integer")
        return 0

    for text in ("inf", "5"):  # refused before decoding; failing in it
        state = SessionState()
        state.query_params.set_with_no_forward_msg("man.point", text)
        assert state._seed_widget_from_url(_metadata(overflow), "man.point", "w", text) is False
        assert not state.query_params.has_param("man.point")
