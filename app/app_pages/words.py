import math

import streamlit as st

from app.services import data as data_service
from app.services import labels as lsvc
from app.services import reproduce
from app.services import word_windows as wws
from app.services import words as svc
from app.ui import charts, comparison, plots, runs, share, tour
from app.ui import labels_charts as lcharts
from app.ui import map as lab_map
from app.ui import words_charts as wcharts
from app.ui.controls import ranged_slider
from app.ui.layout import instrument, lazy_tabs, main_chart, page_header, theory
from app.ui.selection import MapTools
from app.ui.sidebar import data_source
from app.ui.text import count, equations, html_escape, md_escape

page_header("Words: vectors from PMI and SVD",
            "Count which words occur near which, turn the counts into pointwise mutual information and factorise "
            "them with an SVD: the rows are word vectors, and near words share contexts.", "words")
main, knobs = instrument("words")
main_chart("words.map")  # the word map is the page's picture
near_box = knobs.container(border=True, key="words_near_box")  # the nearest words, beside the map
map_slot = main.container()  # the word map and its selection tools
tabs_slot = main.container()  # the tabs under the map; the theory under them
with main:
    th = theory(key="words.theory")
if th.open:  # written only while open: every Window or Dimensions change redraws the page
    th.markdown(
        """
Word vectors need not come from a neural network. Count how often each word appears near
each other word, turn the counts into **pointwise mutual information** (how much more
often than chance), keep the positive part, and factorise the matrix with a truncated
**SVD**: the rows are word vectors. With the right knobs (context smoothing, a shift,
eigenvalue weighting) Levy, Goldberg and Dagan found them a match for Word2Vec. Whether one
beats the other on a corpus is measured in the Evaluation tab, each tuned alike and scored
on held-out word pairs with an interval: on the Lee corpus none of the differences is
larger than its noise.
"""
    )
    equations(th, r"\mathrm{PMI}(w,c) = \log\frac{\#(w,c)\,N}{\#(w)\,N_\alpha(c)},\quad "
              r"\mathrm{SPPMI}_k = \max(\mathrm{PMI} - \log k,\ 0)",
              r"\mathrm{SPPMI} \approx U_d \Sigma_d V_d^\top,\quad W = U_d\,\Sigma_d^{\,p}")
    th.caption("N_α(c) smooths the context counts: N·#(c)^α / Σ#(c')^α with α = 0.75 lifts rare contexts. "
               "A document's vector (Documents tab) is the tf-idf weighted sum of its words' vectors, scaled to "
               "unit length: the row of M·diag(idf)·W divided by its norm, M the document-term counts.")

seed = data_service.seed()
sb = knobs
source, corpus = data_source("documents", "words", default="lee")
ref = data_service.ref("documents", source)
context = sb.radio("Context", ["window", "document"], key="words.context", horizontal=True,
                   help="window: words within a few positions. document: two words co-occur once for every "
                   "document that holds both (M^T M of the binary document-term matrix M); this is a word-word "
                   "matrix, not the PMI of the word-document matrix itself.", bind="query-params")
window = sb.slider("Window", 1, 10, 5, key="words.window", disabled=context == "document",
                   help="Words on each side that count as context.", bind="query-params")
sb = knobs.expander("More settings", icon=":material/tune:")
weighted = sb.checkbox("Weight by distance (1/d)", key="words.weighted", disabled=context == "document",
                       help="A pair d positions apart counts 1/d instead of 1, as GloVe and word2vec's dynamic window do.",
                       bind="query-params")
min_count = sb.slider("Min count", 1, 20, 3, key="words.min_count", help="Rarer words are left out.",
                      bind="query-params")
variant = sb.radio("PMI variant", ["PPMI", "PMI"], key="words.variant", horizontal=True,
                   help="PPMI clips negative values to 0; plain PMI keeps them (unobserved pairs stay 0).",
                   bind="query-params")
shift = sb.select_slider("Shift k (log k subtracted)", [1, 2, 5, 10, 15], value=1, key="words.shift",
                         bind="query-params")
alpha = sb.slider("Context smoothing α", 0.5, 1.0, 0.75, 0.05, key="words.alpha", bind="query-params")
n_vocab = svc.vocabulary_size(ref, min_count)
dims_range = (max(1, min(10, n_vocab - 1)), max(1, min(300, n_vocab - 1)))
dims = ranged_slider("Dimensions", *dims_range, 100, key="words.dims", where=sb,
                     step=10, bind="query-params", why=f"the vocabulary has {n_vocab} words at this min count")
eig = sb.slider("Eigenvalue weight p", 0.0, 1.0, 0.5, 0.25, key="words.eig",
                help="Vectors are U Σ^p: 0 treats every dimension alike, 1 is the plain SVD projection.",
                bind="query-params")
map_knobs = knobs.expander("Map settings", icon=":material/scatter_plot:")

