"""Which kind of data a file holds, guessed from its name and first lines, with the reason in one sentence."""

from __future__ import annotations

import csv
import json
import re

from .list_columns import JSON_LIST_FIELD, looks_like_lists, numeric_list_type
from .results import DataError
from .files import spreadsheet_kind, spreadsheet_text
from .text import trailing_separator, decimal_commas, sniff_separator

_BY_SUFFIX = {
    "npy": ("vectors", "a .npy file holds an array of numbers"),
    "vec": ("vectors", "a .vec file is fastText's word-vector text"),
    "w2v": ("vectors", "a .w2v file is word2vec's word-vector text"),
}
_EDGES = re.compile(r"^\W+|\W+$")
_WORD = re.compile(r"^[^\W\d_]+(?:['’-][^\W\d_]+)*$")
_W2V_HEADER = re.compile(r"^\s*(\d+)\s+(\d+)\s*$")
#: Characters of a text on one to three lines above which it is prose to split into documents.
_PROSE = 2_000


def guess_kind(names: tuple[str, ...], blobs: tuple[bytes, ...]) -> str:
    """What kind of data an upload most likely is, from its names and its first lines.

    Examples
    --------
    >>> guess_kind(("tips.csv",), (b"day,tip\\nMon,1\\nMon,2\\nMon,2\\nSat,3\\nSat,4\\nSat,5\\n",))
    'table'
    >>> guess_kind(("lists.txt", "song_tags.tsv"), (b"s1 s2\\n", b"s1\\trock\\n"))
    'playlists'
    >>> guess_kind(("glove.txt",), (b"the 0.1 0.2 0.3\\nnan 0.4 0.5 0.6\\n",))
    'vectors'
    """
    return explain_kind(names, blobs)[0]


