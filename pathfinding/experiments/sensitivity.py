"""How much the default retriever's two weights matter: R@5 over a grid, cased and lower-cased.

The defaults (``fact_weight=0.1``, ``passage_weight=0.2``) were picked on the 100 MuSiQue tuning
questions that are also the evaluation set. :func:`weight_grid` shows the whole neighbourhood of that
choice, so a reader can see whether the targets hold only at the chosen point or across the grid::

    python -c "from pathfinding.experiments.sensitivity import weight_grid, format_grid; \
print(format_grid(weight_grid()))"
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from pathfinding._validation import check_int
from pathfinding.errors import InvalidValueError
from pathfinding.experiments.realtext import CASES, load_realtext, musique_index
from pathfinding.hipporag.evaluate import KS, recall_at_k, supporting_ids
from pathfinding.hipporag.retrieve import BM25Ranker, HippoRetriever

__all__ = ["format_grid", "weight_grid"]


def weight_grid(
    fact_weights: Sequence[float] = (0.05, 0.1, 0.25, 0.5, 1.0),
    passage_weights: Sequence[float] = (0.0, 0.1, 0.2, 0.5),
    *,
    n_questions: int | None = None,
    k: int = 5,
) -> dict:
    """Mean R@k of :class:`HippoRetriever` over a grid of ``fact_weight`` x ``passage_weight``.

    Parameters
    ----------
    fact_weights, passage_weights : sequence of float
    n_questions : int, optional
        Only the first ``n_questions`` questions.
    k : int, default 5
        One of :data:`~pathfinding.hipporag.evaluate.KS`.

    Returns
    -------
    dict
        ``bm25`` (mean R@k, case-blind), ``k``, ``n_questions`` and ``grid``: a list of dicts with
        ``fact_weight``, ``passage_weight`` and the mean R@k of each case in
        :data:`~pathfinding.experiments.realtext.CASES`.
    """
    k = check_int("k", k, low=1)
    if k not in KS:
        raise InvalidValueError(f"k must be one of {KS}, got {k}")
    data = load_realtext()
    questions = data["questions"]
    if n_questions is not None:
        questions = questions[: check_int("n_questions", n_questions, low=1, high=len(questions))]
    gold = supporting_ids(questions, data["corpus"])
    index = musique_index(0.8)
    bm25 = BM25Ranker(index.passages)
    col = KS.index(k)
    base = recall_at_k([bm25.rank(q.question, max(KS)) for q in questions], gold)[:, col].mean()
    grid = []
    for fw in fact_weights:
        for pw in passage_weights:
            ret = HippoRetriever(index, bm25=bm25, fact_weight=fw, passage_weight=pw)
            row = {"fact_weight": float(fw), "passage_weight": float(pw)}
            for case, typed in CASES.items():
                ranks = [ret.retrieve(typed(q.question), k=max(KS)).passages for q in questions]
                row[case] = float(recall_at_k(ranks, gold)[:, col].mean())
            grid.append(row)
    return {"bm25": float(base), "k": k, "n_questions": len(questions), "grid": grid}


def format_grid(result: dict) -> str:
    """The grid as text: R@k minus BM25 in points, cased / lower-cased."""
    k, base = result["k"], result["bm25"]
    lines = [
        f"R@{k} minus BM25 ({100 * base:.1f}), points, cased / lower-cased; {result['n_questions']} "
        "MuSiQue tuning questions (the evaluation set)",
        f"{'fact_weight':>11}  {'passage_weight':>14}  {'cased':>6}  {'lower':>6}",
    ]
    for row in result["grid"]:
        d = [100 * (row[c] - base) for c in CASES]
        lines.append(f"{row['fact_weight']:>11g}  {row['passage_weight']:>14g}  {d[0]:>+6.1f}  {d[1]:>+6.1f}")
    worst = np.array([[row[c] - base for c in CASES] for row in result["grid"]]).min(axis=0)
    lines.append(f"smallest over the grid: {100 * worst[0]:+.1f} cased, {100 * worst[1]:+.1f} lower-cased")
    return "\n".join(lines)
