"""Every exercise check: an answer measured with the package passes, a typical wrong answer fails with
the hint meant for it, and an unanswered exercise neither passes nor crashes.

The "correct" answers here are measured (PPR runs, brute force, enumeration), not copied from the
formulas inside pathfinding.course.exercises, so a wrong formula in a check fails these tests.
"""

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from pathfinding.core.ppr import personalized_pagerank
from pathfinding.core.scoring import rank_of
from pathfinding.core.specificity import node_specificity, restart_vector
from pathfinding.course import exercises as ex
from pathfinding.course.costs import CostModel, break_even_queries, offline_share
from pathfinding.course.exercises.answers import read_number
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
        lambda: ex.check_monitor(lambda query, pi: ..., queries=2),
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


def test_one_step_accepts_rounded_and_exact_types_and_says_close_for_too_few_digits():
    rounded = ex.check_one_step(lambda d, a: tuple(round(float(m), 4) for m in _one_step_measured(d, a)))
    assert rounded, rounded.message
    as_fractions = ex.check_one_step(
        lambda d, a: (Fraction(1 - Fraction(a)) / d, Fraction(1 - Fraction(a)) / (2 * d))
    )
    assert as_fractions, as_fractions.message
    assert ex.check_one_step(lambda d, a: np.array(_one_step_measured(d, a), dtype=np.float32))
    assert ex.check_one_step(lambda d, a: list(_one_step_measured(d, a)))
    coarse = ex.check_one_step(lambda d, a: tuple(round(float(m), 2) for m in _one_step_measured(d, a)))
    assert not coarse and coarse.message.startswith("close — keep more digits")
    assert "hint" not in coarse.message


def test_stationary():
    assert ex.check_stationary(_stationary_measured)
    assert np.allclose(_stationary_measured(9, 0.5), (1 / 3, 1 / 27, 1 / 54))  # the chapter's numbers
    no_return = ex.check_stationary(lambda d, a: (a / 2, (1 - a) * a / d, (1 - a) * a / (2 * d)))
    assert not no_return and "send their mass back" in no_return.message
    rounded = ex.check_stationary(lambda d, a: tuple(round(float(m), 4) for m in _stationary_measured(d, a)))
    assert rounded, rounded.message

    def as_fractions(d, a):
        seed = Fraction(1, 2) / (2 - Fraction(a))
        return seed, 2 * (1 - Fraction(a)) * seed / d, (1 - Fraction(a)) * seed / d

    assert ex.check_stationary(as_fractions)
    coarse = ex.check_stationary(lambda d, a: tuple(round(float(m), 2) for m in _stationary_measured(d, a)))
    assert not coarse and "close — keep more digits" in coarse.message


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
    assert ex.check_margin(lambda r1, r2: Fraction(r1 + r2) / Fraction(r1))
    assert ex.check_margin(lambda r1, r2: round(measured(r1, r2), 3))
    assert ex.check_specificity_margin(Fraction(5, 4)) and ex.check_specificity_margin(np.float32(1.25))
    assert "close — keep more digits" in ex.check_specificity_margin(1.3).message


def test_three_seeds():
    inst = make_instance(1, seeds=3, rng=0)
    pi = personalized_pagerank(inst.graph, inst.seeds, tol=0, max_iter=1)
    dead = np.setdiff1d(inst.candidates, [inst.answer])
    assert ex.check_three_seeds(pi[inst.answer] / pi[dead].max())
    assert "every one of the three" in ex.check_three_seeds(2.0).message
    assert ex.check_three_seeds(np.int64(3)) and ex.check_three_seeds(Fraction(3))


