"""Documents as sparse vectors: bag of words, tf-idf, sparse inner products, n-grams, feature hashing and LSA.

A document becomes a row of counts over a vocabulary (the bag of words); weighting the counts by term
frequency and inverse document frequency (tf-idf) lifts the words that say what a document is about;
two such rows are multiplied by walking their sorted non-zeros together, in time linear in what they
store; n-grams trade meaning for an exploding vocabulary; feature hashing folds any vocabulary into a
fixed number of buckets, at the price of collisions; and latent semantic analysis (LSA) factorises the
weighted matrix with a truncated SVD, putting documents and terms in one low-dimensional concept space.
Every intermediate a teacher would show is a fitted attribute or a small public function.
"""

from __future__ import annotations

from numbers import Integral
from typing import NamedTuple

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin, _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, check_random_state, validate_data

from .tokens import documents_as_tokens
from .lsa import LSA, svd_geometry, top_terms
from .words import CountInput, DocumentInput, smooth_idf, term_counts

__all__ = [
    "TF_SCHEMES",
    "IDF_SCHEMES",
    "BagOfWords",
    "TfIdf",
    "LSA",
    "document_frequency",
    "term_frequency",
    "inverse_document_frequency",
    "sklearn_tfidf",
    "Sparsity",
    "sparsity",
    "merge_dot",
    "merge_pairs",
    "ngram_codes",
    "ngram_counts",
    "ngram_growth",
    "term_hashes",
    "bucket_matrix",
    "bucket_loads",
    "collision_table",
    "colliding_terms",
    "hashing_distortion",
    "svd_geometry",
    "top_terms",
]

#: Term-frequency schemes: the raw count, the count over the document's length, and its logarithm.
TF_SCHEMES = {"count": "f", "frequency": "f / |d|", "log": "ln(1 + f)"}
#: Inverse-document-frequency schemes: none, the plain ln(n / df), and scikit-learn's smoothed one.
IDF_SCHEMES = {"none": "1", "plain": "ln(n / df)", "smooth": "ln((1 + n) / (1 + df)) + 1"}


# --------------------------------------------------------------------------- bag of words


class BagOfWords(DocumentInput, TransformerMixin, BaseEstimator):
    """Documents -> sparse document-term counts over a vocabulary learned in ``fit``.

    Parameters
    ----------
    min_count : int, default=1
        Words seen fewer times in the corpus are left out of the vocabulary.
    max_terms : int or None, default=None
        Keep at most this many words, the most frequent.

    Attributes
    ----------
    vocabulary_ : pandas Index
        The terms, most frequent first (ties alphabetical): column j of the matrix is ``vocabulary_[j]``.
    term_counts_ : (V,) int64 array
        How often each term occurs in the corpus fitted on.
    n_documents_ : int

    Examples
    --------
    >>> bow = BagOfWords().fit(["the cat sat", "the dog sat on the mat"])
    >>> list(bow.vocabulary_[:3]), bow.transform(["the the cat"]).toarray()[0, :3].tolist()
    (['the', 'sat', 'cat'], [2.0, 0.0, 1.0])
    """

    _parameter_constraints: dict = {
        "min_count": [Interval(Integral, 1, None, closed="left")],
        "max_terms": [Interval(Integral, 1, None, closed="left"), None],
    }

    def __init__(self, *, min_count: int = 1, max_terms: int | None = None):
        self.min_count = min_count
        self.max_terms = max_terms

    def _vocabulary_limit(self):
        return self.max_terms

    def _fit_documents(self, docs, counts):
        # the vocabulary is all there is to learn
        if len(counts) == 0:
            raise ValueError(f"No word occurs at least min_count={self.min_count} times; lower min_count.")
        self.vocabulary_ = pd.Index(counts.index)
        self.term_counts_ = counts.to_numpy()
        self.n_documents_ = len(docs)
        return self

    def transform(self, documents) -> sp.csr_array:
        """The (documents x terms) count matrix; words outside the vocabulary are left out."""
        check_is_fitted(self, "vocabulary_")
        return term_counts(documents_as_tokens(documents), self.vocabulary_)

    def get_feature_names_out(self, input_features=None) -> np.ndarray:
        check_is_fitted(self, "vocabulary_")
        return np.asarray(self.vocabulary_, dtype=object)


