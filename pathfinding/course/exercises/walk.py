"""Checks for the exercises of notebooks 2-4: specificity, passages, and the shapes that defeat PPR.

Every check returns a :class:`~pathfinding.course.exercises.answers.Feedback`, compares numbers with
:func:`~pathfinding.course.exercises.answers.judge` at the precision its exercise states, and runs a
wrong answer through the exercise's :class:`~pathfinding.course.exercises.answers.WrongModel` list.
"""

from __future__ import annotations

import functools
from collections import deque

import numpy as np

from pathfinding.core.specificity import passage_counts
from pathfinding.course.exercises.answers import (
    EXACT,
    NOT_YET,
    Feedback,
    Precision,
    WrongModel,
    close_message,
    diagnose,
    feedback_on_unreadable,
    judge_value,
    read_numbers,
)
from pathfinding.errors import InvalidTypeError

__all__ = [
    "CHANCE_RANK_WRONG",
    "DEFEATING_SHAPE_WRONG",
    "HUB_THRESHOLD_WRONG",
    "PASSAGE_RANK_WRONG",
    "RESTART_PRECISION",
    "RESTART_WRONG",
    "SLIP_BRANCHING_WRONG",
    "check_chance_rank",
    "check_defeating_shape",
    "check_hub_threshold",
    "check_passage_rank",
    "check_restart",
    "check_slip_branching",
]

# --- Notebook 2: node specificity ----------------------------------------------------------------

RESTART_PRECISION = Precision(decimals=3)


def _on_seeds(n: int, seeds, weights) -> np.ndarray:
    r = np.zeros(n)
    r[np.asarray(seeds)] = weights
    return r


def _seed_weights(mentions, seeds, per_node) -> np.ndarray:
    w = per_node[np.asarray(seeds)]
    return _on_seeds(mentions.shape[0], seeds, w / w.sum())


RESTART_WRONG = (
    WrongModel(
        "|P_i| instead of 1/|P_i|",
        "a seed in MORE passages is LESS specific: the weight is 1/|P_i|, not |P_i|.",
        value=lambda P, seeds: _seed_weights(P, seeds, passage_counts(P)),
    ),
    WrongModel(
        "forgetting to renormalise",
        "the proportions are right; a restart vector sums to 1: divide by the sum of the seeds' weights.",
        value=lambda P, seeds: _on_seeds(P.shape[0], seeds, 1 / passage_counts(P)[np.asarray(seeds)]),
    ),
    WrongModel(
        "specificity off",
        "that is the uniform restart; specificity weights each seed by s_i = 1/|P_i| before normalising.",
        value=lambda P, seeds: _seed_weights(P, seeds, np.ones(P.shape[0])),
    ),
    WrongModel(
        "counting mentions, not passages",
        "|P_i| counts the passages node i appears in (the nonzero entries of its row of P), not how "
        "often it appears in them.",
        value=lambda P, seeds: _seed_weights(P, seeds, 1 / np.asarray(P.sum(axis=1)).ravel()),
    ),
)
"""Exercises 2.1 and 7.1: confusions, each ``(P, seeds) -> restart vector``."""


@feedback_on_unreadable
def check_restart(mentions, seeds, vector) -> Feedback:
    """Exercise 2.1 (and 7.1): the specificity-weighted restart vector over all nodes for ``seeds`` given P.

    Every entry is asked to 3 decimal places; a list, tuple or array of any numbers is read, with one
    entry per node (zero for a node that is not a seed).

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

    n = mentions.shape[0]
    want = restart_vector(n, seeds, specificity=node_specificity(mentions))
    got = read_numbers("vector", vector, None)
    if got is None:
        return NOT_YET
    if len(got) != n:
        raise InvalidTypeError(
            f"vector must have one entry per node of the graph ({n}), zero for a node that is not a "
            f"seed; got {len(got)} entries"
        )
    got = np.asarray(got)
    p = RESTART_PRECISION
    verdict, hint = diagnose(got, want, p, RESTART_WRONG, (mentions, seeds))
    if verdict == "right":
        return Feedback(True, "s_i = 1/|P_i|, multiplied into the seeds' restart and renormalised to sum 1.")
    if verdict == "close":
        return Feedback(False, close_message("your vector", p))
    return Feedback(
        False, hint or "|P_i| counts the passages node i appears in (nonzero entries of its row of P)."
    )


HUB_THRESHOLD_WRONG = (
    WrongModel("one passage short", "at 28 the share is 5/33 = 15.2%, still above 15%.", value=lambda: 28),
    WrongModel(
        "the other seed's weight, not the total",
        "15% of the restart mass is a share of both seeds' weights together; compare the hub's weight "
        "with their sum, not with the other seed's weight alone.",
        value=lambda: 34,
    ),
    WrongModel(
        "the equation's root",
        "that solves the equation, but a passage count is a whole number: give the fewest whole "
        "passages for which the share is below 15%.",
        holds=lambda got: 28 < got < 29,
    ),
)
"""Exercise 2.2's confusions (one hub against a seed in 5 passages, share below 15%)."""


