"""Vectors held in one column, as sentence-transformers and Hugging Face datasets write them: a Parquet list
column, a CSV/TSV column of "[0.1, 0.2, ...]" cells, JSON lines; each read to the same X and labels."""

from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from embedcore.io import DataError, budgets, explain_kind, read_upload, read_vectors

N, D = 12, 8


def _data(n: int = N, d: int = D):
    rng = np.random.default_rng(0)
    E = rng.standard_normal((n, d)).round(6)
    titles = [f"title {i}" for i in range(n)]
    topics = [f"topic {i % 3}" for i in range(n)]
    return E, titles, topics


def _parquet(table) -> bytes:
    box = io.BytesIO()
    if isinstance(table, pd.DataFrame):
        table.to_parquet(box)
    else:
        pq.write_table(table, box)
    return box.getvalue()


def _cell(row) -> str:
    return "[" + ", ".join(repr(float(x)) for x in row) + "]"


def _frame_with_cells(E, titles, topics) -> pd.DataFrame:
    return pd.DataFrame({"title": titles, "topic": topics, "embedding": [_cell(r) for r in E]})


def _jsonl(records) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in records).encode()


def _check(v, E, titles, topics):
    assert v.X.dtype == np.float64 and v.X.shape == E.shape
    np.testing.assert_allclose(v.X, E, rtol=1e-6)
    assert list(v.meta.columns) == ["title", "topic"]
    assert v.meta["title"].tolist() == titles and v.meta["topic"].tolist() == topics
    assert v.columns[:2] == ["embedding[0]", "embedding[1]"]


# ------------------------------------------------------------------ each format


def test_a_parquet_list_column_written_by_pandas_is_the_vectors():
    E, titles, topics = _data()
    data = _parquet(pd.DataFrame({"title": titles, "topic": topics, "embedding": list(E)}))
    v = read_vectors(data, "e.parquet")
    _check(v, E, titles, topics)
    assert v.notices == [] and v.dropped == {}


def test_a_fixed_size_list_column_of_float32():
    E, titles, topics = _data(d=64)
    table = pa.table({"title": titles, "topic": topics,
                      "embedding": pa.array(E.astype(np.float32).tolist(), pa.list_(pa.float32(), 64))})
    v = read_vectors(_parquet(table), "fixed.parquet")
    _check(v, E.astype(np.float32).astype(np.float64), titles, topics)
    assert v.X.shape == (N, 64)


def test_a_float32_list_and_a_large_list_read_exactly():
    E, titles, topics = _data()
    E32 = E.astype(np.float32)
    for kind in (pa.list_(pa.float32()), pa.large_list(pa.float64())):
        table = pa.table({"title": titles, "topic": topics, "embedding": pa.array(E32.tolist(), kind)})
        v = read_vectors(_parquet(table), "e.parquet")
        assert np.array_equal(v.X, E32.astype(np.float64))


def test_a_csv_column_of_bracketed_lists():
    E, titles, topics = _data()
    data = _frame_with_cells(E, titles, topics).to_csv(index=False).encode()
    assert b'"[' in data  # quoted, because the lists hold commas
    _check(read_vectors(data, "e.csv"), E, titles, topics)


def test_a_tsv_column_of_bracketed_lists():
    E, titles, topics = _data()
    data = _frame_with_cells(E, titles, topics).to_csv(index=False, sep="\t").encode()
    _check(read_vectors(data, "e.tsv"), E, titles, topics)


def test_lists_printed_by_numpy_without_commas():
    E, titles, topics = _data(d=3)
    cells = ["[" + " ".join(f"{x:.6f}" for x in r) + "]" for r in E]
    data = pd.DataFrame({"title": titles, "topic": topics, "embedding": cells}).to_csv(index=False).encode()
    _check(read_vectors(data, "e.csv"), E, titles, topics)


def test_json_lines_with_a_list_field():
    E, titles, topics = _data()
    data = _jsonl({"title": t, "topic": k, "embedding": r.tolist()} for t, k, r in zip(titles, topics, E))
    for name in ("e.jsonl", "e.ndjson"):
        _check(read_vectors(data, name), E, titles, topics)


def test_flat_json_lines_read_as_a_csv_table_would():
    E, titles, topics = _data(d=3)
    records = [{"title": t, "x": r[0], "y": r[1], "z": r[2], "topic": k} for t, k, r in zip(titles, topics, E)]
    v = read_vectors(_jsonl(records), "flat.jsonl")
    frame = pd.DataFrame(records)
    w = read_vectors(frame.to_csv(index=False).encode(), "flat.csv")
    assert v.columns == w.columns == ["x", "y", "z"]
    np.testing.assert_allclose(v.X, w.X)
    assert v.meta.to_dict("list") == w.meta.to_dict("list")


# ------------------------------------------------------------------ several columns of numbers


