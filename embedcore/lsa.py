"""Latent semantic analysis: a (tf-idf) document-term matrix factorised by a truncated SVD, documents and terms
in one concept space, and the SVD checked against the eigenvalues of A^T A."""

from __future__ import annotations

from numbers import Integral

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin, _fit_context
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted, check_random_state, validate_data

__all__ = ["LSA", "svd_geometry", "top_terms"]


#: Matrices of at most this many entries are factorised whole (numpy's SVD).
_DENSE_ENTRIES = 250_000
#: Above that, with at most this many rows or columns, through the smaller Gram matrix; else by Lanczos (svds).
_GRAM_SIDE = 1000


def _gram_svd(X, k: int):
    """The top k singular triplets from the eigenvectors of the smaller Gram matrix (A A^T or A^T A), or
    (None, None, None) when some of the k singular values are too small to recover that way.

    With a thousand rows or fewer on one side this takes milliseconds where Lanczos on A takes a second; the
    squared matrix loses only digits of singular values far below the largest, and those are checked.
    """
    A = sp.csr_array(X) if sp.issparse(X) else np.asarray(X)
    wide = A.shape[0] <= A.shape[1]
    G = A @ A.T if wide else A.T @ A
    G = G.toarray() if sp.issparse(G) else G
    w, E = np.linalg.eigh(G)
    w, E = w[::-1][:k], E[:, ::-1][:, :k]
    if w[-1] <= w[0] * 1e-12 or w[0] <= 0:
        return None, None, None
    s = np.sqrt(w)
    other = np.asarray(A.T @ E if wide else A @ E) / s
    return (E, s, other.T) if wide else (other, s, E.T)


