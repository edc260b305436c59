"""The benchmark harness: graph builders, the scipy peer, the bandwidth probe and the command.

Nothing here asserts a timing: the machine is shared and noisy, so only shapes, invariants and the
correctness of what gets timed are checked.
"""

import math

import numpy as np
import pytest
import scipy.sparse as sp

from pathfinding import bench
from pathfinding.bench.large import TARGET_THREADS, TARGET_VS_SCIPY, large_targets
from pathfinding.bench.targets import evaluate_targets
from pathfinding.core.reference import ppr_power_iteration
from pathfinding.synthetic import graphs


@pytest.mark.parametrize("build", [graphs.er_graph, graphs.power_law_graph])
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


@pytest.mark.parametrize("build", [graphs.er_graph, graphs.power_law_graph])
def test_graphs_are_deterministic_for_a_seed(build):
    A, B, C = build(500, 2000, 3), build(500, 2000, 3), build(500, 2000, 4)
    assert (A != B).nnz == 0
    assert (A != C).nnz > 0


def test_power_law_degrees_are_skewed():
    deg_pl = graphs.power_law_graph(10_000, 40_000, 0).sum(axis=1)
    deg_er = graphs.er_graph(10_000, 40_000, 0).sum(axis=1)
    assert deg_pl.mean() == deg_er.mean() == 8.0
    assert deg_pl.max() > 50 * deg_pl.mean()
    assert deg_er.max() < 5 * deg_er.mean()


def test_builders_reject_impossible_sizes():
    with pytest.raises(ValueError, match="n_edges must be at most"):
        graphs.er_graph(10, 46, 0)
    with pytest.raises(ValueError, match="exponent"):
        graphs.power_law_graph(10, 5, 0, exponent=1.5)


def test_scipy_peer_equals_reference_power_iteration():
    # a graph with isolated (dangling) nodes, so the returned-mass term is exercised
    A = sp.csr_array(sp.block_diag([graphs.power_law_graph(60, 150, 1), sp.csr_array((3, 3))]))
    n = A.shape[0]
    r = np.zeros(n)
    r[[2, 61]] = 0.5  # node 61 is isolated
    WT, dangling = bench.scipy_prepare(A)
    assert dangling.size >= 3
    got = bench.scipy_power_iteration(WT, dangling, r, restart_prob=0.5, n_iter=30)
    want = ppr_power_iteration(A, r, restart_prob=0.5, n_iter=30)
    assert np.abs(got - want).sum() <= 1e-12


def test_stream_probe_gives_a_positive_finite_bandwidth():
    probe = bench.stream_bandwidth(megabytes=8, trials=2)
    for key in ("copy_GBps", "triad_GBps", "bandwidth_GBps"):
        assert math.isfinite(probe[key]) and probe[key] > 0


def _graph_result(ratio, l1, igraph_ratio, ours_l1, igraph_l1):
    return {
        "methods": {
            "ours-30": {"l1_vs_scipy_30": l1},
            "ours-tol": {"l1_vs_reference": ours_l1},
            "scipy-30": {"ratio": ratio},
            "igraph-prpack": {"ratio": igraph_ratio, "median_ms": 1.0, "l1_vs_reference": igraph_l1},
        }
    }


def test_targets_pass_and_fail_on_the_numbers():
    graphs = {
        "power-law": _graph_result(2.0, 1e-12, 3.0, 1e-11, 1e-11),  # exactly at every threshold
        "ER": _graph_result(1.49, 1e-13, 5.0, 2e-11, 1e-11),  # too slow; igraph more accurate
    }
    status = {
        (t["graph"], t["target"].split()[0] + t["target"].split()[1]): t["status"]
        for t in evaluate_targets(graphs, None, None)
    }
    assert status == {
        ("power-law", "ours-30>="): "PASS",
        ("ER", "ours-30>="): "FAIL",
        ("power-law", "ours-tol>="): "PASS",
        ("ER", "ours-tol>="): "FAIL",
        ("power-law", "oursahead"): "PASS",
        ("ER", "oursahead"): "PASS",
    }
    graphs["ER"]["methods"]["scipy-30"]["ratio"] = 0.9
    ahead = [t for t in evaluate_targets(graphs, None, None) if t["target"].startswith("ours ahead")]
    assert [t["status"] for t in ahead] == ["PASS", "FAIL"] and "0.90x (scipy-30)" in ahead[1]["measured"]


def _row(**over):
    row = {
        "graph": "ER",
        "n_edges": 10_000_000,
        "threads": 2,
        "scipy_over_ours": {"median": 1.6, "min": 1.4, "max": 1.8, "quiet_n": 0},
        "single_over_threads": {"median": 1.7, "min": 1.5, "max": 1.9, "quiet_n": 0},
        "l1_ours_vs_scipy": 1e-16,
        "threads_equal_single": True,
    }
    row.update(over)
    return row


def test_bench_targets_come_from_the_measured_ratios():
    assert [t["status"] for t in large_targets([_row()])] == ["PASS", "PASS"]
    slow = _row(scipy_over_ours={"median": TARGET_VS_SCIPY - 0.01, "min": 1.0, "max": 2.0, "quiet_n": 0})
    assert [t["status"] for t in large_targets([slow])] == ["FAIL", "PASS"]
    flat = _row(single_over_threads={"median": TARGET_THREADS - 0.01, "min": 1.0, "max": 2.0, "quiet_n": 0})
    assert [t["status"] for t in large_targets([flat])] == ["PASS", "FAIL"]
    assert [t["status"] for t in large_targets([_row(threads_equal_single=False)])] == ["PASS", "FAIL"]
    assert [t["status"] for t in large_targets([_row(l1_ours_vs_scipy=1e-9)])] == ["FAIL", "PASS"]
    # below 10^7 edges only the threads target applies, below 10^6 none
    assert len(large_targets([_row(n_edges=1_000_000)])) == 1 and large_targets([_row(n_edges=999_999)]) == []
