"""How the graph drawings mark nodes: one style per kind of node, areas that are honest, a legend
and a colour bar that say what the marks mean.

A matplotlib marker's size is the area of its bounding box, but a star inks about half of its box
where a triangle inks more: :func:`inked_area` measures the ink, so
:func:`~pathfinding.course.draw.draw_graph` gives a node twice the visible area for twice the score.
"""

from __future__ import annotations

import numpy as np

__all__ = ["STYLE", "inked_area", "legend_handles", "score_colorbar"]

STYLE = {  # marker, edge colour, fill without scores, legend label
    "seed": ("s", "black", "#4c72b0", "seed (query entity)"),
    "answer": ("*", "crimson", "#dd8452", "answer (meet node)"),
    "candidate": ("v", "dimgrey", "#bbbbbb", "dead end / other candidate"),
    "other": ("o", "grey", "white", "chain node"),
}


def inked_area(marker: str) -> float:
    """Inked area of ``marker`` per unit of scatter size: a star inks about half what a triangle does,
    so scaling sizes by ``1 / inked_area`` makes the *visible* area proportional to the score."""
    from matplotlib.markers import MarkerStyle

    style = MarkerStyle(marker)
    xy = style.get_transform().transform(style.get_path().vertices)
    x, y = xy[:, 0], xy[:, 1]
    return 0.5 * abs(float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))


def legend_handles(kinds, scores_given: bool, answer_label: str | None = None):
    """Legend entries at one readable size, whatever the size of the nodes they stand for."""
    from matplotlib.lines import Line2D

    handles = []
    for kind in kinds:
        marker, edge, fill, label = STYLE[kind]
        if kind == "answer" and answer_label is not None:
            label = answer_label
        handles.append(
            Line2D(
                [], [], linestyle="none", marker=marker, markersize=11 if kind == "answer" else 8,
                markerfacecolor="#d9d9d9" if scores_given else fill, markeredgecolor=edge,
                markeredgewidth=1.4 if kind in ("seed", "answer") else 0.8, label=label,
            )
        )  # fmt: skip
    return handles


def score_colorbar(ax, norm, cmap: str, *, capped: bool, label: str, axes=None):
    """A colour bar for ``norm``; an arrow at the top says that larger values are drawn at the cap."""
    import matplotlib.pyplot as plt

    sm = plt.cm.ScalarMappable(norm=norm, cmap=cmap)
    cb = ax.figure.colorbar(
        sm, ax=ax if axes is None else axes, shrink=0.6, pad=0.04, extend="max" if capped else "neither"
    )
    if capped:
        label += f" (above {norm.vmax:.3g}: drawn at the cap)"
    cb.set_label(label, fontsize=8)
    cb.ax.tick_params(labelsize=7)
    return cb
