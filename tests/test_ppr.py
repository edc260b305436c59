"""Personalized PageRank: the kernel against its dense twin, its properties, and its errors."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

from pathfinding.core import reference
from pathfinding.core.ppr import personalized_pagerank, ppr_solve, ppr_top_k
from pathfinding.core.prepared import prepare_graph
from pathfinding.errors import ConvergenceWarning
from pathfinding.synthetic.toy import meet_node_toy, star_pair
from tests.strategies import restart_vectors, weighted_graphs

alphas = st.sampled_from([0.15, 0.5, 0.85, 1.0])


@given(graph=weighted_graphs(), data=st.data(), alpha=alphas)
def test_matches_dense_linear_solve(graph, data, alpha):
    r = data.draw(restart_vectors(graph.shape[0]))
    pi = personalized_pagerank(graph, r, restart_prob=alpha, tol=1e-13)
    expected = reference.ppr_linear_solve(graph, r, alpha)
    assert np.abs(pi - expected).sum() <= 1e-9
    assert np.all(pi >= 0)
    assert pi.sum() == pytest.approx(1.0, abs=1e-12)


@given(graph=weighted_graphs(), data=st.data(), n_iter=st.integers(1, 40), alpha=alphas)
def test_exact_iteration_count_matches_readable_power_iteration(graph, data, n_iter, alpha):
    r = data.draw(restart_vectors(graph.shape[0]))
    res = ppr_solve(graph, r, restart_prob=alpha, tol=0, max_iter=n_iter)
    assert res.iterations == n_iter
    expected = reference.ppr_power_iteration(graph, r, alpha, n_iter)
    np.testing.assert_allclose(res.pi, expected, rtol=0, atol=1e-12)


@given(graph=weighted_graphs(), data=st.data())
def test_relabelling_nodes_permutes_pi(graph, data):
    n = graph.shape[0]
    r = data.draw(restart_vectors(n))
    perm = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1))).permutation(n)
    permuted = graph[perm][:, perm]
    pi = personalized_pagerank(graph, r, tol=1e-13)
    pi_perm = personalized_pagerank(permuted, r[perm], tol=1e-13)
    np.testing.assert_allclose(pi_perm, pi[perm], atol=1e-11)


@given(graph=weighted_graphs(max_nodes=8), data=st.data(), b=st.integers(1, 5))
def test_block_equals_columns_one_at_a_time(graph, data, b):
    n = graph.shape[0]
    R = np.column_stack([data.draw(restart_vectors(n)) for _ in range(b)])
    block = personalized_pagerank(graph, R, tol=0, max_iter=25)
    for c in range(b):
        single = personalized_pagerank(graph, R[:, c], tol=0, max_iter=25)
        np.testing.assert_allclose(block[:, c], single, rtol=0, atol=1e-14)


def test_seed_ids_mean_uniform_restart():
    toy = star_pair(9)
    r = np.zeros(toy.n_nodes)
    r[[0, 1]] = 0.5
    exact = reference.ppr_linear_solve(toy.graph, r)  # the oracle builds its restart vector by hand
    np.testing.assert_allclose(personalized_pagerank(toy.graph, [0, 1], tol=1e-13), exact, atol=1e-12)
    r[0] = 1.0  # a repeated id counts twice: weights 2/3, 1/3
    exact = reference.ppr_linear_solve(toy.graph, r / r.sum())
    np.testing.assert_allclose(personalized_pagerank(toy.graph, [0, 0, 1], tol=1e-13), exact, atol=1e-12)


def test_one_step_meet_node_arithmetic_on_star_pair_9():
    """The chapter: after one step the answer holds 0.0278 + 0.0278 = 0.0556, a dead end 0.0278."""
    toy = star_pair(9)
    pi = personalized_pagerank(toy.graph, toy.seeds, tol=0, max_iter=1)
    inflow = 0.5 * 0.5 / 9
    assert pi[toy.answer] == pytest.approx(2 * inflow, abs=1e-15)
    assert round(pi[toy.answer], 4) == 0.0556 and round(pi[3], 4) == 0.0278
    dead_ends = toy.candidates[toy.candidates != toy.answer]
    np.testing.assert_allclose(pi[dead_ends], inflow, rtol=0, atol=1e-15)
    assert pi[toy.answer] / pi[dead_ends[0]] == pytest.approx(2.0, abs=1e-12)


def test_stationary_values_of_meet_node_toy():
    """By hand: pi_u = pi_w = 1/3, pi_a = 1/6, pi_b = pi_c = 1/12.

    Symmetry gives pi_u = pi_w = x. A dead end b receives half of u's mass times (1 - a):
    pi_b = 0.5 * x / 2 = x / 4; the answer a receives that from both seeds: pi_a = x / 2.
    The seed gets a * 0.5 plus all of b's mass and half of a's, times (1 - a):
    x = 0.25 + 0.5 (x/4 + x/4) = 0.25 + x/4, so x = 1/3.
    """
    pi = personalized_pagerank(meet_node_toy().graph, [0, 1], tol=1e-14)
    np.testing.assert_allclose(pi, [1 / 3, 1 / 3, 1 / 6, 1 / 12, 1 / 12], atol=1e-13)


@pytest.mark.parametrize("degree", [2, 3, 9, 50])
def test_meet_node_ratio_is_two_whatever_the_degree(degree):
    toy = star_pair(degree)
    for n_iter in (1, 2, 5):
        pi = personalized_pagerank(toy.graph, toy.seeds, tol=0, max_iter=n_iter)
        assert pi[toy.answer] / pi[-1] == pytest.approx(2.0, abs=1e-12)
    pi = personalized_pagerank(toy.graph, toy.seeds, tol=1e-14)
    assert pi[toy.answer] / pi[-1] == pytest.approx(2.0, abs=1e-9)


def test_isolated_node_mass_returns_to_restart():
    A = sp.csr_array(np.array([[0, 1, 0], [1, 0, 0], [0, 0, 0]], dtype=float))
    r = np.array([0.0, 0.0, 1.0])  # all restart mass on the isolated node
    np.testing.assert_allclose(personalized_pagerank(A, r), r)


def test_restart_prob_one_returns_restart():
    toy = star_pair(3)
    r = np.linspace(1, 2, toy.n_nodes)
    res = ppr_solve(toy.graph, r, restart_prob=1.0)
    np.testing.assert_allclose(res.pi, r / r.sum())
    assert res.iterations == 1


def test_single_node_graph():
    assert personalized_pagerank(np.zeros((1, 1)), [0]).tolist() == [1.0]


def test_not_converging_warns():
    with pytest.warns(ConvergenceWarning, match="max_iter=3"):
        res = ppr_solve(star_pair(9).graph, [0, 1], tol=1e-12, max_iter=3)
    assert not res.converged and res.iterations == 3


def test_tol_zero_is_silent():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        personalized_pagerank(star_pair(9).graph, [0, 1], tol=0, max_iter=3)


def test_prepared_graph_reused():
    toy = star_pair(9)
    g = prepare_graph(toy.graph)
    assert prepare_graph(g) is g
    exact = reference.ppr_linear_solve(toy.graph, np.r_[0.5, 0.5, np.zeros(17)])
    np.testing.assert_allclose(personalized_pagerank(g, [0, 1], tol=1e-13), exact, atol=1e-12)


def test_an_instance_prepares_its_graph_once_and_owns_it():
    a, b = star_pair(9), star_pair(9)
    assert a.prepared is a.prepared and b.prepared is not a.prepared  # equal graphs, two owners
    np.testing.assert_array_equal(
        personalized_pagerank(a.prepared, a.seeds), personalized_pagerank(a.graph, a.seeds)
    )


@pytest.mark.parametrize(
    ("graph", "restart", "kwargs", "error", "match"),
    [
        (np.ones((2, 3)), [0], {}, ValueError, "square"),
        (np.ones(3), [0], {}, ValueError, "2-D"),
        (np.array([[0, -1.0], [1, 0]]), [0], {}, ValueError, "non-negative"),
        (np.array([[0, np.nan], [1, 0]]), [0], {}, ValueError, "finite"),
        (np.array([[0, np.inf], [1, 0]]), [0], {}, ValueError, "finite"),
        (np.zeros((0, 0)), [0], {}, ValueError, "at least one node"),
        (np.array([["a"]]), [0], {}, TypeError, "numeric"),
        (np.eye(3), [3], {}, ValueError, r"in \[0, 3\), got 3"),
        (np.eye(3), [], {}, ValueError, "at least one"),
        (np.eye(3), np.array([True, False, True]), {}, TypeError, "boolean"),
        (np.eye(3), [0.5, 0.5], {}, ValueError, r"shape \(3,\)"),
        (np.eye(3), [-0.5, 1.0, 0.5], {}, ValueError, "non-negative"),
        (np.eye(3), [0.0, 0.0, 0.0], {}, ValueError, "sums to 0"),
        (np.eye(3), [np.nan, 1.0, 0.0], {}, ValueError, "finite"),
        (np.eye(3), np.ones((2, 2)), {}, ValueError, r"shape \(3, b\)"),
        (np.eye(3), np.ones((3, 2, 1)), {}, ValueError, "1-D or 2-D"),
        (np.eye(3), np.ones((3, 2)), {"method": "scipy"}, ValueError, "runs one restart vector, got a block"),
        (np.eye(3), [0], {"restart_prob": 0.0}, ValueError, r"restart_prob must be in \(0"),
        (np.eye(3), [0], {"restart_prob": 1.5}, ValueError, "restart_prob"),
        (np.eye(3), [0], {"restart_prob": np.nan}, ValueError, "restart_prob"),
        (np.eye(3), [0], {"restart_prob": "0.5"}, TypeError, "restart_prob"),
        (np.eye(3), [0], {"tol": -1.0}, ValueError, "tol"),
        (np.eye(3), [0], {"max_iter": 0}, ValueError, "max_iter"),
        (np.eye(3), [0], {"max_iter": 2.5}, TypeError, "max_iter"),
    ],
)
def test_bad_input(graph, restart, kwargs, error, match):
    with pytest.raises(error, match=match):
        personalized_pagerank(graph, restart, **kwargs)


@pytest.mark.parametrize("method", ["auto", "gauss-seidel", "power", "push"])
@given(graph=weighted_graphs(), data=st.data(), alpha=alphas)
def test_every_method_meets_its_certified_bound(method, graph, data, alpha):
    """The true L1 error (against the dense solve) is within the reported bound, itself <= tol."""
    r = data.draw(restart_vectors(graph.shape[0]))
    tol = data.draw(st.sampled_from([1e-2, 1e-4, 1e-6, 1e-8, 1e-10]))
    res = ppr_solve(graph, r, restart_prob=alpha, tol=tol, method=method)
    exact = reference.ppr_linear_solve(graph, r, alpha)
    assert res.converged and res.error_bound <= tol
    assert np.abs(res.pi - exact).sum() <= res.error_bound + 1e-13
    assert np.all(res.pi >= 0) and res.pi.sum() == pytest.approx(1.0, abs=1e-12)


def test_gauss_seidel_needs_fewer_sweeps_than_power():
    toy = star_pair(9)
    power = ppr_solve(toy.graph, toy.seeds, tol=1e-12, method="power")
    gs = ppr_solve(toy.graph, toy.seeds, tol=1e-12, method="gauss-seidel")
    assert gs.iterations < 0.8 * power.iterations
    np.testing.assert_allclose(gs.pi, power.pi, atol=2e-12)


@given(graph=weighted_graphs(), data=st.data(), alpha=alphas)
def test_push_agrees_with_the_power_iteration_at_tight_tolerance(graph, data, alpha):
    """Same restart convention (restart_prob is the jump probability) and dangling law as power."""
    r = data.draw(restart_vectors(graph.shape[0]))
    push = ppr_solve(graph, r, restart_prob=alpha, tol=1e-12, method="push")
    power = ppr_solve(graph, r, restart_prob=alpha, tol=1e-12, method="power", max_iter=10_000)
    assert np.abs(push.pi - power.pi).sum() <= 2e-12 + 1e-13


def test_push_is_local_on_a_loose_tolerance():
    """Two far-apart seeds on a long path: a loose tol leaves most of the path untouched (exactly 0)."""
    n = 2000
    A = sp.diags([np.ones(n - 1), np.ones(n - 1)], [-1, 1], format="csr")
    res = ppr_solve(A, [0, n - 1], tol=1e-3, method="push")
    assert res.error_bound <= 1e-3
    assert np.count_nonzero(res.pi) < 100
    exact = ppr_solve(A, [0, n - 1], tol=1e-13, method="gauss-seidel")
    assert np.abs(res.pi - exact.pi).sum() <= res.error_bound


def test_push_refuses_what_it_cannot_do():
    with pytest.raises(ValueError, match="method='push' needs one restart vector and tol > 0"):
        ppr_solve(star_pair(3).graph, [0], tol=0, method="push")
    with pytest.raises(ValueError, match="2 restart vector"):
        ppr_solve(star_pair(3).graph, np.ones((7, 2)), method="push")


def test_gauss_seidel_refuses_what_it_cannot_do():
    with pytest.raises(ValueError, match="tol=0"):
        ppr_solve(star_pair(3).graph, [0], tol=0, method="gauss-seidel")
    with pytest.raises(ValueError, match="2 restart vector"):
        ppr_solve(star_pair(3).graph, np.ones((7, 2)), method="gauss-seidel")
    with pytest.raises(ValueError, match="method must be"):
        ppr_solve(star_pair(3).graph, [0], method="jacobi")


def test_gauss_seidel_at_max_iter_reports_a_true_bound():
    toy = star_pair(9)
    with pytest.warns(ConvergenceWarning):
        res = ppr_solve(toy.graph, toy.seeds, tol=1e-14, max_iter=4, method="gauss-seidel")
    exact = reference.ppr_linear_solve(toy.graph, np.r_[0.5, 0.5, np.zeros(17)], 0.5)
    assert np.abs(res.pi - exact).sum() <= res.error_bound


@given(graph=weighted_graphs(max_nodes=10), data=st.data(), method=st.sampled_from(["auto", "power"]))
def test_degree_reordering_is_invisible(graph, data, method):
    r = data.draw(restart_vectors(graph.shape[0]))
    plain = prepare_graph(graph, reorder=None)
    reordered = prepare_graph(graph, reorder="degree")
    for kw in ({"tol": 0, "max_iter": 17}, {"tol": 1e-12}):
        np.testing.assert_allclose(
            personalized_pagerank(reordered, r, method=method, **kw),
            personalized_pagerank(plain, r, method=method, **kw),
            atol=1e-12,
        )
    R = np.column_stack([r, r[::-1]])
    np.testing.assert_allclose(
        personalized_pagerank(reordered, R, tol=0, max_iter=9),
        personalized_pagerank(plain, R, tol=0, max_iter=9),
        atol=1e-13,
    )


def test_reorder_option_is_checked():
    with pytest.raises(ValueError, match="reorder must be"):
        prepare_graph(np.eye(2), reorder="rcm")


@given(hops=st.integers(1, 3), rng=st.integers(0, 2**32 - 1))
def test_top_k_certifies_the_answer_first_and_saves_sweeps(hops, rng):
    from pathfinding.synthetic.instances import make_instance

    inst = make_instance(hops, rng=rng)
    res = ppr_top_k(inst.graph, inst.seeds, 1, candidates=inst.candidates, method="gauss-seidel")
    full = ppr_solve(inst.graph, inst.seeds)
    assert res.certified and res.top.tolist() == [inst.answer] and res.method == "gauss-seidel"
    # never more sweeps than full convergence (at one hop Gauss-Seidel can converge in 3 sweeps)
    assert res.iterations <= full.iterations
    # the instances are undirected, so the default certifies by push
    push = ppr_top_k(inst.graph, inst.seeds, 1, candidates=inst.candidates)
    assert push.certified and push.top.tolist() == [inst.answer] and push.method == "push"


def test_top_k_saves_most_sweeps_on_average():
    from pathfinding.synthetic.instances import make_instance

    saved = []
    for seed in range(50):
        inst = make_instance(2, rng=seed)
        top = ppr_top_k(inst.graph, inst.seeds, 1, candidates=inst.candidates, method="gauss-seidel")
        saved.append(ppr_solve(inst.graph, inst.seeds).iterations - top.iterations)
    assert np.mean(saved) > 5


@pytest.mark.parametrize("method", ["auto", "gauss-seidel"])
@given(graph=weighted_graphs(max_nodes=10), data=st.data(), alpha=alphas)
def test_certified_top_k_equals_the_exact_order(method, graph, data, alpha):
    n = graph.shape[0]
    r = data.draw(restart_vectors(n))
    k = data.draw(st.integers(1, n))
    exact = reference.ppr_linear_solve(graph, r, alpha)
    res = ppr_top_k(graph, r, k, restart_prob=alpha, tol=1e-13, method=method)
    if res.certified:
        assert res.top.tolist() == np.argsort(-exact, kind="stable")[:k].tolist()
    else:  # only ties (within the tolerance) can block a certificate
        s = np.sort(exact)[::-1]
        assert np.any(np.abs(np.diff(s[: k + 1])) <= 1e-12)


def test_top_k_method():
    toy = star_pair(3)
    directed = sp.csr_array(np.triu(np.ones((4, 4)), 1))
    assert ppr_top_k(directed, [0], 1).method == "gauss-seidel"  # push's interval needs an undirected graph
    assert ppr_top_k(toy.graph, toy.seeds, 1, candidates=toy.candidates).method == "push"
    with pytest.raises(ValueError, match="method must be 'auto' or 'gauss-seidel', got 'push'"):
        ppr_top_k(toy.graph, toy.seeds, 1, method="push")


@given(graph=weighted_graphs(max_nodes=12), data=st.data())
def test_top_k_ranks_the_iterate_of_its_sweeps(graph, data):
    from pathfinding.core import _kernels
    from pathfinding.core.ppr import _solver_args

    n = graph.shape[0]
    r = data.draw(restart_vectors(n))
    cand = np.array(sorted(data.draw(st.sets(st.integers(0, n - 1), min_size=1))))
    k = data.draw(st.integers(1, cand.size))
    max_iter = data.draw(st.integers(1, 30))
    res = ppr_top_k(graph, r, k, candidates=cand, max_iter=max_iter, method="gauss-seidel")
    # the same sweeps, then the ranking in numpy: equal scores by candidate position; the restart
    # divided by the sum of its nonzero entries, as a sparse one is
    g, _, _, alpha, _, _ = _solver_args(graph, r, 0.5, 1e-10, 1000)
    rr = g.to_internal(r / r[r != 0].sum())
    x = rr.copy()
    args = (g.indptr, g.indices, g.weights, g.unit, g.inv_out, rr, x, alpha)
    _, bound, total = _kernels.ppr_gauss_seidel(*args, 0.0, res.iterations, g.sweep_blocks(np.flatnonzero(x)))
    scores = g.to_original(x)[cand] / total
    order = np.lexsort((np.arange(cand.size), -scores))[:k]
    assert res.top.tolist() == cand[order].tolist()
    np.testing.assert_array_equal(res.scores, scores[order])
    assert res.error_bound == bound


@pytest.mark.parametrize("method", ["auto", "gauss-seidel"])
@given(graph=weighted_graphs(max_nodes=10), data=st.data())
def test_top_k_margin_certifies_exact_gaps_beyond_it(method, graph, data):
    n = graph.shape[0]
    r = data.draw(restart_vectors(n))
    k = data.draw(st.integers(1, n))
    margin = data.draw(st.sampled_from([1e-6, 1e-3, 0.05]))
    exact = np.sort(reference.ppr_linear_solve(graph, r, 0.5))[::-1]
    res = ppr_top_k(graph, r, k, tol=1e-13, margin=margin, method=method)
    if res.certified:
        assert np.all(-np.diff(exact[: k + 1]) > margin)
    if n > 1:  # one item has no gap to certify, and no gap of a distribution exceeds 2
        assert not ppr_top_k(graph, r, k, margin=2.0, method=method).certified


@pytest.mark.parametrize("method", ["auto", "gauss-seidel"])
@given(graph=weighted_graphs(max_nodes=12), data=st.data())
def test_top_k_of_a_sparse_restart_and_prepared_candidates_is_the_dense_ones(method, graph, data):
    """A restart given as a 1-D sparse array and candidates prepared by the graph rank as the dense
    vector and the plain ids do: the same items, solver, certificate and scores, to the bit."""
    from pathfinding.core.prepared import prepare_graph

    n = graph.shape[0]
    r = data.draw(restart_vectors(n))
    cand = np.array(sorted(data.draw(st.sets(st.integers(0, n - 1), min_size=1))))
    k = data.draw(st.integers(1, cand.size))
    g = prepare_graph(graph)
    dense = ppr_top_k(g, r, k, candidates=cand, method=method)
    ids = np.flatnonzero(r)
    sparse = ppr_top_k(g, sp.coo_array((r[ids], (ids,)), shape=(n,)), k, candidates=g.candidates(cand),
                       method=method)  # fmt: skip
    how = ("method", "certified", "iterations", "error_bound")
    assert [getattr(sparse, a) for a in how] == [getattr(dense, a) for a in how]
    assert sparse.top.tolist() == dense.top.tolist()
    np.testing.assert_array_equal(sparse.scores, dense.scores)


def test_a_restart_with_zeros_between_its_weights_is_divided_by_the_total_of_its_weights():
    """The dense form's zero shifts numpy's pairwise sum by one bit (0.9999999999999998 against
    0.9999999999999999 over the weights alone); push's thresholds move with it, and its score for
    node 1, an estimate with an L1 bound of 0.66, moved by 4.5%. Found by the property above."""
    from pathfinding.core.prepared import prepare_graph

    indptr = [0, 4, 9, 14, 17, 19, 24, 26, 32]
    indices = [2, 5, 6, 7, 2, 3, 4, 5, 7, 0, 1, 5, 6, 7, 1, 5, 7, 1, 7, 0, 1, 2, 3, 7, 0, 2, 0, 1, 2, 3, 4, 5]
    graph = sp.csr_array((np.ones(32), indices, indptr), shape=(8, 8))
    ids = np.array([0, 1, 2, 3, 4, 5, 7])
    weights = np.array([0.10275516395801935, 0.23759808181378095, 0.07670096223608207, 0.18977221620400983,
                        0.20934932683797966, 0.09411848407794679, 0.0897057648721812])  # fmt: skip
    dense = np.zeros(8)
    dense[ids] = weights
    assert dense.sum() != weights.sum()  # the case: one bit apart
    g = prepare_graph(graph)
    sparse = sp.coo_array((weights, (ids,)), shape=(8,))
    results = [ppr_top_k(g, r, 1, candidates=[1]) for r in (dense, sparse)]
    assert results[0].method == "push" and results[0].certified
    assert results[0].scores.tolist() == results[1].scores.tolist()
    assert results[0].error_bound == results[1].error_bound


def test_candidates_belong_to_their_graph():
    toy = star_pair(3)
    from pathfinding.core.prepared import prepare_graph

    g, other = prepare_graph(toy.graph), prepare_graph(toy.graph)
    cand = g.candidates(toy.candidates)
    positions = cand.positions.copy()
    assert ppr_top_k(g, toy.seeds, 1, candidates=cand).top.tolist() == [2]
    assert ppr_top_k(g, toy.seeds, 1, candidates=cand).top.tolist() == [2]  # its positions are kept
    assert np.array_equal(cand.positions, positions)
    assert np.count_nonzero(positions >= 0) == len(toy.candidates)
    assert not cand.ids.flags.writeable and not cand.internal.flags.writeable
    with pytest.raises(ValueError, match="candidates were prepared for another graph"):
        ppr_top_k(other, toy.seeds, 1, candidates=cand)
    with pytest.raises(ValueError, match=r"candidates must be node ids in \[0, 7\), got 9"):
        g.candidates([1, 9])


def test_top_k_bad_input():
    toy = star_pair(3)
    with pytest.raises(ValueError, match=r"k must be in \[1, 7\]"):
        ppr_top_k(toy.graph, toy.seeds, 8)
    with pytest.raises(ValueError, match="one query at a time"):
        ppr_top_k(toy.graph, np.ones((7, 2)), 1)
    with pytest.raises(TypeError, match="mentions"):
        ppr_top_k(toy.graph, toy.seeds, 1, mentions=np.ones((3, 2)))  # passage scoring was removed


@given(graph=weighted_graphs())
def test_symmetry_is_detected_without_a_transpose(graph):
    expected = (graph != graph.T).nnz == 0
    assert prepare_graph(graph).symmetric == expected


def test_prepared_graph_does_not_alias_the_callers_matrix():
    A = sp.csr_array(np.array([[0, 2.0, 0], [2.0, 0, 1.0], [0, 1.0, 0]]))
    before = personalized_pagerank(prepare_graph(A), [0])
    g = prepare_graph(A)
    A.data[:] = 5.0
    np.testing.assert_array_equal(personalized_pagerank(g, [0]), before)


# --- External oracles: networkx's hand-published PageRank values --------------------------------
# networkx/algorithms/link_analysis/tests/test_pagerank.py. networkx's alpha is the damping, so its
# alpha=0.9 is our restart_prob=0.1. Its default personalisation is uniform and, with dangling=None,
# a dangling node's mass is spread by the personalisation vector: with a uniform (or any given)
# restart vector that is exactly our rule (dangling mass returns to r), so these cases compare like
# with like. Its tests with a custom `dangling` distribution are not comparable: we have no such
# option. networkx's graph is directed with edge u -> v; ours reads graph[u, v] the same way.

LANGVILLE_MEYER_EDGES = [(1, 2), (1, 3), (3, 1), (3, 2), (3, 5), (4, 5), (4, 6), (5, 4), (5, 6), (6, 4)]


def _langville_meyer():
    """The 6-node graph of Langville & Meyer's survey, nodes 1..6 as ids 0..5; node 2 is dangling."""
    A = np.zeros((6, 6))
    for u, v in LANGVILLE_MEYER_EDGES:
        A[u - 1, v - 1] = 1.0
    return sp.csr_array(A)


