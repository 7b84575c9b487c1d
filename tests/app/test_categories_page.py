"""Categories page: gamma, kernel, components and clustering controls change the views; a kernel learned on the
command line opens where the page shows its own, and a bad one is explained."""

from __future__ import annotations

import io
import json
import re
import shlex
import zipfile

import numpy as np
import pandas as pd
import pytest

from app.ui.bars import HIGHLIGHT
from tests.app.maps import bar_charts, heatmaps, lab_map
from tests.conftest import chart_specs, metric, open_page, open_tab, table_with

PAGE = "app_pages/categories.py"


def open_table():
    """The page on a kernel learned from a table (it opens on the article's weekday matrix)."""
    at = open_page(PAGE)
    at.radio(key="cat.kind").set_value("learned from a table").run()
    return at


def test_the_page_opens_on_the_weekday_matrix_with_a_gap_and_a_two_dimensional_code():
    at = open_page(PAGE)
    assert at.radio(key="cat.kind").value == "given matrix" and at.selectbox(key="cat.graph").value == "weekday"
    assert metric(at, "categories") == "7" and metric(at, "suggested k (eigengap)") == "1"
    xy = lab_map(at, "cat.map.first")["xy"]
    assert xy.shape == (7, 2) and np.ptp(xy[:, 0]) > 0 and np.ptp(xy[:, 1]) > 0  # two numbers per category
    # the spectrum with its gap on the first screen: the 7 eigenvalues, the kept one (u2) in the highlight colour
    spectrum = bar_charts(at)["cat.chart.first_spectrum"]
    assert spectrum["labels"] == [f"λ{i}" for i in range(1, 8)]
    values = np.array(spectrum["values"])
    assert values[0] == pytest.approx(0, abs=1e-6) and np.all(np.diff(values) >= -1e-9)
    assert values[1] == pytest.approx(0.57, abs=0.01)  # the tour's "one small eigenvalue (0.57), then a gap"
    assert [c == HIGHLIGHT for c in spectrum["colors"]] == [False, True] + [False] * 5
    assert "largest gap after λ2: keep 1" in spectrum["title"] and "orange" in spectrum["title"]


def test_the_spectrums_title_counts_the_bars_it_colours_as_kept():
    """Two components kept by hand: two orange bars, and the title says two are kept and the gap only suggests
    one (it said "keep 1" over two orange bars)."""
    at = open_page(PAGE)
    at.radio(key="cat.ncomp_mode").set_value("fixed").run()
    at.slider(key="cat.n_fixed").set_value(2).run()
    spectrum = bar_charts(at)["cat.chart.first_spectrum"]
    assert [c == HIGHLIGHT for c in spectrum["colors"]] == [False, True, True] + [False] * 4
    assert "2 kept in orange" in spectrum["title"] and "largest gap after λ2 suggests 1" in spectrum["title"]
    assert "keep 1" not in spectrum["title"]



def test_gamma_change_redraws_the_heatmaps():
    # how fast is the browser benchmark's to measure (tests/benchmarks), not this test's
    at = open_table()
    before = chart_specs(at)
    at.slider(key="cat.log_gamma").set_value(1.5).run()
    assert not at.exception and not at.error
    assert chart_specs(at) != before


def test_kernel_transform_and_components_change_the_code():
    at = open_table()
    base = chart_specs(at)
    at.radio(key="cat.kernel").set_value("kl").run()
    kl = chart_specs(at)
    assert kl != base and not at.exception
    at.radio(key="cat.ncomp_mode").set_value("fixed").run()
    at.slider(key="cat.n_fixed").set_value(2).run()
    assert metric(at, "code width") == "2"
    at.checkbox(key="cat.keep_trivial").check().run()
    assert metric(at, "code width") == "3"


def test_given_weekday_matrix_shows_the_articles_gap():
    at = open_table()
    at.radio(key="cat.kind").set_value("given matrix").run()
    assert not at.exception and not at.error
    assert metric(at, "categories") == "7" and metric(at, "suggested k (eigengap)") == "1"
    assert metric(at, "λ₂ of the normalised L") == "0.568"
    at.selectbox(key="cat.graph").set_value("liquor_kl").run()
    assert metric(at, "categories") == "6" and not at.exception


