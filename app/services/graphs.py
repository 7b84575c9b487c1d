"""Cached stages for the Graphs page, each keyed on the graph's DataRef and that stage's own parameters.

The graph once per data set (a bundled networkx graph, or an edge list uploaded on the page, keyed by its
SHA-1), its drawing positions once per graph and seed (the same picture whatever the Laplacian), the
adjacency once per weighting, the Fiedler vector and its cuts once per (weighting, Laplacian), the
recursive bisection once per (weighting, Laplacian, rule, k), the spectra once per weighting. Everything is
shared by every session and never mutated.
"""

from __future__ import annotations

import textwrap
from typing import NamedTuple

import numpy as np
import pandas as pd
import streamlit as st

from app.services import data as data_service
from app.services import reproduce
from app.services.reproduce import Recipe
from embedcore import graphs
from embedcore.graphs_generators import make_agm, planted_recovery
from embedcore.io import DataError
from embedcore.io.edges import GraphData, read_edge_list

#: The DataRef kind of this page's graphs ("graph" is the Categories page's category graphs).
KIND = "edges"
#: What the split rules are called on the page.
RULE_TITLES = {"zero": "at 0", "median": "at the median", "sweep": "best sweep cut"}
#: The most nodes an uploaded graph may have: every eigenproblem is solved densely (a 1,000-node one takes about a
#: second).
MAX_NODES = 1000
#: The most parts recursive bisection is asked for.
MAX_K = 8
#: Random vectors whose Rayleigh quotients are shown next to the Fiedler vector's.
N_RANDOM = 500
_UPLOAD = "graphs.upload_obj"


def _frozen(a):
    if isinstance(a, np.ndarray):
        a.flags.writeable = False
    return a


# ---------------------------------------------------------------- the graph


def edge_upload(file) -> str | None:
    """Keep the edge list uploaded on the page for this session; its SHA-1 (of name and bytes, as the sidebar's
    uploads), or None when there is none."""
    upload = data_service.keep_page_upload(_UPLOAD, file)
    return None if upload is None else upload.digest


def _upload(digest: str) -> data_service.Upload:
    return data_service.page_upload(_UPLOAD, digest, "The edge list")


@st.cache_resource(max_entries=4, show_spinner=False)
def _read(digest: str, _edges: data_service.Upload):
    """(the graph, None) or (None, what is wrong with the file); read once per upload, shared by sessions."""
    try:
        g = read_edge_list(_edges.blobs[0], _edges.names[0])
    except DataError as err:
        return None, str(err)
    problem = size_problem(g)
    return (None, problem) if problem else (g, None)


def size_problem(graph: GraphData) -> str | None:
    """Why the graph is too big to draw and solve here (a sentence saying what to do), or None."""
    n = len(graph.nodes)
    if n > MAX_NODES:
        return (f"{graph.name} has {n:,} nodes; this page solves every eigenproblem densely and draws up to "
                f"{MAX_NODES:,}. Upload a subgraph (one community, or the nodes within a few steps of one).")
    return None


def upload_problem(digest: str) -> str | None:
    """Why the uploaded edge list cannot be shown (a sentence saying what to fix), or None."""
    return _read(digest, _upload(digest))[1]


def upload_name(digest: str) -> str:
    return _upload(digest).names[0]


def options(digest: str | None) -> dict[str, str]:
    """The graphs the page offers, id -> title: the bundled ones, and the upload when it reads as a graph."""
    out = {gid: title for gid, (title, _) in graphs.GRAPHS.items()}
    if digest is not None and upload_problem(digest) is None:
        out["upload"] = f"Your edge list: {upload_name(digest)}"
    return out


def ref(source: str, digest: str | None) -> data_service.DataRef:
    """The reference to the chosen graph: a bundled id, or ``upload:<sha1>``, with the sidebar's seed."""
    return data_service.DataRef(KIND, f"upload:{digest}" if source == "upload" else source, data_service.seed())


@st.cache_resource(max_entries=8, show_spinner=False)
def _bundled(graph_id: str) -> GraphData:
    return graphs.load_graph(graph_id)


