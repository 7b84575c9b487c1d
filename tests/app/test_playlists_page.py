"""Playlists page: training runs (live on small data), and the views answer their controls."""

from __future__ import annotations

import re
import threading
import time

import pytest

from tests.app.maps import lab_map, lab_maps
from tests.conftest import metric, open_page, open_tab

PAGE = "app_pages/playlists.py"
TAB = "pl.tab"


def job_of(at):
    """This session's training run (None when there is none)."""
    try:
        return at.session_state["pl.job"]
    except KeyError:
        return None


def after_training(at, timeout: float = 180):
    """The page once the training it started has ended and the page has taken in the model.

    In a browser the training section reruns on its own while training runs (drawing the live map)
    and runs the whole page when it ends; AppTest runs no fragment by itself, so this waits for the
    training's end (an event) and runs the page.
    """
    job = job_of(at)
    if job is not None:
        assert job.wait(timeout), "the training did not end"
        at.run(timeout=timeout)
    assert not at.exception, [e.value for e in at.exception]
    return at


def open_trained(timeout: float = 180):
    return after_training(open_page(PAGE), timeout)


def wait_for_iteration(job, iteration: int, timeout: float = 60) -> None:
    """Wait until ``job`` has accepted ``iteration`` steps (polling its latest frame; the deadline is a timeout)."""
    deadline = time.perf_counter() + timeout
    while (job.latest is None or job.latest.iteration < iteration) and job.running and time.perf_counter() < deadline:
        time.sleep(0.005)
    assert job.latest is not None and job.latest.iteration >= iteration, "training did not get that far"


def run_section(at, monkeypatch, timeout: float = 60) -> dict:
    """One run of the page's training section alone, as its ``run_every`` asks for in a browser: the maps
    that run drew (the page's own tree is kept as it was)."""
    from streamlit.runtime.scriptrunner import RerunData
    from streamlit.testing.v1 import app_test
    from streamlit.testing.v1.local_script_runner import LocalScriptRunner, parse_tree_from_messages, \
        require_widgets_deltas

    found = {}

    class Section(LocalScriptRunner):
        def run(self, widget_state=None, query_params=None, timeout=3, page_hash="", context_info=None):
            if "fragment" not in found:  # a page run, to learn the section's fragment id
                tree = super().run(widget_state, query_params, timeout, page_hash, context_info)
                for msg in self.forward_msgs():
                    el = msg.delta.new_element if msg.HasField("delta") else None
                    if el is not None and el.WhichOneof("type") == "button" and el.button.id.endswith("pl.train"):
                        found["fragment"] = msg.delta.fragment_id
                return tree
            self.request_rerun(RerunData(widget_states=widget_state, page_script_hash=page_hash,
                                         context_info=context_info, fragment_id_queue=[found["fragment"]],
                                         is_auto_rerun=True))
            try:
                if not self._script_thread:
                    self.start()
                require_widgets_deltas(self, timeout)
            finally:
                self.join()
            found["ran"] = True
            return parse_tree_from_messages(self.forward_msgs())

    with monkeypatch.context() as m:
        m.setattr(app_test, "LocalScriptRunner", Section)
        at.run(timeout=timeout)
        assert found.get("fragment"), "the training section is not a fragment"
        page = at._tree
        at.run(timeout=timeout)
        section, at._tree = at._tree, page
    assert found.get("ran")
    return lab_maps(type("Run", (), {"_tree": section})())


def shown_model(at):
    """The model the page shows (it lives in the store shared by every session)."""
    from app.services import playlists as svc

    return svc.trained(at.session_state["pl.shown"]).model


def hold_at(monkeypatch, iteration: int, spec) -> threading.Event:
    """Training of ``spec`` that waits at ``iteration`` until it is stopped or cancelled, so it cannot end before
    the Stop a test sends. Returns the event set once the training waits there."""
    from app.services import playlists as svc

    real, reached = svc.TrainingJob._on_step, threading.Event()

    def held(self, model, it, ll):
        answer = real(self, model, it, ll)
        if it < iteration or self.spec != spec:
            return answer
        reached.set()
        while not (self.stopping or self._gone()):
            self._stop.wait(0.05)
        return self._should_stop()

    monkeypatch.setattr(svc.TrainingJob, "_on_step", held)
    return reached


