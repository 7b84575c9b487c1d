"""Graphs with planted communities, and how much of the plant a spectral split finds again.

The affiliation graph model (AGM; Yang and Leskovec, 2012) builds a graph from
memberships: every node joins one or more communities, community ``c`` ties
each pair of its members with probability ``p_c``, independently, and a pair
that shares several communities is tied if any of them ties it:

    P(u ~ v) = 1 - (1 - eps) * prod over c in C_u & C_v of (1 - p_c)

``eps`` is a background community everyone belongs to: the chance that two
nodes with nothing in common are tied anyway. With ``eps`` near ``p`` the
communities are invisible; with ``eps`` far below it they are dense blocks
joined by a few stray edges, which is the picture spectral clustering expects.
Nodes in two communities sit where the blocks overlap and belong to neither
side of a cut, so recovery is scored on the nodes of one community only.
"""

from __future__ import annotations

from numbers import Integral
from typing import NamedTuple

import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy.optimize import linear_sum_assignment
from sklearn.metrics import adjusted_rand_score
from sklearn.utils.validation import check_random_state

from .graphs import recursive_bisection
from .io.edges import GraphData

__all__ = ["make_agm", "agm_memberships", "agm_probabilities", "matched_accuracy", "planted_recovery",
           "PlantedRecovery"]

#: How many shuffles of the planted labels estimate the accuracy a split scores by chance.
CHANCE_SHUFFLES = 200


def agm_memberships(n_nodes: int, n_communities: int, overlap: float, random_state=None) -> np.ndarray:
    """An (n, K) boolean membership matrix: each node joins a home community, and every other one with ``overlap``.

    Home communities are dealt out in turn, so their sizes differ by at most one.

    Examples
    --------
    >>> F = agm_memberships(6, 2, 0.0, random_state=0)
    >>> F.sum(axis=0).tolist(), F.sum(axis=1).tolist()
    ([3, 3], [1, 1, 1, 1, 1, 1])
    """
    if not isinstance(n_nodes, Integral) or not isinstance(n_communities, Integral) or n_communities < 2:
        raise ValueError(f"A planted split needs at least 2 communities, got {n_communities!r}.")
    if n_nodes < 2 * n_communities:
        raise ValueError(f"{n_nodes} nodes are too few for {n_communities} communities: give each at least 2.")
    if not 0.0 <= overlap <= 1.0:
        raise ValueError(f"overlap is a probability: between 0 and 1, got {overlap}.")
    rng = check_random_state(random_state)
    home = rng.permutation(np.arange(n_nodes) % n_communities)
    F = rng.random((n_nodes, n_communities)) < overlap
    F[np.arange(n_nodes), home] = True
    return F


def agm_probabilities(F: np.ndarray, p: np.ndarray, eps: float) -> np.ndarray:
    """The (n, n) edge probabilities of the AGM: ``1 - (1 - eps) prod_{c shared} (1 - p_c)``, zero diagonal.

    Examples
    --------
    >>> F = np.array([[True, False], [True, True], [False, True]])
    >>> agm_probabilities(F, np.array([0.5, 0.5]), 0.0).round(2).tolist()
    [[0.0, 0.5, 0.0], [0.5, 0.0, 0.5], [0.0, 0.5, 0.0]]
    """
    p = np.asarray(p, dtype=np.float64)
    if np.any((p < 0) | (p >= 1)) or not 0.0 <= eps < 1.0:
        raise ValueError("Each community's p and the background eps must lie in [0, 1).")
    log_miss = (F * np.log1p(-p)) @ F.T.astype(np.float64)  # sum over shared communities of log(1 - p_c)
    P = 1.0 - (1.0 - eps) * np.exp(log_miss)
    np.fill_diagonal(P, 0.0)
    return P


