"""Reading an uploaded affinity matrix: the layouts it accepts, what it changes (with a notice) and every refusal."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from embedcore.datasets import load_weekday_similarity
from embedcore.io import DataError, read_affinity_matrix


def test_a_frame_written_by_pandas_reads_back_as_the_same_matrix():
    week = load_weekday_similarity()
    blob = pd.DataFrame(week.matrix, index=week.labels, columns=week.labels).to_csv().encode()
    m = read_affinity_matrix(blob, "week.csv")
    assert m.labels == week.labels and not m.notices and not m.symmetrised
    np.testing.assert_array_equal(m.matrix, week.matrix)


@pytest.mark.parametrize("blob, labels", [
    (b"a\tb\tc\n0\t1\t2\n1\t0\t1\n2\t1\t0\n", ["a", "b", "c"]),  # names across the top only, tabs
    (b"year;2001;2002;2003\n2001;0;1;2\n2002;1;0;1\n2003;2;1;0\n", ["2001", "2002", "2003"]),  # numeric names
    (b"# comment\n\n,a,b,c\na,0,1,2\nb,1,0,1\nc,2,1,0\n", ["a", "b", "c"]),  # comment and blank lines
    (b"0 1 2\n1 0 1\n2 1 0\n", ["c1", "c2", "c3"]),  # no names
])
def test_other_layouts(blob, labels):
    m = read_affinity_matrix(blob, "k.csv")
    assert m.labels == labels
    np.testing.assert_array_equal(m.matrix, [[0, 1, 2], [1, 0, 1], [2, 1, 0]])
    assert bool(m.notices) == (labels[0] == "c1")


def test_columns_in_another_order_are_matched_by_name():
    m = read_affinity_matrix(b",b,a,c\na,2,0,0\nb,0,2,1\nc,1,0,0\n", "k.csv")
    np.testing.assert_array_equal(m.matrix, [[0, 2, 0], [2, 0, 1], [0, 1, 0]])
    assert "matched by name" in m.notices[0]


def test_an_asymmetric_matrix_is_symmetrised_with_a_note_naming_the_worst_pair():
    m = read_affinity_matrix(b"day,a,b,c\na,0,2,0\nb,3,0,1\nc,0,1,0\n", "k.csv")
    assert m.symmetrised
    np.testing.assert_array_equal(m.matrix, [[0, 2.5, 0], [2.5, 0, 1], [0, 1, 0]])
    assert "'a' to 'b' is 2 but 'b' to 'a' is 3" in m.notices[0] and "(A + Aᵀ) / 2" in m.notices[0]


def test_the_diagonal_is_set_to_zero_with_a_note():
    m = read_affinity_matrix(b",a,b\na,1,0.5\nb,0.5,1\n", "k.csv")
    np.testing.assert_array_equal(m.matrix, [[0, 0.5], [0.5, 0]])
    assert "diagonal" in m.notices[0]


@pytest.mark.parametrize("blob, message", [
    (b",a,b,c\na,0,1,1\nb,1,0,1\n", "the matrix is 2 x 3"),
    (b",a,b\na,0,-1\nb,-1,0\n", "line 2: the cell for 'a' and 'b' ('-1') is negative"),
    (b",a,b\na,0,x\nb,1,0\n", "line 2: the cell for 'a' and 'b' ('x') is not a number"),
    (b",a,b\na,0,\nb,1,0\n", "('') is empty"),
    (b",a,b\na,0,1\nb,inf,0\n", "line 3: the cell for 'b' and 'a' ('inf') is not finite"),
    (b",a,b\na,0,1\nz,1,0\n", "'z' names a row but no column; 'b' names a column but no row"),
    (b",a,a\na,0,1\na,1,0\n", "names 'a' twice"),
    (b",a,\na,0,1\n,1,0\n", "empty category name"),
    (b",a,b\na,0,1,5\nb,1,0\n", "line 2: 4 fields where the lines above have 3"),
    (b",a\na,0\n", "has one category ('a')"),
    (b"\n# nothing\n", "is empty"),
    (b"1 2 3\n4 5 6\n", "2 lines of 3 fields cannot be a square matrix"),
    (b"\x93NUMPY\x01\x00", "is a NumPy .npy file"),
])
def test_every_problem_is_named(blob, message):
    with pytest.raises(DataError) as err:
        read_affinity_matrix(blob, "k.csv")
    assert message in str(err.value), str(err.value)
