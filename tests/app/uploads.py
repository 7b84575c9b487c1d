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


# --------------------------------------------------------------------------- the files people have on their disks


def _frame(n: int = 60, seed: int = 0, labels=None):
    """Three columns of numbers and, with ``labels``, a column of them (cycled)."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(rng.normal(size=(n, 3)).round(3), columns=["x", "y", "z"])
    if labels is not None:
        frame["label"] = [labels[i % len(labels)] for i in range(n)]
    return frame


def _category_frame(n: int = 60, seed: int = 0):
    import pandas as pd

    rng = np.random.default_rng(seed)
    return pd.DataFrame({"colour": [["red", "green", "blue"][i % 3] for i in range(n)],
                         "score": (rng.normal(size=n) + np.arange(n) % 3).round(2)})


def delimited(frame, sep: str = ",", decimal: str = ".", trailing: bool = False, encoding: str = "utf-8") -> bytes:
    """A frame as a spreadsheet would export it: its separator, decimal mark, a separator closing
    every line when ``trailing``, in ``encoding``."""
    lines = [sep.join(map(str, frame.columns))]
    for row in frame.itertuples(index=False):
        lines.append(sep.join(str(v).replace(".", decimal) if isinstance(v, float) else str(v) for v in row))
    end = sep if trailing else ""
    return ("".join(ln + end + "\r\n" for ln in lines)).encode(encoding)


def workbook(frame, ext: str = ".xlsx", sheets: int = 1) -> bytes:
    """A frame as the first sheet of an .xlsx or .ods workbook (more sheets after it when asked)."""
    import pandas as pd

    buf = io.BytesIO()
    with pd.ExcelWriter(buf, engine={".xlsx": "openpyxl", ".ods": "odf"}[ext]) as writer:
        frame.to_excel(writer, sheet_name="Measurements", index=False)
        for i in range(1, sheets):
            frame.head(2).to_excel(writer, sheet_name=f"Notes {i}", index=False)
    return buf.getvalue()


def fixture(name: str) -> bytes:
    """A committed file from tests/fixtures (the .xls workbooks, which nothing here can write)."""
    from pathlib import Path

    return (Path(__file__).parents[1] / "fixtures" / name).read_bytes()


def parquet(frame) -> bytes:
    buf = io.BytesIO()
    frame.to_parquet(buf, index=False)
    return buf.getvalue()


#: Words a word-vector file holds that a careless reader takes for missing values, numbers or markup.
AWKWARD_WORDS = ["nan", "null", "NA", "none", "-", "inf", "True", "<b>x!</b>", "**bold**", "café", "😀", "—", "don't"]


def word_vectors(n: int = 40, d: int = 5, fmt: str = "glove", seed: int = 0) -> bytes:
    """Word vectors as GloVe (a word and its numbers per line), word2vec text (a count line first) or
    fastText .vec (the same, a space after the last number)."""
    rng = np.random.default_rng(seed)
    words = AWKWARD_WORDS + [f"w{i}" for i in range(n - len(AWKWARD_WORDS))]
    X = rng.normal(size=(n, d)).round(4)
    lines = [w + " " + " ".join(f"{v:.4f}" for v in x) + (" " if fmt == "vec" else "") for w, x in zip(words, X)]
    if fmt in ("word2vec", "vec"):
        lines.insert(0, f"{n} {d}")
    return ("\n".join(lines) + "\n").encode()


def projector_pair(n: int = 40, d: int = 4, seed: int = 0) -> list[tuple[str, bytes]]:
    """The Embedding Projector's pair: vectors TSV (no header) and one-column metadata TSV (no header)."""
    rng = np.random.default_rng(seed)
    words = AWKWARD_WORDS + [f"w{i}" for i in range(n - len(AWKWARD_WORDS))]
    vecs = "\n".join("\t".join(f"{v:.4f}" for v in x) for x in rng.normal(size=(n, d))) + "\n"
    return [("vectors.tsv", vecs.encode()), ("metadata.tsv", ("\n".join(words) + "\n").encode())]


PROSE = ("The river ran past the old stone house, and the light fell on the water. Nobody knew who had built it; "
         "some said a miller, others a sailor home from the sea! Was it true? The storm came in at night, and "
         "the field turned to mud. ")