if th.open:
    th.markdown(
        """
* **Window**: small windows find words that can replace each other (syntax, synonyms), large
  windows find words of the same topic. **Document** context is the largest window of all.
* **Min count** trims rare words, whose counts are noise. **Shift** discards weak
  associations; large shifts on a small corpus leave little. **α < 1** stops rare contexts
  from getting huge PMI. **Dimensions** and **p** trade detail for noise.
* *Misleading pictures.* A t-SNE or UMAP map keeps neighbours, not distances: cluster sizes
  and the gaps between clusters mean little, and another seed or perplexity moves whole
  groups. Similarity is not meaning: "good" and "bad" are neighbours because they share
  contexts. Word-similarity scores here cover few pairs when the corpus is small (see OOV).
"""
    )

params = svc.vector_params(window=window, context=context, weighted=weighted, min_count=min_count, alpha=alpha,
                           shift=shift, positive=variant == "PPMI", n_components=dims, eig_weight=eig,
                           random_state=seed)
try:
    with st.spinner("Counting and factorising ..."):
        facts = svc.summary(ref, params)
except ValueError as err:
    st.error(md_escape(err))
    st.stop()

# one wrapping row (fewer elements than a grid of columns), each figure as wide as its label or value: at a fixed
# 100 px "non-zero PMI entries" took two lines, and in presentation mode "documents" and "197,121" did too
figures = knobs.container(horizontal=True, gap="small")
for name in ("documents", "tokens", "vocabulary"):
    figures.metric(name, count(facts[name]), width="content", help=f"{facts[name]:,}")
figures.metric("non-zero PMI entries", count(facts["nnz"]), width="content", help=f"{facts['nnz']:,}")
figures.metric("fit time", f"{facts['fit seconds']:.2f} s", width="content",
               help="What counting, the PMI and its SVD took on this server when they were computed: a step of "
               "Window or Dimensions is fitted in the background while the one before is on screen, at a low "
               "priority, so its time can be longer than a fit the page waited for.")

vocab_words = svc.vocabulary(ref, params)
start = svc.default_words(ref, params)
word = near_box.selectbox("Nearest words to", vocab_words, index=vocab_words.index(start["query"]),
                          key="words.query", bind="query-params",
                          help="Type to search the vocabulary. The Nearest words tab lists its 20 nearest.")
near, near_ms = svc.nearest(ref, params, word)
near_box.dataframe(near.head(8)[["word", "cosine"]], hide_index=True, key="words.near_box", height=318,
                   column_config={"cosine": st.column_config.NumberColumn(format="%.3f")})

TABS = ["Nearest words", "Spectrum", "Evaluation", "Documents", "Label embedding", "Download",
        "From windows to vectors"]
tabs = lazy_tabs(TABS, key="words.tab", where=tabs_slot)

