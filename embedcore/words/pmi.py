"""PMI word vectors: the estimator (truncated SVD of shifted positive PMI) and what a page draws from it."""

from __future__ import annotations

import copy
import functools
from numbers import Integral, Real

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin, _fit_context
from sklearn.preprocessing import normalize
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import (
    check_is_fitted,
    check_random_state,
)

from ..tokens import documents_as_tokens
from .counting import (
    build_vocabulary,
    check_vocabulary,
    cooccurrence,
    pmi_matrix,
    smooth_idf,
    term_counts,
)


class DocumentInput:
    """Declares documents (strings or token lists) as the input, as scikit-learn's text vectorizers do, and
    reads them one way in ``fit``: tokenised (:func:`~embedcore.tokens.documents_as_tokens`), then counted into
    the vocabulary of words seen at least ``min_count`` times (:func:`build_vocabulary`), which the estimator's
    ``_fit_documents`` takes from there.

    Examples
    --------
    >>> wv = PMIWordVectors(n_components=2, window=2, min_count=1, random_state=0)
    >>> isinstance(wv, DocumentInput), len(wv.fit(["cats chase mice", "dogs chase cats"] * 3).vocabulary_)
    (True, 4)
    """

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
    >>> from embedcore.words import LabelEmbedding
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
                    pmi=None, **params) -> PMIWordVectors:
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
        pmi : sparse (V, V) array, optional
            The PMI of ``cooccurrence`` under these parameters, as
            :func:`pmi_matrix` gives it with their ``alpha``, ``shift`` and
            ``positive``: computed once and passed to every fit that differs
            only in ``n_components``, ``eig_weight`` or ``random_state``, so
            only the SVD is done again. It is taken as given, not checked
            against the counts.
        **params
            The estimator's parameters (``n_components``, ``alpha``, ...); the
            counting ones (``window``, ``min_count``, ...) are recorded as given.

        Examples
        --------
        >>> from embedcore.tokens import tokenize
        >>> docs = [tokenize(d) for d in ["the cat sat on the mat", "the dog sat on the rug"] * 20]
        >>> counts = build_vocabulary(docs)
        >>> C = cooccurrence(docs, pd.Index(counts.index))
        >>> wv = PMIWordVectors.from_counts(counts, C, n_components=3, random_state=0)
        >>> bool(np.allclose(wv.vectors_, PMIWordVectors(n_components=3, random_state=0).fit(docs).vectors_))
        True
        >>> P = pmi_matrix(C)  # the defaults' alpha, shift and positive
        >>> wider = PMIWordVectors.from_counts(counts, C, pmi=P, n_components=4, random_state=0)
        >>> wider.pmi_ is P, wider.vectors_.shape
        (True, (7, 4))
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
        if pmi is not None:
            pmi = pmi if isinstance(pmi, sp.csr_array) else sp.csr_array(pmi)  # shared, not copied
            if pmi.shape != C.shape:
                raise ValueError(f"The PMI matrix is {pmi.shape[0]} x {pmi.shape[1]}, but the vocabulary has "
                                 f"{len(counts)} words; compute it from the same counts.")
        wv._fit_counts(counts, C, document_frequency, n_documents, pmi)
        return wv

    def _fit_counts(self, counts: pd.Series, C, document_frequency, n_documents, P=None) -> None:
        """Every fitted attribute from the vocabulary, its co-occurrences and document frequencies (and the PMI,
        when it was computed before)."""
        index = pd.Index(counts.index, dtype=object)
        self.cooccurrence_ = C
        if P is None:
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
        return truncated_svd(P, self.n_components, random_state=self.random_state)

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


