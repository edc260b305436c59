"""Checks for notebook 8's exercises (Step 9: what the numbers say), in the style of
:mod:`pathfinding.course.exercises`.

Each ``check_...`` returns a :class:`~pathfinding.course.exercises.answers.Feedback`. They take any
real number type (int, float, numpy scalar, Fraction, Decimal), accept the exact value rounded to the
precision the exercise states, name the confusion a wrong answer shows (``ALLRECALL_GAINS_WRONG``),
and answer an unreadable shape (a dict with other keys, text) with feedback that says what was
expected.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from pathfinding.course.exercises.answers import (
    EXACT,
    NOT_YET,
    Feedback,
    Precision,
    WrongModel,
    close_message,
    diagnose,
    feedback_on_unreadable,
    not_the_exercise,
    read_number,
    read_numbers,
)
from pathfinding.errors import InvalidTypeError
from pathfinding.experiments.step9 import paper

__all__ = [
    "ALLRECALL_GAINS_WRONG",
    "GAINS_PRECISION",
    "PAPER_DATASETS",
    "SYNONYMY_PAIR",
    "SYNONYMY_THRESHOLD_WRONG",
    "check_allrecall_gains",
    "check_synonymy_threshold",
]

PAPER_DATASETS = ("MuSiQue", "2Wiki", "HotpotQA")
GAINS_PRECISION = Precision(decimals=1)


def _gains(
    r_col: str = "R@5", ar_col: str = "AR@5", hippo: str = "HippoRAG (ColBERTv2)", diff=lambda a, b: a - b
) -> np.ndarray:
    """(R gain, AR gain) per dataset, flattened in :data:`PAPER_DATASETS` order.

    ``diff(hipporag, colbert)`` is the gain; the plain difference by default.
    """
    t2, t6 = paper.TABLE_2, paper.TABLE_6
    return np.array(
        [
            (
                diff(t2[hippo][f"{d} {r_col}"], t2["ColBERTv2"][f"{d} {r_col}"]),
                diff(t6["HippoRAG"][f"{d} {ar_col}"], t6["ColBERTv2"][f"{d} {ar_col}"]),
            )
            for d in PAPER_DATASETS
        ]
    ).ravel()


def _relative() -> np.ndarray:
    """The gains in percent of ColBERTv2's value."""
    return _gains(diff=lambda a, b: 100 * (a / b - 1))


ALLRECALL_GAINS_WRONG = (
    WrongModel(
        "subtracted the wrong way",
        "a gain is HippoRAG's value MINUS ColBERTv2's: positive where HippoRAG is ahead.",
        value=lambda: -_gains(),
    ),
    WrongModel(
        "pairs swapped",
        "the pairs are swapped: (R@5 gain first, AR@5 gain second).",
        value=lambda: _gains().reshape(-1, 2)[:, ::-1].ravel(),
    ),
    WrongModel(
        "the @2 columns",
        "those are the @2 columns; the exercise asks for R@5 and AR@5.",
        value=lambda: _gains("R@2", "AR@2"),
    ),
    WrongModel(
        "the Contriever row",
        'the R@5 gains use Table 2\'s "HippoRAG (ColBERTv2)" row, the HippoRAG that Table 6 measures.',
        value=lambda: _gains(hippo="HippoRAG (Contriever)"),
    ),
    WrongModel(
        "a percentage of ColBERTv2's value",
        "a gain in points is a difference of two percentages, not a percentage of ColBERTv2's value.",
        value=_relative,
    ),
)
"""Exercise 8.1's confusions, each the six numbers (R@5 gain, AR@5 gain per dataset) it gives."""


