"""Checks for the exercises of notebooks 5-7: the bill, monitoring the index, real text.

Every check returns a :class:`~pathfinding.course.exercises.answers.Feedback` and compares numbers
with :func:`~pathfinding.course.exercises.answers.judge` at the precision its exercise states.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from pathfinding.course.exercises.answers import (
    NOT_YET,
    Feedback,
    Precision,
    close_message,
    judge,
    read_number,
)
from pathfinding.errors import InvalidTypeError

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
    got = read_number("value", value)
    if got is None:
        return NOT_YET
    p = QUERIES_PRECISION
    verdict = judge(got, 2 * n_passages / (ratio - 1), p)
    if verdict == "right":
        return Feedback(True, "the index pays for itself after N * 2 / (ratio - 1) queries.")
    if judge(got, 2 * n_passages / ratio, p) == "right":
        return Feedback(False, "each query saves the iterative cost MINUS HippoRAG's own NER call.")
    if judge(got, n_passages / (ratio - 1), p) == "right":
        return Feedback(False, "HippoRAG's OpenIE makes two calls per passage (NER, then triples).")
    if verdict == "close":
        return Feedback(False, close_message(f"{got:g}", p))
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
    got = read_number("value", value)
    if got is None:
        return NOT_YET
    p = QUERIES_PRECISION
    verdict = judge(got, 2 * n_passages / calls_per_query, p)
    if verdict == "right":
        online = "2N NER calls" if calls_per_query == 1 else f"{calls_per_query} calls for each of N queries"
        return Feedback(
            True, f"2N calls offline equal {online} online: the iterative retriever does not enter this one."
        )
    if calls_per_query != 1 and judge(got, 2 * n_passages, p) == "right":
        return Feedback(False, f"each query now makes {calls_per_query} calls, not one.")
    if judge(got, n_passages / calls_per_query, p) == "right":
        return Feedback(False, "HippoRAG's OpenIE makes two calls per passage (NER, then triples).")
    if verdict == "close":
        return Feedback(False, close_message(f"{got:g}", p))
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
    got = read_number("value", value)
    if got is None:
        return NOT_YET
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
        return Feedback(False, close_message(f"{got:g}", p))
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
        return NOT_YET
    if not callable(monitor):
        raise InvalidTypeError(f"expected a function monitor(query, pi), got {type(monitor).__name__}")
    probe = _Probe(monitor)
    try:
        rates = alarm_rates(probe, queries=queries, seed=seed)
    except _Unanswered:
        return NOT_YET
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
        return read_number("monitor(query, pi)", value)


# --- Notebook 7: the online pipeline on real text --------------------------------------------------


def check_missed_question(retriever, question, corpus, *, k: int = 5) -> Feedback:
    """Exercise 7.2: a question whose supporting passages ``retriever`` misses in its top ``k``.

    ``retriever`` is a :class:`~pathfinding.hipporag.HippoRetriever`, ``question`` one
    :class:`~pathfinding.hipporag.io.Question` of the MuSiQue tuning set (``questions[i]``, not its text: the
    check needs its gold passages) and ``corpus`` its passages. Passes when at least one supporting
    passage is outside the top ``k``; the feedback names the linked seeds and the missed gold titles,
    so the student can say why.
    """
    from pathfinding.hipporag import supporting_ids
    from pathfinding.hipporag.io import Question

    if question is None or question is Ellipsis:
        return NOT_YET
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
