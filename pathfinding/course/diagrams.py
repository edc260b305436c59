"""Figures of the chapter's steps that are not a graph drawing.

* Step 1 (brain to component) and Step 8 (the two pipelines) as boxes and arrows, each box naming the
  module of this package that implements the component, so the figure doubles as a map of the code;
* Step 3's matrix P as a heat map beside the passage scores pi . P;
* Step 5's restart vector before and after node specificity;
* the whole pipeline as one strip, with the steps a notebook teaches highlighted, so every notebook
  opens with where it sits;
* an explained ranking: each passage's score split by the seed its mass came from, and the nodes the
  best one came through, each split the same way.

Plain matplotlib: deterministic, byte-stable as PNG. Graph drawings live in :mod:`pathfinding.course.draw`.
"""

from __future__ import annotations

import numpy as np

from pathfinding._validation import as_csr, check_vector
from pathfinding.errors import InvalidValueError

__all__ = [
    "BRAIN_MAP",
    "OFFLINE_STEPS",
    "ONLINE_STEPS",
    "PIPELINE_STEPS",
    "draw_brain_map",
    "draw_explanation",
    "draw_matrix_p",
    "draw_pipeline_position",
    "draw_pipelines",
    "draw_restart_bars",
]

OFFLINE_STEPS = (
    ("passages", "the corpus", "hipporag.io.load_corpus"),
    ("LLM OpenIE", "2 calls per passage:\nNER, then triples\n(released GPT-3.5)", "hipporag.io.load_openie"),
    (
        "knowledge graph",
        "phrase nodes,\nrelation edges\n(weight = #triples)",
        "hipporag.index.build.build_index",
    ),
    (
        "synonymy edges",
        "between phrases\nwhose cosine\n$\\geq \\tau = 0.8$",
        "hipporag.index.build.cosine_neighbours",
    ),
    ("matrix P and $s_i$", "node x passage\ncounts, $s_i = 1/|P_i|$", "core.specificity.node_specificity"),
)
"""Offline indexing: (title, what it holds, module that implements it)."""

ONLINE_STEPS = (
    ("query", "the question", "-"),
    ("NER", "query entities", "hipporag.retrieval.linking.EXTRACTORS"),
    ("linking", "nearest node\nby cosine", "hipporag.retrieval.linking.link_entities"),
    ("$R_q$, $s_i$", "restart vector", "core.specificity.restart_vector"),
    ("PPR", "walk from\nthe seeds", "core.ppr.personalized_pagerank"),
    ("$\\pi P$", "passage scores", "core.scoring.passage_scores"),
    ("top-k", "passages to the\nreader LLM", "hipporag.retrieval.retrieve.HippoRetriever"),
)
"""Online retrieval: (title, what it holds, module that implements it)."""

BRAIN_MAP = (
    (
        "neocortex",
        # In the theory the neocortex holds the memories themselves; here that is the passage store.
        "LLM: OpenIE offline (NER, then triples),\nNER online; the passage store holds\n"
        "the content (the memories themselves)",
        "hipporag.io.load_openie (released triples)\nhipporag.retrieval.linking.EXTRACTORS (offline NER)\n"
        "hipporag.io.load_corpus (the passage store)",
        "#c6dbef",
    ),
    (
        "parahippocampal regions",
        "retrieval encoder: synonymy edges\nand query-to-node linking",
        "hipporag.index.encoder.CharNgramEncoder\nhipporag.index.build.cosine_neighbours\nhipporag.retrieval.linking.link_entities",
        "#d9f0d3",
    ),
    (
        "hippocampus (the index)",
        "knowledge graph + Personalized PageRank:\nstores no passage text, only phrases and\n"
        "pointers to passages (P); completes patterns",
        "hipporag.index.model.HippoIndex\ncore.ppr.personalized_pagerank\ncore.scoring.passage_scores",
        "#fde0c5",
    ),
)
"""Step 1: (brain region, HippoRAG component, modules here, colour)."""


