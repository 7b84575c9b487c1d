"""Sparse inner products by dictionary against the merge, and a linear SVM on hashed features against unhashed."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from embedcore.datasets import load_mini_newsgroups
from embedcore.sparse_products import dict_dot, dict_pairs, hashed_svm_comparison, row_dicts
from embedcore.text import merge_dot


def test_the_dictionary_product_is_exact_in_min_a_b_lookups_never_more_than_the_merge():
    rng = np.random.default_rng(0)
    X = sp.random_array((40, 500), density=0.05, random_state=1, format="csr")
    X.data = np.round(X.data * 10)
    X.sort_indices()
    dicts = row_dicts(X, [f"t{i}" for i in range(500)])
    a, b = rng.integers(0, 40, 100), rng.integers(0, 40, 100)
    table = dict_pairs(dicts, a, b)
    dense = X.toarray()
    np.testing.assert_allclose(table["dot"], (dense[a] * dense[b]).sum(axis=1))
    assert (table["lookups"] == np.minimum(table["|a|"], table["|b|"])).all()
    for _, row in table.iterrows():
        ra, rb = X[[row["a"]]], X[[row["b"]]]
        _, steps, matches = merge_dot(ra.indices, ra.data, rb.indices, rb.data)
        assert row["lookups"] <= steps and row["matches"] == matches
    # walking a whatever its size costs |a| lookups
    walked = dict_pairs(dicts, a, b, smaller_first=False)
    assert (walked["lookups"] == walked["|a|"]).all() and np.allclose(walked["dot"], table["dot"])


def test_an_svm_on_hashed_features_keeps_its_accuracy_until_the_buckets_run_out():
    texts, labels = load_mini_newsgroups()
    table = hashed_svm_comparison(texts, labels, bits=(4, 12), n_repeats=1, random_state=0).set_index("features")
    full = table.loc["vocabulary (unhashed)"]
    assert full["accuracy"] > 0.9 and full["width"] > 5000
    assert abs(table.loc["hashed, b = 12", "diff"]) < 0.05  # 4,096 buckets: as good as the whole vocabulary
    assert table.loc["hashed, b = 4", "diff"] < -0.1  # 16 buckets: collisions blur the inner products
    # everything is fitted inside the training folds: labels that mean nothing score about chance
    shuffled = np.random.default_rng(0).permutation(labels)
    chance = hashed_svm_comparison(texts, shuffled, bits=(12,), n_repeats=1, random_state=0)
    assert (chance["accuracy"] < 0.65).all()
    with pytest.raises(ValueError, match="one label per text"):
        hashed_svm_comparison(texts, labels[:5])
    with pytest.raises(ValueError, match="bits must be whole numbers"):
        hashed_svm_comparison(texts, labels, bits=(30,))
