"""Checks for the exercises of notebooks 5-7: the bill, monitoring the index, real text.

Every check returns a :class:`~pathfinding.course.exercises.answers.Feedback` and compares numbers
with :func:`~pathfinding.course.exercises.answers.judge` at the precision its exercise states.
"""

from __future__ import annotations

import functools
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
    not_the_exercise,
    percent_model,
    read_function,
    read_number,
)
from pathfinding.errors import InvalidTypeError

__all__ = [
    "BREAK_EVEN_INPUTS",
    "BREAK_EVEN_WRONG",
    "CONNECTED_INPUTS",
    "CONNECTED_PROBABILITY_WRONG",
    "HALF_SHARE_INPUTS",
    "HALF_SHARE_WRONG",
    "MISSED_K",
    "MONITOR_DAMAGE",
    "MONITOR_DETECTION",
    "MONITOR_QUERIES",
    "MONITOR_SEED",
    "PROBABILITY_PRECISION",
    "QUERIES_PRECISION",
    "V1_SETTINGS",
    "check_break_even",
    "check_connected_probability",
    "check_half_share",
    "check_missed_question",
    "check_monitor",
    "judge_monitor",
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
    WrongModel(
        "the per-query costs subtracted the wrong way",
        "a negative number of queries is impossible: the index pays off because a HippoRAG query costs "
        "LESS than an iterative one, so divide the offline bill by (ratio - 1), not (1 - ratio).",
        value=lambda n, ratio: 2 * n / (1 - ratio),
    ),
    WrongModel(
        "the break-even upside down",
        "that is the break-even upside down: Q = 2N / (ratio - 1) queries, not its inverse.",
        value=lambda n, ratio: (ratio - 1) / (2 * n),
    ),
    WrongModel(
        "offline and online swapped",
        "that swaps what is paid once and what is paid per query: indexing costs 2 calls per passage "
        "ONCE, a query costs its calls EVERY time: solve 2N + Q = ratio * Q for Q.",
        value=lambda n, ratio: n * (ratio - 1) / 2,
    ),
    WrongModel(
        "a negative count",
        "a negative number of queries is impossible: check which per-query cost is the larger.",
        holds=lambda got, n, ratio: got < 0,
    ),
)
"""Exercise 5.1's confusions, each ``(n_passages, ratio) -> queries`` or a property."""

BREAK_EVEN_INPUTS = {(50_000, 10), (50_000, 30)}
"""The ``(n_passages, ratio)`` pairs exercise 5.1 asks about."""


@feedback_on_unreadable
def check_break_even(n_passages, ratio, value) -> Feedback:
    """Exercise 5.1: queries after which indexing ``n_passages`` pays off, when an iterative query costs
    ``ratio`` query-NER calls (2 OpenIE calls per passage, 1 NER call per HippoRAG query).

    Asked to a whole query, rounded down or up (11111 and 11112 both pass for 11111.1), for the
    exercise's :data:`BREAK_EVEN_INPUTS` only.

    Examples
    --------
    >>> check_break_even(50_000, 10, 11_111).ok, check_break_even(50_000, 30, 3_449).ok
    (True, True)
    >>> check_break_even(50_000, 10, 11_000)
    not yet: close — keep more digits: 11000 is the answer rounded too far; give it to a whole number.
    """
    if (n_passages, ratio) not in BREAK_EVEN_INPUTS:
        return not_the_exercise(
            "5.1", "50,000 passages at a ratio of 10 or of 30", f"{n_passages!r} passages at {ratio!r}"
        )
    p = QUERIES_PRECISION
    return judge_value(
        "value", value, 2 * n_passages / (ratio - 1), p, BREAK_EVEN_WRONG, (n_passages, ratio),
        right="the index pays for itself after N * 2 / (ratio - 1) queries.",
        fallback="set offline + per-query cost equal to the iterative bill and solve.",
    )  # fmt: skip


HALF_SHARE_INPUTS = (50_000, 3)
"""Exercise 5.2's corpus size and LLM calls per query. Three calls, not two: with two, the break-even
at 10x is N/4, a count that other slips give too, so its hint went to answers it did not explain."""


