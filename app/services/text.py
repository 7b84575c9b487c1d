"""Cached stages for the Text page, each keyed on the corpus (a DataRef) and that stage's own settings.

Tokens once per corpus; the document-term counts once per (corpus, min count); tf-idf weights, the
hashes of the vocabulary, the n-gram growth table and the LSA factorisation (at the most concepts the
page offers, with its A^T A check) once per their settings. A live control then only slices or looks
up: the number of concepts takes the first k of the factorisation made once, the bucket bits pick a
row of a table computed for every b. Everything is shared by every session and never mutated.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from app.services import data as data_service
from app.services.reproduce import Recipe
from embedcore import datasets
from embedcore.text import (
    LSA,
    BagOfWords,
    TfIdf,
    bucket_loads,
    colliding_terms,
    collision_table,
    document_frequency,
    hashing_distortion,
    inverse_document_frequency,
    merge_dot,
    merge_pairs,
    ngram_counts,
    ngram_growth,
    sklearn_tfidf,
    sparsity,
    svd_geometry,
    term_frequency,
    term_hashes,
    top_terms,
)
from embedcore.words import tokenize

#: The most concepts LSA keeps (the concept slider slices these).
MAX_CONCEPTS = 30
#: The largest n of the n-gram curves.
MAX_N = 5
#: Bucket bits of the hashing tables: m = 2^b buckets.
HASH_BITS = tuple(range(4, 23))
#: Document pairs whose merge is counted (drawn as a Plotly scatter, which keeps to 200 markers).
N_PAIRS = 200
#: Documents all of whose pairs' hashed inner products are compared.
N_HASH_DOCS = 200
#: Terms drawn on the LSA plot.
PLOT_TERMS = 30
#: The weightings LSA can factorise.
WEIGHTINGS = {"tfidf": "tf-idf (scikit-learn's: f · smooth idf, unit rows)", "counts": "counts f"}


def _frozen(a):
    if isinstance(a, np.ndarray):
        a.flags.writeable = False
    return a


# ---------------------------------------------------------------- the corpus and its bag of words


@st.cache_data(max_entries=6, show_spinner=False)
def tokens(ref: data_service.DataRef) -> list[list[str]]:
    return [tokenize(d) for d in data_service.load(ref).documents]


@st.cache_data(max_entries=6, show_spinner=False)
def openings(ref: data_service.DataRef, width: int = 60) -> list[str]:
    """Each document's number and first words, to name it in a select box."""
    docs = data_service.load(ref).documents
    return [f"{i}: {' '.join(d.split())[:width]}" for i, d in enumerate(docs)]


@st.cache_data(max_entries=6, show_spinner=False)
def labels(ref: data_service.DataRef) -> list[str] | None:
    """The newsgroup of each post when the corpus is the labelled posts, else None."""
    if ref.source != "newsgroups":
        return None
    return datasets.load_mini_newsgroups()[1]


@st.cache_resource(max_entries=8, show_spinner=False)
def bag(ref: data_service.DataRef, min_count: int) -> tuple[pd.Index, object]:
    """The vocabulary (most frequent first) and the (documents x terms) count matrix (shared, read-only)."""
    docs = tokens(ref)
    bow = BagOfWords(min_count=min_count).fit(docs)
    X = bow.transform(docs)
    _frozen(X.data)
    return bow.vocabulary_, X


def vocabulary_size(ref: data_service.DataRef, min_count: int) -> int:
    return len(bag(ref, min_count)[0])


@st.cache_data(max_entries=16, show_spinner=False)
def facts(ref: data_service.DataRef, min_count: int) -> dict:
    """Sizes and sparsity of the count matrix, and the tokens of the corpus."""
    _, X = bag(ref, min_count)
    s = sparsity(X)
    out = {"documents": s.documents, "terms": s.terms, "stored": s.stored, "density": s.density,
           "mean terms per document": s.mean_terms, "dense bytes": s.dense_bytes, "CSR bytes": s.csr_bytes}
    out["tokens"] = int(sum(map(len, tokens(ref))))
    out["tokens kept"] = int(X.sum())
    out["empty documents"] = int((np.diff(X.indptr) == 0).sum())
    return out


