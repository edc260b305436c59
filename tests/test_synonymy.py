"""The synonymy step around its search (pathfinding.hipporag.index.synonymy): the all-pairs
reference, each row's k nearest with ties to the lower id, and the edge rule (best pairs per node,
symmetric, none where a triple already links the pair). The compiled searches are checked against
this reference in test_neighbours.py."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from pathfinding.errors import InvalidTypeError, InvalidValueError
from pathfinding.hipporag.index.nearest import KEEP_SLACK
from pathfinding.hipporag.index.synonymy import (
    assemble_pairs,
    check_search,
    cosine_neighbours_allpairs,
    keep_nearest,
    patch_synonymy_edges,
    synonymy_edges,
    top_per_row,
)

# --- the all-pairs reference ---------------------------------------------------------------------


def test_pairs_at_or_above_tau_without_the_diagonal():
    """Cosines 0.81 (0-1) and 0.79 (0-2) around the default tau 0.8; a row is never its own pair."""
    X = np.array([[1.0, 0.0], [0.81, np.sqrt(1 - 0.81**2)], [0.79, np.sqrt(1 - 0.79**2)]])
    for M in (X, sp.csr_array(X)):
        S = cosine_neighbours_allpairs(M).toarray()
        assert S[0, 1] == pytest.approx(0.81) and S[0, 2] == 0 and np.all(np.diag(S) == 0)
        assert S[1, 2] > 0.99 and (S == S.T).all()


def test_the_keep_threshold_allows_rounding_below_tau():
    """A pair counts from tau - KEEP_SLACK: a cosine that rounding put just under tau is kept, one
    a little further below is not."""
    X = np.array([[1.0, 0.0], [0.6, 0.8]])
    assert cosine_neighbours_allpairs(X, tau=0.6 + KEEP_SLACK / 2).nnz == 2
    assert cosine_neighbours_allpairs(X, tau=0.6 + 2 * KEEP_SLACK).nnz == 0


@given(seed=st.integers(0, 2**32 - 1), chunk=st.integers(1, 7), k=st.integers(1, 9), sparse=st.booleans())
def test_chunks_change_nothing_and_the_cap_keeps_the_largest(seed, chunk, k, sparse):
    """Entries in {0, 1/2, 1}: every product is exact, so any chunking gives the same numbers, and
    ties (many) must fall the same way as keep_nearest's."""
    X = np.random.default_rng(seed).integers(0, 3, size=(9, 3)) / 2
    X = sp.csr_array(X) if sparse else X
    full = cosine_neighbours_allpairs(X, tau=0.5, max_neighbours=9, chunk=100)
    same = cosine_neighbours_allpairs(X, tau=0.5, max_neighbours=9, chunk=chunk)
    np.testing.assert_array_equal(same.toarray(), full.toarray())
    capped = cosine_neighbours_allpairs(X, tau=0.5, max_neighbours=k, chunk=chunk)
    np.testing.assert_array_equal(capped.toarray(), keep_nearest(full, k).toarray())


def test_the_settings_are_checked_by_name():
    assert check_search(1.0, 1, 1) == (1.0, 1, 1) and check_search(-1, 3, 9) == (-1.0, 3, 9)
    with pytest.raises(InvalidValueError, match=r"^tau must be in \[-1.0, 1.0\], got 1.01"):
        check_search(1.01, 1, 1)
    with pytest.raises(InvalidValueError, match=r"^max_neighbours must be in \[1, inf\], got 0"):
        check_search(0.8, 0, 1)
    with pytest.raises(InvalidValueError, match=r"^chunk must be in \[1, inf\], got 0"):
        check_search(0.8, 1, 0)
    with pytest.raises(InvalidTypeError, match="^max_neighbours must be an integer"):
        check_search(0.8, 2.0, 1)


# --- each row's best ----------------------------------------------------------------------------


def test_top_per_row_keeps_the_largest_ties_to_the_lower_column():
    r = np.array([1, 1, 1, 0, 1, 0])
    c = np.array([5, 2, 3, 4, 0, 1])
    v = np.array([0.9, 0.9, 0.95, 0.5, 0.2, 0.7])
    kr, kc, kv = top_per_row(r, c, v, 2)
    assert list(zip(kr.tolist(), kc.tolist(), kv.tolist(), strict=True)) == [
        (0, 1, 0.7), (0, 4, 0.5), (1, 3, 0.95), (1, 2, 0.9)
    ]  # fmt: skip


