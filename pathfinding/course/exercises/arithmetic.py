"""Checks for the exercises of notebook 1: the meet-node arithmetic.

Every check returns a :class:`~pathfinding.course.exercises.answers.Feedback`, compares numbers with
:func:`~pathfinding.course.exercises.answers.judge` at the precision its exercise states, and runs a
wrong answer through the exercise's list of :class:`~pathfinding.course.exercises.answers.WrongModel`
(``ONE_STEP_WRONG``, ...), each computed from the same inputs as the right answer.
"""

from __future__ import annotations

import functools

import numpy as np

from pathfinding.course.exercises.answers import (
    Feedback,
    Precision,
    WrongModel,
    feedback_on_unreadable,
    judge_cases,
    judge_value,
    percent_model,
)

__all__ = [
    "MARGIN_CASES",
    "MARGIN_PRECISION",
    "MARGIN_WRONG",
    "ONE_STEP_PRECISION",
    "ONE_STEP_WRONG",
    "SPECIFICITY_COUNTS",
    "SPECIFICITY_MARGIN_WRONG",
    "STATIONARY_PRECISION",
    "STATIONARY_WRONG",
    "STEP_CASES",
    "THREE_SEEDS_WRONG",
    "check_margin",
    "check_one_step",
    "check_specificity_margin",
    "check_stationary",
    "check_three_seeds",
]

# (d, restart_prob): at 0.5 restart and damping coincide, so the other cases tell them apart
STEP_CASES = ((9, 0.5), (3, 0.15), (20, 0.85))
NETWORKX_ALPHA = 0.85  # networkx's pagerank(alpha=0.85): the probability to CONTINUE the walk
NETWORKX_HINT = (
    "that is a walk with networkx's fixed 0.85 (pagerank's alpha, the probability to continue), "
    "whatever restart_prob is: use the restart_prob you are given, and 1 - restart_prob walks."
)
ONE_STEP_PRECISION = Precision(decimals=4)
STATIONARY_PRECISION = Precision(decimals=4)
MARGIN_PRECISION = Precision(sig=3)


def _one_step(d: int, alpha: float) -> tuple[float, float]:
    # Each seed holds half the restart mass; (1 - alpha) of it walks, split over d edges.
    per_inflow = (1 - alpha) * 0.5 / d
    return 2 * per_inflow, per_inflow


def _stationary(d: int, alpha: float) -> tuple[float, float, float]:
    seed = 1 / (2 * (2 - alpha))
    return seed, 2 * (1 - alpha) * seed / d, (1 - alpha) * seed / d


def _fixed_walk_models(masses) -> tuple[WrongModel, ...]:
    """The confusions that ignore the exercise's restart_prob or its scale, for a ``masses(d, alpha)``:
    networkx's fixed 0.85 (as the probability to continue, or read as the restart) and percentages."""
    return (
        WrongModel("networkx's fixed 0.85", NETWORKX_HINT, value=lambda d, a: masses(d, 1 - NETWORKX_ALPHA)),
        WrongModel(
            "networkx's 0.85 read as the restart", NETWORKX_HINT, value=lambda d, a: masses(d, NETWORKX_ALPHA)
        ),
        percent_model(masses, "a PPR mass (the masses of all nodes sum to 1)"),
    )


ONE_STEP_WRONG = (
    WrongModel(
        "restart vs damping",
        "restart_prob is the share of a seed's mass that jumps back to the seeds; only 1 - restart_prob "
        "walks along the edges.",
        value=lambda d, a: _one_step(d, 1 - a),
    ),
    WrongModel(
        "one step vs stationary",
        "those are the stationary masses (exercise 1.2); one step starts from the restart vector and "
        "moves once.",
        value=lambda d, a: _stationary(d, a)[1:],
    ),
    WrongModel(
        "all the restart mass on each seed",
        "each of the two seeds starts with half of the restart mass, not all of it.",
        value=lambda d, a: tuple(2 * m for m in _one_step(d, a)),
    ),
    WrongModel(
        "not split over the edges",
        "a seed splits what it sends evenly over its d edges.",
        value=lambda d, a: tuple(d * m for m in _one_step(d, a)),
    ),
    WrongModel(
        "one inflow into the answer",
        "the answer is adjacent to both seeds, so it receives one inflow from each.",
        value=lambda d, a: (_one_step(d, a)[1],) * 2,
    ),
    *_fixed_walk_models(_one_step),
)
"""Exercise 1.1's confusions, each ``(d, restart_prob) -> (answer mass, dead-end mass)``."""