def _box(ax, x, y, w, h, title, body, module, colour):
    from matplotlib.patches import FancyBboxPatch

    ax.add_patch(
        FancyBboxPatch(
            (x - w / 2, y - h / 2),
            w,
            h,
            boxstyle="round,pad=0.02,rounding_size=0.06",
            fc=colour,
            ec="#444444",
            lw=1.0,
        )  # fmt: skip
    )
    ax.text(x, y + h * 0.34, title, ha="center", va="center", fontsize=10.5, fontweight="bold")
    ax.text(x, y + h * 0.04, body, ha="center", va="center", fontsize=9, linespacing=1.1)
    if module and module != "-":
        # "package.module.function" on two lines: boxes stay narrow and the name stays whole.
        head, _, tail = module.rpartition(".")
        if len(tail) > 18:  # a long name breaks after an underscore, so it stays inside its box
            cut = tail.rfind("_", 0, len(tail) // 2 + 4) + 1
            tail = f"{tail[:cut]}\n{tail[cut:]}" if cut else tail
        ax.text(x, y - h * 0.33, f"{head}.\n{tail}", ha="center", va="center", fontsize=8,
                family="monospace", color="#1f3d7a", linespacing=1.1)  # fmt: skip


def _arrow(ax, x0, y0, x1, y1, **kw):
    ax.annotate("", xy=(x1, y1), xytext=(x0, y0),
                arrowprops={"arrowstyle": "-|>", "color": "#444444", "lw": 1.2, **kw})  # fmt: skip


def draw_pipelines(*, ax=None):
    """Step 8: offline indexing (top row) and online retrieval (bottom row), module under each box.

    Returns
    -------
    matplotlib Axes
    """
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(10.5, 5.6), layout="constrained")
    h = 1.45
    rows = (
        (OFFLINE_STEPS, 2.3, "#e8eef8", "offline indexing (once per corpus)"),
        (ONLINE_STEPS, 0.0, "#fdf0e2", "online retrieval (per question, no LLM after NER)"),
    )
    for steps, y, colour, label in rows:
        gap = 13.6 / len(steps)
        xs = [gap * (i + 0.5) for i in range(len(steps))]
        width = gap * 0.84
        for x, (title, body, module) in zip(xs, steps, strict=True):
            _box(ax, x, y, width, h, title, body, module, colour)
        for a, b in zip(xs[:-1], xs[1:], strict=True):
            _arrow(ax, a + width / 2, y, b - width / 2, y)
        ax.text(0.0, y + h / 2 + 0.18, label, fontsize=9.5, fontweight="bold", va="bottom")
    # The online walk runs on what the offline side built: the graph and P.
    _arrow(ax, 13.6 * 4.5 / 5, 2.3 - h / 2, 13.6 * 4.5 / 7, 0.0 + h / 2, linestyle="--", color="#8c6d31")
    ax.text(13.6 * 0.78 + 0.1, 1.15, "graph, $P$ and $s_i$", fontsize=8.5, color="#8c6d31")
    ax.set_xlim(-0.2, 13.8)
    ax.set_ylim(-0.8, 3.4)
    ax.set_axis_off()
    return ax


def _plain_box(ax, x, y, w, h, text, colour, *, bold=False):
    from matplotlib.patches import FancyBboxPatch

    ax.add_patch(
        FancyBboxPatch(
            (x - w / 2, y - h / 2),
            w,
            h,
            boxstyle="round,pad=0.02,rounding_size=0.06",
            fc=colour,
            ec="#444444",
            lw=1.0,
        )  # fmt: skip
    )
    ax.text(x, y, text, ha="center", va="center", fontsize=10, fontweight="bold" if bold else "normal")


def draw_brain_map(*, ax=None):
    """Step 1: each brain region of hippocampal indexing theory, its HippoRAG component, and our module.

    Returns
    -------
    matplotlib Axes
    """
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(10.5, 4.2), layout="constrained")
    for i, (region, component, modules, colour) in enumerate(BRAIN_MAP):
        y = 2.6 - 1.25 * i
        _plain_box(ax, 0.0, y, 2.6, 0.7, region, colour, bold=True)
        _arrow(ax, 1.35, y, 2.45, y, arrowstyle="<|-|>")
        _plain_box(ax, 4.3, y, 3.6, 0.9, component, colour)
        ax.text(6.4, y, modules, ha="left", va="center", fontsize=8.5, family="monospace", color="#1f3d7a")
    ax.text(0.0, 3.4, "brain (hippocampal indexing theory)", ha="center", fontsize=9.5, fontweight="bold")
    ax.text(4.3, 3.4, "HippoRAG component", ha="center", fontsize=9.5, fontweight="bold")
    ax.text(6.4, 3.4, "where it lives in this package", ha="left", fontsize=9.5, fontweight="bold")
    ax.set_xlim(-1.5, 10.5)
    ax.set_ylim(-0.6, 3.7)
    ax.set_axis_off()
    return ax