def trained_labels_section(seed: int) -> None:
    """The label-embedding experiment: a model trained on the label vectors against one sigmoid per label."""
    st.divider()
    st.subheader("Training on label vectors, against one sigmoid per label")
    st.markdown(
        "The label vectors can be a model's target. The usual multilabel model has **m outputs**, one sigmoid "
        "per label, trained with binary cross-entropy over every label. The label-embedding model has **k "
        "linear outputs** trained with a **cosine loss** to point where the example's label vector t "
        "(the unit sum of its labels' vectors) points; it predicts by ranking the labels by the cosine between "
        "its output and each label's vector. The claim to test: it is a bit more robust to label noise and "
        "ranks the true labels higher (precision at top k). Both models here are linear in the same features "
        "and fitted by L-BFGS, so the comparison is about the output layer and its loss.")
    st.latex(r"L_{\cos} = \frac1n\sum_i \Bigl(1 - \cos\bigl(c + (x_i-\bar x)W,\ t_i\bigr)\Bigr)"
             r" + \tfrac{\alpha}{2}\lVert W\rVert^2,\quad t_i = \frac{\sum_{j \in Y_i} e_j}"
             r"{\lVert\sum_{j \in Y_i} e_j\rVert}")
    st.latex(r"L_{\mathrm{BCE}} = \frac1n\sum_i\sum_{j=1}^{m}\Bigl(\log(1+e^{s_{ij}}) - y_{ij}\,s_{ij}\Bigr)"
             r" + \tfrac{\alpha}{2}\lVert W\rVert^2,\quad s_i = x_i W + b,\qquad "
             r"P@k = \frac{|\mathrm{top}_k \cap Y_i|}{k}")
    c1, c2, c3, c4 = st.columns([3, 2, 2, 2])
    name = c1.radio("Data", list(lsvc.TASKS), format_func=lambda v: lsvc.TASKS.get(v, v), key="words.lm_data",
                    bind="query-params")
    facts = lsvc.facts(name, seed)
    k = c2.slider("Label vector dimensions k", 2, facts["labels"], min(8, facts["labels"]), key="words.lm_k",
                  bind="query-params", help="Outputs of the label-embedding model (the sigmoid model has one per label).")
    share = c3.slider("Training labels corrupted", 0, 60, 0, 10, key="words.lm_noise", format="%d%%",
                      bind="query-params", help="This share of the training labels is swapped for labels the "
                                                "example does not have; test labels stay clean.") / 100
    top_k = c4.slider("Top k scored", 1, 5, 3, key="words.lm_topk", bind="query-params",
                      help="Precision at k: the share of each test example's k best-scored labels that are true. "
                           "Each model's penalty is chosen by it.")
    if name == "lee":
        st.caption(f"The Lee news corpus (300 articles, shipped with gensim) made multilabel: the labels are the "
                   f"{facts['labels']} content words found in the most articles (at most a quarter of them), an "
                   f"article has a label when it uses the word, and its features are the tf-idf of the "
                   f"{facts['features']:,} commonest other words, the label words taken out. No package ships a "
                   "real multilabel set offline that is large enough: the cross-posting headers of gensim's 200 "
                   "Usenet posts name 36 groups, 34 of them on fewer than 25 posts.")
    else:
        st.caption(f"Generated data, not a real set: {facts['examples']} examples, {facts['labels']} labels in 5 "
                   "topics with falling popularity; each example takes about four labels, mostly from one topic, "
                   f"and shows them only through {facts['features']} noisy random projections "
                   "(embedcore.label_models.make_topic_labels).")
    st.caption(f"{facts['examples']} examples, {facts['labels']} labels, {facts['labels per example']:.1f} labels "
               f"per example on average ({facts['without labels']} without any). A third of the examples is held "
               f"out as the test set; each model picks its penalty α from the same grid ({lsvc.alphas()}) by "
               f"precision at {top_k} on a quarter of the training rows, with their corrupted labels.")
    st.metric(f"ceiling at k = {k}: precision at {top_k} of decoding the true label vectors",
              f"{lsvc.ceiling(name, k, top_k, seed):.3f}",
              help="Each example's own label vector t, decoded by cosine: no model that predicts t can rank better. "
                   "Below 1 when k dimensions cannot keep every label apart.")
    result = lsvc.stored(name, k, share, top_k, seed)
    if st.button("Train both models", key="words.lm_run", type="primary",
                 help="Tunes and fits both models: seconds, kept for every visitor."):
        with st.spinner("Tuning and fitting both models ..."):
            result = lsvc.run(name, k, share, top_k, seed)
    if result is None:
        st.info("Press **Train both models** to run the experiment with these settings.")
        return
    table = result.table
    gap = lsvc.gap(result, top_k)
    m1, m2, m3 = st.columns(3)
    m1.metric(f"label embedding, test P@{top_k}", f"{table[f'test P@{top_k}'].iloc[0]:.3f}")
    m2.metric(f"sigmoids, test P@{top_k}", f"{table[f'test P@{top_k}'].iloc[1]:.3f}")
    m3.metric("label embedding minus sigmoids", f"{gap:+.3f}",
              help="Positive: the label-embedding model ranks the true labels higher on this run.")
    three = {c: st.column_config.NumberColumn(format="%.3f") for c in table.columns if "P@" in c or "seconds" in c}
    st.dataframe(table, hide_index=True, key="words.lm_table",
                 column_config={"alpha": st.column_config.NumberColumn(format="%.0e"), **three})
    st.caption(f"Trained on {result.train} examples ({result.corrupted} of their labels swapped), scored on "
               f"{result.test}. A difference of a few hundredths is within the noise of a test set this size: "
               "change the seed in the sidebar to see how much a figure moves.")
    g1, g2 = st.columns(2)
    plots.show(g1, lcharts.precision(table), key="words.chart.lm_precision")
    plots.show(g2, lcharts.robustness(lsvc.curve(name, k, top_k, seed), top_k, share), key="words.chart.lm_noise")
    plots.show(st, lcharts.tuning(result.tuning, top_k, dict(zip(table["model"], table["alpha"]))),
               key="words.chart.lm_tuning")
    st.caption(f"Each test example's true labels and each model's top {top_k}.")
    st.dataframe(result.examples, hide_index=True, key="words.lm_examples")
    with st.expander("What the controls change, and how these figures can mislead"):
        st.markdown(
            "* **k** is the information the label vectors keep: decoding the *true* label vector t of an example "
            "already misses labels when k is small, so a small k caps the model before training starts. At k = m "
            "the label vectors keep everything the co-occurrence knows.\n"
            "* **Corrupted share** swaps that share of the training labels for wrong ones. Run several shares to "
            "draw the noise curve: the claim is about how fast each line falls, not where it starts.\n"
            "* **Top k** is the number of labels scored; each model's penalty is re-chosen for it.\n"
            "* *Misleading.* The cosine decoding ranks labels by direction only: a rare label counts as much as a "
            "common one, while each sigmoid learns its label's base rate in its intercept, which is worth a lot "
            "in precision at top k. The post's setting was a deep network with about 7,000 labels trained in "
            "small batches; these are linear models fitted to convergence on at most 40 labels, so the post's "
            "faster convergence is not tested here. The Lee labels are words like 'year' and 'told', which any "
            "article may use: a hard, noisy task for both models.")


