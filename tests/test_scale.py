"""The scale benchmark at tiny sizes (the real runs are `make bench`)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest


def test_the_stage_meter_reports_each_stage_once_with_its_seconds_and_memory():
    from pathfinding.bench.scale import StageMeter

    meter = StageMeter()
    meter("a")
    # 64 MiB: above glibc's largest mmap threshold (32 MiB), so fresh pages, never reused heap
    block = np.ones(2**23)
    meter("b")
    block += 1
    meter("done")
    assert list(meter.stages) == ["a", "b"]
    assert all(st["s"] >= 0 for st in meter.stages.values())
    assert meter.stages["a"]["kept_bytes"] >= 2**25 and meter.peak > 2**26


def test_measure_size_small_reports_every_stage():
    from pathfinding.bench.scale import measure_size
    from pathfinding.bench.scale_report import STAGES

    row = measure_size(300, n_queries=10, builds_per_size=2)
    assert row["n_passages"] == 300 and row["n_nodes"] > 300 and row["n_synonymy_edges"] > 0
    assert list(row["stages"]) == list(STAGES)
    assert 0 < row["build_s"] <= row["build_s_slowest"] and row["builds"] == 2
    assert 0 < row["synonymy_s"] < row["build_s"] and 0 < row["add_s"] < row["build_s"]
    assert 0 < row["delete_s"] < row["build_s"] and 0 < row["delete_again_s"] < row["build_s"]
    assert row["link_ms"] > 0 and row["seeds_ms"] > 0 and row["bm25_ms"] > 0 and row["walk_ms"] > 0
    assert row["file_bytes"] > 0 and row["load_s"] > 0 and row["peak_rss_gb"] > 0.05
    assert row["synonymy_recall"] == 1.0 and row["synonymy_matter"] > 0  # nothing is cut at 300
    assert 0 <= row["walk_certified_share"] <= 1 and 0 <= row["recall_at_5"] <= 1
    assert row["threads"] >= 1 and row["load_avg_1m"] >= 0
    assert row["query_misspelt_p90_ms"] >= row["query_misspelt_ms"]


def test_the_command_a_user_runs_is_measured_in_its_own_process(tmp_path):
    """The files written, the command run on them (its own peak, not this process'), what it wrote
    counted; a command that fails says so with its error."""
    import multiprocessing

    from pathfinding.bench.probes import read_status
    from pathfinding.bench.scale import _command_at_size, measure_command, write_corpus_files

    corpus_path, openie_path = write_corpus_files(300, str(tmp_path), rng=0)
    held = np.ones(2**26)  # 0.5 GiB here, none of it the command's: a child's ru_maxrss starts at
    row = measure_command(corpus_path, openie_path, str(tmp_path))  # its parent's peak, VmHWM
    assert row["command_s"] > 0 and 0.03 < row["command_peak_gb"] < read_status("VmHWM") / 2**30
    del held
    assert row["command_bytes"] == sum(os.path.getsize(tmp_path / f) for f in ("command.hippo",
                                                                              "command.hippo.query-cache"))
    with pytest.raises(RuntimeError, match=r"hipporag index .*exited with 2: .*missing.json"):
        measure_command(corpus_path, str(tmp_path / "missing.json"), str(tmp_path))
    assert set(_command_at_size(200, 1, multiprocessing.get_context("spawn"))) == set(row)


@pytest.mark.slow
def test_run_scale_tiny_end_to_end():
    from pathfinding.bench.scale import run_scale

    res = run_scale((400, 800), n_queries=10, progress=False)
    status = {t["name"]: t["status"] for t in res["targets"]}
    assert res["musique"]["recall"] == 1.0 and res["musique"]["r5_exact"] == res["musique"]["r5_topk"]
    assert status["build at 1,000,000 passages (s)"] == "NOT MEASURED"  # nothing at 1M was run
    assert status["recall of the exact tau=0.8 synonymy edges that matter (MuSiQue)"] == "PASS"
    assert all(r["command_peak_gb"] > 0 and r["command_bytes"] > 0 for r in res["rows"])


def _spawned_workers(parent: int) -> list[int]:
    """Pids of the processes ``parent`` spawned for its sizes (multiprocessing's spawn_main)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                spawned = b"spawn_main" in f.read()
        except (OSError, ValueError, IndexError):
            continue
        if ppid == parent and spawned:
            found.append(int(entry))
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="finds the size's process through /proc")
def test_a_terminated_run_stops_its_sizes_process_and_says_so():
    """SIGTERM (kill, timeout, a closed terminal's SIGHUP) to the run: it stops the size's process
    too, which would otherwise build on for minutes, orphaned, and ends with status 143."""
    proc = subprocess.Popen([sys.executable, "-m", "pathfinding.bench.scale", "--sizes", "100000"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    workers = []
    try:
        deadline = time.monotonic() + 120
        while not (workers := _spawned_workers(proc.pid)) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert workers, "the size's process never started"
        time.sleep(3)  # into the size's work (a 100,000-passage size takes minutes)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 128 + signal.SIGTERM, err
        assert "stopped during the 100,000-passage size (0 done)" in err
        deadline = time.monotonic() + 30
        while any(_alive(w) for w in workers) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not any(_alive(w) for w in workers)
    finally:  # a failing run must not leave a size building on, orphaned
        proc.kill()
        for w in workers:
            if _alive(w):
                os.kill(w, signal.SIGKILL)