def _counts(X) -> sp.csr_array:
    X = sp.csr_array(X, dtype=np.float64)
    if X.nnz and X.data.min() < 0:
        raise ValueError("Negative values in data: counts are never negative; give a document-term count matrix.")
    return X


def document_frequency(counts) -> np.ndarray:
    """How many documents (rows) hold each term (column): the df of the idf formulas.

    Examples
    --------
    >>> document_frequency(np.array([[2, 0, 1], [1, 0, 0]])).tolist()
    [2, 0, 1]
    """
    X = _counts(counts)
    return np.bincount(X.indices[X.data != 0], minlength=X.shape[1]).astype(np.int64)


def term_frequency(counts, scheme: str = "frequency") -> sp.csr_array:
    """Term frequencies of a count matrix, per :data:`TF_SCHEMES`.

    ``"count"``: f itself; ``"frequency"``: f / |d|, |d| the document's number of
    tokens (its row sum; an empty row stays 0); ``"log"``: ln(1 + f).

    Examples
    --------
    >>> term_frequency(np.array([[3, 1], [0, 0]])).toarray().tolist()
    [[0.75, 0.25], [0.0, 0.0]]
    """
    if scheme not in TF_SCHEMES:
        raise ValueError(f"scheme must be one of {sorted(TF_SCHEMES)}, got {scheme!r}.")
    X = _counts(counts).copy()
    if scheme == "frequency":
        length = np.asarray(X.sum(axis=1)).ravel()
        X.data /= np.repeat(np.where(length > 0, length, 1.0), np.diff(X.indptr))
    elif scheme == "log":
        X.data = np.log1p(X.data)
    return X


def inverse_document_frequency(document_frequency, n_documents: int, scheme: str = "plain") -> np.ndarray:
    """idf per term, per :data:`IDF_SCHEMES`.

    ``"plain"`` is ln(n / df): 0 for a term in every document, ln n for a term in
    one; a term in no document has no idf (it gets 0, and it has no count to
    weigh anyway). ``"smooth"`` is scikit-learn's ``TfidfTransformer`` default,
    ln((1 + n) / (1 + df)) + 1, as if one more document held every term once;
    it never reaches 0. ``"none"`` is 1 for every term.

    Examples
    --------
    >>> inverse_document_frequency([1, 2, 4], 4).round(4).tolist()
    [1.3863, 0.6931, 0.0]
    >>> inverse_document_frequency([4], 4, "smooth").tolist()
    [1.0]
    """
    if scheme not in IDF_SCHEMES:
        raise ValueError(f"scheme must be one of {sorted(IDF_SCHEMES)}, got {scheme!r}.")
    df = np.asarray(document_frequency, dtype=np.float64)
    if not isinstance(n_documents, Integral) or n_documents < 1:
        raise ValueError(f"n_documents must be a positive integer, got {n_documents!r}.")
    if (df < 0).any() or (df > n_documents).any():
        raise ValueError(f"Document frequencies must lie between 0 and n_documents={n_documents}.")
    if scheme == "none":
        return np.ones_like(df)
    if scheme == "smooth":
        return smooth_idf(df, n_documents)
    out = np.zeros_like(df)
    seen = df > 0
    out[seen] = np.log(n_documents / df[seen])
    return out


