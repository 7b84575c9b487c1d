"""embedcore.io: every reader, every bad-input case, checked by its message."""

from __future__ import annotations

import io as _io

import numpy as np
import pytest

from embedcore.io import (
    DataError,
    read_documents,
    read_playlists,
    read_sets,
    read_table,
    read_vectors,
)


def err(fn, *args, **kw) -> str:
    with pytest.raises(DataError) as info:
        fn(*args, **kw)
    assert isinstance(info.value, ValueError)
    return str(info.value)


# ----------------------------------------------------------------------------- vectors


def test_csv_with_header_and_metadata():
    v = read_vectors(b"x,y,name\n1,2,a\n3,4,b\n", "p.csv")
    np.testing.assert_array_equal(v.X, [[1, 2], [3, 4]])
    assert v.X.dtype == np.float64
    assert list(v.meta["name"]) == ["a", "b"]
    assert v.columns == ["x", "y"]


def test_csv_without_header():
    v = read_vectors(b"1,2\n3,4\n", "p.csv")
    assert v.X.shape == (2, 2) and v.meta is None


def test_tsv_and_whitespace():
    assert read_vectors(b"1\t2\n3\t4\n", "p.tsv").X.shape == (2, 2)
    assert read_vectors(b"1 2 3\n4  5 6\n", "p.txt").X.shape == (2, 3)


def test_semicolon_csv():
    assert read_vectors(b"a;b\n1;2\n", "p.csv").X.tolist() == [[1.0, 2.0]]


def test_word2vec_with_and_without_count_header():
    v = read_vectors(b"2 3\nthe 1 2 3\ncat 4 5 6\n", "w.txt")
    assert v.X.shape == (2, 3) and list(v.meta["word"]) == ["the", "cat"]
    v = read_vectors(b"the 1 2 3\ncat 4 5 6\n", "w.vec")
    assert list(v.meta["word"]) == ["the", "cat"]


def test_word2vec_header_promise_mismatch_is_reported():
    v = read_vectors(b"3 3\nthe 1 2 3\ncat 4 5 6\n", "w.txt")
    assert any("promises 3 vectors" in n for n in v.notices)


def test_word2vec_header_only():
    assert "only the word2vec header" in err(read_vectors, b"2 3\n", "w.txt")


def test_npy_roundtrip_and_no_pickles():
    buf = _io.BytesIO()
    np.save(buf, np.arange(6.0).reshape(3, 2))
    assert read_vectors(buf.getvalue(), "a.npy").X.shape == (3, 2)
    buf = _io.BytesIO()
    np.save(buf, np.array([{"a": 1}, None], dtype=object), allow_pickle=True)
    assert "never unpickles" in err(read_vectors, buf.getvalue(), "evil.npy")


def test_npy_wrong_shapes_and_types():
    for arr, text in [(np.arange(3.0), "1-D array"), (np.zeros((2, 2, 2)), "3 dimensions"), (np.array([["a"]]), "numeric array")]:
        buf = _io.BytesIO()
        np.save(buf, arr)
        assert text in err(read_vectors, buf.getvalue(), "a.npy")


def test_npy_nan_rows_dropped_by_row_number():
    buf = _io.BytesIO()
    np.save(buf, np.array([[1.0, 2.0], [np.nan, 1.0], [3.0, 4.0]]))
    v = read_vectors(buf.getvalue(), "a.npy")
    assert v.X.shape == (2, 2)
    assert v.dropped == {"rows with a missing value": 1}
    assert "row 2" in v.notices[0]


def test_projector_pair():
    v = read_vectors(b"1\t2\n3\t4\n", "vectors.tsv", metadata=b"word\tpos\ncat\tN\nrun\tV\n", metadata_filename="metadata.tsv")
    assert list(v.meta["word"]) == ["cat", "run"]
    v = read_vectors(b"1\t2\n3\t4\n", "vectors.tsv", metadata=b"cat\nrun\n", metadata_filename="metadata.tsv")
    assert list(v.meta["label"]) == ["cat", "run"]


def test_projector_pair_row_count_mismatch():
    msg = err(read_vectors, b"1\t2\n3\t4\n", "vectors.tsv", metadata=b"word\tpos\ncat\tN\n", metadata_filename="metadata.tsv")
    assert "2 vectors" in msg and "1 metadata rows" in msg


