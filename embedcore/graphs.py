"""Spectral clustering of a plain graph: the Laplacian, the Fiedler vector and the cuts it suggests.

A graph with edge weights ``w_ij`` has the Laplacian ``L = D - A`` (``D`` the
diagonal of degrees ``d_i = sum_j w_ij``), whose quadratic form is
``x^T L x = sum over edges of w_ij (x_i - x_j)^2``: small when tied nodes get
alike values. Its smallest eigenvalue is 0 (the constant vector); the second,
``lambda_2``, is the minimum of the Rayleigh quotient ``x^T L x / x^T x`` over
vectors orthogonal to the constant, and its eigenvector, the Fiedler vector,
is the minimiser: a one-number summary of each node that a threshold turns
into a cut. The normalised Laplacian ``I - D^{-1/2} A D^{-1/2}`` does the same
with the quotient ``x^T L x / x^T D x`` (the vector is ``D^{-1/2} u_2``), so
that heavy nodes count more.

A cut ``S`` is judged by ``cut(S)``, the weight of the edges with one end in
``S``, and by its conductance ``cut(S) / min(vol S, vol S')`` with
``vol S = sum of d_i over S``. Three thresholds along the Fiedler vector are
compared: 0, the median, and the best sweep cut (the prefix of the sorted
vector with the least conductance). Recursive bisection splits the largest
part again until there are k.

What is reused from :mod:`embedcore.spectral`: the normalised Laplacian and
its spectrum, the normalised Fiedler vector, the sweep along an order and the
choice of its least-conductance cut.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy.linalg import eigh
from scipy.sparse.csgraph import connected_components, shortest_path

from . import spectral
from .io.edges import GraphData

__all__ = [
    "GRAPHS",
    "RULES",
    "load_graph",
    "load_karate",
    "load_lesmis",
    "adjacency",
    "laplacian",
    "laplacian_eigenvalues",
    "Fiedler",
    "fiedler",
    "rayleigh_quotient",
    "turned",
    "rayleigh_profile",
    "random_quotients",
    "cut_weight",
    "volume",
    "conductance",
    "sweep_cuts",
    "Split",
    "split",
    "splits",
    "Bisection",
    "recursive_bisection",
    "parts_table",
    "misplaced",
    "layout",
]

#: Where a Fiedler vector is cut: at 0, at the median, or at the sweep cut of least conductance.
RULES = ("zero", "median", "sweep")


# --------------------------------------------------------------------------- bundled graphs


def load_karate() -> GraphData:
    """Zachary's karate club (networkx): 34 members, 78 ties, and the club each member joined after the split.

    Nodes are numbered 1-34 as in Zachary (1977): 1 is the instructor Mr. Hi, 34 the club's officer
    (John A.). Weights count the contexts in which two members met (1-7).

    Examples
    --------
    >>> g = load_karate()
    >>> len(g.nodes), g.n_edges, g.groups[0], g.groups[33]
    (34, 78, 'Mr. Hi', 'Officer')
    """
    import networkx as nx

    g = nx.karate_club_graph()
    order = sorted(g.nodes)
    A = sp.csr_array(nx.to_scipy_sparse_array(g, nodelist=order, weight="weight", dtype=np.float64))
    return GraphData("karate", nodes=[str(i + 1) for i in order], adjacency=A, weighted=True,
                     groups=[g.nodes[i]["club"] for i in order], group_name="club joined after the split",
                     description="Zachary's karate club (1977): 34 members of a university club and the 78 pairs who "
                                 "met outside it; a weight counts the contexts in which they met (1-7). The club split "
                                 "between the instructor Mr. Hi (node 1) and the officer John A. (node 34); each "
                                 "member's club after the split is known.")


def load_lesmis() -> GraphData:
    """The Les Misérables co-occurrence graph (networkx): 77 characters, 254 pairs who share a chapter.

    Examples
    --------
    >>> g = load_lesmis()
    >>> len(g.nodes), g.n_edges
    (77, 254)
    """
    import networkx as nx

    g = nx.les_miserables_graph()
    order = list(g.nodes)
    A = sp.csr_array(nx.to_scipy_sparse_array(g, nodelist=order, weight="weight", dtype=np.float64))
    return GraphData("lesmis", nodes=[str(v) for v in order], adjacency=A, weighted=True,
                     description="The characters of Victor Hugo's Les Misérables (Knuth's Stanford GraphBase): 77 "
                                 "characters and the 254 pairs who appear in a chapter together; a weight counts "
                                 "those chapters (1-31).")


#: Bundled graphs by id: (title, loader).
GRAPHS = {
    "karate": ("Zachary's karate club (34 members)", load_karate),
    "lesmis": ("Les Misérables characters (77)", load_lesmis),
}


def load_graph(graph_id: str) -> GraphData:
    """A bundled graph by id (see :data:`GRAPHS`).

    Examples
    --------
    >>> g = load_graph("lesmis")
    >>> g.name, len(g.nodes)
    ('lesmis', 77)
    """
    try:
        return GRAPHS[graph_id][1]()
    except KeyError:
        raise ValueError(f"Unknown graph {graph_id!r}; choose one of {sorted(GRAPHS)}.") from None


def adjacency(graph: GraphData, weighted: bool = True) -> np.ndarray:
    """The graph's dense adjacency: its weights, or 1 for every edge when ``weighted`` is False.

    Examples
    --------
    >>> adjacency(load_karate(), weighted=False).sum() / 2
    np.float64(78.0)
    """
    A = graph.adjacency.toarray().astype(np.float64)
    return A if weighted else (A > 0).astype(np.float64)


# --------------------------------------------------------------------------- Laplacians and the Fiedler vector


def _checked(A) -> tuple[np.ndarray, np.ndarray]:
    A, degree = spectral.check_affinity(A)
    return (A.toarray() if sp.issparse(A) else np.asarray(A)), degree


def laplacian(A, normalized: bool = False):
    """``D - A``, or ``I - D^{-1/2} A D^{-1/2}`` (:func:`embedcore.spectral.normalized_laplacian`).

    Examples
    --------
    >>> laplacian(np.array([[0.0, 2.0], [2.0, 0.0]]))
    array([[ 2., -2.],
           [-2.,  2.]])
    """
    if normalized:
        return spectral.normalized_laplacian(A)
    A, degree = spectral.check_affinity(A)
    if sp.issparse(A):
        return sp.csr_array(sp.diags_array(degree) - A)
    return np.diag(degree) - A


def laplacian_eigenvalues(A, normalized: bool = False) -> np.ndarray:
    """Every eigenvalue of the (normalised) Laplacian, ascending (0 once per connected component).

    Examples
    --------
    >>> laplacian_eigenvalues(np.array([[0.0, 1.0], [1.0, 0.0]])).round(6).tolist()
    [0.0, 2.0]
    """
    L = laplacian(_checked(A)[0], normalized)
    vals = np.linalg.eigvalsh((L + L.T) / 2)
    return np.clip(vals, 0.0, 2.0 if normalized else None)


class Fiedler(NamedTuple):
    """The Fiedler vector of a graph and its eigenvalue.

    Attributes
    ----------
    value : float
        ``lambda_2``, the least Rayleigh quotient over vectors orthogonal to the constant (0 when disconnected).
    vector : ndarray
        One value per node: the unit eigenvector of ``D - A`` (``x^T x = 1``), or for the normalised
        Laplacian ``D^{-1/2} u_2`` (``x^T D x = 1``). Its sign is fixed so that the first node is below 0.
    normalized : bool
    n_components : int
        Connected components. With more than one, ``lambda_2 = 0`` and any mix of component indicators
        is a minimiser; the vector returned is the (centred) indicator of the largest component.

    Examples
    --------
    >>> path = np.array([[0, 1, 0, 0], [1, 0, 1, 0], [0, 1, 0, 1], [0, 0, 1, 0]], dtype=float)
    >>> round(fiedler(path).value, 3), fiedler(path).n_components
    (0.586, 1)
    """

    value: float
    vector: np.ndarray
    normalized: bool
    n_components: int


def _fix_sign(x: np.ndarray) -> np.ndarray:
    """The first node below 0 (or, when it sits at 0, the largest entry above 0): the same side every time."""
    scale = np.abs(x).max() if x.size else 0.0
    if x.size and abs(x[0]) > 1e-9 * scale:
        return -x if x[0] > 0 else x
    return -x if x.size and x[np.argmax(np.abs(x))] < 0 else x


def fiedler(A, normalized: bool = False) -> Fiedler:
    """The Fiedler vector and ``lambda_2`` of the Laplacian ``D - A`` (or the normalised one).

    The unnormalised vector minimises ``x^T L x / x^T x`` over ``x`` orthogonal to the constant vector;
    the normalised one minimises ``x^T L x / x^T D x`` over ``x`` with ``x^T D 1 = 0``
    (:func:`embedcore.spectral.fiedler_vector`).

    Examples
    --------
    >>> path = np.diag(np.ones(3), 1) + np.diag(np.ones(3), -1)  # 1 - 2 - 3 - 4
    >>> f = fiedler(path)
    >>> round(f.value, 4), np.sign(f.vector).tolist()
    (0.5858, [-1.0, -1.0, 1.0, 1.0])
    """
    A, degree = _checked(A)
    n = A.shape[0]
    if n < 2:
        raise ValueError(f"A graph needs at least 2 nodes for a Fiedler vector; this one has {n}.")
    n_comp, comp = connected_components(sp.csr_array(A > 0), directed=False)
    if n_comp > 1:
        sizes = np.bincount(comp)
        largest = int(comp[np.flatnonzero(sizes[comp] == sizes.max())[0]])
        inside = (comp == largest).astype(np.float64)
        total = degree.sum()
        if normalized and total > 0:
            x = inside - degree[comp == largest].sum() / total
            norm = np.sqrt(x @ (degree * x))
        else:
            x = inside - inside.mean()
            norm = np.linalg.norm(x)
        return Fiedler(0.0, _fix_sign(x / (norm if norm > 0 else 1.0)), normalized, int(n_comp))
    if normalized:
        vals, vecs = spectral.laplacian_spectrum(A, n_components=2)
        x = spectral.fiedler_vector(A, vecs)
        value = float(vals[1])
    else:
        vals, vecs = eigh(np.diag(degree) - A, subset_by_index=[0, 1])
        x, value = vecs[:, 1], float(max(vals[1], 0.0))
    return Fiedler(value, _fix_sign(np.asarray(x, dtype=np.float64)), normalized, 1)


def rayleigh_quotient(A, x, normalized: bool = False) -> float:
    """``x^T L x / x^T x``, or ``x^T L x / x^T D x`` for the normalised Laplacian (nan for x = 0).

    ``x^T L x`` is the sum over edges of ``w_ij (x_i - x_j)^2``.

    Examples
    --------
    >>> A = np.array([[0, 1.0, 0], [1.0, 0, 1.0], [0, 1.0, 0]])
    >>> rayleigh_quotient(A, np.array([-1.0, 0.0, 1.0]))
    1.0
    """
    A, degree = _checked(A)
    x = np.asarray(x, dtype=np.float64)
    num = float(x @ (degree * x) - x @ (A @ x))
    den = float(x @ (degree * x)) if normalized else float(x @ x)
    return num / den if den > 0 else float("nan")


def _weights(degree: np.ndarray, normalized: bool) -> np.ndarray:
    """The inner product's weights: 1 per node, or its degree for the normalised Laplacian."""
    return degree if normalized and degree.sum() > 0 else np.ones_like(degree)


