"""Sets page: the main controls change what is drawn, quickly; the benchmark runs from its button.

Tabs are lazy: only the open one runs, so a test opens the tab whose output it checks.
"""

from __future__ import annotations

import time

import numpy as np

from tests.app.maps import lab_map, lab_maps, line_charts
from tests.legends import alike, map_entries
from tests.conftest import chart_specs, metric, open_page, open_tab

PAGE = "app_pages/sets.py"
TAB = "sets.tab"


def _chart(at, key: str) -> str:
    return next(el.proto.spec for el in at.get("plotly_chart") if el.key == key)


def _drawn(at) -> list[str]:
    """Every Plotly chart's JSON and every map's data signature, to compare before and after a change."""
    return chart_specs(at) + [m["sig"] for _, m in sorted(lab_maps(at).items())]


def test_k_and_n_change_the_sketch_and_the_maps():
    at = open_page(PAGE)
    before = _drawn(at)
    assert metric(at, "sketch width N·2^K") == "256"
    assert len(lab_map(at, "sets.map.buckets")["lines"]) == 4  # one line per hyperplane of the partitioning
    at.slider(key="sets.K").set_value(6).run()
    assert not at.exception
    assert metric(at, "sketch width N·2^K") == f"{16 * 64:,}"
    after = _drawn(at)
    assert after != before
    shown = lab_map(at, "sets.map.buckets")
    assert len(shown["lines"]) == 6 and [m["name"] for m in shown["markers"]] == ["hyperplanes (6, dashed)"]
    assert "of 64 buckets occupied" in shown["title"]
    at.select_slider(key="sets.N").set_value(4).run()
    assert metric(at, "sketch width N·2^K") == "256" and _drawn(at) != after


def test_the_bucket_map_colours_every_item_by_its_bucket_and_names_the_buckets():
    at = open_page(PAGE)
    shown = lab_map(at, "sets.map.buckets")
    assert shown["n"] == 200 and len(shown["labels"]) == 200 and shown["labels"][0] == "bun 0"
    bucket = next(f["values"] for f in shown["hover"]["fields"] if f["name"] == "bucket")
    names = shown["color"]["names"]
    assert names == [f"bucket {b}" for b in sorted({int(v) for v in bucket})]
    assert [names[c] for c in shown["codes"]] == [f"bucket {v}" for v in bucket]
    # more occupied buckets than colours: each keeps a colour and mark of its own (the legend read "48, 255"
    # when sixteen colours went round); past the 72 pairs the largest keep theirs and the rest are "others"
    at.slider(key="sets.K").set_value(10).run()
    shown = lab_map(at, "sets.map.buckets")
    bucket = np.array([int(v) for v in next(f["values"] for f in shown["hover"]["fields"] if f["name"] == "bucket")])
    used = np.unique(bucket)
    names = shown["color"]["names"]
    assert used.size > 16 and not alike(map_entries(shown))
    if used.size <= 72:
        assert names == [f"bucket {b}" for b in used]
        assert (shown["codes"] == np.searchsorted(used, bucket)).all()
    else:
        assert len(names) == 72 and names[-1] == f"{used.size - 71:,} others"
        own = np.array([f"bucket {b}" in names[:-1] for b in bucket])
        assert [names[c] for c in shown["codes"][own]] == [f"bucket {b}" for b in bucket[own]]
        assert (shown["codes"][~own] == 71).all()
    assert len(shown["lines"]) == 10


def test_the_density_map_rings_the_sets_own_items():
    at = open_tab(open_page(PAGE), TAB, "A set's sketch")
    at.number_input(key="sets.set").set_value(4).run()
    shown = lab_map(at, "sets.map.density")
    members = next(r for r in shown["rings"] if r["name"] == "in the set")["indices"]
    title = next(c.value for c in at.caption if c.value.startswith("set 4"))
    assert 0 < len(members) <= int(title.rsplit(": ", 1)[1].split()[0])  # its distinct items
    assert shown["color"]["kind"] == "continuous" and shown["color"]["title"] == "density"
    # the density is highest where the set is: its items score above the median item
    assert np.median(shown["values"][members]) >= np.median(shown["values"])


