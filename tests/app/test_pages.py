"""AppTest layer: every registered page renders on its default data without an exception."""

from __future__ import annotations

import time

import pytest

from app.pages import PAGES
from tests.app.maps import lab_maps
from tests.conftest import open_page
from tests.legends import alike, map_entries, plotly_entries


@pytest.mark.parametrize("spec", PAGES, ids=[p.url for p in PAGES])
def test_page_renders_without_exception(spec):
    t0 = time.perf_counter()
    at = open_page(spec.path)
    elapsed = time.perf_counter() - t0
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    expected = "Embedding Lab" if spec.default else spec.title if spec.section == "Lab" else spec.section
    assert at.title and at.title[0].value.split(":")[0] == expected
    # no two entries of a legend alike (colour and shape), in its Plotly charts and its maps' categories (the
    # browser test, tests/e2e/test_legends_browser.py, reads every drawn map legend on every tab)
    for el in at.get("plotly_chart"):
        assert not alike(plotly_entries(el.proto.spec)), f"{spec.url}: chart {el.key}: {alike(plotly_entries(el.proto.spec))}"
    for key, data in lab_maps(at).items():
        assert not alike(map_entries(data)), f"{spec.url}: map {key}: {alike(map_entries(data))}"
    print(f"{spec.url}: first render {elapsed:.2f} s")


def test_seed_is_shared_and_kept_in_url():
    at = open_page("app_pages/data.py")
    at.number_input(key="global.seed").set_value(7).run()
    assert at.session_state["global.seed"] == 7
    assert at.query_params["seed"] == ["7"] or at.query_params["seed"] == "7"
