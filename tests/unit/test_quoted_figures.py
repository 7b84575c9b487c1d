"""The figures README.md and tests/benchmarks/RESULTS.md quote, recomputed (a fast part of them) on the bundled data.

RESULTS.md's comparisons are written by `python -m tests.benchmarks.results`; these tests rerun the cheap
parts of the same functions and fail when the file (or the README) no longer says what the code gives.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.benchmarks import results

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
RESULTS = results.RESULTS.read_text(encoding="utf-8")


def test_the_readme_lle_trustworthiness_is_what_the_code_gives():
    quoted = re.search(r"print\(trustworthiness\(roll\.X, Y, k=10\)\)\s+# (\d\.\d+)", README)
    assert quoted, "README no longer quotes the LLE example's trustworthiness"
    value = f"{results.lle_trustworthiness():.3f}"
    assert quoted.group(1) == value
    assert f"| {value} | README" in results.section_text("quoted", RESULTS)


def test_the_merge_comparisons_quoted_are_what_the_text_page_computes():
    value = f"{results.merge_comparisons():,}"
    assert f"| {value} | Text page" in results.section_text("quoted", RESULTS)
    for name, text in (("README", README), ("RESULTS.md", RESULTS)):
        for found in re.findall(r"no pair needs more than ([\d,]+) comparisons", text):
            assert found == value, f"{name} says {found} comparisons, the code gives {value}"


def test_the_categories_ridge_rows_on_tips_are_what_the_protocol_gives():
    section = results.section_text("categories", RESULTS)
    got = results.categories_comparison("tips", "day", "tip", models=("ridge",))
    rows = results.category_rows(got)[2:] + results.difference_rows(got)[2:]
    missing = [r for r in rows if r not in section]
    assert not missing, missing


def test_the_sets_baselines_on_the_hot_dog_sets_are_what_the_protocol_gives():
    section = results.section_text("sets", RESULTS)
    got, _ = results.set_benchmark("hotdog", grid=(), kinds=("given",))
    for _, s in got.sides.iterrows():
        row = (f"| {s['side']} | {s['chosen'].removeprefix('C=')} ({s['chosen in']}) | "
               f"{results.interval(s['held-out'], s['low'], s['high'], 4)} |")
        assert row in section, row


@pytest.mark.parametrize("pairs_name,title", [("wordsim353", "WordSim-353"), ("simlex999", "SimLex-999")])
def test_the_word_pairs_scored_are_those_every_method_knows(pairs_name, title):
    import pandas as pd

    from embedcore import datasets
    from embedcore.words import build_vocabulary, tokenize

    vocab = set(build_vocabulary([tokenize(d) for d in datasets.load("lee").documents], 3).index)
    pairs = datasets.load_word_pairs(pairs_name)
    known = int(pd.Series([a in vocab and b in vocab for a, b in zip(pairs["word1"], pairs["word2"])]).sum())
    assert f"**{title}**, {known} pairs with both words in every method's vocabulary" in \
        results.section_text("words", RESULTS)


def test_the_words_page_claims_no_more_than_the_comparison_shows():
    page = (ROOT / "app" / "app_pages" / "words.py").read_text(encoding="utf-8")
    claim = "on the Lee corpus none of the differences is\nlarger than its noise"
    verdicts = re.findall(r"^\| [^|]+ − [^|]+ \| [^|]+ \| ([^|]+) \|$", results.section_text("words", RESULTS), re.M)
    assert len(verdicts) == 6
    # the page says "no difference" on Lee: true only while every interval, on both pair sets, holds 0
    assert claim in page and set(verdicts) == {"no reliable difference on this data"}
    assert "rival" not in page
