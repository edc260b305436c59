"""The scale benchmark: build the index at several corpus sizes, fit how build time grows, time queries.

Run ``python -m pathfinding.bench.scale`` (sizes 10k, 30k, 100k, 300k and 1M passages of the
:mod:`~pathfinding.synthetic.corpus` corpus) or ``--quick`` (10k and 30k). Each size is built in
a fresh child process, so its peak memory (``VmHWM``, the high-water mark of the child's own
address space) is its own and no earlier size's garbage is counted. Per size it records:

* ``build_s``: :func:`~pathfinding.hipporag.index.build.build_index` of all passages but the last, plus
  the preparation of the graph the default retriever walks (phrases and passages:
  :func:`~pathfinding.hipporag.retrieval.retrieve.graph_with_passages`; the query-ready index),
  after the compiled kernels are warm; the
  fastest of ``builds_per_size`` (3; one from 300k) identical builds (``build_s_slowest``: the
  slowest);
  ``synonymy_s`` is the part of it spent in the synonymy step (encoding excluded); ``add_s`` the
  time to add the last passage to that index (:func:`~pathfinding.hipporag.index.maintenance.
  add_passages`), ``add_again_s`` the median of the same add twice more (the first add also pays
  for the process' first touch of the memory it writes); the queries run on the grown index;
  ``delete_s`` and ``delete_again_s`` the same for deleting its middle passage
  (:func:`~pathfinding.hipporag.index.maintenance.delete_passages`, as ``sync`` does for a changed
  or removed file);
* ``peak_rss_gb``: the child's peak resident memory (corpus generation included); ``stages``: per
  stage of :data:`STAGES` its seconds and the memory it needed and kept (:class:`StageMeter`);
  ``file_bytes``, ``save_s``, ``load_s``: the index written to a file and read back;
  ``generate_s`` and ``text_bytes``: the corpus' generation and its passages' size;
* ``synonymy_recall`` (up to 100k passages): the share of the exact tau pairs that matter (every
  pair of a node with at most k) that the bounded search keeps; ``nodes_at_cap``: nodes whose list
  of k nearest is full;
* ``query_ms``: median of one retrieval per question with the default retriever (capitalised
  entities + fact seeds + passage nodes: linking, BM25, the walk, the top k), entities
  from the question text; ``query_misspelt_ms`` the same with each entity misspelt (last letter
  replaced), so linking goes through the encoder and the nearest-node search, not an exact hit;
* ``seeds_ms``, ``bm25_ms``, ``walk_ms``: medians of the parts of a misspelt query with the
  default retriever: its seeds (linking + fact seeds; ``link_ms`` is linking alone), the passages'
  BM25 scores (the hybrid restart), and the rest (the walk over phrase and passage nodes, stopped
  once the top k are certified, and the ranking); ``link_scan_ms`` is what linking by a product
  with every node (the code before this module) costs (up to ``recall_up_to`` passages: it needs
  a transposed copy of the embeddings);
* ``query_misspelt_p90_ms``: the 90th percentile of the misspelt queries (the walk's time varies
  with how close the 5th and 6th passages are);
* ``walk_edges`` (stored directed edges of the phrase + passage graph), ``restart_passages`` (median
  passages with a share of the restart: those BM25 scores above zero), ``walk_push_share`` (the
  share of misspelt queries whose top 5 forward push certified; Gauss-Seidel took the others),
  ``walk_push_rounds`` (their median push rounds), and, for comparison, ``walk_sweeps`` and
  ``walk_gs_ms`` (median sweeps and milliseconds of :func:`~pathfinding.core.ppr.ppr_top_k` with
  Gauss-Seidel alone, each sweep a pass over every edge); ``walk_certified_share``: the share of
  misspelt queries whose top 5 :func:`~pathfinding.core.ppr.ppr_top_k` certified;
* ``recall_at_5`` on the corpus' own two-hop questions (a sanity check, not a claim);
* ``threads`` (numba's, used by the synonymy search) and ``load_avg_1m``, the machine's 1-minute
  load average when the size started (other work competing for the cores);
* ``command_s``, ``command_peak_gb``, ``command_bytes``: the command a user runs on the same corpus
  written as files, ``pathfinding hipporag index`` from reading to query cache (:func:`measure_command`).

On the released MuSiQue index it also measures the recall of the exact tau = 0.8 synonymy pairs
that matter (the all-pairs product) by the build's bounded top-k search, and R@5 with either.

:func:`run_scale` returns rows and targets; :mod:`~pathfinding.bench.scale_report` judges them
(PASS/FAIL) and renders the markdown section for ``make bench``.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import contextlib
import gc
import json
import multiprocessing
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import numba
import numpy as np

from pathfinding._validation import check_int
from pathfinding.bench.probes import STOP_SIGNALS, signals_as_exit
from pathfinding.bench.scale_report import ONE_BUILD_FROM, edges_kept
from pathfinding.hipporag.index.maintenance import add_passages

__all__ = [
    "QUICK_SIZES",
    "SIZES",
    "StageMeter",
    "main",
    "measure_command",
    "measure_size",
    "run_scale",
    "write_corpus_files",
]

SIZES = (10_000, 30_000, 100_000, 300_000, 1_000_000)
QUICK_SIZES = (10_000, 30_000)


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


class StageMeter:
    """Seconds and memory of each stage: call it with a stage's name as the stage starts.

    Per stage: ``s`` (wall-clock), ``peak_bytes`` (the peak resident memory during the stage above
    the memory at its start; the kernel's peak mark is reset at each start), ``kept_bytes`` (what
    the stage left resident) and ``peak_total_bytes`` (the process' resident memory at the stage's
    peak: what it held before plus what the stage added). The whole run's peak is kept apart
    (``peak``, bytes). A call reads
    ``/proc/self/status`` and resets the mark, no more (no garbage collection, which would take
    seconds among a million passages' objects), so freed memory the allocator keeps counts as kept.
    """

    def __init__(self):
        from pathfinding.bench.probes import read_status

        self._read = read_status
        self.stages: dict[str, dict] = {}
        self.peak = 0
        self._open = None

    def __call__(self, stage: str) -> None:
        now = time.perf_counter()
        rss, hwm = self._read("VmRSS") or 0, self._read("VmHWM") or 0
        self.peak = max(self.peak, hwm)
        if self._open is not None:
            name, t0, rss0 = self._open
            self.stages[name] = {"s": now - t0, "peak_bytes": max(hwm - rss0, 0), "kept_bytes": rss - rss0,
                                 "peak_total_bytes": max(hwm, rss0)}
        self._open = None
        if stage != "done":
            with contextlib.suppress(OSError):
                with open("/proc/self/clear_refs", "w") as f:
                    f.write("5")
            self._open = (stage, time.perf_counter(), self._read("VmRSS") or 0)


def _synonymy_recall(idx) -> dict:
    """The built index's synonymy pairs against the exact search, on the edges that matter: every
    exact pair of a node with at most k pairs (a node over the cap may keep any k of its own)."""
    from pathfinding.hipporag.index.build import synonymy_eligible
    from pathfinding.hipporag.index.neighbours import cosine_neighbours_prefix

    where = np.flatnonzero(synonymy_eligible(idx.phrases))
    k = idx.settings["max_synonyms"]
    t0 = time.perf_counter()
    exact = cosine_neighbours_prefix(idx.node_embeddings[where], tau=idx.settings["tau"],
                                     max_neighbours=where.size)
    exact_s = time.perf_counter() - t0
    return {**edges_kept(exact, idx.pairs[where][:, where], k), "exact_s": exact_s}


def measure_size(
    n_passages: int, *, rng: int = 0, n_queries: int = 100, builds_per_size: int = 3, memory_limit_gb=None,
    recall_up_to: int = 100_000, progress=None,
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
        Cap on this process' address space (``run_scale`` passes one: a child process only).
    recall_up_to : int, default 100000
        Up to this size the synonymy pairs are compared with the exact search (which is quadratic).
    progress : bool or None
        Bars of the corpus generator and of each build (stderr); None: on a terminal only.

    Returns
    -------
    dict
    """

    from pathfinding.core.ppr import ppr_top_k
    from pathfinding.hipporag.index.build import BUILD_STAGES, build_index
    from pathfinding.hipporag.index.maintenance import delete_passages
    from pathfinding.hipporag.index.model import prepared_key
    from pathfinding.hipporag.index.persistence import load_index, save_index
    from pathfinding.hipporag.language.text import normalize_phrase
    from pathfinding.hipporag.retrieval.linking import NEAREST_ROWS_KEY, link_entities
    from pathfinding.hipporag.retrieval.retrieve import (
        BM25_KEY,
        FACT_LINKER_KEY,
        HippoRetriever,
        graph_with_passages,
        passage_graph_key,
    )
    from pathfinding.synthetic.corpus import synthetic_corpus

    n_passages = check_int("n_passages", n_passages, low=2)
    builds_per_size = check_int("builds_per_size", builds_per_size, low=1)
    load_avg = os.getloadavg()[0]  # other work on the machine when this size starts
    if memory_limit_gb is not None:
        # A runaway build must fail with MemoryError here, not wake the machine's OOM killer.
        limit = int(memory_limit_gb * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    _warm_kernels()
    meter = StageMeter()
    meter("generate")
    corpus = synthetic_corpus(n_passages, n_questions=n_queries, rng=rng, progress=progress)
    meter("done")
    text_bytes = sum(len(p.encode()) for p in corpus.passages)
    # The fastest of `builds` identical builds: noise from other work on the machine only ever adds
    # time, and one slow build of the smallest size moved the fitted exponent by 0.15 in one run.
    # The first build is the one whose stages are measured.
    builds = []  # (build_s, index_s, synonymy_s)
    first = None
    for _ in range(builds_per_size):
        idx = None
        gc.collect()
        marks = {}

        def hear(stage, marks=marks):
            marks[stage] = time.perf_counter()
            meter(stage)
            if progress is not False and n_passages >= ONE_BUILD_FROM:  # a long build says where it is
                print(f"scale {n_passages:,}: {stage}", file=sys.stderr, flush=True)

        t0 = time.perf_counter()
        idx = build_index(corpus.triples[:-1], passages=corpus.passages[:-1], progress=hear)
        index_s = time.perf_counter() - t0
        meter("prepare")
        graph_with_passages(idx)
        meter("done")
        builds.append((time.perf_counter() - t0, index_s, marks["assemble"] - marks["synonymy"]))
        first = first or {name: meter.stages[name] for name in (*BUILD_STAGES, "prepare")}
    meter.stages.update(first)  # the stages of the first build, whose memory is not yet reused
    build_s, index_s, synonymy_s = min(builds)
    # The corpus' own triples are input: the index holds its normalised ones, and the passages' texts
    # themselves (not copies). What is left of the corpus is its last passage and its questions.
    last_triples, last_text, questions = corpus.triples[-1:], corpus.passages[-1:], corpus.questions
    del corpus
    gc.collect()
    # The last passage arrives by an incremental add (the encoder kept, as by default).
    # Its stage holds the same add three times, each result replacing the last (never three indexes
    # at once), and ends once the old index is dropped, as a rebinding `idx = add_passages(idx, ...)`
    # would: its memory is one add's. Its seconds are the first add's, which also pays for this
    # process' first touch of the memory it writes (on a virtual machine, several times the cost of
    # writing it again); `add_again_s`, the median of the other two, is the add alone.
    meter("add")
    t0 = time.perf_counter()
    grown = add_passages(idx, last_triples, last_text)
    add_s = time.perf_counter() - t0
    again = []
    for _ in range(2):
        del grown
        t0 = time.perf_counter()
        grown = add_passages(idx, last_triples, last_text)
        again.append(time.perf_counter() - t0)
    idx = grown
    del grown
    meter("done")
    meter.stages["add"]["s"] = add_s
    # A middle passage deleted, as `sync` deletes a changed or removed file's passages: the first
    # delete of the process, then the median of two more; each result is dropped (the grown index
    # stays), so the stage's memory is one delete's.
    meter("delete")
    middle, deletes = [idx.n_passages // 2], []
    for _ in range(3):
        t0 = time.perf_counter()
        smaller = delete_passages(idx, middle)
        deletes.append(time.perf_counter() - t0)
        del smaller
    meter("done")
    meter.stages["delete"]["s"] = deletes[0]
    recall = _synonymy_recall(idx) if n_passages <= recall_up_to else {}
    over_cap = int(np.count_nonzero(np.diff(idx.pairs.indptr) >= idx.settings["max_synonyms"]))

    meter("bm25")  # the retriever's lexical indexes: the facts' (built with it) and the passages'
    ret = HippoRetriever(idx, extractor="capitalised")
    ret.bm25  # noqa: B018 - built on first use; measured here, not inside the first query
    meter("done")
    if n_passages >= ONE_BUILD_FROM:  # a long run's stages so far, in case a later step kills it
        so_far = {"n_passages": n_passages, "build_s": build_s, "add_s": add_s, "stages": meter.stages,
                  "peak_gb": meter.peak / 2**30}
        print(json.dumps(so_far), file=sys.stderr, flush=True)
    walk_graph = ret.graph_with_passages()
    passage_nodes = np.arange(idx.n_nodes, walk_graph.n_nodes)
    sweeps, spread, gs_times, by_push, push_rounds, certified = [], [], [], [], [], []
    times, times_miss, hits = [], [], []
    parts = {"link": [], "link_scan": [], "seeds": [], "bm25": [], "walk": []}
    # Linking by a product with every node needs the transposed embeddings, a copy as large as the
    # embeddings themselves: measured for comparison up to the size the exact synonymy check runs.
    ET = idx.embeddings_T() if n_passages <= recall_up_to else None
    for q in questions:
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
        if ET is not None:
            idx.encoder([normalize_phrase(e) for e in miss]) @ ET
        t2 = time.perf_counter()
        ret._plan(q.question, miss)  # the seeds as retrieve finds them (linking + fact seeds + specificity)
        t3 = time.perf_counter()
        ret.bm25.scores(q.question)
        t4 = time.perf_counter()
        spent_parts = (t1 - t0, t2 - t1, t3 - t2, t4 - t3, max(total - (t4 - t2), 0.0))
        for key, dt in zip(parts, spent_parts, strict=True):
            parts[key].append(dt if key != "link_scan" or ET is not None else float("nan"))
        # What the walk had to do: how many passages the restart touches, which solver certified
        # the top 5, and what Gauss-Seidel sweeps alone would cost (each a pass over every edge).
        w = ret.seed_weights(q.question, miss) * idx.specificity
        if w.any():
            restart = ret.hybrid_restart(q.question, w)
            spread.append(np.count_nonzero(restart[idx.n_nodes :]))
            kw = dict(candidates=passage_nodes, restart_prob=ret.restart_prob, tol=ret.tol, margin=ret.tol)
            top = ppr_top_k(walk_graph, restart, 5, **kw)
            certified.append(bool(top.certified))
            by_push.append(top.method == "push")
            if top.method == "push":
                push_rounds.append(top.iterations)
            t0 = time.perf_counter()
            top = ppr_top_k(walk_graph, restart, 5, method="gauss-seidel", **kw)
            gs_times.append(time.perf_counter() - t0)
            sweeps.append(top.iterations)
    # The index written and read back (a fresh object: the built one is dropped first). The
    # retriever goes, and so does what it derived on the index (the passages' BM25, the walk graphs,
    # the fact linker, the linker's postings): `pathfinding hipporag index` saves an index with
    # nothing derived but what the save derives itself (the casing model), then writes the query
    # cache one derived object at a time.
    stats, walk_edges = idx.stats, walk_graph.n_edges
    del ret, walk_graph, ET
    for key in (BM25_KEY, FACT_LINKER_KEY, NEAREST_ROWS_KEY, "embeddings_T", passage_graph_key(True),
                prepared_key(True)):  # fmt: skip
        idx.forget(key)
    gc.collect()
    folder = tempfile.mkdtemp(prefix="pathfinding-scale-")
    try:
        path = os.path.join(folder, "scale.hippo")
        meter("save")
        save_index(idx, path)
        meter("done")
        file_bytes = os.path.getsize(path)
        del idx
        gc.collect()
        meter("load")
        load_index(path)
        meter("done")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return {
        "n_passages": n_passages,
        "n_nodes": stats.n_nodes,
        "n_relation_edges": stats.n_relation_edges,
        "n_synonymy_edges": stats.n_synonymy_edges,
        "nodes_at_cap": over_cap,
        "synonymy_recall": recall.get("recall"),
        "synonymy_matter": recall.get("matter"),
        "exact_synonymy_s": recall.get("exact_s"),
        "generate_s": meter.stages["generate"]["s"],
        "text_bytes": text_bytes,
        "stages": meter.stages,
        "file_bytes": file_bytes,
        "save_s": meter.stages["save"]["s"],
        "load_s": meter.stages["load"]["s"],
        "add_s": add_s,
        "add_again_s": float(np.median(again)),
        "delete_s": deletes[0],
        "delete_again_s": float(np.median(deletes[1:])),
        "index_s": index_s,
        "build_s": build_s,
        "build_s_slowest": max(b[0] for b in builds),
        "builds": len(builds),
        "synonymy_s": synonymy_s,
        "peak_rss_gb": max(meter.peak, _peak_rss_gb() * 2**30) / 2**30,
        "walk_certified_share": float(np.mean(certified)) if certified else float("nan"),
        "query_ms": 1000 * float(np.median(times)),
        "query_misspelt_ms": 1000 * float(np.median(times_miss)),
        "query_misspelt_p90_ms": 1000 * float(np.percentile(times_miss, 90)),
        **{f"{k}_ms": 1000 * float(np.median(v)) for k, v in parts.items()},
        "walk_edges": walk_edges,
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


def write_corpus_files(n_passages: int, folder: str, *, rng: int = 0) -> tuple[str, str]:
    """The size's synthetic corpus written as a corpus JSON and an OpenIE file in ``folder``
    (:func:`~pathfinding.synthetic.hipporag_files.write_hipporag_files`), in a process of its own
    that ends before the command runs."""
    from pathfinding.synthetic.corpus import synthetic_corpus
    from pathfinding.synthetic.hipporag_files import write_hipporag_files

    with signals_as_exit((*STOP_SIGNALS, signal.SIGINT)):
        corpus = synthetic_corpus(n_passages, n_questions=0, rng=rng, progress=False)
        return write_hipporag_files(corpus, folder)


_OWN_PEAK = (
    "import atexit, os\n"
    "def peak():\n"
    "    hwm = next(x for x in open('/proc/self/status') if x.startswith('VmHWM'))\n"
    "    open(os.environ['PATHFINDING_PEAK_FILE'], 'w').write(hwm.split()[1])\n"
    "atexit.register(peak)\n"
    "from pathfinding.cli.entry import console\n"
    "console()\n"
)
"""``python -m pathfinding``, which writes its process' ``VmHWM`` (KiB) to ``$PATHFINDING_PEAK_FILE`` as
it exits."""


def measure_command(corpus_path: str, openie_path: str, folder: str) -> dict:
    """``pathfinding hipporag index CORPUS --openie OPENIE -o INDEX``, as a user runs it on those files:
    its wall time, the peak resident memory of its process (reading, build, save, query cache: its
    own ``VmHWM``, written as it exits; a child's ``ru_maxrss`` starts at what its parent held when
    it was forked, which hid the smallest sizes' peaks), and the bytes of the index and cache."""
    out, peak_file = os.path.join(folder, "command.hippo"), os.path.join(folder, "command.peak")
    argv = [sys.executable, "-c", _OWN_PEAK, "hipporag", "index", corpus_path, "--openie", openie_path,
            "-o", out]  # fmt: skip
    with open(os.path.join(folder, "command.err"), "w+") as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=err,
                                env={**os.environ, "PATHFINDING_PEAK_FILE": peak_file})  # fmt: skip
        try:
            code = proc.wait()
        except BaseException:
            proc.kill()  # stopped (Ctrl-C reaches the command too): it must not run on alone
            proc.wait()
            raise
        seconds = time.perf_counter() - t0
        if code != 0:
            err.seek(0)
            raise RuntimeError(f"pathfinding {' '.join(argv[3:])} exited with {code}: {err.read()[-2000:]}")
    with open(peak_file) as f:
        peak_gb = int(f.read()) * 1024 / 2**30
    size = sum(os.path.getsize(p) for p in (out, out + ".query-cache") if os.path.exists(p))
    return {"command_s": seconds, "command_peak_gb": peak_gb, "command_bytes": size}


def _measure_in_own_process(*args, **kwargs) -> dict:
    """:func:`measure_size` in a size's own process: any stop signal (Ctrl-C too, which the terminal
    sends it as well) ends it through its finally blocks, which remove its temporary index."""
    with signals_as_exit((*STOP_SIGNALS, signal.SIGINT)):
        return measure_size(*args, **kwargs)


def _command_at_size(n: int, rng: int, ctx) -> dict:
    """:func:`measure_command` on the size's corpus, written by a process that has ended."""
    folder = tempfile.mkdtemp(prefix="pathfinding-command-")
    try:
        with cf.ProcessPoolExecutor(max_workers=1, mp_context=ctx) as pool:
            paths = pool.submit(write_corpus_files, n, folder, rng=rng).result()
        return measure_command(*paths, folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def run_scale(
    sizes=SIZES, *, rng: int = 0, n_queries: int = 100, builds_per_size: int = 3, progress=None,
    memory_limit_gb: float = 20.0,
) -> dict:
    """Measure every size (each in a fresh process), the MuSiQue check, and judge the targets.

    Parameters
    ----------
    sizes : sequence of int, default (10000, 30000, 100000, 300000, 1000000)
    rng : int, default 0
    n_queries : int, default 100
    builds_per_size : int, default 3
        Builds per size below :data:`ONE_BUILD_FROM` (one from there); each row reports the fastest.
    progress : bool or None
        tqdm bar on stderr over the sizes; None shows it only on a terminal.
    memory_limit_gb : float, default 20
        Address-space cap of each size's process: a size past it is reported as killed. The target
        (8 GB) is judged on resident memory; the cap counts address space, which runs a few GB above
        it (numba's compiler, threads' malloc arenas), and keeps a runaway size from crowding a 24 GB
        machine. Under a 12 GB cap a million passages were killed in the save, 9.5 GB resident before
        it (the save counts the corpus' names for the casing model: 3.4 GB above its start at a
        million passages, alone).

    Returns
    -------
    dict
        ``rows`` (one dict per size), ``failed``, ``musique``
        (:func:`~pathfinding.bench.realtext.musique_synonymy_check`),
        ``exponent``, ``targets`` (:func:`~pathfinding.bench.scale_report.judge_targets`), ``sizes``,
        ``seed``.
    """
    from tqdm.auto import tqdm

    from pathfinding.bench.realtext import musique_synonymy_check
    from pathfinding.bench.scale_report import fit_exponent, in_fit_range, judge_targets

    sizes = sorted(check_int("size", s, low=2) for s in sizes)
    rng = check_int("rng", rng, low=0)
    ctx = multiprocessing.get_context("spawn")
    rows, failed = [], []
    bar = tqdm(sizes, desc="scale", unit="size", file=sys.stderr,
               disable=None if progress is None else not progress)
    for n in bar:
        bar.set_postfix(passages=n)
        t0 = time.perf_counter()
        builds = builds_per_size if n < ONE_BUILD_FROM else 1
        try:
            with signals_as_exit(), cf.ProcessPoolExecutor(max_workers=1, mp_context=ctx) as pool:
                future = pool.submit(_measure_in_own_process, n, rng=rng, n_queries=n_queries,
                                     builds_per_size=builds, memory_limit_gb=memory_limit_gb,
                                     progress=progress)
                try:
                    rows.append(future.result())
                except (KeyboardInterrupt, SystemExit):
                    # Told to stop: so is the size's process (else it runs on, orphaned, for minutes),
                    # and leaving the pool waits for it to clean up (its temporary index) and exit.
                    for proc in list((getattr(pool, "_processes", None) or {}).values()):
                        proc.terminate()
                    print(f"scale: stopped during the {n:,}-passage size ({len(rows)} done); its process "
                          "was stopped too", file=sys.stderr, flush=True)
                    raise
            rows[-1].update(_command_at_size(n, rng, ctx))
            print(json.dumps(rows[-1]), file=sys.stderr, flush=True)  # a long run's rows as they come
        except (MemoryError, cf.process.BrokenProcessPool):
            # MemoryError under the cap; a broken pool most likely the kernel's out-of-memory killer.
            failed.append({"n_passages": n, "seconds_until_killed": time.perf_counter() - t0})
    musique = musique_synonymy_check()
    exponent = fit_exponent(in_fit_range(rows))
    targets = judge_targets(rows, failed, musique, exponent)
    return {"rows": rows, "failed": failed, "musique": musique, "exponent": exponent, "targets": targets,
            "sizes": sizes, "seed": rng}


def main(argv=None) -> int:
    """``python -m pathfinding.bench.scale [--quick] [--sizes ...] [--json PATH]``."""
    from pathfinding.bench.scale_report import format_section

    p = argparse.ArgumentParser(
        prog="python -m pathfinding.bench.scale", description=__doc__.splitlines()[0]
    )
    p.add_argument("--quick", action="store_true", help=f"sizes {QUICK_SIZES} only")
    p.add_argument("--sizes", type=int, nargs="+", help="passage counts (overrides --quick)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--queries", type=int, default=100)
    p.add_argument("--memory-limit-gb", type=float, default=20.0, help="address-space cap per size")
    p.add_argument("--json", help="also write the result as JSON to this path")
    a = p.parse_args(argv)
    sizes = a.sizes or (QUICK_SIZES if a.quick else SIZES)
    result = run_scale(sizes, rng=a.seed, n_queries=a.queries, memory_limit_gb=a.memory_limit_gb)
    print(format_section(result))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