def _orthogonal_to_constant(X: np.ndarray, m: np.ndarray) -> np.ndarray:
    """Columns of ``X`` with their component along 1 removed in the inner product weighted by ``m``."""
    return X - np.outer(np.ones(len(m)), (m @ X) / m.sum())


def turned(A, angles, normalized: bool = False, random_state: int = 0, vector=None) -> np.ndarray:
    """The Fiedler vector turned by ``angles`` degrees towards a random direction orthogonal to it and to 1.

    ``cos(angle) f + sin(angle) r`` with ``f`` and ``r`` of unit length in the quotient's inner product, so
    its Rayleigh quotient is ``cos^2 lambda_2 + sin^2 R(r)``: the least at 0 degrees. One column per angle
    (a single angle gives a vector). ``vector``: the Fiedler vector, when already computed.

    Examples
    --------
    >>> A = load_karate().adjacency
    >>> X = turned(A, [0, 30, 60])
    >>> q = [rayleigh_quotient(A, X[:, j]) for j in range(3)]
    >>> q[0] < q[1] < q[2]
    True
    """
    A, degree = _checked(A)
    m = _weights(degree, normalized)
    f = fiedler(A, normalized).vector if vector is None else np.asarray(vector, dtype=np.float64)
    f = f / np.sqrt(f @ (m * f))
    r = _rng(random_state).standard_normal(len(f))
    r = _orthogonal_to_constant(r[:, None], m)[:, 0]
    r = r - (r @ (m * f)) * f
    size = np.sqrt(r @ (m * r))
    r = r / size if size > 1e-12 else np.zeros_like(r)  # two nodes: 1 and f span everything, no other direction
    t = np.deg2rad(np.asarray(angles, dtype=np.float64))
    return np.multiply.outer(f, np.cos(t)) + np.multiply.outer(r, np.sin(t))


