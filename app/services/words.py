"""Cached stages for the Words page, each keyed on the corpus (a DataRef) and that stage's settings.

Tokens once per corpus, co-occurrences once per distance (a window's counts are the narrower window's
plus one distance), the PMI once per counting and PMI setting, its SVD once per dimensions and seed,
maps once per (vectors, method, parameters). Everything here is shared by every session: the second
visitor with the same settings pays nothing. Results of explicit runs (the
live t-SNE map, the evaluations) go to a shared store, where a page can look
them up without starting them.
"""

from __future__ import annotations

import functools
import time

import numpy as np
import pandas as pd
import streamlit as st

from app.services import ahead, live, selection
from app.services import data as data_service
from app.services.live import FRAME_ITERATIONS, KEEP_EVERY, MIN_FRAMES, STOP_WAIT_S  # noqa: F401  (the page's)
from app.services.reproduce import Recipe
from app.services.shared import store
from embedcore import datasets
from embedcore.maps import embed, largest_perplexity  # noqa: F401  (largest_perplexity: for the page)
from embedcore.words import (
    LabelEmbedding,
    PMIWordVectors,
    add_distance,
    build_vocabulary,
    check_vocabulary,
    compare_document_features,
    compare_word_vectors,
    cooccurrence_at_distance,
    cooccurrence_of_ids,
    document_coordinates,
    evaluate_word_pairs,
    pmi_matrix,
    term_counts,
    token_ids,
    tokenize,
    train_word2vec,
    word_clusters,
)

#: Documents drawn on the document map (the rest are counted in a caption).
MAX_DOCS_SHOWN = 2000
#: Label embedding demo: label sets fitted on, out of 1,000.
LE_TRAIN = 700
#: Results of explicit runs, shared across sessions.
RESULTS = store("words.results", max_entries=64)
#: Words a map can show at most.
MAX_MAP_WORDS = 5000
#: t-SNE iterations after the 250 of early exaggeration.
TSNE_ITERATIONS = 500
#: Threads of the word map's t-SNE. One: on a busy two-core server openTSNE's two-thread gradient waited on
#: its own barrier, 300 words took 17-28 s against 0.9-2.5 s on one thread (the page's redraws compete too).
TSNE_JOBS = 1


def vector_params(*, window, context, weighted, min_count, alpha, shift, positive, n_components, eig_weight,
                  random_state) -> tuple:
    """The PMI-SVD settings as a sorted tuple: hashable, and the same for the same settings."""
    return tuple(sorted(dict(window=window, context=context, weighted=weighted, min_count=min_count, alpha=alpha,
                             shift=float(shift), positive=positive, n_components=n_components,
                             eig_weight=eig_weight, random_state=random_state).items()))


@st.cache_data(max_entries=6, show_spinner=False)
def tokens(ref: data_service.DataRef) -> list[list[str]]:
    return [tokenize(d) for d in data_service.load(ref).documents]


@st.cache_data(max_entries=6, show_spinner=False)
def corpus_size(ref: data_service.DataRef) -> tuple[int, int]:
    """(documents, tokens) of the corpus."""
    docs = tokens(ref)
    return len(docs), sum(map(len, docs))


@st.cache_data(max_entries=24, show_spinner=False)
def vocabulary_size(ref: data_service.DataRef, min_count: int) -> int:
    """How many words occur at least ``min_count`` times: the most dimensions an SVD can give is one fewer."""
    return len(build_vocabulary(tokens(ref), min_count))


@st.cache_resource(max_entries=6, show_spinner=False)
def _vocabulary(ref: data_service.DataRef, min_count: int) -> tuple:
    """The vocabulary of one min count, every token's id in it, the words' document frequencies and the
    seconds they took (shared, read-only): the part of counting no window, context or weighting changes."""
    t0 = time.perf_counter()
    docs = tokens(ref)
    counts = build_vocabulary(docs, min_count)
    index = pd.Index(counts.index)
    ids, offsets = token_ids(docs, index)
    df = np.bincount(term_counts(docs, index).indices, minlength=len(index))
    return counts, ids, offsets, df, time.perf_counter() - t0


