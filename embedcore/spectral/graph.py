"""The graph of a kernel: its normalised Laplacian and spectrum, connected components, the eigengap, the Fiedler vector, sweep cuts along any vector and k-way spectral clustering. The Graphs page's plain graphs use the same functions."""

from __future__ import annotations

import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy.linalg import eigh
from scipy.sparse.linalg import eigsh
from sklearn.utils.extmath import svd_flip
from sklearn.utils.validation import check_random_state

_DENSE_LIMIT = 1500  # up to this many nodes a full dense eigendecomposition is cheap
#: The eigengap rule looks for the largest gap among at most this many non-trivial eigenvalues past the first
#: (half of them when a graph has fewer): a code wider than this is no longer short, and a graph of thousands
#: of nodes then needs only its smallest eigenpairs, not all of them.
EIGENGAP_WINDOW = 50
#: Up to this many nodes :func:`code_spectrum` returns every eigenpair.
FULL_SPECTRUM_LIMIT = 300


def node_names(n: int, labels) -> list[str]:
    """The names messages give ``n`` nodes: their labels as text, or their positions.

    Examples
    --------
    >>> node_names(3, None), node_names(2, ['a', 7])
    (['0', '1', '2'], ['a', '7'])
    """
    return [str(v) for v in labels] if labels is not None else [str(i) for i in range(n)]


def check_affinity(A, labels=None):
    """Validate a symmetric, non-negative affinity matrix; return it and its degrees.

    Examples
    --------
    >>> A, degree = check_affinity(np.array([[0.0, 2.0], [2.0, 0.0]]))
    >>> degree.tolist()
    [2.0, 2.0]
    """
    is_sparse = sp.issparse(A)
    if is_sparse:
        A = sp.csr_array(A, dtype=np.float64)
    else:
        A = np.asarray(A, dtype=np.float64)
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError(f"The affinity matrix must be square (categories x categories); got shape {A.shape}.")
    n = A.shape[0]
    names = node_names(n, labels)
    values = A.data if is_sparse else A
    if not np.all(np.isfinite(values)):
        raise ValueError("The affinity matrix has NaN or infinite entries; every pair needs a finite similarity.")
    if (values < 0).any():
        if is_sparse:
            coo = A.tocoo()
            k = int(np.flatnonzero(coo.data < 0)[0])
            i, j = int(coo.row[k]), int(coo.col[k])
        else:
            i, j = (int(v) for v in np.argwhere(A < 0)[0])
        raise ValueError(
            f"The affinity between {names[i]!r} and {names[j]!r} is {A[i, j]:g}; affinities must be >= 0 "
            "(a similarity, not a correlation). Shift or clip them first."
        )
    if not is_sparse and np.array_equal(A, A.T):  # the common case, without a float copy of the matrix
        worst, scale = 0.0, 1.0
    else:
        asym = abs(A - A.T)
        worst = asym.max() if not is_sparse else (asym.max() if asym.nnz else 0.0)
        scale = max(float(A.max()) if (not is_sparse or A.nnz) else 1.0, 1e-300)  # A >= 0 here
    if worst > 1e-8 * scale:
        if is_sparse:
            asym = asym.toarray()
        i, j = (int(v) for v in np.unravel_index(np.argmax(asym), asym.shape))
        raise ValueError(
            f"The affinity matrix is not symmetric: A[{names[i]!r}, {names[j]!r}] = {A[i, j]:g} but "
            f"A[{names[j]!r}, {names[i]!r}] = {A[j, i]:g}. Use (A + A.T) / 2."
        )
    degree = np.asarray(A.sum(axis=1)).ravel()
    return A, degree


def inverse_sqrt_degree(degree: np.ndarray) -> np.ndarray:
    """``d^{-1/2}``, and 0 for an isolated node (degree 0).

    Examples
    --------
    >>> inverse_sqrt_degree(np.array([4.0, 0.0, 1.0])).tolist()
    [0.5, 0.0, 1.0]
    """
    out = np.zeros_like(degree, dtype=np.float64)
    np.divide(1.0, np.sqrt(degree), out=out, where=degree > 0)
    return out