class TfIdf(CountInput, TransformerMixin, BaseEstimator):
    """tf-idf weighting of a document-term count matrix, with the tf and idf schemes named.

    ``TfIdf(tf="frequency", idf="plain")`` is the textbook f/|d| * ln(n/df);
    ``TfIdf(tf="count", idf="smooth", norm="l2")`` is scikit-learn's
    ``TfidfTransformer()`` (and ``TfidfVectorizer()``) default.

    Parameters
    ----------
    tf : {"count", "frequency", "log"}, default="frequency"
    idf : {"none", "plain", "smooth"}, default="plain"
    norm : {"l2", "l1"} or None, default=None
        Scale each row to unit length afterwards.

    Attributes
    ----------
    idf_ : (V,) array
    document_frequency_ : (V,) int64 array
    n_documents_ : int

    Examples
    --------
    >>> X = np.array([[2, 1], [0, 1]])
    >>> TfIdf().fit_transform(X).round(4).tolist()
    [[0.4621, 0.0], [0.0, 0.0]]
    """

    _parameter_constraints: dict = {
        "tf": [StrOptions(set(TF_SCHEMES))],
        "idf": [StrOptions(set(IDF_SCHEMES))],
        "norm": [StrOptions({"l1", "l2"}), None],
    }

    def __init__(self, *, tf: str = "frequency", idf: str = "plain", norm: str | None = None):
        self.tf = tf
        self.idf = idf
        self.norm = norm

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Learn the document frequencies and the idf of each term (column) of the counts ``X``."""
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64)
        X = _counts(X)
        self.document_frequency_ = document_frequency(X)
        self.n_documents_ = X.shape[0]
        self.idf_ = inverse_document_frequency(self.document_frequency_, self.n_documents_, self.idf)
        return self

    def transform(self, X):
        """tf times idf, rows normalised when ``norm`` is set (a sparse array for sparse input)."""
        check_is_fitted(self, "idf_")
        dense = not sp.issparse(X)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        W = term_frequency(X, self.tf)
        W.data *= self.idf_[W.indices]
        if self.norm is not None:
            from sklearn.preprocessing import normalize

            W = sp.csr_array(normalize(W, norm=self.norm))
        return W.toarray() if dense else W


def sklearn_tfidf(counts) -> sp.csr_array:
    """scikit-learn's own ``TfidfTransformer()`` (the defaults of ``TfidfVectorizer``) on the same counts:
    the reference :class:`TfIdf` is checked against.

    Examples
    --------
    >>> sklearn_tfidf(np.array([[1, 0, 2], [0, 1, 1]])).toarray().round(3).tolist()
    [[0.575, 0.0, 0.818], [0.0, 0.815, 0.58]]
    """
    from sklearn.feature_extraction.text import TfidfTransformer

    return sp.csr_array(TfidfTransformer().fit_transform(sp.csr_matrix(_counts(counts))))


class Sparsity(NamedTuple):
    """What storing a document-term matrix sparsely saves (:func:`sparsity`).

    Attributes
    ----------
    documents, terms : int
        Its shape.
    stored : int
        Non-zero entries.
    density : float
        ``stored / (documents * terms)``.
    mean_terms : float
        Distinct terms per document on average: its stored entries.
    dense_bytes : int
        The bytes of the matrix stored dense, as float64.
    csr_bytes : int
        The bytes of its CSR arrays (values, column indices, row starts).

    Examples
    --------
    >>> sparsity(np.eye(4)).density
    0.25
    """

    documents: int
    terms: int
    stored: int
    density: float
    mean_terms: float
    dense_bytes: int
    csr_bytes: int


def sparsity(X) -> Sparsity:
    """What storing ``X`` sparsely saves: its shape, stored entries, density and the bytes dense and CSR.

    Examples
    --------
    >>> s = sparsity(np.array([[1, 0, 0, 0], [0, 2, 0, 0]]))
    >>> s.stored, s.density, s.mean_terms
    (2, 0.25, 1.0)
    """
    X = sp.csr_array(X)
    n, V = X.shape
    nnz = int(np.count_nonzero(X.data))
    return Sparsity(n, V, nnz, nnz / max(n * V, 1), nnz / max(n, 1), 8 * n * V,
                    int(X.data.nbytes + X.indices.nbytes + X.indptr.nbytes))


# --------------------------------------------------------------------------- sparse inner products


def _sorted_sparse(indices, values, name: str) -> tuple[np.ndarray, np.ndarray]:
    idx = np.asarray(indices, dtype=np.int64).ravel()
    val = np.asarray(values, dtype=np.float64).ravel()
    if idx.shape != val.shape:
        raise ValueError(f"{name} has {idx.size} indices but {val.size} values; give one value per index.")
    if idx.size > 1 and (np.diff(idx) <= 0).any():
        raise ValueError(f"The indices of {name} must be strictly increasing (sorted, no repeats), as a CSR row "
                         "stores them; sort them first.")
    return idx, val


def merge_dot(a_indices, a_values, b_indices, b_values) -> tuple[float, int, int]:
    """The inner product of two sparse vectors by merging their sorted indices, in O(|a| + |b|).

    Two counters walk the index lists; where the indices agree the values are
    multiplied and added, otherwise the counter at the smaller index moves on.
    The walk stops when either list runs out.

    Returns
    -------
    dot : float
    steps : int
        Comparisons made: at most ``|a| + |b| - matches``.
    matches : int
        Indices the two share: the only multiplications.

    Examples
    --------
    >>> merge_dot([0, 3, 7], [1.0, 2.0, 3.0], [3, 5, 7, 9], [10.0, 1.0, 1.0, 1.0])
    (23.0, 4, 2)
    """
    ai, av = _sorted_sparse(a_indices, a_values, "a")
    bi, bv = _sorted_sparse(b_indices, b_values, "b")
    from ._text_kernels import merge

    total, steps, matches = merge(ai, av, bi, bv)
    return float(total), int(steps), int(matches)


def merge_pairs(X, rows_a, rows_b) -> pd.DataFrame:
    """:func:`merge_dot` of many pairs of rows of a sparse matrix: dot, steps, matches and both sizes per pair.

    Examples
    --------
    >>> merge_pairs(np.array([[1, 0, 2], [0, 1, 1]]), [0], [1])[["steps", "matches", "dot"]].values.tolist()
    [[3.0, 1.0, 2.0]]
    """
    X = sp.csr_array(X, dtype=np.float64)
    X.sort_indices()
    a = np.asarray(rows_a, dtype=np.int64)
    b = np.asarray(rows_b, dtype=np.int64)
    if a.shape != b.shape or (a.size and (min(a.min(), b.min()) < 0 or max(a.max(), b.max()) >= X.shape[0])):
        raise ValueError(f"rows_a and rows_b must be equally long lists of rows between 0 and {X.shape[0] - 1}.")
    from ._text_kernels import merge_rows

    dots, steps, matches = merge_rows(X.indptr.astype(np.int64), X.indices.astype(np.int64), X.data, a, b)
    sizes = np.diff(X.indptr)
    return pd.DataFrame({"a": a, "b": b, "|a|": sizes[a], "|b|": sizes[b], "steps": steps, "matches": matches,
                         "dot": dots})


# --------------------------------------------------------------------------- n-grams


def _flat_ids(token_docs) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every token's id (by first appearance), the document of each token, and the distinct tokens."""
    lengths = np.fromiter(map(len, token_docs), dtype=np.int64, count=len(token_docs))
    flat = [t for d in token_docs for t in d]
    ids, uniques = pd.factorize(pd.Series(flat, dtype=object))
    return ids.astype(np.int64), np.repeat(np.arange(len(token_docs)), lengths), np.asarray(uniques, dtype=object)


