import streamlit as st

from app.services import data as data_service
from app.services import manifolds as svc
from app.services import reproduce
from app.services import selection as picked
from app.ui import manifolds_charts as charts
from app.ui import share, tour
from app.ui.controls import ranged_slider
from app.ui.layout import chart_height, instrument, lazy_tabs, main_chart, page_header, theory
from app.ui.selection import MapTools
from app.ui.sidebar import data_source
from app.ui.text import md_escape

page_header("Manifolds: Locally Linear Embedding",
            "LLE rebuilds every point from its **B** nearest neighbours and finds the 2-D points that the same "
            "weights rebuild: too few neighbours tear the map, too many fold it.", "man")


def intro() -> None:
    st.markdown(
        """
**LLE** assumes a curved surface is flat when seen up close. It writes every point as a
weighted average of its **B** nearest neighbours, then looks for 2-D points that the
*same* weights rebuild. The weights capture the local geometry (angles, proportions)
and know nothing about where the surface sits in space, so the sheet can be unrolled.
With too few neighbours the neighbourhoods stop overlapping and the map **tears** into
pieces; with too many, neighbourhoods reach across folds of the sheet and the map
**folds** onto itself.
"""
    )
    st.latex(
        r"\min_W \sum_i \Big\lVert x_i - \sum_{j \in N_B(i)} W_{ij} x_j \Big\rVert^2 \ \text{s.t.}\ \sum_j W_{ij} = 1"
    )
    st.latex(
        r"\min_{Y^\top Y = I} \sum_i \Big\lVert y_i - \sum_j W_{ij} y_j \Big\rVert^2 = \operatorname{tr}(Y^\top M Y),"
        r"\qquad M = (I - W)^\top (I - W)"
    )
    st.caption("The embedding is the bottom eigenvectors of M after the constant one (eigenvalue 0); the sum of "
               "the kept eigenvalues is the reconstruction error the 2-D points attain.")


def latent_factors() -> None:
    """Embeddings against latent factors: what the vectors must reproduce (an expander of the Inside LLE tab)."""
    st.markdown(
        "Both give each item a short vector; they differ in what the vectors must reproduce. An "
        "**embedding** places items so that something about where they are survives. LLE keeps "
        "neighbourhoods, not distances: each point's local reconstruction weights from its neighbours "
        "carry over to the map, so near points stay near, while distances between points that are not "
        "neighbours are free to change; Latent Markov Embedding (the "
        "Playlists page) makes the probability of the next song fall with its squared distance from the "
        "current one.")
    st.latex(r"\text{LLE: } \min_Y \sum_i \Big\lVert y_i - \sum_j W_{ij} y_j \Big\rVert^2,\qquad "
             r"\text{LME: } P(s \mid s') = \frac{\exp(-\lVert u_s - v_{s'}\rVert^2)}{Z(s')}")
    st.markdown(
        "A **latent-factor** model keeps inner products: PMI-SVD word vectors (the Words page) are "
        "chosen so that a word's vector times a context's vector gives their pointwise mutual "
        "information.")
    st.latex(r"\text{PMI-SVD: } \log\frac{P(w, c)}{P(w)\,P(c)} \approx u_w^\top v_c,\qquad "
             r"\lVert u_i - u_j\rVert^2 = \lVert u_i\rVert^2 + \lVert u_j\rVert^2 - 2\,u_i^\top u_j")
    st.markdown(
        "The identity on the right ties the two: a distance is an inner product corrected by the two "
        "lengths, so the two agree only when the vectors have similar lengths. Read the pictures "
        "accordingly: on an embedding's map, nearness is the claim and the axes mean nothing; a "
        "latent-factor map's axes can carry meaning, but two points far apart can still have a large "
        "inner product if both are long, so nearness on it is not similarity.")


