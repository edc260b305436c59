"""The benchmark's measurements (pathfinding.bench.run) on one small graph: every method answers the
same query, each row's ratio and error are computed from what was measured, and a top-k is judged
against the reference with ties allowed."""

import dataclasses

import numpy as np
import pytest

from pathfinding.bench import run
from pathfinding.bench.config import N_ITER
from pathfinding.core.ppr import ppr_solve, ppr_top_k
from pathfinding.errors import InvalidTypeError, InvalidValueError
from pathfinding.synthetic.graphs import er_graph


class _Bar:
    n = 0

    def update(self, k):
        self.n += k


@pytest.fixture(scope="module")
def measured():
    A = er_graph(300, 1200, 5)
    notes = []
    bar = _Bar()
    res = run._bench_graph(
        "ER",
        A,
        np.random.default_rng(1),
        repeats=2,
        batch_sizes=(3,),
        top_k=4,
        bandwidth=10.0,
        bar=bar,
        notes=notes,
    )
    return A, res, notes, bar


def test_every_method_answers_the_same_two_seed_query(measured):
    A, res, _, _ = measured
    m = res["methods"]
    assert len(res["seeds"]) == 2 and res["seeds"] == sorted(res["seeds"])
    assert all(np.diff(A.indptr)[s] > 0 for s in res["seeds"])  # seeds with an edge
    r = np.zeros(A.shape[0])
    r[res["seeds"]] = 0.5
    ours = ppr_solve(A, r, tol=0, max_iter=N_ITER).pi
    assert m["ours-30"]["l1_vs_scipy_30"] <= 1e-12 and m["ours-30"]["iterations"] == N_ITER
    assert m["scipy-30"]["l1_vs_reference"] == pytest.approx(m["ours-30"]["l1_vs_reference"], abs=1e-12)
    assert m["ours-tol"]["converged"] and m["ours-tol"]["l1_vs_reference"] <= 1e-9
    assert np.abs(ours - ppr_solve(A, r, tol=1e-12).pi).sum() == pytest.approx(
        m["ours-30"]["l1_vs_reference"], abs=1e-9
    )


def test_ratios_are_peer_over_ours_of_the_reported_times(measured):
    _, res, _, _ = measured
    m = res["methods"]
    assert m["scipy-30"]["baseline"] == "ours-30"
    assert m["scipy-30"]["ratio"] == m["scipy-30"]["median_ms"] / m["ours-30"]["median_ms"]
    assert all(len(row["times_ms"]) == 2 for row in m.values())  # one per repeat
    assert m["scipy-30"]["median_ms"] == pytest.approx(float(np.median(m["scipy-30"]["times_ms"])))


def test_a_batch_answers_its_columns_as_single_queries(measured):
    _, res, _, _ = measured
    batch = res["methods"]["ours-batch-3"]
    assert batch["batch"] == 3 and batch["max_column_l1_vs_single"] <= 1e-14
    assert batch["l1_vs_reference"] == pytest.approx(res["methods"]["ours-30"]["l1_vs_reference"], abs=1e-14)
    assert batch["speedup_vs_single"] == pytest.approx(batch["queries_per_s"] / batch["single_queries_per_s"])


def test_the_top_k_row_and_the_floor(measured):
    _, res, _, _ = measured
    top = res["methods"]["ours-top-k"]
    assert top["k"] == 4 and top["certified"] and top["matches_reference"]
    assert top["full_tol_iterations"] == res["methods"]["ours-tol"]["iterations"]
    floor = res["floor"]
    assert floor["bandwidth_GBps"] == 10.0
    assert floor["floor_ms_per_iteration"] == pytest.approx(1e3 * floor["bytes_per_iteration"] / 10e9)
    assert floor["multiple_of_floor"] == pytest.approx(
        floor["ours_ms_per_iteration"] / floor["floor_ms_per_iteration"]
    )
    assert floor["ours_ms_per_iteration"] == pytest.approx(res["methods"]["ours-30"]["median_ms"] / N_ITER)


def test_sizes_and_the_absent_peers_are_noted(measured):
    A, res, notes, bar = measured
    assert (res["n_nodes"], res["n_edges"], res["nnz"]) == (300, 1200, 2400)
    assert res["max_degree"] == int(np.diff(A.indptr).max()) and res["mean_degree"] == 8.0
    absent = ("igraph-prpack" not in res["methods"]) + ("sknetwork-30" not in res["methods"])
    assert len(notes) == absent and all("is not importable" in n for n in notes)
    assert bar.n == 1 + 2 + 1  # the warm-up, each repeat, the memory step


def test_top_k_summary_accepts_any_order_among_tied_scores():
    reference = np.array([0.4, 0.2, 0.2, 0.1, 0.1])
    res = ppr_top_k(np.ones((5, 5)) - np.eye(5), [0], 2)
    tied = dataclasses.replace(res, top=np.array([0, 2]))  # 2 ties with 1: also right
    assert run._top_k_summary(tied, reference, 2)["matches_reference"]
    wrong = dataclasses.replace(res, top=np.array([0, 3]))
    assert not run._top_k_summary(wrong, reference, 2)["matches_reference"]


def test_two_seeds_have_edges_and_come_sorted():
    deg = np.array([0, 3, 0, 1, 0, 2])
    for seed in range(20):
        s = run._two_seeds(np.random.default_rng(seed), deg)
        assert s.tolist() == sorted(s.tolist()) and len(set(s.tolist())) == 2 and set(s.tolist()) <= {1, 3, 5}


@pytest.mark.parametrize(
    ("kw", "error", "match"),
    [
        ({"repeats": 0}, InvalidValueError, "repeats"),
        ({"seed": -1}, InvalidValueError, "seed"),
        ({"top_k": 0}, InvalidValueError, "top_k"),
        ({"batch_sizes": (8, 0)}, InvalidValueError, "batch size"),
        ({"repeats": 2.5}, InvalidTypeError, "repeats"),
    ],
)
def test_run_benchmark_checks_its_arguments_before_any_work(kw, error, match, monkeypatch):
    monkeypatch.setattr(run, "stream_bandwidth", lambda **k: pytest.fail("measured before checking"))
    with pytest.raises(error, match=match):
        run.run_benchmark(**kw)
