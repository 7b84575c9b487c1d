"""Word vectors from co-occurrence counts: PMI, shifted PPMI and truncated SVD.

Count how often words appear near each other, turn the counts into pointwise
mutual information (how much more often than chance), keep the positive part
(optionally shifted), and factorise the matrix with a truncated SVD. The rows
of ``U Sigma^p`` are word vectors that Levy, Goldberg and Dagan (2015) found a
match for Word2Vec's when both are tuned alike (:func:`compare_word_vectors`
measures that on a corpus, with intervals), and every step can be looked at.
"""

from __future__ import annotations

import copy
from itertools import chain
from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin, _fit_context
from sklearn.preprocessing import normalize
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import (
    check_is_fitted,
    check_non_negative,
    check_random_state,
    validate_data,
)

from ._sparse import flatten, ragged_to_csr
from .tokens import check_word_spacing, documents_as_tokens, tokenize

__all__ = [
    "tokenize",
    "check_word_spacing",
    "build_vocabulary",
    "prune_vocabulary",
    "cooccurrence",
    "pmi_matrix",
    "smooth_idf",
    "PMIWordVectors",
    "WordPairScore",
    "evaluate_word_pairs",
    "train_word2vec",
    "compare_word_vectors",
    "word_vector_similarities",
    "compare_document_features",
    "PMI_GRID",
    "WORD2VEC_GRID",
    "LabelEmbedding",
    "Recovery",
]

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
    them: what :func:`cooccurrence_of_ids` counts, found once per vocabulary and kept for every window."""
    return _ids(token_docs, index)


def cooccurrence_of_ids(ids, offsets, n_words: int, *, window: int = 2, context: str = "window",
                        weighted: bool = False) -> sp.csr_array:
    """:func:`cooccurrence` of documents given as vocabulary ids (:func:`token_ids`): document d is
    ``ids[offsets[d]:offsets[d + 1]]``, -1 for a word outside the vocabulary of ``n_words``."""
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
    doc = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
    rows, cols, vals = [], [], []
    for d in range(1, window + 1):  # a loop over offsets only
        a, b = ids[:-d], ids[d:]
        ok = (doc[:-d] == doc[d:]) & (a >= 0) & (b >= 0)
        rows += [a[ok], b[ok]]
        cols += [b[ok], a[ok]]
        w = 1.0 / d if weighted else 1.0
        vals += [np.full(int(ok.sum()), w)] * 2
    if not rows:
        return sp.csr_array((V, V))
    C = sp.coo_array((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(V, V)).tocsr()
    C.sum_duplicates()
    return C


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
    """The document-term count matrix over the vocabulary ``index`` (out-of-vocabulary words left out)."""
    ids, offsets = _ids(token_docs, index)
    return ragged_to_csr(offsets, ids, len(index))


def check_vocabulary(counts: pd.Series, min_count: int, n_components) -> None:
    """Raise ValueError, saying what to change, when a vocabulary cannot give ``n_components`` vectors."""
    if len(counts) < 2:
        raise ValueError(f"Only {len(counts)} word(s) occur at least min_count={min_count} times; "
                         "lower min_count or give a larger corpus.")
    if not isinstance(n_components, Integral) or n_components < 1:
        raise ValueError(f"n_components must be a positive integer, got {n_components!r}.")
    if n_components >= len(counts):
        raise ValueError(f"n_components={n_components} needs more words: the vocabulary has {len(counts)} "
                         f"(min_count={min_count}). Use n_components < {len(counts)}.")


class DocumentInput:
    """Declares documents (strings or token lists) as the input, as scikit-learn's text vectorizers do, and
    reads them one way in ``fit``: tokenised (:func:`~embedcore.tokens.documents_as_tokens`), then counted into
    the vocabulary of words seen at least ``min_count`` times (:func:`build_vocabulary`), which the estimator's
    ``_fit_documents`` takes from there."""

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, documents, y=None):
        """Learn from ``documents`` what the class describes.

        Parameters
        ----------
        documents : list of str or of token lists
            One document per item; strings are split by :func:`tokenize`.
        y : ignored

        Returns
        -------
        self
        """
        docs = documents_as_tokens(documents)
        return self._fit_documents(docs, build_vocabulary(docs, self.min_count, self._vocabulary_limit()))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.string = True
        tags.input_tags.two_d_array = False
        return tags


class CountInput:
    """Declares a non-negative matrix, dense or sparse (counts, label indicators), as the input.

    Examples
    --------
    >>> tags = LabelEmbedding().__sklearn_tags__().input_tags
    >>> tags.sparse, tags.positive_only
    (True, True)
    """

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.positive_only = True
        return tags


class PMIWordVectors(DocumentInput, TransformerMixin, BaseEstimator):
    """Word vectors by truncated SVD of a (shifted, positive) PMI matrix.

    Parameters
    ----------
    window : int, default=2
        Context window (words on each side) for ``context="window"``.
    context : {"window", "document"}, default="window"
        Count neighbours within a window, or co-occurrence in whole documents
        (the binary document-term matrix).
    weighted : bool, default=False
        Weight window pairs by 1/distance.
    min_count, max_vocab : vocabulary limits.
    alpha : float, default=0.75
        Context-distribution smoothing (1 = none).
    shift : float, default=1.0
        k of shifted PMI: log(k) is subtracted (1 = no shift).
    positive : bool, default=True
        Clip negative PMI to zero (PPMI).
    n_components : int, default=100
    eig_weight : float, default=0.5
        Vectors are ``U Sigma^eig_weight`` (0: U alone, 1: the plain SVD projection).
    random_state : int, RandomState or None (the randomised SVD's start)

    Attributes
    ----------
    vocabulary_ : dict word -> row
    counts_ : pandas Series of word counts (vocabulary order)
    vectors_ : (V, n_components) array, unit rows for cosine similarity in ``normed_``
    singular_values_ : (n_components,) array
    left_singular_vectors_ : (V, n_components) array, U of the truncated SVD
    pmi_norm2_ : squared Frobenius norm of the PMI matrix (for the energy curve)

    Examples
    --------
    >>> docs = ["the cat sat on the mat", "the dog sat on the rug"] * 20
    >>> wv = PMIWordVectors(n_components=3, random_state=0).fit(docs)
    >>> wv.vectors_.shape
    (7, 3)
    """

    _parameter_constraints: dict = {
        "window": [Interval(Integral, 1, None, closed="left")],
        "context": [StrOptions({"window", "document"})],
        "weighted": ["boolean"],
        "min_count": [Interval(Integral, 1, None, closed="left")],
        "max_vocab": [Interval(Integral, 1, None, closed="left"), None],
        "alpha": [Interval(Real, 0, None, closed="neither")],
        "shift": [Interval(Real, 0, None, closed="neither")],
        "positive": ["boolean"],
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "eig_weight": [Interval(Real, 0, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(self, *, window: int = 2, context: str = "window", weighted: bool = False, min_count: int = 1,
                 max_vocab: int | None = None, alpha: float = 0.75, shift: float = 1.0, positive: bool = True,
                 n_components: int = 100, eig_weight: float = 0.5, random_state=None):
        self.window = window
        self.context = context
        self.weighted = weighted
        self.min_count = min_count
        self.max_vocab = max_vocab
        self.alpha = alpha
        self.shift = shift
        self.positive = positive
        self.n_components = n_components
        self.eig_weight = eig_weight
        self.random_state = random_state

    def _vocabulary_limit(self):
        return self.max_vocab

    def _fit_documents(self, docs, counts):
        # the counts, the PMI and its truncated SVD
        check_vocabulary(counts, self.min_count, self.n_components)
        index = pd.Index(counts.index)
        C = cooccurrence(docs, index, window=self.window, context=self.context, weighted=self.weighted)
        M = term_counts(docs, index)
        self._fit_counts(counts, C, np.bincount(M.indices, minlength=len(index)), len(docs))
        return self

    @classmethod
    def from_counts(cls, counts: pd.Series, cooccurrence, *, document_frequency=None, n_documents: int | None = None,
                    **params) -> PMIWordVectors:
        """A fitted model from a corpus's counts: what ``fit`` on that corpus gives.

        Parameters
        ----------
        counts : pandas Series
            Word -> count of the vocabulary, in its order (:func:`build_vocabulary`).
        cooccurrence : sparse (V, V) array
            Co-occurrence counts over that vocabulary, as :func:`cooccurrence` counts them.
        document_frequency, n_documents : (V,) array and int, optional
            Documents holding each word, and documents in the corpus: the idf
            of the tf-idf weighting (``idf_``). Without them ``transform``
            offers only ``weighting="count"``.
        **params
            The estimator's parameters (``n_components``, ``alpha``, ...); the
            counting ones (``window``, ``min_count``, ...) are recorded as given.

        Examples
        --------
        >>> docs = [tokenize(d) for d in ["the cat sat on the mat", "the dog sat on the rug"] * 20]
        >>> counts = build_vocabulary(docs)
        >>> C = cooccurrence(docs, pd.Index(counts.index))
        >>> wv = PMIWordVectors.from_counts(counts, C, n_components=3, random_state=0)
        >>> bool(np.allclose(wv.vectors_, PMIWordVectors(n_components=3, random_state=0).fit(docs).vectors_))
        True
        """
        wv = cls(**params)
        wv._validate_params()
        check_vocabulary(counts, wv.min_count, wv.n_components)
        C = sp.csr_array(cooccurrence)
        if C.shape != (len(counts), len(counts)):
            raise ValueError(f"The co-occurrence matrix is {C.shape[0]} x {C.shape[1]}, but the vocabulary has "
                             f"{len(counts)} words; count it over the same vocabulary.")
        if (document_frequency is None) != (n_documents is None):
            raise ValueError("Give both document_frequency and n_documents (for the idf), or neither.")
        if document_frequency is not None and np.shape(document_frequency) != (len(counts),):
            raise ValueError(f"document_frequency has {np.size(document_frequency)} entries, but the vocabulary "
                             f"has {len(counts)} words.")
        wv._fit_counts(counts, C, document_frequency, n_documents)
        return wv

    def _fit_counts(self, counts: pd.Series, C, document_frequency, n_documents) -> None:
        """Every fitted attribute from the vocabulary, its co-occurrences and document frequencies."""
        index = pd.Index(counts.index, dtype=object)
        self.cooccurrence_ = C
        P = pmi_matrix(C, alpha=self.alpha, shift=self.shift, positive=self.positive)
        if P.nnz == 0:
            raise ValueError("Every PMI value is clipped to zero; lower the shift or enlarge the corpus.")
        self.pmi_ = P
        self.pmi_norm2_ = float((P.data**2).sum())
        U, s = self._svd(P)
        self.singular_values_ = s
        self.left_singular_vectors_ = U
        self._weigh()
        self.vocabulary_ = dict(zip(index, range(len(index))))
        self.words_ = index
        self.counts_ = counts
        # document frequencies of the training corpus: a document's tf-idf vector must not depend on its batch
        if document_frequency is not None:
            self.idf_ = smooth_idf(document_frequency, n_documents)

    def _weigh(self) -> None:
        self.vectors_ = self.left_singular_vectors_ * self.singular_values_**self.eig_weight
        self.normed_ = normalize(self.vectors_)

    def reweighted(self, eig_weight: float) -> PMIWordVectors:
        """The same fit with another eigenvalue weight p, without a new SVD.

        p only scales the columns of U (``vectors_ = U Sigma^p``), so the result
        is what ``fit`` gives with ``eig_weight=p``, byte for byte. The copy
        shares every other fitted array with this model (treat both as read-only).

        Examples
        --------
        >>> docs = ["the cat sat on the mat", "the dog sat on the rug"] * 20
        >>> wv = PMIWordVectors(n_components=3, eig_weight=0.5, random_state=0).fit(docs)
        >>> again = PMIWordVectors(n_components=3, eig_weight=1.0, random_state=0).fit(docs)
        >>> bool(np.array_equal(wv.reweighted(1.0).vectors_, again.vectors_))
        True
        """
        check_is_fitted(self, "left_singular_vectors_")
        other = copy.copy(self)
        other.set_params(eig_weight=eig_weight)
        other._validate_params()
        other._weigh()
        return other

    def _svd(self, P):
        from sklearn.utils.extmath import randomized_svd

        k = self.n_components
        rng = check_random_state(self.random_state)
        # float32 halves the traffic of the sparse products that dominate; the top
        # singular values agree with float64 to about 1e-7 relative.
        U, s, _ = randomized_svd(P.astype(np.float32), k, n_oversamples=20, n_iter=5, random_state=rng)
        return U.astype(np.float64), s.astype(np.float64)

    # ------------------------------------------------------------------ queries

    def _row(self, word: str) -> int:
        check_is_fitted(self, "vectors_")
        try:
            return self.vocabulary_[word]
        except KeyError:
            close = [w for w in self.words_[:5000] if w.startswith(word[:3])][:5] if word else []
            hint = f" Similar spellings in the vocabulary: {', '.join(close)}." if close else ""
            raise ValueError(f"{word!r} is not in the vocabulary ({len(self.vocabulary_):,} words with at least "
                             f"{self.min_count} occurrences).{hint}") from None

    def most_similar(self, word: str, topn: int = 20) -> pd.DataFrame:
        """The ``topn`` words with the highest cosine similarity to ``word``."""
        sims = self.normed_ @ self.normed_[self._row(word)]
        sims[self._row(word)] = -np.inf
        top = np.argpartition(-sims, min(topn, len(sims) - 1))[:topn]
        top = top[np.argsort(-sims[top])]
        return pd.DataFrame({"word": self.words_[top], "cosine": sims[top], "count": self.counts_.iloc[top].to_numpy()})

    def analogy(self, a: str, b: str, c: str, topn: int = 10) -> pd.DataFrame:
        """a is to b as c is to ...? (3CosAdd: nearest to b - a + c, the three words excluded)."""
        rows = [self._row(w) for w in (a, b, c)]
        target = self.normed_[rows[1]] - self.normed_[rows[0]] + self.normed_[rows[2]]
        sims = self.normed_ @ (target / max(np.linalg.norm(target), 1e-12))
        sims[rows] = -np.inf
        top = np.argsort(-sims)[:topn]
        return pd.DataFrame({"word": self.words_[top], "cosine": sims[top]})

    def energy(self) -> np.ndarray:
        """Cumulative share of the PMI matrix's squared Frobenius norm kept by the first k singular values."""
        check_is_fitted(self, "singular_values_")
        return np.cumsum(self.singular_values_**2) / self.pmi_norm2_

    def rank_for_energy(self, share: float = 0.8) -> int | None:
        """The fewest dimensions whose singular values keep ``share`` of the PMI matrix's energy.

        None when the computed dimensions keep less than ``share`` (more would be needed).
        """
        energy = self.energy()
        return int(np.searchsorted(energy, share) + 1) if energy[-1] >= share else None

    def neighbour_words(self, n_words: int, k: int = 5) -> list[str]:
        """For each of the ``n_words`` most frequent words, its ``k`` nearest words (cosine), comma-joined."""
        check_is_fitted(self, "normed_")
        n_words = min(n_words, len(self.words_))
        k = min(k, len(self.words_) - 1)
        S = self.normed_[:n_words] @ self.normed_.T
        S[np.arange(n_words), np.arange(n_words)] = -np.inf
        top = np.argpartition(-S, k, axis=1)[:, :k] if k < S.shape[1] - 1 else np.argsort(-S, axis=1)[:, :k]
        order = np.take_along_axis(S, top, axis=1).argsort(axis=1)[:, ::-1]
        top = np.take_along_axis(top, order, axis=1)
        words = np.asarray(self.words_, dtype=object)
        return [", ".join(words[row]) for row in top]

    def transform(self, documents, weighting: str = "count") -> np.ndarray:
        """Document vectors: the document-term matrix times the word vectors (the seed's M E).

        ``weighting``: "count" (term counts) or "tfidf" (counts times the smooth
        idf learned at fit, so a document's vector does not depend on the other
        documents transformed with it); rows L2-normalised. Out-of-vocabulary
        words are ignored.
        """
        check_is_fitted(self, "vectors_")
        if weighting not in ("count", "tfidf"):
            raise ValueError(f"weighting must be 'count' or 'tfidf', got {weighting!r}.")
        return self.document_vectors(term_counts(documents_as_tokens(documents), self.words_), weighting)

    def document_vectors(self, term_counts, weighting: str = "count") -> np.ndarray:
        """Document vectors from a document-term count matrix over ``words_`` (see :meth:`transform`).

        Each row is independent of the others, so a corpus can be done in
        parts (a batch run does it per partition) with the same result.
        """
        check_is_fitted(self, "vectors_")
        M = sp.csr_array(term_counts)
        if M.shape[1] != len(self.words_):
            raise ValueError(f"The term counts have {M.shape[1]} columns, but the vocabulary has "
                             f"{len(self.words_)} words.")
        if weighting == "tfidf":
            if not hasattr(self, "idf_"):
                raise ValueError("These vectors were built from counts without document frequencies: they have "
                                 "no idf, so weighting='tfidf' is not available; use weighting='count'.")
            M = sp.csr_array(M @ sp.dia_array((self.idf_[None, :], [0]), shape=(len(self.idf_),) * 2))
        elif weighting != "count":
            raise ValueError(f"weighting must be 'count' or 'tfidf', got {weighting!r}.")
        return normalize(M @ self.vectors_)

    def keyed_vectors(self):
        """A lookup word -> unit vector (for :func:`evaluate_word_pairs`)."""
        check_is_fitted(self, "normed_")
        return {w: self.normed_[i] for w, i in self.vocabulary_.items()}


# --------------------------------------------------------------------------- evaluation and baselines


class WordPairScore(NamedTuple):
    """How word vectors rank human-scored word pairs (:func:`evaluate_word_pairs`).

    Attributes
    ----------
    spearman : float
        Spearman correlation of the pairs' cosines with the human scores (nan with fewer than three pairs).
    oov_rate : float
        The share of pairs left out for a word the vectors do not know.
    pairs_used : int
        The pairs scored.

    Examples
    --------
    >>> WordPairScore._fields
    ('spearman', 'oov_rate', 'pairs_used')
    """

    spearman: float
    oov_rate: float
    pairs_used: int


def evaluate_word_pairs(vectors, pairs: pd.DataFrame) -> WordPairScore:
    """Spearman correlation between cosine similarities and human scores, and the out-of-vocabulary rate.

    ``vectors`` maps word -> vector (a dict, gensim KeyedVectors, or a fitted
    :class:`PMIWordVectors`); ``pairs`` has columns word1, word2, score. Pairs
    with an unknown word are skipped and counted. The scoring is gensim's
    ``KeyedVectors.evaluate_word_pairs``, on every word of the vectors.

    Examples
    --------
    >>> vecs = {"cat": [1.0, 0.1], "dog": [0.9, 0.3], "car": [0.0, 1.0], "van": [0.3, 0.9]}
    >>> pairs = pd.DataFrame({"word1": ["cat", "cat", "car", "cat"], "word2": ["dog", "car", "van", "zebra"],
    ...                       "score": [9.0, 1.0, 8.0, 5.0]})
    >>> evaluate_word_pairs(vecs, pairs)
    WordPairScore(spearman=1.0, oov_rate=0.25, pairs_used=3)
    """
    import logging
    import tempfile

    from gensim.models import KeyedVectors

    if isinstance(vectors, PMIWordVectors):
        vectors = vectors.keyed_vectors()
    if not isinstance(vectors, KeyedVectors):
        words = list(vectors)
        kv = KeyedVectors(vector_size=len(next(iter(vectors.values()))) if words else 1)
        if words:
            kv.add_vectors(words, np.stack([np.asarray(vectors[w], dtype=np.float32) for w in words]))
        vectors = kv
    table = pairs[["word1", "word2", "score"]]
    with tempfile.NamedTemporaryFile("w", suffix=".tsv", encoding="utf-8") as f:
        table.to_csv(f, sep="\t", header=False, index=False)
        f.flush()
        quiet = logging.getLogger("gensim.models.keyedvectors")
        level = quiet.level
        quiet.setLevel(logging.ERROR)  # gensim logs every skipped pair
        try:
            _, (rho, _), oov_percent = vectors.evaluate_word_pairs(
                f.name, restrict_vocab=max(len(vectors), 1), case_insensitive=False)
        finally:
            quiet.setLevel(level)
    oov = oov_percent / 100
    used = int(round(len(table) * (1 - oov)))
    rho = float(rho) if used > 2 and np.isfinite(rho) else float("nan")
    return WordPairScore(rho, float(oov), used)


def train_word2vec(documents, *, sg: bool = False, vector_size: int = 100, window: int = 2, min_count: int = 1,
                   epochs: int = 5, random_state: int = 0, workers: int = 1, should_stop=None):
    """gensim Word2Vec (CBOW, or skip-gram with ``sg=True``) on the same tokens; returns its KeyedVectors.

    One worker thread by default: with several, gensim's result depends on thread timing, and the same
    seed would not give the same vectors. ``should_stop()`` is called after every epoch; it may raise
    to end the training there (a web page's Stop does).

    Examples
    --------
    >>> kv = train_word2vec([["the", "cat", "sat"], ["the", "dog", "sat"]] * 10, vector_size=8, epochs=2)
    >>> kv.vector_size, sorted(kv.index_to_key)
    (8, ['cat', 'dog', 'sat', 'the'])
    """
    from gensim.models import Word2Vec
    from gensim.models.callbacks import CallbackAny2Vec

    class _EveryEpoch(CallbackAny2Vec):
        def on_epoch_end(self, model):
            if should_stop is not None:
                should_stop()

    docs = documents_as_tokens(documents)
    model = Word2Vec(sentences=docs, vector_size=vector_size, window=window, min_count=min_count, sg=int(sg),
                     epochs=epochs, seed=random_state, workers=workers, callbacks=[_EveryEpoch()])
    return model.wv


#: The settings PMI-SVD is tuned over: window, eigenvalue weight p and shift (18 settings, three values of each
#: numeric knob, so a choice on an edge can be seen).
PMI_GRID = [dict(window=w, eig_weight=e, shift=k) for w in (2, 5, 10) for e in (0.0, 0.5, 1.0) for k in (1.0, 5.0)]
#: The settings CBOW and skip-gram are each tuned over: epochs and window (9 settings each).
WORD2VEC_GRID = [dict(epochs=ep, window=w) for ep in (5, 20, 50) for w in (2, 5, 10)]
#: The sides of the word-vector comparison, in the order tables list them.
WORD_METHODS = ("PMI-SVD", "CBOW", "skip-gram")


def _cosines(unit: np.ndarray, index, pairs: pd.DataFrame) -> np.ndarray:
    """Cosine of each pair's two words (NaN when either is missing), from unit rows and a word -> row lookup."""
    a = np.array([index.get(w, -1) for w in pairs["word1"]], dtype=np.int64)
    b = np.array([index.get(w, -1) for w in pairs["word2"]], dtype=np.int64)
    ok = (a >= 0) & (b >= 0)
    out = np.full(len(pairs), np.nan)
    out[ok] = np.einsum("ij,ij->i", unit[a[ok]], unit[b[ok]])
    return out


def word_vector_similarities(documents, pairs: pd.DataFrame, *, n_components: int = 100, min_count: int = 3,
                             alpha: float = 0.75, random_state: int = 0, pmi_grid=None, word2vec_grid=None,
                             progress=None, should_stop=None) -> dict:
    """Every setting of every method trained once on the same tokens: ``{(method, setting text): cosines}``.

    The vectors learn from the corpus alone, never from the pairs, so each
    setting is trained once and its cosines on every pair are kept; the
    protocol then chooses and scores on disjoint sets of pairs. PMI-SVD counts
    once per window and factorises once per shift (p only rescales the SVD).
    """
    from .evaluation import setting_text

    docs = documents_as_tokens(documents)
    pmi_grid = PMI_GRID if pmi_grid is None else pmi_grid
    w2v_grid = WORD2VEC_GRID if word2vec_grid is None else word2vec_grid
    total = len(pmi_grid) + 2 * len(w2v_grid)
    out: dict = {}

    def done(method, g, cos):
        out[(method, setting_text(g))] = cos
        if progress is not None:
            progress(len(out) / total, f"{method} {setting_text(g)}")

    counts = build_vocabulary(docs, min_count)
    check_vocabulary(counts, min_count, n_components)
    index = pd.Index(counts.index)
    df = np.bincount(term_counts(docs, index).indices, minlength=len(index))
    counted, factored = {}, {}
    for g in pmi_grid:
        if g["window"] not in counted:
            counted[g["window"]] = cooccurrence(docs, index, window=g["window"])
        key = (g["window"], g["shift"])
        if key not in factored:
            factored[key] = PMIWordVectors.from_counts(
                counts, counted[g["window"]], document_frequency=df, n_documents=len(docs), window=g["window"],
                min_count=min_count, alpha=alpha, shift=g["shift"], n_components=n_components, eig_weight=0.0,
                random_state=random_state)
        wv = factored[key].reweighted(g["eig_weight"])
        done("PMI-SVD", g, _cosines(wv.normed_, wv.vocabulary_, pairs))
    for sg, method in ((False, "CBOW"), (True, "skip-gram")):
        for g in w2v_grid:
            kv = train_word2vec(docs, sg=sg, vector_size=n_components, min_count=min_count,
                                random_state=random_state, should_stop=should_stop, **g)
            done(method, g, _cosines(kv.get_normed_vectors(), kv.key_to_index, pairs))
    return out


def compare_word_vectors(documents, pairs: pd.DataFrame, *, n_components: int = 100, min_count: int = 3,
                         alpha: float = 0.75, random_state: int = 0, n_repeats: int = 5, pmi_grid=None,
                         word2vec_grid=None, progress=None, should_stop=None):
    """PMI-SVD, CBOW and skip-gram compared under :func:`embedcore.evaluation.compare`.

    Each method is tuned over its grid (:data:`PMI_GRID`, :data:`WORD2VEC_GRID`)
    on the same tokens, dimensions and min count. The rows are the word pairs
    every setting of every method has both words of (the same pairs for all).
    They are split in two halves at random, ``n_repeats`` times (seeds
    ``random_state`` ...): each method's setting is chosen by Spearman's ρ on
    one half and scored on the other, and every half takes its turn at
    scoring. Returns the :class:`~embedcore.evaluation.Comparison`, with
    ``pairs`` (the pairs used) set on it.
    """
    from scipy.stats import spearmanr

    from .evaluation import Side, compare, setting_text

    pmi_grid = PMI_GRID if pmi_grid is None else pmi_grid
    w2v_grid = WORD2VEC_GRID if word2vec_grid is None else word2vec_grid
    cos = word_vector_similarities(documents, pairs, n_components=n_components, min_count=min_count, alpha=alpha,
                                   random_state=random_state, pmi_grid=pmi_grid, word2vec_grid=w2v_grid,
                                   progress=None if progress is None else (lambda f, t: progress(0.95 * f, t)),
                                   should_stop=should_stop)
    known = np.logical_and.reduce([np.isfinite(c) for c in cos.values()])
    used = pairs[known].reset_index(drop=True)
    if len(used) < 8:
        raise ValueError(f"Only {len(used)} of the {len(pairs)} pairs have both words in every method's vocabulary; "
                         "the comparison needs at least 8. Use a larger corpus or a lower min count.")
    human = used["score"].to_numpy(dtype=np.float64)
    sims = {k: v[known] for k, v in cos.items()}

    def scorer(method):
        def score(setting, fit, ev):
            rho = spearmanr(sims[(method, setting_text(setting))][ev], human[ev]).statistic
            return float(rho) if np.isfinite(rho) else float("nan")
        return score

    grids = {"PMI-SVD": pmi_grid, "CBOW": w2v_grid, "skip-gram": w2v_grid}
    sides = [Side(m, scorer(m), [dict(g) for g in grids[m]], fits_on_rows=False) for m in WORD_METHODS]
    result = compare(sides, len(used), n_splits=2, n_repeats=n_repeats, random_state=random_state, bounds=(-1.0, 1.0),
                     pairs=[("PMI-SVD", "CBOW"), ("PMI-SVD", "skip-gram"), ("CBOW", "skip-gram")])
    result.pairs = used
    if progress is not None:
        progress(1.0, "scored")
    return result


# --------------------------------------------------------------------------- label embedding


def word_clusters(wv: PMIWordVectors, n_words: int, n_clusters: int, random_state=None) -> np.ndarray:
    """k-means cluster of each of the ``n_words`` most frequent words, on unit vectors (cosine geometry)."""
    from sklearn.cluster import KMeans

    X = wv.normed_[:n_words]
    return KMeans(n_clusters=min(n_clusters, len(X)), n_init=4, random_state=random_state).fit_predict(X)


def document_coordinates(wv: PMIWordVectors, documents, random_state=None) -> np.ndarray:
    """Document vectors (tf-idf weighted sums of word vectors, rows scaled to unit length) projected to 2-D by PCA.

    Fewer than three documents have no plane to project on: they sit at the origin.
    """
    from sklearn.decomposition import PCA

    D = wv.transform(documents, weighting="tfidf")
    return PCA(2, random_state=random_state).fit_transform(D) if len(D) >= 3 else np.zeros((len(D), 2))


#: The regularisation strengths every document representation's classifier is tuned over (widened at an edge).
DOCUMENT_C_GRID = (0.01, 0.1, 1.0, 10.0, 100.0)
#: The document representations :func:`compare_document_features` compares, in table order.
DOCUMENT_FEATURES = ("bag of words", "uni+bigrams", "TF-IDF", "feature hashing (2^10)",
                     "PMI document vectors (tf-idf weighted, unit rows)")


def compare_document_features(texts, labels, *, n_components: int = 50, window: int = 5, min_count: int = 1,
                              random_state=0, n_splits: int = 5, progress=None):
    """Logistic regression on each document representation, under :func:`embedcore.evaluation.compare`.

    Bag of words, uni+bigrams, TF-IDF, feature hashing (2^10) and PMI
    document vectors (the tf-idf weighted sum of the PMI-SVD word vectors,
    each row scaled to unit length; ``n_components`` dimensions, ``window``
    words on each side). Everything learned from text (vocabularies, idf, the
    word vectors) is learned inside each training fold, and every
    representation's C is chosen from :data:`DOCUMENT_C_GRID` on a hold-out
    of a quarter of the training part. Returns the
    :class:`~embedcore.evaluation.Comparison` (PMI document vectors against
    each other representation) with ``dims``, the width of each representation
    on all the texts.
    """
    from sklearn.feature_extraction.text import (
        CountVectorizer,
        HashingVectorizer,
        TfidfVectorizer,
    )
    from sklearn.linear_model import LogisticRegression

    from .evaluation import Side, compare

    texts = list(texts)
    y = np.asarray(labels)
    tokens = documents_as_tokens(texts)

    def pmi_vectors(fit):
        wv = PMIWordVectors(n_components=n_components, window=window, min_count=min_count,
                            random_state=random_state).fit([tokens[i] for i in fit])
        return lambda rows: wv.transform([tokens[i] for i in rows], weighting="tfidf")

    def vectorizer(make):
        def fitted(fit):
            v = make().fit([texts[i] for i in fit])
            return lambda rows: v.transform([texts[i] for i in rows])
        return fitted

    makers = {
        "bag of words": vectorizer(CountVectorizer),
        "uni+bigrams": vectorizer(lambda: CountVectorizer(ngram_range=(1, 2))),
        "TF-IDF": vectorizer(TfidfVectorizer),
        "feature hashing (2^10)": vectorizer(lambda: HashingVectorizer(n_features=2**10)),
        DOCUMENT_FEATURES[-1]: pmi_vectors,
    }
    cache: dict = {}

    def features(name, fit, ev):
        key = (name, fit.tobytes())
        if key not in cache:
            cache[key] = makers[name](fit)
        encode = cache[key]
        return encode(fit), encode(ev)

    def scorer(name):
        def score(setting, fit, ev):
            Xf, Xe = features(name, fit, ev)
            # liblinear: exact and fast on sparse two-class text; lbfgs for more classes
            solver = "liblinear" if np.unique(y).size == 2 else "lbfgs"
            model = LogisticRegression(C=setting["C"], solver=solver, max_iter=2000).fit(Xf, y[fit])
            return float(model.score(Xe, y[ev]))
        return score

    grid = [{"C": c} for c in DOCUMENT_C_GRID]
    sides = [Side(name, scorer(name), grid, widen="C") for name in DOCUMENT_FEATURES]
    pmi = DOCUMENT_FEATURES[-1]
    result = compare(sides, len(texts), y=y, n_splits=n_splits, inner_splits=1, random_state=random_state, bounds=(0.0, 1.0),
                     pairs=[(pmi, other) for other in DOCUMENT_FEATURES[:-1]], progress=progress)
    every = np.arange(len(texts))
    result.dims = {name: int(makers[name](every)(every[:1]).shape[1]) for name in DOCUMENT_FEATURES}
    return result


class Recovery(NamedTuple):
    """Shares of label sets a :class:`LabelEmbedding` gives back exactly (:meth:`LabelEmbedding.recovery`).

    Attributes
    ----------
    known_count : float
        Decoding each row with its true number of labels (an oracle: the number is part of the answer).
    threshold : float
        Decoding without it, by the label embedding's ``threshold_``.

    Examples
    --------
    >>> Y = np.array([[1, 1, 0, 0], [0, 0, 1, 1], [1, 0, 1, 0], [0, 1, 0, 1]] * 5)
    >>> LabelEmbedding(n_components=4).fit(Y).recovery(Y).known_count
    1.0
    """

    known_count: float
    threshold: float


class LabelEmbedding(CountInput, BaseEstimator):
    """Dense label vectors from the PMI of label co-occurrence, for multilabel problems.

    From an indicator matrix Y (samples x labels): ``PMI_ij = log(P(i, j) /
    (P(i) P(j)))`` over samples, its SVD, and ``E = U sqrt(Sigma)`` truncated to
    ``n_components``, rows normalised. A label set is encoded as the
    normalised sum of its labels' vectors; decoding ranks labels by cosine.

    Parameters
    ----------
    n_components : int, default=8
        Dimensions of the label vectors, at most the number of labels.

    Attributes
    ----------
    pmi_ : (m, m) array (unobserved pairs set to 0)
    embedding_ : (m, n_components) unit rows
    singular_values_ : array
    threshold_ : float, the cosine ``decode`` cuts at when the number of labels is not given
    n_labels_, n_features_in_ : int, the number of labels

    Examples
    --------
    >>> Y = np.array([[1, 1, 0, 0], [1, 1, 0, 0], [0, 0, 1, 1], [0, 0, 1, 1], [1, 0, 0, 1]])
    >>> le = LabelEmbedding(n_components=2).fit(Y)
    >>> le.decode(le.encode(Y[:1]), n_labels=2).tolist()
    [[1, 1, 0, 0]]
    """

    _parameter_constraints: dict = {"n_components": [Interval(Integral, 1, None, closed="left")]}

    def __init__(self, *, n_components: int = 8):
        self.n_components = n_components

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, Y, y=None):
        """Learn label vectors from an indicator matrix.

        Parameters
        ----------
        Y : (n_samples, n_labels) array-like or sparse, finite and non-negative
            A non-zero entry means the sample has the label; at least two labels.
        y : ignored
        """
        Y = validate_data(self, Y, accept_sparse="csr", dtype=np.float64, ensure_min_features=2)
        check_non_negative(Y, f"{type(self).__name__}.fit")
        Y = sp.csr_array(Y)
        Y.eliminate_zeros()  # a stored zero is an absent label
        n, m = Y.shape
        if self.n_components > m:
            raise ValueError(f"n_components={self.n_components} is more than the number of labels ({m}); "
                             f"use n_components <= {m}.")
        Y.data[:] = 1.0
        co = (Y.T @ Y).toarray() / n
        p = np.diag(co).copy()
        with np.errstate(divide="ignore", invalid="ignore"):
            pmi = np.log(co / np.outer(p, p))
        pmi[~np.isfinite(pmi)] = 0.0
        self.pmi_ = pmi
        U, s, _ = np.linalg.svd(pmi)
        self.embedding_ = normalize(U[:, : self.n_components] * np.sqrt(s[: self.n_components]))
        self.singular_values_ = s
        self.n_labels_ = m
        self.threshold_ = self._best_threshold(Y.toarray() > 0)
        return self

    def _best_threshold(self, truth: np.ndarray) -> float:
        sims = self.encode(truth.astype(np.float64)) @ self.embedding_.T
        candidates = np.unique(np.quantile(sims, np.linspace(0.02, 0.995, 80)))
        best, best_t = -1.0, float(candidates[0])
        for t in candidates:
            exact = float((self._cut(sims, t) == truth).all(axis=1).mean())
            if exact > best:
                best, best_t = exact, float(t)
        return best_t

    @staticmethod
    def _cut(sims: np.ndarray, t: float) -> np.ndarray:
        pred = sims >= t
        empty = ~pred.any(axis=1)
        pred[empty, sims[empty].argmax(axis=1)] = True
        return pred

    def encode(self, Y) -> np.ndarray:
        """Label sets (indicator rows, one column per fitted label) -> unit vectors."""
        check_is_fitted(self, "embedding_")
        Y = validate_data(self, Y, accept_sparse="csr", dtype=np.float64, reset=False)
        return normalize(np.asarray(Y @ self.embedding_))

    def decode(self, Z, n_labels=None) -> np.ndarray:
        """Indicator rows: for each vector, its ``n_labels`` (int or one per row) labels of highest cosine.

        With ``n_labels=None`` the number is not known: every label whose cosine
        reaches ``threshold_`` (chosen on the training label sets), and the best
        one when none does.
        """
        check_is_fitted(self, "embedding_")
        Z = np.atleast_2d(np.asarray(Z, dtype=np.float64))
        sims = Z @ self.embedding_.T
        if n_labels is None:
            return self._cut(sims, self.threshold_).astype(np.int64)
        ks = np.broadcast_to(np.asarray(n_labels), (len(Z),))
        order = np.argsort(-sims, axis=1)
        out = np.zeros_like(sims, dtype=np.int64)
        ranks = np.empty_like(order)
        ranks[np.arange(len(Z))[:, None], order] = np.arange(sims.shape[1])
        out[ranks < ks[:, None]] = 1
        return out

    def recovery(self, Y) -> Recovery:
        """Share of label sets that ``decode(encode(Y))`` gives back exactly, two ways (:class:`Recovery`).

        ``known_count`` decodes each row with its true number of labels (an
        oracle: the number is part of the answer); ``threshold`` decodes
        without it, by ``threshold_``. Score held-out rows for an honest figure.
        """
        Y = np.asarray(Y.toarray() if sp.issparse(Y) else Y) > 0
        Z = self.encode(Y.astype(np.float64))
        return Recovery(float((self.decode(Z, Y.sum(axis=1)) == Y).all(axis=1).mean()),
                        float((self.decode(Z) == Y).all(axis=1).mean()))

    def similarity(self) -> np.ndarray:
        """Cosine similarity between every pair of labels."""
        check_is_fitted(self, "embedding_")
        return self.embedding_ @ self.embedding_.T
