"""Exact nearest rows by a sparse dot product that stops once the bound rules the rest out."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from pathfinding.hipporag.index.nearest import NearestRows, row_dots


def test_nearest_rows_stops_early_on_a_rare_feature():
    # Feature 0 is rare and decisive; feature 1 is in every row. The search must not need feature 1.
    rng = np.random.default_rng(0)
    X = sp.csr_array(np.c_[np.r_[1.0, np.zeros(999)], rng.uniform(0.1, 0.2, 1000)])
    X = sp.csr_array(sp.diags_array(1 / np.sqrt(X.multiply(X).sum(axis=1))) @ X)
    nearest = NearestRows(X)
    rows, dots = nearest.top_k(np.array([0, 1]), np.array([0.99, np.sqrt(1 - 0.99**2)]), k=1)
    assert rows.tolist() == [0]
    full = (X @ np.array([0.99, np.sqrt(1 - 0.99**2)]))
    assert dots[0] == full[0] == full.max()


def test_row_dots_by_hand_in_the_order_asked():
    """Rows 1 then 0 of [[1, 2, 0], [0, 3, 4]] with q = 0.5 e1 + 0.25 e2: 3*0.5 + 4*0.25 = 2.5 and
    2*0.5 = 1; a row sharing no feature scores 0, a row asked twice scores twice."""
    X = sp.csr_array(np.array([[1.0, 2.0, 0.0], [0.0, 3.0, 4.0], [5.0, 0.0, 0.0]]))
    q_idx, q_val = np.array([1, 2]), np.array([0.5, 0.25])
    assert row_dots(X, q_idx, q_val, np.array([1, 0])).tolist() == [2.5, 1.0]
    assert row_dots(X, q_idx, q_val, np.array([2, 1, 1, 0])).tolist() == [0.0, 2.5, 2.5, 1.0]


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 30), d=st.integers(1, 12))
def test_row_dots_equal_the_dense_product(seed, n, d):
    rng = np.random.default_rng(seed)
    X = sp.csr_array(rng.uniform(-1, 1, (n, d)) * (rng.random((n, d)) < 0.4))
    q_idx = np.flatnonzero(rng.random(d) < 0.5)
    q_val = rng.uniform(-1, 1, q_idx.size)
    rows = rng.integers(0, n, size=rng.integers(0, 2 * n + 1))
    q = np.zeros(d)
    q[q_idx] = q_val
    np.testing.assert_allclose(row_dots(X, q_idx, q_val, rows), X.toarray()[rows] @ q, rtol=0, atol=1e-12)


def test_a_matrix_with_repeated_entries_is_summed_in_a_copy_and_a_canonical_one_shared():
    """Feature 0 stored twice in row 0 (0.6 + 0.2): one row, dot 0.8, and the caller's matrix is left
    with its repeats; a canonical matrix is used as it is, not copied."""
    X = sp.csr_array((np.array([0.6, 0.2, 0.8]), np.array([0, 0, 1]), np.array([0, 2, 3])), shape=(2, 2))
    rows, dots = NearestRows(X).top_k(np.array([0]), np.array([1.0]), k=2)
    assert rows.tolist() == [0] and dots.tolist() == [pytest.approx(0.8)]
    assert X.nnz == 3
    Y = sp.csr_array(np.array([[1.0, 0.0], [0.6, 0.8]]))
    assert np.shares_memory(NearestRows(Y).get_state()[0].data, Y.data)