def _codes_from_ids(ids: np.ndarray, doc: np.ndarray, n: int) -> np.ndarray:
    """The n-gram starting at each position as a code (equal codes, equal n-grams); -1 where it would leave
    its document."""
    N = ids.size
    if N < n:
        return np.zeros(0, dtype=np.int64)
    code = ids.copy()
    width = int(ids.max()) + 1 if N else 1
    for k in range(1, n):  # a loop over n only: each pass pairs the (k)-gram codes with the next token
        valid = code[: N - k] >= 0
        pair = code[: N - k] * width + ids[k:]
        fresh = np.full(N - k, -1, dtype=np.int64)
        fresh[valid] = pd.factorize(pair[valid])[0]
        code = fresh
    code[doc[: N - n + 1] != doc[n - 1:]] = -1
    return code


def ngram_codes(token_docs, n: int) -> np.ndarray:
    """The n-gram at each token position of the flattened corpus as an integer code; -1 where it would run past
    the end of its document. Equal codes mean equal n-grams.

    Examples
    --------
    >>> ngram_codes([["a", "b", "a", "b"], ["b", "a"]], 2).tolist()  # ab, ba, ab, past the end, ba
    [0, 1, 0, -1, 1]
    """
    if not isinstance(n, Integral) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}.")
    ids, doc, _ = _flat_ids(token_docs)
    return _codes_from_ids(ids, doc, n)


