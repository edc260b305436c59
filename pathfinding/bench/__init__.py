"""Benchmark: our PPR kernels against scipy, igraph (PRPACK) and scikit-network.

One file per job: :mod:`~pathfinding.bench.peers` (the scipy power iteration, igraph and
scikit-network calls), :mod:`~pathfinding.bench.probes` (memory bandwidth, RSS, machine, JIT
compile cost), :mod:`~pathfinding.bench.timing` (one thread, round robin), :mod:`~pathfinding.bench.run`
(the measurements), :mod:`~pathfinding.bench.targets` (PASS/FAIL), :mod:`~pathfinding.bench.report`
(tables, Markdown, figure) and :mod:`~pathfinding.bench.cli` (``python -m pathfinding bench``).
The graphs come from :mod:`pathfinding.synthetic.graphs`.

Everything runs on one thread (numba, OpenMP and BLAS pools are limited to 1), methods are timed
round-robin inside each repeat after a warm-up, and the median over repeats is reported.
:func:`run_benchmark` returns every measurement as a dict (``--json`` writes it);
:func:`format_table` and :func:`findings_markdown` render it for a terminal and for FINDINGS.md.
"""

from pathfinding.bench.cli import add_parser
from pathfinding.bench.peers import scipy_power_iteration, scipy_prepare
from pathfinding.bench.probes import stream_bandwidth
from pathfinding.bench.report import findings_markdown, format_table, plot_scaling, save_scaling_figure
from pathfinding.bench.run import run_benchmark

__all__ = [
    "add_parser",
    "findings_markdown",
    "format_table",
    "plot_scaling",
    "run_benchmark",
    "save_scaling_figure",
    "scipy_power_iteration",
    "scipy_prepare",
    "stream_bandwidth",
]
