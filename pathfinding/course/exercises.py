"""Checks for the course's exercises: each takes the student's answer and says whether it holds.

Every ``check_...`` function returns a :class:`Feedback`: true when the answer holds, and on failure a
hint that points at the idea the answer missed, not at the answer. Checks never raise on a wrong or
missing answer (a notebook keeps running in class); they raise ``TypeError`` only when the *shape* of
the answer cannot be read (a string where a number was asked for). The solutions in
``notebooks/solutions/`` call the same checks and assert them, so the test suite fails when an
exercise breaks.

Numbers are compared with a relative tolerance of ``RTOL`` and an absolute one of ``ATOL``, so an
answer written as a fraction, a rounded decimal to 6 significant digits or a float computed another
way all pass.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from pathfinding.errors import InvalidTypeError

__all__ = [
    "ATOL",
    "RTOL",
    "Feedback",
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
]

RTOL = 1e-5
ATOL = 1e-9


@dataclass(frozen=True)
class Feedback:
    """The verdict of one check: ``ok`` and a sentence for the student. Truthy when ``ok``."""

    ok: bool
    message: str

    def __bool__(self) -> bool:
        return self.ok

    def __repr__(self) -> str:
        return ("correct: " if self.ok else "not yet: ") + self.message


def _close(a, b) -> bool:
    return bool(np.allclose(a, b, rtol=RTOL, atol=ATOL))


def _number(name: str, value) -> float | None:
    """``value`` as a float, None when the student has not answered yet (None or ...)."""
    if value is None or value is Ellipsis:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise InvalidTypeError(f"{name} must be a number, got {type(value).__name__} {value!r}")
    return float(value)


def _numbers(name: str, value, n: int) -> tuple[float, ...] | None:
    if value is None or value is Ellipsis:
        return None
    if not isinstance(value, tuple | list | np.ndarray) or len(value) != n:
        raise InvalidTypeError(f"{name} must be {n} numbers, got {value!r}")
    return tuple(_number(f"{name}[{i}]", v) for i, v in enumerate(value))


_NOT_YET = Feedback(False, "no answer yet: replace the ... with your answer and run the cell again.")


def _call(fn: Callable | None, name: str, n: int, *args) -> tuple[float, ...] | None:
    if fn is None or fn is Ellipsis:
        return None
    if not callable(fn):
        raise InvalidTypeError(f"expected a function for {name}, got {type(fn).__name__}")
    return _numbers(f"{name}{args}", fn(*args), n)


# --- Notebook 1: the meet-node arithmetic ---------------------------------------------------------

_STEP_CASES = ((9, 0.5), (3, 0.15), (20, 0.85))


def _one_step(d: int, alpha: float) -> tuple[float, float]:
    # Each seed holds half the restart mass; (1 - alpha) of it walks, split over d edges.
    per_inflow = (1 - alpha) * 0.5 / d
    return 2 * per_inflow, per_inflow


def check_one_step(fn) -> Feedback:
    """Exercise 1.1: ``fn(d, alpha)`` gives (answer, dead end) mass after one PPR step on ``star_pair(d)``.

    Examples
    --------
    >>> check_one_step(lambda d, a: (2 * (1 - a) * 0.5 / d, (1 - a) * 0.5 / d)).ok
    True
    >>> check_one_step(lambda d, a: (2 * a * 0.5 / d, a * 0.5 / d)).ok
    False
    """
    for d, alpha in _STEP_CASES:
        got = _call(fn, "fn", 2, d, alpha)
        if got is None:
            return _NOT_YET
        answer, dead = _one_step(d, alpha)
        if _close(got, (answer, dead)):
            continue
        if _close(got, (2 * alpha * 0.5 / d, alpha * 0.5 / d)):
            hint = "the part of a seed's mass that restarts stays at the seed; only the rest walks."
        elif _close(got, (answer * 2, dead * 2)):
            hint = "each of the two seeds starts with half of the restart mass, not all of it."
        elif _close(got[0], got[1]):
            hint = "the answer is adjacent to both seeds, so it receives one inflow from each."
        elif _close(got, (answer * d, dead * d)):
            hint = "a seed splits what it sends evenly over its d edges."
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

    At ``d = 9, alpha = 0.5`` the answer is (1/3, 1/27, 1/54).

    Examples
    --------
    >>> seed = lambda a: 1 / (2 * (2 - a))
    >>> check_stationary(lambda d, a: (seed(a), 2 * (1 - a) * seed(a) / d, (1 - a) * seed(a) / d))
    correct: seed 1/(2(2 - alpha)), answer twice a dead end, and the mass sums to 1.
    """
    for d, alpha in _STEP_CASES:
        got = _call(fn, "fn", 3, d, alpha)
        if got is None:
            return _NOT_YET
        want = _stationary(d, alpha)
        if _close(got, want):
            continue
        seed, answer, dead = got
        total = 2 * seed + answer + 2 * (d - 1) * dead
        if _close(seed, alpha / 2):
            hint = (
                "at stationarity the neighbours send their mass back; a dead end has one edge, to its seed."
            )
        elif not _close(answer, 2 * dead):
            hint = "the answer receives from both seeds at every step: it holds twice a dead end."
        elif not _close(total, 1.0):
            hint = f"PPR mass sums to 1 over 2 seeds, the answer, {2 * (d - 1)} dead ends: yours {total:.4g}."
        else:
            hint = (
                "write one balance equation per kind of node (seed, answer, dead end) and solve for the seed."
            )
        return Feedback(False, f"at d={d}, restart_prob={alpha} you have {got}; hint: {hint}")
    return Feedback(True, "seed 1/(2(2 - alpha)), answer twice a dead end, and the mass sums to 1.")