def ngram_counts(token_docs, n: int, top: int | None = None) -> pd.Series:
    """How often each n-gram (its words joined by spaces) occurs, most frequent first (ties: first seen first).

    Examples
    --------
    >>> ngram_counts([["a", "b", "a", "b"], ["a", "b"]], 2).to_dict()
    {'a b': 3, 'b a': 1}
    """
    if not isinstance(n, Integral) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}.")
    ids, doc, uniques = _flat_ids(token_docs)
    code = _codes_from_ids(ids, doc, n)
    pos = np.flatnonzero(code >= 0)
    if pos.size == 0:
        return pd.Series([], dtype=np.int64, name="count")
    counts = np.bincount(code[pos])
    first = np.full(counts.size, -1, dtype=np.int64)
    first[code[pos][::-1]] = pos[::-1]  # the last write wins: each code's first position
    seen = np.flatnonzero(counts)  # a code made only where an n-gram would cross documents counts 0
    order = seen[np.lexsort((first[seen], -counts[seen]))][:top]
    words = [" ".join(uniques[ids[p:p + n]]) for p in first[order]]
    return pd.Series(counts[order], index=pd.Index(words, dtype=object), name="count")


def ngram_growth(token_docs, *, max_n: int = 3, points: int = 20, random_state=None) -> pd.DataFrame:
    """Vocabulary growth: distinct n-grams, and the share of them seen once, as more of the corpus is read.

    The documents are read in a random order (``random_state``); at each of
    ``points`` shares of the tokens, for n = 1 .. ``max_n``, the n-grams lying
    wholly inside the part read are counted. An n-gram is in the part read once
    its first occurrence is, and has been seen once until its second one is,
    so every share is counted from the positions of first and second
    occurrences, without re-reading the corpus.

    Returns
    -------
    DataFrame with columns n, share, tokens, n-grams (occurrences), distinct, seen once, share seen once.

    Examples
    --------
    >>> table = ngram_growth([["a", "b", "a", "b"], ["b", "a"]], max_n=2, points=2, random_state=0)
    >>> table[table["share"] == 1.0][["n", "distinct", "seen once"]].values.tolist()
    [[1, 2, 0], [2, 2, 0]]
    """
    if not isinstance(max_n, Integral) or max_n < 1:
        raise ValueError(f"max_n must be a positive integer, got {max_n!r}.")
    if not isinstance(points, Integral) or points < 1:
        raise ValueError(f"points must be a positive integer, got {points!r}.")
    rng = check_random_state(random_state)
    docs = list(token_docs)
    docs = [docs[i] for i in rng.permutation(len(docs))]
    ids, doc, _ = _flat_ids(docs)
    N = ids.size
    if N == 0:
        raise ValueError("The corpus has no tokens.")
    ends = np.unique(np.ceil(np.linspace(1 / points, 1, points) * N).astype(np.int64))
    rows = []
    for n in range(1, max_n + 1):  # a loop over n only
        code = _codes_from_ids(ids, doc, n)
        pos = np.flatnonzero(code >= 0)
        last = pos + n - 1  # the n-gram is read once its last token is
        order = np.argsort(code[pos], kind="stable")
        c, e = code[pos][order], last[order]
        start = np.r_[True, c[1:] != c[:-1]] if c.size else np.zeros(0, dtype=bool)
        firsts = np.sort(e[start])
        after = np.flatnonzero(start) + 1  # each n-gram's second occurrence, when it has one
        after = after[after < c.size]
        seconds = np.sort(e[after[~start[after]]])
        occ = np.searchsorted(np.sort(last), ends, side="left")
        distinct = np.searchsorted(firsts, ends, side="left")
        once = distinct - np.searchsorted(seconds, ends, side="left")
        for t, o, d, s in zip(ends, occ, distinct, once):
            rows.append({"n": n, "share": t / N, "tokens": int(t), "n-grams": int(o), "distinct": int(d),
                         "seen once": int(s), "share seen once": s / d if d else np.nan})
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- feature hashing


