"""Pictures of the walk: layered graph drawings, mass spreading, matrix P, and :func:`show`.

Every function takes an ``ax`` (or ``axes``) and returns what it drew on, so a notebook, a test
and the command line compose the same pictures. Nothing here is random: the layout is a function
of the graph, the seeds and the answer, so two renders give the same PNG bytes
(:func:`pathfinding.experiments.plotting.save_figure`). Figures that are not a graph (matrix P, the restart
bars, the chapter's Steps 1 and 8 as boxes) live in :mod:`pathfinding.course.diagrams`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import shortest_path

from pathfinding._validation import as_csr, check_node_ids, check_vector
from pathfinding.course.marks import (
    MIN_TEXT_PX,
    STYLE,
    inked_area,
    legend_handles,
    score_colorbar,
    smallest_text_px,
)
from pathfinding.errors import InvalidValueError
from pathfinding.experiments.plotting import axes_or_new, save_figure

__all__ = [
    "draw_graph",
    "draw_instance",
    "draw_mass_spreading",
    "draw_scores_side_by_side",
    "layered_layout",
    "mass_after",
    "show",
]

_FAN = 0.8  # a chain of the seed's own depth reaches this far from the seed (the answer sits at 1)
def _symmetric_pattern(graph) -> sp.csr_array:
    A = as_csr("graph", graph, square=True)
    return sp.csr_array(((A + A.T) > 0).astype(np.float64))


def _leaf_order(children: dict[int, list[int]], root: int, touches: np.ndarray) -> tuple[list[int], dict]:
    """Leaves of the tree in drawing order, and each node's leaves.

    A node next to a shared node (the answer, say) gets a virtual leaf (a negative id) in the middle
    of its fan, and branches leading there go in the middle of their parent's fan: the bridge then
    runs straight at the answer and no dead end is drawn on top of it.
    """
    virtual = -1
    sub_touch: dict[int, bool] = {}
    post: list[int] = []
    stack = [(root, False)]
    while stack:
        v, done = stack.pop()
        if done:
            post.append(v)
            sub_touch[v] = bool(touches[v]) or any(sub_touch[c] for c in children.get(v, ()))
            continue
        stack.append((v, True))
        stack.extend((c, False) for c in children.get(v, ()))
    ordered: dict[int, list[int]] = {}
    leaves_of: dict[int, list[int]] = {}
    for v in post:
        kids = sorted(children.get(v, ()))
        plain = [c for c in kids if not sub_touch[c]]
        mid = [c for c in kids if sub_touch[c]]
        if touches[v]:
            mid.insert(len(mid) // 2, virtual)
            leaves_of[virtual] = [virtual]
            virtual -= 1
        half = (len(plain) + 1) // 2
        ordered[v] = plain[:half] + mid + plain[half:]
        leaves_of[v] = [leaf for c in ordered[v] for leaf in leaves_of[c]] if ordered[v] else [v]
    return leaves_of[root], leaves_of


def layered_layout(graph, seeds, *, answer: int | None = None) -> np.ndarray:
    """Node positions that show a path-finding graph's structure: seeds outside, answer in the middle.

    The seeds sit on a unit circle (two seeds: left and right). Every node belongs to the seed it is
    closest to, in hops relative to that seed's distance to the answer; each seed's nodes fan out from
    it in a tree drawn from its breadth-first layers (layer k at distance ``0.8 k / h`` from the seed),
    so chains are straight rays. Nodes equally close to several seeds (the answer, a decoy) are
    placed between those seeds, the answer exactly at the centre. Nodes no seed reaches form a row
    underneath. Deterministic: the same graph gives the same positions.

    Parameters
    ----------
    graph : sparse matrix or array_like, shape (n, n)
        Adjacency; edge direction and weight are ignored.
    seeds : array_like of int
        The query nodes.
    answer : int, optional
        The node to put at the centre; without it each seed's depth scale is its farthest node.

    Returns
    -------
    numpy.ndarray, shape (n, 2)

    Examples
    --------
    >>> from pathfinding.synthetic.toy import meet_node_toy
    >>> toy = meet_node_toy()
    >>> layered_layout(toy.graph, toy.seeds, answer=toy.answer).round(2)
    array([[-1.  ,  0.  ],
           [ 1.  ,  0.  ],
           [ 0.  ,  0.  ],
           [-0.6 , -0.69],
           [ 0.6 , -0.69]])
    """
    A = _symmetric_pattern(graph)
    n = A.shape[0]
    seeds = list(dict.fromkeys(check_node_ids("seeds", seeds, n).tolist()))
    k = len(seeds)
    if answer is not None:
        answer = int(check_node_ids("answer", [answer], n)[0])
    dist = np.atleast_2d(shortest_path(A, unweighted=True, indices=seeds))
    finite = np.isfinite(dist)
    if answer is not None and finite[:, answer].all() and np.all(dist[:, answer] > 0):
        scale = dist[:, answer]
    else:
        scale = np.array([max(1.0, dist[s][finite[s]].max()) for s in range(k)])
    t = np.where(finite, dist / scale[:, None], np.inf)
    tmin = t.min(axis=0)
    owners = np.isclose(t, tmin[None, :]) & finite
    n_owners = owners.sum(axis=0)

    angle = np.pi + 2 * np.pi * np.arange(k) / k
    seed_xy = np.round(np.column_stack([np.cos(angle), np.sin(angle)]), 12) + 0.0
    half_width = min(np.pi / 3, 0.9 * np.pi / k)
    pos = np.full((n, 2), np.nan)
    shared = n_owners >= 2
    indptr, indices = A.indptr, A.indices
    touches = np.zeros(n, dtype=bool)
    for v in range(n):
        touches[v] = bool(shared[indices[indptr[v] : indptr[v + 1]]].any())
    for s, seed in enumerate(seeds):
        own = np.flatnonzero((n_owners == 1) & owners[s])
        mine = np.zeros(n, dtype=bool)
        mine[own] = True
        children: dict[int, list[int]] = {}
        for v in own:
            if v == seed:
                continue
            nbrs = indices[indptr[v] : indptr[v + 1]]
            up = nbrs[dist[s, nbrs] == dist[s, v] - 1]
            mine_up = up[mine[up]]
            parent = int(mine_up.min()) if mine_up.size else seed
            children.setdefault(parent, []).append(int(v))
        if not mine[seed]:
            continue
        leaves, leaves_of = _leaf_order(children, seed, touches)
        slot = {leaf: i for i, leaf in enumerate(leaves)}
        # A hub's many leaves need more room than the fan toward the centre: the fan opens up to
        # wrap round the seed's outer side (two seeds only, where that side is empty).
        wide = min(0.85 * np.pi, 0.045 * len(leaves)) if k == 2 else half_width
        width = max(half_width, wide)
        spread = np.linspace(-width, width, len(leaves)) if len(leaves) > 1 else np.zeros(1)
        inward = -seed_xy[s]
        mirror = -1.0 if (k == 2 and s == 1) else 1.0  # two seeds: the right fan mirrors the left
        for v in leaves_of:
            if v < 0:
                continue  # a virtual leaf only holds a slot
            phi = mirror * float(np.mean([spread[slot[leaf]] for leaf in leaves_of[v]]))
            rho = _FAN * t[s, v]
            c, si = np.cos(phi), np.sin(phi)
            direction = np.array([c * inward[0] - si * inward[1], si * inward[0] + c * inward[1]])
            pos[v] = seed_xy[s] + rho * direction
    up = np.array([0.0, 1.0]) if k == 2 else np.array([0.0, 0.0])
    for v in np.flatnonzero(shared):
        o = np.flatnonzero(owners[:, v])
        lift = max(0.0, 1.0 - tmin[v])
        pos[v] = lift * seed_xy[o].mean(axis=0) + 0.9 * lift * up
    # Shared nodes that land on one spot (two decoys, say) are spread along the horizontal.
    if shared.any():
        keys = {}
        for v in np.flatnonzero(shared):
            keys.setdefault(tuple(np.round(pos[v], 6)), []).append(v)
        for group in keys.values():
            if len(group) > 1:
                offs = (np.arange(len(group)) - (len(group) - 1) / 2) * 0.12
                pos[group, 0] += offs
    lost = np.flatnonzero(np.isnan(pos[:, 0]))
    if lost.size:
        pos[lost, 0] = np.linspace(-1, 1, lost.size) if lost.size > 1 else 0.0
        pos[lost, 1] = -1.25
    return pos + 0.0  # no negative zeros in printed positions


def _categories(n: int, seeds, answer, candidates) -> np.ndarray:
    cat = np.full(n, "other", dtype=object)
    if candidates is not None:
        cat[np.asarray(candidates, dtype=np.int64)] = "candidate"
    if answer is not None:
        cat[int(answer)] = "answer"
    cat[np.asarray(seeds, dtype=np.int64)] = "seed"
    return cat


def draw_graph(
    graph,
    seeds,
    scores=None,
    *,
    answer: int | None = None,
    candidates=None,
    names: Sequence[str] | None = None,
    ax=None,
    pos=None,
    labels: str = "auto",
    facts=None,
    edge_labels: Sequence[str] | None = None,
    dashed=None,
    vmax: float | None = None,
    cmap: str = "viridis",
    colorbar: bool = True,
    legend: bool = True,
    rank_text: bool = True,
    rank: float | None = None,
    marks: Mapping[int, str] | None = None,
    answer_label: str | None = None,
    title: str | None = None,
):
    """Draw any graph with the :func:`layered_layout`, node area and colour proportional to ``scores``.

    Parameters
    ----------
    graph : sparse matrix or array_like, shape (n, n)
    seeds : array_like of int
    scores : array_like of float, shape (n,), optional
        Node scores. The inked area of a node (whatever its marker) and its colour grow linearly with
        the score up to ``vmax``, so a node with twice the score shows twice the area; larger scores
        (the seeds' restart mass, usually) are drawn at the cap, which the colour bar marks with an
        arrow. A node scoring 0 is drawn as an empty outline. Without scores nodes are coloured by kind.
    answer : int, optional
    candidates : array_like of int, optional
        Nodes competing for the top; those other than the answer are drawn as dead ends.
    names : sequence of str, optional
        Node names for labels.
    ax : matplotlib Axes, optional
    pos : array_like, shape (n, 2), optional
        Positions (default :func:`layered_layout`).
    labels : {"auto", "all", "key", "none"}, default "auto"
        Which nodes get their name: "key" the seeds and the answer, "auto" all of them on graphs of
        at most 25 nodes and the key nodes otherwise.
    facts : array_like of int, shape (m, 2), optional
        The two nodes of each passage, for ``edge_labels``.
    edge_labels : sequence of str, optional
        One text per fact, written on its edge (keep it for small graphs).
    dashed : sparse matrix, optional
        Extra edges drawn dashed (for example synonymy edges).
    vmax : float, optional
        Score drawn at full size; default the largest candidate score (so the answer and the dead
        ends use the whole scale; seeds and the chain nodes next to them are drawn at the cap), or
        the largest score outside the seeds when no candidate scores above 0.
    cmap : str, default "viridis"
    colorbar, legend, rank_text : bool, default True
        ``rank_text`` writes the answer's rank among the candidates (needs scores, answer, candidates).
    rank : float, optional
        The rank ``rank_text`` writes, when the caller ranked otherwise (ties settled, say); default
        :func:`~pathfinding.core.scoring.rank_of` on ``scores``.
    marks : mapping of int to str, optional
        Extra words written under given nodes, for a node whose role its marker does not show (a
        decoy is drawn as a candidate: ``marks={decoy: "decoy"}``).
    answer_label : str, optional
        The legend's words for ``answer`` (default "answer (meet node)"); say so when the answer is
        no meet node, as on real text where the seeds' walks need not meet at it.
    title : str, optional

    Returns
    -------
    matplotlib Axes
    """
    import matplotlib.pyplot as plt
    from matplotlib.collections import LineCollection
    from matplotlib.colors import Normalize

    A = _symmetric_pattern(graph)
    n = A.shape[0]
    seeds = check_node_ids("seeds", seeds, n)
    if labels not in ("auto", "all", "key", "none"):
        raise InvalidValueError(f"labels must be 'auto', 'all', 'key' or 'none', got {labels!r}")
    if scores is not None:
        scores = check_vector("scores", scores, n)
    if pos is None:  # dashed edges (synonymy) join the graph too, so they shape the layout
        both = A if dashed is None else A + _symmetric_pattern(dashed)
        pos = layered_layout(both, seeds, answer=answer)
    pos = np.asarray(pos, dtype=float)
    if pos.shape != (n, 2):
        raise InvalidValueError(f"pos must have shape ({n}, 2), got {pos.shape}")
    ax = axes_or_new(ax, figsize=(6.4, 4.8), layout="constrained")
    coo = sp.triu(A, k=1).tocoo()
    ax.add_collection(
        LineCollection(pos[np.column_stack([coo.row, coo.col])], colors="#9a9a9a", linewidths=0.8, zorder=1)
    )
    if dashed is not None:
        D = sp.triu(_symmetric_pattern(dashed), k=1).tocoo()
        if D.nnz:
            ax.add_collection(
                LineCollection(
                    pos[np.column_stack([D.row, D.col])],
                    colors="tab:purple",
                    linewidths=1.2,
                    linestyles="--",
                    zorder=1,
                    label="synonymy edge",
                )
            )
    cat = _categories(n, seeds, answer, candidates)
    norm = None
    if scores is not None:
        if vmax is None:  # the scale of the nodes being compared: the candidates, else all but the seeds
            rest = scores[(cat == "candidate") | (cat == "answer")] if candidates is not None else scores[:0]
            if not (rest.size and rest.max() > 0):
                rest = scores[cat != "seed"]
            vmax = float(rest.max()) if rest.size and rest.max() > 0 else float(scores.max())
        vmax = vmax if vmax > 0 else 1.0
        norm = Normalize(0.0, vmax)
        frac = np.clip(scores / vmax, 0.0, 1.0)
    big = float(np.clip(6000.0 / max(n, 1), 90.0, 420.0))  # inked area at the cap, points^2
    ink_ref = inked_area("v")  # sizes are set so every marker inks what a triangle of that size inks
    drawn = []
    for kind, (marker, edge, fill, _label) in STYLE.items():
        who = np.flatnonzero(cat == kind)
        if who.size == 0:
            continue
        drawn.append(kind)
        lw = 1.6 if kind in ("seed", "answer") else 0.8
        if scores is None:
            size = np.full(who.size, big * (0.6 if kind == "other" else 1.0)) * ink_ref / inked_area(marker)
            ax.scatter(pos[who, 0], pos[who, 1], s=size, c=fill, marker=marker, edgecolors=edge,
                       linewidths=lw, zorder=3)  # fmt: skip
            continue
        # no constant added: an offset would make a node with twice the score look less than twice
        size = big * frac[who] * ink_ref / inked_area(marker)
        empty = frac[who] <= 0
        ax.scatter(
            pos[who[empty], 0], pos[who[empty], 1], s=30.0 * ink_ref / inked_area(marker), facecolors="none",
            marker=marker, edgecolors=edge, linewidths=0.6, zorder=3,
        )  # fmt: skip
        ax.scatter(
            pos[who[~empty], 0], pos[who[~empty], 1], s=size[~empty],
            c=plt.get_cmap(cmap)(norm(scores[who[~empty]])), marker=marker, edgecolors=edge,
            linewidths=lw, zorder=3,
        )  # fmt: skip
    if facts is not None and edge_labels is not None:
        facts = np.asarray(facts, dtype=np.int64).reshape(-1, 2)
        if len(edge_labels) != facts.shape[0]:
            raise InvalidValueError(
                f"need one edge label per fact ({facts.shape[0]}), got {len(edge_labels)}"
            )
        for (u, v), text in zip(facts, edge_labels, strict=True):
            (x0, y0), (x1, y1) = pos[u], pos[v]
            rot = np.degrees(np.arctan2(y1 - y0, x1 - x0))
            rot = rot - 180 if rot > 90 else rot + 180 if rot < -90 else rot
            ax.text(
                (x0 + x1) / 2, (y0 + y1) / 2, text, fontsize=8.5, rotation=rot, rotation_mode="anchor",
                ha="center", va="center", color="#333333", zorder=2,
                bbox={"boxstyle": "round,pad=0.1", "fc": "white", "ec": "none", "alpha": 0.8},
            )  # fmt: skip
    if labels != "none" and names is not None:
        show_all = labels == "all" or (labels == "auto" and n <= 25)
        for v in range(n):
            if show_all or cat[v] in ("seed", "answer"):
                # Seeds are labelled on their outer side, where no edge runs; the rest above the node.
                out = pos[v] - pos[seeds].mean(axis=0) if cat[v] == "seed" else np.zeros(2)
                nrm = np.hypot(*out)
                dx, dy = (14 * out / nrm) if nrm > 1e-9 else (0.0, 9.0 if cat[v] != "answer" else 13.0)
                ha = "left" if dx > 3 else "right" if dx < -3 else "center"
                ax.annotate(
                    names[v], pos[v], xytext=(dx, dy), textcoords="offset points", ha=ha,
                    va="center" if ha != "center" else "bottom", fontsize=7.5 if show_all else 8,
                    fontweight="bold" if cat[v] in ("seed", "answer") else "normal",
                    bbox={"boxstyle": "round,pad=0.1", "fc": "white", "ec": "none", "alpha": 0.7}, zorder=4,
                )  # fmt: skip
    for v, text in (marks or {}).items():
        ax.annotate(
            text, pos[int(v)], xytext=(0, -11), textcoords="offset points", ha="center", va="top",
            fontsize=8, fontweight="bold", color="crimson", zorder=4,
            bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "crimson", "lw": 0.6, "alpha": 0.9},
        )  # fmt: skip
    if scores is not None and colorbar:
        score_colorbar(ax, norm, cmap, capped=bool(np.any(scores > norm.vmax)), label="node score")
    if rank_text and scores is not None and answer is not None and candidates is not None:
        from pathfinding.core.scoring import rank_of

        r = rank_of(scores, answer, candidates) if rank is None else rank
        ax.text(
            0.0, 1.0, f"answer: rank {r:g} of {len(candidates)} candidates  (score {scores[answer]:.4g})",
            transform=ax.transAxes, fontsize=8, va="top",
            bbox={"boxstyle": "round", "fc": "#fff4e0", "ec": "#dd8452"},
        )  # fmt: skip
    if legend:
        ax.legend(
            handles=legend_handles(drawn, scores is not None, answer_label)
            + [h for h in ax.get_legend_handles_labels()[0] if h.get_label() == "synonymy edge"],
            loc="upper center",
            bbox_to_anchor=(0.5, 0.0),
            ncol=3,
            fontsize=8,
            frameon=False,
            handletextpad=0.3,
            columnspacing=1.0,
        )
    ax.set_aspect("equal")
    ax.margins(0.2, 0.1)  # room for the seeds' names, written outside
    ax.autoscale_view()
    ax.set_axis_off()
    if title:
        ax.set_title(title, fontsize=10)
    return ax


def draw_instance(inst, scores=None, *, ax=None, passages: bool = False, **kwargs):
    """Draw a :class:`~pathfinding.synthetic.instances.PathFindingInstance` (or a toy graph) with its scores.

    Parameters
    ----------
    inst : PathFindingInstance
    scores : array_like of float, shape (n_nodes,), optional
    ax : matplotlib Axes, optional
    passages : bool, default False
        Write each passage's text on its edge (readable on graphs of a few dozen passages).
    **kwargs
        Passed to :func:`draw_graph`.

    Returns
    -------
    matplotlib Axes
    """
    kw = {"answer": inst.answer, "candidates": inst.candidates, "names": inst.node_names}
    kw.update(kwargs)
    if passages:
        kw.setdefault("facts", inst.facts)
        kw.setdefault("edge_labels", inst.passages)
    return draw_graph(inst.graph, inst.seeds, scores, ax=ax, **kw)


def mass_after(inst, k: int, *, restart_prob: float = 0.5, specificity: bool = True) -> np.ndarray:
    """The walk's mass after exactly ``k`` power iterations (``k = 0``: the restart vector).

    ``k=None`` gives the stationary vector.

    Examples
    --------
    >>> from pathfinding.synthetic.toy import star_pair
    >>> toy = star_pair(9)
    >>> m = mass_after(toy, 1)
    >>> round(float(m[2]), 4), round(float(m[3]), 4)
    (0.0556, 0.0278)
    """
    from pathfinding.core.ppr import personalized_pagerank
    from pathfinding.core.specificity import restart_vector

    r = restart_vector(inst.n_nodes, inst.seeds, specificity=inst.specificity if specificity else None)
    graph = inst.prepared
    if k is None:
        return personalized_pagerank(graph, r, restart_prob=restart_prob)
    if k == 0:
        return r
    return personalized_pagerank(graph, r, restart_prob=restart_prob, tol=0, max_iter=int(k))


def draw_mass_spreading(inst, ks: Sequence[int] = (0, 1, 2, 3, 5), *, converged=True, axes=None, **kw):
    """Small multiples of the walk: the mass after each ``k`` in ``ks`` iterations, then at convergence.

    All panels share one colour and size scale (the largest candidate mass over all panels; larger
    masses, the seeds' usually, are drawn at the cap) and one colour bar, so a node that grows between
    panels visibly grows, and a node with twice the mass shows twice the area. Each title gives the
    answer's mass as a multiple of the best dead end's.

    Parameters
    ----------
    inst : PathFindingInstance
    ks : sequence of int, default (0, 1, 2, 3, 5)
    converged : bool, default True
        Add a last panel with the stationary vector.
    axes : sequence of matplotlib Axes, optional
        One per panel; default new panels, two to a row.
    **kw
        Passed to :func:`mass_after` (``restart_prob``, ``specificity``).

    Returns
    -------
    list of matplotlib Axes
    """
    steps = [int(k) for k in ks] + ([None] if converged else [])
    masses = [mass_after(inst, k, **kw) for k in steps]
    if axes is None:
        import matplotlib.pyplot as plt

        cols = min(2, len(steps))  # two columns: the book's column shows the labels at a readable size
        rows = -(-len(steps) // cols)
        fig, axes = plt.subplots(rows, cols, figsize=(4.75 * cols, 3.5 * rows), layout="constrained")
        axes = list(np.ravel(axes))
        for extra in axes[len(steps) :]:
            extra.set_axis_off()
    axes = list(axes)
    if len(axes) < len(steps):
        raise InvalidValueError(f"need {len(steps)} axes (one per panel), got {len(axes)}")
    vmax = max(float(m[inst.candidates].max()) for m in masses) or 1.0
    pos = layered_layout(inst.graph, inst.seeds, answer=inst.answer)
    dead = np.setdiff1d(inst.candidates, [inst.answer])
    for i, (k, m, ax) in enumerate(zip(steps, masses, axes, strict=False)):
        best_dead = float(m[dead].max()) if dead.size else 0.0
        head = "converged" if k is None else f"after k = {k} step{'s' if k != 1 else ''}"
        ratio = f" = {m[inst.answer] / best_dead:.2f} x" if best_dead > 0 else ","
        draw_instance(
            inst, m, ax=ax, pos=pos, vmax=vmax, colorbar=False, legend=i == 0, rank_text=False,
            labels="key", title=f"{head}\nanswer {m[inst.answer]:.4f}{ratio} best dead end {best_dead:.4f}",
        )  # fmt: skip
    from matplotlib.colors import Normalize

    capped = any(bool(np.any(m > vmax)) for m in masses)
    panels = axes[: len(steps)]
    score_colorbar(panels[0], Normalize(0.0, vmax), "viridis", capped=capped, label="mass", axes=panels)
    return axes[: len(steps)]


def draw_scores_side_by_side(inst, scores: Mapping[str, np.ndarray], *, axes=None, **kwargs):
    """One panel per named score vector on the same instance and layout, each with the answer's rank.

    Returns
    -------
    list of matplotlib Axes
    """
    if axes is None:
        import matplotlib.pyplot as plt

        _, axes = plt.subplots(1, len(scores), figsize=(5.25 * len(scores), 4.6), layout="constrained")
        axes = np.atleast_1d(axes)
    axes = list(axes)
    if len(axes) < len(scores):
        raise InvalidValueError(f"need {len(scores)} axes (one per score vector), got {len(axes)}")
    pos = layered_layout(inst.graph, inst.seeds, answer=inst.answer)
    for (name, s), ax in zip(scores.items(), axes, strict=False):
        draw_instance(inst, s, ax=ax, pos=pos, title=name, **kwargs)
    return axes[: len(scores)]


def show(fig, name: str, *, directory=None):
    """Show ``fig`` in Jupyter; saved as ``<directory>/<name>.png`` when the notebook runs as a script.

    First it checks that the figure's smallest text is readable in the book at a 1280 px window
    (:func:`~pathfinding.course.marks.smallest_text_px`; a failed check raises under
    ``PATHFINDING_STRICT=1``, so the notebook tests and the book build catch a figure too small to read).

    Under Jupyter's inline backend the figure is displayed at the end of the cell as usual. Anywhere
    else (``python notebooks/01_...py``, a non-interactive backend) the figure would be lost, so it
    is written with :func:`~pathfinding.experiments.plotting.save_figure` to ``directory`` (default
    ``$PATHFINDING_FIGURES`` or ``build/figures``) and closed.

    Returns
    -------
    pathlib.Path or None
        The file written, or None under Jupyter.
    """
    import matplotlib
    import matplotlib.pyplot as plt

    from pathfinding.course.teaching import check

    px = smallest_text_px(fig)
    check(
        px >= MIN_TEXT_PX,
        idea=f"figure {name!r} shows its smallest text at {px:.1f} px in the book's column (at least "
        f"{MIN_TEXT_PX:g} px is readable): make the figure narrower or its text larger",
    )
    backend = matplotlib.get_backend().lower()
    if "inline" in backend or "ipympl" in backend or "widget" in backend:
        return None
    root = Path(directory or os.environ.get("PATHFINDING_FIGURES", "build/figures"))
    path = save_figure(fig, root / f"{name}.png")
    plt.close(fig)
    print(f"figure saved to {path}")
    return path