#: Seconds between two frames of a t-SNE drawn while it runs: 300 words take 0.3 s alone, and the five frames
#: the run is paced to (svc.FRAME_ITERATIONS) should not make the map take much longer.
FRAME_S = 0.08
#: How long a frame glides to the next, in milliseconds (a little less than a frame).
GLIDE_MS = 70
#: The word map's height: whole on the first screen of a 1440 x 900 window, under the title and its mouse modes.
MAP_HEIGHT = 580


def word_map_section(ref, params, seed: int, n_vocab_words: int, settings) -> int:
    """The word map (its controls in ``settings``); the map itself is drawn by :func:`word_map_view`. Returns the
    number of words mapped.

    The page opens on it: a t-SNE of these words starts at the first visit, without a click. It runs in a thread
    of its own (svc.TsneJob), so the rest of the page is drawn meanwhile; while it runs, the view is a fragment that
    runs again every FRAME_S seconds and draws the latest layout (at most FRAME_ITERATIONS past
    the last one drawn) in the same map (same key), so the map moves in place while the rest of
    the page stands still. A click on its Stop reruns it at once. When the layout is finished,
    that fragment run draws the final map with its selection tools in the same place, then reruns
    the page, which says how the run ended and stops the fragment's reruns.
    """
    n_words = ranged_slider("Most frequent words", min(100, n_vocab_words), min(svc.MAX_MAP_WORDS, n_vocab_words),
                            min(300, n_vocab_words), key="words.map_n", where=settings, step=100,
                            why="the vocabulary has no more words", bind="query-params")
    method = settings.radio("Method", ["t-SNE", "UMAP"], key="words.map_method", horizontal=True,
                            bind="query-params")
    colour_by = settings.radio("Colour", ["frequency", "cluster"], key="words.map_colour", horizontal=True,
                               bind="query-params")
    if method == "t-SNE":
        top = min(50, svc.largest_perplexity(n_words))  # t-SNE needs more than 3 x perplexity points
        perplexity = ranged_slider("Perplexity", min(5, top), top, 30, key="words.perplexity", where=settings,
                                   why=f"{n_words} words support at most {top}", bind="query-params")
        if top < 50:
            settings.caption(f"Perplexity is capped at {top}: with {n_words} words t-SNE needs more than 3 x "
                             "perplexity points.")
        setting = (perplexity,)
    else:
        nn = ranged_slider("Neighbours", min(5, n_words - 1), min(50, n_words - 1), 15, key="words.umap_nn",
                           where=settings, why=f"{n_words} words", bind="query-params")
        md = settings.slider("Min distance", 0.0, 0.99, 0.1, 0.05, key="words.umap_md", bind="query-params")
        setting = (nn, md)
    highlight_slot = settings.container()  # filled once the t-SNE has started: the list of 300+ words takes a while
    note = st.empty()  # a notice above the map; the map keeps its place on the page with or without one

    key = svc.map_key(ref, params, n_words, method, setting, seed)
    svc.take_in_map(key)  # this session's t-SNE of this map, if it ended since the last run
    notice = svc.map_notice(key)
    draw = True  # False: no map in this run (an error said once, or a stopped run waiting for Draw the map)
    if notice is not None and notice[0] == "stopped":
        st.session_state["words.map_stopped"] = key
    elif notice is not None and notice[0] == "error":
        note.error(md_escape(notice[1]))  # said once: the next run tries again
        draw = False
    elif notice is not None:
        note.info(notice[1])
    result = svc.shown_map(key)
    if draw and result is None and st.session_state.get("words.map_stopped") == key:
        with note.container():
            st.info("Stopped before the first layout; there is nothing to keep. Press Draw the map to start again.")
            draw = st.button("Draw the map", key="words.map_draw", type="primary")
        if draw:
            st.session_state.pop("words.map_stopped", None)
            note.empty()
    job = svc.map_job(key)
    if draw and result is None and method == "t-SNE" and job is None:
        job = svc.start_map(ref, params, n_words, perplexity, seed)
        lab_map.forget("words.map")  # the live frames and the map they end in keep t-SNE's own axes
    points = svc.map_points(ref, params, n_words, colour_by, seed)
    highlight = highlight_slot.selectbox("Highlight a word", ["(none)"] + points["word"].tolist(),
                                         key="words.highlight", bind="query-params")
    highlight = None if highlight == "(none)" else highlight
    if not draw:
        return n_words
    if result is None and method == "UMAP":
        with st.spinner("UMAP ..."):
            svc.word_map_umap(ref, params, n_words, nn, md, seed)
    live = job is not None and job.showing()
    view = st.fragment(word_map_view, run_every=FRAME_S if live else None)
    view(ref, params, seed, n_words, method, setting, colour_by, highlight)
    return n_words


