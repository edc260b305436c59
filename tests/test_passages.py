"""Passage-level ranks (Step 7): the tie rule against brute force, and the hand-derived depth story."""

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pathfinding.core.reference import ppr_linear_solve
from pathfinding.experiments.passages import best_passage_rank, meet_mass, passage_ranks
from pathfinding.synthetic.instances import make_instance


@given(
    st.lists(st.integers(0, 3), min_size=1, max_size=7),
    st.lists(st.booleans(), min_size=7, max_size=7),
)
def test_best_passage_rank_is_the_mean_over_every_tie_order(scores, flags):
    scores = np.asarray(scores, dtype=float)
    targets = np.asarray(flags[: scores.size])
    if not targets.any():
        targets[0] = True
    # Brute force: sort by score, break ties by every permutation, take the first target's position.
    positions = []
    for order in itertools.permutations(range(scores.size)):
        ranked = sorted(order, key=lambda j: -scores[j])  # sorted() is stable: ties keep `order`
        positions.append(1 + next(p for p, j in enumerate(ranked) if targets[j]))
    assert best_passage_rank(scores, targets) == pytest.approx(np.mean(positions))


def test_best_passage_rank_rejects_a_pool_without_targets():
    with pytest.raises(ValueError, match="no target passage"):
        best_passage_rank([0.5, 0.1], [True, False], pool=[1])
    with pytest.raises(ValueError, match="shape"):
        best_passage_rank([0.5, 0.1], [True])


def test_meet_mass_is_the_minimum_of_the_seeds_own_walks():
    inst = make_instance(2, rng=3)
    walks = []
    for s in inst.seeds:
        r = np.zeros(inst.n_nodes)
        r[s] = 1.0
        walks.append(ppr_linear_solve(inst.graph, r))
    np.testing.assert_allclose(meet_mass(inst), np.min(walks, axis=0), atol=1e-9)
    # the answer is the node every walk reaches best, apart from the seeds themselves
    others = np.setdiff1d(np.arange(inst.n_nodes), inst.seeds)
    assert others[np.argmax(meet_mass(inst)[others])] == inst.answer


@pytest.mark.parametrize("hops", [1, 2, 3])
def test_pi_p_ranks_the_answer_passage_after_every_nearer_passage(hops):
    # Derived by hand: one passage per fact, 9 chains of `hops` facts per seed (8 dead ends, 1 bridge).
    # Mass decays with depth, so every passage whose nearer node is closer to a seed than the answer's
    # passage (depth hops - 1) outranks it: 2 seeds x 9 chains x (hops - 1) passages, then the answer's
    # two passages tie first among the passages at its depth.
    inst = make_instance(hops, rng=11)
    ranks = passage_ranks(inst)
    assert ranks["pi_P"] == (2 * 9 * (hops - 1) + 1.0, 18 * hops, 2)
    assert ranks["meet_mass"][0] == 1.0
    if hops == 1:
        assert np.isnan(ranks["pi_P_no_query_passages"][0])  # every answer passage names a seed
    else:
        assert ranks["pi_P_no_query_passages"] == (2 * 9 * (hops - 2) + 1.0, 18 * (hops - 1), 2)
