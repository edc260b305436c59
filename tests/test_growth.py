"""How an update moves the index's matrices (pathfinding.hipporag.index.growth): grow equals remap and
a sum (or a maximum) for any increasing maps, by rows merged one by one or, past MERGED_ROWS, by
scipy; insert_rows puts each new row where it is asked; remap drops what a map sends to -1. Expected
values come from dense arrays moved by hand."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from pathfinding.hipporag.index import growth
from pathfinding.hipporag.index.growth import grow, increasing, insert_rows, remap


def _increasing_map(draw, n_old, n_new):
    return np.sort(np.asarray(draw(st.permutations(range(n_new)))[:n_old], dtype=np.int64))


@st.composite
def growths(draw):
    n_old, m_old = draw(st.integers(0, 6)), draw(st.integers(0, 6))
    n, m = n_old + draw(st.integers(0, 3)), m_old + draw(st.integers(0, 3))
    rows, cols = _increasing_map(draw, n_old, n), _increasing_map(draw, m_old, m)
    values = st.sampled_from([0.0, 0.0, 1.0, 2.0, 3.5])
    M = np.array(draw(st.lists(st.lists(values, min_size=m_old, max_size=m_old), min_size=n_old,
                               max_size=n_old)), dtype=float).reshape(n_old, m_old)
    X = np.array(draw(st.lists(st.lists(values, min_size=m, max_size=m), min_size=n, max_size=n)),
                 dtype=float).reshape(n, m)
    return M, X, rows, cols


@settings(max_examples=150)
@given(case=growths(), combine=st.sampled_from([np.add, np.maximum]), by_scipy=st.booleans())
def test_grow_equals_the_moved_matrix_combined_with_the_new_entries(case, combine, by_scipy):
    M, X, rows, cols = case
    want = np.zeros(X.shape)
    want[np.ix_(rows, cols)] = M
    want = combine(want, X)
    with pytest.MonkeyPatch.context() as mp:
        if by_scipy:  # every touched row past the limit: the sparse sum does it
            mp.setattr(growth, "MERGED_ROWS", -1)
        got = grow(sp.csr_array(M), X.shape, sp.csr_array(X), row_map=rows, col_map=cols, combine=combine)
    np.testing.assert_array_equal(got.toarray(), want)
    assert got.has_canonical_format and got.nnz == np.count_nonzero(want)


def test_grow_keeps_the_ids_without_maps_and_32_bit_indices():
    M = sp.csr_array(np.array([[1.0, 0.0], [0.0, 2.0]]))
    got = grow(M, (2, 2), sp.csr_array(np.array([[0.0, 4.0], [0.0, 0.0]])))
    np.testing.assert_array_equal(got.toarray(), [[1.0, 4.0], [0.0, 2.0]])
    assert got.indices.dtype == np.int32 and got.indptr.dtype == np.int32


def test_grow_refuses_a_map_that_drops_or_reorders():
    M = sp.csr_array(np.eye(2))
    with pytest.raises(ValueError, match="increasing maps"):
        grow(M, (2, 2), sp.csr_array((2, 2)), row_map=np.array([1, 0]))
    with pytest.raises(ValueError, match="np.add or np.maximum"):
        grow(M, (2, 2), sp.csr_array((2, 2)), combine=np.subtract)


@settings(max_examples=60)
@given(n=st.integers(0, 5), k=st.integers(0, 3), data=st.data())
def test_insert_rows_puts_each_new_row_where_asked(n, k, data):
    at = np.sort(np.asarray(data.draw(st.permutations(range(n + k)))[:k], dtype=np.int64))
    A = np.arange(1, 3 * n + 1, dtype=float).reshape(n, 3)
    B = -np.arange(1, 3 * at.size + 1, dtype=float).reshape(at.size, 3)
    want = np.zeros((n + at.size, 3))
    keep = np.setdiff1d(np.arange(n + at.size), at)
    want[keep], want[at] = A, B
    got = insert_rows(sp.csr_array(A), sp.csr_array(B), at)
    np.testing.assert_array_equal(got.toarray(), want)


def test_remap_drops_what_a_map_sends_away_and_sums_what_meets():
    M = sp.csr_array(np.array([[1, 2], [3, 4]]))
    np.testing.assert_array_equal(remap(M, np.array([0, -1]), np.array([1, 0]), (1, 2)).toarray(), [[2, 1]])
    np.testing.assert_array_equal(remap(M, np.array([0, 0]), np.array([0, 1]), (1, 2)).toarray(), [[4, 6]])
    assert increasing(np.array([], dtype=np.int64)) and not increasing(np.array([1, 1]))
