"""Table 5's "R_q nodes & neighbours" as HippoRAG v1 computes it, against a loop over adjacency sets."""

import numpy as np
import pytest
from hypothesis import given

from pathfinding.core.scoring import NODE_SCORERS, query_two_hop_scores
from pathfinding.synthetic.rankers import RANKERS
from pathfinding.synthetic.toy import meet_node_toy

from .strategies import restart_vectors, weighted_graphs


def _v1_neighbor_2(adjacency, restart):
    """v1's get_neighbors(prob_vector, 2), restated with Python sets over an undirected graph."""
    A = adjacency.toarray()
    nbrs = [set(np.flatnonzero((A[i] > 0) | (A[:, i] > 0)).tolist()) for i in range(A.shape[0])]
    out = np.array(restart, dtype=np.float64)
    seeds = np.flatnonzero(out > 0)
    bump = 0.5 * out[seeds].min()
    for s in seeds:
        hood, frontier = set(), {int(s)}
        for _ in range(2):
            nxt = set()
            for node in frontier:
                nxt |= nbrs[node]
            hood |= nxt
            frontier = nxt
        for i in hood:
            out[i] += bump
    return out


def test_meet_node_toy_literal():
    toy = meet_node_toy()
    # u, w: their own bump from the other's hood too (u -> a -> w); a: both hoods; b, c: one each.
    np.testing.assert_allclose(query_two_hop_scores(toy.graph, [0.5, 0.5, 0, 0, 0]), [1, 1, 0.5, 0.25, 0.25])
    # specificity-weighted seeds: the bump is half the *smallest* seed weight
    np.testing.assert_allclose(
        query_two_hop_scores(toy.graph, [0.8, 0.2, 0, 0, 0]), [1.0, 0.4, 0.2, 0.1, 0.1]
    )


@given(weighted_graphs(max_nodes=10, symmetric=True), restart_vectors(10))
def test_matches_v1_loops(graph, r):
    r = r[: graph.shape[0]]
    if not np.any(r > 0):
        r = np.zeros(graph.shape[0])
        r[0] = 1.0
    np.testing.assert_allclose(query_two_hop_scores(graph, r), _v1_neighbor_2(graph, r), atol=1e-12)


def test_reaches_two_hops_where_one_hop_does_not():
    # chain 0 - 1 - 2 - 3: two hops from 0 reach 2; the one-hop variant stops at 1
    import scipy.sparse as sp

    A = sp.csr_array(np.diag(np.ones(3), 1) + np.diag(np.ones(3), -1))
    r = np.array([1.0, 0, 0, 0])
    assert query_two_hop_scores(A, r)[2] > 0 and query_two_hop_scores(A, r)[3] == 0
    assert NODE_SCORERS["rq_neighbours"](A, r)[2] == 0


def test_one_dispatch_for_instances_and_retriever():
    toy = meet_node_toy()
    assert set(RANKERS) - {"mention_count", "ppr_no_specificity"} <= set(NODE_SCORERS)
    with pytest.raises(ValueError, match="at least one positive"):
        query_two_hop_scores(toy.graph, np.zeros(5))
