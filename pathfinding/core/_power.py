"""Dispatch of one power-iteration query to the row-wise, binned or threaded kernels, or to scipy.

Kept apart from :mod:`pathfinding.core.ppr` so that module stays one readable page of public functions;
the choice of kernel is the only logic here. numba is imported when a kernel is first needed, so
that :func:`power_scipy` (``method="scipy"``) runs in a process that never loads it.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from pathfinding._validation import check_int
from pathfinding.errors import InvalidValueError


def check_threads(threads, method: str, n_vectors: int) -> int:
    """``threads`` as an int in [1, NUMBA_NUM_THREADS], and only where a threaded kernel exists."""
    if threads is None:
        return 1
    import numba

    threads = check_int("threads", threads, low=1, high=numba.config.NUMBA_NUM_THREADS)
    if threads > 1 and n_vectors > 1:
        raise InvalidValueError(
            f"threads={threads} runs one restart vector at a time, got a block of {n_vectors}"
        )
    if threads > 1 and method in ("gauss-seidel", "push", "scipy"):
        raise InvalidValueError(
            f"threads={threads} runs the compiled power iteration (Gauss-Seidel sweeps and pushes are "
            f"sequential, the scipy iteration runs on one thread); "
            f"got method={method!r}: use method='auto' or 'power'"
        )
    return threads


def power_single(g, r_idx, r_val, alpha, tol_delta, max_iter, threads: int):
    """One restart vector by power iteration: row-wise pull, or bin by bin (the binned layout, and always
    with threads: :meth:`PPRGraph.bins` builds it on first use)."""
    import numba

    from pathfinding.core import _kernels

    if threads == 1 and g.bin_rows is None:
        args = (g.indptr, g.indices, g.weights, g.unit, g.inv_out)
        return _kernels.ppr_power(*args, r_idx, r_val, alpha, tol_delta, max_iter)
    bin_rows, src, dst, bin_weights = g.bins()
    args = (bin_rows, g.indptr, src, dst, bin_weights, g.unit, g.inv_out)
    if threads == 1:
        return _kernels.ppr_power_bins(*args, r_idx, r_val, alpha, tol_delta, max_iter)
    before = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        groups = g.thread_groups(threads)
        return _kernels.ppr_power_bins(*args, r_idx, r_val, alpha, tol_delta, max_iter, groups)
    finally:
        numba.set_num_threads(before)


def power_scipy(g, r, alpha, tol_delta, max_iter):
    """One restart vector ``r`` (internal order) by power iteration with scipy's sparse product.

    The same map, start and stopping rule as :func:`pathfinding.core._kernels.ppr_power`:
    ``pi <- a r + (1 - a) (W^T pi + lost r)`` from ``pi = r``, until the L1 change is at most
    ``tol_delta`` (every iteration when it is negative) or ``max_iter`` iterations. The sums run in
    another order than the kernel's, so ``pi`` agrees with it to rounding, not bit for bit.

    Returns ``(pi, iterations, last_l1_change)`` (the change is NaN when not tracked).
    """
    AT = g._cache.get("scipy")
    if AT is None:
        data = np.ones(g.n_edges) if g.unit else g.weights
        AT = sp.csr_array((data, g.indices, g.indptr), shape=(g.n_nodes, g.n_nodes))
        g._cache["scipy"] = AT
    beta = 1.0 - alpha
    dangling = g.inv_out == 0.0
    pi = r.copy()
    delta = np.nan
    it = 0
    while it < max_iter:
        nxt = AT @ (pi * g.inv_out)
        nxt *= beta
        nxt += (alpha + beta * pi[dangling].sum()) * r
        it += 1
        if tol_delta >= 0.0:
            delta = float(np.abs(nxt - pi).sum())
        pi = nxt
        if tol_delta >= 0.0 and delta <= tol_delta:
            break
    return pi, it, delta
