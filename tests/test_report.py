"""The benchmark as tables, Markdown and a figure (pathfinding.bench.report), rendered from a result
written by hand: every number shown is the one in the result, and the command line reproduces it."""

import copy

import pytest

from pathfinding.bench import report


def _method(median, times, **extra):
    return {"median_ms": median, "times_ms": times, **extra}


RESULT = {
    "config": {"command": "python -m pathfinding bench", "quick": False, "repeats": 7, "seed": 0,
               "batch_sizes": [8, 32], "restart_prob": 0.5, "large": False, "index_scale": False},
    "machine": {"cpu": "Test CPU", "cores": 2, "ram_bytes": 8 * 2**30, "l3_cache": "32M",
                "versions": {"python": "3.11.0", "numpy": "2.0"}},
    "threads": {"env": {"OMP_NUM_THREADS": "1"}, "threadpoolctl": [{"library": "openblas", "threads": 1}]},
    "stream": {"array_MB": 256, "trials": 7, "copy_GBps": 10.0, "triad_GBps": 12.5, "bandwidth_GBps": 12.5},
    "jit": {"cold_cache": {"single": {"compile_s": 1.5}, "tol": {"compile_s": 0.25}},
            "warm_cache": {"error": ["ImportError: x"]}},
    "graphs": {
        "ER": {
            "n_nodes": 100_000, "n_edges": 400_000, "max_degree": 21, "mean_degree": 8.0, "build_s": 0.5,
            "prepare_ms": 12.0, "scipy_prepare_ms": 30.0, "reference_l1_vs_ours_200": 1e-16,
            "methods": {
                "ours-30": _method(10.0, [9.0, 10.0, 11.0], l1_vs_reference=1e-9, iterations=30,
                                   l1_vs_scipy_30=2e-16),
                "scipy-30": _method(25.0, [24.0, 26.0], baseline="ours-30", ratio=2.5, l1_vs_reference=1e-9,
                                    iterations=30),
                "ours-tol": _method(5.0, [5.0], l1_vs_reference=1e-11, iterations=12, error_bound=3e-11,
                                    converged=True),
                "ours-batch-8": _method(40.0, [40.0], batch=8, queries_per_s=200.0,
                                        single_queries_per_s=100.0, speedup_vs_single=2.0,
                                        max_column_l1_vs_single=0.0),
                "ours-top-k": _method(2.0, [2.0], k=10, iterations=4, method="push", full_tol_iterations=12,
                                      time_vs_ours_tol=0.4, certified=True, matches_reference=True),
            },
            "memory": {"csr_bytes": 2**20, "prepared_graph_bytes": 3 * 2**19,
                       "ours_30": {"rss_peak_extra_bytes": None, "tracemalloc_peak_bytes": 2**21},
                       "scipy_30": {"rss_peak_extra_bytes": 2**22, "tracemalloc_peak_bytes": 2**22}},
            "floor": {"bytes_per_iteration": 5e6, "formula": "indptr 4(n+1) + ...",
                      "bandwidth_GBps": 12.5, "floor_ms_per_iteration": 0.4,
                      "ours_ms_per_iteration": 0.333, "multiple_of_floor": 0.83},
        }
    },
    "targets": [
        {"target": "ours ahead | of every peer", "graph": "ER", "measured": "2.50x", "status": "PASS"}
    ],
    "scaling": None,
    "notes": ["igraph is not importable: igraph PRPACK skipped"],
}  # fmt: skip


def test_the_table_shows_each_measured_number():
    text = report.format_table(RESULT)
    assert "machine: Test CPU, 2 cores, 8.0 GiB RAM, L3 32M" in text
    row = next(line for line in text.splitlines() if "scipy CSR power iteration" in line)
    assert "25.00" in row and "24.0-26.0" in row and "2.50x vs ours-30" in row and "1.0e-09" in row
    assert "ours, batch of 8" in text and "200 q/s vs 100 single (2.00x)" in text
    assert "k=10: 4 push rounds vs 12 sweeps to tol" in text and "certified True" in text
    assert "bound 3.0e-11" in text and "L1 vs scipy-30 2.0e-16" in text
    assert (
        "cold_cache: total 1.75 s (single 1.50 s, tol 0.25 s); warm_cache: error ['ImportError: x']" in text
    )
    assert "note: igraph is not importable" in text
    mem = next(line for line in text.splitlines() if line.startswith("ER     ours-30"))
    assert mem.split()[2] == "-" and "2.00 MiB" in mem  # no RSS measured: a dash, not a zero


