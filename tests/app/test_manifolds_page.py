"""Manifolds page: B, reg and the inspected point change the views; tabs run only when open; the other
methods run from their buttons (in the background, drawn as they come) and are seen by every session with
the same data and seed; up to 100,000 points, the sweep and the comparison on a sample beyond 5,000."""

from __future__ import annotations

import json
import re
import time

import numpy as np

from tests.app.maps import bar_charts, lab_map, lab_maps, view3d_layer, views3d
from tests.conftest import chart_specs, metric, open_page, open_tab

PAGE = "app_pages/manifolds.py"


def _chart(at, key: str) -> dict:
    """The lab bar chart drawn under ``key``: its labels, values, title."""
    found = bar_charts(at)
    assert key in found, f"no chart {key}; charts: {sorted(found)}"
    return found[key]


def _has_chart(at, key: str) -> bool:
    return key in bar_charts(at)


def _has_map(at, key: str) -> bool:
    return key in lab_maps(at)


def _ring_names(at, key: str) -> list[str]:
    return [r["name"] for r in lab_map(at, key)["rings"]]


def _ring(at, key: str, name: str) -> list[int]:
    return next(r["indices"] for r in lab_map(at, key)["rings"] if r["name"] == name)


def _wait_for_methods(at, timeout: float = 300):
    """Run the page until the comparison's background run has ended (its progress bar is gone)."""
    end = time.monotonic() + timeout
    while at.get("progress") and time.monotonic() < end:
        time.sleep(0.5)
        at.run(timeout=timeout)
    assert not at.get("progress"), "the methods are still running"
    return at


def _deck_layer(at, layer: str) -> dict | None:
    """A layer of the 3-D input, by name; None when it is not drawn."""
    return view3d_layer(at, layer)


def test_the_3d_view_sends_every_point_with_its_colour_and_keeps_them_as_b_changes():
    """The 3-D view's cloud is every point at its input position (centred) in its viridis colour of t; a new B
    sends the same cloud and moves only the marks (the point's B neighbours)."""
    from app.ui.manifolds_charts import rgb
    from embedcore.datasets import make_swiss_roll

    at = open_page(PAGE)
    first = views3d(at)["man.chart.input"]
    at.slider(key="man.B").set_value(7).run()
    again = views3d(at)["man.chart.input"]
    assert again["cloudSig"] == first["cloudSig"] and len(first["ids"]) == 1500
    assert [len(m["ids"]) for m in again["marks"] if m["name"] == "neighbours"] == [7]
    roll = make_swiss_roll(1500, 0.0, 0)
    np.testing.assert_array_equal(first["rgb"], rgb(roll.meta.iloc[:, 0].to_numpy(), False))
    centred = roll.X - (roll.X.max(axis=0) + roll.X.min(axis=0)) / 2
    np.testing.assert_allclose(first["xyz"], centred, atol=0.01 * np.ptp(roll.X))


def test_b_one_step_either_side_is_solved_ahead_as_the_page_would_solve_it():
    """While a map is on screen the page solves B ± 1 and B ± 2 in the background (shared, once); the map a
    step of B then shows is that solve, equal to solving it on the spot, and its trustworthiness is the
    page's figure."""
    from app.services import manifolds as svc
    from embedcore.manifold import lle_with_quality, nearest_neighbors
    from embedcore.metrics import trustworthiness

    at = open_page(PAGE)
    at.slider(key="man.B").set_value(17).run()
    pts = next(k[0] for k in svc.SOLVED._items if k[1] == 17)
    ahead = {b: svc.SOLVED.get((pts, b, 1e-3)) for b in (15, 16, 18, 19)}
    assert all(job is not None for job in ahead.values())
    X = svc.point_set(pts).X
    ind, _ = nearest_neighbors(X, svc.largest_b(pts))
    for b, job in ahead.items():
        got = job.result(timeout=60)
        alone = lle_with_quality(X, ind, b, 1e-3, random_state=pts.seed, n_eigenvalues=8, quality_k=None)
        np.testing.assert_array_equal(got.embedding, alone.embedding)
        assert got.trustworthiness == trustworthiness(X, alone.embedding, 10)
    at.slider(key="man.B").set_value(18).run()
    assert svc.SOLVED.get((pts, 18, 1e-3)) is ahead[18]  # the step used the solve made ahead
    assert svc.SOLVED.get((pts, 20, 1e-3)) is not None  # and the next two ahead are on their way
    assert metric(at, "trustworthiness") == f"{ahead[18].result().trustworthiness:.4f}"
    np.testing.assert_allclose(lab_map(at, "man.map.lle")["n"], 1500)


