"""The SVD: the energy of each singular value, rank-k reconstructions, and the layers that add up to a matrix."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._linalg import check_k


def svd_energy(X, center: bool = False):
    """Singular values, cumulative energy (share of sum of squares) and the k that reaches 80%.

    ``center=True`` removes each column's mean first, so the energy counts
    variation rather than overall level (the first layer of an uncentred
    image is mostly its mean brightness).

    Examples
    --------
    >>> s, energy, k80 = svd_energy(np.diag([3.0, 2.0, 1.0]))
    >>> s.tolist(), energy.round(3).tolist(), k80
    ([3.0, 2.0, 1.0], [0.643, 0.929, 1.0], 2)
    """
    X = np.asarray(X, dtype=np.float64)
    if center:
        X = X - X.mean(axis=0)
    s = np.linalg.svd(X, compute_uv=False)
    energy = np.cumsum(s**2) / np.sum(s**2)
    return s, energy, int(np.searchsorted(energy, 0.8) + 1)


def low_rank(X, k: int, center: bool = False):
    """Best rank-k approximation (truncated SVD) and its relative Frobenius error.

    With ``center=True`` the column means are removed first and added back to
    the approximation; the error is then relative to the centred matrix.

    Examples
    --------
    >>> approx, error = low_rank(np.diag([3.0, 2.0, 1.0]), 2)
    >>> approx.round(6).tolist(), round(error, 4)
    ([[3.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 0.0]], 0.2673)
    """
    X = np.asarray(X, dtype=np.float64)
    k = check_k(k, min(X.shape))
    mean = X.mean(axis=0) if center else np.zeros(X.shape[1])
    Xc = X - mean
    U, s, Vt = np.linalg.svd(Xc, full_matrices=False)
    Xk = (U[:, :k] * s[:k]) @ Vt[:k]
    return Xk + mean, float(np.linalg.norm(Xc - Xk) / np.linalg.norm(Xc))


class SvdLayers(NamedTuple):
    """A matrix's SVD kept for rank-k reconstructions (see :func:`svd_layers`).

    Examples
    --------
    >>> svd_layers(np.diag([3.0, 2.0, 1.0])).s.tolist()
    [3.0, 2.0, 1.0]
    """

    #: the column means removed before the SVD (zeros when not centred), (d,)
    mean: np.ndarray
    #: left singular vectors of the rows kept, (rows kept, r)
    U: np.ndarray
    #: singular values, largest first, (r,)
    s: np.ndarray
    #: right singular vectors, (r, d)
    Vt: np.ndarray


def svd_layers(X, *, center: bool = False, rows: int | None = None) -> SvdLayers:
    """The SVD of ``X`` (its columns centred first when ``center``), keeping ``U`` for the first ``rows`` rows only.

    Enough to rebuild any rank-k approximation of those rows (:func:`rank_k`)
    without a new decomposition, and to know its error for the whole matrix.
    The matrix is divided by its largest magnitude first and the mean and
    singular values multiplied back, so a matrix of 1e306s or 1e-300s has the
    layers of its shape rather than overflowing or underflowing.

    Examples
    --------
    >>> layers = svd_layers(np.arange(12.0).reshape(4, 3), center=True, rows=2)
    >>> layers.U.shape, layers.Vt.shape
    ((2, 3), (3, 3))
    >>> bool(np.allclose(svd_layers(np.eye(3) * 1e306).s, 1e306))
    True
    """
    X = np.asarray(X, dtype=np.float64)
    top = float(np.abs(X).max()) if X.size else 0.0
    top = top if np.isfinite(top) and top > 0 else 1.0
    X = X / top
    mean = X.mean(axis=0) if center else np.zeros(X.shape[1])
    U, s, Vt = np.linalg.svd(X - mean, full_matrices=False)
    keep = len(X) if rows is None else min(int(rows), len(X))
    return SvdLayers(mean * top, np.ascontiguousarray(U[:keep]), s * top, Vt)


def rank_k(layers: SvdLayers, k: int):
    """The best rank-k approximation of the kept rows and its relative Frobenius error on the whole matrix.

    The error comes from the singular values (Eckart-Young:
    ``sqrt(sum_{i>k} s_i^2 / sum_i s_i^2)``), scaled by the largest first so
    it neither overflows nor underflows; the mean is added back when the
    layers were centred, as in :func:`low_rank`.

    Examples
    --------
    >>> X = np.random.default_rng(0).standard_normal((6, 4))
    >>> Xk, err = rank_k(svd_layers(X), 2)
    >>> Xk_ref, err_ref = low_rank(X, 2)
    >>> bool(np.allclose(Xk, Xk_ref)) and abs(err - err_ref) < 1e-12
    True
    """
    k = check_k(k, len(layers.s))
    Xk = (layers.U[:, :k] * layers.s[:k]) @ layers.Vt[:k] + layers.mean
    top = layers.s[0] if len(layers.s) else 0.0
    if not top > 0:
        return Xk, float("nan")
    s2 = (layers.s / top) ** 2
    return Xk, float(np.sqrt(s2[k:].sum() / s2.sum()))


def energy_profile(s, share: float = 0.8):
    """Cumulative energy of singular values ``s`` and the smallest k whose energy reaches ``share``.

    The same figures as :func:`svd_energy`, from the singular values, scaled
    so that magnitudes near the ends of floating point (1e306, 1e-300) still
    give shares. All-zero ``s`` gives NaN energy and k = 0.

    Examples
    --------
    >>> energy, k = energy_profile([3.0, 2.0, 1.0, 1.0])
    >>> np.round(energy, 3).tolist(), k
    ([0.6, 0.867, 0.933, 1.0], 2)
    >>> energy_profile([3e306, 1e306])[1]
    1
    """
    s = np.asarray(s, dtype=np.float64)
    top = s.max() if s.size else 0.0
    if not top > 0:
        return np.full(s.shape, np.nan), 0
    s2 = (s / top) ** 2
    energy = np.cumsum(s2) / s2.sum()
    return energy, int(min(np.searchsorted(energy, share) + 1, len(s)))


def grey_uint8(X) -> np.ndarray:
    """Grey levels in [0, 1] (clipped) as 8-bit pixels.

    Examples
    --------
    >>> grey_uint8([[-0.2, 0.5, 1.3]]).tolist()
    [[0, 128, 255]]
    """
    return np.rint(np.clip(np.asarray(X, dtype=np.float64), 0.0, 1.0) * 255).astype(np.uint8)
