"""Word vectors measured: human word-pair scores, Word2Vec as the baseline, and the tuned comparisons of word
vectors and of document representations."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

from ..tokens import documents_as_tokens
from .counting import build_vocabulary, check_vocabulary, cooccurrence, term_counts
from .pmi import PMIWordVectors


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
    A pair with a word outside a method's vocabulary has cosine NaN.

    Examples
    --------
    >>> docs = ["cats chase mice", "dogs chase cats", "mice eat cheese", "dogs eat bones"] * 5
    >>> pairs = pd.DataFrame({"word1": ["cats", "mice"], "word2": ["dogs", "unicorns"], "score": [7.0, 1.0]})
    >>> cos = word_vector_similarities(docs, pairs, n_components=2, min_count=1,
    ...                                pmi_grid=[dict(window=2, eig_weight=0.0, shift=1.0)],
    ...                                word2vec_grid=[dict(epochs=1, window=2)])
    >>> sorted(cos)[1], np.isnan(cos[sorted(cos)[1]]).tolist()
    (('PMI-SVD', 'window=2, eig_weight=0, shift=1'), [False, True])
    """
    from ..evaluation import setting_text

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

    Examples
    --------
    >>> from itertools import combinations
    >>> docs = ["cats chase mice", "dogs chase cats", "mice eat cheese", "dogs eat bones"] * 5
    >>> both = list(combinations(["cats", "chase", "mice", "dogs", "eat", "cheese", "bones"], 2))
    >>> pairs = pd.DataFrame({"word1": [a for a, _ in both], "word2": [b for _, b in both],
    ...                       "score": np.arange(len(both), dtype=float)})
    >>> result = compare_word_vectors(docs, pairs, n_components=2, min_count=1, n_repeats=1,
    ...                               pmi_grid=[dict(window=2, eig_weight=0.0, shift=1.0)],
    ...                               word2vec_grid=[dict(epochs=1, window=2)])
    >>> result.sides["side"].tolist(), len(result.pairs)
    (['PMI-SVD', 'CBOW', 'skip-gram'], 21)
    """
    from scipy.stats import spearmanr

    from ..evaluation import Side, compare, setting_text

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

    Examples
    --------
    >>> texts = ["good fine great day", "great good nice", "fine nice good", "bad awful poor", "poor bad sad",
    ...          "awful sad bad"] * 2
    >>> result = compare_document_features(texts, [1, 1, 1, 0, 0, 0] * 2, n_components=2, n_splits=2)
    >>> result.dims["bag of words"], result.dims["feature hashing (2^10)"], len(result.differences)
    (9, 1024, 4)
    """
    from sklearn.feature_extraction.text import (
        CountVectorizer,
        HashingVectorizer,
        TfidfVectorizer,
    )
    from sklearn.linear_model import LogisticRegression

    from ..evaluation import Side, compare

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
