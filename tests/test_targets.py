"""The project's performance targets (pathfinding.bench.targets): PASS exactly at each threshold,
FAIL just past it, SKIP where there is nothing to measure."""

import pytest

from pathfinding.bench.targets import evaluate_targets


def _graph_result(ratio, l1, igraph_ratio, ours_l1, igraph_l1):
    return {
        "methods": {
            "ours-30": {"l1_vs_scipy_30": l1},
            "ours-tol": {"l1_vs_reference": ours_l1},
            "scipy-30": {"ratio": ratio},
            "igraph-prpack": {"ratio": igraph_ratio, "median_ms": 1.0, "l1_vs_reference": igraph_l1},
        }
    }


def _status(targets):
    return {(t["graph"], t["target"].split()[0] + t["target"].split()[1]): t["status"] for t in targets}


def test_targets_pass_and_fail_on_the_numbers():
    graphs = {
        "power-law": _graph_result(2.0, 1e-12, 3.0, 1e-11, 1e-11),  # exactly at every threshold
        "ER": _graph_result(1.49, 1e-13, 5.0, 2e-11, 1e-11),  # too slow; igraph more accurate
    }
    assert _status(evaluate_targets(graphs, None, None)) == {
        ("power-law", "ours-30>="): "PASS",
        ("ER", "ours-30>="): "FAIL",
        ("power-law", "ours-tol>="): "PASS",
        ("ER", "ours-tol>="): "FAIL",
        ("power-law", "oursahead"): "PASS",
        ("ER", "oursahead"): "PASS",
    }
    graphs["ER"]["methods"]["scipy-30"]["ratio"] = 0.9
    ahead = [t for t in evaluate_targets(graphs, None, None) if t["target"].startswith("ours ahead")]
    assert [t["status"] for t in ahead] == ["PASS", "FAIL"] and "0.90x (scipy-30)" in ahead[1]["measured"]


def test_the_scipy_target_needs_the_speed_and_the_agreement():
    fast_but_off = {"ER": _graph_result(3.0, 1.01e-12, 5.0, 1e-12, 1e-12)}
    assert _status(evaluate_targets(fast_but_off, None))[("ER", "ours-30>=")] == "FAIL"
    at_1_5 = {"ER": _graph_result(1.5, 0.0, 5.0, 1e-12, 1e-12)}
    assert _status(evaluate_targets(at_1_5, None))[("ER", "ours-30>=")] == "PASS"


def test_the_fastest_igraph_call_is_the_one_compared_and_an_absent_igraph_is_a_skip():
    graph = _graph_result(2.0, 0.0, 2.5, 1e-12, 1e-12)
    graph["methods"]["igraph-prpack-seeds"] = {"ratio": 3.5, "median_ms": 0.5, "l1_vs_reference": 1e-12}
    (tol,) = [t for t in evaluate_targets({"ER": graph}, None) if "PRPACK" in t["target"]]
    assert tol["status"] == "PASS" and "(igraph-prpack-seeds)" in tol["measured"]
    for key in ("igraph-prpack", "igraph-prpack-seeds"):
        del graph["methods"][key]
    (tol,) = [t for t in evaluate_targets({"ER": graph}, None) if "PRPACK" in t["target"]]
    assert (tol["status"], tol["measured"]) == ("SKIP", "igraph absent")


def _scaling(fp):
    return [
        {"n_edges": 10**4, "query_footprint_over_csr": 5.0, "csr_bytes": 2**20},
        {"n_edges": 10**7, "query_footprint_over_csr": fp, "csr_bytes": 300 * 2**20},
    ]


@pytest.mark.parametrize(("fp", "status"), [(2.0, "PASS"), (2.01, "FAIL"), (None, "SKIP")])
def test_the_memory_target_reads_the_largest_scaling_graph(fp, status):
    (t,) = evaluate_targets({}, _scaling(fp))
    assert t["status"] == status and t["graph"] == "ER 1e+07 edges"
    assert t["measured"] == ("n/a" if fp is None else f"{fp:.2f}x of 300 MiB")


def _work(**over):
    work = {
        "findings_sweep_s": 9.99,
        "realtext_build_s": 4.99,
        "realtext_query_ms_median": 4.99,
        "realtext_query_ms_p90": 7.0,
        "realtext_n_queries": 100,
        "index_add": {"modes": {"kept": {"ratio": 0.05, "add_median": 0.1, "rebuild_median": 2.0,
                                         "equal": True, "status": "PASS"}}},
    }  # fmt: skip
    return work | over


def test_the_workload_targets_are_strict_bounds():
    assert [t["status"] for t in evaluate_targets({}, None, _work())] == ["PASS"] * 4
    at = evaluate_targets(
        {}, None, _work(findings_sweep_s=10.0, realtext_build_s=5.0, realtext_query_ms_median=5.0)
    )
    assert [t["status"] for t in at] == ["FAIL", "FAIL", "FAIL", "PASS"]  # "< 10 s", "< 5 s", "< 5 ms"
    lower = evaluate_targets({}, None, _work(realtext_query_ms_median_lower=5.2))
    assert [t["status"] for t in lower if "lower-cased" in t["target"]] == ["FAIL"]


def test_the_add_target_carries_the_status_measured_by_the_add_benchmark():
    refit = {"ratio": 0.6, "add_median": 1.2, "rebuild_median": 2.0, "equal": False, "status": "FAIL"}
    work = _work()
    work["index_add"]["modes"]["refit"] = refit
    adds = [t for t in evaluate_targets({}, None, work) if t["target"].startswith("adding")]
    assert [t["status"] for t in adds] == ["PASS", "FAIL"]
    assert "costs <= 5% of a rebuild" in adds[0]["target"] and "(opt-in, no target)" in adds[1]["target"]
    assert adds[1]["measured"] == "60.0% (1.200 s vs 2.00 s; equal: NO)"
