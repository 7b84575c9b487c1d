"""Sentences on the pages that are claims: each checked against what the code computes."""

from __future__ import annotations

from tests.conftest import open_page


def _text(at) -> str:
    parts = [e.value for kind in ("markdown", "caption", "latex") for e in at.get(kind)]
    parts += [e.proto.help for e in at.metric if e.proto.help]
    return "\n".join(parts)


def test_categories_formula_has_the_zero_diagonal_the_matrices_use():
    at = open_page("app_pages/categories.py")
    assert r"A_{ii} = 0" not in _text(at)  # the theory is written only while its expander is open
    at.session_state["cat.theory"] = True
    text = _text(at.run())
    assert r"A_{ii} = 0" in text and "flattens near 1" not in text
    assert "algebraic connectivity' is the same eigenvalue of the unnormalised" in text


def _manifolds_with_its_text_open():
    """The Manifolds page with its theory and its 'Embeddings and latent factors' expanders open (the page
    writes their text only while they are open)."""
    at = open_page("app_pages/manifolds.py")
    assert "Y^T Y = I" not in _text(at)  # closed: not sent
    at.session_state["man.theory"] = True
    at.session_state["man.latent_open"] = True
    return at.run()


def test_manifolds_says_what_the_normalisation_is():
    at = _manifolds_with_its_text_open()
    text = _text(at)
    assert "unit variance" not in text and "Y^T Y = I" in text
    assert "the roll tears" not in text


def test_sets_additivity_is_stated_for_multisets():
    at = open_page("app_pages/sets.py")
    text = _text(at)
    assert "s(A ⊎ B) = s(A) + s(B)" in text and "share no item" in text
    assert "s(A ∪ B) = s(A) + s(B): sketches are additive" not in text


def test_manifolds_says_lle_keeps_neighbourhoods_not_distances():
    at = _manifolds_with_its_text_open()
    text = _text(at)
    assert "keeps distances" not in text
    assert "LLE keeps neighbourhoods, not distances: each point's local reconstruction weights" in text


def test_graphs_random_vectors_are_d_orthogonal_under_the_normalised_laplacian():
    import json

    import numpy as np

    from embedcore.graphs import _orthogonal_to_constant, _weights
    from tests.conftest import open_tab

    at = open_tab(open_page("app_pages/graphs.py"), "graphs.tab", "Rayleigh quotient")
    titles = lambda: [json.loads(c.proto.spec)["layout"]["title"]["text"] for c in at.get("plotly_chart")]  # noqa: E731
    assert any(t.endswith("random vectors orthogonal to 1: none below λ₂") for t in titles())
    at.radio(key="graphs.laplacian").set_value("normalised").run()
    assert any(t.endswith("random vectors D-orthogonal to 1 (xᵀD1 = 0): none below λ₂") for t in titles())
    # what the code does: under the normalised Laplacian the vectors are orthogonal to 1 weighted by degree
    degree = np.array([1.0, 2.0, 3.0, 4.0])
    X = _orthogonal_to_constant(np.random.default_rng(0).standard_normal((4, 5)), _weights(degree, True))
    assert np.allclose(degree @ X, 0) and not np.allclose(X.sum(axis=0), 0)


def test_emde_says_the_sum_of_sketches_is_the_multiset_union():
    import numpy as np

    import embedcore.emde as emde
    from embedcore.emde import EMDE

    doc = " ".join(emde.__doc__.split())
    assert "(a multiset union) is the sum of their sketches; a plain union, counting a shared item once, is not" in doc
    X = np.random.default_rng(0).standard_normal((6, 3))
    e = EMDE(n_hyperplanes=3, n_partitions=4, random_state=0).fit(X)
    a, b = [0, 1, 2], [2, 3]
    pooled, union = e.sketch([a + b]).toarray(), e.sketch([sorted(set(a) | set(b))]).toarray()
    parts = e.sketch([a]).toarray() + e.sketch([b]).toarray()
    assert np.allclose(pooled, parts) and not np.allclose(union, parts)


def test_words_says_what_document_vectors_are_and_claims_no_win():
    import numpy as np

    from embedcore.words import PMIWordVectors

    at = open_page("app_pages/words.py")
    assert "tf-idf weighted sum" not in _text(at)  # the theory is written only while its expander is open
    at.session_state["words.theory"] = True
    text = _text(at.run())
    assert "document-term matrix times W" not in text and "rival Word2Vec" not in text
    assert "tf-idf weighted sum of its words' vectors, scaled to unit length" in text
    # what the code does: the idf-weighted counts times W, each row divided by its norm
    docs = [["a", "b", "a"], ["b", "c"], ["c", "a", "d"], ["d", "b"]] * 5
    wv = PMIWordVectors(window=2, n_components=2, random_state=0).fit(docs)
    M = np.zeros((1, len(wv.words_)))
    for w in docs[0]:
        M[0, wv.vocabulary_[w]] += 1
    row = (M * wv.idf_) @ wv.vectors_
    assert np.allclose(wv.transform(docs[:1], weighting="tfidf"), row / np.linalg.norm(row))