seed = data_service.seed()
sb = st.sidebar
source, _ = data_source("vectors", "man", default="swiss_roll", usable=svc.input_problem)
ref = data_service.ref("vectors", source)
main, knobs = instrument("man")
main_chart("man.chart.input", "man.map.lle")  # the input and its map, side by side
if svc.is_generated(source):
    n = knobs.slider("Points", 300, svc.SAMPLE, 1500, 100, key="man.n",
                     help="Sample size of the generated manifold. Every new B solves LLE again: about 1 s at "
                          "20,000 points, 8 s at 100,000.",
                  bind="query-params")
    noise = knobs.slider("Noise", 0.0, 1.0, 0.0, 0.05, key="man.noise", help="Gaussian noise added to every coordinate.",
                      bind="query-params")
    pts = svc.points(ref, n, noise)
elif source == "upload" and svc.row_count(ref) > svc.FIRST_SAMPLE:
    top = min(svc.row_count(ref), svc.SAMPLE)
    n = ranged_slider("Points", 300, top, svc.FIRST_SAMPLE, key="man.sample", where=knobs, step=100,
                      bind="query-params", help=f"Size of the random sample of the upload the page works on "
                      f"(up to {top:,}).")
    pts = svc.points(ref, n)
else:
    pts = svc.points(ref)
data = svc.point_set(pts)
n_points = len(data.X)
if data.sampled and pts.n:
    st.info(f"The data has {data.rows:,} points; this page draws a random sample of {n_points:,} (seed {seed}). "
            f"Raise Points (up to {min(data.rows, svc.SAMPLE):,}) to use more: the neighbour search, LLE's "
            "eigenproblem and the quality measures grow faster than the number of points, and with many columns "
            "a sample of several thousand can take minutes.")
elif data.sampled:
    st.info(f"The data has {data.rows:,} points; this page uses a random sample of {svc.SAMPLE:,} (seed {seed}).")

B = ranged_slider("B: neighbours", 3, svc.largest_b(pts), min(12, n_points - 1), key="man.B", where=knobs,
                  why=svc.b_limit_reason(pts), bind="query-params",
                  help="How many nearest neighbours rebuild each point"
                  + (f" (at most {svc.largest_b(pts)}: {svc.b_limit_reason(pts)})." if svc.b_limit_reason(pts) else "."))
reg_exp = knobs.slider("log10(reg)", -6.0, 0.0, -3.0, 0.5, key="man.reg",
                    help="Regularisation of each neighbourhood's Gram matrix, relative to its trace. Needed when B "
                    "exceeds the dimension; large values pull the weights towards 1/B.", bind="query-params")
reg = float(10**reg_exp)

theory_box = theory(key="man.theory")
with theory_box:
    if theory_box.open:  # written only while open: every B redraws the page
        intro()
        st.markdown("**What the controls change, and how the pictures can mislead**")
        st.markdown(
            """
* **B** is the one that matters. Watch the sweep tab: small B tears the roll into strips,
  large B short-circuits the layers and the map folds.
* **reg** stabilises the weights; very large reg makes them uniform and the map blurs.
* **Points** and **noise**: sparse samples need larger B to stay connected; noise makes
  the sheet thick, and LLE then reproduces the noise.
* *Misleading pictures.* LLE's axes have no units and may be flipped or rotated; the map
  is also normalised so that Y^T Y = I (each coordinate has a sum of squares of 1, a
  variance of 1/n, so the axes' numbers shrink as points are added), and distances across the
  map are not distances on the sheet. A smooth colour gradient (the true coordinate) says
  the order is kept, not that spacing is. Trustworthiness near 1 can hide a fold if the
  layers end up side by side; look at the colours too.
"""
        )


def _pick_from_box() -> None:
    picked.inspect_point("man", pts, int(st.session_state["man.point"]))


# The inspected point and the selection are the map's (a click or a box on it), kept per data: a new B keeps
# them, new points drop them. A point is always inspected here: the first until another is chosen.
chosen = picked.selection("man", pts)
point = chosen.point if chosen.point is not None and 0 <= chosen.point < n_points else 0
if chosen.point != point:
    picked.inspect_point("man", pts, point)