def test_keep_nearest_and_assemble_pairs():
    M = sp.csr_array(np.array([[0.0, 0.9, 0.9, 0.95], [0.3, 0.0, 0.0, 0.0]]))
    np.testing.assert_array_equal(keep_nearest(M, 2).toarray(), [[0, 0.9, 0, 0.95], [0.3, 0, 0, 0]])
    np.testing.assert_array_equal(keep_nearest(M, 5).toarray(), M.toarray())
    assert keep_nearest(M, 2).has_sorted_indices
    empty = assemble_pairs([], 3)
    assert empty.shape == (3, 3) and empty.nnz == 0
    parts = [(np.array([0]), np.array([2]), np.array([0.5])), (np.array([2]), np.array([0]), np.array([0.5]))]
    np.testing.assert_array_equal(assemble_pairs(parts, 3).toarray(), [[0, 0, 0.5], [0, 0, 0], [0.5, 0, 0]])


# --- the edges ---------------------------------------------------------------------------------


def test_synonymy_edges_keep_each_nodes_best_pairs():
    """Pairs 0-1 (0.9), 0-2 (0.85), 2-3 (0.95) with one synonym per node: node 0 keeps 1, node 2
    keeps 3, so after symmetrising the edges are 0-1 and 2-3 and the weaker 0-2 is gone."""
    P = np.zeros((4, 4))
    for (a, b), v in {(0, 1): 0.9, (0, 2): 0.85, (2, 3): 0.95}.items():
        P[a, b] = P[b, a] = v
    S = synonymy_edges(sp.csr_array(P), sp.csr_array((4, 4)), max_synonyms=1).toarray()
    want = np.zeros((4, 4))
    want[0, 1] = want[1, 0] = 0.9
    want[2, 3] = want[3, 2] = 0.95
    np.testing.assert_array_equal(S, want)


def test_synonymy_edges_skip_pairs_with_a_relation_edge():
    """A pair that a triple already links keeps no synonymy edge; the others stay, symmetric."""
    P = np.zeros((3, 3))
    P[0, 1] = P[1, 0] = 0.9
    P[1, 2] = P[2, 1] = 0.8
    R = np.zeros((3, 3))
    R[1, 2] = R[2, 1] = 1.0
    S = synonymy_edges(sp.csr_array(P), sp.csr_array(R), max_synonyms=5).toarray()
    want = np.zeros((3, 3))
    want[0, 1] = want[1, 0] = 0.9
    np.testing.assert_array_equal(S, want)


def test_the_relation_mask_holds_for_a_matrix_with_unsorted_indices():
    """R's row 0 lists its columns as (2, 1): the relation pairs 0-1 and 0-2 still get no synonymy
    edge, and only 1-2 (no triple links it) remains."""
    R = sp.csr_array((np.ones(4), np.array([2, 1, 0, 0]), np.array([0, 2, 3, 4])), shape=(3, 3))
    assert not R.has_sorted_indices
    P = np.zeros((3, 3))
    for (a, b), v in {(0, 1): 0.9, (0, 2): 0.85, (1, 2): 0.8}.items():
        P[a, b] = P[b, a] = v
    S = synonymy_edges(sp.csr_array(P), R, max_synonyms=5).toarray()
    want = np.zeros((3, 3))
    want[1, 2] = want[2, 1] = 0.8
    np.testing.assert_array_equal(S, want)
    assert not R.has_sorted_indices  # the caller's matrix is not sorted in place


def test_a_pair_kept_by_one_side_only_is_an_edge_both_ways():
    """Node 0's best is 1 (0.9); node 1's single best is 2 (0.95): with one synonym each, 0-1 is still
    an edge, because 0 keeps it, and the graph is symmetric."""
    P = np.zeros((3, 3))
    for (a, b), v in {(0, 1): 0.9, (1, 2): 0.95}.items():
        P[a, b] = P[b, a] = v
    S = synonymy_edges(sp.csr_array(P), sp.csr_array((3, 3)), max_synonyms=1).toarray()
    want = P.copy()
    np.testing.assert_array_equal(S, want)


