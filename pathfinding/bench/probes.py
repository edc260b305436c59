"""What the machine can do and what a call costs: memory bandwidth, RSS, versions, JIT compile time.

Also the byte counts of the bandwidth floor: what one iteration must move through memory at least.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import json
import os
import platform
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import numpy as np

from pathfinding.bench.config import THREAD_ENV

__all__ = [
    "STOP_SIGNALS",
    "csr_bytes",
    "iteration_bytes",
    "jit_compile_times",
    "machine_info",
    "memory_of",
    "prepared_bytes",
    "read_status",
    "reset_peak_rss",
    "signals_as_exit",
    "stream_bandwidth",
]


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


def read_status(key: str) -> int | None:
    """A ``/proc/self/status`` field in bytes (VmRSS, VmHWM), or None off Linux."""
    try:
        text = Path("/proc/self/status").read_text()
    except OSError:
        return None
    m = re.search(rf"^{key}:\s+(\d+) kB", text, re.MULTILINE)
    return int(m.group(1)) * 1024 if m else None


def reset_peak_rss() -> bool:
    """Return freed heap pages to the OS and reset the kernel's peak-RSS mark (Linux >= 4.0)."""
    gc.collect()
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def memory_of(fn: Callable[[], object]) -> dict:
    """Peak extra memory of one call: RSS high-water mark minus RSS before, and tracemalloc's peak.

    The RSS delta sees every allocation (numpy, numba's runtime, C libraries) but only pages that
    were touched, and can understate when freed heap pages are reused. tracemalloc sees what goes
    through Python's allocators: numpy arrays and numba's runtime arrays (numba allocates with
    ``PyMem_RawMalloc``), but not C libraries that call ``malloc`` themselves.
    """
    out: dict = {"rss_peak_extra_bytes": None, "tracemalloc_peak_bytes": None}
    if reset_peak_rss():
        before = read_status("VmRSS")
        fn()
        peak = read_status("VmHWM")
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


def machine_info() -> dict:
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
import json, time
import numpy as np, scipy.sparse as sp
from pathfinding.core import ppr
from pathfinding.core.prepared import prepare_graph
n = 64
i = np.arange(n)
A = sp.csr_array((np.ones(2 * n), (np.r_[i, (i + 1) % n], np.r_[(i + 1) % n, i])), shape=(n, n))
g = prepare_graph(A)
R = np.full((n, 4), 1.0 / n)
calls = {
    "single": lambda: ppr.ppr_solve(g, [0, 1], tol=0, max_iter=30),
    "tol": lambda: ppr.ppr_solve(g, [0, 1], tol=1e-10),
    "block": lambda: ppr.ppr_solve(g, R, tol=0, max_iter=30),
    "top_k": lambda: ppr.ppr_top_k(g, [0, 1], 5),
}
out = {}
for name, call in calls.items():
    t0 = time.perf_counter(); call(); t1 = time.perf_counter(); call(); t2 = time.perf_counter()
    out[name] = {"first_s": t1 - t0, "warm_s": t2 - t1, "compile_s": (t1 - t0) - (t2 - t1)}
print(json.dumps(out))
"""


def jit_compile_times() -> dict:
    """First-call minus warm-call time in fresh processes: with an empty cache, then with it filled.

    The first process compiles every kernel and writes numba's on-disk cache into a new temporary
    ``NUMBA_CACHE_DIR``; the second process loads the kernels from that cache.
    """
    root = str(Path(__file__).resolve().parents[2])
    result: dict = {}
    with tempfile.TemporaryDirectory(prefix="pathfinding-numba-cache-") as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=root, NUMBA_NUM_THREADS="1")
        env.update(dict.fromkeys(THREAD_ENV, "1"))
        for label in ("cold_cache", "warm_cache"):
            proc = subprocess.run(
                [sys.executable, "-c", _JIT_SCRIPT], env=env, capture_output=True, text=True, timeout=600
            )
            if proc.returncode != 0:
                result[label] = {"error": proc.stderr.strip().splitlines()[-1:]}
            else:
                result[label] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def csr_bytes(A) -> int:
    """Bytes of a CSR matrix's three arrays."""
    return int(A.indptr.nbytes + A.indices.nbytes + A.data.nbytes)


def prepared_bytes(g) -> int:
    """Bytes of every array a :class:`~pathfinding.core.prepared.PPRGraph` keeps (binned copy included)."""
    arrays = (
        g.indptr, g.indices, g.weights, g.inv_out, g.order, g.component_ptr,
        g.bin_rows, g.bin_src, g.bin_dst, g.bin_weights,
    )  # fmt: skip
    return int(sum(a.nbytes for a in arrays if a is not None))


def iteration_bytes(g) -> tuple[int, str]:
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


STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))
"""Signals that should end a long run as Ctrl-C does (``kill``, ``timeout``, a closed terminal)."""


@contextlib.contextmanager
def signals_as_exit(signals=STOP_SIGNALS):
    """Within the block, ``signals`` raise SystemExit(128 + signal) (SIGINT: KeyboardInterrupt), so
    finally blocks run (a temporary file is removed) where the default would end the process on the
    spot. The first signal ignores the others, so a second cannot cut that cleanup short. Main
    thread only (elsewhere the block runs as it is); the handlers before are restored after.

    Examples
    --------
    >>> import os
    >>> try:
    ...     with signals_as_exit():
    ...         os.kill(os.getpid(), signal.SIGTERM)
    ... except SystemExit as exc:
    ...     print(exc.code)
    143
    """
    def stop(signum, frame):
        for sig in signals:
            signal.signal(sig, signal.SIG_IGN)
        raise KeyboardInterrupt if signum == signal.SIGINT else SystemExit(128 + signum)

    main = threading.current_thread() is threading.main_thread()
    before = {sig: signal.signal(sig, stop) for sig in signals} if main else {}
    try:
        yield
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)