def test_a_b_queued_ahead_but_not_started_is_solved_at_once_and_stale_solves_are_dropped(monkeypatch):
    """A step to a B whose solve ahead waits in the queue behind another does not wait for that other: it is
    taken out of the queue and solved on the spot. A new B drops the queued solves around the old one, and
    queues its own with the side it moved to first."""
    import threading

    from app.services import manifolds as svc

    open_page(PAGE)
    pts = next(k[0] for k in list(svc.SOLVED._items) if k[1] == 12 and k[0].n == 1500)
    svc._AHEAD.submit(lambda: None).result(timeout=120)
    release, real = threading.Event(), svc._solve
    monkeypatch.setattr(svc, "_solve", lambda *a: release.wait(30) and real(*a))
    svc.solve_ahead(pts, 30, 1e-3)  # 31 runs (held); 29, 32, 28 wait in the queue
    running, queued = svc.SOLVED.get((pts, 31, 1e-3)), svc.SOLVED.get((pts, 32, 1e-3))
    end = time.monotonic() + 30
    while not running.running() and time.monotonic() < end:
        time.sleep(0.01)
    monkeypatch.setattr(svc, "_solve", real)
    stepped = svc.lle(pts, 32, 1e-3)  # queued behind the held 31: solved here while 31 is still held
    assert queued.cancelled() and stepped.n_neighbors == 32 and not running.done()
    svc.solve_ahead(pts, 33, 1e-3)  # 34 and 35 wait in the queue (32 is solved, 31 still held)
    waiting = [svc.SOLVED.get((pts, b, 1e-3)) for b in (34, 35)]
    assert all(j is not None and not j.done() for j in waiting)
    svc.solve_ahead(pts, 45, 1e-3, moved=-1)  # far away, and down: those two are dropped, the side below first
    assert all(j.cancelled() for j in waiting)
    assert svc.SOLVED.get((pts, 34, 1e-3)) is None and svc.SOLVED.get((pts, 35, 1e-3)) is None
    assert [key[1] for key, _ in svc._QUEUED] == [44, 43, 46, 47]  # in this order, behind the held 31
    svc.solve_ahead(pts, 50, 1e-3, moved=5)  # a jump up (PageUp): the same jump again first
    assert [key[1] for key, _ in svc._QUEUED] == [55, 51, 52, 49, 48]
    release.set()
    assert running.result(timeout=60).n_neighbors == 31


def test_after_a_jump_of_b_the_page_solves_the_same_jump_ahead():
    """PageUp moves B by a tenth of its range: the page then solves the next PageUp's B ahead too, so a second
    press finds its map solved like an arrow step does (at 20,000 points a solve takes 0.6 s)."""
    from app.services import manifolds as svc

    at = open_page(PAGE)
    pts = next(k[0] for k in list(svc.SOLVED._items) if k[1] == 12 and k[0].n == 1500)
    at.slider(key="man.B").set_value(16).run()
    assert svc.SOLVED.get((pts, 20, 1e-3)) is not None  # 16 + 4
    at.slider(key="man.B").set_value(13).run()  # then down by 3: 10 ahead, and the steps below first
    assert svc.SOLVED.get((pts, 10, 1e-3)) is not None
    assert svc.ahead_order(-3) == (-3, -1, -2, 1, 2)
    assert not at.exception


def test_solves_ahead_run_at_a_lower_priority_than_the_page():
    """A solve ahead is not waited for yet: its thread gives way (a higher nice value) to the server's runs."""
    import os
    import threading

    from app.services import manifolds as svc

    mine = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    theirs = svc._AHEAD.submit(lambda: os.getpriority(os.PRIO_PROCESS, threading.get_native_id())).result(60)
    assert theirs > mine


