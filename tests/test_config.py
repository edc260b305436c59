"""The benchmark's fixed settings (pathfinding.bench.config): the chapter's query, and a command that
is one the command line knows."""

from pathfinding.bench import config
from pathfinding.cli import build_parser


def test_the_query_is_the_chapters():
    """Two seeds, restart probability 0.5, 30 power iterations (the reference's "30 iterations"), a
    tolerance tight enough that every peer's L1 is measured against something better than itself."""
    assert (config.RESTART_PROB, config.N_ITER) == (0.5, 30)
    assert config.TOL == 1e-10 and config.REFERENCE_ITER > 5 * config.N_ITER


def test_the_command_written_into_findings_is_a_command_that_runs_the_benchmark():
    words = config.COMMAND.split()
    assert words[:3] == ["python", "-m", "pathfinding"]
    args = build_parser().parse_args(words[3:] + ["--quick"])
    assert args.func.__module__ == "pathfinding.cli.bench" and args.func.__name__ == "_cmd_bench"


def test_the_thread_pools_limited_are_openmps_and_the_blas_ones():
    assert set(config.THREAD_ENV) == {"OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"}
    assert "NUMBA_NUM_THREADS" not in config.THREAD_ENV  # numba refuses a new value once started
