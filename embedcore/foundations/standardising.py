"""Standardising new data: with the training mean and sigma, or with a batch's own, and what the second does to a classifier as batches shrink or hold one class."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._linalg import check_k, pca_basis


def fit_standardiser(X):
    """Each feature's mean and standard deviation (``(mean, scale)``; a constant feature gets scale 1).

    These are the numbers to keep: new data are standardised with them
    (:func:`standardise_with`), not with statistics of their own.

    Examples
    --------
    >>> mean, scale = fit_standardiser([[1.0, 5.0], [3.0, 5.0]])
    >>> mean.tolist(), scale.tolist()
    ([2.0, 5.0], [1.0, 1.0])
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or not len(X):
        raise ValueError(f"Standardising needs a non-empty (rows, features) matrix; got shape {X.shape}.")
    sd = X.std(axis=0)
    return X.mean(axis=0), np.where(sd > 0, sd, 1.0)


def standardise_with(X, mean, scale) -> np.ndarray:
    """``(X - mean) / scale``, feature by feature.

    Examples
    --------
    >>> standardise_with([[4.0, 1.0]], [2.0, 1.0], [2.0, 1.0]).tolist()
    [[1.0, 0.0]]
    """
    return (np.asarray(X, dtype=np.float64) - mean) / scale


def split_rows(y, test_share: float = 0.3, *, random_state=0):
    """Indices ``(train, test)``: a seeded split that keeps each class's share (scikit-learn's stratified split).

    Examples
    --------
    >>> train, test = split_rows(np.repeat([0, 1], 10), 0.3)
    >>> len(train), len(test), int(np.repeat([0, 1], 10)[test].sum())
    (14, 6, 3)
    """
    from sklearn.model_selection import train_test_split

    y = np.asarray(y)
    if not 0 < test_share < 1:
        raise ValueError(f"test_share must be between 0 and 1, got {test_share}.")
    train, test = train_test_split(np.arange(len(y)), test_size=test_share, random_state=int(random_state),
                                   stratify=y)
    return np.sort(train), np.sort(test)


class BatchModel(NamedTuple):
    """PCA and a nearest-class-mean classifier fitted on standardised training data (:func:`fit_batch_model`).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> X, y = load_iris(return_X_y=True)
    >>> model = fit_batch_model(X, y, n_components=2)
    >>> model.components.shape, model.classes.tolist()
    ((2, 4), [0, 1, 2])
    """

    #: the training data's feature means and standard deviations (1 for a constant feature)
    mean: np.ndarray
    scale: np.ndarray
    #: the top principal directions of the standardised training data (k, d)
    components: np.ndarray
    #: the training points' scores on them (n, k)
    scores: np.ndarray
    #: each class's mean score (classes, k), in the order of ``classes``
    centroids: np.ndarray
    classes: np.ndarray