def explain_kind(names: tuple[str, ...], blobs: tuple[bytes, ...]) -> tuple[str, str]:
    """The kind an upload most likely is, and one sentence saying why.

    Two files: a name with 'meta' is a projector pair (vectors), a name with
    'tag' is playlists with tags, anything else item vectors + sets. One file:
    by extension for binary formats (a workbook's first sheet and a Parquet
    file are read like a table of text, unless a column holds lists of numbers);
    JSON lines (``.jsonl``, ``.ndjson``, or lines opening with ``{``) are vectors;
    then by content: word-vector lines (a
    word and its numbers, with or without word2vec's count line) are vectors, and
    so is a column of bracketed lists of numbers (``"[0.1, 0.2]"``);
    a delimited file with a header is vectors when all columns are numbers or
    one column labels two or more columns of numbers, a table when a text
    column repeats values; one long line of prose is documents; other text is
    playlists when its tokens look like ids, documents when they are words.

    Examples
    --------
    >>> explain_kind(("points.csv",), (b"x,y,z,label\\n1,2,3,a\\n4,5,6,a\\n7,8,9,b\\n",))
    ('vectors', 'points.csv has 3 columns of numbers and one column of labels: vectors with labels.')
    >>> explain_kind(("e.jsonl",), (b'{"title": "a", "embedding": [0.1, 0.2, 0.3]}\\n',))[1]
    "e.jsonl holds JSON lines whose field 'embedding' is a list of 3 numbers: vectors, with the other fields as labels."
    """
    if len(names) > 1:
        low = [n.lower() for n in names]
        if any("meta" in n for n in low):
            return "vectors", "one file's name contains 'meta': an Embedding Projector pair of vectors and metadata."
        if any("tag" in n for n in low):
            return "playlists", "one file's name contains 'tag': playlists with a song-tag file."
        return "item_sets", "two files: item vectors and the sets made of those items."
    name = names[0]
    low = name.lower()
    suffix = low.rsplit(".", 1)[-1] if "." in low else ""
    data = blobs[0]
    if suffix in _BY_SUFFIX:
        kind, why = _BY_SUFFIX[suffix]
        return kind, f"{why}."
    if suffix == "parquet" or data.startswith(b"PAR1"):
        return _parquet_kind(data, name)
    sheet = None
    if spreadsheet_kind(data, name) is not None:
        try:
            sheet = spreadsheet_text(data, name, max_rows=200)
        except DataError:
            return "table", f"{name} is a workbook; the table reader says what it needs."
    if sheet is not None:
        text = sheet[0]
        where = f"{name}'s first sheet"
    else:
        head = data[:20000]
        try:
            text = head.decode("utf-8-sig")
        except UnicodeDecodeError as err:
            text = head[: err.start].decode("utf-8") if err.start > len(head) - 4 else head.decode("cp1252", "replace")
        where = name
    lines = [ln for ln in text.splitlines()[:200] if ln.strip()]
    complete = len(data) <= 20000 or sheet is not None
    if not lines:
        return "documents", f"{name} holds no line of data; text is the likeliest."
    if sheet is None and (suffix in ("jsonl", "ndjson") or (lines[0].lstrip().startswith("{")
                                                             and suffix not in ("csv", "tsv", "tab"))):
        return _json_lines_kind(lines, name, complete or text.endswith("\n"))
    listed = _list_column(lines, name if sheet is None else "sheet.csv", complete, where)
    if listed:
        return "vectors", listed
    words = _word_vectors(lines)
    if words:
        return "vectors", f"{where} {words}."
    long_text = (len(lines) <= 3 and complete and sum(map(len, lines)) >= _PROSE) or (len(lines) == 1 and len(lines[0]) >= _PROSE)
    if long_text and _word_share(" ".join(lines).split()) >= 0.7:
        return "documents", (f"{where} is a long text on {len(lines)} line{'s' if len(lines) > 1 else ''}: "
                             "prose, split into documents at sentence ends.")
    sep = sniff_separator(name if sheet is None else "sheet.csv", lines[:50])
    tabbed_text = sep == "\t" and sheet is None and suffix not in ("csv", "tsv", "tab")  # label<TAB>items: sets
    if sep is not None and len(lines) >= 2:
        cells = lines[:50]
        if trailing_separator(cells, sep):
            cells = [ln.rstrip(" \r")[:-1] if ln.rstrip(" \r").endswith(sep) else ln for ln in cells]
        cells, _ = decimal_commas(cells, sep)
        rows = [ln.split(sep) for ln in cells]
        width = len(rows[0])
        even = width >= 2 and all(len(r) == width for r in rows)
        numbers = even and any(all(_is_number_text(r[j]) and r[j].strip() for r in rows[1:]) for j in range(width))
        if even and (numbers or not tabbed_text):
            return _delimited(rows, where, suffix)
    if suffix in ("csv", "tsv", "tab"):
        return "vectors", f"{name} is named .{suffix}; the vector reader names any line that does not fit."
    if "\t" in lines[0] and all("\t" in ln for ln in lines[:20]):
        return "sets", f"every line of {name} starts with a label and a tab: labelled sets."
    tokens = [t for ln in lines for t in ln.replace(",", " ").split()]
    if all(_is_number_text(t) for t in tokens[1:]) and all(len(ln.split()) == 1 for ln in lines):
        return "vectors", f"{name} holds one number per line: one-dimensional vectors."
    if any(w in low for w in ("playlist", "song", "track")):
        return "playlists", f"{name}'s name says playlists, and it holds lines of ids."
    share = _word_share(tokens)
    if share >= 0.7:
        return "documents", f"{share:.0%} of the tokens with letters or digits in {name}'s first lines are words: text."
    why = (f"only {share:.0%} of the tokens in {name}'s first lines are words, the rest look like ids: playlists, "
           "one per line. Ids can also be a corpus (for Words and Text): then choose Text.")
    head = _leading_id(lines)
    if head is not None:
        why += f" Each line opens with another kind of id ({head}), read as an item too."
    return "playlists", why


