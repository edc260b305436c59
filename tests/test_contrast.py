"""Path-following against path-finding (pathfinding.experiments.contrast): which instance each shape
is, each retriever's own tie stream, ranks read from settled ties, the budget sweep read from one
trace per trial, and the rows each sweep sums up."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pathfinding.core.scoring import rank_of
from pathfinding.errors import InvalidValueError
from pathfinding.experiments.contrast import (
    BEAM_WIDTH,
    RETRIEVERS,
    SHAPES,
    _retriever_rngs,
    make_shape,
    run_budget_sweep,
    run_contrast,
    settle_ties,
)
from pathfinding.experiments.hop_depth import trial_streams
from pathfinding.synthetic.chaining import beam_retrieve
from pathfinding.synthetic.following import make_following_instance
from pathfinding.synthetic.rankers import RANKERS
from pathfinding.synthetic.variation import QuestionInstance, make_varied_instance


def test_contrast_streams_do_not_depend_on_the_other_retrievers():
    both = run_contrast(hops=(2,), trials=6, retrievers=["iterative", "beam"], progress=False)
    alone = run_contrast(hops=(2,), trials=6, retrievers=["beam"], progress=False)
    for shape in ("following", "finding"):
        assert np.array_equal(both.ranks[shape, 2, "beam"], alone.ranks[shape, 2, "beam"])


def test_budget_sweep_reach_never_shrinks():
    res = run_budget_sweep(trials=20, seed=3)
    for name in res.retrievers:
        reach = np.array([res.reached[name, b] for b in res.budgets])
        assert np.all(np.diff(reach.astype(int), axis=0) >= 0)


def test_contrast_rejects_unknown_names():
    with pytest.raises(ValueError, match="unknown retriever"):
        run_contrast(retrievers=["oracle"], trials=2)
    with pytest.raises(ValueError, match="shape"):
        run_contrast(shapes=["loop"], trials=2)


@given(
    values=st.lists(st.integers(0, 6), min_size=2, max_size=15),
    noise_seed=st.integers(0, 2**32 - 1),
)
def test_settle_ties_restores_ties_that_rounding_broke(values, noise_seed):
    """Exact ties jittered at the solver's noise level become ties again; real differences stay."""
    exact = np.asarray(values, dtype=float) * 0.01 + 0.001
    noisy = exact * (1 + np.random.default_rng(noise_seed).normal(scale=1e-13, size=exact.size))
    settled = settle_ties(noisy)
    assert np.array_equal(exact[:, None] == exact[None, :], settled[:, None] == settled[None, :])
    assert np.array_equal(exact[:, None] < exact[None, :], settled[:, None] < settled[None, :])
    answer, candidates = 0, np.arange(exact.size)
    assert rank_of(settled, answer, candidates) == rank_of(exact, answer, candidates)


def test_each_shape_is_its_generator():
    following, finding = make_shape("following", 2, rng=4), make_shape("finding", 2, rng=4)
    assert (
        isinstance(following, QuestionInstance)
        and following.kind == "following"
        and len(following.seeds) == 1
    )
    assert finding.kind == "finding" and len(finding.seeds) == 2
    varied = make_shape("finding", 2, rng=4, noise_facts=3)
    assert varied.passages == make_varied_instance(2, rng=4, noise_facts=3).passages
    assert following.passages == make_following_instance(2, rng=4).passages
    assert SHAPES == ("following", "finding")
    with pytest.raises(
        InvalidValueError, match=r"^shape must be one of \('following', 'finding'\), got 'loop'"
    ):
        make_shape("loop", 2)


def test_settle_ties_at_its_edges():
    assert settle_ties([3.0]).tolist() == [3.0] and settle_ties([]).tolist() == []
    s = np.array([1.0, 1.0 + 5e-10, 1.0 + 2e-9])  # gaps below and above rtol x max
    assert settle_ties(s).tolist() == [1.0 + 5e-10, 1.0 + 5e-10, 1.0 + 2e-9]
    assert settle_ties(s, rtol=1e-8).tolist() == [1.0 + 2e-9] * 3  # one chain of small gaps
    before = s.copy()
    settle_ties(s)
    assert np.array_equal(s, before)  # the caller's scores are not changed


