"""From context windows to word vectors: the raw counts factorised, and the examples word2vec learns from.

Two routes start from the same windows. Counting them gives the symmetric
word-by-word matrix ``A`` (see :func:`embedcore.words.cooccurrence`); as any
real symmetric matrix it factorises as ``A = E D E^T``, ``E`` orthonormal
eigenvectors and ``D`` the eigenvalues, largest first, and the rows of the
top-k columns of ``E`` are word vectors. Raw counts are ruled by frequency:
the leading eigenvector is close to each word's count, so frequent words are
everyone's neighbours; PMI divides that out before factorising.

Walking the windows instead gives training examples. CBOW predicts each word
from the words around it (one example per position: the context in, the word
out); skip-gram predicts each context word from the word (one example per
pair). Both are what :func:`embedcore.words.train_word2vec` feeds gensim;
:func:`window_examples` writes them out for one sentence.
"""

from __future__ import annotations

import re
from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy.sparse.linalg import eigsh

__all__ = ["CountVectors", "count_vectors", "example_counts", "frequency_pull", "sentences", "window_examples"]


class CountVectors(NamedTuple):
    """Word vectors from the eigenvectors of a symmetric count matrix (see :func:`count_vectors`).

    Examples
    --------
    >>> cv = CountVectors(pd.Index(["a", "b", "c"]), np.array([1.0]), np.array([[1.0], [0.9], [-1.0]]),
    ...                   np.array([3.0, 2.0, 1.0]))
    >>> cv.most_similar("a", 2)["word"].tolist()
    ['b', 'c']
    """

    words: pd.Index
    eigenvalues: np.ndarray  # the k largest, largest first
    vectors: np.ndarray  # (V, k): E_k D_k^p, a word per row
    counts: np.ndarray  # each word's total count in A (its row sum)

    def most_similar(self, word: str, topn: int = 10) -> pd.DataFrame:
        """The ``topn`` words whose vectors have the highest cosine with ``word``'s."""
        row = self.words.get_loc(word)
        unit = self.vectors / np.maximum(np.linalg.norm(self.vectors, axis=1, keepdims=True), 1e-300)
        sims = unit @ unit[row]
        sims[row] = -np.inf
        top = np.argsort(-sims, kind="stable")[:topn]
        return pd.DataFrame({"word": self.words[top], "cosine": sims[top], "count": self.counts[top]})


def count_vectors(A, words, n_components: int, eig_weight: float = 0.5) -> CountVectors:
    """Factorise a symmetric co-occurrence matrix ``A = E D E^T`` and keep its ``n_components`` largest eigenvalues.

    The vectors are the rows of ``E_k |D_k|^p`` with ``p = eig_weight`` (the
    seed's "rows of E" is ``p = 0``). Raw counts, not PMI: that is the point.

    Examples
    --------
    >>> A = np.array([[0.0, 2.0, 1.0], [2.0, 0.0, 1.0], [1.0, 1.0, 0.0]])
    >>> cv = count_vectors(A, ["a", "b", "c"], 2, 0.0)
    >>> cv.eigenvalues.round(3).tolist(), cv.most_similar("a", 1)["word"].tolist()
    ([2.732, -0.732], ['b'])
    """
    A = sp.csr_array(A, dtype=np.float64)
    V = A.shape[0]
    if A.shape != (V, V) or abs(A - A.T).max() > 1e-9 * max(abs(A).max(), 1.0):
        raise ValueError("A co-occurrence matrix must be square and symmetric.")
    if not isinstance(n_components, Integral) or not 1 <= n_components < V:
        raise ValueError(f"n_components must be between 1 and {V - 1} (the vocabulary has {V} words), "
                         f"got {n_components!r}.")
    if not isinstance(eig_weight, Real) or eig_weight < 0:
        raise ValueError(f"eig_weight must be 0 or more, got {eig_weight!r}.")
    if n_components < V // 3:
        vals, vecs = eigsh(A, k=n_components, which="LA", v0=np.ones(V) / np.sqrt(V))
    else:
        vals, vecs = np.linalg.eigh(A.toarray())
    order = np.argsort(-vals)[:n_components]
    vals, vecs = vals[order], vecs[:, order]
    vecs = vecs * np.where(vecs.sum(axis=0) < 0, -1.0, 1.0)  # a fixed sign for each eigenvector
    counts = np.asarray(A.sum(axis=1)).ravel()
    return CountVectors(pd.Index(words), vals, vecs * np.abs(vals) ** eig_weight, counts)


