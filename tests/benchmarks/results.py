"""Write the measured comparisons of tests/benchmarks/RESULTS.md from the code: `python -m tests.benchmarks.results`.

Each section of RESULTS.md between ``<!-- generated: NAME -->`` and ``<!-- /generated: NAME -->`` is the
output of the function of that name below, on the bundled data, and is replaced whole on each run (the
rest of the file is left as it is). Name sections to write only those
(``... results categories sets-advice``); the digits' benchmark (``sets-digits``, many minutes) is written
only when named.
tests/unit/test_quoted_figures.py recomputes a fast part of them and checks the file still says it.
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

import numpy as np

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"
SEED = 0


# --------------------------------------------------------------------------- formatting


def interval(mean: float, low: float, high: float, digits: int = 3) -> str:
    """``0.512 [0.401, 0.623]`` (the interval left out when there is none)."""
    if not (np.isfinite(low) and np.isfinite(high)):
        return f"{mean:.{digits}f}"
    return f"{mean:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"


def sides_rows(result, first: str = "side") -> list[str]:
    """One Markdown row per side: name, chosen setting (folds), grid, held-out score with its interval, edge."""
    rows = [f"| {first} | chosen setting (folds) | grid searched | held-out [95% interval] | still on the grid's edge |",
            "| --- | --- | --- | --- | --- |"]
    for _, s in result.sides.iterrows():
        rows.append(f"| {s['side']} | {s['chosen']} ({s['chosen in']}) | {s['grid']} | "
                    f"{interval(s['held-out'], s['low'], s['high'])} | {s['edge'] or 'no'} |")
    return rows


def difference_rows(result) -> list[str]:
    rows = ["| difference | mean [95% interval] | verdict |", "| --- | --- | --- |"]
    for _, d in result.differences.iterrows():
        rows.append(f"| {d['a']} − {d['b']} | {interval(d['difference'], d['low'], d['high'])} | {d['verdict']} |")
    return rows


# --------------------------------------------------------------------------- the sections


def words_comparison(pairs_name: str = "wordsim353", corpus: str = "lee"):
    from embedcore import datasets
    from embedcore.words import compare_word_vectors

    docs = datasets.load(corpus).documents
    return compare_word_vectors(docs, datasets.load_word_pairs(pairs_name), n_components=100, min_count=3,
                                alpha=0.75, random_state=SEED, n_repeats=5)


def words(slow: bool = False) -> list[str]:
    """PMI-SVD, CBOW and skip-gram tuned alike on Lee, scored on held-out halves of WordSim-353 and SimLex-999."""
    from embedcore.words import PMI_GRID, WORD2VEC_GRID

    out = [f"The Words page's Evaluation tab, on the Lee corpus (100 dimensions, min count 3, α 0.75, seed {SEED}). "
           f"PMI-SVD is tuned over {len(PMI_GRID)} settings (window 2, 5, 10; p 0, 0.5, 1; shift 1, 5), CBOW and "
           f"skip-gram over {len(WORD2VEC_GRID)} each (5, 20, 50 epochs; window 2, 5, 10; one thread, so a seed "
           "repeats)."]
    for name, title in (("wordsim353", "WordSim-353"), ("simlex999", "SimLex-999")):
        t = time.perf_counter()
        r = words_comparison(name)
        out += ["", f"**{title}**, {len(r.pairs)} pairs with both words in every method's vocabulary "
                    f"({time.perf_counter() - t:.0f} s). {r.protocol}", ""]
        out += sides_rows(r, "method") + [""] + difference_rows(r)
    return out


def words_documents(slow: bool = False) -> list[str]:
    """The Documents tab's classification of the 200 Usenet posts at the page's defaults."""
    from embedcore import datasets
    from embedcore.words import compare_document_features

    texts, labels = datasets.load_mini_newsgroups()
    r = compare_document_features(texts, labels, n_components=100, window=5, min_count=3, random_state=SEED)
    return [f"The Words page's Documents tab at its defaults (window 5, 100 dimensions, min count 3, seed {SEED}): "
            "logistic regression on gensim's 200 labelled Usenet posts. Vocabularies, idf and word vectors are "
            f"learned inside each training fold. {r.protocol}", ""] + sides_rows(r, "features") + [""] + \
        difference_rows(r) + ["", "Widths: " + ", ".join(f"{k} {v:,}" for k, v in r.dims.items()) + "."]


CATEGORY_TABLES = (("tips", "day", "tip"), ("gapminder", "country", "lifeExp"))


def categories_comparison(name: str, column: str, target: str, **kw):
    from embedcore import datasets
    from embedcore.spectral import compare_category_encodings

    frame = datasets.load(name).frame
    return compare_category_encodings(frame, column, target, encoder_params=dict(kernel="wasserstein"),
                                      random_state=SEED, **kw)


def category_rows(result) -> list[str]:
    rows = ["| model | encoding | columns | chosen (folds) | held-out R² [95% interval] | still on the grid's edge |",
            "| --- | --- | --- | --- | --- | --- |"]
    for _, s in result.sides.iterrows():
        model, enc = s["side"].split(" + ")
        rows.append(f"| {model} | {enc} | {result.columns[enc]} | {s['chosen']} ({s['chosen in']}) | "
                    f"{interval(s['held-out'], s['low'], s['high'])} | {s['edge'] or 'no'} |")
    return rows


def categories(slow: bool = False) -> list[str]:
    """The Categories downstream test on the bundled tables at the page's defaults (Wasserstein kernel, eigengap)."""
    out = [f"The Categories page's Downstream test (Wasserstein kernel, eigengap, seed {SEED}): R² of predicting "
           "the target from the encoded column plus the table's other numeric columns. The target encoding is "
           "scikit-learn's TargetEncoder (a category's mean target, cross-fitted inside the training rows); the "
           "spectral code's γ is chosen inside each training fold as gamma_scale / (median distance between the "
           "training rows' categories)."]
    for name, column, target in CATEGORY_TABLES:
        t = time.perf_counter()
        r = categories_comparison(name, column, target)
        out += ["", f"**{name}** ({column} -> {target}; {time.perf_counter() - t:.0f} s). {r.protocol}", ""]
        out += category_rows(r) + [""] + difference_rows(r)
    return out


