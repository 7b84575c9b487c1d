"""Words page, "From windows to vectors": raw counts factorised beside PMI, the CBOW and skip-gram examples of a
chosen sentence and window, and a skip-gram trained on the page."""

from __future__ import annotations

from tests.conftest import assert_clean, metric, open_page, open_tab, table_with

PAGE = "app_pages/words.py"
TAB = "From windows to vectors"


def _share(at, label: str) -> float:
    return float(metric(at, label).rstrip("%")) / 100


def test_raw_counts_pull_towards_frequent_words_and_pmi_does_not():
    at = open_tab(open_page(PAGE), "words.tab", TAB, timeout=300)
    assert_clean(at)
    raw, pmi = _share(at, "raw counts"), _share(at, "PMI")
    chance = _share(at, "by chance")
    assert raw > 1.5 * pmi and pmi < 1.5 * chance
    side = table_with(at, "raw counts")
    assert len(side) == 10 and list(side.columns[:2]) == ["rank", "raw counts"]
    at.selectbox(key="words.ww_word").set_value("fire").run(timeout=300)
    assert_clean(at)
    assert table_with(at, "raw counts")["PMI"].tolist() != side["PMI"].tolist()


def test_the_window_decides_the_examples_of_the_chosen_sentence():
    at = open_tab(open_page(PAGE), "words.tab", TAB, timeout=300)
    cbow, sg = table_with(at, "context (input)"), table_with(at, "context word (output)")
    assert len(sg) > len(cbow) > 3
    assert sg["distance"].max() == 2
    at.slider(key="words.ww_window").set_value(4).run(timeout=300)
    wider = table_with(at, "context word (output)")
    assert wider["distance"].max() == 4 and len(wider) > len(sg)
    assert len(table_with(at, "context (input)")) == len(cbow)  # one CBOW example per word, whatever the window
    at.session_state["words.ww_sentence"] = 1
    at.run(timeout=300)
    assert_clean(at)
    assert table_with(at, "context (input)")["word (output)"].tolist() != cbow["word (output)"].tolist()


def test_a_skip_gram_trains_from_the_button_and_lists_its_nearest_words():
    at = open_tab(open_page(PAGE), "words.tab", TAB, timeout=300)
    assert not any("skip-gram" in d.value.columns for d in at.dataframe)
    at.button(key="words.ww_train").click().run(timeout=300)
    assert_clean(at)
    near = table_with(at, "skip-gram")
    assert len(near) == 10 and near["cosine"].between(-1, 1).all()
    word = at.selectbox(key="words.ww_word").value
    assert word not in near["skip-gram"].tolist()
