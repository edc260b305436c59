"""Checks for the exercises of notebooks 2-3 (and 0 and 7): restart vectors, hub counts, chance and
the answer's passage.

Every check returns a :class:`~pathfinding.course.exercises.answers.Feedback`, compares numbers with
:func:`~pathfinding.course.exercises.answers.judge` at the precision its exercise states, and runs a
wrong answer through the exercise's :class:`~pathfinding.course.exercises.answers.WrongModel` list.
"""

from __future__ import annotations

import functools

import numpy as np

from pathfinding.core.specificity import node_specificity, passage_counts, restart_vector
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
    not_the_exercise,
    percent_model,
    read_numbers,
)
from pathfinding.errors import InvalidTypeError

__all__ = [
    "CHANCE_DISTRACTORS",
    "CHANCE_RANK_WRONG",
    "HUB_THRESHOLD_WRONG",
    "PASSAGE_SHARE_HOPS",
    "PASSAGE_SHARE_PRECISION",
    "PASSAGE_SHARE_WRONG",
    "RESTART_PRECISION",
    "RESTART_WRONG",
    "check_chance_rank",
    "check_hub_threshold",
    "check_passage_share",
    "check_restart",
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


def _idf_weights(mentions, seeds, idf) -> np.ndarray:
    """Seeds weighted by a corpus IDF ``idf(df, N)`` of their passage counts, renormalised."""
    df = passage_counts(mentions)[np.asarray(seeds)].astype(float)
    w = idf(df, mentions.shape[1])
    return _on_seeds(mentions.shape[0], seeds, w / w.sum() if w.sum() > 0 else np.full(w.shape, np.nan))


IDF_HINT = (
    "that weights each seed by a corpus IDF, log(N / |P_i|), which depends on N, the size of the "
    "corpus; HippoRAG's node specificity is s_i = 1/|P_i|, the node's own count alone (your |P_i| may "
    "well be right)."
)


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
    WrongModel(
        "log-IDF", IDF_HINT, value=lambda P, seeds: _idf_weights(P, seeds, lambda df, n: np.log(n / df))
    ),
    WrongModel(
        "smoothed IDF",
        IDF_HINT,
        value=lambda P, seeds: _idf_weights(P, seeds, lambda df, n: np.log((1 + n) / (1 + df)) + 1),
    ),
    WrongModel(
        "the restart probability inside r",
        "that is restart_prob times the restart vector: PPR multiplies r by the restart probability "
        "itself; r is a distribution over the seeds and sums to 1.",
        value=lambda P, seeds: 0.5 * _seed_weights(P, seeds, 1 / passage_counts(P)),
    ),
    percent_model(
        lambda P, seeds: _seed_weights(P, seeds, 1 / passage_counts(P)), "a share of the restart mass"
    ),
)
"""Exercises 0.1, 2.1 and 7.1: confusions, each ``(P, seeds) -> restart vector``."""


def _unfit_seeds(mentions, seeds) -> str | None:
    """Why ``seeds`` cannot make a restart exercise (a sentence), None when they can.

    One seed has the restart vector [1] whatever P says, a seed in no passage has no 1/|P_i|, and
    seeds in equally many passages make specificity the uniform restart: no check could then tell
    a right answer from one that forgot specificity.
    """
    n = mentions.shape[0]
    seeds = np.asarray(seeds).ravel()
    if seeds.dtype.kind not in "iu" or seeds.size == 0 or seeds.min() < 0 or seeds.max() >= n:
        raise InvalidTypeError(f"seeds must be node ids, integers from 0 to {n - 1}; got {seeds.tolist()}")
    if np.unique(seeds).size != seeds.size:
        return f"the seeds {seeds.tolist()} name a node twice: a question's seeds are distinct nodes"
    if seeds.size < 2:
        return (
            "with one seed the restart vector is 1 on it whatever P says: the exercise's question "
            "names two or more entities, so keep all its seeds"
        )
    counts = passage_counts(mentions)[seeds]
    if np.any(counts == 0):
        return f"seed {int(seeds[counts == 0][0])} is in no passage, so 1/|P_i| is undefined"
    if np.all(counts == counts[0]):
        return (
            f"every seed is in {int(counts[0])} passages, so specificity changes nothing and no check "
            "can tell your vector from one that forgot it: take seeds (or a P) whose counts differ"
        )
    return None


@feedback_on_unreadable
def check_restart(mentions, seeds, vector) -> Feedback:
    """Exercise 2.1 (and 0.1, 7.1): the specificity-weighted restart vector over all nodes for ``seeds``
    given P.

    Every entry is asked to 3 decimal places; a list, tuple or array of any numbers is read, with one
    entry per node (zero for a node that is not a seed). The seeds must make an exercise: two or more
    distinct nodes, each in a passage, not all in equally many (else no answer could show whether
    specificity was applied). :data:`RESTART_WRONG` lists the confusions it names.

    Examples
    --------
    >>> from fractions import Fraction
    >>> from pathfinding.synthetic.toy import passage_count_matrix
    >>> check_restart(passage_count_matrix((20, 5)), [0, 1], [0.2, 0.8])
    correct: s_i = 1/|P_i|, multiplied into the seeds' restart and renormalised to sum 1.
    >>> check_restart(passage_count_matrix((20, 5)), [0, 1], (Fraction(1, 5), Fraction(4, 5))).ok
    True
    """
    n = mentions.shape[0]
    unfit = _unfit_seeds(mentions, seeds)
    if unfit is not None:
        return Feedback(False, f"these inputs do not make the exercise: {unfit}.")
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
    WrongModel(
        "ranks counted from 0",
        "ranks count from 1 (the first place is rank 1): the mean of 1..n, not of 0..n-1.",
        value=lambda distractors: float(distractors),
    ),
)
"""Exercise 3.1's confusions, each ``distractors -> expected rank``."""

