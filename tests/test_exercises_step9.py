"""Notebook 8's exercise checks: a right answer passes in any number type and to the stated precision,
the typical wrong answers get the hint meant for them, and an unanswered exercise neither passes nor
crashes. The right answers are computed here from the paper's tables and from the encoder itself, not
copied from the formulas inside pathfinding.course.exercises.step9."""

import math
from fractions import Fraction

import numpy as np
import pytest

from pathfinding.course.exercises import step9 as ex
from pathfinding.errors import InvalidTypeError
from pathfinding.experiments.step9 import paper
from pathfinding.experiments.step9.casestudy import hand_triples, load_university, walk

DATASETS = ("MuSiQue", "2Wiki", "HotpotQA")


def _gains():
    t2, t6 = paper.TABLE_2, paper.TABLE_6
    return {
        d: (
            t2["HippoRAG (ColBERTv2)"][f"{d} R@5"] - t2["ColBERTv2"][f"{d} R@5"],
            t6["HippoRAG"][f"{d} AR@5"] - t6["ColBERTv2"][f"{d} AR@5"],
        )
        for d in DATASETS
    }


def test_gains_right_in_any_number_type_and_rounding():
    exact = _gains()
    assert ex.check_allrecall_gains(exact)
    assert ex.check_allrecall_gains({d: (round(a, 1), round(b, 1)) for d, (a, b) in exact.items()})
    assert ex.check_allrecall_gains({d: np.array([a, b]) for d, (a, b) in exact.items()})
    assert ex.check_allrecall_gains(
        {d: [Fraction(round(a * 10), 10), Fraction(round(b * 10), 10)] for d, (a, b) in exact.items()}
    )


def test_gains_typical_mistakes_get_their_hint():
    exact = _gains()
    flipped = {d: (-a, -b) for d, (a, b) in exact.items()}
    assert "MINUS" in ex.check_allrecall_gains(flipped).message
    swapped = {d: (b, a) for d, (a, b) in exact.items()}
    assert "swapped" in ex.check_allrecall_gains(swapped).message
    t2, t6 = paper.TABLE_2, paper.TABLE_6
    at2 = {
        d: (
            t2["HippoRAG (ColBERTv2)"][f"{d} R@2"] - t2["ColBERTv2"][f"{d} R@2"],
            t6["HippoRAG"][f"{d} AR@2"] - t6["ColBERTv2"][f"{d} AR@2"],
        )
        for d in DATASETS
    }
    assert "@2 columns" in ex.check_allrecall_gains(at2).message
    slip = {d: (a + 0.2, b) for d, (a, b) in exact.items()}
    fb = ex.check_allrecall_gains(slip)
    assert not fb and fb.message.startswith("close")
    assert not ex.check_allrecall_gains({d: (10.0, 10.0) for d in DATASETS})


def test_gains_unanswered_and_unreadable():
    assert "no answer yet" in ex.check_allrecall_gains(...).message
    assert "no answer yet" in ex.check_allrecall_gains({d: (..., ...) for d in DATASETS}).message
    with pytest.raises(InvalidTypeError, match="keys"):
        ex.check_allrecall_gains({"MuSiQue": (1, 2)})
    with pytest.raises(InvalidTypeError, match="two numbers"):
        ex.check_allrecall_gains({d: "2.7, 6.3" for d in DATASETS})
    with pytest.raises(InvalidTypeError, match="must be a number"):
        ex.check_allrecall_gains({d: ("2.7", 6.3) for d in DATASETS})


A, B = "thomas c  s dhof", "thomas c  sudhof"


@pytest.fixture(scope="module")
def case_index():
    question, corpus = load_university()
    return walk(hand_triples(), corpus, question.question).index


def _cosine(index):
    E = index.encoder([A, B])
    E = E.toarray() if hasattr(E, "toarray") else np.asarray(E)
    return float(E[0] @ E[1])


def test_threshold_right_answer_in_any_type(case_index):
    cos = _cosine(case_index)
    assert cos < 0.8  # the premise of the exercise: at the paper's tau the two spellings stay apart
    floor3 = math.floor(cos * 1000) / 1000
    assert ex.check_synonymy_threshold(case_index, A, B, floor3)
    assert ex.check_synonymy_threshold(case_index, A, B, Fraction(round(floor3 * 1000), 1000))
    assert ex.check_synonymy_threshold(case_index, A, B, np.float32(floor3) - np.float32(1e-7))
    # the answer works: a build at that tau joins them
    question, corpus = load_university()
    joined = walk(hand_triples(), corpus, question.question, tau=floor3).index
    assert joined.synonymy_graph[joined.phrase_ids[A], joined.phrase_ids[B]] > 0


def test_threshold_typical_mistakes(case_index):
    cos = _cosine(case_index)
    up = math.ceil(cos * 1000) / 1000
    assert "rounded up" in ex.check_synonymy_threshold(case_index, A, B, up).message
    assert "not the largest" in ex.check_synonymy_threshold(case_index, A, B, 0.5).message
    assert "not joined" in ex.check_synonymy_threshold(case_index, A, B, 0.8).message
    assert "no answer yet" in ex.check_synonymy_threshold(case_index, A, B, ...).message
    with pytest.raises(InvalidTypeError, match="not a node"):
        ex.check_synonymy_threshold(case_index, "Thomas C. Südhof", B, 0.7)
