"""Training a multilabel model on label embeddings, against one sigmoid output per label.

The usual multilabel model ends in m sigmoid outputs, one per label, trained with
binary cross-entropy over all labels. The label-embedding alternative fits the
PMI-SVD label vectors of :class:`embedcore.words.LabelEmbedding` first, turns each
training example's label set into the unit sum of its labels' vectors, and trains
k linear outputs to point the same way (a cosine loss). To predict, it ranks the
labels by the cosine between the output and each label's vector.

Both models here are linear in the same input features and are fitted by
L-BFGS with an L2 penalty whose strength is chosen on held-out training rows
(:func:`compare_label_models`), so a comparison measures the output layer and
its loss, nothing else. :func:`corrupt_labels` swaps a stated share of the
training labels for wrong ones, to test how each model stands label noise.
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy.optimize import minimize
from sklearn.base import BaseEstimator, _fit_context
from sklearn.preprocessing import normalize
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import (
    check_array,
    check_is_fitted,
    check_random_state,
    validate_data,
)

from .words import LabelEmbedding, tokenize

__all__ = [
    "ALPHAS",
    "COSINE",
    "SIGMOIDS",
    "keyword_tags",
    "make_topic_labels",
    "corrupt_labels",
    "precision_at_k",
    "decoding_ceiling",
    "cosine_loss",
    "logistic_loss",
    "CosineLabelRegressor",
    "LogisticLabelClassifier",
    "LabelComparison",
    "compare_label_models",
]

#: Penalty strengths tried for each model, the same seven for both.
ALPHAS = (1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1.0)
#: The two models' names in :func:`compare_label_models`' tables.
COSINE, SIGMOIDS = "label embedding, cosine loss", "sigmoids, cross-entropy"


# --------------------------------------------------------------------------- data


def keyword_tags(documents, *, n_labels: int = 30, max_df: float = 0.25, min_df: int = 3,
                 max_features: int = 1500):
    """A multilabel task from plain text: which of the corpus's common content words a document uses.

    The labels are the ``n_labels`` content words (letters only, three or more,
    not an English stop word) found in the most documents, among those found in
    at most ``max_df`` of them (words in every document say nothing). A document
    has a label when it uses the word. The features are the document's tf-idf
    over the ``max_features`` other words found in the most documents (at least
    ``min_df``): the label words themselves are taken out, so a model must guess
    them from their context.

    Returns
    -------
    X : (n_documents, n_features) sparse csr_array, tf-idf rows of unit length
    Y : (n_documents, n_labels) int array of 0 and 1
    labels : list of str, the label words, most frequent first

    Examples
    --------
    >>> from embedcore.datasets import load_corpus
    >>> X, Y, labels = keyword_tags(load_corpus("lee").documents, n_labels=30)
    >>> X.shape, Y.shape, labels[:3]
    ((300, 1500), (300, 30), ['year', 'government', 'australia'])
    """
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS, TfidfVectorizer

    docs = [tokenize(d) for d in documents]
    if len(docs) < 10:
        raise ValueError(f"{len(docs)} documents are too few for a multilabel task; give at least 10.")
    counts = pd.Series([w for d in docs for w in set(d)]).value_counts()
    content = counts[[w.isalpha() and len(w) > 2 and w not in ENGLISH_STOP_WORDS for w in counts.index]]
    content = content[content <= max_df * len(docs)]
    # most documents first, ties in alphabetical order so the labels do not depend on hash order
    ranked = content.rename_axis("word").reset_index(name="df").sort_values(["df", "word"], ascending=[False, True])
    labels = ranked["word"].head(n_labels).tolist()
    if len(labels) < 2:
        raise ValueError("The corpus has fewer than two content words in at most "
                         f"{max_df:.0%} of its documents; give more, longer documents.")
    index = {w: j for j, w in enumerate(labels)}
    Y = np.zeros((len(docs), len(labels)), dtype=np.int64)
    rows = [i for i, d in enumerate(docs) for w in set(d) if w in index]
    cols = [index[w] for d in docs for w in set(d) if w in index]
    Y[rows, cols] = 1
    vectorizer = TfidfVectorizer(analyzer=lambda d: [w for w in d if w not in index], min_df=min_df,
                                 max_features=max_features, sublinear_tf=True)
    X = sp.csr_array(vectorizer.fit_transform(docs))
    return X, Y, labels


def make_topic_labels(n_samples: int = 600, *, n_labels: int = 40, n_topics: int = 5, n_features: int = 30,
                      labels_per_sample: float = 4.0, noise: float = 1.0, random_state=None):
    """Generated multilabel data whose labels come in topics, as real tags do.

    Label j belongs to topic ``j % n_topics`` and has a popularity that falls
    off as ``1 / (1 + j // n_topics)``. Each sample picks one topic and
    ``1 + Poisson(labels_per_sample - 1)`` distinct labels, drawn in proportion
    to popularity, eight times likelier from its topic than from elsewhere. Its
    features are ``Y B + noise * N(0, 1)`` with a random Gaussian ``B`` of
    ``n_features < n_labels`` columns: the labels are seen only through a
    noisy projection, so not every label can be read off the features alone.

    Returns
    -------
    X : (n_samples, n_features) array
    Y : (n_samples, n_labels) int array of 0 and 1
    labels : list of str, "t<topic>.<label>"

    Examples
    --------
    >>> X, Y, _ = make_topic_labels(100, n_labels=6, n_topics=2, n_features=8, random_state=0)
    >>> X.shape, Y.shape, Y.sum(axis=1)[:5].tolist()
    ((100, 8), (100, 6), [4, 3, 4, 3, 4])
    """
    rng = check_random_state(random_state)
    labels = np.arange(n_labels)
    topic_of = labels % n_topics
    topic = rng.randint(n_topics, size=n_samples)
    weight = 1.0 / (1.0 + labels // n_topics) * np.where(topic_of[None, :] == topic[:, None], 8.0, 1.0)
    # Gumbel top-c: the c largest of log weight + Gumbel noise are a draw without replacement by weight
    keys = np.log(weight) + rng.gumbel(size=(n_samples, n_labels))
    count = np.minimum(1 + rng.poisson(labels_per_sample - 1.0, size=n_samples), n_labels)
    ranks = np.argsort(np.argsort(-keys, axis=1), axis=1)
    Y = (ranks < count[:, None]).astype(np.int64)
    B = rng.standard_normal((n_labels, n_features)) / np.sqrt(labels_per_sample)
    X = Y @ B + noise * rng.standard_normal((n_samples, n_features))
    return X, Y, [f"t{t}.{j}" for j, t in zip(labels, topic_of)]


def corrupt_labels(Y, share: float, *, random_state=None) -> np.ndarray:
    """Swap ``share`` of the positive labels for wrong ones.

    ``round(share * nnz)`` of the label entries that are 1 are drawn without
    replacement; each moves to a label its row does not have, drawn uniformly.
    Row sizes stay the same, so the noise changes which labels, not how many. A
    row with too few absent labels to take all its moves keeps the ones left
    over (this cannot happen while every row has at most half the labels).

    Returns
    -------
    (n, m) int array of 0 and 1, a new array

    Examples
    --------
    >>> _, Y, _ = make_topic_labels(100, n_labels=6, n_topics=2, n_features=8, random_state=0)
    >>> noisy = corrupt_labels(Y, 0.5, random_state=0)
    >>> bool((noisy != Y).any()), bool((noisy.sum(axis=1) == Y.sum(axis=1)).all())  # as many labels, some wrong
    (True, True)
    """
    if not 0.0 <= share <= 1.0:
        raise ValueError(f"share={share} must be between 0 and 1: it is the fraction of labels made wrong.")
    Y = np.asarray(Y) > 0
    rng = check_random_state(random_state)
    rows, cols = np.nonzero(Y)
    picked = rng.choice(len(rows), size=int(round(share * len(rows))), replace=False)
    out = Y.copy()
    r, c = rows[picked], cols[picked]
    out[r, c] = False
    pending = np.arange(len(r))
    m = Y.shape[1]
    for _ in range(200):  # rejection rounds; each round is vectorised over every pending move
        if not len(pending):
            break
        cand = rng.randint(m, size=len(pending))
        pr = r[pending]
        ok = ~Y[pr, cand] & ~out[pr, cand]
        # two moves of one row drawing the same new label: only the first takes it this round
        flat = pr.astype(np.int64) * m + cand
        _, first = np.unique(flat, return_index=True)
        once = np.zeros(len(pending), dtype=bool)
        once[first] = True
        ok &= once
        out[pr[ok], cand[ok]] = True
        pending = pending[~ok]
    out[r[pending], c[pending]] = True  # moves that found no free label stay where they were
    return out.astype(np.int64)


def precision_at_k(Y_true, scores, k: int) -> float:
    """Mean share of true labels among each row's ``k`` highest scores.

    Rows with no true label are left out (there is nothing to find); ties are
    broken by label order. A row with fewer than ``k`` labels cannot reach 1.

    Examples
    --------
    >>> Y_true = np.array([[1, 0, 0], [0, 1, 1]])
    >>> scores = np.array([[0.9, 0.1, 0.5], [0.2, 0.8, 0.1]])
    >>> precision_at_k(Y_true, scores, 1), precision_at_k(Y_true, scores, 2)
    (1.0, 0.5)
    """
    Y_true = np.asarray(Y_true) > 0
    scores = np.asarray(scores, dtype=np.float64)
    if not 1 <= k <= Y_true.shape[1]:
        raise ValueError(f"k={k} must be between 1 and the number of labels ({Y_true.shape[1]}).")
    has = Y_true.any(axis=1)
    top = np.argsort(-scores[has], axis=1, kind="stable")[:, :k]
    return float(np.take_along_axis(Y_true[has], top, axis=1).mean()) if has.any() else float("nan")


def decoding_ceiling(Y, n_components: int, k: int) -> float:
    """Precision at ``k`` of decoding the true label vectors themselves: the best a model predicting them can do.

    Fits :class:`~embedcore.words.LabelEmbedding` with ``n_components`` on Y,
    encodes every label set and ranks the labels by cosine to its vector. Below
    1 when the label vectors lose labels (a small ``n_components``).

    Examples
    --------
    >>> _, Y, _ = make_topic_labels(100, n_labels=6, n_topics=2, n_features=8, random_state=0)
    >>> 0.0 < decoding_ceiling(Y, 3, 1) <= 1.0
    True
    """
    le = LabelEmbedding(n_components=n_components).fit(Y)
    return precision_at_k(Y, le.encode(Y) @ le.embedding_.T, k)


# --------------------------------------------------------------------------- losses


def cosine_loss(W, X, T, offset, alpha: float):
    """Mean of ``1 - cos(offset + x_i W, t_i)`` plus ``alpha/2 ||W||^2``, and its gradient in W.

    ``T`` holds unit target rows (a zero row adds a constant 1 and no gradient).
    The offset is fixed: the loss does not change when the outputs are scaled,
    so an intercept learned with ``W`` could shrink with it and make the
    penalty empty; against a fixed offset the penalty pulls every prediction
    towards it.

    Returns
    -------
    loss : float
    grad : array shaped like W

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(10, 3))
    >>> T = np.tile([[1.0, 0.0]], (10, 1))
    >>> loss, grad = cosine_loss(np.zeros((3, 2)), X, T, np.array([1.0, 0.0]), 0.0)
    >>> loss, grad.shape  # every prediction is the offset, pointing at every target
    (0.0, (3, 2))
    """
    Z = offset + X @ W
    norm = np.maximum(np.linalg.norm(Z, axis=1), 1e-12)
    cos = np.einsum("ij,ij->i", Z, T) / norm
    n = len(Z)
    loss = float(np.mean(1.0 - cos) + 0.5 * alpha * np.sum(W * W))
    # d cos / d z = t/|z| - cos z/|z|^2
    G = -(T / norm[:, None] - (cos / norm**2)[:, None] * Z) / n
    return loss, np.asarray(X.T @ G) + alpha * W


def logistic_loss(W, b, X, Y, alpha: float):
    """Binary cross-entropy summed over labels, averaged over rows, plus ``alpha/2 ||W||^2``; gradients in W, b.

    The same objective, label by label, as scikit-learn's ``LogisticRegression(C=1 / (n * alpha))``.

    Examples
    --------
    >>> X, Y, _ = make_topic_labels(100, n_labels=6, n_topics=2, n_features=8, random_state=0)
    >>> loss, grad_W, grad_b = logistic_loss(np.zeros((8, 6)), np.zeros(6), X, Y, 0.0)
    >>> bool(np.isclose(loss, 6 * np.log(2)))  # every probability one half, six labels
    True
    """
    S = X @ W + b
    n = len(S)
    loss = float((np.logaddexp(0.0, S).sum() - np.sum(Y * S)) / n + 0.5 * alpha * np.sum(W * W))
    G = (0.5 * (1.0 + np.tanh(0.5 * S)) - Y) / n  # sigmoid, without overflow
    return loss, np.asarray(X.T @ G) + alpha * W, G.sum(axis=0)


def _check_targets(X, Y, estimator):
    X = validate_data(estimator, X, accept_sparse="csr", dtype=np.float64)
    Y = check_array(Y, accept_sparse=False, ensure_2d=True, ensure_min_features=2, dtype=np.float64,
                    input_name="Y")
    if len(Y) != X.shape[0]:
        raise ValueError(f"X has {X.shape[0]} rows and Y has {len(Y)}: give one label row per example.")
    if not np.isin(Y, (0.0, 1.0)).all():
        raise ValueError("Y must hold only 0 and 1: one column per label, 1 where the example has it.")
    return (sp.csr_array(X) if sp.issparse(X) else X), Y


def _lbfgs(fun, x0, max_iter: int, tol: float):
    res = minimize(fun, x0, jac=True, method="L-BFGS-B", options={"maxiter": max_iter, "gtol": tol, "ftol": 1e-12})
    return res.x, res.nit, float(res.fun)


# --------------------------------------------------------------------------- models


class _LabelMatrixModel(BaseEstimator):
    """What both label models share: an L2 penalty and an L-BFGS budget, a linear map of (sparse) X checked
    the same way, and a required label matrix Y."""

    _parameter_constraints: dict = {
        "alpha": [Interval(Real, 0, None, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
    }

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, Y):
        """Fit on examples ``X`` and their label sets ``Y`` (what is learned: see the class).

        Parameters
        ----------
        X : (n_samples, n_features) array-like or sparse
        Y : (n_samples, n_labels) array of 0 and 1, at least two labels

        Returns
        -------
        self
        """
        X, Y = _check_targets(X, Y, self)
        return self._fit(X, Y)

    def _linear(self, X) -> np.ndarray:
        """``X @ coef_ + intercept_`` for new X, checked against the fit."""
        check_is_fitted(self, "coef_")
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        return np.asarray(X @ self.coef_) + self.intercept_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.target_tags.required = True
        tags.target_tags.multi_output = True
        return tags


class CosineLabelRegressor(_LabelMatrixModel):
    """Predict an example's label vector: k linear outputs trained with a cosine loss.

    Fits :class:`~embedcore.words.LabelEmbedding` on the training labels, encodes
    each label set as the unit sum of its labels' vectors ``t_i``, and fits
    ``z_i = c + (x_i - x_mean) W`` (``c`` the mean of the ``t_i``) to minimise
    ``mean(1 - cos(z_i, t_i)) + alpha/2 ||W||^2`` by L-BFGS, started from the
    ridge solution of the same problem. Labels are scored by the cosine between
    ``z`` and each label's vector.

    Parameters
    ----------
    n_components : int, default=8
        k, the dimensions of the label vectors: at most the number of labels.
    alpha : float, default=1e-3
        L2 penalty on W; large values pull every prediction towards ``c``, the
        direction of the commonest labels.
    max_iter : int, default=300
        L-BFGS iterations at most.

    Attributes
    ----------
    label_embedding_ : fitted LabelEmbedding
    coef_ : (n_features, n_components) array, W
    intercept_ : (n_components,) array, so that ``z = X @ coef_ + intercept_``
    n_iter_ : int, L-BFGS iterations
    loss_ : float, the final loss; ``ridge_loss_`` the loss at the ridge start
    n_features_in_ : int

    Examples
    --------
    >>> X, Y, _ = make_topic_labels(300, n_labels=12, n_topics=3, n_features=10, random_state=0)
    >>> model = CosineLabelRegressor(n_components=4).fit(X, Y)
    >>> model.decision_function(X[:2]).shape
    (2, 12)
    >>> bool(model.loss_ <= model.ridge_loss_)
    True
    """

    _parameter_constraints: dict = {
        **_LabelMatrixModel._parameter_constraints,
        "n_components": [Interval(Integral, 1, None, closed="left")],
    }

    def __init__(self, *, n_components: int = 8, alpha: float = 1e-3, max_iter: int = 300):
        self.n_components = n_components
        self.alpha = alpha
        self.max_iter = max_iter

    def _fit(self, X, Y):
        # the label vectors on Y, then the linear map from X to them
        self.label_embedding_ = LabelEmbedding(n_components=self.n_components).fit(Y)
        T = self.label_embedding_.encode(Y)
        c = T.mean(axis=0)
        mean = np.asarray(X.mean(axis=0)).ravel()
        Xc = X.toarray() - mean if sp.issparse(X) else X - mean
        n, d = Xc.shape
        # ridge start: argmin (1/n)||Xc W - (T - c)||^2 + alpha ||W||^2, in whichever of n, d is smaller
        ridge = max(self.alpha, 1e-8) * n
        if n <= d:
            W0 = Xc.T @ np.linalg.solve(Xc @ Xc.T + ridge * np.eye(n), T - c)
        else:
            W0 = np.linalg.solve(Xc.T @ Xc + ridge * np.eye(d), Xc.T @ (T - c))
        k = T.shape[1]

        def fun(w):
            loss, grad = cosine_loss(w.reshape(d, k), Xc, T, c, self.alpha)
            return loss, grad.ravel()

        self.ridge_loss_ = fun(W0.ravel())[0]
        w, self.n_iter_, self.loss_ = _lbfgs(fun, W0.ravel(), self.max_iter, 1e-7)
        self.coef_ = w.reshape(d, k)
        self.intercept_ = c - mean @ self.coef_
        return self

    def transform(self, X) -> np.ndarray:
        """The predicted label vectors z (not normalised)."""
        return self._linear(X)

    def decision_function(self, X) -> np.ndarray:
        """Cosine between each predicted vector and each label's vector: (n_samples, n_labels)."""
        return normalize(self.transform(X)) @ self.label_embedding_.embedding_.T

    def predict(self, X) -> np.ndarray:
        """Label indicator rows, decoded by the label embedding's threshold (see ``LabelEmbedding.decode``)."""
        return self.label_embedding_.decode(self.transform(X))