def term_hashes(terms, *, seed: int = 0) -> np.ndarray:
    """The signed 32-bit MurmurHash3 of each term, as scikit-learn's ``FeatureHasher`` and ``HashingVectorizer``
    hash strings (seed 0 there).

    The bucket of a term among m is ``|h| mod m`` and its sign is + when h >= 0
    (:func:`bucket_matrix`), so one hash per term serves every number of buckets.
    MurmurHash3 of a string has no vectorised form: this loops over the
    vocabulary once, as scikit-learn's own hasher does.

    Examples
    --------
    >>> term_hashes(["cat", "dog"]).tolist()
    [1751422759, -1312749093]
    """
    from sklearn.utils import murmurhash3_32

    terms = list(terms)
    return np.fromiter((murmurhash3_32(str(t), seed=int(seed)) for t in terms), dtype=np.int64, count=len(terms))


def _buckets(hashes, n_buckets: int) -> np.ndarray:
    if not isinstance(n_buckets, Integral) or n_buckets < 1:
        raise ValueError(f"n_buckets must be a positive integer, got {n_buckets!r}.")
    h = np.asarray(hashes, dtype=np.int64)
    return np.abs(h) % n_buckets  # int64, so |-2**31| is 2**31, as scikit-learn defines that one hash's bucket


def bucket_matrix(hashes, n_buckets: int, *, signed: bool = True) -> sp.csr_array:
    """The (V x m) matrix that hashes term j into bucket h(j) with sign g(j): ``X @ H`` is the hashed ``X``.

    Examples
    --------
    >>> bucket_matrix(np.array([5, -6, 7]), 4).toarray().tolist()
    [[0.0, 1.0, 0.0, 0.0], [0.0, 0.0, -1.0, 0.0], [0.0, 0.0, 0.0, 1.0]]
    """
    h = np.asarray(hashes, dtype=np.int64)
    sign = np.where(h >= 0, 1.0, -1.0) if signed else np.ones(h.size)
    return sp.csr_array((sign, (np.arange(h.size), _buckets(h, n_buckets))), shape=(h.size, n_buckets))


def bucket_loads(hashes, n_buckets: int) -> np.ndarray:
    """How many terms each of the ``n_buckets`` buckets holds (int64, one entry per bucket, empty ones 0).

    Examples
    --------
    >>> bucket_loads(np.array([5, -6, 7, 9]), 4).tolist()
    [0, 2, 1, 1]
    """
    return np.bincount(_buckets(hashes, n_buckets), minlength=n_buckets).astype(np.int64)


def collision_table(hashes, bits) -> pd.DataFrame:
    """Per number of buckets m = 2^b: the share of terms that share their bucket with another term, measured and
    expected (1 - (1 - 1/m)^(V-1) for a uniform hash), and the buckets used, measured and expected
    (m (1 - (1 - 1/m)^V)).

    Examples
    --------
    >>> table = collision_table(term_hashes(["cat", "dog", "mat"]), [1, 4])
    >>> table[["buckets", "colliding share", "buckets used"]].values.tolist()
    [[2.0, 1.0, 1.0], [16.0, 0.0, 3.0]]
    """
    h = np.asarray(hashes, dtype=np.int64)
    V = h.size
    if V == 0:
        raise ValueError("There are no terms to hash.")
    rows = []
    for b in bits:  # a loop over bucket counts only
        m = 2 ** int(b)
        load = np.bincount(_buckets(h, m), minlength=m)
        colliding = int(load[load > 1].sum())
        stay = (1.0 - 1.0 / m)
        rows.append({"bits": int(b), "buckets": m, "terms": V, "colliding share": colliding / V,
                     "expected colliding share": 1.0 - stay ** (V - 1), "buckets used": int((load > 0).sum()),
                     "expected buckets used": m * (1.0 - stay**V)})
    return pd.DataFrame(rows)


