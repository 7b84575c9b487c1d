"""Words page: the knobs refit the vectors, queries answer, the map and evaluations run."""

from __future__ import annotations

import json

from tests.app.test_playlists_page import run_and_interrupt
from tests.conftest import chart_specs, metric, open_page, open_tab

PAGE = "app_pages/words.py"


def _map_title(at) -> str:
    titles = [json.loads(c.proto.spec)["layout"]["title"]["text"] for c in at.get("plotly_chart")]
    return next(t for t in titles if "most frequent words" in t)



def test_knobs_refit_and_change_the_spectrum():
    at = open_page(PAGE)
    assert not at.exception and not at.error
    before = chart_specs(at)
    vocab = metric(at, "vocabulary")
    at.sidebar.slider(key="words.min_count").set_value(5).run()
    assert metric(at, "vocabulary") != vocab
    at.sidebar.select_slider(key="words.shift").set_value(5).run()
    at.sidebar.slider(key="words.dims").set_value(50).run()
    assert not at.exception and chart_specs(at) != before
    weighted_before = chart_specs(at)
    at.sidebar.checkbox(key="words.weighted").check().run()
    assert chart_specs(at) != weighted_before
    at.sidebar.radio(key="words.context").set_value("document").run()
    assert not at.exception and not at.error


def test_nearest_words_and_analogy_answer_the_query():
    at = open_tab(open_page(PAGE), "words.tab", "Nearest words")
    near = next(d.value for d in at.dataframe if "cosine" in d.value.columns and "count" in d.value.columns)
    at.selectbox(key="words.query").set_value("police").run()
    near2 = next(d.value for d in at.dataframe if "cosine" in d.value.columns and "count" in d.value.columns)
    assert list(near["word"]) != list(near2["word"]) and len(near2) == 20
    assert "police" not in list(near2["word"])


def test_word_map_switches_method_and_highlights():
    at = open_tab(open_page(PAGE), "words.tab", "Word map")
    before = chart_specs(at)
    at.radio(key="words.map_method").set_value("UMAP").run(timeout=180)
    assert not at.exception and chart_specs(at) != before
    at.selectbox(key="words.highlight").set_value("police").run()
    assert not at.exception


def test_evaluation_and_document_classification():
    at = open_tab(open_page(PAGE), "words.tab", "Evaluation")
    at.button(key="words.run_eval").click().run(timeout=180)
    assert not at.exception
    table = next(d.value for d in at.dataframe if "wordsim353 ρ" in d.value.columns)
    assert len(table) == 3 and table["wordsim353 OOV"].between(0, 1).all()
    open_tab(at, "words.tab", "Documents")
    at.button(key="words.run_docs").click().run(timeout=180)
    docs = next(d.value for d in at.dataframe if "features" in d.value.columns)
    assert len(docs) == 5 and (docs["accuracy"] > 0.4).all()


def test_label_embedding_controls():
    at = open_tab(open_page(PAGE), "words.tab", "Label embedding")
    unknown = metric(at, "held-out label sets recovered exactly, number of labels unknown")
    known = metric(at, "... when told how many labels each set has")
    # the oracle that knows each set's size is shown apart, and is not below the honest figure
    assert float(known.rstrip("%")) >= float(unknown.rstrip("%"))
    at.slider(key="words.le_dims").set_value(2).run()
    assert metric(at, "held-out label sets recovered exactly, number of labels unknown") != unknown


def test_uploaded_text_and_too_small_corpus():
    at = open_page(PAGE)
    at.sidebar.file_uploader[0].set_value(("tiny.txt", b"one two\n", "text/plain")).run()
    assert not at.exception
    assert len(at.error) == 1 and "Only 0 word" in at.error[0].value and "lower min" in at.error[0].value


def test_a_finished_map_has_no_stop_and_keeps_its_label():
    at = open_tab(open_page(PAGE), "words.tab", "Word map")
    title = _map_title(at)
    assert title.startswith("t-SNE map of the 300 most frequent words (") and title.endswith(" s)")
    # Stop exists only while the map runs
    assert not [b for b in at.button if b.key == "words.map_stop"]
    # a Stop click that reaches the server after the map finished changes nothing
    at.session_state["words.map_run.stop"] = True
    at.run()
    assert _map_title(at) == title and not any(i.value.startswith("Stopped") for i in at.info)


