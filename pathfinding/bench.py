"""Benchmark: our PPR kernels against scipy, igraph (PRPACK) and scikit-network.

``python -m pathfinding bench`` builds two seeded graphs of 100,000 nodes and 400,000 undirected
edges (an Erdős–Rényi-style one and a power-law, knowledge-graph-like one), answers a two-seed query
with restart probability 0.5 by every method, and prints median times, speed ratios, L1 errors
against a tight reference, memory, the JIT compile cost, and how close one iteration gets to the
memory-bandwidth floor of this machine. It ends with PASS/FAIL lines for the project's targets,
computed from the measured numbers.

Everything runs on one thread (numba, OpenMP and BLAS pools are limited to 1), methods are timed
round-robin inside each repeat after a warm-up, and the median over repeats is reported. Timings
are machine- and load-dependent; they are measurements, not constants.

:func:`run_benchmark` returns every measurement as a dict (``--json`` writes it);
:func:`format_table` and :func:`findings_markdown` render it for a terminal and for FINDINGS.md.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import gc
import json
import math
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
import scipy.sparse as sp

__all__ = [
    "add_parser",
    "er_graph",
    "findings_markdown",
    "format_table",
    "plot_scaling",
    "power_law_graph",
    "run_benchmark",
    "save_scaling_figure",
    "scipy_power_iteration",
    "scipy_prepare",
    "stream_bandwidth",
]

RESTART_PROB = 0.5
N_ITER = 30
TOL = 1e-10
REFERENCE_ITER = 200
COMMAND = "python -m pathfinding bench"
# The peers' thread pools (OpenMP, BLAS). Our kernels have no parallel=True, so they run on one thread
# whatever numba's pool size; NUMBA_NUM_THREADS is only set for the JIT subprocess, never in this
# process (numba refuses a new value once its pool has started).
_THREAD_ENV = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


# --------------------------------------------------------------------------------------------------
# Graphs


def _unique_edge_keys(n_nodes: int, n_edges: int, draw: Callable[[int], np.ndarray]) -> np.ndarray:
    """Draw endpoint pairs until exactly ``n_edges`` distinct non-loop pairs; keys are lo * n + hi.

    Pairs are kept in the order they were drawn (first occurrence wins), so a top-up round never
    reorders or replaces the edges of an earlier round and the result depends only on the draws.
    """
    keys = np.empty(0, dtype=np.int64)
    for _ in range(1000):
        need = n_edges - keys.size
        if need <= 0:
            return keys
        m = need + need // 8 + 64
        u, v = draw(m), draw(m)
        keep = u != v
        lo = np.minimum(u, v)[keep].astype(np.int64)
        hi = np.maximum(u, v)[keep].astype(np.int64)
        candidates = np.concatenate([keys, lo * n_nodes + hi])
        _, first = np.unique(candidates, return_index=True)
        first.sort()
        keys = candidates[first[:n_edges]]
    raise RuntimeError(
        f"could not draw {n_edges} distinct edges on {n_nodes} nodes in 1000 rounds; "
        "ask for fewer edges or a flatter degree distribution"
    )


def _symmetric_csr(keys: np.ndarray, n_nodes: int) -> sp.csr_array:
    lo, hi = np.divmod(keys, n_nodes)
    if n_nodes < np.iinfo(np.int32).max:  # scipy's usual index type; halves the index bytes
        lo, hi = lo.astype(np.int32), hi.astype(np.int32)
    rows = np.concatenate([lo, hi])
    cols = np.concatenate([hi, lo])
    A = sp.csr_array((np.ones(rows.size), (rows, cols)), shape=(n_nodes, n_nodes))
    A.sum_duplicates()  # none exist; this sorts the indices and marks the format canonical
    return A


def _check_sizes(n_nodes, n_edges) -> tuple[int, int]:
    from pathfinding._validation import check_int

    n_nodes = check_int("n_nodes", n_nodes, low=2)
    n_edges = check_int("n_edges", n_edges, low=0)
    most = n_nodes * (n_nodes - 1) // 2
    if n_edges > most:
        raise ValueError(f"n_edges must be at most n_nodes * (n_nodes - 1) / 2 = {most}, got {n_edges}")
    return n_nodes, n_edges


def er_graph(n_nodes: int, n_edges: int, rng=None) -> sp.csr_array:
    """An Erdős–Rényi-style undirected graph with exactly ``n_edges`` edges.

    Endpoints are uniform random node pairs; self-loops are dropped, duplicates removed, and the graph
    is topped up with fresh pairs until it has exactly ``n_edges`` edges.

    Parameters
    ----------
    n_nodes : int
        Number of nodes, at least 2.
    n_edges : int
        Number of undirected edges, at most ``n_nodes * (n_nodes - 1) / 2``.
    rng : None, int or numpy.random.Generator
        Source of randomness; the same seed gives the same graph.

    Returns
    -------
    scipy.sparse.csr_array of float64, shape (n_nodes, n_nodes)
        Symmetric, unit weights, no self-loops, canonical (sorted, unique indices).

    Examples
    --------
    >>> A = er_graph(100, 300, rng=0)
    >>> A.shape, int(A.nnz), bool((A != A.T).nnz == 0), float(A.diagonal().sum())
    ((100, 100), 600, True, 0.0)
    """
    n_nodes, n_edges = _check_sizes(n_nodes, n_edges)
    rng = np.random.default_rng(rng)
    keys = _unique_edge_keys(n_nodes, n_edges, lambda m: rng.integers(0, n_nodes, size=m))
    return _symmetric_csr(keys, n_nodes)


def power_law_graph(n_nodes: int, n_edges: int, rng=None, *, exponent: float = 2.3) -> sp.csr_array:
    """A Chung–Lu graph with a power-law expected-degree sequence (skewed, knowledge-graph-like).

    Node ``i`` (before a random relabelling) gets weight ``(i + 1) ** (-1 / (exponent - 1))``, so the
    expected degrees follow a power law with the given exponent; both endpoints of every edge are
    drawn in proportion to the weights. Self-loops are dropped, duplicates removed and the graph is
    topped up to exactly ``n_edges`` edges. Node ids are shuffled so that hubs are not packed at the
    start of the arrays (real graphs give no such gift to the cache).

    Parameters
    ----------
    n_nodes, n_edges : int
        As in :func:`er_graph`.
    rng : None, int or numpy.random.Generator
    exponent : float, default 2.3
        Power-law exponent of the degree distribution, > 2 (knowledge graphs sit around 2.1-2.5).

    Returns
    -------
    scipy.sparse.csr_array of float64, shape (n_nodes, n_nodes)
        Symmetric, unit weights, no self-loops, canonical.

    References
    ----------
    .. [1] F. Chung, L. Lu. "Connected components in random graphs with given expected degree
       sequences." Annals of Combinatorics 6, 2002.

    Examples
    --------
    >>> A = power_law_graph(2000, 8000, rng=0)
    >>> deg = A.sum(axis=1)
    >>> int(A.nnz), bool(deg.max() > 10 * deg.mean())
    (16000, True)
    """
    from pathfinding._validation import check_float

    n_nodes, n_edges = _check_sizes(n_nodes, n_edges)
    exponent = check_float("exponent", exponent, low=2.0, high=np.inf, low_open=True, high_open=True)
    rng = np.random.default_rng(rng)
    weights = np.arange(1, n_nodes + 1, dtype=np.float64) ** (-1.0 / (exponent - 1.0))
    cdf = np.cumsum(weights)
    cdf /= cdf[-1]
    label = rng.permutation(n_nodes)

    def draw(m: int) -> np.ndarray:
        rank = np.minimum(np.searchsorted(cdf, rng.random(m), side="right"), n_nodes - 1)
        return label[rank]

    keys = _unique_edge_keys(n_nodes, n_edges, draw)
    return _symmetric_csr(keys, n_nodes)


# --------------------------------------------------------------------------------------------------
# Peers


def scipy_prepare(A) -> tuple[sp.csr_array, np.ndarray]:
    """Per-graph work of the textbook scipy power iteration: W^T in CSR form and the dangling nodes.

    ``W = D^-1 A`` is the row-normalised walk matrix; a node without out-edges keeps a zero row and
    is listed in ``dangling`` (its mass returns to the restart vector).
    """
    A = sp.csr_array(A, dtype=np.float64)
    out = np.asarray(A.sum(axis=1)).ravel()
    inv = np.zeros_like(out)
    np.divide(1.0, out, out=inv, where=out > 0)
    WT = sp.csr_array((sp.diags_array(inv) @ A).T)
    WT.sort_indices()
    return WT, np.flatnonzero(out == 0)


def scipy_power_iteration(
    WT, dangling: np.ndarray, r: np.ndarray, *, restart_prob: float = RESTART_PROB, n_iter: int = N_ITER
) -> np.ndarray:
    """Exactly ``n_iter`` steps of ``pi = a r + (1 - a) (W^T pi + lost r)`` with scipy's CSR matvec.

    The standard way a scipy user writes PPR: one sparse matrix-vector product per iteration.
    """
    a = restart_prob
    ar = a * r
    pi = r.copy()
    for _ in range(n_iter):
        pi = ar + (1.0 - a) * (WT @ pi + pi[dangling].sum() * r)
    return pi


# --------------------------------------------------------------------------------------------------
# Machine probes


def stream_bandwidth(*, megabytes: int = 256, trials: int = 7) -> dict:
    """A STREAM-like probe of sustained memory bandwidth with numpy, on one thread.

    Copy (``c[:] = a``) counts 2 array transfers; the numpy triad ``c = b * 3; c += a`` runs as two
    passes and counts the 5 transfers it really makes. Best of ``trials`` for each; the larger of
    the two rates is ``bandwidth_GBps``. Arrays of ``megabytes`` each; pick them larger than the
    last-level cache, or the probe measures the cache.

    Returns
    -------
    dict
        ``copy_GBps``, ``triad_GBps``, ``bandwidth_GBps`` (decimal GB/s), ``array_MB``, ``trials``.
    """
    n = int(megabytes) * 2**20 // 8
    a = np.full(n, 1.0)
    b = np.full(n, 2.0)
    c = np.full(n, 0.0)
    nbytes = a.nbytes
    best_copy = best_triad = np.inf
    for _ in range(trials):
        t0 = time.perf_counter()
        np.copyto(c, a)
        best_copy = min(best_copy, time.perf_counter() - t0)
        t0 = time.perf_counter()
        np.multiply(b, 3.0, out=c)
        np.add(c, a, out=c)
        best_triad = min(best_triad, time.perf_counter() - t0)
    copy = 2 * nbytes / best_copy / 1e9
    triad = 5 * nbytes / best_triad / 1e9
    return {
        "copy_GBps": copy,
        "triad_GBps": triad,
        "bandwidth_GBps": max(copy, triad),
        "array_MB": int(megabytes),
        "trials": int(trials),
    }


def _read_status(key: str) -> int | None:
    """A ``/proc/self/status`` field in bytes (VmRSS, VmHWM), or None off Linux."""
    try:
        text = Path("/proc/self/status").read_text()
    except OSError:
        return None
    m = re.search(rf"^{key}:\s+(\d+) kB", text, re.MULTILINE)
    return int(m.group(1)) * 1024 if m else None


def _reset_peak_rss() -> bool:
    """Return freed heap pages to the OS and reset the kernel's peak-RSS mark (Linux >= 4.0)."""
    gc.collect()
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def _memory_of(fn: Callable[[], object]) -> dict:
    """Peak extra memory of one call: RSS high-water mark minus RSS before, and tracemalloc's peak.

    The RSS delta sees every allocation (numpy, numba's runtime, C libraries) but only pages that
    were touched, and can understate when freed heap pages are reused. tracemalloc sees what goes
    through Python's allocators: numpy arrays and numba's runtime arrays (numba allocates with
    ``PyMem_RawMalloc``), but not C libraries that call ``malloc`` themselves.
    """
    out: dict = {"rss_peak_extra_bytes": None, "tracemalloc_peak_bytes": None}
    if _reset_peak_rss():
        before = _read_status("VmRSS")
        fn()
        peak = _read_status("VmHWM")
        if before is not None and peak is not None:
            out["rss_peak_extra_bytes"] = max(0, peak - before)
    gc.collect()
    tracemalloc.start()
    try:
        fn()
        out["tracemalloc_peak_bytes"] = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return out


