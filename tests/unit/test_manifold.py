"""LLE, the map interface and the map-quality metrics."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial import procrustes
from sklearn.datasets import make_swiss_roll
from sklearn.manifold import LocallyLinearEmbedding
from sklearn.manifold import trustworthiness as sk_trustworthiness

from embedcore.datasets import make_severed_sphere
from embedcore.datasets import make_swiss_roll as _page_roll
from embedcore.manifold import (
    LLE,
    barycenter_weights,
    closed_form_weights,
    lle_from_neighbors,
    lle_sweep,
    lle_with_quality,
    nearest_neighbors,
    neighbor_segments,
    reconstruction,
    sample_indices,
)
from embedcore.maps import METHODS, embed, method_defaults
from embedcore.metrics import continuity, map_quality, neighbour_recall, trustworthiness

X_ROLL, T_ROLL = make_swiss_roll(800, random_state=0)


def make_default_roll():
    """The Manifolds page's default data: 1,500 points of the swiss roll, seed 0."""
    return _page_roll(1500, 0.0, 0).X


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


@pytest.mark.parametrize("B", [4, 12])
def test_the_sparse_solve_finds_the_bottom_of_M_also_when_the_graph_falls_apart(B):
    """ARPACK's shift-invert on our own symmetric factorisation gives the dense solver's bottom
    eigenvalues and the same map; at B = 4 the two halves of the data share no neighbour (M has two
    zero eigenvalues), which needs the shifted factorisation."""
    rng = np.random.default_rng(3)
    X = X_ROLL if B == 12 else np.vstack([rng.standard_normal((300, 3)), 100 + rng.standard_normal((300, 3))])
    ind, _ = nearest_neighbors(X, B)
    sparse = lle_from_neighbors(X, ind, 2, eigen_solver="arpack", random_state=0, n_eigenvalues=6)
    dense = lle_from_neighbors(X, ind, 2, eigen_solver="dense", n_eigenvalues=6)
    np.testing.assert_allclose(sparse.eigenvalues, dense.eigenvalues, rtol=1e-5, atol=1e-10)
    if B == 12:  # distinct eigenvalues: the same map up to sign
        assert procrustes(sparse.embedding, dense.embedding)[2] < 1e-8
    else:
        assert sparse.eigenvalues[1] < 1e-10  # the second piece's zero


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
    spread = lle.embedding_.std()
    # a fitted point is its own nearest neighbour and takes almost all the weight (reg keeps the rest small)
    assert np.abs(lle.transform(X_ROLL[:600]) - lle.embedding_).max() < 0.1 * spread
    ours = LLE(n_neighbors=12, eigen_solver="dense").fit(X_ROLL[:600])
    ref = LocallyLinearEmbedding(n_neighbors=12, eigen_solver="dense").fit(X_ROLL[:600])
    flip = np.sign((ours.embedding_ * ref.embedding_).sum(axis=0))  # each axis is defined up to its sign
    np.testing.assert_allclose(ours.transform(X_ROLL[600:]) * flip, ref.transform(X_ROLL[600:]), atol=1e-8)


def test_barycenter_weights_rebuild_new_points_from_reference_points():
    rng = np.random.default_rng(0)
    plane = np.column_stack([rng.uniform(-1, 1, (200, 2)), np.zeros(200)])
    new = np.column_stack([rng.uniform(-0.5, 0.5, (20, 2)), np.zeros(20)])
    ind = np.argsort(((new[:, None] - plane[None]) ** 2).sum(axis=2), axis=1)[:, :6]
    w = barycenter_weights(new, ind, 1e-9, reference=plane)
    np.testing.assert_allclose(w.sum(axis=1), 1.0)
    np.testing.assert_allclose(np.einsum("nb,nbd->nd", w, plane[ind]), new, atol=1e-6)
    own, _ = nearest_neighbors(plane, 6)  # without a reference, the neighbours index X itself
    np.testing.assert_array_equal(barycenter_weights(plane, own), barycenter_weights(plane, own, reference=plane))


