"""Words page: the knobs refit the vectors, queries answer, the map and evaluations run."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest

from tests.app.maps import bar_charts, lab_map, lab_maps
from tests.app.maps import settle as settle_job
from tests.conftest import chart_specs, metric, open_page, open_tab

PAGE = "app_pages/words.py"
JOB = "words.map_job"


def _job(at):
    """This session's t-SNE of the word map, or None."""
    return at.session_state[JOB] if JOB in at.session_state else None


def settle(at, timeout: float = 300):
    """Run ``at`` again until no t-SNE of the word map runs (:func:`tests.app.maps.settle`)."""
    return settle_job(at, JOB, timeout)


def open_words(timeout: float = 300, **state):
    """The Words page, ``state`` set (session-state keys) before its first run: the map it opens on is the one
    those settings ask for, the only t-SNE the page starts."""
    from streamlit import config
    from streamlit.testing.v1 import AppTest

    from tests.conftest import APP

    config.set_option("client.showErrorDetails", "full")
    at = AppTest.from_file(str(APP), default_timeout=timeout)
    at.run()
    for key, value in state.items():
        at.session_state[key] = value
    return at.switch_page(PAGE).run()


def open_map(timeout: float = 300, **state):
    """The Words page, ``state`` set first (session-state keys), the word map it opens on finished."""
    return settle(open_words(timeout, **state), timeout)


def _map_title(at) -> str:
    return lab_map(at, "words.map")["title"]



def test_knobs_refit_and_change_the_spectrum():
    at = open_tab(open_page(PAGE), "words.tab", "Spectrum")
    assert not at.exception and not at.error
    before = chart_specs(at)
    vocab = metric(at, "vocabulary")
    at.slider(key="words.min_count").set_value(5).run()
    assert metric(at, "vocabulary") != vocab
    at.select_slider(key="words.shift").set_value(5).run()
    at.slider(key="words.dims").set_value(50).run()
    assert not at.exception and chart_specs(at) != before
    weighted_before = chart_specs(at)
    at.checkbox(key="words.weighted").check().run()
    assert chart_specs(at) != weighted_before
    at.radio(key="words.context").set_value("document").run()
    assert not at.exception and not at.error


def test_nearest_words_and_analogy_answer_the_query():
    at = open_tab(open_page(PAGE), "words.tab", "Nearest words")
    near = next(d.value for d in at.dataframe if "cosine" in d.value.columns and "count" in d.value.columns)
    at.selectbox(key="words.query").set_value("police").run()
    near2 = next(d.value for d in at.dataframe if "cosine" in d.value.columns and "count" in d.value.columns)
    assert list(near["word"]) != list(near2["word"]) and len(near2) == 20
    assert "police" not in list(near2["word"])
    # the box beside the map, on every tab, lists the same word's nearest first
    box = next(d.value for d in at.dataframe if list(d.value.columns) == ["word", "cosine"] and len(d.value) == 8)
    assert list(box["word"]) == list(near2["word"][:8])


def test_word_map_switches_method_and_highlights():
    from app.services import words as svc

    at = open_map()
    shown = lab_map(at, "words.map")
    words = shown["labels"]
    assert shown["n"] == len(words) == 300 and shown["title"].startswith("t-SNE map of the 300 most frequent words")
    # labelled by frequency, coloured by log10 count, the tooltip giving count and nearest words
    counts = [int(c.replace(",", "")) for c in next(f["values"] for f in shown["hover"]["fields"]
                                                     if f["name"] == "count")]
    assert counts == sorted(counts, reverse=True) and shown["color"]["title"] == "log10 count"
    assert np.allclose(shown["values"], np.log10(counts), atol=1e-5)
    assert [f["name"] for f in shown["hover"]["fields"]] == ["count", "near"]
    at.radio(key="words.map_method").set_value("UMAP").run(timeout=180)
    assert not at.exception
    umap = lab_map(at, "words.map")
    assert umap["title"].startswith("UMAP map of the 300") and not np.allclose(umap["xy"], shown["xy"])
    at.selectbox(key="words.highlight").set_value("police").run()
    assert not at.exception
    marked = lab_map(at, "words.map")
    i = marked["labels"].index("police")
    assert marked["alwaysLabel"] == [i] and any(r["indices"] == [i] and r["name"] == "police" for r in marked["rings"])
    at.radio(key="words.map_colour").set_value("cluster").run()
    coloured = lab_map(at, "words.map")
    assert coloured["color"]["kind"] == "category" and len(set(coloured["codes"])) == len(coloured["color"]["names"])
    assert svc.MAX_MAP_WORDS == 5000


