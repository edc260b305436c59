"""Why each passage ranked: its score split by source, the nodes it came through, a path per seed.

Every score the retriever computes is a sum, so it can be split exactly. The walk is split by the
piece of the restart its mass last restarted from (:mod:`pathfinding.core.contributions`): one
piece per seed node an entity linked to, one for the seeds of the best facts together, and in
the hybrid walk one for the passage nodes' BM25 restart. A passage's walk score is its node's mass
(the hybrid walk) or pi . P (v1's walk over phrases), linear in the walk, so its parts are the
pieces' masses there, and they add up to the score (to rounding: the explanation's walk *is* the sum
of the parts, certified within ``walk_error`` of the exact one). The fused ranking's score is the
walk's reciprocal-rank term plus BM25's: BM25's is one part, and the walk's term is shared among the
walk's parts in proportion to their shares of the walk score (a rank does not split, a share does).
BM25 alone splits by question term: each term's column of BM25 scores, times its count.

The nodes a passage came through rank its nodes by the mass each brings it: in v1's walk node i
brings pi_i P_ij; in the hybrid walk (1 - a) pi_i P_ij / d_i flows along the edge from i to the
passage node, and the passage keeps its own restart mass. Each is split by source too, and for the
top nodes the most probable walk from each contributing seed (the path that maximises the product
of the walk's step probabilities) is spelled out, every edge named by its kind: a relation edge by
the relation of a triple behind it, a synonymy edge by its cosine, a passage edge by its count.
"""

from __future__ import annotations

import dataclasses
import heapq
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from numba import njit

from pathfinding.core.contributions import restart_contributions, top_k_contributions
from pathfinding.hipporag.index.model import HippoIndex

__all__ = [
    "KINDS",
    "RELATIONS_KEY",
    "ROUTES",
    "Explanation",
    "PassageExplanation",
    "Part",
    "Piece",
    "Step",
    "Via",
    "bm25_term_parts",
    "most_probable_paths",
    "step_costs",
    "explain_bm25",
    "explain_walk",
    "relation_labels",
    "seed_pieces",
]

ROUTES = {
    "walk": "the walk alone (its parts add up to each score; push's estimate, certified)",
    "v1": "HippoRAG v1's walk over phrases, pi . P (its parts add up to each score)",
    "fused": "the walk fused with BM25 by reciprocal rank (the walk's term shared by its parts' shares)",
    "bm25": "BM25, a part per question term (float32 columns, as bm25s keeps them)",
}
"""How an :class:`Explanation`'s ranking was made (its ``route``), in words."""

KINDS = ("seed", "passage", "bm25", "term")
"""What a part's source is: a seed piece of the walk, the passage nodes' BM25 restart, the BM25 term
of a fused ranking, or one question term of a BM25 ranking."""

RELATIONS_KEY = "relation_labels"
"""Where an index keeps the labels of the edges :func:`relation_labels` has read
(:meth:`~pathfinding.hipporag.index.model.HippoIndex.derived`)."""

TOP_VIA = 3
"""Nodes of a passage whose paths are spelled out (one per contributing seed)."""
PATH_SHARE = 0.01
"""A seed gets a path to a node when it brings at least this share of the node's mass."""


@dataclass(frozen=True)
class Piece:
    """One piece of the restart vector: its name, kind, graph nodes and share of the restart."""

    source: str
    kind: str
    nodes: np.ndarray
    weight: float
    specificity: tuple[float, ...] = ()
    entity: str = ""


@dataclass(frozen=True)
class Part:
    """One source's part of a passage's score (``share`` = part / score)."""

    source: str
    kind: str
    score: float
    share: float
    weight: float = 0.0
    specificity: tuple[float, ...] = ()
    entity: str = ""

    def to_json(self) -> dict:
        out = {"source": self.source, "kind": self.kind, "score": self.score, "share": self.share}
        if self.kind in ("seed", "passage"):
            out["restart_share"] = self.weight
        if self.kind == "term":
            out["count"] = int(self.weight)
        if self.specificity:
            out["specificity"] = list(self.specificity)
        if self.entity:
            out["entity"] = self.entity
        return out


@dataclass(frozen=True)
class Step:
    """One edge of a walk: from, to, its kind (relation, synonymy, passage), label, probability."""

    source: str
    target: str
    kind: str
    label: str
    probability: float

    def to_json(self) -> dict:
        return {
            "from": self.source, "to": self.target, "kind": self.kind, "label": self.label,
            "probability": self.probability,
        }  # fmt: skip


