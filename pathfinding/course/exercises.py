"""Checks for the course's exercises: each takes the student's answer and says whether it holds.

Every ``check_...`` function returns a :class:`Feedback`: true when the answer holds, and on failure a
hint that points at the idea the answer missed, not at the answer. Checks never raise on a wrong or
missing answer (a notebook keeps running in class); they raise ``TypeError`` only when the *shape* of
the answer cannot be read (a string where a number was asked for). The solutions in
``notebooks/solutions/`` call the same checks and assert them, so the test suite fails when an
exercise breaks.

Every number goes through one comparison, :func:`judge`: it reads any real number (int, float, a
NumPy scalar or 0-d array, :class:`fractions.Fraction`, :class:`decimal.Decimal`; a list, tuple or
array where a vector is asked) and compares it at the :class:`Precision` the exercise states. An
answer right to the stated precision passes; one that is right but written with fewer digits than
asked gets "close — keep more digits", never a hint about the idea; only an answer that is wrong at
every precision gets a concept hint.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from numbers import Real
from typing import Literal

import numpy as np

from pathfinding.errors import InvalidTypeError

__all__ = [
    "EXACT",
    "Feedback",
    "Precision",
    "check_break_even",
    "check_chance_rank",
    "check_connected_probability",
    "check_defeating_shape",
    "check_half_share",
    "check_hub_threshold",
    "check_margin",
    "check_missed_question",
    "check_monitor",
    "check_one_step",
    "check_passage_rank",
    "check_restart",
    "check_slip_branching",
    "check_specificity_margin",
    "check_stationary",
    "check_three_seeds",
    "judge",
]


@dataclass(frozen=True)
class Feedback:
    """The verdict of one check: ``ok`` and a sentence for the student. Truthy when ``ok``."""

    ok: bool
    message: str

    def __bool__(self) -> bool:
        return self.ok

    def __repr__(self) -> str:
        return ("correct: " if self.ok else "not yet: ") + self.message


@dataclass(frozen=True)
class Precision:
    """The precision an exercise asks for; an answer within one unit of its last digit passes.

    Give at most one of ``sig`` (significant digits) and ``decimals`` (decimal places), or ``whole``
    for a count that may be rounded either way to a whole number; none of them asks for the exact
    value (up to floating-point error), as for a count that has one right integer.

    Examples
    --------
    >>> str(Precision(sig=2)), str(Precision(decimals=4)), str(Precision(whole=True)), str(EXACT)
    ('to 2 significant digits', 'to 4 decimal places', 'to a whole number', 'exactly')
    """

    sig: int | None = None
    decimals: int | None = None
    whole: bool = False

    def __str__(self) -> str:
        if self.sig is not None:
            return f"to {self.sig} significant digits"
        if self.decimals is not None:
            return f"to {self.decimals} decimal places"
        return "to a whole number" if self.whole else "exactly"

    def unit(self, want: np.ndarray) -> np.ndarray:
        """The value of one unit in the last digit asked for, per entry of ``want`` (0 when exact)."""
        want = np.abs(np.asarray(want, dtype=float))
        if self.sig is not None:
            with np.errstate(divide="ignore"):
                lead = np.floor(np.log10(np.where(want > 0, want, 1.0)))
            return np.where(want > 0, 10.0 ** (lead - self.sig + 1), 0.0)
        if self.decimals is not None:
            return np.full(want.shape, 10.0**-self.decimals)
        return np.full(want.shape, 1.0 if self.whole else 0.0)


EXACT = Precision()


def _slack(want: np.ndarray) -> np.ndarray:
    # floating-point error of a value computed another way (a fraction, a different order of sums)
    return 1e-9 * np.maximum(np.abs(want), 1e-3)


def _fewer_digits(got: float, want: float, unit: float) -> bool:
    """Whether ``got`` is ``want`` written with fewer digits than ``unit`` asks for."""
    if unit == 0 or got == 0 or want == 0:
        return False
    coarse, leading = unit * 10, 10.0 ** math.floor(math.log10(abs(want)))
    while coarse <= leading * (1 + 1e-9):  # down to one significant digit, no coarser
        steps = got / coarse
        if abs(steps - round(steps)) < 1e-6 and abs(got - want) <= coarse * (1 + 1e-9):
            return True
        coarse *= 10
    return False


def judge(got, want, precision: Precision = EXACT) -> Literal["right", "close", "wrong"]:
    """Compare an answer with the expected value at the precision the exercise states.

    Parameters
    ----------
    got : real number or sequence of real numbers
        The answer, already read by the check (see :func:`_number`); same length as ``want``.
    want : real number or sequence of real numbers
    precision : Precision, default EXACT

    Returns
    -------
    {"right", "close", "wrong"}
        ``"right"`` when every entry is within one unit of the last digit asked for; ``"close"``
        when every entry is right or is the value written with fewer digits (``0.6`` for
        ``0.61047`` asked to 2 significant digits); ``"wrong"`` otherwise.

    Examples
    --------
    >>> from fractions import Fraction
    >>> judge(0.61, 0.61047, Precision(sig=2)), judge(0.6105, 0.61047, Precision(sig=2))
    ('right', 'right')
    >>> judge(0.6, 0.61047, Precision(sig=2)), judge(0.66, 0.61047, Precision(sig=2))
    ('close', 'wrong')
    >>> judge([Fraction(1, 5), Fraction(4, 5)], [0.2, 0.8]), judge(2222, 20_000 / 9, Precision(whole=True))
    ('right', 'right')
    """
    g = np.atleast_1d(np.asarray(got, dtype=float))
    w = np.atleast_1d(np.asarray(want, dtype=float))
    if g.shape != w.shape:
        return "wrong"
    unit = precision.unit(w)
    right = np.abs(g - w) <= unit * (1 + 1e-9) + _slack(w)
    if right.all():
        return "right"
    if all(right[i] or _fewer_digits(g[i], w[i], unit[i]) for i in range(g.size)):
        return "close"
    return "wrong"


def _close_message(what: str, precision: Precision) -> str:
    return f"close — keep more digits: {what} is the answer rounded too far; give it {precision}."


def _number(name: str, value) -> float | None:
    """``value`` as a float, None when the student has not answered yet (None or ...).

    Reads any real number: int, float, NumPy scalar or 0-d array, Fraction, Decimal.
    """
    if value is None or value is Ellipsis:
        return None
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, bool | np.bool_) or not isinstance(value, Real | Decimal):
        raise InvalidTypeError(
            f"{name} must be a number (int, float, NumPy number or Fraction), "
            f"got {type(value).__name__} {value!r}"
        )
    return float(value)


def _numbers(name: str, value, n: int | None) -> tuple[float, ...] | None:
    """``value`` as ``n`` floats (any length when ``n`` is None); None when any entry is unanswered."""
    if value is None or value is Ellipsis:
        return None
    if isinstance(value, np.ndarray) and np.squeeze(value).ndim <= 1:
        value = np.reshape(value, -1).tolist()  # a column or row vector reads as a vector
    if not isinstance(value, tuple | list) or (n is not None and len(value) != n):
        want = "numbers" if n is None else f"{n} numbers"
        raise InvalidTypeError(f"{name} must be {want} (a tuple, list or array), got {value!r}")
    read = [_number(f"{name}[{i}]", v) for i, v in enumerate(value)]
    return None if any(v is None for v in read) else tuple(read)


_NOT_YET = Feedback(False, "no answer yet: replace the ... with your answer and run the cell again.")


def _call(fn: Callable | None, name: str, n: int, *args) -> tuple[float, ...] | None:
    if fn is None or fn is Ellipsis:
        return None
    if not callable(fn):
        raise InvalidTypeError(f"expected a function for {name}, got {type(fn).__name__}")
    return _numbers(f"{name}{args}", fn(*args), n)


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
        got = _call(fn, "fn", 2, d, alpha)
        if got is None:
            return _NOT_YET
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
            return Feedback(False, _close_message(f"at d={d}, restart_prob={alpha}, {got}", p))
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
        got = _call(fn, "fn", 3, d, alpha)
        if got is None:
            return _NOT_YET
        verdict = judge(got, _stationary(d, alpha), p)
        if verdict == "right":
            continue
        if verdict == "close":
            return Feedback(False, _close_message(f"at d={d}, restart_prob={alpha}, {got}", p))
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
            return _NOT_YET
        if not callable(fn):
            raise InvalidTypeError(f"expected a function margin(r1, r2), got {type(fn).__name__}")
        got = _number(f"fn({r1}, {r2})", fn(r1, r2))
        if got is None:
            return _NOT_YET
        verdict = judge(got, 1 + r2 / r1, p)
        if verdict == "right":
            continue
        if judge(got, 1 + r1 / r2, p) == "right":
            hint = "the *best* dead end is the one fed by the heavier seed."
        elif judge(got, 2.0, p) == "right":
            hint = "with unequal restart weights the two inflows into the answer are no longer equal."
        elif verdict == "close":
            return Feedback(False, _close_message(f"for r1={r1}, r2={r2}, {got:g}", p))
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
    got = _number("value", value)
    if got is None:
        return _NOT_YET
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
        return Feedback(False, _close_message(f"{got:g}", p))
    return Feedback(False, f"{got:.6g}; hint: use the margin from exercise 1.3 with the weighted restart.")


def check_three_seeds(ratio) -> Feedback:
    """Exercise 1.4: the answer's one-step mass over a dead end's when three equal seeds share it.

    Asked to 3 significant digits.
    """
    got = _number("ratio", ratio)
    if got is None:
        return _NOT_YET
    p = MARGIN_PRECISION
    verdict = judge(got, 3.0, p)
    if verdict == "right":
        return Feedback(True, "three inflows against one: the ratio is the number of seeds that meet.")
    if judge(got, 2.0, p) == "right":
        return Feedback(False, "count the inflows: every one of the three seeds is adjacent to the answer.")
    if verdict == "close":
        return Feedback(False, _close_message(f"{got:g}", p))
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
    got = _numbers("vector", vector, None)
    if got is None:
        return _NOT_YET
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
        return Feedback(False, _close_message("your vector", p))
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
    got = _number("n_passages", n_passages)
    if got is None:
        return _NOT_YET
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
    got = _number("value", value)
    if got is None:
        return _NOT_YET
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
        return Feedback(False, _close_message(f"{got:g}", p))
    return Feedback(False, f"{got:g}; hint: how many candidates are there, and what is the mean of 1..n?")


def check_passage_rank(hops, value) -> Feedback:
    """Exercise 3.2: the rank of the answer's best passage under pi . P on a default instance at ``hops``.

    Asked exactly: a rank is a whole number, or the mean of the ranks a tie shares.
    """
    from pathfinding.experiments.passages import passage_ranks
    from pathfinding.synthetic.instances import make_instance

    got = _number("value", value)
    if got is None:
        return _NOT_YET
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
        return Feedback(False, _close_message(f"{got:g}", p))
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
        return _NOT_YET
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

    got = _number("value", value)
    if got is None:
        return _NOT_YET
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


# --- Notebook 5: the cost of indexing once ------------------------------------------------------------

QUERIES_PRECISION = Precision(whole=True)


def check_break_even(n_passages, ratio, value) -> Feedback:
    """Exercise 5.1: queries after which indexing ``n_passages`` pays off, when an iterative query costs
    ``ratio`` query-NER calls (2 OpenIE calls per passage, 1 NER call per HippoRAG query).

    Asked to the nearest whole query, rounded either way (2222 and 2223 both pass for 2222.2).

    Examples
    --------
    >>> check_break_even(10_000, 10, 2222).ok, check_break_even(10_000, 30, 690).ok
    (True, True)
    >>> check_break_even(10_000, 10, 2200)
    not yet: close — keep more digits: 2200 is the answer rounded too far; give it to a whole number.
    """
    got = _number("value", value)
    if got is None:
        return _NOT_YET
    p = QUERIES_PRECISION
    verdict = judge(got, 2 * n_passages / (ratio - 1), p)
    if verdict == "right":
        return Feedback(True, "the index pays for itself after N * 2 / (ratio - 1) queries.")
    if judge(got, 2 * n_passages / ratio, p) == "right":
        return Feedback(False, "each query saves the iterative cost MINUS HippoRAG's own NER call.")
    if judge(got, n_passages / (ratio - 1), p) == "right":
        return Feedback(False, "HippoRAG's OpenIE makes two calls per passage (NER, then triples).")
    if verdict == "close":
        return Feedback(False, _close_message(f"{got:g}", p))
    return Feedback(
        False, f"{got:g}; hint: set offline + per-query cost equal to the iterative bill and solve."
    )


def check_half_share(n_passages, value, *, calls_per_query: int = 1) -> Feedback:
    """Exercise 5.2: the query volume at which the offline bill (2 calls per passage) is half of
    HippoRAG's total, when a query makes ``calls_per_query`` LLM calls. Asked to the nearest whole query.

    Examples
    --------
    >>> check_half_share(10_000, 20_000).ok, check_half_share(50_000, 50_000, calls_per_query=2).ok
    (True, True)
    """
    got = _number("value", value)
    if got is None:
        return _NOT_YET
    p = QUERIES_PRECISION
    verdict = judge(got, 2 * n_passages / calls_per_query, p)
    if verdict == "right":
        return Feedback(
            True,
            f"2N calls offline equal {calls_per_query} call(s) per query online at Q = 2N / "
            f"{calls_per_query}, whatever the iterative retriever costs.",
        )
    if calls_per_query != 1 and judge(got, 2 * n_passages, p) == "right":
        return Feedback(False, f"each query now makes {calls_per_query} calls, not one.")
    if judge(got, n_passages / calls_per_query, p) == "right":
        return Feedback(False, "HippoRAG's OpenIE makes two calls per passage (NER, then triples).")
    if verdict == "close":
        return Feedback(False, _close_message(f"{got:g}", p))
    return Feedback(False, f"{got:g}; hint: the iterative retriever does not enter this one.")


# --- Notebook 6: monitoring index recall -----------------------------------------------------------

PROBABILITY_PRECISION = Precision(sig=2)
MONITOR_DETECTION = 0.8  # share of damaged batches a monitor must alarm on, at 5% false alarms


def check_connected_probability(n_facts, n_deleted, bridge_facts, value) -> Feedback:
    """Exercise 6.1: the chance that all ``bridge_facts`` facts survive when ``n_deleted`` of ``n_facts``
    are deleted uniformly at random (without replacement). Asked to 2 significant digits.

    Examples
    --------
    >>> check_connected_probability(36, 4, 4, 0.61).ok, check_connected_probability(36, 4, 4, 0.6105).ok
    (True, True)
    >>> check_connected_probability(36, 4, 4, 0.6)
    not yet: close — keep more digits: 0.6 is the answer rounded too far; give it to 2 significant digits.
    """
    got = _number("value", value)
    if got is None:
        return _NOT_YET
    p = PROBABILITY_PRECISION
    verdict = judge(got, math.comb(n_facts - bridge_facts, n_deleted) / math.comb(n_facts, n_deleted), p)
    if verdict == "right":
        return Feedback(True, "C(n - b, k) / C(n, k): the deleted facts must all come from the other n - b.")
    # the independent model at the exact rate k/n, or at the rate as the exercise states it (10%)
    independent = {
        (1 - n_deleted / n_facts) ** bridge_facts,
        (1 - round(n_deleted / n_facts, 1)) ** bridge_facts,
    }
    if any(judge(got, q, p) == "right" for q in independent):
        return Feedback(False, "exactly k facts go, without replacement: the survivals are not independent.")
    if verdict == "close":
        return Feedback(False, _close_message(f"{got:g}", p))
    return Feedback(False, f"{got:.6g}; hint: count the deletions that spare every bridge fact.")


def check_monitor(monitor, *, queries: int = 300, seed: int = 0) -> Feedback:
    """Exercise 6.2 (open): a label-free monitor that alarms when the index loses facts.

    ``monitor(query, pi) -> float`` sees what a production system has: a
    :class:`~pathfinding.course.monitoring.LabelFreeQuery` (graph, P, passages, node names, seeds; no answer,
    no candidates) and the query's PPR vector. :func:`~pathfinding.course.monitoring.alarm_rates` sets the
    alarm range on the undamaged index (5% false alarms over batches of 10 queries of mixed shapes)
    and counts the damaged batches (20% of facts deleted) that leave it. Passes at a detection rate
    of at least ``MONITOR_DETECTION``.
    """
    from pathfinding.course.monitoring import alarm_rates

    if monitor is None or monitor is Ellipsis:
        return _NOT_YET
    if not callable(monitor):
        raise InvalidTypeError(f"expected a function monitor(query, pi), got {type(monitor).__name__}")
    probe = _Probe(monitor)
    try:
        rates = alarm_rates(probe, queries=queries, seed=seed)
    except _Unanswered:
        return _NOT_YET
    except AttributeError as err:
        return Feedback(
            False,
            f"your monitor asked for something a production system does not have ({err}); it sees only "
            "query.graph, query.mentions, query.passages, query.node_names, query.seeds and pi.",
        )
    summary = (
        f"it alarms on {rates.detection:.0%} of damaged batches at {rates.false_alarm:.0%} false alarms "
        f"on the intact index (mean {rates.undamaged_mean:.4g} intact, {rates.damaged_mean:.4g} damaged)"
    )
    if rates.detection >= MONITOR_DETECTION:
        return Feedback(True, summary + ".")
    if rates.false_alarm == 0 and rates.detection == 0:
        return Feedback(False, summary + ": it gives the same value whatever the damage, so it cannot alarm.")
    return Feedback(
        False,
        f"{summary}, below {MONITOR_DETECTION:.0%}: the signal moves less than it varies between "
        "queries. Hint: what does a missing bridge fact change about what the seeds' walks share?",
    )


class _Unanswered(Exception):
    pass


class _Probe:
    """Wraps a student's monitor: an unanswered ``...`` stops the run, a number goes through."""

    def __init__(self, monitor: Callable):
        self.monitor = monitor

    def __call__(self, query, pi):
        value = self.monitor(query, pi)
        if value is None or value is Ellipsis:
            raise _Unanswered
        return _number("monitor(query, pi)", value)


