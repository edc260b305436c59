"""The explorers that run in a book page: every slider setting precomputed, the kernel's numbers."""

import numpy as np
import pytest

from pathfinding.course import explorers, page_explorers
from pathfinding.errors import InvalidValueError

Slider = pytest.importorskip("bokeh.models").Slider

INTERACTIVE = ("meet_node", "restart", "defeat", "break_even")


@pytest.fixture(scope="module")
def pages():
    return {name: getattr(page_explorers, f"{name}_page")() for name in INTERACTIVE}


def test_every_page_explorer_covers_its_whole_grid(pages):
    for name, page in pages.items():
        grid = page_explorers.GRIDS[name]
        sizes = [round((hi - lo) / step) + 1 for lo, hi, step, _ in grid.values()]
        assert page.settings == int(np.prod(sizes)), name
        sliders = {m.name: m for m in page.layout.select({"type": Slider})}
        assert {n: (s.start, s.end, s.step, s.value) for n, s in sliders.items()} == grid, name


def test_the_page_shows_what_the_kernel_figure_shows(pages):
    for restart_prob, degree in [(0.5, 9), (0.1, 2), (0.95, 40)]:
        kernel = explorers.meet_node_figure(restart_prob=restart_prob, degree=degree).axes[1].get_title()
        assert pages["meet_node"].at(restart_prob=restart_prob, degree=degree)["text"].startswith(kernel)
    for setting in [dict(hops=2), dict(hops=3, decoy_hops=1), dict(hops=2, bridge_branching=3),
                    dict(hops=4, hub_passages=256)]:  # fmt: skip
        full = {"hops": 2, "bridge_branching": 0, "decoy_hops": 0, "hub_passages": 0, **setting}
        kernel = explorers.defeat_figure(**full).axes[0].get_title()
        assert pages["defeat"].at(**full)["text"] == kernel, full
    for n, c in [(10_000, 20), (10_000, 10), (50_000, 1)]:
        kernel = explorers.break_even_figure(n_passages=n, cost_ratio=c).axes[0].get_title()
        assert pages["break_even"].at(n_passages=n, cost_ratio=c)["text"] == kernel, (n, c)
    heights = [round(p.get_height(), 3) for p in explorers.restart_figure((20, 5)).axes[0].patches]
    assert pages["restart"].at(seed_1=20, seed_2=5, seed_3=0)["top"] == [0.5, 0.2, 0.5, 0.8, 0, 0]
    assert heights == [0.5, 0.5, 0.2, 0.8]


def test_an_impossible_decoy_is_explained_in_the_page(pages):
    frame = pages["defeat"].at(hops=2, bridge_branching=0, decoy_hops=3, hub_passages=0)
    assert frame["text"].startswith("Not a valid setting") and "decoy_hops" in frame["text"]
    assert frame["top"] == []


def test_a_setting_off_the_grid_names_the_slider(pages):
    with pytest.raises(InvalidValueError, match="degree"):
        pages["meet_node"].at(restart_prob=0.5, degree=41)
    with pytest.raises(InvalidValueError, match="name every slider"):
        pages["meet_node"].at(restart_prob=0.5)


def test_bokehjs_is_inline_unless_the_page_loads_it(pages, monkeypatch):
    page = pages["meet_node"]
    monkeypatch.delenv(page_explorers.BOKEHJS_ENV, raising=False)
    alone = page._repr_html_()
    monkeypatch.setenv(page_explorers.BOKEHJS_ENV, "page")
    in_book = page._repr_html_()
    # the book's pages load one copy of BokehJS; a page of its own carries it (about 1.6 MB)
    assert len(alone) - len(in_book) > 1_000_000
    assert "Bokeh.embed" in in_book and 'class="pathfinding-explorer"' in in_book
    files = page_explorers.bokehjs_files()
    assert [f.name for f in files] == ["bokeh.min.js", "bokeh-widgets.min.js"]
    assert all(f.is_file() for f in files)
    import bokeh

    assert f'"{bokeh.__version__}"' in files[0].read_text(encoding="utf-8")  # the Python side's version