def _rng(random_state) -> np.random.Generator:
    """A NumPy generator from a seed (or a generator, passed through)."""
    return random_state if isinstance(random_state, np.random.Generator) else np.random.default_rng(random_state)


def _quotients(A, degree, X, normalized: bool) -> np.ndarray:
    """The Rayleigh quotient of every column of ``X``."""
    num = np.einsum("ij,ij->j", X, degree[:, None] * X - A @ X)
    den = np.einsum("ij,ij->j", X, _weights(degree, normalized)[:, None] * X)
    with np.errstate(divide="ignore", invalid="ignore"):
        return num / den


def rayleigh_profile(A, normalized: bool = False, random_state: int = 0, angles=None, vector=None) -> pd.DataFrame:
    """The Rayleigh quotient of :func:`turned` at each angle (degrees, 0-90 by default): columns angle, quotient.

    Examples
    --------
    >>> path = np.array([[0, 1, 0, 0], [1, 0, 1, 0], [0, 1, 0, 1], [0, 0, 1, 0]], dtype=float)
    >>> profile = rayleigh_profile(path, angles=[0, 45, 90])
    >>> profile["quotient"].round(3).tolist()  # lambda_2 = 0.586 at 0 degrees, rising as the vector turns away
    [0.586, 1.951, 3.317]
    """
    A, degree = _checked(A)
    angles = np.arange(0, 91, 1.0) if angles is None else np.asarray(angles, dtype=np.float64)
    X = turned(A, angles, normalized, random_state, vector)
    return pd.DataFrame({"angle": angles, "quotient": _quotients(A, degree, X, normalized)})


