"""The shared ragged-rows -> CSR builder, against a dense matrix filled one entry at a time."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from embedcore._sparse import (
    flat_weights,
    flatten,
    kept_offsets,
    offsets_of,
    ragged_to_csr,
)


def brute_force(rows: list[list[int]], n_columns: int, weights: list[list[float]] | None = None) -> np.ndarray:
    """The matrix by its definition: add each entry's weight (1 if none) at (row, column); negatives left out."""
    M = np.zeros((len(rows), n_columns))
    for i, row in enumerate(rows):
        for k, j in enumerate(row):
            if j >= 0:
                M[i, j] += 1.0 if weights is None else weights[i][k]
    return M


def random_rows(seed: int):
    r = np.random.default_rng(seed)
    n_columns = int(r.integers(1, 12))
    rows = [r.integers(-1, n_columns, size=int(r.integers(0, 9))).tolist() for _ in range(int(r.integers(0, 15)))]
    rows += [[], [0, 0, 0]]  # an empty row and a repeated column, always
    weights = [np.round(r.uniform(0, 4, size=len(row)), 2).tolist() for row in rows]
    return rows, n_columns, weights


@pytest.mark.parametrize("seed", range(25))
def test_ragged_to_csr_is_the_brute_force_matrix(seed):
    rows, n_columns, weights = random_rows(seed)
    offsets, flat = flatten(rows)
    columns = np.array(flat, dtype=np.int64)
    for w in (None, weights):
        M = ragged_to_csr(offsets, columns, n_columns, None if w is None else flat_weights(w, offsets))
        assert isinstance(M, sp.csr_array) and M.dtype == np.float64 and M.shape == (len(rows), n_columns)
        np.testing.assert_allclose(M.toarray(), brute_force(rows, n_columns, w), rtol=0, atol=1e-12)
        assert M.has_canonical_format  # sorted columns, each stored once
        if w is None:
            assert (M.data > 0).all()  # counts: only what occurs is stored


@pytest.mark.parametrize("seed", range(10))
def test_the_bytes_are_those_of_the_coo_build_it_replaces(seed):
    rows, n_columns, weights = random_rows(seed)
    offsets, flat = flatten(rows)
    columns = np.array(flat, dtype=np.int64)
    w = flat_weights(weights, offsets)
    keep = columns >= 0
    owner = np.repeat(np.arange(len(rows)), np.diff(offsets))
    ref = sp.coo_array((w[keep], (owner[keep], columns[keep])), shape=(len(rows), n_columns)).tocsr()
    ref.sum_duplicates()
    M = ragged_to_csr(offsets, columns, n_columns, w)
    for name in ("data", "indices", "indptr"):
        a, b = getattr(M, name), getattr(ref, name)
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes(), name


def test_empty_input_and_only_empty_rows():
    assert ragged_to_csr([0], [], 4).shape == (0, 4)
    M = ragged_to_csr([0, 0, 0], np.zeros(0, dtype=np.int64), 3)
    assert M.shape == (2, 3) and M.nnz == 0 and M.indptr.tolist() == [0, 0, 0]


def test_the_callers_arrays_are_left_as_they_were():
    offsets, columns, weights = np.array([0, 3, 4]), np.array([2, 0, 2, 1]), np.array([1.0, 2.0, 3.0, 4.0])
    ragged_to_csr(offsets, columns, 3, weights)
    assert offsets.tolist() == [0, 3, 4] and columns.tolist() == [2, 0, 2, 1] and weights.tolist() == [1, 2, 3, 4]


def test_bad_input_is_refused_with_what_is_wrong():
    with pytest.raises(ValueError, match="Column 5 is out of range: there are 3 columns"):
        ragged_to_csr([0, 2], [0, 5], 3)
    with pytest.raises(ValueError, match="offsets must rise from 0 to the number of entries"):
        ragged_to_csr([0, 1], [0, 1], 3)
    with pytest.raises(ValueError, match="offsets must rise"):
        ragged_to_csr([0, 2, 1, 2], [0, 1], 3)
    with pytest.raises(ValueError, match="Got 1 weights for 2 entries"):
        ragged_to_csr([0, 2], [0, 1], 3, weights=[1.0])
    with pytest.raises(TypeError, match="Column indices must be integers"):
        ragged_to_csr([0, 1], [0.5], 3)


def test_offsets_and_kept_offsets():
    assert offsets_of([]).tolist() == [0]
    assert offsets_of(np.array([3, 0, 2], dtype=np.int32)).dtype == np.int64
    keep = np.array([False, True, True, False, True])
    offsets = offsets_of([2, 0, 3])
    # brute force: count the kept entries row by row
    lengths = [int(keep[a:b].sum()) for a, b in zip(offsets[:-1], offsets[1:])]
    assert kept_offsets(offsets, keep).tolist() == offsets_of(lengths).tolist()


def test_weights_must_match_the_sets_one_for_one():
    offsets = offsets_of([2, 1])
    assert flat_weights([[1, 2], [3]], offsets).tolist() == [1.0, 2.0, 3.0]
    with pytest.raises(ValueError, match="Got 1 lists of weights for 2 sets"):
        flat_weights([[1, 2, 3]], offsets)
    with pytest.raises(ValueError, match="Set 0 has 2 items but 1 weights"):
        flat_weights([[1], [2, 3]], offsets)
