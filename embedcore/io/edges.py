"""Edge lists: a graph as one edge per line, two node names and an optional weight."""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from .results import DataError, Parsed
from .files import decode_bytes, plural, quote, source_bytes
from .text import quoted_rows

#: First-line words that make it a header rather than an edge between two nodes of those names.
_HEADER_WORDS = frozenset({"source", "target", "from", "to", "node", "node1", "node2", "node_1", "node_2", "u", "v",
                           "src", "dst", "head", "tail", "neighbour", "neighbor"})
_FIELDS = 3  # node, node, weight
_EXPECTED = "an edge list (one edge per line: two node names and an optional weight)"


@dataclass
class GraphData(Parsed):
    """An undirected graph: node names and a symmetric weight matrix (zero diagonal).

    ``weighted`` says whether the weights came from the data (otherwise every
    edge weighs 1). ``groups``, when known, gives each node's group (for
    Zachary's karate club, the club each member joined after the split).

    Examples
    --------
    >>> g = read_edge_list(b"a b 2\\nb c 1\\n", "edges.txt")
    >>> g.nodes, g.n_edges, g.weighted, g.adjacency.toarray().tolist()
    (['a', 'b', 'c'], 2, True, [[0.0, 2.0, 0.0], [2.0, 0.0, 1.0], [0.0, 1.0, 0.0]])
    """

    nodes: list[str]
    adjacency: sp.csr_array
    weighted: bool = False
    groups: list[str] | None = None
    group_name: str = ""
    description: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def n_edges(self) -> int:
        return int(sp.triu(self.adjacency, k=1).nnz)


def _separator(first: str) -> str | None:
    for sep in ("\t", ",", ";"):
        if sep in first:
            return sep
    return None  # runs of whitespace


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _field_counts(lines: list[str], body: str, sep: str | None, name: str, line_no: np.ndarray) -> np.ndarray:
    """How many fields each kept line has (quotes group fields when there is a separator)."""
    if sep is None:
        return pd.Series(lines, dtype=object).str.split().str.len().to_numpy()
    if '"' not in body:
        return pd.Series(lines, dtype=object).str.count(re.escape(sep)).to_numpy() + 1
    counts, starts, _ = quoted_rows(lines, body, sep, 0, name, line_no)
    if len(counts) != len(lines):
        j = int(np.flatnonzero(np.diff(np.append(starts, len(lines))) > 1)[0])
        raise DataError(f"{name}, line {line_no[starts[j]]}: a quoted name runs over a line break. Close every "
                        'quote (") on the line where it opens.')
    return counts


def _rows(body: str, sep: str | None, name: str) -> pd.DataFrame:
    """The fields of every kept line as strings ('' where a line has fewer than three)."""
    try:
        return pd.read_csv(io.StringIO(body), sep=r"\s+" if sep is None else sep, header=None,
                           names=range(_FIELDS), dtype=str, keep_default_na=False, na_filter=False,
                           skipinitialspace=True, skip_blank_lines=False, engine="c", index_col=False,
                           quoting=csv.QUOTE_NONE if sep is None else csv.QUOTE_MINIMAL)
    except pd.errors.ParserError as err:  # the field counts were checked before; this is a last resort
        raise DataError(f"{name}: cannot read it as {_EXPECTED} ({err}).") from None


