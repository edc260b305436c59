"""Slow, obviously correct twins of every fast kernel.

Each function here is written to be read, not to be fast: dense matrices, plain loops, one idea per
line. The test suite checks every kernel in :mod:`pathfinding._kernels` against its twin here.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = [
    "transition_matrix",
    "ppr_linear_solve",
    "ppr_power_iteration",
    "mention_count_scores_loops",
    "passage_scores_loops",
    "nodes_at_distance_bfs",
]


def _dense(matrix) -> np.ndarray:
    return matrix.toarray() if sp.issparse(matrix) else np.asarray(matrix, dtype=np.float64)


def transition_matrix(graph) -> tuple[np.ndarray, np.ndarray]:
    """Row-normalised walk matrix W and the dangling indicator.

    ``W[i, j] = A[i, j] / sum_j A[i, j]``; a row without edges stays zero and is marked dangling.
    """
    A = _dense(graph).astype(np.float64)
    out_weight = A.sum(axis=1)
    dangling = out_weight == 0
    W = np.zeros_like(A)
    W[~dangling] = A[~dangling] / out_weight[~dangling, None]
    return W, dangling


def ppr_linear_solve(graph, restart, restart_prob=0.5) -> np.ndarray:
    """Personalized PageRank as the solution of one dense linear system.

    The walk restarts to ``restart`` with probability ``restart_prob``; otherwise it follows an edge
    of W, and from a node without edges it jumps to ``restart``. The stationary vector solves

        pi = a r + (1 - a) (W^T pi + (d . pi) r),   d = dangling indicator,

    that is ``(I - (1 - a) (W^T + r d^T)) pi = a r``.
    """
    W, dangling = transition_matrix(graph)
    r = np.asarray(restart, dtype=np.float64)
    a = restart_prob
    n = W.shape[0]
    M = np.eye(n) - (1 - a) * (W.T + np.outer(r, dangling.astype(np.float64)))
    return np.linalg.solve(M, a * r)


def ppr_power_iteration(graph, restart, restart_prob=0.5, n_iter=30) -> np.ndarray:
    """Exactly ``n_iter`` power iterations of the same map, starting from ``restart``."""
    W, dangling = transition_matrix(graph)
    r = np.asarray(restart, dtype=np.float64)
    a = restart_prob
    pi = r.copy()
    for _ in range(n_iter):
        lost = pi[dangling].sum()  # mass at nodes without edges goes back to the seeds
        pi = a * r + (1 - a) * (W.T @ pi + lost * r)
    return pi


def mention_count_scores_loops(mentions, seeds) -> np.ndarray:
    """Vector-RAG's shape with loops: score each passage alone, then credit the nodes it mentions.

    A passage's score is how many seed mentions it holds; a node's score is the sum, over passages,
    of (its count in the passage) x (the passage's score).
    """
    P = _dense(mentions)
    n_nodes, n_passages = P.shape
    passage_score = np.zeros(n_passages)
    for j in range(n_passages):
        for s in seeds:
            passage_score[j] += P[s, j]
    node_score = np.zeros(n_nodes)
    for i in range(n_nodes):
        for j in range(n_passages):
            node_score[i] += P[i, j] * passage_score[j]
    return node_score


def passage_scores_loops(pi, mentions) -> np.ndarray:
    """pi . P with loops: a passage's score is the walk mass of the nodes it mentions, counted."""
    P = _dense(mentions)
    n_nodes, n_passages = P.shape
    out = np.zeros(n_passages)
    for j in range(n_passages):
        for i in range(n_nodes):
            out[j] += pi[i] * P[i, j]
    return out


def nodes_at_distance_bfs(graph, seeds, hops) -> list[int]:
    """The nodes exactly ``hops`` edges from every seed, by one plain breadth-first search per seed.

    ``hops`` is one depth for every seed or one per seed. Edge weights are ignored: any non-zero entry
    is an edge, in either direction.
    """
    A = _dense(graph)
    n = A.shape[0]
    depths = list(hops) if isinstance(hops, list | tuple) else [hops] * len(seeds)
    at_depth = set(range(n))
    for seed, depth in zip(seeds, depths, strict=True):
        distance = {int(seed): 0}
        queue = [int(seed)]
        while queue:
            u = queue.pop(0)
            for v in range(n):
                if (A[u, v] != 0 or A[v, u] != 0) and v not in distance:
                    distance[v] = distance[u] + 1
                    queue.append(v)
        at_depth &= {v for v, d in distance.items() if d == depth}
    return sorted(at_depth)