@st.cache_resource(max_entries=48, show_spinner=False)
def _at_distance(ref: data_service.DataRef, min_count: int, distance: int) -> tuple:
    """The pairs exactly ``distance`` apart over one min count's vocabulary, and the seconds they took (shared,
    read-only): a window's counts are their sum up to the window, so a new window counts only its new
    distances."""
    counts, ids, offsets, _, _ = _vocabulary(ref, min_count)
    t0 = time.perf_counter()
    D = cooccurrence_at_distance(ids, offsets, len(counts), distance)
    return D, time.perf_counter() - t0


@st.cache_resource(max_entries=24, show_spinner=False)
def _window_counts(ref: data_service.DataRef, min_count: int, window: int, weighted: bool) -> tuple:
    """The counts of a window: those of the window one narrower plus the pairs ``window`` apart
    (:func:`add_distance`, the step of :func:`cooccurrence_of_distances`, so the matrix is the same), and the
    seconds every distance and sum up to it took (shared, read-only). A window one wider than a counted one
    costs one sum, not a sum of every distance."""
    below, below_seconds = _window_counts(ref, min_count, window - 1, weighted) if window > 1 else (None, 0.0)
    D, seconds = _at_distance(ref, min_count, window)
    t0 = time.perf_counter()
    C = add_distance(below, D, window, weighted=weighted)
    return C, below_seconds + seconds + time.perf_counter() - t0


@st.cache_resource(max_entries=12, show_spinner=False)
def _counted(ref: data_service.DataRef, min_count: int, window: int, context: str, weighted: bool) -> tuple:
    """The vocabulary, co-occurrence counts and document frequencies of one counting setting (shared, read-only).

    The counting stage of PMIWordVectors.fit, kept apart so a change of dimensions, α, shift or p does not
    count again; the vocabulary and the tokens' ids are kept per min count (:func:`_vocabulary`), the pairs per
    distance (:func:`_at_distance`) and a window's sum per window (:func:`_window_counts`), so a new window
    counts only its new distances and adds them to the narrower window's sum. The seconds are every stage's:
    what counting from the corpus takes.
    """
    counts, ids, offsets, df, vocabulary_seconds = _vocabulary(ref, min_count)
    if context == "window":
        C, seconds = _window_counts(ref, min_count, window, weighted)
    else:
        t0 = time.perf_counter()
        C = cooccurrence_of_ids(ids, offsets, len(counts), window=window, context=context, weighted=weighted)
        seconds = time.perf_counter() - t0
    return counts, C, df, len(offsets) - 1, vocabulary_seconds + seconds


#: The settings of the counts and of the PMI computed from them; the rest (dimensions, p, seed) are the SVD's.
_PMI_SETTINGS = ("min_count", "window", "context", "weighted", "alpha", "shift", "positive")


@st.cache_resource(max_entries=12, show_spinner=False)
def _pmi(ref: data_service.DataRef, settings: tuple) -> tuple:
    """The PMI matrix of one counting and PMI setting (``settings``: the sorted items of :data:`_PMI_SETTINGS`),
    and the seconds it took (shared, read-only): the dimensions and the seed change only the SVD of it."""
    p = dict(settings)
    _, C, _, _, _ = _counted(ref, p["min_count"], p["window"], p["context"], p["weighted"])
    t0 = time.perf_counter()
    P = pmi_matrix(C, alpha=p["alpha"], shift=p["shift"], positive=p["positive"])
    return P, time.perf_counter() - t0


def _pmi_settings(params: tuple) -> tuple:
    return tuple((k, v) for k, v in params if k in _PMI_SETTINGS)


@st.cache_resource(max_entries=12, show_spinner=False)
def _decomposed(ref: data_service.DataRef, params: tuple) -> tuple[PMIWordVectors, float]:
    """The SVD of the cached PMI (:func:`_pmi`) for every setting but p (``params`` holds p = 0), and the
    seconds it took: shared, never mutated."""
    p = dict(params)
    counts, C, df, n_docs, _ = _counted(ref, p["min_count"], p["window"], p["context"], p["weighted"])
    check_vocabulary(counts, p["min_count"], p["n_components"])  # its message before any about the PMI
    P, _ = _pmi(ref, _pmi_settings(params))
    t = time.perf_counter()
    wv = PMIWordVectors.from_counts(counts, C, document_frequency=df, n_documents=n_docs, pmi=P, **p)
    return wv, time.perf_counter() - t


