"""Step 9: the path-finding instance generator (the synthetic side of path-finding vs path-following).

A path-finding question names several entities (the *seeds*) whose answer is the one entity that all of
them reach, while no single passage mentions two seeds together. This module builds such instances as
a tiny knowledge graph plus its passages, in the shape of the chapter's synthetic experiment:

* every seed starts ``distractors`` chains of ``hops`` facts that end in a dead end;
* every seed starts one *bridge* chain of ``hops`` facts that ends at the shared answer;
* one passage per fact ("Ines Ballard mentored Oskar Lind."), so each passage mentions two nodes;
* node ids are permuted at random, so nothing can win by index order.

The answer is then the only node at distance exactly ``hops`` from every seed, and the candidates are
the answer plus every dead end (``seeds * distractors + 1`` of them, 17 by default).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import scipy.sparse as sp

from pathfinding._validation import check_int
from pathfinding.core.specificity import node_specificity
from pathfinding.errors import InvalidValueError

__all__ = ["PathFindingInstance", "check_hops", "entity_names", "instance_from_facts", "make_instance"]

FIRST_NAMES = (
    "Ines", "Oskar", "Mara", "Tobias", "Lena", "Farid", "Greta", "Hugo", "Anouk", "Pavel",
    "Selma", "Ruben", "Noor", "Emil", "Ilse", "Caspar", "Yara", "Jonas", "Vera", "Milan",
    "Agnes", "Dario", "Freya", "Kasimir", "Lotte", "Nils", "Odile", "Quentin", "Rosa", "Stellan",
    "Thea", "Ulrich", "Wanda", "Xaver", "Zofia", "Bruno", "Clara", "Elias", "Hanna", "Ivo",
)  # fmt: skip
LAST_NAMES = (
    "Ballard", "Lind", "Okafor", "Varga", "Moreau", "Castell", "Hale", "Ishida", "Brandt", "Quist",
    "Novak", "Sauer", "Tanaka", "Albers", "Rocha", "Weller", "Dumas", "Kerr", "Lunde", "Pires",
    "Falk", "Gruber", "Hollis", "Jansen", "Kowal", "Marsh", "Nyberg", "Orsini", "Petrov", "Reyes",
    "Sandoval", "Thorne", "Udall", "Vance", "Winter", "Yilmaz", "Zeller", "Abbott", "Berg", "Crane",
)  # fmt: skip
RELATIONS = (
    "mentored", "married", "hired", "interviewed", "painted", "wrote to", "sued", "taught",
    "funded", "befriended", "photographed", "succeeded", "recruited", "visited", "replaced",
    "coached",
)  # fmt: skip

# Rough bytes per fact once built: passage string, two names, graph and P entries.
_BYTES_PER_FACT = 400


@dataclass(frozen=True, eq=False)
class PathFindingInstance:
    """A generated knowledge graph with its passages and the path-finding query over it.

    Attributes
    ----------
    graph : scipy.sparse.csr_array, shape (n_nodes, n_nodes)
        Symmetric adjacency with weight 1 per fact and no self-loops.
    mentions : scipy.sparse.csr_array, shape (n_nodes, n_passages)
        The chapter's matrix P: ``mentions[i, j]`` is how many times node i appears in passage j.
    passages : list of str
        One readable sentence per fact.
    facts : numpy.ndarray of int, shape (n_passages, 2)
        The two node ids that passage j mentions (subject, object).
    node_names : list of str
        A readable name per node id.
    seeds : numpy.ndarray of int
        The query nodes R_q.
    answer : int
        The node every seed reaches at its hop depth.
    candidates : numpy.ndarray of int
        The answer and every dead end (and the decoy, if any), in random order.
    hops : int or tuple of int
        Hop depth from every seed to the answer (a tuple when the seeds' depths differ).
    """

    graph: sp.csr_array
    mentions: sp.csr_array
    passages: list[str]
    facts: np.ndarray
    node_names: list[str]
    seeds: np.ndarray
    answer: int
    candidates: np.ndarray
    hops: int | tuple[int, ...]

    @property
    def n_nodes(self) -> int:
        """Number of nodes in the graph."""
        return self.graph.shape[0]

    @property
    def n_passages(self) -> int:
        """Number of passages (one per fact)."""
        return self.mentions.shape[1]

    @cached_property
    def prepared(self):
        """The graph laid out for the walk (a :class:`~pathfinding.core.prepared.PPRGraph`), once per
        instance: every ranker of a trial shares it."""
        # imported here: generating instances must not load the compiled solver
        from pathfinding.core.prepared import prepare_graph

        return prepare_graph(self.graph)

    @cached_property
    def specificity(self) -> np.ndarray:
        """Node specificity s_i = 1/|P_i| from this instance's passages."""
        return node_specificity(self.mentions)


def instance_from_facts(
    facts,
    node_names: Sequence[str],
    passages: Sequence[str],
    *,
    seeds,
    answer: int,
    candidates,
    hops,
) -> PathFindingInstance:
    """Build a :class:`PathFindingInstance` from a list of (subject, object) facts.

    Each fact becomes one passage and one undirected edge of weight 1; the node x passage matrix P
    counts each endpoint once. Used by :func:`make_instance` and by the named toy graphs.

    Parameters
    ----------
    facts : array_like of int, shape (n_facts, 2)
        Node ids of the two entities each passage mentions.
    node_names, passages : sequence of str
        One name per node, one sentence per fact.
    seeds, answer, candidates, hops
        Stored as given (see :class:`PathFindingInstance`).

    Returns
    -------
    PathFindingInstance
    """
    facts = np.asarray(facts, dtype=np.int64).reshape(-1, 2)
    n_nodes = len(node_names)
    n_facts = facts.shape[0]
    if len(passages) != n_facts:
        raise InvalidValueError(f"need one passage per fact: {len(passages)} passages, {n_facts} facts")
    if n_facts and (facts.min() < 0 or facts.max() >= n_nodes):
        raise InvalidValueError(f"fact node ids must be in [0, {n_nodes}), got {facts.min()}..{facts.max()}")
    if np.any(facts[:, 0] == facts[:, 1]):
        raise InvalidValueError("a fact must link two different nodes (no self-loops)")
    rows = np.concatenate([facts[:, 0], facts[:, 1]])
    cols = np.concatenate([facts[:, 1], facts[:, 0]])
    graph = sp.csr_array((np.ones(2 * n_facts), (rows, cols)), shape=(n_nodes, n_nodes), dtype=np.float64)
    graph.sum_duplicates()
    passage_ids = np.concatenate([np.arange(n_facts), np.arange(n_facts)])
    mentions = sp.csr_array(
        (np.ones(2 * n_facts), (rows, passage_ids)), shape=(n_nodes, n_facts), dtype=np.float64
    )
    mentions.sum_duplicates()
    return PathFindingInstance(
        graph=graph,
        mentions=mentions,
        passages=list(passages),
        facts=facts,
        node_names=list(node_names),
        seeds=np.asarray(seeds, dtype=np.int64),
        answer=int(answer),
        candidates=np.asarray(candidates, dtype=np.int64),
        hops=hops,
    )


def _physical_memory() -> int | None:
    """Bytes of RAM on this machine, or None where ``os.sysconf`` cannot tell (it is absent on Windows).

    Without an answer the size check is skipped: an instance too large for memory then fails with
    Python's own MemoryError instead of our message.
    """
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None


def check_hops(hops, seeds: int) -> tuple[int, ...]:
    """One validated hop depth per seed, from one depth for all or a sequence of ``seeds`` depths."""
    if isinstance(hops, Sequence) and not isinstance(hops, str):
        if len(hops) != seeds:
            raise InvalidValueError(f"hops must be an integer or one depth per seed ({seeds}), got {hops!r}")
        return tuple(check_int(f"hops[{i}]", h, low=1, high=10**6) for i, h in enumerate(hops))
    return (check_int("hops", hops, low=1, high=10**6),) * seeds


def _count_facts(depths, distractors, bridge_branching, decoy_hops, hub_passages) -> int:
    n = 0
    for h in depths:
        n += distractors * h + h + (h - 1) * bridge_branching
        n += decoy_hops or 0
    return n + hub_passages


def entity_names(n: int, rng: np.random.Generator) -> list[str]:
    """Draw ``n`` distinct readable names; past 1,600 a number keeps them distinct."""
    n_combos = len(FIRST_NAMES) * len(LAST_NAMES)
    picks = rng.choice(n_combos, size=min(n, n_combos), replace=False)
    if n > n_combos:
        picks = np.concatenate([picks, rng.integers(n_combos, size=n - n_combos)])
    names = [f"{FIRST_NAMES[k // len(LAST_NAMES)]} {LAST_NAMES[k % len(LAST_NAMES)]}" for k in picks]
    if n > n_combos:
        names = names[:n_combos] + [f"{nm} {i}" for i, nm in enumerate(names[n_combos:], start=2)]
    return names


def make_instance(
    hops=2,
    *,
    distractors: int = 8,
    seeds: int = 2,
    rng=None,
    bridge_branching: int = 0,
    decoy_hops: int | None = None,
    hub_passages: int = 0,
) -> PathFindingInstance:
    """Generate a path-finding instance: seeds, distractor chains and one shared answer.

    Parameters
    ----------
    hops : int or sequence of int, default 2
        Facts between each seed and the answer (``>= 1``). A sequence gives one depth per seed;
        each seed's distractor chains then have that seed's depth.
    distractors : int, default 8
        Dead-end chains per seed (``>= 0``).
    seeds : int, default 2
        Number of query entities (``>= 2``).
    rng : None, int, numpy.random.Generator or SeedSequence
        Source of randomness: names, relations, node-id permutation, passage and candidate order.
    bridge_branching : int, default 0
        Extra leaf neighbours hung on every interior node of every bridge chain, so the walk's mass is
        diluted on the way to the answer (no effect at ``hops=1``: bridges have no interior node).
        The leaves are not candidates.
    decoy_hops : int, optional
        If given, add a decoy node reached from every seed by its own chain of ``decoy_hops`` facts,
        shorter than the bridge (``1 <= decoy_hops < min(hops)``). The decoy is a candidate.
    hub_passages : int, default 0
        Extra passages that mention the first seed with a fresh leaf node each, making that seed a
        hub found in many passages (so ``|P_i|`` differs between seeds). The leaves are not candidates.

    Returns
    -------
    PathFindingInstance

    Raises
    ------
    TypeError
        If a count is not an integer (booleans included).
    ValueError
        If a count is out of range, or the instance would not fit in this machine's memory.

    Notes
    -----
    With the defaults every seed has degree ``distractors + 1`` at ``hops=1`` (9), every interior
    node degree 2, every dead end degree 1, and the answer degree ``seeds``. The answer is the only
    node at distance exactly ``hops`` from every seed; no passage mentions two seeds.

    Examples
    --------
    >>> inst = make_instance(2, rng=0)
    >>> inst.n_nodes, inst.n_passages, len(inst.candidates)
    (37, 36, 17)
    >>> inst.passages[0]
    'Selma Crane painted Nils Hollis.'
    """
    seeds = check_int("seeds", seeds, low=2, high=10**6)
    depths = check_hops(hops, seeds)
    distractors = check_int("distractors", distractors, low=0, high=10**9)
    bridge_branching = check_int("bridge_branching", bridge_branching, low=0, high=10**9)
    hub_passages = check_int("hub_passages", hub_passages, low=0, high=10**12)
    if decoy_hops is not None:
        decoy_hops = check_int("decoy_hops", decoy_hops, low=1, high=min(depths) - 1)
    n_facts = _count_facts(depths, distractors, bridge_branching, decoy_hops, hub_passages)
    need = n_facts * _BYTES_PER_FACT
    have = _physical_memory()
    if have is not None and need > have // 2:
        raise InvalidValueError(
            f"make_instance(hops={hops!r}, distractors={distractors}, seeds={seeds}, "
            f"bridge_branching={bridge_branching}, hub_passages={hub_passages}) would build "
            f"{n_facts:,} facts (~{need / 2**30:.1f} GiB), more than half of this machine's "
            f"{have / 2**30:.1f} GiB of memory"
        )
    rng = np.random.default_rng(rng)

    # Build in logical ids (seeds first, answer next), then permute.
    edges: list[tuple[int, int]] = []
    candidates: list[int] = []
    next_id = seeds + 1
    answer = seeds

    def chain(start: int, length: int, end: int | None = None, branch: int = 0) -> int:
        nonlocal next_id
        node = start
        for step in range(length):
            if step == length - 1 and end is not None:
                nxt = end
            else:
                nxt = next_id
                next_id += 1
            edges.append((node, nxt))
            if step < length - 1:
                for _ in range(branch):
                    edges.append((nxt, next_id))
                    next_id += 1
            node = nxt
        return node

    for s, h in enumerate(depths):
        for _ in range(distractors):
            candidates.append(chain(s, h))
        chain(s, h, end=answer, branch=bridge_branching)
    candidates.append(answer)
    if decoy_hops is not None:
        decoy = next_id
        next_id += 1
        for s in range(seeds):
            chain(s, decoy_hops, end=decoy)
        candidates.append(decoy)
    for _ in range(hub_passages):
        edges.append((0, next_id))
        next_id += 1
    n_nodes = next_id

    names = entity_names(n_nodes, rng)
    relations = rng.integers(len(RELATIONS), size=len(edges))
    perm = rng.permutation(n_nodes)  # logical id -> public id
    order = rng.permutation(len(edges))  # passage position -> logical fact
    logical = np.asarray(edges, dtype=np.int64)[order]
    passages = [
        f"{names[u]} {RELATIONS[relations[k]]} {names[v]}." for k, (u, v) in zip(order, logical, strict=True)
    ]
    public_names = [""] * n_nodes
    for k, name in enumerate(names):
        public_names[perm[k]] = name
    cand = perm[np.asarray(candidates, dtype=np.int64)]
    return instance_from_facts(
        perm[logical],
        public_names,
        passages,
        seeds=perm[:seeds],
        answer=int(perm[answer]),
        candidates=rng.permutation(cand),
        hops=depths[0] if len(set(depths)) == 1 else depths,
    )
