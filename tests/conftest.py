"""Shared fixtures and Hypothesis profiles.

Under ``CI=true`` Hypothesis loads its own ``ci`` profile (derandomised, no deadline). Locally we load
a ``dev`` profile without the 200 ms deadline, which the first call of a numba kernel (a JIT compile,
or a load from the on-disk cache) would blow.

The test servers (``scripted_server``, ``embeddings_server``, ``replay_server``) import each other by
module name, so this folder is put on ``sys.path`` before any of them is collected.

Where the data files from elsewhere are found, and what happens to a test that needs one that no
place holds, is the root ``conftest.py``'s: it reaches the package's doctests too.
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
from pathfinding.hipporag.storage.safety import exclusive_lock
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


@pytest.fixture
def hold_lock():
    """``hold(path) -> release``: a thread of this process holds the writer lock of ``path`` until
    ``release()`` is called (at the latest at the end of the test); flock locks belong to an open
    file, so the test's own thread is a second writer to it."""
    import threading

    from pathfinding.hipporag.storage.safety import exclusive_lock

    threads = []

    def hold(path):
        held, done = threading.Event(), threading.Event()

        def run():
            with exclusive_lock(path):
                held.set()
                done.wait(30)

        t = threading.Thread(target=run)
        t.start()
        assert held.wait(10)
        threads.append((t, done))

        def release():
            done.set()
            t.join()

        return release

    yield hold
    for t, done in threads:
        done.set()
        t.join()


def lock_is_held(path) -> bool:
    """Whether some writer holds ``path``'s lock now, asked with wait=0 from a new thread (a thread
    never re-enters a lock that another thread holds, so the caller's own lock counts)."""
    import threading

    from pathfinding.errors import FileBusyError
    from pathfinding.hipporag.storage.safety import exclusive_lock

    out = []

    def ask():
        try:
            with exclusive_lock(path, wait=0):
                out.append(False)
        except FileBusyError:
            out.append(True)

    t = threading.Thread(target=ask)
    t.start()
    t.join()
    return out[0]


# Triples written by hand for the three passages of HippoRAG's sample corpus, in corpus order (no
# OpenIE output is released for it).
SAMPLE_TRIPLES = [
    [
        ("Thomas C. Sudhof", "is a", "biochemist"),
        ("Thomas C. Sudhof", "professor at", "Stanford University"),
        ("Thomas C. Sudhof", "studies", "synaptic transmission"),
        ("Thomas C. Sudhof", "born on", "December 22, 1955"),
    ],
    [
        ("David Eagleman", "teaches at", "Stanford University"),
        ("David Eagleman", "co-founder of", "Neosensory"),
        ("David Eagleman", "directs", "Center for Science and Law"),
        ("David Eagleman", "is a", "neuroscientist"),
    ],
    [
        ("Karl Deisseroth", "professor at", "Stanford University"),
        ("Karl Deisseroth", "known for", "optogenetics"),
        ("Karl Deisseroth", "is a", "scientist"),
    ],
]


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    """The HippoRAG sample files: the corpus, an index of hand-written triples, and the questions."""
    import json

    from pathfinding.hipporag.index.build import index_from_openie
    from pathfinding.hipporag.io import load_corpus, load_openie, load_questions
    from pathfinding.hipporag.storage.datasets import fetch

    corpus, _ = load_corpus(fetch("sample_corpus"))
    docs = [
        {
            "title": p.title,
            "text": p.text,
            "passage": p.key,
            "extracted_entities": sorted({t[0] for t in triples} | {t[2] for t in triples}),
            "extracted_triples": [list(t) for t in triples],
        }
        for p, triples in zip(corpus, SAMPLE_TRIPLES, strict=True)
    ]
    path = tmp_path_factory.mktemp("sample") / "sample_openie.json"
    path.write_text(json.dumps({"docs": docs}))
    docs, report = load_openie(path, corpus=corpus)
    questions, _ = load_questions(fetch("sample_questions"))
    assert report.n_issues == 0
    return corpus, index_from_openie(docs), questions


class Table:
    """A custom encoder: a fixed table of unit vectors (cat and kitten at cosine 0.6, dog and pet at 1)."""

    table = {"cat": [1.0, 0.0], "kitten": [0.6, 0.8], "dog": [0.0, 1.0], "pet": [0.0, 1.0]}

    def __call__(self, texts):
        return np.array([self.table.get(t, [0.0, 0.0]) for t in texts])


# Four short passages about Ed Wood's film: a corpus small enough to index in a test, with a walk.
PASSAGES = [
    ("Ed Wood", "Ed Wood directed Plan 9 from Outer Space in Burbank."),
    ("Plan 9 from Outer Space", "Plan 9 from Outer Space is a film by Ed Wood with Bela Lugosi."),
    ("Bela Lugosi", "Bela Lugosi was born in Lugos, in the Kingdom of Hungary."),
    ("Burbank", "Burbank is a city in Los Angeles County, California."),
]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """A folder holding ``docs/`` (one text file per passage of :data:`PASSAGES`) and ``i.hippo``, its
    no-model index written by the command line (which writes the query cache beside it)."""
    from pathfinding.cli import main

    d = tmp_path_factory.mktemp("features")
    folder = d / "docs"
    folder.mkdir()
    for t, x in PASSAGES:
        (folder / f"{t}.txt").write_text(x)
    assert (
        main(["hipporag", "index", str(folder), "--extractor", "cooccurrence", "-o", str(d / "i.hippo")]) == 0
    )
    return d


# The released MuSiQue OpenIE, its corpus and its records, for the replayed-endpoint tests of the
# extraction and of its command. SUBSET: every 23rd passage, plus passages whose released triples
# include wrong-length ones and the two passages with no triples at all (86 passages, 172 requests).
SUBSET = sorted(set(range(0, 1890, 23)) | {21, 24, 67} | {752, 1285})


@pytest.fixture(scope="module")
def released():
    import json

    from pathfinding.hipporag.io.loaders import load_corpus, load_openie
    from pathfinding.hipporag.storage.datasets import fetch

    raw = json.loads(fetch("musique_openie").read_bytes())["docs"]
    corpus, _ = load_corpus(fetch("musique_corpus"))
    docs, _ = load_openie(fetch("musique_openie"))
    return {"raw": raw, "corpus": corpus, "docs": docs}