def test_ties_at_the_cap_go_to_the_lower_node():
    P = np.zeros((4, 4))
    for b in (1, 2, 3):
        P[0, b] = P[b, 0] = 0.9
    S = synonymy_edges(sp.csr_array(P), sp.csr_array((4, 4)), max_synonyms=2).toarray()
    # node 0 keeps 1 and 2; node 3 keeps 0 (its only pair), so 0-3 is an edge too
    assert S[0].tolist() == [0, 0.9, 0.9, 0.9] and (S == S.T).all()
    P[3, 0] = 0.0  # node 3 no longer lists node 0: only node 0's cap decides, and it stops at 2
    S = synonymy_edges(sp.csr_array(P), sp.csr_array((4, 4)), max_synonyms=2).toarray()
    assert S[0].tolist() == [0, 0.9, 0.9, 0] and S[3].tolist() == [0, 0, 0, 0]


def test_an_empty_relation_graph_masks_nothing():
    P = sp.csr_array(np.array([[0.0, 0.8], [0.8, 0.0]]))
    S = synonymy_edges(P, sp.csr_array((2, 2)), max_synonyms=1)
    assert S.nnz == 2 and S.has_sorted_indices


@settings(max_examples=80)
@given(
    cells=st.lists(
        st.tuples(st.integers(0, 5), st.integers(0, 6), st.sampled_from([0.8, 0.85, 0.9])), max_size=30
    ),
    k=st.integers(1, 4),
)
def test_keep_nearest_keeps_each_rows_k_largest_ties_to_the_lower_column(cells, k):
    """Against a row-by-row sort: rows over k lose their smallest (ties: higher column first), rows
    within k are copied, the result is canonical."""
    M = np.zeros((6, 7))
    for r, c, v in cells:
        M[r, c] = v
    got = keep_nearest(sp.csr_array(M), k)
    want = np.zeros_like(M)
    for r in range(M.shape[0]):
        cols = sorted(np.flatnonzero(M[r]).tolist(), key=lambda c: (-M[r, c], c))[:k]
        want[r, cols] = M[r, cols]
    np.testing.assert_array_equal(got.toarray(), want)
    assert got.has_canonical_format


def _cells(n):
    cell = st.tuples(st.integers(0, n - 1), st.integers(0, n - 1), st.sampled_from([0.8, 0.85, 0.9]))
    return st.lists(cell, max_size=25)


@settings(max_examples=80)
@given(old=_cells(7), new=_cells(7), relations=_cells(7), more=_cells(7), touched=st.sets(st.integers(0, 6)),
       k=st.integers(1, 3))
def test_patching_the_rows_that_changed_equals_the_edges_afresh(old, new, relations, more, touched, k):
    """An update's shortcut: the old edges, with every edge at a touched node recomputed, equal
    synonymy_edges of the new pairs and relations, when only the touched rows of pairs (and the
    touched rows and columns of R) changed."""
    def matrix(cells, rows=None):
        M = np.zeros((7, 7))
        for r, c, v in cells:
            if r != c and (rows is None or r in rows):
                M[r, c] = v
        return M

    pairs_old = keep_nearest(sp.csr_array(matrix(old)), k).toarray()
    pairs_new = pairs_old.copy()
    changed = matrix(new, rows=touched)
    pairs_new[list(touched)] = keep_nearest(sp.csr_array(np.maximum(pairs_old, changed)), k).toarray()[
        list(touched)]
    R_old = matrix(relations)
    R_old = np.maximum(R_old, R_old.T)
    extra = matrix(more, rows=touched)  # new relation edges at touched nodes only
    R_new = np.maximum(R_old, np.maximum(extra, extra.T))
    S_old = synonymy_edges(sp.csr_array(pairs_old), sp.csr_array(R_old), max_synonyms=k)
    got = patch_synonymy_edges(S_old, sp.csr_array(pairs_new), sp.csr_array(R_new), sorted(touched))
    want = synonymy_edges(sp.csr_array(pairs_new), sp.csr_array(R_new), max_synonyms=k)
    np.testing.assert_array_equal(got.toarray(), want.toarray())
    assert got.has_canonical_format


def test_a_stored_zero_pair_is_no_edge_after_a_patch_either():
    """A pair stored with cosine 0 (possible at tau <= 0) is no edge in synonymy_edges; the patch
    recomputing a touched node's edges drops it the same way."""
    pairs = sp.csr_array((np.array([0.0, 0.0, 0.9, 0.9]), (np.array([0, 1, 1, 2]), np.array([1, 0, 2, 1]))),
                         shape=(3, 3))
    R = sp.csr_array((3, 3))
    want = synonymy_edges(pairs, R, max_synonyms=5)
    got = patch_synonymy_edges(sp.csr_array((3, 3)), pairs, R, [0, 1, 2])
    np.testing.assert_array_equal(got.toarray(), want.toarray())
    assert got.nnz == want.nnz == 2
