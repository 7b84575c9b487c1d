"""Links and Reset around controls whose range or state comes from other controls.

The browser keeps a bound widget's value in the URL only while it differs from the widget's own default, and
Reset puts that default back: a control drawn anew must keep the page's default as its own, whatever value it
carries over. A control that is disabled until another one turns it on must still be opened by a link.
"""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests.app.maps import lab_map
from tests.conftest import APP, open_page


def _link(path: str, params: dict) -> AppTest:
    """The page opened from a link holding ``params``, as a new session."""
    at = AppTest.from_file(str(APP), default_timeout=120)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    return at.switch_page(path).run()


def test_a_partitioning_kept_through_a_new_n_stays_in_the_link_and_reset_returns_to_0():
    at = open_page("app_pages/sets.py")
    at.slider(key="sets.partition").set_value(3).run()
    at.select_slider(key="sets.N").set_value(20).run()  # the slider's range becomes 0..19: a new widget
    assert not at.exception, [e.value for e in at.exception]
    part = at.slider(key="sets.partition")
    assert (part.value, part.max) == (3, 19)
    assert "partitioning 3" in lab_map(at, "sets.map.buckets")["title"]
    # the widget's default is still the page's 0: the browser keeps sets.partition=3 in the address
    assert list(part.proto.default) == [0]

    at.button(key="global.reset").click().run()
    assert at.slider(key="sets.partition").value == 0
    assert at.select_slider(key="sets.N").value == 16


def test_a_link_to_a_partitioning_beyond_the_default_n_opens_there():
    at = _link("app_pages/sets.py", {"sets.N": "20", "sets.partition": "17"})
    assert not at.exception and not at.warning, [w.value for w in at.warning]
    assert at.slider(key="sets.partition").value == 17
    assert "partitioning 17" in lab_map(at, "sets.map.buckets")["title"]


def test_a_link_with_fixed_components_opens_the_slider_enabled_at_its_value():
    at = open_page("app_pages/categories.py")
    assert at.slider(key="cat.n_fixed").disabled  # the eigengap chooses until "fixed" is picked
    at = _link("app_pages/categories.py", {"cat.ncomp_mode": "fixed", "cat.n_fixed": "4"})
    assert not at.exception and not at.warning, [w.value for w in at.warning]
    n = at.slider(key="cat.n_fixed")
    assert not n.disabled and n.value == 4