def random_quotients(A, normalized: bool = False, n_vectors: int = 500, random_state: int = 0) -> np.ndarray:
    """Rayleigh quotients of random vectors orthogonal to 1 (in the quotient's inner product): never below
    ``lambda_2``, and in practice far above it.

    Examples
    --------
    >>> A = load_karate().adjacency
    >>> bool(random_quotients(A, n_vectors=200).min() >= fiedler(A).value)
    True
    """
    A, degree = _checked(A)
    X = _orthogonal_to_constant(_rng(random_state).standard_normal((A.shape[0], n_vectors)),
                                _weights(degree, normalized))
    return _quotients(A, degree, X, normalized)


# --------------------------------------------------------------------------- cuts


def cut_weight(A, side) -> float:
    """The weight of the edges with one end in ``side`` (a boolean mask) and the other outside it.

    Examples
    --------
    >>> A = np.array([[0, 2.0, 1.0], [2.0, 0, 0], [1.0, 0, 0]])
    >>> cut_weight(A, np.array([True, True, False]))
    1.0
    """
    s = np.asarray(side, dtype=np.float64)
    return float(s @ (A @ (1.0 - s)))


def volume(A, side) -> float:
    """The sum of the degrees of the nodes in ``side``.

    Examples
    --------
    >>> path = np.array([[0, 1, 0, 0], [1, 0, 1, 0], [0, 1, 0, 1], [0, 0, 1, 0]], dtype=float)
    >>> volume(path, [True, True, False, False])
    3.0
    """
    degree = np.asarray(A.sum(axis=1)).ravel()
    return float(degree[np.asarray(side, dtype=bool)].sum())