def test_each_rank_is_the_answers_rank_on_the_trials_instance():
    res = run_contrast(
        shapes=("finding",), hops=(2,), trials=3, seed=5, retrievers=["ppr", "beam"], progress=False
    )
    for t in range(3):
        inst_ss, ties_ss = trial_streams(5, t)
        inst = make_shape("finding", 2, rng=inst_ss)
        want = rank_of(settle_ties(RANKERS["ppr"](inst)), inst.answer, inst.candidates)
        assert res.ranks["finding", 2, "ppr"][t] == want
        assert res.n_candidates["finding", 2][t] == len(inst.candidates)
    assert set(res.reached) == {("finding", 2, "beam")}  # only the chaining retrievers reach


def test_the_contrast_rows():
    res = run_contrast(hops=(1,), trials=4, seed=0, retrievers=["iterative", "ppr"], progress=False)
    rows = res.summary()
    assert [(r.shape, r.hops, r.retriever) for r in rows] == [
        ("following", 1, "iterative"),
        ("following", 1, "ppr"),
        ("finding", 1, "iterative"),
        ("finding", 1, "ppr"),
    ]
    for r in rows:
        ranks = res.ranks[r.shape, r.hops, r.retriever]
        assert r.trials == 4 and r.mean == pytest.approx(ranks.mean())
        assert r.hit_at_1 == np.mean(ranks == 1.0) and r.hit_low <= r.hit_at_1 <= r.hit_high
        assert r.chance == (res.n_candidates[r.shape, r.hops].mean() + 1) / 2
        assert (r.reached is None) == (r.retriever == "ppr")


@pytest.mark.parametrize(
    ("kw", "match"),
    [({"trials": 1}, "trials"), ({"hops": (0,)}, "hops"), ({"seed": -1}, "seed")],
)
def test_contrast_arguments_are_checked(kw, match):
    with pytest.raises(InvalidValueError, match=match):
        run_contrast(**{"trials": 2, "progress": False} | kw)


def test_every_budget_is_read_from_one_trace():
    res = run_budget_sweep(hops=2, budgets=(1, 3, 50), trials=2, seed=1, retrievers=("beam",))
    for t in range(2):
        inst_ss, ties_ss = trial_streams(1, t)
        inst = make_shape("finding", 2, rng=inst_ss)
        rng = _retriever_rngs(ties_ss)["beam"]  # the beam's own tie stream
        trace = beam_retrieve(inst, width=BEAM_WIDTH, budget=50, rule="score", rng=rng)
        assert res.ppr_ranks[t] == rank_of(settle_ties(RANKERS["ppr"](inst)), inst.answer, inst.candidates)
        assert trace.rounds < 50  # a budget past the trace's last round reads the last round
        for b in (1, 3, 50):
            k = min(b, trace.rounds)
            assert res.ranks["beam", b][t] == rank_of(trace.scores(after=k), inst.answer, inst.candidates)
            assert res.reached["beam", b][t] == trace.reached(inst.answer, after=k)
    rows = res.summary()
    assert [(r["retriever"], r["budget"]) for r in rows] == [("beam", 1), ("beam", 3), ("beam", 50)]
    assert rows[0]["chance"] == (res.n_candidates.mean() + 1) / 2


@pytest.mark.parametrize(
    ("kw", "match"),
    [
        ({"budgets": ()}, "budgets must name at least one budget"),
        ({"budgets": (0,)}, "budget"),
        (
            {"retrievers": ("ppr",)},
            r"budget sweep retrievers must be among \['iterative', 'beam'\], got \['ppr'\]",
        ),
        ({"hops": 0}, "hops"),
    ],
)
def test_budget_arguments_are_checked(kw, match):
    with pytest.raises(InvalidValueError, match=match):
        run_budget_sweep(**{"trials": 2} | kw)


def test_the_retrievers_table():
    assert list(RETRIEVERS)[:4] == ["iterative", "beam", "chain_relations", "intersection"]
    assert set(RANKERS) <= set(RETRIEVERS)