def _json_lines_kind(lines: list[str], name: str, complete: bool) -> tuple[str, str]:
    """Why JSON lines are vectors: a field holding a list of numbers, or numeric fields as in a CSV table."""
    whole = lines if complete else lines[:-1]  # the last line of a cut head is cut too
    objects = []
    for ln in whole[:50]:
        try:
            obj = json.loads(ln)
        except ValueError:
            break
        if isinstance(obj, dict):
            objects.append(obj)
    for obj in objects[:1]:
        for key, value in obj.items():
            if isinstance(value, list) and value and all(isinstance(x, (int, float)) and not isinstance(x, bool)
                                                         for x in value):
                return "vectors", (f"{name} holds JSON lines whose field {key!r} is a list of {len(value)} numbers: "
                                   "vectors, with the other fields as labels.")
    found = JSON_LIST_FIELD.search(lines[0])
    if found:  # a line longer than the head read: its list opens with a number
        return "vectors", (f"{name} holds JSON lines whose field {found.group(1)!r} is a list of numbers: vectors, "
                           "with the other fields as labels.")
    keys = list(dict.fromkeys(k for obj in objects for k in obj))
    numeric = [k for k in keys if all(isinstance(o.get(k), (int, float)) and not isinstance(o.get(k), bool)
                                      or o.get(k) is None for o in objects)
               and any(o.get(k) is not None for o in objects)]
    if numeric:
        shown = ", ".join(numeric[:6]) + (", ..." if len(numeric) > 6 else "")
        others = len(keys) - len(numeric)
        return "vectors", (f"{name} holds JSON lines with {len(numeric)} numeric field{'s' if len(numeric) > 1 else ''} "
                           f"({shown}){f' and {others} other' + ('s' if others > 1 else '') if others else ''}: "
                           f"vectors{', with the other fields as labels' if others else ''}.")
    return "vectors", (f"{name} holds JSON lines, which the lab reads as vectors, but its first objects have no "
                       "numeric field and no list of numbers; the vector reader says what it needs.")


def _list_column(lines: list[str], name: str, complete: bool, where: str) -> str | None:
    """Why a delimited text is vectors held in one column of bracketed lists ("[0.1, 0.2]"), or None."""
    whole = lines if complete or len(lines) < 2 else lines[:-1]
    sep = sniff_separator(name, whole[:50])
    try:
        rows = list(csv.reader(whole[:50] if len(whole) > 1 else lines[:2], delimiter=sep or "\t"))
    except csv.Error:
        return None
    body = rows[1:] if len(rows) > 1 and not any(looks_like_lists([c]) for c in rows[0]) else rows
    if not body or len({len(r) for r in body}) != 1:
        return None
    for j in range(len(body[0])):
        cells = [r[j] for r in body]
        if looks_like_lists(cells) and cells[0].strip().endswith("]"):
            header = rows[0][j].strip() if body is not rows else ""
            column = f"column {header!r}" if header else f"column {j + 1}"
            d = len([t for t in re.split(r"[,\s]+", cells[0].strip()[1:-1]) if t])
            if len(body[0]) == 1:
                return f"{where} holds a list of {d} numbers on every line: vectors."
            return (f"{where}'s {column} holds a list of {d} numbers in each row: vectors, with the other columns "
                    "as labels.")
    return None


def _prefix(token: str) -> str:
    """What an id has before its digits: ``u`` for ``u123``."""
    return re.sub(r"\d.*$", "", token)


def _leading_id(lines: list[str]) -> str | None:
    """When the first token of (nearly) every line has a prefix no other token of its line has (``u12 i4 i9``),
    that first line's first two tokens quoted, else None."""
    pairs = [ln.split() for ln in lines[:50]]
    pairs = [t for t in pairs if len(t) >= 2 and _prefix(t[0])]
    if len(pairs) < 3:
        return None
    heads = {_prefix(t[0]) for t in pairs}
    apart = sum(_prefix(t[0]) not in {_prefix(x) for x in t[1:]} for t in pairs)
    if len(heads) != 1 or apart < 0.9 * len(pairs):
        return None
    first = pairs[0]
    return f"'{first[0][:12]}' before '{first[1][:12]}'"


