import math

import streamlit as st

from app.services import data as data_service
from app.services import graphs as svc
from app.services import reproduce
from app.ui import graphs_charts as charts
from app.ui import map as lab_map
from app.ui import plots, share, tour
from app.ui.controls import ranged_slider
from app.ui.layout import instrument, lazy_tabs, main_chart, page_header, theory
from app.ui.text import equations, md_escape

page_header("Graphs: spectral clustering",
            "The Fiedler vector gives every node a number that changes least along the edges; cutting it at a "
            "threshold splits the graph where it is thinnest.", "graphs")


def intro() -> None:
    st.markdown(
        """
Give every node of a graph one number, so that nodes tied by an edge get similar numbers and the
numbers are not all equal: where the numbers change sign, or cross some threshold, is a place to
cut the graph in two. The **Laplacian** scores such a numbering by how much it varies along the
edges; the numbering that varies least without being constant is its second eigenvector, the
**Fiedler vector**, and its eigenvalue λ₂ is that least variation. A threshold along the vector
turns it into a cut; this page compares three (0, the median, the best sweep cut), measures each
by its **cut** (the weight of the edges it severs) and its **conductance** (the cut divided by the
smaller side's volume, so that chopping off one lonely node is not a good cut), cuts the parts
again to get k clusters, and sets the plain Laplacian beside the normalised one.
"""
    )
    equations(
        st,
        r"L = D - A,\qquad x^\top L x = \sum_{(i,j) \in E} w_{ij}\,(x_i - x_j)^2",
        r"\lambda_2 = \min_{x \perp \mathbf{1},\ x \neq 0} \frac{x^\top L x}{x^\top x}"
        r"\ \ (\text{argmin: the Fiedler vector})",
    )
    st.latex(
        r"\mathrm{cut}(S) = \sum_{i \in S,\ j \notin S} w_{ij},\qquad "
    r"\phi(S) = \frac{\mathrm{cut}(S)}{\min(\mathrm{vol}\,S,\ \mathrm{vol}\,\bar S)},\qquad "
        r"\mathrm{vol}\,S = \sum_{i \in S} d_i"
    )
    equations(
        st,
        r"L_{\mathrm{sym}} = I - D^{-1/2} A D^{-1/2}:\qquad \lambda_2 = \min_{x^\top D \mathbf{1} = 0,\ x \neq 0} "
        r"\frac{x^\top L x}{x^\top D x}\ \ (\text{argmin: } D^{-1/2} u_2)",
        r"\frac{\lambda_2}{2} \le \phi_{\text{sweep}} \le \sqrt{2 \lambda_2}",
    )
    st.caption(
        "A: the weights w_ij (or 1 per edge); D: the diagonal of degrees d_i = Σ_j w_ij. The constant vector has "
    "x^T L x = 0, which is why the minimum is taken over vectors orthogonal to it. With the normalised "
    "Laplacian a node counts by its degree, and the vector shown is D^-1/2 u₂. For the cut S = {x < t}, the "
    "centred indicator 1_S − (|S|/n)·1 has Rayleigh quotient n·cut(S)/(|S|·|S̄|): every cut's quotient is at "
        "least λ₂, so λ₂ is a lower bound that the Fiedler vector reaches by being allowed values other than two."
    )


# ---------------------------------------------------------------- data and the shared controls

with st.expander("Your own graph: upload an edge list", icon=":material/upload_file:"):
    st.markdown(
        "One edge per line: two node names and, optionally, a weight (how strongly they are tied), separated by a "
        "tab, a comma, a semicolon or spaces. `alice,bob,2` or `1 2`. A first line such as `source,target,weight` "
        "is a header; lines starting with `#` or `%` are comments. Edges are undirected: `a b` and `b a` are the "
        f"same edge. Up to {svc.MAX_NODES:,} nodes."
    )
    upload = st.file_uploader("Edge list", type=["txt", "csv", "tsv", "tab", "edges", "edgelist"], key="graphs.edges",
                              help="Read on this page only (the sidebar's Your data is for vectors, sets and text).")