def counts_slice(ref: data_service.DataRef, min_count: int, first: int, n_docs: int, n_terms: int) -> pd.DataFrame:
    """Counts of ``n_docs`` documents from ``first`` over the ``n_terms`` most frequent terms (a dense slice)."""
    vocab, X = bag(ref, min_count)
    first = min(max(first, 0), X.shape[0] - 1)
    rows = np.arange(first, min(first + n_docs, X.shape[0]))
    block = X[rows][:, : min(n_terms, X.shape[1])].toarray().astype(np.int64)
    return pd.DataFrame(block, index=[f"doc {i}" for i in rows], columns=list(vocab[: block.shape[1]]))


def bag_facts(ref: data_service.DataRef, min_count: int, first: int, n_docs: int, n_terms: int) -> dict:
    """The matrix's size and share of non-zero cells, and the same share in the slice drawn (with its first three
    terms)."""
    f = facts(ref, min_count)
    table = counts_slice(ref, min_count, first, n_docs, n_terms)
    return {"documents": f["documents"], "terms": f["terms"], "density": float(f["density"]),
            "slice_density": float((table.to_numpy() > 0).mean()), "slice_terms": ", ".join(table.columns[:3])}


@st.cache_data(max_entries=16, show_spinner=False)
def rank_frequency(ref: data_service.DataRef, min_count: int) -> pd.DataFrame:
    """Each term's corpus count and document frequency by rank (Zipf's curve)."""
    vocab, X = bag(ref, min_count)
    counts = np.asarray(X.sum(axis=0)).ravel()
    return pd.DataFrame({"rank": np.arange(1, len(vocab) + 1), "term": list(vocab), "count": counts,
                         "documents": document_frequency(X)})


# ---------------------------------------------------------------- tf and idf


@st.cache_resource(max_entries=16, show_spinner=False)
def tfidf(ref: data_service.DataRef, min_count: int, tf: str, idf: str, norm: str | None):
    """The weighted matrix (shared, read-only)."""
    W = TfIdf(tf=tf, idf=idf, norm=norm).fit_transform(bag(ref, min_count)[1])
    _frozen(W.data)
    return W


@st.cache_data(max_entries=16, show_spinner=False)
def idf_curves(ref: data_service.DataRef, min_count: int) -> pd.DataFrame:
    """idf against document frequency, the plain and the smooth formula, one row per df that occurs."""
    _, X = bag(ref, min_count)
    n = X.shape[0]
    df = np.unique(document_frequency(X))
    return pd.DataFrame({"df": df, "plain": inverse_document_frequency(df, n, "plain"),
                         "smooth": inverse_document_frequency(df, n, "smooth")})


@st.cache_data(max_entries=64, show_spinner=False)
def term_table(ref: data_service.DataRef, min_count: int, doc: int, tf: str, top: int) -> pd.DataFrame:
    """The terms of one document: f, |d|, tf, df, both idfs, both tf-idfs, and how far apart they are."""
    vocab, X = bag(ref, min_count)
    n = X.shape[0]
    row = X[[doc]]
    cols, f = row.indices, row.data
    df = document_frequency(X)[cols]
    tf_ours = term_frequency(row, tf).data
    idf_plain = inverse_document_frequency(df, n, "plain")
    ours = tf_ours * idf_plain
    sk = tfidf(ref, min_count, "count", "smooth", "l2")[[doc]]
    sk_vals = sk.toarray().ravel()[cols]
    table = pd.DataFrame({"term": list(vocab[cols]), "f": f.astype(np.int64), "|d|": int(f.sum()), "tf": tf_ours,
                          "df": df, "idf = ln(n/df)": idf_plain, "tf · idf": ours,
                          "sklearn idf": inverse_document_frequency(df, n, "smooth"), "sklearn tf-idf": sk_vals})
    table["ours, unit length"] = ours / (np.linalg.norm(ours) or 1.0)
    table["sklearn − ours (unit length)"] = table["sklearn tf-idf"] - table["ours, unit length"]
    return table.sort_values(["tf · idf", "f"], ascending=False, kind="stable").head(top).reset_index(drop=True)