def test_validation_messages():
    with pytest.raises(ValueError, match="n_neighbors=20 needs more points: each point has only 9 others"):
        LLE(n_neighbors=20).fit(X_ROLL[:10])
    for params, message in [(dict(n_neighbors=0), "'n_neighbors' parameter of LLE must be an int in the range "
                                                  "\\[1, inf\\). Got 0"),
                            (dict(n_components=1.5), "'n_components' parameter of LLE must be an int"),
                            (dict(reg=-1.0), "'reg' parameter of LLE must be a float in the range \\[0.0, inf\\)"),
                            (dict(eigen_solver="lobpcg"), "'eigen_solver' parameter of LLE must be a str among"),
                            (dict(n_jobs="all"), "'n_jobs' parameter of LLE must be None or an instance of 'int'")]:
        with pytest.raises(ValueError, match=message):
            LLE(**params).fit(X_ROLL)
    with pytest.raises(ValueError, match="Input X contains NaN"):
        LLE().fit(np.where(np.arange(X_ROLL.size).reshape(X_ROLL.shape) == 5, np.nan, X_ROLL))
    with pytest.raises(ValueError, match="X has 2 features, but LLE is expecting 3 features"):
        LLE(n_neighbors=5).fit(X_ROLL[:100]).transform(X_ROLL[:5, :2])
    holed = X_ROLL.copy()
    holed[7, 1] = np.inf
    with pytest.raises(ValueError, match="Input X contains infinity"):
        nearest_neighbors(holed, 5)
    with pytest.raises(ValueError, match="Input X contains infinity"):
        embed(holed, "pca")
    with pytest.raises(ValueError, match="Expected 2D array, got 1D array"):
        embed(X_ROLL[:, 0], "pca")
    with pytest.raises(ValueError, match="Input Y contains NaN"):
        trustworthiness(X_ROLL, np.where(holed == np.inf, np.nan, holed)[:, :2])
    with pytest.raises(ValueError, match="Input Y contains NaN"):
        neighbour_recall(X_ROLL, np.where(holed == np.inf, np.nan, holed)[:, :2])
    with pytest.raises(ValueError, match="The data has 800 points but the map has 799"):
        continuity(X_ROLL, X_ROLL[1:, :2])
    dup = np.vstack([X_ROLL[:50], X_ROLL[:1]])
    with pytest.raises(ValueError, match="exact duplicate \\(e.g. row 0 and row 50\\)"):
        LLE(n_neighbors=5).fit(dup)
    with pytest.raises(ValueError, match="Hessian LLE in 2-D .* n_neighbors > .* = 5; got 5"):
        embed(X_ROLL, "hessian", n_neighbors=5)
    with pytest.raises(ValueError, match="Unknown method 'mds'"):
        embed(X_ROLL, "mds")
    with pytest.raises(ValueError, match="takes \\['exaggeration', 'init', 'n_iter', 'perplexity'\\]"):
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
    np.testing.assert_allclose(neighbour_recall(X, Y, k, per_point=True), direct)
    per = trustworthiness(X, Y, k, per_point=True)
    assert per.shape == (120,) and per.mean() == pytest.approx(trustworthiness(X, Y, k))
    assert map_quality(X, X, k) == (1.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="k must be between 1 and n/2"):
        trustworthiness(X, Y, 100)


@pytest.mark.parametrize("method", [m for m in METHODS if m not in ("tsne", "umap")])
def test_every_fast_map_method_keeps_neighbourhoods(method):
    X = make_severed_sphere(400, seed=0).X
    seen = []
    r = embed(X, method, random_state=0, progress=lambda f, t: seen.append(f))
    assert r.method == method and r.params == method_defaults(method) and seen == [1.0]
    assert r.coords.shape == (400, 2) and np.isfinite(r.coords).all()
    assert trustworthiness(X, r.coords, 10) > 0.8  # a map, not noise: most map neighbours are true ones
    again = embed(X, method, random_state=0)
    np.testing.assert_allclose(again.coords, r.coords, atol=1e-8)  # the same seed draws the same map


