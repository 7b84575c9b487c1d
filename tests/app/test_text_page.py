"""Text page: it renders on the Lee corpus, every tab's controls change what they should, the labelled posts colour
the LSA plot, an upload too small for the page is refused with what to change, and the export reproduces (tests/app/test_reproduce.py)."""

from __future__ import annotations

import json

import numpy as np

from tests.app.maps import lab_map, line_charts
from tests.conftest import assert_clean as _ok
from tests.conftest import caption_starting as _caption
from tests.conftest import chart_specs, metric, open_page, open_tab
from tests.conftest import table_with as _table


def _top_terms(at):
    """LSA's top terms, a static table (its lists of terms wrap instead of being cut at the right edge)."""
    return next(t.value for t in at.table if "+ terms" in t.value.columns)

PAGE = "app_pages/text.py"


def _figure(at, title_start: str) -> dict:
    for spec in chart_specs(at):
        fig = json.loads(spec)
        if fig["layout"].get("title", {}).get("text", "").startswith(title_start):
            return fig
    raise AssertionError(f"no chart titled {title_start!r}")


def _counts(at):
    """The slice of the document-term matrix the page shows (its table under the sliders)."""
    return next(d.value for d in at.dataframe if str(d.value.index[0]).startswith("doc "))


def test_the_slice_writes_each_count_on_a_blue_as_deep_as_it_and_leaves_zeros_blank():
    import pandas as pd

    from app.ui.text_charts import counts_table

    table = pd.DataFrame([[0, 1, 4], [2, 0, 8]], index=["doc 0", "doc 1"], columns=["a", "b", "c"])
    styled = counts_table(table)
    styled._compute()
    shown = [[styled._display_funcs[(i, j)](v) for j, v in enumerate(row)] for i, row in enumerate(table.to_numpy())]
    assert shown == [["", "1", "4"], ["2", "", "8"]]
    css = {(i, j): dict(styled.ctx[(i, j)]) for i in range(2) for j in range(3)}
    assert css[(0, 0)] == {} and css[(1, 1)] == {}  # a zero has no colour
    alpha = {k: float(v["background-color"].rsplit(",", 1)[1].rstrip(")")) for k, v in css.items() if v}
    assert alpha[(1, 2)] == 1.0 and alpha[(0, 1)] < alpha[(1, 0)] < alpha[(0, 2)] < 1.0  # deeper for larger counts
    assert css[(1, 2)]["color"] == "white" and css[(0, 1)]["color"] != "white"  # the text stays readable


def test_renders_the_bag_of_words_and_its_controls_change_the_slice():
    at = open_page(PAGE)
    _ok(at)
    assert at.title[0].value == "Words: bag of words, TF-IDF and LSA"
    assert metric(at, "documents n") == "300" and metric(at, "vocabulary V") == "7,381"
    assert any(m.value.startswith("**Counts of documents 0–9 over the 20 most frequent terms**") for m in at.markdown)
    counts = _counts(at)
    assert list(counts.columns[:3]) == ["the", "to", "of"] and counts.shape == (10, 20)
    zipf = line_charts(at)["text.chart.zipf"]  # a canvas chart: no Plotly on the first screen
    assert not at.get("plotly_chart") and zipf["logX"] and zipf["logY"]
    count, documents = zipf["series"]
    assert count["text"][:3] == ["the", "to", "of"] and count["x"][0] == 1 and count["x"][-1] == 7381
    assert count["y"] == sorted(count["y"], reverse=True) and len(count["x"]) <= 500  # thinned on the log axis
    assert all(d <= min(c, 300) for c, d in zip(count["y"], documents["y"]))  # in at most as many documents
    at.slider(key="text.rows").set_value(4).run()
    at.slider(key="text.cols").set_value(7).run()
    at.slider(key="text.first").set_value(100).run()
    assert any(m.value.startswith("**Counts of documents 100–103 over the 7 most frequent terms**")
               for m in at.markdown)
    counts = _counts(at)
    assert counts.shape == (4, 7) and list(counts.index) == ["doc 100", "doc 101", "doc 102", "doc 103"]
    at.slider(key="text.min_count").set_value(3).run()
    _ok(at)
    assert int(metric(at, "vocabulary V").replace(",", "")) < 7381 / 2


def test_tf_idf_table_follows_the_document_and_the_tf_and_matches_sklearn():
    at = open_tab(open_page(PAGE), "text.tab", "TF and IDF")
    _ok(at)
    table = _table(at, "idf = ln(n/df)")
    assert len(table) == 15
    row = table.iloc[0]
    assert abs(row["tf"] - row["f"] / row["|d|"]) < 1e-12
    assert abs(row["tf · idf"] - row["tf"] * row["idf = ln(n/df)"]) < 1e-12
    gap = float(_caption(at, "The scikit-learn columns").split("by at most ")[1].split(" ")[0])
    assert gap < 1e-12
    at.radio(key="text.tf").set_value("log").run()
    logged = _table(at, "idf = ln(n/df)")
    assert abs(logged.iloc[0]["tf"] - __import__("math").log1p(logged.iloc[0]["f"])) < 1e-12
    at.selectbox(key="text.doc").set_value(5).run()
    at.slider(key="text.top").set_value(5).run()
    _ok(at)
    other = _table(at, "idf = ln(n/df)")
    assert len(other) == 5 and list(other["term"]) != list(logged["term"][:5])