def test_gapminder_country_column_and_clusters():
    at = open_table()
    at.selectbox(key="cat.dataset").set_value("gapminder").run()
    assert not at.exception and metric(at, "categories") == "142"
    open_tab(at, "cat.tab", "Clustering")
    at.slider(key="cat.clusters").set_value(4).run()
    assert not at.exception
    table = next(d.value for d in at.dataframe if "cluster" in d.value.columns)
    assert len(table) == 4


def test_downstream_button_reports_all_encodings():
    at = open_table()
    open_tab(at, "cat.tab", "Downstream test")
    at.button(key="cat.run_bench").click().run(timeout=180)
    assert not at.exception and not at.error
    table = next(d.value for d in at.dataframe if "encoding" in d.value.columns)
    assert sorted(set(table["encoding"])) == ["one-hot", "ordinal", "spectral", "target"]
    assert len(table) == 8 and table["r2"].between(-1, 1).all()
    assert ((table["low"] <= table["r2"]) & (table["r2"] <= table["high"])).all()
    # γ is chosen inside each fold: the spectral rows name their chosen scale, the others have nothing to tune
    assert table[table["encoding"] == "spectral"]["chosen"].str.startswith("gamma_scale=").all()
    assert (table[table["encoding"] != "spectral"]["chosen"] == "defaults").all()
    diffs = next(d.value for d in at.dataframe if "verdict" in d.value.columns)
    assert list(diffs["comparison"]) == ["random forest + spectral − random forest + target",
                                         "random forest + spectral − random forest + one-hot",
                                         "ridge + spectral − ridge + target", "ridge + spectral − ridge + one-hot"]
    assert any(c.value.startswith("Protocol: 5-fold outer split") for c in at.caption)
    # another session with the same data and settings sees the result without running it again
    other = open_table()
    open_tab(other, "cat.tab", "Downstream test")
    shared = next(d.value for d in other.dataframe if "encoding" in d.value.columns)
    assert shared.equals(table)
    # other settings have no result until someone runs them
    other.checkbox(key="cat.keep_trivial").check().run()
    assert not [d for d in other.dataframe if "encoding" in d.value.columns]


def test_uploaded_table_with_too_few_categories_is_explained():
    at = open_table()
    at.sidebar.file_uploader[0].set_value(("t.csv", b"grp,val\na,1\nb,2\na,3\nb,4\n", "text/csv")).run()
    assert not at.exception
    assert "has 2 distinct value(s)" in at.error[0].value


def test_uploaded_table_is_encoded():
    rows = "".join(f"{c},{v}\n" for c, v in zip("abcdefgh" * 20, range(160)))
    at = open_table()
    at.sidebar.file_uploader[0].set_value(("t.csv", ("grp,val\n" + rows).encode(), "text/csv")).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert metric(at, "categories") == "8"


def test_heatmap_order_control():
    at = open_table()
    before = chart_specs(at)
    at.radio(key="cat.order").set_value("as given").run()
    assert not at.exception and chart_specs(at) != before


def test_at_the_top_of_gamma_the_graph_falls_apart_into_named_components():
    at = open_table()
    at.slider(key="cat.log_gamma").set_value(3.0).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    falls = [w.value for w in at.warning if "fallen apart" in w.value]
    assert len(falls) == 1 and all(day in falls[0] for day in ("Thur", "Fri", "Sat", "Sun")), falls
    assert int(metric(at, "connected components")) >= 2
    # the component indicators join the code: at least one column per extra component
    assert int(metric(at, "code width")) >= int(metric(at, "connected components")) - 1


def test_the_components_shown_match_the_zero_eigenvalues():
    import numpy as np

    at = open_table()
    open_tab(at, "cat.tab", "Spectrum")
    for rel in (0.0, 2.0, 3.0):
        at.slider(key="cat.log_gamma").set_value(rel).run()
        vals = next(t.value for t in at.dataframe if "eigenvalue" in t.value.columns)["eigenvalue"].to_numpy()
        assert int(metric(at, "connected components")) == int(np.sum(vals < 1e-8))
    assert not [m for m in at.metric if "algebraic connectivity" in m.label]


def _array(value) -> np.ndarray:
    """A trace's array as sent: a list, or Plotly's typed binary ({"dtype", "bdata"}, base64)."""
    import base64

    if isinstance(value, dict):
        return np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"])
    return np.asarray(value)


def _traces(at, key: str) -> list[dict]:
    import json

    return next(json.loads(c.proto.spec)["data"] for c in at.get("plotly_chart") if key in c.proto.id)