def conductance(A, side) -> float:
    """``cut(S) / min(vol S, vol S')``; nan when a side has no volume.

    Examples
    --------
    >>> A = np.array([[0, 2.0, 1.0], [2.0, 0, 0], [1.0, 0, 0]])
    >>> conductance(A, np.array([False, False, True]))
    1.0
    """
    side = np.asarray(side, dtype=bool)
    small = min(volume(A, side), volume(A, ~side))
    return cut_weight(A, side) / small if small > 0 else float("nan")


def sweep_cuts(A, x, nodes=None) -> pd.DataFrame:
    """Sort the nodes by ``x`` and cut after each: one row per prefix, by :func:`embedcore.spectral.sweep`.

    Columns: ``node`` (its index), ``name``, ``value`` (its ``x``), ``size`` (nodes in the prefix), ``cut`` and
    ``conductance`` of the prefix (the last row, everything, is no cut). A node without edges is placed at 0.

    Examples
    --------
    >>> path = np.array([[0, 1, 0, 0], [1, 0, 1, 0], [0, 1, 0, 1], [0, 0, 1, 0]], dtype=float)
    >>> table = sweep_cuts(path, fiedler(path).vector)
    >>> table["size"].tolist(), round(float(table["conductance"].min()), 3)  # the best cut halves the path
    ([1, 2, 3, 4], 0.333)
    """
    A, _ = _checked(A)
    n = A.shape[0]
    table = spectral.sweep(A, x)
    order = table["node"].to_numpy()
    names = [str(i) for i in range(n)] if nodes is None else [str(v) for v in nodes]
    return pd.DataFrame({"node": order, "name": [names[i] for i in order], "value": table["fiedler"].to_numpy(),
                         "size": np.arange(1, n + 1), "cut": table["cut"].to_numpy(),
                         "conductance": table["conductance"].to_numpy()})


class Split(NamedTuple):
    """A cut of the nodes along a vector: the ``size`` nodes with the lowest values form ``side``.

    ``threshold`` lies halfway between the last value in and the first value out; ``quotient`` is the
    Rayleigh quotient of the cut's centred indicator (``n cut / (|S| |S'|)``, or for the normalised
    Laplacian ``vol V cut / (vol S vol S')``), never below ``lambda_2``.

    Examples
    --------
    >>> path = np.array([[0, 1, 0, 0], [1, 0, 1, 0], [0, 1, 0, 1], [0, 0, 1, 0]], dtype=float)
    >>> cut = split(path, fiedler(path).vector)
    >>> sorted(cut.side.tolist()), cut.cut
    ([False, False, True, True], 1.0)
    """

    rule: str
    size: int
    side: np.ndarray
    threshold: float
    cut: float
    conductance: float
    quotient: float


def _prefix(table: pd.DataFrame, rule: str) -> int:
    n = len(table)
    if rule == "zero":
        m = int((table["value"].to_numpy() < 0).sum())
    elif rule == "median":
        m = n // 2
    elif rule == "sweep":
        best = spectral.lowest_conductance_cut(table.rename(columns={"name": "category"}))
        m = n // 2 if best is None else best[0] + 1
    else:
        raise ValueError(f"Unknown split rule {rule!r}; choose one of {RULES}.")
    return min(max(m, 1), n - 1)  # both sides keep a node


def _split(A, degree, table: pd.DataFrame, rule: str, normalized: bool) -> Split:
    m = _prefix(table, rule)
    values = table["value"].to_numpy()
    side = np.zeros(len(table), dtype=bool)
    side[table["node"].to_numpy()[:m]] = True
    weights = _weights(degree, normalized)
    inside, total = weights[side].sum(), weights.sum()
    cut = cut_weight(A, side)
    quotient = total * cut / (inside * (total - inside)) if 0 < inside < total else float("nan")
    # the split at 0 is at 0 (when the vector changes sign); the others half-way between the two nodes they part
    at_zero = rule == "zero" and values[m - 1] < 0 <= values[m]
    threshold = 0.0 if at_zero else float((values[m - 1] + values[m]) / 2)
    return Split(rule, m, side, threshold, cut, conductance(A, side), float(quotient))


