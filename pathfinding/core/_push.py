"""Local Personalized PageRank by forward push (Andersen, Chung and Lang, FOCS 2006): the kernel.

Kept out of :mod:`pathfinding.core._kernels` only for its length (the layout test caps modules at 600
lines); it calls nothing there. ``alpha`` is the *restart* probability, as in every kernel of the
package. Its readable twin is :func:`pathfinding.core.reference.forward_push`.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def ppr_push(
    indptr, indices, weights, unit, inv_out, p, res, seen, touched, n_touched, queue, queued, alpha, eps,
    max_pushes, log, n_log,
):
    """Push residual mass until no node holds more than ``eps`` times its out-weight; resumable.

    Solves x = alpha r + (1 - alpha) W^T x (mass at a node without out-edges dropped, as in
    :func:`~pathfinding.core._kernels.ppr_gauss_seidel`). ``p`` is the estimate and ``res`` the residual;
    the pair keeps the invariant ``x = p + L res`` with L = alpha sum_t ((1 - alpha) W^T)^t, whose
    L1 norm is at most 1, so ``||x - p||_1 <= sum(res)``: the caller's certificate. A push at u moves
    alpha res[u] into p[u] and spreads (1 - alpha) res[u] over u's out-edges by weight.

    ``indptr``/``indices``/``weights`` hold the *forward* CSR (row u lists the out-neighbours of u and
    the weights A[u, v]); ``inv_out[u]`` is 1 / out-weight of u (0 when u has no out-edge: such a node
    is pushed whenever it holds residual, and the (1 - alpha) share is dropped). ``seen`` (bool, n)
    marks the nodes in ``touched[:n_touched]``, every node that ever held residual or mass: a call
    starts from the touched nodes above the threshold, so a second call with a smaller ``eps``
    continues where the first stopped. Nodes are served first in, first out, from ``queue`` (int64,
    n), with ``queued`` (bool, n) all False on entry and on return.

    Each pushed node is appended to ``log`` while it has room (``log[:n_log]`` on entry are kept),
    so :func:`replay_pushes` can repeat the same pushes on a split of the restart vector; pass an
    empty ``log`` to keep none.

    Returns ``(n_touched, pushes, residual_sum, n_log)``; stops early after ``max_pushes`` pushes.
    """
    size = _enqueue(touched, n_touched, res, inv_out, eps, queue, queued)
    n_touched, pushes, n_log = _drain(
        indptr, indices, weights, unit, inv_out, p, res, seen, touched, n_touched, queue, queued, size, alpha,
        eps, max_pushes, log, n_log,
    )
    total = 0.0
    for t in range(n_touched):
        total += res[touched[t]]
    return n_touched, pushes, total, n_log


@njit(cache=True)
def _enqueue(touched, n_touched, res, inv_out, eps, queue, queued):
    """Queue (from position 0, in ``touched`` order) every touched node above the threshold ``eps``;
    returns how many."""
    size = 0
    for t in range(n_touched):
        u = touched[t]
        if res[u] > 0.0 and (inv_out[u] == 0.0 or res[u] * inv_out[u] > eps):
            queue[size] = u
            queued[u] = True
            size += 1
    return size


@njit(cache=True)
def _drain(
    indptr, indices, weights, unit, inv_out, p, res, seen, touched, n_touched, queue, queued, size, alpha,
    eps, max_pushes, log, n_log,
):
    """:func:`ppr_push`'s pushes from the ``size`` nodes queued at ``queue[:size]``; returns
    ``(n_touched, pushes, n_log)``."""
    n = p.shape[0]
    beta = 1.0 - alpha
    head = 0  # queue is circular: each node is in it at most once
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
        if n_log < log.shape[0]:
            log[n_log] = u
            n_log += 1
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
    for t in range(size):  # stopped by max_pushes: leave queued as it was found
        queued[queue[(head + t) % n]] = False
    return n_touched, pushes, n_log


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
    queue = np.empty(n, np.int64)
    queued = np.zeros(n, np.bool_)
    eps = tol
    bound = np.inf
    mass = 0.0
    pushes = 0
    rounds = 0
    no_log = np.empty(0, np.int64)
    while rounds < max_rounds:
        n_touched, done, left, _ = ppr_push(
            indptr, indices, weights, g.unit, g.inv_out, p, res, seen, touched, n_touched, queue, queued,
            alpha, eps, 2**62, no_log, 0,
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


def push_top_k(g, support, values, items, k, alpha, margin, log, prepared=None):
    """:func:`ppr_push_top_k` on a prepared graph ``g`` (internal ids), its scratch arrays borrowed:
    the first threshold makes no item's interval wider than the k-th largest restart weight, the
    scale of the scores to separate, and the budget is one pass over every node and edge.
    ``prepared``: the items as :class:`~pathfinding.core.prepared.Candidates` (their largest degree
    and each node's position among them, found once), else both are found here."""
    if prepared is None:
        inv = g.inv_out[items]
        max_deg = float(1.0 / inv[inv > 0].min()) if np.any(inv > 0) else 0.0
    else:
        max_deg = prepared.max_degree
    kth = np.partition(values, max(values.size - k, 0))[max(values.size - k, 0)]
    eps = kth / max_deg if max_deg > 0 else 1.0
    with g.push_workspace() as scratch:
        *scratch, item_pos = scratch
        fill = prepared is None
        return ppr_push_top_k(
            g.indptr, g.indices, g.weights, g.unit, g.inv_out, support, values, items, max_deg, k, alpha,
            eps, margin, g.n_nodes + g.n_edges, *scratch, item_pos if fill else prepared.positions, fill, log,
        )


@njit(cache=True)
def ppr_push_top_k(
    indptr, indices, weights, unit, inv_out, support, values, items, item_max_deg, k, alpha, eps, margin,
    max_pushes, p, res, seen, touched, queue, queued, item_pos, fill, log,
):
    """Forward push, in rounds of a shrinking threshold, until the top k items are certified.

    Only for a **symmetric** matrix (an undirected graph). The estimate is ``v = p + alpha res``
    (each residual's first share banked where it sits); ``x - v = (1 - alpha) W^T (x - p)``. On an
    undirected graph the walk is reversible, ``d_s x_s(j) = d_j x_j(s)`` for the solutions x_s
    seeded at single nodes (d: weighted degree), so the mass still owed to a node u is
    ``x_u - p_u <= e d_u`` with ``e = max_s res_s / d_s`` (Andersen, Chung and Lang's per-node
    bound); and ``||x - p||_1 <= sum(res)``. One step of the walk from those nodes gives every
    node j

        v_j <= x_j <= v_j + (1 - alpha) min(e d_j, sum(res))

    (a node without edges has ``x_j = v_j``). Push keeps ``res_s <= eps d_s``, so the intervals of
    the nodes with few edges shrink with ``eps`` while the work grows with the mass pushed, not
    with the graph.

    ``items`` are internal node ids; ``item_max_deg`` is the largest weighted degree of an item,
    which bounds the items push has not touched yet. ``p, res, seen, touched, queue, queued,
    item_pos`` are the scratch arrays of :meth:`~pathfinding.core.prepared.PPRGraph.push_workspace`,
    zero / False / -1 on entry and left so on return: the work is proportional to the nodes
    touched, not to n. With ``fill`` False, ``item_pos`` already holds each item's position
    (:attr:`~pathfinding.core.prepared.Candidates.positions`) and is neither filled nor cleared:
    no pass over a million passage nodes per query.

    After each round the k best items by ``v`` (equal values: the lower position first) are
    certified when ``v`` of each exceeds the upper end of the next one's interval by more than
    ``margin``, and the k-th's exceeds that of every other item. Each round halves ``eps``. Stops
    when certified, when no residual is left, or once ``max_pushes`` pushes are spent.

    Returns ``(rounds, pushes, head, scores, certified, bound, mass, n_log)``: ``head`` holds
    positions among the items, best first, ``scores`` their ``v / mass`` with ``mass = sum(v)``,
    ``bound`` the L1 bound on ``v / mass`` (``||x - v||_1 <= (1 - alpha) sum(res)``, normalised as
    :func:`push_solve`'s), and ``log[:n_log]`` the nodes pushed, in order (see :func:`ppr_push`).
    """
    beta = 1.0 - alpha
    n_items = items.shape[0]
    if fill:
        for j in range(n_items):
            item_pos[items[j]] = j
    for t in range(support.shape[0]):
        res[support[t]] = values[t]
        seen[support[t]] = True
        touched[t] = support[t]
    n_touched = support.shape[0]
    size = _enqueue(touched, n_touched, res, inv_out, eps, queue, queued)
    head = np.full(k, -1, np.int64)
    node = np.full(k, -1, np.int64)
    val = np.zeros(k)
    certified = False
    rounds = 0
    pushes = 0
    left = 0.0
    n_log = 0
    while True:
        n_touched, done, n_log = _drain(
            indptr, indices, weights, unit, inv_out, p, res, seen, touched, n_touched, queue, queued, size,
            alpha, eps, max_pushes - pushes, log, n_log,
        )
        pushes += done
        rounds += 1
        # One pass over the touched nodes (every passage BM25 scored: a median of 168,512 at a
        # million passages): the residual left, e, the k best touched items by v, kept sorted (equal v: lower
        # position first), and the nodes above the next round's threshold, queued as ppr_push would.
        nxt = eps * 0.5
        e = 0.0
        left = 0.0
        m = 0
        seen_items = 0
        size = 0
        for t in range(n_touched):
            u = touched[t]
            left += res[u]
            if res[u] * inv_out[u] > e:
                e = res[u] * inv_out[u]
            if res[u] > 0.0 and (inv_out[u] == 0.0 or res[u] * inv_out[u] > nxt):
                queue[size] = u
                queued[u] = True
                size += 1
            j = item_pos[u]
            if j < 0:
                continue
            seen_items += 1
            s = p[u] + alpha * res[u]
            if m == k and (s < val[k - 1] or (s == val[k - 1] and j > head[k - 1])):
                continue
            q = min(m, k - 1)
            while q > 0 and (val[q - 1] < s or (val[q - 1] == s and head[q - 1] > j)):
                val[q] = val[q - 1]
                head[q] = head[q - 1]
                node[q] = node[q - 1]
                q -= 1
            val[q] = s
            head[q] = j
            node[q] = u
            m = min(m + 1, k)
        # an item's interval is [v, v + beta min(e d, left)]; the top k are certified when each is
        # above the next one's interval, and the k-th above every other item's
        certified = m == k
        for q in range(m - 1):
            u = node[q + 1]
            certified = certified and val[q] - (val[q + 1] + _slack(inv_out[u], e, left, beta)) > margin
        # the largest upper end among the other items: a bound on the untouched ones, then the
        # touched ones, each only raising it, so they are read only while the k-th can still win
        # (a round that fails the checks above reads none of them)
        rest = beta * min(e * item_max_deg, left) if seen_items < n_items else -np.inf
        t = 0
        while certified and val[k - 1] - rest > margin and t < n_touched:
            u = touched[t]
            t += 1
            if item_pos[u] < 0:
                continue
            inside = False
            for q in range(m):
                inside = inside or node[q] == u
            if not inside:
                rest = max(rest, p[u] + alpha * res[u] + _slack(inv_out[u], e, left, beta))
        certified = certified and val[k - 1] - rest > margin
        if certified or left == 0.0 or pushes >= max_pushes:
            for t in range(size):  # the next round's queue, unused: left as it was found
                queued[queue[t]] = False
            break
        eps = nxt
    mass = 0.0
    for t in range(n_touched):
        u = touched[t]
        mass += p[u] + alpha * res[u]
        p[u] = 0.0
        res[u] = 0.0
        seen[u] = False
    if fill:
        for j in range(n_items):
            item_pos[items[j]] = -1
    owed = beta * left
    scores = val / mass if mass > 0.0 else val
    bound = 2.0 * owed / (mass + owed) if mass > 0.0 else 2.0
    return rounds, pushes, head, scores, certified, bound, mass, n_log


@njit(cache=True)
def replay_pushes(indptr, indices, weights, unit, inv_out, log, n_log, p, res, alpha):
    """Repeat the pushes ``log[:n_log]`` (:func:`ppr_push`) on the m columns of ``p`` and ``res``.

    ``res`` (n, m, C order) starts with one piece of the restart vector per column, summing to the
    restart the logged push started from, and ``p`` at 0. Each push is linear in the residual it
    moves, so the same pushes in the same order leave every column the part of ``p`` and ``res``
    that its piece caused: the columns add up to the logged push's ``p`` and ``res`` (to rounding).
    """
    m = p.shape[1]
    beta = 1.0 - alpha
    moved = np.zeros(m)
    for t in range(n_log):
        u = log[t]
        for j in range(m):
            moved[j] = res[u, j]
            p[u, j] += alpha * moved[j]
            res[u, j] = 0.0
        if inv_out[u] == 0.0:
            continue
        for j in range(m):
            moved[j] = beta * moved[j] * inv_out[u]
        if unit:
            for k in range(indptr[u], indptr[u + 1]):
                v = indices[k]
                for j in range(m):
                    res[v, j] += moved[j]
        else:
            for k in range(indptr[u], indptr[u + 1]):
                v = indices[k]
                w = weights[k]
                for j in range(m):
                    res[v, j] += moved[j] * w


@njit(cache=True)
def settle_parts(p, res, alpha, order, total, start, log, n_log, indptr, indices):
    """The replayed pieces' estimates ``(p + alpha res) / total`` (n, m, internal order) as an (m, n)
    array in original order (``order[i]``: the original id of internal position i).

    Only the rows a replay can have written are read: those of ``start`` (where the pieces' residuals
    began) and the neighbours of each pushed node of ``log[:n_log]``; a row read twice is written
    twice, the same. The work is that of the replay, not a pass over every node (a typical question
    on 2WikiMultihopQA reaches a third of them), and the rest of ``p``, ``res`` and the result stay
    pages the process never touches.
    """
    m = p.shape[1]
    out = np.zeros((m, p.shape[0]))
    for t in range(start.size + n_log):
        u = start[t] if t < start.size else log[t - start.size]
        lo, hi = (0, 0) if t < start.size else (indptr[u], indptr[u + 1])
        for kk in range(lo - 1, hi):
            i = u if kk < lo else indices[kk]
            o = order[i]
            for j in range(m):
                out[j, o] = (p[i, j] + alpha * res[i, j]) / total
    return out


@njit(cache=True)
def _slack(inv_out_u, e, left, beta):
    """Width of node u's interval: ``beta min(e d_u, left)`` (0 for a node without edges)."""
    if inv_out_u == 0.0:
        return 0.0
    return beta * min(e / inv_out_u, left)
