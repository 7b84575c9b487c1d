"""Spectral clustering of a plain graph, checked against brute force and a dense eigendecomposition."""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pytest
from scipy.optimize import minimize

from embedcore import graphs, spectral
from embedcore.io import DataError
from embedcore.io.edges import read_edge_list
from embedcore.spectral import normalized_laplacian


def _edges(A):
    i, j = np.nonzero(np.triu(A, 1))
    return [(int(a), int(b), float(A[a, b])) for a, b in zip(i, j)]


def _cut_by_counting(A, side):
    return sum(w for a, b, w in _edges(A) if side[a] != side[b])


def _conductance_by_counting(A, side):
    vol_in = sum(w for a, b, w in _edges(A) for end in (a, b) if side[end])
    vol_out = sum(w for a, b, w in _edges(A) for end in (a, b) if not side[end])
    small = min(vol_in, vol_out)
    return _cut_by_counting(A, side) / small if small > 0 else np.nan


def _connected(seed, n=30, p=0.15, weighted=True):
    rng = np.random.default_rng(seed)
    while True:
        g = nx.gnp_random_graph(n, p, seed=int(rng.integers(1 << 30)))
        if nx.is_connected(g):
            break
    A = nx.to_numpy_array(g)
    if weighted:
        W = np.triu(rng.uniform(0.5, 3.0, A.shape), 1)
        A = A * (W + W.T)
    return A


GRAPHS = {
    "karate weighted": graphs.adjacency(graphs.load_karate(), True),
    "karate unweighted": graphs.adjacency(graphs.load_karate(), False),
    "lesmis": graphs.adjacency(graphs.load_lesmis(), True),
    "random weighted": _connected(1),
    "random unweighted": _connected(2, weighted=False),
    "path": np.diag(np.ones(9), 1) + np.diag(np.ones(9), -1),
}


@pytest.mark.parametrize("name", GRAPHS)
def test_fiedler_vector_is_the_dense_second_eigenvector_and_minimises_the_rayleigh_quotient(name):
    A = GRAPHS[name]
    n = len(A)
    L = np.diag(A.sum(1)) - A
    vals, vecs = np.linalg.eigh(L)
    f = graphs.fiedler(A)
    assert f.n_components == 1
    assert f.value == pytest.approx(vals[1], rel=1e-9, abs=1e-12)
    assert np.allclose(L @ f.vector, f.value * f.vector, atol=1e-8)
    assert abs(f.vector.sum()) < 1e-8 and np.linalg.norm(f.vector) == pytest.approx(1.0)
    assert abs(f.vector @ vecs[:, 1]) == pytest.approx(1.0, abs=1e-6)  # the same vector up to sign
    assert graphs.rayleigh_quotient(A, f.vector) == pytest.approx(vals[1], rel=1e-9, abs=1e-12)
    # every other vector orthogonal to 1 has a larger quotient: random ones ...
    assert graphs.random_quotients(A, n_vectors=2000, random_state=3).min() >= vals[1] - 1e-9
    # ... and the best a generic optimiser finds over x orthogonal to 1 is the same minimum, at the same vector
    P = np.eye(n) - 1.0 / n

    def quotient(z):
        x = P @ z
        return (x @ L @ x) / (x @ x)

    best = minimize(quotient, np.random.default_rng(0).standard_normal(n), method="BFGS", options={"gtol": 1e-10})
    assert best.fun == pytest.approx(vals[1], rel=1e-5)
    x = P @ best.x
    assert abs(x @ f.vector) / np.linalg.norm(x) == pytest.approx(1.0, abs=1e-3)


@pytest.mark.parametrize("name", GRAPHS)
def test_normalised_fiedler_vector_solves_the_generalised_problem(name):
    A = GRAPHS[name]
    d = A.sum(1)
    L = np.diag(d) - A
    f = graphs.fiedler(A, normalized=True)
    dense = np.linalg.eigvalsh(normalized_laplacian(A))
    assert f.value == pytest.approx(dense[1], rel=1e-9, abs=1e-12)
    assert np.allclose(L @ f.vector, f.value * d * f.vector, atol=1e-8)  # L x = λ D x
    assert abs(f.vector @ d) < 1e-8 and f.vector @ (d * f.vector) == pytest.approx(1.0)
    assert graphs.rayleigh_quotient(A, f.vector, normalized=True) == pytest.approx(dense[1], rel=1e-8)
    assert graphs.random_quotients(A, True, n_vectors=2000, random_state=4).min() >= dense[1] - 1e-9
    assert np.allclose(graphs.laplacian_eigenvalues(A, True), np.clip(dense, 0, 2), atol=1e-10)
    assert np.allclose(graphs.laplacian_eigenvalues(A), np.clip(np.linalg.eigvalsh(L), 0, None), atol=1e-9)


