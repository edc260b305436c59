"""The explorers in a page with no kernel: every value computed over the slider grid, switched in the browser.

A static page cannot run Python, so a slider there can only choose among answers computed before.
Each ``*_page`` function computes, with the same package calls as its kernel twin in
:mod:`pathfinding.course.explorers`, the numbers of every setting on a grid of slider values, and
returns a :class:`PageExplorer`: a Bokeh layout whose sliders, through a small JavaScript callback,
switch the bars, lines and the line of text to the precomputed setting. Jupyter shows it as HTML
with BokehJS inline, so it works offline and with no server. The course book ships one copy of
BokehJS for all its pages instead (:data:`BOKEHJS_ENV`, :func:`bokehjs_files`): inline, every
explorer page would carry its own 1.6 MB copy.

The grids are the kernel sliders' ranges, coarser where a full grid would make the page heavy
(:data:`GRIDS`). Bokeh is imported only when a page explorer is built (it comes with the ``course``
extra).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

from pathfinding.errors import InvalidValueError, ValidationError

__all__ = [
    "BOKEHJS_COMPONENTS",
    "BOKEHJS_ENV",
    "GRIDS",
    "PageExplorer",
    "bokehjs_files",
    "break_even_page",
    "defeat_page",
    "meet_node_page",
    "restart_page",
]

BOKEHJS_ENV = "PATHFINDING_BOKEHJS"
"""Environment variable: ``page`` when the page that shows an explorer loads BokehJS itself (the
course book, ``tools/build_course.py``); unset or anything else, BokehJS is inline in the explorer's
HTML, so it works on its own."""

BOKEHJS_COMPONENTS = ("bokeh", "bokeh-widgets")
"""The BokehJS bundles an explorer needs (the plot and the sliders)."""


def bokehjs_files() -> list[Path]:
    """The installed Bokeh's minified bundles of :data:`BOKEHJS_COMPONENTS`, in loading order.

    A page that sets :data:`BOKEHJS_ENV` to ``page`` must load these (the same Bokeh version as the
    Python side that embedded the explorer) before its explorers' scripts run.
    """
    from bokeh.util.paths import bokehjs_path

    return [Path(bokehjs_path()) / "js" / f"{name}.min.js" for name in BOKEHJS_COMPONENTS]

GRIDS = {
    "meet_node": {"restart_prob": (0.05, 0.95, 0.05, 0.5), "degree": (2, 40, 1, 9)},
    "restart": {"seed_1": (1, 30, 1, 20), "seed_2": (1, 30, 1, 5), "seed_3": (0, 30, 5, 10)},
    "defeat": {
        "hops": (2, 4, 1, 2),
        "bridge_branching": (0, 6, 1, 0),
        "decoy_hops": (0, 3, 1, 0),
        "hub_passages": (0, 256, 32, 0),
    },
    "break_even": {"n_passages": (1_000, 100_000, 1_000, 10_000), "cost_ratio": (1, 40, 1, 20)},
}
"""Each page explorer's sliders as (min, max, step, default), in the order of its flat index."""

# The callback's first lines, shared: the flat index of the sliders' current setting (row-major in
# the order of GRIDS), which picks the precomputed answer.
_INDEX_JS = """
let k = 0;
for (const s of sliders) {
  k = k * (Math.round((s.end - s.start) / s.step) + 1) + Math.round((s.value - s.start) / s.step);
}
"""


def _values(spec) -> np.ndarray:
    low, high, step, _ = spec
    return np.round(np.arange(low, high + step / 2, step), 10)


def _settings(grid: dict) -> list[dict]:
    """Every setting of ``grid``, in the flat order of :data:`_INDEX_JS`."""
    names = list(grid)
    axes = [_values(grid[n]) for n in names]
    mesh = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, len(names))
    return [{n: (int(v) if float(v).is_integer() else float(v)) for n, v in zip(names, row, strict=True)}
            for row in mesh]  # fmt: skip


def _flat_index(grid: dict, setting: dict) -> int:
    """The flat index of ``setting`` (a value for every slider of ``grid``), row-major as :data:`_INDEX_JS`.

    Raises
    ------
    InvalidValueError
        If a value is not on its slider's grid.
    """
    k = 0
    for name, spec in grid.items():
        values = _values(spec)
        hit = np.flatnonzero(np.isclose(values, setting[name]))
        if hit.size != 1:
            raise InvalidValueError(f"{name} = {setting[name]!r} is not on the grid {spec[:3]}")
        k = k * values.size + int(hit[0])
    return k


