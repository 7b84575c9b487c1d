import streamlit as st

from app.services import data as data_service
from app.services import reproduce
from app.services import sparse_products as sp_svc
from app.services import text as svc
from app.ui import map as lab_map
from app.ui import plots, share, tour
from app.ui import text_charts as charts
from app.ui.controls import ranged_slider
from app.ui.layout import instrument, main_height, page_header, tab_sections, theory
from app.ui.sidebar import data_source
from app.ui.text import equations, md_escape

page_header("Words: bag of words, TF-IDF and LSA",
            "A document becomes a row of word counts, almost all 0; tf-idf lifts the words that say what it is "
            "about, and LSA folds the rows into a few concepts.", "text")


def intro() -> None:
    st.markdown(
        """
The simplest way to turn a document into numbers forgets the order of its words and keeps how often each
occurs: one column per word of the vocabulary, one row per document. That is the **bag of words**, and
almost every entry of it is 0. Weighting the counts by **tf-idf** (how much of the document a word is,
times how rare it is across documents) lifts the words that say what a document is about. The tabs take
this apart: the matrix itself, the tf and idf formulas next to scikit-learn's, why inner products of such
rows cost time linear in their non-zeros, what n-grams do to the vocabulary, how feature hashing folds
any vocabulary into a fixed number of buckets, and how **latent semantic analysis** (LSA) factorises the
weighted matrix into a few concepts that hold documents and terms together.
"""
    )
    equations(st, r"x_{d,t} = f_{t,d}\ \ (\text{the count of term } t \text{ in document } d)",
              r"X \in \mathbb{N}^{n \times V},\qquad \text{stored: only the } x_{d,t} \neq 0")


main, knobs = instrument("text")
sb = knobs
source, corpus = data_source("documents", "text", default="lee", more=("labelled_documents",))
ref = data_service.ref("documents", source)
min_count = sb.slider("Min count", 1, 10, 1, key="text.min_count", bind="query-params",
                      help="Words seen fewer times in the whole corpus are left out of the vocabulary (every tab but "
                      "N-grams, which counts every token).")

try:
    with st.spinner("Counting ..."):
        facts = svc.facts(ref, min_count)
except ValueError as err:
    st.error(f"{md_escape(err)} (or give a corpus with more text).")
    st.stop()

cols = [c for _ in range(3) for c in knobs.columns(2)]
cols[0].metric("documents n", f"{facts['documents']:,}")
cols[1].metric("vocabulary V", f"{facts['terms']:,}", help=f"Words seen at least {min_count} time(s).")
cols[2].metric("tokens", f"{facts['tokens']:,}")
cols[3].metric("stored entries", f"{facts['stored']:,}", help="Non-zero counts: (document, term) pairs that occur.")
cols[4].metric("density", f"{facts['density']:.3%}", help="Stored entries over n · V.")



def controls_text() -> None:
    st.markdown("**What the controls change, and how the pictures can mislead**")
    st.markdown(
        """
* **Data set.** Lee: 300 Australian news articles; head500: long Wikipedia articles; the newsgroup
  posts come with their group (alt.atheism or sci.space), which colours the LSA plot, and still carry
  their e-mail headers, which are words too. Your own text: one document per line.
* **Min count** (sidebar) removes rare words from the vocabulary of every tab but N-grams (which
  counts every token): V shrinks fast, since most words of a corpus occur once or twice, and the
  matrix gets denser.
* Each tab's own controls are described in the tab.

*How the pictures can mislead.* The bag of words keeps no order: "dog bites man" and "man bites dog"
are one row. The slice of the matrix shows the most frequent terms, which are the densest columns:
the matrix as a whole is far emptier than the slice suggests. tf-idf values of different schemes are
not on one scale; compare rankings, or rows scaled to length 1. A hashing curve measures one hash
function on one vocabulary; another seed gives other collisions with the same expected share. In LSA a
concept's sign is arbitrary (here its heaviest term is made positive), and with tf-idf rows of length
1 the first concept is mostly "how typical a document is", not a topic; the 2-D plot shows two of the k
concepts, and points that overlap there may be far apart in the others.
"""
    )

n_docs = facts["documents"]
names = svc.openings(ref)
for key in ("text.doc", "text.a", "text.b"):  # a document number the new corpus does not have
    if not 0 <= st.session_state.get(key, 0) < n_docs:
        del st.session_state[key]


