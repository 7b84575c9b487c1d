"""Cached stages of the Words page's "From windows to vectors" tab: the raw counts factorised beside PMI,
the training examples CBOW and skip-gram draw from a sentence, and a small skip-gram trained on the corpus.

The raw factorisation uses the counts and vocabulary of the PMI-SVD the page shows (same window, context,
weighting, min count, dimensions and eigenvalue weight), so the two differ only in PMI. A skip-gram is
trained from a button and kept for every session with the same corpus and settings.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app.services import data as data_service
from app.services import shared
from app.services import words as words_service
from embedcore.tokens import tokenize
from embedcore.word_windows import (
    count_vectors,
    example_counts,
    frequency_pull,
    sentences,
    window_examples,
)
from embedcore.words import cooccurrence, train_word2vec

#: The frequent words whose share among everyone's nearest words measures the pull of frequency.
FREQUENT = 50
#: Nearest words listed for each method.
TOPN = 10
#: Sentences of a document offered, and the epochs of the page's skip-gram.
MAX_SENTENCES, SKIPGRAM_EPOCHS = 40, 10


@st.cache_resource(max_entries=6, show_spinner=False)
def raw(ref: data_service.DataRef, params: tuple):
    """The co-occurrence counts behind the page's PMI-SVD, factorised A = E D E^T (read-only, shared)."""
    p = dict(params)
    wv = words_service.vectors(ref, params)
    words = pd.Index(wv.words_)
    A = cooccurrence(words_service.tokens(ref), words, window=p["window"], context=p["context"],
                     weighted=p["weighted"])
    k = min(int(wv.normed_.shape[1]), len(words) - 1)
    return count_vectors(A, words, k, eig_weight=float(p["eig_weight"]))


@st.cache_data(max_entries=12, show_spinner=False)
def pulls(ref: data_service.DataRef, params: tuple) -> dict:
    """How much frequency rules each method: the frequent words' share among every word's nearest words."""
    cv = raw(ref, params)
    wv = words_service.vectors(ref, params)
    first = abs(pd.Series(cv.vectors[:, 0])).corr(pd.Series(cv.counts))
    return {"raw": frequency_pull(cv.vectors, cv.counts, topn=TOPN, frequent=FREQUENT),
            "pmi": frequency_pull(wv.normed_, cv.counts, topn=TOPN, frequent=FREQUENT),
            "chance": FREQUENT / len(cv.words), "first": float(first), "k": cv.vectors.shape[1]}


@st.cache_data(max_entries=32, show_spinner=False)
def side_by_side(ref: data_service.DataRef, params: tuple, word: str) -> pd.DataFrame:
    """The nearest words of ``word`` under raw counts and under PMI, rank by rank."""
    raw_near = raw(ref, params).most_similar(word, TOPN)
    pmi_near = words_service.vectors(ref, params).most_similar(word, TOPN)
    n = min(len(raw_near), len(pmi_near))  # a small vocabulary has fewer than TOPN other words
    raw_near, pmi_near = raw_near.iloc[:n], pmi_near.iloc[:n]
    return pd.DataFrame({"rank": range(1, n + 1),
                         "raw counts": raw_near["word"].to_numpy(), "its count": raw_near["count"].to_numpy(),
                         "PMI": pmi_near["word"].to_numpy(), "its count ": pmi_near["count"].to_numpy()})


@st.cache_data(max_entries=12, show_spinner=False)
def document_sentences(ref: data_service.DataRef, doc: int) -> list[str]:
    """The first sentences of document ``doc``."""
    return sentences(data_service.load(ref).documents[doc])[:MAX_SENTENCES]


@st.cache_data(max_entries=32, show_spinner=False)
def examples(ref: data_service.DataRef, params: tuple, doc: int, sentence: int, window: int):
    """(CBOW examples, skip-gram examples, the sentence's tokens, the tokens dropped) of one sentence."""
    text = document_sentences(ref, doc)[sentence]
    tokens = tokenize(text)
    vocabulary = set(words_service.vectors(ref, params).words_)
    cbow, sg = window_examples(tokens, window, vocabulary)
    return cbow, sg, tokens, [t for t in tokens if t not in vocabulary]


@st.cache_data(max_entries=12, show_spinner=False)
def corpus_examples(ref: data_service.DataRef, params: tuple, window: int) -> tuple[int, int]:
    """(CBOW examples, skip-gram pairs) in one pass over the corpus at this window, rare words dropped."""
    vocabulary = set(words_service.vectors(ref, params).words_)
    lengths = [sum(t in vocabulary for t in doc) for doc in words_service.tokens(ref)]
    return example_counts(lengths, window)


def _skipgrams() -> shared.SharedStore:
    return shared.store("words.skipgram", 8)


def skipgram_key(ref: data_service.DataRef, params: tuple, window: int) -> tuple:
    p = dict(params)
    return (ref, int(p["n_components"]), int(window), int(p["min_count"]), int(p["random_state"]))


def skipgram(key: tuple):
    """The skip-gram trained for these settings, if anyone has trained it on this server."""
    return _skipgrams().get(key)


def train_skipgram(key: tuple):
    """Train gensim's skip-gram on the corpus's tokens (one thread, the seed) and keep it for everyone."""
    ref, dims, window, min_count, seed = key
    kv = train_word2vec(words_service.tokens(ref), sg=True, vector_size=dims, window=window, min_count=min_count,
                        epochs=SKIPGRAM_EPOCHS, random_state=seed)
    _skipgrams().put(key, kv)
    return kv


def skipgram_nearest(key: tuple, word: str) -> pd.DataFrame | None:
    """The skip-gram's nearest words of ``word`` (None when it has not kept the word)."""
    kv = skipgram(key)
    if kv is None or word not in kv.key_to_index:
        return None
    near = kv.most_similar(word, topn=TOPN)
    return pd.DataFrame({"rank": range(1, len(near) + 1), "skip-gram": [w for w, _ in near],
                         "cosine": [round(float(c), 3) for _, c in near]})
