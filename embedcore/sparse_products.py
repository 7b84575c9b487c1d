"""Two ways to multiply sparse vectors, and why a linear SVM does not mind hashed features.

A sparse vector kept as a sorted list of (index, value) pairs is multiplied
by merging (:func:`embedcore.text.merge_dot`): at most ``|a| + |b|``
comparisons. Kept as a dictionary (a hash map from term to value) it needs
less: walk the smaller dictionary and look each of its terms up in the other,
``min(|a|, |b|)`` lookups of expected constant time (:func:`dict_dot`).

A linear SVM touches its data only through inner products (its decision
function is ``sign(sum_i alpha_i y_i <x_i, x> + b)``), so it works on any
sparse representation whose inner products are right. Feature hashing keeps
them right on average (a collision adds ``g(s) g(t) u_s v_t``, zero in
expectation with random signs), so an SVM on hashed features loses accuracy
only as fast as collisions blur the inner products:
:func:`hashed_svm_comparison` measures that against the unhashed vocabulary,
with both pipelines fitted inside each training fold.
"""

from __future__ import annotations

from collections.abc import Mapping
from numbers import Integral

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.feature_extraction.text import (
    CountVectorizer,
    HashingVectorizer,
    TfidfTransformer,
)
from sklearn.model_selection import RepeatedStratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.svm import LinearSVC

from .tokens import tokenize

__all__ = ["dict_dot", "dict_pairs", "hashed_svm_comparison", "row_dicts"]


def dict_dot(a: Mapping, b: Mapping, *, smaller_first: bool = True) -> tuple[float, int, int]:
    """The inner product of two sparse vectors kept as dictionaries (term -> value).

    With ``smaller_first`` the smaller dictionary is walked and each of its
    terms looked up in the larger: ``min(|a|, |b|)`` lookups. Without it
    ``a`` is walked whatever its size: ``|a|`` lookups.

    Returns
    -------
    (dot, lookups, matches): the inner product, the lookups made and the terms the two share.

    Examples
    --------
    >>> dict_dot({"giant helicopters": 1, "killer robots": 2}, {"killer robots": 3, "the": 9, "a": 4})
    (6.0, 2, 1)
    >>> dict_dot({"x": 1, "y": 1, "z": 1}, {"y": 2}, smaller_first=False)
    (2.0, 3, 1)
    """
    if smaller_first and len(b) < len(a):
        a, b = b, a
    total, matches = 0.0, 0
    for term, value in a.items():  # the algorithm itself: one lookup per entry of the walked dictionary
        other = b.get(term)
        if other is not None:
            total += value * other
            matches += 1
    return float(total), len(a), matches


def row_dicts(X, vocabulary) -> list[dict]:
    """Each row of a sparse (documents x terms) matrix as a dictionary {term: value} of its non-zeros.

    Examples
    --------
    >>> row_dicts(sp.csr_array(np.array([[1.0, 0.0, 2.0], [0.0, 3.0, 1.0]])), ["a", "b", "c"])
    [{'a': 1.0, 'c': 2.0}, {'b': 3.0, 'c': 1.0}]
    """
    X = sp.csr_array(X)
    terms = np.asarray(list(vocabulary), dtype=object)
    return [dict(zip(terms[X.indices[s:e]].tolist(), X.data[s:e].tolist()))
            for s, e in zip(X.indptr[:-1], X.indptr[1:])]


def dict_pairs(dicts: list[dict], rows_a, rows_b, *, smaller_first: bool = True) -> pd.DataFrame:
    """:func:`dict_dot` of many pairs of rows: dot, lookups, matches and both sizes per pair.

    Examples
    --------
    >>> dicts = [{"a": 1.0, "c": 2.0}, {"b": 3.0, "c": 1.0}, {"c": 4.0}]
    >>> dict_pairs(dicts, [0, 1], [1, 2])
       a  b  |a|  |b|  dot  lookups  matches
    0  0  1    2    2  2.0        2        1
    1  1  2    2    1  4.0        1        1
    """
    rows = [(a, b, len(dicts[a]), len(dicts[b]), *dict_dot(dicts[a], dicts[b], smaller_first=smaller_first))
            for a, b in zip(np.asarray(rows_a).tolist(), np.asarray(rows_b).tolist())]
    return pd.DataFrame(rows, columns=["a", "b", "|a|", "|b|", "dot", "lookups", "matches"])


