"""Forward push (pathfinding.core._push): the kernel against its readable twin, the intervals the
top-k certificate rests on, the rounds of push_solve and the bound each one certifies."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

from pathfinding.core import _push, reference
from pathfinding.core.ppr import ppr_top_k
from pathfinding.core.prepared import prepare_graph
from tests.strategies import restart_vectors, weighted_graphs

alphas = st.sampled_from([0.15, 0.5, 0.85, 1.0])


def _exact_push_solution(graph, r, alpha):
    """x = alpha r + (1 - alpha) W^T x, the mass of a node without edges dropped (push's equation)."""
    W, _ = reference.transition_matrix(graph)
    return np.linalg.solve(np.eye(W.shape[0]) - (1 - alpha) * W.T, alpha * r)


@given(
    graph=weighted_graphs(max_nodes=12, symmetric=True),
    data=st.data(),
    alpha=alphas,
    eps=st.sampled_from([0.3, 1e-2, 1e-4]),
)
def test_push_leaves_every_node_inside_its_interval(graph, data, alpha, eps):
    # The bound ppr_top_k certifies with: on an undirected graph, after pushing to any threshold,
    # v = p + alpha res <= x <= v + (1 - alpha) min(e d, sum(res)), e = max res / d (d: weighted
    # degree). The e d term is the one that makes a low-degree node's interval narrow.
    r = data.draw(restart_vectors(graph.shape[0]))
    p, res = reference.forward_push(graph, r, alpha, eps)
    d = np.asarray(graph.sum(axis=1)).ravel()
    e = np.max(np.where(d > 0, res / np.where(d > 0, d, 1), 0.0))
    x = _exact_push_solution(graph, r, alpha)
    v = p + alpha * res
    assert np.all(v <= x + 1e-12)
    assert np.all(x <= v + (1 - alpha) * e * d + 1e-12)
    assert np.all(x <= v + (1 - alpha) * res.sum() + 1e-12)


@given(
    graph=weighted_graphs(max_nodes=12, symmetric=True),
    data=st.data(),
    budget=st.integers(0, 40),
    alpha=alphas,
)
def test_push_top_k_certifies_on_any_budget_and_leaves_its_scratch_clean(graph, data, budget, alpha):
    from pathfinding.core._push import ppr_push_top_k

    n = graph.shape[0]
    r = data.draw(restart_vectors(n))
    cand = np.array(sorted(data.draw(st.sets(st.integers(0, n - 1), min_size=1))))
    k = data.draw(st.integers(1, cand.size))
    g = prepare_graph(graph)
    items = g.internal_ids(cand)
    support = g.internal_ids(np.flatnonzero(r))
    inv = g.inv_out[items]
    max_deg = float(1 / inv[inv > 0].min()) if np.any(inv > 0) else 0.0
    with g.push_workspace() as scratch:
        out = ppr_push_top_k(
            g.indptr,
            g.indices,
            g.weights,
            g.unit,
            g.inv_out,
            support,
            r[np.flatnonzero(r)],
            items,
            max_deg,
            k,
            alpha,
            0.1,
            0.0,
            budget,
            *scratch,
            True,  # fill item_pos from items, and clear it
            np.empty(0, np.int64),
        )
        p, res, seen, _, _, queued, item_pos = scratch
        assert not p.any() and not res.any() and not seen.any() and not queued.any()
        assert np.all(item_pos == -1)
    assert out[1] <= budget  # pushes spent
    if out[4]:  # certified, even on a budget: the exact order
        exact = _exact_push_solution(graph, r, alpha)[cand]
        assert cand[out[2]].tolist() == cand[np.lexsort((np.arange(cand.size), -exact))[:k]].tolist()


@pytest.mark.parametrize(
    "restart, alpha",
    [
        # item 1 holds less restart than the isolated item 0, but its neighbour 2 sends it more
        ([0.6, 0.05, 0.35], 0.15),
        # item 1 holds no restart at all: push has not touched it when the budget is spent
        ([0.2, 0.0, 0.8], 0.5),
    ],
)
def test_push_top_k_counts_the_mass_still_owed(restart, alpha):
    from pathfinding.core._push import ppr_push_top_k

    graph = sp.csr_array(np.array([[0.0, 0, 0], [0, 0, 1], [0, 1, 0]]))  # node 0 alone, 1 - 2
    r = np.array(restart)
    exact = _exact_push_solution(graph, r, alpha)
    assert exact[1] > exact[0]
    g = prepare_graph(graph)
    support = np.flatnonzero(r)
    with g.push_workspace() as scratch:  # no push allowed: the residual is all still owed
        out = ppr_push_top_k(
            g.indptr,
            g.indices,
            g.weights,
            g.unit,
            g.inv_out,
            g.internal_ids(support),
            r[support],
            g.internal_ids(np.array([0, 1])),
            1.0,
            1,
            alpha,
            1.0,
            0.0,
            0,
            *scratch,
            True,
            np.empty(0, np.int64),
        )
    assert not out[4]  # item 0 leads on what has been banked; the intervals must not certify it
    assert ppr_top_k(graph, r, 1, candidates=[0, 1], restart_prob=alpha).top.tolist() == [1]


@given(
    graph=weighted_graphs(max_nodes=8),
    data=st.data(),
    alpha=st.sampled_from([0.15, 0.5, 0.85]),
    eps=st.sampled_from([1e-1, 1e-3, 1e-6]),
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
        indptr,
        indices,
        weights,
        g.unit,
        g.inv_out,
        p,
        res,
        seen,
        touched,
        support.size,
        np.empty(n, np.int64),
        queued,
        alpha,
        eps,
        2**62,
        np.empty(0, np.int64),
        0,
    )
    assert n_log == 0  # an empty log keeps nothing
    assert not queued.any()
    want_p, want_res = reference.forward_push(graph, r, alpha, eps)
    np.testing.assert_allclose(p, want_p, rtol=0, atol=1e-13)
    np.testing.assert_allclose(res, want_res, rtol=0, atol=1e-13)
    assert left == pytest.approx(want_res.sum(), abs=1e-13)
    assert set(touched[:n_touched].tolist()) == set(np.flatnonzero(seen).tolist())


def _push_once(graph, r, alpha, eps, max_pushes=2**62):
    """The kernel from a fresh start (all mass as residual), on node ids as given; ``eps`` may be a
    list of thresholds, pushed to in turn on the same arrays (a call resumes where the last stopped)."""
    n = graph.shape[0]
    g = prepare_graph(graph, reorder=None)
    indptr, indices, weights = g.forward_csr()
    p, res = np.zeros(n), np.asarray(r, dtype=float).copy()
    support = np.flatnonzero(r)
    seen = np.zeros(n, np.bool_)
    seen[support] = True
    touched = np.empty(n, np.int64)
    touched[: support.size] = support
    queued = np.zeros(n, np.bool_)
    n_touched = support.size
    for e in np.atleast_1d(eps):
        out = _push.ppr_push(
            indptr, indices, weights, g.unit, g.inv_out, p, res, seen, touched, n_touched,
            np.empty(n, np.int64), queued, alpha, e, max_pushes, np.empty(0, np.int64), 0,
        )  # fmt: skip
        n_touched = out[0]
    return p, res, out, queued


@given(graph=weighted_graphs(max_nodes=10), data=st.data(), alpha=alphas, budget=st.integers(0, 6))
def test_a_push_keeps_its_invariant_whenever_it_stops(graph, data, alpha, budget):
    """x = p + L res with L = alpha sum_t ((1 - alpha) W^T)^t: the solution for the residual, added to
    the estimate, is the solution; so ||x - p||_1 <= sum(res), after any number of pushes."""
    r = data.draw(restart_vectors(graph.shape[0]))
    p, res, (_, pushes, left, _), queued = _push_once(graph, r, alpha, 1e-9, max_pushes=budget)
    assert pushes <= budget and not queued.any()  # stopped early, the queue left as found
    x = _exact_push_solution(graph, r, alpha)
    np.testing.assert_allclose(p + _exact_push_solution(graph, res, alpha), x, rtol=0, atol=1e-12)
    assert left == pytest.approx(res.sum(), abs=1e-14) and np.abs(x - p).sum() <= left + 1e-12


def test_two_nodes_by_hand():
    """0 - 1 at restart 1/2 from node 0. Push 0: p0 = 1/2, res1 = 1/2. Push 1: p1 = 1/4, res0 = 1/4.
    Push 0: p0 = 5/8, res1 = 1/8 ... x = (2/3, 1/3), the geometric sums."""
    A = sp.csr_array(np.array([[0.0, 1.0], [1.0, 0.0]]))
    p, res, (n_touched, pushes, left, _), _ = _push_once(A, [1.0, 0.0], 0.5, 0.3)
    # eps 0.3: node 0 (res 1) and node 1 (res 1/2) are pushed, then res0 = 1/4 <= 0.3 stops it
    assert pushes == 2 and n_touched == 2
    np.testing.assert_allclose(p, [0.5, 0.25])
    np.testing.assert_allclose(res, [0.25, 0.0])
    assert left == 0.25
    pi, rounds, bound, _ = _push.push_solve(
        prepare_graph(A, reorder=None), np.array([1.0, 0.0]), 0.5, 1e-12, 100
    )
    np.testing.assert_allclose(pi, [2 / 3, 1 / 3], rtol=0, atol=1e-12)
    assert bound <= 1e-12 and pi.sum() == pytest.approx(1.0, abs=1e-15)


def test_a_dangling_node_hands_its_share_to_nobody():
    """0 -> 1, node 1 has no out-edge: push's x = (1/2, 1/4) drops node 1's onward share, and x / sum(x)
    is PPR with that mass returned to the restart: (2/3, 1/3)."""
    A = sp.csr_array(np.array([[0.0, 1.0], [0.0, 0.0]]))
    p, res, _, _ = _push_once(A, [1.0, 0.0], 0.5, 1e-12)
    np.testing.assert_allclose(p, [0.5, 0.25])
    np.testing.assert_allclose(res, [0.0, 0.0])
    pi, _, bound, _ = _push.push_solve(prepare_graph(A, reorder=None), np.array([1.0, 0.0]), 0.5, 1e-10, 50)
    np.testing.assert_allclose(pi, reference.ppr_linear_solve(A, [1.0, 0.0], 0.5), atol=1e-12)
    assert bound == 0.0  # no residual left at all: x is exact


@given(graph=weighted_graphs(max_nodes=12), data=st.data(), alpha=st.sampled_from([0.15, 0.5, 0.85]))
def test_push_solve_is_within_its_bound_of_the_linear_solve(graph, data, alpha):
    g = prepare_graph(graph)
    r = data.draw(restart_vectors(graph.shape[0]))
    pi, rounds, bound, pushes = _push.push_solve(g, g.to_internal(r), alpha, 1e-8, 200)
    exact = g.to_internal(reference.ppr_linear_solve(graph, r, alpha))
    assert bound <= 1e-8 and np.abs(pi - exact).sum() <= bound + 1e-13
    assert pi.sum() == pytest.approx(1.0, abs=1e-12) and rounds >= 1 and pushes >= 1


def test_rounds_shrink_the_threshold_by_four_and_stop_at_max_rounds():
    """On a path of 40 nodes a loose first round leaves residual; each later round pushes to a
    quarter of the last threshold, so the bound falls round by round; zero rounds is no estimate."""
    n = 40
    i = np.arange(n - 1)
    A = sp.csr_array((np.ones(2 * (n - 1)), (np.r_[i, i + 1], np.r_[i + 1, i])), shape=(n, n))
    g = prepare_graph(A, reorder=None)
    r = np.zeros(n)
    r[0] = 1.0
    bounds = [_push.push_solve(g, r, 0.15, 1e-3, k)[2] for k in (1, 2, 3)]
    assert bounds[0] > bounds[1] > bounds[2] and _push.push_solve(g, r, 0.15, 1e-3, 3)[1] == 3
    for rounds, eps in ((1, [1e-3]), (3, [1e-3, 2.5e-4, 6.25e-5])):  # tol, then a quarter of it each round
        pi, _, bound, _ = _push.push_solve(g, r, 0.15, 1e-3, rounds)
        p, res, _, _ = _push_once(A, r, 0.15, eps)
        np.testing.assert_allclose(pi, p / p.sum(), atol=1e-15)
        assert bound == pytest.approx(2 * res.sum() / (p.sum() + res.sum()), rel=1e-12)
    pi, rounds, bound, pushes = _push.push_solve(g, r, 0.15, 1e-3, 0)
    assert (rounds, bound, pushes) == (0, 2.0, 0) and np.array_equal(pi, r)


# --- the push log, and the same pushes replayed on a split of the restart vector ----------------------


def _logged_push(graph, r, alpha, eps, log):
    """ppr_push from a fresh start, on node ids as given, keeping its pushes in ``log``."""
    n = graph.shape[0]
    g = prepare_graph(graph, reorder=None)
    indptr, indices, weights = g.forward_csr()
    p, res = np.zeros(n), np.asarray(r, dtype=float).copy()
    support = np.flatnonzero(r)
    seen = np.zeros(n, np.bool_)
    seen[support] = True
    touched = np.empty(n, np.int64)
    touched[: support.size] = support
    out = _push.ppr_push(
        indptr, indices, weights, g.unit, g.inv_out, p, res, seen, touched, support.size,
        np.empty(n, np.int64), np.zeros(n, np.bool_), alpha, eps, 2**62, log, 0,
    )  # fmt: skip
    return g, (indptr, indices, weights), p, res, out


def test_the_log_lists_the_pushes_in_order_while_it_has_room():
    """0 - 1 from node 0 at eps 0.3 pushes node 0, then node 1 (test_two_nodes_by_hand): a log of
    room 4 holds [0, 1]; a log of room 1 holds the first push only, and the count still says 2."""
    A = sp.csr_array(np.array([[0.0, 1.0], [1.0, 0.0]]))
    log = np.full(4, -1, np.int64)
    *_, (_, pushes, _, n_log) = _logged_push(A, [1.0, 0.0], 0.5, 0.3, log)
    assert (pushes, n_log, log.tolist()) == (2, 2, [0, 1, -1, -1])
    short = np.full(1, -1, np.int64)
    *_, (_, pushes, _, n_log) = _logged_push(A, [1.0, 0.0], 0.5, 0.3, short)
    assert (pushes, n_log, short.tolist()) == (2, 1, [0])


def test_a_resumed_push_appends_to_the_log():
    """n_log on entry counts the entries kept: a second call writes after them, not over them."""
    A = sp.csr_array(np.array([[0.0, 1.0], [1.0, 0.0]]))
    g = prepare_graph(A, reorder=None)
    indptr, indices, weights = g.forward_csr()
    p, res = np.zeros(2), np.array([1.0, 0.0])
    seen = np.array([True, False])
    touched = np.array([0, 0], np.int64)
    log = np.array([7, -1, -1], np.int64)
    out = _push.ppr_push(
        indptr, indices, weights, g.unit, g.inv_out, p, res, seen, touched, 1,
        np.empty(2, np.int64), np.zeros(2, np.bool_), 0.5, 0.3, 2**62, log, 1,
    )  # fmt: skip
    assert out[3] == 3 and log.tolist() == [7, 0, 1]


@given(graph=weighted_graphs(max_nodes=10), data=st.data(), alpha=st.sampled_from([0.15, 0.5, 0.85]))
def test_replayed_pushes_split_the_estimate_by_piece_of_the_restart(graph, data, alpha):
    """Replaying the log on pieces of r: the columns add up to the logged push's p and res, and each
    column keeps push's invariant for its own piece (p_j + L res_j = x(r_j)); dangling nodes and
    weighted edges included, so a replay that forgot either would not add up."""
    n = graph.shape[0]
    r = data.draw(restart_vectors(n))
    m = data.draw(st.integers(1, 3))
    cut = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1))).dirichlet(np.ones(m), size=n)
    pieces = r[:, None] * cut  # (n, m): column j is piece j of r
    log = np.empty(4 * n * n + 64, np.int64)
    g, csr, p, res, (_, pushes, _, n_log) = _logged_push(graph, r, alpha, 1e-4, log)
    assert n_log == pushes  # the log had room for every push
    p_j, res_j = np.zeros((n, m)), pieces.copy()  # C order, changed in place
    _push.replay_pushes(*csr, g.unit, g.inv_out, log, n_log, p_j, res_j, alpha)
    np.testing.assert_allclose(p_j.sum(axis=1), p, rtol=0, atol=1e-13)
    np.testing.assert_allclose(res_j.sum(axis=1), res, rtol=0, atol=1e-13)
    for j in range(m):
        np.testing.assert_allclose(
            p_j[:, j] + _exact_push_solution(graph, res_j[:, j], alpha),
            _exact_push_solution(graph, pieces[:, j], alpha),
            rtol=0, atol=1e-12,
        )  # fmt: skip