def colliding_terms(terms, hashes, n_buckets: int, top: int = 10) -> pd.DataFrame:
    """The buckets holding the most terms (then the most frequent, as ``terms`` is ordered), with their terms.

    Examples
    --------
    >>> colliding_terms(["cat", "dog", "mat"], term_hashes(["cat", "dog", "mat"]), 2)["who"].tolist()
    ['cat, dog, mat']
    """
    terms = np.asarray(list(terms), dtype=object)
    bucket = _buckets(hashes, n_buckets)
    load = np.bincount(bucket, minlength=n_buckets)
    shared = np.flatnonzero(load > 1)
    if shared.size == 0:
        return pd.DataFrame({"bucket": [], "terms": [], "who": []})
    first = np.full(n_buckets, terms.size, dtype=np.int64)
    np.minimum.at(first, bucket, np.arange(terms.size))
    chosen = shared[np.lexsort((first[shared], -load[shared]))][:top]
    order = np.argsort(bucket, kind="stable")
    starts = np.searchsorted(bucket[order], chosen)
    who = [", ".join(terms[order[s:s + load[c]]][:8]) + (", …" if load[c] > 8 else "") for s, c in zip(starts, chosen)]
    return pd.DataFrame({"bucket": chosen, "terms": load[chosen], "who": who})


def hashing_distortion(X, hashes, bits, *, n_documents: int = 400, random_state=None) -> pd.DataFrame:
    """How hashing moves inner products of unit-length rows (cosines), signed and unsigned, per m = 2^b.

    Up to ``n_documents`` rows of ``X`` (documents x terms), drawn at random, are
    scaled to unit length; every pair's cosine is compared with the inner
    product of their hashed rows. With random signs a collision adds ±u_i v_j,
    0 on average: the error is unbiased. Without signs every collision adds a
    product of two non-negative weights: the hashed inner product only grows.

    Returns
    -------
    DataFrame with columns bits, buckets, rmse (signed), bias (signed), rmse (unsigned), bias (unsigned),
    mean cosine, pairs.

    Examples
    --------
    >>> docs = ["the cat sat on the mat", "the dog sat on the rug", "stocks fell on the news"] * 4
    >>> bow = BagOfWords().fit(docs)
    >>> table = hashing_distortion(bow.transform(docs), term_hashes(list(bow.vocabulary_)), [2, 10], random_state=0)
    >>> bool(table["rmse (signed)"].iloc[0] > table["rmse (signed)"].iloc[1])  # fewer buckets, more error
    True
    """
    from sklearn.preprocessing import normalize

    X = sp.csr_array(normalize(sp.csr_matrix(X, dtype=np.float64)))
    if X.shape[0] < 2:
        raise ValueError("Inner products need at least two documents.")
    if not isinstance(n_documents, Integral) or n_documents < 2:
        raise ValueError(f"n_documents must be an integer of at least 2, got {n_documents!r}.")
    rng = check_random_state(random_state)
    rows = np.sort(rng.choice(X.shape[0], min(n_documents, X.shape[0]), replace=False))
    S = X[rows]
    upper = np.triu_indices(len(rows), 1)
    exact = (S @ S.T).toarray()[upper]
    out = []
    for b in bits:  # a loop over bucket counts only; all pairs of the chosen rows at once
        row = {"bits": int(b), "buckets": 2 ** int(b)}
        for signed, name in ((True, "signed"), (False, "unsigned")):
            SH = S @ bucket_matrix(hashes, 2 ** int(b), signed=signed)
            err = (SH @ SH.T).toarray()[upper] - exact
            row[f"rmse ({name})"] = float(np.sqrt(np.mean(err**2)))
            row[f"bias ({name})"] = float(err.mean())
        out.append(row)
    table = pd.DataFrame(out)
    table["mean cosine"] = float(exact.mean())
    table["pairs"] = int(exact.size)
    return table