def test_restart():
    P = passage_count_matrix((20, 5))
    assert ex.check_restart(P, [0, 1], [0.2, 0.8])  # the chapter's hand-computed example
    assert "1/|P_i|, not |P_i|" in ex.check_restart(P, [0, 1], [0.8, 0.2]).message
    assert "sums to 1" in ex.check_restart(P, [0, 1], [0.05, 0.2]).message
    with pytest.raises(TypeError, match="one entry per node"):
        ex.check_restart(P, [0, 1], [1.0])
    with pytest.raises(TypeError, match="numbers"):
        ex.check_restart(P, [0, 1], "0.2, 0.8")
    assert ex.check_restart(P, [0, 1], (Fraction(1, 5), Fraction(4, 5)))
    assert ex.check_restart(P, [0, 1], np.array([[0.2], [0.8]]))  # a column vector reads as a vector


def test_restart_with_three_seeds_rounded_to_the_stated_decimals():
    P = passage_count_matrix((2, 4, 8))
    want = restart_vector(3, [0, 1, 2], specificity=node_specificity(P))
    assert ex.check_restart(P, [0, 1, 2], np.round(want, 3).tolist())
    coarse = ex.check_restart(P, [0, 1, 2], np.round(want, 2))
    assert not coarse and coarse.message.startswith("close — keep more digits")
    unnormalised = ex.check_restart(P, [0, 1, 2], want * 1.75)
    assert "sums to 1" in unnormalised.message


def test_hub_threshold_by_brute_force():
    def share(n):
        P = passage_count_matrix((n, 5))
        return restart_vector(2, [0, 1], specificity=node_specificity(P))[0]

    first = next(n for n in range(1, 200) if share(n) < 0.15)
    assert ex.check_hub_threshold(first)
    assert ex.check_hub_threshold(float(first)) and ex.check_hub_threshold(np.int64(first))
    assert "still above" in ex.check_hub_threshold(first - 1).message
    close = ex.check_hub_threshold(first - 0.5)  # between the last count above 15% and the first below
    assert not close and "whole number" in close.message


def test_hub_threshold_hint_does_not_give_the_formula_away():
    message = ex.check_hub_threshold(3).message
    assert "(1/n)" not in message and "5/(5" not in message and "/ (1/n" not in message


def test_chance_rank_matches_the_tied_rankers():
    for d in (3, 8):
        inst = make_instance(2, distractors=d, rng=0)
        measured = rank_of(RANKERS["mention_count"](inst), inst.answer, inst.candidates)
        assert ex.check_chance_rank(d, measured)
        assert not ex.check_chance_rank(d, measured - 0.5)
        assert ex.check_chance_rank(d, Fraction(measured).limit_denominator(2))
    assert "how many candidates" in ex.check_chance_rank(5, 7).message
    with pytest.raises(TypeError, match="number"):
        ex.check_chance_rank(8, "nine")


def test_passage_rank():
    from pathfinding.experiments.passages import passage_ranks

    measured = passage_ranks(make_instance(3, rng=0))["pi_P"][0]
    assert ex.check_passage_rank(3, measured) and ex.check_passage_rank(3, np.int64(round(measured)))
    assert "same depth" in ex.check_passage_rank(3, 1.0).message
    assert "keep more digits" not in ex.check_passage_rank(3, measured + 3).message  # not a rounding


def _with_facts(inst, facts, *, answer=None, seeds=None):
    """``inst`` rebuilt from ``facts`` (same names, one passage per fact)."""
    from pathfinding.synthetic.instances import instance_from_facts

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


def test_defeating_shape():
    beaten = make_instance(2, bridge_branching=3, rng=0)
    assert ex.check_defeating_shape(beaten)
    plain = ex.check_defeating_shape(make_instance(2, rng=0))
    assert not plain and "still ranks the answer first" in plain.message
    one_hop = make_instance(1, rng=0)
    # join the seeds with a passage of their own: no longer a path-finding question
    joined = _with_facts(one_hop, np.vstack([one_hop.facts, one_hop.seeds[:2]]))
    assert "names two seeds" in ex.check_defeating_shape(joined).message


def _touches(facts, node):
    return (facts == node).any(axis=1)