digest = svc.edge_upload(upload)
problem = svc.upload_problem(digest) if digest is not None else None
if problem is not None:
    st.error(f"Your edge list cannot be used: {md_escape(problem)}")

titles = svc.options(digest)
if st.session_state.get("graphs.graph") not in (None, *titles):
    del st.session_state["graphs.graph"]
if "upload" in titles and st.session_state.get("graphs.seen_upload") != digest:
    st.session_state["graphs.graph"] = "upload"  # a new edge list is what the person wants to see: show it once
st.session_state["graphs.seen_upload"] = digest
sb = st.sidebar
main, knobs = instrument("graphs")
source = sb.selectbox("Graph", list(titles), format_func=titles.__getitem__, key="graphs.graph", bind="query-params")
ref = svc.ref(source, digest)
LAPLACIANS = {"unnormalised": "L = D − A", "normalised": "normalised I − D^-½ A D^-½"}
laplacian = knobs.radio("Laplacian", list(LAPLACIANS), key="graphs.laplacian", bind="query-params",
                     format_func=LAPLACIANS.__getitem__,
                     help="Which Laplacian's Fiedler vector the Fiedler split, Rayleigh quotient and k parts tabs use.")
normalized = laplacian == "normalised"
weighted = knobs.toggle("Use edge weights", value=True, key="graphs.weighted", bind="query-params",
                     help="Off: every edge weighs 1, so a cut counts edges and a degree counts neighbours.")

info = svc.summary(ref, weighted)
if info["description"]:
    st.caption(md_escape(info["description"]))
for notice in info["notices"]:
    st.info(md_escape(notice))
if not info["weighted"]:
    knobs.caption("This graph has no weights: every edge weighs 1 either way.")
f = svc.fiedler(ref, weighted, normalized)
table, found = svc.cuts(ref, weighted, normalized)
cols = [c for _ in range(3) for c in knobs.columns(2)]
cols[0].metric("nodes", f"{info['nodes']:,}")
cols[1].metric("edges", f"{info['edges']:,}")
cols[2].metric("connected components", info["components"])
cols[3].metric(f"λ₂ of the {'normalised ' if normalized else ''}Laplacian", f"{f.value:.4g}",
               help="0 exactly when the graph is in pieces; small when a cut nearly separates it.")
cols[4].metric("best sweep conductance", f"{found['sweep'].conductance:.3f}")
if f.n_components > 1:
    st.warning(f"The graph is in {f.n_components} pieces, so λ₂ = 0 and any mix of the pieces' indicators is a "
               "Fiedler vector; the page uses the largest piece against the rest, a cut of weight 0.")



