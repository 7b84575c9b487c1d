"""Words from text: the tokenizer every part of the lab shares (in memory and in batch).

A leaf module: it imports only :mod:`embedcore.exceptions`, so the readers in
:mod:`embedcore.io` and the word models in :mod:`embedcore.words` can both use it.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

import numpy as np

from .exceptions import DataError

__all__ = ["tokenize", "check_word_spacing", "documents_as_tokens", "token_patterns", "ASTRAL", "UNSPACED_RUN"]


@cache
def token_patterns() -> tuple[re.Pattern, re.Pattern]:
    """Words: letters and digits of any script with their combining marks, then maybe 'letters.

    Python's ``\\w`` leaves out combining marks (the accent of a decomposed
    "é", Devanagari and Thai vowel signs), so they are added to the class from
    the Unicode database; underscores are taken out of the text beforehand, so
    ``\\w`` stands for letters and digits. A class holding characters beyond
    U+FFFF matches slowly, so the marks of the scripts found there are only in
    the second pattern, used for text that has such characters.

    Examples
    --------
    >>> words, _ = token_patterns()
    >>> words.findall("Café au lait, l'été")
    ['Café', 'au', 'lait', "l'été"]
    """
    codes = [c for c in (*range(0x20000), *range(0xE0100, 0xE01F0)) if unicodedata.category(chr(c))[0] == "M"]

    def compiled(marks: list[int]) -> re.Pattern:
        starts = [c for i, c in enumerate(marks) if i == 0 or marks[i - 1] != c - 1]
        ends = [c for i, c in enumerate(marks) if i == len(marks) - 1 or marks[i + 1] != c + 1]
        m = "".join(f"{chr(a)}-{chr(b)}" for a, b in zip(starts, ends))
        return re.compile(rf"\w[\w{m}]*(?:'(?:[^\W\d]|[{m}])+)?")

    return compiled([c for c in codes if c < 0x10000]), compiled(codes)


ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def tokenize(doc: str) -> list[str]:
    """Lower-case word tokens: letters and digits of any script, accents kept, an inner apostrophe kept.

    Text is put in Unicode's composed form first, so a decomposed accent makes
    the same word as a precomposed one, and a typographic apostrophe (\u2019)
    counts as a plain one. Scripts written without spaces between words
    (Chinese, Japanese, Thai) need segmenting first; see :func:`check_word_spacing`.

    Examples
    --------
    >>> tokenize("Boston's Red Sox won 3-2!")
    ["boston's", 'red', 'sox', 'won', '3', '2']
    >>> tokenize("Café l\u2019été, Zürich")
    ['café', "l'été", 'zürich']
    """
    bmp, full = token_patterns()
    if doc.isascii():
        return bmp.findall(doc.lower().replace("_", " "))
    doc = unicodedata.normalize("NFC", doc).replace("\u2019", "'").lower().replace("_", " ")
    return (full if ASTRAL.search(doc) else bmp).findall(doc)


#: Scripts written without spaces between words: Thai, Lao, Tibetan, Myanmar, Khmer, the
#: ideographic iteration marks, Japanese kana, CJK ideographs (with extensions and
#: compatibility forms) and half-width katakana.
UNSPACED_RUN = re.compile(
    "[\u0e00-\u0eff\u0f00-\u0fff\u1000-\u109f\u1780-\u17ff\u3005-\u3007\u3040-\u30ff\u31f0-\u31ff"
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f\U00020000-\U0003134f]+"
)


def check_word_spacing(texts, source: str = "The corpus") -> None:
    """Refuse text in a script written without spaces between words, which tokenising would ruin.

    Chinese, Japanese and Thai (and Lao, Khmer, Myanmar, Tibetan) put no space
    between words, so a whole clause would become one "word". The text is
    refused when such scripts make up at least a tenth of it and either most
    of their characters lie in runs longer than 10 characters, or there is
    less than one space per 20 of their characters (runs averaging more than
    3). Pre-segmented text (one space between words) passes.

    Raises
    ------
    DataError
        naming ``source`` and saying how to segment the text.

    Examples
    --------
    >>> check_word_spacing(["我 喜欢 在 周末 读书 。", "the cat sat"])  # segmented: passes
    >>> check_word_spacing(["我喜欢在周末读书和听音乐。"], "notes.txt")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    embedcore.exceptions.DataError: notes.txt seems to be written without spaces between words: ...
    """
    texts = list(texts)
    joined = "\n".join(texts)
    if not UNSPACED_RUN.search(joined):
        return
    lengths = np.fromiter(map(len, UNSPACED_RUN.findall(joined)), dtype=np.int64)
    total = int(lengths.sum())
    if total < 0.1 * sum(map(len, joined.split())):
        return
    gaps = sum(len(t.split()) - 1 for t in texts if UNSPACED_RUN.search(t))
    long_share = lengths[lengths > 10].sum() / total
    mean_run = total / lengths.size
    if long_share < 0.5 and not (gaps < 0.05 * total and mean_run > 3):
        return
    spacing = "no spaces" if gaps == 0 else f"one space per {total / gaps:.0f} characters"
    raise DataError(
        f"{source} seems to be written without spaces between words: its Chinese, Japanese, Thai "
        f"or similar text comes in unbroken runs of {mean_run:.0f} characters on average, with {spacing}, "
        "so each run would count as one word. Segment it first, with one space between words "
        "(for Chinese e.g. jieba: ' '.join(jieba.cut(line)); for Japanese MeCab or fugashi; for Thai "
        "PyThaiNLP's word_tokenize), then load it again."
    )


def documents_as_tokens(documents) -> list[list[str]]:
    """Each document as its list of tokens: strings through :func:`tokenize`, token lists as given.

    Refuses a single string (a corpus is a list of documents), unsegmented text
    (:func:`check_word_spacing`) and a corpus without a single word.

    Examples
    --------
    >>> documents_as_tokens(["The cat sat.", ["already", "split"]])
    [['the', 'cat', 'sat'], ['already', 'split']]
    """
    if isinstance(documents, str):
        raise ValueError("Pass a list of documents (strings or token lists), not a single string.")
    documents = list(documents)
    check_word_spacing([d for d in documents if isinstance(d, str)])
    docs = [tokenize(d) if isinstance(d, str) else [str(t) for t in d] for d in documents]
    if not any(docs):
        raise ValueError("The corpus is empty: no document has a single word.")
    return docs
