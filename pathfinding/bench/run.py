"""The benchmark itself: per graph, every method on the same query; then scaling and workloads.

``python -m pathfinding bench`` builds two seeded graphs of 100,000 nodes and 400,000 undirected
edges (an Erdős–Rényi-style one and a power-law, knowledge-graph-like one), answers a two-seed query
with restart probability 0.5 by every method, and records median times, speed ratios, L1 errors
against a tight reference, memory, the JIT compile cost, and how close one iteration gets to the
memory-bandwidth floor of this machine. Timings are machine- and load-dependent; they are
measurements, not constants.
"""

from __future__ import annotations

import gc
import statistics
import sys
import time
import warnings
from collections.abc import Callable

import numpy as np

from pathfinding._validation import check_int
from pathfinding.bench.config import COMMAND, N_ITER, REFERENCE_ITER, RESTART_PROB, TOL
from pathfinding.bench.peers import igraph_methods, scipy_power_iteration, scipy_prepare, sknetwork_methods
from pathfinding.bench.probes import (
    csr_bytes,
    iteration_bytes,
    jit_compile_times,
    machine_info,
    memory_of,
    prepared_bytes,
    read_status,
    reset_peak_rss,
    stream_bandwidth,
)
from pathfinding.bench.targets import evaluate_targets
from pathfinding.bench.timing import round_robin, single_thread, time_prepare
from pathfinding.core import ppr
from pathfinding.core.prepared import prepare_graph
from pathfinding.synthetic.graphs import er_graph, power_law_graph

__all__ = ["run_benchmark"]


def _l1(x, y) -> float:
    return float(np.abs(np.asarray(x, dtype=np.float64) - np.asarray(y, dtype=np.float64)).sum())


def _two_seeds(rng, deg: np.ndarray) -> np.ndarray:
    return np.sort(rng.choice(np.flatnonzero(deg > 0), size=2, replace=False))


def _methods(A, g, WT, dangling, seeds, r, rng, *, batch_sizes, top_k, notes):
    """Every timed call on one graph, and the restart blocks of the batched calls."""
    n = A.shape[0]
    deg = np.diff(A.indptr)
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
            R[_two_seeds(rng, deg), c] = 0.5
        blocks[b] = R
        methods[f"ours-batch-{b}"] = lambda R=R: ppr.ppr_solve(
            g, R, restart_prob=RESTART_PROB, tol=0, max_iter=N_ITER
        )
    try:
        methods.update(igraph_methods(A, r, seeds))
    except ImportError:
        notes.append("igraph is not importable: igraph PRPACK skipped")
    try:
        methods.update(sknetwork_methods(A, r))
    except ImportError:
        notes.append("scikit-network is not importable: sknetwork PageRank skipped")
    methods["ours-top-k"] = lambda: ppr.ppr_top_k(g, seeds, top_k, restart_prob=RESTART_PROB)
    return methods, blocks


def _top_k_summary(res: ppr.TopKResult, reference: np.ndarray, k: int) -> dict:
    want = np.argsort(-reference, kind="stable")[:k]
    return {
        "iterations": res.iterations,
        "method": res.method,
        "certified": res.certified,
        # ties at the boundary make any order among equal scores correct
        "matches_reference": bool(np.allclose(reference[res.top], reference[want], rtol=0, atol=1e-13)),
    }