class LogisticLabelClassifier(_LabelMatrixModel):
    """One sigmoid output per label, trained with binary cross-entropy over all labels at once.

    The objective is that of one L2-penalised logistic regression per label
    (``alpha = 1 / (C n)`` in scikit-learn's terms), fitted jointly by L-BFGS;
    intercepts are not penalised.

    Parameters
    ----------
    alpha : float, default=1e-3
        L2 penalty on the weights.
    max_iter : int, default=300
        L-BFGS iterations at most.

    Attributes
    ----------
    coef_ : (n_features, n_labels) array
    intercept_ : (n_labels,) array
    n_iter_ : int
    loss_ : float
    n_features_in_ : int

    Examples
    --------
    >>> X, Y, _ = make_topic_labels(300, n_labels=12, n_topics=3, n_features=10, random_state=0)
    >>> model = LogisticLabelClassifier(alpha=1e-2).fit(X, Y)
    >>> model.predict_proba(X[:2]).shape
    (2, 12)
    """

    def __init__(self, *, alpha: float = 1e-3, max_iter: int = 300):
        self.alpha = alpha
        self.max_iter = max_iter

    def _fit(self, X, Y):
        # every label's weights and intercept at once
        d, m = X.shape[1], Y.shape[1]
        prior = np.clip(Y.mean(axis=0), 1e-3, 1 - 1e-3)

        def fun(w):
            loss, gW, gb = logistic_loss(w[: d * m].reshape(d, m), w[d * m:], X, Y, self.alpha)
            return loss, np.concatenate([gW.ravel(), gb])

        w0 = np.concatenate([np.zeros(d * m), np.log(prior / (1 - prior))])
        w, self.n_iter_, self.loss_ = _lbfgs(fun, w0, self.max_iter, 1e-7)
        self.coef_ = w[: d * m].reshape(d, m)
        self.intercept_ = w[d * m:]
        return self

    def decision_function(self, X) -> np.ndarray:
        """The logits, (n_samples, n_labels)."""
        return self._linear(X)

    def predict_proba(self, X) -> np.ndarray:
        """Each label's probability, (n_samples, n_labels)."""
        return 0.5 * (1.0 + np.tanh(0.5 * self.decision_function(X)))

    def predict(self, X) -> np.ndarray:
        """Labels of probability above one half."""
        return (self.decision_function(X) > 0).astype(np.int64)


