"""Select, inspect, compare on every page's maps, through the chart's widget state.

A box, a lasso or a click reaches the page as Plotly's selection event (see
tests/app/chart_events.py); the page lists what was selected, keeps it across
reruns that keep the items, clears it with one button, lists a clicked point's
neighbours in the data and on the map, and compares a pinned map with the current one.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from app.services import selection as sel
from tests.app.chart_events import (
    chart,
    click_on_chart,
    event_indices_of,
    select_on_chart,
)
from tests.conftest import open_page, open_tab

WORDS = "app_pages/words.py"
MANIFOLDS = "app_pages/manifolds.py"


def _spec(at, key: str) -> dict:
    return json.loads(chart(at, key).proto.spec)


#: Each table of the selection tools, found by its columns (st.dataframe elements carry no key in AppTest):
#: (columns that identify it, which one of those tables).
TABLES = {
    "words.map.selected": (("word", "nearest words"), 0),
    "words.selected_near": (("neighbour", "selected items near it"), 0),
    "words.map.near_data": (("word", "in both"), 0),
    "words.map.near_map": (("word", "in both"), 1),
    "man.map.selected": (("id", "x", "y"), 0),
    "man.selected_where": (("coordinate", "selection min"), 0),
    "man.map.near_data": (("id", "in both"), 0),
    "man.map.near_map": (("id", "in both"), 1),
    "pl.map.selected": (("song", "tags", "plays"), 0),
    "pl.selected_playlists": (("training playlist", "selected songs in it"), 0),
    "pl.selected_tags": (("tag", "selected songs"), 0),
    "pl.map.near_data": (("song", "in both"), 0),
    "pl.map.near_map": (("song", "in both"), 1),
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


def _tables(at, key: str) -> list[pd.DataFrame]:
    columns, _ = TABLES[key]
    return [d.value for d in at.dataframe if set(columns) <= set(d.value.columns)]


def _frame(at, key: str) -> pd.DataFrame:
    found = _tables(at, key)
    which = TABLES[key][1]
    assert len(found) > which, f"no table {key}"
    return found[which]


def _has_frame(at, key: str) -> bool:
    return len(_tables(at, key)) > TABLES[key][1]


def _names(at, key: str) -> list[str]:
    return [t.get("name") for t in _spec(at, key)["data"]]


def _metrics(at) -> dict:
    return {m.label: m.value for m in at.metric}


@pytest.fixture(scope="module")
def words():
    at = open_page(WORDS)
    open_tab(at, "words.tab", "Word map", timeout=300)
    assert not at.exception
    return at


def test_every_trace_of_the_word_map_carries_its_points_and_the_map_selects_by_box(words):
    spec = _spec(words, "words.chart.map")
    assert spec["layout"]["dragmode"] == "select"
    assert event_indices_of(spec["data"][0]) == list(range(300))
    words.radio(key="words.map.mouse").set_value("select a lasso").run()
    assert _spec(words, "words.chart.map")["layout"]["dragmode"] == "lasso"
    words.radio(key="words.map.mouse").set_value("click a point").run()
    assert _spec(words, "words.chart.map")["layout"]["dragmode"] == "pan"
    words.radio(key="words.map.mouse").set_value("select a box").run()


def test_a_box_on_the_word_map_lists_the_words_and_their_common_neighbours(words):
    at = select_on_chart(words, "words.chart.map", [0, 1, 2, 5, 8])
    assert not at.exception
    table = _frame(at, "words.map.selected")
    assert list(table.columns) == ["word", "x", "y", "count", "nearest words"]
    shown = _spec(at, "words.chart.map")
    first = shown["data"][0]
    assert table["word"].tolist() == [first["text"][i] for i in (0, 1, 2, 5, 8)]
    # the chart shows the box it was given (Plotly fades the rest): the same figure is sent again, unringed
    assert not any(n.startswith("selected") for n in _names(at, "words.chart.map"))
    near = _frame(at, "words.selected_near")
    assert list(near.columns) == ["neighbour", "selected items near it"] and len(near)
    assert not set(near["neighbour"]) & set(table["word"])  # the selected words are not their own neighbours
    assert "Selection (.csv)" in [b.label for b in at.get("download_button")]
    # a rerun that keeps the words keeps the selection (the window changes the vectors, not the words)
    at.sidebar.slider(key="words.window").set_value(3).run(timeout=300)
    assert _frame(at, "words.map.selected")["word"].tolist() == table["word"].tolist()
    assert "selected (5)" in _names(at, "words.chart.map")  # a new map: the selection is ringed on it
    at.sidebar.slider(key="words.window").set_value(5).run(timeout=300)
    at.button(key="words.map.clear").click().run()
    assert not _has_frame(at, "words.map.selected")
    assert not any(n.startswith("selected") for n in _names(at, "words.chart.map"))


def test_a_click_on_a_word_lists_its_neighbours_in_the_vectors_and_on_the_map(words):
    at = click_on_chart(words, "words.chart.map", 3)
    assert not at.exception
    in_data, on_map = _frame(at, "words.map.near_data"), _frame(at, "words.map.near_map")
    assert len(in_data) == len(on_map) == 10
    assert list(in_data.columns) == ["word", "distance", "in both"]
    shared = set(in_data["word"]) & set(on_map["word"])
    assert set(in_data.loc[in_data["in both"], "word"]) == shared == set(on_map.loc[on_map["in both"], "word"])
    assert in_data["distance"].is_monotonic_increasing and on_map["distance"].is_monotonic_increasing
    word = _spec(at, "words.chart.map")["data"][0]["text"][3]
    assert word not in set(in_data["word"]) | set(on_map["word"])
    names = _names(at, "words.chart.map")
    assert f"word {word}" in names
    assert ("neighbour in both" in names) == bool(shared)
    header = next(m.value for m in at.markdown if "nearest neighbours" in m.value)
    assert f"{len(shared) / 10:.0%} in both lists" in header
    at.slider(key="words.map.k").set_value(5).run()
    assert len(_frame(at, "words.map.near_data")) == 5
    at.button(key="words.map.forget").click().run()
    assert not _has_frame(at, "words.map.near_data")


def _overlap(found: dict) -> tuple[int, float] | None:
    """(k, value) of the neighbour-overlap metric, or None when it is not shown."""
    for label, value in found.items():
        if label.startswith("neighbour overlap@"):
            return int(label.split("@")[1]), float(value)
    return None


def test_pinning_a_word_map_and_changing_a_pmi_setting_compares_the_maps(words):
    at = words
    assert _overlap(_metrics(at)) is None
    at.button(key="words.map.pin").click().run()
    found = _metrics(at)
    assert _overlap(found)[1] == 1.0 and found["Procrustes disparity"] == "0.000"
    at.sidebar.slider(key="words.window").set_value(4).run(timeout=300)
    assert not at.exception
    found = _metrics(at)
    k, overlap = _overlap(found)
    assert 0 < overlap < 1
    assert float(found["nearest-neighbour variation"]) == pytest.approx(1 - overlap, abs=1.5e-3)
    assert float(found["Procrustes disparity"]) > 0 and found["words in both"] == "300"
    chart_spec = _spec(at, "words.map.chart.overlap")
    assert f"overlap@{k}" in json.dumps(chart_spec["data"][-1]["marker"]["colorbar"])
    at.button(key="words.map.unpin").click().run()
    assert _overlap(_metrics(at)) is None
    at.sidebar.slider(key="words.window").set_value(5).run(timeout=300)


def test_the_selection_is_dropped_when_the_corpus_changes(words):
    at = select_on_chart(words, "words.chart.map", [4, 6])
    assert len(_frame(at, "words.map.selected")) == 2
    at.session_state["words.dataset"] = "head500"
    at.run(timeout=300)
    assert not at.exception and not _has_frame(at, "words.map.selected")


# ------------------------------------------------------------------ Manifolds


@pytest.fixture(scope="module")
def manifolds():
    at = open_page(MANIFOLDS)
    assert not at.exception
    return at


def _deck_layer(at, layer: str) -> dict | None:
    decks = [json.loads(el.proto.json) for el in at.get("deck_gl_json_chart")]
    return next((lay for lay in decks[0]["layers"] if lay["id"] == layer), None)


def test_a_box_on_the_lle_map_lists_the_points_and_rings_them_in_3d(manifolds):
    at = manifolds
    assert _spec(at, "man.chart.embedding")["layout"]["dragmode"] == "select"
    rows = list(range(100, 160))
    at = select_on_chart(at, "man.chart.embedding", rows)
    assert not at.exception
    table = _frame(at, "man.map.selected")
    assert table["id"].tolist() == rows and list(table.columns) == ["id", "t", "x", "y"]
    where = _frame(at, "man.selected_where").set_index("coordinate")
    assert list(where.index) == ["t", "x1", "x2", "x3"]
    assert where.loc["t", "all min"] <= where.loc["t", "selection min"] <= where.loc["t", "selection max"]
    assert [r["i"] for r in _deck_layer(at, "selection")["data"]] == rows
    # B changes the map, not the points: the selection stays; more points are other points: it goes
    at.sidebar.slider(key="man.B").set_value(9).run()
    assert _frame(at, "man.map.selected")["id"].tolist() == rows
    assert "selected (60)" in _names(at, "man.chart.embedding")
    at.button(key="man.map.clear").click().run()
    assert not _has_frame(at, "man.map.selected") and _deck_layer(at, "selection") is None
    at = select_on_chart(at, "man.chart.embedding", rows)
    at.sidebar.slider(key="man.n").set_value(800).run()
    assert not at.exception and not _has_frame(at, "man.map.selected")
    at.sidebar.slider(key="man.n").set_value(1500).run()
    at.sidebar.slider(key="man.B").set_value(12).run()


def test_a_click_on_the_lle_map_inspects_the_point_with_its_neighbours_side_by_side(manifolds):
    at = click_on_chart(manifolds, "man.chart.embedding", 42)
    assert not at.exception
    assert "point 42" in _spec(at, "man.chart.weights")["layout"]["title"]["text"]
    assert [r["i"] for r in _deck_layer(at, "point")["data"]] == [42]
    in_data, on_map = _frame(at, "man.map.near_data"), _frame(at, "man.map.near_map")
    assert len(in_data) == len(on_map) == 12  # B
    assert set(in_data["id"]) == {r["i"] for r in _deck_layer(at, "neighbours")["data"]}  # the LLE neighbours
    assert "point 42" in _names(at, "man.chart.embedding")
    assert at.number_input(key="man.point").value == 42
    at.number_input(key="man.point").set_value(7).run()
    assert _frame(at, "man.map.near_data").shape[0] == 12 and "point 7" in _names(at, "man.chart.embedding")


def test_pinning_the_lle_map_and_changing_b_compares_them(manifolds):
    at = manifolds
    at.button(key="man.map.pin").click().run()
    assert _metrics(at)["neighbour overlap@12"] == "1.000"  # k is B on this page
    at.sidebar.slider(key="man.B").set_value(6).run()
    found = _metrics(at)
    assert 0 < float(found["neighbour overlap@6"]) < 1 and float(found["Procrustes disparity"]) > 0
    assert found["points in both"] == "1,500"
    at.button(key="man.map.unpin").click().run()
    at.sidebar.slider(key="man.B").set_value(12).run()


def test_a_selection_on_the_quality_map_is_ringed_on_the_lle_map(manifolds):
    at = open_tab(manifolds, "man.tab", "Quality")
    at = select_on_chart(at, "man.chart.quality", [1, 2, 3])
    assert not at.exception
    assert "selected (3)" in _names(at, "man.chart.embedding")  # ringed where it was not drawn
    assert "selected (3)" not in _names(at, "man.chart.quality")  # shown by the chart it was drawn on
    assert _frame(at, "man.map.selected")["id"].tolist() == [1, 2, 3]


def test_a_selection_in_the_method_comparison_is_ringed_in_every_panel_and_on_the_lle_map():
    at = open_page(MANIFOLDS)
    at.sidebar.slider(key="man.n").set_value(400).run()
    at = open_tab(at, "man.tab", "Quality")
    at.selectbox(key="man.quality_map").set_value("PCA").run()
    # PCA only: the comparison shows what has been computed (kept for every session, so another test in this
    # process may have computed it already and the page then offers no button)
    run = [b for b in at.button if b.key == "man.quality_run"]
    if run:
        run[0].click().run()
    at = open_tab(at, "man.tab", "Method comparison")
    spec = _spec(at, "man.chart.compare")
    assert spec["layout"]["dragmode"] == "select" and event_indices_of(spec["data"][0]) == list(range(400))
    at = select_on_chart(at, "man.chart.compare", [7, 8, 9, 10])
    assert not at.exception
    assert _frame(at, "man.map.selected")["id"].tolist() == [7, 8, 9, 10]
    assert "selected (4)" in _names(at, "man.chart.embedding")


def test_the_selection_csv_has_ids_labels_and_coordinates():
    coords = np.array([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]])
    frame = sel.table(["a", "b", "c"], ["x", "y", "z"], coords, [0, 2], {"count": [7, 8, 9]}, "word", "tag")
    assert sel.to_csv(frame).splitlines() == ["word,tag,x,y,count", "a,x,0.0,1.0,7", "c,z,4.0,5.0,9"]


# ------------------------------------------------------------------ Playlists


def test_playlists_song_map_selects_songs_with_their_tags_and_playlists_and_compares_models():
    at = open_page("app_pages/playlists.py", timeout=300)
    assert not at.exception
    at = select_on_chart(at, "pl.chart.map", list(range(20)))
    assert not at.exception
    table = _frame(at, "pl.map.selected")
    assert len(table) == 20 and list(table.columns) == ["song", "tags", "x", "y", "plays"]
    joined = _frame(at, "pl.selected_playlists")
    assert len(joined) and (joined["selected songs in it"] >= 2).all()
    assert joined["selected songs in it"].is_monotonic_decreasing
    for songs in joined["which"]:
        assert set(songs.split(", ")) <= set(table["song"])
    tags = _frame(at, "pl.selected_tags")
    assert tags["selected songs"].sum() >= 20  # the planted songs each carry a tag
    at = click_on_chart(at, "pl.chart.map", 3)
    assert len(_frame(at, "pl.map.near_data")) == 10
    assert _frame(at, "pl.map.near_data")["in both"].all()  # 2 dimensions: the map is the model's space
    at.button(key="pl.map.pin").click().run()
    at.sidebar.slider(key="pl.dim").set_value(3).run(timeout=300)
    assert not at.exception
    found = _metrics(at)
    assert 0 < float(found["neighbour overlap@10"]) <= 1 and found["songs in both"] == "200"


# ------------------------------------------------------------------ Foundations


def test_a_box_in_one_side_view_of_the_pca_cloud_rings_the_points_in_all_three():
    at = open_page("app_pages/foundations.py")
    at = select_on_chart(at, "found.chart.pca", [0, 1, 2, 5, 8])
    assert not at.exception
    assert _frame(at, "found.pca.selected")["id"].tolist() == [0, 1, 2, 5, 8]
    where = _frame(at, "found.selected_where").set_index("coordinate")
    assert list(where.index) == ["x", "y", "z", "PC1", "PC2"]
    # rescaling a feature moves the points, not which they are: the selection stays, ringed in every view
    at.slider(key="found.pca_scale").set_value(2.0).run()
    assert _frame(at, "found.pca.selected")["id"].tolist() == [0, 1, 2, 5, 8]
    rings = [t for t in _spec(at, "found.chart.pca")["data"] if t.get("name") == "selected (5)"]
    assert sorted(t.get("xaxis") for t in rings) == ["x", "x2", "x3"]
    at = click_on_chart(at, "found.chart.pca", 3)
    assert len(_frame(at, "found.pca.near_data")) == 10
    at.toggle(key="found.pca_3d").set_value(True).run()  # the rotatable 3-D view does not select
    assert not at.exception


# ------------------------------------------------------------------ Sets


def test_sets_item_map_selection_names_the_sets_that_hold_the_items_and_their_share():
    at = open_page("app_pages/sets.py")
    at = select_on_chart(at, "sets.chart.buckets", [0, 1, 2, 5, 8])
    assert not at.exception
    table = _frame(at, "sets.buckets.selected")
    assert len(table) == 5 and list(table.columns) == ["item", "x", "y", "bucket"]
    held = _frame(at, "sets.buckets.selected_sets")
    assert len(held) and held["share of its weight"].is_monotonic_decreasing
    assert ((held["share of its weight"] > 0) & (held["share of its weight"] <= 1)).all()
    assert (held["selected items in it"] >= 1).all()
    # the same selection on the density map of the next tab (both maps show the same items)
    at = open_tab(at, "sets.tab", "A set's sketch")
    assert _frame(at, "sets.density.selected")["item"].tolist() == table["item"].tolist()


# ------------------------------------------------------------------ Categories


def test_categories_code_map_selection_says_how_alike_the_selected_categories_are():
    at = open_page("app_pages/categories.py")
    at = open_tab(at, "cat.tab", "Eigenvectors")
    names = _spec(at, "cat.chart.codes")["data"][0]["text"]
    at = select_on_chart(at, "cat.chart.codes", [0, 1])
    assert not at.exception
    assert _frame(at, "cat.codes.selected")["category"].tolist() == names[:2]
    alike = _frame(at, "cat.selected_affinity").set_index("pairs")["mean affinity"]
    assert list(alike.index) == ["within the selection", "selection to the others", "all pairs"]
    at = click_on_chart(at, "cat.chart.codes", 2)
    assert len(_frame(at, "cat.codes.near_data")) == min(10, len(names) - 1)