class PageExplorer:
    """A Bokeh layout shown as self-contained HTML (BokehJS inline), so a static page can run it.

    Parameters
    ----------
    layout : bokeh layout
    name : str
        The key of its grid in :data:`GRIDS`.
    frames : list of dict
        What was precomputed for each slider setting, in the flat order the page's callback uses.

    Attributes
    ----------
    settings : int
        How many slider settings were precomputed.
    """

    def __init__(self, layout, *, name: str, frames: list):
        self.layout, self.name, self.frames = layout, name, frames
        self.settings = len(frames)

    def at(self, **setting) -> dict:
        """What the page shows at ``setting`` (every slider named, each on its grid).

        Raises
        ------
        InvalidValueError
            If a slider is missing or unknown, or its value is not on the grid.
        """
        grid = GRIDS[self.name]
        if set(setting) != set(grid):
            raise InvalidValueError(f"name every slider of {self.name} {sorted(grid)}, got {sorted(setting)}")
        return self.frames[_flat_index(grid, setting)]

    def _repr_html_(self) -> str:
        from bokeh.embed import components
        from bokeh.resources import Resources

        script, div = components(self.layout)
        js = ""
        if os.environ.get(BOKEHJS_ENV) != "page":  # the page does not load BokehJS: carry it inline
            js = Resources(mode="inline", components=list(BOKEHJS_COMPONENTS)).render_js()
        return f'<div class="pathfinding-explorer" data-explorer="{self.name}">{js}{script}{div}</div>'

    def __repr__(self) -> str:
        return f"<{self.name} explorer: {self.settings} slider settings, shown with sliders in a browser>"


def _sliders(grid: dict):
    from bokeh.models import Slider

    return [
        Slider(start=low, end=high, step=step, value=value, title=name, name=name, width=300)
        for name, (low, high, step, value) in grid.items()
    ]


def _page(name, grid, figure, readout, code: str, args: dict, frames: list) -> PageExplorer:
    """Sliders above ``figure`` and ``readout``; ``code`` runs after the flat index ``k`` is known."""
    from bokeh.layouts import column, row
    from bokeh.models import CustomJS

    sliders = _sliders(grid)
    callback = CustomJS(args={"sliders": sliders, "readout": readout, **args}, code=_INDEX_JS + code)
    for s in sliders:
        s.js_on_change("value", callback)
    # two sliders a row, so four of them fit the book's content column
    rows = [row(*sliders[i : i + 2]) for i in range(0, len(sliders), 2)]
    layout = column(*rows, readout, figure, sizing_mode="stretch_width", max_width=760)
    return PageExplorer(layout, name=name, frames=frames)


def _default_index(grid: dict) -> int:
    return _flat_index(grid, {name: spec[3] for name, spec in grid.items()})


def _readout(text: str):
    from bokeh.models import Div

    return Div(text=text, name="readout", styles={"font-size": "15px", "font-weight": "bold"})


def meet_node_page() -> PageExplorer:
    """:func:`~pathfinding.course.explorers.meet_node_figure`'s numbers for every slider setting.

    Returns
    -------
    PageExplorer
        Bars of the answer's and a dead end's mass after one step and at convergence, and their
        ratios, for every restart probability and seed degree of :data:`GRIDS`.

    Examples
    --------
    >>> page = meet_node_page()
    >>> page.settings
    741
    """
    from bokeh.models import ColumnDataSource, FactorRange
    from bokeh.plotting import figure

    from pathfinding.core.ppr import personalized_pagerank
    from pathfinding.synthetic.toy import star_pair

    grid = GRIDS["meet_node"]
    tops, texts = [], []
    for s in _settings(grid):
        toy = star_pair(s["degree"])
        dead = int(toy.candidates[toy.candidates != toy.answer][0])
        one = personalized_pagerank(toy.graph, toy.seeds, restart_prob=s["restart_prob"], tol=0, max_iter=1)
        pi = personalized_pagerank(toy.graph, toy.seeds, restart_prob=s["restart_prob"], tol=1e-12)
        tops.append([round(float(v), 6) for v in (one[toy.answer], one[dead], pi[toy.answer], pi[dead])])
        texts.append(
            f"answer / dead end: {one[toy.answer] / one[dead]:.2f} after one step, "
            f"{pi[toy.answer] / pi[dead]:.2f} at convergence (answer {pi[toy.answer]:.4f} stationary)"
        )
    k0 = _default_index(grid)
    x = [(when, who) for when in ("after one step", "stationary") for who in ("answer a", "dead end")]
    source = ColumnDataSource({"x": x, "top": tops[k0], "colour": ["#dd8452", "#4c72b0"] * 2})
    fig = figure(x_range=FactorRange(*x), height=300, sizing_mode="stretch_width", y_axis_label="PPR mass",
                 toolbar_location=None, title="star_pair(degree): the answer and a dead end")  # fmt: skip
    fig.vbar(x="x", top="top", width=0.8, color="colour", source=source)
    fig.y_range.start = 0
    code = "source.data = {...source.data, top: tops[k]}; readout.text = texts[k];"
    frames = [{"top": top, "text": text} for top, text in zip(tops, texts, strict=True)]
    args = {"source": source, "tops": tops, "texts": texts}
    return _page("meet_node", grid, fig, _readout(texts[k0]), code, args, frames)