def bag_section(ref, min_count):
    st.markdown(
        "Each row is a document, each column a term (most frequent first), each cell a count. A CSR matrix "
        "keeps only the non-zero cells: their values, their column indices, and where each row starts.")
    st.latex(r"\text{density} = \frac{\#\{(d,t): f_{t,d} > 0\}}{n\,V},\qquad "
             r"\text{CSR bytes} = 8\,\text{nnz} + 4\,\text{nnz} + 4\,(n+1)\ \ \text{vs dense } 8\,n\,V")
    counts_view(ref, min_count)
    f = svc.facts(ref, min_count)
    m = st.columns(4)
    m[0].metric("terms per document (mean)", f"{f['mean terms per document']:.1f}",
                help="Distinct terms of a document: its stored entries.")
    m[1].metric("dense matrix", f"{f['dense bytes'] / 2**20:,.1f} MB")
    m[2].metric("CSR matrix", f"{f['CSR bytes'] / 2**20:,.2f} MB")
    m[3].metric("empty documents", f"{f['empty documents']:,}", help="Documents left without a word of the "
                "vocabulary (all their words are below the min count).")
    st.caption(f"A document of {f['mean terms per document']:.0f} distinct terms stores "
               f"{f['mean terms per document']:.0f} entries instead of {f['terms']:,}.")
    charts.zipf(st, svc.rank_frequency(ref, min_count),
                "Why it is sparse: a few terms are everywhere, most occur once or twice (Zipf)", key="text.chart.zipf")


