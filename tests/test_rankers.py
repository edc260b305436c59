"""Rankers against their readable twins, and on generated instances."""

import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import chisquare

from pathfinding.core import reference
from pathfinding.core.scoring import (
    mention_count_scores,
    passage_scores,
    query_neighbour_scores,
    query_node_scores,
    rank_of,
)
from pathfinding.synthetic.instances import make_instance
from pathfinding.synthetic.rankers import RANKERS
from pathfinding.synthetic.toy import meet_node_toy
from tests.strategies import restart_vectors, weighted_graphs


@st.composite
def count_matrices(draw):
    n = draw(st.integers(1, 10))
    m = draw(st.integers(1, 10))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    P = rng.integers(0, 3, size=(n, m)) * (rng.random((n, m)) < 0.4)
    return sp.csr_array(P.astype(float))


@given(P=count_matrices(), data=st.data())
def test_mention_count_matches_loops(P, data):
    seeds = data.draw(st.lists(st.integers(0, P.shape[0] - 1), min_size=1, max_size=4))
    np.testing.assert_allclose(
        mention_count_scores(P, seeds), reference.mention_count_scores_loops(P, seeds), atol=1e-9
    )


@given(P=count_matrices(), data=st.data())
def test_passage_scores_match_loops(P, data):
    pi = data.draw(restart_vectors(P.shape[0]))
    np.testing.assert_allclose(passage_scores(pi, P), reference.passage_scores_loops(pi, P), atol=1e-9)


@given(graph=weighted_graphs(), data=st.data())
def test_neighbour_scores_are_one_walk_step(graph, data):
    r = data.draw(restart_vectors(graph.shape[0]))
    W, _ = reference.transition_matrix(graph)
    np.testing.assert_allclose(query_neighbour_scores(graph, r), r + W.T @ r, atol=1e-12)


rngs = st.integers(0, 2**32 - 1)


@given(hops=st.integers(1, 3), rng=rngs)
def test_ppr_ranks_the_answer_first(hops, rng):
    inst = make_instance(hops, rng=rng)
    for name in ("ppr", "ppr_no_specificity"):
        assert rank_of(RANKERS[name](inst), inst.answer, inst.candidates) == 1.0


@given(rng=rngs)
def test_mention_count_finds_the_answer_at_one_hop(rng):
    inst = make_instance(1, rng=rng)
    assert rank_of(RANKERS["mention_count"](inst), inst.answer, inst.candidates) == 1.0


@given(hops=st.integers(2, 4), rng=rngs)
def test_mention_count_ties_every_candidate_beyond_one_hop(hops, rng):
    inst = make_instance(hops, rng=rng)
    scores = RANKERS["mention_count"](inst)
    assert np.unique(scores[inst.candidates]).size == 1
    assert rank_of(scores, inst.answer, inst.candidates) == 9.0


@given(hops=st.integers(1, 3), rng=rngs)
def test_table5_ablations(hops, rng):
    inst = make_instance(hops, rng=rng)
    assert rank_of(RANKERS["rq_nodes"](inst), inst.answer, inst.candidates) == 9.0
    expected = 1.0 if hops == 1 else 9.0
    assert rank_of(RANKERS["rq_neighbours"](inst), inst.answer, inst.candidates) == expected


def test_passage_scores_of_meet_node_toy():
    toy = meet_node_toy()
    pi = np.array([1 / 3, 1 / 3, 1 / 6, 1 / 12, 1 / 12])
    np.testing.assert_allclose(passage_scores(pi, toy.mentions), [0.5, 0.5, 5 / 12, 5 / 12])


def test_query_node_scores_copy():
    r = np.array([0.5, 0.5, 0.0])
    out = query_node_scores(r)
    out[0] = 9
    assert r[0] == 0.5


def test_rank_of_expected_ties():
    assert rank_of(np.zeros(17), 0, np.arange(17)) == 9.0
    assert rank_of([3.0, 2.0, 1.0], 0, [0, 1, 2]) == 1.0
    assert rank_of([3.0, 2.0, 1.0], 2, [0, 1, 2]) == 3.0
    assert rank_of([1.0, 1.0, 0.0, 5.0], 1, [0, 1, 2, 3]) == 2.5


def _rank_under_order(scores, target, candidates, order):
    """The target's position when candidates are sorted by score, ties in the given order."""
    ranked = sorted(candidates, key=lambda c: (-scores[c], order.index(c)))
    return ranked.index(target) + 1


@given(
    scores=st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0]), min_size=1, max_size=6),
    data=st.data(),
)
def test_expected_rank_is_the_mean_over_every_tie_order(scores, data):
    n = len(scores)
    candidates = list(range(n))
    target = data.draw(st.sampled_from(candidates))
    ranks = [
        _rank_under_order(scores, target, candidates, list(p)) for p in itertools.permutations(candidates)
    ]
    assert rank_of(scores, target, candidates) == pytest.approx(np.mean(ranks), abs=1e-12)


def test_random_ties_pass_a_chi_square_test_of_uniformity():
    # target tied with 5 others and beaten by 2: the random rank is uniform on 3..8
    scores = np.array([9.0, 9.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0])
    rng = np.random.default_rng(20261130)
    draws = np.array([rank_of(scores, 4, np.arange(9), ties="random", rng=rng) for _ in range(6000)])
    counts = np.array([np.count_nonzero(draws == k) for k in range(3, 9)])
    assert counts.sum() == draws.size  # nothing outside 3..8
    assert chisquare(counts).pvalue > 1e-3  # fixed seed: deterministic; a biased tie-break fails it


def test_rank_of_random_ties_is_uniform_and_seeded():
    draws = [rank_of(np.zeros(17), 0, np.arange(17), ties="random", rng=s) for s in range(3400)]
    assert set(draws) == set(map(float, range(1, 18)))
    assert abs(np.mean(draws) - 9.0) < 0.5
    again = [rank_of(np.zeros(17), 0, np.arange(17), ties="random", rng=s) for s in range(3400)]
    assert draws == again


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "match"),
    [
        (([1.0, 2.0], 0, [1]), {}, ValueError, "not among the candidates"),
        (([1.0, 2.0], 0, [0, 0]), {}, ValueError, "distinct"),
        (([1.0, 2.0], 0, [0, 2]), {}, ValueError, r"in \[0, 2\)"),
        (([1.0, np.nan], 0, [0, 1]), {}, ValueError, "finite"),
        (([1.0, 2.0], 0, [0, 1]), {"ties": "first"}, ValueError, "ties"),
        (([[1.0]], 0, [0]), {}, ValueError, "shape"),
    ],
)
def test_rank_of_bad_input(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        rank_of(*args, **kwargs)


def test_mention_and_passage_bad_input():
    toy = meet_node_toy()
    with pytest.raises(ValueError, match=r"in \[0, 5\)"):
        mention_count_scores(toy.mentions, [5])
    with pytest.raises(ValueError, match=r"shape \(5,\)"):
        passage_scores(np.ones(4), toy.mentions)
    with pytest.raises(ValueError, match="non-negative"):
        mention_count_scores(-toy.mentions, [0])
    with pytest.raises(ValueError, match=r"shape \(5,\)"):
        query_neighbour_scores(toy.graph, np.ones(3))