def _without_p(params: tuple) -> tuple:
    return tuple(sorted({**dict(params), "eig_weight": 0.0}.items()))


def fit_seconds(ref: data_service.DataRef, params: tuple) -> float:
    """What a fit from the corpus takes: counting (once per counting setting), the PMI and its SVD."""
    p = dict(params)
    return (_decomposed(ref, _without_p(params))[1] + _pmi(ref, _pmi_settings(params))[1]
            + _counted(ref, p["min_count"], p["window"], p["context"], p["weighted"])[-1])


@st.cache_resource(max_entries=12, show_spinner=False)
def vectors(ref: data_service.DataRef, params: tuple) -> PMIWordVectors:
    """A fitted PMIWordVectors, what ``PMIWordVectors(**params).fit(tokens)`` gives (shared, never mutated).

    A change of the eigenvalue weight p only rescales the columns of the cached SVD.
    """
    base, _ = _decomposed(ref, _without_p(params))
    return base.reweighted(dict(params)["eig_weight"])


@st.cache_data(max_entries=24, show_spinner=False)
def summary(ref: data_service.DataRef, params: tuple) -> dict:
    wv = vectors(ref, params)
    n_docs, n_tokens = corpus_size(ref)
    return {"documents": n_docs, "tokens": n_tokens, "vocabulary": len(wv.vocabulary_), "nnz": int(wv.pmi_.nnz),
            "fit seconds": fit_seconds(ref, params)}


#: Where the vectors one Window and one Dimensions step either side of those on screen are fitted
#: (:func:`fit_ahead`).
_AHEAD = ahead.Ahead("words-ahead")


def fit_ahead(ref: data_service.DataRef, params: tuple, *, windows: tuple[int, int], dims: tuple[int, int, int],
              moved: tuple[str, int] | None = None) -> None:
    """Fit in the background the vectors a next step of Window or Dimensions will ask for, while ``params`` are on
    screen: a step with the arrow keys then finds its counts, PMI and SVD cached (the SVD alone is two thirds of
    a step's server time). ``windows`` is the Window slider's (lowest, highest), ``dims`` the Dimensions slider's
    (lowest, highest, step). ``moved`` is the slider that moved last and which way (("window" or "dims", +1 or
    -1)): then only its next step that way is fitted, as a fit competes with the page's run and the browser (in
    one A/B run, a Window step took 0.14 s with one fit ahead, 0.15 s with four, 0.18 s with none); after any
    other change, one step either side of both. The same fit as the page's own (the same cached functions), so a
    setting gives the same vectors whichever way it was reached."""
    p = dict(params)

    def step(control: str, way: int) -> dict | None:
        if control == "window":
            w = p["window"] + way
            return {**p, "window": w} if p["context"] == "window" and windows[0] <= w <= windows[1] else None
        d = p["n_components"] + way * dims[2]
        return {**p, "n_components": d} if dims[0] <= d <= dims[1] else None

    wanted = [moved] if moved is not None else [("window", 1), ("window", -1), ("dims", 1), ("dims", -1)]
    order = [q for q in (step(*m) for m in wanted) if q is not None]
    _AHEAD.plan([functools.partial(_fit_quietly, ref, _without_p(tuple(sorted(q.items())))) for q in order])


def fit_ahead_of(ref: data_service.DataRef, params: tuple, *, windows: tuple[int, int],
                 dims: tuple[int, int, int]) -> None:
    """:func:`fit_ahead` for this session's page: which slider moved since its last run, and which way."""
    p = dict(params)
    change = ahead.moved("words.ahead_from", ref, window=p["window"], dims=p["n_components"])
    fit_ahead(ref, params, windows=windows, dims=dims,
              moved=None if change is None else (change[0], 1 if change[1] > 0 else -1))