def test_only_the_open_tab_runs():
    at = open_page(PAGE)
    assert not at.get("plotly_chart") and set(lab_maps(at)) == {"sets.map.buckets"}
    assert not at.main.get("download_button") and not at.dataframe
    open_tab(at, TAB, "K and N")
    assert not at.exception
    assert set(line_charts(at)) == {"sets.chart.share", "sets.chart.empty"} and not lab_maps(at)
    assert not [w for w in at.slider if w.key == "sets.partition"]


def test_normalisation_and_partition_and_set_controls_change_charts():
    at = open_page(PAGE)
    buckets = lab_map(at, "sets.map.buckets")["sig"]
    at.selectbox(key="sets.norm").set_value("l2").run()
    # the buckets come from the hyperplanes alone: a normalisation does not redraw them
    assert lab_map(at, "sets.map.buckets")["sig"] == buckets
    at.slider(key="sets.partition").set_value(3).run()
    assert lab_map(at, "sets.map.buckets")["sig"] != buckets
    assert "partitioning 3" in lab_map(at, "sets.map.buckets")["title"]
    open_tab(at, TAB, "A set's sketch")
    sketch = _chart(at, "sets.chart.sketch")
    at.selectbox(key="sets.norm").set_value("none").run()
    assert _chart(at, "sets.chart.sketch") != sketch
    moved = _drawn(at)
    at.number_input(key="sets.set").set_value(5).run()
    assert _drawn(at) != moved and not at.exception
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
    share = line_charts(at)["sets.chart.share"]
    assert [s["name"] for s in share["series"]] == ["near pairs (5 nearest neighbours)", "random pairs"]
    assert share["series"][0]["y"] == list(table["near_share"]) and share["vlines"][0]["label"] == "K=4"
    at.slider(key="sets.K").set_value(7).run()
    assert line_charts(at)["sets.chart.share"]["vlines"][0]["label"] == "K=7"
    at.select_slider(key="sets.N").set_value(2).run()
    assert not next(d.value for d in at.dataframe if "near_share" in d.value.columns).equals(table)
    assert any("N=2 partitionings" in c.value for c in at.caption)
    width = next(m.value for m in at.markdown if "The width at K=7, N=2" in m.value)
    assert "N·2^K = 256 columns" in width and "N × items = 400" in width


def test_downloads_describe_the_current_sketches():
    at = open_tab(open_page(PAGE), TAB, "Download")
    assert not at.exception
    assert {b.key for b in at.main.get("download_button")} == {"sets.dl_npz", "sets.dl_csv"}
    assert any("300 sets x 256 columns" in c.value for c in at.caption)
    at.slider(key="sets.K").set_value(5).run()
    assert any("300 sets x 512 columns" in c.value for c in at.caption)


def test_benchmark_button_reports_table_and_every_session_sees_it(monkeypatch):
    import app.services.sets as sets_service

    monkeypatch.setattr(sets_service, "GRID", ((8, 10), (30, 1)))  # two of the post's points keep the run short
    at = open_tab(open_page(PAGE), TAB, "Benchmark")
    at.number_input(key="global.seed").set_value(11).run()  # data no other test benchmarks
    assert not [d for d in at.dataframe if "features" in d.value.columns]  # nothing before the button
    at.button(key="sets.run_bench").click().run(timeout=300)
    assert not at.exception
    table = next(d.value for d in at.dataframe if "features" in d.value.columns)
    acc = dict(zip(table["features"] + " · " + table["item vectors"], table["accuracy"]))
    best_emde = max(v for k, v in acc.items() if k.startswith("EMDE"))
    # the grid points and the mean vector on both item vectors (Word2Vec trained in fold), the bag of items once
    assert len(table) == 7 and set(table["item vectors"]) == {"as given", "Word2Vec (in fold)", "none"}
    assert (table["low"] <= table["accuracy"]).all() and (table["accuracy"] <= table["high"]).all()
    # equal means: the mean of the given vectors cannot separate the two kinds of set, EMDE can
    assert best_emde > 0.95 and acc["mean vector · as given"] < 0.75
    # ties are marked: the best row and every row whose gap to it is within its interval share rank 1
    assert table["vs best"].iloc[0] == "best" and (table[table["vs best"] != "below the best"]["rank"] == 1).all()
    assert (table[table["vs best"] == "below the best"]["rank"] > 1).all()
    gaps = table["best − this row [95% interval]"]  # the paired difference behind each mark, with its interval
    assert gaps.iloc[0] == "" and all(g.count("[") == 1 for g in gaps.iloc[1:])
    mean_given = table[(table["features"] == "mean vector") & (table["item vectors"] == "as given")]
    assert mean_given["vs best"].iloc[0] == "below the best"
    assert any(c.value.startswith("Protocol: 5-fold stratified outer split") for c in at.caption)
    # another session on the same data finds the result without running it again
    other = open_tab(open_page(PAGE), TAB, "Benchmark")
    other.number_input(key="global.seed").set_value(11).run()
    shared = next(d.value for d in other.dataframe if "features" in d.value.columns)
    assert shared.equals(table)


