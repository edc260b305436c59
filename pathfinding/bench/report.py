"""The benchmark's measurements as terminal tables, a FINDINGS.md section and a scaling figure.

:func:`format_table` and :func:`findings_markdown` share one list of (title, header, rows) sections,
so the terminal and the Markdown always show the same numbers.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from pathfinding.bench.config import TOL

__all__ = ["findings_markdown", "format_table", "plot_scaling", "save_scaling_figure"]

_LABELS = {
    "ours-30": "ours, 30 iterations",
    "ours-tol": f"ours, tol {TOL:g} (default method)",
    "scipy-30": "scipy CSR power iteration, 30 it",
    "igraph-prpack": "igraph PRPACK (reset=vector)",
    "igraph-prpack-seeds": "igraph PRPACK (reset_vertices=seeds)",
    "sknetwork-30": "sknetwork PageRank piteration, 30 it",
    "ours-top-k": "ours ppr_top_k",
}


def _fmt(x, spec: str) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else format(x, spec)


def _method_rows(res: dict) -> list[list[str]]:
    rows = []
    for gname, gr in res["graphs"].items():
        for key, m in gr["methods"].items():
            label = _LABELS.get(key, f"ours, batch of {m.get('batch')}")
            ratio = "-" if "ratio" not in m else f"{m['ratio']:.2f}x vs {m['baseline']}"
            extra = []
            if "l1_vs_scipy_30" in m:
                extra.append(f"L1 vs scipy-30 {m['l1_vs_scipy_30']:.1e}")
            if "error_bound" in m:
                extra.append(f"bound {m['error_bound']:.1e}")
            if "queries_per_s" in m:
                extra.append(
                    f"{m['queries_per_s']:.0f} q/s vs {m['single_queries_per_s']:.0f} single "
                    f"({m['speedup_vs_single']:.2f}x); "
                    f"max col L1 vs single {m['max_column_l1_vs_single']:.0e}"
                )
            if key == "ours-top-k":
                extra.append(
                    f"k={m['k']}: {_top_k_work(m)} vs {m['full_tol_iterations']} sweeps to tol; "
                    f"time {m['time_vs_ours_tol']:.2f}x of ours-tol; "
                    f"certified {m['certified']}; top-k matches ref: {m['matches_reference']}"
                )
            rows.append(
                [
                    gname,
                    label,
                    f"{m['median_ms']:.2f}",
                    f"{min(m['times_ms']):.1f}-{max(m['times_ms']):.1f}",
                    ratio,
                    _fmt(m.get("l1_vs_reference"), ".1e"),
                    _fmt(m.get("iterations"), "d"),
                    "; ".join(extra),
                ]
            )
    return rows


_METHOD_HEAD = ["graph", "method", "median ms", "range ms", "peer/ours", "L1 vs ref", "iters", "notes"]


def _text_table(head: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(str(c)) for c in col) for col in zip(head, *rows, strict=False)]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(head, widths, strict=True)).rstrip()]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    return "\n".join(lines)


def _md_table(head: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    lines += ["| " + " | ".join(str(c).replace("|", "/") for c in r) + " |" for r in rows]
    return "\n".join(lines)


def _mib(x) -> str:
    return "-" if x is None else f"{x / 2**20:.2f} MiB"


def _sections(res: dict) -> list[tuple[str, list[str], list[list[str]]]]:
    """(title, header, rows) of every table, shared by the text and Markdown renderers."""
    out = [("Per-query timings", _METHOD_HEAD, _method_rows(res))]
    graph_rows = []
    mem_rows = []
    floor_rows = []
    for gname, gr in res["graphs"].items():
        graph_rows.append(
            [
                gname,
                f"{gr['n_nodes']:,}",
                f"{gr['n_edges']:,}",
                f"{gr['max_degree']} / {gr['mean_degree']:.1f}",
                f"{gr['build_s']:.2f}",
                f"{gr['prepare_ms']:.1f}",
                f"{gr['scipy_prepare_ms']:.1f}",
                f"{gr['reference_l1_vs_ours_200']:.1e}",
            ]
        )
        mem = gr["memory"]
        for key in ("ours_30", "scipy_30"):
            mem_rows.append(
                [
                    gname,
                    key.replace("_", "-"),
                    _mib(mem[key]["rss_peak_extra_bytes"]),
                    _mib(mem[key]["tracemalloc_peak_bytes"]),
                    _mib(mem["csr_bytes"]),
                    _mib(mem["prepared_graph_bytes"]),
                ]
            )
        fl = gr["floor"]
        floor_rows.append(
            [
                gname,
                f"{fl['bytes_per_iteration'] / 1e6:.2f} MB",
                f"{fl['bandwidth_GBps']:.1f}",
                f"{fl['floor_ms_per_iteration']:.3f}",
                f"{fl['ours_ms_per_iteration']:.3f}",
                f"{fl['multiple_of_floor']:.2f}x",
            ]
        )
    out.append(
        (
            "Graphs (reference = scipy power iteration, 200 iterations)",
            [
                "graph",
                "nodes",
                "edges",
                "max / mean degree",
                "build s",
                "ours prepare ms (warm)",
                "scipy prepare ms",
                "ref vs ours-200 L1",
            ],
            graph_rows,
        )
    )
    out.append(
        (
            "Memory of one query (RSS: VmHWM - VmRSS around the call, after malloc_trim and a peak reset;"
            " tracemalloc: peak of allocations through Python's allocators, which numpy and numba's"
            " runtime both use)",
            ["graph", "query", "RSS peak extra", "tracemalloc peak", "CSR arrays of A", "prepared graph"],
            mem_rows,
        )
    )
    first = next(iter(res["graphs"].values()))["floor"]
    out.append(
        (
            f"Bandwidth floor per iteration (bytes = {first['formula']})",
            ["graph", "bytes/iteration", "GB/s", "floor ms/it", "ours ms/it", "ours / floor"],
            floor_rows,
        )
    )
    if res.get("scaling"):
        out.append(
            (
                "Scaling (ER, edges/nodes = 4)",
                [
                    "edges",
                    "nodes",
                    "reps",
                    "ours-30 ms",
                    "scipy-30 ms",
                    "scipy/ours",
                    "floor ms (30 it)",
                    "L1 ours vs scipy",
                    "CSR",
                    "prepare peak extra",
                    "query peak extra",
                    "(prepared + query) / CSR",
                ],
                [
                    [
                        f"{s['n_edges']:.2g}",
                        f"{s['n_nodes']:,}",
                        str(s["repeats"]),
                        f"{s['ours_30_ms']:.2f}",
                        f"{s['scipy_30_ms']:.2f}",
                        f"{s['ratio']:.2f}x",
                        f"{s['floor_ms']:.2f}",
                        f"{s['l1_ours_vs_scipy']:.1e}",
                        _mib(s["csr_bytes"]),
                        _mib(s["prepare_peak_extra_bytes"]),
                        _mib(s["query_rss_peak_extra_bytes"]),
                        _fmt(s["query_footprint_over_csr"], ".2f"),
                    ]
                    for s in res["scaling"]
                ],
            )
        )
    out.append(
        (
            "Targets",
            ["target", "graph", "measured", "status"],
            [[t["target"], t["graph"], t["measured"], t["status"]] for t in res["targets"]],
        )
    )
    return out


def _summary_lines(res: dict) -> list[str]:
    cfg, mach, st = res["config"], res["machine"], res["stream"]
    lines = [
        f"machine: {mach['cpu']}, {mach['cores']} cores, "
        f"{_fmt(mach['ram_bytes'] and mach['ram_bytes'] / 2**30, '.1f')} GiB RAM, L3 {mach['l3_cache']}",
        "versions: " + ", ".join(f"{k} {v}" for k, v in mach["versions"].items()),
        f"seed {cfg['seed']}, {cfg['repeats']} repeats (median, round-robin, after a warm-up call), "
        f"restart_prob {cfg['restart_prob']}, two seeds per query",
        "threads: "
        + ", ".join(f"{k}=1" for k in res["threads"]["env"])
        + "; numba kernels single-threaded (no parallel=True); threadpoolctl limits=1 on "
        + (
            ", ".join(str(d["library"]) for d in res["threads"]["threadpoolctl"])
            if isinstance(res["threads"]["threadpoolctl"], list)
            else str(res["threads"]["threadpoolctl"])
        ),
        f"bandwidth probe ({st['array_MB']} MB arrays, best of {st['trials']}): "
        f"copy {st['copy_GBps']:.1f} GB/s,"
        f" numpy triad {st['triad_GBps']:.1f} GB/s -> {st['bandwidth_GBps']:.1f} GB/s used for the floor",
    ]
    jit = res.get("jit")
    if jit:
        parts = []
        for label, d in jit.items():
            if "error" in d:
                parts.append(f"{label}: error {d['error']}")
            else:
                total = sum(v.get("compile_s", 0.0) for v in d.values())
                parts.append(
                    f"{label}: total {total:.2f} s ("
                    + ", ".join(
                        f"{k} {v['compile_s']:.2f} s" if "compile_s" in v else f"{k} error"
                        for k, v in d.items()
                    )
                    + ")"
                )
        lines.append(
            "JIT, first call minus warm call in a fresh process with a new NUMBA_CACHE_DIR (cold: compile"
            " and write the cache; warm: load it; a kernel shared by two calls is paid by the first): "
            + "; ".join(parts)
        )
    lines += [f"note: {n}" for n in res["notes"]]
    return lines


def format_table(results: dict) -> str:
    """The benchmark as plain-text tables for a terminal."""
    out = _summary_lines(results)
    for title, head, rows in _sections(results):
        out += ["", title, _text_table(head, rows)]
    return "\n".join(out) + "\n"


def _command_line(cfg: dict, *, scaling: bool) -> str:
    parts = [cfg["command"]]
    if cfg["quick"]:
        parts.append("--quick")
    if cfg["repeats"] != (3 if cfg["quick"] else 7):
        parts.append(f"--repeats {cfg['repeats']}")
    if cfg["seed"] != 0:
        parts.append(f"--seed {cfg['seed']}")
    if cfg["batch_sizes"] != [8, 32]:
        parts.append("--batch-sizes " + " ".join(map(str, cfg["batch_sizes"])))
    if scaling:
        parts.append("--scaling")
    if cfg.get("large"):
        parts.append("--large")
    if cfg.get("index_scale"):
        parts.append("--index-scale")
    if cfg.get("explain"):
        parts.append("--explain")
    return " ".join(parts)


def findings_markdown(results: dict) -> str:
    """The benchmark as a Markdown section for FINDINGS.md.

    Starts with the heading ``## Performance (measured, machine-dependent)``, then the machine, the
    command that reproduces it, seed and repeats, one row per measurement and one per target.
    """
    cfg = results["config"]
    lines = [
        "## Performance (measured, machine-dependent)",
        "",
        f"Reproduce with `{_command_line(cfg, scaling=bool(results.get('scaling')))}`. These numbers vary "
        "from run to run and machine to machine; that is expected. Ratios are peer time / our time "
        "(above 1: ours is faster).",
        "",
    ]
    lines += [f"- {line}" for line in _summary_lines(results)]
    for title, head, rows in _sections(results):
        lines += ["", f"### {title}", "", _md_table(head, rows)]
    for section in results.get("sections") or []:
        lines += ["", section.rstrip()]
    return "\n".join(lines) + "\n"


def plot_scaling(ax, scaling_rows: list[dict]):
    """Log-log time per 30-iteration query against edge count; returns ``ax``."""
    m = np.array([s["n_edges"] for s in scaling_rows], dtype=float)
    ax.loglog(m, [s["ours_30_ms"] for s in scaling_rows], "o-", label="ours, 30 iterations")
    ax.loglog(m, [s["scipy_30_ms"] for s in scaling_rows], "s-", label="scipy CSR, 30 iterations")
    ax.loglog(m, [s["floor_ms"] for s in scaling_rows], "k:", label="memory-bandwidth floor")
    ax.set_xlabel("undirected edges (ER graph, 4 edges per node)")
    ax.set_ylabel("ms per query (one thread)")
    ax.set_title("PPR query time against graph size")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    return ax


def save_scaling_figure(results: dict, path) -> Path:
    """Write the scaling figure as a PNG with fixed dpi and no date or software metadata."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    plot_scaling(ax, results["scaling"])
    fig.tight_layout()
    fig.savefig(path, dpi=120, format="png", metadata={"Software": None})
    plt.close(fig)
    return path


def _top_k_work(m: dict) -> str:
    """``ppr_top_k``'s work: push rounds or Gauss-Seidel sweeps (older rows have no method: sweeps)."""
    unit = "push rounds" if m.get("method") == "push" else "sweeps"
    return f"{m['iterations']} {unit}"