def split(A, x, rule: str = "sweep", normalized: bool = False) -> Split:
    """Cut the nodes along ``x`` by a rule: ``"zero"`` (x < 0), ``"median"`` (the lower half) or ``"sweep"``
    (the prefix of least conductance; the lower half when no cut has one). Each side keeps at least one node.

    ``normalized`` only chooses which indicator quotient is reported.

    Examples
    --------
    >>> path = np.diag(np.ones(3), 1) + np.diag(np.ones(3), -1)
    >>> s = split(path, fiedler(path).vector, "sweep")
    >>> s.side.tolist(), s.cut, round(s.conductance, 3)
    ([True, True, False, False], 1.0, 0.333)
    """
    A, degree = _checked(A)
    return _split(A, degree, sweep_cuts(A, x), rule, normalized)


def splits(A, x, normalized: bool = False, nodes=None) -> tuple[pd.DataFrame, dict[str, Split]]:
    """The sweep table along ``x`` (:func:`sweep_cuts`) and the split of every rule in :data:`RULES`.

    Examples
    --------
    >>> path = np.array([[0, 1, 0, 0], [1, 0, 1, 0], [0, 1, 0, 1], [0, 0, 1, 0]], dtype=float)
    >>> table, found = splits(path, fiedler(path).vector)
    >>> list(found), len(table)
    (['zero', 'median', 'sweep'], 4)
    """
    A, degree = _checked(A)
    table = sweep_cuts(A, x, nodes)
    return table, {rule: _split(A, degree, table, rule, normalized) for rule in RULES}


class Bisection(NamedTuple):
    """Recursive bisection into parts: ``labels`` (0 .. k-1, numbered by each part's first node) and
    ``steps``, one row per split: the part's nodes, the two sizes, the cut between them and its conductance
    within the part.

    Examples
    --------
    >>> path = np.array([[0, 1, 0, 0], [1, 0, 1, 0], [0, 1, 0, 1], [0, 0, 1, 0]], dtype=float)
    >>> parts = recursive_bisection(path, 2)
    >>> len(set(parts.labels.tolist()))
    2
    """

    labels: np.ndarray
    steps: pd.DataFrame


def recursive_bisection(A, k: int, normalized: bool = False, rule: str = "sweep") -> Bisection:
    """Split the graph in two along its Fiedler vector, then the largest part again, until there are ``k``.

    Each part is cut as a graph of its own (its induced subgraph) by ``rule``. A part that is not connected
    has ``lambda_2 = 0`` and a Fiedler vector that separates its largest component from the rest, so the
    zero and sweep rules cut there at no cost.

    Examples
    --------
    >>> A = load_karate().adjacency
    >>> b = recursive_bisection(A, 4)
    >>> sorted(np.bincount(b.labels).tolist()), len(b.steps)
    ([5, 8, 10, 11], 3)
    """
    A, _ = _checked(A)
    n = A.shape[0]
    if rule not in RULES:
        raise ValueError(f"Unknown split rule {rule!r}; choose one of {RULES}.")
    if not 1 <= int(k) <= n:
        raise ValueError(f"k must be between 1 and the number of nodes ({n}); got {k}.")
    parts = [np.arange(n)]
    rows = []
    while len(parts) < k:
        i = max(range(len(parts)), key=lambda j: (len(parts[j]), -parts[j][0]))
        p = parts[i]
        sub = A[np.ix_(p, p)]
        s = split(sub, fiedler(sub, normalized).vector, rule, normalized)
        low, high = p[s.side], p[~s.side]
        parts[i:i + 1] = [low, high]
        rows.append({"step": len(rows) + 1, "nodes in the part": len(p), "sizes": f"{len(low)} + {len(high)}",
                     "cut": s.cut, "conductance in the part": s.conductance})
    parts.sort(key=lambda q: q.min())
    labels = np.empty(n, dtype=np.int64)
    for j, q in enumerate(parts):
        labels[q] = j
    return Bisection(labels, pd.DataFrame(rows, columns=["step", "nodes in the part", "sizes", "cut",
                                                         "conductance in the part"]))