def test_every_bundled_item_set_renders():
    at = open_page(PAGE)
    for ds in ("baskets", "digit_ink", "newsgroup_words"):
        at.selectbox(key="sets.dataset").set_value(ds).run()
        assert not at.exception and not at.error, ds


def test_uploaded_items_and_sets_are_sketched():
    at = open_page(PAGE)
    items = b"name,x,y\n" + b"".join(f"i{k},{k % 7},{k // 7}\n".encode() for k in range(40))
    sets = b"".join(f"{'a' if j % 2 else 'b'}\ti{j % 40} i{(3 * j) % 40} i{(5 * j) % 40} kale\n".encode() for j in range(30))
    at.sidebar.file_uploader[0].set_value([("items.csv", items, "text/csv"), ("sets.tsv", sets, "text/plain")]).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.selectbox(key="sets.dataset").value == "upload"
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


# --------------------------------------------------------------------------- sketches made by the command line


def _sketch_output(seed: int, *, K: int = 4, N: int = 16, drop: int = 0) -> bytes:
    """The hot dog sets of ``seed`` as the page offers them, sketched by the batch step and zipped."""
    import io
    import os
    import tempfile
    import zipfile

    from embedcore import batch, datasets
    from embedcore.batch.sketch_files import sketch_input
    from embedcore.emde import EMDE

    d = datasets.load("hotdog", seed=seed)
    W = d.weight_matrix()
    W = W[: W.shape[0] - drop]
    files = sketch_input(d.vectors, W)
    with tempfile.TemporaryDirectory() as folder:
        with open(os.path.join(folder, "sets.csv"), "wb") as f:
            f.write(files.sets)
        emde = EMDE(n_hyperplanes=K, n_partitions=N, random_state=seed).fit(d.vectors)
        with batch.cluster(workers=1, processes=False, quiet=True) as client:
            batch.sketch(emde, os.path.join(folder, "sets.csv"), os.path.join(folder, "out"), blocksize=3000,
                         client=client, progress=False)
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
            for name in sorted(os.listdir(os.path.join(folder, "out"))):
                z.write(os.path.join(folder, "out", name), f"sketches/{name}")
    return buf.getvalue()


def _upload(at, files):
    at.file_uploader(key="sets.sketch_upload").set_value(files).run(timeout=180)
    return at


