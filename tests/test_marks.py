"""How the drawings mark nodes (pathfinding.course.marks): the ink a marker really puts down, the
legend at one readable size, the colour bar's cap, and the smallest text a reader of the book sees."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
from matplotlib.colors import Normalize, to_hex  # noqa: E402

from pathfinding.course.marks import (  # noqa: E402
    BOOK_COLUMN_PX,
    MIN_TEXT_PX,
    STYLE,
    inked_area,
    legend_handles,
    score_colorbar,
    smallest_text_px,
)


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def test_inked_area_is_the_markers_polygon_area():
    """A square marker of size 1 is a unit square (area 1); the triangle inks half of it; the star
    less than the triangle: hence a star must be drawn larger for the same visible area."""
    assert inked_area("s") == pytest.approx(1.0)
    assert inked_area("v") == pytest.approx(0.5 * 1.0 * 1.0)  # base 1, height 1 in the marker's box
    assert inked_area("*") < inked_area("v") < inked_area("s")


def test_each_kind_of_node_has_its_own_marker():
    assert set(STYLE) == {"seed", "answer", "candidate", "other"}
    assert len({marker for marker, *_ in STYLE.values()}) == 4


def test_legend_entries_are_readable_whatever_the_node_sizes():
    handles = legend_handles(["seed", "answer", "candidate"], scores_given=False)
    assert [h.get_label() for h in handles] == [STYLE[k][3] for k in ("seed", "answer", "candidate")]
    assert [h.get_markersize() for h in handles] == [8, 11, 8]  # the answer's star a little larger
    assert [h.get_marker() for h in handles] == ["s", "*", "v"]
    assert to_hex(handles[0].get_markerfacecolor()) == STYLE["seed"][2]  # no scores: the kind's colour
    scored = legend_handles(["seed"], scores_given=True, answer_label="ignored for a seed")
    assert to_hex(scored[0].get_markerfacecolor()) == "#d9d9d9"  # scores colour the nodes, not the legend
    assert scored[0].get_label() == STYLE["seed"][3]
    assert legend_handles(["answer"], False, answer_label="the meet node")[0].get_label() == "the meet node"


def test_the_colour_bar_says_when_values_are_drawn_at_the_cap():
    fig, ax = plt.subplots()
    capped = score_colorbar(ax, Normalize(0, 0.25), "viridis", capped=True, label="PPR mass")
    assert capped.ax.get_ylabel() == "PPR mass (above 0.25: drawn at the cap)" and capped.extend == "max"
    plain = score_colorbar(ax, Normalize(0, 1), "viridis", capped=False, label="PPR mass")
    assert plain.ax.get_ylabel() == "PPR mass" and plain.extend == "neither"


def test_the_smallest_text_as_the_book_shows_it():
    wide, ax = plt.subplots(figsize=(15, 5))
    ax.set_title("panel", fontsize=8)
    assert smallest_text_px(wide) == pytest.approx(8 * 100 / 72 * BOOK_COLUMN_PX / 1500)
    narrow, ax = plt.subplots(figsize=(5, 3))
    ax.set_title("panel", fontsize=12)
    ax.set_xticks([])
    ax.set_yticks([])
    assert smallest_text_px(narrow) == pytest.approx(12 * 100 / 72)  # no shrink: fits the column
    hidden = ax.text(0, 0, "tiny", fontsize=2)
    hidden.set_visible(False)
    ax.text(0, 0, "   ", fontsize=3)  # blank text is not text a reader sees
    assert smallest_text_px(narrow) == pytest.approx(12 * 100 / 72)
    blank, ax = plt.subplots(figsize=(2, 2))
    ax.set_axis_off()
    assert smallest_text_px(blank) == float("inf")
    assert MIN_TEXT_PX == 8.0