def make_agm(n_nodes: int = 120, n_communities: int = 2, p=0.3, eps: float = 0.01, overlap: float = 0.05,
             random_state=None) -> tuple[GraphData, np.ndarray]:
    """A graph drawn from the AGM, and its (n, K) membership matrix.

    ``p`` is one probability for every community or one per community. Each
    node's group names its community, or ``"in several"`` when it joined more
    than one.

    Examples
    --------
    >>> g, F = make_agm(40, 2, p=0.5, eps=0.0, overlap=0.0, random_state=1)
    >>> len(g.nodes), sorted(set(g.groups)), bool((g.adjacency.toarray() == g.adjacency.toarray().T).all())
    (40, ['community 1', 'community 2'], True)
    """
    rng = check_random_state(random_state)
    F = agm_memberships(n_nodes, n_communities, overlap, rng)
    p = np.broadcast_to(np.asarray(p, dtype=np.float64), (n_communities,))
    P = agm_probabilities(F, p, eps)
    upper = np.triu(rng.random(P.shape) < P, 1)
    A = sp.csr_array((upper | upper.T).astype(np.float64))
    single = F.sum(axis=1) == 1
    groups = [f"community {int(np.argmax(row)) + 1}" if one else "in several" for row, one in zip(F, single)]
    inside = f"p = {p[0]:g} inside each" if np.all(p == p[0]) else "p = " + ", ".join(f"{v:g}" for v in p) + " inside"
    description = (f"A planted-community graph (AGM): {n_nodes} nodes in {n_communities} communities, {inside}, "
                   f"eps = {eps:g} between any two nodes, "
                   f"{int((~single).sum())} nodes in more than one community.")
    return GraphData("agm", nodes=[str(i) for i in range(n_nodes)], adjacency=A, weighted=False, groups=groups,
                     group_name="planted community", description=description), F


def matched_accuracy(labels, truth) -> float:
    """The share of nodes whose part matches their community under the best one-to-one matching of the two.

    Examples
    --------
    >>> matched_accuracy([1, 1, 0, 0, 0], [0, 0, 1, 1, 0])
    0.8
    """
    labels, truth = np.asarray(labels), np.asarray(truth)
    _, li = np.unique(labels, return_inverse=True)
    _, ti = np.unique(truth, return_inverse=True)
    table = np.zeros((li.max() + 1, ti.max() + 1))
    np.add.at(table, (li, ti), 1)
    rows, cols = linear_sum_assignment(-table)
    return float(table[rows, cols].sum() / len(labels))


class PlantedRecovery(NamedTuple):
    """How much of a planted partition a spectral split finds again (:func:`planted_recovery`).

    ``labels`` is each node's part (0 to K - 1); ``accuracy``, ``chance`` and
    ``ari`` are scored on the ``scored`` nodes of exactly one community;
    ``crosstab`` counts every node by part and planted community.

    Examples
    --------
    >>> r = PlantedRecovery(np.array([0, 1]), 1.0, 0.5, 1.0, 2, pd.DataFrame())
    >>> r.accuracy - r.chance
    0.5
    """

    labels: np.ndarray
    accuracy: float
    chance: float
    ari: float
    scored: int
    crosstab: pd.DataFrame


def planted_recovery(graph: GraphData, F: np.ndarray, normalized: bool = True, rule: str = "sweep",
                     random_state=None) -> PlantedRecovery:
    """Split the graph into K parts by recursive bisection and score the parts against the planted communities.

    Scored on the nodes of exactly one community. The chance level is the
    mean matched accuracy of the same parts against shuffled communities
    (:data:`CHANCE_SHUFFLES` shuffles); the adjusted Rand index is 0 by chance.

    Returns
    -------
    PlantedRecovery : each node's part, accuracy, chance, adjusted Rand index,
    the number of nodes scored and the parts against the planted communities.

    Examples
    --------
    >>> g, F = make_agm(40, 2, p=0.6, eps=0.0, overlap=0.0, random_state=1)
    >>> r = planted_recovery(g, F, random_state=0)
    >>> r.accuracy, r.ari, r.scored
    (1.0, 1.0, 40)
    """
    K = F.shape[1]
    A = graph.adjacency.toarray()
    labels = recursive_bisection(A, K, normalized, rule).labels
    single = F.sum(axis=1) == 1
    truth = np.argmax(F, axis=1)[single]
    found = labels[single]
    rng = check_random_state(random_state)
    chance = float(np.mean([matched_accuracy(found, rng.permutation(truth)) for _ in range(CHANCE_SHUFFLES)]))
    crosstab = pd.crosstab(pd.Series(labels + 1, name="part"), pd.Series(graph.groups, name="planted")).reset_index()
    return PlantedRecovery(labels, matched_accuracy(found, truth), chance, float(adjusted_rand_score(truth, found)),
                           int(single.sum()), crosstab)