def test_the_first_finished_map_shows_the_final_layout():
    from app.services import words as svc

    at = open_words(**{"global.seed": 4241})  # a map no other test draws; the page opens on it
    job = _job(at)
    assert job is not None and job.wait(300)
    at.run()
    stored, seconds = svc.stored(job.key)
    shown = lab_map(at, "words.map")
    assert shown["title"] == f"t-SNE map of the 300 most frequent words ({seconds:.1f} s)"
    # the frames were drawn in t-SNE's own axes, and so is the map they end in: exactly the final layout
    assert np.array_equal(shown["xy"], stored.astype(np.float32))
    assert not [b for b in at.button if b.key == "words.map_stop"]


def test_a_fast_t_sne_is_still_drawn_in_several_frames():
    """300 words take well under a second: the frames move at most FRAME_ITERATIONS iterations each, so the
    page still draws the run taking shape, in MIN_FRAMES layouts of the run itself, before the final map;
    no more once the run has ended."""
    from app.services import words as svc

    X = np.random.default_rng(0).normal(size=(300, 20))
    job = svc.TsneJob(("test",), X / np.linalg.norm(X, axis=1, keepdims=True), 30, 0)
    assert job.wait(300) and job.outcome == "done"
    frames = []
    while job.showing():
        frames.append(job.next_frame()[1])
    assert len(frames) == svc.MIN_FRAMES and frames == sorted(frames) and frames[-1] <= 750
    assert np.diff([0] + frames).max() <= svc.FRAME_ITERATIONS and job.draws == len(frames)


def test_evaluation_and_document_classification(monkeypatch):
    import embedcore.words.evaluation

    monkeypatch.setattr(embedcore.words.evaluation, "DOCUMENT_C_GRID", (0.1, 1.0))  # two values: the run stays short
    at = open_tab(open_page(PAGE), "words.tab", "Evaluation")
    at.button(key="words.run_eval").click().run(timeout=180)
    assert not at.exception
    table = next(d.value for d in at.dataframe if "wordsim353 ρ" in d.value.columns)
    assert len(table) == 3 and table["wordsim353 OOV"].between(0, 1).all()
    open_tab(at, "words.tab", "Documents")
    docs_map = lab_map(at, "words.docs.map")  # the Lee corpus: 300 articles, each a point with its opening
    assert docs_map["n"] == 300 and docs_map["color"]["title"] == "log10 words"
    assert [f["name"] for f in docs_map["hover"]["fields"]] == ["words", "text"]
    at.session_state["words.dims"] = 20
    at.run()
    at.button(key="words.run_docs").click().run(timeout=300)
    assert not at.exception and not at.error, [e.value for e in at.error]
    sides = next(d.value for d in at.dataframe if "accuracy [95% interval]" in d.value.columns)
    assert len(sides) == 5 and all(float(v.split()[0]) > 0.4 for v in sides["accuracy [95% interval]"])
    # the PMI document vectors have the sidebar's dimensions, and every representation was tuned the same way
    widths = " ".join(c.value for c in at.caption if c.value.startswith("Widths:"))
    assert "PMI document vectors (tf-idf weighted, unit rows) 20." in widths
    assert set(sides["grid searched"]) <= {"2 settings; C in {0.1, 1}", "3 settings; C in {0.01, 0.1, 1}",
                                           "3 settings; C in {0.1, 1, 10}", "4 settings; C in {0.1, 1, 10, 100}",
                                           "4 settings; C in {0.001, 0.01, 0.1, 1}",
                                           "5 settings; C in {0.1, 1, 10, 100, 1000}",
                                           "5 settings; C in {0.0001, 0.001, 0.01, 0.1, 1}"}
    diffs = next(d.value for d in at.dataframe if "verdict" in d.value.columns)
    assert len(diffs) == 4