def read_edge_list(source: Any, filename: str | None = None) -> GraphData:
    """Read an undirected graph from an edge list.

    One edge per line: two node names and, optionally, a positive weight,
    separated by a tab, a comma, a semicolon or spaces (decided by the first
    edge line; with a separator, names may hold spaces, and quotes may hold the
    separator). Blank lines and lines starting with ``#`` or ``%`` are skipped
    and counted. A first line such as ``source,target,weight`` is a header.

    Nothing is changed silently: an edge listed twice (in either direction) is
    kept once, or with weights, has its weights added; a self-loop (a node to
    itself) and a zero weight are left out; each with a notice. A line that
    cannot be an edge (one field, four, an empty name, a weight that is not a
    positive finite number, a weight missing when other lines have one) raises
    :class:`DataError` naming the line.

    Examples
    --------
    >>> g = read_edge_list(b"source,target\\nalice,bob\\nbob,carol\\n")
    >>> g.nodes, g.adjacency.toarray().tolist(), g.notices
    (['alice', 'bob', 'carol'], [[0.0, 1.0, 0.0], [1.0, 0.0, 1.0], [0.0, 1.0, 0.0]], ['Line 1 is read as a header.'])
    """
    data, name = source_bytes(source, filename)
    decoded: list[str] = []
    lines = decode_bytes(data, name, _EXPECTED, decoded).splitlines()
    result = GraphData(name, nodes=[], adjacency=sp.csr_array((0, 0)))
    keep, line_no, sep = _edge_lines(lines, name, result)
    src, dst, w, weighted = _edges(lines, keep, line_no, sep, name)
    src, dst, w, edge_lines = _drop_loops_and_zeros(src, dst, w, line_no, name, result)
    nodes, A = _adjacency(src, dst, w, edge_lines, weighted, result)
    skipped = len(lines) - len(keep) - (1 if result.notices and result.notices[0].endswith("as a header.") else 0)
    if skipped:
        result.notices.append(f"Skipped {plural(skipped, 'blank or comment line')}.")
    result.notices.extend(decoded)
    result.nodes = [str(v) for v in nodes]
    result.adjacency = A
    result.weighted = weighted
    return result


def _edge_lines(lines: list[str], name: str, result: GraphData):
    """The lines that hold edges (no blank, comment or header line), their 1-based numbers and the separator."""
    stripped = [ln.strip() for ln in lines]
    keep = [i for i, s in enumerate(stripped) if s and not s.startswith(("#", "%"))]
    if not keep:
        raise DataError(f"{name} has no edges{', only blank or comment lines' if lines else ''}. Put one edge on each "
                        "line: two node names and an optional weight, e.g. 'alice,bob,2'.")
    line_no = np.asarray(keep, dtype=np.int64) + 1
    sep = _separator(stripped[keep[0]])
    first = stripped[keep[0]]
    head = [f.strip().strip('"').lower() for f in (first.split() if sep is None else first.split(sep))]
    if len(head) in (2, 3) and ((len(head) == 3 and head[2] and not _is_number(head[2])) or
                                (head[0] in _HEADER_WORDS and head[1] in _HEADER_WORDS)):
        result.notices.append(f"Line {line_no[0]} is read as a header.")
        keep, line_no = keep[1:], line_no[1:]
        if not keep:
            raise DataError(f"{name} has a header line but no edges below it.")
    return keep, line_no, sep


def _edges(lines: list[str], keep: list[int], line_no: np.ndarray, sep, name: str):
    """(sources, targets, weights, weighted) of the edge lines; DataError naming the first bad line."""
    kept_lines = [lines[i] for i in keep]
    body = "\n".join(kept_lines)
    counts = _field_counts(kept_lines, body, sep, name, line_no)
    wide = np.flatnonzero(counts > _FIELDS)
    if wide.size:
        j = wide[0]
        raise DataError(f"{name}, line {line_no[j]}: {plural(int(counts[j]), 'field')}. An edge list has two node "
                        "names and an optional weight per line; put quotes around a name that holds the separator.")
    cells = _rows(body, sep, name)
    src = cells[0].str.strip().to_numpy(dtype=object)
    dst = cells[1].str.strip().to_numpy(dtype=object)
    wtext = cells[2].str.strip().to_numpy(dtype=object)
    empty = np.flatnonzero((src == "") | (dst == ""))
    if empty.size:
        j = empty[0]
        raise DataError(f"{name}, line {line_no[j]}: an edge needs two node names, found {quote(lines[keep[j]].strip())}. "
                        "Write 'node node' or 'node node weight' on each line.")
    has_w = wtext != ""
    weighted = bool(has_w.any())
    if weighted and not has_w.all():
        j, k = int(np.flatnonzero(~has_w)[0]), int(np.flatnonzero(has_w)[0])
        raise DataError(f"{name}, line {line_no[j]} has no weight while line {line_no[k]} has one. Give every edge a "
                        "weight, or none (then every edge weighs 1).")
    if not weighted:
        return src, dst, np.ones(len(src)), False
    w = pd.to_numeric(pd.Series(wtext), errors="coerce").to_numpy(dtype=np.float64)
    bad = np.flatnonzero(~np.isfinite(w) | (w < 0))
    if bad.size:
        j = bad[0]
        what = ("is not a number" if np.isnan(w[j]) and not _is_number(wtext[j]) else
                "is not finite" if not np.isfinite(w[j]) else "is negative")
        raise DataError(f"{name}, line {line_no[j]}: the weight {quote(wtext[j])} {what}. A weight says how strongly "
                        "two nodes are tied: a number >= 0 (0 leaves the edge out).")
    return src, dst, w, True