def _fit_quietly(ref: data_service.DataRef, params: tuple) -> None:
    try:
        _decomposed(ref, params)
    except ValueError:  # a setting the data cannot give: the page says so if it is asked for
        pass


@st.cache_data(max_entries=24, show_spinner=False)
def spectrum(ref: data_service.DataRef, params: tuple) -> tuple[pd.DataFrame, int | None]:
    """Singular values and cumulative energy by k, and the k that keeps 80% (None if more are needed)."""
    wv = vectors(ref, params)
    energy = wv.energy()
    table = pd.DataFrame({"k": np.arange(1, len(energy) + 1), "singular value": wv.singular_values_,
                          "energy": energy})
    return table, wv.rank_for_energy(0.8)


@st.cache_data(max_entries=12, show_spinner=False)
def vocabulary(ref: data_service.DataRef, params: tuple) -> list[str]:
    """The vocabulary, most frequent first."""
    return list(vectors(ref, params).words_)


def _present(wv, preferred, fallback_rows):
    words = [w for w in preferred if w in wv.vocabulary_]
    if len(words) >= len(fallback_rows):
        return words[: len(fallback_rows)]
    n = len(wv.words_)
    return [str(wv.words_[min(i, n - 1)]) for i in fallback_rows]


#: The analogy the page starts from and the word that answers it: on the bundled Lee corpus at the page's
#: defaults the word nearest to she - he + his is "her", which is not among the words nearest to "his" alone
#: (man : woman :: king : ? gave "university" there: the corpus barely has a king).
DEFAULT_ANALOGY = ("he", "she", "his", "her")


@st.cache_data(max_entries=12, show_spinner=False)
def default_words(ref: data_service.DataRef, params: tuple) -> dict:
    """Query and analogy words to start from: familiar ones when the corpus has them. ``expected`` is the word that
    answers the analogy when it is the default one, else None."""
    wv = vectors(ref, params)
    query = next((w for w in ("minister", "government", "australia", "man") if w in wv.vocabulary_), None)
    analogy = _present(wv, list(DEFAULT_ANALOGY[:3]), [10, 11, 12])
    known = analogy == list(DEFAULT_ANALOGY[:3]) and DEFAULT_ANALOGY[3] in wv.vocabulary_
    return {"query": query or _present(wv, [], [50])[0], "analogy": analogy,
            "expected": DEFAULT_ANALOGY[3] if known else None}


def nearest(ref: data_service.DataRef, params: tuple, word: str, topn: int = 20) -> tuple[pd.DataFrame, float]:
    """The ``topn`` nearest words by cosine, and the query's time in milliseconds."""
    wv = vectors(ref, params)
    t = time.perf_counter()
    table = wv.most_similar(word, topn)
    return table, (time.perf_counter() - t) * 1000


def analogy(ref: data_service.DataRef, params: tuple, a: str, b: str, c: str) -> pd.DataFrame:
    return vectors(ref, params).analogy(a, b, c, 10)


# ---------------------------------------------------------------- what the tour says, measured

#: Nearest words a tour sentence names.
TOUR_NEAR = 5


def is_number(word: str) -> bool:
    """A token of digits only ("2", "000"; not "00am")."""
    return word.isdigit()


@st.cache_resource(max_entries=6, show_spinner=False)
def _in_documents(ref: data_service.DataRef, min_count: int) -> tuple:
    """Which documents hold each word of one min count's vocabulary: a binary document-term matrix (CSC, a column
    per word in the vocabulary's order) and each word's document count (shared, read-only)."""
    counts = build_vocabulary(tokens(ref), min_count)
    B = (term_counts(tokens(ref), pd.Index(counts.index)) > 0).astype(np.float64).tocsc()
    return B, np.asarray(B.sum(axis=0)).ravel()


def _together(ref: data_service.DataRef, min_count: int, rows: list[int], word: int) -> float:
    """The mean over ``rows`` of the share of a word's documents that also hold ``word``."""
    B, df = _in_documents(ref, min_count)
    both = np.asarray((B[:, rows].T @ B[:, [word]]).todense()).ravel()
    return float(np.mean(both / np.maximum(df[rows], 1)))


