"""Counting a corpus: the vocabulary, word-by-word co-occurrences, document frequencies and PMI."""

from __future__ import annotations

from itertools import chain
from numbers import Integral, Real

import numpy as np
import pandas as pd
import scipy.sparse as sp

from .._sparse import flatten, ragged_to_csr


def build_vocabulary(token_docs, min_count: int = 1, max_size: int | None = None) -> pd.Series:
    """Word counts of words seen at least ``min_count`` times, most frequent first (ties alphabetical).

    Examples
    --------
    >>> build_vocabulary([["the", "cat", "sat"], ["the", "dog", "sat"]], min_count=2).to_dict()
    {'sat': 2, 'the': 2}
    """
    return prune_vocabulary(pd.Series(list(chain.from_iterable(token_docs)), dtype=object).value_counts(),
                            min_count, max_size)


def prune_vocabulary(counts: pd.Series, min_count: int = 1, max_size: int | None = None) -> pd.Series:
    """The vocabulary of word counts (word -> count, any order): words seen at least ``min_count`` times,
    most frequent first (ties alphabetical), at most ``max_size`` of them.

    Counts of parts of a corpus add up, so pruning their sum gives the
    vocabulary of the whole (a batch run does that).

    Examples
    --------
    >>> prune_vocabulary(pd.Series({"b": 2, "a": 2, "c": 5, "d": 1}), min_count=2).to_dict()
    {'c': 5, 'a': 2, 'b': 2}
    """
    counts = counts[counts >= min_count]
    counts = counts.sort_index().sort_values(ascending=False, kind="stable")
    if max_size is not None:
        counts = counts.iloc[:max_size]
    counts.index = pd.Index(counts.index.to_numpy(dtype=object), dtype=object)
    counts.name = "count"
    return counts.astype(np.int64)


def _ids(token_docs, index: pd.Index) -> tuple[np.ndarray, np.ndarray]:
    """Every token's position in ``index`` (-1 outside it), and the documents' offsets into them."""
    offsets, flat = flatten(token_docs)
    return index.get_indexer(flat), offsets


def cooccurrence(token_docs, index: pd.Index, *, window: int = 2, context: str = "window",
                 weighted: bool = False) -> sp.csr_array:
    """Symmetric word-by-word co-occurrence counts (sparse), built without a loop over tokens.

    ``context="window"``: words at most ``window`` positions apart in the same
    document (out-of-vocabulary words keep their place, so distances are the
    text's own); ``weighted`` counts a pair at distance d as 1/d.
    ``context="document"``: the binary document-term matrix M gives M^T M,
    the number of documents in which two words both occur (diagonal zeroed).

    Examples
    --------
    >>> from embedcore.tokens import tokenize
    >>> docs = [tokenize("the cat sat on the mat"), tokenize("the dog sat")]
    >>> vocab = pd.Index(build_vocabulary(docs).index)
    >>> C = cooccurrence(docs, vocab, window=1)
    >>> list(vocab), C.toarray()[1].tolist()  # 'sat' beside 'the' (twice), 'cat', 'on' and 'dog'
    (['the', 'sat', 'cat', 'dog', 'mat', 'on'], [0.0, 0.0, 1.0, 1.0, 0.0, 1.0])
    """
    ids, offsets = _ids(token_docs, index)
    return cooccurrence_of_ids(ids, offsets, len(index), window=window, context=context, weighted=weighted)


def token_ids(token_docs, index: pd.Index) -> tuple[np.ndarray, np.ndarray]:
    """Every token's position in the vocabulary ``index`` (-1 outside it) and each document's offset into
    them: what :func:`cooccurrence_of_ids` counts, found once per vocabulary and kept for every window.

    Examples
    --------
    >>> ids, offsets = token_ids([["the", "cat", "sat"], ["the", "dog"]], pd.Index(["the", "cat", "sat"]))
    >>> ids.tolist(), offsets.tolist()
    ([0, 1, 2, 0, -1], [0, 3, 5])
    """
    return _ids(token_docs, index)


