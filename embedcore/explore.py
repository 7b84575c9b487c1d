"""Exploring a table of one's own vectors: which columns play which part, colours that stay readable, search,
filters and labelled clusters on a map.

Each function takes arrays or a DataFrame and returns arrays, so a page can show what it computes and a
script can do the same outside the app.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from .exceptions import DataError

__all__ = ["OTHER", "category_groups", "cluster_map", "cluster_words", "column_roles", "density_contours",
           "filter_rows", "search"]

#: The legend entry that holds every category past the most frequent ones.
OTHER = "other"


def column_roles(meta: pd.DataFrame | None) -> dict[str, list[str]]:
    """The metadata columns a page can colour by, label with and filter on.

    ``category``: text or whole-number columns with at most half as many values as rows (or at most 50);
    ``number``: numeric columns with more values than that; ``text``: every text column (labels, search).

    Examples
    --------
    >>> meta = pd.DataFrame({"title": ["a b", "c d", "e f", "g h"], "topic": ["x", "y", "x", "y"],
    ...                      "length": [1.5, 2.5, 3.0, 4.0]})
    >>> column_roles(meta)
    {'category': ['topic'], 'number': ['length'], 'text': ['title', 'topic']}
    """
    out: dict[str, list[str]] = {"category": [], "number": [], "text": []}
    if meta is None:
        return out
    n = len(meta)
    for name in meta.columns:
        col = meta[name]
        distinct = col.nunique(dropna=True)
        numeric = pd.api.types.is_numeric_dtype(col)
        few = distinct <= max(50, n // 2) and distinct < n
        if not numeric:
            out["text"].append(str(name))
        if few and (not numeric or pd.api.types.is_integer_dtype(col) or distinct <= 20):
            out["category"].append(str(name))
        elif numeric:
            out["number"].append(str(name))
    return out


def text_codes(values) -> tuple[np.ndarray, list[str]]:
    """Each value's code into its distinct texts (``str`` of the value; missing ones are ``"(missing)"``), the
    texts in order of first appearance; found by hashing, without sorting the values.

    Examples
    --------
    >>> codes, names = text_codes(["b", None, 1, "1", float("nan"), "b"])
    >>> codes.tolist(), names
    ([0, 1, 2, 2, 1, 0], ['b', '(missing)', '1'])
    """
    raw, uniques = pd.factorize(pd.Series(np.asarray(values, dtype=object), dtype=object), use_na_sentinel=True)
    texts = [str(u) for u in uniques] + ["(missing)"]
    raw = np.where(raw < 0, len(texts) - 1, raw)
    merged, names = pd.factorize(pd.Series(texts, dtype=object))  # 1 and "1" are one text
    codes = merged[raw] if len(raw) else np.zeros(0, dtype=np.int64)
    used = np.unique(codes)  # "(missing)" only when a value is missing; names in order of first appearance
    first = np.full(len(names), len(codes), dtype=np.int64)
    np.minimum.at(first, codes, np.arange(len(codes)))
    keep = used[np.argsort(first[used], kind="stable")]
    remap = np.full(len(names), -1, dtype=np.int64)
    remap[keep] = np.arange(len(keep))
    return remap[codes].astype(np.int32), [str(names[k]) for k in keep]


def category_groups(values, top: int = 12) -> tuple[np.ndarray, list[str], dict[str, int]]:
    """Codes for a colour legend of at most ``top`` entries: the ``top - 1`` most frequent categories and
    :data:`OTHER` for the rest (no "other" when ``top`` or fewer categories exist). Missing values are
    ``"(missing)"``.

    Returns
    -------
    codes : ndarray of int32, one per value
    names : list of str, the legend's entries in order (most frequent first, "other" last)
    counts : dict, rows per entry

    Examples
    --------
    >>> codes, names, counts = category_groups(["a", "b", "a", "c", "d"], top=3)
    >>> codes.tolist(), names, counts
    ([0, 1, 0, 2, 2], ['a', 'b', 'other'], {'a': 2, 'b': 1, 'other': 2})
    """
    texts, found = text_codes(values)
    freq = np.bincount(texts, minlength=len(found))
    order = np.lexsort((np.asarray(found, dtype=str), -freq))
    names = [found[k] for k in order]
    if len(names) > top:
        names = names[: top - 1] + [OTHER]
    index = {name: k for k, name in enumerate(names)}
    fallback = index.get(OTHER, -1)
    lookup = np.array([index.get(name, fallback) for name in found], dtype=np.int32)
    codes = lookup[texts] if len(texts) else np.zeros(0, dtype=np.int32)
    counts = {name: int((codes == k).sum()) for name, k in index.items()}
    return codes, names, counts


def search(texts, pattern: str, *, regex: bool = False) -> np.ndarray:
    """Rows whose text holds ``pattern`` (case ignored): a plain substring, or a regular expression.

    Raises
    ------
    DataError
        For a regular expression that does not compile, naming the error.

    Examples
    --------
    >>> search(["Paris", "Lyon", "paris-nord"], "paris").tolist()
    [0, 2]
    >>> search(["a1", "b22", "c"], r"\\d{2}", regex=True).tolist()
    [1]
    """
    s = pd.Series(np.asarray(texts, dtype=object)).map(lambda v: "" if v is None else str(v))
    if not pattern:
        return np.zeros(0, dtype=np.int64)
    if regex:
        try:
            compiled = re.compile(pattern, re.IGNORECASE)
        except re.error as err:
            raise DataError(f"The search {pattern[:80]!r} is not a regular expression ({err}). Fix it, or turn "
                            "'Regular expression' off to search for the text as typed.") from None
        hits = s.map(lambda v: compiled.search(v) is not None)
    else:
        hits = s.str.contains(pattern, case=False, regex=False)
    return np.flatnonzero(hits.to_numpy(dtype=bool))


def filter_rows(column, *, values=None, low=None, high=None) -> np.ndarray:
    """A boolean mask: the rows whose value is among ``values`` (compared as text), or within [low, high].

    Examples
    --------
    >>> filter_rows(["x", "y", "z"], values=["x", "z"]).tolist()
    [True, False, True]
    >>> filter_rows([1.0, 5.0, float("nan")], low=0, high=2).tolist()
    [True, False, False]
    """
    a = np.asarray(column, dtype=object)
    if values is not None:
        wanted = {str(v) for v in values}
        return np.fromiter((("(missing)" if v is None or v != v else str(v)) in wanted for v in a),
                           dtype=bool, count=len(a))
    x = pd.to_numeric(pd.Series(a), errors="coerce").to_numpy(dtype=np.float64)
    keep = np.isfinite(x)
    if low is not None:
        keep &= x >= low
    if high is not None:
        keep &= x <= high
    return keep


#: Rows past which HDBSCAN runs on a seeded sample of this many (its neighbour search grows with the rows and the
#: smallest cluster, a hundredth of them) and the other rows take the cluster of their nearest sampled row.
CLUSTER_SAMPLE = 20_000


def cluster_map(coords, labels=None, *, space=None, min_size: int | None = None,
                words: bool = False) -> tuple[np.ndarray, pd.DataFrame]:
    """Clusters found by HDBSCAN (density-based: no number of clusters to choose; sparse points stay unclustered,
    -1), each with its centre on the map, its size and, given ``labels``, a name: the most common label and its
    share, or with ``words`` the label texts' most distinctive words (:func:`cluster_words`; share NaN).

    HDBSCAN runs on the map ``coords``, or on ``space`` (the vectors, reduced to their top 10 principal
    components when they have more: density in 64 or 768 dimensions is flat, and the search slow), so a cluster
    is a group of the data and not only of the picture. Past :data:`CLUSTER_SAMPLE` rows it runs on a seeded
    sample of that many and every other row joins its nearest sampled row's cluster.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> xy = np.vstack([rng.normal(0, 0.1, (40, 2)), rng.normal(5, 0.1, (40, 2))])
    >>> found, table = cluster_map(xy, ["a"] * 40 + ["b"] * 40)
    >>> table[["size", "label", "share"]].to_dict("list")
    {'size': [40, 40], 'label': ['a', 'b'], 'share': [1.0, 1.0]}
    """
    from sklearn.cluster import HDBSCAN

    xy = np.asarray(coords, dtype=np.float64)
    n = len(xy)
    fitted = n if n <= CLUSTER_SAMPLE else CLUSTER_SAMPLE
    size = int(min_size or max(5, fitted // 100))
    columns = ["cluster", "size", "x", "y", "label", "share"]
    if n < 2 * size:
        return np.full(n, -1, dtype=np.int64), pd.DataFrame(columns=columns)
    where = xy if space is None else _reduced(np.asarray(space, dtype=np.float64), 10)
    if n <= CLUSTER_SAMPLE:
        found = HDBSCAN(min_cluster_size=size, copy=True).fit_predict(where).astype(np.int64)
    else:  # HDBSCAN on a seeded sample; every other row joins the cluster (or the noise) of its nearest sampled row
        from scipy.spatial import cKDTree

        sample = np.sort(np.random.default_rng(0).choice(n, CLUSTER_SAMPLE, replace=False))
        labelled = HDBSCAN(min_cluster_size=size, copy=True).fit_predict(where[sample]).astype(np.int64)
        _, nearest = cKDTree(where[sample]).query(where, k=1, workers=-1)
        found = labelled[nearest]
    clusters = sorted(set(found.tolist()) - {-1})
    names = cluster_words(labels, found) if labels is not None and words else None
    rows = []
    for c in clusters:
        members = found == c
        row = {"cluster": c, "size": int(members.sum()), "x": float(np.median(xy[members, 0])),
               "y": float(np.median(xy[members, 1])), "label": "", "share": float("nan")}
        if names is not None:
            row["label"] = ", ".join(names.get(c, []))
        elif labels is not None:
            top = pd.Series(np.asarray(labels, dtype=object)[members]).astype(str).value_counts()
            row["label"], row["share"] = str(top.index[0]), float(top.iloc[0] / members.sum())
        rows.append(row)
    return found, pd.DataFrame(rows, columns=columns)


def _reduced(X: np.ndarray, k: int) -> np.ndarray:
    """``X`` on its top ``k`` principal components (as it is when it has at most ``k`` columns)."""
    if X.shape[1] <= k:
        return X
    from sklearn.decomposition import PCA

    return PCA(n_components=k, random_state=0).fit_transform(X)


def cluster_words(texts, clusters, *, top: int = 3) -> dict[int, list[str]]:
    """The ``top`` most distinctive words of each cluster's texts, by class-based TF-IDF: a word's share of the
    cluster's words, times log(1 + A / f), where A is the average number of words a cluster has and f the
    word's count over every cluster. A word common everywhere scores low; one frequent in a single cluster
    high. English stop words and words of one letter are left out; unclustered rows (-1) count for nothing.

    Examples
    --------
    >>> texts = ["red apple pie", "apple tart", "green apple", "fast car race", "car engine", "race car"]
    >>> cluster_words(texts, [0, 0, 0, 1, 1, 1], top=1)
    {0: ['apple'], 1: ['car']}
    """
    from sklearn.feature_extraction.text import CountVectorizer
    from scipy import sparse

    texts = ["" if t is None else str(t) for t in np.asarray(texts, dtype=object)]
    clusters = np.asarray(clusters, dtype=np.int64)
    ids = sorted(set(clusters.tolist()) - {-1})
    if not ids:
        return {}
    try:
        counts = CountVectorizer(stop_words="english", token_pattern=r"(?u)\b[^\W\d_]{2,}\b").fit(texts)
    except ValueError:  # no word in any text (numbers only, or stop words)
        return {c: [] for c in ids}
    words = counts.get_feature_names_out()
    D = counts.transform(texts)
    member = clusters >= 0
    pos = np.searchsorted(ids, clusters[member])
    onehot = sparse.csr_array((np.ones(len(pos)), (pos, np.flatnonzero(member))), shape=(len(ids), len(texts)))
    C = (onehot @ D).toarray()  # words per cluster
    per = C.sum(axis=1, keepdims=True)
    tf = C / np.maximum(per, 1)
    idf = np.log1p(per.mean() / np.maximum(C.sum(axis=0), 1))
    score = tf * idf
    out = {}
    for k, c in enumerate(ids):
        order = np.argsort(-score[k], kind="stable")[:top]
        out[c] = [str(words[j]) for j in order if score[k, j] > 0]
    return out


def density_contours(coords, *, fractions=(0.25, 0.5, 0.75), grid: int = 128) -> list[tuple[float, list]]:
    """Lines of equal density of a map, each enclosing the densest ``fraction`` of its points.

    The density is a Gaussian kernel estimate on a ``grid`` x ``grid`` lattice over the points (binned, then
    smoothed: a bandwidth by Scott's rule, the same on both axes as the map has one scale), read at every point;
    the line for a fraction f is the level that the densest f of the points lie above. Returns (fraction, paths)
    pairs, each path an (m, 2) array in map units (contourpy draws them).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> xy = np.vstack([rng.normal(0, 1, (300, 2)), rng.normal(8, 1, (300, 2))])
    >>> [(f, len(paths)) for f, paths in density_contours(xy, fractions=(0.5,))]
    [(0.5, 2)]
    """
    import contourpy
    from scipy.ndimage import gaussian_filter

    xy = np.asarray(coords, dtype=np.float64)
    xy = xy[np.isfinite(xy).all(axis=1)]
    n = len(xy)
    if n < 10:
        return []
    spread = float(np.mean(xy.std(axis=0)))
    if not spread > 0:
        return []
    bandwidth = spread * n ** (-1 / 6)  # Scott's rule in two dimensions
    lo, hi = xy.min(axis=0) - 3 * bandwidth, xy.max(axis=0) + 3 * bandwidth
    step = float(max(hi - lo)) / (grid - 1)
    shape = np.maximum(np.ceil((hi - lo) / step).astype(int) + 1, 2)
    cells = np.minimum(((xy - lo) / step).round().astype(int), shape - 1)
    H = np.zeros(shape[::-1])
    np.add.at(H, (cells[:, 1], cells[:, 0]), 1.0)
    Z = gaussian_filter(H, sigma=bandwidth / step, mode="constant")
    at_points = Z[cells[:, 1], cells[:, 0]]
    xs, ys = lo[0] + step * np.arange(shape[0]), lo[1] + step * np.arange(shape[1])
    generator = contourpy.contour_generator(xs, ys, Z, line_type="Separate")
    out = []
    for f in fractions:
        level = float(np.quantile(at_points, 1 - f))
        out.append((float(f), [np.asarray(p) for p in generator.lines(level) if len(p) > 2]))
    return out