@pytest.mark.parametrize(
    "reader, content, name, expected",
    [
        (read_vectors, b"", "e.csv", "is empty"),
        (read_vectors, b"\n\n  \n", "e.csv", "is empty"),
        (read_vectors, b"x,y,z\n", "h.csv", "header line (x, y, z) but no data rows"),
        (read_vectors, b"1,2,3\n4,5\n", "r.csv", "line 2: 2 fields, but line 1 has 3"),
        (read_vectors, b"1,2\n3,4,5\n", "r.csv", "line 2: 3 fields, but line 1 has 2"),
        (read_vectors, b"a,b\n1,2\n3,oops\n4,5\n5,6\n6,7\n7,8\n", "n.csv", "line 3, column 'b': 'oops' is not a number"),
        (read_vectors, b"name\ncat\ndog\n", "t.csv", "no numeric columns"),
        (read_vectors, b"\x93NUMPY\x01\x00v\x00{'descr'", "x.csv", "content is a NumPy .npy file"),
        (read_vectors, b"PAR1\x00\x00", "x.csv", "content is a Parquet file"),
        (read_vectors, b"1,2\n3,4\n", "x.npy", "named .npy but is not a NumPy file"),
        (read_vectors, b"\x00\x01\x02binary", "x.csv", "content is a binary file"),
    ],
)
def test_vector_errors(reader, content, name, expected):
    msg = err(reader, content, name)
    assert expected in msg
    assert name.split(".")[0] in msg


def test_nan_and_inf_rows_are_dropped_and_counted():
    v = read_vectors(b"1,2\n3,nan\n4,inf\n,6\n7,8\n", "f.csv")
    assert v.X.tolist() == [[1, 2], [7, 8]]
    assert v.dropped == {"rows with a missing value": 2, "rows with an infinite value": 1}
    assert "lines 2, 4" in v.notices[0] and "line 3" in v.notices[1]


def test_nan_rows_error_on_request():
    assert "line 2: a missing value" in err(read_vectors, b"1,2\n3,nan\n", "f.csv", on_invalid="error")


def test_all_rows_invalid():
    assert "every row has a missing value" in err(read_vectors, b"1,nan\nnan,2\n", "f.csv")


def test_bom_and_windows_newlines():
    v = read_vectors("\ufeffx,y\r\n1,2\r\n3,4\r\n".encode("utf-8"), "w.csv")
    assert v.columns == ["x", "y"] and v.X.shape == (2, 2)


def test_row_limit_samples_with_notice_and_seed():
    content = "\n".join(f"{i},{i}" for i in range(1000)).encode()
    a = read_vectors(content, "big.csv", max_rows=100, seed=3)
    b = read_vectors(content, "big.csv", max_rows=100, seed=3)
    assert a.X.shape == (100, 2)
    np.testing.assert_array_equal(a.X, b.X)
    assert np.all(np.diff(a.X[:, 0]) > 0), "the sample keeps the file's order"
    assert "1,000 rows" in a.notices[0] and "sample of 100" in a.notices[0]
    assert a.dropped == {"rows left out of the sample": 900}


def test_size_limit_refuses(monkeypatch):
    import embedcore.io.files as eio

    monkeypatch.setattr(eio, "MAX_BYTES", 10)
    assert "reads files up to" in err(read_vectors, b"1,2,3,4,5,6,7\n", "big.csv")


def test_sources_path_bytes_filelike(tmp_path):
    p = tmp_path / "v.csv"
    p.write_bytes(b"1,2\n")

    class Uploaded:  # the shape of Streamlit's UploadedFile
        name = "v.csv"

        def getvalue(self):
            return b"1,2\n"

    for src in (p, str(p), b"1,2\n", _io.BytesIO(b"1,2\n"), Uploaded()):
        assert read_vectors(src, None if not isinstance(src, bytes) else "v.csv").X.shape == (1, 2)
    assert "no such file" in err(read_vectors, tmp_path / "missing.csv")
    assert "Cannot read a int" in err(read_vectors, 3)


# ----------------------------------------------------------------------------- sets


def test_sets_plain_and_labelled():
    s = read_sets(b"a b c\nd,e\n")
    assert s.sets == [["a", "b", "c"], ["d", "e"]] and s.labels is None
    s = read_sets(b"label\titems\nx\ta b\ny\tc\n")
    assert s.labels == ["x", "y"] and s.sets == [["a", "b"], ["c"]]


