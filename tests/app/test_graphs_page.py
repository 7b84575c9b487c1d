"""Graphs page: every control changes what is shown, an uploaded edge list is drawn (or refused with the line to
fix), names from a file stay literal, the karate claims on the page hold, and the export reproduces."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import zipfile

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from app.services import data as data_service
from app.services import graphs as svc
from embedcore.io import upload_digest
from tests.app.maps import bar_charts, lab_map, lab_maps, line_charts
from tests.app.sweep import rendered_markup
from tests.app.uploads import MARKUP
from tests.conftest import ROOT, chart_specs, metric, open_page, open_tab
from tests.conftest import assert_clean as _ok
from tests.conftest import caption_starting as _caption
from tests.conftest import table_with as _table

PAGE = "app_pages/graphs.py"
LAMBDA = "λ₂ of the"


def _drawn(at) -> list[str]:
    """Every Plotly chart's JSON and every map's data signature, to compare before and after a change."""
    return chart_specs(at) + [m["sig"] for _, m in sorted(lab_maps(at).items())]


def _pairs(pairs) -> set[tuple[int, int]]:
    return {(int(min(a, b)), int(max(a, b))) for a, b in pairs}


def test_renders_the_karate_club_split_at_zero():
    at = open_page(PAGE)
    _ok(at)
    assert at.title[0].value == "Graphs: spectral clustering"
    assert metric(at, "nodes") == "34" and metric(at, "edges") == "78" and metric(at, "connected components") == "1"
    assert metric(at, LAMBDA) == "1.187" and metric(at, "best sweep conductance") == "0.100"
    assert not at.get("plotly_chart") and set(lab_maps(at)) == {"graphs.map.split"}  # no Plotly on the first screen
    vector = bar_charts(at)["graphs.chart.vector"]
    assert len(vector["values"]) == 34 and vector["values"] == sorted(vector["values"])  # one bar per node, sorted
    assert any(r["label"].startswith("at 0") and r["y"] == 0 for r in vector["rules"]), vector["rules"]
    sweep = line_charts(at)["graphs.chart.sweep"]
    profile, *cuts = sweep["series"]
    assert profile["x"] == list(range(1, 34)) and min(profile["y"]) == pytest.approx(0.1, abs=5e-4)
    best = next(c for c in cuts if "sweep" in c["name"])  # the best sweep cut is marked on its prefix's value
    assert best["y"][0] == pytest.approx(min(profile["y"])) and profile["y"][int(best["x"][0]) - 1] == best["y"][0]
    assert any(r"\lambda_2 = \min_{x \perp \mathbf{1}" in e.value for e in at.latex)
    assert "33 of 34 nodes are on their club's side; ringed: 9." in _caption(at, "Against the known split")


def test_the_split_rule_moves_the_cut():
    at = open_page(PAGE)
    before = _drawn(at)
    at.radio(key="graphs.rule").set_value("median").run()
    _ok(at)
    assert _drawn(at) != before
    assert "34 of 34 nodes" in _caption(at, "Against the known split")
    table = _table(at, "Rayleigh quotient of its indicator")
    assert table["nodes below / above"].tolist() == ["16 / 18", "17 / 17", "16 / 18"]


def test_the_graph_map_draws_every_edge_the_cut_edges_apart_and_the_clubs_and_the_misplaced_marked():
    at = open_page(PAGE)
    shown = lab_map(at, "graphs.map.split")
    assert shown["n"] == 34 and shown["labels"][:3] == ["1", "2", "3"]
    edges, cut = (layer["pairs"] for layer in shown["edges"])
    assert len(edges) == 78 and [layer["name"] for layer in shown["edges"]] == ["edges", "cut edges"]
    assert _pairs(cut) <= _pairs(edges)
    codes = shown["codes"]
    assert shown["color"]["names"] == ["below the threshold", "above"]
    # an edge is cut exactly when it joins the two sides
    assert _pairs(cut) == {p for p in _pairs(edges) if codes[p[0]] != codes[p[1]]}
    rings = {r["name"]: r["indices"] for r in shown["rings"]}
    assert len(rings["Mr. Hi"]) == len(rings["Officer"]) == 17
    assert [shown["labels"][i] for i in rings["on the other side from their club"]] == ["9"]
    at.radio(key="graphs.rule").set_value("median").run()
    assert "on the other side from their club" not in {r["name"] for r in lab_map(at, "graphs.map.split")["rings"]}
    assert (lab_map(at, "graphs.map.split")["xy"] == shown["xy"]).all()  # one layout for every split


def test_weights_and_laplacian_change_lambda2_and_the_karate_claim_holds():
    at = open_page(PAGE)
    at.toggle(key="graphs.weighted").set_value(False).run()
    _ok(at)
    assert metric(at, LAMBDA) == "0.4685"
    # the page says: unweighted, the sign of the Fiedler vector places members 3 and 9 against their clubs
    assert "32 of 34 nodes are on their club's side; ringed: 3, 9." in _caption(at, "Against the known split")
    at.radio(key="graphs.laplacian").set_value("normalised").run()
    _ok(at)
    assert metric(at, "λ₂ of the normalised") == "0.1323"
    assert "ringed: 3, 9." in _caption(at, "Against the known split")
    text = " ".join(m.value for m in at.markdown)
    assert "members 3 and 9" in text and "With weights, only 9" in text


def test_les_miserables():
    at = open_page(PAGE)
    at.selectbox(key="graphs.graph").set_value("lesmis").run()
    _ok(at)
    assert metric(at, "nodes") == "77" and metric(at, "edges") == "254"
    table = _table(at, "Rayleigh quotient of its indicator")
    assert "not with their club" not in table.columns  # no known split to compare with
    assert table["nodes below / above"].iloc[2] == "59 / 18"


def test_turning_away_from_the_fiedler_vector_raises_the_quotient():
    at = open_tab(open_page(PAGE), "graphs.tab", "Rayleigh quotient")
    _ok(at)
    at30 = float(metric(at, "R(x) at this angle"))
    before = chart_specs(at)
    at.slider(key="graphs.angle").set_value(0).run()
    _ok(at)
    assert metric(at, "R(x) at this angle") == metric(at, "λ₂ (the minimum)") == "1.187"
    assert at30 > 1.187 and chart_specs(at) != before
    at.slider(key="graphs.angle").set_value(90).run()
    assert float(metric(at, "R(x) at this angle")) > at30
    # two charts show the turn: the mark at this angle and quotient on the curve, and both vectors node by node
    charts = line_charts(at)
    assert charts["graphs.chart.turn"]["title"] == "The quotient, x turned 90°"
    traces = {t["name"]: t for key in ("graphs.chart.turn", "graphs.chart.turned") for t in charts[key]["series"]}
    star = traces["your turn: 90°"]
    assert star["x"] == [90] and f"{star['y'][0]:.4g}" == metric(at, "R(x) at this angle")
    assert [r["y"] for r in charts["graphs.chart.turn"]["hlines"]] == [pytest.approx(1.187, abs=5e-4)]  # λ₂
    fiedler, turned = (np.asarray(traces[name]["y"]) for name in ("Fiedler vector", "turned vector"))
    assert len(fiedler) == len(turned) == 34 and np.all(np.diff(fiedler) >= 0)  # in Fiedler order
    assert not np.allclose(np.abs(turned), np.abs(fiedler), atol=1e-3)  # at 90° the turned vector is another one
    # the random vectors' histogram is drawn apart from it (the angle's fragment does not redraw it)
    assert sum(json.loads(el.proto.spec)["layout"]["title"]["text"].startswith("500 random vectors")
               for el in at.get("plotly_chart")) == 1


def test_k_parts_and_the_rule_for_each_part():
    at = open_tab(open_page(PAGE), "graphs.tab", "k parts")
    _ok(at)
    assert len(_table(at, "cut to the rest")) == 3
    at.slider(key="graphs.k").set_value(6).run()
    _ok(at)
    parts = _table(at, "cut to the rest")
    assert len(parts) == 6 and parts["nodes"].min() >= 1 and parts["nodes"].sum() == 34
    assert len(_table(at, "conductance in the part")) == 5
    before = _drawn(at)
    assert lab_map(at, "graphs.map.parts")["color"]["names"] == [f"part {j}" for j in range(1, 7)]
    at.radio(key="graphs.k_rule").set_value("median").run()
    _ok(at)
    assert _drawn(at) != before
    crosstab = _table(at, "Officer")
    assert crosstab[["Mr. Hi", "Officer"]].to_numpy().sum() == 34


def test_two_laplacians_side_by_side():
    at = open_page(PAGE)
    at.selectbox(key="graphs.graph").set_value("lesmis").run()
    open_tab(at, "graphs.tab", "Two Laplacians")
    _ok(at)
    assert len(at.get("plotly_chart")) == 2
    assert set(lab_maps(at)) == {"graphs.map.graph_L", "graphs.map.graph_N", "graphs.map.vectors"}
    table = _table(at, "Laplacian")
    assert table["Laplacian"].tolist() == ["unnormalised L = D − A", "normalised L"]
    assert "place 1 node(s) differently: MlleVaubois." in _caption(at, "The two splits")
    before = _drawn(at)
    at.radio(key="graphs.cmp_rule").set_value("zero").run()
    _ok(at)
    assert _drawn(at) != before
    vectors = lab_map(at, "graphs.map.vectors")
    assert vectors["n"] == 77 and vectors["color"]["title"] == "degree"
    assert abs(np.linalg.norm(vectors["xy"][:, 0]) - 1) < 1e-5 and abs(np.linalg.norm(vectors["xy"][:, 1]) - 1) < 1e-5


def _upload(at, name: str, blob: bytes):
    return at.file_uploader(key="graphs.edges").set_value((name, blob, "text/plain")).run()


def test_an_uploaded_edge_list_is_shown_and_its_names_stay_literal():
    edges = [("alice", "bob"), ("bob", "carol"), ("carol", "alice"), ("dave", "erin"), ("erin", "frank"),
             ("frank", "dave"), ("carol", "dave")] + [(MARKUP[i], MARKUP[(i + 1) % 4]) for i in range(4)]
    edges.append((MARKUP[0], "alice"))
    text = "source\ttarget\n" + "\n".join(f"{a}\t{b}" for a, b in edges) + "\nalice\talice\n"
    at = _upload(open_page(PAGE), "friends.tsv", text.encode())
    _ok(at)
    assert at.session_state["graphs.graph"] == "upload"
    assert metric(at, "nodes") == "10" and metric(at, "edges") == "12"
    notes = " ".join(i.value for i in at.info)
    assert "read as a header" in notes and "self\\-loop" in notes
    assert not rendered_markup(at)
    labels = lab_map(at, "graphs.map.split")["labels"]
    for name in MARKUP:  # the map writes names as plain text: sent as they are, not escaped
        assert name[:16] in labels or name[:15] + "…" in labels
    for tab in ("Rayleigh quotient", "k parts", "Two Laplacians"):
        open_tab(at, "graphs.tab", tab)
        _ok(at)
        assert not rendered_markup(at), tab


def test_a_bad_edge_list_is_refused_with_the_line_to_fix():
    at = _upload(open_page(PAGE), "bad.csv", b"a,b,1\nb,c,heavy\n")
    assert not at.exception
    assert len(at.error) == 1
    message = at.error[0].value.replace("\\", "")
    assert "bad.csv, line 2: the weight 'heavy' is not a number" in message
    assert metric(at, "nodes") == "34"  # the page keeps its own graph


def test_an_edge_list_over_the_node_limit_is_refused_with_the_limit():
    edges = "\n".join(f"n{i} n{i + 1}" for i in range(svc.MAX_NODES + 1)).encode()
    at = _upload(open_page(PAGE), "big.txt", edges)
    assert not at.exception
    message = at.error[0].value.replace("\\", "") if len(at.error) == 1 else ""
    assert "big.txt has 1,002 nodes" in message and "draws up to 1,000." in message
    assert metric(at, "nodes") == "34"  # the page keeps its own graph


def test_a_disconnected_upload_is_cut_between_its_pieces():
    at = _upload(open_page(PAGE), "two.txt", b"a b\nb c\nc a\nx y\ny z\n")
    _ok(at)
    assert metric(at, "connected components") == "2" and metric(at, LAMBDA) == "0"
    assert any("in 2 pieces" in w.value for w in at.warning)
    table = _table(at, "Rayleigh quotient of its indicator")
    assert table["cut"].iloc[0] == 0


# ---------------------------------------------------------------- export


@pytest.fixture
def one_thread():
    """Exports are computed as the server computes them, with one thread per numeric library (the scripts too)."""
    with threadpool_limits(1):
        yield


def _run(blob: bytes, where, *args) -> subprocess.CompletedProcess:
    zipfile.ZipFile(io.BytesIO(blob)).extractall(where)
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "reproduce.py", *map(str, args)], cwd=where, env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("source,weighted,normalized,k,rule", [("karate", True, False, 3, "sweep"),
                                                               ("lesmis", False, True, 5, "median")])
def test_the_export_reproduces(one_thread, tmp_path, source, weighted, normalized, k, rule):
    recipe = svc.recipe(data_service.DataRef(svc.KIND, source, 2), weighted, normalized, k, rule)
    done = _run(svc.bundle(lambda: recipe), tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    for name in recipe.arrays:
        assert f"{name}: reproduced" in done.stdout
    params = json.loads(zipfile.ZipFile(io.BytesIO(svc.bundle(lambda: recipe))).read("params.json"))
    assert params["data"]["bundled"] == source and params["parameters"]["k"] == k


def test_an_uploaded_edge_list_export_asks_for_that_file(one_thread, tmp_path, monkeypatch):
    blob = b"# a ring of two triangles\na b 2\nb c 1\nc a 1\nc d 0.5\nd e 1\ne f 1\nf d 3\n"
    upload = data_service.Upload(("ring.txt",), (blob,), upload_digest(["ring.txt"], [blob]), "")
    monkeypatch.setattr(svc.st, "session_state", {svc._UPLOAD: upload})
    monkeypatch.setattr(data_service, "current_upload", lambda: None)
    recipe = svc.recipe(data_service.DataRef(svc.KIND, f"upload:{upload.digest}", 0), True, False, 3, "sweep")
    zipped = svc.bundle(lambda: recipe)
    params = json.loads(zipfile.ZipFile(io.BytesIO(zipped)).read("params.json"))
    assert params["data"] == {"kind": "edges", "seed": 0, "upload_sha1": upload.digest, "files": ["ring.txt"]}
    (tmp_path / "ring.txt").write_bytes(blob)
    done = _run(zipped, tmp_path / "a", tmp_path / "ring.txt")
    assert done.returncode == 0 and "parts: reproduced" in done.stdout, done.stdout + done.stderr
    (tmp_path / "other.txt").write_bytes(blob.replace(b"f d 3", b"f d 4"))
    done = _run(zipped, tmp_path / "b", tmp_path / "other.txt")
    assert done.returncode != 0 and "SHA-1 differs" in done.stdout + done.stderr


def test_planted_communities_are_recovered_above_chance_until_the_background_drowns_them():
    at = open_tab(open_page(PAGE), "graphs.tab", "Planted communities")
    _ok(at)
    drawn = lab_map(at, "graphs.map.agm")
    assert drawn["color"]["names"] == ["part 1", "part 2"]
    found, chance = float(metric(at, "nodes on their community's part").rstrip("%")), \
        float(metric(at, "the same by chance").rstrip("%"))
    assert found > 95 and chance < 60
    assert _table(at, "part")["part"].tolist() == [1, 2]
    at.select_slider(key="graphs.agm_k").set_value(3).run()
    _ok(at)
    assert lab_map(at, "graphs.map.agm")["color"]["names"] == ["part 1", "part 2", "part 3"]
    # the background as dense as a community: nothing is planted any more, and the score falls towards chance
    at.select_slider(key="graphs.agm_p").set_value(0.05).run()
    at.select_slider(key="graphs.agm_eps").set_value(0.2).run()
    _ok(at)
    assert float(metric(at, "adjusted Rand index")) < 0.2