def test_numeric_columns_beside_a_list_column_become_labels_with_a_notice():
    E, titles, topics = _data()
    frame = pd.DataFrame({"title": titles, "year": range(2000, 2000 + N), "score": np.linspace(0, 1, N),
                          "embedding": list(E)})
    for data, name in ((_parquet(frame), "e.parquet"),
                       (frame.assign(embedding=[_cell(r) for r in E]).to_csv(index=False).encode(), "e.csv")):
        v = read_vectors(data, name)
        assert v.X.shape == (N, D)
        assert list(v.meta.columns) == ["title", "year", "score"]
        assert v.meta["year"].tolist()[:2] == ["2000", "2001"]
        assert any("'embedding'" in n and "'year'" in n and "'score'" in n and "labels" in n for n in v.notices)


def test_two_list_columns_take_the_first_and_name_both():
    E, titles, _ = _data()
    frame = pd.DataFrame({"title": titles, "embedding": list(E), "other": list(E[:, :3])})
    cells = frame.assign(embedding=[_cell(r) for r in E], other=[_cell(r) for r in E[:, :3]])
    for data, name in ((_parquet(frame), "e.parquet"), (cells.to_csv(index=False).encode(), "e.csv"),
                       (_jsonl({"title": t, "embedding": a.tolist(), "other": b.tolist()}
                               for t, a, b in zip(titles, E, E[:, :3])), "e.jsonl")):
        v = read_vectors(data, name)
        np.testing.assert_allclose(v.X, E)
        assert list(v.meta.columns) == ["title"]
        assert any("'embedding'" in n and "'other'" in n and "first" in n for n in v.notices), v.notices


# ------------------------------------------------------------------ ragged, missing, alone


def test_ragged_lengths_name_the_column_the_row_and_both_lengths():
    E, titles, _ = _data()
    lists = [r.tolist() for r in E]
    lists[4] = lists[4][:5]
    frame = pd.DataFrame({"title": titles, "embedding": lists})
    cases = [(_parquet(frame), "r.parquet"),
             (frame.assign(embedding=[_cell(r) for r in lists]).to_csv(index=False).encode(), "r.csv"),
             (_jsonl({"title": t, "embedding": r} for t, r in zip(titles, lists)), "r.jsonl")]
    for data, name in cases:
        with pytest.raises(DataError) as err:
            read_vectors(data, name)
        msg = str(err.value)
        assert name in msg and "'embedding'" in msg and "row 5" in msg, msg
        assert "5 numbers" in msg and "row 1" in msg and f"holds {D}" in msg, msg
    # a CSV names the line as well: the header is line 1
    with pytest.raises(DataError, match=r"row 5 \(line 6\)"):
        read_vectors(cases[1][0], "r.csv")


@pytest.mark.parametrize("fmt", ["parquet", "csv", "jsonl"])
def test_null_lists_are_dropped_and_counted_and_labels_stay_aligned(fmt):
    E, titles, topics = _data()
    lists = [r.tolist() for r in E]
    gone = [2, 7, 8]
    for i in gone:
        lists[i] = None
    frame = pd.DataFrame({"title": titles, "topic": topics, "embedding": lists})
    if fmt == "parquet":
        data = _parquet(frame)
    elif fmt == "csv":
        data = frame.assign(embedding=["" if r is None else _cell(r) for r in lists]).to_csv(index=False).encode()
    else:
        data = _jsonl(frame.to_dict("records"))
    v = read_vectors(data, f"n.{fmt}")
    kept = [i for i in range(N) if i not in gone]
    np.testing.assert_allclose(v.X, E[kept])
    assert v.meta["title"].tolist() == [titles[i] for i in kept]
    assert v.meta["topic"].tolist() == [topics[i] for i in kept]
    assert v.dropped == {"rows with a missing value": 3}
    assert v.source_rows.tolist() == kept
    assert any(n.startswith("Dropped 3 rows with a missing value") for n in v.notices)
    with pytest.raises(DataError, match="a missing value"):
        read_vectors(data, f"n.{fmt}", on_invalid="error")


def test_a_null_inside_a_list_drops_its_row():
    data = b'title,embedding\na,"[1, 2]"\nb,"[3, null]"\nc,"[5, 6]"\n'
    v = read_vectors(data, "n.csv")
    assert v.X.tolist() == [[1.0, 2.0], [5.0, 6.0]] and v.meta["title"].tolist() == ["a", "c"]
    assert v.dropped == {"rows with a missing value": 1}


@pytest.mark.parametrize("fmt", ["parquet", "fixed", "csv", "tsv", "txt", "jsonl"])
def test_a_file_with_only_a_list_column(fmt):
    E, _, _ = _data()
    if fmt == "parquet":
        data = _parquet(pd.DataFrame({"embedding": list(E)}))
    elif fmt == "fixed":
        data = _parquet(pa.table({"embedding": pa.array(E.tolist(), pa.list_(pa.float64(), D))}))
    elif fmt == "jsonl":
        data = _jsonl({"embedding": r.tolist()} for r in E)
    else:
        sep = "\t" if fmt == "tsv" else ","
        data = pd.DataFrame({"embedding": [_cell(r) for r in E]}).to_csv(index=False, sep=sep).encode()
    v = read_vectors(data, f"only.{'parquet' if fmt == 'fixed' else fmt}")
    np.testing.assert_allclose(v.X, E)
    assert v.meta is None and v.columns[0] == "embedding[0]"