@feedback_on_unreadable
def check_hub_threshold(n_passages) -> Feedback:
    """Exercise 2.2: the fewest passages a seed needs for its restart share to fall below 15% against a
    seed in 5 passages (a whole number).

    Examples
    --------
    >>> check_hub_threshold(29.0).ok, check_hub_threshold(28).ok
    (True, False)
    """
    return judge_value(
        "n_passages", n_passages, 29, EXACT, HUB_THRESHOLD_WRONG,
        right="5/(5 + n) < 0.15 first holds at n = 29 (5/34 = 14.7%).",
        fallback="with specificity on, each seed's weight is 1/|P_i| before normalising; write the hub's "
        "share of the two weights and try counts until it drops below 15%.",
    )  # fmt: skip


# --- Notebook 3: path-finding versus path-following ------------------------------------------------

CHANCE_RANK_WRONG = (
    WrongModel(
        "n/2",
        "count the candidates again (the answer and a dead end per distractor chain of each seed), "
        "and the mean of the ranks 1..n is (n + 1)/2.",
        value=lambda distractors: (2 * distractors + 1) / 2,
    ),
    WrongModel(
        "one seed's chains",
        "each of the two seeds has its own dead-end chains.",
        value=lambda distractors: (distractors + 2) / 2,
    ),
    WrongModel(
        "the best case",
        "at chance every candidate ties; the expected rank is the mean over tie-breaks, not the best one.",
        value=lambda distractors: 1.0,
    ),
    WrongModel(
        "the number of candidates",
        "that is the number of candidates; the expected rank under a random tie-break is the mean of 1..n.",
        value=lambda distractors: 2 * distractors + 1,
    ),
)
"""Exercise 3.1's confusions, each ``distractors -> expected rank``."""


@feedback_on_unreadable
def check_chance_rank(distractors, value) -> Feedback:
    """Exercise 3.1: the answer's expected rank at chance with ``distractors`` dead-end chains per seed.

    Asked exactly: with one answer and an even number of dead ends the mean rank is a whole number.

    Examples
    --------
    >>> check_chance_rank(5, 6).ok, check_chance_rank(5, 5.5).ok
    (True, False)
    """
    n = 2 * distractors + 1
    return judge_value(
        "value", value, (n + 1) / 2, EXACT, CHANCE_RANK_WRONG, (distractors,),
        right=f"{n} candidates (the answer and {n - 1} dead ends) tie, so the mean rank is ({n} + 1)/2.",
        fallback="how many candidates are there, and what is the mean of 1..n?",
    )  # fmt: skip


@functools.lru_cache(maxsize=8)
def _passage_rank(hops: int) -> float:
    from pathfinding.experiments.passages import passage_ranks
    from pathfinding.synthetic.instances import make_instance

    return float(passage_ranks(make_instance(hops, rng=0))["pi_P"][0])


PASSAGE_RANK_WRONG = (
    WrongModel(
        "node rank for passage rank",
        "the answer *node* is first, but the factor 2 only beats nodes at the same depth; compare a "
        "passage near a seed with the answer's.",
        value=lambda hops: 1.0,
    ),
    WrongModel(
        "one hop fewer",
        lambda hops: (
            f"that is the rank at {hops - 1} hops; at {hops} hops one more layer of passages "
            "sits between the seeds and the answer's."
        ),
        value=lambda hops: _passage_rank(hops - 1) if hops > 1 else np.nan,
    ),
    WrongModel(
        "the passages above",
        "that many passages outrank the answer's best passage; its rank is one more.",
        value=lambda hops: _passage_rank(hops) - 1,
    ),
)
"""Exercise 3.2's confusions, each ``hops -> rank``."""