def test_embed_hands_n_jobs_to_the_libraries(monkeypatch):
    import openTSNE
    import sklearn.manifold

    seen = {}

    def recorder(name, base):
        class Recording(base):
            def __init__(self, **kwargs):
                seen[name] = kwargs.get("n_jobs")
                super().__init__(**kwargs)

        return Recording

    for name in ("Isomap", "SpectralEmbedding", "LocallyLinearEmbedding"):
        monkeypatch.setattr(sklearn.manifold, name, recorder(name, getattr(sklearn.manifold, name)))
    monkeypatch.setattr(openTSNE, "TSNE", recorder("TSNE", openTSNE.TSNE))
    X = X_ROLL[:120]
    for method in ("isomap", "spectral", "modified"):
        embed(X, method, n_jobs=2)
    embed(X, "tsne", n_iter=10, perplexity=10.0, n_jobs=2)
    assert seen == {"Isomap": 2, "SpectralEmbedding": 2, "LocallyLinearEmbedding": 2, "TSNE": 2}
    embed(X, "isomap")
    embed(X, "tsne", n_iter=10, perplexity=10.0)
    assert seen["Isomap"] is None and seen["TSNE"] == 1  # nothing takes every core unasked
    lle = LLE(n_neighbors=10, random_state=0)
    np.testing.assert_array_equal(lle.set_params(n_jobs=2).fit(X).embedding_,
                                  lle.set_params(n_jobs=None).fit(X).embedding_)


def test_tsne_reports_progress_and_layouts():
    """Progress and layouts count the iterations of both phases (openTSNE counts each from 0): the bar never
    goes back and the layouts' iterations run up to the 250 of early exaggeration plus n_iter."""
    seen, texts, layouts = [], [], []
    r = embed(X_ROLL[:300], "tsne", n_iter=100, progress=lambda f, t: seen.append(f) or texts.append(t),
              on_layout=lambda Y, it: layouts.append((it, Y.shape)) and False)
    assert r.coords.shape == (300, 2) and seen[-1] == 1.0 and len(seen) > 3 and layouts[0][1] == (300, 2)
    its = [it for it, _ in layouts]
    assert its == list(range(5, 351, 5))  # every fifth iteration, 5 to 350, none twice
    assert np.all(np.diff(seen) >= 0) and seen[-2] == pytest.approx(0.99)
    assert texts[-2].startswith("t-SNE iteration 350 of 350, KL divergence ")
    assert trustworthiness(X_ROLL[:300], r.coords, 10) > 0.9


@pytest.mark.parametrize("n", [300, 1200])  # openTSNE's exact neighbours below 1,000 points, Annoy above
def test_tsne_is_openTSNEs_own_result_point_for_point(n):
    from openTSNE import TSNE

    X = X_ROLL[:n] if n <= len(X_ROLL) else make_swiss_roll(n, noise=0.05, random_state=0)[0]
    ours = embed(X, "tsne", n_iter=20, perplexity=20.0, random_state=3).coords
    theirs = TSNE(perplexity=20.0, n_iter=20, random_state=3, negative_gradient_method="bh", n_jobs=1,
                  callbacks=lambda *a: False, callbacks_every_iters=5).fit(X)
    np.testing.assert_array_equal(ours, np.asarray(theirs))


def test_a_first_tsne_does_not_import_a_neighbour_library_it_does_not_use():
    import subprocess
    import sys

    code = ("import sys, numpy as np; from embedcore.maps import embed; "
            "embed(np.random.default_rng(0).standard_normal((200, 5)), 'tsne', n_iter=5, perplexity=10.0); "
            "print('pynndescent' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False"]


def _stable_rank_penalty(X, Y, k):
    """Trustworthiness's penalty straight from its definition: ranks by a stable sort of all distances."""
    X, Y = np.asarray(X, float), np.asarray(Y, float)
    n = len(X)
    dX = ((X[:, None] - X[None]) ** 2).sum(-1)
    dY = ((Y[:, None] - Y[None]) ** 2).sum(-1)
    np.fill_diagonal(dX, np.inf)
    np.fill_diagonal(dY, np.inf)
    ranks = np.empty((n, n), int)
    ranks[np.arange(n)[:, None], np.argsort(dX, axis=1, kind="stable")] = np.arange(1, n + 1)
    nbY = np.argsort(dY, axis=1, kind="stable")[:, :k]
    r = np.take_along_axis(ranks, nbY, axis=1)
    return 1.0 - 2.0 / (k * (2 * n - 3 * k - 1)) * np.where(r > k, r - k, 0).sum(axis=1)