def test_a_jump_of_b_cancels_the_solves_ahead_that_have_not_started(monkeypatch):
    """The page needs a B that was not solved ahead (a jump): the solves queued behind the running one are
    cancelled, so its own solve does not wait for them, and they are solved again when next asked for."""
    import threading

    from app.services import manifolds as svc

    at = open_page(PAGE)
    pts = next(k[0] for k in list(svc.SOLVED._items) if k[1] == 12 and k[0].n == 1500)
    svc._AHEAD.submit(lambda: None).result(timeout=120)  # every solve handed to the pool before has ended
    release, real = threading.Event(), svc._solve
    monkeypatch.setattr(svc, "_solve", lambda *a: release.wait(30) and real(*a))
    svc.solve_ahead(pts, 40, 1e-3)  # 41 runs (held), 39 waits in the queue
    running, queued = svc.SOLVED.get((pts, 41, 1e-3)), svc.SOLVED.get((pts, 39, 1e-3))
    end = time.monotonic() + 30
    while not running.running() and time.monotonic() < end:  # the pool's thread has taken it (a wait, not a claim)
        time.sleep(0.01)
    monkeypatch.setattr(svc, "_solve", real)
    jumped = svc.lle(pts, 50, 1e-3)  # solved on the spot
    assert queued.cancelled() and svc.SOLVED.get((pts, 39, 1e-3)) is None
    assert not running.cancelled() and jumped.embedding.shape == (1500, 2)
    release.set()
    assert running.result(timeout=60).embedding.shape == (1500, 2)
    assert svc.lle(pts, 39, 1e-3).n_neighbors == 39  # asked for again: solved then
    assert not at.exception


def test_b_change_redraws_the_map():
    # how long the redraw takes is measured in a browser by tests/benchmarks/bench_browser.py
    at = open_page(PAGE)
    assert metric(at, "points") == "1,500"
    before = lab_map(at, "man.map.lle")
    assert before["n"] == 1500 and before["title"] == "LLE in 2-D (B=12)"
    assert before["color"]["kind"] == "continuous" and before["color"]["title"] == "t"
    at.slider(key="man.B").set_value(9).run()
    assert not at.exception and metric(at, "B") == "9"
    after = lab_map(at, "man.map.lle")  # the same map, redrawn in place under its key
    assert after["title"] == "LLE in 2-D (B=9)" and after["n"] == 1500
    assert not np.allclose(after["xy"], before["xy"])
    np.testing.assert_allclose(after["values"], before["values"])  # the colour is the points', not the map's


def datasets_roll() -> np.ndarray:
    """The page's default points: 1,500 of the swiss roll, seed 0."""
    from embedcore import datasets
    from embedcore.manifold import rescale_for_distances

    return np.array(rescale_for_distances(datasets.make_swiss_roll(n_samples=1500, noise=0.0, seed=0).X))


def _lle_of_default_roll(B: int) -> np.ndarray:
    """LLE of the page's default data (1,500 points of the swiss roll, seed 0), computed here as the page's
    reproduce recipe says."""
    from embedcore.manifold import lle_with_quality, nearest_neighbors

    X = datasets_roll()
    table, _ = nearest_neighbors(X, 60)
    return lle_with_quality(X, table, B, 1e-3, random_state=0, n_eigenvalues=8, quality_k=None).embedding


def test_the_map_is_the_lle_embedding_aligned_to_the_map_on_screen():
    """What is drawn is LLE's map, and after a change of B the new map turned, flipped, scaled and shifted
    onto the one drawn before (so the points glide from where they are)."""
    from embedcore.compare import align_to

    at = open_page(PAGE)
    first = lab_map(at, "man.map.lle")["xy"].astype(np.float64)
    np.testing.assert_allclose(first, _lle_of_default_roll(12), atol=1e-6)
    at.slider(key="man.B").set_value(10).run()
    drawn = lab_map(at, "man.map.lle")["xy"].astype(np.float64)
    expected, _ = align_to(_lle_of_default_roll(10), first)
    np.testing.assert_allclose(drawn, expected, atol=1e-5)