def graph(data: data_service.DataRef) -> GraphData:
    """The graph a reference names (shared; never mutated)."""
    if data.source.startswith("upload:"):
        digest = data.source.removeprefix("upload:")
        g, error = _read(digest, _upload(digest))
        if error is not None:
            raise DataError(error)
        return g
    return _bundled(data.source)


@st.cache_resource(max_entries=16, show_spinner=False)
def adjacency(data: data_service.DataRef, weighted: bool) -> np.ndarray:
    """The dense adjacency: the graph's weights, or 1 per edge."""
    return _frozen(graphs.adjacency(graph(data), weighted))


@st.cache_resource(max_entries=8, show_spinner=False)
def positions(data: data_service.DataRef) -> np.ndarray:
    """Where each node is drawn: one layout per graph and seed, whatever the weighting or the Laplacian."""
    return _frozen(graphs.layout(adjacency(data, False), random_state=data.seed))


@st.cache_resource(max_entries=8, show_spinner=False)
def edge_list(data: data_service.DataRef) -> np.ndarray:
    """The edges as (i, j) with i < j."""
    i, j = np.nonzero(np.triu(adjacency(data, False), 1))
    return _frozen(np.column_stack([i, j]))


def edges_crossing(data: data_service.DataRef, labels) -> np.ndarray:
    """The edges (i, j) that join two different labels (sides or parts): the cut edges."""
    return _frozen(edge_list(data)[crossing(data, labels)])


def crossing(data: data_service.DataRef, labels) -> np.ndarray:
    """Which edges join two different labels (sides or parts)."""
    labels, e = np.asarray(labels), edge_list(data)
    return labels[e[:, 0]] != labels[e[:, 1]]


def summary(data: data_service.DataRef, weighted: bool) -> dict:
    """What the page says about the graph before any Laplacian."""
    g = graph(data)
    A = adjacency(data, weighted)
    f = fiedler(data, weighted, False)
    return {"nodes": len(g.nodes), "edges": g.n_edges, "components": f.n_components,
            "weighted": g.weighted, "total weight": float(A.sum() / 2), "description": g.description,
            "notices": list(g.notices), "groups": g.groups is not None, "group name": g.group_name}


# ---------------------------------------------------------------- the Fiedler vector and its cuts


@st.cache_resource(max_entries=32, show_spinner=False)
def fiedler(data: data_service.DataRef, weighted: bool, normalized: bool) -> graphs.Fiedler:
    f = graphs.fiedler(adjacency(data, weighted), normalized)
    _frozen(f.vector)
    return f


@st.cache_resource(max_entries=32, show_spinner=False)
def cuts(data: data_service.DataRef, weighted: bool, normalized: bool) -> tuple[pd.DataFrame, dict]:
    """The sweep table along the Fiedler vector and the split of every rule."""
    table, found = graphs.splits(adjacency(data, weighted), fiedler(data, weighted, normalized).vector, normalized,
                                 nodes=graph(data).nodes)
    for s in found.values():
        _frozen(s.side)
    return table, found


def misplaced(data: data_service.DataRef, side) -> np.ndarray | None:
    """Nodes on the other side from their known group (None when the graph has no known two-group split)."""
    g = graph(data)
    if g.groups is None or len(set(g.groups)) != 2:
        return None
    return graphs.misplaced(side, g.groups)


def split_table(data: data_service.DataRef, weighted: bool, normalized: bool) -> pd.DataFrame:
    """One row per rule: the sides' sizes, the cut, its conductance and its indicator's Rayleigh quotient."""
    _, found = cuts(data, weighted, normalized)
    g = graph(data)
    rows = []
    for rule, s in found.items():
        row = {"split": RULE_TITLES[rule], "threshold": s.threshold, "nodes below / above": f"{s.size} / "
               f"{len(s.side) - s.size}", "cut": s.cut, "conductance": s.conductance,
               "Rayleigh quotient of its indicator": s.quotient}
        wrong = misplaced(data, s.side)
        if wrong is not None:
            row[f"not with their {g.group_name.split(' ')[0]}"] = (", ".join(g.nodes[i] for i in wrong)
                                                                   if len(wrong) else "none")
        rows.append(row)
    return pd.DataFrame(rows)


