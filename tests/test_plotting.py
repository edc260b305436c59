"""The experiments' figures (pathfinding.experiments.plotting): each plots the numbers it is given, on
the axes it is given."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from pathfinding.errors import InvalidValueError  # noqa: E402
from pathfinding.experiments import plotting  # noqa: E402


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


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
