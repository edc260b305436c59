"""Structural variation: path-finding instances whose trials sample graphs, not relabellings.

:func:`~pathfinding.synthetic.instances.make_instance` draws only names, relations and a node-id
permutation, so
every trial at one depth is the same graph. :func:`make_varied_instance` builds the same shape and then,
opt-in, changes its structure at random:

* ``length_jitter``: each distractor chain gets a random length in ``hops ± length_jitter`` (at least 1);
* ``noise_facts``: extra facts between nodes of two different distractor chains;
* ``shared_nodes``: pairs of nodes from two different distractor chains merged into one node, so chains
  share it (a second meet is possible when both sit at the answer's depth; two facts may then link the
  same two entities, and the graph gives that pair weight 2);
* ``extra_passages``: passages naming a random node and a fresh leaf, so nodes are in varying numbers
  of passages.

The bridge chains are never touched: the answer stays at exactly ``hops`` from every seed, and no
passage names two seeds. With every knob at 0 the result equals ``make_instance`` byte for byte (same
names, passages, ids and candidates from the same rng), which ``tests/test_variation.py`` checks.

Every instance built here is a :class:`QuestionInstance`: it also records each passage's relation and,
per seed, the path of node ids to the answer, which the question text and the chaining retrievers read.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from pathfinding._validation import check_int
from pathfinding.errors import InvalidValueError
from pathfinding.synthetic.instances import (
    RELATIONS,
    PathFindingInstance,
    check_hops,
    entity_names,
    instance_from_facts,
)

__all__ = ["GraphBuilder", "QuestionInstance", "check_variation", "make_varied_instance", "publish", "vary"]

_MAX_TRIES = 200  # rejection sampling for noise facts and merges; tiny graphs may not have room


@dataclass(frozen=True, eq=False)
class QuestionInstance(PathFindingInstance):
    """A :class:`~pathfinding.synthetic.instances.PathFindingInstance` that also knows its question's
    relations.

    Attributes
    ----------
    relations : tuple of str
        The relation of each passage, in passage order (passage j reads
        ``f"{node_names[s]} {relations[j]} {node_names[o]}."`` with ``(s, o) = facts[j]``).
    paths : tuple of tuple of int
        Per seed, the node ids from the seed to the answer along its bridge (``hops + 1`` nodes).
    kind : {"finding", "following"}
        ``"finding"``: several seeds whose bridges meet at the answer; ``"following"``: one seed, and
        the question's relations single out the answer's chain hop by hop.
    """

    relations: tuple[str, ...]
    paths: tuple[tuple[int, ...], ...]
    kind: str


class GraphBuilder:
    """Logical graph under construction: seeds are ids 0..S-1, the answer is S."""

    def __init__(self, n_seeds: int):
        self.n_seeds = n_seeds
        self.answer = n_seeds
        self.next_id = n_seeds + 1
        self.edges: list[tuple[int, int]] = []
        self.candidates: list[int] = []
        self.chains: list[list[int]] = []  # distractor chains' nodes, seed excluded
        self.paths: list[tuple[int, ...]] = []
        self.path_edges: list[list[int]] = []  # per seed, edge indices of its bridge, in order

    def keeps_depths(self, edges) -> bool:
        """Whether every seed still reaches the answer in exactly its own depth over ``edges``.

        A merge or noise fact can give a seed a shortcut through another seed whose bridge is much
        shorter (depths 1 and 4: seed B -> merged node -> seed A -> answer is 3 facts).
        """
        adjacent: dict[int, list[int]] = {}
        for u, v in edges:
            adjacent.setdefault(u, []).append(v)
            adjacent.setdefault(v, []).append(u)
        for seed, depth in enumerate(self.depths):
            distance = {seed: 0}
            frontier = [seed]
            while frontier and self.answer not in distance:
                nxt = []
                for u in frontier:
                    for v in adjacent.get(u, ()):
                        if v not in distance:
                            distance[v] = distance[u] + 1
                            nxt.append(v)
                frontier = nxt
            if distance.get(self.answer) != depth:
                return False
        return True

    def chain(self, start: int, length: int, end: int | None = None) -> list[int]:
        nodes, node, idx = [], start, []
        for step in range(length):
            if step == length - 1 and end is not None:
                nxt = end
            else:
                nxt = self.next_id
                self.next_id += 1
            idx.append(len(self.edges))
            self.edges.append((node, nxt))
            nodes.append(nxt)
            node = nxt
        self._last_edges = idx
        return nodes

    def build(self, depths, distractors: int, jitter: int, rng) -> None:
        # Same order of construction as make_instance, so zero variation reproduces it exactly.
        self.depths = tuple(depths)
        for s, h in enumerate(depths):
            for _ in range(distractors):
                length = h if jitter == 0 else max(1, h + int(rng.integers(-jitter, jitter + 1)))
                nodes = self.chain(s, length)
                self.chains.append(nodes)
                self.candidates.append(nodes[-1])
            bridge = self.chain(s, h, end=self.answer)
            self.paths.append((s, *bridge))
            self.path_edges.append(self._last_edges)
        self.candidates.append(self.answer)

    def _pool(self) -> list[tuple[int, int]]:
        return [(c, v) for c, nodes in enumerate(self.chains) for v in nodes]

    def merge(self, k: int, rng) -> None:
        """Merge ``k`` pairs of nodes from different distractor chains (never two adjacent nodes).

        Two facts may then link the same pair of entities (two chains from one seed merged at their
        first node), as two passages about one pair do; the graph counts such a pair twice.
        """
        pool = self._pool()
        for _ in range(k):
            for _ in range(_MAX_TRIES if len(pool) >= 2 else 0):
                i, j = rng.choice(len(pool), size=2, replace=False)
                (ca, a), (cb, b) = pool[i], pool[j]
                if ca == cb or a == b:
                    continue
                keep, drop = min(a, b), max(a, b)
                merged = [(keep if u == drop else u, keep if v == drop else v) for u, v in self.edges]
                if any(u == v for u, v in merged) or not self.keeps_depths(merged):
                    continue
                self.edges = merged
                self.candidates = list(dict.fromkeys(keep if c == drop else c for c in self.candidates))
                self.chains = [[keep if v == drop else v for v in nodes] for nodes in self.chains]
                pool = [(c, keep if v == drop else v) for c, v in pool]
                break
            else:
                raise InvalidValueError(f"shared_nodes={k}: found no pair of chain nodes left to merge")
        # Close the id gaps left by merged nodes; order is kept, so seeds and answer keep their ids.
        used = sorted({u for e in self.edges for u in e} | set(range(self.n_seeds + 1)))
        new = {old: i for i, old in enumerate(used)}
        self.edges = [(new[u], new[v]) for u, v in self.edges]
        self.candidates = [new[c] for c in self.candidates]
        self.chains = [[new[v] for v in nodes] for nodes in self.chains]
        self.paths = [tuple(new[v] for v in p) for p in self.paths]
        self.next_id = len(used)

    def noise(self, m: int, rng) -> None:
        """Add ``m`` facts between nodes of two different distractor chains."""
        pool = self._pool()
        have = {(min(u, v), max(u, v)) for u, v in self.edges}
        for _ in range(m):
            for _ in range(_MAX_TRIES if len(pool) >= 2 else 0):
                i, j = rng.choice(len(pool), size=2, replace=False)
                (ca, a), (cb, b) = pool[i], pool[j]
                key = (min(a, b), max(a, b))
                if ca == cb or a == b or key in have or not self.keeps_depths([*self.edges, (a, b)]):
                    continue
                have.add(key)
                self.edges.append((a, b))
                break
            else:
                raise InvalidValueError(
                    f"noise_facts={m}: found no pair of distractor chain nodes left to link"
                )

    def leaves(self, e: int, rng) -> None:
        """Add ``e`` passages, each naming a random existing node and a fresh leaf."""
        for node in rng.integers(self.next_id, size=e):
            self.edges.append((int(node), self.next_id))
            self.next_id += 1


def publish(builder: GraphBuilder, rng, depths, *, kind: str, fix_relations=None) -> QuestionInstance:
    """Name, relate and permute a logical graph, drawing from ``rng`` in make_instance's order."""
    edges, n_nodes = builder.edges, builder.next_id
    names = entity_names(n_nodes, rng)
    relations = rng.integers(len(RELATIONS), size=len(edges))
    if fix_relations is not None:
        relations = fix_relations(relations)
    perm = rng.permutation(n_nodes)
    order = rng.permutation(len(edges))
    logical = np.asarray(edges, dtype=np.int64)[order]
    rel = [RELATIONS[relations[k]] for k in order]
    passages = [f"{names[u]} {r} {names[v]}." for r, (u, v) in zip(rel, logical, strict=True)]
    public_names = [""] * n_nodes
    for k, name in enumerate(names):
        public_names[perm[k]] = name
    cand = perm[np.asarray(builder.candidates, dtype=np.int64)]
    base = instance_from_facts(
        perm[logical],
        public_names,
        passages,
        seeds=perm[: builder.n_seeds],
        answer=int(perm[builder.answer]),
        candidates=rng.permutation(cand),
        hops=depths[0] if len(set(depths)) == 1 else tuple(depths),
    )
    return QuestionInstance(
        **{f.name: getattr(base, f.name) for f in fields(PathFindingInstance)},
        relations=tuple(rel),
        paths=tuple(tuple(int(perm[v]) for v in p) for p in builder.paths),
        kind=kind,
    )


