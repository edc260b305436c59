"""Each compiled kernel against its readable twin in pathfinding.core.reference, called on raw arrays."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

from pathfinding._validation import as_csr
from pathfinding.core import _kernels, _push, reference
from pathfinding.core.prepared import prepare_graph
from tests.strategies import restart_vectors, weighted_graphs

alphas = st.sampled_from([0.15, 0.5, 0.85])


@st.composite
def nearly_symmetric_graphs(draw):
    """Symmetric graphs, and symmetric graphs with one entry changed, dropped or added."""
    A = draw(weighted_graphs(symmetric=True)).toarray()
    n = A.shape[0]
    change = draw(st.sampled_from(["none", "reweight", "add"]))
    i, j = draw(st.integers(0, n - 1)), draw(st.integers(0, n - 1))
    if change == "reweight" and A[i, j] > 0 and i != j:
        A[i, j] *= 2.0
    elif change == "add" and i != j:
        A[i, j] += 1.0
    return sp.csr_array(A)


@given(graph=nearly_symmetric_graphs())
def test_is_symmetric_matches_dense_twin(graph):
    A = as_csr("graph", graph)
    assert _kernels.is_symmetric(A.indptr, A.indices, A.data) == reference.is_symmetric_dense(A)


@given(graph=weighted_graphs(), data=st.data(), with_data=st.booleans())
def test_permute_csr_matches_dense_twin(graph, data, with_data):
    A = as_csr("graph", graph)
    n = A.shape[0]
    order = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1))).permutation(n)
    indptr, indices, values = _kernels.permute_csr(
        A.indptr, A.indices, A.data, order, np.zeros(1, np.uint32), with_data
    )
    assert indices.dtype == np.uint32
    for k in range(n):  # every row's columns stay sorted
        assert np.all(np.diff(indices[indptr[k] : indptr[k + 1]].astype(np.int64)) > 0)
    weights = values if with_data else np.ones(indices.size)
    got = sp.csr_array((weights, indices.astype(np.int64), indptr), shape=(n, n)).toarray()
    want = reference.relabel_dense(A, order)
    np.testing.assert_array_equal(got, want if with_data else (want > 0).astype(float))


@given(graph=weighted_graphs(), data=st.data(), unit=st.booleans())
def test_pull_matches_matvec_loops(graph, data, unit):
    M = as_csr("graph", graph)
    if unit:
        M.data[:] = 1.0
    x = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1))).random(M.shape[0])
    got = _kernels.pull(M.indptr, M.indices, M.data, unit, x)
    np.testing.assert_allclose(got, reference.matvec_loops(M, x), rtol=1e-13, atol=1e-15)


@given(graph=weighted_graphs(max_nodes=8), data=st.data(), b=st.integers(1, 4), alpha=alphas)
def test_power_block_matches_columnwise_twin(graph, data, b, alpha):
    n = graph.shape[0]
    R = np.column_stack([data.draw(restart_vectors(n)) for _ in range(b)])
    n_iter = data.draw(st.integers(1, 25))
    g = prepare_graph(graph, reorder=None)
    pi, it, _ = _kernels.ppr_power_block(
        g.indptr, g.indices, g.weights, g.unit, g.inv_out, np.ascontiguousarray(R), alpha, -1.0, n_iter
    )
    assert it == n_iter
    want = reference.ppr_power_iteration_block(graph, R, alpha, n_iter)
    np.testing.assert_allclose(pi, want, rtol=0, atol=1e-13)


@given(graph=weighted_graphs(max_nodes=8), data=st.data(), alpha=alphas, sweeps=st.integers(1, 6))
def test_gauss_seidel_sweeps_match_readable_sweeps(graph, data, alpha, sweeps):
    n = graph.shape[0]
    r = data.draw(restart_vectors(n))
    g = prepare_graph(graph, reorder=None)  # sweep in node-id order, as the twin does
    x = r.copy()
    blocks = np.array([[0, n]], dtype=np.int64)
    it, _, total = _kernels.ppr_gauss_seidel(
        g.indptr, g.indices, g.weights, g.unit, g.inv_out, r, x, alpha, 0.0, sweeps, blocks
    )
    want = reference.gauss_seidel_sweeps(graph, r, alpha, sweeps)
    np.testing.assert_allclose(x, want, rtol=0, atol=1e-13)
    assert abs(total - want.sum()) <= 1e-13
    assert it <= sweeps


@given(graph=weighted_graphs(max_nodes=8), data=st.data(), alpha=alphas)
def test_readable_gauss_seidel_converges_to_the_linear_solve(graph, data, alpha):
    r = data.draw(restart_vectors(graph.shape[0]))
    x = reference.gauss_seidel_sweeps(graph, r, alpha, 200)
    np.testing.assert_allclose(x / x.sum(), reference.ppr_linear_solve(graph, r, alpha), atol=1e-10)


@given(
    graph=weighted_graphs(max_nodes=8), data=st.data(), alpha=alphas, eps=st.sampled_from([1e-1, 1e-3, 1e-6])
)
def test_forward_push_matches_readable_push(graph, data, alpha, eps):
    n = graph.shape[0]
    r = data.draw(restart_vectors(n))
    g = prepare_graph(graph, reorder=None)  # node ids as the twin's, so the queues agree
    indptr, indices, weights = g.forward_csr()
    p, res = np.zeros(n), r.copy()
    support = np.flatnonzero(r)
    seen = np.zeros(n, np.bool_)
    seen[support] = True
    touched = np.empty(n, np.int64)
    touched[: support.size] = support
    queued = np.zeros(n, np.bool_)
    n_touched, pushes, left, n_log = _push.ppr_push(
        indptr, indices, weights, g.unit, g.inv_out, p, res, seen, touched, support.size,
        np.empty(n, np.int64), queued, alpha, eps, 2**62, np.empty(0, np.int64), 0,
    )
    assert n_log == 0  # an empty log keeps nothing
    assert not queued.any()
    want_p, want_res = reference.forward_push(graph, r, alpha, eps)
    np.testing.assert_allclose(p, want_p, rtol=0, atol=1e-13)
    np.testing.assert_allclose(res, want_res, rtol=0, atol=1e-13)
    assert left == pytest.approx(want_res.sum(), abs=1e-13)
    assert set(touched[:n_touched].tolist()) == set(np.flatnonzero(seen).tolist())
