"""The hop-depth sweep (pathfinding.experiments.hop_depth): one instance per depth and trial from
its own stream, each ranker's expected and random-tie rank of the answer, and the summary rows."""

import numpy as np
import pytest

from pathfinding.core.scoring import rank_of
from pathfinding.errors import InvalidTypeError, InvalidValueError
from pathfinding.experiments.hop_depth import DEFAULT_RANKERS, regenerate, run_experiment, trial_streams
from pathfinding.synthetic.instances import make_instance
from pathfinding.synthetic.rankers import RANKERS


def _state(ss):
    return np.random.default_rng(ss).integers(2**62, size=4).tolist()


def test_a_trials_streams_depend_on_the_seed_and_the_trial_only():
    a_inst, a_ties = trial_streams(7, 3)
    assert _state(a_inst) == _state(np.random.SeedSequence(7).spawn(4)[3].spawn(2)[0])
    assert _state(a_ties) == _state(np.random.SeedSequence(7).spawn(10)[3].spawn(2)[1])
    assert _state(a_inst) != _state(a_ties)  # instance and tie-break draw independently
    assert _state(trial_streams(7, 4)[0]) != _state(a_inst) != _state(trial_streams(8, 3)[0])


def test_each_trial_is_the_instance_regenerate_builds():
    res = run_experiment(hops=(1, 2), trials=4, seed=3, rankers=["ppr", "mention_count"], progress=False)
    for h in (1, 2):
        for t in range(4):
            inst = regenerate(3, t, h)
            for name in ("ppr", "mention_count"):
                want = rank_of(RANKERS[name](inst), inst.answer, inst.candidates)
                assert res.ranks[name, h][t] == want
            assert 1 <= res.random_ranks["ppr", h][t] <= len(inst.candidates)


def test_regenerate_draws_from_the_trials_instance_stream():
    """Common random numbers: trial t builds its instance at every depth from the same stream."""
    for h in (1, 3):
        a, b = regenerate(0, 5, h), make_instance(h, rng=trial_streams(0, 5)[0])
        assert a.passages == b.passages and a.answer == b.answer
    assert regenerate(0, 5, 2).passages != regenerate(0, 6, 2).passages


def test_ties_have_an_expected_rank_and_one_random_draw():
    """A scorer that ties every candidate: expected rank (n + 1) / 2, random ranks spread over 1..n."""
    flat = {"flat": lambda inst: np.ones(inst.n_nodes)}
    res = run_experiment(hops=(2,), trials=30, seed=1, scorers=flat, progress=False)
    n = res.n_candidates[2]
    assert res.rankers == ("flat",) and n == 17  # the chapter's 1 answer + 16 dead ends
    np.testing.assert_array_equal(res.ranks["flat", 2], (n + 1) / 2)
    rnd = res.random_ranks["flat", 2]
    assert set(rnd.tolist()) <= set(range(1, n + 1)) and len(set(rnd.tolist())) > 5
    (row,) = res.summary()
    assert (row.mean, row.ci_low, row.ci_high, row.chance, row.hit_at_1) == (9.0, 9.0, 9.0, 9.0, 0.0)
    assert row.mean_random == pytest.approx(rnd.mean()) and row.ci_random_low < row.mean_random


def test_the_summary_rows_follow_the_runs_order_and_count_hits():
    perfect = {"oracle": lambda inst: np.eye(inst.n_nodes)[inst.answer]}
    res = run_experiment(hops=(1, 3), trials=5, seed=0, rankers=["ppr"], scorers=perfect, progress=False)
    assert res.rankers == ("ppr", "oracle")  # named rankers first, extra scorers after
    rows = res.summary()
    assert [(r.ranker, r.hops) for r in rows] == [("ppr", 1), ("ppr", 3), ("oracle", 1), ("oracle", 3)]
    oracle = rows[2]
    assert (oracle.hit_at_1, oracle.median, oracle.mean, oracle.trials) == (1.0, 1.0, 1.0, 5)
    assert rows[0].median == float(np.median(res.ranks["ppr", 1]))


def test_defaults_and_per_seed_depths():
    res = run_experiment(hops=([1, 2],), trials=2, seed=0, progress=False, distractors=2)
    assert res.rankers == DEFAULT_RANKERS and res.hops == ((1, 2),)
    assert res.instance_kwargs == {"distractors": 2}
    assert set(res.ranks) == {(name, (1, 2)) for name in DEFAULT_RANKERS}
    inst = regenerate(0, 1, (1, 2), distractors=2)
    assert res.n_candidates[(1, 2)] == len(inst.candidates)


@pytest.mark.parametrize(
    ("kw", "error", "match"),
    [
        ({"trials": 0}, InvalidValueError, "trials"),
        ({"trials": 2.0}, InvalidTypeError, "trials"),
        ({"seed": -1}, InvalidValueError, "seed"),
        ({"hops": ()}, InvalidValueError, "hops must name at least one hop depth"),
        ({"rankers": ["ppr", "pagerank"]}, InvalidValueError, r"unknown ranker\(s\) \['pagerank'\]"),
        ({"scorers": {"short": lambda inst: np.ones(3)}}, InvalidValueError, "scores of ranker 'short'"),
    ],
)
def test_bad_arguments_and_bad_scores_are_named(kw, error, match):
    with pytest.raises(error, match=match):
        run_experiment(**{"trials": 1, "progress": False} | kw)