# --- Notebook 7: the online pipeline on real text --------------------------------------------------


def check_missed_question(retriever, question, corpus, *, k: int = 5) -> Feedback:
    """Exercise 7.2: a question whose supporting passages ``retriever`` misses in its top ``k``.

    ``retriever`` is a :class:`~pathfinding.hipporag.HippoRetriever`, ``question`` one
    :class:`~pathfinding.hipporag.io.Question` of the vendored set (``questions[i]``, not its text: the
    check needs its gold passages) and ``corpus`` its passages. Passes when at least one supporting
    passage is outside the top ``k``; the feedback names the linked seeds and the missed gold titles,
    so the student can say why.
    """
    from pathfinding.hipporag import supporting_ids
    from pathfinding.hipporag.io import Question

    if question is None or question is Ellipsis:
        return _NOT_YET
    if not isinstance(question, Question):
        shown = f"{question[:60]!r}" if isinstance(question, str) else type(question).__name__
        raise InvalidTypeError(
            f"missed_question must be one of `questions` (a Question, which carries its gold passages), "
            f"got {shown}; pick it as questions[i], e.g. the i whose .question is your text."
        )
    hit = retriever.retrieve(question.question, k=k)
    gold = supporting_ids([question], corpus)[0]
    found = set(np.asarray(hit.passages).tolist())
    missed = [corpus[g].title for g in gold if g not in found]
    seeds = [retriever.index.phrases[s] for s in hit.seeds]
    where = "fell back to BM25 (no entity linked)" if hit.fell_back else f"seeds {seeds}"
    if missed:
        return Feedback(True, f"{where}; missed gold passages {missed}. Now say why in a sentence.")
    return Feedback(
        False, f"the top {k} holds every supporting passage of this question ({where}); try another."
    )