def test_the_first_node_is_always_below_zero():
    for A in GRAPHS.values():
        for normalized in (False, True):
            assert graphs.fiedler(A, normalized).vector[0] < 0


def test_laplacians():
    A = GRAPHS["random weighted"]
    L = graphs.laplacian(A)
    assert np.allclose(L.sum(1), 0) and np.allclose(L, L.T) and np.allclose(np.diag(L), A.sum(1))
    assert np.allclose(graphs.laplacian(A, True), normalized_laplacian(A))
    import scipy.sparse as sp

    assert np.allclose(graphs.laplacian(sp.csr_array(A)).toarray(), L)


@pytest.mark.parametrize("name", GRAPHS)
def test_cut_values_and_conductance_equal_counting_the_edges(name):
    A = GRAPHS[name]
    rng = np.random.default_rng(5)
    for _ in range(20):
        side = rng.random(len(A)) < rng.uniform(0.1, 0.9)
        if side.all() or not side.any():
            continue
        assert graphs.cut_weight(A, side) == pytest.approx(_cut_by_counting(A, side))
        assert graphs.conductance(A, side) == pytest.approx(_conductance_by_counting(A, side))
    unweighted = (A > 0).astype(float)
    side = np.arange(len(A)) < len(A) // 2
    crossing = sum(1 for a, b, _ in _edges(unweighted) if side[a] != side[b])
    assert graphs.cut_weight(unweighted, side) == crossing  # an unweighted cut counts edges


@pytest.mark.parametrize("name", GRAPHS)
@pytest.mark.parametrize("normalized", [False, True])
def test_splits_against_brute_force_over_every_sweep_prefix(name, normalized):
    A = GRAPHS[name]
    n = len(A)
    x = graphs.fiedler(A, normalized).vector
    table, found = graphs.splits(A, x, normalized)
    order = table["node"].to_numpy()
    assert sorted(order.tolist()) == list(range(n)) and np.all(np.diff(x[order]) >= -1e-10 * np.abs(x).max())
    assert order.tolist() == spectral.tie_order(x).tolist()  # ties (equal to 1e-10) in node order
    conds = []
    for m in range(1, n):
        side = np.zeros(n, dtype=bool)
        side[order[:m]] = True
        assert table["cut"].iloc[m - 1] == pytest.approx(_cut_by_counting(A, side))
        conds.append(_conductance_by_counting(A, side))
    assert np.allclose(table["conductance"].iloc[:-1], conds)
    sweep = found["sweep"]
    assert sweep.conductance == pytest.approx(min(conds))
    assert sweep.size == int(np.argmin(conds)) + 1
    assert np.array_equal(found["zero"].side, x < 0)
    if (x < 0).any() and (x >= 0).any():
        assert found["zero"].threshold == 0.0  # the split at 0 is drawn and listed at 0
    median = found["median"]
    assert median.size == n // 2 and x[median.side].max() <= x[~median.side].min()
    d = A.sum(1)
    w = d if normalized else np.ones(n)
    lam = graphs.fiedler(A, normalized).value
    for s in found.values():
        assert s.cut == pytest.approx(_cut_by_counting(A, s.side))
        assert s.conductance == pytest.approx(_conductance_by_counting(A, s.side))
        assert x[s.side].max() <= s.threshold <= x[~s.side].min()
        # the cut's centred indicator: its Rayleigh quotient, never below λ2
        ind = s.side - (w @ s.side) / w.sum()
        assert s.quotient == pytest.approx(graphs.rayleigh_quotient(A, ind, normalized))
        assert s.quotient >= lam - 1e-9
    if normalized:  # Cheeger: the sweep along D^{-1/2} u2 finds a cut with φ <= sqrt(2 λ2), and none beats λ2 / 2
        assert lam / 2 - 1e-12 <= sweep.conductance <= np.sqrt(2 * lam) + 1e-12


