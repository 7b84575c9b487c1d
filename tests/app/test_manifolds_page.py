"""Manifolds page: B, reg and the inspected point change the views; the comparison runs from its button."""

from __future__ import annotations

import time

from tests.conftest import chart_specs, metric, open_page

PAGE = "app_pages/manifolds.py"



def test_b_change_redraws_under_a_second():
    at = open_page(PAGE)
    assert metric(at, "points") == "1,500"
    before = chart_specs(at)
    t = time.perf_counter()
    at.sidebar.slider(key="man.B").set_value(9).run()
    redraw = time.perf_counter() - t
    assert not at.exception and metric(at, "B") == "9"
    assert chart_specs(at) != before
    print(f"Manifolds: B change redraw {redraw:.2f} s")
    assert redraw < 1.0


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


def test_every_generator_and_digits_render():
    at = open_page(PAGE)
    for ds in ("s_curve", "severed_sphere", "swiss_hole", "digits"):
        at.sidebar.selectbox(key="man.dataset").set_value(ds).run()
        assert not at.exception and not at.error, ds


def test_method_comparison_panel(monkeypatch):
    at = open_page(PAGE)
    at.sidebar.slider(key="man.n").set_value(400).run()
    t = time.perf_counter()
    at.button(key="man.run_all").click().run(timeout=300)
    print(f"Manifolds: comparison panel on 400 points {time.perf_counter() - t:.1f} s")
    assert not at.exception
    table = next(d.value for d in at.dataframe if "method" in d.value.columns)
    assert len(table) == 9 and (table["trustworthiness"] > 0.5).all()
    # the quality layer can now colour any of them
    at.selectbox(key="man.quality_map").set_value("Isomap").run()
    assert not at.exception


def test_upload_with_duplicates_gives_a_clear_error():
    at = open_page(PAGE)
    rows = b"".join(f"{i % 10},{i % 4},1\n".encode() for i in range(60))
    at.sidebar.file_uploader[0].set_value(("dup.csv", rows, "text/csv")).run()
    assert not at.exception
    assert "exact duplicate" in at.error[0].value