def _near_facts(wv, ref: data_service.DataRef, min_count: int, word: str) -> dict:
    near = wv.most_similar(word, TOUR_NEAR)["word"].astype(str).tolist()
    rows = [wv.vocabulary_[w] for w in near]
    return {"near": ", ".join(near), "near_count": len(near), "near_numbers": sum(map(is_number, near)),
            "together": _together(ref, min_count, rows, wv.vocabulary_[word])}


@st.cache_data(max_entries=24, show_spinner=False)
def tour_facts(ref: data_service.DataRef, params: tuple, word: str, n_words: int) -> dict:
    """What the Words tour says about the page's state, measured (see TOURS["words"] in app.services.tours).

    The word map: its ``n`` words, the first and last by count, the share ``cover`` of the corpus's ``tokens``
    they make up. The query ``word``'s :data:`TOUR_NEAR` nearest words (``near``), how many are numbers
    (``near_numbers``; ``numbers_share``: the share of numbers in the vocabulary) and ``together``: the mean share
    of each neighbour's documents that hold ``word`` too. The same for the window context at the same settings
    (``win_near_numbers``, ``win_together``), so a document context can be compared with it. The PMI's non-zero
    entries now (``nnz``) and without a shift (``nnz_unshifted``), and the energy the dimensions keep.
    """
    p = dict(params)
    wv = vectors(ref, params)
    n = min(n_words, len(wv.words_))
    counts = wv.counts_.to_numpy()
    n_tokens = corpus_size(ref)[1]
    facts = {"n": n, "first": str(wv.words_[0]), "first_count": int(counts[0]), "last": str(wv.words_[n - 1]),
             "last_count": int(counts[n - 1]), "tokens": n_tokens, "cover": float(counts[:n].sum() / n_tokens),
             "dims": int(p["n_components"]), "window": int(p["window"]), "shift": float(p["shift"]),
             "word": word, "word_is_number": is_number(word),
             "numbers_share": float(np.mean([is_number(str(w)) for w in wv.words_])),
             "nnz": int(wv.pmi_.nnz), "energy": float(wv.energy()[-1])}
    facts |= _near_facts(wv, ref, p["min_count"], word)
    in_window = tuple(sorted({**p, "context": "window"}.items()))
    win = facts if in_window == params else _near_facts(vectors(ref, in_window), ref, p["min_count"], word)
    facts |= {"win_near_numbers": win["near_numbers"], "win_together": win["together"]}
    unshifted = {k: v for k, v in _pmi_settings(params)}
    unshifted["shift"] = 1.0
    facts["nnz_unshifted"] = int(_pmi(ref, tuple(sorted(unshifted.items())))[0].nnz)
    facts["thinned"] = 1 - facts["nnz"] / max(facts["nnz_unshifted"], 1)
    return facts


@st.cache_data(max_entries=24, show_spinner=False)
def analogy_facts(ref: data_service.DataRef, params: tuple, a: str, b: str, c: str, expected: str | None) -> dict:
    """The analogy a : b :: c : ? as the tour states it: its ``answer`` (the word nearest to b - a + c), the
    ``rank`` of the ``expected`` word there and its rank ``c_rank`` among the words nearest to c alone (None when
    no word is expected or the vocabulary lacks it), of ``n_vocab`` words."""
    wv = vectors(ref, params)
    ranking = wv.analogy(a, b, c, len(wv.words_))["word"].astype(str).tolist()
    near_c = wv.most_similar(c, len(wv.words_) - 1)["word"].astype(str).tolist()
    known = expected is not None and expected in ranking
    return {"a": a, "b": b, "c": c, "answer": ranking[0], "expected": expected or "(none)",
            "rank": ranking.index(expected) + 1 if known else None,
            "c_rank": near_c.index(expected) + 1 if known and expected in near_c else None,
            "n_vocab": len(wv.words_)}


# ---------------------------------------------------------------- word map

