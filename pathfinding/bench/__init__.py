"""Benchmark: our PPR kernels against scipy, igraph (PRPACK) and scikit-network.

One file per job: :mod:`~pathfinding.bench.peers` (the scipy power iteration, igraph and
scikit-network calls), :mod:`~pathfinding.bench.probes` (memory bandwidth, RSS, machine, JIT
compile cost), :mod:`~pathfinding.bench.timing` (one thread, round robin), :mod:`~pathfinding.bench.run`
(the measurements), :mod:`~pathfinding.bench.targets` (PASS/FAIL), :mod:`~pathfinding.bench.report`
(tables, Markdown, figure); the command is :mod:`pathfinding.cli.bench` (``python -m pathfinding bench``).
The graphs come from :mod:`pathfinding.synthetic.graphs`.

Everything runs on one thread (numba, OpenMP and BLAS pools are limited to 1), methods are timed
round-robin inside each repeat after a warm-up, and the median over repeats is reported.
:func:`run_benchmark` returns every measurement as a dict (``--json`` writes it);
:func:`format_table` and :func:`findings_markdown` render it for a terminal and for FINDINGS.md.
"""

from pathfinding._lazy import lazy_exports

_EXPORTS = {
    **dict.fromkeys(["scipy_power_iteration", "scipy_prepare"], "pathfinding.bench.peers"),
    "stream_bandwidth": "pathfinding.bench.probes",
    **dict.fromkeys(
        ["findings_markdown", "format_table", "plot_scaling", "save_scaling_figure"],
        "pathfinding.bench.report",
    ),
    "run_benchmark": "pathfinding.bench.run",
}

# Lazy, so the command line registers ``bench`` without loading the peers and the plotting.
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
__all__ = sorted(_EXPORTS)