try:
    nbrs = svc.neighbours_of(pts, B, point)
    result = svc.lle(pts, B, reg)
except ValueError as err:
    st.error(md_escape(err))
    st.stop()
show_graph = knobs.checkbox("Draw the neighbourhood graph", key="man.graph",
                         help="Every point joined to its B neighbours: where edges jump between layers, LLE folds.",
                         bind="query-params")
c1, c2 = main.columns(2)
figures = main.container(horizontal=True, gap="medium")  # one row of figures (fewer elements than columns)
figures.metric("points", f"{n_points:,}")
figures.metric("dimensions", data.X.shape[1])
figures.metric("B", B)
figures.metric("reconstruction error", f"{result.reconstruction_error:.2e}")
trust_slot = figures.empty()  # filled last, once the map is on its way
# A box, a lasso or Clear reruns only what shows the selection (the 3-D view, the map, the list), drawn in keyed
# fragments; a click reruns the page (the inspected point is the Inside LLE tab's), and so does any selection made
# while a tab that rings it on maps of its own is open (asked when the selection is made: the tabs are drawn later).
SELECTION_SHOWN = ("man.input", "man.map", "man.selected")
LABELS = ["Inside LLE", "Neighbourhood sweep", "Method comparison", "Quality", "Download"]  # the tabs, drawn below


def rings_in_tabs() -> bool:
    return st.session_state.get("man.tab") in LABELS[1:4]  # the sweep, the comparison and the quality map


tools = MapTools("man", pts, range(n_points), result.embedding, space=data.X, k=B, where=c2,
                 labels=data.colour, label_name=data.colour_label, linked=rings_in_tabs, fragments=SELECTION_SHOWN)
map_slot = c2.container()  # filled last (see the end of the page)
c2.caption(f"Coloured by {md_escape(data.colour_label)}; hover a point for its value. A new B or reg glides the "
           "points from the map on screen to the new one, first turned, flipped and scaled onto it (LLE's axes "
           "mean nothing), so what moves is what the setting changed.")
shown = svc.shown_in_3d(pts)
dims = data.X.shape[1]


@st.fragment(key="man.input")
def input_in_3d() -> None:
    tools.refresh()
    st.markdown(f"**Input in 3-D**{'' if dims <= 3 else f' (first 3 of {dims} dimensions)'}, coloured by "
                f"{md_escape(data.colour_label)}")
    charts.input_view(st, svc.input_view(pts), data.colour, data.categorical, point, nbrs, shown=shown,
                      segments=svc.graph_segments(pts, B) if show_graph else None, selected=tools.rows,
                      height=440, key="man.chart.input")
    st.caption(f"Drag to turn it, scroll to zoom. Point {point} in black, its {B} neighbours in red"
               + (f", the {len(tools.rows):,} points selected on a map ringed" if len(tools.rows) else "")
               + ("." if shown is None else f"; a sample of {len(shown):,} of the {n_points:,} points (seed {seed}) "
                  "around them, while LLE and the map use them all."))


with c1:
    input_in_3d()


def where_on_the_input(rows) -> None:
    st.caption("Where the selection sits in the input (ringed in the 3-D view)")
    names = [f"x{j + 1}" for j in range(min(dims, 10))]
    st.dataframe(picked.spread(data.X[:, : len(names)], rows, names, data.colour, data.colour_label),
                 hide_index=True, key="man.selected_where", height=240)


@st.fragment(key="man.selected")
def selection_list() -> None:
    tools.refresh()
    tools.panel(where_on_the_input, file_name="selected_points.csv", neighbours=False)


selection_list()
tools.compare(f"LLE, B={B}, reg={reg:g}", what="B, reg or method (Quality tab)")

tabs = lazy_tabs(LABELS, key="man.tab")

