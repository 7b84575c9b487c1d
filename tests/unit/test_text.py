"""embedcore.text against hand computations, brute force and reference implementations (scikit-learn, numpy's
full SVD), and every validation error."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
import scipy.sparse as sp

from embedcore import datasets
from embedcore.text import (
    LSA,
    BagOfWords,
    TfIdf,
    colliding_terms,
    collision_table,
    document_frequency,
    bucket_loads,
    bucket_matrix,
    hashing_distortion,
    inverse_document_frequency,
    merge_dot,
    merge_pairs,
    ngram_counts,
    ngram_growth,
    sklearn_tfidf,
    sparsity,
    svd_geometry,
    term_frequency,
    term_hashes,
    top_terms,
)
from embedcore.words import tokenize

#: Three documents small enough to weigh by hand. Vocabulary by count: a (3), b (2), c (1).
DOCS = ["a b a", "b c", "a"]


@pytest.fixture(scope="module")
def lee():
    return [tokenize(d) for d in datasets.load_corpus("lee").documents[:60]]


# ---------------------------------------------------------------- bag of words, tf and idf


def test_the_bag_of_words_of_three_documents():
    bow = BagOfWords().fit(DOCS)
    assert list(bow.vocabulary_) == ["a", "b", "c"] and bow.term_counts_.tolist() == [3, 2, 1]
    X = bow.transform(DOCS)
    assert X.toarray().tolist() == [[2, 1, 0], [0, 1, 1], [1, 0, 0]]
    assert document_frequency(X).tolist() == [2, 2, 1]
    s = sparsity(X)
    assert (s.stored, s.density, s.dense_bytes) == (5, 5 / 9, 72)


def test_tf_and_idf_match_a_hand_computation():
    X = BagOfWords().fit_transform(DOCS)
    l15, l3 = math.log(3 / 2), math.log(3)
    # tf = f / |d|: |d| = 3, 2, 1
    assert np.allclose(term_frequency(X).toarray(), [[2 / 3, 1 / 3, 0], [0, 1 / 2, 1 / 2], [1, 0, 0]])
    assert np.allclose(term_frequency(X, "log").toarray(), [[math.log(3), math.log(2), 0], [0, math.log(2),
                                                            math.log(2)], [math.log(2), 0, 0]])
    assert np.allclose(inverse_document_frequency([2, 2, 1], 3), [l15, l15, l3])
    assert np.allclose(inverse_document_frequency([2, 2, 1], 3, "smooth"),
                       [math.log(4 / 3) + 1, math.log(4 / 3) + 1, math.log(2) + 1])
    W = TfIdf().fit_transform(X).toarray()
    assert np.allclose(W, [[2 / 3 * l15, 1 / 3 * l15, 0], [0, 1 / 2 * l15, 1 / 2 * l3], [1 * l15, 0, 0]])
    W = TfIdf(tf="log").fit_transform(X).toarray()
    assert np.allclose(W[1], [0, math.log(2) * l15, math.log(2) * l3])
    # a term in every document weighs 0; one in a single document weighs ln n
    assert inverse_document_frequency([3, 1], 3).tolist() == [0.0, l3]


def test_the_sklearn_scheme_matches_tfidf_vectorizer(lee):
    from sklearn.feature_extraction.text import TfidfVectorizer

    bow = BagOfWords().fit(lee)
    ours = TfIdf(tf="count", idf="smooth", norm="l2").fit_transform(bow.transform(lee)).toarray()
    vec = TfidfVectorizer(analyzer=lambda doc: doc)
    theirs = vec.fit_transform(lee).toarray()
    column = {t: j for j, t in enumerate(vec.get_feature_names_out())}
    theirs = theirs[:, [column[t] for t in bow.vocabulary_]]
    assert np.abs(ours - theirs).max() < 1e-12
    assert abs(sklearn_tfidf(bow.transform(lee)).toarray() - ours).max() < 1e-12
    # the textbook scheme is not scikit-learn's
    assert np.abs(TfIdf(norm="l2").fit_transform(bow.transform(lee)).toarray() - theirs).max() > 0.05


def test_dense_in_dense_out_and_an_empty_document():
    X = np.array([[2.0, 0.0], [0.0, 0.0]])
    W = TfIdf(tf="frequency", idf="none", norm="l2").fit_transform(X)
    assert isinstance(W, np.ndarray) and W.tolist() == [[1.0, 0.0], [0.0, 0.0]]


# ---------------------------------------------------------------- sparse inner products


def test_the_merge_equals_the_dense_dot_within_its_bound():
    rng = np.random.default_rng(0)
    for _ in range(50):
        V = int(rng.integers(1, 300))
        a = np.sort(rng.choice(V, int(rng.integers(0, V + 1)), replace=False))
        b = np.sort(rng.choice(V, int(rng.integers(0, V + 1)), replace=False))
        av, bv = rng.normal(size=a.size), rng.normal(size=b.size)
        dense_a, dense_b = np.zeros(V), np.zeros(V)
        dense_a[a], dense_b[b] = av, bv
        dot, steps, matches = merge_dot(a, av, b, bv)
        assert dot == pytest.approx(dense_a @ dense_b, abs=1e-12)
        assert matches == np.intersect1d(a, b).size
        assert steps <= a.size + b.size - matches


def test_merge_pairs_agrees_with_the_matrix_product(lee):
    X = BagOfWords().fit_transform(lee)
    rng = np.random.default_rng(1)
    a, b = rng.integers(0, X.shape[0], 40), rng.integers(0, X.shape[0], 40)
    table = merge_pairs(X, a, b)
    G = (X @ X.T).toarray()
    assert np.allclose(table["dot"], G[a, b])
    assert (table["steps"] <= table["|a|"] + table["|b|"]).all()


def test_merge_refuses_unsorted_or_uneven_input():
    with pytest.raises(ValueError, match="strictly increasing"):
        merge_dot([3, 1], [1.0, 1.0], [1], [1.0])
    with pytest.raises(ValueError, match="one value per index"):
        merge_dot([1, 2], [1.0], [1], [1.0])
    with pytest.raises(ValueError, match="rows between 0 and 1"):
        merge_pairs(np.eye(2), [0], [2])


# ---------------------------------------------------------------- n-grams


def _brute_ngrams(docs, n):
    return Counter(" ".join(d[i:i + n]) for d in docs for i in range(len(d) - n + 1))


def test_ngram_counts_match_a_brute_force_count():
    docs = [tokenize("the cat sat on the mat the cat ran"), tokenize("the cat"), [], tokenize("mat the cat sat")]
    for n in (1, 2, 3, 4):
        assert ngram_counts(docs, n).to_dict() == dict(_brute_ngrams(docs, n))
    # "mat the" crosses no document boundary: the last word of one document and the first of the next never pair
    assert "ran the" not in ngram_counts(docs, 2)
    assert ngram_counts(docs, 2).index[0] == "the cat"
    assert ngram_counts(docs, 10).empty


def test_ngram_growth_matches_brute_force_on_every_prefix(lee):
    docs = lee[:30]
    table = ngram_growth(docs, max_n=3, points=7, random_state=4)
    order = np.random.RandomState(4).permutation(len(docs))
    flat = [(d, t) for k, d in enumerate(order) for t in docs[d]]
    for _, row in table.iterrows():
        part, n = flat[: int(row["tokens"])], int(row["n"])
        # the documents read so far, the last one maybe cut
        cut = {}
        for d, t in part:
            cut.setdefault(d, []).append(t)
        counts = _brute_ngrams(list(cut.values()), n)
        assert row["distinct"] == len(counts)
        assert row["seen once"] == sum(c == 1 for c in counts.values())
        assert row["n-grams"] == sum(counts.values())
    full = table[table["share"] == 1.0].set_index("n")
    assert full.loc[3, "share seen once"] > full.loc[1, "share seen once"]


def test_ngram_validation():
    with pytest.raises(ValueError, match="n must be a positive integer"):
        ngram_counts([["a"]], 0)
    with pytest.raises(ValueError, match="max_n must be a positive integer"):
        ngram_growth([["a"]], max_n=0)
    with pytest.raises(ValueError, match="no tokens"):
        ngram_growth([[], []])


# ---------------------------------------------------------------- feature hashing


def test_hashing_matches_scikit_learns_feature_hasher(lee):
    from sklearn.feature_extraction import FeatureHasher

    bow = BagOfWords().fit(lee)
    X = bow.transform(lee)
    h = term_hashes(bow.vocabulary_)
    for m in (16, 1024):
        theirs = FeatureHasher(n_features=m, input_type="string").transform(lee).toarray()
        assert np.allclose((X @ bucket_matrix(h, m)).toarray(), theirs)


def test_collision_share_matches_the_uniform_hash_formula():
    terms = [f"term{i}" for i in range(3000)]
    table = collision_table(term_hashes(terms, seed=7), range(8, 17))
    for _, row in table.iterrows():
        p = row["expected colliding share"]
        sd = math.sqrt(p * (1 - p) / row["terms"])  # the spread of a share, were terms independent
        assert abs(row["colliding share"] - p) < max(6 * sd, 0.01), row.to_dict()
        assert abs(row["buckets used"] / row["expected buckets used"] - 1) < 0.05
    crowded = colliding_terms(terms, term_hashes(terms, seed=7), 256, top=3)
    assert len(crowded) == 3 and (crowded["terms"] >= 2).all()


def test_bucket_loads_count_every_term_once_and_agree_with_the_collision_table_and_the_matrix():
    terms = [f"term{i}" for i in range(3000)]
    h = term_hashes(terms, seed=7)
    table = collision_table(h, [6, 10])
    for (_, row), m in zip(table.iterrows(), (64, 1024)):
        load = bucket_loads(h, m)
        assert load.shape == (m,) and load.sum() == len(terms)
        assert (load > 0).sum() == row["buckets used"]
        assert load[load > 1].sum() / len(terms) == pytest.approx(row["colliding share"])
        np.testing.assert_array_equal(load, np.asarray(abs(bucket_matrix(h, m)).sum(axis=0)).ravel())
    assert colliding_terms(terms, h, 64, top=1)["terms"].iloc[0] == bucket_loads(h, 64).max()
    with pytest.raises(ValueError, match="positive integer"):
        bucket_loads(h, 0)


def test_signs_make_hashed_inner_products_unbiased(lee):
    X = BagOfWords().fit_transform(lee)
    W = TfIdf(tf="count", idf="smooth", norm="l2").fit_transform(X)
    h = term_hashes(BagOfWords().fit(lee).vocabulary_)
    table = hashing_distortion(W, h, [6, 8, 10], n_documents=60, random_state=0)
    assert (abs(table["bias (signed)"]) < 0.25 * table["bias (unsigned)"]).all()
    assert (table["bias (unsigned)"] > 0).all()
    assert table["rmse (signed)"].is_monotonic_decreasing
    assert table["pairs"].iloc[0] == 60 * 59 // 2
    with pytest.raises(ValueError, match="at least two documents"):
        hashing_distortion(W[:1], h, [4])


# ---------------------------------------------------------------- LSA


def _same_up_to_sign(a, b, tol):
    flip = np.sign(np.sum(a * b, axis=0))
    return np.abs(a - b * flip).max() < tol


@pytest.mark.parametrize("shape,limits", [((12, 9), (250_000, 1000)), ((40, 90), (0, 1000)), ((90, 40), (0, 1000)),
                                          ((60, 80), (0, 0))], ids=["whole", "gram", "gram-tall", "lanczos"])
def test_lsa_matches_numpys_full_svd(shape, limits, monkeypatch):
    """Each of the three ways LSA factorises (the size limits lowered, so small matrices take each)."""
    import embedcore.lsa

    monkeypatch.setattr(embedcore.lsa, "_DENSE_ENTRIES", limits[0])
    monkeypatch.setattr(embedcore.lsa, "_GRAM_SIDE", limits[1])
    A = sp.random_array(shape, density=0.3, random_state=3, format="csr")
    k = 6
    lsa = LSA(n_components=k, random_state=0).fit(A)
    U, s, Vt = np.linalg.svd(A.toarray(), full_matrices=False)
    assert np.allclose(lsa.singular_values_, s[:k], rtol=1e-9)
    assert _same_up_to_sign(lsa.document_coordinates_, U[:, :k] * s[:k], 1e-8)
    assert _same_up_to_sign(lsa.term_coordinates(), Vt[:k].T * s[:k], 1e-8)
    assert np.allclose(lsa.transform(A), lsa.document_coordinates_)
    assert lsa.energy()[-1] == pytest.approx((s[:k] ** 2).sum() / (s**2).sum())
    geo = svd_geometry(A, lsa, random_state=0)
    assert geo["relative difference"].max() < 1e-10 and geo["residual"].max() < 1e-10
    # the heaviest term of each concept is positive
    C = lsa.components_
    assert (C[np.arange(k), np.abs(C).argmax(axis=1)] > 0).all()


def test_lsa_geometry_on_a_corpus_with_a_large_vocabulary(lee):
    X = BagOfWords().fit_transform(lee)
    assert X.shape[1] > 1500  # the eigen-solver works through products with A and A^T
    lsa = LSA(n_components=5, random_state=0).fit(X)
    geo = svd_geometry(X, lsa, random_state=0)
    assert geo["relative difference"].max() < 1e-10
    s = np.linalg.svd(X.toarray(), compute_uv=False)[:5]
    assert np.allclose(geo["eigenvalue of A^T A"], s**2, rtol=1e-9)
    table = top_terms(lsa, BagOfWords().fit(lee).vocabulary_, top=5)
    assert len(table) == 5 and table["+ terms"].iloc[0]


# ---------------------------------------------------------------- validation


def test_every_validation_error_says_what_to_change():
    with pytest.raises(ValueError, match="lower min_count"):
        BagOfWords(min_count=5).fit(DOCS)
    with pytest.raises(ValueError, match="Negative values in data"):
        TfIdf().fit(np.array([[1.0, -1.0]]))
    with pytest.raises(ValueError, match="scheme must be one of"):
        term_frequency(np.eye(2), "sqrt")
    with pytest.raises(ValueError, match="scheme must be one of"):
        inverse_document_frequency([1], 2, "probabilistic")
    with pytest.raises(ValueError, match="between 0 and n_documents=2"):
        inverse_document_frequency([3], 2)
    with pytest.raises(ValueError, match="n_documents must be a positive integer"):
        inverse_document_frequency([1], 0)
    with pytest.raises(ValueError, match="ask for at most 2"):
        LSA(n_components=3).fit(np.eye(2))
    with pytest.raises(ValueError, match="n_buckets must be a positive integer"):
        bucket_matrix([1, 2], 0)
    with pytest.raises(ValueError, match="no terms to hash"):
        collision_table([], [4])


def test_the_one_hash_without_an_absolute_value_in_int32_lands_where_scikit_learn_puts_it():
    from embedcore.text import _buckets

    for m in (1, 3, 7, 2**10, 2**20):
        # scikit-learn's _hashing_fast: (2147483647 - (n_features - 1)) % n_features for h = -2**31
        assert int(_buckets([-(2**31)], m)[0]) == (2147483647 - (m - 1)) % m
    assert _buckets([5, -5, 2**31 - 1], 4).tolist() == [1, 1, 3]


def test_the_bundled_corpora_are_read_from_gensims_test_data_without_importing_gensim():
    """Importing gensim.test.utils loads gensim whole and reads the Lee corpus: the first page to read a corpus
    paid for it. The path is the one gensim's own datapath gives."""
    import subprocess
    import sys

    code = ("import sys; from embedcore.datasets import gensim_datapath, load_corpus; "
            "docs = load_corpus('lee').documents; path = gensim_datapath('lee_background.cor'); "
            "print(len(docs), 'gensim' in sys.modules, path)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out[:2] == ["300", "False"]
    from gensim.test.utils import datapath

    assert out[2] == datapath("lee_background.cor")
