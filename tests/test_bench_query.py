"""One question from the shell, timed (pathfinding.bench.query): fresh processes, the cold run apart
from the cached ones, a failing command named, and the report's lines."""

import json
import os
import sys
from types import SimpleNamespace

import pytest

from pathfinding.bench import query
from pathfinding.errors import InvalidTypeError, InvalidValueError


def test_one_run_measures_a_process_and_names_a_failing_one():
    env = dict(os.environ)
    ok = query._one_run([sys.executable, "-c", "print('x')"], env)
    assert set(ok) == {"wall", "cpu", "max_rss_mb"} and ok["wall"] > 0 and ok["max_rss_mb"] > 1
    argv = [sys.executable, "-c", "import sys; sys.exit('no index here')", "arg"]
    with pytest.raises(InvalidValueError, match=r"^`arg` failed \(1\): no index here$"):
        query._one_run(argv, env)


def test_the_steps_add_one_cost_at_a_time():
    steps = query._steps("/tmp/i.hippo", "who?")
    assert list(steps) == ["python", "numpy_scipy", "imports", "compiled_walk"]
    assert all(argv[:2] == [sys.executable, "-c"] for argv in steps.values())
    assert steps["compiled_walk"][3:] == ["/tmp/i.hippo", "who?"]
    assert "import numpy, scipy.sparse" in steps["numpy_scipy"][2]


def test_a_bad_index_or_run_count_is_refused_first(tmp_path):
    with pytest.raises(InvalidValueError, match="nope.hippo: no such index file"):
        query.benchmark_query(tmp_path / "nope.hippo", "who?")
    with pytest.raises(InvalidValueError, match="runs"):
        query.benchmark_query(tmp_path / "nope.hippo", "who?", runs=0)
    with pytest.raises(InvalidTypeError, match="runs"):
        query.benchmark_query(tmp_path / "nope.hippo", "who?", runs=2.0)


def test_the_cache_is_built_once_on_a_copy_and_the_median_is_over_the_cached_runs(tmp_path, monkeypatch):
    index = tmp_path / "i.hippo"
    index.write_bytes(b"PFHIPIDX an index")
    walls = iter([9.0, 1.0, 3.0, 1.2] + [0.5] * 40)  # cold, then the three cached runs, then the steps
    runs = []

    def fake_run(argv, env):
        runs.append(argv)
        return {"wall": next(walls), "cpu": 0.25, "max_rss_mb": 80.0}

    monkeypatch.setattr(query, "_one_run", fake_run)
    monkeypatch.setattr(
        query.subprocess, "run", lambda argv, **kw: SimpleNamespace(stdout='{"walk": "scipy"}')
    )
    res = query.benchmark_query(index, "who?", runs=3)
    assert [r["wall"] for r in res["cold"]] == [9.0] and [r["wall"] for r in res["cached"]] == [1.0, 3.0, 1.2]
    assert res["median_wall"] == 1.2 and res["median_cpu"] == 0.25 and res["walk"] == "scipy"
    assert res["passes"] is True and res["target"] == query.QUERY_TARGET
    assert set(res["steps"]) == {"python", "numpy_scipy", "imports", "compiled_walk"}
    copy = runs[0][5]
    assert (
        runs[0][3:5] == ["hipporag", "query"] and copy != str(index) and os.path.basename(copy) == "i.hippo"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["i.hippo"]  # the original and its folder untouched
    walls = iter([9.0, 1.6, 1.6, 1.6] + [0.5] * 40)
    assert query.benchmark_query(index, "who?", runs=3)["passes"] is False  # over the target


def test_the_report_lines():
    result = {
        "index": "/data/musique.hippo", "median_wall": 0.8, "median_cpu": 0.7, "target": 1.5, "passes": True,
        "walk": "scipy", "load_average": [0.5, 0.25, 0.0],
        "cold": [{"wall": 2.5, "cpu": 2.0, "max_rss_mb": 300.0}],
        "cached": [{"wall": 0.8, "cpu": 0.7, "max_rss_mb": 120.0},
                   {"wall": 0.9, "cpu": 0.7, "max_rss_mb": 130.4}],
        "steps": {"python": 0.02, "numpy_scipy": 0.15, "imports": 0.4, "compiled_walk": 1.9},
    }  # fmt: skip
    lines = query.format_query_benchmark(result).splitlines()
    assert lines[0] == "one question from the shell, musique.hippo:"
    assert lines[1] == "  without the query cache (builds it): 2.50 s wall, 2.00 s CPU, 300 MB max RSS"
    assert lines[2].startswith("  with the cache: median 0.80 s wall, 0.70 s CPU over 2 runs, 130 MB max RSS")
    assert lines[2].endswith("(target <= 1.5 s wall: PASS); the walk: scipy")
    assert "with every module a question imports 0.40 s" in lines[4] and lines[6].endswith("1.90 s")
    assert lines[-1].startswith("  load average 0.50 0.25 0.00")
    assert "FAIL" in query.format_query_benchmark(result | {"passes": False})


@pytest.mark.slow
def test_a_real_question_from_the_shell(built):
    res = query.benchmark_query(built / "i.hippo", "Who directed Plan 9?", runs=1)
    assert res["walk"] in ("scipy", "compiled") and len(res["cached"]) == 1
    assert json.dumps(res)  # every value is JSON