with tabs[0]:
    if tabs[0].open:
        st.session_state["man.point"] = point
        st.number_input("Point to inspect", 0, n_points - 1, key="man.point", on_change=_pick_from_box,
                        help="Or choose 'click a point' above the 2-D map and click one.", bind="query-params")
        c1, c2 = st.columns(2)
        seen = svc.inspection(pts, B, reg, point)
        charts.weights(c1, seen["neighbors"], seen["weights"], point, key="man.chart.weights")
        c1.caption(f"Rebuilt from its neighbours, point {point} is off by {seen['error']:.2e}, against a mean "
                   f"neighbour distance of {seen['spread']:.3f} ({seen['relative']:.1%}). Negative weights are "
                   "allowed: the point may lie outside its neighbours' hull.")
        charts.eigenvalues(c2, result.eigenvalues, key="man.chart.eigs")
        c2.caption("λ0 ≈ 0 belongs to the constant vector and is skipped; the next two (orange) give the map. When "
                   "λ3 is close to λ2 a third direction is almost as good, and the 2-D map may mix them.")
        st.markdown(
            f"**The weights by their formula.** Seen from point {point}, the reconstruction error of weights w "
            "summing to 1 is wᵀCw, with C the Gram matrix of the neighbours' offsets from the point. Setting the "
            "gradient of wᵀCw − 2λ(1ᵀw − 1) to zero gives Cw = λ1, so w is C⁻¹1 scaled to sum to 1. The fit "
            "solves all points' systems at once; here the formula is evaluated for this point alone, with C "
            "inverted explicitly, and set beside the weights the fit used.")
        st.latex(r"w = \frac{C^{-1}\mathbf{1}}{\mathbf{1}^\top C^{-1}\mathbf{1}},\qquad "
                 r"C_{jk} = (x_i - x_j)^\top (x_i - x_k) + r\,\delta_{jk},\qquad "
                 r"r = \mathrm{reg}\cdot\sum_{j \in N_B(i)} \lVert x_i - x_j\rVert^2")
        closed_box = st.expander("The formula beside the fit, weight by weight",
                                 key="man.closed_form_open", on_change="rerun")
        with closed_box:
            if closed_box.open:  # a table redrawn at every B: sent only while it is looked at
                cf = svc.closed_form(pts, B, reg, point)
                st.dataframe(cf["table"], hide_index=True, key="man.closed_form", height=min(36 + 35 * B, 320),
                             column_config={"difference": st.column_config.NumberColumn(format="%.1e")})
                st.caption(f"Largest difference {cf['largest']:.1e}, with r = {cf['ridge']:.2e} on C's diagonal and "
                           f"C's condition number {cf['condition']:.1e}. The two agree to rounding: the fit's weights "
                           "are this formula. A smaller reg makes C nearly singular when B exceeds the dimension; the "
                           "weights then swing with every small change of the points, and the difference grows with "
                           "the condition number.")
        invariance_box = st.expander("The weights ignore rotation, scaling and translation (measured)",
                                     key="man.invariance_open", on_change="rerun")
        with invariance_box:
            if invariance_box.open:  # measured when opened: six neighbour searches and weight fits per B
                st.latex(r"x \mapsto s\,Qx + t:\quad x_i - \sum_j W_{ij} x_j \;\mapsto\; "
                         r"s\,Q\Big(x_i - \sum_j W_{ij} x_j\Big)\quad\text{since}\ \sum_j W_{ij} = 1")
                ci1, ci2 = st.columns(2)
                inv_scale = ci1.select_slider("Scale s (also the stretch of one axis)",
                                              [0.01, 0.1, 0.5, 2.0, 10.0, 100.0], 10.0, key="man.inv_scale", bind="query-params")
                inv_shift = ci2.select_slider("Shift |t| (in data widths)", [0.0, 1.0, 10.0, 100.0], 10.0,
                                              key="man.inv_shift", bind="query-params")
                inv, measured = svc.invariance(pts, B, reg, float(inv_scale), float(inv_shift))
                st.dataframe(inv, hide_index=True, key="man.invariance",
                             column_config={"neighbours kept": st.column_config.NumberColumn(format="percent"),
                                            "largest weight change": st.column_config.NumberColumn(format="%.1e")})
                st.caption(f"Measured on {measured:,} points at B = {B}: the input is moved by a random rotation "
                           "Q, the scale s and a shift t, the weights are solved again from the same neighbours, and "
                           "the largest change of any weight is shown. A similarity leaves every residual multiplied "
                           "by sQ, so the same weights stay best (and the ridge, relative to trace C, scales with them); "
                           "stretching one axis is no similarity, and there the weights do move. LLE keeps "
                           "neighbourhoods and their proportions, not distances.")
        latent_box = st.expander("Embeddings and latent factors: distances or inner products", key="man.latent_open",
                                 on_change="rerun")
        with latent_box:
            if latent_box.open:
                latent_factors()
        if st.session_state.get("man.near_point", point) != point:  # a point was just picked: show its lists
            st.session_state["man.near_open"] = True
        st.session_state["man.near_point"] = point
        near_box = st.expander("The inspected point's nearest neighbours, in the data and on the map (the rings)",
                               key="man.near_open", on_change="rerun")
        with near_box:
            if near_box.open:  # two tables redrawn at every B: sent only while they are looked at
                tools.neighbour_lists(forget=False)

