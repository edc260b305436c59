"""The prepared graph's derived layouts, each against a hand computation.

A mutation run over ``core/prepared.py`` left alive changes to :meth:`PPRGraph.forward_csr` (the
forward CSR of a directed graph: its shape inferred from the indices, its dtypes, the weights of a
unit graph, the cache) and to :meth:`PPRGraph.thread_groups` (the cost of a bin, the order bins are
dealt in, the load update, each group's order, one cache slot for every thread count). The property
tests in ``test_power.py`` check invariants that these changes keep; here every number is
written out by hand.
"""

import numpy as np
import pytest
import scipy.sparse as sp

from pathfinding.core.prepared import REORDER_AUTO_MIN_NODES, ROW_COST, prepare_graph

# A directed weighted graph whose last node is a sink: nobody's in-neighbour, so the stored pull CSR
# never names it as a column.
DIRECTED = np.array(
    [
        [0.0, 2.0, 0.5, 0.0],
        [0.0, 0.0, 3.0, 1.0],
        [1.5, 0.0, 0.0, 4.0],
        [0.0, 0.0, 0.0, 0.0],
    ]
)


def test_forward_csr_of_a_directed_weighted_graph_lists_out_edges_by_hand():
    """Row u of the forward CSR lists u's out-neighbours and weights, read off the matrix above.

    Pins the transpose's shape (the sink's empty row is still there), the stored index dtypes, the
    weights, and that the result is built once and kept.
    """
    g = prepare_graph(sp.csr_array(DIRECTED), reorder=None)
    assert not g.symmetric and not g.unit
    indptr, indices, weights = g.forward_csr()
    assert indptr.tolist() == [0, 2, 4, 6, 6]
    assert indices.tolist() == [1, 2, 2, 3, 0, 3]
    assert weights.tolist() == [2.0, 0.5, 3.0, 1.0, 1.5, 4.0]
    assert indptr.dtype == g.indptr.dtype == np.uint32
    assert indices.dtype == g.indices.dtype == np.uint32
    again = g.forward_csr()
    assert all(a is b for a, b in zip(again, (indptr, indices, weights), strict=True))


def test_forward_csr_in_the_internal_order_equals_scipy_on_the_permuted_matrix():
    """With ``reorder="degree"`` the forward CSR is A[order][:, order] (scipy), in-degree order.

    The in-degrees of DIRECTED are 1, 1, 2, 2, so the stable decreasing order is nodes 2, 3, 0, 1.
    """
    g = prepare_graph(sp.csr_array(DIRECTED), reorder="degree")
    assert g.order.tolist() == [2, 3, 0, 1]
    want = sp.csr_array(DIRECTED)[g.order][:, g.order]
    want.sort_indices()
    indptr, indices, weights = g.forward_csr()
    assert indptr.tolist() == want.indptr.tolist()
    assert indices.tolist() == want.indices.tolist()
    assert weights.tolist() == want.data.tolist()


def test_forward_csr_of_a_directed_unit_graph_has_no_weights():
    """A unit graph's weights are never read: its forward CSR carries an empty weight array."""
    g = prepare_graph(sp.csr_array((DIRECTED > 0).astype(float)), reorder=None)
    assert g.unit and not g.symmetric
    indptr, indices, weights = g.forward_csr()
    assert indptr.tolist() == [0, 2, 4, 6, 6]
    assert indices.tolist() == [1, 2, 2, 3, 0, 3]
    assert weights.size == 0


def test_forward_csr_of_an_undirected_graph_is_the_stored_csr():
    """An undirected graph is its own transpose: the stored arrays themselves, no copy."""
    g = prepare_graph(sp.csr_array(DIRECTED + DIRECTED.T), reorder=None)
    assert g.symmetric
    got = g.forward_csr()
    assert got[0] is g.indptr and got[1] is g.indices and got[2] is g.weights


# In-neighbours of each node (row i of the pull CSR). In-degrees 6, 1, 0, 1, 3, 0, 0, 5: 16 edges,
# so a multi-row bin holds at most ceil(16 / 8) = 2 edges. Bins by hand:
#   bin 0: row 0      6 edges, 1 row  -> cost 6 + 6*1 = 12
#   bin 1: rows 1-3   2 edges, 3 rows -> cost 2 + 6*3 = 20
#   bin 2: row 4      3 edges, 1 row  -> cost 3 + 6*1 = 9
#   bin 3: rows 5-6   0 edges, 2 rows -> cost 0 + 6*2 = 12
#   bin 4: row 7      5 edges, 1 row  -> cost 5 + 6*1 = 11
IN_NEIGHBOURS = {0: [1, 2, 3, 4, 5, 6], 1: [0], 3: [7], 4: [0, 1, 2], 7: [0, 2, 3, 4, 5]}