def draw_matrix_p(mentions, pi, *, node_names=None, passage_labels=None, highlight=(), axes=None):
    """The count matrix P as a heat map, beside the passage scores pi . P as bars.

    Parameters
    ----------
    mentions : sparse matrix or array_like, shape (n_nodes, n_passages)
    pi : array_like of float, shape (n_nodes,)
    node_names, passage_labels : sequence of str, optional
    highlight : sequence of int
        Passage ids whose bars are drawn in the answer's colour.
    axes : pair of matplotlib Axes, optional

    Returns
    -------
    (Axes, Axes)
    """
    from pathfinding.core.scoring import passage_scores

    P = as_csr("mentions", mentions)
    n, m = P.shape
    pi = check_vector("pi", pi, n)
    scores = passage_scores(pi, P)
    if axes is None:
        import matplotlib.pyplot as plt

        _, axes = plt.subplots(
            1, 2, figsize=(11, 0.28 * max(n, m) + 2.2), width_ratios=[1, 1.2], layout="constrained"
        )
    ax_p, ax_b = axes
    ax_p.imshow(P.toarray(), cmap="Blues", aspect="auto", vmin=0, interpolation="nearest")
    # Tick labels at 9 pt: a course figure is scaled down to the page's column, and 7 pt is unreadable.
    ax_p.set_xticks(np.arange(m), [f"p{j}" for j in range(m)], fontsize=9, rotation=90)
    ax_p.set_yticks(np.arange(n), node_names if node_names is not None else np.arange(n), fontsize=9)
    ax_p.set_xlabel("passage j")
    ax_p.set_title(r"$P_{ij}$: node $i$ is mentioned in passage $j$", fontsize=10)
    colours = ["#dd8452" if j in set(highlight) else "#4c72b0" for j in range(m)]
    ax_b.barh(np.arange(m), scores, color=colours)
    names = [f"p{j}" for j in range(m)]
    if passage_labels is not None:
        names = [f"p{j}: {text[:44]}" for j, text in enumerate(passage_labels)]
    ax_b.set_yticks(np.arange(m), names, fontsize=9)
    ax_b.invert_yaxis()
    ax_b.set_xlabel(r"$(\pi P)_j$: the mass of the nodes passage $j$ mentions")
    ax_b.set_title(r"$\pi P$: what the retriever ranks", fontsize=10)
    return ax_p, ax_b


def draw_restart_bars(counts=(20, 5), *, names=("seed 1", "seed 2"), ax=None):
    """The restart vector over the seeds without and with specificity s_i = 1/|P_i|, as grouped bars.

    Returns
    -------
    matplotlib Axes
    """
    from pathfinding.core.specificity import restart_vector, specificity_from_counts

    k = len(counts)
    if len(names) != k:
        raise InvalidValueError(f"need one name per count ({k}), got {len(names)}")
    plain = restart_vector(k, np.arange(k))
    weighted = restart_vector(k, np.arange(k), specificity=specificity_from_counts(counts))
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(5.2, 3.4), layout="constrained")
    x = np.arange(k)
    for off, vals, label, colour in ((-0.2, plain, "without specificity", "#bbbbbb"),
                                     (0.2, weighted, "with s_i = 1/|P_i|", "#4c72b0")):  # fmt: skip
        bars = ax.bar(x + off, vals, width=0.38, label=label, color=colour, edgecolor="black")
        ax.bar_label(bars, fmt="%.2f", fontsize=8)
    ax.set_xticks(x, [f"{nm}\n|P| = {c}" for nm, c in zip(names, counts, strict=True)])
    ax.set_ylabel("restart probability")
    ax.set_ylim(0, 1)
    ax.legend(fontsize=8)
    return ax


PIPELINE_STEPS = (
    ("passages", "passages", "offline"),
    ("triples", "OpenIE\ntriples", "offline"),
    ("nodes", "nodes +\nrelation edges", "offline"),
    ("synonymy", "synonymy\nedges", "offline"),
    ("P", "count\nmatrix P", "offline"),
    ("entities", "query\nentities", "online"),
    ("seeds", "seeds $R_q$\n(linking)", "online"),
    ("specificity", "specificity\n$s_i = 1/|P_i|$", "online"),
    ("PPR", "Personalized\nPageRank", "online"),
    ("scores", "passage\nscores $\\pi \\cdot P$", "online"),
)
"""The one small corpus's route, step by step: (key, label, offline or online)."""


