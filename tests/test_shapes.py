"""The checks of notebook 4 (pathfinding.course.exercises.shapes): instances that do or do not defeat
PPR, built here from facts, and the first branching that costs the answer its place, measured here."""

import numpy as np

from pathfinding.core.scoring import rank_of
from pathfinding.course import exercises as ex
from pathfinding.course.exercises import shapes
from pathfinding.synthetic.instances import instance_from_facts, make_instance
from pathfinding.synthetic.rankers import RANKERS
from tests.test_exercises import rejected_with as _rejected_with


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
    _rejected_with(ex.check_defeating_shape(one_seed), shapes.DEFEATING_SHAPE_WRONG[0].hint)
    seed_answer = _with_facts(defeat, defeat.facts, answer=int(defeat.seeds[0]))
    _rejected_with(ex.check_defeating_shape(seed_answer), shapes.DEFEATING_SHAPE_WRONG[2].hint)
    hidden = instance_from_facts(
        defeat.facts, defeat.node_names, defeat.passages, seeds=defeat.seeds, answer=defeat.answer,
        candidates=np.setdiff1d(defeat.candidates, [defeat.answer]), hops=defeat.hops,
    )  # fmt: skip
    _rejected_with(ex.check_defeating_shape(hidden), shapes.DEFEATING_SHAPE_WRONG[2].hint)


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
    assert ex.check_slip_branching(three, seeds=3) and ex.check_slip_branching(np.int32(three), seeds=3)
    assert ex.check_slip_branching(float(three), seeds=3)
    _rejected_with(ex.check_slip_branching(two, seeds=3), "where two seeds' answer slips")
    _rejected_with(ex.check_slip_branching(three - 1, seeds=3), "still ranks the answer first")
    _rejected_with(ex.check_slip_branching(three - 0.5, seeds=3), "not a whole number")


def test_slip_branching_shows_a_near_whole_answer_as_it_was_given():
    fb = ex.check_slip_branching(5.0000001, seeds=3)
    assert not fb and fb.message.startswith("5.0000001; hint: that is not a whole number"), fb.message


def test_slip_branching_refuses_another_number_of_seeds():
    # 3 is the right answer for two seeds, but exercise 4.2 asks about three
    _rejected_with(ex.check_slip_branching(3, seeds=2), "exercise 4.2, which asks about 3 seeds")


# --- the candidates must be the exercise's --------------------------------------------------------


def _with_candidates(inst, candidates):
    return instance_from_facts(
        inst.facts, inst.node_names, inst.passages, seeds=inst.seeds, answer=inst.answer,
        candidates=candidates, hops=inst.hops,
    )  # fmt: skip


def _neighbours(inst, node):
    A = inst.graph.tocsr()
    return A.indices[A.indptr[node] : A.indptr[node + 1]]


def test_defeating_shape_rejects_candidates_widened_to_a_seeds_neighbours():
    inst = make_instance(2, rng=0)
    near = np.setdiff1d(_neighbours(inst, inst.seeds[0]), inst.candidates)
    widened = _with_candidates(inst, np.r_[inst.candidates, near])
    # the loophole: with nodes one hop from a seed as candidates, PPR "loses"
    assert rank_of(RANKERS["ppr"](widened), widened.answer, widened.candidates) > 1
    _rejected_with(ex.check_defeating_shape(widened), "nearer than the answer is to any seed")


def test_defeating_shape_rejects_a_bridge_node_as_a_candidate():
    inst = make_instance((2, 3), rng=0)  # the deeper seed's bridge node next to the answer is at depth 2
    bridge = np.setdiff1d(_neighbours(inst, inst.answer), inst.candidates)
    widened = _with_candidates(inst, np.r_[inst.candidates, bridge])
    _rejected_with(ex.check_defeating_shape(widened), "lies on the path from seed")


def test_defeating_shape_accepts_the_generators_candidates_for_every_knob():
    for inst in (
        make_instance(2, bridge_branching=3, rng=0),
        make_instance(3, decoy_hops=1, rng=0),  # the decoy is a candidate nearer the seeds: a meet node
        make_instance((2, 3), bridge_branching=2, rng=0),
        make_instance(2, hub_passages=64, rng=0),
    ):
        assert shapes._misplaced_candidate(inst) is None
    assert ex.check_defeating_shape(make_instance(3, decoy_hops=1, rng=0))