def test_sets_windows_bom_and_blank_lines():
    s = read_sets("\ufeffa b\r\n\r\n# comment\r\nc\r\n".encode())
    assert s.sets == [["a", "b"], ["c"]]
    assert "Skipped 2 blank or comment lines" in s.notices[0]


def test_sets_empty_set_is_kept_with_notice():
    s = read_sets(b"x\ta b\ny\t\n")
    assert s.sets[1] == [] and "1 set is empty" in s.notices[0]


@pytest.mark.parametrize(
    "content, expected",
    [
        (b"", "is empty"),
        (b"# only a comment\n\n", "no sets"),
        (b"label\titems\n", "header line but no sets"),
        (b"x\ta b\ny\tc\nd e\n", "line 3 has no label"),
        (b"\ta b\n", "label before the tab is empty"),
        (b"\x89PNG\r\n", "content is a PNG image"),
    ],
)
def test_sets_errors(content, expected):
    assert expected in err(read_sets, content, "s.txt")


def test_sets_limit():
    content = "\n".join(f"a{i} b" for i in range(50)).encode()
    s = read_sets(content, "s.txt", max_sets=10)
    assert len(s.sets) == 10 and "50 sets" in s.notices[0]


# ----------------------------------------------------------------------------- playlists


def test_playlists():
    p = read_playlists(b"a b c\r\nc,a\n\nz\n")
    assert list(p) == [["a", "b", "c"], ["c", "a"], ["z"]]
    assert any("single song" in n for n in p.notices)


@pytest.mark.parametrize(
    "content, expected",
    [
        (b"", "is empty"),
        (b"\n\n", "is empty"),
        (b"a\nb\n", "fewer than 2 songs"),
        (b"PK\x03\x04zip", "ZIP archive"),
    ],
)
def test_playlist_errors(content, expected):
    assert expected in err(read_playlists, content, "p.txt")


def test_playlist_limit():
    p = read_playlists("\n".join("a b" for _ in range(30)).encode(), "p.txt", max_playlists=5)
    assert len(p) == 5 and "30 playlists" in p.notices[0]


# ----------------------------------------------------------------------------- tables


def test_table_types_and_missing():
    t = read_table(b"day,tip,size\nMon,1.5,2\nTue,,3\nNA,2,1\n", "t.csv")
    f = t.frame
    assert f.dtypes["tip"].kind == "f" and f["day"].isna().tolist() == [False, False, True]
    assert "2 rows have missing cells" in t.notices[0]


def test_table_header_detection_for_text_only_tables():
    t = read_table(b"colour,shape\nred,round\nblue,square\n", "t.csv")
    assert list(t.frame.columns) == ["colour", "shape"] and len(t.frame) == 2


def test_table_parquet(tmp_path):
    import pandas as pd

    p = tmp_path / "t.parquet"
    pd.DataFrame({"a": ["x", "y"], "b": [1.0, 2.0]}).to_parquet(p)
    assert read_table(p).frame.shape == (2, 2)


def test_table_inf_rows_dropped():
    t = read_table(b"day,tip\nMon,1\nTue,inf\n", "t.csv")
    assert len(t.frame) == 1 and t.dropped == {"rows with an infinite value": 1}


@pytest.mark.parametrize(
    "content, name, expected",
    [
        (b"", "t.csv", "is empty"),
        (b"day,tip\n", "t.csv", "header line ('day, tip') but no rows"),
        (b"day,tip\nMon,1\nTue\n", "t.csv", "line 3: 1 field, but line 1 has 2"),
        (b"day,tip\nMon,1\nTue,2\nWed,3\nThu,4\nFri,five\n", "t.csv", "line 6, column 'tip': 'five' is not a number"),
        (b"day,tip\nMon,1\n", "t.parquet", "not a Parquet file"),
        (b"\x1f\x8b\x08gz", "t.csv", "gzip-compressed"),
    ],
)
def test_table_errors(content, name, expected):
    assert expected in err(read_table, content, name)


def test_table_bom_windows_and_limit():
    rows = "\r\n".join(f"c{i % 3},{i}" for i in range(100))
    t = read_table(("\ufeffcat,val\r\n" + rows).encode(), "t.csv", max_rows=10)
    assert list(t.frame.columns) == ["cat", "val"] and len(t.frame) == 10
    assert "100 rows" in t.notices[-1]


