"""How an update moves the index's matrices (pathfinding.hipporag.index.growth): grow equals remap and
a sum (or a maximum) for any increasing maps, by rows merged one by one or, past MERGED_ROWS, by
scipy; insert_rows puts each new row where it is asked; remap drops what a map sends to -1, by masks
when the rest keep their order (a delete); take_rows, merge_rows and subtract_stored equal their
dense counterparts. Expected values come from dense arrays moved by hand."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from pathfinding.hipporag.index import growth
from pathfinding.hipporag.index.growth import (
    complement,
    grow,
    increasing,
    insert_rows,
    merge_rows,
    remap,
    rows_outside,
    subtract_stored,
    take_rows,
)


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


@st.composite
def shrinks(draw):
    """A matrix and order-keeping maps that drop some rows and columns (a delete), maybe into a
    larger shape (a replace: rows kept in order, new ones to come)."""
    n_old, m_old = draw(st.integers(0, 6)), draw(st.integers(0, 6))
    row_keep = np.asarray(draw(st.lists(st.booleans(), min_size=n_old, max_size=n_old)), dtype=bool)
    col_keep = np.asarray(draw(st.lists(st.booleans(), min_size=m_old, max_size=m_old)), dtype=bool)
    n, m = int(row_keep.sum()) + draw(st.integers(0, 2)), int(col_keep.sum()) + draw(st.integers(0, 2))
    rows, cols = np.full(n_old, -1), np.full(m_old, -1)
    rows[row_keep] = _increasing_map(draw, int(row_keep.sum()), n)
    cols[col_keep] = _increasing_map(draw, int(col_keep.sum()), m)
    values = st.sampled_from([0.0, 0.0, 1.0, 2.0, 3.5])
    M = np.array(draw(st.lists(st.lists(values, min_size=m_old, max_size=m_old), min_size=n_old,
                               max_size=n_old)), dtype=float).reshape(n_old, m_old)
    return M, rows, cols, (n, m)


@settings(max_examples=150)
@given(case=shrinks())
def test_remap_of_a_delete_keeps_the_rest_in_order_and_canonical(case):
    M, rows, cols, shape = case
    want = np.zeros(shape)
    want[np.ix_(rows[rows >= 0], cols[cols >= 0])] = M[np.ix_(rows >= 0, cols >= 0)]
    got = remap(sp.csr_array(M), rows, cols, shape)
    np.testing.assert_array_equal(got.toarray(), want)
    assert got.has_canonical_format and got.nnz == np.count_nonzero(want)


@settings(max_examples=80)
@given(n=st.integers(0, 8), data=st.data(), by_scipy=st.booleans())
def test_take_rows_equals_scipys_row_indexing(n, data, by_scipy):
    rows = np.flatnonzero(np.asarray(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool))
    A = sp.csr_array(np.arange(3 * n, dtype=float).reshape(n, 3) % 4)
    with pytest.MonkeyPatch.context() as mp:
        if by_scipy:  # more runs than the limit: scipy's indexing does it
            mp.setattr(growth, "MERGED_ROWS", -1)
        got = take_rows(A, rows)
    np.testing.assert_array_equal(got.toarray(), A.toarray()[rows])
    assert got.has_canonical_format and got.shape == (rows.size, 3)


def test_remap_of_a_bulk_delete_drops_rows_by_mask(monkeypatch):
    monkeypatch.setattr(growth, "MERGED_ROWS", 0)  # every dropped row past the limit
    M = sp.csr_array(np.array([[1.0, 2.0], [3.0, 0.0], [0.0, 4.0]]))
    got = remap(M, np.array([-1, 0, 1]), np.array([0, -1]), (2, 1))
    np.testing.assert_array_equal(got.toarray(), [[3.0], [0.0]])


@pytest.mark.parametrize("bulk", [False, True])
def test_subtract_stored_takes_away_what_is_stored_and_drops_the_zeros(bulk, monkeypatch):
    if bulk:  # past the limit: scipy's difference
        monkeypatch.setattr(growth, "MERGED_ROWS", 0)
    M = sp.csr_array(np.array([[2.0, 1.0, 0.0], [0.0, 3.0, 4.0]]))
    G = sp.csr_array(np.array([[1.0, 1.0, 0.0], [0.0, 0.0, 4.0]]))
    got = subtract_stored(M, G)
    np.testing.assert_array_equal(got.toarray(), [[1.0, 0.0, 0.0], [0.0, 3.0, 0.0]])
    assert got.nnz == 2 and got.has_canonical_format


def test_subtract_stored_refuses_a_key_the_matrix_lacks():
    M = sp.csr_array(np.array([[2.0, 0.0]]))
    with pytest.raises(ValueError, match=r"\(0, 1\) is not stored"):
        subtract_stored(M, sp.csr_array(np.array([[0.0, 1.0]])))


@settings(max_examples=80)
@given(case=shrinks(), dense=st.booleans(), data=st.data())
def test_merge_rows_puts_old_and_new_rows_where_their_maps_say(case, dense, data):
    M, rows, _, (n, _) = case
    kept = np.flatnonzero(rows >= 0)
    old_pos = rows[kept]
    add_pos = complement(old_pos, n)
    if data.draw(st.booleans()) and kept.size > 1:  # a map that reorders: stacked and permuted
        old_pos = old_pos[::-1].copy()
    E_add = -np.arange(1, 1 + add_pos.size * M.shape[1], dtype=float).reshape(add_pos.size, M.shape[1])
    want = np.zeros((n, M.shape[1]))
    want[old_pos], want[add_pos] = M[kept], E_add
    E = M if dense else sp.csr_array(M)
    got = merge_rows(E, kept, old_pos, E_add if dense else sp.csr_array(E_add), add_pos, n)
    np.testing.assert_array_equal(got if dense else got.toarray(), want)


def test_rows_outside_are_the_rows_with_an_entry_left():
    P = sp.csr_array(np.array([[1, 0, 0], [1, 1, 0], [0, 0, 0], [0, 0, 2]]))
    assert rows_outside(P, np.array([0])).tolist() == [1, 3]
    assert rows_outside(P, np.array([], dtype=np.int64)).tolist() == [0, 1, 3]
    assert complement(np.array([0, 2]), 4).tolist() == [1, 3]