@st.fragment
def counts_view(ref, min_count):
    c1, c2, c3 = st.columns(3)
    with c1:
        first = ranged_slider("First document", 0, n_docs - 1, 0, key="text.first", bind="query-params",
                              why="the corpus has one document")
    with c2:
        rows = ranged_slider("Documents shown", 1, min(25, n_docs), 10, key="text.rows", bind="query-params",
                             why="the corpus has one document")
    with c3:
        V = svc.vocabulary_size(ref, min_count)
        n_terms = ranged_slider("Terms shown", 1, min(40, V), 20, key="text.cols", bind="query-params",
                                why="the vocabulary has one word")
    table = svc.counts_slice(ref, min_count, first, rows, n_terms)
    st.markdown(f"**Counts of documents {table.index[0].split()[1]}–{table.index[-1].split()[1]} over the "
                f"{table.shape[1]} most frequent terms** (the deeper the blue, the larger the count; 0 is left blank)")
    # the page's main chart: in presentation mode it takes the projector's height, its rows spaced to fill it
    height = main_height("text.counts", 35 * (len(table) + 1) + 3)
    st.dataframe(charts.counts_table(table), key="text.counts", height=height,
                 row_height=max(35, (height - 3) // (len(table) + 1)))
    nonzero = int((table.to_numpy() > 0).sum())
    st.caption(f"This slice: {nonzero} of {table.size} cells are non-zero ({nonzero / table.size:.0%}); the whole "
               f"matrix: {svc.facts(ref, min_count)['density']:.3%}.")


@st.fragment
def tfidf_section(ref, min_count):
    st.markdown(
        "**Term frequency** scales a count by the document's length, so long documents do not win by being "
        "long; the **log** variant damps repeats instead. **Inverse document frequency** lifts rare terms: a "
        "term in every document gets 0, a term in one gets ln n. scikit-learn's `TfidfVectorizer` differs on "
        "every count: raw f for tf, a smoothed idf (as if one more document held every term, plus 1, so no "
        "term reaches 0), and each row scaled to length 1.")
    st.latex(r"\mathrm{tf}(t,d) = \frac{f_{t,d}}{|d|}\ \ \text{or}\ \ \ln(1 + f_{t,d}),\qquad "
             r"\mathrm{idf}(t) = \ln\frac{n}{\mathrm{df}(t)},\qquad w_{t,d} = \mathrm{tf}(t,d)\cdot\mathrm{idf}(t)")
    st.latex(r"\text{scikit-learn: } w_{t,d} = f_{t,d}\left(\ln\frac{1+n}{1+\mathrm{df}(t)} + 1\right),\ "
             r"\text{then } w_d \leftarrow w_d / \lVert w_d \rVert_2")
    c1, c2, c3 = st.columns([3, 2, 2])
    doc = c1.selectbox("Document", list(range(n_docs)), format_func=names.__getitem__, key="text.doc",
                       bind="query-params")
    TF = {"frequency": "f / |d|", "log": "ln(1 + f)"}
    tf = c2.radio("Our tf", list(TF), format_func=TF.__getitem__, key="text.tf", horizontal=True,
                  bind="query-params", help="Which term frequency our column uses (idf is ln(n/df) either way).")
    with c3:
        top = ranged_slider("Terms listed", 5, 30, 15, key="text.top", bind="query-params")
    table = svc.term_table(ref, min_count, doc, tf, top)
    if table.empty:
        st.info("This document has no word of the vocabulary: lower the min count or pick another document.")
        return
    c1, c2 = st.columns(2)
    plots.show(c1, charts.weights_bars(table, f"Document {doc}: its top {len(table)} terms by our tf · idf"),
               key="text.chart.weights")
    plots.show(c2, charts.idf_curves(svc.idf_curves(ref, min_count), n_docs, table,
                                     "idf against df: ours falls to 0, scikit-learn's to 1"),
               key="text.chart.idf")
    st.dataframe(table, hide_index=True, key="text.tfidf_table",
                 column_config={c: st.column_config.NumberColumn(format="%.4f") for c in
                                ("tf", "idf = ln(n/df)", "tf · idf", "sklearn idf", "sklearn tf-idf",
                                 "ours, unit length", "sklearn − ours (unit length)")})
    gap = svc.sklearn_agreement(ref, min_count)
    st.caption(f"The scikit-learn columns are our code with scikit-learn's formula; scikit-learn's own "
               f"TfidfTransformer on the same counts differs from them by at most {gap:.1e} over the whole "
               "matrix. The last column is the difference the two schemes make per term, once each document's "
               "vector has length 1: frequent terms (small idf) lose weight under ours, since ln(n/df) falls to "
               "0 where scikit-learn's idf stays at 1 or more.")


@st.fragment
def dot_section(ref, min_count):
    st.markdown(
        "A sparse row is a sorted list of (index, value) pairs. Two rows are multiplied by walking both lists "
        "at once: where the indices agree, multiply and add; otherwise move on in the list with the smaller "
        "index. Each comparison moves at least one counter, so the walk takes at most |a| + |b| steps, "
        "whatever the vocabulary size V; a dense dot multiplies all V pairs, almost all of them 0 · 0.")
    st.latex(r"\langle a, b\rangle = \sum_{t \in \mathrm{idx}(a) \cap \mathrm{idx}(b)} a_t\, b_t,\qquad "
             r"\text{comparisons} \le |a| + |b| - |\mathrm{idx}(a) \cap \mathrm{idx}(b)| \ \ll\ V")
    if n_docs < 2:
        st.info("An inner product needs two documents; this corpus has one.")
        return
    c1, c2 = st.columns(2)
    a = c1.selectbox("Document a", list(range(n_docs)), index=0, format_func=names.__getitem__, key="text.a",
                     bind="query-params")
    b = c2.selectbox("Document b", list(range(n_docs)), index=1, format_func=names.__getitem__, key="text.b",
                     bind="query-params")
    info = svc.pair(ref, min_count, a, b)
    m = st.columns(5)
    m[0].metric("|a|, |b| (stored entries)", f"{info['|a|']:,}, {info['|b|']:,}")
    m[1].metric("merge comparisons", f"{info['steps']:,}")
    m[2].metric("shared terms (multiplications)", f"{info['matches']:,}")
    m[3].metric("⟨a, b⟩ by the merge", f"{info['dot']:,.0f}")
    m[4].metric("dense dot over V", f"{info['dense dot']:,.0f}", help=f"{info['vocabulary']:,} multiplications.")
    c1, c2 = st.columns(2)
    plots.show(c1, charts.merge_ops(info, f"Operations for documents {a} and {b}, V = {info['vocabulary']:,}"),
               key="text.chart.ops")
    sample = svc.pairs_sample(ref, min_count, ref.seed)
    plots.show(c2, charts.merge_scatter(sample, (info["|a|"] + info["|b|"], info["steps"]),
                                        f"{len(sample)} random pairs: the merge never passes |a| + |b|"),
               key="text.chart.pairs")
    st.caption(f"Counts are whole numbers, so the merge's ⟨a, b⟩ equals the dense one exactly here "
               f"(difference {abs(info['dot'] - info['dense dot']):g}); over the random pairs the largest "
               f"difference from scipy's sparse product is {sample['off the sparse product'].max():g}, and the "
               f"most comparisons any pair needed is {sample['steps'].max():,}, against V = {info['vocabulary']:,}.")
    with st.expander("Kept as dictionaries: min(|a|, |b|) lookups", expanded=True):
        st.latex(r"\langle a, b\rangle = \sum_{t \in \mathrm{keys}(s)} s[t] \cdot \ell.\mathrm{get}(t, 0)")
        st.latex(r"s = \text{the smaller},\ \ell = \text{the larger}:\quad \min(|a|, |b|)\ \text{lookups}")
        smaller = st.toggle("Walk the smaller dictionary", value=True, key="text.dict_smaller", bind="query-params",
                            help="Off: walk a's dictionary whatever its size, |a| lookups.")
        d = sp_svc.dict_pair(ref, min_count, a, b, smaller)
        m = st.columns(3)
        m[0].metric("dictionary lookups", f"{d['lookups']:,}", help="Each an expected O(1) hash-map lookup.")
        m[1].metric("merge comparisons (above)", f"{info['steps']:,}")
        m[2].metric("⟨a, b⟩ by the dictionaries", f"{d['dot']:,.0f}")
        over = sp_svc.dict_sample(ref, min_count, ref.seed, smaller)
        if over:
            st.caption(f"Each document's counts as a dictionary {{term: count}}, as a program keeps them while "
                       f"counting. Over the same {over['pairs']} random pairs: {over['lookups']:,.1f} lookups on "
                       f"average against {over['steps']:,.1f} merge comparisons (at most {over['most lookups']:,}), "
                       + ("the same inner products." if over["exact"] else "with different inner products.")
                       + " A lookup hashes the term, which costs more than comparing two integers: fewer steps, "
                       "not always less time. The merge needs both lists sorted; the dictionary needs neither.")


@st.fragment
def ngram_section(ref):
    st.markdown(
        "An **n-gram** is n consecutive words; a document of m words has m − n + 1 of them. Longer n-grams "
        "keep some word order and meaning (\"New York\", \"not good\"), but most of them are seen only once, "
        "so the vocabulary grows almost as fast as the text and few documents share a column.")
    st.latex(r"\text{n-grams of } d = (w_1 \ldots w_n),\ (w_2 \ldots w_{n+1}),\ \ldots,\ "
             r"(w_{m-n+1} \ldots w_m)")
    max_n = st.slider("Largest n", 1, svc.MAX_N, 3, key="text.max_n", bind="query-params",
                      help="Curves for n = 1 up to this n.")
    table = svc.growth(ref, ref.seed)
    table = table[table["n"] <= max_n]
    c1, c2 = st.columns(2)
    plots.show(c1, charts.growth_curves(table, "distinct", "distinct n-grams (vocabulary size)",
                                        "Vocabulary growth as the corpus is read", log_y=True),
               key="text.chart.growth")
    plots.show(c2, charts.growth_curves(table, "share seen once", "share of distinct n-grams seen once",
                                        "Share of the vocabulary seen exactly once"), key="text.chart.once")
    full = table[table["share"] == table["share"].max()]
    st.dataframe(full[["n", "n-grams", "distinct", "seen once", "share seen once"]], hide_index=True,
                 key="text.ngram_table", column_config={"share seen once": st.column_config.NumberColumn(
                     format="%.3f")})
    cols = st.columns(max_n)
    for n, col in zip(range(1, max_n + 1), cols):
        col.caption(f"Most frequent {n}-grams")
        col.dataframe(svc.top_ngrams(ref, n), hide_index=True, key=f"text.top_ngrams_{n}")
    st.caption("The documents are read in a random order (the sidebar's seed); n-grams never cross from one "
               "document into the next. Every token counts here, whatever the min count. Stop words dominate the "
               "frequent n-grams: nothing here removes them.")


def hashing_section(ref, min_count):
    st.markdown(
        "**Feature hashing** skips the vocabulary: a hash function h sends each term to one of m buckets, a "
        "second one g gives it a sign, and the vector has m entries whatever the corpus. Two terms in one "
        "bucket collide: their counts are added. With the signs, a collision adds ± a product to an inner "
        "product, 0 on average; without them it only adds. The hash is scikit-learn's (MurmurHash3 of the "
        "term, bucket |h| mod m, sign of h), seeded by the sidebar's seed (0 is scikit-learn's own).")
    equations(st, r"\phi(u)_j = \sum_{t:\ h(t) = j} g(t)\, u_t,\qquad "
              r"\mathbb{E}\,\langle \phi(u), \phi(v)\rangle = \langle u, v\rangle",
              r"P(\text{a term shares its bucket}) = 1 - \left(1 - \tfrac{1}{m}\right)^{V-1}")
    table = svc.collisions(ref, min_count)
    dist = svc.distortion(ref, min_count)
    c1, c2 = st.columns(2)
    plots.show(c1, charts.collisions(table, None, "Colliding terms, against 1 − (1 − 1/m)^(V−1)"),
               key="text.chart.collisions")
    if len(dist):
        plots.show(c2, charts.distortion(dist, None, f"Hashed cosines: {int(dist['pairs'].iloc[0]):,} pairs of "
                                                     "tf-idf rows"), key="text.chart.distortion")
        st.caption(f"All pairs of up to {svc.N_HASH_DOCS} documents drawn at random (the sidebar's seed), their "
                   "tf-idf rows scaled to length 1: the exact inner product is their cosine.")
    hashing_detail(ref, min_count)
    svm_on_hashes()


@st.fragment
def svm_on_hashes():
    with st.expander("An SVM on hashed features", expanded=True):
        st.markdown("A linear SVM needs its data only through inner products, so it works on sparse vectors as they "
                    "are, and on hashed ones as long as hashing keeps the inner products. Data: gensim's 200 "
                    "Usenet posts (atheism, space), tf-idf rows; the vocabulary or the hashing, the tf-idf weights "
                    "and the SVM (C = 1) are all fitted inside each training fold, 5 folds repeated twice.")
        st.latex(r"\hat y(x) = \operatorname{sign}\Big(\sum_{i:\,\alpha_i \ne 0} \alpha_i y_i "
                 r"\langle x_i, x\rangle + b\Big),\qquad \langle x_i, x\rangle \to "
                 r"\langle \phi(x_i), \phi(x)\rangle")
        signed = st.toggle("Random signs g(t)", value=True, key="text.svm_signed", bind="query-params",
                           help="Off: colliding terms only add, and every collision inflates an inner product.")
        seed = data_service.seed()
        table = sp_svc.svm_result(signed, seed)
        if st.button("Run the SVM at every width", key="text.svm_run",
                     help="Eight representations x ten folds, seconds; kept on this server for everyone."):
            with st.spinner("Fitting the SVMs..."):
                table = sp_svc.run_svm(signed, seed)
        if table is None:
            st.caption("Press the button to fit the SVM on the vocabulary and on 2^4 to 2^16 buckets.")
            return
        st.dataframe(table, hide_index=True, key="text.svm_table",
                     column_config={"accuracy": st.column_config.NumberColumn(format="%.3f"),
                                    "sd": st.column_config.NumberColumn("sd over folds", format="%.3f"),
                                    "diff": st.column_config.NumberColumn("vs unhashed", format="%+.3f"),
                                    "diff sd": st.column_config.NumberColumn("its sd over folds", format="%.3f")})
        full = table.iloc[0]
        close = table[(table.index > 0) & (table["diff"].abs() <= table["diff sd"])]
        first = close.iloc[0] if len(close) else None
        st.caption(f"The vocabulary has {full['width']:,} words; "
                   + (f"the fewest buckets whose SVM is within one fold spread of it are {first['width']:,} "
                      f"({first['accuracy']:.3f} against {full['accuracy']:.3f})" if first is not None else
                      "no width here comes within one fold spread of it")
                   + ". With too few buckets unrelated words share columns and accuracy falls. The folds overlap "
                   "(repeated cross-validation), so read the spreads as a guide, not an interval.")


@st.fragment
def hashing_detail(ref, min_count):
    bits = st.slider("Bucket bits b (m = 2^b)", svc.HASH_BITS[0], svc.HASH_BITS[-1], 10, key="text.bits",
                     bind="query-params")
    table = svc.collisions(ref, min_count)
    row = table[table["bits"] == bits].iloc[0]
    dist = svc.distortion(ref, min_count)
    m = st.columns(4)
    m[0].metric("buckets m", f"{int(row['buckets']):,}", help=f"For V = {int(row['terms']):,} terms.")
    m[1].metric("terms sharing a bucket", f"{row['colliding share']:.1%}",
                help=f"Expected for a uniform hash: {row['expected colliding share']:.1%}.")
    m[2].metric("buckets used", f"{int(row['buckets used']):,}",
                help=f"Expected: {row['expected buckets used']:,.0f}.")
    if len(dist):
        d = dist[dist["bits"] == bits].iloc[0]
        m[3].metric("RMS error of a cosine (signed)", f"{d['rmse (signed)']:.4f}",
                    help=f"Unsigned: {d['rmse (unsigned)']:.4f}, mean error {d['bias (unsigned)']:+.4f}.")
    st.caption(f"At b = {bits}, {row['colliding share']:.1%} of the {int(row['terms']):,} terms share a bucket "
               f"(expected {row['expected colliding share']:.1%}). The most crowded buckets:")
    st.dataframe(svc.crowded_buckets(ref, min_count, bits), hide_index=True, key="text.buckets")


def lsa_section(ref, min_count):
    st.markdown(
        "**LSA** keeps the k largest singular values of the weighted document-term matrix A and their "
        "vectors: U_k holds documents against k concepts, V_k terms against the same concepts, Σ_k how strong "
        "each concept is. A document is drawn at its row of U_k Σ_k (= A V_k, its projection on the "
        "concepts) and a term at its row of V_k Σ_k (= A^T U_k), the same scaling on both sides, so the two "
        "share axes. The columns of V are the eigenvectors of A^T A, with eigenvalues σ².")
    st.latex(r"A \approx A_k = U_k \Sigma_k V_k^\top,\qquad \text{documents } U_k\Sigma_k = A V_k,\quad "
             r"\text{terms } V_k\Sigma_k = A^\top U_k,\qquad A^\top A = V \Sigma^2 V^\top")
    most = svc.max_concepts(ref, min_count)
    if most < 2:
        st.info("LSA needs at least two documents and two terms: lower the min count or give more text.")
        return
    weighting = st.radio("Weighting of A", list(svc.WEIGHTINGS), format_func=svc.WEIGHTINGS.__getitem__,
                         key="text.weighting", horizontal=True, bind="query-params",
                         help=f"The matrix factorised; its first {most} concepts are computed once per weighting.")
    concept_plane(ref, min_count, weighting, most)
    concept_table(ref, min_count, weighting, most)
    geo = svc.geometry(ref, min_count, weighting, most)
    c1, c2 = st.columns(2)
    plots.show(c1, charts.svd_check(geo, "σ² from the SVD against the eigenvalues of A^T A"),
               key="text.chart.svd_check")
    plots.show(c2, charts.energy(svc.energy(ref, min_count, weighting), None,
                                 "Energy kept by the first k concepts (share of ||A||²_F)"), key="text.chart.energy")
    st.caption(f"Checked on all {most} concepts computed: the eigenvalues of A^T A (a symmetric eigen-solver on "
               f"A^T A, not the SVD) match σ² to a relative {geo['relative difference'].max():.1e} of σ₁², and "
               f"‖A^T A v_i − σ_i² v_i‖ ≤ {geo['residual'].max():.1e} · σ₁² for the SVD's own v_i.")


@st.fragment
def concept_plane(ref, min_count, weighting, most):
    choices = list(range(1, most + 1))
    c1, c2, c3 = st.columns([2, 1, 1])
    SCALES = {"sigma": "V_k Σ_k", "unit": "V_k"}
    scale = c1.radio("Terms at", list(SCALES), format_func=SCALES.__getitem__, key="text.term_scale",
                     horizontal=True, bind="query-params",
                     help="V_k Σ_k scales terms as the documents are scaled; V_k leaves each concept's term weights "
                          "at unit length, so that a document's point · a term's point is A_k's entry.")
    cx = c2.selectbox("x: concept", choices, index=0, key="text.cx", bind="query-params")
    cy = c3.selectbox("y: concept", choices, index=1, key="text.cy", bind="query-params")
    plot = svc.concept_plot(ref, min_count, weighting, cx, cy, scale == "sigma")
    xy, style = charts.concept_map(plot, cx, cy, SCALES[scale])
    lab_map.draw(st, xy, key="text.lsa.map", height=560, align=False,  # the axes are the concepts: never turned
                 title=f"Documents (U_k Σ_k) and the {len(plot['term names'])} terms furthest out ({SCALES[scale]}), "
                       f"concepts {cx} and {cy}", **style)
    if scale == "sigma":
        st.caption("Both are scaled by Σ_k: a term far along a concept weighs much in it, a document far along it "
                   "holds much of it. The inner product of a document and a term point is then not the matrix "
                   "entry; read directions, not exact positions.")
    else:
        st.caption("Terms at V_k: the inner product of a document's point and a term's point, summed over all k "
                   "concepts kept, is the rank-k matrix's entry A_k[d, t] (the plane shows two of them). The terms' "
                   "scale differs from the documents': compare directions across the two, lengths within each.")


@st.fragment
def concept_table(ref, min_count, weighting, most):
    c1, c2 = st.columns([3, 1])
    with c1:
        k = ranged_slider("Concepts k", 2, most, min(10, most), key="text.k", bind="query-params",
                          why="the matrix has two documents or two terms",
                          help="Concepts kept: the rank of A_k, the rows of the table and the export.")
    c2.metric(f"||A_k||² / ||A||² at k = {k}", f"{float(svc.energy(ref, min_count, weighting)[k - 1]):.1%}",
              help="The share of the matrix's energy (sum of squared entries) the first k concepts keep.")
    st.markdown(f"**Top terms of the first {k} concepts** (sign fixed so the heaviest term is positive)")
    terms = svc.concept_terms(ref, min_count, weighting, k)
    # the figures first and the long lists of terms after them, which wrap: no column is cut at the right edge
    words = [c for c in terms.columns if str(c).endswith("terms")]
    terms = terms[[c for c in terms.columns if c not in words] + words]
    terms = terms.assign(**{c: terms[c].map("{:.3f}".format) for c in ("σ", "share of ||A||²")})
    st.table(terms, hide_index=True)


tab_sections({
    "Bag of words": lambda: bag_section(ref, min_count),
    "TF and IDF": lambda: tfidf_section(ref, min_count),
    "Sparse inner products": lambda: dot_section(ref, min_count),
    "N-grams": lambda: ngram_section(ref),
    "Feature hashing": lambda: hashing_section(ref, min_count),
    "LSA": lambda: lsa_section(ref, min_count),
}, key="text.tab", where=main)


def tell_the_tour() -> None:
    """The figures the tour's sentences state, for the tab on show at its controls' values."""
    state = st.session_state
    tab = state.get("text.tab") or "Bag of words"
    if tab == "Bag of words":
        tour.tell("text", **svc.bag_facts(ref, min_count, int(state.get("text.first", 0)),
                                          int(state.get("text.rows", 10)), int(state.get("text.cols", 20))))
    elif tab == "TF and IDF":
        tour.tell("text", listed=int(state.get("text.top", 15)),
                  **svc.tfidf_facts(ref, min_count, int(state.get("text.doc", 0)), state.get("text.tf", "frequency")))
    elif tab == "Feature hashing":
        tour.tell("text", **svc.hashing_facts(ref, min_count, int(state.get("text.bits", 10))))


if tour.current("text") is not None:
    tell_the_tour()
with main:
    theory_box = theory(key="text.theory")
with theory_box:
    if theory_box.open:  # written only while open: a new min count or data set redraws the page
        intro()
        controls_text()

most_now = svc.max_concepts(ref, min_count)
k_now = min(max(int(st.session_state.get("text.k", 10)), 2), most_now)
weighting_now = st.session_state.get("text.weighting", "tfidf")
if most_now >= 2:
    share.panel("text", reproduce.lazy(lambda: svc.recipe(ref, min_count, weighting_now, k_now)),
                uploaded=source == "upload",
                what=f"the vocabulary, document frequencies, idf, and LSA's {k_now} singular values and document "
                     "coordinates")
else:
    share.panel("text", None, what="Nothing to reproduce: LSA needs at least two documents and two terms.")