SET_DATA = ("hotdog", "newsgroup_words")


def set_benchmark(name: str, grid=None, kinds=None):
    """The Sets page's benchmark (every row, or the (K, N) of ``grid`` and the ``kinds`` of item vectors given)."""
    from embedcore import datasets
    from embedcore.emde import SEED_GRID, SetBenchmark, benchmark_sides, item_vector_makers
    from embedcore.evaluation import compare, ranking

    d = datasets.load(name, seed=SEED)
    all_kinds = ("pmi" if name == "newsgroup_words" else "given", "word2vec")
    kinds = all_kinds if kinds is None else kinds
    bench = SetBenchmark(d.weight_matrix(), d.labels,
                         item_vector_makers(d.items, d.sets, d.vectors, kinds=kinds, random_state=SEED),
                         random_state=SEED)
    sides = benchmark_sides(bench, SEED_GRID if grid is None else grid, kinds, labels_of=_kind_label)
    r = compare(sides, len(d.labels), y=d.labels, n_splits=5, inner_splits=1, random_state=SEED,
                bounds=(0.0, 1.0), pairs=[])
    return r, ranking(r)


def _kind_label(kind: str) -> str:
    return {"pmi": "PMI-SVD (in fold)", "given": "as given", "word2vec": "Word2Vec (in fold)"}[kind]


def ranking_rows(ranked) -> list[str]:
    rows = ["| rank | features | chosen C (folds) | held-out accuracy [95% interval] | vs best | best − this row |",
            "| --- | --- | --- | --- | --- | --- |"]
    for _, s in ranked.iterrows():
        gap = "" if s["vs best"] == "best" else interval(s["best minus it"], s["best minus it, low"],
                                                         s["best minus it, high"], 4)
        rows.append(f"| {s['rank']} | {s['side']} | {s['chosen'].removeprefix('C=')} ({s['chosen in']}) | "
                    f"{interval(s['held-out'], s['low'], s['high'], 4)} | {s['vs best']} | {gap} |")
    return rows


def sets(slow: bool = False) -> list[str]:
    """The Sets page's benchmark on the labelled bundled sets."""
    from embedcore.emde import PROTOCOL_C_GRID, SEED_GRID

    out = ["The Sets page's Benchmark tab: logistic regression on EMDE sketches at the post's grid points "
           f"(K, N) = {', '.join(f'({k}, {n})' for k, n in SEED_GRID)} (L2-normalised, only occupied buckets "
           "kept), the mean item vector and the bag of items (one-hot counts, L2-normalised). EMDE and the mean "
           "vector are built on two item vectors, each learned inside every training fold where it is learned at "
           "all: the data's own (for the posts, PMI-SVD of the training posts; the hot dog items' given positions) "
           "and Word2Vec (gensim CBOW, 50-D, 20 epochs, window 5) trained on the training sets. Every row searches C "
           f"in {{{', '.join(f'{c:g}' for c in PROTOCOL_C_GRID)}}}, widened past an edge that wins. 'tied with the "
           "best': the interval of the best row minus this one holds 0; such rows share rank 1."]
    for name in SET_DATA:
        t = time.perf_counter()
        r, ranked = set_benchmark(name)
        out += ["", f"**{name}** ({time.perf_counter() - t:.0f} s). {r.protocol}", ""] + ranking_rows(ranked)
        edge = ranked[ranked["edge"] != ""]
        out += ["", f"Rows whose chosen C is still on the grid's edge: {len(edge)} of {len(ranked)}."]
    return out


def sets_digits(slow: bool = False) -> list[str]:
    """The same benchmark on the digits as ink sets (1,797 sets, ten classes): slow, so a section of its own."""
    t = time.perf_counter()
    r, ranked = set_benchmark("digit_ink")
    edge = ranked[ranked["edge"] != ""]
    return [f"**digit_ink** ({time.perf_counter() - t:.0f} s). {r.protocol}", ""] + ranking_rows(ranked) + \
        ["", f"Rows whose chosen C is still on the grid's edge: {len(edge)} of {len(ranked)}."]