def side_view(data: data_service.DataRef, weighted: bool, normalized: bool, rule: str) -> dict:
    """What the graph drawing of one split needs: each node's side, the cut edges, misplaced nodes."""
    _, found = cuts(data, weighted, normalized)
    s = found[rule]
    g = graph(data)
    labels = np.where(s.side, 0, 1)
    return {"labels": labels, "legend": ["below the threshold", "above"], "split": s,
            "cut_edges": edges_crossing(data, labels), "misplaced": misplaced(data, s.side),
            "groups": g.groups}


# ---------------------------------------------------------------- the Rayleigh quotient


@st.cache_data(max_entries=32, show_spinner=False)
def rayleigh(data: data_service.DataRef, weighted: bool, normalized: bool) -> tuple[pd.DataFrame, np.ndarray]:
    """The quotient along a turn away from the Fiedler vector (random direction from the seed), and the
    quotients of :data:`N_RANDOM` random vectors orthogonal to 1."""
    A = adjacency(data, weighted)
    f = fiedler(data, weighted, normalized).vector
    profile = graphs.rayleigh_profile(A, normalized, data.seed, vector=f)
    return profile, graphs.random_quotients(A, normalized, N_RANDOM, data.seed + 1)


@st.cache_data(max_entries=64, show_spinner=False)
def turned(data: data_service.DataRef, weighted: bool, normalized: bool, angle: float) -> dict:
    """The turned vector, its quotient, and the cut its sign makes."""
    A = adjacency(data, weighted)
    f = fiedler(data, weighted, normalized).vector
    x = graphs.turned(A, angle, normalized, data.seed, vector=f)
    side = x < 0
    return {"vector": x, "fiedler": f / np.sqrt(f @ ((A.sum(1) if normalized else 1.0) * f)),
            "quotient": graphs.rayleigh_quotient(A, x, normalized),
            "cut": graphs.cut_weight(A, side) if 0 < side.sum() < len(side) else float("nan")}


# ---------------------------------------------------------------- k parts and the two Laplacians


@st.cache_resource(max_entries=64, show_spinner=False)
def bisection(data: data_service.DataRef, weighted: bool, normalized: bool, rule: str, k: int) -> dict:
    A = adjacency(data, weighted)
    b = graphs.recursive_bisection(A, k, normalized, rule)
    out = {"labels": _frozen(b.labels), "steps": b.steps, "parts": graphs.parts_table(A, b.labels),
           "cut_edges": edges_crossing(data, b.labels)}
    g = graph(data)
    if g.groups is not None:
        out["crosstab"] = pd.crosstab(pd.Series(b.labels + 1, name="part"),
                                      pd.Series(g.groups, name=g.group_name)).reset_index()
    return out


# ---------------------------------------------------------------- a graph with planted communities


class PlantedView(NamedTuple):
    """An AGM graph with its layout, and the parts recursive bisection found, scored against the plant."""

    graph: GraphData
    positions: np.ndarray  # (n, 2) layout
    edges: np.ndarray  # (e, 2) node pairs
    cut_edges: np.ndarray  # the pairs whose ends lie in different parts
    labels: np.ndarray  # each node's part
    accuracy: float  # nodes of one community on its part, under the best matching
    chance: float  # the same for the communities shuffled
    ari: float  # adjusted Rand index of parts against communities
    scored: int  # nodes in exactly one community (the ones scored)
    crosstab: pd.DataFrame  # parts against communities


@st.cache_data(max_entries=16, show_spinner=False)
def planted(n: int, k: int, p: float, eps: float, overlap: float, normalized: bool, seed: int) -> PlantedView:
    """An AGM graph drawn with the seed, its positions and edges, and its best-sweep bisection scored against the plant."""
    g, F = make_agm(n, k, p, eps, overlap, random_state=seed)
    found = planted_recovery(g, F, normalized, "sweep", random_state=seed)
    A = g.adjacency.toarray()
    i, j = np.nonzero(np.triu(A, 1))
    pairs = np.column_stack([i, j])
    labels = found.labels
    return PlantedView(g, graphs.layout(A, random_state=seed), pairs, pairs[labels[i] != labels[j]], labels,
                       found.accuracy, found.chance, found.ari, found.scored, found.crosstab)


