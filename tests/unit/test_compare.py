"""embedcore.compare against brute force: every distance computed, every neighbour list sorted by hand."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial import procrustes as scipy_procrustes

from embedcore.compare import (
    common_neighbours,
    compare_embeddings,
    match_items,
    neighbour_overlap,
    point_neighbours,
    procrustes,
    procrustes_align,
)
from embedcore.metrics import neighbour_recall


def _brute_knn(P: np.ndarray, k: int) -> list[set[int]]:
    """Each point's k nearest others, from the full distance matrix."""
    D = np.sqrt(((P[:, None, :] - P[None, :, :]) ** 2).sum(-1))
    np.fill_diagonal(D, np.inf)
    return [set(np.argsort(row, kind="stable")[:k].tolist()) for row in D]


def _rotation(angle: float) -> np.ndarray:
    return np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])


@pytest.mark.parametrize("k", [1, 5, 12])
def test_neighbour_overlap_equals_brute_force(k):
    rng = np.random.default_rng(k)
    A = rng.normal(size=(120, 6))
    B = A[:, :2] + 0.4 * rng.normal(size=(120, 2))  # a noisy 2-D view: some neighbours kept, some lost
    got = neighbour_overlap(A, B, k)
    na, nb = _brute_knn(A, k), _brute_knn(B, k)
    expected = np.array([len(a & b) / k for a, b in zip(na, nb)])
    np.testing.assert_allclose(got.per_point, expected)
    assert got.mean == pytest.approx(expected.mean())
    assert got.variation == pytest.approx(1 - expected.mean())
    assert 0 < got.mean < 1 and got.k == k


def test_neighbour_overlap_is_symmetric_and_one_under_a_similarity():
    rng = np.random.default_rng(3)
    A, B = rng.normal(size=(80, 2)), rng.normal(size=(80, 3))
    np.testing.assert_allclose(neighbour_overlap(A, B, 7).per_point, neighbour_overlap(B, A, 7).per_point)
    moved = 3.0 * A @ _rotation(1.1) @ np.diag([1, -1]) + [5.0, -2.0]
    assert neighbour_overlap(A, moved, 7).mean == 1.0


def test_neighbour_overlap_refuses_what_it_cannot_compare():
    A = np.zeros((10, 2)) + np.arange(10)[:, None]
    with pytest.raises(ValueError, match="A has 10 items and B has 9"):
        neighbour_overlap(A, A[:9], 3)
    with pytest.raises(ValueError, match="k must be between 1 and 9"):
        neighbour_overlap(A, A, 10)
    with pytest.raises(ValueError, match="missing or infinite"):
        neighbour_overlap(A, np.where(A > 8, np.nan, A), 3)


def test_procrustes_equals_scipys_disparity_and_finds_the_best_similarity():
    rng = np.random.default_rng(5)
    ref = rng.normal(size=(60, 2))
    moving = 2.0 * ref @ _rotation(0.6) @ np.diag([-1, 1]) + [1.0, 4.0] + 0.2 * rng.normal(size=(60, 2))
    aligned, disparity = procrustes(ref, moving)
    assert disparity == pytest.approx(scipy_procrustes(ref, moving)[2])
    assert disparity == pytest.approx(procrustes(moving, ref)[1])  # symmetric
    # brute force over rotations and reflections, each with its best scale and shift
    best = np.inf
    r0 = ref - ref.mean(0)
    for reflect in (1, -1):
        for angle in np.linspace(0, 2 * np.pi, 3601):
            m = (moving - moving.mean(0)) @ np.diag([1, reflect]) @ _rotation(angle)
            m = m * (np.trace(m.T @ r0) / (m**2).sum())
            best = min(best, ((m - r0) ** 2).sum() / (r0**2).sum())
    assert disparity <= best + 1e-12 and disparity == pytest.approx(best, rel=1e-4)
    assert ((aligned - ref) ** 2).sum() / (r0**2).sum() == pytest.approx(disparity)