def _other_break_even(n: int, calls: int, ratio: int) -> str:
    return (
        f"that is a break-even with an iterative retriever at {ratio}x (exercise 5.1's question); the "
        "iterative retriever does not enter HippoRAG's own bill."
    )


HALF_SHARE_WRONG = (
    WrongModel(
        "one call per query",
        lambda n, calls: (
            f"each query makes {calls} calls, not one: half the bill means the offline calls (2 per "
            f"passage) equal the online ones ({calls} per query)."
        ),
        value=lambda n, calls: 2.0 * n,
    ),
    WrongModel(
        "one OpenIE call per passage",
        "HippoRAG's OpenIE makes two calls per passage (NER, then triples).",
        value=lambda n, calls: n / calls,
    ),
    WrongModel(
        "half of the online bill",
        "half of the TOTAL bill: the offline calls equal the online calls (each is half), not half of "
        "the online calls.",
        value=lambda n, calls: 4 * n / calls,
    ),
    *(
        WrongModel(f"the break-even at {ratio}x", functools.partial(_other_break_even, ratio=ratio),
                   value=lambda n, calls, r=ratio: 2 * n / (r - calls))
        for ratio in (10, 30)
    ),
    *(
        WrongModel(f"exercise 5.1's answer at {ratio}x", functools.partial(_other_break_even, ratio=ratio),
                   value=lambda n, calls, r=ratio: 2 * n / (r - 1))
        for ratio in (10, 30)
    ),
)  # fmt: skip
"""Exercise 5.2's confusions, each ``(n_passages, calls_per_query) -> queries``."""


@feedback_on_unreadable
def check_half_share(n_passages, value, *, calls_per_query: int = 3) -> Feedback:
    """Exercise 5.2: the query volume at which the offline bill (2 calls per passage) is half of
    HippoRAG's total, when a query makes ``calls_per_query`` LLM calls. Asked to a whole query, for
    the exercise's :data:`HALF_SHARE_INPUTS` only (50,000 passages, 3 calls per query).

    Examples
    --------
    >>> check_half_share(50_000, 33_333).ok, check_half_share(50_000, 50_000, calls_per_query=2).ok
    (True, False)
    """
    if (n_passages, calls_per_query) != HALF_SHARE_INPUTS:
        return not_the_exercise(
            "5.2", "50,000 passages and 3 calls per query",
            f"{n_passages!r} passages and calls_per_query={calls_per_query!r}",
        )  # fmt: skip
    p = QUERIES_PRECISION
    inputs = (n_passages, calls_per_query)
    return judge_value(
        "value", value, 2 * n_passages / calls_per_query, p, HALF_SHARE_WRONG, inputs,
        right=f"2N calls offline equal {calls_per_query} calls for each of Q queries online: "
        "the iterative retriever does not enter this one.",
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
    WrongModel(
        "any instead of all",
        "that is the chance that at least ONE bridge fact survives; the seeds stay connected only if "
        "ALL of them do.",
        value=lambda n, k, b: 1 - (math.comb(n - b, k - b) / math.comb(n, k) if k >= b else 0.0),
    ),
    WrongModel(
        "one fact deleted",
        "that is the chance that one given fact is deleted; the question asks that every bridge fact "
        "survives.",
        value=lambda n, k, b: k / n,
    ),
    percent_model(lambda n, k, b: _spared(n, k, b)),
)
"""Exercise 6.1's confusions, each ``(n_facts, n_deleted, bridge_facts) -> probability``."""

CONNECTED_INPUTS = (36, 4, 4)
"""Exercise 6.1's facts, deleted facts and bridge facts."""


@feedback_on_unreadable
def check_connected_probability(n_facts, n_deleted, bridge_facts, value) -> Feedback:
    """Exercise 6.1: the chance that all ``bridge_facts`` facts survive when ``n_deleted`` of ``n_facts``
    are deleted uniformly at random (without replacement). Asked to 2 significant digits, for the
    exercise's :data:`CONNECTED_INPUTS` only.

    Examples
    --------
    >>> check_connected_probability(36, 4, 4, 0.61).ok, check_connected_probability(36, 4, 4, 0.6105).ok
    (True, True)
    >>> check_connected_probability(36, 4, 4, 0.62).ok
    False
    >>> check_connected_probability(36, 4, 4, 0.6)
    not yet: close — keep more digits: 0.6 is the answer rounded too far; give it to 2 significant digits.
    """
    inputs = (n_facts, n_deleted, bridge_facts)
    if inputs != CONNECTED_INPUTS:
        return not_the_exercise("6.1", "36 facts, 4 deleted, 4 on the bridges", f"{inputs}")
    p = PROBABILITY_PRECISION
    return judge_value(
        "value", value, _spared(*inputs), p, CONNECTED_PROBABILITY_WRONG, inputs,
        right="C(n - b, k) / C(n, k): the deleted facts must all come from the other n - b.",
        fallback="count the deletions that spare every bridge fact, out of all deletions of k facts.",
    )  # fmt: skip