@st.cache_data(max_entries=64, show_spinner=False)
def tfidf_facts(ref: data_service.DataRef, min_count: int, doc: int, tf: str) -> dict:
    """One document's commonest term (its count, document frequency and place by our tf · idf among the
    document's terms) and the term tf · idf puts first (its document frequency); empty for an empty document."""
    vocab, X = bag(ref, min_count)
    table = term_table(ref, min_count, doc, tf, X[[doc]].nnz)
    if table.empty:
        return {}
    frequent = int(table["f"].to_numpy().argmax())  # the first of the commonest in the tf · idf order
    return {"doc": int(doc), "documents": int(X.shape[0]), "doc_terms": len(table),
            "frequent": str(table["term"].iloc[frequent]), "frequent_f": int(table["f"].iloc[frequent]),
            "frequent_df": int(table["df"].iloc[frequent]), "frequent_rank": frequent + 1,
            "top": str(table["term"].iloc[0]), "top_df": int(table["df"].iloc[0])}


@st.cache_data(max_entries=16, show_spinner=False)
def sklearn_agreement(ref: data_service.DataRef, min_count: int) -> float:
    """The largest difference between our smooth-idf, unit-row weights and scikit-learn's TfidfTransformer."""
    ours = tfidf(ref, min_count, "count", "smooth", "l2")
    theirs = sklearn_tfidf(bag(ref, min_count)[1])
    return float(abs(ours - theirs).max()) if ours.nnz else 0.0


# ---------------------------------------------------------------- sparse inner products


def pair(ref: data_service.DataRef, min_count: int, a: int, b: int) -> dict:
    """The merge of two documents' count rows against the dense dot over the whole vocabulary."""
    _, X = bag(ref, min_count)
    ra, rb = X[[a]], X[[b]]
    dot, steps, matches = merge_dot(ra.indices, ra.data, rb.indices, rb.data)
    dense = float(ra.toarray().ravel() @ rb.toarray().ravel())
    return {"|a|": ra.nnz, "|b|": rb.nnz, "steps": steps, "matches": matches, "vocabulary": X.shape[1],
            "dot": dot, "dense dot": dense}


@st.cache_data(max_entries=16, show_spinner=False)
def pairs_sample(ref: data_service.DataRef, min_count: int, seed: int) -> pd.DataFrame:
    """The merge's steps for :data:`N_PAIRS` random pairs of documents, with the dense dot's difference."""
    _, X = bag(ref, min_count)
    n = X.shape[0]
    if n < 2:
        return pd.DataFrame(columns=["a", "b", "|a|", "|b|", "steps", "matches", "dot", "|a| + |b|"])
    rng = np.random.default_rng(seed)
    a = rng.integers(0, n, N_PAIRS)
    b = rng.integers(0, n - 1, N_PAIRS)
    b += b >= a
    table = merge_pairs(X, a, b)
    table["|a| + |b|"] = table["|a|"] + table["|b|"]
    dense = np.asarray(X[a].multiply(X[b]).sum(axis=1)).ravel()
    table["off the sparse product"] = np.abs(table["dot"].to_numpy() - dense)
    return table


# ---------------------------------------------------------------- n-grams


@st.cache_data(max_entries=8, show_spinner=False)
def growth(ref: data_service.DataRef, seed: int) -> pd.DataFrame:
    """Distinct n-grams and the share seen once, n = 1 .. MAX_N, at 20 shares of the corpus (random order)."""
    return ngram_growth(tokens(ref), max_n=MAX_N, points=20, random_state=seed)