with tabs[1]:
    if tabs[1].open:
        sampled = svc.heavy_rows(pts)
        if sampled is not None:
            st.info(f"The sweep solves LLE six times: it uses a random sample of {len(sampled):,} of the "
                    f"{n_points:,} points (seed {seed}).")
        panels = []
        for r in svc.sweep(pts, reg):
            key, b = f"man.map.sweep.{r.n_neighbors}", r.n_neighbors
            if r.error is not None:
                st.warning(f"B={b}: {md_escape(r.error)}")
                panels.append((key, f"B={b} · failed", "LLE failed at this B (see above)."))
            else:
                panels.append((key, f"B={b} · T={r.trustworthiness:.3f}", r.embedding))
        st.markdown(f"**LLE for several B, each titled with its trustworthiness (k={svc.quality_k(pts)})**")
        charts.map_grid(tools, panels, values=data.colour, categorical=data.categorical, label=data.colour_label,
                        ids=sampled)
        st.caption("Too few neighbours and the neighbourhoods stop overlapping: the map tears into pieces. Too many "
                   "and they reach across the sheet's layers: the map folds. Trustworthiness drops at both ends. On "
                   "the default swiss roll: torn at B = 3, unrolled around 9-12, folded at 40; other shapes break at "
                   "other B. A selection made on any map is ringed in every panel.")


#: Seconds between two redraws of the live map while the comparison's methods run.
FRAME_S = 0.3


def comparison_live(pts, finished: int) -> None:
    """While the methods run in the background: their progress and t-SNE's layout so far, redrawn in place
    every :data:`FRAME_S` (a fragment on a timer); when another method has finished (``finished`` counts
    those the page has drawn), the whole page runs again to draw its panel."""
    job = svc.comparison_run(pts)
    if job is None or len(svc.computed_maps(pts)) + len(svc.failed_maps(pts)) != finished:
        st.rerun(scope="app")
    st.progress(min(max(job.fraction, 0.0), 1.0), text=job.text)
    if job.latest is not None:
        coords, iteration = job.latest
        pset = svc.point_set(pts)
        charts.live_map(st, "man.map.compare.live", coords, svc.heavy_ids(pts), pset.colour, pset.categorical,
                        pset.colour_label, title=f"{svc.METHOD_TITLES[job.current]} · iteration {iteration}",
                        glide_ms=int(FRAME_S * 1000))
        st.caption("t-SNE's layout as it optimises, redrawn in place a few times a second; its panel below "
                   "appears when it has finished.")


