"""The large-graph benchmark (pathfinding.bench.large): paired ratios and their statistics, the
targets they decide, the byte counts of the floor, and a small run end to end."""

import json
import statistics

import numba
import pytest

from pathfinding.bench import large
from pathfinding.bench.large import TARGET_THREADS, TARGET_VS_SCIPY, large_targets
from pathfinding.core.prepared import prepare_graph
from pathfinding.errors import InvalidValueError
from pathfinding.synthetic.graphs import er_graph

THREADS = min(2, numba.config.NUMBA_NUM_THREADS)


def _row(**over):
    row = {
        "graph": "ER",
        "n_edges": 10_000_000,
        "threads": 2,
        "scipy_over_ours": {"median": 1.6, "min": 1.4, "max": 1.8, "quiet_n": 0},
        "single_over_threads": {"median": 1.7, "min": 1.5, "max": 1.9, "quiet_n": 0},
        "l1_ours_vs_scipy": 1e-16,
        "threads_equal_single": True,
    }
    row.update(over)
    return row


def test_bench_targets_come_from_the_measured_ratios():
    assert [t["status"] for t in large_targets([_row()])] == ["PASS", "PASS"]
    slow = _row(scipy_over_ours={"median": TARGET_VS_SCIPY - 0.01, "min": 1.0, "max": 2.0, "quiet_n": 0})
    assert [t["status"] for t in large_targets([slow])] == ["FAIL", "PASS"]
    flat = _row(single_over_threads={"median": TARGET_THREADS - 0.01, "min": 1.0, "max": 2.0, "quiet_n": 0})
    assert [t["status"] for t in large_targets([flat])] == ["PASS", "FAIL"]
    assert [t["status"] for t in large_targets([_row(threads_equal_single=False)])] == ["PASS", "FAIL"]
    assert [t["status"] for t in large_targets([_row(l1_ours_vs_scipy=1e-9)])] == ["FAIL", "PASS"]
    # below 10^7 edges only the threads target applies, below 10^6 none
    assert len(large_targets([_row(n_edges=1_000_000)])) == 1 and large_targets([_row(n_edges=999_999)]) == []
    at = _row(
        scipy_over_ours={"median": TARGET_VS_SCIPY, "min": 1.0, "max": 2.0, "quiet_n": 0},
        single_over_threads={"median": TARGET_THREADS, "min": 1.0, "max": 2.0, "quiet_n": 0},
        l1_ours_vs_scipy=1e-12,
    )
    assert [t["status"] for t in large_targets([at])] == ["PASS", "PASS"]  # the thresholds are included


def test_ratios_are_taken_per_repeat_and_quiet_repeats_are_reported_apart():
    s = large._ratio_stats([2.0, 9.0, 3.0], [1.0, 3.0, 2.0], [True, False, True])
    assert s["all"] == [2.0, 3.0, 1.5] and (s["median"], s["min"], s["max"]) == (2.0, 1.5, 3.0)
    assert (s["quiet_n"], s["quiet_median"]) == (2, 1.75)
    # not the ratio of the medians (3 / 2): each repeat's methods ran under the same load
    assert statistics.median([2.0, 9.0, 3.0]) / statistics.median([1.0, 3.0, 2.0]) == 1.5
    none = large._ratio_stats([1.0], [2.0], [False])
    assert (none["quiet_n"], none["quiet_median"]) == (0, None)
    assert large._cell(none) == "0.50x [0.50-0.50]"
    assert large._cell(s) == "2.00x [1.50-3.00] quiet(2) 1.75x"


def test_paired_runs_every_method_each_repeat_in_a_rotating_order(monkeypatch):
    monkeypatch.setattr(large, "_runnable", lambda: 1)
    order = []
    times, runnable = large._paired({k: (lambda k=k: order.append(k)) for k in "xyz"}, 3)
    assert "".join(order) == "xyzyzxzxy"
    assert {k: len(v) for k, v in times.items()} == {"x": 3, "y": 3, "z": 3} and runnable == [(1, 1)] * 3