def controls_text() -> None:
    st.markdown("**What the controls change, and how the pictures can mislead**")
    st.markdown(
        """
* **Graph.** Zachary's karate club is the classic test: the club split in two, and we know who went
  with whom (node shape). Les Misérables has no known answer; look at where the cuts fall.
* **Use edge weights.** Off, a strong tie counts as much as a weak one. On the karate club this moves
  member 3 across the split at 0: unweighted, the sign of the Fiedler vector places members 3 and 9
  against their clubs (Kolaczyk, *Statistical Analysis of Network Data*, 2009, fig. 4.9, finds only the
  third actor misplaced against Zachary's faction labels; member 9 sided with the officer's faction but
  joined Mr. Hi's club, the one person Zachary's own model also misplaced). With weights, only 9.
* **Laplacian.** The plain L = D − A divides by x^T x, so every node counts the same and cutting off a
  small, loosely tied group is cheap; the normalised one divides by x^T D x, so a node counts by its
  degree, the sides are balanced by volume, and its best sweep cut is guaranteed a conductance of at
  most √(2 λ₂) (Cheeger's inequality). Compare both in the last tab.
* **Split** (first tab): where the vector is cut. 0 uses the vector's sign (the sides can be very
  unequal), the median forces two halves of equal size whatever the graph, the sweep tries every
  threshold and keeps the least conductance.
* **Turn** (Rayleigh tab): moves away from the Fiedler vector in a random direction (the sidebar's
  seed picks it); the quotient can only rise.
* **k and the rule** (k parts tab): how many parts, and how each part is cut; the largest part is cut
  next.
* **Random seed** (sidebar): the drawing's layout and the random directions; never the clusters.

*How the pictures can mislead.* The drawing is a force-directed layout made without the Laplacian: two
nodes drawn close may not be tied, and a good cut need not look like a straight line. An eigenvector
has no natural sign (here the first node is always below 0) and, when λ₂ and λ₃ are close, a small
change of weights can swap or mix them and move many nodes at once. The best sweep cut is the best of
the n − 1 cuts along one ordering, not the best cut of the graph (finding that is NP-hard), and the
cut at 0 is not chosen to minimise anything. Recursive bisection never revisits an earlier cut, and a conductance
measured inside a part is not the part's conductance in the whole graph. A "known" split is what people
did, not what the ties alone imply.
"""
    )

RULES = list(svc.RULE_TITLES)
pos = svc.positions(ref)
edges = svc.edge_list(ref)
names = svc.graph(ref).nodes
lap_name = "the normalised Laplacian" if normalized else "L = D − A"


@st.fragment
def split_drawing(ref, weighted, normalized):
    """The radio and the graph it cuts: a new split reruns and redraws only this."""
    rule = st.radio("Split", RULES, format_func=svc.RULE_TITLES.__getitem__, index=0, key="graphs.rule",
                    horizontal=True, bind="query-params",
                    help="Where the Fiedler vector is cut: at 0, at the median, or at the prefix of least conductance.")
    view = svc.side_view(ref, weighted, normalized, rule)
    s = view["split"]
    lab_map.draw(st, pos, key="graphs.map.split", **charts.graph(
        pos, edges, names, view["labels"], view["legend"], cut_edges=view["cut_edges"], groups=view["groups"],
        ring=view["misplaced"], colours=charts.SIDE_COLOURS,
        title=f"Split {svc.RULE_TITLES[rule]}: cut {s.cut:.4g}, conductance {s.conductance:.3f}"))
    wrong = view["misplaced"]
    if wrong is not None:
        n = len(names)
        st.caption(f"Against the known split, {n - len(wrong)} of {n} nodes are on their club's side"
                   + (f"; ringed: {', '.join(md_escape(names[i]) for i in wrong)}." if len(wrong) else ".")
                   + " Shapes are the clubs, colours the sides.")


def fiedler_split(ref, weighted, normalized):
    main_chart("graphs.map.split", "graphs.chart.vector")  # the cut graph and the vector it is cut by
    c1, c2 = st.columns([3, 2])
    with c1:
        split_drawing(ref, weighted, normalized)
    # The vector, the sweep and the table show all three splits at once, so they stay as they are when the
    # split changes.
    table, found = svc.cuts(ref, weighted, normalized)
    marks = {svc.RULE_TITLES[r]: (found[r].size, found[r].conductance) for r in RULES}
    thresholds = {svc.RULE_TITLES[r]: found[r].threshold for r in RULES}
    charts.sorted_vector(c2, table, thresholds, f"The Fiedler vector of {lap_name}, sorted",
                         "D^-½ u₂" if normalized else "x", key="graphs.chart.vector")
    charts.sweep_profile(st, table, marks, "Sweep: the conductance of cutting after each node", key="graphs.chart.sweep")
    st.dataframe(svc.split_table(ref, weighted, normalized), hide_index=True, key="graphs.split_table",
                 column_config={"threshold": st.column_config.NumberColumn(format="%.4g"),
                                "cut": st.column_config.NumberColumn(format="%.4g"),
                                "conductance": st.column_config.NumberColumn(format="%.4f"),
                                "Rayleigh quotient of its indicator": st.column_config.NumberColumn(format="%.4f")})
    lam2 = svc.fiedler(ref, weighted, normalized).value
    st.caption(f"Every split's indicator quotient is at least λ₂ = {lam2:.4g}: the Fiedler vector is the relaxed "
               "cut, allowed any values instead of two.")


