"""Local Personalized PageRank by forward push (Andersen, Chung and Lang, FOCS 2006): the kernel.

Kept out of :mod:`pathfinding._kernels` only for its length (the layout test caps modules at 600
lines); it calls nothing there. ``alpha`` is the *restart* probability, as in every kernel of the
package. Its readable twin is :func:`pathfinding.reference.forward_push`.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def ppr_push(
    indptr, indices, weights, unit, inv_out, p, res, seen, touched, n_touched, alpha, eps, max_pushes
):
    """Push residual mass until no node holds more than ``eps`` times its out-weight; resumable.

    Solves x = alpha r + (1 - alpha) W^T x (mass at a node without out-edges dropped, as in
    :func:`~pathfinding._kernels.ppr_gauss_seidel`). ``p`` is the estimate and ``res`` the residual;
    the pair keeps the invariant ``x = p + L res`` with L = alpha sum_t ((1 - alpha) W^T)^t, whose
    L1 norm is at most 1, so ``||x - p||_1 <= sum(res)``: the caller's certificate. A push at u moves
    alpha res[u] into p[u] and spreads (1 - alpha) res[u] over u's out-edges by weight.

    ``indptr``/``indices``/``weights`` hold the *forward* CSR (row u lists the out-neighbours of u and
    the weights A[u, v]); ``inv_out[u]`` is 1 / out-weight of u (0 when u has no out-edge: such a node
    is pushed whenever it holds residual, and the (1 - alpha) share is dropped). ``seen`` (bool, n)
    marks the nodes in ``touched[:n_touched]``, every node that ever held residual or mass: a call
    starts from the touched nodes above the threshold, so a second call with a smaller ``eps``
    continues where the first stopped. Nodes are served first in, first out.

    Returns ``(n_touched, pushes, residual_sum)``; stops early after ``max_pushes`` pushes.
    """
    n = p.shape[0]
    beta = 1.0 - alpha
    queue = np.empty(n, np.int64)  # circular: each node is in it at most once
    queued = np.zeros(n, np.bool_)
    head = 0
    size = 0
    for t in range(n_touched):
        u = touched[t]
        if res[u] > 0.0 and (inv_out[u] == 0.0 or res[u] * inv_out[u] > eps):
            queue[(head + size) % n] = u
            queued[u] = True
            size += 1
    pushes = 0
    while size > 0 and pushes < max_pushes:
        u = queue[head]
        head = (head + 1) % n
        size -= 1
        queued[u] = False
        ru = res[u]
        p[u] += alpha * ru
        res[u] = 0.0
        pushes += 1
        if inv_out[u] == 0.0:
            continue
        share = beta * ru * inv_out[u]
        for k in range(indptr[u], indptr[u + 1]):
            v = indices[k]
            res[v] += share if unit else share * weights[k]
            if not seen[v]:
                seen[v] = True
                touched[n_touched] = v
                n_touched += 1
            if not queued[v] and (inv_out[v] == 0.0 or res[v] * inv_out[v] > eps):
                queue[(head + size) % n] = v
                queued[v] = True
                size += 1
    total = 0.0
    for t in range(n_touched):
        total += res[touched[t]]
    return n_touched, pushes, total


def push_solve(g, restart, alpha, tol, max_rounds):
    """PPR of one restart vector (internal order, summing to 1) by rounds of forward push.

    Round t pushes to the threshold ``eps_t = tol / 4**t``: the first round does the bulk of the
    work, later ones only refine, and each stops with an exact certificate. With e the residual
    left and s the estimate's mass, ``x - p >= 0`` has L1 norm at most e, so the normalised
    estimate is within ``2 e / (s + e)`` of the normalised solution (the same argument as the
    Gauss-Seidel bound, with ``p <= x`` entrywise). Stops once that is <= ``tol``.

    Returns ``(pi, rounds, bound, pushes)``; ``pi`` is dense, internal order, summing to 1.
    """
    indptr, indices, weights = g.forward_csr()
    n = g.n_nodes
    support = np.flatnonzero(restart)
    p = np.zeros(n)
    res = np.zeros(n)
    res[support] = restart[support]
    seen = np.zeros(n, np.bool_)
    seen[support] = True
    touched = np.empty(n, np.int64)
    touched[: support.size] = support
    n_touched = support.size
    eps = tol
    bound = np.inf
    mass = 0.0
    pushes = 0
    rounds = 0
    while rounds < max_rounds:
        n_touched, done, left = ppr_push(
            indptr, indices, weights, g.unit, g.inv_out, p, res, seen, touched, n_touched, alpha, eps, 2**62
        )
        pushes += done
        rounds += 1
        mass = float(p[touched[:n_touched]].sum())
        bound = 2.0 * left / (mass + left) if mass > 0 else np.inf
        if bound <= tol:
            break
        eps *= 0.25
    pi = p / mass if mass > 0 else restart.copy()
    return pi, rounds, (bound if mass > 0 else 2.0), pushes