def word_map_view(ref, params, seed: int, n_words: int, method: str, setting: tuple, colour_by: str,
                  highlight: str | None) -> None:
    """The word map: while t-SNE runs, its latest layout (and Stop); then the map with its selection tools.

    Drawn as a fragment (see :func:`word_map_section`): the map is always the second element of
    it, under the key "words.map", so every frame and the final map go to the one map on the page.
    """
    key = svc.map_key(ref, params, n_words, method, setting, seed)
    points = svc.map_points(ref, params, n_words, colour_by, seed)
    style = wcharts.word_map_style(points, colour_by=colour_by, highlight=highlight)
    top = st.container()
    job = svc.map_job(key)
    if job is not None and job.running and job.stopping:
        job.wait(svc.STOP_WAIT_S)  # a stopped t-SNE ends at its next layout: show what it kept at once
    if job is not None and job.showing():
        s1, s2 = top.columns([1, 5])
        s1.button("Stop", key="words.map_stop", on_click=svc.ask_stop, help="Keep the layout so far.")
        fraction, text = job.progress
        s2.progress(min(max(fraction, 0.0), 1.0), text=text)
        start = svc.map_start(ref, params, n_words, seed)
        frame = job.next_frame(spread=svc.live.spread(start))  # each layout drawn at the start's scale
        if frame is None:  # before the first layout: the PCA openTSNE starts from (the map is on the page early)
            frame = (start, "0 (the PCA it starts from)")
        light = {**style, "hover": {"count": style["hover"]["count"]}}  # frames a few times a second: kept small
        lab_map.draw(st, frame[0], key="words.map", ids=style["labels"], title=f"t-SNE, iteration {frame[1]}",
                     height=MAP_HEIGHT, align=False, glide_ms=GLIDE_MS, **light)
        st.caption("t-SNE is running: the map moves as the optimiser places the words; Stop keeps the layout "
                   "so far.")
        return
    # The run ended: this fragment run draws the final map in the same place (the same map on the page, so it
    # glides from the last frame), then the page runs again to say how it ended and to stop these reruns.
    ended = svc.take_in_map(key)
    result = svc.shown_map(key)
    if result is not None:
        Y, seconds = result
        tools = MapTools("words", ref, points["word"], Y, space=svc.map_space(ref, params, n_words), noun="word",
                         id_name="word", where=top)
        # a map this session saw drawn live replaces its last frame at once, the last step of a run that was
        # watched (in this run and in the page's run after it, which sends the same map); another map glides
        drawn = svc.live_draws(key)
        tools.draw(st, "words.map", title=f"{method} map of the {n_words} most frequent words" +
                   (f" ({seconds:.1f} s)" if math.isfinite(seconds) else " (stopped early)"), height=MAP_HEIGHT,
                   **({"glide_ms": 0} if drawn is not None and drawn[0] else {}), **style)
        live_note = ""
        if drawn is not None and drawn[0]:
            live_note = f" While t-SNE ran ({drawn[1]:.1f} s) the map was drawn {drawn[0]} times."
        st.caption("Hover a word to see its count and its five nearest words in the full vector space; the "
                   "frequent words are labelled first, more as you zoom. The map keeps neighbourhoods, not "
                   "distances." + live_note)

        def common_neighbours(rows) -> None:
            st.caption("Their most common neighbours: how many of the selected words have each word among their 10 "
                       "nearest in the whole vocabulary (cosine).")
            st.dataframe(svc.selection_neighbours(ref, params, tuple(rows.tolist())), hide_index=True,
                         key="words.selected_near", height=240)

        tools.panel(common_neighbours, file_name="selected_words.csv",
                    extra={"count": points["count"], "nearest words": points["near"]})
        tools.compare(f"{method} {setting}, " + ", ".join(f"{k}={v}" for k, v in params), what="PMI setting")
    if ended:
        st.rerun(scope="app")


with map_slot:
    n_map_words = word_map_section(ref, params, seed, facts["vocabulary"], map_knobs)
if tour.current("words") is not None:  # what the tour's sentence says, measured on this state
    tour.tell("words", **svc.tour_facts(ref, params, word, n_map_words))

with tabs[0]:
    if tabs[0].open:
        c1, c2 = st.columns([2, 3])
        # 500 px: whole under the tour's bar on a projector's 720 px screen
        c1.dataframe(near.round(4), hide_index=True, key="words.near_table", height=500)
        plots.show(c2, charts.bars(near["word"], near["cosine"], title=f"Top 20 by cosine to '{html_escape(word)}'",
                                   y_title="cosine", horizontal=True, height=500), key="words.chart.near")
        st.caption(f"The word is chosen beside the map. Query time {near_ms:.1f} ms over {len(vocab_words):,} "
                   "words.")
        st.markdown("**Analogy** *a* is to *b* as *c* is to ? (nearest to b − a + c)")
        a1, a2, a3 = st.columns(3)
        first = start["analogy"]
        a = a1.selectbox("a", vocab_words, index=vocab_words.index(first[0]), key="words.an_a", bind="query-params")
        b = a2.selectbox("b", vocab_words, index=vocab_words.index(first[1]), key="words.an_b", bind="query-params")
        c = a3.selectbox("c", vocab_words, index=vocab_words.index(first[2]), key="words.an_c", bind="query-params")
        st.dataframe(svc.analogy(ref, params, a, b, c).round(4), hide_index=True, key="words.analogy", height=250)
        st.caption("Analogies (b - a + c) need corpora of many millions of words; on a few hundred articles most "
                   "answers are simply words near c, so compare the answer with c's own nearest words. Read the "
                   "list as the nearest words to the offset vector, not as a test the vectors pass or fail.")
        if tour.current("words") is not None:
            expected = start["expected"] if [a, b, c] == first else None
            tour.tell("words", **svc.analogy_facts(ref, params, a, b, c, expected))