def test_reg_sample_size_and_point_controls():
    at = open_page(PAGE)
    err = metric(at, "reconstruction error")
    at.slider(key="man.reg").set_value(-1.0).run()
    assert metric(at, "reconstruction error") != err
    at.slider(key="man.n").set_value(600).run()
    assert metric(at, "points") == "600" and not at.exception
    before = chart_specs(at)
    at.number_input(key="man.point").set_value(42).run()
    assert chart_specs(at) != before and not at.exception
    at.checkbox(key="man.graph").check().run()
    assert not at.exception


def test_hidden_tabs_draw_nothing_until_opened():
    at = open_page(PAGE)
    assert at.session_state["man.tab"] == "Inside LLE"
    assert _has_chart(at, "man.chart.weights") and not _has_map(at, "man.map.sweep.12")
    assert not [b for b in at.button if b.key == "man.run_all"]
    open_tab(at, "man.tab", "Neighbourhood sweep")
    assert not at.exception and not _has_chart(at, "man.chart.weights")
    sweep = [lab_map(at, f"man.map.sweep.{b}") for b in (3, 6, 9, 12, 20, 40)]  # one map per B, in order
    titles = [m["title"] for m in sweep]
    assert [t.split(" ·")[0] for t in titles] == ["B=3", "B=6", "B=9", "B=12", "B=20", "B=40"]
    assert all("T=0." in t for t in titles) and all(m["n"] == 1500 for m in sweep)
    np.testing.assert_allclose(sweep[3]["xy"], _lle_of_default_roll(12), atol=1e-6)  # B=12 as the page's B=12


def test_the_inspected_point_is_rebuilt_from_its_neighbours():
    at = open_page(PAGE)
    at.number_input(key="man.point").set_value(42).run()
    weights = _chart(at, "man.chart.weights")
    assert "point 42" in weights["title"] and "sum to 1.000" in weights["title"]
    assert len(weights["labels"]) == 12 and weights["text"] == [f"{v:.2f}" for v in weights["values"]]  # B bars
    caption = next(c.value for c in at.caption if c.value.startswith("Rebuilt from its neighbours, point 42"))
    assert "mean neighbour distance" in caption
    assert _ring(at, "man.map.lle", "point 42") == [42]
    marked = [i for name in ("neighbour in both", "neighbour in the data only") if name in _ring_names(at, "man.map.lle")
              for i in _ring(at, "man.map.lle", name)]
    assert sorted(marked) == sorted(r["i"] for r in _deck_layer(at, "neighbours")["data"])  # its 12 neighbours
    assert [row["i"] for row in _deck_layer(at, "point")["data"]] == [42]
    assert len(_deck_layer(at, "neighbours")["data"]) == 12
    # the point is kept while its box is hidden, and B changes the bars and the marked neighbours
    open_tab(at, "man.tab", "Quality")
    assert "point 42" in _ring_names(at, "man.map.lle")
    open_tab(at, "man.tab", "Inside LLE")
    assert at.number_input(key="man.point").value == 42
    at.slider(key="man.B").set_value(5).run()
    assert len(_chart(at, "man.chart.weights")["values"]) == 5
    assert len(_deck_layer(at, "neighbours")["data"]) == 5


def _closed_form(at):
    return next(d.value for d in at.dataframe if "difference" in d.value.columns)


def test_the_closed_form_weights_sit_beside_the_fitted_ones_and_follow_the_point_and_b():
    at = open_page(PAGE)
    assert not [d for d in at.dataframe if "difference" in d.value.columns]  # closed: the table is not sent
    at.session_state["man.closed_form_open"] = True
    at.run()
    at.number_input(key="man.point").set_value(42).run()
    table = _closed_form(at)
    weights = _chart(at, "man.chart.weights")
    np.testing.assert_allclose(table["weight in the LLE fit"], weights["values"], rtol=1e-12)
    np.testing.assert_allclose(table["closed form C⁻¹1 / 1ᵀC⁻¹1"], table["weight in the LLE fit"], atol=1e-9)
    assert len(table) == 12 and (table["difference"].abs() < 1e-9).all()
    caption = next(c.value for c in at.caption if c.value.startswith("Largest difference"))
    assert "condition number" in caption
    at.number_input(key="man.point").set_value(7).run()
    moved = _closed_form(at)
    assert list(moved["neighbour"]) != list(table["neighbour"])
    at.slider(key="man.B").set_value(5).run()
    assert len(_closed_form(at)) == 5
    assert any("Embeddings and latent factors" in e.label for e in at.expander)