def test_label_embedding_controls():
    at = open_tab(open_page(PAGE), "words.tab", "Label embedding")
    unknown = metric(at, "held-out label sets recovered exactly, number of labels unknown")
    known = metric(at, "... when told how many labels each set has")
    # the oracle that knows each set's size is shown apart, and is not below the honest figure
    assert float(known.rstrip("%")) >= float(unknown.rstrip("%"))
    plane = lab_map(at, "words.le.map")
    assert plane["labels"] == [f"label {i}" for i in range(12)] and plane["n"] == 12
    at.slider(key="words.le_dims").set_value(2).run()
    assert metric(at, "held-out label sets recovered exactly, number of labels unknown") != unknown


def test_uploaded_text_and_too_small_corpus():
    at = open_page(PAGE)
    at.sidebar.file_uploader[0].set_value(("tiny.txt", b"one two\n", "text/plain")).run()
    assert not at.exception
    assert len(at.error) == 1 and "Only 0 word" in at.error[0].value and "lower min" in at.error[0].value


def test_a_finished_map_has_no_stop_and_keeps_its_label():
    at = open_map()
    title = _map_title(at)
    assert title.startswith("t-SNE map of the 300 most frequent words (") and title.endswith(" s)")
    # Stop exists only while the map runs
    assert not [b for b in at.button if b.key == "words.map_stop"]
    # a Stop click that reaches the server after the map finished changes nothing
    at.session_state["words.map_job.stop"] = True
    at.run()
    assert _map_title(at) == title and not any(i.value.startswith("Stopped") for i in at.info)


def test_stop_during_tsne_keeps_the_layout_so_far(monkeypatch):
    import app.services.live
    import embedcore.maps

    calls, real = [], embedcore.maps.embed

    def held(X, method, on_layout=None, **kwargs):
        """t-SNE that waits at its first layout until it is told to stop: it cannot end before the click."""
        calls.append(method)

        def hold(Y, iteration):
            while not on_layout(Y, iteration):
                time.sleep(0.01)
            return True

        return real(X, method, on_layout=hold, **kwargs)

    monkeypatch.setattr(app.services.live, "embed", held)
    at = open_words(**{"global.seed": 7919, "words.map_n": 2000})  # a map no other test draws; the page opens on it
    job = _job(at)
    assert job is not None and job.first.wait(300)  # a layout to keep
    at.run()  # the fragment's next run: the running map's latest layout, and Stop
    live = lab_map(at, "words.map")
    assert live["n"] == 2000 and live["title"] == f"t-SNE, iteration {job.latest[1]}"
    # the latest layout, drawn at the start's scale (app.services.live.scaled_to)
    drawn = live["xy"].astype(np.float64)
    expected = app.services.live.scaled_to(job.latest[0], app.services.live.spread(drawn))
    assert np.allclose(drawn, expected, atol=1e-5 * app.services.live.spread(drawn))
    at.button(key="words.map_stop").click().run()
    # the run after the click waited for the t-SNE to end (it ends at its next layout) and shows what it kept
    assert job.outcome == "stopped" and not at.exception and not at.error
    stopped = [i.value for i in at.info if i.value.startswith("Stopped at iteration")]
    assert stopped == [f"Stopped at iteration {job.latest[1]}; the layout so far is kept."], \
        [i.value for i in at.info]
    shown = lab_map(at, "words.map")
    assert shown["title"] == "t-SNE map of the 2000 most frequent words (stopped early)"
    assert np.array_equal(shown["xy"], job.latest[0].astype(np.float32))
    assert live["glideMs"] > 0 and shown["glideMs"] == 0  # frames glide; what follows the last one replaces it
    assert not [b for b in at.button if b.key == "words.map_stop"]
    assert calls.count("tsne") == 1  # the run after Stop did not start the map again
    at.run()  # the kept layout stays, without computing again
    assert calls.count("tsne") == 1 and _map_title(at).endswith("(stopped early)")


