"""Manifolds page: B, reg and the inspected point change the views; tabs run only when open; the other
methods run from their buttons and are seen by every session with the same data and seed."""

from __future__ import annotations

import json
import time

import numpy as np

from tests.conftest import chart_specs, metric, open_page, open_tab

PAGE = "app_pages/manifolds.py"


def _chart(at, key: str) -> dict:
    """The Plotly spec of the chart drawn under ``key``."""
    found = [el for el in at.get("plotly_chart") if el.proto.id and key in el.proto.id]
    assert found, f"no chart {key}"
    return json.loads(found[0].proto.spec)


def _has_chart(at, key: str) -> bool:
    return any(key in el.proto.id for el in at.get("plotly_chart"))


def _deck_layer(at, layer: str) -> dict | None:
    """A layer of the 3-D input (deck.gl), by id; None when it is not drawn."""
    decks = [json.loads(el.proto.json) for el in at.get("deck_gl_json_chart")]
    assert len(decks) == 1, "one 3-D input"
    return next((lay for lay in decks[0]["layers"] if lay["id"] == layer), None)


def _array(value) -> np.ndarray:
    """A trace array from a spec: a list, or Plotly's typed binary (dtype + base64)."""
    if isinstance(value, dict) and "bdata" in value:
        import base64

        return np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
    return np.asarray(value)


def test_b_change_redraws_the_map():
    # how long the redraw takes is measured in a browser by tests/benchmarks/bench_browser.py
    at = open_page(PAGE)
    assert metric(at, "points") == "1,500"
    before = chart_specs(at)
    at.sidebar.slider(key="man.B").set_value(9).run()
    assert not at.exception and metric(at, "B") == "9"
    assert chart_specs(at) != before


def test_reg_sample_size_and_point_controls():
    at = open_page(PAGE)
    err = metric(at, "reconstruction error")
    at.sidebar.slider(key="man.reg").set_value(-1.0).run()
    assert metric(at, "reconstruction error") != err
    at.sidebar.slider(key="man.n").set_value(600).run()
    assert metric(at, "points") == "600" and not at.exception
    before = chart_specs(at)
    at.number_input(key="man.point").set_value(42).run()
    assert chart_specs(at) != before and not at.exception
    at.checkbox(key="man.graph").check().run()
    assert not at.exception


def test_hidden_tabs_draw_nothing_until_opened():
    at = open_page(PAGE)
    assert at.session_state["man.tab"] == "Inside LLE"
    assert _has_chart(at, "man.chart.weights") and not _has_chart(at, "man.chart.sweep")
    assert not [b for b in at.button if b.key == "man.run_all"]
    open_tab(at, "man.tab", "Neighbourhood sweep")
    assert not at.exception and _has_chart(at, "man.chart.sweep") and not _has_chart(at, "man.chart.weights")
    titles = [a["text"] for a in _chart(at, "man.chart.sweep")["layout"]["annotations"]]
    assert [t.split(" ·")[0] for t in titles] == ["B=3", "B=6", "B=9", "B=12", "B=20", "B=40"]
    assert all("T=0." in t for t in titles)


def test_the_inspected_point_is_rebuilt_from_its_neighbours():
    at = open_page(PAGE)
    at.number_input(key="man.point").set_value(42).run()
    weights = _chart(at, "man.chart.weights")
    assert "point 42" in weights["layout"]["title"]["text"] and "sum to 1.000" in weights["layout"]["title"]["text"]
    assert len(weights["data"][0]["x"]) == 12  # B bars
    caption = next(c.value for c in at.caption if c.value.startswith("Rebuilt from its neighbours, point 42"))
    assert "mean neighbour distance" in caption
    names = [t.get("name") for t in _chart(at, "man.chart.embedding")["data"]]
    assert "point 42" in names
    assert [row["i"] for row in _deck_layer(at, "point")["data"]] == [42]
    assert len(_deck_layer(at, "neighbours")["data"]) == 12
    # the point is kept while its box is hidden, and B changes the bars and the marked neighbours
    open_tab(at, "man.tab", "Quality")
    assert "point 42" in [t.get("name") for t in _chart(at, "man.chart.embedding")["data"]]
    open_tab(at, "man.tab", "Inside LLE")
    assert at.number_input(key="man.point").value == 42
    at.sidebar.slider(key="man.B").set_value(5).run()
    assert len(_chart(at, "man.chart.weights")["data"][0]["x"]) == 5
    assert len(_deck_layer(at, "neighbours")["data"]) == 5


def _closed_form(at):
    return next(d.value for d in at.dataframe if "difference" in d.value.columns)


def test_the_closed_form_weights_sit_beside_the_fitted_ones_and_follow_the_point_and_b():
    at = open_page(PAGE)
    at.number_input(key="man.point").set_value(42).run()
    table = _closed_form(at)
    weights = _chart(at, "man.chart.weights")
    np.testing.assert_allclose(table["weight in the LLE fit"], _array(weights["data"][0]["y"]), rtol=1e-5)
    np.testing.assert_allclose(table["closed form C⁻¹1 / 1ᵀC⁻¹1"], table["weight in the LLE fit"], atol=1e-9)
    assert len(table) == 12 and (table["difference"].abs() < 1e-9).all()
    caption = next(c.value for c in at.caption if c.value.startswith("Largest difference"))
    assert "condition number" in caption
    at.number_input(key="man.point").set_value(7).run()
    moved = _closed_form(at)
    assert list(moved["neighbour"]) != list(table["neighbour"])
    at.sidebar.slider(key="man.B").set_value(5).run()
    assert len(_closed_form(at)) == 5
    assert any("Embeddings and latent factors" in e.label for e in at.expander)