def test_waiting_for_idle_cores_gives_up_at_its_limit(monkeypatch):
    monkeypatch.setattr(large, "_runnable", lambda: 5)
    assert large._wait_idle(0.0) == 5
    monkeypatch.setattr(large, "_runnable", lambda: None)  # no /proc/loadavg: no wait
    assert large._wait_idle(60.0) is None


def test_bytes_per_iteration_per_kernel():
    A = er_graph(100, 400, 0)
    g = prepare_graph(A, layout="binned")
    n, nnz = 100, 800
    got = large._bytes_per_iteration(g)
    assert got["binned"] == 6 * nnz + 40 * n  # unit weights: source (4) + in-bin row (2) per edge
    assert got["row_pull_random"] == (g.indices.itemsize + 64) * nnz + 40 * n
    assert got["scipy_random"] == 76 * nnz + 40 * n
    A.data[:] = 2.0
    A.data[0] = 3.0
    weighted = large._bytes_per_iteration(prepare_graph(A, layout="binned"))
    assert weighted["binned"] == got["binned"] + 8 * nnz


def test_run_large_checks_its_arguments():
    for kw, message in [
        ({"repeats": 0}, "repeats"),
        ({"threads": 0}, "threads"),
        ({"graphs": ("ER", "grid")}, "graphs must name 'ER' or 'power-law', got 'grid'"),
        ({"sizes": (0,)}, "size"),
        ({"idle_wait": -1.0}, "idle_wait"),
        ({"seed": -1}, "seed"),
    ]:
        with pytest.raises(InvalidValueError, match=message):
            large.run_large(**kw)


@pytest.fixture
def no_probe(monkeypatch):
    """The bandwidth probe (256 MB arrays) replaced by a fixed 10 GB/s."""
    bandwidth = {"copy_GBps": 10.0, "triad_GBps": 8.0, "bandwidth_GBps": 10.0, "array_MB": 1, "trials": 1}
    monkeypatch.setattr(large, "stream_bandwidth", lambda **kw: bandwidth)


def test_a_small_run_end_to_end(no_probe):
    res = large.run_large(sizes=(4000,), graphs=("ER",), repeats=2, threads=THREADS, seed=3, progress=False)
    (row,) = res["rows"]
    assert (row["n_nodes"], row["n_edges"], row["binned"], row["threads"]) == (1000, 4000, False, THREADS)
    assert (
        row["threads_equal_single"] and row["l1_ours_vs_scipy"] <= 1e-12 and row["l1_csr_vs_binned"] <= 1e-14
    )
    assert set(row["median_ms"]) == {
        "ours-csr-1t",
        "ours-binned-1t",
        f"ours-{THREADS}t",
        "scipy-30",
        "ours-1t",
    }
    assert row["median_ms"]["ours-1t"] == row["median_ms"]["ours-csr-1t"]  # below the binned size
    assert len(row["scipy_over_ours"]["all"]) == 2 and res["targets"] == []  # below 10^6 edges
    assert row["floor_ms_per_iteration"]["binned"] == pytest.approx(
        1e3 * row["bytes_per_iteration"]["binned"] / 10e9
    )
    assert res["config"]["n_iter"] == 30 and res["command"] == "python -m pathfinding.bench.large"
    table = large.format_large(res)
    assert table.splitlines()[0].startswith("graph  edges  nodes  bins  1t layout")
    assert f"ER  4e+03  1,000  {row['n_bins']}  csr  " in table and "bandwidth probe: copy 10.0 GB/s" in table


def test_main_prints_the_table_and_writes_json(no_probe, tmp_path, capsys):
    out = tmp_path / "large.json"
    argv = ["--sizes", "4000", "--graphs", "ER", "--repeats", "1", "--threads", "1", "--json", str(out)]
    assert large.main(argv) == 0
    res = json.loads(out.read_text())
    assert res["config"]["sizes"] == [4000] and res["config"]["repeats"] == 1
    assert capsys.readouterr().out.startswith("graph  edges")
