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

from pathfinding.bench.config import THREAD_ENV

__all__ = ["round_robin", "single_thread", "time_prepare"]


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
