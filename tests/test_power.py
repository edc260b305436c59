"""The binned layout, the threaded power iteration and the scipy walk: the numbers of the row-wise
kernels and of the readable twins."""

import json
import os
import subprocess
import sys

import numba
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from pathfinding.core import _kernels, reference
from pathfinding.core.ppr import personalized_pagerank, ppr_solve
from pathfinding.core.prepared import prepare_graph
from pathfinding.errors import ConvergenceWarning, InvalidValueError
from tests.strategies import restart_vectors, weighted_graphs

THREADS = min(2, numba.config.NUMBA_NUM_THREADS)


@given(graph=weighted_graphs(max_nodes=30), data=st.data(), n_iter=st.integers(1, 25))
def test_binned_power_iteration_matches_the_readable_one(graph, data, n_iter):
    r = data.draw(restart_vectors(graph.shape[0]))
    g = prepare_graph(graph, layout="binned")
    pi = ppr_solve(g, r, tol=0, max_iter=n_iter).pi
    np.testing.assert_allclose(pi, reference.ppr_power_iteration(graph, r, n_iter=n_iter), rtol=0, atol=1e-12)
    # the row-wise kernel adds the same terms in the same order: no rounding difference at all
    row_wise = ppr_solve(prepare_graph(graph, layout="csr"), r, tol=0, max_iter=n_iter).pi
    assert np.abs(pi - row_wise).sum() <= 1e-15


# few examples: every threaded iteration wakes numba's thread pool, slow on a loaded machine
@settings(max_examples=25)
@given(graph=weighted_graphs(max_nodes=30), data=st.data(), layout=st.sampled_from(["binned", "csr"]))
def test_threads_give_the_single_threaded_result(graph, data, layout):
    r = data.draw(restart_vectors(graph.shape[0]))
    g = prepare_graph(graph, layout=layout)
    one = ppr_solve(g, r, tol=0, max_iter=8).pi
    many = ppr_solve(g, r, tol=0, max_iter=8, threads=THREADS).pi
    if layout == "binned":
        np.testing.assert_array_equal(many, one)  # same bins, added in the same order
    else:
        np.testing.assert_allclose(many, one, rtol=0, atol=1e-15)  # only the dangling sum's order differs


@settings(max_examples=15)
@given(graph=weighted_graphs(max_nodes=30), data=st.data(), alpha=st.floats(0.3, 0.95))
def test_threaded_solve_meets_its_certified_bound(graph, data, alpha):
    r = data.draw(restart_vectors(graph.shape[0]))
    res = ppr_solve(graph, r, restart_prob=alpha, tol=1e-9, threads=THREADS)
    exact = reference.ppr_linear_solve(graph, r, restart_prob=alpha)
    assert res.converged
    assert np.abs(res.pi - exact).sum() <= res.error_bound + 1e-14
    single = ppr_solve(graph, r, restart_prob=alpha, tol=1e-9)
    assert np.abs(res.pi - single.pi).sum() <= res.error_bound + single.error_bound + 1e-14


@given(graph=weighted_graphs(max_nodes=20), width=st.integers(1, 5), cap=st.integers(1, 12))
def test_binned_layout_is_the_csr_regrouped(graph, width, cap):
    g = prepare_graph(graph, layout="csr", reorder=None)
    w = g.weights if not g.unit else np.zeros(0)
    bin_rows, src, dst, bw = _kernels.binned_layout(g.indptr, g.indices, w, not g.unit, width, cap)
    n = g.n_nodes
    assert bin_rows[0] == 0 and bin_rows[-1] == n and np.all(np.diff(bin_rows) >= 1)
    assert np.all(np.diff(bin_rows) <= width)
    for lo, hi in zip(bin_rows[:-1], bin_rows[1:], strict=True):
        a, b = int(g.indptr[lo]), int(g.indptr[hi])
        if hi - lo > 1:  # a bin grows past one row only while it stays under the edge cap
            assert b - a <= cap
        assert np.all(np.diff(src[a:b].astype(np.int64)) >= 0)  # sorted by source: x is swept in order
        got = sorted(zip((lo + dst[a:b]).tolist(), src[a:b].tolist(), strict=True))
        rows = np.repeat(np.arange(lo, hi), np.diff(g.indptr[lo : hi + 1].astype(np.int64)))
        assert got == sorted(zip(rows.tolist(), g.indices[a:b].tolist(), strict=True))
        if not g.unit:
            lookup = dict(
                zip(zip(rows.tolist(), g.indices[a:b].tolist(), strict=True), g.weights[a:b], strict=True)
            )
            assert all(lookup[(lo + d, s)] == x for d, s, x in zip(dst[a:b], src[a:b], bw[a:b], strict=True))


