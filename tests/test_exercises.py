"""Every exercise check: an answer measured with the package passes, a typical wrong answer fails with
the hint meant for it, and an unanswered exercise neither passes nor crashes.

The "correct" answers here are measured (PPR runs, brute force, enumeration), not copied from the
formulas inside pathfinding.course.exercises, so a wrong formula in a check fails these tests.
"""

import itertools
import math

import numpy as np
import pytest

from pathfinding.core.ppr import personalized_pagerank
from pathfinding.core.scoring import rank_of
from pathfinding.core.specificity import node_specificity, restart_vector
from pathfinding.course import exercises as ex
from pathfinding.course.costs import CostModel, break_even_queries, offline_share
from pathfinding.synthetic.instances import make_instance
from pathfinding.synthetic.rankers import RANKERS
from pathfinding.synthetic.toy import passage_count_matrix, star_pair


def _one_step_measured(d, alpha):
    toy = star_pair(d)
    pi = personalized_pagerank(toy.graph, toy.seeds, restart_prob=alpha, tol=0, max_iter=1)
    return pi[toy.answer], pi[toy.candidates[-1]]


def _stationary_measured(d, alpha):
    toy = star_pair(d)
    pi = personalized_pagerank(toy.graph, toy.seeds, restart_prob=alpha, tol=1e-14)
    return pi[toy.seeds[0]], pi[toy.answer], pi[toy.candidates[-1]]


def _unanswered_is_not_ok(feedback):
    assert not feedback and "no answer yet" in feedback.message


def test_feedback_reads_as_a_verdict():
    assert repr(ex.Feedback(True, "x")) == "correct: x"
    assert repr(ex.Feedback(False, "y")) == "not yet: y"
    assert not ex.Feedback(False, "y")


@pytest.mark.parametrize(
    "check",
    [
        lambda: ex.check_one_step(lambda d, a: ...),
        lambda: ex.check_stationary(lambda d, a: ...),
        lambda: ex.check_margin(lambda r1, r2: ...),
        lambda: ex.check_specificity_margin(...),
        lambda: ex.check_three_seeds(...),
        lambda: ex.check_restart(passage_count_matrix((20, 5)), [0, 1], ...),
        lambda: ex.check_hub_threshold(...),
        lambda: ex.check_chance_rank(8, ...),
        lambda: ex.check_passage_rank(2, ...),
        lambda: ex.check_defeating_shape(...),
        lambda: ex.check_slip_branching(...),
        lambda: ex.check_break_even(10, 20, ...),
        lambda: ex.check_half_share(10, ...),
        lambda: ex.check_connected_probability(36, 4, 4, ...),
        lambda: ex.check_monitor(lambda inst, pi: ..., trials=2),
        lambda: ex.check_missed_question(None, ..., []),
    ],
)
def test_an_unanswered_exercise_says_so_and_does_not_crash(check):
    _unanswered_is_not_ok(check())


def test_one_step():
    assert ex.check_one_step(_one_step_measured)
    _unanswered_is_not_ok(ex.check_one_step(...))
    swapped = ex.check_one_step(lambda d, a: (2 * a * 0.5 / d, a * 0.5 / d))
    assert not swapped and "restarts stays at the seed" in swapped.message
    whole = ex.check_one_step(lambda d, a: tuple(2 * m for m in _one_step_measured(d, a)))
    assert not whole and "half of the restart mass" in whole.message
    with pytest.raises(TypeError, match="2 numbers"):
        ex.check_one_step(lambda d, a: 0.1)


def test_stationary():
    assert ex.check_stationary(_stationary_measured)
    assert np.allclose(_stationary_measured(9, 0.5), (1 / 3, 1 / 27, 1 / 54))  # the chapter's numbers
    no_return = ex.check_stationary(lambda d, a: (a / 2, (1 - a) * a / d, (1 - a) * a / (2 * d)))
    assert not no_return and "send their mass back" in no_return.message


def test_margin_and_specificity_margin():
    def measured(r1, r2):
        toy = star_pair(9)
        r = np.zeros(toy.n_nodes)
        r[toy.seeds] = r1, r2
        pi = personalized_pagerank(toy.graph, r, tol=0, max_iter=1)
        dead = np.setdiff1d(toy.candidates, [toy.answer])
        return pi[toy.answer] / pi[dead].max()

    assert ex.check_margin(measured)
    flipped = ex.check_margin(lambda r1, r2: 1 + r1 / r2)
    assert not flipped and "heavier seed" in flipped.message
    spec = restart_vector(2, [0, 1], specificity=node_specificity(passage_count_matrix((20, 5))))
    assert ex.check_specificity_margin(measured(spec[1], spec[0]))
    assert "specificity changes" in ex.check_specificity_margin(2.0).message


def test_three_seeds():
    inst = make_instance(1, seeds=3, rng=0)
    pi = personalized_pagerank(inst.graph, inst.seeds, tol=0, max_iter=1)
    dead = np.setdiff1d(inst.candidates, [inst.answer])
    assert ex.check_three_seeds(pi[inst.answer] / pi[dead].max())
    assert "every one of the three" in ex.check_three_seeds(2.0).message