def draw_pipeline_position(step, *, ax=None):
    """The whole pipeline as one strip, with the steps a notebook teaches highlighted.

    Parameters
    ----------
    step : str or sequence of str
        Keys of :data:`PIPELINE_STEPS` (``"passages"``, ``"triples"``, ``"nodes"``, ``"synonymy"``,
        ``"P"``, ``"entities"``, ``"seeds"``, ``"specificity"``, ``"PPR"``, ``"scores"``), or
        ``"all"``.
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes

    Raises
    ------
    InvalidValueError
        If a step is not a key of :data:`PIPELINE_STEPS`, or no step is given.

    Examples
    --------
    >>> ax = draw_pipeline_position(["specificity", "PPR"])
    >>> sum(t.get_text() == "this notebook" for t in ax.texts)
    2
    """
    keys = [key for key, _, _ in PIPELINE_STEPS]
    wanted = [step] if isinstance(step, str) else list(step)
    if wanted == ["all"]:
        wanted = keys
    unknown = [s for s in wanted if s not in keys]
    if unknown or not wanted:
        raise InvalidValueError(f"step must be 'all' or some of {keys}, got {step!r}")
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(12, 1.9), layout="constrained")
    # Offline boxes on the left, online on the right, one row: the order a passage's facts travel.
    w, gap = 1.2, 0.16
    colours = {"offline": ("#c6dbef", "#eef3f9"), "online": ("#fdd0a2", "#fdf3ea")}
    for i, (key, label, side) in enumerate(PIPELINE_STEPS):
        x = i * (w + gap) + (0.35 if side == "online" else 0.0)
        on = key in wanted
        _plain_box(ax, x, 0.0, w, 0.95, "", colours[side][0 if on else 1])
        ax.text(x, 0.0, label, ha="center", va="center", fontsize=9,
                fontweight="bold" if on else "normal", color="black" if on else "#777777")  # fmt: skip
        if on:
            ax.text(x, -0.56, "this notebook", ha="center", va="top", fontsize=9, color="#444444")
        if i + 1 < len(PIPELINE_STEPS):
            nxt = (i + 1) * (w + gap) + (0.35 if PIPELINE_STEPS[i + 1][2] == "online" else 0.0)
            _arrow(ax, x + w / 2, 0.0, nxt - w / 2, 0.0, lw=0.9)
    online_x = 5 * (w + gap) + 0.35
    ax.text(-w / 2, 0.66, "offline: once per corpus", fontsize=9, fontweight="bold", color="#1f3d7a")
    ax.text(online_x - w / 2, 0.66, "online: per question", fontsize=9, fontweight="bold", color="#8c4a08")
    ax.set_xlim(-w / 2 - 0.05, 9 * (w + gap) + 0.35 + w / 2 + 0.05)
    ax.set_ylim(-0.8, 0.95)
    ax.set_axis_off()
    return ax


_SOURCE_COLOURS = ("#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860", "#da8bc3", "#8c8c8c")


def draw_explanation(why, *, passages: int = 5, nodes: int = 4, focus: int = 0, axes=None):
    """An explained ranking as stacked bars: left, each ranked passage's score split by source; right,
    the best nodes of the passage at rank ``focus + 1``, each bar the mass it brings split the same
    way (which seed's mass, through which node). ``why`` is an
    :class:`~pathfinding.hipporag.retrieval.explain.Explanation`.

    Returns
    -------
    numpy.ndarray of matplotlib Axes
        The two panels.
    """
    if not why.passages:
        raise InvalidValueError("the explanation ranks no passage: nothing to draw")
    shown = why.passages[:passages]
    sources = list(dict.fromkeys(p.source for pe in shown for p in pe.parts))
    colour = {src: _SOURCE_COLOURS[i % len(_SOURCE_COLOURS)] for i, src in enumerate(sources)}
    if axes is None:
        import matplotlib.pyplot as plt

        _, axes = plt.subplots(1, 2, figsize=(11, 0.9 + 0.55 * max(len(shown), nodes)), layout="constrained")
    left, right = axes
    for row, pe in enumerate(shown):
        start = 0.0
        for part in pe.parts:
            if part.score > 0:
                left.barh(row, part.score, left=start, color=colour[part.source], edgecolor="white")
                start += part.score
    left.set_yticks(range(len(shown)), [_short(pe.title or f"passage {pe.passage}") for pe in shown])
    left.invert_yaxis()
    left.set_xlabel("score, by source")
    left.set_title("Each passage's score,\nsplit by the seed whose mass it is")
    if not 0 <= focus < len(shown):
        raise InvalidValueError(f"focus must be a rank shown, 0 to {len(shown) - 1}, got {focus!r}")
    top = shown[focus]
    via = top.via[:nodes]
    for row, v in enumerate(via):
        start = 0.0
        for src, mass in v.parts.items():
            if mass > 0:
                right.barh(row, mass, left=start, color=colour.get(src, "#cccccc"), edgecolor="white")
                start += mass
    right.set_yticks(range(len(via)), [f"{_short(v.node, 28)} (x{v.count:g})" for v in via])
    right.invert_yaxis()
    right.set_xlabel("mass each node brings, by source")
    title = _short(top.title or f"passage {top.passage}", 30)
    right.set_title(f"Rank {focus + 1} came through:\n{title}")
    from matplotlib.patches import Patch

    handles = [Patch(color=colour[s], label=_short(s, 40)) for s in sources]
    right.legend(handles=handles, fontsize=9, loc="lower right")
    return axes


def _short(text: str, width: int = 40) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
