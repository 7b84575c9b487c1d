"""Foundations page: each section's controls change its own chart; only the open tab runs."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.app.maps import bar_charts, lab_map, lab_maps
from tests.conftest import metric, open_page

PAGE = "app_pages/foundations.py"
SIDEBAR_STANDARDISED = "the sidebar data set (standardised)"


def _by_key(at, key):
    # Plotly charts with a key carry it in their element id; a map is known by its data's signature.
    for el in at.get("plotly_chart"):
        if key in (el.proto.id or ""):
            return el.proto.spec
    maps = lab_maps(at)
    if key in maps:
        return maps[key]["sig"]
    raise KeyError(key)


def _chart_keys(at) -> set[str]:
    return {el.proto.id.split("found.chart.")[-1] for el in at.get("plotly_chart") if "found.chart." in el.proto.id}


def _open(at, tab: str):
    at.session_state["found.tab"] = tab
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _upload(at, X, name="data.csv"):
    csv = "\n".join(",".join(f"{v:.5g}" for v in row) for row in X).encode()
    at.sidebar.file_uploader[0].set_value((name, csv, "text/csv")).run()
    assert not at.exception and not at.error
    assert at.selectbox(key="found.dataset").value == "upload"
    return at


@pytest.mark.parametrize(
    "tab, widget, key, value, chart_key",
    [
        ("PCA", "slider", "found.pca_scale", 3.0, "found.map.xy"),
        ("PCA vs JL", "select_slider", "found.pvj_k", 16, "found.chart.pvj_rec"),
        ("Johnson-Lindenstrauss", "slider", "found.jl_k", 20, "found.chart.jl_hist"),
        ("Johnson-Lindenstrauss", "radio", "found.jl_kind", "sparse", "found.chart.jl_hist"),
        ("Johnson-Lindenstrauss", "slider", "found.jl_eps", 0.6, "found.chart.jl_bound"),
        ("Johnson-Lindenstrauss", "slider", "found.jl_eps", 0.2, "found.chart.jl_fail"),
        ("Johnson-Lindenstrauss", "radio", "found.jl_kind", "gaussian", "found.chart.jl_hist"),
        ("Standardising new data", "select_slider", "found.batch_size", 1, "found.map.batch"),
        ("Standardising new data", "radio", "found.batch_kind", "one", "found.chart.batch_acc"),
        ("SVD", "slider", "found.svd_k", 60, "found.chart.svd_energy"),
        ("Autoencoders", "slider", "found.ae_k", 2, "found.chart.ae_angles"),
        ("Feature hashing", "select_slider", "found.hash_w", 2048, "found.chart.hash"),
    ],
)
def test_each_sections_main_control_changes_its_chart(tab, widget, key, value, chart_key):
    at = _open(open_page(PAGE), tab)
    before = _by_key(at, chart_key)
    getattr(at, widget)(key=key).set_value(value).run()
    assert not at.exception and not at.error
    assert _by_key(at, chart_key) != before


def test_only_the_open_tab_runs():
    at = open_page(PAGE)
    assert not _chart_keys(at) and set(bar_charts(at)) == {"found.chart.pca_var"}  # no Plotly on the first screen
    shares = bar_charts(at)["found.chart.pca_var"]["values"]
    assert shares == sorted(shares, reverse=True) and sum(shares) == pytest.approx(1.0)  # every component's share
    assert set(lab_maps(at)) == {"found.map.xy", "found.map.xz", "found.map.yz"}
    assert not at.slider(key="found.pca_scale").disabled
    assert "found.svd_k" not in {s.key for s in at.slider}
    _open(at, "SVD")
    assert _chart_keys(at) == {"svd_energy"} and not lab_maps(at)  # the photo is an image
    assert "found.pca_scale" not in {s.key for s in at.slider}


def test_scaling_a_feature_swings_pc1_and_standardising_undoes_it():
    at = open_page(PAGE)
    assert float(metric(at, "angle between PC1").rstrip("°")) > 80
    at.slider(key="found.pca_scale").set_value(3.0).run()
    assert float(metric(at, "angle between PC1").rstrip("°")) < 1
    at.checkbox(key="found.pca_std").check().run()
    assert float(metric(at, "angle between PC1").rstrip("°")) > 60
    assert float(metric(at, "greedy vs eigen PC1")) > 0.9999


def test_the_cloud_is_seen_along_each_axis_or_rotated_in_3d():
    at = open_page(PAGE)
    maps = lab_maps(at)
    assert [(maps[k]["xTitle"], maps[k]["yTitle"]) for k in ("found.map.xy", "found.map.xz", "found.map.yz")] == [
        ("x", "y"), ("x", "z"), ("y", "z")]
    at.toggle(key="found.pca_3d").set_value(True).run()
    assert not at.exception and not lab_maps(at)
    spec = json.loads(_by_key(at, "found.chart.pca"))
    assert {t["type"] for t in spec["data"]} == {"scatter3d"}
    assert float(metric(at, "angle between PC1").rstrip("°")) > 80  # the same experiment


def test_the_side_views_show_the_cloud_and_each_component_as_its_own_arrow():
    at = open_page(PAGE)
    assert at.selectbox(key="found.pca_feature").value == "z"
    at.slider(key="found.pca_scale").set_value(3.0).run()  # z times 1000: PC1 along z
    maps = lab_maps(at)
    xy, xz, yz = (maps[k] for k in ("found.map.xy", "found.map.xz", "found.map.yz"))
    assert xy["n"] == xz["n"] == yz["n"] == 400
    np.testing.assert_allclose(xy["xy"][:, 0], xz["xy"][:, 0], rtol=1e-6)  # the same x in both views
    np.testing.assert_allclose(xy["xy"][:, 1], yz["xy"][:, 0], rtol=1e-6)
    for shown in (xy, xz, yz):
        arrows = shown["arrows"]
        assert [a["name"] for a in arrows] == ["PC1", "PC2", "PC3"]
        assert len({a["color"] for a in arrows}) == 3  # told apart by colour
        assert [m["color"] for m in shown["markers"]] == [a["color"] for a in arrows]  # greedy tips, same colours
    x, z = xz["arrows"][0]["to"][0]
    assert abs(z) > 100 * abs(x)  # PC1 lies along the scaled z axis


@pytest.mark.parametrize("feature, scale, std", [("z", 0.0, False), ("x", 3.0, False), ("z", 3.0, False),
                                                 ("x", 3.0, True)])
def test_every_arrow_of_the_side_views_ends_inside_the_points_it_is_drawn_over(feature, scale, std):
    at = open_page(PAGE)
    at.selectbox(key="found.pca_feature").set_value(feature)
    at.slider(key="found.pca_scale").set_value(scale)
    at.checkbox(key="found.pca_std").set_value(std).run()
    maps = lab_maps(at)
    for key in ("found.map.xy", "found.map.xz", "found.map.yz"):
        lo, hi = maps[key]["xy"].min(axis=0), maps[key]["xy"].max(axis=0)
        tips = [a["to"][0] for a in maps[key]["arrows"]] + [(m["x"][0], m["y"][0]) for m in maps[key]["markers"]]
        for tip in tips:
            assert np.all(lo <= tip) and np.all(tip <= hi), (key, tip, lo, hi)


def test_the_sidebar_says_which_tabs_its_data_set_feeds_and_what_the_open_tab_shows():
    at = open_page(PAGE)
    box = at.sidebar.selectbox(key="found.dataset")
    assert "PCA vs JL" in box.label and "SVD" in box.label
    assert any("synthetic 3-D cloud" in c.value for c in at.sidebar.caption)
    _open(at, "Feature hashing")
    assert any("news articles" in c.value for c in at.sidebar.caption)


def test_the_feature_picked_is_the_one_measured():
    at = open_page(PAGE)
    at.selectbox(key="found.pca_feature").set_value("x").run()
    # x has the largest variance: PC1 leans towards it even unscaled
    assert float(metric(at, "angle between PC1 and the x axis").rstrip("°")) < 45


def test_jl_at_the_bound_keeps_pairs_within_eps():
    at = _open(open_page(PAGE), "Johnson-Lindenstrauss")
    assert float(metric(at, "pairs within").rstrip("%")) >= 95
    assert metric(at, "original dimensions") == "7,168"
    at.slider(key="found.jl_k").set_value(5).run()
    assert float(metric(at, "pairs within").rstrip("%")) < 95


def test_jl_is_the_orthonormal_transform_first_with_the_seeds_bound_and_its_failure_chance():
    at = _open(open_page(PAGE), "Johnson-Lindenstrauss")
    assert at.radio(key="found.jl_kind").value == "orthonormal"
    assert metric(at, "k for all pairs") == "990"  # (6 ln 300 + 2 ln 2) / (0.045 - 0.009), up from 633
    assert metric(at, "JL bound for this ε") == "633"
    text = next(m.value for m in at.markdown if m.value.startswith("At k = 633 and ε = 0.3"))
    assert "some pair of the 300 points (44,850 pairs)" in text and "0.0% outside" not in text
    at.slider(key="found.jl_k").set_value(990).run()
    text = next(m.value for m in at.markdown if m.value.startswith("At k = 990"))
    per = float(text.split("at most **")[1].split("**")[0])
    assert per <= 300.0**-3
    # orthonormal and Gaussian draws are different maps of the same data
    hist = _by_key(at, "found.chart.jl_hist")
    at.radio(key="found.jl_kind").set_value("gaussian").run()
    assert _by_key(at, "found.chart.jl_hist") != hist


def test_an_orthonormal_frame_past_the_data_dimension_is_a_rotation_with_a_note():
    at = _open(open_page(PAGE), "Johnson-Lindenstrauss")
    at.radio(key="found.jl_data").set_value(SIDEBAR_STANDARDISED).run()  # digits: 64 dimensions
    assert not at.exception and not at.error
    assert any("at most 64 orthonormal directions: shown at k = 64" in i.value for i in at.info)
    assert metric(at, "pairs within") == "100.0%"
    at.slider(key="found.jl_k").set_value(20).run()
    assert not any("orthonormal directions" in i.value for i in at.info)
    assert float(metric(at, "pairs within").rstrip("%")) < 100


def test_standardising_a_batch_by_its_own_statistics_loses_accuracy_when_it_is_small_or_one_digit():
    at = _open(open_page(PAGE), "Standardising new data")
    assert at.select_slider(key="found.batch_size").value == 10
    at.select_slider(key="found.batch_size").set_value(500).run()
    right = float(metric(at, "accuracy, training").rstrip("%"))
    wrong = float(metric(at, "accuracy, the batch").rstrip("%"))
    assert right > 75 and abs(right - wrong) < 3
    at.select_slider(key="found.batch_size").set_value(1).run()
    assert float(metric(at, "accuracy, the batch").rstrip("%")) < 20
    at.select_slider(key="found.batch_size").set_value(200).run()
    at.radio(key="found.batch_kind").set_value("one").run()
    assert not at.exception
    assert float(metric(at, "accuracy, the batch").rstrip("%")) < 20
    assert float(metric(at, "accuracy, training").rstrip("%")) > 75
    assert any("holds only the held-out rows of its digit" in c.value for c in at.caption)
    shown = lab_map(at, "found.map.batch")
    assert "digits 3 placed both ways" in shown["title"]
    marks = {m["name"]: m for m in shown["markers"]}
    own, right = marks["batch, its own μ and σ"], marks["batch, training μ and σ"]
    assert len(own["x"]) == len(right["x"]) > 1
    moved = next(a for a in shown["arrows"] if a["name"] == "moved")  # each row's two places joined
    assert moved["from"] == [[x, y] for x, y in zip(right["x"], right["y"])]
    assert moved["to"] == [[x, y] for x, y in zip(own["x"], own["y"])]
    assert shown["color"]["names"] == [str(d) for d in range(10)]


def test_jl_eps_moves_the_bound_and_the_share():
    at = _open(open_page(PAGE), "Johnson-Lindenstrauss")
    bound = int(metric(at, "JL bound").replace(",", ""))
    at.slider(key="found.jl_eps").set_value(0.6).run()
    assert int(metric(at, "JL bound").replace(",", "")) < bound


def test_pca_vs_jl_on_the_news_articles():
    at = _open(open_page(PAGE), "PCA vs JL")
    before = _by_key(at, "found.chart.pvj_dist")
    at.radio(key="found.pvj_data").set_value("news TF-IDF (300 documents)").run()
    assert not at.exception and not at.error
    assert _by_key(at, "found.chart.pvj_dist") != before
    # the news articles have 300 rows: k runs up to 300
    assert at.select_slider(key="found.pvj_k").options[-1] == "300"


def test_svd_rank_changes_the_reconstruction_and_its_caption():
    at = _open(open_page(PAGE), "SVD")
    caption = at.get("image")[0].captions[0]
    assert caption.startswith("Rank 10:")
    at.slider(key="found.svd_k").set_value(60).run()
    caption60 = at.get("image")[0].captions[0]
    assert caption60.startswith("Rank 60:")
    err = float(caption.split("relative error ")[1].split(" ")[0])
    err60 = float(caption60.split("relative error ")[1].split(" ")[0])
    assert err60 < err


def test_nonlinear_autoencoders_train_from_the_button_and_are_shared():
    at = _open(open_page(PAGE), "Autoencoders")
    at.slider(key="found.ae_k").set_value(8).run()
    assert not _chart_keys(at) & {"ae_images"}  # nothing trained yet
    at.button(key="found.ae_train").click().run(timeout=300)
    assert not at.exception
    spec = json.loads(_by_key(at, "found.chart.ae_images"))
    assert spec["data"][0]["type"] == "heatmap"
    caption = [c.value for c in at.caption if "denoising: MSE" in c.value][0]
    assert "plain: MSE" in caption
    # the contractive penalty of both trained encoders, measured
    assert float(metric(at, "plain: mean ‖J_z‖²_F")) > 0 and float(metric(at, "denoising: mean ‖J_z‖²_F")) > 0
    # another session with the same settings sees them without training
    other = _open(open_page(PAGE), "Autoencoders")
    other.slider(key="found.ae_k").set_value(8).run()
    assert "ae_images" in _chart_keys(other)


def test_hashing_width_picks_its_row():
    at = _open(open_page(PAGE), "Feature hashing")
    rms256 = float(metric(at, "RMS error at w=256"))
    at.select_slider(key="found.hash_w").set_value(4096).run()
    assert float(metric(at, "RMS error at w=4096")) < rms256 / 2


def test_an_upload_feeds_pca_vs_jl_jl_and_svd():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((150, 3)) @ rng.standard_normal((3, 40)) + 0.05 * rng.standard_normal((150, 40))
    at = _upload(open_page(PAGE), X, "lowrank.csv")
    _open(at, "PCA vs JL")
    assert _by_key(at, "found.chart.pvj_rec")
    _open(at, "Johnson-Lindenstrauss")
    at.radio(key="found.jl_data").set_value("the sidebar data set (standardised)").run()
    assert not at.exception and not at.error
    assert metric(at, "original dimensions") == "40"
    _open(at, "SVD")
    at.radio(key="found.svd_data").set_value("the sidebar data set").run()
    assert not at.exception and not at.error
    # a rank-3 matrix: three layers carry almost all of its energy
    spec = _by_key(at, "found.chart.svd_energy")
    assert '"80% at k=' in spec and ("k=2" in spec or "k=3" in spec or "k=1" in spec)
    assert "first 150 rows" in _by_key(at, "found.chart.svd_rec")


def test_a_rank_beyond_the_new_matrix_is_clamped_with_a_caption():
    at = _open(open_page(PAGE), "SVD")
    at.slider(key="found.svd_k").set_value(120).run()
    at.radio(key="found.svd_data").set_value("the sidebar data set").run()  # digits: 64 columns
    assert not at.exception and not at.error
    assert at.slider(key="found.svd_k").value == 64
    assert any("outside what these data allow" in c.value for c in at.caption)


def test_identical_rows_get_a_message_not_a_chart():
    at = _upload(open_page(PAGE), np.ones((40, 3)), "flat.csv")
    _open(at, "PCA vs JL")
    assert any("same point" in i.value for i in at.info)
    _open(at, "Johnson-Lindenstrauss")
    at.radio(key="found.jl_data").set_value("the sidebar data set (standardised)").run()
    assert any("same point" in i.value for i in at.info)
    _open(at, "SVD")
    at.radio(key="found.svd_data").set_value("the sidebar data set").run()
    assert any("centring its columns leaves all zeros" in i.value for i in at.info)
    at.checkbox(key="found.svd_center").uncheck().run()
    assert not at.exception and not at.error
    assert "svd_energy" in _chart_keys(at)


def test_huge_magnitudes_are_decomposed():
    X = np.random.default_rng(1).standard_normal((60, 3)) * 1e306
    at = _upload(open_page(PAGE), X, "huge.csv")
    _open(at, "SVD")
    at.radio(key="found.svd_data").set_value("the sidebar data set").run()
    assert not at.exception and not at.error and not at.info
    assert "nan" not in _by_key(at, "found.chart.svd_rec").split("relative error")[1][:12]
    _open(at, "Johnson-Lindenstrauss")
    at.radio(key="found.jl_data").set_value("the sidebar data set (standardised)").run()
    assert float(metric(at, "pairs within").rstrip("%")) > 50


def test_controls_keep_their_values_while_their_tab_is_closed_and_across_matrices():
    at = _open(open_page(PAGE), "SVD")
    at.slider(key="found.svd_k").set_value(40).run()
    _open(at, "Feature hashing")
    at.select_slider(key="found.hash_w").set_value(64).run()
    _open(at, "SVD")
    assert at.slider(key="found.svd_k").value == 40
    at.radio(key="found.svd_data").set_value("the sidebar data set").run()  # a narrower range: 1 to 64
    assert at.slider(key="found.svd_k").value == 40
    _open(at, "Feature hashing")
    assert at.select_slider(key="found.hash_w").value == 64
    assert not at.warning


def test_the_contractive_net_trained_with_the_penalty_has_the_calmest_encoder_at_the_plain_nets_error():
    at = _open(open_page(PAGE), "Autoencoders")
    assert not any("contractive (λ" in str(d.value) for d in at.dataframe)  # nothing trained yet
    at.button(key="found.cae_train").click().run(timeout=300)
    assert not at.exception
    table = next(d.value for d in at.dataframe if "mean ||J_z||_F^2" in d.value.columns).set_index("autoencoder")
    plain, cae = table.loc["plain"], table.loc["contractive (λ = 0.1)"]
    assert cae["mean ||J_z||_F^2"] < 0.5 * plain["mean ||J_z||_F^2"]
    assert cae["held-out MSE"] < 1.05 * plain["held-out MSE"]
    assert table.loc["denoising (σ = 1)", "held-out MSE"] > cae["held-out MSE"]
    # λ = 0 is the plain net's loss: the same encoder
    at.select_slider(key="found.cae_lambda").set_value(0.0).run()
    at.button(key="found.cae_train").click().run(timeout=300)
    zero = next(d.value for d in at.dataframe if "mean ||J_z||_F^2" in d.value.columns).set_index("autoencoder")
    assert np.isclose(zero.loc["contractive (λ = 0)", "mean ||J_z||_F^2"], zero.loc["plain", "mean ||J_z||_F^2"])


@pytest.mark.parametrize("feature", ["x", "y", "z"])
def test_a_link_to_any_rescaled_feature_opens_on_it(feature):
    """``?found.pca_feature=x`` once fell back to z: x was the widget's own default, which Streamlit drops from a
    link, while the page's default is z."""
    from streamlit.testing.v1 import AppTest

    from tests.conftest import APP

    at = AppTest.from_file(str(APP), default_timeout=120)
    at.query_params["found.pca_feature"] = feature
    at.run()
    at.switch_page("app_pages/foundations.py").run()
    assert at.selectbox(key="found.pca_feature").value == feature
    assert not [w for w in at.warning if "pca_feature" in w.value]
