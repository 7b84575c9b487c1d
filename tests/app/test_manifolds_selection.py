"""Select, inspect, compare on the Manifolds page's maps (the lab's map component).

A box, a lasso or a click reaches the page as the map component's selection event
(tests/app/maps.py sends it as the browser does); the page lists what was selected, rings
it on every map and in the 3-D view, keeps it across a new B, drops it with new points,
lists a clicked point's neighbours in the data and on the map, and compares a pinned map
with the current one.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from tests.app.maps import (
    bar_charts,
    click_on_map,
    lab_map,
    lab_maps,
    select_on_map,
    view3d_layer,
    views3d,
)
from tests.app.test_manifolds_page import _wait_for_methods
from tests.conftest import open_page, open_tab, table_holding, tables_holding

MANIFOLDS = "app_pages/manifolds.py"

#: Each table of the selection tools, found by its columns (st.dataframe elements carry no key in AppTest):
#: (columns that identify it, which one of those tables).
TABLES = {
    "man.map.selected": (("id", "x", "y"), 0),
    "man.selected_where": (("coordinate", "selection min"), 0),
    "man.map.near_data": (("id", "in both"), 0),
    "man.map.near_map": (("id", "in both"), 1),
}


def _frame(at, key: str) -> pd.DataFrame:
    return table_holding(at, *TABLES[key])


def _has_frame(at, key: str) -> bool:
    return len(tables_holding(at, TABLES[key][0])) > TABLES[key][1]


def _metrics(at) -> dict:
    return {m.label: m.value for m in at.metric}


def _rings(at, key: str) -> dict[str, list[int]]:
    """The ring layers of a map, by name."""
    return {r["name"]: r["indices"] for r in lab_map(at, key)["rings"]}


def _deck_layer(at, layer: str) -> dict | None:
    """A layer of the 3-D input, by name; None when it is not drawn."""
    return view3d_layer(at, layer)


@pytest.fixture(scope="module")
def manifolds():
    at = open_page(MANIFOLDS)
    assert not at.exception
    return at


def test_a_box_on_the_lle_map_lists_the_points_and_rings_them_in_3d(manifolds):
    at = manifolds
    assert lab_map(at, "man.map.lle")["mode"] == "box"
    at.radio(key="man.map.mouse").set_value("select a lasso").run()
    assert lab_map(at, "man.map.lle")["mode"] == "lasso"
    at.radio(key="man.map.mouse").set_value("select a box").run()
    rows = list(range(100, 160))
    at = select_on_map(at, "man.map.lle", rows)
    assert not at.exception
    # the box ran only what shows the selection (the 3-D view, the map, the list): none of the page's controls
    assert not at.slider and not at.metric and _deck_layer(at, "point") is not None
    table = _frame(at, "man.map.selected")
    assert table["id"].tolist() == rows and list(table.columns) == ["id", "t", "x", "y"]
    xy = lab_map(at, "man.map.lle")["xy"]
    np.testing.assert_allclose(table[["x", "y"]].to_numpy(), xy[rows], atol=1e-5)  # the map's, to 4 digits
    where = _frame(at, "man.selected_where").set_index("coordinate")
    assert list(where.index) == ["t", "x1", "x2", "x3"]
    assert where.loc["t", "all min"] <= where.loc["t", "selection min"] <= where.loc["t", "selection max"]
    assert [r["i"] for r in _deck_layer(at, "selection")["data"]] == rows
    assert lab_map(at, "man.map.lle")["selected"] == rows
    at.run()  # the whole page, as any control runs it, shows the same selection
    assert _frame(at, "man.map.selected")["id"].tolist() == rows and lab_map(at, "man.map.lle")["selected"] == rows
    # B changes the map, not the points: the selection stays; more points are other points: it goes
    at.slider(key="man.B").set_value(9).run()
    assert _frame(at, "man.map.selected")["id"].tolist() == rows
    assert lab_map(at, "man.map.lle")["selected"] == rows and "selected (60)" in _rings(at, "man.map.lle")
    at.button(key="man.map.clear").click().run()
    assert not at.slider  # Clear, too, ran only what shows the selection
    assert not _has_frame(at, "man.map.selected") and _deck_layer(at, "selection") is None
    assert lab_map(at, "man.map.lle")["selected"] == []
    at = select_on_map(at, "man.map.lle", rows, kind="lasso")
    assert _frame(at, "man.map.selected")["id"].tolist() == rows
    at = select_on_map(at, "man.map.lle", [], kind="clear")  # a double click on the map
    assert not _has_frame(at, "man.map.selected")
    at = select_on_map(at, "man.map.lle", rows)
    at.run()
    at.slider(key="man.n").set_value(800).run()
    assert not at.exception and not _has_frame(at, "man.map.selected")
    assert lab_map(at, "man.map.lle")["selected"] == []
    at.slider(key="man.n").set_value(1500).run()
    at.slider(key="man.B").set_value(12).run()


def test_a_click_on_the_lle_map_inspects_the_point_with_its_neighbours_side_by_side(manifolds):
    at = manifolds
    assert not _has_frame(at, "man.map.near_data")  # the lists are sent only while their expander is open...
    at.radio(key="man.map.mouse").set_value("click a point").run()
    assert lab_map(at, "man.map.lle")["mode"] == "click"
    at = click_on_map(at, "man.map.lle", 42)
    assert not at.exception
    assert at.session_state["man.near_open"]  # ... which a point just picked opens
    assert "point 42" in bar_charts(at)["man.chart.weights"]["title"]
    assert [r["i"] for r in _deck_layer(at, "point")["data"]] == [42]
    in_data, on_map = _frame(at, "man.map.near_data"), _frame(at, "man.map.near_map")
    assert len(in_data) == len(on_map) == 12  # B
    assert set(in_data["id"]) == {r["i"] for r in _deck_layer(at, "neighbours")["data"]}  # the LLE neighbours
    rings = _rings(at, "man.map.lle")
    assert rings["point 42"] == [42]
    # the rings on the map are the two lists: green in both, red in the data only, orange on the map only
    both = set(in_data.loc[in_data["in both"], "id"])
    assert set(rings.get("neighbour in both", [])) == both
    assert set(rings.get("neighbour in the data only", [])) == set(in_data["id"]) - both
    assert set(rings.get("neighbour on the map only", [])) == set(on_map["id"]) - both
    assert at.number_input(key="man.point").value == 42
    at.number_input(key="man.point").set_value(7).run()
    assert _frame(at, "man.map.near_data").shape[0] == 12 and "point 7" in _rings(at, "man.map.lle")
    at.radio(key="man.map.mouse").set_value("select a box").run()


def test_pinning_the_lle_map_and_changing_b_compares_them(manifolds):
    at = manifolds
    at.button(key="man.map.pin").click().run()
    assert _metrics(at)["neighbour overlap@12"] == "1.000"  # k is B on this page
    at.slider(key="man.B").set_value(6).run()
    found = _metrics(at)
    assert 0 < float(found["neighbour overlap@6"]) < 1 and float(found["Procrustes disparity"]) > 0
    assert found["points in both"] == "1,500"
    overlap = lab_map(at, "man.map.overlap")  # this map coloured by each point's overlap with the pinned one
    assert overlap["n"] == 1500 and overlap["color"]["kind"] == "continuous"
    assert ((overlap["values"] >= 0) & (overlap["values"] <= 1)).all()
    # the points are row numbers: only those that kept fewer than half their neighbours are numbered on it
    lost = overlap["values"] < 0.5
    assert 0 < lost.sum() < 1500 and overlap["labels"] == [str(i) if lost[i] else "" for i in range(1500)]
    at.button(key="man.map.unpin").click().run()
    at.slider(key="man.B").set_value(12).run()


def test_a_selection_on_the_quality_map_is_ringed_on_the_lle_map(manifolds):
    at = open_tab(manifolds, "man.tab", "Quality")
    at = select_on_map(at, "man.map.quality", [1, 2, 3])
    assert not at.exception
    assert lab_map(at, "man.map.lle")["selected"] == [1, 2, 3]  # ringed where it was not drawn
    assert lab_map(at, "man.map.quality")["selected"] == [1, 2, 3]  # and where it was
    assert _frame(at, "man.map.selected")["id"].tolist() == [1, 2, 3]
    at.button(key="man.map.clear").click().run()
    open_tab(at, "man.tab", "Inside LLE")


def test_a_selection_in_the_sweep_is_ringed_in_every_panel_and_on_the_lle_map(manifolds):
    at = open_tab(manifolds, "man.tab", "Neighbourhood sweep")
    at = select_on_map(at, "man.map.sweep.3", [5, 6, 7])
    assert not at.exception
    sweep = [k for k in lab_maps(at) if k.startswith("man.map.sweep.")]
    assert len(sweep) == 6 and all(lab_map(at, k)["selected"] == [5, 6, 7] for k in sweep)
    assert lab_map(at, "man.map.lle")["selected"] == [5, 6, 7]
    # while the sweep is open, a box on the LLE map runs the whole page: the panels ring it too
    at = select_on_map(at, "man.map.lle", [8, 9])
    assert all(lab_map(at, k)["selected"] == [8, 9] for k in sweep)
    at.button(key="man.map.clear").click().run()
    assert all(lab_map(at, k)["selected"] == [] for k in sweep)
    open_tab(at, "man.tab", "Inside LLE")


def test_a_selection_in_the_method_comparison_is_ringed_in_every_panel_and_on_the_lle_map():
    at = open_page(MANIFOLDS)
    at.slider(key="man.n").set_value(400).run()
    at = open_tab(at, "man.tab", "Quality")
    at.selectbox(key="man.quality_map").set_value("PCA").run()
    # PCA only: the comparison shows what has been computed (kept for every session, so another test in this
    # process may have computed it already and the page then offers no button)
    run = [b for b in at.button if b.key == "man.quality_run"]
    if run:
        run[0].click().run()
    at = open_tab(at, "man.tab", "Method comparison")
    _wait_for_methods(at)  # another test may have started every method on these points
    pca = lab_map(at, "man.map.compare.pca")
    assert pca["mode"] == "box" and pca["n"] == 400
    at = select_on_map(at, "man.map.compare.pca", [7, 8, 9, 10])
    assert not at.exception
    assert _frame(at, "man.map.selected")["id"].tolist() == [7, 8, 9, 10]
    assert lab_map(at, "man.map.lle")["selected"] == [7, 8, 9, 10]
    panels = [k for k in lab_maps(at) if k.startswith("man.map.compare.")]
    assert panels and all(lab_map(at, k)["selected"] == [7, 8, 9, 10] for k in panels)
    assert [r["i"] for r in _deck_layer(at, "selection")["data"]] == [7, 8, 9, 10]


def test_the_selection_csv_has_the_ids_the_colour_and_the_lle_coordinates(manifolds):
    at = select_on_map(manifolds, "man.map.lle", [3, 1, 2])
    button = next(b for b in at.get("download_button") if b.proto.id and "man.map.download" in b.proto.id)
    assert button.proto.label == "Selection (.csv)"
    from app.services import selection as sel

    frame = _frame(at, "man.map.selected")
    lines = sel.to_csv(frame).splitlines()
    assert lines[0] == "id,t,x,y" and [int(line.split(",")[0]) for line in lines[1:]] == [1, 2, 3]
    # LLE's own coordinates (as the Download tab gives them), not the map as turned onto an earlier one
    from tests.app.test_manifolds_page import _lle_of_default_roll

    got = np.array([[float(v) for v in line.split(",")[1:]] for line in lines[1:]])
    t = lab_map(at, "man.map.lle")["values"]  # the colour: the roll's true coordinate
    np.testing.assert_allclose(got[:, 0], t[[1, 2, 3]], rtol=1e-3)
    np.testing.assert_allclose(got[:, 1:], _lle_of_default_roll(12)[[1, 2, 3]], atol=1e-5)
    at.button(key="man.map.clear").click().run()


def test_a_selection_on_a_map_of_the_comparisons_sample_is_the_same_points_on_the_lle_map():
    """Beyond 5,000 points the other methods run on a seeded sample: a selection made on such a map names
    the sampled points, ringed where they are on the LLE map of every point."""
    at = open_page(MANIFOLDS)
    at.slider(key="man.n").set_value(6000).run(timeout=300)
    at = open_tab(at, "man.tab", "Quality", timeout=300)
    at.selectbox(key="man.quality_map").set_value("PCA").run(timeout=300)
    run = [b for b in at.button if b.key == "man.quality_run"]
    if run:
        run[0].click().run(timeout=300)
    assert not at.exception
    quality = lab_map(at, "man.map.quality")
    assert quality["n"] == 5000 and lab_map(at, "man.map.lle")["n"] == 6000
    assert any("sample of 5,000 of the 6,000 points" in c.value for c in at.caption)
    at = select_on_map(at, "man.map.quality", [0, 1, 2])
    assert not at.exception
    ids = [int(i) for i in quality["ids"][:3]]  # the sampled points' rows among the 6,000
    assert _frame(at, "man.map.selected")["id"].tolist() == ids
    assert lab_map(at, "man.map.lle")["selected"] == ids
    assert lab_map(at, "man.map.quality")["selected"] == [0, 1, 2]


@pytest.mark.parametrize("opened", ["by its tab", "by a link"])
def test_a_selection_made_while_the_sweep_is_open_asks_for_the_whole_page(monkeypatch, opened):
    """The LLE map sits in a fragment: with the sweep open (whose panels ring the selection too) a box, a click
    and Clear ask for a run of the whole page, also when the page was opened on that tab by a link (the tabs are
    drawn after the map, so this is decided when the selection is made). With the sweep closed, a box and Clear
    run only the fragments that show the selection."""
    import streamlit as st

    from tests.conftest import APP

    asked = []
    real = st.rerun

    def spy(scope="app"):
        asked.append(scope)
        real(scope)

    monkeypatch.setattr(st, "rerun", spy)
    if opened == "by a link":
        from streamlit.testing.v1 import AppTest

        at = AppTest.from_file(str(APP), default_timeout=120)
        at.query_params["man.tab"] = "Neighbourhood sweep"
        at.run()
        at.switch_page(MANIFOLDS).run()
    else:
        at = open_tab(open_page(MANIFOLDS), "man.tab", "Neighbourhood sweep")
    assert any(k.startswith("man.map.sweep.") for k in lab_maps(at))
    asked.clear()
    at = select_on_map(at, "man.map.lle", [8, 9])
    at = click_on_map(at, "man.map.lle", 9)
    at.button(key="man.map.clear").click().run()
    assert asked == ["app", "app", "app"]
    if opened == "by a link":
        return  # AppTest keeps sending the link's query string: the tab cannot be changed here
    open_tab(at, "man.tab", "Inside LLE")
    asked.clear()
    at = select_on_map(at, "man.map.lle", [8, 9])
    at.button(key="man.map.clear").click().run()
    assert asked == [["man.input", "man.map", "man.selected"]] * 2