@feedback_on_unreadable
def check_one_step(fn) -> Feedback:
    """Exercise 1.1: ``fn(d, alpha)`` gives (answer, dead end) mass after one PPR step on ``star_pair(d)``.

    Masses are asked to 4 decimal places; :data:`ONE_STEP_WRONG` lists the confusions it names.

    Examples
    --------
    >>> check_one_step(lambda d, a: (2 * (1 - a) * 0.5 / d, (1 - a) * 0.5 / d)).ok
    True
    >>> check_one_step(lambda d, a: (round((1 - a) / d, 4), round((1 - a) * 0.5 / d, 4))).ok
    True
    >>> print(check_one_step(lambda d, a: (a / d, a * 0.5 / d)).message.split("hint: ")[1][:42])
    restart_prob is the share of a seed's mass
    """
    return judge_cases(
        fn, "one_step", STEP_CASES, _one_step, ONE_STEP_WRONG, ONE_STEP_PRECISION,
        entries="(answer mass, dead-end mass)",
        right="one step gives the answer two inflows of (1 - alpha) * 0.5 / d and a dead end one, "
        "for every d and alpha.",
        fallback="write what one seed sends along one edge, then count the answer's inflows.",
    )  # fmt: skip



def _no_return(d: int, alpha: float) -> tuple[float, float, float]:
    seed = alpha / 2
    return seed, 2 * (1 - alpha) * seed / d, (1 - alpha) * seed / d


_UNIT4 = 10.0**-STATIONARY_PRECISION.decimals

STATIONARY_WRONG = (
    WrongModel(
        "one step vs stationary",
        "those are the masses after one step; at stationarity mass keeps flowing out and back until "
        "nothing changes.",
        value=lambda d, a: (a / 2, *_one_step(d, a)),
    ),
    WrongModel(
        "no mass comes back",
        "at stationarity the neighbours send their mass back; a dead end has one edge, to its seed.",
        value=_no_return,
    ),
    WrongModel(
        "restart vs damping",
        "restart_prob is the share that restarts at the seeds; the walking share is 1 - restart_prob.",
        value=lambda d, a: _stationary(d, 1 - a),
    ),
    *_fixed_walk_models(_stationary),
    WrongModel(
        "the answer is not twice a dead end",
        "the answer receives from both seeds at every step: it holds twice a dead end.",
        # rounded entries may each be off by half a unit
        holds=lambda got, d, a: abs(got[1] - 2 * got[2]) > 2 * _UNIT4,
    ),
    WrongModel(
        "forgetting to renormalise",
        lambda d, a: f"PPR mass sums to 1 over 2 seeds, the answer and {2 * (d - 1)} dead ends.",
        holds=lambda got, d, a: abs(2 * got[0] + got[1] + 2 * (d - 1) * got[2] - 1) > (d + 1) * _UNIT4,
    ),
)
"""Exercise 1.2's confusions, each ``(d, restart_prob) -> (seed, answer, dead end)`` or a property."""


@feedback_on_unreadable
def check_stationary(fn) -> Feedback:
    """Exercise 1.2: ``fn(d, alpha)`` gives the stationary (seed, answer, dead end) mass on ``star_pair(d)``.

    At ``d = 9, alpha = 0.5`` the answer is (1/3, 1/27, 1/54). Masses are asked to 4 decimal places;
    :data:`STATIONARY_WRONG` lists the confusions it names.

    Examples
    --------
    >>> seed = lambda a: 1 / (2 * (2 - a))
    >>> check_stationary(lambda d, a: (seed(a), 2 * (1 - a) * seed(a) / d, (1 - a) * seed(a) / d))
    correct: seed 1/(2(2 - alpha)), answer twice a dead end, and the mass sums to 1.
    """
    return judge_cases(
        fn, "stationary", STEP_CASES, _stationary, STATIONARY_WRONG, STATIONARY_PRECISION,
        entries="(seed, answer, dead-end mass)",
        right="seed 1/(2(2 - alpha)), answer twice a dead end, and the mass sums to 1.",
        fallback="write one balance equation per kind of node (seed, answer, dead end) and solve for "
        "the seed.",
    )  # fmt: skip



