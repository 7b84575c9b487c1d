"""Raw co-occurrence counts factorised (A = E D E^T) against PMI, and the examples CBOW and skip-gram learn from."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from embedcore.word_windows import (
    count_vectors,
    example_counts,
    frequency_pull,
    sentences,
    window_examples,
)
from embedcore.words import PMIWordVectors, cooccurrence


def test_count_vectors_are_eigenvectors_of_the_count_matrix():
    rng = np.random.default_rng(1)
    A = rng.poisson(2.0, (30, 30)).astype(float)
    A = A + A.T
    np.fill_diagonal(A, 0)
    cv = count_vectors(A, [f"w{i}" for i in range(30)], 5, eig_weight=0.0)
    E, D = cv.vectors, cv.eigenvalues
    np.testing.assert_allclose(E.T @ E, np.eye(5), atol=1e-8)
    np.testing.assert_allclose(A @ E, E * D, atol=1e-7)
    np.testing.assert_allclose(D, np.sort(np.linalg.eigvalsh(A))[::-1][:5])
    scaled = count_vectors(A, [f"w{i}" for i in range(30)], 5, eig_weight=1.0).vectors
    np.testing.assert_allclose(np.abs(scaled), np.abs(E * D))
    with pytest.raises(ValueError, match="symmetric"):
        count_vectors(np.triu(A), list("x" * 30), 2)
    with pytest.raises(ValueError, match="between 1 and 29"):
        count_vectors(A, list("x" * 30), 30)


def test_raw_counts_are_ruled_by_frequency_and_pmi_divides_it_out():
    from embedcore.datasets import load_corpus
    from embedcore.tokens import tokenize

    docs = load_corpus("lee").documents
    wv = PMIWordVectors(n_components=30, window=5, min_count=5, random_state=0).fit(docs)
    words = pd.Index(wv.words_)
    raw = count_vectors(cooccurrence([tokenize(d) for d in docs], words, window=5), words, 30, eig_weight=0.5)
    # the leading eigenvector of raw counts is (almost) each word's count
    assert np.corrcoef(np.abs(raw.vectors[:, 0]), raw.counts)[0, 1] > 0.95
    # so the 50 most frequent words turn up among everyone's nearest words; under PMI about as often as by chance
    chance = 50 / len(words)
    raw_pull, pmi_pull = frequency_pull(raw.vectors, raw.counts), frequency_pull(wv.normed_, raw.counts)
    assert raw_pull > 1.5 * pmi_pull and raw_pull > 1.8 * chance and pmi_pull < 1.4 * chance


def test_cbow_has_one_example_per_word_and_skip_gram_one_per_pair_in_the_window():
    tokens = ["the", "quick", "brown", "fox", "jumps", "over", "the", "lazy", "dog"]
    cbow, sg = window_examples(tokens, 2)
    assert len(cbow) == 9 and (cbow["word (output)"] == tokens).all()
    assert cbow["context (input)"].iloc[0] == "quick, brown"
    assert cbow["context (input)"].iloc[4] == "brown, fox, over, the"
    assert (len(cbow), len(sg)) == example_counts([9], 2)
    # every pair appears both ways, at distances 1 and 2 only
    pairs = set(zip(sg["word (input)"] + sg["position"].astype(str), sg["context word (output)"]))
    assert len(pairs) == len(sg) and set(sg["distance"]) == {1, 2}
    # words outside the vocabulary are dropped first, so the window reaches past them
    cbow2, _ = window_examples(tokens, 1, vocabulary=set(tokens) - {"fox"})
    assert cbow2.loc[cbow2["word (output)"] == "brown", "context (input)"].item() == "quick, jumps"
    with pytest.raises(ValueError, match="positive integer"):
        window_examples(tokens, 0)


def test_example_counts_match_the_examples_written_out():
    rng = np.random.default_rng(0)
    lengths = rng.integers(0, 12, 30)
    for window in (1, 3, 5):
        written = [window_examples([f"w{i}" for i in range(n)], window) for n in lengths if n > 1]
        assert example_counts(lengths, window) == (sum(len(c) for c, _ in written), sum(len(s) for _, s in written))
    assert sentences("Fires burn. Crews fight them! Do they win?") == ["Fires burn.", "Crews fight them!",
                                                                       "Do they win?"]
