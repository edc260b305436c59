"""End to end on a slice of the MuSiQue tuning set, and the CLI subcommands on a fresh parser."""

import argparse
import json

import numpy as np
import pytest

from pathfinding.cli import bench as bench_cli
from pathfinding.cli import experiments as experiments_cli
from pathfinding.experiments.realtext import format_report, run_realtext


@pytest.fixture(scope="module")
def slice10():
    return run_realtext(seed=0, n_boot=200, n_questions=10)


def test_end_to_end_slice(slice10):
    res = slice10
    assert res.n_questions == 10 and res.methods[:2] == ["bm25 (cased)", "bm25 (lower)"]
    for name in ("default", "v1[capitalised]", "hybrid[capitalised]", "v1[facts]"):
        assert {f"{name} (cased)", f"{name} (lower)"} <= set(res.methods)
    for m in res.methods:
        R, AR = res.recall[m], res.all_recall[m]
        assert R.shape == AR.shape == (10, 4)
        assert np.all(np.diff(R, axis=1) >= 0)  # recall grows with k
        assert set(np.unique(AR)) <= {0.0, 1.0} and np.all(AR <= R)  # all found => recall 1
        mean, lo, hi = res.summary[m].T
        assert np.all((lo <= mean + 1e-12) & (mean <= hi + 1e-12))
        # paired difference of means = difference of means, against the BM25 row of the same case
        base = "bm25 (lower)" if m.endswith("(lower)") else "bm25 (cased)"
        np.testing.assert_allclose(res.vs_bm25[m][:, 0], R.mean(0) - res.recall[base].mean(0), atol=1e-12)
    # BM25 lower-cases: the two BM25 rows agree question by question; capitalised spans do not
    np.testing.assert_array_equal(res.recall["bm25 (cased)"], res.recall["bm25 (lower)"])
    assert res.fallbacks["v1[capitalised] (lower)"] > res.fallbacks["v1[capitalised] (cased)"]
    assert res.fallbacks["default (lower)"] < res.fallbacks["v1[capitalised] (lower)"]
    text = format_report(res)
    assert "triple_not_three: 185" in text and "AR@5" in text
    assert "Target: default, lower questions: R@5" in text


def test_deterministic_for_a_seed(slice10):
    again = run_realtext(seed=0, n_boot=200, n_questions=10)
    assert json.dumps(again.to_json(), sort_keys=True) == json.dumps(slice10.to_json(), sort_keys=True)


def test_cli_registers_and_runs(tmp_path, capsys):
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    experiments_cli.add_commands(sub)
    bench_cli.add_commands(sub)
    out = tmp_path / "rt.json"
    args = parser.parse_args(["realtext", "--quick", "--boot", "50", "--seed", "3", "--json", str(out)])
    assert args.func(args) == 0
    printed = capsys.readouterr().out
    assert "MuSiQue tuning set: 20 questions" in printed and "50 resamples" in printed
    data = json.loads(out.read_text())
    assert data["n_questions"] == 20 and data["seed"] == 3 and "bm25 (lower)" in data["methods"]
    assert "AR@5" in data["methods"]["default (lower)"]["all_recall"]
    with pytest.raises(SystemExit):
        parser.parse_args(["realtext", "--boot", "0"])
    assert parser.parse_args(["realtext-bench"]).func is bench_cli._cmd_realtext_bench


def test_weight_grid_at_the_defaults_matches_the_default_rows(slice10):
    import inspect

    from pathfinding.experiments.sensitivity import format_grid, weight_grid
    from pathfinding.hipporag.retrieval.retrieve import HippoRetriever

    # regression pin: the defaults FINDINGS and README describe (10 questions cannot tell 0.2 from 0.3)
    params = inspect.signature(HippoRetriever).parameters
    assert (params["fact_weight"].default, params["passage_weight"].default, params["facts"].default) == (
        0.1,
        0.2,
        5,
    )
    res = weight_grid((0.1,), (0.2,), n_questions=10)
    r5 = 2
    assert res["grid"][0]["cased"] == pytest.approx(slice10.recall["default (cased)"][:, r5].mean())
    assert res["grid"][0]["lower"] == pytest.approx(slice10.recall["default (lower)"][:, r5].mean())
    assert res["bm25"] == pytest.approx(slice10.recall["bm25 (cased)"][:, r5].mean())
    assert "smallest over the grid" in format_grid(res)
    with pytest.raises(ValueError, match="k must be one of"):
        weight_grid(k=3)
