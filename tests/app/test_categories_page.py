"""Categories page: gamma, kernel, components and clustering controls change the views; a kernel learned on the
command line opens where the page shows its own, and a bad one is explained."""

from __future__ import annotations

import io
import json
import re
import shlex
import zipfile

import numpy as np
import pytest

from tests.conftest import chart_specs, metric, open_page, open_tab

PAGE = "app_pages/categories.py"



def test_gamma_change_redraws_the_heatmaps():
    # how fast is the browser benchmark's to measure (tests/benchmarks), not this test's
    at = open_page(PAGE)
    before = chart_specs(at)
    at.sidebar.slider(key="cat.log_gamma").set_value(1.5).run()
    assert not at.exception and not at.error
    assert chart_specs(at) != before


def test_kernel_transform_and_components_change_the_code():
    at = open_page(PAGE)
    base = chart_specs(at)
    at.sidebar.radio(key="cat.kernel").set_value("kl").run()
    kl = chart_specs(at)
    assert kl != base and not at.exception
    at.sidebar.radio(key="cat.ncomp_mode").set_value("fixed").run()
    at.sidebar.slider(key="cat.n_fixed").set_value(2).run()
    assert metric(at, "code width") == "2"
    at.sidebar.checkbox(key="cat.keep_trivial").check().run()
    assert metric(at, "code width") == "3"


def test_given_weekday_matrix_shows_the_articles_gap():
    at = open_page(PAGE)
    at.sidebar.radio(key="cat.kind").set_value("given matrix").run()
    assert not at.exception and not at.error
    assert metric(at, "categories") == "7" and metric(at, "suggested k (eigengap)") == "1"
    assert metric(at, "λ₂ of the normalised L") == "0.568"
    at.sidebar.selectbox(key="cat.graph").set_value("liquor_kl").run()
    assert metric(at, "categories") == "6" and not at.exception


def test_gapminder_country_column_and_clusters():
    at = open_page(PAGE)
    at.sidebar.selectbox(key="cat.dataset").set_value("gapminder").run()
    assert not at.exception and metric(at, "categories") == "142"
    open_tab(at, "cat.tab", "Clustering")
    at.slider(key="cat.clusters").set_value(4).run()
    assert not at.exception
    table = next(d.value for d in at.dataframe if "cluster" in d.value.columns)
    assert len(table) == 4


def test_downstream_button_reports_all_encodings():
    at = open_page(PAGE)
    open_tab(at, "cat.tab", "Downstream test")
    at.button(key="cat.run_bench").click().run(timeout=180)
    assert not at.exception and not at.error
    table = next(d.value for d in at.dataframe if "encoding" in d.value.columns)
    assert sorted(set(table["encoding"])) == ["one-hot", "ordinal", "spectral"]
    assert len(table) == 6 and table["r2"].between(-1, 1).all()
    # another session with the same data and settings sees the result without running it again
    other = open_page(PAGE)
    open_tab(other, "cat.tab", "Downstream test")
    shared = next(d.value for d in other.dataframe if "encoding" in d.value.columns)
    assert shared.equals(table)
    # other settings have no result until someone runs them
    other.sidebar.checkbox(key="cat.keep_trivial").check().run()
    assert not [d for d in other.dataframe if "encoding" in d.value.columns]


def test_uploaded_table_with_too_few_categories_is_explained():
    at = open_page(PAGE)
    at.sidebar.file_uploader[0].set_value(("t.csv", b"grp,val\na,1\nb,2\na,3\nb,4\n", "text/csv")).run()
    assert not at.exception
    assert "has 2 distinct value(s)" in at.error[0].value


def test_uploaded_table_is_encoded():
    rows = "".join(f"{c},{v}\n" for c, v in zip("abcdefgh" * 20, range(160)))
    at = open_page(PAGE)
    at.sidebar.file_uploader[0].set_value(("t.csv", ("grp,val\n" + rows).encode(), "text/csv")).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert metric(at, "categories") == "8"


def test_heatmap_order_control():
    at = open_page(PAGE)
    before = chart_specs(at)
    at.radio(key="cat.order").set_value("as given").run()
    assert not at.exception and chart_specs(at) != before


def test_at_the_top_of_gamma_the_graph_falls_apart_into_named_components():
    at = open_page(PAGE)
    at.sidebar.slider(key="cat.log_gamma").set_value(3.0).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    falls = [w.value for w in at.warning if "fallen apart" in w.value]
    assert len(falls) == 1 and all(day in falls[0] for day in ("Thur", "Fri", "Sat", "Sun")), falls
    assert int(metric(at, "connected components")) >= 2
    # the component indicators join the code: at least one column per extra component
    assert int(metric(at, "code width")) >= int(metric(at, "connected components")) - 1