def test_a_small_corpus_caps_the_map_instead_of_failing():
    from tests.app.uploads import UPLOADS

    at = open_page(PAGE)
    name, blob = UPLOADS["text-25-words"][0]
    at.sidebar.file_uploader[0].set_value((name, blob, "text/plain")).run()
    assert at.session_state["words.dataset"] == "upload"
    assert not at.exception and not at.error, [e.value for e in at.error]
    # 10 words occur 3 times or more: dimensions, map size and perplexity are capped, each with a caption
    captions = " ".join(c.value for c in at.caption)
    assert "Dimensions: 9 (the only possible value" in captions
    settle(at)
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert "Perplexity is capped at 3" in " ".join(c.value for c in at.caption)
    assert _map_title(at).startswith("t-SNE map of the 10 most frequent words")


def test_tuned_comparison_reports_held_out_scores_with_intervals(monkeypatch):
    import embedcore.words.evaluation

    # a small grid for each method keeps the run short; the page reads the protocol's result as it is
    monkeypatch.setattr(embedcore.words.evaluation, "PMI_GRID", [dict(window=2, eig_weight=0.5, shift=1.0),
                                                                 dict(window=5, eig_weight=0.5, shift=1.0)])
    monkeypatch.setattr(embedcore.words.evaluation, "WORD2VEC_GRID", [dict(epochs=5, window=5)])
    at = open_tab(open_page(PAGE), "words.tab", "Evaluation")
    at.button(key="words.run_tune").click().run(timeout=300)
    assert not at.exception and not at.error
    sides = next(t.value for t in at.dataframe if "Spearman ρ [95% interval]" in t.value.columns)
    assert list(sides["side"]) == ["PMI-SVD", "CBOW", "skip-gram"]
    assert set(sides["chosen setting (most folds)"][1:]) == {"epochs=5, window=5"}
    diffs = next(t.value for t in at.dataframe if "verdict" in t.value.columns)
    assert list(diffs["comparison"]) == ["PMI-SVD − CBOW", "PMI-SVD − skip-gram", "CBOW − skip-gram"]
    for text, verdict in zip(diffs["difference [95% interval]"], diffs["verdict"]):
        mean, low, high = (float(v) for v in text.replace("[", "").replace("]", "").replace(",", "").split())
        # a method is called better only when the interval of the difference excludes 0
        assert verdict == ("no reliable difference on this data" if low <= 0 <= high else verdict)
        assert ("better" in verdict) == (low > 0 or high < 0)
        assert low <= mean <= high
    shown = metric(at, "PMI-SVD − CBOW, held-out ρ")
    assert float(shown) == pytest.approx(float(diffs["difference [95% interval]"][0].split()[0]), abs=1e-3)
    assert any(c.value.startswith("Protocol: 2-fold outer split, repeated 5 times") for c in at.caption)