def _binned_graph():
    A = np.zeros((8, 8))
    for dst, sources in IN_NEIGHBOURS.items():
        A[sources, dst] = 1.0
    g = prepare_graph(sp.csr_array(A), reorder=None, layout="binned")
    assert not g.symmetric and g.unit
    assert g.bin_rows.tolist() == [0, 1, 4, 5, 7, 8]
    assert g.weights.size == g.bin_weights.size == 0  # a unit graph stores no weights
    return g


def test_thread_groups_deal_bins_longest_first_by_hand():
    """Longest processing time first on the five bins above, with ROW_COST = 6 per row.

    Order by decreasing cost, ties in bin order: 1 (20), 0 (12), 3 (12), 4 (11), 2 (9).
    Two threads: 1 -> t0 (20, 0); 0 -> t1 (20, 12); 3 -> t1 (20, 24); 4 -> t0 (31, 24); 2 -> t1.
    Groups {1, 4} and {3, 0, 2}, each swept in increasing bin order.
    Three threads: 1 -> t0, 0 -> t1, 3 -> t2 (20, 12, 12); 4 -> t1, the first of the idlest (20, 23, 12);
    2 -> t2. Groups {1}, {0, 4}, {2, 3}.
    Counting edges only, or a cost of ROW_COST per edge, deals them differently.
    """
    assert ROW_COST == 6
    g = _binned_graph()
    ptr, bins = g.thread_groups(2)
    assert ptr.tolist() == [0, 2, 5] and bins.tolist() == [1, 4, 0, 2, 3]
    assert ptr.dtype == bins.dtype == np.int64
    ptr3, bins3 = g.thread_groups(3)  # its own cache slot, not the two-thread deal
    assert ptr3.tolist() == [0, 1, 3, 5] and bins3.tolist() == [1, 0, 4, 2, 3]
    assert g.thread_groups(1)[1].tolist() == [0, 1, 2, 3, 4]
    assert g.thread_groups(2)[1] is bins  # kept


def test_thread_groups_deal_ties_in_bin_order():
    """Bins of equal cost are dealt in increasing bin order (a stable sort), so every machine deals
    them alike.

    Eight nodes with in-degrees 0, 3, 0, 3, 3, 0, 3, 2 (14 edges, an edge cap of 2 that no two rows
    fit under): one bin a row, costing 6, 9, 6, 9, 9, 6, 9, 8. Dealt 1, 3, 4, 6 (9), 7 (8), 0, 2, 5
    (6) to two threads: 1 -> t0, 3 -> t1, 4 -> t0, 6 -> t1 (18, 18), 7 -> t0 (26, 18), 0 -> t1,
    2 -> t1 (26, 30), 5 -> t0. NumPy's default sort may order the ties 1, 3, 6, 4, ... and deal
    other bins.
    """
    A = np.zeros((8, 8))
    for dst in (1, 3, 4, 6):
        A[[0, 2, 5], dst] = 1.0
    A[[0, 2], 7] = 1.0
    g = prepare_graph(sp.csr_array(A), reorder=None, layout="binned")
    assert g.bin_rows.tolist() == list(range(9))
    ptr, bins = g.thread_groups(2)
    assert ptr.tolist() == [0, 4, 8]
    assert bins.tolist() == [1, 4, 5, 7, 0, 2, 3, 6]


def test_thread_groups_name_the_thread_count_when_it_is_not_positive():
    """The error names ``threads`` and the bound it broke."""
    g = _binned_graph()
    with pytest.raises(ValueError, match=r"^threads must be in \[1, inf\], got 0$"):
        g.thread_groups(0)


def test_prepare_graph_names_the_graph_in_its_errors():
    """A non-square matrix is reported as ``graph``, the parameter's name."""
    with pytest.raises(ValueError, match=r"^graph must be square, got shape \(2, 3\)$"):
        prepare_graph(np.ones((2, 3)))


