"""Checks for the exercises of notebook 4: the shapes that defeat PPR.

:func:`check_defeating_shape` judges an instance a student built (is it a path-finding question whose
candidates are the exercise's, and does PPR lose on it?); :func:`check_slip_branching` a number
measured with the generator's knobs. Both return a
:class:`~pathfinding.course.exercises.answers.Feedback` and name what a rejected answer shows.
"""

from __future__ import annotations

import functools
from collections import deque

import numpy as np

from pathfinding.course.exercises.answers import (
    EXACT,
    NOT_YET,
    Feedback,
    WrongModel,
    feedback_on_unreadable,
    judge_value,
    not_the_exercise,
)
from pathfinding.errors import InvalidTypeError

__all__ = [
    "DEFEATING_SHAPE_WRONG",
    "SLIP_BRANCHING_WRONG",
    "SLIP_SEEDS",
    "check_defeating_shape",
    "check_slip_branching",
]


def _reached_seeds(instance, blocked: int | None = None, *, start: int | None = None):
    """Seeds with a path to ``start`` (default: the answer) through no other seed and not through
    ``blocked``, and the other nodes on such paths, nearest ``start`` first: ``(seeds, nodes)``."""
    A = instance.graph.tocsr()
    seeds = {int(s) for s in instance.seeds}
    start = int(instance.answer if start is None else start)
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


def _misplaced_candidate(instance) -> str | None:
    """Why a wrong candidate is no competitor the exercise set (a sentence), None when all are.

    The exercise's candidates are the answer and the dead ends at its depth: a wrong candidate on a
    shortest path from a seed to the answer is a bridge node, which holds the mass on its way to the
    answer, and one nearer every seed than the answer is to its nearest seed wins by distance, unless
    several seeds reach it through no other seed and not through the answer (a decoy meet node).
    """
    from scipy.sparse.csgraph import shortest_path

    seeds, answer, names = np.asarray(instance.seeds), int(instance.answer), instance.node_names
    dist = shortest_path(instance.graph, unweighted=True, indices=np.r_[seeds, answer])
    from_seeds, from_answer = dist[:-1], dist[-1]
    depth = from_seeds[:, answer]
    for c in np.setdiff1d(instance.candidates, [answer]).tolist():
        on_bridge = np.flatnonzero(from_seeds[:, c] + from_answer[c] == depth)
        if on_bridge.size:
            return (
                f"candidate {names[c]!r} lies on the path from seed {names[seeds[on_bridge[0]]]!r} to the "
                "answer: a bridge node carries the answer's mass, it does not compete with it. The "
                "candidates are the answer and the dead ends at its depth."
            )
        nearest = int(from_seeds[:, c].argmin())
        meet = len(_reached_seeds(instance, blocked=answer, start=c)[0]) >= 2
        if from_seeds[nearest, c] < depth.min() and not meet:
            return (
                f"candidate {names[c]!r} is {from_seeds[nearest, c]:.0f} hop(s) from seed "
                f"{names[seeds[nearest]]!r}, nearer than the answer is to any seed ({depth.min():.0f}): "
                "it outranks the answer by distance, whatever the shape. The candidates are the answer "
                "and the dead ends at its depth (and a decoy meet node, if you built one)."
            )
    return None


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
        "candidates widened", _misplaced_candidate, holds=lambda inst: _misplaced_candidate(inst) is not None
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
    by a path through no other seed, no node standing between every seed and the answer (that node
    would be the real meet node), and candidates that are the exercise's: the dead ends at the
    answer's depth (and a decoy meet node), no bridge node and no node nearer the seeds. PPR must rank
    some wrong candidate strictly above the answer: a tie with an identical twin is not a defeat.
    :data:`DEFEATING_SHAPE_WRONG` lists what it rejects.

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
        "that is not a whole number, and a bridge node has a whole number of leaves: try each from 1 up "
        "(round a value your code computed).",
        holds=lambda got, seeds: got != round(got),
    ),
    WrongModel(
        "too few",
        "measure the rank at that branching: PPR still ranks the answer first there.",
        holds=lambda got, seeds: got < _first_slip(seeds),
    ),
)
"""Exercise 4.2's confusions, each a function of the number of seeds."""


SLIP_SEEDS = 3
"""The seeds that meet at the answer in exercise 4.2."""


@feedback_on_unreadable
def check_slip_branching(value, *, seeds: int = SLIP_SEEDS) -> Feedback:
    """Exercise 4.2: the fewest leaves per interior bridge node that cost the 2-hop answer its first place
    when ``seeds`` (3) seeds meet at it (a whole number). Other ``seeds`` than the exercise's are refused.

    Examples
    --------
    >>> check_slip_branching(5, seeds=3).ok, check_slip_branching(3, seeds=3).ok
    (True, False)
    >>> check_slip_branching(3, seeds=2).message[:45]
    'this is the check of exercise 4.2, which asks'
    """
    if seeds != SLIP_SEEDS:
        return not_the_exercise("4.2", f"{SLIP_SEEDS} seeds meeting at the answer", f"seeds={seeds!r}")
    want = _first_slip(seeds)
    return judge_value(
        "value", value, want, EXACT, SLIP_BRANCHING_WRONG, (seeds,),
        right=f"at {want} leaves the bridge node forwards 1/{2 + want} and the factor {seeds} is eaten.",
        fallback="a smaller branching already defeats it: try each value from 1 up.",
    )  # fmt: skip
