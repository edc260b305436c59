"""Figures: ax-in/ax-out helpers, and a byte-stable PNG writer for the command line."""

from __future__ import annotations

from pathlib import Path

import numpy as np

__all__ = ["plot_mean_rank", "plot_rank_distribution", "save_figure"]

LABELS = {
    "mention_count": "mention count (vector-RAG shape)",
    "ppr": "PPR with specificity",
    "ppr_no_specificity": "PPR without specificity",
    "rq_nodes": "R_q nodes only",
    "rq_neighbours": "R_q nodes & neighbours",
}


def _axes(ax):
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(6.4, 4.2))
    return ax


def plot_mean_rank(rows, ax=None):
    """Mean rank of the answer against hop depth, one line per ranker, with 95% CI bars.

    Parameters
    ----------
    rows : list of pathfinding.experiment.SummaryRow
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes
    """
    ax = _axes(ax)
    rankers = list(dict.fromkeys(r.ranker for r in rows))
    for k, name in enumerate(rankers):
        mine = [r for r in rows if r.ranker == name]
        x = np.arange(len(mine)) + (k - (len(rankers) - 1) / 2) * 0.04
        y = np.array([r.mean for r in mine])
        err = np.array([[r.mean - r.ci_low for r in mine], [r.ci_high - r.mean for r in mine]])
        ax.errorbar(x, y, yerr=err, marker="o", capsize=3, label=LABELS.get(name, name))
        ax.set_xticks(np.arange(len(mine)), [str(r.hops) for r in mine])
    chance = rows[0].chance
    ax.axhline(chance, color="grey", linestyle=":", label=f"chance ({chance:g})")
    ax.set_xlabel("hops from each seed to the answer")
    ax.set_ylabel("mean rank of the answer (1 = best)")
    ax.set_ylim(0.5, 2 * chance - 0.5)
    ax.invert_yaxis()
    ax.legend(fontsize="small")
    return ax


def plot_rank_distribution(result, hops=2, ax=None):
    """Histogram of the answer's rank (random tie-breaking) at one hop depth, per ranker.

    Parameters
    ----------
    result : pathfinding.experiment.ExperimentResult
    hops : int, default 2
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes
    """
    ax = _axes(ax)
    n_cand = result.n_candidates[hops]
    bins = np.arange(0.5, n_cand + 1.5)
    for name in result.rankers:
        ranks = result.random_ranks[name, hops]
        ax.hist(ranks, bins=bins, histtype="step", linewidth=1.5, label=LABELS.get(name, name))
    ax.axhline(result.trials / n_cand, color="grey", linestyle=":", label="uniform (chance)")
    ax.set_xlabel(f"rank of the answer among {n_cand} candidates at {hops} hops (random ties)")
    ax.set_ylabel(f"trials (of {result.trials})")
    ax.legend(fontsize="small")
    return ax


def save_figure(fig, path, *, dpi: int = 120) -> Path:
    """Save ``fig`` as PNG with a fixed dpi and no metadata, so the bytes depend only on content."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=dpi, format="png", metadata={"Software": None})
    return path