# --------------------------------------------------------------------------- the experiment


def _rows(X, idx):
    return X[idx] if not sp.issparse(X) else sp.csr_array(X)[idx]


class LabelComparison(NamedTuple):
    """The two label models compared on one split (:func:`compare_label_models`).

    Attributes
    ----------
    table : DataFrame
        One row per model (:data:`COSINE`, :data:`SIGMOIDS`): its number of outputs, the chosen
        alpha, validation and test precision at 1, 3, 5 and at ``top_k``, iterations.
    tuning : DataFrame
        Every alpha's validation precision, per model.
    examples : DataFrame
        The first test rows' true labels and each model's top ``top_k``.
    train, test : int
        Training and test rows.
    labels : int
        Labels.
    corrupted : int
        Training labels swapped for wrong ones.

    Examples
    --------
    >>> LabelComparison._fields
    ('table', 'tuning', 'examples', 'train', 'test', 'labels', 'corrupted')
    """

    table: pd.DataFrame
    tuning: pd.DataFrame
    examples: pd.DataFrame
    train: int
    test: int
    labels: int
    corrupted: int


def compare_label_models(X, Y, *, n_components: int = 8, corruption: float = 0.0, top_k: int = 3,
                         test_size: float = 1 / 3, alphas=ALPHAS, random_state=0, labels=None,
                         refit=None) -> LabelComparison:
    """The label-embedding model against per-label sigmoids, each tuned the same way, on noisy training labels.

    The rows are split at random into training and test (``test_size``). A
    share ``corruption`` of the training labels is swapped for wrong ones
    (:func:`corrupt_labels`); test labels stay clean. Each model chooses its
    penalty from ``alphas`` by precision at ``top_k`` on a quarter of the
    training rows (with their noisy labels, as one would have to), is refitted
    on all training rows, and is scored on the test rows.

    ``refit(name, model, X, Y)``, when given, makes that last fit in place of
    ``model.fit(X, Y)`` and returns the fitted model (a caller times it this way).

    Returns
    -------
    LabelComparison
        The models' table, the tuning, example predictions and the counts of rows and labels.

    Examples
    --------
    >>> X, Y, _ = make_topic_labels(300, n_labels=12, n_topics=3, n_features=10, random_state=0)
    >>> out = compare_label_models(X, Y, n_components=4, alphas=(1e-3,), random_state=0)
    >>> out.table["model"].tolist() == [COSINE, SIGMOIDS], out.train + out.test
    (True, 300)
    """
    Y = np.asarray(Y)
    n, m = Y.shape
    if not 1 <= top_k <= m:
        raise ValueError(f"top_k={top_k} must be between 1 and the number of labels ({m}).")
    if n_components > m:
        raise ValueError(f"n_components={n_components} is more than the number of labels ({m}); "
                         f"use n_components <= {m}.")
    if not 0.0 < test_size < 1.0:
        raise ValueError(f"test_size={test_size} must be between 0 and 1.")
    rng = check_random_state(random_state)
    order = rng.permutation(n)
    n_test = int(round(test_size * n))
    test, train = order[:n_test], order[n_test:]
    if len(train) < 8 or n_test < 2:
        raise ValueError(f"{n} examples are too few to split into training, validation and test; give at least 12.")
    Y_train = corrupt_labels(Y[train], corruption, random_state=rng)
    cut = len(train) // 4
    inner_val, inner_fit = np.arange(cut), np.arange(cut, len(train))
    X_train, X_test = _rows(X, train), _rows(X, test)
    makers = {COSINE: lambda a: CosineLabelRegressor(n_components=n_components, alpha=a),
              SIGMOIDS: lambda a: LogisticLabelClassifier(alpha=a)}
    outputs = {COSINE: n_components, SIGMOIDS: m}
    tuning, table, examples = [], [], {}
    names = np.asarray(labels if labels is not None else [str(j) for j in range(m)], dtype=object)
    for name, make in makers.items():
        for a in alphas:
            model = make(a).fit(_rows(X_train, inner_fit), Y_train[inner_fit])
            scores = model.decision_function(_rows(X_train, inner_val))
            tuning.append({"model": name, "alpha": a, f"validation P@{top_k}": precision_at_k(Y_train[inner_val],
                                                                                              scores, top_k)})
        best = max((r for r in tuning if r["model"] == name), key=lambda r: r[f"validation P@{top_k}"])
        model = make(best["alpha"])
        model = model.fit(X_train, Y_train) if refit is None else refit(name, model, X_train, Y_train)
        scores = model.decision_function(X_test)
        row = {"model": name, "outputs": outputs[name], "alpha": best["alpha"], f"validation P@{top_k}": best[f"validation P@{top_k}"]}
        for k in sorted({1, 3, 5, top_k}):
            if k <= m:
                row[f"test P@{k}"] = precision_at_k(Y[test], scores, k)
        row["iterations"] = model.n_iter_
        table.append(row)
        top = np.argsort(-scores[:8], axis=1, kind="stable")[:, :top_k]
        examples[name] = [", ".join(names[t]) for t in top]
    examples = pd.DataFrame({"true labels": [", ".join(names[np.flatnonzero(r)]) for r in Y[test[:8]]], **examples})
    return LabelComparison(pd.DataFrame(table), pd.DataFrame(tuning), examples, len(train), n_test, m,
                           int(round(corruption * Y[train].sum())))