def check_margin(fn) -> Feedback:
    """Exercise 1.3: ``fn(r1, r2)`` is the answer's one-step margin over the best dead end, ``r1 >= r2``.

    Examples
    --------
    >>> check_margin(lambda r1, r2: 1 + r2 / r1)
    correct: the best dead end belongs to the heavier seed, so the margin is 1 + r2/r1, between 1 and 2.
    """
    for r1, r2 in ((0.5, 0.5), (0.8, 0.2), (0.7, 0.3)):
        if fn is None or fn is Ellipsis:
            return _NOT_YET
        got = _number(f"fn({r1}, {r2})", fn(r1, r2))
        if got is None:
            return _NOT_YET
        if _close(got, 1 + r2 / r1):
            continue
        if _close(got, 1 + r1 / r2):
            hint = "the *best* dead end is the one fed by the heavier seed."
        elif _close(got, 2.0):
            hint = "with unequal restart weights the two inflows into the answer are no longer equal."
        else:
            hint = "write the answer's mass (two inflows) and the heavier seed's dead end's mass (one)."
        return Feedback(False, f"for r1={r1}, r2={r2} you have {got:.6g}; hint: {hint}")
    return Feedback(
        True, "the best dead end belongs to the heavier seed, so the margin is 1 + r2/r1, between 1 and 2."
    )


def check_specificity_margin(value) -> Feedback:
    """Exercise 1.3b: the one-step margin when the seeds sit in 20 and 5 passages and specificity is on."""
    got = _number("value", value)
    if got is None:
        return _NOT_YET
    if _close(got, 1.25):
        return Feedback(
            True, "specificity moves the restart to 0.20/0.80, so the margin falls from 2 to 1.25."
        )
    if _close(got, 2.0):
        return Feedback(False, "specificity changes the restart weights: compute them first (1/20 and 1/5).")
    return Feedback(False, f"{got:.6g}; hint: use the margin from exercise 1.3 with the weighted restart.")


def check_three_seeds(ratio) -> Feedback:
    """Exercise 1.4: the answer's one-step mass over a dead end's when three equal seeds share it."""
    got = _number("ratio", ratio)
    if got is None:
        return _NOT_YET
    if _close(got, 3.0):
        return Feedback(True, "three inflows against one: the ratio is the number of seeds that meet.")
    if _close(got, 2.0):
        return Feedback(False, "count the inflows: every one of the three seeds is adjacent to the answer.")
    return Feedback(False, f"{got:.6g}; hint: measure one step (tol=0, max_iter=1), not the stationary mass.")


# --- Notebook 2: node specificity ----------------------------------------------------------------


def check_restart(mentions, seeds, vector) -> Feedback:
    """Exercise 2.1: the specificity-weighted restart vector over all nodes for ``seeds`` given P.

    Examples
    --------
    >>> from pathfinding.synthetic.toy import passage_count_matrix
    >>> check_restart(passage_count_matrix((20, 5)), [0, 1], [0.2, 0.8])
    correct: s_i = 1/|P_i|, multiplied into the seeds' restart and renormalised to sum 1.
    """
    from pathfinding.core.specificity import node_specificity, restart_vector

    if vector is None or vector is Ellipsis:
        return _NOT_YET
    want = restart_vector(mentions.shape[0], seeds, specificity=node_specificity(mentions))
    got = np.asarray(vector, dtype=float).ravel()
    if got.size != want.size:
        raise InvalidTypeError(f"vector must have one entry per node ({want.size}), got {got.size}")
    if _close(got, want):
        return Feedback(True, "s_i = 1/|P_i|, multiplied into the seeds' restart and renormalised to sum 1.")
    if got.sum() > 0 and _close(got / got.sum(), want):
        return Feedback(False, "the proportions are right; a restart vector sums to 1.")
    counts = np.diff(mentions.tocsr().indptr).astype(float)
    prop = np.zeros_like(want)
    prop[np.asarray(seeds)] = counts[np.asarray(seeds)]
    if prop.sum() > 0 and _close(got, prop / prop.sum()):
        return Feedback(False, "a seed in MORE passages is LESS specific: the weight is 1/|P_i|, not |P_i|.")
    return Feedback(False, "|P_i| counts the passages node i appears in (nonzero entries of its row of P).")


