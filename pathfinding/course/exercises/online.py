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
    WrongModel,
    feedback_on_unreadable,
    judge_value,
    read_function,
    read_number,
)
from pathfinding.errors import InvalidTypeError

__all__ = [
    "BREAK_EVEN_WRONG",
    "CONNECTED_PROBABILITY_WRONG",
    "HALF_SHARE_WRONG",
    "MONITOR_DAMAGE",
    "MONITOR_DETECTION",
    "PROBABILITY_PRECISION",
    "QUERIES_PRECISION",
    "check_break_even",
    "check_connected_probability",
    "check_half_share",
    "check_missed_question",
    "check_monitor",
]

# --- Notebook 5: the cost of indexing once ------------------------------------------------------------

QUERIES_PRECISION = Precision(whole=True)

BREAK_EVEN_WRONG = (
    WrongModel(
        "HippoRAG's own query call forgotten",
        "each query saves the iterative cost MINUS HippoRAG's own NER call.",
        value=lambda n, ratio: 2 * n / ratio,
    ),
    WrongModel(
        "one OpenIE call per passage",
        "HippoRAG's OpenIE makes two calls per passage (NER, then triples).",
        value=lambda n, ratio: n / (ratio - 1),
    ),
    WrongModel(
        "both slips",
        "two slips: OpenIE makes two calls per passage, and a query saves the iterative cost minus "
        "HippoRAG's own NER call.",
        value=lambda n, ratio: n / ratio,
    ),
    WrongModel(
        "the query call on the wrong side",
        "HippoRAG's one NER call per query belongs on HippoRAG's side of the balance: offline + Q "
        "calls against ratio * Q.",
        value=lambda n, ratio: 2 * n / (ratio + 1),
    ),
)
"""Exercise 5.1's confusions, each ``(n_passages, ratio) -> queries``."""


@feedback_on_unreadable
def check_break_even(n_passages, ratio, value) -> Feedback:
    """Exercise 5.1: queries after which indexing ``n_passages`` pays off, when an iterative query costs
    ``ratio`` query-NER calls (2 OpenIE calls per passage, 1 NER call per HippoRAG query).

    Asked to a whole query, rounded down or up (2222 and 2223 both pass for 2222.2).

    Examples
    --------
    >>> check_break_even(10_000, 10, 2222).ok, check_break_even(10_000, 30, 690).ok
    (True, True)
    >>> check_break_even(10_000, 10, 2200)
    not yet: close — keep more digits: 2200 is the answer rounded too far; give it to a whole number.
    """
    p = QUERIES_PRECISION
    return judge_value(
        "value", value, 2 * n_passages / (ratio - 1), p, BREAK_EVEN_WRONG, (n_passages, ratio),
        right="the index pays for itself after N * 2 / (ratio - 1) queries.",
        fallback="set offline + per-query cost equal to the iterative bill and solve.",
    )  # fmt: skip


HALF_SHARE_WRONG = (
    WrongModel(
        "one call per query",
        lambda n, calls: (
            f"at that volume the queries make twice the index's calls, so the index is a "
            f"third of the bill, not half: each query makes {calls} calls, and half the bill means the "
            "offline calls equal the online ones."
        ),
        value=lambda n, calls: 2 * n if calls != 1 else 4 * n,
    ),
    WrongModel(
        "one OpenIE call per passage",
        "HippoRAG's OpenIE makes two calls per passage (NER, then triples).",
        value=lambda n, calls: n / calls,
    ),
    WrongModel(
        "the break-even at 10x",
        "that is the break-even with an iterative retriever (exercise 5.1); the iterative retriever "
        "does not enter HippoRAG's own bill.",
        value=lambda n, calls: 2 * n / (10 - calls),
    ),
    WrongModel(
        "the break-even at 30x",
        "that is the break-even with an iterative retriever (exercise 5.1); the iterative retriever "
        "does not enter HippoRAG's own bill.",
        value=lambda n, calls: 2 * n / (30 - calls),
    ),
)
"""Exercise 5.2's confusions, each ``(n_passages, calls_per_query) -> queries``."""


@feedback_on_unreadable
def check_half_share(n_passages, value, *, calls_per_query: int = 1) -> Feedback:
    """Exercise 5.2: the query volume at which the offline bill (2 calls per passage) is half of
    HippoRAG's total, when a query makes ``calls_per_query`` LLM calls. Asked to a whole query.

    Examples
    --------
    >>> check_half_share(10_000, 20_000).ok, check_half_share(50_000, 50_000, calls_per_query=2).ok
    (True, True)
    """
    p = QUERIES_PRECISION
    inputs = (n_passages, calls_per_query)
    online = "2N NER calls" if calls_per_query == 1 else f"{calls_per_query} calls for each of N queries"
    return judge_value(
        "value", value, 2 * n_passages / calls_per_query, p, HALF_SHARE_WRONG, inputs,
        right=f"2N calls offline equal {online} online: the iterative retriever does not enter this one.",
        fallback="set the offline calls equal to the online calls; the iterative retriever does not enter.",
    )  # fmt: skip


# --- Notebook 6: monitoring index recall -----------------------------------------------------------

PROBABILITY_PRECISION = Precision(sig=2)
MONITOR_DETECTION = 0.8  # share of damaged batches a monitor must alarm on, at 5% false alarms
MONITOR_DAMAGE = "replace"  # wrong facts of the same count: invisible to any count of the index's size


