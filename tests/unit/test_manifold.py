"""LLE, the map interface and the map-quality metrics."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial import procrustes
from sklearn.datasets import make_swiss_roll
from sklearn.manifold import LocallyLinearEmbedding
from sklearn.manifold import trustworthiness as sk_trustworthiness
from sklearn.utils.estimator_checks import parametrize_with_checks

from embedcore.datasets import make_severed_sphere
from embedcore.manifold import LLE, barycenter_weights, nearest_neighbors
from embedcore.maps import METHODS, embed
from embedcore.metrics import continuity, map_quality, neighbor_recall, trustworthiness

X_ROLL, T_ROLL = make_swiss_roll(800, random_state=0)


def test_weight_rows_sum_to_one_and_live_on_neighbours():
    lle = LLE(n_neighbors=10, random_state=0).fit(X_ROLL)
    W = lle.weights_
    np.testing.assert_allclose(W.sum(axis=1), 1.0, atol=1e-12)
    assert W.shape == (800, 800) and np.all(np.diff(W.indptr) == 10)
    for i in (0, 123, 799):
        assert set(W[[i], :].indices) == set(lle.neighbors_[i])


def test_points_on_a_plane_are_rebuilt_exactly():
    rng = np.random.default_rng(0)
    uv = rng.uniform(-1, 1, (300, 2))
    X = np.column_stack([uv, uv @ [0.3, -0.7] + 2.0])  # a tilted plane in 3-D
    ind, _ = nearest_neighbors(X, 6)
    w = barycenter_weights(X, ind, reg=1e-9)
    rebuilt = np.einsum("nb,nbd->nd", w, X[ind])
    np.testing.assert_allclose(rebuilt, X, atol=1e-6)


@pytest.mark.parametrize("solver", ["dense", "arpack"])
def test_parity_with_scikit_learn(solver):
    ours = LLE(n_neighbors=12, eigen_solver=solver, random_state=0).fit(X_ROLL)
    ref = LocallyLinearEmbedding(n_neighbors=12, eigen_solver=solver, random_state=0).fit(X_ROLL)
    assert procrustes(ours.embedding_, ref.embedding_)[2] < 1e-8
    assert ours.reconstruction_error_ == pytest.approx(ref.reconstruction_error_, rel=1e-6, abs=1e-12)


def test_eigenvalues_and_embedding_are_the_bottom_of_M():
    lle = LLE(n_neighbors=10, eigen_solver="dense").fit(X_ROLL)
    M = lle.M_.toarray()
    full = np.linalg.eigvalsh(M)
    np.testing.assert_allclose(lle.eigenvalues_, full[:3], atol=1e-10)
    assert abs(lle.eigenvalues_[0]) < 1e-10
    assert lle.reconstruction_error_ == pytest.approx(full[1:3].sum(), abs=1e-12)
    np.testing.assert_allclose(lle.embedding_.T @ lle.embedding_, np.eye(2), atol=1e-8)


def test_good_neighbourhood_unrolls_the_roll_and_extremes_do_not():
    from scipy.stats import spearmanr

    X, t = make_swiss_roll(1500, random_state=0)

    def order_kept(B):
        E = LLE(n_neighbors=B, random_state=0).fit(X).embedding_
        return max(abs(spearmanr(E[:, j], t)[0]) for j in range(2))

    assert order_kept(12) > 0.99  # one map axis follows the position along the roll
    assert order_kept(40) < 0.9  # neighbourhoods reach across layers: the map folds


def test_transform_places_training_points_near_their_map_positions():
    lle = LLE(n_neighbors=12, random_state=0).fit(X_ROLL[:600])
    Z = lle.transform(X_ROLL[600:])
    assert Z.shape == (200, 2) and np.isfinite(Z).all()


def test_validation_messages():
    with pytest.raises(ValueError, match="n_neighbors=20 needs more points: each point has only 9 others"):
        LLE(n_neighbors=20).fit(X_ROLL[:10])
    dup = np.vstack([X_ROLL[:50], X_ROLL[:1]])
    with pytest.raises(ValueError, match="exact duplicate \\(e.g. row 0 and row 50\\)"):
        LLE(n_neighbors=5).fit(dup)
    with pytest.raises(ValueError, match="Hessian LLE in 2-D .* n_neighbors > .* = 5; got 5"):
        embed(X_ROLL, "hessian", n_neighbors=5)
    with pytest.raises(ValueError, match="Unknown method 'mds'"):
        embed(X_ROLL, "mds")
    with pytest.raises(ValueError, match="takes \\['perplexity', 'n_iter'\\]|takes \\['n_iter', 'perplexity'\\]"):
        embed(X_ROLL, "tsne", n_neighbors=3)
    with pytest.raises(ValueError, match="perplexity=30 needs more than 90 points"):
        embed(X_ROLL[:60], "tsne")


def test_metrics_agree_with_direct_computation():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((120, 5))
    Y = X[:, :2] + 0.3 * rng.standard_normal((120, 2))
    k = 7
    assert trustworthiness(X, Y, k) == pytest.approx(sk_trustworthiness(X, Y, n_neighbors=k), abs=1e-12)
    # continuity is trustworthiness with the spaces swapped
    assert continuity(X, Y, k) == pytest.approx(sk_trustworthiness(Y, X, n_neighbors=k), abs=1e-12)
    # recall against a brute-force count
    dX = np.linalg.norm(X[:, None] - X[None], axis=2)
    dY = np.linalg.norm(Y[:, None] - Y[None], axis=2)
    np.fill_diagonal(dX, np.inf)
    np.fill_diagonal(dY, np.inf)
    nx, ny = np.argsort(dX, 1)[:, :k], np.argsort(dY, 1)[:, :k]
    direct = np.array([len(set(a) & set(b)) / k for a, b in zip(nx, ny)])
    np.testing.assert_allclose(neighbor_recall(X, Y, k, per_point=True), direct)
    per = trustworthiness(X, Y, k, per_point=True)
    assert per.shape == (120,) and per.mean() == pytest.approx(trustworthiness(X, Y, k))
    assert map_quality(X, X, k) == {"trustworthiness": 1.0, "continuity": 1.0, "recall": 1.0}
    with pytest.raises(ValueError, match="k must be between 1 and n/2"):
        trustworthiness(X, Y, 100)


@pytest.mark.parametrize("method", [m for m in METHODS if m not in ("tsne", "umap")])
def test_every_fast_map_method_runs(method):
    X = make_severed_sphere(400, seed=0).X
    r = embed(X, method, random_state=0)
    assert r.coords.shape == (400, 2) and np.isfinite(r.coords).all() and r.seconds >= 0


def test_tsne_reports_progress_and_layouts():
    seen, layouts = [], []
    r = embed(X_ROLL[:300], "tsne", n_iter=100, progress=lambda f, t: seen.append(f),
              on_layout=lambda Y, it: layouts.append(Y.shape) and False)
    assert r.coords.shape == (300, 2) and seen[-1] == 1.0 and len(seen) > 3 and layouts[0] == (300, 2)
    assert trustworthiness(X_ROLL[:300], r.coords, 10) > 0.9


_SKIP = {
    "check_positive_only_tag_during_fit": "the check's data has duplicate rows, which LLE refuses by design "
                                          "with a message naming them",
}


@parametrize_with_checks([LLE(n_neighbors=5, eigen_solver="dense")], expected_failed_checks=lambda e: _SKIP,
                         xfail_strict=True)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)
