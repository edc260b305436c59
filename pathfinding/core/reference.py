"""Slow, obviously correct twins of every fast kernel.

Each function here is written to be read, not to be fast: dense matrices, plain loops, one idea per
line. The test suite checks every kernel in :mod:`pathfinding.core._kernels` against its twin here:

==========================  ==========================================================
kernel                      twin
==========================  ==========================================================
``ppr_power``               :func:`ppr_power_iteration` (and :func:`ppr_linear_solve`)
``ppr_power_block``         :func:`ppr_power_iteration_block`
``ppr_gauss_seidel``        :func:`gauss_seidel_sweeps`
``seed_contributions``      :func:`seed_contributions_dense`
``_push.ppr_push``          :func:`forward_push`
``pull``                    :func:`matvec_loops`
``is_symmetric``            :func:`is_symmetric_dense`
``permute_csr``             :func:`relabel_dense`
``mention_count_scores``    :func:`mention_count_scores_loops`
``passage_scores``          :func:`passage_scores_loops`
==========================  ==========================================================
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = [
    "transition_matrix",
    "ppr_linear_solve",
    "ppr_power_iteration",
    "ppr_power_iteration_block",
    "seed_contributions_dense",
    "gauss_seidel_sweeps",
    "forward_push",
    "matvec_loops",
    "is_symmetric_dense",
    "relabel_dense",
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


def ppr_power_iteration_block(graph, restart_block, restart_prob=0.5, n_iter=30) -> np.ndarray:
    """The block of b queries answered one column at a time: column c is PPR of ``restart_block[:, c]``."""
    R = np.asarray(restart_block, dtype=np.float64)
    columns = [ppr_power_iteration(graph, R[:, c], restart_prob, n_iter) for c in range(R.shape[1])]
    return np.column_stack(columns)


def seed_contributions_dense(graph, restart, restart_prob=0.5) -> tuple[np.ndarray, np.ndarray]:
    """The PPR vector split by source, one dense linear solve per source.

    Part j is the stationary mass of the walks whose most recent restart landed on source j. The
    walk's mass that reaches a node without edges restarts like any other restart, so the restart
    probability each step is c = a + (1 - a) (d . pi), and part j solves

        (I - (1 - a) W^T) x = c r_j e_j.

    ``restart`` is a non-negative weight vector (scaled to sum 1 here). Returns ``(sources, parts)``:
    the nodes with weight > 0, ascending, and one row per source; the rows sum to
    :func:`ppr_linear_solve`.
    """
    W, dangling = transition_matrix(graph)
    r = np.asarray(restart, dtype=np.float64)
    r = r / r.sum()
    a = restart_prob
    n = W.shape[0]
    pi = ppr_linear_solve(graph, r, a)
    c = a + (1 - a) * pi[dangling].sum()
    sources = np.flatnonzero(r > 0)
    parts = np.zeros((sources.size, n))
    for row, j in enumerate(sources):
        e_j = np.zeros(n)
        e_j[j] = 1.0
        parts[row] = np.linalg.solve(np.eye(n) - (1 - a) * W.T, c * r[j] * e_j)
    return sources, parts


def gauss_seidel_sweeps(graph, restart, restart_prob=0.5, n_sweeps=1) -> np.ndarray:
    """``n_sweeps`` Gauss-Seidel sweeps on x = a r + (1 - a) W^T x, nodes in id order, from x = r.

    A sweep updates x[0], x[1], ... in turn, and each update already uses the new values of the
    nodes before it. Mass at nodes without edges is dropped here; dividing the result by its sum
    gives the PPR vector in which that mass returns to ``restart`` (see the kernel's docstring).
    Returns the unnormalised x.
    """
    W, _ = transition_matrix(graph)
    r = np.asarray(restart, dtype=np.float64)
    a = restart_prob
    n = W.shape[0]
    x = r.copy()
    for _ in range(n_sweeps):
        for i in range(n):
            inflow = sum(W[j, i] * x[j] for j in range(n))  # x[j] is already new for j < i
            x[i] = a * r[i] + (1 - a) * inflow
    return x


def forward_push(graph, restart, restart_prob=0.5, eps=1e-4) -> tuple[np.ndarray, np.ndarray]:
    """Forward push (Andersen, Chung, Lang 2006) on x = a r + (1 - a) W^T x, to threshold ``eps``.

    Start with all mass as residual (res = r, p = 0). Pushing node u banks a share ``a res[u]`` in
    p[u] and hands the rest, ``(1 - a) res[u]``, to u's out-neighbours in proportion to the edge
    weights (a node without out-edges hands it to nobody: that mass is dropped, as in
    :func:`gauss_seidel_sweeps`). Nodes wait in a first-in, first-out queue; a node joins it when
    its residual exceeds ``eps`` times its out-weight (any residual, for a node without out-edges).
    Returns ``(p, res)``: x = p + (the same solution for res), so ``sum(res)`` bounds the L1 error.
    """
    W, dangling = transition_matrix(graph)
    out_weight = _dense(graph).astype(np.float64).sum(axis=1)
    a = restart_prob
    n = W.shape[0]
    p = np.zeros(n)
    res = np.asarray(restart, dtype=np.float64).copy()

    def above(u):
        return res[u] > 0 and (dangling[u] or res[u] > eps * out_weight[u])

    queue = [u for u in range(n) if above(u)]
    while queue:
        u = queue.pop(0)
        mass = res[u]
        p[u] += a * mass
        res[u] = 0.0
        if dangling[u]:
            continue
        for v in range(n):
            if W[u, v] > 0:
                res[v] += (1 - a) * mass * W[u, v]
                if v not in queue and above(v):
                    queue.append(v)
    return p, res


def matvec_loops(matrix, x) -> np.ndarray:
    """y = M x with loops: y[i] is row i of M times x (the kernels' pull, where M = A^T)."""
    M = _dense(matrix)
    n_rows, n_cols = M.shape
    y = np.zeros(n_rows)
    for i in range(n_rows):
        for j in range(n_cols):
            y[i] += M[i, j] * x[j]
    return y


def is_symmetric_dense(graph) -> bool:
    """Whether A equals its transpose, entry by entry (weights included)."""
    A = _dense(graph)
    return bool(np.array_equal(A, A.T))


def relabel_dense(graph, order) -> np.ndarray:
    """The graph relabelled so that new node k is old node ``order[k]``: B[k, m] = A[order[k], order[m]]."""
    A = _dense(graph)
    order = np.asarray(order)
    n = order.size
    B = np.zeros((n, n))
    for k in range(n):
        for m in range(n):
            B[k, m] = A[order[k], order[m]]
    return B


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
    """pi . P with loops: a passage's score is the walk mass of the nodes it mentions, counted.

    Column j of P lists the counts of the nodes passage j mentions, so the scores are P^T pi.
    """
    return matvec_loops(_dense(mentions).T, pi)


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
