"""The checks of notebooks 2-4 (pathfinding.course.exercises.walk): restart vectors, hub counts, chance
and passage ranks, and the shapes that do or do not defeat PPR, each measured here."""

from fractions import Fraction

import numpy as np
import pytest

from pathfinding.core.scoring import rank_of
from pathfinding.core.specificity import node_specificity, restart_vector
from pathfinding.course import exercises as ex
from pathfinding.course.exercises import walk
from pathfinding.synthetic.instances import instance_from_facts, make_instance
from pathfinding.synthetic.rankers import RANKERS
from pathfinding.synthetic.toy import passage_count_matrix
from tests.test_exercises import rejected_with as _rejected_with


@pytest.mark.parametrize("model", walk.RESTART_WRONG, ids=lambda m: m.name)
def test_restart_wrong_models(model):
    # counts of 1 and 2 per passage, so that counting mentions differs from counting passages
    P = passage_count_matrix((20, 5, 8)).tolil()
    P[1, :3] = 2
    P = P.tocsr()
    got = model.value(P, [0, 1, 2])
    _rejected_with(ex.check_restart(P, [0, 1, 2], got), model.hint)
    _rejected_with(ex.check_restart(P, [0, 1, 2], np.round(got, 3).tolist()), model.hint)


# --- notebook 2 ------------------------------------------------------------------------------------


def test_restart_right_in_every_form():
    P = passage_count_matrix((20, 5))
    assert ex.check_restart(P, [0, 1], [0.2, 0.8])  # the chapter's hand-computed example
    assert ex.check_restart(P, [0, 1], (Fraction(1, 5), Fraction(4, 5)))
    assert ex.check_restart(P, [0, 1], np.array([[0.2], [0.8]]))  # a column vector reads as a vector
    P3 = passage_count_matrix((2, 4, 8))
    want = restart_vector(3, [0, 1, 2], specificity=node_specificity(P3))
    assert ex.check_restart(P3, [0, 1, 2], np.round(want, 3).tolist())
    coarse = ex.check_restart(P3, [0, 1, 2], np.round(want, 2))
    assert not coarse and coarse.message.startswith("close — keep more digits")


def test_restart_wrong_shapes_are_feedback():
    P = passage_count_matrix((20, 5))
    padded = passage_count_matrix((20, 5, 3))
    short = ex.check_restart(padded, [0, 1], [0.2, 0.8])  # the seeds only, not one entry per node
    assert not short and "one entry per node of the graph (3)" in short.message
    assert "without quotes" in ex.check_restart(P, [0, 1], "0.2, 0.8").message
    assert "tuple, list or array" in ex.check_restart(P, [0, 1], None).message
    assert "finite" in ex.check_restart(P, [0, 1], [np.nan, 1.0]).message


def test_hub_threshold_by_brute_force():
    def share(n):
        P = passage_count_matrix((n, 5))
        return restart_vector(2, [0, 1], specificity=node_specificity(P))[0]

    first = next(n for n in range(1, 200) if share(n) < 0.15)
    assert ex.check_hub_threshold(first)
    assert ex.check_hub_threshold(float(first)) and ex.check_hub_threshold(np.int64(first))
    assert "still above" in ex.check_hub_threshold(first - 1).message
    assert "whole number" in ex.check_hub_threshold(first - 0.5).message
    message = ex.check_hub_threshold(3).message
    assert "(1/n)" not in message and "5/(5" not in message  # the hint does not give the formula away


# --- notebook 3 ------------------------------------------------------------------------------------


def test_chance_rank_matches_the_tied_rankers():
    for d in (3, 5, 8):
        inst = make_instance(2, distractors=d, rng=0)
        measured = rank_of(RANKERS["mention_count"](inst), inst.answer, inst.candidates)
        assert ex.check_chance_rank(d, measured)
        assert ex.check_chance_rank(d, Fraction(measured).limit_denominator(2))
        assert not ex.check_chance_rank(d, measured - 0.5)
    assert "without quotes" in ex.check_chance_rank(8, "nine").message


def test_passage_rank_measured():
    from pathfinding.experiments.passages import passage_ranks

    measured = passage_ranks(make_instance(4, rng=0))["pi_P"][0]
    assert ex.check_passage_rank(4, measured) and ex.check_passage_rank(4, np.int64(round(measured)))
    assert "close —" not in ex.check_passage_rank(4, measured + 3).message


# --- notebook 4 ------------------------------------------------------------------------------------


def _with_facts(inst, facts, *, answer=None, seeds=None):
    """``inst`` rebuilt from ``facts`` (same names, one passage per fact)."""
    facts = np.asarray(facts).reshape(-1, 2)
    names = inst.node_names
    return instance_from_facts(
        facts,
        names,
        [f"{names[a]} knows {names[b]}." for a, b in facts],
        seeds=inst.seeds if seeds is None else seeds,
        answer=inst.answer if answer is None else answer,
        candidates=inst.candidates,
        hops=inst.hops,
    )


def _touches(facts, node):
    return (facts == node).any(axis=1)


