"""Spectral codes at work: the spectrum as gamma varies, which columns of a table can be coded, and a downstream test against one-hot, ordinal and target codes under the lab's protocol."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.linalg import eigvalsh

from numbers import Real

from sklearn.utils._param_validation import Interval, StrOptions

from .._params import keep_parameters
from .encoder import SpectralCategoryEncoder
from .graph import code_spectrum, normalized_laplacian
from .kernels import kernel_from_distances, median_distance


def gamma_sweep(D, gamma: float, factors=(0.01, 0.1, 1.0, 10.0, 100.0), smallest: bool = False) -> pd.DataFrame:
    """The Laplacian's spectrum of ``exp(-gamma * f * D)`` for each factor ``f``.

    ``smallest``: only the eigenvalues a code can use (:func:`.graph.code_spectrum`; every one up to 300
    categories), for a large graph.

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
        if smallest:
            vals = code_spectrum(A)[0]
        else:
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


#: The kernel widths the spectral code is tuned over, as multiples of 1 / (median distance of the training rows'
#: categories): gamma = scale / median. Widened past an edge that wins.
GAMMA_SCALES: tuple[float, ...] = (0.1, 0.3, 1.0, 3.0, 10.0)
#: The encodings compared, in table order ("target" is scikit-learn's TargetEncoder, cross-fitted in each fold).
ENCODINGS = ("one-hot", "ordinal", "target", "spectral")
#: The models each encoding feeds.
MODELS = ("random forest", "ridge")