def _tab_charts(at) -> list:
    """The charts the open tab drew, Plotly's and the lab's heatmaps (the first screen's spectrum is drawn above
    the tabs, always)."""
    return [c for c in at.get("plotly_chart") if "first_spectrum" not in c.proto.id] + list(heatmaps(at).values())


def _heat(at) -> dict:
    """The affinity and Laplacian heatmap the page drew: names, and the two panels with ``z`` as arrays."""
    found = heatmaps(at)
    assert "cat.chart.heatmaps" in found, f"no heatmaps; drawn: {sorted(found)}"
    return found["cat.chart.heatmaps"]


def test_only_the_open_tab_draws():
    at = open_table()
    assert len(_tab_charts(at)) == 1  # the affinity and the Laplacian, two panels of one figure
    open_tab(at, "cat.tab", "Spectrum")
    assert not at.exception and len(_tab_charts(at)) == 1
    assert [d for d in at.dataframe if "eigenvalue" in d.value.columns]
    assert not [r for r in at.radio if r.key == "cat.order"]  # the heatmap tab's control is not drawn


def test_fiedler_order_puts_the_weekend_together():
    at = open_table()
    at.radio(key="cat.kind").set_value("given matrix").run()
    x = _heat(at)["names"]
    assert set(x[-2:]) == {"Sat", "Sun"} or set(x[:2]) == {"Sat", "Sun"}, x
    at.radio(key="cat.order").set_value("as given").run()
    assert _heat(at)["names"] == ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]


def test_the_heatmaps_figure_shows_the_affinity_and_the_laplacian_in_one_order():
    at = open_table()
    at.radio(key="cat.kind").set_value("given matrix").run()
    heat = _heat(at)
    affinity, laplacian = heat["panels"]
    assert [affinity["title"], laplacian["title"]] == ["Affinity A", "Normalised Laplacian L"]
    assert heat["n"] == len(heat["names"]) == 7  # one order, rows and columns, for both panels
    A, L = affinity["z"], laplacian["z"]
    assert np.all(np.diag(A) == 0) and np.allclose(A, A.T)
    np.testing.assert_allclose(np.diag(L), 1.0, atol=1e-6)  # every category has an edge
    off = -L[~np.eye(7, dtype=bool)].min()
    # the caption's claim: the Laplacian's colours span its off-diagonal entries, centred on 0
    assert laplacian["zmin"] == pytest.approx(-off, rel=1e-6) and laplacian["zmax"] == pytest.approx(off, rel=1e-6)
    assert any("colour scale spans its off-diagonal entries" in c.value for c in at.caption)
    # D^(-1/2) A D^(-1/2) off the diagonal: L_ij = -A_ij / sqrt(d_i d_j)
    d = A.sum(axis=1)
    np.testing.assert_allclose(L, np.eye(7) - A / np.sqrt(np.outer(d, d)), atol=1e-5)


def test_eigenvector_bars_follow_the_code_width():
    at = open_table()
    open_tab(at, "cat.tab", "Eigenvectors")
    at.radio(key="cat.ncomp_mode").set_value("fixed").run()
    at.slider(key="cat.n_fixed").set_value(3).run()
    assert not at.exception and metric(at, "code width") == "3"
    bars = _traces(at, "cat.chart.vectors")
    assert [t["name"].split(" ")[0] for t in bars] == ["u2", "u3", "u4"]
    assert lab_map(at, "cat.map.codes")["labels"] == ["Fri", "Sat", "Sun", "Thur"]  # the four days of the tips table


def test_the_code_map_places_each_category_at_its_first_two_code_columns():
    at = open_table()
    at.radio(key="cat.ncomp_mode").set_value("fixed").run()
    at.slider(key="cat.n_fixed").set_value(2).run()
    open_tab(at, "cat.tab", "Eigenvectors")  # the map's first drawing: nothing to align it to
    shown = lab_map(at, "cat.map.codes")
    bars = _traces(at, "cat.chart.vectors")
    code = np.column_stack([_array(bars[0]["y"]), _array(bars[1]["y"])])
    np.testing.assert_allclose(shown["xy"], code, atol=1e-6)
    assert shown["xTitle"].startswith("u₂, eigenvector 2 (λ = ") and shown["yTitle"].startswith("u₃, eigenvector 3")