@st.cache_data(max_entries=24, show_spinner=False)
def map_points(ref: data_service.DataRef, params: tuple, n_words: int, colour_by: str, seed: int) -> pd.DataFrame:
    """The words drawn on the map: word, count, hover neighbours, and the colour value."""
    wv = vectors(ref, params)
    n_words = min(n_words, len(wv.words_))
    freq = wv.counts_.iloc[:n_words].to_numpy()
    colour = (np.log10(freq) if colour_by == "frequency"
              else word_clusters(wv, n_words, min(12, n_words), random_state=seed))
    return pd.DataFrame({"word": list(wv.words_[:n_words]), "count": freq,
                         "near": wv.neighbour_words(n_words, 5), "colour": colour})


def map_space(ref: data_service.DataRef, params: tuple, n_words: int):
    """The mapped words' unit vectors: the original space of the word map (Euclidean order is cosine order)."""
    return vectors(ref, params).normed_[:n_words]


@st.cache_data(max_entries=12, show_spinner=False)
def map_start(ref: data_service.DataRef, params: tuple, n_words: int, seed: int) -> np.ndarray:
    """The mapped words' first two principal components: where openTSNE starts (its default initialisation,
    which it then shrinks), drawn while the first layouts are computed."""
    return embed(map_space(ref, params, n_words), "pca", random_state=seed).coords


@st.cache_data(max_entries=32, show_spinner=False)
def selection_neighbours(ref: data_service.DataRef, params: tuple, rows: tuple, k: int = 10) -> pd.DataFrame:
    """The words most often among the selected map words' k nearest in the whole vocabulary (cosine)."""
    wv = vectors(ref, params)
    return selection.common(wv.normed_, np.asarray(rows, dtype=np.int64), k, wv.words_)


def map_key(ref: data_service.DataRef, params: tuple, n_words: int, method: str, setting: tuple, seed: int) -> tuple:
    """What identifies a word map: the corpus, the vectors, the words, the method and its settings, the seed."""
    return ("map", ref, params, n_words, method, setting, seed)


def stored(key):
    """A result computed before (in any session) under ``key``, or None."""
    return RESULTS.get(key)


def keep(key, value) -> None:
    """Keep a result (e.g. a stopped map's layout) for this key, for every session."""
    RESULTS.put(key, value)


class TsneJob(live.TsneJob):
    """The t-SNE of one word map (:class:`app.services.live.TsneJob` with the word map's settings: perplexity,
    :data:`TSNE_ITERATIONS` iterations on :data:`TSNE_JOBS` threads); a finished map goes to :data:`RESULTS`."""

    def __init__(self, key: tuple, X: np.ndarray, perplexity: int, seed: int, alive=None):
        super().__init__(key, X, RESULTS, seed=seed, alive=alive, name="words-tsne", perplexity=float(perplexity),
                         n_iter=TSNE_ITERATIONS, n_jobs=TSNE_JOBS)


LIVE = live.LiveMaps("words", RESULTS)


def start_map(ref: data_service.DataRef, params: tuple, n_words: int, perplexity: int, seed: int) -> TsneJob:
    """Start this session's t-SNE of the ``n_words`` most frequent words (cancelling any other it runs)."""
    key = map_key(ref, params, n_words, "t-SNE", (perplexity,), seed)
    return LIVE.start(key, map_space(ref, params, n_words), seed=seed, name="words-tsne",
                      perplexity=float(perplexity), n_iter=TSNE_ITERATIONS, n_jobs=TSNE_JOBS)


map_job = LIVE.job
ask_stop = LIVE.ask_stop
take_in_map = LIVE.take_in
map_notice = LIVE.notice
shown_map = LIVE.shown
live_draws = LIVE.draws


def word_map_umap(ref: data_service.DataRef, params: tuple, n_words: int, n_neighbors: int, min_dist: float,
                  seed: int):
    """UMAP map of the ``n_words`` most frequent words (one call: not drawn live), kept for every session."""
    key = map_key(ref, params, n_words, "UMAP", (n_neighbors, min_dist), seed)
    if key not in RESULTS:
        wv = vectors(ref, params)
        t = time.perf_counter()
        # unit rows: Euclidean neighbours are the cosine neighbours
        result = embed(wv.normed_[:n_words], "umap", n_neighbors=n_neighbors, min_dist=min_dist, random_state=seed)
        RESULTS.put(key, (result.coords, time.perf_counter() - t))
    return RESULTS.get(key)