def test_cheeger_bounds_the_best_of_every_cut_there_is():
    """Over all 2^n cuts of a small graph (the sweep tries only n - 1): λ2 / 2 <= min φ <= sweep φ <= sqrt(2 λ2)."""
    A = GRAPHS["path"] + np.diag(np.ones(7), 3) + np.diag(np.ones(7), -3)
    n = len(A)
    best = min(_conductance_by_counting(A, np.array(bits, dtype=bool))
               for bits in itertools.product([0, 1], repeat=n) if 0 < sum(bits) < n)
    f = graphs.fiedler(A, True)
    sweep = graphs.split(A, f.vector, "sweep", True)
    assert f.value / 2 <= best <= sweep.conductance <= np.sqrt(2 * f.value)


def test_a_disconnected_graph_splits_between_its_components_at_no_cost():
    A = np.zeros((7, 7))
    for a, b in [(0, 1), (1, 2), (2, 3), (0, 3), (4, 5), (5, 6)]:
        A[a, b] = A[b, a] = 1.0
    for normalized in (False, True):
        f = graphs.fiedler(A, normalized)
        assert f.n_components == 2 and f.value == 0.0
        assert graphs.rayleigh_quotient(A, f.vector, normalized) == pytest.approx(0.0, abs=1e-12)
        _, found = graphs.splits(A, f.vector, normalized)
        for rule in ("zero", "sweep"):
            assert found[rule].cut == 0 and found[rule].conductance == 0
            assert sorted([found[rule].side[:4].all(), (~found[rule].side[4:]).all()]) in ([True, True], [False, False])


@pytest.mark.parametrize("name", ["karate weighted", "karate unweighted", "lesmis", "random weighted"])
@pytest.mark.parametrize("rule", graphs.RULES)
def test_recursive_bisection_gives_k_non_empty_parts(name, rule):
    A = GRAPHS[name]
    n = len(A)
    for k in [1, 2, 3, 5, 8, n if n <= 34 else 12]:
        b = graphs.recursive_bisection(A, k, normalized=rule == "sweep", rule=rule)
        assert sorted(set(b.labels.tolist())) == list(range(k))
        assert np.bincount(b.labels).min() >= 1 and len(b.steps) == k - 1
        assert b.labels[0] == 0  # parts are numbered by their first node
    two = graphs.recursive_bisection(A, 2, rule=rule)
    top = graphs.split(A, graphs.fiedler(A).vector, rule)
    assert np.array_equal(two.labels == 0, top.side == top.side[0])
    table = graphs.parts_table(A, graphs.recursive_bisection(A, 4, rule=rule).labels)
    assert table["nodes"].sum() == n and table["volume"].sum() == pytest.approx(A.sum())


def test_recursive_bisection_survives_parts_that_fall_apart():
    # a star: once the centre leaves a part, its leaves are isolated nodes
    A = np.zeros((9, 9))
    A[0, 1:] = A[1:, 0] = 1.0
    for rule in graphs.RULES:
        for normalized in (False, True):
            b = graphs.recursive_bisection(A, 9, normalized, rule)
            assert sorted(b.labels.tolist()) == list(range(9))


def test_bad_arguments_say_what_to_change():
    A = GRAPHS["path"]
    with pytest.raises(ValueError, match="between 1 and the number of nodes \\(10\\); got 11"):
        graphs.recursive_bisection(A, 11)
    with pytest.raises(ValueError, match="between 1 and the number of nodes"):
        graphs.recursive_bisection(A, 0)
    with pytest.raises(ValueError, match="Unknown split rule 'mean'"):
        graphs.recursive_bisection(A, 2, rule="mean")
    with pytest.raises(ValueError, match="Unknown split rule"):
        graphs.split(A, graphs.fiedler(A).vector, "mean")
    with pytest.raises(ValueError, match="at least 2 nodes"):
        graphs.fiedler(np.zeros((1, 1)))
    with pytest.raises(ValueError, match="not symmetric"):
        graphs.fiedler(np.triu(A))
    with pytest.raises(ValueError, match=">= 0"):
        graphs.fiedler(-A)
    with pytest.raises(ValueError, match="exactly 2 groups"):
        graphs.misplaced([True, False, True], ["a", "b", "c"])
    with pytest.raises(ValueError, match="Unknown graph 'zoo'"):
        graphs.load_graph("zoo")


KARATE = graphs.load_karate()