def max_parts(data: data_service.DataRef) -> int:
    return min(MAX_K, len(graph(data).nodes))


@st.cache_data(max_entries=16, show_spinner=False)
def spectra(data: data_service.DataRef, weighted: bool) -> pd.DataFrame:
    """Every eigenvalue of L = D - A and of the normalised L, ascending: columns index, unnormalised, normalised."""
    A = adjacency(data, weighted)
    un, no = graphs.laplacian_eigenvalues(A), graphs.laplacian_eigenvalues(A, True)
    return pd.DataFrame({"index": np.arange(1, len(un) + 1), "unnormalised": un, "normalised": no})


def comparison(data: data_service.DataRef, weighted: bool, rule: str) -> dict:
    """The two Laplacians' Fiedler vectors and splits side by side, with how many nodes they place differently."""
    A = adjacency(data, weighted)
    out = {"degree": A.sum(1), "names": graph(data).nodes}
    rows = []
    for normalized, name in ((False, "unnormalised L = D − A"), (True, "normalised L")):
        f = fiedler(data, weighted, normalized)
        s = cuts(data, weighted, normalized)[1][rule]
        out[name] = {"vector": f.vector, "side": s.side, "cut_edges": edges_crossing(data, s.side)}
        rows.append({"Laplacian": name, "λ₂": f.value, "nodes below / above": f"{s.size} / {len(s.side) - s.size}",
                     "cut": s.cut, "conductance": s.conductance})
    a, b = out["unnormalised L = D − A"]["side"], out["normalised L"]["side"]
    out["table"] = pd.DataFrame(rows)
    out["differ"] = [out["names"][i] for i in np.flatnonzero(a != b)]
    return out


# ---------------------------------------------------------------- the tour's facts


def _listed(names) -> str:
    """Names as a sentence lists them: "9", "3 and 9", "1, 3 and 9"; "none" for no name."""
    names = [str(n) for n in names]
    if not names:
        return "none"
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _cut_largest_each_time(n: int, steps: pd.DataFrame) -> bool:
    """Whether every step of a recursive bisection cut the largest part there was at the time."""
    parts = [n]
    for size, halves in zip(steps["nodes in the part"], steps["sizes"]):
        if int(size) != max(parts):
            return False
        parts.remove(int(size))
        parts.extend(int(h) for h in str(halves).split("+"))
    return True


@st.cache_data(max_entries=32, show_spinner=False)
def tour_facts(data: data_service.DataRef, weighted: bool, normalized: bool, rule: str, k: int, k_rule: str,
               cmp_rule: str) -> dict:
    """What the tour's sentences say, measured on the graph and settings on show (plain numbers and names, for
    :func:`app.ui.tour.tell`).

    The split by ``rule``: the members ``misplaced`` against the known two groups (and under the other weighting,
    ``misplaced_other``), the ``club`` the first misplaced one joined; the best sweep cut's ``sweep_threshold``,
    ``sweep_conductance`` and ``sweep_below`` (nodes below it), whether it cuts off the same nodes as the split at 0
    (``sweep_same_as_zero``) and the conductances at 0 and at the median; the recursive bisection into ``k`` parts
    by ``k_rule`` (``parts``, ``part_sizes``, ``steps``, ``largest_each_time``); the two Laplacians' splits by
    ``cmp_rule`` (``laplacians_agree`` of ``nodes``, and each one's λ₂).
    """
    g = graph(data)
    _, found = cuts(data, weighted, normalized)
    facts = {"nodes": len(g.nodes), "rule": RULE_TITLES[rule], "weighted": bool(weighted)}
    wrong = misplaced(data, found[rule].side)
    if wrong is not None:
        other = misplaced(data, cuts(data, not weighted, normalized)[1][rule].side)
        facts.update(misplaced=_listed(g.nodes[i] for i in wrong), misplaced_other=_listed(g.nodes[i] for i in other),
                     club=str(g.groups[wrong[0]]) if len(wrong) else "")
    sweep, zero, median = found["sweep"], found["zero"], found["median"]
    facts.update(sweep_threshold=float(sweep.threshold), sweep_conductance=float(sweep.conductance),
                 sweep_below=int(sweep.size), sweep_same_as_zero=bool(np.array_equal(sweep.side, zero.side)),
                 zero_conductance=float(zero.conductance), median_conductance=float(median.conductance))
    b = bisection(data, weighted, normalized, k_rule, k)
    sizes = np.bincount(np.asarray(b["labels"]))
    facts.update(parts=int(np.count_nonzero(sizes)), part_sizes=_listed(sizes[sizes > 0].tolist()),
                 steps=len(b["steps"]), largest_each_time=_cut_largest_each_time(len(g.nodes), b["steps"]))
    cmp = comparison(data, weighted, cmp_rule)
    facts.update(cmp_rule=RULE_TITLES[cmp_rule], laplacians_agree=len(g.nodes) - len(cmp["differ"]),
                 l2_plain=float(fiedler(data, weighted, False).value),
                 l2_normalised=float(fiedler(data, weighted, True).value))
    return facts