class LSA(TransformerMixin, BaseEstimator):
    """Latent semantic analysis: the truncated SVD ``A ≈ U_k Σ_k V_k^T`` of a (weighted) document-term matrix.

    Rows of ``U_k Σ_k`` (= ``A V_k``) place the documents in a k-dimensional
    concept space; rows of ``V_k Σ_k`` place the terms in the same space,
    scaled the same way (``A^T U_k``). Each concept's sign is fixed so its
    largest term weight is positive.

    Parameters
    ----------
    n_components : int, default=2
        Concepts kept, at most min(documents, terms).
    random_state : int, RandomState or None
        The Lanczos solver's start vector.

    Attributes
    ----------
    components_ : (k, V) array
        ``V_k^T``: the terms' weights in each concept (unit rows).
    singular_values_ : (k,) array, descending
    document_coordinates_ : (n, k) array
        ``U_k Σ_k``.
    total_energy_ : float
        ``||A||_F^2``; ``singular_values_**2 / total_energy_`` is each concept's share.

    Examples
    --------
    >>> A = np.array([[2.0, 1, 0, 0], [1, 2, 0, 0], [0, 0, 1, 3]])
    >>> lsa = LSA(n_components=2).fit(A)
    >>> lsa.singular_values_.round(3).tolist()
    [3.162, 3.0]
    """

    _parameter_constraints: dict = {
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(self, *, n_components: int = 2, random_state=None):
        self.n_components = n_components
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Factorise ``X`` (documents x terms, sparse or dense)."""
        self._fit(X)
        return self

    @_fit_context(prefer_skip_nested_validation=True)
    def fit_transform(self, X, y=None):
        return self._fit(X)

    def _fit(self, X):
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, ensure_min_samples=1)
        k, small = self.n_components, min(X.shape)
        if k > small:
            raise ValueError(f"n_components={k} concepts need at least {k} documents and {k} terms; this matrix is "
                             f"{X.shape[0]} x {X.shape[1]}: ask for at most {small}.")
        U = None
        entries = X.shape[0] * X.shape[1]
        if small <= _GRAM_SIDE and entries > _DENSE_ENTRIES:
            U, s, Vt = _gram_svd(X, k)
        if U is None and (k >= small - 1 or entries <= _DENSE_ENTRIES):
            # small enough to factorise whole (and Lanczos needs k < min(shape))
            dense = X.toarray() if sp.issparse(X) else np.asarray(X)
            U, s, Vt = np.linalg.svd(dense, full_matrices=False)
            U, s, Vt = U[:, :k], s[:k], Vt[:k]
        elif U is None:
            from scipy.sparse.linalg import svds

            v0 = check_random_state(self.random_state).uniform(-1, 1, small)
            U, s, Vt = svds(sp.csr_array(X) if sp.issparse(X) else X, k=k, v0=v0)
            order = np.argsort(-s, kind="stable")
            U, s, Vt = U[:, order], s[order], Vt[order]
        flip = np.sign(Vt[np.arange(k), np.argmax(np.abs(Vt), axis=1)])
        flip[flip == 0] = 1.0
        U, Vt = U * flip, Vt * flip[:, None]
        self.components_ = Vt
        self.singular_values_ = s
        self.document_coordinates_ = U * s
        self.total_energy_ = float((X.multiply(X)).sum() if sp.issparse(X) else np.square(X).sum())
        return self.document_coordinates_

    def transform(self, X):
        """Documents in concept space: ``X V_k``."""
        check_is_fitted(self, "components_")
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        return np.asarray(X @ self.components_.T)

    def term_coordinates(self) -> np.ndarray:
        """Terms in concept space, ``V_k Σ_k`` (V x k), scaled as the documents are."""
        check_is_fitted(self, "components_")
        return self.components_.T * self.singular_values_

    def energy(self) -> np.ndarray:
        """The share of ``||A||_F^2`` kept by the first 1, 2, ..., k concepts."""
        check_is_fitted(self, "components_")
        return np.cumsum(self.singular_values_**2) / max(self.total_energy_, np.finfo(float).tiny)


def svd_geometry(X, lsa: LSA, *, random_state=None) -> pd.DataFrame:
    """A^T A = V Σ² V^T checked: the top eigenvalues of A^T A, computed on their own, next to σ².

    The eigenvalues come from a symmetric eigen-solver applied to A^T A
    (through products with A and A^T when the vocabulary is large, whole when
    it is small), not from the SVD; ``residual`` is
    ``||A^T A v_i - σ_i² v_i|| / σ_1²`` for the SVD's own v_i.

    Returns
    -------
    DataFrame with columns concept, singular value, squared, eigenvalue of A^T A, relative difference, residual.

    Examples
    --------
    >>> from embedcore.text import BagOfWords
    >>> docs = ["the cat sat on the mat", "the dog sat on the rug", "stocks fell on the news"] * 4
    >>> X = BagOfWords().fit_transform(docs)
    >>> table = svd_geometry(X, LSA(n_components=2, random_state=0).fit(X), random_state=0)
    >>> bool(np.allclose(table["squared"], table["eigenvalue of A^T A"]))
    True
    """
    check_is_fitted(lsa, "components_")
    A = sp.csr_array(X, dtype=np.float64)
    k = lsa.components_.shape[0]
    V = A.shape[1]
    if V <= 1500 or k >= V - 1:
        G = (A.T @ A).toarray()
        eig = np.linalg.eigvalsh(G)[::-1][:k]
    else:
        from scipy.sparse.linalg import LinearOperator, eigsh

        op = LinearOperator((V, V), matvec=lambda v: A.T @ (A @ v), dtype=np.float64)
        v0 = check_random_state(random_state).uniform(-1, 1, V)
        eig = np.sort(eigsh(op, k=k, which="LA", v0=v0, return_eigenvectors=False))[::-1]
    s2 = lsa.singular_values_**2
    Vk = lsa.components_.T
    resid = np.linalg.norm(A.T @ (A @ Vk) - Vk * s2, axis=0) / max(s2[0], np.finfo(float).tiny)
    return pd.DataFrame({"concept": np.arange(1, k + 1), "singular value": lsa.singular_values_, "squared": s2,
                         "eigenvalue of A^T A": eig,
                         "relative difference": np.abs(eig - s2) / max(s2[0], np.finfo(float).tiny),
                         "residual": resid})


def top_terms(lsa: LSA, vocabulary, top: int = 8) -> pd.DataFrame:
    """For each concept, the terms of largest positive and of largest negative weight.

    Examples
    --------
    >>> from embedcore.text import BagOfWords
    >>> docs = ["the cat sat on the mat", "the dog sat on the rug", "stocks fell on the news"] * 4
    >>> bow = BagOfWords().fit(docs)
    >>> top_terms(LSA(n_components=2, random_state=0).fit(bow.transform(docs)), bow.vocabulary_, top=2).shape
    (2, 4)
    """
    check_is_fitted(lsa, "components_")
    words = np.asarray(list(vocabulary), dtype=object)
    C = lsa.components_
    order = np.argsort(-C, axis=1, kind="stable")
    rows = []
    for c in range(C.shape[0]):  # one row per concept shown
        pos = [w for w, v in zip(words[order[c, :top]], C[c, order[c, :top]]) if v > 0]
        neg = [w for w, v in zip(words[order[c, ::-1][:top]], C[c, order[c, ::-1][:top]]) if v < 0]
        rows.append({"concept": c + 1, "σ": float(lsa.singular_values_[c]), "+ terms": ", ".join(pos),
                     "− terms": ", ".join(neg)})
    return pd.DataFrame(rows)
