"""Every topic page's guided tour: 3 to 6 steps of the page's own controls, each opened from its link, and
Previous/Next walking them."""

from __future__ import annotations

import re
from urllib.parse import parse_qsl

import pytest

from app.pages import PAGES
from app.services.tours import TOURS
from app.ui import tour
from app.ui.tour import step_link
from tests.conftest import open_page

TOPIC_PAGES = [p for p in PAGES if p.section != "Lab"]
STEPS = [(p, i) for p in TOPIC_PAGES for i in range(1, len(TOURS.get(p.key, [])) + 1)]


def _sentences(text: str) -> int:
    return len(re.findall(r"[.!?](?=\s|$)", text.strip()))


@pytest.mark.parametrize("spec", TOPIC_PAGES, ids=[p.url for p in TOPIC_PAGES])
def test_every_topic_page_has_a_tour_of_its_own_controls(spec):
    steps = TOURS.get(spec.key)
    assert steps and 3 <= len(steps) <= 6, f"{spec.url}: {len(steps or [])} steps"
    for step in steps:
        assert 1 <= _sentences(step.text) <= 2, f"{spec.url}, {step.title}: one or two sentences"
        assert all(k.startswith(spec.key + ".") for k in step.settings), step.settings
    assert len({tuple(sorted(s.settings.items())) for s in steps}) == len(steps), "two steps with one setting"


def _open_link(spec, query: str):
    from streamlit.testing.v1 import AppTest

    from tests.conftest import APP

    from streamlit import config

    config.set_option("client.showErrorDetails", "full")
    at = AppTest.from_file(str(APP), default_timeout=180)
    for key, value in parse_qsl(query.lstrip("?")):
        at.query_params[key] = value
    at.run()
    return at.switch_page(spec.path).run()


@pytest.mark.parametrize(("spec", "index"), STEPS, ids=[f"{p.url}-{i}" for p, i in STEPS])
def test_a_steps_link_opens_the_page_on_that_step(spec, index):
    step = TOURS[spec.key][index - 1]
    at = _open_link(spec, step_link(spec.key, index))
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    for key, value in step.settings.items():
        assert at.session_state[key] == value, f"{key} is {at.session_state[key]!r}, the step sets {value!r}"
    assert any(f"Tour {index}/{len(TOURS[spec.key])}: {step.title}" in m.value for m in at.markdown)
    # the sentence is a claim about what the step shows: its numbers come from the page's facts for this state,
    # and every claim of the step holds on them
    facts = at.session_state[f"{spec.key}.tour_facts"] if f"{spec.key}.tour_facts" in at.session_state else {}
    text = tour.sentence(step, facts)
    assert text is not None, f"{spec.url} step {index}: the page gave no {sorted(step.fields - set(facts))}"
    assert any(text in m.value for m in at.markdown), f"{spec.url} step {index}: {text!r} is not on the page"
    failing = step.failing(facts)
    assert failing == [], f"{spec.url} step {index}: not so: {failing} (facts {facts})"
    assert not any("Not so on the data" in w.value for w in at.warning)


@pytest.mark.parametrize("spec", TOPIC_PAGES, ids=[p.url for p in TOPIC_PAGES])
def test_every_tour_step_states_what_the_page_measures(spec):
    """A step that says what its picture shows says it through facts and claims (a sentence with no number can
    still claim one, like "the largest difference is 0"): at most one step of a tour is pure narration."""
    narrated = [s.title for s in TOURS[spec.key] if not s.claims]
    assert len(narrated) <= 1, f"{spec.url}: steps with no claim checked: {narrated}"


def test_next_and_previous_walk_the_steps_and_put_back_what_a_step_does_not_set():
    steps = TOURS["man"]
    at = open_page("app_pages/manifolds.py")
    at.button(key="man.tour_start").click().run()
    assert at.slider(key="man.B").value == steps[0].settings["man.B"]
    for i in range(1, len(steps)):
        at.button(key="man.tour_next").click().run()
        assert not at.exception
        for key, value in steps[i].settings.items():
            assert at.session_state[key] == value
        assert at.query_params["man.tour"] in (str(i + 1), [str(i + 1)])
    assert at.slider(key="man.noise").value == 0.75
    at.button(key="man.tour_prev").click().run()  # back to "Folded": B = 40, and the noise the step does not set is 0
    assert at.slider(key="man.B").value == 40 and at.slider(key="man.noise").value == 0.0
    assert at.checkbox(key="man.graph").value
    at.button(key="man.tour_prev").click().run()  # "Unrolled": the graph the step does not ask for is off again
    assert at.slider(key="man.B").value == 12 and not at.checkbox(key="man.graph").value


def test_a_setting_changed_after_a_step_leaves_the_step_out_of_the_link():
    """Opening the address again must show what the person set, not the step it started from."""
    at = open_page("app_pages/manifolds.py")
    at.button(key="man.tour_start").click().run()
    assert at.query_params["man.tour"] in ("1", ["1"])
    at.slider(key="man.B").set_value(20).run()
    assert "man.tour" not in at.query_params
    assert any("changed a setting" in c.value for c in at.caption)
    at.button(key="man.tour_next").click().run()  # the tour goes on from where it was
    assert at.slider(key="man.B").value == 12 and at.query_params["man.tour"] in ("2", ["2"])


def test_the_playlists_comparison_trains_the_other_model_again_once_the_store_let_it_go():
    """The step comparing the point models reads the other model from a store of 16: when it has been pushed
    out after its background run ended, the step's link trains it again instead of stating nothing."""
    from app.services import playlists as svc

    spec = next(p for p in TOPIC_PAGES if p.key == "pl")
    at = _open_link(spec, step_link("pl", 3))
    facts = at.session_state["pl.tour_facts"]
    assert {"ll_dual", "ll_single"} <= set(facts)
    store = svc._models()
    single = [k for k in list(store._items) if k.spec.model == "single"]
    assert single, "the other point model was not stored"
    with store._lock:
        for k in single:
            del store._items[k]
    at = _open_link(spec, step_link("pl", 3))
    again = at.session_state["pl.tour_facts"]
    assert again["ll_single"] == pytest.approx(facts["ll_single"]) and again["ll_dual"] == facts["ll_dual"]
