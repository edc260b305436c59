"""How the graph drawings mark nodes: one style per kind of node, areas that are honest, a legend
and a colour bar that say what the marks mean.

A matplotlib marker's size is the area of its bounding box, but a star inks about half of its box
where a triangle inks more: :func:`inked_area` measures the ink, so
:func:`~pathfinding.course.draw.draw_graph` gives a node twice the visible area for twice the score.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "BOOK_COLUMN_PX",
    "MIN_TEXT_PX",
    "STYLE",
    "inked_area",
    "legend_handles",
    "score_colorbar",
    "smallest_text_px",
]

BOOK_COLUMN_PX = 780
"""Width of the course book's content column at a 1280 px window: a wider figure is shrunk to it."""
MIN_TEXT_PX = 8.0
"""The smallest text a figure may show in that column, in CSS pixels (body text is 16)."""

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
    cb.ax.tick_params(labelsize=8)
    return cb


def smallest_text_px(fig, *, column_px: float = BOOK_COLUMN_PX, dpi: float = 100.0) -> float:
    """The height of ``fig``'s smallest text as a reader of the book sees it, in CSS pixels.

    Jupyter draws a figure at ``dpi`` (matplotlib's inline default) and the book shrinks a figure wider
    than its column to the column, so a 15-inch grid of panels with 8-point labels shows them at
    6 px. Every drawn text counts (titles, labels, tick labels, legends, annotations).

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots(figsize=(15, 5))
    >>> _ = ax.set_title("panel", fontsize=8)
    >>> round(smallest_text_px(fig), 1)  # 8 pt at 100 dpi is 11 px, shrunk to 780 of 1500 px
    5.8
    >>> plt.close(fig)
    """
    from matplotlib.text import Text

    fig.canvas.draw()  # tick labels exist once the figure is drawn
    sizes = [
        t.get_fontsize() for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip() and t.figure
    ]
    if not sizes:
        return float("inf")
    shrink = min(1.0, column_px / (fig.get_figwidth() * dpi))
    return float(min(sizes) * dpi / 72 * shrink)
