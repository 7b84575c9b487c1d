"""The foundations: PCA two ways, the scaling pitfall, JL, SVD, autoencoders, feature hashing."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_digits
from sklearn.decomposition import PCA
from sklearn.neural_network import MLPRegressor

from embedcore import foundations as linear
from embedcore.foundations import (
    autoencoder_subspace,
    axis_angle_deg,
    correlated_cloud,
    denoising_panel,
    distance_distortion,
    distance_pairs,
    eigen_pca,
    energy_profile,
    greedy_pca,
    grey_uint8,
    hash_matrix,
    hashed_inner_product_error,
    inverse_sqrt_trend,
    jl_bound_curve,
    jl_min_dim,
    k_grid,
    line_angles_deg,
    linear_autoencoder_vs_pca,
    low_rank,
    nested_random_projection,
    pca_basis,
    pca_vs_jl,
    prefix_distortion,
    principal_angles_deg,
    projection_block,
    random_projection,
    rank_k,
    reconstruction_mse,
    sample_rows,
    scaling_experiment,
    share_within,
    standardise,
    svd_energy,
    svd_layers,
    train_autoencoder,
    worst_distortion,
)

DIGITS = load_digits().data


def test_greedy_pca_equals_eigen_pca_and_scikit_learn_up_to_sign():
    g, gv = greedy_pca(DIGITS, 6)
    e, ev = eigen_pca(DIGITS, 6)
    sk = PCA(6).fit(DIGITS)
    np.testing.assert_allclose(np.abs((g * e).sum(axis=1)), 1.0, atol=1e-6)
    np.testing.assert_allclose(np.abs((e * sk.components_).sum(axis=1)), 1.0, atol=1e-8)
    np.testing.assert_allclose(gv, sk.explained_variance_, rtol=1e-6)
    np.testing.assert_allclose(ev, sk.explained_variance_, rtol=1e-8)


def test_every_pca_fixes_signs_as_scikit_learn_does():
    # the largest loading of each direction is positive (svd_flip on the components), so the three
    # constructions and scikit-learn's PCA give the same directions, not only the same lines
    sk = PCA(6, svd_solver="full").fit(DIGITS)
    g, _ = greedy_pca(DIGITS, 6)
    e, _ = eigen_pca(DIGITS, 6)
    _, basis, _ = pca_basis(DIGITS, 6)
    for comps, tol in ((e, 1e-8), (basis.T, 1e-8), (g, 1e-4)):
        np.testing.assert_allclose(comps, sk.components_, atol=tol)
        top = np.abs(comps).argmax(axis=1)
        assert (comps[np.arange(6), top] > 0).all()


def test_scaling_pitfall_and_standardisation():
    rng = np.random.default_rng(0)
    X = rng.multivariate_normal([0, 0, 0], [[3, 1.5, 0], [1.5, 2, 0], [0, 0, 0.5]], size=500)
    X_scaled = X.copy()
    X_scaled[:, 2] *= 1000  # the smallest-variance feature, blown up
    comp, _ = eigen_pca(X_scaled, 1)
    assert abs(comp[0, 2]) > 0.999  # the first component swings onto that feature
    comp_std, _ = eigen_pca(standardise(X_scaled), 1)
    assert abs(comp_std[0, 2]) < 0.3  # standardising undoes it
    np.testing.assert_allclose(standardise(X_scaled).std(axis=0), 1.0)


def test_jl_distortion_within_eps_for_95_percent_when_k_meets_the_bound():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((300, 2000))
    eps = 0.3
    k = jl_min_dim(300, eps)
    for kind in ("gaussian", "sparse"):
        Y = random_projection(X, k, kind, random_state=0)
        ratios = distance_distortion(X, Y, n_pairs=4000)
        assert np.mean(np.abs(ratios - 1) <= eps) >= 0.95, kind
    # far below the bound it fails
    Y = random_projection(X, 10, random_state=0)
    assert np.mean(np.abs(distance_distortion(X, Y) - 1) <= eps) < 0.8
    with pytest.raises(ValueError, match="eps must be between 0 and 1"):
        jl_min_dim(10, 1.5)


def test_pca_reconstructs_best_and_jl_keeps_distances_unbiased():
    X = standardise(DIGITS)
    table = pca_vs_jl(X, [5, 20])
    assert (table["pca_reconstruction"] < table["jl_reconstruction"]).all()
    ratios = distance_distortion(X, random_projection(X, 40, random_state=0))
    assert abs(np.mean(ratios) - 1) < 0.05  # JL preserves squared distances in expectation


def test_svd_energy_and_low_rank():
    s, energy, k80 = svd_energy(DIGITS)
    assert energy[-1] == pytest.approx(1.0) and energy[k80 - 1] >= 0.8 > energy[k80 - 2]
    Xk, err = low_rank(DIGITS, 10)
    # Eckart-Young: the error is the energy left in the tail
    assert err == pytest.approx(np.sqrt((s[10:] ** 2).sum() / (s**2).sum()), rel=1e-9)
    assert np.linalg.matrix_rank(Xk) == 10


def test_linear_autoencoder_finds_the_pca_subspace():
    X = standardise(DIGITS)
    model = train_autoencoder(X, 4, kind="linear", random_state=0)
    _, basis, _ = pca_basis(X, 4)
    angles = principal_angles_deg(autoencoder_subspace(model), basis)
    assert angles.max() < 1.0, angles  # L-BFGS on the full batch: within a degree of PCA's subspace


def test_denoising_autoencoder_cleans_noisy_inputs_better():
    X = standardise(DIGITS)
    rng = np.random.default_rng(5)
    noisy = X + 1.0 * rng.standard_normal(X.shape)
    plain = train_autoencoder(X, 16, kind="nonlinear", random_state=0, max_iter=200)
    denoise = train_autoencoder(X, 16, kind="nonlinear", noise=1.0, random_state=0, max_iter=200)
    err_plain = ((plain.predict(noisy) - X) ** 2).mean()
    err_denoise = ((denoise.predict(noisy) - X) ** 2).mean()
    assert err_denoise < err_plain


def test_hashing_is_unbiased_and_error_falls_with_width():
    X = sp.random_array((200, 5000), density=0.01, random_state=3, format="csr")
    x, y = X[[0]], X[[1]]
    true = float((x.multiply(y)).sum())
    est = [float((x @ hash_matrix(5000, 64, s)).multiply(y @ hash_matrix(5000, 64, s)).sum()) for s in range(400)]
    spread = np.std(est) / np.sqrt(len(est))
    assert abs(np.mean(est) - true) < 4 * spread + 1e-12  # unbiased in expectation over hash functions
    table = hashed_inner_product_error(X, [16, 256, 4096], n_seeds=3)
    assert table["rmse"].is_monotonic_decreasing
    # roughly 1/sqrt(width): 16x the width, about a quarter of the error
    ratio = table["rmse"].iloc[0] / table["rmse"].iloc[1]
    assert 2.5 < ratio < 6.5
    H = hash_matrix(10, 4)
    assert H.shape == (10, 4) and np.all(np.abs(H.sum(axis=1)) == 1)
    with pytest.raises(ValueError, match="width must be at least 1"):
        hash_matrix(10, 0)


def test_k_validation():
    with pytest.raises(ValueError, match="k must be between 1 and the number of features \\(64\\)"):
        eigen_pca(DIGITS, 65)
    with pytest.raises(ValueError, match="kind must be 'linear' or 'nonlinear'"):
        train_autoencoder(DIGITS, 2, kind="deep")


# --------------------------------------------------------------------------- the page's experiments


def test_correlated_cloud_has_the_covariance_it_promises_and_repeats_with_its_seed():
    X = correlated_cloud(20000, random_state=3)
    np.testing.assert_allclose(np.cov(X.T), [[3.0, 1.5, 0.0], [1.5, 2.0, 0.0], [0.0, 0.0, 0.3]], atol=0.1)
    np.testing.assert_array_equal(correlated_cloud(50, random_state=3), correlated_cloud(50, random_state=3))


def test_sample_rows_draws_distinct_rows_with_the_seed():
    X = np.arange(5000, dtype=float)[:, None] * [1.0, 2.0]
    S = sample_rows(X, 3000, random_state=4)
    assert S.shape == (3000, 2) and len(np.unique(S[:, 0])) == 3000
    assert np.isin(S[:, 0], X[:, 0]).all()
    np.testing.assert_array_equal(S, sample_rows(X, 3000, random_state=4))
    np.testing.assert_array_equal(sample_rows(X[:10], 3000), X[:10])


def test_standardize_is_scale_free_even_at_the_ends_of_floating_point():
    X = np.random.default_rng(0).standard_normal((80, 3)) * [1.0, 5.0, 0.1] + [0.0, 3.0, -2.0]
    Z = standardise(X)
    np.testing.assert_allclose(Z.mean(axis=0), 0, atol=1e-12)
    np.testing.assert_allclose(Z.std(axis=0), 1)
    np.testing.assert_allclose(standardise(X * 1e306), Z, atol=1e-9)
    np.testing.assert_allclose(standardise(X * 1e-300), Z, atol=1e-9)
    np.testing.assert_array_equal(standardise(np.ones((4, 2))), 0)


def test_axis_angle_matches_the_arccos_of_the_normalised_component():
    rng = np.random.default_rng(1)
    for _ in range(20):
        v = rng.standard_normal(4)
        j = int(rng.integers(4))
        expected = np.degrees(np.arccos(abs(v[j]) / np.linalg.norm(v)))
        assert axis_angle_deg(v, j) == pytest.approx(expected)
        assert axis_angle_deg(-v, j) == pytest.approx(expected)


def test_line_angles_are_the_axis_angles_for_unit_vectors_ignore_sign_and_length_and_resolve_tiny_turns():
    rng = np.random.default_rng(3)
    A = rng.standard_normal((6, 4))
    np.testing.assert_allclose(line_angles_deg(A, -3 * A), 0, atol=1e-12)
    for j in range(4):  # against a coordinate axis it is the axis angle
        axis = np.zeros((6, 4))
        axis[:, j] = 1.0
        np.testing.assert_allclose(line_angles_deg(A, axis), [axis_angle_deg(a, j) for a in A])
    B = rng.standard_normal((6, 4))
    expected = np.degrees(np.arccos(np.clip(np.abs((A * B).sum(1)) / np.linalg.norm(A, axis=1)
                                            / np.linalg.norm(B, axis=1), 0, 1)))
    np.testing.assert_allclose(line_angles_deg(A, B), expected, rtol=1e-9)
    tiny = np.array([[1.0, 1e-9, 0.0]])  # a nanoradian: arccos of its cosine would give 0
    assert line_angles_deg([[1.0, 0.0, 0.0]], tiny)[0] == pytest.approx(np.degrees(1e-9), rel=1e-6)
    with pytest.raises(ValueError, match="same shape"):
        line_angles_deg(A, B[:, :3])


def test_standardising_takes_every_component_back_to_the_unscaled_ones():
    X = correlated_cloud(400, random_state=0)
    scaled, plain = (scaling_experiment(X, 0, s, standardise=True).eigen for s in (3.0, 0.0))
    assert line_angles_deg(scaled, plain).max() < 1e-6
    raw, raw_plain = (scaling_experiment(X, 0, s).eigen for s in (3.0, 0.0))
    assert line_angles_deg(raw, raw_plain)[0] > 10  # without it PC1 turns


def test_scaling_experiment_agrees_with_eigen_and_greedy_pca_done_by_hand():
    X = correlated_cloud(400, random_state=2)
    for feature, log_scale, std in ((2, 0.0, False), (2, 3.0, False), (0, 1.5, True), (1, 2.0, False)):
        result = scaling_experiment(X, feature, log_scale, standardise=std, random_state=2)
        Xs = X.copy()
        Xs[:, feature] *= 10**log_scale
        P = standardise(Xs) if std else Xs - Xs.mean(axis=0)
        np.testing.assert_allclose(result.points, P)
        comps, var = eigen_pca(P, 3)
        np.testing.assert_allclose(result.eigen, comps)
        np.testing.assert_allclose(result.variances, var)
        np.testing.assert_allclose(result.explained.sum(), 1.0)
        assert result.agreement == pytest.approx(1.0, abs=1e-6)
        assert result.angle_deg == pytest.approx(np.degrees(np.arccos(min(1.0, abs(comps[0, feature])))))
    # the pitfall: the scaled feature takes PC1; standardising gives it back
    assert scaling_experiment(X, 2, 3.0).angle_deg < 1 < 60 < scaling_experiment(X, 2, 3.0, standardise=True).angle_deg


def test_k_grid_roughly_doubles_up_to_the_limit():
    for limit in (1, 2, 3, 7, 64, 150, 300, 7168):
        grid = k_grid(limit)
        assert grid[-1] == limit and len(grid) <= 7 and list(grid) == sorted(set(grid))
        assert all(1 <= k <= limit for k in grid)


def _pca_vs_jl_by_hand(X, ks, random_state=0, n_pairs=3000):
    """The definition, one k at a time: full SVD, QR of the random matrix, distance_distortion."""
    Xc = X - X.mean(axis=0)
    total = (Xc**2).sum()
    _, s, vt = np.linalg.svd(Xc, full_matrices=False)
    rng = np.random.default_rng(random_state)
    rows = []
    for k in ks:
        R = rng.standard_normal((X.shape[1], k)) / np.sqrt(k)
        Q, _ = np.linalg.qr(R)
        d_pca = distance_distortion(Xc, Xc @ vt[:k].T, n_pairs, random_state)
        d_jl = distance_distortion(Xc, Xc @ R, n_pairs, random_state)
        rows.append([k, 1 - (s[:k] ** 2).sum() / total, ((Xc - Xc @ Q @ Q.T) ** 2).sum() / total,
                     np.median(np.abs(d_pca - 1)), np.median(np.abs(d_jl - 1))])
    return np.array(rows)


@pytest.mark.parametrize("shape", [(200, 30), (40, 300)])  # tall and wide: either Gram matrix
def test_pca_vs_jl_equals_its_definition(shape):
    rng = np.random.default_rng(7)
    X = rng.standard_normal((shape[0], 5)) @ rng.standard_normal((5, shape[1])) + 0.3 * rng.standard_normal(shape)
    ks = list(k_grid(min(shape)))
    table = pca_vs_jl(X, ks, random_state=5)
    np.testing.assert_allclose(table[["k", "pca_reconstruction", "jl_reconstruction", "pca_distortion",
                                      "jl_distortion"]].to_numpy(), _pca_vs_jl_by_hand(X, ks, 5), atol=1e-9)


def test_distance_pairs_are_the_pairs_distance_distortion_measures():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((30, 500))
    X[5] = X[6]  # a duplicate: its pairs are left out
    Y = X @ rng.standard_normal((500, 40))
    i, j, d2 = distance_pairs(X, 3000, random_state=9)
    assert np.all(d2 > 0) and len(i) < 3000
    np.testing.assert_allclose(d2, ((X[i] - X[j]) ** 2).sum(axis=1))
    np.testing.assert_allclose(((Y[i] - Y[j]) ** 2).sum(axis=1) / d2,
                               distance_distortion(X, Y, n_pairs=3000, random_state=9))
    assert len(distance_pairs(X[:1], 50)[0]) == 0


@pytest.mark.parametrize("kind", ["gaussian", "sparse"])
def test_projection_blocks_have_unit_variance_entries_and_nest(kind):
    d = 400
    R = np.hstack([projection_block(np.eye(d), b, kind=kind, width=64, random_state=1) for b in range(4)])
    assert R.shape == (d, 256)
    assert abs(R.mean()) < 0.02 and R.var() == pytest.approx(1.0, rel=0.05)
    if kind == "sparse":
        assert np.mean(R != 0) == pytest.approx(1 / np.sqrt(d), rel=0.1)
        assert set(np.unique(np.abs(R[R != 0])).round(9)) == {round(d**0.25, 9)}
    # each block has its own stream: a larger k extends a smaller one, and seeds differ
    X = np.random.default_rng(0).standard_normal((20, d))
    np.testing.assert_allclose(projection_block(X, 2, kind=kind, width=64, random_state=1), X @ R[:, 128:192])
    assert not np.allclose(projection_block(X, 0, kind=kind, random_state=1),
                           projection_block(X, 0, kind=kind, random_state=2))
    small = nested_random_projection(X, 100, kind=kind, width=64, random_state=1)
    large = nested_random_projection(X, 250, kind=kind, width=64, random_state=1)
    np.testing.assert_allclose(small * np.sqrt(100), large[:, :100] * np.sqrt(250))
    with pytest.raises(ValueError, match="kind must be one of 'orthonormal', 'gaussian', 'sparse'"):
        projection_block(X, 0, kind="dense")
    with pytest.raises(ValueError, match="k must be at least 1"):
        nested_random_projection(X, 0)


@pytest.mark.parametrize("kind", ["orthonormal", "gaussian", "sparse"])
def test_prefix_distortion_is_the_nested_maps_distortion_and_meets_the_jl_bound(kind):
    rng = np.random.default_rng(1)
    X = rng.standard_normal((300, 2000))
    i, j, d2 = distance_pairs(X, 4000, random_state=0)
    blocks = [projection_block(X, b, kind=kind, random_state=0) for b in range(3)]
    for k in (5, 256, 600):
        Y = nested_random_projection(X, k, kind=kind, random_state=0)
        np.testing.assert_allclose(prefix_distortion(blocks, k, i, j, d2), ((Y[i] - Y[j]) ** 2).sum(axis=1) / d2)
    eps = 0.3
    k = jl_min_dim(300, eps)
    ratios = prefix_distortion(blocks, k, i, j, d2)
    assert share_within(ratios, eps) >= 0.95
    assert abs(ratios.mean() - 1) < 0.02  # unbiased
    assert share_within(prefix_distortion(blocks, 10, i, j, d2), eps) < 0.8
    with pytest.raises(ValueError, match="k=800 needs more"):
        prefix_distortion(blocks, 800, i, j, d2)


def test_share_within_counts_by_hand_and_is_nan_without_ratios():
    r = np.random.default_rng(0).uniform(0, 2, 1000)
    assert share_within(r, 0.3) == pytest.approx(np.mean([abs(v - 1) <= 0.3 for v in r]))
    assert np.isnan(share_within([], 0.3))


def test_worst_distortion_is_the_largest_departure_from_1_and_bounds_share_within():
    r = np.random.default_rng(0).uniform(0.5, 1.7, 500)
    worst = worst_distortion(r)
    assert worst == pytest.approx(max(abs(v - 1) for v in r))
    assert share_within(r, worst) == 1.0 and share_within(r, worst * 0.999) < 1.0
    assert np.isnan(worst_distortion([]))


def test_jl_bound_curve_falls_with_eps_and_is_the_bound():
    curve = jl_bound_curve(300)
    assert len(curve) == 40 and curve["k"].is_monotonic_decreasing
    assert curve["k"].iloc[0] == jl_min_dim(300, 0.05)


@pytest.mark.parametrize("center", [False, True])
def test_svd_layers_rebuild_low_rank_for_the_rows_kept(center):
    X = DIGITS[:500]
    layers = svd_layers(X, center=center, rows=120)
    assert layers.U.shape == (120, 64)
    for k in (1, 10, 40):
        Xk, err = rank_k(layers, k)
        ref, ref_err = low_rank(X, k, center=center)
        np.testing.assert_allclose(Xk, ref[:120], atol=1e-8)
        assert err == pytest.approx(ref_err, rel=1e-9)
    with pytest.raises(ValueError, match="k must be between 1"):
        rank_k(layers, 65)


def test_energy_profile_matches_svd_energy_at_any_magnitude():
    for center in (False, True):
        s, energy, k80 = svd_energy(DIGITS, center=center)
        e2, k2 = energy_profile(s)
        np.testing.assert_allclose(e2, energy)
        assert k2 == k80
        for scale in (1e300, 1e-300):
            e3, k3 = energy_profile(s * scale)
            np.testing.assert_allclose(e3, energy)
            assert k3 == k80
    energy, k = energy_profile(np.zeros(3))
    assert k == 0 and np.isnan(energy).all()
    assert energy_profile([1.0, 1.0], share=1.0)[1] == 2


def test_rank_k_error_is_finite_at_the_ends_of_floating_point():
    X = np.random.default_rng(2).standard_normal((30, 5))
    _, err = rank_k(svd_layers(X), 2)
    for scale in (1e150, 1e-150):
        _, err_scaled = rank_k(svd_layers(X * scale), 2)
        assert err_scaled == pytest.approx(err, rel=1e-9)
    Xk, err = rank_k(svd_layers(np.zeros((4, 3))), 1)
    assert np.isnan(err) and not Xk.any()
    for scale in (1e306, 1e-300):  # beyond what squaring survives
        Xk_scaled, err_scaled = rank_k(svd_layers(X * scale, center=True), 2)
        Xk_ref, err_ref = low_rank(X, 2, center=True)
        assert err_scaled == pytest.approx(err_ref, rel=1e-9)
        np.testing.assert_allclose(Xk_scaled / scale, Xk_ref, atol=1e-9)


def test_grey_uint8_clips_and_rounds():
    img = grey_uint8([[0.0, 0.25, 1.0], [-3.0, 0.999, 7.0]])
    assert img.dtype == np.uint8 and img.tolist() == [[0, 64, 255], [0, 255, 255]]


def test_linear_autoencoder_vs_pca_reports_angles_and_its_own_error():
    X = standardise(DIGITS)
    angles, mse = linear_autoencoder_vs_pca(X, 3, random_state=0)
    assert angles.shape == (3,) and np.all(np.diff(angles) >= 0) and angles.max() < 5
    model = train_autoencoder(X, 3, kind="linear", random_state=0)
    assert mse == pytest.approx(reconstruction_mse(model, X))
    # PCA's rank-3 reconstruction is the floor the autoencoder approaches
    _, err = low_rank(X, 3, center=True)
    assert mse >= err**2 * (X**2).mean() * (1 - 1e-9)


def test_denoising_panel_lays_out_stages_and_scores_them_by_hand():
    class Shrink:
        def predict(self, X):
            return 0.5 * X

    X = np.random.default_rng(0).standard_normal((200, 16))
    grid, stages, errors = denoising_panel(X, {"half": Shrink()}, 1.0, n_show=4, image_shape=(4, 4),
                                           random_state=3)
    assert stages == ["original", "corrupted", "half"] and grid.shape == (12, 16)
    rng = np.random.default_rng(3)
    idx = rng.choice(200, 4, replace=False)
    noisy = X[idx] + rng.standard_normal((4, 16))
    np.testing.assert_allclose(grid[:4, :4], X[idx[0]].reshape(4, 4))
    np.testing.assert_allclose(grid[4:8, 4:8], noisy[1].reshape(4, 4))
    assert errors["corrupted"] == pytest.approx(((noisy - X[idx]) ** 2).mean())
    assert errors["half"] == pytest.approx(((0.5 * noisy - X[idx]) ** 2).mean())


def test_inverse_sqrt_trend_halves_when_width_quadruples():
    trend = inverse_sqrt_trend([8, 32, 128, 512], 0.8)
    np.testing.assert_allclose(trend, [0.8, 0.4, 0.2, 0.1])


# --------------------------------------------------------------------------- JL as the lemma states it


@pytest.mark.parametrize("d, k", [(300, 200), (1500, 600)])  # one Householder QR; a block at a time (Cholesky)
def test_orthonormal_frame_has_orthonormal_columns_nests_and_is_gram_schmidt_of_the_gaussian_draws(d, k):
    Q = linear.orthonormal_frame(d, k, random_state=3)
    np.testing.assert_allclose(Q.T @ Q, np.eye(k), atol=1e-10)
    np.testing.assert_allclose(linear.orthonormal_frame(d, 70, random_state=3), Q[:, :70], atol=1e-10)
    assert not np.allclose(linear.orthonormal_frame(d, 70, random_state=4), Q[:, :70])
    # Gram-Schmidt of the Gaussian kind's columns: G = Q R with R upper triangular and a positive diagonal
    G = np.hstack([projection_block(np.eye(d), b, random_state=3) for b in range(-(-k // 256))])[:, :k]
    R = Q.T @ G
    np.testing.assert_allclose(np.tril(R, -1), 0, atol=1e-8)
    assert (np.diag(R) > 0).all()
    np.testing.assert_allclose(Q @ R, G, atol=1e-8)
    # the block form: sqrt(d) X Q, one block at a time, and a last block cut at d
    X = np.random.default_rng(0).standard_normal((15, d))
    np.testing.assert_allclose(projection_block(X, 1, kind="orthonormal", random_state=3),
                               np.sqrt(d) * X @ Q[:, 256:min(512, k)] if k >= 512 else
                               np.sqrt(d) * X @ linear.orthonormal_frame(d, min(512, d), random_state=3)[:, 256:],
                               atol=1e-8)
    state = linear.extend_orthonormal(X, random_state=3)
    state = linear.extend_orthonormal(X, state, random_state=3)
    np.testing.assert_allclose(np.hstack(state.XQ)[:, :k], (X @ linear.orthonormal_frame(d, min(512, d),
                                                                                        random_state=3))[:, :k],
                               atol=1e-8)


def test_an_orthonormal_frame_has_at_most_d_vectors():
    X = np.random.default_rng(0).standard_normal((10, 40))
    assert projection_block(X, 0, kind="orthonormal", width=32).shape == (10, 32)
    assert projection_block(X, 1, kind="orthonormal", width=32).shape == (10, 8)
    with pytest.raises(ValueError, match="has 40 vectors; block 2 would start at vector 64. Ask for k <= 40"):
        projection_block(X, 2, kind="orthonormal", width=32)
    with pytest.raises(ValueError, match="1 to 40 vectors; got k=41"):
        linear.orthonormal_frame(40, 41)
    # k = d: a rotation, which keeps every distance
    Y = linear.orthonormal_projection(X, 40)
    np.testing.assert_allclose(((Y[0] - Y[1:]) ** 2).sum(axis=1), ((X[0] - X[1:]) ** 2).sum(axis=1))


def test_the_sqrt_d_over_k_scaling_keeps_squared_norms_in_expectation():
    d, k = 60, 6
    x = np.random.default_rng(0).standard_normal(d)
    ratios = np.array([(linear.orthonormal_projection(x[None], k, random_state=s) ** 2).sum() / (x @ x)
                       for s in range(600)])
    # projecting alone keeps k/d of the squared length; the factor d/k restores it. The ratio's spread is
    # sqrt(2 (d - k) / (k (d + 2))) = 0.54, so 600 draws put the mean within 0.03 of 1 (one standard error)
    assert ratios.mean() == pytest.approx(1.0, abs=0.07)
    assert ratios.std() == pytest.approx(np.sqrt(2 * (d - k) / (k * (d + 2))), rel=0.15)
    unscaled = ratios * k / d
    assert unscaled.mean() == pytest.approx(k / d, abs=0.007)


def test_every_pair_holds_at_the_seeds_bound_and_pairs_fail_no_more_often_than_the_bound_says():
    n, eps = 60, 0.4
    X = np.random.default_rng(5).standard_normal((n, 2000))
    k = linear.jl_seed_dim(n, eps)
    per, every = linear.jl_failure_bounds(n, k, eps)
    assert per <= n**-3 and every <= 1 / n
    i, j = np.triu_indices(n, 1)
    before = ((X[i] - X[j]) ** 2).sum(axis=1)
    for seed in range(5):  # each run fails with chance at most 1/60: all five hold on these seeds
        Y = linear.orthonormal_projection(X, k, random_state=seed)
        ratios = ((Y[i] - Y[j]) ** 2).sum(axis=1) / before
        assert np.all(np.abs(ratios - 1) <= eps), seed
    # far below it the bound per pair is loose but true: the share outside stays under it
    Y = linear.orthonormal_projection(X, 60, random_state=0)
    outside = np.mean(np.abs(((Y[i] - Y[j]) ** 2).sum(axis=1) / before - 1) > 0.3)
    assert 0 < outside <= linear.jl_pair_failure(60, 0.3)


def test_jl_bounds_by_their_formulas_and_their_errors():
    eps = np.array([0.1, 0.3, 0.45])
    expo = eps**2 / 2 - eps**3 / 3
    np.testing.assert_allclose(linear.jl_pair_failure(500, eps), 2 * np.exp(-500 * expo / 2))
    assert linear.jl_pair_failure(1, 0.1) == 1.0  # a chance is at most 1
    per, every = linear.jl_failure_bounds(100, 2000, 0.3)
    assert every == pytest.approx(per * 4950)
    for n, e in ((300, 0.3), (1000, 0.1), (2, 0.49)):
        k = linear.jl_seed_dim(n, e)
        assert linear.jl_pair_failure(k, e) <= n**-3 < linear.jl_pair_failure(k - 1, e)
        assert k > jl_min_dim(n, e)  # scikit-learn's bound promises less
    curve = linear.jl_failure_curve(300, 0.3, 2000)
    assert curve["k"].iloc[0] == 1 and curve["k"].iloc[-1] == 2000 and curve["k"].is_monotonic_increasing
    with pytest.raises(ValueError, match="at least 2 points"):
        linear.jl_seed_dim(1, 0.3)
    with pytest.raises(ValueError, match="eps must be between 0 and 1"):
        linear.jl_pair_failure(10, 1.0)


# --------------------------------------------------------------------------- standardising new data


def _digit_split():
    y = load_digits().target
    train, test = linear.split_rows(y, 0.3, random_state=0)
    return linear.fit_batch_model(DIGITS[train], y[train], n_components=10), DIGITS[test], y[test], train


def test_the_batch_model_places_training_rows_at_their_scores_and_a_batch_of_one_at_the_origin():
    model, X_test, y_test, train = _digit_split()
    mean, scale = linear.fit_standardiser(DIGITS[train])
    np.testing.assert_allclose(mean, DIGITS[train].mean(axis=0))
    sd = DIGITS[train].std(axis=0)
    np.testing.assert_allclose(scale, np.where(sd > 0, sd, 1.0))
    np.testing.assert_allclose(linear.place_batch(model, DIGITS[train]), model.scores, atol=1e-9)
    # PCA by scikit-learn on the standardised training digits: the same subspace
    ref = PCA(10).fit(linear.standardise_with(DIGITS[train], mean, scale))
    assert principal_angles_deg(ref.components_.T, model.components.T).max() < 1e-4
    # the batch's own statistics: one row lands at the origin, and any batch is centred
    np.testing.assert_allclose(linear.place_batch(model, X_test[:1], "batch"), 0.0)
    threes = X_test[y_test == 3]
    np.testing.assert_allclose(linear.place_batch(model, threes, "batch").mean(axis=0), 0.0, atol=1e-9)
    assert np.linalg.norm(linear.place_batch(model, threes).mean(axis=0)) > 1.0
    with pytest.raises(ValueError, match="statistics must be 'training' or 'batch'"):
        linear.place_batch(model, threes, "test")


def test_own_statistics_ruin_small_and_one_digit_batches_but_not_large_random_ones():
    model, X_test, y_test, _ = _digit_split()
    random = linear.batch_experiment(model, X_test, y_test, [1, 500], random_state=0).set_index("size")
    assert random.loc[1, "training statistics"] > 0.75 and random.loc[1, "batch statistics"] < 0.2
    assert abs(random.loc[500, "training statistics"] - random.loc[500, "batch statistics"]) < 0.03
    assert random.loc[1, "displacement"] > 5 * random.loc[500, "displacement"]
    one = linear.batch_experiment(model, X_test, y_test, [20, 500], one_class=True, random_state=0).set_index("size")
    assert (one["training statistics"] > 0.75).all() and (one["batch statistics"] < 0.2).all()
    assert one.loc[500, "rows"] < 60  # a digit has about 54 held-out rows
    # the accuracy by hand for one batch
    idx = linear.draw_batch(y_test, 50, random_state=3)
    by_hand = np.mean([np.argmin(((model.centroids - z) ** 2).sum(axis=1)) == t
                       for z, t in zip(linear.place_batch(model, X_test[idx]), y_test[idx])])
    assert by_hand == pytest.approx(np.mean(linear.predict_batch(model, linear.place_batch(model, X_test[idx]))
                                            == y_test[idx]))


def test_standardising_says_what_to_fix():
    with pytest.raises(ValueError, match="non-empty"):
        linear.fit_standardiser(np.zeros((0, 3)))
    with pytest.raises(ValueError, match="X has 3 rows but y has 2 labels"):
        linear.fit_batch_model(np.zeros((3, 2)), [0, 1])
    with pytest.raises(ValueError, match="at least one row"):
        linear.draw_batch([0, 1], 0)
    with pytest.raises(ValueError, match="No test row has the class 7"):
        linear.draw_batch([0, 1], 2, one_class=7)
    with pytest.raises(ValueError, match="test_share must be between 0 and 1"):
        linear.split_rows([0, 1, 0, 1], 1.5)


# --------------------------------------------------------------------------- the contractive penalty


def test_encoder_jacobian_norm_matches_finite_differences():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((30, 5))
    ae = MLPRegressor(hidden_layer_sizes=(6, 2, 6), activation="tanh", max_iter=30, random_state=0).fit(X, X)

    def encode(x):
        h = np.tanh(x @ ae.coefs_[0] + ae.intercepts_[0])
        return np.tanh(h @ ae.coefs_[1] + ae.intercepts_[1])

    step = 1e-6
    total = 0.0
    for x in X:
        J = np.column_stack([(encode(x + step * e) - encode(x - step * e)) / (2 * step) for e in np.eye(5)])
        total += (J**2).sum()
    assert linear.encoder_jacobian_norm(ae, X) == pytest.approx(total / len(X), rel=1e-6)
    # a linear encoder's Jacobian is its weight matrix, the same at every input
    lin = MLPRegressor(hidden_layer_sizes=(2,), activation="identity", max_iter=30, random_state=0).fit(X, X)
    assert linear.encoder_jacobian_norm(lin, X) == pytest.approx((lin.coefs_[0] ** 2).sum())


def test_contractive_gradient_matches_finite_differences():
    from embedcore.foundations.contractive import ContractiveAutoencoder

    rng = np.random.default_rng(0)
    X = rng.standard_normal((7, 4))
    params = [rng.standard_normal(s) * 0.5 for s in [(4, 2), (2,), (2, 3), (3,), (3, 4), (4,)]]
    noisy = X + 0.1 * rng.standard_normal(X.shape)
    _, grads = ContractiveAutoencoder._loss_and_gradient(params, noisy, X, 0.7)
    eps = 1e-6
    for p, g in zip(params, grads):
        for idx in np.ndindex(p.shape):
            old = p[idx]
            p[idx] = old + eps
            up = ContractiveAutoencoder._loss_and_gradient(params, noisy, X, 0.7)[0]
            p[idx] = old - eps
            down = ContractiveAutoencoder._loss_and_gradient(params, noisy, X, 0.7)[0]
            p[idx] = old
            assert np.isclose(g[idx], (up - down) / (2 * eps), rtol=1e-5, atol=1e-7)


def test_contractive_penalty_lowers_the_jacobian_norm_at_the_plain_nets_reconstruction_error():
    from embedcore.foundations.contractive import contractive_comparison, jacobian_penalty

    X = linear.standardise(DIGITS)
    result = contractive_comparison(X, 8, noise=0.5, penalty=0.1, epochs=30, random_state=0)
    plain, denoising, contractive = (row for _, row in result.table.iterrows())
    assert contractive["held-out MSE"] < 1.05 * plain["held-out MSE"]
    assert contractive["mean ||J_z||_F^2"] < 0.5 * plain["mean ||J_z||_F^2"]
    # denoising also calms the encoder, but pays for it in reconstruction
    assert denoising["held-out MSE"] > contractive["held-out MSE"]
    # the training penalty's closed form is the Jacobian encoder_jacobian_norm measures from the layers
    net = result.networks["contractive (λ = 0.1)"]
    assert np.isclose(jacobian_penalty(X, net.coefs_[0], net.intercepts_[0]).mean(),
                      linear.encoder_jacobian_norm(net, X))
