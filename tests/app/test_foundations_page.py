"""Foundations page: each section's main control changes its own chart."""

from __future__ import annotations

import json

import pytest

from tests.conftest import metric, open_page

PAGE = "app_pages/foundations.py"


def _by_key(at, key):
    # Plotly charts with a key carry it in their element id.
    for el in at.get("plotly_chart"):
        if key in (el.proto.id or ""):
            return el.proto.spec
    raise KeyError(key)



@pytest.mark.parametrize(
    "widget, key, value, chart_key",
    [
        ("slider", "found.pca_scale", 3.0, "found.chart.pca"),
        ("select_slider", "found.pvj_k", 16, "found.chart.pvj_rec"),
        ("slider", "found.jl_k", 20, "found.chart.jl_hist"),
        ("slider", "found.svd_k", 60, "found.chart.svd_energy"),
        ("slider", "found.ae_k", 2, "found.chart.ae_angles"),
        ("select_slider", "found.hash_w", 2048, "found.chart.hash"),
    ],
)
def test_each_sections_main_control_changes_its_chart(widget, key, value, chart_key):
    at = open_page(PAGE)
    before = _by_key(at, chart_key)
    getattr(at, widget)(key=key).set_value(value).run()
    assert not at.exception and not at.error
    assert _by_key(at, chart_key) != before


def test_scaling_a_feature_swings_pc1_and_standardising_undoes_it():
    at = open_page(PAGE)
    assert float(metric(at, "angle between PC1").rstrip("°")) > 80
    at.slider(key="found.pca_scale").set_value(3.0).run()
    assert float(metric(at, "angle between PC1").rstrip("°")) < 1
    at.checkbox(key="found.pca_std").check().run()
    assert float(metric(at, "angle between PC1").rstrip("°")) > 60


def test_jl_at_the_bound_keeps_pairs_within_eps():
    at = open_page(PAGE)
    assert float(metric(at, "pairs within").rstrip("%")) >= 95
    at.slider(key="found.jl_k").set_value(5).run()
    assert float(metric(at, "pairs within").rstrip("%")) < 95


def test_nonlinear_autoencoders_train_from_the_button():
    at = open_page(PAGE)
    at.slider(key="found.ae_k").set_value(8).run()
    at.button(key="found.ae_train").click().run(timeout=180)
    assert not at.exception
    spec = json.loads(_by_key(at, "found.chart.ae_images"))
    assert spec["data"][0]["type"] == "heatmap"
    caption = [c.value for c in at.caption if "denoising: MSE" in c.value][0]
    assert "plain: MSE" in caption


def test_an_upload_feeds_pca_vs_jl_jl_and_svd():
    import numpy as np

    rng = np.random.default_rng(0)
    X = rng.standard_normal((150, 3)) @ rng.standard_normal((3, 40)) + 0.05 * rng.standard_normal((150, 40))
    csv = "\n".join(",".join(f"{v:.5f}" for v in row) for row in X).encode()
    at = open_page(PAGE)
    at.sidebar.file_uploader[0].set_value(("lowrank.csv", csv, "text/csv")).run()
    assert not at.exception and not at.error
    assert at.sidebar.selectbox(key="found.dataset").value == "upload"
    at.radio(key="found.jl_data").set_value("the sidebar data set (standardised)").run()
    at.radio(key="found.svd_data").set_value("the sidebar data set").run()
    assert not at.exception and not at.error
    # a rank-3 matrix: three layers carry almost all of its energy
    spec = _by_key(at, "found.chart.svd_energy")
    assert '"80% at k=' in spec and ("k=2" in spec or "k=3" in spec or "k=1" in spec)