def _spared(n: int, k: int, b: int) -> float:
    return math.comb(n - b, k) / math.comb(n, k)


CONNECTED_PROBABILITY_WRONG = (
    WrongModel(
        "independent survivals",
        "exactly k facts go, without replacement: the survivals are not independent (your number treats "
        "each bridge fact as surviving on its own, or the deletions as drawn with replacement).",
        value=lambda n, k, b: (1 - k / n) ** b,
    ),
    WrongModel(
        "independent, at the rounded rate",
        "exactly k facts go, without replacement: the survivals are not independent (your number is "
        "(1 - rate)^b, as if each fact survived on its own).",
        value=lambda n, k, b: (1 - round(k / n, 1)) ** b,
    ),
    WrongModel(
        "the complement",
        "that is the chance that at least one bridge fact is deleted; the question asks that all survive.",
        value=lambda n, k, b: 1 - _spared(n, k, b),
    ),
    WrongModel(
        "one bridge fact",
        "that is the chance that one given bridge fact survives; all b of them must.",
        value=lambda n, k, b: 1 - k / n,
    ),
)
"""Exercise 6.1's confusions, each ``(n_facts, n_deleted, bridge_facts) -> probability``."""


@feedback_on_unreadable
def check_connected_probability(n_facts, n_deleted, bridge_facts, value) -> Feedback:
    """Exercise 6.1: the chance that all ``bridge_facts`` facts survive when ``n_deleted`` of ``n_facts``
    are deleted uniformly at random (without replacement). Asked to 2 significant digits.

    Examples
    --------
    >>> check_connected_probability(36, 4, 4, 0.61).ok, check_connected_probability(36, 4, 4, 0.6105).ok
    (True, True)
    >>> check_connected_probability(36, 4, 4, 0.62).ok
    False
    >>> check_connected_probability(36, 4, 4, 0.6)
    not yet: close — keep more digits: 0.6 is the answer rounded too far; give it to 2 significant digits.
    """
    p = PROBABILITY_PRECISION
    inputs = (n_facts, n_deleted, bridge_facts)
    return judge_value(
        "value", value, _spared(*inputs), p, CONNECTED_PROBABILITY_WRONG, inputs,
        right="C(n - b, k) / C(n, k): the deleted facts must all come from the other n - b.",
        fallback="count the deletions that spare every bridge fact, out of all deletions of k facts.",
    )  # fmt: skip


@feedback_on_unreadable
def check_monitor(monitor, *, queries: int = 300, seed: int = 0) -> Feedback:
    """Exercise 6.2 (open): a label-free monitor that alarms when the index holds wrong facts.

    ``monitor(query, pi) -> float`` sees what a production system has: a
    :class:`~pathfinding.course.monitoring.LabelFreeQuery` (graph, P, passages, node names, seeds; no answer,
    no candidates) and the query's PPR vector. :func:`~pathfinding.course.monitoring.alarm_rates` sets the
    alarm range on the intact index (5% false alarms over batches of 10 queries of mixed shapes)
    and counts the damaged batches that leave it. The damage (:data:`MONITOR_DAMAGE`) replaces 20% of
    the facts by wrong ones, keeping the index's size and components, so a monitor that only counts
    the index cannot see it. Passes at a detection rate of at least :data:`MONITOR_DETECTION`.
    """
    from pathfinding.course.monitoring import alarm_rates

    if read_function("monitor", monitor, "monitor(query, pi)") is None:
        return NOT_YET
    probe = _Probe(monitor)
    try:
        rates = alarm_rates(probe, queries=queries, seed=seed, damage=MONITOR_DAMAGE)
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
    if rates.undamaged_mean == rates.damaged_mean:
        return Feedback(
            False,
            summary + ": its values average the same on the damaged index as on the intact one, so it "
            "cannot alarm. Wrong facts leave the index as large as before; look at what the query's "
            "walk does with them.",
        )
    return Feedback(
        False,
        f"{summary}, below {MONITOR_DETECTION:.0%}: the signal moves less than it varies between "
        "queries. Hint: what does a wrong fact on a bridge change about what the seeds' walks share?",
    )


class _Unanswered(Exception):
    pass


class _Probe:
    """Wraps a student's monitor: an unanswered ``...`` stops the run, a number goes through."""

    def __init__(self, monitor: Callable):
        self.monitor = monitor

    def __call__(self, query, pi):
        value = self.monitor(query, pi)
        if value is Ellipsis:
            raise _Unanswered
        return read_number("monitor(query, pi)", value)


# --- Notebook 7: the online pipeline on real text --------------------------------------------------


@feedback_on_unreadable
def check_missed_question(retriever, question, corpus, *, k: int = 5) -> Feedback:
    """Exercise 7.2: a question whose supporting passages ``retriever`` misses in its top ``k``.

    ``retriever`` is a :class:`~pathfinding.hipporag.HippoRetriever`, ``question`` one
    :class:`~pathfinding.hipporag.io.Question` of the MuSiQue tuning set (``questions[i]``, not its text: the
    check needs its gold passages) and ``corpus`` its passages. Passes when at least one supporting
    passage is outside the top ``k``; the feedback names the linked seeds and the missed gold titles,
    so the student can say why.
    """
    from pathfinding.hipporag.evaluation.metrics import supporting_ids
    from pathfinding.hipporag.io.records import Question

    if question is Ellipsis:
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