# ---------------------------------------------------------------- evaluations (explicit runs)

def evaluation_key(ref, params, seed) -> tuple:
    return ("evaluation", ref, params, seed)


def evaluation(ref: data_service.DataRef, params: tuple, seed: int, should_stop=None) -> pd.DataFrame:
    """Spearman ρ on WordSim-353 and SimLex-999 for the PMI vectors and both Word2Vec models."""
    key = evaluation_key(ref, params, seed)
    if key in RESULTS:
        return RESULTS.get(key)
    wv, docs = vectors(ref, params), tokens(ref)
    pairs = {name: datasets.load_word_pairs(name) for name in ("wordsim353", "simlex999")}
    p = dict(params)
    rows = []

    def add(name, kv, seconds):
        row = {"method": name, "fit seconds": round(seconds, 2)}
        for pname, df in pairs.items():
            r = evaluate_word_pairs(kv, df)
            row[f"{pname} ρ"] = r.spearman
            row[f"{pname} OOV"] = r.oov_rate
        rows.append(row)

    add(f"PMI-SVD (window {p['window']}, shift {p['shift']}, α {p['alpha']})", wv, fit_seconds(ref, params))
    for sg, name in ((False, "Word2Vec CBOW"), (True, "Word2Vec skip-gram")):
        t = time.perf_counter()
        kv = train_word2vec(docs, sg=sg, vector_size=p["n_components"], window=p["window"],
                            min_count=p["min_count"], random_state=seed, should_stop=should_stop)
        add(name, kv, time.perf_counter() - t)
    RESULTS.put(key, pd.DataFrame(rows))
    return RESULTS.get(key)


def grid_sizes() -> tuple[int, int]:
    """Settings in PMI-SVD's grid and in each Word2Vec method's grid (read when asked: tests may shrink them)."""
    import embedcore.words.evaluation as core

    return len(core.PMI_GRID), len(core.WORD2VEC_GRID)


#: The word-pair sets the comparison can choose and score on (both shipped with gensim).
PAIR_SETS = {"wordsim353": "WordSim-353", "simlex999": "SimLex-999"}
#: Random halvings of the pairs: each half is scored once per halving, so 2 x this many held-out scores.
WORD_REPEATS = 5


def tuning_key(ref, n_components, min_count, alpha, seed, pairs: str = "wordsim353") -> tuple:
    return ("tuning", ref, n_components, min_count, alpha, seed, pairs)


def tuning(ref: data_service.DataRef, n_components: int, min_count: int, alpha: float, seed: int,
           pairs: str = "wordsim353", progress=None, should_stop=None):
    """PMI-SVD, CBOW and skip-gram each tuned and scored under the lab's protocol on one set of word pairs
    (an embedcore.evaluation.Comparison, kept for every session)."""
    key = tuning_key(ref, n_components, min_count, alpha, seed, pairs)
    if key not in RESULTS:
        RESULTS.put(key, compare_word_vectors(tokens(ref), datasets.load_word_pairs(pairs),
                                              n_components=n_components, min_count=min_count, alpha=alpha,
                                              random_state=seed, n_repeats=WORD_REPEATS, progress=progress,
                                              should_stop=should_stop))
    return RESULTS.get(key)


def classification_key(n_components, window, min_count, seed) -> tuple:
    return ("classification", n_components, window, min_count, seed)


def document_classification(n_components: int, window: int, min_count: int, seed: int, progress=None):
    """Five document representations compared on gensim's 200 labelled Usenet posts, under the lab's protocol
    (an embedcore.evaluation.Comparison, kept for every session)."""
    key = classification_key(n_components, window, min_count, seed)
    if key not in RESULTS:
        texts, labels = datasets.load_mini_newsgroups()
        RESULTS.put(key, compare_document_features(texts, labels, n_components=n_components, window=window,
                                                   min_count=min_count, random_state=seed, progress=progress))
    return RESULTS.get(key)