def test_the_page_opens_on_its_map_and_hidden_tabs_compute_nothing(monkeypatch):
    """The page opens on its word map, a t-SNE started without a click; the spectrum, the document vectors and
    the label embedding wait for their tabs."""
    import embedcore.maps

    calls = []
    real = embedcore.maps.embed
    monkeypatch.setattr(embedcore.maps, "embed", lambda *a, **k: calls.append(a[1]) or real(*a, **k))
    import app.services.live
    import app.services.words

    monkeypatch.setattr(app.services.words, "embed", embedcore.maps.embed)
    monkeypatch.setattr(app.services.live, "embed", embedcore.maps.embed)
    at = open_words(**{"words.window": 2})
    assert not at.exception
    job = _job(at)  # started by the first visit: the map is computed in a thread of its own
    assert job is not None and dict(job.key[2])["window"] == 2 and job.key[4] == "t-SNE"
    job.wait(300)
    assert set(calls) <= {"tsne", "pca"} and calls.count("tsne") == 1  # pca: the start drawn before the 1st layout
    assert not bar_charts(at) and "words.docs.map" not in lab_maps(at) and "words.le.map" not in lab_maps(at)
    assert "words.map" in lab_maps(at)
    open_tab(at, "words.tab", "Spectrum")
    assert not at.exception and calls.count("tsne") == 1  # the map is kept; no new t-SNE for another tab
    bars = bar_charts(at)
    assert sorted(bars) == ["words.chart.spectrum.energy", "words.chart.spectrum.sigma"]
    sigma, energy = bars["words.chart.spectrum.sigma"], bars["words.chart.spectrum.energy"]
    assert sigma["title"] == "Singular values σ_k" and len(sigma["values"]) == len(energy["values"]) == 100
    assert np.all(np.diff(sigma["values"]) <= 1e-9) and np.all(np.diff(energy["values"]) >= -1e-9)
    k80 = next((k for k, v in enumerate(energy["values"], 1) if v >= 0.8), None)
    assert [(r["y"], r["label"]) for r in energy["rules"]] == [(0.8, "80%")]
    if k80 is not None:  # the bars up to the 80% mark highlighted, in both charts, and named in the title
        assert f"80% at k = {k80}" in energy["title"]  # (Lee at 100 dimensions keeps 26.5%: no mark)
        from app.ui.bars import HIGHLIGHT

        assert [c == HIGHLIGHT for c in sigma["colors"]] == [k <= k80 for k in range(1, 101)]


def test_a_finished_map_is_shared_with_the_next_visitor(monkeypatch):
    """A second session with the same corpus and settings gets the map without running t-SNE again."""
    import app.services.live

    first = open_map()
    title = _map_title(first)
    calls = []
    monkeypatch.setattr(app.services.words, "embed", lambda *a, **k: calls.append(a[1]))
    second = open_page(PAGE)  # the page opens on the map
    assert calls == [] and _map_title(second) == title and _job(second) is None
    assert lab_map(second, "words.map")["glideMs"] > 0  # not seen live here: it glides like any other map


def test_dimensions_redo_only_the_svd_and_a_new_window_counts_only_its_new_distance(monkeypatch):
    """Each stage is cached on its own inputs: the counts per distance, the PMI per counting and PMI setting,
    the SVD per dimensions. A new seed gives a corpus reference no other test has computed with."""
    import app.services.words as svc

    svc._AHEAD.idle(120)  # fits ahead planned by the tests before this one, in this process, have ended
    monkeypatch.setattr(svc._AHEAD, "plan", lambda jobs: None)  # the page's own stages only (fits ahead: below)
    calls = []
    real_distance, real_pmi, real_svd = svc.cooccurrence_at_distance, svc.pmi_matrix, svc.PMIWordVectors._svd
    monkeypatch.setattr(svc, "cooccurrence_at_distance",
                        lambda *a, **k: calls.append(("distance", a[3])) or real_distance(*a, **k))
    monkeypatch.setattr(svc, "pmi_matrix", lambda *a, **k: calls.append(("pmi",)) or real_pmi(*a, **k))
    monkeypatch.setattr(svc.PMIWordVectors, "_svd",
                        lambda self, P: calls.append(("svd", self.n_components)) or real_svd(self, P))
    at = open_page(PAGE)
    calls.clear()
    at.session_state["global.seed"] = 424242
    at.run()
    assert calls == [("distance", d) for d in range(1, 6)] + [("pmi",), ("svd", 100)]
    calls.clear()
    at.slider(key="words.dims").set_value(60).run()
    assert not at.exception and calls == [("svd", 60)]
    calls.clear()
    at.slider(key="words.window").set_value(6).run()
    assert not at.exception and calls == [("distance", 6), ("pmi",), ("svd", 60)]
    calls.clear()
    at.slider(key="words.window").set_value(3).run()  # distances 1-3 are counted already
    assert calls == [("pmi",), ("svd", 60)]
    calls.clear()
    at.slider(key="words.eig").set_value(1.0).run()  # p rescales the SVD's columns
    assert calls == []
    # the fit time is still reported after p's change, as seconds (its value is the clock's, not checked here)
    shown = metric(at, "fit time")
    assert shown.endswith(" s") and float(shown.split()[0]) >= 0, shown


