"""The readable twins (pathfinding.core.reference), checked against what does not depend on them:
numbers worked by hand, numpy's own products, and the identities the chapter states. Every kernel
is tested against these twins elsewhere, so a twin that is wrong in the same way as its kernel
would pass there; here it cannot."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

from pathfinding.core import reference
from pathfinding.synthetic.toy import meet_node_toy, star_pair
from tests.strategies import restart_vectors, weighted_graphs

alphas = st.sampled_from([0.15, 0.5, 0.85])
MEET = meet_node_toy()  # u, w (seeds), a (shared), b (u's), c (w's)
R_MEET = np.array([0.5, 0.5, 0.0, 0.0, 0.0])


def test_the_walk_matrix_normalises_rows_and_marks_dangling_nodes():
    W, dangling = reference.transition_matrix(np.array([[0.0, 1.0, 3.0], [2.0, 0.0, 0.0], [0.0, 0.0, 0.0]]))
    np.testing.assert_array_equal(W, [[0.0, 0.25, 0.75], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    assert dangling.tolist() == [False, False, True]
    Ws, _ = reference.transition_matrix(sp.csr_array(np.array([[0.0, 1.0, 3.0], [2.0, 0.0, 0.0], [0, 0, 0]])))
    np.testing.assert_array_equal(Ws, W)


def test_the_meet_node_toy_by_hand():
    """pi_u = pi_w = 1/3, pi_a = 1/6, pi_b = pi_c = 1/12 (the shared node at twice a dead end)."""
    np.testing.assert_allclose(
        reference.ppr_linear_solve(MEET.graph, R_MEET), [1 / 3, 1 / 3, 1 / 6, 1 / 12, 1 / 12], atol=1e-15
    )


def test_one_step_on_the_chapters_two_stars():
    """The chapter: after one step from u and w the answer holds 2 x 0.0278 = 0.0556, a dead end 0.0278."""
    toy = star_pair(9)
    r = np.zeros(toy.n_nodes)
    r[[0, 1]] = 0.5
    pi = reference.ppr_power_iteration(toy.graph, r, n_iter=1)
    np.testing.assert_allclose(pi[[0, 1]], 0.25)  # the restart share only: a seed's neighbours hold the rest
    assert pi[2] == pytest.approx(2 * 0.5 * 0.5 / 9, abs=1e-15) and round(pi[2], 4) == 0.0556
    np.testing.assert_allclose(pi[3:], 0.5 * 0.5 / 9, atol=1e-15)
    np.testing.assert_array_equal(reference.ppr_power_iteration(toy.graph, r, n_iter=0), r)


def test_a_dangling_nodes_mass_goes_back_to_the_restart():
    """0 -> 1, node 1 dangling, restart on 0 at 1/2: (1/2, 1/2), then (3/4, 1/4); fixed point (2/3, 1/3)."""
    A = np.array([[0.0, 1.0], [0.0, 0.0]])
    r = np.array([1.0, 0.0])
    np.testing.assert_allclose(reference.ppr_power_iteration(A, r, n_iter=1), [0.5, 0.5])
    np.testing.assert_allclose(reference.ppr_power_iteration(A, r, n_iter=2), [0.75, 0.25])
    np.testing.assert_allclose(reference.ppr_linear_solve(A, r), [2 / 3, 1 / 3])
    np.testing.assert_allclose(reference.ppr_linear_solve(A, r, restart_prob=1.0), r)


@given(graph=weighted_graphs(max_nodes=8), data=st.data(), alpha=alphas)
def test_the_linear_solve_is_the_fixed_point_of_the_power_map(graph, data, alpha):
    r = data.draw(restart_vectors(graph.shape[0]))
    pi = reference.ppr_linear_solve(graph, r, alpha)
    assert pi.sum() == pytest.approx(1.0, abs=1e-12) and np.all(pi >= -1e-15)
    W, dangling = reference.transition_matrix(graph)
    step = alpha * r + (1 - alpha) * (W.T @ pi + pi[dangling].sum() * r)
    np.testing.assert_allclose(step, pi, atol=1e-12)
    np.testing.assert_allclose(reference.ppr_power_iteration(graph, r, alpha, n_iter=400), pi, atol=1e-10)


@given(graph=weighted_graphs(max_nodes=6), data=st.data(), b=st.integers(1, 3))
def test_a_block_is_its_columns(graph, data, b):
    R = np.column_stack([data.draw(restart_vectors(graph.shape[0])) for _ in range(b)])
    block = reference.ppr_power_iteration_block(graph, R, 0.3, 5)
    assert block.shape == R.shape
    for c in range(b):
        np.testing.assert_array_equal(block[:, c], reference.ppr_power_iteration(graph, R[:, c], 0.3, 5))


def test_seed_contributions_of_the_meet_node_toy():
    """The toy is symmetric under u <-> w, b <-> c: so are the two parts, the shared node a is split
    evenly between the seeds, and each seed's own dead end is mostly its own."""
    sources, parts = reference.seed_contributions_dense(MEET.graph, [2.0, 2.0, 0, 0, 0])  # scaled to sum 1
    assert sources.tolist() == [0, 1]
    np.testing.assert_allclose(parts.sum(axis=0), reference.ppr_linear_solve(MEET.graph, R_MEET), atol=1e-15)
    np.testing.assert_allclose(parts[1], parts[0][[1, 0, 2, 4, 3]], atol=1e-15)
    assert parts[0][2] == pytest.approx(1 / 12, abs=1e-15) and parts[0][3] > parts[1][3] > 0