def check_hub_threshold(n_passages) -> Feedback:
    """Exercise 2.2: the fewest passages a seed needs for its restart share to fall below 15% against a
    seed in 5 passages."""
    got = _number("n_passages", n_passages)
    if got is None:
        return _NOT_YET
    if got == 29:
        return Feedback(True, "5/(5 + n) < 0.15 first holds at n = 29 (5/34 = 14.7%).")
    if got == 28:
        return Feedback(False, "at 28 the share is 5/33 = 15.2%, still above 15%.")
    return Feedback(False, f"{got:g}; hint: the hub's share is (1/n) / (1/n + 1/5); solve share < 0.15.")


# --- Notebook 3: path-finding versus path-following ------------------------------------------------


def check_chance_rank(distractors, value) -> Feedback:
    """Exercise 3.1: the answer's expected rank at chance with ``distractors`` dead-end chains per seed."""
    got = _number("value", value)
    if got is None:
        return _NOT_YET
    n = 2 * distractors + 1
    if _close(got, (n + 1) / 2):
        return Feedback(
            True, f"{n} candidates (the answer and {n - 1} dead ends) tie, so the mean rank is ({n} + 1)/2."
        )
    if _close(got, n / 2):
        return Feedback(False, "ranks run from 1 to n, and the n candidates include the answer itself.")
    return Feedback(False, f"{got:g}; hint: how many candidates are there, and what is the mean of 1..n?")


def check_passage_rank(hops, value) -> Feedback:
    """Exercise 3.2: the rank of the answer's best passage under pi . P on a default instance at ``hops``."""
    from pathfinding.experiments.passages import passage_ranks
    from pathfinding.synthetic.instances import make_instance

    got = _number("value", value)
    if got is None:
        return _NOT_YET
    want = passage_ranks(make_instance(hops, rng=0))["pi_P"][0]
    if _close(got, want):
        return Feedback(True, "every passage nearer a seed outranks the answer's: mass decays with depth.")
    if _close(got, 1.0):
        return Feedback(
            False, "the factor 2 only beats nodes at the same depth; compare a seed's mass with the answer's."
        )
    return Feedback(
        False, f"{got:g}; hint: count the passages whose nearer node is closer to a seed than the answer."
    )


# --- Notebook 4: what defeats PPR --------------------------------------------------------------------


def check_defeating_shape(instance) -> Feedback:
    """Exercise 4.1: a path-finding instance of your own on which PPR does not rank the answer first."""
    from pathfinding.core.scoring import rank_of
    from pathfinding.synthetic.instances import PathFindingInstance
    from pathfinding.synthetic.rankers import RANKERS

    if instance is None or instance is Ellipsis:
        return _NOT_YET
    if not isinstance(instance, PathFindingInstance):
        raise InvalidTypeError(f"expected a PathFindingInstance, got {type(instance).__name__}")
    P = instance.mentions.tocsr()
    seeds_per_passage = np.asarray((P[instance.seeds] > 0).sum(axis=0)).ravel()
    if len(instance.seeds) < 2:
        return Feedback(False, "a path-finding question names at least two entities (seeds).")
    if np.any(seeds_per_passage >= 2):
        return Feedback(
            False, "a passage names two seeds: that question is answered by one passage, not a path."
        )
    if instance.answer in set(instance.seeds.tolist()) or instance.answer not in set(
        instance.candidates.tolist()
    ):
        return Feedback(False, "the answer must be a candidate and not a seed.")
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


def check_slip_branching(value) -> Feedback:
    """Exercise 4.2: the fewest leaves per interior bridge node that cost the 2-hop answer its first place."""
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
            RANKERS["ppr"](inst := make_instance(2, bridge_branching=b, rng=0)), inst.answer, inst.candidates
        )
        > 1
    )
    if got == want:
        return Feedback(
            True, f"at {want} leaves the bridge node forwards 1/{2 + want} and the factor 2 is eaten."
        )
    if got < want:
        return Feedback(False, "measure the rank at that branching: PPR still wins there.")
    return Feedback(False, "a smaller branching already defeats it: try each value from 1 up.")


# --- Notebook 5: the cost of indexing once ------------------------------------------------------------