@pytest.mark.parametrize("log_gamma", [0.0, 2.0, 3.0])
def test_every_category_is_named_once_on_the_code_map_and_categories_at_one_place_share_a_label(log_gamma):
    at = open_table()
    at.slider(key="cat.log_gamma").set_value(log_gamma).run()
    open_tab(at, "cat.tab", "Eigenvectors")
    shown = lab_map(at, "cat.map.codes")
    named = [name for label in shown["labels"] if label for name in label.split(" · ")]
    assert sorted(named) == ["Fri", "Sat", "Sun", "Thur"]
    drawn = [tuple(np.round(shown["xy"][i], 4)) for i, label in enumerate(shown["labels"]) if label]
    assert len(set(drawn)) == len(drawn)  # no two labels at one place
    if log_gamma == 2.0:  # Fri, Sat and Thur share one code here: one label names all three
        assert "Fri · Sat · Thur" in shown["labels"]
        assert [f["values"] for f in shown["hover"]["fields"] if f["name"] == "category"] == [["Fri", "Sat", "Sun",
                                                                                               "Thur"]]


def test_gamma_sweep_draws_five_spectra_and_explains_a_given_affinity():
    at = open_table()
    open_tab(at, "cat.tab", "γ sweep")
    assert [t["name"] for t in _traces(at, "cat.chart.sweep")] == [f"γ × {f:g}" for f in (0.01, 0.1, 1, 10, 100)]
    at.radio(key="cat.kind").set_value("given matrix").run()
    assert not _tab_charts(at) and any("no γ to sweep" in i.value for i in at.info)


def test_clustering_names_the_lowest_conductance_cut():
    at = open_table()
    open_tab(at, "cat.tab", "Clustering")
    assert not at.exception
    assert any(c.value.startswith("Lowest conductance") for c in at.caption)
    assert len(next(d.value for d in at.dataframe if "cluster" in d.value.columns)) == 2


def test_download_tab_shows_the_code_of_every_category_and_the_command_line():
    at = open_table()
    open_tab(at, "cat.tab", "Download")
    assert not at.exception and len(at.main.get("download_button")) == 4
    table = next(d.value for d in at.dataframe if "category" in d.value.columns)
    assert len(table) == 4 and len(table.columns) - 1 == int(metric(at, "code width"))
    command = shlex.split(at.main.code[0].value)
    assert command[:5] == ["python", "-m", "embedcore", "category-kernel", "tips.csv"]
    assert command[command.index("--column") + 1] == "day" and command[command.index("--target") + 1] == "tip"


# ---------------------------------------------------------------- a kernel learned on the command line


def _plain(text: str) -> str:
    """A message without the backslashes that keep its file names from becoming Markdown."""
    return re.sub(r"\\(.)", r"\1", text)


@pytest.fixture(scope="module")
def command_line_kernel(tmp_path_factory):
    """The page's tips table and command (Download tab), run by the command line: (the page, its output folder)."""
    from app.services import categories as svc
    from app.services import data as data_service
    from embedcore import batch
    from embedcore.cli import main

    page = open_table()
    open_tab(page, "cat.tab", "Download")
    out = tmp_path_factory.mktemp("kernel")
    (out / "tips.csv").write_text(svc.table_for_command(data_service.DataRef("table", "tips", 0))(), encoding="utf-8")
    argv = shlex.split(page.code[0].value)[3:]
    argv[argv.index("tips.csv")] = str(out / "tips.csv")
    argv[argv.index("codes.csv")] = str(out / "codes.csv")
    with batch.cluster(workers=1, processes=False) as client:
        assert main(argv + ["--quiet", "--scheduler", client.scheduler.address]) == 0
    return page, out


def _open_kernel(files):
    at = open_table()
    at.radio(key="cat.kind").set_value("from the command line").run()
    assert not at.exception and any("Open a kernel learned on the command line" in i.value for i in at.info)
    at.sidebar.file_uploader(key="cat.kernel_files").set_value(
        [(name, blob, "application/octet-stream") for name, blob in files]).run()
    assert not at.exception
    return at