def test_defeating_shape_rejects_an_answer_no_seed_reaches():
    inst = make_instance(2, rng=0)
    cut = _with_facts(inst, inst.facts[~_touches(inst.facts, inst.answer)])
    # PPR gives the unreachable answer nothing, so it is not first: the degenerate shape "defeats" PPR
    assert rank_of(RANKERS["ppr"](cut), cut.answer, cut.candidates) > 1
    verdict = ex.check_defeating_shape(cut)
    assert not verdict and "no seed reaches the answer" in verdict.message


def test_defeating_shape_rejects_an_answer_only_one_seed_reaches():
    inst = make_instance(1, rng=0)
    u, w = inst.seeds[:2]
    one_sided = inst.facts[~(_touches(inst.facts, inst.answer) & _touches(inst.facts, w))]
    cut = _with_facts(inst, one_sided)
    assert rank_of(RANKERS["ppr"](cut), cut.answer, cut.candidates) > 1
    verdict = ex.check_defeating_shape(cut)
    assert not verdict and "only seed" in verdict.message
    # w reaches the answer only through u (w - u's dead end - u - answer): still a one-seed question
    u_fact = inst.facts[_touches(inst.facts, u) & ~_touches(inst.facts, inst.answer)][0]
    u_dead_end = u_fact[u_fact != u][0]
    through_u = _with_facts(inst, np.vstack([one_sided, [[w, u_dead_end]]]))
    verdict = ex.check_defeating_shape(through_u)
    assert not verdict and "only seed" in verdict.message


def test_slip_branching_is_the_first_defeating_value():
    ranks = {
        b: rank_of(RANKERS["ppr"](i := make_instance(2, bridge_branching=b, rng=1)), i.answer, i.candidates)
        for b in (1, 2, 3)
    }
    first = min(b for b, r in ranks.items() if r > 1)
    assert ex.check_slip_branching(first)
    assert ex.check_slip_branching(float(first)) and ex.check_slip_branching(np.int32(first))
    assert "still wins" in ex.check_slip_branching(first - 1).message
    assert "whole number" in ex.check_slip_branching(first - 0.5).message


def test_slip_branching_with_three_seeds_is_measured_too():
    def rank(b):
        i = make_instance(2, seeds=3, bridge_branching=b, rng=2)
        return rank_of(RANKERS["ppr"](i), i.answer, i.candidates)

    first = next(b for b in range(1, 10) if rank(b) > 1)
    assert ex.check_slip_branching(first, seeds=3)
    assert not ex.check_slip_branching(3, seeds=3)  # the two-seed answer is not the three-seed one


@pytest.mark.parametrize("ratio", [10, 20, 30])
def test_break_even_against_the_cost_model(ratio):
    q = float(break_even_queries(10_000, CostModel(step_cost=ratio / 2)))
    assert ex.check_break_even(10_000, ratio, q)
    assert "MINUS" in ex.check_break_even(10_000, ratio, 20_000 / ratio).message
    assert "MINUS" in ex.check_break_even(10_000, ratio, round(20_000 / ratio)).message
    for whole in (math.floor(q), math.ceil(q), np.int64(round(q)), Fraction(q).limit_denominator(100)):
        verdict = ex.check_break_even(10_000, ratio, whole)
        assert verdict, (whole, verdict.message)
    coarse = ex.check_break_even(10_000, ratio, round(q, -2))  # "about 2,200 queries"
    assert not coarse and coarse.message.startswith("close — keep more digits")


def test_half_share_against_the_cost_model():
    q = 20_000.0
    assert float(offline_share(10_000, q)) == pytest.approx(0.5)
    assert ex.check_half_share(10_000, q)
    assert ex.check_half_share(10_000, int(q)) and ex.check_half_share(10_000, np.float32(q))
    assert not ex.check_half_share(10_000, q / 19)
    assert "two calls per passage" in ex.check_half_share(10_000, q / 2).message
    two_calls = CostModel(ner_calls_per_query=2)
    assert float(offline_share(50_000, 50_000, two_calls)) == pytest.approx(0.5)
    assert ex.check_half_share(50_000, 50_000, calls_per_query=2)
    assert "2 calls" in ex.check_half_share(50_000, 100_000, calls_per_query=2).message


