"""Seeded random graphs: exact edge counts, and a request no draw can meet refused as a bad value."""

import numpy as np
import pytest

from pathfinding.errors import InvalidValueError
from pathfinding.synthetic.graphs import er_graph, power_law_graph


@pytest.mark.parametrize("make", [er_graph, power_law_graph])
def test_exactly_the_edges_asked_for_symmetric_and_loop_free(make):
    A = make(50, 200, rng=1)
    assert A.nnz == 400 and (A != A.T).nnz == 0 and A.diagonal().sum() == 0
    B = make(50, 200, rng=1)
    np.testing.assert_array_equal(A.indices, B.indices)


def test_complete_graph_is_reachable_when_the_draws_are_even():
    A = er_graph(12, 66, rng=0)
    assert A.nnz == 12 * 11


def test_a_complete_graph_too_skewed_to_draw_is_a_bad_n_edges():
    """The rarest pair of a steep power law is almost never drawn: a complete graph on 300 nodes
    cannot be filled in 1000 rounds, and that is the caller's n_edges, not the machine's trouble."""
    with pytest.raises(InvalidValueError, match=r"^n_edges = 44850: could not draw .* on 300 nodes"):
        power_law_graph(300, 300 * 299 // 2, rng=0, exponent=2.01)