def _machine() -> dict:
    cpu = platform.processor() or platform.machine()
    with contextlib.suppress(OSError):
        m = re.search(r"^model name\s*:\s*(.+)$", Path("/proc/cpuinfo").read_text(), re.MULTILINE)
        if m:
            cpu = m.group(1).strip()
    ram = None
    with contextlib.suppress(OSError, AttributeError):
        m = re.search(r"^MemTotal:\s+(\d+) kB", Path("/proc/meminfo").read_text(), re.MULTILINE)
        ram = int(m.group(1)) * 1024
    l3 = None
    with contextlib.suppress(OSError):
        for level in Path("/sys/devices/system/cpu/cpu0/cache").glob("index*"):
            if (level / "level").read_text().strip() == "3":
                l3 = (level / "size").read_text().strip()
    versions = {"python": platform.python_version()}
    for mod in ("numpy", "scipy", "numba", "igraph", "sknetwork"):
        try:
            versions[mod] = __import__(mod).__version__
        except ImportError:
            versions[mod] = None
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "ram_bytes": ram,
        "l3_cache": l3,
        "platform": platform.platform(),
        "versions": versions,
    }


_JIT_SCRIPT = r"""
import json, sys, time
import numpy as np, scipy.sparse as sp
from pathfinding import ppr
n = 64
i = np.arange(n)
A = sp.csr_array((np.ones(2 * n), (np.r_[i, (i + 1) % n], np.r_[(i + 1) % n, i])), shape=(n, n))
g = ppr.prepare_graph(A)
R = np.full((n, 4), 1.0 / n)
calls = {
    "single": lambda: ppr.ppr_solve(g, [0, 1], tol=0, max_iter=30),
    "tol": lambda: ppr.ppr_solve(g, [0, 1], tol=1e-10),
    "block": lambda: ppr.ppr_solve(g, R, tol=0, max_iter=30),
}
if hasattr(ppr, "ppr_top_k"):
    calls["top_k"] = lambda: ppr.ppr_top_k(g, [0, 1], 5)
out = {}
for name, call in calls.items():
    try:
        t0 = time.perf_counter(); call(); t1 = time.perf_counter(); call(); t2 = time.perf_counter()
    except Exception as exc:  # a signature we do not know; report it instead of failing
        out[name] = {"error": repr(exc)}
        continue
    out[name] = {"first_s": t1 - t0, "warm_s": t2 - t1, "compile_s": (t1 - t0) - (t2 - t1)}
print(json.dumps(out))
"""