# ----------------------------------------------------------------------------- documents


def test_documents():
    d = read_documents(b"the cat\r\n\r\ndogs run\n")
    assert d.documents == ["the cat", "dogs run"] and "Skipped 1 blank line" in d.notices[0]
    assert "is empty" in err(read_documents, b"\n \n", "c.txt")


# ----------------------------------------------------------------------------- reports


def test_song_tags():
    from embedcore.io import read_song_tags

    tags = read_song_tags("s1\trock, indie\r\ns2 jazz;blues\n\ns1\tpop\n".encode())
    assert tags == {"s1": ["rock", "indie", "pop"], "s2": ["jazz", "blues"]}
    assert "line 2: song 's2' has no tags" in err(read_song_tags, b"s1\trock\ns2\n", "tags.tsv")
    assert "is empty" in err(read_song_tags, b"", "tags.tsv")


def test_projector_metadata_stays_aligned_when_vector_rows_are_dropped():
    v = read_vectors(b"1\t2\nnan\t4\n5\t6\n", "vectors.tsv", metadata=b"a\nb\nc\n", metadata_filename="metadata.tsv")
    assert v.X.tolist() == [[1, 2], [5, 6]]
    assert list(v.meta["label"]) == ["a", "c"]


# ----------------------------------------------------------------------------- wide files and quoting


def test_one_wide_row_parses_whole():
    """A single row of 100,000 values reads as one vector (its speed is in tests/benchmarks/bench_io.py)."""
    values = np.random.default_rng(0).standard_normal(100_000).round(6)
    data = (",".join(map(str, values)) + "\n").encode()
    v = read_vectors(data, "wide.csv")
    assert v.X.shape == (1, 100_000) and v.meta is None
    np.testing.assert_array_equal(v.X[0], values)


@pytest.mark.parametrize("sep, name", [(",", "wide.csv"), ("\t", "wide.tsv"), (" ", "wide.txt")])
def test_wide_rows_keep_header_text_columns_and_missing_cells(sep, name):
    d = 6_000
    header = sep.join(["name"] + [f"f{i}" for i in range(d)])
    rows = [sep.join(["a"] + [str(i) for i in range(d)]), sep.join(["b"] + ["1.5"] * d)]
    if sep != " ":  # whitespace-separated files have no empty cells
        rows.append(sep.join(["c", ""] + ["2"] * (d - 1)))
    v = read_vectors("\n".join([header, *rows]).encode(), name)
    assert v.columns[:2] == ["f0", "f1"] and len(v.columns) == d
    assert v.X.shape == (2, d) and list(v.meta["name"]) == ["a", "b"]
    np.testing.assert_array_equal(v.X[0], np.arange(d))
    if sep != " ":
        assert v.dropped == {"rows with a missing value": 1} and "line 4" in v.notices[0]


def test_wide_row_with_a_stray_word_names_the_cell():
    cells = ["1"] * 6_000
    rows = [",".join(cells)] * 5
    rows[3] = ",".join(cells[:4000] + ["oops"] + cells[4001:])
    msg = err(read_vectors, "\n".join(rows).encode(), "wide.csv")
    assert "wide.csv, line 4, column 'x4000': 'oops' is not a number" in msg


def test_wide_table_keeps_column_order_and_types():
    from embedcore.io import read_table

    d = 6_000
    header = ",".join(f"c{i}" for i in range(d))
    row = ",".join("w" if i % 1000 == 0 else str(i) for i in range(d))
    t = read_table(f"{header}\n{row}\n{row}\n".encode(), "wide.csv")
    assert list(t.frame.columns[:2]) == ["c0", "c1"] and t.frame.shape == (2, d)
    assert t.frame["c0"].tolist() == ["w", "w"] and t.frame["c1"].dtype.kind == "f"


def test_quoted_comma_anywhere_in_the_file():
    lines = ['1,2,"a"'] + ["3,4,b"] * 1500 + ['5,6,"c, d"'] + ["7,8,e"]
    v = read_vectors("\n".join(lines).encode(), "q.csv")
    assert v.X.shape == (1503, 2)
    assert v.meta.iloc[-2, 0] == "c, d" and v.meta.iloc[0, 0] == "a"


def test_quoted_comma_after_line_1001_with_no_quote_before():
    lines = ["3,4,b"] * 1500 + ['5,6,"c, d"']
    v = read_vectors("\n".join(lines).encode(), "q.csv")
    assert v.X.shape == (1501, 2) and v.meta.iloc[-1, 0] == "c, d"


