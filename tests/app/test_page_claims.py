"""Sentences on the pages that are claims: each checked against what the code computes."""

from __future__ import annotations

from tests.conftest import open_page


def _text(at) -> str:
    parts = [e.value for kind in ("markdown", "caption", "latex") for e in at.get(kind)]
    parts += [e.proto.help for e in at.metric if e.proto.help]
    return "\n".join(parts)


def test_categories_formula_has_the_zero_diagonal_the_matrices_use():
    at = open_page("app_pages/categories.py")
    text = _text(at)
    assert r"A_{ii} = 0" in text and "flattens near 1" not in text
    assert "algebraic connectivity' is the same eigenvalue of the unnormalised" in text


def test_manifolds_says_what_the_normalisation_is():
    at = open_page("app_pages/manifolds.py")
    text = _text(at)
    assert "unit variance" not in text and "Y^T Y = I" in text
    assert "the roll tears" not in text


def test_sets_additivity_is_stated_for_multisets():
    at = open_page("app_pages/sets.py")
    text = _text(at)
    assert "s(A ⊎ B) = s(A) + s(B)" in text and "share no item" in text
    assert "s(A ∪ B) = s(A) + s(B): sketches are additive" not in text
