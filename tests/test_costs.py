"""The cost model's arithmetic, checked by hand."""

from types import SimpleNamespace

import numpy as np
import pytest

from pathfinding.bench import timing as bench_timing
from pathfinding.bench.timing import time_ppr
from pathfinding.core.ppr import ppr_solve
from pathfinding.course.costs import (
    CostModel,
    break_even_queries,
    iterative_calls,
    offline_calls,
    offline_share,
    online_calls,
)
from pathfinding.synthetic.toy import star_pair


def test_bills_by_hand():
    m = CostModel(openie_calls_per_passage=2, openie_cost=3, ner_cost=0.5, steps_per_query=4, step_cost=2)
    assert offline_calls(100, m) == 600
    assert online_calls(10, m) == 5
    assert iterative_calls(10, m) == 80
    # 600 + 0.5 Q = 8 Q  ->  Q = 80
    assert break_even_queries(100, m) == pytest.approx(80.0)
    np.testing.assert_allclose(offline_share(100, [0, 1200], m), [1.0, 0.5])


def test_break_even_is_where_bills_cross():
    m = CostModel(steps_per_query=3)
    for n in (10, 1_000, 123_456):
        q = break_even_queries(n, m)
        assert offline_calls(n, m) + online_calls(q, m) == pytest.approx(iterative_calls(q, m))


def test_never_breaks_even_without_saving():
    assert np.isinf(break_even_queries([1, 2], CostModel(steps_per_query=0.5, step_cost=1))).all()
    assert np.isfinite(break_even_queries([1, 2], CostModel(steps_per_query=0.5, step_cost=3))).all()


def test_offline_share_zero_corpus_zero_queries():
    assert offline_share(0, 0) == 0.0


def test_validation_names_bad_values():
    with pytest.raises(ValueError, match="steps_per_query"):
        CostModel(steps_per_query=-1)
    with pytest.raises(ValueError, match="n_passages"):
        offline_calls(-5)
    with pytest.raises(ValueError, match="repeats"):
        time_ppr(star_pair(3).graph, [0, 1], repeats=0)


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
    with pytest.raises(ValueError, match="max_iter"):
        time_ppr(star_pair(3).graph, [0, 1], max_iter=0)


def test_time_ppr_reports_the_median_of_its_runs(monkeypatch):
    """A fake clock: the timed prepares take 2, 9 and 3 s (median 3, mean 4.7), the timed queries 1, 5
    and 6 s (median 5, mean 4); the warm-up runs read no clock."""
    ticks = iter([0.0, 2.0, 3.0, 12.0, 13.0, 16.0, 20.0, 21.0, 30.0, 35.0, 40.0, 46.0])
    monkeypatch.setattr(bench_timing, "time", SimpleNamespace(perf_counter=lambda: next(ticks)))
    t = time_ppr(star_pair(3).graph, [0, 1], repeats=3)
    assert (t.prepare_seconds, t.seconds) == (3.0, 5.0)
