"""Large-graph PPR benchmark: ours on one thread, ours on several threads, scipy's CSR power iteration.

``python -m pathfinding.bench.large`` builds the ER and power-law benchmark graphs at 10^6 and 10^7
undirected edges (4 edges per node, as in ``pathfinding bench --scaling``), runs 30 power iterations
(``tol=0``, the same count and semantics as the ``ours-30``/``scipy-30`` rows of ``pathfinding
bench``) from two seeds by every method, and prints median times, paired ratios and PASS/FAIL lines
computed from them. Methods are timed round-robin inside each repeat after a warm-up call; scipy's
BLAS/OpenMP pools are limited to one thread with threadpoolctl, and ours runs on one numba thread
unless a method says otherwise.

Every ratio is taken *within* one repeat (the methods of a repeat run back to back, so they share
the machine's load at that moment), and the median over repeats is the measurement; the spread of
the per-repeat ratios is reported beside it. On a shared machine a threaded speedup is bounded by
the cores other processes leave free; the table shows the load average for that reason.

``ours-1t`` is the one-thread kernel of the default layout: row-wise (``csr``) below 262,144 nodes,
binned from there on. Threads always run the binned layout, so below that size the threads target
(``1t/2t``) is the product of two measured ratios: ``csr/binned`` (how much faster the row-wise
kernel is while x fits the L2 cache; below 1 means the row-wise one is faster) and
``binned-1t/2t`` (the threads' own gain on one layout).

:func:`run_large` returns the measurements as a dict; :func:`format_large` renders them.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import sys
import time

import numpy as np

from pathfinding.bench.config import RESTART_PROB
from pathfinding.bench.peers import scipy_power_iteration, scipy_prepare
from pathfinding.bench.probes import stream_bandwidth
from pathfinding.errors import InvalidValueError
from pathfinding.synthetic.graphs import er_graph, power_law_graph

__all__ = ["format_large", "large_targets", "main", "run_large"]

N_ITER = 30
SIZES = (1_000_000, 10_000_000)
QUICK_SIZES = (1_200_000,)
TARGET_VS_SCIPY = 1.5  # ours on one thread against scipy-30, at 10^7 edges
TARGET_THREADS = 1.6  # ours on 2 threads against ours on one, at 10^6 edges and above
GENERATORS = {"ER": er_graph, "power-law": power_law_graph}


def _limit_blas():
    """Limit the BLAS/OpenMP pools of this process to one thread; return what was limited."""
    try:
        import threadpoolctl
    except ImportError:
        return "threadpoolctl not installed: BLAS pools not limited"
    threadpoolctl.threadpool_limits(limits=1)
    return [f"{d.get('internal_api')}={d.get('num_threads')}" for d in threadpoolctl.threadpool_info()]


def _runnable() -> int | None:
    """Tasks runnable right now on the whole machine, this one included (Linux /proc/loadavg), or None."""
    try:
        with open("/proc/loadavg") as fh:
            return int(fh.read().split()[3].split("/")[0])
    except (OSError, ValueError, IndexError):
        return None


def _wait_idle(limit_s: float) -> int | None:
    """Wait up to ``limit_s`` seconds for no other runnable task; return the last count seen."""
    deadline = time.monotonic() + limit_s
    while True:
        n = _runnable()
        if n is None or n <= 1 or time.monotonic() >= deadline:
            return n
        time.sleep(0.05)


def _paired(methods: dict, repeats: int, bar=None, idle_wait: float = 0.0) -> tuple[dict, list]:
    """Seconds per call of every method, each repeat running them all back to back in a rotating order.

    Also returns, per repeat, the machine's runnable-task count just before and just after it (after
    waiting up to ``idle_wait`` seconds for the other tasks to leave the cores).
    """
    names = list(methods)
    times: dict[str, list[float]] = {k: [] for k in names}
    runnable = []
    gc.disable()
    try:
        for rep in range(repeats):
            before = _wait_idle(idle_wait)
            shift = rep % len(names)
            for name in names[shift:] + names[:shift]:
                t0 = time.perf_counter()
                methods[name]()
                times[name].append(time.perf_counter() - t0)
            runnable.append((before, _runnable()))
            if bar is not None:
                bar.update(1)
    finally:
        gc.enable()
    return times, runnable


def _ratio_stats(num: list[float], den: list[float], quiet: list[bool]) -> dict:
    """Median and range of the per-repeat ratios; ``quiet_*`` over repeats with no other runnable task."""
    r = [a / b for a, b in zip(num, den, strict=True)]
    q = [x for x, ok in zip(r, quiet, strict=True) if ok]
    return {
        "median": statistics.median(r),
        "min": min(r),
        "max": max(r),
        "all": r,
        "quiet_n": len(q),
        "quiet_median": statistics.median(q) if q else None,
    }


def _bytes_per_iteration(g) -> dict:
    """Bytes one iteration must stream at the least, per kernel (no reuse of a gathered cache line).

    Binned: per edge the source id and the in-bin destination (and a weight), plus every vector
    once (x read at least once; pi, x written; inv_out and the old pi read). Row-wise pull and
    scipy: per edge the index (and, for scipy, the value) plus one 64-byte line per gather, the
    cost of a random access once x is out of the cache.
    """
    n, nnz = g.n_nodes, g.n_edges
    vectors = 5 * 8 * n
    w = 0 if g.unit else 8
    return {
        "binned": (4 + 2 + w) * nnz + vectors,
        "row_pull_random": (g.indices.itemsize + w + 64) * nnz + vectors,
        "scipy_random": (4 + 8 + 64) * nnz + vectors,
    }


def _one_graph(name, m, rng, *, repeats, threads, bandwidth, bar, idle_wait) -> dict:
    from pathfinding.core import ppr
    from pathfinding.core.prepared import prepare_graph

    n = max(2, m // 4)
    t0 = time.perf_counter()
    A = GENERATORS[name](n, m, rng)
    build_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    g = prepare_graph(A)  # the default layout, what a user gets
    prepare_s = time.perf_counter() - t0
    g_csr = prepare_graph(A, layout="csr")
    g_bin = g if g.bin_rows is not None else prepare_graph(A, layout="binned")
    WT, dangling = scipy_prepare(A)
    deg = np.diff(A.indptr)
    seeds = np.sort(rng.choice(np.flatnonzero(deg > 0), size=2, replace=False))
    r = np.zeros(n)
    r[seeds] = 0.5
    del A

    def ours(graph, t):
        return lambda: (
            ppr.ppr_solve(graph, seeds, restart_prob=RESTART_PROB, tol=0, max_iter=N_ITER, threads=t).pi
        )

    methods = {
        "ours-csr-1t": ours(g_csr, 1),
        "ours-binned-1t": ours(g_bin, 1),
        f"ours-{threads}t": ours(g, threads),
        "scipy-30": lambda: scipy_power_iteration(WT, dangling, r, n_iter=N_ITER),
    }
    warm = {k: fn() for k, fn in methods.items()}  # also compiles and starts numba's thread pool
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    times, runnable = _paired(methods, repeats, bar, idle_wait)
    # ours-1t: the one-thread kernel of the default layout (timed once, under its layout's name)
    default = "ours-binned-1t" if g.bin_rows is not None else "ours-csr-1t"
    times["ours-1t"], warm["ours-1t"] = times[default], warm[default]
    quiet = [a is not None and b is not None and a <= 1 and b <= 1 for a, b in runnable]
    par = f"ours-{threads}t"
    med = {k: 1e3 * statistics.median(v) for k, v in times.items()}
    nbytes = _bytes_per_iteration(g)
    return {
        "graph": name,
        "n_nodes": n,
        "n_edges": m,
        "binned": g.bin_rows is not None,
        "n_bins": int(g_bin.bin_rows.size - 1),
        "repeats": repeats,
        "threads": threads,
        "build_s": build_s,
        "prepare_s": prepare_s,
        "load_avg_1min": load,
        "median_ms": med,
        "range_ms": {k: (1e3 * min(v), 1e3 * max(v)) for k, v in times.items()},
        "runnable_before_after": runnable,
        "scipy_over_ours": _ratio_stats(times["scipy-30"], times["ours-1t"], quiet),
        "single_over_threads": _ratio_stats(times["ours-1t"], times[par], quiet),
        "binned_over_threads": _ratio_stats(times["ours-binned-1t"], times[par], quiet),
        "csr_over_binned": _ratio_stats(times["ours-csr-1t"], times["ours-binned-1t"], quiet),
        "l1_ours_vs_scipy": float(np.abs(warm["ours-1t"] - warm["scipy-30"]).sum()),
        "threads_equal_single": bool(np.array_equal(warm["ours-1t"], warm[par])),
        "l1_csr_vs_binned": float(np.abs(warm["ours-binned-1t"] - warm["ours-csr-1t"]).sum()),
        "bytes_per_iteration": nbytes,
        "floor_ms_per_iteration": {k: 1e3 * b / (bandwidth * 1e9) for k, b in nbytes.items()},
        "ms_per_iteration": {k: v / N_ITER for k, v in med.items()},
    }


def large_targets(rows: list[dict]) -> list[dict]:
    """PASS/FAIL per target, from the medians of the per-repeat ratios."""
    out = []
    for row in rows:
        where = f"{row['graph']} {row['n_edges']:.0e} edges"
        if row["n_edges"] >= 10_000_000:
            s = row["scipy_over_ours"]
            ok = s["median"] >= TARGET_VS_SCIPY and row["l1_ours_vs_scipy"] <= 1e-12
            out.append(
                {
                    "target": f"ours-30 (1 thread) >= {TARGET_VS_SCIPY:g}x scipy-30, L1 <= 1e-12",
                    "graph": where,
                    "measured": f"{_cell(s)}, L1 {row['l1_ours_vs_scipy']:.1e}",
                    "status": "PASS" if ok else "FAIL",
                }
            )
        if row["n_edges"] >= 1_000_000:
            s = row["single_over_threads"]
            ok = s["median"] >= TARGET_THREADS and row["threads_equal_single"]
            out.append(
                {
                    "target": f"ours-30 on {row['threads']} threads >= {TARGET_THREADS:g}x ours on 1, "
                    "same result",
                    "graph": where,
                    "measured": f"{_cell(s)}, identical: {row['threads_equal_single']}",
                    "status": "PASS" if ok else "FAIL",
                }
            )
    return out


def run_large(
    *,
    sizes=SIZES,
    graphs=("ER", "power-law"),
    repeats: int = 5,
    threads: int = 2,
    seed: int = 0,
    idle_wait: float = 0.0,
    progress: bool | None = None,
) -> dict:
    """Time ours (1 and ``threads`` threads, binned and row-wise) against scipy-30 on large graphs.

    Parameters
    ----------
    sizes : iterable of int
        Undirected edge counts; each graph has ``edges // 4`` nodes.
    graphs : iterable of {"ER", "power-law"}
    repeats : int, default 5
        Timed rounds per graph (after one warm-up call of every method).
    threads : int, default 2
        numba threads of the threaded method (at most ``NUMBA_NUM_THREADS``).
    seed : int, default 0
        Seeds the graphs and the two seed nodes of each query.
    idle_wait : float, default 0
        Before each repeat, wait up to this many seconds for the machine to have no other runnable
        task (``/proc/loadavg``). Every repeat is kept either way; the ratios over the repeats that
        started and ended with no other runnable task are reported apart (``quiet_median``).
    progress : bool or None
        tqdm bar on stderr (None: only on a terminal).

    Returns
    -------
    dict
        ``rows`` (one per graph and size), ``targets`` (PASS/FAIL), ``machine`` (bandwidth probe,
        BLAS limits, numba threads, load average).
    """
    import numba
    from tqdm.auto import tqdm

    from pathfinding._validation import check_float, check_int

    repeats = check_int("repeats", repeats, low=1)
    seed = check_int("seed", seed, low=0)
    idle_wait = check_float("idle_wait", idle_wait, low=0.0, high=np.inf, high_open=True)
    threads = check_int("threads", threads, low=1, high=numba.config.NUMBA_NUM_THREADS)
    sizes = [check_int("size", s, low=1) for s in sizes]
    graphs = list(graphs)
    for name in graphs:
        if name not in GENERATORS:
            raise InvalidValueError(f"graphs must name 'ER' or 'power-law', got {name!r}")
    blas = _limit_blas()
    stream = stream_bandwidth(megabytes=256, trials=5)
    rng = np.random.default_rng(seed)
    rows = []
    with tqdm(
        total=len(sizes) * len(graphs) * repeats,
        disable=None if progress is None else not progress,
        file=sys.stderr,
        desc="bench-large",
    ) as bar:
        for m in sizes:
            for name in graphs:
                bar.set_postfix_str(f"{name} {m:.0e}")
                rows.append(
                    _one_graph(
                        name,
                        m,
                        rng,
                        repeats=repeats,
                        threads=threads,
                        bandwidth=stream["bandwidth_GBps"],
                        bar=bar,
                        idle_wait=idle_wait,
                    )
                )
                gc.collect()
    return {
        "command": "python -m pathfinding.bench.large",
        "config": {
            "sizes": sizes,
            "graphs": graphs,
            "repeats": repeats,
            "threads": threads,
            "seed": seed,
            "idle_wait": idle_wait,
            "n_iter": N_ITER,
            "restart_prob": RESTART_PROB,
        },
        "machine": {
            "cpus": os.cpu_count(),
            "numba_threads": numba.config.NUMBA_NUM_THREADS,
            "blas": blas,
            "stream": stream,
            "load_avg": os.getloadavg() if hasattr(os, "getloadavg") else None,
        },
        "rows": rows,
        "targets": large_targets(rows),
    }


def _cell(stats: dict) -> str:
    """Median [range] of the per-repeat ratios, and the median over quiet repeats where there were any."""
    out = "{median:.2f}x [{min:.2f}-{max:.2f}]".format(**stats)
    if stats["quiet_n"]:
        out += " quiet({quiet_n}) {quiet_median:.2f}x".format(**stats)
    return out


def format_large(res: dict) -> str:
    """A plain-text table of :func:`run_large`'s result."""
    t = res["config"]["threads"]
    head = [
        "graph",
        "edges",
        "nodes",
        "bins",
        "1t layout",
        "ours-1t ms",
        f"ours-{t}t ms",
        "csr-1t ms",
        "binned-1t ms",
        "scipy-30 ms",
        "scipy/ours",
        f"1t/{t}t",
        f"binned-1t/{t}t",
        "csr/binned",
        "ours ms/it",
        "binned floor ms/it",
        "load",
    ]
    lines = ["  ".join(head)]
    for r in res["rows"]:
        md = r["median_ms"]
        lines.append(
            "  ".join(
                [
                    r["graph"],
                    f"{r['n_edges']:.0e}",
                    f"{r['n_nodes']:,}",
                    str(r["n_bins"]),
                    "binned" if r["binned"] else "csr",
                    f"{md['ours-1t']:.0f}",
                    f"{md[f'ours-{t}t']:.0f}",
                    f"{md['ours-csr-1t']:.0f}",
                    f"{md['ours-binned-1t']:.0f}",
                    f"{md['scipy-30']:.0f}",
                    _cell(r["scipy_over_ours"]),
                    _cell(r["single_over_threads"]),
                    _cell(r["binned_over_threads"]),
                    _cell(r["csr_over_binned"]),
                    f"{r['ms_per_iteration']['ours-1t']:.1f}",
                    f"{r['floor_ms_per_iteration']['binned']:.1f}" if r["binned"] else "-",
                    "-" if r["load_avg_1min"] is None else f"{r['load_avg_1min']:.1f}",
                ]
            )
        )
    st = res["machine"]["stream"]
    lines.append(
        f"bandwidth probe: copy {st['copy_GBps']:.1f} GB/s, triad {st['triad_GBps']:.1f} GB/s; "
        f"BLAS limits: {res['machine']['blas']}; numba threads available: {res['machine']['numba_threads']}"
    )
    lines.append(
        "ratios: median [min-max] of per-repeat ratios; quiet(k): median over the k repeats that began and "
        "ended with no other runnable task on the machine. PASS/FAIL uses the median over all repeats."
    )
    lines.append("")
    for tg in res["targets"]:
        lines.append(f"{tg['status']:4s}  {tg['target']}  [{tg['graph']}]: {tg['measured']}")
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m pathfinding.bench.large", description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help=f"one size ({QUICK_SIZES[0]:.1e} edges), 2 repeats")
    p.add_argument("--sizes", type=float, nargs="+", help="undirected edge counts (default 1e6 1e7)")
    p.add_argument("--graphs", nargs="+", default=["ER", "power-law"], choices=list(GENERATORS))
    p.add_argument(
        "--repeats", type=int, default=None, help="timed rounds per graph (default 5; 2 with --quick)"
    )
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--idle-wait", type=float, default=0.0, help="seconds to wait per repeat for idle cores")
    p.add_argument("--json", metavar="PATH", help="also write every measurement as JSON")
    args = p.parse_args(argv)
    sizes = [int(s) for s in args.sizes] if args.sizes else (QUICK_SIZES if args.quick else SIZES)
    repeats = args.repeats if args.repeats is not None else (2 if args.quick else 5)
    res = run_large(
        sizes=sizes,
        graphs=args.graphs,
        repeats=repeats,
        threads=args.threads,
        seed=args.seed,
        idle_wait=args.idle_wait,
    )
    print(format_large(res))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(res, fh, indent=1, default=float)
    return 0


if __name__ == "__main__":
    sys.exit(main())
