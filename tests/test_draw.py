"""Every figure function renders (Agg) on small inputs; the layout shows the structure; PNGs are stable."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import scipy.sparse as sp  # noqa: E402
from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from pathfinding.course import draw, marks  # noqa: E402
from pathfinding.experiments.plotting import save_figure  # noqa: E402
from pathfinding.synthetic.instances import make_instance  # noqa: E402
from pathfinding.synthetic.rankers import RANKERS  # noqa: E402
from pathfinding.synthetic.toy import meet_node_toy, star_pair  # noqa: E402
from tests.strategies import weighted_graphs  # noqa: E402

SHAPES = {
    "two_hop": dict(hops=2),
    "branching": dict(hops=3, bridge_branching=2),
    "decoy": dict(hops=3, decoy_hops=1),
    "unequal": dict(hops=(1, 3)),
    "hub": dict(hops=2, hub_passages=16),
    "three_seeds": dict(hops=2, seeds=3),
}


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def _check_layout(inst):
    pos = draw.layered_layout(inst.graph, inst.seeds, answer=inst.answer)
    assert pos.shape == (inst.n_nodes, 2) and np.all(np.isfinite(pos))
    np.testing.assert_allclose(np.hypot(*pos[inst.seeds].T), 1.0)  # seeds on the outside
    np.testing.assert_allclose(pos[inst.answer], 0.0, atol=1e-12)  # the answer where bridges meet
    others = np.delete(np.arange(inst.n_nodes), np.r_[inst.seeds, inst.answer])
    assert np.all(np.hypot(*pos[others].T) > 1e-6), "a node drawn on top of the answer"
    _, counts = np.unique(np.round(pos, 6), axis=0, return_counts=True)
    assert counts.max() == 1, "two nodes drawn at the same place"
    return pos


@pytest.mark.parametrize("name", SHAPES)
def test_layout_of_every_shape(name):
    _check_layout(make_instance(**SHAPES[name], rng=3))


@pytest.mark.parametrize("inst", [star_pair(9), star_pair(1), meet_node_toy()], ids=["star9", "star1", "toy"])
def test_layout_of_toys(inst):
    _check_layout(inst)


def test_layout_layers_are_bfs_distances():
    """Chain nodes at BFS layer k from their seed sit 0.8 k / h from it: chains run inward layer by layer."""
    inst = make_instance(3, rng=1)
    pos = draw.layered_layout(inst.graph, inst.seeds, answer=inst.answer)
    from scipy.sparse.csgraph import shortest_path

    d = shortest_path(inst.graph, unweighted=True, indices=inst.seeds)
    for s, seed in enumerate(inst.seeds):
        mine = np.flatnonzero(d[s] < d[1 - s])
        np.testing.assert_allclose(np.hypot(*(pos[mine] - pos[seed]).T), 0.8 * d[s, mine] / 3)


@given(
    hops=st.integers(1, 4),
    seeds=st.integers(2, 4),
    distractors=st.integers(0, 4),
    branching=st.integers(0, 2),
    hub=st.integers(0, 5),
    rng=st.integers(0, 2**16),
)
def test_layout_any_generated_instance(hops, seeds, distractors, branching, hub, rng):
    inst = make_instance(
        hops, seeds=seeds, distractors=distractors, bridge_branching=branching, hub_passages=hub, rng=rng
    )
    _check_layout(inst)


@given(weighted_graphs(max_nodes=10), st.data())
def test_layout_any_graph(graph, data):
    """Any graph at all (several components, isolated nodes, no answer): finite positions."""
    n = graph.shape[0]
    seeds = data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=3, unique=True))
    pos = draw.layered_layout(graph, seeds)
    assert pos.shape == (n, 2) and np.all(np.isfinite(pos))


def test_layout_rejects_bad_input():
    with pytest.raises(ValueError, match="seeds"):
        draw.layered_layout(sp.eye(3, format="csr"), [5])
    with pytest.raises(ValueError, match="answer"):
        draw.layered_layout(sp.eye(3, format="csr"), [0], answer=-1)


def _png(tmp_path, name):
    inst = make_instance(2, rng=0)
    fig, ax = plt.subplots(figsize=(6, 4.5))
    draw.draw_instance(inst, RANKERS["ppr"](inst), ax=ax, title="PPR")
    path = save_figure(fig, tmp_path / name)
    plt.close(fig)
    return path.read_bytes()


def test_png_is_byte_stable(tmp_path):
    assert _png(tmp_path, "a.png") == _png(tmp_path, "b.png")


def test_every_figure_function_renders(tmp_path):
    toy = star_pair(3)
    inst = make_instance(2, distractors=2, rng=0)
    pi = RANKERS["ppr"](inst)
    axes = [
        draw.draw_instance(toy, passages=True),
        draw.draw_instance(inst, pi, labels="all"),
        draw.draw_graph(inst.graph, inst.seeds, pi, dashed=sp.csr_array(([1.0], ([0], [1])), shape=(13, 13))),
        *draw.draw_scores_side_by_side(inst, {"PPR": pi, "mention count": RANKERS["mention_count"](inst)}),
        *draw.draw_mass_spreading(toy, ks=(0, 1)),
    ]
    for k, ax in enumerate(axes):
        assert save_figure(ax.figure, tmp_path / f"{k}.png").stat().st_size > 1000


def test_the_answer_rank_is_written_on_the_figure():
    inst = make_instance(2, rng=0)
    ax = draw.draw_instance(inst, RANKERS["mention_count"](inst))
    assert any("rank 9 of 17" in t.get_text() for t in ax.texts)


def test_mass_after_matches_the_hand_computation():
    toy = star_pair(9)
    np.testing.assert_allclose(draw.mass_after(toy, 0)[:2], [0.5, 0.5])
    m1 = draw.mass_after(toy, 1)
    assert m1[2] == pytest.approx(2 * 0.5 * 0.5 / 9) and m1[3] == pytest.approx(0.5 * 0.5 / 9)
    assert draw.mass_after(toy, None)[2] == pytest.approx(1 / 27)


def test_show_saves_outside_jupyter(tmp_path):
    fig, _ = plt.subplots()
    path = draw.show(fig, "x", directory=tmp_path)
    assert path == tmp_path / "x.png" and path.exists()


def test_a_node_with_twice_the_mass_shows_twice_the_inked_area():
    toy = star_pair(9)
    mass = draw.mass_after(toy, 1)
    ax = draw.draw_instance(toy, mass, vmax=float(mass[toy.candidates].max()))
    ink = {}
    for marker in ("*", "v"):
        path_area = marks.inked_area(marker)
        for coll in ax.collections:
            sizes = getattr(coll, "get_sizes", lambda: [])()
            if len(sizes) and coll.get_facecolors().size and _marker_of(coll) == marker:
                ink[marker] = np.asarray(sizes) * path_area
    dead_end = ink["v"].max()
    assert ink["*"].max() / dead_end == pytest.approx(2.0)  # the one-step answer holds two inflows
    assert marks.inked_area("*") < marks.inked_area("v")  # why the star must be drawn larger than a triangle


def _marker_of(coll):
    from matplotlib.markers import MarkerStyle

    verts = coll.get_paths()[0].vertices
    for marker in ("*", "v", "s", "o"):
        style = MarkerStyle(marker)
        mine = style.get_path().transformed(style.get_transform()).vertices
        if mine.shape == verts.shape and np.allclose(mine, verts):
            return marker
    return None


def test_legend_markers_have_one_readable_size_and_the_answer_label_can_change():
    toy = star_pair(3)
    ax = draw.draw_instance(toy, draw.mass_after(toy, 0), answer_label="the answer (no meet here)")
    handles = ax.get_legend().legend_handles
    assert {h.get_label() for h in handles} >= {"the answer (no meet here)", "seed (query entity)"}
    assert min(h.get_markersize() for h in handles) >= 8


def test_the_rank_box_can_show_the_callers_rank_and_marks_label_nodes():
    inst = make_instance(3, decoy_hops=1, rng=0)
    others = np.setdiff1d(inst.candidates, [inst.answer])
    decoy = int(others[np.argmax(RANKERS["ppr"](inst)[others])])  # the decoy outranks every dead end
    ax = draw.draw_instance(inst, RANKERS["ppr"](inst), rank=5.0, marks={decoy: "decoy"})
    texts = [t.get_text() for t in ax.texts]
    assert any(t.startswith("answer: rank 5 of") for t in texts)
    assert "decoy" in texts


def test_show_refuses_a_figure_whose_text_the_book_would_shrink_below_reading(monkeypatch, tmp_path):
    """A figure wider than the book's column is shrunk to it: a 15-inch grid of panels with 8-point
    labels showed them at 6 px. show() checks the smallest text, and strict mode makes it fail."""
    from pathfinding.course.marks import MIN_TEXT_PX, smallest_text_px
    from pathfinding.errors import CheckFailed

    show = draw.show
    monkeypatch.setenv("PATHFINDING_STRICT", "1")
    wide, ax = plt.subplots(figsize=(15, 5))
    ax.set_title("a panel", fontsize=8)
    assert smallest_text_px(wide) < MIN_TEXT_PX
    with pytest.raises(CheckFailed, match="smallest text"):
        show(wide, "wide", directory=tmp_path)
    plt.close(wide)
    narrow, ax = plt.subplots(figsize=(8, 4))
    ax.set_title("a panel", fontsize=8)
    ax.plot([0, 1], [0, 1])
    # an 8-inch figure fits the column unshrunk: its smallest text (title or ticks) at 100 dpi
    assert MIN_TEXT_PX <= smallest_text_px(narrow) <= 8 * 100 / 72
    assert show(narrow, "narrow", directory=tmp_path).is_file()
