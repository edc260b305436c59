"""Checks for the exercises of notebooks 1-4: the walk on synthetic graphs.

Every check returns a :class:`~pathfinding.course.exercises.answers.Feedback` and compares numbers
with :func:`~pathfinding.course.exercises.answers.judge` at the precision its exercise states.
"""

from __future__ import annotations

import math

import numpy as np

from pathfinding.course.exercises.answers import (
    EXACT,
    NOT_YET,
    Feedback,
    Precision,
    call_answer,
    close_message,
    judge,
    read_number,
    read_numbers,
)
from pathfinding.errors import InvalidTypeError

# --- Notebook 1: the meet-node arithmetic ---------------------------------------------------------

_STEP_CASES = ((9, 0.5), (3, 0.15), (20, 0.85))
ONE_STEP_PRECISION = Precision(decimals=4)
STATIONARY_PRECISION = Precision(decimals=4)
MARGIN_PRECISION = Precision(sig=3)


def _one_step(d: int, alpha: float) -> tuple[float, float]:
    # Each seed holds half the restart mass; (1 - alpha) of it walks, split over d edges.
    per_inflow = (1 - alpha) * 0.5 / d
    return 2 * per_inflow, per_inflow


def check_one_step(fn) -> Feedback:
    """Exercise 1.1: ``fn(d, alpha)`` gives (answer, dead end) mass after one PPR step on ``star_pair(d)``.

    Masses are asked to 4 decimal places.

    Examples
    --------
    >>> check_one_step(lambda d, a: (2 * (1 - a) * 0.5 / d, (1 - a) * 0.5 / d)).ok
    True
    >>> check_one_step(lambda d, a: (round((1 - a) / d, 4), round((1 - a) * 0.5 / d, 4))).ok
    True
    >>> check_one_step(lambda d, a: (2 * a * 0.5 / d, a * 0.5 / d)).ok
    False
    """
    p = ONE_STEP_PRECISION
    for d, alpha in _STEP_CASES:
        got = call_answer(fn, "fn", 2, d, alpha)
        if got is None:
            return NOT_YET
        answer, dead = _one_step(d, alpha)
        verdict = judge(got, (answer, dead), p)
        if verdict == "right":
            continue
        if judge(got, (2 * alpha * 0.5 / d, alpha * 0.5 / d), p) == "right":
            hint = "the part of a seed's mass that restarts stays at the seed; only the rest walks."
        elif judge(got, (answer * 2, dead * 2), p) == "right":
            hint = "each of the two seeds starts with half of the restart mass, not all of it."
        elif judge(got, (answer * d, dead * d), p) == "right":
            hint = "a seed splits what it sends evenly over its d edges."
        elif verdict == "close":
            return Feedback(False, close_message(f"at d={d}, restart_prob={alpha}, {got}", p))
        elif judge(got[0], got[1], p) == "right":
            hint = "the answer is adjacent to both seeds, so it receives one inflow from each."
        else:
            hint = "write what one seed sends along one edge, then count the answer's inflows."
        return Feedback(False, f"at d={d}, restart_prob={alpha} your masses are {got}; hint: {hint}")
    return Feedback(
        True,
        "one step gives the answer two inflows of (1 - alpha) * 0.5 / d and a dead end one, "
        "for every d and alpha.",
    )


def _stationary(d: int, alpha: float) -> tuple[float, float, float]:
    seed = 1 / (2 * (2 - alpha))
    return seed, 2 * (1 - alpha) * seed / d, (1 - alpha) * seed / d


