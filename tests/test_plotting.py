"""The experiments' figures (pathfinding.experiments.plotting): each plots the numbers of the result it
is given, on the axes it is given, and a saved PNG depends only on what is drawn."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from pathfinding.errors import InvalidValueError  # noqa: E402
from pathfinding.experiments import plotting  # noqa: E402
from pathfinding.experiments.contrast import run_budget_sweep  # noqa: E402
from pathfinding.experiments.hop_depth import run_experiment  # noqa: E402
from pathfinding.synthetic.chaining import beam_retrieve  # noqa: E402
from pathfinding.synthetic.instances import make_instance  # noqa: E402


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def sweep():
    return run_experiment(hops=(1, 2), trials=12, seed=0, rankers=["mention_count", "ppr"], progress=False)


def test_axes_given_are_the_axes_drawn_on():
    fig, ax = plt.subplots()
    assert plotting.axes_or_new(ax) is ax
    new = plotting.axes_or_new(figsize=(3, 2))
    assert new is not ax and tuple(new.figure.get_size_inches()) == (3, 2)


def test_mean_rank_plots_each_rankers_means_and_chance(sweep):
    rows = sweep.summary()
    ax = plotting.plot_mean_rank(rows)
    labels = ax.get_legend_handles_labels()[1]
    assert sorted(labels) == ["PPR with specificity", "chance (9)", "mention count (vector-RAG shape)"]
    lines = [line for line in ax.get_lines() if line.get_marker() == "o"]
    assert len(lines) == 2
    for line, name in zip(lines, ("mention_count", "ppr"), strict=True):
        np.testing.assert_allclose(line.get_ydata(), [r.mean for r in rows if r.ranker == name])
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1", "2"]
    assert ax.yaxis_inverted()  # rank 1 at the top
    unknown = plotting.plot_mean_rank([r.__class__(**{**r.__dict__, "ranker": "mine"}) for r in rows[:1]])
    assert "mine" in unknown.get_legend_handles_labels()[1]  # a ranker without a label keeps its name


def test_rank_distribution_counts_every_trial_once(sweep):
    ax = plotting.plot_rank_distribution(sweep, hops=2)
    assert len(ax.patches) == 2  # one step histogram per ranker
    uniform = [line for line in ax.get_lines() if line.get_label() == "uniform (chance)"]
    assert uniform[0].get_ydata()[0] == pytest.approx(12 / 17)
    assert "17 candidates at 2 hops" in ax.get_xlabel() and "(of 12)" in ax.get_ylabel()


def test_the_budget_sweep_in_percent_with_ppr_for_reference():
    budget = run_budget_sweep(budgets=(1, 4), trials=6, seed=2)
    ax = plotting.plot_budget_sweep(budget)
    labels = ax.get_legend_handles_labels()[1]
    ppr = 100 * float(np.mean(budget.ppr_ranks == 1.0))
    assert sorted(labels) == sorted([
        f"PPR ranked first ({ppr:.0f}%)", "iterative: answer reached", "iterative: ranked first",
        "beam: answer reached", "beam: ranked first",
    ])  # fmt: skip
    handles = dict(zip(*reversed(ax.get_legend_handles_labels()), strict=True))
    reached = handles["iterative: answer reached"].lines[0]  # an errorbar's data line
    rows = [r for r in budget.summary() if r["retriever"] == "iterative"]
    np.testing.assert_allclose(reached.get_ydata(), [100 * r["reached"][0] for r in rows])
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1", "4"]


def test_the_frontier_marks_the_answers_round():
    inst = make_instance(2, rng=1)
    trace = beam_retrieve(inst, width=4, budget=4, rng=np.random.default_rng(0))
    ax = plotting.plot_frontier_rounds(trace, inst)
    assert len(ax.patches) == trace.rounds
    heights = [bar.get_height() for bar in ax.patches]
    assert heights == [int(np.sum(trace.reached_round == k)) for k in range(1, trace.rounds + 1)]
    red = [
        k + 1
        for k, bar in enumerate(ax.patches)
        if matplotlib.colors.to_hex(bar.get_facecolor()) == "#d62728"
    ]
    assert red == ([int(trace.reached_round[inst.answer])] if trace.reached(inst.answer) else [])


def test_a_saved_figure_depends_only_on_what_is_drawn(tmp_path):
    def png(name):
        fig, ax = plt.subplots(figsize=(3, 2))
        ax.plot([0, 1], [1, 0])
        return plotting.save_figure(fig, tmp_path / "sub" / name, dpi=50).read_bytes()

    a, b = png("a.png"), png("b.png")
    assert a == b and a[:8] == b"\x89PNG\r\n\x1a\n" and b"Software" not in a and b"matplotlib" not in a


def test_passage_ranks_puts_each_chosen_passage_at_its_rank_per_ranking():
    rankings = {"bm25": np.array([3, 1, 2, 4]), "walk": np.array([1, 4, 3, 2])}
    ax = plotting.plot_passage_ranks(rankings, [0, 3])
    marks = [line for line in ax.get_lines() if line.get_label() in rankings]
    assert {m.get_label(): list(m.get_ydata()) for m in marks} == {"bm25": [3, 4], "walk": [1, 2]}
    # the chosen passages in the order given, and rank 1 at the top (the axis runs downwards)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["p0", "p3"]
    bottom, top = ax.get_ylim()
    assert bottom == 5 and top < 1
    assert sorted(t.get_text() for t in ax.texts) == ["1", "2", "3", "4"]
    assert "of 4" in ax.get_ylabel()


def test_passage_ranks_draws_on_the_axes_given():
    _, ax = plt.subplots()
    assert plotting.plot_passage_ranks({"a": np.array([1, 2])}, [1], ax=ax) is ax


@pytest.mark.parametrize(
    ("rankings", "passages"),
    [({}, [0]), ({"a": np.array([1, 2])}, []), ({"a": np.array([1, 2]), "b": np.array([1, 2, 3])}, [0])],
)
def test_passage_ranks_refuses_what_it_cannot_draw(rankings, passages):
    with pytest.raises(InvalidValueError, match="rankings"):
        plotting.plot_passage_ranks(rankings, passages)