def truncated_svd(P, k: int, *, oversamples: int = 20, n_iter: int = 5, random_state=None):
    """The top ``k`` left singular vectors and singular values of a sparse matrix, by a randomised range finder.

    Halko, Martinsson and Tropp's algorithm, as scikit-learn's ``randomized_svd`` runs it with ``n_iter`` power
    iterations and LU normalisation: a Gaussian start of ``k + oversamples`` columns, ``Q <- lu(P Q)``,
    ``Q <- lu(P^T Q)`` ``n_iter`` times, an orthonormal basis ``Q`` of ``P Q``, and the SVD of the small
    ``B = Q^T P``. Three things make it cheaper for one thread, not different: the LU that only keeps the
    columns apart is taken once per iteration, after ``P^T P Q``, not after each product (the subspace is the
    same); the Gaussian start of an integer seed is kept; and the SVD of ``B`` (``k + oversamples`` rows)
    comes from the eigendecomposition of ``B B^T`` in float64, ``B = W S V^T`` with ``B B^T = W S^2 W^T``. The products run in float32, which halves their memory traffic; the singular values
    agree with scikit-learn's from the same start to about 1e-6 relative. Signs as scikit-learn's: each
    column's largest entry is positive.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> A = sp.random_array((60, 60), density=0.2, random_state=rng)
    >>> U, s = truncated_svd(A, 3, random_state=0)
    >>> U.shape, bool(np.allclose(s, np.linalg.svd(A.toarray(), compute_uv=False)[:3], rtol=1e-3))
    ((60, 3), True)
    """
    import scipy.linalg as sl

    A = sp.csr_array(P, dtype=np.float32)
    AT = A.T
    if isinstance(random_state, Integral):
        Q = _gaussian_start(A.shape[1], k + oversamples, int(random_state))
    else:
        Q = check_random_state(random_state).normal(size=(A.shape[1], k + oversamples)).astype(np.float32)
    for _ in range(n_iter):
        # one LU per iteration: it changes the basis, not the subspace, and one product grows the columns'
        # condition by at most sigma_1 / sigma_(k+oversamples), far from what float32 can hold
        Q = sl.lu(AT @ (A @ Q), permute_l=True, check_finite=False)[0]
    Q = sl.qr(A @ Q, mode="economic", check_finite=False)[0]
    Bt = (AT @ Q).astype(np.float64)  # B^T = P^T Q
    w, W = np.linalg.eigh(Bt.T @ Bt)  # B B^T, ascending
    w, W = w[::-1][:k], W[:, ::-1][:, :k]
    U = (Q @ W.astype(np.float32)).astype(np.float64)
    U *= np.sign(U[np.argmax(np.abs(U), axis=0), np.arange(U.shape[1])])
    return U, np.sqrt(np.maximum(w, 0.0))


@functools.lru_cache(maxsize=8)
def _gaussian_start(rows: int, columns: int, seed: int) -> np.ndarray:
    """The range finder's Gaussian start for a seed, as scikit-learn draws it (read-only): kept, since drawing
    it took as long as two of the sparse products (a new dimension or window redraws it with the same seed)."""
    Q = np.random.RandomState(seed).normal(size=(rows, columns)).astype(np.float32)
    Q.flags.writeable = False
    return Q


def word_clusters(wv: PMIWordVectors, n_words: int, n_clusters: int, random_state=None) -> np.ndarray:
    """k-means cluster of each of the ``n_words`` most frequent words, on unit vectors (cosine geometry).

    Examples
    --------
    >>> docs = ["cats chase mice", "dogs chase cats", "mice eat cheese", "dogs eat bones"] * 5
    >>> wv = PMIWordVectors(n_components=2, window=2, min_count=1, random_state=0).fit(docs)
    >>> word_clusters(wv, 4, 2, random_state=0).shape
    (4,)
    """
    from sklearn.cluster import KMeans

    X = wv.normed_[:n_words]
    return KMeans(n_clusters=min(n_clusters, len(X)), n_init=4, random_state=random_state).fit_predict(X)


def document_coordinates(wv: PMIWordVectors, documents, random_state=None) -> np.ndarray:
    """Document vectors (tf-idf weighted sums of word vectors, rows scaled to unit length) projected to 2-D by PCA.

    Fewer than three documents have no plane to project on: they sit at the origin.

    Examples
    --------
    >>> docs = ["cats chase mice", "dogs chase cats", "mice eat cheese", "dogs eat bones"] * 5
    >>> wv = PMIWordVectors(n_components=2, window=2, min_count=1, random_state=0).fit(docs)
    >>> document_coordinates(wv, docs[:4], random_state=0).shape, document_coordinates(wv, docs[:2]).tolist()
    ((4, 2), [[0.0, 0.0], [0.0, 0.0]])
    """
    from sklearn.decomposition import PCA

    D = wv.transform(documents, weighting="tfidf")
    return PCA(2, random_state=random_state).fit_transform(D) if len(D) >= 3 else np.zeros((len(D), 2))
