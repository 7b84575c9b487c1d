"""The Data page's report: what a reader made of a file, for every kind of result."""

from __future__ import annotations

from app.services.reports import describe
from embedcore.io import read_documents, read_playlists, read_sets, read_table, read_vectors


def test_describe_every_kind():
    assert describe(read_vectors(b"x,n\n1,a\n", "v.csv")).summary == {"rows": 1, "numeric columns": 1, "metadata columns": 1}
    assert describe(read_sets(b"l\ta b\n")).summary["distinct labels"] == 1
    assert describe(read_playlists(b"a b c\n")).summary["transitions"] == 2
    assert describe(read_table(b"a,b\nx,1\n", "t.csv")).summary["rows"] == 1
    assert describe(read_documents(b"a b\n")).summary["words"] == 2