MARGIN_CASES = ((0.8, 0.2), (0.7, 0.3), (0.5, 0.5))
"""Exercise 1.3's restart weights ``(r1, r2)``, ``r1 >= r2``; equal weights last, where several
confusions give the right number."""

@functools.lru_cache(maxsize=16)
def _stationary_margin(restart: tuple) -> float:
    """The answer's stationary mass over the best dead end's, for a restart over the seeds of
    ``star_pair(9)`` (two seeds) or ``make_instance(1, seeds=3)`` (three)."""
    from pathfinding.core.ppr import personalized_pagerank
    from pathfinding.synthetic.instances import make_instance
    from pathfinding.synthetic.toy import star_pair

    toy = star_pair(9) if len(restart) == 2 else make_instance(1, seeds=len(restart), rng=0)
    r = np.zeros(toy.n_nodes)
    r[toy.seeds] = restart
    pi = personalized_pagerank(toy.graph, r, tol=1e-13)
    return float(pi[toy.answer] / pi[np.setdiff1d(toy.candidates, [toy.answer])].max())


FORGOT_INFLOW = (
    "the answer receives an inflow from EVERY seed it is adjacent to: a margin of 1 counts only the "
    "heavier seed's, the same as its dead end's."
)
STATIONARY_MARGIN = (
    "that is the margin at convergence (the stationary masses); the exercise asks for the margin after "
    "one step (tol=0, max_iter=1)."
)

MARGIN_WRONG = (
    WrongModel("only one inflow", FORGOT_INFLOW, value=lambda r1, r2: 1.0),
    WrongModel(
        "stationary vs one step", STATIONARY_MARGIN, value=lambda r1, r2: _stationary_margin((r1, r2))
    ),
    WrongModel(
        "the lighter seed's dead end",
        "the *best* dead end is the one fed by the heavier seed.",
        value=lambda r1, r2: 1 + r1 / r2,
    ),
    WrongModel(
        "equal inflows",
        "with unequal restart weights the two inflows into the answer are no longer equal.",
        value=lambda r1, r2: 2.0,
    ),
    WrongModel(
        "the ratio upside down",
        "the margin is the answer's mass over the best dead end's, not the other way round.",
        value=lambda r1, r2: r1 / (r1 + r2),
    ),
    WrongModel(
        "the seeds' weights compared",
        "r1/r2 compares the two seeds; the margin compares the answer's two inflows with the heavier "
        "seed's dead end's one.",
        value=lambda r1, r2: r1 / r2,
    ),
    WrongModel(
        "one of the answer's inflows",
        "the answer receives the heavier seed's inflow too: add both.",
        value=lambda r1, r2: r2 / r1,
    ),
)
"""Exercise 1.3's confusions, each ``(r1, r2) -> margin``."""


@feedback_on_unreadable
def check_margin(fn) -> Feedback:
    """Exercise 1.3: ``fn(r1, r2)`` is the answer's one-step margin over the best dead end, ``r1 >= r2``.

    Asked to 3 significant digits; :data:`MARGIN_WRONG` lists the confusions it names.

    Examples
    --------
    >>> check_margin(lambda r1, r2: 1 + r2 / r1)
    correct: the best dead end belongs to the heavier seed, so the margin is 1 + r2/r1, between 1 and 2.
    """
    return judge_cases(
        fn, "margin", MARGIN_CASES, lambda r1, r2: 1 + r2 / r1, MARGIN_WRONG, MARGIN_PRECISION,
        right="the best dead end belongs to the heavier seed, so the margin is 1 + r2/r1, between 1 and 2.",
        fallback="write the answer's mass (two inflows) and the heavier seed's dead end's mass (one).",
    )  # fmt: skip



