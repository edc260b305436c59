"""The chapter's figures that are not graph drawings (pathfinding.course.diagrams): every module a
box names exists, each figure shows the numbers it is given, and bad input is named."""

import dataclasses
import importlib

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from pathfinding.core.scoring import passage_scores  # noqa: E402
from pathfinding.course import diagrams  # noqa: E402
from pathfinding.errors import InvalidValueError  # noqa: E402
from pathfinding.experiments.plotting import save_figure  # noqa: E402
from pathfinding.synthetic.rankers import RANKERS  # noqa: E402
from pathfinding.synthetic.toy import star_pair  # noqa: E402


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def _named_objects():
    """Every "module.name" a diagram prints under a box, as it is printed."""
    rows = [m for *_, m in diagrams.OFFLINE_STEPS + diagrams.ONLINE_STEPS] + [
        m for _, _, m, _ in diagrams.BRAIN_MAP
    ]
    names = []
    for text in rows:
        for line in text.split("\n"):
            name = line.split(" (")[0].strip()
            if name and name != "-":
                names.append(name)
    return names


@pytest.mark.parametrize("name", _named_objects())
def test_every_name_a_diagram_prints_resolves(name):
    module, _, attr = f"pathfinding.{name}".rpartition(".")
    assert hasattr(importlib.import_module(module), attr), f"pathfinding.{name} does not exist"


def test_every_figure_renders_and_is_byte_stable(tmp_path):
    toy = star_pair(3)

    def figures():
        return [
            diagrams.draw_matrix_p(toy.mentions, RANKERS["ppr"](toy), passage_labels=toy.passages)[0],
            diagrams.draw_restart_bars((20, 5)),
            diagrams.draw_pipelines(),
            diagrams.draw_brain_map(),
            diagrams.draw_pipeline_position("all"),
        ]

    first = [save_figure(ax.figure, tmp_path / f"a{k}.png").read_bytes() for k, ax in enumerate(figures())]
    again = [save_figure(ax.figure, tmp_path / f"b{k}.png").read_bytes() for k, ax in enumerate(figures())]
    assert first == again and all(len(png) > 1000 for png in first)


def test_every_box_of_the_pipelines_is_drawn_with_its_module():
    texts = [t.get_text() for t in diagrams.draw_pipelines().texts]
    for title, _, module in diagrams.OFFLINE_STEPS + diagrams.ONLINE_STEPS:
        assert title in texts
        if module != "-":
            head, _, tail = module.rpartition(".")
            assert any(t.startswith(f"{head}.\n") and t.replace("\n", "").endswith(tail) for t in texts), (
                module
            )
    assert sum("-" == t for t in texts) == 0  # "the question" has no module, and none is printed


def test_the_brain_map_names_each_region_and_component():
    texts = [t.get_text() for t in diagrams.draw_brain_map().texts]
    for region, component, modules, _ in diagrams.BRAIN_MAP:
        assert region in texts and component in texts and modules in texts


def test_the_passage_bars_are_pi_times_p():
    toy = star_pair(3)
    pi = RANKERS["ppr"](toy)
    ax_p, ax_b = diagrams.draw_matrix_p(toy.mentions, pi, highlight=[1])
    widths = [bar.get_width() for bar in ax_b.patches]
    np.testing.assert_allclose(widths, passage_scores(pi, toy.mentions))
    colours = [matplotlib.colors.to_hex(bar.get_facecolor()) for bar in ax_b.patches]
    assert colours[1] == "#dd8452" and set(colours[:1] + colours[2:]) == {"#4c72b0"}
    np.testing.assert_array_equal(ax_p.images[0].get_array(), toy.mentions.toarray())
    with pytest.raises(InvalidValueError, match=r"pi must have shape \(7,\), got \(6,\)"):
        diagrams.draw_matrix_p(toy.mentions, pi[:-1])


def test_the_restart_bars_with_and_without_specificity():
    """20 and 5 passages: 0.5 / 0.5 without specificity, 0.2 / 0.8 with s_i = 1/|P_i|."""
    ax = diagrams.draw_restart_bars((20, 5))
    heights = [round(bar.get_height(), 12) for bar in ax.patches]
    assert heights == [0.5, 0.5, 0.2, 0.8]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["seed 1\n|P| = 20", "seed 2\n|P| = 5"]
    with pytest.raises(InvalidValueError, match=r"need one name per count \(3\), got 2"):
        diagrams.draw_restart_bars((1, 2, 3))


def test_the_pipeline_position_highlights_what_it_is_told():
    ax = diagrams.draw_pipeline_position(["P", "scores"])
    assert sum(t.get_text() == "this notebook" for t in ax.texts) == 2
    bold = [t.get_text() for t in ax.texts if t.get_fontweight() == "bold" and "\n" in t.get_text()]
    assert bold == ["count\nmatrix P", "passage\nscores $\\pi \\cdot P$"]
    assert sum(t.get_text() == "this notebook" for t in diagrams.draw_pipeline_position("all").texts) == 10
    assert sum(t.get_text() == "this notebook" for t in diagrams.draw_pipeline_position("PPR").texts) == 1
    with pytest.raises(InvalidValueError, match="'pagerank'"):
        diagrams.draw_pipeline_position("pagerank")
    with pytest.raises(InvalidValueError, match="step must be"):
        diagrams.draw_pipeline_position([])


def test_an_explanation_is_drawn_as_stacked_bars_one_colour_per_source():
    from tests.test_tables import _explained

    why = _explained()
    left, right = diagrams.draw_explanation(why, passages=4, nodes=2)
    bars = [p for p in left.patches if p.get_width() > 0]
    # every positive part is one bar; a passage's bars end at its score
    assert len(bars) == sum(p.score > 0 for pe in why.passages for p in pe.parts)
    ends = {}
    for b in bars:
        row = round(b.get_y() + b.get_height() / 2)
        ends[row] = max(ends.get(row, 0.0), b.get_x() + b.get_width())
    np.testing.assert_allclose([ends[r] for r in range(4)], why.scores, rtol=1e-9)
    with pytest.raises(InvalidValueError, match="ranks no passage"):
        diagrams.draw_explanation(dataclasses.replace(why, passages=()))