def hashed_svm_comparison(texts, labels, bits=(4, 6, 8, 10, 12, 14, 16), *, signed: bool = True, C: float = 1.0,
                          n_splits: int = 5, n_repeats: int = 2, random_state=None) -> pd.DataFrame:
    """A linear SVM on tf-idf features, over the vocabulary and hashed into ``2**b`` buckets for each ``b``.

    Every pipeline (vocabulary or hashing, tf-idf weights, the SVM) is
    fitted inside each training fold and scored on its test fold; all rows
    use the same folds (stratified, ``n_splits`` x ``n_repeats``), so the
    differences from the unhashed row are paired. ``signed`` gives each term
    a random sign g(t) (scikit-learn's ``alternate_sign``).

    Returns one row per representation: ``features`` (its width),
    ``accuracy`` (mean over the folds), ``sd`` (over the folds) and
    ``vs unhashed`` (the mean paired difference with its fold spread, as
    ``diff`` and ``diff sd``).

    Examples
    --------
    >>> texts = ["good fine great", "great good nice", "fine nice good", "bad awful poor", "poor bad sad",
    ...          "awful sad bad"] * 2
    >>> table = hashed_svm_comparison(texts, [1, 1, 1, 0, 0, 0] * 2, bits=(2, 4), n_splits=2, n_repeats=1,
    ...                               random_state=0)
    >>> table[["features", "width", "accuracy"]]
                    features  width  accuracy
    0  vocabulary (unhashed)      8       1.0
    1          hashed, b = 2      4       1.0
    2          hashed, b = 4     16       1.0
    """
    texts = list(texts)
    y = np.asarray(labels)
    if len(texts) != len(y):
        raise ValueError(f"{len(texts)} texts but {len(y)} labels; give one label per text.")
    if len(np.unique(y)) < 2:
        raise ValueError("An SVM needs at least two classes among the labels.")
    for b in bits:
        if not isinstance(b, Integral) or not 1 <= b <= 24:
            raise ValueError(f"bits must be whole numbers from 1 to 24 (2**24 buckets at most), got {b!r}.")
    folds = list(RepeatedStratifiedKFold(n_splits=n_splits, n_repeats=n_repeats,
                                         random_state=random_state).split(texts, y))

    def scores(make) -> np.ndarray:
        out = []
        for train, test in folds:
            model = make().fit([texts[i] for i in train], y[train])
            out.append(float((model.predict([texts[i] for i in test]) == y[test]).mean()))
        return np.array(out)

    def unhashed():
        return make_pipeline(CountVectorizer(analyzer=tokenize), TfidfTransformer(), LinearSVC(C=C))

    def hashed(b):
        return lambda: make_pipeline(HashingVectorizer(analyzer=tokenize, n_features=2**b, alternate_sign=signed,
                                                       norm=None), TfidfTransformer(), LinearSVC(C=C))

    base = scores(unhashed)
    widths = {"vocabulary (unhashed)": None, **{f"hashed, b = {b}": 2**b for b in bits}}
    rows = []
    for name, width in widths.items():
        acc = base if width is None else scores(hashed(int(np.log2(width))))
        diff = acc - base
        rows.append({"features": name, "width": width, "accuracy": acc.mean(), "sd": acc.std(ddof=1),
                     "diff": diff.mean(), "diff sd": diff.std(ddof=1)})
    table = pd.DataFrame(rows)
    vocab = CountVectorizer(analyzer=tokenize).fit(texts).vocabulary_
    table.loc[0, "width"] = len(vocab)
    table["width"] = table["width"].astype(int)
    return table