@dataclass(frozen=True)
class Via:
    """A node a passage came through: the mass it brings, its count in the passage, the split of
    that mass by source, and for the top nodes the most probable path from each contributing seed."""

    node: str
    mass: float
    count: float
    parts: dict[str, float]
    paths: dict[str, tuple[Step, ...]] = field(default_factory=dict)

    def to_json(self) -> dict:
        paths = {s: [st.to_json() for st in steps] for s, steps in self.paths.items()}
        return {"node": self.node, "mass": self.mass, "count": self.count, "parts": self.parts, "path": paths}


@dataclass(frozen=True)
class PassageExplanation:
    """One ranked passage: its id, score, the parts that add up to it, and the nodes it came through.

    ``own`` is the passage node's own restart mass in the hybrid walk (what no phrase node brought).
    """

    passage: int
    score: float
    parts: tuple[Part, ...]
    via: tuple[Via, ...] = ()
    own: float = 0.0
    title: str = ""

    def to_json(self) -> dict:
        out = {"parts": [p.to_json() for p in self.parts], "via": [v.to_json() for v in self.via]}
        if self.own:
            out["own_restart"] = self.own
        return out


@dataclass(frozen=True)
class Explanation:
    """The explained ranking: one :class:`PassageExplanation` per ranked passage, best first.

    Attributes
    ----------
    route : str
        ``"walk"`` (the hybrid walk alone), ``"v1"`` (the walk over phrases, pi . P), ``"fused"``
        (the walk's ranking fused with BM25's) or ``"bm25"`` (BM25 alone: no seed, or asked for).
    passages : tuple of PassageExplanation
    walk_error : float
        Certified L1 bound on the distance from the explanation's walk (the sum of its parts) to the
        exact walk; 0 for BM25.
    sum_bound : float
        Bound on |sum of a passage's parts - its score| / score: rounding for the walk routes (the
        score *is* the sum), float32 rounding for BM25 (whose per-term scores are float32, as
        ``bm25s`` keeps them).
    retrieval : Retrieval or None
        What :meth:`~pathfinding.hipporag.retrieval.retrieve.HippoRetriever.retrieve` returns for
        the question (set by ``HippoRetriever.explain``).
    """

    route: str
    passages: tuple[PassageExplanation, ...]
    walk_error: float = 0.0
    sum_bound: float = 0.0
    retrieval: object = None

    @property
    def ids(self) -> np.ndarray:
        return np.asarray([p.passage for p in self.passages], dtype=np.int64)

    @property
    def scores(self) -> np.ndarray:
        return np.asarray([p.score for p in self.passages])


def seed_pieces(index: HippoIndex, weights: np.ndarray, links) -> list[Piece]:
    """The seed pieces of a restart over the phrase nodes (``weights`` after specificity, raw).

    One piece per node a kept entity link chose (named by the entity, the phrase when the entity is
    written otherwise), then one piece holding every other seed (the best facts' nodes).
    """
    total = float(weights.sum())
    named: dict[int, list[str]] = {}
    for lk in links:
        if lk.kept and lk.node >= 0 and weights[lk.node] > 0:
            named.setdefault(int(lk.node), []).append(lk.entity)
    pieces = []
    for node, entities in named.items():
        phrase = index.phrases[node]
        source = " / ".join(dict.fromkeys(entities))
        pieces.append(
            Piece(source, "seed", np.asarray([node]), float(weights[node]) / total,
                  (float(index.specificity[node]),), entity=phrase)
        )  # fmt: skip
    rest = np.setdiff1d(np.flatnonzero(weights > 0), np.fromiter(named, np.int64, len(named)))
    if rest.size:
        more = ", ..." if rest.size > 4 else ""
        label = "fact seeds: " + ", ".join(index.phrases[i] for i in rest[:4]) + more
        spec = tuple(float(index.specificity[i]) for i in rest)
        pieces.append(Piece(label, "seed", rest, float(weights[rest].sum()) / total, spec))
    return pieces


def _components(pieces: Sequence[Piece], restart: np.ndarray) -> sp.csr_array:
    """Rows of the restart vector, one per piece (a piece's nodes keep their restart values)."""
    nodes = [piece.nodes[restart[piece.nodes] > 0] for piece in pieces]
    rows = np.repeat(np.arange(len(pieces)), [x.size for x in nodes])
    cols = np.concatenate(nodes) if nodes else np.zeros(0, np.int64)
    return sp.csr_array((restart[cols], (rows, cols)), shape=(len(pieces), restart.size))