@given(graph=weighted_graphs(max_nodes=40), threads=st.integers(1, 5))
def test_thread_groups_deal_every_bin_once_and_balance_the_cost(graph, threads):
    from pathfinding.core.prepared import ROW_COST

    g = prepare_graph(graph, layout="binned")
    ptr, bins = g.thread_groups(threads)
    nb = g.bin_rows.size - 1
    assert ptr.size == threads + 1 and ptr[0] == 0 and ptr[-1] == nb
    assert sorted(bins.tolist()) == list(range(nb))
    cost = np.diff(g.indptr[g.bin_rows].astype(np.int64)) + ROW_COST * np.diff(g.bin_rows)
    load = [int(cost[bins[a:b]].sum()) for a, b in zip(ptr[:-1], ptr[1:], strict=True)]
    for a, b in zip(ptr[:-1], ptr[1:], strict=True):
        assert np.all(np.diff(bins[a:b]) > 0)  # each thread sweeps its bins in order
    # longest processing time first: the busiest thread took its last bin while it was the idlest
    assert max(load) - min(load) <= cost.max()
    assert g.thread_groups(threads)[1] is bins  # kept


def test_thread_groups_need_a_thread():
    g = prepare_graph(np.ones((3, 3)), layout="binned")
    with pytest.raises(ValueError, match="threads"):
        g.thread_groups(0)


def test_large_graphs_get_the_binned_layout_by_default():
    from pathfinding.core.prepared import BINNED_AUTO_MIN_NODES

    n = BINNED_AUTO_MIN_NODES
    i = np.arange(n)
    A = sp.csr_array((np.ones(2 * n), (np.r_[i, (i + 1) % n], np.r_[(i + 1) % n, i])), shape=(n, n))
    g = prepare_graph(A)
    assert g.bin_rows is not None and np.all(np.diff(g.bin_rows) <= 1 << 16)
    assert prepare_graph(A[: n - 1, : n - 1]).bin_rows is None
    assert prepare_graph(A, layout="csr").bin_rows is None


def test_a_threaded_solve_on_a_csr_graph_builds_its_bins_once():
    n = 1000
    i = np.arange(n)
    A = sp.csr_array((np.ones(2 * n), (np.r_[i, (i + 1) % n], np.r_[(i + 1) % n, i])), shape=(n, n))
    g = prepare_graph(A, layout="csr")
    one = ppr_solve(g, [0, 500], tol=0, max_iter=20).pi
    assert g.bin_rows is None and "bins" not in g._cache  # one thread: the row-wise kernel
    many = ppr_solve(g, [0, 500], tol=0, max_iter=20, threads=THREADS).pi
    bins = g.bins()
    assert g.bins()[0] is bins[0] and len(bins[0]) - 1 >= 8  # kept; an eighth of the edges at most per bin
    np.testing.assert_array_equal(bins[0], prepare_graph(A, layout="binned").bin_rows)
    np.testing.assert_allclose(many, one, rtol=0, atol=1e-15)


def test_meet_node_toy_with_threads():
    from pathfinding.synthetic.toy import meet_node_toy

    toy = meet_node_toy()
    pi = personalized_pagerank(toy.graph, toy.seeds, tol=1e-12, threads=THREADS)
    np.testing.assert_allclose(pi, [1 / 3, 1 / 3, 1 / 6, 1 / 12, 1 / 12], atol=1e-11)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"threads": 0}, ValueError, r"threads must be in \[1, "),
        ({"threads": 1.5}, TypeError, "threads must be an integer, got 1.5"),
        ({"threads": numba.config.NUMBA_NUM_THREADS + 1}, ValueError, "threads must be in"),
        ({"threads": 2, "method": "gauss-seidel"}, ValueError, "got method='gauss-seidel'"),
    ],
)
def test_bad_threads(kwargs, error, match):
    if kwargs.get("threads") == 2 and numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("needs two numba threads")
    with pytest.raises(error, match=match):
        ppr_solve(np.ones((3, 3)), [0], **kwargs)


def test_threads_refuse_a_block_and_layout_is_checked():
    if numba.config.NUMBA_NUM_THREADS >= 2:
        with pytest.raises(ValueError, match="got a block of 2"):
            ppr_solve(np.ones((3, 3)), np.full((3, 2), 1 / 3), threads=2)
    with pytest.raises(ValueError, match="layout must be 'auto', 'csr' or 'binned', got 'blocked'"):
        prepare_graph(np.ones((3, 3)), layout="blocked")