def check_variation(length_jitter, noise_facts, shared_nodes, extra_passages) -> tuple[int, int, int, int]:
    """Validate the four variation knobs (shared by both instance shapes)."""
    return (
        check_int("length_jitter", length_jitter, low=0, high=50),
        check_int("noise_facts", noise_facts, low=0, high=10**5),
        check_int("shared_nodes", shared_nodes, low=0, high=10**5),
        check_int("extra_passages", extra_passages, low=0, high=10**6),
    )


def vary(builder: GraphBuilder, rng, jitter_free_knobs: tuple[int, int, int]) -> None:
    """Apply merges, then noise facts, then extra leaf passages (each draws from rng only if > 0)."""
    shared, noise, extra = jitter_free_knobs
    if shared:
        builder.merge(shared, rng)
    if noise:
        builder.noise(noise, rng)
    if extra:
        builder.leaves(extra, rng)


def make_varied_instance(
    hops=2,
    *,
    distractors: int = 8,
    seeds: int = 2,
    rng=None,
    length_jitter: int = 0,
    noise_facts: int = 0,
    shared_nodes: int = 0,
    extra_passages: int = 0,
) -> QuestionInstance:
    """Generate a path-finding instance whose structure varies from trial to trial.

    Parameters
    ----------
    hops : int or sequence of int, default 2
        Facts between each seed and the answer (``>= 1``), or one depth per seed.
    distractors : int, default 8
        Dead-end chains per seed (``>= 0``).
    seeds : int, default 2
        Number of query entities (``>= 2``).
    rng : None, int, numpy.random.Generator or SeedSequence
        The one source of randomness (structure first, then names, relations and permutations).
    length_jitter : int, default 0
        Each distractor chain's length is drawn uniformly from ``hops - length_jitter .. hops +
        length_jitter`` (at least 1), so dead ends sit at varying depths.
    noise_facts : int, default 0
        Extra facts, each linking two nodes of two different distractor chains.
    shared_nodes : int, default 0
        Pairs of nodes from two different distractor chains merged into one node.
    extra_passages : int, default 0
        Extra passages, each naming a uniformly random node and a fresh leaf (not a candidate).

    Returns
    -------
    QuestionInstance
        ``kind == "finding"``. Candidates are the answer and every distractor chain's end node.

    Raises
    ------
    TypeError
        If a count is not an integer.
    ValueError
        If a count is out of range, or the graph has no room for the requested noise facts or merges.

    Notes
    -----
    The bridges are built before any variation and never changed; noise facts and merges only join
    distractor-chain nodes, so no passage names two seeds, and one that would give a seed a shortcut to
    the answer (through another seed with a shorter bridge) is rejected and redrawn, so each seed
    reaches the answer in exactly its ``hops`` facts. Other nodes may now also sit at the answer's
    depth from every seed (a merge or a noise fact can make a second meet), which is what gives the
    rankers' intervals width.

    Examples
    --------
    >>> from pathfinding.synthetic.instances import make_instance
    >>> make_varied_instance(2, rng=0).passages == make_instance(2, rng=0).passages
    True
    >>> inst = make_varied_instance(2, rng=0, length_jitter=1, noise_facts=4, extra_passages=8)
    >>> inst.n_passages > 36, inst.paths[0][-1] == inst.answer
    (True, True)
    """
    n_seeds = check_int("seeds", seeds, low=2, high=64)
    depths = check_hops(hops, n_seeds)
    if max(depths) > 64:
        raise InvalidValueError(f"hops must be at most 64 here, got {hops!r}")
    distractors = check_int("distractors", distractors, low=0, high=10_000)
    jitter, noise, shared, extra = check_variation(length_jitter, noise_facts, shared_nodes, extra_passages)
    rng = np.random.default_rng(rng)
    builder = GraphBuilder(n_seeds)
    builder.build(depths, distractors, jitter, rng)
    vary(builder, rng, (shared, noise, extra))
    return publish(builder, rng, depths, kind="finding")
