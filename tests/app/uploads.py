"""A small family of generated uploads off the default path: tiny, odd, extreme and marked-up files.

Each case is a list of ``(file name, bytes)`` uploaded together. The names in
:data:`MARKUP` are what a careless or hostile file might hold; a page must show
them literally.
"""

from __future__ import annotations

import io

import numpy as np

MARKUP = ["**bold**", "<b>x!</b>", "[l](javascript:alert(1))", "![i](http://127.0.0.1:9/x.png)"]
#: How each marker looks when it was rendered instead of shown: found raw in Markdown or in a chart's text.
MARKDOWN_TELLS = ["**bold**", "<b>x!</b>", "](javascript:", "![i](http"]
HTML_TELLS = ["<b>x!</b>", "\\*\\*bold", "\\<b\\>"]  # raw HTML, or a Markdown escape that a chart shows as backslashes


def _csv(rows) -> bytes:
    return ("\n".join(",".join(str(v) for v in r) for r in rows) + "\n").encode()


def _npy(a) -> bytes:
    buf = io.BytesIO()
    np.save(buf, a)
    return buf.getvalue()


def _vectors(n: int, d: int, seed: int = 0, scale: float = 1.0) -> list[list]:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, d))
    return (x.round(4) if scale == 1.0 else x * scale).tolist()


def _playlists(n_songs: int, n_lists: int, length: int, names=None, seed: int = 0) -> bytes:
    rng = np.random.default_rng(seed)
    names = names or [f"s{i}" for i in range(n_songs)]
    lines = [" ".join(names[j] for j in rng.integers(0, len(names), length)) for _ in range(n_lists)]
    return ("\n".join(lines) + "\n").encode()


def _words(n_docs: int, vocab: list[str], length: int, seed: int = 0) -> bytes:
    rng = np.random.default_rng(seed)
    return ("\n".join(" ".join(rng.choice(vocab, length)) for _ in range(n_docs)) + "\n").encode()


MARKUP_WORDS = ["bold", "x", "alert", "café", "naïve", "größe", "über", "river", "stone", "apple", "green", "light",
                "house", "cloud", "table", "bread", "glass", "music", "night", "paper", "train", "water", "sound",
                "field", "storm"]

UPLOADS: dict[str, list[tuple[str, bytes]]] = {
    # vectors
    "vectors-1-row": [("one.csv", _csv([["x", "y", "z"], [1, 2, 3]]))],
    "vectors-2-rows": [("two.csv", _csv([["x", "y"], [1, 2], [3, 5]]))],
    "vectors-3-rows-1-col": [("three.csv", _csv([["x"], [1], [2], [4]]))],
    "vectors-4-cols": [("four.csv", _csv([["a", "b", "c", "d"]] + _vectors(60, 4)))],
    "vectors-constant": [("const.csv", _csv([["a", "b", "c"]] + [[1, 1, 1]] * 40))],
    "vectors-duplicates": [("dups.csv", _csv([["a", "b", "c"]] + _vectors(5, 3) * 12))],
    "vectors-huge": [("huge.csv", _csv([["a", "b", "c"]] + _vectors(80, 3, scale=1e306)))],
    "vectors-tiny": [("tiny.csv", _csv([["a", "b", "c"]] + _vectors(80, 3, scale=1e-300)))],
    "vectors-npy": [("wide.npy", _npy(np.random.default_rng(1).normal(size=(120, 12))))],
    "vectors-markup-labels": [("named.csv", _csv([["x", "y", "z", "**bold**<b>x!</b>"]]
                                                 + [v + [MARKUP[i % 4]] for i, v in enumerate(_vectors(80, 3))]))],
    # item vectors + sets
    "item-sets-markup": [
        ("items.csv", _csv([["name", "x", "y"]] + [[n] + v for n, v in zip(MARKUP + ["plain"], _vectors(5, 2))])),
        ("sets.tsv", "\n".join(f"{lab}\t" + " ".join(s) for lab, s in [
            ("a", ["**bold**", "<b>x!</b>"]), ("b", ["plain", "**bold**"]), ("a", ["<b>x!</b>"]),
            ("b", ["plain"])]).encode() + b"\n"),
    ],
    "item-sets-one-set": [
        ("items.csv", _csv([["name", "x", "y"], ["a", 0, 1], ["b", 1, 0]])),
        ("sets.txt", b"a b\n"),
    ],
    # tables
    "table-3-categories": [("three.csv", _csv([["colour", "score"]] + [[c, i % 7 + k] for i in range(60)
                                                for k, c in enumerate(["red", "green", "blue"])]))],
    "table-2-categories": [("two.csv", _csv([["g", "y"]] + [["a", 1], ["b", 2], ["a", 1.5], ["b", 3]] * 5))],
    "table-markup-categories": [("tags.csv", _csv([["cat", "y"]] + [[MARKUP[i % 4].replace(",", " "), i % 5]
                                                                     for i in range(80)]))],
    "table-constant-target": [("flat.csv", _csv([["day", "y"]] + [[d, 1] for d in "MTWTFSS" * 6]))],
    # playlists
    "playlists-1-song": [("one.txt", b"s1\ns1\ns1\n")],
    "playlists-tiny": [("tiny_playlists.txt", b"a b\nb c\nc a\n")],
    "playlists-markup": [("markup.txt", _playlists(0, 60, 6, names=[m.replace(" ", "") for m in MARKUP] + ["plain"]))],
    "playlists-with-tags": [
        ("lists.txt", _playlists(30, 80, 6)),
        ("song_tags.tsv", ("\n".join(f"s{i}\t{MARKUP[i % 4]}" for i in range(30)) + "\n").encode()),
    ],
    # text
    "text-25-words": [("small.txt", _words(5, MARKUP_WORDS, 12))],
    "text-1-doc": [("one.txt", b"the cat sat on the mat and the dog sat too\n")],
    "text-markup": [("markup.txt", _words(40, ["**bold**", "<b>x!</b>", "alpha", "beta", "gamma", "delta"], 10))],
}