@given(graph=weighted_graphs(max_nodes=8), data=st.data(), alpha=alphas)
def test_seed_contributions_add_up_to_the_walk(graph, data, alpha):
    r = data.draw(restart_vectors(graph.shape[0]))
    sources, parts = reference.seed_contributions_dense(graph, r, alpha)
    assert sources.tolist() == np.flatnonzero(r > 0).tolist()
    np.testing.assert_allclose(parts.sum(axis=0), reference.ppr_linear_solve(graph, r, alpha), atol=1e-12)
    assert np.all(parts >= -1e-15)


def test_one_gauss_seidel_sweep_by_hand():
    """0 - 1 at restart 1/2, r = (1, 0), from x = r: x0 = 1/2 + 1/2 x1 = 1/2 (x1 is still 0), then
    x1 = 0 + 1/2 x0 = 1/4, already using the new x0 (a Jacobi step would give 1/2)."""
    A = np.array([[0.0, 1.0], [1.0, 0.0]])
    np.testing.assert_allclose(reference.gauss_seidel_sweeps(A, [1.0, 0.0], 0.5, 1), [0.5, 0.25])
    np.testing.assert_allclose(reference.gauss_seidel_sweeps(A, [1.0, 0.0], 0.5, 2), [0.5 + 0.125, 0.3125])


@given(graph=weighted_graphs(max_nodes=8), data=st.data(), alpha=alphas)
def test_readable_gauss_seidel_converges_to_the_linear_solve(graph, data, alpha):
    r = data.draw(restart_vectors(graph.shape[0]))
    x = reference.gauss_seidel_sweeps(graph, r, alpha, 200)
    np.testing.assert_allclose(x / x.sum(), reference.ppr_linear_solve(graph, r, alpha), atol=1e-10)


def test_forward_push_by_hand():
    """0 - 1 at restart 1/2 from 0 with eps 0.3: push 0 (p0 = 1/2, res1 = 1/2), push 1 (p1 = 1/4,
    res0 = 1/4), and 1/4 <= 0.3 x degree 1 leaves node 0 unpushed."""
    p, res = reference.forward_push(np.array([[0.0, 1.0], [1.0, 0.0]]), [1.0, 0.0], 0.5, 0.3)
    np.testing.assert_allclose(p, [0.5, 0.25])
    np.testing.assert_allclose(res, [0.25, 0.0])
    dangling = np.array([[0.0, 1.0], [0.0, 0.0]])  # 0 -> 1, node 1 without an out-edge
    p, res = reference.forward_push(dangling, [1.0, 0.0], 0.5, 0.3)
    np.testing.assert_allclose(p, [0.5, 0.25])  # node 1 is pushed with any residual; its share dropped
    np.testing.assert_allclose(res, [0.0, 0.0])
    p, res = reference.forward_push(dangling, [1.0, 0.0], 0.5, 1.0)  # 1 <= eps x out-weight: no push
    np.testing.assert_allclose(p, [0.0, 0.0])
    np.testing.assert_allclose(res, [1.0, 0.0])


def test_matrix_helpers_against_numpy():
    rng = np.random.default_rng(0)
    M = rng.random((4, 3))
    x = rng.random(3)
    np.testing.assert_allclose(reference.matvec_loops(M, x), M @ x, rtol=1e-14)
    A = np.array([[0.0, 2.0, 0.0], [2.0, 0.0, 1.0], [0.0, 1.0, 0.0]])
    assert reference.is_symmetric_dense(A) and reference.is_symmetric_dense(sp.csr_array(A))
    A[1, 2] = 1.5
    assert not reference.is_symmetric_dense(A)  # weights count, not only the pattern
    order = np.array([2, 0, 1])
    np.testing.assert_array_equal(reference.relabel_dense(A, order), A[np.ix_(order, order)])
    np.testing.assert_array_equal(reference.relabel_dense(A, [0, 1, 2]), A)


def test_the_scorers_by_hand():
    """P: node 0 in passages 0 and 1 (twice in 1), node 1 in passage 1, node 2 in passage 2."""
    P = np.array([[1.0, 2.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    # seed 0: passage scores (1, 2, 0); node scores 1*1 + 2*2 = 5, 1*2 = 2, 0
    np.testing.assert_array_equal(reference.mention_count_scores_loops(P, [0]), [5.0, 2.0, 0.0])
    np.testing.assert_array_equal(reference.mention_count_scores_loops(P, [0, 0]), [10.0, 4.0, 0.0])
    pi = np.array([0.5, 0.25, 0.25])
    np.testing.assert_array_equal(reference.passage_scores_loops(pi, sp.csr_array(P)), [0.5, 1.25, 0.25])


def test_nodes_at_a_distance_from_every_seed():
    """The path 0 - 1 - 2 - 3 - 4, with the edge 3 -> 4 one-way (direction is ignored)."""
    A = np.zeros((5, 5))
    for i in range(3):
        A[i, i + 1] = A[i + 1, i] = 1.0
    A[3, 4] = 1.0
    assert reference.nodes_at_distance_bfs(A, [0], 2) == [2]
    assert reference.nodes_at_distance_bfs(A, [4], 1) == [3]  # reached against the edge's direction
    assert reference.nodes_at_distance_bfs(A, [0, 4], 2) == [2]  # two from both
    assert reference.nodes_at_distance_bfs(A, [0, 4], [3, 1]) == [3]  # a depth per seed
    assert reference.nodes_at_distance_bfs(A, [0, 4], 1) == []
    assert reference.nodes_at_distance_bfs(A, [0], 0) == [0]
