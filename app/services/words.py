"""Cached stages for the Words page: tokens once per corpus, vectors once per setting,
maps once per (vectors, method, parameters), evaluations once per setting."""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import streamlit as st

from embedcore import datasets
from embedcore.maps import embed
from embedcore.words import (
    LabelEmbedding,
    PMIWordVectors,
    build_vocabulary,
    evaluate_word_pairs,
    tokenize,
    train_word2vec,
    tune_and_compare,
)


@st.cache_data(max_entries=6, show_spinner=False)
def tokens(corpus_key: str, _documents=None) -> list[list[str]]:
    return [tokenize(d) for d in _documents]


@st.cache_data(max_entries=24, show_spinner=False)
def vocabulary_size(corpus_key: str, min_count: int, _docs=None) -> int:
    """How many words occur at least ``min_count`` times: the most dimensions an SVD can give is one fewer."""
    return len(build_vocabulary(_docs, min_count))


@st.cache_resource(max_entries=12, show_spinner=False)
def vectors(corpus_key: str, params: tuple, _docs=None) -> PMIWordVectors:
    """A fitted PMIWordVectors (shared across sessions, never mutated)."""
    return PMIWordVectors(**dict(params)).fit(_docs)


@st.cache_data(max_entries=12, show_spinner=False)
def neighbours_table(vec_key: str, n_words: int, _wv=None) -> list[str]:
    """Each of the n most frequent words' five nearest words among the vocabulary (for hover text)."""
    S = _wv.normed_[:n_words] @ _wv.normed_.T
    S[np.arange(n_words), np.arange(n_words)] = -np.inf
    top = np.argpartition(-S, 5, axis=1)[:, :5]
    order = np.take_along_axis(S, top, axis=1).argsort(axis=1)[:, ::-1]
    top = np.take_along_axis(top, order, axis=1)
    words = np.asarray(_wv.words_, dtype=object)
    return [", ".join(words[row]) for row in top]


@st.cache_data(max_entries=24, show_spinner=False)
def word_map_umap(vec_key: str, n_words: int, n_neighbors: int, min_dist: float, seed: int, _wv=None):
    import umap

    t = time.perf_counter()
    Y = umap.UMAP(n_neighbors=n_neighbors, min_dist=min_dist, metric="cosine", random_state=seed,
                  n_jobs=1).fit_transform(_wv.normed_[:n_words])
    return Y, time.perf_counter() - t


def word_map_tsne(wv: PMIWordVectors, n_words: int, perplexity: float, seed: int, on_layout, progress=None):
    """t-SNE map of the ``n_words`` most frequent words, drawn live: not cached, the page keeps it.

    ``on_layout(Y, iteration)`` sees the layout every few iterations (and may raise to stop it).
    """
    return embed(wv.normed_[:n_words], "tsne", perplexity=float(perplexity), n_iter=500, random_state=seed,
                 progress=progress, on_layout=on_layout).coords


@st.cache_data(max_entries=24, show_spinner=False)
def clusters(vec_key: str, n_words: int, k: int, seed: int, _wv=None) -> np.ndarray:
    from sklearn.cluster import KMeans

    return KMeans(n_clusters=k, n_init=4, random_state=seed).fit_predict(_wv.normed_[:n_words])


@st.cache_data(max_entries=8, show_spinner=False)
def evaluation(corpus_key: str, params: tuple, seed: int, _docs=None, _wv=None, _should_stop=None) -> pd.DataFrame:
    pairs = {name: datasets.load_word_pairs(name) for name in ("wordsim353", "simlex999")}
    p = dict(params)
    rows = []

    def add(name, kv, seconds):
        row = {"method": name, "fit seconds": round(seconds, 2)}
        for pname, df in pairs.items():
            r = evaluate_word_pairs(kv, df)
            row[f"{pname} ρ"] = r["spearman"]
            row[f"{pname} OOV"] = r["oov_rate"]
        rows.append(row)

    add(f"PMI-SVD (window {p['window']}, shift {p['shift']}, α {p['alpha']})", _wv, _wv.fit_seconds_)
    for sg, name in ((False, "Word2Vec CBOW"), (True, "Word2Vec skip-gram")):
        t = time.perf_counter()
        kv = train_word2vec(_docs, sg=sg, vector_size=p["n_components"], window=p["window"],
                            min_count=p["min_count"], random_state=seed, should_stop=_should_stop)
        add(name, kv, time.perf_counter() - t)
    return pd.DataFrame(rows)