def _toy(facts, candidates, *, answer=2, seeds=(0, 1)):
    names = [f"n{i}" for i in range(1 + int(np.max(facts)))]
    return instance_from_facts(
        np.array(facts),
        names,
        [f"{names[a]} met {names[b]}." for a, b in facts],
        seeds=list(seeds),
        answer=answer,
        candidates=candidates,
        hops=2,
    )


def test_defeating_shape_accepts_a_real_defeat_and_rejects_the_plain_shape():
    assert ex.check_defeating_shape(make_instance(2, bridge_branching=3, rng=0))
    _rejected_with(ex.check_defeating_shape(make_instance(2, rng=0)), "still ranks the answer first")
    one_hop = make_instance(1, rng=0)
    joined = _with_facts(one_hop, np.vstack([one_hop.facts, one_hop.seeds[:2]]))
    _rejected_with(ex.check_defeating_shape(joined), "names two seeds")
    assert "PathFindingInstance" in ex.check_defeating_shape("my shape").message


def test_defeating_shape_rejects_one_seed_and_an_answer_that_is_no_candidate():
    defeat = make_instance(2, bridge_branching=3, rng=0)
    one_seed = _with_facts(defeat, defeat.facts, seeds=defeat.seeds[:1])
    _rejected_with(ex.check_defeating_shape(one_seed), walk.DEFEATING_SHAPE_WRONG[0].hint)
    seed_answer = _with_facts(defeat, defeat.facts, answer=int(defeat.seeds[0]))
    _rejected_with(ex.check_defeating_shape(seed_answer), walk.DEFEATING_SHAPE_WRONG[2].hint)
    hidden = instance_from_facts(
        defeat.facts, defeat.node_names, defeat.passages, seeds=defeat.seeds, answer=defeat.answer,
        candidates=np.setdiff1d(defeat.candidates, [defeat.answer]), hops=defeat.hops,
    )  # fmt: skip
    _rejected_with(ex.check_defeating_shape(hidden), walk.DEFEATING_SHAPE_WRONG[2].hint)


def test_defeating_shape_rejects_a_twin_of_the_answer():
    # the answer 2 and its twin 3 both sit between the seeds: PPR ties them, rank 1.5
    twin = _toy([(0, 2), (1, 2), (0, 3), (1, 3), (0, 4), (1, 5)], [2, 3, 4, 5])
    assert rank_of(RANKERS["ppr"](twin), twin.answer, twin.candidates) == 1.5
    _rejected_with(ex.check_defeating_shape(twin), "a tie is not a defeat")


def test_defeating_shape_rejects_an_answer_one_hop_behind_the_meet_node():
    # both seeds reach node 3 first; the declared answer 2 hangs behind it
    behind = _toy([(0, 3), (1, 3), (3, 2), (0, 4), (1, 5)], [2, 3, 4, 5])
    assert rank_of(RANKERS["ppr"](behind), behind.answer, behind.candidates) > 1
    _rejected_with(ex.check_defeating_shape(behind), "passes through node 'n3'")
    # a chain of two in front: the node nearest the seeds is named as the meet
    deeper = _toy([(0, 3), (1, 3), (3, 6), (6, 2), (0, 4), (1, 5)], [2, 3, 4, 5])
    _rejected_with(ex.check_defeating_shape(deeper), "passes through node 'n3'")


def test_defeating_shape_rejects_an_answer_no_seed_or_one_seed_reaches():
    inst = make_instance(2, rng=0)
    cut = _with_facts(inst, inst.facts[~_touches(inst.facts, inst.answer)])
    assert rank_of(RANKERS["ppr"](cut), cut.answer, cut.candidates) > 1
    _rejected_with(ex.check_defeating_shape(cut), "no seed reaches the answer")
    inst = make_instance(1, rng=0)
    u, w = inst.seeds[:2]
    one_sided = inst.facts[~(_touches(inst.facts, inst.answer) & _touches(inst.facts, w))]
    _rejected_with(ex.check_defeating_shape(_with_facts(inst, one_sided)), "only one seed")
    # w reaches the answer only through u (w - u's dead end - u - answer): still a one-seed question
    u_fact = inst.facts[_touches(inst.facts, u) & ~_touches(inst.facts, inst.answer)][0]
    u_dead_end = u_fact[u_fact != u][0]
    through_u = _with_facts(inst, np.vstack([one_sided, [[w, u_dead_end]]]))
    _rejected_with(ex.check_defeating_shape(through_u), "only one seed")


def test_slip_branching_is_the_first_defeating_value():
    def first(seeds):
        def rank(b):
            i = make_instance(2, seeds=seeds, bridge_branching=b, rng=1)
            return rank_of(RANKERS["ppr"](i), i.answer, i.candidates)

        return next(b for b in range(1, 10) if rank(b) > 1)

    two, three = first(2), first(3)
    assert ex.check_slip_branching(two) and ex.check_slip_branching(float(two))
    assert ex.check_slip_branching(three, seeds=3) and ex.check_slip_branching(np.int32(three), seeds=3)
    _rejected_with(ex.check_slip_branching(two, seeds=3), "where two seeds' answer slips")
    _rejected_with(ex.check_slip_branching(three - 1, seeds=3), "still ranks the answer first")
    _rejected_with(ex.check_slip_branching(three - 0.5, seeds=3), "whole number")
