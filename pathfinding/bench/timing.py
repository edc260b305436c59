"""How the benchmark times: one thread for every library, methods round-robin, medians.

Every method is timed once per repeat, in an order that rotates from repeat to repeat, with the
garbage collector off, so slow drift of the machine (another process, thermal throttling) spreads
over all methods instead of landing on whichever ran last.
"""

from __future__ import annotations

import contextlib
import gc
import os
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from pathfinding._validation import check_int
from pathfinding.bench.config import THREAD_ENV
from pathfinding.core.ppr import personalized_pagerank, ppr_solve
from pathfinding.core.prepared import prepare_graph

__all__ = ["PPRTiming", "round_robin", "single_thread", "time_ppr", "time_prepare"]


@contextlib.contextmanager
def single_thread():
    """Limit numba, OpenMP and BLAS to one thread; yield a description of what was limited."""
    info: dict = {"env": {}, "numba_threads": None, "threadpoolctl": None}
    saved_env = {k: os.environ.get(k) for k in THREAD_ENV}
    for k in THREAD_ENV:
        os.environ[k] = "1"  # reaches subprocesses and libraries not yet loaded
    info["env"] = dict.fromkeys(THREAD_ENV, "1")
    # load the peers now, after the variables are set and before threadpoolctl looks for pools
    for mod in ("igraph", "sknetwork"):
        with contextlib.suppress(ImportError):
            __import__(mod)
    info["numba_threads"] = "1 (no kernel of ours is parallel)"
    limiter = None
    try:
        import threadpoolctl

        limiter = threadpoolctl.threadpool_limits(limits=1)
        info["threadpoolctl"] = [
            {"library": d.get("internal_api"), "threads": d.get("num_threads")}
            for d in threadpoolctl.threadpool_info()
        ]
    except ImportError:
        info["threadpoolctl"] = "not installed: only environment variables were set"
    try:
        yield info
    finally:
        if limiter is not None:
            limiter.restore_original_limits()
        for k, v in saved_env.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def round_robin(methods: dict[str, Callable[[], object]], repeats: int, bar) -> dict[str, list[float]]:
    """Time every method once per repeat, rotating the order; return seconds per call."""
    names = list(methods)
    times: dict[str, list[float]] = {k: [] for k in names}
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        for rep in range(repeats):
            shift = rep % len(names)
            for name in names[shift:] + names[:shift]:
                fn = methods[name]
                t0 = time.perf_counter()
                fn()
                times[name].append(time.perf_counter() - t0)
            bar.update(1)
    finally:
        if gc_was_enabled:
            gc.enable()
    return times


def time_prepare(fn: Callable[[], object], n: int = 3) -> tuple[object, float]:
    """Result and median seconds of ``n`` calls after one warm-up call."""
    out = fn()
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return out, statistics.median(times)


@dataclass(frozen=True)
class PPRTiming:
    """Wall time of one PPR query on one graph.

    Attributes
    ----------
    n_nodes, n_edges : int
        Graph size (edges counted once per direction stored).
    seconds : float
        Median wall time of :func:`~pathfinding.core.ppr.personalized_pagerank` on the prepared graph.
    prepare_seconds : float
        Median wall time of :func:`~pathfinding.core.prepared.prepare_graph` (per graph, paid offline).
    iterations : int
        Iterations (Gauss-Seidel sweeps, the default solver for ``tol > 0``) to reach ``tol``.
    """

    n_nodes: int
    n_edges: int
    seconds: float
    prepare_seconds: float
    iterations: int


def time_ppr(graph, seeds, *, repeats: int = 3, tol: float = 1e-8, max_iter: int | None = None) -> PPRTiming:
    """Time ``prepare_graph`` and one PPR query as the benchmark does: warm-up, repeats, median.

    Each of the two is called once untimed first, so numba's compilation (or the load of its disk
    cache) and first-touch page faults are not counted, then ``repeats`` times; the median is
    reported, so one run disturbed by another process does not move the number
    (:func:`time_prepare` for the preparation).

    Parameters
    ----------
    graph : sparse matrix, shape (n, n)
    seeds : array_like of int
    repeats : int, default 3
        Timed runs of each (``>= 1``), after one untimed warm-up run.
    tol : float, default 1e-8
    max_iter : int, optional
        If given, exactly this many power iterations (``tol=0``), as the chapter's reference times a
        query ("30 iterations"); ``tol`` is then not used.

    Returns
    -------
    PPRTiming

    Examples
    --------
    >>> from pathfinding.synthetic.toy import star_pair
    >>> t = time_ppr(star_pair(9).graph, [0, 1], repeats=1)
    >>> t.n_nodes, t.n_edges, t.iterations > 0, t.seconds > 0
    (19, 36, True, True)
    >>> time_ppr(star_pair(9).graph, [0, 1], repeats=1, max_iter=30).iterations
    30
    """
    repeats = check_int("repeats", repeats, low=1)
    steps = {"tol": tol}
    if max_iter is not None:
        steps = {"tol": 0.0, "max_iter": check_int("max_iter", max_iter, low=1)}
    g, prepare_seconds = time_prepare(lambda: prepare_graph(graph), n=repeats)
    res = ppr_solve(g, seeds, **steps)  # the query's warm-up, and its iteration count
    runs = []
    for _ in range(repeats):
        start = time.perf_counter()
        personalized_pagerank(g, seeds, **steps)
        runs.append(time.perf_counter() - start)
    return PPRTiming(
        n_nodes=g.n_nodes,
        n_edges=g.n_edges,
        seconds=float(np.median(runs)),
        prepare_seconds=prepare_seconds,
        iterations=res.iterations,
    )
