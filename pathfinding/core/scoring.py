"""Steps 6, 7 and 9: the rankers that compete on a path-finding question, and how to score them.

* :func:`mention_count_scores` is vector-RAG's shape: every passage is scored against the query on
  its own, so an answer that no passage shares with a seed gets nothing.
* :func:`personalized_pagerank` (from :mod:`pathfinding.core.ppr`) spreads mass over the graph, so the
  answer collects mass from every seed.
* :func:`query_node_scores` and :func:`query_two_hop_scores` are the paper's Table 5 alternatives
  to PPR ("R_q nodes only", "R_q nodes & neighbours", the latter as HippoRAG v1 computes it);
  :func:`query_neighbour_scores` is our one-weighted-hop variant of the second.
* :func:`passage_scores` turns node mass into passage scores (pi . P).
* :func:`rank_of` says where the answer landed among the candidates.

``NODE_SCORERS`` maps a name to ``(graph, restart, *, restart_prob, tol) -> node scores``: the one
dispatch shared by ``RANKERS`` (``instance -> node scores``, the experiment) and the real-text
retriever.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from pathfinding._validation import as_csr, check_node_ids, check_vector
from pathfinding.core.ppr import personalized_pagerank, walk_step
from pathfinding.core.prepared import prepare_graph
from pathfinding.errors import InvalidValueError

__all__ = [
    "NODE_SCORERS",
    "mention_count_scores",
    "passage_scores",
    "query_neighbour_scores",
    "query_node_scores",
    "query_two_hop_scores",
    "rank_of",
    "tie_ranks",
]


def mention_count_scores(mentions, seeds) -> np.ndarray:
    """Score nodes the way a retriever that reads passages one at a time would.

    Each passage j gets ``q_j = sum over seeds s of P[s, j]`` (how many seed mentions it holds);
    node i gets ``sum_j P[i, j] * q_j``. A node only scores through passages that also mention a
    seed, so an answer two hops from every seed scores 0, like every dead end.

    Parameters
    ----------
    mentions : sparse matrix or array_like, shape (n_nodes, n_passages)
        The count matrix P.
    seeds : array_like of int
        Query node ids.

    Returns
    -------
    numpy.ndarray of float64, shape (n_nodes,)

    See Also
    --------
    pathfinding.core.reference.mention_count_scores_loops : the same with plain loops.

    Examples
    --------
    On the meet-node toy the shared node a is in two seed passages, a dead end in one:

    >>> from pathfinding.synthetic.toy import meet_node_toy
    >>> toy = meet_node_toy()
    >>> mention_count_scores(toy.mentions, toy.seeds)
    array([2., 2., 2., 1., 1.])
    """
    P = as_csr("mentions", mentions)
    seeds = check_node_ids("seeds", seeds, P.shape[0])
    from pathfinding.core import _kernels

    return _kernels.mention_count_scores(P.indptr, P.indices, P.data, seeds, P.shape[1])


def passage_scores(pi, mentions) -> np.ndarray:
    """Passage scores pi . P: each passage collects the mass of the nodes it mentions, counted.

    Parameters
    ----------
    pi : array_like of float, shape (n_nodes,)
        Node scores, typically from :func:`personalized_pagerank`.
    mentions : sparse matrix or array_like, shape (n_nodes, n_passages)
        The count matrix P.

    Returns
    -------
    numpy.ndarray of float64, shape (n_passages,)

    Examples
    --------
    >>> from pathfinding.synthetic.toy import meet_node_toy
    >>> toy = meet_node_toy()
    >>> pi = personalized_pagerank(toy.graph, toy.seeds)
    >>> toy.passages
    ['u is linked to a.', 'w is linked to a.', 'u is linked to b.', 'w is linked to c.']
    >>> passage_scores(pi, toy.mentions).round(4)
    array([0.5   , 0.5   , 0.4167, 0.4167])
    """
    P = as_csr("mentions", mentions)
    pi = check_vector("pi", pi, P.shape[0])
    from pathfinding.core import _kernels

    return _kernels.passage_scores(P.indptr, P.indices, P.data, pi, P.shape[1])


def query_node_scores(restart) -> np.ndarray:
    """Table 5's "R_q nodes only": the restart vector itself, no walk.

    Every node other than a seed scores 0, so the answer ties with every dead end.

    Parameters
    ----------
    restart : array_like of float, shape (n_nodes,)

    Returns
    -------
    numpy.ndarray of float64, shape (n_nodes,)

    Examples
    --------
    >>> query_node_scores([0.5, 0.5, 0.0])
    array([0.5, 0.5, 0. ])
    """
    return check_vector("restart", restart).copy()


def query_neighbour_scores(graph, restart) -> np.ndarray:
    """Table 5's "R_q nodes & neighbours": the restart vector spread one hop.

    Scores are ``r + W^T r``: the seeds keep their restart mass and each neighbour receives what
    one step of the walk sends it. Nodes two or more hops from every seed score 0.

    Parameters
    ----------
    graph : sparse matrix, array_like or PPRGraph, shape (n, n)
    restart : array_like of float, shape (n,)

    Returns
    -------
    numpy.ndarray of float64, shape (n,)

    Examples
    --------
    >>> from pathfinding.synthetic.toy import meet_node_toy
    >>> query_neighbour_scores(meet_node_toy().graph, [0.5, 0.5, 0, 0, 0])
    array([0.5 , 0.5 , 0.5 , 0.25, 0.25])
    """
    g = prepare_graph(graph)
    r = check_vector("restart", restart, g.n_nodes)
    return r + walk_step(g, r)


def query_two_hop_scores(graph, restart) -> np.ndarray:
    """Table 5's "R_q nodes & neighbours" as HippoRAG v1 computes it (``graph_alg="neighbor_2"``).

    Every node within two hops of a seed (the seed itself included when it has an edge) gains half
    the smallest seed weight, once per seed whose two-hop neighbourhood holds it; edge weights
    only decide whether an edge exists. Unlike :func:`query_neighbour_scores` (one hop, weighted by
    the walk), nodes two hops out are reached.

    Parameters
    ----------
    graph : sparse matrix, array_like or PPRGraph, shape (n, n)
    restart : array_like of float, shape (n,)
        The seeds' weights (zero elsewhere); only ratios matter.

    Returns
    -------
    numpy.ndarray of float64, shape (n,)

    Notes
    -----
    HippoRAG v1, ``src/hipporag.py`` (``get_neighbors(prob_vector, 2)``): for each seed the
    neighbours at depth 1 and 2 are collected into a set and each gets ``+= 0.5 * min_prob``, with
    ``min_prob`` the smallest positive entry of the (specificity-weighted) seed vector.

    Examples
    --------
    On the meet-node toy the answer is in both seeds' neighbourhoods, a dead end in one:

    >>> from pathfinding.synthetic.toy import meet_node_toy
    >>> query_two_hop_scores(meet_node_toy().graph, [0.5, 0.5, 0, 0, 0])
    array([1.  , 1.  , 0.5 , 0.25, 0.25])
    """
    g = prepare_graph(graph)
    r = check_vector("restart", restart, g.n_nodes)
    if np.any(r < 0) or not np.any(r > 0):
        raise InvalidValueError("restart must be non-negative with at least one positive entry")
    seeds = np.flatnonzero(r > 0)
    bump = 0.5 * r[seeds].min()
    count = np.zeros(g.n_nodes)
    for s in seeds:
        one = np.zeros(g.n_nodes)
        one[s] = 1.0
        hop1 = walk_step(g, one) > 0  # edge weights are positive, so positive mass = reachable
        hop2 = walk_step(g, hop1.astype(np.float64)) > 0
        count += hop1 | hop2
    return r + bump * count


def rank_of(scores, target, candidates, *, ties: str = "expected", rng=None) -> float:
    """Rank of ``target`` among ``candidates`` by descending score (1 is best).

    Parameters
    ----------
    scores : array_like of float, shape (n_nodes,)
    target : int
        The node whose rank is wanted; must be one of ``candidates``.
    candidates : array_like of int
        Distinct node ids competing for the top.
    ties : {"expected", "random"}, default "expected"
        ``"expected"``: the mean rank under uniformly random tie-breaking, ``1 + (#strictly better)
        + (#tied others) / 2`` (so chance among 17 is exactly 9.0). ``"random"``: break ties with
        ``rng`` and return that one rank (an integer-valued float).
    rng : None, int or numpy.random.Generator
        Used only with ``ties="random"``.

    Returns
    -------
    float

    Examples
    --------
    >>> rank_of([0.0, 3.0, 1.0, 1.0], 2, [1, 2, 3])
    2.5
    >>> rank_of([0.0, 0.0, 0.0], 0, [0, 1, 2])
    2.0
    """
    s = check_vector("scores", scores)
    cand = check_node_ids("candidates", candidates, s.shape[0])
    if np.unique(cand).size != cand.size:
        raise InvalidValueError("candidates must be distinct node ids")
    target = int(check_node_ids("target", [target], s.shape[0])[0])
    if target not in cand:
        raise InvalidValueError(f"target {target} is not among the candidates")
    if ties not in ("expected", "random"):
        raise InvalidValueError(f"ties must be 'expected' or 'random', got {ties!r}")
    expected, random = tie_ranks(s, target, cand, np.random.default_rng(rng) if ties == "random" else None)
    return expected if ties == "expected" else random


def tie_ranks(scores: np.ndarray, target: int, candidates: np.ndarray, rng=None) -> tuple[float, float]:
    """Both ranks of :func:`rank_of` at once: (expected rank, one random-tie rank).

    The sweep's inner loop: it trusts its input (``scores`` a float64 vector, ``candidates`` distinct
    valid ids holding ``target``), which :func:`rank_of` checks. The random rank draws one integer
    from ``rng`` and is NaN when ``rng`` is None.

    Examples
    --------
    >>> import numpy as np
    >>> tie_ranks(np.array([0.0, 3.0, 1.0, 1.0]), 2, np.array([1, 2, 3]))
    (2.5, nan)
    """
    s = scores[candidates]
    t = scores[target]
    better = int(np.count_nonzero(s > t))
    tied_others = int(np.count_nonzero(s == t)) - 1
    random = float(1 + better + rng.integers(tied_others + 1)) if rng is not None else np.nan
    return 1.0 + better + tied_others / 2.0, random


NODE_SCORERS: dict[str, Callable[..., np.ndarray]] = {
    "ppr": lambda graph, restart, *, restart_prob=0.5, tol=1e-10: personalized_pagerank(
        graph, restart, restart_prob=restart_prob, tol=tol
    ),
    "rq_nodes": lambda graph, restart, **_: query_node_scores(restart),
    "rq_neighbours": lambda graph, restart, **_: query_neighbour_scores(graph, restart),
    "rq_neighbours_v1": lambda graph, restart, **_: query_two_hop_scores(graph, restart),
}
"""Node scorer per name, ``(graph, restart, *, restart_prob, tol) -> scores``: the walk and the
Table 5 ablations ("rq_neighbours" is our one weighted hop, "rq_neighbours_v1" HippoRAG v1's two
hops). The ablations ignore ``restart_prob`` and ``tol``."""