with tabs[1]:
    if tabs[1].open:
        spec, k80 = svc.spectrum(ref, params)
        s1, s2 = st.columns(2)
        wcharts.spectrum(s1, s2, spec, k80, key="words.chart.spectrum")
        if k80 is None:
            st.caption(f"{dims} dimensions keep {spec['energy'].iloc[-1]:.1%} of the matrix's energy: the 80% rule "
                       "would need more dimensions than computed. PMI matrices have long, flat spectra; for word "
                       "similarity a few hundred dimensions usually suffice anyway.")
        else:
            st.caption(f"The first {k80} dimensions keep 80% of the PMI matrix's energy.")

with tabs[2]:
    if tabs[2].open:
        n_pmi, n_w2v = svc.grid_sizes()
        st.markdown(
            "**PMI-SVD against CBOW and skip-gram, each tuned alike.** Word vectors are scored by Spearman's ρ "
            "between the cosine of two words and human judgements of how alike they are. Every method is trained on "
            f"the same tokens with the same dimensions ({dims}) and min count ({min_count}), over its own grid: "
            f"PMI-SVD {n_pmi} settings (window 2, 5 or 10; eigenvalue weight p 0, 0.5 or 1; shift 1 or 5), "
            f"CBOW and skip-gram {n_w2v} each (5, 20 or 50 epochs; window 2, 5 or 10). The pairs every "
            f"method knows both words of are split in two halves at random, {svc.WORD_REPEATS} times: each method "
            "picks its setting by ρ on one half and is scored on the other, which took no part in the choice, and "
            "each half is scored once. The interval of a difference says whether it is more than the noise of "
            "these few pairs.")
        pair_set = st.radio("Word pairs", list(svc.PAIR_SETS), format_func=svc.PAIR_SETS.get, horizontal=True,
                            key="words.eval_pairs", bind="query-params")
        tuned = svc.stored(svc.tuning_key(ref, dims, min_count, alpha, seed, pair_set))
        if st.button(f"Tune and compare ({n_pmi + 2 * n_w2v} trainings, about a minute on "
                     "Lee)", key="words.run_tune", type="primary"):
            bar = st.progress(0.0, text="training every setting")
            try:
                tuned = svc.tuning(ref, dims, min_count, alpha, seed, pair_set,
                                   progress=lambda f, t: bar.progress(min(f, 1.0), text=t), should_stop=runs.check)
            except ValueError as err:
                st.error(md_escape(err))
            bar.empty()
        if tuned is not None:
            m = st.columns(2)
            for col, other in zip(m, ("CBOW", "skip-gram")):
                row = tuned.difference("PMI-SVD", other)
                col.metric(f"PMI-SVD − {other}, held-out ρ", f"{row['difference']:+.3f}",
                           help=f"95% interval [{row['low']:.3f}, {row['high']:.3f}]: {row['verdict']}.")
            comparison.show(st, tuned, key="words.tune", score="Spearman ρ", what=svc.PAIR_SETS[pair_set])
            st.caption(f"{len(tuned.pairs)} pairs have both words in every method's vocabulary, so each half holds "
                       f"about {len(tuned.pairs) // 2}. A method's setting may differ from fold to fold ('chosen "
                       "in'); a difference whose interval holds 0 is no reliable difference on this corpus, "
                       "whichever way the means lean.")

        st.markdown("**The sidebar's vectors on every pair.** The current PMI-SVD vectors and gensim's CBOW and "
                    "skip-gram at its defaults (5 epochs) with the same window, dimensions and min count, scored on "
                    "all of WordSim-353 and SimLex-999. This is a look at one setting, not a comparison: nothing "
                    "here is tuned or held out, and the page's defaults were themselves picked on WordSim-353. OOV: "
                    "the share of pairs with a word the corpus lacks.")
        table = svc.stored(svc.evaluation_key(ref, params, seed))
        if st.button("Score the sidebar's vectors (trains both Word2Vec models)", key="words.run_eval"):
            with st.spinner("Training Word2Vec CBOW and skip-gram ..."):
                table = svc.evaluation(ref, params, seed, should_stop=runs.check)
        if table is not None:
            st.dataframe(table.round(3), hide_index=True, key="words.eval_table")
            plots.show(st, wcharts.evaluation(table), key="words.chart.eval")