# ---------------------------------------------------------------- documents, labels, downloads

@st.cache_data(max_entries=8, show_spinner=False)
def document_map(ref: data_service.DataRef, params: tuple, seed: int) -> tuple[pd.DataFrame, int]:
    """The first documents' vectors in 2-D (x, y, words, opening text), and how many documents there are."""
    docs = tokens(ref)[:MAX_DOCS_SHOWN]
    texts = data_service.load(ref).documents
    P2 = document_coordinates(vectors(ref, params), docs, random_state=seed)
    table = pd.DataFrame({"x": P2[:, 0], "y": P2[:, 1], "words": [len(d) for d in docs],
                          "text": [t[:120] for t in texts[:MAX_DOCS_SHOWN]]})
    return table, len(texts)


def _recovery(found) -> dict:
    """The label embedding's recovery under the names the page shows."""
    return {"known count": found.known_count, "threshold": found.threshold}


@st.cache_data(max_entries=8, show_spinner=False)
def label_embedding(n_labels: int, n_components: int, seed: int) -> dict:
    """Label embedding of scikit-learn's multilabel generator: fitted on 700 label sets, scored on 300."""
    from sklearn.datasets import make_multilabel_classification

    _, Y = make_multilabel_classification(n_samples=1000, n_classes=n_labels, n_labels=3, random_state=seed)
    le = LabelEmbedding(n_components=n_components).fit(Y[:LE_TRAIN])
    held = Y[LE_TRAIN:]
    decoded = le.decode(le.encode(held))

    def names(rows):
        return [", ".join(str(j) for j in np.flatnonzero(r)) for r in rows]

    return {"similarity": le.similarity(), "plane": le.embedding_[:, :2], "recovery": _recovery(le.recovery(held)),
            "threshold": le.threshold_, "examples": pd.DataFrame({"true labels": names(held[:8]),
                                                                  "decoded": names(decoded[:8])}),
            "labels": [f"label {i}" for i in range(n_labels)], "train": LE_TRAIN, "held": len(held)}


@st.cache_data(max_entries=4, show_spinner=False)
def exports(ref: data_service.DataRef, params: tuple) -> dict:
    """The vectors as word2vec text and as an Embedding Projector pair (built once per setting)."""
    wv = vectors(ref, params)
    words = list(wv.words_)
    rows = [" ".join(f"{x:.6f}" for x in r) for r in wv.vectors_]
    return {
        "w2v": f"{len(words)} {wv.vectors_.shape[1]}\n" + "\n".join(f"{w} {r}" for w, r in zip(words, rows)),
        "tsv": "\n".join(r.replace(" ", "\t") for r in rows),
        "meta": "word\tcount\n" + "\n".join(f"{w}\t{c}" for w, c in zip(words, wv.counts_.to_numpy())),
        "shape": wv.vectors_.shape,
    }


def recipe(ref: data_service.DataRef, params: tuple) -> Recipe:
    """The word vectors and singular values shown, and the embedcore code that fits them again."""
    wv = vectors(ref, params)
    settings = dict(params)
    code = f"""
        from embedcore.words import PMIWordVectors, tokenize

        docs = [tokenize(d) for d in data.documents]
        wv = PMIWordVectors(**{settings!r}).fit(docs)
        result = {{"vectors": wv.vectors_, "singular_values": wv.singular_values_,
                  "words": np.asarray(wv.words_, dtype=str)}}
        """
    return Recipe("words", f"PMI-SVD word vectors ({wv.vectors_.shape[1]} dimensions, window {settings['window']})",
                  {"vectors": wv.vectors_, "singular_values": wv.singular_values_,
                   "words": np.asarray(wv.words_, dtype=str)},
                  settings, ref, code, compare={"vectors": "columns up to sign", "singular_values": "close"},
                  # neighbouring singular values of a PMI matrix lie 0.2% apart, so the last bits of the counts'
                  # sums (the order a BLAS adds them in) move the singular vectors by about 1e-4
                  rtol=1e-3, atol=1e-3)