def test_a_command_line_kernel_is_shown_as_the_page_shows_its_own(command_line_kernel):
    page, out = command_line_kernel
    at = _open_kernel([("codes.csv.npz", (out / "codes.csv.npz").read_bytes())])
    assert not at.error, [e.value for e in at.error]
    labels = ("categories", "connected components", "suggested k (eigengap)", "code width", "λ₂ of the normalised L")
    for label in labels:
        assert metric(at, label) == metric(page, label), label
    assert any("Learned by python -m embedcore category-kernel" in _plain(c.value) for c in at.caption)
    assert not at.warning  # the spectrum computed here is the file's
    assert len(_tab_charts(at)) == 1 and len(_heat(at)["panels"]) == 2  # the kernel's affinity and Laplacian
    open_tab(at, "cat.tab", "Download")
    mine = next(d.value for d in page.dataframe if "category" in d.value.columns)
    theirs = next(d.value for d in at.dataframe if "category" in d.value.columns)
    assert list(theirs.columns) == list(mine.columns) and list(theirs["category"]) == list(mine["category"])
    assert np.allclose(theirs.iloc[:, 1:].to_numpy(float), mine.iloc[:, 1:].to_numpy(float), atol=2e-5)
    open_tab(at, "cat.tab", "Spectrum")
    vals = next(t.value for t in at.dataframe if "eigenvalue" in t.value.columns)
    assert len(vals) == 4 and vals["kept"].sum() == int(metric(at, "code width"))
    # the table it was learned from is the page's tips table: the downstream test runs on it
    open_tab(at, "cat.tab", "Downstream test")
    at.button(key="cat.run_bench").click().run(timeout=180)
    assert not at.exception and not at.error
    table = next(d.value for d in at.dataframe if "encoding" in d.value.columns)
    assert sorted(set(table["encoding"])) == ["one-hot", "ordinal", "spectral", "target"] and len(table) == 8
    assert (table[table["encoding"] == "spectral"]["chosen"] == "defaults").all()  # the command's kernel, as given


def test_the_whole_output_opens_as_files_or_as_a_zip(command_line_kernel):
    _, out = command_line_kernel
    names = ("codes.csv", "codes.csv.json", "codes.csv.npz")
    zipped = io.BytesIO()
    with zipfile.ZipFile(zipped, "w") as z:
        for n in names:
            z.write(out / n, f"codes/{n}")
    for files in ([(n, (out / n).read_bytes()) for n in names], [("codes.zip", zipped.getvalue())]):
        at = _open_kernel(files)
        assert not at.error and metric(at, "categories") == "4"


def _kernel_with(out, **arrays) -> bytes:
    with np.load(out / "codes.csv.npz", allow_pickle=False) as z:
        content = {k: z[k] for k in z.files}
    content.update(arrays)
    buf = io.BytesIO()
    np.savez(buf, **content)
    return buf.getvalue()


def _summary_with(out, **changes) -> bytes:
    return json.dumps({**json.loads((out / "codes.csv.json").read_text()), **changes}).encode()


@pytest.mark.parametrize("make, message", [
    (lambda out: [("codes.csv", (out / "codes.csv").read_bytes())],
     "codes.csv: the kernel file (.npz) is missing; the codes and summary do not hold the kernel"),
    (lambda out: [("codes.csv.npz", b"day,tip\nSun,1.0\n")], "codes.csv.npz is not a .npz file"),
    (lambda out: [("codes.csv.npz", _kernel_with(out, counts=np.array([{"x": 1}], dtype=object)))],
     "holds Python objects, which the lab never loads"),
    (lambda out: [("codes.csv.npz", _kernel_with(out, affinity=np.eye(4)))], "'affinity' is not exp(-gamma"),
    (lambda out: [("codes.csv.npz", (out / "codes.csv.npz").read_bytes()),
                  ("codes.csv.json", _summary_with(out, gamma=123.0))],
     "come from different runs (their gamma differ)"),
    (lambda out: [("codes.csv.npz", (out / "codes.csv.npz").read_bytes()),
                  ("tips.csv", (out / "tips.csv").read_bytes())],
     "tips.csv is not a codes file"),
])
def test_a_bad_upload_says_what_is_wrong_and_the_page_keeps_working(command_line_kernel, make, message):
    _, out = command_line_kernel
    at = _open_kernel(make(out))
    assert len(at.error) == 1 and message in _plain(at.error[0].value), [e.value for e in at.error]
    assert not _tab_charts(at)
    at.radio(key="cat.kind").set_value("learned from a table").run()
    assert not at.exception and not at.error and metric(at, "categories") == "4"


def test_the_downstream_test_asks_for_the_table_when_the_page_lacks_it(command_line_kernel):
    _, out = command_line_kernel
    at = _open_kernel([("codes.csv.npz", (out / "codes.csv.npz").read_bytes())])
    at.selectbox(key="cat.dataset").set_value("gapminder").run()
    open_tab(at, "cat.tab", "Downstream test")
    assert not at.exception and not [b for b in at.button if b.key == "cat.run_bench"]
    assert any("needs the table the kernel was learned from" in _plain(i.value) for i in at.info)