def check_stationary(fn) -> Feedback:
    """Exercise 1.2: ``fn(d, alpha)`` gives the stationary (seed, answer, dead end) mass on ``star_pair(d)``.

    At ``d = 9, alpha = 0.5`` the answer is (1/3, 1/27, 1/54). Masses are asked to 4 decimal places.

    Examples
    --------
    >>> seed = lambda a: 1 / (2 * (2 - a))
    >>> check_stationary(lambda d, a: (seed(a), 2 * (1 - a) * seed(a) / d, (1 - a) * seed(a) / d))
    correct: seed 1/(2(2 - alpha)), answer twice a dead end, and the mass sums to 1.
    """
    p = STATIONARY_PRECISION
    unit = 10.0**-p.decimals
    for d, alpha in _STEP_CASES:
        got = call_answer(fn, "fn", 3, d, alpha)
        if got is None:
            return NOT_YET
        verdict = judge(got, _stationary(d, alpha), p)
        if verdict == "right":
            continue
        if verdict == "close":
            return Feedback(False, close_message(f"at d={d}, restart_prob={alpha}, {got}", p))
        seed, answer, dead = got
        total = 2 * seed + answer + 2 * (d - 1) * dead
        # rounded entries may each be off by one unit: allow that much in the two relations below
        if judge(seed, alpha / 2, p) == "right":
            hint = (
                "at stationarity the neighbours send their mass back; a dead end has one edge, to its seed."
            )
        elif abs(answer - 2 * dead) > 3 * unit:
            hint = "the answer receives from both seeds at every step: it holds twice a dead end."
        elif abs(total - 1.0) > (2 * d + 1) * unit:
            hint = f"PPR mass sums to 1 over 2 seeds, the answer, {2 * (d - 1)} dead ends: yours {total:.4g}."
        else:
            hint = (
                "write one balance equation per kind of node (seed, answer, dead end) and solve for the seed."
            )
        return Feedback(False, f"at d={d}, restart_prob={alpha} you have {got}; hint: {hint}")
    return Feedback(True, "seed 1/(2(2 - alpha)), answer twice a dead end, and the mass sums to 1.")


def check_margin(fn) -> Feedback:
    """Exercise 1.3: ``fn(r1, r2)`` is the answer's one-step margin over the best dead end, ``r1 >= r2``.

    Asked to 3 significant digits.

    Examples
    --------
    >>> check_margin(lambda r1, r2: 1 + r2 / r1)
    correct: the best dead end belongs to the heavier seed, so the margin is 1 + r2/r1, between 1 and 2.
    """
    p = MARGIN_PRECISION
    for r1, r2 in ((0.5, 0.5), (0.8, 0.2), (0.7, 0.3)):
        if fn is None or fn is Ellipsis:
            return NOT_YET
        if not callable(fn):
            raise InvalidTypeError(f"expected a function margin(r1, r2), got {type(fn).__name__}")
        got = read_number(f"fn({r1}, {r2})", fn(r1, r2))
        if got is None:
            return NOT_YET
        verdict = judge(got, 1 + r2 / r1, p)
        if verdict == "right":
            continue
        if judge(got, 1 + r1 / r2, p) == "right":
            hint = "the *best* dead end is the one fed by the heavier seed."
        elif judge(got, 2.0, p) == "right":
            hint = "with unequal restart weights the two inflows into the answer are no longer equal."
        elif verdict == "close":
            return Feedback(False, close_message(f"for r1={r1}, r2={r2}, {got:g}", p))
        else:
            hint = "write the answer's mass (two inflows) and the heavier seed's dead end's mass (one)."
        return Feedback(False, f"for r1={r1}, r2={r2} you have {got:.6g}; hint: {hint}")
    return Feedback(
        True, "the best dead end belongs to the heavier seed, so the margin is 1 + r2/r1, between 1 and 2."
    )


