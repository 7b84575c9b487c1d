"""Playlists page: training runs (live on small data), and the views answer their controls."""

from __future__ import annotations

import time

from tests.conftest import chart_specs, metric, open_page

PAGE = "app_pages/playlists.py"



def test_default_data_trains_and_beats_the_bigram():
    t = time.perf_counter()
    at = open_page(PAGE)
    print(f"Playlists: first render with training {time.perf_counter() - t:.2f} s")
    assert not at.exception and not at.error
    table = next(d.value for d in at.dataframe if "held-out log-likelihood" in d.value.columns)
    ll = dict(zip(table["model"], table["held-out log-likelihood"]))
    assert ll["LME (this model)"] > ll["bigram (Witten-Bell)"] > ll["uniform"]
    assert abs(ll["LME (this model)"] - ll["true model"]) < 0.1


def test_training_redraws_the_map_at_least_twice_a_second():
    at = open_page(PAGE)
    at.sidebar.radio(key="pl.model").set_value("dual")
    at.sidebar.slider(key="pl.iters").set_value(3000).run()  # a longer run, trained live
    draws, seconds = at.session_state["pl.redraw_rate"]
    print(f"Playlists: {draws} redraws in {seconds:.2f} s of training")
    assert draws >= 2 and draws / seconds >= 2.0


def test_model_and_song_controls_change_the_views():
    at = open_page(PAGE)
    before = chart_specs(at)
    at.selectbox(key="pl.song").set_value(at.selectbox(key="pl.song").options[5]).run()
    after_song = chart_specs(at)
    assert after_song != before
    at.slider(key="pl.length").set_value(20).run()
    assert chart_specs(at) != after_song
    at.sidebar.radio(key="pl.model").set_value("dual").run()
    assert not at.exception and not at.error
    assert any("exit point" in c.value for c in at.caption)


def test_train_button_retrains_and_stop_keeps_partial_model():
    at = open_page(PAGE)
    first = metric(at, "iterations")
    at.sidebar.slider(key="pl.iters").set_value(100).run()  # a new setting trains again
    assert metric(at, "iterations") != first and not at.exception
    at.button(key="pl.train").click().run()
    assert not at.exception
    # a stop keeps whatever model was saved during training
    at.button(key="pl.stop_button").click().run()
    assert not at.exception
    assert any(i.value.startswith("Stopped after") for i in at.info)
    assert int(metric(at, "iterations")) < 100


def test_lesmis_walks_with_tags():
    at = open_page(PAGE)
    at.sidebar.selectbox(key="pl.dataset").set_value("lesmis").run()
    assert not at.exception and not at.error
    assert metric(at, "songs") == "77"
    at.multiselect(key="pl.new_tags").set_value(["group 1", "group 2"]).run()
    assert not at.exception


def test_uploaded_playlists_train():
    rows = "\n".join(" ".join(f"s{(i + j * 3) % 40}" for j in range(6)) for i in range(120))
    at = open_page(PAGE)
    at.sidebar.file_uploader[0].set_value(("pl.txt", rows.encode(), "text/plain")).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert metric(at, "songs") == "40"


def test_uploaded_playlists_with_a_tag_file():
    rows = "\n".join(" ".join(f"s{(i + j * 3) % 40}" for j in range(6)) for i in range(120))
    tags = "\n".join(f"s{k}\t{'low' if k < 20 else 'high'}" for k in range(40)) + "\nghost\tnone\n"
    at = open_page(PAGE)
    at.sidebar.file_uploader[0].set_value([("pl.txt", rows.encode(), "text/plain"),
                                           ("tags.tsv", tags.encode(), "text/plain")]).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any("40 of 40 songs have tags; 1 tagged song never appears" in i.value for i in at.sidebar.info)
    assert at.multiselect(key="pl.new_tags").options == ["high", "low"]


def test_approximate_partition_function_from_the_sidebar():
    at = open_page(PAGE)
    exact = float(metric(at, "held-out log-likelihood"))
    at.sidebar.radio(key="pl.z_mode").set_value("approximate").run()
    assert not at.exception and not at.error
    approx = float(metric(at, "held-out log-likelihood"))
    assert approx != exact and abs(approx - exact) < 0.2