def _bench_graph(name, A, rng, *, repeats, batch_sizes, top_k, bandwidth, bar, notes) -> dict:
    """Time every method on one graph and check each result against the reference."""
    n = A.shape[0]
    deg = np.diff(A.indptr)
    seeds = _two_seeds(rng, deg)
    r = np.zeros(n)
    r[seeds] = 0.5

    # per-graph costs: one untimed call (the first may load or compile a kernel), then median of 3
    g, prepare_s = time_prepare(lambda: prepare_graph(A))
    (WT, dangling), scipy_prepare_s = time_prepare(lambda: scipy_prepare(A))

    reference = scipy_power_iteration(WT, dangling, r, n_iter=REFERENCE_ITER)
    ours_tight = ppr.ppr_solve(g, seeds, restart_prob=RESTART_PROB, tol=0, max_iter=REFERENCE_ITER).pi
    methods, blocks = _methods(
        A, g, WT, dangling, seeds, r, rng, batch_sizes=batch_sizes, top_k=top_k, notes=notes
    )

    # Warm-up: compiles or loads kernels, faults pages in, and gives the results we check.
    results = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for key, fn in methods.items():
            results[key] = fn()
    bar.update(1)
    times = round_robin(methods, repeats, bar)
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
    summary = _top_k_summary(results["ours-top-k"], reference, top_k)
    row("ours-top-k", k=top_k, full_tol_iterations=ours_tol.iterations, **summary)
    rows["ours-top-k"]["time_vs_ours_tol"] = median_ms["ours-top-k"] / median_ms["ours-tol"]

    # Memory of one query, and the bandwidth floor of one iteration.
    memory = {
        "csr_bytes": csr_bytes(A),
        "prepared_graph_bytes": prepared_bytes(g),
        "ours_30": memory_of(methods["ours-30"]),
        "scipy_30": memory_of(methods["scipy-30"]),
    }
    bar.update(1)
    it_bytes, formula = iteration_bytes(g)
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
    exps = np.linspace(3, 5, 4) if quick else np.linspace(4, 7, 7)
    out = []
    for m in np.round(10.0**exps).astype(np.int64):
        m = int(m)
        n = max(2, m // 4)
        reps = repeats if m <= 1_000_000 else min(repeats, 3)
        A = er_graph(n, m, rng)
        csr = csr_bytes(A)
        base = read_status("VmRSS") if reset_peak_rss() else None
        t0 = time.perf_counter()
        g = prepare_graph(A)
        prepare_s = time.perf_counter() - t0
        peak = read_status("VmHWM")
        prepare_extra = None if base is None or peak is None else max(0, peak - base)
        WT, dangling = scipy_prepare(A)
        seeds = _two_seeds(rng, np.diff(A.indptr))
        r = np.zeros(n)
        r[seeds] = 0.5
        methods = {
            "ours-30": lambda g=g, seeds=seeds: ppr.ppr_solve(
                g, seeds, restart_prob=RESTART_PROB, tol=0, max_iter=N_ITER
            ),
            "scipy-30": lambda WT=WT, d=dangling, r=r: scipy_power_iteration(WT, d, r, n_iter=N_ITER),
        }
        warm = {k: fn() for k, fn in methods.items()}
        times = round_robin(methods, reps, bar)
        bar.update(repeats - reps)
        mem = memory_of(methods["ours-30"])
        extra = mem["rss_peak_extra_bytes"]
        it_bytes, _ = iteration_bytes(g)
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
                "prepared_graph_bytes": prepared_bytes(g),
                "prepare_peak_extra_bytes": prepare_extra,
                "query_rss_peak_extra_bytes": extra,
                "query_tracemalloc_peak_bytes": mem["tracemalloc_peak_bytes"],
                # what must be resident to answer queries: the prepared graph plus one query's peak
                "query_footprint_over_csr": None if extra is None else (prepared_bytes(g) + extra) / csr,
                "floor_ms": 1e3 * N_ITER * it_bytes / (bandwidth * 1e9),
            }
        )
        del A, g, WT, methods, warm
        gc.collect()
    return out


