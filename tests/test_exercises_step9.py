"""Notebook 8's exercise checks: a right answer passes in any number type and to the stated precision,
the typical wrong answers get the hint meant for them, and an unanswered exercise neither passes nor
crashes. The right answers are computed here from the paper's tables and from the encoder itself, not
copied from the formulas inside pathfinding.course.exercises.step9."""

import math
from fractions import Fraction

import numpy as np
import pytest

from pathfinding.course.exercises import step9 as ex
from pathfinding.experiments.step9 import paper
from pathfinding.experiments.step9.casestudy import hand_triples, load_university, walk
from pathfinding.hipporag.extract.cooccurrence import cooccurrence_docs

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
    assert ex.check_allrecall_gains({d: [a + 0.04, b - 0.04] for d, (a, b) in exact.items()})
    assert ex.check_allrecall_gains(
        {d: [Fraction(round(a * 10), 10), Fraction(round(b * 10), 10)] for d, (a, b) in exact.items()}
    )


@pytest.mark.parametrize("model", ex.ALLRECALL_GAINS_WRONG, ids=lambda m: m.name)
def test_gains_every_wrong_model_gets_its_hint(model):
    got = np.asarray(model.value()).reshape(-1, 2)
    fb = ex.check_allrecall_gains(dict(zip(DATASETS, got.tolist(), strict=True)))
    assert not fb and model.hint in fb.message, fb.message


def test_gains_typical_mistakes_computed_here_get_their_hint():
    exact = _gains()
    assert "MINUS" in ex.check_allrecall_gains({d: (-a, -b) for d, (a, b) in exact.items()}).message
    assert "swapped" in ex.check_allrecall_gains({d: (b, a) for d, (a, b) in exact.items()}).message
    t2, t6 = paper.TABLE_2, paper.TABLE_6
    at2 = {
        d: (
            t2["HippoRAG (ColBERTv2)"][f"{d} R@2"] - t2["ColBERTv2"][f"{d} R@2"],
            t6["HippoRAG"][f"{d} AR@2"] - t6["ColBERTv2"][f"{d} AR@2"],
        )
        for d in DATASETS
    }
    assert "@2 columns" in ex.check_allrecall_gains(at2).message
    slip = ex.check_allrecall_gains({d: (a + 0.2, b) for d, (a, b) in exact.items()})
    assert not slip and "close" not in slip.message  # one tenth off is not a rounding
    whole = ex.check_allrecall_gains({d: (round(a), round(b)) for d, (a, b) in exact.items()})
    assert not whole and whole.message.startswith("close — keep more digits")
    assert not ex.check_allrecall_gains({d: (10.0, 10.0) for d in DATASETS})


def test_gains_unanswered_and_unreadable_are_feedback():
    assert "no answer yet" in ex.check_allrecall_gains(...).message
    assert "no answer yet" in ex.check_allrecall_gains({d: (..., ...) for d in DATASETS}).message
    lower = ex.check_allrecall_gains({d.lower(): (1, 2) for d in DATASETS})
    assert not lower and "case-sensitive" in lower.message and "'MuSiQue'" in lower.message
    assert "exactly the keys" in ex.check_allrecall_gains({"MuSiQue": (1, 2)}).message
    assert "without quotes" in ex.check_allrecall_gains({d: "2.7, 6.3" for d in DATASETS}).message
    assert (
        "2 numbers (R@5 gain, AR@5 gain)" in ex.check_allrecall_gains({d: (1.0,) for d in DATASETS}).message
    )
    assert "without quotes" in ex.check_allrecall_gains({d: ("2.7", 6.3) for d in DATASETS}).message
    assert "finite" in ex.check_allrecall_gains({d: (np.nan, 6.3) for d in DATASETS}).message
    assert "a dict" in ex.check_allrecall_gains([2.7, 6.3]).message


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
    floor3 = math.floor(cos * 1000) / 1000
    up = math.ceil(cos * 1000) / 1000
    assert "rounded up" in ex.check_synonymy_threshold(case_index, A, B, up).message
    assert "not the largest" in ex.check_synonymy_threshold(case_index, A, B, 0.5).message
    # four decimals that join them but round down below the largest three-decimal tau: not right
    below = floor3 - 0.0009
    assert not ex.check_synonymy_threshold(case_index, A, B, below)
    assert "not the largest" in ex.check_synonymy_threshold(case_index, A, B, below).message
    assert ex.check_synonymy_threshold(case_index, A, B, cos)  # the cosine itself rounds down to it
    fewer = ex.check_synonymy_threshold(case_index, A, B, math.floor(cos * 10) / 10)
    assert not fewer and fewer.message.startswith("close — keep more digits")
    assert "not joined" in ex.check_synonymy_threshold(case_index, A, B, 0.9).message
    assert "no answer yet" in ex.check_synonymy_threshold(case_index, A, B, ...).message
    assert "without quotes" in ex.check_synonymy_threshold(case_index, A, B, "0.7").message


@pytest.mark.parametrize(
    ("answer", "hint"),
    [
        (lambda cos: 0, "the smallest threshold"),
        (lambda cos: -0.1, "the smallest threshold"),
        (lambda cos: round(1 - cos, 2), "one minus the cosine"),
        (lambda cos: 1 - cos, "one minus the cosine"),
        (lambda cos: 100 * math.floor(cos * 1000) / 1000, "not a percentage"),
        (lambda cos: 0.8, "the paper's tau = 0.8"),
    ],
    ids=["zero", "negative", "distance to 2 decimals", "distance", "percent", "the paper's tau"],
)
def test_threshold_slips_are_named_not_told_to_keep_digits(case_index, answer, hint):
    fb = ex.check_synonymy_threshold(case_index, A, B, answer(_cosine(case_index)))
    assert not fb and hint in fb.message and "three decimals" not in fb.message, fb.message


def test_threshold_refuses_another_pair_or_another_index(case_index):
    cos = _cosine(case_index)
    changed = ex.check_synonymy_threshold(case_index, A, "stanford university", 0.1)
    assert not changed and "exercise 8.2, which asks about the nodes" in changed.message
    assert "not a node" not in changed.message
    question, corpus = load_university()
    no_model = walk([d.triples for d in cooccurrence_docs(corpus)], corpus, question.question).index
    other = ex.check_synonymy_threshold(no_model, A, B, math.floor(cos * 1000) / 1000)
    assert not other and "index (b)" in other.message
