"""The peers the benchmark times against (pathfinding.bench.peers): the textbook scipy iteration is
the readable power iteration, and igraph and scikit-network answer the same query."""

import numpy as np
import pytest
import scipy.sparse as sp

from pathfinding.bench.config import N_ITER, RESTART_PROB
from pathfinding.bench.peers import igraph_methods, scipy_power_iteration, scipy_prepare, sknetwork_methods
from pathfinding.core.reference import ppr_linear_solve, ppr_power_iteration, transition_matrix
from pathfinding.synthetic.graphs import power_law_graph


@pytest.fixture(scope="module")
def graph():
    """A power-law graph with three isolated (dangling) nodes, so the returned-mass term counts."""
    return sp.csr_array(sp.block_diag([power_law_graph(60, 150, 1), sp.csr_array((3, 3))]))


def test_scipy_prepare_is_the_transposed_walk_matrix_and_its_dangling_nodes():
    A = sp.csr_array(np.array([[0.0, 2.0, 2.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]]))
    WT, dangling = scipy_prepare(A)
    np.testing.assert_array_equal(WT.toarray(), [[0.0, 1.0, 0.0], [0.5, 0.0, 0.0], [0.5, 0.0, 0.0]])
    assert dangling.tolist() == [2] and WT.has_sorted_indices
    W, is_dangling = transition_matrix(A)
    np.testing.assert_array_equal(WT.toarray(), W.T)
    np.testing.assert_array_equal(np.flatnonzero(is_dangling), dangling)


def test_scipy_peer_equals_reference_power_iteration(graph):
    n = graph.shape[0]
    r = np.zeros(n)
    r[[2, 61]] = 0.5  # node 61 is isolated
    WT, dangling = scipy_prepare(graph)
    assert {60, 61, 62} <= set(dangling.tolist())
    for a, k in ((0.5, 30), (0.15, 7), (0.85, 1)):
        got = scipy_power_iteration(WT, dangling, r, restart_prob=a, n_iter=k)
        assert np.abs(got - ppr_power_iteration(graph, r, restart_prob=a, n_iter=k)).sum() <= 1e-12
    default = scipy_power_iteration(WT, dangling, r)  # the benchmark's query: 30 steps at 0.5
    want = ppr_power_iteration(graph, r, restart_prob=RESTART_PROB, n_iter=N_ITER)
    assert np.abs(default - want).sum() <= 1e-12 and (RESTART_PROB, N_ITER) == (0.5, 30)


def _query(graph):
    n = graph.shape[0]
    seeds = np.array([2, 7])
    r = np.zeros(n)
    r[seeds] = 0.5
    return r, seeds


def test_igraph_answers_the_same_query(graph):
    pytest.importorskip("igraph")
    A = sp.csr_array(graph[:60, :60])
    r, seeds = _query(A)
    want = ppr_linear_solve(A, r, restart_prob=RESTART_PROB)
    methods = igraph_methods(A, r, seeds)
    assert sorted(methods) == ["igraph-prpack", "igraph-prpack-seeds"]
    for call in methods.values():
        assert np.abs(np.asarray(call()) - want).sum() <= 1e-9


def test_sknetwork_runs_the_same_thirty_iterations(graph):
    pytest.importorskip("sknetwork")
    A = sp.csr_array(graph[:60, :60])  # no dangling node: sknetwork and we agree on those without one
    r, _ = _query(A)
    (call,) = sknetwork_methods(A, r).values()
    want = ppr_power_iteration(A, r, restart_prob=RESTART_PROB, n_iter=N_ITER)
    assert np.abs(call() - want).sum() <= 1e-9


def test_a_missing_peer_is_an_import_error(monkeypatch):
    """The benchmark skips a peer whose library is absent by catching ImportError: nothing else."""
    import builtins

    real = builtins.__import__

    def no_peers(name, *args, **kw):
        if name.startswith(("igraph", "sknetwork")):
            raise ImportError(f"No module named {name!r}")
        return real(name, *args, **kw)

    monkeypatch.setattr(builtins, "__import__", no_peers)
    A = sp.csr_array(np.ones((3, 3)))
    with pytest.raises(ImportError):
        igraph_methods(A, np.full(3, 1 / 3), np.array([0]))
    with pytest.raises(ImportError):
        sknetwork_methods(A, np.full(3, 1 / 3))
