"""Timing on the MuSiQue tuning set of the HippoRAG release: the index build and one query, on one core;
and the scale bench's check of the bounded synonymy search against the exact one on the same set."""

from __future__ import annotations

import dataclasses
import time

import numpy as np

from pathfinding._validation import check_int
from pathfinding.experiments.realtext import load_realtext
from pathfinding.hipporag.index.build import index_from_openie
from pathfinding.hipporag.retrieval.lexical import BM25Ranker
from pathfinding.hipporag.retrieval.retrieve import HippoRetriever

__all__ = ["benchmark", "musique_synonymy_check"]


def benchmark(*, n_builds: int = 3, n_queries: int | None = None) -> dict:
    """Time the index build and one query (linking + PPR + passage scoring), on one core.

    Parameters
    ----------
    n_builds : int, default 3
        Index builds to time (median reported). Library imports are done before timing.
    n_queries : int, optional
        Questions to time (default all 100); each is run once to warm up, then timed.

    Returns
    -------
    dict
        ``build_seconds`` (median), ``build_seconds_all``, ``query_ms_median`` and ``query_ms_p90``
        (over all questions, BM25 fallbacks included), ``query_ms_median_ppr_only`` (questions that
        walked), ``n_fell_back``, ``query_ms_median_lower`` (the questions lower-cased),
        ``query_ms_median_tol_1e-6`` and ``same_top10_tol_1e-6`` (the
        same with the walk stopped at L1 error 1e-6, and on how many questions its top 10 is
        identical), ``n_queries``, ``extractor``, ``n_nodes``, ``n_edges``.
    """
    import sklearn.feature_extraction.text  # noqa: F401  (import cost is not build cost)

    n_builds = check_int("n_builds", n_builds, low=1)
    data = load_realtext()
    builds = []
    for _ in range(n_builds):
        t0 = time.perf_counter()
        index = index_from_openie(data["openie"])
        index.prepared()
        builds.append(time.perf_counter() - t0)
    questions = data["questions"]
    if n_queries is not None:
        questions = questions[: check_int("n_queries", n_queries, low=1, high=len(questions))]
    ret = HippoRetriever(index, bm25=BM25Ranker(index.passages))
    times, walked = [], []
    for q in questions:
        ret.retrieve(q.question, k=10)
        t0 = time.perf_counter()
        r = ret.retrieve(q.question, k=10)
        times.append(time.perf_counter() - t0)
        walked.append(not r.fell_back)
    ms = 1000 * np.asarray(times)
    walked = np.asarray(walked)
    lower_times = []
    for q in questions:
        ret.retrieve(q.question.lower(), k=10)
        t0 = time.perf_counter()
        ret.retrieve(q.question.lower(), k=10)
        lower_times.append(time.perf_counter() - t0)
    loose = HippoRetriever(index, bm25=ret.bm25, tol=1e-6)
    loose_times, same = [], 0
    for q in questions:
        loose.retrieve(q.question, k=10)
        t0 = time.perf_counter()
        r = loose.retrieve(q.question, k=10)
        loose_times.append(time.perf_counter() - t0)
        same += int(np.array_equal(r.passages, ret.retrieve(q.question, k=10).passages))
    return {
        "build_seconds": float(np.median(builds)),
        "build_seconds_all": [float(b) for b in builds],
        "query_ms_median": float(np.median(ms)),
        "query_ms_p90": float(np.quantile(ms, 0.9)),
        "query_ms_median_ppr_only": float(np.median(ms[walked])) if walked.any() else float("nan"),
        "n_fell_back": int((~walked).sum()),
        "query_ms_median_lower": float(np.median(1000 * np.asarray(lower_times))),
        "query_ms_median_tol_1e-6": float(np.median(1000 * np.asarray(loose_times))),
        "same_top10_tol_1e-6": same,
        "n_queries": len(questions),
        "extractor": "default (capitalised + facts, passage weight 0.2)",
        "n_nodes": index.n_nodes,
        "n_edges": index.prepared().n_edges // 2,
    }


def musique_synonymy_check(tau: float = 0.8) -> dict:
    """The build's synonymy pairs on the MuSiQue index against the exact search, and R@5 with each.

    Returns
    -------
    dict
        ``matter`` (exact pairs that matter: every pair of a node with at most k), ``kept`` (those the
        build's bounded search keeps), ``recall``, ``over_cap``, ``same_graph``, ``r5_exact`` and
        ``r5_topk`` (HippoRAG with the capitalised extractor, mean over the 100 questions),
        ``exact_s`` (the exact all-pairs search) and ``topk_s`` (the bounded one).
    """
    import scipy.sparse as sp

    from pathfinding.bench.scale_report import edges_kept
    from pathfinding.hipporag.evaluation.metrics import recall_at_k, supporting_ids
    from pathfinding.hipporag.index.build import synonymy_eligible
    from pathfinding.hipporag.index.neighbours import cosine_neighbours_topk
    from pathfinding.hipporag.index.synonymy import cosine_neighbours_allpairs, keep_nearest, synonymy_edges

    data = load_realtext()
    idx = index_from_openie(data["openie"], tau=tau)
    k = idx.settings["max_synonyms"]
    where = np.flatnonzero(synonymy_eligible(idx.phrases))
    E = idx.node_embeddings[where]
    t0 = time.perf_counter()
    exact = cosine_neighbours_allpairs(E, tau=tau, max_neighbours=where.size)
    exact_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    found = cosine_neighbours_topk(E, tau=tau, k=k, budget=idx.settings["search_budget"])
    topk_s = time.perf_counter() - t0
    kept = edges_kept(exact, found, k)

    # The same index with the exact search's k nearest per node as its synonymy edges.
    n = idx.n_nodes
    C = sp.coo_array(keep_nearest(exact, k))
    pairs = sp.csr_array((C.data, (where[C.row], where[C.col])), shape=(n, n))
    S = synonymy_edges(pairs, idx.relation_graph, max_synonyms=k)
    old = dataclasses.replace(idx, synonymy_graph=S)
    questions = data["questions"]
    gold = supporting_ids(questions, data["corpus"])
    bm25 = BM25Ranker(idx.passages)
    r5 = {}
    for name, index in (("r5_exact", old), ("r5_topk", idx)):
        ret = HippoRetriever(index, extractor="capitalised", bm25=bm25)
        ranks = [ret.retrieve(q.question, k=10).passages for q in questions]
        r5[name] = float(recall_at_k(ranks, gold, ks=(5,))[:, 0].mean())
    return {**kept, "same_graph": bool((S != idx.synonymy_graph).nnz == 0), **r5, "exact_s": exact_s,
            "topk_s": topk_s}
