"""Draw any data set in 2-D (or 3-D) by a named method, behind one interface.

Every method returns a :class:`MapResult` with the coordinates, the
parameters used and what the method reports beside them. Iterative methods report progress through ``progress(fraction, text)``
and, for t-SNE, the coordinates so far (``on_layout(Y, iteration)``, the iteration counted over
both of its phases, early exaggeration and the rest) so a page can redraw while it optimises.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
from sklearn.utils import check_array

__all__ = ["METHODS", "MapResult", "embed", "largest_perplexity", "method_defaults"]

#: name -> default parameters
METHODS: dict[str, dict] = {
    "pca": {},
    "lle": {"n_neighbors": 12, "reg": 1e-3},
    "modified": {"n_neighbors": 12},
    "hessian": {"n_neighbors": 12},
    "ltsa": {"n_neighbors": 12},
    "isomap": {"n_neighbors": 12},
    "spectral": {"n_neighbors": 12},
    "tsne": {"perplexity": 30.0, "n_iter": 500, "exaggeration": 1.0, "init": "pca"},
    "umap": {"n_neighbors": 15, "min_dist": 0.1, "init": "spectral"},
}
#: Points up to which Isomap keeps every pair's path (scikit-learn's); past them, paths from landmarks
#: (:func:`embedcore.isomap.landmark_isomap`).
ISOMAP_EXACT = 3000
#: What the messages call each method.
_NAMES = {"pca": "PCA", "lle": "LLE", "modified": "Modified LLE", "hessian": "Hessian LLE", "ltsa": "LTSA",
          "isomap": "Isomap", "spectral": "Laplacian eigenmaps", "tsne": "t-SNE", "umap": "UMAP"}


@dataclass
class MapResult:
    """A map made by :func:`embed`.

    Attributes
    ----------
    method : str
        The key of :data:`METHODS` that made it.
    coords : ndarray of shape (n_samples, n_components)
        The map.
    params : dict
        The parameters used: the method's defaults updated by those given.
    extra : dict
        What the method reports beside the map (PCA's ``explained_variance_ratio``, LLE's
        ``reconstruction_error``).

    Examples
    --------
    >>> r = embed(np.eye(4), "pca")
    >>> r.method, r.coords.shape
    ('pca', (4, 2))
    """

    method: str
    coords: np.ndarray
    params: dict = field(default_factory=dict)
    extra: dict = field(default_factory=dict)


def largest_perplexity(n_points: int) -> int:
    """The largest whole perplexity t-SNE accepts on ``n_points`` points: it needs more than 3 x perplexity of
    them (0 when there are too few for any).

    Examples
    --------
    >>> largest_perplexity(300), largest_perplexity(60), largest_perplexity(3)
    (99, 19, 0)
    """
    return max(0, (int(n_points) - 1) // 3)


def method_defaults(method: str) -> dict:
    """The default parameters of ``method``, a key of :data:`METHODS` (a copy).

    Examples
    --------
    >>> method_defaults("umap")
    {'n_neighbors': 15, 'min_dist': 0.1, 'init': 'spectral'}
    """
    if method not in METHODS:
        raise ValueError(f"Unknown method {method!r}; choose one of {', '.join(METHODS)}.")
    return dict(METHODS[method])


def _check_neighbors(method: str, n_neighbors: int, n: int, n_components: int) -> None:
    if n_neighbors >= n:
        raise ValueError(f"{_NAMES[method]}: n_neighbors={n_neighbors} must be below the number of points ({n}).")
    if method == "hessian":
        need = n_components * (n_components + 3) // 2
        if n_neighbors <= need:
            raise ValueError(
                f"Hessian LLE in {n_components}-D estimates a Hessian from each neighbourhood and needs "
                f"n_neighbors > n_components * (n_components + 3) / 2 = {need}; got {n_neighbors}."
            )
    if method == "modified" and n_neighbors < n_components:
        raise ValueError(f"Modified LLE needs n_neighbors >= n_components ({n_components}); got {n_neighbors}.")


def embed(X, method: str, *, n_components: int = 2, random_state=0, progress=None, on_layout=None,
          n_jobs: int | None = None, **params) -> MapResult:
    """Map ``X`` to ``n_components`` dimensions with ``method`` (a key of :data:`METHODS`).

    ``n_jobs`` is the threads the method may use (None: one, as in
    scikit-learn), for the neighbour searches and t-SNE's gradient; a
    server sets it to its share of the cores. UMAP runs on one thread
    whenever ``random_state`` is set: its parallel layout does not repeat.

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(50, 3))
    >>> r = embed(X, "pca")
    >>> r.coords.shape, r.params, round(float(r.extra["explained_variance_ratio"].sum()), 2)
    ((50, 2), {}, 0.77)
    """
    X = check_array(X, dtype=np.float64, input_name="X")
    p = method_defaults(method)
    unknown = set(params) - set(p)
    if unknown:
        raise ValueError(f"{_NAMES[method]} takes {sorted(p) or 'no parameters'}, not {sorted(unknown)}.")
    p.update(params)
    n = len(X)
    if "n_neighbors" in p:
        _check_neighbors(method, int(p["n_neighbors"]), n, n_components)
    extra: dict = {}
    if method == "pca":
        from sklearn.decomposition import PCA

        pca = PCA(n_components=n_components, random_state=random_state).fit(X)
        Y = pca.transform(X)
        extra["explained_variance_ratio"] = pca.explained_variance_ratio_
    elif method == "lle":
        from .manifold import LLE

        model = LLE(n_neighbors=int(p["n_neighbors"]), n_components=n_components, reg=float(p["reg"]),
                    random_state=random_state, n_jobs=n_jobs).fit(X)
        Y = model.embedding_
        extra["reconstruction_error"] = model.reconstruction_error_
    elif method in ("modified", "hessian", "ltsa"):
        from sklearn.manifold import LocallyLinearEmbedding

        Y = LocallyLinearEmbedding(n_neighbors=int(p["n_neighbors"]), n_components=n_components, method=method,
                                   eigen_solver="dense" if n <= 2000 else "arpack",
                                   random_state=random_state, n_jobs=n_jobs).fit_transform(X)
    elif method == "isomap":
        if n <= ISOMAP_EXACT:
            from sklearn.manifold import Isomap

            Y = Isomap(n_neighbors=int(p["n_neighbors"]), n_components=n_components, n_jobs=n_jobs).fit_transform(X)
        else:  # the n x n paths would not fit: paths from landmarks (3.2 GB at 20,000 points; 40 MB at 100,000)
            from .isomap import LANDMARKS, landmark_isomap

            Y = landmark_isomap(X, int(p["n_neighbors"]), n_components, random_state=random_state, n_jobs=n_jobs)
            extra["landmarks"] = min(len(X), LANDMARKS)
    elif method == "spectral":
        from sklearn.manifold import SpectralEmbedding

        Y = SpectralEmbedding(n_components=n_components, n_neighbors=int(p["n_neighbors"]),
                              random_state=random_state, n_jobs=n_jobs).fit_transform(X)
    elif method == "tsne":
        Y = _tsne(X, n_components, float(p["perplexity"]), int(p["n_iter"]), random_state, progress, on_layout,
                  1 if n_jobs is None else n_jobs, float(p["exaggeration"]), _init(p["init"], ("pca", "random")))
    elif method == "umap":
        import umap

        _cache_once()
        if progress is not None:
            progress(0.0, "UMAP: the neighbour graph and the start")
        # umap-learn reports its epochs only through a tqdm bar: the bar writes to _EpochReader, which hands
        # "epoch i of n" to ``progress``
        Y = umap.UMAP(n_neighbors=int(p["n_neighbors"]), min_dist=float(p["min_dist"]), n_components=n_components,
                      tqdm_kwds=None if progress is None else {"disable": False, "file": _EpochReader(progress),
                                                               "mininterval": 0.2, "ascii": True},
                      random_state=random_state, init=_init(p["init"], ("spectral", "pca", "random")),
                      n_jobs=1 if n_jobs is None or random_state is not None else n_jobs).fit_transform(X)
    else:  # pragma: no cover - guarded by method_defaults
        raise AssertionError(method)
    if progress is not None:
        progress(1.0, f"{_NAMES[method]} done")
    return MapResult(method, np.asarray(Y, dtype=np.float64), p, extra)


def cache_compiled() -> int:
    """Have numba keep umap-learn's and pynndescent's compiled functions on disk, as it keeps those their authors
    marked ``cache=True``: each process then loads them instead of compiling them again at its first UMAP (3,000 x
    64 points: 22.7 s in a fresh process, 10.3 s with the cache, 9.4 s warm). Returns how many functions were
    switched to it. Numba writes the cache beside the library's files (or in its own cache directory when those
    are read-only) and checks it against the source before using it."""
    import sys

    import pynndescent  # noqa: F401  (its modules are among those switched)
    import umap  # noqa: F401
    from numba.core.caching import NullCache
    from numba.core.dispatcher import Dispatcher

    switched = 0
    for name, module in list(sys.modules.items()):
        if name.split(".")[0] not in ("umap", "pynndescent"):
            continue
        for obj in list(vars(module).values()):
            if isinstance(obj, Dispatcher) and isinstance(obj._cache, NullCache):
                obj.enable_caching()
                switched += 1
    return switched


def compiled_on_disk() -> bool:
    """Whether numba's disk cache already holds the functions a UMAP map calls (the layout's, the fuzzy graph's,
    the exact neighbour search below 4,096 points and pynndescent's above), after :func:`cache_compiled`."""
    import os

    try:
        import pynndescent.pynndescent_ as nnd
        import umap.layouts
        import umap.umap_
        import umap.utils

        used = (umap.layouts.clip, umap.umap_.smooth_knn_dist, umap.umap_.compute_membership_strengths,
                umap.utils.fast_knn_indices, nnd.process_candidates)
        return all(os.path.exists(f._cache._cache_file._index_path) for f in used)
    except (AttributeError, ImportError):  # another umap-learn or numba: say no, and compile
        return False


