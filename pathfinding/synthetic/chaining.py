"""Chaining retrievers: what an iterative (IRCoT-shaped) retriever does without an LLM.

IRCoT (Trivedi et al., 2023) alternates retrieval and reasoning: retrieve passages for what it knows,
read them, name the next entity, retrieve again. Here the reading is a stated rule, so every run is
deterministic given its ``rng``:

* :func:`iterative_retrieve` keeps one entity per round (``width=1``); :func:`beam_retrieve` keeps
  ``width`` of them. Each round retrieves every passage that mentions a frontier entity; the entities
  those passages name are *reached*. The next frontier is *chosen* by a rule:
  ``"relations"`` takes the entity the question's next relation names (the fact leaving a frontier
  entity with that relation; one per seed, so a path-finding question is followed from every seed),
  ``"score"`` takes the best-scoring entity not chosen yet, scored by how many retrieved passages
  name it, ties broken by ``rng``. The default follows relations on a path-following question and
  scores on a path-finding one, the two behaviours the chapter contrasts.
* :func:`intersection_scores` is the "database answer": the nodes at exactly ``hops`` facts from every
  seed. It is an upper bound that is told the depth.

The ranking (:meth:`ChainTrace.scores`) lists the entities the retriever chose, by the round it chose
them, then every other entity it reached, by the round it reached them; within a round, by how many
retrieved passages name them. Entities it never reached come last, all tied; ``rank_of`` handles ties.
Ranking chosen entities before merely reached ones follows how an IRCoT-style reader answers: it names
the entities it chose to follow. On a path-following question the answer is the one candidate it
chooses, so it ranks first even when a shorter dead-end chain ended in an earlier round (which the
issue's plain "order reached" would rank above it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from pathfinding._validation import as_csr, check_int, check_node_ids
from pathfinding.errors import InvalidValueError
from pathfinding.synthetic.following import answer_paths, passage_relations, path_relations, relation_phrase
from pathfinding.synthetic.instances import PathFindingInstance
from pathfinding.synthetic.variation import QuestionInstance

__all__ = [
    "ChainTrace",
    "beam_retrieve",
    "intersection_scores",
    "iterative_retrieve",
    "nodes_at_distance",
]


@dataclass(frozen=True)
class ChainTrace:
    """What a chaining retriever did, round by round.

    Attributes
    ----------
    budget : int
        Rounds allowed; ``rounds`` may be fewer if the rule ran out of entities to choose.
    rule : str
        ``"relations"`` or ``"score"``.
    width : int
        Entities chosen per round (per seed under ``"relations"``).
    reached_round : numpy.ndarray of int, shape (n_nodes,)
        Round in which each node was first named by a retrieved passage (0 for the seeds, -1 never).
    chosen : tuple of (int, int)
        ``(round, node)`` for every choice, in the order made.
    passage_round : numpy.ndarray of int, shape (n_passages,)
        Round in which each passage was first retrieved (-1 never).
    frontiers : tuple of tuple of int
        The frontier each round retrieved from (round 1's is the seeds).
    mentions : scipy.sparse.csr_array
        The instance's P, kept to count passages per node.
    """

    budget: int
    rule: str
    width: int
    reached_round: np.ndarray
    chosen: tuple
    passage_round: np.ndarray
    frontiers: tuple
    mentions: object

    @property
    def rounds(self) -> int:
        """Rounds actually run."""
        return len(self.frontiers)

    def scores(self, after: int | None = None) -> np.ndarray:
        """Node scores that order nodes as the retriever would rank them after ``after`` rounds.

        Parameters
        ----------
        after : int, optional
            Use only what was retrieved and chosen in rounds ``1..after`` (default: every round).

        Returns
        -------
        numpy.ndarray of float64, shape (n_nodes,)
            Chosen entities first (earlier rounds higher, then more passages), then reached ones by
            round and passage count, then 0 for every node not reached.
        """
        k = self.rounds if after is None else check_int("after", after, low=0, high=self.rounds)
        retrieved = ((self.passage_round >= 1) & (self.passage_round <= k)).astype(np.float64)
        counts = self.mentions @ retrieved
        rr = self.reached_round
        reached = (rr >= 0) & (rr <= k)
        # One round earlier outweighs any passage count; being chosen outweighs any round.
        per_round = float(self.mentions.shape[1] + 1)
        chosen_bonus = per_round * (self.budget + 2)
        out = np.where(reached, per_round * (self.budget + 1 - rr) + counts, 0.0)
        for rnd, node in self.chosen:
            if rnd <= k:
                # Entities chosen in the same round tie, up to their passage counts.
                out[node] = chosen_bonus + per_round * (self.budget + 1 - rnd) + counts[node]
        return out

    def round_table(self, inst: PathFindingInstance) -> list[dict]:
        """One dict per round: the frontier, what was retrieved and reached, what was chosen, and where
        the answer stands (reached yet, and its rank among the candidates) after the round."""
        from pathfinding.core.scoring import rank_of

        names = inst.node_names
        rows = []
        for k, frontier in enumerate(self.frontiers, start=1):
            rows.append(
                {
                    "round": k,
                    "frontier": [names[v] for v in frontier],
                    "passages": int(np.sum(self.passage_round == k)),
                    "newly_reached": int(np.sum(self.reached_round == k)),
                    "chosen": [names[v] for rnd, v in self.chosen if rnd == k],
                    "answer_reached": self.reached(inst.answer, after=k),
                    "answer_rank": rank_of(self.scores(after=k), inst.answer, inst.candidates),
                }
            )
        return rows

    def reached(self, node: int, after: int | None = None) -> bool:
        """Whether ``node`` was named by a passage retrieved in rounds ``1..after`` (or is a seed)."""
        k = self.rounds if after is None else after
        return bool(0 <= self.reached_round[node] <= k)


def _rule(inst, rule):
    if rule is None:
        return "relations" if isinstance(inst, QuestionInstance) and inst.kind == "following" else "score"
    if rule not in ("relations", "score"):
        raise InvalidValueError(f"rule must be 'relations', 'score' or None, got {rule!r}")
    return rule


def beam_retrieve(
    inst: PathFindingInstance, *, width: int = 4, budget: int | None = None, rule=None, rng=None
) -> ChainTrace:
    """Chain lookups from the seeds, keeping ``width`` entities per round.

    Parameters
    ----------
    inst : PathFindingInstance
    width : int, default 4
        Entities chosen per round (per seed under the ``"relations"`` rule).
    budget : int, optional
        Retrieval rounds (``1..100``). Default: as many as the question names relations in total
        (``hops`` for a path-following question, the sum of the seeds' depths for a path-finding one).
    rule : {"relations", "score"}, optional
        How the next entities are chosen (see the module docstring). Default: ``"relations"`` on a
        path-following :class:`~pathfinding.synthetic.variation.QuestionInstance`, ``"score"`` otherwise.
    rng : None, int or numpy.random.Generator
        Breaks ties between equally good choices.

    Returns
    -------
    ChainTrace

    Raises
    ------
    TypeError, ValueError
        For a bad width, budget or rule, naming it.

    Examples
    --------
    On the meet-node toy one round reaches the shared node a from both seeds, so it scores best:

    >>> from pathfinding.core.scoring import rank_of
    >>> from pathfinding.synthetic.toy import meet_node_toy
    >>> toy = meet_node_toy()
    >>> trace = beam_retrieve(toy, width=1, budget=1, rng=0)
    >>> trace.chosen, rank_of(trace.scores(), toy.answer, toy.candidates)
    (((1, 2),), 1.0)
    """
    width = check_int("width", width, low=1, high=10**6)
    rule = _rule(inst, rule)
    rels = path_relations(inst) if rule == "relations" else None
    if budget is None:
        budget = sum(len(p) - 1 for p in answer_paths(inst))
    budget = check_int("budget", budget, low=1, high=100)
    rng = np.random.default_rng(rng)
    P = inst.mentions
    # Plain lists: this loop touches single elements, where numpy scalars are slow.
    indptr, indices = P.indptr.tolist(), P.indices.tolist()
    facts = inst.facts.tolist()
    relation = passage_relations(inst) if rule == "relations" else None
    n = inst.n_nodes
    reached_round = [-1] * n
    for s in inst.seeds.tolist():
        reached_round[s] = 0
    passage_round = [-1] * inst.n_passages
    counts = np.zeros(n, dtype=np.int64)
    is_chosen = [False] * n
    chosen: list[tuple[int, int]] = []
    frontiers = []
    # Under "relations" each seed keeps its own track of frontier entities.
    tracks = [[s] for s in inst.seeds.tolist()]
    frontier = inst.seeds.tolist()
    for rnd in range(1, budget + 1):
        if not frontier:
            break
        frontiers.append(tuple(frontier))
        for u in frontier:
            for j in indices[indptr[u] : indptr[u + 1]]:
                if passage_round[j] < 0:
                    passage_round[j] = rnd
                    for v in facts[j]:
                        counts[v] += 1
                        if reached_round[v] < 0:
                            reached_round[v] = rnd
        if rule == "relations":
            new_tracks, frontier = [], []
            for t, track in enumerate(tracks):
                if rnd > len(rels[t]):
                    new_tracks.append([])
                    continue
                want = rels[t][rnd - 1]
                nxt = []
                for u in track:
                    for j in indices[indptr[u] : indptr[u + 1]]:
                        a, b = facts[j]
                        forward = a == u
                        if relation_phrase(relation[j], forward=forward) == want:
                            nxt.append(b if forward else a)
                nxt = list(dict.fromkeys(nxt))
                if len(nxt) > width:
                    nxt = [nxt[i] for i in np.sort(rng.choice(len(nxt), size=width, replace=False))]
                new_tracks.append(nxt)
                frontier += nxt
            tracks = new_tracks
            frontier = list(dict.fromkeys(frontier))
            for v in frontier:
                if not is_chosen[v]:
                    is_chosen[v] = True
                    chosen.append((rnd, v))
        else:
            pool = [v for v in range(n) if reached_round[v] > 0 and not is_chosen[v]]  # seeds are known
            if not pool:
                frontier = []
                continue
            pool = np.asarray(pool)
            # best count first; a random key breaks ties
            order = np.lexsort((rng.random(pool.size), -counts[pool]))
            frontier = pool[order[:width]].tolist()
            for v in frontier:
                is_chosen[v] = True
                chosen.append((rnd, v))
    return ChainTrace(
        budget=budget,
        rule=rule,
        width=width,
        reached_round=np.asarray(reached_round, dtype=np.int64),
        chosen=tuple(chosen),
        passage_round=np.asarray(passage_round, dtype=np.int64),
        frontiers=tuple(frontiers),
        mentions=P,
    )


def iterative_retrieve(
    inst: PathFindingInstance, *, budget: int | None = None, rule=None, rng=None
) -> ChainTrace:
    """IRCoT's shape: retrieve for the current entity, choose one next entity, repeat.

    The same as :func:`beam_retrieve` with ``width=1``; see there for the parameters.

    Examples
    --------
    On a path-following question the relations lead straight to the answer, one round per hop:

    >>> from pathfinding.synthetic.following import make_following_instance
    >>> from pathfinding.core.scoring import rank_of
    >>> inst = make_following_instance(3, rng=1)
    >>> trace = iterative_retrieve(inst, rng=0)
    >>> [node for _, node in trace.chosen] == list(inst.paths[0][1:])
    True
    >>> rank_of(trace.scores(), inst.answer, inst.candidates)
    1.0
    """
    return beam_retrieve(inst, width=1, budget=budget, rule=rule, rng=rng)


def intersection_scores(inst: PathFindingInstance, hops=None) -> np.ndarray:
    """1 for every node at exactly ``hops`` facts from every seed, 0 elsewhere.

    Parameters
    ----------
    inst : PathFindingInstance
    hops : int or sequence of int, optional
        One depth for all seeds or one per seed (default: the instance's own ``hops``, i.e. the
        upper bound that is told the answer's depth).

    Returns
    -------
    numpy.ndarray of float64, shape (n_nodes,)

    See Also
    --------
    pathfinding.core.reference.nodes_at_distance_bfs : the same set by plain breadth-first search.

    Examples
    --------
    >>> from pathfinding.synthetic.instances import make_instance
    >>> inst = make_instance(2, rng=0)
    >>> np.flatnonzero(intersection_scores(inst)).tolist() == [inst.answer]
    True
    """
    hops = inst.hops if hops is None else hops
    depths = _depths(hops, len(inst.seeds))
    # An instance's graph is symmetric and validated when built, so go straight to the search.
    indptr, indices = inst.graph.indptr.tolist(), inst.graph.indices.tolist()
    keep = np.ones(inst.n_nodes, dtype=bool)
    for s, h in zip(inst.seeds.tolist(), depths, strict=True):
        keep[~_bfs_layer(indptr, indices, s, h)] = False
    return keep.astype(np.float64)


def _depths(hops, n_seeds: int) -> list[int]:
    if isinstance(hops, Sequence | np.ndarray) and not isinstance(hops, str):
        if len(hops) != n_seeds:
            raise InvalidValueError(f"hops must be one depth or one per seed ({n_seeds}), got {hops!r}")
        return [check_int(f"hops[{i}]", h, low=0, high=10**6) for i, h in enumerate(hops)]
    return [check_int("hops", hops, low=0, high=10**6)] * n_seeds


def nodes_at_distance(graph, seeds, hops) -> np.ndarray:
    """Boolean mask of the nodes at exactly ``hops`` edges from every seed (edges in either direction).

    Parameters
    ----------
    graph : sparse matrix or array_like, shape (n, n)
    seeds : array_like of int
    hops : int or sequence of int
        One depth for all seeds or one per seed (``>= 0``).

    Returns
    -------
    numpy.ndarray of bool, shape (n,)

    See Also
    --------
    pathfinding.core.reference.nodes_at_distance_bfs : the same set by plain breadth-first search.
    """
    A = as_csr("graph", graph)
    if A.shape[0] != A.shape[1]:
        raise InvalidValueError(f"graph must be square, got shape {A.shape}")
    seeds = check_node_ids("seeds", seeds, A.shape[0])
    depths = _depths(hops, len(seeds))
    A = ((A != 0) + (A != 0).T).tocsr()  # undirected, unweighted
    indptr, indices = A.indptr.tolist(), A.indices.tolist()
    keep = np.ones(A.shape[0], dtype=bool)
    for s, h in zip(seeds.tolist(), depths, strict=True):
        keep[~_bfs_layer(indptr, indices, s, h)] = False
    return keep


def _bfs_layer(indptr: list, indices: list, source: int, depth: int) -> np.ndarray:
    """Boolean mask of the nodes exactly ``depth`` hops from ``source`` (level-synchronous BFS on CSR)."""
    n = len(indptr) - 1
    seen = [False] * n
    seen[source] = True
    frontier = [source]
    for _ in range(depth):
        nxt = []
        for u in frontier:
            for v in indices[indptr[u] : indptr[u + 1]]:
                if not seen[v]:
                    seen[v] = True
                    nxt.append(v)
        frontier = nxt
        if not frontier:
            break
    out = np.zeros(n, dtype=bool)
    out[frontier] = True
    return out
