"""EMDE against other encodings of sets: bucket statistics as K and N vary, and a benchmark of classifiers on the sketches, the bag of items and the mean vector under the lab's protocol (:func:`embedcore.evaluation.compare`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.utils.validation import (
    check_array,
    check_random_state,
)

from .estimator import EMDE, as_vectors


def bucket_statistics(
    X,
    n_hyperplanes_grid: Sequence[int],
    n_partitions: int,
    *,
    offsets: str = "data",
    n_neighbors: int = 5,
    n_pairs: int = 2000,
    random_state=None,
) -> pd.DataFrame:
    """How K shapes the buckets: one row per K in the grid.

    Columns: ``empty_fraction`` (buckets no item falls in),
    ``items_per_bucket`` (mean over occupied buckets), ``near_share`` (how
    often an item and one of its ``n_neighbors`` nearest neighbours share a
    bucket, per partitioning) and ``far_share`` (the same for random pairs).

    Examples
    --------
    More planes make more, emptier buckets, and near items share one less often:

    >>> X = np.random.default_rng(0).normal(size=(200, 5))
    >>> stats = bucket_statistics(X, [1, 4, 8], 4, random_state=0)
    >>> stats[["K", "buckets", "empty_fraction", "near_share", "far_share"]].round(2).values.tolist()
    [[1.0, 2.0, 0.0, 0.84, 0.63], [4.0, 16.0, 0.36, 0.56, 0.21], [8.0, 256.0, 0.83, 0.3, 0.06]]
    """
    X = as_vectors(X)
    rng = check_random_state(random_state)
    pairs = sharing_pairs(X, n_neighbors=n_neighbors, n_pairs=n_pairs, random_state=rng)
    rows = []
    for K in n_hyperplanes_grid:
        e = EMDE(n_hyperplanes=int(K), n_partitions=n_partitions, offsets=offsets, random_state=rng).fit(X)
        counts = np.asarray(e.item_sketches_.sum(axis=0)).ravel()
        occupied = counts > 0
        near, far = pair_sharing(e.item_codes_, pairs)
        rows.append(
            {
                "K": int(K),
                "buckets": int(2**K),
                "empty_fraction": float(1 - occupied.mean()),
                "items_per_bucket": float(counts[occupied].mean()),
                "near_share": near,
                "far_share": far,
            }
        )
    return pd.DataFrame(rows)


class SharingPairs(NamedTuple):
    """Pairs of items to test buckets on: near pairs (an item and one of its nearest neighbours) and random pairs,
    as index arrays ``near_a[i], near_b[i]`` and ``far_a[i], far_b[i]``.

    Examples
    --------
    >>> pairs = sharing_pairs(np.arange(20.0).reshape(10, 2), n_neighbors=2, n_pairs=8, random_state=0)
    >>> len(pairs.near_a), len(pairs.far_a)
    (8, 8)
    """

    near_a: np.ndarray
    near_b: np.ndarray
    far_a: np.ndarray
    far_b: np.ndarray


def sharing_pairs(X, *, n_neighbors: int = 5, n_pairs: int = 2000, random_state=None) -> SharingPairs:
    """Draw ``n_pairs`` near pairs (an item and one of its ``n_neighbors`` nearest neighbours, never itself) and
    ``n_pairs`` random pairs of the items ``X``, for :func:`pair_sharing`.

    Examples
    --------
    >>> X = np.array([[0.0], [0.1], [5.0], [5.1]])
    >>> p = sharing_pairs(X, n_neighbors=1, n_pairs=4, random_state=0)
    >>> {tuple(sorted(ab)) for ab in zip(p.near_a.tolist(), p.near_b.tolist())} <= {(0, 1), (2, 3)}
    True
    """
    from sklearn.neighbors import NearestNeighbors

    X = as_vectors(X)
    rng = check_random_state(random_state)
    n = X.shape[0]
    k = min(n_neighbors, max(n - 1, 1))
    nn = NearestNeighbors(n_neighbors=k).fit(X).kneighbors(return_distance=False)  # never the item itself
    near_a = np.repeat(np.arange(n), k)
    near_b = nn.ravel()
    pick = rng.randint(0, near_a.size, size=min(n_pairs, near_a.size))
    near_a, near_b = near_a[pick], near_b[pick]
    far_a, far_b = rng.randint(0, n, size=n_pairs), rng.randint(0, n, size=n_pairs)
    return SharingPairs(near_a, near_b, far_a, far_b)


def pair_sharing(codes, pairs: SharingPairs) -> tuple[float, float]:
    """How often the near pairs and the random pairs share a bucket, per partitioning: ``(near, far)``, each the
    share of (pair, partitioning) with equal codes. ``codes`` is an EMDE's ``item_codes_`` (items x N).

    Examples
    --------
    >>> codes = np.array([[0, 1], [0, 1], [1, 0], [1, 1]])
    >>> pair_sharing(codes, SharingPairs(np.array([0]), np.array([1]), np.array([0, 2]), np.array([2, 3])))
    (1.0, 0.25)
    """
    codes = np.asarray(codes)
    if codes.ndim == 1:
        codes = codes[:, None]
    near = float((codes[pairs.near_a] == codes[pairs.near_b]).mean()) if len(pairs.near_a) else float("nan")
    far = float((codes[pairs.far_a] == codes[pairs.far_b]).mean()) if len(pairs.far_a) else float("nan")
    return near, far


def word2vec_item_vectors(items: Sequence[str], sets, *, vector_size: int = 50, window: int = 5,
                          epochs: int = 20, random_state: int = 0) -> np.ndarray:
    """Item vectors learned by Word2Vec (gensim CBOW) from the sets read as sentences, as the post did.

    Each set is a sentence of item names (repeats kept, in the set's order);
    items that share sets get near vectors. Rows follow ``items``; an item
    that is in no set gets no training, so it gets the mean of the learned
    vectors (the centre of the cloud, where it says nothing). One worker
    thread, so the same ``random_state`` gives the same vectors.

    Examples
    --------
    >>> sets = [["a", "b"], ["b", "a", "c"], ["c", "d"]] * 20
    >>> V = word2vec_item_vectors(["a", "b", "c", "d", "e"], sets, vector_size=8, epochs=2)
    >>> V.shape, bool(np.allclose(V[4], V[:4].mean(axis=0)))
    ((5, 8), True)
    """
    from ..words import train_word2vec

    items = [str(i) for i in items]
    sentences = [[str(t) for t in s] for s in sets]
    if not any(sentences):
        raise ValueError("Word2Vec needs sets with items in them: every set is empty.")
    kv = train_word2vec(sentences, vector_size=int(vector_size), window=int(window), min_count=1,
                        epochs=int(epochs), random_state=int(random_state))
    idx = np.array([kv.key_to_index.get(i, -1) for i in items], dtype=np.int64)
    learned = np.asarray(kv.vectors, dtype=np.float64)
    out = np.empty((len(items), learned.shape[1]))
    seen = idx >= 0
    out[seen] = learned[idx[seen]]
    out[~seen] = learned[idx[seen]].mean(axis=0) if seen.any() else 0.0
    return out


def set_encodings(grid: Sequence[tuple[int, int]]) -> list[tuple]:
    """The encodings a set benchmark compares: EMDE for every (K, N) in ``grid``, then the baselines.

    Each encoding is a hashable tuple: ``("emde", K, N)``, ``("one-hot",)``
    (the bag of items) or ``("mean",)`` (the weighted mean item vector).

    Examples
    --------
    >>> set_encodings([(4, 16)])
    [('emde', 4, 16), ('one-hot',), ('mean',)]
    """
    return [("emde", int(K), int(N)) for K, N in grid] + [("one-hot",), ("mean",)]


def encoding_name(encoding: tuple) -> str:
    """How a benchmark table names an encoding.

    Examples
    --------
    >>> encoding_name(("emde", 4, 16)), encoding_name(("mean",))
    ('EMDE K=4 N=16', 'mean vector')
    """
    kind = encoding[0]
    if kind == "emde":
        return f"EMDE K={encoding[1]} N={encoding[2]}"
    if kind == "one-hot":
        return "one-hot (bag of items)"
    if kind == "mean":
        return "mean vector"
    raise ValueError(f"Unknown set encoding {encoding!r}: use ('emde', K, N), ('one-hot',) or ('mean',).")


def _encode(items: np.ndarray, W: sp.csr_array, encoding: tuple, norm: str | None, random_state):
    from sklearn.preprocessing import normalize

    kind = encoding[0]
    if kind == "emde":
        return EMDE(n_hyperplanes=encoding[1], n_partitions=encoding[2], norm=norm, drop_empty=True,
                    random_state=random_state).fit(items).sketch(W)
    if kind == "one-hot":
        return normalize(W) if norm else W
    totals = np.asarray(W.sum(axis=1)).ravel()
    totals[totals == 0] = 1.0
    return (W @ items) / totals[:, None]


#: The post's grid of (K, N): sketch widths from 2 x 2000 buckets to one partitioning of 2**30.
SEED_GRID: tuple[tuple[int, int], ...] = ((1, 2000), (1, 1000), (8, 10), (8, 30), (10, 10), (10, 30), (30, 1))


def statistics_grid(n_items: int) -> list[int]:
    """The values of K worth measuring for ``n_items`` items: 1 up to three planes past log2(n), at most 14.

    Beyond ``log2(n)`` planes there are more buckets than items; the three
    more show the buckets emptying.

    Examples
    --------
    >>> statistics_grid(200)
    [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]
    >>> statistics_grid(1)
    [1, 2, 3, 4]
    """
    top = int(min(14, max(2, np.ceil(np.log2(max(n_items, 2))) + 3)))
    return list(range(1, top + 1))


# --------------------------------------------------------------------------- what the pictures show


# --------------------------------------------------------------------------- under the lab's protocol

#: The C values every set encoding's classifier is tuned over, widened past an edge by the protocol.
PROTOCOL_C_GRID: tuple[float, ...] = (0.01, 0.1, 1.0, 10.0, 100.0, 1000.0)
#: The sketch budget of the width experiment: N x 2**K buckets in all, the same for every K.
WIDTH_BUDGET = 4096
#: The Ks of the width experiment (N = WIDTH_BUDGET / 2**K): the authors advise 2**7 = 128 buckets per partitioning.
WIDTH_KS: tuple[int, ...] = (4, 5, 6, 7, 8, 10, 12)
#: The normalisations the norm experiment compares, (norm, scope), at the authors' K=7.
NORMS: tuple[tuple[str, str], ...] = (("l2", "row"), ("max", "row"), ("l2", "partition"), ("max", "partition"))


def pmi_item_vectors(items: Sequence[str], sets, *, n_components: int = 50, window: int = 5,
                     random_state: int = 0) -> np.ndarray:
    """Item vectors by PMI-SVD of the sets read as sentences (rows follow ``items``).

    Items in no set get the mean of the learned vectors, as
    :func:`word2vec_item_vectors` gives them. With fewer distinct items than
    ``n_components`` + 1 the vectors have as many dimensions as the SVD allows.

    Examples
    --------
    >>> sets = [["a", "b"], ["b", "c", "a"], ["c", "d"], ["a", "d"]] * 5
    >>> V = pmi_item_vectors(["a", "b", "c", "d", "e"], sets, n_components=2)
    >>> V.shape, bool(np.allclose(V[4], V[:4].mean(axis=0)))  # "e" is in no set
    ((5, 2), True)
    """
    from ..words import PMIWordVectors

    sentences = [[str(t) for t in s] for s in sets]
    distinct = len({t for s in sentences for t in s})
    if distinct < 3:
        raise ValueError(f"PMI-SVD needs sets holding at least 3 distinct items; these hold {distinct}.")
    wv = PMIWordVectors(window=window, min_count=1, n_components=min(n_components, distinct - 1),
                        random_state=random_state).fit(sentences)
    idx = np.array([wv.vocabulary_.get(str(i), -1) for i in items], dtype=np.int64)
    seen = idx >= 0
    out = np.empty((len(items), wv.normed_.shape[1]))
    out[seen] = wv.normed_[idx[seen]]
    out[~seen] = wv.normed_[idx[seen]].mean(axis=0) if seen.any() else 0.0
    return out


def item_vector_makers(items, sets, given=None, *, kinds=("given", "word2vec"), random_state: int = 0) -> dict:
    """How each kind of item vectors is made from the sets of some rows: ``{kind: make(rows) -> vectors}``.

    "given" returns the data's own vectors (learned from nothing the folds
    hold); "word2vec" and "pmi" train on the sets of ``rows`` alone, so the
    item vectors of a benchmark row are learned inside its training fold.

    Examples
    --------
    >>> sets = [["a", "b"], ["b", "c", "a"], ["c", "d"], ["a", "d"]] * 5
    >>> makers = item_vector_makers("abcde", sets, np.eye(5), kinds=("given", "pmi"))
    >>> makers["given"](np.arange(3)).shape, makers["pmi"](np.arange(8)).shape  # PMI from the first 8 sets
    ((5, 5), (5, 3))
    """
    items = [str(i) for i in items]
    sets = [list(s) for s in sets]
    makers = {}
    for kind in kinds:
        if kind == "given":
            if given is None:
                raise ValueError("'given' item vectors need the data's vectors.")
            X = as_vectors(given, "item_vectors")
            makers[kind] = lambda rows, X=X: X
        elif kind == "word2vec":
            makers[kind] = lambda rows: word2vec_item_vectors(items, [sets[i] for i in rows],
                                                              random_state=random_state)
        elif kind == "pmi":
            makers[kind] = lambda rows: pmi_item_vectors(items, [sets[i] for i in rows], random_state=random_state)
        else:
            raise ValueError(f"Unknown item vectors {kind!r}: use 'given', 'word2vec' or 'pmi'.")
    return makers


class SetBenchmark:
    """Sides of a set benchmark that share one cache of item vectors and encodings.

    Item vectors are made once per training part (:func:`item_vector_makers`),
    encodings once per (encoding, item vectors, training part, norm); every C of
    the grid reuses them. Each side fits logistic regression on the training
    rows of the encoded sets and scores the others.

    Examples
    --------
    >>> from embedcore.emde import sets_to_matrix
    >>> from embedcore.evaluation import compare
    >>> items = np.array([[1.0, 0.1], [0.9, -0.1], [1.1, 0.0], [0.0, 1.0], [0.1, 0.9], [-0.1, 1.1]])
    >>> sets = [[0, 1], [1, 2, 2], [0, 2], [3, 4], [4, 5, 5], [3, 5]] * 4
    >>> labels = [0, 0, 0, 1, 1, 1] * 4
    >>> bench = SetBenchmark(sets_to_matrix(sets, 6), labels, {"given": lambda rows: items})
    >>> sides = [bench.side("EMDE K=2 N=4", ("emde", 2, 4), "given", Cs=(1.0,)),
    ...          bench.side("mean vector", ("mean",), "given", Cs=(1.0,))]
    >>> out = compare(sides, len(labels), y=labels, n_splits=3, inner_splits=1)
    >>> out.sides[["side", "held-out", "chosen"]].values.tolist()
    [['EMDE K=2 N=4', 1.0, 'C=1'], ['mean vector', 1.0, 'C=1']]
    """

    def __init__(self, W, labels, makers: dict, *, random_state: int = 0):
        self.W = sp.csr_array(W, dtype=np.float64)
        self.y = np.asarray(labels)
        self.makers = makers
        self.random_state = random_state
        self._vectors: dict = {}
        self._features: dict = {}
        self.widths: dict = {}

    def vectors(self, kind: str, rows: np.ndarray) -> np.ndarray:
        key = (kind, rows.tobytes())
        if key not in self._vectors:
            self._vectors[key] = self.makers[kind](rows)
        return self._vectors[key]

    def features(self, encoding: tuple, kind: str | None, rows: np.ndarray, norm=("l2", "row")):
        fixed = kind is None or kind == "given" or encoding[0] == "one-hot"
        key = (encoding, kind, norm, b"" if fixed else rows.tobytes())
        if key not in self._features:
            if encoding[0] == "features":
                raise KeyError(f"No features named {encoding[1]!r}: give them with features_side.")
            if encoding[0] == "emde":
                items = self.vectors(kind, rows)
                F = EMDE(n_hyperplanes=encoding[1], n_partitions=encoding[2], norm=norm[0], norm_scope=norm[1],
                         drop_empty=True, random_state=self.random_state).fit(items).sketch(self.W)
            else:
                items = self.vectors(kind, rows) if encoding[0] == "mean" else None
                F = _encode(items, self.W, encoding, norm[0], self.random_state)
            self._features[key] = F.astype(np.float32)
        return self._features[key]

    def features_side(self, name: str, F, norm: str | None = "l2", Cs: Sequence[float] = PROTOCOL_C_GRID):
        """A side for features made elsewhere (sketches from the command line), one row per set: rows
        normalised by ``norm`` and the columns no set touches dropped, as the in-app EMDE drops empty buckets.
        ``widths[name]`` is the number of columns kept."""
        from sklearn.preprocessing import normalize

        F = sp.csr_array(check_array(F, accept_sparse="csr", dtype=np.float64, input_name="F"))
        if F.shape[0] != len(self.y):
            raise ValueError(f"The features have {F.shape[0]} rows but there are {len(self.y)} sets; "
                             "give one row per set, in the sets' order.")
        used, inverse = np.unique(F.indices, return_inverse=True)
        F = sp.csr_array((F.data, inverse.reshape(-1), F.indptr), shape=(F.shape[0], used.size))
        self._features[(("features", name), None, None, b"")] = (normalize(F, norm=norm) if norm else F).astype(
            np.float32)
        self.widths[name] = int(used.size)
        return self.side(name, ("features", name), None, norm=None, Cs=Cs)

    def side(self, name: str, encoding: tuple, kind: str | None, norm=("l2", "row"),
             Cs: Sequence[float] = PROTOCOL_C_GRID):
        """A :class:`~embedcore.evaluation.Side` for one encoding on one kind of item vectors, C tuned."""
        from sklearn.linear_model import LogisticRegression

        from ..evaluation import Side

        def score(setting, fit, ev):
            F = self.features(encoding, kind, fit, norm)
            model = LogisticRegression(C=setting["C"], max_iter=2000).fit(F[fit], self.y[fit])
            return float(model.score(F[ev], self.y[ev]))

        return Side(name, score, [{"C": float(c)} for c in Cs], widen="C")


def benchmark_sides(bench: SetBenchmark, grid: Sequence[tuple[int, int]], kinds: Sequence[str],
                    labels_of=None) -> list:
    """The benchmark's sides: EMDE at every (K, N) and the mean vector on each kind of item vectors, the bag of
    items once. ``labels_of(kind)`` names a kind in the rows' names (default: the kind itself).

    Examples
    --------
    >>> bench = SetBenchmark(np.eye(4), [0, 0, 1, 1], {"given": lambda rows: np.eye(4)})
    >>> [side.name for side in benchmark_sides(bench, [(2, 4)], ["given"])]
    ['EMDE K=2 N=4 · given', 'mean vector · given', 'one-hot (bag of items)']
    """
    labels_of = labels_of or (lambda k: k)
    sides = []
    for kind in kinds:
        for e in set_encodings(grid):
            if e[0] != "one-hot":
                sides.append(bench.side(f"{encoding_name(e)} · {labels_of(kind)}", e, kind))
    sides.append(bench.side(encoding_name(("one-hot",)), ("one-hot",), None))
    return sides


def width_sides(bench: SetBenchmark, kind: str, budget: int = WIDTH_BUDGET, Ks: Sequence[int] = WIDTH_KS) -> list:
    """EMDE at a fixed budget of N x 2**K buckets: one side per K, N = budget / 2**K (at least 1).

    Examples
    --------
    >>> bench = SetBenchmark(np.eye(4), [0, 0, 1, 1], {"given": lambda rows: np.eye(4)})
    >>> [side.name for side in width_sides(bench, "given", budget=64, Ks=(2, 4, 7))]
    ['K=2, N=16', 'K=4, N=4', 'K=7, N=1']
    """
    return [bench.side(f"K={K}, N={max(1, budget // 2**K)}", ("emde", int(K), max(1, budget // 2**K)), kind)
            for K in Ks]


def norm_sides(bench: SetBenchmark, kind: str, K: int = 7, N: int = WIDTH_BUDGET // 2**7,
               norms: Sequence[tuple[str, str]] = NORMS) -> list:
    """EMDE at one (K, N) under each normalisation: (norm, scope) with scope "row" (the whole sketch) or
    "partition" (each partitioning's block on its own).

    Examples
    --------
    >>> bench = SetBenchmark(np.eye(4), [0, 0, 1, 1], {"given": lambda rows: np.eye(4)})
    >>> [side.name for side in norm_sides(bench, "given", K=2, N=4)]
    ['l2 norm per row', 'max norm per row', 'l2 norm per partition', 'max norm per partition']
    """
    return [bench.side(f"{norm} norm per {scope}", ("emde", int(K), int(N)), kind, norm=(norm, scope))
            for norm, scope in norms]
