"""Select, inspect, compare on the Words page's word map (the lab's map component).

A box, a lasso or a click reaches the page as the component's selection event (point indices,
see tests/app/maps.py); the page lists the selected words and their common neighbours, keeps the
selection across runs that keep the words, lists a clicked word's neighbours in the vectors and
on the map, compares a pinned map with the current one, and drops the selection with the corpus.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tests.app.maps import click_on_map, lab_map, select_on_map
from tests.app.test_words_page import open_map, settle
from tests.conftest import table_holding, tables_holding

KEY = "words.map"

#: Each table of the selection tools, found by its columns (st.dataframe elements carry no key in AppTest):
#: (columns that identify it, which one of those tables).
TABLES = {
    "selected": (("word", "nearest words"), 0),
    "selected_near": (("neighbour", "selected items near it"), 0),
    "near_data": (("word", "in both"), 0),
    "near_map": (("word", "in both"), 1),
}


def _frame(at, name: str) -> pd.DataFrame:
    return table_holding(at, *TABLES[name])


def _has_frame(at, name: str) -> bool:
    return len(tables_holding(at, TABLES[name][0])) > TABLES[name][1]


def _metrics(at) -> dict:
    return {m.label: m.value for m in at.metric}


def _rings(at) -> dict[str, list[int]]:
    return {r["name"]: r["indices"] for r in lab_map(at, KEY)["rings"]}


def _run(at, timeout: float = 300):
    """Run, and let a t-SNE the run started finish (a new PMI setting is a new map)."""
    return settle(at.run(timeout=timeout), timeout)


@pytest.fixture(scope="module")
def words():
    at = open_map()
    assert not at.exception
    return at


def test_the_mouse_mode_goes_to_the_map(words):
    assert lab_map(words, KEY)["mode"] == "box"
    words.radio(key="words.map.mouse").set_value("select a lasso").run()
    assert lab_map(words, KEY)["mode"] == "lasso"
    words.radio(key="words.map.mouse").set_value("click a point").run()
    assert lab_map(words, KEY)["mode"] == "click"
    words.radio(key="words.map.mouse").set_value("select a box").run()
    assert lab_map(words, KEY)["mode"] == "box"


def test_a_box_on_the_word_map_lists_the_words_and_their_common_neighbours(words):
    rows = [0, 1, 2, 5, 8]
    at = select_on_map(words, KEY, rows)
    assert not at.exception
    shown = lab_map(at, KEY)
    table = _frame(at, "selected")
    assert list(table.columns) == ["word", "x", "y", "count", "nearest words"]
    assert table["word"].tolist() == [shown["labels"][i] for i in rows]
    assert shown["selected"] == rows  # ringed on the map
    assert np.allclose(table[["x", "y"]].to_numpy(), shown["xy"][rows], atol=1e-4)
    near = _frame(at, "selected_near")
    assert list(near.columns) == ["neighbour", "selected items near it"] and len(near)
    assert not set(near["neighbour"]) & set(table["word"])  # the selected words are not their own neighbours
    assert "Selection (.csv)" in [b.label for b in at.get("download_button")]
    # a run that keeps the words keeps the selection (the window changes the vectors, not the words)
    at.slider(key="words.window").set_value(3)
    _run(at)
    assert _frame(at, "selected")["word"].tolist() == table["word"].tolist()
    assert lab_map(at, KEY)["selected"] == rows  # a new map: the selection is ringed on it
    at.slider(key="words.window").set_value(5)
    _run(at)
    at.button(key="words.map.clear").click().run()
    assert not _has_frame(at, "selected") and lab_map(at, KEY)["selected"] == []


def test_a_click_on_a_word_lists_its_neighbours_in_the_vectors_and_on_the_map(words):
    at = click_on_map(words, KEY, 3)
    assert not at.exception
    in_data, on_map = _frame(at, "near_data"), _frame(at, "near_map")
    assert len(in_data) == len(on_map) == 10
    assert list(in_data.columns) == ["word", "distance", "in both"]
    shared = set(in_data["word"]) & set(on_map["word"])
    assert set(in_data.loc[in_data["in both"], "word"]) == shared == set(on_map.loc[on_map["in both"], "word"])
    assert in_data["distance"].is_monotonic_increasing and on_map["distance"].is_monotonic_increasing
    shown = lab_map(at, KEY)
    word = shown["labels"][3]
    assert word not in set(in_data["word"]) | set(on_map["word"])
    rings = _rings(at)
    assert rings[f"word {word}"] == [3]
    both = [shown["labels"][i] for i in rings.get("neighbour in both", [])]
    assert set(both) == shared
    data_only = [shown["labels"][i] for i in rings.get("neighbour in the data only", [])]
    assert set(data_only) == set(in_data["word"]) - shared
    header = next(m.value for m in at.markdown if "nearest neighbours" in m.value)
    assert f"{len(shared) / 10:.0%} in both lists" in header
    at.slider(key="words.map.k").set_value(5).run()
    assert len(_frame(at, "near_data")) == 5
    at.button(key="words.map.forget").click().run()
    assert not _has_frame(at, "near_data") and not any(n.startswith("word ") for n in _rings(at))


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
    at.slider(key="words.window").set_value(4)
    _run(at)
    assert not at.exception
    found = _metrics(at)
    k, overlap = _overlap(found)
    assert 0 < overlap < 1
    assert float(found["nearest-neighbour variation"]) == pytest.approx(1 - overlap, abs=1.5e-3)
    assert float(found["Procrustes disparity"]) > 0 and found["words in both"] == "300"
    coloured = lab_map(at, "words.map.overlap")
    assert f"overlap@{k}" in coloured["color"]["title"] and coloured["n"] == 300
    assert float(np.mean(coloured["values"])) == pytest.approx(overlap, abs=1.5e-3)
    tip = coloured["hover"]["fields"][0]  # the tooltip reads each word's overlap from the colour, sent once
    assert tip["name"] == f"overlap@{k}" and tip["sameAs"] == "color" and tip["values"] is coloured["values"]
    at.button(key="words.map.unpin").click().run()
    assert _overlap(_metrics(at)) is None
    at.slider(key="words.window").set_value(5)
    _run(at)


def test_the_selection_is_dropped_when_the_corpus_changes(words):
    at = select_on_map(words, KEY, [4, 6])
    assert len(_frame(at, "selected")) == 2
    at.session_state["words.dataset"] = "head500"
    _run(at)
    assert not at.exception and not _has_frame(at, "selected")
    assert lab_map(at, KEY)["selected"] == []