def _read_gains(gains) -> np.ndarray | None:
    if not isinstance(gains, dict):
        raise InvalidTypeError(
            f"gains must be a dict with the keys {list(PAPER_DATASETS)}, got {type(gains).__name__}"
        )
    if set(gains) != set(PAPER_DATASETS):
        same_letters = {str(k).lower() for k in gains} == {d.lower() for d in PAPER_DATASETS}
        raise InvalidTypeError(
            f"gains must have exactly the keys {list(PAPER_DATASETS)}, spelt as the tables spell them"
            + (" (the keys are case-sensitive)" if same_letters else "")
            + f"; got {sorted(map(repr, gains))}"
        )
    pairs = [
        read_numbers(f"gains[{d!r}]", gains[d], 2, entries="(R@5 gain, AR@5 gain)") for d in PAPER_DATASETS
    ]
    return None if any(p is None for p in pairs) else np.ravel(pairs)


@feedback_on_unreadable
def check_allrecall_gains(gains) -> Feedback:
    """Exercise 8.1: HippoRAG's gain over ColBERTv2 per dataset, in R@5 and in AR@5 points.

    ``gains`` maps each of ``"MuSiQue"``, ``"2Wiki"``, ``"HotpotQA"`` to two numbers: (R@5 of
    HippoRAG (ColBERTv2) minus ColBERTv2's, from Table 2; AR@5 of HippoRAG minus ColBERTv2's, from
    Table 6), to one decimal as the tables print them. Any real number type is accepted.

    Examples
    --------
    >>> right = {"MuSiQue": (2.7, 6.3), "2Wiki": (20.9, 38.6), "HotpotQA": (-1.6, -1.1)}
    >>> check_allrecall_gains(right).ok, check_allrecall_gains({k.lower(): v for k, v in right.items()}).ok
    (True, False)
    """
    if gains is Ellipsis:
        return NOT_YET
    got = _read_gains(gains)
    if got is None:
        return NOT_YET
    want = _gains()
    p = GAINS_PRECISION
    verdict, hint = diagnose(got, want, p, ALLRECALL_GAINS_WRONG)
    if verdict == "right":
        pairs = want.reshape(-1, 2)
        ahead = [(d, r, a) for d, (r, a) in zip(PAPER_DATASETS, pairs, strict=True) if r > 0]
        return Feedback(
            True,
            "where HippoRAG gains, the all-recall gain is about twice the recall gain ("
            + ", ".join(f"{d}: {r:+.1f} -> {a:+.1f}" for d, r, a in ahead)
            + "): the gain comes from getting every supporting passage of a question, not one more.",
        )
    if verdict == "close":
        return Feedback(False, close_message("your gains", p))
    hint = hint or (
        "R@5 gains come from Table 2 (HippoRAG (ColBERTv2) vs ColBERTv2), AR@5 gains from Table 6; "
        "subtract the printed values."
    )
    return Feedback(False, hint)


SYNONYMY_PAIR = ("thomas c  s dhof", "thomas c  sudhof")
"""Exercise 8.2's two nodes: Südhof's two spellings after v1's ASCII normalisation."""


@functools.lru_cache(maxsize=1)
def _case_index_phrases() -> tuple[str, ...]:
    """The phrases of notebook 8's index (b): the hand-written triples of the case study."""
    from pathfinding.experiments.step9.casestudy import CHAPTER_QUESTION, hand_triples, load_university, walk

    _, corpus = load_university()
    return tuple(walk(hand_triples(), corpus, CHAPTER_QUESTION).index.phrases)


def _floor(x: float, decimals: int) -> float:
    return math.floor(x * 10**decimals + 1e-9) / 10**decimals