def _misplaced_members(weighted, normalized, rule):
    A = graphs.adjacency(KARATE, weighted)
    s = graphs.split(A, graphs.fiedler(A, normalized).vector, rule, normalized)
    return sorted(int(KARATE.nodes[i]) for i in graphs.misplaced(s.side, KARATE.groups))


@pytest.mark.parametrize("normalized", [False, True])
def test_karate_fiedler_split_recovers_the_clubs_but_for_members_3_and_9(normalized):
    """Kolaczyk (2009, Statistical Analysis of Network Data, fig. 4.9): the sign of the Fiedler vector of the
    unweighted club classifies every member but the third correctly, against the factions Zachary recorded.
    Against the club each member joined (networkx's labels), member 9 also lands on the other side: he sided
    with the officer's faction yet joined Mr. Hi's club, the one member Zachary's own min-cut model
    misassigned (Zachary 1977)."""
    assert _misplaced_members(False, normalized, "zero") == [3, 9]
    assert _misplaced_members(True, normalized, "zero") == [9]  # the weights pull member 3 back
    for weighted in (False, True):
        assert _misplaced_members(weighted, normalized, "sweep") == [9]
        assert _misplaced_members(weighted, normalized, "median") == []  # 17 + 17, as the clubs were


def test_rayleigh_profile_rises_from_lambda2():
    A = GRAPHS["karate weighted"]
    for normalized in (False, True):
        lam = graphs.fiedler(A, normalized).value
        prof = graphs.rayleigh_profile(A, normalized, random_state=1)
        q = prof["quotient"].to_numpy()
        assert q[0] == pytest.approx(lam) and np.all(np.diff(q) > 0)
        # cos² λ2 + sin² R(r): the cross term vanishes because r is orthogonal to the eigenvector
        r = graphs.turned(A, 90, normalized, random_state=1)
        t = np.deg2rad(prof["angle"].to_numpy())
        expected = np.cos(t) ** 2 * lam + np.sin(t) ** 2 * graphs.rayleigh_quotient(A, r, normalized)
        assert np.allclose(q, expected)
        X = graphs.turned(A, [0, 45], normalized, random_state=1)
        w = A.sum(1) if normalized else np.ones(len(A))
        assert abs(X[:, 1] @ w) < 1e-9  # still orthogonal to 1 in the quotient's inner product


def test_layout_is_fixed_by_the_seed_and_fits_the_box():
    for A in (GRAPHS["lesmis"], nx.to_numpy_array(nx.disjoint_union(nx.cycle_graph(300), nx.path_graph(40)))):
        P = graphs.layout(A, 3)
        assert P.shape == (len(A), 2) and np.abs(P).max() == pytest.approx(1.0)
        assert np.array_equal(P, graphs.layout(A, 3))
        assert np.isfinite(P).all() and len(np.unique(P.round(6), axis=0)) > len(A) // 2


# --------------------------------------------------------------------------- the edge-list reader


def test_edge_list_round_trip_of_karate():
    text = "\n".join(f"{KARATE.nodes[a]}\t{KARATE.nodes[b]}\t{w:g}" for a, b, w in _edges(KARATE.adjacency.toarray()))
    g = read_edge_list(text.encode(), "karate.tsv")
    order = [g.nodes.index(v) for v in KARATE.nodes]
    assert g.weighted and g.n_edges == 78 and not g.notices
    assert np.array_equal(g.adjacency.toarray()[np.ix_(order, order)], KARATE.adjacency.toarray())


def test_edge_list_formats_and_notices():
    g = read_edge_list(b"# a comment\n% another\n\nsource,target,weight\n\"Valjean, Jean\",Cosette,2\n"
                       b"Cosette,Marius,1\nMarius,\"Valjean, Jean\",0.5\nCosette,\"Valjean, Jean\",1\n"
                       b"Marius,Marius,3\nJavert,Marius,0\n", "novel.csv")
    assert g.nodes == ["Valjean, Jean", "Cosette", "Marius"]
    A = g.adjacency.toarray()
    assert A[0, 1] == A[1, 0] == 3.0 and A[1, 2] == 1.0 and A[0, 2] == 0.5 and np.all(np.diag(A) == 0)
    text = " ".join(g.notices)
    assert "Line 4 is read as a header" in text
    assert "1 self-loop (a node tied to itself, line 9)" in text
    assert "1 edge of weight 0 (line 10)" in text
    assert "1 edge listed more than once (in either direction; first repeat on line 8): their weights are added" in text
    assert "Skipped 3 blank or comment lines" in text
    g = read_edge_list(b"1 2\n2 3\n3 1\n1 2\n", "tri.txt")
    assert not g.weighted and g.nodes == ["1", "2", "3"] and g.adjacency.toarray().max() == 1.0
    assert "kept once" in g.notices[0]
    g = read_edge_list(b"a;b\nb;c\n", "semi.txt")
    assert g.nodes == ["a", "b", "c"] and g.n_edges == 2