CHANCE_DISTRACTORS = 5
"""The distractor chains per seed that exercise 3.1 asks about."""


@feedback_on_unreadable
def check_chance_rank(distractors, value) -> Feedback:
    """Exercise 3.1: the answer's expected rank at chance with ``distractors`` (5) dead-end chains per seed.

    Asked exactly: with one answer and an even number of dead ends the mean rank is a whole number.
    Other ``distractors`` than the exercise's are refused.

    Examples
    --------
    >>> check_chance_rank(5, 6).ok, check_chance_rank(5, 5.5).ok, check_chance_rank(4, 5).ok
    (True, False, False)
    """
    if distractors != CHANCE_DISTRACTORS:
        return not_the_exercise(
            "3.1", f"{CHANCE_DISTRACTORS} distractor chains per seed", f"{distractors!r} distractors"
        )
    n = 2 * distractors + 1
    return judge_value(
        "value", value, (n + 1) / 2, EXACT, CHANCE_RANK_WRONG, (distractors,),
        right=f"{n} candidates (the answer and {n - 1} dead ends) tie, so the mean rank is ({n} + 1)/2.",
        fallback="how many candidates are there, and what is the mean of 1..n?",
    )  # fmt: skip


PASSAGE_SHARE_HOPS = 4
"""The depth of the default instance exercise 3.2 asks about."""
PASSAGE_SHARE_PRECISION = Precision(sig=3)


@functools.lru_cache(maxsize=16)
def _passage_share(hops: int, restart_prob: float = 0.5, max_iter: int | None = None) -> float:
    """The answer's best passage score over the top passage's, under pi . P on ``make_instance(hops)``.

    Every seed of the generator's instance is in as many passages, so the specificity restart is the
    uniform one; ``max_iter`` stops the walk after that many steps (None: to convergence).
    """
    from pathfinding.core.ppr import personalized_pagerank
    from pathfinding.core.scoring import passage_scores
    from pathfinding.synthetic.instances import make_instance

    inst = make_instance(hops, rng=0)
    r = restart_vector(inst.n_nodes, inst.seeds, specificity=node_specificity(inst.mentions))
    steps = {"tol": 1e-13} if max_iter is None else {"tol": 0, "max_iter": max_iter}
    pi = personalized_pagerank(inst.graph, r, restart_prob=restart_prob, **steps)
    scores = passage_scores(pi, inst.mentions)
    answer = inst.mentions.tocsr()[[inst.answer]].indices
    return float(scores[answer].max() / scores.max())


def _node_share(hops: int) -> float:
    from pathfinding.synthetic.instances import make_instance
    from pathfinding.synthetic.rankers import RANKERS

    inst = make_instance(hops, rng=0)
    pi = RANKERS["ppr"](inst)
    return float(pi[inst.answer] / pi.max())


PASSAGE_SHARE_WRONG = (
    WrongModel(
        "one step vs stationary",
        "after one step the walk has not reached the answer's passages yet; HippoRAG scores passages "
        "with the stationary pi, run to convergence.",
        value=lambda: _passage_share(PASSAGE_SHARE_HOPS, max_iter=1),
    ),
    WrongModel(
        "networkx's fixed 0.85",
        "that walk continues with probability 0.85 (networkx's pagerank default, restart 0.15); "
        "HippoRAG restarts with probability 0.5.",
        value=lambda: _passage_share(PASSAGE_SHARE_HOPS, 0.15),
    ),
    WrongModel(
        "0.85 read as the restart",
        "that walk restarts with probability 0.85 (networkx's damping read as a restart); HippoRAG "
        "restarts with probability 0.5.",
        value=lambda: _passage_share(PASSAGE_SHARE_HOPS, 0.85),
    ),
    WrongModel(
        "node mass for passage score",
        "that compares the answer NODE's mass with the top node's (a seed); a passage's score is "
        "(pi P)_j, the mass of every node it names, and the top passage names a seed.",
        value=lambda: _node_share(PASSAGE_SHARE_HOPS),
    ),
    WrongModel(
        "the ratio upside down",
        "the share is the answer's best passage over the top passage, a number below 1.",
        value=lambda: 1 / _passage_share(PASSAGE_SHARE_HOPS),
    ),
    WrongModel(
        "one hop fewer",
        "that is the share at three hops; at four hops one more layer of passages sits between the "
        "seeds and the answer's.",
        value=lambda: _passage_share(PASSAGE_SHARE_HOPS - 1),
    ),
    percent_model(lambda: _passage_share(PASSAGE_SHARE_HOPS), "a share (the ratio of two scores)"),
)
"""Exercise 3.2's confusions, each the share it gives."""


@feedback_on_unreadable
def check_passage_share(value) -> Feedback:
    """Exercise 3.2: on a default four-hop instance, the answer's best passage score under pi . P as a
    share of the top passage's score. Asked to 3 significant digits.

    :data:`PASSAGE_SHARE_WRONG` lists the confusions it names.

    Examples
    --------
    >>> check_passage_share(0.00649).ok, check_passage_share(0.0065).message[:25]
    (True, 'close — keep more digits:')
    """
    want = _passage_share(PASSAGE_SHARE_HOPS)
    return judge_value(
        "value", value, want, PASSAGE_SHARE_PRECISION, PASSAGE_SHARE_WRONG,
        right=f"the answer's passage gets {want:.3g} of the top passage's score: mass decays with every "
        "hop from the seeds, and the top passages name a seed.",
        fallback="score every passage with passage_scores(pi, inst.mentions), then divide the best "
        "score among the answer's passages by the best score of all.",
    )  # fmt: skip
