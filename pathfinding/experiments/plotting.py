"""Figures: ax-in/ax-out helpers, and a byte-stable PNG writer for the command line."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from pathfinding.errors import InvalidValueError

__all__ = [
    "plot_budget_sweep",
    "plot_frontier_rounds",
    "plot_mean_rank",
    "plot_passage_ranks",
    "plot_rank_distribution",
    "save_figure",
]

LABELS = {
    "mention_count": "mention count (vector-RAG shape)",
    "ppr": "PPR with specificity",
    "ppr_no_specificity": "PPR without specificity",
    "rq_nodes": "R_q nodes only",
    "rq_neighbours": "R_q nodes & neighbours",
}


def axes_or_new(ax=None, *, figsize=(6.4, 4.2), layout=None):
    """``ax``, or the axes of a new figure of ``figsize``: every figure helper's ax-in/ax-out start."""
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=figsize, layout=layout)
    return ax


def plot_mean_rank(rows, ax=None):
    """Mean rank of the answer against hop depth, one line per ranker, with 95% CI bars.

    Parameters
    ----------
    rows : list of pathfinding.experiments.hop_depth.SummaryRow
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes
    """
    ax = axes_or_new(ax)
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
    result : pathfinding.experiments.hop_depth.ExperimentResult
    hops : int, default 2
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes
    """
    ax = axes_or_new(ax)
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


def plot_passage_ranks(rankings, passages, ax=None):
    """Where each ranking puts a few chosen passages: one stem per passage and ranking, rank 1 on top.

    Parameters
    ----------
    rankings : dict of str to numpy.ndarray of int
        A label per ranking, and the rank it gives every passage (1 = first).
    passages : sequence of int
        The passages to show, left to right.
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes

    Raises
    ------
    ValueError
        If there is no ranking or no passage, or the rankings rank different numbers of passages.
    """
    sizes = {len(ranks) for ranks in rankings.values()}
    if not rankings or not len(passages) or len(sizes) != 1:
        raise InvalidValueError(
            f"need one or more rankings of the same passages and one or more passages to show, got "
            f"{len(rankings)} rankings of sizes {sorted(sizes)} and {len(passages)} passages"
        )
    (n,) = sizes
    ax = axes_or_new(ax, figsize=(8, 3.8), layout="constrained")
    x, width = np.arange(len(passages)), 0.66 / len(rankings)
    for k, (label, ranks) in enumerate(rankings.items()):
        xs, ys = x + (k - (len(rankings) - 1) / 2) * width, [int(ranks[j]) for j in passages]
        ax.vlines(xs, n + 1, ys, color=f"C{k}", lw=2, alpha=0.5)
        ax.plot(xs, ys, "osD^v"[k % 5], color=f"C{k}", label=label)
        for xi, y in zip(xs, ys, strict=True):
            ax.annotate(str(y), (xi, y), xytext=(0, 6), textcoords="offset points", ha="center", fontsize=8)
    ticks = sorted({1, *range(10, n, 10), n})
    ax.set(xticks=x, xticklabels=[f"p{j}" for j in passages], yticks=ticks, ylim=(n + 1, -4))
    ax.set_ylabel(f"rank of {n} (1 = first, at the top)")
    ax.legend(fontsize=8, loc="upper right")
    return ax


def plot_budget_sweep(budget, ax=None):
    """Answer reached and ranked first against the round budget, per chaining retriever, with PPR.

    Parameters
    ----------
    budget : pathfinding.experiments.contrast.BudgetResult
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes
    """
    ax = axes_or_new(ax)
    rows = budget.summary()
    for k, name in enumerate(budget.retrievers):
        mine = [r for r in rows if r["retriever"] == name]
        x = np.array([r["budget"] for r in mine], dtype=float)
        for key, style, what in (("reached", "--", "answer reached"), ("hit_at_1", "-", "ranked first")):
            p = np.array([r[key] for r in mine])
            ax.errorbar(
                x + (k - 0.5) * 0.08,
                100 * p[:, 0],
                yerr=100 * np.abs(p[:, 1:].T - p[:, 0]),
                color=f"C{k}",
                linestyle=style,
                marker="o",
                capsize=3,
                label=f"{name}: {what}",
            )
    ppr_first = 100 * float(np.mean(budget.ppr_ranks == 1.0))
    ax.axhline(ppr_first, color="grey", linestyle=":", label=f"PPR ranked first ({ppr_first:.0f}%)")
    ax.set_xlabel("round budget")
    ax.set_ylabel(f"% of {budget.trials} path-finding trials")
    ax.set_xticks(list(budget.budgets))
    ax.set_ylim(-3, 103)
    ax.set_title(f"Path-finding at {budget.hops} hops: reached vs ranked first, by round budget")
    # below the axes: inside, any corner covers a curve (they span 0-100% across every budget)
    ax.legend(fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2, frameon=False)
    return ax


def plot_frontier_rounds(trace, inst, ax=None):
    """A chaining retriever round by round: entities newly reached, and the answer's rank so far.

    Parameters
    ----------
    trace : pathfinding.synthetic.chaining.ChainTrace
    inst : PathFindingInstance
        The instance the trace ran on.
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes
        Bars: entities first reached in each round (the answer's round highlighted). Line, right axis:
        the answer's rank among the candidates after each round (lower is better).
    """
    from pathfinding.core.scoring import rank_of

    ax = axes_or_new(ax)
    rounds = np.arange(1, trace.rounds + 1)
    new = np.array([np.sum(trace.reached_round == k) for k in rounds])
    colours = ["C3" if trace.reached_round[inst.answer] == k else "C0" for k in rounds]
    ax.bar(rounds, new, color=colours)
    ax.set_xlabel("round")
    ax.set_ylabel("entities first reached (red: the answer's round)")
    ax.set_xticks(rounds)
    right = ax.twinx()
    ranks = [rank_of(trace.scores(after=k), inst.answer, inst.candidates) for k in rounds]
    right.plot(rounds, ranks, color="k", marker="o", label="answer's rank")
    right.set_ylim(len(inst.candidates) + 0.5, 0.5)
    right.set_ylabel(f"answer's rank among {len(inst.candidates)} (1 = best)")
    right.legend(fontsize="small", loc="upper right")
    return ax