def rayleigh_section(ref, weighted, normalized):
    if len(names) < 3:
        st.info("With two nodes the constant vector and the Fiedler vector span every direction: there is nothing "
                "to turn towards.")
        return
    # the normalised quotient x^T L x / x^T D x is minimised over x with x^T D 1 = 0: orthogonality weighted by degree
    perp = "D-orthogonal to 1 (xᵀD1 = 0)" if normalized else "orthogonal to 1"
    turn_section(ref, weighted, normalized, perp)
    # The random vectors do not depend on the angle: drawn by the page's run, not again at each turn.
    _, random_q = svc.rayleigh(ref, weighted, normalized)
    lam2 = svc.fiedler(ref, weighted, normalized).value
    spec = svc.spectra(ref, weighted)["normalised" if normalized else "unnormalised"].to_numpy()
    plots.show(st, charts.quotient_histogram(random_q, lam2, float(spec[-1]),
                                             f"{len(random_q)} random vectors {perp}: none below λ₂"),
               key="graphs.chart.random")
    st.caption(f"A random vector {perp} scores about the average eigenvalue, far above λ₂: smooth "
               "numberings of a graph are rare, and the Fiedler vector is the smoothest there is."
               + (" Under the normalised Laplacian the quotient is xᵀLx / xᵀDx, and the vectors are made orthogonal "
                  "to 1 in the degree-weighted inner product, as the Fiedler vector is." if normalized else ""))


@st.fragment
def turn_section(ref, weighted, normalized, perp):
    """The angle and what it moves: a new angle reruns and redraws only this."""
    angle = st.slider("Turn away from the Fiedler vector (degrees)", 0, 90, 30, 1, key="graphs.angle",
                      bind="query-params", help="x = cos θ · f + sin θ · r, with r a random direction "
                      f"orthogonal to f and {perp} (the seed picks it). θ = 0 is the Fiedler vector itself.")
    profile, _ = svc.rayleigh(ref, weighted, normalized)
    t = svc.turned(ref, weighted, normalized, float(angle))
    lam2 = svc.fiedler(ref, weighted, normalized).value
    m = st.columns(3)
    m[0].metric("R(x) at this angle", f"{t['quotient']:.4g}")
    m[1].metric("λ₂ (the minimum)", f"{lam2:.4g}")
    m[2].metric("cut of x's sign", "—" if math.isnan(t["cut"]) else f"{t['cut']:.4g}",
                help="The weight of the edges between x < 0 and x ≥ 0.")
    charts.turn(st, profile, angle, t["quotient"], lam2, names, t["fiedler"], t["vector"])
    st.caption("The quotient rises as x turns away: R(x) = cos²θ·λ₂ + sin²θ·R(r). Hover a point on the right for "
               "its node and value.")