def fit_batch_model(X, y, *, n_components: int = 10) -> BatchModel:
    """Standardise ``X`` with its own statistics, take its top principal directions, and each class's mean there.

    Examples
    --------
    >>> X = np.array([[0.0, 0.0], [0.1, 0.0], [4.0, 1.0], [4.1, 1.0]])
    >>> model = fit_batch_model(X, np.array([0, 0, 1, 1]), n_components=1)
    >>> predict_batch(model, place_batch(model, X)).tolist()
    [0, 0, 1, 1]
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    if len(X) != len(y):
        raise ValueError(f"X has {len(X)} rows but y has {len(y)} labels.")
    mean, scale = fit_standardiser(X)
    S = standardise_with(X, mean, scale)
    _, basis, _ = pca_basis(S, check_k(n_components, X.shape[1]))
    scores = S @ basis  # S is centred: these are the PCA scores
    classes = np.unique(y)
    centroids = np.vstack([scores[y == c].mean(axis=0) for c in classes])
    return BatchModel(mean, scale, basis.T, scores, centroids, classes)


def place_batch(model: BatchModel, X, statistics: str = "training") -> np.ndarray:
    """Scores (m, k) of new rows: standardised with the training statistics, or with the batch's own.

    ``statistics="batch"`` is the mistake: the batch's own mean and standard
    deviation describe the batch, not the data the model was fitted on, so
    a batch of one kind of row is moved to the middle of the training cloud
    and a batch of one row lands exactly at the origin.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> X, y = load_iris(return_X_y=True)
    >>> model = fit_batch_model(X, y, n_components=2)
    >>> place_batch(model, X[:1], statistics="batch").tolist()  # one row, standardised by itself: the origin
    [[0.0, 0.0]]
    """
    if statistics not in ("training", "batch"):
        raise ValueError(f"statistics must be 'training' or 'batch', got {statistics!r}.")
    X = np.asarray(X, dtype=np.float64)
    mean, scale = (model.mean, model.scale) if statistics == "training" else fit_standardiser(X)
    return standardise_with(X, mean, scale) @ model.components.T


def predict_batch(model: BatchModel, scores) -> np.ndarray:
    """The class whose training mean is nearest to each row of ``scores``.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> X, y = load_iris(return_X_y=True)
    >>> model = fit_batch_model(X, y, n_components=2)
    >>> predict_batch(model, place_batch(model, X[:5])).tolist()
    [0, 0, 0, 0, 0]
    """
    Z = np.asarray(scores, dtype=np.float64)
    d2 = ((Z[:, None, :] - model.centroids[None]) ** 2).sum(axis=2)
    return model.classes[np.argmin(d2, axis=1)]


def draw_batch(y, size: int, *, one_class=None, random_state=0) -> np.ndarray:
    """Indices of a test batch: ``size`` rows at random, or (``one_class`` set) rows of that class only.

    A one-class batch has at most as many rows as the class has.

    Examples
    --------
    >>> draw_batch(np.array([0, 1, 1, 0, 1]), 5, one_class=1).tolist()
    [1, 2, 4]
    """
    y = np.asarray(y)
    if int(size) < 1:
        raise ValueError(f"A batch needs at least one row, got size={size}.")
    pool = np.arange(len(y)) if one_class is None else np.flatnonzero(y == one_class)
    if not len(pool):
        raise ValueError(f"No test row has the class {one_class!r}.")
    rng = np.random.default_rng(random_state)
    return np.sort(rng.choice(pool, min(int(size), len(pool)), replace=False))


def batch_experiment(model: BatchModel, X, y, sizes, *, one_class: bool = False, n_batches: int = 20,
                     min_rows: int = 500, random_state=0):
    """Accuracy of new batches placed with the training statistics and with their own, for each batch size.

    For every size, ``n_batches`` seeded batches are drawn from ``(X, y)``,
    or more when they would hold fewer than ``min_rows`` rows in all (each
    from one class, the classes in turn, when ``one_class``); both
    placements go through the same model, so the only difference is which
    mean and standard deviation standardise the batch. Returns a DataFrame:
    ``size`` (the size asked), ``rows`` (the mean size drawn), ``training
    statistics`` and ``batch statistics`` (accuracy over all rows drawn),
    and ``displacement`` (the mean distance between a row's two placements,
    relative to the training scores' root-mean-square distance from their
    mean).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> X, y = load_iris(return_X_y=True)
    >>> model = fit_batch_model(X, y, n_components=2)
    >>> table = batch_experiment(model, X, y, [1, 50], n_batches=3)
    >>> table["size"].tolist(), table["training statistics"].round(3).tolist(), table["batch statistics"].round(3).tolist()
    ([1, 50], [0.832, 0.894], [0.35, 0.894])
    """
    import pandas as pd

    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    spread = float(np.sqrt((model.scores ** 2).sum(axis=1).mean())) or 1.0
    rows = []
    for size in sizes:
        right = wrong = moved = drawn = 0.0
        count = max(int(n_batches), -(-int(min_rows) // int(size)))
        for b in range(count):
            cls = model.classes[b % len(model.classes)] if one_class else None
            idx = draw_batch(y, size, one_class=cls, random_state=[int(random_state), int(size), b])
            Zt, Zb = place_batch(model, X[idx], "training"), place_batch(model, X[idx], "batch")
            right += (predict_batch(model, Zt) == y[idx]).sum()
            wrong += (predict_batch(model, Zb) == y[idx]).sum()
            moved += np.linalg.norm(Zt - Zb, axis=1).sum()
            drawn += len(idx)
        rows.append({"size": int(size), "rows": drawn / count, "training statistics": right / drawn,
                     "batch statistics": wrong / drawn, "displacement": moved / drawn / spread})
    return pd.DataFrame(rows)