def _jit_compile_times() -> dict:
    """First-call minus warm-call time in fresh processes: with an empty cache, then with it filled.

    The first process compiles every kernel and writes numba's on-disk cache into a new temporary
    ``NUMBA_CACHE_DIR``; the second process loads the kernels from that cache.
    """
    root = str(Path(__file__).resolve().parent.parent)
    result: dict = {}
    with tempfile.TemporaryDirectory(prefix="pathfinding-numba-cache-") as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=root, NUMBA_NUM_THREADS="1")
        env.update(dict.fromkeys(_THREAD_ENV, "1"))
        for label in ("cold_cache", "warm_cache"):
            proc = subprocess.run(
                [sys.executable, "-c", _JIT_SCRIPT], env=env, capture_output=True, text=True, timeout=600
            )
            if proc.returncode != 0:
                result[label] = {"error": proc.stderr.strip().splitlines()[-1:]}
            else:
                result[label] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


# --------------------------------------------------------------------------------------------------
# Timing


@contextlib.contextmanager
def _single_thread():
    """Limit numba, OpenMP and BLAS to one thread; yield a description of what was limited."""
    info: dict = {"env": {}, "numba_threads": None, "threadpoolctl": None}
    saved_env = {k: os.environ.get(k) for k in _THREAD_ENV}
    for k in _THREAD_ENV:
        os.environ[k] = "1"  # reaches subprocesses and libraries not yet loaded
    info["env"] = dict.fromkeys(_THREAD_ENV, "1")
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


def _round_robin(methods: dict[str, Callable[[], object]], repeats: int, bar) -> dict[str, list[float]]:
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


def _l1(x, y) -> float:
    return float(np.abs(np.asarray(x, dtype=np.float64) - np.asarray(y, dtype=np.float64)).sum())


def _csr_bytes(A) -> int:
    return int(A.indptr.nbytes + A.indices.nbytes + A.data.nbytes)


def _prepared_bytes(g) -> int:
    arrays = [getattr(g, k, None) for k in ("indptr", "indices", "weights", "inv_out", "order")]
    return int(sum(a.nbytes for a in arrays if isinstance(a, np.ndarray)))


def _iteration_bytes(g) -> tuple[int, str]:
    """Bytes one single-query iteration of the pull kernel must move, and the formula used."""
    n, nnz = g.n_nodes, g.n_edges
    weights = 0 if g.unit else g.weights.nbytes
    total = g.indptr.nbytes + g.indices.nbytes + weights + 8 * nnz + 3 * 8 * n
    formula = (
        f"indptr {g.indptr.itemsize}(n+1) + indices {g.indices.itemsize}*nnz"
        + ("" if g.unit else " + weights 8*nnz")
        + " + gathers 8*nnz (one float64 per edge, no cache reuse) + vectors 3*8n "
        "(read inv_out; write pi_next, x_next; the restart is sparse and the old pi is not read at tol=0)"
    )
    return int(total), formula


def _top_k_call(ppr, g, seeds, k):
    try:
        return ppr.ppr_top_k(g, seeds, k, restart_prob=RESTART_PROB)
    except TypeError:
        return ppr.ppr_top_k(g, seeds, k)


def _top_k_summary(res, reference: np.ndarray, k: int) -> dict:
    """Iterations and, when the result exposes node ids, whether they match the reference top k."""
    out: dict = {"iterations": None, "matches_reference": None, "certified": None}
    if getattr(res, "certified", None) is not None:
        out["certified"] = bool(res.certified)
    it = getattr(res, "iterations", None)
    out["iterations"] = int(it) if it is not None else None
    ids = None
    for attr in ("nodes", "indices", "top", "ids", "order", "ranking"):
        cand = getattr(res, attr, None)
        if cand is not None and np.asarray(cand).ndim == 1 and np.asarray(cand).size == k:
            ids = np.asarray(cand)
            break
    if ids is None and isinstance(res, np.ndarray) and res.ndim == 1 and res.size == k:
        ids = res
    if ids is not None and np.issubdtype(ids.dtype, np.integer):
        want = np.argsort(-reference, kind="stable")[:k]
        # ties at the boundary make any order among equal scores correct
        out["matches_reference"] = bool(np.allclose(reference[ids], reference[want], rtol=0, atol=1e-13))
    return out


# --------------------------------------------------------------------------------------------------
# The benchmark


def _time_prepare(fn: Callable[[], object], n: int = 3) -> tuple[object, float]:
    """Result and median seconds of ``n`` calls after one warm-up call."""
    out = fn()
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return out, statistics.median(times)