def set_advice(name: str, what: str, Ks=None):
    from embedcore import datasets
    from embedcore.emde import WIDTH_BUDGET, WIDTH_KS, SetBenchmark, item_vector_makers, norm_sides, width_sides
    from embedcore.evaluation import compare

    d = datasets.load(name, seed=SEED)
    kind = "pmi" if name == "newsgroup_words" else "given"
    bench = SetBenchmark(d.weight_matrix(), d.labels,
                         item_vector_makers(d.items, d.sets, d.vectors, kinds=(kind,), random_state=SEED),
                         random_state=SEED)
    if what == "width":
        sides = width_sides(bench, kind, WIDTH_BUDGET, WIDTH_KS if Ks is None else Ks)
        advised = next(s.name for s in sides if s.name.startswith("K=7,"))
        pairs = [(s.name, advised) for s in sides if s.name != advised]
    else:
        sides = norm_sides(bench, kind)
        pairs = [(sides[0].name, sides[1].name), (sides[2].name, sides[3].name), (sides[0].name, sides[2].name)]
    return compare(sides, len(d.labels), y=d.labels, n_splits=5, inner_splits=1, random_state=SEED,
                   bounds=(0.0, 1.0), pairs=pairs)


def sets_advice(slow: bool = False) -> list[str]:
    """The EMDE authors' advice measured: width at a fixed budget, max against L2 normalisation."""
    from embedcore.emde import WIDTH_BUDGET

    out = [f"The Sets page's 'authors' advice, measured': EMDE at a fixed budget of N·2^K = {WIDTH_BUDGET:,} "
           "buckets, each K against the advised K = 7 (128 buckets a partitioning); and L2 against max "
           "normalisation, of the whole sketch or of each partitioning's block, at K = 7, N = 32. Same protocol "
           "and C search as the benchmark."]
    for name in SET_DATA:
        for what, title in (("width", "width at a fixed budget"), ("norm", "max against L2")):
            r = set_advice(name, what)
            out += ["", f"**{name}, {title}.** {r.protocol}", ""] + sides_rows(r, "sketch") + [""] + \
                difference_rows(r)
    return out


def quoted(slow: bool = False) -> list[str]:
    """Single figures the README and the pages quote."""
    return ["| figure | value | where |", "| --- | --- | --- |",
            f"| trustworthiness (k = 10) of our LLE (B = 12) on the 1,500-point swiss roll, seed 0 | "
            f"{lle_trustworthiness():.3f} | README, Using embedcore from Python |",
            f"| most merge comparisons any of the Text page's 200 random pairs of Lee documents needs (seed 0, "
            f"min count 1) | {merge_comparisons():,} | Text page, sparse inner products |"]


def lle_trustworthiness() -> float:
    from embedcore import LLE, trustworthiness
    from embedcore.datasets import make_swiss_roll

    roll = make_swiss_roll(n_samples=1500, seed=0)
    return float(trustworthiness(roll.X, LLE(n_neighbors=12).fit_transform(roll.X), k=10))


def merge_comparisons(seed: int = 0, min_count: int = 1) -> int:
    from app.services import data as data_service
    from app.services import text as text_service

    return int(text_service.pairs_sample(data_service.ref("documents", "lee"), min_count, seed)["steps"].max())


SECTIONS = {"words": words, "words-documents": words_documents, "categories": categories, "sets": sets,
            "sets-advice": sets_advice, "quoted": quoted}
#: Sections written only when named (they take many minutes).
SLOW_SECTIONS = {"sets-digits": sets_digits}


def block(name: str, lines: list[str]) -> str:
    return (f"<!-- generated: {name} (python -m tests.benchmarks.results {name}) -->\n" + "\n".join(lines) +
            f"\n<!-- /generated: {name} -->")


def section_text(name: str, text: str | None = None) -> str:
    """The current text of one generated section of RESULTS.md (markers excluded)."""
    text = RESULTS.read_text(encoding="utf-8") if text is None else text
    m = re.search(rf"<!-- generated: {re.escape(name)} .*?-->\n(.*?)\n<!-- /generated: {re.escape(name)} -->",
                  text, flags=re.S)
    if m is None:
        raise KeyError(f"RESULTS.md has no generated section {name!r}.")
    return m.group(1)


def write(names: list[str], slow: bool = False) -> None:
    for name in names:
        print(f"writing {name} ...", file=sys.stderr, flush=True)
        new = block(name, {**SECTIONS, **SLOW_SECTIONS}[name](slow))
        text = RESULTS.read_text(encoding="utf-8")  # read again: only this section changes
        pattern = re.compile(rf"<!-- generated: {re.escape(name)} .*?<!-- /generated: {re.escape(name)} -->", re.S)
        if pattern.search(text):
            text = pattern.sub(lambda _: new, text)
        else:
            text = text.rstrip("\n") + "\n\n" + new + "\n"
        RESULTS.write_text(text, encoding="utf-8")  # after each section: a long run keeps what it finished


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    write(args or list(SECTIONS), slow="--slow" in sys.argv)