@feedback_on_unreadable
def check_passage_rank(hops, value) -> Feedback:
    """Exercise 3.2: the rank of the answer's best passage under pi . P on a default instance at ``hops``.

    Asked exactly: a rank is a whole number, or the mean of the ranks a tie shares.

    Examples
    --------
    >>> check_passage_rank(2, 19).ok, check_passage_rank(2, 1).ok
    (True, False)
    """
    return judge_value(
        "value", value, _passage_rank(hops), EXACT, PASSAGE_RANK_WRONG, (hops,),
        right="every passage nearer a seed outranks the answer's: mass decays with depth.",
        fallback="count the passages whose nearer node is closer to a seed than the answer.",
    )  # fmt: skip


# --- Notebook 4: what defeats PPR --------------------------------------------------------------------


def _reached_seeds(instance, blocked: int | None = None) -> tuple[list[int], list[int]]:
    """Seeds with a path to the answer through no other seed (and not through ``blocked``), and the
    other nodes on such paths, nearest the answer first."""
    A = instance.graph.tocsr()
    seeds = {int(s) for s in instance.seeds}
    start = int(instance.answer)
    seen, order, reached = {start}, [], []
    queue = deque([start])
    while queue:
        u = queue.popleft()
        for v in A.indices[A.indptr[u] : A.indptr[u + 1]].tolist():
            if v in seen or v == blocked:
                continue
            seen.add(v)
            if v in seeds:
                reached.append(v)  # a seed ends a path: paths through another seed do not count
            else:
                order.append(v)
                queue.append(v)
    return sorted(reached), order


def _meet_in_front(instance) -> int | None:
    """A node whose removal cuts every seed off from the answer: the seeds' walks meet there first.

    The one nearest the seeds is returned (the real meet node), None when there is none.
    """
    _, between = _reached_seeds(instance)
    for m in reversed(between):
        if not _reached_seeds(instance, blocked=m)[0]:
            return m
    return None


def _twin_or_beaten(instance, scores=None) -> tuple[bool, bool]:
    """Whether a wrong candidate ties the answer's PPR mass, and whether one has strictly more.

    ``scores`` are the instance's PPR scores if already solved (``RANKERS["ppr"](instance)``).
    """
    if scores is None:
        from pathfinding.synthetic.rankers import RANKERS

        scores = RANKERS["ppr"](instance)
    mine = scores[instance.answer]
    others = scores[np.setdiff1d(instance.candidates, [instance.answer])]
    tied = np.isclose(others, mine, rtol=1e-6, atol=1e-12)
    return bool(tied.any()), bool(np.any((others > mine) & ~tied))


def _passage_with_two_seeds(instance) -> bool:
    P = instance.mentions.tocsr()
    return bool(np.any(np.asarray((P[instance.seeds] > 0).sum(axis=0)).ravel() >= 2))


DEFEATING_SHAPE_WRONG = (
    WrongModel(
        "one seed",
        "a path-finding question names at least two entities (seeds).",
        holds=lambda inst: len(np.unique(inst.seeds)) < 2,
    ),
    WrongModel(
        "a passage names two seeds",
        "a passage names two seeds: that question is answered by one passage, not a path.",
        holds=_passage_with_two_seeds,
    ),
    WrongModel(
        "the answer is no candidate",
        "the answer must be a candidate and not a seed.",
        holds=lambda inst: (
            int(inst.answer) in set(inst.seeds.tolist())
            or int(inst.answer) not in set(inst.candidates.tolist())
        ),
    ),
    WrongModel(
        "no seed reaches the answer",
        "no seed reaches the answer: PPR gives it no mass, and no retriever that walks from the question "
        "could find it. Connect the answer to the seeds by paths.",
        holds=lambda inst: not _reached_seeds(inst)[0],
    ),
    WrongModel(
        "one seed reaches the answer",
        "only one seed reaches the answer by a path through no other seed: the answer is no meet node, "
        "so this is a one-entity question. Give every seed its own path to the answer.",
        holds=lambda inst: len(_reached_seeds(inst)[0]) == 1,
    ),
    WrongModel(
        "the meet node one hop behind",
        lambda inst: (
            f"every seed's path to your answer passes through node "
            f"{inst.node_names[_meet_in_front(inst)]!r}: the walks meet there, so that node is the meet "
            "node of this question and your answer sits behind it. Make the answer the node where the "
            "seeds' paths join."
        ),
        holds=lambda inst: _meet_in_front(inst) is not None,
    ),
    WrongModel(
        "an exact twin of the answer",
        "a tie is not a defeat: another candidate has exactly the answer's mass (an identical twin), so "
        "PPR cannot tell them apart but ranks no wrong node above the answer. Make a wrong candidate "
        "score strictly higher.",
        holds=lambda inst: _twin_or_beaten(inst) == (True, False),
    ),
)
"""Exercise 4.1: shapes that do not count as defeating PPR, each a property of the instance, tried in
this order (the first that holds is the feedback)."""


