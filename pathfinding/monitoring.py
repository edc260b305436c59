"""Monitoring index recall without gold triples.

An index decays: OpenIE misses facts, and a missed fact is a missing edge. :func:`drop_facts`
deletes a random fraction of an instance's facts, and :func:`index_health` computes label-free signals
(no gold triples, no gold answers) that a production system could log per query:
whether every query entity still links to a node, the seeds' degrees, whether the seeds still share a
connected component, and how much PPR mass leaves the seeds. :func:`recall_sweep` measures how those
signals track the answer's hit@1 as facts are deleted.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from pathfinding._validation import as_csr, check_float, check_int, check_node_ids
from pathfinding.instances import PathFindingInstance, instance_from_facts, make_instance
from pathfinding.ppr import personalized_pagerank
from pathfinding.ranking import RANKERS, rank_of
from pathfinding.specificity import node_specificity, restart_vector

__all__ = [
    "IndexHealth",
    "drop_facts",
    "index_health",
    "RecallRow",
    "recall_sweep",
]


def corpus_idf(counts, n_passages: int) -> np.ndarray:
    """Corpus-level inverse document frequency ``log(N / df_i)``, the weighting s_i is contrasted with.

    Parameters
    ----------
    counts : array_like of int, shape (n_nodes,)
        Document frequency df_i (passages mentioning node i).
    n_passages : int
        Corpus size N (``>= 1``).

    Returns
    -------
    numpy.ndarray of float64, shape (n_nodes,)
        ``log(N / max(df_i, 1))``: a node in no passage is treated as if found in one, the same
        convention :func:`~pathfinding.specificity.node_specificity` uses.

    Raises
    ------
    ValueError
        If ``n_passages < 1`` or a count is negative or larger than ``n_passages``.

    Examples
    --------
    >>> corpus_idf([1, 2, 4], 4).round(4)
    array([1.3863, 0.6931, 0.    ])
    """
    n_passages = check_int("n_passages", n_passages, low=1)
    df = np.asarray(counts)
    if df.ndim != 1 or not np.issubdtype(df.dtype, np.integer):
        raise ValueError(f"counts must be a 1-D integer array, got dtype {df.dtype} shape {df.shape}")
    if df.size and (df.min() < 0 or df.max() > n_passages):
        raise ValueError(f"counts must be in [0, n_passages={n_passages}], got {df.min()}..{df.max()}")
    return np.log(n_passages / np.maximum(df, 1))


class SpecificityIndex:
    """|P_i| maintained passage by passage, so s_i = 1/|P_i| never needs a rebuild.

    Parameters
    ----------
    n_nodes : int, default 0
        Initial number of nodes; the index grows when a passage mentions a larger node id.

    Attributes
    ----------
    counts : numpy.ndarray of int64
        |P_i| per node.
    n_passages : int
        Passages added so far.

    See Also
    --------
    pathfinding.specificity.passage_counts : the same counts from the full matrix P (the rebuild).

    Examples
    --------
    >>> idx = SpecificityIndex()
    >>> idx.add_passage([0, 1])
    array([0, 1])
    >>> idx.add_passage([0, 2, 0])  # a node mentioned twice in one passage counts once
    array([0, 2])
    >>> idx.counts
    array([2, 1, 1])
    >>> idx.specificity()
    array([0.5, 1. , 1. ])
    """

    def __init__(self, n_nodes: int = 0):
        n_nodes = check_int("n_nodes", n_nodes, low=0)
        self.counts = np.zeros(n_nodes, dtype=np.int64)
        self.n_passages = 0

    @property
    def n_nodes(self) -> int:
        """Number of nodes the index knows about."""
        return self.counts.size

    def add_passage(self, nodes) -> np.ndarray:
        """Record one passage that mentions ``nodes``; return the node ids whose |P_i| changed.

        Work is proportional to the passage's mentions, not to the corpus: only these counts move.

        Parameters
        ----------
        nodes : array_like of int
            Node ids mentioned in the passage (repeats allowed, counted once; may be empty).

        Returns
        -------
        numpy.ndarray of int64
            The distinct node ids touched, sorted.

        Raises
        ------
        ValueError
            If a node id is negative.
        """
        ids = np.asarray(nodes)
        if ids.size == 0:
            self.n_passages += 1
            return np.zeros(0, dtype=np.int64)
        if not np.issubdtype(ids.dtype, np.integer) or ids.ndim != 1:
            raise ValueError(f"nodes must be a 1-D array of integer node ids, got {nodes!r}")
        if ids.min() < 0:
            raise ValueError(f"node ids must be non-negative, got {int(ids.min())}")
        touched = np.unique(ids).astype(np.int64)
        if touched[-1] >= self.counts.size:
            grown = np.zeros(int(touched[-1]) + 1, dtype=np.int64)
            grown[: self.counts.size] = self.counts
            self.counts = grown
        self.counts[touched] += 1
        self.n_passages += 1
        return touched

    def specificity(self) -> np.ndarray:
        """s_i = 1/|P_i| for every node (1.0 for a node in no passage)."""
        return 1.0 / np.maximum(self.counts, 1)

    def idf(self) -> np.ndarray:
        """Corpus-level ``log(N / df_i)`` for every node, for contrast (see :func:`corpus_idf`)."""
        return corpus_idf(self.counts, max(self.n_passages, 1))


@dataclass(frozen=True)
class ReplayLog:
    """What changed when the passages of a corpus were added one at a time.

    Attributes
    ----------
    touched : numpy.ndarray of int, shape (n_passages,)
        Nodes whose |P_i| changed at each addition (the nodes the passage mentions).
    changed_specificity : numpy.ndarray of int, shape (n_passages,)
        Nodes whose s_i value changed at each addition.
    changed_idf : numpy.ndarray of int, shape (n_passages,)
        Nodes seen so far whose ``log(N/df)`` value changed at each addition.
    seen : numpy.ndarray of int, shape (n_passages,)
        Nodes mentioned by at least one passage after each addition.
    index : SpecificityIndex
        The index after the last addition.
    """

    touched: np.ndarray
    changed_specificity: np.ndarray
    changed_idf: np.ndarray
    seen: np.ndarray
    index: SpecificityIndex


def replay_additions(mentions) -> ReplayLog:
    """Add the passages (columns of P) one at a time and count whose weights change each time.

    Parameters
    ----------
    mentions : sparse matrix or array_like, shape (n_nodes, n_passages)
        The count matrix P; passage j is added at step j.

    Returns
    -------
    ReplayLog

    Examples
    --------
    Three passages over three nodes: after the first, IDF moves for every node already seen, while
    s_i moves only where a count went from 1 to 2.

    >>> import numpy as np
    >>> P = np.array([[1, 1, 0], [1, 0, 0], [0, 1, 1]])
    >>> log = replay_additions(P)
    >>> log.touched, log.changed_specificity, log.changed_idf
    (array([2, 2, 1]), array([0, 1, 1]), array([0, 1, 3]))
    """
    P = sp.csc_array(as_csr("mentions", mentions))
    n_nodes, n_passages = P.shape
    index = SpecificityIndex(n_nodes)
    touched = np.zeros(n_passages, dtype=np.int64)
    changed_s = np.zeros(n_passages, dtype=np.int64)
    changed_idf = np.zeros(n_passages, dtype=np.int64)
    seen = np.zeros(n_passages, dtype=np.int64)
    s_before = index.specificity()
    idf_before = None
    prev_seen = np.zeros(n_nodes, dtype=bool)
    for j in range(n_passages):
        nodes = P.indices[P.indptr[j] : P.indptr[j + 1]]
        touched[j] = index.add_passage(nodes).size
        s_after = index.specificity()
        idf_after = index.idf()
        seen_mask = index.counts > 0
        seen[j] = int(seen_mask.sum())
        changed_s[j] = int(np.sum(s_after != s_before))
        if idf_before is not None:
            # Only nodes already in the index have an IDF a retriever would have used.
            changed_idf[j] = int(np.sum(prev_seen & (idf_after != idf_before)))
        s_before, idf_before, prev_seen = s_after, idf_after, seen_mask
    return ReplayLog(touched, changed_s, changed_idf, seen, index)


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
    >>> from pathfinding.toy import star_pair
    >>> damaged = drop_facts(star_pair(9), 0.5, rng=0)
    >>> star_pair(9).n_passages, damaged.n_passages, damaged.n_nodes
    (18, 9, 19)
    """
    fraction = check_float("fraction", fraction, low=0.0, high=1.0)
    rng = np.random.default_rng(rng)
    n = instance.facts.shape[0]
    n_drop = int(round(fraction * n))
    keep = np.sort(rng.permutation(n)[n_drop:])
    return instance_from_facts(
        instance.facts[keep],
        instance.node_names,
        [instance.passages[k] for k in keep],
        seeds=instance.seeds,
        answer=instance.answer,
        candidates=instance.candidates,
        hops=instance.hops,
    )


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