def connected_components(A, labels=None) -> list[list[str]]:
    """The graph's connected components as lists of category names, largest first.

    An isolated category (no similarity to any other, e.g. when a large gamma
    makes every affinity underflow to 0) is a component on its own.

    Examples
    --------
    >>> A = np.array([[0, 1.0, 0], [1.0, 0, 0], [0, 0, 0]])
    >>> connected_components(A, ["mon", "tue", "sun"])
    [['mon', 'tue'], ['sun']]
    """
    A, _ = check_affinity(A, labels)
    names = node_names(A.shape[0], labels)
    comp = component_labels(A)
    groups = [np.flatnonzero(comp == c) for c in range(comp.max() + 1)]
    groups.sort(key=lambda g: (-len(g), g[0]))
    return [[names[i] for i in g] for g in groups]


def component_labels(A) -> np.ndarray:
    """The connected component of every node of the graph whose edges are the non-zero affinities.

    Examples
    --------
    >>> component_labels(np.array([[0, 1, 0], [1, 0, 0], [0, 0, 0]])).tolist()
    [0, 0, 1]
    """
    from scipy.sparse.csgraph import connected_components as cc

    graph = sp.csr_array(A) if sp.issparse(A) else sp.csr_array(np.asarray(A) > 0)
    return cc(graph, directed=False)[1]


def normalized_laplacian(A, labels=None):
    """``I - D^{-1/2} A D^{-1/2}`` of a symmetric non-negative affinity matrix (dense or sparse).

    An isolated node (degree 0) gets a zero row and column, as in
    ``scipy.sparse.csgraph.laplacian``: it is a connected component of its
    own, with its own zero eigenvalue.

    Examples
    --------
    >>> normalized_laplacian(np.array([[0.0, 1.0], [1.0, 0.0]]))
    array([[ 1., -1.],
           [-1.,  1.]])
    """
    A, degree = check_affinity(A, labels)
    inv_sqrt = inverse_sqrt_degree(degree)
    n = A.shape[0]
    eye = (degree > 0).astype(np.float64)
    if sp.issparse(A):
        Dm = sp.dia_array((inv_sqrt[None, :], [0]), shape=(n, n))
        return sp.csr_array(sp.dia_array((eye[None, :], [0]), shape=(n, n)) - Dm @ A @ Dm)
    return np.diag(eye) - inv_sqrt[:, None] * A * inv_sqrt[None, :]