with tabs[3]:
    if tabs[3].open:
        doc_table, n_docs = svc.document_map(ref, params, seed)
        lab_map.draw(st, doc_table[["x", "y"]].to_numpy(), key="words.docs.map", height=460,
                     title="Documents as unit rows of M·diag(idf)·W, PCA to 2-D; hover to read",
                     **wcharts.document_map_style(doc_table))
        if len(doc_table) < n_docs:
            st.caption(f"The map shows the first {len(doc_table):,} of {n_docs:,} documents.")
        st.markdown("**Classification** of gensim's 200 labelled Usenet posts (alt.atheism versus sci.space): "
                    "logistic regression on each document representation, under the lab's protocol. The PMI "
                    f"document vectors use the sidebar's window ({window}), dimensions ({dims}) and min count "
                    f"({min_count}) on the posts, not on the corpus above. Every vocabulary, idf and set of word "
                    "vectors is learned inside each training fold, without labels; each representation's C is "
                    "chosen inside the training part.")
        if context == "document":
            st.caption("The sidebar counts whole documents as context; the classification counts a window of "
                       f"{window} words on each side, since a post-level co-occurrence of 160 posts says little.")
        classes = svc.stored(svc.classification_key(dims, window, min_count, seed))
        if st.button("Run the comparison", key="words.run_docs"):
            bar = st.progress(0.0, text="cross-validating")
            try:
                classes = svc.document_classification(dims, window, min_count, seed,
                                                      progress=lambda f, t: bar.progress(min(f, 1.0), text=t))
            except ValueError as err:
                st.error(md_escape(err))
            bar.empty()
        if classes is not None:
            comparison.show(st, classes, key="words.docs", score="accuracy", what="Usenet posts")
            st.caption("Widths: " + ", ".join(f"{name} {dim:,}" for name, dim in classes.dims.items()) + ".")

with tabs[4]:
    if tabs[4].open:
        st.markdown("**Label embedding** turns multilabel targets into dense vectors: the PMI of label "
                    "co-occurrence, its SVD, unit rows E = U√Σ. A label set is the normalised sum of its labels' "
                    "vectors; decoding takes the labels of highest cosine. Data: scikit-learn's multilabel "
                    "generator (1,000 samples).")
        l1, l2 = st.columns(2)
        n_labels = l1.slider("Labels", 4, 30, 12, key="words.le_labels", bind="query-params")
        le_dims = l2.slider("Embedding dimensions", 2, n_labels, min(6, n_labels), key="words.le_dims",
                            bind="query-params")
        le = svc.label_embedding(n_labels, le_dims, seed)
        c1, c2 = st.columns(2)
        plots.show(c1, charts.heatmap(le["similarity"], x=le["labels"], y=le["labels"], colorscale="RdBu", zmid=0,
                                      title="Cosine similarity of label vectors", height=460), key="words.chart.le_sim")
        lab_map.draw(c2, le["plane"], key="words.le.map", height=460, align=False,  # the axes are dimensions 1, 2
                     title="Labels on the first two embedding dimensions", **wcharts.label_plane_style(le["labels"]))
        m1, m2 = st.columns(2)
        m1.metric("held-out label sets recovered exactly, number of labels unknown",
                  f"{le['recovery']['threshold']:.1%}",
                  help=f"Every label whose cosine reaches {le['threshold']:.3f}, the cut that recovers the most of "
                       f"the {le['train']} training label sets.")
        m2.metric("... when told how many labels each set has", f"{le['recovery']['known count']:.1%}",
                  help="Decoding keeps each row's true number of labels: an oracle, since that number is part of "
                       "the answer. It is an upper bound for the figure on the left.")
        st.caption(f"Fitted on {le['train']} label sets, scored on the other {le['held']}.")
        st.dataframe(le["examples"], hide_index=True, key="words.le_examples")
        trained_labels_section(seed)

with tabs[5]:
    if tabs[5].open:
        out = svc.exports(ref, params)
        st.download_button("Vectors, word2vec text format (.txt)", out["w2v"], "pmi_vectors.txt", "text/plain",
                           key="words.dl_w2v")
        st.download_button("Embedding Projector vectors (.tsv)", out["tsv"], "vectors.tsv",
                           "text/tab-separated-values", key="words.dl_tsv")
        st.download_button("Embedding Projector metadata (.tsv)", out["meta"], "metadata.tsv",
                           "text/tab-separated-values", key="words.dl_meta")
        st.caption(f"{out['shape'][0]:,} words x {out['shape'][1]} dimensions; parameters: "
                   + ", ".join(f"{k}={v}" for k, v in params))