def explain_walk(retriever, plan, k: int, *, lam: float | None = None, bm=None) -> Explanation:
    """Split the walk of one planned retrieval (``retriever._plan``) by source and rank from it.

    ``lam`` set: the fused ranking (``bm`` the BM25 scores). Returns the Explanation; its ranking
    follows the retriever's rules (:func:`~pathfinding.hipporag.retrieval.lexical.top_k`).
    """
    from pathfinding.hipporag.retrieval.lexical import near_tie, ranks_that_matter, top_k

    index, w = retriever.index, plan.weights
    pieces = seed_pieces(index, w, plan.links)
    n = index.n_nodes
    hybrid = retriever.passage_weight > 0
    if hybrid:
        graph = retriever.graph_with_passages()
        restart = retriever.hybrid_restart(plan.question, w)
        if restart[n:].any():
            passage_nodes = np.flatnonzero(restart[n:] > 0) + n
            beta = float(restart[n:].sum() / restart.sum())
            pieces.append(Piece("passages (BM25 restart)", "passage", passage_nodes, beta))
        scale = restart[:n].sum()
        pieces = [dataclasses.replace(p, weight=p.weight * scale) if p.kind == "seed" else p for p in pieces]
    else:
        graph = retriever.phrase_graph()
        restart = w / w.sum()
    comps = _components(pieces, restart)
    if hybrid and lam is None:
        # the ranking of the walk alone is push's, certified: split that very push (exact sums)
        kk = min(k, index.n_passages)
        res = top_k_contributions(
            graph, comps, kk, candidates=np.arange(n, n + index.n_passages),
            restart_prob=retriever.restart_prob, tol=retriever.tol, margin=retriever.tol,
        )  # fmt: skip
        node_parts, walk_error = res.parts, res.error_bound
    else:
        res = restart_contributions(graph, comps, restart_prob=retriever.restart_prob, tol=retriever.tol)
        node_parts, walk_error = res.parts, res.error_bound
    passage_parts = node_parts[:, n:] if hybrid else (sp.csr_array(index.mentions).T @ node_parts.T).T
    walk = passage_parts.sum(axis=0)  # the parts add up to it
    scores = walk if lam is None else retriever.fuse(walk, bm, lam)
    if hybrid and lam is None:
        # push's ranking, certified (its scores are the sums of the parts); else passages within tol
        # of each other (an exact tie, say) are ranked by the retriever's own walk, whose last digits
        # differ from the split's: its order, not theirs.
        ids = res.top - n if res.certified else retriever._walk_top(plan, k)[0]
    else:
        # The split's sum and the retriever's walk are each within their error of the exact walk, so
        # two passages closer than both errors may be ordered apart by their last digits (an exact
        # tie, say): then the retriever's own walk ranks them, as it does in retrieve.
        ranked = walk
        count = 1.0 if hybrid else float(max(index.mentions.max(), 1.0))  # a node's weight in a score
        reach = k if lam is None else ranks_that_matter(scores, k, lam, retriever.fusion_c)
        if near_tie(walk, 2.0 * count * (walk_error + retriever.tol), reach):
            ranked = retriever._walk_scores(plan.question, w)
            if lam is not None:
                scores = retriever.fuse(ranked, bm, lam)
        ids = top_k(ranked if lam is None else scores, k)
    bm_term = None if lam is None else retriever.fuse(np.zeros_like(walk), bm, lam)
    ctx = _WalkContext(retriever, node_parts, hybrid, ids)
    out = []
    for j in ids:
        j = int(j)
        if lam is None:
            parts = [(p, float(passage_parts[r, j])) for r, p in enumerate(pieces)]
        else:
            walk_term = float(scores[j] - bm_term[j])
            share = passage_parts[:, j] / walk[j] if walk[j] > 0 else np.zeros(len(pieces))
            parts = [(p, walk_term * float(share[r])) for r, p in enumerate(pieces)]
            parts.append((Piece("BM25 (fused)", "bm25", np.zeros(0, np.int64), 1.0 - lam), float(bm_term[j])))
        out.append(_passage(j, float(scores[j]), parts, *ctx.via(j, pieces), title=_title(index, j)))
    route = ("fused" if lam is not None else "walk") if hybrid else ("fused" if lam is not None else "v1")
    eps = float(np.finfo(np.float64).eps)
    return Explanation(route, tuple(out), walk_error, len(pieces) * 4 * eps)


