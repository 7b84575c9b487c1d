"""Bundled and package-shipped data sets, and synthetic generators.

Everything here works offline: files come from ``data/`` in this repository,
from scikit-learn, plotly and gensim's test data, or are generated. Every
loader returns the same result types as :mod:`embedcore.io`, so a page treats
bundled data and uploads alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd

from .io import (
    DocumentData,
    ItemSets,
    PlaylistData,
    TableData,
    VectorData,
    read_documents,
)

__all__ = [
    "DATA_DIR",
    "Dataset",
    "DATASETS",
    "datasets_of_kind",
    "load",
    "load_digits",
    "make_swiss_roll",
    "make_s_curve",
    "make_severed_sphere",
    "make_swiss_hole",
    "load_baskets",
    "load_hotdog",
    "load_tips",
    "load_gapminder",
    "load_corpus",
    "load_word_pairs",
    "load_mini_newsgroups",
    "load_weekday_similarity",
    "load_liquor_kl",
    "load_wind",
    "CategoryGraph",
    "gensim_datapath",
]

DATA_DIR = Path(__file__).resolve().parent.parent / "data"


@dataclass(frozen=True)
class Dataset:
    """A named data set a page can offer: its kind, a title, a description and a loader.

    Examples
    --------
    >>> datasets_of_kind("table")[0].title
    'Restaurant tips'
    """

    id: str
    kind: str  # "vectors" | "item_sets" | "table" | "documents"
    title: str
    description: str
    loader: Callable[..., object]


def gensim_datapath(name: str) -> Path:
    """Path of a file in gensim's bundled test data (no download): where ``gensim.test.utils.datapath`` puts it,
    found without importing gensim (that module imports all of gensim and reads the Lee corpus when it loads,
    0.7 s on the first page that reads a corpus).

    Examples
    --------
    >>> gensim_datapath("lee_background.cor").name
    'lee_background.cor'
    """
    import importlib.util

    spec = importlib.util.find_spec("gensim")
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError("gensim is not installed: its test data (the bundled corpora) ship with it.")
    return Path(spec.submodule_search_locations[0]) / "test" / "test_data" / name


# --------------------------------------------------------------------------- vectors


def load_digits(seed: int = 0) -> VectorData:
    """scikit-learn's 1,797 handwritten digits as 64-dimensional vectors (8 x 8 pixels, 0-16).

    Examples
    --------
    >>> digits = load_digits()
    >>> digits.X.shape, digits.meta["label"][:3].tolist()
    ((1797, 64), ['0', '1', '2'])
    """
    from sklearn.datasets import load_digits as _load

    d = _load()
    meta = pd.DataFrame({"label": d.target.astype(str)})
    return VectorData(
        "digits",
        X=d.data.astype(np.float64),
        meta=meta,
        columns=[f"px{r}{c}" for r in range(8) for c in range(8)],
    )


def _manifold(kind: str, n: int, noise: float, seed: int) -> VectorData:
    from sklearn import datasets as skd

    gen = {"swiss_roll": skd.make_swiss_roll, "s_curve": skd.make_s_curve}[kind]
    X, t = gen(n_samples=n, noise=noise, random_state=seed)
    return VectorData(kind, X=X, meta=pd.DataFrame({"t": t}), columns=["x", "y", "z"])


def make_swiss_roll(n_samples: int = 1500, noise: float = 0.0, seed: int = 0) -> VectorData:
    """A 2-D sheet rolled up in 3-D; ``meta['t']`` is the position along the roll.

    Examples
    --------
    >>> roll = make_swiss_roll(200)
    >>> roll.X.shape, roll.columns, len(roll.meta["t"])
    ((200, 3), ['x', 'y', 'z'], 200)
    """
    return _manifold("swiss_roll", n_samples, noise, seed)


def make_s_curve(n_samples: int = 1500, noise: float = 0.0, seed: int = 0) -> VectorData:
    """A 2-D sheet bent into an S in 3-D; ``meta['t']`` is the position along the S.

    Examples
    --------
    >>> make_s_curve(200).X.shape
    (200, 3)
    """
    return _manifold("s_curve", n_samples, noise, seed)


def make_severed_sphere(n_samples: int = 1500, noise: float = 0.0, seed: int = 0) -> VectorData:
    """A sphere with a cap cut off and a thin wedge cut out: it can be opened flat.

    ``meta['t']`` is the longitude, the coordinate an embedding should unroll.

    Examples
    --------
    >>> sphere = make_severed_sphere(200)
    >>> sphere.X.shape, bool(np.allclose(np.linalg.norm(sphere.X, axis=1), 1.0))  # on the unit sphere
    ((200, 3), True)
    """
    rng = np.random.default_rng(seed)
    n_raw = int(n_samples * 1.6) + 50
    theta = rng.uniform(0, 2 * np.pi, n_raw)  # longitude
    phi = np.arccos(rng.uniform(-1, 1, n_raw))  # polar angle, area-uniform
    keep = (phi > np.pi / 8) & (theta > np.pi / 8) & (theta < 2 * np.pi - np.pi / 8)
    theta, phi = theta[keep][:n_samples], phi[keep][:n_samples]
    X = np.column_stack([np.sin(phi) * np.cos(theta), np.sin(phi) * np.sin(theta), np.cos(phi)])
    X += noise * rng.standard_normal(X.shape)
    return VectorData("severed_sphere", X=X, meta=pd.DataFrame({"t": theta}), columns=["x", "y", "z"])


def make_swiss_hole(n_samples: int = 1500, noise: float = 0.0, seed: int = 0) -> VectorData:
    """A swiss roll with a hole in the sheet (scikit-learn's ``hole=True``).

    Examples
    --------
    >>> make_swiss_hole(200).X.shape
    (200, 3)
    """
    from sklearn.datasets import make_swiss_roll as _roll

    X, t = _roll(n_samples=n_samples, noise=noise, random_state=seed, hole=True)
    return VectorData("swiss_hole", X=X, meta=pd.DataFrame({"t": t}), columns=["x", "y", "z"])


# --------------------------------------------------------------------------- sets


#: The seed's toy food embedding (3-D) and baskets.
BASKET_ITEMS = {
    "chorizo": [0.2, -0.4, 0.15],
    "banana": [0.7, -1.2, 2.56],
    "sourdough": [0.9, 0.1, 0.04],
}
BASKETS = [
    ["chorizo", "banana"],
    ["sourdough"],
    ["banana", "banana", "banana"],
    ["banana", "chorizo", "sourdough", "sourdough"],
]


def load_baskets(seed: int = 0) -> ItemSets:
    """Three foods in 3-D and four shopping baskets (the EMDE post's example).

    Examples
    --------
    >>> baskets = load_baskets()
    >>> baskets.items[:3], baskets.sets[:2]
    (['chorizo', 'banana', 'sourdough'], [['chorizo', 'banana'], ['sourdough']])
    """
    items = list(BASKET_ITEMS)
    return ItemSets(
        "baskets",
        items=items,
        vectors=
np.array([BASKET_ITEMS[k] for k in items]),
        sets=[list(b) for b in BASKETS],
        labels=None,
        description="Three foods in 3-D and four baskets, from the EMDE post.",
    )


def load_hotdog(n_points: int = 200, n_sets: int = 300, seed: int = 0) -> ItemSets:
    """Sets with equal means but different densities.

    Items lie on a line from "bun" (left) through "hot dog" (middle) to
    "frankfurter" (right), with some spread. A *hot dog* person likes items
    near the middle; a *separately* person likes buns and frankfurters, never
    the middle. Both kinds of set have the same mean vector, so the mean
    cannot tell them apart while a density sketch can.

    Examples
    --------
    >>> hotdog = load_hotdog()
    >>> len(hotdog.sets), sorted(set(hotdog.labels))
    (300, ['bun and frankfurter', 'hot dog'])
    """
    rng = np.random.default_rng(seed)
    t = np.linspace(-1.0, 1.0, n_points)
    vectors = np.column_stack([t, 0.15 * rng.standard_normal(n_points)])
    names = [f"{'bun' if x < -0.35 else 'frankfurter' if x > 0.35 else 'hot dog'} {i}" for i, x in enumerate(t)]
    middle = np.flatnonzero(np.abs(t) < 0.3)
    left = np.flatnonzero(t < -0.55)
    sets, labels = [], []
    for s in range(n_sets):
        k = int(rng.integers(4, 9))
        if s % 2 == 0:
            picked = rng.choice(middle, size=k, replace=False)
            labels.append("hot dog")
        else:
            a = rng.choice(left, size=k // 2, replace=False)
            # mirror the left picks so the set's mean stays near zero
            b = n_points - 1 - a
            picked = np.concatenate([a, b])
            labels.append("bun and frankfurter")
        sets.append([names[i] for i in picked])
    return ItemSets(
        "hotdog",
        items=names,
        vectors=vectors,
        sets=sets,
        labels=labels,
        description="Equal means, different densities: hot-dog lovers versus bun-and-frankfurter lovers.",
    )


def load_digit_ink(seed: int = 0) -> ItemSets:
    """scikit-learn's digits read as sets of ink positions.

    Items are the 64 pixel positions as 2-D points (column, -row); each image
    is the set of its inked pixels weighted by intensity; the label is the digit.
    """
    from sklearn.datasets import load_digits as _load

    d = _load()
    rows, cols = np.divmod(np.arange(64), 8)
    vectors = np.column_stack([cols, -rows]).astype(np.float64)
    items = [f"r{r}c{c}" for r, c in zip(rows, cols)]
    nz = d.data > 0
    sets = [[items[j] for j in np.flatnonzero(row)] for row in nz]
    weights = [list(d.data[i, nz[i]].astype(float)) for i in range(len(d.data))]
    return ItemSets(
        "digit_ink",
        items=items,
        vectors=vectors,
        sets=sets,
        labels=[str(t) for t in d.target],
        weights=weights,
        description="1,797 digit images as weighted sets of their 64 pixel positions.",
    )


def load_newsgroup_word_sets(seed: int = 0, n_components: int = 50) -> ItemSets:
    """gensim's 200 labelled Usenet posts as sets of words, the words embedded by PMI-SVD.

    The seed's benchmark in miniature: word vectors are learned from the posts'
    own text (no labels), each post is the multiset of its in-vocabulary words,
    and the label is the newsgroup (alt.atheism or sci.space).
    """
    from .words import PMIWordVectors, tokenize

    texts, labels = load_mini_newsgroups()
    docs = [tokenize(t) for t in texts]
    wv = PMIWordVectors(window=5, min_count=3, n_components=n_components, random_state=seed).fit(docs)
    vocab = wv.vocabulary_
    sets = [[w for w in d if w in vocab] for d in docs]
    return ItemSets(
        "newsgroup_words",
        items=list(wv.words_),
        vectors=wv.normed_,
        sets=sets,
        labels=labels,
        description=f"200 Usenet posts (alt.atheism vs sci.space) as sets of their words; {len(vocab):,} words "
                    f"embedded in {n_components}-D by PMI-SVD of the posts themselves.",
    )


# --------------------------------------------------------------------------- tables


def load_tips(seed: int = 0) -> TableData:
    """plotly's restaurant tips (244 bills): day, time, size, total bill, tip.

    Examples
    --------
    >>> load_tips().frame.columns.tolist()
    ['total_bill', 'tip', 'sex', 'smoker', 'day', 'time', 'size']
    """
    import plotly.data

    return TableData("tips", frame=plotly.data.tips())


def load_gapminder(seed: int = 0) -> TableData:
    """plotly's gapminder: 142 countries every five years, life expectancy, GDP per capita.

    Examples
    --------
    >>> load_gapminder().frame.shape
    (1704, 6)
    """
    import plotly.data

    frame = plotly.data.gapminder()
    frame = frame.drop(columns=[c for c in ("iso_alpha", "iso_num") if c in frame.columns])
    return TableData("gapminder", frame=frame)


@dataclass
class CategoryGraph:
    """A precomputed category graph: an affinity (``kind="affinity"``) or distances (``"distance"``).

    Examples
    --------
    >>> week = load_weekday_similarity()
    >>> week.kind, week.labels[:2], week.matrix.shape
    ('affinity', ['Mon', 'Tue'], (7, 7))
    """

    name: str
    labels: list[str]
    matrix: np.ndarray
    kind: str
    description: str = ""
    #: The γ the matrix's source used (None: it gives none), and the Laplacian eigenvalues it printed there.
    reference_gamma: float | None = None
    reference_eigenvalues: tuple[float, ...] = ()


def _matrix_file(filename: str, kind: str, description: str, **reference) -> CategoryGraph:
    frame = pd.read_csv(DATA_DIR / filename, index_col=0)
    if list(frame.index) != list(frame.columns):
        raise ValueError(f"{filename}: row and column labels differ.")
    return CategoryGraph(filename, [str(v) for v in frame.index], frame.to_numpy(dtype=np.float64), kind, description,
                         **reference)


#: The spectral-encoding article's kernel exp(-20 D) on the liquor divergences, and the normalised
#: Laplacian's eigenvalues it printed for it (sorted; the first is 0 up to rounding).
LIQUOR_ARTICLE_GAMMA = 20.0
LIQUOR_ARTICLE_EIGENVALUES = (0.0, 0.999583797, 1.22897829, 1.24740260, 1.24864532, 1.27538999)


def load_weekday_similarity(seed: int = 0) -> CategoryGraph:
    """The article's 7 x 7 weekday similarity (a given kernel).

    Examples
    --------
    >>> load_weekday_similarity().labels
    ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun']
    """
    return _matrix_file("weekday_similarity.csv", "affinity",
                        "A hand-made similarity of weekdays: weekdays alike, the weekend apart, Friday in between.")


def load_liquor_kl(seed: int = 0) -> CategoryGraph:
    """The article's symmetric KL divergences of log liquor sales, Monday to Saturday.

    Examples
    --------
    >>> liquor = load_liquor_kl()
    >>> liquor.kind, len(liquor.labels)
    ('distance', 6)
    """
    return _matrix_file("liquor_weekday_kl.csv", "distance",
                        "Symmetric KL divergence between days' distributions of log liquor sales (no sales on Sundays).",
                        reference_gamma=LIQUOR_ARTICLE_GAMMA, reference_eigenvalues=LIQUOR_ARTICLE_EIGENVALUES)


def load_wind(seed: int = 0) -> TableData:
    """plotly's wind table: 16 compass directions x 8 strength bands, with frequencies.

    Examples
    --------
    >>> load_wind().frame.columns.tolist()
    ['direction', 'strength', 'frequency']
    """
    import plotly.data

    return TableData("wind", frame=plotly.data.wind())


# --------------------------------------------------------------------------- text


_CORPORA = {
    "lee": ("lee_background.cor", "Lee background corpus: 300 Australian news articles"),
    "head500": ("head500.noblanks.cor", "250 articles from the head of an English Wikipedia dump (text8 style; gensim names the file head500)"),
}


def load_corpus(name: str = "lee", seed: int = 0) -> DocumentData:
    """A corpus from gensim's test data, one document per line.

    Examples
    --------
    >>> len(load_corpus("lee").documents)
    300
    """
    if name not in _CORPORA:
        raise ValueError(f"Unknown corpus {name!r}; choose one of {sorted(_CORPORA)}.")
    return read_documents(gensim_datapath(_CORPORA[name][0]), filename=f"{name} corpus")


def load_mini_newsgroups() -> tuple[list[str], list[str]]:
    """200 Usenet posts from two newsgroups (alt.atheism, sci.space) in gensim's test data: (texts, labels).

    The file is a zlib-compressed pickle of a scikit-learn ``Bunch``. It ships
    inside the gensim package (it is not an upload) and is read with an
    allow-list unpickler that can build only dicts, plain objects and numpy
    arrays: anything else in the file is refused rather than executed.

    Examples
    --------
    >>> posts, groups = load_mini_newsgroups()
    >>> len(posts), sorted(set(groups))
    (200, ['alt.atheism', 'sci.space'])
    """
    import copyreg
    import io as _io
    import pickle
    import zlib

    # numpy's own array reconstructor, reached through the public pickling protocol
    reconstruct = np.ndarray((0,)).__reduce__()[0]
    allowed = {
        ("copy_reg", "_reconstructor"): copyreg._reconstructor,
        ("__builtin__", "dict"): dict,
        ("__builtin__", "object"): object,
        ("numpy.core.multiarray", "_reconstruct"): reconstruct,
        ("numpy", "ndarray"): np.ndarray,
        ("numpy", "dtype"): np.dtype,
    }

    class _Bunch(dict):
        pass

    class _AllowList(pickle.Unpickler):
        def find_class(self, module, name):
            if name == "Bunch" and module.startswith("sklearn."):
                return _Bunch
            try:
                return allowed[(module, name)]
            except KeyError:
                raise pickle.UnpicklingError(f"refusing to load {module}.{name}") from None

    raw = zlib.decompress(gensim_datapath("mini_newsgroup").read_bytes())
    bunch = _AllowList(_io.BytesIO(raw), encoding="latin1").load()
    names = list(bunch["target_names"])
    return [str(t) for t in bunch["data"]], [names[i] for i in bunch["target"]]


def load_newsgroup_posts(seed: int = 0) -> DocumentData:
    """The 200 labelled Usenet posts of :func:`load_mini_newsgroups` as a corpus, one document per post."""
    texts, labels = load_mini_newsgroups()
    return DocumentData("newsgroups", documents=texts,
                        notices=[f"{labels.count(name)} posts from {name}" for name in sorted(set(labels))])


def load_word_pairs(name: str = "wordsim353") -> pd.DataFrame:
    """Word-similarity judgements shipped with gensim: columns word1, word2, score.

    Examples
    --------
    >>> load_word_pairs("wordsim353").columns.tolist()
    ['word1', 'word2', 'score']
    """
    files = {"wordsim353": "wordsim353.tsv", "simlex999": "simlex999.txt"}
    path = gensim_datapath(files[name])
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split("\t")
        if len(parts) < 3:
            continue
        try:
            rows.append((parts[0].lower(), parts[1].lower(), float(parts[2])))
        except ValueError:
            continue  # a header line
    return pd.DataFrame(rows, columns=["word1", "word2", "score"])


# --------------------------------------------------------------------------- playlists


def load_planted_playlists(seed: int = 0, model: str = "single", n_songs: int = 200) -> PlaylistData:
    """Playlists sampled from a known 2-D LME (its true positions kept), songs tagged by region."""
    from .playlists import make_planted_playlists

    playlists, truth = make_planted_playlists(n_songs, 1500, 8, model=model, n_tags=8, random_state=seed)
    kind = "single-point (symmetric)" if model == "single" else "dual-point (asymmetric)"
    return PlaylistData(f"planted_{model}", playlists=playlists, tags=truth.song_tags_, truth=truth,
                        description=f"1,500 playlists of 8 songs sampled from a known {kind} LME over {n_songs} "
                                    "songs; tags name the regions of the true map.")


def load_lesmis_walks(seed: int = 0) -> PlaylistData:
    """Random walks on the Les Miserables character co-occurrence graph (networkx), tagged by community."""
    import networkx as nx

    from .playlists import random_walk_playlists

    g = nx.les_miserables_graph()
    walks = random_walk_playlists(g, 800, 8, random_state=seed)
    communities = nx.community.greedy_modularity_communities(g, weight="weight")
    tags = {node: [f"group {i + 1}"] for i, members in enumerate(communities) for node in members}
    return PlaylistData("lesmis", playlists=walks, tags=tags,
                        description="800 walks of 8 steps on the co-occurrence graph of the 77 characters of Les "
                                    "Miserables (a step follows a shared scene, weighted by how often); tags are "
                                    "the graph's communities.")


# --------------------------------------------------------------------------- registry


DATASETS: dict[str, Dataset] = {
    d.id: d
    for d in [
        Dataset("digits", "vectors", "Digits (8x8 images)", "1,797 handwritten digits, 64 pixel intensities each, labelled 0-9 (scikit-learn).", load_digits),
        Dataset("swiss_roll", "vectors", "Swiss roll", "1,500 points on a rolled-up sheet in 3-D, coloured by position along the roll (generated).", make_swiss_roll),
        Dataset("s_curve", "vectors", "S-curve", "1,500 points on an S-shaped sheet in 3-D (generated).", make_s_curve),
        Dataset("severed_sphere", "vectors", "Severed sphere", "1,500 points on a sphere with its cap and a wedge cut away (generated).", make_severed_sphere),
        Dataset("swiss_hole", "vectors", "Swiss roll with a hole", "1,500 points on a swiss roll with a hole in the sheet (generated).", make_swiss_hole),
        Dataset("baskets", "item_sets", "Food baskets (toy)", "Three foods and four baskets from the EMDE post.", load_baskets),
        Dataset("hotdog", "item_sets", "Hot dog vs bun and frankfurter", "Two kinds of set with equal means but different densities (generated).", load_hotdog),
        Dataset("digit_ink", "item_sets", "Digits as ink sets", "Each digit image as the weighted set of its inked pixel positions (scikit-learn).", load_digit_ink),
        Dataset("newsgroup_words", "item_sets", "Newsgroup posts as word sets", "200 labelled Usenet posts as sets of PMI word vectors (gensim test data).", load_newsgroup_word_sets),
        Dataset("tips", "table", "Restaurant tips", "244 restaurant bills: day, time, party size, bill and tip (plotly).", load_tips),
        Dataset("gapminder", "table", "Gapminder", "142 countries, 1952-2007: continent, life expectancy, population, GDP per capita (plotly).", load_gapminder),
        Dataset("wind", "table", "Wind by direction", "Frequency of wind by compass direction and strength band (plotly).", load_wind),
        Dataset("weekday", "graph", "Weekday similarity (given kernel)", "The spectral-encoding article's hand-made weekday similarity matrix.", load_weekday_similarity),
        Dataset("liquor_kl", "graph", "Liquor sales by weekday (KL distances)", "The article's symmetric KL divergences of daily log liquor sales; the kernel is exp(-gamma D).", load_liquor_kl),
        Dataset("planted_single", "playlists", "Planted playlists (single-point)", "Playlists sampled from a known symmetric LME over 200 songs (generated).", load_planted_playlists),
        Dataset("planted_dual", "playlists", "Planted playlists (dual-point)", "Playlists sampled from a known asymmetric LME over 200 songs (generated).", lambda seed=0: load_planted_playlists(seed, "dual")),
        Dataset("lesmis", "playlists", "Les Miserables walks", "Random walks on the character co-occurrence graph shipped with networkx.", load_lesmis_walks),
        Dataset("lee", "documents", "Lee news corpus", "300 Australian news articles, one per line (gensim test data).", lambda seed=0: load_corpus("lee")),
        Dataset("head500", "documents", "Wikipedia head500", "250 articles from the head of a Wikipedia dump, one per line (gensim test data; the file is named head500).", lambda seed=0: load_corpus("head500")),
        Dataset("newsgroups", "labelled_documents", "Newsgroup posts (labelled)", "200 Usenet posts from alt.atheism and sci.space, with their group (gensim test data).", load_newsgroup_posts),
    ]
}


def datasets_of_kind(kind: str) -> list[Dataset]:
    """The bundled data sets of one kind, in display order.

    Examples
    --------
    >>> [d.id for d in datasets_of_kind("table")]
    ['tips', 'gapminder', 'wind']
    """
    return [d for d in DATASETS.values() if d.kind == kind]


def load(dataset_id: str, seed: int = 0):
    """Load a bundled data set by id.

    Examples
    --------
    >>> load("tips").frame.shape, load("swiss_roll").X.shape
    ((244, 7), (1500, 3))
    """
    try:
        ds = DATASETS[dataset_id]
    except KeyError:
        raise ValueError(f"Unknown data set {dataset_id!r}; choose one of {sorted(DATASETS)}.") from None
    return ds.loader(seed=seed)
