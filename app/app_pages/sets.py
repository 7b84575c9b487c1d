import streamlit as st

from app.services import data as data_service
from app.services import reproduce
from app.services import sets as svc
from app.ui import comparison, lines, plots, sets_charts, share, tour
from app.ui.controls import ranged_number, ranged_slider
from app.ui.layout import instrument, lazy_tabs, page_header, theory
from app.ui.selection import MapTools
from app.ui.sidebar import data_source
from app.ui.text import md_escape

TABS = ["Buckets", "A set's sketch", "Additivity", "K and N", "Benchmark", "Download"]
VECTOR_LABELS = {"data": "the data's own", "word2vec": "Word2Vec on the sets"}

page_header("Sets: EMDE sketches",
            "EMDE cuts the item space with **K** random hyperplanes, **N** times over, and sketches a set as the "
            "histogram of its items over the buckets: one fixed-width vector that adds up as sets do.", "sets")


def intro() -> None:
    st.markdown(
        """
**EMDE** (Efficient Manifold Density Estimator) turns a *set* of vectors (a user's items, a
document's words, an image's ink) into one fixed-width vector. It cuts the item space with
**K** random hyperplanes, which carve it into up to 2<sup>K</sup> regions (*buckets*), and
does this **N** times independently. Each item is coded by the bucket it falls in, in every
partitioning; a set is the sum of its items' codes. The result, the *sketch*, is a histogram
of the set over coarse, overlapping regions: an estimate of where in the space the set is dense.
""",
        unsafe_allow_html=True,
    )
    st.latex(
        r"c_p(x) = \sum_{k=0}^{K-1} 2^k\,[\,v_{pk}\cdot x > b_{pk}\,],\qquad "
        r"s(A) = \sum_{x \in A} w_x\, \bigoplus_{p=1}^{N} e_{c_p(x)} \in \mathbb{R}^{N\cdot 2^K}"
    )
    st.caption(
        "v: random Gaussian directions; b: offsets that put each plane through a random item; "
    "e_c: the one-hot vector of bucket c; ⊕: concatenation over the N partitionings. "
    "Because s is a sum over a set's items, pooling two sets as a multiset (every item of both counted) "
    "sums their sketches: s(A ⊎ B) = s(A) + s(B). For a plain union, where a shared item counts once, "
        "that holds only when A and B share no item."
    )


# ------------------------------------------------------------------ controls
source, _ = data_source("item_sets", "sets", default="hotdog")
ref = data_service.ref("item_sets", source)
main, knobs = instrument("sets")
sb = knobs
K = sb.slider("K: hyperplanes per partitioning", 1, svc.MAX_K, 4, key="sets.K", bind="query-params",
              help="More planes, smaller buckets: finer detail, but fewer items share a bucket. Above "
              f"K={svc.FIXED_MAX_K} only the occupied buckets are kept (the post's K=30, N=1).")
N = sb.select_slider("N: partitionings", svc.N_STEPS, 16, key="sets.N", bind="query-params",
                     help="More independent cuts: a smoother, more reliable estimate; width grows linearly. "
                     "Large N on many items waits for a Compute button.")
drop = sb.toggle("Only occupied buckets (variable width)", key="sets.drop", bind="query-params",
                 help="Keep only the buckets some item falls in, as the post's CountVectorizer did, instead of all "
                 f"N·2^K. Always on above K={svc.FIXED_MAX_K}.")
if K > svc.FIXED_MAX_K and not drop:
    sb.caption(f"K={K} > {svc.FIXED_MAX_K}: only the occupied buckets are kept (2^{K} columns per partitioning "
               "would be almost all empty).")
sb = knobs.expander("More settings", icon=":material/tune:")
vectors = sb.radio("Item vectors", svc.VECTORS, key="sets.vectors", horizontal=True, bind="query-params",
                   format_func=lambda v: VECTOR_LABELS.get(v, v),
                   help="The data's own vectors (PMI-SVD for the newsgroup posts), or Word2Vec trained on the "
                   "sets read as sentences, as the post did.")
