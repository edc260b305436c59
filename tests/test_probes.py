"""What the benchmark measures about the machine and a call (pathfinding.bench.probes): bandwidth,
memory, versions, the JIT's cost, and the byte counts of the bandwidth floor."""

import json
import math
import os
import signal
import subprocess
from types import SimpleNamespace

import numpy as np
import pytest
import scipy.sparse as sp

from pathfinding.bench import probes
from pathfinding.core.prepared import prepare_graph


def test_stream_probe_gives_a_positive_finite_bandwidth():
    probe = probes.stream_bandwidth(megabytes=8, trials=2)
    for key in ("copy_GBps", "triad_GBps", "bandwidth_GBps"):
        assert math.isfinite(probe[key]) and probe[key] > 0
    assert probe["bandwidth_GBps"] == max(probe["copy_GBps"], probe["triad_GBps"])
    assert (probe["array_MB"], probe["trials"]) == (8, 2)


def test_the_stream_probe_counts_two_transfers_a_copy_and_five_a_triad(monkeypatch):
    """A fake clock on which each timed step takes 1 s: the copy of an 8 MiB array moves 2 x 8 MiB,
    the two-pass triad 5 x 8 MiB."""
    ticks = iter(np.arange(0.0, 100.0))
    monkeypatch.setattr(probes, "time", SimpleNamespace(perf_counter=lambda: float(next(ticks))))
    probe = probes.stream_bandwidth(megabytes=8, trials=1)
    nbytes = 8 * 2**20
    assert probe["copy_GBps"] == pytest.approx(2 * nbytes / 1 / 1e9)
    assert probe["triad_GBps"] == pytest.approx(5 * nbytes / 1 / 1e9)


def test_read_status_reads_bytes_from_proc():
    rss = probes.read_status("VmRSS")
    if rss is None:
        pytest.skip("no /proc/self/status here")
    assert rss % 1024 == 0 and rss > 10 * 2**20  # a Python with numpy holds more than 10 MiB
    assert probes.read_status("NoSuchField") is None


def test_memory_of_sees_an_allocation_of_eight_megabytes():
    out = probes.memory_of(lambda: np.ones(2**20).sum())  # 8 MiB, touched
    assert out["tracemalloc_peak_bytes"] >= 8 * 2**20
    assert out["rss_peak_extra_bytes"] is None or out["rss_peak_extra_bytes"] >= 0


def test_machine_info_names_the_versions_that_matter():
    info = probes.machine_info()
    assert info["cores"] >= 1 and info["cpu"]
    assert info["versions"]["numpy"] == np.__version__ and info["versions"]["python"].count(".") == 2
    assert set(info["versions"]) == {"python", "numpy", "scipy", "numba", "igraph", "sknetwork"}


def _ring(n):
    i = np.arange(n)
    return sp.csr_array((np.ones(2 * n), (np.r_[i, (i + 1) % n], np.r_[(i + 1) % n, i])), shape=(n, n))


def test_csr_and_prepared_bytes_count_every_array():
    A = _ring(10)
    assert probes.csr_bytes(A) == A.indptr.nbytes + A.indices.nbytes + A.data.nbytes
    g = prepare_graph(A, layout="csr")
    csr_only = probes.prepared_bytes(g)
    assert csr_only >= g.indptr.nbytes + g.indices.nbytes + g.inv_out.nbytes
    assert probes.prepared_bytes(prepare_graph(A, layout="binned")) > csr_only  # the binned copy counts


def test_iteration_bytes_follow_their_formula():
    g = prepare_graph(_ring(10), layout="csr")  # unit weights: none read
    total, formula = probes.iteration_bytes(g)
    n, nnz = 10, 20
    assert total == g.indptr.nbytes + g.indices.nbytes + 8 * nnz + 3 * 8 * n
    assert "weights" not in formula and formula.startswith(f"indptr {g.indptr.itemsize}(n+1)")
    A = _ring(10)
    A.data[:] = 2.0 + np.arange(20)  # weighted: the weights are read too
    gw = prepare_graph(A, layout="csr")
    weighted, formula = probes.iteration_bytes(gw)
    assert weighted == total + gw.weights.nbytes and "weights 8*nnz" in formula


def test_jit_compile_times_reports_each_process_or_its_error(monkeypatch):
    runs = []

    def fake_run(argv, env, **kw):
        runs.append(env)
        if len(runs) == 1:
            out = {"single": {"first_s": 2.0, "warm_s": 0.5, "compile_s": 1.5}}
            return SimpleNamespace(returncode=0, stdout="noise\n" + json.dumps(out), stderr="")
        return SimpleNamespace(returncode=1, stdout="", stderr="Traceback\nImportError: no numba")

    monkeypatch.setattr(subprocess, "run", fake_run)
    out = probes.jit_compile_times()
    assert out == {
        "cold_cache": {"single": {"first_s": 2.0, "warm_s": 0.5, "compile_s": 1.5}},
        "warm_cache": {"error": ["ImportError: no numba"]},
    }
    assert runs[0]["NUMBA_CACHE_DIR"] == runs[1]["NUMBA_CACHE_DIR"]  # the second reads what the first wrote
    assert runs[0]["NUMBA_NUM_THREADS"] == "1" and runs[0]["OMP_NUM_THREADS"] == "1"


@pytest.mark.slow
def test_jit_compile_times_in_fresh_processes():
    out = probes.jit_compile_times()
    assert set(out) == {"cold_cache", "warm_cache"}
    for case in out.values():
        assert set(case) == {"single", "tol", "block", "top_k"}
    assert out["cold_cache"]["single"]["compile_s"] > out["warm_cache"]["single"]["compile_s"]


def test_a_stop_signal_runs_the_cleanup_whole_and_the_handlers_come_back():
    """SIGTERM inside the block is SystemExit(143); a second one during the cleanup is ignored (the
    cleanup finishes); after the block SIGTERM's handler is the one from before."""
    before = signal.getsignal(signal.SIGTERM)
    cleaned = []
    with pytest.raises(SystemExit) as exc:
        with probes.signals_as_exit():
            try:
                os.kill(os.getpid(), signal.SIGTERM)
            finally:
                os.kill(os.getpid(), signal.SIGTERM)  # would raise again inside the cleanup
                cleaned.append(True)
    assert exc.value.code == 128 + signal.SIGTERM and cleaned == [True]
    assert signal.getsignal(signal.SIGTERM) is before


def test_sigint_is_a_keyboard_interrupt_when_asked_for():
    with pytest.raises(KeyboardInterrupt):
        with probes.signals_as_exit((signal.SIGTERM, signal.SIGINT)):
            os.kill(os.getpid(), signal.SIGINT)
