"""Shared fixtures and Hypothesis profiles.

Under ``CI=true`` Hypothesis loads its own ``ci`` profile (derandomised, no deadline). Locally we load
a ``dev`` profile without the 200 ms deadline, which the first call of a numba kernel (a JIT compile,
or a load from the on-disk cache) would blow.

The test servers (``scripted_server``, ``embeddings_server``, ``replay_server``) import each other by
module name, so this folder is put on ``sys.path`` before any of them is collected.
"""

import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import settings

sys.path.insert(0, os.path.dirname(__file__))

settings.register_profile("dev", deadline=None)
if not os.environ.get("CI"):
    settings.load_profile("dev")


@pytest.fixture(scope="session", autouse=True)
def _warm_kernels():
    """Compile (or load from cache) every kernel once, before any test is timed by Hypothesis."""
    from pathfinding import RANKERS, meet_node_toy, passage_scores, personalized_pagerank

    toy = meet_node_toy()
    for score in RANKERS.values():
        score(toy)
    personalized_pagerank(toy.graph, np.full((5, 2), 0.2))
    passage_scores(np.full(5, 0.2), toy.mentions)


_HOLD = """
import sys
from pathfinding.hipporag.safety import exclusive_lock
with exclusive_lock(sys.argv[1]):
    print("held", flush=True)
    sys.stdin.read()
"""


@pytest.fixture
def lock_holder():
    """``start(path) -> Popen``: another process that holds the writer lock of ``path`` until its stdin
    is closed (or it is killed); every one still running is killed at the end of the test."""
    procs = []
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))

    def start(path):
        proc = subprocess.Popen(
            [sys.executable, "-c", _HOLD, str(path)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env,
        )  # fmt: skip
        assert proc.stdout.readline() == "held\n"
        procs.append(proc)
        return proc

    yield start
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
        proc.wait()


@pytest.fixture(scope="module")
def sample():
    """The HippoRAG sample files: the corpus, an index of its released triples, and the questions."""
    from pathfinding.hipporag.index.build import index_from_openie
    from pathfinding.hipporag.io import load_corpus, load_openie, load_questions, vendored

    corpus, _ = load_corpus(vendored("sample_corpus"))
    data = os.path.join(os.path.dirname(__file__), "data", "hipporag")
    docs, report = load_openie(os.path.join(data, "sample_openie.json"), corpus=corpus)
    questions, _ = load_questions(vendored("sample_questions"))
    assert report.n_issues == 0
    return corpus, index_from_openie(docs), questions