offsets = sb.radio("Plane offsets", ["data", "quantile"], key="sets.offsets", horizontal=True,
                   help="data: each plane passes through a random item. quantile: at a random 5-95% "
                   "quantile of the items' projections.", bind="query-params")
weighting = sb.selectbox("Weighting", ["counts", "binary", "tfidf"], key="sets.weighting",
                         help="counts: repeats (and given weights) add up; binary: presence only; "
                         "tfidf: counts times how rare the item is across sets.", bind="query-params")
norm = sb.selectbox("Normalisation", ["none", "l1", "l2", "max"], index=0, key="sets.norm",
                    help="Scale each sketch so sets of different sizes compare.", bind="query-params")
scope = sb.radio("Normalise", ["row", "partition"], key="sets.scope", horizontal=True,
                 help="The whole sketch at once, or each partitioning's block on its own.", bind="query-params")
setting = svc.setting(K, N, offsets, weighting, norm, scope, drop, vectors)



def controls_text() -> None:
    st.markdown("**What the controls change, and how the pictures can mislead**")
    st.markdown(
        """
* **K** sets the bucket size. K=1 splits the space in two; each extra plane can halve every
  bucket. With many planes and few items most buckets are empty and the sketch becomes a
  one-hot code of the items, which no longer uses the geometry.
* **N** repeats the cut. One partitioning puts dissimilar items together by bad luck; over
  many partitionings near items still share most buckets while far items rarely do.
* **Only occupied buckets** keeps a column only for a bucket some item falls in, as the post's
  CountVectorizer did. The sketch is the same numbers without its all-zero columns, so the
  width varies with the data: at most N times the number of items, whatever K is. That is what
  makes the post's K=30, N=1 possible: 2^30 (about a billion) buckets, of which at most one per
  item is ever used. Above K=12 it is always on; the heatmap then lists each partitioning's
  occupied buckets in code order, blank past its last one.
* **Item vectors.** The data's own, or Word2Vec (gensim CBOW, 50 dimensions) trained on the
  sets read as sentences, as the post trained it on the documents: items that share sets get
  near vectors. Items in no set get no training and sit at the mean vector.
* **Offsets** decide where cuts fall; both choices keep every plane inside the data.
* **Weighting and normalisation** act on the set's counts before and after summing.
* *Misleading pictures.* For items with more than two dimensions the map is a PCA
  projection: the dashed lines are where each hyperplane cuts the PCA plane, and an item
  that sits off that plane can lie on the other side of the real hyperplane, so colours may
  cross a line. The density view shows one draw of random planes; change the seed to see
  how much of the picture is luck. Additivity holds for raw sketches; normalised ones are
  rescaled sums.
"""
    )

refused = svc.too_large(ref, setting)
waiting = None if refused else svc.pending(ref, setting)
if refused:
    st.error(refused)
elif waiting:
    st.info(f"This setting needs {waiting}, which is too slow to follow the sliders: press Compute. The result is "
            "kept for every visitor, so the next one with these settings sees it at once.")
    if st.button("Compute", key="sets.compute", type="primary"):
        with st.spinner(f"Computing {waiting} ..."):
            svc.compute(ref, setting)
        st.rerun()
ready = not refused and not waiting