def warm_umap() -> None:
    """Load (or compile) what a UMAP map calls, so a process's first map costs what a later one does: a UMAP of
    200 seeded points brings in umap-learn, its fuzzy graph, the exact neighbour search used below 4,096 points,
    the spectral start and the layout's epochs (0.1 s once numba's disk cache holds them, :func:`cache_compiled`).
    When the cache lacks them (the first start after an install), a UMAP of 4,200 points compiles pynndescent's
    search too, which numba keeps on disk for the next processes. A server calls this when its Maps page is first opened, in the
    background (``app.services.ahead``).

    >>> warm_umap()  # doctest: +SKIP
    """
    import umap

    _cache_once()
    cold = not compiled_on_disk()
    rng = np.random.default_rng(0)
    for n, init in ((200, "spectral"), (4200, "random"))[:2 if cold else 1]:
        umap.UMAP(n_neighbors=10, n_epochs=10, init=init, random_state=0, n_jobs=1).fit_transform(
            rng.normal(size=(n, 8)))


_CACHED: list[int] = []


def _cache_once() -> None:
    if not _CACHED:
        _CACHED.append(cache_compiled())


class _EpochReader:
    """A file for tqdm to write its bar to: each "i/n" it writes becomes ``progress(i / n, ...)``."""

    _COUNT = re.compile(r"(\d+)/(\d+)")

    def __init__(self, progress):
        self.progress = progress

    def write(self, text: str) -> int:
        found = self._COUNT.findall(text)
        if found:
            done, total = map(int, found[-1])
            if total:
                self.progress(min(done / total, 0.99), f"UMAP epoch {done} of {total}")
        return len(text)

    def flush(self) -> None:
        pass