def _drop_loops_and_zeros(src, dst, w, line_no, name: str, result: GraphData):
    """Self-loops and weight-0 edges left out, each with a notice; the edges kept and their line numbers."""
    drop = np.zeros(len(src), dtype=bool)
    loops = np.flatnonzero(src == dst)
    if loops.size:
        drop[loops] = True
        result.notices.append(f"Left out {plural(loops.size, 'self-loop')} (a node tied to itself, line "
                              f"{line_no[loops[0]]}{', ...' if loops.size > 1 else ''}): a loop crosses no cut.")
    zero = np.flatnonzero((w == 0) & ~drop)
    if zero.size:
        drop[zero] = True
        result.notices.append(f"Left out {plural(zero.size, 'edge')} of weight 0 (line {line_no[zero[0]]}"
                              f"{', ...' if zero.size > 1 else ''}).")
    if loops.size:
        kept = set(src[~drop]) | set(dst[~drop])
        gone = list(dict.fromkeys(n for n in src[loops] if n not in kept))
        if gone:
            shown = ", ".join(quote(str(n), 40) for n in gone[:3]) + (f" and {len(gone) - 3:,} more" if len(gone) > 3 else "")
            result.notices.append(f"{plural(len(gone), 'node')} with only a self-loop and no other edge "
                                  f"{'is' if len(gone) == 1 else 'are'} not in the graph: {shown}. "
                                  "Tie each to another node to keep it.")
            result.dropped["node with only a self-loop"] = len(gone)
    if drop.any():
        result.dropped.update({"self-loop": int(loops.size), "zero weight": int(zero.size)})
    if drop.all():
        raise DataError(f"{name} has no edge between two different nodes with a weight above 0.")
    return src[~drop], dst[~drop], w[~drop], line_no[~drop]


def _adjacency(src, dst, w, edge_lines, weighted: bool, result: GraphData):
    """Nodes in order of first appearance (each line read left to right) and the symmetric adjacency; an edge
    listed twice (either direction) is kept once, or with weights has its weights added, with a notice."""
    codes, nodes = pd.factorize(np.column_stack([src, dst]).ravel())
    i, j = codes[0::2], codes[1::2]
    lo, hi = np.minimum(i, j), np.maximum(i, j)
    n = len(nodes)
    pair = lo.astype(np.int64) * n + hi
    _, first_at, counts = np.unique(pair, return_index=True, return_counts=True)
    repeated = int((counts > 1).sum())
    if repeated:
        again = np.setdiff1d(np.arange(len(pair)), first_at)
        where = int(edge_lines[again.min()])
        how = "their weights are added" if weighted else "kept once"
        result.notices.append(f"{plural(repeated, 'edge')} listed more than once (in either direction; first "
                              f"repeat on line {where}): {how}.")
        if not weighted:
            keep_first = np.zeros(len(pair), dtype=bool)
            keep_first[first_at] = True
            lo, hi, w = lo[keep_first], hi[keep_first], np.ones(int(keep_first.sum()))
    upper = sp.coo_array((w, (lo, hi)), shape=(n, n))
    A = (upper + upper.T).tocsr()
    A.sum_duplicates()
    return nodes, sp.csr_array(A)