if ready:
    info = svc.summary(ref, setting)
    cols = [c for _ in range(3) for c in knobs.columns(2)]
    cols[0].metric("items", f"{info['items']:,}")
    cols[1].metric("sets", f"{info['sets']:,}")
    cols[2].metric("sketch width N·2^K", svc.big_number(info["width"]),
                   help=f"Columns of the fixed-width sketch: N partitionings of 2^K buckets ({info['width']:,}).")
    cols[3].metric("occupied buckets", f"{info['occupied']:,}",
                   help="Buckets holding at least one item (the post's variable width).")
    cols[4].metric("columns kept", f"{info['columns']:,}",
                   help="The sketch's width as computed: all N·2^K, or only the occupied buckets.")
    cols[5].metric("fit + sketch", f"{info['milliseconds']:.0f} ms",
                   help="Time to draw the hyperplanes and sketch every set, measured when this setting was first "
                   "computed.")
    if info["description"]:
        knobs.caption(md_escape(info["description"]))
    if vectors == "word2vec":
        knobs.caption(f"Item vectors: Word2Vec, {info['dimensions']}-D, trained on the {info['sets']:,} sets as sentences"
                   + (f"; {info['unused']:,} items are in no set and sit at the mean vector." if info["unused"] else "."))

tabs = lazy_tabs(TABS, key="sets.tab", where=main)
with main, theory():
    intro()
    controls_text()
n_sets = info["sets"] if ready else 0
one_set_only = "the data hold one set"


# ------------------------------------------------------------------ 1. buckets
def item_tools(ref, view, name: str, where=None, vectors: str = "data") -> MapTools:
    """Selection on an item map (the bucket map, the density map): both share the page's selection."""
    return MapTools("sets", ref, view["names"], view["coords"], space=svc.item_space(ref, vectors), noun="item",
                    id_name="item", name=name, where=where)


def item_panel(ref, tools: MapTools, extra: dict) -> None:
    def sets_holding(rows) -> None:
        found = svc.selection_sets(ref, tuple(rows.tolist()))
        st.caption(f"{found['holding']:,} of the {found['total']:,} sets hold a selected item; the sets where "
                   "the selection carries the largest share of the weight:")
        st.dataframe(found["sets"], hide_index=True, key=f"sets.{tools.name}.selected_sets", height=240)

    tools.panel(sets_holding, file_name="selected_items.csv", extra=extra)


@st.fragment
def buckets_section(ref, setting) -> None:
    part = ranged_slider("Partitioning to draw", 0, setting.N - 1, 0, key="sets.partition", why="N is 1",
                         bind="query-params")
    view = svc.item_map(ref, setting.vectors)
    drawn = svc.buckets(ref, setting.geometry(), part)
    tools = item_tools(ref, view, "buckets", vectors=setting.vectors)
    tools.draw(st, "sets.map.buckets", **sets_charts.bucket_map(
        drawn["codes"], view["names"], drawn["lines"], K=setting.K, partition=part, occupied=drawn["occupied"],
        projected=view["projected"]))
    if view["projected"]:
        st.caption(f"The items have {view['dimensions']} dimensions: this is their PCA view; dashed "
                   "lines are where the hyperplanes cut the view's plane.")
    item_panel(ref, tools, {"bucket": drawn["codes"]})


with tabs[0]:
    if tabs[0].open and ready:
        buckets_section(ref, setting)


# ------------------------------------------------------------------ 2. one set
@st.fragment
def set_section(ref, setting, n_sets: int) -> None:
    i = ranged_number("Set", 0, n_sets - 1, 0, key="sets.set", why=one_set_only, help="Which set to look at.",
                      bind="query-params")
    shown = svc.one_set(ref, setting, i)
    view = svc.item_map(ref, setting.vectors)
    st.caption(md_escape(shown["title"]))
    left, right = st.columns(2)
    plots.show(left, sets_charts.sketch_heatmap(shown["grid"], shown["codes"], partitions=setting.N),
               key="sets.chart.sketch")
    tools = item_tools(ref, view, "density", where=right, vectors=setting.vectors)
    tools.draw(right, "sets.map.density", **sets_charts.density_map(shown["density"], shown["members"],
                                                                     view["names"]))
    st.caption("Density: the geometric mean over partitionings of the share of the set's weight in the "
               "bucket each item falls into. Items the set never contained can score high: that is the "
               "point, the sketch generalises to their neighbourhood.")
    item_panel(ref, tools, {"density": shown["density"]})