def test_uploaded_command_line_sketches_are_scored_beside_the_in_app_methods(monkeypatch):
    import app.services.sets as sets_service

    monkeypatch.setattr(sets_service, "GRID", ((8, 10),))  # the uploaded sketches' point: the run stays short
    at = open_tab(open_page(PAGE), TAB, "Benchmark")
    at.number_input(key="global.seed").set_value(12).run()  # data no other test benchmarks
    at.slider(key="sets.K").set_value(8).run()
    at.select_slider(key="sets.N").set_value(10).run()  # one of the post's grid points
    assert {b.key for b in at.get("download_button")} >= {"sets.dl_items", "sets.dl_sets"}
    command = next(c.value for c in at.code)
    assert "python -m embedcore sketch items.npy sets.csv -K 8 -N 10 --seed 12 --out sketches" in command
    _upload(at, [("sketches.zip", _sketch_output(12, K=8, N=10), "application/zip")])
    assert not at.exception and not at.error
    assert any("300 sets x 2,560 columns" in s.value and "K=8, N=10, seed 12" in s.value for s in at.success)
    at.button(key="sets.run_bench").click().run(timeout=300)
    assert not at.exception
    table = next(d.value for d in at.dataframe if "features" in d.value.columns)
    own = table[table["item vectors"].isin(["as given", "none", "items.npy"])]
    acc = dict(zip(own["features"], own["accuracy"]))
    # the same hyperplanes from the same seed: the batch step's sketches score as the in-app EMDE does
    assert acc["uploaded sketches K=8 N=10"] == acc["EMDE K=8 N=10"]
    assert {"mean vector", "one-hot (bag of items)"} <= set(acc)
    assert "uploaded sketches K=8 N=10" in _chart(at, "sets.chart.bench")


def test_a_bad_sketch_upload_is_explained_and_the_page_keeps_working(monkeypatch):
    import app.services.sets as sets_service

    monkeypatch.setattr(sets_service, "GRID", ((8, 10),))  # the uploaded sketches' point: the run stays short
    import io
    import re

    import numpy as np

    at = open_tab(open_page(PAGE), TAB, "Benchmark")
    pickled = io.BytesIO()
    np.save(pickled, np.array([{"x": 1}], dtype=object), allow_pickle=True)
    cases = [
        ([("short.zip", _sketch_output(0, drop=1), "application/zip")],
         "The sketches have 299 rows but there are 300 sets"),
        ([("evil.npy", pickled.getvalue(), "application/octet-stream")],
         "evil.npy holds pickled Python objects, which the lab never loads"),
        ([("random.zip", np.random.default_rng(0).bytes(2000), "application/zip")], "random.zip is not a zip file"),
        ([("<b>x!</b>.txt", b"**bold**", "text/plain")], "is not part of a sketch output"),
    ]
    for files, message in cases:
        _upload(at, files)
        assert not at.exception, message
        errors = [e.value for e in at.error]
        shown = re.sub(r"\\(.)", r"\1", errors[0]) if errors else ""  # the text as it reads, Markdown escapes undone
        assert len(errors) == 1 and message in shown, (message, errors)
        assert "<b>" not in errors[0] and at.button(key="sets.run_bench").disabled is False
    # the last bad upload does not stop the benchmark: the in-app rows are scored
    at.button(key="sets.run_bench").click().run(timeout=180)
    assert not at.exception
    table = next(d.value for d in at.dataframe if "features" in d.value.columns)
    assert not [f for f in table["features"] if f.startswith("uploaded")]


# --------------------------------------------------------------------------- the post's grid: K=30, N=2000, Word2Vec


def test_k_beyond_the_fixed_width_keeps_only_occupied_buckets_and_the_toggle_drops_them_below():
    at = open_tab(open_page(PAGE), TAB, "A set's sketch")
    fixed = _chart(at, "sets.chart.sketch")
    assert metric(at, "columns kept") == "256"  # K=4, N=16: every bucket
    at.toggle(key="sets.drop").set_value(True).run()
    kept = int(metric(at, "columns kept").replace(",", ""))
    assert kept == int(metric(at, "occupied buckets").replace(",", "")) < 256
    assert _chart(at, "sets.chart.sketch") != fixed and "occupied buckets only" in _chart(at, "sets.chart.sketch")
    at.toggle(key="sets.drop").set_value(False).run()
    at.slider(key="sets.K").set_value(30).run()
    at.select_slider(key="sets.N").set_value(1).run()  # the post's K=30, N=1
    assert not at.exception and not at.error
    assert metric(at, "sketch width N·2^K") == "1.1e9"  # 2**30, in full in the metric's help
    kept = int(metric(at, "columns kept").replace(",", ""))
    assert 0 < kept <= 200  # at most one bucket per item: the width is the items', not 2**30
    assert any("only the occupied buckets are kept" in c.value for c in at.caption)
    assert "occupied buckets only" in _chart(at, "sets.chart.sketch")