def windows_section(ref, params) -> None:
    """Raw counts factorised beside PMI; the examples CBOW and skip-gram draw from a window; a skip-gram trained here."""
    st.markdown("**The raw counts, factorised.** The window counts A are symmetric, so A = E D Eᵀ with E's columns "
                "orthonormal eigenvectors; the rows of the top k (scaled by |D|^p, as the eigenvalue weight p scales the "
                "SVD) are word vectors. The same counts, the same k and p as the PMI vectors: only PMI differs.")
    st.latex(r"A_{wc} = \#(w, c) = E D E^\top,\qquad W_{\text{counts}} = E_k\,|D_k|^{p}")
    st.latex(r"\text{against}\quad \mathrm{PPMI} \approx U_k \Sigma_k V_k^\top,\quad W = U_k \Sigma_k^{p}")
    vocab = svc.vocabulary(ref, params)
    first = svc.default_words(ref, params)["query"]
    word = st.selectbox("Word", vocab, index=vocab.index(first) if first in vocab else 0, key="words.ww_word", bind="query-params")
    pull = wws.pulls(ref, params)
    st.caption(f"Share of the {wws.FREQUENT} most frequent words among every word's {wws.TOPN} nearest words:")
    m = st.columns(3)
    m[0].metric("raw counts", f"{pull['raw']:.1%}")
    m[1].metric("PMI", f"{pull['pmi']:.1%}")
    m[2].metric("by chance", f"{pull['chance']:.1%}",
                help=f"{wws.FREQUENT} of the {len(vocab):,} words: what a method that ignores frequency scores.")
    st.dataframe(wws.side_by_side(ref, params, word), hide_index=True, key="words.ww_side")
    st.caption(f"Over every word's {wws.TOPN} nearest words (cosine, k = {pull['k']}). The leading eigenvector of the "
               f"raw counts follows each word's count (correlation {pull['first']:.3f}), so frequent words sit near "
               "everything; PMI divides each count by what the two words' frequencies predict, which takes that "
               "out. Nearest-word lists of a single word can mislead either way: read the shares above.")

    st.markdown("**Training examples from a window.** Word2vec never counts: it walks the text. CBOW makes one "
                "example per word, the words around it in and the word out; skip-gram makes one per (word, "
                "neighbour) pair, the word in and the neighbour out.")
    st.latex(r"\text{CBOW: } \max \sum_t \log P\big(w_t \mid w_{t-b}, \dots, w_{t-1}, w_{t+1}, \dots, "
             r"w_{t+b}\big)")
    st.latex(r"\text{skip-gram: } \max \sum_t \sum_{0 < |j| \le b} \log P(w_{t+j} \mid w_t)")
    n_docs = svc.corpus_size(ref)[0]
    c1, c2, c3 = st.columns([1, 3, 1])
    doc = c1.number_input("Document", 0, n_docs - 1, 0, key="words.ww_doc", bind="query-params")
    said = wws.document_sentences(ref, int(doc))
    if not said:
        st.info("This document has no text.")
        return
    if st.session_state.get("words.ww_sentence", 0) >= len(said):
        st.session_state["words.ww_sentence"] = 0
    sentence = c2.selectbox("Sentence", range(len(said)), key="words.ww_sentence", bind="query-params",
                            format_func=lambda i: f"{i + 1}. {said[i][:90]}{'…' if len(said[i]) > 90 else ''}")
    b = c3.slider("Window b", 1, 5, 2, key="words.ww_window", bind="query-params")
    cbow, sg, _, dropped = wws.examples(ref, params, int(doc), int(sentence), int(b))
    left, right = st.columns(2)
    left.caption(f"CBOW: {len(cbow)} examples")
    left.dataframe(cbow, hide_index=True, key="words.ww_cbow", height=300)
    right.caption(f"Skip-gram: {len(sg)} (input, output) pairs")
    right.dataframe(sg, hide_index=True, key="words.ww_sg", height=300)
    n_cbow, n_sg = wws.corpus_examples(ref, params, int(b))
    gone = ", ".join(md_escape(t) for t in dropped)
    st.caption((f"Dropped first, as word2vec drops words below its min count: {gone}. " if dropped else "") + f"One pass over the corpus at b = {b}: {n_cbow:,} CBOW examples, {n_sg:,} "
               "skip-gram pairs. Word2vec also shrinks b at random for each word (nearer words count more often) and "
               "learns from each example against a few random negative words, not the whole vocabulary.")

    st.markdown("**A small skip-gram, trained here** on the same tokens, window b, the page's dimensions and min "
                f"count, {wws.SKIPGRAM_EPOCHS} epochs, one thread and the seed.")
    key = wws.skipgram_key(ref, params, int(b))
    if st.button("Train the skip-gram", key="words.ww_train",
                 help="Seconds on the bundled corpora; kept on this server for everyone with the same settings."):
        with st.spinner("Training skip-gram..."):
            wws.train_skipgram(key)
    near = wws.skipgram_nearest(key, word)
    if wws.skipgram(key) is None:
        st.caption("Press the button to train it; its nearest words then join the raw counts' and PMI's above.")
    elif near is None:
        st.info(f"The skip-gram did not keep '{md_escape(word)}'.")
    else:
        st.dataframe(near, hide_index=True, key="words.ww_skipgram")
        st.caption(f"The skip-gram's nearest words of '{md_escape(word)}', from the (word, neighbour) pairs above "
                   "taken over the whole corpus.")


with tabs[6]:
    if tabs[6].open:
        windows_section(ref, params)

share.panel("words", reproduce.lazy(lambda: svc.recipe(ref, params)), uploaded=source == "upload",
            what="the word vectors, their words and singular values")
svc.fit_ahead_of(ref, params, windows=(1, 10), dims=(*dims_range, 10))  # the next step's vectors, in the background