with tabs[1]:
    if tabs[1].open and ready:
        set_section(ref, setting, n_sets)


# ------------------------------------------------------------------ 3. additivity
@st.fragment
def additivity_section(ref, setting, n_sets: int) -> None:
    c1, c2 = st.columns(2)
    a = ranged_number("Set A", 0, n_sets - 1, 0, key="sets.add_a", where=c1, why=one_set_only, bind="query-params")
    b = ranged_number("Set B", 0, n_sets - 1, min(1, n_sets - 1), key="sets.add_b", where=c2, why=one_set_only,
                      bind="query-params")
    check = svc.additivity(ref, setting.geometry(), a, b)
    st.metric("max |s(A+B) − (s(A) + s(B))|", f"{check['max_difference']:g}")
    plots.show(st, sets_charts.additivity_heatmap(check["table"], check["touched"]), key="sets.chart.additivity")
    st.caption("Raw count sketches (no weighting, no normalisation): the bottom row is the sum of the two "
               "above, bucket by bucket, so a model can sketch a growing set without revisiting its items.")


with tabs[2]:
    if tabs[2].open and ready:
        additivity_section(ref, setting, n_sets)

# ------------------------------------------------------------------ 4. K and N
with tabs[3]:
    if tabs[3].open and ready:
        stats = svc.bucket_stats(ref, N, offsets, vectors)
        sharing, empty = sets_charts.bucket_sharing(stats, K)
        c1, c2 = st.columns(2)
        lines.draw(c1, **sharing, key="sets.chart.share")
        lines.draw(c2, **empty, key="sets.chart.empty")
        st.dataframe(stats, hide_index=True, key="sets.stats", column_config=sets_charts.STATS_COLUMNS)
        st.caption(f"Measured with N={svc.stats_partitions(N)} partitionings"
                   + (f" (the first {svc.STATS_PARTITIONS} of N={N}: these are means over partitionings, more only "
                      "adds digits)" if N > svc.STATS_PARTITIONS else "")
                   + " and the current offsets, item vectors and seed. Good sketches keep "
                   "near pairs together much more often than random pairs; when the two curves meet, the "
                   "buckets are too large to tell regions apart, when near pairs stop sharing, too small.")
        st.markdown(
            f"**The width at K={K}, N={N}.** The fixed-width sketch has N·2^K = {info['width']:,} columns; "
            f"{info['occupied']:,} of those buckets hold an item ({svc.share_text(info['occupied'], info['width'])}). "
            f"A sketch of occupied buckets only (the post's variable width) keeps those {info['occupied']:,}: never "
            f"more than N × items = {N * info['items']:,}, however large K is, and fewer when items share buckets. "
            "It is the same sketch without its all-zero columns, so a linear model scores it the same; it only "
            "changes with the data, since another item set occupies other buckets.")


