"""The checks of notebook 1's exercises (pathfinding.course.exercises.arithmetic), against answers
measured with the package: PPR run for one step or to convergence on the toys."""

import math
from fractions import Fraction

import numpy as np

from pathfinding.core.ppr import personalized_pagerank
from pathfinding.core.specificity import node_specificity, restart_vector
from pathfinding.course import exercises as ex
from pathfinding.course.exercises import arithmetic
from pathfinding.synthetic.instances import make_instance
from pathfinding.synthetic.toy import passage_count_matrix, star_pair
from tests.test_exercises import rejected_with as _rejected_with


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
    assert "one_step(3, 0.15)" in swapped.message and "only 1 - restart_prob" in swapped.message


def test_one_step_networkx_and_percent_slips_are_named():
    # networkx's pagerank(alpha=0.85) continues with 0.85: restart 0.15, whatever restart_prob says
    fixed = ex.check_one_step(lambda d, a: _one_step_measured(d, 0.15))
    _rejected_with(fixed, "networkx's fixed 0.85")
    assert fixed.message.startswith("at one_step(9, 0.5):")
    _rejected_with(ex.check_one_step(lambda d, a: _one_step_measured(d, 0.85)), "networkx's fixed 0.85")
    percent = ex.check_one_step(lambda d, a: tuple(100 * m for m in _one_step_measured(d, a)))
    _rejected_with(percent, "that is a percentage")


def test_margin_forgetting_an_inflow_is_named_not_close():
    # 1 is 1.25 rounded to one digit, but it is the slip of counting one inflow into the answer
    fb = ex.check_margin(lambda r1, r2: 1)
    _rejected_with(fb, "an inflow from EVERY seed")
    assert "close" not in fb.message
    _rejected_with(ex.check_margin(lambda r1, r2: _margin_stationary(r1, r2)), "the margin at convergence")


def _margin_stationary(r1, r2):
    toy = star_pair(9)
    r = np.zeros(toy.n_nodes)
    r[toy.seeds] = r1, r2
    pi = personalized_pagerank(toy.graph, r, tol=1e-12)
    return pi[toy.answer] / pi[np.setdiff1d(toy.candidates, [toy.answer])].max()


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
    _rejected_with(ex.check_stationary(lambda d, a: _stationary_measured(d, 0.15)), "networkx's fixed 0.85")
    _rejected_with(
        ex.check_stationary(lambda d, a: tuple(100 * m for m in _stationary_measured(d, a))),
        "that is a percentage",
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
    # 1 is 1.3 to one digit, but it is what forgetting the other seeds' inflows gives: the slip is named
    _rejected_with(ex.check_specificity_margin(1), "an inflow from EVERY seed")
    _rejected_with(ex.check_specificity_margin(1 + 1 / 10), "you left out the seed in the middle")


def test_specificity_margin_at_convergence_is_named():
    counts = passage_count_matrix(arithmetic.SPECIFICITY_COUNTS)
    inst = make_instance(1, seeds=3, rng=0)
    r = np.zeros(inst.n_nodes)
    r[inst.seeds] = restart_vector(3, [0, 1, 2], specificity=node_specificity(counts))
    pi = personalized_pagerank(inst.graph, r, tol=1e-12)
    stationary = pi[inst.answer] / pi[np.setdiff1d(inst.candidates, [inst.answer])].max()
    _rejected_with(ex.check_specificity_margin(stationary), "the margin at convergence")


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