def test_ragged_row_after_a_quoted_line_is_named_by_its_line():
    lines = ['1,2,"a, b"', "3,4,c", "", "5,6", "7,8,d"]
    assert "q.csv, line 4: 2 fields, but line 1 has 3" in err(read_vectors, "\n".join(lines).encode(), "q.csv")


def test_quoted_field_over_two_lines_keeps_line_numbers():
    v = read_vectors(b'x,y,note\n1,2,"two\nlines"\n3,nan,c\n', "q.csv")
    assert v.X.tolist() == [[1, 2]] and v.meta["note"].tolist() == ["two\nlines"]
    assert "line 4" in v.notices[0]


def test_unclosed_quote_is_named_by_its_line():
    msg = err(read_vectors, b'1,2,a\n3,4,"b\n5,6,c\n', "q.csv")
    assert "q.csv, line 2" in msg and "never closes" in msg


def test_whitespace_files_read_quotes_as_characters():
    v = read_vectors(b'"the 1 2\ncat" 3 4\n', "w.vec")
    assert list(v.meta["word"]) == ['"the', 'cat"'] and v.X.shape == (2, 2)


def test_wide_rows_with_quoted_cells_and_pandas_missing_markers():
    d = 6_000
    row = ['"x, y"', "#N/A"] + ["1"] * (d - 2)
    v = read_vectors("\n".join([",".join(row), ",".join(['"z"', "2"] + ["3"] * (d - 2))]).encode(), "q.csv")
    assert v.X.shape == (1, d - 1) and list(v.meta.iloc[:, 0]) == ["z"]
    assert v.dropped == {"rows with a missing value": 1}


@pytest.mark.parametrize("name", ["w.vec", "w.txt"])
def test_word2vec_words_that_look_like_missing_values_are_kept(name):
    head = b"4 2\n" if name == "w.txt" else b""
    v = read_vectors(head + b"none 1 2\n- 3 4\nnan 5 6\nNA 7 8\n", name)
    assert list(v.meta["word"]) == ["none", "-", "nan", "NA"] and v.X.shape == (4, 2)


# ----------------------------------------------------------------------------- encodings

_UTF16 = {
    "utf-16-le with BOM": lambda text: b"\xff\xfe" + text.encode("utf-16-le"),
    "utf-16-be with BOM": lambda text: b"\xfe\xff" + text.encode("utf-16-be"),
}


@pytest.mark.parametrize("encode", _UTF16.values(), ids=_UTF16.keys())
def test_utf16_with_a_byte_order_mark_is_read_by_every_text_reader(encode):
    from embedcore.io import read_song_tags

    v = read_vectors(encode("x,y,name\r\n1,2,café\r\n3,4,東京\r\n"), "v.csv")
    assert v.X.tolist() == [[1, 2], [3, 4]] and list(v.meta["name"]) == ["café", "東京"]
    assert read_documents(encode("naïve café\nsecond line\n"), "d.txt").documents == ["naïve café", "second line"]
    assert read_sets(encode("fruit\tpomme poire\n")).sets == [["pomme", "poire"]]
    assert list(read_playlists(encode("a b\nc é\n"), "p.txt")) == [["a", "b"], ["c", "é"]]
    assert read_table(encode("day,tip\nlun,1\n"), "t.csv").frame.shape == (1, 2)
    assert read_song_tags(encode("s1\trock\n"), "t.tsv") == {"s1": ["rock"]}
    m = read_vectors(b"1\t2\n3\t4\n", "vectors.tsv", metadata=encode("señal\nruído\n"), metadata_filename="metadata.tsv")
    assert list(m.meta["label"]) == ["señal", "ruído"]


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be"])
def test_utf16_without_a_byte_order_mark_is_named(encoding):
    for reader in (read_vectors, read_documents, read_sets):
        msg = err(reader, "1,2\n3,4\n".encode(encoding), "u.csv")
        assert "u.csv" in msg and "UTF-16" in msg and "UTF-8" in msg


def test_utf16_that_does_not_decode_names_the_file():
    msg = err(read_documents, b"\xff\xfe" + "ok\n".encode("utf-16-le") + b"\x00", "odd.txt")
    assert "odd.txt" in msg and "UTF-16" in msg and "UTF-8" in msg