SYNONYMY_THRESHOLD_WRONG = (
    WrongModel(
        "rounded up",
        "close — but rounded up: a synonymy edge needs cosine >= tau, so round the cosine down.",
        holds=lambda tau, cos: cos < tau <= math.ceil(cos * 1000 - 1e-9) / 1000 + 1e-9,
    ),
    WrongModel(
        "a percentage",
        "tau is a cosine, at most 1, not a percentage.",
        holds=lambda tau, cos: 1 < tau <= 100 * cos + 1e-6 and _floor(tau / 100, 3) == _floor(cos, 3),
    ),
    WrongModel(
        "one minus the cosine",
        "that is one minus the cosine, a distance; tau is compared with the cosine itself (a synonymy "
        "edge needs cosine >= tau).",
        holds=lambda tau, cos: abs(tau - (1 - cos)) <= 0.005 + 1e-9,
    ),
    WrongModel(
        "zero",
        "at tau = 0 every pair of phrases gets a synonymy edge (no cosine here is below 0): that is the "
        "smallest threshold, and the exercise asks for the largest one that still joins these two.",
        holds=lambda tau, cos: tau <= 0,
    ),
    WrongModel(
        "the paper's 0.8",
        "at the paper's tau = 0.8 the two spellings stay apart (their cosine is below it: that is the "
        "point of the exercise); give the largest tau that joins them.",
        holds=lambda tau, cos: abs(tau - 0.8) < 1e-9,
    ),
)
"""Exercise 8.2's confusions, each a property of ``(tau, cosine)``, tried in order before "close"."""


@feedback_on_unreadable
def check_synonymy_threshold(index, phrase_a: str, phrase_b: str, value) -> Feedback:
    """Exercise 8.2: the largest τ, to three decimals, at which ``phrase_a`` and ``phrase_b`` are joined.

    ``index`` is notebook 8's index (b) (the case study's hand-written triples) and the phrases are
    :data:`SYNONYMY_PAIR`; other inputs are refused. The answer is the two nodes' encoder cosine
    rounded *down* to three decimals (a synonymy edge needs cosine >= τ, so rounding up would lose
    the edge); a τ with more digits passes when it rounds down to the same three decimals and still
    joins them (the cosine itself does). :data:`SYNONYMY_THRESHOLD_WRONG` lists the confusions it names.
    """
    tau = read_number("value", value)
    if tau is None:
        return NOT_YET
    if {phrase_a, phrase_b} != set(SYNONYMY_PAIR):
        return not_the_exercise("8.2", f"the nodes {SYNONYMY_PAIR[0]!r} and {SYNONYMY_PAIR[1]!r}",
                                f"{phrase_a!r} and {phrase_b!r}")  # fmt: skip
    if tuple(index.phrases) != _case_index_phrases():
        return Feedback(
            False,
            "not the exercise's index: 8.2 asks about index (b), `by_hand.index` (the hand-written "
            "triples), whose encoder decides the cosine; this index has other phrases.",
        )
    E = index.node_embeddings
    a, b = index.phrase_ids[phrase_a], index.phrase_ids[phrase_b]
    prod = E[[a]] @ E[[b]].T
    cos = float(prod.toarray()[0, 0] if hasattr(prod, "toarray") else np.asarray(prod)[0, 0])
    want = _floor(cos, 3)
    if abs(tau - want) <= 1e-6 or (_floor(tau, 3) == want and tau <= cos + 1e-12):
        return Feedback(
            True,
            f"cosine {cos:.4f}: at tau = {want:.3f} the two spellings become one neighbourhood; at the "
            "paper's 0.8 they stay two nodes, and the walk never crosses between them.",
        )
    for model in SYNONYMY_THRESHOLD_WRONG:
        if model.shown_by(tau, (cos,), EXACT):
            return Feedback(False, f"{tau:g}; hint: {model.hint}")
    if any(abs(tau - _floor(cos, k)) < 1e-9 for k in (1, 2)):
        return Feedback(False, close_message(f"{tau:g}", Precision(decimals=3)))
    if tau < want:
        return Feedback(
            False,
            f"{tau:g}; hint: that tau joins them, but it is not the largest: every tau up to their "
            "cosine joins them, so give the cosine rounded down to three decimals.",
        )
    return Feedback(
        False, f"{tau:g}; hint: at that tau the pair is not joined: compute the two rows' cosine first."
    )
