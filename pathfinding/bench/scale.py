"""The scale benchmark: build the index at several corpus sizes, fit how build time grows, time queries.

Run ``python -m pathfinding.bench.scale`` (sizes 10k, 20k, 40k and 100k passages of the
:mod:`~pathfinding.synthetic.corpus` corpus) or ``--quick`` (10k and 20k). Each size is built in
a fresh child process, so its peak memory (``VmHWM``, the high-water mark of the child's own
address space) is its own and no earlier size's garbage is counted. Per size it records:

* ``build_s``: :func:`~pathfinding.hipporag.index.build.build_index` of all passages but the last, plus
  the PPR graph preparation (the query-ready index), after the compiled kernels are warm; the
  fastest of ``builds_per_size`` (3) identical builds, ``build_s_slowest`` the slowest;
  ``synonymy_s`` is the part of it spent in the synonymy step; ``add_s`` the time to add the last
  passage to that index (:func:`~pathfinding.hipporag.index.maintenance.add_passages`); the
  queries run on the grown index;
* ``peak_rss_gb``: the child's peak resident memory (corpus generation included);
* ``query_ms``: median of one retrieval per question with the default retriever (capitalised
  entities + fact seeds + passage nodes: linking, BM25, the walk, the top k), entities
  from the question text; ``query_misspelt_ms`` the same with each entity misspelt (last letter
  replaced), so linking goes through the encoder and the nearest-node search, not an exact hit;
* ``seeds_ms``, ``bm25_ms``, ``walk_ms``: medians of the parts of a misspelt query with the
  default retriever: its seeds (linking + fact seeds; ``link_ms`` is linking alone), the passages'
  BM25 scores (the hybrid restart), and the rest (the walk over phrase and passage nodes, stopped
  once the top k are certified, and the ranking); ``link_scan_ms`` is what linking by a product
  with every node (the code before this module) costs;
* ``query_misspelt_p90_ms``: the 90th percentile of the misspelt queries (the walk's time varies
  with how close the 5th and 6th passages are);
* ``walk_edges`` (stored directed edges of the phrase + passage graph), ``restart_passages`` (median
  passages with a share of the restart: those BM25 scores above zero), ``walk_push_share`` (the
  share of misspelt queries whose top 5 forward push certified; Gauss-Seidel took the others),
  ``walk_push_rounds`` (their median push rounds), and, for comparison, ``walk_sweeps`` and
  ``walk_gs_ms`` (median sweeps and milliseconds of :func:`~pathfinding.core.ppr.ppr_top_k` with
  Gauss-Seidel alone, each sweep a pass over every edge);
* ``recall_at_5`` on the corpus' own two-hop questions (a sanity check, not a claim);
* ``threads`` (numba's, used by the synonymy search) and ``load_avg_1m``, the machine's 1-minute
  load average when the size started (other work competing for the cores).

On the released MuSiQue index it also measures the recall of the exact tau = 0.8 synonymy edge set
(the all-pairs product) by the prefix-filtered one, and R@5 with either edge set.

:func:`run_scale` returns rows, targets with PASS/FAIL computed from the measurements, and
:func:`format_section` renders the markdown section for ``make bench``.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import dataclasses
import gc
import json
import multiprocessing
import os
import re
import resource
import sys
import time

import numba
import numpy as np

from pathfinding._validation import check_int
from pathfinding.hipporag.index.maintenance import add_passages

__all__ = ["TARGETS", "format_section", "main", "measure_size", "musique_synonymy_check", "run_scale"]

SIZES = (10_000, 20_000, 40_000, 100_000)
QUICK_SIZES = (10_000, 20_000)
TARGETS = {
    "build_exponent": 1.2,
    "build_s_at_100k": 180.0,
    "peak_rss_gb_at_100k": 6.0,
    "query_ms_at_100k": 20.0,
    "synonymy_recall": 0.99,
}
"""The scale targets: exponent of build time vs passages (10k-100k), seconds and GB at 100k
passages, median query milliseconds at 100k, recall of the exact tau = 0.8 edge set on MuSiQue."""


def _warm_kernels() -> None:
    """Compile (or load from cache) every kernel a build and a query use, outside the timings."""
    from pathfinding.hipporag.index.build import build_index
    from pathfinding.hipporag.retrieval.retrieve import HippoRetriever
    from pathfinding.synthetic.corpus import synthetic_corpus

    c = synthetic_corpus(200, rng=1)
    idx = build_index(c.triples, passages=c.passages)
    ret = HippoRetriever(idx)
    for q in c.questions[:3]:
        ret.retrieve(q.question, k=5)
        ret.retrieve(q.question, k=5, entities=[e[:-1] + "x" for e in q.entities])


def _peak_rss_gb() -> float:
    """This process' peak resident memory in GiB.

    ``VmHWM`` belongs to the address space, which ``exec`` replaces; ``ru_maxrss`` survives it, so
    in a spawned child it starts at the parent's size at fork time, so every small size would
    report the parent's peak.
    """
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 2**20  # kB
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # KiB on Linux


def measure_size(
    n_passages: int, *, rng: int = 0, n_queries: int = 100, builds_per_size: int = 3, memory_limit_gb=None
) -> dict:
    """Build one index of ``n_passages`` synthetic passages and measure it (see the module doc).

    Parameters
    ----------
    n_passages : int
    rng : int, default 0
        Seed of the corpus.
    n_queries : int, default 100
    builds_per_size : int, default 3
        Identical builds; the fastest is reported (``build_s_slowest`` is the slowest).
    memory_limit_gb : float, optional
        Cap on this process' address space (``run_scale`` passes 16: a child process only).

    Returns
    -------
    dict
    """
    from pathfinding.core.ppr import ppr_top_k
    from pathfinding.hipporag.index import neighbours
    from pathfinding.hipporag.index.build import build_index
    from pathfinding.hipporag.language.text import normalize_phrase
    from pathfinding.hipporag.retrieval.linking import link_entities
    from pathfinding.hipporag.retrieval.retrieve import HippoRetriever
    from pathfinding.synthetic.corpus import synthetic_corpus

    n_passages = check_int("n_passages", n_passages, low=2)
    builds_per_size = check_int("builds_per_size", builds_per_size, low=1)
    load_avg = os.getloadavg()[0]  # other work on the machine when this size starts
    if memory_limit_gb is not None:
        # A runaway build must fail with MemoryError here, not wake the machine's OOM killer.
        limit = int(memory_limit_gb * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    _warm_kernels()
    t0 = time.perf_counter()
    corpus = synthetic_corpus(n_passages, n_questions=n_queries, rng=rng)
    gen_s = time.perf_counter() - t0
    # The synonymy step is timed inside the build (build.cosine_neighbours looks the function up in
    # neighbours.py at call time), so the costliest step is not run twice.
    spent = []
    fast = neighbours.cosine_neighbours_prefix

    def timed(*args, **kwargs):
        t = time.perf_counter()
        try:
            return fast(*args, **kwargs)
        finally:
            spent.append(time.perf_counter() - t)

    # The fastest of `builds` identical builds: noise from other work on the machine only ever adds
    # time, and one slow build of the smallest size moved the fitted exponent by 0.15 in one run.
    builds = []  # (build_s, index_s, synonymy_s)
    neighbours.cosine_neighbours_prefix = timed
    try:
        for _ in range(builds_per_size):
            idx = None
            gc.collect()
            spent.clear()
            t0 = time.perf_counter()
            idx = build_index(corpus.triples[:-1], passages=corpus.passages[:-1])
            index_s = time.perf_counter() - t0
            idx.prepared()
            builds.append((time.perf_counter() - t0, index_s, sum(spent)))
    finally:
        neighbours.cosine_neighbours_prefix = fast
    build_s, index_s, synonymy_s = min(builds)
    # The last passage arrives by an incremental add (the encoder kept, as by default).
    t0 = time.perf_counter()
    idx = add_passages(idx, corpus.triples[-1:], corpus.passages[-1:])
    add_s = time.perf_counter() - t0
    peak = _peak_rss_gb()

    ret = HippoRetriever(idx, extractor="capitalised")
    walk_graph = ret.graph_with_passages()
    passage_nodes = np.arange(idx.n_nodes, walk_graph.n_nodes)
    sweeps, spread, gs_times, by_push, push_rounds = [], [], [], [], []
    times, times_miss, hits = [], [], []
    parts = {"link": [], "link_scan": [], "seeds": [], "bm25": [], "walk": []}
    ET = idx.embeddings_T()
    for q in corpus.questions:
        ret.retrieve(q.question, k=5)  # first call per question warms its caches
        t0 = time.perf_counter()
        r = ret.retrieve(q.question, k=5)
        times.append(time.perf_counter() - t0)
        hits.append(len(set(r.passages.tolist()) & set(q.gold)) / 2)
        miss = [e[:-1] + ("x" if e[-1] != "x" else "y") for e in q.entities]
        t0 = time.perf_counter()
        ret.retrieve(q.question, k=5, entities=miss)
        total = time.perf_counter() - t0
        times_miss.append(total)
        # Where a misspelt query's time goes: linking alone, all seeds (linking + fact seeds), the
        # passages' BM25 scores, and the rest (the walk over phrases + passages and the top k);
        # and what linking by a product with every node would cost instead.
        t0 = time.perf_counter()
        link_entities(idx, miss)
        t1 = time.perf_counter()
        idx.encoder([normalize_phrase(e) for e in miss]) @ ET
        t2 = time.perf_counter()
        ret.seed_weights(q.question, miss)
        t3 = time.perf_counter()
        ret.bm25.scores(q.question)
        t4 = time.perf_counter()
        spent_parts = (t1 - t0, t2 - t1, t3 - t2, t4 - t3, max(total - (t4 - t2), 0.0))
        for key, dt in zip(parts, spent_parts, strict=True):
            parts[key].append(dt)
        # What the walk had to do: how many passages the restart touches, which solver certified
        # the top 5, and what Gauss-Seidel sweeps alone would cost (each a pass over every edge).
        w = ret.seed_weights(q.question, miss) * idx.specificity
        if w.any():
            restart = ret.hybrid_restart(q.question, w)
            spread.append(np.count_nonzero(restart[idx.n_nodes :]))
            kw = dict(candidates=passage_nodes, restart_prob=ret.restart_prob, tol=ret.tol, margin=ret.tol)
            top = ppr_top_k(walk_graph, restart, 5, **kw)
            by_push.append(top.method == "push")
            if top.method == "push":
                push_rounds.append(top.iterations)
            t0 = time.perf_counter()
            top = ppr_top_k(walk_graph, restart, 5, method="gauss-seidel", **kw)
            gs_times.append(time.perf_counter() - t0)
            sweeps.append(top.iterations)
    return {
        "n_passages": n_passages,
        "n_nodes": idx.n_nodes,
        "n_relation_edges": idx.stats.n_relation_edges,
        "n_synonymy_edges": idx.stats.n_synonymy_edges,
        "generate_s": gen_s,
        "add_s": add_s,
        "index_s": index_s,
        "build_s": build_s,
        "build_s_slowest": max(b[0] for b in builds),
        "builds": len(builds),
        "synonymy_s": synonymy_s,
        "peak_rss_gb": peak,
        "query_ms": 1000 * float(np.median(times)),
        "query_misspelt_ms": 1000 * float(np.median(times_miss)),
        "query_misspelt_p90_ms": 1000 * float(np.percentile(times_miss, 90)),
        **{f"{k}_ms": 1000 * float(np.median(v)) for k, v in parts.items()},
        "walk_edges": walk_graph.n_edges,
        "restart_passages": float(np.median(spread)) if spread else float("nan"),
        "walk_push_share": float(np.mean(by_push)) if by_push else float("nan"),
        "walk_push_rounds": float(np.median(push_rounds)) if push_rounds else float("nan"),
        "walk_sweeps": float(np.median(sweeps)) if sweeps else float("nan"),
        "walk_gs_ms": 1000 * float(np.median(gs_times)) if gs_times else float("nan"),
        "n_queries": len(times),
        "threads": int(numba.config.NUMBA_NUM_THREADS),
        "load_avg_1m": load_avg,
        "recall_at_5": float(np.mean(hits)) if hits else float("nan"),
    }


def musique_synonymy_check(tau: float = 0.8) -> dict:
    """Recall of the exact synonymy edge set on the MuSiQue index, and R@5 with each set.

    Returns
    -------
    dict
        ``exact_edges``, ``found_edges``, ``recall``, ``extra_edges``, ``r5_exact``, ``r5_prefix``
        (HippoRAG with the capitalised extractor, mean over the 100 questions), ``allpairs_s``,
        ``prefix_s``.
    """
    import scipy.sparse as sp

    from pathfinding.experiments.realtext import load_realtext
    from pathfinding.hipporag.evaluation.metrics import recall_at_k, supporting_ids
    from pathfinding.hipporag.index.build import index_from_openie
    from pathfinding.hipporag.index.neighbours import (
        cosine_neighbours_allpairs,
        cosine_neighbours_prefix,
    )
    from pathfinding.hipporag.retrieval.lexical import BM25Ranker
    from pathfinding.hipporag.retrieval.retrieve import HippoRetriever

    data = load_realtext()
    idx = index_from_openie(data["openie"], tau=tau)
    where = np.flatnonzero([len(re.sub("[^a-z0-9]", "", p)) > 2 for p in idx.phrases])
    E = idx.node_embeddings[where]
    t0 = time.perf_counter()
    exact = cosine_neighbours_allpairs(E, tau=tau)
    allpairs_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    fast = cosine_neighbours_prefix(E, tau=tau)
    prefix_s = time.perf_counter() - t0
    ex, fa = sp.coo_array(exact), sp.coo_array(fast)
    want = set(zip(ex.row.tolist(), ex.col.tolist(), strict=True))
    got = set(zip(fa.row.tolist(), fa.col.tolist(), strict=True))

    # The index as built before this module: same everything, synonymy from the all-pairs product.
    n = idx.n_nodes
    S = sp.csr_array((ex.data, (where[ex.row], where[ex.col])), shape=(n, n))
    S = S.maximum(S.T)
    S = sp.csr_array(S - S.multiply(idx.relation_graph > 0))
    S.eliminate_zeros()
    old = dataclasses.replace(idx, synonymy_graph=S)
    questions = data["questions"]
    gold = supporting_ids(questions, data["corpus"])
    bm25 = BM25Ranker(idx.passages)
    r5 = {}
    for name, index in (("r5_exact", old), ("r5_prefix", idx)):
        ret = HippoRetriever(index, extractor="capitalised", bm25=bm25)
        ranks = [ret.retrieve(q.question, k=10).passages for q in questions]
        r5[name] = float(recall_at_k(ranks, gold, ks=(5,))[:, 0].mean())
    return {
        "exact_edges": len(want),
        "found_edges": len(want & got),
        "extra_edges": len(got - want),
        "recall": len(want & got) / max(len(want), 1),
        "same_graph": bool((S != idx.synonymy_graph).nnz == 0),
        **r5,
        "allpairs_s": allpairs_s,
        "prefix_s": prefix_s,
    }


def _fit_exponent(rows, value=lambda r: r["build_s"]) -> float:
    """The slope of log ``value(row)`` against log passages (nan with fewer than two rows).

    Examples
    --------
    >>> rows = [{"n_passages": n, "build_s": 2e-4 * n, "edges": 1e-6 * n**2} for n in (10, 100, 1000)]
    >>> round(_fit_exponent(rows), 6), round(_fit_exponent(rows, lambda r: r["edges"]), 6)
    (1.0, 2.0)
    """
    n = np.array([r["n_passages"] for r in rows], dtype=float)
    t = np.array([value(r) for r in rows], dtype=float)
    if n.size < 2 or not np.all(t > 0):
        return float("nan")
    return float(np.polyfit(np.log(n), np.log(t), 1)[0])


def _in_fit_range(rows) -> list:
    """The rows the build-time exponent is fitted on: 10,000 to 100,000 passages."""
    return [r for r in rows if 10_000 <= r["n_passages"] <= 100_000]


def _exponent_parts(rows) -> str:
    """Where the build-time exponent comes from: the synonymy step, the rest, the edges it finds."""
    rows = _in_fit_range(rows)
    syn = _fit_exponent(rows, lambda r: r["synonymy_s"])
    rest = _fit_exponent(rows, lambda r: r["build_s"] - r["synonymy_s"])
    edges = _fit_exponent(rows, lambda r: r["n_synonymy_edges"])
    if syn != syn or rest != rest or edges != edges:
        return ""
    text = (
        f" Apart: the synonymy step {syn:.2f}, the rest of the build {rest:.2f}; the synonymy edges found "
        f"grow with exponent {edges:.2f}."
    )
    if edges > 1.05:
        text += (
            " A search for every pair within tau costs at least its output, so while the synonymy edges "
            "grow faster than the passages, the build cannot stay linear."
        )
    return text


def run_scale(
    sizes=SIZES, *, rng: int = 0, n_queries: int = 100, builds_per_size: int = 3, progress=None
) -> dict:
    """Measure every size (each in a fresh process), the MuSiQue check, and judge the targets.

    Parameters
    ----------
    sizes : sequence of int, default (10000, 20000, 40000, 100000)
    rng : int, default 0
    n_queries : int, default 100
    builds_per_size : int, default 3
        Builds per size; each row reports the fastest (see :func:`measure_size`).
    progress : bool or None
        tqdm bar on stderr over the sizes; None shows it only on a terminal.

    Returns
    -------
    dict
        ``rows`` (one dict per size), ``musique`` (:func:`musique_synonymy_check`),
        ``exponent``, ``targets`` (list of dicts with ``name``, ``target``, ``measured``,
        ``status`` in PASS / FAIL / NOT MEASURED), ``sizes``, ``seed``.
    """
    from tqdm.auto import tqdm

    sizes = sorted(check_int("size", s, low=2) for s in sizes)
    rng = check_int("rng", rng, low=0)
    ctx = multiprocessing.get_context("spawn")
    rows, failed = [], []
    bar = tqdm(sizes, desc="scale", unit="size", file=sys.stderr,
               disable=None if progress is None else not progress)
    for n in bar:
        bar.set_postfix(passages=n)
        t0 = time.perf_counter()
        try:
            with cf.ProcessPoolExecutor(max_workers=1, mp_context=ctx) as pool:
                rows.append(pool.submit(measure_size, n, rng=rng, n_queries=n_queries,
                                        builds_per_size=builds_per_size, memory_limit_gb=16).result())
            print(json.dumps(rows[-1]), file=sys.stderr, flush=True)  # a long run's rows as they come
        except MemoryError:
            failed.append({"n_passages": n, "seconds_until_killed": time.perf_counter() - t0})
        except cf.process.BrokenProcessPool:
            # Most likely the kernel's out-of-memory killer: record it rather than lose the run.
            failed.append({"n_passages": n, "seconds_until_killed": time.perf_counter() - t0})
    musique = musique_synonymy_check()
    in_range = _in_fit_range(rows)
    exponent = _fit_exponent(in_range)
    top = max(rows, key=lambda r: r["n_passages"]) if rows else None
    at_100k = top if top is not None and top["n_passages"] >= 100_000 else None
    if at_100k is None and any(f["n_passages"] >= 100_000 for f in failed):
        at_100k = {"build_s": float("inf"), "peak_rss_gb": float("inf"), "query_ms": float("inf"),
                   "query_misspelt_ms": float("inf")}  # the child died: a failure, not a gap

    def judge(name, target, measured, ok):
        status = "NOT MEASURED" if measured is None or measured != measured else ("PASS" if ok else "FAIL")
        return {"name": name, "target": target, "measured": measured, "status": status}

    span = (f"{in_range[0]['n_passages']:,}-{in_range[-1]['n_passages']:,}" if len(in_range) > 1 else "n/a")
    targets = [
        judge(f"build-time exponent, {span} passages", f"<= {TARGETS['build_exponent']}",
              exponent if len(in_range) > 1 else None, exponent <= TARGETS["build_exponent"]),
        judge("build at 100,000 passages (s)", f"<= {TARGETS['build_s_at_100k']:.0f}",
              at_100k["build_s"] if at_100k else None,
              bool(at_100k) and at_100k["build_s"] <= TARGETS["build_s_at_100k"]),
        judge("peak memory at 100,000 passages (GB)", f"<= {TARGETS['peak_rss_gb_at_100k']}",
              at_100k["peak_rss_gb"] if at_100k else None,
              bool(at_100k) and at_100k["peak_rss_gb"] <= TARGETS["peak_rss_gb_at_100k"]),
        judge("median query at 100,000 passages (ms, worse of exact / misspelt entities)",
              f"<= {TARGETS['query_ms_at_100k']:.0f}",
              max(at_100k["query_ms"], at_100k["query_misspelt_ms"]) if at_100k else None,
              bool(at_100k) and max(at_100k["query_ms"], at_100k["query_misspelt_ms"])
              <= TARGETS["query_ms_at_100k"]),
        judge("recall of the exact tau=0.8 synonymy edges (MuSiQue)", f">= {TARGETS['synonymy_recall']}",
              musique["recall"], musique["recall"] >= TARGETS["synonymy_recall"]),
        judge("MuSiQue R@5 unchanged (prefix vs all-pairs edges)", "equal",
              musique["r5_prefix"] - musique["r5_exact"], musique["r5_prefix"] == musique["r5_exact"]),
    ]
    return {"rows": rows, "failed": failed, "musique": musique, "exponent": exponent, "targets": targets,
            "sizes": sizes, "seed": rng}


def format_section(result: dict) -> str:
    """Markdown: the per-size table, the MuSiQue check and the targets with PASS/FAIL."""
    sizes = ", ".join(f"{s:,}" for s in result["sizes"])
    builds = "/".join(sorted({str(r.get("builds", 1)) for r in result["rows"]})) or "1"
    lines = [
        "## Real text at scale",
        "",
        f"Command: `python -m pathfinding.bench.scale` (sizes {sizes}; "
        f"synthetic corpus seed {result['seed']}; the fastest of {builds} builds per size, each size in a "
        "fresh process; medians over the corpus' questions). Times are wall-clock on this machine, "
        "shared with other work: read them with that noise in mind.",
        "",
        "| passages | nodes | synonymy edges | build s (slowest) | of it synonymy s | add 1 passage s | "
        "peak RSS GB | query ms | query ms (misspelt) | of it: seeds (link) / BM25 / walk ms | "
        "full-scan link ms | R@5 (synthetic) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in result["rows"]:
        lines.append(
            f"| {r['n_passages']:,} | {r['n_nodes']:,} | {r['n_synonymy_edges']:,} | {r['build_s']:.1f} "
            f"({r.get('build_s_slowest', float('nan')):.1f}) | "
            f"{r['synonymy_s']:.1f} | {r['add_s']:.2f} | {r['peak_rss_gb']:.2f} | {r['query_ms']:.1f} | "
            f"{r['query_misspelt_ms']:.1f} | {r['seeds_ms']:.2f} ({r['link_ms']:.2f}) / {r['bm25_ms']:.2f} / "
            f"{r['walk_ms']:.1f} | "
            f"{r['link_scan_ms']:.2f} | {r['recall_at_5']:.2f} |"
        )
    for f in result.get("failed", []):
        lines.append(f"| {f['n_passages']:,} | the build process was killed after "
                     f"{f['seconds_until_killed']:.0f} s (out of memory?) | | | | | | | | | | |")
    m = result["musique"]
    load = ", ".join(f"{r['load_avg_1m']:.1f}" for r in result["rows"] if "load_avg_1m" in r)
    threads = sorted({r["threads"] for r in result["rows"] if "threads" in r})
    lines += [
        "",
        f"Fitted exponent of build time vs passages: {result['exponent']:.2f}."
        + _exponent_parts(result["rows"]),
        *_walk_lines(result["rows"]),
        *([f"The synonymy search ran on {'/'.join(map(str, threads))} threads; the machine's 1-minute load "
           f"average when each size started: {load} (2 cores; above about 1, other work competed)."]
          if load else []),
        "",
        f"MuSiQue (released, tau = 0.8): the all-pairs product finds {m['exact_edges']:,} directed "
        f"synonymy pairs in {m['allpairs_s']:.1f} s, the prefix filter finds {m['found_edges']:,} of them "
        f"(recall {m['recall']:.4f}, {m['extra_edges']} extra) in {m['prefix_s']:.1f} s; the synonymy graphs "
        f"are {'identical' if m['same_graph'] else 'different'}. R@5 (capitalised extractor): "
        f"{100 * m['r5_exact']:.1f} with the all-pairs edges, {100 * m['r5_prefix']:.1f} with the prefix "
        "ones.",
        "",
        "| target | wanted | measured | status |",
        "|---|---|---|---|",
    ]
    for t in result["targets"]:
        v = t["measured"]
        shown = "—" if v is None else (f"{v:.3g}" if isinstance(v, float) else str(v))
        lines.append(f"| {t['name']} | {t['target']} | {shown} | {t['status']} |")
    return "\n".join(lines) + "\n"


def _walk_lines(rows) -> list[str]:
    """What the largest size's walk had to do (rows measured before these fields existed: none)."""
    r = max(rows, key=lambda r: r["n_passages"], default=None)
    if r is None or "walk_push_share" not in r:
        return []
    return [
        f"The walk at {r['n_passages']:,} passages: {r['walk_edges']:,} stored edges (phrases and "
        f"passages); the restart reaches a median of {r['restart_passages']:,.0f} passages (every one "
        f"with a BM25 score above zero). Forward push certified the top 5 in "
        f"{100 * r['walk_push_share']:.0f}% of the misspelt queries (a median of "
        f"{r['walk_push_rounds']:.0f} rounds), Gauss-Seidel any others; the misspelt queries' 90th "
        f"percentile was {r['query_misspelt_p90_ms']:.1f} ms. Gauss-Seidel alone, on the same "
        f"restarts, took a median of {r['walk_sweeps']:.0f} sweeps over every edge, "
        f"{r['walk_gs_ms']:.1f} ms.",
    ]


def main(argv=None) -> int:
    """``python -m pathfinding.bench.scale [--quick] [--sizes ...] [--json PATH]``."""
    p = argparse.ArgumentParser(
        prog="python -m pathfinding.bench.scale", description=__doc__.splitlines()[0]
    )
    p.add_argument("--quick", action="store_true", help=f"sizes {QUICK_SIZES} only")
    p.add_argument("--sizes", type=int, nargs="+", help="passage counts (overrides --quick)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--queries", type=int, default=100)
    p.add_argument("--json", help="also write the result as JSON to this path")
    a = p.parse_args(argv)
    sizes = a.sizes or (QUICK_SIZES if a.quick else SIZES)
    result = run_scale(sizes, rng=a.seed, n_queries=a.queries)
    print(format_section(result))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