@pytest.mark.parametrize("method", ["power", "gauss-seidel"])
def test_networkx_langville_meyer_pagerank(method):
    want = [0.03721197, 0.05395735, 0.04150565, 0.37508082, 0.20599833, 0.28624589]
    pi = personalized_pagerank(
        _langville_meyer(), np.full(6, 1 / 6), restart_prob=0.1, tol=1e-12, method=method
    )
    np.testing.assert_allclose(pi, want, rtol=0, atol=5e-9)  # networkx prints 8 decimals


@pytest.mark.parametrize(
    ("restart", "want"),
    [
        # networkx test_personalization: K4, alpha=0.85, personalization {0: 1, 1: 1, 2: 4, 3: 4}
        ([1, 1, 4, 4], [0.23246732615667579, 0.23246732615667579, 0.267532673843324, 0.2675326738433241]),
        # test_one_nonzero_personalization_value: {3: 1}
        ([0, 0, 0, 1], [0.22077931820379187, 0.22077931820379187, 0.22077931820379187, 0.3376620453886241]),
    ],
)
def test_networkx_complete_graph_personalisation_unnormalised(restart, want):
    K4 = np.ones((4, 4)) - np.eye(4)
    r = np.asarray(restart, dtype=float)  # not normalised: weights 1, 1, 4, 4 sum to 10
    pi = personalized_pagerank(K4, r, restart_prob=0.15, tol=1e-13)
    # networkx's literals are its own power iteration stopped at its default tol=1e-6 (it asserts
    # them to 1e-4); they sit 2e-7 from the exact solution, so we compare to 1e-6.
    np.testing.assert_allclose(pi, want, rtol=0, atol=1e-6)