# ---------------------------------------------------------------- target histograms, KL settings, unit rows


def test_target_histograms_sit_beside_the_kernel_in_its_order():
    at = open_table()
    open_tab(at, "cat.tab", "Target histograms")
    assert not at.exception and not at.error
    hists, kernel = _traces(at, "cat.chart.hists")[0], _traces(at, "cat.chart.hist_kernel")[0]
    assert hists["y"] == kernel["y"] and sorted(hists["y"]) == ["Fri", "Sat", "Sun", "Thur"]
    before = [m.value for m in at.markdown if "distance d" in m.value]
    at.radio(key="cat.pair").set_value("the least alike").run()
    after = [m.value for m in at.markdown if "distance d" in m.value]
    assert len(before) == len(after) == 1 and before != after
    # the most alike pair has the larger affinity
    a_most, a_least = (float(re.search(r"affinity A = e\^\(−γ·d\) = ([0-9]+(\.[0-9]+)?(e-?[0-9]+)?)",
                                       _plain(m[0])).group(1)) for m in (before, after))
    assert a_most > a_least
    # the whole target, as it is and as log(1 + target): the article's sales and log sales
    assert _traces(at, "cat.chart.pooled_raw") and _traces(at, "cat.chart.pooled_log")


def test_kl_bins_and_smoothing_change_the_kernel():
    at = open_table()
    assert not [s for s in at.slider if s.key == "cat.kl_bins"]  # Wasserstein has no bins
    at.radio(key="cat.kernel").set_value("kl").run()
    open_tab(at, "cat.tab", "Target histograms")
    base = _traces(at, "cat.chart.hist_kernel")[0]["z"]
    assert len(_array(_traces(at, "cat.chart.hists")[0]["x"])) == 32
    at.slider(key="cat.kl_bins").set_value(8).run()
    assert not at.exception and len(_array(_traces(at, "cat.chart.hists")[0]["x"])) == 8
    binned = _traces(at, "cat.chart.hist_kernel")[0]["z"]
    assert binned != base
    at.select_slider(key="cat.kl_smoothing").set_value(5.0).run()
    assert not at.exception and _traces(at, "cat.chart.hist_kernel")[0]["z"] != binned
    # the histograms drawn are the smoothed ones KL compares: rows sum to 1, and with s = 5 on 8 bins no bin
    # holds less than 5 / (n_i + 40) of a category with n_i <= 87 rows (Saturday, the most)
    shares = _array(_traces(at, "cat.chart.hists")[0]["z"]).reshape(4, 8)
    np.testing.assert_allclose(shares.sum(axis=1), 1.0, atol=1e-5)
    assert shares.min() >= 5 / (87 + 40) - 1e-6
    open_tab(at, "cat.tab", "Download")
    command = shlex.split(at.main.code[0].value)
    assert command[command.index("--bins") + 1] == "8" and command[command.index("--smoothing") + 1] == "5.0"


def test_unit_rows_scale_every_code_to_length_one():
    at = open_table()
    at.radio(key="cat.ncomp_mode").set_value("fixed").run()
    at.slider(key="cat.n_fixed").set_value(2).run()
    open_tab(at, "cat.tab", "Download")
    plain = next(d.value for d in at.dataframe if "category" in d.value.columns).iloc[:, 1:].to_numpy(float)
    at.checkbox(key="cat.row_norm").check().run()
    assert not at.exception
    unit = next(d.value for d in at.dataframe if "category" in d.value.columns).iloc[:, 1:].to_numpy(float)
    np.testing.assert_allclose(np.linalg.norm(unit, axis=1), 1.0, atol=1e-4)
    np.testing.assert_allclose(unit, plain / np.linalg.norm(plain, axis=1, keepdims=True), atol=1e-4)


# ---------------------------------------------------------------- one-hot and label encoding as kernels


