"""How much the default retriever's two weights matter: R@5 over a grid, cased and lower-cased.

The defaults (``fact_weight=0.1``, ``passage_weight=0.2``) were picked on the 100 MuSiQue tuning
questions that are also the evaluation set. :func:`weight_grid` shows the whole neighbourhood of that
choice, so a reader can see whether the targets hold only at the chosen point or across the grid::

    python -c "from pathfinding.experiments.sensitivity import weight_grid, format_grid; \
print(format_grid(weight_grid()))"

:func:`fusion_grid` reruns the choice of the retriever's BM25 fusion (``guess_weight``,
``fusion_c``) on the lower-cased MuSiQue questions, and :func:`chosen_fusion` applies the stated
rule to it, so the defaults can be checked against the rule that picked them::

    python -c "from pathfinding.experiments.sensitivity import fusion_grid, chosen_fusion; \
print(chosen_fusion(fusion_grid()))"

:func:`link_floor_grid` measures the default retriever at each floor of entity linking (the
lowest cosine at which a query entity still names a node), on MuSiQue and on the held-out HotpotQA
set, and :func:`chosen_link_floor` applies the rule that chose
:data:`~pathfinding.hipporag.retrieval.linking.MIN_LINK_COSINE` to it::

    python -c "from pathfinding.experiments.sensitivity import *; \
r = link_floor_grid(); print(format_link_floor_grid(r)); print(chosen_link_floor(r))"
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from pathfinding._validation import check_int
from pathfinding.errors import InvalidValueError
from pathfinding.experiments.heldout import heldout_index, load_heldout
from pathfinding.experiments.realtext import CASES, load_realtext, musique_index
from pathfinding.hipporag.evaluation.metrics import KS, recall_at_k, supporting_ids
from pathfinding.hipporag.retrieval.lexical import BM25Ranker
from pathfinding.hipporag.retrieval.retrieve import HippoRetriever

__all__ = [
    "FUSION_TARGET",
    "LINK_FLOORS",
    "chosen_fusion",
    "chosen_link_floor",
    "format_grid",
    "format_link_floor_grid",
    "fusion_grid",
    "link_floor_grid",
    "weight_grid",
]

FUSION_TARGET = 0.05
"""Lower-cased MuSiQue R@5 gain over BM25 the fusion must keep (the issue's +5 points)."""


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
        One of :data:`~pathfinding.hipporag.evaluation.metrics.KS`.

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


def fusion_grid(
    guess_weights: Sequence[float] = (0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9),
    offsets: Sequence[float] = (10.0, 30.0, 60.0),
) -> dict:
    """R@k gain over BM25 of the default retriever on the lower-cased MuSiQue questions, per fusion.

    Only lower-cased questions are used: a cased question with a capitalised seed is ranked by the
    walk alone, whatever the fusion's constants. They are read as typed (``casing=False``), as
    they were when the constants were chosen: read through the casing model, most of them have a
    name and the restored weight decides instead
    (:func:`pathfinding.experiments.question_case.chosen_restored_weight`).

    Returns
    -------
    dict
        ``ks`` and ``grid``: a list of dicts with ``guess_weight``, ``fusion_c`` and ``gain`` (mean
        R@k minus BM25's, one value per k of :data:`~pathfinding.hipporag.evaluation.metrics.KS`).
    """
    data = load_realtext()
    questions = [q.question.lower() for q in data["questions"]]
    gold = supporting_ids(data["questions"], data["corpus"])
    index = musique_index(0.8)
    bm25 = BM25Ranker(index.passages)
    base = recall_at_k([bm25.rank(q, max(KS)) for q in questions], gold).mean(axis=0)
    grid = []
    for c in offsets:
        for lam in guess_weights:
            ret = HippoRetriever(index, bm25=bm25, guess_weight=lam, fusion_c=c, casing=False)
            rec = recall_at_k([ret.retrieve(q, k=max(KS)).passages for q in questions], gold).mean(axis=0)
            grid.append({"guess_weight": float(lam), "fusion_c": float(c), "gain": (rec - base).tolist()})
    return {"ks": list(KS), "grid": grid}


def chosen_fusion(result: dict, *, target: float = FUSION_TARGET) -> tuple[float, float]:
    """The rule that chose the fusion's constants, applied to a :func:`fusion_grid` result.

    For each offset ``c``, the smallest walk weight whose lower-cased R@5 gain is at least
    ``target`` (the fusion closest to BM25 that keeps the MuSiQue target); of those, the one with
    the largest mean gain over k.

    Returns
    -------
    (guess_weight, fusion_c) : tuple of float

    Raises
    ------
    ValueError
        If no point of the grid reaches the target.
    """
    r5 = result["ks"].index(5)
    best = None
    for c in sorted({row["fusion_c"] for row in result["grid"]}):
        rows = sorted(
            (row for row in result["grid"] if row["fusion_c"] == c), key=lambda r: r["guess_weight"]
        )
        ok = [row for row in rows if row["gain"][r5] >= target - 1e-12]
        if ok and (best is None or np.mean(ok[0]["gain"]) > np.mean(best["gain"])):
            best = ok[0]
    if best is None:
        raise InvalidValueError(f"no fusion on the grid keeps a lower-cased R@5 gain of {target}")
    return best["guess_weight"], best["fusion_c"]


LINK_FLOORS = (0.0, 0.2, 0.3, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7)
"""The floors of entity linking :func:`link_floor_grid` tries by default."""


def link_floor_grid(floors: Sequence[float] = LINK_FLOORS) -> dict:
    """Mean R@k of the default retriever at each linking floor, cased and lower-cased.

    Two question sets: the MuSiQue tuning set (released triples, the choice is made on it) and the
    held-out HotpotQA set (no-model index), which only reports.

    Returns
    -------
    dict
        ``ks`` and ``sets``: per set (``"musique"``, ``"heldout"``), ``bm25`` (mean R@k) and
        ``grid``, a list of dicts with ``floor``, per case of
        :data:`~pathfinding.experiments.realtext.CASES` the mean R@k (one value per k of
        :data:`~pathfinding.hipporag.evaluation.metrics.KS`), and ``weak``: per case, the
        ``(entity, nearest phrase, cosine)`` links the floor removed.
    """
    floors = [float(f) for f in floors]
    sets = {}
    musique, heldout = load_realtext(), load_heldout()
    for name, data, index in (
        ("musique", musique, musique_index(0.8)),
        ("heldout", heldout, heldout_index()),
    ):
        questions = data["questions"]
        gold = supporting_ids(questions, data["corpus"])
        bm25 = BM25Ranker(index.passages)
        base = recall_at_k([bm25.rank(q.question, max(KS)) for q in questions], gold).mean(axis=0)
        grid = []
        for floor in floors:
            ret = HippoRetriever(index, bm25=bm25, min_link_cosine=floor)
            row: dict = {"floor": floor, "weak": {}}
            for case, typed in CASES.items():
                hits = [ret.retrieve(typed(q.question), k=max(KS)) for q in questions]
                row[case] = recall_at_k([h.passages for h in hits], gold).mean(axis=0).tolist()
                row["weak"][case] = sorted(
                    {(lk.entity, index.phrases[lk.node], round(lk.cosine, 3))
                     for h in hits for lk in h.links if lk.node >= 0 and not lk.kept},
                    key=lambda t: t[2],
                )  # fmt: skip
            grid.append(row)
        sets[name] = {"bm25": base.tolist(), "grid": grid}
    return {"ks": list(KS), "sets": sets}


def chosen_link_floor(result: dict) -> float:
    """The rule that chose :data:`~pathfinding.hipporag.retrieval.linking.MIN_LINK_COSINE`, applied to a
    :func:`link_floor_grid` result: the highest floor at which the default loses nothing on the
    MuSiQue tuning set (R@k at every k, cased and lower-cased, at least its value with no floor).

    Raises
    ------
    ValueError
        If the grid has no floor 0 to compare with.
    """
    grid = result["sets"]["musique"]["grid"]
    free = [row for row in grid if row["floor"] == 0.0]
    if not free:
        raise InvalidValueError("the grid needs floor 0 (no floor) to compare with")
    ok = [
        row["floor"]
        for row in grid
        if all(np.all(np.asarray(row[c]) >= np.asarray(free[0][c]) - 1e-12) for c in CASES)
    ]
    return max(ok)


def format_link_floor_grid(result: dict) -> str:
    """The grid as text: R@2 / R@5 per floor, set and case, and the links each floor removed."""
    r2, r5 = result["ks"].index(2), result["ks"].index(5)
    lines = []
    for name, res in result["sets"].items():
        b = res["bm25"]
        lines.append(f"{name}: R@2 / R@5 in %, BM25 {100 * b[r2]:.1f} / {100 * b[r5]:.1f}")
        lines.append(f"{'floor':>6}  " + "  ".join(f"{c:>13}" for c in CASES) + "  links removed")
        for row in res["grid"]:
            cells = "  ".join(f"{100 * row[c][r2]:>6.1f}/{100 * row[c][r5]:<6.1f}" for c in CASES)
            weak = sorted({w for c in CASES for w in row["weak"][c]}, key=lambda t: t[2])
            shown = ", ".join(f"{e!r}->{p!r} {cos:.2f}" for e, p, cos in weak[:6])
            more = f" (+{len(weak) - 6})" if len(weak) > 6 else ""
            lines.append(f"{row['floor']:>6.2f}  {cells}  {len(weak)}: {shown}{more}")
    return "\n".join(lines)
