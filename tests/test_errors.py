"""Every rejected argument of the core's public functions is named at the start of its error.

The project's contract (``pathfinding/errors.py``): a bad value gets the package's own error type
with a message that names the value and what was expected. A mutation run found that renaming the
argument in a message, or dropping a check that a later one happens to catch, passed every test;
each case below pins one message's opening words and the check that raises it.
"""

import numba
import numpy as np
import pytest
import scipy.sparse as sp

from pathfinding.core.scoring import (
    mention_count_scores,
    passage_scores,
    query_neighbour_scores,
    query_node_scores,
    query_two_hop_scores,
    rank_of,
)
from pathfinding.core.specificity import passage_counts, restart_matrix, restart_vector
from pathfinding.errors import InvalidTypeError, InvalidValueError
from pathfinding.synthetic.toy import meet_node_toy

TOY = meet_node_toy().graph  # five nodes

CASES = [
    (passage_counts, ([[-1.0]],), r"^mentions must have non-negative entries"),
    (restart_vector, (0, [0]), r"^n_nodes must be in \[1, inf\]"),
    (restart_vector, (2, [5]), r"^seeds "),
    (restart_vector, (2, [0]), {"specificity": [1.0]}, r"^specificity must have shape \(2,\)"),
    (restart_matrix, ([], 2), r"^restart must hold at least one seed id or be a length-n vector"),
    (restart_matrix, (np.array([True, False]), 2), r"^restart must be seed ids \(integers\) or a"),
    (restart_matrix, ([1.0, 2.0, 3.0], 2), r"^restart must have shape \(2,\)"),
    (restart_matrix, ([0.0, 0.0], 2), r"^restart must have positive total mass, column 0 sums to 0$"),
    (restart_matrix, (np.array([[1.0, 0.5], [np.nan, 0.5]]), 2), r"^restart\[:, 0\] must be finite"),
    (restart_matrix, (np.array([[1.0, 0.5], [-0.5, 0.5]]), 2), r"^restart must be non-negative, found"),
    (restart_matrix, (np.array([[1.0, 0.0], [1.0, 0.0]]), 2), r"^restart must have positive .* column 1"),
    (mention_count_scores, ([[-1.0]], [0]), r"^mentions must have non-negative entries"),
    (mention_count_scores, (np.eye(2), [5]), r"^seeds "),
    (passage_scores, ([0.5, 0.5], [[-1.0, 0.0], [0.0, 0.0]]), r"^mentions must have non-negative entries"),
    (passage_scores, ([0.1], np.eye(2)), r"^pi must have shape \(2,\)"),
    (query_node_scores, ([[0.5]],), r"^restart must have shape"),
    (query_neighbour_scores, (TOY, [1.0]), r"^restart must have shape \(5,\)"),
    (query_two_hop_scores, (TOY, [1.0]), r"^restart must have shape \(5,\)"),
    (query_two_hop_scores, (TOY, [1.0, -1.0, 0, 0, 0]), r"^restart must be non-negative with at least one"),
    (rank_of, ([np.nan, 1.0], 0, [0, 1]), r"^scores must be finite"),
    (rank_of, ([1.0, 2.0], 0, [0, 5]), r"^candidates "),
    (rank_of, ([1.0, 2.0], 0, [0, 0]), r"^candidates must be distinct node ids$"),
    (rank_of, ([1.0, 2.0], 5, [0, 1]), r"^target "),
]


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0].__name__}-{i}" for i, c in enumerate(CASES)])
def test_the_error_names_the_argument(case):
    fn, args, *kwargs, pattern = case
    with pytest.raises((InvalidValueError, InvalidTypeError), match=pattern):
        fn(*args, **(kwargs[0] if kwargs else {}))


def test_rank_of_draws_from_rng_only_for_random_ties():
    rng = np.random.default_rng(7)
    assert rank_of([1.0, 1.0, 1.0], 0, [0, 1, 2], rng=rng) == 2.0
    assert rng.random() == np.random.default_rng(7).random()  # the caller's generator is untouched