def restart_page() -> PageExplorer:
    """The restart vector over two or three seeds, without and with specificity, for every count setting.

    Returns
    -------
    PageExplorer
        Grouped bars per seed; a third seed joins when its count is above 0.

    Examples
    --------
    >>> restart_page().settings
    6300
    """
    from bokeh.models import ColumnDataSource, FactorRange
    from bokeh.plotting import figure

    from pathfinding.core.specificity import restart_vector, specificity_from_counts

    grid = GRIDS["restart"]
    tops = []
    for s in _settings(grid):
        counts = [c for c in (s["seed_1"], s["seed_2"], s["seed_3"]) if c > 0]
        k = len(counts)
        plain = restart_vector(k, np.arange(k))
        weighted = restart_vector(k, np.arange(k), specificity=specificity_from_counts(counts))
        pairs = [(plain[i], weighted[i]) if i < k else (0, 0) for i in range(3)]
        tops.append([round(float(v), 3) for pair in pairs for v in pair])
    k0 = _default_index(grid)
    shown = [v for v in tops[k0][1::2] if v > 0]
    text = "restart with specificity: " + ", ".join(f"{v:.2f}" for v in shown)
    x = [(f"seed {i + 1}", kind) for i in range(3) for kind in ("without", "with s_i")]
    source = ColumnDataSource({"x": x, "top": tops[k0], "colour": ["#bbbbbb", "#4c72b0"] * 3})
    fig = figure(x_range=FactorRange(*x), y_range=(0, 1), height=280, sizing_mode="stretch_width",
                 y_axis_label="restart probability", toolbar_location=None,
                 title="restart mass per seed, without and with s_i = 1/|P_i|")  # fmt: skip
    fig.vbar(x="x", top="top", width=0.8, color="colour", line_color="black", source=source)
    # the line of text is the same numbers as the bars, written to two decimals
    code = """
source.data = {...source.data, top: tops[k]};
const shown = tops[k].filter((v, i) => i % 2 === 1 && v > 0);
readout.text = "restart with specificity: " + shown.map(v => v.toFixed(2)).join(", ");
"""
    frames = [{"top": top} for top in tops]
    return _page("restart", grid, fig, _readout(text), code, {"source": source, "tops": tops}, frames)


def defeat_page() -> PageExplorer:
    """Notebook 4's knobs: every candidate's PPR mass, best first, and the answer's rank, per setting.

    Returns
    -------
    PageExplorer
        One bar per candidate in rank order (the answer orange, a decoy purple); a setting the
        generator rejects says why instead.

    Examples
    --------
    >>> defeat_page().settings
    756
    """
    from bokeh.models import ColumnDataSource, Range1d
    from bokeh.plotting import figure
    from scipy.sparse.csgraph import shortest_path

    from pathfinding.core.scoring import rank_of
    from pathfinding.synthetic.instances import make_instance
    from pathfinding.synthetic.rankers import RANKERS

    grid = GRIDS["defeat"]
    frames, texts = [], []
    for s in _settings(grid):
        try:
            inst = make_instance(
                s["hops"], bridge_branching=s["bridge_branching"], decoy_hops=s["decoy_hops"] or None,
                hub_passages=s["hub_passages"], rng=0,
            )  # fmt: skip
        except ValidationError as err:
            frames.append({"x": [], "top": [], "colour": []})
            texts.append(f"Not a valid setting: {err}")
            continue
        pi = RANKERS["ppr"](inst)
        cands = inst.candidates[np.argsort(-pi[inst.candidates], kind="stable")]
        # a decoy is another candidate that every seed reaches, and sooner than the answer
        hops_to = shortest_path(inst.graph, indices=inst.seeds, unweighted=True)
        nearer = hops_to[0] < hops_to[0, inst.answer]
        decoys = {int(c) for c in cands if np.ptp(hops_to[:, c]) == 0 and nearer[c]}
        colour = ["#dd8452" if c == inst.answer else "#8172b3" if c in decoys else "#4c72b0" for c in cands]
        peak = float(pi[cands].max())
        top = [round(float(pi[c]) / peak, 5) for c in cands]
        frames.append({"x": list(range(1, cands.size + 1)), "top": top, "colour": colour})
        rank = rank_of(pi, inst.answer, inst.candidates)
        texts.append(f"the answer's rank under PPR: {rank:g} of {len(inst.candidates)}")
    k0 = _default_index(grid)
    source = ColumnDataSource(frames[k0])
    fig = figure(height=300, sizing_mode="stretch_width", toolbar_location=None, x_range=Range1d(0.4, 19.6),
                 y_range=(0, 1.05), x_axis_label="rank among the candidates (1 = best)",
                 y_axis_label="PPR mass / the best candidate's",
                 title="every candidate's mass, best first: the answer orange, a decoy purple")  # fmt: skip
    fig.vbar(x="x", top="top", width=0.8, color="colour", source=source)
    code = "source.data = frames[k]; readout.text = texts[k];"
    args = {"source": source, "frames": frames, "texts": texts}
    page = _page("defeat", grid, fig, _readout(texts[k0]), code, args, frames)
    page.frames = [{**frame, "text": text} for frame, text in zip(frames, texts, strict=True)]
    return page


