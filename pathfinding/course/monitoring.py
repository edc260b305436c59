"""Monitoring index recall without gold triples.

An index decays: OpenIE misses facts, and a missed fact is a missing edge. :func:`drop_facts`
deletes a random fraction of an instance's facts; :func:`replace_facts` swaps a fraction for wrong
facts of the same count, as a weak extractor makes them, which no count of the index's size can
see. :func:`index_health` computes label-free signals (no gold triples, no gold answers) that a
production system could log per query:
whether every query entity still links to a node, the seeds' degrees, whether the seeds still share a
connected component, and how much PPR mass leaves the seeds. :func:`recall_sweep` measures how those
signals track the answer's hit@1 as facts are deleted. :func:`alarm_rates` judges a monitor the way
production would: it sees :class:`LabelFreeQuery` views (graph, P, seeds, never the answer) on a mix of
query shapes, sets its alarm threshold on the undamaged index, and counts how often it alarms on a
damaged one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from numbers import Real

import numpy as np
from scipy.sparse.csgraph import connected_components

from pathfinding._validation import as_csr, check_float, check_int, check_node_ids, check_vector
from pathfinding.core.ppr import personalized_pagerank
from pathfinding.core.prepared import prepare_graph
from pathfinding.core.scoring import rank_of
from pathfinding.core.specificity import node_specificity, restart_vector
from pathfinding.errors import InvalidTypeError, InvalidValueError
from pathfinding.synthetic.instances import PathFindingInstance, instance_from_facts, make_instance
from pathfinding.synthetic.rankers import RANKERS

__all__ = [
    "AlarmRates",
    "IndexHealth",
    "LabelFreeQuery",
    "alarm_rates",
    "drop_facts",
    "index_health",
    "label_free",
    "RecallRow",
    "recall_sweep",
    "replace_facts",
]

DAMAGES = ("delete", "replace")


def drop_facts(instance: PathFindingInstance, fraction: float, *, rng=None) -> PathFindingInstance:
    """Simulate index recall loss: delete a random ``fraction`` of the facts (edges and passages).

    Node ids, names, seeds, answer and candidates are kept, so rankings stay comparable; a node whose
    every fact was deleted is still present but isolated (its entity no longer links to any passage).

    Parameters
    ----------
    instance : PathFindingInstance
    fraction : float
        Share of facts to delete, in [0, 1]; ``round(fraction * n_facts)`` facts go.
    rng : None, int or numpy.random.Generator
        Chooses which facts go.

    Returns
    -------
    PathFindingInstance

    Raises
    ------
    ValueError
        If ``fraction`` is outside [0, 1].

    Examples
    --------
    >>> from pathfinding.synthetic.toy import star_pair
    >>> damaged = drop_facts(star_pair(9), 0.5, rng=0)
    >>> star_pair(9).n_passages, damaged.n_passages, damaged.n_nodes
    (18, 9, 19)
    """
    fraction = check_float("fraction", fraction, low=0.0, high=1.0)
    rng = np.random.default_rng(rng)
    n = instance.facts.shape[0]
    n_drop = int(round(fraction * n))
    keep = np.sort(rng.permutation(n)[n_drop:])
    return _with_facts(instance, instance.facts[keep], [instance.passages[k] for k in keep])


def _with_facts(instance: PathFindingInstance, facts, passages) -> PathFindingInstance:
    """``instance`` with other facts and passages: the same nodes, seeds, answer and candidates."""
    return instance_from_facts(
        facts,
        instance.node_names,
        passages,
        seeds=instance.seeds,
        answer=instance.answer,
        candidates=instance.candidates,
        hops=instance.hops,
    )


def replace_facts(instance: PathFindingInstance, fraction: float, *, rng=None) -> PathFindingInstance:
    """Simulate a weak extractor: replace a random ``fraction`` of the facts by wrong ones.

    Each replaced fact keeps one of its two entities and links it to another node it was not linked
    to, drawn at random from the nodes its old partner can still reach, so the graph keeps its
    connected components (an intact index never loses a component to a wrong fact); its passage keeps
    its text (the passage says what it said, the extracted fact is wrong). The index keeps its size:
    as many facts, passages, nodes, mentions and components as before.

    Parameters
    ----------
    instance : PathFindingInstance
    fraction : float
        Share of facts to replace, in [0, 1]; ``round(fraction * n_facts)`` facts are replaced.
    rng : None, int or numpy.random.Generator
        Chooses the facts, the entity each keeps, and its wrong partner.

    Returns
    -------
    PathFindingInstance

    Raises
    ------
    ValueError
        If ``fraction`` is outside [0, 1].

    Examples
    --------
    >>> from pathfinding.synthetic.toy import star_pair
    >>> toy = star_pair(9)
    >>> wrong = replace_facts(toy, 0.5, rng=0)
    >>> same = ("n_passages", "n_nodes")
    >>> [getattr(wrong, a) == getattr(toy, a) for a in same], wrong.graph.nnz == toy.graph.nnz
    ([True, True], True)
    >>> int((np.sort(wrong.facts, axis=1) != np.sort(toy.facts, axis=1)).any(axis=1).sum())
    9
    """
    fraction = check_float("fraction", fraction, low=0.0, high=1.0)
    rng = np.random.default_rng(rng)
    facts = instance.facts.copy()
    n = facts.shape[0]
    for k in rng.permutation(n)[: int(round(fraction * n))]:
        rest = np.delete(facts, k, axis=0)
        labels = _component_labels(rest, instance.n_nodes)
        linked = {frozenset(f) for f in rest.tolist()}
        ends = [int(x) for x in facts[k]]
        if rng.integers(2):
            ends.reverse()
        for keep, other in (ends, ends[::-1]):
            # a partner the old one still reaches, so that no component is lost or joined
            free = [
                v for v in np.flatnonzero(labels == labels[other]).tolist()
                if v not in (keep, other) and frozenset((keep, v)) not in linked
            ]  # fmt: skip
            if free:
                facts[k] = (keep, free[rng.integers(len(free))])
                break
    return _with_facts(instance, facts, list(instance.passages))


def _component_labels(facts: np.ndarray, n_nodes: int) -> np.ndarray:
    import scipy.sparse as sp

    graph = sp.csr_array((np.ones(len(facts)), (facts[:, 0], facts[:, 1])), shape=(n_nodes, n_nodes))
    return connected_components(graph, directed=False)[1]


@dataclass(frozen=True)
class IndexHealth:
    """Label-free signals for one query on one index (no gold triples or answers needed).

    Attributes
    ----------
    unlinked_seeds : int
        Query entities whose node is in no passage (entity linking would find nothing).
    mean_seed_degree : float
        Mean number of facts at the seeds.
    seeds_connected : bool
        Whether all seeds lie in one connected component, i.e. some node is reachable from all of
        them: without it no meet node exists and a path-finding answer cannot be found by the walk.
    mass_off_seeds : float
        PPR mass (specificity restart) on non-seed nodes: how much the walk reaches beyond the query.
    """

    unlinked_seeds: int
    mean_seed_degree: float
    seeds_connected: bool
    mass_off_seeds: float


def index_health(graph, mentions, seeds, *, pi=None) -> IndexHealth:
    """Compute the label-free health signals of one query against an index.

    Parameters
    ----------
    graph : sparse matrix or array_like, shape (n_nodes, n_nodes)
        Symmetric adjacency of the knowledge graph.
    mentions : sparse matrix or array_like, shape (n_nodes, n_passages)
        The count matrix P.
    seeds : array_like of int
        The query's linked entity nodes.
    pi : array_like of float, shape (n_nodes,), optional
        The query's PPR vector (specificity-weighted restart, as the ``ppr`` ranker computes it),
        when the caller already has it; computed here otherwise.

    Returns
    -------
    IndexHealth

    Examples
    --------
    >>> from pathfinding.synthetic.toy import meet_node_toy
    >>> toy = meet_node_toy()
    >>> h = index_health(toy.graph, toy.mentions, toy.seeds)
    >>> h.unlinked_seeds, h.mean_seed_degree, h.seeds_connected, round(h.mass_off_seeds, 4)
    (0, 2.0, True, 0.3333)
    """
    A = as_csr("graph", graph, square=True)
    P = as_csr("mentions", mentions)
    if P.shape[0] != A.shape[0]:
        raise InvalidValueError(f"mentions has {P.shape[0]} rows but graph has {A.shape[0]} nodes")
    seeds = check_node_ids("seeds", seeds, A.shape[0])
    counts = np.diff(P.indptr)
    degree = np.diff(A.indptr)
    _, labels = connected_components(A, directed=False)
    if pi is None:
        pi = personalized_pagerank(A, restart_vector(A.shape[0], seeds, specificity=node_specificity(P)))
    else:
        pi = check_vector("pi", pi, A.shape[0])
    return IndexHealth(
        unlinked_seeds=int(np.sum(counts[seeds] == 0)),
        mean_seed_degree=float(degree[seeds].mean()),
        seeds_connected=bool(np.unique(labels[seeds]).size == 1),
        mass_off_seeds=float(1.0 - pi[np.unique(seeds)].sum()),
    )


@dataclass(frozen=True)
class RecallRow:
    """One fact-loss level of :func:`recall_sweep`: answer quality (needs labels) beside monitors (do not).

    Attributes
    ----------
    fraction : float
        Share of facts deleted.
    trials : int
        Queries (instances) measured.
    hit_at_1 : float
        Share of queries whose answer PPR ranks first (random tie-breaking), needs the gold answer.
    mean_rank : float
        Mean expected rank of the answer under PPR, needs the gold answer.
    unlinked_query_rate : float
        Share of queries with at least one seed linked to no passage (label-free).
    connected_rate : float
        Share of queries whose seeds share a connected component (label-free).
    mean_seed_degree : float
        Mean seed degree over queries (label-free).
    mass_off_seeds : float
        Mean PPR mass on non-seed nodes (label-free).
    """

    fraction: float
    trials: int
    hit_at_1: float
    mean_rank: float
    unlinked_query_rate: float
    connected_rate: float
    mean_seed_degree: float
    mass_off_seeds: float


def recall_sweep(
    fractions, *, hops=2, trials: int = 200, seed: int = 0, **instance_kwargs
) -> list[RecallRow]:
    """Delete facts at increasing rates and measure answer quality beside the label-free monitors.

    Trial ``t`` uses the instance and the deletion drawn from ``SeedSequence(seed, spawn_key=(t,))``,
    the same at every fraction, so the curves differ only by the deletion rate (common random numbers;
    a fact deleted at a low rate is also deleted at every higher rate).

    Parameters
    ----------
    fractions : iterable of float
        Deletion rates in [0, 1].
    hops : int or tuple of int, default 2
        Hop depth of the generated instances.
    trials : int, default 200
        Queries per rate.
    seed : int, default 0
        Root seed.
    **instance_kwargs
        Passed to :func:`~pathfinding.synthetic.instances.make_instance`.

    Returns
    -------
    list of RecallRow

    Examples
    --------
    >>> rows = recall_sweep([0.0, 1.0], trials=5)
    >>> [(r.fraction, r.hit_at_1, r.connected_rate, r.unlinked_query_rate) for r in rows]
    [(0.0, 1.0, 1.0, 0.0), (1.0, 0.0, 0.0, 1.0)]
    """
    fractions = [check_float("fraction", f, low=0.0, high=1.0) for f in fractions]
    trials = check_int("trials", trials, low=1)
    seed = check_int("seed", seed, low=0)
    rows = []
    for f in fractions:
        hits, ranks, unlinked, connected, degree, mass = [], [], [], [], [], []
        for t in range(trials):
            inst_ss, drop_ss, ties_ss = np.random.SeedSequence(seed, spawn_key=(t,)).spawn(3)
            inst = make_instance(hops, rng=inst_ss, **instance_kwargs)
            damaged = drop_facts(inst, f, rng=drop_ss)
            scores = RANKERS["ppr"](damaged)
            ranks.append(rank_of(scores, inst.answer, inst.candidates))
            rnd = rank_of(
                scores, inst.answer, inst.candidates, ties="random", rng=np.random.default_rng(ties_ss)
            )
            hits.append(rnd == 1.0)
            h = index_health(damaged.graph, damaged.mentions, damaged.seeds, pi=scores)
            unlinked.append(h.unlinked_seeds > 0)
            connected.append(h.seeds_connected)
            degree.append(h.mean_seed_degree)
            mass.append(h.mass_off_seeds)
        rows.append(
            RecallRow(
                fraction=f,
                trials=trials,
                hit_at_1=float(np.mean(hits)),
                mean_rank=float(np.mean(ranks)),
                unlinked_query_rate=float(np.mean(unlinked)),
                connected_rate=float(np.mean(connected)),
                mean_seed_degree=float(np.mean(degree)),
                mass_off_seeds=float(np.mean(mass)),
            )
        )
    return rows


@dataclass(frozen=True)
class LabelFreeQuery:
    """What a production system knows about one query on its index: no gold answer, no candidates.

    Attributes
    ----------
    graph : scipy.sparse.csr_array, shape (n_nodes, n_nodes)
        The knowledge graph as indexed (after any fact loss).
    mentions : scipy.sparse.csr_array, shape (n_nodes, n_passages)
        The count matrix P.
    passages : list of str
        The indexed passages.
    node_names : list of str
        One phrase per node.
    seeds : numpy.ndarray of int
        The nodes the query's entities link to.
    prepared : PPRGraph
        The graph laid out for the walk, as the index keeps it.
    """

    graph: object
    mentions: object
    passages: list
    node_names: list
    seeds: np.ndarray

    @property
    def n_nodes(self) -> int:
        """Number of nodes in the graph."""
        return self.graph.shape[0]

    @cached_property
    def prepared(self):
        return prepare_graph(self.graph)


def label_free(instance: PathFindingInstance) -> LabelFreeQuery:
    """The :class:`LabelFreeQuery` view of ``instance``: everything but the answer, candidates and hops.

    Examples
    --------
    >>> from pathfinding.synthetic.toy import meet_node_toy
    >>> view = label_free(meet_node_toy())
    >>> view.n_nodes, view.seeds.tolist(), hasattr(view, "answer")
    (5, [0, 1], False)
    """
    return LabelFreeQuery(
        graph=instance.graph,
        mentions=instance.mentions,
        passages=list(instance.passages),
        node_names=list(instance.node_names),
        seeds=np.asarray(instance.seeds).copy(),
    )


@dataclass(frozen=True)
class AlarmRates:
    """How a monitor alarms: thresholds set on the undamaged index, then applied to a damaged one.

    Attributes
    ----------
    detection : float
        Share of batches on the damaged index whose mean monitor value falls outside the undamaged
        index's central ``1 - false_alarm`` range.
    false_alarm : float
        The same share on the undamaged index (at most the target, by construction of the range).
    undamaged_mean, damaged_mean : float
        Mean monitor value per query on each index.
    low, high : float
        The alarm thresholds: a batch mean below ``low`` or above ``high`` alarms.
    """

    detection: float
    false_alarm: float
    undamaged_mean: float
    damaged_mean: float
    low: float
    high: float


def alarm_rates(
    monitor: Callable,
    *,
    fraction: float = 0.2,
    batch: int = 10,
    queries: int = 300,
    false_alarm: float = 0.05,
    resamples: int = 2000,
    seed: int = 0,
    damage: str = "delete",
) -> AlarmRates:
    """Judge a label-free monitor on whether it alarms when the index is damaged.

    Production traffic is a mix of question shapes, so each query is a path-finding instance of 1 to
    3 hops with 4 to 12 dead-end chains per seed. Each is indexed twice: intact, and with ``fraction``
    of its facts deleted (:func:`drop_facts`) or replaced by wrong ones (:func:`replace_facts`).
    ``monitor(query, pi)`` sees only a :class:`LabelFreeQuery` and the query's PPR vector
    (specificity restart), and returns a number.
    A system logs the mean over a batch of ``batch`` queries; the alarm range is the central
    ``1 - false_alarm`` of batch means on the intact index, so the false-alarm rate is fixed and the
    verdict is the share of damaged batches that leave it. A monitor may move either way under damage.

    Parameters
    ----------
    monitor : callable
        ``monitor(query, pi) -> float``.
    fraction : float, default 0.2
        Share of facts deleted from, or replaced in, the damaged index.
    batch : int, default 10
        Queries per logged batch.
    queries : int, default 300
        Distinct queries measured on each index; batches are drawn from them with replacement.
    false_alarm : float, default 0.05
        Target false-alarm rate on the undamaged index (split equally over both tails).
    resamples : int, default 2000
        Batches drawn per index.
    seed : int, default 0
        Root seed: query ``t`` is drawn from ``SeedSequence(seed, spawn_key=(t,))``.
    damage : {"delete", "replace"}, default "delete"
        How the damaged index lost its facts.

    Returns
    -------
    AlarmRates

    Raises
    ------
    TypeError
        If ``monitor`` is not callable or returns something that is not a number.
    ValueError
        If a rate is outside its range, a count is below 1, or ``damage`` is not a damage model.

    Examples
    --------
    Whether the seeds still share a component is a label-free signal that alarms on every damaged
    batch and never on an intact one:

    >>> from scipy.sparse.csgraph import connected_components
    >>> def connected(query, pi):
    ...     labels = connected_components(query.graph, directed=False)[1]
    ...     return float(np.unique(labels[query.seeds]).size == 1)
    >>> r = alarm_rates(connected, queries=40, resamples=200)
    >>> float(r.detection), float(r.false_alarm)
    (1.0, 0.0)
    """
    if not callable(monitor):
        raise InvalidTypeError(f"monitor must be a function monitor(query, pi), got {type(monitor).__name__}")
    fraction = check_float("fraction", fraction, low=0.0, high=1.0)
    false_alarm = check_float("false_alarm", false_alarm, low=0.0, high=1.0)
    batch = check_int("batch", batch, low=1)
    queries = check_int("queries", queries, low=1)
    resamples = check_int("resamples", resamples, low=1)
    seed = check_int("seed", seed, low=0)
    if damage not in DAMAGES:
        raise InvalidValueError(f"damage must be one of {DAMAGES}, got {damage!r}")
    harm = drop_facts if damage == "delete" else replace_facts
    values = np.empty((2, queries))
    for t in range(queries):
        inst_ss, drop_ss, shape_ss = np.random.SeedSequence(seed, spawn_key=(t,)).spawn(3)
        shape = np.random.default_rng(shape_ss)
        hops, distractors = int(shape.integers(1, 4)), int(shape.integers(4, 13))
        intact = make_instance(hops, distractors=distractors, rng=inst_ss)
        for row, inst in enumerate((intact, harm(intact, fraction, rng=drop_ss))):
            pi = RANKERS["ppr"](inst)
            value = monitor(label_free(inst), pi)
            if isinstance(value, bool | np.bool_) or not isinstance(value, Real):
                raise InvalidTypeError(
                    f"monitor(query, pi) must return a number, got {type(value).__name__} {value!r}"
                )
            values[row, t] = float(value)
    draw = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(queries,)))
    means = values[:, draw.integers(0, queries, size=(resamples, batch))].mean(axis=2)
    # the sample quantiles on the safe side, so that at most false_alarm of intact batches alarm
    low = np.quantile(means[0], false_alarm / 2, method="lower")
    high = np.quantile(means[0], 1 - false_alarm / 2, method="higher")
    alarms = (means < low) | (means > high)
    return AlarmRates(
        detection=float(alarms[1].mean()),
        false_alarm=float(alarms[0].mean()),
        undamaged_mean=float(values[0].mean()),
        damaged_mean=float(values[1].mean()),
        low=float(low),
        high=float(high),
    )