def test_ppr_names_bad_arguments():
    from pathfinding.core.ppr import ppr_solve, ppr_top_k, walk_step
    from pathfinding.synthetic.toy import star_pair

    toy = star_pair(9)
    with pytest.raises(InvalidValueError, match=r"^vector must have shape \(5,\)"):
        walk_step(TOY, [1.0])
    with pytest.raises(InvalidValueError, match=r"^margin must be in \[0.0, inf\)"):
        ppr_top_k(toy.graph, toy.seeds, 1, margin=-1.0)
    with pytest.raises(InvalidValueError, match=r"^candidates "):
        ppr_top_k(toy.graph, toy.seeds, 1, candidates=[10_000])
    with pytest.raises(InvalidValueError, match=r"^threads must be in \[1, "):
        ppr_solve(toy.graph, toy.seeds, threads=0)
    with pytest.raises(InvalidValueError, match=r"^tol must be in \[0.0, inf\)"):
        ppr_solve(toy.graph, toy.seeds, tol=-1.0)
    with pytest.raises(InvalidValueError, match=r"^max_iter must be in \[1, inf\]"):
        ppr_solve(toy.graph, toy.seeds, max_iter=0)


def test_ppr_solvers_stop_at_1000_iterations_by_default():
    from pathfinding.core.ppr import ppr_solve, ppr_top_k
    from pathfinding.synthetic.toy import star_pair

    toy = star_pair(9)
    exact_count = ppr_solve(toy.graph, toy.seeds, tol=0)  # tol=0: exactly max_iter, no bound claimed
    assert exact_count.iterations == 1000 and exact_count.error_bound == np.inf
    # a restart of 1e-3 needs about 23,000 sweeps to reach tol=1e-10; the tied dead ends never certify
    res = ppr_top_k(toy.graph, toy.seeds, 2, candidates=toy.candidates, restart_prob=1e-3)
    assert res.iterations == 1000 and not res.certified


def test_personalized_pagerank_defaults_and_method_reach_the_solver():
    from pathfinding.core import reference
    from pathfinding.core._push import push_solve
    from pathfinding.core.ppr import personalized_pagerank, ppr_solve
    from pathfinding.core.prepared import prepare_graph
    from pathfinding.core.specificity import restart_vector
    from pathfinding.synthetic.toy import star_pair

    toy = star_pair(9)
    r = restart_vector(toy.graph.shape[0], toy.seeds)
    exact = reference.ppr_linear_solve(toy.graph.toarray(), r, 0.5)
    assert np.abs(personalized_pagerank(toy.graph, toy.seeds) - exact).sum() <= 1e-10  # tol=1e-10
    with pytest.raises(InvalidValueError, match=r"^threads must be in \[1, "):
        personalized_pagerank(toy.graph, toy.seeds, threads=0)
    # method="push" runs the push solver (its rounds, not power iterations or sweeps)
    g = prepare_graph(toy.graph)
    _, rounds, _, _ = push_solve(g, g.to_internal(r), 0.5, 1e-10, 1000)
    assert ppr_solve(toy.graph, toy.seeds, method="push").iterations == rounds
    assert ppr_solve(toy.graph, toy.seeds, method="power").iterations != rounds


def test_the_default_tolerance_is_tight_on_a_slowly_mixing_walk():
    """With restart 0.05 the walk keeps 95% of its mass per step: a loose default would show here."""
    from pathfinding.core.ppr import personalized_pagerank
    from pathfinding.core.reference import ppr_linear_solve

    n = 60
    ring = sp.diags_array([np.ones(n - 1), np.ones(n - 1)], offsets=[1, -1], format="csr")
    r = np.zeros(n)
    r[0] = 1.0
    exact = ppr_linear_solve(ring, r, restart_prob=0.05)
    assert np.abs(personalized_pagerank(ring, r, restart_prob=0.05) - exact).sum() < 1e-9


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs two numba threads")
def test_threads_turn_the_automatic_method_into_the_power_iteration():
    """Gauss-Seidel sweeps are sequential, so ``method="auto"`` with ``threads=2`` runs the power
    iteration: its iteration count is the power method's, not the (smaller) Gauss-Seidel count that
    the same call without threads gives."""
    from pathfinding.core.ppr import ppr_solve
    from pathfinding.synthetic.toy import star_pair

    graph, seeds = star_pair(9).graph, star_pair(9).seeds
    power = ppr_solve(graph, seeds, tol=1e-12, method="power").iterations
    sweeps = ppr_solve(graph, seeds, tol=1e-12, method="gauss-seidel").iterations
    assert sweeps < power
    assert ppr_solve(graph, seeds, tol=1e-12).iterations == sweeps
    assert ppr_solve(graph, seeds, tol=1e-12, threads=2).iterations == power