SPECIFICITY_COUNTS = (20, 10, 2)
"""Exercise 1.3b: the passages each of three seeds sits in. With three seeds a restart weighted by
``|P_i|`` is not a relabelling of one weighted by ``1/|P_i|`` (with two seeds it is, and both give the
same margin), so the two models give different numbers."""


def _weights(counts, power: int) -> np.ndarray:
    w = np.asarray(counts, dtype=float) ** power
    return w / w.sum()


SPECIFICITY_MARGIN_WRONG = (
    WrongModel("only the rarest seed's inflow", FORGOT_INFLOW, value=lambda counts: 1.0),
    WrongModel(
        "the middle seed's inflow forgotten",
        "all three seeds send an inflow into the answer: the margin is (r1 + r2 + r3)/r1; you left out "
        "the seed in the middle.",
        value=lambda counts: 1 + np.sort(_weights(counts, -1))[0] / _weights(counts, -1).max(),
    ),
    WrongModel(
        "stationary vs one step",
        STATIONARY_MARGIN,
        value=lambda counts: _stationary_margin(tuple(_weights(counts, -1).tolist())),
    ),
    WrongModel(
        "|P_i| instead of 1/|P_i|",
        "a seed in MORE passages is LESS specific: its restart weight is 1/|P_i|, not |P_i|.",
        value=lambda counts: 1 / _weights(counts, 1).max(),
    ),
    WrongModel(
        "specificity off",
        "specificity changes the restart weights: compute 1/|P_i| for each seed first.",
        value=lambda counts: float(len(counts)),
    ),
    WrongModel(
        "two seeds' formula",
        "all three seeds send an inflow into the answer: the margin is (r1 + r2 + r3)/r1.",
        value=lambda counts: 1 + np.sort(_weights(counts, -1))[-2] / _weights(counts, -1).max(),
    ),
    WrongModel(
        "the hub's dead end",
        "that is the margin over the hub's dead end; the best dead end belongs to the rarest seed.",
        value=lambda counts: 1 / _weights(counts, -1).min(),
    ),
)
"""Exercise 1.3b's confusions, each ``counts -> margin``."""


@feedback_on_unreadable
def check_specificity_margin(value) -> Feedback:
    """Exercise 1.3b: the one-step margin when three seeds that share the answer sit in 20, 10 and 2
    passages and specificity is on. Asked to 3 significant digits.

    Examples
    --------
    >>> check_specificity_margin(1.3).ok, check_specificity_margin(1.6).ok
    (True, False)
    """
    want = 1 / _weights(SPECIFICITY_COUNTS, -1).max()
    return judge_value(
        "value", value, want, MARGIN_PRECISION, SPECIFICITY_MARGIN_WRONG, (SPECIFICITY_COUNTS,),
        right=f"specificity gives the rarest seed {1 / want:.3f} of the restart, so the margin falls from "
        f"{len(SPECIFICITY_COUNTS)} to {want:.3g}.",
        fallback="the margin is (r1 + r2 + r3)/r1 with r_i = s_i / sum(s), s_i = 1/|P_i|.",
    )  # fmt: skip



THREE_SEEDS_WRONG = (
    WrongModel(
        "two inflows",
        "count the inflows: every one of the three seeds is adjacent to the answer.",
        value=lambda: 2.0,
    ),
    WrongModel(
        "the ratio upside down",
        "the ratio is the answer's mass over a dead end's, not the other way round.",
        value=lambda: 1 / 3,
    ),
)
"""Exercise 1.4's confusions."""


@feedback_on_unreadable
def check_three_seeds(ratio) -> Feedback:
    """Exercise 1.4: the answer's one-step mass over a dead end's when three equal seeds share it.

    Asked to 3 significant digits.

    Examples
    --------
    >>> check_three_seeds(3).ok, check_three_seeds(2).ok
    (True, False)
    """
    return judge_value(
        "ratio", ratio, 3.0, MARGIN_PRECISION, THREE_SEEDS_WRONG,
        right="three inflows against one: the ratio is the number of seeds that meet.",
        fallback="divide the answer's mass by the best dead end's after one step (tol=0, max_iter=1); "
        "count the inflows into each.",
    )  # fmt: skip

