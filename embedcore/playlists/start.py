"""Where training starts: small random points, or the "lift" (train in more dimensions, then project).

A 2-D map trained from random points often stays folded in a poorer optimum. The lift
gives the points eight more dimensions to untangle in (:func:`lift`), trains there for a
share of the iterations, and projects onto the top principal plane (:func:`project`),
from where training continues in the map's own dimension.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_random_state

from .._linalg import pca_basis

__all__ = ["LIFT_DIMS", "LIFT_SHARE", "lift", "project", "random_start"]

#: Extra dimensions of the lifted start.
LIFT_DIMS = 8
#: Share of ``max_iter`` spent lifted.
LIFT_SHARE = 0.3


def random_start(n_songs: int, n_components: int, model: str, random_state=None):
    """Entry and exit points to start from: Gaussian with standard deviation 0.5.

    Dual exit points are the entry points moved by a little noise (standard deviation
    0.1); single-point exits equal the entries.

    Examples
    --------
    >>> U, V = random_start(4, 2, "dual", random_state=0)
    >>> U.shape, V.shape, bool(np.abs(U - V).max() < 0.5)
    ((4, 2), (4, 2), True)
    """
    rng = check_random_state(random_state)
    U = 0.5 * rng.standard_normal((n_songs, n_components))
    V = U.copy() if model == "single" else U + 0.1 * rng.standard_normal((n_songs, n_components))
    return U, V


def lift(U, V, A, model: str, random_state=None, extra: int = LIFT_DIMS):
    """The points with ``extra`` more dimensions, drawn as the start draws them.

    The new dimensions of the entry points are Gaussian (standard deviation 0.5) and the
    dual exit points share them; tag points ``A`` (if any) get small ones (0.1).

    Examples
    --------
    >>> U, V = random_start(5, 2, "single", random_state=0)
    >>> Uh, Vh, Ah = lift(U, V, None, "single", random_state=0)
    >>> Uh.shape, np.array_equal(Uh[:, :2], U), Ah is None
    ((5, 10), True, True)
    """
    rng = check_random_state(random_state)
    S, k = U.shape
    Uh = np.hstack([U, 0.5 * rng.standard_normal((S, extra))])
    Vh = Uh.copy() if model == "single" else np.hstack([V, Uh[:, k:]])
    Ah = None if A is None else np.hstack([A, 0.1 * rng.standard_normal((len(A), extra))])
    return Uh, Vh, Ah


def project(Uh, Vh, Ah, n_components: int, model: str):
    """Lifted points projected onto their top ``n_components`` principal directions.

    The directions are those of the entry points (single model) or of entry and exit
    points together (dual); tag points follow the same projection.

    Examples
    --------
    >>> rng = np.random.RandomState(0)
    >>> Uh = rng.standard_normal((50, 10)) * ([3.0, 2.0] + [0.1] * 8)
    >>> U, V, A = project(Uh, Uh, None, 2, "single")
    >>> U.shape, V is U, bool(U.var(axis=0).sum() > 0.9 * Uh.var(axis=0).sum())
    ((50, 2), True, True)
    """

    stacked = np.vstack([Uh, Vh]) if model == "dual" else Uh
    mean, basis, _ = pca_basis(stacked, n_components)
    U = (Uh - mean) @ basis
    V = U if model == "single" else (Vh - mean) @ basis
    A = None if Ah is None else (Ah - mean) @ basis
    return U, V, A
