"""The foundations: PCA two ways, the scaling pitfall, JL, SVD, autoencoders, feature hashing."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_digits
from sklearn.decomposition import PCA

from embedcore.linear import (
    autoencoder_subspace,
    distance_distortion,
    eigen_pca,
    greedy_pca,
    hash_matrix,
    hashed_inner_product_error,
    jl_min_dim,
    low_rank,
    pca_basis,
    pca_vs_jl,
    principal_angles_deg,
    random_projection,
    standardize,
    svd_energy,
    train_autoencoder,
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


def test_scaling_pitfall_and_standardisation():
    rng = np.random.default_rng(0)
    X = rng.multivariate_normal([0, 0, 0], [[3, 1.5, 0], [1.5, 2, 0], [0, 0, 0.5]], size=500)
    X_scaled = X.copy()
    X_scaled[:, 2] *= 1000  # the smallest-variance feature, blown up
    comp, _ = eigen_pca(X_scaled, 1)
    assert abs(comp[0, 2]) > 0.999  # the first component swings onto that feature
    comp_std, _ = eigen_pca(standardize(X_scaled), 1)
    assert abs(comp_std[0, 2]) < 0.3  # standardising undoes it
    np.testing.assert_allclose(standardize(X_scaled).std(axis=0), 1.0)


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
    X = standardize(DIGITS)
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
    X = standardize(DIGITS)
    model = train_autoencoder(X, 4, kind="linear", random_state=0)
    _, basis, _ = pca_basis(X, 4)
    angles = principal_angles_deg(autoencoder_subspace(model), basis)
    assert angles.max() < 5.0, angles


def test_denoising_autoencoder_cleans_noisy_inputs_better():
    X = standardize(DIGITS)
    rng = np.random.default_rng(5)
    noisy = X + 1.0 * rng.standard_normal(X.shape)
    plain = train_autoencoder(X, 16, kind="nonlinear", random_state=0, max_iter=200)
    denoise = train_autoencoder(X, 16, kind="nonlinear", noise=1.0, random_state=0, max_iter=200)
    err_plain = ((plain.predict(noisy) - X) ** 2).mean()
    err_denoise = ((denoise.predict(noisy) - X) ** 2).mean()
    assert err_denoise < err_plain


def test_hashing_is_unbiased_and_error_falls_with_width():
    rng = np.random.default_rng(2)
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
