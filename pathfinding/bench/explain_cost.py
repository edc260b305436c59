"""What an explanation costs: ``query --explain`` against the plain query on 2WikiMultihopQA.

The HippoRAG release's 2WikiMultihopQA corpus (6,119 passages) is indexed with no model (the
co-occurrence extractor, as the README's timing example does) into a temporary folder. Its question
file is not part of the release, so the questions are written from the corpus's own titles ("Who is
the director of <title>?" and three more shapes), as written and lower-cased (the fused route), all
drawn with one seed. Two measurements:

``warm``
    one process, the retriever built and every question asked once before timing: the median of
    ``repeats`` calls of :meth:`~pathfinding.hipporag.retrieval.retrieve.HippoRetriever.retrieve`
    and of :meth:`~pathfinding.hipporag.retrieval.retrieve.HippoRetriever.explain` per question;
    the target is on the median over questions of their ratio (:data:`EXPLAIN_TARGET`);
``shell``
    ``pathfinding hipporag query INDEX QUESTION`` with and without ``--explain``, each a fresh
    process (interpreter start, imports, the index through its query cache), medians of ``runs``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

from pathfinding._validation import check_int

__all__ = ["EXPLAIN_TARGET", "format_explain", "run_explain"]

EXPLAIN_TARGET = 3.0
"""``explain`` may cost at most this many times ``retrieve`` in a warm process (median over questions)."""
TEMPLATES = (
    "Who is the director of {}?",
    "When was {} released?",
    "Where was {} born?",
    "Which country is {} from?",
)


def _questions(corpus, n: int, rng) -> list[str]:
    picks = rng.choice(len(corpus), size=n, replace=False)
    cased = [TEMPLATES[i % len(TEMPLATES)].format(corpus[j].title) for i, j in enumerate(picks)]
    return cased + [q.lower() for q in cased[: n // 2]]


def _median_seconds(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def _shell(index_path: str, question: str, runs: int, explain: bool) -> float:
    argv = [sys.executable, "-m", "pathfinding", "hipporag", "query", index_path, question]
    argv += ["--explain"] if explain else []
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def run_explain(*, seed: int = 0, n_questions: int = 40, repeats: int = 5, runs: int = 5) -> dict:
    """Time ``retrieve`` against ``explain`` warm, and ``query`` against ``query --explain`` from the shell.

    Returns
    -------
    dict
        ``questions``, ``routes`` (how many questions took each route), ``warm`` (per-question
        milliseconds of both and their ratio), ``warm_median_ratio``, ``shell`` (seconds of both), and
        ``targets`` with PASS/FAIL.
    """
    from pathfinding.hipporag.extract.cooccurrence import cooccurrence_docs
    from pathfinding.hipporag.index.build import build_index
    from pathfinding.hipporag.index.persistence import save_index
    from pathfinding.hipporag.io.loaders import load_corpus
    from pathfinding.hipporag.retrieval.querycache import write_cache
    from pathfinding.hipporag.retrieval.retrieve import HippoRetriever
    from pathfinding.hipporag.storage.datasets import fetch

    n_questions = check_int("n_questions", n_questions, low=2)
    corpus, _ = load_corpus(fetch("2wiki_corpus"))
    index = build_index([d.triples for d in cooccurrence_docs(corpus)], passages=[p.key for p in corpus])
    questions = _questions(corpus, n_questions, np.random.default_rng(seed))
    ret = HippoRetriever(index)
    routes: dict[str, int] = {}
    for q in questions:  # warm: kernels compiled, derived state built, each question seen once
        ret.retrieve(q, k=5)
        ret.explain(q, k=5)
    rows = []
    for q in questions:
        plain = _median_seconds(lambda q=q: ret.retrieve(q, k=5), repeats)
        why = _median_seconds(lambda q=q: ret.explain(q, k=5), repeats)
        route = ret.explain(q, k=5).route
        routes[route] = routes.get(route, 0) + 1
        rows.append({"question": q, "route": route, "plain_ms": 1e3 * plain, "explain_ms": 1e3 * why,
                     "ratio": why / plain})  # fmt: skip
    ratio = float(np.median([r["ratio"] for r in rows]))
    folder = tempfile.mkdtemp(prefix="pf-explain-")
    try:
        path = os.path.join(folder, "2wiki.hippo")
        save_index(index, path)
        write_cache(index, path)
        shell = {
            key: _shell(path, questions[0], runs, key == "explain_s") for key in ("plain_s", "explain_s")
        }
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    target = {
        "target": f"explain <= {EXPLAIN_TARGET:g}x retrieve in a warm process (median over questions)",
        "measured": f"{ratio:.2f}x", "status": "PASS" if ratio <= EXPLAIN_TARGET else "FAIL",
        "graph": "2WikiMultihopQA, no-model index",
    }  # fmt: skip
    return {"questions": len(questions), "routes": routes, "warm": rows, "warm_median_ratio": ratio,
            "shell": shell, "seed": seed, "repeats": repeats, "runs": runs, "targets": [target]}  # fmt: skip


def format_explain(res: dict) -> str:
    """The measurements as text: per route, the medians; then the shell's; then the target."""
    lines = []
    for route in [*sorted(res["routes"]), None]:
        rows = [r for r in res["warm"] if route is None or r["route"] == route]
        plain, why = (np.median([r[key] for r in rows]) for key in ("plain_ms", "explain_ms"))
        ratio = np.median([r["ratio"] for r in rows])
        lines.append(f"warm, {route or 'all'} ({len(rows)} questions): retrieve median {plain:.2f} ms, "
                     f"explain median {why:.2f} ms, median ratio {ratio:.2f}x")  # fmt: skip
    lines.append(f"from the shell (fresh process, query cache): query {res['shell']['plain_s']:.2f} s, "
                 f"query --explain {res['shell']['explain_s']:.2f} s")  # fmt: skip
    for t in res["targets"]:
        lines.append(f"{t['status']}: {t['target']}: {t['measured']}")
    return "\n".join(lines) + "\n"