def test_stop_during_tsne_keeps_the_layout_within_a_second(monkeypatch):
    import app.services.words
    import embedcore.maps

    at = open_tab(open_page(PAGE), "words.tab", "Word map")
    calls, real = [], embedcore.maps.embed

    def counting(X, method, **kwargs):
        calls.append(method)
        return real(X, method, **kwargs)

    monkeypatch.setattr(embedcore.maps, "embed", counting)
    monkeypatch.setattr(app.services.words, "embed", counting, raising=False)
    # a map no other test draws (maps are shared by every session in the process): t-SNE on 2,000 words takes
    # several seconds
    at.sidebar.number_input(key="global.seed").set_value(7919)
    at.slider(key="words.map_n").set_value(2000)
    seconds = run_and_interrupt(at, monkeypatch, "words.map_stop", after=2.0)
    print(f"Words: Stop ended t-SNE {seconds:.3f} s after the click")
    assert not at.exception and not at.error
    assert seconds < 1.0
    assert calls == ["tsne"]  # the rerun after Stop did not start the map again
    stopped = [i.value for i in at.info if i.value.startswith("Stopped at iteration")]
    assert len(stopped) == 1, [i.value for i in at.info]
    assert _map_title(at) == "t-SNE map of the 2000 most frequent words (stopped early)"
    assert not [b for b in at.button if b.key == "words.map_stop"]
    at.run()  # the kept layout stays, without computing again
    assert calls == ["tsne"] and _map_title(at).endswith("(stopped early)")


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
    open_tab(at, "words.tab", "Word map")
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert "Perplexity is capped at 3" in " ".join(c.value for c in at.caption)
    assert _map_title(at).startswith("t-SNE map of the 10 most frequent words")


def test_tuned_comparison_chooses_on_one_half_and_scores_on_the_other():
    at = open_tab(open_page(PAGE), "words.tab", "Evaluation")
    at.button(key="words.run_tune").click().run(timeout=300)
    assert not at.exception and not at.error
    table = next(t.value for t in at.dataframe if "rho_score" in t.value.columns)
    assert len(table) == 16 and set(table["method"]) == {"PMI-SVD", "Word2Vec"}
    for method, sub in table.groupby("method"):
        chosen = sub[sub["chosen"]]
        assert len(chosen) == 1 and chosen["rho_choose"].iloc[0] == sub["rho_choose"].max()
        shown = metric(at, f"{method}, chosen setting: ρ on the scoring half")
        assert shown == f"{chosen['rho_score'].iloc[0]:.3f}"


def test_hidden_tabs_compute_nothing(monkeypatch):
    """The page opens on its spectrum: no map, no document vectors, no label embedding until their tab opens."""
    import embedcore.maps

    calls = []
    real = embedcore.maps.embed
    monkeypatch.setattr(embedcore.maps, "embed", lambda *a, **k: calls.append(a[1]) or real(*a, **k))
    import app.services.words

    monkeypatch.setattr(app.services.words, "embed", embedcore.maps.embed)
    at = open_page(PAGE)
    at.sidebar.slider(key="words.window").set_value(2).run()
    assert not at.exception and calls == []
    assert {json.loads(c.proto.spec)["layout"]["title"]["text"] for c in at.get("plotly_chart")} == {
        "Singular values", "Cumulative energy (share of the whole PMI matrix)"}
    open_tab(at, "words.tab", "Word map")
    assert calls == ["tsne"]


def test_a_finished_map_is_shared_with_the_next_visitor(monkeypatch):
    """A second session with the same corpus and settings gets the map without running t-SNE again."""
    import app.services.words

    first = open_tab(open_page(PAGE), "words.tab", "Word map")
    title = _map_title(first)
    calls = []
    monkeypatch.setattr(app.services.words, "embed", lambda *a, **k: calls.append(a[1]))
    second = open_tab(open_page(PAGE), "words.tab", "Word map")
    assert calls == [] and _map_title(second) == title
