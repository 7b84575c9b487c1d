"""Sets of items, playlists and song tags: one group per line."""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from .results import DataError, PlaylistData, SetData
from .files import decode_bytes, plural, text_lines, source_bytes, quote
from .text import sample_lines, sample_list_into

_ITEM_SPLIT = re.compile(r"[,\s]+")
_SET_HEADERS = {("label", "items"), ("label", "set"), ("class", "items"), ("y", "items")}


def _item_lines(data: bytes, name: str, what: str, notices: list[str] | None = None
                ) -> tuple[list[str], list[int], int]:
    text = decode_bytes(data, name, f"a text file of {what}", notices)
    lines = text_lines(text)
    blank = 0
    kept, numbers = [], []
    for i, ln in enumerate(lines):
        if not ln.strip() or ln.lstrip().startswith("#"):
            blank += 1
            continue
        kept.append(ln)
        numbers.append(i + 1)
    if not lines or not text.strip():
        raise DataError(f"{name} is empty. Put one of the {what} on each line.")
    return kept, numbers, blank


_QUOTED_ITEM = re.compile(r'"((?:[^"]|"")*)"|([^,\s"]+)')


def _split_items(line: str) -> list[str]:
    """Items separated by commas or whitespace; an item in double quotes may hold either (and "" for a quote)."""
    if '"' not in line:
        return [t for t in _ITEM_SPLIT.split(line.strip()) if t]
    return [q.replace('""', '"') if q else plain for q, plain in _QUOTED_ITEM.findall(line) if q or plain]


def _quoted_notice(kept: list[str], numbers: list[int], name: str, what: str) -> str | None:
    quoted = [numbers[i] for i, ln in enumerate(kept) if '"' in ln]
    if not quoted:
        return None
    return (f"{name}: {plural(len(quoted), 'line')} hold{'s' if len(quoted) == 1 else ''} {what} in double quotes "
            f"(line {quoted[0]}{', ...' if len(quoted) > 1 else ''}); each quoted id is read whole, spaces and commas included.")


#: A file holding a single playlist of at least this many songs is cut into sessions.
SESSION_FROM = 20
#: The longest session a single playlist is cut into.
SESSION_SONGS = 50