def check_specificity_margin(value) -> Feedback:
    """Exercise 1.3b: the one-step margin when the seeds sit in 20 and 5 passages and specificity is on.

    Asked to 3 significant digits.
    """
    got = read_number("value", value)
    if got is None:
        return NOT_YET
    p = MARGIN_PRECISION
    verdict = judge(got, 1.25, p)
    if verdict == "right":
        return Feedback(
            True, "specificity moves the restart to 0.20/0.80, so the margin falls from 2 to 1.25."
        )
    if judge(got, 2.0, p) == "right":
        return Feedback(False, "specificity changes the restart weights: compute them first (1/20 and 1/5).")
    if judge(got, 5.0, p) == "right":
        return Feedback(False, "the margin is over the *best* dead end, the one fed by the heavier seed.")
    if verdict == "close":
        return Feedback(False, close_message(f"{got:g}", p))
    return Feedback(False, f"{got:.6g}; hint: use the margin from exercise 1.3 with the weighted restart.")


def check_three_seeds(ratio) -> Feedback:
    """Exercise 1.4: the answer's one-step mass over a dead end's when three equal seeds share it.

    Asked to 3 significant digits.
    """
    got = read_number("ratio", ratio)
    if got is None:
        return NOT_YET
    p = MARGIN_PRECISION
    verdict = judge(got, 3.0, p)
    if verdict == "right":
        return Feedback(True, "three inflows against one: the ratio is the number of seeds that meet.")
    if judge(got, 2.0, p) == "right":
        return Feedback(False, "count the inflows: every one of the three seeds is adjacent to the answer.")
    if verdict == "close":
        return Feedback(False, close_message(f"{got:g}", p))
    return Feedback(False, f"{got:.6g}; hint: measure one step (tol=0, max_iter=1), not the stationary mass.")


# --- Notebook 2: node specificity ----------------------------------------------------------------

RESTART_PRECISION = Precision(decimals=3)


def check_restart(mentions, seeds, vector) -> Feedback:
    """Exercise 2.1 (and 7.1): the specificity-weighted restart vector over all nodes for ``seeds`` given P.

    Every entry is asked to 3 decimal places; a list, tuple or array of any numbers is read.

    Examples
    --------
    >>> from fractions import Fraction
    >>> from pathfinding.synthetic.toy import passage_count_matrix
    >>> check_restart(passage_count_matrix((20, 5)), [0, 1], [0.2, 0.8])
    correct: s_i = 1/|P_i|, multiplied into the seeds' restart and renormalised to sum 1.
    >>> check_restart(passage_count_matrix((20, 5)), [0, 1], (Fraction(1, 5), Fraction(4, 5))).ok
    True
    """
    from pathfinding.core.specificity import node_specificity, restart_vector

    want = restart_vector(mentions.shape[0], seeds, specificity=node_specificity(mentions))
    got = read_numbers("vector", vector, None)
    if got is None:
        return NOT_YET
    if len(got) != want.size:
        raise InvalidTypeError(f"vector must have one entry per node ({want.size}), got {len(got)}")
    got = np.asarray(got)
    p = RESTART_PRECISION
    verdict = judge(got, want, p)
    if verdict == "right":
        return Feedback(True, "s_i = 1/|P_i|, multiplied into the seeds' restart and renormalised to sum 1.")
    counts = np.diff(mentions.tocsr().indptr).astype(float)
    prop = np.zeros_like(want)
    prop[np.asarray(seeds)] = counts[np.asarray(seeds)]
    if prop.sum() > 0 and judge(got, prop / prop.sum(), p) == "right":
        return Feedback(False, "a seed in MORE passages is LESS specific: the weight is 1/|P_i|, not |P_i|.")
    if verdict == "close":
        return Feedback(False, close_message("your vector", p))
    if got.sum() > 0 and not math.isclose(got.sum(), 1.0, abs_tol=got.size * 10.0**-p.decimals):
        if judge(got / got.sum(), want, p) == "right":
            return Feedback(False, "the proportions are right; a restart vector sums to 1.")
    return Feedback(False, "|P_i| counts the passages node i appears in (nonzero entries of its row of P).")


