"""Explorers: a notebook's numbers behind sliders, one function per explorer.

Each explorer is two functions. ``*_figure`` takes the explorer's parameters and returns a
:class:`matplotlib.figure.Figure` built with the package's own functions; it touches no global state
(no pyplot), so a test can call it and a notebook can display it. ``interactive_*`` puts sliders on
it with :func:`ipywidgets.interact` in a live notebook.

Where no kernel will ever move a slider (the book, built by ``tools/build_course.py``, which sets
``PATHFINDING_STATIC_EXPLORERS=1``), ``interactive_*`` shows its twin from
:mod:`pathfinding.course.page_explorers` instead: the same numbers computed over the slider grid
before the page is written, switched in the browser by Bokeh, so the sliders work in the page with
no kernel. Without Bokeh (or without ipywidgets, in a kernel) it shows the default state as a picture.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

import numpy as np
from matplotlib.figure import Figure

from pathfinding._validation import check_float, check_int
from pathfinding.errors import InvalidValueError, ValidationError

__all__ = [
    "STATIC_ENV",
    "meet_node_figure",
    "restart_figure",
    "defeat_figure",
    "break_even_figure",
    "interactive_meet_node",
    "interactive_restart",
    "interactive_defeat",
    "interactive_break_even",
]

STATIC_ENV = "PATHFINDING_STATIC_EXPLORERS"
"""Environment variable: ``1`` makes every ``interactive_*`` show its default state as a picture."""


def meet_node_figure(*, restart_prob: float = 0.5, degree: int = 9) -> Figure:
    """The two stars' answer and dead end after one step and at convergence, and their ratio.

    Parameters
    ----------
    restart_prob : float, default 0.5
        The walk's restart probability, in (0, 1).
    degree : int, default 9
        Degree of each seed of :func:`~pathfinding.synthetic.toy.star_pair` (``>= 2``, so a dead end exists).

    Returns
    -------
    matplotlib.figure.Figure
        Left, the stars drawn with their stationary mass; right, the answer's and a dead end's mass
        after one step and at convergence, with the ratio of the two written above each pair.

    Raises
    ------
    InvalidValueError, InvalidTypeError
        If ``restart_prob`` is not in (0, 1) or ``degree`` is not an integer of at least 2.

    Examples
    --------
    >>> fig = meet_node_figure(restart_prob=0.5, degree=9)
    >>> fig.axes[1].get_title()
    'answer / dead end: 2.00 after one step, 2.00 at convergence'
    """
    from pathfinding.core.ppr import personalized_pagerank
    from pathfinding.course.draw import draw_instance
    from pathfinding.synthetic.toy import star_pair

    restart_prob = check_float("restart_prob", restart_prob, low=0.0, high=1.0, low_open=True, high_open=True)
    degree = check_int("degree", degree, low=2, high=1000)
    toy = star_pair(degree)
    dead = int(toy.candidates[toy.candidates != toy.answer][0])
    one = personalized_pagerank(toy.graph, toy.seeds, restart_prob=restart_prob, tol=0, max_iter=1)
    pi = personalized_pagerank(toy.graph, toy.seeds, restart_prob=restart_prob, tol=1e-12)

    fig = Figure(figsize=(11, 4.2), layout="constrained")
    ax_graph, ax_bars = fig.subplots(1, 2, width_ratios=[1.2, 1])
    draw_instance(toy, pi, ax=ax_graph, labels="key", title=f"star_pair({degree}), stationary mass")
    x = np.arange(2)
    for off, node, label, colour in (
        (-0.2, toy.answer, "answer a", "#dd8452"),
        (0.2, dead, "dead end", "#4c72b0"),
    ):
        bars = ax_bars.bar(x + off, [one[node], pi[node]], width=0.38, label=label, color=colour)
        ax_bars.bar_label(bars, fmt="%.4f", fontsize=8)
    ratios = one[toy.answer] / one[dead], pi[toy.answer] / pi[dead]
    ax_bars.set_xticks(x, ["after one step", "stationary"])
    ax_bars.set_ylabel("PPR mass")
    ax_bars.set_ylim(0, 1.2 * max(one[toy.answer], pi[toy.answer]))
    ax_bars.set_title(
        f"answer / dead end: {ratios[0]:.2f} after one step, {ratios[1]:.2f} at convergence", fontsize=10
    )
    ax_bars.legend(fontsize=8, loc="upper right")
    return fig


def restart_figure(counts: Sequence[int] = (20, 5)) -> Figure:
    """The restart vector over two or three seeds, without and with specificity ``s_i = 1/|P_i|``.

    Parameters
    ----------
    counts : sequence of int, default (20, 5)
        ``|P_i|``: the number of passages each seed was extracted from (two or three seeds, each ``>= 1``).

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    InvalidValueError, InvalidTypeError
        If there are not two or three counts, or a count is not a positive integer.

    Examples
    --------
    >>> fig = restart_figure((20, 5))
    >>> [round(float(p.get_height()), 2) for p in fig.axes[0].patches]
    [0.5, 0.5, 0.2, 0.8]
    """
    from pathfinding.course.diagrams import draw_restart_bars

    counts = [check_int(f"counts[{i}]", c, low=1, high=10**9) for i, c in enumerate(counts)]
    if len(counts) not in (2, 3):
        raise InvalidValueError(f"counts must hold the passage counts of 2 or 3 seeds, got {len(counts)}")
    fig = Figure(figsize=(5.6, 3.6), layout="constrained")
    ax = fig.subplots()
    draw_restart_bars(counts, names=tuple(f"seed {i + 1}" for i in range(len(counts))), ax=ax)
    ax.set_title("restart mass per seed", fontsize=10)
    return fig


def defeat_figure(
    *, hops: int = 2, bridge_branching: int = 0, decoy_hops: int = 0, hub_passages: int = 0
) -> Figure:
    """One generated instance with notebook 4's knobs, drawn with its PPR mass and the answer's rank.

    Parameters
    ----------
    hops : int, default 2
        Facts between each seed and the answer.
    bridge_branching : int, default 0
        Leaves on every interior bridge node (see :func:`~pathfinding.synthetic.instances.make_instance`).
    decoy_hops : int, default 0
        Length of the decoy's chains; 0 means no decoy, otherwise ``1 <= decoy_hops < hops``.
    hub_passages : int, default 0
        Extra passages that make the first seed a hub.

    Returns
    -------
    matplotlib.figure.Figure
        The instance (the generator's ``rng=0``) under PPR with specificity; the title gives the
        answer's rank among the candidates.

    Raises
    ------
    InvalidValueError, InvalidTypeError
        As :func:`~pathfinding.synthetic.instances.make_instance`, for example a decoy no shorter than
        the bridge.

    Examples
    --------
    >>> defeat_figure(hops=3, decoy_hops=1).axes[0].get_title()
    "the answer's rank under PPR: 2 of 18"
    """
    from pathfinding.core.scoring import rank_of
    from pathfinding.course.draw import draw_instance
    from pathfinding.synthetic.instances import make_instance
    from pathfinding.synthetic.rankers import RANKERS

    decoy_hops = check_int("decoy_hops", decoy_hops, low=0, high=10**6)
    inst = make_instance(
        hops,
        bridge_branching=bridge_branching,
        decoy_hops=decoy_hops or None,
        hub_passages=hub_passages,
        rng=0,
    )
    pi = RANKERS["ppr"](inst)
    rank = rank_of(pi, inst.answer, inst.candidates)
    fig = Figure(figsize=(8, 6.4), layout="constrained")
    ax = fig.subplots()
    draw_instance(inst, pi, ax=ax, title=f"the answer's rank under PPR: {rank:g} of {len(inst.candidates)}")
    return fig


def break_even_figure(
    *, n_passages: int = 10_000, cost_ratio: float = 20.0, openie_calls_per_passage: float = 2.0
) -> Figure:
    """HippoRAG's bill (index once, one NER call per query) against an iterative retriever's.

    Parameters
    ----------
    n_passages : int, default 10,000
        Corpus size.
    cost_ratio : float, default 20
        What one iterative query costs in query-NER calls (the paper's 10-30x; HippoRAG's own query
        costs one). The iterative retriever takes two steps of ``cost_ratio / 2`` each.
    openie_calls_per_passage : float, default 2
        LLM calls per passage at indexing time.

    Returns
    -------
    matplotlib.figure.Figure
        Both bills against the number of queries, log-log, with the break-even marked.

    Raises
    ------
    InvalidValueError, InvalidTypeError
        If a count is negative or not finite.

    See Also
    --------
    pathfinding.course.costs.break_even_queries

    Examples
    --------
    >>> break_even_figure(n_passages=10_000, cost_ratio=20).axes[0].get_title()
    'break-even after 1,053 queries (0.105 per passage)'
    """
    from pathfinding.course.costs import (
        CostModel,
        break_even_queries,
        iterative_calls,
        offline_calls,
        online_calls,
    )

    n_passages = check_int("n_passages", n_passages, low=1, high=10**12)
    cost_ratio = check_float("cost_ratio", cost_ratio, low=0.0, high=np.inf, high_open=True)
    model = CostModel(
        openie_calls_per_passage=openie_calls_per_passage, steps_per_query=2, step_cost=cost_ratio / 2
    )
    q_star = float(break_even_queries(n_passages, model))
    top = max(1e6, 10 * q_star) if np.isfinite(q_star) else 1e6
    queries = np.logspace(0, np.log10(top), 200)
    fig = Figure(figsize=(7, 4), layout="constrained")
    ax = fig.subplots()
    ax.loglog(
        queries,
        offline_calls(n_passages, model) + online_calls(queries, model),
        label=f"HippoRAG: {openie_calls_per_passage:g} OpenIE calls per passage once, 1 per query",
    )
    ax.loglog(
        queries, iterative_calls(queries, model), label=f"iterative retriever: {cost_ratio:g} per query"
    )
    ax.set(xlabel="queries", ylabel="LLM calls (call-equivalents)")
    if np.isfinite(q_star):
        ax.axvline(q_star, color="grey", ls=":")
        ax.set_title(
            f"break-even after {q_star:,.0f} queries ({q_star / n_passages:.3g} per passage)", fontsize=10
        )
    else:
        ax.set_title("never breaks even: an iterative query costs no more than HippoRAG's", fontsize=10)
    ax.legend(fontsize=8)
    return fig


# Sliders as (min, max, step, default), so the static path needs no ipywidgets.
_Slider = tuple[float, float, float, float]


def _explore(figure: Callable[..., Figure], sliders: dict[str, _Slider], page: str) -> None:
    """Show ``figure`` under sliders in a live notebook, or ``page``'s in-page explorer, or a picture.

    ``page`` names the function of :mod:`pathfinding.course.page_explorers` that builds the explorer
    a static page runs without a kernel.
    """
    from IPython.display import display

    def draw(**values):
        try:
            return figure(**values)
        except ValidationError as err:  # a slider combination the generator rejects: say why
            print(f"Not a valid setting: {err}")
            return None

    defaults = {name: spec[3] for name, spec in sliders.items()}
    try:
        import ipywidgets
    except ImportError:
        ipywidgets = None
        print("ipywidgets is not installed (it comes with the `notebooks` extra): showing the default state.")
    static = os.environ.get(STATIC_ENV, "") not in ("", "0")
    if static:
        from pathfinding.course import page_explorers

        try:
            import bokeh  # noqa: F401
        except ImportError:
            print("Bokeh is not installed (it comes with the `course` extra): showing the default state.")
        else:
            display(getattr(page_explorers, page)())
            return
    if ipywidgets is None or static:
        fig = draw(**defaults)
        if fig is not None:
            display(fig)
        return
    widgets = {}
    for name, (low, high, step, value) in sliders.items():
        kind = (
            ipywidgets.IntSlider
            if all(float(v).is_integer() for v in (low, high, step, value))
            else ipywidgets.FloatSlider
        )
        widgets[name] = kind(value=value, min=low, max=high, step=step, description=name,
                             continuous_update=False, style={"description_width": "initial"})  # fmt: skip
    ipywidgets.interact(draw, **widgets)


def interactive_meet_node() -> None:
    """Sliders for :func:`meet_node_figure`: restart probability and the seeds' degree."""
    _explore(
        meet_node_figure, {"restart_prob": (0.05, 0.95, 0.05, 0.5), "degree": (2, 40, 1, 9)}, "meet_node_page"
    )


def interactive_restart() -> None:
    """Sliders for :func:`restart_figure`: the passage counts of two seeds and, if above 0, a third.

    The third seed starts in 10 passages, so the default picture is not notebook 2's two-seed example.
    """

    def figure(*, seed_1, seed_2, seed_3):
        return restart_figure([c for c in (seed_1, seed_2, seed_3) if c > 0])

    counts = {"seed_1": (1, 100, 1, 20), "seed_2": (1, 100, 1, 5), "seed_3": (0, 100, 1, 10)}
    _explore(figure, counts, "restart_page")


def interactive_defeat() -> None:
    """Sliders for :func:`defeat_figure`: hops, bridge branching, decoy depth (0: none), hub passages."""
    _explore(
        defeat_figure,
        {
            "hops": (2, 4, 1, 2),
            "bridge_branching": (0, 6, 1, 0),
            "decoy_hops": (0, 3, 1, 0),
            "hub_passages": (0, 256, 8, 0),
        },
        "defeat_page",
    )


def interactive_break_even() -> None:
    """Sliders for :func:`break_even_figure`: corpus size and what an iterative query costs."""
    _explore(
        break_even_figure,
        {"n_passages": (1_000, 100_000, 1_000, 10_000), "cost_ratio": (1, 40, 1, 20)},
        "break_even_page",
    )