def test_connected_probability_by_enumeration():
    n, k, b = 8, 3, 2
    spared = sum(1 for gone in itertools.combinations(range(n), k) if not set(gone) & set(range(b)))
    assert ex.check_connected_probability(n, k, b, spared / math.comb(n, k))
    independent = ex.check_connected_probability(n, k, b, (1 - k / n) ** b)
    assert not independent and "without replacement" in independent.message


def test_connected_probability_of_the_notebook_rounded_and_as_a_fraction():
    # the notebook's case: 36 facts, 4 deleted (10%), 4 on the bridges; counted, not from the formula
    spared = Fraction(math.comb(32, 4), math.comb(36, 4))
    for answer in (
        spared,
        float(spared),
        round(float(spared), 2),
        round(float(spared), 4),
        np.float64(spared),
    ):
        verdict = ex.check_connected_probability(36, 4, 4, answer)
        assert verdict, (answer, verdict.message)
    coarse = ex.check_connected_probability(36, 4, 4, round(float(spared), 1))
    assert not coarse and coarse.message.startswith("close — keep more digits")
    assert "without replacement" in ex.check_connected_probability(36, 4, 4, 0.9**4).message


def test_monitor_is_judged_on_alarms_without_labels():
    from scipy.sparse.csgraph import connected_components

    from pathfinding.experiments.passages import meet_mass

    def connected(query, pi):
        labels = connected_components(query.graph, directed=False)[1]
        return float(np.unique(labels[query.seeds]).size == 1)

    def seed_mass(query, pi):  # the notebook's weak monitor: mass that stays on the seeds
        return float(pi[query.seeds].sum())

    def best_meet_mass(query, pi):  # graded, but its level depends on the query's shape
        others = np.setdiff1d(np.arange(query.n_nodes), query.seeds)
        return float(meet_mass(query)[others].max())

    def reads_the_answer(query, pi):
        return float(pi[query.answer])

    passed = ex.check_monitor(connected)
    assert passed and "alarms on 100%" in passed.message
    for weak in (seed_mass, best_meet_mass):
        verdict = ex.check_monitor(weak)
        assert not verdict and "below 80%" in verdict.message, verdict.message
    cheat = ex.check_monitor(reads_the_answer)
    assert not cheat and "does not have" in cheat.message
    assert "same value" in ex.check_monitor(lambda query, pi: 1.0, queries=20).message
    _unanswered_is_not_ok(ex.check_monitor(None))
    with pytest.raises(TypeError, match="number"):
        ex.check_monitor(lambda query, pi: "high", queries=2)


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
    with pytest.raises(TypeError, match=r"questions\[i\]"):
        ex.check_missed_question(retriever, questions[missed].question, corpus)


def test_judge_reads_every_numeric_type_at_the_stated_precision():
    from decimal import Decimal

    p = ex.Precision(sig=2)
    for got in (0.61, 0.6105, Fraction(61, 100), np.float32(0.61), Decimal("0.61"), np.array(0.61)):
        assert ex.judge(read_number("x", got), 0.61047, p) == "right", got
    assert ex.judge(0.6, 0.61047, p) == "close"
    assert ex.judge(0.66, 0.61047, p) == "wrong"
    assert ex.judge(0.0, 0.61047, p) == "wrong"
    assert ex.judge(1.0, 0.61047, p) == "wrong"  # not the value with fewer digits: it rounds to 0.6
    assert ex.judge([1, 2], [1.0, 2.0, 3.0]) == "wrong"
    assert ex.judge(29.0, 29) == "right" and ex.judge(28.9, 29) == "wrong"
    with pytest.raises(TypeError, match="number"):
        read_number("x", True)
    with pytest.raises(TypeError, match="number"):
        read_number("x", "0.61")