SCRIPT = """
import json, numpy as np
from pathfinding.synthetic.graphs import power_law_graph
from pathfinding.core.ppr import ppr_solve, prepare_graph
A = power_law_graph(300, 1200, rng=3)
A.data = np.random.default_rng(0).random(A.nnz) + 0.5
A = A + A.T
g = prepare_graph(A, layout="binned")
print(json.dumps({"one": ppr_solve(g, [1, 5], tol=0, max_iter=15).pi.tolist(),
                  "two": ppr_solve(g, [1, 5], tol=1e-10, threads=2).pi.tolist()}))
"""


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs two numba threads")
def test_binned_kernels_agree_with_and_without_jit():
    out = {}
    for flag in ("0", "1"):
        env = dict(os.environ, NUMBA_DISABLE_JIT=flag)
        proc = subprocess.run(
            [sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, check=True
        )
        out[flag] = json.loads(proc.stdout)
    for key in out["0"]:
        np.testing.assert_allclose(out["0"][key], out["1"][key], rtol=0, atol=1e-13, err_msg=key)


POOL = """
import json, numpy as np, scipy.sparse as sp
import numba.np.ufunc.parallel as pool
from pathfinding.core.ppr import ppr_solve, prepare_graph
A = sp.random_array((40, 40), density=0.2, random_state=1)
g = prepare_graph(A + A.T, layout="binned")
one = ppr_solve(g, [3], tol=0, max_iter=5).pi
out = {"pool_after_one": pool._is_initialized}
two = ppr_solve(g, [3], tol=0, max_iter=5, threads=2).pi
print(json.dumps(out | {"pool_after_two": pool._is_initialized, "equal": bool(np.array_equal(one, two))}))
"""


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs two numba threads")
def test_the_one_thread_binned_solve_never_starts_numbas_thread_pool():
    """A fresh process: the one-thread binned solve does not start numba's thread pool (its kernel
    is compiled without the threaded sweep); threads=2 does, and gives the same numbers."""
    proc = subprocess.run([sys.executable, "-c", POOL], capture_output=True, text=True, check=True)
    assert json.loads(proc.stdout) == {"pool_after_one": False, "pool_after_two": True, "equal": True}


# --- the scipy walk (method="scipy"): the same map with scipy's product ----------------------------


@settings(max_examples=40)
@given(data=st.data())
def test_scipy_walk_is_the_walk_within_its_bound(data):
    A = data.draw(weighted_graphs())
    r = data.draw(restart_vectors(A.shape[0]))
    res = ppr_solve(A, r, tol=1e-12, method="scipy")
    assert res.converged and res.error_bound <= 1e-12
    assert np.abs(res.pi - reference.ppr_linear_solve(A, r)).sum() <= 1e-12 + 1e-13


@given(graph=weighted_graphs(max_nodes=15), data=st.data(), n_iter=st.integers(1, 12))
def test_scipy_walk_takes_the_readable_iterations_step_for_step(graph, data, n_iter):
    r = data.draw(restart_vectors(graph.shape[0]))
    res = ppr_solve(graph, r, tol=0, max_iter=n_iter, method="scipy")
    assert res.iterations == n_iter
    np.testing.assert_allclose(res.pi, reference.ppr_power_iteration(graph, r, n_iter=n_iter), atol=1e-13)


def test_scipy_walk_returns_the_mass_of_a_dangling_node_to_the_restart():
    """0 -> 1 and node 1 has no out-edge. From pi = (1, 0) at restart 0.5: (1/2, 1/2), then 1/2 r +
    1/2 (W^T pi + pi_1 r) = (1/2 + 1/4, 1/4); the fixed point is (2/3, 1/3), which sums to 1 only
    because node 1's mass goes back to node 0 each step."""
    A = sp.csr_array(np.array([[0.0, 1.0], [0.0, 0.0]]))
    for n_iter, want in [(1, [0.5, 0.5]), (2, [0.75, 0.25])]:
        res = ppr_solve(A, [0], tol=0, max_iter=n_iter, method="scipy")
        np.testing.assert_allclose(res.pi, want, rtol=0, atol=1e-15)
    res = ppr_solve(A, [0], tol=1e-13, method="scipy")
    np.testing.assert_allclose(res.pi, [2 / 3, 1 / 3], rtol=0, atol=1e-12)


def test_scipy_walk_runs_one_vector_on_one_thread():
    A = sp.csr_array(np.array([[0.0, 1.0], [1.0, 0.0]]))
    if numba.config.NUMBA_NUM_THREADS >= 2:
        with pytest.raises(InvalidValueError, match="got method='scipy'"):
            ppr_solve(A, [0], method="scipy", threads=2)
    exact = ppr_solve(A, [0], method="scipy", tol=0, max_iter=3)  # tol=0: exactly max_iter steps
    assert exact.iterations == 3 and exact.error_bound == np.inf
    with pytest.warns(ConvergenceWarning, match="did not reach tol=1e-09 in max_iter=1"):
        assert ppr_solve(A, [0], method="scipy", tol=1e-9, max_iter=1).iterations == 1  # max_iter caps a tol