def test_restart():
    P = passage_count_matrix((20, 5))
    assert ex.check_restart(P, [0, 1], [0.2, 0.8])  # the chapter's hand-computed example
    assert "1/|P_i|, not |P_i|" in ex.check_restart(P, [0, 1], [0.8, 0.2]).message
    assert "sums to 1" in ex.check_restart(P, [0, 1], [0.05, 0.2]).message
    with pytest.raises(TypeError, match="one entry per node"):
        ex.check_restart(P, [0, 1], [1.0])


def test_hub_threshold_by_brute_force():
    def share(n):
        P = passage_count_matrix((n, 5))
        return restart_vector(2, [0, 1], specificity=node_specificity(P))[0]

    first = next(n for n in range(1, 200) if share(n) < 0.15)
    assert ex.check_hub_threshold(first)
    assert "still above" in ex.check_hub_threshold(first - 1).message


def test_chance_rank_matches_the_tied_rankers():
    for d in (3, 8):
        inst = make_instance(2, distractors=d, rng=0)
        measured = rank_of(RANKERS["mention_count"](inst), inst.answer, inst.candidates)
        assert ex.check_chance_rank(d, measured)
        assert not ex.check_chance_rank(d, measured - 0.5)
    with pytest.raises(TypeError, match="number"):
        ex.check_chance_rank(8, "nine")


def test_passage_rank():
    assert ex.check_passage_rank(3, 37.0)  # 2 seeds x 9 chains x 2 nearer passages, then the answer's
    assert "same depth" in ex.check_passage_rank(3, 1.0).message


def test_defeating_shape():
    beaten = make_instance(2, bridge_branching=3, rng=0)
    assert ex.check_defeating_shape(beaten)
    plain = ex.check_defeating_shape(make_instance(2, rng=0))
    assert not plain and "still ranks the answer first" in plain.message
    one_hop = make_instance(1, rng=0)
    # join the seeds with a passage of their own: no longer a path-finding question
    from pathfinding.synthetic.instances import instance_from_facts

    joined = instance_from_facts(
        np.vstack([one_hop.facts, one_hop.seeds[:2]]),
        one_hop.node_names,
        [*one_hop.passages, "the seeds met."],
        seeds=one_hop.seeds,
        answer=one_hop.answer,
        candidates=one_hop.candidates,
        hops=1,
    )
    assert "names two seeds" in ex.check_defeating_shape(joined).message


def test_slip_branching_is_the_first_defeating_value():
    ranks = {
        b: rank_of(RANKERS["ppr"](i := make_instance(2, bridge_branching=b, rng=1)), i.answer, i.candidates)
        for b in (1, 2, 3)
    }
    first = min(b for b, r in ranks.items() if r > 1)
    assert ex.check_slip_branching(first)
    assert "still wins" in ex.check_slip_branching(first - 1).message


@pytest.mark.parametrize("ratio", [10, 20, 30])
def test_break_even_against_the_cost_model(ratio):
    q = float(break_even_queries(10_000, CostModel(step_cost=ratio / 2)))
    assert ex.check_break_even(10_000, ratio, q)
    assert "MINUS" in ex.check_break_even(10_000, ratio, 20_000 / ratio).message


def test_half_share_against_the_cost_model():
    q = 20_000.0
    assert float(offline_share(10_000, q)) == pytest.approx(0.5)
    assert ex.check_half_share(10_000, q)
    assert not ex.check_half_share(10_000, q / 19)


def test_connected_probability_by_enumeration():
    n, k, b = 8, 3, 2
    spared = sum(1 for gone in itertools.combinations(range(n), k) if not set(gone) & set(range(b)))
    assert ex.check_connected_probability(n, k, b, spared / math.comb(n, k))
    independent = ex.check_connected_probability(n, k, b, (1 - k / n) ** b)
    assert not independent and "without replacement" in independent.message


def test_monitor():
    from scipy.sparse.csgraph import connected_components

    def connected(inst, pi):
        labels = connected_components(inst.graph, directed=False)[1]
        return float(np.unique(labels[inst.seeds]).size == 1)

    assert ex.check_monitor(connected, trials=20)
    assert "same value" in ex.check_monitor(lambda inst, pi: 1.0, trials=5).message
    _unanswered_is_not_ok(ex.check_monitor(None))


def test_missed_question_on_real_text():
    from pathfinding.experiments.realtext import load_realtext
    from pathfinding.hipporag import HippoRetriever, index_from_openie, supporting_ids

    data = load_realtext()
    retriever = HippoRetriever(index_from_openie(data["openie"]))
    questions, corpus = data["questions"], data["corpus"]
    gold = supporting_ids(questions[:30], corpus)
    found = [set(retriever.retrieve(q.question, k=5).passages.tolist()) for q in questions[:30]]
    missed = next(i for i in range(30) if not set(gold[i].tolist()) <= found[i])
    complete = next(i for i in range(30) if set(gold[i].tolist()) <= found[i])
    hit = ex.check_missed_question(retriever, questions[missed], corpus)
    assert hit and "missed gold passages" in hit.message
    assert not ex.check_missed_question(retriever, questions[complete], corpus)