def _workloads() -> dict:
    """The package's own end-to-end workloads, timed warm: the FINDINGS sweep and real-text retrieval."""
    from pathfinding.bench.add import benchmark_add
    from pathfinding.bench.realtext import benchmark as realtext_benchmark
    from pathfinding.experiments.hop_depth import run_experiment

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
        "realtext_query_ms_median_lower": rt["query_ms_median_lower"],
        "realtext_n_queries": rt["n_queries"],
        "index_add": benchmark_add(trials=5),
    }


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
    index_scale: bool = False,
    large: bool = False,
    explain: bool = False,
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
        k for ``ppr_top_k``.
    jit : bool, default True
        Measure the JIT compile time in fresh subprocesses (a few seconds).
    index_scale : bool, default False
        Also build real-text indexes of 10,000 to 100,000 synthetic passages
        (:mod:`pathfinding.bench.scale`, minutes; 10,000 and 20,000 with ``quick``) and add their
        targets.
    large : bool, default False
        Also time PPR on graphs of 10^6 and 10^7 edges against scipy, on one and two threads
        (:mod:`pathfinding.bench.large`; one graph of 1.2 million edges with ``quick``).
    explain : bool, default False
        Also time ``explain`` against ``retrieve`` on 2WikiMultihopQA
        (:mod:`pathfinding.bench.explain_cost`; 8 questions with ``quick``).

    Returns
    -------
    dict
        Keys ``config``, ``machine``, ``threads``, ``stream``, ``jit``, ``graphs`` (per graph: sizes,
        per-method measurements, memory, bandwidth floor), ``targets``, ``scaling`` and ``notes``.
    """
    from tqdm.auto import tqdm

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
        single_thread() as threads,
        tqdm(total=total, desc="bench", file=sys.stderr, disable=disable) as bar,
    ):
        threads = dict(threads)
        bar.set_postfix_str("bandwidth probe")
        stream = stream_bandwidth(megabytes=64 if quick else 256, trials=3 if quick else 7)
        bar.update(1)
        bar.set_postfix_str("JIT compile (subprocesses)")
        jit_times = jit_compile_times() if jit else None
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

    targets = evaluate_targets(graphs, scaling_rows, work)
    sections = []
    index_scale_res = None
    if index_scale:
        from pathfinding.bench.scale import QUICK_SIZES, SIZES, run_scale
        from pathfinding.bench.scale_report import format_section

        index_scale_res = run_scale(QUICK_SIZES if quick else SIZES, rng=seed, progress=progress)
        sections.append(format_section(index_scale_res).replace("## ", "### ", 1))
        targets += [
            {"target": f"{t['name']} {t['target']}", "measured":
             "n/a" if t["measured"] is None else f"{t['measured']:.4g}", "status": t["status"],
             "graph": "MuSiQue" if "MuSiQue" in t["name"] else "synthetic corpus"}
            for t in index_scale_res["targets"]
        ]
    large_res = None
    if large:
        from pathfinding.bench.large import QUICK_SIZES as LARGE_QUICK
        from pathfinding.bench.large import SIZES as LARGE_SIZES
        from pathfinding.bench.large import format_large, run_large

        large_res = run_large(sizes=LARGE_QUICK if quick else LARGE_SIZES, seed=seed, progress=progress)
        sections.append(
            "### PPR on large graphs (one and two threads)\n\n"
            f"Part of `python -m pathfinding bench --large` (alone: `python -m pathfinding.bench.large"
            f"{' --quick' if quick else ''} --seed {seed}`); ratios are "
            "medians of per-repeat paired ratios, the load column counts other runnable tasks.\n\n"
            "```text\n" + format_large(large_res).rstrip() + "\n```"
        )
        targets += large_res["targets"]
    explain_res = None
    if explain:
        from pathfinding.bench.explain_cost import format_explain, run_explain

        explain_res = run_explain(seed=seed, n_questions=8 if quick else 40, repeats=3 if quick else 5)
        sections.append(
            "### What an explanation costs (2WikiMultihopQA)\n\n"
            "Part of `python -m pathfinding bench --explain`: `HippoRetriever.explain` against `retrieve`, "
            "and `query --explain` against `query` from the shell (:mod:`pathfinding.bench.explain_cost` "
            "says how the questions are made).\n\n```text\n" + format_explain(explain_res).rstrip() + "\n```"
        )
        targets += explain_res["targets"]
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
            "index_scale": index_scale,
            "large": large,
            "explain": explain,
        },
        "machine": machine_info(),
        "threads": threads,
        "stream": stream,
        "jit": jit_times,
        "graphs": graphs,
        "workloads": work,
        "targets": targets,
        "index_scale": index_scale_res,
        "large": large_res,
        "explain": explain_res,
        "sections": sections,
        "scaling": scaling_rows,
        "notes": notes,
    }
