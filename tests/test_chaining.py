"""Chaining retrievers and neighbourhood intersection: invariants against plain oracles."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.sparse.csgraph import shortest_path

from pathfinding.core.reference import nodes_at_distance_bfs
from pathfinding.core.scoring import rank_of
from pathfinding.experiments.contrast import VARIATION
from pathfinding.synthetic.chaining import (
    beam_retrieve,
    intersection_scores,
    iterative_retrieve,
    nodes_at_distance,
)
from pathfinding.synthetic.following import make_following_instance
from pathfinding.synthetic.instances import make_instance
from pathfinding.synthetic.toy import meet_node_toy
from pathfinding.synthetic.variation import make_varied_instance

from .strategies import weighted_graphs

variation = st.one_of(
    st.just({}), st.just(VARIATION), st.fixed_dictionaries({"shared_nodes": st.integers(1, 3)})
)


@st.composite
def instances(draw):
    shape = draw(st.sampled_from(["following", "finding"]))
    make = make_following_instance if shape == "following" else make_varied_instance
    return make(draw(st.integers(1, 4)), rng=draw(st.integers(0, 2**32 - 1)), **draw(variation))


@given(
    inst=instances(),
    width=st.integers(1, 5),
    budget=st.integers(1, 9),
    rule=st.sampled_from([None, "relations", "score"]),
    rng=st.integers(0, 2**32 - 1),
)
def test_never_ranks_an_unreached_node_above_a_reached_one(inst, width, budget, rule, rng):
    trace = beam_retrieve(inst, width=width, budget=budget, rule=rule, rng=rng)
    for k in range(trace.rounds + 1):
        scores = trace.scores(after=k)
        reached = np.array([trace.reached(v, after=k) for v in range(inst.n_nodes)])
        if reached.any() and (~reached).any():
            assert scores[reached].min() > scores[~reached].max()
        # chosen entities outrank every merely reached one
        chosen = [v for rnd, v in trace.chosen if rnd <= k]
        rest = reached.copy()
        rest[chosen] = False
        if chosen and rest.any():
            assert scores[chosen].min() > scores[rest].max()
        # what was reached only grows with the rounds
        if k:
            assert set(np.flatnonzero(trace.reached_round == k)).isdisjoint(
                v for v in range(inst.n_nodes) if trace.reached(v, after=k - 1)
            )


@given(inst=instances(), width=st.integers(1, 4), budget=st.integers(1, 8), rng=st.integers(0, 2**32 - 1))
def test_a_smaller_budget_is_a_prefix_of_a_larger_one(inst, width, budget, rng):
    """The budget sweep reads one long trace after every round; that must equal shorter runs."""
    long = beam_retrieve(inst, width=width, budget=8, rule="score", rng=rng)
    short = beam_retrieve(inst, width=width, budget=budget, rule="score", rng=rng)
    k = short.rounds
    assert short.chosen == tuple(c for c in long.chosen if c[0] <= k)
    assert np.array_equal(
        np.argsort(-short.scores(), kind="stable"), np.argsort(-long.scores(after=k), kind="stable")
    )
    assert rank_of(short.scores(), inst.answer, inst.candidates) == rank_of(
        long.scores(after=k), inst.answer, inst.candidates
    )


@given(hops=st.integers(1, 4), kw=variation, rng=st.integers(0, 2**32 - 1), tie=st.integers(0, 2**32 - 1))
def test_iterative_follows_the_relations_to_the_answer(hops, kw, rng, tie):
    inst = make_following_instance(hops, rng=rng, **kw)
    trace = iterative_retrieve(inst, rng=tie)
    assert [v for _, v in trace.chosen] == list(inst.paths[0][1:])
    assert trace.reached_round[inst.answer] == hops
    assert rank_of(trace.scores(), inst.answer, inst.candidates) == 1.0


@given(inst=instances(), rng=st.integers(0, 2**32 - 1))
def test_deterministic_given_rng(inst, rng):
    a, b = iterative_retrieve(inst, rng=rng), iterative_retrieve(inst, rng=rng)
    assert a.chosen == b.chosen and np.array_equal(a.scores(), b.scores())


def test_meet_node_toy_one_round():
    toy = meet_node_toy()
    trace = iterative_retrieve(toy, budget=1, rng=0)
    assert trace.chosen == ((1, toy.answer),)
    assert trace.reached_round.tolist() == [0, 0, 1, 1, 1]


@given(graph=weighted_graphs(max_nodes=12, symmetric=None), data=st.data())
def test_nodes_at_distance_matches_bfs_and_scipy(graph, data):
    n = graph.shape[0]
    seeds = data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=3))
    hops = data.draw(
        st.one_of(st.integers(0, 4), st.lists(st.integers(0, 4), min_size=len(seeds), max_size=len(seeds)))
    )
    got = np.flatnonzero(nodes_at_distance(graph, seeds, hops)).tolist()
    assert got == nodes_at_distance_bfs(graph, seeds, hops)
    D = shortest_path(graph, unweighted=True, directed=False, indices=seeds)
    depths = np.broadcast_to(np.asarray(hops), (len(seeds),))
    assert got == np.flatnonzero(np.all(D == depths[:, None], axis=0)).tolist()


@given(inst=instances())
def test_intersection_on_instances(inst):
    got = np.flatnonzero(intersection_scores(inst)).tolist()
    assert got == nodes_at_distance_bfs(inst.graph, inst.seeds, inst.hops)
    assert inst.answer in got


@given(hops=st.integers(1, 4), rng=st.integers(0, 2**32 - 1))
def test_intersection_finds_the_default_answer_alone(hops, rng):
    inst = make_instance(hops, rng=rng)
    assert np.flatnonzero(intersection_scores(inst)).tolist() == [inst.answer]


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"width": 0}, ValueError, "width"),
        ({"budget": 0}, ValueError, "budget"),
        ({"budget": 2.5}, TypeError, "budget"),
        ({"rule": "greedy"}, ValueError, "rule"),
    ],
)
def test_bad_input_is_named(kwargs, error, match):
    with pytest.raises(error, match=match):
        beam_retrieve(meet_node_toy(), **kwargs)


def test_bad_intersection_input_is_named():
    toy = meet_node_toy()
    with pytest.raises(ValueError, match="one per seed"):
        nodes_at_distance(toy.graph, [0, 1], [1, 2, 3])
    with pytest.raises(ValueError, match="hops"):
        nodes_at_distance(toy.graph, [0], -1)
    with pytest.raises(ValueError, match="seeds"):
        nodes_at_distance(toy.graph, [9], 1)