@st.cache_data(max_entries=32, show_spinner=False)
def top_ngrams(ref: data_service.DataRef, n: int, top: int = 8) -> pd.DataFrame:
    counts = ngram_counts(tokens(ref), n, top)
    return pd.DataFrame({"n-gram": list(counts.index), "count": counts.to_numpy()})


# ---------------------------------------------------------------- feature hashing


@st.cache_resource(max_entries=16, show_spinner=False)
def hashes(ref: data_service.DataRef, min_count: int) -> np.ndarray:
    """MurmurHash3 of every term, with the sidebar's seed (0: scikit-learn's hash)."""
    return _frozen(term_hashes(bag(ref, min_count)[0], seed=ref.seed))


@st.cache_data(max_entries=16, show_spinner=False)
def collisions(ref: data_service.DataRef, min_count: int) -> pd.DataFrame:
    return collision_table(hashes(ref, min_count), HASH_BITS)


@st.cache_data(max_entries=16, show_spinner=False)
def distortion(ref: data_service.DataRef, min_count: int) -> pd.DataFrame:
    """Hashed cosines of tf-idf rows against the exact ones, per b, signed and unsigned."""
    W = tfidf(ref, min_count, "count", "smooth", "l2")
    if W.shape[0] < 2:
        return pd.DataFrame()
    return hashing_distortion(W, hashes(ref, min_count), HASH_BITS, n_documents=N_HASH_DOCS,
                              random_state=ref.seed)


#: The bucket bits the hashing step compares with: more buckets than the Lee articles have terms.
WIDE_BITS = 16


def hashing_facts(ref: data_service.DataRef, min_count: int, bits: int) -> dict:
    """At m = 2^bits buckets: the terms, the fewest, median and most terms a bucket holds, and the RMS error of a
    hashed cosine (signed) against the mean cosine and the error at 2^WIDE_BITS buckets."""
    load = bucket_loads(hashes(ref, min_count), 2**int(bits))
    out = {"bits": int(bits), "buckets": 2**int(bits), "terms": vocabulary_size(ref, min_count),
           "fewest": int(load.min()), "median": float(np.median(load)), "most": int(load.max())}
    dist = distortion(ref, min_count)
    if len(dist):
        at = dist.set_index("bits")
        out.update(rmse=float(at.loc[int(bits), "rmse (signed)"]), mean_cosine=float(at["mean cosine"].iloc[0]),
                   wide_bits=WIDE_BITS, rmse_wide=float(at.loc[WIDE_BITS, "rmse (signed)"]))
    return out


@st.cache_data(max_entries=64, show_spinner=False)
def crowded_buckets(ref: data_service.DataRef, min_count: int, bits: int) -> pd.DataFrame:
    return colliding_terms(bag(ref, min_count)[0], hashes(ref, min_count), 2**bits, top=8)


# ---------------------------------------------------------------- LSA


def max_concepts(ref: data_service.DataRef, min_count: int) -> int:
    _, X = bag(ref, min_count)
    return min(MAX_CONCEPTS, *X.shape)


def lsa_matrix(ref: data_service.DataRef, min_count: int, weighting: str):
    return bag(ref, min_count)[1] if weighting == "counts" else tfidf(ref, min_count, "count", "smooth", "l2")


@st.cache_resource(max_entries=16, show_spinner=False)
def lsa(ref: data_service.DataRef, min_count: int, weighting: str) -> dict:
    """LSA at the most concepts offered, with the A^T A check (shared, read-only)."""
    A = lsa_matrix(ref, min_count, weighting)
    model = LSA(n_components=max_concepts(ref, min_count), random_state=ref.seed).fit(A)
    for name in ("components_", "singular_values_", "document_coordinates_"):
        _frozen(getattr(model, name))
    return {"model": model, "geometry": svd_geometry(A, model, random_state=ref.seed),
            "terms": _frozen(model.term_coordinates())}


