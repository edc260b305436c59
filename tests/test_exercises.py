"""Every exercise check of notebooks 1-7: a measured answer passes in every numeric form (rounded as
asked, more digits, a fraction), every wrong model listed next to a check is rejected with its own
hint, the cheating answers a strict teacher would catch fail, and an unanswered or unreadable answer
gets feedback, never a traceback.

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
from pathfinding.course.exercises import arithmetic, online, walk
from pathfinding.synthetic.instances import instance_from_facts, make_instance
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


def _margin_measured(r1, r2):
    toy = star_pair(9)
    r = np.zeros(toy.n_nodes)
    r[toy.seeds] = r1, r2
    pi = personalized_pagerank(toy.graph, r, tol=0, max_iter=1)
    dead = np.setdiff1d(toy.candidates, [toy.answer])
    return pi[toy.answer] / pi[dead].max()


def _unanswered_is_not_ok(feedback):
    assert not feedback and "no answer yet" in feedback.message


def _rejected_with(feedback, hint):
    assert not feedback, feedback.message
    assert hint in feedback.message, feedback.message


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


# --- every wrong model listed next to a check is rejected with its own hint ---------------------------

FUNCTION_EXERCISES = [
    (ex.check_one_step, arithmetic.ONE_STEP_WRONG, arithmetic.STEP_CASES),
    (ex.check_stationary, arithmetic.STATIONARY_WRONG, arithmetic.STEP_CASES),
    (ex.check_margin, arithmetic.MARGIN_WRONG, arithmetic.MARGIN_CASES),
]


@pytest.mark.parametrize(
    ("check", "model"),
    [(c, m) for c, models, _ in FUNCTION_EXERCISES for m in models if m.value is not None],
    ids=lambda x: getattr(x, "name", getattr(x, "__name__", "")),
)
def test_a_function_answer_built_on_a_wrong_model_gets_its_hint(check, model):
    _rejected_with(check(lambda *args: model.value(*args)), model.hint)


VALUE_EXERCISES = [
    (ex.check_specificity_margin, (), arithmetic.SPECIFICITY_MARGIN_WRONG, (arithmetic.SPECIFICITY_COUNTS,)),
    (ex.check_three_seeds, (), arithmetic.THREE_SEEDS_WRONG, ()),
    (ex.check_hub_threshold, (), walk.HUB_THRESHOLD_WRONG, ()),
    (ex.check_chance_rank, (5,), walk.CHANCE_RANK_WRONG, (5,)),
    (ex.check_passage_rank, (4,), walk.PASSAGE_RANK_WRONG, (4,)),
    (ex.check_break_even, (50_000, 10), online.BREAK_EVEN_WRONG, (50_000, 10)),
    (ex.check_break_even, (50_000, 30), online.BREAK_EVEN_WRONG, (50_000, 30)),
    (ex.check_connected_probability, (36, 4, 4), online.CONNECTED_PROBABILITY_WRONG, (36, 4, 4)),
]


@pytest.mark.parametrize(
    ("check", "args", "model", "inputs"),
    [(c, a, m, i) for c, a, models, i in VALUE_EXERCISES for m in models if m.value is not None],
    ids=lambda x: getattr(x, "name", getattr(x, "__name__", None)),
)
def test_a_value_built_on_a_wrong_model_gets_its_hint(check, args, model, inputs):
    value = model.value(*inputs)
    _rejected_with(check(*args, value), model.hint_for(inputs))
    _rejected_with(check(*args, np.float64(value)), model.hint_for(inputs))


@pytest.mark.parametrize("model", online.HALF_SHARE_WRONG, ids=lambda m: m.name)
def test_half_share_wrong_models(model):
    value = model.value(50_000, 2)
    _rejected_with(ex.check_half_share(50_000, value, calls_per_query=2), model.hint_for((50_000, 2)))


@pytest.mark.parametrize("model", walk.RESTART_WRONG, ids=lambda m: m.name)
def test_restart_wrong_models(model):
    # counts of 1 and 2 per passage, so that counting mentions differs from counting passages
    P = passage_count_matrix((20, 5, 8)).tolil()
    P[1, :3] = 2
    P = P.tocsr()
    got = model.value(P, [0, 1, 2])
    _rejected_with(ex.check_restart(P, [0, 1, 2], got), model.hint)
    _rejected_with(ex.check_restart(P, [0, 1, 2], np.round(got, 3).tolist()), model.hint)


# --- notebook 1 ------------------------------------------------------------------------------------


def test_one_step_right_in_every_form():
    assert ex.check_one_step(_one_step_measured)
    assert ex.check_one_step(lambda d, a: tuple(round(float(m), 4) for m in _one_step_measured(d, a)))
    assert ex.check_one_step(
        lambda d, a: (Fraction(1 - Fraction(a)) / d, Fraction(1 - Fraction(a)) / (2 * d))
    )
    assert ex.check_one_step(lambda d, a: np.array(_one_step_measured(d, a), dtype=np.float32))
    assert ex.check_one_step(lambda d, a: list(_one_step_measured(d, a)))


def test_one_step_close_only_for_the_masses_rounded_too_far():
    coarse = ex.check_one_step(lambda d, a: tuple(round(float(m), 2) for m in _one_step_measured(d, a)))
    assert (
        not coarse and coarse.message.startswith("close — keep more digits") and "hint" not in coarse.message
    )
    off = ex.check_one_step(lambda d, a: tuple(float(m) + 1e-4 for m in _one_step_measured(d, a)))
    assert not off and "close" not in off.message


def test_one_step_restart_and_damping_differ_where_restart_is_not_one_half():
    assert any(a != 0.5 for _, a in arithmetic.STEP_CASES)
    swapped = ex.check_one_step(lambda d, a: _one_step_measured(d, 1 - a))
    assert "restart_prob=0.15" in swapped.message and "only 1 - restart_prob" in swapped.message


def test_one_step_wrong_shapes_are_feedback():
    fb = ex.check_one_step(lambda d, a: 0.1)
    assert not fb and "2 numbers (answer mass, dead-end mass)" in fb.message
    assert "`return`" in ex.check_one_step(lambda d, a: None).message
    assert "function" in ex.check_one_step(0.05).message
    assert "finite" in ex.check_one_step(lambda d, a: (np.nan, 0.1)).message


def test_stationary_right_in_every_form():
    assert ex.check_stationary(_stationary_measured)
    assert np.allclose(_stationary_measured(9, 0.5), (1 / 3, 1 / 27, 1 / 54))  # the chapter's numbers
    assert ex.check_stationary(lambda d, a: tuple(round(float(m), 4) for m in _stationary_measured(d, a)))

    def as_fractions(d, a):
        seed = Fraction(1, 2) / (2 - Fraction(a))
        return seed, 2 * (1 - Fraction(a)) * seed / d, (1 - Fraction(a)) * seed / d

    assert ex.check_stationary(as_fractions)
    coarse = ex.check_stationary(lambda d, a: tuple(round(float(m), 2) for m in _stationary_measured(d, a)))
    assert not coarse and "close — keep more digits" in coarse.message


def test_stationary_property_models():
    def not_twice(d, a):
        x, _, z = _stationary_measured(d, a)
        return x, z, z

    _rejected_with(ex.check_stationary(not_twice), "twice a dead end")
    _rejected_with(
        ex.check_stationary(lambda d, a: tuple(3 * m for m in _stationary_measured(d, a))),
        "sums to 1 over 2 seeds",
    )


def test_margin_right_in_every_form_and_not_close_for_the_weights_ratio():
    assert ex.check_margin(_margin_measured)
    assert ex.check_margin(lambda r1, r2: Fraction(r1 + r2) / Fraction(r1))
    assert ex.check_margin(lambda r1, r2: round(_margin_measured(r1, r2), 2))  # 3 significant digits
    flipped = ex.check_margin(lambda r1, r2: r1 / r2)
    assert "close" not in flipped.message and "compares the two seeds" in flipped.message


def _three_seed_margin(counts):
    inst = make_instance(1, seeds=3, rng=0)
    r = np.zeros(inst.n_nodes)
    r[inst.seeds] = restart_vector(3, [0, 1, 2], specificity=node_specificity(passage_count_matrix(counts)))
    pi = personalized_pagerank(inst.graph, r, tol=0, max_iter=1)
    dead = np.setdiff1d(inst.candidates, [inst.answer])
    return pi[inst.answer] / pi[dead].max()


def test_specificity_margin_measured_and_its_models_differ():
    measured = _three_seed_margin(arithmetic.SPECIFICITY_COUNTS)
    for answer in (measured, round(measured, 2), Fraction(13, 10), np.float32(measured)):
        assert ex.check_specificity_margin(answer), answer
    # weights |P_i| instead of 1/|P_i| give another number here (with two seeds they would not)
    counts = passage_count_matrix(arithmetic.SPECIFICITY_COUNTS)
    by_count = restart_vector(3, [0, 1, 2], specificity=1 / node_specificity(counts))
    assert not math.isclose(1 / by_count.max(), measured, rel_tol=1e-2)
    # with the chapter's two seeds (20 and 5 passages) the two weightings give the same margin
    two = passage_count_matrix((20, 5))
    spec = restart_vector(2, [0, 1], specificity=node_specificity(two))
    by_count = restart_vector(2, [0, 1], specificity=1 / node_specificity(two))
    assert math.isclose(1 + spec.min() / spec.max(), 1 + by_count.min() / by_count.max())
    assert ex.check_specificity_margin(2).message.startswith("2; hint:")  # the naive factor 2 is no rounding
    assert ex.check_specificity_margin(1).message.startswith("close — keep more digits")


def test_three_seeds_measured_at_one_step_and_the_hint_is_true():
    inst = make_instance(1, seeds=3, rng=0)
    dead = np.setdiff1d(inst.candidates, [inst.answer])
    one = personalized_pagerank(inst.graph, inst.seeds, tol=0, max_iter=1)
    stationary = personalized_pagerank(inst.graph, inst.seeds, tol=1e-12)
    assert ex.check_three_seeds(one[inst.answer] / one[dead].max())
    # the stationary ratio is 3 too, so no hint may say "not the stationary mass"
    assert ex.check_three_seeds(stationary[inst.answer] / stationary[dead].max())
    assert "stationary" not in ex.check_three_seeds(2.5).message
    assert ex.check_three_seeds(np.int64(3)) and ex.check_three_seeds(Fraction(3))
    assert "close" not in ex.check_three_seeds(4).message


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


# --- notebook 5 ------------------------------------------------------------------------------------


@pytest.mark.parametrize("ratio", [10, 20, 30])
def test_break_even_against_the_cost_model(ratio):
    q = float(break_even_queries(50_000, CostModel(step_cost=ratio / 2)))
    for answer in (q, math.floor(q), math.ceil(q), np.int64(round(q)), Fraction(q).limit_denominator(100)):
        verdict = ex.check_break_even(50_000, ratio, answer)
        assert verdict, (answer, verdict.message)
    assert not ex.check_break_even(50_000, ratio, math.ceil(q) + 1)
    coarse = ex.check_break_even(50_000, ratio, round(q, -2))  # "about 11,100 queries"
    assert not coarse and coarse.message.startswith("close — keep more digits")


def test_half_share_against_the_cost_model():
    assert float(offline_share(10_000, 20_000)) == pytest.approx(0.5)
    assert ex.check_half_share(10_000, 20_000) and ex.check_half_share(10_000, np.float32(20_000))
    assert float(offline_share(50_000, 50_000, CostModel(ner_calls_per_query=2))) == pytest.approx(0.5)
    assert ex.check_half_share(50_000, 50_000, calls_per_query=2)
    assert ex.check_half_share(50_000, Fraction(50_000), calls_per_query=2)
    # one coarser unit away is not "close": 60,000 is not 50,000 rounded
    assert "close" not in ex.check_half_share(50_000, 60_000, calls_per_query=2).message


# --- notebook 6 ------------------------------------------------------------------------------------


def test_connected_probability_by_enumeration():
    n, k, b = 8, 3, 2
    spared = sum(1 for gone in itertools.combinations(range(n), k) if not set(gone) & set(range(b)))
    assert ex.check_connected_probability(n, k, b, spared / math.comb(n, k))
    assert "without replacement" in ex.check_connected_probability(n, k, b, (1 - k / n) ** b).message


def test_connected_probability_rejects_independence_however_it_is_written():
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
    for independent in ((8 / 9) ** 4, 0.624, 0.62, 0.9**4, 0.66):
        _rejected_with(ex.check_connected_probability(36, 4, 4, independent), "without replacement")
    coarse = ex.check_connected_probability(36, 4, 4, 0.6)
    assert not coarse and coarse.message.startswith("close — keep more digits")
    assert "close" not in ex.check_connected_probability(36, 4, 4, 0.7).message


def test_monitor_is_judged_on_wrong_facts_a_size_count_cannot_see():
    from scipy.sparse.csgraph import connected_components

    from pathfinding.experiments.passages import meet_mass

    def meet_share(query, pi):  # the solution's monitor: how much of the walk every seed's walk shares
        others = np.setdiff1d(np.arange(query.n_nodes), query.seeds)
        others = others[pi[others] > 0]
        return float((meet_mass(query)[others] / pi[others]).max())

    def connected(query, pi):
        labels = connected_components(query.graph, directed=False)[1]
        return float(np.unique(labels[query.seeds]).size == 1)

    def seed_mass(query, pi):
        return float(pi[query.seeds].sum())

    def graph_size(query, pi):  # never looks at the query
        return float(query.graph.nnz + query.mentions.nnz + len(query.passages))

    def reads_the_answer(query, pi):
        return float(pi[query.answer])

    passed = ex.check_monitor(meet_share, queries=120)
    assert passed, passed.message
    # wrong facts keep the graph connected: the seeds stay connected, and the seeds' mass barely moves
    assert not ex.check_monitor(connected, queries=120)
    weak = ex.check_monitor(seed_mass, queries=120)
    assert not weak and "below 80%" in weak.message, weak.message
    blind = ex.check_monitor(graph_size, queries=120)
    assert not blind and "average the same on the damaged index" in blind.message
    assert "does not have" in ex.check_monitor(reads_the_answer, queries=20).message
    assert "without quotes" in ex.check_monitor(lambda query, pi: "high", queries=2).message


# --- notebook 7 ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def realtext():
    from pathfinding.experiments.realtext import load_realtext
    from pathfinding.hipporag import HippoRetriever, index_from_openie

    data = load_realtext()
    index = index_from_openie(data["openie"], tau=0.8)
    return data, index, HippoRetriever(index)


def test_real_restart_with_counts_above_one(realtext):
    _, real, _ = realtext
    counts = np.diff(real.mentions.tocsr().indptr)
    sums = np.asarray(real.mentions.sum(axis=1)).ravel()
    seeds = np.flatnonzero((sums > counts) & (counts > 2))[:2]  # nodes named more than once a passage
    want = restart_vector(real.n_nodes, seeds, specificity=node_specificity(real.mentions))
    assert ex.check_restart(real.mentions, seeds, want) and ex.check_restart(
        real.mentions, seeds, np.round(want, 3)
    )
    by_mentions = walk.RESTART_WRONG[3].value(real.mentions, seeds)
    _rejected_with(ex.check_restart(real.mentions, seeds, by_mentions), "not how often")
    two_entries = ex.check_restart(real.mentions, seeds, want[seeds])
    assert not two_entries and f"one entry per node of the graph ({real.n_nodes})" in two_entries.message


def test_missed_question_on_real_text(realtext):
    from pathfinding.hipporag import supporting_ids

    data, _, retriever = realtext
    questions, corpus = data["questions"], data["corpus"]
    gold = supporting_ids(questions[:30], corpus)
    found = [set(retriever.retrieve(q.question, k=5).passages.tolist()) for q in questions[:30]]
    missed = next(i for i in range(30) if not set(gold[i].tolist()) <= found[i])
    complete = next(i for i in range(30) if set(gold[i].tolist()) <= found[i])
    hit = ex.check_missed_question(retriever, questions[missed], corpus)
    assert hit and "missed gold passages" in hit.message
    assert not ex.check_missed_question(retriever, questions[complete], corpus)
    text = ex.check_missed_question(retriever, questions[missed].question, corpus)
    assert not text and "questions[i]" in text.message