class InFoldSpectralCode(SpectralCategoryEncoder):
    """A :class:`SpectralCategoryEncoder` whose kernel width is set from the rows it is fitted on.

    For each column, ``fit`` learns each category's target distribution from
    the rows given, their distances, ``gamma = gamma_scale / median distance``
    (``gammas_``, one per column: gamma is chosen in the fold, the median being
    the training rows'), the kernel and its spectral code. Every other
    parameter is the encoder's; ``kernel`` is "wasserstein" or "kl".

    Examples
    --------
    >>> days = np.array(["Mon", "Tue", "Sat", "Sun"] * 25)
    >>> tips = np.where(np.isin(days, ["Sat", "Sun"]), 5.0, 2.0) + np.tile([0.0, 0.1, 0.2, 0.3, 0.4], 20)
    >>> enc = InFoldSpectralCode(gamma_scale=1.0).fit(days.reshape(-1, 1), tips)
    >>> len(enc.gammas_), enc.transform([["Sat"], ["Mon"]]).shape
    (1, (2, 1))
    """

    _parameter_constraints: dict = {
        **{k: v for k, v in SpectralCategoryEncoder._parameter_constraints.items()
           if k not in ("gamma", "affinity", "categories", "kernel")},
        "kernel": [StrOptions({"wasserstein", "kl"})],
        "gamma_scale": [Interval(Real, 0, None, closed="neither")],
    }

    def __init__(self, *, gamma_scale: float = 1.0, kernel: str = "wasserstein", n_components="eigengap",
                 keep_trivial: bool = False, normalize: bool = False, target_transform: str | None = None,
                 bins: int = 32, smoothing: float = 0.5, handle_unknown: str = "mean", n_jobs: int | None = None):
        keep_parameters(self, locals())

    def _width(self, D: np.ndarray) -> float:
        """gamma_scale / the median distance between this column's categories in the rows fitted."""
        return float(self.gamma_scale) / median_distance(D)


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
    gamma_scales=None,
    models: tuple[str, ...] = MODELS,
    encodings: tuple[str, ...] = ENCODINGS,
):
    """Held-out R^2 of a random forest and of ridge regression on four encodings of ``column``.

    Encodings: one-hot, ordinal (categories in sorted order), target (the mean
    target of each category, scikit-learn's ``TargetEncoder``, cross-fitted
    within the training rows) and spectral. The table's other numeric
    columns (not the target) are passed through unchanged. Everything an
    encoding learns is learned inside each training fold; the spectral code's
    kernel width is chosen there too, from :data:`GAMMA_SCALES` times 1 /
    (the training rows' median distance), by 3-fold cross-validation inside
    the training part. ``encoder_params`` are the spectral code's settings
    (kernel, n_components, keep_trivial, normalize, target_transform, bins,
    smoothing); with ``kernel="precomputed"`` (a kernel given, with
    ``affinity`` and ``categories``) it is used as given, nothing tuned.
    ``n_jobs``: threads of the random forest (None: one, -1: every core).
    ``models`` and ``encodings`` pick a part of :data:`MODELS` x :data:`ENCODINGS`.

    Returns the :class:`~embedcore.evaluation.Comparison` (sides named
    "model + encoding"; the spectral code against the target encoding and
    against one-hot, per model), with ``columns``: each encoding's width on
    every row.

    Examples
    --------
    >>> y = np.array([0.0, 0.1, 5.0, 5.1] * 10) + np.random.default_rng(0).normal(0, 0.01, 40)
    >>> frame = pd.DataFrame({"day": list("abcd") * 10, "tip": y})
    >>> result = compare_category_encodings(frame, "day", "tip", cv=2, models=("ridge",),
    ...                                     encodings=("one-hot", "spectral"), gamma_scales=(1.0,))
    >>> result.sides["side"].tolist(), bool((result.sides["held-out"] > 0.99).all())
    (['ridge + one-hot', 'ridge + spectral'], True)
    """
    from sklearn.base import clone
    from sklearn.compose import ColumnTransformer
    from sklearn.ensemble import RandomForestRegressor
    from sklearn.linear_model import RidgeCV
    from sklearn.metrics import r2_score
    from sklearn.model_selection import KFold
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder, OrdinalEncoder, StandardScaler, TargetEncoder

    from ..evaluation import Side, compare

    if column not in frame or target not in frame:
        raise ValueError(f"The table needs the columns {column!r} and {target!r}.")
    data = frame.dropna(subset=[column, target])
    others = [c for c in data.select_dtypes("number").columns if c not in (column, target)]
    data = data.dropna(subset=others)
    X = data[[column] + others].copy()
    X[column] = X[column].astype(str)
    X = X.reset_index(drop=True)
    y = data[target].to_numpy(dtype=np.float64)
    if len(data) < cv * 2:
        raise ValueError(f"Only {len(data)} complete rows: {cv}-fold cross-validation needs at least {cv * 2}.")
    params = dict(encoder_params or {})
    precomputed = params.get("kernel") == "precomputed"
    spectral_params = {k: params[k] for k in ("n_components", "keep_trivial", "normalize") if k in params}
    learned = {k: params[k] for k in ("kernel", "target_transform", "bins", "smoothing", "n_jobs") if k in params}
    scales = GAMMA_SCALES if gamma_scales is None else gamma_scales

    def encoder(name, setting):
        if name == "one-hot":
            return OneHotEncoder(handle_unknown="ignore")
        if name == "ordinal":
            return OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1)
        if name == "target":
            return TargetEncoder(target_type="continuous",
                                 cv=KFold(5, shuffle=True, random_state=random_state))
        if precomputed:
            return SpectralCategoryEncoder(**{k: v for k, v in params.items() if k != "gamma"})
        return InFoldSpectralCode(gamma_scale=setting["gamma_scale"], **learned, **spectral_params)

    regressors = {
        "random forest": lambda: RandomForestRegressor(n_estimators=100, min_samples_leaf=3, random_state=random_state,
                                                         n_jobs=n_jobs),
        "ridge": lambda: make_pipeline(StandardScaler(with_mean=False), RidgeCV(alphas=np.logspace(-3, 3, 13))),
    }

    def pipeline(model, name, setting):
        pre = ColumnTransformer([(name, encoder(name, setting), [column])], remainder="passthrough")
        return make_pipeline(pre, regressors[model]())

    def scorer(model, name):
        def score(setting, fit, ev):
            pipe = pipeline(model, name, setting).fit(X.iloc[fit], y[fit])
            return float(r2_score(y[ev], pipe.predict(X.iloc[ev])))
        return score

    sides = []
    for model in models:
        for name in encodings:
            tuned = name == "spectral" and not precomputed
            grid = [{"gamma_scale": float(g)} for g in scales] if tuned else [{}]
            sides.append(Side(f"{model} + {name}", scorer(model, name), grid, widen="gamma_scale" if tuned else None))
    pairs = [(f"{m} + spectral", f"{m} + {other}") for m in models for other in ("target", "one-hot")
             if "spectral" in encodings and other in encodings]
    result = compare(sides, len(y), n_splits=cv, inner_splits=3, random_state=random_state, pairs=pairs,
                     progress=progress)
    every = np.arange(len(y))
    result.columns = {}
    for name in encodings:
        enc = clone(encoder(name, {"gamma_scale": 1.0}))
        result.columns[name] = int(enc.fit(X.iloc[every][[column]], y).transform(X[[column]].iloc[:1]).shape[1]) \
            if name != "one-hot" else int(X[column].nunique())
    return result