def test_the_graph_checkbox_draws_the_knn_graph():
    at = open_page(PAGE)
    assert _deck_layer(at, "graph") is None and not lab_map(at, "man.map.lle")["edges"]
    at.checkbox(key="man.graph").check().run()
    assert len(_deck_layer(at, "graph")["data"]) == 1500 * 12
    from embedcore.manifold import nearest_neighbors

    table, _ = nearest_neighbors(datasets_roll(), 12)
    expected = {(min(i, int(j)), max(i, int(j))) for i in range(1500) for j in table[i]}
    (layer,) = lab_map(at, "man.map.lle")["edges"]  # on the 2-D map: each joined pair once
    assert {tuple(p) for p in layer["pairs"].tolist()} == expected and len(layer["pairs"]) == len(expected)


def test_the_3d_view_draws_a_sample_of_large_data():
    at = open_page(PAGE)
    at.slider(key="man.n").set_value(5000).run()
    assert metric(at, "points") == "5,000" and not at.exception
    assert len(_deck_layer(at, "points")["data"]) == 1500
    assert any("a sample of 1,500 of the 5,000 points" in c.value for c in at.caption)
    assert lab_map(at, "man.map.lle")["n"] == 5000  # the map shows them all
    at.checkbox(key="man.graph").check().run()
    assert len(_deck_layer(at, "graph")["data"]) == 1500 * 12  # the drawn points' edges


def test_twenty_thousand_points_are_mapped_and_the_sweep_uses_a_sample():
    at = open_page(PAGE)
    at.slider(key="man.n").set_value(20_000).run(timeout=300)
    assert metric(at, "points") == "20,000" and not at.exception and not at.error
    shown = lab_map(at, "man.map.lle")
    assert shown["n"] == 20_000
    # the points are named by their row (no 20,000 ids spelled out) and the tooltip's t comes as numbers
    assert shown["ids"] is None and shown["rowIds"] and shown["items"] == "rows:20000"
    from app.services import data as data_service
    from app.services import manifolds as svc

    pts = svc.Points(data_service.DataRef("vectors", "swiss_roll", 0), 20_000, 0.0)
    t = next(f["values"] for f in shown["hover"]["fields"] if f["name"] == "t")
    np.testing.assert_array_equal(t, svc.point_set(pts).colour.astype(np.float32))
    assert at.slider(key="man.B").max == 30  # LLE's matrix holds about n B^2 entries
    assert "30" in at.slider(key="man.B").help
    open_tab(at, "man.tab", "Neighbourhood sweep", timeout=300)
    assert not at.exception
    assert any("sample of 5,000 of the 20,000 points" in i.value for i in at.info)
    assert lab_map(at, "man.map.sweep.12")["n"] == 5000


def test_every_generator_and_digits_render():
    at = open_page(PAGE)
    for ds in ("s_curve", "severed_sphere", "swiss_hole", "digits"):
        at.selectbox(key="man.dataset").set_value(ds).run()
        assert not at.exception and not at.error, ds
    found = lab_map(at, "man.map.lle")  # the digits: coloured by their label, a legend of the ten
    assert found["color"]["kind"] == "category" and found["color"]["names"] == [str(d) for d in range(10)]
    assert found["color"]["title"] == "label" and len(found["codes"]) == found["n"] == 1797


