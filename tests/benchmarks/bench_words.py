"""PMI-SVD word vectors on gensim's head500 corpus against Word2Vec trained on the same tokens."""

from __future__ import annotations

import time

import numpy as np

from embedcore.datasets import load_corpus, load_word_pairs
from embedcore.maps import embed
from embedcore.words import PMIWordVectors, evaluate_word_pairs, tokenize, train_word2vec
from tests.benchmarks.harness import Result, best_of


def run() -> list[Result]:
    docs = [tokenize(d) for d in load_corpus("head500").documents]
    n_tokens = sum(map(len, docs))
    params = dict(window=2, alpha=0.75, shift=1.0, n_components=100, min_count=3, random_state=0)
    fit = best_of(lambda: PMIWordVectors(**params).fit(docs), repeat=3)
    wv = PMIWordVectors(**params).fit(docs)
    pairs = load_word_pairs("wordsim353")
    ours = evaluate_word_pairs(wv, pairs)
    results = []
    t = time.perf_counter()
    cbow = train_word2vec(docs, sg=False, vector_size=100, window=2, min_count=3)
    t_cbow = time.perf_counter() - t
    t = time.perf_counter()
    sg = train_word2vec(docs, sg=True, vector_size=100, window=2, min_count=3)
    t_sg = time.perf_counter() - t
    r_cbow, r_sg = evaluate_word_pairs(cbow, pairs), evaluate_word_pairs(sg, pairs)
    results.append(Result(f"PMI-SVD fit, head500 ({n_tokens:,} tokens, min count 3)", fit,
                          "gensim Word2Vec CBOW fit", t_cbow,
                          f"limit 3 s; skip-gram {t_sg:.2f} s; WordSim-353 Spearman: ours {ours.spearman:.3f}, "
                          f"CBOW {r_cbow.spearman:.3f}, skip-gram {r_sg.spearman:.3f} "
                          f"({ours.pairs_used} pairs in vocabulary)"))
    t = time.perf_counter()
    embed(wv.normed_[:2000], "tsne", perplexity=30.0, n_iter=500, random_state=0)
    results.append(Result("t-SNE map of the 2,000 most frequent words", time.perf_counter() - t, "", None,
                          "first layout, limit 10 s"))
    words = list(wv.words_[:100])
    per_query = best_of(lambda: [wv.most_similar(w, 20) for w in words], repeat=3) / len(words)
    results.append(Result(f"nearest 20 words over {len(wv.words_):,}", per_query, "", None,
                          f"{per_query * 1000:.2f} ms per query, limit 50 ms"))
    return results
