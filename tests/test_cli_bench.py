"""``pathfinding bench``: the quick run through the command's own parser, JSON and Markdown out."""

import argparse
import json
import statistics

import pytest

from pathfinding.bench.targets import evaluate_targets
from pathfinding.cli import bench as bench_cli


def test_bench_quick_json_via_the_commands_parser(tmp_path, capsys):
    parser = argparse.ArgumentParser(prog="pathfinding")
    sub = parser.add_subparsers(dest="command", required=True)
    bench_cli.add_commands(sub)
    out, md = tmp_path / "bench.json", tmp_path / "bench.md"
    args = parser.parse_args(
        ["bench", "--quick", "--no-jit", "--repeats", "1", "--batch-sizes", "4", "--json", str(out)]
        + ["--markdown", str(md)]
    )
    assert args.func(args) == 0
    res = json.loads(out.read_text())
    assert {"config", "machine", "threads", "stream", "graphs", "targets", "notes"} <= set(res)
    assert set(res["graphs"]) == {"ER", "power-law"}
    for gr in res["graphs"].values():
        assert gr["n_nodes"] == 10_000 and gr["n_edges"] == 40_000
        methods = gr["methods"]
        assert {"ours-30", "ours-tol", "scipy-30", "ours-batch-4"} <= set(methods)
        assert methods["ours-30"]["l1_vs_scipy_30"] <= 1e-12
        # the ratio is peer median / our median of the very times it reports
        scipy, ours = methods["scipy-30"], methods["ours-30"]
        want = statistics.median(scipy["times_ms"]) / statistics.median(ours["times_ms"])
        assert scipy["baseline"] == "ours-30" and scipy["ratio"] == pytest.approx(want, rel=1e-12)
        top = methods["ours-top-k"]
        assert (
            top["certified"] and top["matches_reference"] and top["iterations"] <= top["full_tol_iterations"]
        )
        assert gr["memory"]["csr_bytes"] == 4 * 10_001 + 12 * 80_000  # int32 indptr and indices, f64 data
        floor = gr["floor"]
        assert floor["multiple_of_floor"] == pytest.approx(
            floor["ours_ms_per_iteration"] / floor["floor_ms_per_iteration"], rel=1e-12
        )
    assert res["targets"] == evaluate_targets(res["graphs"], None, None)
    text = capsys.readouterr().out
    assert "Targets" in text and "ours, 30 iterations" in text
    assert md.read_text().startswith("## Performance (measured, machine-dependent)")