def test_special_cases_one_hot_all_alike_and_label_encoding():
    at = open_table()
    open_tab(at, "cat.tab", "One-hot and label encoding")
    assert not at.exception and not at.error
    code = next(d.value for d in at.dataframe if "category" in d.value.columns)
    # one-hot: identity kernel, every eigenvalue 0, the code is one-hot without its first column
    assert list(code["category"]) == ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    np.testing.assert_array_equal(code.iloc[:, 1:].to_numpy(float), np.eye(7)[:, 1:])
    assert any("All 7 eigenvalues are 0" in m.value for m in at.markdown)
    at.radio(key="cat.special").set_value(at.radio(key="cat.special").options[1]).run()
    assert any("is noise" in m.value for m in at.markdown) and not at.exception
    vals = _traces(at, "cat.chart.special_spectrum")[0]["y"]
    assert vals is not None
    at.radio(key="cat.special").set_value(at.radio(key="cat.special").options[2]).run()
    assert not at.exception
    names = [t["name"] for t in _traces(at, "cat.chart.special_vectors")]
    assert "u2" in names and "path u2 (cosine)" in names
    assert any("u₂ is monotone along the order" in _plain(m.value) for m in at.markdown)
    agree = [m.value for m in at.markdown if "|⟨u_k, path's u_k⟩|" in m.value]
    at.slider(key="cat.special_gamma").set_value(1.5).run()
    agree_far = [m.value for m in at.markdown if "|⟨u_k, path's u_k⟩|" in m.value]
    assert agree and agree_far and agree != agree_far
    at.slider(key="cat.special_n").set_value(12).run()
    code = next(d.value for d in at.dataframe if "category" in d.value.columns)
    assert len(code) == 12 and code["category"].iloc[0] == "c1"


# ---------------------------------------------------------------- an affinity matrix uploaded on the page


def _upload_matrix(blob: bytes, name: str = "kernel.csv"):
    at = open_table()
    at.radio(key="cat.kind").set_value("given matrix").run()
    at.file_uploader(key="cat.matrix_file").set_value((name, blob, "text/csv")).run()
    assert not at.exception
    return at


def test_an_uploaded_matrix_is_used_as_the_kernel():
    from embedcore.datasets import load_weekday_similarity

    week = load_weekday_similarity()
    at = _upload_matrix(pd.DataFrame(week.matrix, index=week.labels, columns=week.labels).to_csv().encode())
    assert not at.error, [e.value for e in at.error]
    assert at.selectbox(key="cat.graph").value == "upload"
    # the article's weekday matrix, uploaded, gives the bundled one's figures
    assert metric(at, "categories") == "7" and metric(at, "λ₂ of the normalised L") == "0.568"
    open_tab(at, "cat.tab", "Download")
    assert len(next(d.value for d in at.dataframe if "category" in d.value.columns)) == 7
    # an asymmetric one is symmetrised, with a note
    at.file_uploader(key="cat.matrix_file").set_value(
        ("k2.csv", b",a,b,c,d\na,0,1,2,1\nb,3,0,1,1\nc,2,1,0,5\nd,1,1,5,0\n", "text/csv")).run()
    assert not at.exception and not at.error and metric(at, "categories") == "4"
    assert any("not symmetric" in _plain(i.value) and "(A + Aᵀ) / 2" in _plain(i.value) for i in at.info), \
        [i.value for i in at.info]


@pytest.mark.parametrize("blob, message", [
    (b",a,b,c\na,0,-1,1\nb,-1,0,1\nc,1,1,0\n", "is negative"),
    (b",a,b,c\na,0,1,1\nb,1,0,1\n", "it must be square"),
    (b",a,b,c\na,0,1,1\nb,1,0,1\nz,1,1,0\n", "'z' names a row but no column"),
    (b",a,b\na,0,1\nb,1,0\n", "a graph needs at least 3"),
])
def test_a_bad_matrix_is_named_and_the_page_keeps_working(blob, message):
    at = _upload_matrix(blob)
    assert len(at.error) == 1 and message in _plain(at.error[0].value), [e.value for e in at.error]
    assert "upload" not in at.selectbox(key="cat.graph").options
    assert metric(at, "categories") == "7"  # the bundled weekday matrix is still shown