@pytest.mark.parametrize("k", [1, 5, 40])
def test_trustworthiness_matches_its_definition_with_and_without_ties(k):
    rng = np.random.default_rng(1)
    smooth = rng.standard_normal((300, 4))
    grid = rng.integers(0, 4, size=(300, 3)).astype(float) + np.repeat(np.arange(3), 100)[:, None] * 10
    for X in (smooth, grid):  # integer points: many equal distances, ranked by index
        Y = X[:, :2] + 0.5 * rng.standard_normal((300, 2))
        np.testing.assert_allclose(trustworthiness(X, Y, k, per_point=True), _stable_rank_penalty(X, Y, k),
                                   atol=1e-12)
    X = rng.standard_normal((1200, 3))  # more than one block of rows
    Y = X[:, :2]
    assert trustworthiness(X, Y, k) == pytest.approx(sk_trustworthiness(X, Y, n_neighbors=k), abs=1e-12)


def test_trustworthiness_counts_ranks_the_same_in_few_and_many_dimensions(monkeypatch):
    """Few dimensions rank only the map neighbours outside the k nearest, by counting (among each point's
    nearest found once, or by the k-d tree beyond them); more use sorted distance blocks: all give the
    definition's figure, ties included."""
    from embedcore import metrics

    rng = np.random.default_rng(2)
    grid = rng.integers(0, 3, size=(400, 3)).astype(float)
    for X in (rng.standard_normal((400, 3)), grid):
        Y = X[:, :2] + 0.3 * rng.standard_normal((400, 2))
        expected = _stable_rank_penalty(X, Y, 7)
        for ranked in (metrics._RANKED, 8):  # 8: nearly every neighbour counted by the tree
            monkeypatch.setattr(metrics, "_RANKED", ranked)
            np.testing.assert_allclose(trustworthiness(X, Y, 7, per_point=True), expected, atol=1e-12)
        monkeypatch.setattr(metrics, "_DIRECT_DIMS", 0)
        np.testing.assert_allclose(trustworthiness(X, Y, 7, per_point=True), expected, atol=1e-12)
        monkeypatch.undo()


def test_data_ranks_prepared_once_give_every_map_its_own_figure():
    """The data's side of trustworthiness prepared once (as the Manifolds page keeps it per data) gives each
    new map the definition's figure, ties included, also for a k beyond the distances it prepared."""
    from embedcore import metrics
    from embedcore.metrics import DataRanks

    rng = np.random.default_rng(4)
    for X in (rng.standard_normal((400, 3)), rng.integers(0, 3, size=(400, 3)).astype(float)):
        ranks = DataRanks(X)
        for noise, k in ((0.1, 5), (1.0, 7), (0.3, metrics._RANKED + 4)):
            Y = X[:, :2] + noise * rng.standard_normal((400, 2))
            np.testing.assert_allclose(trustworthiness(X, Y, k, per_point=True, ranks=ranks),
                                       _stable_rank_penalty(X, Y, k), atol=1e-12)
    with pytest.raises(ValueError, match="prepared for data of shape"):
        trustworthiness(X[:100], X[:100, :2], 5, ranks=ranks)


def test_a_point_is_never_its_own_neighbour_even_beside_its_duplicate():
    rng = np.random.default_rng(0)
    P = rng.standard_normal((150, 4))
    X = np.vstack([P, P])  # every point twice: its twin, at distance 0, ties with the point itself
    Y = X[:, :2] + 1e-6 * rng.standard_normal((300, 2))  # the map keeps each pair together
    assert neighbour_recall(X, Y, 1) == 1.0 and continuity(X, Y, 1) == 1.0
    np.testing.assert_allclose(continuity(X, Y, 5, per_point=True), _stable_rank_penalty(Y, X, 5), atol=1e-12)
    X = np.vstack([P, P + [0.0, 0.0, 0.0, 1e-3]])
    Y = X[:, :2]  # now the map has the duplicates
    assert trustworthiness(X, Y, 1) == 1.0 and neighbour_recall(X, Y, 1) == 1.0


def test_nearest_neighbors_are_the_nearest_others_under_ties():
    grid = np.array([[i, j] for i in range(12) for j in range(12)], dtype=float)  # many equal distances
    ind, dist = nearest_neighbors(grid, 8)
    full = np.sqrt(((grid[:, None] - grid[None]) ** 2).sum(axis=2))
    np.fill_diagonal(full, np.inf)
    assert not (ind == np.arange(len(grid))[:, None]).any()
    np.testing.assert_allclose(dist, np.sort(full, axis=1)[:, :8])
    np.testing.assert_allclose(np.take_along_axis(full, ind, axis=1), dist)
    assert all(len(set(row)) == 8 for row in ind)
    again, _ = nearest_neighbors(grid, 8, n_jobs=2)
    np.testing.assert_array_equal(again, ind)


