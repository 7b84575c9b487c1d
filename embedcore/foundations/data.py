"""The experiments' data: a correlated 3-D cloud, a grey photo, the news articles as counts, a seeded sample of rows."""

from __future__ import annotations

import numpy as np


def correlated_cloud(n: int = 400, random_state=0) -> np.ndarray:
    """A correlated 3-D Gaussian cloud: x and y strongly related, z small and independent.

    Examples
    --------
    >>> X = correlated_cloud(2000, random_state=0)
    >>> X.shape, bool(np.corrcoef(X[:, 0], X[:, 1])[0, 1] > 0.5), bool(X[:, 2].var() < X[:, 1].var())
    ((2000, 3), True, True)
    """
    rng = np.random.default_rng(random_state)
    cov = [[3.0, 1.5, 0.0], [1.5, 2.0, 0.0], [0.0, 0.0, 0.3]]
    return rng.multivariate_normal([0, 0, 0], cov, size=n)


def grey_photo(step: int = 2) -> np.ndarray:
    """scikit-learn's sample photo ``china.jpg`` in grey levels in [0, 1], every ``step``-th pixel.

    Examples
    --------
    >>> grey_photo(4).shape
    (107, 160)
    """
    from sklearn.datasets import load_sample_image

    img = load_sample_image("china.jpg").astype(np.float64) / 255.0
    return (img @ [0.299, 0.587, 0.114])[::step, ::step]


def news_counts():
    """Word counts of the Lee news corpus (300 articles): (sparse counts, dense TF-IDF rows).

    The counts are a (documents x words) CSR matrix; the TF-IDF rows are
    scikit-learn's ``TfidfTransformer`` defaults (l2-normalised rows).

    Examples
    --------
    >>> counts, tfidf = news_counts()
    >>> counts.shape == tfidf.shape, counts.shape[0]
    (True, 300)
    """
    from sklearn.feature_extraction.text import CountVectorizer, TfidfTransformer

    from embedcore.datasets import load_corpus

    counts = CountVectorizer().fit_transform(load_corpus("lee").documents)
    tfidf = TfidfTransformer().fit_transform(counts).toarray()
    return counts, tfidf


def sample_rows(X, n_max: int, random_state=0) -> np.ndarray:
    """``X`` itself when it has at most ``n_max`` rows, else ``n_max`` of its rows drawn without replacement.

    Examples
    --------
    >>> sample_rows(np.arange(10).reshape(5, 2), 3, random_state=0).shape
    (3, 2)
    >>> sample_rows(np.arange(10).reshape(5, 2), 8).shape
    (5, 2)
    """
    X = np.asarray(X)
    if len(X) <= n_max:
        return X
    return X[np.random.default_rng(random_state).choice(len(X), n_max, replace=False)]