def concept_plot(ref: data_service.DataRef, min_count: int, weighting: str, cx: int, cy: int,
                 scaled: bool = True) -> dict:
    """Documents and the terms that reach furthest in the plane of concepts ``cx`` and ``cy`` (1-based); terms at
    V_k Σ_k when ``scaled``, else at V_k."""
    fit = lsa(ref, min_count, weighting)
    D = fit["model"].document_coordinates_[:, [cx - 1, cy - 1]]
    T = (fit["terms"] if scaled else fit["model"].components_.T)[:, [cx - 1, cy - 1]]
    reach = np.hypot(T[:, 0], T[:, 1])
    keep = np.argsort(-reach, kind="stable")[:PLOT_TERMS]
    vocab = bag(ref, min_count)[0]
    return {"documents": D, "opening": [t.split(": ", 1)[-1] for t in openings(ref)], "labels": labels(ref),
            "terms": T[keep], "term names": [str(v) for v in vocab[keep]]}


@st.cache_data(max_entries=64, show_spinner=False)
def concept_terms(ref: data_service.DataRef, min_count: int, weighting: str, k: int) -> pd.DataFrame:
    fit = lsa(ref, min_count, weighting)
    table = top_terms(_first(fit["model"], k), bag(ref, min_count)[0], top=8)
    table["share of ||A||²"] = (fit["model"].singular_values_[:k] ** 2) / fit["model"].total_energy_
    return table


def _first(model: LSA, k: int) -> LSA:
    """A view of the fitted model keeping its first k concepts (the top terms of only those are sorted)."""
    view = LSA(n_components=k, random_state=model.random_state)
    view.components_, view.singular_values_ = model.components_[:k], model.singular_values_[:k]
    view.document_coordinates_, view.total_energy_ = model.document_coordinates_[:, :k], model.total_energy_
    return view


def energy(ref: data_service.DataRef, min_count: int, weighting: str) -> np.ndarray:
    return lsa(ref, min_count, weighting)["model"].energy()


def geometry(ref: data_service.DataRef, min_count: int, weighting: str, k: int) -> pd.DataFrame:
    return lsa(ref, min_count, weighting)["geometry"].head(k)


# ---------------------------------------------------------------- export


def recipe(data: data_service.DataRef, min_count: int, weighting: str, k: int) -> Recipe:
    """The vocabulary, document frequencies, plain idf, singular values and the documents' concept coordinates,
    and the embedcore code that computes them again."""
    vocab, X = bag(data, min_count)
    model = lsa(data, min_count, weighting)["model"]
    K = max_concepts(data, min_count)
    df = document_frequency(X)
    arrays = {"terms": np.asarray(list(vocab), dtype=str), "document_frequency": df,
              "idf": inverse_document_frequency(df, X.shape[0]), "singular_values": model.singular_values_[:k],
              "document_coordinates": model.document_coordinates_[:, :k]}
    weigh = ("A = X" if weighting == "counts" else
             'A = TfIdf(tf="count", idf="smooth", norm="l2").fit_transform(X)')
    code = f"""
        from embedcore.text import LSA, BagOfWords, TfIdf, document_frequency, inverse_document_frequency

        bow = BagOfWords(min_count={min_count}).fit(data.documents)
        X = bow.transform(data.documents)
        df = document_frequency(X)
        {weigh}
        lsa = LSA(n_components={K}, random_state={data.seed}).fit(A)
        result = {{"terms": np.asarray(list(bow.vocabulary_), dtype=str), "document_frequency": df,
                  "idf": inverse_document_frequency(df, X.shape[0]),
                  "singular_values": lsa.singular_values_[:{k}],
                  "document_coordinates": lsa.document_coordinates_[:, :{k}]}}
        """
    params = {"min_count": min_count, "weighting": weighting, "concepts": k, "concepts computed": K,
              "seed": data.seed}
    return Recipe("text", f"bag of words and LSA of {data.source} ({k} concepts, {weighting})", arrays, params, data,
                  code, compare={"terms": "exact", "document_frequency": "exact", "idf": "close",
                                 "singular_values": "close", "document_coordinates": "columns up to sign"},
                  rtol=1e-6, atol=1e-8)