@st.fragment
def parts_section(ref, weighted, normalized):
    most = svc.max_parts(ref)
    c1, c2 = st.columns(2)
    with c1:
        k = ranged_slider("Parts k", 2, most, 3, key="graphs.k", why="the graph has two nodes", bind="query-params",
                          help="Recursive bisection: cut in two, then cut the largest part again, until k parts.")
    k_rule = c2.radio("Cut each part", RULES, format_func=svc.RULE_TITLES.__getitem__, index=2, key="graphs.k_rule",
                      horizontal=True, bind="query-params",
                      help="Each part is cut by its own Fiedler vector (of the part as a graph of its own).")
    b = svc.bisection(ref, weighted, normalized, k_rule, k)
    legend = [f"part {j + 1}" for j in range(k)]
    g = svc.graph(ref)
    lab_map.draw(st, pos, key="graphs.map.parts", **charts.graph(
        pos, edges, names, b["labels"], legend, cut_edges=b["cut_edges"], groups=g.groups,
        title=f"{k} parts by recursive bisection ({svc.RULE_TITLES[k_rule]}, {lap_name})",
        cut_label="edges between parts"))
    c1, c2 = st.columns(2)
    c1.caption("Each step: the part cut, the two new sizes, the cut between them and its conductance in the part")
    c1.dataframe(b["steps"], hide_index=True, key="graphs.steps")
    c2.caption("Each part in the whole graph")
    c2.dataframe(b["parts"], hide_index=True, key="graphs.parts")
    if "crosstab" in b:
        st.caption("Parts against the clubs")
        st.dataframe(b["crosstab"], hide_index=True, key="graphs.crosstab")


@st.fragment
def laplacians_section(ref, weighted):
    rule = st.radio("Split both by", RULES, format_func=svc.RULE_TITLES.__getitem__, index=2, key="graphs.cmp_rule",
                    horizontal=True, bind="query-params")
    spec = svc.spectra(ref, weighted)
    c1, c2 = st.columns(2)
    plots.show(c1, charts.spectrum(spec["unnormalised"].to_numpy(), "Spectrum of L = D − A (0 to at most 2·max d)",
                                   "eigenvalue", charts.SIDE_COLOURS[0]), key="graphs.chart.spectrum_L")
    plots.show(c2, charts.spectrum(spec["normalised"].to_numpy(), "Spectrum of the normalised L (0 to 2)",
                                   "eigenvalue", charts.SIDE_COLOURS[1]), key="graphs.chart.spectrum_N")
    cmp = svc.comparison(ref, weighted, rule)
    g = svc.graph(ref)
    c1, c2 = st.columns(2)
    for col, name, shown, key in ((c1, "unnormalised L = D − A", "L = D − A", "graphs.map.graph_L"),
                                  (c2, "normalised L", "normalised L", "graphs.map.graph_N")):
        side = cmp[name]["side"]
        lab_map.draw(col, pos, key=key, **charts.graph(
            pos, edges, names, (~side).astype(int), ["below the threshold", "above"], cut_edges=cmp[name]["cut_edges"],
            groups=g.groups, colours=charts.SIDE_COLOURS, height=420, title=f"{shown}: split {svc.RULE_TITLES[rule]}"))
    st.dataframe(cmp["table"], hide_index=True, key="graphs.compare_table",
                 column_config={"λ₂": st.column_config.NumberColumn(format="%.4g"),
                                "conductance": st.column_config.NumberColumn(format="%.4f")})
    differ = cmp["differ"]
    st.caption(f"The two splits place {len(differ)} node(s) differently"
               + (f": {', '.join(md_escape(v) for v in differ[:20])}{', …' if len(differ) > 20 else ''}."
                  if differ else "."))
    xy, layers = charts.vectors_scatter(names, cmp["unnormalised L = D − A"]["vector"], cmp["normalised L"]["vector"],
                                        cmp["degree"], "The two Fiedler vectors, node by node")
    lab_map.draw(st, xy, key="graphs.map.vectors", **layers)
    st.caption("The scales differ (λ of L grows with the degrees, the normalised λ stays in [0, 2]), so compare "
               "shapes, not heights. Nodes off the diagonal trend are where weighting by degree changes the answer; "
               "low-degree nodes at the edge of a community are the usual ones to move.")