@pytest.mark.parametrize("blob,message", [
    (b"", "edges.txt has no edges."),
    (b"# nothing\n\n", "edges.txt has no edges, only blank or comment lines"),
    (b"a b\nc\n", "edges.txt, line 2: an edge needs two node names, found 'c'"),
    (b"a b 1\nc d 2 3\n", "edges.txt, line 2: 4 fields. An edge list has two node names and an optional weight"),
    (b"a b 1\nc d\n", "edges.txt, line 2 has no weight while line 1 has one"),
    (b"a b 1\nc d x1\n", "edges.txt, line 2: the weight 'x1' is not a number"),
    (b"a b 1\nc d -2\n", "edges.txt, line 2: the weight '-2' is negative"),
    (b"a b 1\nc d inf\n", "edges.txt, line 2: the weight 'inf' is not finite"),
    (b"a a\nb b\n", "edges.txt has no edge between two different nodes"),
    (b"from,to\n", "edges.txt has a header line but no edges below it"),
    (b'a,"b\nc,d\n', "edges.txt, line 1: a quoted field opens here"),
    (b"\x89PNG\r\n\x1a\n", "edges.txt should be an edge list"),
])
def test_edge_list_refuses_bad_files_naming_the_line(blob, message):
    with pytest.raises(DataError) as err:
        read_edge_list(blob, "edges.txt")
    assert message in str(err.value)


def test_agm_edges_follow_the_membership_probabilities():
    from embedcore.graphs_generators import agm_probabilities, make_agm

    g, F = make_agm(300, 2, p=0.3, eps=0.02, overlap=0.1, random_state=4)
    A = g.adjacency.toarray()
    P = agm_probabilities(F, np.array([0.3, 0.3]), 0.02)
    both = F.sum(axis=1) == 2
    only = ~both
    same = np.equal.outer(F[:, 0], F[:, 0]) & np.outer(only, only)
    apart = ~np.equal.outer(F[:, 0], F[:, 0]) & np.outer(only, only)
    np.fill_diagonal(same, False)
    assert abs(A[same].mean() - (1 - 0.98 * 0.7)) < 0.02  # inside one community
    assert abs(A[apart].mean() - 0.02) < 0.01  # only the background
    # two overlapping nodes share both communities: 1 - 0.98 * 0.7 * 0.7
    assert np.isclose(P[np.ix_(both, both)][~np.eye(both.sum(), dtype=bool)], 1 - 0.98 * 0.49).all()


def test_agm_split_is_recovered_above_chance_and_only_when_planted():
    from embedcore.graphs_generators import make_agm, planted_recovery

    g, F = make_agm(120, 2, p=0.3, eps=0.01, overlap=0.05, random_state=0)
    found = planted_recovery(g, F, normalized=True, random_state=0)
    assert found.accuracy > 0.95 and found.chance < 0.6 and found.ari > 0.8
    g3, F3 = make_agm(150, 3, p=0.3, eps=0.01, overlap=0.0, random_state=1)
    assert planted_recovery(g3, F3, random_state=0).ari > 0.6
    # nothing planted (p = 0: every edge is background): the split is no better than chance
    flat, F0 = make_agm(120, 2, p=0.0, eps=0.1, overlap=0.0, random_state=0)
    none = planted_recovery(flat, F0, random_state=0)
    assert abs(none.ari) < 0.1 and none.accuracy < none.chance + 0.12


def test_agm_rejects_settings_it_cannot_plant():
    from embedcore.graphs_generators import make_agm

    with pytest.raises(ValueError, match="at least 2 communities"):
        make_agm(50, 1)
    with pytest.raises(ValueError, match="too few"):
        make_agm(5, 3)
    with pytest.raises(ValueError, match="overlap is a probability"):
        make_agm(50, 2, overlap=1.5)
    with pytest.raises(ValueError, match=r"\[0, 1\)"):
        make_agm(50, 2, p=1.0)
