"""Sets page: the main controls change what is drawn, quickly; the benchmark runs from its button.

Tabs are lazy: only the open one runs, so a test opens the tab whose output it checks.
"""

from __future__ import annotations

import time

from tests.conftest import chart_specs, metric, open_page, open_tab

PAGE = "app_pages/sets.py"
TAB = "sets.tab"


def _chart(at, key: str) -> str:
    return next(el.proto.spec for el in at.get("plotly_chart") if el.key == key)


def test_k_and_n_change_the_sketch_and_redraw_fast():
    at = open_page(PAGE)
    before = chart_specs(at)
    assert metric(at, "sketch width N·2^K") == "256"
    t = time.perf_counter()
    at.sidebar.slider(key="sets.K").set_value(6).run()
    redraw = time.perf_counter() - t
    assert not at.exception
    assert metric(at, "sketch width N·2^K") == f"{16 * 64:,}"
    after = chart_specs(at)
    assert after != before
    print(f"Sets: K change redraw {redraw:.2f} s")
    assert redraw < 1.0
    at.sidebar.slider(key="sets.N").set_value(4).run()
    assert metric(at, "sketch width N·2^K") == "256" and chart_specs(at) != after


def test_only_the_open_tab_runs():
    at = open_page(PAGE)
    assert [el.key for el in at.get("plotly_chart")] == ["sets.chart.buckets"]
    assert not at.get("download_button") and not at.dataframe
    open_tab(at, TAB, "K and N")
    assert not at.exception
    assert {el.key for el in at.get("plotly_chart")} == {"sets.chart.share", "sets.chart.empty"}
    assert not [w for w in at.slider if w.key == "sets.partition"]


def test_normalisation_and_partition_and_set_controls_change_charts():
    at = open_page(PAGE)
    buckets = _chart(at, "sets.chart.buckets")
    at.sidebar.selectbox(key="sets.norm").set_value("l2").run()
    # the buckets come from the hyperplanes alone: a normalisation does not redraw them
    assert _chart(at, "sets.chart.buckets") == buckets
    at.slider(key="sets.partition").set_value(3).run()
    assert _chart(at, "sets.chart.buckets") != buckets
    open_tab(at, TAB, "A set's sketch")
    sketch = _chart(at, "sets.chart.sketch")
    at.sidebar.selectbox(key="sets.norm").set_value("none").run()
    assert _chart(at, "sets.chart.sketch") != sketch
    moved = chart_specs(at)
    at.number_input(key="sets.set").set_value(5).run()
    assert chart_specs(at) != moved and not at.exception
    assert any(c.value.startswith("set 5") for c in at.caption)


def test_additivity_is_shown_exact():
    at = open_tab(open_page(PAGE), TAB, "Additivity")
    at.number_input(key="sets.add_b").set_value(7).run()
    assert metric(at, "max |s(A+B) − (s(A) + s(B))|") == "0"
    before = _chart(at, "sets.chart.additivity")
    at.number_input(key="sets.add_a").set_value(3).run()
    assert _chart(at, "sets.chart.additivity") != before


def test_k_and_n_tab_follows_n_and_marks_k():
    at = open_tab(open_page(PAGE), TAB, "K and N")
    table = next(d.value for d in at.dataframe if "near_share" in d.value.columns)
    assert list(table["K"]) == list(range(1, 12))  # 200 hot dog items: up to three planes past log2(200)
    share = _chart(at, "sets.chart.share")
    at.sidebar.slider(key="sets.K").set_value(7).run()
    assert "K=7" in _chart(at, "sets.chart.share") and _chart(at, "sets.chart.share") != share
    at.sidebar.slider(key="sets.N").set_value(2).run()
    assert not next(d.value for d in at.dataframe if "near_share" in d.value.columns).equals(table)
    assert any("N=2 partitionings" in c.value for c in at.caption)


def test_downloads_describe_the_current_sketches():
    at = open_tab(open_page(PAGE), TAB, "Download")
    assert not at.exception
    assert {b.key for b in at.get("download_button")} == {"sets.dl_npz", "sets.dl_csv"}
    assert any("300 sets x 256 columns" in c.value for c in at.caption)
    at.sidebar.slider(key="sets.K").set_value(5).run()
    assert any("300 sets x 512 columns" in c.value for c in at.caption)


def test_benchmark_button_reports_table_and_every_session_sees_it():
    at = open_tab(open_page(PAGE), TAB, "Benchmark")
    at.sidebar.number_input(key="global.seed").set_value(11).run()  # data no other test benchmarks
    assert not [d for d in at.dataframe if "features" in d.value.columns]  # nothing before the button
    at.button(key="sets.run_bench").click().run(timeout=180)
    assert not at.exception
    table = next(d.value for d in at.dataframe if "features" in d.value.columns)
    acc = dict(zip(table["features"], table["accuracy"]))
    best_emde = max(v for k, v in acc.items() if k.startswith("EMDE"))
    # equal means: the mean vector cannot separate the two kinds of set, EMDE can
    assert best_emde > 0.95 and acc["mean vector"] < 0.75
    # another session on the same data finds the result without running it again
    other = open_tab(open_page(PAGE), TAB, "Benchmark")
    other.sidebar.number_input(key="global.seed").set_value(11).run()
    shared = next(d.value for d in other.dataframe if "features" in d.value.columns)
    assert shared.equals(table)


def test_every_bundled_item_set_renders():
    at = open_page(PAGE)
    for ds in ("baskets", "digit_ink", "newsgroup_words"):
        at.sidebar.selectbox(key="sets.dataset").set_value(ds).run()
        assert not at.exception and not at.error, ds


def test_uploaded_items_and_sets_are_sketched():
    at = open_page(PAGE)
    items = b"name,x,y\n" + b"".join(f"i{k},{k % 7},{k // 7}\n".encode() for k in range(40))
    sets = b"".join(f"{'a' if j % 2 else 'b'}\ti{j % 40} i{(3 * j) % 40} i{(5 * j) % 40} kale\n".encode() for j in range(30))
    at.sidebar.file_uploader[0].set_value([("items.csv", items, "text/csv"), ("sets.tsv", sets, "text/plain")]).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.sidebar.selectbox(key="sets.dataset").value == "upload"
    assert metric(at, "items") == "40" and metric(at, "sets") == "30"
    assert any("kale" in i.value for i in at.sidebar.info)


def test_upload_of_wrong_kind_is_explained_and_the_page_keeps_its_data():
    at = open_page(PAGE)
    at.sidebar.file_uploader[0].set_value(("only.csv", b"x,y\n1,2\n", "text/csv")).run()
    assert not at.exception and not at.error
    notes = [c.value for c in at.caption if "not used on this page" in c.value]
    assert len(notes) == 1 and "need two files" in notes[0]
    assert metric(at, "items") == "200"  # still the page's own default, the hot dog sets


def test_a_shared_link_with_one_partitioning_renders():
    from streamlit.testing.v1 import AppTest

    from tests.conftest import APP

    at = AppTest.from_file(str(APP), default_timeout=120)
    at.query_params["sets.N"] = "1"
    at.run()
    at.switch_page(PAGE).run()
    assert not at.exception and not at.error
    assert at.session_state["sets.N"] == 1
    assert any("Partitioning to draw: 0 (the only possible value" in c.value for c in at.caption)