@st.fragment
def planted_section(normalized):
    st.markdown("**A graph with communities planted in it** (the affiliation graph model, AGM). Every node joins a "
                "community, some join a second; each community ties its members with probability p, and any two "
                "nodes are tied with the background probability ε. Spectral clustering is then asked to find the "
                "communities without being told them.")
    st.latex(r"P(u \sim v) = 1 - (1 - \varepsilon) \prod_{c \,\in\, C_u \cap C_v} (1 - p_c)")
    c = st.columns(5)
    n = c[0].select_slider("Nodes", [60, 120, 240, 480], 120, key="graphs.agm_n", bind="query-params")
    k = c[1].select_slider("Communities K", [2, 3, 4], 2, key="graphs.agm_k", bind="query-params")
    p = c[2].select_slider("p inside a community", [0.05, 0.1, 0.2, 0.3, 0.5], 0.2, key="graphs.agm_p", bind="query-params")
    eps = c[3].select_slider("ε between any two", [0.0, 0.01, 0.02, 0.05, 0.1, 0.2], 0.02, key="graphs.agm_eps", bind="query-params")
    overlap = c[4].select_slider("Share in a second community", [0.0, 0.05, 0.1, 0.2], 0.05, key="graphs.agm_overlap", bind="query-params")
    view = svc.planted(int(n), int(k), float(p), float(eps), float(overlap), normalized, data_service.seed())
    g = view.graph
    lab_map.draw(st, view.positions, key="graphs.map.agm", **charts.graph(
        view.positions, view.edges, g.nodes, view.labels, [f"part {j + 1}" for j in range(int(k))],
        cut_edges=view.cut_edges, groups=g.groups, cut_label="edges between parts",
        title=f"{k} parts by recursive bisection (best sweep cut, {lap_name}); shapes: the planted communities"))
    m = st.columns(3)
    m[0].metric("nodes on their community's part", f"{view.accuracy:.1%}",
                help=f"Of the {view.scored} nodes in one community only, under the best matching of parts to "
                "communities.")
    m[1].metric("the same by chance", f"{view.chance:.1%}",
                help="The parts against the communities shuffled (200 shuffles): what a split that knows nothing "
                "scores under the best matching.")
    m[2].metric("adjusted Rand index", f"{view.ari:.3f}", help="1: the plant found exactly; 0: chance.")
    st.dataframe(view.crosstab, hide_index=True, key="graphs.agm_crosstab")
    st.caption(md_escape(g.description) + " Raise ε towards p and the blocks dissolve: the score falls to the "
               "chance level, since a cut can only find structure that is there. Nodes in several communities are "
               "drawn but not scored: either part is right for them.")


tabs = lazy_tabs(["Fiedler split", "Rayleigh quotient", "k parts", "Two Laplacians", "Planted communities"],
                 key="graphs.tab", where=main)
with main, theory():
    intro()
    controls_text()
with tabs[0]:
    if tabs[0].open:
        fiedler_split(ref, weighted, normalized)
with tabs[1]:
    if tabs[1].open:
        rayleigh_section(ref, weighted, normalized)
with tabs[2]:
    if tabs[2].open:
        parts_section(ref, weighted, normalized)
with tabs[3]:
    if tabs[3].open:
        laplacians_section(ref, weighted)
with tabs[4]:
    if tabs[4].open:
        planted_section(normalized)

k_now = min(max(int(st.session_state.get("graphs.k", 3)), 2), svc.max_parts(ref))
k_rule_now = st.session_state.get("graphs.k_rule", "sweep")
if tour.current("graphs") is not None:  # what the tour's sentence says, measured on the graph and splits on show
    tour.tell("graphs", **svc.tour_facts(ref, weighted, normalized, st.session_state.get("graphs.rule", "zero"),
                                         k_now, k_rule_now, st.session_state.get("graphs.cmp_rule", "sweep")))
share.panel("graphs", reproduce.lazy(lambda: svc.recipe(ref, weighted, normalized, k_now, k_rule_now)),
            what="the Fiedler vector and λ₂, the three splits, the bisection into "
                 f"{k_now} parts and both spectra, with the node names"
                 + (" (reproduce.py asks for your edge list and checks its SHA-1)" if source == "upload" else ""))
