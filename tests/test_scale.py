"""The scale benchmark at tiny sizes (the real runs are `make bench`)."""

from __future__ import annotations

import pytest


def test_fit_exponent_recovers_a_power_law():
    from pathfinding.bench.scale import _fit_exponent

    rows = [{"n_passages": n, "build_s": 0.01 * n**1.5} for n in (10_000, 20_000, 40_000)]
    assert _fit_exponent(rows) == pytest.approx(1.5)


def test_the_section_splits_the_build_exponent_into_synonymy_and_the_rest():
    from pathfinding.bench.scale import format_section

    rows = [
        {"n_passages": n, "build_s": 1e-4 * n + 1e-9 * n**2, "synonymy_s": 1e-9 * n**2,
         "n_synonymy_edges": int(1e-3 * n**1.5), "n_nodes": 5 * n, "add_s": 0.01, "peak_rss_gb": 0.1,
         "query_ms": 1.0, "query_misspelt_ms": 1.0, "seeds_ms": 0.1, "link_ms": 0.1, "bm25_ms": 0.1,
         "walk_ms": 0.1, "link_scan_ms": 0.1, "recall_at_5": 0.7}
        for n in (10_000, 20_000, 40_000, 100_000)
    ]  # fmt: skip
    musique = {"exact_edges": 10, "found_edges": 10, "extra_edges": 0, "recall": 1.0, "same_graph": True,
               "r5_exact": 0.5, "r5_prefix": 0.5, "allpairs_s": 1.0, "prefix_s": 0.1}
    result = {"rows": rows, "musique": musique, "exponent": 1.25, "sizes": [r["n_passages"] for r in rows],
              "seed": 0, "targets": []}
    text = format_section(result)
    assert "Apart: the synonymy step 2.00, the rest of the build 1.00; the synonymy edges found grow with " \
           "exponent 1.50." in text  # fmt: skip
    assert "cannot stay linear" in text
    for r in rows:
        r["n_synonymy_edges"] = r["n_passages"]  # edges that grow as the passages do: no such claim
    assert "cannot stay linear" not in format_section(result)


def test_measure_size_small_and_the_section_judges_targets():
    from pathfinding.bench.scale import TARGETS, format_section, measure_size

    row = measure_size(300, n_queries=10, builds_per_size=2)
    assert row["n_passages"] == 300 and row["n_nodes"] > 300 and row["n_synonymy_edges"] > 0
    assert 0 < row["build_s"] and 0 < row["query_ms"] and row["peak_rss_gb"] > 0.05
    assert row["builds"] == 2 and row["build_s"] <= row["build_s_slowest"]
    assert row["link_ms"] > 0 and row["seeds_ms"] > 0 and row["bm25_ms"] > 0 and row["walk_ms"] > 0
    assert 0 < row["add_s"] < row["build_s"]
    assert 0 <= row["recall_at_5"] <= 1
    assert row["threads"] >= 1 and row["load_avg_1m"] >= 0
    assert row["walk_edges"] > 2 * row["n_passages"] and 1 <= row["restart_passages"] <= 300
    assert row["walk_sweeps"] >= 1 and row["walk_gs_ms"] > 0 and 0 <= row["walk_push_share"] <= 1
    assert row["query_misspelt_p90_ms"] >= row["query_misspelt_ms"]
    musique = {"exact_edges": 10, "found_edges": 10, "extra_edges": 0, "recall": 1.0, "same_graph": True,
               "r5_exact": 0.5, "r5_prefix": 0.5, "allpairs_s": 1.0, "prefix_s": 0.1}
    result = {"rows": [row], "musique": musique, "exponent": float("nan"), "sizes": [300], "seed": 0,
              "targets": [{"name": "recall", "target": f">= {TARGETS['synonymy_recall']}", "measured": 1.0,
                           "status": "PASS"}]}
    text = format_section(result)
    assert "| 300 |" in text and "| recall | >= 0.99 | 1 | PASS |" in text
    assert "the fastest of 2 builds per size" in text
    assert f"load average when each size started: {row['load_avg_1m']:.1f}" in text
    assert f"Forward push certified the top 5 in {100 * row['walk_push_share']:.0f}% of the misspelt" in text
    assert f"took a median of {row['walk_sweeps']:.0f} sweeps over every edge" in text


@pytest.mark.slow
def test_run_scale_tiny_end_to_end():
    from pathfinding.bench.scale import run_scale

    res = run_scale((400, 800), n_queries=10, progress=False)
    status = {t["name"]: t["status"] for t in res["targets"]}
    assert res["musique"]["recall"] == 1.0 and res["musique"]["r5_exact"] == res["musique"]["r5_prefix"]
    assert list(status.values())[1:4] == ["NOT MEASURED"] * 3  # nothing at 100k was run
    assert status["recall of the exact tau=0.8 synonymy edges (MuSiQue)"] == "PASS"