# ----------------------------------------------------------------------------- .npy dtypes


def _npy(arr, **kw) -> bytes:
    buf = _io.BytesIO()
    np.save(buf, arr, **kw)
    return buf.getvalue()


def test_complex_npy_is_refused_not_cut_to_its_real_part():
    msg = err(read_vectors, _npy(np.array([[1 + 2j, 3 - 1j]])), "c.npy")
    assert "c.npy" in msg and "complex" in msg and "real and imaginary parts" in msg
    assert "np.hstack([X.real, X.imag])" in msg


@pytest.mark.parametrize(
    "arr, expected",
    [
        (np.array([["a", "b"]]), "holds text (<U1)"),
        (np.array([[b"a"]]), "holds bytes (|S1)"),
        (np.zeros((2,), dtype=[("x", float), ("y", int)]), "a table with named fields (x, y)"),
        (np.array([["2020-01-01"]], dtype="datetime64[D]"), "dates or times"),
        (np.float64(3.0), "a single number"),
    ],
)
def test_npy_dtypes_that_are_not_numbers_say_what_to_do(arr, expected):
    msg = err(read_vectors, _npy(arr), "a.npy")
    assert "a.npy" in msg and expected in msg and "numpy.save" in msg


def test_object_npy_is_never_unpickled():
    msg = err(read_vectors, _npy(np.array([[1, "a"]], dtype=object), allow_pickle=True), "o.npy")
    assert "never unpickles" in msg and "o.npy" in msg


def test_bool_npy_reads_as_zeros_and_ones_with_a_notice():
    v = read_vectors(_npy(np.array([[True, False], [False, True]])), "b.npy")
    assert v.X.tolist() == [[1, 0], [0, 1]] and v.X.dtype == np.float64
    assert any("True/False" in n for n in v.notices)


def test_documents_without_spaces_between_words_are_refused_naming_the_file():
    text = "今天天气很好，我们一起去公园散步吧。\n北京是中华人民共和国的首都，也是全国的政治和文化中心。\n"
    msg = err(read_documents, text.encode(), "news.txt")
    assert msg.startswith("news.txt") and "without spaces between words" in msg and "jieba" in msg
    segmented = "今天 天气 很 好 ， 我们 一起 去 公园 散步 吧 。\n"
    assert read_documents(segmented.encode(), "news.txt").documents == [segmented.strip()]


def test_wide_word_file_keeps_words_as_written():
    d = 6_000
    rows = [" ".join([w] + ["0.5"] * d) for w in ("1e3", "1", "07")]
    v = read_vectors("\n".join(rows).encode(), "w.vec")
    assert list(v.meta["word"]) == ["1e3", "1", "07"] and v.X.shape == (3, d)


# ----------------------------------------------------------------------------- item sets


def test_weight_matrix_adds_repeats_and_uses_the_given_weights():
    from embedcore.emde import sets_to_matrix
    from embedcore.io import ItemSets

    sets = [["b", "a", "b"], [], ["c"]]
    d = ItemSets("t", items=["a", "b", "c"], vectors=np.eye(3), sets=sets)
    np.testing.assert_array_equal(d.weight_matrix().toarray(), [[1, 2, 0], [0, 0, 0], [0, 0, 1]])
    positions = [[1, 0, 1], [], [2]]
    assert (d.weight_matrix() != sets_to_matrix(positions, 3)).nnz == 0
    d.weights = [[0.5, 2.0, 1.5], [], [4.0]]
    np.testing.assert_array_equal(d.weight_matrix().toarray(), [[2.0, 2.0, 0], [0, 0, 0], [0, 0, 4.0]])
    assert (d.weight_matrix() != sets_to_matrix(positions, 3, d.weights)).nnz == 0


def test_weight_matrix_names_an_item_without_a_vector_and_weights_that_do_not_match():
    from embedcore.io import ItemSets

    d = ItemSets("t", items=["a", "b"], vectors=np.eye(2), sets=[["a"], ["b", "zz"]])
    assert "The item 'zz' of the sets is not one of the items" in err(d.weight_matrix)
    d = ItemSets("t", items=["a", "b"], vectors=np.eye(2), sets=[["a"], ["b", "a"]], weights=[[1.0], [2.0]])
    assert "Set 1 has 2 items but 1 weights" in err(d.weight_matrix)