def test_markdown_is_the_same_sections_with_the_command_that_reproduces_them():
    md = report.findings_markdown(RESULT)
    assert md.startswith(
        "## Performance (measured, machine-dependent)\n\nReproduce with `python -m pathfinding bench`."
    )
    assert md.count("\n### ") == 5  # timings, graphs, memory, floor, targets (no scaling)
    assert "| ours ahead / of every peer | ER | 2.50x | PASS |" in md  # a | inside a cell is escaped
    for title, _, _ in report._sections(RESULT):
        assert f"### {title}" in md and title in report.format_table(RESULT)


@pytest.mark.parametrize(
    ("config", "scaling", "want"),
    [
        ({}, False, "python -m pathfinding bench"),
        ({"quick": True, "repeats": 3}, False, "python -m pathfinding bench --quick"),
        ({"quick": True, "repeats": 7}, False, "python -m pathfinding bench --quick --repeats 7"),
        ({"repeats": 3, "seed": 4}, True, "python -m pathfinding bench --repeats 3 --seed 4 --scaling"),
        ({"batch_sizes": [4]}, False, "python -m pathfinding bench --batch-sizes 4"),
        ({"large": True, "index_scale": True}, False, "python -m pathfinding bench --large --index-scale"),
    ],
)
def test_the_command_line_names_every_setting_that_differs_from_the_default(config, scaling, want):
    assert report._command_line(RESULT["config"] | config, scaling=scaling) == want


def test_scaling_rows_and_extra_sections_reach_the_markdown():
    res = copy.deepcopy(RESULT)
    res["scaling"] = [
        {"n_edges": 10_000, "n_nodes": 2_500, "repeats": 7, "ours_30_ms": 0.5, "scipy_30_ms": 1.0,
         "ratio": 2.0, "floor_ms": 0.1, "l1_ours_vs_scipy": 0.0, "csr_bytes": 2**20,
         "prepare_peak_extra_bytes": None, "query_rss_peak_extra_bytes": 2**20,
         "query_footprint_over_csr": float("nan")},
    ]  # fmt: skip
    res["sections"] = ["### PPR on large graphs\n\nthe table"]
    md = report.findings_markdown(res)
    assert "Reproduce with `python -m pathfinding bench --scaling`" in md
    assert "| 1e+04 | 2,500 | 7 | 0.50 | 1.00 | 2.00x | 0.10 | 0.0e+00 | 1.00 MiB | - | 1.00 MiB | - |" in md
    assert md.rstrip().endswith("### PPR on large graphs\n\nthe table")


def test_the_fmt_helper_dashes_what_was_not_measured():
    assert report._fmt(None, ".2f") == "-" and report._fmt(float("nan"), ".2f") == "-"
    assert report._fmt(0.0, ".2f") == "0.00" and report._fmt(3, "d") == "3"
    assert report._top_k_work({"iterations": 5}) == "5 sweeps"  # rows from before push: sweeps


def test_the_scaling_figure_is_byte_stable(tmp_path):
    rows = [
        {"n_edges": m, "ours_30_ms": m / 1e4, "scipy_30_ms": m / 5e3, "floor_ms": m / 1e5}
        for m in (1e4, 1e5, 1e6)
    ]
    a = report.save_scaling_figure({"scaling": rows}, tmp_path / "a" / "s.png")
    b = report.save_scaling_figure({"scaling": rows}, tmp_path / "b.png")
    assert a.read_bytes() == b.read_bytes() and a.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    assert report.plot_scaling(ax, rows) is ax
    assert [line.get_label() for line in ax.get_lines()] == [
        "ours, 30 iterations", "scipy CSR, 30 iterations", "memory-bandwidth floor"
    ]  # fmt: skip
    assert ax.get_xscale() == ax.get_yscale() == "log"
    plt.close(fig)