def test_the_merge_counts_its_steps_for_the_chosen_documents():
    at = open_tab(open_page(PAGE), "text.tab", "Sparse inner products")
    _ok(at)
    first = (metric(at, "merge comparisons"), metric(at, "⟨a, b⟩ by the merge"))
    assert metric(at, "⟨a, b⟩ by the merge") == metric(at, "dense dot over V")
    at.selectbox(key="text.b").set_value(7).run()
    _ok(at)
    assert (metric(at, "merge comparisons"), metric(at, "⟨a, b⟩ by the merge")) != first
    sizes = [int(v.replace(",", "")) for v in metric(at, "|a|, |b|").split(", ")]
    assert int(metric(at, "merge comparisons").replace(",", "")) <= sum(sizes)
    assert "the merge never passes |a| + |b|" in json.dumps([json.loads(s)["layout"]["title"] for s in chart_specs(at)])


def test_ngram_curves_and_hashing_follow_their_controls():
    at = open_tab(open_page(PAGE), "text.tab", "N-grams")
    _ok(at)
    assert len(_figure(at, "Vocabulary growth")["data"]) == 3
    at.slider(key="text.max_n").set_value(5).run()
    assert len(_figure(at, "Vocabulary growth")["data"]) == 5
    table = _table(at, "share seen once")
    assert table["distinct"].is_monotonic_increasing and table.iloc[-1]["share seen once"] > 0.9
    open_tab(at, "text.tab", "Feature hashing")
    _ok(at)
    assert metric(at, "buckets m") == "1,024"
    before = metric(at, "terms sharing a bucket")
    at.slider(key="text.bits").set_value(16).run()
    _ok(at)
    assert metric(at, "buckets m") == "65,536" and metric(at, "terms sharing a bucket") != before
    shared = float(metric(at, "terms sharing a bucket").rstrip("%")) / 100
    expected = 1 - (1 - 1 / 65536) ** (7381 - 1)
    assert abs(shared - expected) < 0.02


LSA_MAP = "text.lsa.map"


def _terms(plane: dict) -> dict:
    """The term points of the LSA plane (its last category): their coordinates, names and legend entry."""
    last = len(plane["color"]["names"]) - 1
    mask = np.asarray(plane["codes"]) == last
    return {"xy": plane["xy"][mask], "names": [plane["labels"][i] for i in np.flatnonzero(mask)],
            "group": plane["color"]["names"][last]}


def test_lsa_controls_and_the_labelled_posts():
    at = open_tab(open_page(PAGE), "text.tab", "LSA")
    _ok(at)
    assert len(_top_terms(at)) == 10
    check = _caption(at, "Checked on all 30 concepts computed")
    assert metric(at, "||A_k||² / ||A||² at k = 10").endswith("%")
    assert float(check.split("relative ")[1].split(" ")[0]) < 1e-9
    before = chart_specs(at)
    at.slider(key="text.k").set_value(4).run()
    assert len(_top_terms(at)) == 4 and metric(at, "||A_k||² / ||A||² at k = 4")
    plane = lab_map(at, LSA_MAP)
    assert plane["title"].startswith("Documents (U_k Σ_k) and the 30 terms") and plane["xTitle"] == "concept 1"
    at.selectbox(key="text.cy").set_value(3).run()
    plane = lab_map(at, LSA_MAP)
    assert plane["yTitle"] == "concept 3"
    scaled = _terms(plane)
    at.radio(key="text.term_scale").set_value("unit").run()
    unit = _terms(lab_map(at, LSA_MAP))
    assert scaled["group"] == "terms (V_k Σ_k)" and unit["group"] == "terms (V_k)"
    assert np.abs(unit["xy"]).max() <= 1 + 1e-6 < np.abs(scaled["xy"]).max()
    # the 30 terms furthest out are labelled (and placed by the map without overlap); the documents are not
    assert len(unit["names"]) == 30 and all(unit["names"]) and not any(plane["labels"][: -30])
    at.radio(key="text.weighting").set_value("counts").run()
    _ok(at)
    assert chart_specs(at) != before
    at.selectbox(key="text.dataset").set_value("newsgroups").run()
    _ok(at)
    plane = lab_map(at, LSA_MAP)
    assert plane["color"]["names"] == ["alt.atheism", "sci.space", "terms (V_k)"]
    labels = np.asarray(plane["codes"][: -30])
    assert set(labels) == {0, 1} and (np.asarray(plane["codes"][-30:]) == 2).all()


def test_an_upload_too_small_is_refused_with_what_to_change():
    at = open_page(PAGE)
    at.sidebar.file_uploader[0].set_value(("tiny.txt", b"one two\nthree\n", "text/plain")).run()
    at.slider(key="text.min_count").set_value(2).run()
    assert not at.exception
    assert len(at.error) == 1 and "lower min" in at.error[0].value