def check_hub_threshold(n_passages) -> Feedback:
    """Exercise 2.2: the fewest passages a seed needs for its restart share to fall below 15% against a
    seed in 5 passages (a whole number).

    Examples
    --------
    >>> check_hub_threshold(29.0).ok, check_hub_threshold(28).ok
    (True, False)
    """
    got = read_number("n_passages", n_passages)
    if got is None:
        return NOT_YET
    if judge(got, 29) == "right":
        return Feedback(True, "5/(5 + n) < 0.15 first holds at n = 29 (5/34 = 14.7%).")
    if judge(got, 28) == "right":
        return Feedback(False, "at 28 the share is 5/33 = 15.2%, still above 15%.")
    if 28 < got < 29:
        return Feedback(
            False,
            f"close — {got:g} solves the equation, but a passage count is a whole number: "
            "give the fewest whole passages for which the share is below 15%.",
        )
    return Feedback(
        False,
        f"{got:g}; hint: with specificity on, each seed's weight is 1/|P_i| before normalising; "
        "write the hub's share of the two weights and try counts until it drops below 15%.",
    )


# --- Notebook 3: path-finding versus path-following ------------------------------------------------


def check_chance_rank(distractors, value) -> Feedback:
    """Exercise 3.1: the answer's expected rank at chance with ``distractors`` dead-end chains per seed.

    Asked exactly: with one answer and an even number of dead ends the mean rank is a whole number.
    """
    got = read_number("value", value)
    if got is None:
        return NOT_YET
    n = 2 * distractors + 1
    p = EXACT
    verdict = judge(got, (n + 1) / 2, p)
    if verdict == "right":
        return Feedback(
            True, f"{n} candidates (the answer and {n - 1} dead ends) tie, so the mean rank is ({n} + 1)/2."
        )
    if judge(got, n / 2, p) == "right":
        return Feedback(False, "ranks run from 1 to n, and the n candidates include the answer itself.")
    if verdict == "close":
        return Feedback(False, close_message(f"{got:g}", p))
    return Feedback(False, f"{got:g}; hint: how many candidates are there, and what is the mean of 1..n?")


def check_passage_rank(hops, value) -> Feedback:
    """Exercise 3.2: the rank of the answer's best passage under pi . P on a default instance at ``hops``.

    Asked exactly: a rank is a whole number, or the mean of the ranks a tie shares.
    """
    from pathfinding.experiments.passages import passage_ranks
    from pathfinding.synthetic.instances import make_instance

    got = read_number("value", value)
    if got is None:
        return NOT_YET
    want = passage_ranks(make_instance(hops, rng=0))["pi_P"][0]
    p = EXACT
    verdict = judge(got, want, p)
    if verdict == "right":
        return Feedback(True, "every passage nearer a seed outranks the answer's: mass decays with depth.")
    if judge(got, 1.0, p) == "right":
        return Feedback(
            False, "the factor 2 only beats nodes at the same depth; compare a seed's mass with the answer's."
        )
    if verdict == "close":
        return Feedback(False, close_message(f"{got:g}", p))
    return Feedback(
        False, f"{got:g}; hint: count the passages whose nearer node is closer to a seed than the answer."
    )


# --- Notebook 4: what defeats PPR --------------------------------------------------------------------


def _seeds_reaching(instance, target: int) -> list[int]:
    """The seeds with a path to ``target`` that passes through no other seed."""
    from scipy.sparse.csgraph import breadth_first_order

    A = instance.graph.tocsr()
    seeds = [int(s) for s in instance.seeds]
    reaching = []
    for s in seeds:
        keep = np.ones(A.shape[0], dtype=bool)
        keep[[t for t in seeds if t != s]] = False
        sub = A[keep][:, keep]
        index = np.cumsum(keep) - 1  # old id -> id in the graph without the other seeds
        reached = breadth_first_order(sub, int(index[s]), directed=False, return_predecessors=False)
        if keep[target] and index[target] in set(reached.tolist()):
            reaching.append(s)
    return reaching


