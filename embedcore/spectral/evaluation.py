"""Spectral codes at work: the spectrum as gamma varies, which columns of a table can be coded, and a cross-validated downstream test against one-hot and ordinal codes."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.linalg import eigvalsh

from .encoder import SpectralCategoryEncoder
from .graph import normalized_laplacian
from .kernels import kernel_from_distances


def gamma_sweep(D, gamma: float, factors=(0.01, 0.1, 1.0, 10.0, 100.0)) -> pd.DataFrame:
    """The Laplacian's spectrum of ``exp(-gamma * f * D)`` for each factor ``f``.

    Shows what γ does to the spectrum: a small γ bunches every eigenvalue but
    the first near ``n/(n-1)``, a large one spreads them over [0, 2] and, once
    affinities underflow, adds a zero per component the graph falls into.

    Returns
    -------
    DataFrame
        One row per (factor, eigenvalue): columns ``factor``, ``index``
        (1-based, ascending) and ``eigenvalue``.

    Examples
    --------
    >>> D = np.array([[0.0, 1.0, 2.0], [1.0, 0.0, 1.0], [2.0, 1.0, 0.0]])
    >>> sweep = gamma_sweep(D, 1.0, factors=(1.0, 1000.0))
    >>> sweep.groupby("factor")["eigenvalue"].apply(lambda v: int((v < 1e-8).sum())).tolist()
    [1, 3]
    """
    frames = []
    for f in factors:
        A = kernel_from_distances(D, gamma * f)
        L = normalized_laplacian(A)
        vals = np.clip(eigvalsh((L + L.T) / 2), 0.0, 2.0)
        frames.append(pd.DataFrame({"factor": float(f), "index": np.arange(1, vals.size + 1), "eigenvalue": vals}))
    return pd.concat(frames, ignore_index=True)


def candidate_columns(frame: pd.DataFrame, max_levels: int = 30) -> tuple[list[str], list[str]]:
    """A table's columns that can be the category and those that can be the target.

    A category is any non-numeric column, or a numeric one with at most
    ``max_levels`` distinct values (a party size, a year); a target is any
    integer or real column.

    Examples
    --------
    >>> frame = pd.DataFrame({"day": ["Mon", "Sat"], "size": [2, 3], "tip": [1.5, 3.25]})
    >>> candidate_columns(frame)
    (['day', 'size', 'tip'], ['size', 'tip'])
    """
    cats = [c for c in frame.columns if frame[c].dtype.kind not in "fiub" or frame[c].nunique() <= max_levels]
    nums = [c for c in frame.columns if frame[c].dtype.kind in "fiu"]
    return cats, nums


def complete_rows(frame: pd.DataFrame, column: str, target: str) -> tuple[pd.DataFrame, int, int]:
    """The rows with both a category and a target: (those rows, how many were left out, distinct values).

    Examples
    --------
    >>> frame = pd.DataFrame({"day": ["Mon", None, "Sat", "Mon"], "tip": [1.0, 2.0, None, 3.0]})
    >>> rows, dropped, levels = complete_rows(frame, "day", "tip")
    >>> len(rows), dropped, levels
    (2, 2, 1)
    """
    clean = frame.dropna(subset=[column, target])
    return clean, len(frame) - len(clean), int(clean[column].astype(str).nunique())


def compare_category_encodings(
    frame: pd.DataFrame,
    column: str,
    target: str,
    *,
    encoder_params: dict | None = None,
    cv: int = 5,
    random_state=0,
    progress=None,
    n_jobs: int | None = None,
) -> pd.DataFrame:
    """Cross-validated R^2 of a tree model and a linear model with three encodings of ``column``.

    Encodings: one-hot, ordinal (categories in sorted order) and spectral
    (:class:`SpectralCategoryEncoder` with ``encoder_params``, refitted inside
    every training fold, so the target never leaks). The table's other
    numeric columns (not the target) are passed through unchanged.
    ``n_jobs``: threads of the random forest (None: one, -1: every core).
    """
    import time

    from sklearn.compose import ColumnTransformer
    from sklearn.ensemble import RandomForestRegressor
    from sklearn.linear_model import RidgeCV
    from sklearn.model_selection import KFold, cross_val_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder, OrdinalEncoder, StandardScaler

    if column not in frame or target not in frame:
        raise ValueError(f"The table needs the columns {column!r} and {target!r}.")
    data = frame.dropna(subset=[column, target])
    others = [c for c in data.select_dtypes("number").columns if c not in (column, target)]
    data = data.dropna(subset=others)
    X = data[[column] + others].copy()
    X[column] = X[column].astype(str)
    y = data[target].to_numpy(dtype=np.float64)
    if len(data) < cv * 2:
        raise ValueError(f"Only {len(data)} complete rows: {cv}-fold cross-validation needs at least {cv * 2}.")
    encoders = {
        "one-hot": OneHotEncoder(handle_unknown="ignore"),
        "ordinal": OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1),
        "spectral": SpectralCategoryEncoder(**(encoder_params or {})),
    }
    models = {
        "random forest": lambda: RandomForestRegressor(n_estimators=100, min_samples_leaf=3, random_state=random_state,
                                                         n_jobs=n_jobs),
        "ridge": lambda: make_pipeline(StandardScaler(with_mean=False), RidgeCV(alphas=np.logspace(-3, 3, 13))),
    }
    folds = KFold(n_splits=cv, shuffle=True, random_state=random_state)
    rows, jobs = [], [(m, e) for m in models for e in encoders]
    for i, (model_name, enc_name) in enumerate(jobs):
        from sklearn.base import clone

        pre = ColumnTransformer([(enc_name, clone(encoders[enc_name]), [column])], remainder="passthrough")
        pipe = make_pipeline(pre, models[model_name]())
        t = time.perf_counter()
        scores = cross_val_score(pipe, X, y, cv=folds, scoring="r2")
        width = pre.fit(X, y).transform(X).shape[1] - len(others)
        rows.append({"model": model_name, "encoding": enc_name, "r2": float(scores.mean()),
                     "r2_std": float(scores.std()), "columns": int(width), "seconds": time.perf_counter() - t})
        if progress is not None:
            progress((i + 1) / len(jobs), f"{model_name} + {enc_name}")
    return pd.DataFrame(rows)