def _bench_graph(name, A, rng, *, repeats, batch_sizes, top_k, bandwidth, bar, notes) -> dict:
    from pathfinding import ppr

    n = A.shape[0]
    deg = np.diff(A.indptr)
    seeds = np.sort(rng.choice(np.flatnonzero(deg > 0), size=2, replace=False))
    r = np.zeros(n)
    r[seeds] = 0.5

    # per-graph costs: one untimed call (the first may load or compile a kernel), then median of 3
    g, prepare_s = _time_prepare(lambda: ppr.prepare_graph(A))
    (WT, dangling), scipy_prepare_s = _time_prepare(lambda: scipy_prepare(A))

    reference = scipy_power_iteration(WT, dangling, r, n_iter=REFERENCE_ITER)
    ours_tight = ppr.ppr_solve(g, seeds, restart_prob=RESTART_PROB, tol=0, max_iter=REFERENCE_ITER).pi

    methods: dict[str, Callable[[], object]] = {
        "ours-30": lambda: ppr.ppr_solve(g, seeds, restart_prob=RESTART_PROB, tol=0, max_iter=N_ITER),
        "ours-tol": lambda: ppr.ppr_solve(g, seeds, restart_prob=RESTART_PROB, tol=TOL),
        "scipy-30": lambda: scipy_power_iteration(WT, dangling, r, n_iter=N_ITER),
    }
    # Batched blocks: column 0 is the benchmark query, the rest are fresh random seed pairs.
    blocks = {}
    for b in batch_sizes:
        R = np.zeros((n, b))
        R[seeds, 0] = 0.5
        for c in range(1, b):
            R[rng.choice(np.flatnonzero(deg > 0), size=2, replace=False), c] = 0.5
        blocks[b] = R
        methods[f"ours-batch-{b}"] = lambda R=R: ppr.ppr_solve(
            g, R, restart_prob=RESTART_PROB, tol=0, max_iter=N_ITER
        )
    try:
        import igraph

        edges = np.column_stack(sp.triu(A, k=1, format="coo").coords)
        ig = igraph.Graph(n=n, edges=edges.tolist(), directed=False)
        seed_list = [int(s) for s in seeds]
        methods["igraph-prpack"] = lambda: ig.personalized_pagerank(
            reset=r, damping=1.0 - RESTART_PROB, implementation="prpack", directed=False
        )
        methods["igraph-prpack-seeds"] = lambda: ig.personalized_pagerank(
            reset_vertices=seed_list, damping=1.0 - RESTART_PROB, implementation="prpack", directed=False
        )
    except ImportError:
        notes.append("igraph is not importable: igraph PRPACK skipped")
    try:
        from sknetwork.ranking import PageRank

        A_matrix = sp.csr_matrix(A)  # sknetwork checks for the csr_matrix class
        methods["sknetwork-30"] = lambda: PageRank(
            damping_factor=1.0 - RESTART_PROB, solver="piteration", n_iter=N_ITER, tol=0.0
        ).fit_predict(A_matrix, weights=r)
    except ImportError:
        notes.append("scikit-network is not importable: sknetwork PageRank skipped")
    has_top_k = hasattr(ppr, "ppr_top_k")
    if has_top_k:
        methods["ours-top-k"] = lambda: _top_k_call(ppr, g, seeds, top_k)

    # Warm-up: compiles or loads kernels, faults pages in, and gives the results we check.
    results = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for key, fn in methods.items():
            results[key] = fn()
    bar.update(1)
    times = _round_robin(methods, repeats, bar)
    median_ms = {k: 1e3 * statistics.median(v) for k, v in times.items()}

    rows: dict[str, dict] = {}

    def row(key, *, pi=None, vs=None, iterations=None, **extra):
        d = {"median_ms": median_ms[key], "times_ms": [1e3 * t for t in times[key]]}
        if pi is not None:
            d["l1_vs_reference"] = _l1(pi, reference)
        if vs is not None:
            d["baseline"] = vs
            d["ratio"] = median_ms[key] / median_ms[vs]  # > 1: ours is faster
        if iterations is not None:
            d["iterations"] = int(iterations)
        d.update(extra)
        rows[key] = d

    ours30 = results["ours-30"]
    scipy30 = results["scipy-30"]
    row("ours-30", pi=ours30.pi, iterations=ours30.iterations, l1_vs_scipy_30=_l1(ours30.pi, scipy30))
    ours_tol = results["ours-tol"]
    row(
        "ours-tol",
        pi=ours_tol.pi,
        iterations=ours_tol.iterations,
        error_bound=ours_tol.error_bound,
        converged=bool(ours_tol.converged),
    )
    row("scipy-30", pi=scipy30, vs="ours-30", iterations=N_ITER)
    for key in ("igraph-prpack", "igraph-prpack-seeds"):
        if key in methods:
            row(key, pi=np.asarray(results[key]), vs="ours-tol")
    if "sknetwork-30" in methods:
        sk = results["sknetwork-30"]
        row("sknetwork-30", pi=sk, vs="ours-30", iterations=N_ITER, l1_vs_scipy_30=_l1(sk, scipy30))
    single_qps = 1e3 / median_ms["ours-30"]
    for b, R in blocks.items():
        key = f"ours-batch-{b}"
        block = results[key].pi
        col_l1 = max(_l1(block[:, c], ppr.ppr_solve(g, R[:, c], tol=0, max_iter=N_ITER).pi) for c in range(b))
        qps = b * 1e3 / median_ms[key]
        row(
            key,
            pi=block[:, 0],
            iterations=results[key].iterations,
            batch=b,
            queries_per_s=qps,
            single_queries_per_s=single_qps,
            speedup_vs_single=qps / single_qps,
            max_column_l1_vs_single=col_l1,
        )
    if has_top_k:
        summary = _top_k_summary(results["ours-top-k"], reference, top_k)
        row("ours-top-k", vs=None, k=top_k, full_tol_iterations=ours_tol.iterations, **summary)
        rows["ours-top-k"]["time_vs_ours_tol"] = median_ms["ours-top-k"] / median_ms["ours-tol"]
    else:
        notes.append("ppr_top_k not available")

    # Memory of one query, and the bandwidth floor of one iteration.
    memory = {
        "csr_bytes": _csr_bytes(A),
        "prepared_graph_bytes": _prepared_bytes(g),
        "ours_30": _memory_of(methods["ours-30"]),
        "scipy_30": _memory_of(methods["scipy-30"]),
    }
    bar.update(1)
    it_bytes, formula = _iteration_bytes(g)
    floor_s = it_bytes / (bandwidth * 1e9)
    per_iter_s = median_ms["ours-30"] / 1e3 / N_ITER
    floor = {
        "bytes_per_iteration": it_bytes,
        "formula": formula,
        "bandwidth_GBps": bandwidth,
        "floor_ms_per_iteration": 1e3 * floor_s,
        "ours_ms_per_iteration": 1e3 * per_iter_s,
        "multiple_of_floor": per_iter_s / floor_s,
    }
    return {
        "name": name,
        "n_nodes": int(n),
        "n_edges": int(A.nnz // 2),
        "nnz": int(A.nnz),
        "max_degree": int(deg.max()),
        "mean_degree": float(deg.mean()),
        "seeds": [int(s) for s in seeds],
        "prepare_ms": 1e3 * prepare_s,
        "scipy_prepare_ms": 1e3 * scipy_prepare_s,
        "reference": f"scipy power iteration, {REFERENCE_ITER} iterations",
        "reference_l1_vs_ours_200": _l1(ours_tight, reference),
        "methods": rows,
        "memory": memory,
        "floor": floor,
    }


def _scaling(rng, *, quick, repeats, bandwidth, bar) -> list[dict]:
    """ours-30 and scipy-30 against edge count (ER graphs, 4 edges per node)."""
    from pathfinding import ppr

    exps = np.linspace(3, 5, 4) if quick else np.linspace(4, 7, 7)
    out = []
    for m in np.round(10.0**exps).astype(np.int64):
        m = int(m)
        n = max(2, m // 4)
        reps = repeats if m <= 1_000_000 else min(repeats, 3)
        A = er_graph(n, m, rng)
        csr = _csr_bytes(A)
        base = _read_status("VmRSS") if _reset_peak_rss() else None
        t0 = time.perf_counter()
        g = ppr.prepare_graph(A)
        prepare_s = time.perf_counter() - t0
        peak = _read_status("VmHWM")
        prepare_extra = None if base is None or peak is None else max(0, peak - base)
        WT, dangling = scipy_prepare(A)
        deg = np.diff(A.indptr)
        seeds = np.sort(rng.choice(np.flatnonzero(deg > 0), size=2, replace=False))
        r = np.zeros(n)
        r[seeds] = 0.5
        methods = {
            "ours-30": lambda g=g, seeds=seeds: ppr.ppr_solve(
                g, seeds, restart_prob=RESTART_PROB, tol=0, max_iter=N_ITER
            ),
            "scipy-30": lambda WT=WT, d=dangling, r=r: scipy_power_iteration(WT, d, r, n_iter=N_ITER),
        }
        warm = {k: fn() for k, fn in methods.items()}
        times = _round_robin(methods, reps, bar)
        bar.update(repeats - reps)
        mem = _memory_of(methods["ours-30"])
        extra = mem["rss_peak_extra_bytes"]
        it_bytes, _ = _iteration_bytes(g)
        ours_ms = 1e3 * statistics.median(times["ours-30"])
        scipy_ms = 1e3 * statistics.median(times["scipy-30"])
        out.append(
            {
                "n_nodes": n,
                "n_edges": m,
                "repeats": reps,
                "ours_30_ms": ours_ms,
                "scipy_30_ms": scipy_ms,
                "ratio": scipy_ms / ours_ms,
                "l1_ours_vs_scipy": _l1(warm["ours-30"].pi, warm["scipy-30"]),
                "prepare_ms": 1e3 * prepare_s,
                "csr_bytes": csr,
                "prepared_graph_bytes": _prepared_bytes(g),
                "prepare_peak_extra_bytes": prepare_extra,
                "query_rss_peak_extra_bytes": extra,
                "query_tracemalloc_peak_bytes": mem["tracemalloc_peak_bytes"],
                # what must be resident to answer queries: the prepared graph plus one query's peak
                "query_footprint_over_csr": None if extra is None else (_prepared_bytes(g) + extra) / csr,
                "floor_ms": 1e3 * N_ITER * it_bytes / (bandwidth * 1e9),
            }
        )
        del A, g, WT, methods, warm
        gc.collect()
    return out


def _workloads() -> dict:
    """The package's own end-to-end workloads, timed warm: the FINDINGS sweep and real-text retrieval."""
    from pathfinding.experiment import run_experiment
    from pathfinding.hipporag.realtext import benchmark as realtext_benchmark

    run_experiment(trials=20, progress=False)  # warm: compile/load every kernel once
    t0 = time.perf_counter()
    run_experiment(trials=1000, progress=False)
    sweep = time.perf_counter() - t0
    rt = realtext_benchmark(n_builds=3)
    return {
        "findings_sweep_s": sweep,
        "realtext_build_s": rt["build_seconds"],
        "realtext_query_ms_median": rt["query_ms_median"],
        "realtext_query_ms_p90": rt["query_ms_p90"],
        "realtext_n_queries": rt["n_queries"],
    }


def _targets(graphs: dict[str, dict], scaling: list[dict] | None, work: dict | None = None) -> list[dict]:
    """PASS/FAIL per project target, computed from the measured numbers."""
    out = []

    def add(target, graph, measured, ok):
        out.append({"target": target, "graph": graph, "measured": measured, "status": ok})

    for gname, need in (("power-law", 2.0), ("ER", 1.5)):
        if gname not in graphs:
            continue
        m = graphs[gname]["methods"]
        ratio, l1 = m["scipy-30"]["ratio"], m["ours-30"]["l1_vs_scipy_30"]
        add(
            f"ours-30 >= {need:g}x faster than scipy-30, L1(ours-30, scipy-30) <= 1e-12",
            gname,
            f"{ratio:.2f}x, L1 {l1:.1e}",
            "PASS" if ratio >= need and l1 <= 1e-12 else "FAIL",
        )
    for gname, gr in graphs.items():
        m = gr["methods"]
        peers = [k for k in ("igraph-prpack", "igraph-prpack-seeds") if k in m]
        if not peers:
            add(
                "ours-tol >= 3x faster than igraph PRPACK at equal or better L1",
                gname,
                "igraph absent",
                "SKIP",
            )
        else:
            best = min(peers, key=lambda k: m[k]["median_ms"])
            ratio = m[best]["ratio"]
            ours_l1, ig_l1 = m["ours-tol"]["l1_vs_reference"], m[best]["l1_vs_reference"]
            ok = ratio >= 3.0 and ours_l1 <= ig_l1
            add(
                "ours-tol >= 3x faster than igraph PRPACK (fastest call form) at equal or better L1",
                gname,
                f"{ratio:.2f}x ({best}), L1 ours {ours_l1:.1e} vs igraph {ig_l1:.1e}",
                "PASS" if ok else "FAIL",
            )
        peer_ratios = {k: v["ratio"] for k, v in m.items() if not k.startswith("ours") and "ratio" in v}
        worst = min(peer_ratios, key=peer_ratios.get)
        add(
            "ours ahead of every peer measured",
            gname,
            f"slowest margin {peer_ratios[worst]:.2f}x ({worst})",
            "PASS" if peer_ratios[worst] > 1.0 else "FAIL",
        )
    if scaling:
        top = max(scaling, key=lambda s: s["n_edges"])
        fp = top["query_footprint_over_csr"]
        add(
            "largest scaling graph runs; prepared graph + query peak within 2x of the CSR arrays",
            f"ER {top['n_edges']:.0e} edges",
            "n/a" if fp is None else f"{fp:.2f}x of {top['csr_bytes'] / 2**20:.0f} MiB",
            "SKIP" if fp is None else ("PASS" if fp <= 2.0 else "FAIL"),
        )
    if work:
        sweep, build, query = (
            work["findings_sweep_s"],
            work["realtext_build_s"],
            work["realtext_query_ms_median"],
        )
        add(
            "FINDINGS sweep (3 depths x 1000 trials x 5 rankers) < 10 s warm",
            "synthetic",
            f"{sweep:.2f} s",
            "PASS" if sweep < 10 else "FAIL",
        )
        add(
            "real-text index build (1,890 passages, default encoder) < 5 s",
            "MuSiQue",
            f"{build:.2f} s (median of 3)",
            "PASS" if build < 5 else "FAIL",
        )
        add(
            "real-text query (linking + PPR + passage scores) median < 5 ms",
            "MuSiQue",
            f"{query:.2f} ms (p90 {work['realtext_query_ms_p90']:.2f} ms, "
            f"{work['realtext_n_queries']} questions)",
            "PASS" if query < 5 else "FAIL",
        )
    return out


def run_benchmark(
    *,
    quick: bool = False,
    repeats: int = 7,
    seed: int = 0,
    batch_sizes=(8, 32),
    scaling: bool = False,
    progress=None,
    top_k: int = 10,
    jit: bool = True,
) -> dict:
    """Run the whole benchmark and return every measurement.

    Parameters
    ----------
    quick : bool, default False
        Small graphs (10,000 nodes, 40,000 edges), at most 3 repeats, a 64 MB bandwidth probe: a run
        of seconds for tests.
    repeats : int, default 7
        Timed repeats per method (after one warm-up call); the median is reported.
    seed : int, default 0
        Seed of the graphs and queries.
    batch_sizes : sequence of int, default (8, 32)
        Block sizes b for the batched query.
    scaling : bool, default False
        Also time ours-30 and scipy-30 on ER graphs from 1e4 to 1e7 edges (1e3 to 1e5 with quick).
    progress : None or bool
        Progress bar on stderr: None shows it on a terminal only, True always, False never.
    top_k : int, default 10
        k for ``ppr_top_k``, when the package provides it.
    jit : bool, default True
        Measure the JIT compile time in fresh subprocesses (a few seconds).

    Returns
    -------
    dict
        Keys ``config``, ``machine``, ``threads``, ``stream``, ``jit``, ``graphs`` (per graph: sizes,
        per-method measurements, memory, bandwidth floor), ``targets``, ``scaling`` and ``notes``.
    """
    from tqdm.auto import tqdm

    from pathfinding._validation import check_int

    repeats = check_int("repeats", repeats, low=1)
    seed = check_int("seed", seed, low=0)
    top_k = check_int("top_k", top_k, low=1)
    batch_sizes = tuple(check_int("batch size", b, low=1) for b in batch_sizes)
    if quick:
        repeats = min(repeats, 3)
    n_nodes, n_edges = (10_000, 40_000) if quick else (100_000, 400_000)
    notes: list[str] = []
    disable = None if progress is None else not progress
    n_scaling = 4 if quick else 7
    total = 2 * (repeats + 2) + 2 + (n_scaling * repeats if scaling else 0)
    ss = np.random.SeedSequence(seed)
    graph_seed, query_seed, scaling_seed = ss.spawn(3)

    with (
        _single_thread() as threads,
        tqdm(total=total, desc="bench", file=sys.stderr, disable=disable) as bar,
    ):
        threads = dict(threads)
        bar.set_postfix_str("bandwidth probe")
        stream = stream_bandwidth(megabytes=64 if quick else 256, trials=3 if quick else 7)
        bar.update(1)
        bar.set_postfix_str("JIT compile (subprocesses)")
        jit_times = _jit_compile_times() if jit else None
        if not jit:
            notes.append("JIT compile time not measured (jit=False)")
        bar.update(1)

        g_er, g_pl = graph_seed.spawn(2)
        t0 = time.perf_counter()
        A_er = er_graph(n_nodes, n_edges, np.random.default_rng(g_er))
        er_build = time.perf_counter() - t0
        t0 = time.perf_counter()
        A_pl = power_law_graph(n_nodes, n_edges, np.random.default_rng(g_pl))
        pl_build = time.perf_counter() - t0
        qrng = np.random.default_rng(query_seed)
        graphs = {}
        for name, A, build in (("ER", A_er, er_build), ("power-law", A_pl, pl_build)):
            bar.set_postfix_str(name)
            graphs[name] = _bench_graph(
                name,
                A,
                qrng,
                repeats=repeats,
                batch_sizes=batch_sizes,
                top_k=top_k,
                bandwidth=stream["bandwidth_GBps"],
                bar=bar,
                notes=notes,
            )
            graphs[name]["build_s"] = build
        graphs["power-law"]["exponent"] = 2.3
        notes[:] = list(dict.fromkeys(notes))
        work = None
        if not quick:
            bar.set_postfix_str("workloads: FINDINGS sweep, real-text retrieval")
            work = _workloads()
        scaling_rows = None
        if scaling:
            bar.set_postfix_str("scaling")
            scaling_rows = _scaling(
                np.random.default_rng(scaling_seed),
                quick=quick,
                repeats=repeats,
                bandwidth=stream["bandwidth_GBps"],
                bar=bar,
            )

    return {
        "config": {
            "command": COMMAND,
            "quick": quick,
            "repeats": repeats,
            "seed": seed,
            "batch_sizes": list(batch_sizes),
            "restart_prob": RESTART_PROB,
            "n_iter": N_ITER,
            "tol": TOL,
            "top_k": top_k,
            "n_nodes": n_nodes,
            "n_edges": n_edges,
        },
        "machine": _machine(),
        "threads": threads,
        "stream": stream,
        "jit": jit_times,
        "graphs": graphs,
        "workloads": work,
        "targets": _targets(graphs, scaling_rows, work),
        "scaling": scaling_rows,
        "notes": notes,
    }


# --------------------------------------------------------------------------------------------------
# Rendering

_LABELS = {
    "ours-30": "ours, 30 iterations",
    "ours-tol": f"ours, tol {TOL:g} (default method)",
    "scipy-30": "scipy CSR power iteration, 30 it",
    "igraph-prpack": "igraph PRPACK (reset=vector)",
    "igraph-prpack-seeds": "igraph PRPACK (reset_vertices=seeds)",
    "sknetwork-30": "sknetwork PageRank piteration, 30 it",
    "ours-top-k": "ours ppr_top_k",
}


def _fmt(x, spec: str) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else format(x, spec)


def _method_rows(res: dict) -> list[list[str]]:
    rows = []
    for gname, gr in res["graphs"].items():
        for key, m in gr["methods"].items():
            label = _LABELS.get(key, f"ours, batch of {m.get('batch')}")
            ratio = "-" if "ratio" not in m else f"{m['ratio']:.2f}x vs {m['baseline']}"
            extra = []
            if "l1_vs_scipy_30" in m:
                extra.append(f"L1 vs scipy-30 {m['l1_vs_scipy_30']:.1e}")
            if "error_bound" in m:
                extra.append(f"bound {m['error_bound']:.1e}")
            if "queries_per_s" in m:
                extra.append(
                    f"{m['queries_per_s']:.0f} q/s vs {m['single_queries_per_s']:.0f} single "
                    f"({m['speedup_vs_single']:.2f}x); "
                    f"max col L1 vs single {m['max_column_l1_vs_single']:.0e}"
                )
            if key == "ours-top-k":
                extra.append(
                    f"k={m['k']}: {m['iterations']} it vs {m['full_tol_iterations']} to tol; "
                    f"time {m['time_vs_ours_tol']:.2f}x of ours-tol; "
                    f"certified {m['certified']}; top-k matches ref: {m['matches_reference']}"
                )
            rows.append(
                [
                    gname,
                    label,
                    f"{m['median_ms']:.2f}",
                    f"{min(m['times_ms']):.1f}-{max(m['times_ms']):.1f}",
                    ratio,
                    _fmt(m.get("l1_vs_reference"), ".1e"),
                    _fmt(m.get("iterations"), "d"),
                    "; ".join(extra),
                ]
            )
    return rows


_METHOD_HEAD = ["graph", "method", "median ms", "range ms", "peer/ours", "L1 vs ref", "iters", "notes"]


def _text_table(head: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(str(c)) for c in col) for col in zip(head, *rows, strict=False)]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(head, widths, strict=True)).rstrip()]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    return "\n".join(lines)


