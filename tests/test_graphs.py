"""Seeded random graphs: exact edge counts, symmetric and loop-free, the skew of the power law, and a
request no draw can meet refused as a bad value."""

import numpy as np
import pytest
import scipy.sparse as sp

from pathfinding.errors import InvalidValueError
from pathfinding.synthetic.graphs import er_graph, power_law_graph


@pytest.mark.parametrize("build", [er_graph, power_law_graph])
@pytest.mark.parametrize(("n_nodes", "n_edges"), [(50, 200), (1000, 4000), (30, 435)])
def test_graph_sizes_symmetry_and_no_loops(build, n_nodes, n_edges):
    A = build(n_nodes, n_edges, np.random.default_rng(7))
    assert isinstance(A, sp.csr_array)
    assert A.shape == (n_nodes, n_nodes)
    assert A.nnz == 2 * n_edges  # exactly n_edges undirected edges, each stored twice
    assert (A != A.T).nnz == 0
    assert A.diagonal().sum() == 0
    assert np.all(A.data == 1.0)
    assert A.has_canonical_format


@pytest.mark.parametrize("build", [er_graph, power_law_graph])
def test_graphs_are_deterministic_for_a_seed(build):
    A, B, C = build(500, 2000, 3), build(500, 2000, 3), build(500, 2000, 4)
    assert (A != B).nnz == 0
    assert (A != C).nnz > 0
    np.testing.assert_array_equal(
        build(50, 200, rng=1).indices, build(50, 200, np.random.default_rng(1)).indices
    )


def test_power_law_degrees_are_skewed():
    deg_pl = power_law_graph(10_000, 40_000, 0).sum(axis=1)
    deg_er = er_graph(10_000, 40_000, 0).sum(axis=1)
    assert deg_pl.mean() == deg_er.mean() == 8.0
    assert deg_pl.max() > 50 * deg_pl.mean()
    assert deg_er.max() < 5 * deg_er.mean()


def test_complete_graph_is_reachable_when_the_draws_are_even():
    A = er_graph(12, 66, rng=0)
    assert A.nnz == 12 * 11


def test_builders_reject_impossible_sizes():
    with pytest.raises(InvalidValueError, match="n_edges must be at most"):
        er_graph(10, 46, 0)
    with pytest.raises(InvalidValueError, match="exponent"):
        power_law_graph(10, 5, 0, exponent=1.5)


def test_a_complete_graph_too_skewed_to_draw_is_a_bad_n_edges():
    """The rarest pair of a steep power law is almost never drawn: a complete graph on 300 nodes
    cannot be filled in 1000 rounds, and that is the caller's n_edges, not the machine's trouble."""
    with pytest.raises(InvalidValueError, match=r"^n_edges = 44850: could not draw .* on 300 nodes"):
        power_law_graph(300, 300 * 299 // 2, rng=0, exponent=2.01)