def test_procrustes_pads_the_narrower_embedding():
    rng = np.random.default_rng(8)
    flat = rng.normal(size=(40, 2))
    lifted = np.hstack([flat, np.zeros((40, 3))]) @ np.linalg.qr(rng.normal(size=(5, 5)))[0]  # a plane in 5-D
    aligned, disparity = procrustes(flat, lifted)
    assert aligned.shape == (40, 5) and disparity == pytest.approx(0.0, abs=1e-20)
    padded = np.hstack([flat, np.zeros((40, 3))])
    assert disparity == pytest.approx(scipy_procrustes(padded, lifted)[2], abs=1e-12)
    with pytest.raises(ValueError, match="same items"):
        procrustes(flat, lifted[:30])
    with pytest.raises(ValueError, match="same shape"):
        procrustes_align(flat[:3], flat)


def test_point_neighbours_equal_brute_force_and_the_per_point_recall():
    rng = np.random.default_rng(11)
    X = rng.normal(size=(200, 5))
    Y = X[:, :2] + 0.3 * rng.normal(size=(200, 2))
    k = 8
    recall = neighbour_recall(X, Y, k, per_point=True)
    nx, ny = _brute_knn(X, k), _brute_knn(Y, k)
    for i in (0, 17, 199):
        nb = point_neighbours(X, Y, i, k)
        assert set(nb.data.tolist()) == nx[i] and set(nb.map.tolist()) == ny[i]
        d = np.linalg.norm(X - X[i], axis=1)
        np.testing.assert_allclose(nb.data_distance, d[nb.data])
        assert (np.diff(nb.data_distance) >= 0).all() and (np.diff(nb.map_distance) >= 0).all()
        assert set(nb.shared.tolist()) == nx[i] & ny[i]
        assert nb.in_map.sum() == nb.in_data.sum() == len(nx[i] & ny[i])
        assert nb.recall == pytest.approx(recall[i])
        assert i not in nb.data and i not in nb.map


def test_point_neighbours_refuses_a_missing_point_and_too_many_neighbours():
    X = np.arange(12.0).reshape(6, 2)
    with pytest.raises(ValueError, match="numbered 0 to 5"):
        point_neighbours(X, X, 6, 2)
    with pytest.raises(ValueError, match="k must be between 1 and 5"):
        point_neighbours(X, X, 0, 6)


def test_match_items_pairs_rows_by_id():
    ia, ib = match_items(["a", "b", "c", "d"], ["d", "x", "b"])
    assert ia.tolist() == [3, 1] and ib.tolist() == [0, 2]
    with pytest.raises(ValueError, match="repeats 'a'"):
        match_items(["a", "a"], ["a"])


def test_compare_embeddings_on_shared_items():
    rng = np.random.default_rng(2)
    B = rng.normal(size=(50, 2))
    ids_b = [f"w{i}" for i in range(50)]
    # A lacks the first 5 items and holds 3 of its own, in another order, rotated and scaled
    order = rng.permutation(np.arange(5, 50))
    A = np.vstack([2 * B[order] @ _rotation(2.0), rng.normal(size=(3, 2))])
    ids_a = [f"w{i}" for i in order] + ["new1", "new2", "new3"]
    c = compare_embeddings(A, B, k=6, ids_a=ids_a, ids_b=ids_b)
    assert c.shared == 45 and c.ids.tolist() == list(range(5, 50))
    assert c.overlap.mean == 1.0 and c.disparity == pytest.approx(0.0, abs=1e-20)
    np.testing.assert_allclose(c.aligned, B[5:], atol=1e-10)
    with pytest.raises(ValueError, match="share 2 items"):
        compare_embeddings(A[:2], B[:2], k=6, ids_a=ids_a[:2], ids_b=ids_a[:2])
    with pytest.raises(ValueError, match="ids of both"):
        compare_embeddings(A, B, ids_a=ids_a)


def test_common_neighbours_counts_like_brute_force():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(150, 4))
    rows = rng.choice(150, 40, replace=False)
    items, counts = common_neighbours(X, rows, k=6, block=7)  # several blocks
    knn = _brute_knn(X, 6)
    expected = np.zeros(150, dtype=int)
    for r in rows:
        expected[list(knn[r])] += 1
    assert dict(zip(items.tolist(), counts.tolist())) == {i: c for i, c in enumerate(expected) if c}
    assert (np.diff(counts) <= 0).all()
    assert common_neighbours(X, [], k=3)[0].size == 0
    with pytest.raises(ValueError, match="between 0 and 149"):
        common_neighbours(X, [150], k=3)