def _full_eigh(L: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every eigenpair of a symmetric matrix: LAPACK's divide and conquer (about 1.4x faster than the default
    relatively robust representations at 2,000 categories), the default driver if it does not converge."""
    try:
        return eigh(L, driver="evd")
    except np.linalg.LinAlgError:
        return eigh(L)


def laplacian_spectrum(A, n_components: int | None = None, labels=None, random_state=0, method: str = "auto"):
    """Eigenvalues (ascending) and eigenvectors (columns) of the normalised Laplacian.

    With ``n_components=None`` every eigenpair is returned (dense solver).
    Otherwise only the ``n_components`` smallest: a dense symmetric solver for
    small graphs, and for large ones Lanczos iterations (``eigsh``) on the
    normalised adjacency ``D^{-1/2} A D^{-1/2}``, whose largest eigenvalues are
    ``1 - `` the Laplacian's smallest; that converges fast where the
    Laplacian's bottom is crowded.

    When the graph has several connected components, the zero eigenvalue is
    repeated and any basis of its eigenspace is valid; the one returned is the
    components' indicators (``D^{1/2} 1_C``, normalised, largest component
    first), so each of those eigenvectors says "in this component or not".

    ``method``: ``"auto"`` as above, or ``"dense"`` for the dense solver at any size (Lanczos iterations can
    miss copies of a repeated eigenvalue, which a graph in several components has).

    Examples
    --------
    >>> two_triangles = np.array([[0, 1, 1, 0, 0, 0], [1, 0, 1, 0, 0, 0], [1, 1, 0, 1, 0, 0],
    ...                           [0, 0, 1, 0, 1, 1], [0, 0, 0, 1, 0, 1], [0, 0, 0, 1, 1, 0]], dtype=float)
    >>> vals, vecs = laplacian_spectrum(two_triangles)
    >>> np.round(vals, 3).tolist()
    [0.0, 0.205, 1.167, 1.5, 1.5, 1.629]
    """
    A, degree = check_affinity(A, labels)
    n = A.shape[0]
    k = n if n_components is None else int(n_components)
    if not 1 <= k <= n:
        raise ValueError(f"n_components must be between 1 and the number of categories ({n}); got {n_components}.")
    if method not in ("auto", "dense"):
        raise ValueError(f"method must be 'auto' or 'dense'; got {method!r}.")
    inv_sqrt = inverse_sqrt_degree(degree)
    isolated = (degree <= 0).astype(np.float64)
    if k == n or n <= _DENSE_LIMIT or k >= n // 3 or method == "dense":
        dense = A.toarray() if sp.issparse(A) else A
        L = np.diag(1.0 - isolated) - inv_sqrt[:, None] * dense * inv_sqrt[None, :]
        L = (L + L.T) / 2
        vals, vecs = eigh(L, subset_by_index=[0, k - 1]) if k < n else _full_eigh(L)
    else:
        # an isolated node gets 1 on the diagonal of S, i.e. a zero eigenvalue of L
        if sp.issparse(A):
            Dm = sp.dia_array((inv_sqrt[None, :], [0]), shape=(n, n))
            S = Dm @ A @ Dm + sp.dia_array((isolated[None, :], [0]), shape=(n, n))
        else:
            S = inv_sqrt[:, None] * A * inv_sqrt[None, :] + np.diag(isolated)
        v0 = check_random_state(random_state).uniform(-1, 1, n)
        mu, vecs = eigsh(S, k=k, which="LA", v0=v0, tol=1e-10)
        vals = 1.0 - mu
        order = np.argsort(vals)
        vals, vecs = vals[order], vecs[:, order]
    vals = np.clip(vals, 0.0, 2.0)
    n_zero = n_connected_components(vals)
    if n_zero > 1:
        comp = component_labels(A)
        sizes = np.bincount(comp)
        if len(sizes) == n_zero or (n_zero == vals.size and len(sizes) >= n_zero):
            rank = sorted(range(len(sizes)), key=lambda c: (-sizes[c], np.flatnonzero(comp == c)[0]))
            root = np.sqrt(np.where(degree > 0, degree, 1.0))
            for j, c in enumerate(rank[:n_zero]):
                ind = np.where(comp == c, root, 0.0)
                vecs[:, j] = ind / np.linalg.norm(ind)
    # deterministic signs: the largest-magnitude entry of each eigenvector is positive
    vecs, _ = svd_flip(vecs, None)
    return vals, vecs


def n_connected_components(eigenvalues, tol: float = 1e-8) -> int:
    """Connected components of the graph: the multiplicity of the Laplacian's zero eigenvalue.

    Examples
    --------
    >>> n_connected_components([0.0, 1e-12, 0.7, 1.3])
    2
    """
    return int(np.sum(np.asarray(eigenvalues) < tol))


def code_spectrum(A, labels=None, *, at_least: int = 0, random_state=0):
    """The smallest eigenpairs of the normalised Laplacian that a spectral code can use.

    Every zero eigenvalue (one per connected component), then the
    ``EIGENGAP_WINDOW + 1`` after them that :func:`eigengap` compares, and at
    least ``at_least`` in all; every eigenpair for a graph of at most
    :data:`FULL_SPECTRUM_LIMIT` nodes. With ``n_nodes`` set to the graph's
    size, :func:`choose_code` picks from these the code it picks from the
    whole spectrum, and the code's columns are among them. At 2,000 nodes
    this is Lanczos iterations for about 52 eigenpairs instead of a dense
    solver for 2,000; a graph in several components takes the dense solver
    for its smallest ones (it finds every copy of the zero eigenvalue).

    Returns ``(eigenvalues, eigenvectors)`` as :func:`laplacian_spectrum`.

    Examples
    --------
    >>> i = np.arange(400)
    >>> A = np.exp(-np.abs(i[:, None] - i[None, :]) / 20.0) * (i[:, None] != i[None, :])
    >>> vals, vecs = code_spectrum(A)
    >>> vals.size, vecs.shape
    (52, (400, 52))
    >>> eigengap(vals, n_nodes=400) == eigengap(laplacian_spectrum(A)[0])
    True
    """
    A, _ = check_affinity(A, labels)
    n = A.shape[0]
    if n <= FULL_SPECTRUM_LIMIT:
        return laplacian_spectrum(A, labels=labels)
    dense = not sp.issparse(A)
    every_pair = dense and np.count_nonzero(A) - np.count_nonzero(np.diagonal(A)) == n * (n - 1)
    n_parts = 1 if every_pair else int(component_labels(A).max()) + 1  # a kernel exp(-γ d) joins every pair
    m = min(n, max(int(at_least), n_parts + EIGENGAP_WINDOW + 1))
    while True:
        vals, vecs = laplacian_spectrum(A, n_components=m, labels=labels, random_state=random_state,
                                        method="dense" if n_parts > 1 else "auto")
        zeros = n_connected_components(vals)
        if m == n or vals.size - zeros >= EIGENGAP_WINDOW + 1:
            return vals, vecs
        # near-zero eigenvalues of weakly joined parts count as zeros too: look further
        m = min(n, max(2 * m, zeros + EIGENGAP_WINDOW + 1))
        n_parts = max(n_parts, 2)


def eigengap(eigenvalues, max_k: int | None = None, tol: float = 1e-8, n_nodes: int | None = None) -> int:
    """How many non-trivial eigenvectors to keep: those below the largest gap.

    The zero eigenvalues (one per connected component) are trivial and skipped;
    among the next ``max_k + 1`` eigenvalues, the largest difference between
    neighbours marks the gap. By default ``max_k`` is half the non-trivial
    eigenvalues, at most :data:`EIGENGAP_WINDOW`.

    ``n_nodes``: the graph's size when ``eigenvalues`` holds only its smallest
    ones (as :func:`code_spectrum` returns them); the window is that of the
    whole spectrum, so the answer is the same as from every eigenvalue.

    Examples
    --------
    >>> eigengap([0.0, 0.57, 1.09, 1.26, 1.27, 1.31, 1.51])
    1
    """
    ev = np.sort(np.asarray(eigenvalues, dtype=np.float64))
    start = n_connected_components(ev, tol)
    rest = ev[start:]
    total = (ev.size if n_nodes is None else int(n_nodes)) - start
    if total <= 1:
        return int(total)
    if max_k is None:
        max_k = max(1, min(total // 2, EIGENGAP_WINDOW))
    if rest.size < max_k + 1 and rest.size < total:
        raise ValueError(f"The eigengap rule compares {max_k + 1} eigenvalues past the zeros; only {rest.size} "
                         f"of the {total} are given.")
    window = rest[: max_k + 1]
    return int(np.argmax(np.diff(window)) + 1)


def fiedler_vector(A, eigenvectors=None) -> np.ndarray:
    """Each category's Fiedler value ``D^{-1/2} u_2`` (0 for an isolated category).

    ``u_2`` is the normalised Laplacian's second eigenvector; scaled by
    ``D^{-1/2}`` it is the relaxed solution of the normalised cut, so
    sorting by it puts alike categories next to each other.
    ``eigenvectors``: the Laplacian's eigenvectors (ascending), if already
    computed by :func:`laplacian_spectrum`.

    Examples
    --------
    >>> A = np.array([[0, 1.0, 0.1], [1.0, 0, 0.1], [0.1, 0.1, 0]])
    >>> v = fiedler_vector(A)
    >>> bool(np.sign(v[0]) == np.sign(v[1]) != np.sign(v[2]))
    True
    """
    A, degree = check_affinity(A)
    n = A.shape[0]
    if n < 2:
        return np.zeros(n)
    vecs = eigenvectors if eigenvectors is not None else laplacian_spectrum(A, n_components=2)[1]
    return vecs[:, 1] * inverse_sqrt_degree(degree)


def fiedler_order(A, eigenvectors=None) -> np.ndarray:
    """The categories' indices sorted by their Fiedler value (a stable sort).

    Reordering the affinity matrix by it shows the graph's blocks along the
    diagonal; a threshold along it is the sweep cut of :func:`fiedler_sweep`.

    Examples
    --------
    >>> names = ["mon", "sat", "tue", "sun"]
    >>> A = np.array([[0, 0.1, 1.0, 0], [0.1, 0, 0.1, 1.0], [1.0, 0.1, 0, 0.1], [0, 1.0, 0.1, 0]])
    >>> [names[i] for i in fiedler_order(A)]
    ['sun', 'sat', 'tue', 'mon']
    """
    return np.argsort(fiedler_vector(A, eigenvectors), kind="stable")


def lowest_conductance_cut(sweep: pd.DataFrame) -> tuple[int, float] | None:
    """The sweep cut of least conductance: (its row in ``sweep``, the conductance), or None.

    ``sweep`` is :func:`fiedler_sweep`'s table; its last row (everything on one
    side) is no cut. None when no cut has a conductance (every side has zero
    volume, e.g. when no category is similar to any other).

    Examples
    --------
    >>> sweep = pd.DataFrame({"conductance": [0.8, 0.2, 0.5, np.nan]})
    >>> lowest_conductance_cut(sweep)
    (1, 0.2)
    """
    cond = np.asarray(sweep["conductance"], dtype=np.float64)[:-1]
    if not np.isfinite(cond).any():
        return None
    best = int(np.nanargmin(cond))
    return best, float(cond[best])


def tie_order(x, rtol: float = 1e-10) -> np.ndarray:
    """The indices that sort ``x``, with values equal to ``rtol`` of the largest taken as ties, in index order.

    Nodes that a graph's symmetry makes equal (two leaves on the same node) get Fiedler values that differ
    only in their last bits, which the BLAS decides; ordering them by index instead makes every cut along
    the order the same in every process.

    Examples
    --------
    >>> tie_order([0.5, 0.1 + 1e-17, 0.1, -1.0]).tolist()
    [3, 1, 2, 0]
    """
    x = np.asarray(x, dtype=np.float64)
    scale = float(np.abs(x[np.isfinite(x)]).max()) if np.isfinite(x).any() else 1.0
    snapped = np.round(x / (scale * rtol if scale > 0 else 1.0))
    return np.lexsort((np.arange(x.size), snapped))


def sweep(A, x, labels=None) -> pd.DataFrame:
    """Sort the nodes by ``x`` (ties, equal to 1e-10 of the largest value, in index order; :func:`tie_order`)
    and cut after each: one row per prefix.

    Each row holds a node in that order, its value of ``x``, and for the cut that puts it and every node
    before it on one side, the cut weight and the conductance ``cut / min(vol S, vol S')`` (NaN when a side
    has no volume; the last row, everything on one side, is no cut). The sweep along the Fiedler vector is
    :func:`fiedler_sweep`; the Graphs page sweeps along any vector with it.

    Examples
    --------
    >>> A = np.array([[0, 1.0, 0.1], [1.0, 0, 0.1], [0.1, 0.1, 0]])
    >>> sweep(A, [0.2, 0.1, 0.9], ["a", "b", "c"])[["category", "cut"]].round(2).values.tolist()
    [['b', 1.1], ['a', 0.2], ['c', 0.0]]
    """
    A, degree = check_affinity(A, labels)
    dense = A.toarray() if sp.issparse(A) else A
    n = dense.shape[0]
    names = node_names(n, labels)
    x = np.asarray(x, dtype=np.float64)
    if x.shape != (n,):
        raise ValueError(f"x needs one value per node ({n}); got shape {x.shape}.")
    order = tie_order(x)
    P = dense[np.ix_(order, order)]
    deg = degree[order]
    inner = np.tril(P, -1).sum(axis=1)  # weight from each node to the nodes before it
    cut = np.cumsum(deg - 2 * inner)
    vol = np.cumsum(deg)
    total = vol[-1]
    denom = np.minimum(vol, total - vol)
    with np.errstate(divide="ignore", invalid="ignore"):
        conductance = np.where(denom > 0, cut / denom, np.nan)
    return pd.DataFrame({"node": order, "category": [names[i] for i in order], "fiedler": x[order], "cut": cut,
                         "conductance": conductance})


def fiedler_sweep(A, labels=None, eigenvectors=None) -> pd.DataFrame:
    """Order categories by the Fiedler vector and sweep a cut along that order (:func:`sweep`).

    Returns one row per category in Fiedler order: its value of ``D^{-1/2} v_2``
    and, for the cut that puts it and everything before it on one side, the
    cut weight and the conductance ``cut / min(vol(S), vol(S'))``.
    ``eigenvectors``: the Laplacian's eigenvectors (ascending) if already
    computed by :func:`laplacian_spectrum`, to avoid solving again.

    Examples
    --------
    >>> two_triangles = np.array([[0, 1, 1, 0, 0, 0], [1, 0, 1, 0, 0, 0], [1, 1, 0, 1, 0, 0],
    ...                           [0, 0, 1, 0, 1, 1], [0, 0, 0, 1, 0, 1], [0, 0, 0, 1, 1, 0]], dtype=float)
    >>> table = fiedler_sweep(two_triangles)
    >>> best = int(table["conductance"].idxmin())
    >>> sorted(table["category"][: best + 1]), round(float(table["conductance"][best]), 3)
    (['3', '4', '5'], 0.143)
    """
    A, _ = check_affinity(A, labels)
    return sweep(A, fiedler_vector(A, eigenvectors), labels).drop(columns="node")


def spectral_clusters(A, n_clusters: int, labels=None, random_state=0, eigenvectors=None) -> np.ndarray:
    """k-way spectral clustering: k-means on the row-normalised first ``n_clusters`` eigenvectors.

    ``eigenvectors``: as in :func:`fiedler_sweep`, reused when given.

    Examples
    --------
    >>> two_triangles = np.array([[0, 1, 1, 0, 0, 0], [1, 0, 1, 0, 0, 0], [1, 1, 0, 1, 0, 0],
    ...                           [0, 0, 1, 0, 1, 1], [0, 0, 0, 1, 0, 1], [0, 0, 0, 1, 1, 0]], dtype=float)
    >>> labels = spectral_clusters(two_triangles, 2)
    >>> len(set(labels[:3])) == len(set(labels[3:])) == 1 and bool(labels[0] != labels[3])
    True
    """
    from sklearn.cluster import KMeans
    from sklearn.preprocessing import normalize

    A, _ = check_affinity(A, labels)
    n = A.shape[0]
    if not 1 <= n_clusters <= n:
        raise ValueError(f"n_clusters must be between 1 and the number of categories ({n}), got {n_clusters}.")
    if eigenvectors is not None:
        vecs = eigenvectors[:, :n_clusters]
    else:
        vecs = laplacian_spectrum(A, n_components=n_clusters)[1]
    rows = normalize(vecs)
    return KMeans(n_clusters=n_clusters, n_init=10, random_state=random_state).fit_predict(rows)