def test_a_method_that_failed_is_named_and_the_button_runs_only_what_is_missing(monkeypatch):
    """A method that fails shows its message; the button then offers the methods without a map (and runs only
    those), and goes once every method has one."""
    import app.services.manifolds as svc

    real, ran = svc._fit_method, []

    def failing(X, seed, method, *args, **kwargs):
        ran.append(method)
        if method in ("hessian", "isomap"):
            raise ValueError(f"{method} refuses these points")
        return real(X, seed, method, *args, **kwargs)

    monkeypatch.setattr(svc, "_fit_method", failing)
    at = open_page(PAGE)
    at.number_input(key="global.seed").set_value(9173)  # points no other test maps
    at.slider(key="man.n").set_value(300).run()
    open_tab(at, "man.tab", "Method comparison")
    assert [b.label for b in at.button if b.key == "man.run_all"] == ["Run every method"]
    at.button(key="man.run_all").click().run(timeout=300)
    _wait_for_methods(at)
    assert sorted(ran) == sorted(svc.METHOD_TITLES)
    assert [w.value for w in at.warning] == ["Hessian LLE: hessian refuses these points",
                                             "Isomap: isomap refuses these points"]
    assert sum(k.startswith("man.map.compare.") for k in lab_maps(at)) == 7
    assert [b.label for b in at.button if b.key == "man.run_all"] == ["Run the 2 methods not yet computed"]
    ran.clear()
    monkeypatch.setattr(svc, "_fit_method", lambda *a, **k: ran.append(a[2]) or real(*a, **k))
    at.button(key="man.run_all").click().run(timeout=300)
    _wait_for_methods(at)
    assert sorted(ran) == ["hessian", "isomap"] and not at.warning
    assert sum(k.startswith("man.map.compare.") for k in lab_maps(at)) == 9
    assert not [b for b in at.button if b.key == "man.run_all"]


def test_method_comparison_panel():
    at = open_page(PAGE)
    at.slider(key="man.n").set_value(400).run()
    open_tab(at, "man.tab", "Method comparison")
    t = time.perf_counter()
    at.button(key="man.run_all").click().run(timeout=300)
    _wait_for_methods(at)  # they run in the background, drawn as they come
    print(f"Manifolds: comparison panel on 400 points {time.perf_counter() - t:.1f} s")
    assert not at.exception
    table = next(d.value for d in at.dataframe if "method" in d.value.columns)
    assert len(table) == 9 and (table["trustworthiness"] > 0.5).all()
    from app.services.manifolds import METHOD_TITLES

    panels = {m: lab_map(at, f"man.map.compare.{m}") for m in METHOD_TITLES}  # one map per method
    assert all(p["n"] == 400 for p in panels.values())
    # the method on the first line of each title, its fit time and trustworthiness on the second
    assert [p["title"].split("\n")[0] for p in panels.values()] == list(METHOD_TITLES.values())
    assert all(re.fullmatch(r"\d+\.\d s · T=\d\.\d{3}", p["title"].split("\n")[1]) for p in panels.values())
    assert list(table["method"]) == list(METHOD_TITLES.values())
    # the quality layer can now colour any of them, without a button
    open_tab(at, "man.tab", "Quality")
    at.selectbox(key="man.quality_map").set_value("Isomap").run()
    assert not at.exception and lab_map(at, "man.map.quality")["title"].startswith("Isomap")
    assert not [b for b in at.button if b.key == "man.quality_run"]

    # a second session with the same data and seed sees every map at once
    other = open_page(PAGE)
    other.slider(key="man.n").set_value(400).run()
    open_tab(other, "man.tab", "Method comparison")
    assert sum(k.startswith("man.map.compare.") for k in lab_maps(other)) == 9
    assert not [b for b in other.button if b.key == "man.run_all"]  # nothing is left to run
    # ... and one with another seed does not
    other.number_input(key="global.seed").set_value(3).run()
    assert not any(k.startswith("man.map.compare.") for k in lab_maps(other))
    assert [b.label for b in other.button if b.key == "man.run_all"] == ["Run every method"]


def _quality_colours(at) -> np.ndarray:
    found = lab_map(at, "man.map.quality")["color"]
    assert found["kind"] == "continuous" and found["scale"] == "rdylgn" and (found["min"], found["max"]) == (0, 1)
    return lab_map(at, "man.map.quality")["values"]


def test_quality_colours_follow_the_seed():
    """Recall is keyed on the data, the map, its seed and k: a new seed never shows the old colours."""
    at = open_page(PAGE)
    at.selectbox(key="man.dataset").set_value("digits").run()  # the same points for every seed
    open_tab(at, "man.tab", "Quality")
    at.selectbox(key="man.quality_map").set_value("t-SNE (openTSNE)").run()
    assert not _has_map(at, "man.map.quality")
    at.button(key="man.quality_run").click().run(timeout=300)
    first = _quality_colours(at)
    at.number_input(key="global.seed").set_value(1).run()
    assert not _has_map(at, "man.map.quality")  # t-SNE with seed 1 is not computed yet
    at.button(key="man.quality_run").click().run(timeout=300)
    second = _quality_colours(at)
    assert not np.array_equal(first, second)
    at.number_input(key="global.seed").set_value(0).run()
    np.testing.assert_array_equal(_quality_colours(at), first)  # seed 0's map, kept for every session
    at.slider(key="man.quality_k").set_value(30).run()
    assert not np.array_equal(_quality_colours(at), first)
    assert "30 true neighbours" in lab_map(at, "man.map.quality")["title"]