def one_line_text(repeats: int = 20) -> bytes:
    """A whole text on one line, as text copied out of a page often is."""
    return (PROSE * repeats).strip().encode()


def symbol_text(n_docs: int = 40, seed: int = 0) -> bytes:
    """Text whose tokens include symbols and emoji next to words."""
    rng = np.random.default_rng(seed)
    vocab = ["river", "stone", "light", "water", "storm", "field", "house", "night", "😀", "🎵", "+", "=", "%", "&",
             "€", "→", "#tag", "@name", ":-)"]
    return ("\n".join(" ".join(rng.choice(vocab, 10)) for _ in range(n_docs)) + "\n").encode()


def quoted_playlists(n_lists: int = 60, seed: int = 0) -> bytes:
    """Playlists whose song ids hold spaces and commas inside double quotes."""
    rng = np.random.default_rng(seed)
    songs = ['"Blue Monday, live"', '"So What"', '"A Love Supreme, Pt. 1"', "s1", "s2", "s3", '"Take Five"', "s4"]
    return ("\n".join(" ".join(rng.choice(songs, 6)) for _ in range(n_lists)) + "\n").encode()


def one_long_playlist(n: int = 10_000, songs: int = 300, seed: int = 0) -> bytes:
    rng = np.random.default_rng(seed)
    return (" ".join(f"song{j}" for j in rng.integers(0, songs, n)) + "\n").encode()


#: Self-loops of nodes that have no other edge, next to an ordinary graph (an edge list for Graphs' own uploader).
SELF_LOOP_EDGES = b"a b\nb c\nc a\nc d\nd a\nlonely lonely\nsolo solo\n"

DISK_FILES: dict[str, list[tuple[str, bytes]]] = {
    "vectors-semicolon-decimal-comma": [("europe.csv", delimited(_frame(), ";", ","))],
    "table-semicolon-decimal-comma": [("europe_table.csv", delimited(_category_frame(), ";", ","))],
    "vectors-trailing-separator": [("export.csv", delimited(_frame(), ",", trailing=True))],
    "table-trailing-separator": [("export_table.csv", delimited(_category_frame(), ",", trailing=True))],
    "vectors-tabs": [("tabs.txt", delimited(_frame(labels=["a", "b", "c"]), "\t"))],
    "vectors-pipes": [("pipes.csv", delimited(_frame(), "|"))],
    "vectors-cp1252": [("windows.csv", delimited(_frame(labels=["café", "naïve", "größe", "façade"]), ";", ",",
                                                 encoding="cp1252"))],
    "table-latin1": [("latin1.csv", delimited(_category_frame().assign(colour=lambda f: f.colour + "é"),
                                              encoding="latin-1"))],
    "vectors-xlsx": [("book.xlsx", workbook(_frame(labels=["a", "b"]), sheets=2))],
    "table-xlsx": [("table.xlsx", workbook(_category_frame()))],
    "table-ods": [("table.ods", workbook(_category_frame(), ".ods"))],
    "vectors-xls": [("measurements.xls", fixture("measurements.xls"))],
    "table-xls": [("table.xls", fixture("table.xls"))],
    "vectors-parquet": [("points.parquet", parquet(_frame(labels=["a", "b", "c"])))],
    "table-parquet": [("table.parquet", parquet(_category_frame().assign(day=lambda f: ["Mon", "Sat"] * 30)))],
    "vectors-labelled": [("labelled.csv", delimited(_frame(labels=["alpha", "beta", "gamma"])))],
    "vectors-glove": [("glove.6B.5d.txt", word_vectors(fmt="glove"))],
    "vectors-word2vec": [("model.txt", word_vectors(fmt="word2vec"))],
    "vectors-fasttext": [("wiki.vec", word_vectors(fmt="vec"))],
    "vectors-projector-pair": projector_pair(),
    "text-one-line": [("essay.txt", one_line_text())],
    "text-symbols": [("chat.txt", symbol_text())],
    "playlists-quoted-ids": [("radio.txt", quoted_playlists())],
    "playlists-one-huge": [("history.txt", one_long_playlist())],
}
UPLOADS.update(DISK_FILES)
