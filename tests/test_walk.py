"""The checks of notebooks 0, 2 and 3 (pathfinding.course.exercises.walk): restart vectors, hub counts,
chance ranks and how far behind the answer's passage is, each measured here."""

from fractions import Fraction

import numpy as np
import pytest

from pathfinding.core.ppr import personalized_pagerank
from pathfinding.core.scoring import passage_scores, rank_of
from pathfinding.core.specificity import node_specificity, restart_vector
from pathfinding.course import exercises as ex
from pathfinding.course.exercises import walk
from pathfinding.synthetic.instances import make_instance
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
    inst = make_instance(2, distractors=5, rng=0)
    measured = rank_of(RANKERS["mention_count"](inst), inst.answer, inst.candidates)
    assert ex.check_chance_rank(5, measured)
    assert ex.check_chance_rank(5, Fraction(measured).limit_denominator(2))
    assert ex.check_chance_rank(5, np.int64(round(measured)))
    assert not ex.check_chance_rank(5, measured - 0.5)
    assert "without quotes" in ex.check_chance_rank(5, "six").message


def test_chance_rank_refuses_another_number_of_distractors():
    changed = ex.check_chance_rank(4, 5)  # right for 4 distractors, but 3.1 asks about 5
    assert not changed and "exercise 3.1, which asks about 5 distractor chains" in changed.message
    _rejected_with(ex.check_chance_rank(5, 5), "ranks count from 1")


def _measured_share(hops, **walk):
    inst = make_instance(hops, rng=3)  # any seed: the generator's randomness only relabels
    r = restart_vector(inst.n_nodes, inst.seeds, specificity=node_specificity(inst.mentions))
    scores = passage_scores(personalized_pagerank(inst.graph, r, **walk), inst.mentions)
    answer = np.flatnonzero(inst.mentions.toarray()[inst.answer])
    return scores[answer].max() / scores.max()


def test_passage_share_measured_in_every_form():
    share = _measured_share(4, tol=1e-12)
    for answer in (share, round(share, 5), np.float32(share), Fraction(share).limit_denominator(10**6)):
        assert ex.check_passage_share(answer), answer
    coarse = ex.check_passage_share(float(f"{share:.2g}"))
    assert not coarse and coarse.message.startswith("close — keep more digits")
    assert "close" not in ex.check_passage_share(share * 1.01).message


@pytest.mark.parametrize(
    ("answer", "hint"),
    [
        (lambda: _measured_share(4, tol=0, max_iter=1), "after one step"),
        (lambda: _measured_share(4, restart_prob=0.15, tol=1e-12), "networkx's pagerank default"),
        (lambda: _measured_share(4, restart_prob=0.85, tol=1e-12), "networkx's damping read as a restart"),
        (lambda: 1 / _measured_share(4, tol=1e-12), "a number below 1"),
        (lambda: _measured_share(3, tol=1e-12), "the share at three hops"),
        (lambda: 100 * _measured_share(4, tol=1e-12), "that is a percentage"),
    ],
    ids=["one step", "restart 0.15", "restart 0.85", "upside down", "three hops", "percent"],
)
def test_passage_share_names_each_slip_measured_here(answer, hint):
    _rejected_with(ex.check_passage_share(answer()), hint)


def test_passage_share_is_not_the_rank_findings_prints():
    # FINDINGS row A9 prints the rank (55); the exercise asks for the share, which no page prints
    from pathfinding.experiments.passages import passage_ranks

    rank = passage_ranks(make_instance(4, rng=0))["pi_P"][0]
    assert rank == 55
    assert not ex.check_passage_share(rank)
