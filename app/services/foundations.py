"""Cached experiments for the Foundations page."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from embedcore import linear


@st.cache_data(max_entries=4, show_spinner=False)
def cloud(seed: int, n: int = 400) -> np.ndarray:
    """A correlated 3-D Gaussian cloud: x and y strongly related, z small and independent."""
    rng = np.random.default_rng(seed)
    cov = [[3.0, 1.5, 0.0], [1.5, 2.0, 0.0], [0.0, 0.0, 0.3]]
    return rng.multivariate_normal([0, 0, 0], cov, size=n)


@st.cache_data(max_entries=4, show_spinner=False)
def digits_standardized() -> np.ndarray:
    from sklearn.datasets import load_digits

    return linear.standardize(load_digits().data)


@st.cache_data(max_entries=2, show_spinner=False)
def corpus_counts():
    """Word counts of the Lee news corpus (300 articles), sparse, and its TF-IDF rows, dense."""
    from sklearn.feature_extraction.text import CountVectorizer, TfidfTransformer

    from embedcore.datasets import load_corpus

    counts = CountVectorizer().fit_transform(load_corpus("lee").documents)
    tfidf = TfidfTransformer().fit_transform(counts).toarray()
    return counts, tfidf


@st.cache_data(max_entries=4, show_spinner=False)
def grey_image(step: int = 2) -> np.ndarray:
    from sklearn.datasets import load_sample_image

    img = load_sample_image("china.jpg").astype(np.float64) / 255.0
    return (img @ [0.299, 0.587, 0.114])[::step, ::step]


@st.cache_data(max_entries=8, show_spinner=False)
def standardized(key: str, _X=None) -> np.ndarray:
    return linear.standardize(_X)


def k_grid(limit: int) -> tuple:
    """Up to seven dimensions between 2 and the data's rank limit, roughly doubling."""
    grid = sorted({k for k in (2, 4, 8, 16, 32, 64, 128, 256) if k < limit} | {limit})
    return tuple(grid[-7:]) if len(grid) > 7 else tuple(grid)


@st.cache_data(max_entries=8, show_spinner=False)
def pca_vs_jl(key: str, ks: tuple, seed: int, _X=None) -> pd.DataFrame:
    return linear.pca_vs_jl(_X, list(ks), random_state=seed)


@st.cache_data(max_entries=16, show_spinner=False)
def jl_ratios(key: str, k: int, kind: str, seed: int, _X=None) -> np.ndarray:
    return linear.distance_distortion(_X, linear.random_projection(_X, k, kind, random_state=seed), n_pairs=4000,
                                      random_state=seed)


@st.cache_data(max_entries=8, show_spinner=False)
def svd(key: str, center: bool, _X=None):
    return linear.svd_energy(_X, center=center)


@st.cache_data(max_entries=16, show_spinner=False)
def linear_ae(k: int, seed: int):
    X = digits_standardized()
    model = linear.train_autoencoder(X, k, kind="linear", random_state=seed)
    _, basis, _ = linear.pca_basis(X, k)
    return linear.principal_angles_deg(linear.autoencoder_subspace(model), basis), float(
        ((model.predict(X) - X) ** 2).mean())


@st.cache_resource(max_entries=8, show_spinner=False)
def nonlinear_ae(k: int, noise: float, seed: int):
    return linear.train_autoencoder(digits_standardized(), k, kind="nonlinear", noise=noise, max_iter=200,
                                    random_state=seed)


@st.cache_data(max_entries=8, show_spinner=False)
def hashing(widths: tuple, seed: int) -> pd.DataFrame:
    counts, _ = corpus_counts()
    return linear.hashed_inner_product_error(counts, list(widths), random_state=seed)


@st.cache_data(max_entries=32, show_spinner=False)
def low_rank(key: str, k: int, center: bool, _X=None):
    return linear.low_rank(_X, k, center=center)