def _passage(j, score, parts, via=(), own=0.0, title="") -> PassageExplanation:
    out = []
    for piece, value in parts:
        share = value / score if score > 0 else 0.0
        out.append(
            Part(piece.source, piece.kind, value, share, piece.weight, piece.specificity, piece.entity)
        )
    return PassageExplanation(j, score, tuple(out), tuple(via), own, title)


class _WalkContext:
    """What the nodes-it-came-through of every passage of one explanation share."""

    def __init__(self, retriever, node_parts, hybrid, ids):
        self.index = retriever.index
        self.restart_prob = retriever.restart_prob
        self.hybrid = hybrid
        self.parts = node_parts
        self.A, self.out_weight, self.costs = _adjacency(retriever, hybrid)
        self.P = _mentions_by_passage(self.index)
        self.P_rows, self.relations, self.synonyms = _sorted_csr(self.index)
        self._found: dict[int, dict[int, list[int]]] = {}
        # the nodes each piece needs a path to: the top nodes of every listed passage where the
        # piece brings at least PATH_SHARE of the node's mass (the rule via() applies)
        self.targets: dict[int, set[int]] = {}
        for j in ids:
            col = slice(self.P.indptr[j], self.P.indptr[j + 1])
            nodes = self.P.indices[col]
            mass = self.P.data[col] * self._walk(nodes) / (self.out_weight[nodes] if hybrid else 1.0)
            for i in nodes[np.lexsort((nodes, -mass))[:TOP_VIA]]:
                for r in np.flatnonzero(self.parts[:, i] >= PATH_SHARE * self._walk(i)):
                    self.targets.setdefault(int(r), set()).add(int(i))

    def _walk(self, ids):
        """The walk (the parts' sum) at ``ids``: summed at the nodes read, not at every node."""
        return self.parts[:, ids].sum(axis=0)

    def via(self, j: int, pieces) -> tuple[list[Via], float]:
        """Passage j's nodes, the mass each brings and its split, and (for the top ones) the paths."""
        n = self.index.n_nodes
        col = slice(self.P.indptr[j], self.P.indptr[j + 1])
        nodes, counts = self.P.indices[col], self.P.data[col]
        walk = self._walk(nodes)
        if self.hybrid:
            factor = (1.0 - self.restart_prob) * counts / np.maximum(self.out_weight[nodes], 1e-300)
            own = float(self._walk(n + j) - (factor * walk).sum())
        else:
            factor, own = counts.astype(np.float64), 0.0
        mass = factor * walk
        by_piece = (self.parts[:, nodes] * factor).T.tolist()  # node t's mass from each piece
        out = []
        for rank, t in enumerate(np.lexsort((nodes, -mass))):
            i = int(nodes[t])
            split = {p.source: by_piece[t][r] for r, p in enumerate(pieces)}
            paths = {}
            if rank < TOP_VIA and mass[t] > 0:
                for r, p in enumerate(pieces):
                    if p.kind == "seed" and split[p.source] >= PATH_SHARE * mass[t]:
                        nodes_on = self._paths(r, p).get(i)
                        if nodes_on is not None:
                            paths[p.source] = self._steps(nodes_on, j)
            out.append(Via(self.index.phrases[i], float(mass[t]), float(counts[t]), split, paths))
        return out, own

    def _paths(self, r: int, piece: Piece) -> dict[int, list[int]]:
        """Piece r's most probable paths to every node it may need one to, found in one search: the
        top nodes of every passage the explanation lists (computed on first use)."""
        if r not in self._found:
            wanted = self.targets.get(r, ())
            self._found[r] = most_probable_paths(self.costs, piece.nodes, wanted)
        return self._found[r]

    def _steps(self, nodes: list[int], j: int) -> tuple[Step, ...]:
        steps = [self._step(u, v) for u, v in zip(nodes[:-1], nodes[1:], strict=True)]
        return tuple(steps) + (self._passage_step(nodes[-1], j),)

    def _name(self, u: int) -> str:
        n = self.index.n_nodes
        return self.index.phrases[u] if u < n else _title(self.index, u - n)

    def _step(self, u: int, v: int) -> Step:
        n, p = self.index.n_nodes, _probability(self.A, self.out_weight, u, v)
        if u >= n or v >= n:
            count = _entry(self.A, u, v)
            return Step(self._name(u), self._name(v), "passage", f"mentioned {count:g}x", p)
        if _entry(self.relations, u, v) > 0:
            labels = relation_labels(self.index, u, v)
            return Step(self._name(u), self._name(v), "relation", " / ".join(labels[:2]) or "?", p)
        cos = _entry(self.synonyms, u, v)
        return Step(self._name(u), self._name(v), "synonymy", f"cosine {cos:.2f}", p)

    def _passage_step(self, i: int, j: int) -> Step:
        count = _entry(self.P_rows, i, j)
        if self.hybrid:
            p = _probability(self.A, self.out_weight, i, self.index.n_nodes + j)
        else:
            p = 1.0
        return Step(self._name(i), _title(self.index, j), "passage", f"mentioned {count:g}x", p)