# ---------------------------------------------------------------- export


def recipe(data: data_service.DataRef, weighted: bool, normalized: bool, k: int, k_rule: str) -> Recipe:
    """The Fiedler vector, the three splits, the bisection into k parts and both spectra, and the code that
    computes them again with embedcore."""
    f = fiedler(data, weighted, normalized)
    _, found = cuts(data, weighted, normalized)
    spec = spectra(data, weighted)
    arrays = {"nodes": np.array(graph(data).nodes), "fiedler": np.asarray(f.vector),
              "lambda2": np.array([f.value]),
              **{f"side_{rule}": np.asarray(s.side) for rule, s in found.items()},
              "parts": np.asarray(bisection(data, weighted, normalized, k_rule, k)["labels"]),
              "eigenvalues_L": spec["unnormalised"].to_numpy(), "eigenvalues_normalised": spec["normalised"].to_numpy()}
    params = {"weighted": weighted, "normalized": normalized, "k": k, "bisection rule": k_rule,
              "graph": data.source, "seed": data.seed}
    code = f"""
        from embedcore import graphs

        A = graphs.adjacency(data, weighted={weighted!r})
        f = graphs.fiedler(A, normalized={normalized!r})
        _, found = graphs.splits(A, f.vector, normalized={normalized!r})
        result = {{"nodes": np.array(data.nodes), "fiedler": f.vector, "lambda2": np.array([f.value]),
                  **{{f"side_{{rule}}": s.side for rule, s in found.items()}},
                  "parts": graphs.recursive_bisection(A, {k}, normalized={normalized!r}, rule={k_rule!r}).labels,
                  "eigenvalues_L": graphs.laplacian_eigenvalues(A),
                  "eigenvalues_normalised": graphs.laplacian_eigenvalues(A, True)}}
        """
    files = None
    if data.source.startswith("upload:"):
        up = _upload(data.source.removeprefix("upload:"))
        files = up.names
        load = reproduce.single_file_loader(up.names[0], up.digest, "edge list",
                                            "from embedcore.io.edges import read_edge_list", "read_edge_list")
    else:
        load = textwrap.dedent(f'''
            def load_data():
                """The bundled graph {data.source!r} (networkx)."""
                from embedcore import graphs

                return graphs.load_graph({data.source!r})
            ''')
    compare = {name: "exact" for name in arrays if name.startswith(("side_", "parts", "nodes"))}
    compare.update({name: "close" for name in ("fiedler", "lambda2", "eigenvalues_L", "eigenvalues_normalised")})
    lap = "normalised" if normalized else "unnormalised"
    return Recipe("graphs", f"spectral clustering of {data.source} ({lap} Laplacian)", arrays, params, data, code,
                  compare=compare, rtol=1e-6, atol=1e-9, load=load, files=files)


def bundle(make) -> bytes:
    """The zip of ``make()`` (a recipe of an uploaded edge list names the page's file)."""
    return reproduce.bundle(make())