def session_length(n_songs: int) -> int:
    """The session length a playlist of ``n_songs`` is cut at by default: a tenth of it, at least two songs
    and at most :data:`SESSION_SONGS`.

    Examples
    --------
    >>> session_length(45), session_length(10), session_length(10_000)
    (4, 2, 50)
    """
    return max(2, min(SESSION_SONGS, int(n_songs) // 10))


def cut_into_sessions(playlist: list[str], size: int | None = None) -> list[list[str]]:
    """One long playlist as consecutive sessions of ``size`` songs (the last may be shorter); by default
    :func:`session_length`: at least ten of at least two songs, at most :data:`SESSION_SONGS` songs each.

    Examples
    --------
    >>> [len(s) for s in cut_into_sessions([str(i) for i in range(45)])]
    [4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 1]
    >>> cut_into_sessions(list("abcde"), 2)
    [['a', 'b'], ['c', 'd'], ['e']]
    """
    size = session_length(len(playlist)) if size is None else int(size)
    if size < 1:
        raise ValueError(f"A session needs at least one song; got size={size}.")
    return [playlist[i:i + size] for i in range(0, len(playlist), size)]


def read_sets(
    source: Any, filename: str | None = None, *, max_sets: int = 500_000, seed: int = 0
) -> SetData:
    """Read sets of items, one set per line.

    Items are separated by commas or whitespace. A set may carry a label:
    ``label<TAB>item item item``; then every line needs one. A first line
    ``label<TAB>items`` is taken as a header. Lines starting with ``#`` and
    blank lines are skipped and counted.

    Examples
    --------
    >>> s = read_sets(b"fruit\\tapple pear\\nmeat\\tsalami,chorizo\\n")
    >>> s.sets, s.labels
    ([['apple', 'pear'], ['salami', 'chorizo']], ['fruit', 'meat'])
    """
    data, name = source_bytes(source, filename)
    notices: list[str] = []
    kept, numbers, skipped = _item_lines(data, name, "sets", notices)
    if kept and tuple(p.strip().lower() for p in kept[0].split("\t")) in _SET_HEADERS:
        kept, numbers = kept[1:], numbers[1:]
        if not kept:
            raise DataError(f"{name} has a header line but no sets below it.")
    if not kept:
        raise DataError(f"{name} has no sets, only blank or comment lines.")
    tabbed = np.array(["\t" in ln for ln in kept])
    result = SetData(name, sets=[], notices=notices)
    quoted = _quoted_notice(kept, numbers, name, "items")
    if quoted:
        notices.append(quoted)
    if tabbed.any() and not tabbed.all():
        j = int(np.flatnonzero(~tabbed)[0]) if tabbed.mean() > 0.5 else int(np.flatnonzero(tabbed)[0])
        has = "has no label" if tabbed.mean() > 0.5 else "has a label (a tab)"
        raise DataError(
            f"{name}, line {numbers[j]} {has} while most lines do not agree. Either every line "
            "starts with 'label<TAB>' or none does."
        )
    if tabbed.all():
        parts = [ln.split("\t", 1) for ln in kept]
        labels = [p[0].strip() for p in parts]
        empty = [numbers[i] for i, lab in enumerate(labels) if not lab]
        if empty:
            raise DataError(f"{name}, line {empty[0]}: the label before the tab is empty.")
        sets = [_split_items(p[1]) for p in parts]
        result.labels = labels
    else:
        sets = [_split_items(ln) for ln in kept]
    n_empty = sum(1 for s in sets if not s)
    if n_empty:
        result.notices.append(f"{n_empty} set{'s are' if n_empty > 1 else ' is'} empty (a label with no items).")
    if skipped:
        result.notices.append(f"Skipped {skipped} blank or comment line{'s' if skipped > 1 else ''}.")
    idx = sample_lines(len(sets), max_sets, seed, result, "sets")
    if idx is not None:
        sets = [sets[i] for i in idx]
        if result.labels is not None:
            result.labels = [result.labels[i] for i in idx]
    result.sets = sets
    return result


def read_playlists(
    source: Any, filename: str | None = None, *, max_playlists: int = 500_000, seed: int = 0
) -> PlaylistData:
    """Read playlists, one per line, song ids separated by commas or whitespace.

    Returns a :class:`PlaylistData`, which behaves as a list of playlists.

    Examples
    --------
    >>> p = read_playlists(b"a b c\\nc,a\\n")
    >>> list(p)
    [['a', 'b', 'c'], ['c', 'a']]
    """
    data, name = source_bytes(source, filename)
    notices: list[str] = []
    kept, numbers, skipped = _item_lines(data, name, "playlists", notices)
    if not kept:
        raise DataError(f"{name} has no playlists, only blank or comment lines.")
    playlists = [_split_items(ln.replace("\t", " ")) for ln in kept]
    quoted = _quoted_notice(kept, numbers, name, "song ids")
    if quoted:
        notices.append(quoted)
    one = len(playlists[0]) if len(playlists) == 1 else None
    if len(playlists) == 1 and len(playlists[0]) >= SESSION_FROM:
        whole = len(playlists[0])
        playlists = cut_into_sessions(playlists[0])
        numbers = numbers * len(playlists)
        notices.append(f"{name} holds one playlist of {whole:,} songs. A held-out split needs at least two "
                       f"playlists, so it is cut into {len(playlists):,} sessions of {len(playlists[0]):,} songs "
                       "in their order. Put one session per line to choose the cut yourself.")
    result = PlaylistData(name, playlists=playlists, notices=notices, one_playlist=one)
    short = [numbers[i] for i, p in enumerate(playlists) if len(p) < 2]
    if len(short) == len(playlists):
        raise DataError(
            f"{name}: every playlist has fewer than 2 songs, so there is no transition to learn "
            f"from (line {short[0]}). Separate songs with spaces or commas."
        )
    if short:
        result.notices.append(
            f"{len(short)} playlist{'s have' if len(short) > 1 else ' has'} a single song and no "
            f"transition (line {short[0]}{', ...' if len(short) > 1 else ''}); kept, but they add nothing."
        )
    if skipped:
        result.notices.append(f"Skipped {skipped} blank or comment line{'s' if skipped > 1 else ''}.")
    return sample_list_into(result, "playlists", playlists, max_playlists, seed, "playlists")


def read_song_tags(source: Any, filename: str | None = None) -> dict[str, list[str]]:
    """Read song tags: one song per line, ``song<TAB>tag1,tag2`` (a space may stand for the tab).

    Tags are separated by commas, semicolons or spaces. Blank and ``#`` lines
    are skipped. A song listed twice keeps the union of its tags.

    Examples
    --------
    >>> read_song_tags(b"s1\\trock,indie\\ns2 jazz\\n")
    {'s1': ['rock', 'indie'], 's2': ['jazz']}
    """
    data, name = source_bytes(source, filename)
    kept, numbers, _ = _item_lines(data, name, "songs with their tags")
    if not kept:
        raise DataError(f"{name} has no songs, only blank or comment lines.")
    tags: dict[str, list[str]] = {}
    for ln, no in zip(kept, numbers):
        song, sep, rest = ln.strip().partition("\t") if "\t" in ln else ln.strip().partition(" ")
        found = [t for t in re.split(r"[,;\s]+", rest.strip()) if t]
        if not found:
            raise DataError(
                f"{name}, line {no}: song {quote(song)} has no tags. Write the song, a tab, then its tags "
                "separated by commas (e.g. 'song1<TAB>rock,indie')."
            )
        known = tags.setdefault(song, [])
        known.extend(t for t in found if t not in known)
    return tags