def test_quality_of_the_current_lle_follows_b():
    at = open_page(PAGE)
    open_tab(at, "man.tab", "Quality")
    before = _quality_colours(at)
    from embedcore.metrics import neighbour_recall

    expected = neighbour_recall(datasets_roll(), _lle_of_default_roll(12), 10, per_point=True)
    np.testing.assert_allclose(before, expected, atol=1e-6)  # each point's own recall
    tip = lab_map(at, "man.map.quality")["hover"]["fields"][0]  # the tooltip reads it from the colour
    assert tip["name"] == "recall@10" and tip["sameAs"] == "color"
    at.slider(key="man.B").set_value(30).run()
    assert not np.array_equal(_quality_colours(at), before)
    assert "LLE (B=30)" in lab_map(at, "man.map.quality")["title"]


def test_download_holds_the_map_and_its_parameters():
    at = open_page(PAGE)
    open_tab(at, "man.tab", "Download")
    button = next(b for b in at.get("download_button") if b.proto.id and "man.dl" in b.proto.id)
    assert button.proto.label == "LLE coordinates (.csv)"
    at.slider(key="man.B").set_value(8).run()
    assert not at.exception


def test_a_large_upload_is_sampled_with_a_notice(monkeypatch):
    from app.services import manifolds as svc

    monkeypatch.setattr(svc, "SAMPLE", 20_000)  # the page's limit (100,000), lowered to keep the test short
    at = open_page(PAGE)
    rng = np.random.default_rng(0)
    rows = "x,y,z\n" + "\n".join(",".join(f"{v:.6f}" for v in r) for r in rng.normal(size=(21_000, 3)))
    at.sidebar.file_uploader[0].set_value(("big.csv", rows.encode(), "text/csv")).run(timeout=300)
    assert not at.exception
    assert at.session_state["man.dataset"] == "upload"
    # drawn first on the roll's default size, with the way to more points and their cost
    assert metric(at, "points") == "1,500" and lab_map(at, "man.map.lle")["n"] == 1_500
    assert any("21,000 points" in i.value and "sample of 1,500" in i.value and "up to 20,000" in i.value
               for i in at.info)
    at.slider(key="man.sample").set_value(20_000).run(timeout=300)
    assert not at.exception
    assert metric(at, "points") == "20,000" and lab_map(at, "man.map.lle")["n"] == 20_000
    assert any("sample of 20,000" in i.value for i in at.info)
    # a smaller upload keeps the setting within what it has: all of its 2,500 rows
    rows = "x,y,z\n" + "\n".join(",".join(f"{v:.6f}" for v in r) for r in rng.normal(size=(2_500, 3)))
    at.sidebar.file_uploader[0].set_value(("smaller.csv", rows.encode(), "text/csv")).run(timeout=300)
    assert not at.exception and metric(at, "points") == "2,500"


def test_data_lle_cannot_map_are_refused_with_the_reason():
    from types import SimpleNamespace

    from app.services import manifolds as svc

    def problem(X):
        return svc.input_problem(SimpleNamespace(X=np.asarray(X, dtype=float)))

    assert problem(np.zeros((3, 2))) == ("LLE needs at least 10 points to compare neighbourhoods; these data "
                                         "have 3. Upload more rows.")
    assert "single column" in problem(np.arange(20.0)[:, None])
    assert problem(np.repeat(np.eye(3), 5, axis=0)) == ("These data have only 3 distinct points among 15 rows; LLE "
                                                        "needs at least 10. Drop the repeated rows or upload more "
                                                        "varied data.")
    assert problem(np.random.default_rng(0).normal(size=(50, 3))) is None


def test_every_map_method_has_a_title_in_the_comparison_order():
    from app.services import manifolds as svc
    from embedcore.maps import METHODS

    assert list(svc.METHOD_TITLES) == list(METHODS) and svc.METHOD_TITLES["lle"] == "LLE (ours)"


