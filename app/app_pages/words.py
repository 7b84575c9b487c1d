import time

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from app.services import data as data_service
from app.services import words as svc
from app.ui import charts, plots, runs
from app.ui.controls import ranged_slider
from app.ui.sidebar import data_source
from app.ui.text import html_escape, md_escape

st.title("Words: vectors from PMI and SVD")
st.markdown(
    """
Word vectors need not come from a neural network. Count how often each word appears near
each other word, turn the counts into **pointwise mutual information** (how much more
often than chance), keep the positive part, and factorise the matrix with a truncated
**SVD**: the rows are word vectors. With the right knobs (context smoothing, a shift,
eigenvalue weighting) they rival Word2Vec, especially on small corpora.
"""
)
st.latex(r"\mathrm{PMI}(w,c) = \log\frac{\#(w,c)\,N}{\#(w)\,N_\alpha(c)},\quad "
         r"\mathrm{SPPMI}_k = \max(\mathrm{PMI} - \log k,\ 0),\quad "
         r"\mathrm{SPPMI} \approx U_d \Sigma_d V_d^\top,\quad W = U_d\,\Sigma_d^{\,p}")
st.caption("N_α(c) smooths the context counts: N·#(c)^α / Σ#(c')^α with α = 0.75 lifts rare contexts. "
           "Document vectors are the document-term matrix times W.")

seed = data_service.seed()
sb = st.sidebar
source, corpus = data_source("documents", "words", default="lee")
corpus_key = data_service.source_key(source)
docs = svc.tokens(corpus_key, _documents=corpus.documents)
context = sb.radio("Context", ["window", "document"], key="words.context", horizontal=True,
                   help="window: words within a few positions. document: two words co-occur once for every "
                   "document that holds both (M^T M of the binary document-term matrix M); this is a word-word "
                   "matrix, not the PMI of the word-document matrix itself.")
window = sb.slider("Window", 1, 10, 5, key="words.window", disabled=context == "document",
                   help="Words on each side that count as context.")
weighted = sb.checkbox("Weight by distance (1/d)", key="words.weighted", disabled=context == "document",
                       help="A pair d positions apart counts 1/d instead of 1, as GloVe and word2vec's dynamic window do.")
min_count = sb.slider("Min count", 1, 20, 3, key="words.min_count", help="Rarer words are left out.")
variant = sb.radio("PMI variant", ["PPMI", "PMI"], key="words.variant", horizontal=True,
                   help="PPMI clips negative values to 0; plain PMI keeps them (unobserved pairs stay 0).")
shift = sb.select_slider("Shift k (log k subtracted)", [1, 2, 5, 10, 15], value=1, key="words.shift")
alpha = sb.slider("Context smoothing α", 0.5, 1.0, 0.75, 0.05, key="words.alpha")
n_vocab = svc.vocabulary_size(corpus_key, min_count, _docs=docs)
dims = ranged_slider("Dimensions", max(1, min(10, n_vocab - 1)), max(1, min(300, n_vocab - 1)), 100, key="words.dims", where=sb,
                     step=10, bind="query-params", why=f"the vocabulary has {n_vocab} words at this min count")
eig = sb.slider("Eigenvalue weight p", 0.0, 1.0, 0.5, 0.25, key="words.eig",
                help="Vectors are U Σ^p: 0 treats every dimension alike, 1 is the plain SVD projection.")