def test_a_step_of_window_or_dimensions_finds_its_vectors_fitted_ahead(monkeypatch):
    """While the page shows its vectors, the next step of Window and of Dimensions is fitted in the background; a
    step with the arrow keys then runs no SVD of its own. After a step only the next one that way is fitted."""
    import threading

    import app.services.words as svc

    fits = []
    real_svd = svc.PMIWordVectors._svd
    monkeypatch.setattr(svc.PMIWordVectors, "_svd", lambda self, P: fits.append(
        (threading.current_thread().name.startswith("words-ahead"), self.window, self.n_components))
        or real_svd(self, P))
    at = open_page(PAGE)
    svc._AHEAD.idle(120)
    fits.clear()
    at.session_state["global.seed"] = 535353  # a corpus reference no other test has fitted with
    at.run()
    svc._AHEAD.idle(120)
    assert fits == [(False, 5, 100), (True, 6, 100), (True, 4, 100), (True, 5, 110), (True, 5, 90)]
    fits.clear()
    at.slider(key="words.window").set_value(6).run()
    svc._AHEAD.idle(120)
    assert not at.exception and fits == [(True, 7, 100)]  # none by the page; the next step up, ahead
    fits.clear()
    at.slider(key="words.window").set_value(7).run()
    svc._AHEAD.idle(120)
    at.slider(key="words.dims").set_value(90).run()  # down: 80 is next
    svc._AHEAD.idle(120)
    assert fits == [(True, 8, 100), (False, 7, 90), (True, 7, 80)]


def test_what_is_fitted_ahead_stays_within_the_sliders(monkeypatch):
    from app.services import data as data_service
    import app.services.words as svc

    planned = []
    monkeypatch.setattr(svc._AHEAD, "plan", lambda jobs: planned.append(
        [(dict(j.args[1])["window"], dict(j.args[1])["n_components"]) for j in jobs]))
    ref = data_service.DataRef("documents", "lee", 0)

    def params(**kw):
        p = dict(window=5, context="window", weighted=False, min_count=3, alpha=0.75, shift=1, positive=True,
                 n_components=100, eig_weight=0.5, random_state=0)
        return svc.vector_params(**{**p, **kw})

    svc.fit_ahead(ref, params(window=10, n_components=300), windows=(1, 10), dims=(10, 300, 10))
    svc.fit_ahead(ref, params(window=1, n_components=10), windows=(1, 10), dims=(10, 300, 10), moved=("window", -1))
    svc.fit_ahead(ref, params(context="document"), windows=(1, 10), dims=(10, 300, 10), moved=("dims", 1))
    svc.fit_ahead(ref, params(context="document"), windows=(1, 10), dims=(10, 300, 10))
    assert planned == [[(9, 300), (10, 290)], [], [(5, 110)], [(5, 110), (5, 90)]]