def test_bins_cut_at_the_row_cap_and_the_edge_cap_by_hand():
    """Bins hold at most 65,536 rows, and at most ceil(nnz / 8) edges when they span several rows.

    70,000 nodes and one edge (0 -> 69,999): the edge cap is 1, never reached, so the row cap cuts
    the rows into [0, 65536) and [65536, 70000). Four nodes with in-degrees 1, 1, 0, 1 (3 edges): the
    edge cap is ceil(3 / 8) = 1, so rows 0 | 1-2 | 3. Seventeen edges over nine nodes, in-degrees
    2, 1, 2, 2, 2, 2, 2, 2, 2: ceil(17 / 8) = 3, so rows 0-1 | 2 | 3 | ... | 8, where a cap of
    ceil(17 / 9) = 2 would keep row 0 alone.
    """
    n = 70_000
    wide = prepare_graph(sp.csr_array(([1.0], ([0], [n - 1])), shape=(n, n)), reorder=None, layout="binned")
    assert wide.bin_rows.tolist() == [0, 65_536, n]
    assert np.diff(wide.bin_rows).max() <= 1 << 16

    A = np.zeros((4, 4))
    A[[1, 0, 1], [0, 1, 3]] = 1.0  # in-neighbours: 0 <- 1, 1 <- 0, 3 <- 1
    small = prepare_graph(sp.csr_array(A), reorder=None, layout="binned")
    assert not small.symmetric and small.n_edges == 3
    assert small.bin_rows.tolist() == [0, 1, 3, 4]

    B = np.zeros((9, 9))
    for dst in range(9):
        sources = [(dst + 1) % 9] if dst == 1 else [(dst + 1) % 9, (dst + 2) % 9]
        B[sources, dst] = 1.0
    nine = prepare_graph(sp.csr_array(B), reorder=None, layout="binned")
    assert not nine.symmetric and nine.n_edges == 17
    assert nine.bin_rows.tolist() == [0, 2, 3, 4, 5, 6, 7, 8, 9]


def test_bins_built_on_demand_for_a_unit_graph_carry_no_weights():
    """A unit graph prepared without bins builds them on first use, with an empty weight array (its
    weights are never read, and it stores none to copy from)."""
    g = prepare_graph(sp.csr_array((DIRECTED > 0).astype(float)), reorder=None, layout="csr")
    assert g.unit and g.bin_rows is None
    rows, src, dst, weights = g.bins()
    assert rows[0] == 0 and rows[-1] == 4 and src.size == dst.size == g.n_edges
    assert weights.size == 0
    assert g.bins()[0] is rows  # kept


def test_an_undirected_graph_with_two_components_becomes_two_blocks_by_hand():
    """``reorder="auto"`` relabels a small undirected graph with more than one component: each
    component a contiguous block of rows, by decreasing degree inside it (ties by node id).

    Components {0, 3, 5} (edges 0-3, 3-5; node 3 of degree 2) and {1, 2, 4, 6} (edges 1-4, 2-4,
    4-6; node 4 of degree 3): order 3, 0, 5 | 4, 1, 2, 6, blocks [0, 3) and [3, 7). A walk from
    node 2 (internal row 5) sweeps only the second block.
    """
    A = np.zeros((7, 7))
    for u, v in [(0, 3), (3, 5), (1, 4), (2, 4), (4, 6)]:
        A[u, v] = A[v, u] = 1.0
    g = prepare_graph(sp.csr_array(A))
    assert g.symmetric
    assert g.order.tolist() == [3, 0, 5, 4, 1, 2, 6]
    assert g.component_ptr.tolist() == [0, 3, 7]
    assert g.internal_ids(np.array([2])).tolist() == [5]
    assert g.sweep_blocks(np.array([5])).tolist() == [[3, 7]]


def test_a_small_directed_graph_keeps_its_node_order():
    """Components are blocks only for an undirected graph: a small directed graph with two (weak)
    components keeps its node ids under ``reorder="auto"`` and sweeps every row."""
    A = np.zeros((4, 4))
    A[0, 1] = A[2, 3] = 1.0
    g = prepare_graph(sp.csr_array(A))
    assert not g.symmetric
    assert g.order is None and g.component_ptr is None
    assert g.sweep_blocks(np.array([3])).tolist() == [[0, 4]]


def test_prepare_graph_rejects_an_empty_graph_by_name():
    """A 0 x 0 matrix is refused with a message that names ``graph``."""
    with pytest.raises(ValueError, match=r"^graph must have at least one node, got shape \(0, 0\)$"):
        prepare_graph(sp.csr_array((0, 0)))


def test_auto_reorder_starts_at_exactly_twenty_thousand_nodes():
    """``reorder="auto"`` relabels a connected graph "of at least 20,000 nodes": a path of exactly
    REORDER_AUTO_MIN_NODES nodes is reordered (its two ends, of degree 1, go last), one node fewer is not."""
    for n, reordered in [(REORDER_AUTO_MIN_NODES, True), (REORDER_AUTO_MIN_NODES - 1, False)]:
        path = sp.diags_array([np.ones(n - 1), np.ones(n - 1)], offsets=[-1, 1], shape=(n, n)).tocsr()
        g = prepare_graph(path)
        assert g.symmetric and g.component_ptr is None
        assert (g.order is not None) == reordered
        if reordered:
            assert g.order[-2:].tolist() == [0, n - 1]