# ------------------------------------------------------------------ 5. benchmark
def outside_sketches(ref, setting):
    """Sketches made by the command line, uploaded to be scored as these sets' features; None without an upload."""
    with st.expander("Score sketches made outside the lab (python -m embedcore sketch)"):
        st.markdown("1. Download these sets and their item vectors in the command's input format:")
        files = svc.command_input(ref, setting)
        c1, c2 = st.columns(2)
        c1.download_button("Item vectors (items.npy)", files.items, "items.npy", "application/octet-stream",
                           key="sets.dl_items", on_click="ignore")
        c2.download_button("Sets (sets.csv)", files.sets, "sets.csv", "text/csv", key="sets.dl_sets",
                           on_click="ignore")
        st.markdown("2. Sketch them (here, or on a Dask cluster with `--scheduler`) and zip the output directory:")
        st.code(files.command, language=None, wrap_lines=True)  # plain and wrapped: 4.5:1 text, no scroll box
        if files.note:
            st.caption(files.note)
        st.markdown("3. Upload the zip, or `manifest.json` with its shards, or `.npz` shards:")
        upload = svc.sketch_upload(st.file_uploader(
            "Sketch output", accept_multiple_files=True, key="sets.sketch_upload",
            help="The sketch step's output directory zipped (python -m zipfile -c sketches.zip sketches), "
                 "manifest.json with its part-*.npz or part-*.parquet shards, or .npz shards alone. "
                 "Rows must be these sets, in order."))
        if upload is None:
            st.caption("The command uses the sidebar's K, N, offsets and seed: its sketches are the in-app EMDE's, "
                       "hyperplane for hyperplane, so when that K and N are among the benchmark's the two rows agree.")
            return None
        got = svc.uploaded_sketches(ref, upload)
        if got["error"]:
            st.error(md_escape(got["error"]))
            return None
        made = f", made with {got['made']}" if got["made"] else ""
        st.success(f"Read {md_escape(got['form'])}: {got['rows']:,} sets x {got['columns']:,} columns, "
                   f"{got['nonzeros']:,} non-zeros{made}. They are scored as \"{got['label']}\".")
        for note in got["notes"]:
            st.caption(md_escape(note))
        return upload


@st.fragment
def benchmark_section(ref, setting) -> None:
    classes = svc.classes(ref)
    if classes["labels"] < 2:
        st.info("This data set has no labels, so there is nothing to classify. Pick a labelled data set "
                "(hot dog, digits as ink sets) or upload sets with a label column.")
        return
    if classes["smallest"] < 5:
        st.warning(f"The smallest class has {classes['smallest']} sets; 5-fold cross-validation needs at least 5 "
                   "per class.")
    st.markdown(
        "The post's benchmark under the lab's protocol: logistic regression on EMDE sketches at the post's grid "
        f"points K, N = {', '.join(f'({k}, {n})' for k, n in svc.GRID)} (L2-normalised, only occupied buckets "
        "kept), against the bag of items (one-hot counts, L2-normalised) and the mean item vector. EMDE and the "
        "mean vector are built on two kinds of item vectors: the data's own (for the posts, PMI-SVD trained again "
        "on the training posts) and Word2Vec trained on the training sets; item vectors are learned inside each "
        "training fold, never from the sets scored. Every row gets the same classifier, the same 5 stratified "
        "folds and the same search over the regularisation C in "
        f"{{{', '.join(f'{c:g}' for c in svc.C_GRID)}}}, chosen on a quarter of the training part and widened "
        "past the grid's edge when the edge wins. Rows are ranked by held-out accuracy; a row whose difference "
        "from the best has an interval holding 0 is marked tied with the best and shares rank 1. Sketches made by "
        "the command line can be scored beside them, on the same folds. A run takes about a minute on the hot dog "
        "sets and the posts, longer on the digits (1,797 sets, ten classes), and is kept for every visitor.")
    st.caption("How it can mislead: with 200-300 sets one set is 0.3-0.5 points of accuracy, and the intervals "
               "(low, high) are wide; rows tied with the best are not ranked among themselves. One draw of "
               "hyperplanes per row: another seed moves EMDE's rows by about a point. Uploaded sketches are "
               "scored as they are: made from vectors trained on every set, they saw the scored sets.")
    # the command line's files and command follow the sidebar's setting: offered once that setting is computed
    upload = outside_sketches(ref, setting) if ready else None
    if st.button("Run the benchmark", key="sets.run_bench", type="primary", disabled=classes["smallest"] < 5):
        bar = st.progress(0.0, text="starting")
        svc.run_benchmark(ref, lambda f, name: bar.progress(f, text=f"done: {name}"), upload)
        bar.empty()
    result = svc.benchmark(ref, upload)
    if result is not None:
        if upload is not None and not svc.upload_scored(ref, upload):
            st.caption("Press Run the benchmark to score the uploaded sketches beside these rows.")
        st.caption(f"Protocol: {svc.benchmark_protocol(ref)}")
        st.dataframe(result, hide_index=True, key="sets.bench_table")
        plots.show(st, sets_charts.benchmark_bars(result), key="sets.chart.bench")
        edge = int(result["C on the grid's edge"].sum())
        st.caption(f"{edge} of {len(result)} rows chose a C still on the edge of the widened grid." if edge else
                   "No row's chosen C is on the edge of its grid: where the edge won, the grid was widened until "
                   "a C inside it won.")
    advice_section(ref, classes)


