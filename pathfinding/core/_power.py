"""Dispatch of one power-iteration query to the row-wise, binned or threaded kernels.

Kept apart from :mod:`pathfinding.core.ppr` so that module stays one readable page of public functions;
the choice of kernel is the only logic here.
"""

from __future__ import annotations

import numba

from pathfinding._validation import check_int
from pathfinding.core import _kernels
from pathfinding.errors import InvalidValueError


def check_threads(threads, method: str, n_vectors: int) -> int:
    """``threads`` as an int in [1, NUMBA_NUM_THREADS], and only where a threaded kernel exists."""
    if threads is None:
        return 1
    threads = check_int("threads", threads, low=1, high=numba.config.NUMBA_NUM_THREADS)
    if threads > 1 and n_vectors > 1:
        raise InvalidValueError(
            f"threads={threads} runs one restart vector at a time, got a block of {n_vectors}"
        )
    if threads > 1 and method in ("gauss-seidel", "push"):
        raise InvalidValueError(
            f"threads={threads} runs the power iteration (Gauss-Seidel sweeps and pushes are sequential); "
            f"got method={method!r}: use method='auto' or 'power'"
        )
    return threads


def power_single(g, r_idx, r_val, alpha, tol_delta, max_iter, threads: int):
    """One restart vector by power iteration: row-wise pull, or bin by bin (the binned layout, and always
    with threads: :meth:`PPRGraph.bins` builds it on first use)."""
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
        return _kernels.ppr_power_bins_parallel(
            *g.thread_groups(threads), *args, r_idx, r_val, alpha, tol_delta, max_iter
        )
    finally:
        numba.set_num_threads(before)