def _upload(at, n_songs: int):
    """Upload playlists of 8 songs, each starting 3 songs after the last: every song appears."""
    rows = "\n".join(" ".join(f"s{(i * 3 + j) % n_songs}" for j in range(8)) for i in range(n_songs // 3 + 1))
    at.sidebar.file_uploader[0].set_value(("big.txt", rows.encode(), "text/plain")).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    return at


def _sampled_playlist(at) -> list[str]:
    """The songs of the sampled playlist's caption (the tour lists its steps with arrows too)."""
    from app.services.tours import TOURS

    steps = " → ".join(step.title for step in TOURS["pl"])
    return next(c.value for c in reversed(at.main.caption) if " → " in c.value and c.value != steps).split(" → ")


def test_default_data_trains_and_beats_the_bigram():
    at = open_trained()
    assert not at.exception and not at.error
    open_tab(at, TAB, "Likelihood")
    table = next(d.value for d in at.dataframe if "held-out log-likelihood" in d.value.columns)
    ll = dict(zip(table["model"], table["held-out log-likelihood"]))
    assert ll["LME (this model)"] > ll["bigram (Witten-Bell)"] > ll["uniform"]
    assert abs(ll["LME (this model)"] - ll["true model"]) < 0.1


def test_training_starts_on_page_load_and_the_section_redraws_one_live_map(monkeypatch):
    from app.services import playlists as svc

    # how many frames a second reach the browser is a speed, not a behaviour: it is not asserted here
    at = open_page(PAGE)
    at.radio(key="pl.model").set_value("dual")
    at.slider(key="pl.iters").set_value(3000).run()  # a longer run, started by this page run
    job = job_of(at)
    assert job is not None and job.running  # the page run ended; training goes on
    assert [b for b in at.button if b.key == "pl.stop_button"]
    assert "pl.map.songs" not in lab_maps(at)  # no model yet
    table = svc.training_songs(job.spec.data, job.spec.test_size)  # the rows of a live frame
    wait_for_iteration(job, 5)
    titles = []
    for _ in range(3):  # the section's own runs, as its timer asks for them: one frame each, on one map
        maps = run_section(at, monkeypatch)
        if "pl.map.live" not in maps:  # training ended meanwhile: the section ran the page
            break
        assert list(maps) == ["pl.map.live"], sorted(maps)
        live = maps["pl.map.live"]
        assert live["n"] == len(table) == 200 and live["labels"] == list(table["song"])
        assert live["ids"] == list(table["song"]) and live["glideMs"] > 0
        assert sorted(set(live["codes"])) == list(range(8))  # coloured by the eight planted tags
        titles.append(live["title"])
    assert titles and all(t.startswith("Training: iteration ") for t in titles), titles
    draws = job.draws
    at = after_training(at)
    assert at.session_state["pl.redraw_rate"][0] == draws
    note = [c.value for c in at.caption if c.value.startswith("Last training:")]
    assert note and f"the map redrawn {draws} time" in note[0], note
    assert {"pl.map.songs", "pl.map.truth"} <= set(lab_maps(at)) and "pl.map.live" not in lab_maps(at)


def test_model_and_song_controls_change_the_views():
    at = open_tab(open_trained(), TAB, "A song's next songs")
    model = shown_model(at)
    songs = at.selectbox(key="pl.song").options
    at.selectbox(key="pl.song").set_value(songs[5]).run()
    view = lab_map(at, "pl.map.next")
    p = model.transition_proba(songs[5]).to_numpy()
    assert view["color"]["title"] == "P(next)" and abs(view["values"] - p).max() < 1e-6
    likeliest = [j for j in (-p).argsort(kind="stable") if j != 5][:10]
    (arrows,) = view["arrows"]  # single model: only the arrows to the next songs
    assert arrows["from"] == [5] * 10 and arrows["to"] == likeliest
    assert arrows["widths"] == sorted(arrows["widths"], reverse=True)
    assert view["rings"][0]["indices"] == [5] and view["rings"][0]["label"]
    open_tab(at, TAB, "Sample a playlist")
    at.slider(key="pl.length").set_value(20).run()
    path = lab_map(at, "pl.map.sample")
    sampled = _sampled_playlist(at)
    assert len(sampled) == 20
    names = list(path["ids"])
    (steps,) = path["arrows"]
    assert [names[i] for i in steps["from"]] == sampled[:-1] and [names[i] for i in steps["to"]] == sampled[1:]
    assert path["labels"][steps["from"][0]].startswith("1")  # numbered from the start
    at = after_training(at.radio(key="pl.model").set_value("dual").run())
    assert not at.exception and not at.error
    open_tab(at, TAB, "A song's next songs")
    assert any("exit point" in c.value for c in at.caption)
    view = lab_map(at, "pl.map.next")
    model = shown_model(at)
    i = list(model.songs_).index(at.selectbox(key="pl.song").value)
    names = [a["name"] for a in view["arrows"]]
    entry_exit = view["arrows"][names.index("entry u → exit v")]
    assert entry_exit["from"] == [i]
    assert max(abs(a - b) for a, b in zip(entry_exit["to"][0], model.exit_[i, :2])) < 1e-6
    (v,) = [m for m in view["markers"] if m["name"] == "exit point v"]
    assert abs(v["x"][0] - model.exit_[i, 0]) < 1e-6 and abs(v["y"][0] - model.exit_[i, 1]) < 1e-6


def test_only_the_open_tab_is_drawn():
    at = open_trained()
    assert at.session_state[TAB] == "Song map"
    # the song map beside the learned map aligned to the true one, nothing from the other tabs
    assert sorted(lab_maps(at)) == ["pl.map.songs", "pl.map.truth"] and not at.get("plotly_chart")
    assert not [w for w in at.selectbox if w.key in ("pl.song", "pl.start")] and not at.multiselect
    for label, maps, chart in [("A song's next songs", ["pl.map.next"], None),
                               ("Sample a playlist", ["pl.map.sample"], None),
                               ("Likelihood", [], "pl.chart.ll"), ("Tags", ["pl.map.tags"], None)]:
        open_tab(at, TAB, label)
        assert not at.exception and not at.error
        assert sorted(lab_maps(at)) == maps, label
        keys = [c.proto.id for c in at.get("plotly_chart")]
        assert keys == [] if chart is None else len(keys) == 1 and chart in keys[0], (label, keys)


def test_the_song_map_shows_every_song_coloured_by_tag_and_aligned_to_the_truth():
    from app.services import playlists as svc

    at = open_trained()
    model = shown_model(at)
    songs = lab_map(at, "pl.map.songs")
    assert songs["n"] == len(model.songs_) == 200
    assert songs["ids"] == [str(s) for s in model.songs_] and songs["labels"] == songs["ids"]
    assert abs(songs["xy"] - model.embedding_[:, :2]).max() < 1e-5  # the first map of this key: as learned
    table = svc.song_table(at.session_state["pl.shown"])
    first = [t.split(", ")[0] if t else "untagged" for t in table["tags"]]
    assert songs["color"]["names"] == sorted(set(first)) and songs["color"]["title"] == "first tag"
    assert [songs["color"]["names"][c] for c in songs["codes"]] == first
    truth = lab_map(at, "pl.map.truth")
    aligned, true_points, disparity, shared = svc.truth_alignment(at.session_state["pl.shown"])
    n = len(shared)
    assert truth["n"] == 2 * n and f"disparity {disparity:.3f}" in truth["title"]
    assert abs(truth["xy"][:n] - true_points).max() < 1e-5 and abs(truth["xy"][n:] - aligned).max() < 1e-5
    (errors,) = truth["edges"]
    assert (errors["pairs"][:, 1] - errors["pairs"][:, 0] == n).all() and len(errors["pairs"]) == n


def test_a_tabs_controls_are_kept_while_another_tab_is_open():
    at = open_tab(open_trained(), TAB, "A song's next songs")
    song = at.selectbox(key="pl.song").options[9]
    at.selectbox(key="pl.song").set_value(song).run()
    open_tab(at, TAB, "Sample a playlist")
    at.slider(key="pl.length").set_value(25).run()
    open_tab(at, TAB, "Download")
    # the download of next-song probabilities starts from the song chosen in the next-songs tab
    assert at.selectbox(key="pl.dl_song").value == song
    assert any(song in b.label for b in at.get("download_button"))
    open_tab(at, TAB, "A song's next songs")
    assert at.selectbox(key="pl.song").value == song
    open_tab(at, TAB, "Sample a playlist")
    assert at.slider(key="pl.length").value == 25
    assert len(_sampled_playlist(at)) == 25


def test_a_second_visitor_with_the_same_settings_gets_the_model_without_training():
    first = open_trained()
    first = after_training(first.slider(key="pl.iters").set_value(350).run())  # settings no other test trains
    assert "pl.redraw_rate" in first.session_state  # trained here
    second = open_page(PAGE)  # the default settings' model is in the store: nothing to train
    assert job_of(second) is None
    second.slider(key="pl.iters").set_value(350).run()
    assert not second.exception and not second.error
    assert job_of(second) is None
    assert "pl.redraw_rate" not in second.session_state  # nothing trained in this session
    assert second.session_state["pl.shown"] == first.session_state["pl.shown"]
    assert metric(second, "iterations") == metric(first, "iterations")
    assert metric(second, "held-out log-likelihood") == metric(first, "held-out log-likelihood")


def test_train_button_retrains_and_a_finished_model_has_no_stop():
    at = open_trained()
    first = metric(at, "iterations")
    at = after_training(at.slider(key="pl.iters").set_value(100).run())  # a new setting trains again
    assert metric(at, "iterations") != first and not at.exception
    at = after_training(at.button(key="pl.train").click().run())
    assert not at.exception
    trained = metric(at, "iterations")
    # Stop exists only while training runs: a finished model cannot be swapped for an older snapshot
    assert not [b for b in at.button if b.key == "pl.stop_button"]
    # a Stop click that reaches the server after training finished changes nothing
    at.session_state["pl.run.stop"] = True
    at.run()
    assert metric(at, "iterations") == trained and not any(i.value.startswith("Stopped") for i in at.info)


def test_stop_during_training_keeps_the_latest_model(monkeypatch):
    at = open_page(PAGE)
    at.radio(key="pl.model").set_value("dual")
    at = after_training(at.slider(key="pl.iters").set_value(3000).run())  # a long run: converges in seconds
    full = int(metric(at, "iterations"))
    reached = hold_at(monkeypatch, 20, at.session_state["pl.shown"].spec)  # it waits there for the click
    at.button(key="pl.train").click().run()  # the run ends at once; training goes on, drawn by the section
    job = job_of(at)
    assert job is not None and [b for b in at.button if b.key == "pl.stop_button"]
    assert reached.wait(180), "training did not reach iteration 20"
    assert job.running
    at.button(key="pl.stop_button").click().run()  # its callback stops the training; the run shows the model
    assert not at.exception and not at.error
    assert job.outcome == "stopped"
    stopped = [i.value for i in at.info if i.value.startswith("Stopped after")]
    assert stopped, [i.value for i in at.info]
    kept = int(metric(at, "iterations"))
    assert 0 < kept < full and stopped[0] == f"Stopped after {kept} iterations; the model so far is kept."
    assert not [b for b in at.button if b.key == "pl.stop_button"]
    at.run()  # the stopped model stays (no automatic retraining) until Train is pressed
    assert int(metric(at, "iterations")) == kept


def test_closing_the_tab_ends_a_large_exact_training():
    # 8,000 songs with the exact Z: a step is ~10^8 kernel terms, seconds of work, checked between blocks
    at = _upload(open_page(PAGE), 8000)
    at.radio(key="pl.model").set_value("dual").run()
    assert job_of(at) is None  # too many songs to train without a click
    at.button(key="pl.train").click().run()
    job = job_of(at)
    assert job is not None and job.running
    job._alive = lambda: False  # what the server says of a session whose tab was closed
    assert job.wait(120), "training went on after the tab closed"
    assert job.outcome == "cancelled" and job.key is None


def test_too_many_songs_for_the_exact_partition_function_switch_to_the_approximation():
    at = _upload(open_page(PAGE), 10_500)
    assert at.radio(key="pl.z_mode").value == "exact"
    notice = [i.value for i in at.info if "approximate Z" in i.value]
    assert len(notice) == 1 and "Partition function Z" in notice[0] and "10,500 songs" in notice[0], notice
    assert not at.slider(key="pl.z_m").proto.disabled  # m now matters
    at.slider(key="pl.iters").set_value(50)
    at = after_training(at.button(key="pl.train").click().run(timeout=240), timeout=240)
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert int(metric(at, "iterations")) > 0 and metric(at, "held-out log-likelihood") != "n/a"


def test_lesmis_walks_with_tags():
    at = open_trained()
    at = after_training(at.selectbox(key="pl.dataset").set_value("lesmis").run())
    assert not at.exception and not at.error
    assert metric(at, "songs") == "77"
    open_tab(at, TAB, "Tags")
    at.multiselect(key="pl.new_tags").set_value(["group 1", "group 2"]).run()
    assert not at.exception
    layers = {m["name"]: m for m in lab_map(at, "pl.map.tags")["markers"]}
    tags = dict(zip(layers["tags"]["text"], zip(layers["tags"]["x"], layers["tags"]["y"])))
    new = layers["new song"]
    # the new song lands at the mean of its tags' points
    for axis in (0, 1):
        mean = (tags["group 1"][axis] + tags["group 2"][axis]) / 2
        assert abs((new["x"], new["y"])[axis][0] - mean) < 1e-6


def test_uploaded_playlists_train():
    rows = "\n".join(" ".join(f"s{(i + j * 3) % 40}" for j in range(6)) for i in range(120))
    at = open_page(PAGE)
    at = after_training(at.sidebar.file_uploader[0].set_value(("pl.txt", rows.encode(), "text/plain")).run())
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert metric(at, "songs") == "40"
    assert lab_map(at, "pl.map.songs")["n"] == 40  # every uploaded song is on the map


def test_uploaded_playlists_with_a_tag_file():
    rows = "\n".join(" ".join(f"s{(i + j * 3) % 40}" for j in range(6)) for i in range(120))
    tags = "\n".join(f"s{k}\t{'low' if k < 20 else 'high'}" for k in range(40)) + "\nghost\tnone\n"
    at = open_page(PAGE)
    at = after_training(at.sidebar.file_uploader[0].set_value([("pl.txt", rows.encode(), "text/plain"),
                                                        ("tags.tsv", tags.encode(), "text/plain")]).run())
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any("40 of 40 songs have tags; 1 tagged song never appears" in i.value for i in at.sidebar.info)
    open_tab(at, TAB, "Tags")
    assert at.multiselect(key="pl.new_tags").options == ["high", "low"]


def test_approximate_partition_function_from_the_sidebar():
    at = open_trained()
    exact = float(metric(at, "held-out log-likelihood"))
    at = after_training(at.radio(key="pl.z_mode").set_value("approximate").run())
    assert not at.exception and not at.error
    approx = float(metric(at, "held-out log-likelihood"))
    assert approx != exact and abs(approx - exact) < 0.2


def _left_out_line(n_left: int, n_total: int) -> str:
    return (f"{n_left:,} of {n_total:,} held-out transitions involve a song never seen in training "
            "and are left out of every score.")


def test_held_out_transitions_with_unseen_songs_are_left_out_of_every_score():
    import numpy as np

    from embedcore.playlists import split_playlists

    # every fourth playlist has a song of its own in the middle: held out, it was never seen in training
    playlists = [[f"s{(i + j * 3) % 40}" for j in range(6)] for i in range(120)]
    for i in range(0, 120, 4):
        playlists[i].insert(3, f"solo{i}")
    at = open_page(PAGE)
    at.sidebar.file_uploader[0].set_value(("pl.txt", "\n".join(map(" ".join, playlists)).encode(), "text/plain")).run()
    at = after_training(at)
    assert not at.exception and not at.error, [e.value for e in at.error]
    train, test = split_playlists(playlists, 0.2, random_state=0)  # the page's defaults: seed 0, 20% held out
    known = {s for p in train for s in p}
    pairs = [(a, b) for p in test for a, b in zip(p, p[1:]) if a in known and b in known]
    n_total = sum(len(p) - 1 for p in test)
    assert 0 < len(pairs) < n_total
    open_tab(at, TAB, "Likelihood")
    assert _left_out_line(n_total - len(pairs), n_total) in [c.value for c in at.caption]
    model = shown_model(at)
    # a -> unseen -> b is not scored as a -> b
    assert metric(at, "held-out log-likelihood") == f"{model.log_likelihood([list(p) for p in pairs]):.4f}"
    table = next(d.value for d in at.dataframe if "held-out log-likelihood" in d.value.columns)
    ll = dict(zip(table["model"], table["held-out log-likelihood"]))
    assert ll["uniform"] == round(-np.log(len(known)), 4)  # over the training songs only
    assert f"Uniform is exactly -ln {len(known)}" in " ".join(c.value for c in at.caption)
    # the metric's arrow is this model against the bigram baseline, as its label says
    shown = next(m for m in at.metric if m.label.startswith("held-out log-likelihood"))
    assert shown.label == "held-out log-likelihood (Δ vs bigram)"
    assert float(shown.delta) == pytest.approx(float(shown.value) - ll["bigram (Witten-Bell)"], abs=2e-3)


def test_default_data_says_no_held_out_transition_is_left_out():
    at = open_tab(open_trained(), TAB, "Likelihood")
    # the left-out line in either of its two forms; the HMM's caption also speaks of held-out transitions
    said = re.compile(r"held-out transitions (are between songs seen in training|involve a song never seen)")
    lines = [c.value for c in at.caption if said.search(c.value)]
    assert lines == ["All 2,100 held-out transitions are between songs seen in training; none is left out."], lines


def test_true_model_and_lme_are_scored_on_the_same_held_out_transitions():
    from app.services import playlists as svc
    from embedcore.playlists import LME, make_planted_playlists, scored_transitions, song_index, split_playlists

    playlists, truth = make_planted_playlists(100, 30, 6, random_state=11)
    train, test = split_playlists(playlists, 0.3, random_state=0)
    lme = LME(max_iter=30, random_state=0).fit(train)
    known = set(lme.songs_)
    pairs = [[a, b] for p in test for a, b in zip(p, p[1:]) if a in known and b in known]
    assert len(truth.songs_) > len(known)  # the true model knows songs training never saw
    held = scored_transitions(test, song_index(train))  # what svc.held_out_set holds for a data set
    assert held.n_scored == len(pairs)
    assert svc.held_out(lme, held) == lme.log_likelihood(pairs)
    assert svc.held_out(truth, held) == truth.log_likelihood(pairs)


def test_formula_shows_the_penalty_the_code_optimises():
    at = open_page(PAGE)
    formula = at.latex[0].value
    assert r"\frac{\lambda}{S}" in formula and r"\frac{1}{T}" in formula, formula
    text = " ".join(c.value for c in at.caption)
    assert "T is the number of training transitions and S the number of songs" in text


def test_next_song_list_explains_why_the_song_itself_comes_first():
    at = open_tab(open_trained(), TAB, "A song's next songs")
    at.selectbox(key="pl.song").set_value(at.selectbox(key="pl.song").options[7]).run()
    song = at.selectbox(key="pl.song").value
    model = shown_model(at)
    top = next(d.value for d in at.dataframe if "next song" in d.value.columns)
    assert top["next song"].iloc[0] == song
    p_self = model.transition_proba(song)[song]
    assert top["probability"].iloc[0] == round(p_self, 4)
    why = [c.value for c in at.caption if "distance 0" in c.value]
    assert why == [f"In the single-point model a song is at distance 0 from itself, so it is always its own likeliest "
                   f"next song (here {p_self:.4f}): like the paper's, the model allows a song to follow itself."], why
    at = after_training(at.radio(key="pl.model").set_value("dual").run())
    assert not [c.value for c in at.caption if "distance 0" in c.value]


def test_the_other_point_model_is_ready_before_the_model_radio_is_turned():
    from app.services import playlists as svc

    at = open_trained()
    at = after_training(at.slider(key="pl.reg").set_value(-2.5).run())  # settings no other test trains
    trained_here = at.session_state["pl.redraw_rate"]
    dual = svc.ModelKey(at.session_state["pl.shown"].spec._replace(model="dual"))
    deadline = time.perf_counter() + 180  # a bound on the wait, not a measurement
    while svc.trained(dual) is None and time.perf_counter() < deadline:
        time.sleep(0.1)
    assert svc.trained(dual) is not None, "the dual model was not trained in the background"
    at.radio(key="pl.model").set_value("dual").run()
    assert not at.exception and not at.error
    assert job_of(at) is None
    assert at.session_state["pl.shown"] == dual
    assert at.session_state["pl.redraw_rate"] is trained_here  # nothing was trained in this session


def test_a_training_run_stopped_keeps_its_model_and_one_whose_tab_closed_keeps_nothing(monkeypatch):
    from app.services import playlists as svc
    from app.services.data import DataRef
    from embedcore.playlists import make_planted_playlists, scored_transitions, song_index, split_playlists

    playlists, _ = make_planted_playlists(150, 600, 8, model="dual", random_state=5)
    train, test = split_playlists(playlists, 0.2, random_state=0)
    held = scored_transitions(test, song_index(train))
    spec = svc.ModelSpec(DataRef("playlists", "test:training-run", 0), 0.2, "dual", 2, 1e-3, 3000, None)
    reached = hold_at(monkeypatch, 20, spec)
    job = svc.TrainingJob(spec, train, None, held)
    assert reached.wait(60), "training did not reach iteration 20"
    job.stop()
    assert job.wait(60) and job.outcome == "stopped", job.outcome
    assert job.key == svc.ModelKey(spec, job.key.stopped_at) and 20 <= job.key.stopped_at < 3000
    kept = svc.trained(job.key)
    assert kept.model.n_iter_ == job.key.stopped_at
    assert kept.held_out == kept.model.log_likelihood(held.playlists)
    assert svc.trained(svc.ModelKey(spec)) is None  # a stopped model never stands in for a finished one
    closed = svc.TrainingJob(spec._replace(max_iter=2950), train, None, held, alive=lambda: False)
    assert closed.wait(60) and closed.outcome == "cancelled" and closed.key is None


def cold_start_table(at):
    return next(d.value for d in at.dataframe if "placement" in d.value.columns)


def test_cold_start_tab_runs_three_placements_and_the_tag_weight_changes_them():
    at = open_trained()
    open_tab(at, TAB, "Cold start")
    assert not at.exception and not at.error
    assert any("u_{\\text{new}}" in x.value for x in at.latex)
    at.button(key="pl.cs_run").click().run()
    assert not at.exception and not at.error
    table = cold_start_table(at)
    assert list(table["placement"]) == ["tags' mean", "at 0", "random"]
    first = table["held-out log-likelihood"].to_numpy()
    assert first[0] > first[1] and first[0] > first[2]
    assert any("transitions touch one of them" in c.value for c in at.caption)
    at.slider(key="pl.cs_tag").set_value(0.0).run()
    at.button(key="pl.cs_run").click().run()
    assert not at.exception and not at.error
    second = cold_start_table(at)["held-out log-likelihood"].to_numpy()
    assert len(second) == 3 and not (second == first).all()


def test_the_hidden_markov_model_is_scored_between_uniform_and_the_lme_with_its_parameters():
    at = open_trained()
    open_tab(at, TAB, "Likelihood")
    table = next(d.value for d in at.dataframe if "free parameters" in d.value.columns).set_index("model")
    ll = table["held-out log-likelihood"]
    assert ll["uniform"] < ll["hidden Markov model, K = 8"] < ll["LME (single-point, d = 2)"]
    S = 200
    assert table.loc["hidden Markov model, K = 8", "free parameters"] == 7 + 8 * 7 + 8 * (S - 1)
    assert table.loc["LME (single-point, d = 2)", "free parameters"] == S * 2
    at.select_slider(key="pl.hmm_states").set_value(32).run()
    assert not at.exception
    more = next(d.value for d in at.dataframe if "free parameters" in d.value.columns).set_index("model")
    assert more.loc["hidden Markov model, K = 32", "held-out log-likelihood"] > ll["hidden Markov model, K = 8"]


def test_one_short_playlist_is_cut_into_sessions_at_a_length_the_page_offers():
    """A file of one playlist used to end in 'lower the held-out share or upload longer playlists', advice that
    cannot work: a held-out split needs two playlists. The page says so and cuts it into sessions instead."""
    at = open_page(PAGE)
    one = " ".join(f"s{i % 5}" for i in range(12))
    at = after_training(at.sidebar.file_uploader[0].set_value(("mine.txt", one.encode(), "text/plain")).run())
    assert not at.exception and not at.error, [e.value for e in at.error]
    said = [i.value for i in at.info if "one playlist of 12 songs" in i.value]
    assert said and "A held-out split needs at least two playlists" in said[0] and "6 sessions" in said[0]
    assert at.slider(key="pl.session").value == 2
    assert metric(at, "playlists (train / test)") == "5 / 1"
    at.slider(key="pl.session").set_value(4).run()
    at = after_training(at)
    assert not at.error and metric(at, "playlists (train / test)") == "2 / 1"
    assert any("3 sessions" in i.value for i in at.info)


def test_one_long_playlist_is_cut_at_the_readers_length_and_the_control_changes_it():
    from tests.app.uploads import one_long_playlist

    at = open_page(PAGE)
    at = after_training(at.sidebar.file_uploader[0].set_value(
        ("history.txt", one_long_playlist(400, songs=30), "text/plain")).run())
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.slider(key="pl.session").value == 40 and metric(at, "playlists (train / test)") == "8 / 2"
    at.slider(key="pl.session").set_value(20).run()
    at = after_training(at)
    assert not at.error and metric(at, "playlists (train / test)") == "16 / 4"
    assert metric(at, "songs") == "30"