PURITY_QUERIES = 6
"""Queries (each intact and damaged) on which :func:`check_monitor` first checks that a monitor is a
function of what it is shown."""


def _probe_queries(seed: int) -> list:
    """``(query, pi)`` pairs of small instances of mixed depth, each intact and with replaced facts."""
    from pathfinding.course.monitoring import replace_facts
    from pathfinding.synthetic.instances import make_instance
    from pathfinding.synthetic.rankers import RANKERS

    pairs = []
    for t, ss in enumerate(np.random.SeedSequence(seed).spawn(PURITY_QUERIES)):
        inst_ss, harm_ss = ss.spawn(2)
        intact = make_instance(1 + t % 3, distractors=4, rng=inst_ss)
        for inst in (intact, replace_facts(intact, 0.2, rng=harm_ss)):
            pairs.append((inst, RANKERS["ppr"](inst)))
    return pairs


def _impure(monitor) -> str | None:
    """A sentence when ``monitor`` is not a function of (query, pi): the same query, asked again in
    another order or twice in a row, must give the same value. None when it is one."""
    from pathfinding.course.monitoring import label_free

    pairs = _probe_queries(seed=1)
    order = np.random.default_rng(1).permutation(np.repeat(np.arange(len(pairs)), 2))
    seen: dict[int, float] = {}
    for i in [*range(len(pairs)), *order.tolist()]:
        inst, pi = pairs[i]
        value = monitor(label_free(inst), pi.copy())  # a fresh view: what one call does cannot leak
        if value is Ellipsis:
            raise _Unanswered
        value = read_number("monitor(query, pi)", value)
        if i in seen and not np.isclose(value, seen[i], rtol=1e-9, atol=1e-12):
            return (
                f"your monitor gave {seen[i]:.6g} and then {value:.6g} for the same query: a monitor must "
                "be a function of the query and pi it is shown (the check asks each query again, in "
                "another order and twice in a row), not of how many calls came before or of a random "
                "draw. A production monitor that counts its own calls alarms on traffic, not on the index."
            )
        seen[i] = value
    return None


MONITOR_QUERIES, MONITOR_SEED = 300, 0
"""The queries and root seed at which exercise 6.2 is judged
(:func:`~pathfinding.course.monitoring.alarm_rates`)."""


@feedback_on_unreadable
def check_monitor(monitor) -> Feedback:
    """Exercise 6.2 (open): a label-free monitor that alarms when the index holds wrong facts.

    ``monitor(query, pi) -> float`` sees what a production system has: a
    :class:`~pathfinding.course.monitoring.LabelFreeQuery` (graph, P, passages, node names, seeds; no answer,
    no candidates) and the query's PPR vector. It must be a function of them: the check first asks
    each of a few queries again, shuffled and repeated, and refuses a monitor that answers the same
    query differently (one that counts its own calls would otherwise tell intact from damaged by the
    order of the calls). Then :func:`~pathfinding.course.monitoring.alarm_rates` sets the
    alarm range on the intact index (5% false alarms over batches of 10 of :data:`MONITOR_QUERIES`
    queries of mixed shapes) and counts the damaged batches that leave it. The damage
    (:data:`MONITOR_DAMAGE`) replaces 20% of the facts by wrong ones, keeping the index's size and
    components, so a monitor that only counts the index cannot see it. Passes at a detection rate of
    at least :data:`MONITOR_DETECTION`.
    """
    return judge_monitor(monitor, queries=MONITOR_QUERIES, seed=MONITOR_SEED)


