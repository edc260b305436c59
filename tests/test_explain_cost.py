"""The explanation's cost bench (``bench.explain_cost``): its questions, its report, its verdict."""

import numpy as np
import pytest

from pathfinding.bench.explain_cost import EXPLAIN_TARGET, TEMPLATES, _questions, format_explain, run_explain
from pathfinding.hipporag.io.records import Passage


def test_questions_come_from_titles_with_one_seed_and_half_are_lower_cased():
    corpus = [Passage(f"Title {j}", "text") for j in range(20)]
    a = _questions(corpus, 6, np.random.default_rng(0))
    assert a == _questions(corpus, 6, np.random.default_rng(0)) and len(a) == 9
    assert a[6:] == [q.lower() for q in a[:3]]
    assert all(any(q == t.format(p.title) for t in TEMPLATES for p in corpus) for q in a[:6])


def _res(ratios, routes):
    rows = [
        {"question": "q", "route": r, "plain_ms": 1.0, "explain_ms": x, "ratio": x}
        for x, r in zip(ratios, routes, strict=True)
    ]
    ratio = float(np.median(ratios))
    status = "PASS" if ratio <= EXPLAIN_TARGET else "FAIL"
    return {"questions": len(rows), "routes": {r: routes.count(r) for r in set(routes)}, "warm": rows,
            "warm_median_ratio": ratio, "shell": {"plain_s": 0.5, "explain_s": 0.9},
            "targets": [{"target": "t", "measured": f"{ratio:.2f}x", "status": status}]}


def test_the_report_names_each_route_the_shell_and_the_verdict():
    text = format_explain(_res([2.0, 2.5, 6.0], ["walk", "walk", "fused"]))
    assert "warm, fused (1 questions)" in text and "warm, walk (2 questions)" in text
    assert "warm, all (3 questions)" in text and "median ratio 2.50x" in text
    assert "query --explain 0.90 s" in text and text.rstrip().endswith("2.50x")


@pytest.mark.slow
def test_the_whole_bench_runs_and_judges_its_target():
    res = run_explain(n_questions=4, repeats=1, runs=1)
    assert res["targets"][0]["status"] in {"PASS", "FAIL"} and res["questions"] == 6
