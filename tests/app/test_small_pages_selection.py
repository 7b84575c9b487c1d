"""Select and inspect on the maps of the Sets, Categories and Foundations pages (the lab's map component).

A box, a lasso or a click reaches the page as the map's selection event (see
tests/app/maps.py); the page lists what was selected with its own summary, rings it
on every map of the same items, and lists a clicked point's neighbours.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from tests.app.maps import click_on_map, lab_map, select_on_map
from tests.conftest import open_page, open_tab, table_holding, tables_holding

#: Each table of the selection tools, found by its columns (st.dataframe elements carry no key in AppTest):
#: (columns that identify it, which one of those tables).
TABLES = {
    "found.pca.selected": (("id", "z", "PC1"), 0),
    "found.selected_where": (("coordinate", "selection min"), 0),
    "found.pca.near_data": (("id", "in both"), 0),
    "sets.buckets.selected": (("item", "bucket"), 0),
    "sets.buckets.selected_sets": (("set", "share of its weight"), 0),
    "sets.density.selected": (("item", "density"), 0),
    "cat.codes.selected": (("category", "x", "y"), 0),
    "cat.selected_affinity": (("pairs", "mean affinity"), 0),
    "cat.codes.near_data": (("category", "in both"), 0),
}


def _frame(at, key: str) -> pd.DataFrame:
    return table_holding(at, *TABLES[key])


def _has_frame(at, key: str) -> bool:
    return len(tables_holding(at, TABLES[key][0])) > TABLES[key][1]


def _ringed(at, key: str) -> list[int]:
    """The indices the map rings as the selection."""
    shown = lab_map(at, key)
    assert shown["selected"] == next((r["indices"] for r in shown["rings"] if r["name"].startswith("selected")), [])
    return shown["selected"]


# ------------------------------------------------------------------ Foundations


def test_a_box_in_one_side_view_of_the_pca_cloud_rings_the_points_in_all_three():
    at = open_page("app_pages/foundations.py")
    views = ("found.map.xy", "found.map.xz", "found.map.yz")
    assert all(lab_map(at, key)["mode"] == "box" for key in views)
    at = select_on_map(at, "found.map.xz", [0, 1, 2, 5, 8])
    assert not at.exception
    assert _frame(at, "found.pca.selected")["id"].tolist() == [0, 1, 2, 5, 8]
    where = _frame(at, "found.selected_where").set_index("coordinate")
    assert list(where.index) == ["x", "y", "z", "PC1", "PC2"]
    assert [_ringed(at, key) for key in views] == [[0, 1, 2, 5, 8]] * 3
    # rescaling a feature moves the points, not which they are: the selection stays, ringed in every view
    at.slider(key="found.pca_scale").set_value(2.0).run()
    assert _frame(at, "found.pca.selected")["id"].tolist() == [0, 1, 2, 5, 8]
    assert [_ringed(at, key) for key in views] == [[0, 1, 2, 5, 8]] * 3
    at.radio(key="found.pca.mouse").set_value("click a point").run()
    assert lab_map(at, "found.map.yz")["mode"] == "click"
    at = click_on_map(at, "found.map.yz", 3)
    assert len(_frame(at, "found.pca.near_data")) == 10
    for key in views:  # the inspected point is marked in every view
        point = next(r for r in lab_map(at, key)["rings"] if r["name"] == "point 3")
        assert point["indices"] == [3] and point["label"]
    at.button(key="found.pca.clear").click().run()
    assert not _has_frame(at, "found.pca.selected") and _ringed(at, "found.map.xy") == []
    at.toggle(key="found.pca_3d").set_value(True).run()  # the rotatable 3-D view does not select
    assert not at.exception


# ------------------------------------------------------------------ Sets


def test_sets_item_map_selection_names_the_sets_that_hold_the_items_and_their_share():
    at = open_page("app_pages/sets.py")
    assert lab_map(at, "sets.map.buckets")["mode"] == "box"
    at = select_on_map(at, "sets.map.buckets", [0, 1, 2, 5, 8], kind="lasso")
    assert not at.exception
    table = _frame(at, "sets.buckets.selected")
    assert len(table) == 5 and list(table.columns) == ["item", "x", "y", "bucket"]
    shown = lab_map(at, "sets.map.buckets")
    assert table["item"].tolist() == [shown["labels"][i] for i in (0, 1, 2, 5, 8)]
    bucket = next(f["values"] for f in shown["hover"]["fields"] if f["name"] == "bucket")
    assert [str(b) for b in table["bucket"]] == [bucket[i] for i in (0, 1, 2, 5, 8)]
    assert _ringed(at, "sets.map.buckets") == [0, 1, 2, 5, 8]
    held = _frame(at, "sets.buckets.selected_sets")
    assert len(held) and held["share of its weight"].is_monotonic_decreasing
    assert ((held["share of its weight"] > 0) & (held["share of its weight"] <= 1)).all()
    assert (held["selected items in it"] >= 1).all()
    # K redraws the buckets, not the items: the selection stays
    at.slider(key="sets.K").set_value(5).run()
    assert _frame(at, "sets.buckets.selected")["item"].tolist() == table["item"].tolist()
    assert _ringed(at, "sets.map.buckets") == [0, 1, 2, 5, 8]
    # the same selection on the density map of the next tab (both maps show the same items)
    at = open_tab(at, "sets.tab", "A set's sketch")
    assert _frame(at, "sets.density.selected")["item"].tolist() == table["item"].tolist()
    assert _ringed(at, "sets.map.density") == [0, 1, 2, 5, 8]


# ------------------------------------------------------------------ Categories


def test_categories_code_map_selection_says_how_alike_the_selected_categories_are():
    at = open_page("app_pages/categories.py")
    at.radio(key="cat.kind").set_value("learned from a table").run()
    at = open_tab(at, "cat.tab", "Eigenvectors")
    names = [f["values"] for f in lab_map(at, "cat.map.codes")["hover"]["fields"] if f["name"] == "category"]
    names = names[0] if names else lab_map(at, "cat.map.codes")["labels"]
    at = select_on_map(at, "cat.map.codes", [0, 1])
    assert not at.exception
    assert _frame(at, "cat.codes.selected")["category"].tolist() == names[:2]
    assert _ringed(at, "cat.map.codes") == [0, 1]
    alike = _frame(at, "cat.selected_affinity").set_index("pairs")["mean affinity"]
    assert list(alike.index) == ["within the selection", "selection to the others", "all pairs"]
    assert np.isfinite(alike.to_numpy()).all()
    # γ changes the codes, not the categories: the selection stays, ringed on the new map
    at.slider(key="cat.log_gamma").set_value(1.0).run()
    assert _frame(at, "cat.codes.selected")["category"].tolist() == names[:2] and _ringed(at, "cat.map.codes") == [0, 1]
    at = click_on_map(at, "cat.map.codes", 2)
    assert len(_frame(at, "cat.codes.near_data")) == min(10, len(names) - 1)
    point = next(r for r in lab_map(at, "cat.map.codes")["rings"] if r["name"] == f"category {names[2]}")
    assert point["indices"] == [2]
    at = select_on_map(at, "cat.map.codes", [], kind="clear")
    assert not _has_frame(at, "cat.codes.selected")