def frequency_pull(vectors: np.ndarray, counts, *, topn: int = 10, frequent: int = 50) -> float:
    """The share of every word's ``topn`` nearest words (cosine) that are among the ``frequent`` most frequent words.

    Chance is about ``frequent / V``. A method ruled by frequency finds the
    same frequent words near everything and scores high.

    Examples
    --------
    >>> vectors = np.array([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [0.1, 0.9]])
    >>> frequency_pull(vectors, [10, 1, 1, 1], topn=1, frequent=1)  # only word 1's nearest is word 0
    0.25
    """
    X = np.asarray(vectors, dtype=np.float64)
    topn = min(topn, len(X) - 1)  # a small vocabulary has fewer other words than topn
    if topn < 1:
        return float("nan")
    unit = X / np.maximum(np.linalg.norm(X, axis=1, keepdims=True), 1e-300)
    common = np.zeros(len(X), dtype=bool)
    common[np.argsort(-np.asarray(counts), kind="stable")[:frequent]] = True
    hits = 0
    for start in range(0, len(X), _BLOCK):  # blocks of rows: a V x V similarity matrix would not fit for large V
        sims = unit[start:start + _BLOCK] @ unit.T
        rows = np.arange(len(sims))
        sims[rows, start + rows] = -np.inf
        hits += int(common[np.argpartition(-sims, topn - 1, axis=1)[:, :topn]].sum())
    return hits / (len(X) * topn)


#: Rows of cosines formed at once by :func:`frequency_pull`.
_BLOCK = 512
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def sentences(text: str) -> list[str]:
    """``text`` cut after each ., ! or ? that a space follows.

    Examples
    --------
    >>> sentences("One fish. Two fish! Red fish?  Blue")
    ['One fish.', 'Two fish!', 'Red fish?', 'Blue']
    """
    return [s.strip() for s in _SENTENCE_END.split(text.strip()) if s.strip()]


def window_examples(tokens, window: int, vocabulary=None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The CBOW and skip-gram training examples of one sentence, at window ``window``.

    Words outside ``vocabulary`` (when given) are dropped first, as word2vec
    drops words below its min count, so a window reaches past them. CBOW:
    one row per position, the words up to ``window`` away on each side in,
    the word out. Skip-gram: one row per (word, context word) pair, with
    their distance.

    Examples
    --------
    >>> cbow, sg = window_examples(["the", "cat", "sat", "down"], 1)
    >>> cbow["context (input)"].tolist()
    ['cat', 'the, sat', 'cat, down', 'sat']
    >>> sg[sg["word (input)"] == "sat"]["context word (output)"].tolist()
    ['cat', 'down']
    """
    if not isinstance(window, Integral) or window < 1:
        raise ValueError(f"window must be a positive integer, got {window!r}.")
    words = [t for t in tokens if vocabulary is None or t in vocabulary]
    n = len(words)
    cbow, sg = [], []
    for i, w in enumerate(words):  # one sentence: a handful of words
        around = [j for j in range(max(0, i - window), min(n, i + window + 1)) if j != i]
        cbow.append({"position": i + 1, "context (input)": ", ".join(words[j] for j in around),
                     "word (output)": w})
        sg += [{"position": i + 1, "word (input)": w, "context word (output)": words[j], "distance": abs(j - i)}
               for j in around]
    cbow_table = pd.DataFrame(cbow, columns=["position", "context (input)", "word (output)"])
    sg_table = pd.DataFrame(sg, columns=["position", "word (input)", "context word (output)", "distance"])
    return cbow_table, sg_table


def example_counts(lengths, window: int) -> tuple[int, int]:
    """(CBOW examples, skip-gram pairs) per pass over documents of these lengths (in kept words), fixed window.

    Examples
    --------
    >>> example_counts([4], 1)
    (4, 6)
    """
    n = np.asarray(lengths, dtype=np.int64)
    n = n[n > 1]
    # pairs at distance d within one document: n - d for each d up to the window, counted both ways
    d = np.arange(1, window + 1)
    pairs = 2 * np.clip(n[:, None] - d[None, :], 0, None).sum()
    return int(n.sum()), int(pairs)