def cooccurrence_of_ids(ids, offsets, n_words: int, *, window: int = 2, context: str = "window",
                        weighted: bool = False) -> sp.csr_array:
    """:func:`cooccurrence` of documents given as vocabulary ids (:func:`token_ids`): document d is
    ``ids[offsets[d]:offsets[d + 1]]``, -1 for a word outside the vocabulary of ``n_words``.

    Examples
    --------
    >>> C = cooccurrence_of_ids([0, 1, 2, 0, -1], [0, 3, 5], 3, window=1)  # "the cat sat", "the <unknown>"
    >>> C.toarray().tolist()
    [[0.0, 1.0, 0.0], [1.0, 0.0, 1.0], [0.0, 1.0, 0.0]]
    """
    V = n_words
    ids, offsets = np.asarray(ids), np.asarray(offsets)
    if context == "document":
        M = ragged_to_csr(offsets, ids, V)
        M.data[:] = 1.0
        C = sp.csr_array(M.T @ M)
        C.setdiag(0)
        C.eliminate_zeros()
        return C
    if context != "window":
        raise ValueError(f"context must be 'window' or 'document', got {context!r}.")
    if not isinstance(window, Integral) or window < 1:
        raise ValueError(f"window must be a positive integer, got {window!r}.")
    doc = _document_of(offsets)
    parts = [_at_distance(ids, doc, V, d) for d in range(1, window + 1)]  # a loop over offsets only
    return cooccurrence_of_distances(parts, weighted=weighted)


def _document_of(offsets: np.ndarray) -> np.ndarray:
    """The document of every token, from the documents' offsets."""
    return np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))


def _at_distance(ids: np.ndarray, doc: np.ndarray, V: int, distance: int) -> sp.csr_array:
    a, b = ids[:-distance], ids[distance:]
    ok = (doc[:-distance] == doc[distance:]) & (a >= 0) & (b >= 0)
    a, b = a[ok], b[ok]
    # each pair once in reading order (summed by the conversion), then the other direction by the transpose
    once = sp.coo_array((np.ones(a.size), (a, b)), shape=(V, V)).tocsr()
    once.sum_duplicates()
    return sp.csr_array(once + once.T)


def cooccurrence_at_distance(ids, offsets, n_words: int, distance: int) -> sp.csr_array:
    """Pairs of vocabulary words exactly ``distance`` positions apart in the same document, counted in both
    directions (a symmetric sparse matrix): the window counts of :func:`cooccurrence_of_ids` are their sum
    over distances 1 to the window (:func:`cooccurrence_of_distances`), so each distance is counted once for
    every window that needs it.

    Examples
    --------
    >>> D = cooccurrence_at_distance([0, 1, 2, 0, -1], [0, 3, 5], 3, distance=2)  # "the cat sat", "the <unknown>"
    >>> D.toarray().tolist()  # only 'the' and 'sat' are two apart
    [[0.0, 0.0, 1.0], [0.0, 0.0, 0.0], [1.0, 0.0, 0.0]]
    """
    if not isinstance(distance, Integral) or distance < 1:
        raise ValueError(f"distance must be a positive integer, got {distance!r}.")
    ids, offsets = np.asarray(ids), np.asarray(offsets)
    return _at_distance(ids, _document_of(offsets), n_words, int(distance))


def cooccurrence_of_distances(parts, *, weighted: bool = False) -> sp.csr_array:
    """Window co-occurrence counts from the counts at each distance: ``parts[d - 1]`` holds the pairs d apart
    (:func:`cooccurrence_at_distance`), and the window is ``len(parts)``. ``weighted`` counts a pair at
    distance d as 1/d.

    Examples
    --------
    >>> ids, offsets = [0, 1, 2, 0, -1], [0, 3, 5]
    >>> parts = [cooccurrence_at_distance(ids, offsets, 3, d) for d in (1, 2)]
    >>> C = cooccurrence_of_distances(parts, weighted=True)
    >>> C.toarray()[0].tolist(), (C != cooccurrence_of_ids(ids, offsets, 3, window=2, weighted=True)).nnz
    ([0.0, 1.0, 0.5], 0)
    """
    if len(parts) == 0:
        raise ValueError("Give the counts of at least one distance (distance 1 first).")
    total = None
    for d, part in enumerate(parts, start=1):
        total = add_distance(total, part, d, weighted=weighted)
    return total


def add_distance(total, part, distance: int, *, weighted: bool = False) -> sp.csr_array:
    """The window counts one distance wider: ``total`` (the counts of a window of ``distance - 1``, None for
    none) plus ``part``, the pairs ``distance`` apart (weighted 1/distance if ``weighted``). It is the step
    :func:`cooccurrence_of_distances` repeats, so a window counted from the one below it is the same matrix,
    sum for sum.

    Examples
    --------
    >>> ids, offsets = [0, 1, 2, 0, -1], [0, 3, 5]
    >>> parts = [cooccurrence_at_distance(ids, offsets, 3, d) for d in (1, 2)]
    >>> C = add_distance(add_distance(None, parts[0], 1, weighted=True), parts[1], 2, weighted=True)
    >>> (C != cooccurrence_of_distances(parts, weighted=True)).nnz
    0
    """
    term = sp.csr_array(part, dtype=np.float64)
    if weighted and distance > 1:
        term = term * (1.0 / distance)
    return term if total is None else sp.csr_array(total + term)