def break_even_page() -> PageExplorer:
    """HippoRAG's bill against an iterative retriever's, and the break-even, for every setting.

    Returns
    -------
    PageExplorer
        Both bills against the number of queries (log-log) and the break-even marked.

    Examples
    --------
    >>> break_even_page().settings
    4000
    """
    from bokeh.models import ColumnDataSource, Span
    from bokeh.plotting import figure

    from pathfinding.course.costs import (
        CostModel,
        break_even_queries,
        iterative_calls,
        offline_calls,
        online_calls,
    )

    grid = GRIDS["break_even"]
    queries = np.logspace(0, 7, 57)
    hippo = {}
    iterative = {}
    marks, texts = [], []
    for s in _settings(grid):
        model = CostModel(openie_calls_per_passage=2.0, steps_per_query=2, step_cost=s["cost_ratio"] / 2)
        bill = offline_calls(s["n_passages"], model) + online_calls(queries, model)
        hippo.setdefault(s["n_passages"], bill)
        iterative.setdefault(s["cost_ratio"], iterative_calls(queries, model))
        q_star = float(break_even_queries(s["n_passages"], model))
        marks.append(q_star if np.isfinite(q_star) else None)
        texts.append(
            f"break-even after {q_star:,.0f} queries ({q_star / s['n_passages']:.3g} per passage)"
            if np.isfinite(q_star)
            else "never breaks even: an iterative query costs no more than HippoRAG's"
        )
    n_values, c_values = list(hippo), list(iterative)
    hippo_rows = [[float(f"{v:.4g}") for v in hippo[n]] for n in n_values]
    iter_rows = [[float(f"{v:.4g}") for v in iterative[c]] for c in c_values]
    k0 = _default_index(grid)
    i0, j0 = divmod(k0, len(c_values))
    lines = ColumnDataSource({"q": queries.tolist(), "hippo": hippo_rows[i0], "iterative": iter_rows[j0]})
    fig = figure(x_axis_type="log", y_axis_type="log", height=320, sizing_mode="stretch_width",
                 toolbar_location=None, x_axis_label="queries", y_axis_label="LLM calls (call-equivalents)",
                 title="HippoRAG: 2 OpenIE calls per passage once, 1 per query")  # fmt: skip
    fig.line("q", "hippo", source=lines, line_width=2, color="#1f77b4", legend_label="HippoRAG")
    fig.line("q", "iterative", source=lines, line_width=2, color="#ff7f0e", legend_label="iterative")
    fig.legend.location = "top_left"
    span = Span(location=marks[k0] or 1.0, dimension="height", line_dash="dotted", line_color="grey",
                visible=marks[k0] is not None)  # fmt: skip
    fig.add_layout(span)
    code = f"""
const m = {len(c_values)};
const i = Math.floor(k / m), j = k % m;
lines.data = {{...lines.data, hippo: hippo[i], iterative: iter[j]}};
span.visible = marks[k] !== null;
if (marks[k] !== null) {{ span.location = marks[k]; }}
readout.text = texts[k];
"""
    args = {"lines": lines, "hippo": hippo_rows, "iter": iter_rows, "span": span}
    args |= {"marks": marks, "texts": texts}
    frames = [{"mark": mark, "text": text} for mark, text in zip(marks, texts, strict=True)]
    return _page("break_even", grid, fig, _readout(texts[k0]), code, args, frames)


def _size(page: PageExplorer) -> int:
    """Characters of the precomputed values a page carries (for tests that keep pages light)."""
    from bokeh.embed import json_item

    return len(json.dumps(json_item(page.layout)))