def test_the_graph_checkbox_draws_the_knn_graph():
    at = open_page(PAGE)
    assert _deck_layer(at, "graph") is None
    at.checkbox(key="man.graph").check().run()
    assert len(_deck_layer(at, "graph")["data"]) == 1500 * 12


def test_the_3d_view_draws_a_sample_of_large_data():
    at = open_page(PAGE)
    at.sidebar.slider(key="man.n").set_value(5000).run()
    assert metric(at, "points") == "5,000" and not at.exception
    assert len(_deck_layer(at, "points")["data"]) == 1500
    assert any("a sample of 1,500 of the 5,000 points" in c.value for c in at.caption)
    assert len(_array(_chart(at, "man.chart.embedding")["data"][0]["x"])) == 5000  # the map shows them all
    at.checkbox(key="man.graph").check().run()
    assert len(_deck_layer(at, "graph")["data"]) == 1500 * 12  # the drawn points' edges


def test_every_generator_and_digits_render():
    at = open_page(PAGE)
    for ds in ("s_curve", "severed_sphere", "swiss_hole", "digits"):
        at.sidebar.selectbox(key="man.dataset").set_value(ds).run()
        assert not at.exception and not at.error, ds


def test_method_comparison_panel():
    at = open_page(PAGE)
    at.sidebar.slider(key="man.n").set_value(400).run()
    open_tab(at, "man.tab", "Method comparison")
    t = time.perf_counter()
    at.button(key="man.run_all").click().run(timeout=300)
    print(f"Manifolds: comparison panel on 400 points {time.perf_counter() - t:.1f} s")
    assert not at.exception
    table = next(d.value for d in at.dataframe if "method" in d.value.columns)
    assert len(table) == 9 and (table["trustworthiness"] > 0.5).all()
    assert len(_chart(at, "man.chart.compare")["data"]) == 9
    # the quality layer can now colour any of them, without a button
    open_tab(at, "man.tab", "Quality")
    at.selectbox(key="man.quality_map").set_value("Isomap").run()
    assert not at.exception and _has_chart(at, "man.chart.quality")
    assert not [b for b in at.button if b.key == "man.quality_run"]

    # a second session with the same data and seed sees every map at once
    other = open_page(PAGE)
    other.sidebar.slider(key="man.n").set_value(400).run()
    open_tab(other, "man.tab", "Method comparison")
    assert len(_chart(other, "man.chart.compare")["data"]) == 9
    # ... and one with another seed does not
    other.sidebar.number_input(key="global.seed").set_value(3).run()
    assert not _has_chart(other, "man.chart.compare")


def _quality_colours(at) -> np.ndarray:
    return _array(_chart(at, "man.chart.quality")["data"][0]["marker"]["color"])


def test_quality_colours_follow_the_seed():
    """Recall is keyed on the data, the map, its seed and k: a new seed never shows the old colours."""
    at = open_page(PAGE)
    at.sidebar.selectbox(key="man.dataset").set_value("digits").run()  # the same points for every seed
    open_tab(at, "man.tab", "Quality")
    at.selectbox(key="man.quality_map").set_value("t-SNE (openTSNE)").run()
    assert not _has_chart(at, "man.chart.quality")
    at.button(key="man.quality_run").click().run(timeout=300)
    first = _quality_colours(at)
    at.sidebar.number_input(key="global.seed").set_value(1).run()
    assert not _has_chart(at, "man.chart.quality")  # t-SNE with seed 1 is not computed yet
    at.button(key="man.quality_run").click().run(timeout=300)
    second = _quality_colours(at)
    assert not np.array_equal(first, second)
    at.sidebar.number_input(key="global.seed").set_value(0).run()
    np.testing.assert_array_equal(_quality_colours(at), first)  # seed 0's map, kept for every session
    at.slider(key="man.quality_k").set_value(30).run()
    assert not np.array_equal(_quality_colours(at), first)
    assert "30 true neighbours" in _chart(at, "man.chart.quality")["layout"]["title"]["text"]


def test_quality_of_the_current_lle_follows_b():
    at = open_page(PAGE)
    open_tab(at, "man.tab", "Quality")
    before = _quality_colours(at)
    at.sidebar.slider(key="man.B").set_value(30).run()
    assert not np.array_equal(_quality_colours(at), before)
    assert "LLE (B=30)" in _chart(at, "man.chart.quality")["layout"]["title"]["text"]


def test_download_holds_the_map_and_its_parameters():
    at = open_page(PAGE)
    open_tab(at, "man.tab", "Download")
    button = next(b for b in at.get("download_button") if b.proto.id and "man.dl" in b.proto.id)
    assert button.proto.label == "LLE coordinates (.csv)"
    at.sidebar.slider(key="man.B").set_value(8).run()
    assert not at.exception


def test_a_large_upload_is_sampled_with_a_notice():
    at = open_page(PAGE)
    rng = np.random.default_rng(0)
    rows = "x,y,z\n" + "\n".join(",".join(f"{v:.6f}" for v in r) for r in rng.normal(size=(6000, 3)))
    at.sidebar.file_uploader[0].set_value(("big.csv", rows.encode(), "text/csv")).run()
    assert not at.exception
    assert at.session_state["man.dataset"] == "upload"
    assert metric(at, "points") == "5,000"
    assert any("6,000 points" in i.value and "sample of 5,000" in i.value for i in at.info)


def test_upload_with_duplicates_gives_a_clear_error():
    at = open_page(PAGE)
    rows = b"".join(f"{i % 10},{i % 4},1\n".encode() for i in range(60))
    at.sidebar.file_uploader[0].set_value(("dup.csv", rows, "text/csv")).run()
    assert not at.exception
    assert "exact duplicate" in at.error[0].value
