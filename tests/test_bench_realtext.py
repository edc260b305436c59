"""The real-text timing (pathfinding.bench.realtext) on four passages in place of the MuSiQue set:
what is built and asked, how the medians are taken, and which questions count as walked."""

import json
from types import SimpleNamespace

import numpy as np
import pytest

from pathfinding.bench import realtext
from pathfinding.errors import InvalidValueError
from pathfinding.hipporag.io.loaders import load_openie
from tests.conftest import PASSAGES

TRIPLES = [
    [["Ed Wood", "directed", "Plan 9 from Outer Space"], ["Plan 9 from Outer Space", "filmed in", "Burbank"]],
    [
        ["Plan 9 from Outer Space", "film by", "Ed Wood"],
        ["Bela Lugosi", "starred in", "Plan 9 from Outer Space"],
    ],
    [["Bela Lugosi", "born in", "Lugos"], ["Lugos", "in", "Kingdom of Hungary"]],
    [["Burbank", "city in", "Los Angeles County"]],
]
QUESTIONS = ["Where was the star of Plan 9 from Outer Space born?", "which county is burbank in", "xyzzy?"]


@pytest.fixture
def small(tmp_path, monkeypatch):
    docs = [
        {"title": t, "text": x, "passage": f"{t}\n{x}", "extracted_entities": [], "extracted_triples": tr}
        for (t, x), tr in zip(PASSAGES, TRIPLES, strict=True)
    ]
    (tmp_path / "openie.json").write_text(json.dumps({"docs": docs}))
    openie, _ = load_openie(tmp_path / "openie.json")
    data = {"openie": openie, "questions": [SimpleNamespace(question=q) for q in QUESTIONS]}
    monkeypatch.setattr(realtext, "load_realtext", lambda: data)
    return data


def test_every_number_comes_from_the_builds_and_questions_asked(small):
    res = realtext.benchmark(n_builds=3)
    assert len(res["build_seconds_all"]) == 3
    assert res["build_seconds"] == float(np.median(res["build_seconds_all"]))
    assert (res["n_queries"], res["n_fell_back"]) == (3, 1)  # "xyzzy?" links nothing: BM25 answers it
    assert 0 <= res["same_top10_tol_1e-6"] <= 3
    assert res["query_ms_p90"] >= res["query_ms_median"] > 0
    for key in ("query_ms_median_lower", "query_ms_median_tol_1e-6", "query_ms_median_ppr_only"):
        assert res[key] > 0
    assert res["n_nodes"] > 0 and res["n_edges"] > 0


def test_the_first_questions_only_when_asked(small):
    res = realtext.benchmark(n_builds=1, n_queries=2)
    assert (res["n_queries"], res["n_fell_back"]) == (2, 0)
    assert res["query_ms_median_ppr_only"] == res["query_ms_median"]  # every question timed walked


def test_no_question_that_walked_gives_nan_not_a_median_of_nothing(small):
    small["questions"] = [SimpleNamespace(question="xyzzy?")]
    res = realtext.benchmark(n_builds=1)
    assert res["n_fell_back"] == 1 and np.isnan(res["query_ms_median_ppr_only"])
    assert res["query_ms_median"] > 0


def test_bad_counts_are_refused(small):
    with pytest.raises(InvalidValueError, match="n_builds"):
        realtext.benchmark(n_builds=0)
    with pytest.raises(InvalidValueError, match=r"n_queries must be in \[1, 3\], got 4"):
        realtext.benchmark(n_builds=1, n_queries=4)