def test_the_components_shown_match_the_zero_eigenvalues():
    import numpy as np

    at = open_page(PAGE)
    open_tab(at, "cat.tab", "Spectrum")
    for rel in (0.0, 2.0, 3.0):
        at.sidebar.slider(key="cat.log_gamma").set_value(rel).run()
        vals = next(t.value for t in at.dataframe if "eigenvalue" in t.value.columns)["eigenvalue"].to_numpy()
        assert int(metric(at, "connected components")) == int(np.sum(vals < 1e-8))
    assert not [m for m in at.metric if "algebraic connectivity" in m.label]


def _traces(at, key: str) -> list[dict]:
    import json

    return next(json.loads(c.proto.spec)["data"] for c in at.get("plotly_chart") if key in c.proto.id)


def test_only_the_open_tab_draws():
    at = open_page(PAGE)
    assert len(at.get("plotly_chart")) == 2  # the affinity and the Laplacian
    open_tab(at, "cat.tab", "Spectrum")
    assert not at.exception and len(at.get("plotly_chart")) == 1
    assert [d for d in at.dataframe if "eigenvalue" in d.value.columns]
    assert not [r for r in at.radio if r.key == "cat.order"]  # the heatmap tab's control is not drawn


def test_fiedler_order_puts_the_weekend_together():
    at = open_page(PAGE)
    at.sidebar.radio(key="cat.kind").set_value("given matrix").run()
    x = _traces(at, "cat.chart.affinity")[0]["x"]
    assert set(x[-2:]) == {"Sat", "Sun"} or set(x[:2]) == {"Sat", "Sun"}, x
    at.radio(key="cat.order").set_value("as given").run()
    assert _traces(at, "cat.chart.affinity")[0]["x"] == ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]


def test_eigenvector_bars_follow_the_code_width():
    at = open_page(PAGE)
    open_tab(at, "cat.tab", "Eigenvectors")
    at.sidebar.radio(key="cat.ncomp_mode").set_value("fixed").run()
    at.sidebar.slider(key="cat.n_fixed").set_value(3).run()
    assert not at.exception and metric(at, "code width") == "3"
    bars = _traces(at, "cat.chart.vectors")
    assert [t["name"].split(" ")[0] for t in bars] == ["u2", "u3", "u4"]
    assert len(_traces(at, "cat.chart.codes")[0]["text"]) == 4  # the four days of the tips table


def test_gamma_sweep_draws_five_spectra_and_explains_a_given_affinity():
    at = open_page(PAGE)
    open_tab(at, "cat.tab", "γ sweep")
    assert [t["name"] for t in _traces(at, "cat.chart.sweep")] == [f"γ × {f:g}" for f in (0.01, 0.1, 1, 10, 100)]
    at.sidebar.radio(key="cat.kind").set_value("given matrix").run()
    assert not at.get("plotly_chart") and any("no γ to sweep" in i.value for i in at.info)


def test_clustering_names_the_lowest_conductance_cut():
    at = open_page(PAGE)
    open_tab(at, "cat.tab", "Clustering")
    assert not at.exception
    assert any(c.value.startswith("Lowest conductance") for c in at.caption)
    assert len(next(d.value for d in at.dataframe if "cluster" in d.value.columns)) == 2


def test_download_tab_shows_the_code_of_every_category_and_the_command_line():
    at = open_page(PAGE)
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

    page = open_page(PAGE)
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
    at = open_page(PAGE)
    at.sidebar.radio(key="cat.kind").set_value("from the command line").run()
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
    assert len(at.get("plotly_chart")) == 2  # the kernel's affinity and Laplacian
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
    assert sorted(set(table["encoding"])) == ["one-hot", "ordinal", "spectral"] and len(table) == 6


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
    assert not at.get("plotly_chart")
    at.sidebar.radio(key="cat.kind").set_value("learned from a table").run()
    assert not at.exception and not at.error and metric(at, "categories") == "4"


def test_the_downstream_test_asks_for_the_table_when_the_page_lacks_it(command_line_kernel):
    _, out = command_line_kernel
    at = _open_kernel([("codes.csv.npz", (out / "codes.csv.npz").read_bytes())])
    at.sidebar.selectbox(key="cat.dataset").set_value("gapminder").run()
    open_tab(at, "cat.tab", "Downstream test")
    assert not at.exception and not at.get("button")
    assert any("needs the table the kernel was learned from" in _plain(i.value) for i in at.info)
