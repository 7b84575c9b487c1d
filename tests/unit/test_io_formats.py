"""The files people have on their disks: spreadsheet exports, workbooks, word-vector formats, one-line
text, quoted ids, one long playlist; each read as what it is, with a notice for what was changed."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from embedcore.io import (
    DataError,
    explain_kind,
    guess_kind,
    read_documents,
    read_playlists,
    read_sets,
    read_table,
    read_upload,
    read_vectors,
)
from embedcore.io.edges import read_edge_list
from tests.app import uploads as U


def _frame():
    return pd.DataFrame({"x": [1.5, -2.25, 3.0, 4.125], "y": [0.5, 1.0, -1.5, 2.0], "z": [1.0, 2.0, 3.0, 4.0]})


# ------------------------------------------------------------------ spreadsheet exports


def test_a_trailing_separator_adds_no_empty_column_and_says_so():
    data = U.delimited(_frame(), ",", trailing=True)
    v = read_vectors(data, "export.csv")
    assert v.columns == ["x", "y", "z"] and v.X.shape == (4, 3)
    assert any("ends with ','" in n and "left out" in n for n in v.notices)
    t = read_table(U.delimited(U._category_frame(), ";", ",", trailing=True), "t.csv")
    assert list(t.frame.columns) == ["colour", "score"] and t.frame["score"].dtype.kind == "f"


def test_a_header_without_the_trailing_separator_of_its_rows_is_read_too():
    v = read_vectors(b"x,y\n1,2,\n3,4,\n", "e.csv")
    assert v.columns == ["x", "y"] and v.X.tolist() == [[1, 2], [3, 4]]


def test_an_empty_column_inside_a_table_is_left_out_and_named():
    t = read_table(b"day,empty,tip\nMon,,1\nSat,,2\nMon,,3\n", "t.csv")
    assert list(t.frame.columns) == ["day", "tip"]
    assert any("'empty'" in n and "no value" in n for n in t.notices)
    v = read_vectors(b"x,y,gap\n1,2,\n3,4,\n5,6,nan\n", "v.csv")
    assert v.columns == ["x", "y"] and len(v.X) == 3


@pytest.mark.parametrize("sep", [";", "\t", "|"])
def test_semicolons_tabs_and_pipes_with_decimal_commas_keep_the_header(sep):
    v = read_vectors(U.delimited(_frame(), sep, ","), "europe.csv")
    assert v.columns == ["x", "y", "z"]
    np.testing.assert_allclose(v.X, _frame().to_numpy())
    assert any("decimal comma" in n for n in v.notices)


def test_decimal_commas_with_thousands_points_and_no_header():
    v = read_vectors(b"1.234,5;2,5\n-3,25;4\n", "e.csv")
    assert v.X.tolist() == [[1234.5, 2.5], [-3.25, 4.0]]


def test_a_semicolon_file_with_decimal_points_is_left_as_it_is():
    v = read_vectors(b"a;b\n1.5;2\n3;4.25\n", "e.csv")
    assert v.X.tolist() == [[1.5, 2.0], [3.0, 4.25]] and not any("decimal comma" in n for n in v.notices)


@pytest.mark.parametrize("encoding, label", [("cp1252", "Windows-1252"), ("latin-1", "Windows-1252")])
def test_text_that_is_not_utf8_is_read_with_a_notice_naming_the_encoding(encoding, label):
    data = "name,x,y\ncafé,1,2\nnaïve,3,4\n".encode(encoding)
    v = read_vectors(data, "w.csv")
    assert list(v.meta["name"]) == ["café", "naïve"]
    assert any(label in n and "w.csv" in n for n in v.notices)
    d = read_documents("l’été est chaud\n".encode("cp1252"), "d.txt")
    assert d.documents == ["l’été est chaud"] and any("cp1252" in n for n in d.notices)


def test_a_byte_cp1252_lacks_is_read_as_latin1():
    d = read_documents(b"abc \x81 def\n", "d.txt")
    assert any("Latin-1" in n for n in d.notices)


@pytest.mark.parametrize("ext", [".xlsx", ".ods"])
def test_a_workbooks_first_sheet_is_read_and_named(ext):
    frame = _frame().assign(label=["a", "b", "c", "d"])
    data = U.workbook(frame, ext, sheets=2)
    v = read_vectors(data, "book" + ext)
    np.testing.assert_allclose(v.X, _frame().to_numpy())
    assert list(v.meta["label"]) == ["a", "b", "c", "d"]
    assert any("'Measurements'" in n and "of 2" in n for n in v.notices)
    t = read_table(U.workbook(U._category_frame(), ext), "t" + ext)
    assert list(t.frame.columns) == ["colour", "score"] and t.frame["score"].dtype.kind == "f"
    assert guess_kind(("t" + ext,), (U.workbook(U._category_frame(), ext),)) == "table"


def test_an_old_excel_workbook_is_read_like_an_xlsx():
    """.xls (Excel 97-2003) through xlrd: the first sheet, named, as vectors with labels or as a table."""
    data = U.fixture("measurements.xls")
    v = read_vectors(data, "measurements.xls")
    np.testing.assert_allclose(v.X, _frame().to_numpy())
    assert list(v.meta["label"]) == ["a", "b", "c", "d"]
    assert any("'Measurements'" in n and "of 2" in n for n in v.notices)
    assert guess_kind(("measurements.xls",), (data,)) == "vectors"
    table = U.fixture("table.xls")
    t = read_table(table, "table.xls")
    assert list(t.frame.columns) == ["colour", "score"] and t.frame["score"].dtype.kind == "f"
    pd.testing.assert_series_equal(t.frame["score"], U._category_frame()["score"], check_names=False)
    assert guess_kind(("table.xls",), (table,)) == "table"
    assert read_vectors(data, "download").X.shape == (4, 3)  # found by its first bytes under another name


def test_a_workbook_under_another_name_is_found_by_its_bytes():
    v = read_vectors(U.workbook(_frame()), "download")
    assert v.X.shape == (4, 3)


def test_a_damaged_workbook_says_what_to_do():
    with pytest.raises(DataError) as info:
        read_table(b"PK\x03\x04 not really", "broken.xlsx")
    assert "broken.xlsx" in str(info.value) and "save" in str(info.value).lower()


def test_parquet_reads_as_vectors_with_labels_and_as_a_table():
    frame = _frame().assign(word=["nan", "null", "a", "b"])
    v = read_vectors(U.parquet(frame), "p.parquet")
    assert v.columns == ["x", "y", "z"] and list(v.meta["word"]) == ["nan", "null", "a", "b"]
    assert guess_kind(("p.parquet",), (U.parquet(frame),)) == "vectors"
    cats = U._category_frame().assign(day=["Mon", "Sat"] * 30)
    assert guess_kind(("t.parquet",), (U.parquet(cats),)) == "table"


# ------------------------------------------------------------------ word vectors


@pytest.mark.parametrize("fmt, name", [("glove", "glove.6B.5d.txt"), ("word2vec", "model.txt"), ("vec", "wiki.vec"),
                                       ("glove", "vectors.csv")])
def test_word_vector_text_keeps_every_word_as_written(fmt, name):
    data = U.word_vectors(40, 5, fmt)
    assert guess_kind((name,), (data,)) == "vectors"
    v = read_vectors(data, name)
    assert v.X.shape == (40, 5) and v.meta.columns.tolist() == ["word"]
    assert list(v.meta["word"][: len(U.AWKWARD_WORDS)]) == U.AWKWARD_WORDS
    assert not v.dropped


def test_projector_pair_keeps_words_that_look_missing():
    names, blobs = zip(*U.projector_pair())
    v = read_upload("vectors", names, blobs)
    assert v.X.shape == (40, 4) and list(v.meta["label"][:3]) == ["nan", "null", "NA"]


def test_a_header_of_names_over_numbers_is_not_a_word_vector_file():
    v = read_vectors(b"a b c\n1 2 3\n4 5 6\n", "p.txt")
    assert v.columns == ["a", "b", "c"] and v.meta is None


# ------------------------------------------------------------------ the kind, and why


@pytest.mark.parametrize("case", sorted(U.DISK_FILES))
def test_each_file_on_disk_is_guessed_as_its_kind_with_a_reason(case):
    prefix = {"vectors": "vectors", "table": "table", "playlists": "playlists", "text": "documents"}
    names, blobs = zip(*U.DISK_FILES[case])
    kind, why = explain_kind(names, blobs)
    assert kind == prefix[case.split("-")[0]], (case, kind, why)
    assert why.endswith(".") and 10 < len(why) <= 300
    result = read_upload(kind, names, blobs)
    assert all(len(n) <= 300 for n in result.notices), result.notices


def test_labelled_vectors_are_vectors_and_a_category_table_is_a_table():
    assert explain_kind(("p.csv",), (b"x,y,z,label\n1,2,3,a\n4,5,6,a\n7,8,9,b\n1,1,1,b\n",))[0] == "vectors"
    assert guess_kind(("t.csv",), (b"day,tip\nMon,1\nMon,2\nSat,3\nSat,4\n",)) == "table"


def test_one_long_line_of_prose_is_a_corpus_split_at_sentences():
    data = U.one_line_text()
    assert guess_kind(("essay.txt",), (data,)) == "documents"
    d = read_documents(data, "essay.txt")
    assert len(d.documents) == 80 and d.documents[0].startswith("The river ran")
    assert d.documents[0].endswith("water.")
    assert any("split into 80 documents" in n for n in d.notices)


def test_a_sentence_without_an_end_is_cut_into_windows():
    d = read_documents((" ".join(["word"] * 3000)).encode(), "w.txt")
    assert [len(x.split()) for x in d.documents] == [50] * 60


def test_a_long_line_of_ids_stays_a_playlist():
    assert guess_kind(("history.txt",), (U.one_long_playlist(),)) == "playlists"


def test_symbol_tokens_are_counted_in_a_notice():
    d = read_documents("good 😀 day + more\nfine → ok\n".encode(), "c.txt")
    assert any("3 tokens made only of symbols or emoji" in n for n in d.notices)
    assert guess_kind(("chat.txt",), (U.symbol_text(),)) == "documents"


# ------------------------------------------------------------------ messages and playlists


def test_quoted_song_ids_are_read_whole_with_a_notice():
    p = read_playlists(b'"Blue Monday, live" "So What" s1\ns1 "Take Five"\n', "radio.txt")
    assert p.playlists == [["Blue Monday, live", "So What", "s1"], ["s1", "Take Five"]]
    assert any("double quotes" in n and "line 1" in n for n in p.notices)
    s = read_sets(b'"a b" c\nd\n', "s.txt")
    assert s.sets == [["a b", "c"], ["d"]]


def test_one_long_playlist_is_cut_into_sessions_a_held_out_split_can_use():
    p = read_playlists(U.one_long_playlist(10_000), "history.txt")
    assert len(p.playlists) == 200 and all(len(x) == 50 for x in p.playlists)
    assert any("held-out split needs at least two playlists" in n for n in p.notices)
    assert len(read_playlists(b"a b c d\n", "p.txt").playlists) == 1  # too short to cut


def test_a_node_with_only_a_self_loop_is_named():
    g = read_edge_list(U.SELF_LOOP_EDGES, "edges.txt")
    assert "lonely" not in g.nodes
    assert any("'lonely'" in n and "'solo'" in n and "only a self-loop" in n for n in g.notices)


def test_messages_quote_user_text_cut_to_80_characters():
    prose = ("It was a bright cold day in April, and the clocks were striking thirteen, " * 20).encode()
    with pytest.raises(DataError) as info:
        read_vectors(prose, "orwell.txt")
    assert len(str(info.value)) <= 300 and "orwell.txt" in str(info.value)
    with pytest.raises(DataError) as info:
        read_table(("," .join(f"column number {i} of many" for i in range(40)) + "\n").encode(), "wide.csv")
    assert len(str(info.value)) <= 300


def test_every_column_empty_names_the_column_with_most_gaps():
    with pytest.raises(DataError) as info:
        read_vectors(b"x,y\n1,\n,2\n", "gaps.csv")
    assert "'y'" in str(info.value) or "'x'" in str(info.value)


def test_a_long_bad_cell_is_quoted_cut_to_80_characters():
    cell = "not a number " * 40
    rows = "\n".join(f"{i},{i + 1}" for i in range(8))
    with pytest.raises(DataError) as info:
        read_vectors(f"a,b\n{rows}\n1,{cell}\n".encode(), "cells.csv")
    msg = str(info.value)
    assert len(msg) <= 300 and "line 10, column 'b'" in msg and "…'" in msg
    with pytest.raises(DataError) as info:
        read_edge_list(("a b\n" + "x" * 500 + "\n").encode(), "edges.txt")
    assert len(str(info.value)) <= 300 and "line 2" in str(info.value)


def test_ids_are_guessed_as_playlists_with_a_reason_that_names_the_corpus_reading_and_a_leading_user_id():
    kind, why = explain_kind(("events.txt",), (b"u1 i2 i3\nu2 i4 i5 i6\nu3 i1 i2\nu4 i9 i2\n",))
    assert kind == "playlists" and "Ids can also be a corpus" in why and "choose Text" in why
    assert "another kind of id ('u1' before 'i2')" in why and len(why) <= 300
    kind, why = explain_kind(("lists.txt",), (b"s1 s2 s3\ns2 s4 s5\ns9 s1 s3\n",))
    assert kind == "playlists" and "another kind of id" not in why  # songs all alike: no id in front
    d = read_documents(b"u1 i2 i3\nu2 i4 i5 i6\n", "events.txt")  # the override: the same lines as documents
    assert len(d.documents) == 2