def test_networkx_multigraph_duplicate_entries_are_summed():
    """networkx test_multigraph: parallel edges 1-2 (x3), 2-3 (x2), '3'-3 (x2); alpha=0.85.

    Our input is a COO matrix listing each parallel edge as its own (duplicate) entry; validation
    sums duplicates, so the walk sees weights 3, 2 and 2, as networkx's multigraph does.
    """
    pairs = [(0, 1)] * 3 + [(1, 2)] * 2 + [(3, 2)] * 2  # nodes 1, 2, 3, '3' -> ids 0, 1, 2, 3
    rows = [u for u, v in pairs] + [v for u, v in pairs]
    cols = [v for u, v in pairs] + [u for u, v in pairs]
    A = sp.coo_array((np.ones(len(rows)), (rows, cols)), shape=(4, 4))
    assert A.nnz == 14  # the duplicates are really there
    pi = personalized_pagerank(A, np.full(4, 0.25), restart_prob=0.15, tol=1e-13)
    want = [0.21066048614468322, 0.3395308825985378, 0.28933951385531687, 0.16046911740146227]
    np.testing.assert_allclose(pi, want, rtol=0, atol=1e-6)  # networkx's iterate at its tol=1e-6


# --- Linearity in the restart vector ------------------------------------------------------------