def check_break_even(n_passages, ratio, value) -> Feedback:
    """Exercise 5.1: queries after which indexing ``n_passages`` pays off, when an iterative query costs
    ``ratio`` query-NER calls (2 OpenIE calls per passage, 1 NER call per HippoRAG query)."""
    got = _number("value", value)
    if got is None:
        return _NOT_YET
    want = 2 * n_passages / (ratio - 1)
    if _close(got, want):
        return Feedback(True, "the index pays for itself after N * 2 / (ratio - 1) queries.")
    if _close(got, 2 * n_passages / ratio):
        return Feedback(False, "each query saves the iterative cost MINUS HippoRAG's own NER call.")
    if _close(got, n_passages / (ratio - 1)):
        return Feedback(False, "HippoRAG's OpenIE makes two calls per passage (NER, then triples).")
    return Feedback(
        False, f"{got:g}; hint: set offline + per-query cost equal to the iterative bill and solve."
    )


def check_half_share(n_passages, value) -> Feedback:
    """Exercise 5.2: the query volume at which the offline bill is half of HippoRAG's total."""
    got = _number("value", value)
    if got is None:
        return _NOT_YET
    if _close(got, 2 * n_passages):
        return Feedback(
            True, "2N calls offline equal 2N NER calls online: half-share at Q = 2N, whatever the ratio."
        )
    return Feedback(False, f"{got:g}; hint: the iterative retriever does not enter this one.")


# --- Notebook 6: monitoring index recall -----------------------------------------------------------


def check_connected_probability(n_facts, n_deleted, bridge_facts, value) -> Feedback:
    """Exercise 6.1: the chance that all ``bridge_facts`` facts survive when ``n_deleted`` of ``n_facts``
    are deleted uniformly at random (without replacement)."""
    got = _number("value", value)
    if got is None:
        return _NOT_YET
    want = math.comb(n_facts - bridge_facts, n_deleted) / math.comb(n_facts, n_deleted)
    if _close(got, want):
        return Feedback(True, "C(n - b, k) / C(n, k): the deleted facts must all come from the other n - b.")
    if _close(got, (1 - n_deleted / n_facts) ** bridge_facts):
        return Feedback(False, "exactly k facts go, without replacement: the survivals are not independent.")
    return Feedback(False, f"{got:.6g}; hint: count the deletions that spare every bridge fact.")


def check_monitor(monitor, *, trials: int = 40, seed: int = 0) -> Feedback:
    """Exercise 6.2 (open): ``monitor(instance, pi) -> float``, computed without the answer, should track
    hit@1 as facts are deleted. Passes when |correlation| across deletion rates is at least 0.9."""
    from pathfinding.core.scoring import rank_of
    from pathfinding.course.monitoring import drop_facts
    from pathfinding.synthetic.instances import make_instance
    from pathfinding.synthetic.rankers import RANKERS

    if monitor is None or monitor is Ellipsis:
        return _NOT_YET
    rates = (0.0, 0.1, 0.2, 0.3, 0.5)
    hits, signal = [], []
    for f in rates:
        h, m = [], []
        for t in range(trials):
            inst_ss, drop_ss = np.random.SeedSequence(seed, spawn_key=(t,)).spawn(2)
            damaged = drop_facts(make_instance(2, rng=inst_ss), f, rng=drop_ss)
            pi = RANKERS["ppr"](damaged)
            h.append(rank_of(pi, damaged.answer, damaged.candidates) == 1.0)
            value = _number("monitor(instance, pi)", monitor(damaged, pi))
            if value is None:
                return _NOT_YET
            m.append(value)
        hits.append(np.mean(h))
        signal.append(np.mean(m))
    if np.ptp(signal) == 0:
        return Feedback(False, "your monitor gives the same value at every deletion rate: it cannot alarm.")
    corr = float(np.corrcoef(hits, signal)[0, 1])
    table = ", ".join(
        f"{f:.0%}: hit@1 {h:.2f} / monitor {s:.3g}" for f, h, s in zip(rates, hits, signal, strict=True)
    )
    if abs(corr) >= 0.9:
        return Feedback(True, f"correlation with hit@1 {corr:+.3f} across rates ({table}).")
    return Feedback(
        False,
        f"correlation with hit@1 only {corr:+.3f} ({table}); hint: what does a missing bridge fact "
        "change about the seeds' relation to each other?",
    )


# --- Notebook 7: the online pipeline on real text --------------------------------------------------


def check_missed_question(retriever, question, corpus, *, k: int = 5) -> Feedback:
    """Exercise 7.1: a question whose supporting passages ``retriever`` misses in its top ``k``.

    ``retriever`` is a :class:`~pathfinding.hipporag.HippoRetriever`, ``question`` one
    :class:`~pathfinding.hipporag.io.Question` of the vendored set and ``corpus`` its passages. Passes
    when at least one supporting passage is outside the top ``k``; the feedback names the linked seeds
    and the missed gold titles, so the student can say why.
    """
    from pathfinding.hipporag import supporting_ids

    if question is None or question is Ellipsis:
        return _NOT_YET
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