def advice_section(ref, classes) -> None:
    """The EMDE authors' advice, measured on these sets: sketch width at a fixed budget, and max against L2."""
    st.subheader("The authors' advice, measured")
    kind = svc.kind_label(svc.vector_kinds(ref)[0])
    st.markdown(
        "The EMDE authors advise a sketch width of about 128 buckets per partitioning (K = 7) and spending the rest "
        f"of the budget on more partitionings N, and normalising sketches by their maximum rather than L2. Both "
        f"are measured here on these sets under the same protocol, on the data's own item vectors ({kind}): "
        "**width**, EMDE "
        f"at a fixed budget of N·2^K = {svc.WIDTH_BUDGET:,} buckets for K = "
        f"{', '.join(str(k) for k in svc.WIDTH_KS)}, each against K = 7; **normalisation**, L2 against max, "
        "of the whole sketch or of each partitioning's block on its own, at K = 7, N = "
        f"{svc.WIDTH_BUDGET // 128}.")
    c1, c2 = st.columns(2)
    for col, what, label in ((c1, "width", "Measure the width advice"), (c2, "norm", "Measure max against L2")):
        if col.button(label, key=f"sets.run_{what}", disabled=classes["smallest"] < 5):
            bar = st.progress(0.0, text="starting")
            svc.run_advice(ref, what, lambda f, t: bar.progress(min(f, 1.0), text=t))
            bar.empty()
    for what, title in (("width", "Sketch width at a fixed budget"), ("norm", "Max against L2 normalisation")):
        found = svc.advice(ref, what)
        if found is not None:
            st.markdown(f"**{title}**")
            comparison.show(st, found, key=f"sets.{what}", score="accuracy", what=title)


with tabs[4]:
    if tabs[4].open:  # the benchmark does not depend on the sidebar's setting: open while it waits, too
        benchmark_section(ref, setting)

# ------------------------------------------------------------------ 6. downloads
with tabs[5]:
    if tabs[5].open and ready:
        files = svc.sketch_files(ref, setting, norm)
        st.download_button("Sketches (.npz, sparse CSR + parameters)", files.npz, "emde_sketches.npz",
                           "application/octet-stream", key="sets.dl_npz", on_click="ignore")
        st.download_button("Sketches (.csv, non-zeros)", files.csv, "emde_sketches.csv", "text/csv",
                           key="sets.dl_csv", on_click="ignore")
        st.caption(f"{files.sets:,} sets x {files.columns:,} columns, {files.nonzeros:,} non-zeros. Load the .npz "
                   "with scipy.sparse.csr_array((f['data'], f['indices'], f['indptr']), shape=f['shape']).")

if ready and tour.current("sets") is not None:  # what the tour's sentence says, measured on the setting on show
    pair = [min(max(int(st.session_state.get(k, d)), 0), max(n_sets - 1, 0))
            for k, d in (("sets.add_a", 0), ("sets.add_b", min(1, n_sets - 1)))]
    tour.tell("sets", **svc.tour_facts(ref, setting, *pair))

share.panel("sets", reproduce.lazy(lambda: svc.recipe(ref, setting)) if ready else None,
            uploaded=source == "upload",
            what="the sets' sketches (row, column, value) and every item's bucket codes" if ready else
            "Nothing to reproduce until this setting's sketches are computed.")