def pmi_matrix(C, *, alpha: float = 0.75, shift: float = 1.0, positive: bool = True) -> sp.csr_array:
    """(Shifted, positive) PMI of a co-occurrence matrix, with context-distribution smoothing.

    ``PMI(w, c) = log( #(w,c) * N / (#(w) * N_alpha(c)) )`` where ``N`` is the
    total count and ``N_alpha(c) = N * #(c)^alpha / sum_c' #(c')^alpha``
    smooths the context distribution (alpha=1: plain PMI). Subtracting
    ``log(shift)`` gives shifted PMI; ``positive`` clips at 0 (PPMI). Only
    observed pairs are stored: an unobserved pair's PMI (minus infinity) is
    treated as 0, as every sparse implementation does.

    Examples
    --------
    >>> from embedcore.tokens import tokenize
    >>> docs = [tokenize("the cat sat on the mat"), tokenize("the dog sat")]
    >>> P = pmi_matrix(cooccurrence(docs, pd.Index(build_vocabulary(docs).index), window=1))
    >>> P.shape, bool((P.toarray() >= 0).all())  # positive PMI: negative values clipped to 0
    ((6, 6), True)
    """
    if not isinstance(alpha, Real) or alpha <= 0:
        raise ValueError(f"alpha must be > 0, got {alpha!r}.")
    if not isinstance(shift, Real) or shift <= 0:
        raise ValueError(f"shift must be > 0 (it is subtracted as log(shift)), got {shift!r}.")
    C = sp.csr_array(C, dtype=np.float64)
    C.sum_duplicates()
    total = C.sum()
    if total <= 0:
        raise ValueError("No co-occurrences: the corpus is too small for this window and vocabulary.")
    word = np.asarray(C.sum(axis=1)).ravel()
    ctx = np.asarray(C.sum(axis=0)).ravel()
    ctx_alpha = ctx**alpha
    p_ctx = ctx_alpha / ctx_alpha.sum()
    coo = C.tocoo()
    pmi = np.log(coo.data) + np.log(total) - np.log(word[coo.row]) - np.log(total * p_ctx[coo.col])
    pmi -= np.log(shift)
    if positive:
        keep = pmi > 0
        return sp.csr_array((pmi[keep], (coo.row[keep], coo.col[keep])), shape=C.shape)
    return sp.csr_array((pmi, (coo.row, coo.col)), shape=C.shape)


def smooth_idf(document_frequency, n_documents: int) -> np.ndarray:
    """scikit-learn's smooth idf, ``log((1 + n) / (1 + df)) + 1``, from document frequencies.

    The arithmetic of ``TfidfTransformer(smooth_idf=True).fit``, from counts
    that add up over parts of a corpus (a batch run sums them per partition).

    Examples
    --------
    >>> smooth_idf([2, 1], 2).round(4)
    array([1.    , 1.4055])
    """
    df = np.asarray(document_frequency, dtype=np.float64) + 1.0
    idf = np.full_like(df, fill_value=n_documents + 1, dtype=np.float64)
    idf /= df
    np.log(idf, out=idf)
    return idf + 1.0


def term_counts(token_docs, index: pd.Index) -> sp.csr_array:
    """The document-term count matrix over the vocabulary ``index`` (out-of-vocabulary words left out).

    Examples
    --------
    >>> term_counts([["the", "cat", "the"], ["the", "dog"]], pd.Index(["the", "cat"])).toarray().tolist()
    [[2.0, 1.0], [1.0, 0.0]]
    """
    ids, offsets = _ids(token_docs, index)
    return ragged_to_csr(offsets, ids, len(index))


def check_vocabulary(counts: pd.Series, min_count: int, n_components) -> None:
    """Raise ValueError, saying what to change, when a vocabulary cannot give ``n_components`` vectors.

    Examples
    --------
    >>> check_vocabulary(pd.Series({"a": 3, "b": 3, "c": 3}), 3, 2)  # three words give two vectors
    >>> check_vocabulary(pd.Series({"a": 3, "b": 3}), 3, 2)
    Traceback (most recent call last):
    ...
    ValueError: n_components=2 needs more words: the vocabulary has 2 (min_count=3). Use n_components < 2.
    """
    if len(counts) < 2:
        raise ValueError(f"Only {len(counts)} word(s) occur at least min_count={min_count} times; "
                         "lower min_count or give a larger corpus.")
    if not isinstance(n_components, Integral) or n_components < 1:
        raise ValueError(f"n_components must be a positive integer, got {n_components!r}.")
    if n_components >= len(counts):
        raise ValueError(f"n_components={n_components} needs more words: the vocabulary has {len(counts)} "
                         f"(min_count={min_count}). Use n_components < {len(counts)}.")