def whole_isomap(pts) -> None:
    """Isomap of every point of the page, past the comparison's sample: paths from landmarks, on request."""
    n = len(svc.point_set(pts).X)
    if not st.toggle("Isomap of every point", key="man.isomap_all", bind="query-params",
                     help=f"Isomap of all {n:,} points: its paths from 100 landmarks spread over the data, not "
                          f"between every pair (which would hold {n * n * 8 / 2**30:,.1f} GB here): 100,000 points of the roll take about 6 s. "
                          f"Neighbours: {svc.ISOMAP_K}."):
        return
    out = svc.isomap_all(pts)
    if out.error is not None:
        st.warning(f"Isomap of all {n:,} points: {md_escape(out.error)}")
        return
    pset = svc.point_set(pts)
    charts.map_grid(tools, [("man.map.isomap_all", f"Isomap, all {n:,} points · {out.seconds:.1f} s · "
                             f"T={out.trustworthiness:.3f} (k={out.k})", out.coords)],
                    values=pset.colour, categorical=pset.categorical, label=pset.colour_label, cols=1,
                    height=chart_height(420))
    st.caption("Its trustworthiness is measured on every point, so it does not compare with the sample's figures "
               "above: on more points the same k spans a smaller patch of the manifold.")


def method_comparison(pts) -> None:
    """The comparison's maps (a fragment: its button reruns only this panel)."""
    pset = svc.point_set(pts)
    ids = svc.heavy_ids(pts)
    job = svc.comparison_run(pts)
    done, failed = svc.computed_maps(pts), svc.failed_maps(pts)
    missing = len(svc.METHOD_TITLES) - len(done)  # a run computes these (a method that failed is tried again)
    label = "Run every method" if not done else f"Run the {missing} method{'s' if missing > 1 else ''} not yet computed"
    if job is None and missing and st.button(label, key="man.run_all", type="primary"):
        svc.start_comparison(pts)
        st.rerun(scope="app")  # the page draws the run's progress and t-SNE's layout on a timer
    for m, message in failed.items():
        st.warning(f"{svc.METHOD_TITLES[m]}: {md_escape(message)}")
    # the method on one line, its figures on the next: every panel's header is two lines, so the maps line up
    panels = [(f"man.map.compare.{m}", f"{svc.METHOD_TITLES[m]}\n{r['seconds']:.1f} s · T={r['trustworthiness']:.3f}",
               r["coords"]) for m, r in done.items()]
    if not panels:
        st.caption("No method has been run on these points yet.")
        return
    tools = MapTools("man", pts, ids, panels[0][2], name="compare", linked=True)
    charts.map_grid(tools, panels, values=pset.colour, categorical=pset.categorical, label=pset.colour_label,
                    ids=None if len(ids) == len(pset.X) else ids)
    st.caption("A selection made in one panel is ringed in all of them, on the LLE map and in the 3-D view.")
    if job is None:
        st.dataframe(svc.comparison_table(pts), hide_index=True, key="man.compare_table")