def parts_table(A, labels) -> pd.DataFrame:
    """Per part: nodes, volume, the weight of its edges to the rest, and its conductance in the whole graph.

    Examples
    --------
    >>> path = np.array([[0, 1, 0, 0], [1, 0, 1, 0], [0, 1, 0, 1], [0, 0, 1, 0]], dtype=float)
    >>> parts_table(path, [0, 0, 1, 1])[["part", "nodes", "volume", "cut to the rest"]].values.tolist()
    [[1.0, 2.0, 3.0, 1.0], [2.0, 2.0, 3.0, 1.0]]
    """
    A, _ = _checked(A)
    labels = np.asarray(labels)
    rows = []
    for j in np.unique(labels):
        side = labels == j
        rows.append({"part": int(j) + 1, "nodes": int(side.sum()), "volume": volume(A, side),
                     "cut to the rest": cut_weight(A, side), "conductance": conductance(A, side)})
    return pd.DataFrame(rows)


def misplaced(side, groups) -> np.ndarray:
    """Nodes whose side disagrees with a known two-group split, under the better of the two matchings.

    Examples
    --------
    >>> misplaced([True, True, False, False], ["a", "a", "a", "b"])
    array([2])
    """
    side = np.asarray(side, dtype=bool)
    groups = np.asarray(groups, dtype=object)
    kinds = list(dict.fromkeys(groups.tolist()))
    if len(kinds) != 2:
        raise ValueError(f"A known split needs exactly 2 groups; these have {len(kinds)}.")
    first = groups == kinds[0]
    wrong = np.flatnonzero(side != first)
    other = np.flatnonzero(side == first)
    return wrong if len(wrong) <= len(other) else other


# --------------------------------------------------------------------------- drawing positions

#: Up to this many nodes the layout is force-directed; above, pivot MDS of hop distances (seconds, not minutes).
FORCE_LAYOUT_NODES = 300
_PIVOTS = 50


def layout(A, random_state: int = 0) -> np.ndarray:
    """Node positions for drawing (n x 2, within [-1, 1], widest along x), independent of any Laplacian.

    Up to :data:`FORCE_LAYOUT_NODES` nodes: networkx's Fruchterman-Reingold spring layout with the seed.
    Above: pivot MDS (Brandes and Pich 2006), classical scaling of the hop distances to 50 pivot nodes
    chosen far apart; nodes of another component sit at the largest distance plus one.

    Examples
    --------
    >>> path = np.array([[0, 1, 0, 0], [1, 0, 1, 0], [0, 1, 0, 1], [0, 0, 1, 0]], dtype=float)
    >>> P = layout(path)
    >>> P.shape, float(np.abs(P).max())
    ((4, 2), 1.0)
    """
    A, _ = _checked(A)
    n = A.shape[0]
    if n <= FORCE_LAYOUT_NODES:
        import networkx as nx

        g = nx.from_numpy_array(A)
        pos = nx.spring_layout(g, seed=random_state, weight=None, iterations=100)
        P = np.array([pos[i] for i in range(n)], dtype=np.float64)
    else:
        graph = sp.csr_array(A > 0)
        rng = _rng(random_state)
        pivots = [int(rng.integers(n))]
        far = np.full(n, np.inf)
        rows = []
        for _ in range(min(_PIVOTS, n)):
            d = shortest_path(graph, directed=False, unweighted=True, indices=pivots[-1])
            rows.append(d)
            far = np.minimum(far, np.where(np.isfinite(d), d, -1))
            nxt = int(np.argmax(far))
            if far[nxt] <= 0:
                break
            pivots.append(nxt)
        D = np.array(rows).T
        finite = np.isfinite(D)
        D[~finite] = (D[finite].max() if finite.any() else 0) + 1
        C = D ** 2
        C = C - C.mean(axis=0) - C.mean(axis=1, keepdims=True) + C.mean()
        U, s, _ = np.linalg.svd(-C / 2, full_matrices=False)
        P = U[:, :2] * s[:2]
        if P.shape[1] < 2:
            P = np.column_stack([P, np.zeros(n)])
    P = P - P.mean(axis=0)
    # turn the longest extent horizontal (pages are wider than tall), with a sign fixed by the first node
    _, _, Vt = np.linalg.svd(P, full_matrices=False)
    P = P @ Vt.T
    P = P * np.where(P[0] > 0, -1.0, 1.0)
    scale = np.abs(P).max()
    return P / scale if scale > 0 else P