def test_a_slow_setting_waits_for_compute_and_every_session_then_sees_it():
    at = open_page(PAGE)
    huge = open_page(PAGE)  # more non-zeros than the lab keeps: refused with what to lower
    huge.selectbox(key="sets.dataset").set_value("digit_ink").run()
    huge.slider(key="sets.K").set_value(30).run()
    huge.select_slider(key="sets.N").set_value(2000).run()
    assert not huge.exception and len(huge.error) == 1 and "lower N (or K)" in huge.error[0].value
    at.selectbox(key="sets.dataset").set_value("digit_ink").run()
    at.slider(key="sets.K").set_value(8).run()
    at.select_slider(key="sets.N").set_value(500).run()
    assert not at.exception and not at.error
    assert any("press Compute" in i.value for i in at.info) and not at.get("plotly_chart") and not at.metric
    assert not lab_maps(at)
    open_tab(at, TAB, "Benchmark")  # the benchmark does not wait for the sidebar's setting
    assert at.button(key="sets.run_bench") and not at.exception
    open_tab(at, TAB, "Buckets")
    t = time.perf_counter()
    at.button(key="sets.compute").click().run(timeout=180)
    print(f"Sets: digit ink K=8, N=500 computed in {time.perf_counter() - t:.2f} s")
    assert not at.exception and metric(at, "sketch width N·2^K") == f"{500 * 256:,}"
    assert not at.get("plotly_chart") and set(lab_maps(at)) == {"sets.map.buckets"}
    other = open_page(PAGE)
    other.selectbox(key="sets.dataset").set_value("digit_ink").run()
    other.slider(key="sets.K").set_value(8).run()
    other.select_slider(key="sets.N").set_value(500).run()
    assert not [i for i in other.info if "press Compute" in i.value] and other.metric


def test_word2vec_item_vectors_are_trained_on_compute_and_move_the_items():
    at = open_page(PAGE)
    at.number_input(key="global.seed").set_value(13).run()  # vectors no other test trains
    before = lab_map(at, "sets.map.buckets")["xy"]
    at.radio(key="sets.vectors").set_value("word2vec").run()
    assert any("Word2Vec item vectors" in i.value for i in at.info)
    at.button(key="sets.compute").click().run(timeout=180)
    assert not at.exception and not at.error
    after = lab_map(at, "sets.map.buckets")
    assert after["xy"].shape == before.shape and not np.allclose(after["xy"], before)
    assert any("Word2Vec, 50-D, trained on the 300 sets" in c.value for c in at.caption)
    assert after["xTitle"] == "PC 1"  # 50 dimensions: the map is their PCA plane


def test_the_authors_width_and_norm_advice_is_measured(monkeypatch):
    import app.services.sets as sets_service

    monkeypatch.setattr(sets_service, "WIDTH_KS", (4, 7, 10))  # three widths keep the run short
    at = open_tab(open_page(PAGE), TAB, "Benchmark")
    at.number_input(key="global.seed").set_value(13).run()  # data no other test measures
    at.button(key="sets.run_width").click().run(timeout=300)
    at.button(key="sets.run_norm").click().run(timeout=300)
    assert not at.exception and not at.error
    tables = {tuple(d.value["side"]): d.value for d in at.dataframe if "side" in d.value.columns}
    width = tables[("K=4, N=256", "K=7, N=32", "K=10, N=4")]
    assert all(v.split()[0].replace(".", "").isdigit() for v in width["accuracy [95% interval]"])
    norm = tables[("l2 norm per row", "max norm per row", "l2 norm per partition", "max norm per partition")]
    assert len(norm) == 4
    diffs = [d.value for d in at.dataframe if "verdict" in d.value.columns]
    assert [list(d["comparison"]) for d in diffs] == [
        ["K=4, N=256 − K=7, N=32", "K=10, N=4 − K=7, N=32"],
        ["l2 norm per row − max norm per row", "l2 norm per partition − max norm per partition",
         "l2 norm per row − l2 norm per partition"]]