@st.fragment
def quality(pts, B: int, reg: float) -> None:
    """The recall layer: its controls rerun only this panel."""
    choices = svc.quality_choices()
    name = st.selectbox("Map", list(choices), key="man.quality_map",
                        help="The page's LLE, or any method of the comparison (run it here or there).",
                        bind="query-params")
    which = choices[name]
    kq = ranged_slider("k", 3, svc.largest_quality_k(pts), 10, key="man.quality_k",
                       why="the data have too few points for more neighbours", bind="query-params")
    shown = svc.quality(pts, which, kq, B, reg)
    if shown is None:
        st.caption(f"{name} has not been computed for these points and this seed yet.")
        if st.button(f"Compute {name}", key="man.quality_run", type="primary"):
            bar = st.progress(0.0, text=f"running {name} ...")
            try:
                svc.run_method(pts, which, progress=lambda f, text: bar.progress(min(max(f, 0.0), 1.0), text=text))
            except ValueError as err:
                st.warning(f"{name}: {md_escape(err)}")
                return
            finally:
                bar.empty()
            shown = svc.quality(pts, which, kq, B, reg)
        if shown is None:
            return
    title = f"LLE (B={B})" if which == svc.CURRENT else name
    pset = svc.point_set(pts)
    ids = shown["ids"]
    labels = None if pset.colour is None else pset.colour[ids]
    tools = MapTools("man", pts, ids, shown["coords"], space=shown["X"], k=kq, name="quality",
                     linked=True, labels=labels, label_name=pset.colour_label)
    tools.draw(st, "man.map.quality", color=charts.recall_colour(shown["recall"], kq),
               hover={f"recall@{kq}": shown["recall"],  # the colour's own numbers: sent once, written to 3 digits
                      **charts.hover(pset.colour, pset.colour_label, ids)},
               title=f"{title}: share of each point's {kq} true neighbours kept in the map", height=520)
    if len(ids) < len(pset.X):
        st.caption(f"{name} was computed on the comparison's sample of {len(ids):,} of the {len(pset.X):,} points.")
    st.caption(f"Mean recall@{kq}: {shown['mean']:.3f}; {shown['below_half']:.1%} of points keep fewer than half. "
               "Red marks where the map cannot be trusted: tears, folds and crowded centres.")
    tools.neighbour_lists(forget=False)
    tools.compare(title, what="method (the Map box) or B")


with tabs[2]:
    if tabs[2].open:
        st.markdown("Every method in the lab's map interface on the same points, each titled with its fit time and "
                    f"trustworthiness (k={svc.QUALITY_K}). Computed once per data set and seed, and kept for every "
                    "visitor; t-SNE and UMAP take seconds, and t-SNE is drawn while it optimises.")
        heavy = svc.heavy_rows(pts)
        if heavy is not None:
            st.info(f"Hessian LLE, LTSA and t-SNE grow fast with the number of points: the comparison puts every "
                    f"method on the same random sample of {len(heavy):,} of the {n_points:,} points (seed {seed}), "
                    "so that their figures compare.")
        if svc.comparison_run(pts) is not None:
            finished = len(svc.computed_maps(pts)) + len(svc.failed_maps(pts))
            st.fragment(comparison_live, run_every=FRAME_S)(pts, finished)
        st.fragment(method_comparison)(pts)
        if heavy is not None:
            whole_isomap(pts)

with tabs[3]:
    if tabs[3].open:
        quality(pts, B, reg)

with tabs[4]:
    if tabs[4].open:
        st.download_button("LLE coordinates (.csv)", svc.coordinates_csv(pts, B, reg, source),
                           "lle_coordinates.csv", "text/csv", key="man.dl")
        st.caption("The first line holds the method, its parameters and the seed as JSON.")

share.panel("manifolds", reproduce.lazy(lambda: svc.recipe(pts, B, reg)), uploaded=source == "upload",
            what="the LLE map and its bottom eigenvalues")

# The map is sent last: the browser then draws the page's other charts (the weights and eigenvalue bars redraw at
# every B) before it, and the map glides without them stopping it halfway. Its trustworthiness (seconds at
# 20,000 points) is measured once it is on its way.
@st.fragment(key="man.map")
def lle_map() -> None:
    tools.refresh()
    tools.draw(st, "man.map.lle", color=charts.colour(data.colour, data.categorical, data.colour_label),
               hover=charts.hover(data.colour, data.colour_label), title=f"LLE in 2-D (B={B})",
               height=chart_height(440), edges=[charts.graph(svc.graph_pairs(pts, B), B)] if show_graph else ())


with map_slot:
    lle_map()
trust_slot.metric(f"trustworthiness (k={svc.quality_k(pts)})", f"{svc.trust(pts, B, reg):.4f}")
if tour.current("man") is not None:
    tour.tell("man", **svc.tour_facts(pts, B, reg))
svc.solve_ahead_of(pts, B, reg)  # B ± 1, ± 2, the side B moved to first