def test_upload_with_duplicates_gives_a_clear_error():
    at = open_page(PAGE)
    rows = b"".join(f"{i % 10},{i % 4},1\n".encode() for i in range(60))
    at.sidebar.file_uploader[0].set_value(("dup.csv", rows, "text/csv")).run()
    assert not at.exception
    assert "exact duplicate" in at.error[0].value


def test_the_weights_measured_unchanged_under_a_similarity_and_changed_by_a_stretch():
    from tests.conftest import table_with, tables_holding

    at = open_page(PAGE)
    assert not tables_holding(at, ["largest weight change"])  # measured only once its expander is opened
    at.session_state["man.invariance_open"] = True
    at.run()
    table = table_with(at, "largest weight change").set_index("transform")
    assert (table.drop(index="stretch of one axis (not a similarity)")["largest weight change"] < 1e-9).all()
    assert table.loc["stretch of one axis (not a similarity)", "largest weight change"] > 1e-2
    at.select_slider(key="man.inv_scale").set_value(100.0).run()
    assert not at.exception
    moved = table_with(at, "largest weight change").set_index("transform")
    assert "scaling by 100" in moved.index and moved.loc["scaling by 100", "largest weight change"] < 1e-9
    assert moved.loc["stretch of one axis (not a similarity)", "largest weight change"] != \
        table.loc["stretch of one axis (not a similarity)", "largest weight change"]


def test_the_comparisons_t_sne_takes_the_largest_perplexity_a_small_upload_allows(monkeypatch):
    """t-SNE needs more than 3 x perplexity points: on 60 points the comparison runs it at 19 (its default 30
    failed there, and the button to run it again failed the same way); on the default points at 30."""
    import app.services.manifolds as svc

    asked, real = [], svc.embed
    monkeypatch.setattr(svc, "embed", lambda X, method, **k: asked.append(k.get("perplexity")) or real(X, method, **k))
    out = svc._fit_method(np.random.default_rng(0).normal(size=(60, 4)), 0, "tsne", 10)
    assert asked == [19.0] and out["coords"].shape == (60, 2) and 0 < out["trustworthiness"] <= 1
    svc._fit_method(np.random.default_rng(0).normal(size=(400, 3)), 0, "tsne", 10)
    assert asked[-1] == 30.0


def test_isomap_of_every_point_past_the_comparisons_sample_and_a_graph_in_pieces_said():
    """Past the comparison's 5,000-point sample, a switch draws Isomap of every point (paths from landmarks),
    titled with its fit time and trustworthiness; on points whose neighbour graph is in pieces it says so."""
    at = open_page(PAGE)
    at.session_state["man.n"] = 8_000
    at.run(timeout=300)
    open_tab(at, "man.tab", "Method comparison", timeout=300)
    assert not at.exception
    at.toggle(key="man.isomap_all").set_value(True).run(timeout=300)
    assert not at.exception
    drawn = lab_map(at, "man.map.isomap_all")
    assert drawn["n"] == 8_000 and "Isomap, all 8,000 points" in drawn["title"]
    trust = float(drawn["title"].split("T=")[1].split()[0])
    assert trust > 0.95
    from scipy.stats import spearmanr

    assert abs(spearmanr(drawn["xy"][:, 0], drawn["values"])[0]) > 0.95  # one axis runs along the roll (its colour)
    # two blobs far apart: the graph is in pieces, and the page says so instead of drawing a map
    rng = np.random.default_rng(1)
    X = np.vstack([rng.normal(size=(3_000, 3)), rng.normal(size=(3_000, 3)) + 100])
    rows = "x,y,z\n" + "\n".join(",".join(f"{v:.6f}" for v in r) for r in X)
    at.sidebar.file_uploader[0].set_value(("blobs.csv", rows.encode(), "text/csv")).run(timeout=300)
    at.slider(key="man.sample").set_value(6_000).run(timeout=300)
    at.toggle(key="man.isomap_all").set_value(True).run(timeout=300)  # new data puts the page's switches back
    assert not at.exception
    assert any("falls into 2 pieces" in w.value for w in at.warning), [w.value for w in at.warning]