def _dangling_mass(graph, pi):
    _, dangling = reference.transition_matrix(graph)
    return float(pi[dangling].sum())


@given(graph=weighted_graphs(symmetric=True), data=st.data(), alpha=alphas, w=st.floats(0.0, 1.0))
def test_superposition_holds_without_reachable_dangling_nodes(graph, data, alpha, w):
    n = graph.shape[0]
    ring = sp.csr_array((np.ones(n), (np.arange(n), (np.arange(n) + 1) % n)), shape=(n, n))
    A = graph + ring + ring.T if n > 1 else graph + sp.eye_array(1)  # every node has an edge
    r1, r2 = data.draw(restart_vectors(n)), data.draw(restart_vectors(n))
    pi1, pi2 = (personalized_pagerank(A, r, restart_prob=alpha, tol=1e-13) for r in (r1, r2))
    mixed = personalized_pagerank(A, w * r1 + (1 - w) * r2, restart_prob=alpha, tol=1e-13)
    np.testing.assert_allclose(mixed, w * pi1 + (1 - w) * pi2, rtol=0, atol=1e-10)


@given(graph=weighted_graphs(), data=st.data(), alpha=alphas, w=st.floats(0.0, 1.0))
def test_mixing_restart_vectors_follows_the_dangling_law(graph, data, alpha, w):
    """The law stated in ppr.py: pi(w r1 + (1-w) r2) is proportional to w pi1 / c1 + (1-w) pi2 / c2,
    c = restart_prob + (1 - restart_prob) * (mass of pi on dangling nodes)."""
    n = graph.shape[0]
    r1, r2 = data.draw(restart_vectors(n)), data.draw(restart_vectors(n))
    pi1, pi2 = (personalized_pagerank(graph, r, restart_prob=alpha, tol=1e-13) for r in (r1, r2))
    c1, c2 = (alpha + (1 - alpha) * _dangling_mass(graph, pi) for pi in (pi1, pi2))
    law = w * pi1 / c1 + (1 - w) * pi2 / c2
    mixed = personalized_pagerank(graph, w * r1 + (1 - w) * r2, restart_prob=alpha, tol=1e-13)
    np.testing.assert_allclose(mixed, law / law.sum(), rtol=0, atol=1e-9)