@given(
    graph=weighted_graphs(max_nodes=12, symmetric=True),
    data=st.data(),
    budget=st.integers(0, 200),
    alpha=alphas,
)
def test_top_k_push_pushes_as_rounds_of_ppr_push_would(graph, data, budget, alpha):
    """ppr_push_top_k queues each next round while it reads the touched nodes for its certificate:
    its pushes are those of ppr_push called once per round at the halved threshold, in order (on a
    budget: a tie is never certified, and the rounds would go on until the residual underflows)."""
    n = graph.shape[0]
    r = data.draw(restart_vectors(n))
    k = data.draw(st.integers(1, n))
    g = prepare_graph(graph, reorder=None)
    support, eps = np.flatnonzero(r), 0.1
    inv = g.inv_out
    max_deg = float(1 / inv[inv > 0].min()) if np.any(inv > 0) else 0.0
    log = np.full(10_000, -1, np.int64)
    with g.push_workspace() as scratch:
        rounds, pushes, *_, n_log = _push.ppr_push_top_k(
            g.indptr, g.indices, g.weights, g.unit, g.inv_out, support, r[support], np.arange(n), max_deg,
            k, alpha, eps, 0.0, budget, *scratch, True, log,
        )  # fmt: skip
    indptr, indices, weights = g.forward_csr()
    p, res = np.zeros(n), np.asarray(r, dtype=float).copy()
    seen = np.zeros(n, np.bool_)
    seen[support] = True
    touched = np.empty(n, np.int64)
    touched[: support.size] = support
    n_touched, queue, queued = support.size, np.empty(n, np.int64), np.zeros(n, np.bool_)
    by_rounds, spent = np.full(10_000, -1, np.int64), 0
    for _ in range(rounds):
        n_touched, done, _, _ = _push.ppr_push(
            indptr, indices, weights, g.unit, g.inv_out, p, res, seen, touched, n_touched, queue, queued,
            alpha, eps, budget - spent, by_rounds, spent,
        )  # fmt: skip
        spent += done
        eps *= 0.5
    assert pushes == n_log == spent and log[:n_log].tolist() == by_rounds[:spent].tolist()