def test_sample_rows_is_a_seeded_sorted_sample():
    assert sample_indices(5000, 5000) is None
    a, b = sample_indices(12_000, 5000, random_state=3), sample_indices(12_000, 5000, random_state=3)
    assert a.shape == (5000,) and np.array_equal(a, b) and np.all(np.diff(a) > 0) and a.max() < 12_000
    assert not np.array_equal(a, sample_indices(12_000, 5000, random_state=4))
    np.testing.assert_array_equal(a, np.sort(np.random.default_rng(3).choice(12_000, 5000, replace=False)))


def test_lle_with_quality_reads_the_first_columns_of_a_wide_table():
    ind, _ = nearest_neighbors(X_ROLL, 30)
    out = lle_with_quality(X_ROLL, ind, 12, random_state=0)
    alone = lle_from_neighbors(X_ROLL, nearest_neighbors(X_ROLL, 12)[0], 2, 1e-3, random_state=0, n_eigenvalues=8)
    np.testing.assert_allclose(out.eigenvalues, alone.eigenvalues, atol=1e-10)
    assert procrustes(out.embedding, alone.embedding)[2] < 1e-8
    assert out.trustworthiness == pytest.approx(trustworthiness(X_ROLL, out.embedding, 10))
    assert out.n_neighbors == 12 and out.quality_k == 10 and "M" not in out._fields
    small = lle_with_quality(X_ROLL[:12], nearest_neighbors(X_ROLL[:12], 5)[0], 5)
    assert small.quality_k == 5  # below n/2
    bare = lle_with_quality(X_ROLL, ind, 12, random_state=0, quality_k=None)
    assert bare.trustworthiness is None and bare.quality_k is None
    np.testing.assert_array_equal(bare.embedding, out.embedding)
    with pytest.raises(ValueError, match="n_neighbors=31 needs a neighbour table at least that wide"):
        lle_with_quality(X_ROLL, ind, 31)


def test_lle_sweep_gives_each_allowed_b_and_reports_failures(monkeypatch):
    ind, _ = nearest_neighbors(X_ROLL, 40)
    out = lle_sweep(X_ROLL, ind, (3, 6, 9, 12, 20, 40), random_state=0)
    assert [r.n_neighbors for r in out] == [3, 6, 9, 12, 20, 40]
    for r in out:
        alone = lle_with_quality(X_ROLL, ind, r.n_neighbors, random_state=0)
        assert r.error is None and r.trustworthiness == pytest.approx(alone.trustworthiness)
    roll = make_default_roll()
    by_b = {r.n_neighbors: r.trustworthiness for r in lle_sweep(roll, nearest_neighbors(roll, 40)[0],
                                                                      (3, 12, 40), random_state=0)}
    assert by_b[12] > 0.99 > max(by_b[3], by_b[40])  # the page's default roll: torn and folded at the ends
    assert [r.n_neighbors for r in lle_sweep(X_ROLL[:15], nearest_neighbors(X_ROLL[:15], 14)[0], (3, 6, 9, 12, 20))] == [
        3, 6, 9, 12]

    import embedcore.manifold as manifold

    real = manifold.lle_with_quality

    def failing(X, neighbors, b, *args, **kwargs):
        if b == 6:
            raise ValueError("ARPACK could not find the bottom eigenvectors")
        return real(X, neighbors, b, *args, **kwargs)

    monkeypatch.setattr(manifold, "lle_with_quality", failing)
    out = manifold.lle_sweep(X_ROLL, ind, (3, 6, 9), random_state=0)
    assert [r.error is None for r in out] == [True, False, True]
    assert out[1].embedding is None and "ARPACK" in out[1].error