def test_superposition_fails_when_a_seed_reaches_a_dangling_node():
    """Langville-Meyer at HippoRAG's restart 0.5: seed 1 reaches the dangling node 2, seed 4 does not."""
    A = _langville_meyer()
    one, four = personalized_pagerank(A, [0], tol=1e-13), personalized_pagerank(A, [3], tol=1e-13)
    both = personalized_pagerank(A, [0, 3], tol=1e-13)
    exact = reference.ppr_linear_solve(A, np.array([0.5, 0, 0, 0.5, 0, 0]), 0.5)
    np.testing.assert_allclose(both, exact, atol=1e-12)
    assert np.abs(both - (one + four) / 2).sum() == pytest.approx(0.0781, abs=5e-5)
    # seeds 4 and 5 reach only 4, 5, 6, none dangling: there the masses add up exactly
    five = personalized_pagerank(A, [4], tol=1e-13)
    np.testing.assert_allclose(personalized_pagerank(A, [3, 4], tol=1e-13), (four + five) / 2, atol=1e-12)


@given(graph=weighted_graphs(), data=st.data(), c=st.sampled_from([1e-6, 0.3, 7.0, 1e6]))
def test_scaling_the_restart_vector_changes_nothing(graph, data, c):
    r = data.draw(restart_vectors(graph.shape[0]))
    R = np.column_stack([r, c * r])
    for kw in ({"tol": 1e-12}, {"tol": 1e-12, "method": "power"}, {"tol": 0, "max_iter": 7}):
        np.testing.assert_allclose(
            personalized_pagerank(graph, c * r, **kw),
            personalized_pagerank(graph, r, **kw),
            rtol=1e-12,
            atol=1e-15,
        )
    block = personalized_pagerank(graph, R, tol=0, max_iter=7)
    np.testing.assert_allclose(block[:, 1], block[:, 0], rtol=1e-12, atol=1e-15)