def _word_share(tokens: list[str]) -> float:
    """The share of words among the tokens that hold a letter or digit (symbols and emoji count for neither)."""
    named = [t for t in tokens if any(c.isalnum() for c in t)]
    return sum(bool(_WORD.match(_EDGES.sub("", t))) for t in named) / max(len(named), 1)


def _word_vectors(lines: list[str]) -> str | None:
    """Why these lines are word vectors (a word, then numbers, on every line), or None."""
    first = lines[0]
    count = _W2V_HEADER.match(first)
    body = lines[1:] if count else lines
    if not body:
        return None
    widths = {len(ln.split()) for ln in body[:50]}
    if len(widths) != 1:
        return None
    width = widths.pop()
    if width < 3:
        return None
    numbers = all(_is_plain_number(t) for ln in body[:50] for t in ln.split()[1:])
    words = sum(not _is_plain_number(ln.split()[0]) for ln in body[:50])
    if not numbers or words < 0.5 * len(body[:50]):
        return None
    if count:
        if int(count.group(2)) != width - 1:
            return None
        return f"starts with word2vec's count line ({first.strip()}) and then a word and {width - 1} numbers per line"
    return f"holds a word and {width - 1} numbers on every line: word vectors (GloVe, fastText or word2vec text)"


def _delimited(rows: list[list[str]], where: str, suffix: str) -> tuple[str, str]:
    body = rows[1:] or rows
    d = len(rows[0])
    text_cols = [j for j in range(d) if not all(_is_number_text(r[j]) for r in body)]
    numeric = d - len(text_cols)
    if not text_cols:
        return "vectors", f"every column of {where} holds numbers: vectors."
    if len(text_cols) == 1 and numeric >= 2:
        return "vectors", (f"{where} has {numeric} columns of numbers and one column of labels: "
                           "vectors with labels.")
    repeats = any(len({r[j] for r in body}) <= len(body) / 2 for j in text_cols)
    if repeats and numeric:
        return "table", (f"{where} has text columns whose values repeat (categories) next to "
                         f"{numeric} column{'s' if numeric > 1 else ''} of numbers: a table.")
    if not numeric and suffix not in ("csv", "tsv", "tab") and len(text_cols) == d:
        if repeats:
            return "table", f"every column of {where} holds text with repeated values: a table of categories."
    return "vectors", (f"{where} has {numeric} column{'s' if numeric != 1 else ''} of numbers and "
                       f"{len(text_cols)} of distinct text: vectors with their labels.")


def _parquet_kind(data: bytes, name: str) -> tuple[str, str]:
    try:
        import io

        import pyarrow.parquet as pq

        schema = pq.read_schema(io.BytesIO(data))
        types = [str(t) for t in schema.types]
    except Exception:
        return "table", f"{name} is a Parquet file; the table reader says what it needs."
    numeric = sum(t.startswith(("int", "uint", "float", "double", "bool", "halffloat")) for t in types)
    lists = [f for f in schema if numeric_list_type(f.type)]
    if lists:
        size = getattr(lists[0].type, "list_size", None)
        what = f"a list of {size} numbers" if size else "a list of numbers"
        labels = ", with the other columns as labels" if len(types) > 1 else ""
        return "vectors", (f"{name} is a Parquet file whose column {lists[0].name!r} holds {what} in each row: "
                           f"vectors{labels}.")
    if numeric == len(types) or (numeric >= 2 and numeric == len(types) - 1):
        return "vectors", (f"{name} is a Parquet file of {numeric} numeric column{'s' if numeric > 1 else ''}"
                           f"{' and one of labels' if numeric < len(types) else ''}: vectors.")
    return "table", f"{name} is a Parquet file with {len(types) - numeric} text columns: a table."


def _is_number_text(cell: str) -> bool:
    """A cell that reads as a number, or an empty cell."""
    try:
        float(cell)
        return True
    except ValueError:
        return cell.strip() == ""


def _is_plain_number(cell: str) -> bool:
    """A number written as one (not 'nan' or 'inf', which are words in a word-vector file)."""
    try:
        float(cell)
    except ValueError:
        return False
    return cell.strip().lower().lstrip("+-") not in ("nan", "inf", "infinity")
