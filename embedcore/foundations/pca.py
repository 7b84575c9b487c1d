"""PCA two ways (the eigenvectors of the covariance, and greedily, one direction at a time) and the scaling pitfall: a feature measured in larger units takes over PC1 unless the data are standardised."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from sklearn.utils.extmath import svd_flip

from .._linalg import check_k


def standardise(X):
    """Centre every feature and scale it to unit variance (constant features are left at 0).

    Each column is first divided by its largest magnitude (which the result
    does not depend on), so values near the ends of floating point (1e306,
    1e-300) are standardised too instead of overflowing or underflowing.

    Examples
    --------
    >>> X = np.array([[1.0, 5.0], [3.0, 5.0]])
    >>> np.round(standardise(X), 12).tolist()
    [[-1.0, 0.0], [1.0, 0.0]]
    >>> bool(np.allclose(standardise(X * 1e306), standardise(X)))
    True
    """
    X = np.asarray(X, dtype=np.float64)
    top = np.abs(X).max(axis=0) if len(X) else np.ones(X.shape[1:])
    X = X / np.where(top > 0, top, 1.0)
    sd = X.std(axis=0)
    return (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)


_standardised = standardise  # scaling_experiment's keyword of the same name hides the function there


def eigen_pca(X, k: int):
    """PCA by eigenvectors: the top-``k`` eigenvectors of ``Xc^T Xc`` (Xc: centred X).

    Returns (components (k, d), variances (k,)), largest first, signs fixed so
    each component's largest loading is positive.

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(200, 3)) * [3.0, 1.0, 0.1]
    >>> components, variances = eigen_pca(X, 2)
    >>> components.shape, bool(variances[0] > variances[1])
    ((2, 3), True)
    """
    X = np.asarray(X, dtype=np.float64)
    Xc = X - X.mean(axis=0)
    k = check_k(k, X.shape[1])
    vals, vecs = np.linalg.eigh(Xc.T @ Xc)
    order = np.argsort(vals)[::-1][:k]
    comps = svd_flip(None, vecs[:, order].T, u_based_decision=False)[1]
    return comps, vals[order] / max(len(X) - 1, 1)


def greedy_pca(X, k: int, *, n_iter: int = 500, tol: float = 1e-12, random_state=0):
    """PCA one direction at a time: the unit vector of largest variance orthogonal to those found.

    Each direction is found by power iteration on the covariance with the
    directions already found removed (deflation), which is the greedy
    definition made computable. Returns (components (k, d), variances (k,)).

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(200, 3)) * [3.0, 1.0, 0.1]
    >>> greedy, _ = greedy_pca(X, 2)
    >>> exact, _ = eigen_pca(X, 2)
    >>> np.abs((greedy * exact).sum(axis=1)).round(6).tolist()  # the same directions, up to sign
    [1.0, 1.0]
    """
    X = np.asarray(X, dtype=np.float64)
    k = check_k(k, X.shape[1])
    Xc = X - X.mean(axis=0)
    C = Xc.T @ Xc / max(len(X) - 1, 1)
    rng = np.random.default_rng(random_state)
    comps, variances = [], []
    for _ in range(k):
        z = rng.standard_normal(C.shape[0])
        for _ in range(n_iter):
            z_new = C @ z
            # stay orthogonal to the directions already taken (deflation)
            for prev in comps:
                z_new -= (z_new @ prev) * prev
            norm = np.linalg.norm(z_new)
            if norm == 0:
                break
            z_new /= norm
            if np.linalg.norm(z_new - z) < tol or np.linalg.norm(z_new + z) < tol:
                z = z_new
                break
            z = z_new
        comps.append(z)
        variances.append(float(z @ C @ z))
        C = C - variances[-1] * np.outer(z, z)
    return svd_flip(None, np.array(comps), u_based_decision=False)[1], np.array(variances)


def rescale_feature(X, feature: int, factor: float) -> np.ndarray:
    """A copy of ``X`` with column ``feature`` multiplied by ``factor`` (a change of units).

    Examples
    --------
    >>> rescale_feature(np.ones((2, 3)), 2, 1000.0).tolist()
    [[1.0, 1.0, 1000.0], [1.0, 1.0, 1000.0]]
    """
    X = np.array(X, dtype=np.float64)
    X[:, feature] *= factor
    return X


def axis_angle_deg(direction, axis: int) -> float:
    """Angle in degrees (0 to 90) between the line along ``direction`` and coordinate axis ``axis``.

    Examples
    --------
    >>> round(axis_angle_deg([1.0, 1.0, 0.0], 0), 6)
    45.0
    >>> axis_angle_deg([0.0, 0.0, -2.0], 2)
    0.0
    """
    v = np.asarray(direction, dtype=np.float64)
    cos = abs(v[axis]) / np.linalg.norm(v)
    return float(np.degrees(np.arccos(min(1.0, cos))))


def line_angles_deg(A, B) -> np.ndarray:
    """Angle in degrees (0 to 90) between the line along each row of ``A`` and the line along the same row of
    ``B``: how far each component turned from one PCA to another, whatever its sign.

    Examples
    --------
    >>> line_angles_deg([[1.0, 0.0], [0.0, 1.0]], [[-2.0, 0.0], [1.0, 1.0]]).round(6).tolist()
    [0.0, 45.0]
    """
    A = np.atleast_2d(np.asarray(A, dtype=np.float64))
    B = np.atleast_2d(np.asarray(B, dtype=np.float64))
    if A.shape != B.shape:
        raise ValueError(f"A {A.shape} and B {B.shape} must have the same shape.")
    a = A / np.linalg.norm(A, axis=1, keepdims=True)
    b = B / np.linalg.norm(B, axis=1, keepdims=True)
    cos = np.abs((a * b).sum(axis=1))
    # the sine from the part of b off a's line: exact for small angles, where arccos of a cosine near 1 is not
    sin = np.linalg.norm(b - (a * b).sum(axis=1, keepdims=True) * a, axis=1)
    return np.degrees(np.arctan2(sin, cos))


class ScalingPCA(NamedTuple):
    """What PCA finds on data with one feature rescaled (see :func:`scaling_experiment`).

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(100, 3))
    >>> result = scaling_experiment(X, 0, 2.0)
    >>> bool(result.angle_deg < 1)  # feature 0 in hundredths: PC1 swings onto it
    True
    """

    #: the data as PCA sees them: centred, or standardised (n, d)
    points: np.ndarray
    #: components by eigenvectors (k, d), largest first
    eigen: np.ndarray
    #: components found greedily (k, d)
    greedy: np.ndarray
    #: variance along each eigen component (k,)
    variances: np.ndarray
    #: each component's share of the variance the k components hold (k,)
    explained: np.ndarray
    #: angle in degrees between the first component and the rescaled feature's axis
    angle_deg: float
    #: |cosine| between the greedy and the eigen first component (1: the same direction)
    agreement: float


def scaling_experiment(X, feature: int, log10_scale: float, *, standardise: bool = False,
                       n_components: int | None = None, random_state=0) -> ScalingPCA:
    """PCA, by eigenvectors and greedily, after multiplying one feature by ``10 ** log10_scale``.

    Variance depends on units: blow one feature up and the first component
    swings onto its axis; ``standardise=True`` (unit variance per feature)
    undoes that. ``n_components`` defaults to every feature.

    Examples
    --------
    >>> from embedcore.foundations import correlated_cloud
    >>> X = correlated_cloud(400, random_state=0)
    >>> scaling_experiment(X, 2, 0.0).angle_deg > 80  # z has the smallest variance
    True
    >>> scaling_experiment(X, 2, 3.0).angle_deg < 1  # in thousandths, it dominates
    True
    >>> scaling_experiment(X, 2, 3.0, standardise=True).angle_deg > 60
    True
    """
    X = rescale_feature(X, feature, 10.0 ** log10_scale)
    points = _standardised(X) if standardise else X - X.mean(axis=0)
    k = X.shape[1] if n_components is None else n_components
    eigen, variances = eigen_pca(points, k)
    greedy, _ = greedy_pca(points, k, random_state=random_state)
    total = variances.sum()
    explained = variances / total if total > 0 else np.full(len(variances), np.nan)
    return ScalingPCA(points, eigen, greedy, variances, explained, axis_angle_deg(eigen[0], feature),
                      float(abs(eigen[0] @ greedy[0])))