# --- Certified bounds, input conventions, warnings ----------------------------------------------


@given(graph=weighted_graphs(symmetric=False), data=st.data())
def test_self_loops_are_edges(graph, data):
    """A diagonal entry is kept as a self-loop: the walk may stay put, exactly as the dense model says."""
    n = graph.shape[0]
    loops = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1))).uniform(0.5, 3.0, n)
    A = graph + sp.diags_array(loops)
    r = data.draw(restart_vectors(n))
    np.testing.assert_allclose(
        personalized_pagerank(A, r, tol=1e-13), reference.ppr_linear_solve(A, r, 0.5), rtol=0, atol=1e-10
    )


def test_an_integer_block_is_weights_not_seed_ids():
    toy = meet_node_toy()
    counts = np.array([[1, 0], [1, 0], [0, 3], [0, 0], [0, 1]])  # 2-D integers: two weight vectors
    block = personalized_pagerank(toy.graph, counts, tol=1e-13)
    for c in range(2):
        np.testing.assert_allclose(
            block[:, c], reference.ppr_linear_solve(toy.graph, counts[:, c] / counts[:, c].sum()), atol=1e-11
        )


@pytest.mark.parametrize("call", [ppr_solve, personalized_pagerank])
def test_convergence_warning_names_the_callers_line(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call(star_pair(9).graph, [0, 1], tol=1e-12, max_iter=3)
    assert [w.category for w in caught] == [ConvergenceWarning]
    assert caught[0].filename == __file__
