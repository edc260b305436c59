"""Checks for notebook 8's exercises (Step 9: what the numbers say), in the style of
:mod:`pathfinding.course.exercises`.

Each ``check_...`` returns a :class:`~pathfinding.course.exercises.Feedback`. They take any real
number type (int, float, numpy scalar, Fraction, Decimal), accept an answer to the precision the
exercise states, and tell a rounding slip ("close — keep more digits") from a wrong idea. They raise
``TypeError`` only when the shape of the answer cannot be read.
"""

from __future__ import annotations

import numpy as np

from pathfinding.course.exercises.answers import NOT_YET, Feedback, read_number
from pathfinding.errors import InvalidTypeError
from pathfinding.experiments.step9 import paper

__all__ = ["PAPER_DATASETS", "check_allrecall_gains", "check_synonymy_threshold"]

PAPER_DATASETS = ("MuSiQue", "2Wiki", "HotpotQA")


def _gains(r_col: str, ar_col: str) -> dict[str, tuple[float, float]]:
    hippo, colbert = paper.TABLE_2["HippoRAG (ColBERTv2)"], paper.TABLE_2["ColBERTv2"]
    return {
        d: (
            round(hippo[f"{d} {r_col}"] - colbert[f"{d} {r_col}"], 1),
            round(
                paper.TABLE_6["HippoRAG"][f"{d} {ar_col}"] - paper.TABLE_6["ColBERTv2"][f"{d} {ar_col}"], 1
            ),
        )
        for d in PAPER_DATASETS
    }


def check_allrecall_gains(gains) -> Feedback:
    """Exercise 8.1: HippoRAG's gain over ColBERTv2 per dataset, in R@5 and in AR@5 points.

    ``gains`` maps each of ``"MuSiQue"``, ``"2Wiki"``, ``"HotpotQA"`` to two numbers: (R@5 of
    HippoRAG (ColBERTv2) minus ColBERTv2's, from Table 2; AR@5 of HippoRAG minus ColBERTv2's, from
    Table 6), to one decimal as the tables print them. Any real number type is accepted.
    """
    if gains is None or gains is Ellipsis:
        return NOT_YET
    if not isinstance(gains, dict) or set(gains) != set(PAPER_DATASETS):
        raise InvalidTypeError(f"gains must be a dict with the keys {list(PAPER_DATASETS)}, got {gains!r}")
    got = {}
    for d in PAPER_DATASETS:
        pair = gains[d]
        if isinstance(pair, str) or not hasattr(pair, "__len__") or len(pair) != 2:
            raise InvalidTypeError(f"gains[{d!r}] must be two numbers (R@5 gain, AR@5 gain), got {pair!r}")
        got[d] = tuple(read_number(f"gains[{d!r}][{i}]", v) for i, v in enumerate(pair))
    if any(v is None for pair in got.values() for v in pair):
        return NOT_YET
    want = _gains("R@5", "AR@5")

    def off(a, b) -> float:
        return max(abs(x - y) for d in PAPER_DATASETS for x, y in zip(a[d], b[d], strict=True))

    if off(got, want) <= 0.051:
        ratio = {d: want[d][1] / want[d][0] for d in PAPER_DATASETS if want[d][0] > 0}
        return Feedback(
            True,
            "where HippoRAG gains, the all-recall gain is about twice the recall gain ("
            + ", ".join(f"{d}: {want[d][0]:+.1f} -> {want[d][1]:+.1f}" for d in ratio)
            + "): the gain comes from getting every supporting passage of a question, not one more.",
        )
    if off(got, {d: (-a, -b) for d, (a, b) in want.items()}) <= 0.051:
        return Feedback(
            False, "a gain is HippoRAG's value MINUS ColBERTv2's: positive where HippoRAG is ahead."
        )
    if off(got, {d: (b, a) for d, (a, b) in want.items()}) <= 0.051:
        return Feedback(False, "the pairs are swapped: (R@5 gain first, AR@5 gain second).")
    if off(got, _gains("R@2", "AR@2")) <= 0.051:
        return Feedback(False, "those are the @2 columns; the exercise asks for R@5 and AR@5.")
    if off(got, want) <= 0.5:
        return Feedback(False, "close — keep one decimal and subtract the printed values exactly.")
    return Feedback(
        False, "R@5 gains come from Table 2 (HippoRAG (ColBERTv2) vs ColBERTv2), AR@5 gains from Table 6."
    )


def check_synonymy_threshold(index, phrase_a: str, phrase_b: str, value) -> Feedback:
    """Exercise 8.2: the largest τ, to three decimals, at which ``phrase_a`` and ``phrase_b`` are joined.

    ``index`` is a :class:`~pathfinding.hipporag.index.model.HippoIndex` holding both (normalised) phrases;
    the answer is their encoder cosine rounded *down* to three decimals (a synonymy edge needs
    cosine >= τ, so rounding up would lose the edge).
    """
    tau = read_number("value", value)
    if tau is None:
        return NOT_YET
    for p in (phrase_a, phrase_b):
        if p not in index.phrase_ids:
            raise InvalidTypeError(f"{p!r} is not a node of this index (use the normalised phrase)")
    E = index.node_embeddings
    a, b = index.phrase_ids[phrase_a], index.phrase_ids[phrase_b]
    row_a, row_b = E[[a]], E[[b]]
    prod = row_a @ row_b.T
    cos = float(prod.toarray()[0, 0] if hasattr(prod, "toarray") else np.asarray(prod)[0, 0])
    if cos - 0.001 < tau <= cos:
        return Feedback(
            True,
            f"cosine {cos:.4f}: at tau = {tau:.3f} the two spellings become one neighbourhood; at the "
            "paper's 0.8 they stay two nodes, and the walk never crosses between them.",
        )
    if cos < tau <= cos + 0.001:
        return Feedback(False, "close — but rounded up: the edge needs cosine >= tau, so round down.")
    if tau <= cos - 0.001:
        return Feedback(False, "that tau joins them, but it is not the largest: keep three decimals.")
    return Feedback(False, "at that tau the pair is not joined: compute the two rows' cosine first.")
