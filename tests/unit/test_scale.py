"""What lets the lab work at the size of people's tables: narrow files kept whole to a million rows, clusters
found on a sample and spread to every row, neighbours found approximately with their error measured."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from sklearn.neighbors import NearestNeighbors

from embedcore import explore, metrics
from embedcore.io import read_vectors, vector_rows


def _parquet(frame: pd.DataFrame) -> bytes:
    out = io.BytesIO()
    frame.to_parquet(out, index=False)
    return out.getvalue()


def test_a_narrow_file_of_250000_rows_is_read_whole_and_a_wide_one_is_sampled_by_its_numbers():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"x": rng.normal(size=250_000), "y": rng.normal(size=250_000),
                          "topic": rng.choice(["a", "b"], 250_000)})
    v = read_vectors(_parquet(frame), "points.parquet")
    assert v.X.shape == (250_000, 2) and not v.notices  # 200,000 rows was the limit of every vector file
    np.testing.assert_array_equal(v.X[:, 0], frame["x"])
    assert vector_rows(2) == 1_000_000 and vector_rows(384) == 200_000 and vector_rows(256) == 250_000
    wide = read_vectors(_parquet(pd.DataFrame(rng.normal(size=(300, 4)))), "w.parquet", max_rows=120)
    assert len(wide.X) == 120 and "random sample of 120" in " ".join(wide.notices)


def test_clusters_past_the_sample_are_found_on_it_and_every_row_joins_its_nearest_sampled_row(monkeypatch):
    rng = np.random.default_rng(1)
    truth = rng.integers(0, 3, 12_000)
    xy = np.array([[0.0, 0], [20, 0], [0, 20]])[truth] + rng.normal(size=(12_000, 2))
    monkeypatch.setattr(explore, "CLUSTER_SAMPLE", 2_000)
    found, table = explore.cluster_map(xy, [f"t{t}" for t in truth])
    assert len(found) == 12_000 and len(table) == 3
    assert sorted(table["label"]) == ["t0", "t1", "t2"] and (table["share"] > 0.99).all()
    assert table["size"].sum() == (found >= 0).sum() > 11_000  # sizes count every row, not the sample's


def test_a_maps_nearest_points_are_exact_and_duplicates_leave_the_point_itself_out():
    rng = np.random.default_rng(2)
    Y = rng.normal(size=(3_000, 2))
    Y[10] = Y[11]  # a duplicate ties with the point itself
    ours = metrics.nearest(Y, 8)
    theirs = NearestNeighbors(n_neighbors=8).fit(Y).kneighbors(return_distance=False)
    assert ours.shape == (3_000, 8) and not (ours == np.arange(3_000)[:, None]).any()
    assert (np.sort(ours, axis=1) == np.sort(theirs, axis=1)).mean() > 0.999
    assert 11 in ours[10] and 10 in ours[11]


def test_approximate_neighbours_find_most_exact_ones_and_the_sample_says_what_they_cost():
    rng = np.random.default_rng(3)
    centres = rng.normal(scale=4, size=(12, 24))
    X = centres[rng.integers(0, 12, 8_000)] + rng.normal(size=(8_000, 24))
    Y = X[:, :2] + 0.5 * X[:, 2:4]
    approx = metrics.nearest(X, 10, approximate=True)
    exact = NearestNeighbors(n_neighbors=10).fit(X).kneighbors(return_distance=False)
    found = (approx[:, :, None] == exact[:, None, :]).any(axis=2).mean()
    assert found > 0.9
    check = metrics.recall_on_sample(X, Y, 10, 500)
    assert check["rows"] == 500 and check["found"] > 0.9
    assert abs(check["difference"]) < 0.02
    assert check["exact"] == pytest.approx(metrics.neighbour_recall(X, Y, 10, per_point=True)[
        np.sort(np.random.default_rng(0).choice(8_000, 500, replace=False))].mean())


def test_a_big_float32_parquet_stays_float32_and_a_small_one_is_read_as_float64():
    rng = np.random.default_rng(4)
    big = pd.DataFrame(rng.normal(size=(160_000, 64)).astype(np.float32), columns=[f"e{j}" for j in range(64)])
    v = read_vectors(_parquet(big.assign(label="a")), "big.parquet")
    assert v.X.dtype == np.float32 and v.X.shape == (160_000, 64)
    np.testing.assert_array_equal(v.X[:3], big.to_numpy()[:3])
    small = read_vectors(_parquet(big.head(100)), "small.parquet")
    assert small.X.dtype == np.float64