with st.expander("What the controls change, and how the pictures can mislead"):
    st.markdown(
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

params = dict(window=window, context=context, weighted=weighted, min_count=min_count, alpha=alpha, shift=float(shift),
              positive=variant == "PPMI", n_components=dims, eig_weight=eig, random_state=seed)
key = tuple(sorted(params.items()))
vec_key = f"{corpus_key}:{key}"
try:
    with st.spinner("Counting and factorising ..."):
        wv = svc.vectors(corpus_key, key, _docs=docs)
except ValueError as err:
    st.error(md_escape(err))
    st.stop()

energy = wv.energy()
cols = st.columns(5)
cols[0].metric("documents", f"{len(docs):,}")
cols[1].metric("tokens", f"{sum(map(len, docs)):,}")
cols[2].metric("vocabulary", f"{len(wv.vocabulary_):,}")
cols[3].metric("non-zero PMI entries", f"{wv.pmi_.nnz:,}")
cols[4].metric("fit time", f"{wv.fit_seconds_:.2f} s")

tabs = st.tabs(["Spectrum", "Nearest words", "Word map", "Evaluation", "Documents", "Label embedding", "Download"])
vocab_words = list(wv.words_)

with tabs[0]:
    k80 = int(np.searchsorted(energy, 0.8) + 1) if energy[-1] >= 0.8 else None
    spec = pd.DataFrame({"k": np.arange(1, len(energy) + 1), "singular value": wv.singular_values_,
                         "energy": energy})
    c1, c2 = st.columns(2)
    plots.show(c1, charts.lines(spec, "k", {"singular value": "σ_k"}, title="Singular values", y_title="σ"),
                    key="words.chart.sv")
    plots.show(c2, charts.lines(spec, "k", {"energy": "cumulative energy"}, hline=0.8,
                                 hline_label="80%", vline=k80, vline_label=f"80% at k={k80}" if k80 else "",
                                 title="Cumulative energy (share of the whole PMI matrix)", y_title="share"),
                    key="words.chart.energy")
    if k80 is None:
        st.caption(f"{dims} dimensions keep {energy[-1]:.1%} of the matrix's energy: the 80% rule would need more "
                   "dimensions than computed. PMI matrices have long, flat spectra; for word similarity a few hundred "
                   "dimensions usually suffice anyway.")
    else:
        st.caption(f"The first {k80} dimensions keep 80% of the PMI matrix's energy.")

with tabs[1]:
    default_word = next((w for w in ("boston", "city", "government", "australia", "man") if w in wv.vocabulary_),
                        vocab_words[min(50, len(vocab_words) - 1)])
    word = st.selectbox("Word (type to search the vocabulary)", vocab_words, index=vocab_words.index(default_word),
                        key="words.query")
    t = time.perf_counter()
    near = wv.most_similar(word, 20)
    ms = (time.perf_counter() - t) * 1000
    c1, c2 = st.columns([2, 3])
    c1.dataframe(near.round(4), hide_index=True, key="words.near_table", height=560)
    plots.show(c2, charts.bars(near["word"], near["cosine"], title=f"Top 20 by cosine to '{html_escape(word)}'",
                                y_title="cosine", horizontal=True, height=560), key="words.chart.near")
    st.caption(f"Query time {ms:.1f} ms over {len(vocab_words):,} words.")
    st.markdown("**Analogy** *a* is to *b* as *c* is to ? (nearest to b − a + c)")
    a1, a2, a3 = st.columns(3)
    defaults = [w for w in ("man", "woman", "king") if w in wv.vocabulary_]
    if len(defaults) < 3:
        defaults = [vocab_words[min(i, len(vocab_words) - 1)] for i in (10, 11, 12)]
    a = a1.selectbox("a", vocab_words, index=vocab_words.index(defaults[0]), key="words.an_a")
    b = a2.selectbox("b", vocab_words, index=vocab_words.index(defaults[1]), key="words.an_b")
    c = a3.selectbox("c", vocab_words, index=vocab_words.index(defaults[2]), key="words.an_c")
    st.dataframe(wv.analogy(a, b, c, 10).round(4), hide_index=True, key="words.analogy", height=250)
    st.caption("Analogies (b - a + c) need corpora of many millions of words; on a few hundred articles most "
               "answers are simply words near c. Read the list as the nearest words to the offset vector, not as "
               "a test the vectors pass or fail.")

with tabs[2]:
    c1, c2, c3 = st.columns(3)
    n_words = ranged_slider("Most frequent words", min(100, len(vocab_words)), min(2000, len(vocab_words)),
                            min(300, len(vocab_words)), key="words.map_n", where=c1, step=100,
                            why="the vocabulary has no more words")
    method = c2.radio("Method", ["t-SNE", "UMAP"], key="words.map_method", horizontal=True)
    colour_by = c3.radio("Colour", ["frequency", "cluster"], key="words.map_colour", horizontal=True)
    if method == "t-SNE":
        top = min(50, (n_words - 1) // 3)  # t-SNE needs more than 3 x perplexity points
        perplexity = ranged_slider("Perplexity", min(5, top), top, 30, key="words.perplexity",
                                   why=f"{n_words} words support at most {top}")
        if top < 50:
            st.caption(f"Perplexity is capped at {top}: with {n_words} words t-SNE needs more than 3 x perplexity "
                       "points.")
        map_key = f"words.map.{vec_key}.{n_words}.tsne.{perplexity}.{seed}"
    else:
        p1, p2 = st.columns(2)
        nn = ranged_slider("Neighbours", min(5, n_words - 1), min(50, n_words - 1), 15, key="words.umap_nn",
                           where=p1, why=f"{n_words} words")
        md = p2.slider("Min distance", 0.0, 0.99, 0.1, 0.05, key="words.umap_md")
        map_key = f"words.map.{vec_key}.{n_words}.umap.{nn}.{md}.{seed}"
    hover_nn = svc.neighbours_table(vec_key, n_words, _wv=wv)
    words_shown = vocab_words[:n_words]
    freq = wv.counts_.iloc[:n_words].to_numpy()
    colour = (np.log10(freq) if colour_by == "frequency"
              else svc.clusters(vec_key, n_words, min(12, n_words), seed, _wv=wv))
    highlight = st.selectbox("Highlight a word", ["(none)"] + words_shown, key="words.highlight")
    spot = st.empty()
    bar_slot = st.empty()

    def draw(Y, title, key):
        fig = go.Figure(go.Scattergl(
            x=Y[:, 0], y=Y[:, 1], mode="markers+text" if n_words <= 300 else "markers",
            text=[html_escape(w) for w in words_shown], textposition="top center", textfont=dict(size=9),
            hovertext=[f"<b>{html_escape(w)}</b> ({f:,})<br>near: {html_escape(h)}"
                       for w, f, h in zip(words_shown, freq, hover_nn)], hoverinfo="text",
            marker=dict(size=6, color=colour, colorscale="Viridis" if colour_by == "frequency" else "Turbo",
                        showscale=colour_by == "frequency",
                        colorbar=dict(title=dict(text="log10 count")) if colour_by == "frequency" else None)))
        if highlight != "(none)":
            i = words_shown.index(highlight)
            fig.add_trace(go.Scatter(x=[Y[i, 0]], y=[Y[i, 1]], mode="markers+text", text=[html_escape(highlight)],
                                     textposition="bottom center", showlegend=False,
                                     marker=dict(size=18, symbol="circle-open", color="#e03131", line=dict(width=3))))
        plots.show(spot, charts.layout(fig, title, 640), key=key)

    # A Stop click reruns the page: this run keeps the latest layout of the t-SNE it stopped,
    # before deciding whether to compute, so the map is not started again.
    run = runs.StoppableRun("words.map_run", map_key)
    if run.stopped and run.latest is not None:
        st.session_state[map_key] = (run.latest[0], float("nan"))
        st.info(f"Stopped at iteration {run.latest[1]}; the layout so far is kept.")
    elif run.stopped:
        st.session_state["words.map_stopped"] = map_key
    waiting = map_key not in st.session_state and st.session_state.get("words.map_stopped") == map_key
    if waiting and st.button("Draw the map", key="words.map_draw", type="primary"):
        st.session_state.pop("words.map_stopped", None)
        waiting = False
    if waiting:
        st.info("Stopped before the first layout; there is nothing to keep. Press Draw the map to start again.")
    elif map_key not in st.session_state:
        if method == "t-SNE":
            bar = bar_slot.progress(0.0, text="t-SNE starting")
            last, frames, count = [0.0], [0], [0, 0]  # count: iterations before this phase, last seen

            def on_layout(Y, it):
                if it < count[1]:  # openTSNE restarts its count after the exaggeration phase
                    count[0] += count[1]
                count[1] = it
                run.save((np.array(Y), count[0] + it))  # what Stop keeps; also a chance to stop
                now = time.perf_counter()
                if now - last[0] > 0.4:
                    last[0] = now
                    frames[0] += 1
                    draw(np.asarray(Y), f"t-SNE, iteration {count[0] + it}", f"words.chart.map.live.{frames[0]}")
                return False

            t0 = time.perf_counter()
            try:
                with run.running(button_key="words.map_stop", help="Keep the layout so far."):
                    coords = svc.word_map_tsne(wv, n_words, perplexity, seed, on_layout,
                                               progress=lambda f, text: bar.progress(min(f, 1.0), text=text))
                st.session_state[map_key] = (coords, time.perf_counter() - t0)
            except ValueError as err:
                st.error(md_escape(err))
            bar_slot.empty()
        else:
            with st.spinner("UMAP ..."):
                st.session_state[map_key] = svc.word_map_umap(vec_key, n_words, nn, md, seed, _wv=wv)
    if map_key in st.session_state:
        Y, seconds = st.session_state[map_key]
        draw(Y, f"{method} map of the {n_words} most frequent words" +
             (f" ({seconds:.1f} s)" if np.isfinite(seconds) else " (stopped early)"), "words.chart.map")
    st.caption("Hover a word to see its five nearest words in the full vector space; the map keeps neighbourhoods, "
               "not distances.")

with tabs[3]:
    st.markdown("Spearman correlation between cosine similarity and human judgements on WordSim-353 and SimLex-999 "
                "(both shipped with gensim), for the current PMI-SVD vectors and for gensim's Word2Vec CBOW and "
                f"skip-gram trained on the same tokens with the same window, dimension ({dims}) and min count. "
                "OOV: the share of pairs with a word the corpus lacks.")
    eval_key = f"words.eval.{vec_key}"
    if st.button("Run the evaluation (trains both Word2Vec models)", key="words.run_eval", type="primary"):
        with st.spinner("Training Word2Vec CBOW and skip-gram ..."):
            st.session_state[eval_key] = svc.evaluation(corpus_key, key, seed, _docs=docs, _wv=wv,
                                                            _should_stop=runs.check)
    if eval_key in st.session_state:
        table = st.session_state[eval_key]
        st.dataframe(table.round(3), hide_index=True, key="words.eval_table")
        fig = go.Figure()
        for j, col in enumerate(["wordsim353 ρ", "simlex999 ρ"]):
            fig.add_trace(go.Bar(x=table["method"], y=table[col], name=col, marker_color=charts.PALETTE[j]))
        plots.show(st, charts.layout(fig, "Spearman correlation with human similarity judgements", 360),
                        key="words.chart.eval")
        st.caption("Word2Vec runs gensim's defaults here (5 epochs), which undertrain on a corpus this small: "
                   "the tuned comparison below gives each method its best setting before comparing.")

    st.markdown(
        "**A fair comparison.** Each method gets the same budget: 8 settings (PMI-SVD: window, eigenvalue "
        "weight p and shift; Word2Vec: CBOW or skip-gram, epochs and window), the same tokens, dimensions "
        f"({dims}) and min count ({min_count}). WordSim-353's pairs are split in two at random (seed {seed}): "
        "a method's setting is chosen on one half, and scored on the other, which took no part in the choice.")
    tune_key = f"words.tune.{corpus_key}.{dims}.{min_count}.{alpha}.{seed}"
    if st.button("Tune both (16 trainings)", key="words.run_tune"):
        bar = st.progress(0.0, text="tuning")
        st.session_state[tune_key] = svc.tuning(corpus_key, dims, min_count, alpha, seed, _docs=docs,
                                                _progress=lambda f, t: bar.progress(min(f, 1.0), text=t),
                                                _should_stop=runs.check)
        bar.empty()
    if tune_key in st.session_state:
        tuned = st.session_state[tune_key]
        best = tuned[tuned["chosen"]].set_index("method")
        t1, t2 = st.columns(2)
        for col, method in zip((t1, t2), ("PMI-SVD", "Word2Vec")):
            col.metric(f"{method}, chosen setting: ρ on the scoring half", f"{best.loc[method, 'rho_score']:.3f}",
                       help=f"Chosen: {best.loc[method, 'setting']} (ρ {best.loc[method, 'rho_choose']:.3f} on "
                            "the choosing half).")
        plots.show(st, charts.tuning_bars(tuned, title="Every setting on the scoring half (outlined: the one each "
                                                         "method chose on the other half)"), key="words.chart.tune")
        st.dataframe(tuned.round(3), hide_index=True, key="words.tune_table")
        st.caption(f"Halves of {int(tuned['pairs_choose'].iloc[0])} and {int(tuned['pairs_score'].iloc[0])} pairs "
                   "in the vocabulary: differences of a few hundredths are within noise.")

with tabs[4]:
    P2 = svc.document_map(vec_key, seed, _wv=wv, _docs=docs[:2000])
    lengths = np.array([len(d) for d in docs[:2000]])
    fig = go.Figure(go.Scattergl(x=P2[:, 0], y=P2[:, 1], mode="markers",
                                 marker=dict(size=7, color=np.log10(lengths + 1), colorscale="Viridis", showscale=True,
                                             colorbar=dict(title=dict(text="log10 words"))),
                                 hovertext=[html_escape(d[:120]) for d in corpus.documents[:2000]], hoverinfo="text"))
    plots.show(st, charts.layout(fig, "Documents as M·W (tf-idf weights), PCA to 2-D; hover to read", 460),
                    key="words.chart.docs")
    if len(P2) < len(corpus.documents):
        st.caption(f"The map shows the first 2,000 of {len(corpus.documents):,} documents.")
    st.markdown("**Classification** of gensim's 200 labelled Usenet posts (alt.atheism versus sci.space): logistic "
                "regression, 5-fold cross-validation, with each document representation. The PMI vectors are fitted "
                "on the posts' text (no labels).")
    if st.button("Run the comparison", key="words.run_docs"):
        st.session_state["words.docs_done"] = True
    if st.session_state.get("words.docs_done"):
        with st.spinner("Cross-validating ..."):
            table = svc.document_classification(dims, seed)
        st.dataframe(table.round(3), hide_index=True, key="words.docs_table")

with tabs[5]:
    st.markdown("**Label embedding** turns multilabel targets into dense vectors: the PMI of label co-occurrence, "
                "its SVD, unit rows E = U√Σ. A label set is the normalised sum of its labels' vectors; decoding "
                "takes the labels of highest cosine. Data: scikit-learn's multilabel generator (1,000 samples).")
    l1, l2 = st.columns(2)
    n_labels = l1.slider("Labels", 4, 30, 12, key="words.le_labels")
    le_dims = l2.slider("Embedding dimensions", 2, n_labels, min(6, n_labels), key="words.le_dims")
    Y, le = svc.label_problem(n_labels, le_dims, seed)
    names = [f"label {i}" for i in range(n_labels)]
    c1, c2 = st.columns(2)
    plots.show(c1, charts.heatmap(le.similarity(), x=names, y=names, colorscale="RdBu", zmid=0,
                                   title="Cosine similarity of label vectors", height=460), key="words.chart.le_sim")
    E2 = le.embedding_[:, :2]
    fig = go.Figure(go.Scatter(x=E2[:, 0], y=E2[:, 1], mode="markers+text", text=names, textposition="top center",
                               marker=dict(size=10, color=charts.PALETTE[0])))
    plots.show(c2, charts.layout(fig, "Labels on the first two embedding dimensions", 460), key="words.chart.le_2d")
    held = Y[700:]
    rec = le.recovery(held)
    decoded = le.decode(le.encode(held))
    m1, m2 = st.columns(2)
    m1.metric("held-out label sets recovered exactly, number of labels unknown", f"{rec['threshold']:.1%}",
              help=f"Every label whose cosine reaches {le.threshold_:.3f}, the cut that recovers the most of the 700 "
                   "training label sets.")
    m2.metric("... when told how many labels each set has", f"{rec['known count']:.1%}",
              help="Decoding keeps each row's true number of labels: an oracle, since that number is part of the "
                   "answer. It is an upper bound for the figure on the left.")
    st.caption("Fitted on 700 label sets, scored on the other 300.")
    ex = pd.DataFrame({"true labels": [", ".join(str(j) for j in np.flatnonzero(r)) for r in held[:8]],
                       "decoded": [", ".join(str(j) for j in np.flatnonzero(r)) for r in decoded[:8]]})
    st.dataframe(ex, hide_index=True, key="words.le_examples")

with tabs[6]:
    out = svc.exports(vec_key, _wv=wv)
    vecs = wv.vectors_
    st.download_button("Vectors, word2vec text format (.txt)", out["w2v"], "pmi_vectors.txt", "text/plain",
                       key="words.dl_w2v")
    st.download_button("Embedding Projector vectors (.tsv)", out["tsv"], "vectors.tsv", "text/tab-separated-values",
                       key="words.dl_tsv")
    st.download_button("Embedding Projector metadata (.tsv)", out["meta"], "metadata.tsv",
                       "text/tab-separated-values", key="words.dl_meta")
    st.caption(f"{len(vocab_words):,} words x {vecs.shape[1]} dimensions; parameters: "
               + ", ".join(f"{k}={v}" for k, v in params.items()))