def test_an_uploaded_matrix_export_reproduces_from_that_file(tmp_path, monkeypatch):
    import subprocess
    import sys

    from threadpoolctl import threadpool_limits

    from app.services import categories as svc
    from app.services import data as data_service
    from app.services import reproduce
    from embedcore.io import upload_digest
    from tests.conftest import ROOT

    blob = b",a,b,c,d\na,1,0.9,0.2,0.1\nb,0.9,1,0.3,0.1\nc,0.2,0.3,1,0.8\nd,0.1,0.1,0.8,1\n"
    upload = data_service.Upload(("mine.csv",), (blob,), upload_digest(["mine.csv"], [blob]), "")
    monkeypatch.setattr(data_service.st, "session_state", {svc._MATRIX_UPLOAD: upload})
    graph = svc.Graph(data_service.DataRef(svc.MATRIX_KIND, f"upload:{upload.digest}", 0))
    with threadpool_limits(1):
        recipe = svc.recipe(graph, None, 2, False, True)
        zipped = reproduce.bundle(recipe)
    params = json.loads(zipfile.ZipFile(io.BytesIO(zipped)).read("params.json"))
    assert params["data"]["files"] == ["mine.csv"] and params["parameters"]["rows to unit length"] is True
    np.testing.assert_allclose(np.linalg.norm(recipe.arrays["codes"], axis=1), 1.0)
    (tmp_path / "mine.csv").write_bytes(blob)
    zipfile.ZipFile(io.BytesIO(zipped)).extractall(tmp_path / "a")
    done = subprocess.run([sys.executable, "reproduce.py", str(tmp_path / "mine.csv")], cwd=tmp_path / "a",
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0 and "codes: reproduced" in done.stdout, done.stdout + done.stderr


def test_liquor_opens_at_the_articles_gamma_and_reproduces_its_spectrum():
    at = open_table()
    at.radio(key="cat.kind").set_value("given matrix").run()
    at.selectbox(key="cat.graph").set_value("liquor_kl").run()
    assert not at.exception and not at.error
    assert at.checkbox(key="cat.article_gamma").value
    assert any(c.value.startswith("γ = 20 ") for c in at.caption)
    open_tab(at, "cat.tab", "Spectrum")
    printed = table_with(at, "the article")
    assert len(printed) == 6 and printed["difference"].max() < 1e-6
    # off the article's γ the slider rules again, and the spectrum moves away from the printed one
    at.checkbox(key="cat.article_gamma").uncheck().run()
    assert not at.exception
    assert not any(c.value.startswith("γ = 20 ") for c in at.caption)
    eig = table_with(at, "eigenvalue")["eigenvalue"].to_numpy()
    assert np.abs(eig - printed["the article"].to_numpy()).max() > 1e-3


def test_a_table_of_many_categories_shows_the_full_spectrums_figures_and_says_what_its_heatmaps_draw():
    """400 categories: the page computes only the smallest eigenpairs and draws 300 rows of each heatmap, and every
    figure it quotes is the one the whole spectrum gives."""
    from embedcore import spectral

    rng = np.random.default_rng(3)
    grp = np.repeat(np.arange(400), 8)
    val = rng.normal(size=grp.size) + 1.5 * (grp % 5)
    frame = pd.DataFrame({"grp": [f"g{g}" for g in grp], "val": val.round(3)})
    at = open_table()
    at.sidebar.file_uploader[0].set_value(("many.csv", frame.to_csv(index=False).encode(), "text/csv")).run()
    assert not at.exception and not at.error, [e.value for e in at.error]

    labels, samples = spectral.category_distributions(frame["grp"].astype(str), frame["val"])
    D = spectral.wasserstein_distances(samples)
    A = spectral.kernel_from_distances(D, 1.0 / spectral.median_distance(D))  # the slider opens at log10 = 0
    full, _ = spectral.laplacian_spectrum(A)
    choice = spectral.choose_code(full)
    assert metric(at, "categories") == "400"
    assert metric(at, "suggested k (eigengap)") == str(choice.eigengap_k)
    assert metric(at, "code width") == str(len(choice.columns))
    assert metric(at, "λ₂ of the normalised L") == f"{full[1]:.3f}"
    assert metric(at, "connected components") == "1"

    heat = _heat(at)["panels"][0]["z"]
    assert heat.size == 300 * 300
    assert any("Drawn: 300 of the 400 categories" in c.value for c in at.caption)

    open_tab(at, "cat.tab", "Spectrum")
    table = next(d.value for d in at.dataframe if "eigenvalue" in d.value.columns)
    assert len(table) == 1 + spectral.EIGENGAP_WINDOW + 1
    np.testing.assert_allclose(table["eigenvalue"], full[: len(table)].round(6), atol=2e-6)
    assert table["kept"].sum() == len(choice.columns)
    assert any("smallest 52 of the 400 eigenvalues" in c.value for c in at.caption)
    assert any("The smallest 52 of 400 eigenvalues" in c.proto.spec for c in at.get("plotly_chart"))
    open_tab(at, "cat.tab", "γ sweep")
    assert not at.exception and any("Each spectrum is the smallest 52 of the 400" in c.value for c in at.caption)
