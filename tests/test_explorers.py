"""The course's explorers, run with ipywidgets stubbed (as Neuromatch Academy's CI runs its widgets).

A stubbed ``ipywidgets.interact`` calls the explorer's drawing function at the sliders' defaults and
at each slider's two ends, so an explorer that breaks anywhere a student can drag it fails here.
"""

import re

import matplotlib
import numpy as np
import pytest
from matplotlib.figure import Figure

from pathfinding.course import explorers, page_explorers
from pathfinding.errors import InvalidTypeError, InvalidValueError

ipywidgets = pytest.importorskip("ipywidgets")

INTERACTIVE = {
    "meet_node": explorers.interactive_meet_node,
    "restart": explorers.interactive_restart,
    "defeat": explorers.interactive_defeat,
    "break_even": explorers.interactive_break_even,
}


@pytest.fixture
def stub_widgets(monkeypatch):
    """Replace ``ipywidgets.interact`` and ``display``; record what each call drew or printed."""
    monkeypatch.delenv(explorers.STATIC_ENV, raising=False)
    calls = []

    def interact(draw, **widgets):
        defaults = {name: w.value for name, w in widgets.items()}
        settings = [defaults]
        for name, w in widgets.items():
            settings += [{**defaults, name: w.min}, {**defaults, name: w.max}]
        for values in settings:
            calls.append((values, draw(**values)))

    monkeypatch.setattr(ipywidgets, "interact", interact)
    monkeypatch.setattr("IPython.display.display", lambda obj: calls.append(("displayed", obj)))
    yield calls
    matplotlib.pyplot.close("all")


@pytest.mark.parametrize("name", INTERACTIVE)
def test_every_slider_setting_draws_or_explains(name, stub_widgets, capsys):
    INTERACTIVE[name]()
    assert stub_widgets, f"interactive_{name} never called interact"
    for values, fig in stub_widgets:
        if fig is None:  # the generator rejected the combination: the student must be told why
            assert "Not a valid setting" in capsys.readouterr().out, values
        else:
            assert isinstance(fig, Figure) and fig.axes, values
    assert isinstance(stub_widgets[0][1], Figure), "the default setting must draw"


def test_only_an_impossible_decoy_is_rejected(stub_widgets):
    explorers.interactive_defeat()
    rejected = [values for values, fig in stub_widgets if fig is None]
    assert rejected == [{"hops": 2, "bridge_branching": 0, "decoy_hops": 3, "hub_passages": 0}]


@pytest.mark.parametrize("name", INTERACTIVE)
def test_static_mode_shows_the_explorer_that_runs_in_the_page(name, stub_widgets, monkeypatch):
    pytest.importorskip("bokeh")
    monkeypatch.setenv(explorers.STATIC_ENV, "1")
    refuse = lambda *a, **k: pytest.fail("static mode must not build widgets")  # noqa: E731
    monkeypatch.setattr(ipywidgets, "interact", refuse)
    INTERACTIVE[name]()
    assert [kind for kind, _ in stub_widgets] == ["displayed"]
    page = stub_widgets[0][1]
    assert isinstance(page, page_explorers.PageExplorer) and page.name == name
    html = page._repr_html_()
    assert "Bokeh" in html and "CustomJS" not in html[:1000], "BokehJS must be inline, ahead of the document"
    assert not re.search(r"<script[^>]*\bsrc=", html), "an in-page explorer must carry its scripts inline"


@pytest.mark.parametrize("name", INTERACTIVE)
def test_static_mode_without_bokeh_shows_the_default_picture(name, stub_widgets, monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_bokeh(module, *args, **kwargs):
        if module == "bokeh" or module.startswith("bokeh."):
            raise ImportError("no bokeh here")
        return real_import(module, *args, **kwargs)

    monkeypatch.setenv(explorers.STATIC_ENV, "1")
    monkeypatch.setattr(builtins, "__import__", no_bokeh)
    INTERACTIVE[name]()
    assert [kind for kind, _ in stub_widgets] == ["displayed"]
    assert isinstance(stub_widgets[0][1], Figure)


def test_meet_node_ratio_is_two_at_any_setting():
    for restart_prob, degree in [(0.1, 2), (0.5, 9), (0.9, 40)]:
        title = explorers.meet_node_figure(restart_prob=restart_prob, degree=degree).axes[1].get_title()
        assert title == "answer / dead end: 2.00 after one step, 2.00 at convergence", (restart_prob, degree)


def test_restart_bars_follow_specificity():
    heights = [p.get_height() for p in explorers.restart_figure((1, 1, 2)).axes[0].patches]
    np.testing.assert_allclose(heights, [1 / 3, 1 / 3, 1 / 3, 0.4, 0.4, 0.2])


def test_break_even_moves_with_the_cost_ratio():
    title = explorers.break_even_figure(n_passages=10_000, cost_ratio=10).axes[0].get_title()
    assert title == "break-even after 2,222 queries (0.222 per passage)"
    never = explorers.break_even_figure(cost_ratio=1).axes[0].get_title()
    assert never.startswith("never breaks even")


@pytest.mark.parametrize(
    ("call", "error", "words"),
    [
        (lambda: explorers.meet_node_figure(restart_prob=1.0), InvalidValueError, "restart_prob"),
        (lambda: explorers.meet_node_figure(degree=1), InvalidValueError, "degree"),
        (lambda: explorers.meet_node_figure(degree=2.5), InvalidTypeError, "degree"),
        (lambda: explorers.restart_figure((3,)), InvalidValueError, "2 or 3 seeds"),
        (lambda: explorers.restart_figure((3, 0)), InvalidValueError, "counts[1]"),
        (lambda: explorers.defeat_figure(hops=2, decoy_hops=2), InvalidValueError, "decoy_hops"),
        (lambda: explorers.break_even_figure(n_passages=0), InvalidValueError, "n_passages"),
    ],
)
def test_bad_input_names_the_value(call, error, words):
    with pytest.raises(error, match=words.replace("[", r"\[").replace("]", r"\]")):
        call()