def _adjacency(retriever, hybrid: bool) -> tuple[sp.csr_array, np.ndarray, sp.csr_array]:
    """The walk's graph as a matrix (with the passage nodes in the hybrid walk), its out-weights and
    its step costs (:func:`step_costs`), made once per index."""
    index = retriever.index

    def build():
        A = sp.csr_array(index.graph(synonymy=retriever.synonymy))
        if hybrid:
            P = sp.csr_array(index.mentions)
            A = sp.csr_array(sp.bmat([[A, P], [P.T, None]], format="csr"))
        A.sum_duplicates()
        A.sort_indices()
        out_weight = np.asarray(A.sum(axis=1)).ravel()
        return A, out_weight, step_costs(A, out_weight)

    return index.derived(("explain_adjacency", bool(retriever.synonymy), hybrid), build)


def _sorted_csr(index: HippoIndex) -> tuple[sp.csr_array, sp.csr_array, sp.csr_array]:
    """P, the relation graph and the synonymy graph as CSR with sorted indices (for :func:`_entry`)."""

    def build():
        matrices = (index.mentions, index.relation_graph, index.synonymy_graph)
        out = tuple(sp.csr_array(M, copy=True) for M in matrices)
        for M in out:
            M.sort_indices()
        return out

    return index.derived("explain_csr", build)


def _mentions_by_passage(index: HippoIndex) -> sp.csc_array:
    return index.derived("mentions_csc", lambda: sp.csc_array(index.mentions))


def _entry(M, u: int, v: int) -> float:
    """``M[u, v]`` of a CSR matrix with sorted indices, without scipy's per-call checks."""
    lo, hi = int(M.indptr[u]), int(M.indptr[u + 1])
    t = lo + int(M.indices[lo:hi].searchsorted(v))
    return float(M.data[t]) if t < hi and M.indices[t] == v else 0.0


def _probability(A, out_weight, u: int, v: int) -> float:
    return _entry(A, u, v) / out_weight[u] if out_weight[u] > 0 else 0.0


def _title(index: HippoIndex, j: int) -> str:
    return index.passages[j].partition("\n")[0] if index.passages else f"passage {j}"


def most_probable_paths(costs: sp.csr_array, sources, targets) -> dict[int, list[int]]:
    """The most probable walk from any of ``sources`` to each of ``targets``: its nodes, first to last.

    ``costs`` holds -log of each step's probability (:func:`step_costs`); the most probable walk is
    the cheapest path (Dijkstra), and the search stops once every target is settled, so it visits
    the nodes nearer than the farthest target only. A target no walk reaches is left out.
    """
    sources = np.unique(np.asarray(sources, dtype=np.int64))
    wanted = np.unique(np.asarray(list(targets), dtype=np.int64))
    if not wanted.size or not sources.size:
        return {}
    pred, done = _cheapest_paths(costs.indptr, costs.indices, costs.data, sources, wanted)
    out: dict[int, list[int]] = {}
    for t in wanted.tolist():
        if done[t]:
            path = [t]
            while pred[path[-1]] >= 0:
                path.append(int(pred[path[-1]]))
            out[t] = path[::-1]
    return out