def judge_monitor(monitor, *, queries: int, seed: int) -> Feedback:
    """:func:`check_monitor`'s verdict at another number of ``queries`` and ``seed`` (the tests use
    fewer queries; exercise 6.2 is judged at :data:`MONITOR_QUERIES` and :data:`MONITOR_SEED`)."""
    from pathfinding.course.monitoring import alarm_rates

    if read_function("monitor", monitor, "monitor(query, pi)") is None:
        return NOT_YET
    probe = _Probe(monitor)
    try:
        impure = _impure(probe)
        if impure is not None:
            return Feedback(False, impure)
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

V1_SETTINGS = {"extractor": "capitalised", "facts": 0, "passage_weight": 0, "guess_weight": 1.0}
"""HippoRAG v1 as notebook 7 builds it: capitalised entities, no fact seeds, no passage nodes, no fusion."""
MISSED_K = 5


@functools.lru_cache(maxsize=1)
def _notebook_seven():
    """Notebook 7's questions and corpus, its index ``real`` and its v1 retriever (built once)."""
    from pathfinding.experiments.realtext import load_realtext
    from pathfinding.hipporag.index.build import index_from_openie
    from pathfinding.hipporag.retrieval.retrieve import HippoRetriever

    data = load_realtext()
    index = index_from_openie(data["openie"], tau=0.8)
    return data, index, HippoRetriever(index, **V1_SETTINGS)


def _same_sparse(a, b) -> bool:
    return a.shape == b.shape and (abs(a - b) > 1e-12).nnz == 0


def _same_index(a, b) -> bool:
    return a is b or (
        list(a.phrases) == list(b.phrases)
        and list(a.passages) == list(b.passages)
        and _same_sparse(a.mentions, b.mentions)
        and _same_sparse(a.graph(), b.graph())
    )


def _not_the_notebooks(retriever, question, corpus, k: int) -> str | None:
    """Why the inputs are not notebook 7's (a sentence), None when they are."""
    from pathfinding.hipporag.retrieval.retrieve import HippoRetriever

    data, index, v1 = _notebook_seven()
    if k != MISSED_K:
        return f"the exercise asks about v1's top {MISSED_K}, not its top {k}"
    if list(corpus) != list(data["corpus"]):
        return (
            "corpus is not the notebook's `corpus`: its passages were changed or reordered, and the gold "
            "passages are looked up by their place in it"
        )
    if question not in data["questions"]:
        return (
            "this question is not one of the notebook's `questions` as loaded: its text or its gold "
            "passages were changed (pick one as questions[i] and leave it as it is)"
        )
    if not isinstance(retriever, HippoRetriever):
        raise InvalidTypeError(
            f"retriever must be the notebook's HippoRetriever, got {type(retriever).__name__}"
        )
    if not _same_index(retriever.index, index):
        return (
            "retriever is built on another index than the notebook's `real` (the released triples at "
            "tau = 0.8): the exercise asks what v1 misses on that index"
        )
    hit, want = retriever.retrieve(question.question, k=k), v1.retrieve(question.question, k=k)
    if not np.array_equal(hit.passages, want.passages):
        return (
            "retriever is not the notebook's v1 (capitalised entities, no fact seeds, no passage nodes, "
            "no BM25 fusion): it ranks other passages for this question. Use `retriever` as the notebook "
            "built it"
        )
    return None


@feedback_on_unreadable
def check_missed_question(retriever, question, corpus, *, k: int = MISSED_K) -> Feedback:
    """Exercise 7.2: a question whose supporting passages ``retriever`` misses in its top ``k``.

    ``retriever`` is notebook 7's v1 :class:`~pathfinding.hipporag.HippoRetriever`, ``question`` one
    :class:`~pathfinding.hipporag.io.Question` of the MuSiQue tuning set (``questions[i]``, not its text: the
    check needs its gold passages) and ``corpus`` its passages. The check refuses another index, other
    retriever settings, a changed or reordered corpus and a question whose text or gold passages were
    replaced. Passes when at least one supporting passage is outside the top ``k`` (5); the feedback
    names the linked seeds and the missed gold titles, so the student can say why.
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
    changed = _not_the_notebooks(retriever, question, corpus, k)
    if changed is not None:
        return Feedback(False, f"not the exercise's inputs: {changed}.")
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