def check_defeating_shape(instance) -> Feedback:
    """Exercise 4.1: a path-finding instance of your own on which PPR does not rank the answer first.

    A shape counts only if it is a path-finding question: at least two seeds, no passage naming two
    seeds, an answer that is a candidate and not a seed, and at least two seeds that each reach the
    answer by a path through no other seed (otherwise the answer is no meet node, and the question is
    not the one PPR was built for).

    Examples
    --------
    >>> from pathfinding.synthetic.instances import make_instance
    >>> check_defeating_shape(make_instance(2, bridge_branching=3, rng=0)).ok
    True
    >>> check_defeating_shape(make_instance(2, rng=0)).ok
    False
    """
    from pathfinding.core.scoring import rank_of
    from pathfinding.synthetic.instances import PathFindingInstance
    from pathfinding.synthetic.rankers import RANKERS

    if instance is None or instance is Ellipsis:
        return NOT_YET
    if not isinstance(instance, PathFindingInstance):
        raise InvalidTypeError(f"expected a PathFindingInstance, got {type(instance).__name__}")
    P = instance.mentions.tocsr()
    seeds_per_passage = np.asarray((P[instance.seeds] > 0).sum(axis=0)).ravel()
    if len(np.unique(instance.seeds)) < 2:
        return Feedback(False, "a path-finding question names at least two entities (seeds).")
    if np.any(seeds_per_passage >= 2):
        return Feedback(
            False, "a passage names two seeds: that question is answered by one passage, not a path."
        )
    if instance.answer in set(instance.seeds.tolist()) or instance.answer not in set(
        instance.candidates.tolist()
    ):
        return Feedback(False, "the answer must be a candidate and not a seed.")
    reaching = _seeds_reaching(instance, int(instance.answer))
    names = [instance.node_names[s] for s in reaching]
    if not reaching:
        return Feedback(
            False,
            "no seed reaches the answer: PPR gives it no mass, and no retriever that walks from the "
            "question could find it. Connect the answer to the seeds by paths.",
        )
    if len(reaching) == 1:
        return Feedback(
            False,
            f"only seed {names[0]!r} reaches the answer by a path through no other seed: the answer is "
            "no meet node, so this is a one-entity question. Give every seed its own path to the answer.",
        )
    rank = rank_of(RANKERS["ppr"](instance), instance.answer, instance.candidates)
    if rank > 1:
        return Feedback(
            True,
            f"PPR puts the answer at rank {rank:g} of {len(instance.candidates)}: your shape defeats it.",
        )
    return Feedback(
        False,
        "PPR still ranks the answer first. The meet node wins by a factor 2; make the answer's paths "
        "leakier than the dead ends' (branching), or give the seeds a shorter meet.",
    )


def check_slip_branching(value, *, seeds: int = 2) -> Feedback:
    """Exercise 4.2: the fewest leaves per interior bridge node that cost the 2-hop answer its first place
    when ``seeds`` seeds meet at it (a whole number).

    Examples
    --------
    >>> check_slip_branching(3).ok, check_slip_branching(5, seeds=3).ok
    (True, True)
    """
    from pathfinding.core.scoring import rank_of
    from pathfinding.synthetic.instances import make_instance
    from pathfinding.synthetic.rankers import RANKERS

    got = read_number("value", value)
    if got is None:
        return NOT_YET
    want = next(
        b
        for b in range(1, 10)
        if rank_of(
            RANKERS["ppr"](inst := make_instance(2, seeds=seeds, bridge_branching=b, rng=0)),
            inst.answer,
            inst.candidates,
        )
        > 1
    )
    if judge(got, want) == "right":
        return Feedback(
            True, f"at {want} leaves the bridge node forwards 1/{2 + want} and the factor {seeds} is eaten."
        )
    if got != round(got):
        return Feedback(False, f"{got:g}: a number of leaves is a whole number; try each from 1 up.")
    if got < want:
        return Feedback(False, "measure the rank at that branching: PPR still wins there.")
    return Feedback(False, "a smaller branching already defeats it: try each value from 1 up.")