def _md_table(head: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    lines += ["| " + " | ".join(str(c).replace("|", "/") for c in r) + " |" for r in rows]
    return "\n".join(lines)


def _mib(x) -> str:
    return "-" if x is None else f"{x / 2**20:.2f} MiB"


def _sections(res: dict) -> list[tuple[str, list[str], list[list[str]]]]:
    """(title, header, rows) of every table, shared by the text and Markdown renderers."""
    out = [("Per-query timings", _METHOD_HEAD, _method_rows(res))]
    graph_rows = []
    mem_rows = []
    floor_rows = []
    for gname, gr in res["graphs"].items():
        graph_rows.append(
            [
                gname,
                f"{gr['n_nodes']:,}",
                f"{gr['n_edges']:,}",
                f"{gr['max_degree']} / {gr['mean_degree']:.1f}",
                f"{gr['build_s']:.2f}",
                f"{gr['prepare_ms']:.1f}",
                f"{gr['scipy_prepare_ms']:.1f}",
                f"{gr['reference_l1_vs_ours_200']:.1e}",
            ]
        )
        mem = gr["memory"]
        for key in ("ours_30", "scipy_30"):
            mem_rows.append(
                [
                    gname,
                    key.replace("_", "-"),
                    _mib(mem[key]["rss_peak_extra_bytes"]),
                    _mib(mem[key]["tracemalloc_peak_bytes"]),
                    _mib(mem["csr_bytes"]),
                    _mib(mem["prepared_graph_bytes"]),
                ]
            )
        fl = gr["floor"]
        floor_rows.append(
            [
                gname,
                f"{fl['bytes_per_iteration'] / 1e6:.2f} MB",
                f"{fl['bandwidth_GBps']:.1f}",
                f"{fl['floor_ms_per_iteration']:.3f}",
                f"{fl['ours_ms_per_iteration']:.3f}",
                f"{fl['multiple_of_floor']:.2f}x",
            ]
        )
    out.append(
        (
            "Graphs (reference = scipy power iteration, 200 iterations)",
            [
                "graph",
                "nodes",
                "edges",
                "max / mean degree",
                "build s",
                "ours prepare ms (warm)",
                "scipy prepare ms",
                "ref vs ours-200 L1",
            ],
            graph_rows,
        )
    )
    out.append(
        (
            "Memory of one query (RSS: VmHWM - VmRSS around the call, after malloc_trim and a peak reset;"
            " tracemalloc: peak of allocations through Python's allocators, which numpy and numba's"
            " runtime both use)",
            ["graph", "query", "RSS peak extra", "tracemalloc peak", "CSR arrays of A", "prepared graph"],
            mem_rows,
        )
    )
    first = next(iter(res["graphs"].values()))["floor"]
    out.append(
        (
            f"Bandwidth floor per iteration (bytes = {first['formula']})",
            ["graph", "bytes/iteration", "GB/s", "floor ms/it", "ours ms/it", "ours / floor"],
            floor_rows,
        )
    )
    if res.get("scaling"):
        out.append(
            (
                "Scaling (ER, edges/nodes = 4)",
                [
                    "edges",
                    "nodes",
                    "reps",
                    "ours-30 ms",
                    "scipy-30 ms",
                    "scipy/ours",
                    "floor ms (30 it)",
                    "L1 ours vs scipy",
                    "CSR",
                    "prepare peak extra",
                    "query peak extra",
                    "(prepared + query) / CSR",
                ],
                [
                    [
                        f"{s['n_edges']:.2g}",
                        f"{s['n_nodes']:,}",
                        str(s["repeats"]),
                        f"{s['ours_30_ms']:.2f}",
                        f"{s['scipy_30_ms']:.2f}",
                        f"{s['ratio']:.2f}x",
                        f"{s['floor_ms']:.2f}",
                        f"{s['l1_ours_vs_scipy']:.1e}",
                        _mib(s["csr_bytes"]),
                        _mib(s["prepare_peak_extra_bytes"]),
                        _mib(s["query_rss_peak_extra_bytes"]),
                        _fmt(s["query_footprint_over_csr"], ".2f"),
                    ]
                    for s in res["scaling"]
                ],
            )
        )
    out.append(
        (
            "Targets",
            ["target", "graph", "measured", "status"],
            [[t["target"], t["graph"], t["measured"], t["status"]] for t in res["targets"]],
        )
    )
    return out


def _summary_lines(res: dict) -> list[str]:
    cfg, mach, st = res["config"], res["machine"], res["stream"]
    lines = [
        f"machine: {mach['cpu']}, {mach['cores']} cores, "
        f"{_fmt(mach['ram_bytes'] and mach['ram_bytes'] / 2**30, '.1f')} GiB RAM, L3 {mach['l3_cache']}",
        "versions: " + ", ".join(f"{k} {v}" for k, v in mach["versions"].items()),
        f"seed {cfg['seed']}, {cfg['repeats']} repeats (median, round-robin, after a warm-up call), "
        f"restart_prob {cfg['restart_prob']}, two seeds per query",
        "threads: "
        + ", ".join(f"{k}=1" for k in res["threads"]["env"])
        + "; numba kernels single-threaded (no parallel=True); threadpoolctl limits=1 on "
        + (
            ", ".join(str(d["library"]) for d in res["threads"]["threadpoolctl"])
            if isinstance(res["threads"]["threadpoolctl"], list)
            else str(res["threads"]["threadpoolctl"])
        ),
        f"bandwidth probe ({st['array_MB']} MB arrays, best of {st['trials']}): "
        f"copy {st['copy_GBps']:.1f} GB/s,"
        f" numpy triad {st['triad_GBps']:.1f} GB/s -> {st['bandwidth_GBps']:.1f} GB/s used for the floor",
    ]
    jit = res.get("jit")
    if jit:
        parts = []
        for label, d in jit.items():
            if "error" in d:
                parts.append(f"{label}: error {d['error']}")
            else:
                total = sum(v.get("compile_s", 0.0) for v in d.values())
                parts.append(
                    f"{label}: total {total:.2f} s ("
                    + ", ".join(
                        f"{k} {v['compile_s']:.2f} s" if "compile_s" in v else f"{k} error"
                        for k, v in d.items()
                    )
                    + ")"
                )
        lines.append(
            "JIT, first call minus warm call in a fresh process with a new NUMBA_CACHE_DIR (cold: compile"
            " and write the cache; warm: load it; a kernel shared by two calls is paid by the first): "
            + "; ".join(parts)
        )
    lines += [f"note: {n}" for n in res["notes"]]
    return lines


def format_table(results: dict) -> str:
    """The benchmark as plain-text tables for a terminal."""
    out = _summary_lines(results)
    for title, head, rows in _sections(results):
        out += ["", title, _text_table(head, rows)]
    return "\n".join(out) + "\n"


def _command_line(cfg: dict, *, scaling: bool) -> str:
    parts = [cfg["command"]]
    if cfg["quick"]:
        parts.append("--quick")
    if cfg["repeats"] != (3 if cfg["quick"] else 7):
        parts.append(f"--repeats {cfg['repeats']}")
    if cfg["seed"] != 0:
        parts.append(f"--seed {cfg['seed']}")
    if cfg["batch_sizes"] != [8, 32]:
        parts.append("--batch-sizes " + " ".join(map(str, cfg["batch_sizes"])))
    if scaling:
        parts.append("--scaling")
    return " ".join(parts)


def findings_markdown(results: dict) -> str:
    """The benchmark as a Markdown section for FINDINGS.md.

    Starts with the heading ``## Performance (measured, machine-dependent)``, then the machine, the
    command that reproduces it, seed and repeats, one row per measurement and one per target.
    """
    cfg = results["config"]
    lines = [
        "## Performance (measured, machine-dependent)",
        "",
        f"Reproduce with `{_command_line(cfg, scaling=bool(results.get('scaling')))}`. These numbers vary "
        "from run to run and machine to machine; that is expected. Ratios are peer time / our time "
        "(above 1: ours is faster).",
        "",
    ]
    lines += [f"- {line}" for line in _summary_lines(results)]
    for title, head, rows in _sections(results):
        lines += ["", f"### {title}", "", _md_table(head, rows)]
    return "\n".join(lines) + "\n"


def plot_scaling(ax, scaling_rows: list[dict]):
    """Log-log time per 30-iteration query against edge count; returns ``ax``."""
    m = np.array([s["n_edges"] for s in scaling_rows], dtype=float)
    ax.loglog(m, [s["ours_30_ms"] for s in scaling_rows], "o-", label="ours, 30 iterations")
    ax.loglog(m, [s["scipy_30_ms"] for s in scaling_rows], "s-", label="scipy CSR, 30 iterations")
    ax.loglog(m, [s["floor_ms"] for s in scaling_rows], "k:", label="memory-bandwidth floor")
    ax.set_xlabel("undirected edges (ER graph, 4 edges per node)")
    ax.set_ylabel("ms per query (one thread)")
    ax.set_title("PPR query time against graph size")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    return ax


def save_scaling_figure(results: dict, path) -> Path:
    """Write the scaling figure as a PNG with fixed dpi and no date or software metadata."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    plot_scaling(ax, results["scaling"])
    fig.tight_layout()
    fig.savefig(path, dpi=120, format="png", metadata={"Software": None})
    plt.close(fig)
    return path


# --------------------------------------------------------------------------------------------------
# Command line


def _cmd_bench(args) -> int:
    repeats = args.repeats if args.repeats is not None else (3 if args.quick else 7)
    res = run_benchmark(
        quick=args.quick,
        repeats=repeats,
        seed=args.seed,
        batch_sizes=tuple(args.batch_sizes),
        scaling=args.scaling,
        top_k=args.top_k,
        jit=not args.no_jit,
    )
    if args.scaling:
        res["figure"] = str(save_scaling_figure(res, args.figure))
    sys.stdout.write(format_table(res))
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(res, indent=2) + "\n")
    if args.markdown:
        Path(args.markdown).parent.mkdir(parents=True, exist_ok=True)
        Path(args.markdown).write_text(findings_markdown(res))
    if args.findings:
        from pathfinding.findings import replace_bench_section

        path = Path(args.findings)
        path.write_text(replace_bench_section(path.read_text(), findings_markdown(res)))
        print(f"updated the performance section of {path}", file=sys.stderr)
    if args.check and any(t["status"] == "FAIL" for t in res["targets"]):
        return 1
    return 0


def add_parser(sub) -> argparse.ArgumentParser:
    """Register the ``bench`` subcommand on an argparse subparsers object."""
    from pathfinding.cli import _positive_int

    p = sub.add_parser(
        "bench",
        help="time our PPR against scipy, igraph and scikit-network",
        description=(
            "Time one PPR query on a 100k-node ER graph and a power-law graph (single thread), "
            "against scipy, igraph PRPACK and scikit-network; check the project's speed targets."
        ),
    )
    p.add_argument("--quick", action="store_true", help="small graphs and 3 repeats (seconds)")
    p.add_argument(
        "--repeats", type=_positive_int, default=None, help="timed repeats (default 7; 3 with --quick)"
    )
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument(
        "--batch-sizes", type=_positive_int, nargs="+", default=[8, 32], help="block sizes (default 8 32)"
    )
    p.add_argument("--top-k", type=_positive_int, default=10, help="k for ppr_top_k if present (default 10)")
    p.add_argument("--scaling", action="store_true", help="also time against edge count, 1e4 to 1e7 edges")
    p.add_argument(
        "--figure",
        default="figures/bench_scaling.png",
        help="where --scaling writes its figure (default figures/bench_scaling.png)",
    )
    p.add_argument("--no-jit", action="store_true", help="skip the JIT compile-time subprocesses")
    p.add_argument("--json", metavar="PATH", help="write every measurement as JSON")
    p.add_argument("--markdown", metavar="PATH", help="write a Markdown section for FINDINGS.md")
    p.add_argument(
        "--findings", metavar="PATH", help="replace the performance section of this FINDINGS.md in place"
    )
    p.add_argument("--check", action="store_true", help="exit with status 1 if a target FAILs")
    p.set_defaults(func=_cmd_bench)
    return p
