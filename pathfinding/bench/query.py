"""What one question from the shell costs: ``pathfinding hipporag query`` timed as a user runs it.

Each run is a fresh process (``python -m pathfinding hipporag query INDEX QUESTION``), so the time
includes the interpreter's start, every import, loading the index and the first call of each
compiled kernel; that, more than the walk itself, is what a person at a terminal waits
for. Two cases, on a copy of the index in a temporary folder:

``cold``
    no query cache yet: the process loads the index in full, derives what retrieval needs (BM25
    over passages and facts, the walk's graphs) and writes the cache (once);
``cached``
    the cache is there (the usual case: ``index``, ``add`` and ``delete`` write it): the median over
    ``runs`` processes is compared with :data:`QUERY_TARGET`.

Where the time goes is measured the same way, each step a fresh process timed ``runs`` times:
Python's start alone, then numpy and scipy.sparse, then every module a question imports, then the
same question answered by :class:`~pathfinding.hipporag.retrieval.retrieve.HippoRetriever` (the compiled
walk: numba and its kernels loaded) instead of the command line's
:class:`~pathfinding.hipporag.retrieval.oneshot.OneShotRetriever`. The command's JSON output says which walk
answered.

Wall time depends on what else the machine runs, so the CPU time (user + system) of each process
and the load average are reported beside it; on an idle machine the wall time is close to the CPU
time.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

from pathfinding._validation import check_int
from pathfinding.errors import InvalidValueError

__all__ = ["QUERY_TARGET", "benchmark_query", "format_query_benchmark"]

QUERY_TARGET = 1.5
"""Seconds of wall time, interpreter start included, for one question with the query cache."""


def _one_run(argv: list[str], env: dict) -> dict:
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    err = proc.stderr.read().decode("utf-8", "replace")
    proc.stderr.close()
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise InvalidValueError(f"`{' '.join(argv[3:])}` failed ({proc.returncode}): {err.strip()[:300]}")
    # ru_maxrss is in kilobytes on Linux
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "max_rss_mb": usage.ru_maxrss / 1024}


_IMPORTS = (
    "import pathfinding.cli, pathfinding.cli.query, pathfinding.hipporag.retrieval.querycache, "
    "pathfinding.hipporag.retrieval.oneshot, pathfinding.hipporag.extract.llm"
)
_COMPILED = (
    "import sys\n"
    "from pathfinding.hipporag.retrieval.querycache import load_for_query\n"
    "from pathfinding.hipporag.retrieval.retrieve import HippoRetriever\n"
    "print(HippoRetriever(load_for_query(sys.argv[1])).retrieve(sys.argv[2], k=5).passages)\n"
)


def _steps(copy: str, question: str) -> dict[str, list[str]]:
    py = [sys.executable, "-c"]
    return {
        "python": [*py, "pass"],
        "numpy_scipy": [*py, "import numpy, scipy.sparse"],
        "imports": [*py, _IMPORTS],
        "compiled_walk": [*py, _COMPILED, copy, question],
    }


def benchmark_query(index_path, question: str, *, runs: int = 5) -> dict:
    """Time ``pathfinding hipporag query`` in fresh processes, without and with the query cache.

    Parameters
    ----------
    index_path : str or path-like
        An index file (copied to a temporary folder; the original and its cache are not touched).
    question : str
    runs : int, default 5
        Processes timed with the cache (the cold case runs once: it writes the cache).

    Returns
    -------
    dict
        ``cold`` and ``cached`` (lists of ``{"wall", "cpu", "max_rss_mb"}``), ``median_wall``,
        ``median_cpu``, ``target``, ``passes`` (median wall at most the target), ``walk`` (which
        walk answered: ``"scipy"`` or ``"compiled"``), ``steps`` (median wall of each step of
        where the time goes: ``python``, ``numpy_scipy``, ``imports``, ``compiled_walk``),
        ``load_average``.
    """
    runs = check_int("runs", runs, low=1)
    if not os.path.isfile(index_path):
        raise InvalidValueError(f"{index_path}: no such index file")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, os.path.basename(os.fspath(index_path)))
        shutil.copyfile(index_path, copy)
        argv = [sys.executable, "-m", "pathfinding", "hipporag", "query", copy, question, "-k", "5"]
        cold = [_one_run(argv, env)]
        cached = [_one_run(argv, env) for _ in range(runs)]
        out = subprocess.run([*argv, "--json"], capture_output=True, text=True, env=env, check=True)
        walk = json.loads(out.stdout).get("walk")
        steps = {
            name: float(np.median([_one_run(step, env)["wall"] for _ in range(runs)]))
            for name, step in _steps(copy, question).items()
        }
    walls = [r["wall"] for r in cached]
    median = float(np.median(walls))
    return {
        "index": os.fspath(index_path),
        "question": question,
        "cold": cold,
        "cached": cached,
        "median_wall": median,
        "median_cpu": float(np.median([r["cpu"] for r in cached])),
        "target": QUERY_TARGET,
        "passes": median <= QUERY_TARGET,
        "walk": walk,
        "steps": steps,
        "load_average": list(os.getloadavg()),
    }


def format_query_benchmark(result: dict) -> str:
    """The result of :func:`benchmark_query` as a few lines for a terminal."""
    cold = result["cold"][0]
    steps = result["steps"]
    rss = max(r["max_rss_mb"] for r in result["cached"])
    verdict = "PASS" if result["passes"] else "FAIL"
    return "\n".join(
        [
            f"one question from the shell, {os.path.basename(result['index'])}:",
            f"  without the query cache (builds it): {cold['wall']:.2f} s wall, {cold['cpu']:.2f} s CPU, "
            f"{cold['max_rss_mb']:.0f} MB max RSS",
            f"  with the cache: median {result['median_wall']:.2f} s wall, {result['median_cpu']:.2f} s CPU "
            f"over {len(result['cached'])} runs, {rss:.0f} MB max RSS "
            f"(target <= {result['target']} s wall: {verdict}); the walk: {result['walk']}",
            "  where the time goes (median wall of fresh processes):",
            f"    Python alone {steps['python']:.2f} s; with numpy and scipy.sparse "
            f"{steps['numpy_scipy']:.2f} s; with every module a question imports {steps['imports']:.2f} s",
            f"    load, link, walk and print: the rest of the {result['median_wall']:.2f} s",
            f"    the same question with the compiled walk (numba and its kernels loaded): "
            f"{steps['compiled_walk']:.2f} s",
            "  load average "
            + " ".join(f"{x:.2f}" for x in result["load_average"])
            + " (wall time grows with it; CPU time is what an idle machine would wait)",
        ]
    )
