"""Words page: the knobs refit the vectors, queries answer, the map and evaluations run."""

from __future__ import annotations

from tests.conftest import chart_specs, metric, open_page

PAGE = "app_pages/words.py"



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
    at = open_page(PAGE)
    near = next(d.value for d in at.dataframe if "cosine" in d.value.columns and "count" in d.value.columns)
    at.selectbox(key="words.query").set_value("police").run()
    near2 = next(d.value for d in at.dataframe if "cosine" in d.value.columns and "count" in d.value.columns)
    assert list(near["word"]) != list(near2["word"]) and len(near2) == 20
    assert "police" not in list(near2["word"])


def test_word_map_switches_method_and_highlights():
    at = open_page(PAGE)
    before = chart_specs(at)
    at.radio(key="words.map_method").set_value("UMAP").run(timeout=180)
    assert not at.exception and chart_specs(at) != before
    at.selectbox(key="words.highlight").set_value("police").run()
    assert not at.exception


def test_evaluation_and_document_classification():
    at = open_page(PAGE)
    at.button(key="words.run_eval").click().run(timeout=180)
    assert not at.exception
    table = next(d.value for d in at.dataframe if "wordsim353 ρ" in d.value.columns)
    assert len(table) == 3 and table["wordsim353 OOV"].between(0, 1).all()
    at.button(key="words.run_docs").click().run(timeout=180)
    docs = next(d.value for d in at.dataframe if "features" in d.value.columns)
    assert len(docs) == 5 and (docs["accuracy"] > 0.4).all()


def test_label_embedding_controls():
    at = open_page(PAGE)
    rec = metric(at, "label sets recovered exactly (decode ∘ encode)")
    at.slider(key="words.le_dims").set_value(2).run()
    assert metric(at, "label sets recovered exactly (decode ∘ encode)") != rec


def test_uploaded_text_and_too_small_corpus():
    at = open_page(PAGE)
    at.sidebar.file_uploader[0].set_value(("tiny.txt", b"one two\n", "text/plain")).run()
    assert not at.exception
    assert len(at.error) == 1 and "Only 0 word" in at.error[0].value and "lower min" in at.error[0].value