def _init(value, allowed: tuple) -> str:
    if value not in allowed:
        raise ValueError(f"init must be one of {', '.join(allowed)}; got {value!r}.")
    return str(value)


def _tsne(X, n_components, perplexity, n_iter, random_state, progress, on_layout, n_jobs, exaggeration=1.0,
          init="pca"):
    from openTSNE import TSNE

    if perplexity * 3 >= len(X):
        raise ValueError(f"t-SNE: perplexity={perplexity:g} needs more than {int(perplexity * 3)} points; "
                         f"lower it below {len(X) / 3:.0f}.")
    every = 5  # a callback is where a person's Stop is heard: keep it within a fraction of a second
    exaggeration_iter = 250  # openTSNE's own default, given to it below so the count here cannot drift from it
    total = exaggeration_iter + n_iter
    seen = [0, 0]  # the iterations of the phases before this one, the last iteration seen in this one

    def callback(iteration, error, embedding):
        if iteration < seen[1]:  # openTSNE counts from 0 again once the early exaggeration is over
            seen[0] += seen[1]
        seen[1] = iteration
        done = seen[0] + iteration
        if progress is not None:
            progress(min(done / total, 0.99), f"t-SNE iteration {done} of {total}, KL divergence {error:.3f}")
        if on_layout is not None:
            return bool(on_layout(np.asarray(embedding), done))
        return False

    # Barnes-Hut beats the FFT interpolation below ~10,000 points (2.9 s vs 13 s on 1,500 here).
    method = "bh" if len(X) < 10_000 else "fft"
    if not 1.0 <= exaggeration <= 32.0:
        raise ValueError(f"t-SNE: exaggeration must be between 1 and 32; got {exaggeration:g}.")
    tsne = TSNE(n_components=n_components, perplexity=perplexity, n_iter=n_iter, random_state=random_state,
                early_exaggeration_iter=exaggeration_iter, exaggeration=None if exaggeration == 1.0 else exaggeration,
                initialization=init,
                negative_gradient_method=method, n_jobs=n_jobs, callbacks=callback, callbacks_every_iters=every,
                verbose=False)
    return np.asarray(tsne.fit(X, affinities=_tsne_affinities(X, perplexity, random_state, n_jobs)))


def _tsne_affinities(X, perplexity: float, random_state, n_jobs: int):
    """openTSNE's own affinities for ``X`` with the neighbour search its "auto" picks for dense Euclidean data
    (exact below 1,000 points, Annoy above), given to it as an index: asked to choose itself, openTSNE first
    imports pynndescent to see whether it is installed, 0.9 s of a process's first t-SNE, for a library it does
    not use on such data. The result is the same, point for point (tests/unit/test_manifold.py)."""
    from openTSNE.affinity import MultiscaleMixture
    from openTSNE.nearest_neighbors import Annoy, Sklearn

    k = min(len(X) - 1, int(3 * perplexity))
    index = (Sklearn if len(X) < 1000 else Annoy)(X, k, metric="euclidean", n_jobs=n_jobs, random_state=random_state)
    return MultiscaleMixture(perplexities=perplexity, knn_index=index, n_jobs=n_jobs, random_state=random_state)