@st.cache_data(max_entries=4, show_spinner=False)
def tuning(corpus_key: str, n_components: int, min_count: int, alpha: float, seed: int, _docs=None, _progress=None,
           _should_stop=None):
    """PMI-SVD and Word2Vec each tuned on half the WordSim-353 pairs, scored on the other half."""
    return tune_and_compare(_docs, datasets.load_word_pairs("wordsim353"), n_components=n_components,
                            min_count=min_count, alpha=alpha, random_state=seed, progress=_progress,
                            should_stop=_should_stop)


@st.cache_data(max_entries=4, show_spinner=False)
def document_classification(n_components: int, seed: int) -> pd.DataFrame:
    from sklearn.feature_extraction.text import CountVectorizer, HashingVectorizer, TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold, cross_val_score

    texts, labels = datasets.load_mini_newsgroups()
    y = np.asarray(labels)
    folds = StratifiedKFold(5, shuffle=True, random_state=seed)
    model = LogisticRegression(max_iter=2000)
    wv = PMIWordVectors(n_components=min(n_components, 50), window=5, random_state=seed).fit(texts)
    encodings = {
        "bag of words": lambda: CountVectorizer().fit_transform(texts),
        "uni+bigrams": lambda: CountVectorizer(ngram_range=(1, 2)).fit_transform(texts),
        "TF-IDF": lambda: TfidfVectorizer().fit_transform(texts),
        "feature hashing (2^10)": lambda: HashingVectorizer(n_features=2**10).transform(texts),
        "PMI document vectors (M E, tf-idf)": lambda: wv.transform(texts, weighting="tfidf"),
    }
    rows = []
    for name, make in encodings.items():
        t = time.perf_counter()
        X = make()
        acc = cross_val_score(model, X, y, cv=folds)
        rows.append({"features": name, "accuracy": float(acc.mean()), "std": float(acc.std()), "dim": X.shape[1],
                     "seconds": time.perf_counter() - t})
    return pd.DataFrame(rows)


@st.cache_data(max_entries=8, show_spinner=False)
def label_problem(n_labels: int, n_components: int, seed: int):
    from sklearn.datasets import make_multilabel_classification

    _, Y = make_multilabel_classification(n_samples=1000, n_classes=n_labels, n_labels=3, random_state=seed)
    # fitted (and its decoding threshold chosen) on the first 700 rows; the last 300 are held out
    le = LabelEmbedding(n_components=n_components).fit(Y[:700])
    return Y, le


@st.cache_data(max_entries=4, show_spinner=False)
def exports(vec_key: str, _wv=None) -> dict:
    """The vectors as word2vec text and as an Embedding Projector pair (built once per setting)."""
    words = list(_wv.words_)
    rows = [" ".join(f"{x:.6f}" for x in r) for r in _wv.vectors_]
    return {
        "w2v": f"{len(words)} {_wv.vectors_.shape[1]}\n" + "\n".join(f"{w} {r}" for w, r in zip(words, rows)),
        "tsv": "\n".join(r.replace(" ", "\t") for r in rows),
        "meta": "word\tcount\n" + "\n".join(f"{w}\t{c}" for w, c in zip(words, _wv.counts_.to_numpy())),
    }


@st.cache_data(max_entries=8, show_spinner=False)
def document_map(vec_key: str, seed: int, _wv=None, _docs=None) -> np.ndarray:
    """Document vectors (M W, tf-idf weights) of the given token lists, projected to 2-D by PCA."""
    from sklearn.decomposition import PCA

    D = _wv.transform(_docs, weighting="tfidf")
    return PCA(2, random_state=seed).fit_transform(D) if len(D) >= 3 else np.zeros((len(D), 2))