def test_a_file_of_lists_without_a_header():
    v = read_vectors(b"[1, 2]\n[3, 4]\n\n[5, 6]\n", "lists.txt")
    assert v.X.tolist() == [[1, 2], [3, 4], [5, 6]] and v.columns == ["vector[0]", "vector[1]"]


def test_a_word_in_a_list_is_named_with_its_row_and_column():
    with pytest.raises(DataError, match=r"row 2 \(line 3\), column 'embedding': 'two' is not a number"):
        read_vectors(b'title,embedding\na,"[1, 2]"\nb,"[3, two]"\n', "w.csv")
    with pytest.raises(DataError, match=r"line 2, field 'embedding': '\"two\"' is not a number"):
        read_vectors(b'{"embedding": [1, 2]}\n{"embedding": [3, "two"]}\n', "w.jsonl")


def test_a_broken_json_line_is_named():
    with pytest.raises(DataError, match="line 3: not valid JSON"):
        read_vectors(b'{"embedding": [1, 2]}\n\n{"embedding": [3, \n', "b.jsonl")


def test_a_list_shortened_by_numpys_printing_is_refused_with_what_to_do():
    with pytest.raises(DataError, match=r"shortened with '\.\.\.'.*tolist"):
        read_vectors(b'title,embedding\na,"[1. 2. ... 9.]"\n', "cut.csv")


# ------------------------------------------------------------------ budgets


def test_the_dimension_is_not_capped_by_the_cell_budget():
    d = 16_384  # 128 kB of float64 in one Parquet cell, 150 kB of text in one CSV cell
    E = np.random.default_rng(1).standard_normal((3, d)).round(6)
    v = read_upload("vectors", ["wide.parquet"], [_parquet(pd.DataFrame({"t": list("abc"), "e": list(E)}))])
    assert v.X.shape == (3, d)
    text = pd.DataFrame({"t": list("abc"), "e": [_cell(r) for r in E]}).to_csv(index=False).encode()
    assert max(len(_cell(r)) for r in E) > budgets.MAX_CELL_CHARS
    v = read_upload("vectors", ["wide.csv"], [text])
    np.testing.assert_allclose(v.X, E)


def test_a_label_cell_past_the_cell_budget_is_still_refused():
    long_title = "x" * (budgets.MAX_CELL_CHARS + 1)
    data = _jsonl([{"title": long_title, "embedding": [1, 2]}, {"title": "b", "embedding": [3, 4]}])
    with pytest.raises(DataError, match="characters in one cell"):
        read_upload("vectors", ["long.jsonl"], [data])


# ------------------------------------------------------------------ uploads and the guess of their kind


@pytest.mark.parametrize("name", ["e.parquet", "e.csv", "e.tsv", "e.jsonl"])
def test_read_upload_end_to_end_and_the_guess_is_vectors(name):
    E, titles, topics = _data(n=40, d=16)
    frame = pd.DataFrame({"title": titles, "topic": topics, "embedding": list(E)})
    if name.endswith(".parquet"):
        data = _parquet(frame)
    elif name.endswith(".jsonl"):
        data = _jsonl({"title": t, "topic": k, "embedding": r.tolist()} for t, k, r in zip(titles, topics, E))
    else:
        data = frame.assign(embedding=[_cell(r) for r in E]).to_csv(
            index=False, sep="\t" if name.endswith(".tsv") else ",").encode()
    kind, why = explain_kind((name,), (data,))
    assert kind == "vectors" and "'embedding'" in why, why
    v = read_upload(kind, [name], [data], seed=3)
    _check(v, E, titles, topics)


def test_explain_kind_for_json_lines():
    with_list = _jsonl([{"title": "a", "embedding": [0.1, 0.2, 0.3]}] * 3)
    assert explain_kind(("e.jsonl",), (with_list,)) == (
        "vectors", "e.jsonl holds JSON lines whose field 'embedding' is a list of 3 numbers: vectors, with the other "
                   "fields as labels.")
    flat = _jsonl([{"x": 1, "y": 2.5, "name": "a"}, {"x": 3, "y": None, "name": "b"}])
    kind, why = explain_kind(("p.ndjson",), (flat,))
    assert kind == "vectors" and "2 numeric fields (x, y)" in why, why
    # a line longer than the head the guess reads: the field is still seen
    long = _jsonl([{"title": "a", "embedding": [0.123456789] * 5_000}])
    assert explain_kind(("long.jsonl",), (long,))[0] == "vectors"
    assert "'embedding' is a list of numbers" in explain_kind(("long.jsonl",), (long,))[1]


def test_explain_kind_names_a_parquet_list_column_and_its_size():
    E, titles, _ = _data(d=64)
    table = pa.table({"title": titles, "embedding": pa.array(E.tolist(), pa.list_(pa.float32(), 64))})
    kind, why = explain_kind(("f.parquet",), (_parquet(table),))
    assert kind == "vectors" and "'embedding' holds a list of 64 numbers" in why