def test_reconstruction_rebuilds_a_point_from_its_weights():
    lle = LLE(n_neighbors=10, random_state=0).fit(X_ROLL)
    for i in (0, 77, 799):
        r = lle.reconstruction(i)
        nbrs = lle.neighbors_[i]
        w = lle.weights_.toarray()[i, nbrs]
        np.testing.assert_array_equal(r.neighbors, nbrs)
        np.testing.assert_allclose(r.weights, w)
        assert r.weights.sum() == pytest.approx(1.0)
        brute = sum(w[j] * X_ROLL[nbrs[j]] for j in range(10))
        np.testing.assert_allclose(r.rebuilt, brute, atol=1e-12)
        assert r.error == pytest.approx(np.sqrt(((X_ROLL[i] - brute) ** 2).sum()))
        assert r.spread == pytest.approx(np.mean([np.linalg.norm(X_ROLL[j] - X_ROLL[i]) for j in nbrs]))
        assert r.relative == pytest.approx(r.error / r.spread)
        # the (n, B) weight table gives the same answer as the sparse matrix
        dense = reconstruction(X_ROLL, lle.neighbors_, barycenter_weights(X_ROLL, lle.neighbors_, 1e-3), i)
        np.testing.assert_allclose(dense.weights, r.weights, atol=1e-12)
    with pytest.raises(ValueError, match="Point 800 does not exist: the data have points 0 to 799"):
        lle.reconstruction(800)


@pytest.mark.parametrize("reg", [1e-3, 1e-6, 0.5])
def test_closed_form_weights_agree_with_the_fit_and_minimise_the_local_error(reg):
    lle = LLE(n_neighbors=12, reg=reg, random_state=0).fit(X_ROLL)
    for i in (0, 311, 799):
        nbrs = lle.neighbors_[i]
        cf = closed_form_weights(X_ROLL, lle.neighbors_, i, reg)
        fitted = lle.weights_.toarray()[i, nbrs]
        np.testing.assert_allclose(cf.weights, fitted, rtol=1e-7, atol=1e-9)
        assert cf.weights.sum() == pytest.approx(1.0)
        # C by its definition, one entry at a time, and the ridge on its diagonal
        raw = np.array([[(X_ROLL[i] - X_ROLL[j]) @ (X_ROLL[i] - X_ROLL[k]) for k in nbrs] for j in nbrs])
        assert cf.ridge == pytest.approx(reg * np.trace(raw))
        np.testing.assert_allclose(cf.C, raw + cf.ridge * np.eye(12), rtol=1e-12)
        # the minimiser of w^T C w on 1^T w = 1: any step along the constraint costs more
        rng = np.random.default_rng(i)
        cost = cf.weights @ cf.C @ cf.weights
        for _ in range(20):
            step = rng.standard_normal(12)
            step -= step.mean()
            w = cf.weights + 1e-3 * step
            assert w @ cf.C @ w > cost


def test_closed_form_weights_say_what_to_fix():
    ind = np.array([[1, 2, 3], [0, 2, 3], [0, 1, 3], [0, 1, 2]])
    line = np.array([[0.0, 0.0], [1.0, 0.0], [2.0, 0.0], [3.0, 0.0]])
    with pytest.raises(ValueError, match="singular .* set reg above 0"):
        closed_form_weights(line, ind, 0, 0.0)
    with pytest.raises(ValueError, match="Point 4 does not exist"):
        closed_form_weights(line, ind, 4)
    with pytest.raises(ValueError, match="reg must be 0 or more"):
        closed_form_weights(line, ind, 0, -1.0)
    # two neighbours in two independent directions need no regulariser: C = diag(1, 4), w = (4, 1) / 5
    corner = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0]])
    np.testing.assert_allclose(closed_form_weights(corner, np.array([[1, 2]]), 0, 0.0).weights, [0.8, 0.2])


def test_neighbor_segments_join_each_point_to_each_neighbour():
    ind, _ = nearest_neighbors(X_ROLL[:50], 4)
    seg = neighbor_segments(X_ROLL[:50], ind)
    assert seg.shape == (50 * 4 * 3, 3) and np.isnan(seg[2::3]).all()
    edges = {(tuple(a), tuple(b)) for a, b in zip(seg[0::3], seg[1::3])}
    brute = {(tuple(X_ROLL[i]), tuple(X_ROLL[j])) for i in range(50) for j in ind[i]}
    assert edges == brute
    some = neighbor_segments(X_ROLL[:50], ind, rows=[3, 10])
    assert some.shape == (2 * 4 * 3, 3)
    assert {(tuple(a), tuple(b)) for a, b in zip(some[0::3], some[1::3])} == {
        (tuple(X_ROLL[i]), tuple(X_ROLL[j])) for i in (3, 10) for j in ind[i]}


