"""The offline/online split as arithmetic: who pays how many LLM calls, and when indexing pays off.

HippoRAG moves the expensive reading offline: every passage goes through OpenIE once, at indexing
time; a query then costs one LLM call (query NER) plus a graph walk. An iterative retriever in the
style of IRCoT reads nothing offline but makes an LLM call per retrieval step per query. This module
states that bill with its assumptions as parameters, finds the break-even query volume, and times the
graph walk that replaced the online reading.

Every cost is in *call-equivalents*: one unit is one LLM call of some reference size; the weights
(``openie_cost``, ``ner_cost``, ``step_cost``) say how large each kind of call is relative to it
(an OpenIE call reads a whole passage and writes triples; a query-NER call reads a question).

The defaults come from the paper's own ratios: two OpenIE calls per passage (NER, then triples, §2.3),
one query-NER call per query, and an iterative query 20 times as expensive as a HippoRAG query, the
middle of the 10-30x lower online cost the paper reports for single-step HippoRAG against IRCoT (§4
and Appendix G, as the chapter quotes them). The paper's 6-13x speed ratio is about latency, which this
bill does not count.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pathfinding._validation import check_float
from pathfinding.errors import InvalidValueError

__all__ = [
    "CostModel",
    "offline_calls",
    "online_calls",
    "iterative_calls",
    "break_even_queries",
    "offline_share",
]


def _nonneg_array(name: str, value) -> np.ndarray:
    arr = np.asarray(value, dtype=np.float64)
    if not np.all(np.isfinite(arr)) or np.any(arr < 0):
        raise InvalidValueError(f"{name} must be finite and non-negative, got {value!r}")
    return arr


@dataclass(frozen=True)
class CostModel:
    """The assumptions of the bill, each a parameter a reader can change.

    Parameters
    ----------
    openie_calls_per_passage : float, default 2.0
        LLM calls per passage at indexing time: HippoRAG runs NER, then triple extraction.
    openie_cost : float, default 1.0
        Cost of one OpenIE call in call-equivalents.
    ner_calls_per_query : float, default 1.0
        LLM calls per query online (query NER).
    ner_cost : float, default 1.0
        Cost of one query-NER call.
    steps_per_query : float, default 2.0
        Retrieve-and-reason steps an iterative retriever takes per query (about one per hop).
    step_cost : float, default 10.0
        Cost of one iterative step: it reads the retrieved passages and writes a reasoning sentence,
        so it is larger than a query-NER call. With two steps an iterative query costs 20 NER calls,
        the middle of the paper's 10-30x; set ``step_cost`` to 5 or 15 for the ends of that range.

    Raises
    ------
    ValueError
        If a field is negative or not finite.

    Examples
    --------
    >>> CostModel(steps_per_query=3).steps_per_query
    3.0
    """

    openie_calls_per_passage: float = 2.0
    openie_cost: float = 1.0
    ner_calls_per_query: float = 1.0
    ner_cost: float = 1.0
    steps_per_query: float = 2.0
    step_cost: float = 10.0

    def __post_init__(self):
        for name in self.__dataclass_fields__:
            value = check_float(name, getattr(self, name), low=0.0, high=np.inf, high_open=True)
            object.__setattr__(self, name, value)

    @property
    def per_passage(self) -> float:
        """Offline cost of indexing one passage."""
        return self.openie_calls_per_passage * self.openie_cost

    @property
    def per_query(self) -> float:
        """Online cost of one HippoRAG query (the walk itself is not an LLM call)."""
        return self.ner_calls_per_query * self.ner_cost

    @property
    def per_query_iterative(self) -> float:
        """Online cost of one iterative-retrieval query."""
        return self.steps_per_query * self.step_cost


def offline_calls(n_passages, model: CostModel | None = None) -> np.ndarray:
    """Offline bill of indexing ``n_passages`` passages (OpenIE over each, once).

    Examples
    --------
    >>> float(offline_calls(10_000))
    20000.0
    >>> float(offline_calls(10_000, CostModel(openie_calls_per_passage=1)))
    10000.0
    """
    model = model or CostModel()
    return _nonneg_array("n_passages", n_passages) * model.per_passage


def online_calls(n_queries, model: CostModel | None = None) -> np.ndarray:
    """Online bill of ``n_queries`` HippoRAG queries (query NER; PPR costs no LLM call).

    Examples
    --------
    >>> float(online_calls(500))
    500.0
    """
    model = model or CostModel()
    return _nonneg_array("n_queries", n_queries) * model.per_query


def iterative_calls(n_queries, model: CostModel | None = None) -> np.ndarray:
    """Online bill of ``n_queries`` queries answered by an iterative retriever (no offline LLM bill).

    Examples
    --------
    >>> float(iterative_calls(500, CostModel(steps_per_query=3)))
    15000.0
    """
    model = model or CostModel()
    return _nonneg_array("n_queries", n_queries) * model.per_query_iterative


def break_even_queries(n_passages, model: CostModel | None = None) -> np.ndarray:
    """Query volume at which indexing once has paid for itself against an iterative retriever.

    Solves ``N * per_passage + Q * per_query = Q * per_query_iterative`` for Q.

    Returns
    -------
    numpy.ndarray of float
        ``inf`` where a HippoRAG query is no cheaper than an iterative one (never breaks even).

    Examples
    --------
    With the defaults (2 OpenIE calls per passage, 1 NER call per query, an iterative query of 20)
    each query saves 19 calls, so 10,000 passages (20,000 calls) have paid for themselves after
    20,000 / 19 = 1,053 queries; an iterative query that costs no more than one NER call never loses:

    >>> round(float(break_even_queries(10_000)), 1)
    1052.6
    >>> float(break_even_queries(10_000, CostModel(steps_per_query=1, step_cost=1)))
    inf
    """
    model = model or CostModel()
    n = _nonneg_array("n_passages", n_passages)
    saving = model.per_query_iterative - model.per_query
    if saving <= 0:
        return np.full_like(n, np.inf)
    return n * model.per_passage / saving


def offline_share(n_passages, n_queries, model: CostModel | None = None) -> np.ndarray:
    """Fraction of HippoRAG's total bill that was paid offline (broadcasts over both arguments).

    Examples
    --------
    >>> offline_share([1_000, 1_000], [2_000, 18_000])
    array([0.5, 0.1])
    """
    model = model or CostModel()
    off = offline_calls(n_passages, model)
    on = online_calls(n_queries, model)
    total = off + on
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, off / np.where(total > 0, total, 1.0), 0.0)
