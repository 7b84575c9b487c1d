"""Word vectors from co-occurrence counts: PMI, shifted PPMI and truncated SVD.

Count how often words appear near each other, turn the counts into pointwise
mutual information (how much more often than chance), keep the positive part
(optionally shifted), and factorise the matrix with a truncated SVD. The rows
of ``U Sigma^p`` are word vectors that Levy, Goldberg and Dagan (2015) found a
match for Word2Vec's when both are tuned alike (:func:`compare_word_vectors`
measures that on a corpus, with intervals), and every step can be looked at.

Modules
-------
==========  ==================================================================
counting    the vocabulary (``build_vocabulary``, ``prune_vocabulary``),
            co-occurrence counts (a window's are the sum of each distance's),
            document frequencies and ``pmi_matrix``
pmi         :class:`PMIWordVectors` (fitted from documents or from counts),
            the documents-as-input mixins, word clusters, document maps
evaluation  word-pair scores, Word2Vec as the baseline, and the tuned
            comparisons of word vectors and of document representations
labels      :class:`LabelEmbedding`: label sets encoded and decoded
==========  ==================================================================

The tokenizer is :mod:`embedcore.tokens`' (``tokenize`` is importable from here too).
"""

from ..tokens import check_word_spacing, tokenize
from .counting import (
    add_distance,
    build_vocabulary,
    check_vocabulary,
    cooccurrence,
    cooccurrence_at_distance,
    cooccurrence_of_distances,
    cooccurrence_of_ids,
    pmi_matrix,
    prune_vocabulary,
    smooth_idf,
    term_counts,
    token_ids,
)
from .evaluation import (
    DOCUMENT_C_GRID,
    DOCUMENT_FEATURES,
    PMI_GRID,
    WORD2VEC_GRID,
    WORD_METHODS,
    WordPairScore,
    compare_document_features,
    compare_word_vectors,
    evaluate_word_pairs,
    train_word2vec,
    word_vector_similarities,
)
from .labels import LabelEmbedding, Recovery
from .pmi import CountInput, DocumentInput, PMIWordVectors, document_coordinates, word_clusters

__all__ = [
    "tokenize",
    "check_word_spacing",
    "build_vocabulary",
    "prune_vocabulary",
    "check_vocabulary",
    "cooccurrence",
    "token_ids",
    "cooccurrence_of_ids",
    "cooccurrence_at_distance",
    "cooccurrence_of_distances",
    "add_distance",
    "pmi_matrix",
    "smooth_idf",
    "term_counts",
    "DocumentInput",
    "CountInput",
    "PMIWordVectors",
    "word_clusters",
    "document_coordinates",
    "WordPairScore",
    "evaluate_word_pairs",
    "train_word2vec",
    "compare_word_vectors",
    "word_vector_similarities",
    "compare_document_features",
    "PMI_GRID",
    "WORD2VEC_GRID",
    "WORD_METHODS",
    "DOCUMENT_C_GRID",
    "DOCUMENT_FEATURES",
    "LabelEmbedding",
    "Recovery",
]