def test_parameter_constraints_are_checked_by_scikit_learn():
    from sklearn.utils.estimator_checks import check_param_validation

    check_param_validation("LLE", LLE(n_neighbors=5, eigen_solver="dense"))


def test_lle_weights_unchanged_by_rotation_scaling_translation_but_not_by_a_stretch():
    from embedcore.manifold import weight_invariance

    X = np.random.default_rng(3).normal(size=(400, 3)) * [3.0, 1.0, 0.5]
    table = weight_invariance(X, 10, 1e-3, scale=7.0, shift=4.0, random_state=1)
    rows = {name.split(" (")[0]: row for name, row in table.set_index("transform").iterrows()}
    for name in ("rotation", "scaling by 7", "translation", "rotation, scaling and translation"):
        assert rows[name]["neighbours kept"] == 1.0
        assert rows[name]["largest weight change"] < 1e-9
    # a stretch of one axis is no similarity: neighbourhoods and weights change, and the measurement sees it
    assert rows["stretch of one axis"]["neighbours kept"] < 0.9
    assert rows["stretch of one axis"]["largest weight change"] > 1e-2
    with pytest.raises(ValueError, match="scale must be above 0"):
        weight_invariance(X, 10, scale=0.0)


def test_t_sne_exaggeration_and_start_are_applied_and_checked():
    """Exaggeration after the early phase pulls clusters tighter; a random start gives another layout; values
    out of range are refused with the range."""
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(c, 1.0, (60, 5)) for c in (0, 6, 12)])
    plain = embed(X, "tsne", perplexity=20, n_iter=250, random_state=0).coords
    tight = embed(X, "tsne", perplexity=20, n_iter=250, exaggeration=4.0, random_state=0).coords
    spread = [np.mean([np.linalg.norm(Y[i * 60:(i + 1) * 60] - Y[i * 60:(i + 1) * 60].mean(0), axis=1).mean()
                       / np.linalg.norm(Y - Y.mean(0), axis=1).mean() for i in range(3)]) for Y in (plain, tight)]
    assert spread[1] < spread[0]  # each cluster smaller against the whole map
    random = embed(X, "tsne", perplexity=20, n_iter=250, init="random", random_state=0).coords
    assert not np.allclose(random, plain)
    with pytest.raises(ValueError, match="exaggeration must be between 1 and 32"):
        embed(X, "tsne", exaggeration=0.5)
    with pytest.raises(ValueError, match="init must be one of pca, random"):
        embed(X, "tsne", init="spectral")


def test_umap_reports_its_epochs_and_gives_the_same_map_as_without():
    X = np.random.default_rng(0).normal(size=(120, 5))
    seen = []
    told = embed(X, "umap", n_neighbors=10, random_state=0, progress=lambda f, t: seen.append((f, t))).coords
    epochs = [t for _, t in seen if t.startswith("UMAP epoch")]
    assert seen[0][1].startswith("UMAP: the neighbour graph") and seen[-1] == (1.0, "UMAP done")
    assert epochs and epochs[-1] == "UMAP epoch 500 of 500"
    fractions = [f for f, _ in seen]
    assert fractions == sorted(fractions)
    assert np.array_equal(told, embed(X, "umap", n_neighbors=10, random_state=0).coords)


def test_the_reconstruction_error_is_never_below_zero():
    """M = (I - W)^T (I - W) is positive semi-definite, so the sum of its kept eigenvalues is at least 0; on 100
    points of a flat square at B = 4 the eigensolver's rounding summed them to -1.1e-14, shown as such."""
    rng = np.random.default_rng(0)
    rng.uniform(size=(60, 2))  # the draw before this square's, in the run that found it
    flat = np.column_stack([rng.uniform(size=(100, 2)), np.zeros(100)])
    model = LLE(n_neighbors=4, n_components=2).fit(flat)
    assert model.eigenvalues_[1:3].sum() < 0  # the rounding is there ...
    assert model.reconstruction_error_ == 0.0  # ... and not reported
