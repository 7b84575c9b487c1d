"""Playlists: select, inspect and compare on the song map (the lab's map component)."""

from __future__ import annotations

import numpy as np

from tests.app.maps import click_on_map, lab_map, select_on_map
from tests.app.test_playlists_page import after_training, open_trained, shown_model
from tests.conftest import table_with

KEY = "pl.map.songs"


def _table(at, columns: tuple[str, ...], which: int = 0):
    found = [d.value for d in at.dataframe if set(columns) <= set(d.value.columns)]
    assert len(found) > which, f"no table with {columns}"
    return found[which]


def _metrics(at) -> dict:
    return {m.label: m.value for m in at.metric}


def test_playlists_song_map_selects_songs_with_their_tags_and_playlists_and_compares_models():
    at = open_trained(timeout=300)
    assert not at.exception
    songs = lab_map(at, KEY)["ids"]
    at = select_on_map(at, KEY, list(range(20)))
    assert not at.exception
    table = _table(at, ("song", "tags", "plays"))
    assert len(table) == 20 and list(table.columns) == ["song", "tags", "x", "y", "plays"]
    assert table["song"].tolist() == songs[:20]
    drawn = lab_map(at, KEY)
    assert drawn["selected"] == list(range(20))  # ringed on the map
    assert drawn["rings"][0]["indices"] == list(range(20))
    joined = table_with(at, "selected songs in it")
    assert len(joined) and (joined["selected songs in it"] >= 2).all()
    assert joined["selected songs in it"].is_monotonic_decreasing
    for which in joined["which"]:
        assert set(which.split(", ")) <= set(table["song"])
    tags = table_with(at, "selected songs")
    assert tags["selected songs"].sum() >= 20  # the planted songs each carry a tag
    at.radio(key="pl.map.mouse").set_value(at.radio(key="pl.map.mouse").options[-1]).run()
    at = click_on_map(at, KEY, 3)
    near_data = _table(at, ("song", "in both"), 0)
    assert len(near_data) == 10
    assert near_data["in both"].all()  # 2 dimensions: the map is the model's space
    model = shown_model(at)
    d = np.linalg.norm(model.embedding_ - model.embedding_[3], axis=1)
    d[3] = np.inf
    nearest = {str(model.songs_[j]) for j in np.argsort(d, kind="stable")[:10]}
    assert set(near_data["song"]) == nearest
    rings = {r["name"]: r["indices"] for r in lab_map(at, KEY)["rings"]}
    assert rings[f"song {songs[3]}"] == [3]
    assert sorted(rings["neighbour in both"]) == sorted(songs.index(s) for s in nearest)
    at.button(key="pl.map.pin").click().run()
    at = after_training(at.slider(key="pl.dim").set_value(3).run(timeout=300), timeout=300)
    assert not at.exception
    found = _metrics(at)
    assert 0 < float(found["neighbour overlap@10"]) <= 1 and found["songs in both"] == "200"
    assert lab_map(at, "pl.map.overlap")["n"] == 200
