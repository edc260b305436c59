"""The per-source split of a PPR vector (pathfinding.core.contributions): hand-derived splits, the
dangling node where superposition fails, and property tests against the dense twin."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import assume, given
from hypothesis import strategies as st
from scipy.sparse.csgraph import breadth_first_order
from strategies import restart_vectors, weighted_graphs

from pathfinding import seed_contributions as top_level_seed_contributions
from pathfinding.core import reference
from pathfinding.core.contributions import restart_contributions, seed_contributions, top_k_contributions
from pathfinding.core.ppr import personalized_pagerank, ppr_top_k
from pathfinding.core.prepared import prepare_graph
from pathfinding.errors import ConvergenceWarning, InvalidTypeError, InvalidValueError
from pathfinding.synthetic.toy import meet_node_toy, star_pair

alphas = st.sampled_from([0.15, 0.5, 0.85, 1.0])


def test_the_top_level_exports_it():
    assert top_level_seed_contributions is seed_contributions


def test_meet_node_toy_by_hand():
    # From u alone (no dangling node, so the part is r_u = 1/2 times PPR(e_u)), at restart 1/2:
    # x_b = x_u/4, x_c = x_w/4, x_w = x_a/4 + x_c/2, x_a = x_u/4 + x_w/4, x_u = 1/2 + x_a/4 + x_b/2
    # give x = (13/21, 1/21, 1/6, 13/84, 1/84); w's part is the mirror image.
    sources, parts = seed_contributions(meet_node_toy().graph, [0, 1], tol=1e-14)
    u = np.array([13 / 42, 1 / 42, 1 / 12, 13 / 168, 1 / 168])
    assert sources.tolist() == [0, 1] and sources.dtype == np.int64
    np.testing.assert_allclose(parts, [u, u[[1, 0, 2, 4, 3]]], rtol=0, atol=1e-14)


def test_star_pair_splits_the_answer_in_half_and_leaks_a_little_into_the_dead_ends():
    # From u alone on star_pair(9): x_a = (x_u + x_w)/18, x_w = 9 x_a/28, x_u = 1/2 + x_a/4 + 2 x_u/9
    # give x_a = 1/27, x_u = 55/84, x_w = 1/84, and a dead end of u (of w) x_u/18 (x_w/18).
    toy = star_pair(9)
    _, parts = seed_contributions(toy.graph, toy.seeds, tol=1e-14)
    assert parts[:, toy.answer] == pytest.approx([1 / 54, 1 / 54], abs=1e-14)
    d1, e1 = 3, 11
    np.testing.assert_allclose(parts[:, [d1, e1]], [[55 / 3024, 1 / 3024], [1 / 3024, 55 / 3024]], atol=1e-14)
    np.testing.assert_allclose(parts.sum(axis=0), personalized_pagerank(toy.graph, toy.seeds), atol=1e-10)


def _dead_end_and_pair():
    """0 -> 1 with node 1 dangling, beside the pair 2 <-> 3."""
    A = np.zeros((4, 4))
    A[0, 1] = A[2, 3] = A[3, 2] = 1.0
    return sp.csr_array(A)


def test_a_dangling_node_breaks_the_naive_split_and_not_ours():
    # Seeds 0 and 2 at 1/2 each, restart 1/2. By hand, pi = (2/7, 1/7, 8/21, 4/21): seed 0's walks
    # end in the dead end 1 and restart, half the time on seed 2. PPR(e_0) = (2/3, 1/3, 0, 0) and
    # PPR(e_2) = (0, 0, 2/3, 1/3), so the naive halves miss pi by 1/7 in L1; c = 4/7, c_0 = 2/3 and
    # c_2 = 1/2 scale them to (2/7, 1/7, 0, 0) and (0, 0, 8/21, 4/21), which add up.
    A = _dead_end_and_pair()
    pi = personalized_pagerank(A, [0, 2], tol=1e-14)
    np.testing.assert_allclose(pi, [2 / 7, 1 / 7, 8 / 21, 4 / 21], atol=1e-14)
    naive = np.array([personalized_pagerank(A, [s], tol=1e-14) / 2 for s in (0, 2)])
    assert np.abs(naive.sum(axis=0) - pi).sum() == pytest.approx(1 / 7, abs=1e-12)
    _, parts = seed_contributions(A, [0, 2], tol=1e-14)
    np.testing.assert_allclose(parts, [[2 / 7, 1 / 7, 0, 0], [0, 0, 8 / 21, 4 / 21]], atol=1e-14)
    # the seed whose walks fall into the dead end owns less than its restart weight
    assert parts[0].sum() == pytest.approx(3 / 7, abs=1e-14)


def test_restart_prob_one_leaves_every_seed_its_own_weight():
    restart = np.array([0.0, 1.0, 0.0, 3.0, 0.0])
    sources, parts = seed_contributions(meet_node_toy().graph, restart, restart_prob=1.0)
    assert sources.tolist() == [1, 3]
    np.testing.assert_array_equal(parts, [[0, 0.25, 0, 0, 0], [0, 0, 0, 0.75, 0]])


def test_a_repeated_seed_counts_twice_and_a_prepared_reordered_graph_gives_the_same_split():
    toy = star_pair(4)
    g = prepare_graph(toy.graph, reorder="degree")
    sources, parts = seed_contributions(g, [1, 0, 1], tol=1e-13)
    restart = np.array([1.0, 2.0, 0, 0, 0, 0, 0, 0, 0])
    want_sources, want = reference.seed_contributions_dense(toy.graph, restart)
    assert sources.tolist() == want_sources.tolist() == [0, 1]
    np.testing.assert_allclose(parts, want, atol=1e-12)


def test_zero_rows_get_zero_parts_and_sparse_pieces_are_accepted():
    toy = meet_node_toy()
    pieces = sp.csr_array(np.array([[0, 0, 0, 0, 0], [2.0, 0, 0, 0, 0], [0, 0, 0, 0, 0], [0, 2.0, 0, 0, 0]]))
    res = restart_contributions(toy.graph, pieces, tol=1e-13)
    _, parts = seed_contributions(toy.graph, [0, 1], tol=1e-13)
    np.testing.assert_array_equal(res.parts[[0, 2]], 0.0)
    np.testing.assert_allclose(res.parts[[1, 3]], parts, atol=1e-12)
    assert res.converged and res.error_bound <= 1e-13 and res.sweeps > 0


def _cannot_reach_a_dangling_node(A) -> np.ndarray:
    """Mask of the nodes from which no node without out-edges can be reached."""
    dangling = np.flatnonzero(np.asarray(A.sum(axis=1)).ravel() == 0)
    reaches = np.zeros(A.shape[0], bool)
    for d in dangling:
        reaches[breadth_first_order(sp.csr_array(A.T), d, directed=True, return_predecessors=False)] = True
    return ~reaches


@given(graph=weighted_graphs(loops=True), data=st.data(), alpha=alphas)
def test_parts_equal_the_dense_twin_and_sum_to_ppr(graph, data, alpha):
    r = data.draw(restart_vectors(graph.shape[0]))
    sources, parts = seed_contributions(graph, r, restart_prob=alpha, tol=1e-12)
    want_sources, want = reference.seed_contributions_dense(graph, r, alpha)
    assert sources.tolist() == want_sources.tolist()
    np.testing.assert_allclose(parts, want, rtol=0, atol=1e-11)
    pi = personalized_pagerank(graph, r, restart_prob=alpha, tol=1e-12)
    assert np.abs(parts.sum(axis=0) - pi).sum() <= 2e-12 + 1e-14  # the split's tol plus the solver's
    assert np.all(parts >= 0)


@given(graph=weighted_graphs(loops=True), data=st.data(), alpha=alphas)
def test_without_a_reachable_dangling_node_the_split_is_superposition(graph, data, alpha):
    r = data.draw(restart_vectors(graph.shape[0])) * _cannot_reach_a_dangling_node(graph)
    assume(r.sum() > 0)
    sources, parts = seed_contributions(graph, r, restart_prob=alpha, tol=1e-12)
    r = r / r.sum()
    for s, part in zip(sources, parts, strict=True):
        single = personalized_pagerank(graph, [s], restart_prob=alpha, tol=1e-13)
        np.testing.assert_allclose(part, r[s] * single, rtol=0, atol=1e-11)


@given(graph=weighted_graphs(loops=True), data=st.data(), alpha=alphas)
def test_a_grouping_of_the_restart_splits_as_the_sum_of_its_sources(graph, data, alpha):
    n = graph.shape[0]
    r = data.draw(restart_vectors(n))
    sources, parts = seed_contributions(graph, r, restart_prob=alpha, tol=1e-12)
    groups = np.array(data.draw(st.lists(st.integers(0, 2), min_size=sources.size, max_size=sources.size)))
    pieces = np.zeros((3, n))
    pieces[groups, sources] = r[sources] * 5.0  # any common scale: the restart is normalised
    res = restart_contributions(graph, pieces, restart_prob=alpha, tol=1e-12)
    want = np.array([parts[groups == k].sum(axis=0) for k in range(3)])
    np.testing.assert_allclose(res.parts, want, rtol=0, atol=3e-12)


@given(graph=weighted_graphs(loops=True), data=st.data(), alpha=alphas, max_iter=st.integers(1, 6))
def test_the_error_bound_is_certified_even_when_stopped_early(graph, data, alpha, max_iter):
    n = graph.shape[0]
    pieces = data.draw(st.lists(restart_vectors(n), min_size=1, max_size=3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        res = restart_contributions(graph, np.array(pieces), restart_prob=alpha, tol=1e-15, max_iter=max_iter)
    r = np.sum(pieces, axis=0)
    # the exact split of the pieces: the dense twin's rows of each piece's sources, grouped
    sources, exact = reference.seed_contributions_dense(graph, r, alpha)
    share = np.array([p[sources] for p in pieces]) / r[sources]
    assert np.abs(res.parts - share @ exact).sum() <= res.error_bound + 1e-12


def test_a_cut_short_solve_warns_with_its_bound():
    with pytest.warns(ConvergenceWarning, match="restart_contributions did not reach tol=1e-12"):
        res = restart_contributions(star_pair(9).graph, np.eye(19)[:2], tol=1e-12, max_iter=2)
    assert not res.converged and res.error_bound > 1e-12
    with pytest.warns(ConvergenceWarning, match="seed_contributions did not reach") as record:
        seed_contributions(star_pair(9).graph, [0, 1], tol=1e-12, max_iter=2)
    assert record[0].filename == __file__  # names the caller's line, not the module's


GRAPH = meet_node_toy().graph


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"restart": np.full((5, 2), 0.2)}, InvalidValueError, r"one restart vector .* got shape \(5, 2\)"),
        ({"restart": [0, 7]}, InvalidValueError, r"\[0, 5\), got 7"),
        ({"restart": [0.5, -0.1, 0, 0, 0]}, InvalidValueError, "non-negative, found .*-0.1"),
        ({"restart": [np.nan, 1, 0, 0, 0]}, InvalidValueError, "finite, found .*nan"),
        ({"restart": [0.0] * 5}, InvalidValueError, "positive total mass"),
        ({"restart": [1.0, 0, 0]}, InvalidValueError, r"shape \(5,\), got \(3,\)"),
        ({"restart": [0, 1], "restart_prob": 0.0}, InvalidValueError, r"restart_prob .* 1.0\], got 0.0"),
        ({"restart": [0, 1], "restart_prob": 1.5}, InvalidValueError, "restart_prob .* got 1.5"),
        ({"restart": [0, 1], "tol": -1e-3}, InvalidValueError, "tol .* got -0.001"),
        ({"restart": [0, 1], "max_iter": 0}, InvalidValueError, r"max_iter must be in \[1, inf\], got 0"),
        ({"restart": [0, 1], "tol": "tight"}, InvalidTypeError, "tol must be a real number"),
    ],
)
def test_seed_contributions_refuses(kwargs, error, match):
    kwargs = dict(kwargs)
    restart = kwargs.pop("restart")
    with pytest.raises(error, match=match):
        seed_contributions(GRAPH, restart, **kwargs)


@pytest.mark.parametrize(
    ("components", "match"),
    [
        (np.eye(5)[:2] * -1, "components must have non-negative entries, found .*-1.0"),
        (np.array([[np.nan, 1, 0, 0, 0]]), "components must have finite entries, found .*nan"),
        (np.ones((2, 4)), r"shape \(m, 5\) .* got \(2, 4\)"),
        (np.zeros((0, 5)), r"shape \(m, 5\) with m >= 1 .* got \(0, 5\)"),
        (np.ones(5), r"components must be 2-D, got an array of shape \(5,\)"),
        (np.zeros((3, 5)), "positive total mass, all 3 rows sum to 0"),
        (sp.csr_array((2, 5)), "positive total mass, all 2 rows sum to 0"),
    ],
)
def test_restart_contributions_refuses(components, match):
    with pytest.raises(InvalidValueError, match=match):
        restart_contributions(GRAPH, components)


def test_restart_contributions_refuses_a_bad_graph_and_bad_tuning():
    with pytest.raises(InvalidValueError, match="graph must have non-negative entries"):
        restart_contributions(-GRAPH, np.eye(5)[:1])
    with pytest.raises(InvalidValueError, match="restart_prob"):
        restart_contributions(GRAPH, np.eye(5)[:1], restart_prob=-0.5)
    with pytest.raises(InvalidValueError, match="tol"):
        restart_contributions(GRAPH, np.eye(5)[:1], tol=np.inf)


@given(graph=weighted_graphs(symmetric=True), data=st.data(), alpha=alphas, threads=st.integers(1, 3))
def test_the_top_k_split_is_the_rankings_own_and_sums_to_its_scores(graph, data, alpha, threads):
    """top_k_contributions ranks as ppr_top_k does; its parts add up to the very scores it ranked
    by (push's estimate, split by replaying push), within error_bound of the exact split; and the
    threaded restart_contributions gives the same split as one thread."""
    n = graph.shape[0]
    r = data.draw(restart_vectors(n))
    support = np.flatnonzero(r)
    pieces = data.draw(st.integers(1, support.size))
    rows = np.arange(support.size) % pieces  # the seeds dealt into pieces
    comps = sp.csr_array((r[support], (rows, support)), shape=(pieces, n))
    k = data.draw(st.integers(1, n))
    res = top_k_contributions(graph, comps, k, restart_prob=alpha)
    want = ppr_top_k(graph, r, k, restart_prob=alpha)
    if res.certified:
        np.testing.assert_array_equal(res.top, want.top)
    np.testing.assert_allclose(res.parts[:, res.top].sum(axis=0), res.scores, rtol=1e-12, atol=1e-15)
    exact = reference.seed_contributions_dense(graph, r, restart_prob=alpha)[1]
    grouped = np.zeros((pieces, n))
    np.add.at(grouped, rows, exact)
    assert np.abs(res.parts - grouped).sum() <= 2 * res.error_bound + 1e-12
    one = restart_contributions(graph, comps, restart_prob=alpha, tol=1e-12)
    many = restart_contributions(graph, comps, restart_prob=alpha, tol=1e-12, threads=threads)
    np.testing.assert_array_equal(one.parts, many.parts)


def test_a_directed_graph_gets_the_split_to_tol_and_its_ranking():
    graph = sp.csr_array(np.triu(np.ones((5, 5)), 1) + np.eye(5, k=-4))
    res = top_k_contributions(graph, np.eye(5)[[0, 2]], 2)
    assert not res.certified
    np.testing.assert_array_equal(res.top, ppr_top_k(graph, [0, 2], 2).top)
    assert res.error_bound <= 1e-10


@given(graph=weighted_graphs(symmetric=True), data=st.data())
def test_the_top_k_split_comes_back_in_the_callers_node_order(graph, data):
    # the replay runs in the prepared graph's internal order (here always a reordering by degree)
    # and its parts come back in the caller's: node for node within the bound of the exact split
    from pathfinding.core.prepared import prepare_graph

    n = graph.shape[0]
    r = data.draw(restart_vectors(n))
    support = np.flatnonzero(r)
    rows = np.arange(support.size) % data.draw(st.integers(1, support.size))
    comps = sp.csr_array((r[support], (rows, support)), shape=(rows.max() + 1, n))
    res = top_k_contributions(prepare_graph(graph, reorder="degree"), comps, data.draw(st.integers(1, n)))
    exact = reference.seed_contributions_dense(graph, r)[1]
    grouped = np.zeros((rows.max() + 1, n))
    np.add.at(grouped, rows, exact)
    assert np.abs(res.parts - grouped).sum() <= 2 * res.error_bound + 1e-12