def index_health(graph, mentions, seeds) -> IndexHealth:
    """Compute the label-free health signals of one query against an index.

    Parameters
    ----------
    graph : sparse matrix or array_like, shape (n_nodes, n_nodes)
        Symmetric adjacency of the knowledge graph.
    mentions : sparse matrix or array_like, shape (n_nodes, n_passages)
        The count matrix P.
    seeds : array_like of int
        The query's linked entity nodes.

    Returns
    -------
    IndexHealth

    Examples
    --------
    >>> from pathfinding.toy import meet_node_toy
    >>> toy = meet_node_toy()
    >>> h = index_health(toy.graph, toy.mentions, toy.seeds)
    >>> h.unlinked_seeds, h.mean_seed_degree, h.seeds_connected, round(h.mass_off_seeds, 4)
    (0, 2.0, True, 0.3333)
    """
    A = as_csr("graph", graph, square=True)
    P = as_csr("mentions", mentions)
    if P.shape[0] != A.shape[0]:
        raise ValueError(f"mentions has {P.shape[0]} rows but graph has {A.shape[0]} nodes")
    seeds = check_node_ids("seeds", seeds, A.shape[0])
    counts = np.diff(P.indptr)
    degree = np.diff(A.indptr)
    _, labels = connected_components(A, directed=False)
    pi = personalized_pagerank(A, restart_vector(A.shape[0], seeds, specificity=node_specificity(P)))
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
        Passed to :func:`~pathfinding.instances.make_instance`.

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
            h = index_health(damaged.graph, damaged.mentions, damaged.seeds)
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