@feedback_on_unreadable
def check_defeating_shape(instance) -> Feedback:
    """Exercise 4.1: a path-finding instance of your own on which PPR does not rank the answer first.

    A shape counts only if it is a path-finding question: at least two seeds, no passage naming two
    seeds, an answer that is a candidate and not a seed, at least two seeds that each reach the answer
    by a path through no other seed, and no node standing between every seed and the answer (that node
    would be the real meet node). PPR must rank some wrong candidate strictly above the answer: a tie
    with an identical twin is not a defeat. :data:`DEFEATING_SHAPE_WRONG` lists what it rejects.

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

    if instance is Ellipsis:
        return NOT_YET
    if not isinstance(instance, PathFindingInstance):
        raise InvalidTypeError(
            "my_instance must be a PathFindingInstance (from make_instance or instance_from_facts), "
            f"got {type(instance).__name__}"
        )
    for model in DEFEATING_SHAPE_WRONG:
        if model.shown_by(instance, (), EXACT):
            return Feedback(False, model.hint_for((instance,)))
    # the twin model above solved PPR once already; the rank and the verdict share one more solve
    scores = RANKERS["ppr"](instance)
    rank = rank_of(scores, instance.answer, instance.candidates)
    if _twin_or_beaten(instance, scores)[1]:
        return Feedback(
            True,
            f"PPR puts the answer at rank {rank:g} of {len(instance.candidates)}: your shape defeats it.",
        )
    return Feedback(
        False,
        "PPR still ranks the answer first. The meet node wins by a factor 2; make the answer's paths "
        "leakier than the dead ends' (branching), or give the seeds a shorter meet.",
    )


@functools.lru_cache(maxsize=8)
def _first_slip(seeds: int) -> int:
    from pathfinding.core.scoring import rank_of
    from pathfinding.synthetic.instances import make_instance
    from pathfinding.synthetic.rankers import RANKERS

    def rank(b):
        inst = make_instance(2, seeds=seeds, bridge_branching=b, rng=0)
        return rank_of(RANKERS["ppr"](inst), inst.answer, inst.candidates)

    return next(b for b in range(1, 10) if rank(b) > 1)


SLIP_BRANCHING_WRONG = (
    WrongModel(
        "two seeds' value",
        lambda seeds: (
            f"{_first_slip(2)} is where two seeds' answer slips; with {seeds} seeds the answer "
            f"has {seeds} inflows to lose before a dead end catches up."
        ),
        value=lambda seeds: _first_slip(2) if seeds != 2 else np.nan,
    ),
    WrongModel(
        "a fraction of a leaf",
        "a number of leaves is a whole number; try each from 1 up.",
        holds=lambda got, seeds: got != round(got),
    ),
    WrongModel(
        "too few",
        "measure the rank at that branching: PPR still ranks the answer first there.",
        holds=lambda got, seeds: got < _first_slip(seeds),
    ),
)
"""Exercise 4.2's confusions, each a function of the number of seeds."""


@feedback_on_unreadable
def check_slip_branching(value, *, seeds: int = 2) -> Feedback:
    """Exercise 4.2: the fewest leaves per interior bridge node that cost the 2-hop answer its first place
    when ``seeds`` seeds meet at it (a whole number).

    Examples
    --------
    >>> check_slip_branching(3).ok, check_slip_branching(5, seeds=3).ok
    (True, True)
    """
    want = _first_slip(seeds)
    return judge_value(
        "value", value, want, EXACT, SLIP_BRANCHING_WRONG, (seeds,),
        right=f"at {want} leaves the bridge node forwards 1/{2 + want} and the factor {seeds} is eaten.",
        fallback="a smaller branching already defeats it: try each value from 1 up.",
    )  # fmt: skip
