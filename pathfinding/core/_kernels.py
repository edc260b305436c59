"""The compiled kernels of the walk and the rankers, and nothing else.

Kernels take plain arrays (CSR ``indptr``/``indices``/``weights``, dense vectors), never objects, and
draw no random numbers. They trust their callers: all validation happens in the public functions.
The binned power iteration's kernels call three small helpers of their own (``_power_start``,
``_power_bin``, ``_power_restart``), which is one reason they share a file: numba's disk cache does
not notice an edit to a jitted function that lives in another file. Keeping them together also puts
what ``NUMBA_DISABLE_JIT=1`` turns back into Python in one place. The prefix filter of the synonymy
step keeps its own five loops in :mod:`pathfinding.hipporag.index.neighbours`, beside their only caller.

``alpha`` in every kernel is the *restart* probability (the public ``restart_prob``), the chance of
jumping back to the restart vector at each step. networkx, igraph and most texts call the other
number alpha or "damping": the probability of following an edge. Ours is ``1 - damping``; networkx's
``pagerank(G, alpha=0.85)`` is our ``restart_prob=0.15``.

Readable twins of each kernel are in :mod:`pathfinding.core.reference`, each tested against its kernel.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange


@njit(cache=True)
def ppr_power(indptr, indices, weights, unit, inv_out, r_idx, r_val, alpha, tol_delta, max_iter):
    """Power iteration of pi <- a r + (1 - a) (W^T pi + lost r), pulled over the transpose.

    ``indptr``/``indices``/``weights`` hold A^T in CSR form (row i lists the nodes j with an edge
    j -> i and the weight A[j, i]); ``unit`` says every weight is 1, so ``weights`` is not read;
    ``inv_out[j]`` is 1 / out-weight of j (0 for a dangling node). The restart vector is given
    sparsely (``r_idx``, ``r_val``: its non-zero entries) and is added after the pass over the rows,
    so a query with two seeds does not stream a dense restart vector every iteration. Starting from
    r, one fused pass per iteration computes the new pi, the next scaled vector x = pi / out-weight
    and the next dangling mass; the L1 change (read of the old pi) is only tracked when
    ``tol_delta >= 0``. Stops after ``max_iter`` iterations or once the L1 change is <= ``tol_delta``.

    Returns ``(pi, iterations, last_l1_change)`` (the change is NaN when not tracked).
    """
    n = inv_out.shape[0]
    beta = 1.0 - alpha
    track = tol_delta >= 0.0
    pi = np.zeros(n)
    for t in range(r_idx.shape[0]):
        pi[r_idx[t]] = r_val[t]
    pi_next = np.empty(n)
    x = np.empty(n)
    x_next = np.empty(n)
    lost = 0.0
    for i in range(n):
        x[i] = pi[i] * inv_out[i]
        if inv_out[i] == 0.0:
            lost += pi[i]
    delta = np.nan
    it = 0
    while it < max_iter:
        lost_next = 0.0
        delta = 0.0
        for i in range(n):
            s = 0.0
            if unit:
                for k in range(indptr[i], indptr[i + 1]):
                    s += x[indices[k]]
            else:
                for k in range(indptr[i], indptr[i + 1]):
                    s += weights[k] * x[indices[k]]
            p = beta * s
            if track:
                delta += abs(p - pi[i])
            pi_next[i] = p
            x_next[i] = p * inv_out[i]
            if inv_out[i] == 0.0:
                lost_next += p
        # the restart term, a r + (1 - a) lost r, on the restart vector's support only
        coef = alpha + beta * lost
        for t in range(r_idx.shape[0]):
            i = r_idx[t]
            add = coef * r_val[t]
            old = pi_next[i]
            new = old + add
            if track:
                delta += abs(new - pi[i]) - abs(old - pi[i])
            pi_next[i] = new
            x_next[i] = new * inv_out[i]
            if inv_out[i] == 0.0:
                lost_next += add
        pi, pi_next = pi_next, pi
        x, x_next = x_next, x
        lost = lost_next
        it += 1
        if track and delta <= tol_delta:
            break
    if not track:
        delta = np.nan
    return pi, it, delta


@njit(cache=True)
def ppr_power_block(indptr, indices, weights, unit, inv_out, restart, alpha, tol_delta, max_iter):
    """:func:`ppr_power` for a block of ``b`` restart vectors at once (``restart`` is (n, b)).

    One gather of a neighbour's row serves all ``b`` queries, which is where the throughput comes
    from. Stops when every column's L1 change is <= ``tol_delta``. Returns
    ``(pi, iterations, largest_last_l1_change)``.
    """
    n, b = restart.shape
    beta = 1.0 - alpha
    pi = restart.copy()
    pi_next = np.empty((n, b))
    x = np.empty((n, b))
    x_next = np.empty((n, b))
    lost = np.zeros(b)
    for i in range(n):
        for c in range(b):
            x[i, c] = pi[i, c] * inv_out[i]
            if inv_out[i] == 0.0:
                lost[c] += pi[i, c]
    s = np.empty(b)
    delta = np.full(b, np.inf)
    lost_next = np.empty(b)
    it = 0
    while it < max_iter:
        lost_next[:] = 0.0
        delta[:] = 0.0
        for i in range(n):
            s[:] = 0.0
            for k in range(indptr[i], indptr[i + 1]):
                j = indices[k]
                w = 1.0 if unit else weights[k]
                for c in range(b):
                    s[c] += w * x[j, c]
            for c in range(b):
                p = alpha * restart[i, c] + beta * (s[c] + lost[c] * restart[i, c])
                delta[c] += abs(p - pi[i, c])
                pi_next[i, c] = p
                x_next[i, c] = p * inv_out[i]
                if inv_out[i] == 0.0:
                    lost_next[c] += p
        pi, pi_next = pi_next, pi
        x, x_next = x_next, x
        lost[:] = lost_next
        it += 1
        if delta.max() <= tol_delta:
            break
    return pi, it, delta.max()


@njit(cache=True)
def pull(indptr, indices, weights, unit, x):
    """y = A^T x for A^T stored in CSR form (row i lists the in-neighbours of i)."""
    n = indptr.shape[0] - 1
    y = np.zeros(n)
    for i in range(n):
        s = 0.0
        for k in range(indptr[i], indptr[i + 1]):
            s += (1.0 if unit else weights[k]) * x[indices[k]]
        y[i] = s
    return y


@njit(cache=True)
def mention_count_scores(indptr, indices, data, seeds, n_passages):
    """Vector-RAG's shape over P in CSR form (rows = nodes, columns = passages).

    A passage's score is its count of seed mentions; a node's score is the count-weighted sum of
    the scores of the passages that mention it.
    """
    passage_score = np.zeros(n_passages)
    for s in seeds:
        for k in range(indptr[s], indptr[s + 1]):
            passage_score[indices[k]] += data[k]
    n_nodes = indptr.shape[0] - 1
    node_score = np.zeros(n_nodes)
    for i in range(n_nodes):
        acc = 0.0
        for k in range(indptr[i], indptr[i + 1]):
            acc += data[k] * passage_score[indices[k]]
        node_score[i] = acc
    return node_score


@njit(cache=True)
def passage_scores(indptr, indices, data, pi, n_passages):
    """pi . P over P in CSR form: every node adds its mass, times its count, to its passages."""
    out = np.zeros(n_passages)
    for i in range(indptr.shape[0] - 1):
        p = pi[i]
        if p == 0.0:
            continue
        for k in range(indptr[i], indptr[i + 1]):
            out[indices[k]] += p * data[k]
    return out


@njit(cache=True, nogil=True)
def ppr_gauss_seidel(indptr, indices, weights, unit, inv_out, restart, x, alpha, tol, max_iter, blocks):
    """Gauss-Seidel sweeps for PPR with a certified stop; works on any graph.

    Solves x = beta W^T x + alpha r in place, starting from the given ``x`` (dangling mass dropped;
    pi = x / sum(x) is then the PPR vector with dangling mass returned to r). I - beta W^T is a
    nonsingular M-matrix, so the sweeps converge for every graph, directed or not, and each new x_i
    is used at once by the rows after it: fewer sweeps than the power iteration, one array not two.

    Certificate: after a sweep that changed x by delta (L1), the residual of the new x under
    F(x) = beta W^T x + alpha r is at most beta * delta (row i's residual is beta times the change of
    the entries swept after it), and F is a beta-contraction in L1, so ||x - x*||_1 <= e =
    beta * delta / alpha. Normalising at most doubles a relative error: ||x / sum(x) - pi||_1 <=
    2 e / (sum(x) - e). Stops once that bound is <= ``tol``; returns ``(sweeps, bound, sum(x))``.

    Only the rows in ``blocks`` (an (m, 2) array of [start, stop) row ranges) are swept: the caller
    passes the connected components that hold the restart vector's support, outside which the walk
    never goes and x stays exactly 0. It releases the GIL (``nogil``), so solves of several restart
    vectors can run on threads at once (:func:`pathfinding.core.contributions.restart_contributions`).
    """
    z = x * inv_out
    total = 0.0
    bound = np.inf
    it = 0
    while it < max_iter:
        delta, total = _gs_sweep(indptr, indices, weights, unit, inv_out, restart, x, z, alpha, blocks)
        it += 1
        bound = _gs_bound(delta, total, alpha)
        if bound <= tol:
            break
    return it, bound, total


@njit(cache=True, nogil=True)
def _gs_sweep(indptr, indices, weights, unit, inv_out, restart, x, z, alpha, blocks):
    """One Gauss-Seidel sweep over the rows of ``blocks``, in place (x and z = x / out-weight).

    Returns ``(delta, total)``: the L1 change of x and the new sum of x over the swept rows.
    """
    beta = 1.0 - alpha
    delta = 0.0
    total = 0.0
    one = np.uint64(1)
    for b in range(blocks.shape[0]):
        # Unsigned rows, as in _power_bin: from a signed start numba checks x[i], z[i], restart[i] and
        # inv_out[i] for a negative index. 4-12% less per sweep at 100,000 passages (3 runs).
        for i in range(np.uint64(blocks[b, 0]), np.uint64(blocks[b, 1])):
            s = 0.0
            if unit:
                for k in range(indptr[i], indptr[i + one]):
                    s += z[indices[k]]
            else:
                for k in range(indptr[i], indptr[i + one]):
                    s += weights[k] * z[indices[k]]
            new = beta * s + alpha * restart[i]
            delta += abs(new - x[i])
            x[i] = new
            z[i] = new * inv_out[i]
            total += new
    return delta, total


@njit(cache=True, nogil=True)
def _gs_bound(delta, total, alpha):
    """The certified L1 bound on ``x / total - pi`` after a sweep that changed x by ``delta``."""
    e = (1.0 - alpha) * delta / alpha
    return 2.0 * e / (total - e) if total > e else np.inf


@njit(cache=True)
def ppr_gauss_seidel_top_k(
    indptr, indices, weights, unit, inv_out, restart, x, alpha, tol, max_iter, blocks, items, k, margin,
):
    """Gauss-Seidel sweeps until the order of the top k of ``x[items]`` is certified.

    After each sweep (:func:`ppr_gauss_seidel`'s bound) one pass over the items finds the k + 1
    best scores ``x[items] / sum(x)`` (equal scores: the lower position first); the order is
    certified once every gap between consecutive ones exceeds ``bound + margin``. Stops when
    certified, at ``bound <= tol`` or after ``max_iter`` sweeps. Returns ``(sweeps, bound, head,
    scores, certified)``: ``head`` holds positions in ``items``, best first.
    """
    n_items = items.shape[0]
    kk = min(k + 1, n_items)
    z = x * inv_out
    head = np.empty(kk, np.int64)
    val = np.empty(kk)
    bound = np.inf
    certified = False
    it = 0
    while it < max_iter:
        delta, total = _gs_sweep(indptr, indices, weights, unit, inv_out, restart, x, z, alpha, blocks)
        it += 1
        bound = _gs_bound(delta, total, alpha)
        # the kk best scores, kept sorted: insertion after every score not below the new one
        m = 0
        for j in range(n_items):
            s = x[items[j]] / total
            if m == kk and s <= val[kk - 1]:
                continue
            p = min(m, kk - 1)
            while p > 0 and val[p - 1] < s:
                val[p] = val[p - 1]
                head[p] = head[p - 1]
                p -= 1
            val[p] = s
            head[p] = j
            m = min(m + 1, kk)
        certified = True
        for t in range(kk - 1):
            certified = certified and val[t] - val[t + 1] > bound + margin
        if certified or bound <= tol:
            break
    return it, bound, head[:k].copy(), val[:k].copy(), certified


@njit(cache=True)
def is_symmetric(indptr, indices, data):
    """Whether a square CSR matrix with sorted, unique column indices equals its transpose.

    Rows are visited in increasing order, so the entries (i, j) that ask row j for a partner
    (j, i) arrive with increasing i: one cursor per row walks row j once, and the whole check is
    O(nnz) with no transpose built (a 10-million-edge graph costs one int64 per node).
    """
    n = indptr.shape[0] - 1
    cursor = np.empty(n, np.int64)
    for j in range(n):
        cursor[j] = indptr[j]
    for i in range(n):
        for k in range(indptr[i], indptr[i + 1]):
            j = indices[k]
            c = cursor[j]
            if c == indptr[j + 1] or indices[c] != i or data[c] != data[k]:
                return False
            cursor[j] = c + 1
    for j in range(n):
        if cursor[j] != indptr[j + 1]:
            return False
    return True


@njit(cache=True)
def permute_csr(indptr, indices, data, order, index_dtype_example, with_data):
    """Relabel a square CSR matrix: new node k is old node ``order[k]``; rows keep sorted columns.

    Returns ``(indptr, indices, data)`` of the relabelled matrix; ``indices`` take the dtype of
    ``index_dtype_example``; ``data`` is empty unless ``with_data`` (unit weights need none).
    """
    n = order.shape[0]
    pos = np.empty(n, np.int64)
    for k in range(n):
        pos[order[k]] = k
    new_indptr = np.zeros(n + 1, np.int64)
    for k in range(n):
        old = order[k]
        new_indptr[k + 1] = new_indptr[k] + (indptr[old + 1] - indptr[old])
    nnz = new_indptr[n]
    new_indices = np.empty(nnz, index_dtype_example.dtype)
    new_data = np.empty(nnz if with_data else 0, data.dtype)
    for k in range(n):
        old = order[k]
        start = new_indptr[k]
        first = indptr[old]
        length = indptr[old + 1] - first
        if length <= 32:  # short rows: insertion sort in place, no allocation
            for t in range(length):
                col = pos[indices[first + t]]
                val = data[first + t]
                u = t
                while u > 0 and new_indices[start + u - 1] > col:
                    new_indices[start + u] = new_indices[start + u - 1]
                    if with_data:
                        new_data[start + u] = new_data[start + u - 1]
                    u -= 1
                new_indices[start + u] = col
                if with_data:
                    new_data[start + u] = val
        else:
            cols = np.empty(length, np.int64)
            for t in range(length):
                cols[t] = pos[indices[first + t]]
            perm = np.argsort(cols)
            for t in range(length):
                new_indices[start + t] = cols[perm[t]]
                if with_data:
                    new_data[start + t] = data[first + perm[t]]
    return new_indptr, new_indices, new_data


@njit(cache=True)
def binned_layout(indptr, indices, weights, with_weights, max_width, max_edges):
    """A destination-binned copy of a pull CSR, for power iterations on graphs whose x leaves the cache.

    Rows (destinations) are cut into consecutive bins of at most ``max_width`` rows (at most 65,536:
    a row's offset inside its bin is stored as uint16) and, where a bin can grow by whole rows, at
    most ``max_edges`` edges. A bin's edges are exactly its rows' CSR entries, re-sorted by source:
    one pass over a bin then reads x in increasing order (a prefetchable sweep, not one random cache
    miss per edge) while it accumulates into a slice of the output small enough to stay in L2. Each
    destination still receives its terms in increasing source order, as in the row-wise pull, so the
    sums are bitwise the same.

    Returns ``(bin_rows, src, dst, bin_weights)``: bin b holds rows ``bin_rows[b]:bin_rows[b + 1]``
    and the edges ``indptr[bin_rows[b]]:indptr[bin_rows[b + 1]]`` of ``src`` (source node, the
    dtype of ``indices``), ``dst`` (destination minus the bin's first row) and ``bin_weights``
    (empty unless ``with_weights``).
    """
    n = indptr.shape[0] - 1
    bounds = np.empty(n + 1, np.int64)
    bounds[0] = 0
    nb = 0
    lo = 0
    while lo < n:
        hi = lo + 1
        first = np.int64(indptr[lo])
        while hi < n and hi - lo < max_width and np.int64(indptr[hi + 1]) - first <= max_edges:
            hi += 1
        nb += 1
        bounds[nb] = hi
        lo = hi
    bin_rows = bounds[: nb + 1].copy()
    nnz = indices.shape[0]
    src = np.empty(nnz, indices.dtype)
    dst = np.empty(nnz, np.uint16)
    bin_weights = np.empty(nnz if with_weights else 0, np.float64)
    for b in range(nb):
        lo = bin_rows[b]
        hi = bin_rows[b + 1]
        start = np.int64(indptr[lo])
        stop = np.int64(indptr[hi])
        rows = np.empty(stop - start, np.int64)
        for i in range(lo, hi):
            for k in range(np.int64(indptr[i]), np.int64(indptr[i + 1])):
                rows[k - start] = i - lo
        perm = np.argsort(indices[start:stop], kind="mergesort")
        for t in range(stop - start):
            k = start + perm[t]
            src[start + t] = indices[k]
            dst[start + t] = rows[perm[t]]
            if with_weights:
                bin_weights[start + t] = weights[k]
    return bin_rows, src, dst, bin_weights


@njit(cache=True)
def _power_bin(
    b, bin_rows, indptr, src, dst, bin_weights, unit, x, pi, pi_next, x_next, inv_out, beta, track, part,
):
    """One bin of rows of one power iteration; writes its rows of pi_next/x_next and its two partial sums.

    Bins own disjoint rows, so bins can run on different threads; their partial sums (L1 change,
    dangling mass) land in ``part[b]`` and are added in bin order by the caller, which makes the
    result independent of the thread count.
    """
    # Unsigned row and edge counters: with the signed bounds of bin_rows, numba checks every
    # pi[i], x_next[i], inv_out[i] for a negative index, which made a bin's rows slower per
    # iteration than ppr_power's -- a cap on any threaded gain.
    lo = np.uint64(bin_rows[b])
    hi = np.uint64(bin_rows[b + 1])
    d = 0.0
    lost = 0.0
    for i in range(lo, hi):
        pi_next[i] = 0.0
    if unit:
        for t in range(np.uint64(indptr[lo]), np.uint64(indptr[hi])):
            pi_next[lo + dst[t]] += x[src[t]]
    else:
        for t in range(np.uint64(indptr[lo]), np.uint64(indptr[hi])):
            pi_next[lo + dst[t]] += bin_weights[t] * x[src[t]]
    for i in range(lo, hi):
        p = beta * pi_next[i]
        if track:
            d += abs(p - pi[i])
        pi_next[i] = p
        x_next[i] = p * inv_out[i]
        if inv_out[i] == 0.0:
            lost += p
    part[b, 0] = d
    part[b, 1] = lost


@njit(cache=True)
def _power_start(inv_out, r_idx, r_val):
    """pi = r, x = pi / out-weight, and the dangling mass of r: the state before the first iteration."""
    n = inv_out.shape[0]
    pi = np.zeros(n)
    for t in range(r_idx.shape[0]):
        pi[r_idx[t]] = r_val[t]
    x = np.empty(n)
    lost = 0.0
    for i in range(n):
        x[i] = pi[i] * inv_out[i]
        if inv_out[i] == 0.0:
            lost += pi[i]
    return pi, x, lost


@njit(cache=True)
def _power_restart(pi, pi_next, x_next, inv_out, r_idx, r_val, alpha, beta, lost, track, delta, lost_next):
    """Add a r + (1 - a) lost r on the restart support; return the updated (delta, lost_next)."""
    coef = alpha + beta * lost
    for t in range(r_idx.shape[0]):
        i = r_idx[t]
        add = coef * r_val[t]
        old = pi_next[i]
        new = old + add
        if track:
            delta += abs(new - pi[i]) - abs(old - pi[i])
        pi_next[i] = new
        x_next[i] = new * inv_out[i]
        if inv_out[i] == 0.0:
            lost_next += add
    return delta, lost_next


@njit(cache=True)
def ppr_power_bins(
    bin_rows, indptr, src, dst, bin_weights, unit, inv_out, r_idx, r_val, alpha, tol_delta, max_iter,
):
    """:func:`ppr_power` computed bin by bin (rows ``bin_rows[b]:bin_rows[b + 1]``), on one thread.

    The bins come from :func:`binned_layout` (``src``/``dst``/``bin_weights``; ``indptr`` gives each
    bin's edge range). Same iterate as :func:`ppr_power` up to the order in which the per-bin L1
    change and dangling mass are added; bitwise the same as
    :func:`ppr_power_bins_parallel` on the same bins, whatever its thread count.
    """
    beta = 1.0 - alpha
    track = tol_delta >= 0.0
    nb = bin_rows.shape[0] - 1
    pi, x, lost = _power_start(inv_out, r_idx, r_val)
    pi_next = np.empty_like(pi)
    x_next = np.empty_like(x)
    part = np.zeros((nb, 2))
    delta = np.nan
    it = 0
    while it < max_iter:
        for b in range(nb):
            _power_bin(
                b, bin_rows, indptr, src, dst, bin_weights, unit, x, pi, pi_next, x_next, inv_out, beta,
                track, part,
            )
        delta = 0.0
        lost_next = 0.0
        for b in range(nb):
            delta += part[b, 0]
            lost_next += part[b, 1]
        delta, lost_next = _power_restart(
            pi, pi_next, x_next, inv_out, r_idx, r_val, alpha, beta, lost, track, delta, lost_next
        )
        pi, pi_next = pi_next, pi
        x, x_next = x_next, x
        lost = lost_next
        it += 1
        if track and delta <= tol_delta:
            break
    if not track:
        delta = np.nan
    return pi, it, delta


@njit(cache=True, parallel=True)
def ppr_power_bins_parallel(
    group_ptr, group_bins, bin_rows, indptr, src, dst, bin_weights, unit, inv_out, r_idx, r_val, alpha,
    tol_delta, max_iter,
):
    """:func:`ppr_power_bins` with the bins dealt to threads once, for every iteration.

    Thread t runs the bins ``group_bins[group_ptr[t]:group_ptr[t + 1]]`` (one group per thread,
    :meth:`pathfinding.core.prepared.PPRGraph.thread_groups`), so a bin's rows of pi and x stay in one
    core's cache from one iteration to the next. The text is otherwise :func:`ppr_power_bins`;
    numba compiles it (and starts its thread pool) on the first call only, so the single-threaded
    path never pays for it.
    """
    beta = 1.0 - alpha
    track = tol_delta >= 0.0
    nb = bin_rows.shape[0] - 1
    pi, x, lost = _power_start(inv_out, r_idx, r_val)
    pi_next = np.empty_like(pi)
    x_next = np.empty_like(x)
    part = np.zeros((nb, 2))
    delta = np.nan
    it = 0
    while it < max_iter:
        for t in prange(group_ptr.shape[0] - 1):
            for j in range(group_ptr[t], group_ptr[t + 1]):
                _power_bin(
                    group_bins[j], bin_rows, indptr, src, dst, bin_weights, unit, x, pi, pi_next, x_next,
                    inv_out, beta, track, part,
                )
        delta = 0.0
        lost_next = 0.0
        for b in range(nb):
            delta += part[b, 0]
            lost_next += part[b, 1]
        delta, lost_next = _power_restart(
            pi, pi_next, x_next, inv_out, r_idx, r_val, alpha, beta, lost, track, delta, lost_next
        )
        pi, pi_next = pi_next, pi
        x, x_next = x_next, x
        lost = lost_next
        it += 1
        if track and delta <= tol_delta:
            break
    if not track:
        delta = np.nan
    return pi, it, delta