@njit(cache=True)
def _cheapest_paths(indptr, indices, costs, sources, wanted):
    """Dijkstra from every source at once, stopped when each node of ``wanted`` is settled (or
    nothing more is reachable). Returns (predecessor, settled); a source's predecessor is -1.

    Once every target has a tentative distance, their largest, ``bound``, caps the search: a node
    reached at ``bound`` or more cannot lie on a cheapest path to a target (every step costs more
    than 0), so it is not queued. Hubs (a common phrase, a long passage) then stop flooding the
    heap with neighbours that can never matter; the paths found are the same.
    """
    n = indptr.shape[0] - 1
    dist = np.full(n, np.inf)
    pred = np.full(n, -1, np.int64)
    done = np.zeros(n, np.bool_)
    target = np.zeros(n, np.bool_)
    target[wanted] = True
    left = wanted.shape[0]
    bound = np.inf
    heap = [(0.0, np.int64(0)) for _ in range(0)]
    for s in sources:
        dist[s] = 0.0
        heapq.heappush(heap, (0.0, np.int64(s)))
    while len(heap) > 0 and left > 0:
        d, u = heapq.heappop(heap)
        if done[u]:
            continue
        done[u] = True
        if target[u]:
            left -= 1
        for k in range(indptr[u], indptr[u + 1]):
            v = indices[k]
            nd = d + costs[k]
            if nd < dist[v] and nd < bound:
                dist[v] = nd
                pred[v] = u
                heapq.heappush(heap, (nd, np.int64(v)))
                if target[v]:
                    bound = np.max(dist[wanted])
    return pred, done


def step_costs(A: sp.csr_array, out_weight: np.ndarray) -> sp.csr_array:
    """-log of the walk's step probabilities A_uv / out_weight_u (a step of probability 1 costs a
    tiny positive amount: a stored zero would be no edge at all)."""
    rows = np.repeat(np.arange(A.shape[0]), np.diff(A.indptr))
    return sp.csr_array((np.maximum(-np.log(A.data / out_weight[rows]), 1e-12), A.indices, A.indptr), A.shape)


def relation_labels(index: HippoIndex, u: int, v: int) -> tuple[str, ...]:
    """The relations of the triples behind the relation edge between nodes ``u`` and ``v``, in the
    order the passages state them.

    Read from the passages that mention both (two rows of P; every phrase of a triple is in P), not
    from a table of every edge: that table, built from all the triples for a question's first
    explanation, took 3.5 s of a 7.9 s ``query --explain`` at 100,000 passages. Each edge read is
    kept on the index (:meth:`~pathfinding.hipporag.index.model.HippoIndex.derived`), so a process
    that explains again pays a lookup, as it did with the table.
    """
    if u == v:
        return ()
    seen = index.derived(RELATIONS_KEY, dict)
    edge = (min(u, v), max(u, v))
    if edge not in seen:
        seen[edge] = _read_relations(index, *edge)
    return seen[edge]


def _read_relations(index: HippoIndex, u: int, v: int) -> tuple[str, ...]:
    P = sp.csr_array(index.mentions)
    both = np.intersect1d(P.indices[P.indptr[u] : P.indptr[u + 1]], P.indices[P.indptr[v] : P.indptr[v + 1]])
    a, b = index.phrases[u], index.phrases[v]
    out: dict[str, None] = {}
    for j in both.tolist():
        for s, r, o in index.triples[j]:
            if (s == a and o == b) or (s == b and o == a):
                out[r] = None
    return tuple(out)


def bm25_term_parts(bm25, question: str, ids) -> tuple[list[str], list[int], np.ndarray]:
    """Each distinct scored term of ``question``, its count, and its part of the BM25 score of each
    passage in ``ids`` (terms x ids): the term's float32 score column times its count."""
    tokens = bm25.tokens(question)
    terms = list(dict.fromkeys(tokens))
    counts = [tokens.count(t) for t in terms]
    cols = bm25.term_scores(terms, ids)
    return terms, counts, cols * np.asarray(counts, dtype=np.float64)[:, None]


def explain_bm25(bm25, question: str, ids, scores, *, titles=None) -> Explanation:
    """BM25's ranking ``ids`` (with ``scores``), split by question term (``titles``: one per passage)."""
    ids = np.asarray(ids, dtype=np.int64)
    terms, counts, parts = bm25_term_parts(bm25, question, ids)
    out = []
    for c, j in enumerate(ids):
        pieces = [
            (Piece(t, "term", np.zeros(0, np.int64), float(cnt)), float(parts[r, c]))
            for r, (t, cnt) in enumerate(zip(terms, counts, strict=True))
        ]
        out.append(_passage(int(j), float(scores[c]), pieces, title="" if titles is None else titles[int(j)]))
    # bm25s adds the float32 columns in float32: one rounding per term
    bound = max(len(bm25.tokens(question)), 1) * float(np.finfo(np.float32).eps)
    return Explanation("bm25", tuple(out), 0.0, bound)
