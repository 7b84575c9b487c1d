"""Label embedding: labels as PMI-SVD vectors of their co-occurrence in label sets, label sets encoded and decoded."""

from __future__ import annotations

from numbers import Integral
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, _fit_context
from sklearn.preprocessing import normalize
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import (
    check_is_fitted,
    check_non_negative,
    validate_data,
)

from .pmi import CountInput


class Recovery(NamedTuple):
    """Shares of label sets a :class:`LabelEmbedding` gives back exactly (:meth:`LabelEmbedding.recovery`).

    Attributes
    ----------
    known_count : float
        Decoding each row with its true number of labels (an oracle: the number is part of the answer).
    threshold : float
        Decoding without it, by the label embedding's ``threshold_``.

    Examples
    --------
    >>> Y = np.array([[1, 1, 0, 0], [0, 0, 1, 1], [1, 0, 1, 0], [0, 1, 0, 1]] * 5)
    >>> LabelEmbedding(n_components=4).fit(Y).recovery(Y).known_count
    1.0
    """

    known_count: float
    threshold: float


class LabelEmbedding(CountInput, BaseEstimator):
    """Dense label vectors from the PMI of label co-occurrence, for multilabel problems.

    From an indicator matrix Y (samples x labels): ``PMI_ij = log(P(i, j) /
    (P(i) P(j)))`` over samples, its SVD, and ``E = U sqrt(Sigma)`` truncated to
    ``n_components``, rows normalised. A label set is encoded as the
    normalised sum of its labels' vectors; decoding ranks labels by cosine.

    Parameters
    ----------
    n_components : int, default=8
        Dimensions of the label vectors, at most the number of labels.

    Attributes
    ----------
    pmi_ : (m, m) array (unobserved pairs set to 0)
    embedding_ : (m, n_components) unit rows
    singular_values_ : array
    threshold_ : float, the cosine ``decode`` cuts at when the number of labels is not given
    n_labels_, n_features_in_ : int, the number of labels

    Examples
    --------
    >>> Y = np.array([[1, 1, 0, 0], [1, 1, 0, 0], [0, 0, 1, 1], [0, 0, 1, 1], [1, 0, 0, 1]])
    >>> le = LabelEmbedding(n_components=2).fit(Y)
    >>> le.decode(le.encode(Y[:1]), n_labels=2).tolist()
    [[1, 1, 0, 0]]
    """

    _parameter_constraints: dict = {"n_components": [Interval(Integral, 1, None, closed="left")]}

    def __init__(self, *, n_components: int = 8):
        self.n_components = n_components

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, Y, y=None):
        """Learn label vectors from an indicator matrix.

        Parameters
        ----------
        Y : (n_samples, n_labels) array-like or sparse, finite and non-negative
            A non-zero entry means the sample has the label; at least two labels.
        y : ignored
        """
        Y = validate_data(self, Y, accept_sparse="csr", dtype=np.float64, ensure_min_features=2)
        check_non_negative(Y, f"{type(self).__name__}.fit")
        Y = sp.csr_array(Y)
        Y.eliminate_zeros()  # a stored zero is an absent label
        n, m = Y.shape
        if self.n_components > m:
            raise ValueError(f"n_components={self.n_components} is more than the number of labels ({m}); "
                             f"use n_components <= {m}.")
        Y.data[:] = 1.0
        co = (Y.T @ Y).toarray() / n
        p = np.diag(co).copy()
        with np.errstate(divide="ignore", invalid="ignore"):
            pmi = np.log(co / np.outer(p, p))
        pmi[~np.isfinite(pmi)] = 0.0
        self.pmi_ = pmi
        U, s, _ = np.linalg.svd(pmi)
        self.embedding_ = normalize(U[:, : self.n_components] * np.sqrt(s[: self.n_components]))
        self.singular_values_ = s
        self.n_labels_ = m
        self.threshold_ = self._best_threshold(Y.toarray() > 0)
        return self

    def _best_threshold(self, truth: np.ndarray) -> float:
        sims = self.encode(truth.astype(np.float64)) @ self.embedding_.T
        candidates = np.unique(np.quantile(sims, np.linspace(0.02, 0.995, 80)))
        best, best_t = -1.0, float(candidates[0])
        for t in candidates:
            exact = float((self._cut(sims, t) == truth).all(axis=1).mean())
            if exact > best:
                best, best_t = exact, float(t)
        return best_t

    @staticmethod
    def _cut(sims: np.ndarray, t: float) -> np.ndarray:
        pred = sims >= t
        empty = ~pred.any(axis=1)
        pred[empty, sims[empty].argmax(axis=1)] = True
        return pred

    def encode(self, Y) -> np.ndarray:
        """Label sets (indicator rows, one column per fitted label) -> unit vectors."""
        check_is_fitted(self, "embedding_")
        Y = validate_data(self, Y, accept_sparse="csr", dtype=np.float64, reset=False)
        return normalize(np.asarray(Y @ self.embedding_))

    def decode(self, Z, n_labels=None) -> np.ndarray:
        """Indicator rows: for each vector, its ``n_labels`` (int or one per row) labels of highest cosine.

        With ``n_labels=None`` the number is not known: every label whose cosine
        reaches ``threshold_`` (chosen on the training label sets), and the best
        one when none does.
        """
        check_is_fitted(self, "embedding_")
        Z = np.atleast_2d(np.asarray(Z, dtype=np.float64))
        sims = Z @ self.embedding_.T
        if n_labels is None:
            return self._cut(sims, self.threshold_).astype(np.int64)
        ks = np.broadcast_to(np.asarray(n_labels), (len(Z),))
        order = np.argsort(-sims, axis=1)
        out = np.zeros_like(sims, dtype=np.int64)
        ranks = np.empty_like(order)
        ranks[np.arange(len(Z))[:, None], order] = np.arange(sims.shape[1])
        out[ranks < ks[:, None]] = 1
        return out

    def recovery(self, Y) -> Recovery:
        """Share of label sets that ``decode(encode(Y))`` gives back exactly, two ways (:class:`Recovery`).

        ``known_count`` decodes each row with its true number of labels (an
        oracle: the number is part of the answer); ``threshold`` decodes
        without it, by ``threshold_``. Score held-out rows for an honest figure.
        """
        Y = np.asarray(Y.toarray() if sp.issparse(Y) else Y) > 0
        Z = self.encode(Y.astype(np.float64))
        return Recovery(float((self.decode(Z, Y.sum(axis=1)) == Y).all(axis=1).mean()),
                        float((self.decode(Z) == Y).all(axis=1).mean()))

    def similarity(self) -> np.ndarray:
        """Cosine similarity between every pair of labels."""
        check_is_fitted(self, "embedding_")
        return self.embedding_ @ self.embedding_.T
