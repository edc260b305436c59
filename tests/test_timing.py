"""How the benchmark times (pathfinding.bench.timing): one thread for every library, methods in an
order that rotates, the garbage collector off while timing, medians."""

import gc
import os
from types import SimpleNamespace

import pytest

from pathfinding.bench import timing as bench_timing
from pathfinding.bench.config import THREAD_ENV
from pathfinding.bench.timing import round_robin, single_thread, time_ppr, time_prepare
from pathfinding.core.ppr import ppr_solve
from pathfinding.errors import InvalidTypeError, InvalidValueError
from pathfinding.synthetic.toy import star_pair


class _Bar:
    n = 0

    def update(self, k):
        self.n += k


def test_round_robin_rotates_the_order_every_repeat_with_the_collector_off():
    calls = []
    methods = {k: (lambda k=k: calls.append((k, gc.isenabled()))) for k in "abc"}
    bar = _Bar()
    times = round_robin(methods, 4, bar)
    assert [k for k, _ in calls] == list("abcbcacababc")
    assert not any(on for _, on in calls) and gc.isenabled()  # off while timing, back on after
    assert {k: len(v) for k, v in times.items()} == {"a": 4, "b": 4, "c": 4} and bar.n == 4
    assert all(t >= 0 for v in times.values() for t in v)


def test_round_robin_leaves_a_disabled_collector_disabled_and_restores_after_an_error():
    gc.disable()
    try:
        round_robin({"a": lambda: None}, 1, _Bar())
        assert not gc.isenabled()
    finally:
        gc.enable()
    with pytest.raises(ZeroDivisionError):
        round_robin({"a": lambda: 1 / 0}, 1, _Bar())
    assert gc.isenabled()


def test_single_thread_sets_and_restores_the_thread_variables(monkeypatch):
    monkeypatch.setenv(THREAD_ENV[0], "8")
    monkeypatch.delenv(THREAD_ENV[1], raising=False)
    with single_thread() as info:
        assert all(os.environ[k] == "1" for k in THREAD_ENV)
        assert info["env"] == dict.fromkeys(THREAD_ENV, "1")
        assert info["threadpoolctl"] is not None
    assert os.environ[THREAD_ENV[0]] == "8" and THREAD_ENV[1] not in os.environ


def test_time_prepare_warms_up_then_takes_the_median(monkeypatch):
    ticks = iter([0.0, 5.0, 5.0, 6.0, 6.0, 9.0])  # calls of 5, 1 and 3 s: median 3 (mean 3)
    monkeypatch.setattr(bench_timing, "time", SimpleNamespace(perf_counter=lambda: next(ticks)))
    calls = []
    out, median = time_prepare(lambda: calls.append(1) or len(calls), n=3)
    assert (out, median, len(calls)) == (4, 3.0, 4)  # the warm-up call is not timed


def test_time_ppr_reports_graph_and_iterations():
    t = time_ppr(star_pair(9).graph, [0, 1], repeats=2)
    assert (t.n_nodes, t.n_edges) == (19, 36)
    # the sweeps of the tolerance asked for (22 at 1e-12 is ppr_solve's doctest; a regression pin)
    assert t.iterations == ppr_solve(star_pair(9).graph, [0, 1], tol=1e-8).iterations
    assert time_ppr(star_pair(9).graph, [0, 1], repeats=1, tol=1e-12).iterations == 22
    assert time_ppr(star_pair(9).graph, [0, 1], repeats=1, tol=1e-2).iterations < t.iterations


def test_time_ppr_runs_exactly_max_iter_iterations_when_asked():
    # the chapter's reference times a query at 30 power iterations, not at a tolerance
    t = time_ppr(star_pair(9).graph, [0, 1], repeats=1, max_iter=30)
    assert t.iterations == 30 and t.seconds > 0
    with pytest.raises(InvalidValueError, match="max_iter"):
        time_ppr(star_pair(3).graph, [0, 1], max_iter=0)
    with pytest.raises(InvalidValueError, match="repeats"):
        time_ppr(star_pair(3).graph, [0, 1], repeats=0)
    with pytest.raises(InvalidTypeError, match="repeats"):
        time_ppr(star_pair(3).graph, [0, 1], repeats=1.5)


def test_time_ppr_reports_the_median_of_its_runs(monkeypatch):
    """A fake clock: the timed prepares take 2, 9 and 3 s (median 3, mean 4.7), the timed queries 1, 5
    and 6 s (median 5, mean 4); the warm-up runs read no clock."""
    ticks = iter([0.0, 2.0, 3.0, 12.0, 13.0, 16.0, 20.0, 21.0, 30.0, 35.0, 40.0, 46.0])
    monkeypatch.setattr(bench_timing, "time", SimpleNamespace(perf_counter=lambda: next(ticks)))
    t = time_ppr(star_pair(3).graph, [0, 1], repeats=3)
    assert (t.prepare_seconds, t.seconds) == (3.0, 5.0)
