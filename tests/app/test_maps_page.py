"""The Maps page with a data scientist's own file: 3,000 rows of 64 numbers, a title and one of 6 topics, as CSV.

It must map every row, colour by the topic with one legend entry per topic, find a title, keep two topics
by a filter, isolate a selection and map it alone, name its clusters, and export every original column.
"""

from __future__ import annotations

import base64
import io

import numpy as np
import pandas as pd
import pytest

from tests.app.maps import lab_map, select_on_map, settle
from tests.conftest import assert_clean, open_page

TOPICS = ["sport", "music", "science", "politics", "travel", "cooking"]


def own_table(n: int = 3000, d: int = 64, seed: int = 0) -> pd.DataFrame:
    """Six Gaussian topics in 64 dimensions, each row titled."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(0, 3, (len(TOPICS), d))
    topic = rng.integers(0, len(TOPICS), n)
    X = centres[topic] + rng.normal(size=(n, d))
    frame = pd.DataFrame(X.round(4), columns=[f"e{j}" for j in range(d)])
    frame.insert(0, "title", [f"note {i} on {TOPICS[t]}" for i, t in enumerate(topic)])
    frame.insert(1, "topic", [TOPICS[t] for t in topic])
    return frame


def with_upload(frame: pd.DataFrame, name: str = "mine.csv"):
    at = open_page("app_pages/maps.py")
    blob = frame.to_csv(index=False).encode()
    at.sidebar.file_uploader[0].set_value((name, blob, "text/csv"))
    return at.run(timeout=300)


@pytest.fixture(scope="module")
def frame():
    return own_table()


def test_it_opens_on_bundled_digits_coloured_by_their_label():
    at = open_page("app_pages/maps.py")
    assert_clean(at)
    drawn = lab_map(at, "maps.map")
    assert drawn["n"] == 1797
    assert drawn["color"]["kind"] == "category" and len(drawn["color"]["names"]) == 10


def test_her_file_is_mapped_whole_and_coloured_by_topic(frame):
    at = with_upload(frame)
    assert_clean(at)
    assert at.sidebar.selectbox(key="maps.dataset").value == "upload"  # a vector upload is shown here at once
    drawn = lab_map(at, "maps.map")
    assert drawn["n"] == 3000
    at.selectbox(key="maps.colour").set_value("topic").run()
    drawn = lab_map(at, "maps.map")
    assert sorted(drawn["color"]["names"]) == sorted(TOPICS)
    codes = drawn["codes"]
    names = drawn["color"]["names"]
    assert [names[c] for c in codes[:5]] == frame["topic"].head(5).tolist()
    # 64 vector columns, two metadata columns: the title labels the points
    assert drawn["labels"][0] == frame["title"][0]


def test_a_searched_title_is_ringed_counted_and_framed(frame):
    at = with_upload(frame)
    at.text_input(key="maps.search").set_value("note 17 on").run()
    drawn = lab_map(at, "maps.map")
    hits = [i for i, t in enumerate(frame["title"]) if "note 17 on" in t]
    ring = next(r for r in drawn["rings"] if r["name"].startswith("search"))
    assert ring["indices"] == hits and drawn["focus"] == hits
    assert any(m.label == "search matches" and m.value == str(len(hits)) for m in at.metric)
    at.toggle(key="maps.regex").set_value(True).run()
    at.text_input(key="maps.search").set_value("note (1|2) on").run()
    assert lab_map(at, "maps.map")["focus"] == [1, 2]
    at.text_input(key="maps.search").set_value("note (").run()
    assert_clean(at)
    assert any("not a regular expression" in w.value for w in at.warning)


def test_a_filter_keeps_two_topics_and_isolating_a_box_maps_it_alone(frame):
    at = with_upload(frame)
    at.selectbox(key="maps.filter").set_value("topic").run()
    at.multiselect(key="maps.filter.topic").set_value(["music", "travel"]).run()
    assert_clean(at)
    drawn = lab_map(at, "maps.map")
    kept = frame.index[frame["topic"].isin(["music", "travel"])]
    assert drawn["n"] == len(kept)
    assert sorted(set(drawn["labels"])) == sorted(frame["title"][kept])
    at.selectbox(key="maps.filter").set_value("(none)").run()
    assert lab_map(at, "maps.map")["n"] == 3000
    box = list(range(0, 3000, 10))  # 300 rows
    at = select_on_map(at, "maps.map", box)
    at.button(key="maps.isolate").click().run(timeout=300)
    assert_clean(at)
    drawn = lab_map(at, "maps.map")
    assert drawn["n"] == 300 and drawn["labels"] == frame["title"][box].tolist()
    at.button(key="maps.back").click().run(timeout=300)
    assert lab_map(at, "maps.map")["n"] == 3000


def test_cluster_labels_name_the_topics(frame):
    """On a t-SNE map the six topics part (on PCA's two of them overlap, and one cluster is named 52 % cooking)."""
    at = with_upload(frame.head(1200))
    at.session_state["maps.method"] = "t-SNE"
    settle(at.run(timeout=300))
    at.selectbox(key="maps.label").set_value("topic").run()
    at.toggle(key="maps.clusters").set_value(True).run(timeout=300)
    assert_clean(at)
    drawn = lab_map(at, "maps.map")
    texts = [t for m in drawn["markers"] for t in (m["text"] or [])]
    assert len(texts) >= 6
    assert {t.split(" (")[0] for t in texts} == set(TOPICS)


def test_the_exports_hold_every_original_column_and_the_map(frame):
    from app.services import explorer as svc
    from app.ui import explorer_charts as charts

    at = with_upload(frame)
    buttons = {b.label for b in at.get("download_button")}
    assert {"Table with the map (.csv)", "Table with the map (.parquet)"} <= buttons
    # what the download writes: the table shown, each original column, and the map coordinates
    table = svc.Table(frame.iloc[:, 2:].to_numpy(), frame[["title", "topic"]], list(frame.columns[2:]),
                      list(frame.columns[2:]), np.arange(len(frame)), len(frame))
    view = charts.View.make(table, "title", "topic")
    out = pd.read_csv(io.StringIO(charts._full_table(table, view, np.zeros((len(frame), 2))).to_csv(index=False)))
    assert list(out.columns) == ["row", *frame.columns, "map_x", "map_y"]
    assert out["title"].tolist() == frame["title"].tolist()


@pytest.mark.parametrize("method", ["t-SNE", "UMAP", "Isomap", "LLE"])
def test_every_method_maps_her_file(frame, method):
    at = with_upload(frame.head(600))
    at.session_state["maps.method"] = method
    settle(at.run(timeout=300))
    assert_clean(at)
    drawn = lab_map(at, "maps.map")
    assert drawn["n"] == 600 and np.isfinite(drawn["xy"]).all()
    assert method in drawn["title"]


def test_leaving_columns_out_of_the_vector_changes_the_map_and_keeps_two_at_least(frame):
    at = with_upload(frame.head(300))
    before = lab_map(at, "maps.map")["xy"]
    at.multiselect(key="maps.leave_out").set_value([f"e{j}" for j in range(32)]).run()
    assert_clean(at)
    after = lab_map(at, "maps.map")["xy"]
    assert after.shape == before.shape and not np.allclose(np.abs(after), np.abs(before))
    at.multiselect(key="maps.leave_out").set_value([f"e{j}" for j in range(63)]).run()  # one column left: all used
    assert_clean(at)
    assert any("at least 2 vector columns" in c.value for c in at.sidebar.caption)


def test_a_table_without_metadata_is_labelled_by_row_and_a_one_row_file_is_refused():
    at = with_upload(pd.DataFrame(np.random.default_rng(1).normal(size=(50, 5)), columns=list("abcde")))
    assert_clean(at)
    assert lab_map(at, "maps.map")["n"] == 50
    at = with_upload(pd.DataFrame({"a": [1.0], "b": [2.0]}), "one.csv")
    assert not at.exception
    assert any("at least 3 rows" in c.value for c in at.caption)
    assert lab_map(at, "maps.map")["n"] == 1797  # the page keeps its own data


def test_t_sne_is_drawn_while_it_runs_and_stop_keeps_the_layout(frame):
    """The first run draws a frame of the running t-SNE (the PCA it starts from, or a layout) with Stop; Stop
    ends the run and the page keeps the layout it reached, as the map with every tool."""
    from app.services import explorer as svc

    at = with_upload(frame.head(1500))
    at.session_state["maps.method"] = "t-SNE"
    at.session_state["maps.t-SNE.perplexity"] = 41.0  # a map no other test finishes
    at.run(timeout=300)
    assert_clean(at)
    live = lab_map(at, "maps.map")
    assert live["n"] == 1500 and live["title"].startswith("t-SNE of 1,500 rows, iteration")
    assert [b for b in at.button if b.key == "maps.tsne_stop"]
    job = at.session_state["maps.map_job"]
    assert job.first.wait(120) and job.running
    at.button(key="maps.tsne_stop").click().run(timeout=300)
    assert job.outcome == "stopped"
    assert_clean(at)
    kept = lab_map(at, "maps.map")
    assert kept["title"].startswith("t-SNE map of 1,500 rows") and np.isfinite(kept["xy"]).all()
    assert any("Stopped at iteration" in i.value for i in at.info)
    assert svc.TSNE_MAPS.get(job.key) is None  # a stopped layout is this session's, not every session's
    assert not [b for b in at.button if b.key == "maps.tsne_stop"]


def test_clusters_in_the_vectors_are_named_by_their_words_and_select_on_a_click(frame):
    """Titles are free text: each cluster is named by its most distinctive words, which are its topic's; found in
    the vectors, the six topics are six clusters; the names carry their clusters' rows, so a click selects one."""
    at = with_upload(frame.head(1200))
    at.toggle(key="maps.clusters").set_value(True).run(timeout=300)
    at.session_state["maps.cluster_space"] = "vectors"
    at.run(timeout=300)
    assert_clean(at)
    drawn = lab_map(at, "maps.map")
    (names,) = [m for m in drawn["markers"] if m.get("text")]
    assert "in the vectors" in names["name"] and len(names["text"]) == len(TOPICS)
    assert {t for text in names["text"] for t in text.split(", ") if t in TOPICS} == set(TOPICS)
    codes = np.frombuffer(base64.b64decode(names["selectCodes"]), dtype="<i4")
    topics = frame.head(1200)["topic"].to_numpy()
    for code, text in zip(names["selectOf"], names["text"]):
        assert set(topics[codes == code]) == {next(t for t in TOPICS if t in text.split(", "))}
    members = np.flatnonzero(codes == names["selectOf"][0])
    select_on_map(at, "maps.map", members.tolist(), kind="group")
    assert_clean(at)
    assert any(f"Selected: {len(members):,} " in m.value for m in at.markdown), [m.value for m in at.markdown][:20]


def test_density_contours_are_drawn_under_the_points(frame):
    at = with_upload(frame.head(1200))
    at.toggle(key="maps.contours").set_value(True).run(timeout=300)
    assert_clean(at)
    drawn = lab_map(at, "maps.map")
    (layer, *rest) = drawn["contours"]
    assert len(drawn["contours"]) == 3 and layer["name"].startswith("density")
    for c in drawn["contours"]:
        xy = np.frombuffer(base64.b64decode(c["xy"]), dtype="<f4").reshape(-1, 2)
        assert len(xy) > 10 and np.isfinite(xy).all()
        # the lines lie over the map, not somewhere else
        assert (xy.min(axis=0) > drawn["xy"].min(axis=0) - 0.5 * np.ptp(drawn["xy"], axis=0)).all()


def test_cosine_distance_maps_directions_only(frame):
    """Rows scaled by any positive factor are the same directions: with cosine they map as the rows did, with
    euclidean they do not."""
    from app.services import explorer as svc

    X = frame.head(300).iloc[:, 2:].to_numpy()
    scaled = X * np.random.default_rng(3).uniform(0.2, 5.0, (len(X), 1))
    assert np.allclose(svc.in_metric(scaled, "cosine"), svc.in_metric(X, "cosine"))
    assert svc.in_metric(np.zeros((2, 3)), "cosine").tolist() == [[0.0] * 3] * 2  # a row of zeros stays zeros
    at = with_upload(frame.head(300))
    at.session_state["maps.method"] = "Isomap"
    at.run(timeout=300)
    euclidean = lab_map(at, "maps.map")["xy"]
    at.radio(key="maps.metric").set_value("cosine").run(timeout=300)
    assert_clean(at)
    assert not np.allclose(lab_map(at, "maps.map")["xy"], euclidean)


def test_a_sweep_of_perplexity_is_sent_to_the_map_aligned_and_fills_the_slider(frame):
    """The sweep maps the rows at each value (the page's own among them, drawn exactly as the map), each turned
    onto its neighbour; moving the page's slider to a swept value then draws it without running t-SNE again."""
    from app.services import explorer as svc

    at = with_upload(frame.head(400))
    at.session_state["maps.method"] = "t-SNE"
    settle(at.run(timeout=300))
    (button,) = [b for b in at.button if b.key == "maps.sweep_run"]
    assert button.label == "Sweep perplexity: 5, 15, 30, 50, 100"
    button.click().run(timeout=600)
    assert_clean(at)
    drawn = lab_map(at, "maps.map")
    sweep = drawn["sweep"]
    assert sweep["values"] == [5.0, 15.0, 30.0, 50.0, 100.0] and sweep["at"] == 2 and sweep["name"] == "perplexity"
    frames = [np.stack([np.frombuffer(base64.b64decode(x), "<f4"), np.frombuffer(base64.b64decode(y), "<f4")], 1)
              for x, y in zip(sweep["x"], sweep["y"])]
    assert np.allclose(frames[2], drawn["xy"], atol=1e-4)  # the page's own map is the sweep's frame at its value
    for a, b in zip(frames, frames[1:]):  # neighbours are turned onto each other: far closer than unaligned
        assert np.abs(a - b).mean() < np.abs(a).mean()
    assert len({f.tobytes() for f in frames}) == 5
    calls = []
    import embedcore.maps
    real = embedcore.maps.embed
    embedcore.maps.embed = lambda *a, **k: calls.append(a[1]) or real(*a, **k)
    try:
        at.session_state["maps.t-SNE.perplexity"] = 50.0
        at.run(timeout=300)
    finally:
        embedcore.maps.embed = real
    assert_clean(at)
    assert "tsne" not in calls and not [b for b in at.button if b.key == "maps.tsne_stop"]
    assert lab_map(at, "maps.map")["sweep"]["at"] == 3  # the same sweep, at the new value
    assert svc.SWEEPS["UMAP"][0] == "n_neighbors"


def test_colour_by_neighbour_recall_size_by_a_column_and_enter_selects_the_matches(frame):
    """Recall colours each point by the share of its 10 nearest rows kept on the map (0 to 1, red to green); a
    number column left out of the vector sizes the points; Enter in the search selects what it found."""
    from app.services import explorer as svc
    from embedcore.metrics import neighbour_recall

    mine = frame.head(600).copy()
    mine.insert(2, "length", np.arange(600, dtype=float))
    at = with_upload(mine)
    at.multiselect(key="maps.leave_out").set_value(["length"]).run()
    at.selectbox(key="maps.colour").set_value(svc.RECALL).run()
    at.selectbox(key="maps.size").set_value("length").run()
    assert_clean(at)
    drawn = lab_map(at, "maps.map")
    X = mine.iloc[:, 3:].to_numpy()
    expected = neighbour_recall(X, drawn["xy"].astype(np.float64), k=10, per_point=True)
    assert drawn["color"]["kind"] == "continuous" and drawn["color"]["title"] == "neighbour recall at 10"
    assert np.allclose(drawn["values"], expected, atol=0.01) and 0 < drawn["values"].mean() < 1
    sizes = np.frombuffer(base64.b64decode(drawn["size"]), "<f4")
    assert sizes[0] == 2.0 and sizes[-1] == 9.0 and np.all(np.diff(sizes) > 0)
    at.text_input(key="maps.search").set_value("on travel").run()
    assert_clean(at)
    found = [i for i, t in enumerate(mine["title"]) if "on travel" in t]
    assert sorted(lab_map(at, "maps.map")["selected"]) == found


def test_a_file_with_its_own_row_column_exports_both():
    """A column called "row" in the file (or the page's own, for a file without metadata) is kept, and the
    row's number in the file goes beside it."""
    from app.services import explorer as svc
    from app.ui import explorer_charts as charts

    meta = pd.DataFrame({"row": ["a", "b", "c"]})
    table = svc.Table(np.eye(3), meta, ["x", "y", "z"], ["x", "y", "z"], np.arange(3), 3)
    view = charts.View.make(table, "row", "(none)")
    out = charts._full_table(table, view, np.zeros((3, 2)))
    assert list(out.columns[:2]) == ["file_row", "row"] and out["row"].tolist() == ["a", "b", "c"]
    assert out["file_row"].tolist() == [1, 2, 3]


def given_table(n: int, seed: int = 0) -> pd.DataFrame:
    """A map computed beforehand: x and y in six clusters, each row's topic and title, and a 4-number vector that
    holds the same topics but not the layout inside them."""
    rng = np.random.default_rng(seed)
    topic = rng.integers(0, len(TOPICS), n)
    centres = rng.normal(0, 8, (len(TOPICS), 2))
    xy = centres[topic] + rng.normal(size=(n, 2))
    frame = pd.DataFrame({"title": [f"row {i} on {TOPICS[t]}" for i, t in enumerate(topic)],
                          "topic": [TOPICS[t] for t in topic]})
    vectors = rng.normal(0, 8, (len(TOPICS), 4))[topic] + rng.normal(size=(n, 4))  # the topics, not the layout
    for j in range(4):
        frame[f"e{j}"] = vectors[:, j].round(5)
    frame["umap_x"], frame["umap_y"] = xy[:, 0].round(5), xy[:, 1].round(5)
    return frame


def test_a_file_with_its_own_map_is_drawn_as_given_every_row_and_measured_against_its_vectors(monkeypatch):
    """x and y computed beforehand (umap_x, umap_y beside the vector's columns): the page switches to drawing them
    as given, every one of 30,000 rows (past the 20,000 a t-SNE or UMAP maps), and trustworthiness compares them
    with the other numeric columns, not with themselves."""
    mine = given_table(30_000)
    at = open_page("app_pages/maps.py")
    at.session_state["maps.method"] = "PCA"  # a person who mapped the bundled digits by PCA, then uploads her map
    at.run()
    at.sidebar.file_uploader[0].set_value(("mine.csv", mine.to_csv(index=False).encode(), "text/csv"))
    at.run(timeout=300)
    assert_clean(at)
    assert at.session_state["maps.method"] == "Given x, y"
    assert (at.session_state["maps.x"], at.session_state["maps.y"]) == ("umap_x", "umap_y")
    drawn = lab_map(at, "maps.map")
    assert drawn["n"] == 30_000 and not at.info
    np.testing.assert_allclose(drawn["xy"], mine[["umap_x", "umap_y"]], rtol=1e-6)
    # past 20,000 points the titles travel for 20,000 of them, not one string a point
    assert len(drawn["text_rows"]) == 20_000 and sum(bool(t) for t in drawn["labels"]) == 20_000
    outside = next(i for i in range(30_000) if i not in set(drawn["text_rows"].tolist()))
    at.session_state["maps.search"] = f"row {outside} on"
    at.run(timeout=300)
    drawn = lab_map(at, "maps.map")
    assert drawn["labels"][outside] == mine["title"][outside]  # a search's match is always named
    at.session_state["maps.search"] = ""
    at.run(timeout=300)
    trust = float(next(m.value for m in at.metric if m.label.startswith("trustworthiness")))
    assert 0.5 < trust < 0.95  # far from the 1 of a map measured against itself
    at.session_state["maps.y"] = "e0"
    at.run(timeout=300)
    drawn = lab_map(at, "maps.map")
    np.testing.assert_allclose(drawn["xy"][:, 1], mine["e0"], rtol=1e-5, atol=1e-5)  # drawn as given, not turned onto the last map
    from app.services import explorer

    monkeypatch.setattr(explorer, "LIVE_SAMPLE", 2_000)  # what a UMAP maps at most, lowered to keep the test short
    at.session_state["maps.method"] = "UMAP"
    at.run(timeout=600)
    assert any("maps a seeded sample of 2,000" in i.value for i in at.info)
    assert lab_map(at, "maps.map")["n"] == 2_000
    at.session_state["maps.method"] = "PCA"
    at.run(timeout=300)
    assert lab_map(at, "maps.map")["n"] == 30_000 and not at.info


def test_recall_past_the_exact_limit_is_approximate_and_shows_the_exact_figure_of_a_sample(monkeypatch):
    """Past RECALL_EXACT rows the vectors' neighbours come from NN-descent; the page says so (≈) and puts the
    exact figure of a 2,000-row sample beside it, with the difference."""
    from app.services import explorer

    monkeypatch.setattr(explorer, "RECALL_EXACT", 1_000)
    at = with_upload(given_table(4_000))
    at.session_state["maps.colour"] = explorer.RECALL
    at.run(timeout=300)
    assert_clean(at)
    metrics = {m.label: m for m in at.metric}
    approx = metrics[f"neighbour recall@{explorer.TRUST_K}"]
    assert approx.value.startswith("≈ ")
    exact = metrics["exact on 2,000 rows"]
    assert abs(float(approx.value[2:]) - float(exact.value)) < 0.05
    assert lab_map(at, "maps.map")["color"]["kind"] == "continuous"


def test_a_maps_long_arrays_travel_once_and_again_when_the_browser_lacks_them():
    """70,000 given points: the coordinates go whole with the first map, by digest with the next (a colour
    change), and whole again once the browser says it lacks them (its store let them go)."""
    from tests.app.maps import send_event, sent

    rng = np.random.default_rng(3)
    mine = pd.DataFrame({"x": rng.normal(size=70_000).round(4), "y": rng.normal(size=70_000).round(4),
                         "topic": rng.choice(["a", "b", "c"], 70_000)})
    at = open_page("app_pages/maps.py")
    at.sidebar.file_uploader[0].set_value(("mine.csv", mine.to_csv(index=False).encode(), "text/csv"))
    at.run(timeout=300)
    assert_clean(at)
    first = sent(at, "maps.map")
    assert set(first["x"]) == {"blob", "b64"} and set(first["y"]) == {"blob", "b64"}
    at.session_state["maps.colour"] = "(none)"
    at.run(timeout=300)
    again = sent(at, "maps.map")
    assert again["x"] == {"blob": first["x"]["blob"]} and again["y"] == {"blob": first["y"]["blob"]}
    assert again["color"]["kind"] == "single" and again["sig"] != first["sig"]
    np.testing.assert_allclose(lab_map(at, "maps.map")["xy"], mine[["x", "y"]], rtol=1e-6)
    send_event(at, "maps.map", "missing", [first["x"]["blob"]])
    whole = sent(at, "maps.map")
    assert whole["x"]["b64"] == first["x"]["b64"] and whole["y"]["b64"] == first["y"]["b64"]


def test_a_view_resting_on_points_without_text_gets_their_text():
    """Past 20,000 points text travels for 20,000; when the view rests on others (the browser asks with the view's
    box), the next runs send the text of the points in view first, while the points stay the same."""
    from tests.app.maps import send_event, sent

    mine = given_table(30_000)
    at = open_page("app_pages/maps.py")
    at.sidebar.file_uploader[0].set_value(("mine.csv", mine.to_csv(index=False).encode(), "text/csv"))
    at.run(timeout=300)
    drawn = lab_map(at, "maps.map")
    have = set(drawn["text_rows"].tolist())
    xy = drawn["xy"]
    lacking = next(i for i in range(30_000) if i not in have)
    x, y = xy[lacking]
    box = [float(x) - 0.05, float(y) - 0.05, float(x) + 0.05, float(y) + 0.05]
    inside = np.flatnonzero((xy[:, 0] >= box[0]) & (xy[:, 0] <= box[2]) & (xy[:, 1] >= box[1]) & (xy[:, 1] <= box[3]))
    assert lacking in inside and len(inside) < 2_000
    send_event(at, "maps.map", "view", {"box": box, "items": sent(at, "maps.map")["items"]})
    drawn = lab_map(at, "maps.map")
    assert set(inside.tolist()) <= set(drawn["text_rows"].tolist()) and len(drawn["text_rows"]) == 20_000
    assert drawn["labels"][lacking] == mine["title"][lacking]
    at.session_state["maps.colour"] = "(none)"  # a later run keeps them
    at.run(timeout=300)
    assert drawn["labels"][lacking] == lab_map(at, "maps.map")["labels"][lacking]
    # a view of other points (another upload's token) asks for nothing: the first choice again
    send_event(at, "maps.map", "view", {"box": box, "items": "rows:5"})
    assert set(lab_map(at, "maps.map")["text_rows"].tolist()) == have
